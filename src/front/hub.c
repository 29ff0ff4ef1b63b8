/*
 * hub.c - the hub: one event-driven process per instance that holds
 * every listen stream (subscriptions/listen), so that no worker waits
 *
 * A worker that receives a valid listen asks for a slot
 * (front_listen_hold(): --max-listeners for the instance, and a share
 * per principal, --max-listeners-per-principal), writes the head and
 * the acknowledgement, and hands the FastCGI connection to the hub
 * (front_listen_hand(): SCM_RIGHTS over the workers' channel, with one
 * line of JSON saying what the stream wants); then it is free.  Events
 * come on the same channel (front_publish(): what a tool's run
 * published, from workers and task runners), and from outside on the
 * bus and the hub's socket PATH.hub, each parsed by intake.c and taken
 * as intake.h says (from outside data only; stream control from the
 * workers, or sealed by another host's hub: control.c; events.c applies
 * them).  The worker's side and the instance's page are listen.c, what
 * is written to a stream stream.c.  The hub (epoll, nothing blocks)
 * writes each event to the streams that asked for it as FastCGI STDOUT
 * records of SSE frames tagged with the subscription id, an SSE
 * comment after HUB_QUIET_MS without a frame so that proxies do not cut
 * idle streams, and the end (the listen's result, the end of stdout,
 * FCGI_END_REQUEST) at --listen-max-age or when it is told to stop.
 * It reads what the web server sends on each connection and drops the
 * stream when the web server closes it or aborts the request (its
 * client went away), and drops a stream whose client does not read
 * once HUB_BUF_MAX bytes wait for it: nothing else slows down.  It also
 * serves --relay-listen, answers from other hosts for this instance's
 * held questions (relay.c, front_relay_port_*()), so that no worker
 * waits on a relay connection.
 *
 * The channel and the socket are made by the supervisor before the
 * first fork and kept open by it, so a hub that dies is replaced without
 * losing what was queued for it; its streams end as transport closes
 * (clients listen again).  The counts live in one shared page (struct
 * front_listen): workers reserve a slot and its principal's share,
 * the hub takes them over when it adopts the stream and gives them back
 * when the stream ends; the supervisor forgets the hub's when it dies.
 *
 * The hub also keeps the instance's private directories in TMPDIR (its
 * socket's, when there is no SOCK.hub, and the relay's): the supervisor
 * removes them when it exits, and when it is killed instead the hub,
 * whose parent-death signal is SIGTERM (the workers' is SIGKILL), sees
 * its parent change and removes them before it exits (orphaned()).
 * Without listen streams but with a relay directory, the hub does only
 * that (keeper()).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "front.h"
#include "intake.h"
#include "hub.h"

#define HUB_TICK_MS	1000
#define HUB_STOP_MS	2000		/* to flush the ends when stopping */
#define HUB_ORPHAN_MS	500		/* ... when the supervisor is gone */
#define ORPHAN_TRIES	50		/* a relay directory not yet empty */
#define ORPHAN_WAIT_MS	10		/* ... is tried again after this */
#define HUB_EVENTS	256		/* epoll events per wait */
#define HUB_FD_SPARE	64		/* descriptors not for streams */

static volatile sig_atomic_t	 hub_stop;

static void	 fd_check(struct hub *);

static void
hub_onstop(int sig)
{
	hub_stop = sig;
}

/*
 * A worker's handoff message: the parsed object (the caller's, to put)
 * and the digest of its principal's share in `d' (share.c), or NULL
 * when it is not one.
 */
static struct json_object *
handoff(const struct front_listen *l, const char *msg, size_t len,
    unsigned char *d)
{
	struct json_tokener	*tok;
	struct json_object	*o = NULL, *v = NULL;

	if ((tok = json_tokener_new()) != NULL) {
		o = json_tokener_parse_ex(tok, msg, (int)len);
		json_tokener_free(tok);
	}
	if (o == NULL || !json_object_is_type(o, json_type_object) ||
	    (json_object_object_get_ex(o, "who", &v) &&
	    !json_object_is_type(v, json_type_string))) {
		json_object_put(o);
		return NULL;
	}
	front_share_digest(l->shares, v != NULL ? json_object_get_string(v) :
	    NULL, d);
	return o;
}

/*
 * A handoff whose descriptor did not arrive (the hub has no descriptor
 * left: the kernel closed it, so the client sees its connection end):
 * give the worker's reservation back, and say why.
 */
static void
lost(struct hub *h, const char *msg, size_t len)
{
	struct json_object	*o;
	unsigned char		 d[FRONT_SHARE_LEN];

	if ((o = handoff(h->l, msg, len, d)) != NULL)
		front_listen_unreserve(h->l, d, 0);
	json_object_put(o);
	__atomic_add_fetch(&h->l->lost, 1, __ATOMIC_RELAXED);
	front_log(WYMCP_LOG_ERR, "hub: a stream was lost: no descriptor "
	    "left (raise the open-file limit, or lower --max-listeners)");
}

/* A string member of `o', strdup'd; NULL when absent. */
static char *
member(struct json_object *o, const char *name, int *bad)
{
	struct json_object	*v;
	char			*s = NULL;

	if (json_object_object_get_ex(o, name, &v) &&
	    json_object_is_type(v, json_type_string) &&
	    (s = strdup(json_object_get_string(v))) == NULL)
		*bad = 1;
	return s;
}

/* A handoff's members into `s': 1 when one could not be kept. */
static int
stream_of(struct stream *s, struct json_object *o)
{
	struct json_object	*v;
	size_t			 i;
	int			 bad = 0;

	s->rid = json_object_object_get_ex(o, "rid", &v) ?
	    json_object_get_int(v) : 1;
	s->lists = json_object_object_get_ex(o, "lists", &v) ?
	    json_object_get_int(v) : 0;
	s->id = member(o, "id", &bad);
	s->session = member(o, "session", &bad);
	s->who = member(o, "who", &bad);
	s->end = member(o, "end", &bad);
	s->mount = member(o, "mount", &bad);
	if (json_object_object_get_ex(o, "uris", &v) &&
	    json_object_is_type(v, json_type_array) &&
	    (s->nuris = json_object_array_length(v)) > 0) {
		if ((s->uris = calloc(s->nuris, sizeof(*s->uris))) == NULL)
			bad = 1;
		for (i = 0; s->uris != NULL && i < s->nuris; i++)
			if ((s->uris[i] = strdup(json_object_get_string(
			    json_object_array_get_idx(v, i)))) == NULL)
				bad = 1;
		if (s->uris == NULL)
			s->nuris = 0;
	}
	return bad;
}

/* A handed-over stream: adopt it, or close it. */
static void
adopt(struct hub *h, const char *msg, size_t len, int fd)
{
	struct json_object	*o;
	struct epoll_event	 ev;
	struct stream		*s;
	unsigned char		 d[FRONT_SHARE_LEN];
	int			 bad;

	if ((o = handoff(h->l, msg, len, d)) == NULL ||
	    (s = calloc(1, sizeof(*s))) == NULL) {
		front_log(WYMCP_LOG_ERR, "hub: a handoff that is not one");
		close(fd);
		/* Its worker's reservation is the hub's to give back. */
		if (o != NULL)
			front_listen_unreserve(h->l, d, 0);
		json_object_put(o);
		return;
	}
	/* The worker's reservation is the hub's now. */
	__atomic_add_fetch(&h->l->hub_held, 1, __ATOMIC_ACQ_REL);
	front_share_to_hub(h->l->shares, d);
	__atomic_add_fetch(&h->l->opened, 1, __ATOMIC_RELAXED);
	s->fd = fd;
	memcpy(s->share, d, sizeof(d));
	bad = stream_of(s, o);
	json_object_put(o);
	s->started = s->wrote = front_now_ms();
	if (s->lists != 0)
		__atomic_add_fetch(&h->l->lists_streams, 1, __ATOMIC_RELAXED);
	if (s->nuris > 0)
		__atomic_add_fetch(&h->l->resource_streams, 1,
		    __ATOMIC_RELAXED);
	s->prev = h->last;
	if (h->last != NULL)
		h->last->next = s;
	else
		h->first = s;
	h->last = s;
	h->n++;
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN | EPOLLRDHUP;
	ev.data.ptr = s;
	if (s->session != NULL && !bad)
		bad = hub_pending_take(h, s) != 0;
	if (!bad)
		bad = hub_index_add(h, s) != 0;
	if (h->l->max_age > 0)	/* less up to 10%: not all at once */
		s->deadline = s->started + (long long)h->l->max_age * 1000 -
		    random() % ((long long)h->l->max_age * 100 + 1);
	if (bad || (s->id == NULL && s->session == NULL) ||
	    epoll_ctl(h->ep, EPOLL_CTL_ADD, fd, &ev) == -1) {
		if (s->id == NULL && s->session == NULL)
			s->id = strdup("?");
		hub_drop(h, s, bad ? "out of memory" : "epoll_ctl failed");
		return;
	}
	front_log(WYMCP_LOG_DEBUG, "hub: %s %s held (%zu streams)",
	    s->id != NULL ? "listen" : "stream of session",
	    s->id != NULL ? s->id : s->session, h->n);
}

/* The descriptor a message carries, or -1. */
static int
passed(struct msghdr *mh)
{
	struct cmsghdr	*c;
	int		 fd = -1, k;

	for (c = CMSG_FIRSTHDR(mh); c != NULL; c = CMSG_NXTHDR(mh, c))
		if (c->cmsg_level == SOL_SOCKET &&
		    c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len >= CMSG_LEN(sizeof(int))) {
			memcpy(&k, CMSG_DATA(c), sizeof(int));
			if (fd >= 0)	/* one a message: close the others */
				close(k);
			else
				fd = k;
		}
	return fd;
}

/*
 * A worker's event, off the channel at once (so that no worker waits
 * for room in it): applied in slices (drain()).  Past HUB_QUEUE_MAX
 * bytes waiting it is shed, and every stream ends (shed()).
 */
static void
enqueue(struct hub *h, const char *msg, size_t len)
{
	struct qev	*q;

	if (h->qbytes + len > HUB_QUEUE_MAX ||
	    (q = malloc(sizeof(*q) + len)) == NULL) {
		__atomic_add_fetch(&h->l->shed, 1, __ATOMIC_RELEASE);
		return;
	}
	q->next = NULL;
	q->len = len;
	memcpy(q->text, msg, len);
	if (h->qtail != NULL)
		h->qtail->next = q;
	else
		h->qhead = q;
	h->qtail = q;
	h->qbytes += len;
}

/* Apply up to HUB_SLICE of the workers' events; 1 when more wait. */
static int
drain(struct hub *h)
{
	struct qev	*q;
	int		 i;

	for (i = 0; i < HUB_SLICE && (q = h->qhead) != NULL; i++) {
		if ((h->qhead = q->next) == NULL)
			h->qtail = NULL;
		h->qbytes -= q->len;
		hub_from_worker(h, q->text, q->len);
		free(q);
	}
	return h->qhead != NULL;
}

/*
 * Events were shed (a worker's that could not reach the hub, or the
 * hub's queue full): every stream may have missed one, and ends with
 * its result, so that its client listens again and reads afresh.
 */
static void
shed(struct hub *h)
{
	unsigned long	 n = __atomic_load_n(&h->l->shed, __ATOMIC_ACQUIRE);
	long long	 now;

	if (n == h->shed_seen)
		return;
	now = front_now_ms();
	if (h->shed_logged == 0 || now - h->shed_logged >= REFUSAL_LOG_MS) {
		front_log(WYMCP_LOG_WARNING, "hub: %lu events shed (the "
		    "workers' channel or the hub's queue was full)",
		    n - h->shed_seen);
		h->shed_logged = now;
	}
	h->shed_seen = n;
	hub_end_all(h, "events were shed");
}

/*
 * Take every message waiting on `fd': the workers' channel (`src'
 * FRONT_SRC_WORKER: handoffs and events), or the hub socket (events
 * from outside: data only, never a descriptor).
 */
static void
take(struct hub *h, int fd, int src)
{
	static char		 msg[FRONT_HUB_MSG_MAX];
	struct msghdr		 mh;
	struct iovec		 iov;
	union {
		struct cmsghdr	 h;
		char		 buf[CMSG_SPACE(sizeof(int))];
	} cm;
	ssize_t			 n;
	int			 conn;

	for (;;) {
		memset(&mh, 0, sizeof(mh));
		iov.iov_base = msg;
		iov.iov_len = sizeof(msg);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cm.buf;
		mh.msg_controllen = sizeof(cm.buf);
		if ((n = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC)) ==
		    -1) {
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR)
				front_log(WYMCP_LOG_ERR, "hub: recvmsg: %s",
				    strerror(errno));
			return;
		}
		conn = passed(&mh);
		if (src != FRONT_SRC_WORKER && (conn >= 0 ||
		    (mh.msg_flags & MSG_CTRUNC))) {
			/* Streams come from this instance's workers only. */
			if (conn >= 0)
				close(conn);
			hub_refuse(h, src, FRONT_REF_HANDOFF, msg, (size_t)n);
		} else if (conn >= 0)
			adopt(h, msg, (size_t)n, conn);
		else if (mh.msg_flags & MSG_CTRUNC)
			lost(h, msg, (size_t)n);
		else if (mh.msg_flags & MSG_TRUNC)
			hub_refuse(h, src, FRONT_REF_OVERSIZED, msg, (size_t)n);
		else if (src == FRONT_SRC_WORKER)
			enqueue(h, msg, (size_t)n);
		else
			hub_from_outside(h, src, msg, (size_t)n);
	}
}

/*
 * Read what the web server sends on `s': the rest of the request's
 * stdin, nothing else of ours.  An abort of our request or a close
 * means its client went away.
 */
static void
readable(struct hub *h, struct stream *s, uint32_t events)
{
	unsigned char	 buf[4096];
	ssize_t		 n;
	size_t		 i = 0, k;

	if (s->dead)
		return;
	for (;;) {
		n = recv(s->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n == 0 || (n == -1 && errno != EAGAIN &&
		    errno != EWOULDBLOCK && errno != EINTR)) {
			__atomic_add_fetch(&h->l->gone, 1, __ATOMIC_RELAXED);
			hub_drop(h, s, "the client went away");
			return;
		}
		if (n == -1)
			break;
		for (i = 0; i < (size_t)n; ) {
			if (s->skip > 0) {
				k = (size_t)n - i < s->skip ? (size_t)n - i :
				    s->skip;
				s->skip -= k;
				i += k;
				continue;
			}
			s->hdr[s->hdrlen++] = buf[i++];
			if (s->hdrlen < FCGI_HEADER_LEN)
				continue;
			s->hdrlen = 0;
			if (s->hdr[1] == FCGI_ABORT_REQUEST &&
			    (s->hdr[2] << 8 | s->hdr[3]) == s->rid) {
				__atomic_add_fetch(&h->l->gone, 1,
				    __ATOMIC_RELAXED);
				hub_drop(h, s, "the request was aborted");
				return;
			}
			s->skip = (size_t)(s->hdr[4] << 8 | s->hdr[5]) +
			    s->hdr[6];
		}
	}
	if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
		__atomic_add_fetch(&h->l->gone, 1, __ATOMIC_RELAXED);
		hub_drop(h, s, "the web server closed the connection");
	}
}

/* Once a tick: keep-alive comments, and the end at the maximum age. */
static void
tick(struct hub *h)
{
	struct stream	*s, *next;
	long long	 now = front_now_ms();

	hub_pending_expire(h);
	fd_check(h);
	for (s = h->first; s != NULL; s = next) {
		next = s->next;
		if (s->ending) {
			if (now >= s->deadline)
				hub_drop(h, s, "its end was not read");
			continue;
		}
		if (s->deadline > 0 && now >= s->deadline) {
			__atomic_add_fetch(&h->l->aged, 1, __ATOMIC_RELAXED);
			(void)hub_end(h, s);
		} else if (now - s->wrote >= HUB_QUIET_MS)
			(void)hub_frame(h, s, "keep-alive", 1);
		else if (s->outlen == 0 && s->out != NULL &&
		    now - s->wrote >= HUB_IDLE_MS) {
			/* An idle stream keeps no buffer: thousands wait. */
			free(s->out);
			s->out = NULL;
			s->outcap = 0;
		}
	}
}

/* Stopping: end every stream, and give the ends `ms' to go. */
static void
stop_all(struct hub *h, long long ms)
{
	struct epoll_event	 evs[HUB_EVENTS];
	struct stream		*s, *next;
	long long		 until;
	int			 i, n;

	for (s = h->first; s != NULL; s = next) {
		next = s->next;
		(void)hub_end(h, s);
	}
	hub_flush_dirty(h);
	until = front_now_ms() + ms;
	while (h->first != NULL && front_now_ms() < until) {
		n = epoll_wait(h->ep, evs, HUB_EVENTS, 100);
		for (i = 0; i < n; i++) {
			if (evs[i].data.ptr == NULL ||
			    evs[i].data.ptr == h->l ||
			    evs[i].data.ptr == &h->timer ||
			    (h->bus != NULL && evs[i].data.ptr == h->bus) ||
			    evs[i].data.ptr == &h->relay)
				continue;
			s = evs[i].data.ptr;
			if (evs[i].events & EPOLLOUT)
				(void)hub_flush(h, s);
		}
		hub_flush_dirty(h);
		hub_bury(h);
	}
	while (h->first != NULL)
		hub_drop(h, h->first, "stopping");
	h->dirty = NULL;	/* every one of them dropped */
	hub_bury(h);
}

/*
 * Room for `max' streams and the hub's own descriptors: the soft
 * open-file limit raised towards the hard one (systemd's soft 1024
 * would stop the hub short of the default --max-listeners), or said at
 * start that it cannot be.
 */
static void
fd_raise(int max)
{
	struct rlimit	 rl;
	rlim_t		 want = (rlim_t)(max > 0 ? max : 0) + HUB_FD_SPARE, had;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 || rl.rlim_cur >= want)
		return;
	had = rl.rlim_cur;
	rl.rlim_cur = rl.rlim_max > want ? want : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
		rl.rlim_cur = had;	/* a seccomp filter, say */
	if (rl.rlim_cur < want)
		front_log(WYMCP_LOG_WARNING, "hub: the open-file limit (%llu) "
		    "is below --max-listeners + %d (%llu): listens past %lld "
		    "streams are refused (503)",
		    (unsigned long long)rl.rlim_cur, HUB_FD_SPARE,
		    (unsigned long long)want,
		    (long long)rl.rlim_cur - HUB_FD_SPARE);
}

/* The descriptors the hub has open now. */
static int
fd_count(void)
{
	DIR		*d;
	struct dirent	*e;
	int		 n = 0;

	if ((d = opendir("/proc/self/fd")) == NULL)
		return 16;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;		/* the directory's own */
}

/*
 * The streams the open-file limit lets the hub hold, for the workers'
 * front_listen_hold() (a listen past it: 503, before its
 * acknowledgement): at start and once a tick (prlimit(1) may lower it).
 */
static void
fd_check(struct hub *h)
{
	struct rlimit	 rl;
	long long	 room;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 || rl.rlim_cur == RLIM_INFINITY)
		room = h->l->max;
	else
		room = (long long)rl.rlim_cur - h->fd_base - HUB_FD_SPARE / 2;
	if (room < 0)
		room = 0;
	if (room > h->l->max)
		room = h->l->max;
	__atomic_store_n(&h->l->fd_room, (int)room, __ATOMIC_RELEASE);
}

/*
 * The supervisor is gone: killed (SIGKILL, the OOM killer, a crash),
 * since it waits for the hub before a clean exit.  Nobody else will
 * remove the instance's private directories: remove them here, the
 * relay's with the sockets of the workers that held a question (killed
 * with the supervisor, one may still be binding: a directory not yet
 * empty is tried again, ORPHAN_TRIES times), and the hub's own; never
 * a hub socket beside a FastCGI one (SOCK.hub), whose path a new
 * instance may have taken already.  Once only.
 */
static void
orphaned(const struct front_limits *lim, pid_t sup)
{
	static int	 done;
	int		 i;

	if (done)
		return;
	done = 1;
	front_log(WYMCP_LOG_WARNING, "hub: the supervisor (%ld) is gone; "
	    "removing the instance's private directories", (long)sup);
	for (i = 0; i < ORPHAN_TRIES && front_relay_cleanup(lim) == -1; i++)
		(void)poll(NULL, 0, ORPHAN_WAIT_MS);
	if (lim->listen == NULL || lim->listen->dir[0] == '\0')
		return;
	(void)unlink(lim->listen->path);
	if (rmdir(lim->listen->dir) == -1 && errno != ENOENT)
		front_log(WYMCP_LOG_INFO, "rmdir %s: %s", lim->listen->dir,
		    strerror(errno));
}

/*
 * Without listen streams (--max-listeners 0, or no hub socket) but with
 * a relay directory: wait for a stop signal, or for the supervisor to
 * die.  The parent is looked at with the stop signals blocked, so a
 * parent-death signal after the look ends sigsuspend(2) at once.
 */
static int
keeper(const struct front_limits *lim, pid_t sup)
{
	sigset_t	 waitmask;

	if (lim->relay == NULL ||
	    front_catch_stop(hub_onstop, &waitmask) == -1)
		return 1;
	front_log(WYMCP_LOG_DEBUG, "hub: no listen streams; keeping %s",
	    lim->relay->dir);
	while (!hub_stop && getppid() == sup)
		(void)sigsuspend(&waitmask);
	if (getppid() != sup)
		orphaned(lim, sup);
	return 0;
}

/*
 * The hub's descriptors in its epoll `h->ep': the hub socket (data
 * NULL), the workers' channel (h->l), the tick (&h->timer), the bus and
 * the relay port; its bus client and its sealer.  0, or -1 (logged).
 */
static int
hub_open(struct hub *h, struct wymcp_server *srv)
{
	const struct front_limits *lim = h->lim;
	struct epoll_event	 ev;
	struct itimerspec	 its;
	struct front_bus_cb	 cb;

	if ((h->ep = epoll_create1(EPOLL_CLOEXEC)) == -1 ||
	    (h->timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK |
	    TFD_CLOEXEC)) == -1)
		goto fail;
	memset(&its, 0, sizeof(its));
	its.it_interval.tv_sec = its.it_value.tv_sec = HUB_TICK_MS / 1000;
	(void)timerfd_settime(h->timer, 0, &its, NULL);
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.ptr = NULL;		/* the hub's socket */
	if (epoll_ctl(h->ep, EPOLL_CTL_ADD, lim->hub_fd, &ev) == -1)
		goto fail;
	ev.data.ptr = h->l;		/* the workers' channel */
	if (epoll_ctl(h->ep, EPOLL_CTL_ADD, h->l->own_fd, &ev) == -1)
		goto fail;
	ev.data.ptr = &h->timer;
	(void)epoll_ctl(h->ep, EPOLL_CTL_ADD, h->timer, &ev);
	cb.take = hub_bus_take;
	cb.holding = hub_bus_holding;
	cb.again = hub_bus_again;
	cb.gap = hub_bus_gap;
	cb.arg = h;
	h->ctl = front_control_new(srv, lim->keyfile);	/* cb.gap's */
	h->bus = front_bus_new(lim->bus_uri, lim->bus, h->l, h->ep, &cb);
	if ((h->relay = front_relay_port_start(lim)) != NULL) {
		ev.data.ptr = &h->relay;
		if (epoll_ctl(h->ep, EPOLL_CTL_ADD,
		    front_relay_port_fd(h->relay), &ev) == -1)
			goto fail;
	}
	return 0;
fail:
	front_log(WYMCP_LOG_ERR, "hub: %s", strerror(errno));
	return -1;
}

/* One event of the hub's epoll. */
static void
hub_event(struct hub *h, const struct epoll_event *e)
{
	struct stream	*s;
	uint64_t	 ticks;

	if (e->data.ptr == NULL)
		take(h, h->lim->hub_fd, FRONT_SRC_SOCKET);
	else if (e->data.ptr == h->l)
		take(h, h->l->own_fd, FRONT_SRC_WORKER);
	else if (e->data.ptr == &h->timer) {
		if (read(h->timer, &ticks, sizeof(ticks)) < 0) {
			/* Not due yet (EAGAIN): tick anyway. */
		}
		tick(h);
		front_bus_tick(h->bus);
		front_control_tick(h->ctl);
		if (h->relay != NULL)
			front_relay_port_tick(h->relay);
	} else if (e->data.ptr == &h->relay)
		front_relay_port_ready(h->relay);
	else if (h->bus != NULL && e->data.ptr == h->bus)
		front_bus_ready(h->bus);
	else {
		s = e->data.ptr;
		if ((e->events & EPOLLOUT) && hub_flush(h, s) != 0)
			return;
		/* A stream dropped above in this batch: skip. */
		if (e->events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
			readable(h, s, e->events);
	}
}

/*
 * The hub: a child of the supervisor (prefork.c) with the hub's socket
 * in lim->hub_fd and the workers' channel in lim->listen->own_fd, or
 * without them keeper(); `sup' is the supervisor's pid, `srv' its
 * server (the state keys that seal stream control between hosts).
 * Returns an exit status.
 */
int
front_hub(const struct front_limits *lim, struct front_board *board,
    pid_t sup, struct wymcp_server *srv)
{
	struct epoll_event	 evs[HUB_EVENTS];
	struct hub		 h;
	struct pend		*p;
	struct qev		*q;
	sigset_t		 waitmask;
	int			 i, n, status = 0, gone;

	memset(&h, 0, sizeof(h));
	h.lim = lim;
	h.l = lim->listen;
	/* ps(1) and top(1) tell it from the workers. */
	(void)prctl(PR_SET_NAME, "wymcp-hub", 0, 0, 0);
	if (h.l == NULL || lim->hub_fd < 0)
		return keeper(lim, sup);
	if (front_catch_stop(hub_onstop, &waitmask) == -1)
		return 1;
	fd_raise(h.l->max + (lim->relay_fd >= 0 ?
	    2 * FRONT_RELAY_CONNS_MAX : 0));
	if (hub_open(&h, srv) == -1)
		return 1;
	h.now = front_now_ms();
	h.fd_base = fd_count() + (lim->relay_fd >= 0 ?
	    2 * FRONT_RELAY_CONNS_MAX : 0);
	fd_check(&h);
	srandom((unsigned int)(getpid() ^ front_now_ms()));
	__atomic_store_n(&h.l->hub_up, 1, __ATOMIC_RELEASE);
	front_log(WYMCP_LOG_DEBUG, "hub ready on %s", h.l->path);
	/* Gone before the parent-death signal was set: stop now. */
	if (getppid() != sup)
		hub_stop = SIGTERM;
	while (!hub_stop) {
		n = epoll_pwait(h.ep, evs, HUB_EVENTS, h.qhead != NULL ? 0 :
		    -1, &waitmask);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			front_log(WYMCP_LOG_ERR, "hub: epoll_wait: %s",
			    strerror(errno));
			status = 1;
			break;
		}
		h.now = front_now_ms();
		for (i = 0; i < n; i++)
			hub_event(&h, &evs[i]);
		(void)drain(&h);
		shed(&h);
		hub_flush_dirty(&h);
		hub_bury(&h);
		board->served = h.n;
	}
	if ((gone = getppid() != sup))
		orphaned(lim, sup);
	__atomic_store_n(&h.l->hub_up, 0, __ATOMIC_RELEASE);
	front_bus_free(h.bus);
	h.bus = NULL;
	stop_all(&h, gone ? HUB_ORPHAN_MS : HUB_STOP_MS);
	front_relay_port_stop(h.relay);
	while (h.qhead != NULL) {	/* every stream ended: none missed */
		q = h.qhead;
		h.qhead = q->next;
		free(q);
	}
	free(h.index);
	while ((p = h.pend) != NULL) {
		h.pend = p->next;
		hub_pend_free(p);
	}
	front_control_free(h.ctl);
	/* Killed while the hub was stopping already. */
	if (getppid() != sup)
		orphaned(lim, sup);
	front_log(WYMCP_LOG_DEBUG, "hub stopping");
	return status;
}
