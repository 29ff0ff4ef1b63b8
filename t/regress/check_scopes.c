/*
 * check_scopes.c - per-tool OAuth scopes (struct wymcp_tool scopes)
 *
 * The token's scopes reach wymcp-fcgi as WYMCP_SCOPES, a param the
 * site sets from its authorizer (wymcp-authz).  A tool that declares
 * scopes is listed only when the token holds them all, and a call
 * without them is answered 403 with the step-up challenge of MCP
 * basic/authorization ("Runtime Insufficient Scope Errors") before the
 * tool runs.  Served in-process through wymcp_server_serve().
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <sodium.h>

#include "testing/testing.h"
#include "wymcp_testing.h"
#include "harness.h"

#define RM	"https://mcp.example.com/.well-known/"			\
	"oauth-protected-resource/mcp"

static struct wymcp_server	*srv;
static struct h_resp		 resp;
static int			 runs;

static enum wymcp_err
run_ok(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	runs++;
	return wymcp_result_text(res, "ran");
}

static const struct wymcp_tool tools[] = {
	{ .name = "open", .description = "d", .run = run_ok },
	{ .name = "write", .description = "d", .run = run_ok,
	  .scopes = "files:write" },
	{ .name = "admin", .description = "d", .run = run_ok,
	  .scopes = " admin  files:write " },
	{ .name = NULL }
};
static const struct wymcp_module mod = {
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "scoped", .tools = tools,
	.tool_size = sizeof(struct wymcp_tool)
};

static void
setup(void)
{
	ck_assert_ptr_nonnull(srv = wymcp_server_new());
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod), WYMCP_OK);
	memset(&resp, 0, sizeof(resp));
	runs = 0;
}

static void
teardown(void)
{
	h_free(&resp);
	wymcp_server_free(srv);
}

/* The names tools/list shows, space-separated. */
static const char *
listed(const char *const *extra)
{
	static char		 names[256];
	struct json_object	*t;
	size_t			 i;

	h_free(&resp);
	ck_assert_int_eq(h_call(srv, "tools/list", NULL, "{}", extra, &resp),
	    WYMCP_OK);
	ck_assert_int_eq(resp.status, 200);
	ck_assert(json_object_object_get_ex(h_result(&resp), "tools", &t));
	names[0] = '\0';
	for (i = 0; i < json_object_array_length(t); i++) {
		if (i > 0)
			strcat(names, " ");
		strcat(names, json_object_get_string(json_object_object_get(
		    json_object_array_get_idx(t, i), "name")));
	}
	return names;
}

static void
call(const char *name, const char *const *extra)
{
	char	 params[128];

	h_free(&resp);
	snprintf(params, sizeof(params), "{\"name\":\"%s\"}", name);
	ck_assert_int_eq(h_call(srv, "tools/call", name, params, extra,
	    &resp), WYMCP_OK);
}

START_TEST(list_follows_scopes)
{
	static const char *const none[] = { NULL };
	static const char *const empty[] = { "WYMCP_SCOPES=", NULL };
	static const char *const write[] = {
		"WYMCP_SCOPES=openid files:write", NULL };
	static const char *const both[] = {
		"WYMCP_SCOPES=files:write admin", NULL };
	static const char *const comma[] = {
		"WYMCP_SCOPES=admin,files:write", NULL };

	ck_assert_str_eq(listed(none), "open");
	ck_assert_str_eq(listed(empty), "open");
	ck_assert_str_eq(listed(write), "open write");
	ck_assert_str_eq(listed(both), "open write admin");
	ck_assert_str_eq(listed(comma), "open");
	/* A list that depends on the token is private. */
	ck_assert_str_eq(json_object_get_string(json_object_object_get(
	    h_result(&resp), "cacheScope")), "private");
}
END_TEST

START_TEST(call_without_scopes_is_403)
{
	static const char *const write[] = {
		"WYMCP_SCOPES=files:write",
		"WYMCP_RESOURCE_METADATA=" RM, NULL };
	static const char *const bad_rm[] = {
		"WYMCP_RESOURCE_METADATA=https://x/\"a", NULL };

	call("admin", write);
	ck_assert_int_eq(resp.status, 403);
	ck_assert_ptr_nonnull(strstr(resp.headers, "WWW-Authenticate: Bearer "
	    "error=\"insufficient_scope\", scope=\" admin  files:write \", "
	    "resource_metadata=\"" RM "\", error_description=\"The tool "
	    "admin needs scopes the token lacks\"\r\n"));
	ck_assert_int_eq(h_code(&resp), -32600);
	ck_assert_int_eq(runs, 0);

	call("write", bad_rm);		/* no scopes; a metadata URL unfit */
	ck_assert_int_eq(resp.status, 403);
	ck_assert_ptr_nonnull(strstr(resp.headers, "scope=\"files:write\", "
	    "error_description"));
	ck_assert_ptr_null(strstr(resp.headers, "resource_metadata"));
	ck_assert_int_eq(runs, 0);

	call("write", write);
	ck_assert_int_eq(resp.status, 200);
	ck_assert_str_eq(h_text(&resp), "ran");
	ck_assert_ptr_null(strstr(resp.headers, "WWW-Authenticate"));
	call("open", NULL);
	ck_assert_int_eq(resp.status, 200);
	ck_assert_int_eq(runs, 2);
}
END_TEST

/*
 * A 2025-11-25 client (no _meta, its version header) gets the same 403:
 * the era's rule that method errors go out with HTTP 200 does not
 * apply to an HTTP authorization answer.
 */
START_TEST(legacy_call_without_scopes_is_403)
{
	static const char *const env[] = {
		"REQUEST_METHOD=POST", "CONTENT_TYPE=application/json",
		"HTTP_ACCEPT=application/json, text/event-stream",
		"HTTP_HOST=localhost", "HTTP_MCP_PROTOCOL_VERSION=2025-11-25",
		NULL, NULL };
	const char	*e[7];
	char		 cl[64];
	const char	*body = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
	    "\"tools/call\",\"params\":{\"name\":\"write\","
	    "\"arguments\":{}}}";

	memcpy(e, env, sizeof(e));
	snprintf(cl, sizeof(cl), "CONTENT_LENGTH=%zu", strlen(body));
	e[5] = cl;
	ck_assert_int_eq(h_serve(srv, e, body, &resp), WYMCP_OK);
	ck_assert_int_eq(resp.status, 403);
	ck_assert_ptr_nonnull(strstr(resp.headers, "WWW-Authenticate: Bearer "
	    "error=\"insufficient_scope\", scope=\"files:write\""));
	ck_assert_int_eq(h_code(&resp), -32600);
	ck_assert_int_eq(runs, 0);
}
END_TEST

START_TEST(bad_scopes_refused_at_load)
{
	static const struct wymcp_tool bad[] = {
		{ .name = "q", .description = "d", .run = run_ok,
		  .scopes = "a \"b" },
		{ .name = NULL }
	};
	static const struct wymcp_module badmod = {
		.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
		.name = "bad", .tools = bad,
		.tool_size = sizeof(struct wymcp_tool)
	};

	ck_assert_int_ne(wymcp_server_add_module(srv, &badmod), WYMCP_OK);
	ck_assert_ptr_nonnull(strstr(wymcp_server_errmsg(srv), "scope"));
}
END_TEST

/* No question is ever asked here. */
static const char *
no_answer(void *arg, const char *key, struct json_object *request)
{
	return NULL;
}

/* The testing API: opts.scopes is the token's, in-process and wire. */
START_TEST(testing_api_scopes)
{
	static const struct wymcp_module *const mount[] = { &mod, NULL };
	struct wymcp_testing_opts	 o = { .mount = mount };
	struct wymcp_testing_round	 r;
	struct wymcp_ctx		*ctx;

	ck_assert_ptr_nonnull(ctx = wymcp_testing_build_context(&o));
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, &tools[1], NULL, &r),
	    WYMCP_OK);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_ERROR);
	ck_assert_int_eq(r.code, -32600);
	ck_assert_int_eq(wymcp_testing_call_tool(ctx, "write", NULL,
	    no_answer, NULL, &r), WYMCP_OK);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_ERROR);
	ck_assert_int_eq(runs, 0);
	wymcp_testing_free_context(ctx);

	o.scopes = "files:write";
	ck_assert_ptr_nonnull(ctx = wymcp_testing_build_context(&o));
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, &tools[1], NULL, &r),
	    WYMCP_OK);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_int_eq(wymcp_testing_call_tool(ctx, "write", NULL,
	    no_answer, NULL, &r), WYMCP_OK);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_int_eq(runs, 2);
	wymcp_testing_free_context(ctx);
}
END_TEST

static Suite *
scopes_suite(void)
{
	Suite	*s = suite_create("scopes");
	TCase	*tc = tcase_create("scopes");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, list_follows_scopes);
	tcase_add_test(tc, call_without_scopes_is_403);
	tcase_add_test(tc, legacy_call_without_scopes_is_403);
	tcase_add_test(tc, bad_scopes_refused_at_load);
	tcase_add_test(tc, testing_api_scopes);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	if (sodium_init() < 0)
		return 1;
	sr = srunner_create(scopes_suite());
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
