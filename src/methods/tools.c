/* tools.c - tools/list and tools/call (server/tools.mdx) */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "methods/methods.h"

/* Entry i of the mount list, for wymcp__list_reply(). */
static void
tool_at(const void *arg, size_t i, struct json_object **listing,
    const unsigned char **digest)
{
	const struct wymcp__tool *const *tools = arg;

	*listing = tools[i]->listing;
	*digest = tools[i]->digest;
}

/*
 * tools/list: the mounted tools in registration order, a page at a time
 * (list.c); the cursor's identity is the mount list.  The mount list may
 * follow the web server's auth (WYMCP_TOOLS chosen per user or per
 * role), so the list of a request with a principal or any assign is
 * private to it (caching.mdx: "private" for scope-filtered lists); so
 * is one holding a tool of a module that marks its results private.
 * ttlMs is the smallest of the modules whose tools are mounted.  Tools
 * whose scopes the token (WYMCP_SCOPES) lacks are left out: where a
 * tool declares scopes, every list depends on the token and is private.
 * So are tools whose MCP Apps visibility leaves out the model, for a
 * client that did not declare io.modelcontextprotocol/ui: such a client
 * has no app to call them, and would show them to the model (apps.mdx
 * "Server Behavior": check client capabilities before offering UI
 * tools).  A host that declared it gets them and keeps them from the
 * model itself ("Visibility").
 */
void
wymcp__tools_list(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	const struct wymcp_module *mod;
	const struct wymcp__tool *const *shown;
	const struct wymcp__tool **some;
	struct wymcp__list	 l;
	int64_t			 ttl;
	size_t			 i, n;
	int			 apps;

	/* The listings' digests and frozen text: made once, on first use. */
	if (wymcp__ctx_assigns(ctx) != WYMCP_OK ||
	    wymcp__ctx_mount(ctx) != WYMCP_OK ||
	    wymcp__tools_digest(ctx->srv) != WYMCP_OK) {
		wymcp__reply_nomem(ctx, r);
		return;
	}
	shown = ctx->who.tools;
	n = ctx->who.ntools;
	/*
	 * Only the tools the token's scopes let it call, and app-only
	 * tools (MCP Apps) only for a client that declared the extension.
	 */
	apps = ctx->srv->napps_only == 0 || wymcp__ctx_apps(ctx);
	if (ctx->srv->tools_scoped || !apps) {
		if ((some = wymcp_alloc(ctx, (n + 1) * sizeof(*some))) ==
		    NULL) {
			wymcp__reply_nomem(ctx, r);
			return;
		}
		for (n = 0, i = 0; i < ctx->who.ntools; i++)
			if ((!ctx->srv->tools_scoped ||
			    wymcp__ctx_scoped(ctx, ctx->who.tools[i])) &&
			    (apps || !ctx->who.tools[i]->app_only))
				some[n++] = ctx->who.tools[i];
		if (n < ctx->who.ntools)
			shown = some;
	}
	memset(&l, 0, sizeof(l));
	l.kind = "tools";
	l.n = n;
	l.at = tool_at;
	l.arg = shown;
	l.ttl = -1;
	l.private = ctx->who.principal != NULL ||
	    json_object_object_length(ctx->who.assigns) > 0 ||
	    ctx->srv->tools_scoped;
	/* The list's identity and hints: of every tool, known now. */
	l.id = shown == ctx->who.tools ? ctx->who.mount_digest : NULL;
	if (shown == ctx->srv->all) {
		l.ttl = ctx->srv->tools_ttl;
		l.private |= ctx->srv->tools_private;
	} else
		for (i = 0; i < n; i++) {
			mod = shown[i]->mod;
			ttl = wymcp__module_ttl(mod);
			if (l.ttl < 0 || ttl < l.ttl)
				l.ttl = ttl;
			if (wymcp__module_private(mod))
				l.private = 1;
		}
	if (l.ttl < 0)
		l.ttl = WYMCP__TTL_MS;
	wymcp__list_reply(ctx, r, &l);
}

/*
 * tools/call: the name and arguments, the tool in the mount list, then
 * the call core (call.c).
 */
void
wymcp__tools_call(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	const struct wymcp__tool *t;
	struct json_object	*v, *args = NULL;
	const char		*name;
	char			*msg;

	if (!json_object_object_get_ex(ctx->req.params, "name", &v) ||
	    !json_object_is_type(v, json_type_string)) {
		wymcp__reply_invalid(ctx, r,
		    "Invalid params: name must be a string");
		return;
	}
	name = json_object_get_string(v);
	if (json_object_object_get_ex(ctx->req.params, "arguments", &args) &&
	    !json_object_is_type(args, json_type_object)) {
		wymcp__reply_invalid(ctx, r,
		    "Invalid params: arguments must be an object");
		return;
	}
	if (wymcp__ctx_assigns(ctx) != WYMCP_OK ||
	    wymcp__ctx_mount(ctx) != WYMCP_OK) {
		wymcp__reply_nomem(ctx, r);
		return;
	}
	if ((t = wymcp__ctx_find_tool(ctx, name)) == NULL) {
		msg = wymcp_printf(ctx, "Unknown tool: %s",
		    wymcp__ctx_quote(ctx, name));
		wymcp__reply_invalid(ctx, r, msg != NULL ? msg :
		    "Unknown tool");
		return;
	}
	wymcp__tool_call(ctx, r, t, args);
}
