/*
 * text.c - bytes, UTF-8, base64, header values and word lists
 *
 * Small checks shared by every layer; none allocates except through an
 * arena it is given.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/lib.h"

/*
 * A checked header value may hold VCHAR (0x21-0x7E), SP and HTAB only
 * (streamable-http.mdx "invalid characters").  Returns 1 when it does.
 */
int
wymcp__header_chars_ok(const char *v)
{
	const unsigned char	*p;

	for (p = (const unsigned char *)v; *p != '\0'; p++)
		if (!(*p == ' ' || *p == '\t' || (*p >= 0x21 && *p <= 0x7e)))
			return 0;
	return 1;
}

/*
 * The value without leading and trailing SP/HTAB (HTTP OWS).  Returns
 * `v` itself when there is nothing to trim, else an arena copy; NULL on
 * allocation failure.
 */
const char *
wymcp__header_trim(struct wymcp__arena *a, const char *v)
{
	size_t	 len;

	while (*v == ' ' || *v == '\t')
		v++;
	len = strlen(v);
	if (len == 0 || (v[len - 1] != ' ' && v[len - 1] != '\t'))
		return v;
	while (len > 0 && (v[len - 1] == ' ' || v[len - 1] == '\t'))
		len--;
	return wymcp__arena_strndup(a, v, len);
}

/*
 * A value quoted in an error message or a log line: at most
 * WYMCP__QUOTE_MAX bytes, cut on a UTF-8 boundary, "..." when cut,
 * control bytes as '?'.  In the arena; never NULL ("" when out of
 * memory), so it can go straight into a format.
 */
const char *
wymcp__quote(struct wymcp__arena *a, const char *v, size_t len)
{
	char	*s;
	size_t	 n = len, i;

	if (v == NULL)
		return "";
	if (n > WYMCP__QUOTE_MAX) {
		n = WYMCP__QUOTE_MAX;
		while (n > 0 && ((unsigned char)v[n] & 0xc0) == 0x80)
			n--;
	}
	if ((s = wymcp__arena_alloc(a, n + 4)) == NULL)
		return "";
	for (i = 0; i < n; i++)
		s[i] = (unsigned char)v[i] < 0x20 || v[i] == 0x7f ? '?' : v[i];
	if (n < len) {
		memcpy(s + n, "...", 3);
		n += 3;
	}
	s[n] = '\0';
	return s;
}

/*
 * The base64 digits (RFC 4648 section 4) and base64url's (section 5):
 * a digit's value in the low six bits, and which alphabets have it
 * (zero: a character neither has).  One load per character, which is
 * what decoding a requestState does most.
 */
#define B64_STD		0x80
#define B64_URL		0x40
#define B64_BOTH	(B64_STD | B64_URL)

static const unsigned char b64digit[256] = {
	['A'] = 0 | B64_BOTH, ['B'] = 1 | B64_BOTH, ['C'] = 2 | B64_BOTH,
	['D'] = 3 | B64_BOTH, ['E'] = 4 | B64_BOTH, ['F'] = 5 | B64_BOTH,
	['G'] = 6 | B64_BOTH, ['H'] = 7 | B64_BOTH, ['I'] = 8 | B64_BOTH,
	['J'] = 9 | B64_BOTH, ['K'] = 10 | B64_BOTH, ['L'] = 11 | B64_BOTH,
	['M'] = 12 | B64_BOTH, ['N'] = 13 | B64_BOTH, ['O'] = 14 | B64_BOTH,
	['P'] = 15 | B64_BOTH, ['Q'] = 16 | B64_BOTH, ['R'] = 17 | B64_BOTH,
	['S'] = 18 | B64_BOTH, ['T'] = 19 | B64_BOTH, ['U'] = 20 | B64_BOTH,
	['V'] = 21 | B64_BOTH, ['W'] = 22 | B64_BOTH, ['X'] = 23 | B64_BOTH,
	['Y'] = 24 | B64_BOTH, ['Z'] = 25 | B64_BOTH, ['a'] = 26 | B64_BOTH,
	['b'] = 27 | B64_BOTH, ['c'] = 28 | B64_BOTH, ['d'] = 29 | B64_BOTH,
	['e'] = 30 | B64_BOTH, ['f'] = 31 | B64_BOTH, ['g'] = 32 | B64_BOTH,
	['h'] = 33 | B64_BOTH, ['i'] = 34 | B64_BOTH, ['j'] = 35 | B64_BOTH,
	['k'] = 36 | B64_BOTH, ['l'] = 37 | B64_BOTH, ['m'] = 38 | B64_BOTH,
	['n'] = 39 | B64_BOTH, ['o'] = 40 | B64_BOTH, ['p'] = 41 | B64_BOTH,
	['q'] = 42 | B64_BOTH, ['r'] = 43 | B64_BOTH, ['s'] = 44 | B64_BOTH,
	['t'] = 45 | B64_BOTH, ['u'] = 46 | B64_BOTH, ['v'] = 47 | B64_BOTH,
	['w'] = 48 | B64_BOTH, ['x'] = 49 | B64_BOTH, ['y'] = 50 | B64_BOTH,
	['z'] = 51 | B64_BOTH, ['0'] = 52 | B64_BOTH, ['1'] = 53 | B64_BOTH,
	['2'] = 54 | B64_BOTH, ['3'] = 55 | B64_BOTH, ['4'] = 56 | B64_BOTH,
	['5'] = 57 | B64_BOTH, ['6'] = 58 | B64_BOTH, ['7'] = 59 | B64_BOTH,
	['8'] = 60 | B64_BOTH, ['9'] = 61 | B64_BOTH,
	['+'] = 62 | B64_STD, ['/'] = 63 | B64_STD,
	['-'] = 62 | B64_URL, ['_'] = 63 | B64_URL
};

/*
 * The value of one base64 character, or -1: the standard alphabet, or
 * with `url' the base64url one.
 */
static inline int
b64val(unsigned char c, int url)
{
	unsigned char	 d = b64digit[c];

	return d & (url ? B64_URL : B64_STD) ? d & 63 : -1;
}

/*
 * Strict RFC 4648 section 4 base64: the standard alphabet, length a
 * multiple of four, '=' padding only at the end.  `out` must hold
 * inlen / 4 * 3 bytes.  Returns 0 and sets *outlen, or -1.
 */
int
wymcp__base64_decode(const char *in, size_t inlen, unsigned char *out,
    size_t *outlen)
{
	size_t		 i, n = 0, pad = 0;
	int		 v[4], k;

	if (inlen % 4 != 0)
		return -1;
	if (inlen >= 1 && in[inlen - 1] == '=')
		pad++;
	if (inlen >= 2 && in[inlen - 2] == '=')
		pad++;
	for (i = 0; i < inlen; i += 4) {
		for (k = 0; k < 4; k++) {
			if (in[i + k] == '=' && i + 4 == inlen &&
			    (size_t)k >= 4 - pad) {
				v[k] = 0;
				continue;
			}
			if ((v[k] = b64val((unsigned char)in[i + k], 0)) < 0)
				return -1;
		}
		out[n++] = (unsigned char)(v[0] << 2 | v[1] >> 4);
		if (i + 4 < inlen || pad < 2)
			out[n++] = (unsigned char)((v[1] & 0xf) << 4 |
			    v[2] >> 2);
		if (i + 4 < inlen || pad < 1)
			out[n++] = (unsigned char)((v[2] & 0x3) << 6 | v[3]);
	}
	/* Non-canonical trailing bits are not tolerated either. */
	if (pad == 1 && (v[2] & 0x3) != 0)
		return -1;
	if (pad == 2 && (v[1] & 0xf) != 0)
		return -1;
	*outlen = n;
	return 0;
}

/*
 * The length of the well-formed UTF-8 sequence at p[i] (a byte of 0x80
 * or more: no overlong, no surrogate, nothing past U+10FFFF), or 0.
 */
size_t
wymcp__utf8_seq(const char *s, size_t i, size_t len)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 n, k;
	unsigned int		 cp;

	if ((p[i] & 0xe0) == 0xc0) {
		n = 1;
		cp = p[i] & 0x1f;
	} else if ((p[i] & 0xf0) == 0xe0) {
		n = 2;
		cp = p[i] & 0x0f;
	} else if ((p[i] & 0xf8) == 0xf0) {
		n = 3;
		cp = p[i] & 0x07;
	} else
		return 0;
	if (len - i <= n)
		return 0;
	for (k = 1; k <= n; k++) {
		if ((p[i + k] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i + k] & 0x3f);
	}
	if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) ||
	    (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n + 1;
}

/* 1 when the bytes are well-formed UTF-8 (no overlongs, no surrogates). */
int
wymcp__utf8_valid(const char *s, size_t len)
{
	size_t	 i = 0, n;

	while (i < len) {
		if ((unsigned char)s[i] < 0x80)
			i++;
		else if ((n = wymcp__utf8_seq(s, i, len)) == 0)
			return 0;
		else
			i += n;
	}
	return 1;
}

/*
 * Decode a header value that may use the base64 sentinel
 * "=?base64?...?=" (streamable-http.mdx "Custom Headers").  A value
 * without both the exact lower-case prefix and the suffix is literal.
 * Returns 0 with *out (arena-owned, NUL-terminated) and *outlen, or -1
 * when the sentinel holds invalid base64 or the bytes are not UTF-8.
 */
int
wymcp__sentinel_decode(struct wymcp__arena *a, const char *v,
    const char **out, size_t *outlen)
{
	static const char	 pre[] = "=?base64?", suf[] = "?=";
	size_t			 len = strlen(v), inlen, n;
	unsigned char		*buf;

	if (len < sizeof(pre) - 1 + sizeof(suf) - 1 ||
	    strncmp(v, pre, sizeof(pre) - 1) != 0 ||
	    strcmp(v + len - (sizeof(suf) - 1), suf) != 0) {
		*out = v;
		*outlen = len;
		return 0;
	}
	inlen = len - (sizeof(pre) - 1) - (sizeof(suf) - 1);
	if ((buf = wymcp__arena_alloc(a, inlen / 4 * 3 + 1)) == NULL)
		return -1;
	if (wymcp__base64_decode(v + sizeof(pre) - 1, inlen, buf, &n))
		return -1;
	if (!wymcp__utf8_valid((const char *)buf, n))
		return -1;
	buf[n] = '\0';
	*out = (const char *)buf;
	*outlen = n;
	return 0;
}

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

/*
 * Is `s` base64 (RFC 4648 section 4, the standard alphabet, padded)?
 * The empty string is the encoding of nothing.
 */
int
wymcp__base64_ok(const char *s)
{
	size_t	 n = strlen(s), i, pad = 0;

	if (n % 4 != 0)
		return 0;
	if (n > 0 && s[n - 1] == '=')
		pad = n > 1 && s[n - 2] == '=' ? 2 : 1;
	for (i = 0; i < n - pad; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' &&
		    s[i] <= 'Z')) &&
		    !(s[i] >= '0' && s[i] <= '9') && s[i] != '+' &&
		    s[i] != '/')
			return 0;
	return 1;
}

/*
 * MCP log levels by syslog priority (logging.mdx "Log Levels", RFC 5424
 * section 6.2.1): WYMCP_LOG_EMERG (0) is "emergency", WYMCP_LOG_DEBUG
 * (7) "debug".
 */
static const char *const levels[] = {
	"emergency", "alert", "critical", "error",
	"warning", "notice", "info", "debug"
};
#define NLEVELS	(sizeof(levels) / sizeof(levels[0]))

/* The MCP level name of a syslog priority (clamped to debug). */
const char *
wymcp__log_level_name(int prio)
{
	if (prio < 0)
		prio = 0;
	if ((size_t)prio >= NLEVELS)
		prio = NLEVELS - 1;
	return levels[prio];
}

/* The syslog priority of an MCP level name, or -1. */
int
wymcp__log_level(const char *s)
{
	size_t	 i;

	for (i = 0; s != NULL && i < NLEVELS; i++)
		if (strcmp(s, levels[i]) == 0)
			return (int)i;
	return -1;
}

/*
 * Tool (and prompt) names: 1 to 128 of [A-Za-z0-9_.-] (server/tools.mdx
 * "Tool").
 */
int
wymcp__tool_name_ok(const char *name)
{
	size_t	 n;

	for (n = 0; name[n] != '\0'; n++)
		if (!isalnum((unsigned char)name[n]) && name[n] != '_' &&
		    name[n] != '.' && name[n] != '-')
			return 0;
	return n >= 1 && n <= 128;
}

/*
 * base64url without padding (RFC 4648 section 5), for the sealed
 * requestState: the ciphertext is not secret, so these need not run in
 * constant time, and a table lookup per character is what they do.
 */
static const char b64url[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* The encoded length of n bytes, without the NUL. */
size_t
wymcp__b64url_len(size_t n)
{
	return n / 3 * 4 + (n % 3 == 0 ? 0 : n % 3 + 1);
}

/* Encode n bytes into out (wymcp__b64url_len(n) + 1 bytes), NUL-ended. */
void
wymcp__b64url_encode(char *out, const unsigned char *in, size_t n)
{
	size_t		 i;
	unsigned int	 v;

	for (i = 0; i + 3 <= n; i += 3) {
		v = (unsigned int)in[i] << 16 | (unsigned int)in[i + 1] << 8 |
		    in[i + 2];
		*out++ = b64url[v >> 18];
		*out++ = b64url[v >> 12 & 63];
		*out++ = b64url[v >> 6 & 63];
		*out++ = b64url[v & 63];
	}
	if (n - i == 1) {
		v = (unsigned int)in[i] << 16;
		*out++ = b64url[v >> 18];
		*out++ = b64url[v >> 12 & 63];
	} else if (n - i == 2) {
		v = (unsigned int)in[i] << 16 | (unsigned int)in[i + 1] << 8;
		*out++ = b64url[v >> 18];
		*out++ = b64url[v >> 12 & 63];
		*out++ = b64url[v >> 6 & 63];
	}
	*out = '\0';
}

/*
 * Decode n characters of base64url (no padding) into out, which holds
 * at least n / 4 * 3 + 2 bytes.  0 with *outlen, or -1 for a character
 * outside the alphabet, a length no encoding has, or bits set past the
 * end (a non-canonical encoding: one string per value).
 */
int
wymcp__b64url_decode(unsigned char *out, size_t *outlen, const char *in,
    size_t n)
{
	size_t		 i, o = 0;
	int		 a, b, c, d;

	if (n % 4 == 1)
		return -1;
	for (i = 0; i + 4 <= n; i += 4) {
		a = b64digit[(unsigned char)in[i]];
		b = b64digit[(unsigned char)in[i + 1]];
		c = b64digit[(unsigned char)in[i + 2]];
		d = b64digit[(unsigned char)in[i + 3]];
		/* One test for the four: each is a base64url digit. */
		if ((a & b & c & d & B64_URL) == 0)
			return -1;
		a &= 63;
		b &= 63;
		c &= 63;
		d &= 63;
		out[o++] = (unsigned char)(a << 2 | b >> 4);
		out[o++] = (unsigned char)((b & 15) << 4 | c >> 2);
		out[o++] = (unsigned char)((c & 3) << 6 | d);
	}
	if (n - i >= 2) {
		if ((a = b64val((unsigned char)in[i], 1)) < 0 ||
		    (b = b64val((unsigned char)in[i + 1], 1)) < 0)
			return -1;
		out[o++] = (unsigned char)(a << 2 | b >> 4);
		if (n - i == 2) {
			if (b & 15)
				return -1;
		} else {
			if ((c = b64val((unsigned char)in[i + 2], 1)) < 0 ||
			    (c & 3))
				return -1;
			out[o++] = (unsigned char)((b & 15) << 4 | c >> 2);
		}
	}
	*outlen = o;
	return 0;
}

char *
wymcp__hex(char *out, const unsigned char *b, size_t n)
{
	/* The two digits of each byte. */
	static const char	 digits[] =
	    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	    "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	    "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	    "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	    "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	    "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	    "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	    "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
	size_t			 i;

	for (i = 0; i + 4 <= n; i += 4) {
		memcpy(out + 2 * i, digits + 2 * b[i], 2);
		memcpy(out + 2 * i + 2, digits + 2 * b[i + 1], 2);
		memcpy(out + 2 * i + 4, digits + 2 * b[i + 2], 2);
		memcpy(out + 2 * i + 6, digits + 2 * b[i + 3], 2);
	}
	for (; i < n; i++)
		memcpy(out + 2 * i, digits + 2 * b[i], 2);
	out[2 * n] = '\0';
	return out;
}
