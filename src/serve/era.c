/*
 * era.c - which era serves a request: 2026-07-28 or 2025-11-25
 *
 * A server MAY serve both eras on one endpoint (2026-07-28
 * versioning.mdx).  The era is chosen per HTTP
 * request, from the request alone (wymcp__era()):
 *
 *   1. params._meta carries io.modelcontextprotocol/protocolVersion:
 *      modern (2026-07-28), the whole _meta pipeline of server.c.  So an
 *      initialize with a modern _meta is an unknown method (404, -32601).
 *   2. Otherwise, when the legacy era is on: initialize, or a request
 *      whose MCP-Protocol-Version header is absent or a legacy version
 *      (2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05), is legacy.
 *   3. Otherwise a header naming 2026-07-28 is modern (and fails its
 *      _meta check); any other header is an unsupported version: 400
 *      (2025-11-25 basic/transports.mdx "MUST respond with 400"), -32022
 *      with data.supported and data.requested.
 *   With the legacy era off (wymcp_server_set_legacy(), wymcp-fcgi
 *   --modern-only, or the FastCGI param WYMCP_LEGACY=off), every request
 *   is modern, except an initialize without _meta, which gets what a
 *   modern-only server answers to it (versioning.mdx): 400, -32022,
 *   naming the supported versions.
 *
 * The legacy wire (2025-11-25 basic/lifecycle.mdx, transports.mdx):
 * initialize negotiates a version and advertises what the server has;
 * notifications/initialized and every other notification are 202
 * (server.c); ping, logging/setLevel, resources/subscribe and
 * resources/unsubscribe answer exactly {}; the other methods are the
 * modern ones with 2025 result shapes (no resultType, ttlMs, cacheScope,
 * or _meta serverInfo; structuredContent only when an object; an unknown
 * resource is -32002).  Method-level errors go out with HTTP 200, as
 * 2025 clients read the JSON-RPC error of a 200 and only an HTTP
 * status of a 4xx (the SDK reports "Error POSTing to endpoint"); the
 * one exception is the 403 insufficient_scope step-up of a tool's
 * scopes, an HTTP authorization answer that clients act on.
 *
 * Nothing is remembered between requests, but initialize mints a
 * sealed Mcp-Session-Id (core/seal.c): the negotiated version, the
 * client's elicitation, sampling and roots capabilities and the
 * principal, sealed with the requestState keys.  It is a token the
 * client carries, not state.  Every later legacy request that brings
 * one opens it (wymcp__legacy_session()); one that does not open
 * (tampered, another principal, a retired key, older than a day) is
 * what 2025-11-25 prescribes for an unknown session: HTTP 404, so the
 * client initializes again.  A request without one is served as
 * before.  A client's setLevel still cannot outlive its own request.
 * Tools' log lines at info and above go out on the response
 * (stream.c), the level a server MAY choose without setLevel
 * (2025-11-25 logging).  The capabilities the session id carries are
 * kept in req.session_caps.  Asking the client (elicitation, sampling,
 * roots) is a server-to-client request on the tool call's held stream,
 * whose answer arrives as another POST, possibly at another worker: when
 * the program gives the io the ask_* members (wymcp-fcgi does) and the
 * session id opened, req.caps is what it carries and core/held.c asks
 * on the held stream, the answer relayed to the holder.  Otherwise
 * req.caps is empty: wymcp_elicit(), wymcp_sample() and wymcp_roots()
 * answer WYMCP_ERR_NOTSUP, and a tool with required_caps answers
 * isError saying so.  Never an input_required result.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "serve/serve.h"

/*
 * The version a legacy request without MCP-Protocol-Version is taken to
 * speak (2025-11-25 basic/transports.mdx: "the server SHOULD assume
 * protocol version 2025-03-26").
 */
#define ASSUMED_VERSION	"2025-03-26"

/*
 * The MCP-Protocol-Version header, trimmed; NULL when absent; "" when
 * it holds characters a header value may not (never a version).
 */
static const char *
version_header(struct wymcp_ctx *ctx)
{
	const char	*h, *v;

	if ((h = wymcp__param(ctx, WYMCP__P_HTTP_MCP_PROTOCOL_VERSION)) == NULL)
		return NULL;
	if (!wymcp__header_chars_ok(h) ||
	    (v = wymcp__header_trim(&ctx->arena, h)) == NULL)
		return "";
	return v;
}

/* Does the request carry the modern _meta protocolVersion? */
static int
modern_meta(const struct wymcp_ctx *ctx)
{
	struct json_object	*meta;

	return json_object_is_type(ctx->req.params, json_type_object) &&
	    json_object_object_get_ex(ctx->req.params, "_meta", &meta) &&
	    json_object_is_type(meta, json_type_object) &&
	    json_object_object_get_ex(meta, WYMCP__META_VERSION, NULL);
}

enum wymcp__era
wymcp__era(struct wymcp_ctx *ctx)
{
	const char	*h;
	int		 init;

	if (modern_meta(ctx))
		return WYMCP__ERA_MODERN;
	init = strcmp(ctx->req.method, "initialize") == 0;
	if (!wymcp__legacy_on(ctx))
		return init ? WYMCP__ERA_REFUSE : WYMCP__ERA_MODERN;
	if (init)
		return WYMCP__ERA_LEGACY;
	h = version_header(ctx);
	if (h == NULL || wymcp__legacy_version(h))
		return WYMCP__ERA_LEGACY;
	if (strcmp(h, WYMCP_PROTOCOL_VERSION) == 0)
		return WYMCP__ERA_MODERN;
	return WYMCP__ERA_REFUSE;
}

/*
 * A request no era serves (WYMCP__ERA_REFUSE): an unsupported version
 * header without _meta, or initialize to a modern-only server.  400,
 * -32022, naming the supported versions; `requested` is what the
 * request asked for (initialize's params.protocolVersion, else the
 * header).
 */
void
wymcp__era_refuse(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	struct json_object	*d, *v;
	const char		*req = NULL, *msg;

	if (strcmp(ctx->req.method, "initialize") == 0 &&
	    json_object_object_get_ex(ctx->req.params, "protocolVersion", &v) &&
	    json_object_is_type(v, json_type_string))
		req = json_object_get_string(v);
	if (req == NULL)
		req = version_header(ctx);
	if (req == NULL)
		req = "";
	if ((d = json_object_new_object()) != NULL) {
		json_object_object_add(d, "supported",
		    wymcp__supported_versions(ctx));
		json_object_object_add(d, "requested",
		    json_object_new_string(req));
	}
	msg = wymcp__legacy_on(ctx) ? NULL : wymcp_printf(ctx,
	    "Unsupported protocol version: this server supports %s only "
	    "(no initialize handshake)", WYMCP_PROTOCOL_VERSION);
	wymcp__reply_error(ctx, r, 400, WYMCP__UNSUPPORTED_VERSION,
	    msg != NULL ? msg : "Unsupported protocol version", d);
	wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "%s: unsupported "
	    "protocol version '%s'", ctx->req.method, req);
}

/*
 * Open the request's Mcp-Session-Id, if it has one (initialize's is
 * ignored: the client starts a new session with it).  0 when there is
 * none or it opens (req.session_caps, and the version when no header
 * names one); -1 with r filled when it does not: HTTP 404, -32001
 * "Session not found" (the code the TypeScript SDK answers).
 */
int
wymcp__legacy_session(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	struct json_object	*caps;
	const char		*h, *v;

	if ((h = wymcp__param(ctx, WYMCP__P_HTTP_MCP_SESSION_ID)) == NULL ||
	    (ctx->req.method != NULL &&
	    strcmp(ctx->req.method, "initialize") == 0))
		return 0;
	if (!wymcp__header_chars_ok(h) ||
	    (h = wymcp__header_trim(&ctx->arena, h)) == NULL ||
	    wymcp__session_open(ctx, h, &v, &caps) != 0) {
		wymcp__reply_error(ctx, r, 404, WYMCP__SESSION_NOT_FOUND,
		    "Session not found: initialize again", NULL);
		return -1;
	}
	ctx->req.session_caps = caps;
	if (ctx->req.version == NULL)
		ctx->req.version = v;
	return 0;
}

/*
 * Serve a legacy request (the envelope passed; not a notification).
 * No Mcp-Method, Mcp-Name or Mcp-Param-* checks (2025-11-25 has none),
 * no _meta check; the method table is the modern one without
 * server/discover, plus legacy_methods.
 */
void
wymcp__legacy_dispatch(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	const struct wymcp__method *m = NULL;
	struct json_object	*meta;
	const char		*h;

	ctx->req.legacy = 1;
	h = version_header(ctx);
	ctx->req.version = h != NULL && *h != '\0' ? h : NULL;
	if (wymcp__legacy_session(ctx, r) != 0) {
		wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "%s: 404, the "
		    "Mcp-Session-Id does not open", ctx->req.method);
		return;
	}
	if (ctx->req.version == NULL)
		ctx->req.version = ASSUMED_VERSION;
	/* _meta holds progressToken; tools may read it. */
	if (json_object_is_type(ctx->req.params, json_type_object) &&
	    json_object_object_get_ex(ctx->req.params, "_meta", &meta) &&
	    json_object_is_type(meta, json_type_object))
		ctx->req.meta = meta;
	else
		ctx->req.meta = wymcp_own(ctx, json_object_new_object());
	/*
	 * A legacy client is asked what its session id says it can
	 * answer, when the program can hold the stream (core/held.c).
	 */
	ctx->req.caps = ctx->req.session_caps != NULL &&
	    ctx->out.ask_io != NULL ? ctx->req.session_caps :
	    wymcp_own(ctx, json_object_new_object());
	if (ctx->req.meta == NULL || ctx->req.caps == NULL) {
		wymcp__reply_nomem(ctx, r);
		return;
	}
	m = wymcp__legacy_method_find(ctx->req.method);
	if (m == NULL && strcmp(ctx->req.method, "server/discover") != 0)
		m = wymcp__method_find(ctx->req.method);
	if (m == NULL) {
		wymcp__reply_no_method(ctx, r, 200);
		wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "%s: -32601 "
		    "(protocol %s)", ctx->req.method, ctx->req.version);
		return;
	}
	(void)wymcp__stream_init(ctx);
	m->fn(ctx, r);
	/*
	 * A method's JSON-RPC error, -32603 too (500 on the modern wire),
	 * is HTTP 200: a 2025 SDK reads only a 2xx body, and throws a
	 * transport error for anything else.  An HTTP authorization answer
	 * (403 with a WWW-Authenticate step-up challenge) is
	 * transport-level in every revision (basic/authorization "Error
	 * Handling"), and a 503 or 429 with Retry-After asks the client to
	 * come back: they keep their status.
	 */
	if (r->status >= 400 && r->challenge == NULL && r->retry_after == 0)
		r->status = 200;
}
