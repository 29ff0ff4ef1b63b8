/*
 * check_author.c - what a tool author declares and calls (0.5):
 * parameters declared in C and the schemas derived from them, refusals
 * with a reason, role checks, the final step once per call, progress in
 * steps, and errors that say why (issue 38), through the public API and
 * libwymcp-testing only.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "wymcp.h"
#include "wymcp_testing.h"
#include "harness.h"

static struct wymcp_ctx			*ctx;
static struct wymcp_testing_round	 r;
static struct wymcp_testing_opts	 o;

static const char *
plain(struct json_object *v)
{
	return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* Echoes the arguments it reads, typed. */
static enum wymcp_err
echo_run(struct wymcp_ctx *c, struct json_object *args,
    struct wymcp_result *res)
{
	enum wymcp_err	 rc;

	if ((rc = wymcp_result_text(res, "%s %s %lld %g %d",
	    wymcp_arg_str(args, "service", "-"), wymcp_arg_str(args, "env",
	    "-"), (long long)wymcp_arg_int(args, "lines", -1),
	    wymcp_arg_num(args, "ratio", -1), wymcp_arg_bool(args, "dry",
	    -1))) != WYMCP_OK)
		return rc;
	return wymcp_result_jsonf(res, "{\"n\":1}");
}

static const struct wymcp_tool echo_tool = {
	.name = "declared", .description = "Declared parameters.",
	.params = WYMCP_PARAMS(
	    WYMCP_STR("service", "The service.", WYMCP_RANGE(1, 8)),
	    WYMCP_STR("env", NULL, WYMCP_CHOICES("staging", "production"),
		.def = "staging"),
	    WYMCP_INT("lines", "How many.", WYMCP_RANGE(1, 500), .def = "20"),
	    WYMCP_NUM("ratio", "A ratio.", WYMCP_MAX(1), WYMCP_OPTIONAL),
	    WYMCP_BOOL("dry", "Only say.", .def = "true"),
	    WYMCP_ANY("tags", "Tags.", WYMCP_OPTIONAL, .schema =
		"{\"type\":\"array\",\"items\":{\"type\":\"string\"}}")),
	.output = WYMCP_PARAMS(WYMCP_INT("n", "A count."),
	    WYMCP_STR("note", NULL, WYMCP_OPTIONAL)),
	.run = echo_run
};

static void
setup(void)
{
	memset(&r, 0, sizeof(r));
	memset(&o, 0, sizeof(o));
	o.meta = WYMCP_TESTING_META_NONE;
	ctx = wymcp_testing_build_context(&o);
	ck_assert_ptr_nonnull(ctx);
}

static void
teardown(void)
{
	wymcp_testing_free_context(ctx);
	ctx = NULL;
}

/* tools/list sends the derived schemas; the body reads the defaults. */
START_TEST(params_derive_the_schemas)
{
	static const struct wymcp_tool tab[] = { echo_tool };
	static const struct wymcp_module mod = {
		.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
		.name = "declared", WYMCP_TOOLS(tab),
		.tool_size = sizeof(struct wymcp_tool)
	};
	struct wymcp_server	*srv;
	struct h_resp		 resp;

	memset(&resp, 0, sizeof(resp));
	ck_assert_ptr_nonnull(srv = wymcp_server_new());
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod), WYMCP_OK);
	ck_assert_int_eq(h_call(srv, "tools/list", NULL, "{}", NULL, &resp),
	    WYMCP_OK);
	ck_assert_str_eq(plain(h_jp(resp.json, "result", "tools", NULL)),
	    "[{\"name\":\"declared\",\"description\":\"Declared parameters.\","
	    "\"inputSchema\":{\"type\":\"object\",\"properties\":{"
	    "\"service\":{\"type\":\"string\",\"description\":\"The service.\","
	    "\"minLength\":1,\"maxLength\":8},"
	    "\"env\":{\"type\":\"string\","
	    "\"enum\":[\"staging\",\"production\"],\"default\":\"staging\"},"
	    "\"lines\":{\"type\":\"integer\",\"description\":\"How many.\","
	    "\"minimum\":1,\"maximum\":500,\"default\":20},"
	    "\"ratio\":{\"type\":\"number\",\"description\":\"A ratio.\","
	    "\"maximum\":1},"
	    "\"dry\":{\"type\":\"boolean\",\"description\":\"Only say.\","
	    "\"default\":true},"
	    "\"tags\":{\"description\":\"Tags.\",\"type\":\"array\","
	    "\"items\":{\"type\":\"string\"}}},"
	    "\"required\":[\"service\"],\"additionalProperties\":false},"
	    "\"outputSchema\":{\"type\":\"object\",\"properties\":{"
	    "\"n\":{\"type\":\"integer\",\"description\":\"A count.\"},"
	    "\"note\":{\"type\":\"string\"}},\"required\":[\"n\"]}}]");
	h_free(&resp);
	wymcp_server_free(srv);
	/* Defaults are in the arguments the body reads. */
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, &echo_tool,
	    "{\"service\":\"web\"}", &r), WYMCP_OK);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_str_eq(r.text, "web staging 20 -1 1");
}
END_TEST

/* The arguments are checked against the derived schema. */
START_TEST(params_are_checked)
{
	static const char *const bad[] = {
		"{}",					/* service required */
		"{\"service\":\"\"}",			/* minLength 1 */
		"{\"service\":\"a-very-long\"}",	/* maxLength 8 */
		"{\"service\":\"w\",\"env\":\"prod\"}",	/* not a choice */
		"{\"service\":\"w\",\"lines\":0}",	/* minimum 1 */
		"{\"service\":\"w\",\"lines\":2.5}",	/* an integer */
		"{\"service\":\"w\",\"ratio\":1.5}",	/* maximum 1 */
		"{\"service\":\"w\",\"dry\":\"yes\"}",	/* a boolean */
		"{\"service\":\"w\",\"tags\":[1]}",	/* its schema */
		"{\"service\":\"w\",\"other\":1}",	/* not declared */
	};
	size_t	 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(wymcp_testing_run_tool(ctx, &echo_tool, bad[i],
		    &r), WYMCP_OK);
		ck_assert_msg(r.kind == WYMCP_TESTING_INVALID, "%s: kind %d",
		    bad[i], r.kind);
	}
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, &echo_tool,
	    "{\"service\":\"w\",\"env\":\"production\",\"lines\":3,"
	    "\"ratio\":0.5,\"dry\":false,\"tags\":[\"a\"]}", &r), WYMCP_OK);
	ck_assert_str_eq(r.text, "w production 3 0.5 0");
}
END_TEST

/* A structured result is checked against the derived outputSchema. */
static enum wymcp_err
out_run(struct wymcp_ctx *c, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_jsonf(res, "{\"n\":%d}", (int)wymcp_arg_int(args,
	    "n", 0));
}

/* (Tables at file scope: a compound literal in a function is not static.) */
static const struct wymcp_tool out_tool = { .name = "out",
    .description = "Structured output.",
    .params = WYMCP_PARAMS(WYMCP_INT("n", NULL, WYMCP_MIN(-1))),
    .output = WYMCP_PARAMS(WYMCP_INT("n", NULL, WYMCP_MIN(0))),
    .run = out_run };

START_TEST(output_is_checked)
{
	const struct wymcp_tool	*t = &out_tool;

	ck_assert_int_eq(wymcp_testing_run_tool(ctx, t, "{\"n\":2}", &r),
	    WYMCP_OK);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_str_eq(r.text, "{\"n\":2}");
	/* -1 breaks the outputSchema: the tool's fault, -32603. */
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, t, "{\"n\":-1}", &r),
	    WYMCP_OK);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_ERROR);
	ck_assert_int_eq(r.code, -32603);
	ck_assert_msg(strstr(wymcp_testing_errmsg(), "outputSchema") != NULL,
	    "%s", wymcp_testing_errmsg());
}
END_TEST

/* A declaration the loader refuses says which tool and parameter. */
static const struct wymcp_tool bad[] = {
	{ .name = "t1", .description = "d", .run = out_run,
	    .params = WYMCP_PARAMS(WYMCP_INT("n", NULL),
		WYMCP_STR("n", NULL)) },
	{ .name = "t2", .description = "d", .run = out_run,
	    .params = WYMCP_PARAMS(WYMCP_INT("n", NULL,
		WYMCP_RANGE(1, 5), .def = "9")) },
	{ .name = "t3", .description = "d", .run = out_run,
	    .params = WYMCP_PARAMS(WYMCP_INT("n", NULL, .def = "x")) },
	{ .name = "t4", .description = "d", .run = out_run,
	    .params = WYMCP_PARAMS(WYMCP_INT("n", NULL,
		WYMCP_CHOICES("a"))) },
	{ .name = "t5", .description = "d", .run = out_run,
	    .input_schema = "{\"type\":\"object\"}",
	    .params = WYMCP_PARAMS(WYMCP_INT("n", NULL)) },
	{ .name = "t6", .description = "d", .run = out_run,
	    .params = WYMCP_PARAMS(WYMCP_STR("s", NULL,
		WYMCP_MIN(-1))) },
	{ .name = "t7", .description = "d", .run = out_run,
	    .params = WYMCP_PARAMS(WYMCP_STR("s", NULL,
		.schema = "[1]")) },
	{ .name = "t8", .description = "d", .run = out_run,
	    .params = WYMCP_PARAMS(WYMCP_STR("s", NULL,
		WYMCP_CHOICES("a", "b"), .def = "c")) },
};

START_TEST(bad_declarations_are_refused_by_name)
{
	static const char *const why[] = {
		"tool t1: params n: declared twice",
		"tool t2: params n: default '9' does not fit",
		"tool t3: params n: default 'x' is not JSON",
		"tool t4: params n: choices are for WYMCP_STR",
		"tool t5: declare params or input_schema",
		"tool t6: params s: a string's bounds are lengths",
		"tool t7: params s: schema is not a JSON object",
		"tool t8: params s: default 'c' does not fit",
	};
	size_t	 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_ne(wymcp_testing_run_tool(ctx, &bad[i], NULL,
		    &r), WYMCP_OK);
		ck_assert_msg(strstr(wymcp_testing_errmsg(), why[i]) != NULL,
		    "%s: '%s'", bad[i].name, wymcp_testing_errmsg());
	}
}
END_TEST

/* wymcp_refuse() and wymcp_require_assign() in a tool: isError, why. */
static enum wymcp_err
role_run(struct wymcp_ctx *c, struct json_object *args,
    struct wymcp_result *res)
{
	enum wymcp_err	 rc;

	if ((rc = wymcp_require_assign(c, "role", "deployer admin")) !=
	    WYMCP_OK)
		return rc;
	if (wymcp_arg_bool(args, "refuse", 0))
		return wymcp_refuse(c, 0, "Refused: %s", "not today");
	return wymcp_result_text(res, "ok");
}

START_TEST(refusals_say_why)
{
	static const struct wymcp_tool t = { .name = "role",
	    .description = "A role check.", .run = role_run };

	ck_assert_int_eq(wymcp_testing_run_tool(ctx, &t, NULL, &r), WYMCP_OK);
	ck_assert(r.kind == WYMCP_TESTING_COMPLETE && r.is_error);
	ck_assert_str_eq(r.text, "Refused: this needs role one of deployer "
	    "admin, and the caller has no role");
	ck_assert_int_eq(r.rc, WYMCP_ERR_REFUSED);
	wymcp_testing_free_context(ctx);
	o.assigns = "{\"role\":\"admin\"}";
	ck_assert_ptr_nonnull(ctx = wymcp_testing_build_context(&o));
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, &t, NULL, &r), WYMCP_OK);
	ck_assert(!r.is_error && strcmp(r.text, "ok") == 0);
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, &t, "{\"refuse\":true}",
	    &r), WYMCP_OK);
	ck_assert(r.is_error && strcmp(r.text, "Refused: not today") == 0);
	wymcp_testing_free_context(ctx);
	o.assigns = "{\"role\":\"deployers\"}";
	ck_assert_ptr_nonnull(ctx = wymcp_testing_build_context(&o));
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, &t, NULL, &r), WYMCP_OK);
	ck_assert_str_eq(r.text, "Refused: this needs role one of deployer "
	    "admin, and the caller's role is deployers");
}
END_TEST

/* wymcp_write_once(): one record per call, whatever replays it. */
static char	 dir[64];

static enum wymcp_err
once_run(struct wymcp_ctx *c, struct json_object *args,
    struct wymcp_result *res)
{
	enum wymcp_err	 rc;

	if ((rc = wymcp_write_once(c, wymcp_arg_str(args, "dir", NULL),
	    "record %s\n", wymcp_arg_str(args, "what", "-"))) != WYMCP_OK)
		return rc;
	return wymcp_result_text(res, "%s", wymcp_idempotency_key(c));
}

static int
records(char *first, size_t len)
{
	DIR		*d;
	struct dirent	*e;
	char		 path[512];
	FILE		*f;
	int		 n = 0;

	ck_assert_ptr_nonnull(d = opendir(dir));
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (n++ == 0 && first != NULL) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			ck_assert_ptr_nonnull(f = fopen(path, "r"));
			if (fgets(first, (int)len, f) == NULL)
				first[0] = '\0';
			fclose(f);
		}
	}
	closedir(d);
	return n;
}

START_TEST(write_once_per_call)
{
	static const struct wymcp_tool t = { .name = "once",
	    .description = "Writes once.", .run = once_run };
	char	 args[256], rec[64], path[256];

	snprintf(dir, sizeof(dir), "/tmp/check_author.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(args, sizeof(args), "{\"dir\":\"%s\",\"what\":\"a\"}", dir);
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, &t, args, &r), WYMCP_OK);
	ck_assert(!r.is_error);
	snprintf(path, sizeof(path), "%s/%s", dir, r.text);
	/* The same call again (a replayed round): nothing more. */
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, &t, args, &r), WYMCP_OK);
	ck_assert_int_eq(records(rec, sizeof(rec)), 1);
	ck_assert_str_eq(rec, "record a\n");
	ck_assert_int_eq(access(path, R_OK), 0);
	/* Another call: another record. */
	wymcp_testing_free_context(ctx);
	ck_assert_ptr_nonnull(ctx = wymcp_testing_build_context(&o));
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, &t, args, &r), WYMCP_OK);
	ck_assert_int_eq(records(NULL, 0), 2);
	/* No directory: the tool's error says why. */
	snprintf(args, sizeof(args), "{\"dir\":\"%s/none\"}", dir);
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, &t, args, &r), WYMCP_OK);
	ck_assert(r.is_error && r.rc == WYMCP_ERR_IO);
	ck_assert_msg(strstr(r.text, "The record could not be written in ") !=
	    NULL && strstr(r.text, ": No such file or directory") != NULL,
	    "%s", r.text);
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, &t, "{}", &r), WYMCP_OK);
	ck_assert_str_eq(r.text, "wymcp_write_once(): dir is NULL");
	ck_assert_int_eq(system(NULL) >= 0, 1);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(path), 0);
}
END_TEST

/* wymcp_progress_step(): progress 1..n of n, each with its message. */
static enum wymcp_err
steps_run(struct wymcp_ctx *c, struct json_object *args,
    struct wymcp_result *res)
{
	enum wymcp_err	 rc;
	int		 i;

	for (i = 1; i <= 3; i++)
		if ((rc = wymcp_progress_step(c, 3, "Shard %d", i)) !=
		    WYMCP_OK)
			return rc;
	return wymcp_result_text(res, "done");
}

START_TEST(progress_in_steps)
{
	static const struct wymcp_tool tab[] = { { .name = "steps",
	    .description = "Three steps.", .run = steps_run } };
	static const struct wymcp_module mod = {
		.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
		.name = "steps", WYMCP_TOOLS(tab),
		.tool_size = sizeof(struct wymcp_tool)
	};
	struct wymcp_server	*srv;
	struct h_resp		 resp;
	const char		*p;
	int			 k;

	memset(&resp, 0, sizeof(resp));
	ck_assert_ptr_nonnull(srv = wymcp_server_new());
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod), WYMCP_OK);
	ck_assert_int_eq(h_call(srv, "tools/call", "steps", "{\"name\":"
	    "\"steps\",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
	    "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{},"
	    "\"progressToken\":\"p\"}}", NULL, &resp), WYMCP_OK);
	ck_assert_ptr_nonnull(resp.body);
	for (k = 1, p = resp.body; k <= 3; k++) {
		char	 want[128];

		snprintf(want, sizeof(want), "\"progressToken\":\"p\","
		    "\"progress\":%d,\"total\":3,\"message\":\"Shard %d\"",
		    k, k);
		ck_assert_msg((p = strstr(p, want)) != NULL, "no %s in %s",
		    want, resp.body);
	}
	ck_assert_ptr_nonnull(strstr(resp.body, "\"text\":\"done\""));
	h_free(&resp);
	wymcp_server_free(srv);
	/* Without a token: nothing sent, the run goes on. */
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, &tab[0], NULL, &r),
	    WYMCP_OK);
	ck_assert_str_eq(r.text, "done");
}
END_TEST

/* A question to a client that declared none names the capability. */
static enum wymcp_err
asks_run(struct wymcp_ctx *c, struct json_object *args,
    struct wymcp_result *res)
{
	enum wymcp_err	 rc;

	if ((rc = wymcp_ask(c, "Sure?", NULL, NULL)) != WYMCP_OK)
		return rc;
	return wymcp_result_text(res, "yes");
}

START_TEST(missing_capability_is_named)
{
	static const struct wymcp_tool t = { .name = "asks",
	    .description = "Asks.", .run = asks_run };

	ck_assert_int_eq(wymcp_testing_run_tool(ctx, &t, NULL, &r), WYMCP_OK);
	ck_assert(r.is_error && r.rc == WYMCP_ERR_NOTSUP);
	ck_assert_str_eq(r.text, "The client cannot be asked: the request's "
	    "io.modelcontextprotocol/clientCapabilities does not declare "
	    "elicitation (form mode)");
}
END_TEST

/* A chosen key that looks positional; a NULL answer callback. */
static enum wymcp_err
key_run(struct wymcp_ctx *c, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;

	return wymcp_elicit_key(c, "elicit-1", "Name?", wymcp_jsonf(c,
	    "{\"type\":\"object\",\"properties\":{}}"), &a);
}

START_TEST(testing_says_why)
{
	static const struct wymcp_tool t = { .name = "key",
	    .description = "A positional-looking key.", .run = key_run };
	const struct wymcp_module *none[] = { NULL };

	wymcp_testing_free_context(ctx);
	o.meta = WYMCP_TESTING_META_ELICIT;
	ck_assert_ptr_nonnull(ctx = wymcp_testing_build_context(&o));
	(void)wymcp_testing_run_tool(ctx, &t, NULL, &r);
	ck_assert_msg(strstr(wymcp_testing_errmsg(), "chosen key 'elicit-1' "
	    "looks positional") != NULL, "'%s'", wymcp_testing_errmsg());
	ck_assert(r.is_error);
	ck_assert_msg(strstr(r.text, "'elicit-1' looks positional") != NULL,
	    "%s", r.text);
	ck_assert_int_eq(wymcp_testing_call_tool(ctx, "key", NULL, NULL, NULL,
	    &r), WYMCP_ERR_INVAL);
	ck_assert_msg(strstr(wymcp_testing_errmsg(), "answer is NULL") !=
	    NULL, "'%s'", wymcp_testing_errmsg());
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, NULL, NULL, &r),
	    WYMCP_ERR_INVAL);
	ck_assert_str_eq(wymcp_testing_errmsg(),
	    "wymcp_testing_run_tool: tool is NULL");
	(void)none;
}
END_TEST

static Suite *
author_suite(void)
{
	Suite	*s = suite_create("author");
	TCase	*tc;

	tc = tcase_create("params");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, params_derive_the_schemas);
	tcase_add_test(tc, params_are_checked);
	tcase_add_test(tc, output_is_checked);
	tcase_add_test(tc, bad_declarations_are_refused_by_name);
	suite_add_tcase(s, tc);

	tc = tcase_create("calls");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, refusals_say_why);
	tcase_add_test(tc, write_once_per_call);
	tcase_add_test(tc, progress_in_steps);
	tcase_add_test(tc, missing_capability_is_named);
	tcase_add_test(tc, testing_says_why);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return h_run(author_suite());
}
