/* complete.c - completion/complete (server/utilities/completion.mdx) */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "methods/methods.h"

#define COMPLETION_MAX	100	/* values per response (completion.mdx) */

/* Put the completion's values (a cleanup hook). */
static void
completion_free(void *arg)
{
	struct wymcp_completion	*c = arg;

	json_object_put(c->values);
}

/* Is `o` an object whose members are all strings? */
static int
strings_object(struct json_object *o)
{
	if (!json_object_is_type(o, json_type_object))
		return 0;
	json_object_object_foreach(o, k, v) {
		(void)k;
		if (!json_object_is_type(v, json_type_string))
			return 0;
	}
	return 1;
}

/* The string member `k` of `o`, or NULL. */
static const char *
str_member(struct json_object *o, const char *k)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(o, k, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/*
 * completion/complete's params: ref, argument and context checked,
 * their members out.  0, or -1 when the request is answered (into r).
 */
static int
complete_params(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    const char **type, const char **refname, const char **aname,
    const char **value, struct json_object **cargs)
{
	struct json_object	*ref, *arg, *cx;

	if (!json_object_object_get_ex(ctx->req.params, "ref", &ref) ||
	    !json_object_is_type(ref, json_type_object) ||
	    (*type = str_member(ref, "type")) == NULL) {
		wymcp__reply_invalid(ctx, r,
		    "Invalid params: ref must be an object with a "
		    "type");
		return -1;
	}
	if (strcmp(*type, "ref/prompt") == 0)
		*refname = str_member(ref, "name");
	else if (strcmp(*type, "ref/resource") == 0)
		*refname = str_member(ref, "uri");
	else {
		wymcp__reply_invalid(ctx, r,
		    "Invalid params: ref.type must be ref/prompt "
		    "or ref/resource");
		return -1;
	}
	if (*refname == NULL) {
		wymcp__reply_invalid(ctx, r, strcmp(*type, "ref/prompt") == 0 ?
		    "Invalid params: ref.name must be a string" :
		    "Invalid params: ref.uri must be a string");
		return -1;
	}
	if (!json_object_object_get_ex(ctx->req.params, "argument", &arg) ||
	    !json_object_is_type(arg, json_type_object) ||
	    (*aname = str_member(arg, "name")) == NULL ||
	    (*value = str_member(arg, "value")) == NULL) {
		wymcp__reply_invalid(ctx, r,
		    "Invalid params: argument must be an object "
		    "with string name and value");
		return -1;
	}
	if (json_object_object_get_ex(ctx->req.params, "context", &cx) &&
	    (!json_object_is_type(cx, json_type_object) ||
	    (json_object_object_get_ex(cx, "arguments", cargs) &&
	    !strings_object(*cargs)))) {
		wymcp__reply_invalid(ctx, r,
		    "Invalid params: context.arguments must be an "
		    "object of strings");
		return -1;
	}
	return 0;
}

/*
 * The module that completes argument `aname' of the prompt or resource
 * template ref names into *mod: 0, or -1 when the request is answered
 * (into r).
 */
static int
complete_ref(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    const char *type, const char *refname, const char *aname,
    const struct wymcp_module **mod)
{
	const struct wymcp_server	*srv = ctx->srv;
	const struct wymcp__prompt	*p;
	const struct wymcp__resource	*res;
	const struct wymcp_prompt_arg	*a;
	int				 is_tpl;
	size_t				 i;

	if (strcmp(type, "ref/prompt") == 0) {
		if ((p = wymcp__prompt_find(srv, refname)) == NULL) {
			wymcp__reply_invalid(ctx, r, wymcp_printf(ctx,
			    "Unknown prompt: %s",
			    wymcp__ctx_quote(ctx, refname)));
			return -1;
		}
		for (i = 0, a = NULL; p->def->args != NULL &&
		    (a = WYMCP__PROMPT_ARG(p, i))->name != NULL; i++)
			if (strcmp(a->name, aname) == 0)
				break;
		if (a == NULL || a->name == NULL) {
			wymcp__reply_invalid(ctx, r, wymcp_printf(ctx,
			    "Unknown argument "
			    "of prompt %s: %s", wymcp__ctx_quote(ctx, refname),
			    wymcp__ctx_quote(ctx, aname)));
			return -1;
		}
		*mod = p->mod;
		return 0;
	}
	if ((res = wymcp__resource_ref(srv, refname, &is_tpl)) == NULL) {
		wymcp__reply_invalid(ctx, r, wymcp_printf(ctx,
		    "Unknown resource "
		    "template: %s", wymcp__ctx_quote(ctx, refname)));
		return -1;
	}
	if (is_tpl && !wymcp__template_var(refname, aname)) {
		wymcp__reply_invalid(ctx, r, wymcp_printf(ctx,
		    "Unknown argument "
		    "of resource template %s: %s",
		    wymcp__ctx_quote(ctx, refname),
		    wymcp__ctx_quote(ctx, aname)));
		return -1;
	}
	*mod = res->mod;
	return 0;
}


/* The result of a completion: its values, total and hasMore. */
static void
complete_reply(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    const struct wymcp_completion *c)
{
	struct json_object	*o, *co;

	if ((o = wymcp__result_object()) == NULL) {
		wymcp__reply_nomem(ctx, r);
		return;
	}
	if ((co = json_object_new_object()) == NULL ||
	    json_object_object_add(o, "completion", co)) {
		json_object_put(co);
		json_object_put(o);
		wymcp__reply_nomem(ctx, r);
		return;
	}
	json_object_object_add(co, "values", json_object_get(c->values));
	if (c->told && c->total >= 0)
		json_object_object_add(co, "total",
		    json_object_new_int64(c->total));
	if (c->told)
		json_object_object_add(co, "hasMore",
		    json_object_new_boolean(c->has_more));
	wymcp__reply_result(ctx, r, o);
}

/*
 * completion/complete (server/utilities/completion.mdx).  The ref names
 * a prompt ("ref/prompt", by name) or a resource template
 * ("ref/resource", by its uriTemplate; a fixed resource's URI is taken
 * too).  The argument must be one the prompt declares or a variable of
 * the template (a fixed resource has no variables, so its module's
 * complete() judges the name).  The owning module's complete() suggests
 * the values; a module without one suggests none.  Not cacheable.
 */
void
wymcp__complete(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	const struct wymcp_server	*srv = ctx->srv;
	const struct wymcp_module	*mod;
	struct wymcp_completion		*c;
	struct json_object		*cargs = NULL;
	const char			*type, *refname, *aname, *value;
	enum wymcp_err			 rc;

	if (srv->nprompts == 0 && srv->ntemplates == 0 &&
	    srv->ncompleters == 0) {
		wymcp__reply_no_method(ctx, r, 404);
		return;
	}
	if (complete_params(ctx, r, &type, &refname, &aname, &value,
	    &cargs) != 0)
		return;
	if (complete_ref(ctx, r, type, refname, aname, &mod) != 0)
		return;

	if (wymcp__ctx_assigns(ctx) != WYMCP_OK ||
	    wymcp__ctx_mount(ctx) != WYMCP_OK)
		goto nomem;
	if ((c = wymcp_alloc(ctx, sizeof(*c))) == NULL ||
	    (c->values = json_object_new_array()) == NULL)
		goto nomem;
	c->total = -1;
	if (wymcp_defer(ctx, completion_free, c) != WYMCP_OK) {
		json_object_put(c->values);
		goto nomem;
	}
	if (WYMCP__HAS(mod, complete) && mod->complete != NULL) {
		rc = mod->complete(ctx, type, refname, aname, value, cargs, c);
		if (rc != WYMCP_OK) {
			wymcp__reply_err(ctx, r, rc == WYMCP_ERR_NOTFOUND ?
			    WYMCP_ERR_TOOL : rc, refname,
			    "Internal error: completion failed");
			return;
		}
	} else
		wymcp_completion_total(c, 0, 0);

	complete_reply(ctx, r, c);
	return;
nomem:
	wymcp__reply_nomem(ctx, r);
}
