/*
 * reply.c - replies: results, errors, and the shape each era reads
 *
 * Every 2026-07-28 result carries resultType and _meta
 * io.modelcontextprotocol/serverInfo (basic/index.mdx "Result"),
 * stamped here and nowhere else; a 2025-11-25 request's result is
 * reshaped instead.  Cacheable results carry ttlMs and cacheScope
 * (server/utilities/caching.mdx).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "methods/methods.h"

/* Reply with a JSON-RPC error.  Takes ownership of `data`. */
void
wymcp__reply_error(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    int status, int code, const char *message, struct json_object *data)
{
	r->status = status;
	r->retry_after = 0;
	r->body = wymcp__error(ctx->req.id, code, message, data);
}

/* Reply -32603 (HTTP 500) for an allocation failure, and log it. */
void
wymcp__reply_nomem(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	wymcp__ctx_log(ctx, WYMCP_LOG_ERR, "out of memory");
	ctx->out.nomem = 1;
	wymcp__reply_error(ctx, r, 500, WYMCP__INTERNAL_ERROR,
	    "Internal error: out of memory", NULL);
}

/*
 * Reply -32603 with HTTP 503 and Retry-After: the task store is
 * unreachable now (store.c logged it once, not per request), and the
 * same request may succeed in a few seconds, on any worker or host.
 */
void
wymcp__reply_store_down(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	wymcp__reply_error(ctx, r, 503, WYMCP__INTERNAL_ERROR,
	    "Internal error: the task store is unavailable; try again "
	    "shortly", NULL);
	r->retry_after = WYMCP__STORE_RETRY_S;
}

/* Reply -32602 (HTTP 200): the params are not what the method takes. */
void
wymcp__reply_invalid(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    const char *message)
{
	wymcp__reply_error(ctx, r, 200, WYMCP__INVALID_PARAMS,
	    message != NULL ? message : "Invalid params", NULL);
}

/*
 * Reply -32601 for the request's method: 404 on the 2026-07-28 wire
 * (streamable-http.mdx), 200 for the 2025-11-25 one and for methods a
 * server without resources or prompts does not offer (`status`).
 */
void
wymcp__reply_no_method(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    int status)
{
	const char	*msg;

	msg = wymcp_printf(ctx, "Method not found: %s",
	    wymcp__ctx_quote(ctx, ctx->req.method));
	wymcp__reply_error(ctx, r, status, WYMCP__METHOD_NOT_FOUND,
	    msg != NULL ? msg : "Method not found", NULL);
}

/* May `s` stand in a quoted-string of a challenge (RFC 7235)? */
static int
quotable(const char *s)
{
	size_t	 n = 0;

	for (; s[n] != '\0'; n++)
		if ((unsigned char)s[n] < 0x21 || s[n] == '"' ||
		    s[n] == '\\' || s[n] == 0x7f)
			return 0;
	return n > 0 && n <= 1024;
}

/*
 * Reply 403 with the OAuth step-up challenge: the token (WYMCP_SCOPES)
 * lacks scopes tool t declares (MCP basic/authorization "Runtime
 * Insufficient Scope Errors", RFC 6750 section 3.1).  The challenge
 * names all the tool's scopes at once, and the metadata URL the site
 * passes in WYMCP_RESOURCE_METADATA; the body is a JSON-RPC error
 * (-32600) with the same in data.
 */
void
wymcp__reply_scope(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    const struct wymcp__tool *t)
{
	struct json_object	*data;
	const char		*rm, *msg;

	rm = wymcp__param(ctx, WYMCP__P_WYMCP_RESOURCE_METADATA);
	if (rm != NULL && !quotable(rm))
		rm = NULL;
	r->challenge = wymcp_printf(ctx, "Bearer error=\"insufficient_scope\", "
	    "scope=\"%s\"%s%s%s, error_description=\"The tool %s needs "
	    "scopes the token lacks\"", t->decl.scopes, rm != NULL ?
	    ", resource_metadata=\"" : "", rm != NULL ? rm : "",
	    rm != NULL ? "\"" : "", t->def->name);
	if ((data = json_object_new_object()) != NULL) {
		wymcp__put_str(data, "error", "insufficient_scope");
		wymcp__put_str(data, "scope", t->decl.scopes);
	}
	msg = wymcp_printf(ctx, "Forbidden: tool %s needs the scopes %s",
	    t->def->name, t->decl.scopes);
	wymcp__reply_error(ctx, r, 403, WYMCP__INVALID_REQUEST,
	    msg != NULL ? msg : "Forbidden: insufficient scope", data);
	wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "tool %s: refused, the token "
	    "lacks scopes of '%s'", t->def->name, t->decl.scopes);
}

/*
 * The one mapping from a handler's failure to the wire: out of memory
 * is -32603 (500); WYMCP_ERR_NOTFOUND is "Resource not found" for
 * `subject` (a URI: -32602 with data.uri, -32002 for a 2025-11-25
 * client, server/resources.mdx "Error Handling"); WYMCP_ERR_REFUSED is
 * the code and sentence the handler gave wymcp_refuse(); anything else
 * is the handler's fault: logged with `subject`, and -32603 (500) with
 * `message` to the client, which must not see the handler's internals.
 */
void
wymcp__reply_err(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    enum wymcp_err rc, const char *subject, const char *message)
{
	struct json_object	*data;

	switch (rc) {
	case WYMCP_ERR_NOMEM:
		wymcp__reply_nomem(ctx, r);
		return;
	case WYMCP_ERR_NOTFOUND:
		if ((data = json_object_new_object()) != NULL)
			wymcp__put_str(data, "uri", subject);
		wymcp__reply_error(ctx, r, 200, ctx->req.legacy ?
		    WYMCP__RESOURCE_NOT_FOUND : WYMCP__INVALID_PARAMS,
		    "Resource not found", data);
		return;
	case WYMCP_ERR_REFUSED:
		/* wymcp_refuse(): the handler's code and sentence. */
		message = wymcp__why_for(ctx, rc);
		wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "%s: refused: %s", subject,
		    message != NULL ? message : "(no reason)");
		wymcp__reply_error(ctx, r, ctx->call.why_code ==
		    WYMCP_RPC_INTERNAL_ERROR ? 500 : 200,
		    ctx->call.why_code != 0 ? ctx->call.why_code :
		    WYMCP_RPC_INVALID_PARAMS, message != NULL ? message :
		    "Refused", NULL);
		return;
	default:
		wymcp__ctx_log(ctx, WYMCP_LOG_ERR, "%s: %s", subject,
		    wymcp_strerror(rc));
		wymcp__reply_error(ctx, r, 500, WYMCP__INTERNAL_ERROR,
		    message, NULL);
		return;
	}
}

/*
 * A new result object with resultType "complete" as its first member:
 * every complete 2026-07-28 result starts here (basic/index.mdx
 * "Result").  NULL when out of memory.
 */
struct json_object *
wymcp__result_object(void)
{
	struct json_object	*o;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	if (wymcp__put_str(o, "resultType", "complete")) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/*
 * Reshape a modern result for a legacy client, in place: no resultType
 * and no cache hints (2025-11-25 has neither; ping-like results must be
 * exactly {}), structuredContent only when it is an object, and no
 * outputSchema other than an object schema in tools/list (2025-11-25
 * schema: both "type":"object").  Listing objects are shared by every
 * request: a tool entry that must change is replaced by a copy.
 */
static void
legacy_result(struct wymcp_ctx *ctx, struct json_object *res)
{
	struct json_object	*v, *tools, *t, *os, *ty, *c;
	size_t			 i, n;

	json_object_object_del(res, "resultType");
	json_object_object_del(res, "ttlMs");
	json_object_object_del(res, "cacheScope");
	if (json_object_object_get_ex(res, "structuredContent", &v) &&
	    !json_object_is_type(v, json_type_object)) {
		wymcp__ctx_log(ctx, WYMCP_LOG_WARNING, "tool %s: "
		    "structuredContent is not an object: left out for a "
		    "%s client", ctx->call.name != NULL ? ctx->call.name : "-",
		    ctx->req.version);
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

/*
 * Reply with a result (from wymcp__result_object(), or an
 * input_required one): adds the serverInfo _meta.  A legacy
 * (2025-11-25) request's result is reshaped instead.  Takes ownership
 * of `result`; NULL (out of memory) replies -32603.
 */
void
wymcp__reply_result(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    struct json_object *result)
{
	struct json_object	*meta, *info;

	if (result == NULL) {
		wymcp__reply_nomem(ctx, r);
		return;
	}
	if (ctx->req.legacy) {
		legacy_result(ctx, result);
		r->status = 200;
		r->body = wymcp__response(ctx->req.id, result);
		return;
	}
	if (json_object_object_get_ex(result, "_meta", &meta)) {
		json_object_object_get_ex(ctx->srv->result_meta,
		    WYMCP__META_SERVER, &info);
		json_object_object_add(meta, WYMCP__META_SERVER,
		    json_object_get(info));
	} else
		json_object_object_add(result, "_meta",
		    json_object_get(ctx->srv->result_meta));
	r->status = 200;
	r->body = wymcp__response(ctx->req.id, result);
}

/* Add ttlMs and cacheScope to a cacheable result. */
void
wymcp__cache_hints(struct json_object *result, int private)
{
	json_object_object_add(result, "ttlMs",
	    json_object_new_int(WYMCP__TTL_MS));
	json_object_object_add(result, "cacheScope",
	    json_object_new_string(private ? "private" : "public"));
}
