/* my_role_test.c - my_role's tests, through libwymcp-testing */
#include "test.h"

/* my_role's structured content for this principal and these assigns. */
static const char *
role(const char *principal, const char *assigns)
{
	static char			 out[256];
	struct wymcp_testing_opts	 o = { .meta = WYMCP_TESTING_META_NONE,
	    .principal = principal, .assigns = assigns };
	struct wymcp_testing_round	 r;
	struct wymcp_ctx		*ctx;

	if ((ctx = context(&o)) == NULL)
		return "(no context)";
	if (wymcp_testing_call_tool(ctx, "my_role", NULL, never, NULL, &r) !=
	    WYMCP_OK || r.kind != WYMCP_TESTING_COMPLETE || r.is_error)
		snprintf(out, sizeof(out), "(failed: %s)",
		    r.text != NULL ? r.text : "");
	else
		snprintf(out, sizeof(out), "%s", structured(&r));
	wymcp_testing_free_context(ctx);
	return out;
}

int
main(void)
{
	CHECK(strcmp(role("alice", "{\"role\":\"admin\"}"),
	    "{\"principal\":\"alice\",\"role\":\"admin\"}") == 0);
	/* Anonymous, no role: nulls, not empty strings. */
	CHECK(strcmp(role(NULL, NULL),
	    "{\"principal\":null,\"role\":null}") == 0);
	/* What the web server passes stays one string, however it reads. */
	CHECK(strcmp(role("bob\"",
	    "{\"role\":\"x\\\",\\\"admin\\\":\\\"1\"}"),
	    "{\"principal\":\"bob\\\"\","
	    "\"role\":\"x\\\",\\\"admin\\\":\\\"1\"}") == 0);
	return done("my_role_test");
}
