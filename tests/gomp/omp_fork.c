/* A region with tasks, then fork(): the child, which has only the forking
 * thread, runs regions with tasks of its own (its runtime starts afresh),
 * and the parent, once the child ended, runs another. */
#include <omp.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static long tasks_sum(int n)
{
    long sum = 0;
#pragma omp parallel
#pragma omp single
    for (int i = 1; i <= n; i++) {
#pragma omp task shared(sum)
        {
#pragma omp atomic
            sum += i;
        }
    }
    return sum;
}

int main(void)
{
    printf("parent before fork: %ld\n", tasks_sum(100));
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        printf("child: %ld\n", tasks_sum(200));
        int team = 0;
#pragma omp parallel num_threads(2)
#pragma omp atomic
        team++;
        printf("child: team of %d, then %ld\n", team, tasks_sum(50));
        fflush(stdout);
        return 0;
    }
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        printf("parent: child failed\n");
        return 1;
    }
    printf("parent after child: %ld\n", tasks_sum(300));
    return 0;
}
