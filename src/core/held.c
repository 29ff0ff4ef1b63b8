/*
 * held.c - asking a 2025-11-25 client on the tool call's held stream
 *
 * 2025-11-25 basic/transports.mdx: the response to a POSTed request may
 * be an SSE stream, on which the server MAY send its own requests
 * (elicitation/create, sampling/createMessage, roots/list) before the
 * response; the client POSTs each answer as a new HTTP request, which
 * may reach any worker.  The tools do not change: a round that stops at
 * unanswered questions (run.c) has them sent on the stream, each with a
 * sealed id naming the holder (seal.c), and the worker holding the
 * stream waits.  The worker the answer reaches opens the id and relays
 * the answer to the holder (wymcp__held_forward(), through the
 * program's io->ask_forward()), framed with a MAC under the state key
 * over the holder's address, the time and the answer (seal.c), so that
 * nothing that can write to the program's relay sockets can answer;
 * the holder checks the frame and takes the answer (io->ask_wait())
 * and, once every question of the round is answered, the call core
 * runs the tool again from the top with every answer so far: the MRTR
 * re-execution (basic/patterns/mrtr.mdx), with the answers held in the
 * worker instead of a requestState.
 *
 * Bounds: the program has a number of places (--max-asking); a request
 * takes one the first time a tool asks (wymcp__held_take()), or the
 * question answers WYMCP_ERR_NOTSUP as before.  A question waits
 * io->ask_timeout seconds; SSE comments every KEEPALIVE_MS keep the
 * stream open through proxies' read timeouts; a hang-up ends the wait
 * at once (the program's ask_wait() watches the connection).  The time
 * spent waiting is not counted against the request's time limit: the
 * deadline is lifted while waiting, and moved on by the time waited.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "core/core.h"

#define KEEPALIVE_MS	15000	/* an SSE comment at least this often */

int
wymcp__held_take(struct wymcp_ctx *ctx)
{
	const struct wymcp_io	*io = ctx->out.ask_io;

	if (!ctx->req.legacy || io == NULL || ctx->req.session_caps == NULL ||
	    !ctx->out.sse_ok)
		return 0;
	if (ctx->out.holding == 0) {
		ctx->out.holder = ctx->out.ask_hold_as != NULL ?
		    ctx->out.ask_hold_as(io->arg, wymcp__ctx_who(ctx)) :
		    io->ask_hold(io->arg);
		ctx->out.holding = ctx->out.holder != NULL ? 1 : -1;
		if (ctx->out.holding < 0)
			wymcp__ctx_log(ctx, WYMCP_LOG_WARNING, "%s: cannot "
			    "ask the client: no place to hold a question is "
			    "free to it (the program's cap, --max-asking, or "
			    "its principal's share)", ctx->call.name != NULL ?
			    ctx->call.name : "-");
		else
			wymcp__ctx_log(ctx, WYMCP_LOG_DEBUG, "holding the "
			    "stream at %s", ctx->out.holder);
	}
	return ctx->out.holding > 0;
}

void
wymcp__held_release(struct wymcp_ctx *ctx)
{
	const struct wymcp_io	*io = ctx->out.ask_io;

	if (ctx->out.holding > 0 && io != NULL)
		io->ask_release(io->arg);
	ctx->out.holding = 0;
}

/*
 * ask_wait()'s take(): is `msg' the answer to one of the questions this
 * request waits for?  Then keep it (or the client's error) and say 1.
 */
static int
take(void *arg, const char *msg, size_t len)
{
	struct wymcp_ctx	*ctx = arg;
	struct json_object	*o, *id, *key, *res, *e, *m;
	const char		*ids, *body, *why;
	size_t			 blen;

	if (wymcp__relay_open(ctx, ctx->out.holder, msg, len, &body, &blen,
	    &why) != 0) {
		wymcp__ctx_log(ctx, WYMCP_LOG_WARNING, "%s: a relayed answer "
		    "refused: %s", ctx->call.name != NULL ? ctx->call.name :
		    "-", why);
		return 0;
	}
	if ((o = wymcp_own(ctx, wymcp__parse(body, blen))) == NULL ||
	    !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "id", &id) ||
	    !json_object_is_type(id, json_type_string))
		return 0;
	ids = json_object_get_string(id);
	if (!json_object_object_get_ex(ctx->out.asked, ids, &key))
		return 0;
	if (json_object_object_get_ex(o, "result", &res) &&
	    json_object_is_type(res, json_type_object)) {
		if (json_object_object_add(ctx->out.got,
		    json_object_get_string(key), json_object_get(res)))
			return 0;
	} else if (json_object_object_get_ex(o, "error", &e) &&
	    json_object_is_type(e, json_type_object)) {
		ctx->out.refusal = json_object_object_get_ex(e, "message",
		    &m) && json_object_is_type(m, json_type_string) ?
		    wymcp_strdup(ctx, json_object_get_string(m)) : "";
		if (ctx->out.refusal == NULL)
			ctx->out.refusal = "";
	} else
		return 0;
	wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "%s: the client answered %s "
	    "(relayed to this holder, %s)", ctx->call.name != NULL ?
	    ctx->call.name : "-", json_object_get_string(key),
	    ctx->out.holder);
	json_object_object_del(ctx->out.asked, ids);
	return 1;
}

/* Send the round's questions on the stream.  0, or -1 (GONE/FAILED). */
static int
send_all(struct wymcp_ctx *ctx, struct json_object *pending,
    enum wymcp__held_end *end)
{
	struct json_object	*msg, *m, *p;
	const char		*id;

	*end = WYMCP__HELD_FAILED;
	json_object_object_foreach(pending, key, q) {
		if (!json_object_object_get_ex(q, "method", &m) ||
		    !json_object_object_get_ex(q, "params", &p))
			return -1;
		if ((id = wymcp__askid_seal(ctx, ctx->out.holder, key,
		    ctx->out.ask_timeout)) == NULL ||
		    (msg = wymcp_own(ctx, json_object_new_object())) == NULL)
			return -1;
		json_object_object_add(msg, "jsonrpc",
		    json_object_new_string("2.0"));
		json_object_object_add(msg, "id", json_object_new_string(id));
		json_object_object_add(msg, "method", json_object_get(m));
		json_object_object_add(msg, "params", json_object_get(p));
		if (json_object_object_add(ctx->out.asked, id,
		    json_object_new_string(key)))
			return -1;
		if (wymcp__stream_message(ctx, msg) != WYMCP_OK) {
			if (ctx->out.cancelled)
				*end = WYMCP__HELD_GONE;
			return -1;
		}
		wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "%s: asked the client "
		    "%s (%s) on the held stream", ctx->call.name != NULL ?
		    ctx->call.name : "-", key, json_object_get_string(m));
	}
	return 0;
}

enum wymcp__held_end
wymcp__held_ask(struct wymcp_ctx *ctx, struct json_object *pending,
    struct json_object *answers)
{
	const struct wymcp_io	*io = ctx->out.ask_io;
	enum wymcp__held_end	 end;
	long long		 start, deadline, left, now;
	long			 limit;
	int			 n, slice;

	if (ctx->out.holding <= 0 || io == NULL)
		return WYMCP__HELD_FAILED;
	if ((ctx->out.asked = wymcp_own(ctx, json_object_new_object())) ==
	    NULL)
		return WYMCP__HELD_FAILED;
	ctx->out.got = answers;
	ctx->out.refusal = NULL;
	if (send_all(ctx, pending, &end) != 0)
		return end;

	/* A person is thinking: the request's time limit stops. */
	deadline = ctx->out.deadline;
	limit = ctx->out.limit_ms;
	start = wymcp__clock_ms();
	if (deadline > 0)
		wymcp__deadline_set(ctx, 0, limit);
	left = (long long)ctx->out.ask_timeout * 1000;
	end = WYMCP__HELD_ANSWERED;
	while (json_object_object_length(ctx->out.asked) > 0) {
		if (left <= 0) {
			end = WYMCP__HELD_TIMEOUT;
			break;
		}
		slice = left < KEEPALIVE_MS ? (int)left : KEEPALIVE_MS;
		now = wymcp__clock_ms();
		n = io->ask_wait(io->arg, slice, take, ctx);
		left -= wymcp__clock_ms() - now;
		if (n == 2) {
			ctx->out.cancelled = 1;
			wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "%s: the client "
			    "hung up while asked: the worker is free",
			    ctx->call.name != NULL ? ctx->call.name : "-");
			end = WYMCP__HELD_GONE;
			break;
		}
		if (n < 0) {
			end = WYMCP__HELD_FAILED;
			break;
		}
		if (ctx->out.refusal != NULL) {
			end = WYMCP__HELD_REFUSED;
			break;
		}
		if (n == 0 && left > 0 &&
		    wymcp__stream_comment(ctx, "keep-alive") != WYMCP_OK) {
			end = WYMCP__HELD_GONE;
			break;
		}
	}
	if (deadline > 0)
		wymcp__deadline_set(ctx, deadline + (wymcp__clock_ms() -
		    start), limit);
	if (end == WYMCP__HELD_TIMEOUT)
		wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "%s: no answer within "
		    "%u s (--ask-timeout)", ctx->call.name != NULL ?
		    ctx->call.name : "-", ctx->out.ask_timeout);
	return end;
}

int
wymcp__held_forward(struct wymcp_ctx *ctx, const char *body, size_t len,
    const char **why)
{
	const struct wymcp_io	*io = ctx->out.ask_io;
	struct json_object	*id;
	const char		*holder, *frame;
	size_t			 flen;

	if (!json_object_object_get_ex(ctx->req.msg, "id", &id) ||
	    !json_object_is_type(id, json_type_string) ||
	    wymcp__askid_open(ctx, json_object_get_string(id), &holder)) {
		*why = "Invalid Request: a response to no request of this "
		    "server's (the id is unknown, another user's, or "
		    "expired)";
		return -1;
	}
	if (io == NULL) {
		*why = "Invalid Request: this server relays no response";
		return -1;
	}
	if ((frame = wymcp__relay_frame(ctx, holder, body, len, &flen)) ==
	    NULL) {
		*why = "Internal error: out of memory";
		return -1;
	}
	if (io->ask_forward(io->arg, holder, frame, flen) != 0) {
		wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "answer for %s refused: "
		    "no longer held there", holder);
		*why = "Invalid Request: the request this response answers "
		    "is no longer waiting (answered, timed out, or its "
		    "client went away)";
		return -1;
	}
	wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "answer relayed to holder %s",
	    holder);
	return 0;
}
