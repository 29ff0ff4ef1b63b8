/*
 * result.c - what tools, read(), get() and complete() build
 *
 * CallToolResult (server/tools.mdx "Tool Result"), resource contents
 * (server/resources.mdx), prompt messages (server/prompts.mdx) and
 * completion values (server/utilities/completion.mdx).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

enum wymcp_err
wymcp_result_add(struct wymcp_result *res, struct json_object *content)
{
	/*
	 * A NULL block is a builder that failed: given a NULL (the tool's
	 * bug, said by the builder), else out of memory.
	 */
	if (content == NULL)
		return res != NULL && res->ctx->call.builder_null != NULL ?
		    WYMCP_ERR_INVAL : WYMCP_ERR_NOMEM;
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
	const char	*why;

	if (rc != WYMCP_OK) {
		res->is_error = 1;
		/* A builder's NULL, else why the call failed, else rc's. */
		if (rc == WYMCP_ERR_INVAL &&
		    res->ctx->call.builder_null != NULL)
			why = res->ctx->call.builder_null;
		else if ((why = wymcp__why_for(res->ctx, rc)) == NULL)
			why = wymcp_strerror(rc);
		if (json_object_array_length(res->content) == 0)
			wymcp_result_add(res, wymcp_text(res->ctx, why));
	}
	if (res->structured != NULL &&
	    json_object_array_length(res->content) == 0)
		wymcp_result_add(res, wymcp_json(res->ctx, res->structured));
}

/* Append {uri, mimeType?, <key>: val} to the contents. */
static enum wymcp_err
contents_add(struct wymcp_resource_result *res, const char *uri,
    const char *mime, const char *key, const char *val)
{
	struct json_object	*o;

	if (uri == NULL)
		uri = res->uri;
	if (!wymcp__text_ok(uri) || !wymcp__text_ok(mime) ||
	    (mime != NULL && *mime == '\0'))
		return WYMCP_ERR_INVAL;
	if ((o = json_object_new_object()) == NULL)
		return WYMCP_ERR_NOMEM;
	if (wymcp__put_str(o, "uri", uri) || wymcp__put_str(o, "mimeType",
	    mime) ||
	    wymcp__put_str(o, key, val) || json_object_array_add(res->contents,
	    o)) {
		json_object_put(o);
		return WYMCP_ERR_NOMEM;
	}
	return WYMCP_OK;
}

/* A text contents entry (TextResourceContents). */
enum wymcp_err
wymcp_contents_text(struct wymcp_resource_result *res, const char *uri,
    const char *mime, const char *text)
{
	if (res == NULL || text == NULL || !wymcp__text_ok(text))
		return WYMCP_ERR_INVAL;
	return contents_add(res, uri, mime, "text", text);
}

/* A binary contents entry (BlobResourceContents): base64 data. */
enum wymcp_err
wymcp_contents_blob(struct wymcp_resource_result *res, const char *uri,
    const char *mime, const char *b64)
{
	if (res == NULL || b64 == NULL || !wymcp__base64_ok(b64))
		return WYMCP_ERR_INVAL;
	return contents_add(res, uri, mime, "blob", b64);
}

/*
 * The _meta of the contents entry added last (MCP Apps' _meta.ui on a
 * resources/read content item): keys checked as a module's _meta, and
 * its "ui" as a ui:// resource's (wymcp_apps(3)).
 */
enum wymcp_err
wymcp_contents_meta(struct wymcp_resource_result *res,
    struct json_object *meta)
{
	struct json_object	*last;
	char			 why[128];
	size_t			 n;

	if (meta == NULL)
		return WYMCP_ERR_NOMEM;
	if (res == NULL || (n = json_object_array_length(res->contents)) ==
	    0 || !wymcp__meta_ok(meta, why, sizeof(why)) ||
	    !wymcp__ui_meta_ok(meta, WYMCP__UI_RESOURCE, why, sizeof(why)))
		return WYMCP_ERR_INVAL;
	last = json_object_array_get_idx(res->contents, n - 1);
	if (json_object_object_add(last, "_meta", json_object_get(meta)))
		return WYMCP_ERR_NOMEM;
	return WYMCP_OK;
}

/* Append a PromptMessage {role, content} to the result. */
enum wymcp_err
wymcp_prompt_message(struct wymcp_prompt_result *res, const char *role,
    struct json_object *content)
{
	struct json_object	*m, *t;

	/* A NULL block: a builder given a NULL, or out of memory. */
	if (content == NULL)
		return res != NULL && res->ctx->call.builder_null != NULL ?
		    WYMCP_ERR_INVAL : WYMCP_ERR_NOMEM;
	if (res == NULL || role == NULL || (strcmp(role, "user") != 0 &&
	    strcmp(role, "assistant") != 0) ||
	    !json_object_is_type(content, json_type_object) ||
	    !json_object_object_get_ex(content, "type", &t) ||
	    !json_object_is_type(t, json_type_string))
		return WYMCP_ERR_INVAL;
	if ((m = json_object_new_object()) == NULL)
		return WYMCP_ERR_NOMEM;
	if (wymcp__put_str(m, "role", role) ||
	    json_object_object_add(m, "content", json_object_get(content))) {
		json_object_put(m);
		return WYMCP_ERR_NOMEM;
	}
	if (json_object_array_add(res->messages, m)) {
		json_object_put(m);
		return WYMCP_ERR_NOMEM;
	}
	return WYMCP_OK;
}

/* Set the result's description (the last call wins). */
enum wymcp_err
wymcp_prompt_describe(struct wymcp_prompt_result *res, const char *d)
{
	struct json_object	*s;

	if (res == NULL || d == NULL || !wymcp__text_ok(d))
		return WYMCP_ERR_INVAL;
	if ((s = json_object_new_string(d)) == NULL)
		return WYMCP_ERR_NOMEM;
	json_object_put(res->description);
	res->description = s;
	return WYMCP_OK;
}

/*
 * Append a suggestion; the 101st is refused (completion.mdx: at most
 * 100 values), so a module can add until refused.
 */
enum wymcp_err
wymcp_completion_add(struct wymcp_completion *c, const char *v)
{
	struct json_object	*s;

	if (c == NULL || v == NULL || !wymcp__text_ok(v) ||
	    json_object_array_length(c->values) >= WYMCP__COMPLETION_MAX)
		return WYMCP_ERR_INVAL;
	if ((s = json_object_new_string(v)) == NULL)
		return WYMCP_ERR_NOMEM;
	if (json_object_array_add(c->values, s)) {
		json_object_put(s);
		return WYMCP_ERR_NOMEM;
	}
	return WYMCP_OK;
}

/* Say how many matches there are (< 0: unknown) and if more exist. */
void
wymcp_completion_total(struct wymcp_completion *c, long total, int more)
{
	if (c == NULL)
		return;
	c->total = total;
	c->has_more = more != 0;
	c->told = 1;
}
