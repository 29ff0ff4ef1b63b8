/*
 * check_wire.c - strict wire rules, identity and the answers a client
 * gives, served in-process
 *
 * A repeated mirrored header, in both forms a web server passes it (two
 * params of the same name, nginx up to 1.22; one joined with ", ", nginx
 * 1.23 and later and Apache), is 400 -32020; a repeated Origin is 403;
 * the mirrored headers a 2025-11-25 request carries are checked too;
 * U+0000 in any string is 400 -32602; an object naming a member twice is
 * 400 -32700; quoted values are cut at 64 bytes.  Then the identity the
 * params give (an empty WYMCP_PRINCIPAL, empty assigns), the cache scope
 * of tools/list, and the shape of sampling, roots and elicitation
 * answers.  Every test was written against the behaviour before the fix
 * and fails there.
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

#define CAPS_META(caps)							\
	"{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","	\
	"\"io.modelcontextprotocol/clientCapabilities\":" caps "}"
#define META_ALL	CAPS_META("{\"elicitation\":{},\"sampling\":{}," \
	"\"roots\":{}}")

#define SAMPLE	"{\"role\":\"assistant\",\"content\":{\"type\":\"text\","  \
	"\"text\":\"Paris\"},\"model\":\"m\",\"stopReason\":\"endTurn\"}"
#define ROOTS	"{\"roots\":[{\"uri\":\"file:///r\",\"name\":\"R\"}]}"

static struct wymcp_server	*srv;
static struct h_resp		 resp;

/* --- the module: tools that show what they were given ---------------- */

/* The text argument, as the tool reads it (a C string). */
static enum wymcp_err
text_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*v;
	const char		*s = "";

	if (json_object_object_get_ex(args, "text", &v))
		s = json_object_get_string(v);
	return wymcp_result_add(res, wymcp_text(ctx, s));
}

/* The arguments as JSON text. */
static enum wymcp_err
args_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_add(res, wymcp_text(ctx,
	    json_object_to_json_string_ext(args, JSON_C_TO_STRING_PLAIN)));
}

/* The principal and the assigns, as whoami has them. */
static enum wymcp_err
who_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	const char	*p = wymcp_ctx_principal(ctx);

	(void)args;
	return wymcp_result_add(res, wymcp_textf(ctx, "%s %s",
	    p != NULL ? p : "-", json_object_to_json_string_ext(
	    wymcp_ctx_assigns(ctx), JSON_C_TO_STRING_PLAIN)));
}

/* Samples; the answer's model. */
static enum wymcp_err
sample_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*p, *a, *m;
	enum wymcp_err		 rc;

	(void)args;
	p = wymcp_own(ctx, json_tokener_parse("{\"messages\":[{\"role\":"
	    "\"user\",\"content\":{\"type\":\"text\",\"text\":\"Hi\"}}],"
	    "\"maxTokens\":10}"));
	if ((rc = wymcp_sample(ctx, "s", p, &a)) != WYMCP_OK)
		return rc;
	json_object_object_get_ex(a, "model", &m);
	return wymcp_result_add(res, wymcp_textf(ctx, "model %s",
	    json_object_get_string(m)));
}

/* Lists roots; how many. */
static enum wymcp_err
roots_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a, *r;
	enum wymcp_err		 rc;

	(void)args;
	if ((rc = wymcp_roots(ctx, "r", &a)) != WYMCP_OK)
		return rc;
	json_object_object_get_ex(a, "roots", &r);
	return wymcp_result_add(res, wymcp_textf(ctx, "%zu roots",
	    json_object_array_length(r)));
}

/* Asks a name; the content it got. */
static enum wymcp_err
form_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;
	enum wymcp_err		 rc;

	(void)args;
	if ((rc = wymcp_elicit(ctx, "Name?", "{\"type\":\"object\","
	    "\"properties\":{\"name\":{\"type\":\"string\"}},"
	    "\"required\":[\"name\"]}", &a)) != WYMCP_OK)
		return rc;
	return wymcp_result_add(res, wymcp_text(ctx,
	    json_object_to_json_string_ext(wymcp_answer_content(a),
	    JSON_C_TO_STRING_PLAIN)));
}

static enum wymcp_err
read_run(struct wymcp_ctx *ctx, const char *uri, struct json_object *vars,
    struct wymcp_resource_result *res)
{
	(void)vars;
	return wymcp_contents_text(res, NULL, "text/plain", uri);
}

static enum wymcp_err
prompt_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_prompt_result *res)
{
	(void)args;
	return wymcp_prompt_message(res, "user", wymcp_text(ctx, "hello"));
}

static const struct wymcp_tool tools[] = {
	{ .name = "text", .description = "Shows its text argument.",
	    .input_schema = "{\"type\":\"object\"}", .run = text_run },
	{ .name = "args", .description = "Shows its arguments.",
	    .input_schema = "{\"type\":\"object\"}", .run = args_run },
	{ .name = "who", .description = "Shows principal and assigns.",
	    .input_schema = "{\"type\":\"object\"}", .run = who_run },
	{ .name = "sample", .description = "Samples.",
	    .input_schema = "{\"type\":\"object\"}", .run = sample_run },
	{ .name = "roots", .description = "Lists roots.",
	    .input_schema = "{\"type\":\"object\"}", .run = roots_run },
	{ .name = "form", .description = "Asks a name.",
	    .input_schema = "{\"type\":\"object\"}", .run = form_run },
	{ .name = "region", .description = "Mirrors an argument.",
	    .input_schema = "{\"type\":\"object\",\"properties\":{\"region\":"
	    "{\"type\":\"string\",\"x-mcp-header\":\"Region\"}}}",
	    .run = args_run },
	{ .name = NULL }
};
static const struct wymcp_resource resources[] = {
	{ .uri = "wire://r", .name = "r", .read = read_run },
	{ .uri = NULL }
};
static const struct wymcp_prompt prompts[] = {
	{ .name = "p", .description = "A prompt.", .get = prompt_run },
	{ .name = NULL }
};
static const struct wymcp_module mod = {
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.tool_size = sizeof(struct wymcp_tool),
	.resource_size = sizeof(struct wymcp_resource),
	.prompt_size = sizeof(struct wymcp_prompt),
	.prompt_arg_size = sizeof(struct wymcp_prompt_arg),
	.name = "wire", .tools = tools, .resources = resources,
	.prompts = prompts
};

static void
setup(void)
{
	memset(&resp, 0, sizeof(resp));
	srv = wymcp_server_new();
	ck_assert_ptr_nonnull(srv);
	ck_assert_msg(wymcp_server_add_module(srv, &mod) == WYMCP_OK, "%s",
	    wymcp_server_errmsg(srv));
}

static void
teardown(void)
{
	h_free(&resp);
	wymcp_server_free(srv);
	srv = NULL;
}

/* --- requests ---------------------------------------------------------- */

/* A well-formed 2026-07-28 request with extra params appended. */
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
 * A POST of `body` with exactly the params given (NULL-terminated)
 * after the HTTP basics.
 */
static void
post(const char *body, ...)
{
	const char	*env[64], *p;
	char		 cl[64];
	size_t		 n = 0;
	va_list		 ap;

	snprintf(cl, sizeof(cl), "CONTENT_LENGTH=%zu", strlen(body));
	env[n++] = "REQUEST_METHOD=POST";
	env[n++] = "CONTENT_TYPE=application/json";
	env[n++] = cl;
	va_start(ap, body);
	while ((p = va_arg(ap, const char *)) != NULL && n < 63)
		env[n++] = p;
	va_end(ap);
	env[n] = NULL;
	h_free(&resp);
	ck_assert_int_eq(h_serve(srv, env, body, &resp), WYMCP_OK);
	ck_assert_ptr_nonnull(resp.headers);
}

static const char *
message(void)
{
	const char	*m;

	m = json_object_get_string(h_jp(resp.json, "error", "message", NULL));
	return m != NULL ? m : "";
}

/* This HTTP status and JSON-RPC error code, `part` in the message. */
static void
expect_error(int status, int code, const char *part)
{
	ck_assert_msg(resp.status == status, "status %d, want %d: %s",
	    resp.status, status, resp.body);
	ck_assert_msg(h_code(&resp) == code, "code %d, want %d: %s",
	    h_code(&resp), code, resp.body);
	if (part != NULL)
		ck_assert_msg(strstr(message(), part) != NULL,
		    "'%s' lacks '%s'", message(), part);
}

/* 200 with a result whose first text block is `text`. */
static void
expect_text(const char *text)
{
	ck_assert_msg(resp.status == 200 && h_result(&resp) != NULL,
	    "status %d: %s", resp.status, resp.body);
	ck_assert_ptr_nonnull(h_text(&resp));
	ck_assert_str_eq(h_text(&resp), text);
}

/* The error carries the request's id (1). */
static void
expect_id(void)
{
	ck_assert_msg(json_object_get_int(h_jp(resp.json, "id", NULL)) == 1,
	    "id: %s", resp.body);
}

static void
expect_no_id(void)
{
	ck_assert_msg(!json_object_object_get_ex(resp.json, "id", NULL),
	    "id present: %s", resp.body);
}

#define TEXT_CALL(args)	"{\"name\":\"text\",\"arguments\":" args "}"

/* --- repeated headers ---------------------------------------------------- */

START_TEST(mcp_name_twice_is_32020)
{
	const char *const second[] = { "HTTP_MCP_NAME=text", NULL };

	/* Two params (nginx <= 1.22): the last one used to win. */
	call("tools/call", "who", TEXT_CALL("{}"), second);
	expect_error(400, -32020, "Mcp-Name header is repeated");
	expect_id();
	/* Even when both agree with the body. */
	call("tools/call", "text", TEXT_CALL("{}"), second);
	expect_error(400, -32020, "repeated");
}
END_TEST

START_TEST(mcp_name_joined_is_32020)
{
	static const char *const joined[] = { "who, text", "text, text",
	    "text,\ttext", ", text" };
	char		 h[128];
	size_t		 i;

	for (i = 0; i < sizeof(joined) / sizeof(joined[0]); i++) {
		snprintf(h, sizeof(h), "HTTP_MCP_NAME=%s", joined[i]);
		post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
		    "\"params\":{\"_meta\":" H_META ",\"name\":\"text\"}}",
		    "HTTP_HOST=localhost", "HTTP_MCP_METHOD=tools/call",
		    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28", h, NULL);
		expect_error(400, -32020, "Mcp-Name header is repeated");
	}
	/* A comma alone is part of a URI. */
	post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"resources/read\","
	    "\"params\":{\"_meta\":" H_META ",\"uri\":\"wire://r,s\"}}",
	    "HTTP_HOST=localhost", "HTTP_MCP_METHOD=resources/read",
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28", "HTTP_MCP_NAME=wire://r,s",
	    NULL);
	expect_error(200, -32602, "Resource not found");
}
END_TEST

START_TEST(mcp_method_repeated_is_32020)
{
	const char *const twice[] = { "HTTP_MCP_METHOD=tools/list", NULL };
	const char *const joined[] = { "HTTP_HOST=localhost",
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28",
	    "HTTP_MCP_METHOD=tools/list,tools/list", NULL };

	call("tools/list", NULL, NULL, twice);
	expect_error(400, -32020, "Mcp-Method header is repeated");
	post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\","
	    "\"params\":{\"_meta\":" H_META "}}", joined[0], joined[1],
	    joined[2], NULL);
	expect_error(400, -32020, "Mcp-Method header is repeated");
}
END_TEST

START_TEST(protocol_version_repeated_is_32020)
{
	const char *const twice[] = {
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28", NULL };
	const char *const legacy[] = {
	    "HTTP_MCP_PROTOCOL_VERSION=2025-11-25", NULL };

	call("tools/list", NULL, NULL, twice);
	expect_error(400, -32020, "MCP-Protocol-Version header is repeated");
	/* A legacy version behind the modern one picks no era either. */
	call("tools/list", NULL, NULL, legacy);
	expect_error(400, -32020, "repeated");
	post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\","
	    "\"params\":{\"_meta\":" H_META "}}", "HTTP_HOST=localhost",
	    "HTTP_MCP_METHOD=tools/list",
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28, 2026-07-28", NULL);
	expect_error(400, -32020, "MCP-Protocol-Version header is repeated");
	/* A 2025-11-25 request (no _meta) too. */
	post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
	    "HTTP_MCP_PROTOCOL_VERSION=2025-11-25",
	    "HTTP_MCP_PROTOCOL_VERSION=2025-06-18", NULL);
	expect_error(400, -32020, "repeated");
}
END_TEST

START_TEST(origin_repeated_is_403)
{
	static const char body[] = "{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"method\":\"tools/list\",\"params\":{\"_meta\":" H_META "}}";

	/* The allowed one last used to win. */
	post(body, "HTTP_HOST=localhost", "HTTP_MCP_METHOD=tools/list",
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28",
	    "HTTP_ORIGIN=http://evil.example", "HTTP_ORIGIN=http://localhost",
	    NULL);
	expect_error(403, -32600, "repeated Origin");
	expect_no_id();
	/* Joined, the first one's host used to be read up to the port. */
	post(body, "HTTP_HOST=localhost", "HTTP_MCP_METHOD=tools/list",
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28",
	    "HTTP_ORIGIN=http://localhost:8080, http://evil.example", NULL);
	expect_error(403, -32600, "repeated Origin");
	/* Control: one allowed Origin. */
	post(body, "HTTP_HOST=localhost", "HTTP_MCP_METHOD=tools/list",
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28",
	    "HTTP_ORIGIN=http://localhost:8080", NULL);
	ck_assert_int_eq(resp.status, 200);
}
END_TEST

START_TEST(host_repeated_is_400)
{
	post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\","
	    "\"params\":{\"_meta\":" H_META "}}", "HTTP_HOST=evil.example",
	    "HTTP_HOST=localhost", "HTTP_MCP_METHOD=tools/list",
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28", NULL);
	expect_error(400, -32600, "repeated Host");
}
END_TEST

/* --- 2025-11-25 requests: the headers they carry ------------------------- */

#define LEGACY_CALL(name, args)						\
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","	\
	"\"params\":{\"name\":\"" name "\",\"arguments\":" args "}}"

START_TEST(legacy_present_headers_checked)
{
	/* Mcp-Name naming another tool: it used to run the body's. */
	post(LEGACY_CALL("text", "{\"text\":\"hi\"}"),
	    "HTTP_MCP_PROTOCOL_VERSION=2025-11-25", "HTTP_MCP_NAME=who", NULL);
	expect_error(400, -32020, "Mcp-Name header value 'who' does not "
	    "match body value 'text'");
	post(LEGACY_CALL("text", "{\"text\":\"hi\"}"),
	    "HTTP_MCP_METHOD=tools/list", NULL);
	expect_error(400, -32020, "Mcp-Method");
	post(LEGACY_CALL("region", "{\"region\":\"eu\"}"),
	    "HTTP_MCP_PARAM_REGION=us", NULL);
	expect_error(400, -32020, "Mcp-Param-Region");
	post(LEGACY_CALL("text", "{\"text\":\"hi\"}"),
	    "HTTP_MCP_NAME=text", "HTTP_MCP_NAME=who", NULL);
	expect_error(400, -32020, "repeated");
	/* Present and matching, or absent: served. */
	post(LEGACY_CALL("text", "{\"text\":\"hi\"}"),
	    "HTTP_MCP_PROTOCOL_VERSION=2025-11-25", "HTTP_MCP_NAME=text",
	    "HTTP_MCP_METHOD=tools/call", NULL);
	expect_text("hi");
	post(LEGACY_CALL("region", "{\"region\":\"eu\"}"), NULL);
	ck_assert_int_eq(resp.status, 200);
	ck_assert_int_eq(h_code(&resp), 0);
	post(LEGACY_CALL("region", "{\"region\":\"eu\"}"),
	    "HTTP_MCP_PARAM_REGION=eu", NULL);
	ck_assert_int_eq(h_code(&resp), 0);
}
END_TEST

/* --- U+0000 ------------------------------------------------------------ */

START_TEST(nul_in_tool_name_is_32602)
{
	/* It used to run "text", and Mcp-Name "text" matched. */
	call("tools/call", "text", "{\"name\":\"text\\u0000who\"}", NULL);
	expect_error(400, -32602, "U+0000");
	expect_id();
}
END_TEST

START_TEST(nul_in_argument_value_is_32602)
{
	/* It used to reach the tool as "a". */
	call("tools/call", "text", TEXT_CALL("{\"text\":\"a\\u0000b\"}"),
	    NULL);
	expect_error(400, -32602, "U+0000");
	/* At any depth. */
	call("tools/call", "args", "{\"name\":\"args\",\"arguments\":"
	    "{\"a\":[{\"b\":\"\\u0000\"}]}}", NULL);
	expect_error(400, -32602, "U+0000");
	/* An escaped backslash before "u0000" is no NUL. */
	call("tools/call", "text", TEXT_CALL("{\"text\":\"a\\\\u0000b\"}"),
	    NULL);
	expect_text("a\\u0000b");
}
END_TEST

START_TEST(nul_in_member_name_is_32602)
{
	call("tools/call", "args", "{\"name\":\"args\",\"arguments\":"
	    "{\"x\\u0000y\":1}}", NULL);
	expect_error(400, -32602, "U+0000");
	call("tools/call", "args", "{\"name\":\"args\",\"arguments\":"
	    "{\"o\":{\"k\\u0000\":1}}}", NULL);
	expect_error(400, -32602, "U+0000");
}
END_TEST

START_TEST(nul_in_method_uri_prompt_is_32602)
{
	/* Mcp-Method "tools/list" used to match the cut method. */
	post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\\u0000x\","
	    "\"params\":{\"_meta\":" H_META "}}", "HTTP_HOST=localhost",
	    "HTTP_MCP_METHOD=tools/list",
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28", NULL);
	expect_error(400, -32602, "U+0000");
	call("resources/read", "wire://r", "{\"uri\":\"wire://r\\u0000x\"}",
	    NULL);
	expect_error(400, -32602, "U+0000");
	call("prompts/get", "p", "{\"name\":\"p\\u0000x\"}", NULL);
	expect_error(400, -32602, "U+0000");
	/* A notification so written is not accepted. */
	post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\\u0000\"}",
	    NULL);
	expect_error(400, -32602, "U+0000");
	expect_no_id();
}
END_TEST

/* --- errors that say why (issue 38) ------------------------------------- */

/* A missing Mcp-Name says what it carries and the value wanted. */
START_TEST(missing_mcp_name_says_what_it_carries)
{
	post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/get\","
	    "\"params\":{\"_meta\":" H_META ",\"taskId\":\"t-1a2b\"}}",
	    "HTTP_HOST=localhost", "HTTP_MCP_METHOD=tasks/get",
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28", NULL);
	expect_error(400, -32020, "Mcp-Name header is missing: it carries "
	    "params.taskId of tasks/get, here Mcp-Name: ");
	expect_error(400, -32020, "t-1a2b");
	post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
	    "\"params\":{\"_meta\":" H_META ",\"name\":\"text\"}}",
	    "HTTP_HOST=localhost", "HTTP_MCP_PROTOCOL_VERSION=2026-07-28",
	    "HTTP_MCP_NAME=text", NULL);
	expect_error(400, -32020, "Mcp-Method header is missing: it carries "
	    "the body's method, here Mcp-Method: ");
}
END_TEST

/* Bytes that are not UTF-8: -32700, what and where. */
START_TEST(invalid_utf8_says_where)
{
	post("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\xff\"}",
	    "HTTP_HOST=localhost", NULL);
	expect_error(400, -32700, "Parse error: invalid UTF-8 at byte 35 of "
	    "the body");
	ck_assert_int_eq(json_object_get_int(h_jp(resp.json, "error", "data",
	    "offset", NULL)), 35);
	post("{\"a\":1,}", "HTTP_HOST=localhost", NULL);
	expect_error(400, -32700, "a member name (a string) expected at "
	    "byte 7");
	post("[1,2", "HTTP_HOST=localhost", NULL);
	expect_error(400, -32700, "the text ends inside an array at byte 4");
}
END_TEST

/* 5,000 arrays deep: -32700, the limit and where it was passed. */
START_TEST(deep_nesting_says_where)
{
	char	*body;
	size_t	 i, n = 5000;

	ck_assert_ptr_nonnull(body = malloc(2 * n + 1));
	for (i = 0; i < n; i++) {
		body[i] = '[';
		body[n + i] = ']';
	}
	body[2 * n] = '\0';
	post(body, "HTTP_HOST=localhost", NULL);
	free(body);
	expect_error(400, -32700, "Parse error: arrays and objects nested "
	    "deeper than 31 at byte 31 of the body");
}
END_TEST

/* --- duplicate member names --------------------------------------------- */

START_TEST(duplicate_name_in_params_is_32700)
{
	/* json-c used to keep the last one: "text" ran, not "who". */
	call("tools/call", "who", "{\"name\":\"who\",\"arguments\":{},"
	    "\"name\":\"text\"}", NULL);
	expect_error(400, -32700, "two members of the same name");
	expect_no_id();
}
END_TEST

START_TEST(duplicate_names_at_any_depth_are_32700)
{
	static const char *const dups[] = {
		/* the envelope */
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"x\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
		    "\"method\":\"tools/list\"}",
		/* _meta */
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\","
		    "\"params\":{\"_meta\":" H_META ",\"_meta\":{}}}",
		/* arguments, nested */
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
		    "\"params\":{\"_meta\":" H_META ",\"name\":\"args\","
		    "\"arguments\":{\"a\":[1,{\"b\":1,\"c\":2,\"b\":3}]}}}",
		/* the same name, spelled with an escape */
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
		    "\"params\":{\"_meta\":" H_META ",\"name\":\"args\","
		    "\"arguments\":{\"ab\":1,\"a\\u0062\":2}}}",
		/* names json-c cuts at U+0000 */
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
		    "\"params\":{\"_meta\":" H_META ",\"name\":\"args\","
		    "\"arguments\":{\"a\\u0000b\":1,\"a\":2}}}",
		/* unpaired surrogates json-c makes U+FFFD */
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
		    "\"params\":{\"_meta\":" H_META ",\"name\":\"args\","
		    "\"arguments\":{\"\\ud800\":1,\"\\udc00\":2}}}",
		/* inputResponses */
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
		    "\"params\":{\"_meta\":" H_META ",\"name\":\"form\","
		    "\"inputResponses\":{\"elicit-1\":{\"action\":\"decline\"},"
		    "\"elicit-1\":{\"action\":\"accept\"}}}}",
	};
	size_t	 i;

	for (i = 0; i < sizeof(dups) / sizeof(dups[0]); i++) {
		post(dups[i], "HTTP_HOST=localhost",
		    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28",
		    "HTTP_MCP_METHOD=tools/call", "HTTP_MCP_NAME=args", NULL);
		ck_assert_msg(resp.status == 400 && h_code(&resp) == -32700,
		    "%zu: %d %s", i, resp.status, resp.body);
	}
	/* The same name in sibling objects is fine. */
	call("tools/call", "args", "{\"name\":\"args\",\"arguments\":"
	    "{\"a\":{\"k\":1},\"b\":{\"k\":2},\"c\":[{\"k\":3},{\"k\":4}]}}",
	    NULL);
	expect_text("{\"a\":{\"k\":1},\"b\":{\"k\":2},\"c\":[{\"k\":3},"
	    "{\"k\":4}]}");
}
END_TEST

/* --- quotes in messages ------------------------------------------------ */

START_TEST(quoted_values_are_capped)
{
	char		 h[700], name[400], params[800];
	const char	*env[2] = { NULL, NULL }, *m;

	memset(name, 'n', 300);
	name[300] = '\0';
	snprintf(h, sizeof(h), "HTTP_MCP_NAME=%s", name);
	/* Mcp-Name: header and body value both quoted. */
	snprintf(params, sizeof(params), "{\"name\":\"%s\"}", name);
	call("tools/call", "short", params, NULL);
	expect_error(400, -32020, "does not match body value");
	m = message();
	ck_assert_msg(strlen(m) < 200, "%zu: %s", strlen(m), m);
	ck_assert_ptr_nonnull(strstr(m, "...'"));
	/* Unknown tool: the name quoted. */
	call("tools/call", name, params, NULL);
	expect_error(200, -32602, "Unknown tool: nnn");
	ck_assert_msg(strlen(message()) <= strlen("Unknown tool: ") + 64 + 3,
	    "%s", message());
	/* A long header value with a short body value. */
	env[0] = h;
	call("tools/call", NULL, "{\"name\":\"text\"}", env);
	expect_error(400, -32020, NULL);
	ck_assert_msg(strlen(message()) < 200, "%s", message());
}
END_TEST

/* --- identity and caching ---------------------------------------------- */

START_TEST(empty_principal_is_anonymous)
{
	const char *const empty[] = { "WYMCP_PRINCIPAL=",
	    "REMOTE_USER=mallory", NULL };
	const char *const absent[] = { "REMOTE_USER=alice", NULL };

	/* REMOTE_USER used to become the principal. */
	call("tools/call", "who", "{\"name\":\"who\"}", empty);
	expect_text("- {\"remote_user\":\"mallory\"}");
	call("tools/call", "who", "{\"name\":\"who\"}", absent);
	expect_text("alice {\"remote_user\":\"alice\"}");
}
END_TEST

START_TEST(empty_assigns_dropped)
{
	const char *const env[] = { "WYMCP_ASSIGN_ROLE=",
	    "WYMCP_ASSIGN_TENANT=acme", NULL };

	/* It used to be {"role":"","tenant":"acme"}. */
	call("tools/call", "who", "{\"name\":\"who\"}", env);
	expect_text("- {\"tenant\":\"acme\"}");
}
END_TEST

START_TEST(tools_list_private_with_any_assign)
{
	const char *const role[] = { "WYMCP_ASSIGN_ROLE=admin", NULL };
	const char *const empty[] = { "WYMCP_ASSIGN_ROLE=", NULL };

	/* It used to be public without a principal. */
	call("tools/list", NULL, NULL, role);
	ck_assert_str_eq(json_object_get_string(h_jp(h_result(&resp),
	    "cacheScope", NULL)), "private");
	call("tools/list", NULL, NULL, empty);
	ck_assert_str_eq(json_object_get_string(h_jp(h_result(&resp),
	    "cacheScope", NULL)), "public");
	call("tools/list", NULL, NULL, NULL);
	ck_assert_str_eq(json_object_get_string(h_jp(h_result(&resp),
	    "cacheScope", NULL)), "public");
}
END_TEST

/* --- answers ----------------------------------------------------------- */

/*
 * tools/call `tool` answering key `key` with `answer`: a first round
 * (a first round has no answers), then the answer with its state.
 */
static void
answered(const char *tool, const char *key, const char *answer)
{
	char		 params[4096], state[1024];
	const char	*st;

	snprintf(params, sizeof(params), "{\"_meta\":" META_ALL ","
	    "\"name\":\"%s\"}", tool);
	call("tools/call", tool, params, NULL);
	st = json_object_get_string(h_jp(resp.json, "result", "requestState",
	    NULL));
	ck_assert_msg(st != NULL, "%s", resp.body);
	ck_assert_uint_lt(strlen(st), sizeof(state));
	snprintf(state, sizeof(state), "%s", st);
	snprintf(params, sizeof(params), "{\"_meta\":" META_ALL ","
	    "\"name\":\"%s\",\"inputResponses\":{\"%s\":%s},"
	    "\"requestState\":\"%s\"}", tool, key, answer, state);
	call("tools/call", tool, params, NULL);
}

START_TEST(sampling_answer_checked)
{
	static const char *const bad[] = {
		"{}",
		"{\"foo\":1}",
		/* no model */
		"{\"role\":\"assistant\",\"content\":{\"type\":\"text\","
		    "\"text\":\"x\"}}",
		/* a role that is none */
		"{\"role\":\"system\",\"content\":{\"type\":\"text\","
		    "\"text\":\"x\"},\"model\":\"m\"}",
		/* a content block of no kind */
		"{\"role\":\"assistant\",\"content\":{\"type\":\"video\"},"
		    "\"model\":\"m\"}",
		/* text without text */
		"{\"role\":\"assistant\",\"content\":[{\"type\":\"text\"}],"
		    "\"model\":\"m\"}",
		"{\"role\":\"assistant\",\"content\":{\"type\":\"text\","
		    "\"text\":\"x\"},\"model\":7}",
		"{\"role\":\"assistant\",\"content\":{\"type\":\"text\","
		    "\"text\":\"x\"},\"model\":\"m\",\"stopReason\":1}",
	};
	size_t	 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		answered("sample", "s", bad[i]);
		ck_assert_msg(h_code(&resp) == -32602 && strstr(message(),
		    "not a CreateMessageResult") != NULL, "%zu: %s", i,
		    resp.body);
	}
	answered("sample", "s", SAMPLE);
	expect_text("model m");
	answered("sample", "s", "{\"role\":\"assistant\",\"content\":["
	    "{\"type\":\"tool_use\",\"id\":\"1\",\"name\":\"f\",\"input\":{}},"
	    "{\"type\":\"image\",\"data\":\"AA==\",\"mimeType\":\"image/png\"}"
	    "],\"model\":\"m2\",\"stopReason\":\"toolUse\"}");
	expect_text("model m2");
}
END_TEST

START_TEST(roots_answer_checked)
{
	static const char *const bad[] = {
		"{}",
		"{\"roots\":\"file:///r\"}",
		"{\"roots\":[{\"name\":\"no uri\"}]}",
		"{\"roots\":[{\"uri\":7}]}",
		"{\"roots\":[{\"uri\":\"file:///r\",\"name\":1}]}",
		/* Root.uri: "This *must* start with file://" */
		"{\"roots\":[{\"uri\":\"https://example.com/\"}]}",
	};
	size_t	 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		answered("roots", "r", bad[i]);
		ck_assert_msg(h_code(&resp) == -32602 && strstr(message(),
		    "not a ListRootsResult") != NULL, "%zu: %s", i, resp.body);
	}
	answered("roots", "r", ROOTS);
	expect_text("1 roots");
	answered("roots", "r", "{\"roots\":[]}");
	expect_text("0 roots");
}
END_TEST

START_TEST(elicit_answer_undeclared_property_refused)
{
	/* It used to reach the tool. */
	answered("form", "elicit-1", "{\"action\":\"accept\",\"content\":"
	    "{\"name\":\"Alice\",\"admin\":true}}");
	expect_error(200, -32602, "content has property 'admin', which the "
	    "requested schema does not declare");
	answered("form", "elicit-1", "{\"action\":\"accept\",\"content\":"
	    "{\"name\":\"Alice\"}}");
	expect_text("{\"name\":\"Alice\"}");
}
END_TEST

static Suite *
wire_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("wire");
	tc = tcase_create("repeated");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, mcp_name_twice_is_32020);
	tcase_add_test(tc, mcp_name_joined_is_32020);
	tcase_add_test(tc, mcp_method_repeated_is_32020);
	tcase_add_test(tc, protocol_version_repeated_is_32020);
	tcase_add_test(tc, origin_repeated_is_403);
	tcase_add_test(tc, host_repeated_is_400);
	tcase_add_test(tc, legacy_present_headers_checked);
	suite_add_tcase(s, tc);

	tc = tcase_create("json");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, nul_in_tool_name_is_32602);
	tcase_add_test(tc, nul_in_argument_value_is_32602);
	tcase_add_test(tc, nul_in_member_name_is_32602);
	tcase_add_test(tc, nul_in_method_uri_prompt_is_32602);
	tcase_add_test(tc, missing_mcp_name_says_what_it_carries);
	tcase_add_test(tc, invalid_utf8_says_where);
	tcase_add_test(tc, deep_nesting_says_where);
	tcase_add_test(tc, duplicate_name_in_params_is_32700);
	tcase_add_test(tc, duplicate_names_at_any_depth_are_32700);
	tcase_add_test(tc, quoted_values_are_capped);
	suite_add_tcase(s, tc);

	tc = tcase_create("identity");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, empty_principal_is_anonymous);
	tcase_add_test(tc, empty_assigns_dropped);
	tcase_add_test(tc, tools_list_private_with_any_assign);
	suite_add_tcase(s, tc);

	tc = tcase_create("answers");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, sampling_answer_checked);
	tcase_add_test(tc, roots_answer_checked);
	tcase_add_test(tc, elicit_answer_undeclared_property_refused);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	sr = srunner_create(wire_suite());
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
