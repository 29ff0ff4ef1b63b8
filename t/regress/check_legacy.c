/*
 * check_legacy.c - 2025-11-25 clients on the same pipeline (legacy.c)
 *
 * Every test serves a real request in-process through
 * wymcp_server_serve() (t/lib/harness.c) and reads what the web server
 * would get: the era chosen per request (src/serve/era.c), the
 * initialize handshake and its version negotiation, ping and
 * logging/setLevel answered exactly {}, modern results reshaped for
 * 2025 (no resultType, cache hints or serverInfo _meta), nothing ever
 * asked of a legacy client, subscribe/unsubscribe, GET/DELETE 405, and
 * the sealed Mcp-Session-Id initialize mints: it carries the version,
 * the client's asking capabilities and the principal, every later
 * request opens it, and one that does not open is 404.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "testing/testing.h"
#include "core/core.h"
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

static char	 keys[8][32];
static size_t	 nkeys;

/* ask: every way of asking the client; the result says what came back. */
static enum wymcp_err
ask_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a, *p;

	(void)args;
	/* Each run's idempotency key, for held_stream_asks_and_reruns. */
	if (nkeys < sizeof(keys) / sizeof(keys[0]))
		snprintf(keys[nkeys++], sizeof(keys[0]), "%s",
		    wymcp_idempotency_key(ctx));
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

/* URL-mode elicitation: the answer's action, or the error. */
static enum wymcp_err
link_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;
	enum wymcp_err		 rc;

	(void)args;
	rc = wymcp_elicit_url(ctx, "Sign in at the provider",
	    "https://example.com/auth?x=1", &a);
	return wymcp_result_add(res, wymcp_textf(ctx, "url:%s",
	    rc == WYMCP_OK ? wymcp_answer_action(a) : wymcp_strerror(rc)));
}

/* What the session id carried: the version and the asking caps. */
static enum wymcp_err
caps_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	(void)args;
	return wymcp_result_add(res, wymcp_textf(ctx, "%s %s",
	    ctx->req.version, ctx->req.session_caps == NULL ? "none" :
	    json_object_to_json_string_ext(ctx->req.session_caps,
	    JSON_C_TO_STRING_PLAIN)));
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

/* A structured result that breaks its outputSchema: -32603. */
static enum wymcp_err
mismatch_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	(void)args;
	return wymcp_result_structured(res, wymcp_own(ctx,
	    json_tokener_parse("{\"town\":\"Oslo\"}")));
}

static const struct wymcp_tool tools[] = {
	{ .name = "ask", .description = "Asks the client everything.",
	  .input_schema = "{\"type\":\"object\"}", .run = ask_run },
	{ .name = "needs", .description = "Requires elicitation.",
	  .input_schema = "{\"type\":\"object\"}",
	  .required_caps = "{\"elicitation\":{}}", .run = needs_run },
	{ .name = "link", .description = "Asks for a URL visit.",
	  .input_schema = "{\"type\":\"object\"}", .run = link_run },
	{ .name = "caps", .description = "Says what the session carried.",
	  .input_schema = "{\"type\":\"object\"}", .run = caps_run },
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
	{ .name = "mismatch", .description = "Breaks its outputSchema.",
	  .input_schema = "{\"type\":\"object\"}",
	  .output_schema = "{\"type\":\"object\",\"required\":"
	  "[\"city\"],\"properties\":{\"city\":{\"type\":\"string\"}}}",
	  .run = mismatch_run },
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
	.resource_size = sizeof(struct wymcp_resource),
	.prompt_size = sizeof(struct wymcp_prompt),
	.prompt_arg_size = sizeof(struct wymcp_prompt_arg),
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

/* What serving returns (WYMCP_ERR_IO when the client hung up). */
static enum wymcp_err	 want_rc = WYMCP_OK;

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
	ck_assert_int_eq(h_serve(srv, env, body, &resp), want_rc);
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
	ck_assert_ptr_null(h_jp(r, "resultType", NULL));
	ck_assert_ptr_null(h_jp(r, "ttlMs", NULL));
	ck_assert_ptr_null(h_jp(r, "cacheScope", NULL));
	ck_assert_ptr_null(h_jp(r, "_meta", NULL));
}

/* ------------------------------------------------------------ the era */

START_TEST(initialize_without_meta_is_legacy)
{
	struct json_object	*r;

	rpc("initialize", INIT_PARAMS("2025-11-25"), NULL);
	r = expect_result();
	ck_assert_str_eq(json_object_get_string(h_jp(r, "protocolVersion",
	    NULL)), "2025-11-25");
	ck_assert_str_eq(json_object_get_string(h_jp(r, "serverInfo", "name",
	    NULL)), "wymcp");
	ck_assert_str_eq(json_object_get_string(h_jp(r, "serverInfo",
	    "version", NULL)), WYMCP_VERSION);
	/* What discover advertises: no listChanged, no subscribe. */
	ck_assert_str_eq(h_compact(h_jp(r, "capabilities", NULL)),
	    "{\"tools\":{},\"resources\":{},\"logging\":{}}");
	expect_legacy_shape(r);
	/* A sealed session id is minted (see the session tests). */
	ck_assert_ptr_nonnull(strstr(resp.headers, "Mcp-Session-Id: "));
	/* With any version header, even the modern one. */
	rpc("initialize", INIT_PARAMS("2025-06-18"),
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28", NULL);
	r = expect_result();
	ck_assert_str_eq(json_object_get_string(h_jp(r, "protocolVersion",
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
	ck_assert_str_eq(h_compact(h_jp(resp.json, "error", "data", NULL)),
	    "{\"supported\":" ALL_VERSIONS ",\"requested\":\"2099-01-01\"}");
	ck_assert_str_eq(h_compact(h_jp(resp.json, "id", NULL)), "7");
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
	ck_assert_str_eq(h_compact(h_jp(resp.json, "error", "data", NULL)),
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
	ck_assert_str_eq(h_compact(h_jp(resp.json, "error", "data", NULL)),
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
	ck_assert_str_eq(h_compact(h_jp(r, "supportedVersions", NULL)),
	    "[\"2026-07-28\"]");
	rpc("tools/list", "{\"_meta\":{\"io.modelcontextprotocol/"
	    "protocolVersion\":\"v9\",\"io.modelcontextprotocol/"
	    "clientCapabilities\":{}}}", "HTTP_MCP_METHOD=tools/list",
	    "HTTP_MCP_PROTOCOL_VERSION=v9", NULL);
	expect_error(400, WYMCP__UNSUPPORTED_VERSION);
	ck_assert_str_eq(h_compact(h_jp(resp.json, "error", "data", NULL)),
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
		ck_assert_str_eq(json_object_get_string(h_jp(expect_result(),
		    "protocolVersion", NULL)), ok[i]);
	}
	/* Unknown ones: the latest legacy version (lifecycle.mdx MUST). */
	rpc("initialize", INIT_PARAMS("2099-12-31"), NULL);
	ck_assert_str_eq(json_object_get_string(h_jp(expect_result(),
	    "protocolVersion", NULL)), "2025-11-25");
	rpc("initialize", INIT_PARAMS("2026-07-28"), NULL);
	ck_assert_str_eq(json_object_get_string(h_jp(expect_result(),
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
	ck_assert_str_eq(h_compact(h_jp(r, "capabilities", NULL)),
	    "{\"tools\":{},\"logging\":{}}");
}
END_TEST

START_TEST(notifications_are_202)
{
	post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
	    "HTTP_MCP_PROTOCOL_VERSION=2025-11-25", NULL);
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
	ck_assert_str_eq(h_compact(expect_result()), "{}");
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
	ck_assert_int_eq(json_object_array_length(h_jp(r, "tools", NULL)), 9);
	rpc("tools/call", "{\"name\":\"steps\",\"arguments\":{}}", NULL);
	r = expect_result();
	ck_assert_str_eq(h_compact(r),
	    "{\"content\":[{\"type\":\"text\",\"text\":\"stepped\"}]}");
	rpc("resources/list", "{}", NULL);
	expect_legacy_shape(expect_result());
	rpc("resources/templates/list", "{}", NULL);
	expect_legacy_shape(expect_result());
	rpc("resources/read", "{\"uri\":\"test://one\"}", NULL);
	r = expect_result();
	ck_assert_str_eq(h_compact(r), "{\"contents\":[{\"uri\":\"test://one\","
	    "\"mimeType\":\"text/plain\",\"text\":\"one\"}]}");
	/* The modern result is untouched. */
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, "tools/list", NULL, NULL, NULL, &resp),
	    WYMCP_OK);
	ck_assert_str_eq(json_object_get_string(h_jp(h_result(&resp),
	    "resultType", NULL)), "complete");
	ck_assert_ptr_nonnull(h_jp(h_result(&resp), "ttlMs", NULL));
	ck_assert_ptr_nonnull(h_jp(h_result(&resp), "_meta", NULL));
}
END_TEST

START_TEST(pagination_still_works)
{
	struct json_object	*r;
	char			 params[1024];

	wymcp_server_set_page_size(srv, 5);
	rpc("tools/list", "{}", NULL);
	r = expect_result();
	ck_assert_int_eq(json_object_array_length(h_jp(r, "tools", NULL)), 5);
	ck_assert_ptr_nonnull(h_jp(r, "nextCursor", NULL));
	snprintf(params, sizeof(params), "{\"cursor\":\"%s\"}",
	    json_object_get_string(h_jp(r, "nextCursor", NULL)));
	rpc("tools/list", params, NULL);
	r = expect_result();
	ck_assert_int_eq(json_object_array_length(h_jp(r, "tools", NULL)), 4);
	ck_assert_ptr_null(h_jp(r, "nextCursor", NULL));
}
END_TEST

START_TEST(structured_content_must_be_an_object)
{
	struct json_object	*r, *t;
	size_t			 i;
	int			 warned = 0;

	/* tools/list: no outputSchema other than an object one. */
	rpc("tools/list", "{}", NULL);
	r = h_jp(expect_result(), "tools", NULL);
	for (i = 0; i < json_object_array_length(r); i++) {
		t = json_object_array_get_idx(r, i);
		if (strcmp(json_object_get_string(h_jp(t, "name", NULL)),
		    "array") == 0) {
			ck_assert_ptr_null(h_jp(t, "outputSchema", NULL));
			ck_assert_ptr_nonnull(h_jp(t, "inputSchema", NULL));
		}
		if (strcmp(json_object_get_string(h_jp(t, "name", NULL)),
		    "object") == 0)
			ck_assert_ptr_nonnull(h_jp(t, "outputSchema", NULL));
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
	ck_assert_ptr_null(h_jp(r, "structuredContent", NULL));
	ck_assert_str_eq(h_text(&resp), "[1,2]");
	for (i = 0; i < (size_t)nlogged; i++)
		if (strstr(logged[i], "structuredContent is not an object"))
			warned = 1;
	ck_assert(warned);
	rpc("tools/call", "{\"name\":\"object\"}", NULL);
	ck_assert_str_eq(h_compact(h_jp(expect_result(), "structuredContent",
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
	/*
	 * An internal error (a result that breaks its outputSchema) too:
	 * -32603 with HTTP 200, where the modern wire says 500.
	 */
	rpc("tools/call", "{\"name\":\"mismatch\"}", NULL);
	expect_error(200, WYMCP__INTERNAL_ERROR);
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, "tools/call", "mismatch",
	    "{\"name\":\"mismatch\"}", NULL, &resp), WYMCP_OK);
	expect_error(500, WYMCP__INTERNAL_ERROR);
	/* resources/read of nothing: -32002 with data.uri (2025-11-25). */
	rpc("resources/read", "{\"uri\":\"test://none\"}", NULL);
	expect_error(200, WYMCP__RESOURCE_NOT_FOUND);
	ck_assert_str_eq(h_compact(h_jp(resp.json, "error", "data", NULL)),
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
	ck_assert_str_eq(json_object_get_string(h_jp(h_result(&resp),
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
	ck_assert(json_object_get_boolean(h_jp(r, "isError", NULL)));
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

/* The Mcp-Session-Id of the last response, copied into buf. */
static const char *
session_of(char *buf, size_t sz)
{
	const char	*p;
	size_t		 n;

	p = strstr(resp.headers, "Mcp-Session-Id: ");
	ck_assert_msg(p != NULL, "no Mcp-Session-Id: %s", resp.headers);
	p += 16;
	n = strcspn(p, "\r\n");
	ck_assert_uint_lt(n, sz);
	memcpy(buf, p, n);
	buf[n] = '\0';
	return buf;
}

/* Initialize as `who` (NULL: nobody) and return the session id. */
static const char *
initialize_as(const char *who, const char *params, char *buf, size_t sz)
{
	char	 env[128];

	snprintf(env, sizeof(env), "WYMCP_PRINCIPAL=%s", who != NULL ?
	    who : "");
	rpc("initialize", params, env, NULL);
	expect_result();
	return session_of(buf, sz);
}

START_TEST(session_id_is_minted_and_opened)
{
	char		 sid[2048], hdr[2100];
	const char	*p;

	initialize_as(NULL, INIT_PARAMS("2025-06-18"), sid, sizeof(sid));
	/* Visible ASCII only (2025-11-25 transports). */
	for (p = sid; *p != '\0'; p++)
		ck_assert(*p >= 0x21 && *p <= 0x7e);
	/* Different every time: a nonce. */
	snprintf(hdr, sizeof(hdr), "HTTP_MCP_SESSION_ID=%s", sid);
	rpc("initialize", INIT_PARAMS("2025-06-18"), NULL);
	ck_assert_ptr_null(strstr(resp.headers, sid));
	/* It carries the version and the three asking capabilities. */
	rpc("tools/call", "{\"name\":\"caps\"}", hdr, NULL);
	expect_legacy_shape(expect_result());
	ck_assert_str_eq(h_text(&resp), "2025-06-18 {\"elicitation\":{},"
	    "\"sampling\":{},\"roots\":{}}");
	/* The header's version wins over the session's. */
	rpc("tools/call", "{\"name\":\"caps\"}", hdr,
	    "HTTP_MCP_PROTOCOL_VERSION=2025-11-25", NULL);
	ck_assert_str_eq(h_text(&resp), "2025-11-25 {\"elicitation\":{},"
	    "\"sampling\":{},\"roots\":{}}");
	/* Only those: other capabilities are not kept. */
	initialize_as(NULL, "{\"protocolVersion\":\"2025-11-25\","
	    "\"capabilities\":{\"elicitation\":{\"form\":{},\"url\":{}},"
	    "\"experimental\":{\"x\":{}}},\"clientInfo\":{\"name\":"
	    "\"c\",\"version\":\"1\"}}", sid, sizeof(sid));
	snprintf(hdr, sizeof(hdr), "HTTP_MCP_SESSION_ID=%s", sid);
	rpc("tools/call", "{\"name\":\"caps\"}", hdr, NULL);
	ck_assert_str_eq(h_text(&resp), "2025-11-25 {\"elicitation\":"
	    "{\"form\":{},\"url\":{}}}");
	/* And MCP Apps' extension, without the others (wymcp_apps(3)). */
	initialize_as(NULL, "{\"protocolVersion\":\"2025-11-25\","
	    "\"capabilities\":{\"extensions\":{\"io.modelcontextprotocol/"
	    "ui\":{\"mimeTypes\":[\"text/html;profile=mcp-app\"]},"
	    "\"com.example/x\":{}}},\"clientInfo\":{\"name\":"
	    "\"c\",\"version\":\"1\"}}", sid, sizeof(sid));
	snprintf(hdr, sizeof(hdr), "HTTP_MCP_SESSION_ID=%s", sid);
	rpc("tools/call", "{\"name\":\"caps\"}", hdr, NULL);
	ck_assert_str_eq(h_text(&resp), "2025-11-25 {\"extensions\":"
	    "{\"io.modelcontextprotocol\\/ui\":{\"mimeTypes\":"
	    "[\"text\\/html;profile=mcp-app\"]}}}");
	/* Without one, as before: nothing carried, 2025-03-26 assumed. */
	rpc("tools/call", "{\"name\":\"caps\"}", NULL);
	ck_assert_str_eq(h_text(&resp), "2025-03-26 none");
	/* Still nothing is asked of a legacy client (no held stream). */
	rpc("tools/call", "{\"name\":\"ask\"}", hdr, NULL);
	ck_assert_int_eq(seen[0], WYMCP_ERR_NOTSUP);
}
END_TEST

/* 404, -32001, for a session id that does not open. */
static void
expect_404(void)
{
	expect_error(404, WYMCP__SESSION_NOT_FOUND);
}

START_TEST(session_id_that_does_not_open_is_404)
{
	struct wymcp_server	*other;
	char			 sid[2048], hdr[2100], bad[2100];
	size_t			 n;

	initialize_as("alice", INIT_PARAMS("2025-11-25"), sid, sizeof(sid));
	snprintf(hdr, sizeof(hdr), "HTTP_MCP_SESSION_ID=%s", sid);
	rpc("tools/list", "{}", hdr, "WYMCP_PRINCIPAL=alice", NULL);
	expect_result();
	/* Never minted. */
	rpc("tools/list", "{}", "HTTP_MCP_SESSION_ID=never-minted", NULL);
	expect_404();
	/* Another principal, or none. */
	rpc("tools/list", "{}", hdr, "WYMCP_PRINCIPAL=bob", NULL);
	expect_404();
	rpc("tools/list", "{}", hdr, NULL);
	expect_404();
	/* Tampered: one character changed, or cut short. */
	snprintf(bad, sizeof(bad), "%s", hdr);
	n = strlen(bad) - 5;
	bad[n] = bad[n] == 'A' ? 'B' : 'A';
	rpc("tools/list", "{}", bad, "WYMCP_PRINCIPAL=alice", NULL);
	expect_404();
	bad[strlen(bad) - 10] = '\0';
	rpc("tools/list", "{}", bad, "WYMCP_PRINCIPAL=alice", NULL);
	expect_404();
	/* A notification with it is 404 too; a good one is 202. */
	post("{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/initialized\"}", bad, "WYMCP_PRINCIPAL=alice",
	    NULL);
	expect_404();
	post("{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/initialized\"}", hdr, "WYMCP_PRINCIPAL=alice",
	    NULL);
	ck_assert_int_eq(resp.status, 202);
	/* Initialize ignores an old one and mints anew. */
	rpc("initialize", INIT_PARAMS("2025-11-25"), bad, NULL);
	expect_result();
	ck_assert_ptr_nonnull(strstr(resp.headers, "Mcp-Session-Id: "));
	/* Another key: another server's random key. */
	other = srv;
	srv = wymcp_server_new();
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod), WYMCP_OK);
	rpc("tools/list", "{}", hdr, "WYMCP_PRINCIPAL=alice", NULL);
	expect_404();
	wymcp_server_free(srv);
	srv = other;
	/* A modern request ignores the header. */
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, "ping", NULL, NULL, (const char *[]){
	    "HTTP_MCP_SESSION_ID=never-minted", NULL }, &resp), WYMCP_OK);
	expect_error(404, WYMCP__METHOD_NOT_FOUND);
}
END_TEST

START_TEST(no_key_no_session_id)
{
	wymcp_server_forget_random_key(srv);
	rpc("initialize", INIT_PARAMS("2025-11-25"), NULL);
	expect_result();
	ck_assert_ptr_null(strstr(resp.headers, "Session"));
	/* And a request without one is served as before. */
	rpc("tools/call", "{\"name\":\"steps\"}", NULL);
	expect_result();
}
END_TEST

START_TEST(delete_is_405_nothing_to_terminate)
{
	char	 sid[2048], hdr[2100];

	initialize_as(NULL, INIT_PARAMS("2025-11-25"), sid, sizeof(sid));
	snprintf(hdr, sizeof(hdr), "HTTP_MCP_SESSION_ID=%s", sid);
	send_method("DELETE", hdr, NULL);
	ck_assert_int_eq(resp.status, 405);
	ck_assert_ptr_nonnull(strstr(resp.headers, "Allow: POST"));
	ck_assert_ptr_nonnull(strstr(resp.body, "nothing to terminate"));
	/* The id still opens: a token is not state. */
	rpc("tools/list", "{}", hdr, NULL);
	expect_result();
}
END_TEST

/* ------------------------------------------- asking on the held stream */

/* What the fake relay does (h_ask): counts, and the answers it gives. */
static int	 holds, releases, waits, forwards;
static int	 hold_refused;		/* hold() says no place */
static int	 wait_mode;		/* 0 answer, 1 never, 2 hang up, */
					/* 3 error, 4 one empty wait first, */
					/* 5 sleep 800 ms then answer */
static char	 last_id[2048];		/* the id of the last question */
static char	 fwd_addr[256];		/* where forward() was sent */
static int	 fwd_result;		/* what forward() answers */

static const char *
fake_hold(void)
{
	holds++;
	return hold_refused ? NULL : "holder-1";
}

static void
fake_release(void)
{
	releases++;
}

/* The id and method of the last request on the stream written so far. */
static int
last_request(const char *out, char *id, size_t idsz, char *method,
    size_t msz)
{
	const char		*p, *last = NULL;
	struct json_object	*o, *v;
	char			*line;
	int			 found = 0;

	for (p = out; (p = strstr(p, "data: ")) != NULL; p += 6)
		if (strstr(p, "\"method\":\"elicitation/create\"") != NULL ||
		    strstr(p, "\"method\":\"sampling/createMessage\"") !=
		    NULL || strstr(p, "\"method\":\"roots/list\"") != NULL)
			last = p;
	if (last == NULL)
		return 0;
	line = strndup(last + 6, strcspn(last + 6, "\n"));
	if ((o = json_tokener_parse(line)) != NULL &&
	    json_object_object_get_ex(o, "id", &v) &&
	    json_object_is_type(v, json_type_string)) {
		snprintf(id, idsz, "%s", json_object_get_string(v));
		json_object_object_get_ex(o, "method", &v);
		snprintf(method, msz, "%s", json_object_get_string(v));
		found = 1;
	}
	json_object_put(o);
	free(line);
	return found;
}

/*
 * Hand `msg' to take() as a worker relays it: framed for `holder'
 * with the server's key (seal.c), as wymcp__held_forward() does.
 */
static int
deliver(int (*take)(void *, const char *, size_t), void *takearg,
    const char *holder, const char *msg, size_t len)
{
	struct wymcp_ctx	 c;
	const char		*env[] = { NULL };
	const char		*frame;
	size_t			 flen;
	int			 rc;

	wymcp__ctx_init(&c, srv, (char *const *)env);
	frame = wymcp__relay_frame(&c, holder, msg, len, &flen);
	ck_assert_ptr_nonnull(frame);
	rc = take(takearg, frame, flen);
	wymcp__ctx_free(&c);
	return rc;
}

static int
fake_wait(const char *out, int ms, int (*take)(void *, const char *, size_t),
    void *takearg)
{
	char	 id[2048], method[64], msg[4096];
	int	 n;

	waits++;
	if (wait_mode == 1) {
		usleep((useconds_t)ms * 1000);
		return 0;
	}
	if (wait_mode == 2)
		return 2;
	if (wait_mode == 4 && waits == 1)
		return 0;
	if (wait_mode == 5)
		usleep(800 * 1000);
	ck_assert(last_request(out, id, sizeof(id), method, sizeof(method)));
	snprintf(last_id, sizeof(last_id), "%s", id);
	/* Not this holder's: refused, and the wait goes on. */
	ck_assert_int_eq(deliver(take, takearg, "holder-1",
	    "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":{}}", 38), 0);
	if (wait_mode == 3)
		n = snprintf(msg, sizeof(msg), "{\"jsonrpc\":\"2.0\",\"id\":"
		    "\"%s\",\"error\":{\"code\":-1,\"message\":\"User "
		    "rejected\"}}", id);
	else if (strcmp(method, "elicitation/create") == 0)
		n = snprintf(msg, sizeof(msg), "{\"jsonrpc\":\"2.0\",\"id\":"
		    "\"%s\",\"result\":{\"action\":\"accept\",\"content\":"
		    "{\"n\":\"Ada\"}}}", id);
	else if (strcmp(method, "sampling/createMessage") == 0)
		n = snprintf(msg, sizeof(msg), "{\"jsonrpc\":\"2.0\",\"id\":"
		    "\"%s\",\"result\":{\"role\":\"assistant\",\"content\":"
		    "{\"type\":\"text\",\"text\":\"hello\"},\"model\":\"m\"}}",
		    id);
	else
		n = snprintf(msg, sizeof(msg), "{\"jsonrpc\":\"2.0\",\"id\":"
		    "\"%s\",\"result\":{\"roots\":[]}}", id);
	/* The right answer, but not framed by a worker: refused. */
	ck_assert_int_eq(take(takearg, msg, (size_t)n), 0);
	return deliver(take, takearg, "holder-1", msg, (size_t)n);
}

static int
fake_forward(const char *addr, const char *msg, size_t len)
{
	/* Framed for its holder (seal.c), never the bare answer. */
	ck_assert(len > 14 && strncmp(msg, "wymcp-relay/1 ", 14) == 0);
	forwards++;
	snprintf(fwd_addr, sizeof(fwd_addr), "%s", addr);
	return fwd_result;
}

static const struct h_asker asker = {
	fake_hold, fake_release, fake_wait, fake_forward, 1
};

static char	 sid_hdr[2100];

/* Initialize with every asking capability; asking is on. */
static void
asking_setup(void)
{
	char	 sid[2048];

	setup();
	holds = releases = waits = forwards = hold_refused = 0;
	wait_mode = fwd_result = 0;
	last_id[0] = fwd_addr[0] = '\0';
	h_ask = &asker;
	initialize_as("alice", INIT_PARAMS("2025-11-25"), sid, sizeof(sid));
	snprintf(sid_hdr, sizeof(sid_hdr), "HTTP_MCP_SESSION_ID=%s", sid);
}

static void
asking_teardown(void)
{
	h_ask = NULL;
	teardown();
}

static const char *final;	/* where the last event begins */

/* tools/call ask as alice with the session id; the final result. */
static struct json_object *
call_ask(void)
{
	const char	*p;
	char		*line;

	rpc("tools/call", "{\"name\":\"ask\"}", sid_hdr,
	    "WYMCP_PRINCIPAL=alice", "HTTP_MCP_PROTOCOL_VERSION=2025-11-25",
	    NULL);
	ck_assert_int_eq(resp.status, 200);
	json_object_put(resp.json);
	resp.json = NULL;
	final = NULL;
	/* The last event is the response. */
	if ((p = strstr(resp.body, "\"result\":{\"content\"")) == NULL)
		return NULL;
	while (p > resp.body && strncmp(p, "data: ", 6) != 0)
		p--;
	final = p;
	p += 6;
	line = strndup(p, strcspn(p, "\n"));
	resp.json = json_tokener_parse(line);
	free(line);
	return h_result(&resp);
}

/* How many times `what' occurs in the response body. */
static int
count(const char *what)
{
	const char	*p;
	int		 n = 0;

	for (p = resp.body; (p = strstr(p, what)) != NULL; p++)
		n++;
	return n;
}

START_TEST(held_stream_asks_and_reruns)
{
	struct json_object	*r;
	size_t			 i;

	nkeys = 0;
	r = call_ask();
	ck_assert_ptr_nonnull(strstr(resp.headers, "text/event-stream"));
	ck_assert_ptr_nonnull(r);
	/* The three questions went out, one round each, then the result. */
	ck_assert_int_eq(count("\"method\":\"elicitation/create\""), 1);
	ck_assert_int_eq(count("\"method\":\"sampling/createMessage\""), 1);
	ck_assert_int_eq(count("\"method\":\"roots/list\""), 1);
	ck_assert_str_eq(h_text(&resp), "success|success|success");
	ck_assert_ptr_null(h_jp(r, "isError", NULL));
	expect_legacy_shape(r);
	/* Never an input_required result, never a requestState. */
	ck_assert_ptr_null(strstr(resp.body, "input_required"));
	ck_assert_ptr_null(strstr(resp.body, "requestState"));
	/* One place held for the whole call, given back once. */
	ck_assert_int_eq(holds, 1);
	ck_assert_int_eq(releases, 1);
	/*
	 * ... before the result went out: a client's next call, sent once
	 * it reads the result, finds the principal's place free.
	 */
	ck_assert_ptr_nonnull(final);
	ck_assert_uint_le(h_released_at, (size_t)(final - resp.headers));
	ck_assert_int_eq(waits, 3);
	/* The id is sealed, not a counter. */
	ck_assert_uint_gt(strlen(last_id), 60);
	/* Four runs of one call: one idempotency key; a new call, another. */
	ck_assert_uint_eq(nkeys, 4);
	ck_assert_uint_eq(strlen(keys[0]), 22);
	for (i = 1; i < nkeys; i++)
		ck_assert_str_eq(keys[i], keys[0]);
	(void)call_ask();
	ck_assert_uint_eq(nkeys, 8);
	ck_assert_str_ne(keys[4], keys[0]);
	ck_assert_str_eq(keys[7], keys[4]);
}
END_TEST

/*
 * A 2025-11-25 call carries no requestState either: inputResponses it
 * sends are no answers (a first round has no answers), so every
 * question still goes out on the held stream.  0.4 took elicit-1's.
 */
START_TEST(held_stream_input_responses_are_not_answers)
{
	nkeys = 0;
	rpc("tools/call", "{\"name\":\"ask\",\"inputResponses\":{"
	    "\"elicit-1\":{\"action\":\"accept\",\"content\":{\"n\":\"x\"}},"
	    "\"roots-3\":{\"roots\":[]}}}", sid_hdr, "WYMCP_PRINCIPAL=alice",
	    "HTTP_MCP_PROTOCOL_VERSION=2025-11-25", NULL);
	ck_assert_int_eq(resp.status, 200);
	ck_assert_int_eq(count("\"method\":\"elicitation/create\""), 1);
	ck_assert_int_eq(count("\"method\":\"roots/list\""), 1);
	ck_assert_int_eq(waits, 3);
	ck_assert_ptr_nonnull(strstr(resp.body, "success|success|success"));
}
END_TEST

START_TEST(held_stream_without_session_asks_nothing)
{
	rpc("tools/call", "{\"name\":\"ask\"}", "WYMCP_PRINCIPAL=alice",
	    NULL);
	expect_result();
	ck_assert_int_eq(seen[0], WYMCP_ERR_NOTSUP);
	ck_assert_int_eq(holds, 0);
	/* Nor without SSE in Accept. */
	rpc("tools/call", "{\"name\":\"ask\"}", sid_hdr,
	    "WYMCP_PRINCIPAL=alice", "HTTP_ACCEPT=application/json", NULL);
	ck_assert_int_eq(seen[0], WYMCP_ERR_NOTSUP);
	ck_assert_int_eq(holds, 0);
}
END_TEST

START_TEST(max_asking_reached_degrades_to_notsup)
{
	hold_refused = 1;
	rpc("tools/call", "{\"name\":\"ask\"}", sid_hdr,
	    "WYMCP_PRINCIPAL=alice", NULL);
	expect_result();
	ck_assert_int_eq(seen[0], WYMCP_ERR_NOTSUP);
	ck_assert_int_eq(seen[1], WYMCP_ERR_NOTSUP);
	ck_assert_int_eq(seen[2], WYMCP_ERR_NOTSUP);
	ck_assert_int_eq(holds, 1);	/* asked once, refused once */
	ck_assert_int_eq(releases, 0);
	ck_assert_ptr_null(strstr(resp.body, "elicitation/create"));
}
END_TEST

START_TEST(ask_timeout_is_a_tool_error)
{
	struct json_object	*r;

	wait_mode = 1;
	r = call_ask();
	ck_assert_ptr_nonnull(r);
	ck_assert(json_object_get_boolean(h_jp(r, "isError", NULL)));
	ck_assert_ptr_nonnull(strstr(h_text(&resp), "within 1 s"));
	ck_assert_int_eq(releases, 1);
}
END_TEST

START_TEST(keep_alive_comments_while_waiting)
{
	wait_mode = 4;
	ck_assert_ptr_nonnull(call_ask());
	ck_assert_int_eq(count("\n: keep-alive\n\n"), 1);
	ck_assert_str_eq(h_text(&resp), "success|success|success");
}
END_TEST

START_TEST(hang_up_while_asked_frees_the_worker)
{
	wait_mode = 2;
	want_rc = WYMCP_ERR_IO;
	rpc("tools/call", "{\"name\":\"ask\"}", sid_hdr,
	    "WYMCP_PRINCIPAL=alice", NULL);
	want_rc = WYMCP_OK;
	/* The question went out; no response after it. */
	ck_assert_int_eq(count("elicitation/create"), 1);
	ck_assert_ptr_null(strstr(resp.body, "\"result\""));
	ck_assert_int_eq(releases, 1);
}
END_TEST

START_TEST(client_error_answer_is_a_tool_error)
{
	struct json_object	*r;

	wait_mode = 3;
	r = call_ask();
	ck_assert_ptr_nonnull(r);
	ck_assert(json_object_get_boolean(h_jp(r, "isError", NULL)));
	ck_assert_ptr_nonnull(strstr(h_text(&resp), "User rejected"));
}
END_TEST

START_TEST(waiting_is_not_counted_against_the_time_limit)
{
	wymcp_server_set_request_timeout(srv, 500);
	wait_mode = 5;
	ck_assert_ptr_nonnull(call_ask());
	ck_assert_str_eq(h_text(&resp), "success|success|success");
	ck_assert_ptr_null(strstr(resp.body, "timed out"));
}
END_TEST

START_TEST(url_mode_on_the_held_stream)
{
	char	 sid[2048];

	/* Form only: not supported, nothing asked. */
	rpc("tools/call", "{\"name\":\"link\"}", sid_hdr,
	    "WYMCP_PRINCIPAL=alice", NULL);
	ck_assert_ptr_nonnull(strstr(resp.body, "url:the client did not"));
	ck_assert_ptr_null(strstr(resp.body, "elicitation/create"));
	/* With elicitation.url: mode url, an elicitationId, the answer. */
	initialize_as("alice", "{\"protocolVersion\":\"2025-11-25\","
	    "\"capabilities\":{\"elicitation\":{\"form\":{},\"url\":{}}},"
	    "\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}", sid,
	    sizeof(sid));
	snprintf(sid_hdr, sizeof(sid_hdr), "HTTP_MCP_SESSION_ID=%s", sid);
	rpc("tools/call", "{\"name\":\"link\"}", sid_hdr,
	    "WYMCP_PRINCIPAL=alice", NULL);
	ck_assert_int_eq(count("\"mode\":\"url\""), 1);
	ck_assert_int_eq(count("\"url\":\"https://example.com/auth?x=1\""),
	    1);
	ck_assert_int_eq(count("\"elicitationId\":\""), 1);
	ck_assert_ptr_nonnull(strstr(resp.body, "url:accept"));
}
END_TEST

START_TEST(url_mode_modern_input_request)
{
	h_ask = NULL;
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, "tools/call", "link", "{\"name\":"
	    "\"link\",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
	    "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":"
	    "{\"elicitation\":{\"url\":{}}}}}", NULL, &resp), WYMCP_OK);
	ck_assert_str_eq(json_object_get_string(h_jp(h_result(&resp),
	    "resultType", NULL)), "input_required");
	ck_assert_str_eq(json_object_get_string(h_jp(h_result(&resp),
	    "inputRequests", "elicit-1", "params", "mode", NULL)), "url");
	/* 2026-07-28 removed elicitationId from ElicitRequestURLParams. */
	ck_assert_ptr_null(h_jp(h_result(&resp), "inputRequests",
	    "elicit-1", "params", "elicitationId", NULL));
	/* Form only: not supported. */
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, "tools/call", "link", "{\"name\":"
	    "\"link\",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
	    "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":"
	    "{\"elicitation\":{}}}}", NULL, &resp), WYMCP_OK);
	ck_assert_ptr_nonnull(strstr(h_text(&resp), "url:the client did not"));
}
END_TEST

/* POST a JSON-RPC response with id `id' as `who'. */
static void
post_answer(const char *id, const char *who, const char *sess)
{
	char	 body[4096], w[64];

	snprintf(body, sizeof(body), "{\"jsonrpc\":\"2.0\",\"id\":\"%s\","
	    "\"result\":{\"action\":\"decline\"}}", id);
	snprintf(w, sizeof(w), "WYMCP_PRINCIPAL=%s", who);
	post(body, w, sess, "HTTP_MCP_PROTOCOL_VERSION=2025-11-25", NULL);
}

START_TEST(answers_are_relayed_to_the_holder)
{
	char	 id[2048], bad[2048];

	ck_assert_ptr_nonnull(call_ask());
	snprintf(id, sizeof(id), "%s", last_id);
	/* Relayed, to the holder the id names: 202, no body. */
	post_answer(id, "alice", sid_hdr);
	ck_assert_int_eq(resp.status, 202);
	ck_assert_uint_eq(resp.bodylen, 0);
	ck_assert_int_eq(forwards, 1);
	ck_assert_str_eq(fwd_addr, "holder-1");
	/* The holder does not take it (answered already): 400. */
	fwd_result = -1;
	post_answer(id, "alice", sid_hdr);
	expect_error(400, WYMCP__INVALID_REQUEST);
	ck_assert_ptr_nonnull(strstr(resp.body, "no longer waiting"));
	fwd_result = 0;
	forwards = 0;
	/* Another principal (with its own session): not relayed. */
	post_answer(id, "bob", "HTTP_X=1");
	expect_error(400, WYMCP__INVALID_REQUEST);
	/* Forged: one character changed. */
	snprintf(bad, sizeof(bad), "%s", id);
	bad[20] = bad[20] == 'A' ? 'B' : 'A';
	post_answer(bad, "alice", sid_hdr);
	expect_error(400, WYMCP__INVALID_REQUEST);
	/* A session id that does not open: 404. */
	post_answer(id, "alice", "HTTP_MCP_SESSION_ID=forged");
	expect_error(404, WYMCP__SESSION_NOT_FOUND);
	ck_assert_int_eq(forwards, 0);
	/* A numeric id is no id of ours. */
	post("{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}",
	    "WYMCP_PRINCIPAL=alice", sid_hdr, NULL);
	expect_error(400, WYMCP__INVALID_REQUEST);
}
END_TEST

START_TEST(answer_after_the_timeout_does_not_open)
{
	char	 id[2048];

	/* An id sealed for a 1 s question opens for 5 s more, no longer. */
	ck_assert_ptr_nonnull(call_ask());
	snprintf(id, sizeof(id), "%s", last_id);
	sleep(8);
	post_answer(id, "alice", sid_hdr);
	expect_error(400, WYMCP__INVALID_REQUEST);
	ck_assert_int_eq(forwards, 0);
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
		if (h_jp(o, "method", NULL) != NULL) {
			ck_assert_str_eq(json_object_get_string(h_jp(o,
			    "method", NULL)), "notifications/message");
			if (strcmp(json_object_get_string(h_jp(o, "params",
			    "level", NULL)), "debug") == 0)
				levels = -1;
			else if (levels >= 0)
				levels++;
		} else
			ck_assert_ptr_null(h_jp(o, "result", "resultType",
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
	tcase_add_test(tc, session_id_is_minted_and_opened);
	tcase_add_test(tc, session_id_that_does_not_open_is_404);
	tcase_add_test(tc, no_key_no_session_id);
	tcase_add_test(tc, delete_is_405_nothing_to_terminate);
	tcase_add_test(tc, progress_and_logs_stream_from_info);
	suite_add_tcase(s, tc);
	tc = tcase_create("asking");
	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, asking_setup, asking_teardown);
	tcase_add_test(tc, held_stream_asks_and_reruns);
	tcase_add_test(tc, held_stream_input_responses_are_not_answers);
	tcase_add_test(tc, held_stream_without_session_asks_nothing);
	tcase_add_test(tc, max_asking_reached_degrades_to_notsup);
	tcase_add_test(tc, ask_timeout_is_a_tool_error);
	tcase_add_test(tc, keep_alive_comments_while_waiting);
	tcase_add_test(tc, hang_up_while_asked_frees_the_worker);
	tcase_add_test(tc, client_error_answer_is_a_tool_error);
	tcase_add_test(tc, waiting_is_not_counted_against_the_time_limit);
	tcase_add_test(tc, answers_are_relayed_to_the_holder);
	tcase_add_test(tc, answer_after_the_timeout_does_not_open);
	tcase_add_test(tc, url_mode_on_the_held_stream);
	tcase_add_test(tc, url_mode_modern_input_request);
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
