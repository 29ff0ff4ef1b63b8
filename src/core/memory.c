/* memory.c - request memory for tools: the arena behind wymcp_alloc() */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

/* Public wrappers: request memory for tools. */

void *
wymcp_alloc(struct wymcp_ctx *ctx, size_t sz)
{
	return ctx == NULL ? NULL : wymcp__arena_alloc(&ctx->arena, sz);
}

char *
wymcp_strdup(struct wymcp_ctx *ctx, const char *s)
{
	if (ctx == NULL || s == NULL)
		return NULL;
	return wymcp__arena_strndup(&ctx->arena, s, strlen(s));
}

char *
wymcp_printf(struct wymcp_ctx *ctx, const char *fmt, ...)
{
	va_list	 ap;
	char	*p;

	if (ctx == NULL || fmt == NULL)
		return NULL;
	va_start(ap, fmt);
	p = wymcp__arena_vprintf(&ctx->arena, fmt, ap);
	va_end(ap);
	return p;
}

/* json_object_put as a cleanup hook. */
static void
put_json(void *arg)
{
	json_object_put(arg);
}

struct json_object *
wymcp_own(struct wymcp_ctx *ctx, struct json_object *obj)
{
	if (obj == NULL)
		return NULL;
	if (ctx == NULL || wymcp__arena_defer(&ctx->arena, put_json, obj)) {
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

enum wymcp_err
wymcp_defer(struct wymcp_ctx *ctx, void (*fn)(void *), void *arg)
{
	if (ctx == NULL || fn == NULL)
		return WYMCP_ERR_INVAL;
	return wymcp__arena_defer(&ctx->arena, fn, arg) ?
	    WYMCP_ERR_NOMEM : WYMCP_OK;
}
