/*
 * check_testing.c - the testing API (testing.c, wymcp_testing.h): a
 * context as the framework builds it, one round of a tool inside the
 * run boundary, and walking a tool through its rounds
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "wymcp.h"
#include "wymcp_testing.h"

#define ALICE	"{\"action\":\"accept\",\"content\":{\"name\":\"Alice\"}}"
#define NAME_SCHEMA "{\"type\":\"object\",\"properties\":{\"name\":" \
	"{\"type\":\"string\",\"title\":\"Name\"}},\"required\":[\"name\"]}"

static struct {
	int	 runs;
	int	 after;
} g;

/* Reports what the tool sees of its context. */
static enum wymcp_err
whoami_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	const char	*p = wymcp_ctx_principal(ctx);
	const char	*role = wymcp_ctx_assign(ctx, "role");
	size_t		 i;
	const char	*names = "";

	g.runs++;
	for (i = 0; i < wymcp_ctx_ntools(ctx); i++)
		names = wymcp_printf(ctx, "%s%s%s", names, i > 0 ? "," : "",
		    wymcp_ctx_tool(ctx, i)->name);
	return wymcp_result_add(res, wymcp_textf(ctx, "%s/%s/%s",
	    p != NULL ? p : "-", role != NULL ? role : "-", names));
}

/* Text and structured content. */
static enum wymcp_err
both_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*s;

	g.runs++;
	s = wymcp_own(ctx, json_tokener_parse("{\"n\":3,\"ok\":true}"));
	if (wymcp_result_add(res, wymcp_text(ctx, "three")) != WYMCP_OK)
		return WYMCP_ERR_NOMEM;
	return wymcp_result_structured(res, s);
}

/* Structured content only. */
static enum wymcp_err
structured_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	g.runs++;
	return wymcp_result_structured(res,
	    wymcp_own(ctx, json_tokener_parse("{\"n\":3}")));
}

/* A tool failure with a message. */
static enum wymcp_err
fails_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	g.runs++;
	return wymcp_result_error(res, "no such day: %s",
	    json_object_get_string(json_object_object_get(args, "day")));
}

/* A failure returned without any content. */
static enum wymcp_err
bare_failure_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	g.runs++;
	return WYMCP_ERR_INVAL;
}

/* Echoes its validated arguments. */
static enum wymcp_err
args_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	g.runs++;
	return wymcp_result_add(res, wymcp_json(ctx, args));
}

/* One question. */
static enum wymcp_err
ask_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a, *v;
	enum wymcp_err		 rc;

	g.runs++;
	if ((rc = wymcp_elicit(ctx, "What is your name?", NAME_SCHEMA, &a)) !=
	    WYMCP_OK)
		return rc;
	g.after++;
	json_object_object_get_ex(wymcp_answer_content(a), "name", &v);
	return wymcp_result_add(res, wymcp_textf(ctx, "Hello, %s!",
	    json_object_get_string(v)));
}

static const struct wymcp_tool whoami_tool = {
	.name = "whoami", .description = "Who is asking.", .run = whoami_run
};
static const struct wymcp_tool both_tool = {
	.name = "both", .description = "Text and structure.",
	.input_schema = "{\"type\":\"object\"}", .run = both_run
};
static const struct wymcp_tool structured_tool = {
	.name = "structured", .description = "Structure only.",
	.input_schema = "{\"type\":\"object\"}", .run = structured_run
};
static const struct wymcp_tool fails_tool = {
	.name = "fails", .description = "Fails.",
	.input_schema = "{\"type\":\"object\",\"properties\":{\"day\":"
	    "{\"type\":\"string\"}},\"required\":[\"day\"]}",
	.run = fails_run
};
static const struct wymcp_tool bare_failure_tool = {
	.name = "bare", .description = "Fails bare.",
	.input_schema = "{\"type\":\"object\"}", .run = bare_failure_run
};
static const struct wymcp_tool args_tool = {
	.name = "args", .description = "Echoes arguments.",
	.input_schema = "{\"type\":\"object\",\"properties\":{\"day\":"
	    "{\"type\":\"string\"},\"n\":{\"type\":\"integer\"}},"
	    "\"required\":[\"day\"],\"additionalProperties\":false}",
	.run = args_run
};
static const struct wymcp_tool ask_tool = {
	.name = "ask", .description = "Asks a name.",
	.input_schema = "{\"type\":\"object\"}", .run = ask_run
};

static const struct wymcp_tool no_run_tool = {
	.name = "norun", .description = "Has no body.", .run = NULL
};

static const struct wymcp_tool mod_a_tools[] = {
	{ .name = "alpha", .description = "a",
	    .input_schema = "{\"type\":\"object\"}", .run = whoami_run },
	{ .name = "beta", .description = "b",
	    .input_schema = "{\"type\":\"object\"}", .run = whoami_run },
	{ .name = NULL }
};
static const struct wymcp_tool mod_b_tools[] = {
	{ .name = "gamma", .description = "c",
	    .input_schema = "{\"type\":\"object\"}", .run = whoami_run },
	{ .name = NULL }
};
static const struct wymcp_tool mod_dup_tools[] = {
	{ .name = "alpha", .description = "again",
	    .input_schema = "{\"type\":\"object\"}", .run = whoami_run },
	{ .name = NULL }
};
static const struct wymcp_tool mod_bad_tools[] = {
	{ .name = "bad name!", .description = "x",
	    .input_schema = "{\"type\":\"object\"}", .run = whoami_run },
	{ .name = NULL }
};
static const struct wymcp_module mod_a = {
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "a", .tools = mod_a_tools,
	.tool_size = sizeof(struct wymcp_tool)
};
static const struct wymcp_module mod_b = {
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "b", .tools = mod_b_tools,
	.tool_size = sizeof(struct wymcp_tool)
};
static const struct wymcp_module mod_dup = {
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "dup", .tools = mod_dup_tools,
	.tool_size = sizeof(struct wymcp_tool)
};
static const struct wymcp_module mod_bad = {
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "bad", .tools = mod_bad_tools,
	.tool_size = sizeof(struct wymcp_tool)
};
static const struct wymcp_module mod_abi = {
	.abi = WYMCP_ABI_VERSION + 1, .size = sizeof(struct wymcp_module),
	    .name = "abi", .tools = mod_a_tools,
	    .tool_size = sizeof(struct wymcp_tool)
};

static struct wymcp_ctx			*ctx;
static struct wymcp_testing_round	 r;
static struct wymcp_testing_opts	 o;
static void				*examples;

static void
setup(void)
{
	memset(&g, 0, sizeof(g));
	memset(&r, 0, sizeof(r));
	memset(&o, 0, sizeof(o));
	ctx = NULL;
	examples = NULL;
}

static void
teardown(void)
{
	wymcp_testing_free_context(ctx);
	ctx = NULL;
	if (examples != NULL)
		dlclose(examples);
	examples = NULL;
}

static void
build(void)
{
	wymcp_testing_free_context(ctx);
	ctx = wymcp_testing_build_context(&o);
	ck_assert_ptr_nonnull(ctx);
}

static void
run(const struct wymcp_tool *t, const char *args)
{
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, t, args, &r), WYMCP_OK);
}

static const char *
plain(struct json_object *v)
{
	return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
}

/* A bundled module (tools/NAME.so), as wymcp-fcgi would load it. */
static const struct wymcp_module *
load_bundled(const char *name)
{
	const struct wymcp_module *m;
	char		 path[1024];
	const char	*b = getenv("top_builddir");

	snprintf(path, sizeof(path), "%s/tools/.libs/%s.so",
	    b != NULL ? b : ".", name);
	examples = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(examples != NULL, "%s", dlerror());
	m = dlsym(examples, "wymcp_module");
	ck_assert_ptr_nonnull(m);
	return m;
}

/*
 * The examples module (book_room, reserve_room, purge_cache,
 * count_slowly, write_note).
 */
static const struct wymcp_module *
load_examples(void)
{
	return load_bundled("examples");
}

/* The mounted tool called `name`. */
static const struct wymcp_tool *
mounted(const char *name)
{
	size_t	 i;

	for (i = 0; i < wymcp_ctx_ntools(ctx); i++)
		if (strcmp(wymcp_ctx_tool(ctx, i)->name, name) == 0)
			return wymcp_ctx_tool(ctx, i);
	ck_abort_msg("%s is not mounted", name);
	return NULL;
}

START_TEST(build_context_without_options_is_a_bare_context)
{
	ctx = wymcp_testing_build_context(NULL);
	ck_assert_ptr_nonnull(ctx);
	ck_assert_ptr_null(wymcp_ctx_meta(ctx));
	ck_assert_ptr_null(wymcp_ctx_client_caps(ctx));
	ck_assert_ptr_null(wymcp_ctx_principal(ctx));
	ck_assert_ptr_nonnull(wymcp_ctx_assigns(ctx));
	ck_assert_int_eq(json_object_object_length(wymcp_ctx_assigns(ctx)),
	    0);
	ck_assert_ptr_nonnull(wymcp_ctx_answers(ctx));
	ck_assert_int_eq(json_object_object_length(wymcp_ctx_answers(ctx)),
	    0);
	ck_assert_uint_eq(wymcp_ctx_ntools(ctx), 0);
	ck_assert_ptr_null(wymcp_ctx_tool(ctx, 0));
	ck_assert_ptr_null(wymcp_ctx_id(ctx));
	run(&whoami_tool, NULL);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_str_eq(r.text, "-/-/");
	wymcp_testing_free_context(NULL);
}
END_TEST

START_TEST(build_context_assigns_and_principal)
{
	o.assigns = "{\"role\":\"admin\",\"team\":\"blue\"}";
	o.principal = "alice";
	build();
	ck_assert_str_eq(wymcp_ctx_assign(ctx, "role"), "admin");
	ck_assert_str_eq(wymcp_ctx_assign(ctx, "team"), "blue");
	ck_assert_ptr_null(wymcp_ctx_assign(ctx, "other"));
	ck_assert_int_eq(json_object_object_length(wymcp_ctx_assigns(ctx)),
	    2);
	ck_assert_str_eq(wymcp_ctx_principal(ctx), "alice");
	run(&whoami_tool, NULL);
	ck_assert_str_eq(r.text, "alice/admin/");
}
END_TEST

START_TEST(build_context_filters_internal_assigns)
{
	o.assigns = "{\"role\":\"admin\",\"wymcp\":\"x\",\"wymcp_token\":"
	    "\"secret\",\"wymcpish\":\"kept\"}";
	build();
	ck_assert_ptr_null(wymcp_ctx_assign(ctx, "wymcp"));
	ck_assert_ptr_null(wymcp_ctx_assign(ctx, "wymcp_token"));
	ck_assert_str_eq(wymcp_ctx_assign(ctx, "wymcpish"), "kept");
	ck_assert_str_eq(wymcp_ctx_assign(ctx, "role"), "admin");
	ck_assert(!json_object_object_get_ex(wymcp_ctx_assigns(ctx),
	    "wymcp_token", NULL));
	ck_assert_int_eq(json_object_object_length(wymcp_ctx_assigns(ctx)),
	    2);
}
END_TEST

START_TEST(build_context_meta_gives_capabilities)
{
	struct json_object	*v;

	o.meta = WYMCP_TESTING_META_ELICIT;
	build();
	ck_assert_ptr_nonnull(wymcp_ctx_meta(ctx));
	ck_assert(json_object_object_get_ex(wymcp_ctx_meta(ctx),
	    "io.modelcontextprotocol/protocolVersion", &v));
	ck_assert_str_eq(json_object_get_string(v), "2026-07-28");
	ck_assert_ptr_nonnull(wymcp_ctx_client_caps(ctx));
	ck_assert(json_object_object_get_ex(wymcp_ctx_client_caps(ctx),
	    "elicitation", NULL));

	o.meta = WYMCP_TESTING_META_NONE;
	build();
	ck_assert_ptr_nonnull(wymcp_ctx_client_caps(ctx));
	ck_assert_int_eq(json_object_object_length(
	    wymcp_ctx_client_caps(ctx)), 0);

	/* A _meta without clientCapabilities declares nothing. */
	o.meta = "{}";
	build();
	ck_assert_ptr_nonnull(wymcp_ctx_meta(ctx));
	ck_assert_ptr_null(wymcp_ctx_client_caps(ctx));
}
END_TEST

START_TEST(build_context_preset_answers)
{
	struct json_object	*a;

	o.meta = WYMCP_TESTING_META_ELICIT;
	o.answers = "{\"elicit-1\":" ALICE "}";
	build();
	ck_assert(json_object_object_get_ex(wymcp_ctx_answers(ctx),
	    "elicit-1", &a));
	ck_assert_str_eq(wymcp_answer_action(a), "accept");
	run(&ask_tool, NULL);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_str_eq(r.text, "Hello, Alice!");
}
END_TEST

START_TEST(build_context_mount_list)
{
	const struct wymcp_module *const two[] = { &mod_a, &mod_b, NULL };
	const struct wymcp_module *const one[] = { &mod_b, NULL };

	o.mount = two;
	build();
	ck_assert_uint_eq(wymcp_ctx_ntools(ctx), 3);
	ck_assert_str_eq(wymcp_ctx_tool(ctx, 0)->name, "alpha");
	ck_assert_str_eq(wymcp_ctx_tool(ctx, 1)->name, "beta");
	ck_assert_str_eq(wymcp_ctx_tool(ctx, 2)->name, "gamma");
	ck_assert_ptr_null(wymcp_ctx_tool(ctx, 3));
	/* The very declarations, not copies. */
	ck_assert_ptr_eq(wymcp_ctx_tool(ctx, 0), &mod_a_tools[0]);
	/* A tool sees the mount list from inside its run. */
	run(wymcp_ctx_tool(ctx, 1), NULL);
	ck_assert_str_eq(r.text, "-/-/alpha,beta,gamma");

	o.mount = one;
	build();
	ck_assert_uint_eq(wymcp_ctx_ntools(ctx), 1);
	ck_assert_str_eq(wymcp_ctx_tool(ctx, 0)->name, "gamma");
}
END_TEST

START_TEST(build_context_mounts_a_loaded_module)
{
	const struct wymcp_module *m[2];

	m[0] = load_examples();
	m[1] = NULL;
	o.mount = m;
	build();
	ck_assert_uint_eq(wymcp_ctx_ntools(ctx), 5);
	ck_assert_str_eq(wymcp_ctx_tool(ctx, 0)->name, "book_room");
	ck_assert_str_eq(wymcp_ctx_tool(ctx, 1)->name, "reserve_room");
	ck_assert_str_eq(wymcp_ctx_tool(ctx, 2)->name, "purge_cache");
	ck_assert_str_eq(wymcp_ctx_tool(ctx, 3)->name, "count_slowly");
	ck_assert_str_eq(wymcp_ctx_tool(ctx, 4)->name, "write_note");
}
END_TEST

START_TEST(build_context_invalid_options_give_null)
{
	const struct wymcp_module *const dup[] = { &mod_a, &mod_dup, NULL };
	const struct wymcp_module *const bad[] = { &mod_bad, NULL };
	const struct wymcp_module *const abi[] = { &mod_abi, NULL };
	struct wymcp_testing_opts	 bads[16];
	size_t				 n = 0, i;

	memset(bads, 0, sizeof(bads));
	bads[n++].assigns = "{\"role\":";
	bads[n++].assigns = "[\"role\"]";
	bads[n++].assigns = "{\"role\":1}";
	bads[n++].assigns = "{\"role\":null}";
	bads[n++].meta = "{";
	bads[n++].meta = "\"meta\"";
	bads[n++].meta = "[]";
	bads[n++].answers = "{";
	bads[n++].answers = "[]";
	bads[n++].answers = "{\"elicit-1\":\"yes\"}";
	bads[n++].answers = "{\"elicit-1\":null}";
	bads[n++].mount = dup;
	bads[n++].mount = bad;
	bads[n++].mount = abi;
	for (i = 0; i < n; i++)
		ck_assert_msg(wymcp_testing_build_context(&bads[i]) == NULL,
		    "options %zu", i);
}
END_TEST

START_TEST(run_tool_reports_a_complete_result)
{
	struct json_object	*c, *v;

	build();
	run(&both_tool, NULL);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_int_eq(r.rc, WYMCP_OK);
	ck_assert_int_eq(r.is_error, 0);
	ck_assert_str_eq(r.text, "three");
	ck_assert_ptr_nonnull(r.result);
	ck_assert(json_object_object_get_ex(r.result, "content", &c));
	ck_assert_int_eq(json_object_array_length(c), 1);
	ck_assert_str_eq(plain(json_object_array_get_idx(c, 0)),
	    "{\"type\":\"text\",\"text\":\"three\"}");
	ck_assert(json_object_object_get_ex(r.result, "structuredContent",
	    &v));
	ck_assert_str_eq(plain(v), "{\"n\":3,\"ok\":true}");
	ck_assert(!json_object_object_get_ex(r.result, "isError", NULL));
	ck_assert_ptr_null(r.input_requests);
	ck_assert_ptr_null(r.key);
	ck_assert_ptr_null(r.error);
	ck_assert_int_eq(g.runs, 1);
}
END_TEST

START_TEST(run_tool_structured_only_gets_a_text_block)
{
	build();
	run(&structured_tool, NULL);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_ptr_nonnull(r.text);
	ck_assert_str_eq(r.text, "{\"n\":3}");
	ck_assert_str_eq(plain(json_object_object_get(r.result,
	    "structuredContent")), "{\"n\":3}");
}
END_TEST

START_TEST(run_tool_reports_a_tool_failure)
{
	build();
	run(&fails_tool, "{\"day\":\"Sunday\"}");
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_int_eq(r.rc, WYMCP_ERR_TOOL);
	ck_assert_int_eq(r.is_error, 1);
	ck_assert_str_eq(r.text, "no such day: Sunday");
	ck_assert(json_object_get_boolean(json_object_object_get(r.result,
	    "isError")));
}
END_TEST

START_TEST(run_tool_failure_without_content_reads_as_on_the_wire)
{
	/* On the wire the client sees the error's sentence; so here. */
	build();
	run(&bare_failure_tool, NULL);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_int_eq(r.rc, WYMCP_ERR_INVAL);
	ck_assert_int_eq(r.is_error, 1);
	ck_assert_ptr_nonnull(r.text);
	ck_assert_str_eq(r.text, wymcp_strerror(WYMCP_ERR_INVAL));
}
END_TEST

START_TEST(run_tool_checks_arguments_as_on_the_wire)
{
	const char	*bad[] = {
		"{}", "{\"day\":5}", "{\"day\":\"Mon\",\"extra\":1}",
		"{\"day\":\"Mon\",\"n\":1.5}",
	};
	size_t		 i;

	build();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		run(&args_tool, bad[i]);
		ck_assert_int_eq(r.kind, WYMCP_TESTING_INVALID);
		ck_assert_ptr_nonnull(r.error);
		ck_assert_msg(strstr(r.error, "Invalid arguments for tool args")
		    == r.error, "%s", r.error);
		ck_assert_int_ne(r.rc, WYMCP_OK);
		ck_assert_ptr_null(r.result);
	}
	ck_assert_int_eq(g.runs, 0);
	run(&args_tool, "{\"day\":\"Mon\",\"n\":2}");
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_str_eq(r.text, "{\"day\":\"Mon\",\"n\":2}");
	/* NULL arguments are {}. */
	run(&both_tool, NULL);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	run(&args_tool, NULL);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INVALID);
	ck_assert_int_eq(g.runs, 2);
}
END_TEST

START_TEST(run_tool_bad_calls)
{
	build();
	ck_assert_int_eq(wymcp_testing_run_tool(NULL, &both_tool, NULL, &r),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, NULL, NULL, &r),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, &both_tool, NULL, NULL),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, &no_run_tool, NULL, &r),
	    WYMCP_ERR_INVAL);
	/* Arguments that are not a JSON object are not a call at all. */
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, &both_tool, "{", &r),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, &both_tool, "[]", &r),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(g.runs, 0);
	ck_assert_int_eq(wymcp_testing_answer(NULL, "k", "{}"),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_testing_answer(ctx, NULL, "{}"),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_testing_answer(ctx, "k", NULL),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_testing_answer(ctx, "k", "{"),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_testing_answer(ctx, "k", "\"yes\""),
	    WYMCP_ERR_INVAL);
	ck_assert(!json_object_object_get_ex(wymcp_ctx_answers(ctx), "k",
	    NULL));
}
END_TEST

START_TEST(run_tool_reports_the_question)
{
	struct json_object	*req;

	o.meta = WYMCP_TESTING_META_ELICIT;
	build();
	run(&ask_tool, NULL);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INPUT_REQUIRED);
	ck_assert_int_eq(r.rc, WYMCP_ERR_PENDING);
	ck_assert_str_eq(r.key, "elicit-1");
	ck_assert_str_eq(r.method, "elicitation/create");
	ck_assert_str_eq(r.message, "What is your name?");
	ck_assert_ptr_nonnull(r.schema);
	ck_assert_str_eq(plain(r.schema), NAME_SCHEMA);
	ck_assert_ptr_nonnull(r.input_requests);
	ck_assert_int_eq(json_object_object_length(r.input_requests), 1);
	ck_assert(json_object_object_get_ex(r.input_requests, "elicit-1",
	    &req));
	ck_assert_ptr_null(r.result);
	ck_assert_ptr_null(r.text);
	ck_assert_ptr_null(r.error);
	ck_assert_int_eq(g.after, 0);
}
END_TEST

START_TEST(answer_replaces_and_persists_across_rounds)
{
	o.meta = WYMCP_TESTING_META_ELICIT;
	build();
	run(&ask_tool, NULL);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INPUT_REQUIRED);
	ck_assert_int_eq(wymcp_testing_answer(ctx, "elicit-1",
	    "{\"action\":\"accept\",\"content\":{\"name\":\"Bob\"}}"),
	    WYMCP_OK);
	ck_assert_int_eq(wymcp_testing_answer(ctx, "elicit-1", ALICE),
	    WYMCP_OK);
	ck_assert_int_eq(json_object_object_length(wymcp_ctx_answers(ctx)),
	    1);
	run(&ask_tool, NULL);
	ck_assert_str_eq(r.text, "Hello, Alice!");
	run(&ask_tool, NULL);
	ck_assert_str_eq(r.text, "Hello, Alice!");
	ck_assert_int_eq(g.runs, 3);
}
END_TEST

START_TEST(round_stays_valid_through_later_rounds)
{
	struct wymcp_testing_round	 first, second;

	o.meta = WYMCP_TESTING_META_ELICIT;
	build();
	run(&ask_tool, NULL);
	first = r;
	ck_assert_int_eq(wymcp_testing_answer(ctx, "elicit-1", ALICE),
	    WYMCP_OK);
	run(&ask_tool, NULL);
	second = r;
	run(&ask_tool, NULL);
	run(&fails_tool, "{}");
	/* Everything the rounds point to is the context's, until freed. */
	ck_assert_str_eq(first.key, "elicit-1");
	ck_assert_str_eq(first.method, "elicitation/create");
	ck_assert_str_eq(first.message, "What is your name?");
	ck_assert_str_eq(plain(first.schema), NAME_SCHEMA);
	ck_assert_int_eq(json_object_object_length(first.input_requests), 1);
	ck_assert_str_eq(second.text, "Hello, Alice!");
	ck_assert_str_eq(plain(json_object_object_get(second.result,
	    "content")), "[{\"type\":\"text\",\"text\":\"Hello, Alice!\"}]");
	ck_assert_ptr_nonnull(r.error);
}
END_TEST

struct in_thread {
	struct wymcp_ctx		*ctx;
	struct wymcp_testing_round	 r;
	enum wymcp_err			 rc;
};

static void *
run_in_thread(void *arg)
{
	struct in_thread	*it = arg;

	it->rc = wymcp_testing_run_tool(it->ctx, &ask_tool, NULL, &it->r);
	return NULL;
}

START_TEST(context_is_not_tied_to_a_thread)
{
	struct in_thread	 it;
	pthread_t		 t;

	o.meta = WYMCP_TESTING_META_ELICIT;
	build();
	memset(&it, 0, sizeof(it));
	it.ctx = ctx;
	ck_assert_int_eq(pthread_create(&t, NULL, run_in_thread, &it), 0);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(it.rc, WYMCP_OK);
	ck_assert_int_eq(it.r.kind, WYMCP_TESTING_INPUT_REQUIRED);
	ck_assert_str_eq(it.r.key, "elicit-1");
	/* And the next round in this thread. */
	ck_assert_int_eq(wymcp_testing_answer(ctx, "elicit-1", ALICE),
	    WYMCP_OK);
	run(&ask_tool, NULL);
	ck_assert_str_eq(r.text, "Hello, Alice!");
}
END_TEST

START_TEST(walk_book_room_through_all_rounds)
{
	const struct wymcp_module *m[2];
	const struct wymcp_tool	*t;
	struct json_object	*v;
	const char		*args = "{\"day\":\"2026-12-01\"}";

	m[0] = load_examples();
	m[1] = NULL;
	o.mount = m;
	o.meta = WYMCP_TESTING_META_ELICIT;
	o.principal = "alice";
	build();
	t = mounted("book_room");

	run(t, args);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INPUT_REQUIRED);
	ck_assert_str_eq(r.key, "elicit-1");
	ck_assert_str_eq(r.method, "elicitation/create");
	ck_assert_str_eq(r.message, "Which room would you like?");
	ck_assert(json_object_object_get_ex(r.schema, "properties", &v));
	ck_assert(json_object_object_get_ex(v, "room", &v));
	ck_assert(json_object_object_get_ex(v, "enum", &v));
	ck_assert_int_eq(json_object_array_length(v), 3);

	ck_assert_int_eq(wymcp_testing_answer(ctx, "elicit-1",
	    "{\"action\":\"accept\",\"content\":{\"room\":\"Aurora\"}}"),
	    WYMCP_OK);
	run(t, args);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INPUT_REQUIRED);
	ck_assert_str_eq(r.key, "elicit-2");
	ck_assert_str_eq(r.message, "How many people?");

	/* An answer outside the schema is refused, naming its key. */
	ck_assert_int_eq(wymcp_testing_answer(ctx, "elicit-2",
	    "{\"action\":\"accept\",\"content\":{\"people\":0}}"), WYMCP_OK);
	run(t, args);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INVALID);
	ck_assert(strstr(r.error, "elicit-2") != NULL);

	ck_assert_int_eq(wymcp_testing_answer(ctx, "elicit-2",
	    "{\"action\":\"accept\",\"content\":{\"people\":4}}"), WYMCP_OK);
	run(t, args);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_int_eq(r.is_error, 0);
	ck_assert_str_eq(r.text, "Booked Aurora for 4 on 2026-12-01.");

	/* Its arguments are checked as on the wire. */
	run(t, "{}");
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INVALID);
	ck_assert(strstr(r.error, "book_room") != NULL);
}
END_TEST

START_TEST(walk_book_room_declined)
{
	const struct wymcp_module *m[2];

	m[0] = load_examples();
	m[1] = NULL;
	o.mount = m;
	o.meta = WYMCP_TESTING_META_ELICIT;
	o.answers = "{\"elicit-1\":{\"action\":\"decline\"}}";
	build();
	run(mounted("book_room"), "{\"day\":\"2026-12-01\"}");
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_str_eq(r.text, "No room chosen; nothing was booked.");
}
END_TEST

START_TEST(book_room_without_elicitation_fails_cleanly)
{
	const struct wymcp_module *m[2];

	m[0] = load_examples();
	m[1] = NULL;
	o.mount = m;
	o.meta = WYMCP_TESTING_META_NONE;
	build();
	run(mounted("book_room"), "{\"day\":\"2026-12-01\"}");
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_int_eq(r.is_error, 1);
	ck_assert_ptr_nonnull(strstr(r.text, "form elicitation"));
}
END_TEST

START_TEST(walk_purge_cache_decline_and_cancel)
{
	const struct wymcp_module *m[2];

	m[0] = load_examples();
	m[1] = NULL;
	o.mount = m;
	o.meta = WYMCP_TESTING_META_ELICIT;
	build();
	run(mounted("purge_cache"), NULL);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INPUT_REQUIRED);
	ck_assert_str_eq(r.key, "elicit-1");
	ck_assert_int_eq(wymcp_testing_answer(ctx, "elicit-1",
	    "{\"action\":\"decline\"}"), WYMCP_OK);
	run(mounted("purge_cache"), NULL);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_str_eq(r.text, "You declined; the cache was left alone.");
	ck_assert_int_eq(wymcp_testing_answer(ctx, "elicit-1",
	    "{\"action\":\"cancel\"}"), WYMCP_OK);
	run(mounted("purge_cache"), NULL);
	ck_assert_str_eq(r.text, "Cancelled; the cache was left alone.");
	ck_assert_int_eq(wymcp_testing_answer(ctx, "elicit-1",
	    "{\"action\":\"accept\",\"content\":{\"confirm\":false}}"),
	    WYMCP_OK);
	run(mounted("purge_cache"), NULL);
	ck_assert_str_eq(r.text, "Not confirmed; the cache was left alone.");
}
END_TEST

/* A tool that needs sampling, and one whose structure breaks its schema. */
static enum wymcp_err
counted_run(struct wymcp_ctx *c, struct json_object *args,
    struct wymcp_result *res)
{
	g.runs++;
	return wymcp_result_text(res, "ran");
}

static enum wymcp_err
bad_structure_run(struct wymcp_ctx *c, struct json_object *args,
    struct wymcp_result *res)
{
	g.runs++;
	return wymcp_result_structured(res,
	    wymcp_own(c, json_tokener_parse("{\"n\":\"x\"}")));
}

static const struct wymcp_tool needs_sampling_tool = {
	.name = "needs_sampling", .description = "Needs sampling.",
	.required_caps = "{\"sampling\":{}}", .run = counted_run
};
static const struct wymcp_tool bad_structure_tool = {
	.name = "bad_structure", .description = "Breaks its schema.",
	.output_schema = "{\"type\":\"object\",\"properties\":{\"n\":"
	    "{\"type\":\"integer\"}},\"required\":[\"n\"]}",
	.run = bad_structure_run
};

START_TEST(run_tool_refuses_missing_required_caps_as_the_wire)
{
	o.meta = WYMCP_TESTING_META_NONE;
	build();
	run(&needs_sampling_tool, NULL);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_ERROR);
	ck_assert_int_eq(r.code, -32021);
	ck_assert(strstr(r.error, "needs_sampling") != NULL);
	ck_assert_int_eq(g.runs, 0);
	/* Declared: it runs. */
	o.meta = "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
	    "\"io.modelcontextprotocol/clientCapabilities\":"
	    "{\"sampling\":{}}}";
	build();
	run(&needs_sampling_tool, NULL);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_str_eq(r.text, "ran");
	ck_assert_int_eq(g.runs, 1);
}
END_TEST

START_TEST(run_tool_refuses_a_result_outside_the_output_schema)
{
	build();
	run(&bad_structure_tool, NULL);
	ck_assert_int_eq(g.runs, 1);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_ERROR);
	ck_assert_int_eq(r.code, -32603);
	ck_assert(strstr(r.error, "outputSchema") != NULL);
	ck_assert_ptr_null(r.result);
}
END_TEST

/*
 * wymcp_testing_errmsg(): the reason the server would log, for every
 * call that went wrong, and "" for one that did not.
 */
START_TEST(errmsg_says_why_a_context_was_refused)
{
	const struct wymcp_module *const bad[] = { &mod_bad, NULL };
	const struct wymcp_module *const dup[] = { &mod_a, &mod_dup, NULL };

	o.mount = bad;
	ck_assert_ptr_null(wymcp_testing_build_context(&o));
	ck_assert_msg(strstr(wymcp_testing_errmsg(), "tool name 'bad name!' "
	    "is not 1 to 128 of [A-Za-z0-9_.-]") != NULL, "%s",
	    wymcp_testing_errmsg());
	o.mount = dup;
	ck_assert_ptr_null(wymcp_testing_build_context(&o));
	ck_assert_msg(strstr(wymcp_testing_errmsg(), "alpha") != NULL, "%s",
	    wymcp_testing_errmsg());
	o.mount = NULL;
	o.assigns = "{\"role\":1}";
	ck_assert_ptr_null(wymcp_testing_build_context(&o));
	ck_assert_str_eq(wymcp_testing_errmsg(), "assigns: role is not a "
	    "string");
	o.assigns = NULL;
	build();
	ck_assert_str_eq(wymcp_testing_errmsg(), "");
	/* A tool declared alone that the loader refuses: its code, why. */
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, &mod_bad_tools[0], NULL,
	    &r), WYMCP_ERR_INVAL);
	ck_assert_msg(strstr(wymcp_testing_errmsg(), "bad name!") != NULL,
	    "%s", wymcp_testing_errmsg());
	run(&whoami_tool, NULL);
	ck_assert_str_eq(wymcp_testing_errmsg(), "");
}
END_TEST

START_TEST(errmsg_says_why_the_output_schema_failed)
{
	build();
	run(&bad_structure_tool, NULL);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_ERROR);
	/* The client's message hides it; the log line says it. */
	ck_assert_ptr_null(strstr(r.error, "\"n\""));
	ck_assert_msg(strstr(wymcp_testing_errmsg(), "outputSchema: ") !=
	    NULL && strstr(wymcp_testing_errmsg(), "n") != NULL, "%s",
	    wymcp_testing_errmsg());
	ck_assert_ptr_nonnull(strstr(wymcp_testing_errmsg(),
	    "bad_structure"));
}
END_TEST

/* Two questions under one chosen key (g.key2: another message). */
static enum wymcp_err
twice_run(struct wymcp_ctx *c, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*s, *a;
	enum wymcp_err		 rc;

	g.runs++;
	s = wymcp_own(c, json_tokener_parse(NAME_SCHEMA));
	if ((rc = wymcp_elicit_key(c, "who", "What is your name?", s, &a)) !=
	    WYMCP_OK)
		return rc;
	if ((rc = wymcp_elicit_key(c, "who", g.runs > 100 ?
	    "What is your name?" : "Where do you live?", s, &a)) != WYMCP_OK)
		return rc;
	return wymcp_result_text(res, "done");
}
static const struct wymcp_tool twice_tool = {
	.name = "twice", .description = "Reuses a question key.",
	.input_schema = "{\"type\":\"object\"}", .run = twice_run
};

static const char *
answer_alice(void *arg, const char *key, struct json_object *req)
{
	return ALICE;
}

/*
 * A question key reused for another question, or asked twice: the
 * second question is never shown.  The wire lets it pass with a
 * warning; the testing library fails the call and says why.
 */
START_TEST(question_key_misuse_is_a_testing_error)
{
	const struct wymcp_module *m[2] = { NULL, NULL };
	static const struct wymcp_tool tab[] = {
		{ .name = "twice", .description = "Reuses a question key.",
		    .input_schema = "{\"type\":\"object\"}", .run = twice_run }
	};
	static const struct wymcp_module mod = {
		.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
		.name = "twice", WYMCP_TOOLS(tab),
		.tool_size = sizeof(struct wymcp_tool)
	};

	o.meta = WYMCP_TESTING_META_ELICIT;
	build();
	/* The first round stops at the first question: nothing seen. */
	run(&twice_tool, NULL);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INPUT_REQUIRED);
	ck_assert_str_eq(wymcp_testing_errmsg(), "");
	ck_assert_int_eq(wymcp_testing_answer(ctx, "who", ALICE), WYMCP_OK);
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, &twice_tool, NULL, &r),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_msg(strstr(wymcp_testing_errmsg(), "question key 'who' "
	    "reused for another question ('Where do you live?' after 'What "
	    "is your name?')") != NULL, "%s", wymcp_testing_errmsg());
	/* The same question twice. */
	g.runs = 200;
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, &twice_tool, NULL, &r),
	    WYMCP_ERR_INVAL);
	ck_assert_msg(strstr(wymcp_testing_errmsg(), "question key 'who' "
	    "asked twice in one run") != NULL, "%s", wymcp_testing_errmsg());
	/* Through the whole pipeline too. */
	m[0] = &mod;
	o.mount = m;
	g.runs = 0;
	build();
	ck_assert_int_eq(wymcp_testing_call_tool(ctx, "twice", NULL,
	    answer_alice, NULL, &r), WYMCP_ERR_INVAL);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_int_eq(r.rounds, 2);
	ck_assert_msg(strstr(wymcp_testing_errmsg(), "reused for another "
	    "question") != NULL, "%s", wymcp_testing_errmsg());
}
END_TEST

START_TEST(prompts_and_resources_as_on_the_wire)
{
	const struct wymcp_module *m[2];

	m[0] = load_bundled("conformance");
	m[1] = NULL;
	o.mount = m;
	o.meta = WYMCP_TESTING_META_NONE;
	build();
	ck_assert_int_eq(wymcp_testing_get_prompt(ctx, "test_simple_prompt",
	    NULL, &r), WYMCP_OK);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_ptr_nonnull(r.text);
	ck_assert(json_object_object_get_ex(r.result, "messages", NULL));
	/* A required argument missing: -32602, as prompts/get answers. */
	ck_assert_int_eq(wymcp_testing_get_prompt(ctx,
	    "test_prompt_with_arguments", "{}", &r), WYMCP_OK);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INVALID);
	ck_assert(strstr(r.error, "required") != NULL);
	ck_assert_int_eq(wymcp_testing_get_prompt(ctx, "no_such_prompt",
	    NULL, &r), WYMCP_OK);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INVALID);

	ck_assert_int_eq(wymcp_testing_read_resource(ctx,
	    "test://static-text", &r), WYMCP_OK);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_ptr_nonnull(r.text);
	ck_assert(json_object_object_get_ex(r.result, "contents", NULL));
	ck_assert_int_eq(wymcp_testing_read_resource(ctx, "test://nothing",
	    &r), WYMCP_OK);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INVALID);
	ck_assert_str_eq(r.error, "Resource not found");
	ck_assert_int_eq(wymcp_testing_get_prompt(NULL, "x", NULL, &r),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_testing_read_resource(ctx, NULL, &r),
	    WYMCP_ERR_INVAL);
}
END_TEST

/* The in-memory client's answers: a room, then a party of four. */
struct answers {
	int		 asked;
	char		 keys[8][32];
	const char	*decline;	/* key to decline, or NULL */
	const char	*stop;		/* key to leave unanswered */
};

static const char *
answer(void *arg, const char *key, struct json_object *req)
{
	struct answers		*a = arg;
	struct json_object	*m;

	ck_assert(json_object_object_get_ex(req, "method", &m));
	ck_assert_str_eq(json_object_get_string(m), "elicitation/create");
	if (a->asked < 8)
		snprintf(a->keys[a->asked], sizeof(a->keys[0]), "%s", key);
	a->asked++;
	if (a->stop != NULL && strcmp(key, a->stop) == 0)
		return NULL;
	if (a->decline != NULL && strcmp(key, a->decline) == 0)
		return "{\"action\":\"decline\"}";
	if (strcmp(key, "elicit-1") == 0)
		return "{\"action\":\"accept\",\"content\":{\"room\":"
		    "\"Aurora\"}}";
	return "{\"action\":\"accept\",\"content\":{\"people\":4}}";
}

START_TEST(call_tool_completes_book_room_through_the_pipeline)
{
	const struct wymcp_module *m[2];
	struct answers		 a;

	memset(&a, 0, sizeof(a));
	m[0] = load_examples();
	m[1] = NULL;
	o.mount = m;
	o.meta = WYMCP_TESTING_META_ELICIT;
	o.principal = "alice";
	build();
	ck_assert_int_eq(wymcp_testing_call_tool(ctx, "book_room",
	    "{\"day\":\"2026-12-01\"}", answer, &a, &r), WYMCP_OK);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_str_eq(r.text, "Booked Aurora for 4 on 2026-12-01.");
	ck_assert_int_eq(r.is_error, 0);
	/* Three requests: each round asked one question, sealed between. */
	ck_assert_int_eq(r.rounds, 3);
	ck_assert_int_eq(a.asked, 2);
	ck_assert_str_eq(a.keys[0], "elicit-1");
	ck_assert_str_eq(a.keys[1], "elicit-2");
	ck_assert_ptr_nonnull(r.response);
}
END_TEST

START_TEST(call_tool_stops_declines_and_refuses)
{
	const struct wymcp_module *m[2];
	struct answers		 a;

	m[0] = load_examples();
	m[1] = NULL;
	o.mount = m;
	o.meta = WYMCP_TESTING_META_ELICIT;
	build();
	/* Left unanswered: the round that asked is the outcome. */
	memset(&a, 0, sizeof(a));
	a.stop = "elicit-2";
	ck_assert_int_eq(wymcp_testing_call_tool(ctx, "book_room",
	    "{\"day\":\"2026-12-01\"}", answer, &a, &r), WYMCP_OK);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INPUT_REQUIRED);
	ck_assert_int_eq(r.rounds, 2);
	ck_assert_str_eq(r.key, "elicit-2");
	ck_assert_ptr_nonnull(r.request_state);
	/* A decline is an answer: the call completes, never re-asks. */
	memset(&a, 0, sizeof(a));
	a.decline = "elicit-1";
	ck_assert_int_eq(wymcp_testing_call_tool(ctx, "book_room",
	    "{\"day\":\"2026-12-01\"}", answer, &a, &r), WYMCP_OK);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_int_eq(r.rounds, 2);
	ck_assert_int_eq(a.asked, 1);
	/* Arguments outside the input schema: refused by the pipeline. */
	memset(&a, 0, sizeof(a));
	ck_assert_int_eq(wymcp_testing_call_tool(ctx, "book_room",
	    "{\"day\":7}", answer, &a, &r), WYMCP_OK);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INVALID);
	ck_assert_int_eq(r.rounds, 1);
	ck_assert_int_eq(a.asked, 0);
	ck_assert_int_eq(wymcp_testing_call_tool(ctx, "no_such_tool", NULL,
	    answer, &a, &r), WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_testing_call_tool(ctx, "book_room", NULL,
	    NULL, &a, &r), WYMCP_ERR_INVAL);
}
END_TEST

/* A schema in a buffer the test rewrites between rounds. */
static char	 dyn_schema[256];

static enum wymcp_err
dyn_run(struct wymcp_ctx *c, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;
	enum wymcp_err		 rc;

	if ((rc = wymcp_elicit(c, "Which?", dyn_schema, &a)) != WYMCP_OK)
		return rc;
	return wymcp_result_text(res, "answered");
}

static const struct wymcp_tool dyn_tool = {
	.name = "dyn", .description = "Asks with a changing schema.",
	.run = dyn_run
};

START_TEST(elicit_schema_text_is_read_each_time_it_changes)
{
	struct json_object	*p;

	o.meta = WYMCP_TESTING_META_ELICIT;
	build();
	snprintf(dyn_schema, sizeof(dyn_schema), "{\"type\":\"object\","
	    "\"properties\":{\"name\":{\"type\":\"string\"}}}");
	run(&dyn_tool, NULL);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INPUT_REQUIRED);
	ck_assert(json_object_object_get_ex(r.schema, "properties", &p));
	ck_assert(json_object_object_get_ex(p, "name", NULL));
	/* The same text again: the same question. */
	run(&dyn_tool, NULL);
	ck_assert(json_object_object_get_ex(r.schema, "properties", &p));
	ck_assert(json_object_object_get_ex(p, "name", NULL));
	/* Other bytes at the same address: the new schema is asked. */
	snprintf(dyn_schema, sizeof(dyn_schema), "{\"type\":\"object\","
	    "\"properties\":{\"color\":{\"type\":\"string\"}}}");
	run(&dyn_tool, NULL);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INPUT_REQUIRED);
	ck_assert(json_object_object_get_ex(r.schema, "properties", &p));
	ck_assert(json_object_object_get_ex(p, "color", NULL));
	ck_assert(!json_object_object_get_ex(p, "name", NULL));
	/* And a schema that is not a form is refused every time. */
	snprintf(dyn_schema, sizeof(dyn_schema), "{\"type\":\"array\"}");
	run(&dyn_tool, NULL);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_int_eq(r.rc, WYMCP_ERR_SCHEMA);
	run(&dyn_tool, NULL);
	ck_assert_int_eq(r.rc, WYMCP_ERR_SCHEMA);
}
END_TEST

static Suite *
testing_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("testing");
	tc = tcase_create("build_context");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, build_context_without_options_is_a_bare_context);
	tcase_add_test(tc, build_context_assigns_and_principal);
	tcase_add_test(tc, build_context_filters_internal_assigns);
	tcase_add_test(tc, build_context_meta_gives_capabilities);
	tcase_add_test(tc, build_context_preset_answers);
	tcase_add_test(tc, build_context_mount_list);
	tcase_add_test(tc, build_context_mounts_a_loaded_module);
	tcase_add_test(tc, build_context_invalid_options_give_null);
	suite_add_tcase(s, tc);

	tc = tcase_create("run_tool");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, run_tool_reports_a_complete_result);
	tcase_add_test(tc, run_tool_structured_only_gets_a_text_block);
	tcase_add_test(tc, run_tool_reports_a_tool_failure);
	tcase_add_test(tc,
	    run_tool_failure_without_content_reads_as_on_the_wire);
	tcase_add_test(tc, run_tool_checks_arguments_as_on_the_wire);
	tcase_add_test(tc, run_tool_bad_calls);
	tcase_add_test(tc, run_tool_reports_the_question);
	tcase_add_test(tc, answer_replaces_and_persists_across_rounds);
	tcase_add_test(tc, round_stays_valid_through_later_rounds);
	tcase_add_test(tc, context_is_not_tied_to_a_thread);
	suite_add_tcase(s, tc);

	tc = tcase_create("walk");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, walk_book_room_through_all_rounds);
	tcase_add_test(tc, walk_book_room_declined);
	tcase_add_test(tc, book_room_without_elicitation_fails_cleanly);
	tcase_add_test(tc, walk_purge_cache_decline_and_cancel);
	suite_add_tcase(s, tc);

	tc = tcase_create("wire");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, run_tool_refuses_missing_required_caps_as_the_wire);
	tcase_add_test(tc, run_tool_refuses_a_result_outside_the_output_schema);
	tcase_add_test(tc, prompts_and_resources_as_on_the_wire);
	tcase_add_test(tc, errmsg_says_why_a_context_was_refused);
	tcase_add_test(tc, errmsg_says_why_the_output_schema_failed);
	tcase_add_test(tc, question_key_misuse_is_a_testing_error);
	tcase_add_test(tc, call_tool_completes_book_room_through_the_pipeline);
	tcase_add_test(tc, call_tool_stops_declines_and_refuses);
	tcase_add_test(tc, elicit_schema_text_is_read_each_time_it_changes);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	sr = srunner_create(testing_suite());
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
