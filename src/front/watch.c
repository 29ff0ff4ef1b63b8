/*
 * watch.c - a worker's watch over the request it serves: the time limit
 *
 * The library keeps each request's deadline and stops a tool that looks
 * (wymcp_cancelled(), wymcp_progress(), wymcp_log()) or returns late;
 * it reports the deadline, the method and the tool through the request
 * hook (wymcp_server_set_request_fn()).  This file follows that hook:
 * it copies what the request is into the worker's board (the page the
 * supervisor reads, front.h) and keeps a timer armed at the deadline
 * plus FRONT_GRACE_MS.  A tool that never looks is still running when
 * the timer fires: the handler writes one log line naming the request
 * with write(2) (async-signal-safe, as nothing else here is) and ends
 * the worker with _exit(2); the supervisor starts another, and the web
 * server answers the client 502.
 *
 * The timer fires twice for a tool that does not return: at the
 * deadline it writes the warning the library writes for one that
 * returns late or looks, "still running at its time limit (MS ms): the
 * request is cancelled" (once: whichever says it first, the timer or
 * the library, claims it in log.c, which drops the other), and
 * FRONT_GRACE_MS later it ends the worker.
 *
 * The timer is a POSIX timer on CLOCK_MONOTONIC signalling SIGALRM with
 * SI_TIMER, so an alarm(2) a tool sets for itself does not end the
 * worker, and one that takes SIGALRM or blocks it is killed by the
 * supervisor instead (prefork.c, FRONT_BACKSTOP_MS).
 *
 * The timer is armed lazily, so that a worker under load makes no
 * system call for it per request.  It may fire early: it is armed for
 * the first request's limit and left to run, since each request after
 * ends later.  When it fires before the request in flight is due, the
 * handler arms it again for that request's due time (timer_settime(2)
 * is async-signal-safe); when no request is in flight it is left
 * unarmed, and the next request arms it.  Only a limit earlier than
 * what is armed (a location's lower one) arms it at once.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "front.h"

static struct front_board	 own;		/* without a supervisor */
static struct front_board	*board = &own;	/* where we publish */
static timer_t			 timer;
static int			 have_timer;
static unsigned int		 limit_s;	/* --request-timeout */
static long long		 due;		/* when it fires (ms), or 0 */
static int			 nomem;		/* the library said so */
static long long		 limit_ms;	/* the request's limit */
static int			 have_limit;	/* ... as the library set
						   it */

long long
front_now_ms(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		return 0;
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Append `s' (at most `max' bytes of it, control characters as '?') to
 * the line `buf' of `len' bytes so far; the new length.  For the signal
 * handler: no library call.
 */
static size_t
put(char *buf, size_t len, size_t cap, const char *s, size_t max)
{
	size_t	 i;

	for (i = 0; i < max && s[i] != '\0' && len < cap; i++)
		buf[len++] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ?
		    '?' : s[i];
	return len;
}

/* Append the decimal `v'; for the signal handler. */
static size_t
putnum(char *buf, size_t len, size_t cap, long long v)
{
	char	 d[24];
	size_t	 n = 0;

	if (v < 0) {
		len = put(buf, len, cap, "-", 1);
		v = -v;
	}
	do {
		d[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0 && n < sizeof(d));
	while (n > 0 && len < cap)
		buf[len++] = d[--n];
	return len;
}

/*
 * Arm the timer to fire at `t' (ms, CLOCK_MONOTONIC, > 0).  0, or -1
 * with errno.  Async-signal-safe.
 */
static int
arm(long long t)
{
	struct itimerspec	 its;

	__atomic_store_n(&due, t, __ATOMIC_RELAXED);
	if (!have_timer)
		return 0;
	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = (time_t)(t / 1000);
	its.it_value.tv_nsec = (long)(t % 1000) * 1000000L;
	return timer_settime(timer, TIMER_ABSTIME, &its, NULL);
}

/*
 * The request in flight is due at `deadline' (0: it has none), for the
 * warning, and stopped FRONT_GRACE_MS after: make sure the timer fires
 * by then.
 */
static void
follow(long long deadline)
{
	long long	 d;

	if (deadline <= 0)
		return;
	d = __atomic_load_n(&due, __ATOMIC_RELAXED);
	if ((d == 0 || d > deadline) && arm(deadline) == -1)
		front_log(WYMCP_LOG_ERR, "timer_settime: %s", strerror(errno));
}

/*
 * Append "[id ID] METHOD NAME" of the request in flight (or "a request
 * being read") to `line'; for the signal handler.
 */
static size_t
put_request(char *line, size_t n, size_t cap)
{
	if (board->reqid[0] != '\0') {
		n = put(line, n, cap, "[id ", 4);
		n = put(line, n, cap, board->reqid, sizeof(board->reqid));
		n = put(line, n, cap, "] ", 2);
	}
	if (board->method[0] != '\0') {
		n = put(line, n, cap, board->method, sizeof(board->method));
		if (board->name[0] != '\0') {
			n = put(line, n, cap, " ", 1);
			n = put(line, n, cap, board->name,
			    sizeof(board->name));
		}
	} else
		n = put(line, n, cap, "a request being read", 32);
	return n;
}

/*
 * At the deadline, a tool still running: the library's warning, which
 * it would write had the tool looked or returned.  For the handler.
 */
static void
warn_at_limit(void)
{
	char		 line[512];
	size_t		 n = 0, cap = sizeof(line) - 1;
	ssize_t		 w;

	if (front_logmax < WYMCP_LOG_WARNING || !front_log_claim_timelimit())
		return;
	n = put(line, n, cap, FRONT_NAME "[", 64);
	n = putnum(line, n, cap, (long long)getpid());
	n = put(line, n, cap, "]: warning: ", 16);
	n = put_request(line, n, cap);
	n = put(line, n, cap, ": still running at its time limit (", 40);
	n = putnum(line, n, cap, __atomic_load_n(&limit_ms,
	    __ATOMIC_RELAXED));
	n = put(line, n, cap, " ms): the request is cancelled", 40);
	line[n++] = '\n';
	w = write(STDERR_FILENO, line, n);
	(void)w;
}

/*
 * The timer fired.  Early (for a request before this one), or with
 * no request in flight: arm it for the one in flight, or leave it.
 * Else the request is FRONT_GRACE_MS past its deadline and its tool
 * has not stopped: log it and end the worker.  Only async-signal-safe
 * calls: clock_gettime(2), timer_settime(2), getpid(2), write(2),
 * _exit(2).  The board's strings may be in the middle of a copy;
 * every read is bounded.
 */
static void
on_timer(int sig, siginfo_t *si, void *uc)
{
	char		 line[512];
	size_t		 n = 0, cap = sizeof(line) - 1;
	ssize_t		 w;
	long long	 deadline;
	int		 saved = errno;

	(void)sig;
	(void)uc;
	if (si == NULL || si->si_code != SI_TIMER)
		return;			/* someone's alarm(2), kill(2) */
	__atomic_store_n(&due, 0, __ATOMIC_RELAXED);
	if (!__atomic_load_n(&board->busy, __ATOMIC_ACQUIRE))
		return;			/* none in flight */
	deadline = __atomic_load_n(&board->deadline, __ATOMIC_RELAXED);
	if (deadline <= 0)
		return;			/* it has no limit */
	if (front_now_ms() < deadline) {
		(void)arm(deadline);
		errno = saved;		/* the code it interrupted */
		return;
	}
	if (front_now_ms() < deadline + FRONT_GRACE_MS) {
		warn_at_limit();
		(void)arm(deadline + FRONT_GRACE_MS);
		errno = saved;
		return;
	}
	board->why = FRONT_WHY_TIMEOUT;
	n = put(line, n, cap, FRONT_NAME "[", 64);
	n = putnum(line, n, cap, (long long)getpid());
	n = put(line, n, cap, "]: error: ", 16);
	n = put_request(line, n, cap);
	n = put(line, n, cap, ": still running ", 32);
	n = putnum(line, n, cap, FRONT_GRACE_MS / 1000);
	n = put(line, n, cap, " s after its time limit", 32);
	if (limit_s > 0) {
		n = put(line, n, cap, " (--request-timeout ", 32);
		n = putnum(line, n, cap, limit_s);
		n = put(line, n, cap, ", or lower by WYMCP_REQUEST_TIMEOUT)",
		    64);
	}
	n = put(line, n, cap, ": stopping this worker", 32);
	line[n++] = '\n';
	w = write(STDERR_FILENO, line, n);
	(void)w;
	_exit(FRONT_EXIT_TIMEOUT);
}

/* Copy `s' (or "") into a board string of `len' bytes. */
static void
copy(char *dst, size_t len, const char *s)
{
	size_t	 n = s != NULL ? strlen(s) : 0;

	if (n >= len)
		n = len - 1;
	if (n > 0)
		memcpy(dst, s, n);
	dst[n] = '\0';
}

/*
 * The library's request hook: publish what the request is, and follow
 * its deadline with the timer.
 */
static void
on_request(void *arg, const struct wymcp_request_info *ri)
{
	(void)arg;
	copy(board->method, sizeof(board->method), ri->method);
	copy(board->name, sizeof(board->name), ri->name);
	copy(board->reqid, sizeof(board->reqid), ri->reqid);
	/*
	 * The library's limit, for the warning: its first deadline of the
	 * request is its clock plus the limit, published at once.
	 */
	if (!ri->done && ri->deadline_ms > 0 && !have_limit) {
		have_limit = 1;
		__atomic_store_n(&limit_ms, (ri->deadline_ms - front_now_ms() +
		    50) / 100 * 100, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&board->deadline, ri->deadline_ms, __ATOMIC_RELAXED);
	/*
	 * A later deadline (the library's falls a few ms after what
	 * front_watch_begin() set) the handler follows when the timer
	 * fires; an earlier one, or the first, is armed now.
	 */
	if (!ri->done)
		follow(ri->deadline_ms);
	if (ri->nomem)
		nomem = 1;
	if (ri->done && ri->detail != NULL)
		front_audit_request(ri);
}

int
front_watch_init(struct wymcp_server *srv, struct front_board *b,
    unsigned int timeout)
{
	struct sigaction	 sa;
	struct sigevent		 sev;
	sigset_t		 set;

	board = b != NULL ? b : &own;
	limit_s = timeout;
	wymcp_server_set_request_fn(srv, on_request, NULL);

	/*
	 * SA_RESTART: libfcgi does not retry a read(2) or write(2) that a
	 * signal interrupted, and a SIGALRM the handler ignores must not
	 * break the request.
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_timer;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) == -1) {
		front_log(WYMCP_LOG_ERR, "sigaction: %s", strerror(errno));
		return -1;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	(void)sigprocmask(SIG_UNBLOCK, &set, NULL);

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_SIGNAL;
	sev.sigev_signo = SIGALRM;
	if (timer_create(CLOCK_MONOTONIC, &sev, &timer) == -1) {
		front_log(WYMCP_LOG_ERR, "timer_create: %s: no request "
		    "time limit in this worker", strerror(errno));
		return -1;
	}
	have_timer = 1;
	return 0;
}

/*
 * A connection is taken: until the library reports the deadline of its
 * request, the --request-timeout limit covers reading it.
 */
void
front_watch_begin(void)
{
	long long	 at = 0;

	board->method[0] = board->name[0] = board->reqid[0] = '\0';
	if (limit_s > 0)
		at = front_now_ms() + (long long)limit_s * 1000;
	__atomic_store_n(&limit_ms, (long long)limit_s * 1000,
	    __ATOMIC_RELAXED);
	have_limit = 0;
	front_log_reset_timelimit();
	/*
	 * The deadline and busy first: should the timer fire from here
	 * on, the handler sees this request and arms for it, and
	 * follow() then finds it armed.
	 */
	__atomic_store_n(&board->deadline, at, __ATOMIC_RELAXED);
	__atomic_store_n(&board->busy, 1, __ATOMIC_RELEASE);
	follow(at);
}

/*
 * The request is over (or there was none), and say whether the library
 * reported memory running out in it.  The timer stays armed (a system
 * call less per request): should it fire before the next request, the
 * handler sees none in flight and leaves it unarmed.
 */
int
front_watch_end(void)
{
	int	 r = nomem;

	__atomic_store_n(&board->busy, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&board->deadline, 0, __ATOMIC_RELAXED);
	nomem = 0;
	return r;
}

/*
 * The stop signals: SIGTERM, SIGINT, SIGHUP, and SIGUSR1, the graceful
 * stop of some FastCGI process managers.
 */
const int	 front_stopsigs[FRONT_NSTOPSIGS] = { SIGTERM, SIGINT, SIGHUP,
		    SIGUSR1 };

/*
 * Block the stop signals and catch them with `fn' (no SA_RESTART: a
 * wait must return), into *waitmask the mask that lets them in during
 * a wait.  0, or -1 (logged).
 */
int
front_catch_stop(void (*fn)(int), sigset_t *waitmask)
{
	struct sigaction	 sa;
	sigset_t		 stopset;
	size_t			 i;

	sigemptyset(&stopset);
	for (i = 0; i < FRONT_NSTOPSIGS; i++)
		sigaddset(&stopset, front_stopsigs[i]);
	if (sigprocmask(SIG_BLOCK, &stopset, waitmask) == -1) {
		front_log(WYMCP_LOG_ERR, "sigprocmask: %s", strerror(errno));
		return -1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_mask = stopset;
	for (i = 0; i < FRONT_NSTOPSIGS; i++) {
		sigdelset(waitmask, front_stopsigs[i]);
		if (sigaction(front_stopsigs[i], &sa, NULL) == -1) {
			front_log(WYMCP_LOG_ERR, "sigaction: %s",
			    strerror(errno));
			return -1;
		}
	}
	return 0;
}
