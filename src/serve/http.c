/*
 * http.c - HTTP rules: Host, Origin, media type, status
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

#include "serve/serve.h"

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

/*
 * The reason phrases of RFC 9110 section 15 (and 429, RFC 6585 section
 * 4): every status wymcp sends has its own (t/unit/check_http.c finds
 * them in the sources and checks each).  Another status gets no phrase
 * (an empty reason-phrase, which RFC 9112 section 4 allows), never a
 * wrong one.
 */
static const struct {
	int		 status;
	const char	*text;
} phrases[] = {
	{ 100, "Continue" },
	{ 101, "Switching Protocols" },
	{ 200, "OK" },
	{ 201, "Created" },
	{ 202, "Accepted" },
	{ 203, "Non-Authoritative Information" },
	{ 204, "No Content" },
	{ 205, "Reset Content" },
	{ 206, "Partial Content" },
	{ 300, "Multiple Choices" },
	{ 301, "Moved Permanently" },
	{ 302, "Found" },
	{ 303, "See Other" },
	{ 304, "Not Modified" },
	{ 305, "Use Proxy" },
	{ 307, "Temporary Redirect" },
	{ 308, "Permanent Redirect" },
	{ 400, "Bad Request" },
	{ 401, "Unauthorized" },
	{ 402, "Payment Required" },
	{ 403, "Forbidden" },
	{ 404, "Not Found" },
	{ 405, "Method Not Allowed" },
	{ 406, "Not Acceptable" },
	{ 407, "Proxy Authentication Required" },
	{ 408, "Request Timeout" },
	{ 409, "Conflict" },
	{ 410, "Gone" },
	{ 411, "Length Required" },
	{ 412, "Precondition Failed" },
	{ 413, "Content Too Large" },
	{ 414, "URI Too Long" },
	{ 415, "Unsupported Media Type" },
	{ 416, "Range Not Satisfiable" },
	{ 417, "Expectation Failed" },
	{ 421, "Misdirected Request" },
	{ 422, "Unprocessable Content" },
	{ 426, "Upgrade Required" },
	{ 428, "Precondition Required" },
	{ 429, "Too Many Requests" },
	{ 431, "Request Header Fields Too Large" },
	{ 500, "Internal Server Error" },
	{ 501, "Not Implemented" },
	{ 502, "Bad Gateway" },
	{ 503, "Service Unavailable" },
	{ 504, "Gateway Timeout" },
	{ 505, "HTTP Version Not Supported" },
};

/* The reason phrase of `status', or "" for one RFC 9110 does not name. */
const char *
wymcp__status_text(int status)
{
	size_t	 i;

	for (i = 0; i < sizeof(phrases) / sizeof(phrases[0]); i++)
		if (phrases[i].status == status)
			return phrases[i].text;
	return "";
}
