/*
 * testmod.c - a tool module for the loader and dispatch tests
 *
 * Every tool exercises one path of tools/call: plain success, tool
 * failure, a bare error code, out of memory, required client
 * capabilities, structured results against an outputSchema, every
 * content builder, deferred cleanup and argument validation.
 */
#include <wymcp.h>

/*
 * Read by the tests (via dlsym) to observe defer_probe's hooks:
 * testmod_deferred counts hook runs, testmod_defer_order collects the
 * hooks' tags as decimal digits in the order they ran.
 */
__attribute__((visibility("default"))) int testmod_deferred;
__attribute__((visibility("default"))) int testmod_defer_order;

static int	 tag_one = 1;
static int	 tag_two = 2;

/* A defer hook: count the run and record its tag. */
static void
defer_hook(void *arg)
{
	testmod_deferred++;
	testmod_defer_order = testmod_defer_order * 10 + *(int *)arg;
}

static enum wymcp_err
ok_text_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_add(res, wymcp_text(ctx, "ok"));
}

static enum wymcp_err
fails_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_error(res, "boom %d", 42);
}

static enum wymcp_err
returns_inval_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return WYMCP_ERR_INVAL;
}

static enum wymcp_err
nomem_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return WYMCP_ERR_NOMEM;
}

static enum wymcp_err
needs_caps_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_add(res, wymcp_text(ctx, "capable"));
}

static enum wymcp_err
structured_ok_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*o;

	if ((o = wymcp_own(ctx, json_object_new_object())) == NULL)
		return WYMCP_ERR_NOMEM;
	json_object_object_add(o, "n", json_object_new_int(1));
	return wymcp_result_structured(res, o);
}

static enum wymcp_err
structured_bad_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*o;

	if ((o = wymcp_own(ctx, json_object_new_object())) == NULL)
		return WYMCP_ERR_NOMEM;
	json_object_object_add(o, "n", json_object_new_string("x"));
	return wymcp_result_structured(res, o);
}

/* One block from every builder, in the order of wymcp.h. */
static enum wymcp_err
all_content_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*v, *blocks[8];
	enum wymcp_err		 rc;
	size_t			 i;

	if ((v = wymcp_own(ctx, json_object_new_array())) == NULL)
		return WYMCP_ERR_NOMEM;
	json_object_array_add(v, json_object_new_int(1));
	json_object_array_add(v, json_object_new_string("a/b"));
	blocks[0] = wymcp_text(ctx, "plain");
	blocks[1] = wymcp_textf(ctx, "%s-%d", "fmt", 7);
	blocks[2] = wymcp_json(ctx, v);
	blocks[3] = wymcp_image(ctx, "aW1n", "image/png");
	blocks[4] = wymcp_audio(ctx, "YXVk", "audio/wav");
	blocks[5] = wymcp_resource_link(ctx, "file:///l", "l", "text/plain");
	blocks[6] = wymcp_resource_text(ctx, "file:///t", "text/plain",
	    "body");
	blocks[7] = wymcp_resource_blob(ctx, "file:///b", NULL, "YmxvYg==");
	for (i = 0; i < sizeof(blocks) / sizeof(blocks[0]); i++)
		if ((rc = wymcp_result_add(res, blocks[i])) != WYMCP_OK)
			return rc;
	return WYMCP_OK;
}

/* Two hooks, registered 1 then 2, so they run 2 then 1. */
static enum wymcp_err
defer_probe_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	enum wymcp_err	 rc;

	if ((rc = wymcp_defer(ctx, defer_hook, &tag_one)) != WYMCP_OK ||
	    (rc = wymcp_defer(ctx, defer_hook, &tag_two)) != WYMCP_OK)
		return rc;
	return wymcp_result_add(res, wymcp_textf(ctx, "deferred=%d",
	    testmod_deferred));
}

static enum wymcp_err
args_echo_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*n;

	if (!json_object_object_get_ex(args, "n", &n))
		return wymcp_result_error(res, "no n");
	return wymcp_result_add(res, wymcp_textf(ctx, "n=%d",
	    json_object_get_int(n)));
}

#define N_SCHEMA	"{\"type\":\"object\",\"properties\":{\"n\":" \
	"{\"type\":\"integer\"}},\"required\":[\"n\"]}"

static const struct wymcp_tool tools[] = {
	{
		.name = "ok_text",
		.title = "OK",
		.description = "Returns the text ok.",
		.input_schema = "{\"type\":\"object\"}",
		.annotations = "{\"readOnlyHint\":true}",
		.run = ok_text_run,
	},
	{
		.name = "fails",
		.description = "Fails with boom 42.",
		.run = fails_run,
	},
	{
		.name = "returns_inval",
		.description = "Returns WYMCP_ERR_INVAL with no content.",
		.run = returns_inval_run,
	},
	{
		.name = "nomem",
		.description = "Returns WYMCP_ERR_NOMEM.",
		.run = nomem_run,
	},
	{
		.name = "needs_sampling",
		.description = "Requires the sampling capability.",
		.required_caps = "{\"sampling\":{}}",
		.run = needs_caps_run,
	},
	{
		.name = "needs_elicit_url",
		.description = "Requires URL-mode elicitation.",
		.required_caps = "{\"elicitation\":{\"url\":{}}}",
		.run = needs_caps_run,
	},
	{
		.name = "structured_ok",
		.description = "Returns structured {\"n\":1}.",
		.output_schema = N_SCHEMA,
		.run = structured_ok_run,
	},
	{
		.name = "structured_bad",
		.description = "Returns structured {\"n\":\"x\"}.",
		.output_schema = N_SCHEMA,
		.run = structured_bad_run,
	},
	{
		.name = "all_content",
		.description = "Returns one block from every builder.",
		.run = all_content_run,
	},
	{
		.name = "defer_probe",
		.description = "Registers two defer hooks.",
		.run = defer_probe_run,
	},
	{
		.name = "args_echo",
		.description = "Echoes the integer argument n.",
		.input_schema = "{\"type\":\"object\",\"properties\":{\"n\":"
		    "{\"type\":\"integer\",\"minimum\":1}},"
		    "\"required\":[\"n\"]}",
		.run = args_echo_run,
	},
	{ .name = NULL }
};

WYMCP_MODULE("testmod", tools);
