/*
 * badmod.c - a module the loader must refuse: its one tool has
 * annotations and an output schema, and an x-mcp-header value that is
 * not a header name (t/regress/refuse-module).
 */
#include "wymcp.h"

static enum wymcp_err
annotated_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return WYMCP_OK;
}

static const struct wymcp_tool tools[] = {
	{
		.name = "annotated",
		.description = "Never loaded.",
		.input_schema = "{\"type\":\"object\",\"properties\":{\"q\":"
		    "{\"type\":\"string\",\"x-mcp-header\":\"bad name\"}}}",
		.output_schema = "{\"type\":\"object\"}",
		.annotations = "{\"readOnlyHint\":true}",
		.run = annotated_run,
	},
	{ .name = NULL }
};

WYMCP_MODULE("badmod", tools);
