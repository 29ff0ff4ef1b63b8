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
#include "store/backend.h"

#define WYMCP__TASK_ID_BYTES	18	/* 144 bits from randombytes */
#define WYMCP__TASK_TEXT_MAX	(4UL * 1024 * 1024) /* per JSON column */
#define WYMCP__TASK_MSG_MAX	1024	/* statusMessage bytes */
#define WYMCP__TASK_LEASE_MS	30000	/* a claim lasts this, renewed */
#define WYMCP__TASK_LEASE_SLACK	10000	/* at least time limit + this */
#define WYMCP__TASK_ATTEMPTS	5	/* re-runs after a runner died */
#define WYMCP__TASK_GRACE_MS	5000	/* a new connection takes over none */
#define WYMCP__TASK_QUOTA_RETRY_S 5	/* Retry-After over a quota */
#define WYMCP__STORE_RETRY_S	2	/* Retry-After while it is down */
#define WYMCP__STORE_BACKOFF_MS	100	/* first wait before reconnecting */
#define WYMCP__STORE_BACKOFF_MAX 2000	/* longest wait */
#define WYMCP__TASK_TTL_MS	3600000	/* default ttlMs: one hour */
#define WYMCP__TASK_POLL_MS	500	/* pollIntervalMs */

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

/*
 * store.c: the back end `name' ("sqlite", "pg"), loaded from
 * WYMCP_BACKEND_DIR or the configured directory at its first use and
 * never unloaded; NULL with why in `err' (a back end this wymcp was
 * built without, a file `check' refused, one that cannot be loaded or
 * is of another ABI).  `check' (NULL: none) vets the file's real path
 * before it is loaded; a back end loaded before is not vetted again.
 * wymcp_backend_load() is the same by URI, for programs.
 */
const struct wymcp__backend *
	 wymcp__backend_load(const char *name, wymcp_file_check_fn check,
	    void *arg, char *err, size_t errlen);

/* row.c: a row. */
long long wymcp__now_ms(void);
long long wymcp__clock_ms(void);	/* monotonic */
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
void	 wymcp__store_slow(struct wymcp_server *, const char *id,
	    long long spent, long long lease);


#endif /* WYMCP_STORE_H */
