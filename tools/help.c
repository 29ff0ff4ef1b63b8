/*
 * help.c - lists the tools mounted for this request.  It answers from
 * the request's mount list, so each location of the web server shows
 * only what it serves, and leaves out MCP Apps tools that only an app
 * may call (its reader is the model).
 */
#include <string.h>

#include <wymcp.h>

/* One line per mounted tool, or the named tool's description. */
static enum wymcp_err
help_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	const struct wymcp_tool	*t;
	const char		*want = wymcp_arg_str(args, "tool", NULL);
	char			*s;
	size_t			 i, n = wymcp_ctx_ntools(ctx);

	s = wymcp_strdup(ctx, want == NULL ? "Tools mounted here:\n" : "");
	for (i = 0; s != NULL && i < n; i++) {
		t = wymcp_ctx_tool(ctx, i);
		/* Its reader is the model: no tool only an app may call. */
		if (!wymcp_ctx_tool_for_model(ctx, i) ||
		    (want != NULL && strcmp(want, t->name) != 0))
			continue;
		s = wymcp_printf(ctx, "%s- %s: %s\n", s, t->name,
		    t->description);
		if (want != NULL)
			break;
	}
	if (s == NULL)
		return WYMCP_ERR_NOMEM;
	/* The loop ran to its end: no tool of that name. */
	if (want != NULL && i == n)
		return wymcp_result_error(res, "No tool named '%s' is mounted "
		    "here.", want);
	return wymcp_result_text(res, "%s", s);
}

static const struct wymcp_tool tools[] = {
	{
		.name = "help",
		.title = "Help",
		.description = "Lists the tools available at this endpoint "
		    "with their descriptions, or describes one tool.",
		.input_schema = WYMCP_JSON({ "type": "object",
		    "properties": { "tool": { "type": "string",
		    "description": "Describe only this tool." } },
		    "additionalProperties": false }),
		.annotations = WYMCP_JSON({ "readOnlyHint": true,
		    "openWorldHint": false }),
		.run = help_run,
	},
	{ .name = NULL }
};

WYMCP_MODULE("help", tools);
