/* my_role.c - who the web server says is calling, and their role */
#include <wymcp.h>

static enum wymcp_err
my_role(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_jsonf(res, "{\"principal\":%s,\"role\":%s}",
	    wymcp_ctx_principal(ctx), wymcp_ctx_assign(ctx, "role"));
}

static const struct wymcp_tool tools[] = { { .name = "my_role",
	.description = "Who you are and your role, as the web server says.",
	.input_schema = WYMCP_JSON({ "type": "object" }), .run = my_role } };
WYMCP_MODULE("my_role", tools);
