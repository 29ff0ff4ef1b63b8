/*
 * xheader.c - x-mcp-header at load time
 * * MCP 2026-07-28 server/tools.mdx "x-mcp-header" and
 * basic/transports/streamable-http.mdx "Custom Headers from Tool
 * Parameters": a property of a tool's inputSchema may carry
 * "x-mcp-header": "Name", and a client then mirrors the argument into the
 * header Mcp-Param-Name.  A server that processes the body MUST check
 * that the two agree (400, -32020 HeaderMismatch).
 *
 * At load time wymcp__xparams_compile() checks every annotation against
 * the constraints of "Schema Extension" and records the property path,
 * the CGI param the header arrives as and the declared type.  A client
 * silently drops a tool whose annotations break a constraint; wymcp
 * refuses to load it instead, so the author learns why.
 *
 * Per request serve/xparams.c compares each recorded argument with its
 * header.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "setup/setup.h"

#define XH_PREFIX	"HTTP_MCP_PARAM_"
#define XH_MAXDEPTH	64		/* nested schema objects */

/* One step from the schema root, for messages: an object key or index. */
struct seg {
	const struct seg	*up;
	const char		*key;	/* NULL for an array index */
	size_t			 idx;
	int			 name;	/* key is a property name */
};

/* The state of one wymcp__xparams_compile() call. */
struct compile {
	struct wymcp_server	*srv;
	const char		*tool;
	struct wymcp__xparam	*xp;
	size_t			 n, cap;
	enum wymcp_err		 rc;	/* when the walk failed */
};

/*
 * Render the JSON Pointer (RFC 6901) of a schema location into buf,
 * "" for the root.  Control bytes become '?' so the message is safe to
 * log; a pointer too long for buf is cut short.
 */
static void
ptr_render(const struct seg *at, char *buf, size_t sz)
{
	const struct seg	*chain[XH_MAXDEPTH * 2 + 2];
	const unsigned char	*p;
	size_t			 n = 0, len = 0;
	char			 num[32];

	buf[0] = '\0';
	for (; at != NULL && n < sizeof(chain) / sizeof(chain[0]); at = at->up)
		chain[n++] = at;
	while (n-- > 0 && len + 1 < sz) {
		buf[len++] = '/';
		if (chain[n]->key == NULL) {
			snprintf(num, sizeof(num), "%zu", chain[n]->idx);
			p = (const unsigned char *)num;
		} else
			p = (const unsigned char *)chain[n]->key;
		for (; *p != '\0' && len + 1 < sz; p++) {
			if (*p == '~' || *p == '/') {
				if (len + 2 >= sz)
					break;
				buf[len++] = '~';
				buf[len++] = *p == '~' ? '0' : '1';
			} else
				buf[len++] = *p < 0x20 || *p == 0x7f ?
				    '?' : (char)*p;
		}
	}
	buf[len < sz ? len : sz - 1] = '\0';
}

/* The location of a schema for messages: "inputSchema/…" or the root. */
static const char *
where(const struct seg *at, char *buf, size_t sz)
{
	char	 p[256];

	ptr_render(at, p, sizeof(p));
	snprintf(buf, sz, "inputSchema%s", p);
	return buf;
}

/* Record a load failure: "tool X: x-mcp-header at …: reason". */
static int
refuse(struct compile *c, const struct seg *at, const char *fmt, ...)
    WYMCP_PRINTF(3, 4);

static int
refuse(struct compile *c, const struct seg *at, const char *fmt, ...)
{
	va_list	 ap;
	char	 loc[300], why[256];

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	wymcp__seterr(c->srv, "tool %s: x-mcp-header at %s: %s", c->tool,
	    where(at, loc, sizeof(loc)), why);
	c->rc = WYMCP_ERR_SCHEMA;
	return -1;
}

/* RFC 9110 5.6.2 tchar. */
static int
tchar(unsigned char ch)
{
	return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
	    (ch >= '0' && ch <= '9') || (ch != '\0' &&
	    strchr("!#$%&'*+-.^_`|~", ch) != NULL);
}

/* Release one recorded argument. */
static void
xparam_clear(struct wymcp__xparam *x)
{
	size_t	 i;

	for (i = 0; i < x->npath; i++)
		free(x->path[i]);
	free(x->path);
	free(x->header);
	free(x->param);
	memset(x, 0, sizeof(*x));
}

/* The location of a recorded argument: inputSchema/properties/a/… */
static const char *
xparam_where(const struct wymcp__xparam *x, char *buf, size_t sz)
{
	struct seg	 segs[XH_MAXDEPTH * 2];
	const struct seg *up = NULL;
	size_t		 i, n = 0;

	for (i = 0; i < x->npath && n + 2 <= sizeof(segs) / sizeof(segs[0]);
	    i++) {
		segs[n].up = up;
		segs[n].key = "properties";
		segs[n].name = 0;
		up = &segs[n++];
		segs[n].up = up;
		segs[n].key = x->path[i];
		segs[n].name = 1;
		up = &segs[n++];
	}
	return where(up, buf, sz);
}

/*
 * The "type" of an annotated property must be exactly one of the three
 * primitive types the header can carry (tools.mdx: not number, array,
 * object or null; a type array would let other types through).
 * Returns the json_type, or -1 after refuse().
 */
static int
declared_type(struct compile *c, const struct seg *at, struct json_object *s)
{
	struct json_object	*t;
	const char		*name;

	if (!json_object_object_get_ex(s, "type", &t))
		return refuse(c, at, "the property needs \"type\": "
		    "\"integer\", \"string\" or \"boolean\"");
	if (!json_object_is_type(t, json_type_string))
		return refuse(c, at, "\"type\" must be the single type "
		    "\"integer\", \"string\" or \"boolean\", not %s",
		    json_object_is_type(t, json_type_array) ?
		    "a list of types" : "this value");
	name = json_object_get_string(t);
	if (strcmp(name, "string") == 0)
		return json_type_string;
	if (strcmp(name, "integer") == 0)
		return json_type_int;
	if (strcmp(name, "boolean") == 0)
		return json_type_boolean;
	return refuse(c, at, "a header can only mirror an \"integer\", "
	    "\"string\" or \"boolean\" property, not \"%.32s\"", name);
}

/*
 * The annotation's value `v` at `at`: a non-empty RFC 9110 token, in
 * *hp (*lenp bytes).  0, or -1 with errmsg set.
 */
static int
header_ok(struct compile *c, const struct seg *at, struct json_object *v,
    const unsigned char **hp, size_t *lenp)
{
	const unsigned char	*h;
	size_t			 len, i;

	if (!json_object_is_type(v, json_type_string))
		return refuse(c, at, "the value must be a string");
	h = (const unsigned char *)json_object_get_string(v);
	len = (size_t)json_object_get_string_len(v);
	if (len == 0)
		return refuse(c, at, "the value must not be empty");
	for (i = 0; i < len; i++) {
		if (h[i] < 0x20 || h[i] == 0x7f)
			return refuse(c, at, "the value contains the control "
			    "character 0x%02x", h[i]);
		if (!tchar(h[i]))
			return refuse(c, at, h[i] < 0x80 ? "the value "
			    "contains '%c', which is not an RFC 9110 token "
			    "character" : "the value contains the byte "
			    "0x%02x, which is not an RFC 9110 token character",
			    h[i]);
	}
	*hp = h;
	*lenp = len;
	return 0;
}

/*
 * Fill `x` (zeroed) for header `h` (`len` bytes) at `at`: the property's
 * path, the header, and its CGI param as the web server names it
 * (upper case, '-' becomes '_').  0, or -1 when out of memory, `x`
 * cleared.
 */
static int
xparam_fill(struct wymcp__xparam *x, const struct seg *at,
    const unsigned char *h, size_t len)
{
	const struct seg	*g;
	size_t			 n, i;

	for (n = 0, g = at; g != NULL; g = g->up)
		n += g->name;
	if ((x->path = calloc(n, sizeof(*x->path))) == NULL)
		return -1;
	x->npath = n;
	for (g = at; g != NULL; g = g->up)
		if (g->name && (x->path[--n] = strdup(g->key)) == NULL)
			goto nomem;
	if ((x->header = strdup((const char *)h)) == NULL ||
	    (x->param = malloc(sizeof(XH_PREFIX) + len)) == NULL)
		goto nomem;
	memcpy(x->param, XH_PREFIX, sizeof(XH_PREFIX) - 1);
	for (i = 0; i < len; i++)
		x->param[sizeof(XH_PREFIX) - 1 + i] = h[i] == '-' ? '_' :
		    (h[i] >= 'a' && h[i] <= 'z') ? (char)(h[i] - 'a' + 'A') :
		    (char)h[i];
	x->param[sizeof(XH_PREFIX) - 1 + len] = '\0';
	return 0;
nomem:
	xparam_clear(x);
	return -1;
}

/*
 * Whether `x` (at `at`) is unique among those recorded: case-
 * insensitively (tools.mdx), and as a CGI param: "Foo-Bar" and
 * "Foo_Bar" both arrive as HTTP_MCP_PARAM_FOO_BAR, so the two could not
 * be told apart.  0, or -1 with errmsg set.
 */
static int
xparam_unique(struct compile *c, const struct seg *at,
    const struct wymcp__xparam *x)
{
	char	 loc[300];
	size_t	 k;

	for (k = 0; k < c->n; k++) {
		if (strcmp(c->xp[k].param, x->param) != 0)
			continue;
		xparam_where(&c->xp[k], loc, sizeof(loc));
		if (strcasecmp(c->xp[k].header, x->header) == 0)
			refuse(c, at, "\"%.64s\" is not unique: %s has "
			    "\"%.64s\" (header names are case-insensitive)",
			    x->header, loc, c->xp[k].header);
		else
			refuse(c, at, "\"%.64s\" collides with \"%.64s\" at "
			    "%s: both arrive as the CGI param %.80s",
			    x->header, c->xp[k].header, loc, x->param);
		return -1;
	}
	return 0;
}

/*
 * Check the annotation `v` on the reachable property schema `s` at `at`
 * and record it.  Returns 0, or -1 with errmsg set.
 */
static int
record(struct compile *c, const struct seg *at, struct json_object *s,
    struct json_object *v)
{
	struct wymcp__xparam	*x, *nx;
	const unsigned char	*h = NULL;
	char			 loc[300];
	size_t			 len = 0, k;
	int			 type;

	if (header_ok(c, at, v, &h, &len) != 0 ||
	    (type = declared_type(c, at, s)) < 0)
		return -1;
	if (c->n == c->cap) {
		k = c->cap == 0 ? 4 : c->cap * 2;
		if ((nx = reallocarray(c->xp, k, sizeof(*nx))) == NULL)
			goto nomem;
		c->xp = nx;
		c->cap = k;
	}
	x = &c->xp[c->n];
	memset(x, 0, sizeof(*x));
	x->type = type;
	if (xparam_fill(x, at, h, len) != 0)
		goto nomem;
	if (xparam_unique(c, at, x) != 0) {
		xparam_clear(x);
		return -1;
	}
	/*
	 * Legal, but nginx (without underscores_in_headers, or with
	 * ignore_invalid_headers) and Apache drop header names with any
	 * character other than letters, digits and '-'.
	 */
	if (strspn(x->header, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopq"
	    "rstuvwxyz0123456789-") != len)
		wymcp__log(c->srv, NULL, WYMCP_LOG_WARNING, "tool %s: "
		    "x-mcp-header \"%.64s\" at %s: web servers drop header "
		    "names with characters other than letters, digits and "
		    "'-' by default; Mcp-Param-%.64s may never arrive",
		    c->tool, x->header, where(at, loc, sizeof(loc)),
		    x->header);
	c->n++;
	return 0;
nomem:
	wymcp__seterr(c->srv, "out of memory");
	c->rc = WYMCP_ERR_NOMEM;
	return -1;
}

/* Keywords whose values are data, never schemas. */
static int
data_keyword(const char *k)
{
	return strcmp(k, "enum") == 0 || strcmp(k, "const") == 0 ||
	    strcmp(k, "default") == 0 || strcmp(k, "examples") == 0 ||
	    strcmp(k, "required") == 0 || strcmp(k, "x-mcp-header") == 0;
}

/* Keywords whose values map names to schemas. */
static int
map_keyword(const char *k)
{
	return strcmp(k, "patternProperties") == 0 ||
	    strcmp(k, "$defs") == 0 || strcmp(k, "definitions") == 0 ||
	    strcmp(k, "dependentSchemas") == 0 ||
	    strcmp(k, "dependencies") == 0;
}

static int	walk(struct compile *, struct json_object *,
		    const struct seg *, const char *, int);

/* Walk each member of a name -> schema map as unreachable schemas. */
static int
walk_map(struct compile *c, struct json_object *m, const struct seg *at,
    const char *via, int depth)
{
	struct seg	 s;

	json_object_object_foreach(m, name, sub) {
		s.up = at;
		s.key = name;
		s.name = 0;
		if (walk(c, sub, &s, via, depth + 1))
			return -1;
	}
	return 0;
}

/*
 * Walk the schema `sch` at `at`.  `via` is NULL while every step from
 * the root has been "properties" and a property name (the only chain
 * along which x-mcp-header may appear, streamable-http.mdx "Schema
 * Extension"), else the first keyword that left that chain.
 *
 * Subschemas are found by keyword: "properties" and the name -> schema
 * maps, data keywords (enum, const, default, examples, required) are
 * skipped, and any other object or array of objects is walked as a
 * schema, so an annotation under an unknown keyword is refused too.
 * Returns 0, or -1 with errmsg set.
 */
static int
walk(struct compile *c, struct json_object *sch, const struct seg *at,
    const char *via, int depth)
{
	struct json_object	*v, *e;
	struct seg		 s, p;
	size_t			 i, len;

	if (!json_object_is_type(sch, json_type_object))
		return 0;
	if (depth > XH_MAXDEPTH)
		return refuse(c, at, "the schema nests more than %d levels",
		    XH_MAXDEPTH);
	if (json_object_object_get_ex(sch, "x-mcp-header", &v)) {
		if (via != NULL)
			return refuse(c, at, "not statically reachable: it "
			    "is under \"%.64s\", and only a chain of "
			    "\"properties\" may lead to an annotated property",
			    via);
		if (at == NULL)
			return refuse(c, at, "the root schema is not a "
			    "property");
		if (record(c, at, sch, v))
			return -1;
	}
	json_object_object_foreach(sch, key, val) {
		s.up = at;
		s.key = key;
		s.name = 0;
		if (data_keyword(key))
			continue;
		if (strcmp(key, "properties") == 0 &&
		    json_object_is_type(val, json_type_object)) {
			json_object_object_foreach(val, name, sub) {
				p.up = &s;
				p.key = name;
				p.name = via == NULL;
				if (walk(c, sub, &p, via, depth + 1))
					return -1;
			}
		} else if (map_keyword(key) &&
		    json_object_is_type(val, json_type_object)) {
			if (walk_map(c, val, &s, via != NULL ? via : key,
			    depth))
				return -1;
		} else if (json_object_is_type(val, json_type_object)) {
			if (walk(c, val, &s, via != NULL ? via : key,
			    depth + 1))
				return -1;
		} else if (json_object_is_type(val, json_type_array)) {
			len = json_object_array_length(val);
			for (i = 0; i < len; i++) {
				e = json_object_array_get_idx(val, i);
				p.up = &s;
				p.key = NULL;
				p.idx = i;
				p.name = 0;
				if (walk(c, e, &p, via != NULL ? via : key,
				    depth + 1))
					return -1;
			}
		}
	}
	return 0;
}

/*
 * Check the tool's x-mcp-header annotations and record them in
 * t->xparams (server.c checks them per request).  The schema is
 * t->input, or the inputSchema of t->listing while the tool is being
 * prepared; the name is t->def's or the listing's.  A tool without
 * annotations allocates nothing.  On failure errmsg names the tool and
 * the place and t is left without xparams.
 */
enum wymcp_err
wymcp__xparams_compile(struct wymcp_server *srv, struct wymcp__tool *t)
{
	struct compile		 c;
	struct json_object	*in = t->input, *name;
	size_t			 i;

	memset(&c, 0, sizeof(c));
	c.srv = srv;
	c.rc = WYMCP_OK;
	if (t->def != NULL)
		c.tool = t->def->name;
	else if (json_object_object_get_ex(t->listing, "name", &name))
		c.tool = json_object_get_string(name);
	else
		c.tool = "?";
	if (in == NULL)
		json_object_object_get_ex(t->listing, "inputSchema", &in);
	t->xparams = NULL;
	t->nxparams = 0;
	if (walk(&c, in, NULL, NULL, 0)) {
		for (i = 0; i < c.n; i++)
			xparam_clear(&c.xp[i]);
		free(c.xp);
		return c.rc != WYMCP_OK ? c.rc : WYMCP_ERR_SCHEMA;
	}
	t->xparams = c.xp;
	t->nxparams = c.n;
	return WYMCP_OK;
}

/* Release what wymcp__xparams_compile() recorded. */
void
wymcp__xparams_free(struct wymcp__tool *t)
{
	size_t	 i;

	for (i = 0; i < t->nxparams; i++)
		xparam_clear(&t->xparams[i]);
	free(t->xparams);
	t->xparams = NULL;
	t->nxparams = 0;
}
