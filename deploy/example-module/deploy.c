/* deploy.c - a role check, two questions, then one write per call */
#include <stdlib.h>
#include <wymcp.h>

static const char *const envs[] = { "staging", "production", NULL };

static enum wymcp_err
deploy(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	const char	*svc = wymcp_arg_str(args, "service", NULL);
	const char	*ver = wymcp_arg_str(args, "version", NULL), *env;
	enum wymcp_err	 rc;

	if ((rc = wymcp_require_assign(ctx, "role", "deployer")) != WYMCP_OK ||
	    (rc = wymcp_ask_choice(ctx, "Deploy to which environment?", envs,
	    &env)) != WYMCP_OK || (rc = wymcp_ask(ctx, wymcp_printf(ctx,
	    "Deploy %s %s to %s?", svc, ver, env), NULL, NULL)) != WYMCP_OK)
		return rc == WYMCP_ERR_DECLINED || rc == WYMCP_ERR_CANCELLED ?
		    wymcp_result_text(res, "Nothing was deployed.") : rc;
	/* Both answers in: one record per call, in the deploy queue. */
	if ((rc = wymcp_write_once(ctx, getenv("DEPLOY_QUEUE"), "%s %s %s\n",
	    svc, ver, env)) != WYMCP_OK)
		return rc;
	return wymcp_result_text(res, "Deploying %s %s to %s.", svc, ver, env);
}

static const struct wymcp_tool tools[] = { { .name = "deploy",
	.description = "Deploys a version of a service, once you chose where "
	    "and agreed; needs the role deployer.",
	.params = WYMCP_PARAMS(WYMCP_STR("service", "Its name.", WYMCP_MIN(1)),
	    WYMCP_STR("version", "The version, e.g. 1.4.2.", WYMCP_MIN(1))),
	.run = deploy } };
WYMCP_MODULE("deploy", tools);
