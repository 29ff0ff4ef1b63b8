/*
 * legacy.c - 2025-11-25 clients, served by the same stateless pipeline
 *
 * A server MAY serve both eras on one endpoint (2026-07-28
 * versioning.mdx; spec-digest section 12).  The era is chosen per HTTP
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
 *   is modern, except an initialize without _meta, which gets the answer
 *   spec-digest 12.2 gives a modern-only server: 400, -32022, naming
 *   the supported versions.
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
 * status of a 4xx (the SDK reports "Error POSTing to endpoint").
 *
 * Nothing is remembered between requests: wymcp mints no Mcp-Session-Id
 * (the header is optional for the server, and ignored on requests), so
 * a client's setLevel cannot outlive its own request.  Tools' log lines
 * at info and above go out on the response (stream.c), the level a
 * server MAY choose without setLevel (2025-11-25 logging).  Asking the
 * client (elicitation, sampling, roots) is a server-to-client request
 * on a held stream in 2025-11-25, whose answer arrives as another POST,
 * possibly at another worker or host: a stateless worker cannot serve
 * it.  A legacy request therefore declares no client capabilities:
 * wymcp_elicit(), wymcp_sample() and wymcp_roots() answer
 * WYMCP_ERR_NOTSUP, and a tool with required_caps answers isError
 * saying so.  Never an input_required result.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "extern.h"

/* The legacy versions, newest first: the first is the default answer. */
static const char *const legacy_versions[] = {
	"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"
};
#define NLEGACY	(sizeof(legacy_versions) / sizeof(legacy_versions[0]))

/*
 * The version a legacy request without MCP-Protocol-Version is taken to
 * speak (2025-11-25 basic/transports.mdx: "the server SHOULD assume
 * protocol version 2025-03-26").
 */
#define ASSUMED_VERSION	"2025-03-26"

void
wymcp_server_set_legacy(struct wymcp_server *srv, int on)
{
	if (srv != NULL)
		srv->legacy = on != 0;
}

/*
 * Is the legacy era served for this request?  The server's setting,
 * unless the web server says otherwise for this location with the
 * FastCGI param WYMCP_LEGACY ("on" or "off"; clients cannot set it:
 * their headers arrive as HTTP_*).
 */
int
wymcp__legacy_on(const struct wymcp_ctx *ctx)
{
	const char	*v = wymcp__env(ctx->env, "WYMCP_LEGACY");

	if (v != NULL && strcmp(v, "off") == 0)
		return 0;
	if (v != NULL && strcmp(v, "on") == 0)
		return 1;
	return ctx->srv->legacy;
}

/* Is `v` one of the legacy versions wymcp serves? */
int
wymcp__legacy_version(const char *v)
{
	size_t	 i;

	for (i = 0; v != NULL && i < NLEGACY; i++)
		if (strcmp(v, legacy_versions[i]) == 0)
			return 1;
	return 0;
}

/*
 * Every version this request's server supports: 2026-07-28, then the
 * legacy ones when their era is on.  server/discover's supportedVersions
 * and every -32022's data.supported, so that the two always agree.
 */
struct json_object *
wymcp__supported_versions(const struct wymcp_ctx *ctx)
{
	struct json_object	*a;
	size_t			 i;

	if ((a = json_object_new_array()) == NULL)
		return NULL;
	json_object_array_add(a,
	    json_object_new_string(WYMCP_PROTOCOL_VERSION));
	if (wymcp__legacy_on(ctx))
		for (i = 0; i < NLEGACY; i++)
			json_object_array_add(a,
			    json_object_new_string(legacy_versions[i]));
	return a;
}

/*
 * The MCP-Protocol-Version header, trimmed; NULL when absent; "" when
 * it holds characters a header value may not (never a version).
 */
static const char *
version_header(struct wymcp_ctx *ctx)
{
	const char	*h, *v;

	if ((h = wymcp__env(ctx->env, "HTTP_MCP_PROTOCOL_VERSION")) == NULL)
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

	return json_object_is_type(ctx->params, json_type_object) &&
	    json_object_object_get_ex(ctx->params, "_meta", &meta) &&
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
	init = strcmp(ctx->method, "initialize") == 0;
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

	if (strcmp(ctx->method, "initialize") == 0 &&
	    json_object_object_get_ex(ctx->params, "protocolVersion", &v) &&
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
	wymcp__log(ctx->srv, ctx, WYMCP_LOG_INFO, "%s: unsupported "
	    "protocol version '%s'", ctx->method, req);
}

/* A result that must be exactly {} (ping, logging/setLevel, ...). */
static void
empty(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	struct json_object	*o;

	if ((o = json_object_new_object()) == NULL ||
	    (r->body = wymcp__response(ctx->id, o)) == NULL) {
		wymcp__reply_nomem(ctx, r);
		return;
	}
	r->status = 200;
}

/*
 * initialize (2025-11-25 basic/lifecycle.mdx "Version Negotiation"):
 * the client's version when wymcp serves it, else the latest legacy
 * one ("MUST respond with another protocol version it supports").
 * Capabilities are what server/discover advertises: no listChanged and
 * no subscribe (nothing is ever announced: no stream is held).
 */
static void
initialize(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	struct json_object	*v, *res, *info;
	const char		*want, *ver;

	if (!json_object_object_get_ex(ctx->params, "protocolVersion", &v) ||
	    !json_object_is_type(v, json_type_string)) {
		wymcp__reply_error(ctx, r, 200, WYMCP__INVALID_PARAMS,
		    "Invalid params: protocolVersion must be a string", NULL);
		return;
	}
	want = json_object_get_string(v);
	ver = wymcp__legacy_version(want) ? want : legacy_versions[0];
	ctx->version = ver;
	if ((res = json_object_new_object()) == NULL)
		goto nomem;
	json_object_object_get_ex(ctx->srv->result_meta, WYMCP__META_SERVER,
	    &info);
	if (json_object_object_add(res, "protocolVersion",
	    json_object_new_string(ver)) ||
	    json_object_object_add(res, "capabilities",
	    wymcp__server_caps(ctx->srv)) ||
	    json_object_object_add(res, "serverInfo",
	    json_object_get(info))) {
		json_object_put(res);
		goto nomem;
	}
	if ((r->body = wymcp__response(ctx->id, res)) == NULL)
		goto nomem;
	r->status = 200;
	wymcp__log(ctx->srv, ctx, WYMCP_LOG_DEBUG, "initialize: client asked "
	    "for %s, answered %s", want, ver);
	return;
nomem:
	wymcp__reply_nomem(ctx, r);
}

/* ping (2025-11-25 basic/utilities/ping): promptly, exactly {}. */
static void
ping(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	empty(ctx, r);
}

/*
 * logging/setLevel: a valid level is accepted with {}.  It cannot last
 * beyond this request (nothing is remembered): every legacy request's
 * log lines go out from info up (stream.c).
 */
static void
set_level(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(ctx->params, "level", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    wymcp__log_level(json_object_get_string(v)) < 0) {
		wymcp__reply_error(ctx, r, 200, WYMCP__INVALID_PARAMS,
		    "Invalid params: level must be one of debug, info, notice, "
		    "warning, error, critical, alert, emergency", NULL);
		return;
	}
	empty(ctx, r);
}

/*
 * resources/subscribe and resources/unsubscribe: accepted with {} and
 * nothing more.  The resources capability does not advertise
 * subscribe, so a client should not ask; one that does is not refused,
 * but it is never notified (no stream is held to notify it on).  Absent
 * without resources, like the other resources/ methods.
 */
static void
subscribe(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	struct json_object	*v;
	const char		*msg;

	if (ctx->srv->nresources == 0 && ctx->srv->ntemplates == 0) {
		msg = wymcp_printf(ctx, "Method not found: %s", ctx->method);
		wymcp__reply_error(ctx, r, 200, WYMCP__METHOD_NOT_FOUND,
		    msg != NULL ? msg : "Method not found", NULL);
		return;
	}
	if (!json_object_object_get_ex(ctx->params, "uri", &v) ||
	    !json_object_is_type(v, json_type_string)) {
		wymcp__reply_error(ctx, r, 200, WYMCP__INVALID_PARAMS,
		    "Invalid params: uri must be a string", NULL);
		return;
	}
	empty(ctx, r);
}

/* The methods only the legacy era has. */
static const struct wymcp__method legacy_methods[] = {
	{ "initialize",			NULL,	initialize },
	{ "logging/setLevel",		NULL,	set_level },
	{ "ping",			NULL,	ping },
	{ "resources/subscribe",	NULL,	subscribe },
	{ "resources/unsubscribe",	NULL,	subscribe },
};

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
	const char		*h, *msg;
	size_t			 i;

	ctx->legacy = 1;
	h = version_header(ctx);
	ctx->version = h != NULL && *h != '\0' ? h : ASSUMED_VERSION;
	/* _meta holds progressToken; tools may read it. */
	if (json_object_is_type(ctx->params, json_type_object) &&
	    json_object_object_get_ex(ctx->params, "_meta", &meta) &&
	    json_object_is_type(meta, json_type_object))
		ctx->meta = meta;
	else
		ctx->meta = wymcp_own(ctx, json_object_new_object());
	/* Nothing can be asked of a legacy client: see above. */
	ctx->caps = wymcp_own(ctx, json_object_new_object());
	if (ctx->meta == NULL || ctx->caps == NULL) {
		wymcp__reply_nomem(ctx, r);
		return;
	}
	for (i = 0; i < sizeof(legacy_methods) / sizeof(legacy_methods[0]);
	    i++)
		if (strcmp(legacy_methods[i].name, ctx->method) == 0)
			m = &legacy_methods[i];
	if (m == NULL && strcmp(ctx->method, "server/discover") != 0)
		m = wymcp__method_find(ctx->method);
	if (m == NULL) {
		msg = wymcp_printf(ctx, "Method not found: %s", ctx->method);
		wymcp__reply_error(ctx, r, 200, WYMCP__METHOD_NOT_FOUND,
		    msg != NULL ? msg : "Method not found", NULL);
		wymcp__log(ctx->srv, ctx, WYMCP_LOG_INFO, "%s: -32601 "
		    "(protocol %s)", ctx->method, ctx->version);
		return;
	}
	(void)wymcp__stream_init(ctx);
	m->fn(ctx, r);
	if (r->status >= 400 && r->status < 500)
		r->status = 200;
}

/*
 * A tool with required_caps, called by a legacy client: an isError
 * result naming what this protocol version cannot provide (2025-11-25
 * has no -32021).  Takes `missing`.
 */
void
wymcp__legacy_missing_caps(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    const char *tool, struct json_object *missing)
{
	struct json_object	*res, *content, *t;
	const char		*msg;

	msg = wymcp_printf(ctx, "Tool %s needs client capabilities %s, "
	    "which this server cannot use with protocol version %s: asking "
	    "the client needs a 2026-07-28 client", tool,
	    wymcp__json(missing), ctx->version);
	json_object_put(missing);
	if (msg == NULL || (res = json_object_new_object()) == NULL) {
		wymcp__reply_nomem(ctx, r);
		return;
	}
	content = json_object_new_array();
	t = json_object_new_object();
	json_object_object_add(t, "type", json_object_new_string("text"));
	json_object_object_add(t, "text", json_object_new_string(msg));
	json_object_array_add(content, t);
	json_object_object_add(res, "content", content);
	json_object_object_add(res, "isError", json_object_new_boolean(1));
	wymcp__log(ctx->srv, ctx, WYMCP_LOG_INFO, "%s", msg);
	wymcp__reply_result(ctx, r, res);
}

/*
 * Reshape a modern result for a legacy client, in place: no resultType
 * and no cache hints (2025-11-25 has neither; ping-like results must be
 * exactly {}), structuredContent only when it is an object, and no
 * outputSchema other than an object schema in tools/list (2025-11-25
 * schema: both "type":"object").  Listing objects are shared by every
 * request: a tool entry that must change is replaced by a copy.
 */
void
wymcp__legacy_result(struct wymcp_ctx *ctx, struct json_object *res)
{
	struct json_object	*v, *tools, *t, *os, *ty, *c;
	size_t			 i, n;

	json_object_object_del(res, "resultType");
	json_object_object_del(res, "ttlMs");
	json_object_object_del(res, "cacheScope");
	if (json_object_object_get_ex(res, "structuredContent", &v) &&
	    !json_object_is_type(v, json_type_object)) {
		wymcp__log(ctx->srv, ctx, WYMCP_LOG_WARNING, "tool %s: "
		    "structuredContent is not an object: left out for a "
		    "%s client", ctx->call_name != NULL ? ctx->call_name : "-",
		    ctx->version);
		json_object_object_del(res, "structuredContent");
	}
	if (!json_object_object_get_ex(res, "tools", &tools) ||
	    !json_object_is_type(tools, json_type_array))
		return;
	n = json_object_array_length(tools);
	for (i = 0; i < n; i++) {
		t = json_object_array_get_idx(tools, i);
		if (!json_object_object_get_ex(t, "outputSchema", &os) ||
		    (json_object_object_get_ex(os, "type", &ty) &&
		    json_object_is_type(ty, json_type_string) &&
		    strcmp(json_object_get_string(ty), "object") == 0))
			continue;
		if ((c = json_object_new_object()) == NULL)
			continue;
		json_object_object_foreach(t, k, kv)
			if (strcmp(k, "outputSchema") != 0)
				json_object_object_add(c, k,
				    json_object_get(kv));
		json_object_array_put_idx(tools, i, c);
	}
}
