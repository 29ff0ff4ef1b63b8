/* weather_test.c - weather's tests, through libwymcp-testing */
#include "test.h"

int
main(void)
{
	struct wymcp_testing_opts	 o = {
	    .meta = WYMCP_TESTING_META_NONE };
	struct wymcp_testing_round	 r;
	struct wymcp_ctx		*ctx;

	if ((ctx = context(&o)) == NULL)
		return 1;
	/* Structured content, checked against the outputSchema. */
	CHECK(wymcp_testing_call_tool(ctx, "weather",
	    "{\"city\":\"Z\\u00fcrich \\\"Alt\\\"\",\"days\":2}", never, NULL,
	    &r) == WYMCP_OK && r.kind == WYMCP_TESTING_COMPLETE);
	CHECK(!r.is_error);
	CHECK(strcmp(structured(&r), "{\"city\":\"Z\xc3\xbcrich \\\"Alt\\\"\","
	    "\"days\":2,\"forecast\":[{\"day\":1,\"high\":19,\"sky\":\"sun\"},"
	    "{\"day\":2,\"high\":17,\"sky\":\"sun\"}]}") == 0);
	/* The text block is the same JSON, for clients that want text. */
	CHECK(r.text != NULL && strcmp(r.text, structured(&r)) == 0);
	/* days defaults to 3; 1 to 7 only; city required. */
	CHECK(wymcp_testing_call_tool(ctx, "weather", "{\"city\":\"Oslo\"}",
	    never, NULL, &r) == WYMCP_OK && r.kind == WYMCP_TESTING_COMPLETE &&
	    strstr(structured(&r),
	    "{\"day\":3,\"high\":15,\"sky\":\"rain\"}]") != NULL);
	CHECK(wymcp_testing_call_tool(ctx, "weather",
	    "{\"city\":\"Oslo\",\"days\":8}", never, NULL, &r) == WYMCP_OK &&
	    r.kind == WYMCP_TESTING_INVALID);
	CHECK(wymcp_testing_call_tool(ctx, "weather", "{\"days\":2}", never,
	    NULL, &r) == WYMCP_OK && r.kind == WYMCP_TESTING_INVALID);
	wymcp_testing_free_context(ctx);
	return done("weather_test");
}
