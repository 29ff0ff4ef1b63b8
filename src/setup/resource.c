/*
 * resource.c - registration of a module's resources, templates and
 * prompts (server/resources.mdx; the prompts are prompt.c's), and MCP
 * Apps' ui:// resources (ext-apps apps.mdx "UI Resource Format")
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "setup/setup.h"

/*
 * The registered template whose uriTemplate is `uri` (*is_template 1),
 * else the fixed resource of that URI (0), else NULL: what a
 * completion/complete ref/resource names.
 */
const struct wymcp__resource *
wymcp__resource_ref(const struct wymcp_server *srv, const char *uri,
    int *is_template)
{
	size_t	 i;

	for (i = 0; i < srv->ntemplates; i++)
		if (strcmp(srv->templates[i].def->uri, uri) == 0) {
			*is_template = 1;
			return &srv->templates[i];
		}
	for (i = 0; i < srv->nresources; i++)
		if (strcmp(srv->resources[i].def->uri, uri) == 0) {
			*is_template = 0;
			return &srv->resources[i];
		}
	return NULL;
}

/* Release one registered resource or template. */
static void
resource_clear(struct wymcp__resource *r)
{
	free(r->filetext);
	json_object_put(r->listing);
	memset(r, 0, sizeof(*r));
}

/*
 * Read the file `name' a resource of the module being added names
 * (`who'), relative to the module's directory unless absolute (to the
 * working directory for a module linked in), after the program's file
 * check: its text, at most WYMCP_APP_FILE_MAX bytes of UTF-8, in *out
 * (caller frees).  WYMCP_OK, or an error naming the file in errmsg.
 */
static enum wymcp_err
file_read(struct wymcp_server *srv, const char *who, const char *name,
    char **out)
{
	const char	*mpath = srv->mods[srv->nmods].path, *slash;
	char		*path = NULL, *buf = NULL, why[512];
	size_t		 len = 0, n;
	FILE		*f = NULL;
	int		 plen;

	*out = NULL;
	if (*name == '\0') {
		wymcp__seterr(srv, "%s: file names no path", who);
		return WYMCP_ERR_INVAL;
	}
	/* All errors from here on use goto fail. */
	if (*name != '/' && mpath != NULL &&
	    (slash = strrchr(mpath, '/')) != NULL)
		plen = asprintf(&path, "%.*s/%s", (int)(slash - mpath), mpath,
		    name);
	else
		plen = asprintf(&path, "%s", name);
	if (plen < 0) {
		path = NULL;
		wymcp__seterr(srv, "out of memory");
		goto fail;
	}
	if (srv->filecheck != NULL && srv->filecheck(srv->filecheck_arg,
	    path, why, sizeof(why)) != 0) {
		wymcp__seterr(srv, "%s: file %s: refused: %s", who, path, why);
		goto fail;
	}
	if ((f = fopen(path, "r")) == NULL) {
		wymcp__seterr(srv, "%s: file %s: %s", who, path,
		    strerror(errno));
		goto fail;
	}
	if ((buf = malloc(WYMCP_APP_FILE_MAX + 1)) == NULL) {
		wymcp__seterr(srv, "out of memory");
		goto fail;
	}
	while ((n = fread(buf + len, 1, WYMCP_APP_FILE_MAX + 1 - len, f)) >
	    0 && (len += n) <= WYMCP_APP_FILE_MAX)
		continue;
	if (ferror(f)) {
		wymcp__seterr(srv, "%s: file %s: %s", who, path,
		    strerror(errno));
		goto fail;
	}
	if (len > WYMCP_APP_FILE_MAX) {
		wymcp__seterr(srv, "%s: file %s is larger than %d bytes", who,
		    path, WYMCP_APP_FILE_MAX);
		goto fail;
	}
	buf[len] = '\0';
	if (strlen(buf) != len || !wymcp__utf8_valid(buf, len)) {
		wymcp__seterr(srv, "%s: file %s is not UTF-8 text", who,
		    path);
		goto fail;
	}
	fclose(f);
	free(path);
	/* Kept for the server's life: only what the file holds. */
	if ((*out = realloc(buf, len + 1)) == NULL)
		*out = buf;
	return WYMCP_OK;
fail:
	if (f != NULL)
		fclose(f);
	free(buf);
	free(path);
	return WYMCP_ERR_INVAL;
}

/*
 * The URI of resource or template `def' (`kind') of `mod', its name,
 * its texts, and that no entry of `tab' (`n' of them) has it: WYMCP_OK,
 * or an error with errmsg.
 */
static enum wymcp_err
resource_check(struct wymcp_server *srv, const struct wymcp_module *mod,
    const struct wymcp_resource *def, int template,
    const struct wymcp__resource *tab, size_t n)
{
	const char	*kind = template ? "template" : "resource";
	char		 why[256];
	size_t		 i;

	if (!wymcp__utf8_valid(def->uri, strlen(def->uri))) {
		wymcp__seterr(srv, "module %s: a %s URI is not UTF-8",
		    mod->name, kind);
		return WYMCP_ERR_INVAL;
	}
	if (!wymcp__uri_scheme_ok(def->uri)) {
		wymcp__seterr(srv, "module %s: %s '%s' does not start with a "
		    "URI scheme (RFC 3986: a letter, then letters, digits, "
		    "'+', '-' or '.', then ':')", mod->name, kind, def->uri);
		return WYMCP_ERR_INVAL;
	}
	if (template ? !wymcp__tpl_check(def->uri, why, sizeof(why)) :
	    wymcp__uri_literal_ok(def->uri, strlen(def->uri), why,
	    sizeof(why)) == -1) {
		wymcp__seterr(srv, "module %s: %s '%s': %s", mod->name, kind,
		    def->uri, why);
		return WYMCP_ERR_INVAL;
	}
	if (def->name == NULL || *def->name == '\0') {
		wymcp__seterr(srv, "module %s: %s %s: a name is required",
		    mod->name, kind, def->uri);
		return WYMCP_ERR_INVAL;
	}
	if (!wymcp__text_ok(def->name) || !wymcp__text_ok(def->title) ||
	    !wymcp__text_ok(def->description) ||
	    !wymcp__text_ok(def->mime) ||
	    (def->mime != NULL && *def->mime == '\0')) {
		wymcp__seterr(srv, "module %s: %s %s: name, title, description "
		    "and mime must be UTF-8 (mime not empty)", mod->name, kind,
		    def->uri);
		return WYMCP_ERR_INVAL;
	}
	for (i = 0; i < n; i++)
		if (strcmp(tab[i].def->uri, def->uri) == 0) {
			wymcp__seterr(srv, "module %s: %s %s is already "
			    "registered", mod->name, kind, def->uri);
			return WYMCP_ERR_DUP;
		}
	return WYMCP_OK;
}

/*
 * The members added after 0.2 of `def' (`who' in errors), read into
 * `decl' from a copy cut at the module's `stride', checked: one of a
 * read function, a text and a file; the mime type (*mimep: an MCP
 * App's by default under ui://); the text; the size.  WYMCP_OK, or
 * WYMCP_ERR_INVAL with errmsg.
 */
static enum wymcp_err
resource_decl(struct wymcp_server *srv, const struct wymcp_resource *def,
    size_t stride, int template, const char *who,
    struct wymcp_resource *decl, const char **mimep)
{
	memset(decl, 0, sizeof(*decl));
	memcpy(decl, def, stride < sizeof(*decl) ? stride : sizeof(*decl));
	if ((def->read != NULL) + (decl->text != NULL) + (decl->file !=
	    NULL) != 1 || (template && def->read == NULL)) {
		wymcp__seterr(srv, "%s: a read function, a text or a file "
		    "is required, and only one of them (a template needs a "
		    "read function)", who);
		return WYMCP_ERR_INVAL;
	}
	*mimep = def->mime;
	if (!template && strncmp(def->uri, "ui://", 5) == 0) {
		if (*mimep == NULL)
			*mimep = WYMCP_APP_MIME;
		else if (strcasecmp(*mimep, WYMCP_APP_MIME) != 0) {
			wymcp__seterr(srv, "%s: an MCP Apps resource (ui://) "
			    "has the mime type " WYMCP_APP_MIME " (others are "
			    "reserved), not '%s'", who, *mimep);
			return WYMCP_ERR_INVAL;
		}
	}
	if (decl->text != NULL && !wymcp__text_ok(decl->text)) {
		wymcp__seterr(srv, "%s: text is not UTF-8", who);
		return WYMCP_ERR_INVAL;
	}
	if (decl->size < 0 || (template && decl->size != 0)) {
		wymcp__seterr(srv, "%s: size must be 0 (unknown) or the "
		    "bytes of a fixed resource; a template has none", who);
		return WYMCP_ERR_INVAL;
	}
	return WYMCP_OK;
}

/*
 * The annotations of `decl' (`who' in errors), parsed and checked, in
 * *annp (NULL: none; the caller puts it).  0, or -1 with errmsg.
 */
static int
resource_annotations(struct wymcp_server *srv, const char *who,
    const struct wymcp_resource *decl, struct json_object **annp)
{
	char	 why[256];

	*annp = NULL;
	if (decl->annotations == NULL)
		return 0;
	if ((*annp = wymcp__parse(decl->annotations,
	    strlen(decl->annotations))) == NULL) {
		wymcp__seterr(srv, "%s: annotations is not valid JSON", who);
		return -1;
	}
	if (!wymcp__annotations_ok(*annp, why, sizeof(why))) {
		json_object_put(*annp);
		*annp = NULL;
		wymcp__seterr(srv, "%s: %s", who, why);
		return -1;
	}
	return 0;
}

/*
 * Check one resource or template declaration and build its listing
 * object.  `tab`/`n` are the entries registered so far (this module's
 * included), for the duplicate check.  WYMCP_OK, or an error with the
 * reason in errmsg and `out` untouched.
 */
static enum wymcp_err
resource_prepare(struct wymcp_server *srv, const struct wymcp_module *mod,
    const struct wymcp_resource *def, size_t stride, int template,
    const struct wymcp__resource *tab, size_t n, struct wymcp__resource *out)
{
	struct json_object	*l = NULL, *ann = NULL, *meta;
	struct wymcp_resource	 decl;
	const char		*mime;
	char			 why[256], who[160], *filetext = NULL;
	enum wymcp_err		 rc;

	if ((rc = resource_check(srv, mod, def, template, tab, n)) !=
	    WYMCP_OK)
		return rc;
	snprintf(who, sizeof(who), "module %s: %s %s", mod->name, template ?
	    "template" : "resource", def->uri);
	if ((rc = resource_decl(srv, def, stride, template, who, &decl,
	    &mime)) != WYMCP_OK)
		return rc;
	if (resource_annotations(srv, who, &decl, &ann) != 0)
		return WYMCP_ERR_INVAL;
	/* All errors from here on use goto fail. */
	rc = WYMCP_ERR_NOMEM;
	wymcp__seterr(srv, "out of memory");
	if ((l = json_object_new_object()) == NULL)
		goto fail;
	if (wymcp__put_str(l, template ? "uriTemplate" : "uri", def->uri) ||
	    wymcp__put_str(l, "name", def->name) || wymcp__put_str(l, "title",
	    def->title) ||
	    wymcp__put_str(l, "description", def->description) ||
	    wymcp__put_str(l, "mimeType", mime) ||
	    (ann != NULL && json_object_object_add(l, "annotations",
	    json_object_get(ann))) ||
	    (decl.size > 0 && json_object_object_add(l, "size",
	    json_object_new_int64(decl.size))))
		goto fail;
	if ((rc = wymcp__meta_prepare(srv, who, decl.icons, decl.meta, l)) !=
	    WYMCP_OK)
		goto fail;
	rc = WYMCP_ERR_INVAL;
	if (json_object_object_get_ex(l, "_meta", &meta) &&
	    !wymcp__ui_meta_ok(meta, WYMCP__UI_RESOURCE, why, sizeof(why))) {
		wymcp__seterr(srv, "%s: %s", who, why);
		goto fail;
	}
	if (decl.file != NULL && (rc = file_read(srv, who, decl.file,
	    &filetext)) != WYMCP_OK)
		goto fail;
	rc = WYMCP_ERR_NOMEM;
	wymcp__seterr(srv, "out of memory");
	if (wymcp__listing_digest(l, out->digest))
		goto fail;
	json_object_put(ann);
	out->def = def;
	out->mod = mod;
	out->listing = l;
	out->filetext = filetext;
	out->text = filetext != NULL ? filetext : decl.text;
	return WYMCP_OK;
fail:
	free(filetext);
	json_object_put(ann);
	json_object_put(l);
	return rc;
}

/*
 * Prepare a module's table of resources or templates in the slots after
 * the registered ones, without counting them yet.  *np is how many were
 * prepared.  On failure none stays.
 */
static enum wymcp_err
table_prepare(struct wymcp_server *srv, const struct wymcp_module *mod,
    const struct wymcp_resource *defs, int template, size_t *np)
{
	struct wymcp__resource	**tab = template ? &srv->templates :
				    &srv->resources, *nt;
	size_t			 have = template ? srv->ntemplates :
				    srv->nresources, n, i, stride, max;
	enum wymcp_err		 rc;

	*np = 0;
	stride = WYMCP__STRIDE(mod, resource_size, WYMCP__RESOURCE_SIZE_0_2);
	max = template ? WYMCP__COUNT(mod, ntemplates) :
	    WYMCP__COUNT(mod, nresources);
	for (n = 0; defs != NULL && n < max &&
	    WYMCP__AT(struct wymcp_resource, defs, n, stride)->uri != NULL;
	    n++)
		continue;
	if (n == 0)
		return WYMCP_OK;
	if ((nt = reallocarray(*tab, have + n, sizeof(*nt))) == NULL) {
		wymcp__seterr(srv, "out of memory");
		return WYMCP_ERR_NOMEM;
	}
	*tab = nt;
	for (i = 0; i < n; i++) {
		memset(&nt[have + i], 0, sizeof(*nt));
		rc = resource_prepare(srv, mod,
		    WYMCP__AT(struct wymcp_resource, defs, i, stride), stride,
		    template, nt, have + i, &nt[have + i]);
		if (rc != WYMCP_OK) {
			while (i-- > 0)
				resource_clear(&nt[have + i]);
			return rc;
		}
	}
	*np = n;
	return WYMCP_OK;
}

/*
 * Register a module's resources, templates and prompts (called by
 * add_module() after its tools): all of them or, on any failure,
 * none, with the reason in errmsg.
 */
enum wymcp_err
wymcp__module_extras(struct wymcp_server *srv, const struct wymcp_module *mod)
{
	size_t		 nr = 0, nt = 0, np = 0, i;
	enum wymcp_err	 rc;

	/* A module built against 0.1 has none of these members. */
	if (WYMCP__HAS(mod, resources) && (rc = table_prepare(srv, mod,
	    mod->resources, 0, &nr)) != WYMCP_OK)
		return rc;
	if (WYMCP__HAS(mod, templates) && (rc = table_prepare(srv, mod,
	    mod->templates, 1, &nt)) != WYMCP_OK)
		goto undo;
	if ((rc = wymcp__prompts_prepare(srv, mod, &np)) != WYMCP_OK)
		goto undo;
	for (i = 0; i < nr; i++)
		if (strncmp(srv->resources[srv->nresources + i].def->uri,
		    "ui://", 5) == 0)
			srv->napps++;
	srv->nresources += nr;
	srv->ntemplates += nt;
	srv->nprompts += np;
	if (WYMCP__HAS(mod, complete) && mod->complete != NULL)
		srv->ncompleters++;
	return WYMCP_OK;
undo:
	for (i = 0; i < nt; i++)
		resource_clear(&srv->templates[srv->ntemplates + i]);
	for (i = 0; i < nr; i++)
		resource_clear(&srv->resources[srv->nresources + i]);
	return rc;
}

/* Release every resource, template and prompt (wymcp_server_free()). */
void
wymcp__extras_free(struct wymcp_server *srv)
{
	size_t	 i;

	for (i = 0; i < srv->nresources; i++)
		resource_clear(&srv->resources[i]);
	free(srv->resources);
	srv->resources = NULL;
	srv->nresources = 0;
	srv->napps = 0;
	for (i = 0; i < srv->ntemplates; i++)
		resource_clear(&srv->templates[i]);
	free(srv->templates);
	srv->templates = NULL;
	srv->ntemplates = 0;
	wymcp__prompts_free(srv);
	srv->ncompleters = 0;
}
