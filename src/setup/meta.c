/*
 * meta.c - metadata at load time: icons and _meta of tools, resources,
 * templates and prompts, and the server's Implementation and
 * instructions (MCP 2026-07-28 basic/index.mdx "_meta", "icons";
 * server/discover.mdx; 2025-11-25 basic/lifecycle.mdx initialize)
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "setup/setup.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION	WYMCP_VERSION
#endif

/*
 * Parse a module's JSON text `text' for the member `what' of `who'
 * ("tool echo"): NULL with the reason in errmsg when it is not JSON.
 */
static struct json_object *
parse(struct wymcp_server *srv, const char *who, const char *what,
    const char *text)
{
	struct json_object	*o;
	enum wymcp__json_fault	 fault;

	if ((o = wymcp__parse_ex(text, strlen(text), &fault)) == NULL)
		wymcp__seterr(srv, "%s: %s is not valid JSON%s", who, what,
		    fault == WYMCP__JSON_DUPLICATE ? " (an object has two "
		    "members of the same name)" : "");
	return o;
}

/*
 * Check an entry's icons and _meta (JSON texts, each may be NULL) and
 * add them to its listing as "icons" and "_meta".  WYMCP_OK, or an
 * error with the rule in errmsg (the listing may have some of them:
 * the caller drops it).
 */
enum wymcp_err
wymcp__meta_prepare(struct wymcp_server *srv, const char *who,
    const char *icons, const char *meta, struct json_object *listing)
{
	struct json_object	*o;
	char			 why[256];

	if (icons != NULL) {
		if ((o = parse(srv, who, "icons", icons)) == NULL)
			return WYMCP_ERR_INVAL;
		if (!wymcp__icons_ok(o, why, sizeof(why))) {
			json_object_put(o);
			wymcp__seterr(srv, "%s: %s", who, why);
			return WYMCP_ERR_INVAL;
		}
		if (json_object_object_add(listing, "icons", o)) {
			json_object_put(o);
			goto nomem;
		}
	}
	if (meta != NULL) {
		if ((o = parse(srv, who, "meta", meta)) == NULL)
			return WYMCP_ERR_INVAL;
		if (!wymcp__meta_ok(o, why, sizeof(why))) {
			json_object_put(o);
			wymcp__seterr(srv, "%s: %s", who, why);
			return WYMCP_ERR_INVAL;
		}
		if (json_object_object_add(listing, "_meta", o)) {
			json_object_put(o);
			goto nomem;
		}
	}
	return WYMCP_OK;
nomem:
	wymcp__seterr(srv, "out of memory");
	return WYMCP_ERR_NOMEM;
}

/* Is `s' an http: or https: URL without white space? */
static int
url_ok(const char *s)
{
	size_t	 i;

	if (!wymcp__text_ok(s) || (strncmp(s, "https://", 8) != 0 &&
	    strncmp(s, "http://", 7) != 0))
		return 0;
	for (i = 0; s[i] != '\0'; i++)
		if ((unsigned char)s[i] <= 0x20 || s[i] == 0x7f)
			return 0;
	return strstr(s, "://")[3] != '\0';
}

/*
 * Check an Implementation object (a module's server_info): the string
 * members name, title, version, description and websiteUrl and the
 * array icons, nothing else.  1, or 0 with errmsg set.
 */
static int
info_ok(struct wymcp_server *srv, const char *who, struct json_object *o)
{
	char	 why[256];

	if (!json_object_is_type(o, json_type_object)) {
		wymcp__seterr(srv, "%s: server_info must be a JSON object",
		    who);
		return 0;
	}
	json_object_object_foreach(o, k, v) {
		if (strcmp(k, "icons") == 0) {
			if (!wymcp__icons_ok(v, why, sizeof(why))) {
				wymcp__seterr(srv, "%s: server_info: %s", who,
				    why);
				return 0;
			}
			continue;
		}
		if (strcmp(k, "name") != 0 && strcmp(k, "title") != 0 &&
		    strcmp(k, "version") != 0 &&
		    strcmp(k, "description") != 0 &&
		    strcmp(k, "websiteUrl") != 0) {
			wymcp__seterr(srv, "%s: server_info has no member "
			    "'%s' (name, title, version, description, "
			    "websiteUrl, icons)", who, k);
			return 0;
		}
		if (!json_object_is_type(v, json_type_string) ||
		    !wymcp__text_ok(json_object_get_string(v)) ||
		    *json_object_get_string(v) == '\0') {
			wymcp__seterr(srv, "%s: server_info: %s must be a "
			    "non-empty UTF-8 string", who, k);
			return 0;
		}
		if (strcmp(k, "websiteUrl") == 0 &&
		    !url_ok(json_object_get_string(v))) {
			wymcp__seterr(srv, "%s: server_info: websiteUrl must "
			    "be an http: or https: URL", who);
			return 0;
		}
	}
	return 1;
}

/*
 * Check a module's server_info and instructions before it is
 * registered.  WYMCP_OK, or WYMCP_ERR_INVAL with errmsg set.
 */
enum wymcp_err
wymcp__module_info_check(struct wymcp_server *srv,
    const struct wymcp_module *mod)
{
	struct json_object	*o;
	char			 who[160];
	int			 ok;

	snprintf(who, sizeof(who), "module %s", mod->name);
	if (WYMCP__HAS(mod, instructions) && mod->instructions != NULL &&
	    !wymcp__text_ok(mod->instructions)) {
		wymcp__seterr(srv, "%s: instructions must be UTF-8", who);
		return WYMCP_ERR_INVAL;
	}
	if (!WYMCP__HAS(mod, server_info) || mod->server_info == NULL)
		return WYMCP_OK;
	if ((o = parse(srv, who, "server_info", mod->server_info)) == NULL)
		return WYMCP_ERR_INVAL;
	ok = info_ok(srv, who, o);
	json_object_put(o);
	return ok ? WYMCP_OK : WYMCP_ERR_INVAL;
}

/* Copy every member of `from' into `to'; "" removes one. */
static int
merge(struct json_object *to, struct json_object *from)
{
	json_object_object_foreach(from, k, v) {
		if (json_object_is_type(v, json_type_string) &&
		    *json_object_get_string(v) == '\0')
			json_object_object_del(to, k);
		else if (json_object_object_add(to, k, json_object_get(v)))
			return -1;
	}
	return 0;
}

/* Append `s' to the instructions being built, a blank line between. */
static int
append(char **out, const char *s)
{
	size_t	 a = *out != NULL ? strlen(*out) : 0, b = strlen(s);
	char	*n;

	if (b == 0)
		return 0;
	if ((n = realloc(*out, a + b + 3)) == NULL)
		return -1;
	if (a > 0)
		memcpy(n + a, "\n\n", 2), a += 2;
	memcpy(n + a, s, b + 1);
	*out = n;
	return 0;
}

/*
 * Build the serverInfo every result carries (srv->result_meta, frozen)
 * and the instructions: the defaults, then the first module's
 * server_info and every module's instructions, then the operator's.
 * WYMCP_OK, or WYMCP_ERR_NOMEM leaving the ones before.
 */
enum wymcp_err
wymcp__server_info_build(struct wymcp_server *srv)
{
	struct json_object	*info = NULL, *meta = NULL, *o;
	const struct wymcp_module *mod;
	char			*ins = NULL;
	size_t			 i;
	int			 have = 0;

	if ((info = json_object_new_object()) == NULL ||
	    wymcp__put_str(info, "name", "wymcp") ||
	    wymcp__put_str(info, "version", PACKAGE_VERSION))
		goto nomem;
	/* All errors from here on use goto nomem. */
	for (i = 0; i < srv->nmods; i++) {
		mod = srv->mods[i].mod;
		if (WYMCP__HAS(mod, instructions) &&
		    mod->instructions != NULL &&
		    append(&ins, mod->instructions))
			goto nomem;
		if (have || !WYMCP__HAS(mod, server_info) ||
		    mod->server_info == NULL)
			continue;
		/* Checked when the module was added. */
		if ((o = wymcp__parse(mod->server_info,
		    strlen(mod->server_info))) == NULL)
			goto nomem;
		have = 1;
		if (merge(info, o)) {
			json_object_put(o);
			goto nomem;
		}
		json_object_put(o);
	}
	if (srv->info_set != NULL && merge(info, srv->info_set))
		goto nomem;
	if (srv->instructions_set != NULL) {
		free(ins);
		ins = NULL;
		if (*srv->instructions_set != '\0' &&
		    (ins = strdup(srv->instructions_set)) == NULL)
			goto nomem;
	}
	if ((meta = json_object_new_object()) == NULL ||
	    json_object_object_add(meta, WYMCP__META_SERVER,
	    json_object_get(info)) ||
	    wymcp__json_freeze(info) || wymcp__json_freeze(meta))
		goto nomem;
	json_object_put(info);
	json_object_put(srv->result_meta);
	srv->result_meta = meta;
	srv->info_gen++;	/* a server card made before is stale */
	free(srv->instructions);
	srv->instructions = ins;
	return WYMCP_OK;
nomem:
	json_object_put(info);
	json_object_put(meta);
	free(ins);
	wymcp__seterr(srv, "out of memory");
	return WYMCP_ERR_NOMEM;
}

/* Set one operator member of the Implementation ("" removes it). */
static int
set_member(struct json_object *o, const char *k, const char *v)
{
	return v == NULL ? 0 : wymcp__put_str(o, k, v);
}

/*
 * The operator's Implementation `info' checked: a name and a version
 * not empty, texts in UTF-8, the website an http(s) URL, the icons (in
 * *iconsp, parsed; NULL: none; the caller puts them).  0, or -1 with
 * errmsg.
 */
static int
info_check(struct wymcp_server *srv, const struct wymcp_server_info *info,
    struct json_object **iconsp)
{
	char	 why[256];

	*iconsp = NULL;
	if ((info->name != NULL && *info->name == '\0') ||
	    (info->version != NULL && *info->version == '\0')) {
		wymcp__seterr(srv, "the server's name and version cannot be "
		    "empty");
		return -1;
	}
	if (!wymcp__text_ok(info->name) || !wymcp__text_ok(info->title) ||
	    !wymcp__text_ok(info->version) ||
	    !wymcp__text_ok(info->description) ||
	    !wymcp__text_ok(info->instructions)) {
		wymcp__seterr(srv, "the server's name, title, version, "
		    "description and instructions must be UTF-8");
		return -1;
	}
	if (info->website_url != NULL && *info->website_url != '\0' &&
	    !url_ok(info->website_url)) {
		wymcp__seterr(srv, "the server's website URL must be an "
		    "http: or https: URL");
		return -1;
	}
	if (info->icons == NULL || *info->icons == '\0')
		return 0;
	if ((*iconsp = parse(srv, "server", "icons", info->icons)) == NULL)
		return -1;
	if (!wymcp__icons_ok(*iconsp, why, sizeof(why))) {
		wymcp__seterr(srv, "server: %s", why);
		json_object_put(*iconsp);
		*iconsp = NULL;
		return -1;
	}
	return 0;
}

enum wymcp_err
wymcp_server_set_info(struct wymcp_server *srv,
    const struct wymcp_server_info *in, size_t size)
{
	struct wymcp_server_info info;
	struct json_object	*set = NULL, *icons = NULL;
	char			*ins = NULL;
	enum wymcp_err		 rc;

	if (srv == NULL)
		return WYMCP_ERR_INVAL;
	if (in == NULL || size == 0) {
		wymcp__seterr(srv, "no server info");
		return WYMCP_ERR_INVAL;
	}
	memset(&info, 0, sizeof(info));
	memcpy(&info, in, size < sizeof(info) ? size : sizeof(info));
	if (info_check(srv, &info, &icons) != 0)
		return WYMCP_ERR_INVAL;
	/* All errors from here on use goto fail. */
	rc = WYMCP_ERR_NOMEM;
	wymcp__seterr(srv, "out of memory");
	if ((set = json_object_new_object()) == NULL)
		goto fail;
	if (srv->info_set != NULL) {
		json_object_object_foreach(srv->info_set, k, v)
			if (json_object_object_add(set, k,
			    json_object_get(v)))
				goto fail;
	}
	if (set_member(set, "name", info.name) ||
	    set_member(set, "title", info.title) ||
	    set_member(set, "version", info.version) ||
	    set_member(set, "description", info.description) ||
	    set_member(set, "websiteUrl", info.website_url))
		goto fail;
	if (icons != NULL) {
		if (json_object_object_add(set, "icons", icons))
			goto fail;
		icons = NULL;
	} else if (info.icons != NULL &&
	    json_object_object_add(set, "icons", json_object_new_string("")))
		goto fail;
	if (info.instructions != NULL &&
	    (ins = strdup(info.instructions)) == NULL)
		goto fail;
	json_object_put(srv->info_set);
	srv->info_set = set;
	set = NULL;
	if (ins != NULL) {
		free(srv->instructions_set);
		srv->instructions_set = ins;
	}
	return wymcp__server_info_build(srv);
fail:
	json_object_put(icons);
	json_object_put(set);
	free(ins);
	return rc;
}
