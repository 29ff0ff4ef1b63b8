/*
 * stream.c - SSE responses: progress, log messages and cancellation
 *
 * MCP 2026-07-28 basic/transports/streamable-http.mdx "Receiving
 * Messages": the answer to a request is either one JSON object or an
 * SSE stream scoped to that request, carrying notifications related to
 * it and then the final response.  wymcp answers with plain JSON unless
 * a notification is actually sent: the first one turns the response
 * into a stream (Status 200, Content-Type text/event-stream), and the
 * final response goes as its last event (wymcp__stream_final()).
 *
 * What can go on the stream: notifications/progress
 * (basic/patterns/progress.mdx) when the request's _meta carries a
 * progressToken, and notifications/message (server/utilities/logging.mdx)
 * when it carries io.modelcontextprotocol/logLevel.  Never a JSON-RPC
 * request (questions to the client are MRTR input requests, elicit.c),
 * never an "id:" line (streams are not resumable).  Notifications are
 * sent only while a run (a tool, prompt or resource handler) is open in
 * the calling thread, so none can follow the final response
 * (progress.mdx "Progress notifications MUST stop after completion").
 *
 * Cancellation (basic/patterns/cancellation.mdx, streamable-http.mdx
 * "Cancellation"): on HTTP the client cancels by closing the stream.
 * Behind a web server the signs are a failed write or flush (nginx
 * closes the FastCGI connection when its client goes away; SIGPIPE is
 * ignored by wymcp-fcgi, so the write fails with EPIPE) and, without
 * writing anything, the program's io->gone() (wymcp-fcgi polls the
 * connection for the hang-up).  From then on the request is
 * cancelled: nothing more is written for it ("MUST NOT send any
 * further messages"), wymcp_progress() and wymcp_log() return
 * WYMCP_ERR_IO and wymcp_cancelled() 1, so the tool can stop.
 *
 * The time limit (wymcp_server_set_request_timeout()): past the
 * request's deadline the tool sees the same, no more notifications go
 * out, and the final response is the time-limit error (serve.c).  The
 * deadline is kept here, in the context, and may move
 * (wymcp__deadline_set()); the program serving the request learns every
 * move through the request hook and stops a handler that never looks.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdarg.h>
#include <time.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/core.h"

/* The CGI head of a stream (streamable-http.mdx). */
#define SSE_HEAD							\
	"Status: 200 OK\r\n"						\
	"Content-Type: text/event-stream\r\n"				\
	"Cache-Control: no-cache\r\n"					\
	"X-Accel-Buffering: no\r\n"					\
	"\r\n"

/*
 * Does one media range of an Accept header (t up to e, parameters
 * included) accept text/event-stream?  It must be text/event-stream,
 * "text/" followed by a star, or two stars around a slash
 * (case-insensitive), without a weight of zero (RFC 9110
 * section 12.5.1: "q=0" means "not acceptable").
 */
static int
range_ok(const char *t, const char *e)
{
	const char	*te, *q;
	size_t		 n;

	while (t < e && (*t == ' ' || *t == '\t'))
		t++;
	for (te = t; te < e && *te != ';' && *te != ' ' && *te != '\t'; te++)
		continue;
	n = (size_t)(te - t);
	if (!(n == 17 && strncasecmp(t, "text/event-stream", n) == 0) &&
	    !(n == 6 && strncasecmp(t, "text/*", n) == 0) &&
	    !(n == 3 && strncmp(t, "*/*", n) == 0))
		return 0;
	for (q = te; (q = memchr(q, ';', (size_t)(e - q))) != NULL;) {
		for (q++; q < e && (*q == ' ' || *q == '\t'); q++)
			continue;
		if (e - q < 2 || (*q != 'q' && *q != 'Q') || q[1] != '=')
			continue;
		q += 2;
		if (q < e && *q == '0') {
			for (q++; q < e && (*q == '.' || *q == '0'); q++)
				continue;
			if (q == e || *q == ' ' || *q == '\t' || *q == ';')
				return 0;
		}
		return 1;
	}
	return 1;
}

/*
 * Is text/event-stream acceptable by this Accept header value?  No
 * header, or an empty one, accepts anything; otherwise one of its
 * media ranges must (range_ok()).
 */
static int
sse_acceptable(const char *accept)
{
	const char	*p, *e;

	if (accept == NULL || accept[strspn(accept, " \t")] == '\0')
		return 1;
	for (p = accept; *p != '\0'; p = *e == ',' ? e + 1 : e) {
		if ((e = strchr(p, ',')) == NULL)
			e = p + strlen(p);
		if (range_ok(p, e))
			return 1;
	}
	return 0;
}

/*
 * Read what the request asks of the stream from its _meta: the
 * progressToken (string or integer, kept as the request's own object so
 * that it is echoed with its JSON type) and the logLevel (debug ..
 * emergency, kept as the syslog priority 7 .. 0).  Called by dispatch()
 * once the request has passed every header and _meta check, before the
 * method runs.  Returns 0, or -1 when the logLevel is not a level: the
 * request is then refused with -32602 (logging.mdx "Error Handling":
 * SHOULD reject; the HTTP status is unspecified, wymcp uses 400), before
 * anything is written.
 *
 * A progressToken of another type (null, a float, an object) breaks
 * progress.mdx's MUST; it is ignored rather than echoed, since a
 * notification carrying it would itself be invalid.  When the client's
 * Accept header rules out text/event-stream, nothing is streamed and
 * the answer stays plain JSON.
 *
 * A legacy (2025-11-25) request has no logLevel, and the level its
 * client set with logging/setLevel was another request's: its log lines
 * go out from info up, the level a 2025-11-25 server may choose before
 * (or without) setLevel (legacy.c).
 */
int
wymcp__stream_init(struct wymcp_ctx *ctx)
{
	struct json_object	*v;
	int			 level;

	ctx->out.streaming = 0;
	ctx->out.progress_token = NULL;
	ctx->out.have_progress = 0;
	ctx->out.last_progress = 0;
	ctx->out.loglevel = ctx->req.legacy ? WYMCP_LOG_INFO : -1;
	ctx->out.sse_ok = sse_acceptable(wymcp__param(ctx,
	    WYMCP__P_HTTP_ACCEPT));
	if (ctx->req.meta == NULL)
		return 0;

	if (!ctx->req.legacy &&
	    json_object_object_get_ex(ctx->req.meta, WYMCP__META_LOGLEVEL,
	    &v)) {
		if (!json_object_is_type(v, json_type_string) ||
		    (level = wymcp__log_level(json_object_get_string(v))) < 0)
			return -1;
		ctx->out.loglevel = level;
	}
	if (json_object_object_get_ex(ctx->req.meta, "progressToken", &v)) {
		if (json_object_is_type(v, json_type_string) ||
		    json_object_is_type(v, json_type_int))
			/* Owned by ctx->req.msg. */
			ctx->out.progress_token = v;
		else
			wymcp__ctx_log(ctx, WYMCP_LOG_DEBUG,
			    "progressToken is neither a string nor an "
			    "integer: no progress is sent");
	}
	if (!ctx->out.sse_ok) {
		ctx->out.progress_token = NULL;
		ctx->out.loglevel = -1;
	}
	return 0;
}

/*
 * The request is cancelled: remember it and say so in the server log
 * (once).  Nothing more is written for this request.
 */
static void
cancel(struct wymcp_ctx *ctx)
{
	if (ctx->out.cancelled)
		return;
	ctx->out.cancelled = 1;
	wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "%s: the client went "
	    "away: the request is cancelled", ctx->req.method != NULL ?
	    ctx->req.method : "-");
}

/*
 * The request passed its deadline: remember it and log it (once).  The
 * final response is still written: the time-limit error.
 */
static void
expire(struct wymcp_ctx *ctx)
{
	if (ctx->out.expired)
		return;
	ctx->out.expired = 1;
	wymcp__ctx_log(ctx, WYMCP_LOG_WARNING, "%s%s%s: still running at "
	    "its time limit (%ld ms): the request is cancelled",
	    ctx->req.method != NULL ? ctx->req.method : "-",
	    ctx->call.name != NULL ? " " : "",
	    ctx->call.name != NULL ? ctx->call.name : "", ctx->out.limit_ms);
}

/* Move the deadline (0: none) and tell the program. */
void
wymcp__deadline_set(struct wymcp_ctx *ctx, long long at, long limit_ms)
{
	ctx->out.deadline = at;
	ctx->out.limit_ms = limit_ms;
	wymcp__ctx_publish(ctx, 0);
}

/* Has the deadline passed?  Records it.  No system call but the clock. */
int
wymcp__expired(struct wymcp_ctx *ctx)
{
	if (ctx->out.expired)
		return 1;
	if (ctx->out.deadline > 0 && wymcp__clock_ms() >= ctx->out.deadline) {
		expire(ctx);
		return 1;
	}
	return 0;
}

/*
 * Is the request stopped: cancelled (the client went away) or past its
 * deadline?  Looks now, the clock first, then io->gone(), and records
 * what it finds.
 */
int
wymcp__stopped(struct wymcp_ctx *ctx)
{
	if (ctx->out.cancelled || wymcp__expired(ctx))
		return 1;
	if (ctx->out.gone != NULL && ctx->out.gone(ctx->out.io->arg)) {
		cancel(ctx);
		return 1;
	}
	return 0;
}

/*
 * Write `len` bytes of the stream, or cancel the request.  0 or -1.
 */
static int
put(struct wymcp_ctx *ctx, const char *buf, size_t len)
{
	if (ctx->out.cancelled)
		return -1;
	if (len > 0 && ctx->out.io->write(ctx->out.io->arg, buf, len) != 0) {
		cancel(ctx);
		return -1;
	}
	return 0;
}

/*
 * Send one message as an SSE event: "event: message", one "data:" line
 * of compact JSON (wymcp__json() never writes a newline: json-c escapes
 * control characters in strings), a blank line, then a flush so that
 * it reaches the client now and not when the response ends.  The first
 * event writes the CGI head.  WYMCP_OK or WYMCP_ERR_IO.
 */
static enum wymcp_err
event(struct wymcp_ctx *ctx, struct json_object *msg)
{
	const char	*s;

	if (ctx->out.cancelled)
		return WYMCP_ERR_IO;
	if ((s = wymcp__json(msg)) == NULL)
		return WYMCP_ERR_NOMEM;
	if (!ctx->out.streaming) {
		/*
		 * Set first: the head is out (or the request is
		 * cancelled), so the final response must not write its own.
		 */
		ctx->out.streaming = 1;
		if (put(ctx, SSE_HEAD, sizeof(SSE_HEAD) - 1))
			return WYMCP_ERR_IO;
	}
	if (put(ctx, "event: message\ndata: ", 21) ||
	    put(ctx, s, strlen(s)) || put(ctx, "\n\n", 2))
		return WYMCP_ERR_IO;
	if (ctx->out.io->flush != NULL &&
	    ctx->out.io->flush(ctx->out.io->arg) != 0) {
		cancel(ctx);
		return WYMCP_ERR_IO;
	}
	return WYMCP_OK;
}

/*
 * Add `val` (taken) to `o` under `key`.  0, or -1 (val released).
 */
static int
add(struct json_object *o, const char *key, struct json_object *val)
{
	if (val == NULL)
		return -1;
	if (json_object_object_add(o, key, val)) {
		json_object_put(val);
		return -1;
	}
	return 0;
}

/*
 * Send the notification `method` with `params` (taken: released
 * whatever happens) on the request's stream, opening the stream first.
 * Returns WYMCP_OK (also when there is nowhere to send it, as under the
 * testing API), WYMCP_ERR_IO when the client has gone away (nothing is
 * written), WYMCP_ERR_NOMEM.  Only notifications go on the stream:
 * streamable-http.mdx "MUST NOT send independent JSON-RPC requests".
 */
enum wymcp_err
wymcp__notify(struct wymcp_ctx *ctx, const char *method,
    struct json_object *params)
{
	struct json_object	*msg = NULL;
	enum wymcp_err		 rc = WYMCP_ERR_NOMEM;

	if (ctx->out.cancelled || ctx->out.expired) {
		rc = WYMCP_ERR_IO;
		goto out;
	}
	if (ctx->out.io == NULL) {
		rc = WYMCP_OK;
		goto out;
	}
	if (params == NULL || (msg = json_object_new_object()) == NULL ||
	    add(msg, "jsonrpc", json_object_new_string("2.0")) ||
	    add(msg, "method", json_object_new_string(method)))
		goto out;
	rc = add(msg, "params", params) ? WYMCP_ERR_NOMEM : WYMCP_OK;
	params = NULL;		/* msg has it, or add() released it */
	if (rc == WYMCP_OK)
		rc = event(ctx, msg);
out:
	json_object_put(params);
	json_object_put(msg);
	return rc;
}

/*
 * A request of the server's own on the stream (held.c: a 2025-11-25
 * client is asked on the tool call's held stream, 2025-11-25
 * basic/transports.mdx "MAY send JSON-RPC requests and notifications
 * before sending the JSON-RPC response").  `msg` is not taken.
 */
enum wymcp_err
wymcp__stream_message(struct wymcp_ctx *ctx, struct json_object *msg)
{
	if (ctx->out.cancelled || ctx->out.io == NULL)
		return WYMCP_ERR_IO;
	return event(ctx, msg);
}

/*
 * An SSE comment (": text"), which clients ignore: it keeps a held
 * stream alive through the web server's and the client's read
 * timeouts.  Opens the stream when it is not.
 */
enum wymcp_err
wymcp__stream_comment(struct wymcp_ctx *ctx, const char *text)
{
	if (ctx->out.cancelled || ctx->out.io == NULL)
		return WYMCP_ERR_IO;
	if (!ctx->out.streaming) {
		ctx->out.streaming = 1;
		if (put(ctx, SSE_HEAD, sizeof(SSE_HEAD) - 1))
			return WYMCP_ERR_IO;
	}
	if (put(ctx, ": ", 2) || put(ctx, text, strlen(text)) ||
	    put(ctx, "\n\n", 2))
		return WYMCP_ERR_IO;
	if (ctx->out.io->flush != NULL &&
	    ctx->out.io->flush(ctx->out.io->arg) != 0) {
		cancel(ctx);
		return WYMCP_ERR_IO;
	}
	return WYMCP_OK;
}

/*
 * The final response of a streamed request, as the stream's last event
 * (streamable-http.mdx: "The final JSON-RPC response SHOULD terminate
 * the stream"; the web server ends the HTTP response when the request
 * ends).  The status is 200 whatever the response says: it went out
 * with the first event.  `body` NULL (no reply was built) becomes
 * -32603.  WYMCP_ERR_IO when the client is gone: nothing is written.
 */
enum wymcp_err
wymcp__stream_final(struct wymcp_ctx *ctx, struct json_object *body)
{
	struct json_object	*err = NULL;
	enum wymcp_err		 rc;

	if (ctx->out.cancelled)
		return WYMCP_ERR_IO;
	if (body == NULL && (body = err = wymcp__error(ctx->req.id,
	    WYMCP__INTERNAL_ERROR, "Internal error", NULL)) == NULL)
		return WYMCP_ERR_NOMEM;
	rc = event(ctx, body);
	json_object_put(err);
	return rc;
}

/*
 * Is a run open in the calling thread?  Notifications belong to the
 * request's run: none before the method runs, none after its result,
 * none from another thread (the request's memory is not shared).
 */
static int
in_run(const struct wymcp_ctx *ctx)
{
	return ctx->call.run != NULL &&
	    pthread_equal(ctx->call.run->thread, pthread_self());
}

/*
 * A JSON number for `d`: an integer when d is integral (50, not the
 * 50.0 json-c writes for a double), else the shortest of %.15g and
 * %.17g that reads back as d.  NULL on allocation failure.
 */
static struct json_object *
number(double d)
{
	char	 buf[40], *p;

	if (d >= -9007199254740992.0 && d <= 9007199254740992.0 &&
	    (double)(int64_t)d == d)
		return json_object_new_int64((int64_t)d);
	snprintf(buf, sizeof(buf), "%.15g", d);
	if (strtod(buf, NULL) != d)
		snprintf(buf, sizeof(buf), "%.17g", d);
	/* A locale with a decimal comma must not leak into JSON. */
	if ((p = strchr(buf, ',')) != NULL)
		*p = '.';
	return json_object_new_double_s(d, buf);
}

/*
 * progress.mdx: notifications/progress with the request's token.  The
 * first value may be anything (the reference sends 0); each later one
 * must be larger than the last one sent.  The value is recorded only
 * once it went out, so a refused call can be retried.
 */
enum wymcp_err
wymcp_progress(struct wymcp_ctx *ctx, double progress, double total,
    const char *message)
{
	struct json_object	*p;
	enum wymcp_err		 rc;

	if (ctx == NULL)
		return WYMCP_ERR_INVAL;
	/* Token or not: a tool that reports progress learns it is over. */
	if (wymcp__stopped(ctx))
		return WYMCP_ERR_IO;
	/* In a task, the message becomes its statusMessage (runner). */
	if (ctx->call.in_task && message != NULL &&
	    wymcp__utf8_valid(message, strlen(message)))
		ctx->call.task_msg = wymcp_strdup(ctx, message);
	if (ctx->out.progress_token == NULL)
		return WYMCP_OK;
	if (!isfinite(progress) || isnan(total) || isinf(total) ||
	    (ctx->out.have_progress && !(progress > ctx->out.last_progress)) ||
	    (message != NULL && !wymcp__utf8_valid(message,
	    strlen(message))))
		return WYMCP_ERR_INVAL;
	if (!in_run(ctx))
		return WYMCP_ERR_NORUN;

	if ((p = json_object_new_object()) == NULL)
		return WYMCP_ERR_NOMEM;
	if (add(p, "progressToken", json_object_get(ctx->out.progress_token)) ||
	    add(p, "progress", number(progress)) ||
	    (total >= 0 && add(p, "total", number(total))) ||
	    (message != NULL && add(p, "message",
	    json_object_new_string(message)))) {
		json_object_put(p);
		return WYMCP_ERR_NOMEM;
	}
	if ((rc = wymcp__notify(ctx, "notifications/progress", p)) ==
	    WYMCP_OK) {
		ctx->out.have_progress = 1;
		ctx->out.last_progress = progress;
	}
	return rc;
}

/*
 * Looks as wymcp__stopped() does, without recording (the context is
 * the caller's const): the next wymcp_progress() or wymcp_log(), or the
 * end of the request, records and logs it.
 */
int
wymcp_cancelled(const struct wymcp_ctx *ctx)
{
	if (ctx == NULL)
		return 0;
	if (ctx->out.cancelled || ctx->out.expired)
		return 1;
	if (ctx->out.deadline > 0 && wymcp__clock_ms() >= ctx->out.deadline)
		return 1;
	return ctx->out.gone != NULL && ctx->out.gone(ctx->out.io->arg);
}

/*
 * Copy `s` with every byte that does not start a valid UTF-8 sequence
 * replaced by '?' (a log line may be cut in the middle of a character,
 * or carry a tool's raw bytes).  In place; `s` is NUL-terminated.
 */
static void
utf8_scrub(char *s)
{
	unsigned char	*p = (unsigned char *)s;
	size_t		 i = 0, n, len = strlen(s);

	while (i < len) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		n = (p[i] & 0xe0) == 0xc0 ? 2 : (p[i] & 0xf0) == 0xe0 ? 3 :
		    (p[i] & 0xf8) == 0xf0 ? 4 : 0;
		if (n != 0 && n <= len - i &&
		    wymcp__utf8_valid((char *)p + i, n)) {
			i += n;
			continue;
		}
		p[i++] = '?';
	}
}

/*
 * The logger name of a notifications/message: the module of the tool
 * being called, else "wymcp" (logging.mdx: "Use consistent logger
 * names").
 */
static const char *
logger(const struct wymcp_ctx *ctx)
{
	const struct wymcp__tool *t;

	if (ctx->call.name != NULL &&
	    (t = wymcp__ctx_find_tool(ctx, ctx->call.name)) != NULL &&
	    t->mod->name != NULL)
		return t->mod->name;
	return "wymcp";
}

/*
 * logging.mdx: send one log line as notifications/message when the
 * request asked for log messages at this priority or a more severe one
 * (never without _meta logLevel: "MUST NOT emit notifications/message
 * for a request that does not include this field").  `msg` is
 * scrubbed to valid UTF-8 in place.  Called by wymcp_log() (util.c).
 *
 * The data is the line as the tool wrote it.  logging.mdx "Security":
 * log messages MUST NOT contain credentials, secrets, personal data or
 * internals that could aid an attack.  wymcp cannot tell; the tool
 * author is responsible for what a wymcp_log() line says, since any
 * client that asks for logLevel gets it.
 */
enum wymcp_err
wymcp__notify_log(struct wymcp_ctx *ctx, int prio, char *msg)
{
	struct json_object	*p;

	if (ctx->out.cancelled || ctx->out.expired)
		return WYMCP_ERR_IO;
	if (ctx->out.loglevel < 0 || prio > ctx->out.loglevel || !in_run(ctx))
		return WYMCP_OK;
	if (prio < 0)
		prio = 0;
	utf8_scrub(msg);
	if ((p = json_object_new_object()) == NULL)
		return WYMCP_ERR_NOMEM;
	if (add(p, "level",
	    json_object_new_string(wymcp__log_level_name(prio))) ||
	    add(p, "logger", json_object_new_string(logger(ctx))) ||
	    add(p, "data", json_object_new_string(msg))) {
		json_object_put(p);
		return WYMCP_ERR_NOMEM;
	}
	return wymcp__notify(ctx, "notifications/message", p);
}

/*
 * A tool's log line: to the server's log when its priority is wanted
 * there, and to the client as notifications/message when the request
 * asked for it with _meta logLevel at this priority or below
 * (server/utilities/logging.mdx; stream.c).  The two filters are
 * independent.  What a line says is the tool author's responsibility:
 * a client that asks for logLevel receives it, so it must not carry
 * credentials, secrets or personal data (logging.mdx "Security").
 * Every call looks whether the request is stopped (wymcp__stopped()),
 * so a tool that only logs learns it too: WYMCP_ERR_IO.
 */
enum wymcp_err
wymcp_log(struct wymcp_ctx *ctx, int prio, const char *fmt, ...)
{
	char		 buf[1024];
	va_list		 ap;
	enum wymcp_err	 rc = WYMCP_OK;
	int		 server, client, stopped;

	if (ctx == NULL || fmt == NULL)
		return WYMCP_ERR_INVAL;
	stopped = wymcp__stopped(ctx);
	server = ctx->srv != NULL && ctx->srv->logfn != NULL &&
	    prio <= ctx->srv->logmax;
	client = ctx->out.loglevel >= 0 && prio <= ctx->out.loglevel &&
	    !stopped;
	/* A task's info lines and above become its statusMessage. */
	if (ctx->call.in_task && prio <= WYMCP_LOG_INFO) {
		va_start(ap, fmt);
		vsnprintf(buf, sizeof(buf), fmt, ap);
		va_end(ap);
		if (wymcp__utf8_valid(buf, strlen(buf)))
			ctx->call.task_msg = wymcp_strdup(ctx, buf);
	}
	if (server || client) {
		va_start(ap, fmt);
		vsnprintf(buf, sizeof(buf), fmt, ap);
		va_end(ap);
		if (server)
			ctx->srv->logfn(ctx->srv->logarg, prio,
			    ctx->req.idstr, buf);
		if (client)
			rc = wymcp__notify_log(ctx, prio, buf);
	}
	return stopped ? WYMCP_ERR_IO : rc;
}
