/*
 * whoami.c - shows the request's principal and assigns, as the web
 * server passed them: the way an operator checks the auth wiring.
 */
#include <wymcp.h>

/* {"principal": string|null, "assigns": {name: value}} */
static enum wymcp_err
whoami_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*o;
	const char		*p;

	if ((o = wymcp_own(ctx, json_object_new_object())) == NULL)
		return WYMCP_ERR_NOMEM;
	p = wymcp_ctx_principal(ctx);
	json_object_object_add(o, "principal",
	    p != NULL ? json_object_new_string(p) : NULL);
	json_object_object_add(o, "assigns",
	    json_object_get(wymcp_ctx_assigns(ctx)));
	return wymcp_result_structured(res, o);
}

static const struct wymcp_tool tools[] = {
	{
		.name = "whoami",
		.title = "Who am I",
		.description = "Shows the principal and the assigns the web "
		    "server passed for this request (its authentication "
		    "data). No arguments.",
		.input_schema = WYMCP_JSON({ "type": "object",
		    "additionalProperties": false }),
		.output_schema = WYMCP_JSON({ "type": "object",
		    "properties": {
			"principal": { "type": ["string", "null"] },
			"assigns": { "type": "object",
			    "additionalProperties": { "type": "string" } } },
		    "required": ["principal", "assigns"] }),
		.annotations = WYMCP_JSON({ "readOnlyHint": true,
		    "openWorldHint": false }),
		.run = whoami_run,
	},
	{ .name = NULL }
};

WYMCP_MODULE("whoami", tools);
