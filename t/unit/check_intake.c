/*
 * check_intake.c - the hub's event parser (src/front/intake.c)
 *
 * intake.c is compiled in: it is part of wymcp-fcgi, not of the
 * library.  What each side may say (data from outside, control from
 * the workers and sealed frames), the type of every member (a JSON
 * null anywhere is refused, the crashes of issue 32), unknown members
 * ignored, oversized payloads refused unread, and the mount list split
 * as tools/list splits it (blanks and commas).  Then control.c (also
 * compiled in): a gap sealed by one hub opens on another with the same
 * key, once; a forged, stale, replayed or other-key frame is refused;
 * a hub knows its own gap.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <check.h>
#include <json-c/json.h>

#include "wymcp.h"
#include "front/front.h"
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

/* A gap kind anywhere but in a sealed frame is refused. */
START_TEST(gap_members)
{
	const char	*g = "{\"v\":1,\"k\":\"gap\",\"from\":"
			    "\"0123456789abcdef\",\"n\":\"fedcba9876543210\"}";
	struct front_event	 ev;

	ck_assert_int_eq(parse(g, FRONT_FROM_SEALED, &ev), FRONT_REF_NONE);
	ck_assert_int_eq(ev.kind, FRONT_EV_GAP);
	ck_assert_str_eq(ev.from, "0123456789abcdef");
	ck_assert_str_eq(ev.nonce, "fedcba9876543210");
	front_event_clear(&ev);
	refused(g, FRONT_FROM_OUTSIDE, FRONT_REF_COMMAND);
	refused(g, FRONT_FROM_WORKER, FRONT_REF_COMMAND);
	refused("{\"v\":1,\"k\":\"gap\"}", FRONT_FROM_SEALED,
	    FRONT_REF_MALFORMED);
	refused("{\"v\":1,\"k\":\"gap\",\"from\":\"0123456789ABCDEF\","
	    "\"n\":\"fedcba9876543210\"}", FRONT_FROM_SEALED,
	    FRONT_REF_MALFORMED);
	refused("{\"v\":1,\"k\":\"gap\",\"from\":\"0123\","
	    "\"n\":\"fedcba9876543210\"}", FRONT_FROM_SEALED,
	    FRONT_REF_MALFORMED);
	refused("{\"v\":1,\"k\":\"gap\",\"from\":\"0123456789abcdef\","
	    "\"n\":null}", FRONT_FROM_SEALED, FRONT_REF_MALFORMED);
}
END_TEST

/* A gap that says which streams: kinds and URIs, type-checked. */
START_TEST(gap_narrow)
{
	static const char pre[] = "{\"v\":1,\"k\":\"gap\",\"from\":"
	    "\"0123456789abcdef\",\"n\":\"fedcba9876543210\",";
	static const char *const bad[] = {
		"\"lists\":[\"x\"]}", "\"lists\":[null]}",
		"\"lists\":\"tools\"}",
		"\"uris\":[null]}", "\"uris\":[\"\"]}", "\"uris\":\"a\"}",
		"\"uris\":[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\","
		"\"i\",\"j\",\"k\",\"l\",\"m\",\"n\",\"o\",\"p\",\"q\"]}",
	};
	struct front_event	 ev;
	char			 buf[512];
	size_t			 i;

	snprintf(buf, sizeof(buf), "%s\"lists\":[\"resources\",\"tools\"],"
	    "\"uris\":[\"note://g\"]}", pre);
	ck_assert_int_eq(parse(buf, FRONT_FROM_SEALED, &ev), FRONT_REF_NONE);
	ck_assert(ev.narrow);
	ck_assert_int_eq(ev.lists, WYMCP_LIST_RESOURCES | WYMCP_LIST_TOOLS);
	ck_assert_uint_eq(json_object_array_length(ev.uris), 1);
	ck_assert_str_eq(json_object_get_string(
	    json_object_array_get_idx(ev.uris, 0)), "note://g");
	front_event_clear(&ev);
	/* Empty lists: a gap naming no stream (narrow all the same). */
	snprintf(buf, sizeof(buf), "%s\"lists\":[],\"uris\":[]}", pre);
	ck_assert_int_eq(parse(buf, FRONT_FROM_SEALED, &ev), FRONT_REF_NONE);
	ck_assert(ev.narrow);
	ck_assert_int_eq(ev.lists, 0);
	front_event_clear(&ev);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(buf, sizeof(buf), "%s%s", pre, bad[i]);
		refused(buf, FRONT_FROM_SEALED, FRONT_REF_MALFORMED);
	}
}
END_TEST

/* Open the sealed frame `f' with `c': why refused, `in' its body. */
static enum front_refusal
open_frame(struct front_control *c, const char *f, struct front_event *in)
{
	struct front_event	 ev;
	enum front_refusal	 why;

	ck_assert_int_eq(parse(f, FRONT_FROM_OUTSIDE, &ev), FRONT_REF_NONE);
	ck_assert_int_eq(ev.kind, FRONT_EV_SEALED);
	why = front_control_open(c, &ev, in);
	front_event_clear(&ev);
	return why;
}

/* A frame sealed by hand under `srv''s key at time `t' (new). */
static char *
sealed_at(struct wymcp_server *srv, long long t, const char *body)
{
	unsigned char	 kid[WYMCP_KEY_ID_LEN], mac[WYMCP_MAC_LEN];
	char		 buf[512], hk[16], hm[80], *out;
	struct json_object *o;
	size_t		 i;
	int		 n;

	n = snprintf(buf, sizeof(buf), "wymcp-control/1 %lld\n%s", t, body);
	ck_assert_int_eq(wymcp_server_mac(srv, buf, (size_t)n, kid, mac),
	    WYMCP_OK);
	for (i = 0; i < sizeof(kid); i++)
		snprintf(hk + 2 * i, 3, "%02x", kid[i]);
	for (i = 0; i < sizeof(mac); i++)
		snprintf(hm + 2 * i, 3, "%02x", mac[i]);
	o = json_object_new_object();
	json_object_object_add(o, "v", json_object_new_int(1));
	json_object_object_add(o, "k", json_object_new_string("sealed"));
	json_object_object_add(o, "kid", json_object_new_string(hk));
	json_object_object_add(o, "t", json_object_new_int64(t));
	json_object_object_add(o, "mac", json_object_new_string(hm));
	json_object_object_add(o, "e", json_object_new_string(body));
	out = strdup(json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return out;
}

START_TEST(gap_sealed)
{
	static const char body[] = "{\"v\":1,\"k\":\"gap\",\"from\":"
	    "\"0123456789abcdef\",\"n\":\"fedcba9876543210\"}";
	struct wymcp_server	*srv, *other;
	struct front_control	*a, *b, *x;
	struct front_event	 in;
	struct front_gapset	 gs;
	char			*g1, *g2, *f, *p, uri[] = "note://g";
	long long		 now = (long long)time(NULL);

	srv = wymcp_server_new();
	other = wymcp_server_new();
	ck_assert_ptr_nonnull(srv);
	ck_assert_ptr_nonnull(other);
	/* Two hubs of one key (ids of their own), a third of another. */
	a = front_control_new(srv, NULL);
	b = front_control_new(srv, NULL);
	x = front_control_new(other, NULL);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(x);
	/* Two gaps of one second are two frames (their nonces). */
	g1 = front_control_gap(a, NULL);
	g2 = front_control_gap(a, NULL);
	ck_assert_ptr_nonnull(g1);
	ck_assert_ptr_nonnull(g2);
	ck_assert_str_ne(g1, g2);
	ck_assert_int_eq(open_frame(b, g1, &in), FRONT_REF_NONE);
	ck_assert_int_eq(in.kind, FRONT_EV_GAP);
	ck_assert(!front_control_ours(b, &in));
	front_event_clear(&in);
	ck_assert_int_eq(open_frame(b, g2, &in), FRONT_REF_NONE);
	front_event_clear(&in);
	/* Taken once: a replay is refused. */
	ck_assert_int_eq(open_frame(b, g1, &in), FRONT_REF_REPLAYED);
	ck_assert_int_eq(in.kind, 0);
	/* The sealer knows its own. */
	ck_assert_int_eq(open_frame(a, g1, &in), FRONT_REF_NONE);
	ck_assert(front_control_ours(a, &in));
	front_event_clear(&in);
	/* A gap naming its streams says them sealed. */
	memset(&gs, 0, sizeof(gs));
	gs.lists = WYMCP_LIST_RESOURCES;
	gs.uris[0] = uri;
	gs.nuris = 1;
	f = front_control_gap(a, &gs);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(open_frame(b, f, &in), FRONT_REF_NONE);
	ck_assert(in.narrow);
	ck_assert_int_eq(in.lists, WYMCP_LIST_RESOURCES);
	ck_assert_str_eq(json_object_get_string(
	    json_object_array_get_idx(in.uris, 0)), "note://g");
	front_event_clear(&in);
	free(f);
	gs.all = 1;
	f = front_control_gap(a, &gs);
	ck_assert_int_eq(open_frame(b, f, &in), FRONT_REF_NONE);
	ck_assert(!in.narrow);
	front_event_clear(&in);
	free(f);
	/* Another key: forged. */
	ck_assert_int_eq(open_frame(x, g1, &in), FRONT_REF_FORGED);
	/* A MAC changed, a body changed: forged. */
	f = strdup(g2);
	p = strstr(f, "\"mac\":\"") + 7;
	*p = *p == '0' ? '1' : '0';
	ck_assert_int_eq(open_frame(x, f, &in), FRONT_REF_FORGED);
	ck_assert_int_eq(open_frame(b, f, &in), FRONT_REF_FORGED);
	free(f);
	f = strdup(g2);
	p = strstr(f, "\\\"n\\\":\\\"") + 8;
	*p = *p == '0' ? '1' : '0';
	ck_assert_int_eq(open_frame(a, f, &in), FRONT_REF_FORGED);
	free(f);
	/* Sealed right but stale, or from the future: refused. */
	f = sealed_at(srv, now - 120, body);
	ck_assert_int_eq(open_frame(b, f, &in), FRONT_REF_FORGED);
	free(f);
	f = sealed_at(srv, now + 120, body);
	ck_assert_int_eq(open_frame(b, f, &in), FRONT_REF_FORGED);
	free(f);
	f = sealed_at(srv, now, body);
	ck_assert_int_eq(open_frame(b, f, &in), FRONT_REF_NONE);
	ck_assert_str_eq(in.from, "0123456789abcdef");
	front_event_clear(&in);
	free(f);
	/* A gap said by a worker or by anyone on the bus, unsealed. */
	refused(body, FRONT_FROM_OUTSIDE, FRONT_REF_COMMAND);
	free(g1);
	free(g2);
	front_control_free(a);
	front_control_free(b);
	front_control_free(x);
	wymcp_server_free(srv);
	wymcp_server_free(other);
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
	tc = tcase_create("gap");
	tcase_add_test(tc, gap_members);
	tcase_add_test(tc, gap_narrow);
	tcase_add_test(tc, gap_sealed);
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
