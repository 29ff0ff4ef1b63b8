/*
 * manytools.c - a module of NTOOLS tools for the benchmark (t/bench/
 * icount.py builds it with -DNTOOLS=1, 100 or 1000): tools "t0001" ...,
 * each an echo with a one-property schema, so that a tools/list page
 * and a lookup by name cost what they would in a large deployment.
 */
#include <stdio.h>

#include <wymcp.h>

#ifndef NTOOLS
#define NTOOLS	1000
#endif

static enum wymcp_err
echo_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_text(res, "%s", wymcp_arg_str(args, "text", ""));
}

static struct wymcp_tool	 tools[NTOOLS + 1];
static char			 names[NTOOLS][8];

/* The table is data, filled once when the module is loaded. */
__attribute__((constructor)) static void
fill(void)
{
	int	 i;

	for (i = 0; i < NTOOLS; i++) {
		snprintf(names[i], sizeof(names[i]), "t%04d", i + 1);
		tools[i].name = names[i];
		tools[i].description = "Echoes its text.";
		tools[i].input_schema = WYMCP_JSON({ "type": "object",
		    "properties": { "text": { "type": "string" } } });
		tools[i].run = echo_run;
	}
}

WYMCP_MODULE("manytools", tools);
