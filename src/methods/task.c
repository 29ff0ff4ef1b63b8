/*
 * task.c - tasks/get, tasks/update, tasks/cancel, and the task runner
 * (the tasks extension, io.modelcontextprotocol/tasks, tasks.md)
 *
 * A task is run the seed's way: from the top, with every answer so far,
 * through the same call core and run boundary as a request
 * (wymcp__tool_call()).  A round that stops at questions parks the task
 * input_required with them; tasks/update stores the answers and makes
 * it ready again; the next runner runs the tool again.  A runner that
 * dies leaves its lease to expire, and another runner claims the task;
 * the re-execution rule makes that safe.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "methods/methods.h"

#define LOOK_MS		250	/* wymcp_cancelled() looks at the store */

/*
 * The common start of tasks/get, tasks/update and tasks/cancel: the
 * request must declare the extension (-32021) and name a taskId
 * (-32602).  Returns the id, or NULL after replying.
 */
static const char *
task_id(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	struct json_object	*v;

	if (!wymcp__tasks_declared(ctx)) {
		wymcp__reply_tasks_missing(ctx, r, wymcp_printf(ctx, "%s "
		    "needs the extension " WYMCP__TASKS_EXT " declared in "
		    "the request's clientCapabilities", ctx->req.method));
		return NULL;
	}
	if (ctx->srv->tasks == NULL) {
		wymcp__reply_invalid(ctx, r,
		    "Failed to retrieve task: Task not found");
		return NULL;
	}
	if (!json_object_object_get_ex(ctx->req.params, "taskId", &v) ||
	    !json_object_is_type(v, json_type_string)) {
		wymcp__reply_invalid(ctx, r,
		    "Invalid params: taskId must be a string");
		return NULL;
	}
	if (wymcp__ctx_assigns(ctx) != WYMCP_OK) {
		wymcp__reply_nomem(ctx, r);
		return NULL;
	}
	return json_object_get_string(v);
}

static void
not_found(struct wymcp_ctx *ctx, struct wymcp__reply *r, int rc)
{
	if (rc == WYMCP__STORE_DOWN)
		wymcp__reply_store_down(ctx, r);
	else if (rc < 0)
		wymcp__reply_error(ctx, r, 500, WYMCP__INTERNAL_ERROR,
		    "Internal error: the task store failed", NULL);
	else
		wymcp__reply_invalid(ctx, r,
		    "Failed to retrieve task: Task not found");
}

/* An empty acknowledgement: {"resultType":"complete"}. */
static void
ack(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	wymcp__reply_result(ctx, r, wymcp__result_object());
}

/* tasks/get (tasks.md "Task Polling"): the DetailedTask. */
void
wymcp__tasks_get(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	struct wymcp__task	 t;
	const char		*id;
	int			 rc;

	if ((id = task_id(ctx, r)) == NULL)
		return;
	if ((rc = wymcp__store_get(ctx->srv, id, ctx->who.principal,
	    &t)) != 0) {
		not_found(ctx, r, rc);
		return;
	}
	wymcp__reply_result(ctx, r, wymcp__task_object(&t, "complete", 1));
	wymcp__task_clear(&t);
}

/* What a change inside the store's transaction needs. */
struct change {
	const char		*principal;
	struct json_object	*responses;	/* tasks/update's */
	int			 claim;		/* the runner's claim */
	struct wymcp__task	*out;		/* the runner's outcome */
	int			 renew;		/* lease ms, for renew() */
	const char		*message;	/* renew(): new statusMessage */
	int			 cancelled;	/* renew() saw the mark */
	int			 found;		/* the principal matched */
	char			 bad[400];	/* a refused answer: why */
};

static int
mine(const struct wymcp__task *t, const struct change *c)
{
	return strcmp(t->principal, c->principal != NULL ? c->principal :
	    "") == 0 && (t->ttl == 0 || wymcp__now_ms() < t->created + t->ttl);
}

/*
 * tasks/update inside the transaction: move each response whose key is
 * outstanding from the pending requests to the answers; keys not
 * outstanding are ignored (tasks.md "SHOULD ignore").  With none left
 * outstanding, the task is ready to run again.
 */
static int
update_fn(struct wymcp__task *t, void *arg)
{
	struct change		*c = arg;
	struct json_object	*pending = NULL, *answers = NULL, *v;
	const char		*p, *a;
	char			*np = NULL, *na = NULL, why[256];
	int			 n = 0;

	if (!mine(t, c))
		return 0;
	c->found = 1;
	if (t->status != WYMCP__TASK_INPUT || t->pending == NULL)
		return 0;
	pending = wymcp__parse(t->pending, strlen(t->pending));
	answers = t->answers != NULL ?
	    wymcp__parse(t->answers, strlen(t->answers)) :
	    json_object_new_object();
	if (pending == NULL || answers == NULL)
		goto fail;
	/* Every answer to an outstanding request must fit it: or none. */
	json_object_object_foreach(c->responses, k0, r0) {
		if (json_object_object_get_ex(pending, k0, &v) &&
		    !wymcp__answer_ok(v, r0, why, sizeof(why))) {
			snprintf(c->bad, sizeof(c->bad), "Invalid params: "
			    "inputResponses %.64s: %s", k0, why);
			json_object_put(pending);
			json_object_put(answers);
			return 0;
		}
	}
	json_object_object_foreach(c->responses, k, resp) {
		if (!json_object_object_get_ex(pending, k, &v))
			continue;
		json_object_object_add(answers, k, json_object_get(resp));
		json_object_object_del(pending, k);
		n++;
	}
	if (n == 0) {
		json_object_put(pending);
		json_object_put(answers);
		return 0;
	}
	p = wymcp__json(pending);
	a = wymcp__json(answers);
	if (p == NULL || a == NULL || strlen(a) > WYMCP__TASK_TEXT_MAX ||
	    (np = strdup(p)) == NULL || (na = strdup(a)) == NULL)
		goto fail;
	free(t->pending);
	free(t->answers);
	t->pending = np;
	t->answers = na;
	if (json_object_object_length(pending) == 0) {
		free(t->pending);
		t->pending = NULL;
		t->status = WYMCP__TASK_WORKING;
		t->queued = 1;
		t->lease = 0;
		free(t->message);
		t->message = NULL;
	}
	t->updated = wymcp__now_ms();
	json_object_put(pending);
	json_object_put(answers);
	return 1;
fail:
	free(np);
	free(na);
	json_object_put(pending);
	json_object_put(answers);
	return -1;
}

/*
 * tasks/update (tasks.md "Task Update Requests"): inputResponses must
 * be an object of objects, and an answer to an outstanding request must
 * fit it (-32602, nothing stored); answers to keys not outstanding are
 * ignored, and so is an update of a finished task; the acknowledgement
 * is empty.
 */
void
wymcp__tasks_update(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	struct change		 c;
	struct json_object	*resp;
	const char		*id;
	int			 rc;

	if ((id = task_id(ctx, r)) == NULL)
		return;
	if (!json_object_object_get_ex(ctx->req.params, "inputResponses",
	    &resp) || !wymcp__responses_ok(resp)) {
		wymcp__reply_invalid(ctx, r, "Invalid params: inputResponses "
		    "must be an object of result objects");
		return;
	}
	memset(&c, 0, sizeof(c));
	c.principal = ctx->who.principal;
	c.responses = resp;
	if (!wymcp__task_id_ok(id))
		rc = 1;
	else if ((rc = wymcp__store_modify(ctx->srv, id, update_fn,
	    &c)) == 0 && !c.found)
		rc = 1;
	if (rc != 0) {
		not_found(ctx, r, rc);
		return;
	}
	if (c.bad[0] != '\0') {
		wymcp__reply_invalid(ctx, r, c.bad);
		return;
	}
	ack(ctx, r);
}

/*
 * tasks/cancel inside the transaction: mark it.  A task no runner holds
 * (waiting for input, or not yet claimed) ends cancelled at once; a
 * running one ends so when its runner sees the mark.
 */
static int
cancel_fn(struct wymcp__task *t, void *arg)
{
	struct change	*c = arg;

	if (!mine(t, c))
		return 0;
	c->found = 1;
	if (WYMCP__TASK_TERMINAL(t->status) || t->cancel)
		return 0;
	t->cancel = 1;
	if (t->status == WYMCP__TASK_INPUT ||
	    t->lease < wymcp__now_ms()) {
		t->status = WYMCP__TASK_CANCELLED;
		t->queued = 0;
		t->lease = 0;
		free(t->pending);
		t->pending = NULL;
	}
	t->updated = wymcp__now_ms();
	return 1;
}

/* tasks/cancel (tasks.md "Task Cancellation"): an empty ack. */
void
wymcp__tasks_cancel(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	struct change	 c;
	const char	*id;
	int		 rc;

	if ((id = task_id(ctx, r)) == NULL)
		return;
	memset(&c, 0, sizeof(c));
	c.principal = ctx->who.principal;
	if (!wymcp__task_id_ok(id))
		rc = 1;
	else if ((rc = wymcp__store_modify(ctx->srv, id, cancel_fn,
	    &c)) == 0 && !c.found)
		rc = 1;
	if (rc != 0) {
		not_found(ctx, r, rc);
		return;
	}
	ack(ctx, r);
}

/*
 * The runner's side.  A run's io writes nowhere (a task's progress and
 * log lines have no stream), and its gone() is how wymcp_cancelled()
 * learns of tasks/cancel: every LOOK_MS at most it reads the mark and
 * renews the lease.  The store's time is not the tool's: while the
 * renewal commits, the time limit stops (renew()).
 */
struct runner {
	struct wymcp_server	*srv;
	struct wymcp_ctx	*ctx;		/* the run's */
	const char		*id;
	int			 claim;		/* our claim (t->claims) */
	long long		 looked;	/* ms */
	int			 cancelled;
	const char		*told;		/* statusMessage stored */
};

static int
discard(void *arg, const char *buf, size_t len)
{
	(void)arg;
	(void)buf;
	(void)len;
	return 0;
}

static long
no_body(void *arg, char *buf, size_t len)
{
	(void)arg;
	(void)buf;
	(void)len;
	return 0;
}

/* Renew our lease (still ours: same claim) and read the cancel mark. */
static int
renew_fn(struct wymcp__task *t, void *arg)
{
	struct change	*c = arg;
	char		*m;

	if (t->claims != c->claim || WYMCP__TASK_TERMINAL(t->status))
		return 0;
	c->cancelled = t->cancel;
	t->lease = wymcp__now_ms() + c->renew;
	if (c->message != NULL && (m = wymcp__strdup_max(c->message,
	    WYMCP__TASK_MSG_MAX)) != NULL) {
		free(t->message);
		t->message = m;
		t->updated = wymcp__now_ms();
	}
	return 1;
}

/*
 * Renew the lease in the store with `c', the tool's time limit stopped
 * meanwhile: a store slow to commit (a busy disk, a row another session
 * holds) costs the tool none of its time.  While the store works, the
 * deadline is twice the lease away, so that the worker's watch stops a
 * runner stuck in a store that long (the task is another runner's by
 * then); after, the tool's deadline moves on by what the store took.
 * A renewal that took longer than the lease is told to the store watch
 * (WYMCP_STORE_SLOW): the status page counts it.
 */
static int
renew(struct runner *ru, struct change *c)
{
	struct wymcp_ctx	*ctx = ru->ctx;
	long long		 deadline = ctx->out.deadline, start, spent;
	long			 limit = ctx->out.limit_ms;
	int			 rc;

	start = wymcp__clock_ms();
	if (deadline > 0)
		wymcp__deadline_set(ctx, start + 2LL * c->renew, limit);
	rc = wymcp__store_modify(ru->srv, ru->id, renew_fn, c);
	spent = wymcp__clock_ms() - start;
	if (deadline > 0)
		wymcp__deadline_set(ctx, deadline + spent, limit);
	if (spent > c->renew)
		wymcp__store_slow(ru->srv, ru->id, spent, c->renew);
	return rc;
}

static int
task_gone(void *arg)
{
	struct runner	*ru = arg;
	struct change	 c;
	long long	 now;

	if (ru->cancelled)
		return 1;
	now = wymcp__now_ms();
	if (now - ru->looked < LOOK_MS)
		return 0;
	memset(&c, 0, sizeof(c));
	c.claim = ru->claim;
	c.renew = (int)wymcp__store_lease(ru->srv);
	/* The tool's last progress or log line, when it is new. */
	if (ru->ctx->call.task_msg != ru->told)
		c.message = ru->told = ru->ctx->call.task_msg;
	if (renew(ru, &c) == 0 && c.cancelled)
		ru->cancelled = 1;
	/* From the end of this look: a slow store is looked at less. */
	ru->looked = wymcp__now_ms();
	return ru->cancelled;
}

/* A copy of `s' into *to (NULL stays NULL): 0, or -1 out of memory. */
static int
copy(char **to, const char *s)
{
	free(*to);
	*to = NULL;
	return s == NULL || (*to = strdup(s)) != NULL ? 0 : -1;
}

/*
 * Write a copy of the outcome `c->out' over the task (the outcome is
 * kept, should the commit fail), if the task is still ours (no other
 * runner claimed it after our lease ran out): c->found says so.  A
 * task marked for cancellation ends cancelled, unless it finished.
 */
static int
finish_fn(struct wymcp__task *t, void *arg)
{
	struct change		*c = arg;
	struct wymcp__task	*o = c->out;

	c->found = 0;
	if (t->claims != c->claim || WYMCP__TASK_TERMINAL(t->status))
		return 0;
	c->found = 1;
	if (copy(&t->result, o->result) != 0 ||
	    copy(&t->error, o->error) != 0 ||
	    copy(&t->pending, o->pending) != 0 ||
	    copy(&t->message, o->message) != 0)
		return -1;
	t->status = o->status;
	if (t->cancel && t->status != WYMCP__TASK_COMPLETED &&
	    t->status != WYMCP__TASK_FAILED) {
		t->status = WYMCP__TASK_CANCELLED;
		free(t->pending);
		t->pending = NULL;
	}
	t->queued = 0;
	t->lease = 0;
	t->updated = wymcp__now_ms();
	return 1;
}

/*
 * Store the outcome `out' of task `id' under claim `claim': 0 when it
 * is stored or the task is no longer ours (*ours says which), else as
 * wymcp__store_modify().  Renews the lease when the outcome could not
 * be written but the task could (a full disk takes a small write
 * sooner than a large one).
 */
static int
finish(struct wymcp_server *srv, const char *id, int claim,
    struct wymcp__task *out, int *ours)
{
	struct change	 c;
	int		 rc;

	memset(&c, 0, sizeof(c));
	c.claim = claim;
	c.out = out;
	rc = wymcp__store_modify(srv, id, finish_fn, &c);
	*ours = rc == 0 && c.found;
	if (rc == 1)
		rc = 0;		/* gone: expired, or purged */
	if (rc != 0) {
		memset(&c, 0, sizeof(c));
		c.claim = claim;
		c.renew = (int)wymcp__store_lease(srv);
		(void)wymcp__store_modify(srv, id, renew_fn, &c);
	}
	return rc;
}

/* A failed outcome with JSON-RPC error `code' and `message'. */
static void
failed(struct wymcp__task *out, int code, const char *message)
{
	struct json_object	*e;

	out->status = WYMCP__TASK_FAILED;
	if ((e = json_object_new_object()) == NULL)
		return;
	json_object_object_add(e, "code", json_object_new_int(code));
	json_object_object_add(e, "message",
	    json_object_new_string(message));
	out->error = wymcp__strdup_max(wymcp__json(e), WYMCP__TASK_TEXT_MAX);
	out->message = wymcp__strdup_max(message, WYMCP__TASK_MSG_MAX);
	json_object_put(e);
}

/* Member `name' of the stored object text `text', owned by the request. */
static struct json_object *
stored(struct wymcp_ctx *ctx, const char *text, const char *name)
{
	struct json_object	*o, *v;

	if (text == NULL || (o = wymcp_own(ctx, wymcp__parse(text,
	    strlen(text)))) == NULL)
		return NULL;
	if (name == NULL)
		return o;
	return json_object_object_get_ex(o, name, &v) ? v : NULL;
}

/*
 * The idempotency key of task `t': the one its call had (context's
 * "key"), or, for a task stored by an older wymcp, one made from its
 * id: the same for every run, on every runner.
 */
static void
task_key(struct wymcp_ctx *ctx, const struct wymcp__task *t,
    struct json_object *key)
{
	unsigned char	 raw[WYMCP__IDEM_LEN + 2];
	const char	*k = key != NULL ? json_object_get_string(key) : NULL;
	size_t		 n = sizeof(raw);

	/* 22 characters, no more: raw holds what they decode to. */
	if (k != NULL && strlen(k) == wymcp__b64url_len(WYMCP__IDEM_LEN) &&
	    wymcp__b64url_decode(raw, &n, k, strlen(k)) == 0 &&
	    n == WYMCP__IDEM_LEN)
		memcpy(ctx->call.key, raw, WYMCP__IDEM_LEN);
	else
		crypto_generichash(ctx->call.key, WYMCP__IDEM_LEN,
		    (const unsigned char *)t->id, strlen(t->id),
		    (const unsigned char *)"wymcp-task-key", 14);
	ctx->call.have_key = 1;
}

/* Read the call's reply into an outcome. */
static void
outcome(struct wymcp__reply *r, struct wymcp__task *out)
{
	struct json_object	*v, *res, *req;
	const char		*s;

	if (r->body == NULL) {
		failed(out, WYMCP__INTERNAL_ERROR, "Internal error");
		return;
	}
	if (json_object_object_get_ex(r->body, "error", &v)) {
		out->status = WYMCP__TASK_FAILED;
		out->error = wymcp__strdup_max(wymcp__json(v),
		    WYMCP__TASK_TEXT_MAX);
		if (json_object_object_get_ex(v, "message", &v))
			out->message = wymcp__strdup_max(
			    json_object_get_string(v), WYMCP__TASK_MSG_MAX);
		return;
	}
	if (!json_object_object_get_ex(r->body, "result", &res)) {
		failed(out, WYMCP__INTERNAL_ERROR, "Internal error");
		return;
	}
	if (json_object_object_get_ex(res, "resultType", &v) &&
	    strcmp(json_object_get_string(v), "input_required") == 0 &&
	    json_object_object_get_ex(res, "inputRequests", &req)) {
		out->status = WYMCP__TASK_INPUT;
		out->pending = wymcp__strdup_max(wymcp__json(req),
		    WYMCP__TASK_TEXT_MAX);
		out->message = strdup("Waiting for input from the client");
		if (out->pending == NULL)
			failed(out, WYMCP__INTERNAL_ERROR, "Internal error: "
			    "the task's input requests are too large");
		return;
	}
	s = wymcp__json(res);
	if (s == NULL || (out->result = wymcp__strdup_max(s,
	    WYMCP__TASK_TEXT_MAX)) == NULL) {
		failed(out, WYMCP__INTERNAL_ERROR, "Internal error: the "
		    "task's result is too large to keep");
		return;
	}
	out->status = WYMCP__TASK_COMPLETED;
}

/*
 * The tool is done: storing its outcome is the store's time, as a
 * renewal is.  The watch gives it twice the lease (the task is another
 * runner's after that), not what is left of the tool's.
 */
static void
store_time(struct wymcp_server *srv, struct wymcp_ctx *ctx)
{
	if (ctx->out.deadline > 0)
		wymcp__deadline_set(ctx, wymcp__clock_ms() +
		    2 * wymcp__store_lease(srv), ctx->out.limit_ms);
}

/* The run's request context, as the creating request left it. */
static void
task_ctx(struct wymcp_ctx *ctx, const struct wymcp__task *t)
{
	struct json_object	*v;

	ctx->req.method = "tools/call";
	ctx->req.idstr = t->id;
	ctx->req.version = WYMCP_PROTOCOL_VERSION;
	ctx->req.caps = stored(ctx, t->context, "caps");
	ctx->who.assigns = stored(ctx, t->context, "assigns");
	if (ctx->who.assigns == NULL)
		ctx->who.assigns = wymcp_own(ctx, json_object_new_object());
	ctx->who.principal = t->principal[0] != '\0' ? t->principal : NULL;
	if ((v = stored(ctx, t->context, "scopes")) != NULL)
		ctx->who.scopes = json_object_get_string(v);
	task_key(ctx, t, stored(ctx, t->context, "key"));
	ctx->call.answers = stored(ctx, t->answers, NULL);
	/* The creating request's span: the run's parent (detail.c). */
	if ((v = stored(ctx, t->context, "traceparent")) != NULL &&
	    (ctx->req.meta = wymcp_own(ctx, json_object_new_object())) !=
	    NULL)
		json_object_object_add(ctx->req.meta, "traceparent",
		    json_object_get(v));
	ctx->call.in_task = 1;
	ctx->call.task_id = t->id;
}

/* Run claimed task `t' once, into *out. */
static void
run_task(struct wymcp_server *srv, const struct wymcp__task *t,
    struct wymcp__task *out)
{
	struct wymcp_ctx	 ctx;
	struct wymcp__reply	 r = { 0, NULL, NULL, NULL, 0 };
	struct wymcp_io		 io;
	struct runner		 ru;
	const struct wymcp__tool *tool;
	struct json_object	*args;
	const char		*msg;

	memset(&io, 0, sizeof(io));
	memset(&ru, 0, sizeof(ru));
	ru.srv = srv;
	ru.ctx = &ctx;
	ru.id = t->id;
	ru.claim = t->claims;
	ru.looked = wymcp__now_ms();
	io.read = no_body;
	io.write = discard;
	io.arg = &ru;
	io.gone = task_gone;
	wymcp__ctx_init(&ctx, srv, NULL);
	ctx.out.io = &io;
	ctx.out.gone = task_gone;
	task_ctx(&ctx, t);
	args = stored(&ctx, t->args, NULL);
	if (srv->timeout_ms > 0)
		wymcp__deadline_set(&ctx, wymcp__clock_ms() +
		    (long long)srv->timeout_ms, (long)srv->timeout_ms);
	else
		wymcp__ctx_publish(&ctx, 0);
	if ((tool = wymcp__tool_lookup(srv, t->tool, strlen(t->tool))) ==
	    NULL) {
		failed(out, WYMCP__INVALID_PARAMS, "Unknown tool");
		goto done;
	}
	/* The whole server's tools: the mount list was checked at create. */
	if (wymcp__ctx_mount(&ctx) != WYMCP_OK || ctx.who.assigns == NULL) {
		failed(out, WYMCP__INTERNAL_ERROR, "Internal error");
		goto done;
	}
	wymcp__tool_call(&ctx, &r, tool, args);
	if (wymcp__expired(&ctx)) {
		msg = wymcp_printf(&ctx, "Task timed out: its tool ran past "
		    "the time limit of %lu ms", srv->timeout_ms);
		failed(out, WYMCP__INTERNAL_ERROR, msg != NULL ? msg :
		    "Task timed out");
	} else
		outcome(&r, out);
done:
	/* The tool saw wymcp_cancelled() say 1: whatever it returned. */
	if (ru.cancelled) {
		out->status = WYMCP__TASK_CANCELLED;
		free(out->result);
		free(out->pending);
		out->result = out->pending = NULL;
	}
	store_time(srv, &ctx);
	/* The run's detail (an audit line, a span), as a request's. */
	wymcp__ctx_done(&ctx, 0, r.body, 0);
	json_object_put(r.body);
	wymcp__ctx_free(&ctx);
}

/*
 * Store the outcome this runner holds (its store was down when the
 * tool finished): 1 when it is stored, or dropped because the task is
 * no longer ours or its TTL ended, -1 while the store is still down.
 */
static int
store_held(struct wymcp_server *srv)
{
	struct wymcp__store	*s = srv->tasks;
	struct wymcp__task	*h = &s->held;
	int			 ours;

	if (finish(srv, h->id, s->held_claim, h, &ours) != 0) {
		if (h->ttl == 0 || wymcp__now_ms() < h->created + h->ttl)
			return -1;
		wymcp__log(srv, h->id, WYMCP_LOG_ERR, "task %s: its outcome "
		    "could not be stored before its TTL ended", h->id);
	} else if (ours)
		wymcp__log(srv, h->id, WYMCP_LOG_INFO, "task %s: %s, "
		    "stored once the task store was back", h->id,
		    wymcp__task_status_name(h->status));
	else
		wymcp__log(srv, h->id, WYMCP_LOG_WARNING, "task %s: its "
		    "outcome was not stored: the task was taken over or "
		    "ended meanwhile", h->id);
	wymcp__task_clear(h);
	memset(h, 0, sizeof(*h));
	return 1;
}

int
wymcp_server_task_unstored(const struct wymcp_server *srv)
{
	return srv != NULL && srv->tasks != NULL &&
	    srv->tasks->held.id[0] != '\0';
}

int
wymcp_server_run_task(struct wymcp_server *srv)
{
	struct wymcp__store	*s;
	struct wymcp__task	 t, out;
	char			 msg[128];
	int			 rc, ours;

	if (srv == NULL || (s = srv->tasks) == NULL)
		return -1;
	if (s->held.id[0] != '\0')
		return store_held(srv);
	if ((rc = wymcp__store_claim(srv, &t)) != 0)
		return rc < 0 ? -1 : 0;
	memset(&out, 0, sizeof(out));
	if (t.cancel)
		out.status = WYMCP__TASK_CANCELLED;
	else if (t.attempts > WYMCP__TASK_ATTEMPTS) {
		snprintf(msg, sizeof(msg), "Internal error: the task's runner "
		    "died %d times running it", t.attempts);
		failed(&out, WYMCP__INTERNAL_ERROR, msg);
	} else {
		wymcp__log(srv, t.id, WYMCP_LOG_DEBUG, "task %s: running %s "
		    "(attempt %d)", t.id, t.tool, t.attempts + 1);
		run_task(srv, &t, &out);
	}
	rc = finish(srv, t.id, t.claims, &out, &ours);
	if (rc == WYMCP__STORE_DOWN) {
		/* Keep it: the next call stores it (store_held()). */
		wymcp__log(srv, t.id, WYMCP_LOG_WARNING, "task %s: %s, kept "
		    "until the task store is back", t.id,
		    wymcp__task_status_name(out.status));
		memcpy(out.id, t.id, sizeof(out.id));
		out.created = t.created;
		out.ttl = t.ttl;
		s->held = out;
		s->held_claim = t.claims;
		wymcp__task_clear(&t);
		return -1;
	}
	if (rc != 0)
		wymcp__log(srv, t.id, WYMCP_LOG_ERR, "task %s: its outcome "
		    "could not be stored", t.id);
	else
		wymcp__log(srv, t.id, WYMCP_LOG_INFO, "task %s: %s%s", t.id,
		    wymcp__task_status_name(out.status), ours ? "" :
		    " (not stored: the task was taken over or ended)");
	wymcp__task_clear(&out);
	wymcp__task_clear(&t);
	return 1;
}
