/*
 * forkloop.c - the floor of an exec tool: a bare fork+exec+wait loop
 * (t/bench/execbench.py).  Runs PROGRAM N times, each with INPUT on a
 * pipe to its stdin and its stdout read to the end, as wymcp does, and
 * prints each run's wall time in microseconds, one a line.
 *
 *	forkloop N INPUT PROGRAM [ARG...]
 */
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long
now_us(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int
main(int argc, char *argv[])
{
	char		 buf[4096];
	const char	*in;
	long long	 t0;
	int		 i, n, pin[2], pout[2], st;
	pid_t		 pid;

	if (argc < 4)
		return 2;
	n = atoi(argv[1]);
	in = argv[2];
	for (i = 0; i < n; i++) {
		t0 = now_us();
		if (pipe(pin) == -1 || pipe(pout) == -1)
			return 1;
		if ((pid = fork()) == -1)
			return 1;
		if (pid == 0) {
			dup2(pin[0], 0);
			dup2(pout[1], 1);
			close(pin[0]);
			close(pin[1]);
			close(pout[0]);
			close(pout[1]);
			execv(argv[3], argv + 3);
			_exit(127);
		}
		close(pin[0]);
		close(pout[1]);
		if (write(pin[1], in, strlen(in)) < 0)
			return 1;
		close(pin[1]);
		while (read(pout[0], buf, sizeof(buf)) > 0)
			;
		close(pout[0]);
		waitpid(pid, &st, 0);
		printf("%lld\n", now_us() - t0);
	}
	return 0;
}
