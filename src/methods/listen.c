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
 * Two kinds of stream:
 *
 *  - list changes and resource updates (toolsListChanged,
 *    promptsListChanged, resourcesListChanged, resourceSubscriptions),
 *    when the program holds streams (the io's listen_* members:
 *    wymcp-fcgi's hub).  The worker checks the filter, asks the program
 *    for a slot, writes the head and the acknowledgement, and hands the
 *    connection over: the program writes the notifications, the
 *    keep-alives and the end, and the worker is free at once.  The
 *    lists honoured are the ones this server has (tools always;
 *    prompts and resources when some are loaded; resource updates when
 *    resources are);
 *  - task status (taskIds, the tasks extension, with a store: tasks.md
 *    "Task Status Notifications"), the caller's own tasks among those
 *    named.  Each one's DetailedTask is sent at once and whenever it
 *    changes (notifications/tasks), and the stream ends with the
 *    graceful result when every one is finished, the client goes away,
 *    or after LISTEN_MS (and before the request's time limit): this
 *    stream is held by the worker, so it is bounded.  A listen naming
 *    taskIds is this kind, whatever else it names.
 *
 * A listen that is honoured nothing is acknowledged with an empty
 * filter and ended at once.
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

/*
 * The list and resource types of filter `n' this server delivers, into
 * `honoured' and *l; how many.  URIs past WYMCP_LISTEN_URIS_MAX are
 * not kept (nor acknowledged).
 */
static int
pushed(struct wymcp_ctx *ctx, struct json_object *n,
    struct json_object *honoured, struct wymcp_listen *l)
{
	static const struct {
		const char	*name;
		int		 list;
	} kinds[] = {
		{ "toolsListChanged", WYMCP_LIST_TOOLS },
		{ "promptsListChanged", WYMCP_LIST_PROMPTS },
		{ "resourcesListChanged", WYMCP_LIST_RESOURCES },
	};
	const struct wymcp_server *srv = ctx->srv;
	struct json_object	*v, *ok;
	const char		**uris;
	size_t			 i, k, nres;
	int			 has, count = 0;

	nres = srv->nresources + srv->ntemplates;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		has = kinds[i].list == WYMCP_LIST_TOOLS ||
		    (kinds[i].list == WYMCP_LIST_PROMPTS &&
		    srv->nprompts > 0) ||
		    (kinds[i].list == WYMCP_LIST_RESOURCES && nres > 0);
		if (!has || !json_object_object_get_ex(n, kinds[i].name, &v) ||
		    !json_object_get_boolean(v))
			continue;
		json_object_object_add(honoured, kinds[i].name,
		    json_object_new_boolean(1));
		l->lists |= kinds[i].list;
		count++;
	}
	if (nres == 0 || !json_object_object_get_ex(n,
	    "resourceSubscriptions", &v) || json_object_array_length(v) == 0)
		return count;
	k = json_object_array_length(v);
	if (k > WYMCP_LISTEN_URIS_MAX)
		k = WYMCP_LISTEN_URIS_MAX;
	if ((ok = json_object_new_array()) == NULL ||
	    (uris = wymcp_alloc(ctx, k * sizeof(*uris))) == NULL) {
		json_object_put(ok);
		return -1;
	}
	for (i = 0; i < k; i++) {
		uris[i] = json_object_get_string(
		    json_object_array_get_idx(v, i));
		json_object_array_add(ok, json_object_get(
		    json_object_array_get_idx(v, i)));
	}
	json_object_object_add(honoured, "resourceSubscriptions", ok);
	l->uris = uris;
	l->nuris = k;
	return count + 1;
}

/*
 * A notifications/cancelled (basic/patterns/cancellation.mdx): when it
 * names a request id and the program holds streams, published, so that
 * the listen of that id and the same caller ends wherever it is held.
 * The client's closing of the stream ends it too; this is for a client
 * that says so as well.
 */
void
wymcp__listen_cancelled(struct wymcp_ctx *ctx)
{
	const struct wymcp_server *srv = ctx->srv;
	struct json_object	*id, *ev;
	const char		*s;

	if (srv->publish == NULL || ctx->req.params == NULL ||
	    !json_object_object_get_ex(ctx->req.params, "requestId", &id) ||
	    (!json_object_is_type(id, json_type_string) &&
	    !json_object_is_type(id, json_type_int)) ||
	    (ev = json_object_new_object()) == NULL)
		return;
	json_object_object_add(ev, "v", json_object_new_int(1));
	json_object_object_add(ev, "k", json_object_new_string("cancel"));
	json_object_object_add(ev, "who",
	    json_object_new_string(wymcp__ctx_who(ctx)));
	json_object_object_add(ev, "id", json_object_get(id));
	if ((s = wymcp__json(ev)) != NULL && strlen(s) < 4096)
		srv->publish(srv->publish_arg, s, strlen(s));
	json_object_put(ev);
}

/* The listen's result, tagged: its graceful end.  NULL out of memory. */
static struct json_object *
closing(struct wymcp_ctx *ctx)
{
	struct json_object	*res, *m;

	if ((res = wymcp__result_object()) == NULL ||
	    (m = sub_meta(ctx)) == NULL) {
		json_object_put(res);
		return NULL;
	}
	json_object_object_add(res, "_meta", m);
	return res;
}

/*
 * The whole response that ends the stream, as JSON text owned by the
 * request, for the program that holds it; NULL out of memory.
 */
static const char *
end_text(struct wymcp_ctx *ctx)
{
	struct wymcp__reply	 e = { 0, NULL, NULL, NULL, 0 };
	const char		*s;

	wymcp__reply_result(ctx, &e, closing(ctx));
	s = e.status == 200 && e.body != NULL ?
	    wymcp_strdup(ctx, wymcp__json(e.body)) : NULL;
	json_object_put(e.body);
	return s;
}

/* The program holds all the streams it may: 503, or this principal's 429. */
static void
listen_refused(struct wymcp_ctx *ctx, struct wymcp__reply *r, int why)
{
	if (why == -2) {
		wymcp__reply_error(ctx, r, 429, WYMCP__INTERNAL_ERROR,
		    "Too many listen streams: this principal holds its share "
		    "of the server's (--max-listeners-per-principal)", NULL);
		wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "listen refused: the "
		    "principal's share is used");
	} else {
		wymcp__reply_error(ctx, r, 503, WYMCP__INTERNAL_ERROR,
		    "Too many listen streams: the server holds as many as it "
		    "may now (--max-listeners); try again shortly", NULL);
		wymcp__ctx_log(ctx, WYMCP_LOG_WARNING, "listen refused: "
		    "--max-listeners reached, or the hub is restarting");
	}
	r->retry_after = 5;
}

/*
 * Task status, the tasks extension's, with a store: 1 when the filter
 * names taskIds (those the caller may see into `honoured' and w), 0
 * when it does not, -1 when the request is answered (into r).
 */
static int
task_status(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    struct json_object *n, struct json_object *honoured, struct watched *w)
{
	struct json_object	*ids = NULL, *ok;

	if (!json_object_object_get_ex(n, "taskIds", &ids) ||
	    ctx->srv->tasks == NULL || ids == NULL)
		return 0;
	if (!wymcp__tasks_declared(ctx)) {
		wymcp__reply_tasks_missing(ctx, r, "Task status "
		    "notifications need the extension " WYMCP__TASKS_EXT);
		return -1;
	}
	if (wymcp__ctx_assigns(ctx) != WYMCP_OK ||
	    (ok = json_object_new_array()) == NULL) {
		wymcp__reply_nomem(ctx, r);
		return -1;
	}
	json_object_object_add(honoured, "taskIds", ok);
	if (own_tasks(ctx, ids, ok, w) != 0) {
		wymcp__reply_store_down(ctx, r);
		return -1;
	}
	return 1;
}

/* subscriptions/listen: the filter acknowledged, then the stream. */
void
wymcp__subscriptions_listen(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	const struct wymcp_io	*io = ctx->out.listen_io;
	struct json_object	*n, *honoured, *ack;
	struct wymcp_listen	 l;
	struct watched		 w;
	const char		*bad;
	int			 rc, tasks, hub = 0;

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
	memset(&l, 0, sizeof(l));
	if ((honoured = wymcp_own(ctx, json_object_new_object())) == NULL) {
		wymcp__reply_nomem(ctx, r);
		return;
	}
	if ((tasks = task_status(ctx, r, n, honoured, &w)) < 0)
		return;
	/* Lists and resources: held by the program, when it holds any. */
	if (tasks == 0 && io != NULL) {
		if ((rc = pushed(ctx, n, honoured, &l)) < 0 ||
		    wymcp__ctx_assigns(ctx) != WYMCP_OK ||
		    (l.id = wymcp__json(ctx->req.id)) == NULL ||
		    (l.id = wymcp_strdup(ctx, l.id)) == NULL) {
			wymcp__reply_nomem(ctx, r);
			return;
		}
		l.principal = ctx->who.principal;
		l.who = wymcp__ctx_who(ctx);
		l.mount = wymcp__param(ctx, WYMCP__P_WYMCP_TOOLS);
		if (rc > 0 && (hub = io->listen_hold(io->arg, &l)) < 0) {
			listen_refused(ctx, r, hub);
			return;
		}
		hub = rc > 0;
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
	if (hub) {
		/* The program has the connection from here on. */
		if (!ctx->out.cancelled && (l.end = end_text(ctx)) != NULL &&
		    io->listen_hand(io->arg, &l) == 0) {
			ctx->out.handed = 1;
			return;
		}
		wymcp__ctx_log(ctx, WYMCP_LOG_WARNING, "a listen stream could "
		    "not be handed over: ended");
	}
	if (w.n > 0 && follow(ctx, &w) != WYMCP_OK)
		return;
	/* The graceful end: the result, tagged too. */
	wymcp__reply_result(ctx, r, closing(ctx));
}

/*
 * A 2025-11-25 client's GET (2025-11-25 basic/transports.mdx "Listening
 * for Messages from the Server"), for the session it names (opened by
 * the caller): a stream of the session's list changes and of the
 * resources it subscribes to (resources/subscribe, on any worker or
 * host: legacy.c publishes it), held by the program like a listen.
 * A session id that does not open is 404 (the caller's; without one
 * the caller answers 405); without SSE in Accept, 400.  The stream
 * opens with a comment, and has no closing response: the program ends
 * the request.
 */
void
wymcp__legacy_get(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	const struct wymcp_io	*io = ctx->out.listen_io;
	const struct wymcp_server *srv = ctx->srv;
	struct wymcp_listen	 l;
	char			*key;
	int			 rc;

	if (ctx->req.session_caps == NULL) {
		wymcp__reply_error(ctx, r, 400, WYMCP__INVALID_REQUEST,
		    "Bad Request: a GET stream needs the Mcp-Session-Id of "
		    "an initialized session", NULL);
		return;		/* (an empty header) */
	}
	if (!ctx->out.sse_ok) {
		wymcp__reply_error(ctx, r, 400, WYMCP__INVALID_REQUEST,
		    "Bad Request: a GET stream needs Accept: "
		    "text/event-stream", NULL);
		return;
	}
	memset(&l, 0, sizeof(l));
	if ((key = wymcp_alloc(ctx, WYMCP__SESSION_KEY_LEN + 1)) == NULL ||
	    wymcp__session_key(ctx, key) != 0 ||
	    wymcp__ctx_assigns(ctx) != WYMCP_OK) {
		wymcp__reply_nomem(ctx, r);
		return;
	}
	l.session = key;
	l.lists = WYMCP_LIST_TOOLS;
	if (srv->nprompts > 0)
		l.lists |= WYMCP_LIST_PROMPTS;
	if (srv->nresources + srv->ntemplates > 0)
		l.lists |= WYMCP_LIST_RESOURCES;
	l.principal = ctx->who.principal;
	l.who = wymcp__ctx_who(ctx);
	l.mount = wymcp__param(ctx, WYMCP__P_WYMCP_TOOLS);
	if ((rc = io->listen_hold(io->arg, &l)) < 0) {
		listen_refused(ctx, r, rc);
		return;
	}
	if (wymcp__stream_comment(ctx, "stream") == WYMCP_OK &&
	    io->listen_hand(io->arg, &l) == 0) {
		ctx->out.handed = 1;
		return;
	}
	/* Not handed over: the stream ends here, with nothing more. */
	ctx->out.cancelled = 1;
}
