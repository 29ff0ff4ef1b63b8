/*
 * listen.c - the instance's listen page and socket, and the worker's
 * side of the hub (hub.c)
 *
 * front_listen_setup() (main.c, before the first fork) makes the page
 * of counts every process shares (struct front_listen), the hub's
 * socket PATH.hub (events from outside: wymcp-fcgi --publish) and the
 * workers' channel, a socket pair no one else holds (handoffs, and the
 * workers' events, stream control included).  A worker reserves a slot
 * and its principal's share (front_listen_hold()), hands the stream
 * over (front_listen_hand()) and lets go of it (front_listen_done());
 * a run's events go to the hub (front_publish()).  --publish checks
 * its event with the hub's parser (intake.c) and sends it on the bus or
 * to PATH.hub (front_publish_cmd()).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fcgiapp.h>
#include <json-c/json.h>

#include "front.h"
#include "intake.h"

/*
 * The workers' channel holds what its send buffer holds (SO_SNDBUF of
 * the workers' end: CHANNEL_BUF, or net.core.wmem_max without root;
 * about 1 KiB an event), and the hub empties it into its own queue
 * first thing each turn: a worker finds it full only when the hub got
 * no CPU for a while.  It then waits SEND_WAIT_MS at most, and an event
 * that still cannot go is shed and counted (struct front_listen's shed):
 * the hub ends every stream, which listens again.
 */
#define SEND_WAIT_MS	20
#define HAND_WAIT_MS	100		/* a handoff, --publish */
#define CHANNEL_BUF	(8 * 1024 * 1024)

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

/*
 * The workers' channel: a datagram socket pair made before the first
 * fork, so that only the supervisor's children hold it (close-on-exec:
 * not the programs they run).  The workers hand streams over and say
 * their events on it; the hub believes stream control from it alone.
 * The supervisor keeps both ends, so what is queued for a hub that
 * died waits for the next.  0, or -1.
 */
static int
own_channel(struct front_listen *l)
{
	int	 sp[2], sz = 4 * 1024 * 1024, wsz = CHANNEL_BUF;

	l->own_fd = l->tell_fd = -1;
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0,
	    sp) == -1)
		return -1;
	if (setsockopt(sp[0], SOL_SOCKET, SO_RCVBUFFORCE, &sz,
	    sizeof(sz)) == -1)
		(void)setsockopt(sp[0], SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	/*
	 * A connected pair's datagrams are bounded by the sender's buffer,
	 * not by net.unix.max_dgram_qlen: make it large.
	 */
	if (setsockopt(sp[1], SOL_SOCKET, SO_SNDBUFFORCE, &wsz,
	    sizeof(wsz)) == -1)
		(void)setsockopt(sp[1], SOL_SOCKET, SO_SNDBUF, &wsz,
		    sizeof(wsz));
	l->own_fd = sp[0];
	l->tell_fd = sp[1];
	return 0;
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
	if (own_channel(l) == -1) {
		front_log(WYMCP_LOG_ERR, "socketpair: %s: listen streams are "
		    "not held", strerror(errno));
		close(fd);
		(void)unlink(l->path);
		if (l->dir[0] != '\0')
			(void)rmdir(l->dir);
		goto fail;
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

/*
 * This worker's reservation for the request in flight.  Its board
 * (front_listen_worker()) says what it holds, should it die before the
 * hub has the stream: FRONT_HOLD_SLOT (the instance's count, held),
 * then FRONT_HOLD_SHARE (its principal's share too).  The board steps
 * up after each take and down before each give (the share's under the
 * table's lock: front_share_take_mark(), front_share_give_mark(), so
 * that a worker killed while it waits for the lock holds what its
 * board says), and to FRONT_HOLD_NONE just before each try to hand the
 * stream over (back when the try fails): what the supervisor gives
 * back for a dead worker (front_listen_dead()) is never given back
 * twice, and at worst (a death between an atomic take and the store
 * that follows it) one place is left taken.
 */
static int		 reserved;	/* a slot is ours */
static int		 handed;	/* ... and the hub has it */
static unsigned char	 reserved_share[FRONT_SHARE_LEN]; /* its principal */
static struct front_board *lboard;	/* this worker's */
static int		 sendfd = -1;	/* unbound: to the hub's path */

static void
hold_step(int v)
{
	if (lboard != NULL)
		__atomic_store_n(&lboard->listen, v, __ATOMIC_SEQ_CST);
}

void
front_listen_worker(struct front_board *b)
{
	lboard = b;
}

/*
 * The supervisor, for a worker that died (its board no longer
 * changes): give back the slot and share it held, once.
 */
void
front_listen_dead(const struct front_limits *lim, struct front_board *b)
{
	struct front_listen	*l = lim->listen;
	int			 s;

	if (l == NULL || b == NULL)
		return;
	s = __atomic_exchange_n(&b->listen, FRONT_HOLD_NONE,
	    __ATOMIC_SEQ_CST);
	if (s == FRONT_HOLD_SHARE)
		front_share_give(l->shares, b->listen_share, 0);
	if (s == FRONT_HOLD_SLOT || s == FRONT_HOLD_SHARE) {
		__atomic_sub_fetch(&l->held, 1, __ATOMIC_ACQ_REL);
		__atomic_add_fetch(&l->reclaimed, 1, __ATOMIC_RELAXED);
		front_log(WYMCP_LOG_WARNING, "a worker died holding a listen "
		    "slot it had not handed to the hub: given back");
	}
}

/*
 * Take back a share (`d', its principal's digest: share.c) and a slot;
 * `hub': the hub's own counts too.
 */
void
front_listen_unreserve(struct front_listen *l, const unsigned char *d,
    int hub)
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
	int			 rc, room, held;

	if (l == NULL || !__atomic_load_n(&l->hub_up, __ATOMIC_ACQUIRE))
		return -1;
	(void)req;
	/*
	 * The principal's own share (share.c: exact, never a bucket's),
	 * on the board before anything is taken.
	 */
	front_share_digest(l->shares, wl->who, d);
	if (lboard != NULL)
		memcpy(lboard->listen_share, d, sizeof(d));
	room = __atomic_load_n(&l->fd_room, __ATOMIC_ACQUIRE);
	held = __atomic_add_fetch(&l->held, 1, __ATOMIC_ACQ_REL);
	if (held > l->max || held > room) {
		/* 503 with Retry-After: never an acknowledgement the hub
		   cannot keep (a descriptor it cannot take). */
		__atomic_sub_fetch(&l->held, 1, __ATOMIC_ACQ_REL);
		__atomic_add_fetch(held > l->max ? &l->refused : &l->no_fd, 1,
		    __ATOMIC_RELAXED);
		return -1;
	}
	hold_step(FRONT_HOLD_SLOT);
	if ((rc = lboard != NULL ? front_share_take_mark(l->shares, d,
	    l->per, &lboard->listen, FRONT_HOLD_SHARE) :
	    front_share_take(l->shares, d, l->per)) != 1) {
		hold_step(FRONT_HOLD_NONE);
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
 * to SEND_WAIT_MS for room in its queue (HAND_WAIT_MS for a handoff or
 * --publish), `*waited' set when it had to (`waited' may be NULL): on
 * the workers' channel `tell' (path NULL), or to the socket at `path'.
 * 0, or -1.
 */
static int
to_hub(int tell, const char *path, const char *msg, size_t len, int fd,
    int *waited)
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
	int			 wait;

	/* A handoff's client, or a command, may wait; a tool's run not. */
	wait = fd >= 0 || path != NULL ? HAND_WAIT_MS : SEND_WAIT_MS;
	if (path != NULL && sendfd == -1 && (sendfd = socket(AF_UNIX,
	    SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	memset(&mh, 0, sizeof(mh));
	if (path != NULL) {
		memset(&sun, 0, sizeof(sun));
		sun.sun_family = AF_UNIX;
		snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
		mh.msg_name = &sun;
		mh.msg_namelen = sizeof(sun);
		tell = sendfd;
	}
	iov.iov_base = (void *)msg;
	iov.iov_len = len;
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
	until = front_now_ms() + wait;
	for (;;) {
		/* A stream handed over is the hub's to give back. */
		if (fd >= 0 && reserved)
			hold_step(FRONT_HOLD_NONE);
		if (sendmsg(tell, &mh, MSG_NOSIGNAL) != -1)
			break;
		if (fd >= 0 && reserved)
			hold_step(FRONT_HOLD_SHARE);
		if ((errno != EAGAIN && errno != EWOULDBLOCK &&
		    errno != EINTR) || front_now_ms() >= until)
			return -1;
		if (waited != NULL)
			*waited = 1;
		pfd.fd = tell;
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
	if (s != NULL && strlen(s) < FRONT_HUB_MSG_MAX &&
	    to_hub(lim->listen->tell_fd, NULL, s, strlen(s), req->ipcFd,
	    NULL) == 0)
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

	if (reserved && !handed && lim->listen != NULL) {
		if (lboard != NULL)
			front_share_give_mark(lim->listen->shares,
			    reserved_share, &lboard->listen, FRONT_HOLD_SLOT);
		else
			front_share_give(lim->listen->shares, reserved_share,
			    0);
		hold_step(FRONT_HOLD_NONE);
		__atomic_sub_fetch(&lim->listen->held, 1, __ATOMIC_ACQ_REL);
	}
	reserved = handed = 0;
	return h;
}

#define SHED_LOG_MS	10000		/* a shed event logged at most so often */
static long long	 shed_logged = -SHED_LOG_MS;
static unsigned long	 shed_quiet;

/* wymcp_publish_fn: an event of a run, to the hub. */
void
front_publish(void *arg, const char *event, size_t len)
{
	struct front_listen	*l = arg;

	int			 waited = 0, rc;

	if (l == NULL || len >= FRONT_HUB_MSG_MAX)
		return;
	rc = to_hub(l->tell_fd, NULL, event, len, -1, &waited);
	if (waited)	/* counted: a worker should never wait */
		__atomic_add_fetch(&l->waits, 1, __ATOMIC_RELAXED);
	if (rc != 0) {
		/* Shed: the hub ends every stream (they listen again). */
		__atomic_add_fetch(&l->shed, 1, __ATOMIC_RELEASE);
		if (front_now_ms() - shed_logged < SHED_LOG_MS) {
			shed_quiet++;
			return;
		}
		front_log(WYMCP_LOG_WARNING, "an event could not reach the "
		    "hub (%s): shed, every listen stream ends (%lu more shed "
		    "by this process since the last line; counted on the "
		    "status page)", strerror(errno), shed_quiet);
		shed_logged = front_now_ms();
		shed_quiet = 0;
	}
}

/*
 * The event `spec' of wymcp-fcgi --publish, as the hub takes it: JSON
 * as wymcp_server_set_publish() documents it, or "updated URI", or
 * "list KIND[,KIND...]" (tools, prompts, resources); checked by the
 * hub's own parser (intake.c) as the bus and PATH.hub are, so that
 * what it refuses is said here.  A new string, or NULL with why in
 * `err'.
 */
static char *
event_of(const char *spec, char *err, size_t errlen)
{
	struct json_object	*o = NULL, *a;
	struct front_event	 ev;
	enum front_refusal	 why;
	const char		*p, *w = spec;
	char			*out = NULL;
	size_t			 n;

	if (strncmp(spec, "updated ", 8) == 0 && spec[8] != '\0') {
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
		json_object_object_add(o, "lists", a);
		for (p = spec + 5; *p != '\0'; p += n + (p[n] == ',')) {
			n = strcspn(p, ",");
			if (!((n == 5 && strncmp(p, "tools", 5) == 0) ||
			    (n == 7 && strncmp(p, "prompts", 7) == 0) ||
			    (n == 9 && strncmp(p, "resources", 9) == 0))) {
				snprintf(err, errlen, "no list '%.*s': tools, "
				    "prompts or resources", (int)(n > 64 ? 64 :
				    n), p);
				goto done;
			}
			json_object_array_add(a,
			    json_object_new_string_len(p, (int)n));
		}
	}
	if (o != NULL && (w = json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN)) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	why = front_intake(w, strlen(w), FRONT_FROM_OUTSIDE, &ev);
	if (why == FRONT_REF_NONE && ev.kind == FRONT_EV_SEALED)
		why = FRONT_REF_COMMAND;
	front_event_clear(&ev);
	switch (why) {
	case FRONT_REF_NONE:
		if ((out = strdup(w)) == NULL)
			snprintf(err, errlen, "out of memory");
		break;
	case FRONT_REF_OVERSIZED:
		snprintf(err, errlen, "the event is longer than %d bytes",
		    FRONT_EVENT_MAX);
		break;
	case FRONT_REF_COMMAND:
		snprintf(err, errlen, "events from outside are data: "
		    "'updated' or 'list', never stream control");
		break;
	default:
		snprintf(err, errlen, "not an event: use 'updated URI' (a URI "
		    "of 1 to %d bytes), 'list tools,prompts,resources' or the "
		    "JSON of wymcp-fcgi(8)", FRONT_EVENT_URI_MAX);
	}
done:
	json_object_put(o);
	return out;
}

/*
 * wymcp-fcgi --publish: say `spec' to every listener: NOTIFY on the
 * bus `bus' (through its back end `be'), or, without one, to the
 * hub of the instance whose hub socket is `hubpath'.  0, or -1 with
 * why in `err'.
 */
int
front_publish_cmd(const char *spec, const void *be, const char *bus,
    const char *hubpath, char *err, size_t errlen)
{
	char		*ev;
	int		 rc = -1;

	if ((ev = event_of(spec, err, errlen)) == NULL)
		return -1;
	if (strlen(ev) > FRONT_BUS_PAYLOAD_MAX) {
		snprintf(err, errlen, "the event is longer than %d bytes",
		    FRONT_BUS_PAYLOAD_MAX);
		goto done;
	}
	front_bus_oneline(ev);	/* a NOTIFY's events: one a line */
	if (bus != NULL)
		rc = wymcp_bus_publish(be, bus, FRONT_BUS_CHANNEL, ev, err,
		    errlen) == WYMCP_OK ? 0 : -1;
	else if (hubpath == NULL)
		snprintf(err, errlen, "say where: --bus postgresql://..., or "
		    "--listen unix:PATH of the instance (its hub is PATH.hub)");
	else if (to_hub(-1, hubpath, ev, strlen(ev), -1, NULL) == 0)
		rc = 0;
	else
		snprintf(err, errlen, "%s: %s", hubpath, strerror(errno));
done:
	free(ev);
	return rc;
}

