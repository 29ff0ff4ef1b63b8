/*
 * jsonf.c - JSON text from a printf-like template (wymcp_jsonf(3))
 *
 * The template is JSON (RFC 8259) with printf(3) conversions where
 * values go: %s a string, %d and the other integer conversions a
 * number, %f, %e and %g a number, %p a json-c value.  Only conversions
 * printf(3) knows are taken, so that a compiler checks each argument's
 * type against the template (format(printf)).  A value is escaped
 * where it goes: outside a string of the template, %s writes a JSON
 * string; inside one, its characters, escaped.  The text made is then
 * parsed strictly: whatever the values, the result is JSON or nothing.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/lib.h"

/* One conversion as read from the template. */
struct spec {
	char		 conv;		/* d i u f F e E g G s p */
	char		 len[3];	/* "", "h", "hh", "l", "ll", "z", ... */
	char		 flags[8];	/* printf(3) flags */
	int		 width;		/* -1: none */
	int		 prec;		/* -1: none */
};

/* The state of one expansion. */
struct jf {
	struct wymcp__buf	*out;
	const struct wymcp__jsonf_src *src;
	int			 instr;		/* inside a template string */
	int			 n;		/* conversions read */
	char			*why;
	size_t			 whylen;
};

static int
fail(struct jf *j, const char *fmt, ...) WYMCP_PRINTF(2, 3);

/* Say why the template is at fault; -1. */
static int
fail(struct jf *j, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(j->why, j->whylen, fmt, ap);
	va_end(ap);
	return -1;
}

static int
put(struct jf *j, const char *s, size_t n)
{
	return wymcp__buf_put(j->out, s, n) ? -2 : 0;
}

/*
 * Append s[0..n) escaped as the inside of a JSON string (RFC 8259
 * section 7): '"', '\' and the control characters; anything not UTF-8
 * is refused (-1), as JSON text is UTF-8 (section 8.1).
 */
static int
escape(struct jf *j, const char *s, size_t n, const char *what)
{
	static const char	 hex[] = "0123456789abcdef";
	char			 e[6];
	size_t			 i, k, run = 0;
	unsigned char		 c;

	for (i = 0; i < n; i += k) {
		c = (unsigned char)s[i];
		k = 1;
		if (c >= 0x80 && (k = wymcp__utf8_seq(s, i, n)) == 0)
			return fail(j, "conversion %d (%s) is not UTF-8",
			    j->n, what);
		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		if (put(j, s + run, i - run))
			return -2;
		run = i + 1;
		e[0] = '\\';
		switch (c) {
		case '"':
		case '\\':
			e[1] = (char)c;
			break;
		case '\b':
			e[1] = 'b';
			break;
		case '\f':
			e[1] = 'f';
			break;
		case '\n':
			e[1] = 'n';
			break;
		case '\r':
			e[1] = 'r';
			break;
		case '\t':
			e[1] = 't';
			break;
		default:
			memcpy(e + 1, "u00", 3);
			e[4] = hex[c >> 4];
			e[5] = hex[c & 0xf];
			if (put(j, e, 6))
				return -2;
			continue;
		}
		if (put(j, e, 2))
			return -2;
	}
	return put(j, s + run, n - run);
}

/*
 * Read the conversion after '%' at *fp into sp, moving *fp past it.
 * Only what printf(3) takes and JSON can hold: no '*', no %n, no %x.
 */
static int
parse_spec(struct jf *j, const char **fp, struct spec *sp)
{
	const char	*f = *fp;
	size_t		 nf = 0, nl = 0;

	memset(sp, 0, sizeof(*sp));
	sp->width = sp->prec = -1;
	while (*f != '\0' && strchr("-+ 0#", *f) != NULL) {
		if (nf + 1 >= sizeof(sp->flags))
			return fail(j, "conversion %d has too many flags",
			    j->n);
		sp->flags[nf++] = *f++;
	}
	if (*f == '*')
		return fail(j, "conversion %d: '*' is not supported", j->n);
	if (*f >= '0' && *f <= '9')
		for (sp->width = 0; *f >= '0' && *f <= '9'; f++)
			if ((sp->width = sp->width * 10 + (*f - '0')) > 64)
				return fail(j, "conversion %d: width over 64",
				    j->n);
	if (*f == '.') {
		f++;
		if (*f == '*')
			return fail(j, "conversion %d: '*' is not supported",
			    j->n);
		for (sp->prec = 0; *f >= '0' && *f <= '9'; f++)
			if ((sp->prec = sp->prec * 10 + (*f - '0')) > 100000)
				return fail(j, "conversion %d: precision over "
				    "100000", j->n);
	}
	while (*f != '\0' && strchr("hlzjtL", *f) != NULL && nl < 2)
		sp->len[nl++] = *f++;
	sp->len[nl] = '\0';
	sp->conv = *f;
	if (*f == '\0' || strchr("diufFeEgGsp", *f) == NULL)
		return fail(j, "conversion %d: %%%.*s is not one of %%d %%i "
		    "%%u %%f %%e %%g %%s %%p", j->n,
		    (int)(f - *fp + (*f != '\0')), *fp);
	if (strchr("fFeEgG", *f) != NULL && nl > 0 && strcmp(sp->len, "l"))
		return fail(j, "conversion %d: only double is taken", j->n);
	if (strchr("sp", *f) != NULL && (nl > 0 || nf > 0 || sp->width >= 0 ||
	    (*f == 'p' && sp->prec >= 0)))
		return fail(j, "conversion %d: %%%c takes no flag, width or "
		    "length", j->n, *f);
	if ((nl == 2 && strcmp(sp->len, "hh") && strcmp(sp->len, "ll")) ||
	    (strchr(sp->len, 'L') != NULL && strchr("diu", *f) != NULL))
		return fail(j, "conversion %d: length %s is not printf's",
		    j->n, sp->len);
	*fp = f + 1;
	return 0;
}

/* The argument's kind, for the source, from the length modifier. */
static enum wymcp__jsonf_kind
kind(const struct spec *sp)
{
	int	 u = sp->conv == 'u';

	if (sp->conv == 's')
		return WYMCP__JF_STR;
	if (sp->conv == 'p')
		return WYMCP__JF_PTR;
	if (strchr("fFeEgG", sp->conv) != NULL)
		return WYMCP__JF_DOUBLE;
	if (strcmp(sp->len, "l") == 0)
		return u ? WYMCP__JF_ULONG : WYMCP__JF_LONG;
	if (strcmp(sp->len, "ll") == 0)
		return u ? WYMCP__JF_ULLONG : WYMCP__JF_LLONG;
	if (strcmp(sp->len, "z") == 0)
		return u ? WYMCP__JF_SIZE : WYMCP__JF_SSIZE;
	if (strcmp(sp->len, "j") == 0)
		return u ? WYMCP__JF_UINTMAX : WYMCP__JF_INTMAX;
	if (strcmp(sp->len, "t") == 0)
		return WYMCP__JF_PTRDIFF;
	return u ? WYMCP__JF_UINT : WYMCP__JF_INT;	/* int, h, hh */
}

/*
 * Write one number as printf(3) would, with the template's spec: a
 * format made here of checked flags, width and precision, and the
 * widest conversion of the value's kind (hence the pragma).
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static int
number(struct jf *j, const struct spec *sp, const union wymcp__jsonf_val *v)
{
	union wymcp__jsonf_val	 w;
	char			 f[32], num[512];
	int			 n;

	/* The spec again: flags, width, precision; the value's length. */
	n = snprintf(f, sizeof(f), "%%%s", sp->flags);
	if (sp->width >= 0)
		n += snprintf(f + n, sizeof(f) - n, "%d", sp->width);
	if (sp->prec >= 0)
		n += snprintf(f + n, sizeof(f) - n, ".%d", sp->prec);
	/* As printf(3): h and hh convert the int to short and char. */
	w = *v;
	if (strcmp(sp->len, "hh") == 0 && sp->conv == 'u')
		w.u = (unsigned char)v->u;
	else if (strcmp(sp->len, "hh") == 0)
		w.i = (signed char)v->i;
	else if (strcmp(sp->len, "h") == 0 && sp->conv == 'u')
		w.u = (unsigned short)v->u;
	else if (strcmp(sp->len, "h") == 0)
		w.i = (short)v->i;
	v = &w;
	switch (kind(sp)) {
	case WYMCP__JF_DOUBLE:
		if (!isfinite(v->d))
			return fail(j, "conversion %d (%%%c) is not a finite "
			    "number", j->n, sp->conv);
		snprintf(f + n, sizeof(f) - n, "%c", sp->conv);
		n = snprintf(num, sizeof(num), f, v->d);
		break;
	case WYMCP__JF_INT:
	case WYMCP__JF_LONG:
	case WYMCP__JF_LLONG:
	case WYMCP__JF_SSIZE:
	case WYMCP__JF_INTMAX:
	case WYMCP__JF_PTRDIFF:
		snprintf(f + n, sizeof(f) - n, "lld");
		n = snprintf(num, sizeof(num), f, v->i);
		break;
	default:
		snprintf(f + n, sizeof(f) - n, "llu");
		n = snprintf(num, sizeof(num), f, v->u);
		break;
	}
	if (n < 0 || (size_t)n >= sizeof(num))
		return fail(j, "conversion %d is too long", j->n);
	return put(j, num, n);
}
#pragma GCC diagnostic pop

/* Write one conversion's value where the template has it. */
static int
convert(struct jf *j, const struct spec *sp)
{
	union wymcp__jsonf_val	 v;
	const char		*s;
	size_t			 n;
	int			 rc;

	memset(&v, 0, sizeof(v));
	j->src->get(j->src->arg, kind(sp), &v);
	if (sp->conv == 's') {
		if (v.s == NULL) {
			if (j->instr)
				return fail(j, "conversion %d (%%s) is NULL "
				    "inside a string", j->n);
			return put(j, "null", 4);
		}
		n = strlen(v.s);
		if (sp->prec >= 0 && (size_t)sp->prec < n) {
			/* At most prec bytes, ending on a character. */
			n = sp->prec;
			while (n > 0 && ((unsigned char)v.s[n] & 0xc0) == 0x80)
				n--;
		}
		if (!j->instr && (rc = put(j, "\"", 1)) != 0)
			return rc;
		if ((rc = escape(j, v.s, n, "%s")) != 0)
			return rc;
		return j->instr ? 0 : put(j, "\"", 1);
	}
	if (sp->conv == 'p') {
		/* NULL: a builder that failed, never JSON's null. */
		if (v.p == NULL)
			return fail(j, "conversion %d (%%p) is NULL", j->n);
		if ((s = wymcp__json(v.p)) == NULL)
			return -2;
		if (!j->instr)
			return put(j, s, strlen(s));
		return escape(j, s, strlen(s), "%p");
	}
	return number(j, sp, &v);
}

/*
 * Expand `fmt' into out (NUL-terminated): 0, -1 when the template is
 * at fault (why says how), -2 out of memory.
 */
int
wymcp__jsonf_expand(struct wymcp__buf *out, const char *fmt,
    const struct wymcp__jsonf_src *src, char *why, size_t whylen)
{
	struct jf	 j;
	struct spec	 sp;
	const char	*f, *run;
	int		 rc;

	memset(&j, 0, sizeof(j));
	j.out = out;
	j.src = src;
	j.why = why;
	j.whylen = whylen;
	why[0] = '\0';
	for (f = run = fmt; *f != '\0'; ) {
		if (*f != '%') {
			if (j.instr && *f == '\\' && f[1] != '\0')
				f++;
			else if (*f == '"')
				j.instr = !j.instr;
			f++;
			continue;
		}
		if ((rc = put(&j, run, f - run)) != 0)
			return rc;
		if (f[1] == '%') {
			if ((rc = put(&j, "%", 1)) != 0)
				return rc;
			run = f += 2;
			continue;
		}
		f++;
		j.n++;
		if ((rc = parse_spec(&j, &f, &sp)) != 0 ||
		    (rc = convert(&j, &sp)) != 0)
			return rc;
		run = f;
	}
	if ((rc = put(&j, run, f - run)) != 0 || (rc = put(&j, "", 1)) != 0)
		return rc;
	out->len--;
	return 0;
}

/* The va_list source: each kind read as its C type is passed. */
static void
va_get(void *arg, enum wymcp__jsonf_kind k, union wymcp__jsonf_val *v)
{
	va_list	*ap = arg;

	switch (k) {
	case WYMCP__JF_INT:
		v->i = va_arg(*ap, int);
		break;
	case WYMCP__JF_UINT:
		v->u = va_arg(*ap, unsigned int);
		break;
	case WYMCP__JF_LONG:
		v->i = va_arg(*ap, long);
		break;
	case WYMCP__JF_ULONG:
		v->u = va_arg(*ap, unsigned long);
		break;
	case WYMCP__JF_LLONG:
		v->i = va_arg(*ap, long long);
		break;
	case WYMCP__JF_ULLONG:
		v->u = va_arg(*ap, unsigned long long);
		break;
	case WYMCP__JF_SSIZE:
		v->i = va_arg(*ap, ssize_t);
		break;
	case WYMCP__JF_SIZE:
		v->u = va_arg(*ap, size_t);
		break;
	case WYMCP__JF_INTMAX:
		v->i = va_arg(*ap, intmax_t);
		break;
	case WYMCP__JF_UINTMAX:
		v->u = va_arg(*ap, uintmax_t);
		break;
	case WYMCP__JF_PTRDIFF:
		v->i = va_arg(*ap, ptrdiff_t);
		break;
	case WYMCP__JF_DOUBLE:
		v->d = va_arg(*ap, double);
		break;
	case WYMCP__JF_STR:
		v->s = va_arg(*ap, const char *);
		break;
	case WYMCP__JF_PTR:
		v->p = va_arg(*ap, struct json_object *);
		break;
	}
}

/*
 * The JSON value of `fmt' with the values from src: a new object
 * (caller puts it), or NULL with *nomem 1 out of memory, else 0 and
 * why saying what is wrong with the template.
 */
struct json_object *
wymcp__jsonf(const char *fmt, const struct wymcp__jsonf_src *src,
    char *why, size_t whylen, int *nomem)
{
	struct wymcp__buf	 b = { NULL, 0, 0 };
	struct json_object	*o = NULL;
	enum wymcp__json_fault	 fault;
	int			 rc;

	*nomem = 0;
	if ((rc = wymcp__jsonf_expand(&b, fmt, src, why, whylen)) != 0) {
		*nomem = rc == -2;
		goto out;
	}
	o = wymcp__parse_ex(b.p, b.len, &fault);
	switch (fault) {
	case WYMCP__JSON_OK:
		break;
	case WYMCP__JSON_NOMEM:
		*nomem = 1;
		break;
	case WYMCP__JSON_NULL:
		snprintf(why, whylen, "the template gives null");
		break;
	case WYMCP__JSON_DUPLICATE:
		snprintf(why, whylen, "an object names a member twice");
		break;
	case WYMCP__JSON_NUL:
		snprintf(why, whylen, "a string holds U+0000");
		break;
	default:
		snprintf(why, whylen, "the text it gives is not JSON");
		break;
	}
	if (fault != WYMCP__JSON_OK && o != NULL) {
		json_object_put(o);
		o = NULL;
	}
out:
	wymcp__buf_free(&b);
	return o;
}

/* As wymcp__jsonf(), the values from `ap'. */
struct json_object *
wymcp__vjsonf(const char *fmt, va_list ap, char *why, size_t whylen,
    int *nomem)
{
	struct wymcp__jsonf_src	 src;
	struct json_object	*o;
	va_list			 cp;

	va_copy(cp, ap);
	src.get = va_get;
	src.arg = &cp;
	o = wymcp__jsonf(fmt, &src, why, whylen, nomem);
	va_end(cp);
	return o;
}
