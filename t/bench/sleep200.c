/*
 * sleep200.c - a slow tool for the benchmark (t/bench/bench.py builds
 * it): "sleep200" waits 200 ms, as a tool waiting on I/O would, and
 * answers with one text block.  It holds its worker the whole time.
 */
#include <errno.h>
#include <time.h>

#include <wymcp.h>

static enum wymcp_err
sleep_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct timespec	 ts = { 0, 200 * 1000 * 1000 };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		continue;
	return wymcp_result_text(res, "slept 200 ms");
}

static const struct wymcp_tool tools[] = {
	{
		.name = "sleep200",
		.description = "Waits 200 ms, then answers.",
		.input_schema = WYMCP_JSON({ "type": "object",
		    "properties": {}, "additionalProperties": false }),
		.run = sleep_run,
	},
	{ .name = NULL }
};

WYMCP_MODULE("sleep200", tools);
