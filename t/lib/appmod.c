/*
 * appmod.c - an MCP App whose HTML is a file beside the module
 * (t/regress/app-file-module): ui://appmod/view is "view.html",
 * relative to the module's directory, read once at load, and trusted
 * as the module is.
 */
#include "wymcp.h"

static enum wymcp_err
show_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	(void)args;
	return wymcp_result_text(res, "Shown.");
}

static const struct wymcp_resource resources[] = {
	{
		.uri = "ui://appmod/view",
		.name = "view",
		.file = "view.html",
		.meta = WYMCP_JSON({ "ui": { "prefersBorder": false } }),
	},
	{ .uri = NULL }
};

static const struct wymcp_tool tools[] = {
	{
		.name = "show",
		.description = "Shows the view.",
		.run = show_run,
		.meta = WYMCP_JSON({ "ui": { "resourceUri":
		    "ui://appmod/view" } }),
	},
	{ .name = NULL }
};

WYMCP_MODULE_DEFINE(.name = "appmod", .tools = tools,
    .resources = resources);
