/*
 * sqlite.c - the task store in a SQLite file (--task-store sqlite:PATH)
 *
 * One file per instance, shared by every worker and runner of the host:
 * WAL mode (readers never wait for the writer), synchronous=FULL (a
 * task is on disk before its handle is answered: tasks.md "MUST NOT
 * return CreateTaskResult until the task is durably created"), and
 * writes in BEGIN IMMEDIATE transactions with a busy timeout, so that
 * two runners never claim the same task.  The schema carries its
 * version in PRAGMA user_version; open() upgrades an older file step
 * by step (the `upgrade' array) and refuses a newer one.
 *
 * A failure that is the file's state, not the statement's, is
 * WYMCP__STORE_DOWN (store.c answers 503 and opens the file again at
 * its next use): the lock not had within the busy timeout (SQLITE_BUSY,
 * SQLITE_LOCKED), a full disk (SQLITE_FULL), an I/O error, a file or
 * directory made read-only, a file that cannot be opened.  The first
 * error is the one kept: the ROLLBACK after it does not overwrite it.
 *
 * The file holds arguments, results, principals and assigns: open()
 * creates it 0600 whatever the umask (its -wal and -shm files take its
 * mode: SQLite's unix VFS copies it), takes group and other bits off
 * the three files when they have them, and refuses a directory every
 * user may write, where another user could put the -wal or -shm file
 * in place first, or replace the file.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store/backend.h"

#define BUSY_MS		10000	/* wait for the writer's lock */
#define FREE_MIN	(1024 * 1024)	/* disk kept free, and ... */
#define FREE_TIMES	4	/* ... this many times a new task's bytes */

/*
 * The schema, one step per version: upgrade[i] takes a file at version
 * i to version i + 1.  Only ever append.
 */
static const char *const upgrade[] = {
	/* 0 -> 1: the task table. */
	"CREATE TABLE wymcp_tasks ("
	"  id TEXT PRIMARY KEY,"
	"  principal TEXT NOT NULL,"
	"  tool TEXT NOT NULL,"
	"  args TEXT NOT NULL,"
	"  context TEXT,"
	"  answers TEXT,"
	"  pending TEXT,"
	"  result TEXT,"
	"  error TEXT,"
	"  message TEXT,"
	"  status INTEGER NOT NULL,"
	"  cancel INTEGER NOT NULL DEFAULT 0,"
	"  queued INTEGER NOT NULL,"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  created INTEGER NOT NULL,"
	"  updated INTEGER NOT NULL,"
	"  ttl INTEGER NOT NULL,"
	"  expires INTEGER NOT NULL,"	/* created + ttl; 0: never */
	"  lease INTEGER NOT NULL DEFAULT 0"
	");"
	"CREATE INDEX wymcp_tasks_queue ON wymcp_tasks (queued, lease);"
	"CREATE INDEX wymcp_tasks_expires ON wymcp_tasks (expires);",
	/*
	 * 1 -> 2: claims, the runner's token, apart from attempts, which
	 * now counts the runners that died only.
	 */
	"ALTER TABLE wymcp_tasks ADD COLUMN claims INTEGER NOT NULL "
	"DEFAULT 0;"
	"UPDATE wymcp_tasks SET claims = attempts, attempts = 0;",
	/*
	 * 2 -> 3: bytes, what the quotas count (wymcp__task_bytes()), and
	 * indexes that answer a principal's sums and the store's without
	 * reading a row; the second one serves purge() as the old one did.
	 */
	"ALTER TABLE wymcp_tasks ADD COLUMN bytes INTEGER NOT NULL "
	"DEFAULT 0;"
	"UPDATE wymcp_tasks SET bytes = length(CAST(args AS BLOB)) + "
	"COALESCE(length(CAST(context AS BLOB)), 0) + "
	"COALESCE(length(CAST(answers AS BLOB)), 0) + "
	"COALESCE(length(CAST(pending AS BLOB)), 0) + "
	"COALESCE(length(CAST(result AS BLOB)), 0) + "
	"COALESCE(length(CAST(error AS BLOB)), 0) + "
	"COALESCE(length(CAST(message AS BLOB)), 0);"
	"CREATE INDEX wymcp_tasks_principal ON wymcp_tasks "
	"(principal, expires, status, bytes);"
	"DROP INDEX IF EXISTS wymcp_tasks_expires;"
	"CREATE INDEX wymcp_tasks_bytes ON wymcp_tasks (expires, bytes);",
	/*
	 * 3 -> 4: arguments and context, written once, in a table of
	 * their own, so that a claim, a lease renewal or an outcome
	 * rewrites a small row: SQLite rewrites a whole row on UPDATE,
	 * and a task's megabyte of arguments in the WAL at each renewal
	 * filled a small disk, after which no runner could claim.  The
	 * trigger deletes them with their task.
	 */
	"CREATE TABLE wymcp_task_args ("
	"  id TEXT PRIMARY KEY,"
	"  args TEXT NOT NULL,"
	"  context TEXT"
	");"
	"INSERT INTO wymcp_task_args SELECT id, args, context "
	"FROM wymcp_tasks;"
	"UPDATE wymcp_tasks SET args = '', context = NULL;"
	"CREATE TRIGGER wymcp_tasks_gone AFTER DELETE ON wymcp_tasks "
	"BEGIN DELETE FROM wymcp_task_args WHERE id = old.id; END;",
};
#define SCHEMA_VERSION	((int)(sizeof(upgrade) / sizeof(upgrade[0])))

#define COLUMNS	"id, principal, tool, args, context, answers, pending, " \
	"result, error, message, status, cancel, queued, attempts, " \
	"created, updated, ttl, lease, claims"
/* The same, read: arguments and context from wymcp_task_args. */
#define SELECT_ROW \
	"SELECT t.id, t.principal, t.tool, a.args, a.context, t.answers, " \
	"t.pending, t.result, t.error, t.message, t.status, t.cancel, " \
	"t.queued, t.attempts, t.created, t.updated, t.ttl, t.lease, " \
	"t.claims FROM wymcp_tasks t JOIN wymcp_task_args a ON a.id = t.id "

struct lite {
	sqlite3		*db;
	char		 dir[4096];	/* the file's directory */
	char		 err[256];
};

static const char *
lite_error(void *h)
{
	return ((struct lite *)h)->err;
}

/* -1, or WYMCP__STORE_DOWN when the last error is the file's state. */
static int
kind(struct lite *l)
{
	if (l->db == NULL)
		return -1;
	switch (sqlite3_errcode(l->db) & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
	case SQLITE_FULL:
	case SQLITE_IOERR:
	case SQLITE_READONLY:
	case SQLITE_CANTOPEN:
	case SQLITE_PROTOCOL:
		return WYMCP__STORE_DOWN;
	default:
		return -1;
	}
}

/* Record what failed; -1 or WYMCP__STORE_DOWN (kind()). */
static int
fail(struct lite *l, const char *what)
{
	snprintf(l->err, sizeof(l->err), "sqlite: %s: %s", what,
	    l->db != NULL ? sqlite3_errmsg(l->db) : "out of memory");
	return kind(l);
}

static int
exec(struct lite *l, const char *sql)
{
	char	*msg = NULL;

	if (sqlite3_exec(l->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(l->err, sizeof(l->err), "sqlite: %.60s: %s", sql,
		    msg != NULL ? msg : sqlite3_errmsg(l->db));
		sqlite3_free(msg);
		return kind(l);
	}
	return 0;
}

/* End a failed transaction, keeping the first error's words. */
static void
rollback(struct lite *l)
{
	(void)sqlite3_exec(l->db, "ROLLBACK", NULL, NULL, NULL);
}

static void
lite_close(void *h)
{
	struct lite	*l = h;

	if (l == NULL)
		return;
	sqlite3_close(l->db);
	free(l);
}

/* The schema version, brought up to SCHEMA_VERSION; -1 on failure. */
static int
migrate(struct lite *l)
{
	sqlite3_stmt	*st = NULL;
	char		 sql[64];
	int		 v;

	if (exec(l, "BEGIN IMMEDIATE") != 0)
		return -1;
	if (sqlite3_prepare_v2(l->db, "PRAGMA user_version", -1, &st,
	    NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		(void)fail(l, "user_version");
		rollback(l);
		return -1;
	}
	v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (v > SCHEMA_VERSION) {
		snprintf(l->err, sizeof(l->err), "sqlite: the task store's "
		    "schema is version %d, newer than this wymcp's %d", v,
		    SCHEMA_VERSION);
		rollback(l);
		return -1;
	}
	/*
	 * Nothing is written when nothing changes: opening a store on a
	 * full disk must work, so that runners go on claiming.
	 */
	if (v == SCHEMA_VERSION) {
		rollback(l);
		return 0;
	}
	for (; v < SCHEMA_VERSION; v++)
		if (exec(l, upgrade[v]) != 0) {
			rollback(l);
			return -1;
		}
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", SCHEMA_VERSION);
	if (exec(l, sql) != 0 || exec(l, "COMMIT") != 0) {
		rollback(l);
		return -1;
	}
	return 0;
}

/* Take group and other bits off `path', when it is there and ours. */
static void
owner_only(const char *path)
{
	struct stat	 st;

	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_uid == geteuid() && (st.st_mode & 077) != 0)
		(void)chmod(path, st.st_mode & 0700);
}

/*
 * Before SQLite opens `path': refuse a directory every user may write;
 * create the file 0600 when it is not there (an empty file is an empty
 * database), and make it and its -wal and -shm files the owner's only.
 * A file that cannot be made here is left to SQLite, whose error says
 * why (a read-only directory is the store's state, not a refusal).
 * 0, or -1 with why in `err'.
 */
static int
private_file(const char *path, char *dir, size_t dirlen, char *err,
    size_t errlen)
{
	struct stat	 st;
	const char	*slash = strrchr(path, '/');
	char		 side[4096 + 8];
	int		 fd;

	if (slash == NULL)
		snprintf(dir, dirlen, ".");
	else if (slash == path)
		snprintf(dir, dirlen, "/");
	else
		snprintf(dir, dirlen, "%.*s", (int)(slash - path), path);
	if (stat(dir, &st) == 0 && (st.st_mode & S_IWOTH)) {
		snprintf(err, errlen, "sqlite: %s: every user may write this "
		    "directory (mode %04o): put the task store in a directory "
		    "only its owner (and group) may write", dir,
		    (unsigned int)(st.st_mode & 07777));
		return -1;
	}
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) != -1)
		(void)close(fd);
	owner_only(path);
	snprintf(side, sizeof(side), "%s-wal", path);
	owner_only(side);
	snprintf(side, sizeof(side), "%s-shm", path);
	owner_only(side);
	return 0;
}

static int
lite_open(const char *uri, void **h, char *err, size_t errlen)
{
	struct lite	*l;
	const char	*path = uri + strlen("sqlite:");

	*h = NULL;
	if ((l = calloc(1, sizeof(*l))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (*path == '\0') {
		snprintf(err, errlen, "sqlite: no file name in '%s'", uri);
		free(l);
		return -1;
	}
	if (private_file(path, l->dir, sizeof(l->dir), err, errlen) != 0) {
		free(l);
		return -1;
	}
	if (sqlite3_open_v2(path, &l->db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
	    sqlite3_busy_timeout(l->db, BUSY_MS) != SQLITE_OK ||
	    exec(l, "PRAGMA journal_mode = WAL") != 0 ||
	    exec(l, "PRAGMA synchronous = FULL") != 0 ||
	    migrate(l) != 0) {
		if (l->err[0] == '\0')
			(void)fail(l, path);
		snprintf(err, errlen, "%s", l->err);
		lite_close(l);
		return -1;
	}
	*h = l;
	return 0;
}

/* Bind text or NULL. */
static int
bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s == NULL)
		return sqlite3_bind_null(st, i);
	return sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

/*
 * Bind every column of `t', in COLUMNS order, from parameter 1, then
 * expires (20) and bytes (21).
 */
static int
bind_row(sqlite3_stmt *st, const struct wymcp__task *t)
{
	int	 rc = 0;

	rc |= bind_text(st, 1, t->id);
	rc |= bind_text(st, 2, t->principal != NULL ? t->principal : "");
	rc |= bind_text(st, 3, t->tool);
	rc |= bind_text(st, 4, t->args != NULL ? t->args : "{}");
	rc |= bind_text(st, 5, t->context);
	rc |= bind_text(st, 6, t->answers);
	rc |= bind_text(st, 7, t->pending);
	rc |= bind_text(st, 8, t->result);
	rc |= bind_text(st, 9, t->error);
	rc |= bind_text(st, 10, t->message);
	rc |= sqlite3_bind_int(st, 11, t->status);
	rc |= sqlite3_bind_int(st, 12, t->cancel);
	rc |= sqlite3_bind_int(st, 13, t->queued);
	rc |= sqlite3_bind_int(st, 14, t->attempts);
	rc |= sqlite3_bind_int64(st, 15, t->created);
	rc |= sqlite3_bind_int64(st, 16, t->updated);
	rc |= sqlite3_bind_int64(st, 17, t->ttl);
	rc |= sqlite3_bind_int64(st, 18, t->lease);
	rc |= sqlite3_bind_int64(st, 19, t->claims);
	rc |= sqlite3_bind_int64(st, 20, t->ttl > 0 ? t->created + t->ttl :
	    0);
	rc |= sqlite3_bind_int64(st, 21, wymcp__task_bytes(t));
	return rc == SQLITE_OK ? 0 : -1;
}

/* A copy of text column i, or NULL; *bad is set when out of memory. */
static char *
col_text(sqlite3_stmt *st, int i, int *bad)
{
	const unsigned char	*s;
	char			*c;

	if ((s = sqlite3_column_text(st, i)) == NULL)
		return NULL;
	if ((c = strdup((const char *)s)) == NULL)
		*bad = 1;
	return c;
}

/* Read the row `st' is on (COLUMNS order) into *t. */
static int
read_row(sqlite3_stmt *st, struct wymcp__task *t)
{
	const unsigned char	*id;
	int			 bad = 0;

	memset(t, 0, sizeof(*t));
	if ((id = sqlite3_column_text(st, 0)) != NULL)
		snprintf(t->id, sizeof(t->id), "%s", (const char *)id);
	t->principal = col_text(st, 1, &bad);
	t->tool = col_text(st, 2, &bad);
	t->args = col_text(st, 3, &bad);
	t->context = col_text(st, 4, &bad);
	t->answers = col_text(st, 5, &bad);
	t->pending = col_text(st, 6, &bad);
	t->result = col_text(st, 7, &bad);
	t->error = col_text(st, 8, &bad);
	t->message = col_text(st, 9, &bad);
	t->status = sqlite3_column_int(st, 10);
	t->cancel = sqlite3_column_int(st, 11);
	t->queued = sqlite3_column_int(st, 12);
	t->attempts = sqlite3_column_int(st, 13);
	t->created = sqlite3_column_int64(st, 14);
	t->updated = sqlite3_column_int64(st, 15);
	t->ttl = sqlite3_column_int64(st, 16);
	t->lease = sqlite3_column_int64(st, 17);
	t->claims = sqlite3_column_int(st, 18);
	if (bad) {
		wymcp__task_clear(t);
		return -1;
	}
	return 0;
}

/*
 * Would a new task of `bytes' leave the file system too little room?
 * Its row goes into the WAL, then (checkpointed) into the file, and its
 * outcome rewrites it: FREE_TIMES its size, and FREE_MIN more for the
 * claims and outcomes of the tasks already made, must stay free, so
 * that tasks alone never fill the disk and runners go on claiming.
 * 0, or -1 when there is not enough (a file system that cannot say:
 * 0).
 */
static int
room(struct lite *l, long long bytes)
{
	struct statvfs	 vfs;
	unsigned long long avail;

	if (statvfs(l->dir, &vfs) == -1)
		return 0;
	avail = (unsigned long long)vfs.f_bavail * vfs.f_frsize;
	return avail < (unsigned long long)(FREE_TIMES * bytes + FREE_MIN) ?
	    -1 : 0;
}

/*
 * Would task `t' take its principal's tasks, or the store, past `q'
 * (NULL: no limits, and no look at the disk), or its file system
 * (room())?  0,
 * WYMCP__STORE_OVER_TASKS, _OVER_BYTES or WYMCP__STORE_FULL, or as
 * fail().  Inside the put's write transaction:
 * no other put can come between the sums and the insert.  Live is at
 * the task's creation time.
 */
static int
over(struct lite *l, const struct wymcp__task *t,
    const struct wymcp__quota *q)
{
	sqlite3_stmt	*st = NULL;
	long long	 b = wymcp__task_bytes(t), n, sum;

	if (q == NULL)
		return 0;
	if (q->tasks > 0 || q->bytes > 0) {
		if (sqlite3_prepare_v2(l->db, "SELECT "
		    "COALESCE(SUM(status < ?3), 0), COALESCE(SUM(bytes), 0) "
		    "FROM wymcp_tasks WHERE principal = ?1 AND "
		    "(expires = 0 OR expires > ?2)", -1, &st, NULL) !=
		    SQLITE_OK)
			return fail(l, "quota");
		(void)bind_text(st, 1, t->principal != NULL ? t->principal :
		    "");
		(void)sqlite3_bind_int64(st, 2, t->created);
		(void)sqlite3_bind_int(st, 3, WYMCP__TASK_COMPLETED);
		if (sqlite3_step(st) != SQLITE_ROW) {
			sqlite3_finalize(st);
			return fail(l, "quota");
		}
		n = sqlite3_column_int64(st, 0);
		sum = sqlite3_column_int64(st, 1);
		sqlite3_finalize(st);
		if (q->tasks > 0 && n + 1 > q->tasks)
			return WYMCP__STORE_OVER_TASKS;
		if (q->bytes > 0 && sum + b > q->bytes)
			return WYMCP__STORE_OVER_BYTES;
	}
	if (room(l, b) != 0)
		return WYMCP__STORE_FULL;
	if (q->store > 0) {
		if (sqlite3_prepare_v2(l->db, "SELECT COALESCE(SUM(bytes), 0) "
		    "FROM wymcp_tasks WHERE expires = 0 OR expires > ?1", -1,
		    &st, NULL) != SQLITE_OK)
			return fail(l, "quota");
		(void)sqlite3_bind_int64(st, 1, t->created);
		if (sqlite3_step(st) != SQLITE_ROW) {
			sqlite3_finalize(st);
			return fail(l, "quota");
		}
		sum = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		if (sum + b > q->store)
			return WYMCP__STORE_FULL;
	}
	return 0;
}

static int
lite_put(void *h, const struct wymcp__task *t,
    const struct wymcp__quota *q)
{
	struct lite	*l = h;
	sqlite3_stmt	*st = NULL;
	int		 rc;

	l->err[0] = '\0';
	if ((rc = exec(l, "BEGIN IMMEDIATE")) != 0)
		return rc;
	if ((rc = over(l, t, q)) != 0) {
		rollback(l);
		return rc;
	}
	/* Arguments and context go to wymcp_task_args (version 4). */
	if (sqlite3_prepare_v2(l->db, "INSERT INTO wymcp_tasks (" COLUMNS
	    ", expires, bytes) VALUES (?1, ?2, ?3, '', NULL, ?6, ?7, ?8, ?9, "
	    "?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)",
	    -1, &st, NULL) != SQLITE_OK ||
	    bind_row(st, t) != 0 || sqlite3_step(st) != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	st = NULL;
	if (sqlite3_prepare_v2(l->db, "INSERT INTO wymcp_task_args (id, args, "
	    "context) VALUES (?, ?, ?)", -1, &st, NULL) != SQLITE_OK ||
	    bind_text(st, 1, t->id) != SQLITE_OK ||
	    bind_text(st, 2, t->args != NULL ? t->args : "{}") != SQLITE_OK ||
	    bind_text(st, 3, t->context) != SQLITE_OK ||
	    sqlite3_step(st) != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	if ((rc = exec(l, "COMMIT")) != 0)
		rollback(l);
	return rc;
fail:
	rc = fail(l, "insert");
	sqlite3_finalize(st);
	rollback(l);
	return rc;
}

/* Read task `id' (connection-level: inside or outside a transaction). */
static int
get_row(struct lite *l, const char *id, struct wymcp__task *t)
{
	sqlite3_stmt	*st = NULL;
	int		 rc;

	if (sqlite3_prepare_v2(l->db, SELECT_ROW "WHERE t.id = ?", -1, &st,
	    NULL) != SQLITE_OK)
		return fail(l, "select");
	(void)bind_text(st, 1, id);
	if ((rc = sqlite3_step(st)) == SQLITE_DONE) {
		sqlite3_finalize(st);
		return 1;
	}
	if (rc != SQLITE_ROW || read_row(st, t) != 0) {
		sqlite3_finalize(st);
		return fail(l, "select");
	}
	sqlite3_finalize(st);
	return 0;
}

static int
lite_get(void *h, const char *id, struct wymcp__task *t)
{
	return get_row(h, id, t);
}

/*
 * Write every column of `t' back over its row, arguments and context
 * aside: they never change (wymcp_task_args).
 */
static int
set_row(struct lite *l, const struct wymcp__task *t)
{
	sqlite3_stmt	*st = NULL;
	int		 rc;

	if (sqlite3_prepare_v2(l->db, "UPDATE wymcp_tasks SET "
	    "principal = ?2, tool = ?3, answers = ?6, pending = ?7, "
	    "result = ?8, error = ?9, message = ?10, status = ?11, "
	    "cancel = ?12, queued = ?13, attempts = ?14, created = ?15, "
	    "updated = ?16, ttl = ?17, lease = ?18, claims = ?19, "
	    "expires = ?20, bytes = ?21 WHERE id = ?1", -1, &st,
	    NULL) != SQLITE_OK)
		return fail(l, "update");
	if (bind_row(st, t) != 0) {
		sqlite3_finalize(st);
		return fail(l, "update");
	}
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : fail(l, "update");
}

static int
lite_modify(void *h, const char *id, wymcp__task_fn fn, void *arg)
{
	struct lite		*l = h;
	struct wymcp__task	 t;
	int			 rc, w;

	if ((rc = exec(l, "BEGIN IMMEDIATE")) != 0)
		return rc;
	if ((rc = get_row(l, id, &t)) != 0) {
		rollback(l);
		return rc;
	}
	rc = 0;
	if ((w = fn(&t, arg)) < 0)
		snprintf(l->err, sizeof(l->err), "the change failed");
	else if (w > 0)
		rc = set_row(l, &t);
	wymcp__task_clear(&t);
	if (w < 0 || rc != 0) {
		rollback(l);
		return w < 0 ? -1 : rc;
	}
	if ((rc = exec(l, "COMMIT")) != 0)
		rollback(l);
	return rc;
}

/*
 * Claim the oldest ready task, in one write transaction: one never
 * claimed or handed back (lease 0), or, with `take_over', one whose
 * runner's lease ran out, which counts an attempt (a runner died).
 * Every claim counts in claims.
 */
static int
lite_claim(void *h, long long now, long long lease, int take_over,
    struct wymcp__task *t)
{
	struct lite	*l = h;
	sqlite3_stmt	*st = NULL;
	int		 rc;

	l->err[0] = '\0';
	if ((rc = exec(l, "BEGIN IMMEDIATE")) != 0)
		return rc;
	rc = -1;
	if (sqlite3_prepare_v2(l->db, SELECT_ROW "WHERE t.queued = 1 AND "
	    "(t.lease = 0 OR (?2 AND t.lease < ?1)) AND (t.expires = 0 OR "
	    "t.expires > ?1) ORDER BY t.updated LIMIT 1", -1, &st,
	    NULL) != SQLITE_OK)
		goto fail;
	(void)sqlite3_bind_int64(st, 1, now);
	(void)sqlite3_bind_int(st, 2, take_over != 0);
	if ((rc = sqlite3_step(st)) == SQLITE_DONE) {
		sqlite3_finalize(st);
		rollback(l);
		return 1;
	}
	if (rc != SQLITE_ROW || read_row(st, t) != 0)
		goto fail;
	sqlite3_finalize(st);
	st = NULL;
	if (t->lease > 0)
		t->attempts++;
	t->claims++;
	t->lease = now + lease;
	if ((rc = set_row(l, t)) != 0 || (rc = exec(l, "COMMIT")) != 0) {
		wymcp__task_clear(t);
		goto fail;
	}
	return 0;
fail:
	if (l->err[0] == '\0')
		rc = fail(l, "claim");
	else if (rc > 0)
		rc = kind(l);
	sqlite3_finalize(st);
	rollback(l);
	return rc < 0 ? rc : -1;
}

/* Delete the tasks whose TTL has passed. */
static int
lite_purge(void *h, long long now)
{
	struct lite	*l = h;
	sqlite3_stmt	*st = NULL;
	int		 rc;

	if (sqlite3_prepare_v2(l->db, "DELETE FROM wymcp_tasks WHERE "
	    "expires > 0 AND expires <= ?", -1, &st, NULL) != SQLITE_OK)
		return fail(l, "purge");
	(void)sqlite3_bind_int64(st, 1, now);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : fail(l, "purge");
}

/* Nothing to wait on: runners poll a file. */
static int
lite_fd(void *h)
{
	(void)h;
	return -1;
}

/*
 * Live tasks by state: queued with no lease (waiting), queued under a
 * lease (running), input_required.
 */
static int
lite_depth(void *h, long long now, long long n[3])
{
	struct lite	*l = h;
	sqlite3_stmt	*st = NULL;
	int		 i;

	if (sqlite3_prepare_v2(l->db, "SELECT "
	    "COALESCE(SUM(queued = 1 AND lease < ?1), 0), "
	    "COALESCE(SUM(queued = 1 AND lease >= ?1), 0), "
	    "COALESCE(SUM(status = 1), 0) FROM wymcp_tasks "
	    "WHERE expires = 0 OR expires > ?1", -1, &st, NULL) !=
	    SQLITE_OK)
		return fail(l, "depth");
	(void)sqlite3_bind_int64(st, 1, now);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return fail(l, "depth");
	}
	for (i = 0; i < 3; i++)
		n[i] = sqlite3_column_int64(st, i);
	sqlite3_finalize(st);
	return 0;
}

static const struct wymcp__store_ops store_ops = {
	"sqlite", lite_open, lite_close, lite_put, lite_get, lite_claim,
	lite_modify, lite_purge, lite_error, lite_fd, lite_depth
};

/* What sqlite.so exports (backend.h): a store, no bus. */
WYMCP__BACKEND_DEFINE("sqlite", &store_ops, NULL);
