/*
 * greet.c - a tool module built outside the wymcp source tree.
 *
 *	make			# cc ... greet.c $(pkg-config --cflags --libs wymcp)
 *	wymcp-fcgi --module ./greet.so ...
 *
 * One tool, "greet": greets the name it is given and, when the web
 * server authenticated the caller, says who asked.  It reads only its
 * arguments and the request context, allocates only through the
 * request, and has no side effects, so it is safe to run again on any
 * worker of any host.
 */
#include <wymcp.h>

static enum wymcp_err
greet_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*name;
	const char		*who;

	/* The input schema made "name" a required string. */
	json_object_object_get_ex(args, "name", &name);
	if ((who = wymcp_ctx_principal(ctx)) == NULL)
		return wymcp_result_add(res, wymcp_textf(ctx, "Hello, %s!",
		    json_object_get_string(name)));
	return wymcp_result_add(res, wymcp_textf(ctx, "Hello, %s! (asked by "
	    "%s)", json_object_get_string(name), who));
}

static const struct wymcp_tool tools[] = {
	{
		.name = "greet",
		.title = "Greet",
		.description = "Greets someone by name.",
		.input_schema = "{\"type\":\"object\","
		    "\"properties\":{\"name\":{\"type\":\"string\","
		    "\"description\":\"Who to greet.\"}},"
		    "\"required\":[\"name\"],\"additionalProperties\":false}",
		.annotations = "{\"readOnlyHint\":true,"
		    "\"idempotentHint\":true,\"openWorldHint\":false}",
		.run = greet_run,
	},
	{ .name = NULL }
};

WYMCP_MODULE("greet", tools);
