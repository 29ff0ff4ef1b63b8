/*
 * legacy.c - the methods only 2025-11-25 clients call
 *
 * 2025-11-25 basic/lifecycle.mdx: initialize negotiates a version and
 * advertises what the server has; ping, logging/setLevel,
 * resources/subscribe and resources/unsubscribe answer exactly {}.
 * Which requests are legacy is serve/era.c's decision.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "methods/methods.h"

/* A result that must be exactly {} (ping, logging/setLevel, ...). */
static void
empty(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	struct json_object	*o;

	if ((o = json_object_new_object()) == NULL ||
	    (r->body = wymcp__response(ctx->req.id, o)) == NULL) {
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
 * no subscribe (nothing is ever announced: no stream is held).  The
 * response carries a sealed Mcp-Session-Id (core/seal.c): the version,
 * the client's elicitation, sampling and roots capabilities and the
 * principal, which every later request brings back (era.c).
 */
void
wymcp__initialize(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	struct json_object	*v, *res, *info;
	const char		*want, *ver;

	if (!json_object_object_get_ex(ctx->req.params, "protocolVersion",
	    &v) ||
	    !json_object_is_type(v, json_type_string)) {
		wymcp__reply_invalid(ctx, r,
		    "Invalid params: protocolVersion must be a string");
		return;
	}
	want = json_object_get_string(v);
	ver = wymcp__legacy_version(want) ? want : wymcp__legacy_latest();
	ctx->req.version = ver;
	if ((res = json_object_new_object()) == NULL)
		goto nomem;
	json_object_object_get_ex(ctx->srv->result_meta, WYMCP__META_SERVER,
	    &info);
	if (json_object_object_add(res, "protocolVersion",
	    json_object_new_string(ver)) ||
	    json_object_object_add(res, "capabilities",
	    wymcp__server_caps(ctx->srv, 0)) ||
	    json_object_object_add(res, "serverInfo",
	    json_object_get(info)) || (ctx->srv->instructions != NULL &&
	    wymcp__put_str(res, "instructions", ctx->srv->instructions))) {
		json_object_put(res);
		goto nomem;
	}
	if ((r->body = wymcp__response(ctx->req.id, res)) == NULL)
		goto nomem;
	r->status = 200;
	/*
	 * The session id carries what later requests need to ask the
	 * client (era.c); without a key, none is minted.
	 */
	if (!json_object_object_get_ex(ctx->req.params, "capabilities", &v))
		v = NULL;
	if ((r->session = wymcp__session_seal(ctx, ver, v)) == NULL)
		wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "initialize: no "
		    "Mcp-Session-Id minted (no key, or capabilities too "
		    "large)");
	wymcp__ctx_log(ctx, WYMCP_LOG_DEBUG, "initialize: client asked "
	    "for %s, answered %s", want, ver);
	return;
nomem:
	wymcp__reply_nomem(ctx, r);
}

/* ping (2025-11-25 basic/utilities/ping): promptly, exactly {}. */
void
wymcp__ping(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	empty(ctx, r);
}

/*
 * logging/setLevel: a valid level is accepted with {}.  It cannot last
 * beyond this request (nothing is remembered): every legacy request's
 * log lines go out from info up (stream.c).
 */
void
wymcp__set_level(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(ctx->req.params, "level", &v) ||
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
 * resources/subscribe and resources/unsubscribe, {} either way.  When
 * the program holds streams (wymcp_server_set_publish()), the change
 * is published for the session's GET stream, wherever it is held
 * (wymcp-fcgi's hub, on any host of the bus); otherwise the resources
 * capability does not advertise subscribe, and a client that asks
 * anyway is never notified.  A session without a stream: the program
 * keeps the subscription for its next GET (wymcp-fcgi: for an hour).
 * Absent without resources, like the other resources/ methods.
 */
void
wymcp__subscribe(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	struct json_object	*v, *ev;
	const char		*s;
	char			 key[WYMCP__SESSION_KEY_LEN + 1];

	if (ctx->srv->nresources == 0 && ctx->srv->ntemplates == 0) {
		wymcp__reply_no_method(ctx, r, 200);
		return;
	}
	if (!json_object_object_get_ex(ctx->req.params, "uri", &v) ||
	    !json_object_is_type(v, json_type_string)) {
		wymcp__reply_invalid(ctx, r,
		    "Invalid params: uri must be a string");
		return;
	}
	if (ctx->srv->publish != NULL &&
	    json_object_get_string_len(v) <= WYMCP__URI_MAX &&
	    (ev = json_object_new_object()) != NULL) {
		if (wymcp__session_key(ctx, key) == 0) {
			json_object_object_add(ev, "v", json_object_new_int(1));
			json_object_object_add(ev, "k", json_object_new_string(
			    strcmp(ctx->req.method,
			    "resources/subscribe") == 0 ? "subscribe" :
			    "unsubscribe"));
			json_object_object_add(ev, "session",
			    json_object_new_string(key));
			json_object_object_add(ev, "uri", json_object_get(v));
			if ((s = wymcp__json(ev)) != NULL)
				ctx->srv->publish(ctx->srv->publish_arg, s,
				    strlen(s));
		}
		json_object_put(ev);
	}
	empty(ctx, r);
}
