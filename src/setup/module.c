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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "setup/setup.h"

#define TTL_MAX		INT64_C(9007199254740991)	/* 2^53 - 1 */

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
	json_object_put(t->defaults);
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

/*
 * Is a tool of this name registered already?  Through the index (a scan
 * when it could not be built), so that a module of n tools is checked
 * in O(n), not O(n^2): 10,000 tools load in a fraction of a second.
 */
static int
registered(const struct wymcp_server *srv, const char *name)
{
	return wymcp__tool_lookup(srv, name, strlen(name)) != NULL;
}

/*
 * Was tool i of `mod' declared before, by tool k < i?  `seen' is an
 * open-addressing table of `nseen' slots (a power of 2; tool index + 1,
 * 0 empty) of tools 0 .. i - 1; tool i is entered unless it is a
 * duplicate.  With no table (out of memory) the earlier tools are
 * scanned.
 */
static int
declared_twice(const struct wymcp_module *mod, size_t stride, size_t i,
    uint32_t *seen, size_t nseen)
{
	const char	*name = TOOL_AT(mod, i, stride)->name;
	size_t		 slot, k;

	if (seen == NULL) {
		for (k = 0; k < i; k++)
			if (strcmp(TOOL_AT(mod, k, stride)->name, name) == 0)
				return 1;
		return 0;
	}
	slot = wymcp__name_hash(name, strlen(name)) & (nseen - 1);
	for (; seen[slot] != 0; slot = (slot + 1) & (nseen - 1))
		if (strcmp(TOOL_AT(mod, seen[slot] - 1, stride)->name,
		    name) == 0)
			return 1;
	seen[slot] = (uint32_t)i + 1;
	return 0;
}

/*
 * Is `s` a space-separated list of OAuth scope-tokens (RFC 6749
 * section 3.3: %x21 / %x23-5B / %x5D-7E), as the WWW-Authenticate
 * challenge quotes them?
 */
static int
scopes_ok(const char *s)
{
	for (; *s != '\0'; s++)
		if (*s != ' ' && ((unsigned char)*s < 0x21 || *s == '"' ||
		    *s == '\\' || (unsigned char)*s > 0x7e))
			return 0;
	return 1;
}

/*
 * MCP Apps (ext-apps apps.mdx "Resource Discovery"): check the _meta.ui
 * of the tool's listing `l', if any; *app_only when its visibility
 * leaves the model out.  As the ext-apps server helper registerAppTool()
 * does, ui.resourceUri is also sent under the deprecated flat key
 * "ui/resourceUri" (and the other way round), for hosts that read only
 * that one.  WYMCP_OK, or an error with the rule in errmsg.
 */
static enum wymcp_err
ui_prepare(struct wymcp_server *srv, const char *tool, struct json_object *l,
    int *app_only)
{
	struct json_object	*meta, *ui = NULL, *uri = NULL, *flat = NULL;
	struct json_object	*vis, *o;
	char			 why[256];
	size_t			 i;

	*app_only = 0;
	if (!json_object_object_get_ex(l, "_meta", &meta))
		return WYMCP_OK;
	if (!wymcp__ui_meta_ok(meta, WYMCP__UI_TOOL, why, sizeof(why))) {
		wymcp__seterr(srv, "tool %s: %s", tool, why);
		return WYMCP_ERR_INVAL;
	}
	json_object_object_get_ex(meta, "ui", &ui);
	json_object_object_get_ex(meta, "ui/resourceUri", &flat);
	if (ui != NULL)
		json_object_object_get_ex(ui, "resourceUri", &uri);
	if (ui != NULL && json_object_object_get_ex(ui, "visibility", &vis)) {
		*app_only = 1;
		for (i = 0; i < json_object_array_length(vis); i++)
			if (strcmp(json_object_get_string(
			    json_object_array_get_idx(vis, i)), "model") == 0)
				*app_only = 0;
	}
	if (uri != NULL && flat == NULL) {
		if ((o = json_object_new_string(json_object_get_string(
		    uri))) == NULL || json_object_object_add(meta,
		    "ui/resourceUri", o))
			goto nomem;
	} else if (flat != NULL && uri == NULL) {
		if (ui == NULL) {
			if ((ui = json_object_new_object()) == NULL ||
			    json_object_object_add(meta, "ui", ui))
				goto nomem;
		}
		if ((o = json_object_new_string(json_object_get_string(
		    flat))) == NULL || json_object_object_add(ui,
		    "resourceUri", o))
			goto nomem;
	}
	return WYMCP_OK;
nomem:
	wymcp__seterr(srv, "out of memory");
	return WYMCP_ERR_NOMEM;
}

/*
 * Check the declaration `def' of module `mod' into `decl': its name,
 * run function and description, the members added after 0.2 read from
 * a copy cut at the module's stride (a member its header lacked reads
 * as 0), its scopes.  WYMCP_OK, or an error with errmsg.
 */
static enum wymcp_err
tool_decl(struct wymcp_server *srv, const struct wymcp_module *mod,
    const struct wymcp_tool *def, struct wymcp_tool *decl)
{
	struct wymcp_rate	 rate;
	size_t			 stride;

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
	stride = WYMCP__STRIDE(mod, tool_size, WYMCP__TOOL_SIZE_0_2);
	memset(decl, 0, sizeof(*decl));
	memcpy(decl, def, stride < sizeof(*decl) ? stride : sizeof(*decl));
	if (decl->scopes != NULL && !scopes_ok(decl->scopes)) {
		wymcp__seterr(srv, "tool %s: scopes '%s' is not a list of "
		    "OAuth scope-tokens (RFC 6749 3.3) separated by spaces",
		    def->name, decl->scopes);
		return WYMCP_ERR_INVAL;
	}
	if (decl->scopes != NULL && *decl->scopes == '\0')
		decl->scopes = NULL;
	if (decl->rate != NULL && wymcp_rate_parse(decl->rate, &rate) != 0) {
		wymcp__seterr(srv, "tool %s: rate '%s' is not N/s, N/min or "
		    "N/h (N from 1 to 1000000), optionally followed by "
		    "',burst=B'", def->name, decl->rate);
		return WYMCP_ERR_INVAL;
	}
	if ((decl->params != NULL && def->input_schema != NULL) ||
	    (decl->output != NULL && def->output_schema != NULL)) {
		wymcp__seterr(srv, "tool %s: declare params or input_schema, "
		    "output or output_schema, not both", def->name);
		return WYMCP_ERR_SCHEMA;
	}
	return WYMCP_OK;
}

/*
 * The JSON of `def' (its members past 0.2 read from `decl'): its input
 * schema (derived from params, or checked; an object without one),
 * output schema, annotations, required capabilities and the params'
 * defaults, into `js' (in that order; NULL: not declared).  WYMCP_OK,
 * or an error with errmsg; the caller puts them either way.
 */
static enum wymcp_err
tool_json(struct wymcp_server *srv, const struct wymcp_tool *def,
    const struct wymcp_tool *decl, struct json_object *js[5])
{
	char		 why[256];
	enum wymcp_err	 rc;

	if (decl->params != NULL) {
		if ((rc = wymcp__params_schema(srv, def->name, "params",
		    decl->params, 1, &js[0], &js[4])) != WYMCP_OK)
			return rc;
	} else if ((js[0] = def->input_schema == NULL ?
	    json_tokener_parse("{\"type\":\"object\"}") :
	    parse_object(srv, def->name, "input_schema",
	    def->input_schema)) == NULL)
		return WYMCP_ERR_SCHEMA;
	if (wymcp__schema_check(js[0], why, sizeof(why)) != 1) {
		wymcp__seterr(srv, "tool %s: input_schema: %s", def->name, why);
		return WYMCP_ERR_SCHEMA;
	}
	if (decl->output != NULL) {
		if ((rc = wymcp__params_schema(srv, def->name, "output",
		    decl->output, 0, &js[1], NULL)) != WYMCP_OK)
			return rc;
	} else if (def->output_schema != NULL &&
	    (js[1] = parse_object(srv, def->name, "output_schema",
	    def->output_schema)) == NULL)
		return WYMCP_ERR_SCHEMA;
	if (def->annotations != NULL &&
	    (js[2] = parse_object(srv, def->name, "annotations",
	    def->annotations)) == NULL)
		return WYMCP_ERR_SCHEMA;
	if (def->required_caps != NULL &&
	    (js[3] = parse_object(srv, def->name, "required_caps",
	    def->required_caps)) == NULL)
		return WYMCP_ERR_SCHEMA;
	return WYMCP_OK;
}

/*
 * The Tool object tools/list sends for `def', with references of its
 * own to the schemas and annotations of `js' (tool_json()); NULL when
 * out of memory.
 */
static struct json_object *
tool_listing(const struct wymcp_tool *def, struct json_object *js[4])
{
	struct json_object	*l;

	if ((l = json_object_new_object()) == NULL)
		return NULL;
	json_object_object_add(l, "name", json_object_new_string(def->name));
	if (def->title != NULL)
		json_object_object_add(l, "title",
		    json_object_new_string(def->title));
	json_object_object_add(l, "description",
	    json_object_new_string(def->description));
	json_object_object_add(l, "inputSchema", json_object_get(js[0]));
	if (js[1] != NULL)
		json_object_object_add(l, "outputSchema",
		    json_object_get(js[1]));
	if (js[2] != NULL)
		json_object_object_add(l, "annotations",
		    json_object_get(js[2]));
	return l;
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
	struct json_object	*l = NULL, *js[5] = { NULL };
	struct wymcp_tool	 decl;
	char			 why[256];
	size_t			 i;
	int			 app_only = 0;
	enum wymcp_err		 rc;

	if ((rc = tool_decl(srv, mod, def, &decl)) != WYMCP_OK)
		return rc;
	/* All errors from here on use goto fail. */
	if ((rc = tool_json(srv, def, &decl, js)) != WYMCP_OK)
		goto fail;
	/* The listing holds its own references: ours are put on failure. */
	if ((l = tool_listing(def, js)) == NULL) {
		rc = WYMCP_ERR_NOMEM;
		wymcp__seterr(srv, "out of memory");
		goto fail;
	}
	/* Its name for their errors, which only icons and _meta can have. */
	if (decl.icons != NULL || decl.meta != NULL)
		snprintf(why, sizeof(why), "tool %s", def->name);
	if ((rc = wymcp__meta_prepare(srv, why, decl.icons, decl.meta, l)) !=
	    WYMCP_OK)
		goto fail;
	if ((rc = ui_prepare(srv, def->name, l, &app_only)) != WYMCP_OK)
		goto fail;
	/*
	 * Its digest, and the serialization that freezes the listing: now,
	 * or on first use (wymcp__tools_digest()) for a lazy server, as a
	 * tools/call needs neither.
	 */
	t->listing = l;
	if (!srv->lazy && wymcp__tool_digest(t)) {
		t->listing = NULL;
		rc = WYMCP_ERR_NOMEM;
		wymcp__seterr(srv, "out of memory");
		goto fail;
	}
	if ((rc = wymcp__xparams_compile(srv, t)) != WYMCP_OK) {
		t->listing = NULL;
		t->digested = 0;
		goto fail;
	}
	t->def = def;
	t->decl = decl;
	t->mod = mod;
	t->input = js[0];
	t->output = js[1];
	t->reqcaps = js[3];
	t->defaults = js[4];
	t->app_only = app_only;
	json_object_put(js[2]);
	return WYMCP_OK;
fail:
	json_object_put(l);
	for (i = 0; i < WYMCP_NELEM(js); i++)
		json_object_put(js[i]);
	return rc;
}

/*
 * Whether `mod' is a module this library can read: its ABI, the sizes
 * of its tables' elements (in *stride, the tools'), its info.  Sets
 * errmsg when not.
 */
static enum wymcp_err
module_check(struct wymcp_server *srv, const struct wymcp_module *mod,
    const char *path, size_t *stride)
{
	/* A module built against 0.1 ends after `tools'. */
	if (mod == NULL || mod->abi != WYMCP_ABI_VERSION ||
	    !WYMCP__HAS(mod, tools) || mod->name == NULL || (mod->tools ==
	    NULL && (!WYMCP__HAS(mod, prompts) || (mod->resources == NULL &&
	    mod->templates == NULL && mod->prompts == NULL)))) {
		wymcp__seterr(srv, "%s: not a wymcp module of ABI %d",
		    path != NULL ? path : "module", WYMCP_ABI_VERSION);
		return WYMCP_ERR_MODULE;
	}
	*stride = WYMCP__STRIDE(mod, tool_size, WYMCP__TOOL_SIZE_0_2);
	if (*stride < WYMCP__TOOL_SIZE_0_2 || WYMCP__STRIDE(mod,
	    resource_size, WYMCP__RESOURCE_SIZE_0_2) <
	    WYMCP__RESOURCE_SIZE_0_2 || WYMCP__STRIDE(mod, prompt_size,
	    WYMCP__PROMPT_SIZE_0_2) < WYMCP__PROMPT_SIZE_0_2 ||
	    WYMCP__STRIDE(mod, prompt_arg_size, WYMCP__PROMPT_ARG_SIZE_0_2) <
	    WYMCP__PROMPT_ARG_SIZE_0_2) {
		wymcp__seterr(srv, "%s: module %s declares table elements "
		    "smaller than any wymcp header has", path != NULL ? path :
		    "module", mod->name);
		return WYMCP_ERR_MODULE;
	}
	return wymcp__module_info_check(srv, mod);
}

/*
 * Prepare the `n' tools of `mod' (elements `stride' bytes apart) into
 * `nt': all, or none (those prepared are cleared again) with errmsg
 * saying why: a tool registered already, or declared twice in `mod'.
 */
static enum wymcp_err
prepare_tools(struct wymcp_server *srv, const struct wymcp_module *mod,
    size_t stride, struct wymcp__tool *nt, size_t n)
{
	uint32_t	*seen;
	size_t		 i, nseen = 16;
	enum wymcp_err	 rc = WYMCP_OK;

	/* The names seen so far in this module (NULL: they are scanned). */
	while (nseen < 2 * n)
		nseen *= 2;
	seen = calloc(nseen, sizeof(*seen));
	for (i = 0; i < n; i++) {
		memset(&nt[i], 0, sizeof(*nt));
		if (registered(srv, TOOL_AT(mod, i, stride)->name)) {
			wymcp__seterr(srv, "module %s: tool %s is already "
			    "registered", mod->name,
			    TOOL_AT(mod, i, stride)->name);
			rc = WYMCP_ERR_DUP;
		} else
			rc = wymcp__tool_prepare(srv, mod,
			    TOOL_AT(mod, i, stride), &nt[i]);
		/* A duplicate inside this module counts too. */
		if (rc == WYMCP_OK && declared_twice(mod, stride, i, seen,
		    nseen)) {
			wymcp__seterr(srv, "module %s: tool %s is declared "
			    "twice", mod->name, TOOL_AT(mod, i, stride)->name);
			wymcp__tool_clear(&nt[i]);
			rc = WYMCP_ERR_DUP;
		}
		if (rc != WYMCP_OK)
			break;
	}
	free(seen);
	if (rc != WYMCP_OK)
		while (i-- > 0)
			wymcp__tool_clear(&nt[i]);
	return rc;
}

/*
 * A module was added: the serverInfo, the tools' index and their
 * digests made again.
 */
static void
module_added(struct wymcp_server *srv, const struct wymcp_module *mod)
{
	/*
	 * On failure the serverInfo stays the one before.  A module with
	 * neither instructions nor server_info changes neither: a lazy
	 * server (CGI) does not build it again (a parse and a
	 * serialization) for such a module.  A long-lived one does, which
	 * leaves it after the tools on the heap: a tools/call with 10,000
	 * tools loaded measured 1.3% cheaper so (t/bench/start.py).
	 */
	if (!srv->lazy ||
	    (WYMCP__HAS(mod, instructions) && mod->instructions != NULL) ||
	    (WYMCP__HAS(mod, server_info) && mod->server_info != NULL))
		(void)wymcp__server_info_build(srv);
	if (wymcp__tools_index(srv) != WYMCP_OK) {
		/* The module stays; its lookups fall back to a scan. */
		wymcp__seterr(srv, "out of memory");
	}
	/* The identity of the tools, with these: now, or on first use. */
	srv->digested = 0;
	if (!srv->lazy)
		(void)wymcp__tools_digest(srv);
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
	size_t			 n, i, stride;
	enum wymcp_err		 rc;

	if ((rc = module_check(srv, mod, path, &stride)) != WYMCP_OK)
		return rc;
	for (n = 0; mod->tools != NULL && n < WYMCP__COUNT(mod, ntools) &&
	    TOOL_AT(mod, n, stride)->name != NULL; n++)
		continue;
	nt = reallocarray(srv->tools, srv->ntools + n + 1, sizeof(*nt));
	if (nt == NULL)
		goto nomem;
	srv->tools = nt;
	/*
	 * The array may have moved: the index points into it, so it is
	 * rebuilt now (for the tools registered so far), whatever happens
	 * to this module.
	 */
	if (wymcp__tools_index(srv) != WYMCP_OK)
		goto nomem;
	nm = reallocarray(srv->mods, srv->nmods + 1, sizeof(*nm));
	if (nm == NULL)
		goto nomem;
	srv->mods = nm;
	if ((rc = prepare_tools(srv, mod, stride, &nt[srv->ntools], n)) !=
	    WYMCP_OK)
		return rc;
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
	module_added(srv, mod);
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

void
wymcp_server_set_lazy(struct wymcp_server *srv, int on)
{
	if (srv != NULL)
		srv->lazy = on != 0;
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
	srv->napps_only = 0;
	srv->digested = 0;
	free(srv->all);
	srv->all = NULL;
	free(srv->index);
	srv->index = NULL;
	srv->nindex = 0;
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

/* FNV-1a of a name: the tool index's hash. */
uint64_t
wymcp__name_hash(const char *s, size_t len)
{
	uint64_t	 h = 14695981039346656037ULL;
	size_t		 i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

/*
 * Build what requests read of the tools, once per module load: the
 * array of every tool in order (the mount list when the web server
 * names none), an open-addressing index of their names, and the cache
 * hints of a list of them all.  WYMCP_OK or WYMCP_ERR_NOMEM (the old
 * ones are then kept off: lookups scan).
 */
enum wymcp_err
wymcp__tools_index(struct wymcp_server *srv)
{
	const struct wymcp__tool **all;
	uint32_t		*index;
	size_t			 n = 16, i, slot;
	int64_t			 ttl;

	while (n < 2 * srv->ntools)
		n *= 2;
	for (srv->napps_only = 0, i = 0; i < srv->ntools; i++)
		if (srv->tools[i].app_only)
			srv->napps_only++;
	all = calloc(srv->ntools + 1, sizeof(*all));
	index = calloc(n, sizeof(*index));
	free(srv->all);
	free(srv->index);
	srv->all = NULL;
	srv->index = NULL;
	srv->nindex = 0;
	if (all == NULL || index == NULL) {
		free(all);
		free(index);
		return WYMCP_ERR_NOMEM;
	}
	srv->tools_ttl = -1;
	srv->tools_private = 0;
	srv->tools_scoped = 0;
	srv->tools_audit_args = 0;
	for (i = 0; i < srv->ntools; i++) {
		if (srv->tools[i].decl.scopes != NULL)
			srv->tools_scoped = 1;
		if (srv->tools[i].decl.audit_args)
			srv->tools_audit_args = 1;
		all[i] = &srv->tools[i];
		slot = wymcp__name_hash(srv->tools[i].def->name,
		    strlen(srv->tools[i].def->name)) & (n - 1);
		while (index[slot] != 0)
			slot = (slot + 1) & (n - 1);
		index[slot] = (uint32_t)i + 1;
		ttl = wymcp__module_ttl(srv->tools[i].mod);
		if (srv->tools_ttl < 0 || ttl < srv->tools_ttl)
			srv->tools_ttl = ttl;
		if (wymcp__module_private(srv->tools[i].mod))
			srv->tools_private = 1;
	}
	srv->all = all;
	srv->index = index;
	srv->nindex = n;
	return WYMCP_OK;
}

/* The registered tool called name[0..len), or NULL. */
const struct wymcp__tool *
wymcp__tool_lookup(const struct wymcp_server *srv, const char *name,
    size_t len)
{
	const struct wymcp__tool *t;
	size_t			 slot, i;

	if (srv->index == NULL) {
		for (i = 0; i < srv->ntools; i++)
			if (strlen(srv->tools[i].def->name) == len &&
			    memcmp(srv->tools[i].def->name, name, len) == 0)
				return &srv->tools[i];
		return NULL;
	}
	slot = wymcp__name_hash(name, len) & (srv->nindex - 1);
	for (; srv->index[slot] != 0; slot = (slot + 1) & (srv->nindex - 1)) {
		t = &srv->tools[srv->index[slot] - 1];
		if (strncmp(t->def->name, name, len) == 0 &&
		    t->def->name[len] == '\0')
			return t;
	}
	return NULL;
}

/*
 * A module's ttlMs (wymcp.h "struct wymcp_module"): 0 or a module built
 * before the field existed means the default, a negative value 0.  The
 * value is kept within what a JSON number holds exactly.
 */
int64_t
wymcp__module_ttl(const struct wymcp_module *mod)
{
	if (mod == NULL || !WYMCP__HAS(mod, ttl_ms) || mod->ttl_ms == 0)
		return WYMCP__TTL_MS;
	if (mod->ttl_ms < 0)
		return 0;
	return (int64_t)mod->ttl_ms > TTL_MAX ? TTL_MAX : (int64_t)mod->ttl_ms;
}

/* Does the module mark its results as depending on the user? */
int
wymcp__module_private(const struct wymcp_module *mod)
{
	return mod != NULL && WYMCP__HAS(mod, private_cache) &&
	    mod->private_cache != 0;
}
