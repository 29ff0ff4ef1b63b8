/* fcgi.c - the libfcgi glue: a worker's accept loop, and plain CGI */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <fcgiapp.h>

#include "front.h"

#define ACCEPT_BACKOFF_MIN_MS	100	/* first pause after a failed accept */
#define ACCEPT_BACKOFF_MAX_MS	5000	/* longest pause */

extern char	**environ;

/*
 * Set by the stop signals (SIGTERM, SIGINT, SIGHUP, SIGUSR1) to the
 * signal's number.  The handler runs only while the worker waits in
 * ppoll(2); see front_worker().
 */
static volatile sig_atomic_t	 stopsig;

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
 * The worker: accept FastCGI requests on `listenfd' and serve each
 * with wymcp_server_serve() until a stop signal, then return 0 (1 on a
 * fatal error).
 *
 * Graceful drain without races.  The stop signals stay blocked all the
 * time except inside ppoll(2), which waits for the listening socket (or
 * a connection the web server keeps open) with the signals unblocked
 * atomically.  So a stop signal is either seen by ppoll() (EINTR: the
 * flag is set and checked before anything else) or stays pending until
 * the next wait: it can never interrupt a request being read or
 * written, and it can never arrive between a check of the flag and a
 * blocking call.  FCGX_Accept_r() only runs once ppoll() says a
 * connection is ready, and the listening socket is non-blocking
 * (main.c), so a worker that loses the race for a connection to
 * another worker gets EAGAIN instead of blocking in accept(2) with the
 * signals blocked.  Unblocking the signals around FCGX_Accept_r()
 * instead would leave two holes: a signal between the flag check and
 * accept(2) is lost until the next one, and a signal just after
 * accept(2) interrupts libfcgi's poll or read of the new connection,
 * which libfcgi 2.4 then drops (the web server answers 502).
 * FCGX_ShutdownPending() is not needed and never called.
 */
int
front_worker(struct wymcp_server *srv, int listenfd)
{
	FCGX_Request		 req;
	struct wymcp_io		 io;
	struct sigaction	 sa;
	struct pollfd		 pfd;
	sigset_t		 stopset, waitmask;
	int			 rc, backoff = 0, status = 0;

	if ((rc = FCGX_Init()) != 0) {
		front_log(WYMCP_LOG_ERR, "FCGX_Init failed (%d)", rc);
		return 1;
	}
	if (FCGX_InitRequest(&req, listenfd, FCGI_FAIL_ACCEPT_ON_INTR)
	    != 0) {
		front_log(WYMCP_LOG_ERR, "FCGX_InitRequest failed");
		return 1;
	}

	/*
	 * After FCGX_Init(), which installs its own SIGPIPE and SIGUSR1
	 * handlers when those are at their defaults: ours win.  SIGUSR1
	 * is the graceful-stop signal of some FastCGI process managers.
	 */
	sigemptyset(&stopset);
	sigaddset(&stopset, SIGTERM);
	sigaddset(&stopset, SIGINT);
	sigaddset(&stopset, SIGHUP);
	sigaddset(&stopset, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &stopset, &waitmask) == -1) {
		front_log(WYMCP_LOG_ERR, "sigprocmask: %s", strerror(errno));
		return 1;
	}
	sigdelset(&waitmask, SIGTERM);
	sigdelset(&waitmask, SIGINT);
	sigdelset(&waitmask, SIGHUP);
	sigdelset(&waitmask, SIGUSR1);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = onstop;
	sa.sa_mask = stopset;
	sa.sa_flags = 0;		/* no SA_RESTART: ppoll must return */
	if (sigaction(SIGTERM, &sa, NULL) == -1 ||
	    sigaction(SIGINT, &sa, NULL) == -1 ||
	    sigaction(SIGHUP, &sa, NULL) == -1 ||
	    sigaction(SIGUSR1, &sa, NULL) == -1) {
		front_log(WYMCP_LOG_ERR, "sigaction: %s", strerror(errno));
		return 1;
	}
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPIPE, &sa, NULL) == -1) {
		front_log(WYMCP_LOG_ERR, "sigaction: %s", strerror(errno));
		return 1;
	}

	front_log(WYMCP_LOG_DEBUG, "worker ready");

	while (!stopsig) {
		/*
		 * Wait for the next request: on the connection the web
		 * server kept open after the last one (FCGI_KEEP_CONN;
		 * libfcgi 2.4 keeps it in ipcFd), else on the listening
		 * socket.
		 */
		pfd.fd = req.ipcFd >= 0 ? req.ipcFd : listenfd;
		pfd.events = POLLIN | POLLRDHUP;
		pfd.revents = 0;
		if (ppoll(&pfd, 1, NULL, &waitmask) == -1) {
			if (errno == EINTR)
				continue;
			front_log(WYMCP_LOG_ERR, "ppoll: %s", strerror(errno));
			status = 1;
			break;
		}
		if (pfd.revents & POLLNVAL) {
			front_log(WYMCP_LOG_ERR, "descriptor %d is not open",
			    pfd.fd);
			status = 1;
			break;
		}
		/*
		 * The supervisor shut the listening socket down to stop
		 * (prefork.c): accept(2) would only fail from now on.
		 */
		if (pfd.fd == listenfd &&
		    (pfd.revents & (POLLHUP | POLLRDHUP | POLLERR))) {
			front_log(WYMCP_LOG_DEBUG, "the listening socket was "
			    "shut down: stopping");
			break;
		}

		if ((rc = FCGX_Accept_r(&req)) < 0) {
			/* Another worker took the connection. */
			if (rc == -EAGAIN || rc == -EWOULDBLOCK)
				continue;
			if (rc > -4096)
				front_log(WYMCP_LOG_WARNING, "accept: %s",
				    strerror(-rc));
			else
				front_log(WYMCP_LOG_WARNING,
				    "accept: libfcgi error %d", rc);
			/* Out of descriptors, say: do not spin. */
			backoff = backoff == 0 ? ACCEPT_BACKOFF_MIN_MS :
			    backoff * 2 > ACCEPT_BACKOFF_MAX_MS ?
			    ACCEPT_BACKOFF_MAX_MS : backoff * 2;
			pause_ms(backoff, &waitmask);
			continue;
		}
		backoff = 0;

		io.env = req.envp;
		io.read = fcgi_read;
		io.write = fcgi_write;
		io.flush = fcgi_flush;
		io.arg = &req;
		if (wymcp_server_serve(srv, &io) != WYMCP_OK)
			front_log(WYMCP_LOG_DEBUG,
			    "the web server went away before the response "
			    "was written");
		/*
		 * Finish here, with the signals still blocked, so that
		 * the response is flushed before the next wait.
		 */
		FCGX_Finish_r(&req);
	}

	if (stopsig)
		front_log(WYMCP_LOG_DEBUG, "worker stopping on signal %d",
		    (int)stopsig);
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
 * wymcp_io write over standard output (CGI).
 */
static int
cgi_write(void *arg, const char *buf, size_t len)
{
	(void)arg;
	return fwrite(buf, 1, len, stdout) == len ? 0 : -1;
}

/*
 * wymcp_io flush of standard output (CGI).
 */
static int
cgi_flush(void *arg)
{
	(void)arg;
	return fflush(stdout) == 0 ? 0 : -1;
}

/*
 * Plain CGI: one request from the environment and standard input, the
 * response on standard output.  Returns 0 when a response was written,
 * 1 when the web server went away.
 */
int
front_cgi(struct wymcp_server *srv)
{
	struct wymcp_io	 io;
	enum wymcp_err	 rc;

	io.env = environ;
	io.read = cgi_read;
	io.write = cgi_write;
	io.flush = cgi_flush;
	io.arg = NULL;
	rc = wymcp_server_serve(srv, &io);
	if (fflush(stdout) == EOF)
		rc = WYMCP_ERR_IO;
	if (rc != WYMCP_OK) {
		front_log(WYMCP_LOG_INFO, "CGI response not delivered: %s",
		    wymcp_strerror(rc));
		return 1;
	}
	return 0;
}
