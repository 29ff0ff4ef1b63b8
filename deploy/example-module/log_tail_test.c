/* log_tail_test.c - log://{service}/tail's tests, through libwymcp-testing */
#include <stdlib.h>
#include <unistd.h>

#include "test.h"

static char	 dir[] = "/tmp/log_tail_test.XXXXXX";

int
main(void)
{
	struct wymcp_testing_opts	 o = {
	    .meta = WYMCP_TESTING_META_NONE };
	struct wymcp_testing_round	 r;
	struct wymcp_ctx		*ctx;
	char				 path[256];
	FILE				*f;
	int				 i;

	if (mkdtemp(dir) == NULL || setenv("LOG_DIR", dir, 1))
		return 1;
	snprintf(path, sizeof(path), "%s/web.log", dir);
	if ((f = fopen(path, "w")) == NULL)
		return 1;
	for (i = 1; i <= 25; i++)
		fprintf(f, "line %d\n", i);
	fclose(f);
	if ((ctx = context(&o)) == NULL)
		return 1;
	/* The last 20 lines. */
	CHECK(wymcp_testing_read_resource(ctx, "log://web/tail", &r) ==
	    WYMCP_OK && r.kind == WYMCP_TESTING_COMPLETE && r.text != NULL &&
	    strncmp(r.text, "line 6\nline 7\n", 14) == 0 &&
	    strcmp(r.text + strlen(r.text) - 8, "line 25\n") == 0);
	/* ..%2F.. arrives as ../..: refused with -32602, saying why. */
	CHECK(wymcp_testing_read_resource(ctx,
	    "log://..%2F..%2Fetc%2Fpasswd/tail", &r) == WYMCP_OK &&
	    r.kind == WYMCP_TESTING_INVALID && r.code == -32602 &&
	    r.error != NULL && strcmp(r.error, "Refused: '../../etc/passwd' "
	    "has '..'; a service is a name, not a path") == 0);
	/* A service with no log: not found. */
	CHECK(wymcp_testing_read_resource(ctx, "log://db/tail", &r) ==
	    WYMCP_OK && r.code == -32602 && r.error != NULL &&
	    strcmp(r.error, "Resource not found") == 0);
	wymcp_testing_free_context(ctx);
	remove(path);
	rmdir(dir);
	return done("log_tail_test");
}
