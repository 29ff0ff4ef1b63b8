/* prefork.c - the prefork supervisor */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "front.h"

#define DRAIN_TIMEOUT_MS	30000	/* SIGKILL a worker still there then */
#define RESEND_MS		1000	/* re-send SIGTERM while draining */
#define QUICK_DEATH_MS		1000	/* a worker dying younger is "quick" */
#define BACKOFF_MIN_MS		100	/* first delay after a quick death */
#define BACKOFF_MAX_MS		5000	/* longest delay */

/*
 * One worker process as the supervisor sees it.  A draining worker has
 * been told to stop (SIGHUP replaced it, or the supervisor is
 * stopping): it is never replaced, SIGTERM is re-sent every RESEND_MS
 * and SIGKILL follows DRAIN_TIMEOUT_MS after the first SIGTERM.
 */
struct worker {
	pid_t		 pid;		/* -1: free slot */
	int		 draining;	/* told to stop */
	int		 replace;	/* SIGHUP: stop once replaced */
	int		 killed;	/* SIGKILL sent */
	long long	 started;	/* fork time, ms (monotonic) */
	long long	 stopsince;	/* first SIGTERM, ms */
	long long	 lastterm;	/* latest SIGTERM, ms */
};

/*
 * The pool.  The supervisor keeps nothing per request: only pids and
 * timers.
 */
struct pool {
	struct wymcp_server	*srv;		/* handed to workers */
	int			 listenfd;	/* inherited by workers */
	int			 want;		/* --workers */
	struct worker		*w;		/* slots */
	size_t			 nw;		/* slots allocated */
	int			 backoff;	/* ms; 0 after a normal death */
	long long		 respawn_at;	/* no fork before, ms */
	sigset_t		 workermask;	/* a new worker's mask */
	pid_t			 self;		/* the supervisor's pid */
};

static volatile sig_atomic_t	 got_chld, got_term, got_hup;

/*
 * Supervisor signal handler: set a flag, nothing else.  The signals
 * are blocked except inside ppoll(2), so the main loop sees every flag
 * right after it is set.
 */
static void
onsig(int sig)
{
	switch (sig) {
	case SIGCHLD:
		got_chld = 1;
		break;
	case SIGHUP:
		got_hup = 1;
		break;
	default:
		got_term = 1;
		break;
	}
}

/*
 * Monotonic clock in milliseconds.
 */
static long long
now_ms(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		err(1, "clock_gettime");
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Number of live workers; `current' counts those not draining.
 */
static size_t
count(const struct pool *p, size_t *current)
{
	size_t	 i, live = 0, cur = 0;

	for (i = 0; i < p->nw; i++) {
		if (p->w[i].pid == -1)
			continue;
		live++;
		if (!p->w[i].draining)
			cur++;
	}
	if (current != NULL)
		*current = cur;
	return live;
}

/*
 * A free slot, growing the table when needed.
 */
static struct worker *
slot(struct pool *p)
{
	struct worker	*nw;
	size_t		 i, n;

	for (i = 0; i < p->nw; i++)
		if (p->w[i].pid == -1)
			return &p->w[i];
	n = p->nw == 0 ? 16 : p->nw * 2;
	if ((nw = reallocarray(p->w, n, sizeof(*nw))) == NULL)
		err(1, NULL);
	for (i = p->nw; i < n; i++) {
		memset(&nw[i], 0, sizeof(nw[i]));
		nw[i].pid = -1;
	}
	p->w = nw;
	i = p->nw;
	p->nw = n;
	return &p->w[i];
}

/*
 * Start one worker.  In the child: stop signals stay blocked until
 * the worker's loop waits, the worker dies with the supervisor
 * (PR_SET_PDEATHSIG, and a check for a parent gone already), then it
 * serves and exits.  Never returns in the child.  Returns 0, or -1
 * when fork(2) failed.
 */
static int
spawn(struct pool *p, long long now)
{
	struct sigaction	 sa;
	struct worker		*w;
	pid_t			 pid;

	w = slot(p);
	if ((pid = fork()) == -1) {
		front_log(WYMCP_LOG_ERR, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigemptyset(&sa.sa_mask);
		(void)sigaction(SIGCHLD, &sa, NULL);
		(void)sigprocmask(SIG_SETMASK, &p->workermask, NULL);
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1)
			front_log(WYMCP_LOG_WARNING, "prctl: %s",
			    strerror(errno));
		if (getppid() != p->self)
			exit(0);
		exit(front_worker(p->srv, p->listenfd));
	}
	memset(w, 0, sizeof(*w));
	w->pid = pid;
	w->started = now;
	front_log(WYMCP_LOG_DEBUG, "started worker %ld", (long)pid);
	return 0;
}

/*
 * Start workers until `want' are running, unless a back-off delay is
 * in force.  A failed fork counts as a quick death.
 */
static void
spawn_missing(struct pool *p, long long now)
{
	size_t	 cur;

	count(p, &cur);
	while (cur < (size_t)p->want && now >= p->respawn_at) {
		if (spawn(p, now) == -1) {
			p->backoff = p->backoff == 0 ? BACKOFF_MIN_MS :
			    p->backoff * 2 > BACKOFF_MAX_MS ?
			    BACKOFF_MAX_MS : p->backoff * 2;
			p->respawn_at = now + p->backoff;
			break;
		}
		cur++;
	}
}

/*
 * Tell a worker to finish its request and exit.
 */
static void
retire(struct worker *w, long long now)
{
	w->draining = 1;
	w->replace = 0;
	w->stopsince = w->lastterm = now;
	if (kill(w->pid, SIGTERM) == -1 && errno != ESRCH)
		front_log(WYMCP_LOG_ERR, "kill %ld: %s", (long)w->pid,
		    strerror(errno));
}

/*
 * Log the death of worker `w' with its wait(2) status.
 */
static void
log_death(const struct worker *w, int st, int prio)
{
	int	 sig;

	if (WIFEXITED(st))
		front_log(prio, "worker %ld exited with status %d%s",
		    (long)w->pid, WEXITSTATUS(st),
		    w->draining ? "" : " (unexpected)");
	else if (WIFSIGNALED(st)) {
		sig = WTERMSIG(st);
		front_log(prio, "worker %ld killed by signal %d (%s)%s%s",
		    (long)w->pid, sig, strsignal(sig),
		    WCOREDUMP(st) ? ", core dumped" : "",
		    w->draining ? "" : " (unexpected)");
	} else
		front_log(prio, "worker %ld: wait status %#x",
		    (long)w->pid, (unsigned int)st);
}

/*
 * Reap every dead worker.  A worker that was not draining is replaced
 * (by the main loop); if it died within QUICK_DEATH_MS of starting,
 * the next start waits a back-off delay that doubles up to
 * BACKOFF_MAX_MS, so that a worker crashing at once cannot turn the
 * supervisor into a fork bomb.
 */
static void
reap(struct pool *p, long long now)
{
	struct worker	*w;
	size_t		 i;
	pid_t		 pid;
	int		 st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		for (w = NULL, i = 0; i < p->nw; i++)
			if (p->w[i].pid == pid) {
				w = &p->w[i];
				break;
			}
		if (w == NULL)
			continue;
		if (w->draining)
			log_death(w, st, WYMCP_LOG_INFO);
		else {
			log_death(w, st, WYMCP_LOG_WARNING);
			if (now - w->started < QUICK_DEATH_MS) {
				p->backoff = p->backoff == 0 ?
				    BACKOFF_MIN_MS :
				    p->backoff * 2 > BACKOFF_MAX_MS ?
				    BACKOFF_MAX_MS : p->backoff * 2;
				p->respawn_at = now + p->backoff;
				front_log(WYMCP_LOG_WARNING, "worker died "
				    "%lld ms after starting; next start in "
				    "%d ms", now - w->started, p->backoff);
			} else
				p->backoff = 0;
		}
		w->pid = -1;
	}
	if (pid == -1 && errno != ECHILD)
		front_log(WYMCP_LOG_ERR, "waitpid: %s", strerror(errno));
}

/*
 * Drive the draining workers' timers: re-send SIGTERM every RESEND_MS
 * (a worker may have been between two requests' worth of work when the
 * first one came), SIGKILL after DRAIN_TIMEOUT_MS.  Returns the ms
 * until the next timer, or -1 when none is running.
 */
static long long
drain_tick(struct pool *p, long long now)
{
	struct worker	*w;
	long long	 next = -1, t;
	size_t		 i;

	for (i = 0; i < p->nw; i++) {
		w = &p->w[i];
		if (w->pid == -1 || !w->draining || w->killed)
			continue;
		if (now - w->stopsince >= DRAIN_TIMEOUT_MS) {
			front_log(WYMCP_LOG_WARNING, "worker %ld still busy "
			    "after %d s; killing it", (long)w->pid,
			    DRAIN_TIMEOUT_MS / 1000);
			(void)kill(w->pid, SIGKILL);
			w->killed = 1;
			continue;
		}
		if (now - w->lastterm >= RESEND_MS) {
			(void)kill(w->pid, SIGTERM);
			w->lastterm = now;
		}
		t = w->lastterm + RESEND_MS - now;
		if (w->stopsince + DRAIN_TIMEOUT_MS - now < t)
			t = w->stopsince + DRAIN_TIMEOUT_MS - now;
		if (next == -1 || t < next)
			next = t;
	}
	return next;
}

/*
 * The supervisor, modelled on kfcgi's fixed pool and slowcgi: block
 * SIGCHLD, SIGTERM, SIGINT and SIGHUP, fork the workers (they inherit
 * the listening socket and the loaded modules), and wait for signals
 * in ppoll(2), which is sigsuspend(2) with a timeout.  A dead worker is
 * reaped, logged and replaced.  SIGHUP starts a fresh set of workers,
 * then tells the old ones to drain (modules are not reloaded: they
 * were loaded before the first fork).  SIGTERM or SIGINT drains every
 * worker, waits for all of them and returns 0.
 */
int
front_prefork(struct wymcp_server *srv, int listenfd, int owned, int workers)
{
	struct pool		 p;
	struct sigaction	 sa, osa[4];
	struct timespec		 ts;
	sigset_t		 set, origmask, waitmask;
	long long		 now, next;
	size_t			 i, cur;
	int			 stopping = 0;
	static const int	 sigs[4] = { SIGCHLD, SIGTERM, SIGINT, SIGHUP };

	memset(&p, 0, sizeof(p));
	p.srv = srv;
	p.listenfd = listenfd;
	p.want = workers;
	p.self = getpid();

	sigemptyset(&set);
	for (i = 0; i < 4; i++)
		sigaddset(&set, sigs[i]);
	if (sigprocmask(SIG_BLOCK, &set, &origmask) == -1)
		err(1, "sigprocmask");
	waitmask = origmask;
	p.workermask = origmask;
	for (i = 0; i < 4; i++)
		sigdelset(&waitmask, sigs[i]);
	sigdelset(&p.workermask, SIGCHLD);
	sigaddset(&p.workermask, SIGTERM);
	sigaddset(&p.workermask, SIGINT);
	sigaddset(&p.workermask, SIGHUP);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = onsig;
	sa.sa_mask = set;
	for (i = 0; i < 4; i++) {
		sa.sa_flags = sigs[i] == SIGCHLD ? SA_NOCLDSTOP : 0;
		if (sigaction(sigs[i], &sa, &osa[i]) == -1)
			err(1, "sigaction");
	}

	front_log(WYMCP_LOG_INFO, "supervisor %ld starting %d worker%s",
	    (long)p.self, workers, workers == 1 ? "" : "s");

	for (;;) {
		got_chld = 0;
		now = now_ms();

		if (got_term && !stopping) {
			stopping = 1;
			front_log(WYMCP_LOG_INFO, "stopping: draining %zu "
			    "worker%s", count(&p, NULL),
			    count(&p, NULL) == 1 ? "" : "s");
			for (i = 0; i < p.nw; i++)
				if (p.w[i].pid != -1 && !p.w[i].draining)
					retire(&p.w[i], now);
			/*
			 * A socket we made (--listen) stops taking new
			 * connections now, so the web server sees a refused
			 * connect and tries another host instead of queueing
			 * requests that would be reset when we exit.  A socket
			 * handed to us (systemd, spawn-fcgi) outlives us: its
			 * owner keeps queueing for the next process.
			 */
			if (owned && shutdown(p.listenfd, SHUT_RD) == -1)
				front_log(WYMCP_LOG_INFO, "shutdown: %s",
				    strerror(errno));
		}
		if (got_hup) {
			got_hup = 0;
			if (!stopping) {
				front_log(WYMCP_LOG_INFO, "SIGHUP: replacing "
				    "the workers");
				for (i = 0; i < p.nw; i++)
					if (p.w[i].pid != -1 &&
					    !p.w[i].draining)
						p.w[i].replace = 1;
				p.backoff = 0;
				p.respawn_at = 0;
				for (i = 0; i < (size_t)p.want; i++)
					if (spawn(&p, now) == -1)
						break;
				for (i = 0; i < p.nw; i++)
					if (p.w[i].pid != -1 &&
					    p.w[i].replace)
						retire(&p.w[i], now);
			}
		}

		reap(&p, now);
		if (count(&p, &cur) == 0 && stopping)
			break;
		if (!stopping)
			spawn_missing(&p, now);

		next = drain_tick(&p, now);
		count(&p, &cur);
		if (!stopping && cur < (size_t)p.want &&
		    (next == -1 || p.respawn_at - now < next))
			next = p.respawn_at - now;
		if (next >= 0) {
			ts.tv_sec = next / 1000;
			ts.tv_nsec = (long)(next % 1000) * 1000000L;
		}
		(void)ppoll(NULL, 0, next >= 0 ? &ts : NULL, &waitmask);
	}

	front_log(WYMCP_LOG_INFO, "all workers stopped");
	for (i = 0; i < 4; i++)
		(void)sigaction(sigs[i], &osa[i], NULL);
	(void)sigprocmask(SIG_SETMASK, &origmask, NULL);
	free(p.w);
	return 0;
}
