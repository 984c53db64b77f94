/*
	Ported to Locus from TAMPI v4.1's tests/oss/PrimitiveBlk.cpp
	(third_party/tampi-4.1/tests/oss/PrimitiveBlk.cpp), line by line.
	What changed, and nothing else: each "#pragma oss task" is a
	locus_task() with the same dependencies, its body moved to a static
	function taking a struct of the variables it captures; "#pragma oss
	taskwait" is locus_taskwait(); locus_init() comes before MPI_Init_thread
	and locus_finalize() after MPI_Finalize (both checked with LOCUS_CHECK);
	the task labels are dropped; LocusTask.hpp (beside this file) gives
	locus_task() a form that g++ compiles.  The checks, sizes and output
	are TAMPI's.

	This file is part of Task-Aware MPI and is licensed under the terms contained in the COPYING and COPYING.LESSER files.

	Copyright (C) 2019-2024 Barcelona Supercomputing Center (BSC)
*/

#include <mpi.h>
#include <TAMPI.h>

#include "Utils.hpp"
#include "LocusTask.hpp"

#include <vector>

#ifdef LARGE_INPUT
const int TIMESTEPS = 1000;
const int MSG_NUM = 1000;
const int MSG_SIZE = 100;
#else
const int TIMESTEPS = 100;
const int MSG_NUM = 500;
const int MSG_SIZE = 100;
#endif

struct MessageArgs { int *message; int m; };

// #pragma oss task out(message[0;MSG_SIZE]) label("init")
static void initTask(void *arg)
{
	int *message = static_cast<MessageArgs *>(arg)->message;
	for (int d = 0; d < MSG_SIZE; ++d) {
		message[d] = d;
	}
}

// #pragma oss task in(message[0;MSG_SIZE]) label("send")
static void sendTask(void *arg)
{
	int *message = static_cast<MessageArgs *>(arg)->message;
	int m = static_cast<MessageArgs *>(arg)->m;
	{
		CHECK(MPI_Send(message, MSG_SIZE, MPI_INT, 1, m, MPI_COMM_WORLD));
	}
}

// #pragma oss task out(message[0;MSG_SIZE]) label("recv")
static void recvTask(void *arg)
{
	int *message = static_cast<MessageArgs *>(arg)->message;
	int m = static_cast<MessageArgs *>(arg)->m;
	{
		MPI_Status status;
		CHECK(MPI_Recv(message, MSG_SIZE, MPI_INT, 0, m, MPI_COMM_WORLD, &status));
		ASSERT(status.MPI_TAG == m);
		ASSERT(status.MPI_SOURCE == 0);

		int count;
		CHECK(MPI_Get_count(&status, MPI_INT, &count));
		ASSERT(count == MSG_SIZE);
	}
}

// #pragma oss task in(message[0;MSG_SIZE]) label("check")
static void checkTask(void *arg)
{
	int *message = static_cast<MessageArgs *>(arg)->message;
	for (int d = 0; d < MSG_SIZE; ++d) {
		ASSERT(message[d] == d);
	}
}

int main(int argc, char **argv)
{
	LOCUS_CHECK(locus_init());

	int provided;
	const int required = MPI_TASK_MULTIPLE;
	CHECK(MPI_Init_thread(&argc, &argv, required, &provided));
	ASSERT(provided == required);

	int rank, size;
	CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
	CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size));
	ASSERT(size > 1);

	int * const buffer = (int *) std::malloc(MSG_NUM * MSG_SIZE * sizeof(int));
	ASSERT(buffer != nullptr);

	CHECK(MPI_Barrier(MPI_COMM_WORLD));
	double startTime = getTime();

	for (int t = 0; t < TIMESTEPS; ++t) {
		if (rank == 0) {
			int *message = buffer;

			for (int m = 0; m < MSG_NUM; ++m) {
				MessageArgs a = { message, m };
				locus_task(initTask, &a, sizeof a, LOCUS_OUT(message, MSG_SIZE * sizeof(int)));

				locus_task(sendTask, &a, sizeof a, LOCUS_IN(message, MSG_SIZE * sizeof(int)));
				message += MSG_SIZE;
			}
		} else if (rank == 1) {
			int *message = buffer + (MSG_NUM - 1) * MSG_SIZE;

			for (int m = MSG_NUM - 1; m >= 0; --m) {
				MessageArgs a = { message, m };
				locus_task(recvTask, &a, sizeof a, LOCUS_OUT(message, MSG_SIZE * sizeof(int)));

				locus_task(checkTask, &a, sizeof a, LOCUS_IN(message, MSG_SIZE * sizeof(int)));
				message -= MSG_SIZE;
			}
		}
	}
	LOCUS_CHECK(locus_taskwait());

	CHECK(MPI_Barrier(MPI_COMM_WORLD));

	if (rank == 0) {
		double endTime = getTime();
		fprintf(stdout, "Success, time: %f\n", endTime - startTime);
	}

	CHECK(MPI_Finalize());

	LOCUS_CHECK(locus_finalize());

	std::free(buffer);

	return 0;
}
