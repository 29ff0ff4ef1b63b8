/*
 * prompt.c - registration of a module's prompts (server/prompts.mdx)
 *
 * Their Prompt objects are built once, at load time.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "setup/setup.h"

#define ARG_AT(mod, def, i)						\
	WYMCP__AT(struct wymcp_prompt_arg, (def)->args, i,		\
	    WYMCP__STRIDE(mod, prompt_arg_size, WYMCP__PROMPT_ARG_SIZE_0_2))

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
	for (i = 0; def->args != NULL &&
	    ARG_AT(mod, def, i)->name != NULL; i++) {
		a = ARG_AT(mod, def, i);
		if (*a->name == '\0' || !wymcp__text_ok(a->name) ||
		    !wymcp__text_ok(a->title) ||
		    !wymcp__text_ok(a->description)) {
			wymcp__seterr(srv, "module %s: prompt %s: argument "
			    "%zu needs a name, and its strings must be UTF-8",
			    mod->name, def->name, i + 1);
			return WYMCP_ERR_INVAL;
		}
		for (k = 0; k < i; k++)
			if (strcmp(ARG_AT(mod, def, k)->name, a->name) == 0) {
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
	for (i = 0; ARG_AT(mod, def, i)->name != NULL; i++) {
		a = ARG_AT(mod, def, i);
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
    const struct wymcp_prompt *def, size_t stride,
    const struct wymcp__prompt *tab, size_t n, struct wymcp__prompt *out)
{
	struct json_object	*l, *args;
	struct wymcp_prompt	 decl;
	char			 who[160];
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
	if (wymcp__put_str(l, "name", def->name) || wymcp__put_str(l, "title",
	    def->title) ||
	    wymcp__put_str(l, "description", def->description) ||
	    (args != NULL && json_object_object_add(l, "arguments", args))) {
		json_object_put(args);
		json_object_put(l);
		return WYMCP_ERR_NOMEM;
	}
	/* Members added after 0.2, read from a copy cut at the stride. */
	memset(&decl, 0, sizeof(decl));
	memcpy(&decl, def, stride < sizeof(decl) ? stride : sizeof(decl));
	snprintf(who, sizeof(who), "module %s: prompt %s", mod->name,
	    def->name);
	if ((rc = wymcp__meta_prepare(srv, who, decl.icons, decl.meta, l)) !=
	    WYMCP_OK) {
		json_object_put(l);
		return rc;
	}
	if (wymcp__listing_digest(l, out->digest)) {
		json_object_put(l);
		wymcp__seterr(srv, "out of memory");
		return WYMCP_ERR_NOMEM;
	}
	out->def = def;
	out->mod = mod;
	out->argstride = WYMCP__STRIDE(mod, prompt_arg_size,
	    WYMCP__PROMPT_ARG_SIZE_0_2);
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
	size_t			 n, i, stride;
	enum wymcp_err		 rc;

	*np = 0;
	if (!WYMCP__HAS(mod, prompts))
		return WYMCP_OK;
	stride = WYMCP__STRIDE(mod, prompt_size, WYMCP__PROMPT_SIZE_0_2);
	for (n = 0; mod->prompts != NULL && n < WYMCP__COUNT(mod, nprompts) &&
	    WYMCP__AT(struct wymcp_prompt, mod->prompts, n, stride)->name !=
	    NULL; n++)
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
		rc = prompt_prepare(srv, mod, WYMCP__AT(struct wymcp_prompt,
		    mod->prompts, i, stride), stride, nt,
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

/* The registered prompt called `name`, or NULL. */
const struct wymcp__prompt *
wymcp__prompt_find(const struct wymcp_server *srv, const char *name)
{
	size_t	 i;

	for (i = 0; i < srv->nprompts; i++)
		if (strcmp(srv->prompts[i].def->name, name) == 0)
			return &srv->prompts[i];
	return NULL;
}
