/*
 * bus.c - the hub's client of the bus (--bus postgresql://...)
 *
 * What the hub sends and hears there is its business (hub.c, intake.c,
 * control.c); this file keeps the connection, the queue of NOTIFYs and
 * the figures of the status page.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/epoll.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "front.h"
#include "intake.h"

#define BUS_QUEUE_MAX	65536		/* events waiting to be sent */
#define BUS_QUEUE_BYTES	(16 * 1024 * 1024)	/* ... and their bytes */
#define BUS_BACKOFF_MS	200
#define BUS_BACKOFF_MAX	5000

/*
 * The bus (--bus postgresql://...): one connection, made without
 * blocking through pg.so's bus operations (wymcp_bus_*() of wymcp.h: libpq's
 * PQconnectStart and the rest), that LISTENs on FRONT_BUS_CHANNEL, served
 * by the hub's loop (front_bus_ready(), front_bus_tick()).  While
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
 *
 * The other hosts' streams missed this instance's events of the outage
 * (and any the queue could not hold, or a NOTIFY that failed carried):
 * those events are shed on the bus (counted), and the first NOTIFY the
 * bus takes again begins with a gap (control.c), sealed under the state
 * key, naming the list kinds and URIs shed (or all), on which every
 * other hub ends the same way the streams that may have missed them.
 */

enum bus_state { BUS_OFF, BUS_WAIT, BUS_CONNECTING, BUS_LISTENING,
	BUS_UP };

struct bus_msg {
	struct bus_msg	*next;
	size_t		 len;
	char		 text[];
};

struct front_bus {
	struct front_bus_cb cb;		/* the hub's */
	struct front_listen *l;		/* its page: the figures */
	int		 ep;		/* the hub's epoll */
	const char	*uri;
	enum bus_state	 state;
	const void	*be;		/* pg.so: wymcp_backend_load() */
	struct wymcp_bus *db;		/* its connection, or NULL */
	int		 fd;		/* in epoll, or -1 */
	unsigned int	 events;	/* what epoll waits for on fd */
	int		 busy;		/* a query is in flight */
	size_t		 inflight;	/* ... with this many events */
	int		 missed;	/* was down: held streams end */
	int		 warned;	/* the outage is logged */
	int		 gap;		/* events shed: a gap to send */
	struct front_gapset gs;		/* ... for these streams */
	int		 gapping;	/* ... in the NOTIFY in flight */
	unsigned long	 shed_quiet;	/* shed, not logged since */
	long long	 shed_logged;	/* ms, 0: never */
	long long	 retry_at;	/* ms */
	int		 backoff;	/* ms */
	struct bus_msg	*head, *tail;	/* to NOTIFY */
	size_t		 queued;
	size_t		 qbytes;
};

/* Record the bus's failure `what' for the status page and the log. */
static void
bus_note(struct front_bus *b, const char *what)
{
	struct front_listen	*l = b->l;
	const char		*m = wymcp_bus_error(b->db);

	while (__atomic_exchange_n(&l->bus_lock, 1, __ATOMIC_ACQUIRE))
		;
	snprintf(l->bus_error, sizeof(l->bus_error), "%s%s%.*s", what,
	    *m != '\0' ? ": " : "", (int)strcspn(m, "\n"), m);
	l->bus_error_at = (long long)time(NULL);
	__atomic_store_n(&l->bus_lock, 0, __ATOMIC_RELEASE);
}

/* Forget what the gap was to say. */
static void
gapset_clear(struct front_gapset *g)
{
	size_t	 i;

	for (i = 0; i < g->nuris; i++)
		free(g->uris[i]);
	memset(g, 0, sizeof(*g));
}

/*
 * The streams that may miss the event `msg' (NULL: not data, or not
 * known) added to those the gap names: its list kinds, its URI; past
 * FRONT_GAPSET_URIS of them, every stream.
 */
static void
gapset_add(struct front_gapset *g, const char *msg, size_t len)
{
	struct front_event	 ev;
	size_t			 i;

	if (g->all)
		return;
	if (msg == NULL || front_intake(msg, len, FRONT_FROM_OUTSIDE, &ev) !=
	    FRONT_REF_NONE) {
		g->all = 1;
		return;
	}
	if (ev.kind == FRONT_EV_LIST)
		g->lists |= ev.lists;
	else if (ev.kind != FRONT_EV_UPDATED)
		g->all = 1;	/* sealed stream control: whose, unknown */
	else {
		for (i = 0; i < g->nuris; i++)
			if (strcmp(g->uris[i], ev.uri) == 0)
				break;
		if (i == g->nuris && (g->nuris == FRONT_GAPSET_URIS ||
		    (g->uris[g->nuris] = strdup(ev.uri)) == NULL))
			g->all = 1;
		else if (i == g->nuris)
			g->nuris++;
	}
	front_event_clear(&ev);
}

/*
 * The event `msg' of this instance (NULL: one that is not data) did not
 * reach the bus (dispatched here only): counted, logged at most once a
 * minute, and a gap to send for the streams that may miss it.
 */
void
front_bus_shed(struct front_bus *b, const char *msg, size_t len)
{
	long long	 now = front_now_ms();

	if (b == NULL)
		return;
	__atomic_add_fetch(&b->l->bus_shed, 1, __ATOMIC_RELAXED);
	b->gap = 1;
	gapset_add(&b->gs, msg, len);
	b->shed_quiet++;
	if (b->shed_logged != 0 && now - b->shed_logged < 60000)
		return;
	front_log(WYMCP_LOG_WARNING, "hub: events shed on the bus (%s; %lu "
	    "since the last line): this instance's listeners got them, the "
	    "other hosts' streams that may miss them end when the bus takes "
	    "this hub's gap", b->state != BUS_UP ? "the bus is down" :
	    "its queue full, a NOTIFY failed, or an event too long",
	    b->shed_quiet);
	b->shed_logged = now;
	b->shed_quiet = 0;
}

/* Wait on the bus's socket for `events' (0: not at all). */
static void
bus_watch(struct front_bus *b, unsigned int events)
{
		struct epoll_event	 ev;
	int			 fd = wymcp_bus_fd(b->db);

	if (fd != b->fd && b->fd >= 0) {
		(void)epoll_ctl(b->ep, EPOLL_CTL_DEL, b->fd, NULL);
		b->fd = -1;
	}
	if (fd < 0 || events == 0) {
		if (b->fd >= 0)
			(void)epoll_ctl(b->ep, EPOLL_CTL_DEL, b->fd, NULL);
		b->fd = -1;
		return;
	}
	if (b->fd == fd && b->events == events)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.events = events;
	ev.data.ptr = b;
	if (epoll_ctl(b->ep, b->fd == fd ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd,
	    &ev) == 0) {
		b->fd = fd;
		b->events = events;
	}
}

/* The bus went away (or never came): back off, then try again. */
static void
bus_lost(struct front_bus *b, const char *what)
{
	struct bus_msg	*m;

	bus_note(b, what);
	if (!b->warned)
		front_log(WYMCP_LOG_WARNING, "hub: the bus is unreachable "
		    "(%s): events reach this instance's listeners only until "
		    "it is back", b->l->bus_error);
	b->warned = 1;
	bus_watch(b, 0);
	if (b->db != NULL)
		wymcp_bus_close(b->db);
	b->db = NULL;
	/* Events not sent: this instance's listeners still get them. */
	b->state = BUS_WAIT;
	while ((m = b->head) != NULL) {
		b->head = m->next;
		b->cb.take(b->cb.arg, m->text, m->len);
		front_bus_shed(b, m->text, m->len);
		free(m);
	}
	b->tail = NULL;
	if (b->gapping)		/* its streams are not known any more */
		b->gap = b->gs.all = 1;
	b->gapping = 0;
	b->queued = 0;
	b->qbytes = 0;
	b->busy = 0;
	b->inflight = 0;
	b->missed = 1;
	b->backoff = b->backoff == 0 ? BUS_BACKOFF_MS :
	    b->backoff * 2 > BUS_BACKOFF_MAX ? BUS_BACKOFF_MAX :
	    b->backoff * 2;
	b->retry_at = front_now_ms() + b->backoff;
	__atomic_store_n(&b->l->bus_up, 0, __ATOMIC_RELAXED);
}

/* Start connecting (without blocking). */
static void
bus_start(struct front_bus *b)
{

	if (wymcp_bus_start(b->be, b->uri, &b->db) != WYMCP_OK) {
		bus_lost(b, "cannot connect");
		return;
	}
	b->state = BUS_CONNECTING;
	bus_watch(b, EPOLLOUT);
}

/*
 * The gap first: sealed now (its time is the NOTIFY's), at the start
 * of `payload'; its length, 0 when none is due or it cannot be made.
 */
static size_t
bus_gap(struct front_bus *b, char *payload)
{
	char	*g;
	size_t	 len;

	if (!b->gap)
		return 0;
	b->gap = 0;
	g = b->cb.gap(b->cb.arg, &b->gs);
	gapset_clear(&b->gs);
	if (g == NULL || (len = strlen(g)) > FRONT_BUS_PAYLOAD_MAX) {
		front_log(WYMCP_LOG_WARNING, "hub: no gap sealed for the "
		    "events shed on the bus: the other hosts' streams are "
		    "not told");
		free(g);
		return 0;
	}
	memcpy(payload, g, len);
	free(g);
	b->gapping = 1;
	return len;
}

/*
 * Send the next NOTIFY, when none is in flight: a gap when one is due,
 * then the events queued, one a line, as many as FRONT_BUS_PAYLOAD_MAX
 * bytes hold.
 */
static void
bus_pump(struct front_bus *b)
{
	static char	 payload[FRONT_BUS_PAYLOAD_MAX + 1];
	struct bus_msg	*m;
	size_t		 len, n = 0;

	if (b->state != BUS_UP || b->busy || (b->head == NULL && !b->gap))
		return;
	if ((len = bus_gap(b, payload)) == 0 && b->head == NULL)
		return;
	for (m = b->head; m != NULL; m = m->next) {
		if (len + (len > 0) + m->len > FRONT_BUS_PAYLOAD_MAX)
			break;
		if (len > 0)
			payload[len++] = '\n';
		n++;
		memcpy(payload + len, m->text, m->len);
		len += m->len;
	}
	payload[len] = '\0';
	if (wymcp_bus_notify(b->db, FRONT_BUS_CHANNEL, payload) != 0) {
		bus_lost(b, "notify");
		return;
	}
	b->busy = 1;
	b->inflight = n;
	__atomic_add_fetch(&b->l->bus_notifies, 1, __ATOMIC_RELAXED);
	if (b->gapping)
		__atomic_add_fetch(&b->l->gaps_sent, 1, __ATOMIC_RELAXED);
	if (wymcp_bus_flush(b->db) == 1)
		bus_watch(b, EPOLLIN | EPOLLOUT);
}

/*
 * `ev' on one line, as a NOTIFY carries events: a newline of JSON is
 * white space (and inside a string not JSON at all).
 */
void
front_bus_oneline(char *ev)
{
	for (; (ev = strchr(ev, '\n')) != NULL; ev++)
		*ev = ' ';
}

/*
 * An event of this instance: to the bus (0), or -1 when there is none
 * up (the caller dispatches it here).
 */
int
front_bus_send(struct front_bus *b, const char *msg, size_t len)
{
	struct bus_msg	*m;

	if (b == NULL)
		return -1;
	if (b->state != BUS_UP || len > FRONT_BUS_PAYLOAD_MAX ||
	    memchr(msg, '\0', len) != NULL || b->queued >= BUS_QUEUE_MAX ||
	    b->qbytes + len > BUS_QUEUE_BYTES ||
	    (m = malloc(sizeof(*m) + len + 1)) == NULL) {
		front_bus_shed(b, msg, len);
		return -1;
	}
	m->next = NULL;
	m->len = len;
	memcpy(m->text, msg, len);
	m->text[len] = '\0';
	front_bus_oneline(m->text);
	if (b->tail != NULL)
		b->tail->next = m;
	else
		b->head = m;
	b->tail = m;
	b->queued++;
	b->qbytes += len;
	__atomic_add_fetch(&b->l->bus_sent, 1, __ATOMIC_RELAXED);
	bus_pump(b);
	return 0;
}

/*
 * A notification came: events of some instance, this one's too, one a
 * line (each parsed alone: intake.c).
 */
static void
bus_heard(void *arg, const char *msg, size_t len)
{
	struct front_bus	*b = arg;
	const char		*nl;
	size_t			 k;

	while (len > 0) {
		k = (nl = memchr(msg, '\n', len)) != NULL ?
		    (size_t)(nl - msg) : len;
		if (k > 0) {
			__atomic_add_fetch(&b->l->bus_received, 1,
			    __ATOMIC_RELAXED);
			b->cb.take(b->cb.arg, msg, k);
		}
		if (nl == NULL)
			break;
		msg += k + 1;
		len -= k + 1;
	}
}

/* LISTEN is done: the bus is up. */
static void
bus_is_up(struct front_bus *b)
{
	b->state = BUS_UP;
	b->backoff = 0;
	__atomic_store_n(&b->l->bus_up, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&b->l->bus_connects, 1, __ATOMIC_RELAXED);
	front_log(b->warned ? WYMCP_LOG_WARNING : WYMCP_LOG_INFO,
	    "hub: listening on the bus%s", b->warned ? " again" : "");
	b->warned = 0;
	/*
	 * Streams held now may have missed other hosts' events (open
	 * during the outage): listen again.
	 */
	if (b->missed && b->cb.holding(b->cb.arg))
		b->cb.again(b->cb.arg);
	b->missed = 0;
}

/*
 * The NOTIFY in flight is done (`ok'), or failed: then its events are
 * dispatched here only (shed on the bus), and its gap is due again.
 */
static void
bus_notified(struct front_bus *b, int ok)
{
	struct bus_msg	*m;

	while (b->inflight > 0 && (m = b->head) != NULL) {
		b->head = m->next;
		if (b->head == NULL)
			b->tail = NULL;
		b->queued--;
		b->qbytes -= m->len;
		b->inflight--;
		if (!ok) {
			b->cb.take(b->cb.arg, m->text, m->len);
			front_bus_shed(b, m->text, m->len);
		}
		free(m);
	}
	b->inflight = 0;
	if (!ok && b->gapping)	/* as above */
		b->gap = b->gs.all = 1;
	b->gapping = 0;
}

/* The bus's socket is ready: connect, take results and notifications. */
void
front_bus_ready(struct front_bus *b)
{
	int		 ok;

	if (b->state == BUS_CONNECTING) {
		switch (wymcp_bus_poll(b->db)) {
		case WYMCP_BUS_READ:
			bus_watch(b, EPOLLIN);
			return;
		case WYMCP_BUS_WRITE:
			bus_watch(b, EPOLLOUT);
			return;
		case 0:
			break;
		default:
			bus_lost(b, "connect");
			return;
		}
		if (wymcp_bus_listen(b->db, FRONT_BUS_CHANNEL) != 0) {
			bus_lost(b, "listen");
			return;
		}
		b->state = BUS_LISTENING;
		b->busy = 1;
		bus_watch(b, EPOLLIN);
	}
	if (wymcp_bus_flush(b->db) == -1) {
		bus_lost(b, "send");
		return;
	}
	if (wymcp_bus_input(b->db) != 0) {
		bus_lost(b, "read");
		return;
	}
	while (b->busy && (ok = wymcp_bus_done(b->db)) != -1) {
		b->busy = 0;
		if (b->state == BUS_LISTENING) {
			if (!ok) {
				bus_lost(b, "listen");
				return;
			}
			bus_is_up(b);
		} else
			bus_notified(b, ok);
		bus_pump(b);
		if (b->state != BUS_UP)
			return;
	}
	wymcp_bus_notified(b->db, bus_heard, b);
	if (wymcp_bus_bad(b->db))
		bus_lost(b, "connection");
}

/* Once a tick: a bus down is tried again when its back-off ends. */
void
front_bus_tick(struct front_bus *b)
{
	if (b != NULL && b->state == BUS_WAIT && front_now_ms() >= b->retry_at)
		bus_start(b);
}


struct front_bus *
front_bus_new(const char *uri, const void *be,
    struct front_listen *l, int ep, const struct front_bus_cb *cb)
{
	struct front_bus	*b;

	if (uri == NULL || !wymcp_backend_has_bus(be) ||
	    (b = calloc(1, sizeof(*b))) == NULL)
		return NULL;
	b->cb = *cb;
	b->l = l;
	b->ep = ep;
	b->uri = uri;
	b->be = be;
	b->fd = -1;
	bus_start(b);
	return b;
}

int
front_bus_up(const struct front_bus *b)
{
	return b != NULL && b->state == BUS_UP;
}

void
front_bus_free(struct front_bus *b)
{
	struct bus_msg	*m;

	if (b == NULL)
		return;
	if (b->db != NULL) {
		bus_watch(b, 0);
		wymcp_bus_close(b->db);
	}
	while ((m = b->head) != NULL) {
		b->head = m->next;
		free(m);
	}
	gapset_clear(&b->gs);
	free(b);
}
