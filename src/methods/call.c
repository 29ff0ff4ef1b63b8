/*
 * call.c - the one call core: a round of a tool, prompt or resource
 *
 * MCP 2026-07-28 basic/patterns/mrtr.mdx.  Bind the call (what a sealed
 * requestState is tied to), gather the answers the round carries, run
 * the handler inside the boundary, and answer input_required when it
 * stopped at questions.  tools/call and the testing API both go through
 * wymcp__tool_call(): capability check, input schema, run, output
 * schema, finish.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "methods/methods.h"

/* What tool_body() needs: the run boundary takes one pointer. */
struct tool_body {
	const struct wymcp_tool	*def;
	struct json_object	*args;
	struct wymcp_result	*res;
};

/* Run a tool's body (inside wymcp__run()). */
static enum wymcp_err
tool_body(struct wymcp_ctx *ctx, void *arg)
{
	struct tool_body	*tb = arg;

	return tb->def->run(ctx, tb->args, tb->res);
}

/*
 * The arguments a tool's body reads: `args' with the default of each
 * declared parameter it lacks (wymcp.h "Parameters declared once"); a
 * copy owned by the request, `args' itself when nothing is missing.
 * The requestState binds the arguments as the client sent them.
 */
static struct json_object *
with_defaults(struct wymcp_ctx *ctx, struct json_object *args,
    struct json_object *defaults)
{
	struct json_object	*o = NULL;

	json_object_object_foreach(defaults, k, v) {
		if (json_object_object_get_ex(args, k, NULL))
			continue;
		if (o == NULL) {
			if ((o = wymcp_own(ctx, json_object_new_object())) ==
			    NULL)
				return NULL;
			json_object_object_foreach(args, ak, av)
				if (json_object_object_add(o, ak,
				    json_object_get(av)))
					return NULL;
		}
		if (json_object_object_add(o, k, json_object_get(v)))
			return NULL;
	}
	return o != NULL ? o : args;
}

/*
 * The answers this round carries: the sealed requestState's (earlier
 * rounds), with this round's inputResponses merged over them
 * (basic/patterns/mrtr.mdx), but only for the questions that state
 * asked: a first round (no requestState) has no answers, whatever
 * inputResponses it carries (the seed: answers is %{} on a first
 * round), and an answer to a question never asked is ignored (mrtr.mdx:
 * a server SHOULD ignore input responses it does not recognise).  The
 * tool then asks its question, so that no confirmation is ever taken
 * from answers sent ahead.  Answers preset on the context (the testing
 * API's) stand in for a requestState's.  Returns 0, or -1 after
 * replying with the error (-32602 for a malformed inputResponses or a
 * requestState that does not open).
 */
static int
answers(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	struct json_object	*resp = NULL, *st = NULL, *merged;
	struct json_object	*asked = NULL;
	int			 ignored = 0;

	if (json_object_object_get_ex(ctx->req.params, "inputResponses",
	    &resp) &&
	    !wymcp__responses_ok(resp)) {
		wymcp__reply_invalid(ctx, r, "Invalid params: inputResponses "
		    "must be an object of result objects");
		return -1;
	}
	if (json_object_object_get_ex(ctx->req.params, "requestState", &st) &&
	    !json_object_is_type(st, json_type_string)) {
		wymcp__reply_invalid(ctx, r,
		    "Invalid params: requestState must be a string");
		return -1;
	}
	merged = ctx->call.answers;
	if (st != NULL && wymcp__unseal(ctx, json_object_get_string(st),
	    &merged, &asked)) {
		wymcp__reply_invalid(ctx, r, "Invalid requestState: it may "
		    "have expired, or belong to another call or user");
		return -1;
	}
	if (resp != NULL) {
		json_object_object_foreach(resp, k, v) {
			if (asked == NULL ||
			    !json_object_object_get_ex(asked, k, NULL)) {
				ignored++;
				continue;
			}
			if (merged == NULL && (merged = wymcp_own(ctx,
			    json_object_new_object())) == NULL)
				goto nomem;
			if (json_object_object_add(merged, k,
			    json_object_get(v)))
				goto nomem;
		}
	}
	if (ignored > 0)
		wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "%s: %d inputResponses "
		    "ignored: %s", ctx->call.name != NULL ? ctx->call.name :
		    "-", ignored, st == NULL ? "a first round has no answers "
		    "(no requestState)" : "the requestState asked no such "
		    "question");
	ctx->call.answers = merged;
	return 0;
nomem:
	wymcp__reply_nomem(ctx, r);
	return -1;
}

/*
 * The round ended at unanswered questions: answer input_required with
 * them and a requestState sealing the answers the run read.
 */
static void
input_required(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    struct wymcp__run *run)
{
	struct json_object	*res;
	const char		*tok;

	/* Never to a legacy client: it is asked on the held stream. */
	if (ctx->req.legacy) {
		wymcp__reply_error(ctx, r, 500, WYMCP__INTERNAL_ERROR,
		    "Internal error: a 2025-11-25 client cannot be asked",
		    NULL);
		return;
	}
	/*
	 * No key (wymcp_server_forget_random_key(), CGI without a key
	 * file): a state sealed here would open nowhere, so say so.
	 */
	if (ctx->srv->nkeys == 0) {
		wymcp__ctx_log(ctx, WYMCP_LOG_ERR, "%s: cannot ask the client: "
		    "the server has no state key", ctx->call.name != NULL ?
		    ctx->call.name : "-");
		wymcp__reply_error(ctx, r, 500, WYMCP__INTERNAL_ERROR,
		    "Internal error: this server cannot ask the client: it "
		    "has no state key to seal the requestState with (it "
		    "needs a key file)", NULL);
		return;
	}
	if ((tok = wymcp__seal(ctx, run->used, run->pending)) == NULL ||
	    (res = json_object_new_object()) == NULL) {
		wymcp__reply_error(ctx, r, 500, WYMCP__INTERNAL_ERROR,
		    "Internal error: could not seal the requestState", NULL);
		return;
	}
	/* Literal names, new to res. */
	wymcp__put_new(res, "resultType",
	    json_object_new_string("input_required"));
	wymcp__put_new(res, "inputRequests", json_object_get(run->pending));
	wymcp__put_new(res, "requestState", json_object_new_string(tok));
	wymcp__reply_result(ctx, r, res);
}

/*
 * A question on the held stream (a 2025-11-25 client) got no answer:
 * a tool's call finishes with a tool error saying why (its client can
 * show it); a prompt's or resource's with -32603.  A client that hung
 * up gets nothing (the request is cancelled).
 */
static void
held_failed(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    enum wymcp__held_end end)
{
	struct json_object	*res, *content, *t;
	const char		*msg;

	switch (end) {
	case WYMCP__HELD_TIMEOUT:
		msg = wymcp_printf(ctx, "No answer from the client within "
		    "%u s: the question timed out", ctx->out.ask_timeout);
		break;
	case WYMCP__HELD_REFUSED:
		msg = wymcp_printf(ctx, "The client answered the question "
		    "with an error: %s", ctx->out.refusal);
		break;
	default:
		msg = "The client could not be asked";
		break;
	}
	if (msg == NULL)
		msg = "The client did not answer";
	if (strcmp(ctx->req.method, "tools/call") != 0) {
		wymcp__reply_error(ctx, r, 200, WYMCP__INTERNAL_ERROR, msg,
		    NULL);
		return;
	}
	if ((res = wymcp__result_object()) == NULL) {
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
	wymcp__reply_result(ctx, r, res);
}

/*
 * A task's round ended at questions (a runner runs it): the questions
 * are the task's inputRequests, kept in the store, not sealed
 * (methods/task.c reads this reply).
 */
static void
task_input(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    struct wymcp__run *run)
{
	struct json_object	*res;

	if ((res = json_object_new_object()) == NULL) {
		wymcp__reply_nomem(ctx, r);
		return;
	}
	json_object_object_add(res, "resultType",
	    json_object_new_string("input_required"));
	json_object_object_add(res, "inputRequests",
	    json_object_get(run->pending));
	wymcp__reply_result(ctx, r, res);
}

/*
 * One round of a handler that may ask (tools/call, prompts/get,
 * resources/read): bind `name' and `args' (what a sealed requestState
 * is tied to), gather the answers this round carries, run the body, and
 * when the round ended at questions or at an invalid answer, reply
 * (input_required, or -32602).  Returns 1 when the body returned (*rc
 * is its value) and the caller replies, 0 when the reply is made.
 */
int
wymcp__round(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    const char *name, struct json_object *args, wymcp__body body,
    void *arg, enum wymcp_err *rc)
{
	struct wymcp__run	 run;
	enum wymcp__outcome	 outcome;
	enum wymcp__held_end	 end;

	ctx->call.name = name;
	ctx->call.args = args;
	if (answers(ctx, r) != 0)
		return 0;
	for (;;) {
		/* A run that ends at a question publishes nothing. */
		wymcp__events_forget(ctx);
		outcome = wymcp__run(ctx, &run, body, arg, rc);
		ctx->call.rc = *rc;
		if (outcome != WYMCP__RUN_INPUT || !ctx->req.legacy ||
		    ctx->out.holding <= 0)
			break;
		/* Asked on the held stream: again from the top. */
		if ((end = wymcp__held_ask(ctx, run.pending,
		    ctx->call.answers)) != WYMCP__HELD_ANSWERED) {
			held_failed(ctx, r, end);
			return 0;
		}
	}
	switch (outcome) {
	case WYMCP__RUN_INPUT:
		if (ctx->call.in_task)
			task_input(ctx, r, &run);
		else
			input_required(ctx, r, &run);
		return 0;
	case WYMCP__RUN_FAULT:
		wymcp__reply_invalid(ctx, r, run.fault);
		return 0;
	case WYMCP__RUN_TASK:
		wymcp__task_create(ctx, r, name, args);
		return 0;
	case WYMCP__RUN_DONE:
		wymcp__events_publish(ctx);
		break;
	}
	return 1;
}

/* The CallToolResult of a finished result (new object); NULL on failure. */
struct json_object *
wymcp__call_result(struct wymcp_result *res)
{
	struct json_object	*o;

	if ((o = wymcp__result_object()) == NULL)
		return NULL;
	json_object_object_add(o, "content", json_object_get(res->content));
	if (res->structured != NULL)
		json_object_object_add(o, "structuredContent",
		    json_object_get(res->structured));
	if (res->is_error)
		json_object_object_add(o, "isError",
		    json_object_new_boolean(1));
	return o;
}

/*
 * A tool with required_caps, called by a legacy client: an isError
 * result naming what this protocol version cannot provide (2025-11-25
 * has no -32021).  Takes `missing`.
 */
static void
legacy_missing_caps(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    const char *tool, struct json_object *missing)
{
	struct json_object	*res, *content, *t;
	const char		*msg;

	msg = wymcp_printf(ctx, "Tool %s needs client capabilities %s, "
	    "which this server cannot use with protocol version %s: asking "
	    "the client needs a 2026-07-28 client", tool,
	    wymcp__json(missing), ctx->req.version);
	json_object_put(missing);
	if (msg == NULL || (res = wymcp__result_object()) == NULL) {
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
	wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "%s", msg);
	wymcp__reply_result(ctx, r, res);
}

/*
 * The client capabilities tool t requires and the request did not
 * declare: 1 when the call is refused for them (into r), 0 when none
 * is missing, -1 out of memory.
 */
static int
caps_refused(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    const struct wymcp__tool *t)
{
	const char		*name = t->def->name;
	struct json_object	*missing, *data;
	char			*msg;
	int			 m;

	if ((m = wymcp__caps_missing(t->reqcaps, ctx->req.caps,
	    &missing)) <= 0)
		return m;
	if (ctx->req.legacy) {
		legacy_missing_caps(ctx, r, name, missing);
		return 1;
	}
	data = json_object_new_object();
	json_object_object_add(data, "requiredCapabilities", missing);
	msg = wymcp_printf(ctx, "Tool %s requires client capabilities "
	    "this request did not declare: %s", name, wymcp__json(missing));
	wymcp__reply_error(ctx, r, 400, WYMCP__MISSING_CAPABILITY,
	    msg != NULL ? msg : "Missing required client capability", data);
	return 1;
}

/*
 * The tasks extension for tool t, which may run as a task on a server
 * with a store: 1 when the call is answered here (a task handle, or
 * the extension missing for a task-only tool), else 0 (the tool runs
 * now, perhaps to start a task itself).
 */
static int
as_task(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    const struct wymcp__tool *t, struct json_object *args)
{
	const char	*name = t->def->name;

	if (wymcp__tasks_declared(ctx) &&
	    (t->decl.task_support & WYMCP_TASK_LATER))
		ctx->call.task_ok = 1;	/* at wymcp_task_start() */
	else if (wymcp__tasks_declared(ctx)) {
		wymcp__task_create(ctx, r, name, args);
		return 1;
	} else if ((t->decl.task_support & ~WYMCP_TASK_LATER) ==
	    WYMCP_TASK_REQUIRED) {
		wymcp__reply_tasks_missing(ctx, r, wymcp_printf(ctx,
		    "Tool %s runs only as a task: declare the "
		    "extension " WYMCP__TASKS_EXT, name));
		return 1;
	}
	return 0;
}

/*
 * tools/call once the tool is found (server/tools.mdx "Calling Tools"):
 * the token must hold the tool's scopes (403 with the step-up
 * challenge, basic/authorization), the client must have declared what
 * the tool requires (-32021), the arguments must fit its input schema
 * (-32602); then one round, and a structured result must fit its
 * output schema (-32603: the tool's fault, logged).  `args` may be
 * NULL (no arguments).  The wire (tools.c) and the testing API both
 * call this.
 */
/*
 * Rate limits (wymcp_server_set_admit_fn()): a call's first round (no
 * requestState: a round of a call under way is never refused) asks
 * the program's hook, which may refuse it for a while: 429 with
 * Retry-After, and JSON-RPC error -32029 with data.retryAfterMs.  A
 * task's run is no request and is not asked.  1 when the call goes on.
 */
static int
admitted(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    const struct wymcp__tool *t)
{
	struct wymcp_admit	 a;
	struct json_object	*data;
	const char		*msg;
	long			 ms;

	if (ctx->srv->admitfn == NULL || ctx->call.in_task ||
	    json_object_object_get_ex(ctx->req.params, "requestState", NULL))
		return 1;
	a.who = wymcp__ctx_who(ctx);
	a.tool = t->def->name;
	a.rate = t->decl.rate;
	if ((ms = ctx->srv->admitfn(ctx->srv->admitarg, &a)) <= 0)
		return 1;
	data = json_object_new_object();
	json_object_object_add(data, "retryAfterMs",
	    json_object_new_int64(ms));
	json_object_object_add(data, "tool", json_object_new_string(a.tool));
	msg = wymcp_printf(ctx, "Rate limited: tool %s may be called again "
	    "in %ld ms", a.tool, ms);
	wymcp__reply_error(ctx, r, 429, WYMCP__RATE_LIMITED,
	    msg != NULL ? msg : "Rate limited", data);
	r->retry_after = (int)((ms + 999) / 1000);
	wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "tool %s: rate limited for %s "
	    "(%ld ms)", a.tool, wymcp__ctx_quote(ctx, a.who), ms);
	return 0;
}

void
wymcp__tool_call(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    const struct wymcp__tool *t, struct json_object *args)
{
	const char		*name = t->def->name;
	struct wymcp_result	*res;
	struct tool_body	 tb;
	char			 why[256], *msg;
	enum wymcp_err		 rc;
	int			 m;

	/* The token's scopes first: a refused call learns nothing more. */
	if (!wymcp__ctx_scoped(ctx, t)) {
		wymcp__reply_scope(ctx, r, t);
		return;
	}
	if ((m = caps_refused(ctx, r, t)) < 0)
		goto nomem;
	if (m > 0)
		return;
	if (args == NULL &&
	    (args = wymcp_own(ctx, json_object_new_object())) == NULL)
		goto nomem;
	if ((m = wymcp__schema_validate(t->input, args, why,
	    sizeof(why))) < 0)
		goto nomem;
	if (m == 0) {
		msg = wymcp_printf(ctx, "Invalid arguments for tool %s: %s",
		    name, why);
		wymcp__reply_invalid(ctx, r, msg != NULL ? msg :
		    "Invalid arguments");
		return;
	}

	if (!admitted(ctx, r, t))
		return;

	/*
	 * The tasks extension: a tool that may run as a task, on a
	 * server with a store, called by a request that declares the
	 * extension, is answered with a task handle (taskmake.c).
	 */
	if (!ctx->call.in_task && t->decl.task_support != 0 &&
	    ctx->srv->tasks != NULL && !ctx->req.legacy &&
	    as_task(ctx, r, t, args))
		return;

	if ((res = wymcp__result_new(ctx)) == NULL)
		goto nomem;
	tb.def = t->def;
	tb.args = args;
	if (t->defaults != NULL &&
	    (tb.args = with_defaults(ctx, args, t->defaults)) == NULL)
		goto nomem;
	tb.res = res;
	if (!wymcp__round(ctx, r, name, args, tool_body, &tb, &rc))
		return;
	if (rc == WYMCP_ERR_NOMEM)
		goto nomem;
	wymcp__result_finish(res, rc);
	if (rc != WYMCP_OK)
		wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "tool %s: %s", name,
		    wymcp_strerror(rc));
	else if (t->output != NULL && (res->structured == NULL ||
	    wymcp__schema_validate(t->output, res->structured, why,
	    sizeof(why)) != 1)) {
		wymcp__ctx_log(ctx, WYMCP_LOG_ERR, "tool %s: structured "
		    "result does not match its outputSchema: %s", name,
		    res->structured == NULL ? "none given" : why);
		wymcp__reply_error(ctx, r, 500, WYMCP__INTERNAL_ERROR,
		    "Internal error: the tool's result does not match its "
		    "outputSchema", NULL);
		return;
	}
	wymcp__reply_result(ctx, r, wymcp__call_result(res));
	return;
nomem:
	wymcp__reply_nomem(ctx, r);
}
