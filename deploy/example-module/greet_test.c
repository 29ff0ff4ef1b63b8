/* greet_test.c - greet's tests, through libwymcp-testing */
#include "test.h"

/* greet's text for this principal and these arguments. */
static const char *
greet(const char *principal, const char *args, enum wymcp_testing_kind *k)
{
	static char			 out[256];
	struct wymcp_testing_opts	 o = { .meta = WYMCP_TESTING_META_NONE,
	    .principal = principal };
	struct wymcp_testing_round	 r;
	struct wymcp_ctx		*ctx;

	if ((ctx = context(&o)) == NULL)
		return "(no context)";
	*k = WYMCP_TESTING_ERROR;
	if (wymcp_testing_run_tool(ctx, wymcp_ctx_tool(ctx, 0), args, &r) !=
	    WYMCP_OK)
		snprintf(out, sizeof(out), "(failed)");
	else {
		snprintf(out, sizeof(out), "%s", r.text != NULL ? r.text : "");
		*k = r.kind;
	}
	wymcp_testing_free_context(ctx);
	return out;
}

int
main(void)
{
	enum wymcp_testing_kind	 k;

	CHECK(strcmp(greet("alice", "{\"name\":\"Ada\"}", &k),
	    "Hello, Ada! (asked by alice)") == 0 &&
	    k == WYMCP_TESTING_COMPLETE);
	CHECK(strcmp(greet(NULL, "{\"name\":\"Ada\"}", &k), "Hello, Ada!") ==
	    0 && k == WYMCP_TESTING_COMPLETE);
	/* name is required: the call never reaches the tool. */
	greet("alice", "{}", &k);
	CHECK(k == WYMCP_TESTING_INVALID);
	return done("greet_test");
}
