/* reindex.c - progress in steps, run as a task when the client can */
#include <wymcp.h>

static enum wymcp_err
reindex(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	int		 i, n = wymcp_arg_int(args, "shards", 0);
	enum wymcp_err	 rc;

	for (i = 1; i <= n; i++)	/* the work of shard i goes here */
		if ((rc = wymcp_progress_step(ctx, n, "Shard %d of %d", i, n)))
			return rc;
	return wymcp_result_text(res, "Reindexed %d shards.", n);
}

static const struct wymcp_tool tools[] = { { .name = "reindex",
	.description = "Rebuilds the search index, shard by shard.",
	.params = WYMCP_PARAMS(WYMCP_INT("shards", "How many shards.",
	    WYMCP_RANGE(1, 64), .def = "4")),
	.task_support = WYMCP_TASK_OPTIONAL, .run = reindex } };
WYMCP_MODULE("reindex", tools);
