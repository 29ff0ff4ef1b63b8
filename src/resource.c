/*
 * resource.c - resources and resource templates
 *
 * MCP 2026-07-28 server/resources.mdx: resources/list,
 * resources/templates/list and resources/read, and the registration of
 * a module's resources, templates and prompts (the prompts themselves
 * are prompt.c's).
 *
 * URI templates (RFC 6570) are checked when the module is loaded and
 * only two kinds of expression are accepted: {var} (level 1, simple
 * string expansion) and {+var} (level 2, reserved expansion), one
 * variable each, with literal text between two expressions.  Matching a
 * requested URI against a template is the inverse of expansion:
 *
 *	- literal text matches itself exactly;
 *	- {var} matches one or more characters other than '/', and its
 *	  value is percent-decoded (a value that does not decode to UTF-8
 *	  without NUL makes the template not match);
 *	- {+var} matches one or more characters of any kind, '/' included,
 *	  and its value is passed as it appears in the URI (reserved
 *	  expansion leaves percent-encoded octets as they are, so decoding
 *	  them would be guessing).
 *
 * When several splits fit, the earlier expressions take as much as
 * they can (as a regular expression's greedy quantifiers would):
 * "file:///{+dir}/{name}" splits "file:///a/b/c" into dir "a/b" and
 * name "c".  The search remembers positions that failed and gives up
 * after MATCH_BUDGET steps, so no template and URI can make it explode.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extern.h"

#define TPL_MAXEXPR	32		/* expressions per template */
#define MATCH_BUDGET	100000		/* candidate splits per match */
#define MEMO_MAXBITS	(1024 * 1024)	/* failed-position memo size */

/* What read() builds (wymcp.h); owned by the request. */
struct wymcp_resource_result {
	struct wymcp_ctx	*ctx;
	const char		*uri;		/* the URI read */
	struct json_object	*contents;	/* array */
};

/* One {var} or {+var} of a parsed template and the literal after it. */
struct tpl_expr {
	const char	*name;		/* variable name (not terminated) */
	size_t		 namelen;
	int		 plus;		/* {+var} */
	const char	*lit;		/* literal text that follows */
	size_t		 litlen;
};

/* A parsed template: pointers into the template string. */
struct tpl {
	const char	*lit;		/* literal text before the first */
	size_t		 litlen;
	size_t		 n;		/* expressions */
	struct tpl_expr	 e[TPL_MAXEXPR];
};

/* The state of one template match. */
struct match {
	const struct tpl *t;
	const char	*uri;
	size_t		 len;
	unsigned char	*memo;		/* failed (expr, pos) bits, or NULL */
	size_t		 steps;
	size_t		 start[TPL_MAXEXPR], end[TPL_MAXEXPR];
};

/* What read_body() needs: the run boundary takes one pointer. */
struct read_body {
	const struct wymcp__resource	*res;
	const char			*uri;
	struct json_object		*vars;
	struct wymcp_resource_result	*out;
};

/*
 * A string the listing may carry: NULL, or UTF-8.  1 or 0.  (json-c
 * writes bytes as they are, so invalid UTF-8 would make the response
 * invalid JSON.)
 */
int
wymcp__text_ok(const char *s)
{
	return s == NULL || wymcp__utf8_valid(s, strlen(s));
}

/* Is c a hexadecimal digit (of a percent-encoded octet)? */
static int
ishex(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F');
}

/* The value of hexadecimal digit c. */
static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return c - 'A' + 10;
}

/* RFC 3986 ALPHA, whatever the locale. */
static int
isalpha_ascii(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/*
 * Does the URI (or template) start with a scheme and ':'?  RFC 3986
 * section 3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
 */
static int
scheme_ok(const char *s)
{
	size_t	 i;

	if (!isalpha_ascii((unsigned char)s[0]))
		return 0;
	for (i = 1; s[i] != '\0' && s[i] != ':'; i++)
		if (!isalpha_ascii((unsigned char)s[i]) &&
		    !(s[i] >= '0' && s[i] <= '9') && s[i] != '+' &&
		    s[i] != '-' && s[i] != '.')
			return 0;
	return s[i] == ':';
}

/*
 * Check literal URI text: no control characters, no space and none of
 * the characters RFC 3986 never allows ("<>\^`{|} and the double
 * quote); '%' only as a percent-encoded octet.  Bytes beyond ASCII are
 * taken (IRIs), the whole string having been checked for UTF-8.  0, or
 * -1 with the reason in `err`.
 */
static int
literal_ok(const char *p, size_t len, char *err, size_t errlen)
{
	size_t		 i;
	unsigned char	 c;

	for (i = 0; i < len; i++) {
		c = (unsigned char)p[i];
		if (c < 0x20 || c == 0x7f) {
			snprintf(err, errlen, "control character 0x%02x", c);
			return -1;
		}
		if (c == ' ' || (c < 0x80 && strchr("\"<>\\^`{|}", c) !=
		    NULL)) {
			snprintf(err, errlen, "'%c' is not allowed in a URI%s",
			    c, c == '{' || c == '}' ? " (URI templates go in "
			    "the module's templates table)" : "");
			return -1;
		}
		if (c == '%' && (i + 2 >= len || !ishex(p[i + 1]) ||
		    !ishex(p[i + 2]))) {
			snprintf(err, errlen, "'%%' must start a "
			    "percent-encoded octet (%%XX)");
			return -1;
		}
	}
	return 0;
}

/*
 * Check a varname (RFC 6570 section 2.3): varchar *( ["."] varchar ),
 * varchar = ALPHA / DIGIT / "_" / pct-encoded.  0 or -1 with the reason.
 */
static int
varname_ok(const char *p, size_t len, char *err, size_t errlen)
{
	size_t	 i = 0;
	int	 need = 1;	/* a varchar must come next */

	while (i < len) {
		if (isalpha_ascii((unsigned char)p[i]) ||
		    (p[i] >= '0' && p[i] <= '9') || p[i] == '_') {
			i++;
			need = 0;
		} else if (p[i] == '%' && i + 2 < len && ishex(p[i + 1]) &&
		    ishex(p[i + 2])) {
			i += 3;
			need = 0;
		} else if (p[i] == '.' && !need) {
			i++;
			need = 1;
		} else if (p[i] == ',') {
			snprintf(err, errlen, "variable lists such as {a,b} "
			    "are not supported");
			return -1;
		} else if (p[i] == ':' || p[i] == '*') {
			snprintf(err, errlen, "modifiers (':' and '*') are "
			    "not supported");
			return -1;
		} else {
			snprintf(err, errlen, "'%.*s' is not a variable name",
			    (int)len, p);
			return -1;
		}
	}
	if (need) {
		snprintf(err, errlen, "'%.*s' is not a variable name",
		    (int)len, p);
		return -1;
	}
	return 0;
}

/*
 * Parse a URI template into `t` (pointers into `s`).  Only {var} and
 * {+var} are supported; a template needs a scheme, and two expressions
 * need literal text between them (so that a split exists to be found).
 * 0, or -1 with the reason in `err`.
 */
static int
tpl_parse(const char *s, struct tpl *t, char *err, size_t errlen)
{
	const char	*p = s, *q, *close, *body;
	size_t		 len, k;
	const char	**lit;
	size_t		*litlen;

	memset(t, 0, sizeof(*t));
	lit = &t->lit;
	litlen = &t->litlen;
	for (;;) {
		/* The literal text up to the next brace. */
		q = p + strcspn(p, "{}");
		*lit = p;
		*litlen = (size_t)(q - p);
		if (literal_ok(p, *litlen, err, errlen) == -1)
			return -1;
		if (*q == '\0')
			break;
		if (*q == '}') {
			snprintf(err, errlen, "'}' without '{'");
			return -1;
		}
		if (t->n > 0 && *litlen == 0) {
			snprintf(err, errlen, "two expressions need literal "
			    "text between them");
			return -1;
		}
		if (t->n == TPL_MAXEXPR) {
			snprintf(err, errlen, "more than %d expressions",
			    TPL_MAXEXPR);
			return -1;
		}
		if ((close = strchr(q, '}')) == NULL ||
		    memchr(q + 1, '{', (size_t)(close - q - 1)) != NULL) {
			snprintf(err, errlen, "'{' without '}'");
			return -1;
		}
		body = q + 1;
		len = (size_t)(close - body);
		if (len == 0) {
			snprintf(err, errlen, "empty expression {}");
			return -1;
		}
		t->e[t->n].plus = *body == '+';
		if (*body == '+') {
			body++;
			len--;
		} else if (strchr("#./;?&=,!@|", *body) != NULL) {
			snprintf(err, errlen, "operator '%c' in {%.*s} is not "
			    "supported (only {var} and {+var})", *body,
			    (int)len, body);
			return -1;
		}
		if (varname_ok(body, len, err, errlen) == -1)
			return -1;
		for (k = 0; k < t->n; k++)
			if (t->e[k].namelen == len &&
			    memcmp(t->e[k].name, body, len) == 0) {
				snprintf(err, errlen, "variable '%.*s' appears "
				    "twice", (int)len, body);
				return -1;
			}
		t->e[t->n].name = body;
		t->e[t->n].namelen = len;
		lit = &t->e[t->n].lit;
		litlen = &t->e[t->n].litlen;
		t->n++;
		p = close + 1;
	}
	return 0;
}

/* Remember that expression i cannot start at position p. */
static void
memo_set(struct match *m, size_t i, size_t p)
{
	size_t	 bit = i * (m->len + 1) + p;

	if (m->memo != NULL)
		m->memo[bit / 8] |= (unsigned char)(1u << (bit % 8));
}

/* Is expression i known not to match from position p? */
static int
memo_get(const struct match *m, size_t i, size_t p)
{
	size_t	 bit = i * (m->len + 1) + p;

	return m->memo != NULL && (m->memo[bit / 8] & (1u << (bit % 8)));
}

/*
 * Can expressions i.. match the URI from position p to its end?  1 with
 * start[]/end[] filled, 0 otherwise (or when the budget ran out).
 */
static int
match_from(struct match *m, size_t i, size_t p)
{
	const struct tpl_expr	*e = &m->t->e[i];
	const char		*sl;
	size_t			 hi, x;

	if (memo_get(m, i, p))
		return 0;
	/* At least one character, then the literal. */
	if (m->len - p < e->litlen + 1)
		goto fail;
	hi = m->len - e->litlen;
	if (i + 1 == m->t->n) {
		/* The last expression runs up to the final literal. */
		if (memcmp(m->uri + hi, e->lit, e->litlen) != 0 ||
		    (!e->plus && memchr(m->uri + p, '/', hi - p) != NULL))
			goto fail;
		m->start[i] = p;
		m->end[i] = hi;
		return 1;
	}
	if (!e->plus && (sl = memchr(m->uri + p, '/', hi - p)) != NULL)
		hi = (size_t)(sl - m->uri);
	for (x = hi; x > p; x--) {
		if (++m->steps > MATCH_BUDGET)
			return 0;
		if (memcmp(m->uri + x, e->lit, e->litlen) == 0 &&
		    match_from(m, i + 1, x + e->litlen)) {
			m->start[i] = p;
			m->end[i] = x;
			return 1;
		}
		if (m->steps > MATCH_BUDGET)
			return 0;
	}
fail:
	memo_set(m, i, p);
	return 0;
}

/*
 * Percent-decode s[0..len) into request memory.  1 with *out, 0 when it
 * is not well-formed or does not decode to UTF-8 without NUL, -1 when
 * out of memory.
 */
static int
pct_decode(struct wymcp_ctx *ctx, const char *s, size_t len, char **out)
{
	char	*d;
	size_t	 i, n = 0;

	if ((d = wymcp_alloc(ctx, len + 1)) == NULL)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] != '%')
			d[n++] = s[i];
		else if (i + 2 < len) {
			if (!ishex(s[i + 1]) || !ishex(s[i + 2]))
				return 0;
			d[n++] = (char)(hexval(s[i + 1]) << 4 |
			    hexval(s[i + 2]));
			i += 2;
		} else
			return 0;
		if (d[n - 1] == '\0')
			return 0;
	}
	d[n] = '\0';
	if (!wymcp__utf8_valid(d, n))
		return 0;
	*out = d;
	return 1;
}

/*
 * Match a URI against a registered template.  1 with *vars (an object
 * of name -> string owned by the request), 0 when it does not match, -1
 * when out of memory.
 */
static int
tpl_match(struct wymcp_ctx *ctx, const char *tplstr, const char *uri,
    struct json_object **vars)
{
	struct tpl		 t;
	struct match		 m;
	struct json_object	*o, *s;
	char			 err[128], *name, *val;
	size_t			 i, bits;
	int			 rc;

	if (tpl_parse(tplstr, &t, err, sizeof(err)) == -1)
		return 0;	/* checked at load: cannot happen */
	memset(&m, 0, sizeof(m));
	m.t = &t;
	m.uri = uri;
	m.len = strlen(uri);
	if (m.len < t.litlen || strncmp(uri, t.lit, t.litlen) != 0)
		return 0;
	if (t.n == 0) {
		if (m.len != t.litlen)
			return 0;
	} else {
		bits = t.n * (m.len + 1);
		if (bits <= MEMO_MAXBITS &&
		    (m.memo = wymcp_alloc(ctx, bits / 8 + 1)) == NULL)
			return -1;
		if (!match_from(&m, 0, t.litlen)) {
			if (m.steps > MATCH_BUDGET)
				wymcp__log(ctx->srv, ctx, WYMCP_LOG_WARNING,
				    "template %s: matching gave up after %d "
				    "steps", tplstr, MATCH_BUDGET);
			return 0;
		}
	}
	if ((o = wymcp_own(ctx, json_object_new_object())) == NULL)
		return -1;
	for (i = 0; i < t.n; i++) {
		if ((name = wymcp__arena_strndup(&ctx->arena, t.e[i].name,
		    t.e[i].namelen)) == NULL)
			return -1;
		if (t.e[i].plus) {
			val = wymcp__arena_strndup(&ctx->arena,
			    uri + m.start[i], m.end[i] - m.start[i]);
			if (val == NULL)
				return -1;
			if (!wymcp__utf8_valid(val, strlen(val)))
				return 0;
		} else if ((rc = pct_decode(ctx, uri + m.start[i],
		    m.end[i] - m.start[i], &val)) != 1)
			return rc;
		if ((s = json_object_new_string(val)) == NULL)
			return -1;
		if (json_object_object_add(o, name, s)) {
			json_object_put(s);
			return -1;
		}
	}
	*vars = o;
	return 1;
}

/*
 * Is `name` a variable of template `tpl`?  For completion/complete,
 * whose argument names a template variable.
 */
int
wymcp__template_var(const char *tpl, const char *name)
{
	struct tpl	 t;
	char		 err[128];
	size_t		 i;

	if (tpl_parse(tpl, &t, err, sizeof(err)) == -1)
		return 0;
	for (i = 0; i < t.n; i++)
		if (t.e[i].namelen == strlen(name) &&
		    memcmp(t.e[i].name, name, t.e[i].namelen) == 0)
			return 1;
	return 0;
}

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
	json_object_put(r->listing);
	memset(r, 0, sizeof(*r));
}

/*
 * Check one resource or template declaration and build its listing
 * object.  `tab`/`n` are the entries registered so far (this module's
 * included), for the duplicate check.  WYMCP_OK, or an error with the
 * reason in errmsg and `out` untouched.
 */
static enum wymcp_err
resource_prepare(struct wymcp_server *srv, const struct wymcp_module *mod,
    const struct wymcp_resource *def, int template,
    const struct wymcp__resource *tab, size_t n, struct wymcp__resource *out)
{
	const char		*kind = template ? "template" : "resource";
	struct json_object	*l;
	struct tpl		 t;
	char			 why[256];
	size_t			 i;

	if (!wymcp__utf8_valid(def->uri, strlen(def->uri))) {
		wymcp__seterr(srv, "module %s: a %s URI is not UTF-8",
		    mod->name, kind);
		return WYMCP_ERR_INVAL;
	}
	if (!scheme_ok(def->uri)) {
		wymcp__seterr(srv, "module %s: %s '%s' does not start with a "
		    "URI scheme (RFC 3986: a letter, then letters, digits, "
		    "'+', '-' or '.', then ':')", mod->name, kind, def->uri);
		return WYMCP_ERR_INVAL;
	}
	if ((template ? tpl_parse(def->uri, &t, why, sizeof(why)) :
	    literal_ok(def->uri, strlen(def->uri), why, sizeof(why))) == -1) {
		wymcp__seterr(srv, "module %s: %s '%s': %s", mod->name, kind,
		    def->uri, why);
		return WYMCP_ERR_INVAL;
	}
	if (def->name == NULL || *def->name == '\0' || def->read == NULL) {
		wymcp__seterr(srv, "module %s: %s %s: a name and a read "
		    "function are required", mod->name, kind, def->uri);
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
	wymcp__seterr(srv, "out of memory");
	if ((l = json_object_new_object()) == NULL)
		return WYMCP_ERR_NOMEM;
	if (wymcp__put_str(l, template ? "uriTemplate" : "uri", def->uri) ||
	    wymcp__put_str(l, "name", def->name) || wymcp__put_str(l, "title", def->title) ||
	    wymcp__put_str(l, "description", def->description) ||
	    wymcp__put_str(l, "mimeType", def->mime) ||
	    wymcp__listing_digest(l, out->digest)) {
		json_object_put(l);
		return WYMCP_ERR_NOMEM;
	}
	out->def = def;
	out->mod = mod;
	out->listing = l;
	return WYMCP_OK;
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
				    srv->nresources, n, i;
	enum wymcp_err		 rc;

	*np = 0;
	for (n = 0; defs != NULL && defs[n].uri != NULL; n++)
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
		rc = resource_prepare(srv, mod, &defs[i], template, nt,
		    have + i, &nt[have + i]);
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
	for (i = 0; i < srv->ntemplates; i++)
		resource_clear(&srv->templates[i]);
	free(srv->templates);
	srv->templates = NULL;
	srv->ntemplates = 0;
	wymcp__prompts_free(srv);
	srv->ncompleters = 0;
}

/*
 * The resources capability is advertised (server/discover) only when
 * something is registered; without it the methods do not exist (404,
 * -32601), as for any method the server does not offer.  Returns 1
 * after replying so.
 */
static int
gated(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	const char	*msg;

	if (ctx->srv->nresources > 0 || ctx->srv->ntemplates > 0)
		return 0;
	msg = wymcp_printf(ctx, "Method not found: %s", ctx->method);
	wymcp__reply_error(ctx, r, 404, WYMCP__METHOD_NOT_FOUND,
	    msg != NULL ? msg : "Method not found", NULL);
	return 1;
}

/* Entry i of a resource table, for wymcp__list_reply(). */
static void
resource_at(const void *arg, size_t i, struct json_object **listing,
    const unsigned char **digest)
{
	const struct wymcp__resource *tab = arg;

	*listing = tab[i].listing;
	*digest = tab[i].digest;
}

/*
 * A list of resources or templates: every registered entry in
 * registration order, paged.  ttlMs is the smallest of the modules the
 * list holds entries of; the list is private if one of them says so.
 */
static void
resource_list(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    const char *kind, const struct wymcp__resource *tab, size_t n)
{
	struct wymcp__list	 l;
	int64_t			 ttl;
	size_t			 i;

	if (gated(ctx, r))
		return;
	memset(&l, 0, sizeof(l));
	l.kind = kind;
	l.n = n;
	l.at = resource_at;
	l.arg = tab;
	l.ttl = -1;
	for (i = 0; i < n; i++) {
		ttl = wymcp__module_ttl(tab[i].mod);
		if (l.ttl < 0 || ttl < l.ttl)
			l.ttl = ttl;
		if (wymcp__module_private(tab[i].mod))
			l.private = 1;
	}
	if (l.ttl < 0)
		l.ttl = WYMCP__TTL_MS;
	wymcp__list_reply(ctx, r, &l);
}

/* resources/list (server/resources.mdx "Listing Resources"). */
void
wymcp__resources_list(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	resource_list(ctx, r, "resources", ctx->srv->resources,
	    ctx->srv->nresources);
}

/* resources/templates/list (server/resources.mdx "Resource Templates"). */
void
wymcp__templates_list(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	resource_list(ctx, r, "resourceTemplates", ctx->srv->templates,
	    ctx->srv->ntemplates);
}

/* Put the result's own references (a cleanup hook). */
static void
contents_free(void *arg)
{
	struct wymcp_resource_result	*res = arg;

	json_object_put(res->contents);
}

/* Run a resource's read() (inside wymcp__run()). */
static enum wymcp_err
read_body(struct wymcp_ctx *ctx, void *arg)
{
	struct read_body	*rb = arg;

	return rb->res->def->read(ctx, rb->uri, rb->vars, rb->out);
}

/*
 * "Resource not found": -32602 with data.uri, never an empty contents
 * (server/resources.mdx "Error Handling"); -32002 for a 2025-11-25
 * client, whose revision has that code for it.
 */
static void
not_found(struct wymcp_ctx *ctx, struct wymcp__reply *r, const char *uri)
{
	struct json_object	*data;

	if ((data = json_object_new_object()) != NULL)
		json_object_object_add(data, "uri",
		    json_object_new_string(uri));
	wymcp__reply_error(ctx, r, 200, ctx->legacy ?
	    WYMCP__RESOURCE_NOT_FOUND : WYMCP__INVALID_PARAMS,
	    "Resource not found", data);
}

/*
 * Find what serves `uri`: the fixed resource of that exact URI first,
 * then the first template that matches, in registration order.  1 with
 * *found and *vars, 0 when nothing does, -1 when out of memory.
 */
static int
resolve(struct wymcp_ctx *ctx, const char *uri,
    const struct wymcp__resource **found, struct json_object **vars)
{
	const struct wymcp_server *srv = ctx->srv;
	size_t			 i;
	int			 m;

	for (i = 0; i < srv->nresources; i++)
		if (strcmp(srv->resources[i].def->uri, uri) == 0) {
			*found = &srv->resources[i];
			*vars = wymcp_own(ctx, json_object_new_object());
			return *vars == NULL ? -1 : 1;
		}
	for (i = 0; i < srv->ntemplates; i++) {
		if ((m = tpl_match(ctx, srv->templates[i].def->uri, uri,
		    vars)) != 0) {
			*found = &srv->templates[i];
			return m;
		}
	}
	return 0;
}

/*
 * resources/read (server/resources.mdx "Reading Resources").  read()
 * runs inside the boundary, so it may ask the client (mrtr.mdx: a
 * resources/read may answer input_required); the requestState binds the
 * URI (call_name) and the variables the URI gave (call_args).
 *
 * Cache hints: ttlMs is the module's; cacheScope is always "private",
 * since what a read returns commonly depends on who asks (the module
 * sees the principal and the assigns) and wymcp cannot know that it
 * does not.  A read that went through questions (the request carries
 * inputResponses or requestState) gets ttlMs 0: its result depends on
 * answers that are not part of the cache key (caching.mdx "Cache Key").
 */
void
wymcp__resources_read(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	const struct wymcp__resource	*found = NULL;
	struct wymcp_resource_result	*out;
	struct json_object		*v, *vars = NULL, *res;
	struct read_body		 rb;
	const char			*uri;
	enum wymcp_err			 rc;
	int				 m;
	int64_t				 ttl;

	if (gated(ctx, r))
		return;
	if (!json_object_object_get_ex(ctx->params, "uri", &v) ||
	    !json_object_is_type(v, json_type_string)) {
		wymcp__reply_error(ctx, r, 200, WYMCP__INVALID_PARAMS,
		    "Invalid params: uri must be a string", NULL);
		return;
	}
	uri = json_object_get_string(v);
	if (wymcp__ctx_assigns(ctx) != WYMCP_OK ||
	    wymcp__ctx_mount(ctx) != WYMCP_OK)
		goto nomem;
	if ((m = resolve(ctx, uri, &found, &vars)) < 0)
		goto nomem;
	if (m == 0) {
		not_found(ctx, r, uri);
		return;
	}

	if ((out = wymcp_alloc(ctx, sizeof(*out))) == NULL ||
	    (out->contents = json_object_new_array()) == NULL)
		goto nomem;
	out->ctx = ctx;
	out->uri = uri;
	if (wymcp_defer(ctx, contents_free, out) != WYMCP_OK) {
		json_object_put(out->contents);
		goto nomem;
	}
	rb.res = found;
	rb.uri = uri;
	rb.vars = vars;
	rb.out = out;
	if (!wymcp__round(ctx, r, uri, vars, read_body, &rb, &rc))
		return;
	if (rc == WYMCP_ERR_NOTFOUND) {
		not_found(ctx, r, uri);
		return;
	}
	if (rc == WYMCP_ERR_NOMEM)
		goto nomem;
	if (rc != WYMCP_OK || json_object_array_length(out->contents) == 0) {
		wymcp__log(ctx->srv, ctx, WYMCP_LOG_ERR, "resource %s: %s",
		    uri, rc != WYMCP_OK ? wymcp_strerror(rc) :
		    "read() returned no contents");
		wymcp__reply_error(ctx, r, 500, WYMCP__INTERNAL_ERROR,
		    "Internal error: the resource could not be read", NULL);
		return;
	}
	if ((res = json_object_new_object()) == NULL)
		goto nomem;
	json_object_object_add(res, "resultType",
	    json_object_new_string("complete"));
	json_object_object_add(res, "contents",
	    json_object_get(out->contents));
	ttl = wymcp__module_ttl(found->mod);
	if (json_object_object_get_ex(ctx->params, "inputResponses", NULL) ||
	    json_object_object_get_ex(ctx->params, "requestState", NULL))
		ttl = 0;
	wymcp__cache_hints_ttl(res, ttl, 1);
	wymcp__reply_result(ctx, r, res);
	return;
nomem:
	wymcp__reply_nomem(ctx, r);
}

/*
 * Is `s` base64 (RFC 4648 section 4, the standard alphabet, padded)?
 * The empty string is the encoding of nothing.
 */
static int
base64_ok(const char *s)
{
	size_t	 n = strlen(s), i, pad = 0;

	if (n % 4 != 0)
		return 0;
	if (n > 0 && s[n - 1] == '=')
		pad = n > 1 && s[n - 2] == '=' ? 2 : 1;
	for (i = 0; i < n - pad; i++)
		if (!isalpha_ascii((unsigned char)s[i]) &&
		    !(s[i] >= '0' && s[i] <= '9') && s[i] != '+' &&
		    s[i] != '/')
			return 0;
	return 1;
}

/* Append {uri, mimeType?, <key>: val} to the contents. */
static enum wymcp_err
contents_add(struct wymcp_resource_result *res, const char *uri,
    const char *mime, const char *key, const char *val)
{
	struct json_object	*o;

	if (uri == NULL)
		uri = res->uri;
	if (!wymcp__text_ok(uri) || !wymcp__text_ok(mime) ||
	    (mime != NULL && *mime == '\0'))
		return WYMCP_ERR_INVAL;
	if ((o = json_object_new_object()) == NULL)
		return WYMCP_ERR_NOMEM;
	if (wymcp__put_str(o, "uri", uri) || wymcp__put_str(o, "mimeType", mime) ||
	    wymcp__put_str(o, key, val) || json_object_array_add(res->contents, o)) {
		json_object_put(o);
		return WYMCP_ERR_NOMEM;
	}
	return WYMCP_OK;
}

/* A text contents entry (TextResourceContents). */
enum wymcp_err
wymcp_contents_text(struct wymcp_resource_result *res, const char *uri,
    const char *mime, const char *text)
{
	if (res == NULL || text == NULL || !wymcp__text_ok(text))
		return WYMCP_ERR_INVAL;
	return contents_add(res, uri, mime, "text", text);
}

/* A binary contents entry (BlobResourceContents): base64 data. */
enum wymcp_err
wymcp_contents_blob(struct wymcp_resource_result *res, const char *uri,
    const char *mime, const char *b64)
{
	if (res == NULL || b64 == NULL || !base64_ok(b64))
		return WYMCP_ERR_INVAL;
	return contents_add(res, uri, mime, "blob", b64);
}
