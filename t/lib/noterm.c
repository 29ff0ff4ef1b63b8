/*
 * noterm.c - a module whose tables have no terminator: WYMCP_TOOLS(),
 * WYMCP_RESOURCES(), WYMCP_TEMPLATES() and WYMCP_PROMPTS() record
 * their lengths, and the loader reads no further (t/unit/check_module,
 * under ASan, which would see a read past an array).
 */
#include "wymcp.h"

static enum wymcp_err
one_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_text(res, "one");
}

static enum wymcp_err
doc_read(struct wymcp_ctx *ctx, const char *uri, struct json_object *vars,
    struct wymcp_resource_result *res)
{
	return wymcp_contents_text(res, uri, "text/plain", "doc");
}

static enum wymcp_err
hi_get(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_prompt_result *res)
{
	return wymcp_prompt_message(res, "user", wymcp_text(ctx, "hi"));
}

static const struct wymcp_tool tools[] = {
	{ .name = "nt_one", .description = "The first.", .run = one_run },
	{ .name = "nt_two", .description = "The last.", .run = one_run }
};
static const struct wymcp_resource resources[] = {
	{ .uri = "nt://doc", .name = "doc", .read = doc_read }
};
static const struct wymcp_resource templates[] = {
	{ .uri = "nt://note/{name}", .name = "note", .read = doc_read }
};
static const struct wymcp_prompt prompts[] = {
	{ .name = "nt_hi", .description = "Say hi.", .get = hi_get }
};

WYMCP_MODULE_DEFINE(.name = "noterm", WYMCP_TOOLS(tools),
    WYMCP_RESOURCES(resources), WYMCP_TEMPLATES(templates),
    WYMCP_PROMPTS(prompts));
