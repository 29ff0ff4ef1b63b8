/*
 * events.c - events for listen streams: wymcp_notify_resource_updated()
 * and wymcp_notify_list_changed() record them in the request's arena;
 * the call core publishes them through the server's publish hook when
 * the run completes (wymcp__events_publish()), and forgets them when the
 * round ends at a question: the next run says them again.  The format
 * is the one wymcp_server_set_publish() documents, written here with
 * the library's own JSON writer (the URI escaped).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "core/core.h"

/* Record `json' (arena-owned, `len' bytes) to publish. */
static enum wymcp_err
record(struct wymcp_ctx *ctx, const char *json, size_t len)
{
	struct wymcp__event	*e, **p;

	if (json == NULL ||
	    (e = wymcp__arena_alloc(&ctx->arena, sizeof(*e))) == NULL)
		return WYMCP_ERR_NOMEM;
	e->next = NULL;
	e->json = json;
	e->len = len;
	for (p = &ctx->call.events; *p != NULL; p = &(*p)->next)
		continue;
	*p = e;
	ctx->call.nevents++;
	return WYMCP_OK;
}

/* The compact JSON of `o' copied into the arena; NULL out of memory. */
static const char *
text(struct wymcp_ctx *ctx, struct json_object *o, size_t *len)
{
	const char	*s;

	if (o == NULL || (s = wymcp__json(o)) == NULL) {
		json_object_put(o);
		return NULL;
	}
	*len = strlen(s);
	s = wymcp_strdup(ctx, s);
	json_object_put(o);
	return s;
}

enum wymcp_err
wymcp_notify_resource_updated(struct wymcp_ctx *ctx, const char *uri)
{
	struct json_object	*o;
	const char		*s;
	size_t			 len = 0;

	if (ctx == NULL || uri == NULL || *uri == '\0' ||
	    strlen(uri) > WYMCP__URI_MAX || !wymcp__text_ok(uri) ||
	    ctx->call.nevents >= WYMCP__EVENTS_MAX)
		return WYMCP_ERR_INVAL;
	if ((o = json_object_new_object()) == NULL)
		return WYMCP_ERR_NOMEM;
	json_object_object_add(o, "v", json_object_new_int(1));
	json_object_object_add(o, "k", json_object_new_string("updated"));
	json_object_object_add(o, "uri", json_object_new_string(uri));
	s = text(ctx, o, &len);
	return record(ctx, s, len);
}

enum wymcp_err
wymcp_notify_list_changed(struct wymcp_ctx *ctx, int lists)
{
	static const char *const names[] = { "tools", "prompts",
		"resources" };
	struct json_object	*o, *a;
	const char		*s;
	size_t			 i, len = 0;

	if (ctx == NULL || (lists & (WYMCP_LIST_TOOLS | WYMCP_LIST_PROMPTS |
	    WYMCP_LIST_RESOURCES)) == 0 || (lists & ~(WYMCP_LIST_TOOLS |
	    WYMCP_LIST_PROMPTS | WYMCP_LIST_RESOURCES)) != 0 ||
	    ctx->call.nevents >= WYMCP__EVENTS_MAX)
		return WYMCP_ERR_INVAL;
	if ((o = json_object_new_object()) == NULL ||
	    (a = json_object_new_array()) == NULL) {
		json_object_put(o);
		return WYMCP_ERR_NOMEM;
	}
	for (i = 0; i < 3; i++)
		if (lists & (1 << i))
			json_object_array_add(a,
			    json_object_new_string(names[i]));
	json_object_object_add(o, "v", json_object_new_int(1));
	json_object_object_add(o, "k", json_object_new_string("list"));
	json_object_object_add(o, "lists", a);
	s = text(ctx, o, &len);
	return record(ctx, s, len);
}

void
wymcp__events_publish(struct wymcp_ctx *ctx)
{
	const struct wymcp_server *srv = ctx->srv;
	struct wymcp__event	*e;

	for (e = ctx->call.events; e != NULL; e = e->next) {
		wymcp__ctx_log(ctx, WYMCP_LOG_DEBUG, "event %.200s%s", e->json,
		    e->len > 200 ? "..." : "");
		if (srv->publish != NULL)
			srv->publish(srv->publish_arg, e->json, e->len);
	}
	wymcp__events_forget(ctx);
}

void
wymcp__events_forget(struct wymcp_ctx *ctx)
{
	ctx->call.events = NULL;
	ctx->call.nevents = 0;
}

void
wymcp_server_set_publish(struct wymcp_server *srv, wymcp_publish_fn fn,
    void *arg)
{
	if (srv == NULL)
		return;
	srv->publish = fn;
	srv->publish_arg = arg;
}
