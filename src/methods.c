/*
 * methods.c - the MCP methods wymcp answers, and their results
 *
 * MCP 2026-07-28: server/discover (server/discover.mdx), tools/list and
 * tools/call (server/tools.mdx), and the method table; resources,
 * prompts and completion live in resource.c and prompt.c, list paging
 * in list.c.  Every result carries resultType and
 * _meta io.modelcontextprotocol/serverInfo (basic/index.mdx "Result");
 * cacheable ones carry ttlMs and cacheScope (server/utilities/caching.mdx).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "extern.h"

/* Reply with a JSON-RPC error.  Takes ownership of `data`. */
void
wymcp__reply_error(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    int status, int code, const char *message, struct json_object *data)
{
	r->status = status;
	r->body = wymcp__error(ctx->id, code, message, data);
}

/* Reply -32603 (HTTP 500) for an allocation failure, and log it. */
void
wymcp__reply_nomem(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	wymcp__log(ctx->srv, ctx, WYMCP_LOG_ERR, "out of memory");
	wymcp__reply_error(ctx, r, 500, WYMCP__INTERNAL_ERROR,
	    "Internal error: out of memory", NULL);
}

/*
 * Reply with a result: stamps resultType "complete" unless set, and the
 * serverInfo _meta.  A legacy (2025-11-25) request's result is reshaped
 * instead (legacy.c).  Takes ownership of `result`.
 */
void
wymcp__reply_result(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    struct json_object *result)
{
	struct json_object	*meta, *info;

	if (result == NULL) {
		wymcp__reply_nomem(ctx, r);
		return;
	}
	if (ctx->legacy) {
		wymcp__legacy_result(ctx, result);
		r->status = 200;
		r->body = wymcp__response(ctx->id, result);
		return;
	}
	if (!json_object_object_get_ex(result, "resultType", NULL))
		json_object_object_add(result, "resultType",
		    json_object_new_string("complete"));
	if (json_object_object_get_ex(result, "_meta", &meta)) {
		json_object_object_get_ex(ctx->srv->result_meta,
		    WYMCP__META_SERVER, &info);
		json_object_object_add(meta, WYMCP__META_SERVER,
		    json_object_get(info));
	} else
		json_object_object_add(result, "_meta",
		    json_object_get(ctx->srv->result_meta));
	r->status = 200;
	r->body = wymcp__response(ctx->id, result);
}

/* Add ttlMs and cacheScope to a cacheable result. */
void
wymcp__cache_hints(struct json_object *result, int private)
{
	json_object_object_add(result, "ttlMs",
	    json_object_new_int(WYMCP__TTL_MS));
	json_object_object_add(result, "cacheScope",
	    json_object_new_string(private ? "private" : "public"));
}

/*
 * What this server offers (server/discover.mdx; the same object is the
 * legacy initialize's capabilities): no listChanged and no subscribe,
 * since subscriptions/listen is not served and no stream is ever held
 * (README).  logging: tools' wymcp_log() lines reach clients that ask
 * with _meta logLevel (and legacy clients, from info up).  A new
 * object, NULL when out of memory.
 */
struct json_object *
wymcp__server_caps(const struct wymcp_server *srv)
{
	struct json_object	*caps;

	if ((caps = json_object_new_object()) == NULL)
		return NULL;
	json_object_object_add(caps, "tools", json_object_new_object());
	if (srv->nresources > 0 || srv->ntemplates > 0)
		json_object_object_add(caps, "resources",
		    json_object_new_object());
	if (srv->nprompts > 0)
		json_object_object_add(caps, "prompts",
		    json_object_new_object());
	if (srv->nprompts > 0 || srv->ntemplates > 0 || srv->ncompleters > 0)
		json_object_object_add(caps, "completions",
		    json_object_new_object());
	json_object_object_add(caps, "logging", json_object_new_object());
	return caps;
}

/*
 * server/discover: the versions and capabilities of this server.  The
 * answer is the same for every client, so it is publicly cacheable.
 * supportedVersions names the legacy versions too when their era is
 * on (legacy.c): a client reaches those with initialize.
 */
static void
discover(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	struct json_object	*res;

	if ((res = json_object_new_object()) == NULL)
		goto nomem;
	json_object_object_add(res, "resultType",
	    json_object_new_string("complete"));
	json_object_object_add(res, "supportedVersions",
	    wymcp__supported_versions(ctx));
	json_object_object_add(res, "capabilities",
	    wymcp__server_caps(ctx->srv));
	wymcp__cache_hints(res, 0);
	wymcp__reply_result(ctx, r, res);
	return;
nomem:
	wymcp__reply_result(ctx, r, NULL);
}

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
 * Is registered tool `t` one of the `n` tools of table `tab`?  A tool's
 * def points into its module's table, so the address tells.
 */
static int
tool_of(const struct wymcp__tool *t, const struct wymcp_tool *tab, size_t n)
{
	uintptr_t	 p = (uintptr_t)t->def, b = (uintptr_t)tab;

	return n > 0 && p >= b && p < b + n * sizeof(*tab);
}

/*
 * tools/list: the mounted tools in registration order, a page at a time
 * (list.c); the cursor's identity is the mount list.  The mount list may
 * follow the web server's auth (WYMCP_TOOLS set per user), so an
 * authenticated request's list is private to it; so is one holding a
 * tool of a module that marks its results private.  ttlMs is the
 * smallest of the modules whose tools are mounted.
 */
static void
tools_list(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	const struct wymcp_module *mod;
	struct wymcp__list	 l;
	int64_t			 ttl;
	size_t			 i, k, n;

	if (wymcp__ctx_assigns(ctx) != WYMCP_OK ||
	    wymcp__ctx_mount(ctx) != WYMCP_OK) {
		wymcp__reply_result(ctx, r, NULL);
		return;
	}
	memset(&l, 0, sizeof(l));
	l.kind = "tools";
	l.n = ctx->ntools;
	l.at = tool_at;
	l.arg = ctx->tools;
	l.ttl = -1;
	l.private = ctx->principal != NULL;
	for (i = 0; i < ctx->srv->nmods; i++) {
		mod = ctx->srv->mods[i].mod;
		for (n = 0; mod->tools != NULL && mod->tools[n].name != NULL;
		    n++)
			continue;
		for (k = 0; k < ctx->ntools; k++)
			if (tool_of(ctx->tools[k], mod->tools, n))
				break;
		if (k == ctx->ntools)
			continue;
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
 * The answers this round carries: the sealed requestState's (earlier
 * rounds), with this round's inputResponses merged over them
 * (basic/patterns/mrtr.mdx).  Returns 0, or -1 after replying with the
 * error (-32602 for a malformed inputResponses or a requestState that
 * does not open).
 */
int
wymcp__answers(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	struct json_object	*resp = NULL, *st = NULL, *merged;

	if (json_object_object_get_ex(ctx->params, "inputResponses", &resp) &&
	    !wymcp__responses_ok(resp)) {
		wymcp__reply_error(ctx, r, 200, WYMCP__INVALID_PARAMS,
		    "Invalid params: inputResponses must be an object of "
		    "result objects", NULL);
		return -1;
	}
	if (json_object_object_get_ex(ctx->params, "requestState", &st) &&
	    !json_object_is_type(st, json_type_string)) {
		wymcp__reply_error(ctx, r, 200, WYMCP__INVALID_PARAMS,
		    "Invalid params: requestState must be a string", NULL);
		return -1;
	}
	if (st != NULL) {
		if (wymcp__unseal(ctx, json_object_get_string(st), &merged)) {
			wymcp__reply_error(ctx, r, 200, WYMCP__INVALID_PARAMS,
			    "Invalid requestState: it may have expired, or "
			    "belong to another call or user", NULL);
			return -1;
		}
	} else if ((merged = wymcp_own(ctx, json_object_new_object())) ==
	    NULL)
		goto nomem;
	if (resp != NULL) {
		json_object_object_foreach(resp, k, v)
			if (json_object_object_add(merged, k,
			    json_object_get(v)))
				goto nomem;
	}
	ctx->answers = merged;
	return 0;
nomem:
	wymcp__reply_nomem(ctx, r);
	return -1;
}

/*
 * The round ended at unanswered questions: answer input_required with
 * them and a requestState sealing the answers the run read.
 */
void
wymcp__input_required(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    struct wymcp__run *run)
{
	struct json_object	*res;
	const char		*tok;

	/* Never to a legacy client (it has no capabilities: elicit.c). */
	if (ctx->legacy) {
		wymcp__reply_error(ctx, r, 500, WYMCP__INTERNAL_ERROR,
		    "Internal error: a 2025-11-25 client cannot be asked",
		    NULL);
		return;
	}
	if ((tok = wymcp__seal(ctx, run->used)) == NULL ||
	    (res = json_object_new_object()) == NULL) {
		wymcp__reply_error(ctx, r, 500, WYMCP__INTERNAL_ERROR,
		    "Internal error: could not seal the requestState", NULL);
		return;
	}
	json_object_object_add(res, "resultType",
	    json_object_new_string("input_required"));
	json_object_object_add(res, "inputRequests",
	    json_object_get(run->pending));
	json_object_object_add(res, "requestState",
	    json_object_new_string(tok));
	wymcp__reply_result(ctx, r, res);
}

/*
 * tools/call: look the tool up in the mount list, check the client
 * declared what it needs and that the arguments fit its input schema,
 * then run it once.
 */
static void
tools_call(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	const struct wymcp__tool *t;
	struct json_object	*v, *args = NULL, *missing, *data;
	struct wymcp_result	*res;
	const char		*name;
	char			 why[256], *msg;
	enum wymcp_err		 rc;
	int			 m;

	if (!json_object_object_get_ex(ctx->params, "name", &v) ||
	    !json_object_is_type(v, json_type_string)) {
		wymcp__reply_error(ctx, r, 200, WYMCP__INVALID_PARAMS,
		    "Invalid params: name must be a string", NULL);
		return;
	}
	name = json_object_get_string(v);
	if (json_object_object_get_ex(ctx->params, "arguments", &args) &&
	    !json_object_is_type(args, json_type_object)) {
		wymcp__reply_error(ctx, r, 200, WYMCP__INVALID_PARAMS,
		    "Invalid params: arguments must be an object", NULL);
		return;
	}
	if (wymcp__ctx_assigns(ctx) != WYMCP_OK ||
	    wymcp__ctx_mount(ctx) != WYMCP_OK)
		goto nomem;
	if ((t = wymcp__ctx_find_tool(ctx, name)) == NULL) {
		msg = wymcp_printf(ctx, "Unknown tool: %s", name);
		wymcp__reply_error(ctx, r, 200, WYMCP__INVALID_PARAMS,
		    msg != NULL ? msg : "Unknown tool", NULL);
		return;
	}
	if ((m = wymcp__caps_missing(t->reqcaps, ctx->caps, &missing)) < 0)
		goto nomem;
	if (m > 0 && ctx->legacy) {
		wymcp__legacy_missing_caps(ctx, r, name, missing);
		return;
	}
	if (m > 0) {
		data = json_object_new_object();
		json_object_object_add(data, "requiredCapabilities", missing);
		msg = wymcp_printf(ctx, "Tool %s requires client capabilities "
		    "this request did not declare: %s", name,
		    wymcp__json(missing));
		wymcp__reply_error(ctx, r, 400, WYMCP__MISSING_CAPABILITY,
		    msg != NULL ? msg : "Missing required client capability",
		    data);
		return;
	}
	if (args == NULL &&
	    (args = wymcp_own(ctx, json_object_new_object())) == NULL)
		goto nomem;
	m = wymcp__schema_validate(t->input, args, why, sizeof(why));
	if (m < 0)
		goto nomem;
	if (m == 0) {
		msg = wymcp_printf(ctx, "Invalid arguments for tool %s: %s",
		    name, why);
		wymcp__reply_error(ctx, r, 200, WYMCP__INVALID_PARAMS,
		    msg != NULL ? msg : "Invalid arguments", NULL);
		return;
	}

	if ((res = wymcp__result_new(ctx)) == NULL)
		goto nomem;
	if (!wymcp__round_tool(ctx, r, t->def, args, res, &rc))
		return;
	if (rc == WYMCP_ERR_NOMEM)
		goto nomem;
	wymcp__result_finish(res, rc);
	if (rc != WYMCP_OK)
		wymcp__log(ctx->srv, ctx, WYMCP_LOG_INFO, "tool %s: %s",
		    name, wymcp_strerror(rc));
	else if (t->def->output_schema != NULL) {
		json_object_object_get_ex(t->listing, "outputSchema", &v);
		if (res->structured == NULL ||
		    wymcp__schema_validate(v, res->structured, why,
		    sizeof(why)) != 1) {
			wymcp__log(ctx->srv, ctx, WYMCP_LOG_ERR, "tool %s: "
			    "structured result does not match its "
			    "outputSchema: %s", name,
			    res->structured == NULL ? "none given" : why);
			wymcp__reply_error(ctx, r, 500, WYMCP__INTERNAL_ERROR,
			    "Internal error: the tool's result does not "
			    "match its outputSchema", NULL);
			return;
		}
	}
	wymcp__reply_result(ctx, r, wymcp__call_result(res));
	return;
nomem:
	wymcp__reply_nomem(ctx, r);
}

/*
 * The method table.  Methods removed in 2026-07-28 (initialize, ping,
 * logging/setLevel, resources/subscribe, ...) are simply absent, so
 * they get 404 and -32601 like any unknown method; the legacy era has
 * them (legacy.c).
 */
static const struct wymcp__method methods[] = {
	{ "completion/complete",	NULL,	wymcp__complete },
	{ "prompts/get",		"name",	wymcp__prompts_get },
	{ "prompts/list",		NULL,	wymcp__prompts_list },
	{ "resources/list",		NULL,	wymcp__resources_list },
	{ "resources/read",		"uri",	wymcp__resources_read },
	{ "resources/templates/list",	NULL,	wymcp__templates_list },
	{ "server/discover",		NULL,	discover },
	{ "tools/call",			"name",	tools_call },
	{ "tools/list",			NULL,	tools_list },
};

const struct wymcp__method *
wymcp__method_find(const char *name)
{
	size_t	 i;

	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (strcmp(methods[i].name, name) == 0)
			return &methods[i];
	return NULL;
}
