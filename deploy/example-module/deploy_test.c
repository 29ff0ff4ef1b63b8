/* deploy_test.c - deploy's tests, through libwymcp-testing */
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"

static char	 queue[] = "/tmp/deploy_test.XXXXXX";

/* The records in the queue (a wipe when `wipe'). */
static int
records(int wipe)
{
	DIR		*d;
	struct dirent	*e;
	char		 path[512];
	int		 k = 0;

	if ((d = opendir(queue)) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.' && ++k && wipe) {
			snprintf(path, sizeof(path), "%s/%s", queue,
			    e->d_name);
			remove(path);
		}
	closedir(d);
	return k;
}

/* Answers: the environment, then the confirmation. */
static const char *
answer(void *arg, const char *key, struct json_object *request)
{
	const char *const	*a = arg;

	(void)request;
	return strcmp(key, "elicit-1") == 0 ? a[0] : a[1];
}

#define PICK(env)	"{\"action\":\"accept\",\"content\":{\"choice\":\"" \
			    env "\"}}"
#define YES		"{\"action\":\"accept\",\"content\":{}}"
#define NO		"{\"action\":\"decline\"}"
#define ARGS		"{\"service\":\"web\",\"version\":\"1.4.2\"}"

int
main(void)
{
	struct wymcp_testing_opts	 o = {
	    .meta = WYMCP_TESTING_META_ELICIT,
	    .assigns = "{\"role\":\"deployer\"}" };
	struct wymcp_testing_round	 r;
	struct wymcp_ctx		*ctx;
	const char			*yes[] = { PICK("staging"), YES };
	const char			*no[] = { PICK("production"), NO };

	if (mkdtemp(queue) == NULL || setenv("DEPLOY_QUEUE", queue, 1))
		return 1;
	if ((ctx = context(&o)) == NULL)
		return 1;
	/* A whole call: three requests, one record. */
	CHECK(wymcp_testing_call_tool(ctx, "deploy", ARGS, answer, yes, &r) ==
	    WYMCP_OK && r.kind == WYMCP_TESTING_COMPLETE && r.rounds == 3 &&
	    strcmp(r.text, "Deploying web 1.4.2 to staging.") == 0);
	CHECK(records(0) == 1);
	/* The last round again (a replay): still one record. */
	wymcp_testing_answer(ctx, "elicit-1", PICK("staging"));
	wymcp_testing_answer(ctx, "elicit-2", YES);
	CHECK(wymcp_testing_run_tool(ctx, wymcp_ctx_tool(ctx, 0), ARGS, &r) ==
	    WYMCP_OK && r.kind == WYMCP_TESTING_COMPLETE && !r.is_error);
	CHECK(wymcp_testing_run_tool(ctx, wymcp_ctx_tool(ctx, 0), ARGS, &r) ==
	    WYMCP_OK && r.kind == WYMCP_TESTING_COMPLETE && records(1) == 2);
	/* Declined: nothing written. */
	CHECK(wymcp_testing_call_tool(ctx, "deploy", ARGS, answer, no, &r) ==
	    WYMCP_OK && strcmp(r.text, "Nothing was deployed.") == 0 &&
	    records(0) == 0);
	wymcp_testing_free_context(ctx);
	/* Another role: refused, saying which role it needs, never asked. */
	o.assigns = "{\"role\":\"viewer\"}";
	if ((ctx = context(&o)) == NULL)
		return 1;
	CHECK(wymcp_testing_run_tool(ctx, wymcp_ctx_tool(ctx, 0), ARGS, &r) ==
	    WYMCP_OK && r.kind == WYMCP_TESTING_COMPLETE && r.is_error &&
	    strcmp(r.text, "Refused: this needs role deployer, and the "
	    "caller's role is viewer") == 0);
	wymcp_testing_free_context(ctx);
	/* No queue: the tool's error names the call that failed. */
	unsetenv("DEPLOY_QUEUE");
	o.assigns = "{\"role\":\"deployer\"}";
	if ((ctx = context(&o)) == NULL)
		return 1;
	CHECK(wymcp_testing_call_tool(ctx, "deploy", ARGS, answer, yes, &r) ==
	    WYMCP_OK && r.is_error && r.text != NULL &&
	    strcmp(r.text, "wymcp_write_once(): dir is NULL") == 0);
	wymcp_testing_free_context(ctx);
	rmdir(queue);
	return done("deploy_test");
}
