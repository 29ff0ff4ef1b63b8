/*
 * check_elicit.c - asking the client: elicitation over Multi Round-Trip
 * Requests (elicit.c, the tools/call round in methods.c)
 *
 * Follows the Wymcp.Context contract sentence by sentence: the answers a
 * round carries, the capability gate, the run boundary, the
 * re-execution rule, positional keys, the flat form schema, the checks
 * on an answer, and the wire: input_required, inputResponses and the
 * sealed requestState.  Tools are defined here as data; the testing API
 * runs them round by round, the harness serves them on the wire.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "testing/testing.h"
#include "wymcp_testing.h"
#include "harness.h"

#define NAME_SCHEMA "{\"type\":\"object\",\"properties\":{\"name\":" \
	"{\"type\":\"string\"}},\"required\":[\"name\"]}"
#define COLOR_SCHEMA "{\"type\":\"object\",\"properties\":{\"color\":" \
	"{\"type\":\"string\"}},\"required\":[\"color\"]}"

#define CAPS_META(caps)							\
	"{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","	\
	"\"io.modelcontextprotocol/clientInfo\":{\"name\":\"t\","	\
	"\"version\":\"1\"},"						\
	"\"io.modelcontextprotocol/clientCapabilities\":" caps "}"
#define META_ELICIT	CAPS_META("{\"elicitation\":{}}")
#define META_NONE	CAPS_META("{}")
#define META_URL	CAPS_META("{\"elicitation\":{\"url\":{}}}")
#define META_FORM	CAPS_META("{\"elicitation\":{\"form\":{}}}")
#define META_FORM_URL	CAPS_META("{\"elicitation\":{\"form\":{},"	\
	"\"url\":{}}}")
#define META_ALL	CAPS_META("{\"elicitation\":{},\"sampling\":{}," \
	"\"roots\":{\"listChanged\":true}}")

#define ALICE	"{\"action\":\"accept\",\"content\":{\"name\":\"Alice\"}}"
#define BOB	"{\"action\":\"accept\",\"content\":{\"name\":\"Bob\"}}"
#define BLUE	"{\"action\":\"accept\",\"content\":{\"color\":\"blue\"}}"
#define DECLINE	"{\"action\":\"decline\"}"
#define CANCEL	"{\"action\":\"cancel\"}"
#define SAMPLE	"{\"role\":\"assistant\",\"content\":"		\
	"{\"type\":\"text\","						\
	"\"text\":\"Paris\"},\"model\":\"m\",\"stopReason\":\"endTurn\"}"
#define ROOTS	"{\"roots\":[{\"uri\":\"file:///r\",\"name\":\"R\"}]}"

/* What the tools saw; reset before every test. */
static struct {
	int		 runs;		/* bodies entered */
	int		 before;	/* work before the first question */
	int		 middle;	/* work between the questions */
	int		 after;		/* after the last answer */
	int		 nanswers[8];	/* answers seen, per run */
	enum wymcp_err	 rc[16];	/* return values, in call order */
	int		 nrc;
	int		 null_answer[16]; /* *answer was NULL */
	int		 deferred;	/* cleanup hook calls */
	int		 outside;	/* hook registered outside a run */
	const char	*schema;	/* for schema_tool */
	const char	*key;		/* for custom_tool */
	const char	*sample_params;	/* for sample_tool */
	struct {
		enum wymcp_err	 elicit, elicit_key, sample, roots;
		enum wymcp_err	 batch, flush;
		int		 answer_null;
	} thr;
	size_t		 arena_delta;	/* growth in the thread */
	struct json_object *same;	/* one answer for one chosen key */
} g;

static void
record(enum wymcp_err rc, struct json_object *a)
{
	if (g.nrc < 16) {
		g.rc[g.nrc] = rc;
		g.null_answer[g.nrc] = a == NULL;
	}
	g.nrc++;
}

/* A json-c object of the request from a literal. */
static struct json_object *
obj(struct wymcp_ctx *ctx, const char *text)
{
	return wymcp_own(ctx, json_tokener_parse(text));
}

/* One question; decline and cancel are reported, never re-asked. */
static enum wymcp_err
greet_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a = NULL, *c, *v;
	enum wymcp_err		 rc;

	if (g.runs < 8)
		g.nanswers[g.runs] = wymcp_ctx_answers(ctx) == NULL ? -1 :
		    json_object_object_length(wymcp_ctx_answers(ctx));
	g.runs++;
	g.before++;
	rc = wymcp_elicit(ctx, "What is your name?", NAME_SCHEMA, &a);
	record(rc, a);
	if (rc == WYMCP_ERR_NOTSUP)
		return wymcp_result_error(res, "not supported");
	if (rc != WYMCP_OK)
		return rc;
	g.after++;
	if ((c = wymcp_answer_content(a)) == NULL)
		return wymcp_result_add(res, wymcp_textf(ctx, "action: %s",
		    wymcp_answer_action(a)));
	json_object_object_get_ex(c, "name", &v);
	return wymcp_result_add(res, wymcp_textf(ctx, "Hello, %s!",
	    json_object_get_string(v)));
}

/* Two questions, with work counted around them. */
static enum wymcp_err
two_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a, *b, *v, *w;
	enum wymcp_err		 rc;

	if (g.runs < 8)
		g.nanswers[g.runs] =
		    json_object_object_length(wymcp_ctx_answers(ctx));
	g.runs++;
	g.before++;
	if ((rc = wymcp_elicit(ctx, "Step 1: What is your name?",
	    NAME_SCHEMA, &a)) != WYMCP_OK)
		return rc;
	if (wymcp_answer_content(a) == NULL)
		return wymcp_result_add(res, wymcp_textf(ctx, "step 1: %s",
		    wymcp_answer_action(a)));
	g.middle++;
	if ((rc = wymcp_elicit(ctx, "Step 2: What is your favorite color?",
	    COLOR_SCHEMA, &b)) != WYMCP_OK)
		return rc;
	if (wymcp_answer_content(b) == NULL)
		return wymcp_result_add(res, wymcp_textf(ctx, "step 2: %s",
		    wymcp_answer_action(b)));
	g.after++;
	json_object_object_get_ex(wymcp_answer_content(a), "name", &v);
	json_object_object_get_ex(wymcp_answer_content(b), "color", &w);
	return wymcp_result_add(res, wymcp_textf(ctx, "%s likes %s",
	    json_object_get_string(v), json_object_get_string(w)));
}

/* An elicit, a sample and a roots request: one counter for the run. */
static enum wymcp_err
mixed_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a, *p, *r;
	enum wymcp_err		 rc;

	g.runs++;
	rc = wymcp_elicit(ctx, "What is your name?", NAME_SCHEMA, &a);
	record(rc, a);
	if (rc != WYMCP_OK && rc != WYMCP_ERR_NOTSUP)
		return rc;
	p = obj(ctx, "{\"messages\":[{\"role\":\"user\",\"content\":"
	    "{\"type\":\"text\",\"text\":\"Capital of France?\"}}],"
	    "\"maxTokens\":100}");
	rc = wymcp_sample(ctx, NULL, p, &a);
	record(rc, a);
	if (rc != WYMCP_OK && rc != WYMCP_ERR_NOTSUP)
		return rc;
	rc = wymcp_roots(ctx, NULL, &a);
	record(rc, a);
	if (rc != WYMCP_OK && rc != WYMCP_ERR_NOTSUP)
		return rc;
	g.after++;
	if (rc != WYMCP_OK || !json_object_object_get_ex(a, "roots", &r))
		return wymcp_result_add(res, wymcp_text(ctx, "no roots"));
	return wymcp_result_add(res, wymcp_textf(ctx, "Found %zu root(s)",
	    json_object_array_length(r)));
}

/* A sample with g.sample_params. */
static enum wymcp_err
sample_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;
	enum wymcp_err		 rc;

	g.runs++;
	rc = wymcp_sample(ctx, NULL, obj(ctx, g.sample_params), &a);
	record(rc, a);
	if (rc != WYMCP_OK)
		return rc == WYMCP_ERR_NOTSUP ?
		    wymcp_result_error(res, "not supported") : rc;
	g.after++;
	return wymcp_result_add(res, wymcp_text(ctx, "sampled"));
}

/* A roots request. */
static enum wymcp_err
roots_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;
	enum wymcp_err		 rc;

	g.runs++;
	rc = wymcp_roots(ctx, NULL, &a);
	record(rc, a);
	if (rc != WYMCP_OK)
		return rc == WYMCP_ERR_NOTSUP ?
		    wymcp_result_error(res, "not supported") : rc;
	g.after++;
	return wymcp_result_add(res, wymcp_text(ctx, "rooted"));
}

/* A question under the key g.key. */
static enum wymcp_err
custom_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a, *v;
	enum wymcp_err		 rc;

	g.runs++;
	rc = wymcp_elicit_key(ctx, g.key, "What is your name?",
	    obj(ctx, NAME_SCHEMA), &a);
	record(rc, a);
	if (rc != WYMCP_OK)
		return rc == WYMCP_ERR_INVAL ?
		    wymcp_result_error(res, "bad key") : rc;
	g.after++;
	json_object_object_get_ex(wymcp_answer_content(a), "name", &v);
	return wymcp_result_add(res, wymcp_textf(ctx, "Hello, %s!",
	    json_object_get_string(v)));
}

/* Three questions in one round. */
static enum wymcp_err
batch_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a, *s, *r;
	enum wymcp_err		 rc;

	g.runs++;
	if ((rc = wymcp_input_batch(ctx)) != WYMCP_OK)
		return rc;
	rc = wymcp_elicit(ctx, "What is your name?", NAME_SCHEMA, &a);
	record(rc, a);
	rc = wymcp_sample(ctx, NULL, obj(ctx, "{\"messages\":[{\"role\":"
	    "\"user\",\"content\":{\"type\":\"text\",\"text\":"
	    "\"Generate a greeting\"}}],\"maxTokens\":50}"), &s);
	record(rc, s);
	rc = wymcp_roots(ctx, NULL, &r);
	record(rc, r);
	rc = wymcp_input_flush(ctx);
	record(rc, NULL);
	if (rc != WYMCP_OK)
		return rc;
	g.after++;
	return wymcp_result_add(res, wymcp_text(ctx, "all answered"));
}

/* wymcp_elicit with the schema text g.schema. */
static enum wymcp_err
schema_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;
	enum wymcp_err		 rc;

	g.runs++;
	rc = wymcp_elicit(ctx, "Fill this in", g.schema, &a);
	record(rc, a);
	if (rc != WYMCP_OK)
		return rc;
	g.after++;
	return wymcp_result_add(res, wymcp_text(ctx, "answered"));
}

/* Another thread of the tool tries to ask. */
static void *
thread_main(void *arg)
{
	struct wymcp_ctx	*ctx = arg;
	struct json_object	*a = (struct json_object *)&g;

	g.thr.elicit = wymcp_elicit(ctx, "From a thread?", NAME_SCHEMA, &a);
	g.thr.answer_null = a == NULL;
	g.thr.elicit_key = wymcp_elicit_key(ctx, "k", "From a thread?",
	    NULL, &a);
	g.thr.sample = wymcp_sample(ctx, NULL, NULL, &a);
	g.thr.roots = wymcp_roots(ctx, NULL, &a);
	g.thr.batch = wymcp_input_batch(ctx);
	g.thr.flush = wymcp_input_flush(ctx);
	return NULL;
}

static enum wymcp_err
thread_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;
	pthread_t		 t;
	size_t			 total;
	enum wymcp_err		 rc;

	g.runs++;
	total = ctx->arena.total;
	if (pthread_create(&t, NULL, thread_main, ctx) != 0)
		return WYMCP_ERR_NOMEM;
	pthread_join(t, NULL);
	g.arena_delta = ctx->arena.total - total;
	/* The run is still this thread's: its own question works. */
	rc = wymcp_elicit(ctx, "And from the run?", NAME_SCHEMA, &a);
	record(rc, a);
	if (rc != WYMCP_OK)
		return rc;
	g.after++;
	return wymcp_result_add(res, wymcp_text(ctx, "continued"));
}

static void
hook(void *arg)
{
	(*(int *)arg)++;
}

/* A cleanup hook, then a question. */
static enum wymcp_err
defer_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;
	enum wymcp_err		 rc;

	g.runs++;
	if ((rc = wymcp_defer(ctx, hook, &g.deferred)) != WYMCP_OK)
		return rc;
	if ((rc = wymcp_elicit(ctx, "What is your name?", NAME_SCHEMA,
	    &a)) != WYMCP_OK)
		return rc;
	g.after++;
	return wymcp_result_add(res, wymcp_text(ctx, "done"));
}

/* A cleanup hook that tries to ask. */
static void
asking_hook(void *arg)
{
	struct wymcp_ctx	*ctx = arg;
	struct json_object	*a = (struct json_object *)1;
	enum wymcp_err		 rc;

	g.deferred++;
	/* Two statements: the order of argument evaluation is unspecified. */
	rc = wymcp_elicit(ctx, "From a hook?", NAME_SCHEMA, &a);
	record(rc, a);
}

static enum wymcp_err
hook_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;
	enum wymcp_err		 rc;

	g.runs++;
	if ((rc = wymcp_defer(ctx, asking_hook, ctx)) != WYMCP_OK)
		return rc;
	if ((rc = wymcp_elicit(ctx, "What is your name?", NAME_SCHEMA,
	    &a)) != WYMCP_OK)
		return rc;
	return wymcp_result_add(res, wymcp_text(ctx, "done"));
}

/*
 * Questions that fail their checks, then one that passes: only the
 * last takes a number.
 */
static enum wymcp_err
numbering_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;
	enum wymcp_err		 rc;

	g.runs++;
	/* Not a flat schema. */
	rc = wymcp_elicit(ctx, "m", "{\"type\":\"string\"}", &a);
	record(rc, a);
	/* No sampling capability. */
	rc = wymcp_sample(ctx, NULL, obj(ctx, "{\"messages\":[]}"), &a);
	record(rc, a);
	/* No message. */
	rc = wymcp_elicit(ctx, NULL, NAME_SCHEMA, &a);
	record(rc, a);
	/* An invalid chosen key. */
	rc = wymcp_elicit_key(ctx, "", "m", obj(ctx, NAME_SCHEMA), &a);
	record(rc, a);
	/* A valid chosen key, answered: takes no number either. */
	rc = wymcp_elicit_key(ctx, "mine", "m", obj(ctx, NAME_SCHEMA), &a);
	record(rc, a);
	/*
	 * The same chosen key again: the same answer (and a warning: the
	 * second question is never shown).
	 */
	g.same = a;
	rc = wymcp_elicit_key(ctx, "mine", "m", obj(ctx, NAME_SCHEMA), &a);
	record(rc, a);
	g.same = g.same == a ? a : NULL;
	/* This one is the run's first number. */
	rc = wymcp_roots(ctx, NULL, &a);
	record(rc, a);
	g.after++;
	return wymcp_result_add(res, wymcp_text(ctx, "numbered"));
}

/* Bad arguments inside a run. */
static enum wymcp_err
badargs_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a = (struct json_object *)&g;
	enum wymcp_err		 rc;

	g.runs++;
	rc = wymcp_elicit(NULL, "m", NAME_SCHEMA, &a);
	record(rc, a);
	rc = wymcp_elicit(ctx, "m", NAME_SCHEMA, NULL);
	record(rc, NULL);
	rc = wymcp_elicit_key(ctx, NULL, "m", obj(ctx, NAME_SCHEMA), NULL);
	record(rc, NULL);
	rc = wymcp_sample(ctx, NULL, obj(ctx, "[]"), &a);
	record(rc, a);
	rc = wymcp_sample(ctx, NULL, NULL, &a);
	record(rc, a);
	rc = wymcp_roots(NULL, NULL, &a);
	record(rc, a);
	rc = wymcp_roots(ctx, "bad\x01key", &a);
	record(rc, a);
	rc = wymcp_input_batch(NULL);
	record(rc, NULL);
	rc = wymcp_input_flush(NULL);
	record(rc, NULL);
	return wymcp_result_add(res, wymcp_text(ctx, "checked"));
}

/* Two questions; goes on whatever the first answer. */
static enum wymcp_err
survey_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a, *b;
	enum wymcp_err		 rc;

	g.runs++;
	if ((rc = wymcp_elicit(ctx, "Q1?", NAME_SCHEMA, &a)) != WYMCP_OK)
		return rc;
	if ((rc = wymcp_elicit(ctx, "Q2?", COLOR_SCHEMA, &b)) != WYMCP_OK)
		return rc;
	g.after++;
	return wymcp_result_add(res, wymcp_textf(ctx, "q1=%s q2=%s",
	    wymcp_answer_action(a), wymcp_answer_action(b)));
}

static const struct wymcp_tool hook_tool = {
	.name = "hook", .description = "Asks from a cleanup hook.",
	.input_schema = "{\"type\":\"object\"}", .run = hook_run
};
static const struct wymcp_tool numbering_tool = {
	.name = "numbering", .description = "Numbers its questions.",
	.input_schema = "{\"type\":\"object\"}", .run = numbering_run
};
static const struct wymcp_tool badargs_tool = {
	.name = "badargs", .description = "Asks badly.",
	.input_schema = "{\"type\":\"object\"}", .run = badargs_run
};

static const struct wymcp_tool greet_tool = {
	.name = "greet", .description = "Asks a name.",
	.input_schema = "{\"type\":\"object\"}", .run = greet_run
};
static const struct wymcp_tool two_tool = {
	.name = "two", .description = "Asks two questions.",
	.input_schema = "{\"type\":\"object\"}", .run = two_run
};
static const struct wymcp_tool mixed_tool = {
	.name = "mixed", .description = "Elicits, samples, lists roots.",
	.input_schema = "{\"type\":\"object\"}", .run = mixed_run
};
static const struct wymcp_tool sample_tool = {
	.name = "sample", .description = "Samples.",
	.input_schema = "{\"type\":\"object\"}", .run = sample_run
};
static const struct wymcp_tool roots_tool = {
	.name = "roots", .description = "Lists roots.",
	.input_schema = "{\"type\":\"object\"}", .run = roots_run
};
static const struct wymcp_tool custom_tool = {
	.name = "custom", .description = "Asks under its own key.",
	.input_schema = "{\"type\":\"object\"}", .run = custom_run
};
static const struct wymcp_tool batch_tool = {
	.name = "batch", .description = "Asks three questions at once.",
	.input_schema = "{\"type\":\"object\"}", .run = batch_run
};
static const struct wymcp_tool schema_tool = {
	.name = "schema", .description = "Asks with a given schema.",
	.input_schema = "{\"type\":\"object\"}", .run = schema_run
};
static const struct wymcp_tool thread_tool = {
	.name = "thread", .description = "Asks from another thread.",
	.input_schema = "{\"type\":\"object\"}", .run = thread_run
};
static const struct wymcp_tool defer_tool = {
	.name = "defer", .description = "Defers, then asks.",
	.input_schema = "{\"type\":\"object\"}", .run = defer_run
};

/* The same tools, served on the wire. */
static const struct wymcp_tool wire_tools[] = {
	{ .name = "greet", .description = "Asks a name.",
	    .input_schema = "{\"type\":\"object\"}", .run = greet_run },
	{ .name = "two", .description = "Asks two questions.",
	    .input_schema = "{\"type\":\"object\"}", .run = two_run },
	{ .name = "batch", .description = "Asks three questions at once.",
	    .input_schema = "{\"type\":\"object\"}", .run = batch_run },
	{ .name = "defer", .description = "Defers, then asks.",
	    .input_schema = "{\"type\":\"object\"}", .run = defer_run },
	{ .name = "survey", .description = "Asks two questions regardless.",
	    .input_schema = "{\"type\":\"object\"}", .run = survey_run },
	{ .name = NULL }
};
static const struct wymcp_module wire_mod = {
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "elicitmod",
	.tools = wire_tools,
	.tool_size = sizeof(struct wymcp_tool)
};

/* The testing API. */

static struct wymcp_ctx			*ctx;
static struct wymcp_testing_round	 r;

static void
setup(void)
{
	memset(&g, 0, sizeof(g));
	memset(&r, 0, sizeof(r));
	ctx = NULL;
}

static void
teardown(void)
{
	wymcp_testing_free_context(ctx);
	ctx = NULL;
}

/* A context with `meta` (NULL: none) and preset `answers`. */
static void
build(const char *meta, const char *answers)
{
	struct wymcp_testing_opts	 o;

	memset(&o, 0, sizeof(o));
	o.meta = meta;
	o.answers = answers;
	wymcp_testing_free_context(ctx);
	ctx = wymcp_testing_build_context(&o);
	ck_assert_ptr_nonnull(ctx);
}

static void
run(const struct wymcp_tool *t)
{
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, t, NULL, &r), WYMCP_OK);
}

static void
answer(const char *key, const char *json)
{
	ck_assert_int_eq(wymcp_testing_answer(ctx, key, json), WYMCP_OK);
}

/* The round stopped at question `key` of `method`. */
static void
asked(const char *key, const char *method)
{
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INPUT_REQUIRED);
	ck_assert_ptr_nonnull(r.key);
	ck_assert_str_eq(r.key, key);
	ck_assert_ptr_nonnull(r.method);
	ck_assert_str_eq(r.method, method);
}

/* The round completed with text `text`. */
static void
completed(const char *text)
{
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_ptr_nonnull(r.text);
	ck_assert_str_eq(r.text, text);
}

/* Call a tool's body directly, outside any run. */
static void
direct(const struct wymcp_tool *t)
{
	struct json_object	*args;

	args = json_object_new_object();
	(void)t->run(ctx, args, NULL);
	json_object_put(args);
}

START_TEST(first_round_has_empty_answers)
{
	build(META_ELICIT, NULL);
	ck_assert_ptr_nonnull(wymcp_ctx_answers(ctx));
	ck_assert_int_eq(json_object_object_length(wymcp_ctx_answers(ctx)),
	    0);
	run(&greet_tool);
	asked("elicit-1", "elicitation/create");
	ck_assert_int_eq(g.nanswers[0], 0);
	answer("elicit-1", ALICE);
	run(&greet_tool);
	completed("Hello, Alice!");
	ck_assert_int_eq(g.nanswers[1], 1);
}
END_TEST

START_TEST(preset_elicit_1_answers_at_once)
{
	build(META_ELICIT, "{\"elicit-1\":" ALICE "}");
	run(&greet_tool);
	completed("Hello, Alice!");
	ck_assert_int_eq(r.rc, WYMCP_OK);
	ck_assert_int_eq(r.is_error, 0);
	ck_assert_int_eq(g.runs, 1);
	ck_assert_int_eq(g.rc[0], WYMCP_OK);
	ck_assert_int_eq(g.null_answer[0], 0);
}
END_TEST

START_TEST(without_capability_elicit_is_not_supported_and_never_reads_answers)
{
	/* An answer that would be refused if it were read. */
	const char	*bad = "{\"elicit-1\":{\"action\":\"bogus\"}}";
	const char	*metas[] = {
		META_NONE,
		META_URL,
		CAPS_META("{\"elicitation\":true}"),
		CAPS_META("{\"sampling\":{},\"roots\":{}}"),
		NULL,	/* a context that never reached the wire */
	};
	size_t		 i;

	for (i = 0; i < sizeof(metas) / sizeof(metas[0]); i++) {
		memset(&g, 0, sizeof(g));
		build(metas[i], bad);
		run(&greet_tool);
		ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
		ck_assert_int_eq(g.nrc, 1);
		ck_assert_int_eq(g.rc[0], WYMCP_ERR_NOTSUP);
		ck_assert_int_eq(g.null_answer[0], 1);
		ck_assert_int_eq(r.is_error, 1);
		ck_assert_str_eq(r.text, "not supported");

		/* With a good preset answer, it is not read either. */
		memset(&g, 0, sizeof(g));
		build(metas[i], "{\"elicit-1\":" ALICE "}");
		run(&greet_tool);
		ck_assert_int_eq(g.rc[0], WYMCP_ERR_NOTSUP);
		ck_assert_int_eq(g.after, 0);
	}
}
END_TEST

START_TEST(form_capability_declared_three_ways)
{
	const char	*metas[] = { META_ELICIT, META_FORM, META_FORM_URL };
	size_t		 i;

	for (i = 0; i < sizeof(metas) / sizeof(metas[0]); i++) {
		memset(&g, 0, sizeof(g));
		build(metas[i], "{\"elicit-1\":" ALICE "}");
		run(&greet_tool);
		completed("Hello, Alice!");
		ck_assert_int_eq(g.rc[0], WYMCP_OK);
	}
}
END_TEST

START_TEST(capability_check_comes_first)
{
	/* No capability, no run: NOTSUP, not NORUN. */
	build(META_NONE, NULL);
	direct(&greet_tool);
	ck_assert_int_eq(g.rc[0], WYMCP_ERR_NOTSUP);
	build(NULL, NULL);
	direct(&greet_tool);
	ck_assert_int_eq(g.rc[1], WYMCP_ERR_NOTSUP);

	/* Nor does a bad schema get looked at first. */
	g.schema = "{not json";
	build(META_URL, NULL);
	direct(&schema_tool);
	ck_assert_int_eq(g.rc[2], WYMCP_ERR_NOTSUP);
	run(&schema_tool);
	ck_assert_int_eq(g.rc[3], WYMCP_ERR_NOTSUP);
	g.schema = "{\"type\":\"object\",\"properties\":{\"a\":"
	    "{\"type\":\"object\"}}}";
	direct(&schema_tool);
	ck_assert_int_eq(g.rc[4], WYMCP_ERR_NOTSUP);
	run(&schema_tool);
	ck_assert_int_eq(g.rc[5], WYMCP_ERR_NOTSUP);

	/* Sampling and roots gate the same way. */
	build(META_NONE, NULL);
	g.sample_params = "{\"messages\":[],\"maxTokens\":1}";
	direct(&sample_tool);
	ck_assert_int_eq(g.rc[6], WYMCP_ERR_NOTSUP);
	direct(&roots_tool);
	ck_assert_int_eq(g.rc[7], WYMCP_ERR_NOTSUP);
}
END_TEST

START_TEST(elicit_outside_a_run_is_an_error)
{
	struct json_object	*a = (struct json_object *)&g;

	build(META_ALL, "{\"elicit-1\":" ALICE "}");
	direct(&greet_tool);
	ck_assert_int_eq(g.nrc, 1);
	ck_assert_int_eq(g.rc[0], WYMCP_ERR_NORUN);
	ck_assert_int_eq(g.null_answer[0], 1);
	ck_assert_int_eq(g.after, 0);

	/* Whatever the schema: the missing run is found first. */
	g.schema = "{not json";
	direct(&schema_tool);
	ck_assert_int_eq(g.rc[1], WYMCP_ERR_NORUN);

	g.sample_params = "{\"messages\":[],\"maxTokens\":1}";
	direct(&sample_tool);
	ck_assert_int_eq(g.rc[2], WYMCP_ERR_NORUN);
	direct(&roots_tool);
	ck_assert_int_eq(g.rc[3], WYMCP_ERR_NORUN);
	ck_assert_int_eq(wymcp_elicit_key(ctx, "k", "m", NULL, &a),
	    WYMCP_ERR_NORUN);
	ck_assert_ptr_null(a);
	ck_assert_int_eq(wymcp_input_batch(ctx), WYMCP_ERR_NORUN);
	ck_assert_int_eq(wymcp_input_flush(ctx), WYMCP_ERR_NORUN);
}
END_TEST

START_TEST(a_finished_run_leaves_no_run_open)
{
	build(META_ELICIT, NULL);
	run(&greet_tool);
	asked("elicit-1", "elicitation/create");
	/* The round's boundary is gone: no jump to a dead frame. */
	ck_assert_int_eq(g.nrc, 0);
	direct(&greet_tool);
	ck_assert_int_eq(g.rc[0], WYMCP_ERR_NORUN);
	answer("elicit-1", ALICE);
	run(&greet_tool);
	completed("Hello, Alice!");
	ck_assert_int_eq(g.rc[1], WYMCP_OK);
	direct(&greet_tool);
	ck_assert_int_eq(g.rc[2], WYMCP_ERR_NORUN);
}
END_TEST

START_TEST(elicit_from_another_thread_is_an_error)
{
	build(META_ALL, NULL);
	run(&thread_tool);
	ck_assert_int_eq(g.thr.elicit, WYMCP_ERR_NORUN);
	ck_assert_int_eq(g.thr.answer_null, 1);
	ck_assert_int_eq(g.thr.elicit_key, WYMCP_ERR_NORUN);
	ck_assert_int_eq(g.thr.sample, WYMCP_ERR_NORUN);
	ck_assert_int_eq(g.thr.roots, WYMCP_ERR_NORUN);
	ck_assert_int_eq(g.thr.batch, WYMCP_ERR_NORUN);
	ck_assert_int_eq(g.thr.flush, WYMCP_ERR_NORUN);
	/* The run continued, and the thread took no position. */
	asked("elicit-1", "elicitation/create");
	ck_assert_str_eq(r.message, "And from the run?");
	ck_assert_int_eq(json_object_object_length(r.input_requests), 1);
	answer("elicit-1", ALICE);
	run(&thread_tool);
	completed("continued");
	ck_assert_int_eq(g.runs, 2);
}
END_TEST

START_TEST(elicit_from_another_thread_touches_nothing_of_the_request)
{
	/* The arena is the run thread's; another thread must not grow it. */
	build(META_ALL, NULL);
	run(&thread_tool);
	ck_assert_int_eq(g.thr.elicit, WYMCP_ERR_NORUN);
	ck_assert_uint_eq(g.arena_delta, 0);
}
END_TEST

START_TEST(decline_and_cancel_are_answers_never_reasked)
{
	build(META_ELICIT, "{\"elicit-1\":" DECLINE "}");
	run(&greet_tool);
	completed("action: decline");
	ck_assert_int_eq(g.runs, 1);
	ck_assert_int_eq(g.after, 1);
	ck_assert_ptr_null(r.input_requests);

	memset(&g, 0, sizeof(g));
	build(META_ELICIT, "{\"elicit-1\":" CANCEL "}");
	run(&greet_tool);
	completed("action: cancel");
	ck_assert_int_eq(g.after, 1);

	/* Walking: asked once, declined, done. */
	memset(&g, 0, sizeof(g));
	build(META_ELICIT, NULL);
	run(&two_tool);
	asked("elicit-1", "elicitation/create");
	answer("elicit-1", DECLINE);
	run(&two_tool);
	completed("step 1: decline");
	ck_assert_int_eq(g.runs, 2);
	ck_assert_int_eq(g.middle, 0);

	/* A decline may carry content; it is still a decline. */
	memset(&g, 0, sizeof(g));
	build(META_ELICIT, "{\"elicit-1\":{\"action\":\"decline\","
	    "\"content\":{\"name\":7}}}");
	run(&greet_tool);
	completed("action: decline");
}
END_TEST

START_TEST(two_questions_three_runs)
{
	build(META_ELICIT, NULL);
	run(&two_tool);
	asked("elicit-1", "elicitation/create");
	ck_assert_str_eq(r.message, "Step 1: What is your name?");
	ck_assert_int_eq(g.runs, 1);
	answer("elicit-1", ALICE);
	run(&two_tool);
	asked("elicit-2", "elicitation/create");
	ck_assert_str_eq(r.message, "Step 2: What is your favorite color?");
	ck_assert_int_eq(g.runs, 2);
	answer("elicit-2", BLUE);
	run(&two_tool);
	completed("Alice likes blue");
	ck_assert_int_eq(g.runs, 3);
}
END_TEST

START_TEST(work_before_an_elicit_repeats_each_round_after_the_last_once)
{
	build(META_ELICIT, NULL);
	run(&two_tool);
	ck_assert_int_eq(g.before, 1);
	ck_assert_int_eq(g.middle, 0);
	ck_assert_int_eq(g.after, 0);
	answer("elicit-1", ALICE);
	run(&two_tool);
	ck_assert_int_eq(g.before, 2);
	ck_assert_int_eq(g.middle, 1);
	ck_assert_int_eq(g.after, 0);
	answer("elicit-2", BLUE);
	run(&two_tool);
	ck_assert_int_eq(g.before, 3);
	ck_assert_int_eq(g.middle, 2);
	ck_assert_int_eq(g.after, 1);
	completed("Alice likes blue");
}
END_TEST

START_TEST(keys_are_positional_elicit_1_elicit_2)
{
	struct json_object	*req, *p, *v;

	build(META_ELICIT, NULL);
	run(&two_tool);
	asked("elicit-1", "elicitation/create");
	ck_assert(json_object_object_get_ex(r.input_requests, "elicit-1",
	    &req));
	ck_assert(json_object_object_get_ex(req, "params", &p));
	ck_assert(json_object_object_get_ex(p, "mode", &v));
	ck_assert_str_eq(json_object_get_string(v), "form");
	ck_assert_ptr_nonnull(r.schema);
	ck_assert(json_object_object_get_ex(r.schema, "required", &v));
	ck_assert_str_eq(json_object_get_string(
	    json_object_array_get_idx(v, 0)), "name");
	/* An answer under the wrong key answers nothing. */
	answer("elicit-2", ALICE);
	run(&two_tool);
	asked("elicit-1", "elicitation/create");
	answer("elicit-1", ALICE);
	answer("elicit-2", BLUE);
	run(&two_tool);
	completed("Alice likes blue");
}
END_TEST

START_TEST(sample_and_roots_numbering_shares_the_counter)
{
	struct json_object	*req, *p, *v;

	build(META_ALL, NULL);
	run(&mixed_tool);
	asked("elicit-1", "elicitation/create");
	answer("elicit-1", ALICE);
	run(&mixed_tool);
	asked("sample-2", "sampling/createMessage");
	ck_assert(json_object_object_get_ex(r.input_requests, "sample-2",
	    &req));
	ck_assert(json_object_object_get_ex(req, "params", &p));
	ck_assert(json_object_object_get_ex(p, "maxTokens", &v));
	ck_assert_int_eq(json_object_get_int(v), 100);
	answer("sample-2", SAMPLE);
	run(&mixed_tool);
	asked("roots-3", "roots/list");
	ck_assert(json_object_object_get_ex(r.input_requests, "roots-3",
	    &req));
	ck_assert(json_object_object_get_ex(req, "params", &p));
	ck_assert(json_object_is_type(p, json_type_object));
	ck_assert_int_eq(json_object_object_length(p), 0);
	answer("roots-3", ROOTS);
	run(&mixed_tool);
	completed("Found 1 root(s)");
	ck_assert_int_eq(g.runs, 4);
}
END_TEST

START_TEST(sample_and_roots_gated_by_their_capabilities)
{
	/* Elicitation alone: sampling and roots are not supported. */
	build(META_ELICIT, "{\"elicit-1\":" ALICE "}");
	run(&mixed_tool);
	completed("no roots");
	ck_assert_int_eq(g.nrc, 3);
	ck_assert_int_eq(g.rc[0], WYMCP_OK);
	ck_assert_int_eq(g.rc[1], WYMCP_ERR_NOTSUP);
	ck_assert_int_eq(g.rc[2], WYMCP_ERR_NOTSUP);

	/* Sampling declared: a plain request is asked. */
	memset(&g, 0, sizeof(g));
	g.sample_params = "{\"messages\":[],\"maxTokens\":5}";
	build(CAPS_META("{\"sampling\":{}}"), NULL);
	run(&sample_tool);
	asked("sample-1", "sampling/createMessage");

	/* Tool use in sampling needs sampling.tools. */
	memset(&g, 0, sizeof(g));
	g.sample_params = "{\"messages\":[],\"maxTokens\":5,\"tools\":[]}";
	build(CAPS_META("{\"sampling\":{}}"), NULL);
	run(&sample_tool);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_int_eq(g.rc[0], WYMCP_ERR_NOTSUP);
	memset(&g, 0, sizeof(g));
	g.sample_params = "{\"messages\":[],\"maxTokens\":5,"
	    "\"toolChoice\":{\"mode\":\"auto\"}}";
	run(&sample_tool);
	ck_assert_int_eq(g.rc[0], WYMCP_ERR_NOTSUP);
	memset(&g, 0, sizeof(g));
	g.sample_params = "{\"messages\":[],\"maxTokens\":5,\"tools\":[]}";
	build(CAPS_META("{\"sampling\":{\"tools\":{}}}"), NULL);
	run(&sample_tool);
	asked("sample-1", "sampling/createMessage");
	answer("sample-1", SAMPLE);
	run(&sample_tool);
	completed("sampled");

	/* Roots need roots. */
	memset(&g, 0, sizeof(g));
	build(META_ELICIT, NULL);
	run(&roots_tool);
	ck_assert_int_eq(g.rc[0], WYMCP_ERR_NOTSUP);
	ck_assert_int_eq(r.is_error, 1);
	memset(&g, 0, sizeof(g));
	build(CAPS_META("{\"roots\":{}}"), NULL);
	run(&roots_tool);
	asked("roots-1", "roots/list");
}
END_TEST

START_TEST(custom_key)
{
	char	 longkey[130];

	g.key = "user_name";
	build(META_ELICIT, NULL);
	run(&custom_tool);
	asked("user_name", "elicitation/create");
	ck_assert_str_eq(r.message, "What is your name?");
	/* A positional answer does not answer a chosen key. */
	answer("elicit-1", ALICE);
	run(&custom_tool);
	asked("user_name", "elicitation/create");
	answer("user_name", BOB);
	run(&custom_tool);
	completed("Hello, Bob!");

	/* Keys are 1 to 128 header-safe characters. */
	memset(longkey, 'k', sizeof(longkey));
	longkey[129] = '\0';
	g.key = longkey;
	memset(&g.rc, 0, sizeof(g.rc));
	g.nrc = 0;
	run(&custom_tool);
	ck_assert_int_eq(g.rc[0], WYMCP_ERR_INVAL);
	longkey[128] = '\0';
	run(&custom_tool);
	asked(longkey, "elicitation/create");
	g.key = "";
	run(&custom_tool);
	ck_assert_int_eq(g.rc[1], WYMCP_ERR_INVAL);
	g.key = "a\nb";
	run(&custom_tool);
	ck_assert_int_eq(g.rc[2], WYMCP_ERR_INVAL);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
}
END_TEST

START_TEST(batch_collects_several_questions_then_flush_ends_the_round)
{
	struct json_object	*req, *m;
	const char		*keys[] = { "elicit-1", "sample-2",
				    "roots-3" };
	const char		*methods[] = { "elicitation/create",
				    "sampling/createMessage", "roots/list" };
	size_t			 i;

	build(META_ALL, NULL);
	run(&batch_tool);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INPUT_REQUIRED);
	ck_assert_int_eq(json_object_object_length(r.input_requests), 3);
	for (i = 0; i < 3; i++) {
		ck_assert(json_object_object_get_ex(r.input_requests, keys[i],
		    &req));
		ck_assert(json_object_object_get_ex(req, "method", &m));
		ck_assert_str_eq(json_object_get_string(m), methods[i]);
		/* Collected, not answered: the call went on. */
		ck_assert_int_eq(g.rc[i], WYMCP_ERR_PENDING);
		ck_assert_int_eq(g.null_answer[i], 1);
	}
	/* The flush ended the round: it never returned. */
	ck_assert_int_eq(g.nrc, 3);
	ck_assert_int_eq(g.after, 0);

	/* One answer: the other two are asked again, together. */
	memset(&g, 0, sizeof(g));
	answer("sample-2", SAMPLE);
	run(&batch_tool);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INPUT_REQUIRED);
	ck_assert_int_eq(json_object_object_length(r.input_requests), 2);
	ck_assert(!json_object_object_get_ex(r.input_requests, "sample-2",
	    NULL));
	ck_assert_int_eq(g.rc[1], WYMCP_OK);
	ck_assert_int_eq(g.null_answer[1], 0);

	memset(&g, 0, sizeof(g));
	answer("elicit-1", ALICE);
	answer("roots-3", ROOTS);
	run(&batch_tool);
	completed("all answered");
	ck_assert_int_eq(g.nrc, 4);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(g.rc[i], WYMCP_OK);
}
END_TEST

START_TEST(flat_schema_required)
{
	const char	*bad[] = {
		"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
		    "\"object\",\"properties\":{\"b\":{\"type\":"
		    "\"string\"}}}}}",
		"{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":"
		    "\"#/$defs/x\"}},\"$defs\":{\"x\":{\"type\":\"string\"}}}",
		"{\"type\":\"string\"}",
		"[{\"type\":\"object\"}]",
		"\"object\"",
		"{\"properties\":{\"a\":{\"type\":\"string\"}}}",
		"{\"type\":\"object\"}",
		"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
		    "\"array\",\"items\":{\"type\":\"object\"}}}}",
		"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
		    "\"string\"}},\"required\":[\"b\"]}",
		"{\"type\":\"object\",\"properties\":{\"a\":{}}}",
		"{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
		    "\"null\"}}}",
		"{not json",
		"",
		NULL,
	};
	size_t		 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&g, 0, sizeof(g));
		g.schema = bad[i];
		build(META_ELICIT, NULL);
		run(&schema_tool);
		/* Nothing was asked: the tool saw the error and returned. */
		ck_assert_msg(g.rc[0] == WYMCP_ERR_SCHEMA, "schema %zu: %d",
		    i, g.rc[0]);
		ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
		ck_assert_ptr_null(r.input_requests);
		ck_assert_int_eq(g.null_answer[0], 1);
	}

	/* Flat forms are asked: primitives and multi-select enums. */
	memset(&g, 0, sizeof(g));
	g.schema = "{\"type\":\"object\",\"properties\":{"
	    "\"s\":{\"type\":\"string\",\"format\":\"email\"},"
	    "\"n\":{\"type\":\"number\",\"minimum\":0},"
	    "\"i\":{\"type\":\"integer\"},\"b\":{\"type\":\"boolean\"},"
	    "\"e\":{\"type\":\"string\",\"enum\":[\"x\",\"y\"]},"
	    "\"m\":{\"type\":\"array\",\"items\":{\"type\":\"string\","
	    "\"enum\":[\"p\",\"q\"]}}},\"required\":[\"s\"]}";
	build(META_ELICIT, NULL);
	run(&schema_tool);
	asked("elicit-1", "elicitation/create");
}
END_TEST

START_TEST(accepted_content_not_matching_schema_is_invalid)
{
	const char	*bad[] = {
		"{\"action\":\"accept\",\"content\":{\"name\":42}}",
		"{\"action\":\"accept\",\"content\":{}}",
		"{\"action\":\"accept\",\"content\":{\"nom\":\"Alice\"}}",
	};
	size_t		 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&g, 0, sizeof(g));
		build(META_ELICIT, NULL);
		answer("elicit-1", bad[i]);
		run(&greet_tool);
		ck_assert_int_eq(r.kind, WYMCP_TESTING_INVALID);
		ck_assert_ptr_nonnull(r.error);
		ck_assert_msg(strstr(r.error, "elicit-1") != NULL, "%s",
		    r.error);
		/* It never reached the tool. */
		ck_assert_int_eq(g.nrc, 0);
		ck_assert_int_eq(g.after, 0);
		ck_assert_ptr_null(r.result);
	}
	/* Corrected, the same context completes. */
	answer("elicit-1", ALICE);
	run(&greet_tool);
	completed("Hello, Alice!");
}
END_TEST

START_TEST(accept_without_content_is_invalid)
{
	const char	*bad[] = {
		"{\"action\":\"accept\"}",
		"{\"action\":\"accept\",\"content\":\"Alice\"}",
		"{\"action\":\"accept\",\"content\":[\"Alice\"]}",
		"{\"action\":\"accept\",\"content\":null}",
	};
	size_t		 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&g, 0, sizeof(g));
		build(META_ELICIT, NULL);
		answer("elicit-1", bad[i]);
		run(&greet_tool);
		ck_assert_int_eq(r.kind, WYMCP_TESTING_INVALID);
		ck_assert_ptr_nonnull(r.error);
		ck_assert(strstr(r.error, "elicit-1") != NULL);
		ck_assert_int_eq(g.nrc, 0);
	}
}
END_TEST

START_TEST(bad_action_is_invalid)
{
	const char	*bad[] = {
		"{\"action\":\"maybe\",\"content\":{\"name\":\"A\"}}",
		"{\"content\":{\"name\":\"A\"}}",
		"{\"action\":1}",
		"{\"action\":null}",
		"{\"action\":\"ACCEPT\",\"content\":{\"name\":\"A\"}}",
		"{}",
	};
	size_t		 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&g, 0, sizeof(g));
		build(META_ELICIT, NULL);
		answer("elicit-1", bad[i]);
		run(&greet_tool);
		ck_assert_msg(r.kind == WYMCP_TESTING_INVALID, "answer %zu", i);
		ck_assert(strstr(r.error, "elicit-1") != NULL);
		ck_assert(strstr(r.error, "action") != NULL);
		ck_assert_int_eq(g.nrc, 0);
	}
}
END_TEST

START_TEST(cleanup_hooks_run_on_unwind)
{
	build(META_ELICIT, NULL);
	ck_assert_int_eq(wymcp_defer(ctx, hook, &g.outside), WYMCP_OK);
	run(&defer_tool);
	asked("elicit-1", "elicitation/create");
	/* The round ended: the hook of the run ran, once, already. */
	ck_assert_int_eq(g.deferred, 1);
	/* One registered outside the run waits for the request's end. */
	ck_assert_int_eq(g.outside, 0);
	answer("elicit-1", ALICE);
	run(&defer_tool);
	completed("done");
	ck_assert_int_eq(g.deferred, 2);
	ck_assert_int_eq(g.outside, 0);
	wymcp_testing_free_context(ctx);
	ctx = NULL;
	/* Not again when the request ends. */
	ck_assert_int_eq(g.deferred, 2);
	ck_assert_int_eq(g.outside, 1);
}
END_TEST

START_TEST(cleanup_hooks_run_when_an_answer_is_refused)
{
	build(META_ELICIT, NULL);
	answer("elicit-1", "{\"action\":\"nope\"}");
	run(&defer_tool);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INVALID);
	ck_assert_int_eq(g.deferred, 1);
	wymcp_testing_free_context(ctx);
	ctx = NULL;
	ck_assert_int_eq(g.deferred, 1);
}
END_TEST

START_TEST(elicit_from_a_cleanup_hook_is_an_error)
{
	build(META_ELICIT, NULL);
	run(&hook_tool);
	asked("elicit-1", "elicitation/create");
	/* The hook ran when the round ended, outside the run. */
	ck_assert_int_eq(g.deferred, 1);
	ck_assert_int_eq(g.nrc, 1);
	ck_assert_int_eq(g.rc[0], WYMCP_ERR_NORUN);
	ck_assert_int_eq(g.null_answer[0], 1);
}
END_TEST

START_TEST(only_a_question_that_passes_the_checks_takes_a_number)
{
	build(CAPS_META("{\"elicitation\":{},\"roots\":{}}"),
	    "{\"mine\":" ALICE "}");
	/* The key asked twice is a misuse the testing library fails. */
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, &numbering_tool, NULL,
	    &r), WYMCP_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(wymcp_testing_errmsg(),
	    "question key 'mine' asked twice in one run"));
	ck_assert_int_eq(g.rc[0], WYMCP_ERR_SCHEMA);
	ck_assert_int_eq(g.rc[1], WYMCP_ERR_NOTSUP);
	ck_assert_int_eq(g.rc[2], WYMCP_ERR_INVAL);
	ck_assert_int_eq(g.rc[3], WYMCP_ERR_INVAL);
	ck_assert_int_eq(g.rc[4], WYMCP_OK);
	ck_assert_int_eq(g.rc[5], WYMCP_OK);
	ck_assert_ptr_nonnull(g.same);
	ck_assert_int_eq(g.nrc, 6);
	/* Errors and chosen keys took no number: roots is the first. */
	asked("roots-1", "roots/list");
	answer("roots-1", ROOTS);
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, &numbering_tool, NULL,
	    &r), WYMCP_ERR_INVAL);
	completed("numbered");
}
END_TEST

START_TEST(bad_arguments_are_invalid)
{
	build(META_ALL, NULL);
	run(&badargs_tool);
	completed("checked");
	ck_assert_int_eq(g.nrc, 9);
	ck_assert_int_eq(g.rc[0], WYMCP_ERR_INVAL);
	/* *answer is cleared even when the call is refused. */
	ck_assert_int_eq(g.null_answer[0], 1);
	ck_assert_int_eq(g.rc[1], WYMCP_ERR_INVAL);
	ck_assert_int_eq(g.rc[2], WYMCP_ERR_INVAL);
	ck_assert_int_eq(g.rc[3], WYMCP_ERR_INVAL);
	ck_assert_int_eq(g.rc[4], WYMCP_ERR_INVAL);
	ck_assert_int_eq(g.rc[5], WYMCP_ERR_INVAL);
	ck_assert_int_eq(g.rc[6], WYMCP_ERR_INVAL);
	ck_assert_int_eq(g.rc[7], WYMCP_ERR_INVAL);
	ck_assert_int_eq(g.rc[8], WYMCP_ERR_INVAL);
}
END_TEST

START_TEST(answer_action_and_content)
{
	struct json_object	*a;

	ck_assert_ptr_null(wymcp_answer_action(NULL));
	ck_assert_ptr_null(wymcp_answer_content(NULL));
	a = json_tokener_parse(ALICE);
	ck_assert_str_eq(wymcp_answer_action(a), "accept");
	ck_assert_str_eq(json_object_get_string(json_object_object_get(
	    wymcp_answer_content(a), "name")), "Alice");
	json_object_put(a);
	a = json_tokener_parse("{\"action\":\"decline\",\"content\":"
	    "{\"name\":\"A\"}}");
	ck_assert_str_eq(wymcp_answer_action(a), "decline");
	ck_assert_ptr_null(wymcp_answer_content(a));
	json_object_put(a);
	a = json_tokener_parse("{\"action\":1}");
	ck_assert_ptr_null(wymcp_answer_action(a));
	json_object_put(a);
	a = json_tokener_parse("{\"action\":\"accept\",\"content\":[]}");
	ck_assert_ptr_null(wymcp_answer_content(a));
	json_object_put(a);
}
END_TEST

START_TEST(in_a_batch_an_answer_that_does_not_fit_fails_at_once)
{
	build(META_ALL, "{\"elicit-1\":{\"action\":\"accept\","
	    "\"content\":{\"name\":1}}}");
	run(&batch_tool);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INVALID);
	ck_assert(strstr(r.error, "elicit-1") != NULL);
	ck_assert_int_eq(g.nrc, 0);
	ck_assert_ptr_null(r.input_requests);
}
END_TEST

/* The wire. */

static struct wymcp_server	*srv;
static struct h_resp		 resp;
static int			 nbooked, npurged, nreused;

static void
logfn(void *arg, int prio, const char *reqid, const char *msg)
{
	if (strstr(msg, "booked") != NULL)
		nbooked++;
	if (strstr(msg, "cache purged") != NULL)
		npurged++;
	if (prio == WYMCP_LOG_WARNING && strstr(msg, "reuse: question key "
	    "'room' reused for another question ('Which day?' after 'Which "
	    "room?')") != NULL)
		nreused++;
}

static void
wire_setup(void)
{
	setup();
	memset(&resp, 0, sizeof(resp));
	nbooked = npurged = nreused = 0;
	srv = wymcp_server_new();
	ck_assert_ptr_nonnull(srv);
	ck_assert_int_eq(wymcp_server_add_module(srv, &wire_mod), WYMCP_OK);
	wymcp_server_set_log(srv, logfn, NULL, WYMCP_LOG_DEBUG);
}

static void
wire_teardown(void)
{
	h_free(&resp);
	wymcp_server_free(srv);
	srv = NULL;
	teardown();
}

/*
 * tools/call `tool` with `meta`, `args` (NULL: none), `responses` as
 * inputResponses (JSON text; NULL: absent) and `state` as requestState
 * (NULL: absent).  `more` is JSON object text merged into params.
 */
static void
callx(const char *meta, const char *tool, const char *args,
    const char *responses, const char *state, const char *more)
{
	struct json_object	*p, *m;

	h_free(&resp);
	p = json_object_new_object();
	json_object_object_add(p, "_meta", json_tokener_parse(meta));
	json_object_object_add(p, "name", json_object_new_string(tool));
	if (args != NULL)
		json_object_object_add(p, "arguments",
		    json_tokener_parse(args));
	if (responses != NULL)
		json_object_object_add(p, "inputResponses",
		    json_tokener_parse(responses));
	if (state != NULL)
		json_object_object_add(p, "requestState",
		    json_object_new_string(state));
	if (more != NULL) {
		m = json_tokener_parse(more);
		ck_assert_ptr_nonnull(m);
		json_object_object_foreach(m, k, v)
			json_object_object_add(p, k, json_object_get(v));
		json_object_put(m);
	}
	ck_assert_int_eq(h_call(srv, "tools/call", tool,
	    json_object_to_json_string_ext(p, JSON_C_TO_STRING_PLAIN), NULL,
	    &resp), WYMCP_OK);
	json_object_put(p);
	ck_assert_ptr_nonnull(resp.json);
}

static void
call(const char *tool, const char *responses, const char *state)
{
	callx(META_ALL, tool, NULL, responses, state, NULL);
}

static const char *
member(struct json_object *o, const char *k)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(o, k, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static const char *
result_type(void)
{
	return member(h_result(&resp), "resultType");
}

static const char *
error_message(void)
{
	struct json_object	*e;

	if (!json_object_object_get_ex(resp.json, "error", &e))
		return NULL;
	return member(e, "message");
}

/* The response is input_required for exactly `key`; save its state. */
static void
wire_asked(const char *key, char *state, size_t statesz)
{
	struct json_object	*ir;
	const char		*s;

	ck_assert_int_eq(resp.status, 200);
	ck_assert_int_eq(h_code(&resp), 0);
	ck_assert_ptr_nonnull(result_type());
	ck_assert_str_eq(result_type(), "input_required");
	ck_assert(json_object_object_get_ex(h_result(&resp), "inputRequests",
	    &ir));
	ck_assert_int_eq(json_object_object_length(ir), 1);
	ck_assert(json_object_object_get_ex(ir, key, NULL));
	s = member(h_result(&resp), "requestState");
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_lt(strlen(s), statesz);
	snprintf(state, statesz, "%s", s);
}

static void
wire_completed(const char *text)
{
	ck_assert_int_eq(resp.status, 200);
	ck_assert_int_eq(h_code(&resp), 0);
	ck_assert_ptr_nonnull(result_type());
	ck_assert_str_eq(result_type(), "complete");
	ck_assert_ptr_nonnull(h_text(&resp));
	ck_assert_str_eq(h_text(&resp), text);
}

/* A -32602 error response naming `needle` (NULL: any). */
static void
wire_invalid(const char *needle)
{
	ck_assert_int_eq(h_code(&resp), -32602);
	ck_assert_ptr_null(h_result(&resp));
	ck_assert_ptr_nonnull(error_message());
	if (needle != NULL)
		ck_assert_msg(strstr(error_message(), needle) != NULL, "%s",
		    error_message());
}

/* Two questions of one batch under one key. */
static enum wymcp_err
reuse_run(struct wymcp_ctx *c, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*s, *a1, *a2;
	enum wymcp_err		 rc;

	s = wymcp_own(c, json_tokener_parse(NAME_SCHEMA));
	if ((rc = wymcp_input_batch(c)) != WYMCP_OK)
		return rc;
	(void)wymcp_elicit_key(c, "room", "Which room?", s, &a1);
	(void)wymcp_elicit_key(c, "room", "Which day?", s, &a2);
	if ((rc = wymcp_input_flush(c)) != WYMCP_OK)
		return rc;
	return wymcp_result_text(res, "done");
}

/*
 * A key reused for another question: the wire asks the first one only,
 * and says so in the log, as a warning.
 */
START_TEST(wire_question_key_reused_is_a_warning)
{
	static const struct wymcp_tool tab[] = {
		{ .name = "reuse", .description = "Reuses a key.",
		    .input_schema = "{\"type\":\"object\"}", .run = reuse_run }
	};
	static const struct wymcp_module mod = {
		.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
		.name = "reuse", WYMCP_TOOLS(tab),
		.tool_size = sizeof(struct wymcp_tool)
	};
	struct json_object	*ir;

	ck_assert_int_eq(wymcp_server_add_module(srv, &mod), WYMCP_OK);
	call("reuse", NULL, NULL);
	ck_assert_msg(json_object_object_get_ex(h_result(&resp),
	    "inputRequests", &ir), "%s", resp.body);
	ck_assert_int_eq(json_object_object_length(ir), 1);
	ck_assert_str_eq(member(h_jp(ir, "room", "params", NULL), "message"),
	    "Which room?");
	ck_assert_int_eq(nreused, 1);
}
END_TEST

START_TEST(wire_input_required_result_shape)
{
	struct json_object	*res, *ir, *req, *p, *v, *meta;
	char			 st[4096];

	call("greet", NULL, NULL);
	wire_asked("elicit-1", st, sizeof(st));
	ck_assert_uint_gt(strlen(st), 0);
	res = h_result(&resp);
	ck_assert(json_object_object_get_ex(res, "inputRequests", &ir));
	ck_assert(json_object_object_get_ex(ir, "elicit-1", &req));
	ck_assert_str_eq(member(req, "method"), "elicitation/create");
	ck_assert(json_object_object_get_ex(req, "params", &p));
	ck_assert_str_eq(member(p, "mode"), "form");
	ck_assert_str_eq(member(p, "message"), "What is your name?");
	ck_assert(json_object_object_get_ex(p, "requestedSchema", &v));
	ck_assert_str_eq(json_object_to_json_string_ext(v,
	    JSON_C_TO_STRING_PLAIN), NAME_SCHEMA);
	ck_assert(json_object_object_get_ex(res, "_meta", &meta));
	ck_assert(json_object_object_get_ex(meta,
	    "io.modelcontextprotocol/serverInfo", &v));
	ck_assert_str_eq(member(v, "name"), "wymcp");
	/* Not cacheable, and no content. */
	ck_assert(!json_object_object_get_ex(res, "ttlMs", NULL));
	ck_assert(!json_object_object_get_ex(res, "cacheScope", NULL));
	ck_assert(!json_object_object_get_ex(res, "content", NULL));
	ck_assert(!json_object_object_get_ex(res, "isError", NULL));
	ck_assert_int_eq(json_object_object_length(res), 4);
	ck_assert_int_eq(g.nanswers[0], 0);
	ck_assert_int_eq(g.after, 0);
}
END_TEST

START_TEST(wire_answer_completes_the_call)
{
	char	 st[4096];

	call("greet", NULL, NULL);
	wire_asked("elicit-1", st, sizeof(st));
	call("greet", "{\"elicit-1\":" ALICE "}", st);
	wire_completed("Hello, Alice!");
	ck_assert_int_eq(g.runs, 2);
	ck_assert_int_eq(g.after, 1);
	ck_assert_int_eq(g.nanswers[1], 1);
}
END_TEST

/*
 * A first round has no answers (issue 32 item 5): inputResponses
 * without a requestState are ignored, whatever they answer, and the
 * tool asks its first question; only the state's questions take
 * answers.
 */
START_TEST(wire_first_round_has_no_answers)
{
	char	 st[4096];

	call("greet", "{\"elicit-1\":" BOB "}", NULL);
	wire_asked("elicit-1", st, sizeof(st));
	ck_assert_int_eq(g.nanswers[0], 0);
	ck_assert_int_eq(g.after, 0);
	call("two", "{\"elicit-1\":" ALICE ",\"elicit-2\":" BLUE "}", NULL);
	wire_asked("elicit-1", st, sizeof(st));
	ck_assert_int_eq(g.after, 0);
	/* The state asked elicit-1: elicit-2 sent ahead is not taken. */
	call("two", "{\"elicit-1\":" ALICE ",\"elicit-2\":" BLUE "}", st);
	wire_asked("elicit-2", st, sizeof(st));
	ck_assert_int_eq(g.after, 0);
	call("two", "{\"elicit-2\":" BLUE "}", st);
	wire_completed("Alice likes blue");
}
END_TEST

START_TEST(wire_input_responses_must_be_an_object_of_objects)
{
	const char	*bad[] = {
		"[]", "\"x\"", "12", "true", "null",
		"{\"elicit-1\":12345}",
		"{\"elicit-1\":" ALICE ",\"other\":\"x\"}",
		"{\"elicit-1\":null}",
		"{\"elicit-1\":[" ALICE "]}",
	};
	size_t		 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		call("greet", bad[i], NULL);
		wire_invalid("inputResponses");
		ck_assert_int_eq(resp.status, 200);
		ck_assert_int_eq(g.runs, 0);
	}
	/* The error echoes the request id. */
	ck_assert(json_object_object_get_ex(resp.json, "id", NULL));
	ck_assert_int_eq(json_object_get_int(json_object_object_get(resp.json,
	    "id")), 1);
}
END_TEST

START_TEST(wire_request_state_must_be_a_string)
{
	callx(META_ALL, "greet", NULL, "{\"elicit-1\":" ALICE "}", NULL,
	    "{\"requestState\":42}");
	wire_invalid("requestState");
	callx(META_ALL, "greet", NULL, NULL, NULL, "{\"requestState\":null}");
	wire_invalid("requestState");
	ck_assert_int_eq(g.runs, 0);
}
END_TEST

START_TEST(wire_extra_input_response_keys_are_ignored)
{
	char	 st[4096];

	call("greet", NULL, NULL);
	wire_asked("elicit-1", st, sizeof(st));
	call("greet", "{\"elicit-1\":" ALICE ",\"unknown_extra_key\":"
	    "{\"action\":\"accept\",\"content\":{\"foo\":\"bar\"}},"
	    "\"another_unexpected\":{\"action\":\"accept\",\"content\":"
	    "{\"baz\":123}}}", st);
	wire_completed("Hello, Alice!");
	ck_assert_int_eq(g.runs, 2);
	ck_assert_int_eq(g.nanswers[1], 1);
}
END_TEST

START_TEST(wire_missing_answer_is_asked_again)
{
	char	 st[4096];

	call("greet", "{\"wrong_key\":{\"action\":\"accept\",\"content\":"
	    "{\"data\":\"wrong\"}}}", NULL);
	wire_asked("elicit-1", st, sizeof(st));
	call("greet", "{}", NULL);
	wire_asked("elicit-1", st, sizeof(st));
	call("two", "{\"elicit-2\":" BLUE "}", NULL);
	wire_asked("elicit-1", st, sizeof(st));
	ck_assert_int_eq(g.after, 0);
}
END_TEST

START_TEST(wire_answers_sealed_in_request_state_carry_over)
{
	char	 s1[4096], s2[4096], s1b[4096];

	call("two", NULL, NULL);
	wire_asked("elicit-1", s1, sizeof(s1));
	call("two", "{\"elicit-1\":" ALICE "}", s1);
	wire_asked("elicit-2", s2, sizeof(s2));
	/* The state moves on with the call. */
	ck_assert_str_ne(s1, s2);
	/* Round 3 sends only its own answer. */
	call("two", "{\"elicit-2\":" BLUE "}", s2);
	wire_completed("Alice likes blue");
	ck_assert_int_eq(g.runs, 3);
	ck_assert_int_eq(g.after, 1);
	/* Without the state, the first answer is gone: asked again. */
	call("two", "{\"elicit-2\":" BLUE "}", NULL);
	wire_asked("elicit-1", s1b, sizeof(s1b));
	/* Two first rounds never share a state. */
	ck_assert_str_ne(s1, s1b);
}
END_TEST

/*
 * An answer to an earlier round's question, sent again with another
 * value, does not replace the sealed one: the state asked elicit-2
 * only (0.4 took Bob).
 */
START_TEST(wire_sealed_answers_are_not_answered_again)
{
	char	 s1[4096], s2[4096];

	call("two", NULL, NULL);
	wire_asked("elicit-1", s1, sizeof(s1));
	call("two", "{\"elicit-1\":" ALICE "}", s1);
	wire_asked("elicit-2", s2, sizeof(s2));
	call("two", "{\"elicit-1\":" BOB ",\"elicit-2\":" BLUE "}", s2);
	wire_completed("Alice likes blue");
}
END_TEST

START_TEST(wire_state_seals_only_answers_the_run_read)
{
	char	 s1[4096], s2[4096];

	call("two", NULL, NULL);
	wire_asked("elicit-1", s1, sizeof(s1));
	/* elicit-9 is asked by no one: no answer, not carried on. */
	call("two", "{\"elicit-1\":" ALICE ",\"elicit-9\":" BOB "}", s1);
	wire_asked("elicit-2", s2, sizeof(s2));
	ck_assert_int_eq(g.nanswers[1], 1);
	call("two", "{\"elicit-2\":" BLUE "}", s2);
	wire_completed("Alice likes blue");
	ck_assert_int_eq(g.nanswers[2], 2);
}
END_TEST

START_TEST(wire_a_decline_travels_in_the_state)
{
	char	 s1[4096], s2[4096];

	call("survey", NULL, NULL);
	wire_asked("elicit-1", s1, sizeof(s1));
	call("survey", "{\"elicit-1\":" DECLINE "}", s1);
	wire_asked("elicit-2", s2, sizeof(s2));
	call("survey", "{\"elicit-2\":" BLUE "}", s2);
	wire_completed("q1=decline q2=accept");
	ck_assert_int_eq(g.runs, 3);
	ck_assert_int_eq(g.after, 1);
}
END_TEST

START_TEST(wire_accepted_content_not_matching_schema_is_invalid)
{
	char	 st[4096];

	call("greet", NULL, NULL);
	wire_asked("elicit-1", st, sizeof(st));
	call("greet", "{\"elicit-1\":{\"action\":\"accept\",\"content\":"
	    "{\"name\":42}}}", st);
	wire_invalid("elicit-1");
	ck_assert_int_eq(resp.status, 200);
	ck_assert_int_eq(g.after, 0);
	call("greet", "{\"elicit-1\":{\"action\":\"accept\"}}", st);
	wire_invalid("elicit-1");
	call("greet", "{\"elicit-1\":{\"action\":\"maybe\"}}", st);
	wire_invalid("elicit-1");
	ck_assert_int_eq(g.after, 0);
	ck_assert_int_eq(g.nrc, 0);
}
END_TEST

START_TEST(wire_decline_and_cancel_complete_without_asking_again)
{
	char	 st[4096];

	call("greet", NULL, NULL);
	wire_asked("elicit-1", st, sizeof(st));
	call("greet", "{\"elicit-1\":" DECLINE "}", st);
	wire_completed("action: decline");
	call("greet", "{\"elicit-1\":" CANCEL "}", st);
	wire_completed("action: cancel");
	ck_assert_int_eq(g.runs, 3);
}
END_TEST

START_TEST(wire_batch_asks_three_questions_in_one_input_required)
{
	struct json_object	*ir;
	const char		*st;
	char			 s1[4096];

	call("batch", NULL, NULL);
	ck_assert_str_eq(result_type(), "input_required");
	ck_assert(json_object_object_get_ex(h_result(&resp), "inputRequests",
	    &ir));
	ck_assert_int_eq(json_object_object_length(ir), 3);
	ck_assert_str_eq(member(json_object_object_get(ir, "elicit-1"),
	    "method"), "elicitation/create");
	ck_assert_str_eq(member(json_object_object_get(ir, "sample-2"),
	    "method"), "sampling/createMessage");
	ck_assert_str_eq(member(json_object_object_get(ir, "roots-3"),
	    "method"), "roots/list");
	st = member(h_result(&resp), "requestState");
	ck_assert_ptr_nonnull(st);
	snprintf(s1, sizeof(s1), "%s", st);
	call("batch", "{\"elicit-1\":" ALICE ",\"sample-2\":" SAMPLE
	    ",\"roots-3\":" ROOTS "}", s1);
	wire_completed("all answered");
}
END_TEST

START_TEST(wire_without_capability_the_tool_hears_not_supported)
{
	callx(META_NONE, "greet", NULL, "{\"elicit-1\":" ALICE "}", NULL,
	    NULL);
	ck_assert_str_eq(result_type(), "complete");
	ck_assert_str_eq(h_text(&resp), "not supported");
	ck_assert(json_object_get_boolean(json_object_object_get(
	    h_result(&resp), "isError")));
	ck_assert_int_eq(g.rc[0], WYMCP_ERR_NOTSUP);
	/* elicitation naming url alone is not form elicitation. */
	callx(META_URL, "greet", NULL, NULL, NULL, NULL);
	ck_assert_str_eq(result_type(), "complete");
	ck_assert_int_eq(g.rc[1], WYMCP_ERR_NOTSUP);
}
END_TEST

START_TEST(wire_cleanup_hooks_run_on_unwind)
{
	char	 st[4096];

	call("defer", NULL, NULL);
	wire_asked("elicit-1", st, sizeof(st));
	ck_assert_int_eq(g.deferred, 1);
	call("defer", "{\"elicit-1\":" ALICE "}", st);
	wire_completed("done");
	ck_assert_int_eq(g.deferred, 2);
	call("defer", "{\"elicit-1\":{\"action\":\"x\"}}", st);
	wire_invalid("elicit-1");
	ck_assert_int_eq(g.deferred, 3);
}
END_TEST

/* The examples module, loaded as wymcp-fcgi loads it. */
static void
load_examples(void)
{
	char		 path[1024];
	const char	*b = getenv("top_builddir");

	snprintf(path, sizeof(path), "%s/tools/.libs/examples.so",
	    b != NULL ? b : ".");
	ck_assert_msg(wymcp_server_load_module(srv, path) == WYMCP_OK, "%s",
	    wymcp_server_errmsg(srv));
}

START_TEST(examples_book_room_three_rounds_books_once)
{
	char	 s1[4096], s2[4096];
	const char *args = "{\"day\":\"2026-12-01\"}";

	load_examples();
	callx(META_ELICIT, "book_room", args, NULL, NULL, NULL);
	wire_asked("elicit-1", s1, sizeof(s1));
	ck_assert_int_eq(nbooked, 0);
	callx(META_ELICIT, "book_room", args,
	    "{\"elicit-1\":{\"action\":\"accept\",\"content\":"
	    "{\"room\":\"Aurora\"}}}", s1, NULL);
	wire_asked("elicit-2", s2, sizeof(s2));
	ck_assert_int_eq(nbooked, 0);
	callx(META_ELICIT, "book_room", args,
	    "{\"elicit-2\":{\"action\":\"accept\",\"content\":"
	    "{\"people\":4}}}", s2, NULL);
	wire_completed("Booked Aurora for 4 on 2026-12-01.");
	ck_assert_int_eq(nbooked, 1);
	/* A room outside the enum never reaches the tool. */
	callx(META_ELICIT, "book_room", args,
	    "{\"elicit-1\":{\"action\":\"accept\",\"content\":"
	    "{\"room\":\"Basement\"}}}", s1, NULL);
	wire_invalid("elicit-1");
	callx(META_ELICIT, "book_room", args,
	    "{\"elicit-2\":{\"action\":\"accept\",\"content\":"
	    "{\"people\":40}}}", s2, NULL);
	wire_invalid("elicit-2");
	ck_assert_int_eq(nbooked, 1);
}
END_TEST

START_TEST(examples_purge_cache_decline_and_cancel)
{
	char	 st[4096];

	load_examples();
	callx(META_ELICIT, "purge_cache", "{}", NULL, NULL, NULL);
	wire_asked("elicit-1", st, sizeof(st));
	callx(META_ELICIT, "purge_cache", "{}",
	    "{\"elicit-1\":" DECLINE "}", st, NULL);
	wire_completed("You declined; the cache was left alone.");
	callx(META_ELICIT, "purge_cache", "{}",
	    "{\"elicit-1\":" CANCEL "}", st, NULL);
	wire_completed("Cancelled; the cache was left alone.");
	ck_assert_int_eq(npurged, 0);
	callx(META_ELICIT, "purge_cache", "{}",
	    "{\"elicit-1\":{\"action\":\"accept\",\"content\":"
	    "{\"confirm\":true}}}", st, NULL);
	wire_completed("Cache purged.");
	ck_assert_int_eq(npurged, 1);
	/* Without the capability it refuses, and asks nothing. */
	callx(META_NONE, "purge_cache", "{}", NULL, NULL, NULL);
	ck_assert_str_eq(result_type(), "complete");
	ck_assert(json_object_get_boolean(json_object_object_get(
	    h_result(&resp), "isError")));
	ck_assert_int_eq(npurged, 1);
}
END_TEST

static Suite *
elicit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("elicit");
	tc = tcase_create("testing");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, first_round_has_empty_answers);
	tcase_add_test(tc, preset_elicit_1_answers_at_once);
	tcase_add_test(tc,
	    without_capability_elicit_is_not_supported_and_never_reads_answers);
	tcase_add_test(tc, form_capability_declared_three_ways);
	tcase_add_test(tc, capability_check_comes_first);
	tcase_add_test(tc, elicit_outside_a_run_is_an_error);
	tcase_add_test(tc, a_finished_run_leaves_no_run_open);
	tcase_add_test(tc, elicit_from_another_thread_is_an_error);
	tcase_add_test(tc,
	    elicit_from_another_thread_touches_nothing_of_the_request);
	tcase_add_test(tc, decline_and_cancel_are_answers_never_reasked);
	tcase_add_test(tc, two_questions_three_runs);
	tcase_add_test(tc,
	    work_before_an_elicit_repeats_each_round_after_the_last_once);
	tcase_add_test(tc, keys_are_positional_elicit_1_elicit_2);
	tcase_add_test(tc, sample_and_roots_numbering_shares_the_counter);
	tcase_add_test(tc, sample_and_roots_gated_by_their_capabilities);
	tcase_add_test(tc, custom_key);
	tcase_add_test(tc,
	    batch_collects_several_questions_then_flush_ends_the_round);
	tcase_add_test(tc, flat_schema_required);
	tcase_add_test(tc, accepted_content_not_matching_schema_is_invalid);
	tcase_add_test(tc, accept_without_content_is_invalid);
	tcase_add_test(tc, bad_action_is_invalid);
	tcase_add_test(tc, cleanup_hooks_run_on_unwind);
	tcase_add_test(tc, cleanup_hooks_run_when_an_answer_is_refused);
	tcase_add_test(tc, elicit_from_a_cleanup_hook_is_an_error);
	tcase_add_test(tc,
	    only_a_question_that_passes_the_checks_takes_a_number);
	tcase_add_test(tc, bad_arguments_are_invalid);
	tcase_add_test(tc, answer_action_and_content);
	tcase_add_test(tc,
	    in_a_batch_an_answer_that_does_not_fit_fails_at_once);
	suite_add_tcase(s, tc);

	tc = tcase_create("wire");
	tcase_add_test(tc, wire_question_key_reused_is_a_warning);
	tcase_add_checked_fixture(tc, wire_setup, wire_teardown);
	tcase_add_test(tc, wire_input_required_result_shape);
	tcase_add_test(tc, wire_answer_completes_the_call);
	tcase_add_test(tc, wire_first_round_has_no_answers);
	tcase_add_test(tc, wire_input_responses_must_be_an_object_of_objects);
	tcase_add_test(tc, wire_request_state_must_be_a_string);
	tcase_add_test(tc, wire_extra_input_response_keys_are_ignored);
	tcase_add_test(tc, wire_missing_answer_is_asked_again);
	tcase_add_test(tc, wire_answers_sealed_in_request_state_carry_over);
	tcase_add_test(tc, wire_sealed_answers_are_not_answered_again);
	tcase_add_test(tc, wire_state_seals_only_answers_the_run_read);
	tcase_add_test(tc, wire_a_decline_travels_in_the_state);
	tcase_add_test(tc,
	    wire_accepted_content_not_matching_schema_is_invalid);
	tcase_add_test(tc,
	    wire_decline_and_cancel_complete_without_asking_again);
	tcase_add_test(tc,
	    wire_batch_asks_three_questions_in_one_input_required);
	tcase_add_test(tc,
	    wire_without_capability_the_tool_hears_not_supported);
	tcase_add_test(tc, wire_cleanup_hooks_run_on_unwind);
	tcase_add_test(tc, examples_book_room_three_rounds_books_once);
	tcase_add_test(tc, examples_purge_cache_decline_and_cancel);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	sr = srunner_create(elicit_suite());
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
