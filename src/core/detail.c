/*
 * detail.c - what a request was, for the program's audit line
 *
 * At the end of a request the serve layer hands over the status it
 * wrote and the response's body; when the program asked for the detail
 * (wymcp_server_set_request_detail()), this file reads from them and
 * from the request what an operator accounts for (wymcp.h, struct
 * wymcp_request_detail) and gives it to the request hook with done.
 * Nothing here runs when the detail is off.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <sodium.h>

#include "core/core.h"

/* Member `k' of `o' when it is a string, else NULL. */
static const char *
str_of(struct json_object *o, const char *k)
{
	struct json_object	*v;

	if (o == NULL || !json_object_object_get_ex(o, k, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/*
 * The arguments as JSON text, without the properties the tool's
 * inputSchema marks writeOnly (at the top level): owned by the request,
 * or NULL.
 */
static const char *
args_text(struct wymcp_ctx *ctx, const struct wymcp__tool *t)
{
	struct json_object	*o, *props = NULL, *p, *w;
	const char		*s, *r;

	if (!json_object_is_type(ctx->call.args, json_type_object))
		return NULL;
	if ((o = json_object_new_object()) == NULL)
		return NULL;
	if (t->input != NULL)
		json_object_object_get_ex(t->input, "properties", &props);
	json_object_object_foreach(ctx->call.args, k, v) {
		if (props != NULL && json_object_object_get_ex(props, k, &p) &&
		    json_object_object_get_ex(p, "writeOnly", &w) &&
		    json_object_get_boolean(w))
			continue;
		json_object_object_add(o, k, json_object_get(v));
	}
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE);
	r = s != NULL ? wymcp__arena_strndup(&ctx->arena, s, strlen(s)) :
	    NULL;
	json_object_put(o);
	return r;
}

/*
 * Read a W3C traceparent (trace-context level 1, version 00:
 * "00-" 32 hex "-" 16 hex "-" 2 hex, lower case, neither id all zero)
 * into the request's parent ids: 1, or 0 for anything else.
 */
static int
parent_of(struct wymcp_ctx *ctx, const char *tp)
{
	unsigned char	 flags, zero[16] = { 0 };
	size_t		 bin;

	if (tp == NULL || strlen(tp) < 55 || strncmp(tp, "00-", 3) != 0 ||
	    tp[35] != '-' || tp[52] != '-' ||
	    (tp[55] != '\0' && tp[55] != '-') ||
	    strspn(tp + 3, "0123456789abcdef") != 32 ||
	    strspn(tp + 36, "0123456789abcdef") != 16 ||
	    strspn(tp + 53, "0123456789abcdef") != 2)
		return 0;
	if (sodium_hex2bin(ctx->req.trace, 16, tp + 3, 32, NULL, &bin,
	    NULL) != 0 || bin != 16 ||
	    sodium_hex2bin(ctx->req.parent, 8, tp + 36, 16, NULL, &bin,
	    NULL) != 0 || bin != 8 ||
	    sodium_hex2bin(&flags, 1, tp + 53, 2, NULL, &bin, NULL) != 0 ||
	    memcmp(ctx->req.trace, zero, 16) == 0 ||
	    memcmp(ctx->req.parent, zero, 8) == 0)
		return 0;
	ctx->req.trace_flags = flags & 0x01;	/* sampled, the one flag */
	return 1;
}

/*
 * The HTTP traceparent header (HTTP_TRACEPARENT), the last one given,
 * read here rather than with the params every request binds: only a
 * request whose span is asked for needs it.  NULL: none.
 */
static const char *
http_traceparent(const struct wymcp_ctx *ctx)
{
	char *const	*e;
	const char	*v = NULL;

	for (e = ctx->req.env; e != NULL && *e != NULL; e++)
		if ((*e)[0] == 'H' &&
		    strncmp(*e, "HTTP_TRACEPARENT=", 17) == 0)
			v = *e + 17;
	return v;
}

/*
 * The request's span: a child of params._meta.traceparent, else of the
 * HTTP traceparent header, else the root of a new trace (sampled);
 * its span id random.  Made once.
 */
void
wymcp__trace(struct wymcp_ctx *ctx)
{
	struct json_object	*v;
	const char		*tp = NULL;

	if (ctx->req.traced)
		return;
	ctx->req.traced = 1;
	if (ctx->req.meta != NULL &&
	    json_object_object_get_ex(ctx->req.meta, "traceparent", &v) &&
	    json_object_is_type(v, json_type_string))
		tp = json_object_get_string(v);
	ctx->req.has_parent = parent_of(ctx, tp) || parent_of(ctx,
	    http_traceparent(ctx));
	if (!ctx->req.has_parent) {
		randombytes_buf(ctx->req.trace, sizeof(ctx->req.trace));
		ctx->req.trace_flags = 1;
	}
	randombytes_buf(ctx->req.span, sizeof(ctx->req.span));
}

const char *
wymcp_ctx_traceparent(struct wymcp_ctx *ctx)
{
	char	 t[33], sp[17], *out;

	if (ctx == NULL)
		return NULL;
	if (ctx->req.traceparent != NULL)
		return ctx->req.traceparent;
	wymcp__trace(ctx);
	sodium_bin2hex(t, sizeof(t), ctx->req.trace, 16);
	sodium_bin2hex(sp, sizeof(sp), ctx->req.span, 8);
	out = wymcp_printf(ctx, "00-%s-%s-%02x", t, sp,
	    (unsigned int)ctx->req.trace_flags);
	ctx->req.traceparent = out;
	return out;
}

/* n bytes as lower-case hex into out (2n + 1 bytes); out. */
static char *
hex(char *out, const unsigned char *b, size_t n)
{
	static const char	 digits[] = "0123456789abcdef";
	size_t			 i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 0xf];
	}
	out[2 * n] = '\0';
	return out;
}

/* The request's span ids as hex, into the detail (the arena's). */
static void
trace_ids(struct wymcp_ctx *ctx, struct wymcp_request_detail *d)
{
	char	*t;

	wymcp__trace(ctx);
	if ((t = wymcp__arena_alloc(&ctx->arena, 33 + 17 + 17)) == NULL)
		return;
	d->trace_id = hex(t, ctx->req.trace, 16);
	d->span_id = hex(t + 33, ctx->req.span, 8);
	if (ctx->req.has_parent)
		d->parent_span_id = hex(t + 50, ctx->req.parent, 8);
}

/* What the response says: outcome, code, questions, task. */
static void
read_body(struct wymcp_ctx *ctx, struct wymcp_request_detail *d,
    struct json_object *body)
{
	struct json_object	*res, *err, *v, *keys;
	const char		*rt;

	if (json_object_object_get_ex(body, "error", &err)) {
		d->outcome = "error";
		if (json_object_object_get_ex(err, "code", &v))
			d->code = (long)json_object_get_int64(v);
		if (d->code == WYMCP_CODE_RATE_LIMITED)
			d->outcome = "rate_limited";
		return;
	}
	if (!json_object_object_get_ex(body, "result", &res))
		return;
	rt = str_of(res, "resultType");
	if (rt != NULL && strcmp(rt, "input_required") == 0) {
		d->outcome = "input_required";
		if (!json_object_object_get_ex(res, "inputRequests", &v) ||
		    (keys = json_object_new_array()) == NULL)
			return;
		json_object_object_foreach(v, k, unused) {
			(void)unused;
			json_object_array_add(keys,
			    json_object_new_string(k));
		}
		rt = json_object_to_json_string_ext(keys,
		    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
		d->questions = rt != NULL ? wymcp__arena_strndup(&ctx->arena,
		    rt, strlen(rt)) : NULL;
		json_object_put(keys);
		return;
	}
	if (rt != NULL && strcmp(rt, "task") == 0) {
		d->outcome = "task";
		d->task_id = str_of(res, "taskId");
		return;
	}
	d->outcome = json_object_object_get_ex(res, "isError", &v) &&
	    json_object_get_boolean(v) ? "tool_error" : "complete";
}

/*
 * Who asked and with what (not for WYMCP_DETAIL_OUTCOME alone): the
 * principal, the client, the traceparent sent, the arguments' digest
 * and, for a tool that opts in, the arguments.
 */
static void
extras(struct wymcp_ctx *ctx, struct wymcp_request_detail *d)
{
	const struct wymcp__tool	*t;
	struct json_object		*ci, *args;
	char				*hex;

	d->principal = wymcp__ctx_principal(ctx);
	if (ctx->req.meta != NULL && json_object_object_get_ex(ctx->req.meta,
	    "io.modelcontextprotocol/clientInfo", &ci)) {
		d->client_name = str_of(ci, "name");
		d->client_version = str_of(ci, "version");
	}
	d->traceparent = str_of(ctx->req.meta, "traceparent");
	args = ctx->call.args;
	if (args == NULL && ctx->req.params != NULL)
		json_object_object_get_ex(ctx->req.params, "arguments", &args);
	if (args != NULL &&
	    (hex = wymcp__arena_alloc(&ctx->arena, 33)) != NULL &&
	    wymcp__args_digest(ctx, args, hex) == 0)
		d->args_digest = hex;
	if (ctx->call.name != NULL && ctx->req.method != NULL &&
	    strcmp(ctx->req.method, "tools/call") == 0 &&
	    (t = wymcp__ctx_find_tool(ctx, ctx->call.name)) != NULL &&
	    t->decl.audit_args)
		d->args = args_text(ctx, t);
}

/*
 * The detail of the request, made once (the headers and the hook share
 * it) in the request's arena; NULL when out of memory.
 */
const struct wymcp_request_detail *
wymcp__detail(struct wymcp_ctx *ctx, int status, struct json_object *body,
    size_t in)
{
	struct wymcp_request_detail	 d;

	if (ctx->out.detail != NULL)
		return ctx->out.detail;
	memset(&d, 0, sizeof(d));
	d.version = ctx->req.version;
	d.status = status;
	d.bytes_in = in;
	if (ctx->call.answers != NULL)
		d.round = json_object_object_length(ctx->call.answers);
	if (body != NULL)
		read_body(ctx, &d, body);
	else if (status == 202)
		d.outcome = "accepted";
	else if (ctx->out.handed)
		d.outcome = "stream";
	if (d.task_id == NULL && ctx->req.method != NULL &&
	    strncmp(ctx->req.method, "tasks/", 6) == 0)
		d.task_id = str_of(ctx->req.params, "taskId");
	if (ctx->call.in_task) {
		d.task_run = 1;
		d.task_id = ctx->call.task_id;
	}
	/* What was called, read again where the method refused it. */
	d.target = ctx->call.name;
	if (d.target == NULL && ctx->req.method != NULL)
		d.target = str_of(ctx->req.params,
		    strncmp(ctx->req.method, "resources/", 10) == 0 ? "uri" :
		    "name");
	if (ctx->srv->reqdetail & (WYMCP_DETAIL_HOOK | WYMCP_DETAIL_HEADERS))
		extras(ctx, &d);
	if (ctx->srv->reqdetail & WYMCP_DETAIL_TRACE)
		trace_ids(ctx, &d);
	if ((ctx->out.detail = wymcp__arena_alloc(&ctx->arena,
	    sizeof(d))) != NULL)
		memcpy(ctx->out.detail, &d, sizeof(d));
	return ctx->out.detail;
}

void
wymcp__ctx_done(struct wymcp_ctx *ctx, int status, struct json_object *body,
    size_t in)
{
	const struct wymcp_server	*srv = ctx->srv;
	const struct wymcp_request_detail *d;
	struct wymcp_request_info	 info;

	if (srv == NULL || srv->reqfn == NULL)
		return;
	if (!(srv->reqdetail & (WYMCP_DETAIL_HOOK | WYMCP_DETAIL_OUTCOME)) ||
	    (d = wymcp__detail(ctx, status, body, in)) == NULL) {
		wymcp__ctx_publish(ctx, 1);
		return;
	}
	memset(&info, 0, sizeof(info));
	info.method = ctx->req.method;
	info.name = d->target;
	info.reqid = ctx->req.idstr;
	info.deadline_ms = ctx->out.deadline;
	info.done = 1;
	info.nomem = ctx->out.nomem;
	info.detail = d;
	srv->reqfn(srv->reqarg, &info);
}
