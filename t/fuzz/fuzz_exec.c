/*
 * fuzz_exec.c - libFuzzer target for the exec tool manifest parser
 * (setup/exec.c, wymcp-exec(5))
 *
 * The input is a manifest's text.  wymcp__exec_parse() is pure (what
 * names files is resolved after, by wymcp__exec_resolve()), so the
 * target calls it directly and holds its verdict to the rules the page
 * states: an accepted manifest has a description and a command, every
 * limit and time positive and within its range, the declaration's
 * strings pointing at the parser's own copies; a refused one says
 * which member and why; either way clearing it frees everything.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "setup/setup.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct wymcp__exec	 x;
	char			 err[512];

	err[0] = '\0';
	if (wymcp__exec_parse("tool", (const char *)data, len, &x, err,
	    sizeof(err)) != 0) {
		if (strchr(err, ':') == NULL) {
			fprintf(stderr, "refused without a member: [%s]\n",
			    err);
			abort();	/* a refusal names the member */
		}
		wymcp__exec_clear(&x);
		return 0;
	}
	if (x.def.name == NULL || strcmp(x.def.name, "tool") != 0 ||
	    x.def.description == NULL || *x.def.description == '\0' ||
	    x.argv == NULL || x.argc == 0 || x.argv[x.argc] != NULL ||
	    x.argv[0][0] == '\0')
		abort();
	if (x.timeout_ms <= 0 || x.timeout_ms > 86400000L ||
	    x.grace_ms <= 0 || x.grace_ms > 60000 ||
	    x.lim.memory < 1 || x.lim.cpu < 1 || x.lim.processes < 1 ||
	    x.lim.output < 1 || x.lim.files < 1 || x.lim.file_size < 1)
		abort();
	if (x.def.task_support < WYMCP_TASK_FORBIDDEN ||
	    x.def.task_support > WYMCP_TASK_REQUIRED)
		abort();
	wymcp__exec_clear(&x);
	return 0;
}
