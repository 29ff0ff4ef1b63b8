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
#include <stdint.h>
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

/* Past the end, the line is `over' and has no room left. */
static inline void
put(struct line *l, const char *s, size_t n)
{
	if (n > sizeof(l->b) - 1 - l->len) {
		l->over = 1;
		l->len = sizeof(l->b) - 1;
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
 * The bytes a JSON string holds as they are: printable ASCII but the
 * quote and the backslash.
 */
static const unsigned char plain[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* 0x00 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* 0x10 */
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,	/* 0x20 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,	/* 0x30 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,	/* 0x40 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,	/* 0x50 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,	/* 0x60 */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,	/* 0x70 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* 0x80 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* 0x90 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* 0xa0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* 0xb0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* 0xc0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* 0xd0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* 0xe0 */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,	/* 0xf0 */
};

/*
 * Does the word w hold only plain bytes: none below 0x20, no quote, no
 * backslash, none from 0x7f?  (The tests of "Bit Twiddling Hacks",
 * haszero() and hasless(): a word has such a byte if and only if the
 * test is not 0.)
 */
static inline int
plain_word(uint64_t w)
{
	const uint64_t	 one = 0x0101010101010101ULL, high = one * 0x80;
	uint64_t	 q = w ^ one * '"', b = w ^ one * '\\';
	uint64_t	 d = w ^ one * 0x7f;

	return ((((w - one * 0x20) & ~w) | ((q - one) & ~q) |
	    ((b - one) & ~b) | ((d - one) & ~d) | w) & high) == 0;
}

/*
 * Copy the plain bytes that begin p[0..n) to o; how many.  Eight at a
 * time, the last eight of a string of eight or more too (they overlap
 * the words before), then one at a time.
 */
static size_t
plain_copy(char *o, const unsigned char *p, size_t n)
{
	uint64_t	 w;
	size_t		 i;

	for (i = 0; i + 8 <= n; i += 8) {
		memcpy(&w, p + i, 8);
		if (!plain_word(w))
			break;
		memcpy(o + i, &w, 8);
	}
	if (i < n && i >= 8 && i + 8 > n) {
		memcpy(&w, p + n - 8, 8);
		if (plain_word(w)) {
			memcpy(o + n - 8, &w, 8);
			return n;
		}
	}
	for (; i < n && plain[p[i]]; i++)
		o[i] = (char)p[i];
	return i;
}

/*
 * The text of a JSON string of `s', without its quotes: quotes,
 * backslashes and control characters escaped, and any byte that is not
 * valid UTF-8 written as U+FFFD, so that a hostile request id, principal
 * or tool name cannot break the line.
 */
static void
put_esc(struct line *l, const char *s)
{
	static const char	 hex[] = "0123456789abcdef";
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 n, i, k;
	char			 esc[6];

	n = strlen(s);
	if (l->cut > 0 && n > l->cut)
		n = l->cut;
	/*
	 * The common case: plain bytes, that fit (the line has no room
	 * left once it is over), copied 8 at a time.
	 */
	i = 0;
	if (n <= sizeof(l->b) - 1 - l->len) {
		i = plain_copy(l->b + l->len, p, n);
		l->len += i;
	}
	while (i < n && !l->over) {
		if (p[i] == '"' || p[i] == '\\') {
			PUTS(l, "\\");
			put(l, (const char *)p + i++, 1);
		} else if (p[i] < 0x20 || p[i] == 0x7f) {
			memcpy(esc, "\\u00", 4);
			esc[4] = hex[p[i] >> 4];
			esc[5] = hex[p[i++] & 0xf];
			put(l, esc, 6);
		}
		else if (p[i] < 0x80) {
			for (k = i; k < n && plain[p[k]]; k++)
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
}

/*
 * A string value: k (its key and opening quote, klen bytes), then the
 * value escaped (put_esc()), or as it is when `raw' (nothing in it to
 * escape: hex digits, the library's own words), then `end' (the
 * closing quote and what follows, endlen bytes).  Nothing for NULL.
 */
static inline void
str_k(struct line *l, const char *k, size_t klen, const char *value,
    int raw, const char *end, size_t endlen)
{
	if (value == NULL)
		return;
	put(l, k, klen);
	if (raw)
		put(l, value, strlen(value));
	else
		put_esc(l, value);
	put(l, end, endlen);
}

/* ,"key":"value" (the key from its text k). */
static inline void
member_k(struct line *l, const char *k, size_t klen, const char *value,
    int raw)
{
	str_k(l, k, klen, value, raw, "\"", 1);
}
#define MEMBER_S(key)	",\"" key "\":\""
#define member(l, key, v) \
	member_k((l), MEMBER_S(key), sizeof(MEMBER_S(key)) - 1, (v), 0)
#define member_raw(l, key, v) \
	member_k((l), MEMBER_S(key), sizeof(MEMBER_S(key)) - 1, (v), 1)

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

/* The member naming what was called: ,"tool":" (prompt, resource). */
static const char *
target_key(const char *method)
{
	if (method == NULL)
		return MEMBER_S("name");
	if (strcmp(method, "tools/call") == 0)
		return MEMBER_S("tool");
	if (strcmp(method, "prompts/get") == 0)
		return MEMBER_S("prompt");
	if (strncmp(method, "resources/", 10) == 0)
		return MEMBER_S("resource");
	return MEMBER_S("name");
}

/* The two digits of each number below 100. */
static const char	 digits2[] =
    "00010203040506070809"
    "10111213141516171819"
    "20212223242526272829"
    "30313233343536373839"
    "40414243444546474849"
    "50515253545556575859"
    "60616263646566676869"
    "70717273747576777879"
    "80818283848586878889"
    "90919293949596979899";

/* The decimal digits of v, two at a time, to end at `end'; their start. */
static char *
num_text(char *end, long long v)
{
	char			*p = end;
	unsigned long long	 u = v < 0 ? 0ULL - (unsigned long long)v :
	    (unsigned long long)v;

	for (; u >= 100; u /= 100) {
		p -= 2;
		memcpy(p, digits2 + u % 100 * 2, 2);
	}
	if (u >= 10) {
		p -= 2;
		memcpy(p, digits2 + u * 2, 2);
	} else
		*--p = (char)('0' + u);
	if (v < 0)
		*--p = '-';
	return p;
}

/* The decimal digits of v. */
static void
put_num(struct line *l, long long v)
{
	char	 buf[24], *p = num_text(buf + sizeof(buf), v);

	put(l, p, (size_t)(buf + sizeof(buf) - p));
}

/*
 * The nanoseconds since the epoch of second `sec' and nanosecond `ns'
 * (0 to 999999999): sec's digits, then ns's nine.
 */
static void
put_ns(struct line *l, long long sec, long long ns)
{
	static long long	 last = -1;	/* the second of `text' */
	static char		 text[24], *t;
	char			 b[9];
	unsigned int		 u = (unsigned int)ns;
	int			 i;

	if (sec <= 0) {
		put_num(l, sec * 1000000000 + ns);
		return;
	}
	/* A worker's spans mostly start and end in the last second. */
	if (sec != last) {
		t = num_text(text + sizeof(text), sec);
		last = sec;
	}
	put(l, t, (size_t)(text + sizeof(text) - t));
	for (i = 7; i > 0; i -= 2, u /= 100)
		memcpy(b + i, digits2 + u % 100 * 2, 2);
	b[0] = (char)('0' + u);
	put(l, b, sizeof(b));
}

/* ,"key": and a number. */
static inline void
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
build(struct line *l, const struct wymcp_request_info *ri, long long us,
    int full)
{
	const struct wymcp_request_detail *d = ri->detail;
	char		 tid[33], ms[4];
	const char	*tp, *tk;
	int		 call;

	l->len = 0;
	l->over = 0;
	l->cut = full ? 0 : AUDIT_CUT;
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
	member_raw(l, "trace_id", d->trace_id != NULL ? d->trace_id :
	    trace_id(tp, tid));
	member(l, "principal", d->principal);
	if (d->principal == NULL)
		member(l, "address", addr);
	member(l, "client_name", d->client_name);
	member(l, "client_version", d->client_version);
	member(l, "protocol", d->version);
	/* The library's own name for it, when it is a tools/call. */
	call = ri->method != NULL && strcmp(ri->method, "tools/call") == 0;
	member_k(l, MEMBER_S("method"), sizeof(MEMBER_S("method")) - 1,
	    ri->method, call);
	tk = target_key(ri->method);
	member_k(l, tk, strlen(tk), ri->name, 0);
	member(l, "id", ri->reqid);
	if (call)
		NUM(l, "round", d->round);
	member(l, "task_id", d->task_id);
	if (d->task_run)
		PUTS(l, ",\"task_run\":true");
	member_raw(l, "outcome", d->outcome);
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
	member_raw(l, "args_digest", d->args_digest);
	if (d->args != NULL && full) {
		PUTS(l, ",\"args\":");
		put(l, d->args, strlen(d->args));
	}
	if (!full)
		PUTS(l, ",\"truncated\":true");
	PUTS(l, "}\n");
}

/* An OTLP attribute of string value v (nothing for NULL): str_k(). */
#define ATTR_S(key)	",{\"key\":\"" key "\",\"value\":{\"stringValue\":\""
#define ATTR_STR(l, key, v) \
	str_k((l), ATTR_S(key), sizeof(ATTR_S(key)) - 1, (v), 0, "\"}}", 3)
/* The same, for a value with nothing to escape (digits, our words). */
#define ATTR_RAW(l, key, v) \
	str_k((l), ATTR_S(key), sizeof(ATTR_S(key)) - 1, (v), 1, "\"}}", 3)

/* An OTLP attribute of integer value v (a string, as OTLP/JSON has it). */
static inline void
attr_int_k(struct line *l, const char *k, size_t klen, long long v)
{
	put(l, k, klen);
	put_num(l, v);
	PUTS(l, "\"}}");
}
#define ATTR_I(key)	",{\"key\":\"" key "\",\"value\":{\"intValue\":\""
#define ATTR_INT(l, key, v) \
	attr_int_k((l), ATTR_I(key), sizeof(ATTR_I(key)) - 1, (v))

/*
 * The span's ,"name":"METHOD TARGET" (TARGET when not NULL), and where
 * the two texts stand in l (at[0], at[1]: offset and length of the
 * method's; at[2], at[3]: the target's), for the attributes to copy.
 */
static void
span_name(struct line *l, const char *m, const char *target, size_t at[4])
{
	PUTS(l, ",\"name\":\"");
	at[0] = l->len;
	put_esc(l, m);
	at[1] = l->len - at[0];
	at[2] = at[3] = 0;
	if (target != NULL) {
		PUTS(l, " ");
		at[2] = l->len;
		put_esc(l, target);
		at[3] = l->len - at[2];
	}
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
	long long	 end;
	size_t		 n, at[4];
	int		 call = strcmp(m, "tools/call") == 0;

	l->len = 0;
	l->over = 0;
	l->cut = 128;
	end = t_wall.tv_nsec + us * 1000;
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
	span_name(l, m, call || strcmp(m, "prompts/get") == 0 ? ri->name :
	    NULL, at);
	/* A task's run is the server's own work: INTERNAL, not SERVER. */
	if (d->task_run)
		PUTS(l, "\",\"kind\":1,\"startTimeUnixNano\":\"");
	else
		PUTS(l, "\",\"kind\":2,\"startTimeUnixNano\":\"");
	put_ns(l, t_wall.tv_sec, t_wall.tv_nsec);
	PUTS(l, "\",\"endTimeUnixNano\":\"");
	put_ns(l, t_wall.tv_sec + end / 1000000000, end % 1000000000);
	PUTS(l, "\",\"attributes\":[{\"key\":\"mcp.method.name\","
	    "\"value\":{\"stringValue\":\"");
	put(l, l->b + at[0], at[1]);	/* as in the name */
	PUTS(l, "\"}}");
	if (call) {
		if (ri->name != NULL) {
			PUTS(l, ATTR_S("gen_ai.tool.name"));
			put(l, l->b + at[2], at[3]);
			PUTS(l, "\"}}");
		}
		PUTS(l, ATTR_S("gen_ai.operation.name") "execute_tool\"}}");
	} else if (strcmp(m, "prompts/get") == 0)
		ATTR_STR(l, "gen_ai.prompt.name", ri->name);
	else if (strncmp(m, "resources/", 10) == 0)
		ATTR_STR(l, "mcp.resource.uri", ri->name);
	/* The id as the client sent it: a string without its quotes. */
	if (id != NULL && *id == '"' && (n = strlen(id)) >= 2 &&
	    n - 2 < sizeof(rid)) {
		memcpy(rid, id + 1, n - 2);
		rid[n - 2] = '\0';
		id = rid;
	}
	ATTR_STR(l, "jsonrpc.request.id", id);
	ATTR_STR(l, "mcp.protocol.version", d->version);
	if (d->outcome != NULL && strcmp(d->outcome, "tool_error") == 0)
		err = "tool_error";
	else if (d->code != 0) {
		snprintf(code, sizeof(code), "%ld", d->code);
		err = code;
		ATTR_RAW(l, "rpc.response.status_code", code);
	}
	ATTR_RAW(l, "error.type", err);
	if (call)
		ATTR_INT(l, "wymcp.round", d->round);
	ATTR_STR(l, "wymcp.task.id", d->task_run ? d->task_id : NULL);
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

/*
 * What follows `prefix' in `s', or NULL when s does not begin with it
 * (strncmp(3) inline: the params differ in their first bytes).
 */
static const char *
after(const char *s, const char *prefix)
{
	while (*prefix != '\0' && *s == *prefix)
		s++, prefix++;
	return *prefix == '\0' ? s : NULL;
}

void
front_audit_begin(char *const *env)
{
	const char	*uid = NULL, *v;
	int		 n, spans = front_otlp_on();

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
			if ((v = after(*env, "WYMCP_REQUEST_ID=")) != NULL)
				reqid = v;
			break;
		case 'U':
			if ((v = after(*env, "UNIQUE_ID=")) != NULL)
				uid = v;
			break;
		case 'R':
			if ((v = after(*env, "REMOTE_ADDR=")) != NULL)
				addr = v;
			break;
		case 'H':
			/* With spans on, the library's trace id is there. */
			if (!spans && (v = after(*env, "HTTP_TRACEPARENT=")) !=
			    NULL)
				http_trace = v;
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
	build(&l, ri, us, 1);
	if (l.over)
		build(&l, ri, us, 0);
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
