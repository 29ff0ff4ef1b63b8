/*
 * resources.c - resources/list, resources/templates/list, resources/read
 *
 * MCP 2026-07-28 server/resources.mdx.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "methods/methods.h"

/* What read_body() needs: the run boundary takes one pointer. */
struct read_body {
	const struct wymcp__resource	*res;
	const char			*uri;
	struct json_object		*vars;
	struct wymcp_resource_result	*out;
};

/*
 * Run a resource's read() (inside wymcp__run()), or serve the text the
 * module gave (wymcp_apps(3)): one entry with the listing's mimeType,
 * and its _meta too, so that an MCP Apps host finds the ui metadata on
 * the contents entry, where apps.mdx "Metadata Location" prefers it.
 */
static enum wymcp_err
read_body(struct wymcp_ctx *ctx, void *arg)
{
	struct read_body	*rb = arg;
	struct json_object	*mime = NULL, *meta = NULL;
	enum wymcp_err		 rc;

	if (rb->res->def->read != NULL)
		return rb->res->def->read(ctx, rb->uri, rb->vars, rb->out);
	json_object_object_get_ex(rb->res->listing, "mimeType", &mime);
	if ((rc = wymcp_contents_text(rb->out, rb->uri, mime != NULL ?
	    json_object_get_string(mime) : NULL, rb->res->text)) != WYMCP_OK)
		return rc;
	if (json_object_object_get_ex(rb->res->listing, "_meta", &meta))
		return wymcp_contents_meta(rb->out, meta);
	return WYMCP_OK;
}

/*
 * The resources capability is advertised (server/discover) only when
 * something is registered; without it the methods do not exist (404,
 * -32601), as for any method the server does not offer.  Returns 1
 * after replying so.
 */
static int
gated(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	if (ctx->srv->nresources > 0 || ctx->srv->ntemplates > 0)
		return 0;
	wymcp__reply_no_method(ctx, r, 404);
	return 1;
}

/* Entry i of a resource table, for wymcp__list_reply(). */
static void
resource_at(const void *arg, size_t i, struct json_object **listing,
    const unsigned char **digest)
{
	const struct wymcp__resource *tab = arg;

	*listing = tab[i].listing;
	*digest = tab[i].digest;
}

/*
 * A list of resources or templates: every registered entry in
 * registration order, paged.  ttlMs is the smallest of the modules the
 * list holds entries of; the list is private if one of them says so.
 * Nothing the web server sets (principal, assigns, WYMCP_TOOLS) narrows
 * it, so unlike tools/list it stays public with them; resources/read,
 * whose answer may follow the assigns, is always private.
 */
static void
resource_list(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    const char *kind, const struct wymcp__resource *tab, size_t n)
{
	struct wymcp__list	 l;
	int64_t			 ttl;
	size_t			 i;

	if (gated(ctx, r))
		return;
	memset(&l, 0, sizeof(l));
	l.kind = kind;
	l.n = n;
	l.at = resource_at;
	l.arg = tab;
	l.ttl = -1;
	for (i = 0; i < n; i++) {
		ttl = wymcp__module_ttl(tab[i].mod);
		if (l.ttl < 0 || ttl < l.ttl)
			l.ttl = ttl;
		if (wymcp__module_private(tab[i].mod))
			l.private = 1;
	}
	if (l.ttl < 0)
		l.ttl = WYMCP__TTL_MS;
	wymcp__list_reply(ctx, r, &l);
}

/* resources/list (server/resources.mdx "Listing Resources"). */
void
wymcp__resources_list(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	resource_list(ctx, r, "resources", ctx->srv->resources,
	    ctx->srv->nresources);
}

/* resources/templates/list (server/resources.mdx "Resource Templates"). */
void
wymcp__templates_list(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	resource_list(ctx, r, "resourceTemplates", ctx->srv->templates,
	    ctx->srv->ntemplates);
}

/* Put the result's own references (a cleanup hook). */
static void
contents_free(void *arg)
{
	struct wymcp_resource_result	*res = arg;

	json_object_put(res->contents);
}

/*
 * Find what serves `uri`: the fixed resource of that exact URI first,
 * then the first template that matches, in registration order.  1 with
 * *found and *vars, 0 when nothing does, -1 when out of memory.
 */
static int
resolve(struct wymcp_ctx *ctx, const char *uri,
    const struct wymcp__resource **found, struct json_object **vars)
{
	const struct wymcp_server *srv = ctx->srv;
	size_t			 i;
	int			 m;

	for (i = 0; i < srv->nresources; i++)
		if (strcmp(srv->resources[i].def->uri, uri) == 0) {
			*found = &srv->resources[i];
			*vars = wymcp_own(ctx, json_object_new_object());
			return *vars == NULL ? -1 : 1;
		}
	for (i = 0; i < srv->ntemplates; i++) {
		m = wymcp__tpl_match(&ctx->arena, srv->templates[i].def->uri,
		    uri, vars);
		if (m == -2) {
			wymcp__ctx_log(ctx, WYMCP_LOG_WARNING, "template %s: "
			    "matching gave up", srv->templates[i].def->uri);
			continue;
		}
		if (m != 0) {
			*found = &srv->templates[i];
			return m;
		}
	}
	return 0;
}

/*
 * resources/read (server/resources.mdx "Reading Resources").  read()
 * runs inside the boundary, so it may ask the client (mrtr.mdx: a
 * resources/read may answer input_required); the requestState binds the
 * URI (call_name) and the variables the URI gave (call_args).
 *
 * Cache hints: ttlMs is the module's; cacheScope is always "private",
 * since what a read returns commonly depends on who asks (the module
 * sees the principal and the assigns) and wymcp cannot know that it
 * does not.  A read that went through questions (the request carries
 * inputResponses or requestState) gets ttlMs 0: its result depends on
 * answers that are not part of the cache key (caching.mdx "Cache Key").
 */
void
wymcp__resources_read(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	const struct wymcp__resource	*found = NULL;
	const struct wymcp__skill_file	*sf;
	struct wymcp_resource_result	*out;
	struct json_object		*v, *vars = NULL, *res;
	struct read_body		 rb;
	const char			*uri;
	enum wymcp_err			 rc;
	int				 m;
	int64_t				 ttl;

	if (gated(ctx, r))
		return;
	if (!json_object_object_get_ex(ctx->req.params, "uri", &v) ||
	    !json_object_is_type(v, json_type_string)) {
		wymcp__reply_invalid(ctx, r,
		    "Invalid params: uri must be a string");
		return;
	}
	uri = json_object_get_string(v);
	/* A skill file (skills.c): the same for everyone, no module. */
	if ((sf = wymcp__skill_file_find(ctx->srv, uri)) != NULL) {
		wymcp__skill_read(ctx, r, sf);
		return;
	}
	if (wymcp__ctx_assigns(ctx) != WYMCP_OK ||
	    wymcp__ctx_mount(ctx) != WYMCP_OK)
		goto nomem;
	if ((m = resolve(ctx, uri, &found, &vars)) < 0)
		goto nomem;
	if (m == 0) {
		wymcp__reply_err(ctx, r, WYMCP_ERR_NOTFOUND, uri, NULL);
		return;
	}

	if ((out = wymcp_alloc(ctx, sizeof(*out))) == NULL ||
	    (out->contents = json_object_new_array()) == NULL)
		goto nomem;
	out->ctx = ctx;
	out->uri = uri;
	if (wymcp_defer(ctx, contents_free, out) != WYMCP_OK) {
		json_object_put(out->contents);
		goto nomem;
	}
	rb.res = found;
	rb.uri = uri;
	rb.vars = vars;
	rb.out = out;
	if (!wymcp__round(ctx, r, uri, vars, read_body, &rb, &rc))
		return;
	if (rc == WYMCP_OK && json_object_array_length(out->contents) == 0) {
		wymcp__ctx_log(ctx, WYMCP_LOG_ERR, "resource %s: read() "
		    "returned no contents", uri);
		rc = WYMCP_ERR_TOOL;
	}
	if (rc != WYMCP_OK) {
		wymcp__reply_err(ctx, r, rc, uri,
		    "Internal error: the resource could not be read");
		return;
	}
	if ((res = wymcp__result_object()) == NULL)
		goto nomem;
	json_object_object_add(res, "contents",
	    json_object_get(out->contents));
	ttl = wymcp__module_ttl(found->mod);
	if (json_object_object_get_ex(ctx->req.params, "inputResponses",
	    NULL) ||
	    json_object_object_get_ex(ctx->req.params, "requestState", NULL))
		ttl = 0;
	wymcp__cache_hints_ttl(res, ttl, 1);
	wymcp__reply_result(ctx, r, res);
	return;
nomem:
	wymcp__reply_nomem(ctx, r);
}
