/*
 * json.c - strict JSON in, compact JSON out
 *
 * RFC 8259 is checked by a scan of our own before json-c parses: json-c
 * in strict mode still accepts NaN, "1.", single quotes and raw control
 * characters.  The wire form is compact (no spaces, no escaped slashes).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <locale.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/lib.h"

/*
 * A strict RFC 8259 syntax check, one pass over the bytes, before
 * anything is built: json-c 0.16 accepts single-quoted strings, raw
 * control characters in strings, NaN, Infinity and "1." even with
 * JSON_TOKENER_STRICT, and saturates integers beyond 64 bits (an id
 * would come back changed).  Returns 0, -1 for a syntax error, -2 for
 * an integer out of range.  With a struct scan, a string that is not
 * UTF-8 is a syntax error.
 *
 * The scan also notes, when given a struct scan, whether a string holds
 * the escape \u0000 and how deep values nest (build() below holds them
 * to json-c's depth).
 */
#define SCAN_DEPTH	64
#define BUILD_DEPTH	32	/* json-c's JSON_TOKENER_DEFAULT_DEPTH */
#define BUILD_DEPTH_MAX	31	/* the deepest nesting taken */
#define WYMCP__STR(x)	WYMCP__STR_(x)
#define WYMCP__STR_(x)	#x

struct scan {
	int	 nul;		/* a string holds \u0000 */
	int	 depth;		/* the deepest value's containers */
	size_t	 deep_at;	/* where nesting reached BUILD_DEPTH */
	size_t	 at;		/* a syntax error: its byte offset */
	const char *why;	/* and what it is */
	const struct wymcp__json_memo *memo;	/* or NULL */
};

/* A syntax error at p[i]: why, when the caller keeps it. */
#define BAD(w) do {							\
	if (s != NULL) {						\
		s->at = i;						\
		s->why = (w);						\
	}								\
	return -1;							\
} while (0)

/* Skip JSON white space. */
static size_t
ws(const char *p, size_t i, size_t len)
{
	while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' ||
	    p[i] == '\r'))
		i++;
	return i;
}

/* Bytes a string may hold as they are: printable ASCII but " and \\. */
static const unsigned char plain[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/*
 * A string starting at p[i] == '"'; returns the index after it or 0.
 * Sets *nul when it holds the escape \u0000.  With `utf8`, its bytes
 * must be well-formed UTF-8 (wymcp__utf8_valid()'s rules); outside
 * strings a byte of 0x80 or more is a syntax error anyway.
 */
static size_t
scan_string(const char *p, size_t i, size_t len, int *nul, int utf8,
    size_t *bad, const char **why)
{
	size_t		 k, first = i + 1;

	*why = "a string that does not end";
	for (i++; i < len; i++) {
		if (plain[(unsigned char)p[i]])
			continue;	/* the common byte first */
		*bad = i;
		if (p[i] == '"')
			return i + 1;
		if ((unsigned char)p[i] < 0x20) {
			*why = "a control character in a string (escape it)";
			return 0;
		}
		if ((unsigned char)p[i] >= 0x80 && utf8) {
			if ((k = wymcp__utf8_seq(p, i, len)) == 0) {
				*why = "invalid UTF-8";
				return 0;
			}
			i += k - 1;
			continue;
		}
		if (p[i] != '\\')
			continue;
		*why = "an invalid escape in a string";
		if (++i >= len)
			return 0;
		switch (p[i]) {
		case '"': case '\\': case '/': case 'b': case 'f':
		case 'n': case 'r': case 't':
			break;
		case 'u':
			for (k = 1; k <= 4; k++)
				if (i + k >= len ||
				    !isxdigit((unsigned char)p[i + k]))
					return 0;
			if (memcmp(p + i + 1, "0000", 4) == 0)
				*nul = 1;
			i += 4;
			break;
		default:
			return 0;
		}
	}
	if (first < len)
		*bad = len - 1;		/* where the text ends unclosed */
	return 0;
}

/* Does the integer literal [s, s+n) fit json-c's int64/uint64? */
static int
int_fits(const char *s, size_t n)
{
	static const char	 maxneg[] = "9223372036854775808";
	static const char	 maxpos[] = "18446744073709551615";
	const char		*lim = maxpos;

	if (*s == '-') {
		s++;
		n--;
		lim = maxneg;
	}
	if (n != strlen(lim))
		return n < strlen(lim);
	return memcmp(s, lim, n) <= 0;
}

/* A number at p[i]; returns the index after it, 0 on error, and sets
 * *range when an integer does not fit. */
static size_t
scan_number(const char *p, size_t i, size_t len, int *range)
{
	size_t	 start = i;
	int	 isint = 1;

	if (i < len && p[i] == '-')
		i++;
	if (i < len && p[i] == '0')
		i++;
	else if (i < len && p[i] >= '1' && p[i] <= '9')
		while (i < len && p[i] >= '0' && p[i] <= '9')
			i++;
	else
		return 0;
	if (i < len && p[i] == '.') {
		isint = 0;
		if (++i >= len || p[i] < '0' || p[i] > '9')
			return 0;
		while (i < len && p[i] >= '0' && p[i] <= '9')
			i++;
	}
	if (i < len && (p[i] == 'e' || p[i] == 'E')) {
		isint = 0;
		if (++i < len && (p[i] == '+' || p[i] == '-'))
			i++;
		if (i >= len || p[i] < '0' || p[i] > '9')
			return 0;
		while (i < len && p[i] >= '0' && p[i] <= '9')
			i++;
	}
	if (isint && !int_fits(p + start, i - start))
		*range = 1;
	return i;
}

/*
 * The string, literal or number at p[i]: the index past it, or 0 when
 * there is none, with where (*bad) and why (*why).  A string is scanned
 * as scan_string() says (`utf8'), an integer out of range sets *range.
 */
static size_t
scan_scalar(const char *p, size_t i, size_t len, int *nul, int *range,
    int utf8, size_t *bad, const char **why)
{
	static const char *const lit[] = { "true", "false", "null" };
	const char	*w;
	size_t		 n;

	*bad = i;
	switch (p[i]) {
	case '"':
		return scan_string(p, i, len, nul, utf8, bad, why);
	case 't':
	case 'f':
	case 'n':
		w = lit[p[i] == 't' ? 0 : p[i] == 'f' ? 1 : 2];
		n = strlen(w);
		if (len - i >= n && memcmp(p + i, w, n) == 0)
			return i + n;
		*why = p[i] == 't' ? "not a value (true?)" : p[i] == 'f' ?
		    "not a value (false?)" : "not a value (null?)";
		return 0;
	default:
		if ((unsigned char)p[i] >= 0x80) {
			*why = "a byte of 0x80 or more outside a string";
			return 0;
		}
		if ((n = scan_number(p, i, len, range)) == 0)
			*why = "not a value";
		return n;
	}
}

/* Why an object or array (`open') is not closed, at the end or not. */
static const char *
unclosed(char open, int atend)
{
	if (atend)
		return open == '{' ? "the text ends inside an object" :
		    "the text ends inside an array";
	return open == '{' ? "',' or '}' expected in an object" :
	    "',' or ']' expected in an array";
}

/*
 * The member whose name is p[k] to p[e] (quotes included): when it is
 * "_meta" and its value (after the colon) the memo's very bytes,
 * checked when the memo was made, the index after them, else 0.
 * Nesting `depth' deep, the memo's nesting is added to *maxdepth, and
 * its \u0000 to *nul; a memo that would come near json-c's depth is
 * checked again.
 */
static size_t
memo_skip(const char *p, size_t len, size_t k, size_t e,
    const struct scan *s, int depth, int *maxdepth, int *nul)
{
	const struct wymcp__json_memo *m;
	size_t			 i;

	if (s == NULL || (m = s->memo) == NULL || m->obj == NULL ||
	    e - k != 7 || memcmp(p + k, "\"_meta\"", 7) != 0 ||
	    (i = ws(p, e, len)) >= len || p[i] != ':' ||
	    (i = ws(p, i + 1, len)) >= len || m->len > len - i ||
	    depth + m->depth + 2 >= BUILD_DEPTH ||
	    memcmp(p + i, m->text, m->len) != 0)
		return 0;
	if (depth + m->depth > *maxdepth)
		*maxdepth = depth + m->depth;
	*nul |= m->nul;
	return i + m->len;
}

/* The scan's end: what it noted, when the caller keeps it. */
static void
scan_done(struct scan *s, int nul, int maxdepth)
{
	if (s != NULL) {
		s->nul = nul;
		s->depth = maxdepth;
	}
}

static int
json_strict(const char *p, size_t len, struct scan *s)
{
	char		 stack[SCAN_DEPTH];	/* '{' or '[' */
	size_t		 i = 0, n, k, bad = 0;
	const char	*why = NULL;
	int		 depth = 0, maxdepth = 0, range = 0, nul = 0;

	/* Expect a value at p[i]. */
value:
	if (depth > maxdepth)
		maxdepth = depth;
	i = ws(p, i, len);
	if (i >= len)
		BAD("the text ends where a value should be");
	switch (p[i]) {
	case '{':
	case '[':
		if (depth + 1 == BUILD_DEPTH && s != NULL)
			s->deep_at = i;
		if (depth == SCAN_DEPTH)
			BAD("nesting too deep");
		stack[depth++] = p[i];
		i = ws(p, i + 1, len);
		if (i < len && p[i] == (stack[depth - 1] == '{' ? '}' : ']')) {
			depth--;
			i++;
			goto after;
		}
		goto next;
	default:
		if ((n = scan_scalar(p, i, len, &nul, &range, s != NULL,
		    &bad, &why)) == 0) {
			i = bad;
			BAD(why);
		}
		i = n;
		goto after;
	}
	/* Expect a member name and a colon, then a value. */
key:
	i = ws(p, i, len);
	if (i >= len || p[i] != '"')
		BAD("a member name (a string) expected");
	if ((n = scan_string(p, i, len, &nul, s != NULL, &bad, &why)) == 0) {
		i = bad;
		BAD(why);
	}
	if ((k = memo_skip(p, len, i, n, s, depth, &maxdepth, &nul)) != 0) {
		i = k;
		goto after;
	}
	i = ws(p, n, len);
	if (i >= len || p[i] != ':')
		BAD("':' expected after a member name");
	i++;
	goto value;
	/* After a value: a separator, a close, or the end. */
after:
	i = ws(p, i, len);
	if (depth == 0) {
		scan_done(s, nul, maxdepth);
		if (i != len)
			BAD("text after the value");
		return range ? -2 : 0;
	}
	if (i < len && p[i] == ',') {
		i++;
next:
		if (stack[depth - 1] == '{')
			goto key;
		goto value;
	}
	if (i < len && p[i] == (stack[depth - 1] == '{' ? '}' : ']')) {
		depth--;
		i++;
		goto after;
	}
	BAD(unclosed(stack[depth - 1], i >= len));
}

/*
 * Building json-c objects from text json_strict() passed, as json-c
 * 0.16's tokener builds them (same types, same string bytes, doubles
 * keeping their text), without its per-character state machine.  A
 * member name is cut at U+0000 as json-c cuts it; two members whose
 * names so read the same are a duplicate (json-c would keep the last).
 */
struct build {
	const char	*p;
	size_t		 i;
	size_t		 len;
	char		*tmp;		/* decoded strings */
	size_t		 tmpsz;
	char		 small[256];
	int		 dup;		/* an object named a member twice */
	struct wymcp__json_memo *memo;	/* or NULL */
	int		 memod;		/* the memo was met or set */
};

/* The longest _meta text kept for the next request. */
#define MEMO_MAX	4096

#define BUILD_FAIL	((struct json_object *)(void *)&build_fail)
static char		 build_fail;

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	return (c | 0x20) - 'a' + 10;
}

static unsigned int
hex4(const char *p)
{
	return (unsigned int)(hexval(p[0]) << 12 | hexval(p[1]) << 8 |
	    hexval(p[2]) << 4 | hexval(p[3]));
}

/* Append code point c as UTF-8 at d; returns the new end. */
static char *
put_utf8(char *d, unsigned int c)
{
	if (c < 0x80)
		*d++ = (char)c;
	else if (c < 0x800) {
		*d++ = (char)(0xc0 | c >> 6);
		*d++ = (char)(0x80 | (c & 0x3f));
	} else if (c < 0x10000) {
		*d++ = (char)(0xe0 | c >> 12);
		*d++ = (char)(0x80 | ((c >> 6) & 0x3f));
		*d++ = (char)(0x80 | (c & 0x3f));
	} else {
		*d++ = (char)(0xf0 | ((c >> 18) & 0x07));
		*d++ = (char)(0x80 | ((c >> 12) & 0x3f));
		*d++ = (char)(0x80 | ((c >> 6) & 0x3f));
		*d++ = (char)(0x80 | (c & 0x3f));
	}
	return d;
}

#define IS_HIGH(c)	(((c) & 0xfc00) == 0xd800)
#define IS_LOW(c)	(((c) & 0xfc00) == 0xdc00)
#define REPLACEMENT	0xfffd

/*
 * Decode the escapes of string body [s, e) into d (room for e - s + 1
 * bytes: no escape grows), as json-c does: a surrogate pair is one code
 * point, an unpaired surrogate U+FFFD.  Returns the end written.
 */
static char *
unescape(char *d, const char *s, const char *e)
{
	unsigned int	 c, high = 0;

	while (s < e) {
		if (*s != '\\') {
			if (high != 0) {
				d = put_utf8(d, REPLACEMENT);
				high = 0;
			}
			*d++ = *s++;
			continue;
		}
		if (s[1] != 'u') {
			if (high != 0) {
				d = put_utf8(d, REPLACEMENT);
				high = 0;
			}
			switch (s[1]) {
			case 'b':	*d++ = '\b'; break;
			case 'f':	*d++ = '\f'; break;
			case 'n':	*d++ = '\n'; break;
			case 'r':	*d++ = '\r'; break;
			case 't':	*d++ = '\t'; break;
			default:	*d++ = s[1]; break;	/* " \ / */
			}
			s += 2;
			continue;
		}
		c = hex4(s + 2);
		s += 6;
		if (high != 0) {
			if (IS_LOW(c)) {
				c = (((high & 0x3ff) << 10) | (c & 0x3ff)) +
				    0x10000;
				high = 0;
				d = put_utf8(d, c);
				continue;
			}
			d = put_utf8(d, REPLACEMENT);
			high = 0;
		}
		if (IS_HIGH(c))
			high = c;
		else if (IS_LOW(c))
			d = put_utf8(d, REPLACEMENT);
		else
			d = put_utf8(d, c);
	}
	if (high != 0)
		d = put_utf8(d, REPLACEMENT);
	return d;
}

/*
 * The string at p[i] == '"': *sp and *np its bytes (in the text when it
 * has no escape, else decoded into b->tmp, NUL-terminated there).  0,
 * or -1 out of memory.
 */
static int
build_string(struct build *b, const char **sp, size_t *np)
{
	const char	*s = b->p + b->i + 1, *e = s;
	int		 esc = 0;
	char		*t;
	size_t		 need;

	for (; *e != '"'; e++)
		if (*e == '\\') {
			esc = 1;
			e++;
		}
	b->i = (size_t)(e - b->p) + 1;
	if (!esc) {
		*sp = s;
		*np = (size_t)(e - s);
		return 0;
	}
	need = (size_t)(e - s) + 1;
	if (need > b->tmpsz) {
		if ((t = malloc(need)) == NULL)
			return -1;
		if (b->tmp != b->small)
			free(b->tmp);
		b->tmp = t;
		b->tmpsz = need;
	}
	t = unescape(b->tmp, s, e);
	*t = '\0';
	*sp = b->tmp;
	*np = (size_t)(t - b->tmp);
	return 0;
}

static locale_t		 c_locale;
static pthread_once_t	 c_locale_once = PTHREAD_ONCE_INIT;

static void
c_locale_init(void)
{
	c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
}

/* The number at b->p[b->i]; BUILD_FAIL out of memory. */
static struct json_object *
build_number(struct build *b)
{
	const char	*s = b->p + b->i, *e = s;
	char		 buf[64], *t;
	uint64_t	 v = 0;
	double		 d;
	int		 dbl = 0, neg = *s == '-';
	size_t		 n;
	struct json_object *o;

	if (neg)
		e++;
	for (; e < b->p + b->len && ((*e >= '0' && *e <= '9') ||
	    *e == '.' || *e == 'e' || *e == 'E' || *e == '+' || *e == '-');
	    e++)
		if (*e >= '0' && *e <= '9')
			v = v * 10 + (uint64_t)(*e - '0');
		else
			dbl = 1;
	n = (size_t)(e - s);
	b->i += n;
	if (!dbl) {
		/* json_strict() held it to int64 or uint64. */
		if (neg)
			o = json_object_new_int64(v > (uint64_t)INT64_MAX ?
			    INT64_MIN : -(int64_t)v);
		else if (v <= (uint64_t)INT64_MAX)
			o = json_object_new_int64((int64_t)v);
		else
			o = json_object_new_uint64(v);
		return o != NULL ? o : BUILD_FAIL;
	}
	if (n < sizeof(buf))
		t = buf;
	else if ((t = malloc(n + 1)) == NULL)
		return BUILD_FAIL;
	memcpy(t, s, n);
	t[n] = '\0';
	pthread_once(&c_locale_once, c_locale_init);
	d = c_locale != (locale_t)0 ? strtod_l(t, NULL, c_locale) :
	    strtod(t, NULL);
	o = json_object_new_double_s(d, t);
	if (t != buf)
		free(t);
	return o != NULL ? o : BUILD_FAIL;
}

static struct json_object *build(struct build *);

/*
 * A member's value at b->p[b->i].  The first "_meta" object of the
 * text is taken from the memo when the memo holds its very bytes (an
 * object's bytes end where the object ends, so a prefix match is the
 * whole value), else built and kept in the memo.
 */
static struct json_object *
build_member(struct build *b, const char *name)
{
	struct wymcp__json_memo	*m = b->memo;
	struct json_object	*v;
	struct scan		 s;
	size_t			 at;
	char			*t;

	if (m == NULL || b->memod || strcmp(name, "_meta") != 0)
		return build(b);
	at = ws(b->p, b->i, SIZE_MAX);
	if (b->p[at] != '{')
		return build(b);
	b->memod = 1;
	if (m->obj != NULL && m->len <= b->len - at &&
	    memcmp(b->p + at, m->text, m->len) == 0) {
		b->i = at + m->len;
		return json_object_get(m->obj);
	}
	if ((v = build(b)) == BUILD_FAIL || b->i - at > MEMO_MAX)
		return v;
	/* Its nesting and \u0000, for json_strict() to skip it next time. */
	memset(&s, 0, sizeof(s));
	if (json_strict(b->p + at, b->i - at, &s) != 0 ||
	    (t = malloc(b->i - at)) == NULL)
		return v;
	wymcp__json_memo_free(m);
	memcpy(t, b->p + at, b->i - at);
	m->text = t;
	m->len = b->i - at;
	m->depth = s.depth;
	m->nul = s.nul;
	m->obj = json_object_get(v);
	return v;
}

/* Release what the memo holds; it is empty after. */
void
wymcp__json_memo_free(struct wymcp__json_memo *m)
{
	json_object_put(m->obj);
	free(m->text);
	memset(m, 0, sizeof(*m));
}

/*
 * The object at b->p[b->i] ('{'); BUILD_FAIL out of memory or on a
 * duplicate member name (b->dup).
 */
static struct json_object *
build_object(struct build *b)
{
	struct json_object	*o, *v;
	struct lh_table		*t;
	unsigned long		 h;
	const char		*s;
	size_t			 n;
	char			*name;

	if ((o = json_object_new_object()) == NULL)
		return BUILD_FAIL;
	b->i = ws(b->p, b->i + 1, SIZE_MAX);
	if (b->p[b->i] == '}') {
		b->i++;
		return o;
	}
	for (;;) {
		b->i = ws(b->p, b->i, SIZE_MAX);
		if (build_string(b, &s, &n) != 0)
			goto fail;
		/* json-c cuts a member name at U+0000. */
		if ((name = strndup(s, strnlen(s, n))) == NULL)
			goto fail;
		/*
		 * What json_object_object_add_ex() does, hashing the name
		 * once for the duplicate check and the insert.
		 */
		t = json_object_get_object(o);
		h = lh_get_hash(t, name);
		if (lh_table_lookup_entry_w_hash(t, name, h) != NULL) {
			b->dup = 1;
			free(name);
			goto fail;
		}
		b->i = ws(b->p, b->i, SIZE_MAX) + 1;	/* : */
		if ((v = build_member(b, name)) == BUILD_FAIL) {
			free(name);
			goto fail;
		}
		if (lh_table_insert_w_hash(t, name, v, h, 0) != 0) {
			free(name);
			json_object_put(v);
			goto fail;
		}
		b->i = ws(b->p, b->i, SIZE_MAX);
		if (b->p[b->i++] == '}')
			return o;
	}
fail:
	json_object_put(o);
	return BUILD_FAIL;
}

/* The array at b->p[b->i] ('['); BUILD_FAIL as build() says. */
static struct json_object *
build_array(struct build *b)
{
	struct json_object	*o, *v;

	if ((o = json_object_new_array()) == NULL)
		return BUILD_FAIL;
	b->i = ws(b->p, b->i + 1, SIZE_MAX);
	if (b->p[b->i] == ']') {
		b->i++;
		return o;
	}
	for (;;) {
		if ((v = build(b)) == BUILD_FAIL)
			break;
		if (json_object_array_add(o, v) != 0) {
			json_object_put(v);
			break;
		}
		b->i = ws(b->p, b->i, SIZE_MAX);
		if (b->p[b->i++] == ']')
			return o;
	}
	json_object_put(o);
	return BUILD_FAIL;
}

/*
 * The value at b->p[b->i] (white space skipped); NULL for null,
 * BUILD_FAIL out of memory or on a duplicate (b->dup).
 */
static struct json_object *
build(struct build *b)
{
	struct json_object	*o;
	const char		*s;
	size_t			 n;

	b->i = ws(b->p, b->i, SIZE_MAX);
	switch (b->p[b->i]) {
	case '{':
		return build_object(b);
	case '[':
		return build_array(b);
	case '"':
		if (build_string(b, &s, &n) != 0 ||
		    (o = json_object_new_string_len(s, (int)n)) == NULL)
			return BUILD_FAIL;
		return o;
	case 't':
		b->i += 4;
		return (o = json_object_new_boolean(1)) != NULL ? o :
		    BUILD_FAIL;
	case 'f':
		b->i += 5;
		return (o = json_object_new_boolean(0)) != NULL ? o :
		    BUILD_FAIL;
	case 'n':
		b->i += 4;
		return NULL;
	default:
		return build_number(b);
	}
}

/*
 * Parse a request body: strict JSON, UTF-8 validated, nothing but white
 * space after the value, no object naming a member twice (RFC 8259
 * section 4 leaves duplicates to the implementation; json-c would keep
 * the last, while another reader of the same bytes may take the first).
 * Returns a new object (caller puts it), or NULL with *fault saying why
 * (WYMCP__JSON_NULL for the literal null).  A string holding U+0000 is
 * returned with *fault WYMCP__JSON_NUL: the caller refuses it, knowing
 * the request's id.  Nesting past json-c's depth is a syntax error, as
 * json-c's tokener makes it.
 */
struct json_object *
wymcp__parse_ex(const char *buf, size_t len, enum wymcp__json_fault *fault)
{
	return wymcp__parse_why(buf, len, fault, NULL);
}

/*
 * wymcp__parse_ex(), and for a syntax error, what it is and where
 * (`err', when not NULL: a static sentence and a byte offset).
 */
struct json_object *
wymcp__parse_why(const char *buf, size_t len, enum wymcp__json_fault *fault,
    struct wymcp__json_err *err)
{
	return wymcp__parse_memo(buf, len, fault, err, NULL);
}

/* wymcp__parse_why(), taking and keeping "_meta" in `memo' (or NULL). */
struct json_object *
wymcp__parse_memo(const char *buf, size_t len,
    enum wymcp__json_fault *fault, struct wymcp__json_err *err,
    struct wymcp__json_memo *memo)
{
	struct json_object	*obj;
	struct scan		 s;
	struct build		 b;
	const char		*z;
	int			 rc;

	memset(&s, 0, sizeof(s));
	s.memo = memo;
	*fault = WYMCP__JSON_SYNTAX;
	if (err != NULL) {
		err->why = "the body is empty";
		err->at = 0;
	}
	/* json_strict() checks UTF-8: no byte >= 0x80 is valid outside one. */
	if (len == 0 || len > INT32_MAX)
		return NULL;
	if ((z = memchr(buf, '\0', len)) != NULL) {
		if (err != NULL) {
			err->why = "a NUL byte";
			err->at = (size_t)(z - buf);
		}
		return NULL;
	}
	if ((rc = json_strict(buf, len, &s)) != 0) {
		if (rc == -2)
			*fault = WYMCP__JSON_RANGE;
		else if (err != NULL) {
			err->why = s.why != NULL ? s.why : "not JSON";
			err->at = s.at;
		}
		if (rc != -2 && s.why != NULL &&
		    strcmp(s.why, "nesting too deep") == 0)
			goto deep;
		return NULL;
	}
	if (s.depth >= BUILD_DEPTH)
		goto deep;
	b.p = buf;
	b.i = 0;
	b.len = len;
	b.tmp = b.small;
	b.tmpsz = sizeof(b.small);
	b.dup = 0;
	b.memo = memo;
	b.memod = 0;
	obj = build(&b);
	if (b.tmp != b.small)
		free(b.tmp);
	if (obj == NULL) {
		*fault = WYMCP__JSON_NULL;
		return NULL;
	}
	if (obj == BUILD_FAIL) {
		if (b.dup)
			*fault = WYMCP__JSON_DUPLICATE;
		return NULL;
	}
	*fault = s.nul ? WYMCP__JSON_NUL : WYMCP__JSON_OK;
	return obj;
deep:
	if (err != NULL) {
		err->why = "arrays and objects nested deeper than "
		    WYMCP__STR(BUILD_DEPTH_MAX);
		err->at = s.deep_at;
	}
	return NULL;
}

/*
 * Parse JSON held to the same rules; NULL for anything
 * wymcp__parse_ex() faults, U+0000 in a string included.  Returns a new
 * object (caller puts it).
 */
struct json_object *
wymcp__parse(const char *buf, size_t len)
{
	enum wymcp__json_fault	 fault;
	struct json_object	*obj;

	if ((obj = wymcp__parse_ex(buf, len, &fault)) != NULL &&
	    fault != WYMCP__JSON_OK) {
		json_object_put(obj);
		obj = NULL;
	}
	return obj;
}

/*
 * Why wymcp__parse() refused valid-looking input: 1 when the text is
 * well-formed JSON that json-c cannot hold exactly (an integer beyond
 * 64 bits), else 0.
 */
int
wymcp__json_range(const char *buf, size_t len)
{
	return json_strict(buf, len, NULL) == -2;
}

/* 1 when the text is the JSON literal null, white space aside. */
int
wymcp__is_null(const char *buf, size_t len)
{
	while (len > 0 && (*buf == ' ' || *buf == '\t' || *buf == '\n' ||
	    *buf == '\r')) {
		buf++;
		len--;
	}
	while (len > 0 && (buf[len - 1] == ' ' || buf[len - 1] == '\t' ||
	    buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		len--;
	return len == 4 && memcmp(buf, "null", 4) == 0;
}

/*
 * Compact serialization as it goes on the wire: no spaces, no escaped
 * slashes.  Owned by `obj` (valid until it is modified or freed).
 */
const char *
wymcp__json(struct json_object *obj)
{
	return json_object_to_json_string_ext(obj,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

/*
 * An id as wymcp__json() writes it, for logs: an integer's digits
 * written here, into the arena (json-c would give the id a printbuf and
 * snprintf), anything else by json-c.  NULL when out of memory.
 */
const char *
wymcp__json_id(struct wymcp__arena *a, struct json_object *id)
{
	char		 num[24], *p;
	int64_t		 v;
	uint64_t	 u;
	size_t		 k = sizeof(num);

	if (!json_object_is_type(id, json_type_int) ||
	    (v = json_object_get_int64(id)) == INT64_MAX)
		return wymcp__json(id);		/* INT64_MAX: maybe a uint64 */
	u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	do {
		num[--k] = (char)('0' + u % 10);
	} while ((u /= 10) != 0);
	if (v < 0)
		num[--k] = '-';
	if ((p = wymcp__arena_alloc(a, sizeof(num) - k + 1)) == NULL)
		return NULL;
	memcpy(p, num + k, sizeof(num) - k);
	return p;
}

/* Make room for n more bytes and a NUL; 0 or -1. */
static int
buf_room(struct wymcp__buf *b, size_t n)
{
	size_t	 cap;
	char	*p;

	if (b->cap - b->len > n)
		return 0;
	if (n > SIZE_MAX / 4 - b->len)
		return -1;
	for (cap = b->cap == 0 ? 1024 : b->cap; cap - b->len <= n; cap *= 2)
		continue;
	if ((p = realloc(b->p, cap)) == NULL)
		return -1;
	b->p = p;
	b->cap = cap;
	return 0;
}

static int
buf_put(struct wymcp__buf *b, const char *s, size_t n)
{
	if (buf_room(b, n))
		return -1;
	memcpy(b->p + b->len, s, n);
	b->len += n;
	return 0;
}

/*
 * A string as json-c 0.16's json_escape_str() writes it with
 * JSON_C_TO_STRING_NOSLASHESCAPE: quotes, backslash and \b \f \n \r \t
 * by their escapes, other bytes below 0x20 as \u00xx (lower-case hex),
 * everything else as it is.
 */
static const unsigned char esc[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['"'] = 1, ['\\'] = 1
};

static int
buf_string(struct wymcp__buf *b, const char *s, size_t n)
{
	static const char	 hex[] = "0123456789abcdef";
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 i, run;
	char			*d;
	unsigned char		 c;

	/* At most 6 bytes out for one in, and the quotes. */
	if (n > SIZE_MAX / 8 || buf_room(b, n * 6 + 2))
		return -1;
	d = b->p + b->len;
	*d++ = '"';
	for (i = 0; i < n; ) {
		for (run = i; run < n && !esc[p[run]]; run++)
			continue;
		memcpy(d, p + i, run - i);
		d += run - i;
		if ((i = run) == n)
			break;
		c = p[i++];
		*d++ = '\\';
		switch (c) {
		case '"':	*d++ = '"'; break;
		case '\\':	*d++ = '\\'; break;
		case '\b':	*d++ = 'b'; break;
		case '\f':	*d++ = 'f'; break;
		case '\n':	*d++ = 'n'; break;
		case '\r':	*d++ = 'r'; break;
		case '\t':	*d++ = 't'; break;
		default:
			*d++ = 'u';
			*d++ = '0';
			*d++ = '0';
			*d++ = hex[c >> 4];
			*d++ = hex[c & 0xf];
			break;
		}
	}
	*d++ = '"';
	b->len = (size_t)(d - b->p);
	return 0;
}

/* An integer as json-c writes it: int64 or uint64, decimal. */
static int
buf_int(struct wymcp__buf *b, struct json_object *o)
{
	char		 num[24];
	size_t		 k = sizeof(num);
	int64_t		 v = json_object_get_int64(o);
	uint64_t	 u;

	/* INT64_MAX: maybe a uint64 beyond it. */
	u = v == INT64_MAX ? json_object_get_uint64(o) :
	    v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
	do {
		num[--k] = (char)('0' + u % 10);
	} while ((u /= 10) != 0);
	if (v < 0)
		num[--k] = '-';
	return buf_put(b, num + k, sizeof(num) - k);
}

/*
 * A node json-c writes itself (a double, or anything with a serializer
 * of its own: json_object_new_double_s(), frozen listings), through its
 * own printbuf: a frozen node made one when it was frozen, and only the
 * thread serving requests, one at a time (as for the read buffer),
 * writes responses.
 */
static int
buf_jsonc(struct wymcp__buf *b, struct json_object *o)
{
	const char	*s;
	size_t		 n;

	if ((s = json_object_to_json_string_length(o,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE,
	    &n)) == NULL)
		return -1;
	return buf_put(b, s, n);
}

static int
buf_value(struct wymcp__buf *b, struct json_object *o)
{
	size_t	 i, n;
	int	 first = 1;

	if (o == NULL)
		return buf_put(b, "null", 4);
	/* A serializer of its own (its userdata: double_s, frozen). */
	if (json_object_get_userdata(o) != NULL)
		return buf_jsonc(b, o);
	switch (json_object_get_type(o)) {
	case json_type_object:
		if (buf_put(b, "{", 1))
			return -1;
		json_object_object_foreach(o, k, v) {
			if ((!first && buf_put(b, ",", 1)) ||
			    buf_string(b, k, strlen(k)) ||
			    buf_put(b, ":", 1) || buf_value(b, v))
				return -1;
			first = 0;
		}
		return buf_put(b, "}", 1);
	case json_type_array:
		if (buf_put(b, "[", 1))
			return -1;
		n = json_object_array_length(o);
		for (i = 0; i < n; i++)
			if ((i > 0 && buf_put(b, ",", 1)) ||
			    buf_value(b, json_object_array_get_idx(o, i)))
				return -1;
		return buf_put(b, "]", 1);
	case json_type_string:
		return buf_string(b, json_object_get_string(o),
		    (size_t)json_object_get_string_len(o));
	case json_type_int:
		return buf_int(b, o);
	case json_type_boolean:
		return json_object_get_boolean(o) ? buf_put(b, "true", 4) :
		    buf_put(b, "false", 5);
	default:
		return buf_jsonc(b, o);
	}
}

/*
 * Write `o` as wymcp__json() would, appended to b (NUL-terminated after
 * b->len), without json-c's printbufs: the reply path writes into one
 * buffer kept from request to request.  A node with a serializer of its
 * own is written by json-c, found by its userdata (every serializer
 * json-c and wymcp set has one).  0, or -1 out of memory.
 */
int
wymcp__json_write(struct wymcp__buf *b, struct json_object *o)
{
	if (buf_value(b, o) || buf_room(b, 0))
		return -1;
	b->p[b->len] = '\0';
	return 0;
}

/* Append n raw bytes to b (not NUL-terminated).  0, or -1 out of memory. */
int
wymcp__buf_put(struct wymcp__buf *b, const void *s, size_t n)
{
	return buf_put(b, s, n);
}

/*
 * Append the member `"key":value` to b, after `sep` ('{' before the
 * first, ',' before the others): an object written from members held
 * elsewhere than in a json-c object.  0, or -1 out of memory.
 */
int
wymcp__json_write_member(struct wymcp__buf *b, char sep, const char *key,
    struct json_object *v)
{
	return buf_put(b, &sep, 1) || buf_string(b, key, strlen(key)) ||
	    buf_put(b, ":", 1) || wymcp__json_write(b, v) ? -1 : 0;
}

/* Append the closing brace of such an object (NUL-terminated). */
int
wymcp__json_write_end(struct wymcp__buf *b)
{
	if (buf_put(b, "}", 1) || buf_room(b, 0))
		return -1;
	b->p[b->len] = '\0';
	return 0;
}

void
wymcp__buf_free(struct wymcp__buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/*
 * Add the string member `k' to `o' when `v' is not NULL (nothing when
 * it is).  Returns 0, or -1 on allocation failure.
 */
int
wymcp__put_str(struct json_object *o, const char *k, const char *v)
{
	struct json_object	*s;

	if (v == NULL)
		return 0;
	if ((s = json_object_new_string(v)) == NULL)
		return -1;
	if (json_object_object_add(o, k, s)) {
		json_object_put(s);
		return -1;
	}
	return 0;
}

/*
 * Add the member `k`, a string literal (json-c keeps the pointer: no
 * copy, no free), to `o`, which does not have it (no lookup): the
 * members of an object wymcp builds.  v is put on failure.  0 or -1.
 */
int
wymcp__put_new(struct json_object *o, const char *k, struct json_object *v)
{
	if (json_object_object_add_ex(o, k, v, JSON_C_OBJECT_ADD_KEY_IS_NEW |
	    JSON_C_OBJECT_ADD_CONSTANT_KEY) == 0)
		return 0;
	json_object_put(v);
	return -1;
}

/*
 * A frozen object's serialization, computed once (wymcp__json_freeze()).
 */
struct frozen {
	size_t	 len;
	char	 text[];
};

static int
frozen_out(struct json_object *o, struct printbuf *pb, int level, int flags)
{
	const struct frozen	*f = json_object_get_userdata(o);

	(void)level;
	(void)flags;
	return printbuf_memappend(pb, f->text, (int)f->len);
}

static void
frozen_free(struct json_object *o, void *ud)
{
	(void)o;
	free(ud);
}

/*
 * Serialize `o` once, compactly, and make that its serialization from
 * now on: a listing object written into every list response costs a
 * copy instead of a walk.  The object must not change afterwards.  0,
 * or -1 when out of memory (o is then unchanged).
 */
int
wymcp__json_freeze(struct json_object *o)
{
	struct frozen	*f;
	const char	*s = wymcp__json(o);
	size_t		 len = strlen(s);

	if ((f = malloc(sizeof(*f) + len + 1)) == NULL)
		return -1;
	f->len = len;
	memcpy(f->text, s, len + 1);
	json_object_set_serializer(o, frozen_out, f, frozen_free);
	return 0;
}
