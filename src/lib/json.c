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
 */
#define SCAN_DEPTH	64

/* Skip JSON white space. */
static size_t
ws(const char *p, size_t i, size_t len)
{
	while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' ||
	    p[i] == '\r'))
		i++;
	return i;
}

/* A string starting at p[i] == '"'; returns the index after it or 0. */
static size_t
scan_string(const char *p, size_t i, size_t len)
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
json_strict(const char *p, size_t len)
{
	char	 stack[SCAN_DEPTH];	/* '{' or '[' */
	size_t	 i = 0, n;
	int	 depth = 0, range = 0;

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
		if ((n = scan_string(p, i, len)) == 0)
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
	if (i >= len || p[i] != '"' || (n = scan_string(p, i, len)) == 0)
		return -1;
	i = ws(p, n, len);
	if (i >= len || p[i] != ':')
		return -1;
	i++;
	goto value;
	/* After a value: a separator, a close, or the end. */
after:
	i = ws(p, i, len);
	if (depth == 0)
		return i == len ? (range ? -2 : 0) : -1;
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
 * Parse a request body.  Strict JSON, UTF-8 validated, nothing but
 * white space after the value.  Returns a new object (caller puts it) or
 * NULL when the body is not JSON, or is the JSON literal null (see
 * wymcp__is_null()).
 */
struct json_object *
wymcp__parse(const char *buf, size_t len)
{
	struct json_tokener	*tok;
	struct json_object	*obj = NULL;
	size_t			 off;

	if (len == 0 || len > INT32_MAX || memchr(buf, '\0', len) != NULL ||
	    !wymcp__utf8_valid(buf, len) || json_strict(buf, len) != 0)
		return NULL;
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
 * Why wymcp__parse() refused valid-looking input: 1 when the text is
 * well-formed JSON that json-c cannot hold exactly (an integer beyond
 * 64 bits), else 0.
 */
int
wymcp__json_range(const char *buf, size_t len)
{
	return json_strict(buf, len) == -2;
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
