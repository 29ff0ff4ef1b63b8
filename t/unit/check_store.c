/*
 * check_store.c - the task store layer by itself (store/row.c and the
 * SQLite back end, store/sqlite.c, through its ops)
 *
 * The back ends as objects of their own (sqlite.so, pg.so, loaded from
 * $WYMCP_BACKEND_DIR: the build tree's): each loads once and is what
 * its name says, pg.so with the bus; one configured out, of no known
 * name, or missing is refused with what is missing (backends).  The
 * SQLite cases run only in a build with SQLite.
 *
 * Task ids: 144 random bits, base64url, never repeated, and anything
 * else refused before a query.  Rows: what is put comes back, field by
 * field; a claim takes the lease, and a second claim finds nothing
 * while the lease holds; a claim counts an attempt only when it takes
 * over a lease that ran out (a runner died), and only when asked to; a
 * file of schema version 1 is upgraded; a change inside
 * modify() is written only when its function says so; the depth counts
 * by state; purge deletes only what has expired; the file and its -wal
 * and -shm files are the owner's only (0600) under umask 022, an older
 * 0644 file is made so, and a directory every user may write is
 * refused; put() keeps within a quota (quota_counts), and a file of
 * version 1 or 2 gains the bytes the quotas count.  The PostgreSQL back
 * end runs the same paths through t/regress/check_tasks
 * (check-tasks-pg).
 *
 * store.c's connection handling, over a back end that fails when told
 * (the SQLite one underneath): a connection that breaks is made again
 * and the call tried once more; a store that cannot be reached is
 * WYMCP__STORE_DOWN, told to the watch once, not tried again before
 * the back-off ends, and told again when it is back; a new connection
 * takes over no lease for the grace period; an outcome the store could
 * not take is kept and stored by the next wymcp_server_run_task().
 * The same against a real PostgreSQL restarted under load:
 * t/e2e/e2e_store.py.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>
#ifdef WITH_SQLITE
#include <sqlite3.h>
#endif

#include "store/store.h"

#ifdef WITH_SQLITE
static char	 dir[64], path[128], uri[160];
static void	*h;
static const struct wymcp__store_ops *lite;	/* sqlite.so's */

static void
setup(void)
{
	const struct wymcp__backend *be;
	char	 err[300];

	ck_assert_msg((be = wymcp__backend_load("sqlite", NULL, NULL, err,
	    sizeof(err))) != NULL, "%s", err);
	lite = be->store;
	snprintf(dir, sizeof(dir), "check_store.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/tasks.db", dir);
	snprintf(uri, sizeof(uri), "sqlite:%s", path);
	h = NULL;
	ck_assert_msg(lite->open(uri, &h, err, sizeof(err)) ==
	    0, "%s", err);
}

static void
teardown(void)
{
	char	 p[160];

	lite->close(h);
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
#endif /* WITH_SQLITE */

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
#ifdef WITH_SQLITE
START_TEST(put_get)
{
	struct wymcp__task	 t, g;

	task(&t, "alice", 1000, 60000);
	t.answers = strdup("{\"elicit-1\":{\"action\":\"accept\"}}");
	t.message = strdup("half way");
	ck_assert_int_eq(lite->put(h, &t, NULL), 0);
	ck_assert_int_eq(lite->get(h, t.id, &g), 0);
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
	ck_assert_int_eq(lite->get(h,
	    "AAAAAAAAAAAAAAAAAAAAAAAA", &g), 1);
	/* The same id twice is a failure, not a second row. */
	ck_assert_int_eq(lite->put(h, &t, NULL), -1);
	ck_assert_ptr_nonnull(lite->error(h));
	wymcp__task_clear(&t);
}
END_TEST

/*
 * A claim takes the lease, the oldest first; taking over a lease that
 * ran out counts an attempt, and happens only with take_over.
 */
START_TEST(claim_lease)
{
	struct wymcp__task	 a, b, c;

	task(&a, "alice", 1000, 0);
	task(&b, "bob", 2000, 0);
	ck_assert_int_eq(lite->put(h, &a, NULL), 0);
	ck_assert_int_eq(lite->put(h, &b, NULL), 0);
	ck_assert_int_eq(lite->claim(h, 5000, 300, 1, &c), 0);
	ck_assert_str_eq(c.id, a.id);
	ck_assert_int_eq(c.lease, 5300);
	ck_assert_int_eq(c.claims, 1);
	ck_assert_int_eq(c.attempts, 0);
	wymcp__task_clear(&c);
	ck_assert_int_eq(lite->claim(h, 5000, 300, 0, &c), 0);
	ck_assert_str_eq(c.id, b.id);
	wymcp__task_clear(&c);
	/* Both leased: nothing to claim until a lease ends. */
	ck_assert_int_eq(lite->claim(h, 5100, 300, 1, &c), 1);
	/* Ended, but not taken over without take_over. */
	ck_assert_int_eq(lite->claim(h, 5301, 300, 0, &c), 1);
	ck_assert_int_eq(lite->claim(h, 5301, 300, 1, &c), 0);
	ck_assert_str_eq(c.id, a.id);
	ck_assert_int_eq(c.claims, 2);
	ck_assert_int_eq(c.attempts, 1);
	wymcp__task_clear(&c);
	wymcp__task_clear(&a);
	wymcp__task_clear(&b);
}
END_TEST

/* Hand a claimed task back ready (a round ended, tasks/update came). */
static int
hand_back(struct wymcp__task *t, void *arg)
{
	(void)arg;
	t->lease = 0;
	t->queued = 1;
	return 1;
}

/* A claim after a clean hand-back is no attempt: no runner died. */
START_TEST(claim_after_hand_back)
{
	struct wymcp__task	 a, c;
	int			 i;

	task(&a, "alice", 1000, 0);
	ck_assert_int_eq(lite->put(h, &a, NULL), 0);
	for (i = 1; i <= 8; i++) {
		ck_assert_int_eq(lite->claim(h, 5000, 300, 1,
		    &c), 0);
		ck_assert_int_eq(c.claims, i);
		ck_assert_int_eq(c.attempts, 0);
		wymcp__task_clear(&c);
		ck_assert_int_eq(lite->modify(h, a.id,
		    hand_back, NULL), 0);
	}
	wymcp__task_clear(&a);
}
END_TEST

/* A file of schema version 1: claims are what attempts counted. */
START_TEST(upgrade_from_1)
{
	struct wymcp__quota	 q = { 0, 0, 0 };
	struct wymcp__task	 g;
	sqlite3			*db;
	char			 err[300];

	lite->close(h);
	h = NULL;
	(void)unlink(path);
	ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(db, "CREATE TABLE wymcp_tasks ("
	    "id TEXT PRIMARY KEY, principal TEXT NOT NULL, tool TEXT NOT "
	    "NULL, args TEXT NOT NULL, context TEXT, answers TEXT, pending "
	    "TEXT, result TEXT, error TEXT, message TEXT, status INTEGER NOT "
	    "NULL, cancel INTEGER NOT NULL DEFAULT 0, queued INTEGER NOT "
	    "NULL, attempts INTEGER NOT NULL DEFAULT 0, created INTEGER NOT "
	    "NULL, updated INTEGER NOT NULL, ttl INTEGER NOT NULL, expires "
	    "INTEGER NOT NULL, lease INTEGER NOT NULL DEFAULT 0);"
	    "INSERT INTO wymcp_tasks VALUES ('AAAAAAAAAAAAAAAAAAAAAAAB', 'a', "
	    "'t', '{}', NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, 1, 3, 1, 1, "
	    "0, 0, 9);PRAGMA user_version = 1;", NULL, NULL, NULL),
	    SQLITE_OK);
	sqlite3_close(db);
	ck_assert_msg(lite->open(uri, &h, err, sizeof(err)) ==
	    0, "%s", err);
	ck_assert_int_eq(lite->get(h,
	    "AAAAAAAAAAAAAAAAAAAAAAAB", &g), 0);
	ck_assert_int_eq(g.claims, 3);
	ck_assert_int_eq(g.attempts, 0);
	ck_assert_int_eq(g.lease, 9);
	wymcp__task_clear(&g);
	/* Version 3: its bytes ("{}") and status count for its principal. */
	task(&g, "a", 1000, 0);
	q.tasks = 1;
	ck_assert_int_eq(lite->put(h, &g, &q),
	    WYMCP__STORE_OVER_TASKS);
	q.tasks = 0;
	q.bytes = wymcp__task_bytes(&g) + 1;
	ck_assert_int_eq(lite->put(h, &g, &q),
	    WYMCP__STORE_OVER_BYTES);
	q.bytes++;
	ck_assert_int_eq(lite->put(h, &g, &q), 0);
	wymcp__task_clear(&g);
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
	ck_assert_int_eq(lite->put(h, &t, NULL), 0);
	ck_assert_int_eq(lite->modify(h, t.id, finish, &write),
	    0);
	ck_assert_int_eq(lite->get(h, t.id, &g), 0);
	ck_assert_int_eq(g.status, WYMCP__TASK_WORKING);
	ck_assert_ptr_null(g.result);
	wymcp__task_clear(&g);
	write = 1;
	ck_assert_int_eq(lite->modify(h, t.id, finish, &write),
	    0);
	ck_assert_int_eq(lite->get(h, t.id, &g), 0);
	ck_assert_int_eq(g.status, WYMCP__TASK_COMPLETED);
	ck_assert_str_eq(g.result, "{\"content\":[]}");
	wymcp__task_clear(&g);
	ck_assert_int_eq(lite->modify(h,
	    "AAAAAAAAAAAAAAAAAAAAAAAA", finish, &write), 1);
	/* A function that fails: -1, the row untouched. */
	write = -1;
	ck_assert_int_eq(lite->modify(h, t.id, finish, &write),
	    -1);
	wymcp__task_clear(&t);
}
END_TEST

/* A lease renewal: the lease moves on, and the row is written. */
static int
renew(struct wymcp__task *t, void *arg)
{
	t->lease += *(long long *)arg;
	return 1;
}

/* The size of the store's WAL file, 0 without one. */
static long long
wal_size(void)
{
	struct stat	 st;
	char		 p[160];

	snprintf(p, sizeof(p), "%s-wal", path);
	return stat(p, &st) == 0 ? (long long)st.st_size : 0;
}

/*
 * A claim, its lease renewals and the outcome rewrite a small row: a
 * task's megabyte of arguments is written once (version 4:
 * wymcp_task_args), not again into the WAL whenever the row grows
 * (SQLite rewrites a whole row then: 4.5 MB for these 22 writes on
 * version 3), which filled a small disk until no runner could claim.
 * Each commit still adds its pages (a few KB): less than the arguments
 * in all.  Read back, the arguments are whole.
 */
START_TEST(renewals_leave_args_alone)
{
	struct wymcp__task	 t, c;
	long long		 step = 1000, before, grew;
	char			*big;
	int			 i;

	task(&t, "alice", 1000, 0);
	big = malloc(1024 * 1024 + 16);
	ck_assert_ptr_nonnull(big);
	memset(big, 'x', 1024 * 1024 + 16);
	memcpy(big, "{\"pad\":\"", 8);
	memcpy(big + 1024 * 1024 + 8, "\"}", 3);
	free(t.args);
	t.args = big;
	ck_assert_int_eq(lite->put(h, &t, NULL), 0);
	/* A claim (the lease grows from 0 to a time: a longer row). */
	before = wal_size();
	ck_assert_int_eq(lite->claim(h, 1764633600000LL,
	    30000, 1, &c), 0);
	ck_assert_str_eq(c.args, big);
	wymcp__task_clear(&c);
	for (i = 0; i < 20; i++)
		ck_assert_int_eq(lite->modify(h, t.id, renew,
		    &step), 0);
	/* The outcome (a result: longer again). */
	i = 1;
	ck_assert_int_eq(lite->modify(h, t.id, finish, &i), 0);
	grew = wal_size() - before;
	ck_assert_msg(grew < 1024 * 1024, "a claim, 20 renewals and the "
	    "outcome grew the WAL by %lld bytes (the arguments rewritten?)",
	    grew);
	ck_assert_int_eq(lite->get(h, t.id, &c), 0);
	ck_assert_str_eq(c.args, big);
	ck_assert_str_eq(c.context, "{}");
	ck_assert_int_eq(c.status, WYMCP__TASK_COMPLETED);
	ck_assert_int_eq(c.lease, 1764633600000LL + 30000 + 20 * step);
	wymcp__task_clear(&c);
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
	ck_assert_int_eq(lite->put(h, &a, NULL), 0);
	ck_assert_int_eq(lite->put(h, &b, NULL), 0);
	ck_assert_int_eq(lite->put(h, &c, NULL), 0);
	ck_assert_int_eq(lite->put(h, &d, NULL), 0);
	ck_assert_int_eq(lite->depth(h, 1100, n), 0);
	ck_assert(n[0] == 3 && n[1] == 0 && n[2] == 1);
	ck_assert_int_eq(lite->claim(h, 1100, 10000, 1, &g), 0);
	ck_assert_str_eq(g.id, a.id);
	wymcp__task_clear(&g);
	ck_assert_int_eq(lite->depth(h, 1200, n), 0);
	ck_assert(n[0] == 2 && n[1] == 1 && n[2] == 1);
	/* Past d's TTL: not counted, then deleted. */
	ck_assert_int_eq(lite->depth(h, 2000, n), 0);
	ck_assert(n[0] == 1 && n[1] == 1 && n[2] == 1);
	ck_assert_int_eq(lite->purge(h, 2000), 0);
	ck_assert_int_eq(lite->get(h, d.id, &g), 1);
	ck_assert_int_eq(lite->get(h, a.id, &g), 0);
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
	ck_assert_int_eq(lite->put(h, &t, NULL), 0);
	lite->close(h);
	h = NULL;
	ck_assert_msg(lite->open(uri, &h, err, sizeof(err)) ==
	    0, "%s", err);
	ck_assert_int_eq(lite->get(h, t.id, &g), 0);
	ck_assert_str_eq(g.principal, "alice");
	wymcp__task_clear(&g);
	wymcp__task_clear(&t);
	/* SQLite has nothing to wait on: runners poll. */
	ck_assert_int_eq(lite->fd(h), -1);
}
END_TEST

/*
 * put() within a quota: a principal's unfinished tasks (a finished or
 * expired one no longer counts; another principal has a quota of its
 * own), its bytes (what a change adds counts too), the store's bytes;
 * 0 is no limit; a refusal stores nothing.
 */
START_TEST(quota_counts)
{
	struct wymcp__quota	 q = { 2, 0, 0 };
	struct wymcp__task	 a[3], b, c[3], d[2], g;
	long long		 n;
	int			 i, write = 1;

	for (i = 0; i < 3; i++)
		task(&a[i], "alice", 5000, 0);
	ck_assert_int_eq(lite->put(h, &a[0], &q), 0);
	ck_assert_int_eq(lite->put(h, &a[1], &q), 0);
	ck_assert_int_eq(lite->put(h, &a[2], &q),
	    WYMCP__STORE_OVER_TASKS);
	ck_assert_int_eq(lite->get(h, a[2].id, &g), 1);
	task(&b, "bob", 5000, 0);
	ck_assert_int_eq(lite->put(h, &b, &q), 0);
	/* Finished: no longer unfinished. */
	ck_assert_int_eq(lite->modify(h, a[0].id, finish,
	    &write), 0);
	ck_assert_int_eq(lite->put(h, &a[2], &q), 0);
	/* Expired (created 1000, ttl 10): counts for nothing. */
	task(&d[0], "dave", 1000, 10);
	task(&d[1], "dave", 5000, 0);
	ck_assert_int_eq(lite->put(h, &d[0], NULL), 0);
	q.tasks = 1;
	ck_assert_int_eq(lite->put(h, &d[1], &q), 0);

	/* Bytes: two tasks' worth, then a result grows the first. */
	for (i = 0; i < 3; i++)
		task(&c[i], "carol", 5000, 0);
	n = wymcp__task_bytes(&c[0]);
	ck_assert_int_gt(n, 0);
	q.tasks = 0;
	q.bytes = 3 * n;
	ck_assert_int_eq(lite->put(h, &c[0], &q), 0);
	ck_assert_int_eq(lite->put(h, &c[1], &q), 0);
	ck_assert_int_eq(lite->modify(h, c[0].id, finish,
	    &write), 0);
	ck_assert_int_eq(lite->put(h, &c[2], &q),
	    WYMCP__STORE_OVER_BYTES);
	q.bytes = 3 * n + (long long)strlen("{\"content\":[]}");
	ck_assert_int_eq(lite->put(h, &c[2], &q), 0);

	/* The store's bytes: every principal's. */
	task(&g, "erin", 5000, 0);
	q.bytes = 0;
	q.store = 7 * n;
	ck_assert_int_eq(lite->put(h, &g, &q),
	    WYMCP__STORE_FULL);
	q.store = 0;
	ck_assert_int_eq(lite->put(h, &g, &q), 0);
	wymcp__task_clear(&g);
	for (i = 0; i < 3; i++) {
		wymcp__task_clear(&a[i]);
		wymcp__task_clear(&c[i]);
	}
	wymcp__task_clear(&b);
	wymcp__task_clear(&d[0]);
	wymcp__task_clear(&d[1]);
}
END_TEST

/* The permission bits of `path' and its -wal and -shm files. */
static void
modes(int m[3])
{
	static const char *const sfx[] = { "", "-wal", "-shm" };
	struct stat	 st;
	char		 p[160];
	int		 i;

	for (i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s%s", path, sfx[i]);
		ck_assert_msg(stat(p, &st) == 0, "%s is missing", p);
		m[i] = (int)(st.st_mode & 07777);
	}
}

START_TEST(file_modes)
{
	static const char *const sfx[] = { "", "-wal", "-shm" };
	struct wymcp__task	 t;
	char			 err[300], p[160];
	int			 m[3], i;

	/* A new file under umask 022: 0600, and its WAL files too. */
	lite->close(h);
	h = NULL;
	for (i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s%s", path, sfx[i]);
		(void)unlink(p);
	}
	(void)umask(022);
	ck_assert_msg(lite->open(uri, &h, err, sizeof(err)) ==
	    0, "%s", err);
	task(&t, "alice", 1000, 0);
	ck_assert_int_eq(lite->put(h, &t, NULL), 0);
	wymcp__task_clear(&t);
	modes(m);
	ck_assert_msg(m[0] == 0600 && m[1] == 0600 && m[2] == 0600,
	    "modes %04o %04o %04o, want 0600", m[0], m[1], m[2]);
	/* Files an older wymcp made 0644: the owner's only at open. */
	lite->close(h);
	h = NULL;
	ck_assert_int_eq(chmod(path, 0644), 0);
	ck_assert_msg(lite->open(uri, &h, err, sizeof(err)) ==
	    0, "%s", err);
	modes(m);
	ck_assert_msg(m[0] == 0600 && m[1] == 0600 && m[2] == 0600,
	    "after 0644: modes %04o %04o %04o, want 0600", m[0], m[1], m[2]);
}
END_TEST

START_TEST(dir_others_write)
{
	char	 err[300];
	void	*h2 = NULL;

	/* Another user could put tasks.db-wal there first: refused. */
	ck_assert_int_eq(chmod(dir, 0777), 0);
	ck_assert_int_eq(lite->open(uri, &h2, err, sizeof(err)),
	    -1);
	ck_assert_ptr_null(h2);
	ck_assert_msg(strstr(err, "every user may write") != NULL, "%s", err);
	/* The sticky bit (/tmp) does not keep them from that either. */
	ck_assert_int_eq(chmod(dir, 01777), 0);
	ck_assert_int_eq(lite->open(uri, &h2, err, sizeof(err)),
	    -1);
	/* Group-writable is the operator's choice. */
	ck_assert_int_eq(chmod(dir, 0770), 0);
	ck_assert_msg(lite->open(uri, &h2, err, sizeof(err)) ==
	    0, "%s", err);
	lite->close(h2);
	ck_assert_int_eq(chmod(dir, 0700), 0);
}
END_TEST

/*
 * store.c over a back end that fails when told: the SQLite one, with
 * `opens_fail' opens refused and the next `calls_fail' calls answered
 * WYMCP__STORE_DOWN, as a restarted server's connection would be.
 */
static int	 opens, opens_fail, calls_fail, modifies_fail;

static int
flaky_open(const char *u, void **hp, char *err, size_t len)
{
	opens++;
	if (opens_fail > 0) {
		opens_fail--;
		snprintf(err, len, "flaky: connection refused");
		*hp = NULL;
		return -1;
	}
	return lite->open(u, hp, err, len);
}

static int
flaky(void)
{
	if (calls_fail > 0) {
		calls_fail--;
		return 1;
	}
	return 0;
}

static int
flaky_put(void *hh, const struct wymcp__task *t,
    const struct wymcp__quota *q)
{
	return flaky() ? WYMCP__STORE_DOWN : lite->put(hh, t,
	    q);
}

static int
flaky_get(void *hh, const char *id, struct wymcp__task *t)
{
	return flaky() ? WYMCP__STORE_DOWN : lite->get(hh, id,
	    t);
}

static int
flaky_claim(void *hh, long long now, long long lease, int take_over,
    struct wymcp__task *t)
{
	return flaky() ? WYMCP__STORE_DOWN : lite->claim(hh,
	    now, lease, take_over, t);
}

static int
flaky_modify(void *hh, const char *id, wymcp__task_fn fn, void *arg)
{
	if (modifies_fail > 0) {
		modifies_fail--;
		return WYMCP__STORE_DOWN;
	}
	return flaky() ? WYMCP__STORE_DOWN : lite->modify(hh,
	    id, fn, arg);
}

static const char *
flaky_error(void *hh)
{
	(void)hh;
	return "flaky: server closed the connection";
}

static struct wymcp__store_ops	 flaky_ops;
static struct wymcp_server	*srv;
static int			 events[WYMCP_STORE_SLOW + 1];
static char			 last_why[300];

static void
watch(void *arg, enum wymcp_store_event ev, const char *why)
{
	(void)arg;
	events[ev]++;
	snprintf(last_why, sizeof(last_why), "%s", why);
}

static void
setup_flaky(void)
{
	setup();
	lite->close(h);
	h = NULL;
	srv = wymcp_server_new();
	ck_assert_ptr_nonnull(srv);
	ck_assert_int_eq(wymcp_server_set_task_store(srv, uri), WYMCP_OK);
	flaky_ops = *lite;
	flaky_ops.open = flaky_open;
	flaky_ops.put = flaky_put;
	flaky_ops.get = flaky_get;
	flaky_ops.claim = flaky_claim;
	flaky_ops.modify = flaky_modify;
	flaky_ops.error = flaky_error;
	srv->tasks->ops = &flaky_ops;
	wymcp_server_set_task_store_watch(srv, watch, NULL);
	opens = opens_fail = calls_fail = modifies_fail = 0;
	memset(events, 0, sizeof(events));
}

static void
teardown_flaky(void)
{
	wymcp_server_free(srv);
	srv = NULL;
	teardown();
}

/* A connection that breaks is made again, and the call tried again. */
START_TEST(broken_connection_retried)
{
	struct wymcp__task	 t, g;

	task(&t, "alice", wymcp__now_ms(), 0);
	ck_assert_int_eq(wymcp__store_put(srv, &t), 0);
	ck_assert_int_eq(opens, 1);
	calls_fail = 1;
	ck_assert_int_eq(wymcp__store_get(srv, t.id, "alice", &g), 0);
	ck_assert_str_eq(g.id, t.id);
	wymcp__task_clear(&g);
	ck_assert_int_eq(opens, 2);
	ck_assert_int_eq(events[WYMCP_STORE_RECONNECT], 1);
	ck_assert_str_eq(last_why, "flaky: server closed the connection");
	ck_assert_int_eq(events[WYMCP_STORE_DOWN], 0);
	/* Twice in a row: the store is down for this call. */
	calls_fail = 2;
	ck_assert_int_eq(wymcp__store_get(srv, t.id, "alice", &g),
	    WYMCP__STORE_DOWN);
	ck_assert_int_eq(opens, 3);
	wymcp__task_clear(&t);
}
END_TEST

/* A put whose answer was lost but which landed is a success. */
START_TEST(lost_put_landed)
{
	struct wymcp__task	 t, g;
	void			*hh;
	char			 err[300];

	task(&t, "alice", wymcp__now_ms(), 0);
	/* Another connection stores it, as the lost first try did. */
	ck_assert_int_eq(lite->open(uri, &hh, err,
	    sizeof(err)), 0);
	ck_assert_int_eq(lite->put(hh, &t, NULL), 0);
	lite->close(hh);
	calls_fail = 1;
	ck_assert_int_eq(wymcp__store_put(srv, &t), 0);
	/* Another principal's task of that id is no success. */
	free(t.principal);
	t.principal = strdup("mallory");
	calls_fail = 1;
	ck_assert_int_eq(wymcp__store_put(srv, &t), -1);
	ck_assert_int_eq(wymcp__store_get(srv, t.id, "alice", &g), 0);
	wymcp__task_clear(&g);
	wymcp__task_clear(&t);
}
END_TEST

/*
 * A store that cannot be reached: DOWN, told once; no new connection
 * before the back-off ends; BACK when one is made.
 */
START_TEST(down_and_back)
{
	struct wymcp__task	 t, g;
	struct timespec		 ts = { 0, 250 * 1000000L };
	int			 i, n;

	task(&t, "alice", wymcp__now_ms(), 0);
	ck_assert_int_eq(wymcp__store_put(srv, &t), 0);
	calls_fail = 1;
	opens_fail = 100;
	ck_assert_int_eq(wymcp__store_get(srv, t.id, "alice", &g),
	    WYMCP__STORE_DOWN);
	ck_assert_int_eq(events[WYMCP_STORE_DOWN], 1);
	ck_assert_str_eq(last_why, "flaky: connection refused");
	n = opens;
	/* Within the back-off: answered at once, no connect tried. */
	for (i = 0; i < 50; i++)
		ck_assert_int_eq(wymcp__store_get(srv, t.id, "alice", &g),
		    WYMCP__STORE_DOWN);
	ck_assert_int_eq(opens, n);
	ck_assert_int_eq(events[WYMCP_STORE_DOWN], 1);
	ck_assert_int_eq(wymcp__store_claim(srv, &g), WYMCP__STORE_DOWN);
	ck_assert_int_eq(wymcp_server_task_fd(srv), -1);
	/* Still refused after the back-off: tried once, told no more. */
	nanosleep(&ts, NULL);
	ck_assert_int_eq(wymcp__store_get(srv, t.id, "alice", &g),
	    WYMCP__STORE_DOWN);
	ck_assert_int_eq(opens, n + 1);
	ck_assert_int_eq(events[WYMCP_STORE_DOWN], 1);
	/* Back. */
	opens_fail = 0;
	nanosleep(&ts, NULL);
	nanosleep(&ts, NULL);
	ck_assert_int_eq(wymcp__store_get(srv, t.id, "alice", &g), 0);
	wymcp__task_clear(&g);
	ck_assert_int_eq(events[WYMCP_STORE_BACK], 1);
	ck_assert_int_eq(events[WYMCP_STORE_DOWN], 1);
	wymcp__task_clear(&t);
}
END_TEST

/* A new connection takes over no lease that ran out for a while. */
START_TEST(grace_after_connect)
{
	struct wymcp__task	 t, g;
	void			*hh;
	char			 err[300];
	long long		 now = wymcp__now_ms();

	task(&t, "alice", now, 0);
	t.lease = now - 1000;		/* its runner's lease ran out */
	ck_assert_int_eq(lite->open(uri, &hh, err,
	    sizeof(err)), 0);
	ck_assert_int_eq(lite->put(hh, &t, NULL), 0);
	lite->close(hh);
	ck_assert_int_eq(wymcp__store_claim(srv, &g), 1);
	srv->tasks->connected_at -= WYMCP__TASK_GRACE_MS;
	ck_assert_int_eq(wymcp__store_claim(srv, &g), 0);
	ck_assert_str_eq(g.id, t.id);
	ck_assert_int_eq(g.attempts, 1);
	wymcp__task_clear(&g);
	wymcp__task_clear(&t);
}
END_TEST

/* Expire a task's lease (its runner "died"). */
static int
expire(struct wymcp__task *t, void *arg)
{
	(void)arg;
	t->lease = 1;
	return 1;
}

/* The row of `id' as another process reads it, into *g. */
static void
peek(const char *id, struct wymcp__task *g)
{
	void	*hh;
	char	 err[300];

	ck_assert_int_eq(lite->open(uri, &hh, err,
	    sizeof(err)), 0);
	ck_assert_int_eq(lite->get(hh, id, g), 0);
	lite->close(hh);
}

/*
 * The outcome of a run the store could not take is kept, and stored by
 * the next call once the store is back; one whose task was taken over
 * meanwhile is dropped, not written over the new runner's claim.
 */
START_TEST(outcome_kept)
{
	struct wymcp__task	 t, g;
	struct timespec		 ts = { 0, 300 * 1000000L };
	int			 take_over;

	for (take_over = 0; take_over < 2; take_over++) {
		task(&t, "alice", wymcp__now_ms(), 0);
		free(t.tool);
		t.tool = strdup("no_such_tool");	/* an outcome: failed */
		ck_assert_int_eq(wymcp__store_put(srv, &t), 0);
		/* The claim works; the outcome's write meets a down store. */
		modifies_fail = 1;
		opens_fail = 1000;
		ck_assert_int_eq(wymcp_server_run_task(srv), -1);
		ck_assert_int_eq(wymcp_server_task_unstored(srv), 1);
		ck_assert_int_eq(wymcp_server_run_task(srv), -1);
		ck_assert_int_eq(wymcp_server_task_unstored(srv), 1);
		peek(t.id, &g);
		ck_assert_int_eq(g.status, WYMCP__TASK_WORKING);
		ck_assert_int_gt(g.lease, 0);
		wymcp__task_clear(&g);
		if (take_over) {
			/* Another runner takes it over meanwhile. */
			void	*hh;
			char	 err[300];

			ck_assert_int_eq(lite->open(uri, &hh,
			    err, sizeof(err)), 0);
			ck_assert_int_eq(lite->modify(hh, t.id,
			    expire, NULL), 0);
			ck_assert_int_eq(lite->claim(hh,
			    wymcp__now_ms(), 60000, 1, &g), 0);
			ck_assert_int_eq(g.attempts, 1);
			wymcp__task_clear(&g);
			lite->close(hh);
		}
		/* Back: the next call stores it (or drops it). */
		opens_fail = 0;
		nanosleep(&ts, NULL);
		nanosleep(&ts, NULL);
		ck_assert_int_eq(wymcp_server_run_task(srv), 1);
		ck_assert_int_eq(wymcp_server_task_unstored(srv), 0);
		peek(t.id, &g);
		if (take_over) {
			ck_assert_int_eq(g.status, WYMCP__TASK_WORKING);
			ck_assert_int_eq(g.claims, 2);
		} else {
			ck_assert_int_eq(g.status, WYMCP__TASK_FAILED);
			ck_assert_ptr_nonnull(strstr(g.error,
			    "Unknown tool"));
			ck_assert_int_eq(g.lease, 0);
			ck_assert_int_eq(g.queued, 0);
		}
		wymcp__task_clear(&g);
		wymcp__task_clear(&t);
	}
}
END_TEST

#endif /* WITH_SQLITE */

/*
 * The back ends are objects of their own (store/backend.h): each
 * loads once and is what its name says; pg.so carries the bus; one
 * this wymcp was built without, or of no known name, is refused with
 * what is missing; a store whose back end is not where
 * $WYMCP_BACKEND_DIR says is WYMCP_ERR_MODULE, naming the file.
 */
START_TEST(backend_load)
{
	const struct wymcp__backend *be, *again;
	char			 err[300];

#ifdef WITH_SQLITE
	be = wymcp__backend_load("sqlite", NULL, NULL, err, sizeof(err));
	ck_assert_msg(be != NULL, "%s", err);
	ck_assert_str_eq(be->name, "sqlite");
	ck_assert_str_eq(be->store->name, "sqlite");
	ck_assert_ptr_null(be->bus);
	again = wymcp__backend_load("sqlite", NULL, NULL, err, sizeof(err));
	ck_assert_ptr_eq(again, be);
#else
	ck_assert_ptr_null(wymcp__backend_load("sqlite", NULL, NULL, err,
	    sizeof(err)));
	ck_assert_str_eq(err, "this wymcp was built without SQLite "
	    "(configure --without-sqlite)");
#endif
#ifdef WITH_POSTGRESQL
	be = wymcp__backend_load("pg", NULL, NULL, err, sizeof(err));
	ck_assert_msg(be != NULL, "%s", err);
	ck_assert_str_eq(be->name, "pg");
	ck_assert_str_eq(be->store->name, "postgresql");
	ck_assert_ptr_nonnull(be->bus);
	ck_assert_ptr_nonnull(be->bus->publish);
	again = wymcp__backend_load("pg", NULL, NULL, err, sizeof(err));
	ck_assert_ptr_eq(again, be);
#else
	ck_assert_ptr_null(wymcp__backend_load("pg", NULL, NULL, err,
	    sizeof(err)));
	ck_assert_str_eq(err, "this wymcp was built without PostgreSQL "
	    "(configure --without-postgresql)");
#endif
	(void)be;
	(void)again;
	ck_assert_ptr_null(wymcp__backend_load("oracle", NULL, NULL, err,
	    sizeof(err)));
	ck_assert_str_eq(err, "no back end 'oracle'");
}
END_TEST

#ifdef WITH_SQLITE
/* A file check that records what it saw and allows it or not. */
struct seen {
	char	 path[4096];
	int	 calls;
	int	 allow;
};

static int
vet(void *arg, const char *file, char *why, size_t whylen)
{
	struct seen	*s = arg;

	s->calls++;
	snprintf(s->path, sizeof(s->path), "%s", file);
	if (s->allow)
		return 0;
	snprintf(why, whylen, "not this one");
	return -1;
}
#endif

/*
 * In a process of its own (CK_FORK): nothing is loaded yet.  The one
 * loader by URI: the file check sees the back end's real path before
 * anything is loaded, and a refusal loads nothing and names the file;
 * once allowed the object stays, and is not vetted again.
 */
START_TEST(backend_check)
{
	const void	*obj;
	char		 err[1024], want[4200], *real;
	const char	*bdir;
#ifdef WITH_SQLITE
	const struct wymcp__backend *be;
	struct seen	 seen = { "", 0, 0 };
#endif

	obj = &obj;
	ck_assert_int_eq(wymcp_backend_load("mysql://x:secret@h/db", NULL,
	    NULL, &obj, err, sizeof(err)), WYMCP_ERR_INVAL);
	ck_assert_ptr_null(obj);
	ck_assert_str_eq(err, "neither sqlite:PATH nor postgresql://...");
	ck_assert_int_eq(wymcp_backend_load(NULL, NULL, NULL, NULL, err,
	    sizeof(err)), WYMCP_ERR_INVAL);
	bdir = getenv("WYMCP_BACKEND_DIR");
	ck_assert_ptr_nonnull(bdir);
#ifdef WITH_SQLITE
	snprintf(want, sizeof(want), "%s/sqlite.so", bdir);
	ck_assert_ptr_nonnull(real = realpath(want, NULL));
	ck_assert_int_eq(wymcp_backend_load("sqlite:x.db", vet, &seen, &obj,
	    err, sizeof(err)), WYMCP_ERR_MODULE);
	ck_assert_ptr_null(obj);
	ck_assert_int_eq(seen.calls, 1);
	ck_assert_str_eq(seen.path, real);
	snprintf(want, sizeof(want), "%s/sqlite.so: refused: not this one",
	    bdir);
	ck_assert_str_eq(err, want);
	seen.allow = 1;
	ck_assert_int_eq(wymcp_backend_load("sqlite:x.db", vet, &seen, &obj,
	    err, sizeof(err)), WYMCP_OK);
	ck_assert_int_eq(seen.calls, 2);
	be = obj;
	ck_assert_str_eq(be->name, "sqlite");
	seen.allow = 0;
	ck_assert_ptr_eq(wymcp__backend_load("sqlite", vet, &seen, err,
	    sizeof(err)), be);
	ck_assert_int_eq(seen.calls, 2);
	free(real);
#else
	(void)real;
	(void)want;
	ck_assert_int_eq(wymcp_backend_load("sqlite:x.db", NULL, NULL, &obj,
	    err, sizeof(err)), WYMCP_ERR_MODULE);
	ck_assert_str_eq(err, "this wymcp was built without SQLite "
	    "(configure --without-sqlite)");
#endif
#ifndef WITH_POSTGRESQL
	ck_assert_int_eq(wymcp_backend_load("postgres://u:secret@h/db", NULL,
	    NULL, &obj, err, sizeof(err)), WYMCP_ERR_MODULE);
	ck_assert_str_eq(err, "this wymcp was built without PostgreSQL "
	    "(configure --without-postgresql)");
#endif
}
END_TEST

/*
 * The bus through wymcp.h: a back end without one (sqlite.so, or none)
 * is WYMCP_ERR_INVAL and makes nothing; pg.so's publishes, and fails
 * with why, and its connection is made, fails, and is closed.
 */
START_TEST(bus_public)
{
	struct wymcp_bus	*bus = NULL;
	const void		*obj = NULL;
	char			 err[512];
#ifdef WITH_POSTGRESQL
	struct pollfd		 pfd;
	int			 rc;
#endif

	ck_assert_int_eq(wymcp_backend_has_bus(NULL), 0);
	bus = (struct wymcp_bus *)&obj;
	ck_assert_int_eq(wymcp_bus_start(NULL, "postgresql:///x", &bus),
	    WYMCP_ERR_INVAL);
	ck_assert_ptr_null(bus);
	ck_assert_int_eq(wymcp_bus_publish(NULL, "postgresql:///x", "c", "m",
	    err, sizeof(err)), WYMCP_ERR_INVAL);
	ck_assert_str_eq(err, "no bus: the back end carries none");
	ck_assert_str_eq(wymcp_bus_error(NULL), "");
	ck_assert_int_eq(wymcp_bus_fd(NULL), -1);
	wymcp_bus_close(NULL);
#ifdef WITH_SQLITE
	ck_assert_int_eq(wymcp_backend_load("sqlite:x.db", NULL, NULL, &obj,
	    err, sizeof(err)), WYMCP_OK);
	ck_assert_int_eq(wymcp_backend_has_bus(obj), 0);
	ck_assert_int_eq(wymcp_bus_start(obj, "sqlite:x.db", &bus),
	    WYMCP_ERR_INVAL);
	ck_assert_ptr_null(bus);
#endif
#ifdef WITH_POSTGRESQL
	ck_assert_int_eq(wymcp_backend_load("postgresql:///x", NULL, NULL,
	    &obj, err, sizeof(err)), WYMCP_OK);
	ck_assert_int_eq(wymcp_backend_has_bus(obj), 1);
	/* Port 1 of this host: nothing listens, refused at once. */
	ck_assert_int_eq(wymcp_bus_publish(obj,
	    "postgresql://nobody@127.0.0.1:1/none", "c", "m", err,
	    sizeof(err)), WYMCP_ERR_IO);
	ck_assert_msg(err[0] != '\0', "publish failed without a reason");
	if (wymcp_bus_start(obj, "postgresql://nobody@127.0.0.1:1/none",
	    &bus) == WYMCP_OK) {
		ck_assert_ptr_nonnull(bus);
		while ((rc = wymcp_bus_poll(bus)) > 0) {
			pfd.fd = wymcp_bus_fd(bus);
			pfd.events = rc == WYMCP_BUS_READ ? POLLIN : POLLOUT;
			ck_assert_int_ge(poll(&pfd, 1, 10000), 0);
		}
		ck_assert_int_eq(rc, -1);
		ck_assert_int_eq(wymcp_bus_bad(bus), 1);
	}
	ck_assert_ptr_nonnull(bus);
	ck_assert_str_ne(wymcp_bus_error(bus), "");
	wymcp_bus_close(bus);
#endif
}
END_TEST

/* In a process of its own (CK_FORK): nothing is loaded yet. */
START_TEST(backend_missing)
{
	struct wymcp_server	*s;
	char			 d[64], want[160];

	snprintf(d, sizeof(d), "check_store.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(d));
	ck_assert_int_eq(setenv("WYMCP_BACKEND_DIR", d, 1), 0);
	s = wymcp_server_new();
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(wymcp_server_set_task_store(s,
	    "postgresql://nobody:secret@127.0.0.1:1/none"), WYMCP_ERR_MODULE);
#ifdef WITH_POSTGRESQL
	snprintf(want, sizeof(want), "cannot load %s/pg.so: ", d);
#else
	snprintf(want, sizeof(want), "built without PostgreSQL");
#endif
	ck_assert_msg(strstr(wymcp_server_errmsg(s), want) != NULL,
	    "%s", wymcp_server_errmsg(s));
	ck_assert_ptr_null(strstr(wymcp_server_errmsg(s), "secret"));
	ck_assert_ptr_null(s->tasks);
	wymcp_server_free(s);
	ck_assert_int_eq(rmdir(d), 0);
}
END_TEST

static Suite *
store_suite(void)
{
	Suite	*s = suite_create("store");
	TCase	*tc = tcase_create("rows");
	TCase	*tb = tcase_create("backends");
#ifdef WITH_SQLITE
	TCase	*tl = tcase_create("sqlite");
	TCase	*tf = tcase_create("connection");
#endif
	const char *ckfork = getenv("CK_FORK");

	tcase_add_test(tc, ids);
	tcase_add_test(tc, ids_refused);
	tcase_add_test(tc, row_helpers);
	suite_add_tcase(s, tc);
	tcase_add_test(tb, backend_load);
	tcase_add_test(tb, bus_public);
	/* It needs a process where nothing was loaded yet. */
	if (ckfork == NULL || strcmp(ckfork, "no") != 0) {
		tcase_add_test(tb, backend_missing);
		tcase_add_test(tb, backend_check);
	}
	suite_add_tcase(s, tb);
#ifdef WITH_SQLITE
	tcase_add_checked_fixture(tl, setup, teardown);
	tcase_add_test(tl, put_get);
	tcase_add_test(tl, claim_lease);
	tcase_add_test(tl, modify_writes_when_asked);
	tcase_add_test(tl, renewals_leave_args_alone);
	tcase_add_test(tl, depth_and_purge);
	tcase_add_test(tl, reopen);
	tcase_add_test(tl, claim_after_hand_back);
	tcase_add_test(tl, upgrade_from_1);
	tcase_add_test(tl, file_modes);
	tcase_add_test(tl, quota_counts);
	tcase_add_test(tl, dir_others_write);
	suite_add_tcase(s, tl);
	tcase_add_checked_fixture(tf, setup_flaky, teardown_flaky);
	tcase_add_test(tf, broken_connection_retried);
	tcase_add_test(tf, lost_put_landed);
	tcase_add_test(tf, down_and_back);
	tcase_add_test(tf, grace_after_connect);
	tcase_add_test(tf, outcome_kept);
	suite_add_tcase(s, tf);
#endif
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
