/*
 * otlp.c - spans to an OpenTelemetry collector (--otlp-endpoint)
 *
 * One SERVER span per request, after OpenTelemetry's MCP semantic
 * conventions (semantic-conventions-genai, docs/gen-ai/mcp.md; status
 * Development): named "{mcp.method.name} {target}", with
 * mcp.method.name, gen_ai.tool.name or gen_ai.prompt.name or
 * mcp.resource.uri, gen_ai.operation.name (execute_tool),
 * jsonrpc.request.id, mcp.protocol.version, error.type (tool_error for
 * a result with isError, else the JSON-RPC error code) and
 * rpc.response.status_code, a child of the context the request came
 * with (the library's span ids: WYMCP_DETAIL_TRACE).
 *
 * A worker never waits for the exporter: it writes the span, one line
 * of OTLP/JSON of at most PIPE_BUF bytes, to a pipe with one
 * non-blocking write(2) (whole or not at all, so lines never
 * interleave); a full pipe (the bounded queue: 1 MiB when the kernel
 * allows it) drops the span and counts it.  The exporter, a process
 * forked by the supervisor before the workers (it exits with it, and
 * is forked again when it dies: front_otlp_reaped()),
 * reads the lines, and posts them in batches (256 spans, or what came
 * within a second) as an ExportTraceServiceRequest, OTLP/HTTP with
 * the JSON encoding, to the endpoint (http:// only); a batch the
 * endpoint does not take (down, slow past 2 s, not 2xx) is dropped and
 * counted.  The counts live in a page the pool shares, for the status
 * page.
 *
 * The same process aggregates the mcp.server.operation.duration
 * histogram from the SERVER spans it reads (otlpm.c: no cost to a
 * request, and a span's attributes are the conventions' already), and
 * posts it, cumulative since the exporter started, as an
 * ExportMetricsServiceRequest to the endpoint's /v1/metrics every
 * --otlp-metrics-interval seconds (0: no metrics) and when it stops
 * (SIGTERM, or the supervisor gone): nothing of the last interval is
 * lost.  A post the endpoint does not take is counted; the next one
 * carries the same points again (cumulative), so a failed post loses
 * nothing that a later one does not bring.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "front.h"
#include "otlpm.h"

#define OTLP_BATCH	256		/* spans a post carries at most */
#define OTLP_WAIT_MS	1000		/* a batch waits no longer */
#define OTLP_IO_MS	2000		/* connect, send and answer */
#define OTLP_PIPE	(1024 * 1024)	/* the queue, when allowed */
#define OTLP_STOP_MS	(2 * OTLP_IO_MS + 1000)	/* its last posts */

/* The counts the pool shares. */
struct otlp_page {
	unsigned long	 queued;	/* spans handed to the exporter */
	unsigned long	 dropped;	/* not: the queue was full */
	unsigned long	 exported;	/* taken by the endpoint */
	unsigned long	 failed;	/* in batches it did not take */
	unsigned long	 posts, post_errors;
	unsigned long	 metric_posts;	/* metrics posts taken */
	unsigned long	 metric_failed;	/* and not */
	unsigned long	 metric_overflow; /* spans in the overflow set */
	unsigned long	 metric_sets;	/* attribute sets exported */
};

static struct otlp_page	*page;
static int		 wfd = -1;	/* the workers' end */
static int		 rfd = -1;	/* the exporter's, kept to fork another */
static pid_t		 exporter_pid = -1, sup_pid;
static long long	 started_ms;	/* when the exporter was forked */
static char		 host[256], port[8], path[512];
static char		 mpath[528];	/* the metrics' path */
static unsigned int	 interval_s;	/* --otlp-metrics-interval */
static volatile sig_atomic_t stopping;	/* the exporter's SIGTERM */
static char		 service[256];	/* resource attributes, JSON */

int
front_otlp_on(void)
{
	return page != NULL;
}

/* http://HOST[:PORT][/PATH] into host, port, path: 0, or -1. */
static int
parse_url(const char *url)
{
	const char	*h, *p, *e;
	size_t		 n;

	if (strncmp(url, "http://", 7) != 0)
		return -1;
	h = url + 7;
	if (*h == '[') {
		if ((e = strchr(h, ']')) == NULL)
			return -1;
		n = (size_t)(e - h - 1);
		h++;
		p = e + 1;
	} else {
		n = strcspn(h, ":/");
		p = h + n;
	}
	if (n == 0 || n >= sizeof(host))
		return -1;
	memcpy(host, h, n);
	host[n] = '\0';
	snprintf(port, sizeof(port), "80");
	if (*p == ':') {
		n = strspn(p + 1, "0123456789");
		if (n == 0 || n > 5)
			return -1;
		memcpy(port, p + 1, n);
		port[n] = '\0';
		p += 1 + n;
	}
	if (*p == '\0')
		p = "/v1/traces";
	if (*p != '/' || strlen(p) >= sizeof(path) ||
	    strpbrk(p, " \r\n") != NULL)
		return -1;
	snprintf(path, sizeof(path), "%s", p);
	front_otlpm_path(path, mpath, sizeof(mpath));
	return 0;
}

static long long
mono_ms(void)
{
	struct timespec	 ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait up to the deadline for fd to be ready for `ev': 1, or 0. */
static int
ready(int fd, short ev, long long deadline)
{
	struct pollfd	 p = { fd, ev, 0 };
	long long	 left;

	while ((left = deadline - mono_ms()) > 0) {
		if (poll(&p, 1, (int)left) == 1)
			return 1;
		if (errno != EINTR && errno != 0)
			return 0;
	}
	return 0;
}

/* A connected socket to the endpoint before the deadline, or -1. */
static int
dial(long long deadline)
{
	struct addrinfo	 hints, *res = NULL, *ai;
	socklen_t	 len;
	int		 fd = -1, e;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, port, &hints, &res) != 0)
		return -1;
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if ((fd = socket(ai->ai_family, ai->ai_socktype |
		    SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol)) == -1)
			continue;
		len = sizeof(e);
		if ((connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 ||
		    (errno == EINPROGRESS && ready(fd, POLLOUT, deadline) &&
		    getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) == 0 &&
		    e == 0)))
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd;
}

/* Post body (len bytes) to `where': 1 when the endpoint answered 2xx. */
static int
post(const char *where, const char *body, size_t len)
{
	char		 head[1024], ans[64];
	long long	 deadline = mono_ms() + OTLP_IO_MS;
	size_t		 off = 0, hl;
	ssize_t		 n;
	int		 fd, hn, ok = 0;

	if ((fd = dial(deadline)) == -1)
		return 0;
	hn = snprintf(head, sizeof(head), "POST %s HTTP/1.1\r\nHost: %s:%s"
	    "\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
	    "Connection: close\r\n\r\n", where, host, port, len);
	hl = hn > 0 ? (size_t)hn : 0;
	while (off < hl + len) {
		if (!ready(fd, POLLOUT, deadline))
			goto done;
		n = off < hl ? send(fd, head + off, hl - off, MSG_NOSIGNAL) :
		    send(fd, body + off - hl, len - (off - hl), MSG_NOSIGNAL);
		if (n <= 0 && errno != EAGAIN && errno != EINTR)
			goto done;
		if (n > 0)
			off += (size_t)n;
	}
	off = 0;
	while (off < 12 && ready(fd, POLLIN, deadline)) {
		if ((n = recv(fd, ans + off, sizeof(ans) - 1 - off, 0)) <= 0)
			break;
		off += (size_t)n;
	}
	ans[off] = '\0';
	ok = off >= 12 && strncmp(ans, "HTTP/1.", 7) == 0 && ans[9] == '2';
	/* The rest of the answer, so that closing does not reset it. */
	while (ready(fd, POLLIN, deadline) &&
	    recv(fd, head, sizeof(head), 0) > 0)
		continue;
done:
	close(fd);
	return ok;
}

/* The exporter's batch: the request's head, spans, its tail. */
struct batch {
	char	*b;
	size_t	 len, cap;
	int	 n;
	long long first;	/* when its first span came */
};

static void
flush(struct batch *bt)
{
	static const char tail[] = "]}]}]}";
	size_t		 hl;
	char		 head[512];
	int		 ok;

	if (bt->n == 0)
		return;
	hl = (size_t)snprintf(head, sizeof(head), "{\"resourceSpans\":[{"
	    "\"resource\":{\"attributes\":[%s]},\"scopeSpans\":[{\"scope\":"
	    "{\"name\":\"wymcp\",\"version\":\"%s\"},\"spans\":[", service,
	    WYMCP_VERSION);
	if (hl < sizeof(head) && hl <= bt->cap - bt->len) {
		memmove(bt->b + hl, bt->b, bt->len);
		memcpy(bt->b, head, hl);
		memcpy(bt->b + hl + bt->len, tail, sizeof(tail) - 1);
		ok = post(path, bt->b, hl + bt->len + sizeof(tail) - 1);
	} else
		ok = 0;
	__atomic_add_fetch(ok ? &page->exported : &page->failed,
	    (unsigned long)bt->n, __ATOMIC_RELAXED);
	__atomic_add_fetch(ok ? &page->posts : &page->post_errors, 1,
	    __ATOMIC_RELAXED);
	bt->len = 0;
	bt->n = 0;
}

static long long
wall_ns(void)
{
	struct timespec	 ts;

	(void)clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The metrics: their aggregate, and a buffer for their request. */
struct metrics {
	struct front_otlpm	*m;	/* NULL: --otlp-metrics-interval 0 */
	char			*b;
	size_t			 cap;
	long long		 next;	/* the next post, monotonic ms */
	unsigned long		 told;	/* overflow counted on the page */
};

/* Post the metrics' points (when there are any). */
static void
post_metrics(struct metrics *mt)
{
	size_t	 len;
	int	 ok;

	if (mt->m == NULL)
		return;
	mt->next = mono_ms() + (long long)interval_s * 1000;
	if ((len = front_otlpm_body(mt->m, service, WYMCP_VERSION, wall_ns(),
	    mt->b, mt->cap)) == 0)
		return;
	ok = post(mpath, mt->b, len);
	__atomic_add_fetch(ok ? &page->metric_posts : &page->metric_failed, 1,
	    __ATOMIC_RELAXED);
	if (ok)
		__atomic_store_n(&page->metric_sets, front_otlpm_sets(mt->m),
		    __ATOMIC_RELAXED);
}

/* Take the complete lines of in[0..*inl) into the batch and metrics. */
static void
take_lines(struct batch *bt, struct metrics *mt, char *in, size_t *inl)
{
	char	*nl, *p = in;
	size_t	 n;

	while ((nl = memchr(p, '\n', (size_t)(in + *inl - p))) != NULL) {
		n = (size_t)(nl - p);
		/* The page's overflow count outlives an exporter's points. */
		if (mt->m != NULL && front_otlpm_take(mt->m, p, n) == 1 &&
		    front_otlpm_overflowed(mt->m) > mt->told) {
			__atomic_add_fetch(&page->metric_overflow,
			    front_otlpm_overflowed(mt->m) - mt->told,
			    __ATOMIC_RELAXED);
			mt->told = front_otlpm_overflowed(mt->m);
		}
		if (bt->n >= OTLP_BATCH || n + 1 > bt->cap - 1024 - bt->len)
			flush(bt);
		if (n + 1 <= bt->cap - 1024 - bt->len) {
			if (bt->n > 0)
				bt->b[bt->len++] = ',';
			memcpy(bt->b + bt->len, p, n);
			bt->len += n;
			if (bt->n++ == 0)
				bt->first = mono_ms();
		}
		p = nl + 1;
	}
	*inl = (size_t)(in + *inl - p);
	memmove(in, p, *inl);
}

static void
on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

/* SIGTERM ends the loop (poll(2) is interrupted), not the process. */
static void
catch_term(void)
{
	struct sigaction	 sa;
	sigset_t		 set;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	(void)sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGTERM, &sa, NULL);
	(void)sigemptyset(&set);
	(void)sigaddset(&set, SIGTERM);
	(void)sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/*
 * What is in the pipe now, without waiting, and no more than it holds
 * (writers that go on writing do not keep the exporter from ending).
 */
static void
drain(int in_fd, struct batch *bt, struct metrics *mt, char *in,
    size_t cap, size_t *inl)
{
	size_t	 total = 0;
	ssize_t	 n;

	(void)fcntl(in_fd, F_SETFL, O_NONBLOCK);
	while (total < OTLP_PIPE &&
	    (n = read(in_fd, in + *inl, cap - *inl)) > 0) {
		total += (size_t)n;
		*inl += (size_t)n;
		take_lines(bt, mt, in, inl);
	}
}

/* How long the loop may wait: to the batch's or the metrics' time. */
static long long
wait_ms(const struct batch *bt, const struct metrics *mt)
{
	long long	 now = mono_ms(), left = OTLP_WAIT_MS;

	if (bt->n > 0)
		left = bt->first + OTLP_WAIT_MS - now;
	if (mt->m != NULL && mt->next - now < left)
		left = mt->next - now;
	return left;
}

/*
 * The exporter process: until the supervisor is gone or SIGTERM; then
 * what the pipe holds, the last batch and the metrics are posted.
 */
static void
exporter(int in_fd, pid_t sup)
{
	static char	 in[65536];
	struct batch	 bt;
	struct metrics	 mt;
	size_t		 inl = 0;
	ssize_t		 n;
	long long	 left;
	struct pollfd	 p;

	memset(&bt, 0, sizeof(bt));
	memset(&mt, 0, sizeof(mt));
	bt.cap = (size_t)OTLP_BATCH * PIPE_BUF + 2048;
	if ((bt.b = malloc(bt.cap)) == NULL)
		_exit(1);
	if (interval_s > 0) {
		mt.cap = front_otlpm_cap();
		if ((mt.b = malloc(mt.cap)) == NULL ||
		    (mt.m = front_otlpm_new(wall_ns())) == NULL)
			_exit(1);
		mt.next = mono_ms() + (long long)interval_s * 1000;
	}
	while (!stopping && getppid() == sup) {
		left = wait_ms(&bt, &mt);
		p.fd = in_fd;
		p.events = POLLIN;
		if (left > 0 && poll(&p, 1, (int)left) == 1) {
			n = read(in_fd, in + inl, sizeof(in) - inl);
			if (n == 0)
				break;		/* every writer is gone */
			if (n > 0) {
				inl += (size_t)n;
				take_lines(&bt, &mt, in, &inl);
			}
		}
		if (bt.n > 0 && (bt.n >= OTLP_BATCH ||
		    mono_ms() >= bt.first + OTLP_WAIT_MS))
			flush(&bt);
		if (mt.m != NULL && mono_ms() >= mt.next)
			post_metrics(&mt);
	}
	drain(in_fd, &bt, &mt, in, sizeof(in), &inl);
	flush(&bt);
	post_metrics(&mt);
	_exit(0);
}

/* Fork the exporter on rfd: its pid, or -1. */
static pid_t
spawn(void)
{
	pid_t	 pid;

	if ((pid = fork()) == -1) {
		front_log(WYMCP_LOG_ERR, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		(void)prctl(PR_SET_NAME, "wymcp-otlp");
		(void)prctl(PR_SET_PDEATHSIG, SIGTERM);
		(void)signal(SIGPIPE, SIG_IGN);
		catch_term();
		if (wfd != -1)
			close(wfd);
		exporter(rfd, sup_pid);
	}
	started_ms = mono_ms();
	return pid;
}

/*
 * The supervisor reaped `pid': when it is the exporter, fork another on
 * the same pipe (the spans written meanwhile wait there), unless it
 * died within a second of its start (then it stays down, said once:
 * no fork loop; spans are dropped and counted).
 */
void
front_otlp_reaped(pid_t pid)
{
	if (page == NULL || pid != exporter_pid)
		return;
	if (mono_ms() - started_ms < 1000) {
		front_log(WYMCP_LOG_ERR, "the span exporter (%ld) died at its "
		    "start: not restarted; spans are dropped", (long)pid);
		exporter_pid = -1;
		return;
	}
	front_log(WYMCP_LOG_WARNING, "the span exporter (%ld) died: "
	    "starting another", (long)pid);
	exporter_pid = spawn();
}

int
front_otlp_setup(const char *url, unsigned int metrics_interval_s)
{
	int		 fds[2];
	pid_t		 sup = getpid();
	char		 hn[64];

	if (url == NULL)
		return 0;
	if (parse_url(url) != 0) {
		front_log(WYMCP_LOG_ERR, "--otlp-endpoint %s: not "
		    "http://HOST[:PORT][/PATH] (OTLP/HTTP, JSON; default path "
		    "/v1/traces)", url);
		return -1;
	}
	if (gethostname(hn, sizeof(hn)) == -1)
		snprintf(hn, sizeof(hn), "-");
	hn[sizeof(hn) - 1] = '\0';
	snprintf(service, sizeof(service), "{\"key\":\"service.name\","
	    "\"value\":{\"stringValue\":\"wymcp\"}},{\"key\":"
	    "\"service.instance.id\",\"value\":{\"stringValue\":\"%.40s:%ld\"}}",
	    hn, (long)sup);
	page = mmap(NULL, sizeof(*page), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		page = NULL;
		front_log(WYMCP_LOG_ERR, "mmap: %s", strerror(errno));
		return -1;
	}
	memset(page, 0, sizeof(*page));
	if (pipe2(fds, O_CLOEXEC) == -1) {
		front_log(WYMCP_LOG_ERR, "pipe2: %s", strerror(errno));
		return -1;
	}
	(void)fcntl(fds[1], F_SETPIPE_SZ, OTLP_PIPE);
	(void)fcntl(fds[1], F_SETFL, O_NONBLOCK);
	rfd = fds[0];
	sup_pid = sup;
	interval_s = metrics_interval_s;
	if ((exporter_pid = spawn()) == -1)
		return -1;
	wfd = fds[1];
	if (interval_s > 0)
		front_log(WYMCP_LOG_INFO, "spans go to %s, metrics to %s every "
		    "%u s (exporter %ld)", url, mpath, interval_s,
		    (long)exporter_pid);
	else
		front_log(WYMCP_LOG_INFO, "spans go to %s (exporter %ld)", url,
		    (long)exporter_pid);
	return 0;
}

void
front_otlp_counts(unsigned long *queued, unsigned long *dropped,
    unsigned long *exported, unsigned long *failed)
{
	*queued = __atomic_load_n(&page->queued, __ATOMIC_RELAXED);
	*dropped = __atomic_load_n(&page->dropped, __ATOMIC_RELAXED);
	*exported = __atomic_load_n(&page->exported, __ATOMIC_RELAXED);
	*failed = __atomic_load_n(&page->failed, __ATOMIC_RELAXED);
}

/*
 * The supervisor ends: tell the exporter (SIGTERM) and wait for it, up
 * to OTLP_STOP_MS, so that its last posts (what the pipe holds, the
 * last batch, the metrics) are made before a service manager ends what
 * is left (systemd's KillMode=mixed SIGKILLs it once the main process
 * is gone).
 */
void
front_otlp_stop(void)
{
	long long	 deadline;
	int		 st;

	if (page == NULL || exporter_pid <= 0 || getpid() != sup_pid)
		return;
	(void)kill(exporter_pid, SIGTERM);
	deadline = mono_ms() + OTLP_STOP_MS;
	while (waitpid(exporter_pid, &st, WNOHANG) == 0 &&
	    mono_ms() < deadline)
		(void)poll(NULL, 0, 10);
	exporter_pid = -1;
}

void
front_otlp_metric_counts(struct front_otlp_metrics *c)
{
	c->on = interval_s > 0;
	c->posts = __atomic_load_n(&page->metric_posts, __ATOMIC_RELAXED);
	c->failed = __atomic_load_n(&page->metric_failed, __ATOMIC_RELAXED);
	c->overflow = __atomic_load_n(&page->metric_overflow,
	    __ATOMIC_RELAXED);
	c->sets = __atomic_load_n(&page->metric_sets, __ATOMIC_RELAXED);
}

/* A span's line (audit.c builds it): handed over, or dropped. */
void
front_otlp_send(const char *line, size_t len)
{
	if (page == NULL)
		return;
	if (len <= PIPE_BUF && write(wfd, line, len) == (ssize_t)len)
		__atomic_add_fetch(&page->queued, 1, __ATOMIC_RELAXED);
	else
		__atomic_add_fetch(&page->dropped, 1, __ATOMIC_RELAXED);
}
