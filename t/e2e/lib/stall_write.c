/*
 * stall_write.c - an LD_PRELOAD shim for the tests that kill a worker
 * at a chosen point (t/e2e/e2e_listen_dead.py): a write(2) whose
 * buffer holds $WYMCP_TEST_STALL_ON, while the file
 * $WYMCP_TEST_STALL_DIR/stall exists, does not happen: the process
 * makes $WYMCP_TEST_STALL_DIR/stalled.PID and waits for a signal that
 * kills it.  Every other write goes to the next write(2).
 *
 * Built by the test with the system's cc (no sanitizer: ASan is told
 * not to mind a library before its own, verify_asan_link_order=0).
 */
#define _GNU_SOURCE
#include <sys/types.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

ssize_t
write(int fd, const void *buf, size_t len)
{
	static ssize_t	 (*next)(int, const void *, size_t);
	const char	*dir, *on;
	char		 p[4096];
	int		 f;

	if (next == NULL)
		next = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT,
		    "write");
	if ((dir = getenv("WYMCP_TEST_STALL_DIR")) != NULL &&
	    (on = getenv("WYMCP_TEST_STALL_ON")) != NULL && *on != '\0' &&
	    memmem(buf, len, on, strlen(on)) != NULL &&
	    (size_t)snprintf(p, sizeof(p), "%s/stall", dir) < sizeof(p) &&
	    access(p, F_OK) == 0) {
		snprintf(p, sizeof(p), "%s/stalled.%ld", dir, (long)getpid());
		if ((f = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) != -1)
			close(f);
		for (;;)
			pause();
	}
	return next(fd, buf, len);
}
