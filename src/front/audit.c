/*
 * audit.c - the audit line: one JSON line per request (--audit-log)
 *
 * The library tells the request hook what a request was when it ends
 * (struct wymcp_request_detail, asked for with
 * wymcp_server_set_request_detail()); watch.c's hook hands it here
 * with what only the front end knows (the web server's request id and
 * trace context, the worker, the bytes written, the duration), and
 * this file writes the line.
 *
 * A line is written whole: built in a buffer of at most AUDIT_LINE_MAX
 * bytes (PIPE_BUF, so that a pipe takes it in one piece too) and handed
 * to one write(2) on a descriptor opened O_APPEND, so that lines of
 * several workers never interleave or overwrite each other.  A line
 * that would be longer is written without the arguments, its strings
 * cut, and "truncated":true.  To syslog, one syslog(3) call (one
 * datagram) per line.
 *
 * Reopening (log rotation): the supervisor's SIGUSR1 creates the file
 * anew if it was moved (front_audit_reopen()) and bumps a generation
 * in a page shared by the pool; a worker that sees a new generation
 * before its next line opens the path again.  A line written between
 * the rename and that open lands in the renamed file: none is lost.
 *
 * With --audit-log off nothing of this runs: the library computes no
 * detail, and watch.c's hook tests one pointer.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/mman.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "front.h"

#define AUDIT_LINE_MAX	PIPE_BUF	/* bytes of a line, newline too */
#define AUDIT_CUT	200		/* a string's bytes in a cut line */

enum audit_to { AUDIT_OFF, AUDIT_FILE, AUDIT_SYSLOG, AUDIT_STDERR };

/* The page the pool shares (made before the first fork). */
struct audit_page {
	unsigned long	 gen;		/* bumped by each reopen */
	unsigned long	 lines;		/* lines written */
	unsigned long	 failed;	/* lines that could not be */
};

static enum audit_to		 to = AUDIT_OFF;
static char			*path;		/* AUDIT_FILE's */
static int			 fd = -1;
static unsigned long		 fd_gen;	/* the generation fd is of */
static struct audit_page	*page;
static char			 host[64];
static long			 instance;	/* the supervisor's pid */
static char			 self[128];	/* ,"instance":..,"worker":.. */
static size_t			 self_len;	/* 0: not made yet */

/* What the request in flight is, as the front end saw it begin. */
static struct timespec		 t_wall, t_mono;
static const char		*reqid;		/* WYMCP_REQUEST_ID */
static const char		*addr;		/* REMOTE_ADDR */
static const char		*http_trace;	/* HTTP traceparent */
static size_t			 out_bytes;

/* The line being built. */
struct line {
	char	 b[AUDIT_LINE_MAX];
	size_t	 len;
	int	 over;		/* did not fit */
	size_t	 cut;		/* a string's maximum, 0: none */
};

static void
put(struct line *l, const char *s, size_t n)
{
	if (l->over || n > sizeof(l->b) - 1 - l->len) {
		l->over = 1;
		return;
	}
	memcpy(l->b + l->len, s, n);
	l->len += n;
}

/* A string literal, its length counted by the compiler. */
#define PUTS(l, lit)	put((l), (lit), sizeof(lit) - 1)

/*
 * The length of the UTF-8 sequence at s (of at most n bytes), or 0 when
 * it is not a valid one (RFC 3629: no overlong form, no surrogate).
 */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	size_t		 k, i;
	unsigned int	 c;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	k = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (k > n)
		return 0;
	c = s[0] & (0x7f >> k);
	for (i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((k == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (k == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	return k;
}

/*
 * A JSON string of `s': quotes, backslashes and control characters
 * escaped, and any byte that is not valid UTF-8 written as U+FFFD, so
 * that a hostile request id or principal cannot break the line.
 */
static void
put_str(struct line *l, const char *s)
{
	static const char	 hex[] = "0123456789abcdef";
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 n, i = 0, k;
	char			 esc[6] = { '\\', 'u', '0', '0', 0, 0 };

	/* The common case: printable ASCII only, copied at once. */
	for (n = 0; p[n] >= 0x20 && p[n] < 0x7f && p[n] != '"' &&
	    p[n] != '\\'; n++)
		continue;
	if (p[n] == '\0' && (l->cut == 0 || n <= l->cut) &&
	    n + 2 <= sizeof(l->b) - 1 - l->len && !l->over) {
		l->b[l->len++] = '"';
		memcpy(l->b + l->len, s, n);
		l->len += n;
		l->b[l->len++] = '"';
		return;
	}
	n = strlen(s);
	if (l->cut > 0 && n > l->cut)
		n = l->cut;
	PUTS(l, "\"");
	while (i < n && !l->over) {
		if (p[i] == '"' || p[i] == '\\') {
			PUTS(l, "\\");
			put(l, (const char *)p + i++, 1);
		} else if (p[i] < 0x20 || p[i] == 0x7f) {
			esc[4] = hex[p[i] >> 4];
			esc[5] = hex[p[i++] & 0xf];
			put(l, esc, 6);
		}
		else if (p[i] < 0x80) {
			for (k = i; k < n && p[k] >= 0x20 && p[k] < 0x7f &&
			    p[k] != '"' && p[k] != '\\'; k++)
				continue;
			put(l, (const char *)p + i, k - i);
			i = k;
		}
		else if ((k = utf8_len(p + i, n - i)) > 0) {
			put(l, (const char *)p + i, k);
			i += k;
		} else {
			PUTS(l, "\\ufffd");
			i++;
		}
	}
	PUTS(l, "\"");
}

/* ,"key":"value" when value is not NULL (k: ,"key": and its length). */
static void
member_k(struct line *l, const char *k, size_t klen, const char *value)
{
	if (value == NULL)
		return;
	put(l, k, klen);
	put_str(l, value);
}
#define member(l, key, v) member_k((l), ",\"" key "\":", sizeof(key) + 3, (v))

/* The trace id of a W3C traceparent (version-traceid-parent-flags). */
static const char *
trace_id(const char *tp, char *out)
{
	size_t	 i;

	if (tp == NULL || strlen(tp) < 55 || tp[2] != '-' || tp[35] != '-')
		return NULL;
	for (i = 0; i < 32; i++) {
		if (strchr("0123456789abcdef", tp[3 + i]) == NULL ||
		    tp[3 + i] == '\0')
			return NULL;
		out[i] = tp[3 + i];
	}
	out[32] = '\0';
	return strspn(out, "0") == 32 ? NULL : out;
}

/* The member naming what was called: ,"tool": (prompt, resource). */
static const char *
target_key(const char *method)
{
	if (method == NULL)
		return ",\"name\":";
	if (strcmp(method, "tools/call") == 0)
		return ",\"tool\":";
	if (strcmp(method, "prompts/get") == 0)
		return ",\"prompt\":";
	if (strncmp(method, "resources/", 10) == 0)
		return ",\"resource\":";
	return ",\"name\":";
}

/* The decimal digits of v. */
static void
put_num(struct line *l, long long v)
{
	char			 buf[24], *p = buf + sizeof(buf);
	unsigned long long	 u = v < 0 ? 0ULL - (unsigned long long)v :
	    (unsigned long long)v;

	do {
		*--p = (char)('0' + u % 10);
	} while ((u /= 10) != 0);
	if (v < 0)
		*--p = '-';
	put(l, p, (size_t)(buf + sizeof(buf) - p));
}

/* ,"key": and a number. */
static void
member_num(struct line *l, const char *key, size_t klen, long long v)
{
	put(l, key, klen);
	put_num(l, v);
}
#define NUM(l, k, v)	member_num((l), ",\"" k "\":", sizeof(k) + 3, (v))

/*
 * "2026-12-06T06:03:08" of the request's start, made once a second (a
 * worker's requests mostly start in the same second as the last).
 */
static const char *
wall_text(void)
{
	static time_t	 last = -1;
	static char	 ts[32];
	struct tm	 tm;

	if (t_wall.tv_sec != last) {
		(void)gmtime_r(&t_wall.tv_sec, &tm);
		(void)strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
		last = t_wall.tv_sec;
	}
	return ts;
}

/* Build the request's line into l (see the man page for each member). */
static void
build(struct line *l, const struct wymcp_request_info *ri, int full)
{
	const struct wymcp_request_detail *d = ri->detail;
	struct timespec	 now;
	char		 tid[33], ms[4];
	const char	*tp, *tk;
	long long	 us;

	l->len = 0;
	l->over = 0;
	l->cut = full ? 0 : AUDIT_CUT;
	(void)clock_gettime(CLOCK_MONOTONIC, &now);
	us = (long long)(now.tv_sec - t_mono.tv_sec) * 1000000 +
	    (now.tv_nsec - t_mono.tv_nsec) / 1000;
	PUTS(l, "{\"time\":\"");
	put(l, wall_text(), 19);
	ms[0] = '.';
	ms[1] = (char)('0' + t_wall.tv_nsec / 100000000 % 10);
	ms[2] = (char)('0' + t_wall.tv_nsec / 10000000 % 10);
	ms[3] = (char)('0' + t_wall.tv_nsec / 1000000 % 10);
	put(l, ms, 4);
	PUTS(l, "Z\"");
	put(l, self, self_len);		/* instance and worker */
	member(l, "request_id", reqid);
	tp = d->traceparent != NULL ? d->traceparent : http_trace;
	member(l, "trace_id", d->trace_id != NULL ? d->trace_id :
	    trace_id(tp, tid));
	member(l, "principal", d->principal);
	if (d->principal == NULL)
		member(l, "address", addr);
	member(l, "client_name", d->client_name);
	member(l, "client_version", d->client_version);
	member(l, "protocol", d->version);
	member(l, "method", ri->method);
	tk = target_key(ri->method);
	member_k(l, tk, strlen(tk), ri->name);
	member(l, "id", ri->reqid);
	if (ri->method != NULL && strcmp(ri->method, "tools/call") == 0)
		NUM(l, "round", d->round);
	member(l, "task_id", d->task_id);
	if (d->task_run)
		PUTS(l, ",\"task_run\":true");
	member(l, "outcome", d->outcome);
	if (d->questions != NULL && full) {
		PUTS(l, ",\"questions\":");
		put(l, d->questions, strlen(d->questions));
	}
	if (d->code != 0)
		NUM(l, "code", d->code);
	NUM(l, "status", d->status);
	NUM(l, "duration_ms", us / 1000);
	ms[1] = (char)('0' + us / 100 % 10);
	ms[2] = (char)('0' + us / 10 % 10);
	ms[3] = (char)('0' + us % 10);
	put(l, ms, 4);
	NUM(l, "bytes_in", (long long)d->bytes_in);
	NUM(l, "bytes_out", (long long)out_bytes);
	member(l, "args_digest", d->args_digest);
	if (d->args != NULL && full) {
		PUTS(l, ",\"args\":");
		put(l, d->args, strlen(d->args));
	}
	if (!full)
		PUTS(l, ",\"truncated\":true");
	PUTS(l, "}\n");
}

/* An OTLP attribute of string value v (nothing for NULL). */
static void
attr_str(struct line *l, const char *key, const char *v)
{
	if (v == NULL)
		return;
	PUTS(l, ",{\"key\":\"");
	put(l, key, strlen(key));
	PUTS(l, "\",\"value\":{\"stringValue\":");
	put_str(l, v);
	PUTS(l, "}}");
}

/* An OTLP attribute of integer value v (a string, as OTLP/JSON has it). */
static void
attr_int(struct line *l, const char *key, long long v)
{
	PUTS(l, ",{\"key\":\"");
	put(l, key, strlen(key));
	PUTS(l, "\",\"value\":{\"intValue\":\"");
	put_num(l, v);
	PUTS(l, "\"}}");
}

/*
 * The request's span as one line of OTLP/JSON (a Span of
 * opentelemetry/proto/trace/v1/trace.proto; otlp.c wraps the lines in
 * an ExportTraceServiceRequest), after the MCP semantic conventions.
 */
static void
build_span(struct line *l, const struct wymcp_request_info *ri,
    long long us)
{
	const struct wymcp_request_detail *d = ri->detail;
	const char	*m = ri->method != NULL ? ri->method : "unknown";
	const char	*id = ri->reqid, *err = NULL;
	char		 code[24], rid[128];
	long long	 start;
	size_t		 n;

	l->len = 0;
	l->over = 0;
	l->cut = 128;
	start = (long long)t_wall.tv_sec * 1000000000LL + t_wall.tv_nsec;
	PUTS(l, "{\"traceId\":\"");
	put(l, d->trace_id, 32);
	PUTS(l, "\",\"spanId\":\"");
	put(l, d->span_id, 16);
	PUTS(l, "\"");
	if (d->parent_span_id != NULL) {
		PUTS(l, ",\"parentSpanId\":\"");
		put(l, d->parent_span_id, 16);
		PUTS(l, "\"");
	}
	PUTS(l, ",\"name\":\"");
	put(l, m, strlen(m));
	if (ri->name != NULL && (strcmp(m, "tools/call") == 0 ||
	    strcmp(m, "prompts/get") == 0)) {
		PUTS(l, " ");
		put(l, ri->name, strlen(ri->name));
	}
	/* A task's run is the server's own work: INTERNAL, not SERVER. */
	if (d->task_run)
		PUTS(l, "\",\"kind\":1,\"startTimeUnixNano\":\"");
	else
		PUTS(l, "\",\"kind\":2,\"startTimeUnixNano\":\"");
	put_num(l, start);
	PUTS(l, "\",\"endTimeUnixNano\":\"");
	put_num(l, start + us * 1000);
	PUTS(l, "\",\"attributes\":[{\"key\":\"mcp.method.name\","
	    "\"value\":{\"stringValue\":");
	put_str(l, m);
	PUTS(l, "}}");
	if (strcmp(m, "tools/call") == 0) {
		attr_str(l, "gen_ai.tool.name", ri->name);
		attr_str(l, "gen_ai.operation.name", "execute_tool");
	} else if (strcmp(m, "prompts/get") == 0)
		attr_str(l, "gen_ai.prompt.name", ri->name);
	else if (strncmp(m, "resources/", 10) == 0)
		attr_str(l, "mcp.resource.uri", ri->name);
	/* The id as the client sent it: a string without its quotes. */
	if (id != NULL && *id == '"' && (n = strlen(id)) >= 2 &&
	    n - 2 < sizeof(rid)) {
		memcpy(rid, id + 1, n - 2);
		rid[n - 2] = '\0';
		id = rid;
	}
	attr_str(l, "jsonrpc.request.id", id);
	attr_str(l, "mcp.protocol.version", d->version);
	if (d->outcome != NULL && strcmp(d->outcome, "tool_error") == 0)
		err = "tool_error";
	else if (d->code != 0) {
		snprintf(code, sizeof(code), "%ld", d->code);
		err = code;
		attr_str(l, "rpc.response.status_code", code);
	}
	attr_str(l, "error.type", err);
	if (ri->method != NULL && strcmp(ri->method, "tools/call") == 0)
		attr_int(l, "wymcp.round", d->round);
	attr_str(l, "wymcp.task.id", d->task_run ? d->task_id : NULL);
	PUTS(l, "]");
	if (err != NULL)
		PUTS(l, ",\"status\":{\"code\":2}");
	PUTS(l, "}\n");
}

/* Open the file for appending; -1 with errno. */
static int
open_file(void)
{
	return open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC |
	    O_NOCTTY, 0640);
}

int
front_audit_open(const char *spec)
{
	if (spec == NULL)
		return 0;
	if (strcmp(spec, "syslog") == 0) {
		to = AUDIT_SYSLOG;
		openlog(FRONT_NAME, LOG_PID | LOG_NDELAY, LOG_DAEMON);
	} else if (strcmp(spec, "stderr") == 0) {
		to = AUDIT_STDERR;
		fd = STDERR_FILENO;
	} else {
		to = AUDIT_FILE;
		if ((path = strdup(spec)) == NULL ||
		    (fd = open_file()) == -1) {
			front_log(WYMCP_LOG_ERR, "--audit-log %s: %s", spec,
			    strerror(errno));
			return -1;
		}
	}
	page = mmap(NULL, sizeof(*page), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED) {
		front_log(WYMCP_LOG_ERR, "mmap: %s", strerror(errno));
		page = NULL;
		return -1;
	}
	memset(page, 0, sizeof(*page));
	if (gethostname(host, sizeof(host)) == -1)
		snprintf(host, sizeof(host), "-");
	host[sizeof(host) - 1] = '\0';
	instance = (long)getpid();
	return 0;
}

int
front_audit_on(void)
{
	return to != AUDIT_OFF;
}

void
front_audit_reopen(void)
{
	int	 nfd;

	if (to != AUDIT_FILE || page == NULL)
		return;
	/* Make the new file now, so that a worker only opens it. */
	if ((nfd = open_file()) == -1)
		front_log(WYMCP_LOG_ERR, "SIGUSR1: --audit-log %s: %s", path,
		    strerror(errno));
	else {
		(void)dup3(nfd, fd, O_CLOEXEC);
		(void)close(nfd);
	}
	/* Workers forked from now on have the new file already. */
	fd_gen = __atomic_add_fetch(&page->gen, 1, __ATOMIC_RELEASE);
	front_log(WYMCP_LOG_INFO, "SIGUSR1: the audit log %s is reopened",
	    path);
}

void
front_audit_counts(unsigned long *lines, unsigned long *failed)
{
	*lines = page != NULL ? __atomic_load_n(&page->lines,
	    __ATOMIC_RELAXED) : 0;
	*failed = page != NULL ? __atomic_load_n(&page->failed,
	    __ATOMIC_RELAXED) : 0;
}

void
front_audit_begin(char *const *env)
{
	const char	*uid = NULL;
	int		 n;

	if (to == AUDIT_OFF && !front_otlp_on() && !front_metrics_on())
		return;
	(void)clock_gettime(CLOCK_REALTIME, &t_wall);
	(void)clock_gettime(CLOCK_MONOTONIC, &t_mono);
	reqid = addr = http_trace = NULL;
	out_bytes = 0;
	/* Made in the worker (its own pid), once. */
	if (self_len == 0) {
		n = snprintf(self, sizeof(self), ",\"instance\":\"%s:%ld\","
		    "\"worker\":%ld", host, instance, (long)getpid());
		self_len = n > 0 && (size_t)n < sizeof(self) ? (size_t)n : 0;
	}
	for (; env != NULL && *env != NULL; env++) {
		switch (**env) {
		case 'W':
			if (strncmp(*env, "WYMCP_REQUEST_ID=", 17) == 0)
				reqid = *env + 17;
			break;
		case 'U':
			if (strncmp(*env, "UNIQUE_ID=", 10) == 0)
				uid = *env + 10;
			break;
		case 'R':
			if (strncmp(*env, "REMOTE_ADDR=", 12) == 0)
				addr = *env + 12;
			break;
		case 'H':
			if (strncmp(*env, "HTTP_TRACEPARENT=", 17) == 0)
				http_trace = *env + 17;
			break;
		}
	}
	/* Apache's mod_unique_id, when the location set no param. */
	if (reqid == NULL || *reqid == '\0')
		reqid = uid;
}

void
front_audit_out(size_t n)
{
	out_bytes += n;
}

/* Write the line of a request that ended (watch.c's hook). */
void
front_audit_request(const struct wymcp_request_info *ri)
{
	static struct line	 l;
	struct timespec		 now;
	long long		 us;
	unsigned long		 gen;
	ssize_t			 w;
	int			 nfd;

	if (ri->detail == NULL)
		return;
	(void)clock_gettime(CLOCK_MONOTONIC, &now);
	us = (long long)(now.tv_sec - t_mono.tv_sec) * 1000000 +
	    (now.tv_nsec - t_mono.tv_nsec) / 1000;
	front_metrics_record(ri->method, ri->name, ri->detail->outcome, us);
	if (front_otlp_on() && ri->detail->trace_id != NULL) {
		build_span(&l, ri, us);
		if (!l.over)
			front_otlp_send(l.b, l.len);
		else
			front_otlp_send(NULL, PIPE_BUF + 1);	/* dropped */
	}
	if (to == AUDIT_OFF)
		return;
	build(&l, ri, 1);
	if (l.over)
		build(&l, ri, 0);
	if (l.over) {
		__atomic_add_fetch(&page->failed, 1, __ATOMIC_RELAXED);
		return;
	}
	if (to == AUDIT_SYSLOG) {
		syslog(LOG_INFO, "%.*s", (int)l.len - 1, l.b);
		__atomic_add_fetch(&page->lines, 1, __ATOMIC_RELAXED);
		return;
	}
	gen = __atomic_load_n(&page->gen, __ATOMIC_ACQUIRE);
	if (to == AUDIT_FILE && gen != fd_gen) {
		if ((nfd = open_file()) == -1)
			front_log(WYMCP_LOG_ERR, "--audit-log %s: %s", path,
			    strerror(errno));
		else {
			(void)dup3(nfd, fd, O_CLOEXEC);
			(void)close(nfd);
			fd_gen = gen;
		}
	}
	w = write(fd, l.b, l.len);
	if (w == (ssize_t)l.len)
		__atomic_add_fetch(&page->lines, 1, __ATOMIC_RELAXED);
	else
		__atomic_add_fetch(&page->failed, 1, __ATOMIC_RELAXED);
}
