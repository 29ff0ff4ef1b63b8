/*
 * check_xheader.c - x-mcp-header at load time, Mcp-Param-* per request
 *
 * The load-time half registers one-tool modules and checks that every
 * constraint of streamable-http.mdx "Schema Extension" (and tools.mdx
 * "x-mcp-header") refuses the module with a message naming the tool
 * and the place.  The per-request half serves tools/call through the
 * whole pipeline (t/lib/harness.c) against tool "custom", including
 * the cases of the conformance scenario
 * http-custom-header-server-validation and the order of the checks it
 * observes.
 *
 * Header names are case-insensitive (streamable-http.mdx "Case
 * Sensitivity").  Under CGI that costs nothing: the web server hands
 * every request header over as HTTP_<NAME>, upper-cased with '-' made
 * '_' (RFC 3875 4.1.18), so "mcp-param-region", "MCP-PARAM-REGION" and
 * "Mcp-Param-Region" all arrive as HTTP_MCP_PARAM_REGION.  The tests
 * therefore only ever set the upper-case param.
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

#define CUSTOM_SCHEMA "{\"type\":\"object\",\"properties\":{"		\
	"\"region\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"},"	\
	"\"count\":{\"type\":\"integer\",\"x-mcp-header\":\"Count\"},"	\
	"\"flag\":{\"type\":\"boolean\",\"x-mcp-header\":\"Flag\"},"	\
	"\"nested\":{\"type\":\"object\",\"properties\":{"		\
	"\"zone\":{\"type\":\"string\",\"x-mcp-header\":\"Zone\"}}},"	\
	"\"query\":{\"type\":\"string\"}}}"

static struct wymcp_server	*srv;
static struct h_resp		 resp;

/* Tools answer with their arguments, so a test sees what ran. */
static enum wymcp_err
echo_args(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_add(res, wymcp_json(ctx, args));
}

static const struct wymcp_tool custom_tools[] = {
	{
		.name = "custom",
		.description = "Mirrors region, count, flag and nested.zone.",
		.input_schema = CUSTOM_SCHEMA,
		.run = echo_args,
	},
	{
		.name = "plain",
		.description = "No x-mcp-header at all.",
		.input_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"region\":{\"type\":\"string\"}}}",
		.run = echo_args,
	},
	{
		.name = "odd",
		.description = "An x-mcp-header in mixed case.",
		.input_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"r\":{\"type\":\"string\",\"x-mcp-header\":\"rEgIoN\"}}}",
		.run = echo_args,
	},
	{ .name = NULL }
};

static const struct wymcp_module custom_mod = {
	.abi = WYMCP_ABI_VERSION,
	.size = sizeof(struct wymcp_module),
	.name = "xheader",
	.tools = custom_tools,
	.tool_size = sizeof(struct wymcp_tool)
};

static void
setup(void)
{
	memset(&resp, 0, sizeof(resp));
	srv = wymcp_server_new();
	ck_assert_ptr_nonnull(srv);
	ck_assert_msg(wymcp_server_add_module(srv, &custom_mod) == WYMCP_OK,
	    "%s", wymcp_server_errmsg(srv));
}

static void
teardown(void)
{
	h_free(&resp);
	wymcp_server_free(srv);
	srv = NULL;
}

/*
 * Load-time helpers: register a one-tool module with this inputSchema
 * on a fresh server.  The server stays in `srv` (freed by teardown).
 */
static struct wymcp_tool	 one_tool[2];
static struct wymcp_module	 one_mod;
static char			 logged[2048];

static void
keep_log(void *arg, int prio, const char *reqid, const char *msg)
{
	if (prio == WYMCP_LOG_WARNING)
		snprintf(logged, sizeof(logged), "%s", msg);
}

static enum wymcp_err
load(const char *schema)
{
	wymcp_server_free(srv);
	srv = wymcp_server_new();
	ck_assert_ptr_nonnull(srv);
	logged[0] = '\0';
	wymcp_server_set_log(srv, keep_log, NULL, WYMCP_LOG_DEBUG);
	memset(one_tool, 0, sizeof(one_tool));
	one_tool[0].name = "t";
	one_tool[0].description = "A tool under test.";
	one_tool[0].input_schema = schema;
	one_tool[0].run = echo_args;
	memset(&one_mod, 0, sizeof(one_mod));
	one_mod.abi = WYMCP_ABI_VERSION;
	one_mod.size = sizeof(one_mod);
	one_mod.name = "one";
	one_mod.tools = one_tool;
	return wymcp_server_add_module(srv, &one_mod);
}

/* The schema loads; returns the registered tool. */
static const struct wymcp__tool *
load_ok(const char *schema)
{
	enum wymcp_err	 rc;

	rc = load(schema);
	ck_assert_msg(rc == WYMCP_OK, "refused %s: %s", schema,
	    wymcp_server_errmsg(srv));
	ck_assert_uint_eq(srv->ntools, 1);
	return &srv->tools[0];
}

/* The schema is refused as WYMCP_ERR_SCHEMA with all the parts. */
static void
load_refused(const char *schema, ...)
{
	va_list		 ap;
	const char	*part, *msg;
	enum wymcp_err	 rc;

	rc = load(schema);
	msg = wymcp_server_errmsg(srv);
	ck_assert_msg(rc == WYMCP_ERR_SCHEMA, "rc %d for %s (%s)", rc,
	    schema, msg);
	ck_assert_uint_eq(srv->ntools, 0);
	ck_assert_msg(strncmp(msg, "tool t: x-mcp-header at inputSchema",
	    35) == 0, "'%s'", msg);
	va_start(ap, schema);
	while ((part = va_arg(ap, const char *)) != NULL)
		ck_assert_msg(strstr(msg, part) != NULL, "'%s' lacks '%s'",
		    msg, part);
	va_end(ap);
}

/* {"type":"object","properties":{"p":<prop>}} */
static const char *
with_prop(const char *prop)
{
	static char	 buf[1024];

	snprintf(buf, sizeof(buf), "{\"type\":\"object\",\"properties\":"
	    "{\"p\":%s}}", prop);
	return buf;
}

/* Serve one tools/call of `tool` with these arguments and params. */
static void
call(const char *tool, const char *args, ...)
{
	const char	*extra[16], *p;
	char		 params[2048];
	size_t		 n = 0;
	va_list		 ap;

	va_start(ap, args);
	while ((p = va_arg(ap, const char *)) != NULL && n < 15)
		extra[n++] = p;
	va_end(ap);
	extra[n] = NULL;
	if (args != NULL)
		snprintf(params, sizeof(params), "{\"name\":\"%s\","
		    "\"arguments\":%s}", tool, args);
	else
		snprintf(params, sizeof(params), "{\"name\":\"%s\"}", tool);
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, "tools/call", tool, params, extra,
	    &resp), WYMCP_OK);
	ck_assert_ptr_nonnull(resp.headers);
}

/* A raw POST: the standard headers for tools/call of "custom", then env. */
static void
post(const char *body, ...)
{
	const char	*env[32], *p;
	char		 cl[64];
	size_t		 n = 0;
	va_list		 ap;

	snprintf(cl, sizeof(cl), "CONTENT_LENGTH=%zu", strlen(body));
	env[n++] = "REQUEST_METHOD=POST";
	env[n++] = "CONTENT_TYPE=application/json";
	env[n++] = "HTTP_HOST=localhost";
	env[n++] = cl;
	va_start(ap, body);
	while ((p = va_arg(ap, const char *)) != NULL && n < 31)
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
	struct json_object	*e, *m;

	if (resp.json == NULL ||
	    !json_object_object_get_ex(resp.json, "error", &e) ||
	    !json_object_object_get_ex(e, "message", &m))
		return "";
	return json_object_get_string(m);
}

/* 200 and a tools/call result (not an error). */
static void
accepted(void)
{
	ck_assert_msg(resp.status == 200 && h_result(&resp) != NULL &&
	    h_code(&resp) == 0, "status %d: %s", resp.status, resp.body);
}

/* 400 and -32020, with `part` in the message when not NULL. */
static void
mismatch(const char *part)
{
	ck_assert_msg(resp.status == 400, "status %d: %s", resp.status,
	    resp.body);
	ck_assert_msg(h_code(&resp) == -32020, "code %d: %s", h_code(&resp),
	    resp.body);
	if (part != NULL)
		ck_assert_msg(strstr(message(), part) != NULL,
		    "'%s' lacks '%s'", message(), part);
}

/* --- load time: where an annotation may be ---------------------------- */

START_TEST(load_without_annotations_allocates_nothing)
{
	const struct wymcp__tool *t;

	t = load_ok("{\"type\":\"object\",\"properties\":{\"a\":"
	    "{\"type\":\"string\"}}}");
	ck_assert_uint_eq(t->nxparams, 0);
	ck_assert_ptr_null(t->xparams);
	t = load_ok("{\"type\":\"object\"}");
	ck_assert_uint_eq(t->nxparams, 0);
	ck_assert_ptr_null(t->xparams);
}
END_TEST

START_TEST(load_records_path_header_param_and_type)
{
	const struct wymcp__tool *t = &srv->tools[0];

	ck_assert_str_eq(t->def->name, "custom");
	ck_assert_uint_eq(t->nxparams, 4);
	ck_assert_uint_eq(t->xparams[0].npath, 1);
	ck_assert_str_eq(t->xparams[0].path[0], "region");
	ck_assert_str_eq(t->xparams[0].header, "Region");
	ck_assert_str_eq(t->xparams[0].param, "HTTP_MCP_PARAM_REGION");
	ck_assert_int_eq(t->xparams[0].type, json_type_string);
	ck_assert_int_eq(t->xparams[1].type, json_type_int);
	ck_assert_int_eq(t->xparams[2].type, json_type_boolean);
	ck_assert_uint_eq(t->xparams[3].npath, 2);
	ck_assert_str_eq(t->xparams[3].path[0], "nested");
	ck_assert_str_eq(t->xparams[3].path[1], "zone");
	ck_assert_str_eq(t->xparams[3].param, "HTTP_MCP_PARAM_ZONE");
	ck_assert_uint_eq(srv->tools[1].nxparams, 0);
	ck_assert_ptr_null(srv->tools[1].xparams);
}
END_TEST

START_TEST(load_accepts_nested_properties_chain)
{
	const struct wymcp__tool *t;

	t = load_ok("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
	    "\"object\",\"properties\":{\"b\":{\"type\":\"object\","
	    "\"properties\":{\"c\":{\"type\":\"integer\",\"x-mcp-header\":"
	    "\"Deep-C\"}}}}}}}");
	ck_assert_uint_eq(t->nxparams, 1);
	ck_assert_uint_eq(t->xparams[0].npath, 3);
	ck_assert_str_eq(t->xparams[0].path[0], "a");
	ck_assert_str_eq(t->xparams[0].path[1], "b");
	ck_assert_str_eq(t->xparams[0].path[2], "c");
	ck_assert_str_eq(t->xparams[0].param, "HTTP_MCP_PARAM_DEEP_C");
}
END_TEST

START_TEST(load_refuses_annotation_off_the_properties_chain)
{
	static const struct {
		const char	*schema;
		const char	*via;
		const char	*where;
	} c[] = {
		{ "{\"type\":\"object\",\"properties\":{\"l\":{\"type\":"
		  "\"array\",\"items\":{\"type\":\"string\",\"x-mcp-header\":"
		  "\"L\"}}}}", "\"items\"", "inputSchema/properties/l/items:" },
		{ "{\"type\":\"object\",\"properties\":{\"l\":{\"type\":"
		  "\"array\",\"prefixItems\":[{\"type\":\"string\","
		  "\"x-mcp-header\":\"L\"}]}}}", "\"prefixItems\"",
		  "/properties/l/prefixItems/0:" },
		{ "{\"type\":\"object\",\"anyOf\":[{\"properties\":{\"a\":"
		  "{\"type\":\"string\",\"x-mcp-header\":\"A\"}}}]}",
		  "\"anyOf\"", "inputSchema/anyOf/0/properties/a:" },
		{ "{\"type\":\"object\",\"oneOf\":[{},{\"properties\":{\"a\":"
		  "{\"type\":\"string\",\"x-mcp-header\":\"A\"}}}]}",
		  "\"oneOf\"", "/oneOf/1/properties/a:" },
		{ "{\"type\":\"object\",\"properties\":{\"a\":{\"allOf\":[{"
		  "\"type\":\"string\",\"x-mcp-header\":\"A\"}]}}}",
		  "\"allOf\"", "/properties/a/allOf/0:" },
		{ "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
		  "\"string\",\"not\":{\"x-mcp-header\":\"A\"}}}}",
		  "\"not\"", "/properties/a/not:" },
		{ "{\"type\":\"object\",\"if\":{\"properties\":{\"a\":{"
		  "\"type\":\"string\",\"x-mcp-header\":\"A\"}}}}",
		  "\"if\"", "inputSchema/if/properties/a:" },
		{ "{\"type\":\"object\",\"then\":{\"properties\":{\"a\":{"
		  "\"type\":\"string\",\"x-mcp-header\":\"A\"}}}}",
		  "\"then\"", "inputSchema/then/properties/a:" },
		{ "{\"type\":\"object\",\"else\":{\"properties\":{\"a\":{"
		  "\"type\":\"string\",\"x-mcp-header\":\"A\"}}}}",
		  "\"else\"", "inputSchema/else/properties/a:" },
		{ "{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":"
		  "\"#/$defs/r\"}},\"$defs\":{\"r\":{\"type\":\"string\","
		  "\"x-mcp-header\":\"R\"}}}", "\"$defs\"",
		  "inputSchema/$defs/r:" },
		{ "{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":"
		  "\"#/definitions/r\"}},\"definitions\":{\"r\":{\"type\":"
		  "\"string\",\"x-mcp-header\":\"R\"}}}", "\"definitions\"",
		  "inputSchema/definitions/r:" },
		{ "{\"type\":\"object\",\"additionalProperties\":{\"type\":"
		  "\"string\",\"x-mcp-header\":\"X\"}}",
		  "\"additionalProperties\"",
		  "inputSchema/additionalProperties:" },
		{ "{\"type\":\"object\",\"patternProperties\":{\"^x\":{"
		  "\"type\":\"string\",\"x-mcp-header\":\"X\"}}}",
		  "\"patternProperties\"",
		  "inputSchema/patternProperties/^x:" },
		{ "{\"type\":\"object\",\"dependentSchemas\":{\"a\":{"
		  "\"properties\":{\"b\":{\"type\":\"string\",\"x-mcp-header\":"
		  "\"B\"}}}}}", "\"dependentSchemas\"",
		  "inputSchema/dependentSchemas/a/properties/b:" },
		{ "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
		  "\"object\",\"unevaluatedProperties\":{\"type\":\"string\","
		  "\"x-mcp-header\":\"U\"}}}}",
		  "\"unevaluatedProperties\"",
		  "/properties/a/unevaluatedProperties:" },
		{ "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
		  "\"array\",\"contains\":{\"type\":\"string\","
		  "\"x-mcp-header\":\"C\"}}}}", "\"contains\"",
		  "/properties/a/contains:" },
		{ "{\"type\":\"object\",\"x-vendor\":{\"properties\":{\"a\":{"
		  "\"type\":\"string\",\"x-mcp-header\":\"A\"}}}}",
		  "\"x-vendor\"", "inputSchema/x-vendor/properties/a:" },
	};
	size_t	 i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		load_refused(c[i].schema, "not statically reachable",
		    c[i].via, c[i].where, (char *)NULL);
}
END_TEST

START_TEST(load_refuses_annotation_on_root)
{
	load_refused("{\"type\":\"object\",\"x-mcp-header\":\"Root\"}",
	    "inputSchema: the root schema is not a property", (char *)NULL);
}
END_TEST

START_TEST(load_ignores_x_mcp_header_as_data_or_property_name)
{
	const struct wymcp__tool *t;

	/* enum, const, default, examples hold data, not schemas. */
	t = load_ok("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
	    "\"object\",\"default\":{\"x-mcp-header\":\"D\"},"
	    "\"examples\":[{\"x-mcp-header\":\"E\"}],"
	    "\"enum\":[{\"x-mcp-header\":\"N\"}],"
	    "\"const\":{\"x-mcp-header\":\"C\"}}}}");
	ck_assert_uint_eq(t->nxparams, 0);
	/* A property may be named x-mcp-header, anywhere. */
	t = load_ok("{\"type\":\"object\",\"properties\":{\"x-mcp-header\":"
	    "{\"type\":\"string\"}},\"$defs\":{\"x-mcp-header\":{}},"
	    "\"items\":{\"properties\":{\"x-mcp-header\":{}}}}");
	ck_assert_uint_eq(t->nxparams, 0);
	/* Boolean subschemas are fine. */
	t = load_ok("{\"type\":\"object\",\"properties\":{\"a\":true},"
	    "\"additionalProperties\":false}");
	ck_assert_uint_eq(t->nxparams, 0);
}
END_TEST

START_TEST(load_refusal_escapes_pointer_and_names_tool)
{
	load_refused("{\"type\":\"object\",\"properties\":{\"a/b~c\":{"
	    "\"type\":\"number\",\"x-mcp-header\":\"A\"}}}",
	    "inputSchema/properties/a~1b~0c:", (char *)NULL);
}
END_TEST

/* --- load time: the value ------------------------------------------------ */

START_TEST(load_refuses_empty_value)
{
	load_refused(with_prop("{\"type\":\"string\",\"x-mcp-header\":\"\"}"),
	    "/properties/p:", "must not be empty", (char *)NULL);
}
END_TEST

START_TEST(load_refuses_non_string_value)
{
	load_refused(with_prop("{\"type\":\"string\",\"x-mcp-header\":42}"),
	    "must be a string", (char *)NULL);
	load_refused(with_prop("{\"type\":\"string\",\"x-mcp-header\":"
	    "null}"), "must be a string", (char *)NULL);
	load_refused(with_prop("{\"type\":\"string\",\"x-mcp-header\":"
	    "[\"A\"]}"), "must be a string", (char *)NULL);
}
END_TEST

START_TEST(load_refuses_non_token_characters)
{
	static const char *const bad[] = {
		"A B", "A:B", "A(B", "A)B", "A/B", "A@B", "A,B", "A;B",
		"A=B", "A?B", "A[B", "A]B", "A{B", "A}B", "A\\\"B", "A\\\\B",
		"A<B", "A>B"
	};
	char	 prop[128];
	size_t	 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(prop, sizeof(prop), "{\"type\":\"string\","
		    "\"x-mcp-header\":\"%s\"}", bad[i]);
		load_refused(with_prop(prop), "not an RFC 9110 token character",
		    (char *)NULL);
	}
	/* Non-ASCII: the byte is named, never echoed. */
	load_refused(with_prop("{\"type\":\"string\",\"x-mcp-header\":"
	    "\"Stra\\u00dfe\"}"), "the byte 0xc3", (char *)NULL);
}
END_TEST

START_TEST(load_refuses_control_characters)
{
	load_refused(with_prop("{\"type\":\"string\",\"x-mcp-header\":"
	    "\"A\\r\\nB\"}"), "control character 0x0d", (char *)NULL);
	load_refused(with_prop("{\"type\":\"string\",\"x-mcp-header\":"
	    "\"A\\tB\"}"), "control character 0x09", (char *)NULL);
	load_refused(with_prop("{\"type\":\"string\",\"x-mcp-header\":"
	    "\"A\\u0000B\"}"), "control character 0x00", (char *)NULL);
	load_refused(with_prop("{\"type\":\"string\",\"x-mcp-header\":"
	    "\"A\\u007fB\"}"), "control character 0x7f", (char *)NULL);
}
END_TEST

START_TEST(load_accepts_every_tchar)
{
	const struct wymcp__tool *t;

	t = load_ok(with_prop("{\"type\":\"string\",\"x-mcp-header\":"
	    "\"Az09!#$%&'*+-.^_`|~\"}"));
	ck_assert_uint_eq(t->nxparams, 1);
	ck_assert_str_eq(t->xparams[0].param,
	    "HTTP_MCP_PARAM_AZ09!#$%&'*+_.^_`|~");
	/* Legal, but web servers drop such names: a warning says so. */
	ck_assert_msg(strstr(logged, "may never arrive") != NULL, "'%s'",
	    logged);
	/* Letters, digits and '-' warn of nothing. */
	load_ok(with_prop("{\"type\":\"string\",\"x-mcp-header\":"
	    "\"Tenant-Id-2\"}"));
	ck_assert_str_eq(logged, "");
}
END_TEST

START_TEST(load_refuses_case_insensitive_duplicate)
{
	load_refused("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
	    "\"string\",\"x-mcp-header\":\"Region\"},\"b\":{\"type\":"
	    "\"string\",\"x-mcp-header\":\"rEGION\"}}}",
	    "inputSchema/properties/b:", "\"rEGION\" is not unique",
	    "inputSchema/properties/a has \"Region\"", (char *)NULL);
	/* Across nesting levels too. */
	load_refused("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
	    "\"string\",\"x-mcp-header\":\"Z\"},\"n\":{\"type\":\"object\","
	    "\"properties\":{\"z\":{\"type\":\"string\",\"x-mcp-header\":"
	    "\"z\"}}}}}", "inputSchema/properties/n/properties/z:",
	    "not unique", (char *)NULL);
}
END_TEST

START_TEST(load_refuses_cgi_param_collision)
{
	load_refused("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
	    "\"string\",\"x-mcp-header\":\"Foo-Bar\"},\"b\":{\"type\":"
	    "\"string\",\"x-mcp-header\":\"foo_bar\"}}}",
	    "\"foo_bar\" collides with \"Foo-Bar\"",
	    "HTTP_MCP_PARAM_FOO_BAR", (char *)NULL);
}
END_TEST

/* --- load time: the type ---------------------------------------------- */

START_TEST(load_refuses_non_primitive_type)
{
	static const char *const bad[] = {
		"number", "array", "object", "null"
	};
	char	 prop[128];
	size_t	 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(prop, sizeof(prop), "{\"type\":\"%s\","
		    "\"x-mcp-header\":\"P\"}", bad[i]);
		load_refused(with_prop(prop), "not \"", bad[i], (char *)NULL);
	}
}
END_TEST

START_TEST(load_refuses_type_list_or_missing_type)
{
	load_refused(with_prop("{\"type\":[\"string\",\"null\"],"
	    "\"x-mcp-header\":\"P\"}"), "not a list of types", (char *)NULL);
	load_refused(with_prop("{\"type\":[\"string\"],"
	    "\"x-mcp-header\":\"P\"}"), "not a list of types", (char *)NULL);
	load_refused(with_prop("{\"x-mcp-header\":\"P\"}"),
	    "needs \"type\"", (char *)NULL);
	load_refused(with_prop("{\"enum\":[\"a\"],\"x-mcp-header\":\"P\"}"),
	    "needs \"type\"", (char *)NULL);
}
END_TEST

START_TEST(load_accepts_integer_bounds_beyond_safe_range)
{
	const struct wymcp__tool *t;

	t = load_ok(with_prop("{\"type\":\"integer\",\"minimum\":-1e300,"
	    "\"maximum\":9223372036854775807,\"x-mcp-header\":\"N\"}"));
	ck_assert_uint_eq(t->nxparams, 1);
	ck_assert_int_eq(t->xparams[0].type, json_type_int);
}
END_TEST

START_TEST(load_refusal_keeps_no_tool_of_the_module)
{
	static const struct wymcp_tool two[] = {
		{ .name = "good", .description = "Fine.",
		  .input_schema = "{\"type\":\"object\",\"properties\":{\"a\":"
		  "{\"type\":\"string\",\"x-mcp-header\":\"A\"}}}",
		  .run = echo_args },
		{ .name = "bad", .description = "Not fine.",
		  .input_schema = "{\"type\":\"object\",\"properties\":{\"a\":"
		  "{\"type\":\"number\",\"x-mcp-header\":\"A\"}}}",
		  .run = echo_args },
		{ .name = NULL }
	};
	static const struct wymcp_module m = {
		.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
		.name = "two", .tools = two,
		.tool_size = sizeof(struct wymcp_tool)
	};
	size_t	 before = srv->ntools;

	ck_assert_int_eq(wymcp_server_add_module(srv, &m), WYMCP_ERR_SCHEMA);
	ck_assert_uint_eq(srv->ntools, before);
	ck_assert_msg(strncmp(wymcp_server_errmsg(srv), "tool bad: ", 10) ==
	    0, "%s", wymcp_server_errmsg(srv));
}
END_TEST

/* --- per request: the conformance cases (fixtures 6.3) ---------------- */

START_TEST(param_valid_base64_is_decoded)
{
	call("custom", "{\"region\":\"Hello\"}",
	    "HTTP_MCP_PARAM_REGION==?base64?SGVsbG8=?=", (char *)NULL);
	accepted();
}
END_TEST

START_TEST(param_bad_base64_padding_is_32020)
{
	call("custom", "{\"region\":\"Hello\"}",
	    "HTTP_MCP_PARAM_REGION==?base64?SGVsbG8?=", (char *)NULL);
	mismatch("Mcp-Param-Region header has invalid base64");
}
END_TEST

START_TEST(param_bad_base64_chars_is_32020)
{
	call("custom", "{\"region\":\"Hello\"}",
	    "HTTP_MCP_PARAM_REGION==?base64?SGVs!!!bG8=?=", (char *)NULL);
	mismatch("invalid base64");
}
END_TEST

START_TEST(param_without_prefix_is_literal)
{
	call("custom", "{\"region\":\"SGVsbG8=\"}",
	    "HTTP_MCP_PARAM_REGION=SGVsbG8=", (char *)NULL);
	accepted();
}
END_TEST

START_TEST(param_without_suffix_is_literal)
{
	call("custom", "{\"region\":\"=?base64?SGVsbG8=\"}",
	    "HTTP_MCP_PARAM_REGION==?base64?SGVsbG8=", (char *)NULL);
	accepted();
	/* The markers are case-sensitive: upper case is literal too. */
	call("custom", "{\"region\":\"=?BASE64?SGVsbG8=?=\"}",
	    "HTTP_MCP_PARAM_REGION==?BASE64?SGVsbG8=?=", (char *)NULL);
	accepted();
}
END_TEST

START_TEST(param_header_omitted_with_value_in_body_is_32020)
{
	call("custom", "{\"region\":\"test-value\"}", (char *)NULL);
	mismatch("Mcp-Param-Region header is missing (argument region is in "
	    "the body)");
}
END_TEST

/* --- per request: presence ---------------------------------------------- */

START_TEST(param_present_with_value_absent_is_32020)
{
	call("custom", "{\"query\":\"q\"}", "HTTP_MCP_PARAM_REGION=eu",
	    (char *)NULL);
	mismatch("Mcp-Param-Region header is present but argument region is "
	    "absent");
	/* No arguments member at all. */
	call("custom", NULL, "HTTP_MCP_PARAM_COUNT=1", (char *)NULL);
	mismatch("argument count is absent");
}
END_TEST

START_TEST(param_present_with_value_null_is_32020)
{
	call("custom", "{\"region\":null}", "HTTP_MCP_PARAM_REGION=eu",
	    (char *)NULL);
	ck_assert_int_eq(h_code(&resp), -32020);
	mismatch("argument region is null");
}
END_TEST

START_TEST(param_not_expected_for_null_or_absent_value)
{
	call("custom", "{\"query\":\"q\"}", (char *)NULL);
	accepted();
	call("custom", NULL, (char *)NULL);
	accepted();
	call("custom", "{}", (char *)NULL);
	accepted();
}
END_TEST

START_TEST(param_unrecognized_headers_are_ignored)
{
	call("custom", "{\"region\":\"eu\"}", "HTTP_MCP_PARAM_REGION=eu",
	    "HTTP_MCP_PARAM_OTHER=whatever", "HTTP_MCP_PARAM_QUERY=x",
	    (char *)NULL);
	accepted();
	/* A tool without annotations ignores every Mcp-Param-*. */
	call("plain", "{\"region\":\"eu\"}", "HTTP_MCP_PARAM_REGION=us",
	    (char *)NULL);
	accepted();
}
END_TEST

START_TEST(param_repeated_header_is_32020)
{
	call("custom", "{\"region\":\"eu\"}", "HTTP_MCP_PARAM_REGION=eu",
	    "HTTP_MCP_PARAM_REGION=us", (char *)NULL);
	mismatch("Mcp-Param-Region header is repeated");
}
END_TEST

START_TEST(param_all_four_match)
{
	call("custom", "{\"region\":\"eu-west1\",\"count\":3,\"flag\":false,"
	    "\"nested\":{\"zone\":\"b\"},\"query\":\"q\"}",
	    "HTTP_MCP_PARAM_REGION=eu-west1", "HTTP_MCP_PARAM_COUNT=3",
	    "HTTP_MCP_PARAM_FLAG=false", "HTTP_MCP_PARAM_ZONE=b", (char *)NULL);
	accepted();
	ck_assert_ptr_nonnull(strstr(h_text(&resp), "eu-west1"));
}
END_TEST

/* --- per request: strings --------------------------------------------- */

START_TEST(param_string_compares_exactly)
{
	call("custom", "{\"region\":\"Hello\"}", "HTTP_MCP_PARAM_REGION=hello",
	    (char *)NULL);
	mismatch("Header mismatch: Mcp-Param-Region header value 'hello' "
	    "does not match argument region value 'Hello'");
	call("custom", "{\"region\":\"Hello\"}", "HTTP_MCP_PARAM_REGION=Hello!",
	    (char *)NULL);
	mismatch("does not match");
}
END_TEST

START_TEST(param_ows_is_trimmed)
{
	call("custom", "{\"region\":\"Hello\"}",
	    "HTTP_MCP_PARAM_REGION= \tHello \t", (char *)NULL);
	accepted();
	/* Inner white space is part of the value. */
	call("custom", "{\"region\":\"a b\"}", "HTTP_MCP_PARAM_REGION= a b ",
	    (char *)NULL);
	accepted();
	/* Leading spaces survive only in base64 (streamable-http.mdx). */
	call("custom", "{\"region\":\" padded \"}",
	    "HTTP_MCP_PARAM_REGION==?base64?IHBhZGRlZCA=?=", (char *)NULL);
	accepted();
	call("custom", "{\"region\":\" padded \"}",
	    "HTTP_MCP_PARAM_REGION= padded ", (char *)NULL);
	mismatch("does not match");
}
END_TEST

START_TEST(param_empty_string_matches_empty_header)
{
	call("custom", "{\"region\":\"\"}", "HTTP_MCP_PARAM_REGION=",
	    (char *)NULL);
	accepted();
	call("custom", "{\"region\":\"\"}", (char *)NULL);
	mismatch("missing");
}
END_TEST

START_TEST(param_non_ascii_via_sentinel_is_accepted)
{
	call("custom", "{\"region\":\"M\\u00fcnchen\"}",
	    "HTTP_MCP_PARAM_REGION==?base64?TcO8bmNoZW4=?=", (char *)NULL);
	accepted();
	call("custom", "{\"region\":\"Hello, \\u4e16\\u754c\"}",
	    "HTTP_MCP_PARAM_REGION==?base64?SGVsbG8sIOS4lueVjA==?=",
	    (char *)NULL);
	accepted();
	/* The sentinel pattern itself travels encoded. */
	call("custom", "{\"region\":\"=?base64?literal?=\"}",
	    "HTTP_MCP_PARAM_REGION==?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=",
	    (char *)NULL);
	accepted();
	/* A newline too. */
	call("custom", "{\"region\":\"line1\\nline2\"}",
	    "HTTP_MCP_PARAM_REGION==?base64?bGluZTEKbGluZTI=?=", (char *)NULL);
	accepted();
}
END_TEST

START_TEST(param_raw_non_ascii_byte_is_32020)
{
	call("custom", "{\"region\":\"M\\u00fcnchen\"}",
	    "HTTP_MCP_PARAM_REGION=M\xc3\xbcnchen", (char *)NULL);
	mismatch("Mcp-Param-Region header has invalid characters");
	call("custom", "{\"region\":\"a\"}", "HTTP_MCP_PARAM_REGION=a\x01",
	    (char *)NULL);
	mismatch("invalid characters");
	call("custom", "{\"region\":\"a\"}", "HTTP_MCP_PARAM_REGION=a\x7f",
	    (char *)NULL);
	mismatch("invalid characters");
}
END_TEST

START_TEST(param_base64_of_invalid_utf8_is_32020)
{
	/* 0xff 0xfe */
	call("custom", "{\"region\":\"x\"}",
	    "HTTP_MCP_PARAM_REGION==?base64?//4=?=", (char *)NULL);
	mismatch("invalid base64");
}
END_TEST

START_TEST(param_message_is_short_and_clean)
{
	char	 h[400];
	size_t	 n;

	n = (size_t)snprintf(h, sizeof(h), "HTTP_MCP_PARAM_REGION=");
	memset(h + n, 'x', 300);
	h[n + 300] = '\0';
	call("custom", "{\"region\":\"line1\\nline2\\u0001z\"}", h,
	    (char *)NULL);
	mismatch("...' does not match argument region value "
	    "'line1?line2?z'");
	ck_assert_msg(strlen(message()) < 250, "%zu: %s", strlen(message()),
	    message());
	/* A long body value is cut on a character boundary. */
	call("custom", "{\"region\":\"a\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9"
	    "\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9"
	    "\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9"
	    "\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9"
	    "\\u00e9\\u00e9\\u00e9\\u00e9\"}", "HTTP_MCP_PARAM_REGION=e",
	    (char *)NULL);
	mismatch("...'");
	ck_assert_ptr_nonnull(resp.json);	/* the body parsed: UTF-8 */
}
END_TEST

/* --- per request: integers ---------------------------------------------- */

START_TEST(param_integer_compares_numerically)
{
	static const char *const ok[] = {
		"42", "42.0", "42.000", " 42 ", "=?base64?NDI=?=",
		"=?base64?NDIuMA==?="
	};
	char	 h[128];
	size_t	 i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		snprintf(h, sizeof(h), "HTTP_MCP_PARAM_COUNT=%s", ok[i]);
		call("custom", "{\"count\":42}", h, (char *)NULL);
		accepted();
	}
	call("custom", "{\"count\":-7}", "HTTP_MCP_PARAM_COUNT=-7",
	    (char *)NULL);
	accepted();
	call("custom", "{\"count\":0}", "HTTP_MCP_PARAM_COUNT=-0",
	    (char *)NULL);
	accepted();
	/* 42.0 in the body is an integer (Validation 6.1.1). */
	call("custom", "{\"count\":42.0}", "HTTP_MCP_PARAM_COUNT=42",
	    (char *)NULL);
	accepted();
}
END_TEST

START_TEST(param_integer_mismatch_is_32020)
{
	static const char *const bad[] = {
		"43", "4x", "+42", "042", "42.", "42.5", "4.2e1", "0x2a",
		"", "-", "42 0", "=?base64?IDQy?="
	};
	char	 h[128];
	size_t	 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(h, sizeof(h), "HTTP_MCP_PARAM_COUNT=%s", bad[i]);
		call("custom", "{\"count\":42}", h, (char *)NULL);
		mismatch("Mcp-Param-Count header value");
	}
	call("custom", "{\"count\":42}", "HTTP_MCP_PARAM_COUNT=43",
	    (char *)NULL);
	mismatch("header value '43' does not match argument count value "
	    "'42'");
}
END_TEST

START_TEST(param_integer_outside_safe_range_is_32020)
{
	call("custom", "{\"count\":9007199254740991}",
	    "HTTP_MCP_PARAM_COUNT=9007199254740991", (char *)NULL);
	accepted();
	call("custom", "{\"count\":-9007199254740991}",
	    "HTTP_MCP_PARAM_COUNT=-9007199254740991", (char *)NULL);
	accepted();
	call("custom", "{\"count\":9007199254740992}",
	    "HTTP_MCP_PARAM_COUNT=9007199254740992", (char *)NULL);
	mismatch("argument count is outside the integer range");
	call("custom", "{\"count\":-9007199254740992}",
	    "HTTP_MCP_PARAM_COUNT=-9007199254740992", (char *)NULL);
	mismatch("outside the integer range");
	call("custom", "{\"count\":18446744073709551615}",
	    "HTTP_MCP_PARAM_COUNT=18446744073709551615", (char *)NULL);
	mismatch("outside the integer range");
	call("custom", "{\"count\":1e300}", "HTTP_MCP_PARAM_COUNT=1",
	    (char *)NULL);
	mismatch("outside the integer range");
	/* A header beyond the range never equals a body value. */
	call("custom", "{\"count\":1}",
	    "HTTP_MCP_PARAM_COUNT=99999999999999999999999", (char *)NULL);
	mismatch("does not match");
}
END_TEST

/* --- per request: booleans ---------------------------------------------- */

START_TEST(param_boolean_is_lower_case_word)
{
	call("custom", "{\"flag\":true}", "HTTP_MCP_PARAM_FLAG=true",
	    (char *)NULL);
	accepted();
	call("custom", "{\"flag\":false}", "HTTP_MCP_PARAM_FLAG=false",
	    (char *)NULL);
	accepted();
	call("custom", "{\"flag\":true}", "HTTP_MCP_PARAM_FLAG=True",
	    (char *)NULL);
	mismatch("does not match argument flag value 'true'");
	call("custom", "{\"flag\":true}", "HTTP_MCP_PARAM_FLAG=1",
	    (char *)NULL);
	mismatch("does not match");
	call("custom", "{\"flag\":false}", "HTTP_MCP_PARAM_FLAG=true",
	    (char *)NULL);
	mismatch("does not match");
}
END_TEST

/* --- per request: nesting and types -------------------------------------- */

START_TEST(param_nested_path)
{
	call("custom", "{\"nested\":{\"zone\":\"z1\"}}",
	    "HTTP_MCP_PARAM_ZONE=z1", (char *)NULL);
	accepted();
	call("custom", "{\"nested\":{\"zone\":\"z1\"}}", (char *)NULL);
	mismatch("Mcp-Param-Zone header is missing (argument nested.zone");
	call("custom", "{\"nested\":{\"zone\":\"z1\"}}",
	    "HTTP_MCP_PARAM_ZONE=z2", (char *)NULL);
	mismatch("argument nested.zone value 'z1'");
	/* No object on the way: the value is absent. */
	call("custom", "{\"nested\":{}}", (char *)NULL);
	accepted();
	/* null where the schema wants an object: the argument check. */
	call("custom", "{\"nested\":null}", (char *)NULL);
	ck_assert_int_eq(h_code(&resp), -32602);
	call("custom", "{\"nested\":{}}", "HTTP_MCP_PARAM_ZONE=z1",
	    (char *)NULL);
	mismatch("argument nested.zone is absent");
}
END_TEST

START_TEST(param_wrong_json_type_is_left_to_schema_check)
{
	/* Not a header mismatch: the argument check answers -32602. */
	call("custom", "{\"region\":5}", "HTTP_MCP_PARAM_REGION=5",
	    (char *)NULL);
	ck_assert_int_eq(h_code(&resp), -32602);
	call("custom", "{\"count\":\"42\"}", (char *)NULL);
	ck_assert_int_eq(h_code(&resp), -32602);
	call("custom", "{\"count\":4.5}", "HTTP_MCP_PARAM_COUNT=4.5",
	    (char *)NULL);
	ck_assert_int_eq(h_code(&resp), -32602);
	call("custom", "{\"flag\":\"true\"}", "HTTP_MCP_PARAM_FLAG=true",
	    (char *)NULL);
	ck_assert_int_eq(h_code(&resp), -32602);
	call("custom", "{\"nested\":\"z\"}", (char *)NULL);
	ck_assert_int_eq(h_code(&resp), -32602);
}
END_TEST

START_TEST(param_header_name_case_is_free_in_cgi)
{
	/*
	 * "x-mcp-header":"rEgIoN": whatever case the client writes
	 * Mcp-Param-rEgIoN in, the web server passes HTTP_MCP_PARAM_REGION.
	 */
	ck_assert_str_eq(srv->tools[2].xparams[0].param,
	    "HTTP_MCP_PARAM_REGION");
	call("odd", "{\"r\":\"v\"}", "HTTP_MCP_PARAM_REGION=v", (char *)NULL);
	accepted();
	call("odd", "{\"r\":\"v\"}", "HTTP_MCP_PARAM_REGION=V", (char *)NULL);
	mismatch("Mcp-Param-rEgIoN header value 'V'");
}
END_TEST

/* --- per request: order in the pipeline (fixtures section 3) ----------- */

#define CALL_BODY(meta, args)						\
	"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\","	\
	"\"params\":{" meta "\"name\":\"custom\",\"arguments\":" args "}}"

START_TEST(param_mismatch_before_missing_meta)
{
	post(CALL_BODY("", "{\"region\":\"eu\"}"),
	    "HTTP_MCP_METHOD=tools/call", "HTTP_MCP_NAME=custom",
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28",
	    "HTTP_MCP_PARAM_REGION=us", (char *)NULL);
	mismatch("Mcp-Param-Region");
	/* Without the mismatch, the missing _meta is -32602. */
	post(CALL_BODY("", "{\"region\":\"eu\"}"),
	    "HTTP_MCP_METHOD=tools/call", "HTTP_MCP_NAME=custom",
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28",
	    "HTTP_MCP_PARAM_REGION=eu", (char *)NULL);
	ck_assert_int_eq(resp.status, 400);
	ck_assert_int_eq(h_code(&resp), -32602);
}
END_TEST

START_TEST(param_mismatch_before_protocol_version_header)
{
	post(CALL_BODY("\"_meta\":" H_META ",", "{\"region\":\"eu\"}"),
	    "HTTP_MCP_METHOD=tools/call", "HTTP_MCP_NAME=custom",
	    "HTTP_MCP_PARAM_REGION=us", (char *)NULL);
	mismatch("Mcp-Param-Region");
}
END_TEST

START_TEST(method_and_name_mismatch_come_before_param)
{
	/* The version header keeps a request without _meta modern. */
	post(CALL_BODY("", "{\"region\":\"eu\"}"),
	    "HTTP_MCP_METHOD=tools/list", "HTTP_MCP_NAME=custom",
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28",
	    "HTTP_MCP_PARAM_REGION=us", (char *)NULL);
	mismatch("Mcp-Method");
	post(CALL_BODY("", "{\"region\":\"eu\"}"),
	    "HTTP_MCP_METHOD=tools/call", "HTTP_MCP_NAME=plain",
	    "HTTP_MCP_PROTOCOL_VERSION=2026-07-28",
	    "HTTP_MCP_PARAM_REGION=us", (char *)NULL);
	mismatch("Mcp-Name");
}
END_TEST

START_TEST(param_check_needs_a_known_tool)
{
	/* An unknown tool is tools/call's own -32602, not a mismatch. */
	call("nosuch", "{\"region\":\"eu\"}", "HTTP_MCP_PARAM_REGION=us",
	    (char *)NULL);
	ck_assert_int_eq(h_code(&resp), -32602);
	/* Arguments that are not an object: -32602 as well. */
	call("custom", "[1]", (char *)NULL);
	ck_assert_int_eq(h_code(&resp), -32602);
}
END_TEST

START_TEST(param_mounted_tools_only)
{
	/* A tool outside WYMCP_TOOLS is unknown before any header check. */
	call("custom", "{\"region\":\"eu\"}", "WYMCP_TOOLS=plain",
	    (char *)NULL);
	ck_assert_int_eq(h_code(&resp), -32602);
}
END_TEST

static Suite *
xheader_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("xheader");

	tc = tcase_create("load");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, load_without_annotations_allocates_nothing);
	tcase_add_test(tc, load_records_path_header_param_and_type);
	tcase_add_test(tc, load_accepts_nested_properties_chain);
	tcase_add_test(tc, load_refuses_annotation_off_the_properties_chain);
	tcase_add_test(tc, load_refuses_annotation_on_root);
	tcase_add_test(tc, load_ignores_x_mcp_header_as_data_or_property_name);
	tcase_add_test(tc, load_refusal_escapes_pointer_and_names_tool);
	tcase_add_test(tc, load_refuses_empty_value);
	tcase_add_test(tc, load_refuses_non_string_value);
	tcase_add_test(tc, load_refuses_non_token_characters);
	tcase_add_test(tc, load_refuses_control_characters);
	tcase_add_test(tc, load_accepts_every_tchar);
	tcase_add_test(tc, load_refuses_case_insensitive_duplicate);
	tcase_add_test(tc, load_refuses_cgi_param_collision);
	tcase_add_test(tc, load_refuses_non_primitive_type);
	tcase_add_test(tc, load_refuses_type_list_or_missing_type);
	tcase_add_test(tc, load_accepts_integer_bounds_beyond_safe_range);
	tcase_add_test(tc, load_refusal_keeps_no_tool_of_the_module);
	suite_add_tcase(s, tc);

	tc = tcase_create("conformance");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, param_valid_base64_is_decoded);
	tcase_add_test(tc, param_bad_base64_padding_is_32020);
	tcase_add_test(tc, param_bad_base64_chars_is_32020);
	tcase_add_test(tc, param_without_prefix_is_literal);
	tcase_add_test(tc, param_without_suffix_is_literal);
	tcase_add_test(tc, param_header_omitted_with_value_in_body_is_32020);
	suite_add_tcase(s, tc);

	tc = tcase_create("request");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, param_present_with_value_absent_is_32020);
	tcase_add_test(tc, param_present_with_value_null_is_32020);
	tcase_add_test(tc, param_not_expected_for_null_or_absent_value);
	tcase_add_test(tc, param_unrecognized_headers_are_ignored);
	tcase_add_test(tc, param_repeated_header_is_32020);
	tcase_add_test(tc, param_all_four_match);
	tcase_add_test(tc, param_string_compares_exactly);
	tcase_add_test(tc, param_ows_is_trimmed);
	tcase_add_test(tc, param_empty_string_matches_empty_header);
	tcase_add_test(tc, param_non_ascii_via_sentinel_is_accepted);
	tcase_add_test(tc, param_raw_non_ascii_byte_is_32020);
	tcase_add_test(tc, param_base64_of_invalid_utf8_is_32020);
	tcase_add_test(tc, param_message_is_short_and_clean);
	tcase_add_test(tc, param_integer_compares_numerically);
	tcase_add_test(tc, param_integer_mismatch_is_32020);
	tcase_add_test(tc, param_integer_outside_safe_range_is_32020);
	tcase_add_test(tc, param_boolean_is_lower_case_word);
	tcase_add_test(tc, param_nested_path);
	tcase_add_test(tc, param_wrong_json_type_is_left_to_schema_check);
	tcase_add_test(tc, param_header_name_case_is_free_in_cgi);
	suite_add_tcase(s, tc);

	tc = tcase_create("order");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, param_mismatch_before_missing_meta);
	tcase_add_test(tc, param_mismatch_before_protocol_version_header);
	tcase_add_test(tc, method_and_name_mismatch_come_before_param);
	tcase_add_test(tc, param_check_needs_a_known_tool);
	tcase_add_test(tc, param_mounted_tools_only);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	sr = srunner_create(xheader_suite());
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
