/*
 * check_store.c - the task store layer by itself (store/row.c and the
 * SQLite back end, store/sqlite.c, through its ops)
 *
 * Task ids: 144 random bits, base64url, never repeated, and anything
 * else refused before a query.  Rows: what is put comes back, field by
 * field; a claim takes the lease and counts the attempt, and a second
 * claim finds nothing while the lease holds; a change inside
 * modify() is written only when its function says so; the depth counts
 * by state; purge deletes only what has expired.  The PostgreSQL back
 * end runs the same paths through t/regress/check_tasks
 * (check-tasks-pg).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "store/store.h"

static char	 dir[64], path[128], uri[160];
static void	*h;

static void
setup(void)
{
	char	 err[300];

	snprintf(dir, sizeof(dir), "check_store.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/tasks.db", dir);
	snprintf(uri, sizeof(uri), "sqlite:%s", path);
	h = NULL;
	ck_assert_msg(wymcp__store_sqlite.open(uri, &h, err, sizeof(err)) ==
	    0, "%s", err);
}

static void
teardown(void)
{
	char	 p[160];

	wymcp__store_sqlite.close(h);
	h = NULL;
	(void)unlink(path);
	snprintf(p, sizeof(p), "%s-wal", path);
	(void)unlink(p);
	snprintf(p, sizeof(p), "%s-shm", path);
	(void)unlink(p);
	(void)rmdir(dir);
}

/* A task of `who' for tool "t", made `now', ready to run. */
static void
task(struct wymcp__task *t, const char *who, long long now, long long ttl)
{
	memset(t, 0, sizeof(*t));
	ck_assert_int_eq(wymcp__task_new_id(t->id), 0);
	t->principal = strdup(who);
	t->tool = strdup("t");
	t->args = strdup("{\"a\":1}");
	t->context = strdup("{}");
	t->status = WYMCP__TASK_WORKING;
	t->queued = 1;
	t->created = t->updated = now;
	t->ttl = ttl;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(a, b);
}

START_TEST(ids)
{
	static char	 many[1000][WYMCP__TASK_ID_LEN + 1];
	size_t		 i, j;

	for (i = 0; i < 1000; i++) {
		ck_assert_int_eq(wymcp__task_new_id(many[i]), 0);
		ck_assert_uint_eq(strlen(many[i]), WYMCP__TASK_ID_LEN);
		ck_assert(wymcp__task_id_ok(many[i]));
		for (j = 0; j < WYMCP__TASK_ID_LEN; j++)
			ck_assert_ptr_nonnull(strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "abcdefghijklmnopqrstuvwxyz0123456789-_",
			    many[i][j]));
	}
	qsort(many, 1000, sizeof(many[0]), cmp_str);
	for (i = 1; i < 1000; i++)
		ck_assert_str_ne(many[i - 1], many[i]);
	/* 18 bytes: 144 bits. */
	ck_assert_int_eq(WYMCP__TASK_ID_BYTES * 8, 144);
}
END_TEST

START_TEST(ids_refused)
{
	static const char *const bad[] = {
		"", "AAAAAAAAAAAAAAAAAAAAAAA", "AAAAAAAAAAAAAAAAAAAAAAAAA",
		"AAAAAAAAAAAAAAAAAAAAAAA+", "AAAAAAAAAAAAAAAAAAAAAAA/",
		"AAAAAAAAAAAAAAAAAAAAAAA=", "AAAAAAAAAAAAAAAAAAAAAAA ",
		"AAAAAAAAAAAAAAAAAAAAAA'1", "AAAAAAAAAAAAAAAAAAAAAA\xc3\xa9",
	};
	size_t	 i;

	ck_assert(!wymcp__task_id_ok(NULL));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(!wymcp__task_id_ok(bad[i]), "%s", bad[i]);
	ck_assert(wymcp__task_id_ok("AAAAAAAAAAAAAAAAAAAAAA-_"));
}
END_TEST

START_TEST(row_helpers)
{
	char	*s;

	ck_assert_str_eq(wymcp__task_status_name(WYMCP__TASK_WORKING),
	    "working");
	ck_assert_str_eq(wymcp__task_status_name(WYMCP__TASK_INPUT),
	    "input_required");
	ck_assert_str_eq(wymcp__task_status_name(WYMCP__TASK_COMPLETED),
	    "completed");
	ck_assert_str_eq(wymcp__task_status_name(WYMCP__TASK_FAILED),
	    "failed");
	ck_assert_str_eq(wymcp__task_status_name(WYMCP__TASK_CANCELLED),
	    "cancelled");
	ck_assert(!WYMCP__TASK_TERMINAL(WYMCP__TASK_INPUT));
	ck_assert(WYMCP__TASK_TERMINAL(WYMCP__TASK_CANCELLED));
	ck_assert_ptr_nonnull(s = wymcp__strdup_max("abcd", 4));
	ck_assert_str_eq(s, "abcd");
	free(s);
	ck_assert_ptr_null(wymcp__strdup_max("abcde", 4));
	ck_assert_ptr_null(wymcp__strdup_max(NULL, 4));
	ck_assert_int_gt(wymcp__now_ms(), 1700000000000LL);
}
END_TEST

/* What is put comes back; an unknown id is 1. */
START_TEST(put_get)
{
	struct wymcp__task	 t, g;

	task(&t, "alice", 1000, 60000);
	t.answers = strdup("{\"elicit-1\":{\"action\":\"accept\"}}");
	t.message = strdup("half way");
	ck_assert_int_eq(wymcp__store_sqlite.put(h, &t), 0);
	ck_assert_int_eq(wymcp__store_sqlite.get(h, t.id, &g), 0);
	ck_assert_str_eq(g.id, t.id);
	ck_assert_str_eq(g.principal, "alice");
	ck_assert_str_eq(g.tool, "t");
	ck_assert_str_eq(g.args, "{\"a\":1}");
	ck_assert_str_eq(g.answers, t.answers);
	ck_assert_str_eq(g.message, "half way");
	ck_assert_ptr_null(g.result);
	ck_assert_ptr_null(g.pending);
	ck_assert_int_eq(g.status, WYMCP__TASK_WORKING);
	ck_assert_int_eq(g.queued, 1);
	ck_assert_int_eq(g.attempts, 0);
	ck_assert_int_eq(g.created, 1000);
	ck_assert_int_eq(g.ttl, 60000);
	ck_assert_int_eq(g.lease, 0);
	wymcp__task_clear(&g);
	ck_assert_int_eq(wymcp__store_sqlite.get(h,
	    "AAAAAAAAAAAAAAAAAAAAAAAA", &g), 1);
	/* The same id twice is a failure, not a second row. */
	ck_assert_int_eq(wymcp__store_sqlite.put(h, &t), -1);
	ck_assert_ptr_nonnull(wymcp__store_sqlite.error(h));
	wymcp__task_clear(&t);
}
END_TEST

/* A claim takes the lease and counts the attempt; the oldest first. */
START_TEST(claim_lease)
{
	struct wymcp__task	 a, b, c;

	task(&a, "alice", 1000, 0);
	task(&b, "bob", 2000, 0);
	ck_assert_int_eq(wymcp__store_sqlite.put(h, &a), 0);
	ck_assert_int_eq(wymcp__store_sqlite.put(h, &b), 0);
	ck_assert_int_eq(wymcp__store_sqlite.claim(h, 5000, 300, &c), 0);
	ck_assert_str_eq(c.id, a.id);
	ck_assert_int_eq(c.lease, 5300);
	ck_assert_int_eq(c.attempts, 1);
	wymcp__task_clear(&c);
	ck_assert_int_eq(wymcp__store_sqlite.claim(h, 5000, 300, &c), 0);
	ck_assert_str_eq(c.id, b.id);
	wymcp__task_clear(&c);
	/* Both leased: nothing to claim until a lease ends. */
	ck_assert_int_eq(wymcp__store_sqlite.claim(h, 5100, 300, &c), 1);
	ck_assert_int_eq(wymcp__store_sqlite.claim(h, 5301, 300, &c), 0);
	ck_assert_str_eq(c.id, a.id);
	ck_assert_int_eq(c.attempts, 2);
	wymcp__task_clear(&c);
	wymcp__task_clear(&a);
	wymcp__task_clear(&b);
}
END_TEST

static int
finish(struct wymcp__task *t, void *arg)
{
	int	*write = arg;

	t->status = WYMCP__TASK_COMPLETED;
	t->queued = 0;
	free(t->result);
	t->result = strdup("{\"content\":[]}");
	return *write;
}

/* modify() writes the row back only when its function returns 1. */
START_TEST(modify_writes_when_asked)
{
	struct wymcp__task	 t, g;
	int			 write = 0;

	task(&t, "alice", 1000, 0);
	ck_assert_int_eq(wymcp__store_sqlite.put(h, &t), 0);
	ck_assert_int_eq(wymcp__store_sqlite.modify(h, t.id, finish, &write),
	    0);
	ck_assert_int_eq(wymcp__store_sqlite.get(h, t.id, &g), 0);
	ck_assert_int_eq(g.status, WYMCP__TASK_WORKING);
	ck_assert_ptr_null(g.result);
	wymcp__task_clear(&g);
	write = 1;
	ck_assert_int_eq(wymcp__store_sqlite.modify(h, t.id, finish, &write),
	    0);
	ck_assert_int_eq(wymcp__store_sqlite.get(h, t.id, &g), 0);
	ck_assert_int_eq(g.status, WYMCP__TASK_COMPLETED);
	ck_assert_str_eq(g.result, "{\"content\":[]}");
	wymcp__task_clear(&g);
	ck_assert_int_eq(wymcp__store_sqlite.modify(h,
	    "AAAAAAAAAAAAAAAAAAAAAAAA", finish, &write), 1);
	/* A function that fails: -1, the row untouched. */
	write = -1;
	ck_assert_int_eq(wymcp__store_sqlite.modify(h, t.id, finish, &write),
	    -1);
	wymcp__task_clear(&t);
}
END_TEST

/* The depth by state; purge deletes the expired only. */
START_TEST(depth_and_purge)
{
	struct wymcp__task	 a, b, c, d, g;
	long long		 n[3];

	task(&a, "alice", 1000, 0);		/* waiting */
	task(&b, "alice", 1001, 0);		/* claimed below */
	task(&c, "alice", 1002, 0);		/* input_required */
	c.status = WYMCP__TASK_INPUT;
	c.queued = 0;
	task(&d, "alice", 1003, 500);		/* expires at 1503 */
	ck_assert_int_eq(wymcp__store_sqlite.put(h, &a), 0);
	ck_assert_int_eq(wymcp__store_sqlite.put(h, &b), 0);
	ck_assert_int_eq(wymcp__store_sqlite.put(h, &c), 0);
	ck_assert_int_eq(wymcp__store_sqlite.put(h, &d), 0);
	ck_assert_int_eq(wymcp__store_sqlite.depth(h, 1100, n), 0);
	ck_assert(n[0] == 3 && n[1] == 0 && n[2] == 1);
	ck_assert_int_eq(wymcp__store_sqlite.claim(h, 1100, 10000, &g), 0);
	ck_assert_str_eq(g.id, a.id);
	wymcp__task_clear(&g);
	ck_assert_int_eq(wymcp__store_sqlite.depth(h, 1200, n), 0);
	ck_assert(n[0] == 2 && n[1] == 1 && n[2] == 1);
	/* Past d's TTL: not counted, then deleted. */
	ck_assert_int_eq(wymcp__store_sqlite.depth(h, 2000, n), 0);
	ck_assert(n[0] == 1 && n[1] == 1 && n[2] == 1);
	ck_assert_int_eq(wymcp__store_sqlite.purge(h, 2000), 0);
	ck_assert_int_eq(wymcp__store_sqlite.get(h, d.id, &g), 1);
	ck_assert_int_eq(wymcp__store_sqlite.get(h, a.id, &g), 0);
	wymcp__task_clear(&g);
	wymcp__task_clear(&a);
	wymcp__task_clear(&b);
	wymcp__task_clear(&c);
	wymcp__task_clear(&d);
}
END_TEST

/* A store opened again keeps its rows (the schema is not made twice). */
START_TEST(reopen)
{
	struct wymcp__task	 t, g;
	char			 err[300];

	task(&t, "alice", 1000, 0);
	ck_assert_int_eq(wymcp__store_sqlite.put(h, &t), 0);
	wymcp__store_sqlite.close(h);
	h = NULL;
	ck_assert_msg(wymcp__store_sqlite.open(uri, &h, err, sizeof(err)) ==
	    0, "%s", err);
	ck_assert_int_eq(wymcp__store_sqlite.get(h, t.id, &g), 0);
	ck_assert_str_eq(g.principal, "alice");
	wymcp__task_clear(&g);
	wymcp__task_clear(&t);
	/* SQLite has nothing to wait on: runners poll. */
	ck_assert_int_eq(wymcp__store_sqlite.fd(h), -1);
}
END_TEST

static Suite *
store_suite(void)
{
	Suite	*s = suite_create("store");
	TCase	*tc = tcase_create("rows");
	TCase	*tl = tcase_create("sqlite");

	tcase_add_test(tc, ids);
	tcase_add_test(tc, ids_refused);
	tcase_add_test(tc, row_helpers);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(tl, setup, teardown);
	tcase_add_test(tl, put_get);
	tcase_add_test(tl, claim_lease);
	tcase_add_test(tl, modify_writes_when_asked);
	tcase_add_test(tl, depth_and_purge);
	tcase_add_test(tl, reopen);
	suite_add_tcase(s, tl);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	sr = srunner_create(store_suite());
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
