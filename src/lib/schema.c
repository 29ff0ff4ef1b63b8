/* schema.c - the JSON Schema subset that checks tool arguments */
/*
 * The keywords are those of JSON Schema 2020-12 ("JSON Schema Core" and
 * "JSON Schema Validation", draft-bhutton-json-schema-01 and
 * draft-bhutton-json-schema-validation-01):
 *
 *   Core, applicators (Core 10):  allOf anyOf oneOf not  if then else
 *	properties additionalProperties  prefixItems items
 *   Core, references (Core 8.2.3): $ref to "#", "#/json/pointer"
 *	(RFC 6901 in a URI fragment) and "#anchor" ($anchor, Core 8.2.2),
 *	always against the root schema passed in.  Any other $ref is
 *	treated as valid: it is never fetched (Core 9.4.1 forbids
 *	dereferencing network references automatically).
 *   Validation 6.1:  type enum const
 *   Validation 6.2:  minimum maximum exclusiveMinimum exclusiveMaximum
 *   Validation 6.3:  minLength maxLength (code points)
 *   Validation 6.4:  minItems maxItems uniqueItems
 *   Validation 6.5:  required minProperties maxProperties
 *
 * Every other keyword (format, pattern, patternProperties, title, ...) is
 * ignored; because patternProperties is ignored, additionalProperties is
 * not enforced in a schema object that has it.  Boolean schemas are
 * honoured.  A subschema that is neither an object nor a boolean fails
 * closed.
 *
 * Both the schema and the instance are untrusted.  Work is bounded by a
 * nesting limit (MAXDEPTH nested evaluations, which catches $ref cycles)
 * and a step budget (MAXSTEPS, which catches exponential schemas); both
 * abort the whole evaluation as invalid, even under "not".  Nothing is
 * allocated: paths for messages are kept as a chain of stack frames and
 * rendered only when a message is written.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/lib.h"

#define MAXDEPTH	64		/* nested schema evaluations */
/* Keywords, values and nodes visited; fuzz builds may lower it. */
#ifndef WYMCP__SCHEMA_MAXSTEPS
#define WYMCP__SCHEMA_MAXSTEPS	(1UL << 22)
#endif
#define MAXSTEPS	((unsigned long)WYMCP__SCHEMA_MAXSTEPS)
#define MAXSEG		256		/* a decoded JSON Pointer token */

/* Results of an evaluation; V_ABORT stops everything. */
#define V_FAIL		0
#define V_OK		1
#define V_ABORT		(-2)

/* One step from the instance root: an object key or an array index. */
struct seg {
	const struct seg	*up;
	const char		*key;	/* NULL for an array index */
	size_t			 idx;
};

/* The state of one wymcp__schema_validate() call. */
struct vstate {
	struct json_object	*root;		/* for $ref */
	char			*err;
	size_t			 errlen;
	unsigned long		 steps;
	int			 depth;
	int			 quiet;		/* inside anyOf, not, if... */
	int			 written;	/* err holds the reason */
	int			 aborted;	/* a limit was hit */
};

/* A bounded string being built in a caller's buffer. */
struct ebuf {
	char	*p;
	size_t	 len;
	size_t	 cap;		/* > 0 */
	int	 trunc;
};

/* A JSON number as json-c holds it. */
struct num {
	int		 kind;
#define NUM_INT		0	/* i */
#define NUM_UINT	1	/* u, above INT64_MAX */
#define NUM_DBL		2	/* d */
	int64_t		 i;
	uint64_t	 u;
	double		 d;
};

static int	eval(struct vstate *, struct json_object *,
		    struct json_object *, const struct seg *);

/*
 * Append len bytes of s to the buffer, truncating.
 */
static void
eb_put(struct ebuf *eb, const char *s, size_t len)
{
	size_t	 room;

	room = eb->cap - 1 - eb->len;
	if (len > room) {
		len = room;
		eb->trunc = 1;
	}
	memcpy(eb->p + eb->len, s, len);
	eb->len += len;
	eb->p[eb->len] = '\0';
}

/*
 * Append formatted text to the buffer, truncating.
 */
static void WYMCP_PRINTF(2, 0)
eb_vprintf(struct ebuf *eb, const char *fmt, va_list ap)
{
	size_t	 room;
	int	 n;

	room = eb->cap - eb->len;
	n = vsnprintf(eb->p + eb->len, room, fmt, ap);
	if (n < 0) {
		eb->p[eb->len] = '\0';
		return;
	}
	if ((size_t)n >= room) {
		eb->len = eb->cap - 1;
		eb->trunc = 1;
	} else
		eb->len += (size_t)n;
}

/*
 * eb_vprintf() with the arguments inline.
 */
static void WYMCP_PRINTF(2, 3)
eb_printf(struct ebuf *eb, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	eb_vprintf(eb, fmt, ap);
	va_end(ap);
}

/*
 * Finish a message: drop a UTF-8 sequence cut by truncation and replace
 * control bytes, so the sentence is safe for logs and JSON strings.
 */
static void
eb_finish(struct ebuf *eb)
{
	size_t		 i, back, need;
	unsigned char	 c;

	if (eb->trunc) {
		i = eb->len;
		back = 0;
		while (i > 0 && back < 3 &&
		    ((unsigned char)eb->p[i - 1] & 0xc0) == 0x80) {
			i--;
			back++;
		}
		if (i > 0) {
			c = (unsigned char)eb->p[i - 1];
			need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 :
			    c >= 0xc0 ? 2 : 1;
			if (need > back + 1) {
				eb->len = i - 1;
				eb->p[eb->len] = '\0';
			}
		}
	}
	for (i = 0; i < eb->len; i++) {
		c = (unsigned char)eb->p[i];
		if (c < 0x20 || c == 0x7f)
			eb->p[i] = '?';
	}
}

/*
 * Write a plain reason into err (load-time checks).
 */
static void WYMCP_PRINTF(3, 4)
seterr(char *err, size_t errlen, const char *fmt, ...)
{
	struct ebuf	 eb;
	va_list		 ap;

	if (err == NULL || errlen == 0)
		return;
	eb.p = err;
	eb.len = 0;
	eb.cap = errlen;
	eb.trunc = 0;
	err[0] = '\0';
	va_start(ap, fmt);
	eb_vprintf(&eb, fmt, ap);
	va_end(ap);
	eb_finish(&eb);
}

/*
 * How much of a member name from the instance a message quotes: at
 * most WYMCP__QUOTE_MAX bytes, cut on a UTF-8 boundary (the rest is
 * shown as "...").
 */
static int
keylen(const char *k, const char **more)
{
	size_t	 n = strlen(k);

	*more = "";
	if (n <= WYMCP__QUOTE_MAX)
		return (int)n;
	n = WYMCP__QUOTE_MAX;
	while (n > 0 && ((unsigned char)k[n] & 0xc0) == 0x80)
		n--;
	*more = "...";
	return (int)n;
}

/*
 * Render the instance path as a JSON Pointer (RFC 6901), root first.
 * The chain is at most MAXDEPTH long, so the recursion is bounded.
 */
static void
eb_path(struct ebuf *eb, const struct seg *sg)
{
	const char	*k, *more;
	int		 n;

	if (sg == NULL)
		return;
	eb_path(eb, sg->up);
	if (sg->key == NULL) {
		eb_printf(eb, "/%zu", sg->idx);
		return;
	}
	eb_put(eb, "/", 1);
	n = keylen(sg->key, &more);
	for (k = sg->key; k < sg->key + n; k++) {
		if (*k == '~')
			eb_put(eb, "~0", 2);
		else if (*k == '/')
			eb_put(eb, "~1", 2);
		else
			eb_put(eb, k, 1);
	}
	eb_put(eb, more, strlen(more));
}

/*
 * Record why the instance failed at sg and return V_FAIL.  Nothing is
 * written inside anyOf, oneOf, not and if, or once a reason is held.
 * The reason reads "property 'city': ..." for a top-level member and
 * "value at '/a/0/b': ..." deeper down.
 */
static int WYMCP_PRINTF(3, 4)
vfail(struct vstate *st, const struct seg *sg, const char *fmt, ...)
{
	struct ebuf	 eb;
	va_list		 ap;
	const char	*more;
	int		 n;

	if (st->quiet || st->written || st->err == NULL || st->errlen == 0)
		return V_FAIL;
	eb.p = st->err;
	eb.len = 0;
	eb.cap = st->errlen;
	eb.trunc = 0;
	st->err[0] = '\0';
	if (sg != NULL && sg->up == NULL && sg->key != NULL) {
		n = keylen(sg->key, &more);
		eb_printf(&eb, "property '%.*s%s': ", n, sg->key, more);
	}
	else if (sg != NULL) {
		eb_put(&eb, "value at '", 10);
		eb_path(&eb, sg);
		eb_put(&eb, "': ", 3);
	}
	va_start(ap, fmt);
	eb_vprintf(&eb, fmt, ap);
	va_end(ap);
	eb_finish(&eb);
	st->written = 1;
	return V_FAIL;
}

/*
 * Stop the whole evaluation (nesting or budget exceeded).  The reason is
 * written even when quiet, because it ends the validation.
 */
static int
vabort(struct vstate *st, const char *why)
{
	st->aborted = 1;
	if (!st->written && st->err != NULL && st->errlen > 0) {
		seterr(st->err, st->errlen, "%s", why);
		st->written = 1;
	}
	return V_ABORT;
}

/*
 * Charge one step against the budget.  Returns 0 when exhausted.
 */
static int
step(struct vstate *st)
{
	return ++st->steps <= MAXSTEPS;
}

/*
 * Read a JSON number.  Returns 0 if o is not a number.  json-c keeps
 * integers as int64 or, above INT64_MAX, as uint64.
 */
static int
getnum(struct json_object *o, struct num *n)
{
	switch (json_object_get_type(o)) {
	case json_type_int:
		n->i = json_object_get_int64(o);
		n->kind = NUM_INT;
		if (n->i == INT64_MAX) {
			n->u = json_object_get_uint64(o);
			if (n->u > (uint64_t)INT64_MAX)
				n->kind = NUM_UINT;
		}
		return 1;
	case json_type_double:
		n->d = json_object_get_double(o);
		n->kind = NUM_DBL;
		return 1;
	default:
		return 0;
	}
}

/*
 * Compare an int64 with a double exactly: -1, 0, 1, or 2 for NaN.
 */
static int
cmp_id(int64_t i, double d)
{
	int64_t	 t;
	double	 f;

	if (isnan(d))
		return 2;
	if (d >= 9223372036854775808.0)
		return -1;
	if (d < -9223372036854775808.0)
		return 1;
	t = (int64_t)d;			/* exact: d is within range */
	if (i != t)
		return i < t ? -1 : 1;
	f = d - (double)t;
	return f > 0 ? -1 : f < 0 ? 1 : 0;
}

/*
 * Compare a uint64 with a double exactly, as cmp_id().
 */
static int
cmp_ud(uint64_t u, double d)
{
	uint64_t t;
	double	 f;

	if (isnan(d))
		return 2;
	if (d < 0)
		return 1;
	if (d >= 18446744073709551616.0)
		return -1;
	t = (uint64_t)d;
	if (u != t)
		return u < t ? -1 : 1;
	f = d - (double)t;
	return f > 0 ? -1 : 0;
}

/*
 * Compare two numbers by value (so 1 equals 1.0): -1, 0, 1, or 2 when
 * unordered (NaN, which json-c's lenient parser accepts).
 */
static int
numcmp(const struct num *a, const struct num *b)
{
	int	 r;

	if (a->kind == NUM_DBL && b->kind == NUM_DBL) {
		if (isnan(a->d) || isnan(b->d))
			return 2;
		return a->d < b->d ? -1 : a->d > b->d ? 1 : 0;
	}
	if (a->kind == NUM_DBL || b->kind == NUM_DBL) {
		r = b->kind == NUM_DBL ?
		    (a->kind == NUM_INT ? cmp_id(a->i, b->d) :
		    cmp_ud(a->u, b->d)) :
		    (b->kind == NUM_INT ? cmp_id(b->i, a->d) :
		    cmp_ud(b->u, a->d));
		if (r == 2 || b->kind == NUM_DBL)
			return r;
		return -r;
	}
	if (a->kind == NUM_UINT && b->kind == NUM_UINT)
		return a->u < b->u ? -1 : a->u > b->u ? 1 : 0;
	if (a->kind == NUM_UINT)
		return 1;
	if (b->kind == NUM_UINT)
		return -1;
	return a->i < b->i ? -1 : a->i > b->i ? 1 : 0;
}

/*
 * Whether a number has an integral value (Validation 6.1.1: 1.0 is an
 * integer).  Every double of magnitude 2^53 or more is integral.
 */
static int
num_integral(const struct num *n)
{
	double	 a;

	if (n->kind != NUM_DBL)
		return 1;
	if (!isfinite(n->d))
		return 0;
	a = n->d < 0 ? -n->d : n->d;
	if (a >= 9007199254740992.0)
		return 1;
	return n->d == (double)(int64_t)n->d;
}

/*
 * The JSON Schema type name of an instance, for messages.
 */
static const char *
type_name(struct json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_null:
		return "null";
	case json_type_boolean:
		return "boolean";
	case json_type_int:
		return "integer";
	case json_type_double:
		return "number";
	case json_type_string:
		return "string";
	case json_type_array:
		return "array";
	case json_type_object:
		return "object";
	default:
		return "unknown";
	}
}

/*
 * Whether the instance is of the named type (Validation 6.1.1).
 */
static int
type_is(struct json_object *o, const char *name)
{
	struct num	 n;

	switch (json_object_get_type(o)) {
	case json_type_null:
		return strcmp(name, "null") == 0;
	case json_type_boolean:
		return strcmp(name, "boolean") == 0;
	case json_type_int:
	case json_type_double:
		if (strcmp(name, "number") == 0)
			return 1;
		if (strcmp(name, "integer") != 0)
			return 0;
		return getnum(o, &n) && num_integral(&n);
	case json_type_string:
		return strcmp(name, "string") == 0;
	case json_type_array:
		return strcmp(name, "array") == 0;
	case json_type_object:
		return strcmp(name, "object") == 0;
	default:
		return 0;
	}
}

/*
 * Deep JSON equality for enum, const and uniqueItems (Core 4.2.2:
 * numbers compare by value, objects ignore member order).  Returns 1, 0,
 * or V_ABORT when the values nest too deep or the budget runs out.
 */
static int
jeq(struct vstate *st, struct json_object *a, struct json_object *b,
    int depth)
{
	struct json_object	*bv;
	struct num		 na, nb;
	size_t			 i, len;
	int			 rc;

	if (!step(st))
		return vabort(st, "schema too complex to evaluate");
	if (depth > MAXDEPTH)
		return vabort(st, "value nesting too deep");
	if (getnum(a, &na) && getnum(b, &nb))
		return numcmp(&na, &nb) == 0;
	if (json_object_get_type(a) != json_object_get_type(b))
		return 0;
	switch (json_object_get_type(a)) {
	case json_type_null:
		return 1;
	case json_type_boolean:
		return !json_object_get_boolean(a) ==
		    !json_object_get_boolean(b);
	case json_type_string:
		len = (size_t)json_object_get_string_len(a);
		return len == (size_t)json_object_get_string_len(b) &&
		    memcmp(json_object_get_string(a),
		    json_object_get_string(b), len) == 0;
	case json_type_array:
		len = json_object_array_length(a);
		if (len != json_object_array_length(b))
			return 0;
		for (i = 0; i < len; i++) {
			rc = jeq(st, json_object_array_get_idx(a, i),
			    json_object_array_get_idx(b, i), depth + 1);
			if (rc != 1)
				return rc;
		}
		return 1;
	case json_type_object:
		if (json_object_object_length(a) !=
		    json_object_object_length(b))
			return 0;
		{
			json_object_object_foreach(a, key, av) {
				if (!json_object_object_get_ex(b, key, &bv))
					return 0;
				rc = jeq(st, av, bv, depth + 1);
				if (rc != 1)
					return rc;
			}
		}
		return 1;
	default:
		return 0;
	}
}

/*
 * Decode one JSON Pointer token of length len (RFC 6901 section 4, in a
 * URI fragment so percent-encoded, RFC 3986 2.1) into buf.  Returns 0 on
 * a bad escape, an embedded NUL or a token longer than MAXSEG - 1.
 */
static int
ptr_token(const char *s, size_t len, char *buf)
{
	size_t	 i, o;
	int	 hi, lo;
	char	 c;

	for (i = o = 0; i < len; i++) {
		c = s[i];
		if (c == '%') {
			if (i + 2 >= len)
				return 0;
			hi = s[i + 1];
			lo = s[i + 2];
			hi = hi >= '0' && hi <= '9' ? hi - '0' :
			    hi >= 'a' && hi <= 'f' ? hi - 'a' + 10 :
			    hi >= 'A' && hi <= 'F' ? hi - 'A' + 10 : -1;
			lo = lo >= '0' && lo <= '9' ? lo - '0' :
			    lo >= 'a' && lo <= 'f' ? lo - 'a' + 10 :
			    lo >= 'A' && lo <= 'F' ? lo - 'A' + 10 : -1;
			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
				return 0;
			c = (char)(hi << 4 | lo);
			i += 2;
		}
		if (o + 1 >= MAXSEG)
			return 0;
		buf[o++] = c;
	}
	buf[o] = '\0';

	/* Now the ~0 and ~1 escapes, in place, in this order. */
	for (i = o = 0; buf[i] != '\0'; i++) {
		if (buf[i] == '~') {
			if (buf[i + 1] == '0')
				buf[o++] = '~';
			else if (buf[i + 1] == '1')
				buf[o++] = '/';
			else
				return 0;
			i++;
		} else
			buf[o++] = buf[i];
	}
	buf[o] = '\0';
	return 1;
}

/*
 * Follow a JSON Pointer (the part after "#") from root.  Returns the
 * value or NULL (which is also JSON null: callers want a schema).
 */
static struct json_object *
ptr_follow(struct json_object *root, const char *p)
{
	struct json_object	*cur, *next;
	char			 tok[MAXSEG];
	const char		*end;
	size_t			 i, idx;

	cur = root;
	while (*p == '/') {
		p++;
		end = strchr(p, '/');
		if (end == NULL)
			end = p + strlen(p);
		if (!ptr_token(p, (size_t)(end - p), tok))
			return NULL;
		p = end;
		if (json_object_is_type(cur, json_type_object)) {
			if (!json_object_object_get_ex(cur, tok, &next))
				return NULL;
		} else if (json_object_is_type(cur, json_type_array)) {
			/* Array index: digits, no leading zero. */
			if (tok[0] == '\0' || (tok[0] == '0' && tok[1] != '\0'))
				return NULL;
			for (idx = 0, i = 0; tok[i] != '\0'; i++) {
				if (tok[i] < '0' || tok[i] > '9' || i > 9)
					return NULL;
				idx = idx * 10 + (size_t)(tok[i] - '0');
			}
			if (idx >= json_object_array_length(cur))
				return NULL;
			next = json_object_array_get_idx(cur, idx);
		} else
			return NULL;
		cur = next;
	}
	return *p == '\0' ? cur : NULL;
}

/*
 * Whether a key holds one schema (Core 10, 11).  With the two below it
 * tells walk() where the subschemas of a schema are.
 */
static int
is_subschema_key(const char *k)
{
	static const char *const one[] = {
		"additionalProperties", "items", "not", "if", "then", "else",
		"contains", "propertyNames", "unevaluatedItems",
		"unevaluatedProperties", "additionalItems", NULL
	};
	size_t	 i;

	for (i = 0; one[i] != NULL; i++)
		if (strcmp(k, one[i]) == 0)
			return 1;
	return 0;
}

/*
 * Whether a key holds an object whose values are schemas.
 */
static int
is_schemamap_key(const char *k)
{
	return strcmp(k, "properties") == 0 ||
	    strcmp(k, "patternProperties") == 0 ||
	    strcmp(k, "$defs") == 0 || strcmp(k, "definitions") == 0 ||
	    strcmp(k, "dependentSchemas") == 0;
}

/*
 * Whether a key may hold an array of schemas.
 */
static int
is_schemalist_key(const char *k)
{
	return strcmp(k, "allOf") == 0 || strcmp(k, "anyOf") == 0 ||
	    strcmp(k, "oneOf") == 0 || strcmp(k, "prefixItems") == 0 ||
	    strcmp(k, "items") == 0;
}

/*
 * Walk every schema object under s (s included), depth first, calling
 * fn(arg, obj).  fn returns nonzero to stop the walk.  Returns fn's
 * value, 0 when the walk completed, or -1 past MAXDEPTH levels or
 * when *steps passes MAXSTEPS.
 */
static int
walk(struct json_object *s, int depth, unsigned long *steps,
    int (*fn)(void *, struct json_object *), void *arg)
{
	struct json_object	*e;
	size_t			 i, len;
	int			 rc;

	if (!json_object_is_type(s, json_type_object))
		return 0;
	if (depth > MAXDEPTH || ++*steps > MAXSTEPS)
		return -1;
	if ((rc = fn(arg, s)) != 0)
		return rc;
	json_object_object_foreach(s, key, val) {
		if (is_subschema_key(key) &&
		    (rc = walk(val, depth + 1, steps, fn, arg)) != 0)
			return rc;
		if (is_schemamap_key(key) &&
		    json_object_is_type(val, json_type_object)) {
			json_object_object_foreach(val, k2, sub) {
				(void)k2;
				if ((rc = walk(sub, depth + 1, steps,
				    fn, arg)) != 0)
					return rc;
			}
		}
		if (is_schemalist_key(key) &&
		    json_object_is_type(val, json_type_array)) {
			len = json_object_array_length(val);
			for (i = 0; i < len; i++) {
				e = json_object_array_get_idx(val, i);
				if ((rc = walk(e, depth + 1, steps,
				    fn, arg)) != 0)
					return rc;
			}
		}
	}
	return 0;
}

/* Search state for a plain-name fragment. */
struct anchor {
	const char		*name;
	struct json_object	*found;
};

/*
 * walk() callback: stop at the schema whose $anchor is the name.
 */
static int
anchor_fn(void *arg, struct json_object *s)
{
	struct anchor		*a = arg;
	struct json_object	*v;

	if (json_object_object_get_ex(s, "$anchor", &v) &&
	    json_object_is_type(v, json_type_string) &&
	    strcmp(json_object_get_string(v), a->name) == 0) {
		a->found = s;
		return 1;
	}
	return 0;
}

/*
 * Resolve a $ref against the root schema.  Returns 1 with *out set to a
 * schema (object or boolean), 0 when the reference is not local (the
 * caller treats it as valid), -1 when it is local but leads nowhere.
 * "" and "#" are the root; "#/..." is a JSON Pointer; "#name" an anchor.
 */
static int
resolve(struct json_object *root, const char *ref, unsigned long *steps,
    struct json_object **out)
{
	struct json_object	*t;
	struct anchor		 a;

	if (ref[0] == '\0' || strcmp(ref, "#") == 0)
		t = root;
	else if (ref[0] != '#')
		return 0;
	else if (ref[1] == '/')
		t = ptr_follow(root, ref + 1);
	else {
		a.name = ref + 1;
		a.found = NULL;
		t = walk(root, 0, steps, anchor_fn, &a) == 1 ? a.found : NULL;
	}
	if (!json_object_is_type(t, json_type_object) &&
	    !json_object_is_type(t, json_type_boolean))
		return -1;
	*out = t;
	return 1;
}

/*
 * Whether the instance matches "type" (a name or an array of names).
 * A value of another form is ignored.
 */
static int
kw_type(struct vstate *st, struct json_object *t, struct json_object *inst,
    const struct seg *sg)
{
	struct json_object	*e;
	char			 list[128];
	struct ebuf		 eb;
	size_t			 i, len;

	if (json_object_is_type(t, json_type_string)) {
		if (type_is(inst, json_object_get_string(t)))
			return V_OK;
		return vfail(st, sg, "expected %s, got %s",
		    json_object_get_string(t), type_name(inst));
	}
	if (!json_object_is_type(t, json_type_array))
		return V_OK;
	len = json_object_array_length(t);
	for (i = 0; i < len; i++) {
		e = json_object_array_get_idx(t, i);
		if (json_object_is_type(e, json_type_string) &&
		    type_is(inst, json_object_get_string(e)))
			return V_OK;
	}
	if (st->quiet)
		return V_FAIL;
	eb.p = list;
	eb.len = 0;
	eb.cap = sizeof(list);
	eb.trunc = 0;
	list[0] = '\0';
	for (i = 0; i < len; i++) {
		e = json_object_array_get_idx(t, i);
		if (json_object_is_type(e, json_type_string))
			eb_printf(&eb, "%s%s", eb.len ? " or " : "",
			    json_object_get_string(e));
	}
	return vfail(st, sg, "expected %s, got %s",
	    eb.len ? list : "no type at all", type_name(inst));
}

/*
 * Compare a count (string length, items, properties) with a numeric
 * limit keyword.  Returns the numcmp() result, or 3 when the keyword
 * value is not a number and so is ignored.
 */
static int
count_cmp(size_t count, struct json_object *limit)
{
	struct num	 c, l;

	if (!getnum(limit, &l))
		return 3;
	c.kind = NUM_UINT;
	c.u = count;
	if (c.u <= (uint64_t)INT64_MAX) {
		c.kind = NUM_INT;
		c.i = (int64_t)c.u;
	}
	return numcmp(&c, &l);
}

/*
 * Print a number for a message.  The schema is shared between requests
 * (and threads), so json_object_to_json_string(), which caches its text
 * in the object, must not be used on it.
 */
static const char *
num_str(const struct num *n, char *buf, size_t sz)
{
	switch (n->kind) {
	case NUM_INT:
		snprintf(buf, sz, "%" PRId64, n->i);
		break;
	case NUM_UINT:
		snprintf(buf, sz, "%" PRIu64, n->u);
		break;
	default:
		snprintf(buf, sz, "%.15g", n->d);
		if (isfinite(n->d) && strtod(buf, NULL) != n->d)
			snprintf(buf, sz, "%.17g", n->d);
		break;
	}
	return buf;
}

/*
 * The number keywords (Validation 6.2) on a numeric instance.  NaN,
 * which json-c's lenient parser accepts, fails every bound.
 */
static int
kw_number(struct vstate *st, const char *key, struct json_object *val,
    struct json_object *inst, const struct seg *sg)
{
	struct num	 n, l;
	char		 nb[32], lb[32];
	const char	*why;
	int		 c;

	if (!getnum(inst, &n) || !getnum(val, &l))
		return V_OK;
	c = numcmp(&n, &l);
	if (strcmp(key, "minimum") == 0 && (c == 2 || c < 0))
		why = "less than the minimum";
	else if (strcmp(key, "maximum") == 0 && (c == 2 || c > 0))
		why = "greater than the maximum";
	else if (strcmp(key, "exclusiveMinimum") == 0 && (c == 2 || c <= 0))
		why = "not greater than the exclusive minimum";
	else if (strcmp(key, "exclusiveMaximum") == 0 && (c == 2 || c >= 0))
		why = "not less than the exclusive maximum";
	else
		return V_OK;
	if (st->quiet)
		return V_FAIL;
	return vfail(st, sg, "%s is %s %s", num_str(&n, nb, sizeof(nb)),
	    why, num_str(&l, lb, sizeof(lb)));
}

/*
 * minItems/maxItems (Validation 6.4) and minProperties/maxProperties
 * (6.5): what names the counted things.
 */
static int
kw_count(struct vstate *st, const char *key, struct json_object *val,
    size_t count, const char *what, const struct seg *sg)
{
	struct num	 l;
	char		 lb[32];
	int		 c;

	if ((c = count_cmp(count, val)) == 3 || !getnum(val, &l))
		return V_OK;
	if (key[1] == 'i' && (c == 2 || c < 0))
		return vfail(st, sg, "has %zu %s, fewer than the minimum %s",
		    count, what, num_str(&l, lb, sizeof(lb)));
	if (key[1] == 'a' && (c == 2 || c > 0))
		return vfail(st, sg, "has %zu %s, more than the maximum %s",
		    count, what, num_str(&l, lb, sizeof(lb)));
	return V_OK;
}

/*
 * minLength and maxLength (Validation 6.3), counting code points: every
 * byte that is not a UTF-8 continuation byte starts one.
 */
static int
kw_length(struct vstate *st, const char *key, struct json_object *val,
    struct json_object *inst, const struct seg *sg)
{
	const unsigned char	*s;
	size_t			 i, len, n;

	if (!json_object_is_type(inst, json_type_string))
		return V_OK;
	s = (const unsigned char *)json_object_get_string(inst);
	len = (size_t)json_object_get_string_len(inst);
	for (i = n = 0; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			n++;
	return kw_count(st, key, val, n, "characters", sg);
}

/*
 * properties (Core 10.3.2.1): each member the instance has must match.
 */
static int
kw_properties(struct vstate *st, struct json_object *props,
    struct json_object *inst, const struct seg *sg)
{
	struct json_object	*v;
	struct seg		 child;
	int			 rc;

	if (!json_object_is_type(props, json_type_object))
		return V_OK;
	json_object_object_foreach(props, key, sub) {
		if (!step(st))
			return vabort(st, "schema too complex to evaluate");
		if (!json_object_object_get_ex(inst, key, &v))
			continue;
		child.up = sg;
		child.key = key;
		child.idx = 0;
		if ((rc = eval(st, sub, v, &child)) != V_OK)
			return rc;
	}
	return V_OK;
}

/*
 * additionalProperties (Core 10.3.2.3): members not named in properties
 * must match it.  Not enforced beside patternProperties, which this
 * subset does not evaluate.
 */
static int
kw_additional(struct vstate *st, struct json_object *schema,
    struct json_object *ap, struct json_object *inst, const struct seg *sg)
{
	struct json_object	*props = NULL, *dummy;
	struct seg		 child;
	const char		*more;
	int			 rc, n;

	if (json_object_object_get_ex(schema, "patternProperties", &dummy))
		return V_OK;
	json_object_object_get_ex(schema, "properties", &props);
	if (!json_object_is_type(props, json_type_object))
		props = NULL;
	json_object_object_foreach(inst, key, v) {
		if (!step(st))
			return vabort(st, "schema too complex to evaluate");
		if (props != NULL &&
		    json_object_object_get_ex(props, key, &dummy))
			continue;
		if (json_object_is_type(ap, json_type_boolean) &&
		    !json_object_get_boolean(ap)) {
			n = keylen(key, &more);
			return vfail(st, sg, "unexpected property '%.*s%s'",
			    n, key, more);
		}
		child.up = sg;
		child.key = key;
		child.idx = 0;
		if ((rc = eval(st, ap, v, &child)) != V_OK)
			return rc;
	}
	return V_OK;
}

/*
 * required (Validation 6.5.3).
 */
static int
kw_required(struct vstate *st, struct json_object *req,
    struct json_object *inst, const struct seg *sg)
{
	struct json_object	*e, *dummy;
	size_t			 i, len;

	if (!json_object_is_type(req, json_type_array))
		return V_OK;
	len = json_object_array_length(req);
	for (i = 0; i < len; i++) {
		if (!step(st))
			return vabort(st, "schema too complex to evaluate");
		e = json_object_array_get_idx(req, i);
		if (!json_object_is_type(e, json_type_string))
			continue;
		if (!json_object_object_get_ex(inst, json_object_get_string(e),
		    &dummy))
			return vfail(st, sg, "missing required property '%s'",
			    json_object_get_string(e));
	}
	return V_OK;
}

/*
 * prefixItems and items (Core 10.3.1.1 and 10.3.1.2): items applies to
 * the elements after those prefixItems covers.  An array-valued items
 * (the draft-07 tuple form) is ignored.
 */
static int
kw_items(struct vstate *st, struct json_object *schema,
    struct json_object *inst, const struct seg *sg)
{
	struct json_object	*prefix = NULL, *items = NULL, *sub;
	struct seg		 child;
	size_t			 i, len, np = 0;
	int			 rc;

	if (json_object_object_get_ex(schema, "prefixItems", &prefix) &&
	    json_object_is_type(prefix, json_type_array))
		np = json_object_array_length(prefix);
	else
		prefix = NULL;
	if (json_object_object_get_ex(schema, "items", &items) &&
	    json_object_is_type(items, json_type_array))
		items = NULL;
	len = json_object_array_length(inst);
	child.up = sg;
	child.key = NULL;
	for (i = 0; i < len; i++) {
		if (i < np)
			sub = json_object_array_get_idx(prefix, i);
		else if (items != NULL)
			sub = items;
		else
			break;
		child.idx = i;
		rc = eval(st, sub, json_object_array_get_idx(inst, i), &child);
		if (rc != V_OK)
			return rc;
	}
	return V_OK;
}

/*
 * uniqueItems (Validation 6.4.3): quadratic, paid for from the budget.
 */
static int
kw_unique(struct vstate *st, struct json_object *inst, const struct seg *sg)
{
	size_t	 i, j, len;
	int	 rc;

	len = json_object_array_length(inst);
	for (i = 0; i < len; i++)
		for (j = i + 1; j < len; j++) {
			rc = jeq(st, json_object_array_get_idx(inst, i),
			    json_object_array_get_idx(inst, j), 0);
			if (rc == V_ABORT)
				return rc;
			if (rc)
				return vfail(st, sg, "items %zu and %zu are "
				    "equal but must be unique", i, j);
		}
	return V_OK;
}

/*
 * enum and const (Validation 6.1.2, 6.1.3).
 */
static int
kw_enum(struct vstate *st, struct json_object *val, struct json_object *inst,
    const struct seg *sg)
{
	size_t	 i, len;
	int	 rc;

	if (!json_object_is_type(val, json_type_array))
		return V_OK;
	len = json_object_array_length(val);
	for (i = 0; i < len; i++) {
		rc = jeq(st, json_object_array_get_idx(val, i), inst, 0);
		if (rc != 0)
			return rc;
	}
	return vfail(st, sg, "value is not one of the allowed values");
}

/*
 * const (Validation 6.1.3), naming a string or number constant.
 */
static int
kw_const(struct vstate *st, struct json_object *val, struct json_object *inst,
    const struct seg *sg)
{
	struct num	 n;
	char		 nb[32];
	int		 rc;

	if ((rc = jeq(st, val, inst, 0)) != 0)
		return rc;
	if (json_object_is_type(val, json_type_string))
		return vfail(st, sg, "value must be \"%s\"",
		    json_object_get_string(val));
	if (getnum(val, &n))
		return vfail(st, sg, "value must be %s",
		    num_str(&n, nb, sizeof(nb)));
	return vfail(st, sg, "value is not the required constant");
}

/*
 * allOf, anyOf, oneOf (Core 10.2.1).  allOf passes the caller's voice
 * down, so the failing branch's reason is the reason; the others
 * evaluate their branches quietly.
 */
static int
kw_combine(struct vstate *st, const char *key, struct json_object *list,
    struct json_object *inst, const struct seg *sg)
{
	size_t	 i, len, first = 0;
	int	 rc, matched = 0;

	if (!json_object_is_type(list, json_type_array))
		return V_OK;
	len = json_object_array_length(list);
	if (strcmp(key, "allOf") == 0) {
		for (i = 0; i < len; i++) {
			rc = eval(st, json_object_array_get_idx(list, i), inst,
			    sg);
			if (rc != V_OK)
				return rc;
		}
		return V_OK;
	}
	for (i = 0; i < len; i++) {
		st->quiet++;
		rc = eval(st, json_object_array_get_idx(list, i), inst, sg);
		st->quiet--;
		if (rc == V_ABORT)
			return rc;
		if (rc != V_OK)
			continue;
		if (key[0] == 'a')
			return V_OK;
		if (matched++)
			return vfail(st, sg, "matches both oneOf schemas %zu "
			    "and %zu but must match exactly one", first, i);
		first = i;
	}
	if (matched)
		return V_OK;
	return vfail(st, sg, "matches none of the %s schemas", key);
}

/*
 * if, then, else (Core 10.2.2): "if" is evaluated quietly and picks
 * the branch whose reason is reported.
 */
static int
kw_if(struct vstate *st, struct json_object *schema, struct json_object *cond,
    struct json_object *inst, const struct seg *sg)
{
	struct json_object	*branch;
	int			 rc;

	st->quiet++;
	rc = eval(st, cond, inst, sg);
	st->quiet--;
	if (rc == V_ABORT)
		return rc;
	if (!json_object_object_get_ex(schema, rc == V_OK ? "then" : "else",
	    &branch))
		return V_OK;
	return eval(st, branch, inst, sg);
}

/*
 * not (Core 10.2.1.4).
 */
static int
kw_not(struct vstate *st, struct json_object *sub, struct json_object *inst,
    const struct seg *sg)
{
	int	 rc;

	st->quiet++;
	rc = eval(st, sub, inst, sg);
	st->quiet--;
	if (rc == V_ABORT)
		return rc;
	if (rc == V_OK)
		return vfail(st, sg, "matches a schema it must not match");
	return V_OK;
}

/*
 * $ref (Core 8.2.3.1): applied beside the sibling keywords.
 */
static int
kw_ref(struct vstate *st, struct json_object *ref, struct json_object *inst,
    const struct seg *sg)
{
	struct json_object	*target;
	int			 rc;

	if (!json_object_is_type(ref, json_type_string))
		return V_OK;
	rc = resolve(st->root, json_object_get_string(ref), &st->steps,
	    &target);
	if (st->steps > MAXSTEPS)
		return vabort(st, "schema too complex to evaluate");
	if (rc == 0)
		return V_OK;
	if (rc < 0)
		return vfail(st, sg, "schema reference '%s' does not resolve",
		    json_object_get_string(ref));
	return eval(st, target, inst, sg);
}

/*
 * The keywords that start with 'm': minimum, maximum, minLength,
 * maxLength, minItems, maxItems (of an array), minProperties,
 * maxProperties (of an object).  Another passes.
 */
static int
kw_min_max(struct vstate *st, const char *key, struct json_object *val,
    struct json_object *inst, const struct seg *sg)
{
	enum json_type	 t = json_object_get_type(inst);

	if (strcmp(key, "minimum") == 0 || strcmp(key, "maximum") == 0)
		return kw_number(st, key, val, inst, sg);
	if (strcmp(key, "minLength") == 0 || strcmp(key, "maxLength") == 0)
		return kw_length(st, key, val, inst, sg);
	if ((strcmp(key, "minItems") == 0 || strcmp(key, "maxItems") == 0) &&
	    t == json_type_array)
		return kw_count(st, key, val, json_object_array_length(inst),
		    "items", sg);
	if ((strcmp(key, "minProperties") == 0 ||
	    strcmp(key, "maxProperties") == 0) && t == json_type_object)
		return kw_count(st, key, val,
		    (size_t)json_object_object_length(inst), "properties",
		    sg);
	return V_OK;
}

/*
 * Apply one keyword of an object schema.  Keywords that do not apply
 * to the instance's type pass (Validation 6: "if the instance is not a
 * ..., validation succeeds").
 */
static int
keyword(struct vstate *st, struct json_object *schema, const char *key,
    struct json_object *val, struct json_object *inst, const struct seg *sg)
{
	enum json_type	 t;

	t = json_object_get_type(inst);
	switch (key[0]) {
	case '$':
		if (strcmp(key, "$ref") == 0)
			return kw_ref(st, val, inst, sg);
		break;
	case 'a':
		if (strcmp(key, "additionalProperties") == 0 &&
		    t == json_type_object)
			return kw_additional(st, schema, val, inst, sg);
		if (strcmp(key, "allOf") == 0 || strcmp(key, "anyOf") == 0)
			return kw_combine(st, key, val, inst, sg);
		break;
	case 'c':
		if (strcmp(key, "const") == 0)
			return kw_const(st, val, inst, sg);
		break;
	case 'e':
		if (strcmp(key, "enum") == 0)
			return kw_enum(st, val, inst, sg);
		if (strcmp(key, "exclusiveMinimum") == 0 ||
		    strcmp(key, "exclusiveMaximum") == 0)
			return kw_number(st, key, val, inst, sg);
		break;
	case 'i':
		if (strcmp(key, "if") == 0)
			return kw_if(st, schema, val, inst, sg);
		if (strcmp(key, "items") == 0 && t == json_type_array)
			return kw_items(st, schema, inst, sg);
		break;
	case 'm':
		return kw_min_max(st, key, val, inst, sg);
	case 'n':
		if (strcmp(key, "not") == 0)
			return kw_not(st, val, inst, sg);
		break;
	case 'o':
		if (strcmp(key, "oneOf") == 0)
			return kw_combine(st, key, val, inst, sg);
		break;
	case 'p':
		if (strcmp(key, "properties") == 0 && t == json_type_object)
			return kw_properties(st, val, inst, sg);
		/* prefixItems without items; with items, items does it. */
		if (strcmp(key, "prefixItems") == 0 && t == json_type_array &&
		    !json_object_object_get_ex(schema, "items", NULL))
			return kw_items(st, schema, inst, sg);
		break;
	case 'r':
		if (strcmp(key, "required") == 0 && t == json_type_object)
			return kw_required(st, val, inst, sg);
		break;
	case 'u':
		if (strcmp(key, "uniqueItems") == 0 && t == json_type_array &&
		    json_object_is_type(val, json_type_boolean) &&
		    json_object_get_boolean(val))
			return kw_unique(st, inst, sg);
		break;
	default:
		break;
	}
	return V_OK;
}

/*
 * Evaluate the instance against one schema (Core 4.3): a boolean, or an
 * object whose keywords must all hold.  "type" goes first so a wrong
 * type is the reason given.
 */
static int
eval(struct vstate *st, struct json_object *schema, struct json_object *inst,
    const struct seg *sg)
{
	struct json_object	*t;
	int			 rc = V_OK;

	if (!step(st))
		return vabort(st, "schema too complex to evaluate");
	if (st->depth >= MAXDEPTH)
		return vabort(st, "schema nesting too deep");
	if (json_object_is_type(schema, json_type_boolean)) {
		if (json_object_get_boolean(schema))
			return V_OK;
		return vfail(st, sg, "no value is allowed here");
	}
	if (!json_object_is_type(schema, json_type_object))
		return vfail(st, sg, "the schema is not an object or boolean");

	st->depth++;
	if (json_object_object_get_ex(schema, "type", &t) &&
	    (rc = kw_type(st, t, inst, sg)) != V_OK)
		goto out;
	json_object_object_foreach(schema, key, val) {
		if (!step(st)) {
			rc = vabort(st, "schema too complex to evaluate");
			goto out;
		}
		if ((rc = keyword(st, schema, key, val, inst, sg)) != V_OK)
			goto out;
	}
out:
	st->depth--;
	return rc;
}

/*
 * Validate instance against schema.  Returns 1 when valid, 0 when not
 * with the reason in err, -1 on internal failure (this implementation
 * allocates nothing, so it does not fail).
 */
int
wymcp__schema_validate(struct json_object *schema,
    struct json_object *instance, char *err, size_t errlen)
{
	struct vstate	 st;
	int		 rc;

	memset(&st, 0, sizeof(st));
	st.root = schema;
	st.err = err;
	st.errlen = errlen;
	if (err != NULL && errlen > 0)
		err[0] = '\0';
	rc = eval(&st, schema, instance, NULL);
	return rc == V_OK && !st.aborted ? 1 : 0;
}

/* State of the $ref check walk. */
struct refcheck {
	struct json_object	*root;
	unsigned long		*steps;
	const char		*bad;	/* the first unresolved $ref */
};

/*
 * walk() callback: stop at a local $ref that does not resolve.
 */
static int
refcheck_fn(void *arg, struct json_object *s)
{
	struct refcheck		*rc = arg;
	struct json_object	*ref, *target;

	if (!json_object_object_get_ex(s, "$ref", &ref) ||
	    !json_object_is_type(ref, json_type_string))
		return 0;
	if (resolve(rc->root, json_object_get_string(ref), rc->steps,
	    &target) >= 0)
		return 0;
	rc->bad = json_object_get_string(ref);
	return 2;
}

/*
 * Load-time check of a tool input schema: an object whose "type" is
 * "object" (MCP requires it), every local $ref resolving to a schema.
 * Returns 1 when acceptable, 0 with the reason in err.
 */
int
wymcp__schema_check(struct json_object *schema, char *err, size_t errlen)
{
	struct json_object	*t;
	struct refcheck		 rc;
	unsigned long		 steps = 0;

	if (err != NULL && errlen > 0)
		err[0] = '\0';
	if (!json_object_is_type(schema, json_type_object)) {
		seterr(err, errlen, "the schema is not a JSON object");
		return 0;
	}
	if (!json_object_object_get_ex(schema, "type", &t) ||
	    !json_object_is_type(t, json_type_string) ||
	    strcmp(json_object_get_string(t), "object") != 0) {
		seterr(err, errlen, "the schema's root type must be "
		    "\"object\"");
		return 0;
	}
	rc.root = schema;
	rc.steps = &steps;
	rc.bad = NULL;
	switch (walk(schema, 0, &steps, refcheck_fn, &rc)) {
	case 0:
		return 1;
	case 2:
		seterr(err, errlen, "schema reference '%s' does not resolve",
		    rc.bad);
		return 0;
	default:
		seterr(err, errlen, "schema nesting too deep or schema "
		    "too large");
		return 0;
	}
}
