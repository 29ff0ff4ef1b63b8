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
 *
 * A failure that is the server's state, not the statement's, is
 * WYMCP__STORE_DOWN (store.c then opens a new connection, LISTENs again
 * when asked for fd(), and answers 503 while none can be made): the
 * connection is bad (the server restarted, a send failed), or SQLSTATE
 * class 08 (connection exception), 57P (operator intervention: admin or
 * crash shutdown, cannot connect now), 53 (insufficient resources: disk
 * full, out of memory, too many connections), 58 (system error: I/O)
 * or 40 (serialization failure, deadlock: worth trying again), or an
 * error libpq made itself (no SQLSTATE).  No
 * statement is prepared on the server, so a new connection has nothing
 * to prepare again.
 *
 * pg.so carries wymcp-fcgi's bus (--bus postgresql://) too: its
 * LISTEN/NOTIFY connection, below.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "store/backend.h"

#define LOCK_KEY	"7217094651"	/* pg_advisory_xact_lock: schema */
#define QUOTA_KEY	"7217094652"	/* ... every put, with a store cap */
#define QUOTA_HI	"72170946"	/* ... (this, principal): a put */
#define CONNECT_S	"5"	/* connect_timeout unless the URI sets one */

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
	/*
	 * 1 -> 2: claims, the runner's token, apart from attempts, which
	 * now counts the runners that died only.
	 */
	"ALTER TABLE wymcp_tasks ADD COLUMN claims INTEGER NOT NULL "
	"DEFAULT 0;"
	"UPDATE wymcp_tasks SET claims = attempts, attempts = 0;",
	/* 2 -> 3: bytes and the quotas' indexes, as in sqlite.c. */
	"ALTER TABLE wymcp_tasks ADD COLUMN bytes BIGINT NOT NULL "
	"DEFAULT 0;"
	"UPDATE wymcp_tasks SET bytes = octet_length(args) + "
	"COALESCE(octet_length(context), 0) + "
	"COALESCE(octet_length(answers), 0) + "
	"COALESCE(octet_length(pending), 0) + "
	"COALESCE(octet_length(result), 0) + "
	"COALESCE(octet_length(error), 0) + "
	"COALESCE(octet_length(message), 0);"
	"CREATE INDEX wymcp_tasks_principal ON wymcp_tasks "
	"(principal, expires, status, bytes);"
	"DROP INDEX IF EXISTS wymcp_tasks_expires;"
	"CREATE INDEX wymcp_tasks_bytes ON wymcp_tasks (expires, bytes);",
};
#define SCHEMA_VERSION	((int)(sizeof(upgrade) / sizeof(upgrade[0])))

#define COLUMNS	"id, principal, tool, args, context, answers, pending, " \
	"result, error, message, status, cancel, queued, attempts, " \
	"created, updated, ttl, lease, claims"
#define NPARAMS	21

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

/* Is the failure of `res' (NULL: none came) the server's state? */
static int
gone(struct pg *p, const PGresult *res)
{
	const char	*st;

	if (PQstatus(p->db) == CONNECTION_BAD || res == NULL)
		return 1;
	/*
	 * An error libpq made itself has no SQLSTATE: the server closed
	 * the connection (before libpq marked it bad, as after an
	 * immediate shutdown's notice), a protocol error, no memory.
	 */
	if ((st = PQresultErrorField(res, PG_DIAG_SQLSTATE)) == NULL)
		return 1;
	return strncmp(st, "08", 2) == 0 || strncmp(st, "57P", 3) == 0 ||
	    strncmp(st, "53", 2) == 0 || strncmp(st, "58", 2) == 0 ||
	    strncmp(st, "40", 2) == 0;
}

/* Record what failed; -1, or WYMCP__STORE_DOWN (see gone()). */
static int
fail(struct pg *p, const char *what, PGresult *res)
{
	const char	*m = res != NULL ? PQresultErrorMessage(res) : "";
	int		 down = gone(p, res);

	if (m == NULL || *m == '\0')
		m = PQerrorMessage(p->db);
	snprintf(p->err, sizeof(p->err), "postgresql: %s: %.*s", what,
	    (int)strcspn(m, "\n"), m);
	PQclear(res);
	return down ? WYMCP__STORE_DOWN : -1;
}

/* A statement without parameters or rows; 0, or as fail(). */
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

/* End a failed transaction, keeping the first error's words. */
static void
rollback(struct pg *p)
{
	PQclear(PQexec(p->db, "ROLLBACK"));
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
	rollback(p);
	return -1;
}

static void
no_notice(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
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
	/* connect_timeout first: the URI's own, when it has one, wins. */
	p->db = PQconnectdbParams((const char *const[]){ "connect_timeout",
	    "dbname", NULL }, (const char *const[]){ CONNECT_S, uri, NULL },
	    1);
	if (PQstatus(p->db) != CONNECTION_OK) {
		snprintf(err, errlen, "postgresql: %s", PQerrorMessage(p->db));
		err[strcspn(err, "\n")] = '\0';
		pg_close(p);
		return -1;
	}
	/*
	 * Quiet: NOTICEs (CREATE TABLE IF NOT EXISTS) are not errors, and
	 * the server's WARNING as it shuts down is followed by the error
	 * that counts; libpq would print them on standard error.
	 */
	PQsetNoticeProcessor(p->db, no_notice, NULL);
	(void)exec(p, "SET client_min_messages = warning");
	if (migrate(p) != 0) {
		snprintf(err, errlen, "%s", p->err);
		pg_close(p);
		return -1;
	}
	*h = p;
	return 0;
}

/*
 * The row's values as text parameters ($1..$19, COLUMNS; then expires,
 * $20, and bytes, $21).
 */
struct params {
	const char	*v[NPARAMS];
	char		 num[10][24];
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
	snprintf(ps->num[8], 24, "%d", t->claims);
	ps->v[10] = ps->num[0];
	ps->v[11] = ps->num[1];
	ps->v[12] = ps->num[2];
	ps->v[13] = ps->num[3];
	ps->v[14] = ps->num[4];
	ps->v[15] = ps->num[5];
	ps->v[16] = ps->num[6];
	ps->v[17] = ps->num[7];
	ps->v[18] = ps->num[8];
	snprintf(ps->num[9], 24, "%lld", wymcp__task_bytes(t));
	ps->v[20] = ps->num[9];
}

/* expires, the 20th parameter, kept in its own buffer. */
static void
expires(struct params *ps, const struct wymcp__task *t, char *buf)
{
	snprintf(buf, 24, "%lld", t->ttl > 0 ? t->created + t->ttl : 0);
	ps->v[19] = buf;
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
	t->claims = atoi(PQgetvalue(res, 0, 18));
	if (bad || t->principal == NULL || t->tool == NULL) {
		wymcp__task_clear(t);
		return -1;
	}
	return 0;
}

/* Column i of a one-row result, for over(); -1 when the query failed. */
static long long
value(PGresult *res, int i)
{
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1)
		return -1;
	return strtoll(PQgetvalue(res, 0, i), NULL, 10);
}

/*
 * Would task `t' take its principal's tasks, or the store, past `q'
 * (NULL: no limits)?  0, WYMCP__STORE_OVER_TASKS, _OVER_BYTES or
 * WYMCP__STORE_FULL, or as fail().  Inside the put's transaction, under
 * a transaction-level advisory lock that every put() with limits
 * takes first: the whole store's with a store-wide cap (puts take
 * turns; nothing else waits), else the principal's (puts of other
 * principals go on).  So no other put comes between the sums and the
 * insert, on any host.
 */
static int
over(struct pg *p, const struct wymcp__task *t,
    const struct wymcp__quota *q)
{
	PGresult	*res;
	char		 now[24], done[24];
	const char	*v[3] = { t->principal != NULL ? t->principal : "",
			    now, done };
	long long	 b = wymcp__task_bytes(t), n, sum;
	int		 rc;

	if (q == NULL || (q->tasks <= 0 && q->bytes <= 0 && q->store <= 0))
		return 0;
	snprintf(now, sizeof(now), "%lld", t->created);
	snprintf(done, sizeof(done), "%d", WYMCP__TASK_COMPLETED);
	if (q->store > 0) {
		if ((rc = exec(p, "SELECT pg_advisory_xact_lock(" QUOTA_KEY
		    ")")) != 0)
			return rc;
	} else {
		res = PQexecParams(p->db, "SELECT pg_advisory_xact_lock("
		    QUOTA_HI ", hashtext($1))", 1, NULL, v, NULL, NULL, 0);
		if (PQresultStatus(res) != PGRES_TUPLES_OK)
			return fail(p, "quota", res);
		PQclear(res);
	}
	if (q->tasks > 0 || q->bytes > 0) {
		res = PQexecParams(p->db, "SELECT "
		    "COUNT(*) FILTER (WHERE status < $3), "
		    "COALESCE(SUM(bytes), 0) FROM wymcp_tasks "
		    "WHERE principal = $1 AND (expires = 0 OR expires > $2)",
		    3, NULL, v, NULL, NULL, 0);
		if ((n = value(res, 0)) < 0)
			return fail(p, "quota", res);
		sum = value(res, 1);
		PQclear(res);
		if (q->tasks > 0 && n + 1 > q->tasks)
			return WYMCP__STORE_OVER_TASKS;
		if (q->bytes > 0 && sum + b > q->bytes)
			return WYMCP__STORE_OVER_BYTES;
	}
	if (q->store > 0) {
		res = PQexecParams(p->db, "SELECT COALESCE(SUM(bytes), 0) "
		    "FROM wymcp_tasks WHERE expires = 0 OR expires > $1", 1,
		    NULL, v + 1, NULL, NULL, 0);
		if ((sum = value(res, 0)) < 0)
			return fail(p, "quota", res);
		PQclear(res);
		if (sum + b > q->store)
			return WYMCP__STORE_FULL;
	}
	return 0;
}

static int
pg_put(void *h, const struct wymcp__task *t,
    const struct wymcp__quota *q)
{
	struct pg	*p = h;
	struct params	 ps;
	PGresult	*res;
	char		 ex[24];
	int		 rc;

	if ((rc = exec(p, "BEGIN")) != 0)
		return rc;
	if ((rc = over(p, t, q)) != 0) {
		rollback(p);
		return rc;
	}
	params(&ps, t);
	expires(&ps, t, ex);
	res = PQexecParams(p->db, "INSERT INTO wymcp_tasks (" COLUMNS
	    ", expires, bytes) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, "
	    "$10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)",
	    NPARAMS, NULL, ps.v, NULL, NULL, 0);
	if (PQresultStatus(res) != PGRES_COMMAND_OK) {
		rc = fail(p, "insert", res);
		rollback(p);
		return rc;
	}
	PQclear(res);
	/* Wake the runners (LISTEN wymcp_tasks) of every host, at commit. */
	if ((rc = exec(p, "NOTIFY wymcp_tasks")) != 0 ||
	    (rc = exec(p, "COMMIT")) != 0) {
		rollback(p);
		return rc;
	}
	return 0;
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
	    "lease = $18, claims = $19, expires = $20, bytes = $21 "
	    "WHERE id = $1",
	    NPARAMS, NULL, ps.v,
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

	if ((rc = exec(p, "BEGIN")) != 0)
		return rc;
	if ((rc = get_row(p, id, 1, &t)) != 0) {
		rollback(p);
		return rc;
	}
	ready = t.queued;
	rc = 0;
	if ((w = fn(&t, arg)) < 0)
		snprintf(p->err, sizeof(p->err), "the change failed");
	else if (w > 0)
		rc = set_row(p, &t);
	/* Ready again (tasks/update): wake a runner, at commit. */
	if (w > 0 && rc == 0 && t.queued && !ready)
		rc = exec(p, "NOTIFY wymcp_tasks");
	wymcp__task_clear(&t);
	if (w < 0 || rc != 0) {
		rollback(p);
		return w < 0 ? -1 : rc;
	}
	return exec(p, "COMMIT");
}

/*
 * Drop the notifications that woke us: the claim looks anyway.  A
 * socket that woke us because the server closed it is a broken
 * connection: WYMCP__STORE_DOWN.
 */
static int
drain(struct pg *p)
{
	PGnotify	*n;

	if (!p->listening)
		return 0;
	if (!PQconsumeInput(p->db))
		return fail(p, "listen", NULL);
	while ((n = PQnotifies(p->db)) != NULL)
		PQfreemem(n);
	return 0;
}

/*
 * Take the oldest ready task: one never claimed or handed back (lease
 * 0), or, with `take_over', one whose runner's lease ran out, which
 * counts an attempt (a runner died).  Every claim counts in claims.
 */
static int
pg_claim(void *h, long long now, long long lease, int take_over,
    struct wymcp__task *t)
{
	struct pg	*p = h;
	PGresult	*res;
	char		 a[24], b[24];
	const char	*v[3] = { a, b, take_over ? "1" : "0" };
	int		 rc;

	if ((rc = drain(p)) != 0)
		return rc;
	snprintf(a, sizeof(a), "%lld", now);
	snprintf(b, sizeof(b), "%lld", now + lease);
	res = PQexecParams(p->db, "UPDATE wymcp_tasks SET lease = $2, "
	    "claims = claims + 1, attempts = attempts + "
	    "CASE WHEN lease > 0 THEN 1 ELSE 0 END "
	    "WHERE id = (SELECT id FROM wymcp_tasks WHERE queued = 1 AND "
	    "(lease = 0 OR ($3 = 1 AND lease < $1)) AND (expires = 0 OR "
	    "expires > $1) ORDER BY updated LIMIT 1 FOR UPDATE SKIP LOCKED) "
	    "RETURNING " COLUMNS, 3, NULL, v, NULL, NULL, 0);
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

/*
 * LISTEN once on this connection (a new one LISTENs again); the socket
 * a runner waits on for NOTIFY, or as fail().
 */
static int
pg_fd(void *h)
{
	struct pg	*p = h;
	int		 rc;

	if (PQstatus(p->db) == CONNECTION_BAD)
		return fail(p, "listen", NULL);
	if (!p->listening) {
		if ((rc = exec(p, "LISTEN wymcp_tasks")) != 0)
			return rc;
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

static const struct wymcp__store_ops store_ops = {
	"postgresql", pg_open, pg_close, pg_put, pg_get, pg_claim, pg_modify,
	pg_purge, pg_error, pg_fd, pg_depth
};

/* ------------------------------------------------------- the bus */

/*
 * The bus of wymcp-fcgi (backend.h, struct wymcp__bus_ops): libpq's
 * calls as the hub's event loop makes them, without ever blocking,
 * and --publish's one NOTIFY.  The state (queue, back-off, streams) is
 * the hub's.
 */

static void
bus_quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

/* Say `msg' on `channel' of the bus `uri', waiting for it. */
static int
bus_publish(const char *uri, const char *channel, const char *msg,
    char *err, size_t errlen)
{
	static const char *const keys[] = { "connect_timeout", "dbname",
		NULL };
	const char	*vals[] = { "10", uri, NULL }, *v[2];
	PGconn		*db;
	PGresult	*res;
	int		 rc = -1;

	db = PQconnectdbParams(keys, vals, 1);
	v[0] = channel;
	v[1] = msg;
	res = PQstatus(db) == CONNECTION_OK ? PQexecParams(db,
	    "SELECT pg_notify($1, $2)", 2, NULL, v, NULL, NULL, 0) : NULL;
	if (PQresultStatus(res) == PGRES_TUPLES_OK)
		rc = 0;
	else
		snprintf(err, errlen, "the bus: %.*s",
		    (int)strcspn(PQerrorMessage(db), "\n"),
		    PQerrorMessage(db));
	PQclear(res);
	PQfinish(db);
	return rc;
}

static int
bus_start(const char *uri, void **c)
{
	static const char *const keys[] = { "connect_timeout", "dbname",
		NULL };
	const char	*vals[] = { "5", uri, NULL };
	PGconn		*db;

	*c = db = PQconnectStartParams(keys, vals, 1);
	if (db == NULL || PQstatus(db) == CONNECTION_BAD ||
	    PQsetnonblocking(db, 1) != 0)
		return -1;
	PQsetNoticeProcessor(db, bus_quiet, NULL);
	return 0;
}

static int
bus_poll(void *c)
{
	switch (PQconnectPoll(c)) {
	case PGRES_POLLING_READING:
		return WYMCP__BUS_READ;
	case PGRES_POLLING_WRITING:
		return WYMCP__BUS_WRITE;
	case PGRES_POLLING_OK:
		return 0;
	default:
		return -1;
	}
}

static int
bus_fd(void *c)
{
	return c != NULL ? PQsocket(c) : -1;
}

static int
bus_listen(void *c, const char *channel)
{
	char	 q[128];

	snprintf(q, sizeof(q), "LISTEN %s", channel);
	return PQsendQuery(c, q) ? 0 : -1;
}

static int
bus_notify(void *c, const char *channel, const char *msg)
{
	const char	*v[2];

	v[0] = channel;
	v[1] = msg;
	return PQsendQueryParams(c, "SELECT pg_notify($1, $2)", 2, NULL, v,
	    NULL, NULL, 0) ? 0 : -1;
}

static int
bus_flush(void *c)
{
	return PQflush(c);
}

static int
bus_input(void *c)
{
	return PQconsumeInput(c) ? 0 : -1;
}

static int
bus_done(void *c)
{
	PGresult	*res;
	int		 ok = 1;

	if (PQisBusy(c))
		return -1;
	while ((res = PQgetResult(c)) != NULL) {
		if (PQresultStatus(res) != PGRES_COMMAND_OK &&
		    PQresultStatus(res) != PGRES_TUPLES_OK)
			ok = 0;
		PQclear(res);
	}
	return ok;
}

static void
bus_notified(void *c, void (*fn)(void *, const char *, size_t), void *arg)
{
	PGnotify	*n;

	while ((n = PQnotifies(c)) != NULL) {
		fn(arg, n->extra, strlen(n->extra));
		PQfreemem(n);
	}
}

static int
bus_bad(void *c)
{
	return PQstatus(c) == CONNECTION_BAD;
}

static const char *
bus_error(void *c)
{
	const char	*m = c != NULL ? PQerrorMessage(c) : NULL;

	return m != NULL ? m : "";
}

static void
bus_close(void *c)
{
	PQfinish(c);
}

static const struct wymcp__bus_ops bus_ops = {
	bus_publish, bus_start, bus_poll, bus_fd, bus_listen, bus_notify,
	bus_flush, bus_input, bus_done, bus_notified, bus_bad, bus_error,
	bus_close
};

/* What pg.so exports (backend.h): the store and the bus. */
WYMCP__BACKEND_DEFINE("pg", &store_ops, &bus_ops);
