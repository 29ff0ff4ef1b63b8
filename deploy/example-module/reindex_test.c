/* reindex_test.c - reindex's tests, through libwymcp-testing */
#include "test.h"

int
main(void)
{
	struct wymcp_testing_opts	 o = {
	    .meta = WYMCP_TESTING_META_NONE };
	struct wymcp_testing_round	 r;
	struct wymcp_ctx		*ctx;
	const struct wymcp_tool		*t;

	if ((ctx = context(&o)) == NULL)
		return 1;
	t = wymcp_ctx_tool(ctx, 0);
	/* shards defaults to 4 (declared); 1 to 64. */
	CHECK(wymcp_testing_run_tool(ctx, t, NULL, &r) == WYMCP_OK &&
	    r.kind == WYMCP_TESTING_COMPLETE &&
	    strcmp(r.text, "Reindexed 4 shards.") == 0);
	CHECK(wymcp_testing_run_tool(ctx, t, "{\"shards\":64}", &r) ==
	    WYMCP_OK && strcmp(r.text, "Reindexed 64 shards.") == 0);
	CHECK(wymcp_testing_run_tool(ctx, t, "{\"shards\":65}", &r) ==
	    WYMCP_OK && r.kind == WYMCP_TESTING_INVALID);
	CHECK(wymcp_testing_run_tool(ctx, t, "{\"shards\":0}", &r) ==
	    WYMCP_OK && r.kind == WYMCP_TESTING_INVALID);
	wymcp_testing_free_context(ctx);
	return done("reindex_test");
}
