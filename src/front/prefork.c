/* prefork.c - the prefork supervisor */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "front.h"

#define RESEND_MS		1000	/* re-send SIGTERM while draining */
#define QUICK_DEATH_MS		1000	/* a worker dying younger is "quick" */
#define BACKOFF_MIN_MS		100	/* first delay after a quick death */
#define BACKOFF_MAX_MS		5000	/* longest delay */
#define TICK_MS			1000	/* look at the boards this often */
#define GROW_TICK_MS		20	/* ... when a growing pool is busy */
#define IDLE_TICK_MS		250	/* ... when it is idle */
#define GROW_MAX		8	/* workers started per look */

/*
 * One worker process as the supervisor sees it.  A draining worker has
 * been told to stop (SIGHUP replaced it, or the supervisor is
 * stopping): it is never replaced, SIGTERM is re-sent every RESEND_MS
 * and SIGKILL follows --drain-timeout after the first SIGTERM.  `board'
 * is the page the worker writes what it does into (front.h).
 */
struct worker {
	pid_t		 pid;		/* -1: free slot */
	int		 draining;	/* told to stop */
	int		 replace;	/* SIGHUP: stop once replaced */
	int		 killed;	/* SIGKILL sent */
	int		 overdue;	/* killed: past its time limit */
	int		 runner;	/* a task runner, not a worker */
	int		 hub;		/* the hub (hub.c), not a worker */
	long long	 started;	/* fork time, ms (monotonic) */
	long long	 stopsince;	/* first SIGTERM, ms */
	long long	 lastterm;	/* latest SIGTERM, ms */
	struct front_board *board;	/* shared with the worker */
	long long	 active;	/* last seen busy, ms */
	unsigned long	 seen;		/* board->accepted then */
};

/*
 * The pool.  The supervisor keeps nothing per request: only pids and
 * timers.
 */
struct pool {
	struct wymcp_server	*srv;		/* handed to workers */
	front_reload_fn		 reload;	/* SIGHUP: the server anew */
	int			 listenfd;	/* inherited by workers */
	int			 want;		/* --workers, or MIN */
	int			 want_runners;	/* --task-runners */
	int			 want_hub;	/* a hub: listen streams */
	int			 max;		/* MAX of --workers MIN:MAX */
	long long		 idle_ms;	/* --idle-timeout */
	int			 at_max;	/* MAX reached: logged once */
	unsigned long		 started;	/* workers forked, ever */
	const struct front_limits *lim;		/* handed to workers */
	long long		 drain_ms;	/* --drain-timeout */
	struct worker		*w;		/* slots */
	size_t			 nw;		/* slots allocated */
	int			 backoff;	/* ms; 0 after a normal death */
	long long		 respawn_at;	/* no fork before, ms */
	sigset_t		 workermask;	/* a new worker's mask */
	pid_t			 self;		/* the supervisor's pid */
};

static volatile sig_atomic_t	 got_chld, got_term, got_hup, got_usr1;

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
	case SIGUSR1:
		got_usr1 = 1;
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

/* Is a hub running (not told to stop)? */
static int
hub_running(const struct pool *p)
{
	size_t	 i;

	for (i = 0; i < p->nw; i++)
		if (p->w[i].pid != -1 && p->w[i].hub && !p->w[i].draining)
			return 1;
	return 0;
}

/*
 * Number of live processes, workers, runners and the hub; `current'
 * counts the workers not draining, `runners' the runners not draining.
 */
static size_t
count2(const struct pool *p, size_t *current, size_t *runners)
{
	size_t	 i, live = 0, cur = 0, run = 0;

	for (i = 0; i < p->nw; i++) {
		if (p->w[i].pid == -1)
			continue;
		live++;
		if (p->w[i].hub)
			continue;
		if (!p->w[i].draining && p->w[i].runner)
			run++;
		else if (!p->w[i].draining)
			cur++;
	}
	if (current != NULL)
		*current = cur;
	if (runners != NULL)
		*runners = run;
	return live;
}

static size_t
count(const struct pool *p, size_t *current)
{
	return count2(p, current, NULL);
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

#define KIND_WORKER	0
#define KIND_RUNNER	1
#define KIND_HUB	2

/*
 * In the child `spawn()' forked, of `kind', with its board `b': the
 * death signal, the signal mask, the other boards unmapped and the
 * descriptors it must not hold closed; then it serves and exits.
 */
static void
child(struct pool *p, struct front_board *b, int kind)
{
	struct sigaction	 sa;
	size_t			 i;

	/*
	 * The hub outlives a killed supervisor long enough to remove the
	 * private directories (hub.c): SIGTERM, and it looks for a parent
	 * gone already itself.
	 */
	if (prctl(PR_SET_PDEATHSIG, kind == KIND_HUB ? SIGTERM : SIGKILL) ==
	    -1)
		front_log(WYMCP_LOG_WARNING, "prctl: %s", strerror(errno));
	if (kind != KIND_HUB && getppid() != p->self)
		_exit(0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGCHLD, &sa, NULL);
	(void)sigaction(SIGUSR1, &sa, NULL);	/* a worker's stop */
	(void)sigprocmask(SIG_SETMASK, &p->workermask, NULL);
	for (i = 0; i < p->nw; i++)
		if (p->w[i].pid != -1 && p->w[i].board != NULL)
			(void)munmap(p->w[i].board, sizeof(*p->w[i].board));
	if (kind == KIND_HUB) {
		/* The hub takes streams from workers only. */
		(void)close(p->listenfd);
		exit(front_hub(p->lim, b, p->self, p->srv));
	}
	/* Only the hub reads its socket and the relay port. */
	if (p->lim->hub_fd >= 0)
		(void)close(p->lim->hub_fd);
	if (p->lim->listen != NULL && p->lim->listen->own_fd >= 0)
		(void)close(p->lim->listen->own_fd);
	if (p->lim->relay_fd >= 0)
		(void)close(p->lim->relay_fd);
	if (kind == KIND_RUNNER) {
		/* A runner takes no connections. */
		(void)close(p->listenfd);
		exit(front_runner(p->srv, p->lim, b));
	}
	exit(front_worker(p->srv, p->listenfd, p->lim, b));
}

/*
 * Start one worker, with a fresh board shared with it.  In the child:
 * stop signals stay blocked until the worker's loop waits; the worker
 * dies with the supervisor, SIGKILL since SIGTERM is held during a
 * request (PR_SET_PDEATHSIG, and a check for a parent gone already,
 * before the prctl took effect), the hub on SIGTERM, to clean up after
 * it (front_hub()); the other workers' boards are unmapped
 * (a worker must not scribble on what the supervisor reads of another);
 * then it serves and exits.  Never returns in the child.  Returns 0, or
 * -1 when mmap(2) or fork(2) failed.
 */
static int
spawn(struct pool *p, long long now, int kind)
{
	struct front_board	*b;
	struct worker		*w;
	pid_t			 pid;

	if (p->srv == NULL)
		return -1;	/* a reload failed: stopping */
	w = slot(p);
	b = mmap(NULL, sizeof(*b), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (b == MAP_FAILED) {
		front_log(WYMCP_LOG_ERR, "mmap: %s", strerror(errno));
		return -1;
	}
	if ((pid = fork()) == -1) {
		front_log(WYMCP_LOG_ERR, "fork: %s", strerror(errno));
		(void)munmap(b, sizeof(*b));
		return -1;
	}
	if (pid == 0)
		child(p, b, kind);
	if (p->started++ > 0 && p->lim->stats != NULL)
		__atomic_add_fetch(&p->lim->stats->respawns, 1,
		    __ATOMIC_RELAXED);
	memset(w, 0, sizeof(*w));
	w->runner = kind == KIND_RUNNER;
	w->hub = kind == KIND_HUB;
	w->pid = pid;
	w->started = now;
	w->active = now;
	w->board = b;
	if (w->hub) {
		/* Its deaths are not a worker's that cannot start. */
		b->accepted = 1;
		if (p->lim->listen != NULL)
			__atomic_add_fetch(&p->lim->listen->hub_starts, 1,
			    __ATOMIC_RELAXED);
	}
	front_log(WYMCP_LOG_DEBUG, "started %s %ld", kind == KIND_RUNNER ?
	    "task runner" : kind == KIND_HUB ? "hub" : "worker", (long)pid);
	return 0;
}

/*
 * Start workers until `want' are running, unless a back-off delay is
 * in force.  A failed fork counts as a quick death.
 */
static void
spawn_missing(struct pool *p, long long now)
{
	size_t	 cur, run;

	count2(p, &cur, &run);
	if (p->want_hub && !hub_running(p) && now >= p->respawn_at &&
	    spawn(p, now, KIND_HUB) == -1)
		return;
	while ((cur < (size_t)p->want || run < (size_t)p->want_runners) &&
	    now >= p->respawn_at) {
		if (spawn(p, now, cur >= (size_t)p->want ? KIND_RUNNER :
		    KIND_WORKER) == -1) {
			p->backoff = p->backoff == 0 ? BACKOFF_MIN_MS :
			    p->backoff * 2 > BACKOFF_MAX_MS ?
			    BACKOFF_MAX_MS : p->backoff * 2;
			p->respawn_at = now + p->backoff;
			break;
		}
		if (cur < (size_t)p->want)
			cur++;
		else
			run++;
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
 * A pool of --workers MIN:MAX (php-fpm's dynamic mode): when no worker
 * is idle and fewer than MAX run, start more (as many again as run,
 * GROW_MAX at most per look); a worker idle for --idle-timeout is
 * retired while more than MIN run.  A worker is busy while its board
 * says so; one that took a connection since the last look was busy in
 * between.  Returns how soon to look again, ms.
 */
static long long
pool_tick(struct pool *p, long long now)
{
	struct worker	*w;
	size_t		 i, cur = 0, idle = 0, k;
	unsigned long	 acc;
	int		 busy;

	if (p->max <= p->want)
		return -1;
	for (i = 0; i < p->nw; i++) {
		w = &p->w[i];
		/* Task runners are not the pool's: --task-runners. */
		if (w->pid == -1 || w->draining || w->board == NULL ||
		    w->runner || w->hub)
			continue;
		cur++;
		busy = __atomic_load_n(&w->board->busy, __ATOMIC_RELAXED);
		acc = __atomic_load_n(&w->board->accepted, __ATOMIC_RELAXED);
		if (busy || acc != w->seen) {
			w->active = now;
			w->seen = acc;
		}
		if (!busy)
			idle++;
	}
	if (idle == 0 && cur < (size_t)p->max && now >= p->respawn_at) {
		k = cur > 0 ? cur : 1;
		if (k > (size_t)p->max - cur)
			k = (size_t)p->max - cur;
		if (k > GROW_MAX)
			k = GROW_MAX;
		while (k-- > 0 && spawn(p, now, KIND_WORKER) == 0)
			cur++;
		if (cur == (size_t)p->max && !p->at_max) {
			p->at_max = 1;
			if (p->lim->stats != NULL)
				__atomic_add_fetch(
				    &p->lim->stats->max_reached, 1,
				    __ATOMIC_RELAXED);
			front_log(WYMCP_LOG_WARNING, "pool: all %d workers "
			    "busy (--workers %d:%d)", p->max, p->want, p->max);
		}
	} else if (cur < (size_t)p->max)
		p->at_max = 0;
	for (i = 0; i < p->nw && cur > (size_t)p->want; i++) {
		w = &p->w[i];
		if (w->pid == -1 || w->draining || w->board == NULL ||
		    w->runner || w->hub || now - w->active < p->idle_ms ||
		    __atomic_load_n(&w->board->busy, __ATOMIC_RELAXED))
			continue;
		front_log(WYMCP_LOG_DEBUG, "pool: retiring idle worker %ld",
		    (long)w->pid);
		retire(w, now);
		cur--;
	}
	/*
	 * Every worker busy and room to grow: look again soon, as the
	 * workers just started take their connections; else now and then.
	 */
	return idle == 0 && cur < (size_t)p->max ? GROW_TICK_MS :
	    IDLE_TICK_MS;
}

/* What the status page shows of the pool: written at each look. */
static void
stats_tick(struct pool *p)
{
	struct front_stats	*s = p->lim->stats;
	size_t			 i;
	int			 running = 0, busy = 0;

	if (s == NULL)
		return;
	for (i = 0; i < p->nw; i++) {
		/* The hub is on the page of its own (listen). */
		if (p->w[i].pid == -1 || p->w[i].draining || p->w[i].hub)
			continue;
		running++;
		if (p->w[i].board != NULL && __atomic_load_n(
		    &p->w[i].board->busy, __ATOMIC_RELAXED))
			busy++;
	}
	__atomic_store_n(&s->running, running, __ATOMIC_RELAXED);
	__atomic_store_n(&s->busy, busy, __ATOMIC_RELAXED);
}

/*
 * " while serving [id ID] METHOD NAME" for the request worker `w' had
 * in flight, from its board, into `buf'; "" when it had none.  The
 * worker is dead: the board no longer changes.
 */
static const char *
serving(const struct worker *w, char *buf, size_t len)
{
	const struct front_board *b = w->board;

	buf[0] = '\0';
	if (b == NULL || !b->busy)
		return buf;
	snprintf(buf, len, " while serving %s%.*s%s%.*s%s%.*s",
	    b->reqid[0] != '\0' ? "[id " : "",
	    (int)sizeof(b->reqid), b->reqid,
	    b->reqid[0] != '\0' ? "] " : "",
	    (int)sizeof(b->method), b->method[0] != '\0' ? b->method :
	    "a request being read", b->name[0] != '\0' ? " " : "",
	    (int)sizeof(b->name), b->name);
	return buf;
}

/*
 * Log the death of worker `w' with its wait(2) status, and with what it
 * was serving when it was not told to stop: a worker that stopped
 * itself past a time limit, or retired, says so on its board.
 */
static void
log_death(const struct worker *w, int st, int prio)
{
	const struct front_board *b = w->board;
	char	 what[300];
	int	 sig;

	(void)serving(w, what, sizeof(what));
	if (b != NULL && !w->draining && b->why == FRONT_WHY_RETIRED &&
	    WIFEXITED(st) && WEXITSTATUS(st) == 0)
		front_log(WYMCP_LOG_INFO, "worker %ld retired after %lu "
		    "request%s (%.*s); replacing it", (long)w->pid, b->served,
		    b->served == 1 ? "" : "s", (int)sizeof(b->detail),
		    b->detail);
	else if (b != NULL && b->why == FRONT_WHY_TIMEOUT)
		front_log(prio, "worker %ld stopped itself%s: the request ran "
		    "past its time limit%s", (long)w->pid, what,
		    w->draining ? "" : "; replacing it");
	else if (WIFEXITED(st))
		front_log(prio, "%s %ld exited with status %d%s%s",
		    w->hub ? "hub" : "worker", (long)w->pid, WEXITSTATUS(st),
		    w->draining ? "" : " (unexpected)", what);
	else if (WIFSIGNALED(st)) {
		sig = WTERMSIG(st);
		front_log(prio, "%s %ld killed by signal %d (%s)%s%s%s%s",
		    w->hub ? "hub" : "worker", (long)w->pid, sig,
		    strsignal(sig),
		    WCOREDUMP(st) ? ", core dumped" : "",
		    w->draining ? "" : " (unexpected)", what,
		    w->overdue ? ", past its time limit" : "");
	} else
		front_log(prio, "worker %ld: wait status %#x%s",
		    (long)w->pid, (unsigned int)st, what);
}

/*
 * Reap every dead worker.  A worker that was not draining is replaced
 * (by the main loop).  If it died within QUICK_DEATH_MS of starting
 * without having taken a single connection, the next start waits a
 * back-off delay that doubles up to BACKOFF_MAX_MS, so that a worker
 * that cannot start cannot turn the supervisor into a fork bomb.  A
 * worker that took a connection died of what it was asked: its
 * replacement starts at once, or any client could slow every start
 * down by calling a crashing tool.
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
		if (w == NULL) {
			front_otlp_reaped(pid);	/* the span exporter? */
			continue;
		}
		if (w->hub) {
			/* Its streams are gone: so are their slots. */
			front_listen_hub_died(p->lim);
			if (!w->draining)
				front_log(WYMCP_LOG_WARNING, "the hub (%ld) "
				    "died: its listen streams ended; "
				    "replacing it", (long)w->pid);
		}
		if (w->draining)
			log_death(w, st, WYMCP_LOG_INFO);
		else {
			log_death(w, st, WYMCP_LOG_WARNING);
			if (w->board != NULL && w->board->accepted > 0)
				p->backoff = 0;
			else if (now - w->started < QUICK_DEATH_MS) {
				p->backoff = p->backoff == 0 ?
				    BACKOFF_MIN_MS :
				    p->backoff * 2 > BACKOFF_MAX_MS ?
				    BACKOFF_MAX_MS : p->backoff * 2;
				p->respawn_at = now + p->backoff;
				front_log(WYMCP_LOG_WARNING, "worker died "
				    "%lld ms after starting, before taking "
				    "any connection; next start in %d ms",
				    now - w->started, p->backoff);
			} else
				p->backoff = 0;
		}
		if (w->board != NULL) {
			front_relay_dead(p->lim, w->board, w->pid);
			front_listen_dead(p->lim, w->board);
			(void)munmap(w->board, sizeof(*w->board));
		}
		w->board = NULL;
		w->pid = -1;
	}
	if (pid == -1 && errno != ECHILD)
		front_log(WYMCP_LOG_ERR, "waitpid: %s", strerror(errno));
}

/*
 * The backstop of the time limit: a worker whose request is
 * FRONT_GRACE_MS + FRONT_BACKSTOP_MS past its deadline should have
 * stopped itself (watch.c); a tool that took SIGALRM for itself, or
 * blocked it, did not let it.  SIGKILL it.
 */
static void
overdue_tick(struct pool *p, long long now)
{
	struct worker	*w;
	long long	 d;
	size_t		 i;

	for (i = 0; i < p->nw; i++) {
		w = &p->w[i];
		if (w->pid == -1 || w->killed || w->board == NULL ||
		    !__atomic_load_n(&w->board->busy, __ATOMIC_ACQUIRE))
			continue;
		d = __atomic_load_n(&w->board->deadline, __ATOMIC_RELAXED);
		if (d <= 0 || now < d + FRONT_GRACE_MS + FRONT_BACKSTOP_MS)
			continue;
		front_log(WYMCP_LOG_WARNING, "worker %ld is still busy %lld ms "
		    "past its request's time limit and did not stop itself; "
		    "killing it", (long)w->pid, now - d);
		(void)kill(w->pid, SIGKILL);
		w->killed = 1;
		w->overdue = 1;
	}
}

/*
 * Drive the draining workers' timers: re-send SIGTERM every RESEND_MS
 * (a worker may have been between two requests' worth of work when the
 * first one came), SIGKILL after --drain-timeout.  Returns the ms
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
		if (now - w->stopsince >= p->drain_ms) {
			front_log(WYMCP_LOG_WARNING, "worker %ld still busy "
			    "after %lld s; killing it", (long)w->pid,
			    p->drain_ms / 1000);
			(void)kill(w->pid, SIGKILL);
			w->killed = 1;
			continue;
		}
		if (now - w->lastterm >= RESEND_MS) {
			(void)kill(w->pid, SIGTERM);
			w->lastterm = now;
		}
		t = w->lastterm + RESEND_MS - now;
		if (w->stopsince + p->drain_ms - now < t)
			t = w->stopsince + p->drain_ms - now;
		if (next == -1 || t < next)
			next = t;
	}
	return next;
}

/*
 * SIGHUP's reload, the way nginx -s reload and php-fpm do it: make the
 * server again from the options (the modules loaded anew: a module
 * directory is read again, a file replaced is the new one), first in a
 * child that only tries (so that a module that fails to load leaves
 * the running set alone), then here; tell the listeners which lists
 * changed (a catalogue's digests, before and after: nothing when
 * nothing changed), and let the caller replace the workers.  Returns 1
 * when the workers are to be replaced, 0 when the reload was refused
 * (logged).
 */
static int
reload_server(struct pool *p)
{
	struct wymcp_catalogue	*before, *after;
	struct wymcp_server	*srv;
	char			 err[512], *ev;
	ssize_t			 n;
	pid_t			 pid;
	int			 fds[2], st;

	if (p->reload == NULL)
		return 1;
	if (pipe2(fds, O_CLOEXEC) == -1 || (pid = fork()) == -1) {
		front_log(WYMCP_LOG_ERR, "SIGHUP: cannot try the reload: %s",
		    strerror(errno));
		return 0;
	}
	if (pid == 0) {
		/*
		 * The trial: unload what the supervisor had (a file
		 * replaced at the same path is then read anew), load.
		 */
		(void)close(fds[0]);
		wymcp_server_free(p->srv);
		if ((srv = p->reload(err, sizeof(err))) != NULL) {
			/* Freed, so that memcheck sees no leak here. */
			wymcp_server_free(srv);
			_exit(0);
		}
		if (write(fds[1], err, strlen(err)) < 0) {
			/* The parent has the exit status alone. */
		}
		_exit(1);
	}
	(void)close(fds[1]);
	n = read(fds[0], err, sizeof(err) - 1);
	err[n > 0 ? n : 0] = '\0';
	(void)close(fds[0]);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		continue;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		front_log(WYMCP_LOG_ERR, "SIGHUP: reload refused, the workers "
		    "keep the modules they have: %s", err[0] != '\0' ? err :
		    "the trial died");
		return 0;
	}
	before = wymcp_server_catalogue(p->srv);
	wymcp_server_free(p->srv);
	if ((p->srv = p->reload(err, sizeof(err))) == NULL) {
		/* What the trial loaded changed since: nothing to serve. */
		front_log(WYMCP_LOG_ERR, "SIGHUP: the modules changed during "
		    "the reload and no longer load (%s): stopping", err);
		wymcp_catalogue_free(before);
		got_term = 1;
		return 0;
	}
	after = wymcp_server_catalogue(p->srv);
	ev = before != NULL && after != NULL ?
	    wymcp_catalogue_changes(before, after) : NULL;
	if (ev != NULL) {
		front_log(WYMCP_LOG_INFO, "SIGHUP: reloaded; changed: %s", ev);
		if (p->lim->listen != NULL)
			front_publish(p->lim->listen, ev, strlen(ev));
	} else
		front_log(WYMCP_LOG_INFO, "SIGHUP: reloaded; no list changed");
	free(ev);
	wymcp_catalogue_free(before);
	wymcp_catalogue_free(after);
	return 1;
}

/*
 * The signals the supervisor handles (SIGUSR1: the audit log was
 * rotated, audit.c).
 */
#define NSIGS	5
static const int	 sigs[NSIGS] = { SIGCHLD, SIGTERM, SIGINT, SIGHUP,
			    SIGUSR1 };

/*
 * Block the supervisor's signals (the mask before in *origmask), set
 * their handlers (the old ones in `osa'), and make the mask to wait
 * in (*waitmask: them unblocked) and a new worker's (them blocked but
 * SIGCHLD).
 */
static void
signals_setup(struct pool *p, sigset_t *origmask, sigset_t *waitmask,
    struct sigaction osa[NSIGS])
{
	struct sigaction	 sa;
	sigset_t		 set;
	size_t			 i;

	sigemptyset(&set);
	for (i = 0; i < NSIGS; i++)
		sigaddset(&set, sigs[i]);
	if (sigprocmask(SIG_BLOCK, &set, origmask) == -1)
		err(1, "sigprocmask");
	*waitmask = *origmask;
	p->workermask = *origmask;
	for (i = 0; i < NSIGS; i++)
		sigdelset(waitmask, sigs[i]);
	sigdelset(&p->workermask, SIGCHLD);
	sigaddset(&p->workermask, SIGTERM);
	sigaddset(&p->workermask, SIGINT);
	sigaddset(&p->workermask, SIGHUP);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = onsig;
	sa.sa_mask = set;
	for (i = 0; i < NSIGS; i++) {
		sa.sa_flags = sigs[i] == SIGCHLD ? SA_NOCLDSTOP : 0;
		if (sigaction(sigs[i], &sa, &osa[i]) == -1)
			err(1, "sigaction");
	}
}

/* SIGTERM or SIGINT: every worker told to drain. */
static void
stop_all(struct pool *p, long long now, int owned)
{
	size_t	 i;

	front_log(WYMCP_LOG_INFO, "stopping: draining %zu worker%s",
	    count(p, NULL), count(p, NULL) == 1 ? "" : "s");
	for (i = 0; i < p->nw; i++)
		if (p->w[i].pid != -1 && !p->w[i].draining)
			retire(&p->w[i], now);
	/*
	 * A socket we made (--listen) stops taking new connections now,
	 * so the web server sees a refused connect and tries another host
	 * instead of queueing requests that would be reset when we exit.
	 * A socket handed to us (systemd, spawn-fcgi) outlives us: its
	 * owner keeps queueing for the next process.
	 */
	if (owned && shutdown(p->listenfd, SHUT_RD) == -1)
		front_log(WYMCP_LOG_INFO, "shutdown: %s", strerror(errno));
}

/*
 * SIGHUP once the server is reloaded: a fresh set of workers and
 * runners, then the old ones told to drain.  The hub keeps its
 * streams.
 */
static void
replace_all(struct pool *p, long long now)
{
	size_t	 i;

	front_log(WYMCP_LOG_INFO, "SIGHUP: replacing the workers");
	for (i = 0; i < p->nw; i++)
		if (p->w[i].pid != -1 && !p->w[i].draining && !p->w[i].hub)
			p->w[i].replace = 1;
	p->backoff = 0;
	p->respawn_at = 0;
	for (i = 0; i < (size_t)(p->want + p->want_runners); i++)
		if (spawn(p, now, i >= (size_t)p->want ? KIND_RUNNER :
		    KIND_WORKER) == -1)
			break;
	for (i = 0; i < p->nw; i++)
		if (p->w[i].pid != -1 && p->w[i].replace)
			retire(&p->w[i], now);
}

/*
 * The ticks of a turn of the loop: in how many ms to look again (-1:
 * at the next signal only).
 */
static long long
tick(struct pool *p, long long now, int stopping)
{
	long long	 next, grow;
	size_t		 cur, run;

	overdue_tick(p, now);
	stats_tick(p);
	next = drain_tick(p, now);
	if (!stopping && (grow = pool_tick(p, now)) >= 0 &&
	    (next == -1 || grow < next))
		next = grow;
	/* The boards change without a signal: look again soon. */
	if (count2(p, &cur, &run) > 0 && (next == -1 || next > TICK_MS))
		next = TICK_MS;
	if (!stopping &&
	    (cur < (size_t)p->want || run < (size_t)p->want_runners ||
	    (p->want_hub && !hub_running(p))) &&
	    (next == -1 || p->respawn_at - now < next))
		next = p->respawn_at - now;
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
front_prefork(struct wymcp_server **srvp, int listenfd, int owned,
    int workers, int runners, const struct front_limits *lim,
    front_reload_fn reload)
{
	struct pool		 p;
	struct sigaction	 osa[NSIGS];
	struct timespec		 ts;
	sigset_t		 origmask, waitmask;
	long long		 now, next;
	size_t			 i, cur;
	int			 stopping = 0;

	memset(&p, 0, sizeof(p));
	p.srv = *srvp;
	p.reload = reload;
	p.listenfd = listenfd;
	p.want = workers;
	p.want_runners = runners;
	/* Without listen streams, a hub keeps the relay's directory. */
	p.want_hub = lim->listen != NULL || lim->relay != NULL;
	p.max = lim->max_workers > workers ? lim->max_workers : workers;
	p.idle_ms = (long long)lim->idle * 1000;
	p.lim = lim;
	p.drain_ms = (long long)lim->drain * 1000;
	p.self = getpid();
	signals_setup(&p, &origmask, &waitmask, osa);
	front_log(WYMCP_LOG_INFO, "supervisor %ld starting %d worker%s",
	    (long)p.self, workers, workers == 1 ? "" : "s");

	for (;;) {
		got_chld = 0;
		now = now_ms();
		if (got_term && !stopping) {
			stopping = 1;
			stop_all(&p, now, owned);
		}
		if (got_usr1) {
			got_usr1 = 0;
			front_audit_reopen();
		}
		if (got_hup) {
			got_hup = 0;
			if (!stopping && reload_server(&p))
				replace_all(&p, now);
		}
		reap(&p, now);
		if (count(&p, &cur) == 0 && stopping)
			break;
		if (!stopping)
			spawn_missing(&p, now);
		if ((next = tick(&p, now, stopping)) >= 0) {
			ts.tv_sec = next / 1000;
			ts.tv_nsec = (long)(next % 1000) * 1000000L;
		}
		(void)ppoll(NULL, 0, next >= 0 ? &ts : NULL, &waitmask);
	}

	front_log(WYMCP_LOG_INFO, "all workers stopped");
	*srvp = p.srv;
	for (i = 0; i < NSIGS; i++)
		(void)sigaction(sigs[i], &osa[i], NULL);
	(void)sigprocmask(SIG_SETMASK, &origmask, NULL);
	free(p.w);
	return 0;
}
