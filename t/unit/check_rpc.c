/* check_rpc.c - JSON parsing, the JSON-RPC envelope and the MCP _meta */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "testing/testing.h"

#define P(s)	wymcp__parse((s), sizeof(s) - 1)

static const char *
plain(struct json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
}

/* Parse a literal the test knows is JSON. */
static struct json_object *
j(const char *s)
{
	struct json_object	*o;

	o = json_tokener_parse(s);
	ck_assert_msg(o != NULL || strcmp(s, "null") == 0, "bad test JSON %s",
	    s);
	return o;
}

START_TEST(parse_accepts_object)
{
	struct json_object	*o;

	o = P("{\"a\":[1,\"x\",null,true,{\"b\":1.5}]}");
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(plain(o), "{\"a\":[1,\"x\",null,true,{\"b\":1.5}]}");
	json_object_put(o);
	o = P(" \r\n\t{}");
	ck_assert_ptr_nonnull(o);
	json_object_put(o);
}
END_TEST

START_TEST(parse_trailing_garbage_rejected)
{
	ck_assert_ptr_null(P("{}x"));
	ck_assert_ptr_null(P("{} {}"));
	ck_assert_ptr_null(P("{}]"));
	ck_assert_ptr_null(P("{}\f"));
	ck_assert_ptr_null(P("{\"a\":1}/*c*/"));
}
END_TEST

START_TEST(parse_trailing_whitespace_ok)
{
	struct json_object	*o;

	o = P("{\"a\":1} \t\r\n \n");
	ck_assert_ptr_nonnull(o);
	ck_assert_str_eq(plain(o), "{\"a\":1}");
	json_object_put(o);
}
END_TEST

START_TEST(parse_nul_byte_rejected)
{
	ck_assert_ptr_null(P("{\"a\":1}\0"));
	ck_assert_ptr_null(P("{\"a\":\"\0\"}"));
	ck_assert_ptr_null(P("\0{}"));
}
END_TEST

START_TEST(parse_invalid_utf8_rejected)
{
	ck_assert_ptr_null(P("{\"a\":\"\xff\"}"));
	ck_assert_ptr_null(P("{\"a\":\"\xc3\"}"));
	ck_assert_ptr_null(P("{\"\x80\":1}"));
	/* Overlong, surrogate and beyond U+10FFFF, which json-c lets by. */
	ck_assert_ptr_null(P("{\"a\":\"\xc0\x80\"}"));
	ck_assert_ptr_null(P("{\"a\":\"\xed\xa0\x80\"}"));
	ck_assert_ptr_null(P("{\"a\":\"\xf4\x90\x80\x80\"}"));
}
END_TEST

START_TEST(parse_valid_utf8_accepted)
{
	struct json_object	*o;

	o = P("{\"a\":\"caf\xc3\xa9 \xf0\x9f\x98\x80\"}");
	ck_assert_ptr_nonnull(o);
	json_object_put(o);
}
END_TEST

START_TEST(parse_empty_rejected)
{
	ck_assert_ptr_null(wymcp__parse("", 0));
	ck_assert_ptr_null(P(" "));
	ck_assert_ptr_null(P("\r\n"));
}
END_TEST

START_TEST(parse_incomplete_and_non_json_rejected)
{
	ck_assert_ptr_null(P("{"));
	ck_assert_ptr_null(P("{\"a\":"));
	ck_assert_ptr_null(P("{\"a\":1,}"));
	ck_assert_ptr_null(P("[1,]"));
	ck_assert_ptr_null(P("{a:1}"));
	ck_assert_ptr_null(P("{\"a\":TRUE}"));
	ck_assert_ptr_null(P("{\"a\":\"\\x41\"}"));
	ck_assert_ptr_null(P("{\"a\":01}"));
}
END_TEST

START_TEST(parse_non_json_numbers_rejected)
{
	/*
	 * json-c 0.16 accepts these even with JSON_TOKENER_STRICT, keeps
	 * their text and writes it back out: a request echoing one makes
	 * the response invalid JSON (t/fuzz/fuzz_serve found it).
	 */
	ck_assert_ptr_null(P("{\"a\":NaN}"));
	ck_assert_ptr_null(P("{\"a\":Infinity}"));
	ck_assert_ptr_null(P("{\"a\":-Infinity}"));
	ck_assert_ptr_null(P("{\"a\":1.}"));
	ck_assert_ptr_null(P("[1.e5]"));
}
END_TEST

START_TEST(parse_json_c_leniencies_rejected)
{
	/* Accepted by json-c 0.16 even with JSON_TOKENER_STRICT. */
	ck_assert_ptr_null(P("{'a':1}"));
	ck_assert_ptr_null(P("[\"\x01\"]"));
	ck_assert_ptr_null(P("[\"a\tb\"]"));
}
END_TEST

START_TEST(parse_bare_scalars_accepted)
{
	struct json_object	*o;

	o = P("1");
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(json_object_get_int(o), 1);
	json_object_put(o);
	o = P("true");
	ck_assert_ptr_nonnull(o);
	ck_assert(json_object_is_type(o, json_type_boolean));
	json_object_put(o);
	o = P("\"s\"");
	ck_assert_ptr_nonnull(o);
	json_object_put(o);
}
END_TEST

START_TEST(parse_deep_nesting_rejected)
{
	char			 buf[2 * 4096 + 1];
	struct json_object	*o;
	size_t			 d;

	/* A modest depth parses. */
	for (d = 0; d < 16; d++) {
		buf[d] = '[';
		buf[16 + d] = ']';
	}
	o = wymcp__parse(buf, 32);
	ck_assert_ptr_nonnull(o);
	json_object_put(o);
	/* Deep nesting is refused instead of exhausting the stack. */
	memset(buf, '[', 4096);
	memset(buf + 4096, ']', 4096);
	ck_assert_ptr_null(wymcp__parse(buf, 8192));
	memset(buf, '[', 64);
	memset(buf + 64, ']', 64);
	ck_assert_ptr_null(wymcp__parse(buf, 128));
}
END_TEST

/* parse with a memo: `text' parsed; *f its fault; the object (put it). */
static struct json_object *
memo_parse(struct wymcp__json_memo *m, const char *text,
    enum wymcp__json_fault *f)
{
	struct wymcp__json_err	 e;

	return wymcp__parse_memo(text, strlen(text), f, &e, m);
}

/*
 * The _meta memo: the same bytes give the very object again, other
 * bytes a new one; what the text around it says (a duplicate, \u0000,
 * a syntax error, nesting) is still seen; the memo's own \u0000 and
 * depth count as if its bytes had been read.
 */
START_TEST(parse_meta_memo)
{
	struct wymcp__json_memo	 m;
	struct json_object	*a, *b, *ma, *mb, *p;
	enum wymcp__json_fault	 f;
	const char *r1 = "{\"id\":1,\"params\":{\"_meta\":{\"v\":\"x\","
	    "\"c\":{\"e\":{}}},\"n\":1}}";
	const char *r2 = "{\"id\":2,\"params\":{\"_meta\":{\"v\":\"x\","
	    "\"c\":{\"e\":{}}},\"n\":2}}";
	char	 deep[256];
	int	 d;

	memset(&m, 0, sizeof(m));
	a = memo_parse(&m, r1, &f);
	ck_assert_int_eq(f, WYMCP__JSON_OK);
	ck_assert_ptr_nonnull(m.obj);
	b = memo_parse(&m, r2, &f);
	ck_assert_int_eq(f, WYMCP__JSON_OK);
	ck_assert(json_object_object_get_ex(a, "params", &p));
	ck_assert(json_object_object_get_ex(p, "_meta", &ma));
	ck_assert(json_object_object_get_ex(b, "params", &p));
	ck_assert(json_object_object_get_ex(p, "_meta", &mb));
	ck_assert_ptr_eq(ma, mb);
	ck_assert_str_eq(json_object_to_json_string_ext(b,
	    JSON_C_TO_STRING_PLAIN), r2);
	json_object_put(a);
	json_object_put(b);
	/* Other bytes: a new object, kept for the next. */
	a = memo_parse(&m, "{\"params\":{\"_meta\":{\"v\":\"y\"}}}", &f);
	ck_assert_int_eq(f, WYMCP__JSON_OK);
	ck_assert(json_object_object_get_ex(a, "params", &p));
	ck_assert(json_object_object_get_ex(p, "_meta", &mb));
	ck_assert_ptr_ne(ma, mb);
	ck_assert_ptr_eq(m.obj, mb);
	json_object_put(a);
	/* The text around a memo'd _meta is still checked. */
	ck_assert_ptr_null(memo_parse(&m, "{\"params\":{\"_meta\":"
	    "{\"v\":\"y\"},\"_meta\":{\"v\":\"y\"}}}", &f));
	ck_assert_int_eq(f, WYMCP__JSON_DUPLICATE);
	ck_assert_ptr_null(memo_parse(&m, "{\"params\":{\"_meta\":"
	    "{\"v\":\"y\"}}", &f));
	ck_assert_int_eq(f, WYMCP__JSON_SYNTAX);
	ck_assert_ptr_null(memo_parse(&m, "{\"params\":{\"_meta\":"
	    "{\"v\":\"y\"}}}x", &f));
	ck_assert_int_eq(f, WYMCP__JSON_SYNTAX);
	/* A memo holding \u0000 flags the text that repeats it. */
	a = memo_parse(&m, "{\"_meta\":{\"v\":\"\\u0000\"}}", &f);
	ck_assert_int_eq(f, WYMCP__JSON_NUL);
	json_object_put(a);
	a = memo_parse(&m, "{\"_meta\":{\"v\":\"\\u0000\"}}", &f);
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(f, WYMCP__JSON_NUL);
	json_object_put(a);
	/* A memo met deep in the text counts its own nesting. */
	a = memo_parse(&m, "{\"_meta\":{\"a\":[[[[[[[[[[1]]]]]]]]]]}}", &f);
	ck_assert_int_eq(f, WYMCP__JSON_OK);
	json_object_put(a);
	/* 19 arrays around: 31 deep, taken; 20: 32, refused. */
	for (d = 19; d <= 20; d++) {
		memset(deep, '[', (size_t)d);
		snprintf(deep + d, sizeof(deep) - (size_t)d, "{\"_meta\":"
		    "{\"a\":[[[[[[[[[[1]]]]]]]]]]}}");
		memset(deep + strlen(deep), ']', (size_t)d);
		deep[strlen("{\"_meta\":{\"a\":[[[[[[[[[[1]]]]]]]]]]}}") +
		    2 * (size_t)d] = '\0';
		a = memo_parse(&m, deep, &f);
		ck_assert_int_eq(f, d == 19 ? WYMCP__JSON_OK :
		    WYMCP__JSON_SYNTAX);
		json_object_put(a);
	}
	wymcp__json_memo_free(&m);
	ck_assert_ptr_null(m.obj);
}
END_TEST

/* wymcp__parse_ex() on a literal: the fault, the object put. */
static enum wymcp__json_fault
fault_of(const char *s)
{
	enum wymcp__json_fault	 f;

	json_object_put(wymcp__parse_ex(s, strlen(s), &f));
	return f;
}

START_TEST(parse_duplicate_members_rejected)
{
	static const char *const dups[] = {
		"{\"a\":1,\"a\":1}",
		"{\"a\":1,\"b\":2,\"a\":3}",
		"[{\"x\":{\"y\":[{\"z\":1,\"z\":2}]}}]",
		"{\"a\":{\"k\":1},\"a\":{\"k\":1,\"l\":2}}",
		"{\"ab\":1,\"\\u0061b\":2}",
		"{\"\\/\":1,\"/\":2}",
		"{\"a\\u0000b\":1,\"a\\u0000c\":2}",
		"{\"\\ud800\":1,\"\\udfff\":2}",
		"{\"\\ud800\":1,\"\\ufffd\":2}",
	};
	size_t	 i;

	for (i = 0; i < sizeof(dups) / sizeof(dups[0]); i++) {
		ck_assert_msg(fault_of(dups[i]) == WYMCP__JSON_DUPLICATE,
		    "%s: %d", dups[i], fault_of(dups[i]));
		ck_assert_ptr_null(wymcp__parse(dups[i], strlen(dups[i])));
	}
	ck_assert_int_eq(fault_of("{\"a\":{\"a\":{\"a\":1}},\"b\":"
	    "[{\"a\":1},{\"a\":2}]}"), WYMCP__JSON_OK);
	ck_assert_int_eq(fault_of("{}"), WYMCP__JSON_OK);
	ck_assert_int_eq(fault_of("[{},{},{}]"), WYMCP__JSON_OK);
}
END_TEST

START_TEST(parse_many_objects_counted)
{
	char			*buf;
	size_t			 i, n = 5000, len = 0;
	struct json_object	*o;
	enum wymcp__json_fault	 f;

	/* More objects than the scan counts without allocating. */
	buf = malloc(n * 16 + 16);
	ck_assert_ptr_nonnull(buf);
	buf[len++] = '[';
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(buf + len, "%s{\"k\":%zu}",
		    i > 0 ? "," : "", i);
	buf[len++] = ']';
	o = wymcp__parse_ex(buf, len, &f);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(f, WYMCP__JSON_OK);
	json_object_put(o);
	/* The last one names k twice. */
	len--;
	len += (size_t)sprintf(buf + len, ",{\"k\":1,\"k\":2}]");
	ck_assert_ptr_null(wymcp__parse_ex(buf, len, &f));
	ck_assert_int_eq(f, WYMCP__JSON_DUPLICATE);
	free(buf);
}
END_TEST

START_TEST(parse_nul_escape_flagged)
{
	struct json_object	*o;
	enum wymcp__json_fault	 f;

	o = wymcp__parse_ex("{\"a\":\"x\\u0000y\"}", 16, &f);
	ck_assert_ptr_nonnull(o);
	ck_assert_int_eq(f, WYMCP__JSON_NUL);
	json_object_put(o);
	ck_assert_int_eq(fault_of("{\"k\\u0000\":1}"), WYMCP__JSON_NUL);
	ck_assert_int_eq(fault_of("[\"\\u0000\"]"), WYMCP__JSON_NUL);
	/* An escaped backslash, then "u0000": no NUL. */
	ck_assert_int_eq(fault_of("[\"\\\\u0000\"]"), WYMCP__JSON_OK);
	ck_assert_int_eq(fault_of("[\"\\u0001\"]"), WYMCP__JSON_OK);
	/* wymcp__parse() refuses it. */
	ck_assert_ptr_null(P("[\"\\u0000\"]"));
	ck_assert_int_eq(fault_of("null"), WYMCP__JSON_NULL);
	ck_assert_int_eq(fault_of("[1"), WYMCP__JSON_SYNTAX);
	ck_assert_int_eq(fault_of("[18446744073709551616]"),
	    WYMCP__JSON_RANGE);
}
END_TEST

/* Run the envelope check on a literal. */
static int
env(const char *text, struct json_object **msg, struct json_object **id,
    const char **method, const char **why)
{
	*msg = j(text);
	*why = NULL;
	return wymcp__envelope(*msg, id, method, why);
}

/* The envelope is rejected with -32600 and a reason containing `part`. */
static void
env_bad(const char *text, const char *part)
{
	struct json_object	*msg, *id = (struct json_object *)1;
	const char		*method = "x", *why;

	ck_assert_int_eq(env(text, &msg, &id, &method, &why),
	    WYMCP__INVALID_REQUEST);
	ck_assert_ptr_nonnull(why);
	ck_assert_msg(strstr(why, part) != NULL, "%s: '%s' lacks '%s'",
	    text, why, part);
	json_object_put(msg);
}

START_TEST(envelope_batch_rejected)
{
	env_bad("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}]",
	    "batch");
	env_bad("[]", "batch");
}
END_TEST

START_TEST(envelope_non_object_rejected)
{
	env_bad("1", "not a JSON-RPC request object");
	env_bad("\"tools/list\"", "not a JSON-RPC request object");
	env_bad("true", "not a JSON-RPC request object");
	env_bad("null", "not a JSON-RPC request object");
}
END_TEST

START_TEST(envelope_jsonrpc_must_be_2_0)
{
	env_bad("{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"m\"}", "jsonrpc");
	env_bad("{\"id\":1,\"method\":\"m\"}", "jsonrpc");
	env_bad("{\"jsonrpc\":2.0,\"id\":1,\"method\":\"m\"}", "jsonrpc");
	env_bad("{\"jsonrpc\":\"2.0 \",\"id\":1,\"method\":\"m\"}",
	    "jsonrpc");
	env_bad("{\"jsonrpc\":null,\"id\":1,\"method\":\"m\"}", "jsonrpc");
}
END_TEST

START_TEST(envelope_bad_jsonrpc_keeps_valid_id)
{
	struct json_object	*msg, *id;
	const char		*method, *why;

	ck_assert_int_eq(env("{\"jsonrpc\":\"1.0\",\"id\":\"k\",\"method\":"
	    "\"m\"}", &msg, &id, &method, &why), WYMCP__INVALID_REQUEST);
	ck_assert_ptr_nonnull(id);
	ck_assert_str_eq(plain(id), "\"k\"");
	json_object_put(msg);
}
END_TEST

START_TEST(envelope_invalid_id_types_rejected)
{
	static const char *ids[] = {
		"null", "1.5", "1.0", "1e3", "true", "false", "{}", "[]",
		"[1]", "{\"a\":1}",
	};
	struct json_object	*msg, *id;
	const char		*method, *why;
	char			 buf[256];
	size_t			 i;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		snprintf(buf, sizeof(buf), "{\"jsonrpc\":\"2.0\",\"id\":%s,"
		    "\"method\":\"tools/list\"}", ids[i]);
		ck_assert_msg(env(buf, &msg, &id, &method, &why) ==
		    WYMCP__INVALID_REQUEST, "id %s accepted", ids[i]);
		ck_assert_ptr_null(id);
		ck_assert_ptr_nonnull(strstr(why, "id must be"));
		json_object_put(msg);
	}
}
END_TEST

START_TEST(envelope_string_and_integer_ids_ok)
{
	static const char *ids[] = {
		"\"abc\"", "\"\"", "\"1\"", "0", "7", "-1",
		"1700000000123", "9223372036854775807",
	};
	struct json_object	*msg, *id;
	const char		*method, *why;
	char			 buf[256];
	size_t			 i;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		snprintf(buf, sizeof(buf), "{\"jsonrpc\":\"2.0\",\"id\":%s,"
		    "\"method\":\"tools/list\",\"params\":{}}", ids[i]);
		ck_assert_msg(env(buf, &msg, &id, &method, &why) == 0,
		    "id %s rejected: %s", ids[i], why);
		ck_assert_ptr_nonnull(id);
		/* The id keeps its JSON type and value. */
		ck_assert_str_eq(plain(id), ids[i]);
		ck_assert_str_eq(method, "tools/list");
		json_object_put(msg);
	}
}
END_TEST

START_TEST(envelope_notification_has_no_id)
{
	struct json_object	*msg, *id = (struct json_object *)1;
	const char		*method, *why;

	ck_assert_int_eq(env("{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/initialized\"}", &msg, &id, &method, &why), 0);
	ck_assert_ptr_null(id);
	ck_assert_str_eq(method, "notifications/initialized");
	json_object_put(msg);
}
END_TEST

START_TEST(envelope_response_objects_rejected)
{
	env_bad("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", "response");
	env_bad("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1,"
	    "\"message\":\"m\"}}", "response");
}
END_TEST

START_TEST(envelope_missing_method_rejected)
{
	env_bad("{\"jsonrpc\":\"2.0\",\"id\":1}", "method is missing");
	env_bad("{\"jsonrpc\":\"2.0\",\"id\":1,\"params\":{}}",
	    "method is missing");
}
END_TEST

START_TEST(envelope_method_not_string_rejected)
{
	env_bad("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":1}",
	    "method must be a string");
	env_bad("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":null}",
	    "method must be a string");
	env_bad("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":[\"m\"]}",
	    "method must be a string");
}
END_TEST

START_TEST(envelope_params_not_object_rejected)
{
	env_bad("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":1}",
	    "params must be");
	env_bad("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\","
	    "\"params\":\"x\"}", "params must be");
	env_bad("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\","
	    "\"params\":null}", "params must be");
	env_bad("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\","
	    "\"params\":true}", "params must be");
}
END_TEST

/* Run the _meta check on a params literal (or NULL). */
static int
meta(const char *params, struct json_object **p, struct json_object **m,
    const char **version, struct json_object **caps, const char **why)
{
	*p = params == NULL ? NULL : j(params);
	*why = NULL;
	return wymcp__meta(*p, m, version, caps, why);
}

static void
meta_bad(const char *params, const char *part)
{
	struct json_object	*p, *m, *caps;
	const char		*version, *why;

	ck_assert_int_eq(meta(params, &p, &m, &version, &caps, &why),
	    WYMCP__INVALID_PARAMS);
	ck_assert_ptr_nonnull(why);
	ck_assert_msg(strstr(why, part) != NULL, "%s: '%s' lacks '%s'",
	    params != NULL ? params : "NULL", why, part);
	ck_assert_ptr_null(caps);
	json_object_put(p);
}

#define V	"\"io.modelcontextprotocol/protocolVersion\""
#define C	"\"io.modelcontextprotocol/clientCapabilities\""

START_TEST(meta_complete_ok)
{
	struct json_object	*p, *m, *caps;
	const char		*version, *why;

	ck_assert_int_eq(meta("{\"_meta\":{" V ":\"2026-07-28\"," C
	    ":{\"sampling\":{}}},\"name\":\"x\"}", &p, &m, &version, &caps,
	    &why), 0);
	ck_assert_str_eq(version, "2026-07-28");
	ck_assert_str_eq(plain(caps), "{\"sampling\":{}}");
	ck_assert(json_object_object_get_ex(m, "io.modelcontextprotocol/"
	    "protocolVersion", NULL));
	json_object_put(p);
}
END_TEST

START_TEST(meta_params_missing)
{
	meta_bad(NULL, "params._meta");
	meta_bad("[]", "params._meta");
	meta_bad("{}", "params._meta");
	meta_bad("{\"meta\":{}}", "params._meta");
}
END_TEST

START_TEST(meta_not_object)
{
	meta_bad("{\"_meta\":null}", "params._meta");
	meta_bad("{\"_meta\":\"x\"}", "params._meta");
	meta_bad("{\"_meta\":[]}", "params._meta");
	meta_bad("{\"_meta\":1}", "params._meta");
}
END_TEST

START_TEST(meta_protocol_version_missing_or_wrong_type)
{
	meta_bad("{\"_meta\":{" C ":{}}}", "protocolVersion");
	meta_bad("{\"_meta\":{" V ":20260728," C ":{}}}", "protocolVersion");
	meta_bad("{\"_meta\":{" V ":null," C ":{}}}", "protocolVersion");
	meta_bad("{\"_meta\":{" V ":[\"2026-07-28\"]," C ":{}}}",
	    "protocolVersion");
	meta_bad("{\"_meta\":{\"protocolVersion\":\"2026-07-28\"," C ":{}}}",
	    "protocolVersion");
}
END_TEST

START_TEST(meta_client_caps_missing_or_wrong_type)
{
	meta_bad("{\"_meta\":{" V ":\"2026-07-28\"}}", "clientCapabilities");
	meta_bad("{\"_meta\":{" V ":\"2026-07-28\"," C ":null}}",
	    "clientCapabilities");
	meta_bad("{\"_meta\":{" V ":\"2026-07-28\"," C ":[]}}",
	    "clientCapabilities");
	meta_bad("{\"_meta\":{" V ":\"2026-07-28\"," C ":\"{}\"}}",
	    "clientCapabilities");
}
END_TEST

START_TEST(meta_client_info_optional)
{
	struct json_object	*p, *m, *caps;
	const char		*version, *why;

	ck_assert_int_eq(meta("{\"_meta\":{" V ":\"1999-01-01\"," C ":{}}}",
	    &p, &m, &version, &caps, &why), 0);
	/* The version is only read here; support is checked elsewhere. */
	ck_assert_str_eq(version, "1999-01-01");
	ck_assert_str_eq(plain(caps), "{}");
	json_object_put(p);
}
END_TEST

/* Compare what caps_missing finds with `want` (NULL: nothing missing). */
static void
caps(const char *required, const char *declared, const char *want)
{
	struct json_object	*r, *d, *m = (struct json_object *)1;
	int			 rc;

	r = required == NULL ? NULL : j(required);
	d = declared == NULL ? NULL : j(declared);
	rc = wymcp__caps_missing(r, d, &m);
	if (want == NULL) {
		ck_assert_msg(rc == 0, "%s vs %s: missing %s", required,
		    declared, plain(m));
		ck_assert_ptr_null(m);
	} else {
		ck_assert_msg(rc == 1, "%s vs %s: nothing missing", required,
		    declared);
		ck_assert_str_eq(plain(m), want);
	}
	json_object_put(m);
	json_object_put(r);
	json_object_put(d);
}

START_TEST(caps_nothing_required)
{
	caps(NULL, "{}", NULL);
	caps(NULL, NULL, NULL);
	caps("{}", "{}", NULL);
}
END_TEST

START_TEST(caps_sampling_missing)
{
	caps("{\"sampling\":{}}", "{}", "{\"sampling\":{}}");
	caps("{\"sampling\":{}}", NULL, "{\"sampling\":{}}");
	caps("{\"sampling\":{}}", "{\"roots\":{}}", "{\"sampling\":{}}");
	/* A declaration that is not an object declares nothing. */
	caps("{\"sampling\":{}}", "{\"sampling\":true}", "{\"sampling\":{}}");
	caps("{\"sampling\":{}}", "{\"sampling\":{}}", NULL);
	caps("{\"sampling\":{}}", "{\"sampling\":{\"tools\":{}}}", NULL);
}
END_TEST

START_TEST(caps_sampling_tools_missing)
{
	caps("{\"sampling\":{\"tools\":{}}}", "{\"sampling\":{}}",
	    "{\"sampling\":{\"tools\":{}}}");
	caps("{\"sampling\":{\"tools\":{}}}", "{\"sampling\":"
	    "{\"context\":{}}}", "{\"sampling\":{\"tools\":{}}}");
	caps("{\"sampling\":{\"tools\":{}}}", "{}",
	    "{\"sampling\":{\"tools\":{}}}");
	caps("{\"sampling\":{\"tools\":{}}}", "{\"sampling\":"
	    "{\"tools\":{}}}", NULL);
}
END_TEST

START_TEST(caps_only_missing_listed)
{
	caps("{\"sampling\":{},\"roots\":{}}", "{\"roots\":{}}",
	    "{\"sampling\":{}}");
	caps("{\"sampling\":{\"tools\":{},\"context\":{}}}",
	    "{\"sampling\":{\"context\":{}}}",
	    "{\"sampling\":{\"tools\":{}}}");
}
END_TEST

START_TEST(caps_elicitation_empty_satisfies_form)
{
	caps("{\"elicitation\":{\"form\":{}}}", "{\"elicitation\":{}}", NULL);
	caps("{\"elicitation\":{}}", "{\"elicitation\":{}}", NULL);
	caps("{\"elicitation\":{\"form\":{}}}", "{\"elicitation\":"
	    "{\"form\":{}}}", NULL);
	caps("{\"elicitation\":{\"form\":{}}}", "{}",
	    "{\"elicitation\":{\"form\":{}}}");
}
END_TEST

START_TEST(caps_elicitation_url_does_not_satisfy_form)
{
	caps("{\"elicitation\":{\"form\":{}}}", "{\"elicitation\":"
	    "{\"url\":{}}}", "{\"elicitation\":{\"form\":{}}}");
	caps("{\"elicitation\":{\"url\":{}}}", "{\"elicitation\":{}}",
	    "{\"elicitation\":{\"url\":{}}}");
	caps("{\"elicitation\":{\"url\":{}}}", "{\"elicitation\":"
	    "{\"form\":{}}}", "{\"elicitation\":{\"url\":{}}}");
	caps("{\"elicitation\":{\"url\":{}}}", "{\"elicitation\":"
	    "{\"url\":{}}}", NULL);
	/* A bare requirement means form mode, which url alone is not. */
	caps("{\"elicitation\":{}}", "{\"elicitation\":{\"url\":{}}}",
	    "{\"elicitation\":{\"form\":{}}}");
}
END_TEST

START_TEST(caps_elicitation_empty_form_plus_url_lists_only_url)
{
	/*
	 * "elicitation": {} declares form mode, so a tool needing form and
	 * url is missing url only (data.requiredCapabilities lists only
	 * what is missing).
	 */
	caps("{\"elicitation\":{\"form\":{},\"url\":{}}}",
	    "{\"elicitation\":{}}", "{\"elicitation\":{\"url\":{}}}");
}
END_TEST

START_TEST(caps_unknown_declared_keys_ignored)
{
	caps("{\"sampling\":{}}", "{\"x-vendor\":{\"a\":1},\"sampling\":{},"
	    "\"roots\":{\"listChanged\":true},\"extensions\":"
	    "{\"com.example/x\":{}}}", NULL);
	caps("{\"sampling\":{\"tools\":{}}}", "{\"sampling\":{\"tools\":{},"
	    "\"future\":{}}}", NULL);
	caps("{\"experimental\":{\"foo\":{}}}", "{\"experimental\":"
	    "{\"foo\":{\"v\":2},\"bar\":{}}}", NULL);
}
END_TEST

START_TEST(error_omits_id_when_null)
{
	struct json_object	*e;

	e = wymcp__error(NULL, WYMCP__PARSE_ERROR, "Parse error: Invalid JSON",
	    NULL);
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(plain(e), "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":"
	    "-32700,\"message\":\"Parse error: Invalid JSON\"}}");
	json_object_put(e);
}
END_TEST

START_TEST(error_keeps_json_type_of_id)
{
	static const char *ids[] = { "1", "\"1\"", "1700000000123", "\"\"",
	    "-5" };
	struct json_object	*id, *e;
	char			 want[256];
	size_t			 i;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		id = j(ids[i]);
		e = wymcp__error(id, WYMCP__METHOD_NOT_FOUND,
		    "Method not found: ping", NULL);
		snprintf(want, sizeof(want), "{\"jsonrpc\":\"2.0\",\"id\":%s,"
		    "\"error\":{\"code\":-32601,\"message\":"
		    "\"Method not found: ping\"}}", ids[i]);
		ck_assert_str_eq(plain(e), want);
		json_object_put(e);
		/* The caller's reference is untouched. */
		ck_assert_str_eq(plain(id), ids[i]);
		json_object_put(id);
	}
}
END_TEST

START_TEST(error_with_data)
{
	struct json_object	*id, *e, *d;

	id = j("\"r\"");
	d = j("{\"supported\":[\"2026-07-28\"],\"requested\":\"v999\"}");
	e = wymcp__error(id, WYMCP__UNSUPPORTED_VERSION,
	    "Unsupported protocol version", d);
	ck_assert_str_eq(plain(e), "{\"jsonrpc\":\"2.0\",\"id\":\"r\","
	    "\"error\":{\"code\":-32022,\"message\":\"Unsupported protocol "
	    "version\",\"data\":{\"supported\":[\"2026-07-28\"],"
	    "\"requested\":\"v999\"}}}");
	json_object_put(e);
	json_object_put(id);
}
END_TEST

START_TEST(response_wraps_result)
{
	struct json_object	*id, *r;

	id = j("42");
	r = wymcp__response(id, j("{\"resultType\":\"complete\"}"));
	ck_assert_str_eq(plain(r), "{\"jsonrpc\":\"2.0\",\"id\":42,"
	    "\"result\":{\"resultType\":\"complete\"}}");
	json_object_put(r);
	json_object_put(id);
}
END_TEST

static Suite *
rpc_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("rpc");
	tc = tcase_create("parse");
	tcase_add_test(tc, parse_accepts_object);
	tcase_add_test(tc, parse_trailing_garbage_rejected);
	tcase_add_test(tc, parse_trailing_whitespace_ok);
	tcase_add_test(tc, parse_nul_byte_rejected);
	tcase_add_test(tc, parse_invalid_utf8_rejected);
	tcase_add_test(tc, parse_valid_utf8_accepted);
	tcase_add_test(tc, parse_empty_rejected);
	tcase_add_test(tc, parse_incomplete_and_non_json_rejected);
	tcase_add_test(tc, parse_non_json_numbers_rejected);
	tcase_add_test(tc, parse_json_c_leniencies_rejected);
	tcase_add_test(tc, parse_bare_scalars_accepted);
	tcase_add_test(tc, parse_deep_nesting_rejected);
	tcase_add_test(tc, parse_duplicate_members_rejected);
	tcase_add_test(tc, parse_many_objects_counted);
	tcase_add_test(tc, parse_nul_escape_flagged);
	tcase_add_test(tc, parse_meta_memo);
	suite_add_tcase(s, tc);

	tc = tcase_create("envelope");
	tcase_add_test(tc, envelope_batch_rejected);
	tcase_add_test(tc, envelope_non_object_rejected);
	tcase_add_test(tc, envelope_jsonrpc_must_be_2_0);
	tcase_add_test(tc, envelope_bad_jsonrpc_keeps_valid_id);
	tcase_add_test(tc, envelope_invalid_id_types_rejected);
	tcase_add_test(tc, envelope_string_and_integer_ids_ok);
	tcase_add_test(tc, envelope_notification_has_no_id);
	tcase_add_test(tc, envelope_response_objects_rejected);
	tcase_add_test(tc, envelope_missing_method_rejected);
	tcase_add_test(tc, envelope_method_not_string_rejected);
	tcase_add_test(tc, envelope_params_not_object_rejected);
	suite_add_tcase(s, tc);

	tc = tcase_create("meta");
	tcase_add_test(tc, meta_complete_ok);
	tcase_add_test(tc, meta_params_missing);
	tcase_add_test(tc, meta_not_object);
	tcase_add_test(tc, meta_protocol_version_missing_or_wrong_type);
	tcase_add_test(tc, meta_client_caps_missing_or_wrong_type);
	tcase_add_test(tc, meta_client_info_optional);
	suite_add_tcase(s, tc);

	tc = tcase_create("caps");
	tcase_add_test(tc, caps_nothing_required);
	tcase_add_test(tc, caps_sampling_missing);
	tcase_add_test(tc, caps_sampling_tools_missing);
	tcase_add_test(tc, caps_only_missing_listed);
	tcase_add_test(tc, caps_elicitation_empty_satisfies_form);
	tcase_add_test(tc, caps_elicitation_url_does_not_satisfy_form);
	tcase_add_test(tc, caps_elicitation_empty_form_plus_url_lists_only_url);
	tcase_add_test(tc, caps_unknown_declared_keys_ignored);
	suite_add_tcase(s, tc);

	tc = tcase_create("reply");
	tcase_add_test(tc, error_omits_id_when_null);
	tcase_add_test(tc, error_keeps_json_type_of_id);
	tcase_add_test(tc, error_with_data);
	tcase_add_test(tc, response_wraps_result);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	sr = srunner_create(rpc_suite());
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
