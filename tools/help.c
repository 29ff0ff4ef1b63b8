/*
 * help.c - lists the tools mounted for this request.  It answers from
 * the request's mount list, so each location of the web server shows
 * only what it serves.
 */
#include <string.h>

#include <wymcp.h>

/* One line per mounted tool, or the named tool's description. */
static enum wymcp_err
help_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	const struct wymcp_tool	*t;
	struct json_object	*v;
	const char		*want = NULL;
	char			*s;
	size_t			 i, n = wymcp_ctx_ntools(ctx);

	if (json_object_object_get_ex(args, "tool", &v))
		want = json_object_get_string(v);
	s = wymcp_strdup(ctx, want == NULL ? "Tools mounted here:\n" : "");
	for (i = 0; s != NULL && i < n; i++) {
		t = wymcp_ctx_tool(ctx, i);
		if (want != NULL && strcmp(want, t->name) != 0)
			continue;
		s = wymcp_printf(ctx, "%s- %s: %s\n", s, t->name,
		    t->description);
		if (want != NULL)
			return wymcp_result_add(res, wymcp_text(ctx, s));
	}
	if (s == NULL)
		return WYMCP_ERR_NOMEM;
	if (want != NULL)
		return wymcp_result_error(res, "No tool named '%s' is mounted "
		    "here.", want);
	return wymcp_result_add(res, wymcp_text(ctx, s));
}

static const struct wymcp_tool tools[] = {
	{
		.name = "help",
		.title = "Help",
		.description = "Lists the tools available at this endpoint "
		    "with their descriptions, or describes one tool.",
		.input_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"tool\":{\"type\":\"string\",\"description\":"
		    "\"Describe only this tool.\"}},"
		    "\"additionalProperties\":false}",
		.annotations = "{\"readOnlyHint\":true,"
		    "\"openWorldHint\":false}",
		.run = help_run,
	},
	{ .name = NULL }
};

WYMCP_MODULE("help", tools);
