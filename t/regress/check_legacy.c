/*
 * check_legacy.c - 2025-11-25 clients on the same pipeline (legacy.c)
 *
 * Every test serves a real request in-process through
 * wymcp_server_serve() (t/lib/harness.c) and reads what the web server
 * would get: the era chosen per request (src/serve/era.c), the
 * initialize handshake and its version negotiation, ping and
 * logging/setLevel answered exactly {}, modern results reshaped for
 * 2025 (no resultType, cache hints or serverInfo _meta), nothing ever
 * asked of a legacy client, subscribe/unsubscribe, GET/DELETE 405 and
 * Mcp-Session-Id ignored.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "testing/testing.h"
#include "harness.h"

#define ALL_VERSIONS							\
	"[\"2026-07-28\",\"2025-11-25\",\"2025-06-18\",\"2025-03-26\","	\
	"\"2024-11-05\"]"
#define INIT_PARAMS(v)							\
	"{\"protocolVersion\":\"" v "\",\"capabilities\":"		\
	"{\"sampling\":{},\"elicitation\":{},\"roots\":{}},"		\
	"\"clientInfo\":{\"name\":\"old\",\"version\":\"1\"}}"

static struct wymcp_server	*srv;
static struct h_resp		 resp;

/* The server's log, for the warnings the reshaping writes. */
static char	 logged[32][512];
static int	 nlogged;

static void
logfn(void *arg, int prio, const char *reqid, const char *msg)
{
	(void)arg;
	(void)prio;
	(void)reqid;
	if (nlogged < 32)
		snprintf(logged[nlogged++], sizeof(logged[0]), "%s", msg);
}

/* What ask_run saw, as "elicit,sample,roots" return codes. */
static enum wymcp_err	 seen[3];

/* ask: every way of asking the client; the result says what came back. */
static enum wymcp_err
ask_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a, *p;

	(void)args;
	p = wymcp_own(ctx, json_tokener_parse("{\"messages\":[{\"role\":"
	    "\"user\",\"content\":{\"type\":\"text\",\"text\":\"hi\"}}],"
	    "\"maxTokens\":10}"));
	seen[0] = wymcp_elicit(ctx, "Name?", "{\"type\":\"object\","
	    "\"properties\":{\"n\":{\"type\":\"string\"}}}", &a);
	seen[1] = wymcp_sample(ctx, NULL, p, &a);
	seen[2] = wymcp_roots(ctx, NULL, &a);
	return wymcp_result_add(res, wymcp_textf(ctx, "%s|%s|%s",
	    wymcp_strerror(seen[0]), wymcp_strerror(seen[1]),
	    wymcp_strerror(seen[2])));
}

/* Reached only when the client declared elicitation. */
static enum wymcp_err
needs_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	(void)args;
	return wymcp_result_add(res, wymcp_text(ctx, "ran"));
}

/* One log line at each priority. */
static enum wymcp_err
logs_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	int	 p;

	(void)args;
	for (p = WYMCP_LOG_EMERG; p <= WYMCP_LOG_DEBUG; p++)
		wymcp_log(ctx, p, "line %d", p);
	return wymcp_result_add(res, wymcp_text(ctx, "logged"));
}

/* Progress 1 and 2 of 2. */
static enum wymcp_err
steps_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	(void)args;
	wymcp_progress(ctx, 1, 2, NULL);
	wymcp_progress(ctx, 2, 2, NULL);
	return wymcp_result_add(res, wymcp_text(ctx, "stepped"));
}

/* A structured result that is not an object, under an array schema. */
static enum wymcp_err
array_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	(void)args;
	return wymcp_result_structured(res, wymcp_own(ctx,
	    json_tokener_parse("[1,2]")));
}

/* A structured object result. */
static enum wymcp_err
object_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	(void)args;
	return wymcp_result_structured(res, wymcp_own(ctx,
	    json_tokener_parse("{\"n\":1}")));
}

static const struct wymcp_tool tools[] = {
	{ .name = "ask", .description = "Asks the client everything.",
	  .input_schema = "{\"type\":\"object\"}", .run = ask_run },
	{ .name = "needs", .description = "Requires elicitation.",
	  .input_schema = "{\"type\":\"object\"}",
	  .required_caps = "{\"elicitation\":{}}", .run = needs_run },
	{ .name = "logs", .description = "Logs at every level.",
	  .input_schema = "{\"type\":\"object\"}", .run = logs_run },
	{ .name = "steps", .description = "Reports progress.",
	  .input_schema = "{\"type\":\"object\"}", .run = steps_run },
	{ .name = "array", .description = "Structured array.",
	  .input_schema = "{\"type\":\"object\"}",
	  .output_schema = "{\"type\":\"array\"}", .run = array_run },
	{ .name = "object", .description = "Structured object.",
	  .input_schema = "{\"type\":\"object\"}",
	  .output_schema = "{\"type\":\"object\"}", .run = object_run },
	{ .name = NULL }
};

static enum wymcp_err
one_read(struct wymcp_ctx *ctx, const char *uri, struct json_object *vars,
    struct wymcp_resource_result *res)
{
	(void)ctx;
	(void)vars;
	return wymcp_contents_text(res, uri, "text/plain", "one");
}

static const struct wymcp_resource resources[] = {
	{ .uri = "test://one", .name = "one", .read = one_read },
	{ .uri = NULL }
};

static const struct wymcp_module mod = {
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "legacymod", .tools = tools, .resources = resources,
	.tool_size = sizeof(struct wymcp_tool)
};

/* Tools only: no resources capability, no resources/ methods. */
static const struct wymcp_module bare = {
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "bare", .tools = tools,
	.tool_size = sizeof(struct wymcp_tool)
};

static void
setup(void)
{
	memset(&resp, 0, sizeof(resp));
	memset(seen, 0, sizeof(seen));
	nlogged = 0;
	srv = wymcp_server_new();
	ck_assert_ptr_nonnull(srv);
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod), WYMCP_OK);
	wymcp_server_set_log(srv, logfn, NULL, WYMCP_LOG_DEBUG);
}

static void
teardown(void)
{
	h_free(&resp);
	wymcp_server_free(srv);
	srv = NULL;
}

/*
 * A request as a 2025-11-25 client sends it: POST, Content-Type, Accept,
 * Host, and the CGI params given (NULL-terminated), then the body.
 */
static void
send_env(const char *rm, const char *body, va_list ap)
{
	const char	*env[32], *p;
	char		 r[64], cl[64];
	size_t		 n = 0;

	snprintf(r, sizeof(r), "REQUEST_METHOD=%s", rm);
	snprintf(cl, sizeof(cl), "CONTENT_LENGTH=%zu",
	    body != NULL ? strlen(body) : (size_t)0);
	env[n++] = r;
	env[n++] = "CONTENT_TYPE=application/json";
	env[n++] = "HTTP_ACCEPT=application/json, text/event-stream";
	env[n++] = "HTTP_HOST=localhost";
	env[n++] = cl;
	while ((p = va_arg(ap, const char *)) != NULL && n < 31)
		env[n++] = p;
	env[n] = NULL;
	h_free(&resp);
	ck_assert_int_eq(h_serve(srv, env, body, &resp), WYMCP_OK);
	ck_assert_ptr_nonnull(resp.headers);
}

static void
post(const char *body, ...)
{
	va_list	 ap;

	va_start(ap, body);
	send_env("POST", body, ap);
	va_end(ap);
}

/* POST {"jsonrpc":"2.0","id":7,"method":M,"params":P} with params. */
static void
rpc(const char *method, const char *params, ...)
{
	char	 body[4096];
	va_list	 ap;

	snprintf(body, sizeof(body), "{\"jsonrpc\":\"2.0\",\"id\":7,"
	    "\"method\":\"%s\"%s%s}", method, params != NULL ?
	    ",\"params\":" : "", params != NULL ? params : "");
	va_start(ap, params);
	send_env("POST", body, ap);
	va_end(ap);
}

/* Member lookup along a NULL-terminated path of keys. */
static struct json_object *
jp(struct json_object *o, ...)
{
	va_list		 ap;
	const char	*k;

	va_start(ap, o);
	while (o != NULL && (k = va_arg(ap, const char *)) != NULL)
		if (!json_object_object_get_ex(o, k, &o))
			o = NULL;
	va_end(ap);
	return o;
}

static const char *
compact(struct json_object *o)
{
	return json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* A plain JSON success; returns the result. */
static struct json_object *
expect_result(void)
{
	ck_assert_msg(resp.status == 200, "status %d: %s", resp.status,
	    resp.body);
	ck_assert_msg(h_result(&resp) != NULL, "no result: %s", resp.body);
	ck_assert_ptr_nonnull(strstr(resp.headers,
	    "Content-Type: application/json"));
	return h_result(&resp);
}

static void
expect_error(int status, int code)
{
	ck_assert_msg(resp.status == status, "status %d, want %d: %s",
	    resp.status, status, resp.body);
	ck_assert_msg(h_code(&resp) == code, "code %d, want %d: %s",
	    h_code(&resp), code, resp.body);
}

/* A result reshaped for 2025: none of the 2026-only members. */
static void
expect_legacy_shape(struct json_object *r)
{
	ck_assert_ptr_null(jp(r, "resultType", NULL));
	ck_assert_ptr_null(jp(r, "ttlMs", NULL));
	ck_assert_ptr_null(jp(r, "cacheScope", NULL));
	ck_assert_ptr_null(jp(r, "_meta", NULL));
}

/* ------------------------------------------------------------ the era */

START_TEST(initialize_without_meta_is_legacy)
{
	struct json_object	*r;

	rpc("initialize", INIT_PARAMS("2025-11-25"), NULL);
	r = expect_result();
	ck_assert_str_eq(json_object_get_string(jp(r, "protocolVersion",
	    NULL)), "2025-11-25");
	ck_assert_str_eq(json_object_get_string(jp(r, "serverInfo", "name",
	    NULL)), "wymcp");
	ck_assert_str_eq(json_object_get_string(jp(r, "serverInfo",
	    "version", NULL)), WYMCP_VERSION);
	/* What discover advertises: no listChanged, no subscribe. */
	ck_assert_str_eq(compact(jp(r, "capabilities", NULL)),
	    "{\"tools\":{},\"resources\":{},\"logging\":{}}");
	expect_legacy_shape(r);
	/* No session is minted. */
	ck_assert_ptr_null(strstr(resp.headers, "Session"));
	/* With any version header, even the modern one. */
	rpc("initialize", INIT_PARAMS("2025-06-18"),
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28", NULL);
	r = expect_result();
	ck_assert_str_eq(json_object_get_string(jp(r, "protocolVersion",
	    NULL)), "2025-06-18");
}
END_TEST

START_TEST(initialize_with_modern_meta_is_404)
{
	rpc("initialize", "{\"_meta\":" H_META "}",
	    "HTTP_MCP_METHOD=initialize",
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28", NULL);
	expect_error(404, WYMCP__METHOD_NOT_FOUND);
	/* Any _meta protocolVersion makes it modern. */
	rpc("initialize", "{\"protocolVersion\":\"2025-11-25\",\"_meta\":"
	    "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}",
	    "HTTP_MCP_METHOD=initialize",
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28", NULL);
	expect_error(400, WYMCP__INVALID_PARAMS);
}
END_TEST

START_TEST(version_header_chooses_the_era)
{
	static const char *const legacy[] = {
		"HTTP_MCP_PROTOCOL_VERSION=2025-11-25",
		"HTTP_MCP_PROTOCOL_VERSION=2025-06-18",
		"HTTP_MCP_PROTOCOL_VERSION=2025-03-26",
		"HTTP_MCP_PROTOCOL_VERSION=2024-11-05",
		"HTTP_MCP_PROTOCOL_VERSION=  2025-11-25 ",
		NULL
	};
	size_t	 i;

	/* Absent: legacy (2025-11-25 transports: assume 2025-03-26). */
	rpc("tools/list", "{}", NULL);
	expect_legacy_shape(expect_result());
	rpc("tools/list", NULL, NULL);
	expect_legacy_shape(expect_result());
	for (i = 0; legacy[i] != NULL; i++) {
		rpc("tools/list", "{}", legacy[i], NULL);
		expect_legacy_shape(expect_result());
	}
	/* 2026-07-28 without _meta: modern, which needs _meta. */
	rpc("tools/list", "{}", "HTTP_MCP_METHOD=tools/list",
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28", NULL);
	expect_error(400, WYMCP__INVALID_PARAMS);
	/* Anything else: unsupported, naming every supported version. */
	rpc("tools/list", "{}", "HTTP_MCP_PROTOCOL_VERSION=2099-01-01", NULL);
	expect_error(400, WYMCP__UNSUPPORTED_VERSION);
	ck_assert_str_eq(compact(jp(resp.json, "error", "data", NULL)),
	    "{\"supported\":" ALL_VERSIONS ",\"requested\":\"2099-01-01\"}");
	ck_assert_str_eq(compact(jp(resp.json, "id", NULL)), "7");
	rpc("tools/list", "{}", "HTTP_MCP_PROTOCOL_VERSION=", NULL);
	expect_error(400, WYMCP__UNSUPPORTED_VERSION);
	rpc("tools/list", "{}", "HTTP_MCP_PROTOCOL_VERSION=2025-11-25\x01",
	    NULL);
	expect_error(400, WYMCP__UNSUPPORTED_VERSION);
}
END_TEST

START_TEST(modern_meta_wins_over_a_legacy_header)
{
	/* Modern, so the header must match _meta: -32020. */
	rpc("tools/list", "{\"_meta\":" H_META "}",
	    "HTTP_MCP_METHOD=tools/list",
	    "HTTP_MCP_PROTOCOL_VERSION=2025-11-25", NULL);
	expect_error(400, WYMCP__HEADER_MISMATCH);
	/* A legacy version in _meta is an unsupported modern one. */
	rpc("tools/list", "{\"_meta\":{\"io.modelcontextprotocol/"
	    "protocolVersion\":\"2025-11-25\",\"io.modelcontextprotocol/"
	    "clientCapabilities\":{}}}", "HTTP_MCP_METHOD=tools/list",
	    "HTTP_MCP_PROTOCOL_VERSION=2025-11-25", NULL);
	expect_error(400, WYMCP__UNSUPPORTED_VERSION);
	ck_assert_str_eq(compact(jp(resp.json, "error", "data", NULL)),
	    "{\"supported\":" ALL_VERSIONS ",\"requested\":\"2025-11-25\"}");
	/* A _meta without protocolVersion does not make it modern. */
	rpc("tools/list", "{\"_meta\":{\"progressToken\":1}}",
	    "HTTP_MCP_PROTOCOL_VERSION=2025-11-25", NULL);
	expect_legacy_shape(expect_result());
}
END_TEST

START_TEST(legacy_off)
{
	struct json_object	*r;

	wymcp_server_set_legacy(srv, 0);
	/* versioning.mdx: initialize to a modern-only server. */
	rpc("initialize", INIT_PARAMS("2025-11-25"), NULL);
	expect_error(400, WYMCP__UNSUPPORTED_VERSION);
	ck_assert_str_eq(compact(jp(resp.json, "error", "data", NULL)),
	    "{\"supported\":[\"2026-07-28\"],\"requested\":\"2025-11-25\"}");
	/* Still 404 with a modern _meta. */
	rpc("initialize", "{\"_meta\":" H_META "}",
	    "HTTP_MCP_METHOD=initialize",
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28", NULL);
	expect_error(404, WYMCP__METHOD_NOT_FOUND);
	/* Other legacy-looking requests get the modern checks. */
	rpc("tools/list", "{}", NULL);
	expect_error(400, WYMCP__HEADER_MISMATCH);
	rpc("ping", "{}", "HTTP_MCP_PROTOCOL_VERSION=2025-11-25", NULL);
	expect_error(400, WYMCP__HEADER_MISMATCH);
	/* discover and -32022 name 2026-07-28 alone. */
	rpc("server/discover", "{\"_meta\":" H_META "}",
	    "HTTP_MCP_METHOD=server/discover",
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28", NULL);
	r = expect_result();
	ck_assert_str_eq(compact(jp(r, "supportedVersions", NULL)),
	    "[\"2026-07-28\"]");
	rpc("tools/list", "{\"_meta\":{\"io.modelcontextprotocol/"
	    "protocolVersion\":\"v9\",\"io.modelcontextprotocol/"
	    "clientCapabilities\":{}}}", "HTTP_MCP_METHOD=tools/list",
	    "HTTP_MCP_PROTOCOL_VERSION=v9", NULL);
	expect_error(400, WYMCP__UNSUPPORTED_VERSION);
	ck_assert_str_eq(compact(jp(resp.json, "error", "data", NULL)),
	    "{\"supported\":[\"2026-07-28\"],\"requested\":\"v9\"}");
	/* Back on. */
	wymcp_server_set_legacy(srv, 1);
	rpc("initialize", INIT_PARAMS("2025-11-25"), NULL);
	expect_result();
}
END_TEST

START_TEST(legacy_param_per_location)
{
	/* The web server's WYMCP_LEGACY wins over the server's setting. */
	rpc("initialize", INIT_PARAMS("2025-11-25"), "WYMCP_LEGACY=off",
	    NULL);
	expect_error(400, WYMCP__UNSUPPORTED_VERSION);
	wymcp_server_set_legacy(srv, 0);
	rpc("initialize", INIT_PARAMS("2025-11-25"), "WYMCP_LEGACY=on", NULL);
	expect_result();
	/* Another value leaves the server's setting. */
	rpc("initialize", INIT_PARAMS("2025-11-25"), "WYMCP_LEGACY=maybe",
	    NULL);
	expect_error(400, WYMCP__UNSUPPORTED_VERSION);
	/* A client header cannot set it. */
	rpc("initialize", INIT_PARAMS("2025-11-25"), "HTTP_WYMCP_LEGACY=on",
	    NULL);
	expect_error(400, WYMCP__UNSUPPORTED_VERSION);
}
END_TEST

/* ------------------------------------------------------- the handshake */

START_TEST(initialize_negotiates)
{
	static const char *const ok[] = {
		"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", NULL
	};
	char		 params[512];
	size_t		 i;

	for (i = 0; ok[i] != NULL; i++) {
		snprintf(params, sizeof(params), "{\"protocolVersion\":\"%s\","
		    "\"capabilities\":{},\"clientInfo\":{\"name\":\"c\","
		    "\"version\":\"1\"}}", ok[i]);
		rpc("initialize", params, NULL);
		ck_assert_str_eq(json_object_get_string(jp(expect_result(),
		    "protocolVersion", NULL)), ok[i]);
	}
	/* Unknown ones: the latest legacy version (lifecycle.mdx MUST). */
	rpc("initialize", INIT_PARAMS("2099-12-31"), NULL);
	ck_assert_str_eq(json_object_get_string(jp(expect_result(),
	    "protocolVersion", NULL)), "2025-11-25");
	rpc("initialize", INIT_PARAMS("2026-07-28"), NULL);
	ck_assert_str_eq(json_object_get_string(jp(expect_result(),
	    "protocolVersion", NULL)), "2025-11-25");
	/* No protocolVersion: invalid params, with HTTP 200. */
	rpc("initialize", "{\"capabilities\":{}}", NULL);
	expect_error(200, WYMCP__INVALID_PARAMS);
	rpc("initialize", "{\"protocolVersion\":20251125}", NULL);
	expect_error(200, WYMCP__INVALID_PARAMS);
	rpc("initialize", NULL, NULL);
	expect_error(200, WYMCP__INVALID_PARAMS);
}
END_TEST

START_TEST(initialize_capabilities_follow_the_server)
{
	struct json_object	*r;

	wymcp_server_free(srv);
	srv = wymcp_server_new();
	ck_assert_int_eq(wymcp_server_add_module(srv, &bare), WYMCP_OK);
	rpc("initialize", INIT_PARAMS("2025-11-25"), NULL);
	r = expect_result();
	ck_assert_str_eq(compact(jp(r, "capabilities", NULL)),
	    "{\"tools\":{},\"logging\":{}}");
}
END_TEST

START_TEST(notifications_are_202)
{
	post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
	    "HTTP_MCP_PROTOCOL_VERSION=2025-11-25",
	    "HTTP_MCP_SESSION_ID=whatever", NULL);
	ck_assert_int_eq(resp.status, 202);
	ck_assert_uint_eq(resp.bodylen, 0);
	post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
	    "\"params\":{\"requestId\":3}}", NULL);
	ck_assert_int_eq(resp.status, 202);
	/* With the era off too (as before: every notification is 202). */
	wymcp_server_set_legacy(srv, 0);
	post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
	    NULL);
	ck_assert_int_eq(resp.status, 202);
}
END_TEST

START_TEST(ping_and_set_level_are_exactly_empty)
{
	static const char *const levels[] = { "debug", "info", "notice",
	    "warning", "error", "critical", "alert", "emergency", NULL };
	char	 params[128];
	size_t	 i;

	rpc("ping", NULL, "HTTP_MCP_PROTOCOL_VERSION=2025-11-25", NULL);
	ck_assert_str_eq(resp.body, "{\"jsonrpc\":\"2.0\",\"id\":7,"
	    "\"result\":{}}");
	rpc("ping", "{}", NULL);
	ck_assert_str_eq(compact(expect_result()), "{}");
	for (i = 0; levels[i] != NULL; i++) {
		snprintf(params, sizeof(params), "{\"level\":\"%s\"}",
		    levels[i]);
		rpc("logging/setLevel", params,
		    "HTTP_MCP_PROTOCOL_VERSION=2025-11-25", NULL);
		ck_assert_str_eq(resp.body, "{\"jsonrpc\":\"2.0\",\"id\":7,"
		    "\"result\":{}}");
	}
	rpc("logging/setLevel", "{\"level\":\"loud\"}", NULL);
	expect_error(200, WYMCP__INVALID_PARAMS);
	rpc("logging/setLevel", "{\"level\":6}", NULL);
	expect_error(200, WYMCP__INVALID_PARAMS);
	rpc("logging/setLevel", "{}", NULL);
	expect_error(200, WYMCP__INVALID_PARAMS);
}
END_TEST

/* ------------------------------------------------------- result shapes */

START_TEST(results_are_reshaped)
{
	struct json_object	*r;

	rpc("tools/list", "{}", "HTTP_MCP_PROTOCOL_VERSION=2025-11-25", NULL);
	r = expect_result();
	expect_legacy_shape(r);
	ck_assert_int_eq(json_object_array_length(jp(r, "tools", NULL)), 6);
	rpc("tools/call", "{\"name\":\"steps\",\"arguments\":{}}", NULL);
	r = expect_result();
	ck_assert_str_eq(compact(r),
	    "{\"content\":[{\"type\":\"text\",\"text\":\"stepped\"}]}");
	rpc("resources/list", "{}", NULL);
	expect_legacy_shape(expect_result());
	rpc("resources/templates/list", "{}", NULL);
	expect_legacy_shape(expect_result());
	rpc("resources/read", "{\"uri\":\"test://one\"}", NULL);
	r = expect_result();
	ck_assert_str_eq(compact(r), "{\"contents\":[{\"uri\":\"test://one\","
	    "\"mimeType\":\"text/plain\",\"text\":\"one\"}]}");
	/* The modern result is untouched. */
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, "tools/list", NULL, NULL, NULL, &resp),
	    WYMCP_OK);
	ck_assert_str_eq(json_object_get_string(jp(h_result(&resp),
	    "resultType", NULL)), "complete");
	ck_assert_ptr_nonnull(jp(h_result(&resp), "ttlMs", NULL));
	ck_assert_ptr_nonnull(jp(h_result(&resp), "_meta", NULL));
}
END_TEST

START_TEST(pagination_still_works)
{
	struct json_object	*r;
	char			 params[1024];

	wymcp_server_set_page_size(srv, 4);
	rpc("tools/list", "{}", NULL);
	r = expect_result();
	ck_assert_int_eq(json_object_array_length(jp(r, "tools", NULL)), 4);
	ck_assert_ptr_nonnull(jp(r, "nextCursor", NULL));
	snprintf(params, sizeof(params), "{\"cursor\":\"%s\"}",
	    json_object_get_string(jp(r, "nextCursor", NULL)));
	rpc("tools/list", params, NULL);
	r = expect_result();
	ck_assert_int_eq(json_object_array_length(jp(r, "tools", NULL)), 2);
	ck_assert_ptr_null(jp(r, "nextCursor", NULL));
}
END_TEST

START_TEST(structured_content_must_be_an_object)
{
	struct json_object	*r, *t;
	size_t			 i;
	int			 warned = 0;

	/* tools/list: no outputSchema other than an object one. */
	rpc("tools/list", "{}", NULL);
	r = jp(expect_result(), "tools", NULL);
	for (i = 0; i < json_object_array_length(r); i++) {
		t = json_object_array_get_idx(r, i);
		if (strcmp(json_object_get_string(jp(t, "name", NULL)),
		    "array") == 0) {
			ck_assert_ptr_null(jp(t, "outputSchema", NULL));
			ck_assert_ptr_nonnull(jp(t, "inputSchema", NULL));
		}
		if (strcmp(json_object_get_string(jp(t, "name", NULL)),
		    "object") == 0)
			ck_assert_ptr_nonnull(jp(t, "outputSchema", NULL));
	}
	/* The shared listing is unchanged for the next modern request. */
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, "tools/list", NULL, NULL, NULL, &resp),
	    WYMCP_OK);
	ck_assert_ptr_nonnull(strstr(resp.body, "\"outputSchema\":"
	    "{\"type\":\"array\"}"));
	/* tools/call: an array is left out (with a warning). */
	rpc("tools/call", "{\"name\":\"array\"}", NULL);
	r = expect_result();
	ck_assert_ptr_null(jp(r, "structuredContent", NULL));
	ck_assert_str_eq(h_text(&resp), "[1,2]");
	for (i = 0; i < (size_t)nlogged; i++)
		if (strstr(logged[i], "structuredContent is not an object"))
			warned = 1;
	ck_assert(warned);
	rpc("tools/call", "{\"name\":\"object\"}", NULL);
	ck_assert_str_eq(compact(jp(expect_result(), "structuredContent",
	    NULL)), "{\"n\":1}");
}
END_TEST

START_TEST(errors_are_http_200)
{
	/* server/discover is 2026-07-28 only. */
	rpc("server/discover", "{}", NULL);
	expect_error(200, WYMCP__METHOD_NOT_FOUND);
	rpc("no/such", "{}", "HTTP_MCP_PROTOCOL_VERSION=2025-11-25", NULL);
	expect_error(200, WYMCP__METHOD_NOT_FOUND);
	rpc("tools/call", "{\"name\":\"nosuch\"}", NULL);
	expect_error(200, WYMCP__INVALID_PARAMS);
	/* resources/read of nothing: -32002 with data.uri (2025-11-25). */
	rpc("resources/read", "{\"uri\":\"test://none\"}", NULL);
	expect_error(200, WYMCP__RESOURCE_NOT_FOUND);
	ck_assert_str_eq(compact(jp(resp.json, "error", "data", NULL)),
	    "{\"uri\":\"test://none\"}");
	/* The same on the modern wire is -32602. */
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, "resources/read", "test://none",
	    "{\"uri\":\"test://none\"}", NULL, &resp), WYMCP_OK);
	expect_error(200, WYMCP__INVALID_PARAMS);
	/* The envelope stays 400: a response posted is not accepted. */
	post("{\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"result\":{}}",
	    "HTTP_MCP_PROTOCOL_VERSION=2025-11-25", NULL);
	expect_error(400, WYMCP__INVALID_REQUEST);
	post("{\"jsonrpc\":\"2.0\",\"id\":1,", NULL);
	expect_error(400, WYMCP__PARSE_ERROR);
}
END_TEST

/* ------------------------------------------------ nothing can be asked */

START_TEST(elicit_is_not_supported_on_legacy)
{
	/* Capabilities declared in initialize and in _meta: not used. */
	rpc("tools/call", "{\"name\":\"ask\",\"_meta\":{\"io."
	    "modelcontextprotocol/clientCapabilities\":{\"elicitation\":{},"
	    "\"sampling\":{},\"roots\":{}}}}",
	    "HTTP_MCP_PROTOCOL_VERSION=2025-11-25", NULL);
	expect_legacy_shape(expect_result());
	ck_assert_int_eq(seen[0], WYMCP_ERR_NOTSUP);
	ck_assert_int_eq(seen[1], WYMCP_ERR_NOTSUP);
	ck_assert_int_eq(seen[2], WYMCP_ERR_NOTSUP);
	ck_assert_ptr_null(strstr(resp.body, "input_required"));
	ck_assert_ptr_null(strstr(resp.body, "inputRequests"));
	/* The same tool asks a modern client that declares them. */
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, "tools/call", "ask", "{\"name\":\"ask\","
	    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
	    "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":"
	    "{\"elicitation\":{}}}}", NULL, &resp), WYMCP_OK);
	ck_assert_str_eq(json_object_get_string(jp(h_result(&resp),
	    "resultType", NULL)), "input_required");
}
END_TEST

START_TEST(required_caps_tool_on_legacy)
{
	struct json_object	*r;

	rpc("tools/call", "{\"name\":\"needs\",\"arguments\":{}}",
	    "HTTP_MCP_PROTOCOL_VERSION=2025-06-18", NULL);
	r = expect_result();
	expect_legacy_shape(r);
	ck_assert(json_object_get_boolean(jp(r, "isError", NULL)));
	ck_assert_ptr_nonnull(strstr(h_text(&resp), "needs"));
	ck_assert_ptr_nonnull(strstr(h_text(&resp), "elicitation"));
	ck_assert_ptr_nonnull(strstr(h_text(&resp), "2025-06-18"));
	/* Never -32021, which 2025-11-25 does not have. */
	ck_assert_int_eq(h_code(&resp), 0);
	/* Without a header: the assumed 2025-03-26. */
	rpc("tools/call", "{\"name\":\"needs\"}", NULL);
	ck_assert_ptr_nonnull(strstr(h_text(&resp), "2025-03-26"));
}
END_TEST

/* ----------------------------------------------- subscribe, GET, DELETE */

START_TEST(subscribe_legacy_vs_modern)
{
	rpc("resources/subscribe", "{\"uri\":\"test://one\"}",
	    "HTTP_MCP_PROTOCOL_VERSION=2025-11-25", NULL);
	ck_assert_str_eq(resp.body, "{\"jsonrpc\":\"2.0\",\"id\":7,"
	    "\"result\":{}}");
	rpc("resources/unsubscribe", "{\"uri\":\"test://one\"}", NULL);
	ck_assert_str_eq(resp.body, "{\"jsonrpc\":\"2.0\",\"id\":7,"
	    "\"result\":{}}");
	rpc("resources/subscribe", "{}", NULL);
	expect_error(200, WYMCP__INVALID_PARAMS);
	/* Removed in 2026-07-28. */
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, "resources/subscribe", NULL,
	    "{\"uri\":\"test://one\"}", NULL, &resp), WYMCP_OK);
	expect_error(404, WYMCP__METHOD_NOT_FOUND);
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, "resources/unsubscribe", NULL,
	    "{\"uri\":\"test://one\"}", NULL, &resp), WYMCP_OK);
	expect_error(404, WYMCP__METHOD_NOT_FOUND);
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, "ping", NULL, NULL, NULL, &resp),
	    WYMCP_OK);
	expect_error(404, WYMCP__METHOD_NOT_FOUND);
	/* A server without resources has no resources/ methods. */
	wymcp_server_free(srv);
	srv = wymcp_server_new();
	ck_assert_int_eq(wymcp_server_add_module(srv, &bare), WYMCP_OK);
	rpc("resources/subscribe", "{\"uri\":\"test://one\"}", NULL);
	expect_error(200, WYMCP__METHOD_NOT_FOUND);
}
END_TEST

static void
send_method(const char *rm, ...)
{
	va_list	 ap;

	va_start(ap, rm);
	send_env(rm, NULL, ap);
	va_end(ap);
}

START_TEST(get_and_delete_are_405)
{
	send_method("GET", "HTTP_ACCEPT=text/event-stream",
	    "HTTP_MCP_SESSION_ID=abc", "HTTP_MCP_PROTOCOL_VERSION=2025-11-25",
	    NULL);
	ck_assert_int_eq(resp.status, 405);
	ck_assert_ptr_nonnull(strstr(resp.headers, "Allow: POST"));
	send_method("DELETE", "HTTP_MCP_SESSION_ID=abc",
	    "HTTP_MCP_PROTOCOL_VERSION=2025-11-25", NULL);
	ck_assert_int_eq(resp.status, 405);
	ck_assert_ptr_nonnull(strstr(resp.headers, "Allow: POST"));
}
END_TEST

START_TEST(session_id_is_ignored)
{
	rpc("tools/list", "{}", "HTTP_MCP_SESSION_ID=never-minted",
	    "HTTP_MCP_PROTOCOL_VERSION=2025-11-25", NULL);
	expect_legacy_shape(expect_result());
	rpc("initialize", INIT_PARAMS("2025-11-25"),
	    "HTTP_MCP_SESSION_ID=old", NULL);
	expect_result();
	ck_assert_ptr_null(strstr(resp.headers, "Session"));
	/* Not needed either. */
	rpc("tools/call", "{\"name\":\"steps\"}", NULL);
	expect_result();
}
END_TEST

/* ------------------------------------------------ progress and logging */

START_TEST(progress_and_logs_stream_from_info)
{
	struct json_object	*o;
	const char		*p;
	char			*line;
	int			 n = 0, levels = 0;

	rpc("tools/call", "{\"name\":\"logs\"}",
	    "HTTP_MCP_PROTOCOL_VERSION=2025-11-25", NULL);
	ck_assert_int_eq(resp.status, 200);
	ck_assert_ptr_nonnull(strstr(resp.headers, "text/event-stream"));
	/* emergency .. info: 7 notifications, then the result. */
	for (p = resp.body; (p = strstr(p, "data: ")) != NULL; p += 6) {
		line = strndup(p + 6, strcspn(p + 6, "\n"));
		o = json_tokener_parse(line);
		free(line);
		ck_assert_ptr_nonnull(o);
		if (jp(o, "method", NULL) != NULL) {
			ck_assert_str_eq(json_object_get_string(jp(o,
			    "method", NULL)), "notifications/message");
			if (strcmp(json_object_get_string(jp(o, "params",
			    "level", NULL)), "debug") == 0)
				levels = -1;
			else if (levels >= 0)
				levels++;
		} else
			ck_assert_ptr_null(jp(o, "result", "resultType",
			    NULL));
		json_object_put(o);
		n++;
	}
	ck_assert_int_eq(levels, 7);
	ck_assert_int_eq(n, 8);
	/* A _meta logLevel means nothing on this wire. */
	rpc("tools/call", "{\"name\":\"logs\",\"_meta\":{\"io."
	    "modelcontextprotocol/logLevel\":\"nonsense\"}}", NULL);
	ck_assert_int_eq(resp.status, 200);
	ck_assert_ptr_null(strstr(resp.body, "\"level\":\"debug\""));
	/* Progress with the request's token. */
	rpc("tools/call", "{\"name\":\"steps\",\"_meta\":"
	    "{\"progressToken\":\"t1\"}}", NULL);
	ck_assert_ptr_nonnull(strstr(resp.headers, "text/event-stream"));
	ck_assert_ptr_nonnull(strstr(resp.body, "\"method\":\"notifications/"
	    "progress\",\"params\":{\"progressToken\":\"t1\",\"progress\":2,"
	    "\"total\":2}"));
	ck_assert_ptr_nonnull(strstr(resp.body, "\"result\":{\"content\":"
	    "[{\"type\":\"text\",\"text\":\"stepped\"}]}"));
	/* Without a token, plain JSON. */
	rpc("tools/call", "{\"name\":\"steps\"}", NULL);
	ck_assert_ptr_nonnull(strstr(resp.headers, "application/json"));
}
END_TEST

static Suite *
legacy_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("legacy");
	tc = tcase_create("era");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, initialize_without_meta_is_legacy);
	tcase_add_test(tc, initialize_with_modern_meta_is_404);
	tcase_add_test(tc, version_header_chooses_the_era);
	tcase_add_test(tc, modern_meta_wins_over_a_legacy_header);
	tcase_add_test(tc, legacy_off);
	tcase_add_test(tc, legacy_param_per_location);
	suite_add_tcase(s, tc);
	tc = tcase_create("handshake");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, initialize_negotiates);
	tcase_add_test(tc, initialize_capabilities_follow_the_server);
	tcase_add_test(tc, notifications_are_202);
	tcase_add_test(tc, ping_and_set_level_are_exactly_empty);
	suite_add_tcase(s, tc);
	tc = tcase_create("results");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, results_are_reshaped);
	tcase_add_test(tc, pagination_still_works);
	tcase_add_test(tc, structured_content_must_be_an_object);
	tcase_add_test(tc, errors_are_http_200);
	tcase_add_test(tc, elicit_is_not_supported_on_legacy);
	tcase_add_test(tc, required_caps_tool_on_legacy);
	suite_add_tcase(s, tc);
	tc = tcase_create("transport");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, subscribe_legacy_vs_modern);
	tcase_add_test(tc, get_and_delete_are_405);
	tcase_add_test(tc, session_id_is_ignored);
	tcase_add_test(tc, progress_and_logs_stream_from_info);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	sr = srunner_create(legacy_suite());
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
