/*
 * check_resource.c - resources, resource templates and resources/read
 *
 * Registration rules (RFC 3986 schemes, the RFC 6570 subset, duplicates,
 * all or nothing), the listing objects, and resources/read served
 * in-process through wymcp_server_serve(): exact URIs, template matching
 * and decoding, "Resource not found", empty and failed reads, and reads
 * that ask the client across rounds (server/resources.mdx,
 * basic/patterns/mrtr.mdx).
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
#include "harness.h"

#define META_ELICIT							\
	"{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","	\
	"\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}"
#define PNG	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4" \
	"2mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="

static struct wymcp_server	*srv;
static struct h_resp		 resp;

static enum wymcp_err
read_text(struct wymcp_ctx *ctx, const char *uri, struct json_object *vars,
    struct wymcp_resource_result *res)
{
	return wymcp_contents_text(res, NULL, "text/plain",
	    "This is the content of the static text resource.");
}

static enum wymcp_err
read_binary(struct wymcp_ctx *ctx, const char *uri, struct json_object *vars,
    struct wymcp_resource_result *res)
{
	return wymcp_contents_blob(res, uri, "image/png", PNG);
}

/* The variables, as the text: what the template match gave. */
static enum wymcp_err
read_vars(struct wymcp_ctx *ctx, const char *uri, struct json_object *vars,
    struct wymcp_resource_result *res)
{
	return wymcp_contents_text(res, NULL, "application/json",
	    json_object_to_json_string_ext(vars, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE));
}

static enum wymcp_err
read_nothing(struct wymcp_ctx *ctx, const char *uri, struct json_object *vars,
    struct wymcp_resource_result *res)
{
	return WYMCP_OK;
}

static enum wymcp_err
read_notfound(struct wymcp_ctx *ctx, const char *uri,
    struct json_object *vars, struct wymcp_resource_result *res)
{
	return WYMCP_ERR_NOTFOUND;
}

static enum wymcp_err
read_fails(struct wymcp_ctx *ctx, const char *uri, struct json_object *vars,
    struct wymcp_resource_result *res)
{
	return WYMCP_ERR_INVAL;
}

/* A directory: several contents, each with its own URI. */
static enum wymcp_err
read_dir(struct wymcp_ctx *ctx, const char *uri, struct json_object *vars,
    struct wymcp_resource_result *res)
{
	enum wymcp_err	 rc;

	if ((rc = wymcp_contents_text(res, "test://dir/a", NULL, "A")) !=
	    WYMCP_OK)
		return rc;
	return wymcp_contents_text(res, "test://dir/b", "text/plain", "B");
}

/*
 * The builders refuse what cannot go on the wire; the text says which
 * check failed ("ok" when all held).
 */
static enum wymcp_err
read_checks(struct wymcp_ctx *ctx, const char *uri, struct json_object *vars,
    struct wymcp_resource_result *res)
{
	const char	*bad = NULL;

	if (wymcp_contents_blob(res, NULL, NULL, "not base64!") !=
	    WYMCP_ERR_INVAL)
		bad = "blob alphabet";
	else if (wymcp_contents_blob(res, NULL, NULL, "abc") !=
	    WYMCP_ERR_INVAL)
		bad = "blob length";
	else if (wymcp_contents_blob(res, NULL, NULL, "a=bc") !=
	    WYMCP_ERR_INVAL)
		bad = "blob padding";
	else if (wymcp_contents_text(res, NULL, NULL, "\xff\xfe") !=
	    WYMCP_ERR_INVAL)
		bad = "text utf-8";
	else if (wymcp_contents_text(res, NULL, NULL, NULL) !=
	    WYMCP_ERR_INVAL)
		bad = "text NULL";
	else if (wymcp_contents_text(res, NULL, "", "x") != WYMCP_ERR_INVAL)
		bad = "empty mime";
	else if (wymcp_contents_text(NULL, NULL, NULL, "x") !=
	    WYMCP_ERR_INVAL)
		bad = "NULL result";
	return wymcp_contents_text(res, NULL, NULL, bad != NULL ? bad : "ok");
}

/*
 * Asks one question with a chosen key, then answers with what the
 * client said.  The read is side-effect free, as the re-execution rule
 * wants.
 */
static enum wymcp_err
read_ask(struct wymcp_ctx *ctx, const char *uri, struct json_object *vars,
    struct wymcp_resource_result *res)
{
	struct json_object	*schema, *a, *c, *v;
	enum wymcp_err		 rc;

	schema = wymcp_own(ctx, json_tokener_parse("{\"type\":\"object\","
	    "\"properties\":{\"reason\":{\"type\":\"string\"}},"
	    "\"required\":[\"reason\"]}"));
	if ((rc = wymcp_elicit_key(ctx, "why", "Why do you read this?",
	    schema, &a)) != WYMCP_OK)
		return rc;
	if ((c = wymcp_answer_content(a)) == NULL ||
	    !json_object_object_get_ex(c, "reason", &v))
		return wymcp_contents_text(res, NULL, NULL, "declined");
	return wymcp_contents_text(res, NULL, NULL,
	    wymcp_printf(ctx, "%s: %s", uri, json_object_get_string(v)));
}

/*
 * A refusal with a reason: {code} is the JSON-RPC code (wymcp_refuse()),
 * "odd" one outside the spec's, "..", in the name, refused as a path.
 */
static enum wymcp_err
read_refuse(struct wymcp_ctx *ctx, const char *uri, struct json_object *vars,
    struct wymcp_resource_result *res)
{
	const char	*c = wymcp_arg_str(vars, "code", "");

	if (strstr(c, "..") != NULL)
		return wymcp_refuse(ctx, 0, "Refused: '%s' has '..'", c);
	if (strcmp(c, "odd") == 0)
		return wymcp_refuse(ctx, -32700, "odd code");
	return wymcp_refuse(ctx, atoi(c), "Refused with %s", c);
}

static const struct wymcp_resource resources[] = {
	{ .uri = "test://static-text", .name = "static-text",
	    .title = "Static text", .description = "A text resource.",
	    .mime = "text/plain", .read = read_text },
	{ .uri = "test://static-binary", .name = "static-binary",
	    .mime = "image/png", .read = read_binary },
	{ .uri = "test://empty", .name = "empty", .read = read_nothing },
	{ .uri = "test://gone", .name = "gone", .read = read_notfound },
	{ .uri = "test://fails", .name = "fails", .read = read_fails },
	{ .uri = "test://dir", .name = "dir", .read = read_dir },
	{ .uri = "test://checks", .name = "checks", .read = read_checks },
	{ .uri = "test://ask", .name = "ask", .read = read_ask },
	{ .uri = "test://ask-too", .name = "ask-too", .read = read_ask },
	/* A fixed URI a template also matches: the fixed one wins. */
	{ .uri = "test://user/root", .name = "root", .read = read_text },
	{ .uri = NULL }
};
static const struct wymcp_resource templates[] = {
	{ .uri = "test://template/{id}/data", .name = "data",
	    .title = "Data", .description = "Data by id.",
	    .mime = "application/json", .read = read_vars },
	{ .uri = "test://pair/{a}-{b}", .name = "pair", .read = read_vars },
	{ .uri = "test://user/{name}", .name = "user", .read = read_vars },
	{ .uri = "test://tree/{+dir}/{name}", .name = "tree",
	    .read = read_vars },
	{ .uri = "file:///{+path}", .name = "files", .read = read_vars },
	{ .uri = "test://ask/{x}", .name = "ask", .read = read_ask },
	{ .uri = "test://slow/{a}-{b}-{c}-{d}-{e}-{f}/end", .name = "slow",
	    .read = read_vars },
	{ .uri = "test://refuse/{code}", .name = "refuse",
	    .read = read_refuse },
	{ .uri = NULL }
};
static const struct wymcp_module mod = {
	.resource_size = sizeof(struct wymcp_resource),
	.prompt_size = sizeof(struct wymcp_prompt),
	.prompt_arg_size = sizeof(struct wymcp_prompt_arg),
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "res", .resources = resources, .templates = templates
};

/* A module whose reads are cached for a minute. */
static const struct wymcp_resource minute_res[] = {
	{ .uri = "test://minute", .name = "minute", .read = read_text },
	{ .uri = "test://minute-ask", .name = "minute-ask", .read = read_ask },
	{ .uri = NULL }
};
static const struct wymcp_module mod_minute = {
	.resource_size = sizeof(struct wymcp_resource),
	.prompt_size = sizeof(struct wymcp_prompt),
	.prompt_arg_size = sizeof(struct wymcp_prompt_arg),
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "minute", .resources = minute_res, .ttl_ms = 60000
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

/* An empty server, for the registration tests. */
static void
setup_empty(void)
{
	memset(&resp, 0, sizeof(resp));
	srv = wymcp_server_new();
	ck_assert_ptr_nonnull(srv);
}

static void
call(const char *method, const char *name, const char *params)
{
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, method, name, params, NULL, &resp),
	    WYMCP_OK);
	ck_assert_ptr_nonnull(resp.headers);
}

/*
 * resources/read of `uri` (no JSON escaping needed in the tests).  The
 * request is built here rather than by h_call(), whose header buffers
 * would cut a long Mcp-Name.
 */
static void
readuri(const char *uri)
{
	const char	*env[8];
	char		*body, *name, cl[64];
	size_t		 n = strlen(uri) + 1024;

	body = malloc(n);
	name = malloc(n);
	ck_assert_ptr_nonnull(body);
	ck_assert_ptr_nonnull(name);
	snprintf(body, n, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"resources/read\",\"params\":{\"_meta\":%s,\"uri\":\"%s\"}}",
	    H_META, uri);
	snprintf(name, n, "HTTP_MCP_NAME=%s", uri);
	snprintf(cl, sizeof(cl), "CONTENT_LENGTH=%zu", strlen(body));
	env[0] = "REQUEST_METHOD=POST";
	env[1] = "CONTENT_TYPE=application/json";
	env[2] = cl;
	env[3] = "HTTP_HOST=localhost";
	env[4] = "HTTP_MCP_PROTOCOL_VERSION=2026-07-28";
	env[5] = "HTTP_MCP_METHOD=resources/read";
	env[6] = name;
	env[7] = NULL;
	h_free(&resp);
	ck_assert_int_eq(h_serve(srv, env, body, &resp), WYMCP_OK);
	free(body);
	free(name);
	ck_assert_ptr_nonnull(resp.headers);
}

static struct json_object *
expect_result(void)
{
	ck_assert_msg(resp.status == 200, "status %d: %s", resp.status,
	    resp.body);
	ck_assert_msg(h_result(&resp) != NULL, "no result: %s", resp.body);
	return h_result(&resp);
}

static void
expect_error(int status, int code, const char *message)
{
	ck_assert_msg(resp.status == status, "status %d, want %d: %s",
	    resp.status, status, resp.body);
	ck_assert_msg(h_code(&resp) == code, "code %d, want %d: %s",
	    h_code(&resp), code, resp.body);
	ck_assert_ptr_null(h_result(&resp));
	if (message != NULL)
		ck_assert_str_eq(json_object_get_string(h_jp(resp.json, "error",
		    "message", NULL)), message);
}

/* The text of the only contents entry of a read. */
static const char *
read_text_of(void)
{
	struct json_object	*c;

	c = h_jp(expect_result(), "contents", NULL);
	ck_assert_msg(json_object_array_length(c) == 1, "%s", resp.body);
	return json_object_get_string(h_jp(json_object_array_get_idx(c, 0),
	    "text", NULL));
}

/* The resource was not found: -32602 with data.uri, HTTP 200. */
static void
expect_not_found(const char *uri)
{
	expect_error(200, WYMCP__INVALID_PARAMS, "Resource not found");
	ck_assert_str_eq(json_object_get_string(h_jp(resp.json, "error",
	    "data", "uri", NULL)), uri);
}

/* Listing: the Resource and ResourceTemplate objects, in order. */

START_TEST(resources_list_shape_and_order)
{
	struct json_object	*r, *arr;

	call("resources/list", NULL, NULL);
	r = expect_result();
	ck_assert_str_eq(json_object_get_string(h_jp(r, "resultType", NULL)),
	    "complete");
	arr = h_jp(r, "resources", NULL);
	ck_assert_uint_eq(json_object_array_length(arr), 10);
	ck_assert_str_eq(h_compact(json_object_array_get_idx(arr, 0)),
	    "{\"uri\":\"test://static-text\",\"name\":\"static-text\","
	    "\"title\":\"Static text\",\"description\":\"A text resource.\","
	    "\"mimeType\":\"text/plain\"}");
	ck_assert_str_eq(h_compact(json_object_array_get_idx(arr, 2)),
	    "{\"uri\":\"test://empty\",\"name\":\"empty\"}");
	ck_assert_str_eq(json_object_get_string(h_jp(json_object_array_get_idx(
	    arr, 9), "uri", NULL)), "test://user/root");
	ck_assert_int_eq(json_object_get_int64(h_jp(r, "ttlMs", NULL)), 300000);
	ck_assert_str_eq(json_object_get_string(h_jp(r, "cacheScope", NULL)),
	    "public");
	ck_assert_ptr_nonnull(h_jp(r, "_meta",
	    "io.modelcontextprotocol/serverInfo", NULL));
	ck_assert(!json_object_object_get_ex(r, "nextCursor", NULL));
}
END_TEST

START_TEST(templates_list_shape_and_order)
{
	struct json_object	*r, *arr;

	call("resources/templates/list", NULL, NULL);
	r = expect_result();
	arr = h_jp(r, "resourceTemplates", NULL);
	ck_assert_uint_eq(json_object_array_length(arr), 8);
	ck_assert_str_eq(h_compact(json_object_array_get_idx(arr, 0)),
	    "{\"uriTemplate\":\"test://template/{id}/data\",\"name\":\"data\","
	    "\"title\":\"Data\",\"description\":\"Data by id.\","
	    "\"mimeType\":\"application/json\"}");
	ck_assert_str_eq(h_compact(json_object_array_get_idx(arr, 4)),
	    "{\"uriTemplate\":\"file:///{+path}\",\"name\":\"files\"}");
	ck_assert_int_eq(json_object_get_int64(h_jp(r, "ttlMs", NULL)), 300000);
	ck_assert_str_eq(json_object_get_string(h_jp(r, "cacheScope", NULL)),
	    "public");
}
END_TEST

/* resources/read of fixed URIs. */

START_TEST(read_exact_text)
{
	struct json_object	*r;

	readuri("test://static-text");
	r = expect_result();
	ck_assert_str_eq(h_compact(h_jp(r, "contents", NULL)),
	    "[{\"uri\":\"test://static-text\",\"mimeType\":\"text/plain\","
	    "\"text\":\"This is the content of the static text resource.\"}]");
	ck_assert_str_eq(json_object_get_string(h_jp(r, "resultType", NULL)),
	    "complete");
	/* Reads are private: what they return may depend on the user. */
	ck_assert_str_eq(json_object_get_string(h_jp(r, "cacheScope", NULL)),
	    "private");
	ck_assert_int_eq(json_object_get_int64(h_jp(r, "ttlMs", NULL)), 300000);
	ck_assert_ptr_nonnull(h_jp(r, "_meta",
	    "io.modelcontextprotocol/serverInfo", NULL));
}
END_TEST

START_TEST(read_exact_blob)
{
	readuri("test://static-binary");
	ck_assert_str_eq(h_compact(h_jp(expect_result(), "contents", NULL)),
	    "[{\"uri\":\"test://static-binary\",\"mimeType\":\"image/png\","
	    "\"blob\":\"" PNG "\"}]");
}
END_TEST

START_TEST(read_several_contents)
{
	readuri("test://dir");
	ck_assert_str_eq(h_compact(h_jp(expect_result(), "contents", NULL)),
	    "[{\"uri\":\"test://dir/a\",\"text\":\"A\"},{\"uri\":"
	    "\"test://dir/b\",\"mimeType\":\"text/plain\",\"text\":\"B\"}]");
}
END_TEST

START_TEST(contents_builders_refuse_bad_input)
{
	readuri("test://checks");
	ck_assert_str_eq(read_text_of(), "ok");
}
END_TEST

/* Templates. */

START_TEST(read_template_one_variable)
{
	readuri("test://template/123/data");
	ck_assert_str_eq(read_text_of(), "{\"id\":\"123\"}");
	ck_assert_str_eq(json_object_get_string(h_jp(json_object_array_get_idx(
	    h_jp(h_result(&resp), "contents", NULL), 0), "uri", NULL)),
	    "test://template/123/data");
	/* {var} needs one character at least, and no '/'. */
	readuri("test://template//data");
	expect_not_found("test://template//data");
	readuri("test://template/1/2/data");
	expect_not_found("test://template/1/2/data");
	readuri("test://template/123/datax");
	expect_not_found("test://template/123/datax");
}
END_TEST

START_TEST(read_template_two_variables)
{
	readuri("test://pair/x-y");
	ck_assert_str_eq(read_text_of(), "{\"a\":\"x\",\"b\":\"y\"}");
	/* The earlier variable takes as much as it can. */
	readuri("test://pair/x-y-z");
	ck_assert_str_eq(read_text_of(), "{\"a\":\"x-y\",\"b\":\"z\"}");
	readuri("test://pair/xy");
	expect_not_found("test://pair/xy");
	readuri("test://pair/-y");
	expect_not_found("test://pair/-y");
}
END_TEST

START_TEST(read_template_percent_decoding)
{
	readuri("test://user/J%C3%B6rg%20M%2Fx");
	ck_assert_str_eq(read_text_of(), "{\"name\":\"J\xc3\xb6rg M/x\"}");
	/* Not well-formed, NUL, or not UTF-8: the template does not match. */
	readuri("test://user/%zz");
	expect_not_found("test://user/%zz");
	readuri("test://user/a%2");
	expect_not_found("test://user/a%2");
	readuri("test://user/a%00b");
	expect_not_found("test://user/a%00b");
	readuri("test://user/%ff");
	expect_not_found("test://user/%ff");
	/* An exact URI comes before any template. */
	readuri("test://user/root");
	ck_assert_str_eq(read_text_of(),
	    "This is the content of the static text resource.");
}
END_TEST

START_TEST(read_template_reserved_expansion)
{
	readuri("file:///a/b/c.txt");
	ck_assert_str_eq(read_text_of(), "{\"path\":\"a/b/c.txt\"}");
	/* {+var} values stay as they are in the URI. */
	readuri("file:///my%20doc");
	ck_assert_str_eq(read_text_of(), "{\"path\":\"my%20doc\"}");
	readuri("test://tree/a/b/c");
	ck_assert_str_eq(read_text_of(), "{\"dir\":\"a/b\",\"name\":\"c\"}");
	readuri("test://tree/a");
	expect_not_found("test://tree/a");
	readuri("file:///");
	expect_not_found("file:///");
}
END_TEST

/*
 * A URI built to make a backtracking matcher explode is turned down
 * within the step budget (the test case timeout would catch a hang):
 * one short enough for the failed-position memo, one too long for it.
 * The template still matches what it should.
 */
START_TEST(read_template_matching_is_bounded)
{
	static char	 uri[200100];
	size_t		 n;

	n = (size_t)snprintf(uri, sizeof(uri), "test://slow/");
	memset(uri + n, '-', 5000);
	uri[n + 5000] = '\0';
	readuri(uri);
	expect_not_found(uri);
	memset(uri + n, '-', 200000);
	uri[n + 200000] = '\0';
	readuri(uri);
	expect_not_found(uri);
	readuri("test://slow/1-2-3-4-5-6/end");
	ck_assert_str_eq(read_text_of(), "{\"a\":\"1\",\"b\":\"2\",\"c\":\"3\","
	    "\"d\":\"4\",\"e\":\"5\",\"f\":\"6\"}");
	readuri("test://slow/1-2-3-4-5-6-7/end");
	ck_assert_str_eq(read_text_of(), "{\"a\":\"1-2\",\"b\":\"3\","
	    "\"c\":\"4\",\"d\":\"5\",\"e\":\"6\",\"f\":\"7\"}");
}
END_TEST

/* Errors. */

START_TEST(read_unknown_uri_is_not_found)
{
	readuri("test://nonexistent-resource-for-conformance-testing");
	expect_not_found("test://nonexistent-resource-for-conformance-testing");
	ck_assert_int_eq(json_object_get_int(h_jp(resp.json, "id", NULL)), 1);
}
END_TEST

START_TEST(read_notfound_from_read_is_not_found)
{
	readuri("test://gone");
	expect_not_found("test://gone");
}
END_TEST

/* A read() refuses with its code and its sentence (issue 38). */
START_TEST(read_refuses_with_code_and_reason)
{
	readuri("test://refuse/..%2F..%2Fetc%2Fpasswd");
	expect_error(200, WYMCP__INVALID_PARAMS,
	    "Refused: '../../etc/passwd' has '..'");
	readuri("test://refuse/-32600");
	expect_error(200, WYMCP__INVALID_REQUEST, "Refused with -32600");
	readuri("test://refuse/-32007");
	expect_error(200, -32007, "Refused with -32007");
	readuri("test://refuse/-32603");
	expect_error(500, WYMCP__INTERNAL_ERROR, "Refused with -32603");
	/* 0 is invalid params; a code outside the spec's is -32603. */
	readuri("test://refuse/0");
	expect_error(200, WYMCP__INVALID_PARAMS, "Refused with 0");
	readuri("test://refuse/odd");
	expect_error(500, WYMCP__INTERNAL_ERROR, "odd code");
}
END_TEST

/* wymcp_contents_file(): a file's text, or its last lines. */
START_TEST(read_file_whole_and_tail)
{
	struct wymcp_ctx		 ctx;
	struct wymcp_resource_result	 rr;
	char				 path[] = "/tmp/check_resource.XXXXXX";
	int				 fd;

	ck_assert_int_ge(fd = mkstemp(path), 0);
	ck_assert_int_eq(write(fd, "a\nb\nc\n", 6), 6);
	close(fd);
	wymcp__ctx_init(&ctx, srv, NULL);
	memset(&rr, 0, sizeof(rr));
	rr.ctx = &ctx;
	rr.uri = "test://file";
	ck_assert_ptr_nonnull(rr.contents = json_object_new_array());
	ck_assert_int_eq(wymcp_contents_file(&rr, "text/plain", 2, "%s",
	    path), WYMCP_OK);
	ck_assert_int_eq(wymcp_contents_file(&rr, NULL, 0, "%s", path),
	    WYMCP_OK);
	ck_assert_int_eq(wymcp_contents_file(&rr, NULL, 5, "%s", path),
	    WYMCP_OK);
	ck_assert_str_eq(h_compact(rr.contents), "[{\"uri\":\"test://file\","
	    "\"mimeType\":\"text/plain\",\"text\":\"b\\nc\\n\"},{\"uri\":"
	    "\"test://file\",\"text\":\"a\\nb\\nc\\n\"},{\"uri\":"
	    "\"test://file\",\"text\":\"a\\nb\\nc\\n\"}]");
	unlink(path);
	ck_assert_int_eq(wymcp_contents_file(&rr, NULL, 0, "%s", path),
	    WYMCP_ERR_NOTFOUND);
	ck_assert_int_eq(wymcp_contents_file(&rr, NULL, 0, "%s", "/"),
	    WYMCP_ERR_IO);
	json_object_put(rr.contents);
	wymcp__ctx_free(&ctx);
}
END_TEST

START_TEST(read_without_contents_is_32603)
{
	readuri("test://empty");
	expect_error(500, WYMCP__INTERNAL_ERROR, NULL);
	ck_assert_ptr_null(h_jp(resp.json, "result", NULL));
	readuri("test://fails");
	expect_error(500, WYMCP__INTERNAL_ERROR, NULL);
}
END_TEST

START_TEST(read_uri_must_be_a_string)
{
	call("resources/read", NULL, "{}");
	expect_error(200, WYMCP__INVALID_PARAMS,
	    "Invalid params: uri must be a string");
	call("resources/read", NULL, "{\"uri\":5}");
	expect_error(200, WYMCP__INVALID_PARAMS,
	    "Invalid params: uri must be a string");
	/* Mcp-Name mirrors the uri (checked before the method runs). */
	call("resources/read", "test://other", "{\"uri\":\"test://empty\"}");
	expect_error(400, WYMCP__HEADER_MISMATCH, NULL);
}
END_TEST

/* Reads that ask the client. */

/* Read `uri` with _meta declaring elicitation and extra members. */
static void
read_round(const char *uri, const char *members)
{
	char	 params[16384];

	snprintf(params, sizeof(params), "{\"_meta\":" META_ELICIT
	    ",\"uri\":\"%s\"%s%s}", uri, members != NULL ? "," : "",
	    members != NULL ? members : "");
	call("resources/read", uri, params);
}

START_TEST(read_elicits_across_two_rounds)
{
	struct json_object	*r, *q;
	char			 state[4096], members[8192];

	read_round("test://ask", NULL);
	r = expect_result();
	ck_assert_str_eq(json_object_get_string(h_jp(r, "resultType", NULL)),
	    "input_required");
	q = h_jp(r, "inputRequests", "why", NULL);
	ck_assert_str_eq(json_object_get_string(h_jp(q, "method", NULL)),
	    "elicitation/create");
	ck_assert_str_eq(json_object_get_string(h_jp(q, "params", "message",
	    NULL)), "Why do you read this?");
	/* input_required is not cacheable: no hints. */
	ck_assert(!json_object_object_get_ex(r, "ttlMs", NULL));
	ck_assert(!json_object_object_get_ex(r, "cacheScope", NULL));
	ck_assert(!json_object_object_get_ex(r, "contents", NULL));
	snprintf(state, sizeof(state), "%s", json_object_get_string(h_jp(r,
	    "requestState", NULL)));
	ck_assert_uint_gt(strlen(state), 0);

	snprintf(members, sizeof(members), "\"inputResponses\":{\"why\":"
	    "{\"action\":\"accept\",\"content\":{\"reason\":\"curious\"}}},"
	    "\"requestState\":\"%s\"", state);
	read_round("test://ask", members);
	r = expect_result();
	ck_assert_str_eq(json_object_get_string(h_jp(r, "resultType", NULL)),
	    "complete");
	ck_assert_str_eq(read_text_of(), "test://ask: curious");
	/* A retry's result depends on the answers: ttlMs 0. */
	ck_assert_int_eq(json_object_get_int64(h_jp(r, "ttlMs", NULL)), 0);
	ck_assert_str_eq(json_object_get_string(h_jp(r, "cacheScope", NULL)),
	    "private");

	/* The state is bound to the URI: another resource refuses it. */
	read_round("test://ask-too", members);
	expect_error(200, WYMCP__INVALID_PARAMS, NULL);
	ck_assert_ptr_nonnull(strstr(json_object_get_string(h_jp(resp.json,
	    "error", "message", NULL)), "requestState"));
	/* ... and so is a template read to its URI. */
	read_round("test://ask/1", NULL);
	snprintf(state, sizeof(state), "%s", json_object_get_string(h_jp(
	    expect_result(), "requestState", NULL)));
	snprintf(members, sizeof(members), "\"inputResponses\":{\"why\":"
	    "{\"action\":\"accept\",\"content\":{\"reason\":\"r\"}}},"
	    "\"requestState\":\"%s\"", state);
	read_round("test://ask/2", members);
	expect_error(200, WYMCP__INVALID_PARAMS, NULL);
	read_round("test://ask/1", members);
	ck_assert_str_eq(read_text_of(), "test://ask/1: r");
}
END_TEST

START_TEST(read_answer_not_matching_schema_is_32602)
{
	char	 state[4096], members[8192];

	read_round("test://ask", NULL);
	snprintf(state, sizeof(state), "%s", json_object_get_string(h_jp(
	    expect_result(), "requestState", NULL)));
	snprintf(members, sizeof(members), "\"inputResponses\":{\"why\":"
	    "{\"action\":\"accept\",\"content\":{\"reason\":5}}},"
	    "\"requestState\":\"%s\"", state);
	read_round("test://ask", members);
	expect_error(200, WYMCP__INVALID_PARAMS, NULL);
}
END_TEST

START_TEST(read_without_elicitation_capability_fails)
{
	/* wymcp_elicit_key() says NOTSUP; read_ask passes it up: -32603. */
	readuri("test://ask");
	expect_error(500, WYMCP__INTERNAL_ERROR, NULL);
}
END_TEST

START_TEST(read_ttl_is_the_modules)
{
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod_minute), WYMCP_OK);
	readuri("test://minute");
	ck_assert_int_eq(json_object_get_int64(h_jp(expect_result(), "ttlMs",
	    NULL)), 60000);
	/* The list spans both modules: the smallest ttl. */
	call("resources/list", NULL, NULL);
	ck_assert_int_eq(json_object_get_int64(h_jp(expect_result(), "ttlMs",
	    NULL)), 60000);
	call("resources/templates/list", NULL, NULL);
	ck_assert_int_eq(json_object_get_int64(h_jp(expect_result(), "ttlMs",
	    NULL)), 300000);
}
END_TEST

/* Registration. */

static enum wymcp_err
tool_ok(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_add(res, wymcp_text(ctx, "ok"));
}

static enum wymcp_err
get_ok(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_prompt_result *res)
{
	return wymcp_prompt_message(res, "user", wymcp_text(ctx, "ok"));
}

static const struct wymcp_tool one_tool[] = {
	{ .name = "a_tool", .description = "A tool.", .run = tool_ok },
	{ .name = NULL }
};

/*
 * Try to register one module with a good resource, a good tool and
 * `bad` resource (fixed or template) after them: it must fail with `rc`
 * and an errmsg containing `part`, and leave nothing registered.
 */
static void
refused(const char *uri, const char *name, wymcp_read_fn fn, int template,
    enum wymcp_err rc, const char *part)
{
	struct wymcp_resource	 fixed[3], tpl[3];
	struct wymcp_module	 m;
	enum wymcp_err		 got;

	memset(fixed, 0, sizeof(fixed));
	memset(tpl, 0, sizeof(tpl));
	fixed[0].uri = "test://good";
	fixed[0].name = "good";
	fixed[0].read = read_text;
	tpl[0].uri = "test://good/{x}";
	tpl[0].name = "good";
	tpl[0].read = read_vars;
	if (template) {
		tpl[1].uri = uri;
		tpl[1].name = name;
		tpl[1].read = fn;
	} else {
		fixed[1].uri = uri;
		fixed[1].name = name;
		fixed[1].read = fn;
	}
	memset(&m, 0, sizeof(m));
	m.abi = WYMCP_ABI_VERSION;
	m.size = sizeof(m);
	m.resource_size = sizeof(struct wymcp_resource);
	m.prompt_size = sizeof(struct wymcp_prompt);
	m.prompt_arg_size = sizeof(struct wymcp_prompt_arg);
	m.name = "bad";
	m.tools = one_tool;
	m.resources = fixed;
	m.templates = tpl;
	got = wymcp_server_add_module(srv, &m);
	ck_assert_msg(got == rc, "%s: rc %d, want %d (%s)", uri, got, rc,
	    wymcp_server_errmsg(srv));
	ck_assert_msg(strstr(wymcp_server_errmsg(srv), part) != NULL,
	    "%s: '%s' lacks '%s'", uri, wymcp_server_errmsg(srv), part);
	ck_assert_uint_eq(srv->nresources, 0);
	ck_assert_uint_eq(srv->ntemplates, 0);
	ck_assert_uint_eq(srv->ntools, 0);
	ck_assert_uint_eq(srv->nmods, 0);
	/* And nothing is offered. */
	call("resources/list", NULL, NULL);
	expect_error(404, WYMCP__METHOD_NOT_FOUND, NULL);
}

START_TEST(register_refuses_uri_without_scheme)
{
	refused("no-scheme", "x", read_text, 0, WYMCP_ERR_INVAL, "scheme");
	refused("1abc:x", "x", read_text, 0, WYMCP_ERR_INVAL, "scheme");
	refused("://x", "x", read_text, 0, WYMCP_ERR_INVAL, "scheme");
	refused("te_st://x", "x", read_text, 0, WYMCP_ERR_INVAL, "scheme");
	refused("", "x", read_text, 0, WYMCP_ERR_INVAL, "scheme");
	refused("{x}://y", "x", read_vars, 1, WYMCP_ERR_INVAL, "scheme");
	refused("/{x}", "x", read_vars, 1, WYMCP_ERR_INVAL, "scheme");
}
END_TEST

START_TEST(register_refuses_bad_uri_characters)
{
	refused("test://a b", "x", read_text, 0, WYMCP_ERR_INVAL,
	    "not allowed");
	refused("test://a\tb", "x", read_text, 0, WYMCP_ERR_INVAL,
	    "control");
	refused("test://a%zz", "x", read_text, 0, WYMCP_ERR_INVAL,
	    "percent-encoded");
	refused("test://a%2", "x", read_text, 0, WYMCP_ERR_INVAL,
	    "percent-encoded");
	refused("test://\xff", "x", read_text, 0, WYMCP_ERR_INVAL, "UTF-8");
	/* A template in the fixed table is pointed at templates. */
	refused("test://user/{id}", "x", read_text, 0, WYMCP_ERR_INVAL,
	    "templates");
}
END_TEST

START_TEST(register_refuses_bad_template_syntax)
{
	static const struct {
		const char	*tpl, *part;
	} bad[] = {
		{ "test://s{?q}", "operator '?'" },
		{ "test://s/{#frag}", "operator '#'" },
		{ "test://s/{/p}", "operator '/'" },
		{ "test://s/{.ext}", "operator '.'" },
		{ "test://s/{;p}", "operator ';'" },
		{ "test://s/{&p}", "operator '&'" },
		{ "test://s/{a,b}", "variable lists" },
		{ "test://s/{a:3}", "modifiers" },
		{ "test://s/{a*}", "modifiers" },
		{ "test://s/{}", "empty expression" },
		{ "test://s/{+}", "not a variable name" },
		{ "test://s/{a", "without '}'" },
		{ "test://s/{a{b}", "without '}'" },
		{ "test://s/a}", "without '{'" },
		{ "test://s/{a}{b}", "literal text between" },
		{ "test://s/{a}/{a}", "twice" },
		{ "test://s/{a b}", "not a variable name" },
		{ "test://s/{a-b}", "not a variable name" },
		{ "test://s/{a.}", "not a variable name" },
		{ "test://s/{a..b}", "not a variable name" },
		{ "test://s/{a}<x", "not allowed" },
	};
	size_t	 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		refused(bad[i].tpl, "t", read_vars, 1, WYMCP_ERR_INVAL,
		    bad[i].part);
	/* And the errmsg names the template. */
	refused("test://s{?q}", "t", read_vars, 1, WYMCP_ERR_INVAL,
	    "template 'test://s{?q}'");
}
END_TEST

START_TEST(register_accepts_template_forms)
{
	static const struct wymcp_resource ok[] = {
		{ .uri = "test://s/{a.b}/{c_1}/{%41}", .name = "dots",
		    .read = read_vars },
		{ .uri = "test://s/{+a}x{b}", .name = "mixed",
		    .read = read_vars },
		{ .uri = "test://plain", .name = "plain", .read = read_vars },
		{ .uri = NULL }
	};
	struct wymcp_module	 m;

	memset(&m, 0, sizeof(m));
	m.abi = WYMCP_ABI_VERSION;
	m.size = sizeof(m);
	m.resource_size = sizeof(struct wymcp_resource);
	m.prompt_size = sizeof(struct wymcp_prompt);
	m.prompt_arg_size = sizeof(struct wymcp_prompt_arg);
	m.name = "ok";
	m.templates = ok;
	ck_assert_msg(wymcp_server_add_module(srv, &m) == WYMCP_OK, "%s",
	    wymcp_server_errmsg(srv));
	ck_assert_uint_eq(srv->ntemplates, 3);
	readuri("test://s/1/2/3");
	ck_assert_str_eq(read_text_of(),
	    "{\"a.b\":\"1\",\"c_1\":\"2\",\"%41\":\"3\"}");
	/* A template without expressions matches its text only. */
	readuri("test://plain");
	ck_assert_str_eq(read_text_of(), "{}");
}
END_TEST

START_TEST(register_refuses_missing_name_or_read)
{
	refused("test://x", NULL, read_text, 0, WYMCP_ERR_INVAL, "name");
	refused("test://x", "", read_text, 0, WYMCP_ERR_INVAL, "name");
	refused("test://x", "x", NULL, 0, WYMCP_ERR_INVAL, "read function");
	refused("test://x/{y}", "x", NULL, 1, WYMCP_ERR_INVAL,
	    "read function");
}
END_TEST

START_TEST(register_refuses_duplicates)
{
	/* Within the module. */
	refused("test://good", "again", read_text, 0, WYMCP_ERR_DUP,
	    "already registered");
	refused("test://good/{x}", "again", read_vars, 1, WYMCP_ERR_DUP,
	    "already registered");
	/* Across modules: the first stays, the second adds nothing. */
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod), WYMCP_OK);
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod), WYMCP_ERR_DUP);
	ck_assert_uint_eq(srv->nresources, 10);
	ck_assert_uint_eq(srv->ntemplates, 8);
	ck_assert_uint_eq(srv->nmods, 1);
	call("resources/list", NULL, NULL);
	ck_assert_uint_eq(json_object_array_length(h_jp(expect_result(),
	    "resources", NULL)), 10);
	/* The same URI as a fixed resource and as a template is no clash. */
}
END_TEST

/*
 * All or nothing across the kinds: a module whose prompt is bad keeps
 * none of its resources, templates or tools.
 */
START_TEST(register_all_or_nothing_with_prompts)
{
	static const struct wymcp_prompt bad_prompts[] = {
		{ .name = "fine", .description = "Fine.", .get = get_ok },
		{ .name = "no_description", .get = get_ok },
		{ .name = NULL }
	};
	struct wymcp_module	 m;
	struct json_object	*c;

	memset(&m, 0, sizeof(m));
	m.abi = WYMCP_ABI_VERSION;
	m.size = sizeof(m);
	m.resource_size = sizeof(struct wymcp_resource);
	m.prompt_size = sizeof(struct wymcp_prompt);
	m.prompt_arg_size = sizeof(struct wymcp_prompt_arg);
	m.name = "mixed";
	m.tools = one_tool;
	m.resources = resources;
	m.templates = templates;
	m.prompts = bad_prompts;
	ck_assert_int_eq(wymcp_server_add_module(srv, &m), WYMCP_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(wymcp_server_errmsg(srv),
	    "description"));
	ck_assert_uint_eq(srv->nresources + srv->ntemplates + srv->nprompts +
	    srv->ntools + srv->ncompleters, 0);
	call("server/discover", NULL, NULL);
	c = h_jp(expect_result(), "capabilities", NULL);
	ck_assert_ptr_null(h_jp(c, "resources", NULL));
	ck_assert_ptr_null(h_jp(c, "prompts", NULL));
	ck_assert_ptr_null(h_jp(c, "completions", NULL));
	/* The good module still registers afterwards. */
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod), WYMCP_OK);
	readuri("test://template/7/data");
	ck_assert_str_eq(read_text_of(), "{\"id\":\"7\"}");
}
END_TEST

static Suite *
resource_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("resource");
	tc = tcase_create("list");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, resources_list_shape_and_order);
	tcase_add_test(tc, templates_list_shape_and_order);
	suite_add_tcase(s, tc);

	tc = tcase_create("read");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, read_exact_text);
	tcase_add_test(tc, read_exact_blob);
	tcase_add_test(tc, read_several_contents);
	tcase_add_test(tc, contents_builders_refuse_bad_input);
	tcase_add_test(tc, read_template_one_variable);
	tcase_add_test(tc, read_template_two_variables);
	tcase_add_test(tc, read_template_percent_decoding);
	tcase_add_test(tc, read_template_reserved_expansion);
	tcase_add_test(tc, read_template_matching_is_bounded);
	tcase_add_test(tc, read_unknown_uri_is_not_found);
	tcase_add_test(tc, read_notfound_from_read_is_not_found);
	tcase_add_test(tc, read_refuses_with_code_and_reason);
	tcase_add_test(tc, read_file_whole_and_tail);
	tcase_add_test(tc, read_without_contents_is_32603);
	tcase_add_test(tc, read_uri_must_be_a_string);
	tcase_add_test(tc, read_ttl_is_the_modules);
	suite_add_tcase(s, tc);

	tc = tcase_create("elicit");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, read_elicits_across_two_rounds);
	tcase_add_test(tc, read_answer_not_matching_schema_is_32602);
	tcase_add_test(tc, read_without_elicitation_capability_fails);
	suite_add_tcase(s, tc);

	tc = tcase_create("register");
	tcase_add_checked_fixture(tc, setup_empty, teardown);
	tcase_add_test(tc, register_refuses_uri_without_scheme);
	tcase_add_test(tc, register_refuses_bad_uri_characters);
	tcase_add_test(tc, register_refuses_bad_template_syntax);
	tcase_add_test(tc, register_accepts_template_forms);
	tcase_add_test(tc, register_refuses_missing_name_or_read);
	tcase_add_test(tc, register_refuses_duplicates);
	tcase_add_test(tc, register_all_or_nothing_with_prompts);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	sr = srunner_create(resource_suite());
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
