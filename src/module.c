/*
 * module.c - the server object, tool registration and the module loader
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

#include "extern.h"

/* Tool names: 1 to 128 of [A-Za-z0-9_.-] (server/tools.mdx "Tool"). */
int
wymcp__tool_name_ok(const char *name)
{
	size_t	 n;

	for (n = 0; name[n] != '\0'; n++)
		if (!isalnum((unsigned char)name[n]) && name[n] != '_' &&
		    name[n] != '.' && name[n] != '-')
			return 0;
	return n >= 1 && n <= 128;
}

struct wymcp_server *
wymcp_server_new(void)
{
	struct wymcp_server	*srv;
	struct json_object	*info = NULL;

	if ((srv = calloc(1, sizeof(*srv))) == NULL)
		return NULL;
	srv->max_body = WYMCP_MAX_BODY_DEFAULT;
	srv->logmax = -1;
	srv->state_ttl = WYMCP_STATE_TTL_DEFAULT;
	srv->legacy = 1;
	if (wymcp__keys_random(srv))
		goto fail;
	if ((srv->result_meta = json_object_new_object()) == NULL ||
	    (info = json_object_new_object()) == NULL)
		goto fail;
	json_object_object_add(info, "name", json_object_new_string("wymcp"));
	json_object_object_add(info, "version",
	    json_object_new_string(WYMCP_VERSION));
	if (json_object_object_add(srv->result_meta, WYMCP__META_SERVER, info))
		goto fail;
	return srv;
fail:
	json_object_put(info);
	wymcp_server_free(srv);
	return NULL;
}

/* Release one registered tool's parsed JSON. */
static void
tool_clear(struct wymcp__tool *t)
{
	wymcp__xparams_free(t);
	json_object_put(t->listing);
	json_object_put(t->input);
	json_object_put(t->reqcaps);
	memset(t, 0, sizeof(*t));
}

void
wymcp_server_free(struct wymcp_server *srv)
{
	size_t	 i;

	if (srv == NULL)
		return;
	for (i = 0; i < srv->ntools; i++)
		tool_clear(&srv->tools[i]);
	free(srv->tools);
	wymcp__extras_free(srv);
	for (i = 0; i < srv->nmods; i++) {
		if (srv->mods[i].handle != NULL)
			dlclose(srv->mods[i].handle);
		free(srv->mods[i].path);
	}
	free(srv->mods);
	for (i = 0; i < srv->norigins; i++) {
		free(srv->origins[i].origin);
		free(srv->origins[i].host);
	}
	free(srv->origins);
	json_object_put(srv->result_meta);
	if (srv->keys != NULL)
		explicit_bzero(srv->keys, srv->nkeys * sizeof(*srv->keys));
	free(srv->keys);
	free(srv->readbuf);
	free(srv);
}

const char *
wymcp_server_errmsg(const struct wymcp_server *srv)
{
	return srv == NULL ? "no server" : srv->errmsg;
}

/*
 * Parse a JSON text that must be an object.  Returns a new object or
 * NULL with a reason in the server's errmsg.
 */
static struct json_object *
parse_object(struct wymcp_server *srv, const char *tool, const char *what,
    const char *text)
{
	struct json_object	*o;

	o = wymcp__parse(text, strlen(text));
	if (o == NULL) {
		wymcp__seterr(srv, "tool %s: %s is not valid JSON", tool, what);
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
static enum wymcp_err
tool_prepare(struct wymcp_server *srv, const struct wymcp_module *mod,
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
	if (registered(srv, def->name)) {
		wymcp__seterr(srv, "module %s: tool %s is already registered",
		    mod->name, def->name);
		return WYMCP_ERR_DUP;
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
	if (out != NULL)
		json_object_object_add(l, "outputSchema", out);
	if (ann != NULL)
		json_object_object_add(l, "annotations", ann);
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
	t->module = mod->name;
	t->input = in;
	t->reqcaps = caps;
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
	size_t			 n, i, k;
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
	for (n = 0; mod->tools != NULL && mod->tools[n].name != NULL; n++)
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
		rc = tool_prepare(srv, mod, &mod->tools[i],
		    &nt[srv->ntools + i]);
		/* A duplicate inside this module counts too. */
		for (k = 0; rc == WYMCP_OK && k < i; k++)
			if (strcmp(mod->tools[k].name, mod->tools[i].name) == 0) {
				wymcp__seterr(srv, "module %s: tool %s is "
				    "declared twice", mod->name,
				    mod->tools[i].name);
				tool_clear(&nt[srv->ntools + i]);
				rc = WYMCP_ERR_DUP;
			}
		if (rc != WYMCP_OK) {
			while (i-- > 0)
				tool_clear(&nt[srv->ntools + i]);
			return rc;
		}
	}
	nm[srv->nmods].handle = handle;
	nm[srv->nmods].mod = mod;
	nm[srv->nmods].path = NULL;
	if (path != NULL && (nm[srv->nmods].path = strdup(path)) == NULL) {
		for (i = 0; i < n; i++)
			tool_clear(&nt[srv->ntools + i]);
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
			tool_clear(&nt[srv->ntools + i]);
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

enum wymcp_err
wymcp_server_allow_origin(struct wymcp_server *srv, const char *origin)
{
	struct wymcp__origin	*no, o;
	const char		*h, *e;
	size_t			 i;

	if (srv == NULL || origin == NULL || *origin == '\0' ||
	    !wymcp__header_chars_ok(origin) || strpbrk(origin, " \t") != NULL) {
		if (srv != NULL)
			wymcp__seterr(srv, "invalid origin");
		return WYMCP_ERR_INVAL;
	}
	memset(&o, 0, sizeof(o));
	if ((h = strstr(origin, "://")) != NULL) {
		h += 3;
		if (*h == '[')
			e = strchr(h, ']') == NULL ? h : strchr(h, ']') + 1;
		else
			for (e = h; *e != '\0' && *e != ':' && *e != '/'; e++)
				continue;
		if (e == h || (*e != '\0' && *e != ':')) {
			wymcp__seterr(srv, "%s: an origin is scheme://host"
			    "[:port] with no path", origin);
			return WYMCP_ERR_INVAL;
		}
		o.origin = strdup(origin);
		o.host = strndup(h, (size_t)(e - h));
		if (o.origin == NULL)
			goto nomem;
	} else
		o.host = strdup(origin);
	if (o.host == NULL)
		goto nomem;
	for (i = 0; o.host[i] != '\0'; i++)
		o.host[i] = (char)tolower((unsigned char)o.host[i]);
	no = reallocarray(srv->origins, srv->norigins + 1, sizeof(*no));
	if (no == NULL)
		goto nomem;
	srv->origins = no;
	no[srv->norigins++] = o;
	return WYMCP_OK;
nomem:
	free(o.origin);
	free(o.host);
	wymcp__seterr(srv, "out of memory");
	return WYMCP_ERR_NOMEM;
}

void
wymcp_server_set_max_body(struct wymcp_server *srv, size_t max)
{
	if (srv != NULL)
		srv->max_body = max;
}

void
wymcp_server_set_log(struct wymcp_server *srv, wymcp_log_fn fn, void *arg,
    int maxprio)
{
	if (srv == NULL)
		return;
	srv->logfn = fn;
	srv->logarg = arg;
	srv->logmax = fn == NULL ? -1 : maxprio;
}
