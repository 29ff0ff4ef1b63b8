/*
 * check_meta.c - metadata: icons and _meta of tools, resources,
 * templates and prompts, resource size and annotations, the server's
 * Implementation and instructions, and modules of older headers
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

#define PNG	"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB" \
	"CAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
#define ICONS	"[{\"src\":\"" PNG "\",\"mimeType\":\"image/png\"," \
	"\"sizes\":[\"1x1\",\"any\"],\"theme\":\"dark\"}]"

static struct wymcp_server	*srv;
static struct h_resp		 resp;

static void
setup(void)
{
	h_setup(&srv, &resp);
}

static void
teardown(void)
{
	h_teardown(&srv, &resp);
}

static enum wymcp_err
noop(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return WYMCP_OK;
}

static enum wymcp_err
get(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_prompt_result *res)
{
	return wymcp_prompt_message(res, "user", wymcp_text(ctx, "hi"));
}

/* A read whose contents carry MCP Apps' _meta.ui. */
static enum wymcp_err
read_ui(struct wymcp_ctx *ctx, const char *uri, struct json_object *vars,
    struct wymcp_resource_result *res)
{
	struct json_object	*m, *bad;
	enum wymcp_err		 rc;

	/* Before any entry: nothing to put it on. */
	m = wymcp_own(ctx, json_tokener_parse("{\"ui\":{\"prefersBorder\":"
	    "true}}"));
	if (wymcp_contents_meta(res, m) != WYMCP_ERR_INVAL)
		return WYMCP_ERR_TOOL;
	if ((rc = wymcp_contents_text(res, NULL, "text/html;profile=mcp-app",
	    "<p>hi</p>")) != WYMCP_OK)
		return rc;
	bad = wymcp_own(ctx, json_tokener_parse("{\"io.modelcontextprotocol/"
	    "x\":1}"));
	if (wymcp_contents_meta(res, bad) != WYMCP_ERR_INVAL ||
	    wymcp_contents_meta(res, NULL) != WYMCP_ERR_NOMEM)
		return WYMCP_ERR_TOOL;
	return wymcp_contents_meta(res, m);
}

/* Asks the user to visit a URL (URL-mode elicitation). */
static enum wymcp_err
go_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*answer;
	enum wymcp_err		 rc;

	if ((rc = wymcp_elicit_url(ctx, "Sign in", "https://a.example/in",
	    &answer)) != WYMCP_OK)
		return rc;
	return wymcp_result_add(res, wymcp_text(ctx, "went"));
}

/* The first entry of a list method's `member' array. */
static struct json_object *
first(const char *method, const char *member)
{
	struct json_object	*arr;

	h_free(&resp);
	ck_assert_int_eq(h_call(srv, method, NULL, NULL, NULL, &resp),
	    WYMCP_OK);
	ck_assert_msg(h_result(&resp) != NULL, "%s: %s", method, resp.body);
	arr = h_jp(h_result(&resp), member, NULL);
	ck_assert_ptr_nonnull(arr);
	return json_object_array_get_idx(arr, 0);
}

/* The _meta key rules of basic/index.mdx. */
START_TEST(meta_keys)
{
	static const char *const good[] = { "ui", "ui/resourceUri",
	    "com.example/x", "com.example.mcp/x", "a-b.c9/n_a.m-e", "x/",
	    "org.wymcp.examples/kind", "A1" };
	static const char *const bad[] = { "", "io.modelcontextprotocol/x",
	    "dev.mcp/x", "org.modelcontextprotocol.api/x", "com.mcp.tools/a",
	    "-a/x", "a-/x", "1a/x", "a..b/x", "a/b/c", "_x", "x_", "a b",
	    "com.example/x!" };
	char	 why[256];
	size_t	 i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(wymcp__meta_key_ok(good[i], why, sizeof(why)),
		    "%s: %s", good[i], why);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(!wymcp__meta_key_ok(bad[i], why, sizeof(why)),
		    "%s taken", bad[i]);
	ck_assert(!wymcp__meta_key_ok("dev.mcp/x", why, sizeof(why)));
	ck_assert_ptr_nonnull(strstr(why, "reserved"));
}
END_TEST

/* Tools, templates and prompts list their icons and _meta. */
START_TEST(listings_carry_icons_and_meta)
{
	static const struct wymcp_tool tools[] = {
		{ .name = "t", .description = "d", .run = noop,
		    .icons = ICONS,
		    .meta = WYMCP_JSON({ "ui": { "resourceUri": "ui://a/b",
		    "visibility": ["model", "app"] } }) },
		{ .name = NULL }
	};
	static const struct wymcp_resource resources[] = {
		{ .uri = "ui://a/b", .name = "view", .mime =
		    "text/html;profile=mcp-app", .read = read_ui,
		    .icons = ICONS, .size = 9,
		    .meta = WYMCP_JSON({ "ui": { "csp": {} } }),
		    .annotations = WYMCP_JSON({ "audience": ["user"],
		    "priority": 1, "lastModified": "2026-01-12T15:00:58Z" }) },
		{ .uri = NULL }
	};
	static const struct wymcp_resource templates[] = {
		{ .uri = "note://{n}", .name = "note", .read = read_ui,
		    .icons = ICONS, .meta = WYMCP_JSON({ "com.example/k": 1 }),
		    .annotations = WYMCP_JSON({ "priority": 0.25 }) },
		{ .uri = NULL }
	};
	static const struct wymcp_prompt prompts[] = {
		{ .name = "p", .description = "d", .get = get,
		    .icons = ICONS, .meta = WYMCP_JSON({ "com.example/p":
		    [1] }) },
		{ .name = NULL }
	};
	static const struct wymcp_module mod = { .abi = WYMCP_ABI_VERSION,
	    .size = sizeof(struct wymcp_module), .name = "m", .tools = tools,
	    .resources = resources, .templates = templates,
	    .prompts = prompts, .tool_size = sizeof(struct wymcp_tool),
	    .resource_size = sizeof(struct wymcp_resource),
	    .prompt_size = sizeof(struct wymcp_prompt),
	    .prompt_arg_size = sizeof(struct wymcp_prompt_arg) };
	struct json_object	*e, *c;

	ck_assert_msg(wymcp_server_add_module(srv, &mod) == WYMCP_OK, "%s",
	    wymcp_server_errmsg(srv));
	e = first("tools/list", "tools");
	ck_assert_str_eq(h_compact(h_jp(e, "icons", NULL)), ICONS);
	/* The deprecated flat key too, as registerAppTool() sends it. */
	ck_assert_str_eq(h_compact(h_jp(e, "_meta", NULL)), "{\"ui\":{"
	    "\"resourceUri\":\"ui://a/b\",\"visibility\":[\"model\","
	    "\"app\"]},\"ui/resourceUri\":\"ui://a/b\"}");
	e = first("resources/list", "resources");
	ck_assert_str_eq(h_compact(e), "{\"uri\":\"ui://a/b\",\"name\":"
	    "\"view\",\"mimeType\":\"text/html;profile=mcp-app\","
	    "\"annotations\":{\"audience\":[\"user\"],\"priority\":1,"
	    "\"lastModified\":\"2026-01-12T15:00:58Z\"},\"size\":9,"
	    "\"icons\":" ICONS ",\"_meta\":{\"ui\":{\"csp\":{}}}}");
	e = first("resources/templates/list", "resourceTemplates");
	ck_assert_str_eq(h_compact(e), "{\"uriTemplate\":\"note://{n}\","
	    "\"name\":\"note\",\"annotations\":{\"priority\":0.25},"
	    "\"icons\":" ICONS ",\"_meta\":{\"com.example/k\":1}}");
	e = first("prompts/list", "prompts");
	ck_assert_str_eq(h_compact(h_jp(e, "icons", NULL)), ICONS);
	ck_assert_str_eq(h_compact(h_jp(e, "_meta", NULL)),
	    "{\"com.example/p\":[1]}");
	/* The contents of a read carry their own _meta. */
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, "resources/read", "ui://a/b",
	    "{\"uri\":\"ui://a/b\"}", NULL, &resp), WYMCP_OK);
	c = json_object_array_get_idx(h_jp(h_result(&resp), "contents", NULL),
	    0);
	ck_assert_msg(c != NULL, "%s", resp.body);
	ck_assert_str_eq(h_compact(h_jp(c, "_meta", NULL)),
	    "{\"ui\":{\"prefersBorder\":true}}");
}
END_TEST

/* Bad icons and _meta refuse the module, naming the tool and the rule. */
START_TEST(bad_metadata_refused)
{
	h_refuse_tool(srv, "[{\"src\":\"javascript:alert(1)\"}]", NULL,
	    "https:");
	h_refuse_tool(srv, "[{\"src\":\"http://a.example/i.png\"}]", NULL,
	    "https:");
	h_refuse_tool(srv, "[{\"src\":\"file:///i.png\"}]", NULL, "src");
	h_refuse_tool(srv, "[{\"src\":\"data:image/png;base64,!!\"}]", NULL,
	    "base64");
	h_refuse_tool(srv, "[{\"src\":\"data:image/png,abcd\"}]", NULL,
	    "base64");
	h_refuse_tool(srv, "[{\"mimeType\":\"image/png\"}]", NULL, "src");
	h_refuse_tool(srv, "[{\"src\":\"https://a.example/i\",\"sizes\":"
	    "[\"48\"]}]", NULL, "WxH");
	h_refuse_tool(srv, "[{\"src\":\"https://a.example/i\","
	    "\"sizes\":\"any\"}]", NULL, "sizes");
	h_refuse_tool(srv, "[{\"src\":\"https://a.example/i\","
	    "\"mimeType\":\"png\"}]", NULL, "mimeType");
	h_refuse_tool(srv, "[{\"src\":\"https://a.example/i\","
	    "\"theme\":\"blue\"}]", NULL, "theme");
	h_refuse_tool(srv, "[{\"src\":\"https://a.example/i\","
	    "\"size\":[]}]", NULL, "no member 'size'");
	h_refuse_tool(srv, "{\"src\":\"https://a.example/i\"}", NULL, "array");
	h_refuse_tool(srv, "[", NULL, "not valid JSON");
	h_refuse_tool(srv, NULL, "[]", "object");
	h_refuse_tool(srv, NULL, "{\"io.modelcontextprotocol/ui\":{}}",
	    "reserved");
	h_refuse_tool(srv, NULL, "{\"a\":1,\"a\":2}", "two members");
	h_refuse_tool(srv, NULL, "{\"bad key\":1}", "_meta key");
}
END_TEST

/* Resources: bad annotations, a template with a size, a negative size. */
START_TEST(bad_resource_metadata_refused)
{
	struct wymcp_resource	 tab[2];
	struct wymcp_module	 mod = { .abi = WYMCP_ABI_VERSION,
	    .size = sizeof(struct wymcp_module), .name = "bad",
	    .resources = tab, .resource_size = sizeof(struct wymcp_resource) };

	memset(tab, 0, sizeof(tab));
	tab[0].uri = "x://a";
	tab[0].name = "a";
	tab[0].read = read_ui;
	tab[0].annotations = "{\"audience\":[\"model\"]}";
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod),
	    WYMCP_ERR_INVAL);
	h_expect_errmsg(srv, "resource x://a: annotations: audience");
	tab[0].annotations = "{\"priority\":2}";
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod),
	    WYMCP_ERR_INVAL);
	h_expect_errmsg(srv, "from 0 to 1");
	tab[0].annotations = NULL;
	tab[0].size = -1;
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod),
	    WYMCP_ERR_INVAL);
	h_expect_errmsg(srv, "size");
	tab[0].size = 0;
	tab[0].icons = "[{\"src\":\"ftp://a/i\"}]";
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod),
	    WYMCP_ERR_INVAL);
	h_expect_errmsg(srv, "resource x://a: icon 0: src");
	tab[0].icons = NULL;
	mod.resources = NULL;
	mod.templates = tab;
	tab[0].uri = "x://{a}";
	tab[0].size = 5;
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod),
	    WYMCP_ERR_INVAL);
	h_expect_errmsg(srv, "template x://{a}: size");
	ck_assert_uint_eq(srv->nmods, 0);
}
END_TEST

/*
 * ABI: modules built against the 0.3 header (tools end at scopes) and
 * the 0.2 one (resources and prompts end at their function), packed at
 * those strides: what lies where this header has icons and meta is the
 * next element's first members, and must read as absent.
 */
START_TEST(abi_older_elements_have_no_metadata)
{
	static const struct wymcp__tool_0_3 tools[] = {
		{ .t = { .name = "one", .description = "d", .run = noop } },
		{ .t = { .name = "two", .description = "d", .run = noop } },
		{ .t = { .name = NULL } }
	};
	static const struct wymcp__resource_0_2 res[] = {
		{ .uri = "x://one", .name = "one", .read = read_ui },
		{ .uri = "x://two", .name = "two", .read = read_ui },
		{ .uri = "x://three", .name = "three", .read = read_ui },
		{ .uri = NULL }
	};
	static const struct wymcp__prompt_0_2 prompts[] = {
		{ .name = "p1", .description = "d", .get = get },
		{ .name = "p2", .description = "d", .get = get },
		{ .name = NULL }
	};
	static const struct wymcp_module m03 = { .abi = WYMCP_ABI_VERSION,
	    .size = offsetof(struct wymcp_module, server_info), .name = "m03",
	    .tools = (const struct wymcp_tool *)(const void *)tools,
	    .resources = (const struct wymcp_resource *)(const void *)res,
	    .prompts = (const struct wymcp_prompt *)(const void *)prompts,
	    .tool_size = sizeof(struct wymcp__tool_0_3),
	    .resource_size = sizeof(struct wymcp__resource_0_2),
	    .prompt_size = sizeof(struct wymcp__prompt_0_2),
	    .prompt_arg_size = sizeof(struct wymcp__prompt_arg_0_2) };
	struct json_object	*e;

	ck_assert_msg(wymcp_server_add_module(srv, &m03) == WYMCP_OK, "%s",
	    wymcp_server_errmsg(srv));
	ck_assert_uint_eq(srv->ntools, 2);
	ck_assert_ptr_null(srv->tools[0].decl.icons);
	ck_assert_ptr_null(srv->tools[0].decl.meta);
	ck_assert_uint_eq(srv->nresources, 3);
	ck_assert_uint_eq(srv->nprompts, 2);
	e = first("tools/list", "tools");
	ck_assert_ptr_null(h_jp(e, "icons", NULL));
	ck_assert_ptr_null(h_jp(e, "_meta", NULL));
	e = first("resources/list", "resources");
	ck_assert_str_eq(h_compact(e),
	    "{\"uri\":\"x://one\",\"name\":\"one\"}");
	e = first("prompts/list", "prompts");
	ck_assert_str_eq(h_compact(e),
	    "{\"name\":\"p1\",\"description\":\"d\"}");
	/* The default serverInfo: a 0.3 module has no server_info. */
	ck_assert_str_eq(h_compact(h_jp(srv->result_meta,
	    "io.modelcontextprotocol/serverInfo", NULL)),
	    "{\"name\":\"wymcp\",\"version\":\"" PACKAGE_VERSION "\"}");
}
END_TEST

/* The version reported is configure's, and the header says the same. */
START_TEST(version_is_the_package_version)
{
	ck_assert_str_eq(WYMCP_VERSION, PACKAGE_VERSION);
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, "server/discover", NULL, "{}", NULL,
	    &resp), WYMCP_OK);
	ck_assert_str_eq(json_object_get_string(h_jp(h_result(&resp), "_meta",
	    "io.modelcontextprotocol/serverInfo", "version", NULL)),
	    PACKAGE_VERSION);
	ck_assert_ptr_null(h_jp(h_result(&resp), "instructions", NULL));
}
END_TEST

/* A 2025-11-25 initialize: serverInfo and instructions. */
static struct json_object *
initialize(void)
{
	static const char	*body = "{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
	    "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":"
	    "\"old\",\"version\":\"1\"}}}";
	char			 cl[64];
	const char		*env[] = { "REQUEST_METHOD=POST",
	    "CONTENT_TYPE=application/json",
	    "HTTP_ACCEPT=application/json, text/event-stream",
	    "HTTP_HOST=localhost", cl, NULL };

	snprintf(cl, sizeof(cl), "CONTENT_LENGTH=%zu", strlen(body));
	h_free(&resp);
	ck_assert_int_eq(h_serve(srv, env, body, &resp), WYMCP_OK);
	ck_assert_msg(h_result(&resp) != NULL, "%s", resp.body);
	return h_result(&resp);
}

static struct json_object *
discover(void)
{
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, "server/discover", NULL, "{}", NULL,
	    &resp), WYMCP_OK);
	ck_assert_msg(h_result(&resp) != NULL, "%s", resp.body);
	return h_result(&resp);
}

/*
 * The first module's server_info, every module's instructions, then
 * the operator's settings over them, member by member.
 */
START_TEST(server_info_from_modules_and_operator)
{
	static const struct wymcp_tool t1[] = {
		{ .name = "a", .description = "d", .run = noop },
		{ .name = NULL }
	};
	static const struct wymcp_tool t2[] = {
		{ .name = "b", .description = "d", .run = noop },
		{ .name = NULL }
	};
	static const struct wymcp_module m1 = { .abi = WYMCP_ABI_VERSION,
	    .size = sizeof(struct wymcp_module), .name = "m1", .tools = t1,
	    .tool_size = sizeof(struct wymcp_tool),
	    .server_info = WYMCP_JSON({ "name": "acme", "version": "1.2",
	    "title": "Acme", "websiteUrl": "https://acme.example/" }),
	    .instructions = "Use a first." };
	static const struct wymcp_module m2 = { .abi = WYMCP_ABI_VERSION,
	    .size = sizeof(struct wymcp_module), .name = "m2", .tools = t2,
	    .tool_size = sizeof(struct wymcp_tool),
	    .server_info = WYMCP_JSON({ "name": "ignored" }),
	    .instructions = "Then b." };
	struct wymcp_server_info info;
	struct json_object	*r;

	ck_assert_int_eq(wymcp_server_add_module(srv, &m1), WYMCP_OK);
	ck_assert_int_eq(wymcp_server_add_module(srv, &m2), WYMCP_OK);
	r = discover();
	ck_assert_str_eq(h_compact(h_jp(r, "_meta", NULL)), "{\"io."
	    "modelcontextprotocol/serverInfo\":{\"name\":\"acme\","
	    "\"version\":\"1.2\",\"title\":\"Acme\",\"websiteUrl\":"
	    "\"https://acme.example/\"}}");
	ck_assert_str_eq(json_object_get_string(h_jp(r, "instructions", NULL)),
	    "Use a first.\n\nThen b.");
	/* The operator's: over the module's; "" removes the title. */
	memset(&info, 0, sizeof(info));
	info.version = "7.0";
	info.title = "";
	info.description = "Acme's tools.";
	info.icons = ICONS;
	info.instructions = "Operator's.";
	ck_assert_msg(wymcp_server_set_info(srv, &info, sizeof(info)) ==
	    WYMCP_OK, "%s", wymcp_server_errmsg(srv));
	r = discover();
	ck_assert_str_eq(h_compact(h_jp(r, "_meta", NULL)), "{\"io."
	    "modelcontextprotocol/serverInfo\":{\"name\":\"acme\","
	    "\"version\":\"7.0\",\"websiteUrl\":\"https://acme.example/\","
	    "\"description\":\"Acme's tools.\",\"icons\":" ICONS "}}");
	ck_assert_str_eq(json_object_get_string(h_jp(r, "instructions", NULL)),
	    "Operator's.");
	/* Every result carries it, and initialize too. */
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, "tools/call", "a", "{\"name\":\"a\"}",
	    NULL, &resp), WYMCP_OK);
	ck_assert_str_eq(json_object_get_string(h_jp(h_result(&resp), "_meta",
	    "io.modelcontextprotocol/serverInfo", "version", NULL)), "7.0");
	r = initialize();
	ck_assert_str_eq(h_compact(h_jp(r, "serverInfo", NULL)), "{\"name\":"
	    "\"acme\",\"version\":\"7.0\",\"websiteUrl\":"
	    "\"https://acme.example/\",\"description\":\"Acme's tools.\","
	    "\"icons\":" ICONS "}");
	ck_assert_str_eq(json_object_get_string(h_jp(r, "instructions", NULL)),
	    "Operator's.");
	/* A size that ends before icons: the later members are NULL. */
	memset(&info, 0, sizeof(info));
	info.name = "small";
	info.icons = "not even JSON";
	ck_assert_int_eq(wymcp_server_set_info(srv, &info,
	    offsetof(struct wymcp_server_info, icons)), WYMCP_OK);
	/* Empty instructions: none sent. */
	memset(&info, 0, sizeof(info));
	info.instructions = "";
	ck_assert_int_eq(wymcp_server_set_info(srv, &info, sizeof(info)),
	    WYMCP_OK);
	r = discover();
	ck_assert_ptr_null(h_jp(r, "instructions", NULL));
	ck_assert_str_eq(json_object_get_string(h_jp(r, "_meta",
	    "io.modelcontextprotocol/serverInfo", "name", NULL)), "small");
	ck_assert_ptr_nonnull(h_jp(r, "_meta",
	    "io.modelcontextprotocol/serverInfo", "icons", NULL));
}
END_TEST

/* Bad settings are refused and change nothing. */
START_TEST(server_info_refused)
{
	struct wymcp_server_info info;
	static const struct wymcp_tool t[] = {
		{ .name = "a", .description = "d", .run = noop },
		{ .name = NULL }
	};
	struct wymcp_module	 m = { .abi = WYMCP_ABI_VERSION,
	    .size = sizeof(struct wymcp_module), .name = "m", .tools = t,
	    .tool_size = sizeof(struct wymcp_tool) };

	memset(&info, 0, sizeof(info));
	info.name = "";
	ck_assert_int_eq(wymcp_server_set_info(srv, &info, sizeof(info)),
	    WYMCP_ERR_INVAL);
	h_expect_errmsg(srv, "cannot be empty");
	info.name = "ok";
	info.website_url = "ftp://x";
	ck_assert_int_eq(wymcp_server_set_info(srv, &info, sizeof(info)),
	    WYMCP_ERR_INVAL);
	h_expect_errmsg(srv, "http:");
	info.website_url = NULL;
	info.icons = "[{\"src\":\"http://x/i.png\"}]";
	ck_assert_int_eq(wymcp_server_set_info(srv, &info, sizeof(info)),
	    WYMCP_ERR_INVAL);
	h_expect_errmsg(srv, "server: icon 0: src");
	ck_assert_int_eq(wymcp_server_set_info(srv, NULL, sizeof(info)),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_server_set_info(NULL, &info, sizeof(info)),
	    WYMCP_ERR_INVAL);
	ck_assert_str_eq(json_object_get_string(h_jp(srv->result_meta,
	    "io.modelcontextprotocol/serverInfo", "name", NULL)), "wymcp");
	/* A module's bad server_info refuses the module. */
	m.server_info = "{\"nom\":\"x\"}";
	ck_assert_int_eq(wymcp_server_add_module(srv, &m), WYMCP_ERR_INVAL);
	h_expect_errmsg(srv, "module m: server_info has no member 'nom'");
	m.server_info = "{\"name\":\"\"}";
	ck_assert_int_eq(wymcp_server_add_module(srv, &m), WYMCP_ERR_INVAL);
	h_expect_errmsg(srv, "non-empty");
	m.server_info = "{\"websiteUrl\":\"javascript:x\"}";
	ck_assert_int_eq(wymcp_server_add_module(srv, &m), WYMCP_ERR_INVAL);
	h_expect_errmsg(srv, "websiteUrl");
	m.server_info = "{\"icons\":[{\"src\":\"x\"}]}";
	ck_assert_int_eq(wymcp_server_add_module(srv, &m), WYMCP_ERR_INVAL);
	h_expect_errmsg(srv, "icon 0");
	ck_assert_uint_eq(srv->nmods, 0);
}
END_TEST

/*
 * A 2026-07-28 URL-mode question has no elicitationId: that revision
 * removed it from ElicitRequestURLParams (2025-11-25 clients still get
 * one: t/regress/check_legacy.c).
 */
START_TEST(url_elicitation_without_elicitation_id)
{
	static const struct wymcp_tool tools[] = {
		{ .name = "go", .description = "d", .run = go_run },
		{ .name = NULL }
	};
	static const struct wymcp_module mod = { .abi = WYMCP_ABI_VERSION,
	    .size = sizeof(struct wymcp_module), .name = "m", .tools = tools,
	    .tool_size = sizeof(struct wymcp_tool) };
	struct json_object	*q;

	ck_assert_int_eq(wymcp_server_add_module(srv, &mod), WYMCP_OK);
	ck_assert_int_eq(h_call(srv, "tools/call", "go", "{\"_meta\":{"
	    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
	    "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":"
	    "{\"url\":{}}}},\"name\":\"go\"}", NULL, &resp), WYMCP_OK);
	q = h_jp(h_result(&resp), "inputRequests", "elicit-1", "params", NULL);
	ck_assert_msg(q != NULL, "%s", resp.body);
	ck_assert_str_eq(h_compact(q), "{\"mode\":\"url\",\"message\":"
	    "\"Sign in\",\"url\":\"https://a.example/in\"}");
}
END_TEST

static Suite *
meta_suite(void)
{
	Suite	*s = suite_create("meta");
	TCase	*tc = tcase_create("meta");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, meta_keys);
	tcase_add_test(tc, listings_carry_icons_and_meta);
	tcase_add_test(tc, bad_metadata_refused);
	tcase_add_test(tc, bad_resource_metadata_refused);
	tcase_add_test(tc, abi_older_elements_have_no_metadata);
	tcase_add_test(tc, version_is_the_package_version);
	tcase_add_test(tc, server_info_from_modules_and_operator);
	tcase_add_test(tc, server_info_refused);
	tcase_add_test(tc, url_elicitation_without_elicitation_id);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return h_run(meta_suite());
}
