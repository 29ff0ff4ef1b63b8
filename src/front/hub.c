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
 * workers, or sealed by another host's hub: control.c).  The worker's
 * side and the instance's page are listen.c.  The hub (epoll, nothing
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

#define HUB_BUF_MAX	(256 * 1024)	/* bytes waiting for one client */
#define HUB_QUIET_MS	15000		/* a comment after this silence */
#define HUB_TICK_MS	1000
#define HUB_STOP_MS	2000		/* to flush the ends when stopping */
#define HUB_ORPHAN_MS	500		/* ... when the supervisor is gone */
#define ORPHAN_TRIES	50		/* a relay directory not yet empty */
#define ORPHAN_WAIT_MS	10		/* ... is tried again after this */
#define HUB_EVENTS	256		/* epoll events per wait */

#define FCGI_VERSION_1		1
#define FCGI_ABORT_REQUEST	2
#define FCGI_END_REQUEST	3
#define FCGI_STDOUT		6
#define FCGI_HEADER_LEN		8
#define FCGI_CONTENT_MAX	65535

#define SUB_ID		"io.modelcontextprotocol/subscriptionId"

#define REFUSAL_LOG_MS	60000		/* a refusal logged at most this often */

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
	unsigned int	 share;
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
	struct front_bus	*bus;		/* --bus, or NULL */
	struct front_control	*ctl;		/* sealed stream control */
	struct pend		*pend;		/* newest first */
	size_t			 npend;
	struct front_relay_port	*relay;		/* --relay-listen, or NULL */
	long long		 refusal_logged; /* ms, 0: never */
	unsigned long		 refusals_quiet; /* not logged since */
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
	front_listen_unreserve(h->l, s->share, 1);
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
 * and its principal's share in `share', or NULL when it is not one.
 */
static struct json_object *
handoff(const char *msg, size_t len, int *share)
{
	struct json_tokener	*tok;
	struct json_object	*o = NULL, *v;

	if ((tok = json_tokener_new()) != NULL) {
		o = json_tokener_parse_ex(tok, msg, (int)len);
		json_tokener_free(tok);
	}
	if (o == NULL || !json_object_object_get_ex(o, "share", &v) ||
	    (*share = json_object_get_int(v)) < 0 || *share >= FRONT_SHARES) {
		json_object_put(o);
		return NULL;
	}
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
	int			 b;

	if ((o = handoff(msg, len, &b)) != NULL)
		front_listen_unreserve(h->l, (unsigned int)b, 0);
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

/* A resource update or a list change: to every stream it concerns. */
static void
deliver(struct hub *h, const struct front_event *ev)
{
	static const struct {
		int		 list;
		const char	*method;
	} kinds[] = {
		{ WYMCP_LIST_TOOLS, "notifications/tools/list_changed" },
		{ WYMCP_LIST_PROMPTS, "notifications/prompts/list_changed" },
		{ WYMCP_LIST_RESOURCES,
		    "notifications/resources/list_changed" },
	};
	struct json_object	*u = NULL;
	struct stream		*s, *next;
	const char		*extra = NULL;
	size_t			 i, j;

	if (ev->kind == FRONT_EV_UPDATED) {
		/* "uri":"..." as JSON, escaped as it must be. */
		if ((u = json_object_new_object()) == NULL)
			return;
		json_object_object_add(u, "uri",
		    json_object_new_string(ev->uri));
		if ((extra = json_object_to_json_string_ext(u,
		    JSON_C_TO_STRING_PLAIN)) == NULL || strlen(extra) < 2) {
			json_object_put(u);
			return;
		}
		extra++;	/* inside the braces: the closing one is cut */
		((char *)extra)[strlen(extra) - 1] = '\0';
	}
	for (s = h->first; s != NULL; s = next) {
		next = s->next;
		if (s->ending || s->dead)
			continue;
		if (extra != NULL) {
			for (i = 0; i < s->nuris; i++)
				if (strcmp(s->uris[i], ev->uri) == 0)
					break;
			if (i < s->nuris)
				(void)notify(h, s,
				    "notifications/resources/updated", extra);
			continue;
		}
		for (j = 0; j < 3; j++)
			if ((ev->lists & s->lists & kinds[j].list) &&
			    (kinds[j].list != WYMCP_LIST_TOOLS ||
			    front_sees(s->mount, ev->tools)) &&
			    notify(h, s, kinds[j].method, "") != 0)
				break;
	}
	json_object_put(u);
}

/* An event the hub believes (parsed by intake.c): do what it says. */
static void
apply(struct hub *h, const struct front_event *ev)
{
	__atomic_add_fetch(&h->l->events, 1, __ATOMIC_RELAXED);
	switch (ev->kind) {
	case FRONT_EV_UPDATED:
	case FRONT_EV_LIST:
		deliver(h, ev);
		break;
	case FRONT_EV_CANCEL:
		cancel(h, ev->who, ev->id);
		break;
	case FRONT_EV_SUBSCRIBE:
	case FRONT_EV_UNSUBSCRIBE:
		subscribe(h, ev->session, ev->uri,
		    ev->kind == FRONT_EV_SUBSCRIBE);
		break;
	case FRONT_EV_SEALED:
		break;		/* opened first: never applied as it is */
	}
}

/*
 * An event refused for `why', from `src' (FRONT_SRC_*): counted on the
 * status page, logged at most once in REFUSAL_LOG_MS (a flood of them
 * is one line a minute), with a printable excerpt of what came.
 */
static void
refuse(struct hub *h, int src, enum front_refusal why, const char *msg,
    size_t len)
{
	static const char *const from[FRONT_SRC_N] = { "the bus",
		"the hub socket", "a worker" };
	char		 shown[81];
	size_t		 i;
	long long	 now = front_now_ms();

	__atomic_add_fetch(&h->l->refused_events[src][why], 1,
	    __ATOMIC_RELAXED);
	if (h->refusal_logged != 0 && now - h->refusal_logged <
	    REFUSAL_LOG_MS) {
		h->refusals_quiet++;
		return;
	}
	for (i = 0; i < len && i < sizeof(shown) - 1; i++)
		shown[i] = msg[i] >= 0x20 && msg[i] < 0x7f ? msg[i] : '?';
	shown[i] = '\0';
	front_log(WYMCP_LOG_WARNING, "hub: an event from %s refused (%s): "
	    "%s%s (%lu more refused since the last line; counted on the "
	    "status page)", from[src], front_refusal_names[why], shown,
	    len > i ? "..." : "", h->refusals_quiet);
	h->refusal_logged = now;
	h->refusals_quiet = 0;
}

/*
 * An event from outside (`src': the bus or the hub socket), or one of
 * this instance's coming back from the bus: data, or on the bus a
 * sealed frame of stream control.  Anything else is refused.
 */
static void
from_outside(struct hub *h, int src, const char *msg, size_t len)
{
	struct front_event	 ev, in;
	enum front_refusal	 why;

	if ((why = front_intake(msg, len, FRONT_FROM_OUTSIDE, &ev)) !=
	    FRONT_REF_NONE) {
		refuse(h, src, why, msg, len);
		return;
	}
	if (ev.kind != FRONT_EV_SEALED) {
		/* Data from the hub socket goes to every host first. */
		if (src != FRONT_SRC_SOCKET || front_bus_send(h->bus, msg, len) != 0)
			apply(h, &ev);
	} else if (src != FRONT_SRC_BUS)
		refuse(h, src, FRONT_REF_COMMAND, msg, len);
	else if ((why = front_control_open(h->ctl, &ev, &in)) !=
	    FRONT_REF_NONE)
		refuse(h, src, why, msg, len);
	else {
		apply(h, &in);
		front_event_clear(&in);
	}
	front_event_clear(&ev);
}

/*
 * Stream control of this instance's workers, for every host: sealed
 * under the state key and sent on the bus (0), or -1 when there is no
 * bus up (the caller applies it here).
 */
static int
seal_send(struct hub *h, const char *msg, size_t len)
{
	char	*frame;
	int	 rc;

	if (!front_bus_up(h->bus) ||
	    (frame = front_control_seal(h->ctl, msg, len)) == NULL)
		return -1;
	rc = front_bus_send(h->bus, frame, strlen(frame));
	free(frame);
	return rc;
}

/*
 * An event of this instance's workers (their channel: nobody else can
 * write it): data, or stream control.  Both go to every host on the bus
 * (control sealed), and are applied when they come back; without a bus
 * here at once.
 */
static void
from_worker(struct hub *h, const char *msg, size_t len)
{
	struct front_event	 ev;
	enum front_refusal	 why;
	int			 sent;

	if ((why = front_intake(msg, len, FRONT_FROM_WORKER, &ev)) !=
	    FRONT_REF_NONE) {
		refuse(h, FRONT_SRC_WORKER, why, msg, len);
		return;
	}
	if (ev.kind == FRONT_EV_UPDATED || ev.kind == FRONT_EV_LIST)
		sent = front_bus_send(h->bus, msg, len) == 0;
	else
		sent = seal_send(h, msg, len) == 0;
	if (!sent)
		apply(h, &ev);
	front_event_clear(&ev);
}

/* A string member of `o', strdup'd; NULL when absent. */
static char *
member(struct json_object *o, const char *name, int *bad)
{
	struct json_object	*v;
	char			*s;

	if (!json_object_object_get_ex(o, name, &v) ||
	    !json_object_is_type(v, json_type_string))
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
	int			 bad = 0, b;

	if ((o = handoff(msg, len, &b)) == NULL ||
	    (s = calloc(1, sizeof(*s))) == NULL) {
		front_log(WYMCP_LOG_ERR, "hub: a handoff that is not one");
		close(fd);
		json_object_put(o);
		return;
	}
	/* The worker's reservation is the hub's now. */
	__atomic_add_fetch(&h->l->hub_held, 1, __ATOMIC_ACQ_REL);
	__atomic_add_fetch(&h->l->hub_share[b], 1, __ATOMIC_ACQ_REL);
	__atomic_add_fetch(&h->l->opened, 1, __ATOMIC_RELAXED);
	s->fd = fd;
	s->share = (unsigned int)b;
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
			refuse(h, src, FRONT_REF_HANDOFF, msg, (size_t)n);
		} else if (conn >= 0)
			adopt(h, msg, (size_t)n, conn);
		else if (mh.msg_flags & MSG_CTRUNC)
			lost(h, msg, (size_t)n);
		else if (mh.msg_flags & MSG_TRUNC)
			refuse(h, src, FRONT_REF_OVERSIZED, msg, (size_t)n);
		else if (src == FRONT_SRC_WORKER)
			from_worker(h, msg, (size_t)n);
		else
			from_outside(h, src, msg, (size_t)n);
	}
}

/* The bus's callbacks (bus.c): what it heard, or could not send. */
static void
bus_take(void *arg, const char *msg, size_t len)
{
	from_outside(arg, FRONT_SRC_BUS, msg, len);
}

/* Streams held now would miss events while the bus is down. */
static int
bus_holding(void *arg)
{
	return ((struct hub *)arg)->first != NULL;
}

/* The bus is back: streams that may have missed events listen again. */
static void
bus_again(void *arg)
{
	struct hub	*h = arg;
	struct stream	*s, *next;

	for (s = h->first; s != NULL; s = next) {
		next = s->next;
		(void)end(h, s);
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
			    evs[i].data.ptr == h->l ||
			    evs[i].data.ptr == &h->timer ||
			    (h->bus != NULL && evs[i].data.ptr == h->bus) ||
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
	cb.take = bus_take;
	cb.holding = bus_holding;
	cb.again = bus_again;
	cb.arg = h;
	h->bus = front_bus_new(lim->bus_uri, lim->bus, h->l, h->ep, &cb);
	h->ctl = front_control_new(srv, lim->keyfile);
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
		if ((e->events & EPOLLOUT) && flush(h, s) != 0)
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
	fd_room(h.l->max + (lim->relay_fd >= 0 ?
	    2 * FRONT_RELAY_CONNS_MAX : 0));
	if (hub_open(&h, srv) == -1)
		return 1;
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
		for (i = 0; i < n; i++)
			hub_event(&h, &evs[i]);
		bury(&h);
		board->served = h.n;
	}
	if ((gone = getppid() != sup))
		orphaned(lim, sup);
	__atomic_store_n(&h.l->hub_up, 0, __ATOMIC_RELEASE);
	front_bus_free(h.bus);
	h.bus = NULL;
	stop_all(&h, gone ? HUB_ORPHAN_MS : HUB_STOP_MS);
	front_relay_port_stop(h.relay);
	while ((p = h.pend) != NULL) {
		h.pend = p->next;
		pend_free(p);
	}
	front_control_free(h.ctl);
	/* Killed while the hub was stopping already. */
	if (getppid() != sup)
		orphaned(lim, sup);
	front_log(WYMCP_LOG_DEBUG, "hub stopping");
	return status;
}
