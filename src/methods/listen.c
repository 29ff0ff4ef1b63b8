/*
 * listen.c - subscriptions/listen (basic/patterns/subscriptions.mdx)
 *
 * A listen names the notifications it wants (SubscriptionFilter); the
 * first frame of the stream is notifications/subscriptions/acknowledged
 * with the subset this server honours (the types it does not deliver
 * are left out, never an error), and every frame on the stream, the
 * closing result too, carries the subscription's id (the listen
 * request's JSON-RPC id) in _meta io.modelcontextprotocol/subscriptionId.
 *
 * Honoured here: taskIds (the tasks extension, with a store: tasks.md
 * "Task Status Notifications"), the caller's own tasks among those
 * named.  Each one's DetailedTask is sent at once and whenever it
 * changes (notifications/tasks), and the stream ends with the
 * graceful result when every one is finished, the client goes away, or
 * after LISTEN_MS (and before the request's time limit): this stream is
 * held by the worker, so it is bounded.  A listen that is honoured
 * nothing is acknowledged with an empty filter and ended at once.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <time.h>

#include "methods/methods.h"

#define LISTEN_MS	30000	/* longest listen */
#define LISTEN_IDS	32	/* task ids per listen */
#define LISTEN_POLL_MS	250
#define SUB_ID		"io.modelcontextprotocol/subscriptionId"

/* {"io.modelcontextprotocol/subscriptionId": id}, NULL out of memory. */
static struct json_object *
sub_meta(struct wymcp_ctx *ctx)
{
	struct json_object	*m;

	if ((m = json_object_new_object()) == NULL)
		return NULL;
	if (json_object_object_add(m, SUB_ID,
	    json_object_get(ctx->req.id)) != 0) {
		json_object_put(m);
		return NULL;
	}
	return m;
}

/* Send notification `method' with `params' (taken), tagged. */
static enum wymcp_err
notify(struct wymcp_ctx *ctx, const char *method, struct json_object *params)
{
	struct json_object	*m;

	if (params == NULL || (m = sub_meta(ctx)) == NULL) {
		json_object_put(params);
		return WYMCP_ERR_NOMEM;
	}
	json_object_object_add(params, "_meta", m);
	return wymcp__notify(ctx, method, params);
}

/* The task's notification: its DetailedTask, without resultType. */
static enum wymcp_err
notify_task(struct wymcp_ctx *ctx, const struct wymcp__task *t)
{
	struct json_object	*o;

	if ((o = wymcp__task_object(t, "complete", 1)) == NULL)
		return WYMCP_ERR_NOMEM;
	json_object_object_del(o, "resultType");
	return notify(ctx, "notifications/tasks", o);
}

/*
 * Is `n' a SubscriptionFilter?  Each member the schema names has its
 * type (booleans, arrays of strings; taskIds, the tasks extension's,
 * an array of strings); members it does not name are left out of the
 * acknowledgement, not refused.  NULL, or why not.
 */
static const char *
filter_bad(struct json_object *n)
{
	static const char *const flags[] = { "toolsListChanged",
		"promptsListChanged", "resourcesListChanged" };
	static const char *const lists[] = { "resourceSubscriptions",
		"taskIds" };
	struct json_object	*v;
	size_t			 i, k;

	if (!json_object_is_type(n, json_type_object))
		return "Invalid params: notifications must be an object";
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (json_object_object_get_ex(n, flags[i], &v) &&
		    !json_object_is_type(v, json_type_boolean))
			return "Invalid params: a list-changed filter must be "
			    "a boolean";
	for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		if (!json_object_object_get_ex(n, lists[i], &v))
			continue;
		if (!json_object_is_type(v, json_type_array))
			return "Invalid params: resourceSubscriptions and "
			    "taskIds must be arrays of strings";
		for (k = 0; k < json_object_array_length(v); k++)
			if (!json_object_is_type(json_object_array_get_idx(v,
			    k), json_type_string))
				return "Invalid params: resourceSubscriptions "
				    "and taskIds must be arrays of strings";
	}
	return NULL;
}

/* The task ids being listened to, and how far each has been told. */
struct watched {
	const char	*id[LISTEN_IDS];
	long long	 seen[LISTEN_IDS];
	int		 done[LISTEN_IDS];
	size_t		 n;
};

/*
 * The caller's own tasks among `ids', at most LISTEN_IDS, into *w and
 * the array `ok' (the acknowledged ones).  0, or WYMCP__STORE_DOWN.
 */
static int
own_tasks(struct wymcp_ctx *ctx, struct json_object *ids,
    struct json_object *ok, struct watched *w)
{
	struct wymcp__task	 t;
	struct json_object	*v;
	size_t			 k;
	int			 rc;

	for (k = 0; k < json_object_array_length(ids) && w->n < LISTEN_IDS;
	    k++) {
		v = json_object_array_get_idx(ids, k);
		rc = wymcp__store_get(ctx->srv, json_object_get_string(v),
		    ctx->who.principal, &t);
		if (rc == WYMCP__STORE_DOWN)
			return rc;
		if (rc != 0)
			continue;
		wymcp__task_clear(&t);
		w->id[w->n] = json_object_get_string(v);
		w->seen[w->n] = -1;
		w->done[w->n] = 0;
		w->n++;
		json_object_array_add(ok, json_object_get(v));
	}
	return 0;
}

/* Tell each watched task's changes until all are finished, or the end. */
static enum wymcp_err
follow(struct wymcp_ctx *ctx, struct watched *w)
{
	struct wymcp__task	 t;
	struct timespec		 ts = { 0, LISTEN_POLL_MS * 1000000L };
	long long		 end;
	size_t			 i, left = w->n;

	end = wymcp__clock_ms() + LISTEN_MS;
	if (ctx->out.deadline > 0 && ctx->out.deadline - 1000 < end)
		end = ctx->out.deadline - 1000;
	while (left > 0 && !wymcp__stopped(ctx)) {
		for (i = 0; i < w->n; i++) {
			if (w->done[i] || wymcp__store_get(ctx->srv, w->id[i],
			    ctx->who.principal, &t) != 0)
				continue;
			if (t.updated != w->seen[i]) {
				w->seen[i] = t.updated;
				if (notify_task(ctx, &t) != WYMCP_OK) {
					wymcp__task_clear(&t);
					return WYMCP_ERR_IO;
				}
			}
			if (WYMCP__TASK_TERMINAL(t.status)) {
				w->done[i] = 1;
				left--;
			}
			wymcp__task_clear(&t);
		}
		if (left == 0 || wymcp__clock_ms() >= end)
			break;
		nanosleep(&ts, NULL);
	}
	return WYMCP_OK;
}

void
wymcp__subscriptions_listen(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	struct json_object	*n, *ids, *honoured, *ok, *ack, *res, *m;
	struct watched		 w;
	const char		*bad;

	if (!json_object_object_get_ex(ctx->req.params, "notifications",
	    &n)) {
		wymcp__reply_invalid(ctx, r, "Invalid params: "
		    "subscriptions/listen needs notifications");
		return;
	}
	if ((bad = filter_bad(n)) != NULL) {
		wymcp__reply_invalid(ctx, r, bad);
		return;
	}
	memset(&w, 0, sizeof(w));
	if ((honoured = wymcp_own(ctx, json_object_new_object())) == NULL) {
		wymcp__reply_nomem(ctx, r);
		return;
	}
	/* Task status: the tasks extension's, with a store. */
	if (json_object_object_get_ex(n, "taskIds", &ids) &&
	    ctx->srv->tasks != NULL) {
		if (!wymcp__tasks_declared(ctx)) {
			wymcp__reply_tasks_missing(ctx, r, "Task status "
			    "notifications need the extension "
			    WYMCP__TASKS_EXT);
			return;
		}
		if (wymcp__ctx_assigns(ctx) != WYMCP_OK ||
		    (ok = json_object_new_array()) == NULL) {
			wymcp__reply_nomem(ctx, r);
			return;
		}
		json_object_object_add(honoured, "taskIds", ok);
		if (own_tasks(ctx, ids, ok, &w) != 0) {
			wymcp__reply_store_down(ctx, r);
			return;
		}
	}
	if ((ack = json_object_new_object()) == NULL) {
		wymcp__reply_nomem(ctx, r);
		return;
	}
	json_object_object_add(ack, "notifications",
	    json_object_get(honoured));
	if (notify(ctx, "notifications/subscriptions/acknowledged", ack) !=
	    WYMCP_OK)
		return;
	if (w.n > 0 && follow(ctx, &w) != WYMCP_OK)
		return;
	/* The graceful end: the result, tagged too. */
	if ((res = wymcp__result_object()) == NULL ||
	    (m = sub_meta(ctx)) == NULL) {
		json_object_put(res);
		wymcp__reply_nomem(ctx, r);
		return;
	}
	json_object_object_add(res, "_meta", m);
	wymcp__reply_result(ctx, r, res);
}
