/*
 * events.c - what the hub takes from its inputs and whom it tells
 *
 * Every message is parsed by intake.c first; what a source may say is
 * intake.h's rule.  Data (a resource updated, lists changed) goes to
 * every stream that asked for it; stream control (a cancel, a 2025-11-25
 * session's subscriptions) comes from this instance's workers or, sealed
 * under the state key, from another host's hub (control.c).  A worker's
 * event goes to every host on the bus first and is applied when it
 * comes back (one path, one order); without a bus at once.  A refusal
 * is counted on the status page and logged at most once a minute.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "front.h"
#include "intake.h"
#include "hub.h"

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

void
hub_pend_free(struct pend *p)
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
		hub_pend_free(*pp);
		*pp = NULL;
		h->npend--;
	}
	return p;
}

/* A held session stream takes what its session subscribed to before. */
int
hub_pending_take(struct hub *h, struct stream *s)
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
	hub_pend_free(p);
	h->npend--;
	return rc;
}

/* Forget pending subscriptions older than PEND_MS. */
void
hub_pending_expire(struct hub *h)
{
	struct pend	*p, **pp;
	long long	 now = front_now_ms();

	for (pp = &h->pend; (p = *pp) != NULL; )
		if (now - p->at >= PEND_MS) {
			*pp = p->next;
			hub_pend_free(p);
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
		if (add) {
			if (uri_add(&s->uris, &s->nuris, uri) == 0)
				(void)hub_watch(h, s, uri);
		} else {
			hub_unwatch(h, s, uri);
			uri_del(s->uris, &s->nuris, uri);
		}
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
			(void)hub_end(h, s);
		}
	}
}

/*
 * One notification, built once: the frame of a stream with a
 * subscription id is pre (up to the id's place), the id, post; of a
 * 2025-11-25 stream (no id) bare.  Each stream's FastCGI header is
 * made as it is queued (stream.c: hub_frame3()).
 */
struct once {
	char	*pre, *bare;
	size_t	 prelen, barelen;
};
#define ONCE_POST	"}}}\n\n"

static int
once_make(struct once *o, const char *method, const char *extra)
{
	static const char fmt[] = "event: message\ndata: {\"jsonrpc\":"
	    "\"2.0\",\"method\":\"%s\",\"params\":{%s%s";
	size_t	 len = sizeof(fmt) + strlen(method) + strlen(extra) + 128;
	int	 n;

	o->pre = malloc(len);
	o->bare = malloc(len);
	if (o->pre == NULL || o->bare == NULL)
		return -1;
	n = snprintf(o->pre, len, fmt, method, extra, *extra != '\0' ?
	    ",\"_meta\":{\"" SUB_ID "\":" : "\"_meta\":{\"" SUB_ID "\":");
	o->prelen = (size_t)n;
	n = snprintf(o->bare, len, fmt, method, extra, "}}\n\n");
	o->barelen = (size_t)n;
	return 0;
}

static void
once_free(struct once *o)
{
	free(o->pre);
	free(o->bare);
}

/* The frame `o' to stream `s': 1 when queued, else 0. */
static int
once_to(struct hub *h, struct stream *s, const struct once *o)
{
	if (s->ending || s->dead)
		return 0;
	if (s->id == NULL)
		return hub_frame3(h, s, o->bare, o->barelen, NULL, 0, NULL,
		    0) == 0;
	return hub_frame3(h, s, o->pre, o->prelen, s->id, strlen(s->id),
	    ONCE_POST, sizeof(ONCE_POST) - 1) == 0;
}

/* A resource updated: to the streams watching its URI (the index). */
static void
deliver_updated(struct hub *h, const struct front_event *ev)
{
	struct json_object	*u;
	struct watch		*w, *next;
	struct once		 o = { NULL, NULL, 0, 0 };
	const char		*x;
	char			*extra = NULL;
	unsigned int		 hash;
	unsigned long		 n = 0;

	if (h->nindex == 0 || (u = json_object_new_object()) == NULL)
		return;
	/* "uri":"..." as JSON, escaped as it must be. */
	json_object_object_add(u, "uri", json_object_new_string(ev->uri));
	if ((x = json_object_to_json_string_ext(u, JSON_C_TO_STRING_PLAIN)) ==
	    NULL || strlen(x) < 2 || (extra = strdup(x + 1)) == NULL)
		goto done;
	extra[strlen(extra) - 1] = '\0';	/* inside the braces */
	if (once_make(&o, "notifications/resources/updated", extra) != 0)
		goto done;
	hash = hub_uri_hash(ev->uri);
	for (w = h->index[hash & (h->nindex - 1)]; w != NULL; w = next) {
		next = w->next;		/* a drop frees no watch this turn */
		if (w->hash == hash && strcmp(w->uri, ev->uri) == 0)
			n += once_to(h, w->s, &o);
	}
	__atomic_add_fetch(&h->l->frames, n, __ATOMIC_RELAXED);
done:
	once_free(&o);
	free(extra);
	json_object_put(u);
}

/* Lists changed: to the streams of each kind (the index). */
static void
deliver_lists(struct hub *h, const struct front_event *ev)
{
	static const char *const methods[3] = {
		"notifications/tools/list_changed",
		"notifications/prompts/list_changed",
		"notifications/resources/list_changed",
	};
	struct stream	*s;
	struct once	 o;
	unsigned long	 n = 0;
	int		 j;

	for (j = 0; j < 3; j++) {
		if (!(ev->lists & (1 << j)) || h->kind[j] == NULL)
			continue;
		if (once_make(&o, methods[j], "") == 0)
			for (s = h->kind[j]; s != NULL; s = s->knext[j])
				if (j != 0 || front_sees(s->mount, ev->tools))
					n += once_to(h, s, &o);
		once_free(&o);
	}
	__atomic_add_fetch(&h->l->frames, n, __ATOMIC_RELAXED);
}

/* A resource update or a list change: to every stream it concerns. */
static void
deliver(struct hub *h, const struct front_event *ev)
{
	if (ev->kind == FRONT_EV_UPDATED)
		deliver_updated(h, ev);
	else
		deliver_lists(h, ev);
}

/*
 * Another hub's gap (control.c, sealed: it verified): it shed events
 * bound for the bus, which this hub's streams may have missed; each
 * that may have (every one, or those the gap names) ends with its
 * result, so that its client listens again and reads afresh.  This
 * hub's own gap, come back, ends nothing: its streams had its events.
 */
static unsigned long
gap_end(struct hub *h, struct stream *s)
{
	if (s->ending || s->dead)
		return 0;
	(void)hub_end(h, s);
	return 1;
}

/*
 * The streams a narrow gap names end: those of its list kinds, those
 * watching one of its URIs (the index).
 */
static unsigned long
gap_narrow(struct hub *h, const struct front_event *ev)
{
	struct stream	*s;
	struct watch	*w;
	const char	*uri;
	unsigned int	 hash;
	unsigned long	 n = 0;
	size_t		 i;
	int		 j;

	for (j = 0; j < 3; j++)
		if (ev->lists & (1 << j))
			for (s = h->kind[j]; s != NULL; s = s->knext[j])
				n += gap_end(h, s);
	for (i = 0; ev->uris != NULL && h->nindex > 0 &&
	    i < json_object_array_length(ev->uris); i++) {
		uri = json_object_get_string(json_object_array_get_idx(
		    ev->uris, i));
		hash = hub_uri_hash(uri);
		for (w = h->index[hash & (h->nindex - 1)]; w != NULL;
		    w = w->next)
			if (w->hash == hash && strcmp(w->uri, uri) == 0)
				n += gap_end(h, w->s);
	}
	return n;
}

static void
gap(struct hub *h, const struct front_event *ev)
{
	struct stream	*s, *next;
	unsigned long	 n = 0;

	if (front_control_ours(h->ctl, ev))
		return;
	__atomic_add_fetch(&h->l->gaps_in, 1, __ATOMIC_RELAXED);
	if (ev->narrow)
		n = gap_narrow(h, ev);
	else
		for (s = h->first; s != NULL; s = next) {
			next = s->next;
			n += gap_end(h, s);
		}
	__atomic_add_fetch(&h->l->gap_ended, n, __ATOMIC_RELAXED);
	if (n > 0)
		front_log(WYMCP_LOG_WARNING, "hub: hub %s shed events on the "
		    "bus: %lu listen streams end (their clients listen "
		    "again)", ev->from, n);
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
	case FRONT_EV_GAP:
		gap(h, ev);
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
void
hub_refuse(struct hub *h, int src, enum front_refusal why, const char *msg,
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
void
hub_from_outside(struct hub *h, int src, const char *msg, size_t len)
{
	struct front_event	 ev, in;
	enum front_refusal	 why;

	if ((why = front_intake(msg, len, FRONT_FROM_OUTSIDE, &ev)) !=
	    FRONT_REF_NONE) {
		hub_refuse(h, src, why, msg, len);
		return;
	}
	if (ev.kind != FRONT_EV_SEALED) {
		/* Data from the hub socket goes to every host first. */
		if (src != FRONT_SRC_SOCKET ||
		    front_bus_send(h->bus, msg, len) != 0)
			apply(h, &ev);
	} else if (src != FRONT_SRC_BUS)
		hub_refuse(h, src, FRONT_REF_COMMAND, msg, len);
	else if ((why = front_control_open(h->ctl, &ev, &in)) !=
	    FRONT_REF_NONE)
		hub_refuse(h, src, why, msg, len);
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
	    (frame = front_control_seal(h->ctl, msg, len)) == NULL) {
		front_bus_shed(h->bus, NULL, 0);	/* with a bus */
		return -1;
	}
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
void
hub_from_worker(struct hub *h, const char *msg, size_t len)
{
	struct front_event	 ev;
	enum front_refusal	 why;
	int			 sent;

	if ((why = front_intake(msg, len, FRONT_FROM_WORKER, &ev)) !=
	    FRONT_REF_NONE) {
		hub_refuse(h, FRONT_SRC_WORKER, why, msg, len);
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

/* The bus's callbacks (bus.c): what it heard, or could not send. */
void
hub_bus_take(void *arg, const char *msg, size_t len)
{
	hub_from_outside(arg, FRONT_SRC_BUS, msg, len);
}

/* Streams held now would miss events while the bus is down. */
int
hub_bus_holding(void *arg)
{
	return ((struct hub *)arg)->first != NULL;
}

/* The bus is back: streams that may have missed events listen again. */
void
hub_bus_again(void *arg)
{
	struct hub	*h = arg;
	struct stream	*s, *next;
	unsigned long	 n = 0;

	for (s = h->first; s != NULL; s = next) {
		next = s->next;
		if (!s->ending && !s->dead)
			n++;
		(void)hub_end(h, s);
	}
	__atomic_add_fetch(&h->l->gap_ended, n, __ATOMIC_RELAXED);
}

/* Events of this hub were shed on the bus: the gap to tell the others. */
char *
hub_bus_gap(void *arg, const struct front_gapset *g)
{
	return front_control_gap(((struct hub *)arg)->ctl, g);
}
