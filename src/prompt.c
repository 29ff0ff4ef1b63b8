/* prompt.c - prompts and completion (stub, being written) */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "extern.h"

static void
none(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	wymcp__reply_error(ctx, r, 404, WYMCP__METHOD_NOT_FOUND,
	    wymcp_printf(ctx, "Method not found: %s", ctx->method), NULL);
}

void
wymcp__prompts_list(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	none(ctx, r);
}

void
wymcp__prompts_get(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	none(ctx, r);
}

void
wymcp__complete(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	none(ctx, r);
}

enum wymcp_err
wymcp_prompt_message(struct wymcp_prompt_result *r, const char *role,
    struct json_object *content)
{
	return WYMCP_ERR_INVAL;
}

enum wymcp_err
wymcp_prompt_describe(struct wymcp_prompt_result *r, const char *d)
{
	return WYMCP_ERR_INVAL;
}

enum wymcp_err
wymcp_completion_add(struct wymcp_completion *c, const char *v)
{
	return WYMCP_ERR_INVAL;
}

void
wymcp_completion_total(struct wymcp_completion *c, long total, int more)
{
}
