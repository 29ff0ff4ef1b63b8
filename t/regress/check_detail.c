/*
 * check_detail.c - what a request was, for an audit line
 *
 * wymcp_server_set_request_detail(): with WYMCP_DETAIL_HOOK the request
 * hook is told, once the response is written, the detail of the
 * request (principal, client, protocol, target, round, outcome, the
 * question keys, the task, the JSON-RPC code, the status, the bytes
 * read, a keyed digest of the arguments and, for a tool that opts in,
 * the arguments without their writeOnly properties); with
 * WYMCP_DETAIL_HEADERS the same facts go out as Wymcp-* headers.
 * Without either, the hook gets no detail and the head no header.
 * Every test serves real requests in-process (the harness).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "harness.h"

static struct wymcp_server	*srv;
static struct h_resp		 resp;

/* What the hook saw at the end of the last request. */
static struct {
	int	 dones;
	int	 detailed;
	char	 name[64], principal[64], client[64], version[64];
	char	 outcome[32], questions[128], task[64], digest[64];
	char	 args[256], target[64];
	char	 trace[40], span[24], parent[24];
	long	 code;
	int	 round, status, has_args;
	size_t	 in;
} g;

#define COPY(dst, src) snprintf((dst), sizeof(dst), "%s", \
	(src) != NULL ? (src) : "")

static void
hook(void *arg, const struct wymcp_request_info *ri)
{
	const struct wymcp_request_detail *d = ri->detail;

	(void)arg;
	if (!ri->done)
		return;
	g.dones++;
	COPY(g.name, ri->name);
	if ((g.detailed = d != NULL) == 0)
		return;
	COPY(g.principal, d->principal);
	COPY(g.client, d->client_name);
	COPY(g.version, d->version);
	COPY(g.outcome, d->outcome);
	COPY(g.questions, d->questions);
	COPY(g.task, d->task_id);
	COPY(g.digest, d->args_digest);
	COPY(g.target, d->target);
	COPY(g.trace, d->trace_id);
	COPY(g.span, d->span_id);
	COPY(g.parent, d->parent_span_id);
	g.has_args = d->args != NULL;
	COPY(g.args, d->args);
	g.code = d->code;
	g.round = d->round;
	g.status = d->status;
	g.in = d->bytes_in;
}

/* ask: two questions, one after the other. */
static enum wymcp_err
ask_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;
	enum wymcp_err		 rc;
	const char		*schema = "{\"type\":\"object\","
	    "\"properties\":{\"ok\":{\"type\":\"boolean\"}}}";

	(void)args;
	if ((rc = wymcp_elicit(ctx, "First?", schema, &a)) != WYMCP_OK ||
	    (rc = wymcp_elicit(ctx, "Second?", schema, &a)) != WYMCP_OK)
		return rc;
	return wymcp_result_add(res, wymcp_text(ctx, "asked"));
}

/* fail: a tool error (isError). */
static enum wymcp_err
fail_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	(void)ctx;
	(void)args;
	return wymcp_result_error(res, "it failed");
}

/* login: opts in to its arguments in the detail, password writeOnly. */
static enum wymcp_err
ok_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	(void)args;
	return wymcp_result_add(res, wymcp_text(ctx, "ok"));
}

/* tp: answers with wymcp_ctx_traceparent(), asked twice. */
static enum wymcp_err
tp_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	const char	*a = wymcp_ctx_traceparent(ctx);

	(void)args;
	if (a == NULL || wymcp_ctx_traceparent(ctx) != a)
		return wymcp_result_error(res, "no traceparent");
	return wymcp_result_add(res, wymcp_text(ctx, a));
}

static const struct wymcp_tool tools[] = {
	{ .name = "tp", .description = "Trace context.",
	  .input_schema = "{\"type\":\"object\"}", .run = tp_run },
	{ .name = "ask", .description = "Asks twice.",
	  .input_schema = "{\"type\":\"object\"}", .run = ask_run },
	{ .name = "fail", .description = "Fails.",
	  .input_schema = "{\"type\":\"object\"}", .run = fail_run },
	{ .name = "plain", .description = "Answers.",
	  .input_schema = "{\"type\":\"object\",\"properties\":{\"n\":"
	  "{\"type\":\"integer\"}},\"additionalProperties\":false}",
	  .run = ok_run },
	{ .name = "login", .description = "Logs in.",
	  .input_schema = "{\"type\":\"object\",\"properties\":{"
	  "\"user\":{\"type\":\"string\"},\"password\":{\"type\":"
	  "\"string\",\"writeOnly\":true}}}",
	  .run = ok_run, .audit_args = 1 },
	{ .name = NULL }
};

static const struct wymcp_module mod = {
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "detail", .tools = tools,
	.tool_size = sizeof(struct wymcp_tool)
};

static void
setup(void)
{
	memset(&resp, 0, sizeof(resp));
	memset(&g, 0, sizeof(g));
	srv = wymcp_server_new();
	ck_assert_ptr_nonnull(srv);
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod), WYMCP_OK);
	wymcp_server_set_request_fn(srv, hook, NULL);
	wymcp_server_set_request_detail(srv, WYMCP_DETAIL_HOOK);
}

static void
teardown(void)
{
	h_free(&resp);
	wymcp_server_free(srv);
	srv = NULL;
}

static void
call(const char *name, const char *params, const char *const *extra)
{
	h_free(&resp);
	memset(&g, 0, sizeof(g));
	(void)h_call(srv, "tools/call", name, params, extra, &resp);
	ck_assert_int_eq(g.dones, 1);
}

/* The requestState of the last response. */
static char *
state(void)
{
	struct json_object	*s = h_jp(resp.json, "result", "requestState",
	    NULL);

	ck_assert_ptr_nonnull(s);
	return strdup(json_object_get_string(s));
}

START_TEST(off_gives_no_detail)
{
	wymcp_server_set_request_detail(srv, 0);
	call("fail", "{\"name\":\"fail\"}", NULL);
	ck_assert_int_eq(g.detailed, 0);
	ck_assert_str_eq(g.name, "fail");
	ck_assert_ptr_null(strstr(resp.headers, "Wymcp-"));
}
END_TEST

START_TEST(rounds_questions_and_outcome)
{
	const char *const	 who[] = { "WYMCP_PRINCIPAL=alice", NULL };
	char			 p[2048], *st;

	call("ask", "{\"name\":\"ask\",\"_meta\":{"
	    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
	    "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"cli\","
	    "\"version\":\"3\"},\"io.modelcontextprotocol/"
	    "clientCapabilities\":{\"elicitation\":{}}}}", who);
	ck_assert_int_eq(g.detailed, 1);
	ck_assert_str_eq(g.outcome, "input_required");
	ck_assert_str_eq(g.questions, "[\"elicit-1\"]");
	ck_assert_int_eq(g.round, 0);
	ck_assert_str_eq(g.principal, "alice");
	ck_assert_str_eq(g.client, "cli");
	ck_assert_str_eq(g.version, "2026-07-28");
	ck_assert_str_eq(g.target, "ask");
	ck_assert_int_eq(g.status, 200);
	ck_assert_uint_gt(g.in, 100);
	st = state();
	snprintf(p, sizeof(p), "{\"name\":\"ask\",\"requestState\":\"%s\","
	    "\"inputResponses\":{\"elicit-1\":{\"action\":\"accept\","
	    "\"content\":{\"ok\":true}}},\"_meta\":{"
	    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
	    "\"io.modelcontextprotocol/clientCapabilities\":"
	    "{\"elicitation\":{}}}}", st);
	free(st);
	call("ask", p, who);
	ck_assert_str_eq(g.outcome, "input_required");
	ck_assert_str_eq(g.questions, "[\"elicit-2\"]");
	ck_assert_int_eq(g.round, 1);
	ck_assert_str_eq(g.client, "");
}
END_TEST

START_TEST(tool_error_and_rpc_errors)
{
	call("fail", "{\"name\":\"fail\"}", NULL);
	ck_assert_str_eq(g.outcome, "tool_error");
	ck_assert_int_eq(g.code, 0);
	ck_assert_str_eq(g.principal, "");
	/* Refused before the tool ran: the target from the params. */
	call("plain", "{\"name\":\"plain\",\"arguments\":{\"x\":1}}", NULL);
	ck_assert_str_eq(g.outcome, "error");
	ck_assert_int_eq(g.code, -32602);
	ck_assert_str_eq(g.target, "plain");
	ck_assert_str_eq(g.name, "plain");
	ck_assert_int_eq((int)strlen(g.digest), 32);
	call("nosuch", "{\"name\":\"nosuch\"}", NULL);
	ck_assert_str_eq(g.outcome, "error");
	ck_assert_int_eq(g.code, h_code(&resp));
	ck_assert_int_ne(g.code, 0);
	ck_assert_int_eq(g.status, resp.status);
}
END_TEST

START_TEST(digest_tells_arguments_apart)
{
	char	 d1[64], d2[64];

	call("login", "{\"name\":\"login\",\"arguments\":{\"user\":\"a\","
	    "\"password\":\"p1\"}}", NULL);
	snprintf(d1, sizeof(d1), "%s", g.digest);
	call("login", "{\"name\":\"login\",\"arguments\":{\"password\":"
	    "\"p1\",\"user\":\"a\"}}", NULL);
	snprintf(d2, sizeof(d2), "%s", g.digest);
	ck_assert_int_eq((int)strlen(d1), 32);
	ck_assert_str_eq(d1, d2);
	call("login", "{\"name\":\"login\",\"arguments\":{\"user\":\"a\","
	    "\"password\":\"p2\"}}", NULL);
	ck_assert_str_ne(g.digest, d1);
	/* Not a plain hash of the arguments: another key, another digest. */
	teardown();
	setup();
	call("login", "{\"name\":\"login\",\"arguments\":{\"user\":\"a\","
	    "\"password\":\"p1\"}}", NULL);
	ck_assert_str_ne(g.digest, d1);
}
END_TEST

START_TEST(arguments_only_opted_in_never_write_only)
{
	call("login", "{\"name\":\"login\",\"arguments\":{\"user\":\"ann\","
	    "\"password\":\"hunter2\"}}", NULL);
	ck_assert_int_eq(g.has_args, 1);
	ck_assert_str_eq(g.args, "{\"user\":\"ann\"}");
	call("plain", "{\"name\":\"plain\",\"arguments\":{\"n\":1}}", NULL);
	ck_assert_str_eq(g.outcome, "complete");
	ck_assert_int_eq(g.has_args, 0);
}
END_TEST

START_TEST(headers_carry_the_same_facts)
{
	const char *const	 who[] = { "WYMCP_PRINCIPAL=bob\x7f", NULL };

	wymcp_server_set_request_detail(srv, WYMCP_DETAIL_HEADERS);
	call("fail", "{\"name\":\"fail\",\"_meta\":{"
	    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
	    "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"a\\r\\nX: y\","
	    "\"version\":\"1 %\"},\"io.modelcontextprotocol/"
	    "clientCapabilities\":{}}}", who);
	ck_assert_int_eq(g.detailed, 0);	/* the hook was not asked */
	ck_assert_ptr_nonnull(strstr(resp.headers, "Wymcp-Outcome: "
	    "tool_error\r\n"));
	ck_assert_ptr_nonnull(strstr(resp.headers, "Wymcp-Target: fail\r\n"));
	ck_assert_ptr_nonnull(strstr(resp.headers, "Wymcp-Round: 0\r\n"));
	ck_assert_ptr_nonnull(strstr(resp.headers, "Wymcp-Principal: "
	    "bob%7F\r\n"));
	ck_assert_ptr_nonnull(strstr(resp.headers, "Wymcp-Client: "
	    "a%0D%0AX:%20y/1%20%25\r\n"));
	ck_assert_ptr_null(strstr(resp.headers, "\nX: y"));
	ck_assert_ptr_nonnull(strstr(resp.headers, "Wymcp-Args-Digest: "));
	call("nosuch", "{\"name\":\"nosuch\"}", NULL);
	ck_assert_ptr_nonnull(strstr(resp.headers, "Wymcp-Outcome: error\r\n"));
	ck_assert_ptr_nonnull(strstr(resp.headers, "Wymcp-Code: -"));
}
END_TEST

/*
 * The request's span: a child of _meta's traceparent, else of the HTTP
 * header's, else a new trace; the tool's traceparent names it.
 */
START_TEST(trace_context)
{
	const char *const	 hdr[] = { "HTTP_TRACEPARENT=00-"
	    "0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", NULL };
	const char *const	 bad[] = { "HTTP_TRACEPARENT=00-"
	    "00000000000000000000000000000000-b7ad6b7169203331-01", NULL };
	char			 want[64];

	wymcp_server_set_request_detail(srv, WYMCP_DETAIL_HOOK |
	    WYMCP_DETAIL_TRACE);
	call("tp", "{\"name\":\"tp\",\"_meta\":{"
	    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
	    "\"io.modelcontextprotocol/clientCapabilities\":{},"
	    "\"traceparent\":\"00-4bf92f3577b34da6a3ce929d0e0e4736-"
	    "00f067aa0ba902b7-01\"}}", hdr);
	ck_assert_str_eq(g.trace, "4bf92f3577b34da6a3ce929d0e0e4736");
	ck_assert_str_eq(g.parent, "00f067aa0ba902b7");
	ck_assert_int_eq((int)strlen(g.span), 16);
	snprintf(want, sizeof(want), "00-%s-%s-01", g.trace, g.span);
	ck_assert_str_eq(h_text(&resp), want);
	call("tp", "{\"name\":\"tp\"}", hdr);
	ck_assert_str_eq(g.trace, "0af7651916cd43dd8448eb211c80319c");
	ck_assert_str_eq(g.parent, "b7ad6b7169203331");
	call("tp", "{\"name\":\"tp\"}", bad);
	ck_assert_int_eq((int)strlen(g.trace), 32);
	ck_assert_str_ne(g.trace, "00000000000000000000000000000000");
	ck_assert_str_eq(g.parent, "");
	snprintf(want, sizeof(want), "00-%s-%s-01", g.trace, g.span);
	ck_assert_str_eq(h_text(&resp), want);
	/* Without WYMCP_DETAIL_TRACE, no ids in the detail. */
	wymcp_server_set_request_detail(srv, WYMCP_DETAIL_HOOK);
	call("tp", "{\"name\":\"tp\"}", hdr);
	ck_assert_str_eq(g.trace, "");
	ck_assert_ptr_nonnull(strstr(h_text(&resp), "0af7651916cd43dd8448eb"));
}
END_TEST

static Suite *
detail_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("detail");
	tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, off_gives_no_detail);
	tcase_add_test(tc, rounds_questions_and_outcome);
	tcase_add_test(tc, tool_error_and_rpc_errors);
	tcase_add_test(tc, digest_tells_arguments_apart);
	tcase_add_test(tc, arguments_only_opted_in_never_write_only);
	tcase_add_test(tc, headers_carry_the_same_facts);
	tcase_add_test(tc, trace_context);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return h_run(detail_suite());
}
