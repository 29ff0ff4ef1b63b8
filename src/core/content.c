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

#include "core/core.h"

/*
 * A builder was given NULL for `arg': the tool's bug, not a lack of
 * memory.  Logged, and kept for wymcp_result_add(), which then says
 * WYMCP_ERR_INVAL, and for the tool's failure message (result.c), so
 * that the call fails with the reason and the worker is not recycled.
 * Returns NULL.
 */
static struct json_object *
null_arg(struct wymcp_ctx *ctx, const char *fn, const char *arg)
{
	const char	*m;

	if (ctx == NULL)
		return NULL;
	if ((m = wymcp_printf(ctx, "%s(): %s is NULL", fn, arg)) == NULL)
		return NULL;
	ctx->call.builder_null = m;
	wymcp__ctx_log(ctx, WYMCP_LOG_ERR, "%s", m);
	return NULL;
}

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

	if (text == NULL)
		return null_arg(ctx, "wymcp_text", "text");
	if ((o = block(ctx, "text")) == NULL)
		return NULL;
	return wymcp__put_str(o, "text", text) ? NULL : o;
}

struct json_object *
wymcp_textf(struct wymcp_ctx *ctx, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	if (fmt == NULL)
		return null_arg(ctx, "wymcp_textf", "the format");
	if (ctx == NULL)
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
media(struct wymcp_ctx *ctx, const char *fn, const char *type,
    const char *b64, const char *mime)
{
	struct json_object	*o;

	if (b64 == NULL)
		return null_arg(ctx, fn, "the base64 data");
	if (mime == NULL)
		return null_arg(ctx, fn, "the MIME type");
	if ((o = block(ctx, type)) == NULL)
		return NULL;
	if (wymcp__put_str(o, "data", b64) || wymcp__put_str(o, "mimeType",
	    mime))
		return NULL;
	return o;
}

struct json_object *
wymcp_image(struct wymcp_ctx *ctx, const char *b64, const char *mime)
{
	return media(ctx, "wymcp_image", "image", b64, mime);
}

struct json_object *
wymcp_audio(struct wymcp_ctx *ctx, const char *b64, const char *mime)
{
	return media(ctx, "wymcp_audio", "audio", b64, mime);
}

struct json_object *
wymcp_resource_link(struct wymcp_ctx *ctx, const char *uri,
    const char *name, const char *mime)
{
	struct json_object	*o;

	if (uri == NULL)
		return null_arg(ctx, "wymcp_resource_link", "the URI");
	if (name == NULL)
		return null_arg(ctx, "wymcp_resource_link", "the name");
	if ((o = block(ctx, "resource_link")) == NULL)
		return NULL;
	if (wymcp__put_str(o, "uri", uri) || wymcp__put_str(o, "name", name))
		return NULL;
	if (mime != NULL && wymcp__put_str(o, "mimeType", mime))
		return NULL;
	return o;
}

/* An embedded resource: {"type":"resource","resource":{uri,mime,key}}. */
static struct json_object *
embedded(struct wymcp_ctx *ctx, const char *fn, const char *uri,
    const char *mime, const char *key, const char *val)
{
	struct json_object	*o, *r;

	if (uri == NULL)
		return null_arg(ctx, fn, "the URI");
	if (val == NULL)
		return null_arg(ctx, fn, key);
	if ((o = block(ctx, "resource")) == NULL)
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
	return embedded(ctx, "wymcp_resource_text", uri, mime, "text", text);
}

struct json_object *
wymcp_resource_blob(struct wymcp_ctx *ctx, const char *uri,
    const char *mime, const char *b64)
{
	return embedded(ctx, "wymcp_resource_blob", uri, mime, "blob", b64);
}
