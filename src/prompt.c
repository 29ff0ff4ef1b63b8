/*
 * prompt.c - prompts and completion
 *
 * MCP 2026-07-28 server/prompts.mdx (prompts/list, prompts/get) and
 * server/utilities/completion.mdx (completion/complete).  Prompts are
 * registered with a module's resources (resource.c,
 * wymcp__module_extras()); their Prompt objects are built once, then.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "extern.h"

#define COMPLETION_MAX	100	/* values per response (completion.mdx) */

/* What get() builds (wymcp.h); owned by the request. */
struct wymcp_prompt_result {
	struct wymcp_ctx	*ctx;
	struct json_object	*messages;	/* array */
	struct json_object	*description;	/* string, or NULL */
};

/* What complete() builds (wymcp.h); owned by the request. */
struct wymcp_completion {
	struct json_object	*values;	/* array of strings */
	long			 total;		/* < 0: unknown */
	int			 has_more;
	int			 told;		/* total/hasMore were given */
};

/* What get_body() needs: the run boundary takes one pointer. */
struct get_body {
	const struct wymcp__prompt	*p;
	struct json_object		*args;
	struct wymcp_prompt_result	*out;
};

/* Release one registered prompt. */
static void
prompt_clear(struct wymcp__prompt *p)
{
	json_object_put(p->listing);
	memset(p, 0, sizeof(*p));
}

/*
 * Check a prompt's argument list and build its "arguments" array (NULL
 * with *arr untouched when the prompt has none).  WYMCP_OK or an error
 * with the reason in errmsg.
 */
static enum wymcp_err
args_prepare(struct wymcp_server *srv, const struct wymcp_module *mod,
    const struct wymcp_prompt *def, struct json_object **arr)
{
	const struct wymcp_prompt_arg	*a;
	struct json_object		*o, *l;
	size_t				 i, k;

	*arr = NULL;
	for (i = 0; def->args != NULL && def->args[i].name != NULL; i++) {
		a = &def->args[i];
		if (*a->name == '\0' || !wymcp__text_ok(a->name) ||
		    !wymcp__text_ok(a->title) ||
		    !wymcp__text_ok(a->description)) {
			wymcp__seterr(srv, "module %s: prompt %s: argument "
			    "%zu needs a name, and its strings must be UTF-8",
			    mod->name, def->name, i + 1);
			return WYMCP_ERR_INVAL;
		}
		for (k = 0; k < i; k++)
			if (strcmp(def->args[k].name, a->name) == 0) {
				wymcp__seterr(srv, "module %s: prompt %s: "
				    "argument %s is declared twice",
				    mod->name, def->name, a->name);
				return WYMCP_ERR_DUP;
			}
	}
	if (i == 0)
		return WYMCP_OK;
	wymcp__seterr(srv, "out of memory");
	if ((l = json_object_new_array_ext((int)i)) == NULL)
		return WYMCP_ERR_NOMEM;
	for (i = 0; def->args[i].name != NULL; i++) {
		a = &def->args[i];
		if ((o = json_object_new_object()) == NULL ||
		    json_object_array_add(l, o)) {
			json_object_put(o);
			goto nomem;
		}
		if (wymcp__put_str(o, "name", a->name) ||
		    wymcp__put_str(o, "title", a->title) ||
		    wymcp__put_str(o, "description", a->description))
			goto nomem;
		if (a->required && json_object_object_add(o, "required",
		    json_object_new_boolean(1)))
			goto nomem;
	}
	*arr = l;
	return WYMCP_OK;
nomem:
	json_object_put(l);
	return WYMCP_ERR_NOMEM;
}

/*
 * Check one prompt and build its Prompt object.  The conformance suite
 * requires a description on every prompt, so wymcp does too.
 * `tab`/`n` are the prompts registered so far.  WYMCP_OK, or an error
 * with the reason in errmsg and `out` untouched.
 */
static enum wymcp_err
prompt_prepare(struct wymcp_server *srv, const struct wymcp_module *mod,
    const struct wymcp_prompt *def, const struct wymcp__prompt *tab,
    size_t n, struct wymcp__prompt *out)
{
	struct json_object	*l, *args;
	enum wymcp_err		 rc;
	size_t			 i;

	if (!wymcp__tool_name_ok(def->name)) {
		wymcp__seterr(srv, "module %s: prompt name '%s' is not 1 to "
		    "128 of [A-Za-z0-9_.-]", mod->name, def->name);
		return WYMCP_ERR_INVAL;
	}
	if (def->get == NULL || def->description == NULL ||
	    *def->description == '\0') {
		wymcp__seterr(srv, "module %s: prompt %s: a get function and "
		    "a description are required", mod->name, def->name);
		return WYMCP_ERR_INVAL;
	}
	if (!wymcp__text_ok(def->title) || !wymcp__text_ok(def->description)) {
		wymcp__seterr(srv, "module %s: prompt %s: title and "
		    "description must be UTF-8", mod->name, def->name);
		return WYMCP_ERR_INVAL;
	}
	for (i = 0; i < n; i++)
		if (strcmp(tab[i].def->name, def->name) == 0) {
			wymcp__seterr(srv, "module %s: prompt %s is already "
			    "registered", mod->name, def->name);
			return WYMCP_ERR_DUP;
		}
	if ((rc = args_prepare(srv, mod, def, &args)) != WYMCP_OK)
		return rc;
	wymcp__seterr(srv, "out of memory");
	if ((l = json_object_new_object()) == NULL) {
		json_object_put(args);
		return WYMCP_ERR_NOMEM;
	}
	if (wymcp__put_str(l, "name", def->name) || wymcp__put_str(l, "title", def->title) ||
	    wymcp__put_str(l, "description", def->description) ||
	    (args != NULL && json_object_object_add(l, "arguments", args))) {
		json_object_put(args);
		json_object_put(l);
		return WYMCP_ERR_NOMEM;
	}
	if (wymcp__listing_digest(l, out->digest)) {
		json_object_put(l);
		return WYMCP_ERR_NOMEM;
	}
	out->def = def;
	out->mod = mod;
	out->listing = l;
	return WYMCP_OK;
}

/*
 * Prepare a module's prompts in the slots after the registered ones;
 * the caller counts them in (srv->nprompts += *np) once the rest of the
 * module is registered.  On failure none stays.
 */
enum wymcp_err
wymcp__prompts_prepare(struct wymcp_server *srv,
    const struct wymcp_module *mod, size_t *np)
{
	struct wymcp__prompt	*nt;
	size_t			 n, i;
	enum wymcp_err		 rc;

	*np = 0;
	if (!WYMCP__HAS(mod, prompts))
		return WYMCP_OK;
	for (n = 0; mod->prompts != NULL && mod->prompts[n].name != NULL; n++)
		continue;
	if (n == 0)
		return WYMCP_OK;
	nt = reallocarray(srv->prompts, srv->nprompts + n, sizeof(*nt));
	if (nt == NULL) {
		wymcp__seterr(srv, "out of memory");
		return WYMCP_ERR_NOMEM;
	}
	srv->prompts = nt;
	for (i = 0; i < n; i++) {
		memset(&nt[srv->nprompts + i], 0, sizeof(*nt));
		rc = prompt_prepare(srv, mod, &mod->prompts[i], nt,
		    srv->nprompts + i, &nt[srv->nprompts + i]);
		if (rc != WYMCP_OK) {
			while (i-- > 0)
				prompt_clear(&nt[srv->nprompts + i]);
			return rc;
		}
	}
	*np = n;
	return WYMCP_OK;
}

/* Release every registered prompt. */
void
wymcp__prompts_free(struct wymcp_server *srv)
{
	size_t	 i;

	for (i = 0; i < srv->nprompts; i++)
		prompt_clear(&srv->prompts[i]);
	free(srv->prompts);
	srv->prompts = NULL;
	srv->nprompts = 0;
}

/* Reply 404 -32601 for a method whose capability is not advertised. */
static void
not_offered(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	const char	*msg;

	msg = wymcp_printf(ctx, "Method not found: %s", ctx->method);
	wymcp__reply_error(ctx, r, 404, WYMCP__METHOD_NOT_FOUND,
	    msg != NULL ? msg : "Method not found", NULL);
}

/* Reply -32602 (HTTP 200) with a formatted message. */
static void
invalid(struct wymcp_ctx *ctx, struct wymcp__reply *r, const char *msg)
{
	wymcp__reply_error(ctx, r, 200, WYMCP__INVALID_PARAMS,
	    msg != NULL ? msg : "Invalid params", NULL);
}

/* The registered prompt called `name`, or NULL. */
static const struct wymcp__prompt *
find_prompt(const struct wymcp_server *srv, const char *name)
{
	size_t	 i;

	for (i = 0; i < srv->nprompts; i++)
		if (strcmp(srv->prompts[i].def->name, name) == 0)
			return &srv->prompts[i];
	return NULL;
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
 */
void
wymcp__prompts_list(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	const struct wymcp_server *srv = ctx->srv;
	struct wymcp__list	 l;
	int64_t			 ttl;
	size_t			 i;

	if (srv->nprompts == 0) {
		not_offered(ctx, r);
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

/* Run a prompt's get() (inside wymcp__run()). */
static enum wymcp_err
get_body(struct wymcp_ctx *ctx, void *arg)
{
	struct get_body	*gb = arg;

	return gb->p->def->get(ctx, gb->args, gb->out);
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

	json_object_object_foreach(args, k, val)
		if (!json_object_is_type(val, json_type_string)) {
			invalid(ctx, r, wymcp_printf(ctx, "Invalid params: "
			    "argument %s must be a string", k));
			return -1;
		}
	for (a = p->def->args; a != NULL && a->name != NULL; a++)
		if (a->required &&
		    !json_object_object_get_ex(args, a->name, NULL)) {
			invalid(ctx, r, wymcp_printf(ctx,
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
		not_offered(ctx, r);
		return;
	}
	if (!json_object_object_get_ex(ctx->params, "name", &v) ||
	    !json_object_is_type(v, json_type_string)) {
		invalid(ctx, r, "Invalid params: name must be a string");
		return;
	}
	name = json_object_get_string(v);
	if ((p = find_prompt(ctx->srv, name)) == NULL) {
		invalid(ctx, r, wymcp_printf(ctx, "Unknown prompt: %s", name));
		return;
	}
	if (json_object_object_get_ex(ctx->params, "arguments", &args) &&
	    !json_object_is_type(args, json_type_object)) {
		invalid(ctx, r, "Invalid params: arguments must be an object");
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
	if (rc == WYMCP_ERR_NOMEM)
		goto nomem;
	if (rc != WYMCP_OK || json_object_array_length(out->messages) == 0) {
		wymcp__log(ctx->srv, ctx, WYMCP_LOG_ERR, "prompt %s: %s",
		    name, rc != WYMCP_OK ? wymcp_strerror(rc) :
		    "get() added no message");
		wymcp__reply_error(ctx, r, 500, WYMCP__INTERNAL_ERROR,
		    "Internal error: the prompt could not be built", NULL);
		return;
	}
	if ((res = json_object_new_object()) == NULL)
		goto nomem;
	json_object_object_add(res, "resultType",
	    json_object_new_string("complete"));
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

/* Append a PromptMessage {role, content} to the result. */
enum wymcp_err
wymcp_prompt_message(struct wymcp_prompt_result *res, const char *role,
    struct json_object *content)
{
	struct json_object	*m, *t;

	/* A NULL block is a builder that failed: out of memory. */
	if (content == NULL)
		return WYMCP_ERR_NOMEM;
	if (res == NULL || role == NULL || (strcmp(role, "user") != 0 &&
	    strcmp(role, "assistant") != 0) ||
	    !json_object_is_type(content, json_type_object) ||
	    !json_object_object_get_ex(content, "type", &t) ||
	    !json_object_is_type(t, json_type_string))
		return WYMCP_ERR_INVAL;
	if ((m = json_object_new_object()) == NULL)
		return WYMCP_ERR_NOMEM;
	if (wymcp__put_str(m, "role", role) ||
	    json_object_object_add(m, "content", json_object_get(content))) {
		json_object_put(m);
		return WYMCP_ERR_NOMEM;
	}
	if (json_object_array_add(res->messages, m)) {
		json_object_put(m);
		return WYMCP_ERR_NOMEM;
	}
	return WYMCP_OK;
}

/* Set the result's description (the last call wins). */
enum wymcp_err
wymcp_prompt_describe(struct wymcp_prompt_result *res, const char *d)
{
	struct json_object	*s;

	if (res == NULL || d == NULL || !wymcp__text_ok(d))
		return WYMCP_ERR_INVAL;
	if ((s = json_object_new_string(d)) == NULL)
		return WYMCP_ERR_NOMEM;
	json_object_put(res->description);
	res->description = s;
	return WYMCP_OK;
}

/*
 * Append a suggestion; the 101st is refused (completion.mdx: at most
 * 100 values), so a module can add until refused.
 */
enum wymcp_err
wymcp_completion_add(struct wymcp_completion *c, const char *v)
{
	struct json_object	*s;

	if (c == NULL || v == NULL || !wymcp__text_ok(v) ||
	    json_object_array_length(c->values) >= COMPLETION_MAX)
		return WYMCP_ERR_INVAL;
	if ((s = json_object_new_string(v)) == NULL)
		return WYMCP_ERR_NOMEM;
	if (json_object_array_add(c->values, s)) {
		json_object_put(s);
		return WYMCP_ERR_NOMEM;
	}
	return WYMCP_OK;
}

/* Say how many matches there are (< 0: unknown) and if more exist. */
void
wymcp_completion_total(struct wymcp_completion *c, long total, int more)
{
	if (c == NULL)
		return;
	c->total = total;
	c->has_more = more != 0;
	c->told = 1;
}

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
	const struct wymcp__prompt	*p;
	const struct wymcp__resource	*res;
	const struct wymcp_prompt_arg	*a;
	struct wymcp_completion		*c;
	struct json_object		*ref, *arg, *cx, *cargs = NULL, *o, *co;
	const char			*type, *refname, *aname, *value;
	enum wymcp_err			 rc;
	int				 is_tpl;

	if (srv->nprompts == 0 && srv->ntemplates == 0 &&
	    srv->ncompleters == 0) {
		not_offered(ctx, r);
		return;
	}
	if (!json_object_object_get_ex(ctx->params, "ref", &ref) ||
	    !json_object_is_type(ref, json_type_object) ||
	    (type = str_member(ref, "type")) == NULL) {
		invalid(ctx, r, "Invalid params: ref must be an object with a "
		    "type");
		return;
	}
	if (strcmp(type, "ref/prompt") == 0)
		refname = str_member(ref, "name");
	else if (strcmp(type, "ref/resource") == 0)
		refname = str_member(ref, "uri");
	else {
		invalid(ctx, r, "Invalid params: ref.type must be ref/prompt "
		    "or ref/resource");
		return;
	}
	if (refname == NULL) {
		invalid(ctx, r, strcmp(type, "ref/prompt") == 0 ?
		    "Invalid params: ref.name must be a string" :
		    "Invalid params: ref.uri must be a string");
		return;
	}
	if (!json_object_object_get_ex(ctx->params, "argument", &arg) ||
	    !json_object_is_type(arg, json_type_object) ||
	    (aname = str_member(arg, "name")) == NULL ||
	    (value = str_member(arg, "value")) == NULL) {
		invalid(ctx, r, "Invalid params: argument must be an object "
		    "with string name and value");
		return;
	}
	if (json_object_object_get_ex(ctx->params, "context", &cx) &&
	    (!json_object_is_type(cx, json_type_object) ||
	    (json_object_object_get_ex(cx, "arguments", &cargs) &&
	    !strings_object(cargs)))) {
		invalid(ctx, r, "Invalid params: context.arguments must be an "
		    "object of strings");
		return;
	}

	if (strcmp(type, "ref/prompt") == 0) {
		if ((p = find_prompt(srv, refname)) == NULL) {
			invalid(ctx, r, wymcp_printf(ctx, "Unknown prompt: %s",
			    refname));
			return;
		}
		for (a = p->def->args; a != NULL && a->name != NULL; a++)
			if (strcmp(a->name, aname) == 0)
				break;
		if (a == NULL || a->name == NULL) {
			invalid(ctx, r, wymcp_printf(ctx, "Unknown argument "
			    "of prompt %s: %s", refname, aname));
			return;
		}
		mod = p->mod;
	} else {
		if ((res = wymcp__resource_ref(srv, refname, &is_tpl)) ==
		    NULL) {
			invalid(ctx, r, wymcp_printf(ctx, "Unknown resource "
			    "template: %s", refname));
			return;
		}
		if (is_tpl && !wymcp__template_var(refname, aname)) {
			invalid(ctx, r, wymcp_printf(ctx, "Unknown argument "
			    "of resource template %s: %s", refname, aname));
			return;
		}
		mod = res->mod;
	}

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
		if (rc == WYMCP_ERR_NOMEM)
			goto nomem;
		if (rc != WYMCP_OK) {
			wymcp__log(ctx->srv, ctx, WYMCP_LOG_ERR, "complete %s "
			    "%s: %s", refname, aname, wymcp_strerror(rc));
			wymcp__reply_error(ctx, r, 500, WYMCP__INTERNAL_ERROR,
			    "Internal error: completion failed", NULL);
			return;
		}
	} else
		wymcp_completion_total(c, 0, 0);

	if ((o = json_object_new_object()) == NULL)
		goto nomem;
	json_object_object_add(o, "resultType",
	    json_object_new_string("complete"));
	if ((co = json_object_new_object()) == NULL ||
	    json_object_object_add(o, "completion", co)) {
		json_object_put(co);
		json_object_put(o);
		goto nomem;
	}
	json_object_object_add(co, "values", json_object_get(c->values));
	if (c->told && c->total >= 0)
		json_object_object_add(co, "total",
		    json_object_new_int64(c->total));
	if (c->told)
		json_object_object_add(co, "hasMore",
		    json_object_new_boolean(c->has_more));
	wymcp__reply_result(ctx, r, o);
	return;
nomem:
	wymcp__reply_nomem(ctx, r);
}
