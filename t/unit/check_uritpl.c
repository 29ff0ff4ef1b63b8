/* check_uritpl.c - URI templates: the matcher (lib/uritpl.c) */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "testing/testing.h"

static struct wymcp__arena	 a;

static void
setup(void)
{
	wymcp__arena_init(&a);
}

static void
teardown(void)
{
	wymcp__arena_free(&a);
}

/* Match; the variables as compact JSON, or NULL when it does not. */
static const char *
match(const char *tpl, const char *uri)
{
	struct json_object	*vars = NULL;
	char			 err[128];
	int			 rc;

	ck_assert_msg(wymcp__tpl_check(tpl, err, sizeof(err)), "%s: %s",
	    tpl, err);
	rc = wymcp__tpl_match(&a, tpl, uri, &vars);
	ck_assert_msg(rc == 0 || rc == 1, "%s %s: %d", tpl, uri, rc);
	if (rc == 0)
		return NULL;
	return json_object_to_json_string_ext(vars, JSON_C_TO_STRING_PLAIN);
}

static void
matches(const char *tpl, const char *uri, const char *want)
{
	const char	*got = match(tpl, uri);

	ck_assert_msg(got != NULL, "%s does not match %s", uri, tpl);
	ck_assert_str_eq(got, want);
}

START_TEST(greedy_split)
{
	matches("x:{a}-{b}", "x:1-2-3", "{\"a\":\"1-2\",\"b\":\"3\"}");
	matches("file:///{+dir}/{name}", "file:///a/b/c",
	    "{\"dir\":\"a\\/b\",\"name\":\"c\"}");
}
END_TEST

START_TEST(split_never_cuts_an_octet)
{
	/*
	 * The greedy split ends a at the '3' of "%3A", which does not
	 * decode; the one before it does.  It used to be no match
	 * (t/fuzz/fuzz_uritpl.c).
	 */
	matches("x:{a}3{b}", "x:ab3c%3Ad", "{\"a\":\"ab\",\"b\":\"c:d\"}");
	matches("x:{a}2{b}", "x:q2%25z", "{\"a\":\"q\",\"b\":\"%z\"}");
}
END_TEST

START_TEST(split_never_cuts_a_character)
{
	/* a = %C3%A9%A9 is no UTF-8; a = %C3%A9 is "\u00e9". */
	matches("x:{a}%A9{+b}", "x:%C3%A9%A9%A9z",
	    "{\"a\":\"\xc3\xa9\",\"b\":\"%A9z\"}");
}
END_TEST

START_TEST(values_that_do_not_decode)
{
	ck_assert_ptr_null(match("x:{a}", "x:%00"));
	ck_assert_ptr_null(match("x:{a}", "x:a%2"));
	ck_assert_ptr_null(match("x:{a}", "x:%zz"));
	ck_assert_ptr_null(match("x:{a}", "x:%ff"));
	ck_assert_ptr_null(match("x:{a}", "x:%C3"));
	ck_assert_ptr_null(match("x:{a}", "x:%A9"));
	ck_assert_ptr_null(match("x:{a}", "x:%ED%A0%80"));	/* surrogate */
	ck_assert_ptr_null(match("x:{a}", "x:%C0%80"));	/* overlong */
	matches("x:{a}", "x:%F0%9F%98%80", "{\"a\":\"\xf0\x9f\x98\x80\"}");
	matches("x:{a}", "x:caf\xc3\xa9%20", "{\"a\":\"caf\xc3\xa9 \"}");
	/* A {+var} value is not decoded: anything goes. */
	matches("x:{+a}", "x:%zz%00", "{\"a\":\"%zz%00\"}");
}
END_TEST

int
main(void)
{
	SRunner	*sr;
	Suite	*s;
	TCase	*tc;
	int	 nfailed;

	s = suite_create("uritpl");
	tc = tcase_create("match");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, greedy_split);
	tcase_add_test(tc, split_never_cuts_an_octet);
	tcase_add_test(tc, split_never_cuts_a_character);
	tcase_add_test(tc, values_that_do_not_decode);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
