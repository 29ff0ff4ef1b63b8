/*
 * pg.c - the task store in PostgreSQL (--task-store postgresql://...)
 *
 * For several hosts sharing their tasks.  Every write is one statement
 * or one transaction; a runner claims with FOR UPDATE SKIP LOCKED, so
 * that runners on every host take different tasks without waiting for
 * each other, and a change (modify) holds the row with FOR UPDATE.  A
 * task becoming ready is announced with NOTIFY wymcp_tasks; runners
 * LISTEN and wait on the connection's socket (fd()) instead of only
 * polling.  The schema's version is the one row of wymcp_schema; open()
 * upgrades it under an advisory lock, step by step, and refuses a newer
 * one.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "store/store.h"

#define LOCK_KEY	"7217094651"	/* pg_advisory_xact_lock: schema */

/* upgrade[i] takes the schema from version i to i + 1: only append. */
static const char *const upgrade[] = {
	/* 0 -> 1: the task table, as in sqlite.c. */
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
	"  created BIGINT NOT NULL,"
	"  updated BIGINT NOT NULL,"
	"  ttl BIGINT NOT NULL,"
	"  expires BIGINT NOT NULL,"
	"  lease BIGINT NOT NULL DEFAULT 0"
	");"
	"CREATE INDEX wymcp_tasks_queue ON wymcp_tasks (queued, lease);"
	"CREATE INDEX wymcp_tasks_expires ON wymcp_tasks (expires);",
};
#define SCHEMA_VERSION	((int)(sizeof(upgrade) / sizeof(upgrade[0])))

#define COLUMNS	"id, principal, tool, args, context, answers, pending, " \
	"result, error, message, status, cancel, queued, attempts, " \
	"created, updated, ttl, lease"
#define NPARAMS	19

struct pg {
	PGconn		*db;
	int		 listening;
	char		 err[256];
};

static const char *
pg_error(void *h)
{
	return ((struct pg *)h)->err;
}

static int
fail(struct pg *p, const char *what, PGresult *res)
{
	const char	*m = res != NULL ? PQresultErrorMessage(res) : "";

	if (m == NULL || *m == '\0')
		m = PQerrorMessage(p->db);
	snprintf(p->err, sizeof(p->err), "postgresql: %s: %.*s", what,
	    (int)strcspn(m, "\n"), m);
	PQclear(res);
	return -1;
}

/* A statement without parameters or rows; 0 or -1. */
static int
exec(struct pg *p, const char *sql)
{
	PGresult	*res = PQexec(p->db, sql);

	if (PQresultStatus(res) != PGRES_COMMAND_OK &&
	    PQresultStatus(res) != PGRES_TUPLES_OK)
		return fail(p, sql, res);
	PQclear(res);
	return 0;
}

static void
pg_close(void *h)
{
	struct pg	*p = h;

	if (p == NULL)
		return;
	PQfinish(p->db);
	free(p);
}

static int
migrate(struct pg *p)
{
	PGresult	*res;
	char		 sql[96];
	int		 v = 0;

	if (exec(p, "BEGIN") != 0 ||
	    exec(p, "SELECT pg_advisory_xact_lock(" LOCK_KEY ")") != 0 ||
	    exec(p, "CREATE TABLE IF NOT EXISTS wymcp_schema "
	    "(version INTEGER NOT NULL)") != 0)
		goto fail;
	res = PQexec(p->db, "SELECT version FROM wymcp_schema");
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		(void)fail(p, "schema version", res);
		goto fail;
	}
	if (PQntuples(res) > 0)
		v = atoi(PQgetvalue(res, 0, 0));
	else if (exec(p, "INSERT INTO wymcp_schema VALUES (0)") != 0) {
		PQclear(res);
		goto fail;
	}
	PQclear(res);
	if (v > SCHEMA_VERSION) {
		snprintf(p->err, sizeof(p->err), "postgresql: the task "
		    "store's schema is version %d, newer than this wymcp's %d",
		    v, SCHEMA_VERSION);
		goto fail;
	}
	for (; v < SCHEMA_VERSION; v++)
		if (exec(p, upgrade[v]) != 0)
			goto fail;
	snprintf(sql, sizeof(sql), "UPDATE wymcp_schema SET version = %d",
	    SCHEMA_VERSION);
	if (exec(p, sql) != 0 || exec(p, "COMMIT") != 0)
		goto fail;
	return 0;
fail:
	(void)PQexec(p->db, "ROLLBACK");
	return -1;
}

static int
pg_open(const char *uri, void **h, char *err, size_t errlen)
{
	struct pg	*p;

	*h = NULL;
	if ((p = calloc(1, sizeof(*p))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	p->db = PQconnectdb(uri);
	if (PQstatus(p->db) != CONNECTION_OK) {
		snprintf(err, errlen, "postgresql: %s", PQerrorMessage(p->db));
		err[strcspn(err, "\n")] = '\0';
		pg_close(p);
		return -1;
	}
	/* Quiet: NOTICEs (CREATE TABLE IF NOT EXISTS) are not errors. */
	(void)exec(p, "SET client_min_messages = warning");
	if (migrate(p) != 0) {
		snprintf(err, errlen, "%s", p->err);
		pg_close(p);
		return -1;
	}
	*h = p;
	return 0;
}

/* The row's values as text parameters ($1..$19, COLUMNS, expires). */
struct params {
	const char	*v[NPARAMS];
	char		 num[8][24];
};

static void
params(struct params *ps, const struct wymcp__task *t)
{
	memset(ps, 0, sizeof(*ps));
	ps->v[0] = t->id;
	ps->v[1] = t->principal != NULL ? t->principal : "";
	ps->v[2] = t->tool;
	ps->v[3] = t->args != NULL ? t->args : "{}";
	ps->v[4] = t->context;
	ps->v[5] = t->answers;
	ps->v[6] = t->pending;
	ps->v[7] = t->result;
	ps->v[8] = t->error;
	ps->v[9] = t->message;
	snprintf(ps->num[0], 24, "%d", t->status);
	snprintf(ps->num[1], 24, "%d", t->cancel);
	snprintf(ps->num[2], 24, "%d", t->queued);
	snprintf(ps->num[3], 24, "%d", t->attempts);
	snprintf(ps->num[4], 24, "%lld", t->created);
	snprintf(ps->num[5], 24, "%lld", t->updated);
	snprintf(ps->num[6], 24, "%lld", t->ttl);
	snprintf(ps->num[7], 24, "%lld", t->lease);
	ps->v[10] = ps->num[0];
	ps->v[11] = ps->num[1];
	ps->v[12] = ps->num[2];
	ps->v[13] = ps->num[3];
	ps->v[14] = ps->num[4];
	ps->v[15] = ps->num[5];
	ps->v[16] = ps->num[6];
	ps->v[17] = ps->num[7];
}

/* expires, the 19th parameter, kept in its own buffer. */
static void
expires(struct params *ps, const struct wymcp__task *t, char *buf)
{
	snprintf(buf, 24, "%lld", t->ttl > 0 ? t->created + t->ttl : 0);
	ps->v[18] = buf;
}

static char *
col(PGresult *res, int i, int *bad)
{
	char	*c;

	if (PQgetisnull(res, 0, i))
		return NULL;
	if ((c = strdup(PQgetvalue(res, 0, i))) == NULL)
		*bad = 1;
	return c;
}

/* Row 0 of `res' (COLUMNS order) into *t. */
static int
read_row(PGresult *res, struct wymcp__task *t)
{
	int	 bad = 0;

	memset(t, 0, sizeof(*t));
	snprintf(t->id, sizeof(t->id), "%s", PQgetvalue(res, 0, 0));
	t->principal = col(res, 1, &bad);
	t->tool = col(res, 2, &bad);
	t->args = col(res, 3, &bad);
	t->context = col(res, 4, &bad);
	t->answers = col(res, 5, &bad);
	t->pending = col(res, 6, &bad);
	t->result = col(res, 7, &bad);
	t->error = col(res, 8, &bad);
	t->message = col(res, 9, &bad);
	t->status = atoi(PQgetvalue(res, 0, 10));
	t->cancel = atoi(PQgetvalue(res, 0, 11));
	t->queued = atoi(PQgetvalue(res, 0, 12));
	t->attempts = atoi(PQgetvalue(res, 0, 13));
	t->created = strtoll(PQgetvalue(res, 0, 14), NULL, 10);
	t->updated = strtoll(PQgetvalue(res, 0, 15), NULL, 10);
	t->ttl = strtoll(PQgetvalue(res, 0, 16), NULL, 10);
	t->lease = strtoll(PQgetvalue(res, 0, 17), NULL, 10);
	if (bad || t->principal == NULL || t->tool == NULL) {
		wymcp__task_clear(t);
		return -1;
	}
	return 0;
}

static int
pg_put(void *h, const struct wymcp__task *t)
{
	struct pg	*p = h;
	struct params	 ps;
	PGresult	*res;
	char		 ex[24];

	params(&ps, t);
	expires(&ps, t, ex);
	res = PQexecParams(p->db, "INSERT INTO wymcp_tasks (" COLUMNS
	    ", expires) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, "
	    "$11, $12, $13, $14, $15, $16, $17, $18, $19)", NPARAMS, NULL,
	    ps.v, NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		return fail(p, "insert", res);
	PQclear(res);
	/* Wake the runners (LISTEN wymcp_tasks) of every host. */
	return exec(p, "NOTIFY wymcp_tasks");
}

static int
get_row(struct pg *p, const char *id, int lock, struct wymcp__task *t)
{
	PGresult	*res;
	const char	*v[1] = { id };

	res = PQexecParams(p->db, lock ? "SELECT " COLUMNS " FROM "
	    "wymcp_tasks WHERE id = $1 FOR UPDATE" : "SELECT " COLUMNS
	    " FROM wymcp_tasks WHERE id = $1", 1, NULL, v, NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		return fail(p, "select", res);
	if (PQntuples(res) == 0) {
		PQclear(res);
		return 1;
	}
	if (read_row(res, t) != 0)
		return fail(p, "select", res);
	PQclear(res);
	return 0;
}

static int
pg_get(void *h, const char *id, struct wymcp__task *t)
{
	return get_row(h, id, 0, t);
}

static int
set_row(struct pg *p, const struct wymcp__task *t)
{
	struct params	 ps;
	PGresult	*res;
	char		 ex[24];

	params(&ps, t);
	expires(&ps, t, ex);
	res = PQexecParams(p->db, "UPDATE wymcp_tasks SET "
	    "principal = $2, tool = $3, args = $4, context = $5, "
	    "answers = $6, pending = $7, result = $8, error = $9, "
	    "message = $10, status = $11, cancel = $12, queued = $13, "
	    "attempts = $14, created = $15, updated = $16, ttl = $17, "
	    "lease = $18, expires = $19 WHERE id = $1", NPARAMS, NULL, ps.v,
	    NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		return fail(p, "update", res);
	PQclear(res);
	return 0;
}

static int
pg_modify(void *h, const char *id, wymcp__task_fn fn, void *arg)
{
	struct pg		*p = h;
	struct wymcp__task	 t;
	int			 rc, w, ready;

	if (exec(p, "BEGIN") != 0)
		return -1;
	if ((rc = get_row(p, id, 1, &t)) != 0) {
		(void)exec(p, "ROLLBACK");
		return rc;
	}
	ready = t.queued;
	if ((w = fn(&t, arg)) < 0 || (w > 0 && set_row(p, &t) != 0)) {
		(void)exec(p, "ROLLBACK");
		if (w < 0)
			snprintf(p->err, sizeof(p->err), "the change failed");
		wymcp__task_clear(&t);
		return -1;
	}
	/* Ready again (tasks/update): wake a runner, at commit. */
	if (w > 0 && t.queued && !ready &&
	    exec(p, "NOTIFY wymcp_tasks") != 0) {
		(void)exec(p, "ROLLBACK");
		wymcp__task_clear(&t);
		return -1;
	}
	wymcp__task_clear(&t);
	return exec(p, "COMMIT");
}

/* Drop the notifications that woke us: the claim looks anyway. */
static void
drain(struct pg *p)
{
	PGnotify	*n;

	if (!p->listening)
		return;
	(void)PQconsumeInput(p->db);
	while ((n = PQnotifies(p->db)) != NULL)
		PQfreemem(n);
}

static int
pg_claim(void *h, long long now, long long lease, struct wymcp__task *t)
{
	struct pg	*p = h;
	PGresult	*res;
	char		 a[24], b[24];
	const char	*v[2] = { a, b };

	drain(p);
	snprintf(a, sizeof(a), "%lld", now);
	snprintf(b, sizeof(b), "%lld", now + lease);
	res = PQexecParams(p->db, "UPDATE wymcp_tasks SET lease = $2, "
	    "attempts = attempts + 1 WHERE id = (SELECT id FROM wymcp_tasks "
	    "WHERE queued = 1 AND lease < $1 AND (expires = 0 OR "
	    "expires > $1) ORDER BY updated LIMIT 1 FOR UPDATE SKIP LOCKED) "
	    "RETURNING " COLUMNS, 2, NULL, v, NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		return fail(p, "claim", res);
	if (PQntuples(res) == 0) {
		PQclear(res);
		return 1;
	}
	if (read_row(res, t) != 0)
		return fail(p, "claim", res);
	PQclear(res);
	return 0;
}

static int
pg_purge(void *h, long long now)
{
	struct pg	*p = h;
	PGresult	*res;
	char		 a[24];
	const char	*v[1] = { a };

	snprintf(a, sizeof(a), "%lld", now);
	res = PQexecParams(p->db, "DELETE FROM wymcp_tasks WHERE "
	    "expires > 0 AND expires <= $1", 1, NULL, v, NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		return fail(p, "purge", res);
	PQclear(res);
	return 0;
}

/* LISTEN once; the socket a runner waits on for NOTIFY. */
static int
pg_fd(void *h)
{
	struct pg	*p = h;

	if (!p->listening) {
		if (exec(p, "LISTEN wymcp_tasks") != 0)
			return -1;
		p->listening = 1;
	}
	return PQsocket(p->db);
}

/* Live tasks by state, as lite_depth() counts them. */
static int
pg_depth(void *h, long long now, long long n[3])
{
	struct pg	*p = h;
	PGresult	*res;
	char		 a[24];
	const char	*v[1] = { a };
	int		 i;

	snprintf(a, sizeof(a), "%lld", now);
	res = PQexecParams(p->db, "SELECT "
	    "COUNT(*) FILTER (WHERE queued = 1 AND lease < $1), "
	    "COUNT(*) FILTER (WHERE queued = 1 AND lease >= $1), "
	    "COUNT(*) FILTER (WHERE status = 1) FROM wymcp_tasks "
	    "WHERE expires = 0 OR expires > $1", 1, NULL, v, NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1)
		return fail(p, "depth", res);
	for (i = 0; i < 3; i++)
		n[i] = strtoll(PQgetvalue(res, 0, i), NULL, 10);
	PQclear(res);
	return 0;
}

const struct wymcp__store_ops wymcp__store_pg = {
	"postgresql", pg_open, pg_close, pg_put, pg_get, pg_claim, pg_modify,
	pg_purge, pg_error, pg_fd, pg_depth
};
