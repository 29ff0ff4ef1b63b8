/*
 * hub.c - the hub: one event-driven process per instance that holds
 * every listen stream (subscriptions/listen), so that no worker waits
 *
 * A worker that receives a valid listen asks for a slot
 * (front_listen_hold(): --max-listeners for the instance, and a share
 * per principal, --max-listeners-per-principal), writes the head and
 * the acknowledgement, and hands the FastCGI connection to the hub
 * (front_listen_hand(): SCM_RIGHTS over the hub's datagram socket, with
 * one line of JSON saying what the stream wants); then it is free.
 * Events come to the same socket (front_publish(): what a tool's run
 * published, from workers and task runners).  The hub (epoll, nothing
 * blocks) writes each event to the streams that asked for it as
 * FastCGI STDOUT records of SSE frames tagged with the subscription id,
 * an SSE comment after HUB_QUIET_MS without a frame so that proxies do
 * not cut idle streams, and the end (the listen's result, the end of
 * stdout, FCGI_END_REQUEST) at --listen-max-age or when it is told to
 * stop.  It reads what the web server sends on each connection and
 * drops the stream when the web server closes it or aborts the request
 * (its client went away), and drops a stream whose client does not
 * read once HUB_BUF_MAX bytes wait for it: nothing else slows down.
 * It also serves --relay-listen, answers from other hosts for this
 * instance's held questions (relay.c, front_relay_port_*()), so that
 * no worker waits on a relay connection.
 *
 * The socket is made and bound by the supervisor before the first
 * fork and kept open by it, so a hub that dies is replaced without
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
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>

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

#include <fcgiapp.h>
#include <json-c/json.h>

#include "front.h"
#include "store/backend.h"

#define HUB_MSG_MAX	(64 * 1024)	/* a handoff or an event */
#define HUB_BUF_MAX	(256 * 1024)	/* bytes waiting for one client */
#define HUB_QUIET_MS	15000		/* a comment after this silence */
#define HUB_TICK_MS	1000
#define HUB_STOP_MS	2000		/* to flush the ends when stopping */
#define HUB_ORPHAN_MS	500		/* ... when the supervisor is gone */
#define ORPHAN_TRIES	50		/* a relay directory not yet empty */
#define ORPHAN_WAIT_MS	10		/* ... is tried again after this */
#define HUB_EVENTS	256		/* epoll events per wait */
#define SEND_WAIT_MS	100		/* a full queue: wait this much */

#define FCGI_VERSION_1		1
#define FCGI_ABORT_REQUEST	2
#define FCGI_END_REQUEST	3
#define FCGI_STDOUT		6
#define FCGI_HEADER_LEN		8
#define FCGI_CONTENT_MAX	65535

#define SUB_ID		"io.modelcontextprotocol/subscriptionId"

#define BUS_CHANNEL	"wymcp_events"	/* the bus (below) */
#define BUS_PAYLOAD_MAX	7999		/* NOTIFY's limit, less one */
#define BUS_QUEUE_MAX	4096		/* events waiting to be sent */
#define BUS_BACKOFF_MS	200
#define BUS_BACKOFF_MAX	5000

/* ------------------------------------------------ the shared page */

/*
 * Make the shared page and the hub's socket: beside the FastCGI socket
 * `sockpath' (PATH.hub, mode 0600: what runs as the user the processes
 * run as, or root, may publish events there: wymcp-fcgi --publish), or
 * without one in a private directory.  0, or -1 (logged: listen streams
 * are then not held, and nothing is pushed).
 */
/* A datagram socket bound at `path' (mode 0600), or -1. */
static int
bind_dgram(const char *path)
{
	struct sockaddr_un	 sun;
	int			 fd, sz = 4 * 1024 * 1024;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(sun.sun_path, path, strlen(path));
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0)) == -1)
		return -1;
	/* A hub socket left by a process that was killed: ours now. */
	(void)unlink(path);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    chmod(path, 0600) == -1) {
		close(fd);
		return -1;
	}
	/* Room for a burst of handoffs (root may pass rmem_max). */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) == -1)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	return fd;
}

int
front_listen_setup(struct front_limits *lim, int max, int per,
    unsigned int max_age, const char *sockpath)
{
	struct front_listen	*l;
	const char		*tmp;
	char			 dir[96];
	int			 fd = -1;

	lim->listen = NULL;
	lim->hub_fd = -1;
	l = mmap(NULL, sizeof(*l), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (l == MAP_FAILED) {
		front_log(WYMCP_LOG_ERR, "mmap: %s: listen streams are not "
		    "held", strerror(errno));
		return -1;
	}
	memset(l, 0, sizeof(*l));
	if ((l->shares = front_shares_new(max)) == NULL) {
		front_log(WYMCP_LOG_ERR, "shares per principal (%zu bytes): "
		    "%s: listen streams are not held", front_shares_bytes(max),
		    strerror(errno));
		(void)munmap(l, sizeof(*l));
		return -1;
	}
	if (sockpath != NULL && strlen(sockpath) + 4 < sizeof(l->path)) {
		snprintf(l->path, sizeof(l->path), "%s.hub", sockpath);
		if ((fd = bind_dgram(l->path)) == -1)
			front_log(WYMCP_LOG_INFO, "hub socket %s: %s: taking a "
			    "private one (wymcp-fcgi --publish then needs "
			    "--bus)", l->path, strerror(errno));
	}
	if (fd == -1) {
		if ((tmp = getenv("TMPDIR")) == NULL || *tmp == '\0')
			tmp = "/tmp";
		snprintf(dir, sizeof(dir), "%s/wymcp-hub.XXXXXX", tmp);
		if (mkdtemp(dir) == NULL) {
			front_log(WYMCP_LOG_ERR, "mkdtemp %s: %s: listen "
			    "streams are not held", dir, strerror(errno));
			goto fail;
		}
		snprintf(l->dir, sizeof(l->dir), "%s", dir);
		snprintf(l->path, sizeof(l->path), "%s/hub", dir);
		if ((fd = bind_dgram(l->path)) == -1) {
			front_log(WYMCP_LOG_ERR, "hub socket %s: %s: listen "
			    "streams are not held", l->path, strerror(errno));
			(void)rmdir(dir);
			goto fail;
		}
	}
	l->max = max;
	l->per = per;
	l->max_age = max_age;
	lim->listen = l;
	lim->hub_fd = fd;
	return 0;
fail:
	front_shares_free(l->shares);
	(void)munmap(l, sizeof(*l));
	return -1;
}

/* Remove the socket and its directory (the supervisor, at the end). */
void
front_listen_cleanup(const struct front_limits *lim)
{
	if (lim->listen == NULL)
		return;
	(void)unlink(lim->listen->path);
	if (lim->listen->dir[0] != '\0')
		(void)rmdir(lim->listen->dir);
}

/* The hub died: its streams are gone, and with them their slots. */
void
front_listen_hub_died(const struct front_limits *lim)
{
	struct front_listen	*l = lim->listen;
	int			 n;

	if (l == NULL)
		return;
	n = __atomic_exchange_n(&l->hub_held, 0, __ATOMIC_ACQ_REL);
	__atomic_sub_fetch(&l->held, n, __ATOMIC_ACQ_REL);
	front_shares_hub_died(l->shares);
	__atomic_store_n(&l->lists_streams, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&l->resource_streams, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&l->hub_up, 0, __ATOMIC_RELAXED);
}

/* ---------------------------------------------- the worker's side */

/* This worker's reservation for the request in flight. */
static int		 reserved;	/* a slot is ours */
static int		 handed;	/* ... and the hub has it */
static unsigned char	 reserved_share[FRONT_SHARE_LEN]; /* its principal */
static int		 sendfd = -1;	/* unbound: to the hub's path */

/* Take back a share and a slot; `hub': the hub's own counts too. */
static void
unreserve(struct front_listen *l, const unsigned char *d, int hub)
{
	front_share_give(l->shares, d, hub);
	if (hub)
		__atomic_sub_fetch(&l->hub_held, 1, __ATOMIC_ACQ_REL);
	__atomic_sub_fetch(&l->held, 1, __ATOMIC_ACQ_REL);
}

/*
 * A slot for one more stream: 0, -1 when the instance holds
 * --max-listeners, -2 when the principal holds its share.  Counted on
 * the status page.
 */
int
front_listen_hold(const struct front_limits *lim, FCGX_Request *req,
    const struct wymcp_listen *wl)
{
	struct front_listen	*l = lim->listen;
	unsigned char		 d[FRONT_SHARE_LEN];
	int			 rc;

	if (l == NULL || !__atomic_load_n(&l->hub_up, __ATOMIC_ACQUIRE))
		return -1;
	(void)req;
	if (__atomic_add_fetch(&l->held, 1, __ATOMIC_ACQ_REL) > l->max) {
		__atomic_sub_fetch(&l->held, 1, __ATOMIC_ACQ_REL);
		__atomic_add_fetch(&l->refused, 1, __ATOMIC_RELAXED);
		return -1;
	}
	/* The principal's own share (share.c: exact, never a bucket's). */
	front_share_digest(l->shares, wl->who, d);
	if ((rc = front_share_take(l->shares, d, l->per)) != 1) {
		__atomic_sub_fetch(&l->held, 1, __ATOMIC_ACQ_REL);
		__atomic_add_fetch(&l->refused, 1, __ATOMIC_RELAXED);
		return rc == 0 ? -2 : -1;
	}
	reserved = 1;
	handed = 0;
	memcpy(reserved_share, d, sizeof(d));
	return 0;
}

/*
 * Send `msg' (and the descriptor `fd', or -1) to the hub, waiting up
 * to SEND_WAIT_MS for room in its queue.  0, or -1.
 */
static int
to_hub(const char *path, const char *msg, size_t len, int fd)
{
	struct sockaddr_un	 sun;
	struct msghdr		 mh;
	struct iovec		 iov;
	struct pollfd		 pfd;
	union {
		struct cmsghdr	 h;
		char		 buf[CMSG_SPACE(sizeof(int))];
	} cm;
	struct cmsghdr		*c;
	long long		 until;

	if (sendfd == -1 && (sendfd = socket(AF_UNIX, SOCK_DGRAM |
	    SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	memset(&mh, 0, sizeof(mh));
	iov.iov_base = (void *)msg;
	iov.iov_len = len;
	mh.msg_name = &sun;
	mh.msg_namelen = sizeof(sun);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (fd >= 0) {
		memset(&cm, 0, sizeof(cm));
		mh.msg_control = cm.buf;
		mh.msg_controllen = sizeof(cm.buf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	until = front_now_ms() + SEND_WAIT_MS;
	while (sendmsg(sendfd, &mh, MSG_NOSIGNAL) == -1) {
		if ((errno != EAGAIN && errno != EWOULDBLOCK &&
		    errno != EINTR) || front_now_ms() >= until)
			return -1;
		pfd.fd = sendfd;
		pfd.events = POLLOUT;
		(void)poll(&pfd, 1, 10);
	}
	return 0;
}

/*
 * Hand the request's connection to the hub: what the stream wants as
 * JSON, the descriptor beside it.  0 when the hub has it (the worker
 * then lets go of the connection without ending the request:
 * front_listen_done()), -1 when not.
 */
int
front_listen_hand(const struct front_limits *lim, FCGX_Request *req,
    const struct wymcp_listen *wl)
{
	struct json_object	*o, *a;
	const char		*s;
	size_t			 i;
	int			 rc = -1;

	if (!reserved || lim->listen == NULL || req->ipcFd < 0 ||
	    (o = json_object_new_object()) == NULL)
		return -1;
	json_object_object_add(o, "rid", json_object_new_int(req->requestId));
	if (wl->id != NULL)
		json_object_object_add(o, "id", json_object_new_string(wl->id));
	if (wl->session != NULL)
		json_object_object_add(o, "session",
		    json_object_new_string(wl->session));
	if (wl->who != NULL)
		json_object_object_add(o, "who",
		    json_object_new_string(wl->who));
	json_object_object_add(o, "lists", json_object_new_int(wl->lists));
	if (wl->mount != NULL)
		json_object_object_add(o, "mount",
		    json_object_new_string(wl->mount));
	if (wl->end != NULL)
		json_object_object_add(o, "end",
		    json_object_new_string(wl->end));
	if (wl->nuris > 0) {
		a = json_object_new_array();
		for (i = 0; i < wl->nuris; i++)
			json_object_array_add(a,
			    json_object_new_string(wl->uris[i]));
		json_object_object_add(o, "uris", a);
	}
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	if (s != NULL && strlen(s) < HUB_MSG_MAX &&
	    to_hub(lim->listen->path, s, strlen(s), req->ipcFd) == 0)
		rc = 0;
	json_object_put(o);
	if (rc == 0)
		handed = 1;
	else
		front_log(WYMCP_LOG_WARNING, "could not hand a listen stream "
		    "to the hub: %s", strerror(errno));
	return rc;
}

/*
 * The request is over: a reservation the hub did not get is given
 * back.  Returns 1 when the hub has the connection: the caller lets go
 * of it without writing the end of the request (the hub does).
 */
int
front_listen_done(const struct front_limits *lim)
{
	int	 h = handed;

	if (reserved && !handed && lim->listen != NULL)
		unreserve(lim->listen, reserved_share, 0);
	reserved = handed = 0;
	return h;
}

/* wymcp_publish_fn: an event of a run, to the hub. */
void
front_publish(void *arg, const char *event, size_t len)
{
	const struct front_listen *l = arg;

	if (l == NULL || len >= HUB_MSG_MAX)
		return;
	if (to_hub(l->path, event, len, -1) != 0)
		front_log(WYMCP_LOG_WARNING, "an event could not reach the "
		    "hub: %s", strerror(errno));
}

/*
 * The event `spec' of wymcp-fcgi --publish, as the hub takes it: JSON
 * as wymcp_server_set_publish() documents it, or "updated URI", or
 * "list KIND[,KIND...]" (tools, prompts, resources).  A new string, or
 * NULL with why in `err'.
 */
static char *
event_of(const char *spec, char *err, size_t errlen)
{
	static const char *const kinds[] = { "tools", "prompts",
		"resources" };
	struct json_object	*o = NULL, *k, *v, *a;
	const char		*p, *w;
	char			*out = NULL;
	size_t			 i, j, n;

	if (*spec == '{')
		o = json_tokener_parse(spec);
	else if (strncmp(spec, "updated ", 8) == 0 && spec[8] != '\0') {
		o = json_object_new_object();
		json_object_object_add(o, "v", json_object_new_int(1));
		json_object_object_add(o, "k", json_object_new_string(
		    "updated"));
		json_object_object_add(o, "uri",
		    json_object_new_string(spec + 8));
	} else if (strncmp(spec, "list ", 5) == 0) {
		o = json_object_new_object();
		a = json_object_new_array();
		json_object_object_add(o, "v", json_object_new_int(1));
		json_object_object_add(o, "k", json_object_new_string("list"));
		for (p = spec + 5; *p != '\0'; p += n + (p[n] == ',')) {
			n = strcspn(p, ",");
			json_object_array_add(a,
			    json_object_new_string_len(p, (int)n));
		}
		json_object_object_add(o, "lists", a);
	}
	if (o == NULL || !json_object_object_get_ex(o, "k", &k)) {
		snprintf(err, errlen, "not an event: use 'updated URI', "
		    "'list tools,prompts,resources' or the JSON of "
		    "wymcp-fcgi(8)");
		goto done;
	}
	w = json_object_get_string(k);
	if (strcmp(w, "updated") == 0) {
		if (!json_object_object_get_ex(o, "uri", &v) ||
		    !json_object_is_type(v, json_type_string) ||
		    json_object_get_string_len(v) == 0 ||
		    json_object_get_string_len(v) > 2048) {
			snprintf(err, errlen, "an update names a URI of 1 to "
			    "2048 bytes");
			goto done;
		}
	} else if (strcmp(w, "list") == 0) {
		if (!json_object_object_get_ex(o, "lists", &a) ||
		    !json_object_is_type(a, json_type_array) ||
		    json_object_array_length(a) == 0) {
			snprintf(err, errlen, "a list change names its lists");
			goto done;
		}
		for (i = 0; i < json_object_array_length(a); i++) {
			for (j = 0; j < 3; j++)
				if (strcmp(json_object_get_string(
				    json_object_array_get_idx(a, i)),
				    kinds[j]) == 0)
					break;
			if (j == 3) {
				snprintf(err, errlen, "no list '%s': tools, "
				    "prompts or resources",
				    json_object_get_string(
				    json_object_array_get_idx(a, i)));
				goto done;
			}
		}
	} else {
		snprintf(err, errlen, "no event kind '%s': updated or list",
		    w);
		goto done;
	}
	if ((w = json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN)) == NULL || (out = strdup(w)) == NULL)
		snprintf(err, errlen, "out of memory");
done:
	json_object_put(o);
	return out;
}

/*
 * wymcp-fcgi --publish: say `spec' to every listener: NOTIFY on the
 * bus `bus' (through its back end's `ops'), or, without one, to the
 * hub of the instance whose hub socket is `hubpath'.  0, or -1 with
 * why in `err'.
 */
int
front_publish_cmd(const char *spec, const struct wymcp__bus_ops *ops,
    const char *bus, const char *hubpath, char *err, size_t errlen)
{
	char		*ev;
	int		 rc = -1;

	if ((ev = event_of(spec, err, errlen)) == NULL)
		return -1;
	if (strlen(ev) > BUS_PAYLOAD_MAX) {
		snprintf(err, errlen, "the event is longer than %d bytes",
		    BUS_PAYLOAD_MAX);
		goto done;
	}
	if (bus != NULL)
		rc = ops->publish(bus, BUS_CHANNEL, ev, err, errlen);
	else if (hubpath == NULL)
		snprintf(err, errlen, "say where: --bus postgresql://..., or "
		    "--listen unix:PATH of the instance (its hub is PATH.hub)");
	else if (to_hub(hubpath, ev, strlen(ev), -1) == 0)
		rc = 0;
	else
		snprintf(err, errlen, "%s: %s", hubpath, strerror(errno));
done:
	free(ev);
	return rc;
}

/* ------------------------------------------------------- the hub */

struct stream {
	struct stream	*prev, *next;	/* in the order they came */
	int		 fd;
	int		 rid;		/* its FastCGI request id */
	char		*id;		/* the subscription id, JSON; NULL:
					   a 2025-11-25 GET stream */
	char		*session;	/* ... its session's key */
	char		*who;		/* principal, or "addr:..." */
	char		*end;		/* the listen's result, JSON */
	char		*mount;		/* WYMCP_TOOLS, or NULL */
	char		**uris;
	size_t		 nuris;
	int		 lists;
	unsigned char	 share[FRONT_SHARE_LEN]; /* its principal's */
	long long	 started, wrote;	/* ms */
	char		*out;		/* waiting to be written */
	size_t		 outlen, outcap;
	int		 ending;	/* the end is written: then close */
	int		 dead;		/* dropped: freed after this turn */
	int		 pollout;	/* EPOLLOUT is on */
	unsigned char	 hdr[FCGI_HEADER_LEN];
	size_t		 hdrlen;	/* header bytes read */
	size_t		 skip;		/* content and padding to skip */
};

/*
 * The bus (--bus postgresql://...): one connection, made without
 * blocking through pg.so's bus operations (store/backend.h: libpq's
 * PQconnectStart and the rest), that LISTENs on BUS_CHANNEL.  While
 * it is up, the events of this instance are NOTIFYed, one query at a
 * time (queued), and every event is dispatched when its notification
 * comes back, this hub's own included: one path, one order for every
 * host.
 * While it is down, this instance's events are dispatched at once (its
 * listeners miss only other hosts' events), the connection is made
 * again after a back-off (BUS_BACKOFF_MS doubling to BUS_BACKOFF_MAX),
 * and once it is back every stream that was open meanwhile is ended
 * gracefully, so that its client listens again and reads the lists
 * afresh instead of trusting a stream that missed events.
 */

enum bus_state { BUS_OFF, BUS_WAIT, BUS_CONNECTING, BUS_LISTENING,
	BUS_UP };

struct bus_msg {
	struct bus_msg	*next;
	size_t		 len;
	char		 text[];
};

struct bus {
	const char	*uri;		/* NULL: no bus */
	enum bus_state	 state;
	const struct wymcp__bus_ops *ops;	/* pg.so's */
	void		*db;		/* its connection, or NULL */
	int		 fd;		/* in epoll, or -1 */
	unsigned int	 events;	/* what epoll waits for on fd */
	int		 busy;		/* a query is in flight */
	int		 missed;	/* down since streams were opened */
	int		 warned;	/* the outage is logged */
	long long	 retry_at;	/* ms */
	int		 backoff;	/* ms */
	struct bus_msg	*head, *tail;	/* to NOTIFY */
	size_t		 queued;
};

/*
 * A 2025-11-25 session's resources/subscribe while no stream of it is
 * held here: kept for its next GET, PEND_MS at most, PEND_MAX sessions
 * (the oldest forgotten first).
 */
#define PEND_MS		3600000
#define PEND_MAX	1024
struct pend {
	struct pend	*next;
	char		*session;
	char		**uris;
	size_t		 nuris;
	long long	 at;		/* ms */
};

struct hub {
	const struct front_limits *lim;
	struct front_listen	*l;
	int			 ep;
	int			 timer;
	struct stream		*first, *last;
	struct stream		*graves;	/* dropped this turn */
	size_t			 n;
	struct bus		 bus;
	struct pend		*pend;		/* newest first */
	size_t			 npend;
	struct front_relay_port	*relay;		/* --relay-listen, or NULL */
};

static volatile sig_atomic_t	 hub_stop;

static void
hub_onstop(int sig)
{
	hub_stop = sig;
}

/*
 * Forget stream `s': close it, give its slot back.  Its memory is freed
 * after the turn (bury()): events of this turn may still name it.
 */
static void
drop(struct hub *h, struct stream *s, const char *why)
{
	if (s->dead)
		return;
	front_log(WYMCP_LOG_DEBUG, "hub: listen %s ends: %s",
	    s->id != NULL ? s->id : s->session, why);
	(void)epoll_ctl(h->ep, EPOLL_CTL_DEL, s->fd, NULL);
	close(s->fd);
	if (s->prev != NULL)
		s->prev->next = s->next;
	else
		h->first = s->next;
	if (s->next != NULL)
		s->next->prev = s->prev;
	else
		h->last = s->prev;
	h->n--;
	unreserve(h->l, s->share, 1);
	if (s->lists != 0)
		__atomic_sub_fetch(&h->l->lists_streams, 1, __ATOMIC_RELAXED);
	if (s->nuris > 0)
		__atomic_sub_fetch(&h->l->resource_streams, 1,
		    __ATOMIC_RELAXED);
	s->dead = 1;
	s->next = h->graves;
	h->graves = s;
}

/* Free the streams dropped this turn. */
static void
bury(struct hub *h)
{
	struct stream	*s;
	size_t		 i;

	while ((s = h->graves) != NULL) {
		h->graves = s->next;
		for (i = 0; i < s->nuris; i++)
			free(s->uris[i]);
		free(s->uris);
		free(s->id);
		free(s->session);
		free(s->who);
		free(s->end);
		free(s->mount);
		free(s->out);
		free(s);
	}
}

/*
 * Write what waits for `s' (without blocking).  0, or -1 when the
 * stream is gone (dropped).
 */
static int
flush(struct hub *h, struct stream *s)
{
	struct epoll_event	 ev;
	ssize_t			 n;
	size_t			 off = 0;

	if (s->dead)
		return -1;
	while (off < s->outlen) {
		n = send(s->fd, s->out + off, s->outlen - off,
		    MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		drop(h, s, "the web server closed the connection");
		return -1;
	}
	if (off > 0 && off < s->outlen)
		memmove(s->out, s->out + off, s->outlen - off);
	s->outlen -= off;
	/* An idle stream keeps no buffer: thousands of them wait. */
	if (s->outlen == 0 && s->out != NULL) {
		free(s->out);
		s->out = NULL;
		s->outcap = 0;
	}
	if ((s->outlen > 0) != s->pollout) {
		s->pollout = s->outlen > 0;
		memset(&ev, 0, sizeof(ev));
		ev.events = EPOLLIN | EPOLLRDHUP | (s->pollout ? EPOLLOUT : 0);
		ev.data.ptr = s;
		(void)epoll_ctl(h->ep, EPOLL_CTL_MOD, s->fd, &ev);
	}
	if (s->outlen == 0 && s->ending) {
		__atomic_add_fetch(&h->l->ended, 1, __ATOMIC_RELAXED);
		drop(h, s, "ended");
		return -1;
	}
	return 0;
}

/* Queue `len' bytes for `s'; -1 (dropped) past HUB_BUF_MAX. */
static int
queue(struct hub *h, struct stream *s, const void *p, size_t len)
{
	char	*nb;
	size_t	 cap;

	if (s->outlen + len > HUB_BUF_MAX) {
		__atomic_add_fetch(&h->l->dropped, 1, __ATOMIC_RELAXED);
		front_log(WYMCP_LOG_INFO, "hub: listen %s dropped: its client "
		    "does not read (%d bytes waiting)", s->id != NULL ? s->id :
		    s->session, HUB_BUF_MAX);
		drop(h, s, "the client does not read");
		return -1;
	}
	if (s->outlen + len > s->outcap) {
		cap = s->outcap == 0 ? 1024 : s->outcap;
		while (cap < s->outlen + len)
			cap *= 2;
		if ((nb = realloc(s->out, cap)) == NULL) {
			drop(h, s, "out of memory");
			return -1;
		}
		s->out = nb;
		s->outcap = cap;
	}
	memcpy(s->out + s->outlen, p, len);
	s->outlen += len;
	return 0;
}

/* Queue FastCGI records of `type' carrying `len' bytes of `p'. */
static int
records(struct hub *h, struct stream *s, int type, const char *p,
    size_t len)
{
	unsigned char	 hd[FCGI_HEADER_LEN];
	size_t		 k;

	do {
		k = len > FCGI_CONTENT_MAX ? FCGI_CONTENT_MAX : len;
		hd[0] = FCGI_VERSION_1;
		hd[1] = (unsigned char)type;
		hd[2] = (unsigned char)(s->rid >> 8);
		hd[3] = (unsigned char)s->rid;
		hd[4] = (unsigned char)(k >> 8);
		hd[5] = (unsigned char)k;
		hd[6] = 0;
		hd[7] = 0;
		if (queue(h, s, hd, sizeof(hd)) != 0 ||
		    (k > 0 && queue(h, s, p, k) != 0))
			return -1;
		p += k;
		len -= k;
	} while (len > 0);
	return 0;
}

/* One SSE frame (`data' a JSON text, or a comment) to `s', written. */
static int
frame(struct hub *h, struct stream *s, const char *data, int comment)
{
	char	 small[1024], *buf = small;
	size_t	 n, len = strlen(data) + 32;
	int	 rc;

	if (len > sizeof(small) && (buf = malloc(len)) == NULL)
		return -1;
	n = (size_t)snprintf(buf, len, comment ? ": %s\n\n" :
	    "event: message\ndata: %s\n\n", data);
	rc = records(h, s, FCGI_STDOUT, buf, n);
	if (buf != small)
		free(buf);
	if (rc != 0)
		return -1;
	s->wrote = front_now_ms();
	if (!comment)
		__atomic_add_fetch(&h->l->frames, 1, __ATOMIC_RELAXED);
	return flush(h, s);
}

/*
 * End `s' gracefully: the listen's result (tagged), the end of stdout,
 * FCGI_END_REQUEST; closed once written.
 */
static int
end(struct hub *h, struct stream *s)
{
	unsigned char	 body[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };

	if (s->ending)
		return 0;
	if (s->end != NULL && frame(h, s, s->end, 0) != 0)
		return -1;
	s->ending = 1;
	if (records(h, s, FCGI_STDOUT, "", 0) != 0 ||
	    records(h, s, FCGI_END_REQUEST, (const char *)body,
	    sizeof(body)) != 0)
		return -1;
	return flush(h, s);
}

/* Is `name' one of the words of the mount list `mount'? */
static int
mounted(const char *mount, const char *name)
{
	size_t	 n = strlen(name), k;

	while (*mount != '\0') {
		mount += strspn(mount, " \t");
		k = strcspn(mount, " \t");
		if (k == n && strncmp(mount, name, n) == 0)
			return 1;
		mount += k;
	}
	return 0;
}

/* Does a list event that names `tools' (or none) reach `s'? */
static int
sees(const struct stream *s, struct json_object *tools)
{
	size_t	 i;

	if (tools == NULL || s->mount == NULL)
		return 1;
	for (i = 0; i < json_object_array_length(tools); i++)
		if (mounted(s->mount, json_object_get_string(
		    json_object_array_get_idx(tools, i))))
			return 1;
	return 0;
}

/* The notification `method' with params {extra,"_meta":{...}} to `s'. */
static int
notify(struct hub *h, struct stream *s, const char *method,
    const char *extra)
{
	char	 small[1024], *buf = small;
	size_t	 len = strlen(method) + strlen(extra) + 96 +
		    (s->id != NULL ? strlen(s->id) : 0);
	int	 rc;

	if (len > sizeof(small) && (buf = malloc(len)) == NULL)
		return -1;
	if (s->id == NULL)		/* 2025-11-25: no subscription */
		snprintf(buf, len, "{\"jsonrpc\":\"2.0\",\"method\":\"%s\","
		    "\"params\":{%s}}", method, extra);
	else
		snprintf(buf, len, "{\"jsonrpc\":\"2.0\",\"method\":\"%s\","
		    "\"params\":{%s%s\"_meta\":{\"" SUB_ID "\":%s}}}",
		    method, extra, *extra != '\0' ? "," : "", s->id);
	rc = frame(h, s, buf, 0);
	if (buf != small)
		free(buf);
	return rc;
}

/* Add `uri' to the URIs `*uris' (`*n' of them); 0, or -1 when full. */
static int
uri_add(char ***uris, size_t *n, const char *uri)
{
	char	**nu, *c;
	size_t	 i;

	for (i = 0; i < *n; i++)
		if (strcmp((*uris)[i], uri) == 0)
			return 0;
	if (*n >= WYMCP_LISTEN_URIS_MAX || (c = strdup(uri)) == NULL)
		return -1;
	if ((nu = reallocarray(*uris, *n + 1, sizeof(*nu))) == NULL) {
		free(c);
		return -1;
	}
	*uris = nu;
	(*uris)[(*n)++] = c;
	return 0;
}

/* Take `uri' from the URIs `uris' (`*n' of them). */
static void
uri_del(char **uris, size_t *n, const char *uri)
{
	size_t	 i;

	for (i = 0; i < *n; i++)
		if (strcmp(uris[i], uri) == 0) {
			free(uris[i]);
			uris[i] = uris[--*n];
			return;
		}
}

static void
pend_free(struct pend *p)
{
	size_t	 i;

	for (i = 0; i < p->nuris; i++)
		free(p->uris[i]);
	free(p->uris);
	free(p->session);
	free(p);
}

/* The pending subscriptions of `session', made when `make'; or NULL. */
static struct pend *
pend_of(struct hub *h, const char *session, int make)
{
	struct pend	*p, **pp;

	for (p = h->pend; p != NULL; p = p->next)
		if (strcmp(p->session, session) == 0)
			return p;
	if (!make || (p = calloc(1, sizeof(*p))) == NULL ||
	    (p->session = strdup(session)) == NULL) {
		free(p);
		return NULL;
	}
	p->at = front_now_ms();
	p->next = h->pend;
	h->pend = p;
	if (++h->npend > PEND_MAX) {
		/* Forget the oldest: the last of the list. */
		for (pp = &h->pend; (*pp)->next != NULL; pp = &(*pp)->next)
			continue;
		pend_free(*pp);
		*pp = NULL;
		h->npend--;
	}
	return p;
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
		unreserve(h->l, d, 0);
	json_object_put(o);
	__atomic_add_fetch(&h->l->lost, 1, __ATOMIC_RELAXED);
	front_log(WYMCP_LOG_ERR, "hub: a stream was lost: no descriptor "
	    "left (raise the open-file limit, or lower --max-listeners)");
}

/* A held session stream takes what its session subscribed to before. */
static int
pending_take(struct hub *h, struct stream *s)
{
	struct pend	*p, **pp;
	size_t		 i;
	int		 rc = 0;

	for (pp = &h->pend; (p = *pp) != NULL; pp = &p->next)
		if (strcmp(p->session, s->session) == 0)
			break;
	if (p == NULL)
		return 0;
	for (i = 0; i < p->nuris; i++)
		if (uri_add(&s->uris, &s->nuris, p->uris[i]) != 0)
			rc = -1;
	*pp = p->next;
	pend_free(p);
	h->npend--;
	return rc;
}

/* Forget pending subscriptions older than PEND_MS. */
static void
pending_expire(struct hub *h)
{
	struct pend	*p, **pp;
	long long	 now = front_now_ms();

	for (pp = &h->pend; (p = *pp) != NULL; )
		if (now - p->at >= PEND_MS) {
			*pp = p->next;
			pend_free(p);
			h->npend--;
		} else
			pp = &p->next;
}

/*
 * A 2025-11-25 session's resources/subscribe (`add') or unsubscribe:
 * to its streams held here, else kept for its next GET.
 */
static void
subscribe(struct hub *h, const char *session, const char *uri, int add)
{
	struct stream	*s;
	struct pend	*p;
	int		 found = 0;

	for (s = h->first; s != NULL; s = s->next) {
		if (s->dead || s->session == NULL ||
		    strcmp(s->session, session) != 0)
			continue;
		found = 1;
		if (add)
			(void)uri_add(&s->uris, &s->nuris, uri);
		else
			uri_del(s->uris, &s->nuris, uri);
	}
	if (found || (p = pend_of(h, session, add)) == NULL)
		return;
	if (add)
		(void)uri_add(&p->uris, &p->nuris, uri);
	else
		uri_del(p->uris, &p->nuris, uri);
}

/*
 * A notifications/cancelled of `who' naming the listen `id' (JSON):
 * that listen ends, without its result (the client asked for the end).
 */
static void
cancel(struct hub *h, const char *who, const char *id)
{
	struct stream	*s, *next;

	if (id == NULL)
		return;
	for (s = h->first; s != NULL; s = next) {
		next = s->next;
		if (!s->dead && s->id != NULL && s->who != NULL &&
		    strcmp(s->id, id) == 0 && strcmp(s->who, who) == 0) {
			__atomic_add_fetch(&h->l->gone, 1, __ATOMIC_RELAXED);
			free(s->end);
			s->end = NULL;
			(void)end(h, s);
		}
	}
}

/* An event from a run, or from outside: to every stream it concerns. */
static void
dispatch(struct hub *h, const char *msg, size_t len)
{
	static const struct {
		const char	*name;
		int		 list;
		const char	*method;
	} kinds[] = {
		{ "tools", WYMCP_LIST_TOOLS,
		    "notifications/tools/list_changed" },
		{ "prompts", WYMCP_LIST_PROMPTS,
		    "notifications/prompts/list_changed" },
		{ "resources", WYMCP_LIST_RESOURCES,
		    "notifications/resources/list_changed" },
	};
	struct json_tokener	*tok;
	struct json_object	*o, *k, *v, *tools = NULL;
	struct stream		*s, *next;
	const char		*uri = NULL, *name;
	char			*extra = NULL;
	size_t			 i, j;
	int			 lists = 0;

	if ((tok = json_tokener_new()) == NULL)
		return;
	o = json_tokener_parse_ex(tok, msg, (int)len);
	json_tokener_free(tok);
	if (o == NULL || !json_object_object_get_ex(o, "k", &k)) {
		front_log(WYMCP_LOG_WARNING, "hub: an event that is not one "
		    "(ignored): %.*s", (int)(len > 200 ? 200 : len), msg);
		json_object_put(o);
		return;
	}
	__atomic_add_fetch(&h->l->events, 1, __ATOMIC_RELAXED);
	if ((strcmp(json_object_get_string(k), "subscribe") == 0 ||
	    strcmp(json_object_get_string(k), "unsubscribe") == 0) &&
	    json_object_object_get_ex(o, "session", &v) &&
	    json_object_is_type(v, json_type_string) &&
	    json_object_object_get_ex(o, "uri", &tools) &&
	    json_object_is_type(tools, json_type_string)) {
		subscribe(h, json_object_get_string(v),
		    json_object_get_string(tools),
		    strcmp(json_object_get_string(k), "subscribe") == 0);
		json_object_put(o);
		return;
	}
	if (strcmp(json_object_get_string(k), "cancel") == 0 &&
	    json_object_object_get_ex(o, "who", &v) &&
	    json_object_is_type(v, json_type_string) &&
	    json_object_object_get_ex(o, "id", &tools)) {
		cancel(h, json_object_get_string(v),
		    json_object_to_json_string_ext(tools,
		    JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
		return;
	}
	if (strcmp(json_object_get_string(k), "updated") == 0 &&
	    json_object_object_get_ex(o, "uri", &v) &&
	    json_object_is_type(v, json_type_string)) {
		uri = json_object_get_string(v);
		/* "uri":"..." as JSON, escaped as it must be. */
		if ((name = json_object_to_json_string_ext(v,
		    JSON_C_TO_STRING_PLAIN)) == NULL ||
		    asprintf(&extra, "\"uri\":%s", name) == -1)
			extra = NULL;
	} else if (strcmp(json_object_get_string(k), "list") == 0 &&
	    json_object_object_get_ex(o, "lists", &v) &&
	    json_object_is_type(v, json_type_array)) {
		for (i = 0; i < json_object_array_length(v); i++)
			for (j = 0; j < 3; j++)
				if (strcmp(json_object_get_string(
				    json_object_array_get_idx(v, i)),
				    kinds[j].name) == 0)
					lists |= kinds[j].list;
		if (json_object_object_get_ex(o, "tools", &tools) &&
		    !json_object_is_type(tools, json_type_array))
			tools = NULL;
	}
	for (s = h->first; s != NULL; s = next) {
		next = s->next;
		if (s->ending || s->dead)
			continue;
		if (uri != NULL && extra != NULL) {
			for (i = 0; i < s->nuris; i++)
				if (strcmp(s->uris[i], uri) == 0)
					break;
			if (i < s->nuris)
				(void)notify(h, s,
				    "notifications/resources/updated", extra);
			continue;
		}
		for (j = 0; j < 3; j++)
			if ((lists & s->lists & kinds[j].list) &&
			    (kinds[j].list != WYMCP_LIST_TOOLS ||
			    sees(s, tools)) &&
			    notify(h, s, kinds[j].method, "") != 0)
				break;
	}
	free(extra);
	json_object_put(o);
}

/* A string member of `o', strdup'd; NULL when absent. */
static char *
member(struct json_object *o, const char *name, int *bad)
{
	struct json_object	*v;
	char			*s;

	if (!json_object_object_get_ex(o, name, &v))
		return NULL;
	if ((s = strdup(json_object_get_string(v))) == NULL)
		*bad = 1;
	return s;
}

/* A handed-over stream: adopt it, or close it. */
static void
adopt(struct hub *h, const char *msg, size_t len, int fd)
{
	struct json_object	*o, *v;
	struct epoll_event	 ev;
	struct stream		*s;
	size_t			 i;
	unsigned char		 d[FRONT_SHARE_LEN];
	int			 bad = 0;

	if ((o = handoff(h->l, msg, len, d)) == NULL ||
	    (s = calloc(1, sizeof(*s))) == NULL) {
		front_log(WYMCP_LOG_ERR, "hub: a handoff that is not one");
		close(fd);
		json_object_put(o);
		return;
	}
	/* The worker's reservation is the hub's now. */
	__atomic_add_fetch(&h->l->hub_held, 1, __ATOMIC_ACQ_REL);
	front_share_to_hub(h->l->shares, d);
	__atomic_add_fetch(&h->l->opened, 1, __ATOMIC_RELAXED);
	s->fd = fd;
	memcpy(s->share, d, sizeof(d));
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
		bad = pending_take(h, s) != 0;
	if (bad || (s->id == NULL && s->session == NULL) ||
	    epoll_ctl(h->ep, EPOLL_CTL_ADD, fd, &ev) == -1) {
		if (s->id == NULL && s->session == NULL)
			s->id = strdup("?");
		drop(h, s, bad ? "out of memory" : "epoll_ctl failed");
		return;
	}
	front_log(WYMCP_LOG_DEBUG, "hub: %s %s held (%zu streams)",
	    s->id != NULL ? "listen" : "stream of session",
	    s->id != NULL ? s->id : s->session, h->n);
}

/* ------------------------------------------------------- the bus */

/* Record the bus's failure `what' for the status page and the log. */
static void
bus_note(struct hub *h, const char *what)
{
	struct front_listen	*l = h->l;
	const char		*m = h->bus.ops->error(h->bus.db);

	while (__atomic_exchange_n(&l->bus_lock, 1, __ATOMIC_ACQUIRE))
		;
	snprintf(l->bus_error, sizeof(l->bus_error), "%s%s%.*s", what,
	    *m != '\0' ? ": " : "", (int)strcspn(m, "\n"), m);
	l->bus_error_at = (long long)time(NULL);
	__atomic_store_n(&l->bus_lock, 0, __ATOMIC_RELEASE);
}

/* Wait on the bus's socket for `events' (0: not at all). */
static void
bus_watch(struct hub *h, unsigned int events)
{
	struct bus		*b = &h->bus;
	struct epoll_event	 ev;
	int			 fd = b->ops->fd(b->db);

	if (fd != b->fd && b->fd >= 0) {
		(void)epoll_ctl(h->ep, EPOLL_CTL_DEL, b->fd, NULL);
		b->fd = -1;
	}
	if (fd < 0 || events == 0) {
		if (b->fd >= 0)
			(void)epoll_ctl(h->ep, EPOLL_CTL_DEL, b->fd, NULL);
		b->fd = -1;
		return;
	}
	if (b->fd == fd && b->events == events)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.events = events;
	ev.data.ptr = &h->bus;
	if (epoll_ctl(h->ep, b->fd == fd ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd,
	    &ev) == 0) {
		b->fd = fd;
		b->events = events;
	}
}

/* The bus went away (or never came): back off, then try again. */
static void
bus_lost(struct hub *h, const char *what)
{
	struct bus	*b = &h->bus;
	struct bus_msg	*m;

	bus_note(h, what);
	if (!b->warned)
		front_log(WYMCP_LOG_WARNING, "hub: the bus is unreachable "
		    "(%s): events reach this instance's listeners only until "
		    "it is back", h->l->bus_error);
	b->warned = 1;
	bus_watch(h, 0);
	if (b->db != NULL)
		b->ops->close(b->db);
	b->db = NULL;
	/* Events not sent: this instance's listeners still get them. */
	while ((m = b->head) != NULL) {
		b->head = m->next;
		dispatch(h, m->text, m->len);
		free(m);
	}
	b->tail = NULL;
	b->queued = 0;
	b->busy = 0;
	if (h->first != NULL)
		b->missed = 1;
	b->state = BUS_WAIT;
	b->backoff = b->backoff == 0 ? BUS_BACKOFF_MS :
	    b->backoff * 2 > BUS_BACKOFF_MAX ? BUS_BACKOFF_MAX :
	    b->backoff * 2;
	b->retry_at = front_now_ms() + b->backoff;
	__atomic_store_n(&h->l->bus_up, 0, __ATOMIC_RELAXED);
}

/* Start connecting (without blocking). */
static void
bus_start(struct hub *h)
{
	struct bus	*b = &h->bus;

	if (b->ops->start(b->uri, &b->db) != 0) {
		bus_lost(h, "cannot connect");
		return;
	}
	b->state = BUS_CONNECTING;
	bus_watch(h, EPOLLOUT);
}

/* Send the next queued NOTIFY, when none is in flight. */
static void
bus_pump(struct hub *h)
{
	struct bus	*b = &h->bus;

	if (b->state != BUS_UP || b->busy || b->head == NULL)
		return;
	if (b->ops->notify(b->db, BUS_CHANNEL, b->head->text) != 0) {
		bus_lost(h, "notify");
		return;
	}
	b->busy = 1;
	if (b->ops->flush(b->db) == 1)
		bus_watch(h, EPOLLIN | EPOLLOUT);
}

/*
 * An event of this instance: to the bus (0), or -1 when there is none
 * up (the caller dispatches it here).
 */
static int
bus_send(struct hub *h, const char *msg, size_t len)
{
	struct bus	*b = &h->bus;
	struct bus_msg	*m;

	if (b->state != BUS_UP || len > BUS_PAYLOAD_MAX ||
	    memchr(msg, '\0', len) != NULL)
		return -1;
	if (b->queued >= BUS_QUEUE_MAX || (m = malloc(sizeof(*m) + len +
	    1)) == NULL) {
		front_log(WYMCP_LOG_WARNING, "hub: %zu events wait for the "
		    "bus: this one is dispatched here only", b->queued);
		return -1;
	}
	m->next = NULL;
	m->len = len;
	memcpy(m->text, msg, len);
	m->text[len] = '\0';
	if (b->tail != NULL)
		b->tail->next = m;
	else
		b->head = m;
	b->tail = m;
	b->queued++;
	__atomic_add_fetch(&h->l->bus_sent, 1, __ATOMIC_RELAXED);
	bus_pump(h);
	return 0;
}

/* A notification came: an event of some instance, this one's too. */
static void
bus_heard(void *arg, const char *msg, size_t len)
{
	struct hub	*h = arg;

	__atomic_add_fetch(&h->l->bus_received, 1, __ATOMIC_RELAXED);
	dispatch(h, msg, len);
}

/* The bus's socket is ready: connect, take results and notifications. */
static void
bus_ready(struct hub *h)
{
	struct bus	*b = &h->bus;
	struct bus_msg	*m;
	struct stream	*s, *next;
	int		 ok;

	if (b->state == BUS_CONNECTING) {
		switch (b->ops->poll(b->db)) {
		case WYMCP__BUS_READ:
			bus_watch(h, EPOLLIN);
			return;
		case WYMCP__BUS_WRITE:
			bus_watch(h, EPOLLOUT);
			return;
		case 0:
			break;
		default:
			bus_lost(h, "connect");
			return;
		}
		if (b->ops->listen(b->db, BUS_CHANNEL) != 0) {
			bus_lost(h, "listen");
			return;
		}
		b->state = BUS_LISTENING;
		b->busy = 1;
		bus_watch(h, EPOLLIN);
	}
	if (b->ops->flush(b->db) == -1) {
		bus_lost(h, "send");
		return;
	}
	if (b->ops->input(b->db) != 0) {
		bus_lost(h, "read");
		return;
	}
	while (b->busy && (ok = b->ops->done(b->db)) != -1) {
		b->busy = 0;
		if (b->state == BUS_LISTENING) {
			if (!ok) {
				bus_lost(h, "listen");
				return;
			}
			b->state = BUS_UP;
			b->backoff = 0;
			__atomic_store_n(&h->l->bus_up, 1, __ATOMIC_RELAXED);
			__atomic_add_fetch(&h->l->bus_connects, 1,
			    __ATOMIC_RELAXED);
			front_log(b->warned ? WYMCP_LOG_WARNING :
			    WYMCP_LOG_INFO, "hub: listening on the bus%s",
			    b->warned ? " again" : "");
			b->warned = 0;
			/* Streams that may have missed events: listen again. */
			if (b->missed) {
				for (s = h->first; s != NULL; s = next) {
					next = s->next;
					(void)end(h, s);
				}
				b->missed = 0;
			}
		} else if ((m = b->head) != NULL) {
			/* The NOTIFY is done (or failed: then here only). */
			b->head = m->next;
			if (b->head == NULL)
				b->tail = NULL;
			b->queued--;
			if (!ok)
				dispatch(h, m->text, m->len);
			free(m);
		}
		bus_pump(h);
		if (b->state != BUS_UP)
			return;
	}
	b->ops->notified(b->db, bus_heard, h);
	if (b->ops->bad(b->db))
		bus_lost(h, "connection");
}

/* Once a tick: a bus down is tried again when its back-off ends. */
static void
bus_tick(struct hub *h)
{
	if (h->bus.state == BUS_WAIT && front_now_ms() >= h->bus.retry_at)
		bus_start(h);
}

/* Take every message waiting on the hub's socket. */
static void
take(struct hub *h, int hubfd)
{
	static char		 msg[HUB_MSG_MAX];
	struct msghdr		 mh;
	struct iovec		 iov;
	struct cmsghdr		*c;
	union {
		struct cmsghdr	 h;
		char		 buf[CMSG_SPACE(sizeof(int))];
	} cm;
	ssize_t			 n;
	int			 fd;

	for (;;) {
		memset(&mh, 0, sizeof(mh));
		iov.iov_base = msg;
		iov.iov_len = sizeof(msg);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cm.buf;
		mh.msg_controllen = sizeof(cm.buf);
		if ((n = recvmsg(hubfd, &mh, MSG_DONTWAIT |
		    MSG_CMSG_CLOEXEC)) == -1) {
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR)
				front_log(WYMCP_LOG_ERR, "hub: recvmsg: %s",
				    strerror(errno));
			return;
		}
		fd = -1;
		for (c = CMSG_FIRSTHDR(&mh); c != NULL;
		    c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_SOCKET &&
			    c->cmsg_type == SCM_RIGHTS &&
			    c->cmsg_len >= CMSG_LEN(sizeof(int)))
				memcpy(&fd, CMSG_DATA(c), sizeof(int));
		if (fd >= 0)
			adopt(h, msg, (size_t)n, fd);
		else if (mh.msg_flags & MSG_CTRUNC)
			lost(h, msg, (size_t)n);
		else if (bus_send(h, msg, (size_t)n) != 0)
			dispatch(h, msg, (size_t)n);
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
			drop(h, s, "the client went away");
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
				drop(h, s, "the request was aborted");
				return;
			}
			s->skip = (size_t)(s->hdr[4] << 8 | s->hdr[5]) +
			    s->hdr[6];
		}
	}
	if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
		__atomic_add_fetch(&h->l->gone, 1, __ATOMIC_RELAXED);
		drop(h, s, "the web server closed the connection");
	}
}

/* Once a tick: keep-alive comments, and the end at the maximum age. */
static void
tick(struct hub *h)
{
	struct stream	*s, *next;
	long long	 now = front_now_ms(), age;

	age = (long long)h->l->max_age * 1000;
	pending_expire(h);
	for (s = h->first; s != NULL; s = next) {
		next = s->next;
		if (s->ending)
			continue;
		if (age > 0 && now - s->started >= age) {
			__atomic_add_fetch(&h->l->aged, 1, __ATOMIC_RELAXED);
			(void)end(h, s);
		} else if (now - s->wrote >= HUB_QUIET_MS)
			(void)frame(h, s, "keep-alive", 1);
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
		(void)end(h, s);
	}
	until = front_now_ms() + ms;
	while (h->first != NULL && front_now_ms() < until) {
		n = epoll_wait(h->ep, evs, HUB_EVENTS, 100);
		for (i = 0; i < n; i++) {
			if (evs[i].data.ptr == NULL ||
			    evs[i].data.ptr == &h->timer ||
			    evs[i].data.ptr == &h->bus ||
			    evs[i].data.ptr == &h->relay)
				continue;
			s = evs[i].data.ptr;
			if (evs[i].events & EPOLLOUT)
				(void)flush(h, s);
		}
		bury(h);
	}
	while (h->first != NULL)
		drop(h, h->first, "stopping");
	bury(h);
}

/*
 * Room for `max' streams and the hub's own descriptors: the soft
 * open-file limit raised towards the hard one (systemd's soft 1024
 * would stop the hub short of the default --max-listeners).
 */
static void
fd_room(int max)
{
	struct rlimit	 rl;
	rlim_t		 want = (rlim_t)(max > 0 ? max : 0) + 64, had;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 || rl.rlim_cur >= want)
		return;
	had = rl.rlim_cur;
	rl.rlim_cur = rl.rlim_max > want ? want : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
		rl.rlim_cur = had;	/* a seccomp filter, say */
	if (rl.rlim_cur < want)
		front_log(WYMCP_LOG_WARNING, "hub: the open-file limit (%llu) "
		    "is below --max-listeners + 64 (%llu): streams past it "
		    "are lost", (unsigned long long)rl.rlim_cur,
		    (unsigned long long)want);
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
 * The hub: a child of the supervisor (prefork.c) with the hub's socket
 * in lim->hub_fd, or without one keeper(); `sup' is the supervisor's
 * pid.  Returns an exit status.
 */
int
front_hub(const struct front_limits *lim, struct front_board *board,
    pid_t sup)
{
	struct epoll_event	 ev, evs[HUB_EVENTS];
	struct itimerspec	 its;
	struct hub		 h;
	struct stream		*s;
	struct pend		*p;
	struct bus_msg		*m;
	sigset_t		 waitmask;
	uint64_t		 ticks;
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
	fd_room(h.l->max + (lim->relay_fd >= 0 ?
	    2 * FRONT_RELAY_CONNS_MAX : 0));
	if ((h.ep = epoll_create1(EPOLL_CLOEXEC)) == -1 ||
	    (h.timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK |
	    TFD_CLOEXEC)) == -1) {
		front_log(WYMCP_LOG_ERR, "hub: %s", strerror(errno));
		return 1;
	}
	memset(&its, 0, sizeof(its));
	its.it_interval.tv_sec = its.it_value.tv_sec = HUB_TICK_MS / 1000;
	(void)timerfd_settime(h.timer, 0, &its, NULL);
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.ptr = NULL;		/* the hub's socket */
	if (epoll_ctl(h.ep, EPOLL_CTL_ADD, lim->hub_fd, &ev) == -1) {
		front_log(WYMCP_LOG_ERR, "hub: epoll_ctl: %s", strerror(errno));
		return 1;
	}
	ev.data.ptr = &h.timer;
	(void)epoll_ctl(h.ep, EPOLL_CTL_ADD, h.timer, &ev);
	h.bus.fd = -1;
	if ((h.bus.uri = lim->bus_uri) != NULL && (h.bus.ops = lim->bus) !=
	    NULL)
		bus_start(&h);
	if ((h.relay = front_relay_port_start(lim)) != NULL) {
		ev.data.ptr = &h.relay;
		if (epoll_ctl(h.ep, EPOLL_CTL_ADD,
		    front_relay_port_fd(h.relay), &ev) == -1) {
			front_log(WYMCP_LOG_ERR, "hub: epoll_ctl: %s",
			    strerror(errno));
			return 1;
		}
	}
	__atomic_store_n(&h.l->hub_up, 1, __ATOMIC_RELEASE);
	front_log(WYMCP_LOG_DEBUG, "hub ready on %s", h.l->path);
	/* Gone before the parent-death signal was set: stop now. */
	if (getppid() != sup)
		hub_stop = SIGTERM;
	while (!hub_stop) {
		n = epoll_pwait(h.ep, evs, HUB_EVENTS, -1, &waitmask);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			front_log(WYMCP_LOG_ERR, "hub: epoll_wait: %s",
			    strerror(errno));
			status = 1;
			break;
		}
		for (i = 0; i < n; i++) {
			if (evs[i].data.ptr == NULL) {
				take(&h, lim->hub_fd);
				continue;
			}
			if (evs[i].data.ptr == &h.timer) {
				if (read(h.timer, &ticks, sizeof(ticks)) < 0) {
					/* Not due yet (EAGAIN): tick anyway. */
				}
				tick(&h);
				bus_tick(&h);
				if (h.relay != NULL)
					front_relay_port_tick(h.relay);
				continue;
			}
			if (evs[i].data.ptr == &h.relay) {
				front_relay_port_ready(h.relay);
				continue;
			}
			if (evs[i].data.ptr == &h.bus) {
				bus_ready(&h);
				continue;
			}
			s = evs[i].data.ptr;
			if ((evs[i].events & EPOLLOUT) && flush(&h, s) != 0)
				continue;
			/* A stream dropped above in this batch: skip. */
			if (evs[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP |
			    EPOLLERR))
				readable(&h, s, evs[i].events);
		}
		bury(&h);
		board->served = h.n;
	}
	if ((gone = getppid() != sup))
		orphaned(lim, sup);
	__atomic_store_n(&h.l->hub_up, 0, __ATOMIC_RELEASE);
	if (h.bus.db != NULL) {
		bus_watch(&h, 0);
		h.bus.ops->close(h.bus.db);
		h.bus.db = NULL;
	}
	stop_all(&h, gone ? HUB_ORPHAN_MS : HUB_STOP_MS);
	front_relay_port_stop(h.relay);
	while ((p = h.pend) != NULL) {
		h.pend = p->next;
		pend_free(p);
	}
	while ((m = h.bus.head) != NULL) {
		h.bus.head = m->next;
		free(m);
	}
	/* Killed while the hub was stopping already. */
	if (getppid() != sup)
		orphaned(lim, sup);
	front_log(WYMCP_LOG_DEBUG, "hub stopping");
	return status;
}
