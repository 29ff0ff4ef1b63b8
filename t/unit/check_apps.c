/*
 * check_apps.c - MCP Apps (io.modelcontextprotocol/ui, ext-apps
 * apps.mdx): the _meta.ui shapes of tools, resources and contents,
 * ui:// resources served from a module's text or file, the extension
 * in server/discover, and tool visibility for clients that did or did
 * not declare the extension
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "testing/testing.h"
#include "harness.h"

#define UI_META	"{\"io.modelcontextprotocol/protocolVersion\":" \
	"\"2026-07-28\",\"io.modelcontextprotocol/clientInfo\":" \
	"{\"name\":\"host\",\"version\":\"1\"}," \
	"\"io.modelcontextprotocol/clientCapabilities\":{\"extensions\":" \
	"{\"io.modelcontextprotocol/ui\":{\"mimeTypes\":" \
	"[\"text/html;profile=mcp-app\"]}}}}"
#define HTML	"<!DOCTYPE html><html><body><p>hi</p></body></html>"

static struct wymcp_server	*srv;
static struct h_resp		 resp;
static char			 tmpdir[] = "/tmp/check_apps.XXXXXX";

static void
setup(void)
{
	h_setup(&srv, &resp);
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void
teardown(void)
{
	char	 cmd[128];

	h_teardown(&srv, &resp);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/check_apps.XXXXXX");
}

static enum wymcp_err
say_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	(void)args;
	return wymcp_result_add(res, wymcp_text(ctx, "done"));
}

/* A read whose contents' _meta.ui is wrong: refused by the builder. */
static enum wymcp_err
read_bad_ui(struct wymcp_ctx *ctx, const char *uri, struct json_object *vars,
    struct wymcp_resource_result *res)
{
	struct json_object	*m;
	enum wymcp_err		 rc;

	(void)vars;
	if ((rc = wymcp_contents_text(res, uri, WYMCP_APP_MIME, HTML)) !=
	    WYMCP_OK)
		return rc;
	m = wymcp_own(ctx, json_tokener_parse("{\"ui\":{\"csp\":"
	    "{\"connectDomains\":\"https://a.example\"}}}"));
	if (wymcp_contents_meta(res, m) != WYMCP_ERR_INVAL)
		return WYMCP_ERR_TOOL;
	m = wymcp_own(ctx, json_tokener_parse("{\"ui\":{\"csp\":"
	    "{\"connectDomains\":[\"https://a.example\"]},\"domain\":"
	    "\"a.example\"}}"));
	return wymcp_contents_meta(res, m);
}

/* The _meta.ui shapes, place by place. */
START_TEST(ui_meta_shapes)
{
	static const struct {
		int		 where;
		const char	*meta;
		const char	*why;	/* NULL: taken */
	} cases[] = {
		{ WYMCP__UI_TOOL, "{}", NULL },
		{ WYMCP__UI_TOOL, "{\"ui\":{}}", NULL },
		{ WYMCP__UI_TOOL, "{\"ui\":{\"resourceUri\":\"ui://a/b\","
		    "\"visibility\":[\"app\",\"model\"]}}", NULL },
		{ WYMCP__UI_TOOL, "{\"ui/resourceUri\":\"ui://a\"}", NULL },
		{ WYMCP__UI_TOOL, "{\"ui\":{\"resourceUri\":\"ui://a\"},"
		    "\"ui/resourceUri\":\"ui://a\"}", NULL },
		{ WYMCP__UI_TOOL, "{\"ui\":[]}", "must be an object" },
		{ WYMCP__UI_TOOL, "{\"ui\":{\"resourceUri\":\"https://a\"}}",
		    "ui:// URI" },
		{ WYMCP__UI_TOOL, "{\"ui\":{\"resourceUri\":\"ui://\"}}",
		    "ui:// URI" },
		{ WYMCP__UI_TOOL, "{\"ui\":{\"resourceUri\":7}}", "ui://" },
		{ WYMCP__UI_TOOL, "{\"ui\":{\"visibility\":[]}}",
		    "non-empty" },
		{ WYMCP__UI_TOOL, "{\"ui\":{\"visibility\":\"app\"}}",
		    "non-empty array" },
		{ WYMCP__UI_TOOL, "{\"ui\":{\"visibility\":[\"user\"]}}",
		    "each at most once" },
		{ WYMCP__UI_TOOL, "{\"ui\":{\"visibility\":[\"app\","
		    "\"app\"]}}", "each at most once" },
		{ WYMCP__UI_TOOL, "{\"ui\":{\"resourceURI\":\"ui://a\"}}",
		    "not 'resourceURI'" },
		{ WYMCP__UI_TOOL, "{\"ui\":{\"csp\":{}}}", "not 'csp'" },
		{ WYMCP__UI_TOOL, "{\"ui/resourceUri\":\"x://a\"}",
		    "ui:// URI" },
		{ WYMCP__UI_TOOL, "{\"ui\":{\"resourceUri\":\"ui://a\"},"
		    "\"ui/resourceUri\":\"ui://b\"}", "different" },
		{ WYMCP__UI_RESOURCE, "{\"ui\":{\"csp\":{\"connectDomains\":"
		    "[\"https://a.example\",\"wss://b.example\"],"
		    "\"resourceDomains\":[\"https://*.cdn.example\"],"
		    "\"frameDomains\":[],\"baseUriDomains\":[\"https://c\"]},"
		    "\"permissions\":{\"camera\":{},\"microphone\":{},"
		    "\"geolocation\":{},\"clipboardWrite\":{}},"
		    "\"domain\":\"x.example\",\"prefersBorder\":false}}",
		    NULL },
		{ WYMCP__UI_RESOURCE, "{\"ui\":{\"csp\":[]}}",
		    "csp must be an object" },
		{ WYMCP__UI_RESOURCE, "{\"ui\":{\"csp\":{\"scriptDomains\":"
		    "[]}}}", "not 'scriptDomains'" },
		{ WYMCP__UI_RESOURCE, "{\"ui\":{\"csp\":{\"connectDomains\":"
		    "[1]}}}", "csp.connectDomains must be an array" },
		{ WYMCP__UI_RESOURCE, "{\"ui\":{\"csp\":{\"frameDomains\":"
		    "[\"https://a https://b\"]}}}", "without white space" },
		{ WYMCP__UI_RESOURCE, "{\"ui\":{\"csp\":{\"frameDomains\":"
		    "[\"https://a; script-src *\"]}}}", "csp.frameDomains" },
		{ WYMCP__UI_RESOURCE, "{\"ui\":{\"permissions\":{\"usb\":{}}}}",
		    "not 'usb'" },
		{ WYMCP__UI_RESOURCE, "{\"ui\":{\"permissions\":{\"camera\":"
		    "true}}}", "not 'camera'" },
		{ WYMCP__UI_RESOURCE, "{\"ui\":{\"domain\":\"\"}}",
		    "domain must be a non-empty string" },
		{ WYMCP__UI_RESOURCE, "{\"ui\":{\"prefersBorder\":\"yes\"}}",
		    "true or false" },
		{ WYMCP__UI_RESOURCE, "{\"ui\":{\"resourceUri\":\"ui://a\"}}",
		    "not 'resourceUri'" },
		{ WYMCP__UI_RESOURCE, "{\"ui/resourceUri\":\"ui://a\"}",
		    "belongs to a tool" },
	};
	struct json_object	*o;
	char			 why[256];
	size_t			 i;
	int			 ok;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		o = json_tokener_parse(cases[i].meta);
		ck_assert_msg(o != NULL, "%s", cases[i].meta);
		why[0] = '\0';
		ok = wymcp__ui_meta_ok(o, cases[i].where, why, sizeof(why));
		json_object_put(o);
		if (cases[i].why == NULL)
			ck_assert_msg(ok == 1, "%s refused: %s", cases[i].meta,
			    why);
		else
			ck_assert_msg(ok == 0 && strstr(why, cases[i].why) !=
			    NULL, "%s: %d '%s', wanted '%s'", cases[i].meta, ok,
			    why, cases[i].why);
	}
}
END_TEST

/* A module of one tool with `meta': refused, the tool and rule named. */
static void
refuse_tool(const char *meta, const char *part)
{
	h_refuse_tool(srv, NULL, meta, part);
	h_expect_errmsg(srv, "tool badtool: _meta");
}

/* A module of one resource `r': refused, with `part' in the message. */
static void
refuse_resource(const struct wymcp_resource *r, int template,
    const char *part)
{
	struct wymcp_resource	 tab[2];
	struct wymcp_module	 mod = { .abi = WYMCP_ABI_VERSION,
	    .size = sizeof(struct wymcp_module), .name = "bad",
	    .resource_size = sizeof(struct wymcp_resource) };

	memset(tab, 0, sizeof(tab));
	tab[0] = *r;
	if (template)
		mod.templates = tab;
	else
		mod.resources = tab;
	ck_assert_msg(wymcp_server_add_module(srv, &mod) != WYMCP_OK,
	    "%s taken", r->uri);
	h_expect_errmsg(srv, part);
	ck_assert_uint_eq(srv->nresources, 0);
	ck_assert_uint_eq(srv->napps, 0);
	ck_assert_uint_eq(srv->nmods, 0);
}

/* Module declarations that break the rules are refused, by name. */
START_TEST(bad_apps_refused)
{
	struct wymcp_resource	 r;

	refuse_tool("{\"ui\":{\"resourceUri\":\"https://a/b\"}}",
	    "ui.resourceUri must be a ui:// URI");
	refuse_tool("{\"ui\":{\"visibility\":[\"agent\"]}}",
	    "\"model\" and \"app\"");
	refuse_tool("{\"ui\":{\"resourceUri\":\"ui://a\"},"
	    "\"ui/resourceUri\":\"ui://b\"}", "different resources");

	memset(&r, 0, sizeof(r));
	r.uri = "ui://a/view";
	r.name = "view";
	r.text = HTML;
	r.mime = "text/html";
	refuse_resource(&r, 0, "resource ui://a/view: an MCP Apps resource "
	    "(ui://) has the mime type text/html;profile=mcp-app");
	r.mime = NULL;
	r.meta = "{\"ui\":{\"csp\":{\"connectDomains\":\"*\"}}}";
	refuse_resource(&r, 0, "resource ui://a/view: _meta.ui.csp."
	    "connectDomains must be an array");
	r.meta = "{\"ui\":{\"permissions\":{\"usb\":{}}}}";
	refuse_resource(&r, 0, "not 'usb'");
	r.meta = NULL;
	r.file = "/nonexistent";
	refuse_resource(&r, 0, "only one of them");
	r.text = NULL;
	r.file = "";
	refuse_resource(&r, 0, "resource ui://a/view: file names no path");
	r.text = HTML;
	r.text = NULL;
	r.file = NULL;
	refuse_resource(&r, 0, "a read function, a text or a file is "
	    "required");
	r.uri = "ui://a/{x}";
	r.text = HTML;
	refuse_resource(&r, 1, "a template needs a read function");
	r.uri = "ui://a/view";
	r.text = "\xff\xfe";
	refuse_resource(&r, 0, "text is not UTF-8");
}
END_TEST

/* Write `len' bytes of `text' to tmpdir/name; its path, static. */
static const char *
put_file(const char *name, const char *text, size_t len, mode_t mode)
{
	static char	 path[256];
	FILE		*f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(path, mode), 0);
	return path;
}

/* A file check that refuses files whose name holds "evil". */
static int
no_evil(void *arg, const char *path, char *why, size_t len)
{
	++*(int *)arg;
	if (strstr(path, "evil") == NULL)
		return 0;
	snprintf(why, len, "%s is writable by others", path);
	return -1;
}

/* The HTML from a file: read once at load; refusals name the file. */
START_TEST(html_from_a_file)
{
	struct wymcp_resource	 r;
	struct json_object	*c;
	const char		*path;
	char			*big, want[512], rel[300], cwd[4096];
	int			 checked = 0;

	wymcp_server_set_file_check(srv, no_evil, &checked);
	memset(&r, 0, sizeof(r));
	r.uri = "ui://a/view";
	r.name = "view";
	r.file = put_file("missing.html", "", 0, 0644);
	ck_assert_int_eq(unlink(r.file), 0);
	snprintf(want, sizeof(want), "resource ui://a/view: file %s: No such "
	    "file", r.file);
	refuse_resource(&r, 0, want);
	r.file = put_file("evil.html", HTML, strlen(HTML), 0644);
	snprintf(want, sizeof(want), "file %s: refused: %s is writable by "
	    "others", r.file, r.file);
	refuse_resource(&r, 0, want);
	r.file = put_file("bad.html", "<p>\xc3</p>", 8, 0644);
	refuse_resource(&r, 0, "is not UTF-8 text");
	big = malloc(WYMCP_APP_FILE_MAX + 1);
	ck_assert_ptr_nonnull(big);
	memset(big, 'a', WYMCP_APP_FILE_MAX + 1);
	r.file = put_file("big.html", big, WYMCP_APP_FILE_MAX + 1, 0644);
	free(big);
	refuse_resource(&r, 0, "big.html is larger than 4194304 bytes");
	if (geteuid() != 0) {
		r.file = put_file("secret.html", HTML, strlen(HTML), 0);
		refuse_resource(&r, 0, "Permission denied");
	}

	/* Relative: to the working directory, for a module linked in. */
	path = put_file("view.html", HTML, strlen(HTML), 0644);
	ck_assert_ptr_nonnull(getcwd(cwd, sizeof(cwd)));
	ck_assert_int_eq(chdir(tmpdir), 0);
	snprintf(rel, sizeof(rel), "view.html");
	r.file = rel;
	{
		struct wymcp_resource	 tab[2] = { r, { .uri = NULL } };
		struct wymcp_module	 mod = { .abi = WYMCP_ABI_VERSION,
		    .size = sizeof(struct wymcp_module), .name = "app",
		    .resources = tab,
		    .resource_size = sizeof(struct wymcp_resource) };

		ck_assert_msg(wymcp_server_add_module(srv, &mod) == WYMCP_OK,
		    "%s", wymcp_server_errmsg(srv));
		ck_assert_int_eq(chdir(cwd), 0);
		/* Read once: changing the file changes nothing served. */
		put_file("view.html", "changed", 7, 0644);
		ck_assert_int_eq(h_call(srv, "resources/read", "ui://a/view",
		    "{\"uri\":\"ui://a/view\"}", NULL, &resp), WYMCP_OK);
		c = json_object_array_get_idx(h_jp(h_result(&resp),
		    "contents", NULL), 0);
		ck_assert_msg(c != NULL, "%s", resp.body);
		ck_assert_str_eq(h_compact(c), "{\"uri\":\"ui://a/view\","
		    "\"mimeType\":\"text/html;profile=mcp-app\",\"text\":"
		    "\"<!DOCTYPE html><html><body><p>hi</p></body>"
		    "</html>\"}");
	}
	(void)path;
	ck_assert_int_ge(checked, 4);
}
END_TEST

/* The mounted tools for the model, space-separated (as help reads). */
static enum wymcp_err
lister_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	char	*s = "";
	size_t	 i;

	(void)args;
	for (i = 0; s != NULL && i < wymcp_ctx_ntools(ctx) + 1; i++)
		if (wymcp_ctx_tool_for_model(ctx, i))
			s = wymcp_printf(ctx, "%s%s%s", s, *s ? " " : "",
			    wymcp_ctx_tool(ctx, i)->name);
	if (s == NULL)
		return WYMCP_ERR_NOMEM;
	return wymcp_result_text(res, "%s", s);
}

static const struct wymcp_tool app_tools[] = {
	{ .name = "show", .description = "Shows the view.", .run = say_run,
	    .meta = "{\"ui\":{\"resourceUri\":\"ui://a/view\"}}" },
	{ .name = "refresh", .description = "Refreshes the view (app only).",
	    .run = say_run, .meta = "{\"ui\":{\"resourceUri\":\"ui://a/view\","
	    "\"visibility\":[\"app\"]}}" },
	{ .name = "model_only", .description = "For the model.",
	    .run = say_run, .meta = "{\"ui\":{\"visibility\":[\"model\"]},"
	    "\"ui/resourceUri\":\"ui://a/view\"}" },
	{ .name = "lister", .description = "Lists the tools for the model.",
	    .run = lister_run },
	{ .name = NULL }
};
static const struct wymcp_resource app_resources[] = {
	{ .uri = "ui://a/view", .name = "view", .text = HTML,
	    .meta = "{\"ui\":{\"csp\":{\"connectDomains\":"
	    "[\"https://api.example\"]},\"prefersBorder\":true}}" },
	{ .uri = "ui://a/dyn", .name = "dyn", .read = read_bad_ui },
	{ .uri = NULL }
};
static const struct wymcp_module app_mod = { .abi = WYMCP_ABI_VERSION,
    .size = sizeof(struct wymcp_module), .name = "app", .tools = app_tools,
    .resources = app_resources, .tool_size = sizeof(struct wymcp_tool),
    .resource_size = sizeof(struct wymcp_resource) };

/* The tools/list names of a request with _meta `meta' (NULL: H_META). */
static const char *
names(const char *meta)
{
	static char		 buf[256];
	struct json_object	*a;
	char			 params[1024];
	size_t			 i, n;

	h_free(&resp);
	snprintf(params, sizeof(params), "{\"_meta\":%s}", meta != NULL ?
	    meta : H_META);
	ck_assert_int_eq(h_call(srv, "tools/list", NULL, params, NULL,
	    &resp), WYMCP_OK);
	a = h_jp(h_result(&resp), "tools", NULL);
	ck_assert_msg(a != NULL, "%s", resp.body);
	buf[0] = '\0';
	for (n = 0, i = 0; i < json_object_array_length(a); i++)
		n += snprintf(buf + n, sizeof(buf) - n, "%s%s", i > 0 ? " " :
		    "", json_object_get_string(h_jp(
		    json_object_array_get_idx(a, i), "name", NULL)));
	return buf;
}

/* A tools/call of `tool' with _meta `meta'; its text, or "error N". */
static const char *
call(const char *tool, const char *meta)
{
	static char	 buf[128];
	char		 params[1024];

	h_free(&resp);
	snprintf(params, sizeof(params), "{\"_meta\":%s,\"name\":\"%s\"}",
	    meta != NULL ? meta : H_META, tool);
	ck_assert_int_eq(h_call(srv, "tools/call", tool, params, NULL,
	    &resp), WYMCP_OK);
	if (h_code(&resp) != 0)
		snprintf(buf, sizeof(buf), "error %d", h_code(&resp));
	else
		snprintf(buf, sizeof(buf), "%s", h_text(&resp) != NULL ?
		    h_text(&resp) : "(none)");
	return buf;
}

/*
 * Visibility (apps.mdx "Visibility", "Server Behavior"): an app-only
 * tool is listed and callable for a client that declared the
 * extension, and does not exist for one that did not.
 */
START_TEST(visibility)
{
	ck_assert_msg(wymcp_server_add_module(srv, &app_mod) == WYMCP_OK,
	    "%s", wymcp_server_errmsg(srv));
	ck_assert_uint_eq(srv->napps, 2);
	ck_assert_uint_eq(srv->napps_only, 1);
	ck_assert_str_eq(names(NULL), "show model_only lister");
	ck_assert_str_eq(names(UI_META), "show refresh model_only lister");
	/* Another mime type only: not an MCP Apps host of this kind. */
	ck_assert_str_eq(names("{\"io.modelcontextprotocol/protocolVersion\":"
	    "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":"
	    "{\"extensions\":{\"io.modelcontextprotocol/ui\":{\"mimeTypes\":"
	    "[\"text/uri-list\"]}}}}"), "show model_only lister");
	ck_assert_str_eq(call("refresh", NULL), "error -32602");
	ck_assert_msg(strstr(resp.body, "Unknown tool: refresh") != NULL,
	    "%s", resp.body);
	ck_assert_str_eq(call("refresh", UI_META), "done");
	ck_assert_str_eq(call("show", NULL), "done");
	ck_assert_str_eq(call("model_only", UI_META), "done");
	/* What a tool tells the model never names an app-only tool. */
	ck_assert_str_eq(call("lister", NULL), "show model_only lister");
	ck_assert_str_eq(call("lister", UI_META), "show model_only lister");
}
END_TEST

/* The listings: the flat key beside ui.resourceUri, mime defaulted. */
START_TEST(listings)
{
	struct json_object	*t, *c;

	ck_assert_msg(wymcp_server_add_module(srv, &app_mod) == WYMCP_OK,
	    "%s", wymcp_server_errmsg(srv));
	names(UI_META);
	t = h_jp(h_result(&resp), "tools", NULL);
	ck_assert_str_eq(h_compact(h_jp(json_object_array_get_idx(t, 0),
	    "_meta", NULL)), "{\"ui\":{\"resourceUri\":\"ui://a/view\"},"
	    "\"ui/resourceUri\":\"ui://a/view\"}");
	ck_assert_str_eq(h_compact(h_jp(json_object_array_get_idx(t, 2),
	    "_meta", NULL)), "{\"ui\":{\"visibility\":[\"model\"],"
	    "\"resourceUri\":\"ui://a/view\"},"
	    "\"ui/resourceUri\":\"ui://a/view\"}");
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, "resources/list", NULL, NULL, NULL,
	    &resp), WYMCP_OK);
	ck_assert_str_eq(h_compact(json_object_array_get_idx(h_jp(
	    h_result(&resp), "resources", NULL), 0)), "{\"uri\":\"ui://a"
	    "/view\",\"name\":\"view\",\"mimeType\":\"text/html;profile="
	    "mcp-app\",\"_meta\":{\"ui\":{\"csp\":{\"connectDomains\":"
	    "[\"https://api.example\"]},\"prefersBorder\":true}}}");
	/* Served by the library: the text, and the _meta on the entry. */
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, "resources/read", "ui://a/view",
	    "{\"uri\":\"ui://a/view\"}", NULL, &resp), WYMCP_OK);
	c = json_object_array_get_idx(h_jp(h_result(&resp), "contents", NULL),
	    0);
	ck_assert_msg(c != NULL, "%s", resp.body);
	ck_assert_str_eq(json_object_get_string(h_jp(c, "text", NULL)), HTML);
	ck_assert_str_eq(h_compact(h_jp(c, "_meta", NULL)), "{\"ui\":{\"csp\":"
	    "{\"connectDomains\":[\"https://api.example\"]},"
	    "\"prefersBorder\":true}}");
	/* A module's read(): a bad contents _meta.ui is refused. */
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, "resources/read", "ui://a/dyn",
	    "{\"uri\":\"ui://a/dyn\"}", NULL, &resp), WYMCP_OK);
	c = json_object_array_get_idx(h_jp(h_result(&resp), "contents", NULL),
	    0);
	ck_assert_msg(c != NULL, "%s", resp.body);
	ck_assert_str_eq(h_compact(h_jp(c, "_meta", "ui", "domain", NULL)),
	    "\"a.example\"");
}
END_TEST

/* server/discover declares the extension when a ui:// resource is. */
START_TEST(discover_declares_the_extension)
{
	static const struct wymcp_tool plain[] = {
		{ .name = "p", .description = "d", .run = say_run },
		{ .name = NULL }
	};
	static const struct wymcp_module plain_mod = {
	    .abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	    .name = "plain", .tools = plain,
	    .tool_size = sizeof(struct wymcp_tool) };
	struct json_object	*ext;

	ck_assert_int_eq(wymcp_server_add_module(srv, &plain_mod), WYMCP_OK);
	ck_assert_int_eq(h_call(srv, "server/discover", NULL, NULL, NULL,
	    &resp), WYMCP_OK);
	ck_assert_ptr_null(h_jp(h_result(&resp), "capabilities",
	    "extensions", NULL));
	ck_assert_int_eq(wymcp_server_add_module(srv, &app_mod), WYMCP_OK);
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, "server/discover", NULL, NULL, NULL,
	    &resp), WYMCP_OK);
	ext = h_jp(h_result(&resp), "capabilities", "extensions", NULL);
	ck_assert_msg(ext != NULL, "%s", resp.body);
	ck_assert_str_eq(h_compact(ext),
	    "{\"io.modelcontextprotocol/ui\":{}}");
}
END_TEST

/*
 * ABI: a module built before text and file (its resources end at
 * size), packed at that stride: the next element's uri and name, where
 * this header has text and file, must read as absent.
 */
START_TEST(abi_resources_before_text)
{
	struct old_resource {
		char	 bytes[offsetof(struct wymcp_resource, text)];
	};
	static const struct wymcp_resource full[] = {
		{ .uri = "x://one", .name = "one", .read = read_bad_ui },
		{ .uri = "ui://a/two", .name = "two", .read = read_bad_ui },
		{ .uri = "x://three", .name = "three", .read = read_bad_ui },
		{ .uri = NULL }
	};
	struct old_resource	 packed[4];
	struct wymcp_module	 mod = { .abi = WYMCP_ABI_VERSION,
	    .size = sizeof(struct wymcp_module), .name = "old",
	    .resources = (const struct wymcp_resource *)(void *)packed,
	    .resource_size = sizeof(struct old_resource) };
	size_t			 i;

	for (i = 0; i < 4; i++)
		memcpy(&packed[i], &full[i], sizeof(packed[i]));
	ck_assert_msg(wymcp_server_add_module(srv, &mod) == WYMCP_OK, "%s",
	    wymcp_server_errmsg(srv));
	ck_assert_uint_eq(srv->nresources, 3);
	ck_assert_uint_eq(srv->napps, 1);
	ck_assert_ptr_null(srv->resources[1].text);
	ck_assert_int_eq(h_call(srv, "resources/read", "ui://a/two",
	    "{\"uri\":\"ui://a/two\"}", NULL, &resp), WYMCP_OK);
	ck_assert_msg(strstr(resp.body, "\"domain\":\"a.example\"") != NULL,
	    "%s", resp.body);
}
END_TEST

static Suite *
apps_suite(void)
{
	Suite	*s = suite_create("apps");
	TCase	*tc = tcase_create("apps");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, ui_meta_shapes);
	tcase_add_test(tc, bad_apps_refused);
	tcase_add_test(tc, html_from_a_file);
	tcase_add_test(tc, visibility);
	tcase_add_test(tc, listings);
	tcase_add_test(tc, discover_declares_the_extension);
	tcase_add_test(tc, abi_resources_before_text);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return h_run(apps_suite());
}
