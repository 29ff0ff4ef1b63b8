/*
 * status.c - the status page: the pool and its requests for operators
 *
 * Like php-fpm's pm.status_path: with --status-path, a request the web
 * server routes to that path is answered by the worker itself, never by
 * the library, as JSON or (?format=prometheus, or an Accept naming
 * text/plain) Prometheus text format 0.0.4.  Only addresses of its own
 * allow-list (--status-allow; loopback by default) may read it: the
 * client's address is REMOTE_ADDR, which the web server sets.
 *
 * The figures live in one page shared by the whole pool (made before
 * the first fork): workers count their requests into it with atomic
 * additions; the supervisor writes what it sees of the pool at each of
 * its looks.  Two are read when the page is asked for: the workers a
 * 2025-11-25 client's question holds (the relay page's count, which
 * --max-asking caps) and, with a task store, its tasks by state (one
 * query).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <fcgiapp.h>

#include "front.h"
#include "intake.h"

/* The methods counted by name; anything else is "other". */
static const char *const methods[FRONT_NMETHODS] = {
	"server/discover", "tools/list", "tools/call", "resources/list",
	"resources/templates/list", "resources/read", "prompts/list",
	"prompts/get", "completion/complete", "initialize", "ping", "other"
};
static const char *const outcomes[3] = { "ok", "client_error",
	"server_error" };

/* The page, shared when made before the fork.  NULL on failure. */
struct front_stats *
front_stats_new(void)
{
	struct front_stats	*s;

	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED) {
		front_log(WYMCP_LOG_ERR, "mmap: %s", strerror(errno));
		return NULL;
	}
	memset(s, 0, sizeof(*s));
	s->started = (long long)time(NULL);
	return s;
}

/* Count one request: its method and its HTTP status (0: none written). */
void
front_stats_count(struct front_stats *s, const char *method, int status)
{
	size_t	 m, o;

	if (s == NULL)
		return;
	for (m = 0; m < FRONT_NMETHODS - 1; m++)
		if (strcmp(method, methods[m]) == 0)
			break;
	o = status >= 200 && status < 400 ? 0 : status >= 400 &&
	    status < 500 ? 1 : 2;
	__atomic_add_fetch(&s->requests[m][o], 1, __ATOMIC_RELAXED);
}

/* Keep the store's last error and when (a spin lock: writers are rare). */
static void
store_error(struct front_stats *s, const char *why)
{
	while (__atomic_exchange_n(&s->store_lock, 1, __ATOMIC_ACQUIRE))
		;
	snprintf(s->store_error, sizeof(s->store_error), "%s", why);
	s->store_error_at = (long long)time(NULL);
	__atomic_store_n(&s->store_lock, 0, __ATOMIC_RELEASE);
}

/*
 * The task store's watch (wymcp_server_set_task_store_watch()): every
 * process of the pool tells the page what it saw, and the process that
 * flips the pool's state logs it, so an outage is one line when it
 * starts and one when it ends, not one a request or a process.  A
 * process that connects, anew or again, ends the outage; one whose
 * connection broke and was made again at once is a reconnect, logged
 * at info level only.
 */

void
front_store_watch(void *arg, enum wymcp_store_event ev, const char *why)
{
	struct front_stats	*s = arg;
	long long		 since;
	int			 want;

	if (ev == WYMCP_STORE_SLOW) {
		/* A lease renewal the store took longer than the lease. */
		if (s != NULL)
			__atomic_add_fetch(&s->store_slow, 1,
			    __ATOMIC_RELAXED);
		front_log(WYMCP_LOG_WARNING, "task store: %s", why);
		return;
	}
	if (s == NULL) {
		/* One process, nothing to share: say it as it is. */
		if (ev == WYMCP_STORE_DOWN)
			front_log(WYMCP_LOG_WARNING, "task store "
			    "unreachable: %s", why);
		else if (ev == WYMCP_STORE_BACK)
			front_log(WYMCP_LOG_WARNING, "task store reachable "
			    "again");
		return;
	}
	if (ev == WYMCP_STORE_DOWN) {
		store_error(s, why);
		want = 0;
		if (!__atomic_compare_exchange_n(&s->store_down, &want, 1, 0,
		    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return;
		__atomic_store_n(&s->store_down_since, (long long)time(NULL),
		    __ATOMIC_RELAXED);
		__atomic_add_fetch(&s->store_outages, 1, __ATOMIC_RELAXED);
		front_log(WYMCP_LOG_WARNING, "task store unreachable: %s; "
		    "requests that need it are answered 503 until it is back",
		    why);
		return;
	}
	__atomic_add_fetch(&s->store_reconnects, 1, __ATOMIC_RELAXED);
	if (ev == WYMCP_STORE_RECONNECT) {
		store_error(s, why);
		front_log(WYMCP_LOG_INFO, "task store: the connection broke "
		    "(%s); connected again", why);
	}
	want = 1;
	if (!__atomic_compare_exchange_n(&s->store_down, &want, 0, 0,
	    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	since = __atomic_load_n(&s->store_down_since, __ATOMIC_RELAXED);
	front_log(WYMCP_LOG_WARNING, "task store reachable again after %lld "
	    "s", (long long)time(NULL) - since);
}

/*
 * Is the client at REMOTE_ADDR allowed to read the page?  The allow-list
 * when there is one, else loopback addresses only.
 */
static int
allowed(const struct front_limits *lim, const char *addr)
{
	struct sockaddr_storage	 ss;
	struct sockaddr_in	*sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)&ss;
	socklen_t		 len;

	if (addr == NULL)
		return 0;
	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		len = sizeof(*sin);
	} else if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		len = sizeof(*sin6);
	} else
		return 0;
	if (lim->nstatus_peers == 0)
		return prog_addr_loopback((struct sockaddr *)&ss, len);
	return prog_peer_allowed(lim->status_peers, lim->nstatus_peers,
	    (struct sockaddr *)&ss, len);
}

/* Append to the page being built; the length so far. */
static size_t
put(char *buf, size_t cap, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static size_t
put(char *buf, size_t cap, size_t n, const char *fmt, ...)
{
	va_list	 ap;
	int	 w;

	if (n >= cap)
		return n;
	va_start(ap, fmt);
	w = vsnprintf(buf + n, cap - n, fmt, ap);
	va_end(ap);
	return w < 0 ? n : n + (size_t)w;
}

/* A JSON string of `str', its quotes and escapes included. */
static size_t
put_str(char *buf, size_t cap, size_t n, const char *str)
{
	const unsigned char	*p;

	n = put(buf, cap, n, "\"");
	for (p = (const unsigned char *)str; *p != '\0'; p++)
		if (*p == '"' || *p == '\\')
			n = put(buf, cap, n, "\\%c", *p);
		else if (*p < 0x20)
			n = put(buf, cap, n, "\\u%04x", *p);
		else
			n = put(buf, cap, n, "%c", *p);
	return put(buf, cap, n, "\"");
}

/* The task store's member, "taskStore":{...}, after a comma. */
static size_t
put_store(const struct front_stats *s, char *buf, size_t cap, size_t n)
{
	struct front_stats	*w = (struct front_stats *)s;
	char			 err[sizeof(s->store_error)];
	long long		 at, since;
	int			 down;

	while (__atomic_exchange_n(&w->store_lock, 1, __ATOMIC_ACQUIRE))
		;
	memcpy(err, s->store_error, sizeof(err));
	at = s->store_error_at;
	__atomic_store_n(&w->store_lock, 0, __ATOMIC_RELEASE);
	err[sizeof(err) - 1] = '\0';
	down = __atomic_load_n(&s->store_down, __ATOMIC_ACQUIRE);
	since = __atomic_load_n(&s->store_down_since, __ATOMIC_RELAXED);
	n = put(buf, cap, n, ",\"taskStore\":{\"up\":%s,\"reconnects\":%lu,"
	    "\"outages\":%lu,\"slowRenewals\":%lu,\"downSince\":",
	    down ? "false" : "true", s->store_reconnects, s->store_outages,
	    s->store_slow);
	n = down ? put(buf, cap, n, "%lld", since) : put(buf, cap, n, "null");
	n = put(buf, cap, n, ",\"lastError\":");
	n = at != 0 ? put_str(buf, cap, n, err) : put(buf, cap, n, "null");
	n = at != 0 ? put(buf, cap, n, ",\"lastErrorAt\":%lld}", at) :
	    put(buf, cap, n, ",\"lastErrorAt\":null}");
	return n;
}

#define L(m)	__atomic_load_n(&l->m, __ATOMIC_RELAXED)

/* The bus's member of "listen", "bus":{...}, after a comma. */
static size_t
put_bus(const struct front_listen *l, char *buf, size_t cap, size_t n)
{
	struct front_listen	*w = (struct front_listen *)l;
	char			 err[sizeof(l->bus_error)];
	long long		 at;

	while (__atomic_exchange_n(&w->bus_lock, 1, __ATOMIC_ACQUIRE))
		;
	memcpy(err, l->bus_error, sizeof(err));
	at = l->bus_error_at;
	__atomic_store_n(&w->bus_lock, 0, __ATOMIC_RELEASE);
	err[sizeof(err) - 1] = '\0';
	n = put(buf, cap, n, ",\"bus\":{\"up\":%s,\"connects\":%lu,"
	    "\"eventsSent\":%lu,\"eventsReceived\":%lu,\"notifies\":%lu,"
	    "\"eventsShed\":%lu,\"gapsSent\":%lu,\"gapsReceived\":%lu,"
	    "\"lastError\":", L(bus_up) ? "true" : "false", L(bus_connects),
	    L(bus_sent), L(bus_received), L(bus_notifies), L(bus_shed),
	    L(gaps_sent), L(gaps_in));
	n = at != 0 ? put_str(buf, cap, n, err) : put(buf, cap, n, "null");
	return at != 0 ? put(buf, cap, n, ",\"lastErrorAt\":%lld}", at) :
	    put(buf, cap, n, ",\"lastErrorAt\":null}");
}

/*
 * The events the hub refused, "eventsRefused":{"bus":{"malformed":N,
 * ...},"socket":{...},"worker":{...}}, after a comma (hub.c, intake.h).
 */
static const char *const refusal_src[FRONT_SRC_N] = { "bus", "socket",
	"worker" };
_Static_assert(FRONT_REF_N <= FRONT_REFUSALS,
    "front_listen's refused_events has a column for each refusal");

static size_t
put_refused(const struct front_listen *l, char *buf, size_t cap, size_t n)
{
	int	 i, j;

	n = put(buf, cap, n, ",\"eventsRefused\":{");
	for (i = 0; i < FRONT_SRC_N; i++) {
		n = put(buf, cap, n, "%s\"%s\":{", i > 0 ? "," : "",
		    refusal_src[i]);
		for (j = 1; j < FRONT_REF_N; j++)
			n = put(buf, cap, n, "%s\"%s\":%lu", j > 1 ? "," : "",
			    front_refusal_names[j], __atomic_load_n(
			    &l->refused_events[i][j], __ATOMIC_RELAXED));
		n = put(buf, cap, n, "}");
	}
	return put(buf, cap, n, "}");
}

/* The same in Prometheus text. */
static size_t
prom_refused(const struct front_listen *l, char *buf, size_t cap, size_t n)
{
	int	 i, j;

	n = put(buf, cap, n,
	    "# HELP wymcp_hub_events_refused_total Events the hub refused, "
	    "by where from and why.\n"
	    "# TYPE wymcp_hub_events_refused_total counter\n");
	for (i = 0; i < FRONT_SRC_N; i++)
		for (j = 1; j < FRONT_REF_N; j++)
			n = put(buf, cap, n, "wymcp_hub_events_refused_total"
			    "{source=\"%s\",reason=\"%s\"} %lu\n",
			    refusal_src[i], front_refusal_names[j],
			    __atomic_load_n(&l->refused_events[i][j],
			    __ATOMIC_RELAXED));
	return n;
}

/* A share table's fill (share.c): ,"NAME":{...}. */
static size_t
put_shares(struct front_shares *t, const char *name, char *buf, size_t cap,
    size_t n)
{
	size_t		 used, slots;
	unsigned long	 full;

	front_shares_figures(t, &used, &slots, &full);
	return put(buf, cap, n, ",\"%s\":{\"used\":%zu,"
	    "\"capacity\":%zu,\"refusedNoRoom\":%lu}", name, used, slots,
	    full);
}

/* The hub's member, "listen":{...}, after a comma. */
static size_t
put_listen(const struct front_listen *l, char *buf, size_t cap, size_t n)
{
	n = put(buf, cap, n, ",\"listen\":{\"hubUp\":%s,\"held\":%d,"
	    "\"max\":%d,\"maxPerPrincipal\":%d,\"maxAgeSeconds\":%u,"
	    "\"streams\":{\"listChanged\":%d,\"resourceUpdates\":%d},"
	    "\"opened\":%lu,\"refused\":%lu,\"ended\":%lu,\"aged\":%lu,"
	    "\"clientGone\":%lu,\"droppedSlow\":%lu,\"lostNoFd\":%lu,"
	    "\"eventsIn\":%lu,\"framesOut\":%lu,\"hubStarts\":%lu,"
	    "\"descriptorRoom\":%d,\"refusedNoFd\":%lu,\"eventsShed\":%lu,"
	    "\"endedForShed\":%lu,\"endedForBusGap\":%lu,"
	    "\"workerWaits\":%lu,\"slotsTaken\":%d,\"reclaimed\":%lu",
	    L(hub_up) ? "true" : "false", L(hub_held), l->max, l->per,
	    l->max_age, L(lists_streams), L(resource_streams), L(opened),
	    L(refused), L(ended), L(aged), L(gone), L(dropped), L(lost),
	    L(events), L(frames), L(hub_starts), L(fd_room), L(no_fd),
	    L(shed), L(shed_ended), L(gap_ended), L(waits), L(held),
	    L(reclaimed));
	n = put_shares(l->shares, "shares", buf, cap, n);
	n = put_refused(l, buf, cap, n);
	if (l->bus)
		n = put_bus(l, buf, cap, n);
	return put(buf, cap, n, "}");
}

/* The bus's figures in Prometheus text. */
static size_t
prom_bus(const struct front_listen *l, char *buf, size_t cap, size_t n)
{
	return put(buf, cap, n,
	    "# HELP wymcp_bus_up Whether the hub listens on the bus.\n"
	    "# TYPE wymcp_bus_up gauge\n"
	    "wymcp_bus_up %d\n"
	    "# HELP wymcp_bus_connects_total Connections to the bus "
	    "made.\n"
	    "# TYPE wymcp_bus_connects_total counter\n"
	    "wymcp_bus_connects_total %lu\n"
	    "# HELP wymcp_bus_events_total Events sent to and taken "
	    "from the bus.\n"
	    "# TYPE wymcp_bus_events_total counter\n"
	    "wymcp_bus_events_total{way=\"sent\"} %lu\n"
	    "wymcp_bus_events_total{way=\"received\"} %lu\n"
	    "wymcp_bus_events_total{way=\"shed\"} %lu\n"
	    "# HELP wymcp_bus_gaps_total Gaps (events shed on the "
	    "bus) sent and taken.\n"
	    "# TYPE wymcp_bus_gaps_total counter\n"
	    "wymcp_bus_gaps_total{way=\"sent\"} %lu\n"
	    "wymcp_bus_gaps_total{way=\"received\"} %lu\n"
	    "# HELP wymcp_bus_notifies_total NOTIFYs sent (events "
	    "batched, one a line).\n"
	    "# TYPE wymcp_bus_notifies_total counter\n"
	    "wymcp_bus_notifies_total %lu\n",
	    L(bus_up), L(bus_connects), L(bus_sent),
	    L(bus_received), L(bus_shed), L(gaps_sent), L(gaps_in),
	    L(bus_notifies));
}

/* The hub's figures in Prometheus text. */
static size_t
prom_listen(const struct front_listen *l, char *buf, size_t cap, size_t n)
{
	n = prom_refused(l, buf, cap, n);
	n = put(buf, cap, n,
	    "# HELP wymcp_listen_streams Listen streams the hub holds, by "
	    "kind.\n"
	    "# TYPE wymcp_listen_streams gauge\n"
	    "wymcp_listen_streams{kind=\"list_changed\"} %d\n"
	    "wymcp_listen_streams{kind=\"resource_updates\"} %d\n"
	    "# HELP wymcp_listen_held Listen streams held or being handed "
	    "over.\n"
	    "# TYPE wymcp_listen_held gauge\n"
	    "wymcp_listen_held %d\n"
	    "# HELP wymcp_listen_max The most listen streams held at once "
	    "(--max-listeners).\n"
	    "# TYPE wymcp_listen_max gauge\n"
	    "wymcp_listen_max %d\n"
	    "# HELP wymcp_listen_refused_total Listens refused past a cap.\n"
	    "# TYPE wymcp_listen_refused_total counter\n"
	    "wymcp_listen_refused_total %lu\n"
	    "# HELP wymcp_listen_ended_total Listen streams that ended, by "
	    "why.\n"
	    "# TYPE wymcp_listen_ended_total counter\n"
	    "wymcp_listen_ended_total{why=\"server\"} %lu\n"
	    "wymcp_listen_ended_total{why=\"client_gone\"} %lu\n"
	    "wymcp_listen_ended_total{why=\"slow_client\"} %lu\n"
	    "wymcp_listen_ended_total{why=\"events_shed\"} %lu\n"
	    "wymcp_listen_ended_total{why=\"bus_gap\"} %lu\n"
	    "wymcp_listen_ended_total{why=\"no_descriptor\"} %lu\n"
	    "# HELP wymcp_listen_events_total Events the hub took in.\n"
	    "# TYPE wymcp_listen_events_total counter\n"
	    "wymcp_listen_events_total %lu\n"
	    "# HELP wymcp_listen_frames_total Notifications the hub sent.\n"
	    "# TYPE wymcp_listen_frames_total counter\n"
	    "wymcp_listen_frames_total %lu\n"
	    "# HELP wymcp_listen_events_shed_total Events shed (a worker's "
	    "that could not reach the hub, the hub's queue full).\n"
	    "# TYPE wymcp_listen_events_shed_total counter\n"
	    "wymcp_listen_events_shed_total %lu\n"
	    "# HELP wymcp_listen_refused_no_fd_total Listens refused (503) "
	    "for the hub's open-file limit.\n"
	    "# TYPE wymcp_listen_refused_no_fd_total counter\n"
	    "wymcp_listen_refused_no_fd_total %lu\n"
	    "# HELP wymcp_hub_up Whether the hub takes streams.\n"
	    "# TYPE wymcp_hub_up gauge\n"
	    "wymcp_hub_up %d\n"
	    "# HELP wymcp_listen_reclaimed_total Listen slots given back "
	    "for workers that died before handing their stream over.\n"
	    "# TYPE wymcp_listen_reclaimed_total counter\n"
	    "wymcp_listen_reclaimed_total %lu\n",
	    L(lists_streams), L(resource_streams), L(held), l->max,
	    L(refused), L(ended), L(gone), L(dropped), L(shed_ended),
	    L(gap_ended), L(lost), L(events), L(frames), L(shed), L(no_fd),
	    L(hub_up), L(reclaimed));
	return l->bus ? prom_bus(l, buf, cap, n) : n;
}
#undef L

/* What is read when the page is asked for. */
struct now {
	int			 held;		/* workers held by questions */
	int			 max_asking;	/* their cap, 0: none asked */
	int			 per;		/* per principal */
	unsigned long		 refused_share;	/* not asked, past per */
	unsigned long		 reclaimed;	/* of dead workers */
	struct front_shares	*shares;	/* the questions', or NULL */
	int			 tasks;		/* a store answered */
	struct wymcp_task_depth	 depth;
	const struct front_listen *listen;	/* the hub's, or NULL */
	size_t			 exec_tools;	/* exec tools served */
	int			 landlock;	/* their Landlock ABI */
	/* Operators' (ratelimit.c, audit.c): */
	int			 rates;		/* a table of buckets */
	unsigned long		 rate_refused, rate_full;
	size_t			 rate_pairs;
	int			 audit;		/* --audit-log */
	unsigned long		 audit_lines, audit_failed;
	int			 otlp;		/* --otlp-endpoint */
	unsigned long		 span_queued, span_dropped, span_exported;
	unsigned long		 span_failed;
	struct front_otlp_metrics metrics;	/* their posts */
};

/* Fill *nw for the page. */
static void
look(struct wymcp_server *srv, const struct front_limits *lim,
    struct now *nw)
{
	memset(nw, 0, sizeof(*nw));
	if (lim->relay != NULL) {
		nw->held = __atomic_load_n(&lim->relay->asking,
		    __ATOMIC_RELAXED);
		nw->max_asking = lim->relay->max;
		nw->per = lim->relay->per;
		nw->refused_share = __atomic_load_n(
		    &lim->relay->refused_share, __ATOMIC_RELAXED);
		nw->reclaimed = __atomic_load_n(&lim->relay->reclaimed,
		    __ATOMIC_RELAXED);
		nw->shares = lim->relay->shares;
	}
	nw->listen = lim->listen;
	nw->exec_tools = wymcp_server_exec_count(srv);
	nw->landlock = wymcp_exec_landlock();
	if ((nw->rates = front_rates_current() != NULL))
		front_rate_counts(front_rates_current(), &nw->rate_refused,
		    &nw->rate_full, &nw->rate_pairs);
	if ((nw->audit = front_audit_on()))
		front_audit_counts(&nw->audit_lines, &nw->audit_failed);
	if ((nw->otlp = front_otlp_on()))
		front_otlp_counts(&nw->span_queued, &nw->span_dropped,
		    &nw->span_exported, &nw->span_failed);
	if (nw->otlp)
		front_otlp_metric_counts(&nw->metrics);
	/* WYMCP_ERR_INVAL: no task store. */
	nw->tasks = wymcp_server_task_depth(srv, &nw->depth,
	    sizeof(nw->depth)) == WYMCP_OK;
}

/* The page as JSON into buf; its length. */
static size_t
json(const struct front_stats *s, const struct now *nw, char *buf,
    size_t cap)
{
	size_t	 n = 0, m, o;
	int	 first = 1;

	n = put(buf, cap, n, "{\"uptimeSeconds\":%lld,\"workers\":{"
	    "\"running\":%d,\"busy\":%d,\"idle\":%d,\"min\":%d,\"max\":%d,"
	    "\"maxReached\":%lu,\"respawns\":%lu},\"requests\":{",
	    (long long)time(NULL) - s->started, s->running, s->busy,
	    s->running - s->busy, s->min, s->max, s->max_reached,
	    s->respawns);
	for (m = 0; m < FRONT_NMETHODS; m++) {
		n = put(buf, cap, n, "%s\"%s\":{", first ? "" : ",",
		    methods[m]);
		first = 0;
		for (o = 0; o < 3; o++)
			n = put(buf, cap, n, "%s\"%s\":%lu", o ? "," : "",
			    outcomes[o], s->requests[m][o]);
		n = put(buf, cap, n, "}");
	}
	n = put(buf, cap, n, "},\"slowRequests\":%lu,\"slowMs\":%u,"
	    "\"heldByQuestions\":%d,\"maxAsking\":%d,"
	    "\"maxAskingPerPrincipal\":%d,\"askingRefusedShare\":%lu,"
	    "\"askingReclaimed\":%lu",
	    s->slow, s->slow_ms, nw->held, nw->max_asking, nw->per,
	    nw->refused_share, nw->reclaimed);
	if (nw->shares != NULL)
		n = put_shares(nw->shares, "askingShares", buf, cap, n);
	if (nw->tasks)
		n = put(buf, cap, n, ",\"tasks\":{\"waiting\":%lld,"
		    "\"running\":%lld,\"inputRequired\":%lld}",
		    nw->depth.waiting, nw->depth.running,
		    nw->depth.input_required);
	if (s->store)
		n = put_store(s, buf, cap, n);
	if (nw->listen != NULL)
		n = put_listen(nw->listen, buf, cap, n);
	if (nw->exec_tools > 0)
		n = put(buf, cap, n, ",\"execTools\":{\"tools\":%zu,"
		    "\"landlockAbi\":%d}", nw->exec_tools, nw->landlock);
	if (nw->rates)
		n = put(buf, cap, n, ",\"rateLimits\":{\"refused\":%lu,"
		    "\"refusedTableFull\":%lu,\"pairs\":%zu}",
		    nw->rate_refused, nw->rate_full, nw->rate_pairs);
	if (nw->audit)
		n = put(buf, cap, n, ",\"audit\":{\"lines\":%lu,"
		    "\"failed\":%lu}", nw->audit_lines, nw->audit_failed);
	if (nw->otlp)
		n = put(buf, cap, n, ",\"spans\":{\"queued\":%lu,"
		    "\"dropped\":%lu,\"exported\":%lu,\"failed\":%lu}",
		    nw->span_queued, nw->span_dropped, nw->span_exported,
		    nw->span_failed);
	if (nw->otlp && nw->metrics.on)
		n = put(buf, cap, n, ",\"otlpMetrics\":{\"posts\":%lu,"
		    "\"failed\":%lu,\"overflow\":%lu,\"sets\":%lu}",
		    nw->metrics.posts, nw->metrics.failed,
		    nw->metrics.overflow, nw->metrics.sets);
	n = put(buf, cap, n, "}");
	return n;
}

/* The task store's figures as Prometheus text at buf[n]; the length. */
static size_t
prom_store(const struct front_stats *s, char *buf, size_t cap, size_t n)
{
	return put(buf, cap, n,
	    "# HELP wymcp_task_store_up Whether the task store could be "
	    "reached at the last try.\n"
	    "# TYPE wymcp_task_store_up gauge\n"
	    "wymcp_task_store_up %d\n"
	    "# HELP wymcp_task_store_reconnects_total Connections to the "
	    "task store made again.\n"
	    "# TYPE wymcp_task_store_reconnects_total counter\n"
	    "wymcp_task_store_reconnects_total %lu\n"
	    "# HELP wymcp_task_store_outages_total Times the task store "
	    "could not be reached.\n"
	    "# TYPE wymcp_task_store_outages_total counter\n"
	    "wymcp_task_store_outages_total %lu\n"
	    "# HELP wymcp_task_store_slow_renewals_total Lease renewals "
	    "the task store took longer than the lease.\n"
	    "# TYPE wymcp_task_store_slow_renewals_total counter\n"
	    "wymcp_task_store_slow_renewals_total %lu\n",
	    !__atomic_load_n(&s->store_down, __ATOMIC_ACQUIRE),
	    s->store_reconnects, s->store_outages, s->store_slow);
}

/*
 * The operators' figures at `n' of buf (rate limits, audit lines,
 * request histograms, spans): the new length.
 */
static size_t
prom_operators(const struct now *nw, char *buf, size_t cap, size_t n)
{
	if (nw->rates)
		n = put(buf, cap, n,
		    "# HELP wymcp_rate_limited_total Tool calls refused past "
		    "a rate limit (429).\n"
		    "# TYPE wymcp_rate_limited_total counter\n"
		    "wymcp_rate_limited_total %lu\n"
		    "# HELP wymcp_rate_limit_pairs Principal and tool pairs "
		    "with a bucket that is not full.\n"
		    "# TYPE wymcp_rate_limit_pairs gauge\n"
		    "wymcp_rate_limit_pairs %zu\n", nw->rate_refused,
		    nw->rate_pairs);
	if (nw->audit)
		n = put(buf, cap, n,
		    "# HELP wymcp_audit_lines_total Audit lines written, and "
		    "not written.\n"
		    "# TYPE wymcp_audit_lines_total counter\n"
		    "wymcp_audit_lines_total{outcome=\"written\"} %lu\n"
		    "wymcp_audit_lines_total{outcome=\"failed\"} %lu\n",
		    nw->audit_lines, nw->audit_failed);
	n = front_metrics_prom(buf, cap, n);
	if (nw->otlp)
		n = put(buf, cap, n,
		    "# HELP wymcp_spans_total Spans by fate: queued for the "
		    "exporter, dropped (queue full), exported, failed (the "
		    "endpoint did not take them).\n"
		    "# TYPE wymcp_spans_total counter\n"
		    "wymcp_spans_total{fate=\"queued\"} %lu\n"
		    "wymcp_spans_total{fate=\"dropped\"} %lu\n"
		    "wymcp_spans_total{fate=\"exported\"} %lu\n"
		    "wymcp_spans_total{fate=\"failed\"} %lu\n",
		    nw->span_queued, nw->span_dropped, nw->span_exported,
		    nw->span_failed);
	if (nw->otlp && nw->metrics.on)
		n = put(buf, cap, n,
		    "# HELP wymcp_otlp_metric_posts_total Posts of "
		    "mcp.server.operation.duration to the OTLP endpoint, "
		    "by outcome.\n"
		    "# TYPE wymcp_otlp_metric_posts_total counter\n"
		    "wymcp_otlp_metric_posts_total{outcome=\"taken\"} %lu\n"
		    "wymcp_otlp_metric_posts_total{outcome=\"failed\"} %lu\n"
		    "# HELP wymcp_otlp_metric_overflow_total Spans counted "
		    "in the overflow attribute set (past 255 sets).\n"
		    "# TYPE wymcp_otlp_metric_overflow_total counter\n"
		    "wymcp_otlp_metric_overflow_total %lu\n",
		    nw->metrics.posts, nw->metrics.failed,
		    nw->metrics.overflow);
	return n;
}

/*
 * The fill of the tables of shares per principal (share.c), the
 * listens' and the questions', as Prometheus text at `n' of buf.
 */
static size_t
prom_shares(const struct now *nw, char *buf, size_t cap, size_t n)
{
	static const char *const fam[3][3] = {
		{ "wymcp_principal_shares", "gauge", "Principals holding a "
		    "share now, by table." },
		{ "wymcp_principal_shares_capacity", "gauge", "Slots of the "
		    "table of shares per principal (a new principal is "
		    "refused past three quarters of them)." },
		{ "wymcp_principal_shares_refused_total", "counter", "New "
		    "principals refused for lack of room in the table." },
	};
	struct front_shares	*t[2];
	const char		*name[2] = { "listen", "asking" };
	size_t			 fig[2][3];
	unsigned long		 full;
	int			 i, k;

	t[0] = nw->listen != NULL ? nw->listen->shares : NULL;
	t[1] = nw->shares;
	if (t[0] == NULL && t[1] == NULL)
		return n;
	for (k = 0; k < 2; k++)
		if (t[k] != NULL) {
			front_shares_figures(t[k], &fig[k][0], &fig[k][1],
			    &full);
			fig[k][2] = full;
		}
	for (i = 0; i < 3; i++) {
		n = put(buf, cap, n, "# HELP %s %s\n# TYPE %s %s\n",
		    fam[i][0], fam[i][2], fam[i][0], fam[i][1]);
		for (k = 0; k < 2; k++)
			if (t[k] != NULL)
				n = put(buf, cap, n, "%s{table=\"%s\"} %zu\n",
				    fam[i][0], name[k], fig[k][i]);
	}
	return n;
}

/* The page as Prometheus text into buf; its length. */
static size_t
prometheus(const struct front_stats *s, const struct now *nw, char *buf,
    size_t cap)
{
	size_t	 n = 0, m, o;

	n = put(buf, cap, n,
	    "# HELP wymcp_uptime_seconds Seconds since the pool started.\n"
	    "# TYPE wymcp_uptime_seconds gauge\n"
	    "wymcp_uptime_seconds %lld\n"
	    "# HELP wymcp_workers Worker processes by state.\n"
	    "# TYPE wymcp_workers gauge\n"
	    "wymcp_workers{state=\"busy\"} %d\n"
	    "wymcp_workers{state=\"idle\"} %d\n"
	    "# HELP wymcp_workers_max The most workers the pool may run.\n"
	    "# TYPE wymcp_workers_max gauge\n"
	    "wymcp_workers_max %d\n"
	    "# HELP wymcp_max_reached_total Times every worker was busy at "
	    "the maximum.\n"
	    "# TYPE wymcp_max_reached_total counter\n"
	    "wymcp_max_reached_total %lu\n"
	    "# HELP wymcp_respawns_total Workers started after the first "
	    "ones.\n"
	    "# TYPE wymcp_respawns_total counter\n"
	    "wymcp_respawns_total %lu\n"
	    "# HELP wymcp_requests_total Requests by method and outcome.\n"
	    "# TYPE wymcp_requests_total counter\n",
	    (long long)time(NULL) - s->started, s->busy,
	    s->running - s->busy, s->max, s->max_reached, s->respawns);
	for (m = 0; m < FRONT_NMETHODS; m++)
		for (o = 0; o < 3; o++)
			n = put(buf, cap, n, "wymcp_requests_total{method="
			    "\"%s\",outcome=\"%s\"} %lu\n", methods[m],
			    outcomes[o], s->requests[m][o]);
	n = put(buf, cap, n,
	    "# HELP wymcp_slow_requests_total Requests slower than "
	    "--slow-log-ms.\n"
	    "# TYPE wymcp_slow_requests_total counter\n"
	    "wymcp_slow_requests_total %lu\n"
	    "# HELP wymcp_workers_held_by_questions Workers waiting for a "
	    "person's answer.\n"
	    "# TYPE wymcp_workers_held_by_questions gauge\n"
	    "wymcp_workers_held_by_questions %d\n"
	    "# HELP wymcp_max_asking Workers questions may hold at once "
	    "(--max-asking).\n"
	    "# TYPE wymcp_max_asking gauge\n"
	    "wymcp_max_asking %d\n"
	    "# HELP wymcp_asking_refused_share_total Questions not asked: "
	    "their principal held --max-asking-per-principal.\n"
	    "# TYPE wymcp_asking_refused_share_total counter\n"
	    "wymcp_asking_refused_share_total %lu\n"
	    "# HELP wymcp_asking_reclaimed_total Places of questions given "
	    "back for workers that died holding them.\n"
	    "# TYPE wymcp_asking_reclaimed_total counter\n"
	    "wymcp_asking_reclaimed_total %lu\n", s->slow, nw->held,
	    nw->max_asking, nw->refused_share, nw->reclaimed);
	if (nw->tasks)
		n = put(buf, cap, n,
		    "# HELP wymcp_tasks Live tasks in the task store by "
		    "state.\n"
		    "# TYPE wymcp_tasks gauge\n"
		    "wymcp_tasks{state=\"waiting\"} %lld\n"
		    "wymcp_tasks{state=\"running\"} %lld\n"
		    "wymcp_tasks{state=\"input_required\"} %lld\n",
		    nw->depth.waiting, nw->depth.running,
		    nw->depth.input_required);
	if (s->store)
		n = prom_store(s, buf, cap, n);
	if (nw->listen != NULL)
		n = prom_listen(nw->listen, buf, cap, n);
	n = prom_shares(nw, buf, cap, n);
	return prom_operators(nw, buf, cap, n);
}

/*
 * Answer the request if it is for the status page: 1 when answered
 * (the page, or 403 for a client the allow-list does not name), 0 when
 * it is not for the page.
 */
int
front_status_serve(struct wymcp_server *srv, const struct front_limits *lim,
    FCGX_Request *req)
{
	static char	 page[32768 + 128 * 17 * 160];
	struct now	 nw;
	char		 head[256];
	const char	*uri, *q, *accept;
	size_t		 n;
	int		 prom, hlen;

	if (lim->status_path == NULL || lim->stats == NULL)
		return 0;
	if ((uri = FCGX_GetParam("DOCUMENT_URI", req->envp)) == NULL &&
	    (uri = FCGX_GetParam("SCRIPT_NAME", req->envp)) == NULL)
		return 0;
	if (strcmp(uri, lim->status_path) != 0)
		return 0;
	if (!allowed(lim, FCGX_GetParam("REMOTE_ADDR", req->envp))) {
		FCGX_PutS("Status: 403 Forbidden\r\n"
		    "Content-Type: text/plain\r\n\r\nForbidden\n", req->out);
		return 1;
	}
	q = FCGX_GetParam("QUERY_STRING", req->envp);
	accept = FCGX_GetParam("HTTP_ACCEPT", req->envp);
	prom = (q != NULL && strstr(q, "format=prometheus") != NULL) ||
	    (accept != NULL && strstr(accept, "text/plain") != NULL &&
	    strstr(accept, "json") == NULL);
	look(srv, lim, &nw);
	n = prom ? prometheus(lim->stats, &nw, page, sizeof(page)) :
	    json(lim->stats, &nw, page, sizeof(page));
	if (n >= sizeof(page))
		n = sizeof(page) - 1;
	/* libfcgi's own printf knows no %zu: the head is formatted here. */
	hlen = snprintf(head, sizeof(head), "Status: 200 OK\r\n"
	    "Content-Type: %s\r\nCache-Control: no-store\r\n"
	    "Content-Length: %zu\r\n\r\n", prom ?
	    "text/plain; version=0.0.4; charset=utf-8" : "application/json",
	    n);
	if (hlen > 0 && (size_t)hlen < sizeof(head))
		FCGX_PutStr(head, hlen, req->out);
	FCGX_PutStr(page, (int)n, req->out);
	return 1;
}
