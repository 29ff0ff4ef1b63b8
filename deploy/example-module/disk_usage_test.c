/* disk_usage_test.c - disk_usage's tests, through libwymcp-testing */
#include "test.h"

int
main(void)
{
	struct wymcp_testing_opts	 o = {
	    .meta = WYMCP_TESTING_META_NONE };
	struct wymcp_testing_round	 r;
	struct wymcp_ctx		*ctx;
	struct json_object		*s, *v;
	const struct wymcp_tool		*t;

	if ((ctx = context(&o)) == NULL)
		return 1;
	t = wymcp_ctx_tool(ctx, 0);
	/* The schemas are derived from the declaration. */
	CHECK(wymcp_testing_run_tool(ctx, t, "{}", &r) == WYMCP_OK &&
	    r.kind == WYMCP_TESTING_COMPLETE && !r.is_error);
	/* No path: the declared default, "/". */
	CHECK(r.result != NULL && json_object_object_get_ex(r.result,
	    "structuredContent", &s) && json_object_object_get_ex(s, "path",
	    &v) && strcmp(json_object_get_string(v), "/") == 0);
	CHECK(json_object_object_get_ex(s, "total", &v) &&
	    json_object_get_int64(v) > 0 &&
	    json_object_object_get_ex(s, "percent", NULL));
	/* The text block is the structured content's serialization. */
	CHECK(r.text != NULL && strncmp(r.text, "{\"path\":\"/\"", 11) == 0);
	CHECK(wymcp_testing_run_tool(ctx, t, "{\"path\":\"/tmp\"}", &r) ==
	    WYMCP_OK && strstr(structured(&r), "\"path\":\"/tmp\"") != NULL);
	/* A path that is not there: the tool's error, saying why. */
	CHECK(wymcp_testing_run_tool(ctx, t, "{\"path\":\"/nonexistent\"}",
	    &r) == WYMCP_OK && r.is_error && r.text != NULL &&
	    strcmp(r.text, "/nonexistent: No such file or directory") == 0);
	/* Not a string, or a member not declared: refused before it runs. */
	CHECK(wymcp_testing_run_tool(ctx, t, "{\"path\":7}", &r) == WYMCP_OK &&
	    r.kind == WYMCP_TESTING_INVALID);
	CHECK(wymcp_testing_run_tool(ctx, t, "{\"dir\":\"/\"}", &r) ==
	    WYMCP_OK && r.kind == WYMCP_TESTING_INVALID);
	wymcp_testing_free_context(ctx);
	return done("disk_usage_test");
}
