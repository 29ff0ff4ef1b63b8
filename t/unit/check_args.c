/*
 * check_args.c - the short way to write a tool (src/core/args.c):
 * the wymcp_arg_* readers, WYMCP_JSON() and wymcp_result_text()
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdbool.h>		/* defines true: WYMCP_JSON() must not mind */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "wymcp.h"
#include "wymcp_testing.h"

static struct json_object	*o;	/* the object read from */

static void
setup(void)
{
	o = NULL;
}

static void
teardown(void)
{
	json_object_put(o);
	o = NULL;
}

/* Parse the object the test reads from. */
static struct json_object *
obj(const char *text)
{
	json_object_put(o);
	o = json_tokener_parse(text);
	ck_assert_ptr_nonnull(o);
	return o;
}

/* Every member type, for the wrong-type cases. */
#define ALL_TYPES "{\"s\":\"3\",\"i\":3,\"d\":3.5,\"t\":true,\"f\":false," \
	"\"n\":null,\"o\":{\"s\":\"x\"},\"a\":[1]}"

/* ---------------------------------------------------------------- str */

START_TEST(str_defaults)
{
	static const char *const wrong[] = { "i", "d", "t", "n", "o", "a",
	    "absent" };
	size_t		 i;

	ck_assert_str_eq(wymcp_arg_str(NULL, "s", "def"), "def");
	ck_assert_ptr_null(wymcp_arg_str(NULL, "s", NULL));
	ck_assert_str_eq(wymcp_arg_str(obj("[\"s\"]"), "s", "def"), "def");
	ck_assert_str_eq(wymcp_arg_str(obj("\"s\""), "s", "def"), "def");
	obj(ALL_TYPES);
	ck_assert_str_eq(wymcp_arg_str(o, NULL, "def"), "def");
	for (i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++)
		ck_assert_str_eq(wymcp_arg_str(o, wrong[i], "def"), "def");
	ck_assert_ptr_null(wymcp_arg_str(o, "i", NULL));
}
END_TEST

START_TEST(str_values)
{
	struct json_object	*v;

	obj("{\"s\":\"h\\u00e9llo\",\"e\":\"\",\"o\":{\"s\":\"in\"}}");
	ck_assert_str_eq(wymcp_arg_str(o, "s", "def"), "h\xc3\xa9llo");
	ck_assert_str_eq(wymcp_arg_str(o, "e", "def"), "");
	/* Only the object's own members: no path. */
	ck_assert_str_eq(wymcp_arg_str(o, "o.s", "def"), "def");
	ck_assert(json_object_object_get_ex(o, "o", &v));
	ck_assert_str_eq(wymcp_arg_str(v, "s", "def"), "in");
	/* The string is the object's own: no copy. */
	ck_assert(json_object_object_get_ex(o, "s", &v));
	ck_assert_ptr_eq(wymcp_arg_str(o, "s", NULL),
	    json_object_get_string(v));
}
END_TEST

/* ---------------------------------------------------------------- int */

START_TEST(int_defaults)
{
	static const char *const wrong[] = { "s", "d", "t", "f", "n", "o",
	    "a", "absent" };
	size_t		 i;

	ck_assert_int_eq(wymcp_arg_int(NULL, "i", -7), -7);
	ck_assert_int_eq(wymcp_arg_int(obj("[3]"), "i", -7), -7);
	ck_assert_int_eq(wymcp_arg_int(obj("3"), "i", -7), -7);
	obj(ALL_TYPES);
	ck_assert_int_eq(wymcp_arg_int(o, NULL, -7), -7);
	for (i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++)
		ck_assert_int_eq(wymcp_arg_int(o, wrong[i], -7), -7);
}
END_TEST

START_TEST(int_values)
{
	obj("{\"zero\":0,\"p\":42,\"m\":-42,\"whole\":3.0,\"exp\":1e2,"
	    "\"negzero\":-0.0,\"half\":0.5,\"mhalf\":-2.5}");
	ck_assert_int_eq(wymcp_arg_int(o, "zero", -7), 0);
	ck_assert_int_eq(wymcp_arg_int(o, "p", -7), 42);
	ck_assert_int_eq(wymcp_arg_int(o, "m", -7), -42);
	/* What JSON Schema calls an integer, though json-c holds a double. */
	ck_assert_int_eq(wymcp_arg_int(o, "whole", -7), 3);
	ck_assert_int_eq(wymcp_arg_int(o, "exp", -7), 100);
	ck_assert_int_eq(wymcp_arg_int(o, "negzero", -7), 0);
	ck_assert_int_eq(wymcp_arg_int(o, "half", -7), -7);
	ck_assert_int_eq(wymcp_arg_int(o, "mhalf", -7), -7);
}
END_TEST

START_TEST(int_extremes)
{
	obj("{\"max\":9223372036854775807,\"min\":-9223372036854775808,"
	    "\"over\":9223372036854775808,\"umax\":18446744073709551615,"
	    "\"dmin\":-9223372036854775808.0,\"dover\":9223372036854775808.0,"
	    "\"dunder\":-9223372036854777856.0,\"huge\":1e300,"
	    "\"big\":9007199254740993.0}");
	ck_assert(wymcp_arg_int(o, "max", 0) == INT64_MAX);
	ck_assert(wymcp_arg_int(o, "min", 0) == INT64_MIN);
	/* json-c holds these as uint64: beyond int64, so the default. */
	ck_assert_int_eq(wymcp_arg_int(o, "over", -7), -7);
	ck_assert_int_eq(wymcp_arg_int(o, "umax", -7), -7);
	/* -2^63 is a double that fits; 2^63 and below -2^63 do not. */
	ck_assert(wymcp_arg_int(o, "dmin", 0) == INT64_MIN);
	ck_assert_int_eq(wymcp_arg_int(o, "dover", -7), -7);
	ck_assert_int_eq(wymcp_arg_int(o, "dunder", -7), -7);
	ck_assert_int_eq(wymcp_arg_int(o, "huge", -7), -7);
	/* Above 2^53 a double is integral: its value, rounded on parsing. */
	ck_assert(wymcp_arg_int(o, "big", 0) == INT64_C(9007199254740992));
	/* The default itself passes through unchanged. */
	ck_assert(wymcp_arg_int(o, "absent", INT64_MIN) == INT64_MIN);
	ck_assert(wymcp_arg_int(o, "absent", INT64_MAX) == INT64_MAX);
}
END_TEST

/* --------------------------------------------------------------- bool */

START_TEST(bool_defaults)
{
	static const char *const wrong[] = { "s", "i", "d", "n", "o", "a",
	    "absent", "zero", "one", "str" };
	size_t		 i;

	ck_assert_int_eq(wymcp_arg_bool(NULL, "t", 7), 7);
	ck_assert_int_eq(wymcp_arg_bool(obj("[true]"), "t", 7), 7);
	ck_assert_int_eq(wymcp_arg_bool(obj("true"), "t", 7), 7);
	/* 0, 1 and "true" are not booleans. */
	obj("{\"s\":\"3\",\"i\":3,\"d\":3.5,\"n\":null,\"o\":{},\"a\":[],"
	    "\"zero\":0,\"one\":1,\"str\":\"true\"}");
	ck_assert_int_eq(wymcp_arg_bool(o, NULL, 7), 7);
	for (i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++)
		ck_assert_int_eq(wymcp_arg_bool(o, wrong[i], 7), 7);
}
END_TEST

START_TEST(bool_values)
{
	obj(ALL_TYPES);
	ck_assert_int_eq(wymcp_arg_bool(o, "t", 7), 1);
	ck_assert_int_eq(wymcp_arg_bool(o, "f", 7), 0);
	ck_assert_int_eq(wymcp_arg_bool(o, "t", 0), 1);
	ck_assert_int_eq(wymcp_arg_bool(o, "f", 1), 0);
}
END_TEST

/* ---------------------------------------------------------------- num */

START_TEST(num_defaults)
{
	static const char *const wrong[] = { "s", "t", "f", "n", "o", "a",
	    "absent" };
	size_t		 i;

	ck_assert(wymcp_arg_num(NULL, "d", -0.25) == -0.25);
	ck_assert(wymcp_arg_num(obj("[1.5]"), "d", -0.25) == -0.25);
	ck_assert(wymcp_arg_num(obj("1.5"), "d", -0.25) == -0.25);
	obj(ALL_TYPES);
	ck_assert(wymcp_arg_num(o, NULL, -0.25) == -0.25);
	for (i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++)
		ck_assert(wymcp_arg_num(o, wrong[i], -0.25) == -0.25);
}
END_TEST

START_TEST(num_values)
{
	obj("{\"d\":1.5,\"i\":3,\"m\":-2,\"e\":-1e-3,"
	    "\"max\":9223372036854775807,\"umax\":18446744073709551615}");
	ck_assert(wymcp_arg_num(o, "d", 0) == 1.5);
	ck_assert(wymcp_arg_num(o, "i", 0) == 3.0);
	ck_assert(wymcp_arg_num(o, "m", 0) == -2.0);
	ck_assert(wymcp_arg_num(o, "e", 0) == -1e-3);
	ck_assert(wymcp_arg_num(o, "max", 0) == 9223372036854775807.0);
	ck_assert(wymcp_arg_num(o, "umax", 0) == 18446744073709551615.0);
}
END_TEST

/* ---------------------------------------------------------- WYMCP_JSON */

/* Does `text` parse to the same JSON as `want`? */
static void
ck_same_json(const char *text, const char *want)
{
	struct json_object	*a, *b;

	a = json_tokener_parse(text);
	b = json_tokener_parse(want);
	ck_assert_msg(a != NULL, "not JSON: %s", text);
	ck_assert_ptr_nonnull(b);
	ck_assert_msg(json_object_equal(a, b), "%s is not %s", text, want);
	/* Member order is kept, so a listing serializes as before. */
	ck_assert_str_eq(json_object_to_json_string_ext(a,
	    JSON_C_TO_STRING_PLAIN), json_object_to_json_string_ext(b,
	    JSON_C_TO_STRING_PLAIN));
	json_object_put(a);
	json_object_put(b);
}

START_TEST(json_is_the_text_as_written)
{
	const char	*s = WYMCP_JSON({ "type": "object", "properties":
	    { "name": { "type": "string" } }, "required": ["name"] });

	ck_assert_str_eq(s, "{ \"type\": \"object\", \"properties\": "
	    "{ \"name\": { \"type\": \"string\" } }, \"required\": "
	    "[\"name\"] }");
	ck_same_json(s, "{\"type\":\"object\",\"properties\":"
	    "{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}");
}
END_TEST

START_TEST(json_white_space_and_comments_collapse)
{
	const char	*s = WYMCP_JSON(   {	"a" :
	    [1,     2.5e1, -3],   /* a comment */ "b":{}
	}   );

	ck_assert_str_eq(s, "{ \"a\" : [1, 2.5e1, -3], \"b\":{} }");
	ck_same_json(s, "{\"a\":[1,2.5e1,-3],\"b\":{}}");
}
END_TEST

START_TEST(json_strings_are_kept)
{
	struct json_object	*v, *m;
	const char		*s = WYMCP_JSON({
	    "s": "a   b (( # ' \"q\" \t\\", "u": "\u00e9\/",
	    "url": "https://json-schema.org/x" });

	v = json_tokener_parse(s);
	ck_assert_ptr_nonnull(v);
	ck_assert(json_object_object_get_ex(v, "s", &m));
	ck_assert_str_eq(json_object_get_string(m),
	    "a   b (( # ' \"q\" \t\\");
	ck_assert(json_object_object_get_ex(v, "u", &m));
	ck_assert_str_eq(json_object_get_string(m), "\xc3\xa9/");
	ck_assert(json_object_object_get_ex(v, "url", &m));
	ck_assert_str_eq(json_object_get_string(m),
	    "https://json-schema.org/x");
	json_object_put(v);
}
END_TEST

START_TEST(json_literals_are_not_expanded)
{
	/* <stdbool.h> is included: true stays true, not 1. */
	ck_assert_str_eq(WYMCP_JSON({"t": true, "f": false, "n": null}),
	    "{\"t\": true, \"f\": false, \"n\": null}");
	ck_same_json(WYMCP_JSON([true, false, null]), "[true,false,null]");
}
END_TEST

/* ------------------------------------------ tools through the test API */

/* What mixed_run() got from the calls it makes wrong on purpose. */
static enum wymcp_err	 bad_rc[2];

/* The shortest tool: one argument read, one formatted text block. */
static enum wymcp_err
greet_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_text(res, "Hello, %s!",
	    wymcp_arg_str(args, "name", "world"));
}

/* Every reader into a block, two refused calls, an empty second block. */
static enum wymcp_err
mixed_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	enum wymcp_err	 rc;

	if ((rc = wymcp_result_text(res, "%lld of %g, %s, 100%%",
	    (long long)wymcp_arg_int(args, "n", 1), wymcp_arg_num(args, "x",
	    0.5), wymcp_arg_bool(args, "loud", 0) ? "loud" : "quiet")) !=
	    WYMCP_OK)
		return rc;
	bad_rc[0] = wymcp_result_text(NULL, "lost");
	bad_rc[1] = wymcp_result_text(res, NULL);
	return wymcp_result_text(res, "%s", "");
}

/* Reads an elicitation answer's content. */
static enum wymcp_err
people_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;
	enum wymcp_err		 rc;

	if ((rc = wymcp_elicit(ctx, "How many people?", WYMCP_JSON({
	    "type": "object", "properties": { "people": { "type": "integer",
	    "minimum": 1 } }, "required": ["people"] }), &a)) != WYMCP_OK)
		return rc;
	return wymcp_result_text(res, "%lld people",
	    (long long)wymcp_arg_int(wymcp_answer_content(a), "people", 0));
}

static const struct wymcp_tool greet_tool = {
	.name = "greet", .description = "Greets.",
	.input_schema = WYMCP_JSON({ "type": "object", "properties": {
	    "name": { "type": "string" } }, "additionalProperties": false }),
	.run = greet_run
};
static const struct wymcp_tool mixed_tool = {
	.name = "mixed", .description = "Reads all.",
	.input_schema = WYMCP_JSON({ "type": "object", "properties": {
	    "n": { "type": "integer" }, "x": { "type": "number" },
	    "loud": { "type": "boolean" } } }),
	.run = mixed_run
};
static const struct wymcp_tool people_tool = {
	.name = "people", .description = "Asks.",
	.input_schema = WYMCP_JSON({ "type": "object" }), .run = people_run
};

static struct wymcp_ctx			*ctx;
static struct wymcp_testing_round	 r;
static struct wymcp_testing_opts	 opts;

static void
tool_setup(void)
{
	memset(&r, 0, sizeof(r));
	memset(&opts, 0, sizeof(opts));
	ctx = NULL;
	bad_rc[0] = bad_rc[1] = WYMCP_OK;
}

static void
tool_teardown(void)
{
	wymcp_testing_free_context(ctx);
	ctx = NULL;
}

static void
build(void)
{
	ctx = wymcp_testing_build_context(&opts);
	ck_assert_ptr_nonnull(ctx);
}

static void
run(const struct wymcp_tool *t, const char *args)
{
	ck_assert_int_eq(wymcp_testing_run_tool(ctx, t, args, &r), WYMCP_OK);
}

/* The content array of a complete round, serialized. */
static const char *
content(void)
{
	struct json_object	*c;

	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert(json_object_object_get_ex(r.result, "content", &c));
	return json_object_to_json_string_ext(c, JSON_C_TO_STRING_PLAIN);
}

START_TEST(result_text_appends_a_text_block)
{
	build();
	run(&greet_tool, WYMCP_JSON({ "name": "Ann" }));
	ck_assert_int_eq(r.rc, WYMCP_OK);
	ck_assert_int_eq(r.is_error, 0);
	ck_assert_str_eq(r.text, "Hello, Ann!");
	ck_assert_str_eq(content(), "[{\"type\":\"text\",\"text\":"
	    "\"Hello, Ann!\"}]");
	run(&greet_tool, NULL);
	ck_assert_str_eq(r.text, "Hello, world!");
}
END_TEST

START_TEST(result_text_schema_from_json_is_enforced)
{
	build();
	run(&greet_tool, WYMCP_JSON({ "name": 3 }));
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INVALID);
	run(&greet_tool, WYMCP_JSON({ "nom": "Ann" }));
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INVALID);
}
END_TEST

START_TEST(result_text_blocks_in_order_and_bad_calls)
{
	build();
	run(&mixed_tool, WYMCP_JSON({ "n": 3, "x": 2.5, "loud": true }));
	ck_assert_int_eq(r.rc, WYMCP_OK);
	ck_assert_str_eq(content(), "[{\"type\":\"text\",\"text\":"
	    "\"3 of 2.5, loud, 100%\"},{\"type\":\"text\",\"text\":\"\"}]");
	ck_assert_int_eq(bad_rc[0], WYMCP_ERR_INVAL);
	ck_assert_int_eq(bad_rc[1], WYMCP_ERR_INVAL);
	run(&mixed_tool, WYMCP_JSON({ "n": 4.0 }));
	ck_assert_str_eq(r.text, "4 of 0.5, quiet, 100%");
}
END_TEST

START_TEST(result_text_reads_an_answer)
{
	opts.meta = WYMCP_TESTING_META_ELICIT;
	build();
	run(&people_tool, NULL);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INPUT_REQUIRED);
	/* 3.0 fits "integer": it reaches the tool, which reads 3. */
	ck_assert_int_eq(wymcp_testing_answer(ctx, r.key,
	    WYMCP_JSON({ "action": "accept", "content": { "people": 3.0 } })),
	    WYMCP_OK);
	run(&people_tool, NULL);
	ck_assert_str_eq(r.text, "3 people");
	ck_assert_int_eq(wymcp_testing_answer(ctx, "elicit-1",
	    WYMCP_JSON({ "action": "decline" })), WYMCP_OK);
	run(&people_tool, NULL);
	ck_assert_str_eq(r.text, "0 people");
}
END_TEST

static Suite *
args_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("args");
	tc = tcase_create("str");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, str_defaults);
	tcase_add_test(tc, str_values);
	suite_add_tcase(s, tc);

	tc = tcase_create("int");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, int_defaults);
	tcase_add_test(tc, int_values);
	tcase_add_test(tc, int_extremes);
	suite_add_tcase(s, tc);

	tc = tcase_create("bool");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, bool_defaults);
	tcase_add_test(tc, bool_values);
	suite_add_tcase(s, tc);

	tc = tcase_create("num");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, num_defaults);
	tcase_add_test(tc, num_values);
	suite_add_tcase(s, tc);

	tc = tcase_create("json");
	tcase_add_test(tc, json_is_the_text_as_written);
	tcase_add_test(tc, json_white_space_and_comments_collapse);
	tcase_add_test(tc, json_strings_are_kept);
	tcase_add_test(tc, json_literals_are_not_expanded);
	suite_add_tcase(s, tc);

	tc = tcase_create("result_text");
	tcase_add_checked_fixture(tc, tool_setup, tool_teardown);
	tcase_add_test(tc, result_text_appends_a_text_block);
	tcase_add_test(tc, result_text_schema_from_json_is_enforced);
	tcase_add_test(tc, result_text_blocks_in_order_and_bad_calls);
	tcase_add_test(tc, result_text_reads_an_answer);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	sr = srunner_create(args_suite());
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
