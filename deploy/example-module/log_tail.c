/* log_tail.c - log://{service}/tail: a template refusing a path */
#include <stdlib.h>
#include <string.h>
#include <wymcp.h>

static enum wymcp_err
log_tail(struct wymcp_ctx *ctx, const char *uri, struct json_object *vars,
    struct wymcp_resource_result *res)
{
	const char	*s = wymcp_arg_str(vars, "service", "");

	/* {service} is percent-decoded: ..%2F.. arrives as ../.. */
	if (strstr(s, "..") != NULL)
		return wymcp_refuse(ctx, WYMCP_RPC_INVALID_PARAMS, "Refused: "
		    "'%s' has '..'; a service is a name, not a path", s);
	return wymcp_contents_file(res, "text/plain", 20, "%s/%s.log",
	    getenv("LOG_DIR"), s);
}

static const struct wymcp_resource templates[] = { {
	.uri = "log://{service}/tail", .name = "log_tail",
	.description = "The last 20 lines of a service's log.",
	.mime = "text/plain", .read = log_tail } };
WYMCP_MODULE_DEFINE(.name = "log_tail", WYMCP_TEMPLATES(templates));
