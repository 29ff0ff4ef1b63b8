/*
 * check_intake.c - the hub's event parser (src/front/intake.c)
 *
 * intake.c is compiled in: it is part of wymcp-fcgi, not of the
 * library.  What each side may say (data from outside, control from
 * the workers and sealed frames), the type of every member (a JSON
 * null anywhere is refused, the crashes of issue 32), unknown members
 * ignored, oversized payloads refused unread, and the mount list split
 * as tools/list splits it (blanks and commas).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <json-c/json.h>

#include "wymcp.h"
#include "front/intake.h"

static enum front_refusal
parse(const char *msg, int from, struct front_event *ev)
{
	return front_intake(msg, strlen(msg), from, ev);
}

/* `msg' is refused for `why' from `from'. */
static void
refused(const char *msg, int from, enum front_refusal why)
{
	struct front_event	 ev;

	ck_assert_msg(parse(msg, from, &ev) == why, "%s: not refused as %s",
	    msg, front_refusal_names[why]);
	ck_assert_ptr_null(ev.o);
}

START_TEST(data_from_outside)
{
	struct front_event	 ev;

	ck_assert_int_eq(parse("{\"v\":1,\"k\":\"updated\",\"uri\":"
	    "\"note://a\",\"extra\":null}", FRONT_FROM_OUTSIDE, &ev),
	    FRONT_REF_NONE);
	ck_assert_int_eq(ev.kind, FRONT_EV_UPDATED);
	ck_assert_str_eq(ev.uri, "note://a");
	front_event_clear(&ev);
	ck_assert_int_eq(parse("{\"v\":1,\"k\":\"list\",\"lists\":[\"tools\","
	    "\"resources\"],\"tools\":[\"echo\"]}\n", FRONT_FROM_OUTSIDE,
	    &ev), FRONT_REF_NONE);
	ck_assert_int_eq(ev.kind, FRONT_EV_LIST);
	ck_assert_int_eq(ev.lists, WYMCP_LIST_TOOLS | WYMCP_LIST_RESOURCES);
	ck_assert_ptr_nonnull(ev.tools);
	front_event_clear(&ev);
	ck_assert_int_eq(parse("{\"v\":1,\"k\":\"list\",\"lists\":"
	    "[\"prompts\"]}", FRONT_FROM_OUTSIDE, &ev), FRONT_REF_NONE);
	ck_assert_int_eq(ev.lists, WYMCP_LIST_PROMPTS);
	ck_assert_ptr_null(ev.tools);
	front_event_clear(&ev);
}
END_TEST

START_TEST(nulls_and_types)
{
	static const char *const bad[] = {
		"{\"v\":1,\"k\":null}",
		"{\"v\":1,\"k\":\"list\",\"lists\":[null]}",
		"{\"v\":1,\"k\":\"list\",\"lists\":[\"tools\"],\"tools\":[null]}",
		"{\"v\":1,\"k\":\"list\",\"lists\":[\"tools\"],\"tools\":{}}",
		"{\"v\":1,\"k\":\"list\",\"lists\":null}",
		"{\"v\":1,\"k\":\"list\",\"lists\":[]}",
		"{\"v\":1,\"k\":\"list\",\"lists\":[\"tables\"]}",
		"{\"v\":1,\"k\":\"updated\",\"uri\":null}",
		"{\"v\":1,\"k\":\"updated\",\"uri\":7}",
		"{\"v\":1,\"k\":\"updated\",\"uri\":\"\"}",
		"{\"v\":1,\"k\":\"updated\",\"uri\":\"a\\u0000b\"}",
		"{\"v\":1,\"k\":\"updated\"}",
		"{\"v\":null,\"k\":\"updated\",\"uri\":\"x\"}",
		"{\"v\":2,\"k\":\"updated\",\"uri\":\"x\"}",
		"{\"k\":\"updated\",\"uri\":\"x\"}",
		"null", "[]", "7", "\"updated\"", "{", "",
		"{\"v\":1,\"k\":\"updated\",\"uri\":\"x\"} trailing",
	};
	size_t	 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		refused(bad[i], FRONT_FROM_OUTSIDE, FRONT_REF_MALFORMED);
		refused(bad[i], FRONT_FROM_WORKER, FRONT_REF_MALFORMED);
	}
	refused("{\"v\":1,\"k\":\"reboot\"}", FRONT_FROM_OUTSIDE,
	    FRONT_REF_KIND);
	refused("{\"v\":1,\"k\":\"cancel\",\"who\":\"alice\",\"id\":null}",
	    FRONT_FROM_WORKER, FRONT_REF_MALFORMED);
	refused("{\"v\":1,\"k\":\"cancel\",\"who\":null,\"id\":7}",
	    FRONT_FROM_WORKER, FRONT_REF_MALFORMED);
	refused("{\"v\":1,\"k\":\"subscribe\",\"session\":null,\"uri\":\"x\"}",
	    FRONT_FROM_WORKER, FRONT_REF_MALFORMED);
}
END_TEST

START_TEST(commands_from_outside)
{
	static const char *const cmd[] = {
		"{\"v\":1,\"k\":\"cancel\",\"who\":\"alice\",\"id\":7}",
		"{\"v\":1,\"k\":\"subscribe\",\"session\":\"s\",\"uri\":\"x\"}",
		"{\"v\":1,\"k\":\"unsubscribe\",\"session\":\"s\",\"uri\":\"x\"}",
		"{\"v\":1,\"k\":\"cancel\",\"who\":null}",
	};
	struct front_event	 ev;
	size_t			 i;

	for (i = 0; i < sizeof(cmd) / sizeof(cmd[0]); i++)
		refused(cmd[i], FRONT_FROM_OUTSIDE, FRONT_REF_COMMAND);
	/* The same from the workers, or in a sealed frame, is control. */
	ck_assert_int_eq(parse(cmd[0], FRONT_FROM_WORKER, &ev),
	    FRONT_REF_NONE);
	ck_assert_int_eq(ev.kind, FRONT_EV_CANCEL);
	ck_assert_str_eq(ev.who, "alice");
	ck_assert_str_eq(ev.id, "7");
	front_event_clear(&ev);
	ck_assert_int_eq(parse(cmd[1], FRONT_FROM_SEALED, &ev),
	    FRONT_REF_NONE);
	ck_assert_int_eq(ev.kind, FRONT_EV_SUBSCRIBE);
	ck_assert_str_eq(ev.session, "s");
	front_event_clear(&ev);
	/* A sealed frame carries control only, and never nests. */
	refused("{\"v\":1,\"k\":\"updated\",\"uri\":\"x\"}", FRONT_FROM_SEALED,
	    FRONT_REF_COMMAND);
}
END_TEST

START_TEST(sealed_frames)
{
	const char	*f = "{\"v\":1,\"k\":\"sealed\",\"kid\":\"0a1b2c3d\","
			    "\"t\":1765000000,\"mac\":\"00ff\",\"e\":\"{}\"}";
	struct front_event	 ev;

	ck_assert_int_eq(parse(f, FRONT_FROM_OUTSIDE, &ev), FRONT_REF_NONE);
	ck_assert_int_eq(ev.kind, FRONT_EV_SEALED);
	ck_assert_str_eq(ev.kid, "0a1b2c3d");
	ck_assert_int_eq(ev.t, 1765000000);
	ck_assert_str_eq(ev.body, "{}");
	ck_assert_uint_eq(ev.bodylen, 2);
	front_event_clear(&ev);
	refused(f, FRONT_FROM_WORKER, FRONT_REF_COMMAND);
	refused(f, FRONT_FROM_SEALED, FRONT_REF_COMMAND);
	refused("{\"v\":1,\"k\":\"sealed\",\"kid\":\"0A1B2C3D\",\"t\":1,"
	    "\"mac\":\"00\",\"e\":\"{}\"}", FRONT_FROM_OUTSIDE,
	    FRONT_REF_MALFORMED);
	refused("{\"v\":1,\"k\":\"sealed\",\"kid\":\"0a1b2c3d\",\"t\":null,"
	    "\"mac\":\"00\",\"e\":\"{}\"}", FRONT_FROM_OUTSIDE,
	    FRONT_REF_MALFORMED);
	refused("{\"v\":1,\"k\":\"sealed\",\"kid\":\"0a1b2c3d\",\"t\":1,"
	    "\"mac\":\"00\",\"e\":null}", FRONT_FROM_OUTSIDE,
	    FRONT_REF_MALFORMED);
}
END_TEST

START_TEST(oversized)
{
	const char		*ev1 = "{\"v\":1,\"k\":\"updated\","
				    "\"uri\":\"x\"}";
	struct front_event	 ev;
	char			*big;
	size_t			 n = FRONT_EVENT_MAX + 1;

	big = malloc(n + 1);
	ck_assert_ptr_nonnull(big);
	memset(big, ' ', n);
	big[n] = '\0';
	memcpy(big, ev1, strlen(ev1));
	ck_assert_int_eq(front_intake(big, n, FRONT_FROM_OUTSIDE, &ev),
	    FRONT_REF_OVERSIZED);
	/* One byte less, trailing blanks: taken. */
	ck_assert_int_eq(front_intake(big, n - 1, FRONT_FROM_OUTSIDE, &ev),
	    FRONT_REF_NONE);
	front_event_clear(&ev);
	free(big);
}
END_TEST

START_TEST(mount_lists)
{
	struct json_object	*tools;

	ck_assert(front_mounted("help echo", "echo"));
	ck_assert(front_mounted("help,echo", "echo"));
	ck_assert(front_mounted(" help,\techo ,", "help"));
	ck_assert(!front_mounted("help,echo", "ech"));
	ck_assert(!front_mounted("help,echo", "help,echo"));
	ck_assert(!front_mounted("", "echo"));
	tools = json_tokener_parse("[\"write_note\"]");
	ck_assert(front_sees("help,write_note", tools));
	ck_assert(!front_sees("help", tools));
	ck_assert(front_sees(NULL, tools));
	ck_assert(front_sees("help", NULL));
	json_object_put(tools);
}
END_TEST

static Suite *
intake_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("intake");
	tc = tcase_create("sides");
	tcase_add_test(tc, data_from_outside);
	tcase_add_test(tc, commands_from_outside);
	tcase_add_test(tc, sealed_frames);
	suite_add_tcase(s, tc);
	tc = tcase_create("types");
	tcase_add_test(tc, nulls_and_types);
	tcase_add_test(tc, oversized);
	suite_add_tcase(s, tc);
	tc = tcase_create("mount");
	tcase_add_test(tc, mount_lists);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 failed;

	sr = srunner_create(intake_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
