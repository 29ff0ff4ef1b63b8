/*
 * meta.c - the shapes of metadata: _meta keys, icons, annotations
 *
 * MCP 2026-07-28 basic/index.mdx "_meta" (the key name format and the
 * prefixes reserved for MCP) and "icons" (Icon: an https: or data: URI,
 * mimeType, sizes, theme), schema.ts Annotations.  Each check answers 1
 * or 0 with the rule broken in `why'.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/lib.h"

#define ICONS_MAX	32	/* icons one entry may declare */

static int
say(char *why, size_t len, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return 0;
}

/* A label of a prefix: a letter, then letters, digits, '-', ending alnum. */
static int
label_ok(const char *s, size_t n)
{
	size_t	 i;

	if (n == 0 || !isalpha((unsigned char)s[0]) ||
	    !isalnum((unsigned char)s[n - 1]))
		return 0;
	for (i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '-')
			return 0;
	return 1;
}

/*
 * Is `key' a _meta key a server may send: [prefix/]name, the prefix dot
 * separated labels, the name empty or alphanumeric at both ends with
 * '-', '_', '.' inside, and the prefix not one reserved for MCP (its
 * second label modelcontextprotocol or mcp)?
 */
int
wymcp__meta_key_ok(const char *key, char *why, size_t len)
{
	const char	*slash, *name, *p, *dot = NULL;
	size_t		 i, n, k;

	if (key == NULL || *key == '\0')
		return say(why, len, "an empty _meta key");
	if (!wymcp__text_ok(key))
		return say(why, len, "a _meta key is not UTF-8");
	slash = strchr(key, '/');
	name = slash != NULL ? slash + 1 : key;
	if (slash != NULL) {
		for (p = key, k = 0; p < slash; p = dot + 1, k++) {
			if ((dot = memchr(p, '.', (size_t)(slash - p))) ==
			    NULL)
				dot = slash;
			if (!label_ok(p, (size_t)(dot - p)))
				return say(why, len, "_meta key '%s': a "
				    "prefix is labels (a letter first, a "
				    "letter or digit last, '-' inside) "
				    "separated by dots", key);
			if (k == 1 && (((size_t)(dot - p) == 20 &&
			    strncmp(p, "modelcontextprotocol", 20) == 0) ||
			    ((size_t)(dot - p) == 3 &&
			    strncmp(p, "mcp", 3) == 0)))
				return say(why, len, "_meta key '%s': the "
				    "prefix is reserved for MCP", key);
			if (dot == slash)
				break;
		}
	}
	n = strlen(name);
	if (n == 0)
		return 1;
	if (!isalnum((unsigned char)name[0]) ||
	    !isalnum((unsigned char)name[n - 1]))
		return say(why, len, "_meta key '%s': a name begins and "
		    "ends with a letter or digit", key);
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '-' &&
		    name[i] != '_' && name[i] != '.')
			return say(why, len, "_meta key '%s': a name holds "
			    "letters, digits, '-', '_' and '.'", key);
	return 1;
}

/* Is `o' a _meta object whose every key wymcp__meta_key_ok() takes? */
int
wymcp__meta_ok(struct json_object *o, char *why, size_t len)
{
	if (!json_object_is_type(o, json_type_object))
		return say(why, len, "_meta must be a JSON object");
	json_object_object_foreach(o, k, v) {
		(void)v;
		if (!wymcp__meta_key_ok(k, why, len))
			return 0;
	}
	return 1;
}

/* An Icon's src: https: (no white space), or data:...;base64,DATA. */
static int
src_ok(const char *s)
{
	const char	*c;
	size_t		 i;

	if (!wymcp__text_ok(s))
		return 0;
	if (strncmp(s, "https://", 8) == 0 && s[8] != '\0') {
		for (i = 0; s[i] != '\0'; i++)
			if ((unsigned char)s[i] <= 0x20 || s[i] == 0x7f)
				return 0;
		return 1;
	}
	if (strncmp(s, "data:", 5) != 0 || (c = strchr(s, ',')) == NULL ||
	    c - s < 12 || strncmp(c - 7, ";base64", 7) != 0)
		return 0;
	return c[1] != '\0' && wymcp__base64_ok(c + 1);
}

/* A size: "any", or WxH with W and H positive decimal numbers. */
static int
size_ok(const char *s)
{
	size_t	 n;

	if (strcmp(s, "any") == 0)
		return 1;
	n = strspn(s, "0123456789");
	if (n == 0 || n > 5 || *s == '0' || s[n] != 'x')
		return 0;
	s += n + 1;
	n = strspn(s, "0123456789");
	return n > 0 && n <= 5 && *s != '0' && s[n] == '\0';
}

/* An Icon's sizes: an array of size_ok() strings. */
static int
sizes_ok(struct json_object *a)
{
	struct json_object	*e;
	size_t			 k;

	if (!json_object_is_type(a, json_type_array))
		return 0;
	for (k = 0; k < json_object_array_length(a); k++) {
		e = json_object_array_get_idx(a, k);
		if (!json_object_is_type(e, json_type_string) ||
		    !size_ok(json_object_get_string(e)))
			return 0;
	}
	return 1;
}

/* A MIME type: type/subtype, visible ASCII, no space. */
static int
mime_ok(const char *s)
{
	const char	*sl = strchr(s, '/');
	size_t		 i;

	if (sl == NULL || sl == s || sl[1] == '\0')
		return 0;
	for (i = 0; s[i] != '\0'; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
			return 0;
	return 1;
}

/* Is `o' an array of Icon objects as basic/index.mdx "icons" has them? */
int
wymcp__icons_ok(struct json_object *o, char *why, size_t len)
{
	struct json_object	*ic, *v;
	size_t			 i, n;

	if (!json_object_is_type(o, json_type_array))
		return say(why, len, "icons must be a JSON array");
	if ((n = json_object_array_length(o)) > ICONS_MAX)
		return say(why, len, "icons: at most %d", ICONS_MAX);
	for (i = 0; i < n; i++) {
		ic = json_object_array_get_idx(o, i);
		if (!json_object_is_type(ic, json_type_object))
			return say(why, len, "icon %zu is not an object", i);
		if (!json_object_object_get_ex(ic, "src", &v) ||
		    !json_object_is_type(v, json_type_string) ||
		    !src_ok(json_object_get_string(v)))
			return say(why, len, "icon %zu: src must be an "
			    "https: URI or a data: URI of base64 data "
			    "(data:image/png;base64,...)", i);
		json_object_object_foreach(ic, key, val) {
			if (strcmp(key, "src") == 0)
				continue;
			if (strcmp(key, "mimeType") == 0) {
				if (!json_object_is_type(val,
				    json_type_string) || !mime_ok(
				    json_object_get_string(val)))
					return say(why, len, "icon %zu: "
					    "mimeType must be a MIME type "
					    "(image/png)", i);
			} else if (strcmp(key, "theme") == 0) {
				if (!json_object_is_type(val,
				    json_type_string) || (strcmp(
				    json_object_get_string(val), "light") !=
				    0 && strcmp(json_object_get_string(val),
				    "dark") != 0))
					return say(why, len, "icon %zu: theme "
					    "must be \"light\" or \"dark\"", i);
			} else if (strcmp(key, "sizes") == 0) {
				if (!sizes_ok(val))
					return say(why, len, "icon %zu: sizes "
					    "is an array of \"WxH\" "
					    "(\"48x48\") or \"any\"", i);
			} else
				return say(why, len, "icon %zu: no member "
				    "'%s' (src, mimeType, sizes, theme)", i,
				    key);
		}
	}
	return 1;
}

/*
 * Is `o' an Annotations object: audience (an array of "user" and
 * "assistant"), priority (a number from 0 to 1), lastModified (a
 * string), and nothing else?
 */
int
wymcp__annotations_ok(struct json_object *o, char *why, size_t len)
{
	struct json_object	*e;
	const char		*s;
	double			 d;
	size_t			 i;

	if (!json_object_is_type(o, json_type_object))
		return say(why, len, "annotations must be a JSON object");
	json_object_object_foreach(o, key, val) {
		if (strcmp(key, "audience") == 0) {
			if (!json_object_is_type(val, json_type_array))
				return say(why, len, "annotations: audience "
				    "must be an array");
			for (i = 0; i < json_object_array_length(val); i++) {
				e = json_object_array_get_idx(val, i);
				s = json_object_is_type(e, json_type_string) ?
				    json_object_get_string(e) : "";
				if (strcmp(s, "user") != 0 &&
				    strcmp(s, "assistant") != 0)
					return say(why, len, "annotations: "
					    "audience holds \"user\" and "
					    "\"assistant\"");
			}
		} else if (strcmp(key, "priority") == 0) {
			if (!json_object_is_type(val, json_type_double) &&
			    !json_object_is_type(val, json_type_int))
				return say(why, len, "annotations: priority "
				    "must be a number");
			d = json_object_get_double(val);
			if (!(d >= 0 && d <= 1))
				return say(why, len, "annotations: priority "
				    "is from 0 to 1");
		} else if (strcmp(key, "lastModified") == 0) {
			if (!json_object_is_type(val, json_type_string) ||
			    !wymcp__text_ok(json_object_get_string(val)))
				return say(why, len, "annotations: "
				    "lastModified must be a string (ISO "
				    "8601)");
		} else
			return say(why, len, "annotations: no member '%s' "
			    "(audience, priority, lastModified)", key);
	}
	return 1;
}

/*
 * MCP Apps (io.modelcontextprotocol/ui, ext-apps apps.mdx "UI Resource
 * Format", "Resource Discovery"): the _meta.ui a module gives a tool,
 * a resource or a resource's contents.
 */

/* Is `o' an array of strings, each UTF-8 with no white space? */
static int
domains_ok(struct json_object *o)
{
	struct json_object	*e;
	const char		*s;
	size_t			 i, k;

	if (!json_object_is_type(o, json_type_array))
		return 0;
	for (i = 0; i < json_object_array_length(o); i++) {
		e = json_object_array_get_idx(o, i);
		if (!json_object_is_type(e, json_type_string))
			return 0;
		s = json_object_get_string(e);
		if (*s == '\0' || !wymcp__text_ok(s))
			return 0;
		for (k = 0; s[k] != '\0'; k++)
			if ((unsigned char)s[k] <= 0x20 || s[k] == ';' ||
			    s[k] == ',' || s[k] == 0x7f)
				return 0;
	}
	return 1;
}

/* A tool's ui: resourceUri (ui://) and visibility ("model", "app"). */
static int
ui_tool_ok(struct json_object *ui, char *why, size_t len)
{
	struct json_object	*e;
	const char		*s;
	size_t			 i, n;
	int			 seen = 0, bit;

	json_object_object_foreach(ui, k, v) {
		if (strcmp(k, "resourceUri") == 0) {
			if (!json_object_is_type(v, json_type_string) ||
			    strncmp(json_object_get_string(v), "ui://", 5) !=
			    0 || json_object_get_string(v)[5] == '\0' ||
			    !wymcp__text_ok(json_object_get_string(v)))
				return say(why, len, "_meta.ui.resourceUri "
				    "must be a ui:// URI");
		} else if (strcmp(k, "visibility") == 0) {
			if (!json_object_is_type(v, json_type_array) ||
			    (n = json_object_array_length(v)) == 0)
				return say(why, len, "_meta.ui.visibility "
				    "must be a non-empty array of \"model\" "
				    "and \"app\"");
			for (i = 0; i < n; i++) {
				e = json_object_array_get_idx(v, i);
				s = json_object_is_type(e, json_type_string) ?
				    json_object_get_string(e) : "";
				bit = strcmp(s, "model") == 0 ? 1 :
				    strcmp(s, "app") == 0 ? 2 : 0;
				if (bit == 0 || (seen & bit))
					return say(why, len, "_meta.ui."
					    "visibility holds \"model\" and "
					    "\"app\", each at most once");
				seen |= bit;
			}
		} else
			return say(why, len, "_meta.ui of a tool has "
			    "resourceUri and visibility, not '%s'", k);
	}
	return 1;
}

/* A resource's (or its contents') ui: csp, permissions, domain, ... */
static int
ui_resource_ok(struct json_object *ui, char *why, size_t len)
{
	static const char *const csp[] = { "connectDomains",
	    "resourceDomains", "frameDomains", "baseUriDomains", NULL };
	static const char *const perm[] = { "camera", "microphone",
	    "geolocation", "clipboardWrite", NULL };
	size_t			 i;

	json_object_object_foreach(ui, k, v) {
		if (strcmp(k, "csp") == 0) {
			if (!json_object_is_type(v, json_type_object))
				return say(why, len, "_meta.ui.csp must be "
				    "an object");
			json_object_object_foreach(v, ck, cv) {
				for (i = 0; csp[i] != NULL &&
				    strcmp(csp[i], ck) != 0; i++)
					continue;
				if (csp[i] == NULL)
					return say(why, len, "_meta.ui.csp "
					    "has connectDomains, "
					    "resourceDomains, frameDomains "
					    "and baseUriDomains, not '%s'", ck);
				if (!domains_ok(cv))
					return say(why, len, "_meta.ui.csp.%s "
					    "must be an array of origins "
					    "(strings without white space)",
					    ck);
			}
		} else if (strcmp(k, "permissions") == 0) {
			if (!json_object_is_type(v, json_type_object))
				return say(why, len, "_meta.ui.permissions "
				    "must be an object");
			json_object_object_foreach(v, pk, pv) {
				for (i = 0; perm[i] != NULL &&
				    strcmp(perm[i], pk) != 0; i++)
					continue;
				if (perm[i] == NULL || !json_object_is_type(pv,
				    json_type_object))
					return say(why, len, "_meta.ui."
					    "permissions has camera, "
					    "microphone, geolocation and "
					    "clipboardWrite, each an object "
					    "({}): not '%s'", pk);
			}
		} else if (strcmp(k, "domain") == 0) {
			if (!json_object_is_type(v, json_type_string) ||
			    *json_object_get_string(v) == '\0' ||
			    !wymcp__text_ok(json_object_get_string(v)))
				return say(why, len, "_meta.ui.domain must be "
				    "a non-empty string");
		} else if (strcmp(k, "prefersBorder") == 0) {
			if (!json_object_is_type(v, json_type_boolean))
				return say(why, len, "_meta.ui.prefersBorder "
				    "must be true or false");
		} else
			return say(why, len, "_meta.ui of a resource has csp, "
			    "permissions, domain and prefersBorder, not '%s'",
			    k);
	}
	return 1;
}

/*
 * Is the _meta object `meta' (keys already checked) right for MCP Apps
 * where it is: WYMCP__UI_TOOL, WYMCP__UI_RESOURCE (a resource's or a
 * contents entry's)?  Its "ui" must be an object of the members that
 * place has, of their types; a tool's deprecated "ui/resourceUri"
 * (apps.mdx "Resource Discovery") must be a ui:// URI, the same as
 * ui.resourceUri when both are given.  A _meta without them passes.
 */
int
wymcp__ui_meta_ok(struct json_object *meta, int where, char *why,
    size_t len)
{
	struct json_object	*ui = NULL, *flat = NULL, *uri = NULL;

	json_object_object_get_ex(meta, "ui", &ui);
	json_object_object_get_ex(meta, "ui/resourceUri", &flat);
	if (ui != NULL && !json_object_is_type(ui, json_type_object))
		return say(why, len, "_meta.ui must be an object");
	if (ui != NULL && !(where == WYMCP__UI_TOOL ? ui_tool_ok(ui, why,
	    len) : ui_resource_ok(ui, why, len)))
		return 0;
	if (flat == NULL)
		return 1;
	if (where != WYMCP__UI_TOOL)
		return say(why, len, "_meta 'ui/resourceUri' belongs to a "
		    "tool");
	if (!json_object_is_type(flat, json_type_string) ||
	    strncmp(json_object_get_string(flat), "ui://", 5) != 0)
		return say(why, len, "_meta 'ui/resourceUri' must be a ui:// "
		    "URI");
	if (ui != NULL && json_object_object_get_ex(ui, "resourceUri", &uri) &&
	    strcmp(json_object_get_string(uri),
	    json_object_get_string(flat)) != 0)
		return say(why, len, "_meta 'ui/resourceUri' and "
		    "ui.resourceUri name different resources");
	return 1;
}
