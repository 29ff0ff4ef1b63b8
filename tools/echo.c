/* echo.c - a tool that answers with the text it was given */
#include <wymcp.h>

/* Return the "text" argument as one text block. */
static enum wymcp_err
echo_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	/* The schema requires "text": the default is never used. */
	return wymcp_result_text(res, "%s", wymcp_arg_str(args, "text", ""));
}

static const struct wymcp_tool tools[] = {
	{
		.name = "echo",
		.title = "Echo",
		.description = "Returns the text it is given, unchanged.",
		.input_schema = WYMCP_JSON({ "type": "object",
		    "properties": { "text": { "type": "string",
		    "description": "The text to send back." } },
		    "required": ["text"], "additionalProperties": false }),
		.annotations = WYMCP_JSON({ "readOnlyHint": true,
		    "idempotentHint": true, "openWorldHint": false }),
		.run = echo_run,
	},
	{ .name = NULL }
};

WYMCP_MODULE("echo", tools);
