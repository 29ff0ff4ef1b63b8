/*
 * taskbench.c - task creation and tasks/get per second, through the
 * whole pipeline (t/lib/harness.c), on the store WYMCP_TEST_STORE names
 * (default: a SQLite file in the current directory, removed after).
 * Prints the figures; asserts nothing.  make bench-tasks runs it on
 * SQLite and on a private PostgreSQL cluster (t/regress/check-tasks-pg).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define N	1000
#define META	"{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
	"\"io.modelcontextprotocol/clientInfo\":{\"name\":\"b\","	\
	"\"version\":\"1\"},\"io.modelcontextprotocol/clientCapabilities\":" \
	"{\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}}"

static enum wymcp_err
quick_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_text(res, "quick");
}

static const struct wymcp_tool tools[] = {
	{ .name = "quick", .description = "d",
	    .input_schema = "{\"type\":\"object\"}", .run = quick_run,
	    .task_support = WYMCP_TASK_OPTIONAL },
	{ .name = NULL }
};
static const struct wymcp_module mod = { .abi = WYMCP_ABI_VERSION,
    .size = sizeof(struct wymcp_module), .name = "bench", .tools = tools,
    .tool_size = sizeof(struct wymcp_tool) };

static double
now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int
main(void)
{
	static char		 ids[N][32];
	struct wymcp_server	*srv;
	struct h_resp		 r;
	struct json_object	*v;
	const char		*uri = getenv("WYMCP_TEST_STORE");
	char			 file[64], def[80], body[512];
	double			 t0, t1, t2;
	int			 i, ran = 0;

	snprintf(file, sizeof(file), "taskbench-%ld.db", (long)getpid());
	snprintf(def, sizeof(def), "sqlite:%s", file);
	if (uri == NULL)
		uri = def;
#ifndef WITH_SQLITE
	if (uri == def) {
		printf("taskbench: skipped: this wymcp was built without "
		    "SQLite (configure --without-sqlite)\n");
		return 0;
	}
#endif
	/*
	 * One principal makes every task: no cap on their count (N is
	 * far above WYMCP_TASK_QUOTA_DEFAULT), the byte limits as by
	 * default, so that each creation pays for the quota's sums.
	 */
	if ((srv = wymcp_server_new()) == NULL ||
	    wymcp_server_add_module(srv, &mod) != WYMCP_OK ||
	    wymcp_server_set_task_store(srv, uri) != WYMCP_OK ||
	    wymcp_server_set_task_quota(srv, 0,
	    WYMCP_TASK_QUOTA_BYTES_DEFAULT,
	    WYMCP_TASK_STORE_MAX_BYTES_DEFAULT) != WYMCP_OK) {
		fprintf(stderr, "taskbench: %s\n", srv != NULL ?
		    wymcp_server_errmsg(srv) : "out of memory");
		return 1;
	}
	snprintf(body, sizeof(body), "{\"_meta\":%s,\"name\":\"quick\","
	    "\"arguments\":{}}", META);
	t0 = now();
	for (i = 0; i < N; i++) {
		memset(&r, 0, sizeof(r));
		h_call(srv, "tools/call", "quick", body, NULL, &r);
		if (!json_object_object_get_ex(h_result(&r), "taskId", &v)) {
			fprintf(stderr, "taskbench: no task: %s\n", r.body);
			return 1;
		}
		snprintf(ids[i], sizeof(ids[i]), "%s",
		    json_object_get_string(v));
		h_free(&r);
	}
	t1 = now();
	for (i = 0; i < N; i++) {
		snprintf(body, sizeof(body), "{\"_meta\":%s,"
		    "\"taskId\":\"%.31s\"}", META, ids[i]);
		memset(&r, 0, sizeof(r));
		h_call(srv, "tasks/get", ids[i], body, NULL, &r);
		if (h_result(&r) == NULL) {
			fprintf(stderr, "taskbench: get failed: %s\n", r.body);
			return 1;
		}
		h_free(&r);
	}
	t2 = now();
	while (wymcp_server_run_task(srv) == 1 && ran < N)
		ran++;
	printf("%s: %d tasks: create %.0f/s, tasks/get %.0f/s, "
	    "runner %.0f/s\n", strncmp(uri, "sqlite:", 7) == 0 ? "sqlite" :
	    "postgresql", N, N / (t1 - t0), N / (t2 - t1),
	    ran / (now() - t2));
	wymcp_server_free(srv);
	if (uri == def) {
		unlink(file);
		snprintf(def, sizeof(def), "%s-wal", file);
		unlink(def);
		snprintf(def, sizeof(def), "%s-shm", file);
		unlink(def);
	}
	return 0;
}
