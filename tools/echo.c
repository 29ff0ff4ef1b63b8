/* echo.c - a tool that answers with the text it was given */
#include <wymcp.h>

/* Return the "text" argument as one text block. */
static enum wymcp_err
echo_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*text;

	json_object_object_get_ex(args, "text", &text);
	return wymcp_result_add(res,
	    wymcp_text(ctx, json_object_get_string(text)));
}

static const struct wymcp_tool tools[] = {
	{
		.name = "echo",
		.title = "Echo",
		.description = "Returns the text it is given, unchanged.",
		.input_schema = "{\"type\":\"object\","
		    "\"properties\":{\"text\":{\"type\":\"string\","
		    "\"description\":\"The text to send back.\"}},"
		    "\"required\":[\"text\"],\"additionalProperties\":false}",
		.annotations = "{\"readOnlyHint\":true,"
		    "\"idempotentHint\":true,\"openWorldHint\":false}",
		.run = echo_run,
	},
	{ .name = NULL }
};

WYMCP_MODULE("echo", tools);
