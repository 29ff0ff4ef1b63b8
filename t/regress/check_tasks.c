/*
 * check_tasks.c - the tasks extension on a SQLite store in the build
 * tree (store/, methods/task.c, methods/taskmake.c)
 *
 * Whole requests through the harness, and wymcp_server_run_task() as a
 * task runner would call it (in this process, or in a child that dies
 * mid-task).  Each test has a store file of its own, removed after; with
 * WYMCP_TEST_STORE=postgresql://... (t/regress/check-tasks-pg, a
 * private cluster) the same tests run on PostgreSQL, the table emptied
 * before each.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/wait.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>
#ifdef WITH_POSTGRESQL
#include <libpq-fe.h>
#endif
#ifdef WITH_SQLITE
#include <sqlite3.h>
#endif

#include "testing/testing.h"
#include "harness.h"

#define CAPS_META(caps)							\
	"{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","	\
	"\"io.modelcontextprotocol/clientInfo\":{\"name\":\"t\","	\
	"\"version\":\"1\"},"						\
	"\"io.modelcontextprotocol/clientCapabilities\":" caps "}"
#define EXT	CAPS_META("{\"elicitation\":{},\"extensions\":"	\
	"{\"io.modelcontextprotocol/tasks\":{}}}")
#define NOEXT	CAPS_META("{\"elicitation\":{}}")

#define ROOM_SCHEMA "{\"type\":\"object\",\"properties\":{\"room\":" \
	"{\"type\":\"string\",\"enum\":[\"Aurora\",\"Borealis\"]}}," \
	"\"required\":[\"room\"]}"
#define SIZE_SCHEMA "{\"type\":\"object\",\"properties\":{\"people\":" \
	"{\"type\":\"integer\",\"minimum\":1}},\"required\":[\"people\"]}"

static struct wymcp_server *srv;
static struct h_resp	 resp;
static char		 dbpath[128], flagpath[128];
static int		 book_writes;

/* book: two questions, one write, the seed's way. */
static enum wymcp_err
book_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a, *b;
	enum wymcp_err		 rc;

	if ((rc = wymcp_elicit(ctx, "Which room?", ROOM_SCHEMA, &a)) !=
	    WYMCP_OK)
		return rc;
	if ((rc = wymcp_elicit(ctx, "How many?", SIZE_SCHEMA, &b)) !=
	    WYMCP_OK)
		return rc;
	book_writes++;
	return wymcp_result_text(res, "Booked %s for %d",
	    wymcp_arg_str(wymcp_answer_content(a), "room", "?"),
	    (int)wymcp_arg_int(wymcp_answer_content(b), "people", 0));
}

static enum wymcp_err
quick_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_text(res, "quick by %s",
	    wymcp_ctx_principal(ctx) != NULL ? wymcp_ctx_principal(ctx) :
	    "nobody");
}

/* Runs until cancelled (or 10 s). */
static enum wymcp_err
slow_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct timespec	 ts = { 0, 20 * 1000000L };
	int		 i;

	for (i = 0; i < 500; i++) {
		if (wymcp_cancelled(ctx))
			return wymcp_result_error(res, "stopped");
		nanosleep(&ts, NULL);
	}
	return wymcp_result_text(res, "slept");
}

/* Says how far it is, then works for 0.8 s. */
static enum wymcp_err
chatty_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct timespec	 ts = { 0, 20 * 1000000L };
	int		 i;

	(void)wymcp_progress(ctx, 1, 2, "half way");
	for (i = 0; i < 40; i++) {
		(void)wymcp_cancelled(ctx);
		nanosleep(&ts, NULL);
	}
	return wymcp_result_text(res, "talked");
}

/*
 * Looks at wymcp_cancelled() every 20 ms until the file heldpath is
 * there (10 s at most), then 25 times more (0.5 s: a lease renewal
 * falls in it), and keeps how long that took in looker_ms.
 */
static char		 heldpath[128];
static long long	 looker_ms;

static enum wymcp_err
looker_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct timespec	 ts = { 0, 20 * 1000000L };
	long long	 t0 = wymcp__clock_ms();
	int		 i;

	for (i = 0; i < 500 && access(heldpath, F_OK) != 0; i++) {
		(void)wymcp_cancelled(ctx);
		nanosleep(&ts, NULL);
	}
	for (i = 0; i < 25; i++) {
		(void)wymcp_cancelled(ctx);
		nanosleep(&ts, NULL);
	}
	looker_ms = wymcp__clock_ms() - t0;
	return wymcp_result_text(res, "looked");
}

/* Dies the first time (as a SIGKILLed runner would), then completes. */
static enum wymcp_err
crash_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	FILE	*f;

	if (access(flagpath, F_OK) != 0) {
		if ((f = fopen(flagpath, "w")) != NULL)
			fclose(f);
		_exit(9);
	}
	return wymcp_result_text(res, "survived");
}

/*
 * The example's reindex with its final step made once (0.5): a record
 * in oncedir, the runner dying after it the first time; shards is
 * declared with a default, reported in steps.
 */
static char	 oncedir[64];

static enum wymcp_err
oncecrash_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	int		 i, n = (int)wymcp_arg_int(args, "shards", 0);
	enum wymcp_err	 rc;
	FILE		*f;

	for (i = 1; i <= n; i++)
		if ((rc = wymcp_progress_step(ctx, n, "Shard %d of %d", i,
		    n)) != WYMCP_OK)
			return rc;
	if ((rc = wymcp_write_once(ctx, oncedir, "reindexed %d\n", n)) !=
	    WYMCP_OK)
		return rc;
	if (access(flagpath, F_OK) != 0) {
		if ((f = fopen(flagpath, "w")) != NULL)
			fclose(f);
		_exit(9);
	}
	return wymcp_result_text(res, "Reindexed %d shards.", n);
}

#define EMPTY	"{\"type\":\"object\"}"
static const struct wymcp_tool tools[] = {
	{ .name = "reindex", .description = "d", .run = oncecrash_run,
	    .params = WYMCP_PARAMS(WYMCP_INT("shards", NULL,
		WYMCP_RANGE(1, 64), .def = "3")),
	    .task_support = WYMCP_TASK_OPTIONAL },
	{ .name = "book", .description = "d", .input_schema = EMPTY,
	    .run = book_run, .task_support = WYMCP_TASK_OPTIONAL },
	{ .name = "quick", .description = "d", .input_schema = EMPTY,
	    .run = quick_run, .task_support = WYMCP_TASK_OPTIONAL },
	{ .name = "need", .description = "d", .input_schema = EMPTY,
	    .run = quick_run, .task_support = WYMCP_TASK_REQUIRED },
	{ .name = "never", .description = "d", .input_schema = EMPTY,
	    .run = quick_run },
	{ .name = "slow", .description = "d", .input_schema = EMPTY,
	    .run = slow_run, .task_support = WYMCP_TASK_OPTIONAL },
	{ .name = "crash", .description = "d", .input_schema = EMPTY,
	    .run = crash_run, .task_support = WYMCP_TASK_OPTIONAL },
	{ .name = "chatty", .description = "d", .input_schema = EMPTY,
	    .run = chatty_run, .task_support = WYMCP_TASK_OPTIONAL },
	{ .name = "looker", .description = "d", .input_schema = EMPTY,
	    .run = looker_run, .task_support = WYMCP_TASK_OPTIONAL },
	{ .name = NULL }
};
static const struct wymcp_module mod = { .abi = WYMCP_ABI_VERSION,
    .size = sizeof(struct wymcp_module), .name = "tasks", .tools = tools,
    .tool_size = sizeof(struct wymcp_tool) };

static void
unlink_db(void)
{
	char	 p[160];

	(void)unlink(dbpath);
	snprintf(p, sizeof(p), "%s-wal", dbpath);
	(void)unlink(p);
	snprintf(p, sizeof(p), "%s-shm", dbpath);
	(void)unlink(p);
	(void)unlink(flagpath);
}

/* Empty the PostgreSQL task table: each test starts with none. */
static void
pg_empty(const char *uri)
{
#ifdef WITH_POSTGRESQL
	PGconn		*c = PQconnectdb(uri);
	PGresult	*r;

	ck_assert_int_eq(PQstatus(c), CONNECTION_OK);
	r = PQexec(c, "DELETE FROM wymcp_tasks");
	ck_assert_int_eq(PQresultStatus(r), PGRES_COMMAND_OK);
	PQclear(r);
	PQfinish(c);
#else
	ck_abort_msg("%s: built without PostgreSQL", uri);	/* see main() */
#endif
}

static char	 uri[160];

/*
 * Before fork(): let go of this process's connection (a connection is
 * never carried across fork(2); the child opens its own).
 */
static void
release(void)
{
	ck_assert_int_eq(wymcp_server_set_task_store(srv, uri), WYMCP_OK);
}

static void
setup(void)
{

	memset(&resp, 0, sizeof(resp));
	book_writes = 0;
	snprintf(dbpath, sizeof(dbpath), "check_tasks-%ld.db",
	    (long)getpid());
	snprintf(flagpath, sizeof(flagpath), "check_tasks-%ld.flag",
	    (long)getpid());
	unlink_db();
	ck_assert_ptr_nonnull(srv = wymcp_server_new());
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod), WYMCP_OK);
	snprintf(uri, sizeof(uri), "sqlite:%s", dbpath);
	if (getenv("WYMCP_TEST_STORE") != NULL)
		snprintf(uri, sizeof(uri), "%s", getenv("WYMCP_TEST_STORE"));
	ck_assert_msg(wymcp_server_set_task_store(srv, uri) == WYMCP_OK,
	    "%s", wymcp_server_errmsg(srv));
	if (strncmp(uri, "postgresql:", 11) == 0)
		pg_empty(uri);
}

static void
teardown(void)
{
	h_free(&resp);
	wymcp_server_free(srv);
	srv = NULL;
	unlink_db();
}

/* Serve `method' with `params' (object text, "_meta" added) as `who'. */
static void
req(const char *who, const char *meta, const char *method,
    const char *name, const char *params)
{
	char		 principal[64], body[4096];
	const char	*extra[2] = { NULL, NULL };

	h_free(&resp);
	if (who != NULL) {
		snprintf(principal, sizeof(principal), "WYMCP_PRINCIPAL=%s",
		    who);
		extra[0] = principal;
	}
	snprintf(body, sizeof(body), "{\"_meta\":%s%s%s}", meta,
	    params[0] != '\0' ? "," : "", params);
	ck_assert_int_eq(h_call(srv, method, name, body, extra, &resp),
	    WYMCP_OK);
}

static const char *
str(struct json_object *o, const char *k)
{
	struct json_object	*v;

	if (o == NULL || !json_object_object_get_ex(o, k, &v))
		return NULL;
	return json_object_get_string(v);
}

/* tools/call `tool' as a task; returns its id (static storage). */
static const char *
create(const char *who, const char *tool)
{
	static char	 id[64];
	char		 p[128];

	snprintf(p, sizeof(p), "\"name\":\"%s\",\"arguments\":{}", tool);
	req(who, EXT, "tools/call", tool, p);
	ck_assert_ptr_nonnull(h_result(&resp));
	ck_assert_str_eq(str(h_result(&resp), "resultType"), "task");
	ck_assert_str_eq(str(h_result(&resp), "status"), "working");
	snprintf(id, sizeof(id), "%s", str(h_result(&resp), "taskId"));
	return id;
}

/* tasks/get: the status, or NULL for an error (h_code() says which). */
static const char *
status(const char *who, const char *id)
{
	char	 p[128];

	snprintf(p, sizeof(p), "\"taskId\":\"%s\"", id);
	req(who, EXT, "tasks/get", id, p);
	if (h_result(&resp) == NULL)
		return NULL;
	ck_assert_str_eq(str(h_result(&resp), "resultType"), "complete");
	return str(h_result(&resp), "status");
}

static void
update(const char *who, const char *id, const char *responses)
{
	char	 p[1024];

	snprintf(p, sizeof(p), "\"taskId\":\"%s\",\"inputResponses\":%s", id,
	    responses);
	req(who, EXT, "tasks/update", id, p);
}

static void
cancel(const char *who, const char *id)
{
	char	 p[128];

	snprintf(p, sizeof(p), "\"taskId\":\"%s\"", id);
	req(who, EXT, "tasks/cancel", id, p);
}

/* The ack: exactly {"resultType":"complete"} (plus serverInfo _meta). */
static void
expect_ack(void)
{
	struct json_object	*r = h_result(&resp);

	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(str(r, "resultType"), "complete");
	ck_assert_ptr_null(str(r, "taskId"));
	ck_assert_ptr_null(str(r, "status"));
}

/* A new task is stored before its handle goes out, and runs. */
START_TEST(create_get_run_complete)
{
	const char		*id = create("alice", "quick");
	struct json_object	*r, *res;

	ck_assert_uint_eq(strlen(id), 24);
	ck_assert_ptr_nonnull(str(h_result(&resp), "createdAt"));
	ck_assert(json_object_object_get_ex(h_result(&resp), "ttlMs", &r));
	ck_assert_int_eq(json_object_get_int(r), 3600000);
	/* No result, error or inputRequests in a CreateTaskResult. */
	ck_assert(!json_object_object_get_ex(h_result(&resp), "result",
	    NULL));
	ck_assert_str_eq(status("alice", id), "working");
	ck_assert_int_eq(wymcp_server_run_task(srv), 1);
	ck_assert_int_eq(wymcp_server_run_task(srv), 0);	/* none left */
	ck_assert_str_eq(status("alice", id), "completed");
	r = h_result(&resp);
	ck_assert(json_object_object_get_ex(r, "result", &res));
	ck_assert_str_eq(json_object_get_string(json_object_object_get(
	    json_object_array_get_idx(json_object_object_get(res, "content"),
	    0), "text")), "quick by alice");
}
END_TEST

/* Without the extension: at once, -32021, or refused. */
START_TEST(undeclared_client)
{
	struct json_object	*e, *d;

	req(NULL, NOEXT, "tools/call", "quick",
	    "\"name\":\"quick\",\"arguments\":{}");
	ck_assert_str_eq(h_text(&resp), "quick by nobody");
	req(NULL, NOEXT, "tools/call", "need",
	    "\"name\":\"need\",\"arguments\":{}");
	ck_assert_int_eq(h_code(&resp), -32021);
	ck_assert(json_object_object_get_ex(resp.json, "error", &e));
	ck_assert(json_object_object_get_ex(e, "data", &d));
	ck_assert_str_eq(json_object_to_json_string(d),
	    "{ \"requiredCapabilities\": { \"extensions\": { "
	    "\"io.modelcontextprotocol\\/tasks\": { } } } }");
	req(NULL, NOEXT, "tasks/get", "x", "\"taskId\":\"x\"");
	ck_assert_int_eq(h_code(&resp), -32021);
	req(NULL, NOEXT, "tasks/cancel", "x", "\"taskId\":\"x\"");
	ck_assert_int_eq(h_code(&resp), -32021);
	/* A tool that forbids tasks answers at once, extension or not. */
	req(NULL, EXT, "tools/call", "never",
	    "\"name\":\"never\",\"arguments\":{}");
	ck_assert_str_eq(h_text(&resp), "quick by nobody");
	/* discover advertises the extension. */
	req(NULL, NOEXT, "server/discover", NULL, "");
	ck_assert_ptr_nonnull(strstr(resp.body,
	    "\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}"));
}
END_TEST

#define ROOM	"{\"elicit-1\":{\"action\":\"accept\","		\
	"\"content\":{\"room\":\"Aurora\"}}}"
#define PEOPLE	"{\"elicit-2\":{\"action\":\"accept\","		\
	"\"content\":{\"people\":3}}}"

/* book through tasks/update twice; wrong keys and shapes refused. */
START_TEST(book_through_update_twice)
{
	const char		*id = create("alice", "book");
	struct json_object	*ir;

	ck_assert_int_eq(wymcp_server_run_task(srv), 1);
	ck_assert_str_eq(status("alice", id), "input_required");
	ck_assert(json_object_object_get_ex(h_result(&resp), "inputRequests",
	    &ir));
	ck_assert_str_eq(str(json_object_object_get(ir, "elicit-1"),
	    "method"), "elicitation/create");
	/* Not a ready task: no runner takes it. */
	ck_assert_int_eq(wymcp_server_run_task(srv), 0);
	/* A wrong shape: refused, nothing stored. */
	update("alice", id, "{\"elicit-1\":{\"action\":\"maybe\"}}");
	ck_assert_int_eq(h_code(&resp), -32602);
	update("alice", id, "{\"elicit-1\":{\"action\":\"accept\","
	    "\"content\":{\"room\":\"Cellar\"}}}");
	ck_assert_int_eq(h_code(&resp), -32602);
	update("alice", id, "{\"elicit-1\":7}");
	ck_assert_int_eq(h_code(&resp), -32602);
	update("alice", id, "[]");
	ck_assert_int_eq(h_code(&resp), -32602);
	/* A key not outstanding is ignored (tasks.md: SHOULD ignore). */
	update("alice", id, "{\"nope\":{\"action\":\"cancel\"}}");
	expect_ack();
	ck_assert_str_eq(status("alice", id), "input_required");
	/* The right answer: working again, and the second question. */
	update("alice", id, ROOM);
	expect_ack();
	ck_assert_str_eq(status("alice", id), "working");
	ck_assert_int_eq(wymcp_server_run_task(srv), 1);
	ck_assert_str_eq(status("alice", id), "input_required");
	ck_assert(json_object_object_get_ex(h_result(&resp), "inputRequests",
	    &ir));
	ck_assert(json_object_object_get_ex(ir, "elicit-2", NULL));
	ck_assert(!json_object_object_get_ex(ir, "elicit-1", NULL));
	update("alice", id, PEOPLE);
	expect_ack();
	ck_assert_int_eq(wymcp_server_run_task(srv), 1);
	ck_assert_str_eq(status("alice", id), "completed");
	ck_assert_ptr_nonnull(strstr(resp.body, "Booked Aurora for 3"));
	ck_assert_int_eq(book_writes, 1);
	/* An update to a finished task changes nothing. */
	update("alice", id, ROOM);
	expect_ack();
	ck_assert_str_eq(status("alice", id), "completed");
}
END_TEST

/*
 * A first round has no answers, as a task too: a tools/call that makes
 * a task with inputResponses for both questions stores none of them,
 * and the run asks elicit-1 (0.4 booked at once).
 */
START_TEST(task_first_round_has_no_answers)
{
	const char	*id;

	req("alice", EXT, "tools/call", "book", "\"name\":\"book\","
	    "\"arguments\":{},\"inputResponses\":{\"elicit-1\":{\"action\":"
	    "\"accept\",\"content\":{\"room\":\"Aurora\"}},\"elicit-2\":"
	    "{\"action\":\"accept\",\"content\":{\"people\":3}}}");
	ck_assert_ptr_nonnull(h_result(&resp));
	ck_assert_str_eq(str(h_result(&resp), "resultType"), "task");
	id = str(h_result(&resp), "taskId");
	ck_assert_ptr_nonnull(id);
	id = strdup(id);
	ck_assert_int_eq(wymcp_server_run_task(srv), 1);
	ck_assert_str_eq(status("alice", id), "input_required");
	ck_assert_ptr_nonnull(json_object_object_get(json_object_object_get(
	    h_result(&resp), "inputRequests"), "elicit-1"));
	ck_assert_int_eq(book_writes, 0);
	free((void *)id);
}
END_TEST

/* Another principal's task is "not found", whatever the method. */
START_TEST(other_principal_not_found)
{
	char	 id[64];

	snprintf(id, sizeof(id), "%s", create("alice", "book"));
	ck_assert_int_eq(wymcp_server_run_task(srv), 1);
	ck_assert_ptr_null(status("bob", id));
	ck_assert_int_eq(h_code(&resp), -32602);
	ck_assert_ptr_nonnull(strstr(resp.body, "Task not found"));
	ck_assert_ptr_null(status(NULL, id));
	ck_assert_int_eq(h_code(&resp), -32602);
	update("bob", id, ROOM);
	ck_assert_int_eq(h_code(&resp), -32602);
	cancel("bob", id);
	ck_assert_int_eq(h_code(&resp), -32602);
	/* Alice's task is untouched. */
	ck_assert_str_eq(status("alice", id), "input_required");
}
END_TEST

/* Guessed and tampered ids are "not found"; ids do not repeat. */
START_TEST(guessed_and_tampered_ids)
{
	char	 id[64], other[64];

	snprintf(id, sizeof(id), "%s", create("alice", "quick"));
	snprintf(other, sizeof(other), "%s", create("alice", "quick"));
	ck_assert_str_ne(id, other);
	ck_assert_ptr_null(status("alice", "AAAAAAAAAAAAAAAAAAAAAAAA"));
	ck_assert_int_eq(h_code(&resp), -32602);
	id[5] = id[5] == 'A' ? 'B' : 'A';
	ck_assert_ptr_null(status("alice", id));
	ck_assert_int_eq(h_code(&resp), -32602);
	ck_assert_ptr_null(status("alice", "x' OR '1'='1"));
	ck_assert_int_eq(h_code(&resp), -32602);
	id[5] = '\0';
	ck_assert_ptr_null(status("alice", id));
	ck_assert_int_eq(h_code(&resp), -32602);
}
END_TEST

/* A waiting task is cancelled at once; cancel again is an ack. */
START_TEST(cancel_waiting_task)
{
	char	 id[64];

	snprintf(id, sizeof(id), "%s", create("alice", "book"));
	ck_assert_int_eq(wymcp_server_run_task(srv), 1);
	cancel("alice", id);
	expect_ack();
	ck_assert_str_eq(status("alice", id), "cancelled");
	ck_assert(!json_object_object_get_ex(h_result(&resp),
	    "inputRequests", NULL));
	cancel("alice", id);
	expect_ack();
	update("alice", id, ROOM);
	expect_ack();
	ck_assert_str_eq(status("alice", id), "cancelled");
	ck_assert_int_eq(wymcp_server_run_task(srv), 0);
}
END_TEST

/* A running task: its runner's tool sees wymcp_cancelled(). */
START_TEST(cancel_running_task)
{
	struct timespec	 ts = { 0, 300 * 1000000L };
	char		 id[64];
	pid_t		 pid;
	int		 st;

	snprintf(id, sizeof(id), "%s", create("alice", "slow"));
	release();
	if ((pid = fork()) == 0)
		_exit(wymcp_server_run_task(srv) == 1 ? 0 : 1);
	ck_assert_int_ne(pid, -1);
	nanosleep(&ts, NULL);
	ck_assert_str_eq(status("alice", id), "working");
	cancel("alice", id);
	expect_ack();
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_str_eq(status("alice", id), "cancelled");
}
END_TEST

/* Past its TTL a task is "not found", then deleted. */
START_TEST(ttl_expiry)
{
	struct timespec	 ts = { 0, 400 * 1000000L };
	struct json_object *v;
	char		 id[64];

	ck_assert_int_eq(wymcp_server_set_task_limits(srv, 300, 30000),
	    WYMCP_OK);
	snprintf(id, sizeof(id), "%s", create("alice", "quick"));
	ck_assert(json_object_object_get_ex(h_result(&resp), "ttlMs", &v));
	ck_assert_int_eq(json_object_get_int(v), 300);
	ck_assert_str_eq(status("alice", id), "working");
	nanosleep(&ts, NULL);
	ck_assert_ptr_null(status("alice", id));
	ck_assert_int_eq(h_code(&resp), -32602);
	/* An expired task is not run either. */
	ck_assert_int_eq(wymcp_server_run_task(srv), 0);
}
END_TEST

/*
 * A runner that dies mid-task leaves its lease; once it expires,
 * another runner claims the task and completes it.
 */
START_TEST(dead_runner_lease_expires)
{
	struct timespec	 ts = { 0, 500 * 1000000L };
	char		 id[64];
	pid_t		 pid;
	int		 st;

	ck_assert_int_eq(wymcp_server_set_task_limits(srv, 60000, 300),
	    WYMCP_OK);
	snprintf(id, sizeof(id), "%s", create("alice", "crash"));
	release();
	ck_assert_int_eq(wymcp_server_set_task_limits(srv, 60000, 300),
	    WYMCP_OK);
	if ((pid = fork()) == 0)
		_exit(wymcp_server_run_task(srv) == 1 ? 0 : 1);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 9);
	ck_assert_str_eq(status("alice", id), "working");
	/* The lease holds for a while: nobody else takes it yet. */
	ck_assert_int_eq(wymcp_server_run_task(srv), 0);
	nanosleep(&ts, NULL);
	/*
	 * Ended: but a connection younger than the grace period takes
	 * over none (its runner may be storing its outcome).
	 */
	ck_assert_int_eq(wymcp_server_run_task(srv), 0);
	srv->tasks->connected_at -= WYMCP__TASK_GRACE_MS;
	ck_assert_int_eq(wymcp_server_run_task(srv), 1);
	ck_assert_str_eq(status("alice", id), "completed");
	ck_assert_ptr_nonnull(strstr(resp.body, "survived"));
}
END_TEST

/*
 * A task whose runner dies after its final step: the next runner runs
 * it again, wymcp_write_once() finds the record and writes nothing, and
 * the declared default reaches the body on both runners.
 */
START_TEST(final_step_once_across_runners)
{
	struct timespec	 ts = { 0, 500 * 1000000L };
	char		 id[64], cmd[256];
	pid_t		 pid;
	int		 st;

	snprintf(oncedir, sizeof(oncedir), "/tmp/check_tasks.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(oncedir));
	ck_assert_int_eq(wymcp_server_set_task_limits(srv, 60000, 300),
	    WYMCP_OK);
	snprintf(id, sizeof(id), "%s", create("alice", "reindex"));
	release();
	ck_assert_int_eq(wymcp_server_set_task_limits(srv, 60000, 300),
	    WYMCP_OK);
	if ((pid = fork()) == 0)
		_exit(wymcp_server_run_task(srv) == 1 ? 0 : 1);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 9);
	ck_assert_str_eq(status("alice", id), "working");
	nanosleep(&ts, NULL);
	srv->tasks->connected_at -= WYMCP__TASK_GRACE_MS;
	ck_assert_int_eq(wymcp_server_run_task(srv), 1);
	ck_assert_str_eq(status("alice", id), "completed");
	ck_assert_ptr_nonnull(strstr(resp.body, "Reindexed 3 shards."));
	snprintf(cmd, sizeof(cmd), "test $(ls '%s' | wc -l) -eq 1 && "
	    "grep -qx 'reindexed 3' '%s'/*", oncedir, oncedir);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", oncedir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

#define HOLD_MS	2500	/* hold_row(): longer than the time limit */

/* hold_row() holds the row: say so to looker_run(). */
static void
held_mark(void)
{
	FILE	*f;

	if ((f = fopen(heldpath, "w")) != NULL)
		fclose(f);
}

#ifdef WITH_SQLITE
/* hold_row() on SQLite: the write lock (BEGIN IMMEDIATE). */
static int
hold_sqlite(const char *id, long ms)
{
	struct timespec	 tick = { 0, 5 * 1000000L }, hold;
	sqlite3		*db;
	sqlite3_stmt	*st;
	long long	 lease = 0;
	int		 i, rc = 1;

	hold.tv_sec = ms / 1000;
	hold.tv_nsec = ms % 1000 * 1000000L;
	if (sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READWRITE, NULL) !=
	    SQLITE_OK || sqlite3_busy_timeout(db, 10000) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT lease FROM wymcp_tasks WHERE "
	    "id = ?1", -1, &st, NULL) != SQLITE_OK)
		return 1;
	for (i = 0; i < 2000 && lease == 0; i++) {
		(void)sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			lease = sqlite3_column_int64(st, 0);
		(void)sqlite3_reset(st);
		if (lease == 0)
			nanosleep(&tick, NULL);
	}
	sqlite3_finalize(st);
	if (lease != 0 && sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL,
	    NULL) == SQLITE_OK) {
		held_mark();
		nanosleep(&hold, NULL);
		rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK;
	}
	sqlite3_close(db);
	return rc;
}
#endif

#ifdef WITH_POSTGRESQL
/* hold_row() on PostgreSQL: the row, FOR UPDATE. */
static int
hold_pg(const char *id, long ms)
{
	struct timespec	 tick = { 0, 5 * 1000000L }, hold;
	const char	*v[1] = { id };
	PGconn		*c = PQconnectdb(uri);
	PGresult	*r;
	int		 i, rc = 1, held = 0;

	hold.tv_sec = ms / 1000;
	hold.tv_nsec = ms % 1000 * 1000000L;
	if (PQstatus(c) != CONNECTION_OK)
		goto done;
	r = PQexec(c, "BEGIN");
	PQclear(r);
	for (i = 0; i < 2000 && !held; i++) {
		r = PQexecParams(c, "SELECT 1 FROM wymcp_tasks WHERE id = $1 "
		    "AND lease > 0 FOR UPDATE", 1, NULL, v, NULL, NULL, 0);
		held = PQresultStatus(r) == PGRES_TUPLES_OK &&
		    PQntuples(r) == 1;
		PQclear(r);
		if (!held)
			nanosleep(&tick, NULL);
	}
	if (held) {
		held_mark();
		nanosleep(&hold, NULL);
		r = PQexec(c, "COMMIT");
		rc = PQresultStatus(r) != PGRES_COMMAND_OK;
		PQclear(r);
	}
done:
	PQfinish(c);
	return rc;
}
#endif

/*
 * In a child: wait until task `id' is claimed (its lease set), then
 * hold what its runner's lease renewal must write, for `ms', from a
 * connection of its own, as a busy database would.  Exits 0 when it
 * held it.
 */
static pid_t
hold_row(const char *id, long ms)
{
	pid_t	 pid;
	int	 rc = 1;

	if ((pid = fork()) != 0)
		return pid;
#ifdef WITH_POSTGRESQL
	if (strncmp(uri, "postgresql:", 11) == 0)
		rc = hold_pg(id, ms);
#endif
#ifdef WITH_SQLITE
	if (strncmp(uri, "sqlite:", 7) == 0)
		rc = hold_sqlite(id, ms);
#endif
	_exit(rc);
}

/* What the request hook was told: the furthest deadline, the last. */
static long long	 hook_far, hook_done;

static void
hook(void *arg, const struct wymcp_request_info *ri)
{
	(void)arg;
	if (ri->deadline_ms > hook_far)
		hook_far = ri->deadline_ms;
	if (ri->done)
		hook_done = ri->deadline_ms;
}

/*
 * A store slow to renew the lease is not the tool's time (issue 35):
 * looker (0.5 s of work once the row is held, looking at
 * wymcp_cancelled() every 20 ms) under a 2 s time limit, while another
 * connection holds the task 2.5 s from its claim on: a renewal waits,
 * inside the tool's run, and the task completes (fea4807: "Task timed
 * out").  The program's watch (the request hook) was given twice the
 * lease (30 s) for the renewal and for storing the outcome, not what
 * was left of the tool's 2 s.
 */
START_TEST(slow_store_not_charged)
{
	char		 id[64];
	pid_t		 pid;
	int		 st;

	wymcp_server_set_request_timeout(srv, 2000);
	snprintf(heldpath, sizeof(heldpath), "check_tasks-%ld.held",
	    (long)getpid());
	(void)unlink(heldpath);
	snprintf(id, sizeof(id), "%s", create("alice", "looker"));
	release();
	ck_assert_int_ne(pid = hold_row(id, HOLD_MS), -1);
	looker_ms = hook_far = hook_done = 0;
	wymcp_server_set_request_fn(srv, hook, NULL);
	ck_assert_int_eq(wymcp_server_run_task(srv), 1);
	ck_assert_int_gt(hook_far - wymcp__clock_ms(), 50000);
	ck_assert_int_gt(hook_done - wymcp__clock_ms(), 50000);
	/* Not vacuous: the tool's run waited for the other connection. */
	ck_assert_int_ge(looker_ms, HOLD_MS - 300);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	(void)unlink(heldpath);
	ck_assert_str_eq(status("alice", id), "completed");
	ck_assert_ptr_nonnull(strstr(resp.body, "looked"));
}
END_TEST

/* How many times `needle' is in `hay'. */
static int
count(const char *hay, const char *needle)
{
	int	 n = 0;

	while ((hay = strstr(hay, needle)) != NULL) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

/*
 * subscriptions/listen with taskIds: the acknowledgement names the
 * caller's tasks only; each one's status as it changes, then the end.
 */
START_TEST(listen_task_status)
{
	struct timespec	 ts = { 0, 400 * 1000000L };
	char		 id[64], p[256];
	const char	*w, *c;
	pid_t		 pid;
	int		 st;

	snprintf(id, sizeof(id), "%s", create("alice", "quick"));
	release();
	if ((pid = fork()) == 0) {
		nanosleep(&ts, NULL);
		_exit(wymcp_server_run_task(srv) == 1 ? 0 : 1);
	}
	snprintf(p, sizeof(p), "\"notifications\":{\"taskIds\":[\"%s\","
	    "\"AAAAAAAAAAAAAAAAAAAAAAAA\"]}", id);
	req("alice", EXT, "subscriptions/listen", NULL, p);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_ptr_nonnull(strstr(resp.body,
	    "notifications/subscriptions/acknowledged"));
	/* The unknown id is not acknowledged. */
	ck_assert_ptr_null(strstr(resp.body, "AAAAAAAAAAAAAAAAAAAAAAAA"));
	w = strstr(resp.body, "\"status\":\"working\"");
	c = strstr(resp.body, "\"status\":\"completed\"");
	ck_assert_ptr_nonnull(w);
	ck_assert_ptr_nonnull(c);
	ck_assert(w < c);
	ck_assert_ptr_nonnull(strstr(resp.body, "notifications/tasks"));
	/* Every frame, the closing result too, names the subscription. */
	ck_assert_int_eq(count(resp.body, "\"_meta\":{"
	    "\"io.modelcontextprotocol/subscriptionId\":1"), count(resp.body,
	    "event: message"));
	ck_assert_int_ge(count(resp.body, "event: message"), 4);
	/* Another principal is acknowledged nothing, and it ends at once. */
	req("bob", EXT, "subscriptions/listen", NULL, p);
	ck_assert_ptr_nonnull(strstr(resp.body, "\"taskIds\":[]"));
	ck_assert_ptr_null(strstr(resp.body, "notifications/tasks\""));
	/* Without the extension: -32021. */
	req("alice", NOEXT, "subscriptions/listen", NULL, p);
	ck_assert_int_eq(h_code(&resp), -32021);
}
END_TEST

/* A task's progress message is its statusMessage while it runs. */
START_TEST(progress_is_status_message)
{
	struct timespec	 ts = { 0, 500 * 1000000L };
	char		 id[64];
	pid_t		 pid;
	int		 st;

	snprintf(id, sizeof(id), "%s", create("alice", "chatty"));
	release();
	if ((pid = fork()) == 0)
		_exit(wymcp_server_run_task(srv) == 1 ? 0 : 1);
	nanosleep(&ts, NULL);
	ck_assert_str_eq(status("alice", id), "working");
	ck_assert_str_eq(str(h_result(&resp), "statusMessage"), "half way");
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_str_eq(status("alice", id), "completed");
}
END_TEST

/* The schema's version is kept; a newer one is refused. */
START_TEST(schema_version)
{
#ifdef WITH_SQLITE
	sqlite3		*db;

	if (getenv("WYMCP_TEST_STORE") != NULL)
		return;		/* the SQLite file's own */
	ck_assert_int_eq(sqlite3_open(dbpath, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "PRAGMA user_version = 99", NULL,
	    NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
#else
	return;			/* see main() */
#endif
	snprintf(uri, sizeof(uri), "sqlite:%s", dbpath);
	ck_assert_int_eq(wymcp_server_set_task_store(srv, uri),
	    WYMCP_ERR_IO);
	ck_assert_ptr_nonnull(strstr(wymcp_server_errmsg(srv), "newer"));
	ck_assert_int_eq(wymcp_server_set_task_store(srv, "mysql:x"),
	    WYMCP_ERR_INVAL);
	/* A URI of no known kind: its scheme is named, never the rest. */
	ck_assert_int_eq(wymcp_server_set_task_store(srv,
	    "postgresq://u:hunter2@db/x"), WYMCP_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(wymcp_server_errmsg(srv),
	    "'postgresq...'"));
	ck_assert_ptr_null(strstr(wymcp_server_errmsg(srv), "hunter2"));
	/* Without a store: no extension, and task tools run at once. */
	req(NULL, EXT, "tools/call", "need",
	    "\"name\":\"need\",\"arguments\":{}");
	ck_assert_str_eq(h_text(&resp), "quick by nobody");
}
END_TEST

/*
 * A tools/call the quota refuses: HTTP `status' with Retry-After
 * `retry', JSON-RPC -32603, data {"quota": which, "limit": limit}.
 */
static void
expect_refused(int status, const char *retry, const char *which,
    long long limit)
{
	struct json_object	*e, *data, *v;

	ck_assert_msg(resp.status == status, "HTTP %d, want %d: %s",
	    resp.status, status, resp.body);
	ck_assert_int_eq(h_code(&resp), -32603);
	ck_assert_msg(resp.headers != NULL &&
	    strstr(resp.headers, retry) != NULL, "no %s in %s", retry,
	    resp.headers != NULL ? resp.headers : "");
	ck_assert(json_object_object_get_ex(resp.json, "error", &e));
	ck_assert(json_object_object_get_ex(e, "data", &data));
	ck_assert_str_eq(str(data, "quota"), which);
	ck_assert(json_object_object_get_ex(data, "limit", &v));
	ck_assert_int_eq(json_object_get_int64(v), limit);
}

/* tools/call `tool' as a task as `who', whatever the answer. */
static void
try_create(const char *who, const char *tool)
{
	char	 p[128];

	snprintf(p, sizeof(p), "\"name\":\"%s\",\"arguments\":{}", tool);
	req(who, EXT, "tools/call", tool, p);
}

/*
 * The quotas (wymcp_server_set_task_quota()), through whole requests:
 * a principal's unfinished tasks, 429 past them, and room again when
 * one finished; another principal's are its own; a principal's bytes,
 * 429; the store's, 503 with the store's Retry-After; a task larger
 * than a quota by itself, -32602; 0, no limit.
 */
START_TEST(quota)
{
	int	 i;

	ck_assert_int_eq(wymcp_server_set_task_quota(NULL, 1, 1, 1),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_server_set_task_quota(srv, -1, 0, 0),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_server_set_task_quota(srv, 2, 0, 0), WYMCP_OK);
	(void)create("alice", "quick");
	(void)create("alice", "quick");
	try_create("alice", "quick");
	expect_refused(429, "Retry-After: 5", "tasks", 2);
	ck_assert_ptr_nonnull(strstr(resp.body, "--task-quota"));
	(void)create("bob", "quick");
	ck_assert_int_eq(wymcp_server_run_task(srv), 1);
	(void)create("alice", "quick");
	try_create("alice", "quick");
	expect_refused(429, "Retry-After: 5", "tasks", 2);

	/* Bytes: a few tasks' worth for carol. */
	ck_assert_int_eq(wymcp_server_set_task_quota(srv, 0, 2000, 0),
	    WYMCP_OK);
	for (i = 0; i < 50; i++) {
		try_create("carol", "quick");
		if (h_result(&resp) == NULL)
			break;
	}
	ck_assert_int_gt(i, 1);
	ck_assert_int_lt(i, 50);
	expect_refused(429, "Retry-After: 5", "bytes", 2000);
	(void)create("dave", "quick");

	/* The store's: every principal's bytes. */
	ck_assert_int_eq(wymcp_server_set_task_quota(srv, 0, 0, 2000),
	    WYMCP_OK);
	try_create("erin", "quick");
	expect_refused(503, "Retry-After: 2", "store", 2000);
	ck_assert_ptr_nonnull(strstr(resp.body, "task store is full"));

	/* Larger than a quota by itself: never fits. */
	ck_assert_int_eq(wymcp_server_set_task_quota(srv, 0, 10, 0),
	    WYMCP_OK);
	try_create("erin", "quick");
	ck_assert_int_eq(resp.status, 200);
	ck_assert_int_eq(h_code(&resp), -32602);
	ck_assert_int_eq(wymcp_server_set_task_quota(srv, 0, 0, 0),
	    WYMCP_OK);
	(void)create("erin", "quick");
	(void)create("alice", "quick");
}
END_TEST

/*
 * wymcp_server_task_depth(), for the status page: the live tasks by
 * state (a task under a dead runner's lease is running until the lease
 * ends).
 */
START_TEST(depth_by_state)
{
	struct wymcp_task_depth	 d;
	pid_t			 pid;
	int			 st;

	ck_assert_int_eq(wymcp_server_task_depth(NULL, &d, sizeof(d)),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_server_task_depth(srv, &d, sizeof(d)),
	    WYMCP_OK);
	ck_assert(d.waiting == 0 && d.running == 0 && d.input_required == 0);
	(void)create("alice", "book");
	ck_assert_int_eq(wymcp_server_run_task(srv), 1);
	(void)create("alice", "crash");
	release();
	ck_assert_int_eq(wymcp_server_set_task_limits(srv, 60000, 60000),
	    WYMCP_OK);
	if ((pid = fork()) == 0)
		_exit(wymcp_server_run_task(srv) == 1 ? 0 : 1);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 9);
	(void)create("bob", "quick");
	(void)create("bob", "quick");
	ck_assert_int_eq(wymcp_server_task_depth(srv, &d, sizeof(d)),
	    WYMCP_OK);
	ck_assert_int_eq(d.waiting, 2);
	ck_assert_int_eq(d.running, 1);
	ck_assert_int_eq(d.input_required, 1);
	/* Run one quick task: one waiting left. */
	ck_assert_int_eq(wymcp_server_run_task(srv), 1);
	ck_assert_int_eq(wymcp_server_task_depth(srv, &d, sizeof(d)),
	    WYMCP_OK);
	ck_assert_int_eq(d.waiting, 1);
	ck_assert_int_eq(d.running, 1);
	ck_assert_int_eq(d.input_required, 1);
	/* An older caller's smaller struct: nothing written past it. */
	memset(&d, 0x55, sizeof(d));
	ck_assert_int_eq(wymcp_server_task_depth(srv, &d,
	    offsetof(struct wymcp_task_depth, input_required)), WYMCP_OK);
	ck_assert_int_eq(d.waiting, 1);
	ck_assert_int_eq(d.running, 1);
	ck_assert_int_eq(d.input_required, 0x5555555555555555LL);
	/* Without a store. */
	ck_assert_int_eq(wymcp_server_set_task_store(srv, NULL), WYMCP_OK);
	ck_assert_int_eq(wymcp_server_task_depth(srv, &d, sizeof(d)),
	    WYMCP_ERR_INVAL);
}
END_TEST

/*
 * A 2025-11-25 request cannot declare the extension: a task tool runs
 * at once, a required one included, and nothing is stored.
 */
START_TEST(legacy_runs_at_once)
{
	static const char	 body[] = "{\"jsonrpc\":\"2.0\",\"id\":3,"
	    "\"method\":\"tools/call\",\"params\":{\"name\":\"need\","
	    "\"arguments\":{}}}";
	struct wymcp_task_depth	 d;
	char			 cl[64];
	const char		*env[] = { "REQUEST_METHOD=POST",
	    "CONTENT_TYPE=application/json",
	    "HTTP_ACCEPT=application/json, text/event-stream",
	    "HTTP_HOST=localhost", "HTTP_MCP_PROTOCOL_VERSION=2025-11-25",
	    "WYMCP_PRINCIPAL=alice", cl, NULL };

	snprintf(cl, sizeof(cl), "CONTENT_LENGTH=%zu", strlen(body));
	h_free(&resp);
	ck_assert_int_eq(h_serve(srv, env, body, &resp), WYMCP_OK);
	ck_assert_int_eq(resp.status, 200);
	ck_assert_ptr_nonnull(strstr(resp.body, "quick by alice"));
	ck_assert_ptr_null(strstr(resp.body, "taskId"));
	ck_assert_ptr_null(strstr(resp.body, "resultType"));
	ck_assert_int_eq(wymcp_server_task_depth(srv, &d, sizeof(d)),
	    WYMCP_OK);
	ck_assert(d.waiting == 0 && d.running == 0 && d.input_required == 0);
	ck_assert_int_eq(wymcp_server_run_task(srv), 0);
}
END_TEST

static Suite *
tasks_suite(void)
{
	Suite	*s = suite_create("tasks");
	TCase	*tc = tcase_create("sqlite");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, create_get_run_complete);
	tcase_add_test(tc, undeclared_client);
	tcase_add_test(tc, book_through_update_twice);
	tcase_add_test(tc, task_first_round_has_no_answers);
	tcase_add_test(tc, other_principal_not_found);
	tcase_add_test(tc, guessed_and_tampered_ids);
	tcase_add_test(tc, cancel_waiting_task);
	tcase_add_test(tc, cancel_running_task);
	tcase_add_test(tc, ttl_expiry);
	tcase_add_test(tc, dead_runner_lease_expires);
	tcase_add_test(tc, final_step_once_across_runners);
	tcase_add_test(tc, listen_task_status);
	tcase_add_test(tc, progress_is_status_message);
	tcase_add_test(tc, schema_version);
	tcase_add_test(tc, depth_by_state);
	tcase_add_test(tc, legacy_runs_at_once);
	tcase_add_test(tc, quota);
	tcase_add_test(tc, slow_store_not_charged);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	const char *store = getenv("WYMCP_TEST_STORE");
	int	 nfailed;

	/* Every test needs the store's back end: skip (77) without it. */
#ifndef WITH_POSTGRESQL
	if (store != NULL) {
		printf("SKIP: this wymcp was built without PostgreSQL "
		    "(configure --without-postgresql)\n");
		return 77;
	}
#endif
#ifndef WITH_SQLITE
	if (store == NULL) {
		printf("SKIP: this wymcp was built without SQLite "
		    "(configure --without-sqlite)\n");
		return 77;
	}
#endif
	(void)store;
	sr = srunner_create(tasks_suite());
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
