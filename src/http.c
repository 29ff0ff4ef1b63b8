/*
 * http.c - HTTP-level rules of the Streamable HTTP transport
 *
 * MCP 2026-07-28 basic/transports/streamable-http.mdx: mirrored request
 * headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*),
 * their base64 sentinel, and the Origin check against DNS rebinding.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "extern.h"

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

/* The value of one standard base64 character, or -1. */
static int
b64val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
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
			if ((v[k] = b64val((unsigned char)in[i + k])) < 0)
				return -1;
		}
		out[n++] = (unsigned char)(v[0] << 2 | v[1] >> 4);
		if (i + 4 < inlen || pad < 2)
			out[n++] = (unsigned char)((v[1] & 0xf) << 4 | v[2] >> 2);
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

/* 1 when the bytes are well-formed UTF-8 (no overlongs, no surrogates). */
int
wymcp__utf8_valid(const char *s, size_t len)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 i = 0, n, k;
	unsigned int		 cp;

	while (i < len) {
		if (p[i] < 0x80) {
			i++;
			continue;
		} else if ((p[i] & 0xe0) == 0xc0) {
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
		i += n + 1;
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
 * The host of one allow-list entry: the entry itself when it is a bare
 * host, else the host part of "scheme://host[:port]".
 */
static void
entry_host(const char *p, size_t len, const char **h, size_t *hlen)
{
	const char	*s, *e = p + len;

	*h = p;
	*hlen = len;
	for (s = p; s + 3 <= e; s++)
		if (strncmp(s, "://", 3) == 0)
			break;
	if (s + 3 > e)
		return;
	*h = s += 3;
	if (*s == '[') {
		while (s < e && *s != ']')
			s++;
		if (s < e)
			s++;
	} else
		while (s < e && *s != ':' && *s != '/')
			s++;
	*hlen = (size_t)(s - *h);
}

/*
 * Match against a space- or comma-separated allow-list from the web
 * server: `want` is a host (is_origin 0), compared with each entry's
 * host, or a whole origin (is_origin 1), compared with origin entries
 * exactly and with bare-host entries by its host.
 */
static int
in_list(const char *want, size_t wlen, const char *list, int is_origin)
{
	const char	*p, *h, *wh;
	size_t		 plen, hlen, whlen;
	int		 entry_is_origin;

	if (list == NULL)
		return 0;
	wh = want;
	whlen = wlen;
	if (is_origin)
		entry_host(want, wlen, &wh, &whlen);
	while ((p = wymcp__word(&list, &plen)) != NULL) {
		entry_host(p, plen, &h, &hlen);
		entry_is_origin = h != p;
		if (is_origin && entry_is_origin) {
			if (plen == wlen && strncasecmp(p, want, wlen) == 0)
				return 1;
		} else if (hlen == whlen && strncasecmp(h, wh, hlen) == 0)
			return 1;
	}
	return 0;
}

/* The host part of "host[:port]" or "[v6]:port": start and length. */
static int
split_host(const char *hp, const char **h, size_t *hlen)
{
	const char	*e;

	if (*hp == '[') {
		if ((e = strchr(hp, ']')) == NULL)
			return -1;
		*h = hp;
		*hlen = (size_t)(e - hp) + 1;
		return 0;
	}
	for (e = hp; *e != '\0' && *e != ':'; e++)
		continue;
	*h = hp;
	*hlen = (size_t)(e - hp);
	return *hlen == 0 ? -1 : 0;
}

/* 1 when the host is one of the loopback names. */
static int
loopback(const char *h, size_t hlen)
{
	return (hlen == 9 && strncasecmp(h, "localhost", 9) == 0) ||
	    (hlen == 9 && strncmp(h, "127.0.0.1", 9) == 0) ||
	    (hlen == 5 && strncmp(h, "[::1]", 5) == 0);
}

/*
 * Is the Host header allowed?  Loopback names (any port), then the
 * server's allow-list, then `extra` (a space-separated per-location list
 * from the web server).  An absent Host is allowed: there is nothing a
 * rebinding attack could have changed.
 */
int
wymcp__host_allowed(const struct wymcp_server *srv, const char *hostport,
    const char *extra)
{
	const char	*h;
	size_t		 hlen, i;

	if (hostport == NULL || *hostport == '\0')
		return 1;
	if (split_host(hostport, &h, &hlen))
		return 0;
	if (loopback(h, hlen))
		return 1;
	for (i = 0; i < srv->norigins; i++)
		if (strlen(srv->origins[i].host) == hlen &&
		    strncasecmp(srv->origins[i].host, h, hlen) == 0)
			return 1;
	return in_list(h, hlen, extra, 0);
}

/*
 * Is the Origin header allowed?  Absent: yes (not a browser).  Otherwise
 * http(s) with a loopback host, an exact configured origin, or a bare
 * configured host with any scheme and port.
 */
int
wymcp__origin_allowed(const struct wymcp_server *srv, const char *origin,
    const char *extra)
{
	const char	*hp, *h;
	size_t		 hlen, i;

	if (origin == NULL)
		return 1;
	for (i = 0; i < srv->norigins; i++)
		if (srv->origins[i].origin != NULL &&
		    strcasecmp(srv->origins[i].origin, origin) == 0)
			return 1;
	if (strncasecmp(origin, "http://", 7) == 0)
		hp = origin + 7;
	else if (strncasecmp(origin, "https://", 8) == 0)
		hp = origin + 8;
	else
		return 0;
	if (split_host(hp, &h, &hlen))
		return 0;
	if (h[hlen] != '\0' && h[hlen] != ':')
		return 0;
	if (loopback(h, hlen))
		return 1;
	for (i = 0; i < srv->norigins; i++)
		if (srv->origins[i].origin == NULL &&
		    strlen(srv->origins[i].host) == hlen &&
		    strncasecmp(srv->origins[i].host, h, hlen) == 0)
			return 1;
	if (in_list(origin, strlen(origin), extra, 1))
		return 1;
	return 0;
}

/*
 * The request body must be JSON: "application/json", optionally with
 * parameters ("; charset=utf-8").  An absent Content-Type is tolerated.
 */
int
wymcp__content_type_ok(const char *ct)
{
	size_t	 n = sizeof("application/json") - 1;

	if (ct == NULL || *ct == '\0')
		return 1;
	while (*ct == ' ')
		ct++;
	if (strncasecmp(ct, "application/json", n) != 0)
		return 0;
	return ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ';
}

/* The reason phrase for the statuses wymcp sends. */
const char *
wymcp__status_text(int status)
{
	switch (status) {
	case 200:
		return "OK";
	case 202:
		return "Accepted";
	case 400:
		return "Bad Request";
	case 403:
		return "Forbidden";
	case 404:
		return "Not Found";
	case 405:
		return "Method Not Allowed";
	case 413:
		return "Payload Too Large";
	case 415:
		return "Unsupported Media Type";
	default:
		return "Internal Server Error";
	}
}
