/* fcgi.c - the libfcgi glue: a worker's accept loop, and plain CGI */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <fcgiapp.h>

#include "front.h"

#define ACCEPT_BACKOFF_MIN_MS	100	/* first pause after a failed accept */
#define ACCEPT_BACKOFF_MAX_MS	5000	/* longest pause */
#define FIRST_DATA_MS		2000	/* a new connection must speak */
#define STREAK_MAX		64	/* requests between two sigpending */

extern char	**environ;

/*
 * The HTTP status of the response being written (from its CGI head),
 * for the status page's counts: one request at a time per worker.
 */
static int	 resp_status;

/*
 * Set by the stop signals (SIGTERM, SIGINT, SIGHUP, SIGUSR1) to the
 * signal's number.  The handler runs only while the worker waits in
 * ppoll(2), and stop_pending() sets it too; see front_worker().
 */
static volatile sig_atomic_t	 stopsig;

/* The monotonic clock in milliseconds. */
static long long
mono_ms(void)
{
	struct timespec	 ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Stop-signal handler: remember the signal, nothing else.
 */
static void
onstop(int sig)
{
	stopsig = sig;
}

/*
 * wymcp_io read over the request's FastCGI stdin stream: bytes read,
 * 0 at the end of the body, -1 when the stream failed.
 */
static long
fcgi_read(void *arg, char *buf, size_t len)
{
	FCGX_Request	*req = arg;
	int		 n;

	if (len > INT_MAX)
		len = INT_MAX;
	n = FCGX_GetStr(buf, (int)len, req->in);
	if (n <= 0 && FCGX_GetError(req->in) != 0)
		return -1;
	return n < 0 ? -1 : n;
}

/*
 * wymcp_io write over the request's FastCGI stdout stream: 0, or -1
 * when the web server has gone away.
 */
static int
fcgi_write(void *arg, const char *buf, size_t len)
{
	FCGX_Request	*req = arg;
	int		 n;

	if (resp_status == 0 && len > 11 && strncmp(buf, "Status: ", 8) == 0)
		resp_status = atoi(buf + 8);
	front_audit_out(len);
	while (len > 0) {
		n = len > INT_MAX ? INT_MAX : (int)len;
		if (FCGX_PutStr(buf, n, req->out) != n)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * wymcp_io flush: push buffered output to the web server now (used
 * when streaming events).  0, or -1 on error.
 */
static int
fcgi_flush(void *arg)
{
	FCGX_Request	*req = arg;

	return FCGX_FFlush(req->out) == -1 ? -1 : 0;
}

/*
 * wymcp_io gone: has the web server closed the connection?  nginx does
 * when its client goes away (unless fastcgi_ignore_client_abort is on).
 * A hang-up is POLLRDHUP or POLLHUP, or readable with nothing to read;
 * data still queued (the end of the body) is not one.  Never blocks.
 */
static int
fcgi_gone(void *arg)
{
	FCGX_Request	*req = arg;
	struct pollfd	 pfd;
	char		 c;

	if (req->ipcFd < 0)
		return 1;
	pfd.fd = req->ipcFd;
	pfd.events = POLLIN | POLLRDHUP;
	pfd.revents = 0;
	if (poll(&pfd, 1, 0) != 1)
		return 0;
	if (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))
		return 1;
	return (pfd.revents & POLLIN) &&
	    recv(req->ipcFd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

/* The wymcp_io ask_* members: relay.c, with the FastCGI connection. */
static const char *
fcgi_ask_hold(void *arg)
{
	(void)arg;
	return front_relay_hold(NULL);
}

static const char *
fcgi_ask_hold_as(void *arg, const char *who)
{
	(void)arg;
	return front_relay_hold(who != NULL ? who : "");
}

static void
fcgi_ask_release(void *arg)
{
	(void)arg;
	front_relay_release();
}

static int
fcgi_ask_wait(void *arg, int ms, int (*take)(void *, const char *, size_t),
    void *takearg)
{
	FCGX_Request	*req = arg;

	return front_relay_wait(req->ipcFd, ms, take, takearg);
}

static int
fcgi_ask_forward(void *arg, const char *addr, const char *msg, size_t len)
{
	(void)arg;
	return front_relay_forward(addr, msg, len);
}

/* The wymcp_io listen_* members: hub.c, with the request in flight. */
static const struct front_limits *cur_lim;

static int
fcgi_listen_hold(void *arg, const struct wymcp_listen *l)
{
	return front_listen_hold(cur_lim, arg, l);
}

static int
fcgi_listen_hand(void *arg, const struct wymcp_listen *l)
{
	return front_listen_hand(cur_lim, arg, l);
}

/*
 * Sleep for `ms' milliseconds with the signal mask `mask', so that a
 * stop signal ends the pause early.
 */
static void
pause_ms(int ms, const sigset_t *mask)
{
	struct timespec	 ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	(void)ppoll(NULL, 0, &ts, mask);
}

/*
 * Take a connection from `listenfd' (non-blocking) and check its peer
 * against --allow-peer before anything is read from it.  The new
 * descriptor (blocking, close-on-exec), or -1: none was ready, the peer
 * is refused (closed, logged at most once a second), it sent nothing
 * within FIRST_DATA_MS, or accept(2) failed (after a pause that grows
 * with each failure in a row, so that running out of descriptors does
 * not spin).
 */
static int
take(int listenfd, const struct front_limits *lim, int *backoff,
    const sigset_t *waitmask)
{
	static struct prog_refusals refusals;
	struct sockaddr_storage	 ss;
	struct pollfd		 pfd;
	socklen_t		 len = sizeof(ss);
	char			 line[160];
	long long		 until;
	int			 fd, rc, on = 1;

	if ((fd = accept4(listenfd, (struct sockaddr *)&ss, &len,
	    SOCK_CLOEXEC)) == -1) {
		/*
		 * Another worker took it, or the peer gave up; or
		 * (EINVAL) the supervisor shut the socket down, which the
		 * wait that follows sees.
		 */
		if (errno == EAGAIN || errno == EWOULDBLOCK ||
		    errno == EINTR || errno == ECONNABORTED ||
		    errno == EPROTO || errno == EINVAL)
			return -1;
		front_log(WYMCP_LOG_WARNING, "accept: %s", strerror(errno));
		*backoff = *backoff == 0 ? ACCEPT_BACKOFF_MIN_MS :
		    *backoff * 2 > ACCEPT_BACKOFF_MAX_MS ?
		    ACCEPT_BACKOFF_MAX_MS : *backoff * 2;
		pause_ms(*backoff, waitmask);
		return -1;
	}
	*backoff = 0;
	/* accept(2) gave the peer's address, as getpeername(2) would. */
	if (!prog_peer_allowed(lim->peers, lim->npeers,
	    (struct sockaddr *)&ss, len)) {
		if (prog_refused(&refusals, front_now_ms(),
		    (struct sockaddr *)&ss, len, line, sizeof(line)) != NULL)
			front_log(WYMCP_LOG_WARNING, "%s", line);
		close(fd);
		return -1;
	}
	if (ss.ss_family == AF_INET || ss.ss_family == AF_INET6)
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on,
		    sizeof(on));
	/*
	 * As libfcgi does: a connection that says nothing is dropped.  A
	 * signal (a SIGALRM watch.c ignores) does not end the wait.
	 */
	pfd.fd = fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	until = front_now_ms() + FIRST_DATA_MS;
	while ((rc = poll(&pfd, 1, (int)(until - front_now_ms() > 0 ?
	    until - front_now_ms() : 0))) == -1 && errno == EINTR)
		continue;
	if (rc != 1 || !(pfd.revents & POLLIN)) {
		front_log(WYMCP_LOG_DEBUG, "a connection sent nothing for "
		    "%d ms: closed", FIRST_DATA_MS);
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * End the request as FCGX_Finish_r() does (stderr's end, then stdout's
 * with the end record: the rest of the response and both records go
 * out in one write(2)), and say whether stdout failed: 0, or -1 when
 * the web server went away before it had the whole response.
 *
 * A connection the web server did not ask to keep is closed then.
 * libfcgi's close lingers: shutdown(2) of the sending side, then poll(2)
 * and read(2) until the web server closes its end, three system calls,
 * so that data arriving after close(2) cannot make TCP reset the
 * connection and lose the response.  On a unix-domain socket nothing
 * queued for the web server is ever lost: it reads the response to its
 * end whatever follows.  What lingering still does there is let the web
 * server finish sending a body that was not read (a 413): closing on it
 * would break its write.  So once the request's stdin is at its end
 * (the library reads CONTENT_LENGTH bytes; the record that ends stdin
 * follows them, most often in the same read, and is taken here) such a
 * connection is closed at once: FCGX_Detach() makes libfcgi close it
 * without lingering.  A TCP connection, or one with stdin left unread,
 * lingers as before.  Should the end record not be there yet, it is
 * awaited under the request's time limit; without one
 * (--request-timeout 0) nothing would bound that wait, so the record
 * is taken only when libfcgi has seen it already, and the connection
 * lingers otherwise.  (lim->local: every connection of a unix listening
 * socket is a unix one.)
 */
static int
finish(FCGX_Request *req, const struct front_limits *lim)
{
	int	 rc = 0;

	if (req->in != NULL) {
		(void)FCGX_FClose(req->err);
		if (FCGX_FClose(req->out) != 0)
			rc = -1;
		if (lim->local && rc == 0 && !req->keepConnection &&
		    FCGX_GetError(req->in) == 0 &&
		    (FCGX_HasSeenEOF(req->in) == EOF ||
		    (lim->timeout > 0 && FCGX_GetChar(req->in) == EOF)) &&
		    FCGX_GetError(req->in) == 0)
			(void)FCGX_Detach(req);
	}
	FCGX_Finish_r(req);	/* the streams are closed: frees, or keeps */
	return rc;
}

/*
 * Should the worker retire once this request is over?  Writes the
 * reason into `buf' and returns it, or returns NULL.  The reasons:
 * --max-requests requests served (main.c: FRONT_MAX_REQUESTS_DEFAULT
 * under a supervisor, none without unless given); and, under a
 * supervisor only (without one nothing would replace the process):
 * memory the library reported running out; descriptors leaked, that is
 * the lowest free descriptor above the connection's more than
 * FRONT_FD_SLACK above where it was at start (open(2) takes the lowest,
 * so leaked ones pile up there, while the connection's, taken first,
 * is closed again); a peak resident size past three quarters of the
 * memory limit (--memory-limit, or an RLIMIT_AS set from outside;
 * without one, FRONT_GROWTH_DEFAULT), looked at every
 * FRONT_GROWTH_EVERY requests.
 */
static const char *
retire_reason(const struct front_limits *lim, const struct front_board *b,
    int supervised, int fdbase, int nomem, char *buf, size_t len)
{
	struct rusage	 ru;
	unsigned long	 peak, max;
	int		 fd;

	if (lim->max_requests > 0 && b->served >= lim->max_requests) {
		snprintf(buf, len, "served %lu requests (--max-requests)",
		    b->served);
		return buf;
	}
	if (!supervised)
		return NULL;
	if (nomem) {
		snprintf(buf, len, "memory ran out in a request");
		return buf;
	}
	/*
	 * From fdbase + 2: the connection's own left a hole at fdbase.
	 * The lowest free one is past the slack only if the last one of
	 * the slack is open: one fcntl(2) a request, and the search of
	 * the lowest free one (two more calls) only then.
	 */
	if (fcntl(fdbase + 2 + FRONT_FD_SLACK, F_GETFD) != -1 &&
	    (fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, fdbase + 2)) != -1) {
		close(fd);
		if (fd > fdbase + 2 + FRONT_FD_SLACK) {
			snprintf(buf, len, "descriptors leaked: the lowest "
			    "free one above %d is %d", fdbase + 1, fd);
			return buf;
		}
	}
	/* Growth is slow: look every FRONT_GROWTH_EVERY requests. */
	max = lim->memory > 0 ? lim->memory / 4 * 3 : FRONT_GROWTH_DEFAULT;
	if (b->served % FRONT_GROWTH_EVERY == 0 &&
	    getrusage(RUSAGE_SELF, &ru) == 0 && ru.ru_maxrss > 0 &&
	    (peak = (unsigned long)ru.ru_maxrss * 1024) >= max) {
		snprintf(buf, len, "memory grew: peak resident size %lu MiB, "
		    "limit %lu MiB", peak >> 20, max >> 20);
		return buf;
	}
	return NULL;
}

/*
 * Hand the connection `fd' (from take()) to libfcgi as a kept one:
 * FCGX_Accept_r() reads its request instead of accepting (see
 * front_worker()).
 */
static void
adopt(FCGX_Request *req, int fd, struct front_board *board)
{
	req->ipcFd = fd;
	req->keepConnection = 1;
	board->accepted++;
}

/*
 * Wait in ppoll(2), the stop signals let in, for the next request: on
 * the connection the web server kept open after the last one
 * (FCGI_KEEP_CONN; libfcgi 2.4 keeps it in ipcFd), else on the
 * listening socket, and take a new connection into req->ipcFd.
 * Returns 1 with a connection to read, 0 to look again (a signal, a
 * connection another worker took or that was refused), -2 when the
 * supervisor shut the listening socket down to stop, -1 on a fatal
 * error (logged).
 */
static int
wait_next(FCGX_Request *req, int listenfd, const struct front_limits *lim,
    struct front_board *board, int *backoff, const sigset_t *waitmask)
{
	struct pollfd	 pfd[1];
	int		 fd;

	pfd[0].fd = req->ipcFd >= 0 ? req->ipcFd : listenfd;
	pfd[0].events = POLLIN | POLLRDHUP;
	pfd[0].revents = 0;
	if (ppoll(pfd, 1, NULL, waitmask) == -1) {
		if (errno == EINTR)
			return 0;
		front_log(WYMCP_LOG_ERR, "ppoll: %s", strerror(errno));
		return -1;
	}
	if (pfd[0].revents & POLLNVAL) {
		front_log(WYMCP_LOG_ERR, "descriptor %d is not open",
		    pfd[0].fd);
		return -1;
	}
	/* accept(2) would only fail from now on (prefork.c). */
	if (pfd[0].fd == listenfd &&
	    (pfd[0].revents & (POLLHUP | POLLRDHUP | POLLERR))) {
		front_log(WYMCP_LOG_DEBUG, "the listening socket was shut "
		    "down: stopping");
		return -2;
	}
	if (req->ipcFd < 0) {
		if ((fd = take(listenfd, lim, backoff, waitmask)) == -1)
			return 0;
		adopt(req, fd, board);
	}
	return 1;
}

/*
 * Read the request on the connection in req->ipcFd and serve it, with
 * the signals still blocked, up to the end record, so that the
 * response is out before the next wait.  Returns -1 when there was no
 * request for the library (the connection ended first, or it was for
 * the status page), else whether the library said memory ran out in
 * it (front_watch_end()).
 */
static int
serve_one(struct wymcp_server *srv, FCGX_Request *req,
    const struct front_limits *lim, struct front_board *board)
{
	struct wymcp_io	 io;
	enum wymcp_err	 rc;
	long long	 t0 = 0, ms;

	front_watch_begin();
	if (FCGX_Accept_r(req) < 0) {
		/*
		 * The connection closed, or spoke no FastCGI, before a
		 * request: libfcgi closed it and, with no listening
		 * socket of its own, returned.
		 */
		(void)front_watch_end();
		front_log(WYMCP_LOG_DEBUG, "a connection ended without a "
		    "request");
		return -1;
	}
	if (front_status_serve(srv, lim, req)) {
		FCGX_Finish_r(req);
		(void)front_watch_end();
		return -1;
	}
	memset(&io, 0, sizeof(io));
	resp_status = 0;
	if (lim->slow_ms > 0)
		t0 = mono_ms();
	front_audit_begin(req->envp);
	io.env = req->envp;
	io.read = fcgi_read;
	io.write = fcgi_write;
	io.flush = fcgi_flush;
	io.arg = req;
	io.gone = fcgi_gone;
	if (lim->relay != NULL) {
		io.ask_hold = fcgi_ask_hold;
		io.ask_hold_as = fcgi_ask_hold_as;
		io.ask_release = fcgi_ask_release;
		io.ask_wait = fcgi_ask_wait;
		io.ask_forward = fcgi_ask_forward;
		io.ask_timeout = lim->ask_timeout;
	}
	if (lim->listen != NULL) {
		cur_lim = lim;
		io.listen_hold = fcgi_listen_hold;
		io.listen_hand = fcgi_listen_hand;
	}
	rc = wymcp_server_serve_io(srv, &io, sizeof(io));
	front_stats_count(lim->stats, board->method, resp_status);
	if (lim->slow_ms > 0 && (ms = mono_ms() - t0) >=
	    (long long)lim->slow_ms) {
		if (lim->stats != NULL)
			__atomic_add_fetch(&lim->stats->slow, 1,
			    __ATOMIC_RELAXED);
		front_log(WYMCP_LOG_WARNING, "slow request: %.*s%s%.*s took "
		    "%lld ms", (int)sizeof(board->method),
		    board->method[0] != '\0' ? board->method : "-",
		    board->name[0] != '\0' ? " " : "",
		    (int)sizeof(board->name), board->name, ms);
	}
	if (lim->listen != NULL && front_listen_done(lim)) {
		/*
		 * The hub has the connection and ends the request: let go
		 * of it without a record (FCGX_Detach: no shutdown(2) of
		 * a socket the hub shares).
		 */
		(void)FCGX_Detach(req);
		FCGX_Free(req, 1);
	} else if (finish(req, lim) == -1 || rc != WYMCP_OK)
		front_log(WYMCP_LOG_DEBUG, "the web server went away before "
		    "the response was written");
	return front_watch_end();
}

/*
 * Is a stop signal pending (blocked, and not let in by a wait)?  Then
 * remember it as the handler would and say 1.
 */
static int
stop_pending(void)
{
	sigset_t	 set;
	size_t		 i;

	if (sigpending(&set) == -1)
		return 0;
	for (i = 0; i < FRONT_NSTOPSIGS; i++)
		if (sigismember(&set, front_stopsigs[i]) == 1) {
			stopsig = front_stopsigs[i];
			return 1;
		}
	return 0;
}

/*
 * The worker's start: libfcgi and its request `req' (kept connections
 * only: no listening socket of its own), the request timer, the relay,
 * the lowest free descriptor in *fdbase (to see descriptors leak), the
 * stop signals (their wait mask in `waitmask') and SIGPIPE ignored.
 * 0, or -1 logged.
 */
static int
worker_init(struct wymcp_server *srv, const struct front_limits *lim,
    struct front_board *board, FCGX_Request *req, sigset_t *waitmask,
    int *fdbase)
{
	struct sigaction	 sa;
	int			 rc;

	if ((rc = FCGX_Init()) != 0) {
		front_log(WYMCP_LOG_ERR, "FCGX_Init failed (%d)", rc);
		return -1;
	}
	if (FCGX_InitRequest(req, -1, 0) != 0) {
		front_log(WYMCP_LOG_ERR, "FCGX_InitRequest failed");
		return -1;
	}
	(void)front_watch_init(srv, board, lim->timeout);
	front_relay_worker(lim, board);
	front_listen_worker(board);
	*fdbase = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
	if (*fdbase != -1)
		close(*fdbase);

	/*
	 * After FCGX_Init(), which installs its own SIGPIPE and SIGUSR1
	 * handlers when those are at their defaults: ours win.  SIGUSR1
	 * is the graceful-stop signal of some FastCGI process managers.
	 */
	if (front_catch_stop(onstop, waitmask) == -1)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPIPE, &sa, NULL) == -1) {
		front_log(WYMCP_LOG_ERR, "sigaction: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Why the worker ends: retired (`retire'), or a stop signal. */
static void
worker_end(struct front_board *board, const char *retire)
{
	if (retire != NULL) {
		board->why = FRONT_WHY_RETIRED;
		snprintf(board->detail, sizeof(board->detail), "%.*s",
		    (int)sizeof(board->detail) - 1, retire);
		front_log(WYMCP_LOG_INFO, "worker retiring after %lu "
		    "request%s: %s", board->served,
		    board->served == 1 ? "" : "s", retire);
	} else if (stopsig)
		front_log(WYMCP_LOG_DEBUG, "worker stopping on signal %d",
		    (int)stopsig);
}

/*
 * The worker: accept FastCGI requests on `listenfd' and serve each
 * with wymcp_server_serve_io() until a stop signal or a reason to
 * retire (retire_reason()), then return 0 (1 on a fatal error).
 *
 * Graceful drain without races.  The stop signals stay blocked all the
 * time except inside ppoll(2), which waits for the listening socket (or
 * a connection the web server keeps open) with the signals unblocked
 * atomically.  So a stop signal is either seen by ppoll() (EINTR: the
 * flag is set and checked before anything else) or stays pending until
 * the next wait: it can never interrupt a request being read or
 * written, and it can never arrive between a check of the flag and a
 * blocking call.  FCGX_Accept_r() only runs on a connection that is
 * ready, and the listening socket is non-blocking (main.c), so a
 * worker that loses the race for a connection to another worker gets
 * EAGAIN instead of blocking in accept(2) with the signals blocked.
 * Under load a connection is nearly always waiting when a request
 * ends: so the worker tries accept(2) first and waits in ppoll() only
 * when none was, a system call less per request.  (Not with
 * --relay-listen, whose answers must not wait behind connections.)
 * ppoll() lets a pending signal in only when nothing is ready, so a
 * busy worker would not see one either way: every STREAK_MAX requests
 * it asks sigpending(2), and stops if a stop signal waits.  Unblocking
 * the signals around FCGX_Accept_r() instead would leave two holes: a
 * signal between the flag check and accept(2) is lost until the next
 * one, and a signal just after accept(2) interrupts libfcgi's poll or
 * read of the new connection, which libfcgi 2.4 then drops (the web
 * server answers 502).
 * FCGX_ShutdownPending() is not needed and never called.
 *
 * The worker accepts connections itself (take()), so that a peer
 * --allow-peer refuses is closed before a byte is read, and hands each
 * to libfcgi as a kept connection (ipcFd, keepConnection: libfcgi 2.4
 * reads the next request of a kept connection instead of accepting);
 * libfcgi's own listening socket is -1, so it never accepts a peer
 * unchecked (its FCGI_WEB_SERVER_ADDRS check is start.c's now).  While a
 * request runs, watch.c's timer stands guard (front_watch_begin()).
 */
int
front_worker(struct wymcp_server *srv, int listenfd,
    const struct front_limits *lim, struct front_board *board)
{
	static struct front_board own;
	FCGX_Request		 req;
	sigset_t		 waitmask;
	char			 why[160];
	const char		*retire = NULL;
	int			 rc, fd, fdbase, backoff = 0, status = 0;
	int			 streak = 0, supervised = board != NULL;

	if (board == NULL)
		board = &own;
	if (worker_init(srv, lim, board, &req, &waitmask, &fdbase) == -1)
		return 1;
	front_log(WYMCP_LOG_DEBUG, "worker ready");

	while (!stopsig) {
		if (++streak >= STREAK_MAX) {
			streak = 0;
			if (stop_pending())
				break;
		}
		/* A connection waiting already (see above)? */
		if (req.ipcFd < 0 &&
		    (fd = take(listenfd, lim, &backoff, &waitmask)) != -1)
			adopt(&req, fd, board);
		else {
			rc = wait_next(&req, listenfd, lim, board, &backoff,
			    &waitmask);
			if (rc == -1)
				status = 1;
			if (rc < 0)
				break;
			if (rc == 0)
				continue;
		}
		if ((rc = serve_one(srv, &req, lim, board)) == -1)
			continue;
		board->served++;
		if ((retire = retire_reason(lim, board, supervised, fdbase,
		    rc, why, sizeof(why))) != NULL)
			break;
	}

	worker_end(board, retire);
	/* Close a connection the web server kept open, if any. */
	if (req.ipcFd >= 0)
		FCGX_Free(&req, 1);
	return status;
}

/*
 * wymcp_io read over standard input (CGI).
 */
static long
cgi_read(void *arg, char *buf, size_t len)
{
	size_t	 n;

	(void)arg;
	n = fread(buf, 1, len, stdin);
	if (n == 0 && ferror(stdin))
		return -1;
	return (long)n;
}

/*
 * wymcp_io write of the CGI response: to the private copy of standard
 * output (`arg').
 */
static int
cgi_write(void *arg, const char *buf, size_t len)
{
	return fwrite(buf, 1, len, arg) == len ? 0 : -1;
}

/*
 * wymcp_io flush of the CGI response.
 */
static int
cgi_flush(void *arg)
{
	return fflush(arg) == 0 ? 0 : -1;
}

/*
 * Plain CGI: one request from the environment and standard input, the
 * response on standard output.  The response goes through a private
 * duplicate of descriptor 1, and descriptor 1 itself is pointed at
 * standard error before anything runs: a tool that writes to stdout
 * (printf(3)) lands in the web server's error log and can never write
 * the response head.  The time limit is watched as in a worker
 * (watch.c).  Returns 0 when a response was written, 1 when the web
 * server went away.
 */
int
front_cgi(struct wymcp_server *srv, const struct front_limits *lim)
{
	struct wymcp_io	 io;
	enum wymcp_err	 rc;
	FILE		*out;
	int		 fd;

	if ((fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3)) == -1 ||
	    dup2(STDERR_FILENO, STDOUT_FILENO) == -1 ||
	    (out = fdopen(fd, "w")) == NULL) {
		front_log(WYMCP_LOG_ERR, "CGI: cannot set standard output "
		    "aside: %s", strerror(errno));
		return 1;
	}
	(void)front_watch_init(srv, NULL, lim->timeout);
	front_watch_begin();
	memset(&io, 0, sizeof(io));
	io.env = environ;
	io.read = cgi_read;
	io.write = cgi_write;
	io.flush = cgi_flush;
	io.arg = out;
	rc = wymcp_server_serve_io(srv, &io, sizeof(io));
	if (fclose(out) == EOF)
		rc = WYMCP_ERR_IO;
	(void)front_watch_end();
	(void)fflush(stdout);		/* what tools printed: to stderr */
	if (rc != WYMCP_OK) {
		front_log(WYMCP_LOG_INFO, "CGI response not delivered: %s",
		    wymcp_strerror(rc));
		return 1;
	}
	return 0;
}
