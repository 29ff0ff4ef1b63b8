/*
 * oauthmod.c - the tools of the OAuth end-to-end test (t/oauth)
 *
 * probe needs no scope, write_note needs notes:write (the step-up).
 * Each run appends the tool's name to the file named by the worker's
 * environment variable WYMCP_OAUTH_RUNLOG, so that the test can tell
 * that a refused request never ran a tool.
 */
#include <stdio.h>
#include <stdlib.h>

#include <wymcp.h>

static void
ran(const char *name)
{
	const char	*path = getenv("WYMCP_OAUTH_RUNLOG");
	FILE		*f;

	if (path != NULL && (f = fopen(path, "a")) != NULL) {
		fprintf(f, "%s\n", name);
		fclose(f);
	}
}

static enum wymcp_err
probe_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	ran("probe");
	return wymcp_result_text(res, "probed");
}

static enum wymcp_err
note_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	ran("write_note");
	return wymcp_result_text(res, "noted: %s",
	    wymcp_arg_str(args, "text", ""));
}

static const struct wymcp_tool tools[] = {
	{
		.name = "probe",
		.description = "Answers; records that it ran.",
		.run = probe_run,
	},
	{
		.name = "write_note",
		.description = "Writes a note (needs the notes:write scope).",
		.input_schema = WYMCP_JSON({ "type": "object",
		    "properties": { "text": { "type": "string" } } }),
		.run = note_run,
		.scopes = "notes:write",
	},
	{ .name = NULL }
};

WYMCP_MODULE("oauthmod", tools);
