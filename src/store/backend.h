/*
 * backend.h - what a back-end object of the task store and the bus is
 *
 * The task store's back ends (sqlite.c, pg.c) are not in libwymcp: each
 * is a shared object of its own, installed under the package library
 * directory (WYMCP_BACKENDDIR, "$(pkglibdir)/backend"; the environment
 * variable WYMCP_BACKEND_DIR names another, as the tests do in the build
 * tree), so that the library a tool author links, and every process that
 * loads it, pulls in neither SQLite nor libpq and what libpq brings
 * (OpenSSL, Kerberos, LDAP).  store.c, the one loader, loads one with
 * dlopen(3) the first time a task store or a program names it
 * (wymcp_backend_load(): wymcp-fcgi's --task-store, and pg.so for its
 * bus, --bus postgresql://), once the file passed the caller's check
 * (wymcp-fcgi's: that of modules).
 *
 * An object exports one symbol, `wymcp_backend' (WYMCP__BACKEND_SYM), a
 * struct wymcp__backend whose abi and sizes the loader checks.  The
 * interface is private: an object is built with the library that loads
 * it.  A back end calls nothing of the library: it carries its own
 * copies of the two row helpers below (task.c, linked into each).
 * This header depends on no other of the project, so that a program may
 * include it for the types alone.
 */
#ifndef WYMCP_BACKEND_H
#define WYMCP_BACKEND_H

#include <stddef.h>
#include <string.h>

#define WYMCP__BACKEND_ABI	1		/* changes with any struct */
#define WYMCP__BACKEND_SYM	"wymcp_backend"
#define WYMCP__BACKEND_ENV	"WYMCP_BACKEND_DIR"

#define WYMCP__TASK_ID_LEN	24	/* their base64url, unpadded */
#define WYMCP__STORE_DOWN	(-2)	/* unreachable: try again later */
#define WYMCP__STORE_OVER_TASKS	(-3)	/* put: the principal's tasks */
#define WYMCP__STORE_OVER_BYTES	(-4)	/* put: ... their bytes */
#define WYMCP__STORE_FULL	(-5)	/* put: the store-wide cap */
#define WYMCP__STORE_REFUSED(rc) ((rc) <= WYMCP__STORE_OVER_TASKS && \
				    (rc) >= WYMCP__STORE_FULL)

/* A task's status (tasks.md "Task Status"). */
enum wymcp__task_status {
	WYMCP__TASK_WORKING,
	WYMCP__TASK_INPUT,		/* input_required */
	WYMCP__TASK_COMPLETED,
	WYMCP__TASK_FAILED,
	WYMCP__TASK_CANCELLED
};
#define WYMCP__TASK_TERMINAL(s)	((s) >= WYMCP__TASK_COMPLETED)

/*
 * One task row.  Strings are malloc(3)ed and freed by
 * wymcp__task_clear(); the JSON ones are JSON text, NULL when absent.
 * Times are ms since the epoch.
 */
struct wymcp__task {
	char		 id[WYMCP__TASK_ID_LEN + 1];
	char		*principal;	/* who made it, "" anonymous */
	char		*tool;		/* the tool's name */
	char		*args;		/* its arguments (object) */
	char		*context;	/* caps, assigns, meta (object) */
	char		*answers;	/* input responses so far */
	char		*pending;	/* outstanding inputRequests */
	char		*result;	/* CallToolResult, completed */
	char		*error;		/* JSON-RPC error, failed */
	char		*message;	/* statusMessage, or NULL */
	int		 status;	/* enum wymcp__task_status */
	int		 cancel;	/* tasks/cancel asked */
	int		 queued;	/* a runner may claim it */
	int		 claims;	/* claims so far: the runner's token */
	int		 attempts;	/* claims that took over a lease that
					   ran out: its runner died */
	long long	 created;
	long long	 updated;
	long long	 ttl;		/* ms from created, 0: unlimited */
	long long	 lease;		/* claimed until, 0: not claimed */
};

/*
 * What a new task may take (wymcp_server_set_task_quota()), each 0 for
 * no limit.  A task's bytes are those of its JSON and text columns
 * (arguments, context with the assigns, answers, questions, result,
 * error, statusMessage: wymcp__task_bytes()), kept in the row as they
 * change; a task counts until it expires (and is deleted).  The
 * unfinished tasks are those working or input_required.
 */
struct wymcp__quota {
	long long	 tasks;		/* unfinished tasks of a principal */
	long long	 bytes;		/* bytes of a principal's tasks */
	long long	 store;		/* bytes of every principal's */
};

/*
 * A change made inside one transaction (wymcp__store_modify()): the
 * function edits *t and returns 1 to write it back, 0 to leave the row
 * alone, -1 to fail.
 */
typedef int (*wymcp__task_fn)(struct wymcp__task *t, void *arg);

/*
 * A back end.  Every function returns 0 on success, 1 for "no such
 * task" (get, modify) or "nothing to claim" (claim), -1 on failure
 * (with a line logged into err), or WYMCP__STORE_DOWN when the failure
 * is the store's state, not the request's: the connection broke, the
 * server is shutting down or refuses connections, a lock was not had
 * within the busy timeout, the disk is full or read-only.  After
 * WYMCP__STORE_DOWN the connection is closed and opened again before
 * the next use.  claim() takes a task whose lease ran out (its runner
 * died) only when `take_over' is set.  put() counts, in the insert's
 * transaction and serialized with every other put() it could race
 * with, what the principal's live tasks and the whole store hold, and
 * inserts nothing when the new task would take them past `quota':
 * WYMCP__STORE_OVER_TASKS, WYMCP__STORE_OVER_BYTES or
 * WYMCP__STORE_FULL (no failure: nothing is logged).
 */
struct wymcp__store_ops {
	const char	*name;
	int	(*open)(const char *uri, void **h, char *err, size_t);
	void	(*close)(void *h);
	int	(*put)(void *h, const struct wymcp__task *,
		    const struct wymcp__quota *quota);
	int	(*get)(void *h, const char *id, struct wymcp__task *);
	int	(*claim)(void *h, long long now, long long lease,
		    int take_over, struct wymcp__task *);
	int	(*modify)(void *h, const char *id, wymcp__task_fn, void *);
	int	(*purge)(void *h, long long now);
	const char *(*error)(void *h);	/* the last failure, in words */
	int	(*fd)(void *h);		/* to wait on for new work, or -1 */
	/* Live tasks at `now': waiting, running, input_required. */
	int	(*depth)(void *h, long long now, long long n[3]);
};

/*
 * The bus (wymcp-fcgi --bus postgresql://...): events shared by every
 * instance through LISTEN/NOTIFY on one channel.  publish() says one
 * message and waits for it (wymcp-fcgi --publish).  The others drive one
 * connection without ever blocking, for the hub's event loop:
 * start() begins connecting (0, or -1: then error() says why and
 * close() frees what was made); while connecting, poll() advances it
 * and says what to wait for on fd(): WYMCP__BUS_READ or _WRITE, 0 when
 * connected, -1 on failure.  listen() and notify() send a query (0, or
 * -1); flush() sends what is buffered (0 done, 1 more to send, -1);
 * input() reads what came (0, -1); done() says whether the query in
 * flight finished: -1 not yet, 1 it succeeded, 0 it failed.  Each
 * notification that came is handed to `fn' by notified().  bad() says
 * whether the connection broke.
 */
#define WYMCP__BUS_READ		1
#define WYMCP__BUS_WRITE	2
struct wymcp__bus_ops {
	int	(*publish)(const char *uri, const char *channel,
		    const char *msg, char *err, size_t errlen);
	int	(*start)(const char *uri, void **c);
	int	(*poll)(void *c);
	int	(*fd)(void *c);
	int	(*listen)(void *c, const char *channel);
	int	(*notify)(void *c, const char *channel, const char *msg);
	int	(*flush)(void *c);
	int	(*input)(void *c);
	int	(*done)(void *c);
	void	(*notified)(void *c, void (*fn)(void *arg, const char *msg,
		    size_t len), void *arg);
	int	(*bad)(void *c);
	const char *(*error)(void *c);	/* "" when there is none */
	void	(*close)(void *c);
};

/*
 * What a back-end object exports as `wymcp_backend'.  bus is NULL for a
 * back end that carries no bus (SQLite).
 */
struct wymcp__backend {
	int				 abi;	/* WYMCP__BACKEND_ABI */
	size_t				 size;	/* of this struct */
	size_t				 task_size;
	size_t				 store_size;
	size_t				 bus_size;
	const char			*name;	/* "sqlite", "pg" */
	const struct wymcp__store_ops	*store;
	const struct wymcp__bus_ops	*bus;
};
#define WYMCP__BACKEND_DEFINE(bname, sops, bops)			\
	__attribute__((visibility("default")))				\
	const struct wymcp__backend wymcp_backend = {			\
		WYMCP__BACKEND_ABI, sizeof(struct wymcp__backend),	\
		sizeof(struct wymcp__task),				\
		sizeof(struct wymcp__store_ops),			\
		sizeof(struct wymcp__bus_ops), (bname), (sops), (bops) }

/*
 * Whether `be', the symbol an object exports, is the back end `name'
 * of this build (its ABI and struct sizes): store.c checks.
 */
static inline int
wymcp__backend_fits(const struct wymcp__backend *be, const char *name)
{
	return be != NULL && be->abi == WYMCP__BACKEND_ABI &&
	    be->size == sizeof(*be) &&
	    be->task_size == sizeof(struct wymcp__task) &&
	    be->store_size == sizeof(struct wymcp__store_ops) &&
	    be->bus_size == sizeof(struct wymcp__bus_ops) &&
	    be->name != NULL && strcmp(be->name, name) == 0;
}

/* task.c: in the library and in each back end. */
void		 wymcp__task_clear(struct wymcp__task *);
long long	 wymcp__task_bytes(const struct wymcp__task *);

#endif /* WYMCP_BACKEND_H */
