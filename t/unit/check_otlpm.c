/*
 * check_otlpm.c - the exporter's mcp.server.operation.duration
 * histogram (src/front/otlpm.c, included): span lines in, an
 * ExportMetricsServiceRequest (OTLP/JSON) out, read back with json-c
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "../../src/front/otlpm.c"

#define T0	1700000000000000000LL

static struct front_otlpm	*m;
static char			*buf;

static void
setup(void)
{
	m = front_otlpm_new(T0);
	ck_assert_ptr_nonnull(m);
	buf = malloc(front_otlpm_cap());
	ck_assert_ptr_nonnull(buf);
}

static void
teardown(void)
{
	front_otlpm_free(m);
	free(buf);
}

/* A span line as audit.c writes it: kind, duration in ns, attributes. */
static int
span(int kind, long long ns, const char *attrs)
{
	char	 line[2048];
	int	 n;

	n = snprintf(line, sizeof(line), "{\"traceId\":\"0af7651916cd43dd"
	    "8448eb211c80319c\",\"spanId\":\"b7ad6b7169203331\",\"name\":"
	    "\"x\",\"kind\":%d,\"startTimeUnixNano\":\"%lld\","
	    "\"endTimeUnixNano\":\"%lld\",\"attributes\":[%s]}", kind,
	    T0 + 5, T0 + 5 + ns, attrs);
	ck_assert_int_lt(n, (int)sizeof(line));
	return front_otlpm_take(m, line, (size_t)n);
}

#define A(k, v)	"{\"key\":\"" k "\",\"value\":{\"stringValue\":\"" v "\"}}"
#define CALL(tool)	A("mcp.method.name", "tools/call") "," \
	A("gen_ai.tool.name", tool) "," A("mcp.protocol.version", "2026-07-28")

/* The request's histogram, parsed. */
static struct json_object *
body(void)
{
	struct json_object	*o, *h;
	size_t			 n;

	n = front_otlpm_body(m, "{\"key\":\"service.name\",\"value\":"
	    "{\"stringValue\":\"wymcp\"}}", "0.4", T0 + 1000000000LL, buf,
	    front_otlpm_cap());
	ck_assert_uint_gt(n, 0);
	buf[n] = '\0';
	o = json_tokener_parse(buf);
	ck_assert_ptr_nonnull(o);
	h = json_object_array_get_idx(json_object_object_get(
	    json_object_array_get_idx(json_object_object_get(
	    json_object_array_get_idx(json_object_object_get(o,
	    "resourceMetrics"), 0), "scopeMetrics"), 0), "metrics"), 0);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(h,
	    "name")), "mcp.server.operation.duration");
	ck_assert_str_eq(json_object_get_string(json_object_object_get(h,
	    "unit")), "s");
	h = json_object_object_get(h, "histogram");
	ck_assert_int_eq(json_object_get_int(json_object_object_get(h,
	    "aggregationTemporality")), 2);
	json_object_get(h);
	json_object_put(o);
	return h;
}

static struct json_object *
dp(struct json_object *h, size_t i)
{
	return json_object_array_get_idx(json_object_object_get(h,
	    "dataPoints"), i);
}

/* Attribute k of data point p, or NULL. */
static const char *
attr_of(struct json_object *p, const char *k)
{
	struct json_object	*a, *e;
	size_t			 i;

	a = json_object_object_get(p, "attributes");
	for (i = 0; i < json_object_array_length(a); i++) {
		e = json_object_array_get_idx(a, i);
		if (strcmp(json_object_get_string(json_object_object_get(e,
		    "key")), k) == 0)
			return json_object_get_string(json_object_object_get(
			    json_object_object_get(e, "value"),
			    "stringValue"));
	}
	return NULL;
}

static long long
num(struct json_object *p, const char *k)
{
	return atoll(json_object_get_string(json_object_object_get(p, k)));
}

START_TEST(one_tool)
{
	struct json_object	*h, *p, *b, *e;
	static const double	 want[] = { 0.01, 0.02, 0.05, 0.1, 0.2, 0.5,
	    1, 2, 5, 10, 30, 60, 120, 300 };
	size_t			 i;

	/* 10 ms (on the first bound: in it), 15 ms, 400 s (past all). */
	ck_assert_int_eq(span(2, 10000000, CALL("book_room")), 1);
	ck_assert_int_eq(span(2, 15000000, CALL("book_room")), 1);
	ck_assert_int_eq(span(2, 400000000000LL, CALL("book_room")), 1);
	h = body();
	ck_assert_uint_eq(json_object_array_length(json_object_object_get(h,
	    "dataPoints")), 1);
	p = dp(h, 0);
	ck_assert_int_eq(num(p, "count"), 3);
	ck_assert_double_eq_tol(json_object_get_double(
	    json_object_object_get(p, "sum")), 400.025, 1e-6);
	ck_assert_int_eq(num(p, "startTimeUnixNano"), T0);
	ck_assert_int_eq(num(p, "timeUnixNano"), T0 + 1000000000LL);
	ck_assert_str_eq(attr_of(p, "mcp.method.name"), "tools/call");
	ck_assert_str_eq(attr_of(p, "gen_ai.tool.name"), "book_room");
	ck_assert_str_eq(attr_of(p, "gen_ai.operation.name"), "execute_tool");
	ck_assert_str_eq(attr_of(p, "mcp.protocol.version"), "2026-07-28");
	ck_assert_str_eq(attr_of(p, "network.transport"), "tcp");
	ck_assert_str_eq(attr_of(p, "network.protocol.name"), "http");
	ck_assert_ptr_null(attr_of(p, "error.type"));
	b = json_object_object_get(p, "bucketCounts");
	e = json_object_object_get(p, "explicitBounds");
	ck_assert_uint_eq(json_object_array_length(e), 14);
	ck_assert_uint_eq(json_object_array_length(b), 15);
	for (i = 0; i < 14; i++)
		ck_assert_double_eq(json_object_get_double(
		    json_object_array_get_idx(e, i)), want[i]);
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(b,
	    0)), "1");
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(b,
	    1)), "1");
	ck_assert_str_eq(json_object_get_string(json_object_array_get_idx(b,
	    14)), "1");
	ck_assert_double_eq_tol(json_object_get_double(
	    json_object_object_get(p, "min")), 0.01, 1e-9);
	ck_assert_double_eq_tol(json_object_get_double(
	    json_object_object_get(p, "max")), 400, 1e-9);
	json_object_put(h);
}
END_TEST

START_TEST(outcomes)
{
	struct json_object	*h, *p;

	ck_assert_int_eq(span(2, 1000, CALL("book_room")), 1);
	ck_assert_int_eq(span(2, 1000, CALL("book_room") ","
	    A("error.type", "tool_error")), 1);
	/* A JSON-RPC error: the name the client sent is not kept. */
	ck_assert_int_eq(span(2, 1000, CALL("nosuch") ","
	    A("rpc.response.status_code", "-32602") ","
	    A("error.type", "-32602")), 1);
	/* A task's run (INTERNAL) is not a request. */
	ck_assert_int_eq(span(1, 1000, CALL("book_room")), 0);
	ck_assert_int_eq(span(2, 1000, A("mcp.method.name", "x/made-up") ","
	    A("mcp.protocol.version", "2031-01-01") "," A("error.type", "boom")), 1);
	ck_assert_uint_eq(front_otlpm_sets(m), 4);
	h = body();
	p = dp(h, 1);
	ck_assert_str_eq(attr_of(p, "error.type"), "tool_error");
	ck_assert_str_eq(attr_of(p, "gen_ai.tool.name"), "book_room");
	ck_assert_ptr_null(attr_of(p, "rpc.response.status_code"));
	p = dp(h, 2);
	ck_assert_str_eq(attr_of(p, "error.type"), "-32602");
	ck_assert_str_eq(attr_of(p, "rpc.response.status_code"), "-32602");
	ck_assert_ptr_null(attr_of(p, "gen_ai.tool.name"));
	ck_assert_int_eq(num(p, "count"), 1);
	p = dp(h, 3);
	ck_assert_str_eq(attr_of(p, "mcp.method.name"), "_OTHER");
	ck_assert_str_eq(attr_of(p, "error.type"), "_OTHER");
	ck_assert_ptr_null(attr_of(p, "mcp.protocol.version"));
	ck_assert_ptr_null(attr_of(p, "gen_ai.operation.name"));
	json_object_put(h);
}
END_TEST

START_TEST(not_spans)
{
	static const char *const bad[] = {
		"", "{", "[]", "{\"kind\":2}", "{\"kind\":2,\"startTimeUnix"
		"Nano\":\"5\",\"endTimeUnixNano\":\"4\"}",
		"{\"kind\":2,\"startTimeUnixNano\":\"-5\",\"endTimeUnixNano\":"
		"\"4\"}", "{\"kind\":2,\"startTimeUnixNano\":\"5\","
		"\"endTimeUnixNano\":\"99999999999999999999\"}",
		"{\"kind\":2,\"startTimeUnixNano\":\"1\",\"endTimeUnixNano\":"
		"\"2\"} trailing", NULL
	};
	size_t	 i;

	for (i = 0; bad[i] != NULL; i++)
		ck_assert_int_eq(front_otlpm_take(m, bad[i], strlen(bad[i])),
		    -1);
	/* A span without mcp.method.name is not counted. */
	ck_assert_int_eq(span(2, 1, A("error.type", "tool_error")), 0);
	ck_assert_uint_eq(front_otlpm_sets(m), 0);
	ck_assert_uint_eq(front_otlpm_body(m, "", "0", T0, buf,
	    front_otlpm_cap()), 0);
}
END_TEST

START_TEST(bounded)
{
	struct json_object	*h, *p;
	char			 a[256];
	int			 i;

	for (i = 0; i < 300; i++) {
		snprintf(a, sizeof(a), A("mcp.method.name", "tools/call") ","
		    A("gen_ai.tool.name", "t%d"), i);
		ck_assert_int_eq(span(2, 1000, a), 1);
	}
	ck_assert_uint_eq(front_otlpm_sets(m), 256);
	ck_assert_uint_eq(front_otlpm_overflowed(m), 300 - 255);
	h = body();
	p = dp(h, 255);
	ck_assert_int_eq(num(p, "count"), 45);
	ck_assert_ptr_null(attr_of(p, "gen_ai.tool.name"));
	ck_assert_int_eq(json_object_get_boolean(json_object_object_get(
	    json_object_object_get(json_object_array_get_idx(
	    json_object_object_get(p, "attributes"), 1), "value"),
	    "boolValue")), 1);
	json_object_put(h);
	/* Too small a buffer: nothing, not a cut request. */
	ck_assert_uint_eq(front_otlpm_body(m, "", "0", T0, buf, 4096), 0);
}
END_TEST

/* Every set with its longest strings: the request still fits. */
START_TEST(worst)
{
	char	 a[512];
	int	 i;

	for (i = 0; i < 300; i++) {
		ck_assert_int_eq(span(2, 300000000000LL + i,
		    A("mcp.method.name", "notifications/resources/list_changed")
		    "," A("error.type", "-2147483648") ","
		    A("mcp.protocol.version", "2026-07-28") ","
		    "{\"key\":\"gen_ai.tool.name\",\"value\":{}}"), 1);
		snprintf(a, sizeof(a), A("mcp.method.name", "tools/call") ","
		    A("error.type", "tool_error") ","
		    A("mcp.protocol.version", "2026-07-28") ","
		    A("gen_ai.tool.name", "%062d"), i);
		ck_assert_int_eq(span(2, 300000000000LL + i, a), 1);
	}
	ck_assert_uint_eq(front_otlpm_sets(m), 256);
	ck_assert_uint_gt(front_otlpm_body(m, "", "0.4", T0, buf,
	    front_otlpm_cap()), 0);
}
END_TEST

START_TEST(paths)
{
	static const char *const cases[][2] = {
		{ "/v1/traces", "/v1/metrics" },
		{ "/otlp/v1/traces", "/otlp/v1/metrics" },
		{ "/", "/v1/metrics" },
		{ "/collector/", "/collector/v1/metrics" },
		{ "/collector", "/collector/v1/metrics" },
		{ "/v1/traces/x", "/v1/traces/x/v1/metrics" },
	};
	char	 out[64];
	size_t	 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		front_otlpm_path(cases[i][0], out, sizeof(out));
		ck_assert_str_eq(out, cases[i][1]);
	}
}
END_TEST

static Suite *
suite(void)
{
	Suite	*s = suite_create("otlpm");
	TCase	*tc = tcase_create("histogram");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, one_tool);
	tcase_add_test(tc, outcomes);
	tcase_add_test(tc, not_spans);
	tcase_add_test(tc, bounded);
	tcase_add_test(tc, paths);
	tcase_add_test(tc, worst);
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
