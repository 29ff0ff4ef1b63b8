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
#define WYMCP__TASK_ATTEMPTS	5	/* claims before it fails */
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
	int		 attempts;	/* claims so far */
	long long	 created;
	long long	 updated;
	long long	 ttl;		/* ms from created, 0: unlimited */
	long long	 lease;		/* claimed until, 0: not claimed */
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
 * (with a line logged into err).
 */
struct wymcp__store_ops {
	const char	*name;
	int	(*open)(const char *uri, void **h, char *err, size_t);
	void	(*close)(void *h);
	int	(*put)(void *h, const struct wymcp__task *);
	int	(*get)(void *h, const char *id, struct wymcp__task *);
	int	(*claim)(void *h, long long now, long long lease,
		    struct wymcp__task *);
	int	(*modify)(void *h, const char *id, wymcp__task_fn, void *);
	int	(*purge)(void *h, long long now);
	const char *(*error)(void *h);	/* the last failure, in words */
	int	(*fd)(void *h);		/* to wait on for new work, or -1 */
	/* Live tasks at `now': waiting, running, input_required. */
	int	(*depth)(void *h, long long now, long long n[3]);
};

/* The open store a server holds (srv->tasks). */
struct wymcp__store {
	const struct wymcp__store_ops *ops;
	void			*h;		/* the back end's, or NULL */
	pid_t			 pid;		/* the process that opened h */
	char			*uri;
	long long		 ttl;		/* ms given to new tasks */
	long long		 lease;		/* ms a claim lasts */
	long long		 last_purge;	/* ms */
};

/* sqlite.c */
extern const struct wymcp__store_ops wymcp__store_sqlite;
/* pg.c */
extern const struct wymcp__store_ops wymcp__store_pg;

/* row.c: a row. */
long long wymcp__now_ms(void);
void	 wymcp__task_clear(struct wymcp__task *);
int	 wymcp__task_new_id(char *id);
int	 wymcp__task_id_ok(const char *id);
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
