/*
 * module.c - the module loader and tool registration
 *
 * A module is a shared object exporting `wymcp_module` (wymcp.h).  All
 * of its JSON (schemas, annotations, required capabilities) is parsed
 * and checked here, once per process, before any request.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "setup/setup.h"

#define TOOL_AT(mod, i, stride)	\
	WYMCP__AT(struct wymcp_tool, (mod)->tools, i, stride)

/* Release one registered tool's parsed JSON. */
void
wymcp__tool_clear(struct wymcp__tool *t)
{
	wymcp__xparams_free(t);
	json_object_put(t->listing);
	json_object_put(t->input);
	json_object_put(t->output);
	json_object_put(t->reqcaps);
	memset(t, 0, sizeof(*t));
}

/*
 * Parse a JSON text that must be an object.  Returns a new object or
 * NULL with a reason in the server's errmsg.  A string holding U+0000
 * is left to the checks of what it is (x-mcp-header refuses it by
 * name); no request can carry one.
 */
static struct json_object *
parse_object(struct wymcp_server *srv, const char *tool, const char *what,
    const char *text)
{
	struct json_object	*o;
	enum wymcp__json_fault	 fault;

	o = wymcp__parse_ex(text, strlen(text), &fault);
	if (o == NULL) {
		wymcp__seterr(srv, "tool %s: %s is not valid JSON%s", tool,
		    what, fault == WYMCP__JSON_DUPLICATE ? " (an object has "
		    "two members of the same name)" : "");
		return NULL;
	}
	if (!json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		wymcp__seterr(srv, "tool %s: %s must be a JSON object",
		    tool, what);
		return NULL;
	}
	return o;
}

/* Is a tool of this name registered already? */
static int
registered(const struct wymcp_server *srv, const char *name)
{
	size_t	 i;

	for (i = 0; i < srv->ntools; i++)
		if (strcmp(srv->tools[i].def->name, name) == 0)
			return 1;
	return 0;
}

/*
 * Check one tool declaration and build its registration: parsed schemas
 * and the Tool object tools/list sends.  Returns WYMCP_OK or an error
 * with the reason in errmsg; `t` is untouched on error.
 */
enum wymcp_err
wymcp__tool_prepare(struct wymcp_server *srv, const struct wymcp_module *mod,
    const struct wymcp_tool *def, struct wymcp__tool *t)
{
	struct json_object	*l = NULL, *in = NULL, *out = NULL;
	struct json_object	*ann = NULL, *caps = NULL;
	char			 why[256];
	enum wymcp_err		 rc = WYMCP_ERR_SCHEMA;

	if (!wymcp__tool_name_ok(def->name)) {
		wymcp__seterr(srv, "module %s: tool name '%s' is not 1 to 128 "
		    "of [A-Za-z0-9_.-]", mod->name, def->name);
		return WYMCP_ERR_INVAL;
	}
	if (def->run == NULL || def->description == NULL ||
	    *def->description == '\0') {
		wymcp__seterr(srv, "tool %s: a run function and a description "
		    "are required", def->name);
		return WYMCP_ERR_INVAL;
	}
	/* All errors from here on use goto fail. */
	in = def->input_schema == NULL ?
	    json_tokener_parse("{\"type\":\"object\"}") :
	    parse_object(srv, def->name, "input_schema", def->input_schema);
	if (in == NULL)
		goto fail;
	if (wymcp__schema_check(in, why, sizeof(why)) != 1) {
		wymcp__seterr(srv, "tool %s: input_schema: %s", def->name, why);
		goto fail;
	}
	if (def->output_schema != NULL &&
	    (out = parse_object(srv, def->name, "output_schema",
	    def->output_schema)) == NULL)
		goto fail;
	if (def->annotations != NULL &&
	    (ann = parse_object(srv, def->name, "annotations",
	    def->annotations)) == NULL)
		goto fail;
	if (def->required_caps != NULL &&
	    (caps = parse_object(srv, def->name, "required_caps",
	    def->required_caps)) == NULL)
		goto fail;

	rc = WYMCP_ERR_NOMEM;
	wymcp__seterr(srv, "out of memory");
	if ((l = json_object_new_object()) == NULL)
		goto fail;
	json_object_object_add(l, "name", json_object_new_string(def->name));
	if (def->title != NULL)
		json_object_object_add(l, "title",
		    json_object_new_string(def->title));
	json_object_object_add(l, "description",
	    json_object_new_string(def->description));
	json_object_object_add(l, "inputSchema", json_object_get(in));
	/* The listing holds its own references: ours are put on failure. */
	if (out != NULL)
		json_object_object_add(l, "outputSchema", json_object_get(out));
	if (ann != NULL)
		json_object_object_add(l, "annotations", json_object_get(ann));
	t->listing = l;
	if (wymcp__tool_digest(t)) {
		t->listing = NULL;
		goto fail;
	}
	if ((rc = wymcp__xparams_compile(srv, t)) != WYMCP_OK) {
		t->listing = NULL;
		goto fail;
	}
	t->def = def;
	t->mod = mod;
	t->input = in;
	t->output = out;
	t->reqcaps = caps;
	json_object_put(ann);
	return WYMCP_OK;
fail:
	json_object_put(l);
	json_object_put(in);
	json_object_put(out);
	json_object_put(ann);
	json_object_put(caps);
	return rc;
}

/*
 * Register every tool of a module, or none: on any failure nothing is
 * kept and errmsg says why.
 */
static enum wymcp_err
add_module(struct wymcp_server *srv, const struct wymcp_module *mod,
    void *handle, const char *path)
{
	struct wymcp__tool	*nt;
	struct wymcp__module	*nm;
	size_t			 n, i, k, stride;
	enum wymcp_err		 rc;

	/* A module built against 0.1 ends after `tools'. */
	if (mod == NULL || mod->abi != WYMCP_ABI_VERSION ||
	    !WYMCP__HAS(mod, tools) || mod->name == NULL || (mod->tools ==
	    NULL && (!WYMCP__HAS(mod, prompts) || (mod->resources == NULL &&
	    mod->templates == NULL && mod->prompts == NULL)))) {
		wymcp__seterr(srv, "%s: not a wymcp module of ABI %d",
		    path != NULL ? path : "module", WYMCP_ABI_VERSION);
		return WYMCP_ERR_MODULE;
	}
	stride = WYMCP__STRIDE(mod, tool_size, WYMCP__TOOL_SIZE_0_2);
	if (stride < WYMCP__TOOL_SIZE_0_2 || WYMCP__STRIDE(mod, resource_size,
	    WYMCP__RESOURCE_SIZE_0_2) < WYMCP__RESOURCE_SIZE_0_2 ||
	    WYMCP__STRIDE(mod, prompt_size, WYMCP__PROMPT_SIZE_0_2) <
	    WYMCP__PROMPT_SIZE_0_2 || WYMCP__STRIDE(mod, prompt_arg_size,
	    WYMCP__PROMPT_ARG_SIZE_0_2) < WYMCP__PROMPT_ARG_SIZE_0_2) {
		wymcp__seterr(srv, "%s: module %s declares table elements "
		    "smaller than any wymcp header has", path != NULL ? path :
		    "module", mod->name);
		return WYMCP_ERR_MODULE;
	}
	for (n = 0; mod->tools != NULL &&
	    TOOL_AT(mod, n, stride)->name != NULL; n++)
		continue;
	nt = reallocarray(srv->tools, srv->ntools + n + 1, sizeof(*nt));
	if (nt == NULL)
		goto nomem;
	srv->tools = nt;
	nm = reallocarray(srv->mods, srv->nmods + 1, sizeof(*nm));
	if (nm == NULL)
		goto nomem;
	srv->mods = nm;
	for (i = 0; i < n; i++) {
		memset(&nt[srv->ntools + i], 0, sizeof(*nt));
		if (registered(srv, TOOL_AT(mod, i, stride)->name)) {
			wymcp__seterr(srv, "module %s: tool %s is already "
			    "registered", mod->name,
			    TOOL_AT(mod, i, stride)->name);
			rc = WYMCP_ERR_DUP;
		} else
			rc = wymcp__tool_prepare(srv, mod,
			    TOOL_AT(mod, i, stride),
		    &nt[srv->ntools + i]);
		/* A duplicate inside this module counts too. */
		for (k = 0; rc == WYMCP_OK && k < i; k++)
			if (strcmp(TOOL_AT(mod, k, stride)->name,
			    TOOL_AT(mod, i, stride)->name) == 0) {
				wymcp__seterr(srv, "module %s: tool %s is "
				    "declared twice", mod->name,
				    TOOL_AT(mod, i, stride)->name);
				wymcp__tool_clear(&nt[srv->ntools + i]);
				rc = WYMCP_ERR_DUP;
			}
		if (rc != WYMCP_OK) {
			while (i-- > 0)
				wymcp__tool_clear(&nt[srv->ntools + i]);
			return rc;
		}
	}
	nm[srv->nmods].handle = handle;
	nm[srv->nmods].mod = mod;
	nm[srv->nmods].path = NULL;
	if (path != NULL && (nm[srv->nmods].path = strdup(path)) == NULL) {
		for (i = 0; i < n; i++)
			wymcp__tool_clear(&nt[srv->ntools + i]);
		goto nomem;
	}
	/*
	 * Resources, templates and prompts last: all or nothing, like
	 * tools, and nothing can fail after them.
	 */
	if ((rc = wymcp__module_extras(srv, mod)) != WYMCP_OK) {
		free(nm[srv->nmods].path);
		nm[srv->nmods].path = NULL;
		for (i = 0; i < n; i++)
			wymcp__tool_clear(&nt[srv->ntools + i]);
		return rc;
	}
	srv->nmods++;
	srv->ntools += n;
	return WYMCP_OK;
nomem:
	wymcp__seterr(srv, "out of memory");
	return WYMCP_ERR_NOMEM;
}

enum wymcp_err
wymcp_server_add_module(struct wymcp_server *srv,
    const struct wymcp_module *mod)
{
	if (srv == NULL)
		return WYMCP_ERR_INVAL;
	return add_module(srv, mod, NULL, NULL);
}

enum wymcp_err
wymcp_server_load_module(struct wymcp_server *srv, const char *path)
{
	void			*h;
	const struct wymcp_module *mod;
	const char		*e;
	enum wymcp_err		 rc;

	if (srv == NULL || path == NULL)
		return WYMCP_ERR_INVAL;
	if ((h = dlopen(path, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		e = dlerror();
		wymcp__seterr(srv, "%s", e != NULL ? e : path);
		return WYMCP_ERR_MODULE;
	}
	dlerror();
	mod = dlsym(h, "wymcp_module");
	if (mod == NULL) {
		wymcp__seterr(srv, "%s: no wymcp_module symbol (declare it "
		    "with WYMCP_MODULE())", path);
		dlclose(h);
		return WYMCP_ERR_MODULE;
	}
	if ((rc = add_module(srv, mod, h, path)) != WYMCP_OK)
		dlclose(h);
	return rc;
}

/* Release every registration and unload the modules. */
void
wymcp__modules_free(struct wymcp_server *srv)
{
	size_t	 i;

	for (i = 0; i < srv->ntools; i++)
		wymcp__tool_clear(&srv->tools[i]);
	free(srv->tools);
	srv->tools = NULL;
	srv->ntools = 0;
	wymcp__extras_free(srv);
	for (i = 0; i < srv->nmods; i++) {
		if (srv->mods[i].handle != NULL)
			dlclose(srv->mods[i].handle);
		free(srv->mods[i].path);
	}
	free(srv->mods);
	srv->mods = NULL;
	srv->nmods = 0;
}
