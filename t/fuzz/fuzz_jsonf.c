/*
 * fuzz_jsonf.c - libFuzzer target for JSON templates
 * (lib/jsonf.c: wymcp__jsonf_expand(), wymcp__jsonf())
 *
 * The input is a template, a NUL byte, and the values its conversions
 * take, read in turn: an integer or a double from 8 bytes, a string
 * from a length byte and that many bytes (length 255: NULL), a json-c
 * value (%p) from a selector byte (0: NULL) and a string made a JSON
 * string, whatever its bytes.  The expansion must end in one of the
 * documented ways (a value, or NULL with a reason and not out of
 * memory).  A value must serialize to strict JSON that parses back to
 * an equal value.  And no string value may change the value's shape:
 * the same template with every non-NULL string replaced by "a" gives,
 * when both succeed, a value of the same types, member counts and
 * array lengths.  Anything else aborts.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "lib/lib.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define INPUT_MAX	(16 * 1024)
#define VALUES_MAX	64		/* strings and objects held */

/* The values, as a source reads them. */
struct pool {
	const uint8_t		*p;
	size_t			 len;
	int			 benign;	/* strings become "a" */
	char			*strs[VALUES_MAX];
	struct json_object	*objs[VALUES_MAX];
	size_t			 nstrs, nobjs;
};

static void
fail(const char *why, const char *tpl)
{
	fprintf(stderr, "fuzz_jsonf: %s\n  template '%s'\n", why, tpl);
	abort();
}

static void
take(struct pool *pl, void *out, size_t n)
{
	size_t	k = n < pl->len ? n : pl->len;

	memset(out, 0, n);
	memcpy(out, pl->p, k);
	pl->p += k;
	pl->len -= k;
}

/* A string from the pool (NULL for length 255), held until the end. */
static const char *
str(struct pool *pl)
{
	uint8_t	 n = 0;
	char	*s;

	take(pl, &n, 1);
	if (n == 255)
		return NULL;
	if (pl->nstrs == VALUES_MAX || (s = malloc((size_t)n + 1)) == NULL)
		return "";
	take(pl, s, n);
	s[n] = '\0';
	pl->strs[pl->nstrs++] = s;
	return s;
}

static void
get(void *arg, enum wymcp__jsonf_kind k, union wymcp__jsonf_val *v)
{
	struct pool		*pl = arg;
	struct json_object	*o;
	const char		*s;
	uint8_t			 sel = 0;

	switch (k) {
	case WYMCP__JF_DOUBLE:
		take(pl, &v->d, sizeof(v->d));
		break;
	case WYMCP__JF_STR:
		s = str(pl);
		v->s = s != NULL && pl->benign ? "a" : s;
		break;
	case WYMCP__JF_PTR:
		take(pl, &sel, 1);
		s = str(pl);
		v->p = NULL;
		if (sel == 0 || s == NULL || pl->nobjs == VALUES_MAX)
			break;
		/* Any bytes: json-c holds a string as it was given. */
		if ((o = sel & 1 ? json_object_new_string(s) :
		    json_object_new_array()) == NULL)
			abort();
		if (!(sel & 1) && json_object_array_add(o,
		    json_object_new_string(s)))
			abort();
		pl->objs[pl->nobjs++] = o;
		v->p = o;
		break;
	default:
		take(pl, &v->u, sizeof(v->u));
		break;
	}
}

/* The same shape: types, member counts, array lengths, recursively. */
static int
same_shape(struct json_object *a, struct json_object *b)
{
	struct json_object_iterator	 ia, ib, ea, eb;
	size_t				 i;

	if (json_object_get_type(a) != json_object_get_type(b))
		return 0;
	switch (json_object_get_type(a)) {
	case json_type_array:
		if (json_object_array_length(a) != json_object_array_length(b))
			return 0;
		for (i = 0; i < json_object_array_length(a); i++)
			if (!same_shape(json_object_array_get_idx(a, i),
			    json_object_array_get_idx(b, i)))
				return 0;
		return 1;
	case json_type_object:
		if (json_object_object_length(a) !=
		    json_object_object_length(b))
			return 0;
		ia = json_object_iter_begin(a);
		ea = json_object_iter_end(a);
		ib = json_object_iter_begin(b);
		eb = json_object_iter_end(b);
		while (!json_object_iter_equal(&ia, &ea) &&
		    !json_object_iter_equal(&ib, &eb)) {
			if (!same_shape(json_object_iter_peek_value(&ia),
			    json_object_iter_peek_value(&ib)))
				return 0;
			json_object_iter_next(&ia);
			json_object_iter_next(&ib);
		}
		return 1;
	default:
		return 1;
	}
}

static void
pool_free(struct pool *pl)
{
	size_t	 i;

	for (i = 0; i < pl->nstrs; i++)
		free(pl->strs[i]);
	for (i = 0; i < pl->nobjs; i++)
		json_object_put(pl->objs[i]);
}

/* One expansion, its invariants checked; the value or NULL. */
static struct json_object *
run(const char *tpl, struct pool *pl)
{
	struct wymcp__jsonf_src	 src = { get, pl };
	struct json_object	*o, *back;
	char			 why[160];
	const char		*s;
	int			 nomem = 0;

	why[0] = '\0';
	if ((o = wymcp__jsonf(tpl, &src, why, sizeof(why), &nomem)) == NULL) {
		if (nomem)
			fail("out of memory", tpl);
		if (why[0] == '\0')
			fail("refused without a reason", tpl);
		return NULL;
	}
	s = wymcp__json(o);
	if ((back = wymcp__parse(s, strlen(s))) == NULL)
		fail("the value does not serialize to strict JSON", tpl);
	if (!json_object_equal(o, back))
		fail("the value does not read back the same", tpl);
	json_object_put(back);
	return o;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pool		 pl, bl;
	struct json_object	*o, *b;
	const uint8_t		*nul;
	char			*tpl;
	size_t			 tlen;

	if (size > INPUT_MAX)
		return 0;
	nul = memchr(data, '\0', size);
	tlen = nul != NULL ? (size_t)(nul - data) : size;
	if ((tpl = malloc(tlen + 1)) == NULL)
		abort();
	memcpy(tpl, data, tlen);
	tpl[tlen] = '\0';
	memset(&pl, 0, sizeof(pl));
	pl.p = nul != NULL ? nul + 1 : data + size;
	pl.len = nul != NULL ? size - tlen - 1 : 0;
	bl = pl;
	bl.benign = 1;

	o = run(tpl, &pl);
	b = run(tpl, &bl);
	if (o != NULL && b != NULL && !same_shape(o, b))
		fail("a string value changed the shape of the value", tpl);
	json_object_put(o);
	json_object_put(b);
	pool_free(&pl);
	pool_free(&bl);
	free(tpl);
	return 0;
}
