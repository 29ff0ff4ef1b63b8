/*
 * card.c - the server card at <endpoint>/server-card (experimental)
 *
 * ext-server-card docs/discovery.md, "Hosted Server Card Location": a
 * GET of the streamable-HTTP URL followed by /server-card answers the
 * card (setup/card.c), as application/mcp-server-card+json when the
 * Accept header names it, else application/json; "Caching": public for
 * an hour, with an ETag that If-None-Match matches (304); "CORS
 * Requirements": readable from any origin, as the card is public
 * metadata, so the Origin allow-list does not apply to it (the Host
 * allow-list does).  HEAD answers the headers alone, OPTIONS the CORS
 * preflight (204), any other method 405.
 *
 * The remote's URL is the location's WYMCP_PUBLIC_URL param, else the
 * server's public URL (wymcp_server_set_public_url()), else the URL of
 * the request: https when the web server says HTTPS=on or
 * REQUEST_SCHEME=https, the Host (which passed the allow-list) and the
 * path before /server-card.  The card is made once for a URL and kept,
 * with its ETag, until the serverInfo changes.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sodium.h>

#include "serve/serve.h"

#define SUFFIX		"/server-card"
#define SUFFIX_LEN	(sizeof(SUFFIX) - 1)
#define CARD_TYPE	"application/mcp-server-card+json"
#define CARD_ALLOW	"GET, HEAD, OPTIONS"
#define CARD_CORS							\
	"Access-Control-Allow-Origin: *\r\n"				\
	"Access-Control-Allow-Methods: GET\r\n"				\
	"Access-Control-Allow-Headers: Content-Type, If-None-Match\r\n"	\
	"Access-Control-Expose-Headers: ETag\r\n"

/* Does `s' end in /server-card? */
static int
suffixed(const char *s)
{
	size_t	 n = s != NULL ? strlen(s) : 0;

	return n >= SUFFIX_LEN && strcmp(s + n - SUFFIX_LEN, SUFFIX) == 0;
}

/*
 * The endpoint's path when the request is for its card, else NULL: the
 * request's path is DOCUMENT_URI (nginx), else SCRIPT_NAME and
 * PATH_INFO (CGI, Apache), and ends in /server-card.  In the arena.
 */
static const char *
endpoint_path(struct wymcp_ctx *ctx)
{
	const char	*doc = wymcp__param(ctx, WYMCP__P_DOCUMENT_URI);
	const char	*sn = wymcp__param(ctx, WYMCP__P_SCRIPT_NAME);
	const char	*pi = wymcp__param(ctx, WYMCP__P_PATH_INFO);
	const char	*p;

	if (doc != NULL && *doc != '\0')
		p = doc;
	else if (pi != NULL && *pi != '\0')
		p = wymcp_printf(ctx, "%s%s", sn != NULL ? sn : "", pi);
	else
		p = sn;
	if (!suffixed(p))
		return NULL;
	return wymcp_printf(ctx, "%.*s", (int)(strlen(p) - SUFFIX_LEN), p);
}

int
wymcp__card_wanted(struct wymcp_ctx *ctx)
{
	/* The cheap test first: every request passes here. */
	if (!suffixed(wymcp__param(ctx, WYMCP__P_DOCUMENT_URI)) &&
	    !suffixed(wymcp__param(ctx, WYMCP__P_SCRIPT_NAME)) &&
	    !suffixed(wymcp__param(ctx, WYMCP__P_PATH_INFO)))
		return 0;
	return endpoint_path(ctx) != NULL;
}

/*
 * The URL the card names: WYMCP_PUBLIC_URL, the server's, or the
 * request's (NULL when it has no usable Host).  In the arena.
 */
static const char *
card_url(struct wymcp_ctx *ctx)
{
	const char	*u, *h, *path, *host, *https, *scheme, *ep, *port;
	size_t		 hlen;
	int		 tls;

	if ((u = wymcp__env(ctx->req.env, "WYMCP_PUBLIC_URL")) != NULL &&
	    *u != '\0') {
		if (wymcp__url_parts(u, &h, &hlen, &path) == 0)
			return u;
		wymcp__ctx_log(ctx, WYMCP_LOG_WARNING, "WYMCP_PUBLIC_URL "
		    "'%.100s' is not an http: or https: URL without a query: "
		    "ignored", u);
	}
	if (ctx->srv->public_url != NULL)
		return ctx->srv->public_url;
	if ((host = wymcp__param(ctx, WYMCP__P_HTTP_HOST)) == NULL ||
	    *host == '\0' || (ep = endpoint_path(ctx)) == NULL)
		return NULL;
	https = wymcp__env(ctx->req.env, "HTTPS");
	scheme = wymcp__env(ctx->req.env, "REQUEST_SCHEME");
	tls = (https != NULL && strcasecmp(https, "on") == 0) ||
	    (scheme != NULL && strcasecmp(scheme, "https") == 0);
	/*
	 * A Host without its port (Debian's fastcgi_params passes nginx's
	 * $host): the port the web server took the request on, unless it
	 * is the scheme's.
	 */
	port = wymcp__env(ctx->req.env, "SERVER_PORT");
	h = host[0] == '[' && strchr(host, ']') != NULL ? strchr(host, ']') :
	    host;
	if (strchr(h, ':') != NULL || port == NULL || *port == '\0' ||
	    strspn(port, "0123456789") != strlen(port) ||
	    strcmp(port, tls ? "443" : "80") == 0)
		port = NULL;
	u = wymcp_printf(ctx, "%s://%s%s%s%s", tls ? "https" : "http", host,
	    port != NULL ? ":" : "", port != NULL ? port : "",
	    *ep != '\0' ? ep : "/");
	if (u == NULL || wymcp__url_parts(u, &h, &hlen, &path) != 0) {
		wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "server card: no remote: "
		    "'%.100s' is no URL (give --public-url)",
		    u != NULL ? u : "");
		return NULL;
	}
	return u;
}

/*
 * The card for `url' in the server's memo, made unless it is there.
 * 0, or -1 with the reason logged.
 */
static int
make_card(struct wymcp_ctx *ctx, const char *url)
{
	struct wymcp_server	*srv = ctx->srv;
	struct wymcp__card	*c = &srv->card;
	struct json_object	*o;
	struct wymcp__buf	 b;
	unsigned char		 h[16];
	const char		*key;
	char			 why[256];
	int			 legacy = wymcp__legacy_on(ctx);

	key = wymcp_printf(ctx, "%d %s", legacy, url != NULL ? url : "");
	if (key == NULL)
		return -1;
	if (c->key != NULL && c->gen == srv->info_gen &&
	    strcmp(c->key, key) == 0)
		return 0;
	if ((o = wymcp__card_build(srv, url, wymcp__supported_versions(ctx),
	    0, why, sizeof(why))) == NULL) {
		wymcp__ctx_log(ctx, WYMCP_LOG_WARNING, "server card: %s", why);
		return -1;
	}
	memset(&b, 0, sizeof(b));
	if (wymcp__json_write(&b, o) != 0 ||
	    wymcp__buf_put(&b, "", 1) != 0) {
		json_object_put(o);
		wymcp__buf_free(&b);
		return -1;
	}
	json_object_put(o);
	free(c->key);
	free(c->text);
	c->text = NULL;
	if ((c->key = strdup(key)) == NULL) {
		wymcp__buf_free(&b);
		return -1;
	}
	c->gen = srv->info_gen;
	c->text = b.p;		/* the buffer's, NUL-terminated */
	c->len = b.len - 1;
	crypto_generichash(h, sizeof(h), (const unsigned char *)c->text,
	    c->len, NULL, 0);
	c->etag[0] = '"';
	sodium_bin2hex(c->etag + 1, sizeof(c->etag) - 2, h, sizeof(h));
	memcpy(c->etag + 33, "\"", 2);
	return 0;
}

/*
 * Does If-None-Match `inm' (a list of entity tags, or "*") match `etag'?
 * Weak comparison (RFC 9110 section 13.1.2): a W/ prefix is ignored.
 */
static int
inm_match(const char *inm, const char *etag)
{
	size_t	 n = strlen(etag);

	if (inm == NULL)
		return 0;
	for (;;) {
		while (*inm == ' ' || *inm == '\t' || *inm == ',')
			inm++;
		if (*inm == '\0')
			return 0;
		if (*inm == '*')
			return 1;
		if (strncmp(inm, "W/", 2) == 0)
			inm += 2;
		if (strncmp(inm, etag, n) == 0 && (inm[n] == '\0' ||
		    inm[n] == ',' || inm[n] == ' ' || inm[n] == '\t'))
			return 1;
		while (*inm != '\0' && *inm != ',')
			inm++;
	}
}

/* Write the head `head' and `body' (NULL: none): 1, or -1 on error. */
static int
put(struct wymcp_ctx *ctx, const char *head, const char *body, size_t len)
{
	const struct wymcp_io	*io = ctx->out.io;

	if (head == NULL || io->write(io->arg, head, strlen(head)) != 0 ||
	    (body != NULL && len > 0 && io->write(io->arg, body, len) != 0))
		return -1;
	return 1;
}

int
wymcp__card(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    const char **allow)
{
	const struct wymcp__card *c = &ctx->srv->card;
	const char	*rm = wymcp__param(ctx, WYMCP__P_REQUEST_METHOD);
	const char	*acc, *head;
	int		 get, mine;

	if (!wymcp__host_allowed(ctx->srv, wymcp__param(ctx,
	    WYMCP__P_HTTP_HOST), wymcp__param(ctx,
	    WYMCP__P_WYMCP_ALLOW_ORIGIN))) {
		wymcp__ctx_log(ctx, WYMCP_LOG_WARNING, "server card: refused "
		    "Host '%s': not in the allow-list (see --allow-origin)",
		    wymcp__ctx_quote(ctx, wymcp__param(ctx,
		    WYMCP__P_HTTP_HOST)));
		wymcp__reply_error(ctx, r, 403, WYMCP__INVALID_REQUEST,
		    "Forbidden: Host not allowed", NULL);
		return 0;
	}
	if (rm != NULL && strcmp(rm, "OPTIONS") == 0)
		return put(ctx, "Status: 204 No Content\r\n"
		    "Allow: " CARD_ALLOW "\r\n"
		    CARD_CORS
		    "Access-Control-Max-Age: 86400\r\n\r\n", NULL, 0);
	get = rm != NULL && strcmp(rm, "GET") == 0;
	if (!get && (rm == NULL || strcmp(rm, "HEAD") != 0)) {
		wymcp__reply_error(ctx, r, 405, WYMCP__INVALID_REQUEST,
		    "Method not allowed: the server card answers GET, HEAD "
		    "and OPTIONS", NULL);
		*allow = CARD_ALLOW;
		return 0;
	}
	if (make_card(ctx, card_url(ctx)) != 0) {
		wymcp__reply_error(ctx, r, 404, WYMCP__INVALID_REQUEST,
		    "Not found: this server has no card (its log says why)",
		    NULL);
		return 0;
	}
	if (inm_match(wymcp__env(ctx->req.env, "HTTP_IF_NONE_MATCH"),
	    c->etag))
		return put(ctx, wymcp_printf(ctx, "Status: 304 Not Modified\r\n"
		    "Cache-Control: public, max-age=3600\r\n"
		    "ETag: %s\r\nVary: Accept\r\n" CARD_CORS "\r\n", c->etag),
		    NULL, 0);
	acc = wymcp__param(ctx, WYMCP__P_HTTP_ACCEPT);
	mine = acc != NULL && strstr(acc, CARD_TYPE) != NULL;
	head = wymcp_printf(ctx, "Status: 200 OK\r\n"
	    "Content-Type: %s\r\n"
	    "Cache-Control: public, max-age=3600\r\n"
	    "ETag: %s\r\nVary: Accept\r\n" CARD_CORS
	    "Content-Length: %zu\r\n\r\n", mine ? CARD_TYPE :
	    "application/json", c->etag, c->len);
	return put(ctx, head, get ? c->text : NULL, c->len);
}
