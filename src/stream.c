/* stream.c - SSE responses (stub, being written) */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "extern.h"

void
wymcp__stream_init(struct wymcp_ctx *ctx)
{
}

int
wymcp__notify(struct wymcp_ctx *ctx, const char *method,
    struct json_object *params)
{
	return 0;
}

enum wymcp_err
wymcp__stream_final(struct wymcp_ctx *ctx, struct json_object *body)
{
	return WYMCP_ERR_IO;
}

enum wymcp_err
wymcp_progress(struct wymcp_ctx *ctx, double progress, double total,
    const char *message)
{
	return WYMCP_OK;
}

int
wymcp_cancelled(const struct wymcp_ctx *ctx)
{
	return ctx != NULL && ctx->cancelled;
}
