/*
 * check_dispatch.c - the whole request pipeline, served in-process
 *
 * Every test sends CGI params and a body through wymcp_server_serve()
 * (t/lib/harness.c) with testmod and the bundled tools loaded, and
 * checks the status, headers and JSON-RPC body the web server would get.
 * The order of the checks is the one the official conformance suite
 * observes (src/serve/serve.c).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "testing/testing.h"
#include "harness.h"

#define META_CAPS(caps)							\
	"{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","	\
	"\"io.modelcontextprotocol/clientCapabilities\":" caps "}"
#define META_VERSION(v)							\
	"{\"io.modelcontextprotocol/protocolVersion\":\"" v "\","	\
	"\"io.modelcontextprotocol/clientCapabilities\":{}}"

static struct wymcp_server	*srv;
static struct h_resp		 resp;
static char			 testmod_path[1024];

/* Where the built modules are: top_builddir (set by make check) or ".". */
static void
module_path(char *buf, size_t sz, const char *rel)
{
	const char	*top;

	if ((top = getenv("top_builddir")) == NULL || *top == '\0')
		top = ".";
	snprintf(buf, sz, "%s/%s", top, rel);
}

static void
load(const char *rel)
{
	char	 path[1024];

	module_path(path, sizeof(path), rel);
	ck_assert_msg(wymcp_server_load_module(srv, path) == WYMCP_OK,
	    "%s: %s", path, wymcp_server_errmsg(srv));
}

static void
setup(void)
{
	memset(&resp, 0, sizeof(resp));
	srv = wymcp_server_new();
	ck_assert_ptr_nonnull(srv);
	module_path(testmod_path, sizeof(testmod_path),
	    "t/lib/.libs/testmod.so");
	load("t/lib/.libs/testmod.so");
	load("tools/.libs/help.so");
	load("tools/.libs/echo.so");
	load("tools/.libs/whoami.so");
}

static void
teardown(void)
{
	h_free(&resp);
	wymcp_server_free(srv);
	srv = NULL;
}

/* A well-formed request (harness defaults) with extra params. */
static void
call(const char *method, const char *name, const char *params,
    const char *const *extra)
{
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, method, name, params, extra, &resp),
	    WYMCP_OK);
	ck_assert_ptr_nonnull(resp.headers);
}

/*
 * A POST with exactly these mirrored headers (NULL: absent) and body;
 * `extra` params are appended.
 */
static void
post(const char *mh, const char *nh, const char *vh, const char *body,
    const char *const *extra)
{
	const char	*env[64];
	char		 m[512], n[512], v[512], cl[64];
	size_t		 i = 0, k;

	env[i++] = "REQUEST_METHOD=POST";
	env[i++] = "CONTENT_TYPE=application/json";
	env[i++] = "HTTP_HOST=localhost";
	snprintf(cl, sizeof(cl), "CONTENT_LENGTH=%zu", strlen(body));
	env[i++] = cl;
	if (mh != NULL) {
		snprintf(m, sizeof(m), "HTTP_MCP_METHOD=%s", mh);
		env[i++] = m;
	}
	if (nh != NULL) {
		snprintf(n, sizeof(n), "HTTP_MCP_NAME=%s", nh);
		env[i++] = n;
	}
	if (vh != NULL) {
		snprintf(v, sizeof(v), "HTTP_MCP_PROTOCOL_VERSION=%s", vh);
		env[i++] = v;
	}
	for (k = 0; extra != NULL && extra[k] != NULL && i < 63; k++)
		env[i++] = extra[k];
	env[i] = NULL;
	h_free(&resp);
	ck_assert_int_eq(h_serve(srv, env, body, &resp), WYMCP_OK);
	ck_assert_ptr_nonnull(resp.headers);
}

/* Serve with a complete params list. */
static void
serve(const char *const *env, const char *body)
{
	h_free(&resp);
	ck_assert_int_eq(h_serve(srv, env, body, &resp), WYMCP_OK);
	ck_assert_ptr_nonnull(resp.headers);
}

/* A request body: id (JSON text), method, params members after _meta. */
static const char *
body(const char *id, const char *method, const char *meta,
    const char *members)
{
	static char	 buf[4096];

	snprintf(buf, sizeof(buf), "{\"jsonrpc\":\"2.0\",\"id\":%s,"
	    "\"method\":\"%s\",\"params\":{\"_meta\":%s%s%s}}", id, method,
	    meta, members != NULL ? "," : "", members != NULL ? members : "");
	return buf;
}

/* The response is this HTTP status and JSON-RPC error code. */
static void
expect_error(int status, int code)
{
	ck_assert_msg(resp.status == status, "status %d, want %d: %s",
	    resp.status, status, resp.body);
	ck_assert_msg(h_code(&resp) == code, "code %d, want %d: %s",
	    h_code(&resp), code, resp.body);
	ck_assert_ptr_null(h_result(&resp));
	ck_assert_ptr_nonnull(h_jp(resp.json, "error", "message", NULL));
}

/* The error message contains `part`. */
static void
expect_message(const char *part)
{
	const char	*m;

	m = json_object_get_string(h_jp(resp.json, "error", "message", NULL));
	ck_assert_ptr_nonnull(m);
	ck_assert_msg(strstr(m, part) != NULL, "'%s' lacks '%s'", m, part);
}

/* A 200 response with a result; returns it. */
static struct json_object *
expect_result(void)
{
	ck_assert_msg(resp.status == 200, "status %d: %s", resp.status,
	    resp.body);
	ck_assert_msg(h_result(&resp) != NULL, "no result: %s", resp.body);
	ck_assert_ptr_null(h_jp(resp.json, "error", NULL));
	return h_result(&resp);
}

/* The response has no "id" member at all. */
static void
expect_no_id(void)
{
	ck_assert_msg(!json_object_object_get_ex(resp.json, "id", NULL),
	    "id present: %s", resp.body);
}

/* A good call still works: the worker survived. */
static void
expect_alive(void)
{
	call("tools/call", "ok_text", "{\"name\":\"ok_text\"}", NULL);
	expect_result();
	ck_assert_str_eq(h_text(&resp), "ok");
}

/* 1. Host and Origin (403). */

START_TEST(host_not_allowed_is_403)
{
	const char *const env[] = { "REQUEST_METHOD=POST",
	    "HTTP_HOST=evil.example.com", "HTTP_MCP_METHOD=tools/list",
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28", NULL };

	serve(env, body("1", "tools/list", H_META, NULL));
	ck_assert_int_eq(resp.status, 403);
	ck_assert_ptr_nonnull(resp.json);
	expect_no_id();
	ck_assert_int_lt(h_code(&resp), 0);
	expect_alive();
}
END_TEST

START_TEST(origin_not_allowed_is_403)
{
	const char *const env[] = { "REQUEST_METHOD=POST",
	    "HTTP_HOST=localhost", "HTTP_ORIGIN=http://evil.example.com",
	    "HTTP_MCP_METHOD=tools/list",
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28", NULL };
	const char *const nul[] = { "REQUEST_METHOD=POST",
	    "HTTP_ORIGIN=null", NULL };

	serve(env, body("1", "tools/list", H_META, NULL));
	ck_assert_int_eq(resp.status, 403);
	expect_no_id();
	serve(nul, body("1", "tools/list", H_META, NULL));
	ck_assert_int_eq(resp.status, 403);
}
END_TEST

START_TEST(origin_loopback_allowed)
{
	const char *const extra[] = { "HTTP_ORIGIN=http://localhost:3000",
	    NULL };

	call("tools/list", NULL, NULL, extra);
	expect_result();
}
END_TEST

START_TEST(origin_allowed_by_location_param_not_by_client)
{
	const char *const ok[] = { "WYMCP_ALLOW_ORIGIN=https://a.example",
	    "HTTP_ORIGIN=https://a.example", NULL };
	const char *const spoof[] = {
	    "HTTP_WYMCP_ALLOW_ORIGIN=https://a.example",
	    "HTTP_ORIGIN=https://a.example", NULL };
	const char *const env[] = { "REQUEST_METHOD=POST",
	    "CONTENT_TYPE=application/json", "HTTP_HOST=a.example:8443",
	    "WYMCP_ALLOW_ORIGIN=a.example", "HTTP_MCP_METHOD=tools/list",
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28", NULL };

	call("tools/list", NULL, NULL, ok);
	expect_result();
	call("tools/list", NULL, NULL, spoof);
	ck_assert_int_eq(resp.status, 403);
	serve(env, body("1", "tools/list", H_META, NULL));
	expect_result();
}
END_TEST

START_TEST(origin_allowed_by_server_config)
{
	const char *const extra[] = { "HTTP_ORIGIN=https://mcp.example.com",
	    NULL };
	const char *const port[] = {
	    "HTTP_ORIGIN=https://mcp.example.com:444", NULL };

	call("tools/list", NULL, NULL, extra);
	ck_assert_int_eq(resp.status, 403);
	ck_assert_int_eq(wymcp_server_allow_origin(srv,
	    "https://mcp.example.com"), WYMCP_OK);
	call("tools/list", NULL, NULL, extra);
	expect_result();
	call("tools/list", NULL, NULL, port);
	ck_assert_int_eq(resp.status, 403);
}
END_TEST

START_TEST(host_checked_before_method)
{
	const char *const env[] = { "REQUEST_METHOD=GET",
	    "HTTP_HOST=evil.example.com", NULL };

	serve(env, NULL);
	ck_assert_int_eq(resp.status, 403);
	ck_assert_ptr_null(strstr(resp.headers, "Allow:"));
}
END_TEST

/* 2. HTTP method (405). */

START_TEST(get_is_405_with_allow_post)
{
	const char *const env[] = { "REQUEST_METHOD=GET",
	    "HTTP_HOST=localhost", "HTTP_ACCEPT=text/event-stream", NULL };

	serve(env, NULL);
	ck_assert_int_eq(resp.status, 405);
	ck_assert_ptr_nonnull(strstr(resp.headers, "\r\nAllow: POST\r\n"));
	ck_assert_int_eq(strncmp(resp.headers,
	    "Status: 405 Method Not Allowed\r\n", 32), 0);
	expect_no_id();
	expect_alive();
	/* Only the 405 carries Allow. */
	ck_assert_ptr_null(strstr(resp.headers, "Allow:"));
}
END_TEST

START_TEST(other_methods_are_405)
{
	static const char *const methods[] = { "REQUEST_METHOD=DELETE",
	    "REQUEST_METHOD=PUT", "REQUEST_METHOD=post",
	    "REQUEST_METHOD=HEAD", "REQUEST_METHOD=" };
	const char	*env[3];
	size_t		 i;

	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		env[0] = methods[i];
		env[1] = "HTTP_HOST=localhost";
		env[2] = NULL;
		serve(env, "{}");
		ck_assert_msg(resp.status == 405, "%s: %d", methods[i],
		    resp.status);
	}
	env[0] = "HTTP_HOST=localhost";
	env[1] = NULL;
	serve(env, "{}");
	ck_assert_int_eq(resp.status, 405);
}
END_TEST

START_TEST(method_checked_before_media_type)
{
	const char *const env[] = { "REQUEST_METHOD=GET",
	    "CONTENT_TYPE=text/plain", NULL };

	serve(env, NULL);
	ck_assert_int_eq(resp.status, 405);
}
END_TEST

/* 3. Media type (415) and size (413). */

START_TEST(content_type_not_json_is_415)
{
	const char *const env[] = { "REQUEST_METHOD=POST",
	    "CONTENT_TYPE=text/plain", "HTTP_MCP_METHOD=tools/list",
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28", NULL };
	const char *const form[] = { "REQUEST_METHOD=POST",
	    "CONTENT_TYPE=application/x-www-form-urlencoded", NULL };

	serve(env, body("1", "tools/list", H_META, NULL));
	ck_assert_int_eq(resp.status, 415);
	expect_no_id();
	serve(form, "a=b");
	ck_assert_int_eq(resp.status, 415);
	expect_alive();
}
END_TEST

START_TEST(content_type_with_charset_ok)
{
	const char *const env[] = { "REQUEST_METHOD=POST",
	    "CONTENT_TYPE=application/json; charset=utf-8",
	    "HTTP_MCP_METHOD=tools/list",
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28", NULL };

	serve(env, body("1", "tools/list", H_META, NULL));
	expect_result();
}
END_TEST

START_TEST(media_type_checked_before_size)
{
	const char *const env[] = { "REQUEST_METHOD=POST",
	    "CONTENT_TYPE=text/plain", "CONTENT_LENGTH=999999999", NULL };

	serve(env, "x");
	ck_assert_int_eq(resp.status, 415);
}
END_TEST

START_TEST(body_too_large_is_413)
{
	char		 big[256];
	const char *const env[] = { "REQUEST_METHOD=POST",
	    "CONTENT_TYPE=application/json", "HTTP_MCP_METHOD=tools/list",
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28", NULL };

	wymcp_server_set_max_body(srv, 64);
	memset(big, ' ', sizeof(big) - 3);
	big[0] = '{';
	big[sizeof(big) - 3] = '}';
	big[sizeof(big) - 2] = '\0';
	serve(env, big);
	ck_assert_int_eq(resp.status, 413);
	expect_no_id();
	/* Over the limit and not JSON: the size wins. */
	serve(env, "{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{"
	    "{{{{{{{{{{{{{{{{{{{{{{{{{{{{");
	ck_assert_int_eq(resp.status, 413);
	/* Exactly at the limit is read. */
	memset(big, ' ', 64);
	big[0] = '{';
	big[63] = '}';
	big[64] = '\0';
	serve(env, big);
	ck_assert_int_eq(resp.status, 400);
	ck_assert_int_eq(h_code(&resp), WYMCP__INVALID_REQUEST);
	wymcp_server_set_max_body(srv, WYMCP_MAX_BODY_DEFAULT);
	expect_alive();
}
END_TEST

START_TEST(content_length_over_limit_is_413)
{
	const char *const env[] = { "REQUEST_METHOD=POST",
	    "CONTENT_TYPE=application/json", "CONTENT_LENGTH=65", NULL };
	const char *const bad[] = { "REQUEST_METHOD=POST",
	    "CONTENT_LENGTH=-1", NULL };
	const char *const junk[] = { "REQUEST_METHOD=POST",
	    "CONTENT_LENGTH=12abc", NULL };

	wymcp_server_set_max_body(srv, 64);
	serve(env, "{}");
	ck_assert_int_eq(resp.status, 413);
	/* A CONTENT_LENGTH that is not a number is a bad request. */
	serve(bad, "{}");
	expect_error(400, WYMCP__INVALID_REQUEST);
	serve(junk, "{}");
	expect_error(400, WYMCP__INVALID_REQUEST);
}
END_TEST

/* 4. JSON (-32700) and the envelope (-32600). */

START_TEST(invalid_json_is_32700_without_id)
{
	static const char *const bodies[] = {
		"{", "", "   ", "{\"jsonrpc\":\"2.0\",\"id\":7,", "nope",
		"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}x",
		"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"\xff\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"\xc0\xaf\"}",
	};
	size_t	 i;

	for (i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		post("tools/list", NULL, "2026-07-28", bodies[i], NULL);
		expect_error(400, WYMCP__PARSE_ERROR);
		expect_no_id();
		expect_message("Parse error");
		expect_alive();
	}
}
END_TEST

/* Envelope failures: 400, -32600. */
static void
invalid_request(const char *b)
{
	post("tools/list", NULL, "2026-07-28", b, NULL);
	expect_error(400, WYMCP__INVALID_REQUEST);
}

START_TEST(batch_is_32600)
{
	invalid_request("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"tools/list\",\"params\":{\"_meta\":" H_META "}}]");
	expect_no_id();
	expect_message("batch");
	expect_alive();
}
END_TEST

START_TEST(non_object_is_32600)
{
	invalid_request("\"tools/list\"");
	expect_no_id();
	invalid_request("1 ");
	expect_no_id();
	invalid_request("true\n");
	expect_no_id();
}
END_TEST

START_TEST(bare_scalar_body_is_32600_not_parse_error)
{
	/*
	 * Valid JSON that is not a request object is an Invalid Request,
	 * with or without trailing white space.
	 */
	invalid_request("null");
	expect_no_id();
	invalid_request("1");
	expect_no_id();
	invalid_request("true");
	expect_no_id();
}
END_TEST

START_TEST(bad_id_is_32600_without_id)
{
	static const char *const ids[] = { "null", "1.5", "true", "{}",
	    "[1]" };
	size_t	 i;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		invalid_request(body(ids[i], "tools/list", H_META, NULL));
		expect_no_id();
		expect_alive();
	}
}
END_TEST

START_TEST(bad_jsonrpc_is_32600_with_id)
{
	invalid_request("{\"jsonrpc\":\"1.0\",\"id\":\"k\",\"method\":"
	    "\"tools/list\",\"params\":{\"_meta\":" H_META "}}");
	ck_assert_str_eq(h_compact(h_jp(resp.json, "id", NULL)), "\"k\"");
	invalid_request("{\"id\":5,\"method\":\"tools/list\"}");
	ck_assert_str_eq(h_compact(h_jp(resp.json, "id", NULL)), "5");
}
END_TEST

START_TEST(response_object_is_32600)
{
	invalid_request("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
	expect_message("response");
	invalid_request("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":"
	    "{\"code\":-1,\"message\":\"m\"}}");
}
END_TEST

START_TEST(missing_or_bad_method_is_32600)
{
	invalid_request("{\"jsonrpc\":\"2.0\",\"id\":1}");
	expect_message("method");
	invalid_request("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}");
	expect_message("method");
	invalid_request("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"tools/list\",\"params\":7}");
	expect_message("params");
	invalid_request("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"tools/list\",\"params\":\"x\"}");
	invalid_request("{\"jsonrpc\":\"2.0\",\"method\":\"tools/list\","
	    "\"params\":null}");
	expect_no_id();
}
END_TEST

/* 5. Notifications (202). */

START_TEST(notification_is_202_with_empty_body)
{
	post("notifications/initialized", NULL, "2026-07-28",
	    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
	    NULL);
	ck_assert_int_eq(resp.status, 202);
	ck_assert_uint_eq(resp.bodylen, 0);
	ck_assert_ptr_null(resp.json);
	ck_assert_int_eq(strncmp(resp.headers, "Status: 202 Accepted\r\n",
	    22), 0);
	ck_assert_ptr_null(strstr(resp.headers, "Content-Type"));
	ck_assert_ptr_nonnull(strstr(resp.headers, "Content-Length: 0"));
	expect_alive();
}
END_TEST

START_TEST(notification_needs_no_headers)
{
	/* No Mcp-Method, no version header, no params, unknown method. */
	post(NULL, NULL, NULL, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/cancelled\",\"params\":{\"requestId\":1}}", NULL);
	ck_assert_int_eq(resp.status, 202);
	ck_assert_uint_eq(resp.bodylen, 0);
	post(NULL, NULL, NULL, "{\"jsonrpc\":\"2.0\",\"method\":\"x/y\"}",
	    NULL);
	ck_assert_int_eq(resp.status, 202);
}
END_TEST

/* 6. Mcp-Method (-32020). */

START_TEST(mcp_method_missing_is_32020)
{
	post(NULL, NULL, "2026-07-28", body("3", "tools/list", H_META, NULL),
	    NULL);
	expect_error(400, WYMCP__HEADER_MISMATCH);
	expect_message("Mcp-Method");
	ck_assert_str_eq(h_compact(h_jp(resp.json, "id", NULL)), "3");
	expect_alive();
}
END_TEST

START_TEST(mcp_method_mismatch_is_32020)
{
	post("server/discover", NULL, "2026-07-28",
	    body("3", "tools/list", H_META, NULL), NULL);
	expect_error(400, WYMCP__HEADER_MISMATCH);
	expect_message("Header mismatch: Mcp-Method header value "
	    "'server/discover' does not match body value 'tools/list'");
}
END_TEST

START_TEST(mcp_method_case_different_is_32020)
{
	post("TOOLS/LIST", NULL, "2026-07-28", body("3", "tools/list", H_META,
	    NULL), NULL);
	expect_error(400, WYMCP__HEADER_MISMATCH);
	post("Tools/List", NULL, "2026-07-28", body("3", "tools/list", H_META,
	    NULL), NULL);
	expect_error(400, WYMCP__HEADER_MISMATCH);
}
END_TEST

START_TEST(mcp_method_trimmed_ok)
{
	post(" \ttools/list \t", NULL, "2026-07-28",
	    body("3", "tools/list", H_META, NULL), NULL);
	expect_result();
}
END_TEST

START_TEST(mcp_method_invalid_chars_is_32020)
{
	post("tools/list\x80", NULL, "2026-07-28",
	    body("3", "tools/list", H_META, NULL), NULL);
	expect_error(400, WYMCP__HEADER_MISMATCH);
	expect_message("invalid characters");
	post("tools/\x01list", NULL, "2026-07-28",
	    body("3", "tools/list", H_META, NULL), NULL);
	expect_error(400, WYMCP__HEADER_MISMATCH);
}
END_TEST

/*
 * The ordering tests without _meta and without MCP-Protocol-Version run
 * with the legacy era off: with it on, such a request is a 2025-11-25
 * client's (check_legacy.c).
 */
START_TEST(mcp_method_checked_before_meta)
{
	wymcp_server_set_legacy(srv, 0);
	post(NULL, NULL, NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"tools/list\"}", NULL);
	expect_error(400, WYMCP__HEADER_MISMATCH);
}
END_TEST

/* 7. Mcp-Name (-32020). */

START_TEST(mcp_name_missing_is_32020)
{
	post("tools/call", NULL, "2026-07-28", body("4", "tools/call", H_META,
	    "\"name\":\"ok_text\""), NULL);
	expect_error(400, WYMCP__HEADER_MISMATCH);
	expect_message("Mcp-Name");
	expect_alive();
}
END_TEST

START_TEST(mcp_name_mismatch_is_32020)
{
	call("tools/call", "fails", "{\"name\":\"ok_text\"}", NULL);
	expect_error(400, WYMCP__HEADER_MISMATCH);
	expect_message("Header mismatch: Mcp-Name header value 'fails' does "
	    "not match body value 'ok_text'");
	call("tools/call", "OK_TEXT", "{\"name\":\"ok_text\"}", NULL);
	expect_error(400, WYMCP__HEADER_MISMATCH);
}
END_TEST

START_TEST(mcp_name_sentinel_ok)
{
	/* base64("ok_text") */
	call("tools/call", "=?base64?b2tfdGV4dA==?=", "{\"name\":\"ok_text\"}",
	    NULL);
	expect_result();
	ck_assert_str_eq(h_text(&resp), "ok");
}
END_TEST

START_TEST(mcp_name_sentinel_bad_is_32020)
{
	call("tools/call", "=?base64?b2tfdGV4dA?=", "{\"name\":\"ok_text\"}",
	    NULL);
	expect_error(400, WYMCP__HEADER_MISMATCH);
	expect_message("base64");
	/* Decodes fine but to another name. */
	call("tools/call", "=?base64?ZmFpbHM=?=", "{\"name\":\"ok_text\"}",
	    NULL);
	expect_error(400, WYMCP__HEADER_MISMATCH);
	/* Upper-case sentinel is a literal value, so a mismatch. */
	call("tools/call", "=?BASE64?b2tfdGV4dA==?=", "{\"name\":\"ok_text\"}",
	    NULL);
	expect_error(400, WYMCP__HEADER_MISMATCH);
	expect_alive();
}
END_TEST

START_TEST(mcp_name_trimmed_ok)
{
	call("tools/call", "  ok_text\t", "{\"name\":\"ok_text\"}", NULL);
	expect_result();
	ck_assert_str_eq(h_text(&resp), "ok");
}
END_TEST

START_TEST(mcp_name_not_needed_without_name_param)
{
	/* tools/list has no name to mirror; a stray Mcp-Name is ignored. */
	call("tools/list", "whatever", NULL, NULL);
	expect_result();
	/* A non-string name is not mirrored; it fails as bad params. */
	post("tools/call", NULL, "2026-07-28", body("4", "tools/call", H_META,
	    "\"name\":5"), NULL);
	expect_error(200, WYMCP__INVALID_PARAMS);
}
END_TEST

START_TEST(mcp_name_checked_before_meta)
{
	wymcp_server_set_legacy(srv, 0);
	post("tools/call", "other", NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"method\":\"tools/call\",\"params\":{\"name\":\"ok_text\"}}",
	    NULL);
	expect_error(400, WYMCP__HEADER_MISMATCH);
	expect_message("Mcp-Name");
}
END_TEST

/* 8. _meta (-32602, 400). */

START_TEST(meta_missing_is_32602_400)
{
	post("tools/list", NULL, "2026-07-28", "{\"jsonrpc\":\"2.0\",\"id\":"
	    "\"m\",\"method\":\"tools/list\",\"params\":{}}", NULL);
	expect_error(400, WYMCP__INVALID_PARAMS);
	ck_assert_str_eq(h_compact(h_jp(resp.json, "id", NULL)), "\"m\"");
	post("tools/list", NULL, "2026-07-28", "{\"jsonrpc\":\"2.0\",\"id\":"
	    "\"m\",\"method\":\"tools/list\"}", NULL);
	expect_error(400, WYMCP__INVALID_PARAMS);
	post("tools/list", NULL, "2026-07-28", "{\"jsonrpc\":\"2.0\",\"id\":"
	    "\"m\",\"method\":\"tools/list\",\"params\":[]}", NULL);
	expect_error(400, WYMCP__INVALID_PARAMS);
	expect_alive();
}
END_TEST

START_TEST(meta_protocol_version_missing_is_32602_400)
{
	post("tools/list", NULL, "2026-07-28", body("1", "tools/list",
	    "{\"io.modelcontextprotocol/clientCapabilities\":{}}", NULL),
	    NULL);
	expect_error(400, WYMCP__INVALID_PARAMS);
	expect_message("io.modelcontextprotocol/protocolVersion");
}
END_TEST

START_TEST(meta_client_caps_missing_is_32602_400)
{
	post("tools/list", NULL, "2026-07-28", body("1", "tools/list",
	    "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}",
	    NULL), NULL);
	expect_error(400, WYMCP__INVALID_PARAMS);
	expect_message("io.modelcontextprotocol/clientCapabilities");
	post("tools/list", NULL, "2026-07-28", body("1", "tools/list",
	    META_CAPS("[]"), NULL), NULL);
	expect_error(400, WYMCP__INVALID_PARAMS);
}
END_TEST

START_TEST(meta_checked_before_version_header)
{
	wymcp_server_set_legacy(srv, 0);
	post("tools/list", NULL, NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"method\":\"tools/list\",\"params\":{}}", NULL);
	expect_error(400, WYMCP__INVALID_PARAMS);
}
END_TEST

/* 9. MCP-Protocol-Version (-32020) and support (-32022). */

START_TEST(version_header_missing_is_32020)
{
	post("tools/list", NULL, NULL, body("1", "tools/list", H_META, NULL),
	    NULL);
	expect_error(400, WYMCP__HEADER_MISMATCH);
	expect_message("MCP-Protocol-Version");
	expect_alive();
}
END_TEST

START_TEST(version_header_mismatch_is_32020)
{
	post("tools/list", NULL, "2025-11-25", body("1", "tools/list", H_META,
	    NULL), NULL);
	expect_error(400, WYMCP__HEADER_MISMATCH);
	expect_message("MCP-Protocol-Version");
}
END_TEST

START_TEST(unsupported_version_is_32022_with_data)
{
	post("tools/list", NULL, "v999", body("1", "tools/list",
	    META_VERSION("v999"), NULL), NULL);
	expect_error(400, WYMCP__UNSUPPORTED_VERSION);
	/* Every supported version, the legacy ones too (legacy.c). */
	ck_assert_str_eq(h_compact(h_jp(resp.json, "error", "data", NULL)),
	    "{\"supported\":[\"2026-07-28\",\"2025-11-25\",\"2025-06-18\","
	    "\"2025-03-26\",\"2024-11-05\"],\"requested\":\"v999\"}");
	post("server/discover", NULL, "2025-11-25", body("1",
	    "server/discover", META_VERSION("2025-11-25"), NULL), NULL);
	expect_error(400, WYMCP__UNSUPPORTED_VERSION);
	ck_assert_str_eq(json_object_get_string(h_jp(resp.json, "error", "data",
	    "requested", NULL)), "2025-11-25");
	expect_alive();
}
END_TEST

START_TEST(version_mismatch_wins_over_unsupported)
{
	post("tools/list", NULL, "2026-07-28", body("1", "tools/list",
	    META_VERSION("v999"), NULL), NULL);
	expect_error(400, WYMCP__HEADER_MISMATCH);
}
END_TEST

START_TEST(version_checked_before_method_lookup)
{
	post("ping", NULL, "v999", body("1", "ping", META_VERSION("v999"),
	    NULL), NULL);
	expect_error(400, WYMCP__UNSUPPORTED_VERSION);
}
END_TEST

/*
 * subscriptions/listen without a task store: a valid filter is never
 * an error; the stream's first frame is the acknowledgement with the
 * subset honoured (none of these types is delivered by this server, so
 * every one is left out), tagged with the subscription id (the
 * request's id), and the stream ends with the tagged result.  A
 * malformed filter is -32602.
 */
START_TEST(listen_acknowledges_the_honoured_subset)
{
	const char	*ack, *end;

	call("subscriptions/listen", NULL, "{\"notifications\":{"
	    "\"toolsListChanged\":true,\"promptsListChanged\":false,"
	    "\"resourceSubscriptions\":[\"note://a\"],\"future\":7}}",
	    NULL);
	ck_assert_int_eq(resp.status, 200);
	ck_assert_ptr_nonnull(strstr(resp.headers, "text/event-stream"));
	ck_assert_msg(strncmp(resp.body, "event: message\ndata: {\"jsonrpc\":"
	    "\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\","
	    "\"params\":{\"notifications\":{},\"_meta\":{"
	    "\"io.modelcontextprotocol/subscriptionId\":1}}}\n\n", 155) == 0,
	    "%s", resp.body);
	ack = strstr(resp.body, "acknowledged");
	end = strstr(resp.body, "\"result\"");
	ck_assert_ptr_nonnull(end);
	ck_assert(ack < end);
	ck_assert_ptr_nonnull(strstr(end, "\"resultType\":\"complete\""));
	ck_assert_ptr_nonnull(strstr(end,
	    "\"io.modelcontextprotocol/subscriptionId\":1"));
	ck_assert_ptr_nonnull(strstr(end,
	    "\"io.modelcontextprotocol/serverInfo\""));
	/* Nothing but those two frames. */
	ck_assert_ptr_null(strstr(resp.body, "list_changed"));
	ck_assert_ptr_null(strstr(resp.body, "note://a"));
	call("subscriptions/listen", NULL, "{\"notifications\":{"
	    "\"toolsListChanged\":\"yes\"}}", NULL);
	expect_error(200, WYMCP__INVALID_PARAMS);
	call("subscriptions/listen", NULL, "{\"notifications\":{"
	    "\"resourceSubscriptions\":[1]}}", NULL);
	expect_error(200, WYMCP__INVALID_PARAMS);
	call("subscriptions/listen", NULL, "{}", NULL);
	expect_error(200, WYMCP__INVALID_PARAMS);
}
END_TEST

/* 10. Unknown and removed methods (404, -32601). */

START_TEST(removed_and_unknown_methods_are_404_32601)
{
	static const char *const methods[] = { "initialize", "ping",
	    "logging/setLevel", "resources/subscribe",
	    "resources/unsubscribe", "tasks/list", "prompts/list",
	    "no/such/method", "tools/List" };
	char	 want[128];
	size_t	 i;

	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		call(methods[i], NULL, NULL, NULL);
		expect_error(404, WYMCP__METHOD_NOT_FOUND);
		snprintf(want, sizeof(want), "Method not found: %s",
		    methods[i]);
		expect_message(want);
		ck_assert_str_eq(h_compact(h_jp(resp.json, "id", NULL)), "1");
	}
	expect_alive();
}
END_TEST

/* Ids, result stamps and response framing. */

START_TEST(ids_echoed_with_json_type)
{
	static const char *const ids[] = { "1", "\"1\"", "0", "-1",
	    "1700000000123", "\"abc\"", "\"\"", "9223372036854775807" };
	size_t	 i;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		post("tools/list", NULL, "2026-07-28", body(ids[i],
		    "tools/list", H_META, NULL), NULL);
		expect_result();
		ck_assert_str_eq(h_compact(h_jp(resp.json, "id", NULL)),
		    ids[i]);
		/* Errors echo it the same way. */
		post("ping", NULL, "2026-07-28", body(ids[i], "ping", H_META,
		    NULL), NULL);
		expect_error(404, WYMCP__METHOD_NOT_FOUND);
		ck_assert_str_eq(h_compact(h_jp(resp.json, "id", NULL)),
		    ids[i]);
	}
}
END_TEST

START_TEST(out_of_range_integer_id_never_altered)
{
	static const char *const ids[] = { "18446744073709551616",
	    "-9223372036854775809", "123456789012345678901234567890" };
	struct json_object	*id;
	size_t			 i;

	/*
	 * json-c saturates integers beyond 64 bits.  The id must come back
	 * exactly as sent, or the request be refused without an id.
	 */
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		post("tools/list", NULL, "2026-07-28", body(ids[i],
		    "tools/list", H_META, NULL), NULL);
		ck_assert_ptr_nonnull(resp.json);
		if (json_object_object_get_ex(resp.json, "id", &id))
			ck_assert_str_eq(h_compact(id), ids[i]);
		else
			expect_error(400, WYMCP__INVALID_REQUEST);
	}
}
END_TEST

/* resultType "complete" and the serverInfo _meta. */
static void
expect_stamped(struct json_object *r)
{
	ck_assert_str_eq(json_object_get_string(h_jp(r, "resultType", NULL)),
	    "complete");
	ck_assert_str_eq(h_compact(h_jp(r, "_meta",
	    "io.modelcontextprotocol/serverInfo", NULL)),
	    "{\"name\":\"wymcp\",\"version\":\"" WYMCP_VERSION "\"}");
	ck_assert_str_eq(json_object_get_string(h_jp(resp.json, "jsonrpc",
	    NULL)), "2.0");
}

START_TEST(every_result_has_result_type_and_server_info)
{
	call("server/discover", NULL, NULL, NULL);
	expect_stamped(expect_result());
	call("tools/list", NULL, NULL, NULL);
	expect_stamped(expect_result());
	call("tools/call", "ok_text", "{\"name\":\"ok_text\"}", NULL);
	expect_stamped(expect_result());
	call("tools/call", "fails", "{\"name\":\"fails\"}", NULL);
	expect_stamped(expect_result());
	call("tools/call", "structured_ok", "{\"name\":\"structured_ok\"}",
	    NULL);
	expect_stamped(expect_result());
	/* Errors carry no _meta. */
	call("ping", NULL, NULL, NULL);
	ck_assert_ptr_null(h_jp(resp.json, "error", "_meta", NULL));
	ck_assert_ptr_null(h_jp(resp.json, "_meta", NULL));
}
END_TEST

START_TEST(discover_shape)
{
	const char *const	 extra[] = { "REMOTE_USER=alice", NULL };
	struct json_object	*r;

	call("server/discover", NULL, NULL, NULL);
	r = expect_result();
	ck_assert_str_eq(h_compact(h_jp(r, "supportedVersions", NULL)),
	    "[\"2026-07-28\",\"2025-11-25\",\"2025-06-18\",\"2025-03-26\","
	    "\"2024-11-05\"]");
	ck_assert(json_object_is_type(h_jp(r, "capabilities", "tools", NULL),
	    json_type_object));
	ck_assert(json_object_is_type(h_jp(r, "ttlMs", NULL), json_type_int));
	ck_assert_int_ge(json_object_get_int64(h_jp(r, "ttlMs", NULL)), 0);
	ck_assert_str_eq(json_object_get_string(h_jp(r, "cacheScope", NULL)),
	    "public");
	/* No capability the server does not have. */
	ck_assert_ptr_null(h_jp(r, "capabilities", "prompts", NULL));
	ck_assert_ptr_null(h_jp(r, "capabilities", "resources", NULL));
	/* Tools' log lines reach clients that ask with _meta logLevel. */
	ck_assert(json_object_is_type(h_jp(r, "capabilities", "logging", NULL),
	    json_type_object));
	/* No listChanged: subscriptions/listen is not served. */
	ck_assert_ptr_null(h_jp(r, "capabilities", "tools", "listChanged",
	    NULL));
	/* Even an authenticated discover is public. */
	call("server/discover", NULL, NULL, extra);
	ck_assert_str_eq(json_object_get_string(h_jp(expect_result(),
	    "cacheScope", NULL)), "public");
}
END_TEST

/* The names tools/list returned, joined by ' '. */
static const char *
listed_names(void)
{
	static char		 buf[1024];
	struct json_object	*arr;
	size_t			 i, off = 0;

	arr = h_jp(expect_result(), "tools", NULL);
	ck_assert(json_object_is_type(arr, json_type_array));
	buf[0] = '\0';
	for (i = 0; i < json_object_array_length(arr) && off < sizeof(buf);
	    i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s",
		    i > 0 ? " " : "", json_object_get_string(h_jp(
		    json_object_array_get_idx(arr, i), "name", NULL)));
	return buf;
}

START_TEST(tools_list_in_registration_order)
{
	call("tools/list", NULL, NULL, NULL);
	ck_assert_str_eq(listed_names(), "ok_text fails returns_inval nomem "
	    "needs_sampling needs_elicit_url structured_ok structured_bad "
	    "all_content defer_probe args_echo help echo whoami");
}
END_TEST

START_TEST(tools_list_tool_objects)
{
	struct json_object	*arr, *t;

	call("tools/list", NULL, NULL, NULL);
	arr = h_jp(expect_result(), "tools", NULL);
	t = json_object_array_get_idx(arr, 0);
	ck_assert_str_eq(h_compact(t), "{\"name\":\"ok_text\",\"title\":\"OK\","
	    "\"description\":\"Returns the text ok.\",\"inputSchema\":"
	    "{\"type\":\"object\"},\"annotations\":{\"readOnlyHint\":true}}");
	/* A tool that declares no input schema gets the empty object one. */
	t = json_object_array_get_idx(arr, 1);
	ck_assert_str_eq(h_compact(h_jp(t, "inputSchema", NULL)),
	    "{\"type\":\"object\"}");
	ck_assert_ptr_null(h_jp(t, "title", NULL));
	ck_assert_ptr_null(h_jp(t, "outputSchema", NULL));
	/* required_caps are not part of the listing. */
	t = json_object_array_get_idx(arr, 4);
	ck_assert_str_eq(json_object_get_string(h_jp(t, "name", NULL)),
	    "needs_sampling");
	ck_assert_uint_eq(json_object_object_length(t), 3);
	t = json_object_array_get_idx(arr, 6);
	ck_assert_str_eq(h_compact(h_jp(t, "outputSchema", NULL)),
	    "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":"
	    "\"integer\"}},\"required\":[\"n\"]}");
}
END_TEST

START_TEST(tools_list_cache_scope_follows_principal)
{
	const char *const p1[] = { "WYMCP_PRINCIPAL=alice", NULL };
	const char *const p2[] = { "REMOTE_USER=bob", NULL };
	const char *const spoof[] = { "HTTP_WYMCP_PRINCIPAL=eve",
	    "HTTP_REMOTE_USER=eve", NULL };
	struct json_object	*r;

	call("tools/list", NULL, NULL, NULL);
	r = expect_result();
	ck_assert_str_eq(json_object_get_string(h_jp(r, "cacheScope", NULL)),
	    "public");
	ck_assert(json_object_is_type(h_jp(r, "ttlMs", NULL), json_type_int));
	ck_assert_int_ge(json_object_get_int64(h_jp(r, "ttlMs", NULL)), 0);
	call("tools/list", NULL, NULL, p1);
	ck_assert_str_eq(json_object_get_string(h_jp(expect_result(),
	    "cacheScope", NULL)), "private");
	call("tools/list", NULL, NULL, p2);
	ck_assert_str_eq(json_object_get_string(h_jp(expect_result(),
	    "cacheScope", NULL)), "private");
	call("tools/list", NULL, NULL, spoof);
	ck_assert_str_eq(json_object_get_string(h_jp(expect_result(),
	    "cacheScope", NULL)), "public");
}
END_TEST

START_TEST(tools_list_cursor_is_32602)
{
	call("tools/list", NULL, "{\"cursor\":\"abc\"}", NULL);
	expect_error(200, WYMCP__INVALID_PARAMS);
	expect_message("cursor");
	expect_alive();
}
END_TEST

/* tools/call */

START_TEST(call_unknown_tool_is_32602)
{
	call("tools/call", "nosuch", "{\"name\":\"nosuch\"}", NULL);
	expect_error(200, WYMCP__INVALID_PARAMS);
	expect_message("Unknown tool: nosuch");
	expect_alive();
}
END_TEST

START_TEST(call_arguments_not_object_is_32602)
{
	static const char *const args[] = { "[1]", "\"x\"", "1", "null",
	    "true" };
	char	 p[128];
	size_t	 i;

	for (i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
		snprintf(p, sizeof(p), "{\"name\":\"ok_text\","
		    "\"arguments\":%s}", args[i]);
		call("tools/call", "ok_text", p, NULL);
		expect_error(200, WYMCP__INVALID_PARAMS);
		expect_message("arguments");
	}
	expect_alive();
}
END_TEST

START_TEST(call_schema_violation_is_32602_naming_tool)
{
	static const char *const args[] = { "{}", "{\"n\":0}",
	    "{\"n\":\"3\"}", "{\"n\":1.5}", "{\"n\":null}" };
	char	 p[128];
	size_t	 i;

	for (i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
		snprintf(p, sizeof(p), "{\"name\":\"args_echo\","
		    "\"arguments\":%s}", args[i]);
		call("tools/call", "args_echo", p, NULL);
		expect_error(200, WYMCP__INVALID_PARAMS);
		expect_message("args_echo");
	}
	/* Missing arguments are checked as {}. */
	call("tools/call", "args_echo", "{\"name\":\"args_echo\"}", NULL);
	expect_error(200, WYMCP__INVALID_PARAMS);
	expect_message("Invalid arguments for tool args_echo");
	call("tools/call", "args_echo", "{\"name\":\"args_echo\","
	    "\"arguments\":{\"n\":3}}", NULL);
	expect_result();
	ck_assert_str_eq(h_text(&resp), "n=3");
}
END_TEST

START_TEST(call_missing_capability_is_400_32021)
{
	call("tools/call", "needs_sampling", "{\"name\":\"needs_sampling\"}",
	    NULL);
	expect_error(400, WYMCP__MISSING_CAPABILITY);
	ck_assert_str_eq(h_compact(h_jp(resp.json, "error", "data", NULL)),
	    "{\"requiredCapabilities\":{\"sampling\":{}}}");
	ck_assert_str_eq(h_compact(h_jp(resp.json, "id", NULL)), "1");
	expect_alive();
}
END_TEST

START_TEST(call_declared_capability_runs)
{
	call("tools/call", "needs_sampling", "{\"_meta\":"
	    META_CAPS("{\"sampling\":{}}") ",\"name\":\"needs_sampling\"}",
	    NULL);
	expect_result();
	ck_assert_str_eq(h_text(&resp), "capable");
}
END_TEST

START_TEST(call_elicitation_url_capability)
{
	call("tools/call", "needs_elicit_url", "{\"_meta\":"
	    META_CAPS("{\"elicitation\":{}}") ",\"name\":"
	    "\"needs_elicit_url\"}", NULL);
	expect_error(400, WYMCP__MISSING_CAPABILITY);
	ck_assert_str_eq(h_compact(h_jp(resp.json, "error", "data",
	    "requiredCapabilities", NULL)), "{\"elicitation\":{\"url\":{}}}");
	call("tools/call", "needs_elicit_url", "{\"_meta\":"
	    META_CAPS("{\"elicitation\":{\"url\":{}}}") ",\"name\":"
	    "\"needs_elicit_url\"}", NULL);
	expect_result();
	ck_assert_str_eq(h_text(&resp), "capable");
}
END_TEST

START_TEST(call_capability_checked_before_arguments)
{
	call("tools/call", "needs_sampling", "{\"name\":\"needs_sampling\","
	    "\"arguments\":{\"x\":1}}", NULL);
	expect_error(400, WYMCP__MISSING_CAPABILITY);
}
END_TEST

START_TEST(call_tool_error_is_is_error_result)
{
	struct json_object	*r;

	call("tools/call", "fails", "{\"name\":\"fails\"}", NULL);
	r = expect_result();
	ck_assert(json_object_get_boolean(h_jp(r, "isError", NULL)));
	ck_assert_str_eq(h_compact(h_jp(r, "content", NULL)),
	    "[{\"type\":\"text\",\"text\":\"boom 42\"}]");
	ck_assert_str_eq(json_object_get_string(h_jp(r, "resultType", NULL)),
	    "complete");
}
END_TEST

START_TEST(call_error_code_without_content_is_is_error_with_message)
{
	struct json_object	*r;

	call("tools/call", "returns_inval", "{\"name\":\"returns_inval\"}",
	    NULL);
	r = expect_result();
	ck_assert(json_object_get_boolean(h_jp(r, "isError", NULL)));
	ck_assert_uint_eq(json_object_array_length(h_jp(r, "content", NULL)),
	    1);
	ck_assert_str_eq(h_text(&resp), wymcp_strerror(WYMCP_ERR_INVAL));
}
END_TEST

START_TEST(call_nomem_is_32603)
{
	call("tools/call", "nomem", "{\"name\":\"nomem\"}", NULL);
	expect_error(500, WYMCP__INTERNAL_ERROR);
	ck_assert_str_eq(h_compact(h_jp(resp.json, "id", NULL)), "1");
	expect_alive();
}
END_TEST

START_TEST(call_ok_has_no_is_error)
{
	struct json_object	*r;

	call("tools/call", "ok_text", "{\"name\":\"ok_text\",\"arguments\":"
	    "{}}", NULL);
	r = expect_result();
	ck_assert_ptr_null(h_jp(r, "isError", NULL));
	ck_assert_ptr_null(h_jp(r, "structuredContent", NULL));
	ck_assert_str_eq(h_compact(h_jp(r, "content", NULL)),
	    "[{\"type\":\"text\",\"text\":\"ok\"}]");
}
END_TEST

START_TEST(call_structured_adds_text_block)
{
	struct json_object	*r;

	call("tools/call", "structured_ok", "{\"name\":\"structured_ok\"}",
	    NULL);
	r = expect_result();
	ck_assert_str_eq(h_compact(h_jp(r, "structuredContent", NULL)),
	    "{\"n\":1}");
	ck_assert_str_eq(h_compact(h_jp(r, "content", NULL)),
	    "[{\"type\":\"text\",\"text\":\"{\\\"n\\\":1}\"}]");
	ck_assert_ptr_null(h_jp(r, "isError", NULL));
}
END_TEST

START_TEST(call_structured_violating_output_schema_is_32603)
{
	call("tools/call", "structured_bad", "{\"name\":\"structured_bad\"}",
	    NULL);
	expect_error(500, WYMCP__INTERNAL_ERROR);
	expect_message("outputSchema");
	expect_alive();
}
END_TEST

START_TEST(call_all_content_builders)
{
	call("tools/call", "all_content", "{\"name\":\"all_content\"}", NULL);
	ck_assert_str_eq(h_compact(h_jp(expect_result(), "content", NULL)),
	    "[{\"type\":\"text\",\"text\":\"plain\"},"
	    "{\"type\":\"text\",\"text\":\"fmt-7\"},"
	    "{\"type\":\"text\",\"text\":\"[1,\\\"a/b\\\"]\"},"
	    "{\"type\":\"image\",\"data\":\"aW1n\",\"mimeType\":\"image/png\"},"
	    "{\"type\":\"audio\",\"data\":\"YXVk\",\"mimeType\":\"audio/wav\"},"
	    "{\"type\":\"resource_link\",\"uri\":\"file:///l\",\"name\":\"l\","
	    "\"mimeType\":\"text/plain\"},"
	    "{\"type\":\"resource\",\"resource\":{\"uri\":\"file:///t\","
	    "\"mimeType\":\"text/plain\",\"text\":\"body\"}},"
	    "{\"type\":\"resource\",\"resource\":{\"uri\":\"file:///b\","
	    "\"blob\":\"YmxvYg==\"}}]");
}
END_TEST

START_TEST(call_defer_hooks_run_once_per_request)
{
	void	*h;
	int	*count, *order;

	h = dlopen(testmod_path, RTLD_NOW | RTLD_NOLOAD);
	ck_assert_msg(h != NULL, "%s", dlerror());
	count = dlsym(h, "testmod_deferred");
	order = dlsym(h, "testmod_defer_order");
	ck_assert_ptr_nonnull(count);
	ck_assert_ptr_nonnull(order);
	*count = 0;
	*order = 0;
	call("tools/call", "defer_probe", "{\"name\":\"defer_probe\"}", NULL);
	expect_result();
	/* Not run while the tool ran; both hooks once, newest first. */
	ck_assert_str_eq(h_text(&resp), "deferred=0");
	ck_assert_int_eq(*count, 2);
	ck_assert_int_eq(*order, 21);
	call("tools/call", "defer_probe", "{\"name\":\"defer_probe\"}", NULL);
	ck_assert_str_eq(h_text(&resp), "deferred=2");
	ck_assert_int_eq(*count, 4);
	ck_assert_int_eq(*order, 2121);
	/* Other requests run none. */
	call("tools/list", NULL, NULL, NULL);
	call("tools/call", "ok_text", "{\"name\":\"ok_text\"}", NULL);
	call("tools/call", "defer_probe", "{\"name\":\"args_echo\"}", NULL);
	ck_assert_int_eq(*count, 4);
	dlclose(h);
}
END_TEST

START_TEST(mount_list_narrows_list_and_call)
{
	const char *const extra[] = { "WYMCP_TOOLS=echo help", NULL };
	const char	*t;

	call("tools/list", NULL, NULL, extra);
	ck_assert_str_eq(listed_names(), "help echo");
	call("tools/call", "ok_text", "{\"name\":\"ok_text\"}", extra);
	expect_error(200, WYMCP__INVALID_PARAMS);
	expect_message("Unknown tool: ok_text");
	call("tools/call", "echo", "{\"name\":\"echo\",\"arguments\":"
	    "{\"text\":\"hi\"}}", extra);
	expect_result();
	ck_assert_str_eq(h_text(&resp), "hi");
	call("tools/call", "help", "{\"name\":\"help\"}", extra);
	expect_result();
	t = h_text(&resp);
	ck_assert_ptr_nonnull(strstr(t, "- help:"));
	ck_assert_ptr_nonnull(strstr(t, "- echo:"));
	ck_assert_ptr_null(strstr(t, "ok_text"));
	ck_assert_ptr_null(strstr(t, "whoami"));
}
END_TEST

START_TEST(mount_list_empty_mounts_nothing)
{
	const char *const extra[] = { "WYMCP_TOOLS=", NULL };

	call("tools/list", NULL, NULL, extra);
	ck_assert_str_eq(listed_names(), "");
	call("tools/call", "help", "{\"name\":\"help\"}", extra);
	expect_error(200, WYMCP__INVALID_PARAMS);
}
END_TEST

START_TEST(whoami_shows_assigns)
{
	const char *const extra[] = { "REMOTE_USER=alice",
	    "WYMCP_ASSIGN_ROLE=admin", "HTTP_WYMCP_ASSIGN_EVIL=1",
	    "WYMCP_ASSIGN_WYMCP_TOOLS=x", NULL };
	struct json_object	*r;

	call("tools/call", "whoami", "{\"name\":\"whoami\"}", extra);
	r = expect_result();
	ck_assert_str_eq(h_compact(h_jp(r, "structuredContent", NULL)),
	    "{\"principal\":\"alice\",\"assigns\":{\"remote_user\":\"alice\","
	    "\"role\":\"admin\"}}");
	call("tools/call", "whoami", "{\"name\":\"whoami\"}", NULL);
	r = expect_result();
	ck_assert_str_eq(h_compact(h_jp(r, "structuredContent", NULL)),
	    "{\"principal\":null,\"assigns\":{}}");
}
END_TEST

START_TEST(response_is_compact_json)
{
	static const char *const names[] = { "ok_text", "fails",
	    "structured_ok", "all_content", "nosuch" };
	struct json_object	*parsed;
	char			 p[128], cl[64];
	size_t			 i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]) + 2; i++) {
		if (i == 0)
			call("server/discover", NULL, NULL, NULL);
		else if (i == 1)
			call("tools/list", NULL, NULL, NULL);
		else {
			snprintf(p, sizeof(p), "{\"name\":\"%s\"}",
			    names[i - 2]);
			call("tools/call", names[i - 2], p, NULL);
		}
		parsed = json_tokener_parse(resp.body);
		ck_assert_ptr_nonnull(parsed);
		ck_assert_str_eq(resp.body, h_compact(parsed));
		json_object_put(parsed);
		ck_assert_ptr_nonnull(strstr(resp.headers,
		    "\r\nContent-Type: application/json\r\n"));
		ck_assert_ptr_nonnull(strstr(resp.headers,
		    "\r\nCache-Control: no-store"));
		snprintf(cl, sizeof(cl), "\r\nContent-Length: %zu",
		    resp.bodylen);
		ck_assert_ptr_nonnull(strstr(resp.headers, cl));
		ck_assert_uint_eq(strlen(resp.body), resp.bodylen);
	}
}
END_TEST

/* A raw body with explicit length, through a custom io. */
struct rawio {
	const char	*in;
	size_t		 len, off;
	int		 fail_read, fail_write;
	const char *const *env;		/* NULL: raw_env */
	char		 out[65536];
	size_t		 outlen;
};

static long
raw_read(void *arg, char *buf, size_t len)
{
	struct rawio	*r = arg;
	size_t		 n = r->len - r->off;

	if (r->fail_read)
		return -1;
	if (n > len)
		n = len;
	/* Hand out a few bytes at a time, as a socket might. */
	if (n > 7)
		n = 7;
	memcpy(buf, r->in + r->off, n);
	r->off += n;
	return (long)n;
}

static int
raw_write(void *arg, const char *buf, size_t len)
{
	struct rawio	*r = arg;

	if (r->fail_write || r->outlen + len >= sizeof(r->out))
		return -1;
	memcpy(r->out + r->outlen, buf, len);
	r->outlen += len;
	r->out[r->outlen] = '\0';
	return 0;
}

static const char *const raw_env[] = { "REQUEST_METHOD=POST",
    "HTTP_HOST=localhost", "HTTP_MCP_METHOD=tools/list",
    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28", NULL };

static enum wymcp_err
raw_serve(struct rawio *r, const char *in, size_t len)
{
	struct wymcp_io	 io;

	r->in = in;
	r->len = len;
	r->off = 0;
	r->outlen = 0;
	r->out[0] = '\0';
	io.env = (char *const *)(r->env != NULL ? r->env : raw_env);
	io.read = raw_read;
	io.write = raw_write;
	io.flush = NULL;
	io.arg = r;
	return wymcp_server_serve(srv, &io);
}

START_TEST(nul_byte_in_body_is_32700)
{
	static const char	 b[] = "{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"method\":\"tools/list\",\"params\":{\"_meta\":" H_META "}}";
	static struct rawio	 r;
	char			 buf[sizeof(b) + 1];

	memset(&r, 0, sizeof(r));
	/* The same body, read in small pieces, is fine. */
	ck_assert_int_eq(raw_serve(&r, b, sizeof(b) - 1), WYMCP_OK);
	ck_assert_int_eq(strncmp(r.out, "Status: 200 ", 12), 0);
	memcpy(buf, b, sizeof(b));
	buf[20] = '\0';
	ck_assert_int_eq(raw_serve(&r, buf, sizeof(b) - 1), WYMCP_OK);
	ck_assert_int_eq(strncmp(r.out, "Status: 400 ", 12), 0);
	ck_assert_ptr_nonnull(strstr(r.out, "-32700"));
	/* A trailing NUL too. */
	ck_assert_int_eq(raw_serve(&r, b, sizeof(b)), WYMCP_OK);
	ck_assert_ptr_nonnull(strstr(r.out, "-32700"));
	expect_alive();
}
END_TEST

START_TEST(empty_body_on_fresh_server_is_32700)
{
	const char *const env[] = { "REQUEST_METHOD=POST",
	    "CONTENT_TYPE=application/json", "CONTENT_LENGTH=0", NULL };
	const char *const nolen[] = { "REQUEST_METHOD=POST", NULL };

	/* The first request of a worker: no body buffer exists yet. */
	serve(env, "");
	expect_error(400, WYMCP__PARSE_ERROR);
	expect_no_id();
	serve(nolen, "");
	expect_error(400, WYMCP__PARSE_ERROR);
	serve(env, "");
	expect_error(400, WYMCP__PARSE_ERROR);
	expect_alive();
}
END_TEST

START_TEST(body_read_stops_at_content_length)
{
	static const char	 b[] = "{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"method\":\"tools/list\",\"params\":{\"_meta\":" H_META "}}"
	    "trailing bytes past CONTENT_LENGTH";
	static struct rawio	 r;
	const char		*env[6];
	char			 cl[64], big[20000];

	/* Grow the server's body buffer past this body's size first. */
	memset(big, ' ', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "{}", 2);
	post("tools/list", NULL, "2026-07-28", big, NULL);
	expect_error(400, WYMCP__INVALID_REQUEST);

	snprintf(cl, sizeof(cl), "CONTENT_LENGTH=%zu",
	    strlen(b) - strlen("trailing bytes past CONTENT_LENGTH"));
	env[0] = raw_env[0];
	env[1] = raw_env[1];
	env[2] = raw_env[2];
	env[3] = raw_env[3];
	env[4] = cl;
	env[5] = NULL;
	memset(&r, 0, sizeof(r));
	r.env = env;
	ck_assert_int_eq(raw_serve(&r, b, sizeof(b) - 1), WYMCP_OK);
	ck_assert_msg(strncmp(r.out, "Status: 200 ", 12) == 0, "%s", r.out);
}
END_TEST

START_TEST(serve_read_error_is_io)
{
	static struct rawio	 r;

	memset(&r, 0, sizeof(r));
	r.fail_read = 1;
	ck_assert_int_eq(raw_serve(&r, "{}", 2), WYMCP_ERR_IO);
	ck_assert_uint_eq(r.outlen, 0);
	expect_alive();
}
END_TEST

START_TEST(serve_write_error_is_io)
{
	static struct rawio	 r;
	static const char	 b[] = "{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"method\":\"tools/list\",\"params\":{\"_meta\":" H_META "}}";

	memset(&r, 0, sizeof(r));
	r.fail_write = 1;
	ck_assert_int_eq(raw_serve(&r, b, sizeof(b) - 1), WYMCP_ERR_IO);
	expect_alive();
}
END_TEST

START_TEST(serve_bad_arguments_are_inval)
{
	struct wymcp_io	 io;

	memset(&io, 0, sizeof(io));
	ck_assert_int_eq(wymcp_server_serve(NULL, &io), WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_server_serve(srv, NULL), WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_server_serve(srv, &io), WYMCP_ERR_INVAL);
	io.read = raw_read;
	ck_assert_int_eq(wymcp_server_serve(srv, &io), WYMCP_ERR_INVAL);
}
END_TEST

START_TEST(worker_survives_malformed_requests)
{
	static const char *const bodies[] = {
		"", "{", "[]", "[{}]", "null", "{}", "\"\"", "1",
		"{\"jsonrpc\":\"2.0\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"tools/call\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
		    "\"params\":{\"_meta\":{},\"name\":{}}}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
		    "\"params\":{\"_meta\":" H_META ",\"name\":\"ok_text\","
		    "\"arguments\":{\"a\":[[[[[[[[[[1]]]]]]]]]]}}}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
		    "\"params\":{\"_meta\":" H_META ",\"name\":\"ok_text\","
		    "\"requestState\":\"AAAA\"}}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
		    "\"params\":{\"_meta\":" H_META ",\"name\":\"ok_text\","
		    "\"requestState\":7,\"inputResponses\":[]}}",
		"{\"jsonrpc\":\"2.0\",\"id\":123456789012345678901234567890,"
		    "\"method\":\"tools/list\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\","
		    "\"params\":{\"_meta\":{\"io.modelcontextprotocol/"
		    "protocolVersion\":\"2026-07-28\","
		    "\"io.modelcontextprotocol/clientCapabilities\":"
		    "{\"sampling\":[]}}}}",
	};
	static const char *const methods[] = { "tools/call", "tools/list",
	    NULL };
	size_t	 i, k;

	for (i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++)
		for (k = 0; k < 3; k++) {
			post(methods[k], k == 0 ? "ok_text" : NULL,
			    "2026-07-28", bodies[i], NULL);
			ck_assert_msg(resp.status >= 200 && resp.status < 600,
			    "%s: %d", bodies[i], resp.status);
			if (resp.bodylen > 0)
				ck_assert_msg(resp.json != NULL,
				    "%s: body not JSON: %s", bodies[i],
				    resp.body);
			expect_alive();
		}
}
END_TEST

static Suite *
dispatch_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("dispatch");
	tc = tcase_create("http");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, host_not_allowed_is_403);
	tcase_add_test(tc, origin_not_allowed_is_403);
	tcase_add_test(tc, origin_loopback_allowed);
	tcase_add_test(tc, origin_allowed_by_location_param_not_by_client);
	tcase_add_test(tc, origin_allowed_by_server_config);
	tcase_add_test(tc, host_checked_before_method);
	tcase_add_test(tc, get_is_405_with_allow_post);
	tcase_add_test(tc, other_methods_are_405);
	tcase_add_test(tc, method_checked_before_media_type);
	tcase_add_test(tc, content_type_not_json_is_415);
	tcase_add_test(tc, content_type_with_charset_ok);
	tcase_add_test(tc, media_type_checked_before_size);
	tcase_add_test(tc, body_too_large_is_413);
	tcase_add_test(tc, content_length_over_limit_is_413);
	suite_add_tcase(s, tc);

	tc = tcase_create("jsonrpc");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, invalid_json_is_32700_without_id);
	tcase_add_test(tc, batch_is_32600);
	tcase_add_test(tc, non_object_is_32600);
	tcase_add_test(tc, bare_scalar_body_is_32600_not_parse_error);
	tcase_add_test(tc, bad_id_is_32600_without_id);
	tcase_add_test(tc, bad_jsonrpc_is_32600_with_id);
	tcase_add_test(tc, response_object_is_32600);
	tcase_add_test(tc, missing_or_bad_method_is_32600);
	tcase_add_test(tc, notification_is_202_with_empty_body);
	tcase_add_test(tc, notification_needs_no_headers);
	suite_add_tcase(s, tc);

	tc = tcase_create("headers");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, mcp_method_missing_is_32020);
	tcase_add_test(tc, mcp_method_mismatch_is_32020);
	tcase_add_test(tc, mcp_method_case_different_is_32020);
	tcase_add_test(tc, mcp_method_trimmed_ok);
	tcase_add_test(tc, mcp_method_invalid_chars_is_32020);
	tcase_add_test(tc, mcp_method_checked_before_meta);
	tcase_add_test(tc, mcp_name_missing_is_32020);
	tcase_add_test(tc, mcp_name_mismatch_is_32020);
	tcase_add_test(tc, mcp_name_sentinel_ok);
	tcase_add_test(tc, mcp_name_sentinel_bad_is_32020);
	tcase_add_test(tc, mcp_name_trimmed_ok);
	tcase_add_test(tc, mcp_name_not_needed_without_name_param);
	tcase_add_test(tc, mcp_name_checked_before_meta);
	tcase_add_test(tc, meta_missing_is_32602_400);
	tcase_add_test(tc, meta_protocol_version_missing_is_32602_400);
	tcase_add_test(tc, meta_client_caps_missing_is_32602_400);
	tcase_add_test(tc, meta_checked_before_version_header);
	tcase_add_test(tc, version_header_missing_is_32020);
	tcase_add_test(tc, version_header_mismatch_is_32020);
	tcase_add_test(tc, unsupported_version_is_32022_with_data);
	tcase_add_test(tc, version_mismatch_wins_over_unsupported);
	tcase_add_test(tc, version_checked_before_method_lookup);
	tcase_add_test(tc, removed_and_unknown_methods_are_404_32601);
	tcase_add_test(tc, listen_acknowledges_the_honoured_subset);
	suite_add_tcase(s, tc);

	tc = tcase_create("results");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, ids_echoed_with_json_type);
	tcase_add_test(tc, out_of_range_integer_id_never_altered);
	tcase_add_test(tc, every_result_has_result_type_and_server_info);
	tcase_add_test(tc, discover_shape);
	tcase_add_test(tc, tools_list_in_registration_order);
	tcase_add_test(tc, tools_list_tool_objects);
	tcase_add_test(tc, tools_list_cache_scope_follows_principal);
	tcase_add_test(tc, tools_list_cursor_is_32602);
	tcase_add_test(tc, response_is_compact_json);
	suite_add_tcase(s, tc);

	tc = tcase_create("call");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, call_unknown_tool_is_32602);
	tcase_add_test(tc, call_arguments_not_object_is_32602);
	tcase_add_test(tc, call_schema_violation_is_32602_naming_tool);
	tcase_add_test(tc, call_missing_capability_is_400_32021);
	tcase_add_test(tc, call_declared_capability_runs);
	tcase_add_test(tc, call_elicitation_url_capability);
	tcase_add_test(tc, call_capability_checked_before_arguments);
	tcase_add_test(tc, call_tool_error_is_is_error_result);
	tcase_add_test(tc,
	    call_error_code_without_content_is_is_error_with_message);
	tcase_add_test(tc, call_nomem_is_32603);
	tcase_add_test(tc, call_ok_has_no_is_error);
	tcase_add_test(tc, call_structured_adds_text_block);
	tcase_add_test(tc, call_structured_violating_output_schema_is_32603);
	tcase_add_test(tc, call_all_content_builders);
	tcase_add_test(tc, call_defer_hooks_run_once_per_request);
	tcase_add_test(tc, mount_list_narrows_list_and_call);
	tcase_add_test(tc, mount_list_empty_mounts_nothing);
	tcase_add_test(tc, whoami_shows_assigns);
	suite_add_tcase(s, tc);

	tc = tcase_create("robustness");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, nul_byte_in_body_is_32700);
	tcase_add_test(tc, empty_body_on_fresh_server_is_32700);
	tcase_add_test(tc, body_read_stops_at_content_length);
	tcase_add_test(tc, serve_read_error_is_io);
	tcase_add_test(tc, serve_write_error_is_io);
	tcase_add_test(tc, serve_bad_arguments_are_inval);
	tcase_add_test(tc, worker_survives_malformed_requests);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	sr = srunner_create(dispatch_suite());
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
