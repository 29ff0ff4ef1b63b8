/* xheader.c - x-mcp-header and Mcp-Param-* (stub, being written) */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "extern.h"

enum wymcp_err
wymcp__xparams_compile(struct wymcp_server *srv, struct wymcp__tool *t)
{
	return WYMCP_OK;
}

void
wymcp__xparams_free(struct wymcp__tool *t)
{
}

const char *
wymcp__xparams_check(struct wymcp_ctx *ctx, const struct wymcp__tool *t,
    struct json_object *args)
{
	return NULL;
}
