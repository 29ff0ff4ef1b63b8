/*
 * taskmake.c - making tasks and showing them (the tasks extension,
 * io.modelcontextprotocol/tasks, tasks.md)
 *
 * A tools/call that becomes a task is stored before it is answered:
 * the CreateTaskResult goes out only once the store has committed the
 * row, so that a tasks/get on any worker of any host finds it ("MUST
 * NOT return CreateTaskResult until the task is durably created").  The
 * row carries what a runner needs to run the call again from the top:
 * the tool, its arguments, the principal, the client's capabilities and
 * the assigns.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "methods/methods.h"

/* Does this request's clientCapabilities declare the extension? */
int
wymcp__tasks_declared(const struct wymcp_ctx *ctx)
{
	struct json_object	*ext, *t;

	return ctx->req.caps != NULL &&
	    json_object_object_get_ex(ctx->req.caps, "extensions", &ext) &&
	    json_object_object_get_ex(ext, WYMCP__TASKS_EXT, &t) &&
	    json_object_is_type(t, json_type_object);
}

/*
 * -32021 naming the extension (tasks.md "Capability Negotiation"):
 * data.requiredCapabilities.extensions["io.modelcontextprotocol/tasks"].
 */
void
wymcp__reply_tasks_missing(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    const char *message)
{
	struct json_object	*data, *caps, *ext;

	data = json_object_new_object();
	caps = json_object_new_object();
	ext = json_object_new_object();
	json_object_object_add(ext, WYMCP__TASKS_EXT,
	    json_object_new_object());
	json_object_object_add(caps, "extensions", ext);
	json_object_object_add(data, "requiredCapabilities", caps);
	wymcp__reply_error(ctx, r, 400, WYMCP__MISSING_CAPABILITY,
	    message != NULL ? message : "Missing required client capability",
	    data);
}

/* ms since the epoch as ISO 8601 UTC with milliseconds. */
static struct json_object *
iso8601(long long ms)
{
	struct tm	 tm;
	time_t		 s = (time_t)(ms / 1000);
	char		 buf[80];

	if (gmtime_r(&s, &tm) == NULL)
		return json_object_new_string("1970-01-01T00:00:00.000Z");
	snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, (int)(ms % 1000));
	return json_object_new_string(buf);
}

/* Add the member `name' parsed from JSON text `text', if any. */
static void
add_json(struct json_object *o, const char *name, const char *text)
{
	struct json_object	*v;

	if (text == NULL || (v = wymcp__parse(text, strlen(text))) == NULL)
		return;
	json_object_object_add(o, name, v);
}

/*
 * A task as the wire shows it (tasks.md "Tasks"): resultType
 * `result_type' ("task" for CreateTaskResult, "complete" for tasks/get),
 * and with `detailed', the status's own member: result, error or
 * inputRequests (DetailedTask).  A new object; NULL when out of memory.
 */
struct json_object *
wymcp__task_object(const struct wymcp__task *t, const char *result_type,
    int detailed)
{
	struct json_object	*o;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	json_object_object_add(o, "resultType",
	    json_object_new_string(result_type));
	json_object_object_add(o, "taskId", json_object_new_string(t->id));
	json_object_object_add(o, "status",
	    json_object_new_string(wymcp__task_status_name(t->status)));
	if (t->message != NULL)
		json_object_object_add(o, "statusMessage",
		    json_object_new_string(t->message));
	json_object_object_add(o, "createdAt", iso8601(t->created));
	json_object_object_add(o, "lastUpdatedAt", iso8601(t->updated));
	json_object_object_add(o, "ttlMs", t->ttl > 0 ?
	    json_object_new_int64(t->ttl) : NULL);
	json_object_object_add(o, "pollIntervalMs",
	    json_object_new_int(WYMCP__TASK_POLL_MS));
	if (!detailed)
		return o;
	switch (t->status) {
	case WYMCP__TASK_COMPLETED:
		add_json(o, "result", t->result);
		break;
	case WYMCP__TASK_FAILED:
		add_json(o, "error", t->error);
		break;
	case WYMCP__TASK_INPUT:
		add_json(o, "inputRequests", t->pending);
		break;
	}
	return o;
}

/*
 * What a runner needs of the request besides the tool and arguments:
 * {"caps": clientCapabilities, "assigns": {...}, "scopes": "...",
 * "key": the call's idempotency key, "traceparent": the request's span
 * (with WYMCP_DETAIL_TRACE)}.  JSON text owned by the request,
 * or NULL when out of memory.
 */
static const char *
context_text(struct wymcp_ctx *ctx)
{
	struct json_object	*c;
	const char		*key;

	if ((c = wymcp_own(ctx, json_object_new_object())) == NULL)
		return NULL;
	if (ctx->req.caps != NULL)
		json_object_object_add(c, "caps",
		    json_object_get(ctx->req.caps));
	if (ctx->who.assigns != NULL)
		json_object_object_add(c, "assigns",
		    json_object_get(ctx->who.assigns));
	/* The token's scopes, checked at the call: the runner's too. */
	if (ctx->who.scopes != NULL)
		json_object_object_add(c, "scopes",
		    json_object_new_string(ctx->who.scopes));
	/* The key of the rounds before it became a task, or a new one. */
	if ((key = wymcp_idempotency_key(ctx)) == NULL)
		return NULL;
	json_object_object_add(c, "key", json_object_new_string(key));
	/* With spans, the run's is a child of this request's. */
	if ((ctx->srv->reqdetail & WYMCP_DETAIL_TRACE) &&
	    (key = wymcp_ctx_traceparent(ctx)) != NULL)
		json_object_object_add(c, "traceparent",
		    json_object_new_string(key));
	return wymcp__json(c);
}

/*
 * Is task `t' by itself larger than a quota's bytes (the principal's or
 * the store's)?  Then it never fits: reply -32602, not a retry.
 */
static int
too_large(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    const struct wymcp__task *t)
{
	const struct wymcp__quota *q = &ctx->srv->tasks->quota;
	long long	 b = wymcp__task_bytes(t);

	if ((q->bytes > 0 && b > q->bytes) || (q->store > 0 && b > q->store)) {
		wymcp__reply_invalid(ctx, r, "Invalid params: the task would "
		    "hold more bytes than a quota allows (--task-quota-bytes, "
		    "--task-store-max-bytes)");
		return 1;
	}
	return 0;
}

/*
 * The quota refused a new task (WYMCP__STORE_OVER_TASKS, _OVER_BYTES,
 * WYMCP__STORE_FULL): the principal's share is used, HTTP 429, or the
 * store's, HTTP 503 like a store that is down; both -32603 (tasks.md
 * "Protocol Errors": internal errors) with Retry-After, and data saying
 * which limit: {"quota": "tasks" | "bytes" | "store", "limit": N}.
 */
static void
refused(struct wymcp_ctx *ctx, struct wymcp__reply *r, int rc)
{
	const struct wymcp__quota *q = &ctx->srv->tasks->quota;
	struct json_object	*data;
	const char		*which, *msg;
	long long		 limit;
	int			 status = 429;

	if (rc == WYMCP__STORE_OVER_TASKS) {
		which = "tasks";
		limit = q->tasks;
		msg = "Too many tasks: this principal has as many unfinished "
		    "tasks as it may (--task-quota); try again when one has "
		    "finished";
	} else if (rc == WYMCP__STORE_OVER_BYTES) {
		which = "bytes";
		limit = q->bytes;
		msg = "Too many tasks: this principal's tasks hold as many "
		    "bytes as they may (--task-quota-bytes); try again when "
		    "some have expired";
	} else {
		which = "store";
		limit = q->store;
		status = 503;
		msg = "Internal error: the task store is full "
		    "(--task-store-max-bytes); try again later";
	}
	if ((data = json_object_new_object()) != NULL) {
		wymcp__put_str(data, "quota", which);
		json_object_object_add(data, "limit",
		    json_object_new_int64(limit));
	}
	wymcp__reply_error(ctx, r, status, WYMCP__INTERNAL_ERROR, msg, data);
	r->retry_after = status == 503 ? WYMCP__STORE_RETRY_S :
	    WYMCP__TASK_QUOTA_RETRY_S;
	wymcp__ctx_log(ctx, status == 503 ? WYMCP_LOG_WARNING : WYMCP_LOG_INFO,
	    "task refused: %s", status == 503 ? "the task store is full "
	    "(--task-store-max-bytes)" : rc == WYMCP__STORE_OVER_TASKS ?
	    "the principal's unfinished tasks are at --task-quota" :
	    "the principal's tasks are at --task-quota-bytes");
}

/*
 * tools/call of `tool' as a task: store it (status working, ready for
 * a runner) with the answers the call gathered so far, then answer
 * CreateTaskResult.  The arguments were checked against the input
 * schema already.
 */
void
wymcp__task_create(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    const char *tool, struct json_object *args)
{
	struct wymcp__task	 task;
	const char		*ctxt, *atxt;
	int			 rc;

	memset(&task, 0, sizeof(task));
	if ((atxt = wymcp__json(args)) == NULL ||
	    (ctxt = context_text(ctx)) == NULL) {
		wymcp__reply_nomem(ctx, r);
		return;
	}
	if (strlen(atxt) > WYMCP__TASK_TEXT_MAX ||
	    strlen(ctxt) > WYMCP__TASK_TEXT_MAX) {
		wymcp__reply_invalid(ctx, r, "Invalid params: the arguments "
		    "are too large for a task");
		return;
	}
	(void)wymcp__task_new_id(task.id);
	/* Pointers into the request's memory: put() copies them. */
	task.principal = (char *)(ctx->who.principal != NULL ?
	    ctx->who.principal : "");
	task.tool = (char *)tool;
	/* The answers gathered before wymcp_task_start(), if any. */
	if (ctx->call.answers != NULL &&
	    json_object_object_length(ctx->call.answers) > 0) {
		if ((task.answers = (char *)wymcp__json(
		    ctx->call.answers)) == NULL) {
			wymcp__reply_nomem(ctx, r);
			return;
		}
		if (strlen(task.answers) > WYMCP__TASK_TEXT_MAX) {
			wymcp__reply_invalid(ctx, r, "Invalid params: the "
			    "answers are too large for a task");
			return;
		}
	}
	task.args = (char *)atxt;
	task.context = (char *)ctxt;
	task.status = WYMCP__TASK_WORKING;
	task.queued = 1;
	task.created = task.updated = wymcp__now_ms();
	task.ttl = ctx->srv->tasks->ttl;
	if (too_large(ctx, r, &task))
		return;
	if ((rc = wymcp__store_put(ctx->srv, &task)) != 0) {
		if (rc == WYMCP__STORE_DOWN)
			wymcp__reply_store_down(ctx, r);
		else if (WYMCP__STORE_REFUSED(rc))
			refused(ctx, r, rc);
		else
			wymcp__reply_error(ctx, r, 500, WYMCP__INTERNAL_ERROR,
			    "Internal error: the task could not be stored",
			    NULL);
		return;
	}
	wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "tool %s: task %s created",
	    tool, task.id);
	wymcp__reply_result(ctx, r, wymcp__task_object(&task, "task", 0));
}
