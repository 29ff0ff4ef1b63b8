/*
 * check_prompt.c - prompts (prompts/list, prompts/get) and completion
 * (completion/complete)
 *
 * Served in-process through wymcp_server_serve() with static modules:
 * the Prompt objects, argument checks, get() results and the prompt
 * that asks the client across rounds (the conformance scenario
 * input-required-result-non-tool-request), the completion limits and
 * the registration rules (server/prompts.mdx,
 * server/utilities/completion.mdx).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "testing/testing.h"
#include "harness.h"

#define META_ELICIT							\
	"{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","	\
	"\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}"

static struct wymcp_server	*srv;
static struct h_resp		 resp;

/* What the last complete() call saw, and what the builders said. */
static char	 seen[512];
static int	 refused_101;

static enum wymcp_err
get_simple(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_prompt_result *res)
{
	return wymcp_prompt_message(res, "user",
	    wymcp_text(ctx, "This is a simple prompt for testing."));
}

static enum wymcp_err
get_args(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_prompt_result *res)
{
	struct json_object	*a1 = NULL, *a2 = NULL;
	enum wymcp_err		 rc;

	json_object_object_get_ex(args, "arg1", &a1);
	json_object_object_get_ex(args, "arg2", &a2);
	if ((rc = wymcp_prompt_describe(res, "Prompt with arguments")) !=
	    WYMCP_OK)
		return rc;
	if ((rc = wymcp_prompt_message(res, "user", wymcp_textf(ctx,
	    "Prompt with arguments: arg1='%s', arg2='%s'",
	    json_object_get_string(a1), a2 != NULL ?
	    json_object_get_string(a2) : "(none)"))) != WYMCP_OK)
		return rc;
	return wymcp_prompt_message(res, "assistant", wymcp_text(ctx, "OK."));
}

/* The conformance fixture's prompt that asks for context first. */
static enum wymcp_err
get_context(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_prompt_result *res)
{
	struct json_object	*schema, *a, *c, *v;
	enum wymcp_err		 rc;

	schema = wymcp_own(ctx, json_tokener_parse("{\"type\":\"object\","
	    "\"properties\":{\"context\":{\"type\":\"string\"}},"
	    "\"required\":[\"context\"]}"));
	if ((rc = wymcp_elicit_key(ctx, "user_context",
	    "What context should the prompt use?", schema, &a)) != WYMCP_OK)
		return rc;
	if ((c = wymcp_answer_content(a)) == NULL ||
	    !json_object_object_get_ex(c, "context", &v))
		return wymcp_prompt_message(res, "user",
		    wymcp_text(ctx, "Prompt without context"));
	return wymcp_prompt_message(res, "user", wymcp_textf(ctx,
	    "Prompt with context: %s", json_object_get_string(v)));
}

static enum wymcp_err
get_nothing(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_prompt_result *res)
{
	return WYMCP_OK;
}

static enum wymcp_err
get_fails(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_prompt_result *res)
{
	return WYMCP_ERR_INVAL;
}

/* A refusal with a reason and a code (wymcp_refuse(), issue 38). */
static enum wymcp_err
get_refuses(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_prompt_result *res)
{
	return wymcp_refuse(ctx, WYMCP_RPC_INVALID_REQUEST,
	    "Refused: this prompt is for %s only", "admins");
}

/* The builders refuse what is not a message; the text says which. */
static enum wymcp_err
get_checks(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_prompt_result *res)
{
	const char	*bad = NULL;

	if (wymcp_prompt_message(res, "system", wymcp_text(ctx, "x")) !=
	    WYMCP_ERR_INVAL)
		bad = "role system";
	else if (wymcp_prompt_message(res, NULL, wymcp_text(ctx, "x")) !=
	    WYMCP_ERR_INVAL)
		bad = "role NULL";
	else if (wymcp_prompt_message(res, "user", wymcp_own(ctx,
	    json_tokener_parse("{\"text\":\"no type\"}"))) != WYMCP_ERR_INVAL)
		bad = "no type";
	else if (wymcp_prompt_message(res, "user", wymcp_own(ctx,
	    json_tokener_parse("[1]"))) != WYMCP_ERR_INVAL)
		bad = "not an object";
	else if (wymcp_prompt_message(res, "user", NULL) != WYMCP_ERR_NOMEM)
		bad = "NULL content";
	else if (wymcp_prompt_message(NULL, "user", wymcp_text(ctx, "x")) !=
	    WYMCP_ERR_INVAL)
		bad = "NULL result";
	else if (wymcp_prompt_describe(res, NULL) != WYMCP_ERR_INVAL)
		bad = "describe NULL";
	return wymcp_prompt_message(res, "user", wymcp_text(ctx,
	    bad != NULL ? bad : "ok"));
}

/*
 * Completion: arg1 suggests the fixed words starting with the value;
 * "many" tries 101 values and tells a total; "ctx" echoes the context;
 * "fail" fails.
 */
static enum wymcp_err
complete(struct wymcp_ctx *ctx, const char *type, const char *ref,
    const char *arg, const char *value, struct json_object *context,
    struct wymcp_completion *out)
{
	static const char *const words[] = { "test", "testValue1",
	    "testing", "other" };
	size_t		 i;
	enum wymcp_err	 rc;
	char		 v[32];

	snprintf(seen, sizeof(seen), "%s %s %s %s %s", type, ref, arg, value,
	    context == NULL ? "-" : json_object_to_json_string_ext(context,
	    JSON_C_TO_STRING_PLAIN));
	if (strcmp(arg, "fail") == 0)
		return WYMCP_ERR_INVAL;
	if (strcmp(arg, "many") == 0) {
		for (i = 0; i < 100; i++) {
			snprintf(v, sizeof(v), "v%zu", i);
			if ((rc = wymcp_completion_add(out, v)) != WYMCP_OK)
				return rc;
		}
		refused_101 = wymcp_completion_add(out, "v100") ==
		    WYMCP_ERR_INVAL;
		wymcp_completion_total(out, 150, 1);
		return WYMCP_OK;
	}
	if (wymcp_completion_add(out, NULL) != WYMCP_ERR_INVAL ||
	    wymcp_completion_add(out, "\xff") != WYMCP_ERR_INVAL)
		return WYMCP_ERR_TOOL;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strncmp(words[i], value, strlen(value)) == 0 &&
		    (rc = wymcp_completion_add(out, words[i])) != WYMCP_OK)
			return rc;
	return WYMCP_OK;
}

static const struct wymcp_prompt_arg args2[] = {
	{ .name = "arg1", .description = "First argument", .required = 1 },
	{ .name = "arg2", .title = "Second", .description = "Second argument" },
	{ .name = "many" },
	{ .name = "fail" },
	{ .name = NULL }
};
static const struct wymcp_prompt prompts[] = {
	{ .name = "test_simple_prompt", .description = "A simple prompt",
	    .get = get_simple },
	{ .name = "test_prompt_with_arguments", .title = "With arguments",
	    .description = "A prompt with arguments", .args = args2,
	    .get = get_args },
	{ .name = "test_input_required_result_prompt",
	    .description = "A prompt that asks for context",
	    .get = get_context },
	{ .name = "empty_prompt", .description = "Adds no message",
	    .get = get_nothing },
	{ .name = "failing_prompt", .description = "Fails",
	    .get = get_fails },
	{ .name = "checks", .description = "Builder checks",
	    .get = get_checks },
	{ .name = "refusing_prompt", .description = "Refuses",
	    .get = get_refuses },
	{ .name = NULL }
};

static enum wymcp_err
read_ok(struct wymcp_ctx *ctx, const char *uri, struct json_object *vars,
    struct wymcp_resource_result *res)
{
	return wymcp_contents_text(res, NULL, NULL, "ok");
}

static const struct wymcp_resource templates[] = {
	{ .uri = "test://t/{x}/{+rest}", .name = "t", .read = read_ok },
	{ .uri = NULL }
};
static const struct wymcp_resource fixed[] = {
	{ .uri = "test://fixed", .name = "fixed", .read = read_ok },
	{ .uri = NULL }
};

static const struct wymcp_module mod = {
	.resource_size = sizeof(struct wymcp_resource),
	.prompt_size = sizeof(struct wymcp_prompt),
	.prompt_arg_size = sizeof(struct wymcp_prompt_arg),
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "prompts", .prompts = prompts, .templates = templates,
	.resources = fixed, .complete = complete
};

/* A module with a prompt and no complete(): no suggestions. */
static const struct wymcp_prompt_arg lone_args[] = {
	{ .name = "q" }, { .name = NULL }
};
static const struct wymcp_prompt lone[] = {
	{ .name = "lone", .description = "No completion", .args = lone_args,
	    .get = get_simple },
	{ .name = NULL }
};
static const struct wymcp_module mod_lone = {
	.resource_size = sizeof(struct wymcp_resource),
	.prompt_size = sizeof(struct wymcp_prompt),
	.prompt_arg_size = sizeof(struct wymcp_prompt_arg),
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "lone", .prompts = lone
};

static void
setup(void)
{
	memset(&resp, 0, sizeof(resp));
	seen[0] = '\0';
	refused_101 = 0;
	srv = wymcp_server_new();
	ck_assert_ptr_nonnull(srv);
	ck_assert_msg(wymcp_server_add_module(srv, &mod) == WYMCP_OK, "%s",
	    wymcp_server_errmsg(srv));
}

static void
setup_empty(void)
{
	memset(&resp, 0, sizeof(resp));
	srv = wymcp_server_new();
	ck_assert_ptr_nonnull(srv);
}

static void
teardown(void)
{
	h_free(&resp);
	wymcp_server_free(srv);
	srv = NULL;
}

static void
call(const char *method, const char *name, const char *params)
{
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, method, name, params, NULL, &resp),
	    WYMCP_OK);
	ck_assert_ptr_nonnull(resp.headers);
}

/* prompts/get of `name` with extra params members (or NULL). */
static void
get(const char *name, const char *members)
{
	char	 params[16384];

	snprintf(params, sizeof(params), "{\"name\":\"%s\"%s%s}", name,
	    members != NULL ? "," : "", members != NULL ? members : "");
	call("prompts/get", name, params);
}

static struct json_object *
expect_result(void)
{
	ck_assert_msg(resp.status == 200, "status %d: %s", resp.status,
	    resp.body);
	ck_assert_msg(h_result(&resp) != NULL, "no result: %s", resp.body);
	return h_result(&resp);
}

static void
expect_error(int status, int code, const char *message)
{
	ck_assert_msg(resp.status == status, "status %d, want %d: %s",
	    resp.status, status, resp.body);
	ck_assert_msg(h_code(&resp) == code, "code %d, want %d: %s",
	    h_code(&resp), code, resp.body);
	ck_assert_ptr_null(h_result(&resp));
	if (message != NULL)
		ck_assert_str_eq(json_object_get_string(h_jp(resp.json, "error",
		    "message", NULL)), message);
}

/* prompts/list. */

START_TEST(prompts_list_shape_and_order)
{
	struct json_object	*r, *arr;

	call("prompts/list", NULL, NULL);
	r = expect_result();
	arr = h_jp(r, "prompts", NULL);
	ck_assert_uint_eq(json_object_array_length(arr), 7);
	ck_assert_str_eq(h_compact(json_object_array_get_idx(arr, 0)),
	    "{\"name\":\"test_simple_prompt\","
	    "\"description\":\"A simple prompt\"}");
	ck_assert_str_eq(h_compact(json_object_array_get_idx(arr, 1)),
	    "{\"name\":\"test_prompt_with_arguments\",\"title\":"
	    "\"With arguments\",\"description\":\"A prompt with arguments\","
	    "\"arguments\":[{\"name\":\"arg1\",\"description\":"
	    "\"First argument\",\"required\":true},{\"name\":\"arg2\","
	    "\"title\":\"Second\",\"description\":\"Second argument\"},"
	    "{\"name\":\"many\"},{\"name\":\"fail\"}]}");
	ck_assert_str_eq(json_object_get_string(h_jp(json_object_array_get_idx(
	    arr, 5), "name", NULL)), "checks");
	ck_assert_str_eq(json_object_get_string(h_jp(r, "resultType", NULL)),
	    "complete");
	ck_assert_int_eq(json_object_get_int64(h_jp(r, "ttlMs", NULL)), 300000);
	ck_assert_str_eq(json_object_get_string(h_jp(r, "cacheScope", NULL)),
	    "public");
}
END_TEST

/* prompts/get. */

START_TEST(get_simple_prompt)
{
	struct json_object	*r;

	get("test_simple_prompt", NULL);
	r = expect_result();
	ck_assert_str_eq(h_compact(h_jp(r, "messages", NULL)),
	    "[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":"
	    "\"This is a simple prompt for testing.\"}}]");
	ck_assert_str_eq(json_object_get_string(h_jp(r, "resultType", NULL)),
	    "complete");
	/* No description unless get() gives one; never cache hints. */
	ck_assert(!json_object_object_get_ex(r, "description", NULL));
	ck_assert(!json_object_object_get_ex(r, "ttlMs", NULL));
	ck_assert(!json_object_object_get_ex(r, "cacheScope", NULL));
	ck_assert_ptr_nonnull(h_jp(r, "_meta",
	    "io.modelcontextprotocol/serverInfo", NULL));
}
END_TEST

START_TEST(get_with_arguments)
{
	struct json_object	*r;

	get("test_prompt_with_arguments", "\"arguments\":{\"arg1\":"
	    "\"testValue1\",\"arg2\":\"testValue2\"}");
	r = expect_result();
	ck_assert_str_eq(json_object_get_string(h_jp(r, "description", NULL)),
	    "Prompt with arguments");
	ck_assert_str_eq(h_compact(h_jp(r, "messages", NULL)),
	    "[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":"
	    "\"Prompt with arguments: arg1='testValue1', arg2='testValue2'\"}},"
	    "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":"
	    "\"OK.\"}}]");
	/* An optional argument may be left out; unknown ones pass. */
	get("test_prompt_with_arguments", "\"arguments\":{\"arg1\":\"x\","
	    "\"extra\":\"y\"}");
	ck_assert_ptr_nonnull(strstr(h_compact(h_jp(expect_result(), "messages",
	    NULL)), "arg1='x', arg2='(none)'"));
}
END_TEST

START_TEST(get_argument_validation)
{
	get("test_prompt_with_arguments", NULL);
	expect_error(200, WYMCP__INVALID_PARAMS,
	    "Missing required argument: arg1");
	get("test_prompt_with_arguments", "\"arguments\":{\"arg2\":\"b\"}");
	expect_error(200, WYMCP__INVALID_PARAMS,
	    "Missing required argument: arg1");
	get("test_prompt_with_arguments", "\"arguments\":[\"a\"]");
	expect_error(200, WYMCP__INVALID_PARAMS,
	    "Invalid params: arguments must be an object");
	get("test_prompt_with_arguments", "\"arguments\":\"a\"");
	expect_error(200, WYMCP__INVALID_PARAMS,
	    "Invalid params: arguments must be an object");
	get("test_prompt_with_arguments", "\"arguments\":{\"arg1\":1}");
	expect_error(200, WYMCP__INVALID_PARAMS,
	    "Invalid params: argument arg1 must be a string");
	get("test_prompt_with_arguments", "\"arguments\":{\"arg1\":null}");
	expect_error(200, WYMCP__INVALID_PARAMS,
	    "Invalid params: argument arg1 must be a string");
}
END_TEST

START_TEST(get_unknown_prompt_and_bad_name)
{
	get("nope", NULL);
	expect_error(200, WYMCP__INVALID_PARAMS, "Unknown prompt: nope");
	call("prompts/get", NULL, "{}");
	expect_error(200, WYMCP__INVALID_PARAMS,
	    "Invalid params: name must be a string");
	call("prompts/get", NULL, "{\"name\":3}");
	expect_error(200, WYMCP__INVALID_PARAMS,
	    "Invalid params: name must be a string");
}
END_TEST

START_TEST(get_without_messages_is_32603)
{
	get("empty_prompt", NULL);
	expect_error(500, WYMCP__INTERNAL_ERROR, NULL);
	get("failing_prompt", NULL);
	expect_error(500, WYMCP__INTERNAL_ERROR, NULL);
}
END_TEST

START_TEST(get_refusal_says_why)
{
	get("refusing_prompt", NULL);
	expect_error(200, WYMCP__INVALID_REQUEST,
	    "Refused: this prompt is for admins only");
}
END_TEST

START_TEST(message_builders_refuse_bad_input)
{
	get("checks", NULL);
	ck_assert_str_eq(json_object_get_string(h_jp(json_object_array_get_idx(
	    h_jp(expect_result(), "messages", NULL), 0), "content", "text",
	    NULL)), "ok");
	ck_assert_uint_eq(json_object_array_length(h_jp(h_result(&resp),
	    "messages", NULL)), 1);
}
END_TEST

/* prompts/get with _meta declaring elicitation and extra members. */
static void
get_round(const char *name, const char *members)
{
	char	 params[16384];

	snprintf(params, sizeof(params), "{\"_meta\":" META_ELICIT
	    ",\"name\":\"%s\",\"arguments\":{}%s%s}", name,
	    members != NULL ? "," : "", members != NULL ? members : "");
	call("prompts/get", name, params);
}

/* input-required-result-non-tool-request, both rounds. */
START_TEST(get_elicits_across_two_rounds)
{
	struct json_object	*r;
	char			 state[4096], members[8192];

	get_round("test_input_required_result_prompt", NULL);
	r = expect_result();
	ck_assert_str_eq(json_object_get_string(h_jp(r, "resultType", NULL)),
	    "input_required");
	ck_assert_str_eq(h_compact(h_jp(r, "inputRequests", NULL)),
	    "{\"user_context\":{\"method\":\"elicitation/create\",\"params\":"
	    "{\"mode\":\"form\",\"message\":"
	    "\"What context should the prompt use?\",\"requestedSchema\":"
	    "{\"type\":\"object\",\"properties\":{\"context\":{\"type\":"
	    "\"string\"}},\"required\":[\"context\"]}}}}");
	ck_assert(!json_object_object_get_ex(r, "messages", NULL));
	snprintf(state, sizeof(state), "%s", json_object_get_string(h_jp(r,
	    "requestState", NULL)));
	ck_assert_uint_gt(strlen(state), 0);

	snprintf(members, sizeof(members), "\"inputResponses\":"
	    "{\"user_context\":{\"action\":\"accept\",\"content\":"
	    "{\"context\":\"test context\"}}},\"requestState\":\"%s\"", state);
	get_round("test_input_required_result_prompt", members);
	r = expect_result();
	ck_assert_str_eq(json_object_get_string(h_jp(r, "resultType", NULL)),
	    "complete");
	ck_assert_str_eq(h_compact(h_jp(r, "messages", NULL)),
	    "[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":"
	    "\"Prompt with context: test context\"}}]");

	/* Without the requestState a first round has no answers: asked. */
	get_round("test_input_required_result_prompt", "\"inputResponses\":"
	    "{\"user_context\":{\"action\":\"accept\",\"content\":"
	    "{\"context\":\"c2\"}}}");
	r = expect_result();
	ck_assert_str_eq(json_object_get_string(h_jp(r, "resultType", NULL)),
	    "input_required");
	ck_assert(!json_object_object_get_ex(r, "messages", NULL));
	/* A tampered state is an error, never a partial run. */
	snprintf(members, sizeof(members), "\"inputResponses\":"
	    "{\"user_context\":{\"action\":\"accept\",\"content\":"
	    "{\"context\":\"x\"}}},\"requestState\":\"%s-TAMPERED\"", state);
	get_round("test_input_required_result_prompt", members);
	expect_error(200, WYMCP__INVALID_PARAMS, NULL);
	/* The state is bound to the prompt's name. */
	snprintf(members, sizeof(members), "\"requestState\":\"%s\"", state);
	get_round("test_simple_prompt", members);
	expect_error(200, WYMCP__INVALID_PARAMS, NULL);
}
END_TEST

/* The state binds the arguments too. */
START_TEST(get_state_bound_to_arguments)
{
	char	 params[8192], state[4096];

	snprintf(params, sizeof(params), "{\"_meta\":" META_ELICIT
	    ",\"name\":\"test_input_required_result_prompt\","
	    "\"arguments\":{\"a\":\"1\"}}");
	call("prompts/get", "test_input_required_result_prompt", params);
	snprintf(state, sizeof(state), "%s", json_object_get_string(h_jp(
	    expect_result(), "requestState", NULL)));
	snprintf(params, sizeof(params), "{\"_meta\":" META_ELICIT
	    ",\"name\":\"test_input_required_result_prompt\","
	    "\"arguments\":{\"a\":\"2\"},\"requestState\":\"%s\"}", state);
	call("prompts/get", "test_input_required_result_prompt", params);
	expect_error(200, WYMCP__INVALID_PARAMS, NULL);
	snprintf(params, sizeof(params), "{\"_meta\":" META_ELICIT
	    ",\"name\":\"test_input_required_result_prompt\","
	    "\"arguments\":{\"a\":\"1\"},\"requestState\":\"%s\","
	    "\"inputResponses\":{\"user_context\":{\"action\":\"decline\"}}}",
	    state);
	call("prompts/get", "test_input_required_result_prompt", params);
	ck_assert_ptr_nonnull(strstr(h_compact(h_jp(expect_result(), "messages",
	    NULL)), "Prompt without context"));
}
END_TEST

/* completion/complete. */

START_TEST(complete_conformance_request)
{
	struct json_object	*r;

	call("completion/complete", NULL, "{\"ref\":{\"type\":\"ref/prompt\","
	    "\"name\":\"test_prompt_with_arguments\"},\"argument\":"
	    "{\"name\":\"arg1\",\"value\":\"test\"}}");
	r = expect_result();
	ck_assert_str_eq(json_object_get_string(h_jp(r, "resultType", NULL)),
	    "complete");
	ck_assert_str_eq(h_compact(h_jp(r, "completion", NULL)),
	    "{\"values\":[\"test\",\"testValue1\",\"testing\"]}");
	ck_assert(!json_object_object_get_ex(r, "ttlMs", NULL));
	ck_assert_str_eq(seen, "ref/prompt test_prompt_with_arguments arg1 "
	    "test -");
}
END_TEST

START_TEST(complete_context_reaches_the_module)
{
	call("completion/complete", NULL, "{\"ref\":{\"type\":\"ref/prompt\","
	    "\"name\":\"test_prompt_with_arguments\"},\"argument\":"
	    "{\"name\":\"arg2\",\"value\":\"o\"},\"context\":{\"arguments\":"
	    "{\"arg1\":\"test\"}}}");
	ck_assert_str_eq(h_compact(h_jp(expect_result(), "completion", "values",
	    NULL)), "[\"other\"]");
	ck_assert_str_eq(seen, "ref/prompt test_prompt_with_arguments arg2 o "
	    "{\"arg1\":\"test\"}");
	/* context without arguments: none. */
	call("completion/complete", NULL, "{\"ref\":{\"type\":\"ref/prompt\","
	    "\"name\":\"test_prompt_with_arguments\"},\"argument\":"
	    "{\"name\":\"arg2\",\"value\":\"\"},\"context\":{}}");
	ck_assert_str_eq(h_compact(h_jp(expect_result(), "completion", "values",
	    NULL)), "[\"test\",\"testValue1\",\"testing\",\"other\"]");
	ck_assert_str_eq(seen, "ref/prompt test_prompt_with_arguments arg2  "
	    "-");
}
END_TEST

START_TEST(complete_at_most_100_values)
{
	struct json_object	*c;

	call("completion/complete", NULL, "{\"ref\":{\"type\":\"ref/prompt\","
	    "\"name\":\"test_prompt_with_arguments\"},\"argument\":"
	    "{\"name\":\"many\",\"value\":\"\"}}");
	c = h_jp(expect_result(), "completion", NULL);
	ck_assert_uint_eq(json_object_array_length(h_jp(c, "values", NULL)),
	    100);
	ck_assert_int_eq(refused_101, 1);
	ck_assert_int_eq(json_object_get_int(h_jp(c, "total", NULL)), 150);
	ck_assert(json_object_get_boolean(h_jp(c, "hasMore", NULL)));
}
END_TEST

START_TEST(complete_resource_template)
{
	call("completion/complete", NULL, "{\"ref\":{\"type\":"
	    "\"ref/resource\",\"uri\":\"test://t/{x}/{+rest}\"},\"argument\":"
	    "{\"name\":\"rest\",\"value\":\"tes\"}}");
	ck_assert_str_eq(h_compact(h_jp(expect_result(), "completion", "values",
	    NULL)), "[\"test\",\"testValue1\",\"testing\"]");
	ck_assert_str_eq(seen, "ref/resource test://t/{x}/{+rest} rest tes -");
	/* Not a variable of the template. */
	call("completion/complete", NULL, "{\"ref\":{\"type\":"
	    "\"ref/resource\",\"uri\":\"test://t/{x}/{+rest}\"},\"argument\":"
	    "{\"name\":\"y\",\"value\":\"\"}}");
	expect_error(200, WYMCP__INVALID_PARAMS, NULL);
	/* A fixed resource's URI is taken; its module judges the name. */
	call("completion/complete", NULL, "{\"ref\":{\"type\":"
	    "\"ref/resource\",\"uri\":\"test://fixed\"},\"argument\":"
	    "{\"name\":\"any\",\"value\":\"oth\"}}");
	ck_assert_str_eq(h_compact(h_jp(expect_result(), "completion", "values",
	    NULL)), "[\"other\"]");
	/* An unknown template, or a URI the template matches: -32602. */
	call("completion/complete", NULL, "{\"ref\":{\"type\":"
	    "\"ref/resource\",\"uri\":\"test://t/1/2\"},\"argument\":"
	    "{\"name\":\"x\",\"value\":\"\"}}");
	expect_error(200, WYMCP__INVALID_PARAMS, NULL);
}
END_TEST

START_TEST(complete_param_validation)
{
	static const char *const bad[] = {
		"{\"argument\":{\"name\":\"arg1\",\"value\":\"\"}}",
		"{\"ref\":\"x\","
		    "\"argument\":{\"name\":\"arg1\",\"value\":\"\"}}",
		"{\"ref\":{\"type\":\"ref/tool\",\"name\":\"x\"},"
		    "\"argument\":{\"name\":\"arg1\",\"value\":\"\"}}",
		"{\"ref\":{\"name\":\"test_prompt_with_arguments\"},"
		    "\"argument\":{\"name\":\"arg1\",\"value\":\"\"}}",
		"{\"ref\":{\"type\":\"ref/prompt\"},"
		    "\"argument\":{\"name\":\"arg1\",\"value\":\"\"}}",
		"{\"ref\":{\"type\":\"ref/resource\",\"name\":\"x\"},"
		    "\"argument\":{\"name\":\"arg1\",\"value\":\"\"}}",
		"{\"ref\":{\"type\":\"ref/prompt\","
		    "\"name\":\"test_prompt_with_arguments\"}}",
		"{\"ref\":{\"type\":\"ref/prompt\","
		    "\"name\":\"test_prompt_with_arguments\"},"
		    "\"argument\":{\"name\":\"arg1\"}}",
		"{\"ref\":{\"type\":\"ref/prompt\","
		    "\"name\":\"test_prompt_with_arguments\"},"
		    "\"argument\":{\"name\":\"arg1\",\"value\":5}}",
		"{\"ref\":{\"type\":\"ref/prompt\","
		    "\"name\":\"test_prompt_with_arguments\"},"
		    "\"argument\":{\"name\":\"arg1\",\"value\":\"\"},"
		    "\"context\":[]}",
		"{\"ref\":{\"type\":\"ref/prompt\","
		    "\"name\":\"test_prompt_with_arguments\"},"
		    "\"argument\":{\"name\":\"arg1\",\"value\":\"\"},"
		    "\"context\":{\"arguments\":{\"arg2\":1}}}",
		/* Unknown prompt, unknown argument. */
		"{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"nope\"},"
		    "\"argument\":{\"name\":\"arg1\",\"value\":\"\"}}",
		"{\"ref\":{\"type\":\"ref/prompt\","
		    "\"name\":\"test_prompt_with_arguments\"},"
		    "\"argument\":{\"name\":\"arg9\",\"value\":\"\"}}",
	};
	size_t	 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		seen[0] = '\0';
		call("completion/complete", NULL, bad[i]);
		ck_assert_msg(resp.status == 200 &&
		    h_code(&resp) == WYMCP__INVALID_PARAMS, "%s: %s", bad[i],
		    resp.body);
		/* Refused before the module is asked. */
		ck_assert_str_eq(seen, "");
	}
	call("completion/complete", NULL, "{\"ref\":{\"type\":\"ref/prompt\","
	    "\"name\":\"nope\"},\"argument\":{\"name\":\"a\",\"value\":\"\"}}");
	expect_error(200, WYMCP__INVALID_PARAMS, "Unknown prompt: nope");
	/* complete() failing is an internal error. */
	call("completion/complete", NULL, "{\"ref\":{\"type\":\"ref/prompt\","
	    "\"name\":\"test_prompt_with_arguments\"},\"argument\":"
	    "{\"name\":\"fail\",\"value\":\"\"}}");
	expect_error(500, WYMCP__INTERNAL_ERROR, NULL);
}
END_TEST

START_TEST(complete_without_completer_has_no_values)
{
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod_lone), WYMCP_OK);
	call("completion/complete", NULL, "{\"ref\":{\"type\":\"ref/prompt\","
	    "\"name\":\"lone\"},\"argument\":{\"name\":\"q\","
	    "\"value\":\"x\"}}");
	ck_assert_str_eq(h_compact(h_jp(expect_result(), "completion", NULL)),
	    "{\"values\":[],\"total\":0,\"hasMore\":false}");
	ck_assert_str_eq(seen, "");
	ck_assert_uint_eq(srv->ncompleters, 1);
}
END_TEST

/* Registration. */

/*
 * Registering a module of one good prompt and `bad` must fail with `rc`
 * and an errmsg holding `part`, and leave nothing registered.
 */
static void
refused(const struct wymcp_prompt *bad, enum wymcp_err rc, const char *part)
{
	struct wymcp_prompt	 tab[3];
	struct wymcp_module	 m;
	enum wymcp_err		 got;

	memset(tab, 0, sizeof(tab));
	tab[0].name = "good";
	tab[0].description = "Good.";
	tab[0].get = get_simple;
	tab[1] = *bad;
	memset(&m, 0, sizeof(m));
	m.abi = WYMCP_ABI_VERSION;
	m.size = sizeof(m);
	m.resource_size = sizeof(struct wymcp_resource);
	m.prompt_size = sizeof(struct wymcp_prompt);
	m.prompt_arg_size = sizeof(struct wymcp_prompt_arg);
	m.name = "bad";
	m.prompts = tab;
	m.complete = complete;
	got = wymcp_server_add_module(srv, &m);
	ck_assert_msg(got == rc, "%s: rc %d, want %d (%s)", bad->name, got,
	    rc, wymcp_server_errmsg(srv));
	ck_assert_msg(strstr(wymcp_server_errmsg(srv), part) != NULL,
	    "'%s' lacks '%s'", wymcp_server_errmsg(srv), part);
	ck_assert_uint_eq(srv->nprompts, 0);
	ck_assert_uint_eq(srv->ncompleters, 0);
	call("prompts/list", NULL, NULL);
	expect_error(404, WYMCP__METHOD_NOT_FOUND,
	    "Method not found: prompts/list");
	call("completion/complete", NULL, "{}");
	expect_error(404, WYMCP__METHOD_NOT_FOUND, NULL);
}

START_TEST(register_refuses_bad_prompts)
{
	static const struct wymcp_prompt_arg dup_args[] = {
		{ .name = "a" }, { .name = "a" }, { .name = NULL }
	};
	static const struct wymcp_prompt_arg empty_arg[] = {
		{ .name = "" }, { .name = NULL }
	};
	char			 long_name[130];
	struct wymcp_prompt	 p;

	memset(&p, 0, sizeof(p));
	p.name = "bad name";
	p.description = "x";
	p.get = get_simple;
	refused(&p, WYMCP_ERR_INVAL, "[A-Za-z0-9_.-]");
	memset(long_name, 'a', 129);
	long_name[129] = '\0';
	p.name = long_name;
	refused(&p, WYMCP_ERR_INVAL, "[A-Za-z0-9_.-]");
	p.name = "";
	refused(&p, WYMCP_ERR_INVAL, "[A-Za-z0-9_.-]");
	p.name = "no_description";
	p.description = NULL;
	refused(&p, WYMCP_ERR_INVAL, "description");
	p.description = "";
	refused(&p, WYMCP_ERR_INVAL, "description");
	p.description = "x";
	p.get = NULL;
	refused(&p, WYMCP_ERR_INVAL, "get function");
	p.get = get_simple;
	p.name = "good";
	refused(&p, WYMCP_ERR_DUP, "already registered");
	p.name = "dup_args";
	p.args = dup_args;
	refused(&p, WYMCP_ERR_DUP, "declared twice");
	p.args = empty_arg;
	refused(&p, WYMCP_ERR_INVAL, "needs a name");
	p.args = NULL;
	p.title = "\xc3";
	refused(&p, WYMCP_ERR_INVAL, "UTF-8");
	/* 128 characters is fine. */
	long_name[128] = '\0';
	p.name = long_name;
	p.title = NULL;
	{
		struct wymcp_prompt	 tab[2];
		struct wymcp_module	 m;

		memset(tab, 0, sizeof(tab));
		tab[0] = p;
		memset(&m, 0, sizeof(m));
		m.abi = WYMCP_ABI_VERSION;
		m.size = sizeof(m);
		m.resource_size = sizeof(struct wymcp_resource);
		m.prompt_size = sizeof(struct wymcp_prompt);
		m.prompt_arg_size = sizeof(struct wymcp_prompt_arg);
		m.name = "long";
		m.prompts = tab;
		ck_assert_int_eq(wymcp_server_add_module(srv, &m), WYMCP_OK);
		ck_assert_uint_eq(srv->nprompts, 1);
		ck_assert_uint_eq(srv->ncompleters, 0);
	}
}
END_TEST

START_TEST(register_refuses_duplicate_across_modules)
{
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod), WYMCP_OK);
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod), WYMCP_ERR_DUP);
	ck_assert_uint_eq(srv->nprompts, 7);
	ck_assert_uint_eq(srv->ntemplates, 1);
	ck_assert_uint_eq(srv->nresources, 1);
	ck_assert_uint_eq(srv->ncompleters, 1);
	call("prompts/list", NULL, NULL);
	ck_assert_uint_eq(json_object_array_length(h_jp(expect_result(),
	    "prompts", NULL)), 7);
}
END_TEST

static Suite *
prompt_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("prompt");
	tc = tcase_create("prompts");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, prompts_list_shape_and_order);
	tcase_add_test(tc, get_simple_prompt);
	tcase_add_test(tc, get_with_arguments);
	tcase_add_test(tc, get_argument_validation);
	tcase_add_test(tc, get_unknown_prompt_and_bad_name);
	tcase_add_test(tc, get_without_messages_is_32603);
	tcase_add_test(tc, get_refusal_says_why);
	tcase_add_test(tc, message_builders_refuse_bad_input);
	tcase_add_test(tc, get_elicits_across_two_rounds);
	tcase_add_test(tc, get_state_bound_to_arguments);
	suite_add_tcase(s, tc);

	tc = tcase_create("completion");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, complete_conformance_request);
	tcase_add_test(tc, complete_context_reaches_the_module);
	tcase_add_test(tc, complete_at_most_100_values);
	tcase_add_test(tc, complete_resource_template);
	tcase_add_test(tc, complete_param_validation);
	tcase_add_test(tc, complete_without_completer_has_no_values);
	suite_add_tcase(s, tc);

	tc = tcase_create("register");
	tcase_add_checked_fixture(tc, setup_empty, teardown);
	tcase_add_test(tc, register_refuses_bad_prompts);
	tcase_add_test(tc, register_refuses_duplicate_across_modules);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	sr = srunner_create(prompt_suite());
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
