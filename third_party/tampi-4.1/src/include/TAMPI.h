/*
	This file is part of Task-Aware MPI and is licensed under the terms contained in the COPYING and COPYING.LESSER files.

	Copyright (C) 2015-2019 Barcelona Supercomputing Center (BSC)
*/

#ifndef TAMPI_H
#define TAMPI_H

#include <mpi.h>

#include "TAMPI_Decl.h"
#include "TAMPI_Wrappers.h"

#endif /* TAMPI_H */
