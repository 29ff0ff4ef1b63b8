/* runner.c - a task runner: claims tasks from the store and runs them */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "front.h"

#define IDLE_MS		200	/* look for work this often when idle */

static volatile sig_atomic_t	 stopsig;

static void
onstop(int sig)
{
	stopsig = sig;
}

/*
 * A task runner (--task-runners N): a child of the supervisor like a
 * worker, with the same limits (the request time limit through the
 * watch, the memory limit inherited), that takes no connections.  It
 * claims a ready task (wymcp_server_run_task()), runs it, and looks
 * again; when none is ready it waits IDLE_MS, or less when the store
 * says a task was made ready (wymcp_server_task_fd()).  Stop signals are only
 * taken between two tasks, like a worker's between two requests.
 */
int
front_runner(struct wymcp_server *srv, const struct front_limits *lim,
    struct front_board *board)
{
	struct timespec		 ts;
	struct pollfd		 pfd;
	sigset_t		 waitmask;
	int			 rc, status = 0;

	(void)front_watch_init(srv, board, lim->timeout);
	if (front_catch_stop(onstop, &waitmask) == -1)
		return 1;
	front_log(WYMCP_LOG_DEBUG, "task runner ready");
	while (!stopsig) {
		front_watch_begin();
		rc = wymcp_server_run_task(srv);
		(void)front_watch_end();
		if (rc > 0) {
			board->accepted++;
			board->served++;
			continue;
		}
		ts.tv_sec = 0;
		ts.tv_nsec = IDLE_MS * 1000000L;
		/*
		 * Stop signals are taken here only.  A store that announces
		 * new tasks (PostgreSQL NOTIFY) wakes us at once.
		 */
		pfd.fd = wymcp_server_task_fd(srv);
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (ppoll(&pfd, pfd.fd >= 0 ? 1 : 0, &ts, &waitmask) == -1 &&
		    errno != EINTR) {
			front_log(WYMCP_LOG_ERR, "ppoll: %s", strerror(errno));
			status = 1;
			break;
		}
	}
	front_log(WYMCP_LOG_DEBUG, "task runner stopping");
	return status;
}
