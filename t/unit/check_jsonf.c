/* check_jsonf.c - JSON from templates, and questions in one call */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "testing/testing.h"

static struct wymcp_server	*srv;
static struct wymcp_ctx		 ctx;

static void
setup(void)
{
	srv = wymcp_server_new();
	ck_assert_ptr_nonnull(srv);
	wymcp__ctx_init(&ctx, srv, NULL);
}

static void
teardown(void)
{
	wymcp__ctx_free(&ctx);
	wymcp_server_free(srv);
	srv = NULL;
}

static const char *
plain(struct json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE);
}

#define ck_json(o, want) do {						\
	struct json_object *ck_o_ = (o);				\
	ck_assert_ptr_nonnull(ck_o_);					\
	ck_assert_str_eq(plain(ck_o_), (want));				\
} while (0)

/* The template's fault, as the tool's failure message says it. */
#define ck_fault(o, want) do {						\
	ck_assert_ptr_null(o);						\
	ck_assert_ptr_nonnull(ctx.call.builder_null);			\
	ck_assert_msg(strstr(ctx.call.builder_null, (want)) != NULL,	\
	    "message: %s", ctx.call.builder_null);			\
	ctx.call.builder_null = NULL;					\
} while (0)

/*
 * Through a va_list the format attribute cannot see: conversions
 * printf(3) has that JSON cannot take, and NULL for %s, which the
 * compiler warns of when it sees it.
 */
static struct json_object *
unchecked(const char *fmt, ...)
{
	const char *volatile	 f = fmt;	/* NULL unseen */
	struct json_object	*o;
	va_list			 ap;

	va_start(ap, fmt);
	o = wymcp_vjsonf(&ctx, f, ap);
	va_end(ap);
	return o;
}

START_TEST(every_conversion)
{
	ck_json(wymcp_jsonf(&ctx, "{\"s\":%s,\"d\":%d,\"i\":%i,\"u\":%u}",
	    "x", -7, INT_MIN, UINT_MAX),
	    "{\"s\":\"x\",\"d\":-7,\"i\":-2147483648,\"u\":4294967295}");
	ck_json(wymcp_jsonf(&ctx, "[%ld,%lu,%lld,%llu,%zu,%zd,%jd,%ju,%td]",
	    LONG_MIN, ULONG_MAX, LLONG_MIN, ULLONG_MAX, (size_t)42,
	    (ssize_t)-42, (intmax_t)INT64_MAX, (uintmax_t)7, (ptrdiff_t)-1),
	    "[-9223372036854775808,18446744073709551615,"
	    "-9223372036854775808,18446744073709551615,42,-42,"
	    "9223372036854775807,7,-1]");
	/* h and hh convert as printf(3) does. */
	ck_json(wymcp_jsonf(&ctx, "[%hhd,%hhu,%hd,%hu]", 300, 300, 70000,
	    70000), "[44,44,4464,4464]");
	ck_json(wymcp_jsonf(&ctx, "[%g,%.2f,%e,%lf,%5d]", 0.5, 2.0 / 3,
	    1e300, -1.25, 3), "[0.5,0.67,1.000000e+300,-1.250000,3]");
	ck_json(unchecked("{\"pct\":\"100%%\",\"s\":%s}", NULL),
	    "{\"pct\":\"100%\",\"s\":null}");
	ck_json(wymcp_jsonf(&ctx, "%s", "only"), "\"only\"");
	ck_json(wymcp_jsonf(&ctx, "%d", 5), "5");
	ck_json(wymcp_jsonf(&ctx, "{ \"a\" : [ true , false , null ] }"),
	    "{\"a\":[true,false,null]}");
}
END_TEST

START_TEST(p_inserts_a_value)
{
	struct json_object	*a, *o;

	a = wymcp_jsonf(&ctx, "{\"k\":[1,\"two\",{\"q\":\"a\\\"b\"}]}");
	ck_assert_ptr_nonnull(a);
	o = wymcp_jsonf(&ctx, "{\"v\":%p,\"t\":\"is %p\"}", a, a);
	ck_json(o, "{\"v\":{\"k\":[1,\"two\",{\"q\":\"a\\\"b\"}]},"
	    "\"t\":\"is {\\\"k\\\":[1,\\\"two\\\",{\\\"q\\\":"
	    "\\\"a\\\\\\\"b\\\"}]}\"}");
	/* The inner string is the serialization, read back. */
	ck_assert_str_eq(json_object_get_string(json_object_object_get(o,
	    "t")), "is {\"k\":[1,\"two\",{\"q\":\"a\\\"b\"}]}");
}
END_TEST

/* Every byte a C string can hold round-trips through %s. */
START_TEST(escaping_round_trips)
{
	char			 all[128 + 64], *p = all;
	const char		*utf8 = "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
				    "\xe2\x80\xa8\xef\xbf\xbf";
	struct json_object	*o;
	int			 c;

	for (c = 1; c < 128; c++)
		*p++ = (char)c;
	strcpy(p, utf8);
	o = wymcp_jsonf(&ctx, "{\"s\":%s,\"in\":\"<%s>\"}", all, all);
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(o,
	    "s")), all);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(o,
	    "in")), wymcp_printf(&ctx, "<%s>", all));
	ck_json(wymcp_jsonf(&ctx, "%s", "\x01\x1f\"\\\b\f\n\r\t\x7f/"),
	    "\"\\u0001\\u001f\\\"\\\\\\b\\f\\n\\r\\t\x7f/\"");
	/* A precision ends on a whole character. */
	ck_json(wymcp_jsonf(&ctx, "[%.2s,%.1s,%.0s]", "\xc3\xa9x", "ab",
	    "ab"), "[\"\xc3\xa9\",\"a\",\"\"]");
}
END_TEST

/* A hostile value stays one string: it cannot add members. */
START_TEST(injection_stays_a_string)
{
	struct json_object	*o;
	const char		*evil = "\",\"admin\":true,\"x\":\"";

	o = wymcp_jsonf(&ctx, "{\"name\":%s,\"greeting\":\"hi %s\"}", evil,
	    evil);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(json_object_object_length(o), 2);
	ck_assert(!json_object_object_get_ex(o, "admin", NULL));
	ck_assert_str_eq(json_object_get_string(json_object_object_get(o,
	    "name")), evil);
	o = wymcp_jsonf(&ctx, "{\"n\":\"\\\\%s\"}", "\"}");
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(o,
	    "n")), "\\\"}");
}
END_TEST

START_TEST(not_utf8_refused)
{
	static const char *const bad[] = { "\xff", "a\xc0\xaf", "\xed\xa0\x80",
	    "\xe2\x82", "\xf4\x90\x80\x80", "\x80" };
	size_t		i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_fault(wymcp_jsonf(&ctx, "[%s]", bad[i]),
		    "conversion 1 (%s) is not UTF-8");
		ck_fault(wymcp_jsonf(&ctx, "\"%s\"", bad[i]),
		    "is not UTF-8");
	}
}
END_TEST

START_TEST(template_faults)
{
	struct json_object	*nil = NULL;

	ck_fault(wymcp_jsonf(&ctx, "{\"a\":%d,}", 1),
	    "wymcp_jsonf(): the text it gives is not JSON in \"{\"a\":%d,}\"");
	ck_fault(wymcp_jsonf(&ctx, "{\"a\":1,\"a\":2}"),
	    "names a member twice");
	ck_fault(wymcp_jsonf(&ctx, "null"), "the template gives null");
	ck_fault(unchecked(""), "is not JSON");
	ck_fault(wymcp_jsonf(&ctx, "\"\\u0000\""), "U+0000");
	ck_fault(wymcp_jsonf(&ctx, "[%g]", NAN), "not a finite number");
	ck_fault(wymcp_jsonf(&ctx, "[%f]", -INFINITY), "not a finite number");
	ck_fault(wymcp_jsonf(&ctx, "[%p]", nil), "conversion 1 (%p) is NULL");
	ck_fault(unchecked("[1,\"%s\"]", NULL),
	    "conversion 1 (%s) is NULL inside a string");
	ck_fault(wymcp_jsonf(&ctx, "[%05d]", 1), "is not JSON");
	ck_fault(wymcp_jsonf(&ctx, "[%d,%d", 1, 2), "is not JSON");
	/* What would close the string is escaped: still one string. */
	ck_json(wymcp_jsonf(&ctx, "[%s]", "\"]"), "[\"\\\"]\"]");
	ck_assert_ptr_null(unchecked(NULL));
	ck_assert_str_eq(ctx.call.builder_null,
	    "wymcp_jsonf(): the template is NULL");
	ctx.call.builder_null = NULL;
	ck_assert_ptr_null(wymcp_jsonf(NULL, "[]"));
}
END_TEST

START_TEST(conversions_refused)
{
	ck_fault(unchecked("[%x]", 1), "%x is not one of");
	ck_fault(unchecked("[%n]", NULL), "%n is not one of");
	ck_fault(unchecked("[%c]", 'a'), "%c is not one of");
	ck_fault(unchecked("[%*d]", 3, 1), "'*' is not supported");
	ck_fault(unchecked("[%.*s]", 1, "a"), "'*' is not supported");
	ck_fault(unchecked("[%Lf]", 1.0L), "only double");
	ck_fault(unchecked("[%lls]", "a"), "takes no flag");
	ck_fault(unchecked("[%5s]", "a"), "takes no flag");
	ck_fault(unchecked("[%.3p]", NULL), "takes no flag");
	ck_fault(unchecked("[%999d]", 1), "width over 64");
	ck_fault(unchecked("[%lhd]", 1), "is not printf's");
	ck_fault(unchecked("[1]%"), "% is not one of");
	ck_fault(unchecked("[%------------d]", 1), "too many flags");
	ck_json(unchecked("[%d,%s]", 1, "a"), "[1,\"a\"]");
}
END_TEST

static int	 freed;

static void
gone(struct json_object *o, void *arg)
{
	freed++;
}

/* The value is the request's: freed with it, never by the tool. */
START_TEST(owned_by_the_request)
{
	struct wymcp_ctx	 c;
	struct json_object	*o;

	wymcp__ctx_init(&c, srv, NULL);
	o = wymcp_jsonf(&c, "{\"a\":[1,2,3]}");
	ck_assert_ptr_nonnull(o);
	json_object_set_userdata(o, NULL, gone);
	freed = 0;
	wymcp__ctx_free(&c);
	ck_assert_int_eq(freed, 1);
}
END_TEST

START_TEST(append)
{
	struct json_object	*a, *o;

	a = wymcp_jsonf(&ctx, "[]");
	ck_assert_int_eq(wymcp_json_append(&ctx, a, "{\"d\":%d}", 1),
	    WYMCP_OK);
	ck_assert_int_eq(wymcp_json_append(&ctx, a, "%s", "two"), WYMCP_OK);
	ck_json(a, "[{\"d\":1},\"two\"]");
	ck_assert_int_eq(wymcp_json_append(&ctx, a, "[%d", 1),
	    WYMCP_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(ctx.call.builder_null,
	    "wymcp_json_append(): the text it gives is not JSON"));
	ck_assert_uint_eq(json_object_array_length(a), 2);
	/* A NULL array: a builder failed before; it said why. */
	ck_assert_int_eq(wymcp_json_append(&ctx, NULL, "1"), WYMCP_ERR_INVAL);
	ctx.call.builder_null = NULL;
	ck_assert_int_eq(wymcp_json_append(&ctx, NULL, "1"), WYMCP_ERR_NOMEM);
	o = wymcp_jsonf(&ctx, "{}");
	ck_assert_int_eq(wymcp_json_append(&ctx, o, "1"), WYMCP_ERR_INVAL);
	ck_assert_str_eq(ctx.call.builder_null,
	    "wymcp_json_append(): the array is not an array");
	ck_assert_int_eq(wymcp_json_append(NULL, a, "1"), WYMCP_ERR_INVAL);
}
END_TEST

/* Tools for the runs below. */
static enum wymcp_err
structured_run(struct wymcp_ctx *c, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_jsonf(res, "{\"city\":%s,\"days\":%d}",
	    wymcp_arg_str(args, "city", NULL),
	    (int)wymcp_arg_int(args, "days", 1));
}

static enum wymcp_err
broken_run(struct wymcp_ctx *c, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_jsonf(res, "{\"city\":%s,}", "x");
}

static const struct wymcp_tool	structured = { .name = "structured",
	.description = "d", .input_schema = "{\"type\":\"object\"}",
	.output_schema = "{\"type\":\"object\",\"properties\":{\"city\":"
	    "{\"type\":\"string\"},\"days\":{\"type\":\"integer\"}},"
	    "\"required\":[\"city\",\"days\"]}",
	.run = structured_run };
static const struct wymcp_tool	broken = { .name = "broken",
	.description = "d", .input_schema = "{\"type\":\"object\"}",
	.run = broken_run };

START_TEST(result_jsonf)
{
	struct wymcp_testing_opts	 o = {
	    .meta = WYMCP_TESTING_META_NONE };
	struct wymcp_testing_round	 r;
	struct wymcp_ctx		*c;

	c = wymcp_testing_build_context(&o);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(wymcp_testing_run_tool(c, &structured,
	    "{\"city\":\"Z\\u00fcrich \\\"old\\\"\",\"days\":2}", &r),
	    WYMCP_OK);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert(!r.is_error);
	ck_json(json_object_object_get(r.result, "structuredContent"),
	    "{\"city\":\"Z\xc3\xbcrich \\\"old\\\"\",\"days\":2}");
	/* The text block is the structured content's serialization. */
	ck_assert_str_eq(r.text,
	    "{\"city\":\"Z\xc3\xbcrich \\\"old\\\"\",\"days\":2}");
	/* A value that breaks the outputSchema: the call fails. */
	ck_assert_int_eq(wymcp_testing_run_tool(c, &structured, "{}", &r),
	    WYMCP_OK);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_ERROR);
	/* A template at fault: the tool fails, saying why. */
	ck_assert_int_eq(wymcp_testing_run_tool(c, &broken, "{}", &r),
	    WYMCP_OK);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert(r.is_error);
	ck_assert_int_eq(r.rc, WYMCP_ERR_INVAL);
	ck_assert_str_eq(r.text, "wymcp_result_jsonf(): the text it gives "
	    "is not JSON in \"{\"city\":%s,}\"");
	ck_assert_int_eq(wymcp_result_jsonf(NULL, "{}"), WYMCP_ERR_INVAL);
	wymcp_testing_free_context(c);
}
END_TEST

static const char *const colours[] = { "red", "green \"x\"", NULL };

static enum wymcp_err
ask_run(struct wymcp_ctx *c, struct json_object *args,
    struct wymcp_result *res)
{
	const char	*pick;
	enum wymcp_err	 rc;

	if ((rc = wymcp_ask_choice(c, "Which colour?", colours, &pick)) !=
	    WYMCP_OK ||
	    (rc = wymcp_ask(c, wymcp_printf(c, "Paint it %s?", pick), NULL,
	    NULL)) != WYMCP_OK)
		return wymcp_result_text(res, "stopped: %s",
		    wymcp_strerror(rc));
	return wymcp_result_text(res, "painted %s", pick);
}

static const struct wymcp_tool	asker = { .name = "asker",
	.description = "d", .input_schema = "{\"type\":\"object\"}",
	.run = ask_run };

START_TEST(ask_choice_and_confirm)
{
	struct wymcp_testing_opts	 o = {
	    .meta = WYMCP_TESTING_META_ELICIT };
	struct wymcp_testing_round	 r;
	struct wymcp_ctx		*c;

	c = wymcp_testing_build_context(&o);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(wymcp_testing_run_tool(c, &asker, NULL, &r),
	    WYMCP_OK);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INPUT_REQUIRED);
	ck_assert_str_eq(r.key, "elicit-1");
	ck_assert_str_eq(r.message, "Which colour?");
	ck_json(r.schema, "{\"type\":\"object\",\"properties\":{\"choice\":"
	    "{\"type\":\"string\",\"enum\":[\"red\",\"green \\\"x\\\"\"]}},"
	    "\"required\":[\"choice\"]}");
	ck_assert_int_eq(wymcp_testing_answer(c, "elicit-1",
	    "{\"action\":\"accept\",\"content\":"
	    "{\"choice\":\"green \\\"x\\\"\"}}"),
	    WYMCP_OK);
	ck_assert_int_eq(wymcp_testing_run_tool(c, &asker, NULL, &r),
	    WYMCP_OK);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INPUT_REQUIRED);
	ck_assert_str_eq(r.key, "elicit-2");
	ck_assert_str_eq(r.message, "Paint it green \"x\"?");
	ck_json(r.schema, "{\"type\":\"object\",\"properties\":{}}");
	/* Accepted (an empty form): done. */
	ck_assert_int_eq(wymcp_testing_answer(c, "elicit-2",
	    "{\"action\":\"accept\",\"content\":{}}"), WYMCP_OK);
	ck_assert_int_eq(wymcp_testing_run_tool(c, &asker, NULL, &r),
	    WYMCP_OK);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_str_eq(r.text, "painted green \"x\"");
	/* Declined, cancelled: answers, never asked again. */
	ck_assert_int_eq(wymcp_testing_answer(c, "elicit-2",
	    "{\"action\":\"decline\"}"), WYMCP_OK);
	ck_assert_int_eq(wymcp_testing_run_tool(c, &asker, NULL, &r),
	    WYMCP_OK);
	ck_assert_str_eq(r.text, "stopped: the user declined");
	ck_assert_int_eq(wymcp_testing_answer(c, "elicit-1",
	    "{\"action\":\"cancel\"}"), WYMCP_OK);
	ck_assert_int_eq(wymcp_testing_run_tool(c, &asker, NULL, &r),
	    WYMCP_OK);
	ck_assert_str_eq(r.text, "stopped: the user cancelled");
	/* A choice not offered never reaches the tool. */
	ck_assert_int_eq(wymcp_testing_answer(c, "elicit-1",
	    "{\"action\":\"accept\",\"content\":{\"choice\":\"blue\"}}"),
	    WYMCP_OK);
	ck_assert_int_eq(wymcp_testing_run_tool(c, &asker, NULL, &r),
	    WYMCP_OK);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_INVALID);
	wymcp_testing_free_context(c);
}
END_TEST

START_TEST(ask_refusals)
{
	struct wymcp_testing_opts	 o = {
	    .meta = WYMCP_TESTING_META_NONE };
	struct wymcp_testing_round	 r;
	struct wymcp_ctx		*c;
	const char			*pick = "x";
	static const char *const	 none[] = { NULL };

	c = wymcp_testing_build_context(&o);
	ck_assert_ptr_nonnull(c);
	/* No elicitation capability: not supported, nothing asked. */
	ck_assert_int_eq(wymcp_testing_run_tool(c, &asker, NULL, &r),
	    WYMCP_OK);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_str_eq(r.text, "stopped: the client did not declare this "
	    "capability");
	ck_assert_int_eq(wymcp_ask_choice(c, "m", none, &pick),
	    WYMCP_ERR_INVAL);
	ck_assert_ptr_null(pick);
	ck_assert_int_eq(wymcp_ask_choice(c, "m", NULL, &pick),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_ask_choice(c, "m", colours, NULL),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_ask(NULL, "m", NULL, NULL), WYMCP_ERR_INVAL);
	wymcp_testing_free_context(c);
}
END_TEST

START_TEST(new_sentences)
{
	ck_assert_str_eq(wymcp_strerror(WYMCP_ERR_DECLINED),
	    "the user declined");
	ck_assert_str_eq(wymcp_strerror(WYMCP_ERR_CANCELLED),
	    "the user cancelled");
	ck_assert_str_eq(wymcp_strerror(WYMCP_ERR__MAX), "unknown error");
}
END_TEST

static Suite *
suite(void)
{
	Suite	*s = suite_create("jsonf");
	TCase	*tc = tcase_create("builder");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, every_conversion);
	tcase_add_test(tc, p_inserts_a_value);
	tcase_add_test(tc, escaping_round_trips);
	tcase_add_test(tc, injection_stays_a_string);
	tcase_add_test(tc, not_utf8_refused);
	tcase_add_test(tc, template_faults);
	tcase_add_test(tc, conversions_refused);
	tcase_add_test(tc, owned_by_the_request);
	tcase_add_test(tc, append);
	suite_add_tcase(s, tc);
	tc = tcase_create("tools");
	tcase_add_test(tc, result_jsonf);
	tcase_add_test(tc, ask_choice_and_confirm);
	tcase_add_test(tc, ask_refusals);
	tcase_add_test(tc, new_sentences);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr = srunner_create(suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
