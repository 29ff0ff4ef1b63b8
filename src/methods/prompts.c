/* prompts.c - prompts/list and prompts/get (server/prompts.mdx) */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "methods/methods.h"

/* What get_body() needs: the run boundary takes one pointer. */
struct get_body {
	const struct wymcp__prompt	*p;
	struct json_object		*args;
	struct wymcp_prompt_result	*out;
};

/* Run a prompt's get() (inside wymcp__run()). */
static enum wymcp_err
get_body(struct wymcp_ctx *ctx, void *arg)
{
	struct get_body	*gb = arg;

	return gb->p->def->get(ctx, gb->args, gb->out);
}

/* Entry i of the prompt table, for wymcp__list_reply(). */
static void
prompt_at(const void *arg, size_t i, struct json_object **listing,
    const unsigned char **digest)
{
	const struct wymcp__prompt *tab = arg;

	*listing = tab[i].listing;
	*digest = tab[i].digest;
}

/*
 * prompts/list (server/prompts.mdx "Listing Prompts"): every prompt in
 * registration order, paged; the prompts capability (and so this
 * method) exists only when a prompt is registered.  ttlMs is the
 * smallest of the modules holding prompts, private if one says so.
 * Nothing the web server sets (principal, assigns, WYMCP_TOOLS) narrows
 * this list, so unlike tools/list it stays public with them.
 */
void
wymcp__prompts_list(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	const struct wymcp_server *srv = ctx->srv;
	struct wymcp__list	 l;
	int64_t			 ttl;
	size_t			 i;

	if (srv->nprompts == 0) {
		wymcp__reply_no_method(ctx, r, 404);
		return;
	}
	memset(&l, 0, sizeof(l));
	l.kind = "prompts";
	l.n = srv->nprompts;
	l.at = prompt_at;
	l.arg = srv->prompts;
	l.ttl = -1;
	for (i = 0; i < srv->nprompts; i++) {
		ttl = wymcp__module_ttl(srv->prompts[i].mod);
		if (l.ttl < 0 || ttl < l.ttl)
			l.ttl = ttl;
		if (wymcp__module_private(srv->prompts[i].mod))
			l.private = 1;
	}
	wymcp__list_reply(ctx, r, &l);
}

/* Put the result's own references (a cleanup hook). */
static void
prompt_result_free(void *arg)
{
	struct wymcp_prompt_result	*res = arg;

	json_object_put(res->messages);
	json_object_put(res->description);
}

/*
 * Check prompts/get's arguments: an object whose values are strings
 * (PromptArgument values are strings, server/prompts.mdx), holding
 * every required argument.  Arguments the prompt does not declare are
 * passed on, as tools/call passes properties its schema does not name.
 * Returns 0, or -1 after replying -32602.
 */
static int
args_check(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    const struct wymcp__prompt *p, struct json_object *args)
{
	const struct wymcp_prompt_arg	*a;
	size_t				 i;

	json_object_object_foreach(args, k, val)
		if (!json_object_is_type(val, json_type_string)) {
			wymcp__reply_invalid(ctx, r, wymcp_printf(ctx,
			    "Invalid params: "
			    "argument %s must be a string",
			    wymcp__ctx_quote(ctx, k)));
			return -1;
		}
	for (i = 0; p->def->args != NULL &&
	    (a = WYMCP__PROMPT_ARG(p, i))->name != NULL; i++)
		if (a->required &&
		    !json_object_object_get_ex(args, a->name, NULL)) {
			wymcp__reply_invalid(ctx, r, wymcp_printf(ctx,
			    "Missing required argument: %s", a->name));
			return -1;
		}
	return 0;
}

/*
 * prompts/get (server/prompts.mdx "Getting a Prompt").  get() runs
 * inside the boundary and may ask the client (mrtr.mdx: prompts/get
 * may answer input_required); the requestState binds the prompt name
 * (call_name) and its arguments (call_args).  The result is not
 * cacheable (caching.mdx lists no prompts/get), so it has no hints.
 */
void
wymcp__prompts_get(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	const struct wymcp__prompt	*p;
	struct wymcp_prompt_result	*out;
	struct json_object		*v, *args = NULL, *res;
	struct get_body			 gb;
	const char			*name;
	enum wymcp_err			 rc;

	if (ctx->srv->nprompts == 0) {
		wymcp__reply_no_method(ctx, r, 404);
		return;
	}
	if (!json_object_object_get_ex(ctx->req.params, "name", &v) ||
	    !json_object_is_type(v, json_type_string)) {
		wymcp__reply_invalid(ctx, r,
		    "Invalid params: name must be a string");
		return;
	}
	name = json_object_get_string(v);
	if ((p = wymcp__prompt_find(ctx->srv, name)) == NULL) {
		wymcp__reply_invalid(ctx, r, wymcp_printf(ctx,
		    "Unknown prompt: %s", wymcp__ctx_quote(ctx, name)));
		return;
	}
	if (json_object_object_get_ex(ctx->req.params, "arguments", &args) &&
	    !json_object_is_type(args, json_type_object)) {
		wymcp__reply_invalid(ctx, r,
		    "Invalid params: arguments must be an object");
		return;
	}
	if (args == NULL &&
	    (args = wymcp_own(ctx, json_object_new_object())) == NULL)
		goto nomem;
	if (args_check(ctx, r, p, args) != 0)
		return;
	if (wymcp__ctx_assigns(ctx) != WYMCP_OK ||
	    wymcp__ctx_mount(ctx) != WYMCP_OK)
		goto nomem;

	if ((out = wymcp_alloc(ctx, sizeof(*out))) == NULL ||
	    (out->messages = json_object_new_array()) == NULL)
		goto nomem;
	out->ctx = ctx;
	if (wymcp_defer(ctx, prompt_result_free, out) != WYMCP_OK) {
		json_object_put(out->messages);
		goto nomem;
	}
	gb.p = p;
	gb.args = args;
	gb.out = out;
	if (!wymcp__round(ctx, r, name, args, get_body, &gb, &rc))
		return;
	if (rc == WYMCP_OK && json_object_array_length(out->messages) == 0) {
		wymcp__ctx_log(ctx, WYMCP_LOG_ERR, "prompt %s: get() added "
		    "no message", name);
		rc = WYMCP_ERR_TOOL;
	}
	if (rc != WYMCP_OK) {
		wymcp__reply_err(ctx, r, rc, name,
		    "Internal error: the prompt could not be built");
		return;
	}
	if ((res = wymcp__result_object()) == NULL)
		goto nomem;
	if (out->description != NULL)
		json_object_object_add(res, "description",
		    json_object_get(out->description));
	json_object_object_add(res, "messages",
	    json_object_get(out->messages));
	wymcp__reply_result(ctx, r, res);
	return;
nomem:
	wymcp__reply_nomem(ctx, r);
}
