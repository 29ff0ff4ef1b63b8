/*
 * check_stream.c - SSE responses (stream.c): progress, log messages,
 * cancellation
 *
 * Every test serves a real request in-process through
 * wymcp_server_serve() (the harness, or a failing io of its own) with
 * the tools below and the bundled examples module loaded, and reads the
 * CGI response byte for byte: plain JSON unless a notification went
 * out; otherwise the SSE head, "event: message\ndata: <json>\n\n" per
 * message, the final response last (streamable-http.mdx "Receiving
 * Messages", progress.mdx, logging.mdx, cancellation.mdx).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "testing/testing.h"
#include "harness.h"
#include "wymcp_testing.h"

#define META_PART							\
	"\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","	\
	"\"io.modelcontextprotocol/clientCapabilities\":{}"
/* params text with a _meta of the required keys and `extra` members. */
#define WITH_META(extra, rest)						\
	"{\"_meta\":{" META_PART extra "}" rest "}"

#define SSE_HEAD							\
	"Status: 200 OK\r\nContent-Type: text/event-stream\r\n"		\
	"Cache-Control: no-cache\r\nX-Accel-Buffering: no"

static struct wymcp_server	*srv;
static struct h_resp		 resp;

/* What the tools saw. */
static struct {
	int		 runs;
	int		 loop_ok;	/* progress calls that went out */
	enum wymcp_err	 loop_rc;	/* the one that did not */
	int		 loop_cancelled; /* wymcp_cancelled() then */
	enum wymcp_err	 loop_after;	/* a progress call after that */
	enum wymcp_err	 late_rc;	/* progress after the run ended */
} g;

/* The server's log. */
static char	 logged[64][256];
static int	 logprio[64];
static int	 nlogged;

static void
logfn(void *arg, int prio, const char *reqid, const char *msg)
{
	(void)arg;
	(void)reqid;
	if (nlogged < 64) {
		snprintf(logged[nlogged], sizeof(logged[0]), "%s", msg);
		logprio[nlogged++] = prio;
	}
}

/*
 * steps: wymcp_progress() for each of args.steps with args.total
 * (default unknown) and args.message (default none); the result text
 * is the return codes, comma-separated.  args.nan sends NaN first.
 */
static enum wymcp_err
steps_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a, *v;
	const char		*msg = NULL, *out = "";
	double			 total = -1;
	size_t			 i;

	g.runs++;
	if (json_object_object_get_ex(args, "total", &v))
		total = json_object_get_double(v);
	if (json_object_object_get_ex(args, "message", &v))
		msg = json_object_get_string(v);
	if (json_object_object_get_ex(args, "nan", &v))
		out = wymcp_printf(ctx, "%d,%d,", wymcp_progress(ctx, NAN,
		    total, msg), wymcp_progress(ctx, 1, NAN, msg));
	if (json_object_object_get_ex(args, "badutf8", &v))
		out = wymcp_printf(ctx, "%s%d,", out, wymcp_progress(ctx, 1,
		    total, "bad \xff byte"));
	if (!json_object_object_get_ex(args, "steps", &a) ||
	    !json_object_is_type(a, json_type_array))
		a = wymcp_own(ctx, json_object_new_array());
	for (i = 0; i < json_object_array_length(a); i++)
		out = wymcp_printf(ctx, "%s%s%d", out, i > 0 ? "," : "",
		    wymcp_progress(ctx, json_object_get_double(
		    json_object_array_get_idx(a, i)), total, msg));
	return wymcp_result_add(res, wymcp_text(ctx, out));
}

/* logs: one line at each priority, most severe first. */
static enum wymcp_err
logs_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*v;
	int			 p;

	g.runs++;
	for (p = WYMCP_LOG_EMERG; p <= WYMCP_LOG_DEBUG; p++)
		wymcp_log(ctx, p, "line %d", p);
	if (json_object_object_get_ex(args, "badutf8", &v))
		wymcp_log(ctx, WYMCP_LOG_ERR, "cut \xe2\x82 here \xc3\xa9");
	return wymcp_result_add(res, wymcp_text(ctx, "logged"));
}

/*
 * loop: progress 1..n until it fails; records how far it got and what
 * the calls after the failure return.
 */
static enum wymcp_err
loop_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*v;
	enum wymcp_err		 rc;
	int			 i, n = 10;

	g.runs++;
	if (json_object_object_get_ex(args, "n", &v))
		n = json_object_get_int(v);
	g.loop_ok = 0;
	g.loop_rc = WYMCP_OK;
	for (i = 1; i <= n; i++) {
		if ((rc = wymcp_progress(ctx, i, n, "step")) != WYMCP_OK) {
			g.loop_rc = rc;
			g.loop_cancelled = wymcp_cancelled(ctx);
			wymcp_log(ctx, WYMCP_LOG_ERR, "after the client left");
			g.loop_after = wymcp_progress(ctx, i + 100, n, NULL);
			return wymcp_result_error(res, "stopped at %d", i);
		}
		g.loop_ok++;
	}
	return wymcp_result_add(res, wymcp_text(ctx, "done"));
}

/* Runs when the run has ended: no notification may follow. */
static void
late_hook(void *arg)
{
	g.late_rc = wymcp_progress(arg, 99, -1, "too late");
}

/* late: one progress, then a hook that tries another after the run. */
static enum wymcp_err
late_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	(void)args;
	g.runs++;
	wymcp_progress(ctx, 1, -1, NULL);
	wymcp_defer(ctx, late_hook, ctx);
	return wymcp_result_add(res, wymcp_text(ctx, "late"));
}

static const struct wymcp_tool tools[] = {
	{ .name = "steps", .description = "Reports progress.",
	  .input_schema = "{\"type\":\"object\"}", .run = steps_run },
	{ .name = "logs", .description = "Logs at every level.",
	  .input_schema = "{\"type\":\"object\"}", .run = logs_run },
	{ .name = "loop", .description = "Progress until cancelled.",
	  .input_schema = "{\"type\":\"object\"}", .run = loop_run },
	{ .name = "late", .description = "Progress after the end.",
	  .input_schema = "{\"type\":\"object\"}", .run = late_run },
	{ .name = NULL }
};

static const struct wymcp_module mod = {
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "streamer", .tools = tools,
	.tool_size = sizeof(struct wymcp_tool)
};

static void
setup(void)
{
	const char	*top;
	char		 path[1024];

	memset(&resp, 0, sizeof(resp));
	memset(&g, 0, sizeof(g));
	nlogged = 0;
	srv = wymcp_server_new();
	ck_assert_ptr_nonnull(srv);
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod), WYMCP_OK);
	if ((top = getenv("top_builddir")) == NULL || *top == '\0')
		top = ".";
	snprintf(path, sizeof(path), "%s/tools/.libs/examples.so", top);
	ck_assert_msg(wymcp_server_load_module(srv, path) == WYMCP_OK,
	    "%s: %s", path, wymcp_server_errmsg(srv));
	wymcp_server_set_log(srv, logfn, NULL, WYMCP_LOG_DEBUG);
}

static void
teardown(void)
{
	h_free(&resp);
	wymcp_server_free(srv);
	srv = NULL;
}

/* tools/call `name` with params text `params` (carrying its _meta). */
static void
call(const char *name, const char *params, const char *const *extra)
{
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, "tools/call", name, params, extra,
	    &resp), WYMCP_OK);
	ck_assert_ptr_nonnull(resp.headers);
}

/* The response is plain JSON: status, media type, a parsed body. */
static void
assert_json(int status)
{
	ck_assert_int_eq(resp.status, status);
	ck_assert_ptr_nonnull(strstr(resp.headers,
	    "Content-Type: application/json"));
	ck_assert_ptr_null(strstr(resp.headers, "event-stream"));
	ck_assert_ptr_nonnull(resp.json);
}

/*
 * No whitespace outside strings, no newline anywhere: what the
 * conformance suite's line reader needs.
 */
static int
compact(const char *s)
{
	int	 instr = 0, esc = 0;

	for (; *s != '\0'; s++) {
		if (*s == '\n' || *s == '\r')
			return 0;
		if (instr) {
			if (esc)
				esc = 0;
			else if (*s == '\\')
				esc = 1;
			else if (*s == '"')
				instr = 0;
		} else if (*s == '"')
			instr = 1;
		else if (*s == ' ' || *s == '\t')
			return 0;
	}
	return 1;
}

/*
 * The events of an SSE body, checked for exact framing: each is
 * "event: message\ndata: <compact JSON>\n\n", nothing else (no "id:",
 * no comment).  Fills data[] with malloc'd copies; returns the count.
 */
static int
events(const char *body, char **data, int max)
{
	const char	*p = body, *nl;
	int		 n = 0;

	while (*p != '\0') {
		ck_assert_int_lt(n, max);
		ck_assert_msg(strncmp(p, "event: message\ndata: ", 21) == 0,
		    "event %d framing: %.60s", n, p);
		p += 21;
		nl = strchr(p, '\n');
		ck_assert_ptr_nonnull(nl);
		ck_assert_msg(nl[1] == '\n', "event %d: no blank line", n);
		data[n] = strndup(p, (size_t)(nl - p));
		ck_assert_msg(compact(data[n]), "not compact: %s", data[n]);
		n++;
		p = nl + 2;
	}
	return n;
}

static void
free_events(char **data, int n)
{
	while (n-- > 0)
		free(data[n]);
}

/* The response is a stream; its head is exact. */
static void
assert_stream(void)
{
	ck_assert_int_eq(resp.status, 200);
	ck_assert_str_eq(resp.headers, SSE_HEAD);
	ck_assert_ptr_null(resp.json);
	ck_assert_ptr_null(strstr(resp.body, "\nid:"));
}

/*
 * The last event is the final response to request id 1: returns its
 * first content text (valid until the caller frees `last`).
 */
static const char *
final_text(struct json_object *last)
{
	struct json_object	*v, *r, *c;

	ck_assert_ptr_nonnull(last);
	ck_assert(json_object_object_get_ex(last, "id", &v));
	ck_assert_int_eq(json_object_get_int(v), 1);
	ck_assert(!json_object_object_get_ex(last, "method", NULL));
	ck_assert(json_object_object_get_ex(last, "result", &r));
	ck_assert(json_object_object_get_ex(r, "content", &c));
	return json_object_get_string(json_object_object_get(
	    json_object_array_get_idx(c, 0), "text"));
}

START_TEST(no_token_plain_json)
{
	call("steps", WITH_META("", ",\"name\":\"steps\",\"arguments\":"
	    "{\"steps\":[1,2],\"total\":2}"), NULL);
	assert_json(200);
	ck_assert_str_eq(h_text(&resp), "0,0");
	ck_assert_ptr_nonnull(strstr(resp.headers, "Content-Length: "));
	ck_assert_int_eq(g.runs, 1);
}
END_TEST

START_TEST(token_string_exact_stream)
{
	char			*d[8];
	struct json_object	*last;
	int			 n;

	call("steps", WITH_META(",\"progressToken\":\"tok-1\"",
	    ",\"name\":\"steps\",\"arguments\":{\"steps\":[1,2,3],"
	    "\"total\":3,\"message\":\"Working\"}"), NULL);
	assert_stream();
	n = events(resp.body, d, 8);
	ck_assert_int_eq(n, 4);
	ck_assert_str_eq(d[0], "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/progress\",\"params\":{\"progressToken\":"
	    "\"tok-1\",\"progress\":1,\"total\":3,\"message\":\"Working\"}}");
	ck_assert_str_eq(d[1], "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/progress\",\"params\":{\"progressToken\":"
	    "\"tok-1\",\"progress\":2,\"total\":3,\"message\":\"Working\"}}");
	ck_assert_ptr_nonnull(strstr(d[2], "\"progress\":3,\"total\":3,"));
	last = json_tokener_parse(d[3]);
	ck_assert_str_eq(final_text(last), "0,0,0");
	json_object_put(last);
	/* The whole body, byte for byte: events then nothing. */
	ck_assert(strncmp(resp.body, "event: message\ndata: {", 22) == 0);
	ck_assert(resp.bodylen > 2 &&
	    strcmp(resp.body + resp.bodylen - 2, "\n\n") == 0);
	free_events(d, n);
}
END_TEST

START_TEST(token_integer_keeps_type)
{
	char			*d[4];
	struct json_object	*o, *p, *t;
	int			 n;

	call("steps", WITH_META(",\"progressToken\":42",
	    ",\"name\":\"steps\",\"arguments\":{\"steps\":[5]}"), NULL);
	assert_stream();
	n = events(resp.body, d, 4);
	ck_assert_int_eq(n, 2);
	/* total and message omitted when not given. */
	ck_assert_str_eq(d[0], "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/progress\",\"params\":{\"progressToken\":42,"
	    "\"progress\":5}}");
	o = json_tokener_parse(d[0]);
	p = json_object_object_get(o, "params");
	t = json_object_object_get(p, "progressToken");
	ck_assert(json_object_is_type(t, json_type_int));
	ck_assert_int_eq(json_object_get_int(t), 42);
	json_object_put(o);
	free_events(d, n);
}
END_TEST

START_TEST(token_other_types_ignored)
{
	/* A float or null token is not echoed: no progress, plain JSON. */
	call("steps", WITH_META(",\"progressToken\":1.5",
	    ",\"name\":\"steps\",\"arguments\":{\"steps\":[1]}"), NULL);
	assert_json(200);
	call("steps", WITH_META(",\"progressToken\":null",
	    ",\"name\":\"steps\",\"arguments\":{\"steps\":[1]}"), NULL);
	assert_json(200);
	ck_assert_str_eq(h_text(&resp), "0");
}
END_TEST

START_TEST(progress_must_increase)
{
	char			*d[8];
	struct json_object	*last;
	int			 n;

	/* 0 is a fine first value (the conformance reference sends it). */
	call("steps", WITH_META(",\"progressToken\":\"p\"",
	    ",\"name\":\"steps\",\"arguments\":{\"steps\":[0,0,-1,50,49.5,"
	    "100],\"total\":100}"), NULL);
	assert_stream();
	n = events(resp.body, d, 8);
	ck_assert_int_eq(n, 4);
	ck_assert_ptr_nonnull(strstr(d[0], "\"progress\":0,\"total\":100}"));
	ck_assert_ptr_nonnull(strstr(d[1], "\"progress\":50,"));
	ck_assert_ptr_nonnull(strstr(d[2], "\"progress\":100,"));
	last = json_tokener_parse(d[3]);
	ck_assert_str_eq(final_text(last), "0,2,2,0,2,0");
	json_object_put(last);
	free_events(d, n);
}
END_TEST

START_TEST(progress_numbers)
{
	char	*d[4];
	int	 n;

	/* Integral values print as integers, others as short decimals. */
	call("steps", WITH_META(",\"progressToken\":\"p\"",
	    ",\"name\":\"steps\",\"arguments\":{\"steps\":[0.1,2.0],"
	    "\"total\":2.5}"), NULL);
	assert_stream();
	n = events(resp.body, d, 4);
	ck_assert_int_eq(n, 3);
	ck_assert_ptr_nonnull(strstr(d[0],
	    "\"progress\":0.1,\"total\":2.5}"));
	ck_assert_ptr_nonnull(strstr(d[1], "\"progress\":2,\"total\":2.5}"));
	free_events(d, n);
	/* NaN and infinities are refused; a negative total is omitted. */
	call("steps", WITH_META(",\"progressToken\":\"p\"",
	    ",\"name\":\"steps\",\"arguments\":{\"nan\":true,"
	    "\"badutf8\":true,\"steps\":[3]}"), NULL);
	assert_stream();
	n = events(resp.body, d, 4);
	ck_assert_int_eq(n, 2);
	ck_assert_ptr_nonnull(strstr(d[0], "\"progress\":3}}"));
	ck_assert_ptr_nonnull(strstr(d[1], "\"text\":\"2,2,2,0\""));
	free_events(d, n);
}
END_TEST

START_TEST(message_escaped_single_line)
{
	char	*d[4];
	int	 n;

	call("steps", WITH_META(",\"progressToken\":\"p\"",
	    ",\"name\":\"steps\",\"arguments\":{\"steps\":[1],"
	    "\"message\":\"two\\nlines \\\"q\\\" \\u00e9\"}"), NULL);
	assert_stream();
	n = events(resp.body, d, 4);
	ck_assert_int_eq(n, 2);
	ck_assert_ptr_nonnull(strstr(d[0],
	    "\"message\":\"two\\nlines \\\"q\\\" \xc3\xa9\"}}"));
	free_events(d, n);
}
END_TEST

START_TEST(loglevel_filters_by_priority)
{
	static const char *const want[] = { "emergency", "alert",
	    "critical", "error", "warning" };
	char			*d[16];
	struct json_object	*o, *p;
	int			 n, i;

	call("logs", WITH_META(",\"io.modelcontextprotocol/logLevel\":"
	    "\"warning\"", ",\"name\":\"logs\""), NULL);
	assert_stream();
	n = events(resp.body, d, 16);
	ck_assert_int_eq(n, 6);
	ck_assert_str_eq(d[0], "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/message\",\"params\":{\"level\":\"emergency\","
	    "\"logger\":\"streamer\",\"data\":\"line 0\"}}");
	for (i = 0; i < 5; i++) {
		o = json_tokener_parse(d[i]);
		p = json_object_object_get(o, "params");
		ck_assert_str_eq(json_object_get_string(
		    json_object_object_get(p, "level")), want[i]);
		json_object_put(o);
	}
	o = json_tokener_parse(d[5]);
	ck_assert_str_eq(final_text(o), "logged");
	json_object_put(o);
	free_events(d, n);
	/* The server's own log is filtered separately: it got all 8. */
	for (i = 0, n = 0; i < nlogged; i++)
		if (strncmp(logged[i], "line ", 5) == 0)
			n++;
	ck_assert_int_eq(n, 8);

	call("logs", WITH_META(",\"io.modelcontextprotocol/logLevel\":"
	    "\"debug\"", ",\"name\":\"logs\""), NULL);
	assert_stream();
	n = events(resp.body, d, 16);
	ck_assert_int_eq(n, 9);
	ck_assert_ptr_nonnull(strstr(d[7], "\"level\":\"debug\""));
	ck_assert_ptr_nonnull(strstr(d[7], "\"data\":\"line 7\""));
	free_events(d, n);

	call("logs", WITH_META(",\"io.modelcontextprotocol/logLevel\":"
	    "\"emergency\"", ",\"name\":\"logs\""), NULL);
	assert_stream();
	n = events(resp.body, d, 16);
	ck_assert_int_eq(n, 2);
	free_events(d, n);
}
END_TEST

START_TEST(no_log_messages_without_loglevel)
{
	/* conformance server-stateless row 14: never without logLevel. */
	call("logs", WITH_META("", ",\"name\":\"logs\""), NULL);
	assert_json(200);
	ck_assert_str_eq(h_text(&resp), "logged");
	ck_assert_ptr_null(strstr(resp.body, "notifications/message"));
	/* A progressToken alone does not open the log either. */
	call("logs", WITH_META(",\"progressToken\":\"p\"",
	    ",\"name\":\"logs\""), NULL);
	assert_json(200);
}
END_TEST

START_TEST(unknown_loglevel_refused)
{
	struct json_object	*e, *m;

	call("logs", WITH_META(",\"io.modelcontextprotocol/logLevel\":"
	    "\"verbose\"", ",\"name\":\"logs\""), NULL);
	assert_json(400);
	ck_assert_int_eq(h_code(&resp), -32602);
	ck_assert(json_object_object_get_ex(resp.json, "error", &e));
	ck_assert(json_object_object_get_ex(e, "message", &m));
	ck_assert_str_eq(json_object_get_string(m),
	    "Invalid params: unknown logLevel");
	ck_assert_int_eq(json_object_get_int(json_object_object_get(
	    resp.json, "id")), 1);
	ck_assert_int_eq(g.runs, 0);		/* before the method ran */
	/* Case matters; a non-string is not a level either. */
	call("logs", WITH_META(",\"io.modelcontextprotocol/logLevel\":"
	    "\"DEBUG\"", ",\"name\":\"logs\""), NULL);
	ck_assert_int_eq(h_code(&resp), -32602);
	call("logs", WITH_META(",\"io.modelcontextprotocol/logLevel\":7",
	    ",\"name\":\"logs\""), NULL);
	ck_assert_int_eq(h_code(&resp), -32602);
	ck_assert_int_eq(resp.status, 400);
	ck_assert_int_eq(g.runs, 0);
	/* Any method: server/discover too. */
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, "server/discover", NULL,
	    WITH_META(",\"io.modelcontextprotocol/logLevel\":\"loud\"", ""),
	    NULL, &resp), WYMCP_OK);
	ck_assert_int_eq(resp.status, 400);
	ck_assert_int_eq(h_code(&resp), -32602);
}
END_TEST

START_TEST(log_data_scrubbed_to_utf8)
{
	char	*d[16];
	int	 n;

	call("logs", WITH_META(",\"io.modelcontextprotocol/logLevel\":"
	    "\"error\"", ",\"name\":\"logs\",\"arguments\":"
	    "{\"badutf8\":true}"), NULL);
	assert_stream();
	n = events(resp.body, d, 16);
	ck_assert_int_eq(n, 6);
	ck_assert_ptr_nonnull(strstr(d[4],
	    "\"data\":\"cut ?? here \xc3\xa9\"}}"));
	free_events(d, n);
}
END_TEST

START_TEST(accept_without_sse_stays_json)
{
	static const char *const json_only[] = {
	    "HTTP_ACCEPT=application/json", NULL };
	static const char *const q0[] = {
	    "HTTP_ACCEPT=text/event-stream;q=0, application/json", NULL };
	static const char *const q00[] = {
	    "HTTP_ACCEPT=application/json, text/event-stream; q=0.00", NULL };
	static const char *const star[] = { "HTTP_ACCEPT=*/*", NULL };
	static const char *const both[] = {
	    "HTTP_ACCEPT=application/json, text/event-stream", NULL };
	static const char *const textstar[] = {
	    "HTTP_ACCEPT=application/json;q=0.9, Text/*;q=0.5", NULL };
	const char *params = WITH_META(",\"progressToken\":\"p\"",
	    ",\"name\":\"steps\",\"arguments\":{\"steps\":[1]}");

	call("steps", params, json_only);
	assert_json(200);
	call("steps", params, q0);
	assert_json(200);
	call("steps", params, q00);
	assert_json(200);
	call("steps", params, star);
	assert_stream();
	call("steps", params, both);
	assert_stream();
	call("steps", params, textstar);
	assert_stream();
}
END_TEST

START_TEST(no_notification_after_the_run)
{
	char			*d[4];
	struct json_object	*last;
	int			 n;

	call("late", WITH_META(",\"progressToken\":\"p\"",
	    ",\"name\":\"late\""), NULL);
	assert_stream();
	ck_assert_int_eq(g.late_rc, WYMCP_ERR_NORUN);
	n = events(resp.body, d, 4);
	ck_assert_int_eq(n, 2);
	last = json_tokener_parse(d[1]);
	ck_assert_str_eq(final_text(last), "late");
	json_object_put(last);
	ck_assert_ptr_null(strstr(resp.body, "too late"));
	free_events(d, n);
}
END_TEST

/* An io whose write or flush fails from the Nth call on. */
struct fio {
	const char	*in;
	size_t		 inlen, inoff;
	char		 out[65536];
	size_t		 outlen;
	int		 nwrite, nflush;
	int		 fail_write;	/* fail the Nth write (0: never) */
	int		 fail_flush;	/* fail the Nth flush (0: never) */
	int		 failed;
	int		 after;		/* calls after the failure */
};

static long
f_read(void *arg, char *buf, size_t len)
{
	struct fio	*f = arg;
	size_t		 n = f->inlen - f->inoff;

	if (n > len)
		n = len;
	memcpy(buf, f->in + f->inoff, n);
	f->inoff += n;
	return (long)n;
}

static int
f_write(void *arg, const char *buf, size_t len)
{
	struct fio	*f = arg;

	if (f->failed) {
		f->after++;
		return -1;
	}
	if (++f->nwrite == f->fail_write) {
		f->failed = 1;
		return -1;
	}
	ck_assert_uint_lt(f->outlen + len, sizeof(f->out));
	memcpy(f->out + f->outlen, buf, len);
	f->outlen += len;
	f->out[f->outlen] = '\0';
	return 0;
}

static int
f_flush(void *arg)
{
	struct fio	*f = arg;

	if (f->failed) {
		f->after++;
		return -1;
	}
	if (++f->nflush == f->fail_flush) {
		f->failed = 1;
		return -1;
	}
	return 0;
}

/* tools/call `name` with `args` and a progressToken through `f`. */
static enum wymcp_err
fserve(struct fio *f, const char *name, const char *params)
{
	struct wymcp_io	 io;
	const char	*env[16];
	char		 body[2048], cl[64], nh[256];
	size_t		 n = 0;

	snprintf(body, sizeof(body), "{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"method\":\"tools/call\",\"params\":%s}", params);
	snprintf(cl, sizeof(cl), "CONTENT_LENGTH=%zu", strlen(body));
	snprintf(nh, sizeof(nh), "HTTP_MCP_NAME=%s", name);
	env[n++] = "REQUEST_METHOD=POST";
	env[n++] = "CONTENT_TYPE=application/json";
	env[n++] = cl;
	env[n++] = "HTTP_HOST=localhost";
	env[n++] = "HTTP_MCP_PROTOCOL_VERSION=2026-07-28";
	env[n++] = "HTTP_MCP_METHOD=tools/call";
	env[n++] = nh;
	env[n] = NULL;
	f->in = body;
	f->inlen = strlen(body);
	f->inoff = 0;
	io.env = (char *const *)env;
	io.read = f_read;
	io.write = f_write;
	io.flush = f_flush;
	io.arg = f;
	return wymcp_server_serve(srv, &io);
}

START_TEST(flush_failure_cancels)
{
	struct fio	*f;
	char		*d[4];
	int		 n, i, info = 0;

	f = calloc(1, sizeof(*f));
	ck_assert_ptr_nonnull(f);
	f->fail_flush = 2;	/* the client leaves after the first event */
	ck_assert_int_eq(fserve(f, "loop", WITH_META(
	    ",\"progressToken\":\"p\",\"io.modelcontextprotocol/logLevel\":"
	    "\"debug\"", ",\"name\":\"loop\",\"arguments\":{\"n\":10}")),
	    WYMCP_ERR_IO);
	ck_assert_int_eq(g.loop_ok, 1);
	ck_assert_int_eq(g.loop_rc, WYMCP_ERR_IO);
	ck_assert_int_eq(g.loop_cancelled, 1);
	ck_assert_int_eq(g.loop_after, WYMCP_ERR_IO);
	/* Nothing was even tried after the failure: no log, no result. */
	ck_assert_int_eq(f->after, 0);
	ck_assert_ptr_nonnull(strstr(f->out, "\r\n\r\n"));
	n = events(strstr(f->out, "\r\n\r\n") + 4, d, 4);
	ck_assert_int_eq(n, 2);		/* the first event, and the second */
	ck_assert_ptr_nonnull(strstr(d[0], "\"progress\":1,"));
	ck_assert_ptr_nonnull(strstr(d[1], "\"progress\":2,"));
	free_events(d, n);
	ck_assert_ptr_null(strstr(f->out, "\"result\""));
	ck_assert_ptr_null(strstr(f->out, "after the client left"));
	/* The server log says so. */
	for (i = 0; i < nlogged; i++)
		if (strstr(logged[i], "client went away") != NULL &&
		    logprio[i] == WYMCP_LOG_INFO)
			info++;
	ck_assert_int_eq(info, 1);
	free(f);

	/* The next request on the same server is served as usual. */
	call("steps", WITH_META(",\"progressToken\":\"p\"",
	    ",\"name\":\"steps\",\"arguments\":{\"steps\":[1,2]}"), NULL);
	assert_stream();
	n = events(resp.body, d, 4);
	ck_assert_int_eq(n, 3);
	free_events(d, n);
	call("steps", WITH_META("", ",\"name\":\"steps\""), NULL);
	assert_json(200);
}
END_TEST

START_TEST(write_failure_cancels)
{
	struct fio	*f;

	/* The very first write (the SSE head) fails. */
	f = calloc(1, sizeof(*f));
	ck_assert_ptr_nonnull(f);
	f->fail_write = 1;
	ck_assert_int_eq(fserve(f, "loop", WITH_META(
	    ",\"progressToken\":7", ",\"name\":\"loop\"")), WYMCP_ERR_IO);
	ck_assert_int_eq(g.loop_ok, 0);
	ck_assert_int_eq(g.loop_rc, WYMCP_ERR_IO);
	ck_assert_int_eq(g.loop_cancelled, 1);
	ck_assert_int_eq(f->after, 0);
	ck_assert_uint_eq(f->outlen, 0);
	free(f);

	/* A write in the middle of the third event fails. */
	f = calloc(1, sizeof(*f));
	ck_assert_ptr_nonnull(f);
	f->fail_write = 8;	/* head, then 3 writes per event */
	ck_assert_int_eq(fserve(f, "loop", WITH_META(
	    ",\"progressToken\":7", ",\"name\":\"loop\"")), WYMCP_ERR_IO);
	ck_assert_int_eq(g.loop_ok, 2);
	ck_assert_int_eq(f->after, 0);
	ck_assert_int_eq(f->nflush, 2);
	free(f);

	/* A cancelled log line: the next progress says the client left. */
	f = calloc(1, sizeof(*f));
	ck_assert_ptr_nonnull(f);
	f->fail_flush = 1;
	ck_assert_int_eq(fserve(f, "logs", WITH_META(
	    ",\"io.modelcontextprotocol/logLevel\":\"info\"",
	    ",\"name\":\"logs\"")), WYMCP_ERR_IO);
	ck_assert_int_eq(f->after, 0);
	ck_assert_int_eq(f->nflush, 1);
	free(f);

	call("logs", WITH_META("", ",\"name\":\"logs\""), NULL);
	assert_json(200);
}
END_TEST

START_TEST(plain_json_never_flushes_events)
{
	struct fio	*f;

	/* No notification: one JSON response, as before. */
	f = calloc(1, sizeof(*f));
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fserve(f, "steps", WITH_META("",
	    ",\"name\":\"steps\",\"arguments\":{\"steps\":[1]}")), WYMCP_OK);
	ck_assert_ptr_nonnull(strstr(f->out, "Content-Type: application/json"));
	ck_assert_ptr_null(strstr(f->out, "event:"));
	free(f);
}
END_TEST

START_TEST(count_slowly_example)
{
	char			*d[16];
	struct json_object	*last;
	int			 n;

	call("count_slowly", WITH_META(",\"progressToken\":\"c\","
	    "\"io.modelcontextprotocol/logLevel\":\"debug\"",
	    ",\"name\":\"count_slowly\",\"arguments\":{\"to\":3,"
	    "\"delay_ms\":0}"), NULL);
	assert_stream();
	n = events(resp.body, d, 16);
	ck_assert_int_eq(n, 7);
	ck_assert_str_eq(d[0], "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/message\",\"params\":{\"level\":\"debug\","
	    "\"logger\":\"examples\",\"data\":\"count_slowly: step 1 of 3\"}}");
	ck_assert_str_eq(d[1], "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/progress\",\"params\":{\"progressToken\":\"c\","
	    "\"progress\":1,\"total\":3,\"message\":\"Counted 1 of 3\"}}");
	ck_assert_ptr_nonnull(strstr(d[5], "\"progress\":3,\"total\":3,"));
	last = json_tokener_parse(d[6]);
	ck_assert_str_eq(final_text(last), "Counted to 3.");
	json_object_put(last);
	free_events(d, n);

	/* Without a token or logLevel: plain JSON, defaults apply. */
	call("count_slowly", WITH_META("", ",\"name\":\"count_slowly\","
	    "\"arguments\":{\"delay_ms\":0}"), NULL);
	assert_json(200);
	ck_assert_str_eq(h_text(&resp), "Counted to 10.");
	/* Out of range: the schema refuses it. */
	call("count_slowly", WITH_META("", ",\"name\":\"count_slowly\","
	    "\"arguments\":{\"to\":101}"), NULL);
	ck_assert_int_eq(h_code(&resp), -32602);
}
END_TEST

START_TEST(count_slowly_stops_when_cancelled)
{
	struct fio	*f;
	int		 i, stop = 0, steps = 0;

	f = calloc(1, sizeof(*f));
	ck_assert_ptr_nonnull(f);
	f->fail_flush = 3;
	ck_assert_int_eq(fserve(f, "count_slowly", WITH_META(
	    ",\"progressToken\":\"c\"", ",\"name\":\"count_slowly\","
	    "\"arguments\":{\"to\":50,\"delay_ms\":0}")), WYMCP_ERR_IO);
	ck_assert_int_eq(f->after, 0);
	for (i = 0; i < nlogged; i++) {
		if (strncmp(logged[i], "count_slowly: step ", 19) == 0)
			steps++;
		if (strcmp(logged[i], "count_slowly: the client went away "
		    "after 3 of 50 steps; stopping") == 0 &&
		    logprio[i] == WYMCP_LOG_INFO)
			stop++;
	}
	ck_assert_int_eq(steps, 3);
	ck_assert_int_eq(stop, 1);
	free(f);
}
END_TEST

START_TEST(testing_api_has_no_stream)
{
	struct wymcp_testing_opts	 o;
	struct wymcp_testing_round	 r;
	struct wymcp_ctx		*ctx;

	memset(&o, 0, sizeof(o));
	o.meta = "{\"progressToken\":\"t\","
	    "\"io.modelcontextprotocol/logLevel\":\"debug\"}";
	ctx = wymcp_testing_build_context(&o);
	ck_assert_ptr_nonnull(ctx);
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, &tools[0],
	    "{\"steps\":[1,2]}", &r), WYMCP_OK);
	ck_assert_str_eq(r.text, "0,0");
	ck_assert_int_eq(wymcp_cancelled(ctx), 0);
	ck_assert_int_eq(wymcp_progress(ctx, 1, 2, NULL), WYMCP_OK);
	wymcp_testing_free_context(ctx);
	ck_assert_int_eq(wymcp_progress(NULL, 1, 2, NULL), WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_cancelled(NULL), 0);
}
END_TEST

static Suite *
stream_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("stream");
	tc = tcase_create("stream");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, no_token_plain_json);
	tcase_add_test(tc, token_string_exact_stream);
	tcase_add_test(tc, token_integer_keeps_type);
	tcase_add_test(tc, token_other_types_ignored);
	tcase_add_test(tc, progress_must_increase);
	tcase_add_test(tc, progress_numbers);
	tcase_add_test(tc, message_escaped_single_line);
	tcase_add_test(tc, loglevel_filters_by_priority);
	tcase_add_test(tc, no_log_messages_without_loglevel);
	tcase_add_test(tc, unknown_loglevel_refused);
	tcase_add_test(tc, log_data_scrubbed_to_utf8);
	tcase_add_test(tc, accept_without_sse_stays_json);
	tcase_add_test(tc, no_notification_after_the_run);
	tcase_add_test(tc, flush_failure_cancels);
	tcase_add_test(tc, write_failure_cancels);
	tcase_add_test(tc, plain_json_never_flushes_events);
	tcase_add_test(tc, count_slowly_example);
	tcase_add_test(tc, count_slowly_stops_when_cancelled);
	tcase_add_test(tc, testing_api_has_no_stream);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	sr = srunner_create(stream_suite());
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
