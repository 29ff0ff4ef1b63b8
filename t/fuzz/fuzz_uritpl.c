/*
 * fuzz_uritpl.c - libFuzzer target for the URI-template matcher
 * (lib/uritpl.c: wymcp__tpl_check(), wymcp__tpl_match())
 *
 * The input is a template, a newline, and a URI.  A template that
 * wymcp__tpl_check() refuses must never match anything.  One it takes is
 * matched against the URI; the match must end in one of the documented
 * ways (no match, a match, the search budget spent), never out of memory
 * here.  A match must give exactly the template's variables, each a
 * non-empty string of valid UTF-8 without NUL ({var} values decoded,
 * {+var} values as they were).  Expanding the template with those values
 * (RFC 6570: {var} percent-encodes everything but the unreserved
 * characters, {+var} passes its value as matched) gives a URI that must
 * match again (the split found may differ: the earlier expressions take
 * as much as they can), under the same rules.  Anything else aborts.
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

static void
fail(const char *why, const char *tpl, const char *uri)
{
	fprintf(stderr, "fuzz_uritpl: %s\n  template '%s'\n  uri '%s'\n",
	    why, tpl, uri);
	abort();
}

/* RFC 3986 unreserved. */
static int
unreserved(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
	    c == '~';
}

/* Append s[0..n) to the buffer (room was made by the caller). */
static char *
put(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

/*
 * The template expanded with `vars`; malloc'ed.  Expressions are found
 * the simple way: the template was checked, so every '{' opens one.
 */
static char *
expand(const char *tpl, struct json_object *vars)
{
	static const char	 hex[] = "0123456789ABCDEF";
	struct json_object	*v;
	const char		*q, *close, *s;
	char			*out, *p, *name;
	size_t			 cap, n, i;
	int			 plus;

	cap = strlen(tpl) + 1;
	json_object_object_foreach(vars, k, val) {
		(void)k;
		cap += 3 * (size_t)json_object_get_string_len(val);
	}
	if ((out = malloc(cap)) == NULL)
		abort();
	p = out;
	while ((q = strchr(tpl, '{')) != NULL) {
		p = put(p, tpl, (size_t)(q - tpl));
		close = strchr(q, '}');
		plus = q[1] == '+';
		n = (size_t)(close - q - 1 - plus);
		if ((name = malloc(n + 1)) == NULL)
			abort();
		memcpy(name, q + 1 + plus, n);
		name[n] = '\0';
		if (!json_object_object_get_ex(vars, name, &v))
			abort();
		free(name);
		s = json_object_get_string(v);
		n = (size_t)json_object_get_string_len(v);
		for (i = 0; i < n; i++) {
			if (plus || unreserved((unsigned char)s[i]))
				*p++ = s[i];
			else {
				*p++ = '%';
				*p++ = hex[(unsigned char)s[i] >> 4];
				*p++ = hex[(unsigned char)s[i] & 0xf];
			}
		}
		tpl = close + 1;
	}
	p = put(p, tpl, strlen(tpl));
	*p = '\0';
	return out;
}

/* Check a match's variables against the template. */
static void
check_vars(const char *tpl, const char *uri, struct json_object *vars)
{
	const char	*s;
	size_t		 len, n = 0;

	if (!json_object_is_type(vars, json_type_object))
		fail("vars is not an object", tpl, uri);
	json_object_object_foreach(vars, k, v) {
		if (!wymcp__template_var(tpl, k))
			fail("a variable the template does not have", tpl, uri);
		if (!json_object_is_type(v, json_type_string))
			fail("a value that is not a string", tpl, uri);
		s = json_object_get_string(v);
		len = (size_t)json_object_get_string_len(v);
		if (len == 0 || strlen(s) != len)
			fail("an empty value, or one holding NUL", tpl, uri);
		if (!wymcp__utf8_valid(s, len))
			fail("a value that is not UTF-8", tpl, uri);
		n++;
	}
	for (s = tpl; (s = strchr(s, '{')) != NULL; s++)
		n--;
	if (n != 0)
		fail("not every variable has a value", tpl, uri);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wymcp__arena	 a;
	struct json_object	*vars, *again;
	const uint8_t		*nl;
	char			*tpl, *uri, *u2, err[256];
	size_t			 tlen;
	int			 rc, ok;

	if (size > INPUT_MAX)
		return 0;
	nl = memchr(data, '\n', size);
	tlen = nl != NULL ? (size_t)(nl - data) : size;
	if ((tpl = malloc(tlen + 1)) == NULL ||
	    (uri = malloc(size - tlen + 1)) == NULL)
		abort();
	memcpy(tpl, data, tlen);
	tpl[tlen] = '\0';
	if (nl != NULL) {
		memcpy(uri, nl + 1, size - tlen - 1);
		uri[size - tlen - 1] = '\0';
	} else
		uri[0] = '\0';

	wymcp__arena_init(&a);
	err[0] = '\0';
	ok = wymcp__tpl_check(tpl, err, sizeof(err));
	if (!ok && err[0] == '\0')
		fail("refused without a reason", tpl, uri);
	/* A URI comes from JSON text, which wymcp holds to UTF-8. */
	if (!ok || !wymcp__utf8_valid(tpl, strlen(tpl)) ||
	    !wymcp__utf8_valid(uri, strlen(uri)))
		goto out;
	vars = NULL;
	rc = wymcp__tpl_match(&a, tpl, uri, &vars);
	if (rc != 0 && rc != 1 && rc != -2)
		fail("an undocumented result", tpl, uri);
	if (rc != 1)
		goto out;
	check_vars(tpl, uri, vars);

	/* The expansion of what matched matches too. */
	u2 = expand(tpl, vars);
	again = NULL;
	rc = wymcp__tpl_match(&a, tpl, u2, &again);
	if (rc == 0)
		fail("the expansion of a match does not match", tpl, u2);
	if (rc == 1)
		check_vars(tpl, u2, again);
	free(u2);
out:
	wymcp__arena_free(&a);
	free(tpl);
	free(uri);
	return 0;
}
