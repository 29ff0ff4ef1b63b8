/*
 * fuzz_sentinel.c - libFuzzer target for the header value rules
 *
 * The input up to the first newline is a header value; what follows is
 * a per-location allow-list (WYMCP_ALLOW_ORIGIN).  The value goes
 * through the character check, OWS trimming, the base64 sentinel, the
 * UTF-8 check and the Host/Origin allow-lists, and each result is held
 * against an independent reference.  A disagreement aborts.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "serve/serve.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define PREFIX	"=?base64?"
#define SUFFIX	"?="

static void
fail(const char *why, const char *v)
{
	fprintf(stderr, "fuzz_sentinel: %s: '%s'\n", why, v);
	abort();
}

/* UTF-8 per Unicode Table 3-7 (well-formed byte sequences). */
static int
ref_utf8(const unsigned char *s, size_t n)
{
	size_t		 i = 0, j, k;
	unsigned int	 c, lo, hi;

	while (i < n) {
		c = s[i];
		if (c < 0x80) {
			i++;
			continue;
		}
		lo = 0x80;
		hi = 0xbf;
		if (c >= 0xc2 && c <= 0xdf)
			k = 1;
		else if (c == 0xe0) {
			k = 2;
			lo = 0xa0;
		} else if ((c >= 0xe1 && c <= 0xec) || c == 0xee || c == 0xef)
			k = 2;
		else if (c == 0xed) {
			k = 2;
			hi = 0x9f;
		} else if (c == 0xf0) {
			k = 3;
			lo = 0x90;
		} else if (c >= 0xf1 && c <= 0xf3)
			k = 3;
		else if (c == 0xf4) {
			k = 3;
			hi = 0x8f;
		} else
			return 0;
		if (n - i <= k || s[i + 1] < lo || s[i + 1] > hi)
			return 0;
		for (j = 2; j <= k; j++)
			if ((s[i + j] & 0xc0) != 0x80)
				return 0;
		i += k + 1;
	}
	return 1;
}

/* Canonical base64 of n bytes into out (NUL-terminated). */
static void
ref_b64(const unsigned char *in, size_t n, char *out)
{
	static const char	 b[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t			 i;
	unsigned int		 v;

	for (i = 0; i + 2 < n; i += 3) {
		v = (unsigned int)in[i] << 16 | (unsigned int)in[i + 1] << 8 |
		    in[i + 2];
		*out++ = b[v >> 18];
		*out++ = b[(v >> 12) & 0x3f];
		*out++ = b[(v >> 6) & 0x3f];
		*out++ = b[v & 0x3f];
	}
	if (n - i == 1) {
		v = (unsigned int)in[i] << 16;
		*out++ = b[v >> 18];
		*out++ = b[(v >> 12) & 0x3f];
		*out++ = '=';
		*out++ = '=';
	} else if (n - i == 2) {
		v = (unsigned int)in[i] << 16 | (unsigned int)in[i + 1] << 8;
		*out++ = b[v >> 18];
		*out++ = b[(v >> 12) & 0x3f];
		*out++ = b[(v >> 6) & 0x3f];
		*out++ = '=';
	}
	*out = '\0';
}

static int
ows(char c)
{
	return c == ' ' || c == '\t';
}

/* Header characters: VCHAR, SP, HTAB. */
static void
check_chars(const char *v)
{
	const unsigned char	*p;
	int			 want = 1;

	for (p = (const unsigned char *)v; *p != '\0'; p++)
		if (*p != ' ' && *p != '\t' && (*p < 0x21 || *p > 0x7e))
			want = 0;
	if (wymcp__header_chars_ok(v) != want)
		fail("header_chars_ok disagrees", v);
}

static void
check_trim(struct wymcp__arena *a, const char *v)
{
	const char	*t, *s = v;
	size_t		 n;

	if ((t = wymcp__header_trim(a, v)) == NULL)
		fail("trim failed", v);
	while (ows(*s))
		s++;
	n = strlen(s);
	while (n > 0 && ows(s[n - 1]))
		n--;
	if (strlen(t) != n || strncmp(t, s, n) != 0)
		fail("trim result differs", v);
	if (n > 0 && (ows(t[0]) || ows(t[n - 1])))
		fail("trim left OWS", v);
}

/* The sentinel: literal unless prefix and suffix; strict, UTF-8. */
static void
check_sentinel(struct wymcp__arena *a, const char *v)
{
	const char	*out = NULL;
	char		*re;
	size_t		 len = strlen(v), outlen = (size_t)-1, mid;
	int		 is_sentinel, rc;

	is_sentinel = len >= strlen(PREFIX) + strlen(SUFFIX) &&
	    strncmp(v, PREFIX, strlen(PREFIX)) == 0 &&
	    strcmp(v + len - strlen(SUFFIX), SUFFIX) == 0;
	rc = wymcp__sentinel_decode(a, v, &out, &outlen);
	if (!is_sentinel) {
		if (rc != 0 || out != v || outlen != len)
			fail("literal value not passed through", v);
		return;
	}
	if (rc != 0)
		return;
	if (out == NULL || out[outlen] != '\0')
		fail("decoded value not terminated", v);
	if (!ref_utf8((const unsigned char *)out, outlen))
		fail("decoded value is not UTF-8", v);
	/* Strict base64: re-encoding gives the input back exactly. */
	mid = len - strlen(PREFIX) - strlen(SUFFIX);
	if ((re = malloc((outlen + 2) / 3 * 4 + 1)) == NULL)
		abort();
	ref_b64((const unsigned char *)out, outlen, re);
	if (strlen(re) != mid || strncmp(re, v + strlen(PREFIX), mid) != 0)
		fail("accepted non-canonical base64", v);
	free(re);
}

/* Raw base64 of arbitrary bytes. */
static void
check_base64(const char *in, size_t inlen)
{
	unsigned char	*out;
	char		*re;
	size_t		 outlen = (size_t)-1;

	if ((out = malloc(inlen / 4 * 3 + 1)) == NULL)
		abort();
	if (wymcp__base64_decode(in, inlen, out, &outlen) == 0) {
		if (outlen > inlen / 4 * 3)
			fail("base64 wrote too much", in);
		if ((re = malloc((outlen + 2) / 3 * 4 + 1)) == NULL)
			abort();
		ref_b64(out, outlen, re);
		if (strlen(re) != inlen || memcmp(re, in, inlen) != 0)
			fail("base64 accepted a non-canonical text", in);
		free(re);
	}
	free(out);
}

/* Is host (length n) one of the names in the NULL-terminated list? */
static int
one_of(const char *h, size_t n, const char *const *names)
{
	for (; *names != NULL; names++)
		if (strlen(*names) == n && strncasecmp(h, *names, n) == 0)
			return 1;
	return 0;
}

static const char *const allowed_hosts[] = { "localhost", "127.0.0.1",
    "[::1]", "mcp.example.com", "bare.example", "[::2]", NULL };

/* The host part of host[:port]; an allowed Host must name one we allow. */
static void
check_host(const struct wymcp_server *srv, const char *v)
{
	const char	*e;
	size_t		 n;

	if (!wymcp__host_allowed(srv, v, NULL) || *v == '\0')
		return;
	if (*v == '[')
		n = (e = strchr(v, ']')) == NULL ? 0 : (size_t)(e - v) + 1;
	else
		n = strcspn(v, ":");
	if (!one_of(v, n, allowed_hosts))
		fail("Host allowed that is not in the allow-list", v);
}

/* An allowed Origin is http(s) with an allowed host, or configured. */
static void
check_origin(const struct wymcp_server *srv, const char *v)
{
	const char	*h, *e;
	size_t		 n;

	if (!wymcp__origin_allowed(srv, v, NULL))
		return;
	if (strcasecmp(v, "https://mcp.example.com") == 0)
		return;
	if (strncasecmp(v, "http://", 7) == 0)
		h = v + 7;
	else if (strncasecmp(v, "https://", 8) == 0)
		h = v + 8;
	else {
		fail("Origin allowed without http(s)", v);
		return;
	}
	if (*h == '[')
		n = (e = strchr(h, ']')) == NULL ? 0 : (size_t)(e - h) + 1;
	else
		n = strcspn(h, ":");
	if (h[n] != '\0' && h[n] != ':')
		fail("Origin allowed with a path or junk after the host", v);
	/* mcp.example.com is allowed as an exact origin only. */
	if (!one_of(h, n, allowed_hosts) ||
	    (n == 15 && strncasecmp(h, "mcp.example.com", 15) == 0))
		fail("Origin allowed that is not in the allow-list", v);
}

static struct wymcp_server *
server(void)
{
	static struct wymcp_server	*srv;

	if (srv != NULL)
		return srv;
	if ((srv = wymcp_server_new()) == NULL ||
	    wymcp_server_allow_origin(srv, "https://mcp.example.com") ||
	    wymcp_server_allow_origin(srv, "bare.example") ||
	    wymcp_server_allow_origin(srv, "[::2]"))
		abort();
	return srv;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wymcp__arena	 a;
	struct wymcp_server	*srv = server();
	char			*buf, *extra = NULL, *nl;
	int			 valid;

	if ((buf = malloc(size + 1)) == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';

	/* Raw bytes first: UTF-8 and base64 take lengths. */
	valid = wymcp__utf8_valid((const char *)data, size);
	if (valid != ref_utf8(data, size))
		fail("utf8_valid disagrees with Table 3-7", buf);
	check_base64((const char *)data, size);

	if ((nl = memchr(buf, '\n', size)) != NULL) {
		*nl = '\0';
		extra = nl + 1;
	}
	wymcp__arena_init(&a);
	check_chars(buf);
	check_trim(&a, buf);
	check_sentinel(&a, buf);
	check_host(srv, buf);
	check_origin(srv, buf);
	/* With the per-location list: must not crash, and stays a list. */
	(void)wymcp__host_allowed(srv, buf, extra);
	(void)wymcp__origin_allowed(srv, buf, extra);
	if (extra != NULL) {
		(void)wymcp__host_allowed(srv, extra, buf);
		(void)wymcp__origin_allowed(srv, extra, buf);
	}
	(void)wymcp__content_type_ok(buf);
	wymcp__arena_free(&a);
	free(buf);
	return 0;
}
