/*
 * testing.c - the testing API: contexts, rounds, and an in-memory client
 * (wymcp_testing.h)
 *
 * A round goes through the methods' own code (methods/call.c for tools,
 * methods/prompts.c and methods/resources.c), so it checks what the
 * wire checks; a whole call goes through wymcp_server_serve() with the
 * request a web server would hand over.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "testing/testing.h"

/*
 * Why the thread's last testing call went wrong (wymcp_testing_errmsg()):
 * the first log line at warning or worse, the loader's message, or the
 * library's own sentence.  `misused`: a question key was misused.
 */
static __thread char	 lasterr[1024];
static __thread int	 misused;

/* Start a testing call: nothing has gone wrong yet. */
static void
clear(void)
{
	lasterr[0] = '\0';
	misused = 0;
}

/* Say why, unless something said it first. */
static void
why(const char *fmt, ...) WYMCP_PRINTF(1, 2);
static void
why(const char *fmt, ...)
{
	va_list	 ap;

	if (lasterr[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(lasterr, sizeof(lasterr), fmt, ap);
	va_end(ap);
}

const char *
wymcp_testing_errmsg(void)
{
	return lasterr;
}

/* The server's log: the first warning or worse is the reason. */
static void
testing_log(void *arg, int prio, const char *reqid, const char *msg)
{
	(void)arg;
	(void)reqid;
	if (prio <= WYMCP_LOG_WARNING)
		why("%s", msg);
}

/*
 * A misuse the wire lets pass (the server's hook): a testing error, and
 * the reason the call failed (before any log line).
 */
static void
testing_misuse(void *arg, const char *msg)
{
	(void)arg;
	if (!misused)
		snprintf(lasterr, sizeof(lasterr), "%s", msg);
	misused = 1;
}

/* Parse JSON text into a request-owned object of the wanted type. */
static struct json_object *
json_in(struct wymcp_ctx *ctx, const char *text, enum json_type want)
{
	struct json_object	*o;

	if ((o = wymcp__parse(text, strlen(text))) == NULL)
		return NULL;
	if (!json_object_is_type(o, want)) {
		json_object_put(o);
		return NULL;
	}
	return wymcp_own(ctx, o);
}

void
wymcp_testing_free_context(struct wymcp_ctx *ctx)
{
	struct wymcp_server	*srv;

	if (ctx == NULL)
		return;
	srv = ctx->srv;
	wymcp__ctx_free(ctx);
	wymcp_server_free(srv);
	free(ctx);
}

/* Who calls (o->assigns, principal, scopes): 0, or -1 with the reason. */
static int
context_who(struct wymcp_ctx *ctx, const struct wymcp_testing_opts *o)
{
	ctx->who.assigns = o->assigns != NULL ?
	    json_in(ctx, o->assigns, json_type_object) :
	    wymcp_own(ctx, json_object_new_object());
	if (ctx->who.assigns == NULL) {
		why("assigns: not a JSON object");
		return -1;
	}
	json_object_object_foreach(ctx->who.assigns, k, val) {
		if (!json_object_is_type(val, json_type_string)) {
			why("assigns: %s is not a string", k);
			return -1;
		}
		/* Internal names are never visible, as on the wire. */
		if (strncmp(k, "wymcp", 5) == 0 &&
		    (k[5] == '\0' || k[5] == '_'))
			json_object_object_del(ctx->who.assigns, k);
	}
	if (o->principal != NULL && (ctx->who.principal =
	    wymcp_strdup(ctx, o->principal)) == NULL)
		return -1;
	if (o->scopes != NULL && (ctx->who.scopes =
	    wymcp_strdup(ctx, o->scopes)) == NULL)
		return -1;
	return 0;
}

/* The request's o->meta and o->answers: 0, or -1 with the reason. */
static int
context_request(struct wymcp_ctx *ctx, const struct wymcp_testing_opts *o)
{
	struct json_object	*a, *v;

	if (o->meta != NULL) {
		if ((ctx->req.meta = json_in(ctx, o->meta, json_type_object)) ==
		    NULL) {
			why("meta: not a JSON object");
			return -1;
		}
		if (json_object_object_get_ex(ctx->req.meta, WYMCP__META_CAPS,
		    &a) && json_object_is_type(a, json_type_object))
			ctx->req.caps = a;
		if (json_object_object_get_ex(ctx->req.meta,
		    WYMCP__META_VERSION, &v) &&
		    json_object_is_type(v, json_type_string))
			ctx->req.version = json_object_get_string(v);
	}
	ctx->call.answers = o->answers != NULL ?
	    json_in(ctx, o->answers, json_type_object) :
	    wymcp_own(ctx, json_object_new_object());
	if (ctx->call.answers == NULL ||
	    !wymcp__responses_ok(ctx->call.answers)) {
		why("answers: not a JSON object of objects");
		return -1;
	}
	return 0;
}

struct wymcp_ctx *
wymcp_testing_build_context(const struct wymcp_testing_opts *o)
{
	static const struct wymcp_testing_opts none;
	struct wymcp_server	*srv;
	struct wymcp_ctx	*ctx;
	size_t			 i;

	clear();
	if (o == NULL)
		o = &none;
	if ((srv = wymcp_server_new()) == NULL) {
		why("out of memory");
		return NULL;
	}
	if ((ctx = malloc(sizeof(*ctx))) == NULL) {
		wymcp_server_free(srv);
		why("out of memory");
		return NULL;
	}
	wymcp_server_set_log(srv, testing_log, NULL, WYMCP_LOG_WARNING);
	srv->misusefn = testing_misuse;
	wymcp__ctx_init(ctx, srv, NULL);
	/* All errors from here on use goto fail. */
	for (i = 0; o->mount != NULL && o->mount[i] != NULL; i++)
		if (wymcp_server_add_module(srv, o->mount[i]) != WYMCP_OK) {
			why("%s", wymcp_server_errmsg(srv));
			goto fail;
		}
	if (wymcp__ctx_mount(ctx) != WYMCP_OK ||
	    context_who(ctx, o) != 0 || context_request(ctx, o) != 0)
		goto fail;
	ctx->req.method = "tools/call";
	return ctx;
fail:
	why("out of memory");
	wymcp_testing_free_context(ctx);
	return NULL;
}

enum wymcp_err
wymcp_testing_answer(struct wymcp_ctx *ctx, const char *key,
    const char *answer)
{
	struct json_object	*a;

	clear();
	if (ctx == NULL || key == NULL || answer == NULL) {
		why("wymcp_testing_answer: %s is NULL", ctx == NULL ? "ctx" :
		    key == NULL ? "key" : "answer_json");
		return WYMCP_ERR_INVAL;
	}
	if ((a = json_in(ctx, answer, json_type_object)) == NULL) {
		why("wymcp_testing_answer: the answer is not a JSON object");
		return WYMCP_ERR_INVAL;
	}
	if (ctx->call.answers == NULL && (ctx->call.answers =
	    wymcp_own(ctx, json_object_new_object())) == NULL)
		return WYMCP_ERR_NOMEM;
	if (json_object_object_add(ctx->call.answers, key,
	    json_object_get(a)))
		return WYMCP_ERR_NOMEM;
	return WYMCP_OK;
}

/* Fill the question fields from the first pending input request. */
static void
question(struct wymcp_testing_round *r, struct json_object *pending)
{
	struct json_object	*p, *v;

	r->input_requests = pending;
	json_object_object_foreach(pending, k, req) {
		r->key = k;
		if (json_object_object_get_ex(req, "method", &v))
			r->method = json_object_get_string(v);
		if (json_object_object_get_ex(req, "params", &p)) {
			if (json_object_object_get_ex(p, "message", &v))
				r->message = json_object_get_string(v);
			if (json_object_object_get_ex(p, "requestedSchema", &v))
				r->schema = v;
		}
		break;
	}
}

/*
 * The text a result shows first: its first content block's (tools), its
 * first message's (prompts), or its first contents entry's (resources).
 */
static const char *
first_text(struct json_object *res)
{
	struct json_object	*a, *e, *t;

	if (json_object_object_get_ex(res, "content", &a))
		e = json_object_array_get_idx(a, 0);
	else if (json_object_object_get_ex(res, "messages", &a)) {
		e = json_object_array_get_idx(a, 0);
		if (!json_object_object_get_ex(e, "content", &e))
			return NULL;
	} else if (json_object_object_get_ex(res, "contents", &a))
		e = json_object_array_get_idx(a, 0);
	else
		return NULL;
	if (e == NULL || !json_object_object_get_ex(e, "text", &t))
		return NULL;
	return json_object_get_string(t);
}

/*
 * Read a JSON-RPC response into *r: a result (complete or
 * input_required) or an error.  The response is owned by the context.
 */
static void
outcome(struct json_object *resp, struct wymcp_testing_round *r)
{
	struct json_object	*res, *err, *v;
	const char		*type = NULL;

	r->response = resp;
	if (json_object_object_get_ex(resp, "error", &err)) {
		if (json_object_object_get_ex(err, "code", &v))
			r->code = json_object_get_int(v);
		if (json_object_object_get_ex(err, "message", &v))
			r->error = json_object_get_string(v);
		r->kind = r->code == WYMCP__INVALID_PARAMS ?
		    WYMCP_TESTING_INVALID : WYMCP_TESTING_ERROR;
		if (r->rc == WYMCP_OK)
			r->rc = WYMCP_ERR_INVAL;
		return;
	}
	if (!json_object_object_get_ex(resp, "result", &res))
		return;
	if (json_object_object_get_ex(res, "resultType", &v))
		type = json_object_get_string(v);
	if (type != NULL && strcmp(type, "input_required") == 0) {
		r->kind = WYMCP_TESTING_INPUT_REQUIRED;
		if (json_object_object_get_ex(res, "inputRequests", &v))
			question(r, v);
		if (json_object_object_get_ex(res, "requestState", &v))
			r->request_state = json_object_get_string(v);
		return;
	}
	r->kind = WYMCP_TESTING_COMPLETE;
	r->result = res;
	r->is_error = json_object_object_get_ex(res, "isError", &v) &&
	    json_object_get_boolean(v);
	r->text = first_text(res);
}

/*
 * The end of a round read into *r (`rc`: the call's own return so far):
 * a question key misused fails it with WYMCP_ERR_INVAL; the reason for
 * an error or a refusal is the server's log line, else the error's
 * message.
 */
static enum wymcp_err
settle(const struct wymcp_testing_round *r, enum wymcp_err rc)
{
	if (rc != WYMCP_OK) {
		why("%s", wymcp_strerror(rc));
		return rc;
	}
	if ((r->kind == WYMCP_TESTING_INVALID ||
	    r->kind == WYMCP_TESTING_ERROR) && r->error != NULL)
		why("%s", r->error);
	return misused ? WYMCP_ERR_INVAL : WYMCP_OK;
}

/*
 * Bind the context to one request of `method` with `params` (taken),
 * run `fn` on it and read its reply into *r.
 */
static enum wymcp_err
one_round(struct wymcp_ctx *ctx, const char *method,
    struct json_object *params,
    void (*fn)(struct wymcp_ctx *, struct wymcp__reply *, void *),
    void *arg, struct wymcp_testing_round *r)
{
	struct wymcp__reply	 reply = { 0, NULL, NULL, NULL, 0 };

	if (wymcp_own(ctx, params) == NULL)
		return WYMCP_ERR_NOMEM;
	ctx->req.method = method;
	ctx->req.params = params;
	ctx->call.rc = WYMCP_OK;
	ctx->call.builder_null = NULL;
	fn(ctx, &reply, arg);
	if (reply.body == NULL || wymcp_own(ctx, reply.body) == NULL)
		return WYMCP_ERR_NOMEM;
	r->rc = ctx->call.rc;
	outcome(reply.body, r);
	return settle(r, WYMCP_OK);
}

/* tools/call of one registered tool (the call core, methods/call.c). */
static void
tool_round(struct wymcp_ctx *ctx, struct wymcp__reply *reply, void *arg)
{
	struct json_object	*args = NULL;

	json_object_object_get_ex(ctx->req.params, "arguments", &args);
	wymcp__tool_call(ctx, reply, arg, args);
}

/* Any method of the table, by the name the context is bound to. */
static void
method_round(struct wymcp_ctx *ctx, struct wymcp__reply *reply, void *arg)
{
	const struct wymcp__method *m = arg;

	m->fn(ctx, reply);
}

/* Release a registration made for one test run (a cleanup hook). */
static void
registration_free(void *arg)
{
	wymcp__tool_clear(arg);
}

/*
 * The registration of `tool`: the mounted one it is, or one prepared
 * now, as the loader would (a tool a test declares alone, not mounted),
 * so that the call is checked against parsed schemas as on the wire.
 */
static const struct wymcp__tool *
registration(struct wymcp_ctx *ctx, const struct wymcp_tool *tool,
    enum wymcp_err *rc)
{
	static const struct wymcp_module alone = {
		.abi = WYMCP_ABI_VERSION, .size = sizeof(alone),
		.name = "testing", .tool_size = sizeof(struct wymcp_tool)
	};
	struct wymcp__tool	*t;
	size_t			 i;

	for (i = 0; i < ctx->who.ntools; i++)
		if (ctx->who.tools[i]->def == tool)
			return ctx->who.tools[i];
	if ((t = wymcp_alloc(ctx, sizeof(*t))) == NULL) {
		*rc = WYMCP_ERR_NOMEM;
		return NULL;
	}
	memset(t, 0, sizeof(*t));
	if ((*rc = wymcp__tool_prepare(ctx->srv, &alone, tool, t)) !=
	    WYMCP_OK)
		return NULL;
	if (wymcp_defer(ctx, registration_free, t) != WYMCP_OK) {
		wymcp__tool_clear(t);
		*rc = WYMCP_ERR_NOMEM;
		return NULL;
	}
	return t;
}

enum wymcp_err
wymcp_testing_run_tool(struct wymcp_ctx *ctx, const struct wymcp_tool *tool,
    const char *args_json, struct wymcp_testing_round *r)
{
	const struct wymcp__tool *t;
	struct json_object	*args, *params;
	enum wymcp_err		 rc = WYMCP_OK;

	clear();
	if (r != NULL)
		memset(r, 0, sizeof(*r));
	if (ctx == NULL || tool == NULL || tool->run == NULL || r == NULL ||
	    tool->name == NULL) {
		why("wymcp_testing_run_tool: %s", ctx == NULL ? "ctx is NULL" :
		    tool == NULL ? "tool is NULL" : r == NULL ?
		    "round is NULL" : tool->name == NULL ?
		    "the tool has no name" : "the tool has no run()");
		return WYMCP_ERR_INVAL;
	}
	if ((args = json_in(ctx, args_json != NULL ? args_json : "{}",
	    json_type_object)) == NULL) {
		why("wymcp_testing_run_tool: the arguments are not a JSON "
		    "object");
		return WYMCP_ERR_INVAL;
	}
	if ((t = registration(ctx, tool, &rc)) == NULL) {
		why("%s", wymcp_server_errmsg(ctx->srv));
		return rc != WYMCP_OK ? rc : WYMCP_ERR_INVAL;
	}
	if ((params = json_object_new_object()) == NULL)
		return WYMCP_ERR_NOMEM;
	if (wymcp__put_str(params, "name", tool->name) ||
	    json_object_object_add(params, "arguments",
	    json_object_get(args))) {
		json_object_put(params);
		return WYMCP_ERR_NOMEM;
	}
	return one_round(ctx, "tools/call", params, tool_round, (void *)t, r);
}

/* One round of a method of the table with `params` (taken). */
static enum wymcp_err
method_call(struct wymcp_ctx *ctx, const char *method,
    struct json_object *params, struct wymcp_testing_round *r)
{
	const struct wymcp__method *m;

	if ((m = wymcp__method_find(method)) == NULL) {
		json_object_put(params);
		return WYMCP_ERR_INVAL;
	}
	return one_round(ctx, m->name, params, method_round, (void *)m, r);
}

enum wymcp_err
wymcp_testing_get_prompt(struct wymcp_ctx *ctx, const char *name,
    const char *args_json, struct wymcp_testing_round *r)
{
	struct json_object	*args, *params;

	clear();
	if (r != NULL)
		memset(r, 0, sizeof(*r));
	if (ctx == NULL || name == NULL || r == NULL) {
		why("wymcp_testing_get_prompt: %s is NULL", ctx == NULL ?
		    "ctx" : name == NULL ? "name" : "round");
		return WYMCP_ERR_INVAL;
	}
	if ((args = json_in(ctx, args_json != NULL ? args_json : "{}",
	    json_type_object)) == NULL) {
		why("wymcp_testing_get_prompt: the arguments are not a JSON "
		    "object");
		return WYMCP_ERR_INVAL;
	}
	if ((params = json_object_new_object()) == NULL)
		return WYMCP_ERR_NOMEM;
	if (wymcp__put_str(params, "name", name) ||
	    json_object_object_add(params, "arguments",
	    json_object_get(args))) {
		json_object_put(params);
		return WYMCP_ERR_NOMEM;
	}
	return method_call(ctx, "prompts/get", params, r);
}

enum wymcp_err
wymcp_testing_read_resource(struct wymcp_ctx *ctx, const char *uri,
    struct wymcp_testing_round *r)
{
	struct json_object	*params;

	clear();
	if (r != NULL)
		memset(r, 0, sizeof(*r));
	if (ctx == NULL || uri == NULL || r == NULL) {
		why("wymcp_testing_read_resource: %s is NULL", ctx == NULL ?
		    "ctx" : uri == NULL ? "uri" : "round");
		return WYMCP_ERR_INVAL;
	}
	if ((params = json_object_new_object()) == NULL)
		return WYMCP_ERR_NOMEM;
	if (wymcp__put_str(params, "uri", uri)) {
		json_object_put(params);
		return WYMCP_ERR_NOMEM;
	}
	return method_call(ctx, "resources/read", params, r);
}

/*
 * The in-memory client.  A growing byte buffer: the request body going
 * in, the CGI response coming out.
 */
struct buf {
	char	*p;
	size_t	 len, cap, off;
};

static int
buf_add(struct buf *b, const char *s, size_t n)
{
	char	*np;
	size_t	 cap;

	if (b->len + n + 1 > b->cap) {
		cap = b->cap == 0 ? 4096 : b->cap;
		while (cap < b->len + n + 1)
			cap *= 2;
		if ((np = realloc(b->p, cap)) == NULL)
			return -1;
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

static long
io_read(void *arg, char *dst, size_t len)
{
	struct buf	*b = arg;
	size_t		 n = b->len - b->off;

	if (n > len)
		n = len;
	memcpy(dst, b->p + b->off, n);
	b->off += n;
	return (long)n;
}

struct exchange {
	struct buf	 in, out;
};

static int
io_write(void *arg, const char *src, size_t len)
{
	struct exchange	*x = arg;

	return buf_add(&x->out, src, len);
}

static long
io_read_in(void *arg, char *dst, size_t len)
{
	struct exchange	*x = arg;

	return io_read(&x->in, dst, len);
}

/* An environment entry NAME=VALUE in the context's memory. */
static char *
envvar(struct wymcp_ctx *ctx, const char *name, const char *value)
{
	return wymcp_printf(ctx, "%s=%s", name, value);
}

/*
 * A header value carrying `s` whatever it holds: the base64 form
 * streamable-http.mdx allows for Mcp-Name and Mcp-Param-* values.
 */
static const char *
sentinel(struct wymcp_ctx *ctx, const char *s)
{
	size_t	 n = strlen(s), cap = sodium_base64_encoded_len(n,
		    sodium_base64_VARIANT_ORIGINAL);
	char	*b;

	if ((b = wymcp_alloc(ctx, cap)) == NULL)
		return NULL;
	sodium_bin2base64(b, cap, (const unsigned char *)s, n,
	    sodium_base64_VARIANT_ORIGINAL);
	return wymcp_printf(ctx, "=?base64?%s?=", b);
}

/* Mcp-Param-* headers for the tool's x-mcp-header arguments. */
static int
xparam_headers(struct wymcp_ctx *ctx, const struct wymcp__tool *t,
    struct json_object *args, char **env, size_t *n)
{
	struct json_object	*v;
	const char		*val;
	size_t			 i, k;

	for (i = 0; i < t->nxparams; i++) {
		v = args;
		for (k = 0; v != NULL && k < t->xparams[i].npath; k++)
			if (!json_object_object_get_ex(v,
			    t->xparams[i].path[k], &v))
				v = NULL;
		if (v == NULL || json_object_is_type(v, json_type_null))
			continue;
		if (json_object_is_type(v, json_type_string))
			val = sentinel(ctx, json_object_get_string(v));
		else if (json_object_is_type(v, json_type_boolean))
			val = json_object_get_boolean(v) ? "true" : "false";
		else
			val = wymcp_printf(ctx, "%lld",
			    (long long)json_object_get_int64(v));
		if (val == NULL ||
		    (env[(*n)++] = envvar(ctx, t->xparams[i].param, val)) ==
		    NULL)
			return -1;
	}
	return 0;
}

/*
 * The CGI params a web server would pass for a tools/call of `t` with
 * `body`: the request line and headers of a 2026-07-28 client, the
 * principal and assigns as auth modules set them.  NULL-terminated.
 */
static char **
request_env(struct wymcp_ctx *ctx, const struct wymcp__tool *t,
    struct json_object *args, size_t bodylen)
{
	char		**env, *name;
	size_t		 n = 0, i, max;

	max = 16 + t->nxparams + (ctx->who.assigns != NULL ?
	    (size_t)json_object_object_length(ctx->who.assigns) : 0);
	if ((env = wymcp_alloc(ctx, (max + 1) * sizeof(*env))) == NULL)
		return NULL;
	env[n++] = "REQUEST_METHOD=POST";
	env[n++] = "CONTENT_TYPE=application/json";
	env[n++] = "HTTP_HOST=localhost";
	env[n++] = "HTTP_ACCEPT=application/json, text/event-stream";
	env[n++] = "HTTP_MCP_METHOD=tools/call";
	env[n++] = "HTTP_MCP_PROTOCOL_VERSION=" WYMCP_PROTOCOL_VERSION;
	env[n++] = envvar(ctx, "HTTP_MCP_NAME", sentinel(ctx, t->def->name));
	env[n++] = wymcp_printf(ctx, "CONTENT_LENGTH=%zu", bodylen);
	if (ctx->who.principal != NULL)
		env[n++] = envvar(ctx, "WYMCP_PRINCIPAL", ctx->who.principal);
	if (ctx->who.scopes != NULL)
		env[n++] = envvar(ctx, "WYMCP_SCOPES", ctx->who.scopes);
	if (ctx->who.assigns != NULL) {
		json_object_object_foreach(ctx->who.assigns, k, v) {
			if ((name = wymcp_printf(ctx, "WYMCP_ASSIGN_%s", k)) ==
			    NULL)
				return NULL;
			for (i = 0; name[i] != '\0'; i++)
				name[i] = (char)toupper((unsigned char)name[i]);
			env[n++] = envvar(ctx, name, json_object_get_string(v));
		}
	}
	if (xparam_headers(ctx, t, args, env, &n))
		return NULL;
	for (i = 0; i < n; i++)
		if (env[i] == NULL)
			return NULL;
	env[n] = NULL;
	return env;
}

/*
 * The JSON-RPC response in a CGI response: the body, or the data of
 * the last event when it is an SSE stream (the final response comes
 * last; notifications before it).  Owned by the context; NULL when
 * there is none.
 */
static struct json_object *
response_of(struct wymcp_ctx *ctx, char *out)
{
	char	*body, *p, *last = NULL, *e;
	int	 sse;

	if ((body = strstr(out, "\r\n\r\n")) == NULL)
		return NULL;
	*body = '\0';
	body += 4;
	sse = strstr(out, "text/event-stream") != NULL;
	if (!sse)
		return json_in(ctx, body, json_type_object);
	for (p = body; (p = strstr(p, "data: ")) != NULL; p = e) {
		last = p + 6;
		if ((e = strchr(last, '\n')) == NULL)
			break;
		*e++ = '\0';
	}
	return last == NULL ? NULL : json_in(ctx, last, json_type_object);
}

/* Answer every input request; -1 to stop (an answer was NULL). */
static int
answer_all(struct wymcp_ctx *ctx, struct json_object *reqs,
    wymcp_testing_answer_fn fn, void *arg, struct json_object *responses,
    enum wymcp_err *rc)
{
	struct json_object	*a;
	const char		*text;

	json_object_object_foreach(reqs, k, req) {
		if ((text = fn(arg, k, req)) == NULL)
			return -1;
		if ((a = json_in(ctx, text, json_type_object)) == NULL) {
			why("the answer to %s is not a JSON object", k);
			*rc = WYMCP_ERR_INVAL;
			return -1;
		}
		json_object_object_add(responses, k, json_object_get(a));
	}
	return 0;
}

/*
 * The tools/call of round `round', with the responses and the
 * requestState of the round before (NULL: none): the caller's, NULL
 * when out of memory.
 */
static struct json_object *
round_message(struct wymcp_ctx *ctx, const char *name,
    struct json_object *args, struct json_object *responses,
    struct json_object *state, int round)
{
	struct json_object	*msg, *params, *meta;

	if ((msg = json_object_new_object()) == NULL)
		return NULL;
	if ((params = json_object_new_object()) == NULL)
		goto fail;
	json_object_object_add(msg, "params", params);
	meta = ctx->req.meta != NULL ? json_object_get(ctx->req.meta) :
	    json_tokener_parse(WYMCP_TESTING_META_NONE);
	if (wymcp__put_str(msg, "jsonrpc", "2.0") ||
	    json_object_object_add(msg, "id", json_object_new_int(round)) ||
	    wymcp__put_str(msg, "method", "tools/call") ||
	    wymcp__put_str(params, "name", name) ||
	    json_object_object_add(params, "arguments",
	    json_object_get(args)) ||
	    json_object_object_add(params, "_meta", meta))
		goto fail;
	if (responses != NULL && json_object_object_add(params,
	    "inputResponses", json_object_get(responses)))
		goto fail;
	if (state != NULL && json_object_object_add(params,
	    "requestState", json_object_get(state)))
		goto fail;
	return msg;
fail:
	json_object_put(msg);
	return NULL;
}

/*
 * Serve the round's message `msg' through the exchange *x: *resp is
 * the response (request-owned).  WYMCP_OK, WYMCP_ERR_NOMEM, or
 * WYMCP_ERR_IO when the server answered nothing that parses.
 */
static enum wymcp_err
serve_round(struct wymcp_ctx *ctx, const struct wymcp__tool *t,
    struct json_object *args, struct json_object *msg, struct exchange *x,
    struct json_object **resp)
{
	struct wymcp_io		 io;
	const char		*text;

	text = wymcp__json(msg);
	if (buf_add(&x->in, text, strlen(text)))
		return WYMCP_ERR_NOMEM;
	memset(&io, 0, sizeof(io));
	if ((io.env = request_env(ctx, t, args, x->in.len)) == NULL)
		return WYMCP_ERR_NOMEM;
	io.read = io_read_in;
	io.write = io_write;
	io.arg = x;
	if (wymcp_server_serve(ctx->srv, &io) != WYMCP_OK ||
	    x->out.p == NULL ||
	    (*resp = response_of(ctx, x->out.p)) == NULL)
		return WYMCP_ERR_IO;
	return WYMCP_OK;
}

enum wymcp_err
wymcp_testing_call_tool(struct wymcp_ctx *ctx, const char *name,
    const char *args_json, wymcp_testing_answer_fn fn, void *arg,
    struct wymcp_testing_round *r)
{
	const struct wymcp__tool *t;
	struct exchange		 x;
	struct json_object	*args, *msg = NULL, *resp;
	struct json_object	*responses = NULL, *state = NULL, *v;
	enum wymcp_err		 rc = WYMCP_OK;
	int			 round;

	clear();
	if (r != NULL)
		memset(r, 0, sizeof(*r));
	if (ctx == NULL || name == NULL || fn == NULL || r == NULL) {
		why("wymcp_testing_call_tool: %s", ctx == NULL ? "ctx is NULL" :
		    name == NULL ? "name is NULL" : r == NULL ?
		    "round is NULL" : "answer is NULL: pass the callback "
		    "that answers the tool's questions (one returning NULL "
		    "for a tool that asks nothing)");
		return WYMCP_ERR_INVAL;
	}
	if ((t = wymcp__ctx_find_tool(ctx, name)) == NULL) {
		why("wymcp_testing_call_tool: no tool %s is mounted", name);
		return WYMCP_ERR_INVAL;
	}
	if ((args = json_in(ctx, args_json != NULL ? args_json : "{}",
	    json_type_object)) == NULL) {
		why("wymcp_testing_call_tool: the arguments are not a JSON "
		    "object");
		return WYMCP_ERR_INVAL;
	}
	memset(&x, 0, sizeof(x));
	/* All errors from here on use goto done. */
	for (round = 1; round <= WYMCP_TESTING_MAX_ROUNDS; round++) {
		rc = WYMCP_ERR_NOMEM;
		x.in.len = x.in.off = x.out.len = 0;
		if ((msg = round_message(ctx, name, args, responses, state,
		    round)) == NULL)
			goto done;
		rc = serve_round(ctx, t, args, msg, &x, &resp);
		json_object_put(msg);
		msg = NULL;
		if (rc != WYMCP_OK)
			goto done;
		memset(r, 0, sizeof(*r));
		r->rounds = round;
		outcome(resp, r);
		rc = WYMCP_OK;
		if (r->kind != WYMCP_TESTING_INPUT_REQUIRED)
			goto done;
		/* Answer, and send the whole call again. */
		if ((responses = wymcp_own(ctx, json_object_new_object())) ==
		    NULL) {
			rc = WYMCP_ERR_NOMEM;
			goto done;
		}
		if (answer_all(ctx, r->input_requests, fn, arg, responses,
		    &rc) != 0)
			goto done;
		state = NULL;
		if (json_object_object_get_ex(r->result != NULL ? r->result :
		    json_object_object_get(resp, "result"), "requestState",
		    &v))
			state = v;
	}
done:
	json_object_put(msg);
	free(x.in.p);
	free(x.out.p);
	return settle(r, rc);
}
