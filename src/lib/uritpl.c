/*
 * uritpl.c - URI templates (RFC 6570, the two kinds MCP resources use)
 * * URI templates (RFC 6570) are checked when the module is loaded and
 * only two kinds of expression are accepted: {var} (level 1, simple
 * string expansion) and {+var} (level 2, reserved expansion), one
 * variable each, with literal text between two expressions.  Matching a
 * requested URI against a template is the inverse of expansion:
 *
 *	- literal text matches itself exactly;
 *	- {var} matches one or more characters other than '/' that
 *	  percent-decode to UTF-8 without NUL, and its value is decoded;
 *	- {+var} matches one or more characters of any kind, '/' included,
 *	  and its value is passed as it appears in the URI (reserved
 *	  expansion leaves percent-encoded octets as they are, so decoding
 *	  them would be guessing).
 *
 * When several splits fit, the earlier expressions take as much as
 * they can (as a regular expression's greedy quantifiers would):
 * "file:///{+dir}/{name}" splits "file:///a/b/c" into dir "a/b" and
 * name "c".  A split whose {var} value would not decode (a
 * percent-encoded octet cut in two, a UTF-8 sequence cut or broken,
 * %00) is no split: the search goes on to the next one, so that the
 * expansion of any values matches again (t/fuzz/fuzz_uritpl.c found
 * "x:{a}3{b}" giving up on a URI whose '3' began "%3A").  What a {var}
 * value may be is worked out once per URI (struct units), so each
 * candidate costs the same whatever its length.  The search remembers
 * positions that failed and gives up after MATCH_BUDGET steps, so no
 * template and URI can make it explode.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/lib.h"

#define TPL_MAXEXPR	32		/* expressions per template */
#define MATCH_BUDGET	100000		/* candidate splits per match */
#define MEMO_MAXBITS	(1024 * 1024)	/* failed-position memo size */

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

/*
 * The URI as a {var} value decodes it: a unit is a percent-encoded
 * octet (three characters) or one other byte, read from the start of
 * the URI.  A value starting inside an octet reads its one or two
 * remaining hex digits as characters, then falls in step.  Per position
 * of the URI: flags, the lead unit a continuation unit belongs to, and
 * how many bad units come before it.
 */
#define U_START		0x01	/* a unit starts here */
#define U_CONT		0x02	/* ... decoding to 10xxxxxx */
#define U_BAD		0x04	/* ... that no value may hold */
#define U_NOLEAD	UINT32_MAX
struct units {
	unsigned char	*flags;		/* len entries */
	uint32_t	*lead;		/* len: a U_CONT unit's lead, or none */
	uint32_t	*badpfx;	/* len + 1: U_BAD units in [0, k) */
};

/* The state of one template match. */
struct match {
	const struct tpl *t;
	const char	*uri;
	size_t		 len;
	unsigned char	*memo;		/* failed (expr, pos) bits, or NULL */
	struct units	 u;		/* for {var} values, or all NULL */
	size_t		 steps;
	size_t		 start[TPL_MAXEXPR], end[TPL_MAXEXPR];
};

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
int
wymcp__uri_scheme_ok(const char *s)
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
int
wymcp__uri_literal_ok(const char *p, size_t len, char *err, size_t errlen)
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
		if (wymcp__uri_literal_ok(p, *litlen, err, errlen) == -1)
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

/*
 * UTF-8 over the `n' units (their bytes `byte', their positions `pos'):
 * broken sequences and strays are bad; a good sequence's continuation
 * units get their lead.
 */
static void
units_utf8(struct units *u, const unsigned char *byte, const uint32_t *pos,
    size_t n)
{
	size_t		 i, j, need;
	unsigned int	 c, cp, min;

	for (i = 0; i < n; i += 1 + need) {
		c = byte[i];
		need = 0;
		if (c < 0x80)
			continue;
		if (c >= 0xc2 && c <= 0xdf) {
			need = 1;
			cp = c & 0x1f;
			min = 0x80;
		} else if (c >= 0xe0 && c <= 0xef) {
			need = 2;
			cp = c & 0x0f;
			min = 0x800;
		} else if (c >= 0xf0 && c <= 0xf4) {
			need = 3;
			cp = c & 0x07;
			min = 0x10000;
		} else {
			u->flags[pos[i]] |= U_BAD;	/* stray, or no lead */
			continue;
		}
		for (j = 1; j <= need; j++) {
			if (i + j >= n || (byte[i + j] & 0xc0) != 0x80)
				break;
			cp = cp << 6 | (byte[i + j] & 0x3f);
		}
		if (j <= need || cp < min || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff)) {
			u->flags[pos[i]] |= U_BAD;
			need = 0;	/* what follows is read again */
			continue;
		}
		for (j = 1; j <= need; j++)
			u->lead[pos[i + j]] = pos[i];
	}
}

/*
 * Work out the units of m->uri (struct units).  0, or -1 when out of
 * memory.
 */
static int
units_make(struct wymcp__arena *a, struct match *m)
{
	struct units	*u = &m->u;
	const char	*s = m->uri;
	unsigned char	*byte;
	uint32_t	*pos;
	size_t		 len = m->len, n = 0, k;

	if (len >= U_NOLEAD ||
	    (u->flags = wymcp__arena_alloc(a, len + 1)) == NULL ||
	    (u->lead = wymcp__arena_alloc(a, (len + 1) *
	    sizeof(*u->lead))) == NULL ||
	    (u->badpfx = wymcp__arena_alloc(a, (len + 1) *
	    sizeof(*u->badpfx))) == NULL ||
	    (byte = wymcp__arena_alloc(a, len + 1)) == NULL ||
	    (pos = wymcp__arena_alloc(a, (len + 1) * sizeof(*pos))) == NULL)
		return -1;
	memset(u->flags, 0, len + 1);
	/* The units, in order: their positions and bytes. */
	for (k = 0; k < len; n++) {
		pos[n] = (uint32_t)k;
		u->flags[k] = U_START;
		u->lead[k] = U_NOLEAD;
		if (s[k] == '%' && k + 2 < len && ishex(s[k + 1]) &&
		    ishex(s[k + 2])) {
			byte[n] = (unsigned char)(hexval(s[k + 1]) << 4 |
			    hexval(s[k + 2]));
			u->lead[k + 1] = u->lead[k + 2] = U_NOLEAD;
			k += 3;
		} else {
			byte[n] = (unsigned char)s[k];
			if (s[k] == '%')
				u->flags[k] |= U_BAD;	/* not an octet */
			k++;
		}
		if (byte[n] == 0)
			u->flags[pos[n]] |= U_BAD;
		if ((byte[n] & 0xc0) == 0x80)
			u->flags[pos[n]] |= U_CONT;
	}
	units_utf8(u, byte, pos, n);
	u->badpfx[0] = 0;
	for (k = 0; k < len; k++)
		u->badpfx[k + 1] = u->badpfx[k] +
		    ((u->flags[k] & (U_START | U_BAD)) == (U_START | U_BAD));
	return 0;
}

/*
 * May uri[p, x) be the value of a {var}: does it percent-decode to
 * UTF-8 without NUL?  1 or 0, in constant time.
 */
static int
value_ok(const struct match *m, size_t p, size_t x)
{
	const struct units	*u = &m->u;
	size_t			 q;

	/* The rest of an octet cut at p: hex digits, read as such. */
	for (q = p; q < x && !(u->flags[q] & U_START); q++)
		continue;
	if (q == x)
		return 1;
	/* Not ending inside an octet, nor inside a UTF-8 sequence. */
	if (x < m->len && (!(u->flags[x] & U_START) ||
	    ((u->flags[x] & U_CONT) && u->lead[x] != U_NOLEAD &&
	    u->lead[x] >= q)))
		return 0;
	/* Not starting inside a sequence, and nothing bad in between. */
	if (u->flags[q] & U_CONT)
		return 0;
	return u->badpfx[x] == u->badpfx[q];
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
		    (!e->plus && (memchr(m->uri + p, '/', hi - p) != NULL ||
		    !value_ok(m, p, hi))))
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
		    (e->plus || value_ok(m, p, x)) &&
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
pct_decode(struct wymcp__arena *a, const char *s, size_t len, char **out)
{
	char	*d;
	size_t	 i, n = 0;

	if ((d = wymcp__arena_alloc(a, len + 1)) == NULL)
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
 * Drop a reference (an arena cleanup hook).
 */
static void
put_obj(void *o)
{
	json_object_put(o);
}

/*
 * Match a URI against a template (checked with wymcp__tpl_check()).  1
 * with *vars (an object of name -> string, owned by the arena), 0 when
 * it does not match, -1 when out of memory, -2 when the search gave up
 * (MATCH_BUDGET steps: the caller says so in its log).
 */
int
wymcp__tpl_match(struct wymcp__arena *a, const char *tplstr, const char *uri,
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
		    (m.memo = wymcp__arena_alloc(a, bits / 8 + 1)) == NULL)
			return -1;
		for (i = 0; i < t.n; i++)
			if (!t.e[i].plus)
				break;
		if (i < t.n && units_make(a, &m) != 0)
			return -1;
		if (!match_from(&m, 0, t.litlen))
			return m.steps > MATCH_BUDGET ? -2 : 0;
	}
	if ((o = json_object_new_object()) == NULL)
		return -1;
	if (wymcp__arena_defer(a, put_obj, o)) {
		json_object_put(o);
		return -1;
	}
	for (i = 0; i < t.n; i++) {
		if ((name = wymcp__arena_strndup(a, t.e[i].name,
		    t.e[i].namelen)) == NULL)
			return -1;
		if (t.e[i].plus) {
			val = wymcp__arena_strndup(a,
			    uri + m.start[i], m.end[i] - m.start[i]);
			if (val == NULL)
				return -1;
			if (!wymcp__utf8_valid(val, strlen(val)))
				return 0;
		} else if ((rc = pct_decode(a, uri + m.start[i],
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

/* Is `tpl` a template of the accepted kinds?  1, or 0 with the reason. */
int
wymcp__tpl_check(const char *tpl, char *err, size_t errlen)
{
	struct tpl	 t;

	return tpl_parse(tpl, &t, err, errlen) == 0;
}
