/* greet.c - one tool, built outside the wymcp source tree: see README */
#include <wymcp.h>

/* "Hello, <name>!", and who asked when the web server authenticated them. */
static enum wymcp_err
greet_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	const char	*name = wymcp_arg_str(args, "name", "world");
	const char	*who = wymcp_ctx_principal(ctx);

	if (who == NULL)
		return wymcp_result_text(res, "Hello, %s!", name);
	return wymcp_result_text(res, "Hello, %s! (asked by %s)", name, who);
}

static const struct wymcp_tool tools[] = {
	{ .name = "greet", .title = "Greet",
	    .description = "Greets someone by name.",
	    .input_schema = WYMCP_JSON({ "type": "object", "properties": {
		"name": { "type": "string", "description": "Who to greet." } },
		"required": ["name"], "additionalProperties": false }),
	    .annotations = WYMCP_JSON({ "readOnlyHint": true,
		"idempotentHint": true, "openWorldHint": false }),
	    .run = greet_run },
	{ .name = NULL }
};

WYMCP_MODULE("greet", tools);
