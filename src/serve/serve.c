/*
 * serve.c - one request, end to end
 *
 * The pipeline follows MCP 2026-07-28 basic/transports/streamable-http.mdx
 * and the order the official conformance suite observes: Host/Origin
 * (403), method (405), media type (415), size (413), JSON (-32700,
 * duplicate member names included), envelope (-32600), U+0000 in a
 * string (-32602), notifications (202), a repeated MCP-Protocol-Version,
 * Mcp-Method or Mcp-Name (-32020), Mcp-Method and Mcp-Name (-32020),
 * _meta (-32602), MCP-Protocol-Version (-32020), version (-32022),
 * method lookup (-32601, 404), then the method itself.
 *
 * After the envelope, the era (era.c): a request without the modern
 * _meta may be a 2025-11-25 client's, served by wymcp__legacy_dispatch()
 * without the _meta checks; the mirrored headers it carries are checked
 * all the same (2025-11-25 defines none, but a gateway in front may
 * route on them), and only those it carries.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve.h"

/* Write all of buf; 0 or -1. */
static int
out(const struct wymcp_io *io, const char *buf, size_t len)
{
	return len == 0 ? 0 : io->write(io->arg, buf, len);
}

/*
 * The audit headers (wymcp.h, WYMCP_DETAIL_HEADERS), built into a
 * fixed buffer: "Name: value" and CRLF each, a value cut at
 * AUDIT_VALUE_MAX bytes, any byte but printable ASCII (and '%')
 * %-encoded, so that a client's clientInfo cannot split the head.
 * At most 8 headers of 3 * AUDIT_VALUE_MAX bytes: the buffer holds them.
 */
#define AUDIT_VALUE_MAX	128
#define AUDIT_HEAD_MAX	(8 * (24 + 3 * AUDIT_VALUE_MAX + 2) + 1)

struct audit_head {
	char	 b[AUDIT_HEAD_MAX];
	size_t	 len;
};

/* Append `v' (n bytes at most; NULL: nothing) %-encoded. */
static void
audit_value(struct audit_head *h, const char *v, size_t *room)
{
	static const char	 hex[] = "0123456789ABCDEF";
	unsigned char		 c;

	for (; v != NULL && *v != '\0' && *room > 0; v++, (*room)--) {
		c = (unsigned char)*v;
		if (c > 0x20 && c < 0x7f && c != '%')
			h->b[h->len++] = (char)c;
		else {
			h->b[h->len++] = '%';
			h->b[h->len++] = hex[c >> 4];
			h->b[h->len++] = hex[c & 0xf];
		}
	}
}

/* One header, "Name: " v1 [sep v2] CRLF; nothing when v1 is NULL. */
static void
audit_header(struct audit_head *h, const char *name, const char *v1,
    const char *sep, const char *v2)
{
	size_t	 room = AUDIT_VALUE_MAX, n = strlen(name);

	if (v1 == NULL)
		return;
	memcpy(h->b + h->len, name, n);
	h->len += n;
	h->b[h->len++] = ':';
	h->b[h->len++] = ' ';
	audit_value(h, v1, &room);
	if (sep != NULL) {
		audit_value(h, sep, &room);
		audit_value(h, v2, &room);
	}
	h->b[h->len++] = '\r';
	h->b[h->len++] = '\n';
}

/* The decimal digits of v into buf[24]. */
static const char *
digits(char *buf, long v)
{
	unsigned long	 u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
	char		*p = buf + 23;

	*p = '\0';
	do {
		*--p = (char)('0' + u % 10);
	} while ((u /= 10) != 0);
	if (v < 0)
		*--p = '-';
	return p;
}

/*
 * The audit headers of the response about to be written (r), in the
 * request's arena; NULL when the program did not ask for them.
 */
static const char *
audit_headers(struct wymcp_ctx *ctx, const struct wymcp__reply *r,
    size_t in)
{
	const struct wymcp_request_detail *d;
	struct audit_head		 h;
	char				 num[24];

	if (!(ctx->srv->reqdetail & WYMCP_DETAIL_HEADERS) ||
	    (d = wymcp__detail(ctx, r->status, r->body, in)) == NULL)
		return NULL;
	h.len = 0;
	audit_header(&h, "Wymcp-Principal", d->principal, NULL, NULL);
	audit_header(&h, "Wymcp-Client", d->client_name, "/",
	    d->client_version);
	audit_header(&h, "Wymcp-Target", d->target, NULL, NULL);
	if (ctx->req.method != NULL &&
	    strcmp(ctx->req.method, "tools/call") == 0)
		audit_header(&h, "Wymcp-Round", digits(num, d->round), NULL,
		    NULL);
	audit_header(&h, "Wymcp-Outcome", d->outcome, NULL, NULL);
	if (d->code != 0)
		audit_header(&h, "Wymcp-Code", digits(num, d->code), NULL,
		    NULL);
	audit_header(&h, "Wymcp-Task", d->task_id, NULL, NULL);
	audit_header(&h, "Wymcp-Args-Digest", d->args_digest, NULL, NULL);
	return h.len > 0 ? wymcp__arena_strndup(&ctx->arena, h.b, h.len) :
	    NULL;
}

/* "Status: NNN " into head (at least 32 bytes); its length. */
static size_t
status_head(char *head, size_t size, int status)
{
	if (status < 100 || status > 999)
		return (size_t)snprintf(head, size, "Status: %d ", status);
	memcpy(head, "Status: ", 8);
	head[8] = (char)('0' + status / 100);
	head[9] = (char)('0' + status / 10 % 10);
	head[10] = (char)('0' + status % 10);
	head[11] = ' ';
	return 12;
}

/*
 * Write the CGI response: Status, headers, then the compact JSON body
 * (none for 202), written into the server's buffer kept between
 * requests: r's status and body, and its headers: `allow` adds
 * an Allow header ("POST": 405), r->challenge a WWW-Authenticate header (403
 * insufficient_scope, methods/reply.c), r->retry_after a Retry-After
 * (503: the task store is down); r->session, when not NULL, is sent as
 * Mcp-Session-Id (legacy initialize).
 */
static enum wymcp_err
respond(struct wymcp_server *srv, const struct wymcp_io *io,
    const struct wymcp__reply *r, const char *allow, const char *audit)
{
	char		 head[8192], num[24], retry[32];
	const char	*b = NULL, *part[20], *session = r->session;
	struct json_object *body = r->body;
	size_t		 blen = 0, n = 0, k, len, i, v;
	int		 status = r->status;

	if (body != NULL) {
		srv->writebuf.len = 0;
		if (wymcp__json_write(&srv->writebuf, body) != 0)
			return WYMCP_ERR_IO;
		b = srv->writebuf.p;
		blen = srv->writebuf.len;
	}
	/* Content-Length's digits, backwards from the end of num. */
	k = sizeof(num);
	num[--k] = '\0';
	v = blen;
	do {
		num[--k] = (char)('0' + v % 10);
	} while ((v /= 10) != 0);
	part[n++] = wymcp__status_text(status);
	part[n++] = "\r\n";
	if (allow != NULL) {
		part[n++] = "Allow: ";
		part[n++] = allow;
		part[n++] = "\r\n";
	}
	if (r->challenge != NULL) {
		part[n++] = "WWW-Authenticate: ";
		part[n++] = r->challenge;
		part[n++] = "\r\n";
	}
	if (r->retry_after > 0) {
		(void)snprintf(retry, sizeof(retry), "Retry-After: %d\r\n",
		    r->retry_after);
		part[n++] = retry;
	}
	if (audit != NULL)	/* AUDIT_HEAD_MAX at most: it fits */
		part[n++] = audit;
	if (b != NULL) {
		part[n++] = "Content-Type: application/json\r\n";
		part[n++] = "Cache-Control: no-store\r\n";
	}
	part[n++] = "Content-Length: ";
	part[n++] = num + k;
	part[n++] = "\r\n\r\n";
	/* What snprintf("Status: %d %s\r\n...") wrote, piece by piece. */
	len = status_head(head, sizeof(head), status);
	for (i = 0; i < n; i++) {
		k = strlen(part[i]);
		if (k >= sizeof(head) - len)
			return WYMCP_ERR_IO;
		memcpy(head + len, part[i], k);
		len += k;
	}
	/* The session header goes in before the blank line. */
	if (session != NULL && (out(io, head, len - 2) ||
	    out(io, "Mcp-Session-Id: ", 16) ||
	    out(io, session, strlen(session)) || out(io, "\r\n\r\n", 4)))
		return WYMCP_ERR_IO;
	/*
	 * No flush: the caller delivers the last bytes once we return
	 * (wymcp-fcgi's end of the FastCGI request sends them in the same
	 * write(2) as the end record, one wake-up of the web server).
	 */
	if ((session == NULL && out(io, head, len)) || out(io, b, blen))
		return WYMCP_ERR_IO;
	return WYMCP_OK;
}

/* Fill r with an error (id as known so far).  Takes `data`. */
static void
fail(struct wymcp_ctx *ctx, struct wymcp__reply *r, int status, int code,
    const char *msg, struct json_object *data)
{
	wymcp__reply_error(ctx, r, status, code, msg, data);
	wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "%s%s%d: %s",
	    ctx->req.method != NULL ? ctx->req.method : "",
	    ctx->req.method != NULL ? ": " : "", code, msg);
}

/*
 * -32700 for a body that is not JSON, saying what is wrong and where:
 * the byte offset (from 0) in the message and as data.offset.
 */
static void
parse_error(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    const struct wymcp__json_err *e)
{
	struct json_object	*data;
	const char		*msg;

	msg = wymcp_printf(ctx, "Parse error: %s at byte %zu of the body",
	    e->why, e->at);
	if ((data = json_object_new_object()) != NULL &&
	    json_object_object_add(data, "offset",
	    json_object_new_int64((int64_t)e->at))) {
		json_object_put(data);
		data = NULL;
	}
	fail(ctx, r, 400, WYMCP__PARSE_ERROR, msg != NULL ? msg :
	    "Parse error: Invalid JSON", data);
}

/*
 * Read the body into the server's reusable buffer.  Returns 0 with
 * *len, 1 when it is larger than the limit (413), 2 when
 * CONTENT_LENGTH is not a number (400), -1 on I/O error.
 */
static int
read_body(struct wymcp_server *srv, const struct wymcp_io *io,
    const char *clen, size_t *len)
{
	unsigned long long	 cl = 0;
	size_t			 want, got = 0, cap;
	long			 n;
	char			*end, *nb;

	if (clen != NULL && *clen != '\0') {
		errno = 0;
		cl = strtoull(clen, &end, 10);
		if (*end != '\0' || errno != 0 || *clen < '0' || *clen > '9')
			return 2;
		if (cl > srv->max_body)
			return 1;
	}
	/*
	 * Read CONTENT_LENGTH bytes (RFC 3875 4.2: the server need not
	 * send end-of-file), or without it to end of input, one byte past
	 * the limit at most.
	 */
	want = clen != NULL && *clen != '\0' ? (size_t)cl :
	    srv->max_body + 1;
	for (;;) {
		if (got >= want)
			break;
		if (got == srv->readbufsz) {
			cap = srv->readbufsz == 0 ? 16384 : srv->readbufsz * 2;
			if (cap > want)
				cap = want;
			if ((nb = realloc(srv->readbuf, cap + 1)) == NULL)
				return -1;
			srv->readbuf = nb;
			srv->readbufsz = cap;
		}
		n = io->read(io->arg, srv->readbuf + got,
		    (want < srv->readbufsz ? want : srv->readbufsz) - got);
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got > srv->max_body)
		return 1;
	if (srv->readbuf != NULL)	/* NULL: nothing read yet, ever */
		srv->readbuf[got] = '\0';
	*len = got;
	return 0;
}

/*
 * Check a mirrored header against the body's value
 * (streamable-http.mdx "Standard headers").  `sentinel` allows the
 * base64 form (Mcp-Name).  `carries' says what it carries, for the
 * message of a missing one, which also gives the value the body asks
 * for (when it is visible ASCII).  Returns NULL when it matches, else
 * the reason.
 */
static const char *
mirror(struct wymcp_ctx *ctx, const char *hname, const char *hval,
    const char *body, int sentinel, const char *carries)
{
	const char	*v = NULL, *why;
	size_t		 vlen;

	if (carries == NULL)
		carries = "the body's value";
	/* Missing: say what it carries, and the value it must have. */
	if (hval == NULL && body != NULL && wymcp__header_chars_ok(body))
		why = wymcp_printf(ctx, "Header mismatch: %s header is "
		    "missing: it carries %s, here %s: %s", hname, carries,
		    hname, wymcp__ctx_quote(ctx, body));
	else if (hval == NULL)
		why = wymcp_printf(ctx, "Header mismatch: %s header is "
		    "missing: it carries %s%s", hname, carries, sentinel ?
		    " (as =?base64?...?= when it is not visible ASCII)" : "");
	else if (!wymcp__header_chars_ok(hval))
		why = wymcp_printf(ctx, "Header mismatch: %s header has "
		    "invalid characters", hname);
	else if ((v = wymcp__header_trim(&ctx->arena, hval)) == NULL)
		return "Internal error: out of memory";
	else if (vlen = strlen(v), sentinel &&
	    wymcp__sentinel_decode(&ctx->arena, v, &v, &vlen))
		why = wymcp_printf(ctx, "Header mismatch: %s header has "
		    "invalid base64", hname);
	else if (body == NULL || vlen != strlen(body) ||
	    memcmp(v, body, vlen) != 0)
		why = wymcp_printf(ctx, "Header mismatch: %s header value "
		    "'%s' does not match body value '%s'", hname,
		    wymcp__quote(&ctx->arena, v, vlen),
		    wymcp__ctx_quote(ctx, body));
	else
		return NULL;
	/* Out of memory for the message must not read as a match. */
	return why != NULL ? why : "Header mismatch";
}

/*
 * The unsupported-version error data (schema.ts): every supported
 * version, as server/discover lists them.
 */
static struct json_object *
version_data(const struct wymcp_ctx *ctx, const char *requested)
{
	struct json_object	*d;

	if ((d = json_object_new_object()) == NULL)
		return NULL;
	json_object_object_add(d, "supported",
	    wymcp__supported_versions(ctx));
	json_object_object_add(d, "requested",
	    json_object_new_string(requested));
	return d;
}

/*
 * The Mcp-Param-* check of tools/call (streamable-http.mdx "Custom
 * Headers"), before the _meta check as the conformance suite observes.
 * It needs the tool, hence the mount list; an unknown tool or malformed
 * params are left to tools/call's own -32602.  NULL when fine.
 * `present_only`: check only the headers the request carries.
 */
static const char *
xparams(struct wymcp_ctx *ctx, int present_only)
{
	const struct wymcp__tool *t;
	struct json_object	*v, *args;

	if (!json_object_is_type(ctx->req.params, json_type_object) ||
	    !json_object_object_get_ex(ctx->req.params, "name", &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	if (ctx->who.tools == NULL && wymcp__ctx_mount(ctx) != WYMCP_OK)
		return "Internal error: out of memory";
	if ((t = wymcp__ctx_find_tool(ctx, json_object_get_string(v))) ==
	    NULL || t->nxparams == 0)
		return NULL;
	if (!json_object_object_get_ex(ctx->req.params, "arguments", &args))
		args = NULL;
	else if (!json_object_is_type(args, json_type_object))
		return NULL;
	return wymcp__xparams_check(ctx, t, args, present_only);
}

/*
 * A mirrored header sent twice (RFC 9110 section 5.3: none of them is a
 * list): a gateway may route on one value while the body names another.
 * -32020, as a malformed header (streamable-http.mdx "Server
 * Validation").  NULL when none is.
 */
static const char *
repeated(struct wymcp_ctx *ctx)
{
	static const struct {
		enum wymcp__param param;
		const char	*name;
		int		 anycomma;	/* no comma is ever in one */
	} h[] = {
		{ WYMCP__P_HTTP_MCP_PROTOCOL_VERSION, "MCP-Protocol-Version",
		    1 },
		{ WYMCP__P_HTTP_MCP_METHOD, "Mcp-Method", 1 },
		/* A URI may hold a comma, but not ", ". */
		{ WYMCP__P_HTTP_MCP_NAME, "Mcp-Name", 0 },
	};
	const char	*why;
	size_t		 i;

	for (i = 0; i < sizeof(h) / sizeof(h[0]); i++)
		if (wymcp__param_repeated(ctx, h[i].param, h[i].anycomma)) {
			why = wymcp_printf(ctx, "Header mismatch: %s header "
			    "is repeated", h[i].name);
			return why != NULL ? why : "Header mismatch";
		}
	return NULL;
}

/*
 * Mcp-Method, Mcp-Name and Mcp-Param-* against the body.  `legacy`: a
 * 2025-11-25 request, whose headers are checked only when present.
 * Sets *mp to the method's table entry (NULL: unknown).  NULL when
 * they agree, else the -32020 message.
 */
static const char *
mirrored(struct wymcp_ctx *ctx, int legacy, const struct wymcp__method **mp)
{
	const struct wymcp__method *m;
	struct json_object	*v;
	const char		*h, *why;

	*mp = m = wymcp__method_find(ctx->req.method);
	h = wymcp__param(ctx, WYMCP__P_HTTP_MCP_METHOD);
	if ((h != NULL || !legacy) && (why = mirror(ctx, "Mcp-Method", h,
	    ctx->req.method, 0, "the body's method")) != NULL)
		return why;
	h = wymcp__param(ctx, WYMCP__P_HTTP_MCP_NAME);
	if ((h != NULL || !legacy) &&
	    m != NULL && m->name_param != NULL &&
	    json_object_is_type(ctx->req.params, json_type_object) &&
	    json_object_object_get_ex(ctx->req.params, m->name_param, &v) &&
	    json_object_is_type(v, json_type_string) &&
	    (why = mirror(ctx, "Mcp-Name", h, json_object_get_string(v),
	    1, wymcp_printf(ctx, "params.%s of %s", m->name_param,
	    ctx->req.method))) != NULL)
		return why;
	/* Mcp-Param-* against the tool's x-mcp-header arguments. */
	if (strcmp(ctx->req.method, "tools/call") == 0)
		return xparams(ctx, legacy);
	return NULL;
}

/*
 * Is the body a JSON-RPC response (a client's answer to a request the
 * server sent on a held stream)?  An object with an id, a result or an
 * error, and no method.
 */
static int
is_response(struct json_object *msg)
{
	return json_object_is_type(msg, json_type_object) &&
	    !json_object_object_get_ex(msg, "method", NULL) &&
	    json_object_object_get_ex(msg, "id", NULL) &&
	    (json_object_object_get_ex(msg, "result", NULL) ||
	    json_object_object_get_ex(msg, "error", NULL));
}

/*
 * A legacy client's answer (2025-11-25 basic/transports.mdx "If the
 * input is a JSON-RPC response ... 202 Accepted with no body", else an
 * HTTP error status): relayed to the worker holding the question
 * (core/held.c).  The session id must open, as for any request.
 */
static void
answer(struct wymcp_ctx *ctx, struct wymcp__reply *r, const char *body,
    size_t len, int *notify)
{
	const char	*why;

	ctx->req.method = "(response)";
	if (wymcp__legacy_session(ctx, r) != 0) {
		wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "a response: 404, the "
		    "Mcp-Session-Id does not open");
		return;
	}
	if (wymcp__held_forward(ctx, body, len, &why) != 0) {
		fail(ctx, r, 400, WYMCP__INVALID_REQUEST, why, NULL);
		return;
	}
	*notify = 1;
}

/* A notification (no id): 202 once its session, if any, opens. */
static void
notification(struct wymcp_ctx *ctx, struct wymcp__reply *r, int *notify)
{
	/*
	 * A legacy notification's session id must open too
	 * (2025-11-25 transports: 404 for an unknown session).
	 */
	if (wymcp__era(ctx) == WYMCP__ERA_LEGACY &&
	    wymcp__legacy_session(ctx, r) != 0) {
		wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "%s: 404, the "
		    "Mcp-Session-Id does not open", ctx->req.method);
		return;
	}
	/* A listen's cancel ends it wherever it is held. */
	if (strcmp(ctx->req.method, "notifications/cancelled") == 0)
		wymcp__listen_cancelled(ctx);
	/* basic/transports: an accepted notification is 202. */
	*notify = 1;
}

/*
 * A modern request: its mirrored headers and _meta checked, its
 * version supported, its method run.
 */
static void
modern(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	const struct wymcp__method *m;
	const char		*why;
	int			 code;

	if ((why = mirrored(ctx, 0, &m)) != NULL) {
		fail(ctx, r, 400, WYMCP__HEADER_MISMATCH, why, NULL);
		return;
	}
	if ((code = wymcp__meta(ctx->req.params, &ctx->req.meta,
	    &ctx->req.version,
	    &ctx->req.caps, &why)) != 0) {
		fail(ctx, r, 400, code, why, NULL);
		return;
	}
	if ((why = mirror(ctx, "MCP-Protocol-Version", wymcp__param(ctx,
	    WYMCP__P_HTTP_MCP_PROTOCOL_VERSION), ctx->req.version, 0,
	    "the _meta's io.modelcontextprotocol/protocolVersion")) !=
	    NULL) {
		fail(ctx, r, 400, WYMCP__HEADER_MISMATCH, why, NULL);
		return;
	}
	if (strcmp(ctx->req.version, WYMCP_PROTOCOL_VERSION) != 0) {
		fail(ctx, r, 400, WYMCP__UNSUPPORTED_VERSION,
		    "Unsupported protocol version",
		    version_data(ctx, ctx->req.version));
		return;
	}
	if (m == NULL) {
		wymcp__reply_no_method(ctx, r, 404);
		wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "%s: -32601",
		    ctx->req.method);
		return;
	}
	/*
	 * What the response may stream (stream.c).  An unknown logLevel
	 * is refused here, before the method runs and before anything is
	 * written: logging.mdx "Error Handling" says SHOULD -32602 and
	 * leaves the HTTP status open; 400 as for the other _meta faults.
	 */
	if (wymcp__stream_init(ctx) != 0) {
		fail(ctx, r, 400, WYMCP__INVALID_PARAMS,
		    "Invalid params: unknown logLevel", NULL);
		return;
	}
	m->fn(ctx, r);
}

/* Everything from the parsed body to the method's reply. */
static void
dispatch(struct wymcp_ctx *ctx, struct wymcp__reply *r, int *notify,
    int nul, size_t len)
{
	const struct wymcp__method *m;
	const char		*why;
	int			 code;

	if (is_response(ctx->req.msg) && wymcp__legacy_on(ctx)) {
		answer(ctx, r, ctx->srv->readbuf, len, notify);
		return;
	}
	if ((code = wymcp__envelope(ctx->req.msg, &ctx->req.id,
	    &ctx->req.method,
	    &why)) != 0) {
		fail(ctx, r, 400, code, why, NULL);
		return;
	}
	ctx->req.idstr = ctx->req.id != NULL ?
	    wymcp__json_id(&ctx->arena, ctx->req.id) : NULL;
	/*
	 * Tools read C strings: a name, URI, member name or value holding
	 * U+0000 would reach them cut short, or collide with another
	 * (json-c cuts member names there).  A notification so written is
	 * not accepted either (basic/transports: an HTTP error status).
	 */
	if (nul) {
		fail(ctx, r, 400, WYMCP__INVALID_PARAMS, "Invalid params: a "
		    "string in the request holds U+0000", NULL);
		return;
	}
	wymcp__ctx_publish(ctx, 0);	/* the method and id are known */
	json_object_object_get_ex(ctx->req.msg, "params", &ctx->req.params);
	if (ctx->req.id == NULL) {
		notification(ctx, r, notify);
		return;
	}
	if ((why = repeated(ctx)) != NULL) {
		fail(ctx, r, 400, WYMCP__HEADER_MISMATCH, why, NULL);
		return;
	}
	switch (wymcp__era(ctx)) {
	case WYMCP__ERA_LEGACY:
		if ((why = mirrored(ctx, 1, &m)) != NULL) {
			fail(ctx, r, 400, WYMCP__HEADER_MISMATCH, why, NULL);
			return;
		}
		wymcp__legacy_dispatch(ctx, r);
		return;
	case WYMCP__ERA_REFUSE:
		wymcp__era_refuse(ctx, r);
		return;
	case WYMCP__ERA_MODERN:
		break;
	}
	modern(ctx, r);
}

/*
 * The request's time limit in ms (0: none): the server's, lowered but
 * never raised by the location's WYMCP_REQUEST_TIMEOUT, whole seconds
 * (0 leaves it alone; anything but a number is logged and ignored).
 */
static unsigned long
time_limit(struct wymcp_ctx *ctx)
{
	unsigned long long	 v;
	unsigned long		 t = ctx->srv->timeout_ms;
	const char		*p;
	char			*end;

	if ((p = wymcp__param(ctx, WYMCP__P_WYMCP_REQUEST_TIMEOUT)) == NULL)
		return t;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (*p < '0' || *p > '9' || *end != '\0' || errno != 0 ||
	    v > ULONG_MAX / 1000) {
		wymcp__ctx_log(ctx, WYMCP_LOG_WARNING, "WYMCP_REQUEST_TIMEOUT "
		    "'%.32s' is not a number of seconds: ignored", p);
		return t;
	}
	if (v > 0 && (t == 0 || v * 1000 < t))
		t = (unsigned long)v * 1000;
	return t;
}

/*
 * Replace the reply of a request that ran past its time limit with the
 * time-limit error: -32603, HTTP status 504 (the one "the server did
 * not answer in time" status; MCP leaves the status of an error open).
 */
static void
timed_out(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	const char	*msg;
	long		 ms = ctx->out.limit_ms;

	msg = ms % 1000 == 0 ? wymcp_printf(ctx, "Request timed out: it ran "
	    "past the time limit of %ld s", ms / 1000) :
	    wymcp_printf(ctx, "Request timed out: it ran past the time limit "
	    "of %ld ms", ms);
	json_object_put(r->body);
	wymcp__reply_error(ctx, r, 504, WYMCP__INTERNAL_ERROR,
	    msg != NULL ? msg : "Request timed out", NULL);
}

enum wymcp_err
wymcp_server_serve(struct wymcp_server *srv, const struct wymcp_io *io)
{
	return wymcp_server_serve_io(srv, io, offsetof(struct wymcp_io, gone));
}

/* Bind the request to the caller's io: the members its structure has. */
static void
bind_io(struct wymcp_ctx *ctx, const struct wymcp_io *io, size_t size)
{
	ctx->out.io = io;
	/* A member the caller's structure does not have is absent. */
	if (size >= offsetof(struct wymcp_io, gone) + sizeof(io->gone))
		ctx->out.gone = io->gone;
	if (size >= offsetof(struct wymcp_io, ask_timeout) +
	    sizeof(io->ask_timeout) && io->ask_hold != NULL &&
	    io->ask_release != NULL && io->ask_wait != NULL &&
	    io->ask_forward != NULL) {
		ctx->out.ask_io = io;
		ctx->out.ask_timeout = io->ask_timeout > 0 ? io->ask_timeout :
		    WYMCP_ASK_TIMEOUT_DEFAULT;
		if (size >= offsetof(struct wymcp_io, ask_hold_as) +
		    sizeof(io->ask_hold_as))
			ctx->out.ask_hold_as = io->ask_hold_as;
	}
	if (size >= offsetof(struct wymcp_io, listen_hand) +
	    sizeof(io->listen_hand) && io->listen_hold != NULL &&
	    io->listen_hand != NULL && ctx->srv->publish != NULL)
		ctx->out.listen_io = io;
}

/*
 * The checks before the body is read: Host and Origin, the card, the
 * HTTP method, the media type.  1 when one of them answered (into r,
 * *allow and *card), 0 for a POST to read.
 */
static int
screen(struct wymcp_ctx *ctx, struct wymcp__reply *r, const char **allow,
    int *card)
{
	const char	*rm, *extra;

	extra = wymcp__param(ctx, WYMCP__P_WYMCP_ALLOW_ORIGIN);
	rm = wymcp__param(ctx, WYMCP__P_REQUEST_METHOD);
	/*
	 * A repeated Origin (an origin never holds a comma) is an invalid
	 * one: 403 (streamable-http.mdx "Security & Endpoint"), since which
	 * value a check read and which one the browser sent cannot be told.
	 * A repeated Host is a 400 (RFC 9112 section 3.2).
	 */
	if (wymcp__param_repeated(ctx, WYMCP__P_HTTP_HOST, 1)) {
		fail(ctx, r, 400, WYMCP__INVALID_REQUEST,
		    "Bad Request: repeated Host header", NULL);
	} else if (wymcp__card_wanted(ctx)) {
		/* <endpoint>/server-card: the card, whatever the Origin. */
		*card = wymcp__card(ctx, r, allow);
	} else if (wymcp__param_repeated(ctx, WYMCP__P_HTTP_ORIGIN, 1)) {
		wymcp__ctx_log(ctx, WYMCP_LOG_WARNING,
		    "refused a repeated Origin header");
		fail(ctx, r, 403, WYMCP__INVALID_REQUEST,
		    "Forbidden: repeated Origin header", NULL);
	} else if (!wymcp__host_allowed(ctx->srv, wymcp__param(ctx,
	    WYMCP__P_HTTP_HOST), extra) || !wymcp__origin_allowed(ctx->srv,
	    wymcp__param(ctx, WYMCP__P_HTTP_ORIGIN), extra)) {
		wymcp__ctx_log(ctx, WYMCP_LOG_WARNING, "refused Host '%s' "
		    "Origin '%s': not in the allow-list (see --allow-origin)",
		    wymcp__ctx_quote(ctx, wymcp__param(ctx,
		    WYMCP__P_HTTP_HOST)), wymcp__ctx_quote(ctx,
		    wymcp__param(ctx, WYMCP__P_HTTP_ORIGIN)));
		fail(ctx, r, 403, WYMCP__INVALID_REQUEST,
		    "Forbidden: Host or Origin not allowed", NULL);
	} else if (rm != NULL && strcmp(rm, "DELETE") == 0) {
		/*
		 * 2025-11-25 transports "Session Management": the server
		 * MAY answer 405, not allowing clients to terminate
		 * sessions.  A sealed session id is no state to delete:
		 * it opens until it expires.
		 */
		fail(ctx, r, 405, WYMCP__INVALID_REQUEST,
		    "Method not allowed: a session id is a sealed token, "
		    "not state; there is nothing to terminate", NULL);
		*allow = "POST";
	} else if (rm != NULL && strcmp(rm, "GET") == 0 &&
	    ctx->out.listen_io != NULL && wymcp__legacy_on(ctx) &&
	    wymcp__param(ctx, WYMCP__P_HTTP_MCP_SESSION_ID) != NULL) {
		/*
		 * A 2025-11-25 client's stream for its session (without
		 * one there is no stream at this endpoint: 405 below).
		 */
		ctx->req.legacy = 1;
		ctx->req.method = "GET";
		if (wymcp__stream_init(ctx) == 0 &&
		    wymcp__legacy_session(ctx, r) == 0)
			wymcp__legacy_get(ctx, r);
	} else if (rm == NULL || strcmp(rm, "POST") != 0) {
		fail(ctx, r, 405, WYMCP__INVALID_REQUEST,
		    "Method not allowed: the MCP endpoint accepts POST only",
		    NULL);
		*allow = "POST";
	} else if (!wymcp__content_type_ok(wymcp__param(ctx,
	    WYMCP__P_CONTENT_TYPE))) {
		fail(ctx, r, 415, WYMCP__INVALID_REQUEST,
		    "Unsupported media type: send application/json", NULL);
	} else
		return 0;
	return 1;
}

/* A body that does not parse: the answer its fault gets. */
static void
bad_body(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    enum wymcp__json_fault fault, const struct wymcp__json_err *jerr)
{
	if (fault == WYMCP__JSON_NULL)
		fail(ctx, r, 400, WYMCP__INVALID_REQUEST,
		    "Invalid Request: not a JSON-RPC request object",
		    NULL);
	else if (fault == WYMCP__JSON_RANGE)
		fail(ctx, r, 400, WYMCP__INVALID_REQUEST,
		    "Invalid Request: an integer is beyond the 64-bit "
		    "range", NULL);
	else if (fault == WYMCP__JSON_DUPLICATE)
		fail(ctx, r, 400, WYMCP__PARSE_ERROR,
		    "Parse error: an object has two members of the "
		    "same name", NULL);
	else if (fault == WYMCP__JSON_NOMEM)
		wymcp__reply_nomem(ctx, r);
	else
		parse_error(ctx, r, jerr);
}

/*
 * Answer the request and release it: r (taken), or 202 for a
 * notification, or what the card, the stream or the program did.
 */
static enum wymcp_err
finish(struct wymcp_server *srv, const struct wymcp_io *io,
    struct wymcp_ctx *ctx, struct wymcp__reply *r, int notify, int card,
    const char *allow, size_t len)
{
	struct wymcp__reply	 bare = { 0, NULL, NULL, NULL, 0 };
	enum wymcp_err		 rc;
	int			 n;

	/*
	 * Past the time limit, whatever the method answered (a result, a
	 * question, an error) becomes the time-limit error.
	 */
	if (!notify && card == 0 && !ctx->out.cancelled &&
	    wymcp__expired(ctx))
		timed_out(ctx, r);
	/*
	 * The held place goes back before the response goes out: a client
	 * sends its next call as soon as it reads this one's result, and
	 * that call must find its principal's place free.
	 */
	wymcp__held_release(ctx);

	/*
	 * A request whose method sent a notification is an SSE stream
	 * (stream.c): its response is the last event, or nothing when
	 * the client went away (cancellation.mdx: MUST NOT send further
	 * messages).  Otherwise one JSON response, unless the client was
	 * seen going away.
	 */
	if (card != 0)
		rc = card > 0 ? WYMCP_OK : WYMCP_ERR_IO;
	else if (ctx->out.handed)
		rc = WYMCP_OK;		/* the program holds the stream */
	else if (ctx->out.streaming)
		rc = wymcp__stream_final(ctx, r->body);
	else if (ctx->out.cancelled)
		rc = WYMCP_ERR_IO;
	else if (notify || r->body == NULL) {
		/* 202, or 500 with no body: no header of r's. */
		bare.status = notify ? 202 : 500;
		rc = respond(srv, io, &bare, NULL, notify ?
		    audit_headers(ctx, &bare, len) : NULL);
	} else
		rc = respond(srv, io, r, allow, audit_headers(ctx, r, len));
	if (r->status != 0)
		wymcp__ctx_log(ctx, WYMCP_LOG_DEBUG, "%s -> %d",
		    ctx->req.method != NULL ? ctx->req.method : "-", r->status);
	/* What was written, as the request hook's detail tells it. */
	if (card != 0)
		n = card > 0 ? 200 : 0;
	else if (ctx->out.handed || (ctx->out.cancelled &&
	    !ctx->out.streaming))
		n = 0;
	else if (ctx->out.streaming)
		n = 200;
	else
		n = notify || r->body == NULL ? bare.status : r->status;
	wymcp__ctx_done(ctx, n, notify ? NULL : r->body, len);
	json_object_put(r->body);
	wymcp__ctx_free(ctx);
	return rc;
}

enum wymcp_err
wymcp_server_serve_io(struct wymcp_server *srv, const struct wymcp_io *io,
    size_t size)
{
	struct wymcp_ctx	 ctx;
	struct wymcp__reply	 r = { 0, NULL, NULL, NULL, 0 };
	const char		*allow = NULL;
	enum wymcp__json_fault	 fault;
	struct wymcp__json_err	 jerr;
	unsigned long		 limit;
	size_t			 len = 0;
	int			 notify = 0, card = 0, n;

	if (srv == NULL || io == NULL ||
	    size < offsetof(struct wymcp_io, gone) ||
	    io->read == NULL || io->write == NULL)
		return WYMCP_ERR_INVAL;
	wymcp__ctx_init(&ctx, srv, io->env);
	bind_io(&ctx, io, size);
	/* The clock starts now; the program learns the deadline at once. */
	if ((limit = time_limit(&ctx)) > 0)
		wymcp__deadline_set(&ctx, wymcp__clock_ms() + (long long)limit,
		    (long)limit);
	else
		wymcp__ctx_publish(&ctx, 0);
	if (screen(&ctx, &r, &allow, &card))
		;	/* answered before the body */
	else if ((n = read_body(srv, io, wymcp__param(&ctx,
	    WYMCP__P_CONTENT_LENGTH), &len)) != 0) {
		if (n < 0) {
			wymcp__ctx_done(&ctx, 0, NULL, 0);
			wymcp__ctx_free(&ctx);
			return WYMCP_ERR_IO;
		}
		if (n == 2)
			fail(&ctx, &r, 400, WYMCP__INVALID_REQUEST,
			    "Invalid Request: bad CONTENT_LENGTH", NULL);
		else
			fail(&ctx, &r, 413, WYMCP__INVALID_REQUEST,
			    "Payload too large", NULL);
	} else if ((ctx.req.msg = wymcp__parse_memo(srv->readbuf, len,
	    &fault, &jerr, &srv->metamemo)) == NULL)
		bad_body(&ctx, &r, fault, &jerr);
	else
		dispatch(&ctx, &r, &notify, fault == WYMCP__JSON_NUL, len);
	return finish(srv, io, &ctx, &r, notify, card, allow, len);
}
