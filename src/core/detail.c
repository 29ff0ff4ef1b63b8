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

#define FEW_MEMBERS	8	/* walked, rather than hashed */

/*
 * Member `k' of object `o' in *v: 1, or 0 (none, or `o' no object).
 * The objects read here (a response, its result, _meta, clientInfo)
 * hold a few members: comparing their names costs less than hashing
 * `k' for json-c's table, which is used past FEW_MEMBERS.
 */
static int
get(struct json_object *o, const char *k, struct json_object **v)
{
	int	 i = 0;

	if (!json_object_is_type(o, json_type_object))
		return 0;
	json_object_object_foreach(o, name, m) {
		if (i++ == FEW_MEMBERS)
			return json_object_object_get_ex(o, k, v);
		if (name[0] == k[0] && strcmp(name, k) == 0) {
			*v = m;
			return 1;
		}
	}
	return 0;
}

/*
 * Members k1 and k2 of object `o' into *v1 and *v2, in one walk while
 * its members are few (get()): 1 | 2 for those found, or 0.
 */
static int
get2(struct json_object *o, const char *k1, struct json_object **v1,
    const char *k2, struct json_object **v2)
{
	int	 i = 0, found = 0;

	*v1 = *v2 = NULL;
	if (!json_object_is_type(o, json_type_object))
		return 0;
	json_object_object_foreach(o, name, m) {
		if (i++ == FEW_MEMBERS)
			return json_object_object_get_ex(o, k1, v1) |
			    json_object_object_get_ex(o, k2, v2) << 1;
		if (!(found & 1) && name[0] == k1[0] && strcmp(name, k1) == 0) {
			*v1 = m;
			found |= 1;
		} else if (!(found & 2) && name[0] == k2[0] &&
		    strcmp(name, k2) == 0) {
			*v2 = m;
			found |= 2;
		}
	}
	return found;
}

/* v when it is a string, else NULL. */
static const char *
str(struct json_object *v)
{
	return json_object_is_type(v, json_type_string) ?
	    json_object_get_string(v) : NULL;
}

/* Member `k' of `o' when it is a string, else NULL. */
static const char *
str_of(struct json_object *o, const char *k)
{
	struct json_object	*v;

	return get(o, k, &v) ? str(v) : NULL;
}

/* What the detail reads of params._meta. */
struct meta_facts {
	struct json_object	*meta;		/* held: the object read */
	const char		*name, *version;	/* clientInfo's */
	const char		*traceparent;
};

/*
 * The facts of params._meta (NULL: none), read once per object: a
 * client sends the same _meta request after request, and the parse
 * hands out the object it built for those bytes again
 * (wymcp__parse_memo()).  The last object's facts are kept, with a
 * reference, so that its pointer names that object while they are.
 */
static const struct meta_facts *
meta_facts(struct json_object *meta)
{
	static __thread struct meta_facts	 last;
	static const struct meta_facts		 none;
	struct json_object			*ci, *tp, *name, *version;

	if (meta == NULL)
		return &none;
	if (meta == last.meta)
		return &last;
	(void)get2(meta, "io.modelcontextprotocol/clientInfo", &ci,
	    "traceparent", &tp);
	(void)get2(ci, "name", &name, "version", &version);
	json_object_put(last.meta);
	last.meta = json_object_get(meta);
	last.name = str(name);
	last.version = str(version);
	last.traceparent = str(tp);
	return &last;
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
 * The request's span: a child of params._meta.traceparent, else of the
 * HTTP traceparent header, else the root of a new trace (sampled);
 * its span id random.  Made once.
 */
void
wymcp__trace(struct wymcp_ctx *ctx)
{
	unsigned char	 ids[sizeof(ctx->req.trace) + sizeof(ctx->req.span)];

	if (ctx->req.traced)
		return;
	ctx->req.traced = 1;
	ctx->req.has_parent = parent_of(ctx,
	    meta_facts(ctx->req.meta)->traceparent) ||
	    parent_of(ctx, wymcp__param(ctx, WYMCP__P_HTTP_TRACEPARENT));
	if (!ctx->req.has_parent) {
		/* The root of a new trace: its ids drawn at once. */
		randombytes_buf(ids, sizeof(ids));
		memcpy(ctx->req.trace, ids, sizeof(ctx->req.trace));
		memcpy(ctx->req.span, ids + sizeof(ctx->req.trace),
		    sizeof(ctx->req.span));
		ctx->req.trace_flags = 1;
	} else
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

/* The request's span ids as hex (into t, 67 bytes), into the detail. */
static void
trace_ids(struct wymcp_ctx *ctx, struct wymcp_request_detail *d, char *t)
{
	wymcp__trace(ctx);
	d->trace_id = wymcp__hex(t, ctx->req.trace, 16);
	d->span_id = wymcp__hex(t + 33, ctx->req.span, 8);
	if (ctx->req.has_parent)
		d->parent_span_id = wymcp__hex(t + 50, ctx->req.parent, 8);
}

/* What the response says: outcome, code, questions, task. */
static void
read_body(struct wymcp_ctx *ctx, struct wymcp_request_detail *d,
    struct json_object *body)
{
	struct json_object	*res, *err, *v, *keys, *iserr;
	const char		*rt;
	int			 has;

	has = get2(body, "error", &err, "result", &res);
	if (has & 1) {
		d->outcome = "error";
		if (get(err, "code", &v))
			d->code = (long)json_object_get_int64(v);
		if (d->code == WYMCP_CODE_RATE_LIMITED)
			d->outcome = "rate_limited";
		return;
	}
	if (!(has & 2))
		return;
	(void)get2(res, "resultType", &v, "isError", &iserr);
	rt = str(v);
	if (rt != NULL && strcmp(rt, "input_required") == 0) {
		d->outcome = "input_required";
		if (!get(res, "inputRequests", &v) ||
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
	d->outcome = json_object_get_boolean(iserr) ? "tool_error" :
	    "complete";
}

/*
 * Who asked and with what (not for WYMCP_DETAIL_OUTCOME alone): the
 * principal, the client, the traceparent sent, the arguments' digest
 * and, for a tool that opts in, the arguments.
 */
static void
extras(struct wymcp_ctx *ctx, struct wymcp_request_detail *d, char *hex)
{
	const struct wymcp__tool	*t;
	const struct meta_facts		*mf;
	struct json_object		*args;

	d->principal = wymcp__ctx_principal(ctx);
	mf = meta_facts(ctx->req.meta);
	d->client_name = mf->name;
	d->client_version = mf->version;
	d->traceparent = mf->traceparent;
	args = ctx->call.args;
	if (args == NULL && ctx->req.params != NULL)
		(void)get(ctx->req.params, "arguments", &args);
	if (args != NULL && wymcp__args_digest(ctx, args, hex) == 0)
		d->args_digest = hex;
	if (ctx->srv->tools_audit_args && ctx->call.name != NULL &&
	    ctx->req.method != NULL &&
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
	struct {
		struct wymcp_request_detail d;
		char	 digest[33];		/* 32 hex digits */
		char	 ids[33 + 17 + 17];	/* trace, span, parent */
	}				*b;
	struct wymcp_request_detail	*d;

	if (ctx->out.detail != NULL)
		return ctx->out.detail;
	/* One allocation for the detail and its strings. */
	if ((b = wymcp__arena_alloc(&ctx->arena, sizeof(*b))) == NULL)
		return NULL;
	d = &b->d;
	memset(d, 0, sizeof(*d));
	d->version = ctx->req.version;
	d->status = status;
	d->bytes_in = in;
	if (ctx->call.answers != NULL)
		d->round = json_object_object_length(ctx->call.answers);
	if (body != NULL)
		read_body(ctx, d, body);
	else if (status == 202)
		d->outcome = "accepted";
	else if (ctx->out.handed)
		d->outcome = "stream";
	if (d->task_id == NULL && ctx->req.method != NULL &&
	    strncmp(ctx->req.method, "tasks/", 6) == 0)
		d->task_id = str_of(ctx->req.params, "taskId");
	if (ctx->call.in_task) {
		d->task_run = 1;
		d->task_id = ctx->call.task_id;
	}
	/* What was called, read again where the method refused it. */
	d->target = ctx->call.name;
	if (d->target == NULL && ctx->req.method != NULL)
		d->target = str_of(ctx->req.params,
		    strncmp(ctx->req.method, "resources/", 10) == 0 ? "uri" :
		    "name");
	if (ctx->srv->reqdetail & (WYMCP_DETAIL_HOOK | WYMCP_DETAIL_HEADERS))
		extras(ctx, d, b->digest);
	if (ctx->srv->reqdetail & WYMCP_DETAIL_TRACE)
		trace_ids(ctx, d, b->ids);
	ctx->out.detail = d;
	return d;
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
