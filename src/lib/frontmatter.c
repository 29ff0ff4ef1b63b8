/*
 * frontmatter.c - the YAML frontmatter of a SKILL.md, as JSON
 *
 * Agent Skills (agentskills.io/specification): a SKILL.md begins with
 * "---", YAML, "---".  The skills extension (ext-skills/skills.mdx
 * "Frontmatter") serves that YAML "rendered verbatim as a JSON object",
 * and a host compares it with what its own YAML parser makes of the
 * file, so wymcp must read it exactly as YAML 1.2 (core schema) does.
 * It reads a subset, and refuses, with the rule, whatever is outside
 * it rather than guess:
 *
 *	- block mappings, nested by indentation (spaces, no tabs), keys
 *	  plain (a letter, digit or '_' first; no space before ':'),
 *	  each key once;
 *	- scalars on the key's line: plain, 'single' or "double" quoted;
 *	  plain ones typed as the core schema types them (null, ~,
 *	  true/false, decimal integers within 2^53, decimal fractions),
 *	  everything else a string;
 *	- comment lines and " #" comments after a value.
 *
 * Not read (refused): block and flow sequences, flow mappings, block
 * scalars (| >), multi-line scalars, anchors, aliases, tags,
 * directives, octal, hexadecimal, .inf and .nan.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "lib/lib.h"

#define FM_DEPTH	16	/* nested mappings */
#define INT_MAX53	9007199254740991LL	/* 2^53 - 1 */

/* One line of the frontmatter: [p, p + len), 1-based number. */
struct fm_line {
	const char	*p;
	size_t		 len;
	size_t		 indent;
	size_t		 no;
};

struct fm {
	struct fm_line	*lines;
	size_t		 n;
	size_t		 at;		/* next line to read */
	char		*err;
	size_t		 errlen;
};

static int	fail(struct fm *, size_t, const char *, ...)
		    WYMCP_PRINTF(3, 4);

/* Say why (on line `no', 0: no line), and return -1. */
static int
fail(struct fm *f, size_t no, const char *fmt, ...)
{
	va_list	 ap;
	char	 msg[200];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (no > 0)
		snprintf(f->err, f->errlen, "frontmatter line %zu: %s", no,
		    msg);
	else
		snprintf(f->err, f->errlen, "%s", msg);
	return -1;
}

/* Is a line blank or a comment (nothing for the mapping)? */
static int
empty_line(const struct fm_line *l)
{
	return l->indent == l->len || l->p[l->indent] == '#';
}

/* Do [p, p+len) spell one of the words of `list' (NULL-ended)? */
static int
word_in(const char *p, size_t len, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strlen(*list) == len && memcmp(p, *list, len) == 0)
			return 1;
	return 0;
}

/* How many of p[0..len) are spaces (and tabs, with `tabs'). */
static size_t
blanks(const char *p, size_t len, int tabs)
{
	size_t	 i;

	for (i = 0; i < len && (p[i] == ' ' || (tabs && p[i] == '\t'));
	    i++)
		continue;
	return i;
}

/*
 * Is p[0..len) free of the characters YAML does not print: C0 controls
 * but the tab, DEL, C1 controls but NEL (UTF-8 checked apart)?
 */
static int
printable(const char *p, size_t len)
{
	const unsigned char	*u = (const unsigned char *)p;
	size_t			 i;

	for (i = 0; i < len; i++) {
		if ((u[i] < 0x20 && u[i] != '\t') || u[i] == 0x7f)
			return 0;
		if (u[i] == 0xc2 && i + 1 < len && u[i + 1] >= 0x80 &&
		    u[i + 1] <= 0x9f && u[i + 1] != 0x85)
			return 0;
	}
	return 1;
}

static int
is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * A plain scalar as the core schema types it: a new JSON value in *out
 * (NULL for null), or -1 with the rule for a form wymcp does not read.
 */
static int
plain_value(struct fm *f, size_t no, const char *p, size_t len,
    struct json_object **out)
{
	static const char *const nulls[] = { "~", "null", "Null", "NULL",
	    NULL };
	static const char *const trues[] = { "true", "True", "TRUE", NULL };
	static const char *const falses[] = { "false", "False", "FALSE",
	    NULL };
	char		 buf[64];
	char		*end;
	size_t		 i = 0, digits = 0;
	long long	 v;
	double		 d;
	int		 frac = 0;

	*out = NULL;
	if (word_in(p, len, nulls))
		return 0;
	if (word_in(p, len, trues) || word_in(p, len, falses)) {
		*out = json_object_new_boolean(word_in(p, len, trues));
		return *out == NULL ? fail(f, 0, "%s", "out of memory") : 0;
	}
	/* [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
	if (i < len && (p[i] == '-' || p[i] == '+'))
		i++;
	while (i < len && is_digit(p[i]))
		i++, digits++;
	if (i < len && p[i] == '.') {
		frac = 1;
		for (i++; i < len && is_digit(p[i]); i++)
			digits++;
	}
	if (digits > 0 && i < len && (p[i] == 'e' || p[i] == 'E')) {
		frac = 1;
		i++;
		if (i < len && (p[i] == '-' || p[i] == '+'))
			i++;
		if (i == len || !is_digit(p[i]))
			digits = 0;
		while (i < len && is_digit(p[i]))
			i++;
	}
	if (digits > 0 && i == len) {
		if (len >= sizeof(buf))
			return fail(f, no, "%s", "a number longer than 63 "
			    "characters");
		memcpy(buf, p, len);
		buf[len] = '\0';
		errno = 0;
		if (!frac) {
			v = strtoll(buf, &end, 10);
			if (errno != 0 || v > INT_MAX53 || v < -INT_MAX53)
				return fail(f, no, "%s", "an integer beyond "
				    "2^53 (a host could not read it exactly)");
			*out = json_object_new_int64(v);
		} else {
			d = strtod(buf, &end);
			if (!isfinite(d))
				return fail(f, no, "%s", "a number beyond "
				    "the range of a double");
			*out = json_object_new_double(d);
		}
		return *out == NULL ? fail(f, 0, "%s", "out of memory") : 0;
	}
	if (len > 1 && p[0] == '0' && (p[1] == 'o' || p[1] == 'x'))
		return fail(f, no, "%s", "octal and hexadecimal numbers are "
		    "not read (quote the value)");
	i = len > 0 && (p[0] == '-' || p[0] == '+');
	if (len - i == 4 && p[i] == '.' && (strncasecmp(p + i + 1, "inf",
	    3) == 0 || strncasecmp(p + i + 1, "nan", 3) == 0))
		return fail(f, no, "%s", ".inf and .nan are not read (quote "
		    "the value)");
	*out = json_object_new_string_len(p, (int)len);
	return *out == NULL ? fail(f, 0, "%s", "out of memory") : 0;
}

/* The value of 4 hexadecimal digits, or -1. */
static long
hex4(const char *p)
{
	long	 v = 0;
	int	 i;

	for (i = 0; i < 4; i++) {
		v <<= 4;
		if (is_digit(p[i]))
			v |= p[i] - '0';
		else if (p[i] >= 'a' && p[i] <= 'f')
			v |= p[i] - 'a' + 10;
		else if (p[i] >= 'A' && p[i] <= 'F')
			v |= p[i] - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/*
 * A quoted scalar starting at p[0] (' or "), on one line: the string in
 * *out and its length, consumed in *used.  -1 with the rule.
 */
static int
quoted_value(struct fm *f, size_t no, const char *p, size_t len,
    struct json_object **out, size_t *used)
{
	char	 q = p[0], *s;
	size_t	 i, o = 0;
	long	 cp;

	if ((s = malloc(len + 1)) == NULL)
		return fail(f, 0, "%s", "out of memory");
	for (i = 1; i < len; i++) {
		if (p[i] == q) {
			if (q == '\'' && i + 1 < len && p[i + 1] == '\'') {
				s[o++] = '\'';
				i++;
				continue;
			}
			break;
		}
		if (q == '\'' || p[i] != '\\') {
			s[o++] = p[i];
			continue;
		}
		if (++i == len)
			break;
		switch (p[i]) {
		case '\\': case '"': case '/':
			s[o++] = p[i];
			break;
		case 'n':
			s[o++] = '\n';
			break;
		case 't':
			s[o++] = '\t';
			break;
		case 'r':
			s[o++] = '\r';
			break;
		case 'u':
			cp = i + 4 < len ? hex4(p + i + 1) : -1;
			if (cp <= 0 || (cp >= 0xd800 && cp <= 0xdfff)) {
				free(s);
				return fail(f, no, "%s", "\\u must be four "
				    "hexadecimal digits of a character other "
				    "than U+0000 and the surrogates");
			}
			i += 4;
			if (cp < 0x80)
				s[o++] = (char)cp;
			else if (cp < 0x800) {
				s[o++] = (char)(0xc0 | (cp >> 6));
				s[o++] = (char)(0x80 | (cp & 0x3f));
			} else {
				s[o++] = (char)(0xe0 | (cp >> 12));
				s[o++] = (char)(0x80 | ((cp >> 6) & 0x3f));
				s[o++] = (char)(0x80 | (cp & 0x3f));
			}
			break;
		default:
			free(s);
			return fail(f, no, "%s", "a double-quoted string "
			    "escapes only \\\\ \\\" \\/ \\n \\t \\r and "
			    "\\uXXXX");
		}
	}
	if (i >= len) {
		free(s);
		return fail(f, no, "%s", "a quoted string must end on its "
		    "line");
	}
	*used = i + 1;
	*out = json_object_new_string_len(s, (int)o);
	free(s);
	return *out == NULL ? fail(f, 0, "%s", "out of memory") : 0;
}

/*
 * The value after "key:" on line l, from p (spaces skipped): a scalar
 * in *out (NULL for null), *nested 1 when nothing but a comment is
 * there (a mapping may follow).
 */
static int
line_value(struct fm *f, const struct fm_line *l, const char *p,
    struct json_object **out, int *nested)
{
	const char	*end = l->p + l->len, *c;
	size_t		 len, used = 0;

	*out = NULL;
	*nested = 0;
	while (p < end && *p == ' ')
		p++;
	if (p == end || *p == '#') {
		*nested = 1;
		return 0;
	}
	if (*p == '\t')
		return fail(f, l->no, "%s", "a tab before a value");
	if (*p == '\'' || *p == '"') {
		if (quoted_value(f, l->no, p, (size_t)(end - p), out,
		    &used) != 0)
			return -1;
		for (c = p + used; c < end && (*c == ' ' || *c == '\t'); c++)
			continue;
		if (c < end && (*c != '#' || c == p + used)) {
			json_object_put(*out);
			*out = NULL;
			return fail(f, l->no, "%s", "text after a quoted "
			    "string");
		}
		return 0;
	}
	if (strchr("[]{},&*!|>%@`", *p) != NULL ||
	    ((*p == '-' || *p == '?' || *p == ':') && (p + 1 == end ||
	    p[1] == ' ')) || *p == '?' || *p == ':')
		return fail(f, l->no, "a value starting with '%c' (sequences, "
		    "flow collections, block scalars, anchors, aliases and "
		    "tags are not read; quote a string)", *p);
	/* A plain scalar ends at " #"; it cannot hold ": " nor end ':'. */
	for (c = p; c < end; c++) {
		if ((*c == ' ' || *c == '\t') && c + 1 < end && c[1] == '#')
			break;
		if (*c == ':' && (c + 1 == end || c[1] == ' ' ||
		    c[1] == '\t'))
			return fail(f, l->no, "%s", "a plain value holding "
			    "\": \" or ending with ':' (quote it)");
	}
	while (c > p && (c[-1] == ' ' || c[-1] == '\t'))
		c--;
	len = (size_t)(c - p);
	return plain_value(f, l->no, p, len, out);
}

/*
 * The mapping whose keys are at `indent' from line f->at on, into obj,
 * up to the first line indented less.
 */
static int
mapping(struct fm *f, size_t indent, struct json_object *obj, int depth)
{
	struct json_object	*v;
	const struct fm_line	*l, *nl;
	const char		*p, *k, *kend;
	char			*key;
	size_t			 next;
	int			 nested, rc;

	if (depth > FM_DEPTH)
		return fail(f, 0, "%s", "mappings nested more than 16 deep");
	while (f->at < f->n) {
		l = &f->lines[f->at];
		if (empty_line(l)) {
			f->at++;
			continue;
		}
		if (l->indent < indent)
			return 0;
		if (l->indent > indent)
			return fail(f, l->no, "%s", "unexpected indentation "
			    "(a value on several lines is not read)");
		k = p = l->p + l->indent;
		if (!(is_digit(*p) || (*p >= 'a' && *p <= 'z') ||
		    (*p >= 'A' && *p <= 'Z') || *p == '_'))
			return fail(f, l->no, "%s", "a key must start with a "
			    "letter, a digit or '_' (sequences and quoted or "
			    "complex keys are not read)");
		kend = NULL;
		for (; p < l->p + l->len; p++) {
			if (*p == ':' && (p + 1 == l->p + l->len ||
			    p[1] == ' ')) {
				kend = p;
				break;
			}
			if (*p == ' ' || *p == '\t' || *p == '#')
				break;
		}
		if (kend == NULL)
			return fail(f, l->no, "%s", "expected \"key: value\" "
			    "(a key holds no blanks)");
		if ((key = strndup(k, (size_t)(kend - k))) == NULL)
			return fail(f, 0, "%s", "out of memory");
		if (json_object_object_get_ex(obj, key, NULL)) {
			rc = fail(f, l->no, "key '%.60s' given twice", key);
			free(key);
			return rc;
		}
		if (line_value(f, l, kend + 1, &v, &nested) != 0) {
			free(key);
			return -1;
		}
		f->at++;
		if (nested) {
			for (next = f->at; next < f->n &&
			    empty_line(&f->lines[next]); next++)
				continue;
			nl = next < f->n ? &f->lines[next] : NULL;
			if (nl != NULL && nl->indent > indent) {
				if ((v = json_object_new_object()) == NULL) {
					free(key);
					return fail(f, 0, "%s",
					    "out of memory");
				}
				if (mapping(f, nl->indent, v, depth + 1)) {
					json_object_put(v);
					free(key);
					return -1;
				}
			}
		}
		rc = json_object_object_add(obj, key, v);
		free(key);
		if (rc != 0) {
			json_object_put(v);
			return fail(f, 0, "%s", "out of memory");
		}
	}
	return 0;
}

/*
 * Line `no' of the frontmatter, p[0..ll), appended to f->lines (`cap'
 * of them allocated): printable, not indented with a tab, not a YAML
 * directive.  0, or -1 with the rule broken in f->err.
 */
static int
add_line(struct fm *f, size_t *cap, const char *p, size_t ll, size_t no)
{
	struct fm_line	*nt;

	if (!printable(p, ll))
		return fail(f, no, "%s", "a control character (YAML reads "
		    "printable characters only)");
	if (f->n == *cap) {
		*cap = *cap ? *cap * 2 : 32;
		if ((nt = reallocarray(f->lines, *cap, sizeof(*nt))) == NULL)
			return fail(f, 0, "%s", "out of memory");
		f->lines = nt;
	}
	f->lines[f->n].p = p;
	f->lines[f->n].len = ll;
	f->lines[f->n].no = no;
	f->lines[f->n].indent = blanks(p, ll, 0);
	if (f->lines[f->n].indent < ll && p[f->lines[f->n].indent] == '\t')
		return fail(f, no, "%s", "a tab in the indentation (YAML "
		    "indents with spaces)");
	if (f->n == 0 && ll > 0 && *p == '%')
		return fail(f, no, "%s", "a YAML directive");
	f->n++;
	return 0;
}

/*
 * Parse the frontmatter at the start of buf[0..len): a new object in
 * *out and the offset of the body after the closing "---" in *body.
 * -1 with the rule broken in err ("out of memory" included).
 */
int
wymcp__frontmatter(const char *buf, size_t len, struct json_object **out,
    size_t *body, char *err, size_t errlen)
{
	struct fm	 f;
	const char	*p, *nl, *end = buf + len;
	size_t		 cap = 0, no = 1, ll;
	int		 closed = 0, rc = -1;

	memset(&f, 0, sizeof(f));
	f.err = err;
	f.errlen = errlen;
	*out = NULL;
	if (len < 4 || memcmp(buf, "---", 3) != 0 ||
	    (buf[3] != '\n' && !(buf[3] == '\r' && len > 4 &&
	    buf[4] == '\n')))
		return fail(&f, 0, "%s", "the file must begin with a "
		    "\"---\" line (YAML frontmatter)");
	p = buf + (buf[3] == '\n' ? 4 : 5);
	while (p < end) {
		no++;
		nl = memchr(p, '\n', (size_t)(end - p));
		ll = nl == NULL ? (size_t)(end - p) : (size_t)(nl - p);
		if (ll > 0 && p[ll - 1] == '\r')
			ll--;
		if (ll >= 3 && memcmp(p, "---", 3) == 0 &&
		    blanks(p + 3, ll - 3, 1) == ll - 3) {
			closed = 1;
			p = nl == NULL ? end : nl + 1;
			break;
		}
		if (ll >= 3 && memcmp(p, "...", 3) == 0 &&
		    blanks(p + 3, ll - 3, 1) == ll - 3) {
			rc = fail(&f, no, "%s", "a \"...\" document end");
			goto done;
		}
		if (add_line(&f, &cap, p, ll, no) != 0)
			goto done;
		if (nl == NULL)
			p = end;
		else
			p = nl + 1;
	}
	if (!closed) {
		rc = fail(&f, 0, "%s", "the frontmatter has no closing "
		    "\"---\" line");
		goto done;
	}
	if (!wymcp__utf8_valid(buf, (size_t)(p - buf))) {
		rc = fail(&f, 0, "%s", "the frontmatter is not UTF-8");
		goto done;
	}
	if ((*out = json_object_new_object()) == NULL) {
		rc = fail(&f, 0, "%s", "out of memory");
		goto done;
	}
	if (mapping(&f, 0, *out, 1) != 0) {
		json_object_put(*out);
		*out = NULL;
		goto done;
	}
	if (f.at < f.n) {
		rc = fail(&f, f.lines[f.at].no, "%s", "unexpected "
		    "indentation");
		json_object_put(*out);
		*out = NULL;
		goto done;
	}
	*body = (size_t)(p - buf);
	rc = 0;
done:
	free(f.lines);
	return rc;
}
