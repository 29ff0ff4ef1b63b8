/*
 * store.c - the task store's one interface: opening by URI, ids, and
 * the calls the request path and the runners make
 *
 * A back end's connection is never carried across fork(2): the store
 * is checked (opened, schema upgraded, closed) when it is configured,
 * before the supervisor forks, and each process opens its own
 * connection at its first use.  Every call binds the task to the
 * principal: a task of another principal reads as "no such task", the
 * same answer as an id that was never made (tasks.md "Auth binding").
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"

#define PURGE_EVERY_MS	60000	/* expired tasks are deleted this often */

static const struct wymcp__store_ops *const backends[] = {
	&wymcp__store_sqlite,
	&wymcp__store_pg,
};

/* The back end named by `uri', or NULL. */
static const struct wymcp__store_ops *
backend(const char *uri)
{
	if (strncmp(uri, "sqlite:", 7) == 0)
		return backends[0];
	if (strncmp(uri, "postgresql://", 13) == 0 ||
	    strncmp(uri, "postgres://", 11) == 0)
		return backends[1];
	return NULL;
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
	free(s->uri);
	free(s);
}

enum wymcp_err
wymcp_server_set_task_store(struct wymcp_server *srv, const char *uri)
{
	const struct wymcp__store_ops *ops;
	struct wymcp__store	*s;
	char			 err[300];
	void			*h;

	if (srv == NULL)
		return WYMCP_ERR_INVAL;
	if (srv->tasks_free != NULL)
		srv->tasks_free(srv->tasks);
	srv->tasks = NULL;
	srv->tasks_free = NULL;
	if (uri == NULL)
		return WYMCP_OK;
	if ((ops = backend(uri)) == NULL) {
		/* Only the scheme: the rest may hold a password. */
		wymcp__seterr(srv, "task store '%.*s...': neither sqlite:PATH "
		    "nor postgresql://...", (int)strcspn(uri, ":/@"), uri);
		return WYMCP_ERR_INVAL;
	}
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

/* This process's connection, opened at first use; NULL on failure. */
static struct wymcp__store *
conn(struct wymcp_server *srv)
{
	struct wymcp__store	*s = srv->tasks;
	char			 err[300];
	long long		 now;

	if (s == NULL)
		return NULL;
	if (s->h == NULL || s->pid != getpid()) {
		s->h = NULL;
		if (s->ops->open(s->uri, &s->h, err, sizeof(err)) != 0) {
			wymcp__log(srv, NULL, WYMCP_LOG_ERR, "task store: %s",
			    err);
			s->h = NULL;
			return NULL;
		}
		s->pid = getpid();
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

/* Log a back end's failure and return -1. */
static int
logfail(struct wymcp_server *srv, struct wymcp__store *s)
{
	wymcp__log(srv, NULL, WYMCP_LOG_ERR, "task store: %s",
	    s->ops->error(s->h));
	return -1;
}

/* Store a new task.  0, or -1 (logged). */
int
wymcp__store_put(struct wymcp_server *srv, const struct wymcp__task *t)
{
	struct wymcp__store	*s;

	if ((s = conn(srv)) == NULL)
		return -1;
	return s->ops->put(s->h, t) == 0 ? 0 : logfail(srv, s);
}

/* Has task `t' outlived its TTL at `now'? */
static int
expired(const struct wymcp__task *t, long long now)
{
	return t->ttl > 0 && now >= t->created + t->ttl;
}

/*
 * Task `id' of `principal' (NULL: anonymous) into *t: 0, 1 when there
 * is no such task for this principal (or it expired), -1 on failure.
 */
int
wymcp__store_get(struct wymcp_server *srv, const char *id,
    const char *principal, struct wymcp__task *t)
{
	struct wymcp__store	*s;
	int			 rc;

	memset(t, 0, sizeof(*t));
	if (!wymcp__task_id_ok(id))
		return 1;
	if ((s = conn(srv)) == NULL)
		return -1;
	if ((rc = s->ops->get(s->h, id, t)) < 0)
		return logfail(srv, s);
	if (rc > 0)
		return 1;
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
 * failure.  A task claimed more than WYMCP__TASK_ATTEMPTS times (its
 * runners died each time) fails instead of being run again.
 */
int
wymcp__store_claim(struct wymcp_server *srv, struct wymcp__task *t)
{
	struct wymcp__store	*s;
	int			 rc;

	if ((s = conn(srv)) == NULL)
		return -1;
	if ((rc = s->ops->claim(s->h, wymcp__now_ms(),
	    wymcp__store_lease(srv), t)) < 0)
		return logfail(srv, s);
	return rc;
}

/* Change task `id' in one transaction (see wymcp__task_fn). */
int
wymcp__store_modify(struct wymcp_server *srv, const char *id,
    wymcp__task_fn fn, void *arg)
{
	struct wymcp__store	*s;
	int			 rc;

	if ((s = conn(srv)) == NULL)
		return -1;
	if ((rc = s->ops->modify(s->h, id, fn, arg)) < 0)
		return logfail(srv, s);
	return rc;
}

/* A descriptor to wait on for new tasks (PostgreSQL), or -1. */
int
wymcp__store_fd(struct wymcp_server *srv)
{
	struct wymcp__store	*s;

	if (srv == NULL || (s = conn(srv)) == NULL)
		return -1;
	return s->ops->fd(s->h);
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
	struct wymcp__store	*s;
	long long		 n[3] = { 0, 0, 0 };

	if (d != NULL)
		memset(d, 0, size);
	if (srv == NULL || d == NULL || srv->tasks == NULL)
		return WYMCP_ERR_INVAL;
	if ((s = conn(srv)) == NULL)
		return WYMCP_ERR_IO;
	if (s->ops->depth(s->h, wymcp__now_ms(), n) != 0) {
		(void)logfail(srv, s);
		return WYMCP_ERR_IO;
	}
	memset(&full, 0, sizeof(full));
	full.waiting = n[0];
	full.running = n[1];
	full.input_required = n[2];
	memcpy(d, &full, size < sizeof(full) ? size : sizeof(full));
	return WYMCP_OK;
}
