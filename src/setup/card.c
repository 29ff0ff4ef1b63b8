/*
 * card.c - discovery outside MCP (experimental): the server card and
 * the MCP Registry's server.json, built from the Implementation
 *
 * The server card is SEP-2127's ServerCard (the ext-server-card
 * extension's schema.json, "$schema" .../schemas/v1/server-card.
 * schema.json), served at <endpoint>/server-card (serve/card.c); the
 * registry's server.json is its ServerDetail (schema 2025-12-11),
 * printed by wymcp-fcgi --print-server-json for an operator to publish.
 * Both take name, version, description, title, websiteUrl and icons
 * from the serverInfo every result carries (meta.c), and name one
 * remote: the endpoint's streamable-http URL, with the headers the
 * operator says it needs.  Neither lists tools, resources or prompts
 * (discovery.md: those stay with the protocol's list methods).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "setup/setup.h"

#define SCHEMAS		"https://static.modelcontextprotocol.io/schemas/"
#define CARD_SCHEMA	SCHEMAS "v1/server-card.schema.json"
#define REGISTRY_SCHEMA	SCHEMAS "2025-12-11/server.schema.json"
#define NAME_MAX_LEN	200	/* schema.json: name's maxLength */
#define TEXT_MAX_CHARS	100	/* description's and title's maxLength */
#define URL_MAX_LEN	2048	/* a public URL, at most */
#define HEADER_MAX_LEN	64	/* a --public-header name, at most */
#define ICON_SRC_MAX	255	/* the registry's Icon src maxLength */

/* Is `c' an ASCII letter or digit (whatever the locale)? */
static int
alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9');
}

/*
 * Is `s' a server name of the form namespace/name: schema.json's
 * ^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$, 3 to 200 characters?
 */
int
wymcp__card_name_ok(const char *s)
{
	const char	*slash;
	size_t		 i, n;

	if (s == NULL || (n = strlen(s)) < 3 || n > NAME_MAX_LEN ||
	    (slash = strchr(s, '/')) == NULL || slash == s ||
	    slash[1] == '\0')
		return 0;
	for (i = 0; i < n; i++)
		if (!alnum((unsigned char)s[i]) && s[i] != '.' &&
		    s[i] != '-' && (s[i] != '_' || s + i < slash) &&
		    s + i != slash)
			return 0;
	return 1;
}

/*
 * The host of the http(s) URL `url' (no userinfo; a bracketed IPv6
 * literal kept whole) in *h and *hlen, and where its path starts (""
 * when it has none) in *path.  0, or -1 when it is not such a URL:
 * the path may hold RFC 3986's pchar, '/' and '%' only (no query, no
 * fragment, nothing to quote).
 */
int
wymcp__url_parts(const char *url, const char **h, size_t *hlen,
    const char **path)
{
	const char	*p, *e;

	if (url == NULL || strlen(url) > URL_MAX_LEN)
		return -1;
	if (strncmp(url, "https://", 8) == 0)
		p = url + 8;
	else if (strncmp(url, "http://", 7) == 0)
		p = url + 7;
	else
		return -1;
	*h = p;
	if (*p == '[') {
		for (e = p + 1; *e != '\0' && *e != ']'; e++)
			if (!alnum((unsigned char)*e) && *e != ':' &&
			    *e != '.')
				return -1;
		if (*e != ']' || e == p + 1)
			return -1;
		e++;
	} else
		for (e = p; alnum((unsigned char)*e) || *e == '.' ||
		    *e == '-'; e++)
			continue;
	if ((*hlen = (size_t)(e - p)) == 0)
		return -1;
	if (*e == ':') {
		for (p = ++e; *e >= '0' && *e <= '9'; e++)
			continue;
		if (e == p || e - p > 5)
			return -1;
	}
	if (*e != '\0' && *e != '/')
		return -1;
	*path = e;
	for (; *e != '\0'; e++)
		if (!alnum((unsigned char)*e) &&
		    strchr("-._~!$&'()*+,;=:@/%", *e) == NULL)
			return -1;
	return 0;
}

/*
 * The name of the card: the server's own when it has the form
 * namespace/name, else namespace/name made of the URL's host, its labels
 * reversed (mcp.example.com: com.example.mcp; an IPv4 address as it
 * is), and the server's name, each character outside [A-Za-z0-9._-]
 * made '-'.  0 with the name in `out', or -1 with why in `why'.
 */
static int
card_name(const char *name, const char *url, char *out, size_t outlen,
    char *why, size_t whylen)
{
	const char	*h, *path, *lab, *end;
	size_t		 hlen, n = 0, i, k;
	int		 ipv4 = 1;

	if (wymcp__card_name_ok(name)) {
		snprintf(out, outlen, "%s", name);
		return 0;
	}
	if (url == NULL || wymcp__url_parts(url, &h, &hlen, &path) != 0 ||
	    *h == '[') {
		snprintf(why, whylen, "the server's name '%.64s' is not of "
		    "the form namespace/name (com.example/weather), and no "
		    "host name to make one from: give --server-name "
		    "com.example/NAME%s", name, url == NULL ?
		    " or --public-url" : "");
		return -1;
	}
	/* A fully qualified name's last dot ("example.com.") is no label. */
	if (hlen > 1 && h[hlen - 1] == '.')
		hlen--;
	for (i = 0; i < hlen; i++)
		if (!((h[i] >= '0' && h[i] <= '9') || h[i] == '.'))
			ipv4 = 0;
	if (hlen + 2 > outlen || hlen + 2 > NAME_MAX_LEN) {
		snprintf(why, whylen, "the host name of %.64s is too long "
		    "for a server name", url);
		return -1;
	}
	if (ipv4) {
		memcpy(out, h, hlen);
		n = hlen;
	} else
		/* The labels, last first. */
		for (end = h + hlen; end > h; end = lab - 1) {
			for (lab = end; lab > h && lab[-1] != '.'; lab--)
				continue;
			if (n > 0)
				out[n++] = '.';
			for (k = 0; k < (size_t)(end - lab); k++)
				out[n++] = (char)(lab[k] >= 'A' && lab[k] <=
				    'Z' ? lab[k] - 'A' + 'a' : lab[k]);
			if (lab == h)
				break;
		}
	out[n++] = '/';
	for (i = 0; name[i] != '\0' && n + 1 < outlen && n < NAME_MAX_LEN;
	    i++)
		out[n++] = alnum((unsigned char)name[i]) || name[i] == '.' ||
		    name[i] == '_' || name[i] == '-' ? name[i] : '-';
	out[n] = '\0';
	if (!wymcp__card_name_ok(out)) {
		snprintf(why, whylen, "no server name of the form "
		    "namespace/name could be made of '%.64s' and %.64s: "
		    "give --server-name com.example/NAME", name, url);
		return -1;
	}
	return 0;
}

/*
 * Put `s' into `o' as `key', cut to TEXT_MAX_CHARS characters (code
 * points, as JSON Schema counts them; the last one then "\u2026").
 * 0, or -1 when out of memory.
 */
static int
put_text(struct json_object *o, const char *key, const char *s)
{
	char	 buf[TEXT_MAX_CHARS * 4 + 4];
	size_t	 i, chars = 0, cut = 0;

	for (i = 0; s[i] != '\0'; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80 &&
		    ++chars == TEXT_MAX_CHARS)
			cut = i;
	if (chars <= TEXT_MAX_CHARS)
		return wymcp__put_str(o, key, s);
	memcpy(buf, s, cut);
	memcpy(buf + cut, "\xe2\x80\xa6", 4);
	return wymcp__put_str(o, key, buf);
}

/* Would the registry take this icon: an https: src of 255 at most? */
static int
registry_icon(struct json_object *ic)
{
	static const char *const mimes[] = { "image/png", "image/jpeg",
		"image/jpg", "image/svg+xml", "image/webp" };
	struct json_object	*v;
	const char		*s;
	size_t			 i;

	if (!json_object_object_get_ex(ic, "src", &v) ||
	    (s = json_object_get_string(v)) == NULL ||
	    strncmp(s, "https://", 8) != 0 || strlen(s) > ICON_SRC_MAX)
		return 0;
	if (!json_object_object_get_ex(ic, "mimeType", &v))
		return 1;
	for (i = 0; i < sizeof(mimes) / sizeof(mimes[0]); i++)
		if (strcmp(json_object_get_string(v), mimes[i]) == 0)
			return 1;
	return 0;
}

/* Add the member `k' (a literal), true.  0, or -1 when out of memory. */
static int
put_true(struct json_object *o, const char *k)
{
	struct json_object	*t;

	return (t = json_object_new_boolean(1)) == NULL ||
	    wymcp__put_new(o, k, t) ? -1 : 0;
}

/*
 * One remote: streamable-http at `url', the operator's headers, and
 * (the card only) `versions'.  Takes `versions'.  NULL when out of
 * memory.
 */
static struct json_object *
remote(const struct wymcp_server *srv, const char *url,
    struct json_object *versions)
{
	struct json_object	*r = NULL, *hs, *h;
	size_t			 i;

	if ((r = json_object_new_object()) == NULL ||
	    wymcp__put_str(r, "type", "streamable-http") ||
	    wymcp__put_str(r, "url", url))
		goto fail;
	if (srv->npublic_headers > 0) {
		if ((hs = json_object_new_array()) == NULL ||
		    wymcp__put_new(r, "headers", hs))
			goto fail;
		for (i = 0; i < srv->npublic_headers; i++) {
			if ((h = json_object_new_object()) == NULL ||
			    json_object_array_add(hs, h)) {
				json_object_put(h);
				goto fail;
			}
			if (wymcp__put_str(h, "name",
			    srv->public_headers[i]) ||
			    wymcp__put_str(h, "description", "Required by "
			    "this endpoint: its operator says what to send") ||
			    put_true(h, "isRequired") ||
			    put_true(h, "isSecret"))
				goto fail;
		}
	}
	if (versions != NULL) {
		/* wymcp__put_new() takes it, added or not. */
		hs = versions;
		versions = NULL;
		if (wymcp__put_new(r, "supportedProtocolVersions", hs))
			goto fail;
	}
	return r;
fail:
	json_object_put(versions);
	json_object_put(r);
	return NULL;
}

/*
 * The icons of the serverInfo `info' into `card': for server.json
 * (`registry'), only those the registry takes, saying how many were
 * left out.  0, or -1 when out of memory.
 */
static int
card_icons(const struct wymcp_server *srv, struct json_object *card,
    struct json_object *info, int registry)
{
	struct json_object	*icons, *ic, *ok;
	size_t			 i, dropped = 0;

	if (!json_object_object_get_ex(info, "icons", &icons))
		return 0;
	if ((ok = json_object_new_array()) == NULL ||
	    wymcp__put_new(card, "icons", ok))
		return -1;
	for (i = 0; i < json_object_array_length(icons); i++) {
		ic = json_object_array_get_idx(icons, i);
		if (registry && !registry_icon(ic)) {
			dropped++;
			continue;
		}
		if (json_object_array_add(ok, json_object_get(ic))) {
			json_object_put(ic);
			return -1;
		}
	}
	if (json_object_array_length(ok) == 0)
		json_object_object_del(card, "icons");
	if (dropped > 0)
		wymcp__log(srv, NULL, WYMCP_LOG_WARNING, "server.json: %zu "
		    "icon%s left out: the registry takes only https: icons "
		    "(src of %d characters at most, a PNG, JPEG, SVG or WebP "
		    "mimeType)", dropped, dropped == 1 ? "" : "s",
		    ICON_SRC_MAX);
	return 0;
}

/*
 * The server card (`registry' 0: for a request, with the `versions' it
 * takes) or the registry's server.json (1) for the endpoint at `url'
 * (NULL: no remote).  A new object, or NULL with why in `why' (no name
 * can be made; out of memory).
 */
struct json_object *
wymcp__card_build(const struct wymcp_server *srv, const char *url,
    struct json_object *versions, int registry, char *why, size_t whylen)
{
	struct json_object	*info, *card = NULL, *v, *ic;
	const char		*name, *desc;
	char			 nbuf[NAME_MAX_LEN + 1], dbuf[512];

	if (!json_object_object_get_ex(srv->result_meta, WYMCP__META_SERVER,
	    &info) || !json_object_object_get_ex(info, "name", &v) ||
	    (name = json_object_get_string(v)) == NULL) {
		snprintf(why, whylen, "no serverInfo");
		goto fail;
	}
	if (card_name(name, url, nbuf, sizeof(nbuf), why, whylen) != 0)
		goto fail;
	if (json_object_object_get_ex(info, "description", &v))
		desc = json_object_get_string(v);
	else {
		/*
		 * Required: made of the title or the name.  A text cut
		 * here (mid-character, maybe) is longer than put_text()
		 * keeps.
		 */
		if (!json_object_object_get_ex(info, "title", &v))
			json_object_object_get_ex(info, "name", &v);
		snprintf(dbuf, sizeof(dbuf), "MCP server %s",
		    json_object_get_string(v));
		desc = dbuf;
	}
	snprintf(why, whylen, "out of memory");
	/* All errors from here on use goto fail. */
	if ((card = json_object_new_object()) == NULL ||
	    wymcp__put_str(card, "$schema", registry ? REGISTRY_SCHEMA :
	    CARD_SCHEMA) ||
	    wymcp__put_str(card, "name", nbuf) ||
	    put_text(card, "description", desc))
		goto fail;
	json_object_object_get_ex(info, "version", &v);
	if (wymcp__put_str(card, "version", json_object_get_string(v)))
		goto fail;
	if (json_object_object_get_ex(info, "title", &v) &&
	    put_text(card, "title", json_object_get_string(v)))
		goto fail;
	if (json_object_object_get_ex(info, "websiteUrl", &v) &&
	    wymcp__put_str(card, "websiteUrl", json_object_get_string(v)))
		goto fail;
	if (card_icons(srv, card, info, registry) != 0)
		goto fail;
	if (url != NULL) {
		if ((v = json_object_new_array()) == NULL ||
		    wymcp__put_new(card, "remotes", v))
			goto fail;
		/* remote() takes `versions'. */
		ic = remote(srv, url, versions);
		versions = NULL;
		if (ic == NULL || json_object_array_add(v, ic)) {
			json_object_put(ic);
			goto fail;
		}
	}
	json_object_put(versions);
	why[0] = '\0';
	return card;
fail:
	json_object_put(versions);
	json_object_put(card);
	return NULL;
}

enum wymcp_err
wymcp_server_set_public_url(struct wymcp_server *srv, const char *url)
{
	const char	*h, *path;
	size_t		 hlen;
	char		*copy = NULL;

	if (srv == NULL)
		return WYMCP_ERR_INVAL;
	if (url != NULL && *url != '\0') {
		if (wymcp__url_parts(url, &h, &hlen, &path) != 0) {
			wymcp__seterr(srv, "%.100s: a public URL is http:// or "
			    "https://, a host, an optional port and a path, "
			    "no query, nothing to quote", url);
			return WYMCP_ERR_INVAL;
		}
		if ((copy = strdup(url)) == NULL) {
			wymcp__seterr(srv, "out of memory");
			return WYMCP_ERR_NOMEM;
		}
	}
	free(srv->public_url);
	srv->public_url = copy;
	srv->info_gen++;	/* a card made before is stale */
	return WYMCP_OK;
}

enum wymcp_err
wymcp_server_add_public_header(struct wymcp_server *srv, const char *name)
{
	char	**nh;
	size_t	  i, n;

	if (srv == NULL)
		return WYMCP_ERR_INVAL;
	n = name != NULL ? strlen(name) : 0;
	for (i = 0; i < n; i++)
		if (!alnum((unsigned char)name[i]) &&
		    strchr("!#$%&'*+-.^_`|~", name[i]) == NULL)
			break;
	if (n == 0 || n > HEADER_MAX_LEN || i < n) {
		wymcp__seterr(srv, "a header name is 1 to %d of RFC 9110's "
		    "token characters (Authorization, X-Api-Key)",
		    HEADER_MAX_LEN);
		return WYMCP_ERR_INVAL;
	}
	if (srv->npublic_headers >= WYMCP__PUBLIC_HEADERS_MAX) {
		wymcp__seterr(srv, "%d public headers at most",
		    WYMCP__PUBLIC_HEADERS_MAX);
		return WYMCP_ERR_INVAL;
	}
	if ((nh = reallocarray(srv->public_headers, srv->npublic_headers + 1,
	    sizeof(*nh))) == NULL) {
		wymcp__seterr(srv, "out of memory");
		return WYMCP_ERR_NOMEM;
	}
	srv->public_headers = nh;
	if ((nh[srv->npublic_headers] = strdup(name)) == NULL) {
		wymcp__seterr(srv, "out of memory");
		return WYMCP_ERR_NOMEM;
	}
	srv->npublic_headers++;
	srv->info_gen++;
	return WYMCP_OK;
}

char *
wymcp_server_json(struct wymcp_server *srv)
{
	struct json_object	*o;
	const char		*s;
	char			 why[256], *out = NULL;

	if (srv == NULL)
		return NULL;
	if (srv->public_url == NULL) {
		wymcp__seterr(srv, "no public URL: server.json names the "
		    "endpoint's (--public-url URL)");
		return NULL;
	}
	if ((o = wymcp__card_build(srv, srv->public_url, NULL, 1, why,
	    sizeof(why))) == NULL) {
		wymcp__seterr(srv, "%s", why);
		return NULL;
	}
	if ((s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
	    JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)) ==
	    NULL || (out = strdup(s)) == NULL)
		wymcp__seterr(srv, "out of memory");
	json_object_put(o);
	return out;
}

/* Forget the public URL, headers and the card made of them. */
void
wymcp__card_free(struct wymcp_server *srv)
{
	size_t	 i;

	free(srv->public_url);
	for (i = 0; i < srv->npublic_headers; i++)
		free(srv->public_headers[i]);
	free(srv->public_headers);
	free(srv->card.key);
	free(srv->card.text);
	memset(&srv->card, 0, sizeof(srv->card));
}
