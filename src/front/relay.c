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
 * and sends "PID.N\n" and the answer; that instance's hub (hub.c,
 * through front_relay_port_*() below: nothing there blocks, so no
 * worker ever reads a relay connection) hands it to the holder as
 * above and passes the holder's byte back.  The answer travels framed
 * with a MAC under the state key (the library frames and checks it:
 * core/seal.c); this file only carries bytes.
 *
 * --max-asking caps the workers holding at once (the counter, with
 * __atomic builtins; the worker's board says what it holds, and the
 * supervisor gives back the place and share of a worker that died
 * holding them: front_relay_dead()), and --max-asking-per-principal
 * those one principal holds (counted exactly per principal: share.c),
 * so that one principal cannot take every place.  Asking needs a
 * second worker to take the answer: with one worker it is off.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/epoll.h>
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
    int per_principal, unsigned int ask_timeout)
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
	if ((r->shares = front_shares_new(max_asking)) == NULL) {
		front_log(WYMCP_LOG_ERR, "shares per principal: %s",
		    strerror(errno));
		(void)munmap(r, sizeof(*r));
		(void)rmdir(dir);
		return -1;
	}
	r->max = max_asking;
	if (per_principal < 0)
		per_principal = max_asking / 2 > 0 ? max_asking / 2 : 1;
	r->per = per_principal > max_asking ? max_asking : per_principal;
	snprintf(r->dir, sizeof(r->dir), "%s", dir);
	lim->relay = r;
	front_log(WYMCP_LOG_INFO, "older clients are asked on the held "
	    "stream: at most %d worker%s held at once, %d per principal, "
	    "%u s per question (relay %s)", max_asking, max_asking == 1 ?
	    "" : "s", r->per, ask_timeout, dir);
	return 0;
}

int
front_relay_cleanup(const struct front_limits *lim)
{
	struct dirent	*e;
	DIR		*d;
	char		 p[256];

	if (lim->relay == NULL)
		return 0;
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
	if (rmdir(lim->relay->dir) == -1 && errno != ENOENT) {
		front_log(WYMCP_LOG_INFO, "rmdir %s: %s", lim->relay->dir,
		    strerror(errno));
		return -1;
	}
	return 0;
}

void
front_relay_worker(const struct front_limits *lim, struct front_board *b)
{
	h.lim = lim;
	h.board = b;
}

/*
 * The supervisor, for a worker `pid' that died: remove its relay
 * socket, and give back the place and the share its board says it held
 * (FRONT_HOLD_*), once.  The worker steps
 * its board up after each take and down before each give: nothing is
 * given back twice, and at worst (a death between an atomic take and
 * the store after it) one place stays taken.
 */
void
front_relay_dead(const struct front_limits *lim, struct front_board *b,
    pid_t pid)
{
	struct dirent	*e;
	DIR		*d;
	char		 p[256], pre[24];
	int		 s;

	if (lim->relay == NULL || b == NULL)
		return;
	/* Its socket, PID.N, left behind: nobody listens there. */
	snprintf(pre, sizeof(pre), "%ld.", (long)pid);
	if ((d = opendir(lim->relay->dir)) != NULL) {
		while ((e = readdir(d)) != NULL)
			if (strncmp(e->d_name, pre, strlen(pre)) == 0 &&
			    (size_t)snprintf(p, sizeof(p), "%s/%s",
			    lim->relay->dir, e->d_name) < sizeof(p))
				(void)unlink(p);
		(void)closedir(d);
	}
	s = __atomic_exchange_n(&b->asking, FRONT_HOLD_NONE,
	    __ATOMIC_SEQ_CST);
	if (s == FRONT_HOLD_SHARE)
		front_share_give(lim->relay->shares, b->asking_share, 0);
	if (s == FRONT_HOLD_SLOT || s == FRONT_HOLD_SHARE) {
		__atomic_sub_fetch(&lim->relay->asking, 1, __ATOMIC_SEQ_CST);
		__atomic_add_fetch(&lim->relay->reclaimed, 1,
		    __ATOMIC_RELAXED);
		front_log(WYMCP_LOG_WARNING, "a worker died holding a "
		    "question: its place is given back");
	}
}

static void
asking_step(int v)
{
	__atomic_store_n(&h.board->asking, v, __ATOMIC_SEQ_CST);
}

/*
 * A place to hold a question for `who' (NULL: a library older than
 * ask_hold_as, no share counted): --max-asking for the instance, and
 * --max-asking-per-principal for `who'.
 */
const char *
front_relay_hold(const char *who)
{
	struct front_relay	*r;
	struct sockaddr_un	 sa;
	unsigned char		 d[FRONT_SHARE_LEN];
	int			 n;

	if (h.lim == NULL || (r = h.lim->relay) == NULL || h.fd != -1 ||
	    h.board == NULL || h.board->asking != FRONT_HOLD_NONE)
		return NULL;
	/* Without `who' (an older library) one share of "", no cap. */
	front_share_digest(r->shares, who != NULL ? who : "", d);
	memcpy(h.board->asking_share, d, sizeof(d));
	n = __atomic_add_fetch(&r->asking, 1, __ATOMIC_SEQ_CST);
	if (n > r->max) {
		__atomic_sub_fetch(&r->asking, 1, __ATOMIC_SEQ_CST);
		return NULL;
	}
	asking_step(FRONT_HOLD_SLOT);
	if ((n = front_share_take_mark(r->shares, d, who != NULL ? r->per :
	    r->max, &h.board->asking, FRONT_HOLD_SHARE)) != 1) {
		asking_step(FRONT_HOLD_NONE);
		__atomic_sub_fetch(&r->asking, 1, __ATOMIC_SEQ_CST);
		__atomic_add_fetch(&r->refused_share, 1, __ATOMIC_RELAXED);
		front_log(WYMCP_LOG_WARNING, n == 0 ? "a question not asked: "
		    "its principal holds %d already "
		    "(--max-asking-per-principal)" : "a question not asked: "
		    "no room for another principal (%d at most)", n == 0 ?
		    r->per : r->max);
		return NULL;
	}
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
	if (h.board != NULL && h.board->asking != FRONT_HOLD_NONE) {
		if (h.board->asking == FRONT_HOLD_SHARE)
			front_share_give_mark(h.lim->relay->shares,
			    h.board->asking_share, &h.board->asking,
			    FRONT_HOLD_SLOT);
		asking_step(FRONT_HOLD_NONE);
		__atomic_sub_fetch(&h.lim->relay->asking, 1,
		    __ATOMIC_SEQ_CST);
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
	if (write(c, &yes, 1) != 1) {
		/* The sender sees the connection close unanswered. */
	}
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

/* ----------------------------------------- the relay port, in the hub */

/*
 * Answers from other hosts arrive on --relay-listen, and reading one
 * must never keep a worker from a FastCGI request: the hub serves the
 * port (front_relay_port_*(), from its epoll loop, with an epoll set
 * of its own) and blocks on nothing.  Each connection is read to its
 * end within RELAY_TCP_MS ("LOCAL\n" and the framed answer), handed
 * to the holder's unix socket (connect, write, shut down, wait for the
 * byte, RELAY_REPLY_MS), and the holder's byte goes back.  At most
 * FRONT_RELAY_CONNS_MAX connections at once: past it, a new one is closed at
 * once, and each that runs out of time is closed, both logged.
 */
#define RELAY_TCP_MS	5000	/* to send "LOCAL\n" and the answer */


enum rstate { R_READ, R_WRITE, R_WAIT };

struct rconn {
	struct rconn	*prev, *next;
	enum rstate	 state;
	int		 tcp;		/* the other host's connection */
	int		 ux;		/* the holder's socket, or -1 */
	char		*buf;		/* "LOCAL\n" and the answer */
	size_t		 len, cap, off;	/* off: written to the holder */
	char		*local;		/* the holder, in buf */
	long long	 until;		/* ms */
	char		 addr[64];	/* the peer, for the log */
};

struct front_relay_port {
	const struct front_limits *lim;
	int		 ep;
	struct rconn	*first;
	size_t		 n;
	unsigned long	 full;		/* refused at FRONT_RELAY_CONNS_MAX */
	long long	 warned;	/* ms: the last such warning */
};

/* Watch `fd' for `events' (0: no more) on behalf of `c'. */
static void
rwatch(struct front_relay_port *rp, struct rconn *c, int fd, int op,
    uint32_t events)
{
	struct epoll_event	 ev;

	memset(&ev, 0, sizeof(ev));
	ev.events = events;
	ev.data.ptr = c;
	(void)epoll_ctl(rp->ep, op, fd, &ev);
}

/* Answer `yes' to the other host, log, and forget `c'. */
static void
rdone(struct front_relay_port *rp, struct rconn *c, char yes, const char *why)
{
	if (c->tcp != -1) {
		if (yes != '\0')
			(void)send(c->tcp, &yes, 1, MSG_NOSIGNAL |
			    MSG_DONTWAIT);
		(void)close(c->tcp);
	}
	if (c->ux != -1)
		(void)close(c->ux);
	if (why != NULL)
		front_log(WYMCP_LOG_INFO, "relay: %s %s", c->addr, why);
	else
		front_log(WYMCP_LOG_INFO, "relay: an answer from %s for "
		    "holder %s: %s", c->addr, c->local != NULL ? c->local :
		    "-", yes == 'A' ? "taken" : "refused");
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		rp->first = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	rp->n--;
	free(c->buf);
	free(c);
}

/* The whole message is in: connect to its holder here. */
static void
rhand(struct front_relay_port *rp, struct rconn *c)
{
	struct sockaddr_un	 sa;
	char			*nl;

	if ((nl = memchr(c->buf, '\n', c->len)) == NULL) {
		rdone(rp, c, 'N', NULL);
		return;
	}
	*nl = '\0';
	c->local = c->buf;
	c->off = (size_t)(nl + 1 - c->buf);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (!local_ok(c->local) || rp->lim->relay == NULL ||
	    (size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s",
	    rp->lim->relay->dir, c->local) >= sizeof(sa.sun_path) ||
	    (c->ux = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1 ||
	    connect(c->ux, (struct sockaddr *)&sa, sizeof(sa)) == -1) {
		/* Gone (refused, no such socket), or its backlog full. */
		rdone(rp, c, 'N', NULL);
		return;
	}
	rwatch(rp, c, c->tcp, EPOLL_CTL_DEL, 0);
	rwatch(rp, c, c->ux, EPOLL_CTL_ADD, EPOLLOUT);
	c->state = R_WRITE;
	c->until = now_ms() + RELAY_REPLY_MS;
}

/* `c' is ready for what its state waits for. */
static void
rstep(struct front_relay_port *rp, struct rconn *c)
{
	ssize_t	 n;
	char	*nb, yes;

	switch (c->state) {
	case R_READ:
		for (;;) {
			if (c->len == c->cap) {
				c->cap = c->cap == 0 ? 4096 : c->cap * 2;
				if (c->cap > RELAY_MSG_MAX + 64 ||
				    (nb = realloc(c->buf, c->cap)) == NULL) {
					rdone(rp, c, 'N', "sent more than an "
					    "answer may hold: closed");
					return;
				}
				c->buf = nb;
			}
			n = recv(c->tcp, c->buf + c->len, c->cap - c->len,
			    MSG_DONTWAIT);
			if (n > 0) {
				c->len += (size_t)n;
				continue;
			}
			if (n == 0) {
				rhand(rp, c);
				return;
			}
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == EINTR)
				return;
			rdone(rp, c, '\0', "closed the connection early");
			return;
		}
	case R_WRITE:
		while (c->off < c->len) {
			n = send(c->ux, c->buf + c->off, c->len - c->off,
			    MSG_NOSIGNAL | MSG_DONTWAIT);
			if (n > 0) {
				c->off += (size_t)n;
				continue;
			}
			if (n == -1 && (errno == EAGAIN ||
			    errno == EWOULDBLOCK || errno == EINTR))
				return;
			rdone(rp, c, 'N', NULL);
			return;
		}
		(void)shutdown(c->ux, SHUT_WR);
		rwatch(rp, c, c->ux, EPOLL_CTL_MOD, EPOLLIN);
		c->state = R_WAIT;
		return;
	case R_WAIT:
		n = recv(c->ux, &yes, 1, MSG_DONTWAIT);
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK ||
		    errno == EINTR))
			return;
		rdone(rp, c, n == 1 && yes == 'A' ? 'A' : 'N', NULL);
		return;
	}
}

/* Take the connections waiting on the relay socket. */
static void
raccept(struct front_relay_port *rp)
{
	struct sockaddr_storage	 ss;
	socklen_t		 sl;
	struct rconn		*c;
	char			 a[64];
	int			 fd;

	for (;;) {
		sl = sizeof(ss);
		if ((fd = accept4(rp->lim->relay_fd, (struct sockaddr *)&ss,
		    &sl, SOCK_NONBLOCK | SOCK_CLOEXEC)) == -1)
			return;
		(void)prog_addr_str((struct sockaddr *)&ss, sl, a,
		    sizeof(a));
		if (rp->lim->npeers > 0 && !prog_peer_allowed(
		    rp->lim->peers, rp->lim->npeers, (struct sockaddr *)&ss,
		    sl)) {
			front_log(WYMCP_LOG_WARNING, "relay: refused %s (not "
			    "an --allow-peer address)", a);
			(void)close(fd);
			continue;
		}
		if (rp->n >= FRONT_RELAY_CONNS_MAX ||
		    (c = calloc(1, sizeof(*c))) == NULL) {
			(void)close(fd);
			rp->full++;
			if (now_ms() - rp->warned >= 1000) {
				rp->warned = now_ms();
				front_log(WYMCP_LOG_WARNING, "relay: %d "
				    "connections are open already: %s closed "
				    "(%lu so far)", FRONT_RELAY_CONNS_MAX, a,
				    rp->full);
			}
			continue;
		}
		c->tcp = fd;
		c->ux = -1;
		c->state = R_READ;
		c->until = now_ms() + RELAY_TCP_MS;
		snprintf(c->addr, sizeof(c->addr), "%s", a);
		if ((c->next = rp->first) != NULL)
			c->next->prev = c;
		rp->first = c;
		rp->n++;
		rwatch(rp, c, fd, EPOLL_CTL_ADD, EPOLLIN | EPOLLRDHUP);
	}
}

struct front_relay_port *
front_relay_port_start(const struct front_limits *lim)
{
	struct front_relay_port	*rp;
	struct epoll_event	 ev;

	if (lim->relay_fd < 0 || (rp = calloc(1, sizeof(*rp))) == NULL)
		return NULL;
	rp->lim = lim;
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.ptr = NULL;		/* the relay socket */
	if ((rp->ep = epoll_create1(EPOLL_CLOEXEC)) == -1 ||
	    epoll_ctl(rp->ep, EPOLL_CTL_ADD, lim->relay_fd, &ev) == -1) {
		front_log(WYMCP_LOG_ERR, "hub: relay: %s", strerror(errno));
		if (rp->ep != -1)
			(void)close(rp->ep);
		free(rp);
		return NULL;
	}
	return rp;
}

int
front_relay_port_fd(const struct front_relay_port *rp)
{
	return rp->ep;
}

void
front_relay_port_ready(struct front_relay_port *rp)
{
	struct epoll_event	 evs[32];
	int			 i, n;

	if ((n = epoll_wait(rp->ep, evs, 32, 0)) <= 0)
		return;
	for (i = 0; i < n; i++)
		if (evs[i].data.ptr == NULL)
			raccept(rp);
		else
			rstep(rp, evs[i].data.ptr);
}

void
front_relay_port_tick(struct front_relay_port *rp)
{
	struct rconn	*c, *next;
	long long	 now = now_ms();

	for (c = rp->first; c != NULL; c = next) {
		next = c->next;
		if (now < c->until)
			continue;
		if (c->state == R_READ)
			rdone(rp, c, '\0', "sent no whole answer within 5 s: "
			    "closed");
		else
			rdone(rp, c, 'N', NULL);
	}
}

void
front_relay_port_stop(struct front_relay_port *rp)
{
	if (rp == NULL)
		return;
	while (rp->first != NULL)
		rdone(rp, rp->first, 'N', NULL);
	(void)close(rp->ep);
	free(rp);
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
