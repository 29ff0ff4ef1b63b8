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
#define FAIL_MS		2000	/* the longest wait after failures */

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
 *
 * While the store fails (down, restarting), the wait doubles from
 * IDLE_MS up to FAIL_MS: the runner neither spins nor dies, and goes
 * on when the store is back.  An outcome the store could not take is
 * kept and stored again on each turn (wymcp_server_run_task()); a
 * runner told to stop keeps trying until it is stored, or until the
 * supervisor's --drain-timeout ends it.
 */
int
front_runner(struct wymcp_server *srv, const struct front_limits *lim,
    struct front_board *board)
{
	struct timespec		 ts;
	struct pollfd		 pfd;
	sigset_t		 waitmask;
	long			 wait = IDLE_MS;
	int			 rc, status = 0;

	(void)front_watch_init(srv, board, lim->timeout);
	if (front_catch_stop(onstop, &waitmask) == -1)
		return 1;
	front_log(WYMCP_LOG_DEBUG, "task runner ready");
	while (!stopsig || wymcp_server_task_unstored(srv)) {
		front_watch_begin();
		front_audit_begin(NULL);	/* a run's line and span */
		rc = wymcp_server_run_task(srv);
		(void)front_watch_end();
		if (rc > 0) {
			board->accepted++;
			board->served++;
			wait = IDLE_MS;
			continue;
		}
		if (rc < 0)
			wait = wait * 2 > FAIL_MS ? FAIL_MS : wait * 2;
		else
			wait = IDLE_MS;
		ts.tv_sec = wait / 1000;
		ts.tv_nsec = wait % 1000 * 1000000L;
		/*
		 * Stop signals are taken here only.  A store that announces
		 * new tasks (PostgreSQL NOTIFY) wakes us at once.
		 */
		pfd.fd = rc < 0 ? -1 : wymcp_server_task_fd(srv);
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
