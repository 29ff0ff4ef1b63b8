/*
 * check_limits.c - the request time limit, the client going away, the
 * request hook and a server without a state key
 *
 * Every test serves a real request in-process (the harness) with the
 * tools below: the deadline (wymcp_server_set_request_timeout(),
 * WYMCP_REQUEST_TIMEOUT) seen by wymcp_cancelled(), wymcp_progress()
 * and wymcp_log() and enforced on the reply; io->gone, read only
 * through wymcp_server_serve_io(); the hook that tells the program the
 * method, handler, id and deadline of the request in flight; and
 * wymcp_server_forget_random_key().
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <check.h>

#include "harness.h"

/* params members: a _meta with elicitation, and one with a token. */
#define ELICIT_META "\"_meta\":{"					\
	"\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","	\
	"\"io.modelcontextprotocol/clientCapabilities\":"		\
	"{\"elicitation\":{}}}"
#define TOKEN_META "\"_meta\":{"					\
	"\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","	\
	"\"io.modelcontextprotocol/clientCapabilities\":{},"		\
	"\"progressToken\":\"t1\"}"

static struct wymcp_server	*srv;
static struct h_resp		 resp;

/* What the tools and the hook saw. */
static struct {
	int		 steps;		/* steps the counter ran */
	int		 gone_at;	/* gone() says 1 from this step */
	int		 gone_calls;
	int		 cancelled;	/* wymcp_cancelled() at the end */
	enum wymcp_err	 progress_rc;	/* the last wymcp_progress() */
	enum wymcp_err	 log_rc;	/* the last wymcp_log() */
	/* The hook. */
	int		 calls;
	char		 method[64], name[64], reqid[64];
	int		 named_before_done;
	long long	 deadline, at;	/* deadline_ms, when first set */
	int		 done, nomem;
} g;

static char	 logged[64][256];
static int	 nlogged;

static void
logfn(void *arg, int prio, const char *reqid, const char *msg)
{
	(void)arg;
	(void)prio;
	(void)reqid;
	if (nlogged < 64)
		snprintf(logged[nlogged++], sizeof(logged[0]), "%s", msg);
}

static int
logged_has(const char *s)
{
	int	 i;

	for (i = 0; i < nlogged; i++)
		if (strstr(logged[i], s) != NULL)
			return 1;
	return 0;
}

static long long
now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
sleep_ms(int ms)
{
	struct timespec	 ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) == -1)
		continue;
}

/* The io's gone(): the client leaves once the counter reached gone_at. */
static int
gone(void *arg)
{
	(void)arg;
	g.gone_calls++;
	return g.gone_at > 0 && g.steps >= g.gone_at;
}

/*
 * count: args.n steps (default 50) of args.ms each (default 0), with a
 * progress call per step (no token needed) and a log line; stops at the
 * first one that fails.
 */
static enum wymcp_err
count_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*v;
	int			 n = 50, ms = 0;

	if (json_object_object_get_ex(args, "n", &v))
		n = json_object_get_int(v);
	if (json_object_object_get_ex(args, "ms", &v))
		ms = json_object_get_int(v);
	for (g.steps = 0; g.steps < n;) {
		if (ms > 0)
			sleep_ms(ms);
		g.steps++;
		if ((g.progress_rc = wymcp_progress(ctx, g.steps, n,
		    NULL)) != WYMCP_OK)
			break;
		if ((g.log_rc = wymcp_log(ctx, WYMCP_LOG_DEBUG, "step %d",
		    g.steps)) != WYMCP_OK)
			break;
	}
	g.cancelled = wymcp_cancelled(ctx);
	if (g.steps < n) {
		g.log_rc = wymcp_log(ctx, WYMCP_LOG_INFO, "stopped");
		return wymcp_result_error(res, "stopped at %d", g.steps);
	}
	return wymcp_result_add(res, wymcp_text(ctx, "counted"));
}

/* polite: sleeps in 5 ms steps until wymcp_cancelled() (or 2 s). */
static enum wymcp_err
polite_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	int	 i;

	(void)args;
	for (i = 0; i < 400 && !wymcp_cancelled(ctx); i++)
		sleep_ms(5);
	g.cancelled = wymcp_cancelled(ctx);
	g.progress_rc = wymcp_progress(ctx, 1, -1, NULL);
	g.log_rc = wymcp_log(ctx, WYMCP_LOG_INFO, "noticed");
	return wymcp_result_add(res, wymcp_text(ctx, "stopped politely"));
}

/* late: sleeps args.ms without looking, then returns a result. */
static enum wymcp_err
late_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*v;

	if (json_object_object_get_ex(args, "ms", &v))
		sleep_ms(json_object_get_int(v));
	return wymcp_result_add(res, wymcp_text(ctx, "late result"));
}

/* oom: reports running out of memory. */
static enum wymcp_err
oom_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	(void)ctx;
	(void)args;
	(void)res;
	return WYMCP_ERR_NOMEM;
}

/* ask: one question. */
static enum wymcp_err
ask_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;
	enum wymcp_err		 rc;

	(void)args;
	if ((rc = wymcp_elicit(ctx, "Sure?", "{\"type\":\"object\","
	    "\"properties\":{\"ok\":{\"type\":\"boolean\"}}}", &a)) !=
	    WYMCP_OK)
		return rc;
	return wymcp_result_add(res, wymcp_text(ctx, "asked"));
}

static const struct wymcp_tool tools[] = {
	{ .name = "count", .description = "Counts.",
	  .input_schema = "{\"type\":\"object\"}", .run = count_run },
	{ .name = "polite", .description = "Waits for a stop.",
	  .input_schema = "{\"type\":\"object\"}", .run = polite_run },
	{ .name = "late", .description = "Answers late.",
	  .input_schema = "{\"type\":\"object\"}", .run = late_run },
	{ .name = "oom", .description = "Runs out of memory.",
	  .input_schema = "{\"type\":\"object\"}", .run = oom_run },
	{ .name = "ask", .description = "Asks.",
	  .input_schema = "{\"type\":\"object\"}", .run = ask_run },
	{ .name = NULL }
};

static const struct wymcp_module mod = {
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "limits", .tools = tools,
	.tool_size = sizeof(struct wymcp_tool)
};

/* The request hook: keep what the program would. */
static void
hook(void *arg, const struct wymcp_request_info *ri)
{
	(void)arg;
	g.calls++;
	if (ri->method != NULL)
		snprintf(g.method, sizeof(g.method), "%s", ri->method);
	if (ri->name != NULL) {
		snprintf(g.name, sizeof(g.name), "%s", ri->name);
		g.named_before_done = !g.done;
	}
	if (ri->reqid != NULL)
		snprintf(g.reqid, sizeof(g.reqid), "%s", ri->reqid);
	if (ri->deadline_ms != 0 && g.deadline == 0)
		g.at = now_ms();
	g.deadline = ri->deadline_ms;
	g.done = ri->done;
	g.nomem = ri->nomem;
}

static void
setup(void)
{
	memset(&resp, 0, sizeof(resp));
	memset(&g, 0, sizeof(g));
	nlogged = 0;
	h_gone = NULL;
	srv = wymcp_server_new();
	ck_assert_ptr_nonnull(srv);
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod), WYMCP_OK);
	wymcp_server_set_log(srv, logfn, NULL, WYMCP_LOG_DEBUG);
	wymcp_server_set_request_fn(srv, hook, NULL);
}

static void
teardown(void)
{
	h_free(&resp);
	h_gone = NULL;
	wymcp_server_free(srv);
	srv = NULL;
}

static enum wymcp_err
call(const char *name, const char *params, const char *const *extra)
{
	h_free(&resp);
	return h_call(srv, "tools/call", name, params, extra, &resp);
}

/* The response is the time-limit error. */
static void
assert_timed_out(void)
{
	struct json_object	*e, *m;

	ck_assert_int_eq(resp.status, 504);
	ck_assert_int_eq(h_code(&resp), -32603);
	ck_assert(json_object_object_get_ex(resp.json, "error", &e));
	ck_assert(json_object_object_get_ex(e, "message", &m));
	ck_assert_ptr_nonnull(strstr(json_object_get_string(m),
	    "Request timed out"));
	ck_assert_ptr_null(h_result(&resp));
}

START_TEST(gone_stops_a_tool_without_progress_token)
{
	h_gone = gone;
	g.gone_at = 3;
	ck_assert_int_eq(call("count", "{\"name\":\"count\"}", NULL),
	    WYMCP_ERR_IO);
	/* Noticed at the first call after the client left: no 4th step. */
	ck_assert_int_eq(g.steps, 3);
	ck_assert_int_eq(g.progress_rc, WYMCP_ERR_IO);
	ck_assert_int_eq(g.log_rc, WYMCP_ERR_IO);
	ck_assert_int_eq(g.cancelled, 1);
	/* Nothing was written for a client that is gone. */
	ck_assert_ptr_null(resp.headers);
	ck_assert(logged_has("the client went away: the request is "
	    "cancelled"));
}
END_TEST

START_TEST(gone_is_not_read_through_wymcp_server_serve)
{
	/* wymcp_server_serve() reads the 0.2 members only. */
	g.gone_at = 1;
	ck_assert_int_eq(call("count", "{\"name\":\"count\","
	    "\"arguments\":{\"n\":5}}", NULL), WYMCP_OK);
	ck_assert_int_eq(g.steps, 5);
	ck_assert_int_eq(g.gone_calls, 0);
	ck_assert_str_eq(h_text(&resp), "counted");
}
END_TEST

START_TEST(serve_io_size_bounds_the_members_read)
{
	struct wymcp_io	 io;

	memset(&io, 0, sizeof(io));
	io.read = NULL;
	ck_assert_int_eq(wymcp_server_serve_io(srv, &io, sizeof(io)),
	    WYMCP_ERR_INVAL);
	io.read = (long (*)(void *, char *, size_t))1;
	io.write = (int (*)(void *, const char *, size_t))1;
	/* Smaller than the 0.2 structure: refused before anything. */
	ck_assert_int_eq(wymcp_server_serve_io(srv, &io,
	    offsetof(struct wymcp_io, arg)), WYMCP_ERR_INVAL);
}
END_TEST

START_TEST(no_gone_no_time_limit_runs_to_the_end)
{
	h_gone = gone;		/* never says gone */
	ck_assert_int_eq(call("count", "{\"name\":\"count\"}", NULL),
	    WYMCP_OK);
	ck_assert_int_eq(g.steps, 50);
	ck_assert_int_ge(g.gone_calls, 50);
	ck_assert_int_eq(g.cancelled, 0);
	ck_assert_str_eq(h_text(&resp), "counted");
	ck_assert_int_eq(g.deadline, 0);
}
END_TEST

START_TEST(deadline_stops_a_polite_tool)
{
	long long	 t0;

	wymcp_server_set_request_timeout(srv, 150);
	t0 = now_ms();
	ck_assert_int_eq(call("polite", "{\"name\":\"polite\"}", NULL),
	    WYMCP_OK);
	ck_assert_int_ge(now_ms() - t0, 150);
	ck_assert_int_lt(now_ms() - t0, 1500);
	ck_assert_int_eq(g.cancelled, 1);
	ck_assert_int_eq(g.progress_rc, WYMCP_ERR_IO);
	ck_assert_int_eq(g.log_rc, WYMCP_ERR_IO);
	/* Its result is not what the client gets. */
	assert_timed_out();
	ck_assert(logged_has("tools/call polite: still running at its time "
	    "limit (150 ms)"));
	/* The log line still went to the server's log. */
	ck_assert(logged_has("noticed"));
}
END_TEST

START_TEST(late_result_is_replaced)
{
	wymcp_server_set_request_timeout(srv, 100);
	ck_assert_int_eq(call("late", "{\"name\":\"late\","
	    "\"arguments\":{\"ms\":200}}", NULL), WYMCP_OK);
	assert_timed_out();
	/* It never looked: the end of the request says it. */
	ck_assert(logged_has("tools/call late: still running at its time "
	    "limit (100 ms): the request is cancelled"));
}
END_TEST

START_TEST(in_time_result_is_kept)
{
	wymcp_server_set_request_timeout(srv, 5000);
	ck_assert_int_eq(call("late", "{\"name\":\"late\","
	    "\"arguments\":{\"ms\":1}}", NULL), WYMCP_OK);
	ck_assert_int_eq(resp.status, 200);
	ck_assert_str_eq(h_text(&resp), "late result");
}
END_TEST

START_TEST(deadline_ends_a_stream_with_the_error)
{
	const char	*last, *p;

	/*
	 * A limit far above a step, so that a busy machine still sends
	 * the first progress in time; far below the whole run (3 s).
	 */
	wymcp_server_set_request_timeout(srv, 1000);
	ck_assert_int_eq(call("count", "{\"name\":\"count\","
	    "\"arguments\":{\"n\":100,\"ms\":30}," TOKEN_META "}", NULL),
	    WYMCP_OK);
	/* Some progress went out, then the limit stopped it. */
	ck_assert_int_ge(g.steps, 1);
	ck_assert_int_lt(g.steps, 100);
	ck_assert_int_eq(g.progress_rc, WYMCP_ERR_IO);
	ck_assert_ptr_nonnull(strstr(resp.headers, "text/event-stream"));
	ck_assert_ptr_nonnull(strstr(resp.body, "notifications/progress"));
	/* The last event is the time-limit error. */
	for (last = resp.body; (p = strstr(last + 1, "event: message")) !=
	    NULL; last = p)
		continue;
	ck_assert_ptr_nonnull(strstr(last, "\"error\""));
	ck_assert_ptr_nonnull(strstr(last, "-32603"));
	ck_assert_ptr_nonnull(strstr(last, "Request timed out"));
	ck_assert_ptr_null(strstr(resp.body, "\"result\""));
}
END_TEST

START_TEST(param_lowers_the_limit_never_raises_it)
{
	static const char *const two[] = { "WYMCP_REQUEST_TIMEOUT=2", NULL };
	static const char *const big[] = { "WYMCP_REQUEST_TIMEOUT=120",
		NULL };
	static const char *const zero[] = { "WYMCP_REQUEST_TIMEOUT=0", NULL };
	static const char *const bad[] = { "WYMCP_REQUEST_TIMEOUT=5s", NULL };
	long long	 left;

	wymcp_server_set_request_timeout(srv, 60000);
	ck_assert_int_eq(call("late", "{\"name\":\"late\"}", two), WYMCP_OK);
	left = g.deadline - g.at;
	ck_assert_int_ge(left, 1800);
	ck_assert_int_le(left, 2000);

	g.deadline = 0;
	ck_assert_int_eq(call("late", "{\"name\":\"late\"}", big), WYMCP_OK);
	left = g.deadline - g.at;
	ck_assert_int_ge(left, 59800);
	ck_assert_int_le(left, 60000);

	g.deadline = 0;
	ck_assert_int_eq(call("late", "{\"name\":\"late\"}", zero), WYMCP_OK);
	ck_assert_int_ge(g.deadline - g.at, 59800);

	g.deadline = 0;
	ck_assert_int_eq(call("late", "{\"name\":\"late\"}", bad), WYMCP_OK);
	ck_assert_int_ge(g.deadline - g.at, 59800);
	ck_assert(logged_has("WYMCP_REQUEST_TIMEOUT '5s' is not a number of "
	    "seconds: ignored"));

	/* No server limit: a location may still set one. */
	wymcp_server_set_request_timeout(srv, 0);
	g.deadline = 0;
	ck_assert_int_eq(call("late", "{\"name\":\"late\"}", two), WYMCP_OK);
	left = g.deadline - g.at;
	ck_assert_int_ge(left, 1800);
	ck_assert_int_le(left, 2000);
	g.deadline = 0;
	ck_assert_int_eq(call("late", "{\"name\":\"late\"}", NULL), WYMCP_OK);
	ck_assert_int_eq(g.deadline, 0);
	ck_assert_str_eq(h_text(&resp), "late result");
}
END_TEST

START_TEST(hook_names_method_tool_and_id)
{
	ck_assert_int_eq(call("late", "{\"name\":\"late\"}", NULL), WYMCP_OK);
	ck_assert_str_eq(g.method, "tools/call");
	ck_assert_str_eq(g.name, "late");
	ck_assert_str_eq(g.reqid, "1");
	ck_assert_int_eq(g.named_before_done, 1);
	ck_assert_int_eq(g.done, 1);
	ck_assert_int_eq(g.nomem, 0);
	/* Start, method, handler, done. */
	ck_assert_int_eq(g.calls, 4);

	memset(&g, 0, sizeof(g));
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, "tools/list", NULL, "{}", NULL, &resp),
	    WYMCP_OK);
	ck_assert_str_eq(g.method, "tools/list");
	ck_assert_str_eq(g.name, "");
	ck_assert_int_eq(g.done, 1);
}
END_TEST

START_TEST(hook_reports_running_out_of_memory)
{
	ck_assert_int_eq(call("oom", "{\"name\":\"oom\"}", NULL), WYMCP_OK);
	ck_assert_int_eq(h_code(&resp), -32603);
	ck_assert_int_eq(g.done, 1);
	ck_assert_int_eq(g.nomem, 1);
}
END_TEST

START_TEST(without_a_state_key_a_question_is_an_error)
{
	struct json_object	*res, *v;

	/* With the random key: input_required. */
	ck_assert_int_eq(call("ask", "{\"name\":\"ask\"," ELICIT_META "}",
	    NULL), WYMCP_OK);
	ck_assert_ptr_nonnull(res = h_result(&resp));
	ck_assert(json_object_object_get_ex(res, "resultType", &v));
	ck_assert_str_eq(json_object_get_string(v), "input_required");

	/* Without it: a clear error, no requestState. */
	wymcp_server_forget_random_key(srv);
	ck_assert_int_eq(call("ask", "{\"name\":\"ask\"," ELICIT_META "}",
	    NULL), WYMCP_OK);
	ck_assert_int_eq(resp.status, 500);
	ck_assert_int_eq(h_code(&resp), -32603);
	ck_assert_ptr_nonnull(strstr(resp.body, "no state key"));
	ck_assert_ptr_null(strstr(resp.body, "requestState\":\""));
	ck_assert(logged_has("ask: cannot ask the client: the server has "
	    "no state key"));
}
END_TEST

static Suite *
limits_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("limits");
	tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, gone_stops_a_tool_without_progress_token);
	tcase_add_test(tc, gone_is_not_read_through_wymcp_server_serve);
	tcase_add_test(tc, serve_io_size_bounds_the_members_read);
	tcase_add_test(tc, no_gone_no_time_limit_runs_to_the_end);
	tcase_add_test(tc, deadline_stops_a_polite_tool);
	tcase_add_test(tc, late_result_is_replaced);
	tcase_add_test(tc, in_time_result_is_kept);
	tcase_add_test(tc, deadline_ends_a_stream_with_the_error);
	tcase_add_test(tc, param_lowers_the_limit_never_raises_it);
	tcase_add_test(tc, hook_names_method_tool_and_id);
	tcase_add_test(tc, hook_reports_running_out_of_memory);
	tcase_add_test(tc, without_a_state_key_a_question_is_an_error);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 failed;

	sr = srunner_create(limits_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
