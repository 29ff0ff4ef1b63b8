/*
 * content.c - pure content builders and the tool result
 *
 * Content blocks follow MCP 2026-07-28 schema.ts "ContentBlock":
 * TextContent, ImageContent, AudioContent, ResourceLink and
 * EmbeddedResource (server/tools.mdx "Tool Result").
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <string.h>

#include "extern.h"

/* A new request-owned object with "type" set; NULL on failure. */
static struct json_object *
block(struct wymcp_ctx *ctx, const char *type)
{
	struct json_object	*o;

	if (ctx == NULL)
		return NULL;
	if ((o = json_object_new_object()) == NULL)
		return NULL;
	if (wymcp__put_str(o, "type", type)) {
		json_object_put(o);
		return NULL;
	}
	return wymcp_own(ctx, o);
}

struct json_object *
wymcp_text(struct wymcp_ctx *ctx, const char *text)
{
	struct json_object	*o;

	if (text == NULL || (o = block(ctx, "text")) == NULL)
		return NULL;
	return wymcp__put_str(o, "text", text) ? NULL : o;
}

struct json_object *
wymcp_textf(struct wymcp_ctx *ctx, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	if (ctx == NULL || fmt == NULL)
		return NULL;
	va_start(ap, fmt);
	s = wymcp__arena_vprintf(&ctx->arena, fmt, ap);
	va_end(ap);
	return s == NULL ? NULL : wymcp_text(ctx, s);
}

struct json_object *
wymcp_json(struct wymcp_ctx *ctx, struct json_object *value)
{
	/* json-c serializes NULL as the literal null. */
	return wymcp_text(ctx, wymcp__json(value));
}

/* Image and audio share one shape: data (base64) and mimeType. */
static struct json_object *
media(struct wymcp_ctx *ctx, const char *type, const char *b64,
    const char *mime)
{
	struct json_object	*o;

	if (b64 == NULL || mime == NULL || (o = block(ctx, type)) == NULL)
		return NULL;
	if (wymcp__put_str(o, "data", b64) || wymcp__put_str(o, "mimeType", mime))
		return NULL;
	return o;
}

struct json_object *
wymcp_image(struct wymcp_ctx *ctx, const char *b64, const char *mime)
{
	return media(ctx, "image", b64, mime);
}

struct json_object *
wymcp_audio(struct wymcp_ctx *ctx, const char *b64, const char *mime)
{
	return media(ctx, "audio", b64, mime);
}

struct json_object *
wymcp_resource_link(struct wymcp_ctx *ctx, const char *uri,
    const char *name, const char *mime)
{
	struct json_object	*o;

	if (uri == NULL || name == NULL ||
	    (o = block(ctx, "resource_link")) == NULL)
		return NULL;
	if (wymcp__put_str(o, "uri", uri) || wymcp__put_str(o, "name", name))
		return NULL;
	if (mime != NULL && wymcp__put_str(o, "mimeType", mime))
		return NULL;
	return o;
}

/* An embedded resource: {"type":"resource","resource":{uri,mime,key}}. */
static struct json_object *
embedded(struct wymcp_ctx *ctx, const char *uri, const char *mime,
    const char *key, const char *val)
{
	struct json_object	*o, *r;

	if (uri == NULL || val == NULL || (o = block(ctx, "resource")) == NULL)
		return NULL;
	if ((r = json_object_new_object()) == NULL)
		return NULL;
	if (json_object_object_add(o, "resource", r)) {
		json_object_put(r);
		return NULL;
	}
	if (wymcp__put_str(r, "uri", uri) ||
	    (mime != NULL && wymcp__put_str(r, "mimeType", mime)) ||
	    wymcp__put_str(r, key, val))
		return NULL;
	return o;
}

struct json_object *
wymcp_resource_text(struct wymcp_ctx *ctx, const char *uri,
    const char *mime, const char *text)
{
	return embedded(ctx, uri, mime, "text", text);
}

struct json_object *
wymcp_resource_blob(struct wymcp_ctx *ctx, const char *uri,
    const char *mime, const char *b64)
{
	return embedded(ctx, uri, mime, "blob", b64);
}

enum wymcp_err
wymcp_result_add(struct wymcp_result *res, struct json_object *content)
{
	/* A NULL block is a builder that failed: out of memory. */
	if (content == NULL)
		return WYMCP_ERR_NOMEM;
	if (res == NULL || !json_object_is_type(content, json_type_object))
		return WYMCP_ERR_INVAL;
	if (json_object_array_add(res->content, json_object_get(content))) {
		json_object_put(content);
		return WYMCP_ERR_NOMEM;
	}
	return WYMCP_OK;
}

enum wymcp_err
wymcp_result_structured(struct wymcp_result *res, struct json_object *value)
{
	if (res == NULL || value == NULL)
		return WYMCP_ERR_INVAL;
	/* The value stays owned by whoever owned it; keep a reference. */
	json_object_put(res->structured);
	res->structured = json_object_get(value);
	return WYMCP_OK;
}

enum wymcp_err
wymcp_result_error(struct wymcp_result *res, const char *fmt, ...)
{
	va_list			 ap;
	char			*s;
	struct json_object	*t;

	if (res == NULL)
		return WYMCP_ERR_TOOL;
	res->is_error = 1;
	if (fmt == NULL)
		return WYMCP_ERR_TOOL;
	va_start(ap, fmt);
	s = wymcp__arena_vprintf(&res->ctx->arena, fmt, ap);
	va_end(ap);
	if (s != NULL && (t = wymcp_text(res->ctx, s)) != NULL)
		wymcp_result_add(res, t);
	return WYMCP_ERR_TOOL;
}

/* Put the result's own references (a cleanup hook). */
static void
result_free(void *arg)
{
	struct wymcp_result	*res = arg;

	json_object_put(res->content);
	json_object_put(res->structured);
}

/* A new, empty result owned by the request; NULL on failure. */
struct wymcp_result *
wymcp__result_new(struct wymcp_ctx *ctx)
{
	struct wymcp_result	*res;

	if ((res = wymcp_alloc(ctx, sizeof(*res))) == NULL ||
	    (res->content = json_object_new_array()) == NULL)
		return NULL;
	res->ctx = ctx;
	if (wymcp_defer(ctx, result_free, res) != WYMCP_OK) {
		json_object_put(res->content);
		return NULL;
	}
	return res;
}

/*
 * After a tool returned `rc': a failure without content gets the error
 * sentence, and a structured result without content its serialization
 * as a text block (server/tools.mdx "Structured Content").
 */
void
wymcp__result_finish(struct wymcp_result *res, enum wymcp_err rc)
{
	if (rc != WYMCP_OK) {
		res->is_error = 1;
		if (json_object_array_length(res->content) == 0)
			wymcp_result_add(res, wymcp_text(res->ctx,
			    wymcp_strerror(rc)));
	}
	if (res->structured != NULL &&
	    json_object_array_length(res->content) == 0)
		wymcp_result_add(res, wymcp_json(res->ctx, res->structured));
}

/* The CallToolResult of a finished result (new object); NULL on failure. */
struct json_object *
wymcp__call_result(struct wymcp_result *res)
{
	struct json_object	*o;

	if ((o = json_object_new_object()) == NULL)
		return NULL;
	json_object_object_add(o, "resultType",
	    json_object_new_string("complete"));
	json_object_object_add(o, "content", json_object_get(res->content));
	if (res->structured != NULL)
		json_object_object_add(o, "structuredContent",
		    json_object_get(res->structured));
	if (res->is_error)
		json_object_object_add(o, "isError",
		    json_object_new_boolean(1));
	return o;
}

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

/* One round of a tool on the wire (wymcp__round()). */
int
wymcp__round_tool(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    const struct wymcp_tool *def, struct json_object *args,
    struct wymcp_result *res, enum wymcp_err *rc)
{
	struct tool_body	 tb;

	tb.def = def;
	tb.args = args;
	tb.res = res;
	return wymcp__round(ctx, r, def->name, args, tool_body, &tb, rc);
}

/* Run one round of a tool inside the boundary (wymcp__run()). */
enum wymcp__outcome
wymcp__run_tool(struct wymcp_ctx *ctx, const struct wymcp_tool *def,
    struct json_object *args, struct wymcp_result *res,
    struct wymcp__run *run, enum wymcp_err *rc)
{
	struct tool_body	 tb;

	tb.def = def;
	tb.args = args;
	tb.res = res;
	return wymcp__run(ctx, run, tool_body, &tb, rc);
}
