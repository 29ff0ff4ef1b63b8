/*
 * check_admit.c - the admission of tool calls (rate limits)
 *
 * wymcp_server_set_admit_fn(): a tools/call's first round asks the
 * hook, with who calls (the principal, or "addr:" and the address),
 * the tool and its declared rate; a refusal is HTTP 429 with
 * Retry-After and JSON-RPC error -32029 with data.retryAfterMs; a later
 * round of a call under way is never asked, nor a call refused for its
 * arguments.  A tool's rate is checked at load.  Real requests served
 * in-process (the harness).
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

static struct {
	int	 asked;
	long	 answer;		/* what the hook says */
	char	 who[64], tool[64], rate[64];
	char	 outcome[32];
} g;

static long
admit(void *arg, const struct wymcp_admit *a)
{
	(void)arg;
	g.asked++;
	snprintf(g.who, sizeof(g.who), "%s", a->who);
	snprintf(g.tool, sizeof(g.tool), "%s", a->tool);
	snprintf(g.rate, sizeof(g.rate), "%s", a->rate != NULL ? a->rate :
	    "(none)");
	return g.answer;
}

static void
hook(void *arg, const struct wymcp_request_info *ri)
{
	(void)arg;
	if (ri->done && ri->detail != NULL)
		snprintf(g.outcome, sizeof(g.outcome), "%s",
		    ri->detail->outcome != NULL ? ri->detail->outcome : "");
}

static enum wymcp_err
ask_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;
	enum wymcp_err		 rc;

	(void)args;
	if ((rc = wymcp_elicit(ctx, "Sure?", "{\"type\":\"object\","
	    "\"properties\":{\"ok\":{\"type\":\"boolean\"}}}", &a)) !=
	    WYMCP_OK)
		return rc;
	return wymcp_result_add(res, wymcp_text(ctx, "asked"));
}

static enum wymcp_err
ok_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	(void)args;
	return wymcp_result_add(res, wymcp_text(ctx, "ok"));
}

static const struct wymcp_tool tools[] = {
	{ .name = "ask", .description = "Asks.",
	  .input_schema = "{\"type\":\"object\"}", .run = ask_run },
	{ .name = "deploy", .description = "Deploys.",
	  .input_schema = "{\"type\":\"object\",\"properties\":{\"n\":"
	  "{\"type\":\"integer\"}},\"additionalProperties\":false}",
	  .run = ok_run, .rate = "5/min,burst=2" },
	{ .name = NULL }
};

static const struct wymcp_module mod = {
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "admit", .tools = tools,
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
	wymcp_server_set_admit_fn(srv, admit, NULL);
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
	(void)h_call(srv, "tools/call", name, params, extra, &resp);
}

START_TEST(admitted_calls_run)
{
	const char *const	 who[] = { "WYMCP_PRINCIPAL=alice", NULL };

	call("deploy", "{\"name\":\"deploy\"}", who);
	ck_assert_int_eq(resp.status, 200);
	ck_assert_str_eq(h_text(&resp), "ok");
	ck_assert_int_eq(g.asked, 1);
	ck_assert_str_eq(g.who, "alice");
	ck_assert_str_eq(g.tool, "deploy");
	ck_assert_str_eq(g.rate, "5/min,burst=2");
	ck_assert_str_eq(g.outcome, "complete");
}
END_TEST

START_TEST(refused_is_429_with_retry_after)
{
	const char *const	 addr[] = { "REMOTE_ADDR=10.1.2.3", NULL };

	g.answer = 1500;
	call("deploy", "{\"name\":\"deploy\"}", addr);
	ck_assert_str_eq(g.who, "addr:10.1.2.3");
	ck_assert_int_eq(resp.status, 429);
	ck_assert_int_eq(h_code(&resp), -32029);
	ck_assert_ptr_nonnull(strstr(resp.headers, "Retry-After: 2\r\n"));
	ck_assert_int_eq(json_object_get_int(h_jp(resp.json, "error", "data",
	    "retryAfterMs", NULL)), 1500);
	ck_assert_str_eq(json_object_get_string(h_jp(resp.json, "error",
	    "data", "tool", NULL)), "deploy");
	ck_assert_str_eq(g.outcome, "rate_limited");
	g.answer = 1;
	call("ask", "{\"name\":\"ask\"}", addr);
	ck_assert_ptr_nonnull(strstr(resp.headers, "Retry-After: 1\r\n"));
	ck_assert_str_eq(g.rate, "(none)");
}
END_TEST

/* A round of a call under way is never refused: its budget was taken. */
START_TEST(later_rounds_not_asked)
{
	struct json_object	*st;
	char			 p[2048];

	call("ask", "{\"name\":\"ask\",\"_meta\":{"
	    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
	    "\"io.modelcontextprotocol/clientCapabilities\":"
	    "{\"elicitation\":{}}}}", NULL);
	ck_assert_int_eq(g.asked, 1);
	st = h_jp(resp.json, "result", "requestState", NULL);
	ck_assert_ptr_nonnull(st);
	snprintf(p, sizeof(p), "{\"name\":\"ask\",\"requestState\":\"%s\","
	    "\"inputResponses\":{\"elicit-1\":{\"action\":\"accept\","
	    "\"content\":{\"ok\":true}}},\"_meta\":{"
	    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
	    "\"io.modelcontextprotocol/clientCapabilities\":"
	    "{\"elicitation\":{}}}}", json_object_get_string(st));
	g.answer = 60000;
	call("ask", p, NULL);
	ck_assert_int_eq(g.asked, 1);
	ck_assert_int_eq(resp.status, 200);
	ck_assert_str_eq(h_text(&resp), "asked");
}
END_TEST

/* A call refused for its arguments takes no budget. */
START_TEST(invalid_arguments_not_asked)
{
	call("deploy", "{\"name\":\"deploy\",\"arguments\":{\"x\":1}}", NULL);
	ck_assert_int_eq(h_code(&resp), -32602);
	ck_assert_int_eq(g.asked, 0);
}
END_TEST

START_TEST(bad_rate_refuses_the_module)
{
	static const struct wymcp_tool bad[] = {
		{ .name = "b", .description = "B.", .run = ok_run,
		  .rate = "5/day" },
		{ .name = NULL }
	};
	static const struct wymcp_module badmod = {
		.abi = WYMCP_ABI_VERSION,
		.size = sizeof(struct wymcp_module), .name = "bad",
		.tools = bad, .tool_size = sizeof(struct wymcp_tool)
	};

	ck_assert_int_ne(wymcp_server_add_module(srv, &badmod), WYMCP_OK);
	ck_assert_ptr_nonnull(strstr(wymcp_server_errmsg(srv),
	    "rate '5/day'"));
}
END_TEST

static Suite *
admit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("admit");
	tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, admitted_calls_run);
	tcase_add_test(tc, refused_is_429_with_retry_after);
	tcase_add_test(tc, later_rounds_not_asked);
	tcase_add_test(tc, invalid_arguments_not_asked);
	tcase_add_test(tc, bad_rate_refuses_the_module);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return h_run(admit_suite());
}
