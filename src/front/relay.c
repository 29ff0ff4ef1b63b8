/*
 * relay.c - a 2025-11-25 client's answer, from the worker it reached to
 * the worker holding the question
 *
 * The library asks an older client on the tool call's held stream and
 * waits (core/held.c); the client POSTs its answer as a new request,
 * which nginx hands to any worker.  Within one instance the relay needs
 * no configuration: the supervisor makes, before it forks, a private
 * directory (mode 0700, owned by the user the workers run as) and a
 * shared page counting the workers holding a question.  A worker that
 * holds one listens, for that request only, on a unix socket
 * DIR/PID.N; its address "PID.N" is sealed into the question's id.  The
 * worker the answer reaches opens the id (the library) and connects to
 * DIR/ADDR, writes the answer, shuts its half down and reads one byte:
 * 'A' when the holder took it, 'N' when it was no answer it waits for.
 * A holder that is gone (answered, timed out, hung up) has no socket
 * any more: the connection is refused at once.
 *
 * Across hosts, each instance opens --relay-listen HOST:PORT (peers as
 * --allow-peer allows) and the address becomes "HOST:PORT/PID.N".  A
 * worker whose answer names another instance connects there over TCP
 * and sends "PID.N\n" and the answer; an idle worker of that instance
 * (its accept loop polls the relay socket too: front_relay_serve())
 * hands it to the holder as above and passes the holder's byte back.
 *
 * --max-asking caps the workers holding at once (the counter, with
 * __atomic builtins; the supervisor gives back the place of a worker
 * that died holding one).  Asking needs a second worker to take the
 * answer: with one worker it is off.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>

#include <netinet/in.h>

#include <dirent.h>
#include <errno.h>
#include <netdb.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "front.h"

#define RELAY_MSG_MAX	(8UL * 1024 * 1024)	/* an answer, at most */
#define RELAY_READ_MS	2000	/* a forwarder writes its answer in this */
#define RELAY_REPLY_MS	10000	/* a holder says A or N in this */

/* This worker's side: what it holds now. */
static struct {
	const struct front_limits *lim;
	struct front_board	*board;
	int			 fd;		/* listening, or -1 */
	unsigned long		 n;		/* questions held so far */
	char			 path[sizeof(((struct sockaddr_un *)0)->
				    sun_path)];
	char			 local[32];	/* PID.N */
	char			 addr[FRONT_RELAY_ADDR_MAX + 34];
} h = { NULL, NULL, -1, 0, "", "", "" };

static long long
now_ms(void)
{
	struct timespec	 ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
front_relay_setup(struct front_limits *lim, int workers, int max_asking,
    unsigned int ask_timeout)
{
	struct front_relay	*r;
	const char		*tmp;
	char			 dir[96];

	lim->ask_timeout = ask_timeout;
	if (workers < 2 || max_asking == 0) {
		if (max_asking != 0)
			front_log(WYMCP_LOG_INFO, "older (2025-11-25) clients "
			    "are not asked: an answer needs a second worker "
			    "to take it (--workers 2 or more)");
		return 0;
	}
	if (max_asking < 0)
		max_asking = workers / 2 > 0 ? workers / 2 : 1;
	if (max_asking > workers - 1) {
		front_log(WYMCP_LOG_WARNING, "--max-asking %d leaves no "
		    "worker to take the answers: %d", max_asking,
		    workers - 1);
		max_asking = workers - 1;
	}
	if ((tmp = getenv("TMPDIR")) == NULL || *tmp != '/' ||
	    strlen(tmp) > 40)
		tmp = "/tmp";
	snprintf(dir, sizeof(dir), "%s/wymcp-relay.XXXXXX", tmp);
	if (mkdtemp(dir) == NULL) {
		front_log(WYMCP_LOG_ERR, "mkdtemp %s: %s: older clients are "
		    "not asked", dir, strerror(errno));
		return -1;
	}
	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED) {
		front_log(WYMCP_LOG_ERR, "mmap: %s", strerror(errno));
		(void)rmdir(dir);
		return -1;
	}
	memset(r, 0, sizeof(*r));
	r->max = max_asking;
	snprintf(r->dir, sizeof(r->dir), "%s", dir);
	lim->relay = r;
	front_log(WYMCP_LOG_INFO, "older clients are asked on the held "
	    "stream: at most %d worker%s held at once, %u s per question "
	    "(relay %s)", max_asking, max_asking == 1 ? "" : "s",
	    ask_timeout, dir);
	return 0;
}

void
front_relay_cleanup(const struct front_limits *lim)
{
	struct dirent	*e;
	DIR		*d;
	char		 p[256];

	if (lim->relay == NULL)
		return;
	if ((d = opendir(lim->relay->dir)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.')
				continue;
			if ((size_t)snprintf(p, sizeof(p), "%s/%s",
			    lim->relay->dir, e->d_name) < sizeof(p))
				(void)unlink(p);
		}
		(void)closedir(d);
	}
	if (rmdir(lim->relay->dir) == -1)
		front_log(WYMCP_LOG_INFO, "rmdir %s: %s", lim->relay->dir,
		    strerror(errno));
}

void
front_relay_worker(const struct front_limits *lim, struct front_board *b)
{
	h.lim = lim;
	h.board = b;
}

void
front_relay_dead(const struct front_limits *lim, struct front_board *b)
{
	if (lim->relay != NULL && b != NULL && b->asking) {
		__atomic_sub_fetch(&lim->relay->asking, 1, __ATOMIC_SEQ_CST);
		b->asking = 0;
	}
}

const char *
front_relay_hold(void)
{
	struct front_relay	*r;
	struct sockaddr_un	 sa;
	int			 n;

	if (h.lim == NULL || (r = h.lim->relay) == NULL || h.fd != -1)
		return NULL;
	n = __atomic_add_fetch(&r->asking, 1, __ATOMIC_SEQ_CST);
	if (n > r->max) {
		__atomic_sub_fetch(&r->asking, 1, __ATOMIC_SEQ_CST);
		return NULL;
	}
	h.board->asking = 1;
	snprintf(h.local, sizeof(h.local), "%ld.%lu", (long)getpid(), ++h.n);
	if (r->self[0] != '\0')
		snprintf(h.addr, sizeof(h.addr), "%s/%s", r->self, h.local);
	else
		snprintf(h.addr, sizeof(h.addr), "%s", h.local);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if ((size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s",
	    r->dir, h.local) >= sizeof(sa.sun_path))
		goto fail;
	snprintf(h.path, sizeof(h.path), "%s", sa.sun_path);
	if ((h.fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1)
		goto fail;
	(void)unlink(h.path);
	if (bind(h.fd, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
	    listen(h.fd, 16) == -1)
		goto fail;
	return h.addr;
fail:
	front_log(WYMCP_LOG_ERR, "relay socket %s: %s", h.path,
	    strerror(errno));
	front_relay_release();
	return NULL;
}

void
front_relay_release(void)
{
	if (h.fd != -1) {
		(void)close(h.fd);
		h.fd = -1;
	}
	if (h.path[0] != '\0') {
		(void)unlink(h.path);
		h.path[0] = '\0';
	}
	if (h.board != NULL && h.board->asking) {
		__atomic_sub_fetch(&h.lim->relay->asking, 1,
		    __ATOMIC_SEQ_CST);
		h.board->asking = 0;
	}
}

/*
 * Read non-blocking `c' to its end (the sender shuts its half down)
 * within RELAY_READ_MS, `max' bytes at most: a malloc(3)ed buffer with
 * one byte to spare, its length in *lenp; NULL when it is longer, too
 * slow, or the read fails.
 */
static char *
read_all(int c, size_t max, size_t *lenp)
{
	struct pollfd	 pfd;
	long long	 until = now_ms() + RELAY_READ_MS;
	size_t		 len = 0, cap = 0;
	ssize_t		 n;
	char		*buf = NULL, *nb;

	for (;;) {
		if (len == cap) {
			cap = cap == 0 ? 4096 : cap * 2;
			if (cap > max + 1 || (nb = realloc(buf, cap)) == NULL)
				goto fail;
			buf = nb;
		}
		if ((n = read(c, buf + len, cap - len)) > 0) {
			len += (size_t)n;
			continue;
		}
		if (n == 0)
			break;
		if (errno != EAGAIN && errno != EINTR)
			goto fail;
		pfd.fd = c;
		pfd.events = POLLIN;
		if (now_ms() >= until ||
		    poll(&pfd, 1, (int)(until - now_ms())) == 0)
			goto fail;
	}
	*lenp = len;
	return buf;
fail:
	free(buf);
	return NULL;
}

/*
 * Read one forwarded answer from `c' to its end (the forwarder shuts
 * its half down), hand it to take(), say A or N.  1 taken, 0 not.
 */
static int
one(int c, int (*take)(void *, const char *, size_t), void *arg)
{
	size_t		 len;
	char		*buf, yes;
	int		 took = 0;

	if ((buf = read_all(c, RELAY_MSG_MAX, &len)) != NULL)
		took = take(arg, buf, len);
	yes = took ? 'A' : 'N';
	(void)write(c, &yes, 1);
	free(buf);
	return took;
}

int
front_relay_wait(int conn, int ms, int (*take)(void *, const char *, size_t),
    void *arg)
{
	struct pollfd	 pfd[2];
	long long	 until = now_ms() + ms, left;
	int		 c, n;

	if (h.fd == -1)
		return -1;
	while ((left = until - now_ms()) > 0) {
		pfd[0].fd = h.fd;
		pfd[0].events = POLLIN;
		pfd[0].revents = 0;
		/* A hang-up only: the end of the body may still be queued. */
		pfd[1].fd = conn;
		pfd[1].events = POLLRDHUP;
		pfd[1].revents = 0;
		if ((n = poll(pfd, conn >= 0 ? 2 : 1, (int)left)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (conn < 0 || (pfd[1].revents & (POLLRDHUP | POLLHUP |
		    POLLERR | POLLNVAL)))
			return 2;
		if (!(pfd[0].revents & POLLIN))
			continue;
		if ((c = accept4(h.fd, NULL, NULL, SOCK_NONBLOCK |
		    SOCK_CLOEXEC)) == -1)
			continue;
		n = one(c, take, arg);
		(void)close(c);
		if (n)
			return 1;
	}
	return 0;
}

static int	 local_forward(const char *, const char *, size_t);

/* Is `s' a local holder address, PID.N? */
static int
local_ok(const char *s)
{
	const char	*p;

	if (*s == '\0' || strlen(s) > 30)
		return 0;
	for (p = s; *p != '\0'; p++)
		if ((*p < '0' || *p > '9') && *p != '.')
			return 0;
	return 1;
}

/* Send all of buf; 0 or -1. */
static int
send_all(int c, const char *buf, size_t len)
{
	ssize_t	 n;
	size_t	 off = 0;

	while (off < len) {
		if ((n = send(c, buf + off, len - off, MSG_NOSIGNAL)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		off += (size_t)n;
	}
	return 0;
}

/* The holder's byte on `c', after our half is shut down: 0 for A. */
static int
reply(int c)
{
	struct pollfd	 pfd;
	char		 yes = 'N';

	(void)shutdown(c, SHUT_WR);
	pfd.fd = c;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, RELAY_REPLY_MS) == 1 && read(c, &yes, 1) == 1 &&
	    yes == 'A')
		return 0;
	return -1;
}

/* Another instance's relay at HOST:PORT: "LOCAL\n" then the answer. */
static int
remote_forward(const char *hostport, size_t hlen, const char *local,
    const char *msg, size_t len)
{
	struct addrinfo	 hints, *res, *ai;
	struct timeval	 tv;
	char		 host[FRONT_RELAY_ADDR_MAX + 1], *port, *p;
	int		 c = -1, rc = -1;

	if (hlen == 0 || hlen > FRONT_RELAY_ADDR_MAX)
		return -1;
	memcpy(host, hostport, hlen);
	host[hlen] = '\0';
	if (host[0] == '[') {
		if ((p = strchr(host, ']')) == NULL || p[1] != ':')
			return -1;
		*p = '\0';
		port = p + 2;
		memmove(host, host + 1, strlen(host + 1) + 1);
	} else {
		if ((p = strrchr(host, ':')) == NULL)
			return -1;
		*p = '\0';
		port = p + 1;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	if (getaddrinfo(host, port, &hints, &res) != 0)
		return -1;
	for (ai = res; ai != NULL && c == -1; ai = ai->ai_next) {
		if ((c = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
		    ai->ai_protocol)) == -1)
			continue;
		tv.tv_sec = RELAY_REPLY_MS / 1000;
		tv.tv_usec = 0;
		(void)setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (connect(c, ai->ai_addr, ai->ai_addrlen) == -1) {
			(void)close(c);
			c = -1;
		}
	}
	freeaddrinfo(res);
	if (c == -1)
		return -1;
	if (send_all(c, local, strlen(local)) == 0 &&
	    send_all(c, "\n", 1) == 0 && send_all(c, msg, len) == 0)
		rc = reply(c);
	(void)close(c);
	return rc;
}

int
front_relay_forward(const char *addr, const char *msg, size_t len)
{
	const char	*slash;
	size_t		 n;

	if (h.lim == NULL || h.lim->relay == NULL)
		return -1;
	if ((slash = strrchr(addr, '/')) == NULL)
		return local_forward(addr, msg, len);
	n = (size_t)(slash - addr);
	if (!local_ok(slash + 1))
		return -1;
	if (h.lim->relay->self[0] != '\0' &&
	    strlen(h.lim->relay->self) == n &&
	    memcmp(h.lim->relay->self, addr, n) == 0)
		return local_forward(slash + 1, msg, len);
	return remote_forward(addr, n, slash + 1, msg, len);
}

/*
 * An answer from another host on the relay socket: read "LOCAL\n" and
 * the answer, hand it to the holder here, pass its byte back.
 */
void
front_relay_serve(int relayfd)
{
	struct sockaddr_storage	 ss;
	socklen_t		 sl = sizeof(ss);
	size_t			 len;
	char			*buf = NULL, *nl, yes = 'N', a[64];
	int			 c;

	if ((c = accept4(relayfd, (struct sockaddr *)&ss, &sl,
	    SOCK_NONBLOCK | SOCK_CLOEXEC)) == -1)
		return;
	if (h.lim->npeers > 0 && !front_peer_allowed(h.lim->peers,
	    h.lim->npeers, (struct sockaddr *)&ss, sl)) {
		front_log(WYMCP_LOG_WARNING, "relay: refused %s (not an "
		    "--allow-peer address)", front_addr_str((struct sockaddr *)
		    &ss, sl, a, sizeof(a)));
		(void)close(c);
		return;
	}
	/* RELAY_MSG_MAX and the holder's name before it. */
	if ((buf = read_all(c, RELAY_MSG_MAX + 63, &len)) == NULL ||
	    (nl = memchr(buf, '\n', len)) == NULL)
		goto out;
	*nl = '\0';
	if (local_ok(buf) && local_forward(buf, nl + 1,
	    len - (size_t)(nl + 1 - buf)) == 0)
		yes = 'A';
	front_log(WYMCP_LOG_INFO, "relay: an answer from %s for holder %s: "
	    "%s", front_addr_str((struct sockaddr *)&ss, sl, a, sizeof(a)),
	    buf, yes == 'A' ? "taken" : "refused");
out:
	(void)write(c, &yes, 1);
	(void)close(c);
	free(buf);
}

/* The holder PID.N of this instance. */
static int
local_forward(const char *addr, const char *msg, size_t len)
{
	struct sockaddr_un	 sa;
	struct timeval		 tv;
	int			 c, rc = -1;

	if (!local_ok(addr))
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if ((size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s",
	    h.lim->relay->dir, addr) >= sizeof(sa.sun_path))
		return -1;
	if ((c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	tv.tv_sec = RELAY_REPLY_MS / 1000;
	tv.tv_usec = 0;
	(void)setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(c, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	    send_all(c, msg, len) == 0)
		rc = reply(c);
	(void)close(c);
	return rc;
}
