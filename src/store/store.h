/*
 * store.h - the task store: one small interface, two back ends
 *
 * The tasks extension (io.modelcontextprotocol/tasks, tasks.md) keeps a
 * task's state where every worker and every task runner can reach it:
 * a SQLite file on one host, a PostgreSQL database across hosts.  The
 * request path (methods/task.c) creates tasks, reads them and changes
 * them; the runners (the same file, called from wymcp-fcgi's runner
 * processes) claim them, run the tool and write the outcome.
 *
 * This layer sits between setup (the server object holds the open
 * store) and core (the request context reads the cancel mark).  It
 * knows JSON only as text: what a column holds is the caller's.
 */
#ifndef WYMCP_STORE_H
#define WYMCP_STORE_H

#include <sys/types.h>

#include "setup/setup.h"

#define WYMCP__TASK_ID_BYTES	18	/* 144 bits from randombytes */
#define WYMCP__TASK_ID_LEN	24	/* their base64url, unpadded */
#define WYMCP__TASK_TEXT_MAX	(4UL * 1024 * 1024) /* per JSON column */
#define WYMCP__TASK_MSG_MAX	1024	/* statusMessage bytes */
#define WYMCP__TASK_LEASE_MS	30000	/* a claim lasts this, renewed */
#define WYMCP__TASK_LEASE_SLACK	10000	/* at least time limit + this */
#define WYMCP__TASK_ATTEMPTS	5	/* re-runs after a runner died */
#define WYMCP__TASK_GRACE_MS	5000	/* a new connection takes over none */
#define WYMCP__STORE_DOWN	(-2)	/* unreachable: try again later */
#define WYMCP__STORE_OVER_TASKS	(-3)	/* put: the principal's tasks */
#define WYMCP__STORE_OVER_BYTES	(-4)	/* put: ... their bytes */
#define WYMCP__STORE_FULL	(-5)	/* put: the store-wide cap */
#define WYMCP__STORE_REFUSED(rc) ((rc) <= WYMCP__STORE_OVER_TASKS && \
				    (rc) >= WYMCP__STORE_FULL)
#define WYMCP__TASK_QUOTA_RETRY_S 5	/* Retry-After over a quota */
#define WYMCP__STORE_RETRY_S	2	/* Retry-After while it is down */
#define WYMCP__STORE_BACKOFF_MS	100	/* first wait before reconnecting */
#define WYMCP__STORE_BACKOFF_MAX 2000	/* longest wait */
#define WYMCP__TASK_TTL_MS	3600000	/* default ttlMs: one hour */
#define WYMCP__TASK_POLL_MS	500	/* pollIntervalMs */

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
 * The open store a server holds (srv->tasks).  The connection is this
 * process's (pid); so is what it knows of the store's health: whether
 * the last attempt to connect failed (down, since when), when it may
 * try again (retry_at, on the monotonic clock, after a back-off that
 * doubles up to WYMCP__STORE_BACKOFF_MAX), and when it last connected
 * (a runner takes over no task whose lease ran out for
 * WYMCP__TASK_GRACE_MS after that, so that the runner that holds the
 * task's outcome, reconnecting too, can store it first).
 */
struct wymcp__store {
	const struct wymcp__store_ops *ops;
	void			*h;		/* the back end's, or NULL */
	pid_t			 pid;		/* the process that opened h */
	char			*uri;
	long long		 ttl;		/* ms given to new tasks */
	long long		 lease;		/* ms a claim lasts */
	struct wymcp__quota	 quota;		/* what new tasks may take */
	long long		 last_purge;	/* ms */
	int			 down;		/* the last connect failed */
	int			 lost;		/* a connection broke */
	char			 why[256];	/* ... because of this */
	long long		 down_since;	/* ms since the epoch */
	long long		 retry_at;	/* monotonic ms */
	int			 backoff;	/* ms */
	long long		 connected_at;	/* monotonic ms */
	/*
	 * An outcome the runner could not store (the store was down):
	 * kept, and stored again by the next wymcp_server_run_task().
	 */
	struct wymcp__task	 held;		/* id[0] == '\0': none */
	int			 held_claim;	/* the claim it is for */
};

/* sqlite.c */
extern const struct wymcp__store_ops wymcp__store_sqlite;
/* pg.c */
extern const struct wymcp__store_ops wymcp__store_pg;

/* row.c: a row. */
long long wymcp__now_ms(void);
long long wymcp__clock_ms(void);	/* monotonic */
void	 wymcp__task_clear(struct wymcp__task *);
int	 wymcp__task_new_id(char *id);
int	 wymcp__task_id_ok(const char *id);
long long wymcp__task_bytes(const struct wymcp__task *);
const char *wymcp__task_status_name(int status);
char	*wymcp__strdup_max(const char *, size_t max);

/* store.c: what the request path and the runners call. */
int	 wymcp__store_put(struct wymcp_server *, const struct wymcp__task *);
int	 wymcp__store_get(struct wymcp_server *, const char *id,
	    const char *principal, struct wymcp__task *);
int	 wymcp__store_claim(struct wymcp_server *, struct wymcp__task *);
int	 wymcp__store_modify(struct wymcp_server *, const char *id,
	    wymcp__task_fn, void *);
int	 wymcp__store_fd(struct wymcp_server *);
long long wymcp__store_lease(const struct wymcp_server *);


#endif /* WYMCP_STORE_H */
