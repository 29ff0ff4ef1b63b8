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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/lib.h"

/*
 * A strict RFC 8259 syntax check, one pass over the bytes, before json-c
 * builds anything: json-c 0.16 accepts single-quoted strings, raw
 * control characters in strings, NaN, Infinity and "1." even with
 * JSON_TOKENER_STRICT, keeps the text of doubles to write it back, and
 * saturates integers beyond 64 bits (an id would come back changed).
 * Returns 0, -1 for a syntax error, -2 for an integer out of range.
 * UTF-8 is checked separately.
 *
 * The scan also notes, when given a struct scan, how many members each
 * object has (in document order) and whether a string holds the escape
 * \u0000.  json-c keeps the last of two members of the same name and
 * cuts member names at U+0000 (so "a\u0000b" and "a" collide, as do
 * two unpaired surrogates, both U+FFFD): counting what was written
 * against what json-c built finds every duplicate json-c merged,
 * however it was spelled (dup_members()).
 */
#define SCAN_DEPTH	64
#define SCAN_SMALL	16	/* objects counted without malloc */

struct scan {
	uint32_t	*counts;	/* members per object, document order */
	size_t		 nobj;		/* objects seen */
	size_t		 cap;		/* room in counts */
	uint32_t	 small[SCAN_SMALL];
	int		 nul;		/* a string holds \u0000 */
	int		 nomem;		/* counts could not grow */
};

/* Start counting object i (document order); 0 or -1. */
static int
scan_object(struct scan *s, size_t *i)
{
	uint32_t	*n;
	size_t		 cap;

	if (s == NULL)
		return 0;
	if (s->counts == NULL) {
		s->counts = s->small;
		s->cap = SCAN_SMALL;
	}
	if (s->nobj == s->cap) {
		cap = s->cap * 2;
		if (s->counts == s->small) {
			if ((n = reallocarray(NULL, cap, sizeof(*n))) != NULL)
				memcpy(n, s->small, sizeof(s->small));
		} else
			n = reallocarray(s->counts, cap, sizeof(*n));
		if (n == NULL) {
			s->nomem = 1;
			return -1;
		}
		s->counts = n;
		s->cap = cap;
	}
	*i = s->nobj;
	s->counts[s->nobj++] = 0;
	return 0;
}

static void
scan_free(struct scan *s)
{
	if (s->counts != s->small)
		free(s->counts);
	s->counts = NULL;
}

/* Skip JSON white space. */
static size_t
ws(const char *p, size_t i, size_t len)
{
	while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' ||
	    p[i] == '\r'))
		i++;
	return i;
}

/*
 * A string starting at p[i] == '"'; returns the index after it or 0.
 * Sets *nul when it holds the escape \u0000.
 */
static size_t
scan_string(const char *p, size_t i, size_t len, int *nul)
{
	size_t	 k;

	for (i++; i < len; i++) {
		if (p[i] == '"')
			return i + 1;
		if ((unsigned char)p[i] < 0x20)
			return 0;
		if (p[i] != '\\')
			continue;
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

static int
json_strict(const char *p, size_t len, struct scan *s)
{
	char	 stack[SCAN_DEPTH];	/* '{' or '[' */
	size_t	 obj[SCAN_DEPTH];	/* an object's index in s->counts */
	size_t	 i = 0, n;
	int	 depth = 0, range = 0, nul = 0;

	/* Expect a value at p[i]. */
value:
	i = ws(p, i, len);
	if (i >= len)
		return -1;
	switch (p[i]) {
	case '{':
	case '[':
		if (depth == SCAN_DEPTH)
			return -1;
		if (p[i] == '{' && scan_object(s, &obj[depth]) != 0)
			return -1;
		stack[depth++] = p[i];
		i = ws(p, i + 1, len);
		if (i < len && p[i] == (stack[depth - 1] == '{' ? '}' : ']')) {
			depth--;
			i++;
			goto after;
		}
		if (stack[depth - 1] == '{')
			goto key;
		goto value;
	case '"':
		if ((n = scan_string(p, i, len, &nul)) == 0)
			return -1;
		i = n;
		goto after;
	case 't':
		n = 4;
		if (len - i < n || memcmp(p + i, "true", n) != 0)
			return -1;
		i += n;
		goto after;
	case 'f':
		n = 5;
		if (len - i < n || memcmp(p + i, "false", n) != 0)
			return -1;
		i += n;
		goto after;
	case 'n':
		n = 4;
		if (len - i < n || memcmp(p + i, "null", n) != 0)
			return -1;
		i += n;
		goto after;
	default:
		if ((n = scan_number(p, i, len, &range)) == 0)
			return -1;
		i = n;
		goto after;
	}
	/* Expect a member name and a colon, then a value. */
key:
	i = ws(p, i, len);
	if (i >= len || p[i] != '"' || (n = scan_string(p, i, len, &nul)) == 0)
		return -1;
	if (s != NULL)
		s->counts[obj[depth - 1]]++;
	i = ws(p, n, len);
	if (i >= len || p[i] != ':')
		return -1;
	i++;
	goto value;
	/* After a value: a separator, a close, or the end. */
after:
	i = ws(p, i, len);
	if (depth == 0) {
		if (s != NULL)
			s->nul = nul;
		return i == len ? (range ? -2 : 0) : -1;
	}
	if (i >= len)
		return -1;
	if (p[i] == ',') {
		i++;
		if (stack[depth - 1] == '{')
			goto key;
		goto value;
	}
	if (p[i] == (stack[depth - 1] == '{' ? '}' : ']')) {
		depth--;
		i++;
		goto after;
	}
	return -1;
}

/*
 * Walk what json-c built in document order against the scan's member
 * counts: an object with fewer members than were written had two of the
 * same name.  Returns 1 when one did, else 0.
 */
static int
dup_members(struct json_object *o, const struct scan *s, size_t *i)
{
	size_t	 k, n;

	switch (json_object_get_type(o)) {
	case json_type_object:
		if (*i >= s->nobj ||
		    (uint32_t)json_object_object_length(o) != s->counts[*i])
			return 1;
		(*i)++;
		json_object_object_foreach(o, key, v) {
			(void)key;
			if (dup_members(v, s, i))
				return 1;
		}
		return 0;
	case json_type_array:
		n = json_object_array_length(o);
		for (k = 0; k < n; k++)
			if (dup_members(json_object_array_get_idx(o, k), s, i))
				return 1;
		return 0;
	default:
		return 0;
	}
}

/* json-c's parse of text the scan passed; NULL when it fails. */
static struct json_object *
tokenize(const char *buf, size_t len)
{
	struct json_tokener	*tok;
	struct json_object	*obj = NULL;
	size_t			 off;

	if ((tok = json_tokener_new()) == NULL)
		return NULL;
	json_tokener_set_flags(tok,
	    JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	obj = json_tokener_parse_ex(tok, buf, (int)len);
	/*
	 * A bare number or literal at the very end of the input is not
	 * finished until the tokener sees its end: feed it the NUL.
	 */
	if (obj == NULL &&
	    json_tokener_get_error(tok) == json_tokener_continue) {
		obj = json_tokener_parse_ex(tok, "", 1);
		if (json_tokener_get_error(tok) != json_tokener_success) {
			json_object_put(obj);
			obj = NULL;
		}
		goto out;	/* all of buf was consumed */
	}
	if (json_tokener_get_error(tok) != json_tokener_success) {
		json_object_put(obj);
		obj = NULL;
		goto out;
	}
	for (off = json_tokener_get_parse_end(tok); off < len; off++)
		if (buf[off] != ' ' && buf[off] != '\t' && buf[off] != '\n' &&
		    buf[off] != '\r') {
			json_object_put(obj);
			obj = NULL;
			break;
		}
out:
	json_tokener_free(tok);
	return obj;
}

/*
 * Parse a request body: strict JSON, UTF-8 validated, nothing but white
 * space after the value, no object naming a member twice (RFC 8259
 * section 4 leaves duplicates to the implementation; json-c would keep
 * the last, while another reader of the same bytes may take the first).
 * Returns a new object (caller puts it), or NULL with *fault saying why
 * (WYMCP__JSON_NULL for the literal null, which json-c cannot return).
 * A string holding U+0000 is returned with *fault WYMCP__JSON_NUL: the
 * caller refuses it, knowing the request's id.
 */
struct json_object *
wymcp__parse_ex(const char *buf, size_t len, enum wymcp__json_fault *fault)
{
	struct json_object	*obj = NULL;
	struct scan		 s;
	size_t			 i = 0;
	int			 rc;

	memset(&s, 0, sizeof(s));
	*fault = WYMCP__JSON_SYNTAX;
	if (len == 0 || len > INT32_MAX || memchr(buf, '\0', len) != NULL ||
	    !wymcp__utf8_valid(buf, len))
		return NULL;
	if ((rc = json_strict(buf, len, &s)) != 0) {
		if (s.nomem)
			*fault = WYMCP__JSON_NOMEM;
		else if (rc == -2)
			*fault = WYMCP__JSON_RANGE;
		goto out;
	}
	/* json-c fails on null, on nesting past its depth, on memory. */
	if ((obj = tokenize(buf, len)) == NULL) {
		if (wymcp__is_null(buf, len))
			*fault = WYMCP__JSON_NULL;
		goto out;
	}
	if (dup_members(obj, &s, &i) || i != s.nobj) {
		json_object_put(obj);
		obj = NULL;
		*fault = WYMCP__JSON_DUPLICATE;
		goto out;
	}
	*fault = s.nul ? WYMCP__JSON_NUL : WYMCP__JSON_OK;
out:
	scan_free(&s);
	return obj;
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
