/* resource.c - resources and resource templates (stub, being written) */
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
wymcp__resources_list(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	none(ctx, r);
}

void
wymcp__templates_list(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	none(ctx, r);
}

void
wymcp__resources_read(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	none(ctx, r);
}

enum wymcp_err
wymcp__module_extras(struct wymcp_server *srv, const struct wymcp_module *m)
{
	return WYMCP_OK;
}

enum wymcp_err
wymcp_contents_text(struct wymcp_resource_result *r, const char *uri,
    const char *mime, const char *text)
{
	return WYMCP_ERR_INVAL;
}

enum wymcp_err
wymcp_contents_blob(struct wymcp_resource_result *r, const char *uri,
    const char *mime, const char *b64)
{
	return WYMCP_ERR_INVAL;
}
