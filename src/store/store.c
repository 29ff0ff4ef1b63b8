/*
 * store.c - the task store's one interface: opening by URI, ids, and
 * the calls the request path and the runners make
 *
 * The back ends are objects of their own (backend.h), loaded here, and
 * only here, the first time a store or a program names one
 * (wymcp_backend_load(): wymcp-fcgi, as root before its privilege
 * drop, and for its bus), their files vetted by the file check of the
 * server (wymcp_server_set_file_check()) or of the program.  A back
 * end's connection is never carried across fork(2): the store
 * is checked (opened, schema upgraded, closed) when it is configured,
 * before the supervisor forks, and each process opens its own
 * connection at its first use.  Every call binds the task to the
 * principal: a task of another principal reads as "no such task", the
 * same answer as an id that was never made (tasks.md "Auth binding").
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"

#define PURGE_EVERY_MS	60000	/* expired tasks are deleted this often */
#ifndef WYMCP_BACKENDDIR	/* configure's $(pkglibdir)/backend */
#define WYMCP_BACKENDDIR	"/usr/local/lib/wymcp/backend"
#endif

/*
 * The back ends this wymcp was built with (configure --without-sqlite,
 * --without-postgresql), and what was loaded of them: the first
 * wymcp__backend_load() of one dlopen(3)s it, once per process, before
 * the accept loop (a task store is configured before it); it is never
 * unloaded (RTLD_NODELETE: libpq's libraries register exit handlers).
 * backend() maps a URI's scheme to its name.
 */
static struct {
	const char		*name;		/* the file: NAME.so */
	const char		*what;		/* for the error */
	const char		*option;	/* configure's */
	int			 built;
	const struct wymcp__backend *be;	/* loaded, or NULL */
} backends[] = {
	{ "sqlite", "SQLite", "--without-sqlite",
#ifdef WITH_SQLITE
	    1,
#else
	    0,
#endif
	    NULL },
	{ "pg", "PostgreSQL", "--without-postgresql",
#ifdef WITH_POSTGRESQL
	    1,
#else
	    0,
#endif
	    NULL },
};

const struct wymcp__backend *
wymcp__backend_load(const char *name, wymcp_file_check_fn check,
    void *arg, char *err, size_t errlen)
{
	const struct wymcp__backend *be = NULL;
	const char		*dir, *file;
	char			 path[4096], why[1024];
	char			*real = NULL;
	void			*dl;
	size_t			 i;

	for (i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (strcmp(backends[i].name, name) == 0)
			break;
	if (i == sizeof(backends) / sizeof(backends[0])) {
		snprintf(err, errlen, "no back end '%s'", name);
		return NULL;
	}
	if (backends[i].be != NULL)
		return backends[i].be;
	if (!backends[i].built) {
		snprintf(err, errlen, "this wymcp was built without %s "
		    "(configure %s)", backends[i].what, backends[i].option);
		return NULL;
	}
	if ((dir = getenv(WYMCP__BACKEND_ENV)) == NULL || *dir == '\0')
		dir = WYMCP_BACKENDDIR;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s.so", dir, name) >=
	    sizeof(path)) {
		snprintf(err, errlen, "%s/%s.so: path too long", dir, name);
		return NULL;
	}
	/*
	 * The file checked is the file loaded: its real path (a missing
	 * one is dlopen(3)'s to report).
	 */
	file = (real = realpath(path, NULL)) != NULL ? real : path;
	if (check != NULL && check(arg, file, why, sizeof(why)) != 0) {
		snprintf(err, errlen, "%s: refused: %s", path, why);
		goto done;
	}
	if ((dl = dlopen(file, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)) ==
	    NULL) {
		snprintf(err, errlen, "cannot load %s: %s", path, dlerror());
		goto done;
	}
	be = dlsym(dl, WYMCP__BACKEND_SYM);
	if (!wymcp__backend_fits(be, name) || be->store == NULL) {
		snprintf(err, errlen, "%s: not the %s back end of this "
		    "wymcp", path, name);
		(void)dlclose(dl);
		be = NULL;
		goto done;
	}
	backends[i].be = be;
done:
	free(real);
	return be;
}

/* The back end named by `uri', or NULL. */
static const char *
backend(const char *uri)
{
	if (strncmp(uri, "sqlite:", 7) == 0)
		return "sqlite";
	if (strncmp(uri, "postgresql://", 13) == 0 ||
	    strncmp(uri, "postgres://", 11) == 0)
		return "pg";
	return NULL;
}

enum wymcp_err
wymcp_backend_load(const char *uri, wymcp_file_check_fn check, void *arg,
    const void **obj, char *err, size_t errlen)
{
	const struct wymcp__backend *be;
	const char		*name;

	if (obj != NULL)
		*obj = NULL;
	if (uri == NULL || (name = backend(uri)) == NULL) {
		snprintf(err, errlen, "neither sqlite:PATH nor "
		    "postgresql://...");
		return WYMCP_ERR_INVAL;
	}
	if ((be = wymcp__backend_load(name, check, arg, err, errlen)) ==
	    NULL)
		return WYMCP_ERR_MODULE;
	if (obj != NULL)
		*obj = be;
	return WYMCP_OK;
}

/* Close the store (srv->tasks_free: setup calls it, knowing no more). */
static void
store_free(struct wymcp__store *s)
{
	if (s == NULL)
		return;
	/* A connection another process opened is not ours to close. */
	if (s->h != NULL && s->pid == getpid())
		s->ops->close(s->h);
	wymcp__task_clear(&s->held);
	free(s->uri);
	free(s);
}

enum wymcp_err
wymcp_server_set_task_store(struct wymcp_server *srv, const char *uri)
{
	const struct wymcp__store_ops *ops;
	const struct wymcp__backend *be;
	const void		*obj;
	struct wymcp__store	*s;
	char			 err[1024];
	enum wymcp_err		 rc;
	void			*h;

	if (srv == NULL)
		return WYMCP_ERR_INVAL;
	if (srv->tasks_free != NULL)
		srv->tasks_free(srv->tasks);
	srv->tasks = NULL;
	srv->tasks_free = NULL;
	if (uri == NULL)
		return WYMCP_OK;
	/* The back end, its file vetted as the module's files are. */
	if ((rc = wymcp_backend_load(uri, srv->filecheck, srv->filecheck_arg,
	    &obj, err, sizeof(err))) != WYMCP_OK) {
		/* Only the scheme: the rest may hold a password. */
		wymcp__seterr(srv, "task store '%.*s...': %s",
		    (int)strcspn(uri, ":/@"), uri, err);
		return rc;
	}
	be = obj;
	ops = be->store;
	/* Open it once to create or upgrade the schema, then let go. */
	if (ops->open(uri, &h, err, sizeof(err)) != 0) {
		wymcp__seterr(srv, "task store: %s", err);
		return WYMCP_ERR_IO;
	}
	ops->close(h);
	if ((s = calloc(1, sizeof(*s))) == NULL ||
	    (s->uri = strdup(uri)) == NULL) {
		free(s);
		return WYMCP_ERR_NOMEM;
	}
	s->ops = ops;
	s->ttl = WYMCP__TASK_TTL_MS;
	s->lease = WYMCP__TASK_LEASE_MS;
	s->quota.tasks = WYMCP_TASK_QUOTA_DEFAULT;
	s->quota.bytes = WYMCP_TASK_QUOTA_BYTES_DEFAULT;
	s->quota.store = WYMCP_TASK_STORE_MAX_BYTES_DEFAULT;
	srv->tasks = s;
	srv->tasks_free = store_free;
	return WYMCP_OK;
}

enum wymcp_err
wymcp_server_set_task_limits(struct wymcp_server *srv, long long ttl_ms,
    long long lease_ms)
{
	if (srv == NULL || srv->tasks == NULL || ttl_ms < 0 || lease_ms <= 0)
		return WYMCP_ERR_INVAL;
	srv->tasks->ttl = ttl_ms;
	srv->tasks->lease = lease_ms;
	return WYMCP_OK;
}

enum wymcp_err
wymcp_server_set_task_quota(struct wymcp_server *srv, long long tasks,
    long long bytes, long long store_bytes)
{
	if (srv == NULL || srv->tasks == NULL || tasks < 0 || bytes < 0 ||
	    store_bytes < 0)
		return WYMCP_ERR_INVAL;
	srv->tasks->quota.tasks = tasks;
	srv->tasks->quota.bytes = bytes;
	srv->tasks->quota.store = store_bytes;
	return WYMCP_OK;
}

void
wymcp_server_set_task_store_watch(struct wymcp_server *srv,
    wymcp_store_watch_fn fn, void *arg)
{
	if (srv == NULL)
		return;
	srv->store_watch = fn;
	srv->store_watch_arg = arg;
}

/* Tell the watch, or log it. */
static void
event(struct wymcp_server *srv, struct wymcp__store *s,
    enum wymcp_store_event ev, const char *why)
{
	if (srv->store_watch != NULL) {
		srv->store_watch(srv->store_watch_arg, ev, why);
		return;
	}
	if (ev == WYMCP_STORE_DOWN)
		wymcp__log(srv, NULL, WYMCP_LOG_WARNING, "task store "
		    "unreachable: %s", why);
	else if (ev == WYMCP_STORE_BACK)
		wymcp__log(srv, NULL, WYMCP_LOG_WARNING, "task store "
		    "reachable again after %lld s",
		    (wymcp__now_ms() - s->down_since + 999) / 1000);
	else if (ev == WYMCP_STORE_SLOW)
		wymcp__log(srv, NULL, WYMCP_LOG_WARNING, "task store: %s",
		    why);
	else
		wymcp__log(srv, NULL, WYMCP_LOG_INFO, "task store: the "
		    "connection broke (%s); connected again", why);
}

/*
 * A runner's renewal of task `id''s lease of `lease' ms took `spent'
 * ms, ending after the lease: tell the watch (WYMCP_STORE_SLOW).
 */
void
wymcp__store_slow(struct wymcp_server *srv, const char *id,
    long long spent, long long lease)
{
	char	 why[200];

	if (srv->tasks == NULL)
		return;
	snprintf(why, sizeof(why), "task %s: renewing its lease took %lld "
	    "ms, longer than the lease (%lld ms): the store is slower than "
	    "the lease, and another runner may take the task over", id,
	    spent, lease);
	event(srv, srv->tasks, WYMCP_STORE_SLOW, why);
}

/*
 * This process's connection, opened at first use or after one broke;
 * NULL when there is none (the store is down: no new attempt before
 * the back-off ends, so a down store costs a request nothing).
 */
static struct wymcp__store *
conn(struct wymcp_server *srv)
{
	struct wymcp__store	*s = srv->tasks;
	char			 err[300];
	long long		 now;

	if (s == NULL)
		return NULL;
	if (s->h != NULL && s->pid != getpid()) {
		/* Another process's: its health is not ours either. */
		s->h = NULL;
		s->down = s->lost = 0;
		s->retry_at = 0;
		s->backoff = 0;
	}
	if (s->h == NULL) {
		now = wymcp__clock_ms();
		if (now < s->retry_at)
			return NULL;
		if (s->ops->open(s->uri, &s->h, err, sizeof(err)) != 0) {
			s->h = NULL;
			s->backoff = s->backoff == 0 ? WYMCP__STORE_BACKOFF_MS :
			    s->backoff * 2 > WYMCP__STORE_BACKOFF_MAX ?
			    WYMCP__STORE_BACKOFF_MAX : s->backoff * 2;
			s->retry_at = now + s->backoff;
			if (!s->down) {
				s->down = 1;
				s->down_since = wymcp__now_ms();
				event(srv, s, WYMCP_STORE_DOWN, err);
			} else
				wymcp__log(srv, NULL, WYMCP_LOG_DEBUG,
				    "task store: %s", err);
			return NULL;
		}
		s->pid = getpid();
		s->connected_at = now;
		s->backoff = 0;
		s->retry_at = 0;
		if (s->down)
			event(srv, s, WYMCP_STORE_BACK, "");
		else if (s->lost)
			event(srv, s, WYMCP_STORE_RECONNECT, s->why);
		s->down = s->lost = 0;
	}
	/* Now and then, delete what has expired (tasks.md: MAY). */
	now = wymcp__now_ms();
	if (now - s->last_purge >= PURGE_EVERY_MS) {
		s->last_purge = now;
		if (s->ops->purge(s->h, now) != 0)
			wymcp__log(srv, NULL, WYMCP_LOG_WARNING,
			    "task store: %s", s->ops->error(s->h));
	}
	return s;
}

/*
 * After a back end's failure `rc': log a failure of the request's own
 * and return -1; for WYMCP__STORE_DOWN close the connection (the next
 * use opens another) and return WYMCP__STORE_DOWN.
 */
static int
failed(struct wymcp_server *srv, struct wymcp__store *s, int rc)
{
	if (rc != WYMCP__STORE_DOWN) {
		wymcp__log(srv, NULL, WYMCP_LOG_ERR, "task store: %s",
		    s->ops->error(s->h));
		return -1;
	}
	snprintf(s->why, sizeof(s->why), "%s", s->ops->error(s->h));
	wymcp__log(srv, NULL, WYMCP_LOG_DEBUG, "task store: %s", s->why);
	s->ops->close(s->h);
	s->h = NULL;
	s->lost = 1;
	return WYMCP__STORE_DOWN;
}

/* What one call of the back end is: see call(). */
enum op { OP_PUT, OP_GET, OP_MODIFY, OP_DEPTH, OP_FD };
struct req {
	enum op			 op;
	const char		*id;
	struct wymcp__task	*t;
	const struct wymcp__task *in;
	wymcp__task_fn		 fn;
	void			*arg;
	long long		*n;
};

static int
call1(struct wymcp__store *s, struct req *q)
{
	switch (q->op) {
	case OP_PUT:
		return s->ops->put(s->h, q->in, &s->quota);
	case OP_GET:
		return s->ops->get(s->h, q->id, q->t);
	case OP_MODIFY:
		return s->ops->modify(s->h, q->id, q->fn, q->arg);
	case OP_DEPTH:
		return s->ops->depth(s->h, wymcp__now_ms(), q->n);
	case OP_FD:
		return s->ops->fd(s->h);
	}
	return -1;
}

/*
 * Call the back end; on a connection that broke (WYMCP__STORE_DOWN),
 * once more on a new one.  Every call made this way is safe to repeat:
 * a read, a change keyed by the task's id whose function looks at the
 * row it finds (a second tasks/update finds the answers taken, a second
 * outcome finds the task finished), or the put of a new id (checked
 * below).  Returns what the back end did, -1 after a failure of the
 * request's own (logged), WYMCP__STORE_DOWN when the store is down.
 */
static int
call(struct wymcp_server *srv, struct req *q)
{
	struct wymcp__store	*s;
	struct wymcp__task	 t;
	int			 rc, again;

	for (again = 0; again < 2; again++) {
		if ((s = conn(srv)) == NULL)
			return WYMCP__STORE_DOWN;
		/* fd() is -1 for "none" (SQLite): no failure. */
		if ((rc = call1(s, q)) >= 0 || (q->op == OP_FD && rc == -1))
			return rc;
		/* A quota's answer: no failure either. */
		if (WYMCP__STORE_REFUSED(rc)) {
			if (again == 0)
				return rc;
			break;
		}
		rc = failed(srv, s, rc);
		if (rc != WYMCP__STORE_DOWN)
			break;
	}
	/*
	 * A put whose answer was lost may have landed before the
	 * connection broke: then the second one found its id taken, or
	 * the principal's quota used by the first.
	 */
	if (q->op == OP_PUT && again == 1 && (s = conn(srv)) != NULL &&
	    s->ops->get(s->h, q->in->id, &t) == 0) {
		rc = t.created == q->in->created &&
		    strcmp(t.principal, q->in->principal != NULL ?
		    q->in->principal : "") == 0 ? 0 : -1;
		wymcp__task_clear(&t);
	}
	return rc;
}

/*
 * Store a new task within the quota: 0, -1 (logged),
 * WYMCP__STORE_DOWN, or WYMCP__STORE_OVER_TASKS, _OVER_BYTES or
 * WYMCP__STORE_FULL when the quota refuses it (nothing stored).
 */
int
wymcp__store_put(struct wymcp_server *srv, const struct wymcp__task *t)
{
	struct req	 q = { OP_PUT, NULL, NULL, t, NULL, NULL, NULL };

	return call(srv, &q);
}

/* Has task `t' outlived its TTL at `now'? */
static int
expired(const struct wymcp__task *t, long long now)
{
	return t->ttl > 0 && now >= t->created + t->ttl;
}

/*
 * Task `id' of `principal' (NULL: anonymous) into *t: 0, 1 when there
 * is no such task for this principal (or it expired), -1 on failure,
 * WYMCP__STORE_DOWN when the store is down.
 */
int
wymcp__store_get(struct wymcp_server *srv, const char *id,
    const char *principal, struct wymcp__task *t)
{
	struct req	 q = { OP_GET, id, t, NULL, NULL, NULL, NULL };
	int		 rc;

	memset(t, 0, sizeof(*t));
	if (!wymcp__task_id_ok(id))
		return 1;
	if ((rc = call(srv, &q)) != 0)
		return rc;
	if (strcmp(t->principal, principal != NULL ? principal : "") != 0 ||
	    expired(t, wymcp__now_ms())) {
		wymcp__task_clear(t);
		return 1;
	}
	return 0;
}

/*
 * How long a claim lasts: the configured lease, but never less than the
 * request time limit plus WYMCP__TASK_LEASE_SLACK, so that a tool that
 * never looks at wymcp_cancelled() (which renews the lease) is not
 * claimed by a second runner while the first may still be running it:
 * the first is stopped at the time limit (wymcp-fcgi's watch) before
 * the lease can run out.
 */
long long
wymcp__store_lease(const struct wymcp_server *srv)
{
	long long	 l = srv->tasks->lease;

	if (srv->timeout_ms > 0 &&
	    l < (long long)srv->timeout_ms + WYMCP__TASK_LEASE_SLACK)
		l = (long long)srv->timeout_ms + WYMCP__TASK_LEASE_SLACK;
	return l;
}

/*
 * Claim a runnable task into *t: 0, 1 when there is none, -1 on
 * failure, WYMCP__STORE_DOWN when the store is down.  Not tried again
 * on a new connection: the runner looks again anyway, and a claim whose
 * answer was lost holds its task until the lease ends.  For
 * WYMCP__TASK_GRACE_MS after this process (re)connected it takes over
 * no task whose lease ran out: that task's runner may be reconnecting
 * too, holding its outcome (wymcp_server_run_task()).
 */
int
wymcp__store_claim(struct wymcp_server *srv, struct wymcp__task *t)
{
	struct wymcp__store	*s;
	int			 rc;

	if ((s = conn(srv)) == NULL)
		return WYMCP__STORE_DOWN;
	if ((rc = s->ops->claim(s->h, wymcp__now_ms(),
	    wymcp__store_lease(srv), wymcp__clock_ms() - s->connected_at >=
	    WYMCP__TASK_GRACE_MS, t)) < 0)
		return failed(srv, s, rc);
	return rc;
}

/*
 * Change task `id' in one transaction (see wymcp__task_fn): 0, 1 when
 * there is no such task, -1 on failure, WYMCP__STORE_DOWN.
 */
int
wymcp__store_modify(struct wymcp_server *srv, const char *id,
    wymcp__task_fn fn, void *arg)
{
	struct req	 q = { OP_MODIFY, id, NULL, NULL, fn, arg, NULL };

	return call(srv, &q);
}

/*
 * A descriptor to wait on for new tasks (PostgreSQL: LISTEN, again on
 * each new connection), or -1 (SQLite, or the store is down).
 */
int
wymcp__store_fd(struct wymcp_server *srv)
{
	struct req	 q = { OP_FD, NULL, NULL, NULL, NULL, NULL, NULL };
	int		 rc;

	if (srv == NULL || srv->tasks == NULL)
		return -1;
	rc = call(srv, &q);
	return rc >= 0 ? rc : -1;
}

int
wymcp_server_task_fd(struct wymcp_server *srv)
{
	return wymcp__store_fd(srv);
}

enum wymcp_err
wymcp_server_task_depth(struct wymcp_server *srv,
    struct wymcp_task_depth *d, size_t size)
{
	struct wymcp_task_depth	 full;
	struct req		 q = { OP_DEPTH, NULL, NULL, NULL, NULL, NULL,
				    NULL };
	long long		 n[3] = { 0, 0, 0 };

	if (d != NULL)
		memset(d, 0, size);
	if (srv == NULL || d == NULL || srv->tasks == NULL)
		return WYMCP_ERR_INVAL;
	q.n = n;
	if (call(srv, &q) != 0)
		return WYMCP_ERR_IO;
	memset(&full, 0, sizeof(full));
	full.waiting = n[0];
	full.running = n[1];
	full.input_required = n[2];
	memcpy(d, &full, size < sizeof(full) ? size : sizeof(full));
	return WYMCP_OK;
}
