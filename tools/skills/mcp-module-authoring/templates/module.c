/* hello.c - a wymcp module with one tool */
#include <json-c/json.h>

#include <wymcp.h>

static enum wymcp_err
hello(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*who;

	(void)ctx;
	json_object_object_get_ex(args, "who", &who);
	return wymcp_result_text(res, "hello, %s", json_object_get_string(who));
}

static const struct wymcp_tool tools[] = {
	{ .name = "hello", .description = "Say hello",
	  .input_schema = "{\"type\":\"object\",\"properties\":"
	      "{\"who\":{\"type\":\"string\"}},\"required\":[\"who\"]}",
	  .run = hello },
	{ .name = NULL }
};

WYMCP_MODULE("hello", tools);
