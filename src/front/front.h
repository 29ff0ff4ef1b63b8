/* front.h - internal interfaces of the wymcp-fcgi front end */
#ifndef WYMCP_FRONT_H
#define WYMCP_FRONT_H

/*
 * The front end is a program, not part of libwymcp: it may print, call
 * err(3) and exit.  Its files share this header only; it reaches the
 * library through the public wymcp.h alone (the bus too: wymcp_bus_*()
 * over the back end wymcp_backend_load() gave).
 */

#include <sys/types.h>
#include <sys/socket.h>

#include <signal.h>
#include <stddef.h>

#include "wymcp.h"
#include "prog/prog.h"

#ifndef WYMCP_MODULEDIR
#define WYMCP_MODULEDIR		"/usr/local/lib/wymcp"
#endif
#ifndef WYMCP_BACKENDDIR		/* the task store's back ends */
#define WYMCP_BACKENDDIR	WYMCP_MODULEDIR "/backend"
#endif

#define FRONT_NAME		"wymcp-fcgi"
#define FRONT_MAX_WORKERS	256		/* --workers upper bound */
#define FRONT_TASK_TTL_DEFAULT	3600		/* --task-ttl, s */
#define FRONT_TASK_LEASE_DEFAULT 30		/* --task-lease, s */
#define FRONT_LISTENERS_DEFAULT	1024	/* --max-listeners */
#define FRONT_LISTENERS_MAX	1000000
#define FRONT_LISTEN_AGE_DEFAULT 3600	/* --listen-max-age, s */
#define FRONT_MAX_BODY		(1024UL * 1024 * 1024) /* --max-body bound */
#define FRONT_KEY_BYTES		32		/* --generate-key key size */
#define FRONT_TIMEOUT_DEFAULT	60		/* --request-timeout, s */
#define FRONT_TIMEOUT_MAX	86400		/* its upper bound */
#define FRONT_MAX_REQUESTS_DEFAULT 10000	/* --max-requests */
#define FRONT_DRAIN_DEFAULT	30		/* --drain-timeout, s */
#define FRONT_IDLE_DEFAULT	10		/* --idle-timeout, s */
#define FRONT_GRACE_MS		2000	/* past a time limit: stop the worker */
#define FRONT_BACKSTOP_MS	3000	/* then the supervisor kills it */
#define FRONT_MEMORY_MIN	(16UL * 1024 * 1024)	/* --memory-limit */
#define FRONT_FD_SLACK		32	/* descriptors a worker may gain */
#define FRONT_GROWTH_DEFAULT	(1024UL * 1024 * 1024)	/* peak RSS */
#define FRONT_GROWTH_EVERY	16	/* requests between two looks */

/* Exit statuses of a worker that stops itself (wymcp-fcgi(8)). */
#define FRONT_EXIT_TIMEOUT	3	/* a request ran past its limit */

/*
 * Everything the command line says, parsed once at startup (and again
 * at a reload) over the defaults of options.c's table.  String members
 * point into argv (or a --config file's text); the arrays are
 * allocated by options.c (front_options_free()).
 */
struct front_opts {
	const char	 *config;	/* --config FILE, or NULL */
	const char	 *listen;	/* --listen, or NULL: inherit */
	int		  workers;	/* --workers, 0 = no supervisor */
	int		  workers_max;	/* --workers MIN:MAX, else = workers */
	unsigned int	  idle_timeout;	/* --idle-timeout s */
	const char	**modules;	/* --module, in order */
	size_t		  nmodules;
	const char	**origins;	/* --allow-origin, in order */
	size_t		  norigins;
	const char	 *keyfile;	/* --state-key-file, or NULL */
	const char	 *genkey;	/* --generate-key, or NULL */
	size_t		  max_body;	/* --max-body, or 0: default */
	const char	 *user;		/* --user, or NULL */
	const char	 *group;	/* --group, or NULL */
	int		  verbose;	/* number of -v */
	int		  modern_only;	/* --modern-only */
	unsigned int	  timeout;	/* --request-timeout s, 0 none */
	unsigned long	  max_requests;	/* --max-requests, 0 never */
	int		  max_requests_set; /* given on the command line */
	size_t		  memory;	/* --memory-limit bytes, 0 none */
	unsigned int	  drain;	/* --drain-timeout s */
	struct prog_peer *peers;	/* --allow-peer, in order */
	size_t		  npeers;
	int		  any_peer;	/* --allow-any-peer */
	int		  insecure_files; /* --allow-insecure-files */
	unsigned int	  ask_timeout;	/* --ask-timeout, s */
	int		  max_asking;	/* --max-asking, -1: default */
	int		  max_asking_per; /* ... per principal, -1: default */
	const char	 *relay_listen;	/* --relay-listen, or NULL */
	const char	 *task_store;	/* --task-store URI, or NULL */
	const char	 *skills_dir;	/* --skills-dir DIR, or NULL */
	const char	**exec_dirs;	/* --exec-dir, in order */
	size_t		  nexec_dirs;
	const char	 *exec_user;	/* --exec-user, or NULL */
	const char	 *call;		/* --call TOOL, or NULL */
	const char	 *call_args;	/* --args JSON, or NULL */
	const char	**answers;	/* --answer JSON, in order */
	size_t		  nanswers;
	int		  runners;	/* --task-runners */
	unsigned int	  task_ttl;	/* --task-ttl s, 0 unlimited */
	unsigned int	  task_lease;	/* --task-lease s */
	long long	  task_quota;	/* --task-quota, 0: none */
	long long	  task_quota_bytes; /* --task-quota-bytes, 0: none */
	long long	  task_store_max; /* --task-store-max-bytes, 0: none */
	const char	 *status_path;	/* --status-path, or NULL */
	struct prog_peer *status_peers; /* --status-allow, in order */
	size_t		  nstatus_peers;
	unsigned int	  slow_ms;	/* --slow-log-ms, 0: none */
	const char	 *audit_log;	/* --audit-log, or NULL */
	int		  audit_headers; /* --audit-headers */
	const char	**rate_limits;	/* --rate-limit, in order */
	size_t		  nrate_limits;
	const char	 *otlp_endpoint; /* --otlp-endpoint, or NULL */
	unsigned int	  otlp_metrics_s; /* --otlp-metrics-interval */
	int		  max_listeners; /* --max-listeners, 0: no hub */
	int		  per_principal; /* ...-per-principal, -1: default */
	unsigned int	  listen_age;	/* --listen-max-age s, 0: none */
	const char	 *bus;		/* --bus, or NULL: default */
	const char	 *publish;	/* --publish EVENT, or NULL */
	/* The server's Implementation and instructions (--server-*): */
	struct wymcp_server_info info;
	const char	 *instructions_file; /* --instructions-file */
	/* Discovery outside MCP (experimental): */
	const char	 *public_url;	/* --public-url, or NULL */
	const char	**public_headers; /* --public-header, in order */
	size_t		  npublic_headers;
	int		  print_json;	/* --print-server-json */
};

/*
 * options.c: wymcp-fcgi's options, in one table (front_optdefs[], the
 * model is redis's standardConfig): each entry an option's name, its
 * kind, bounds and default, where it lands in struct front_opts,
 * whether a SIGHUP reload may change it, and its --help text.  The
 * command line, the defaults, the bounds' errors, --help, --config
 * files (their names, through front_longopts()) and a reload all read
 * it.  Adding an option is an entry there and a paragraph in
 * wymcp-fcgi(8) (t/docs checks that each has the other).
 */
enum front_optkind {
	FRONT_OPT_FLAG,		/* no value: the int becomes 1 */
	FRONT_OPT_COUNT,	/* no value, repeatable: the int counts */
	FRONT_OPT_NUM,		/* a decimal number from min to max */
	FRONT_OPT_SIZE,		/* bytes, K, M or G: 0 or min to max */
	FRONT_OPT_STR,		/* a string: the last one given */
	FRONT_OPT_LIST,		/* strings, repeatable, in order */
	FRONT_OPT_PEERS,	/* ADDR[/BITS], repeatable (prog_peer) */
	FRONT_OPT_ACTION	/* no field: `parse' acts (--help) */
};

/* The C type of the member an option lands in. */
enum front_opttype {
	FRONT_T_NONE,
	FRONT_T_INT,		/* int */
	FRONT_T_UINT,		/* unsigned int */
	FRONT_T_ULONG,		/* unsigned long */
	FRONT_T_LLONG,		/* long long */
	FRONT_T_SIZE,		/* size_t */
	FRONT_T_STR,		/* const char * */
	FRONT_T_STRV,		/* const char **, its count at `off2' */
	FRONT_T_PEERS		/* struct prog_peer *, count at `off2' */
};

#define FRONT_OPT_RESTART 0x01	/* a reload keeps the running value */
#define FRONT_OPT_MODE	0x02	/* a mode of its own: a usage line */

/*
 * One option.  `parse', when set, replaces the kind's own parser (it
 * may check the value, or fill two members: --workers MIN:MAX).
 * `help' is one or more lines split by '\n', where %D stands for the
 * default, %M for the default in MiB and %X for the maximum.
 */
struct front_optdef {
	const char	*name;		/* long name, without "--" */
	int		 letter;	/* short form ('v'), or 0 */
	enum front_optkind kind;
	enum front_opttype type;
	size_t		 off;	/* offsetof(struct front_opts, .) */
	size_t		 off2;	/* a list's count; --workers' max */
	long long	 min, max;	/* bounds of a number or a size */
	long long	 def;		/* a number's, a size's default */
	int		 flags;		/* FRONT_OPT_* */
	const char	*arg;		/* its value in --help, NULL */
	const char	*syn;	/* in the synopsis; NULL: [--name arg] */
	const char	*help;
	void		(*parse)(const struct front_optdef *,
			    const char *, struct front_opts *);
};

struct option;
extern const struct front_optdef front_optdefs[];
const struct option *front_longopts(void);
void		 front_options_read(int argc, char *argv[],
		    struct front_opts *o, char ***argvp, char **textp);
void		 front_options_parse(int argc, char *argv[],
		    struct front_opts *o);
void		 front_options_keep(const struct front_opts *s,
		    struct front_opts *n, const char *path, int say);
void		 front_options_free(struct front_opts *o, int all);

/*
 * start.c: the start.  The identity --user and --group name, resolved
 * before anything else so that a typo fails fast
 * (front_resolve_ident()), and given up for good once the sockets are
 * made (front_drop_privileges()).  The listening socket: made
 * (front_sock_unix(), front_sock_tcp()), or handed over by systemd or
 * on descriptor 0 (front_sock_inherited(): -1 when there is none), and
 * who may connect to it (front_sock_check(): 1 for a unix socket) or
 * to the relay's (front_relay_check()).  Each exits on failure.
 */
struct front_limits;

struct front_ident {
	int	 set;		/* --user given */
	uid_t	 uid;
	gid_t	 gid;
};

void		 front_sanitize_stdio(void);
void		 front_resolve_ident(const struct front_opts *,
		    struct front_ident *);
void		 front_drop_privileges(const struct front_ident *);
int		 front_sock_unix(const char *path,
		    const struct front_ident *);
int		 front_sock_tcp(const char *spec);
int		 front_sock_inherited(void);
void		 front_web_server_addrs(struct front_opts *);
int		 front_sock_check(int fd, const struct front_opts *);
void		 front_relay_check(const struct front_opts *);
void		 front_memory_limit(size_t limit);

/*
 * server.c: the server of options `o' (front_make_server(): settings,
 * modules, skills, info, state keys; `cgi': it serves one request),
 * and its task store and the pool's hooks, as the user that will write
 * the store (front_store_server()): NULL or -1 with why in `err'.
 * front_file_trusted() refuses (exits) a --state-key-file or
 * --skills-dir that a user other than root, this process's and `user'
 * could change, unless --allow-insecure-files.
 */
struct wymcp_server *front_make_server(const struct front_opts *o, int cgi,
		    char *err, size_t errlen);
int		 front_store_server(struct wymcp_server *,
		    const struct front_opts *o, const struct front_limits *,
		    char *err, size_t errlen);
void		 front_file_trusted(const struct front_opts *o,
		    const char *what, const char *path, uid_t user);

/*
 * reload.c: SIGHUP.  front_reload_init() keeps the startup options,
 * limits and command line; front_reload_server() (prefork.c's reload
 * callback) reads a --config file again and makes the new server, or
 * NULL with why in `err'; front_reload_done() frees what the last
 * reload read.
 */
void		 front_reload_init(const struct front_opts *,
		    struct front_limits *, int argc, char *argv[]);
struct wymcp_server *front_reload_server(char *err, size_t errlen);
void		 front_reload_done(void);

/*
 * status.c: the figures of the status page, in one page shared by the
 * whole pool (made before the first fork).  Workers add to `requests'
 * and `slow' atomically; the supervisor writes the rest at each look.
 */
#define FRONT_NMETHODS	12		/* counted methods, "other" last */
struct front_stats {
	long long	 started;	/* time(3) the pool started */
	int		 running;	/* workers, at the last look */
	int		 busy;		/* ... of them serving */
	int		 min, max;	/* --workers */
	unsigned long	 respawns;	/* workers started after the first */
	unsigned long	 max_reached;	/* times all MAX were busy */
	unsigned long	 slow;		/* requests past --slow-log-ms */
	unsigned int	 slow_ms;	/* --slow-log-ms */
	unsigned long	 requests[FRONT_NMETHODS][3]; /* ok, 4xx, 5xx */
	/* The task store as the pool's processes saw it (store.c). */
	int		 store;		/* --task-store is set */
	int		 store_down;	/* a connect failed, none since */
	long long	 store_down_since; /* time(3) */
	unsigned long	 store_reconnects;
	unsigned long	 store_outages;
	unsigned long	 store_slow;	/* renewals longer than the lease */
	int		 store_lock;	/* guards the two below */
	long long	 store_error_at; /* time(3), 0: none yet */
	char		 store_error[200];
};

/*
 * The page the supervisor shares with every worker for asking older
 * clients (relay.c): workers holding a question now (__atomic), the
 * cap, and the private directory of the holders' sockets.
 */
/*
 * share.c: shares per principal (listen streams, held questions),
 * counted exactly: a table in shared memory, made before the fork, of
 * the principals that hold a share now (by a digest of `who' keyed
 * with a secret of the table's), room for 2 * `max' of them
 * (front_shares_bytes(): 24 bytes a slot).  front_share_take(): 1
 * taken, 0 when the principal holds `per' already, -1 when the table
 * has no room for one more principal (never merged with another).
 * `hub': the hub's own count too (given back by
 * front_shares_hub_died() when it dies).  Safe from any process of the
 * pool, not from a signal handler.
 */
#define FRONT_SHARE_LEN	16
struct front_shares;
size_t		 front_shares_slots(int max);
size_t		 front_shares_bytes(int max);
struct front_shares *front_shares_new(int max);
void		 front_shares_free(struct front_shares *);
void		 front_share_digest(const struct front_shares *,
		    const char *who, unsigned char d[FRONT_SHARE_LEN]);
int		 front_share_take(struct front_shares *,
		    const unsigned char *d, int per);
void		 front_share_give(struct front_shares *,
		    const unsigned char *d, int hub);
void		 front_share_to_hub(struct front_shares *,
		    const unsigned char *d);
void		 front_shares_hub_died(struct front_shares *);
int		 front_share_count(struct front_shares *,
		    const unsigned char *d);
void		 front_shares_figures(struct front_shares *, size_t *used,
		    size_t *cap, unsigned long *full);

#define FRONT_RELAY_ADDR_MAX	80	/* --relay-listen's length */
#define FRONT_RELAY_CONNS_MAX	64	/* relay connections at once */
struct front_relay {
	int		 asking;
	int		 max;		/* --max-asking */
	int		 per;		/* --max-asking-per-principal */
	struct front_shares *shares;	/* held, per principal */
	unsigned long	 refused_share;	/* refused past per */
	char		 dir[96];
	char		 self[FRONT_RELAY_ADDR_MAX + 1]; /* --relay-listen */
};

/*
 * What a worker needs besides the server: its limits, and the page it
 * shares with the supervisor.  Built by main.c, read-only after.
 */
struct front_limits {
	const char		*status_path;	/* --status-path, or NULL */
	const struct prog_peer	*status_peers;	/* --status-allow */
	size_t			 nstatus_peers;
	struct front_stats	*stats;		/* the pool's figures */
	unsigned int		 slow_ms;	/* --slow-log-ms, 0: none */
	int			 max_workers;	/* the pool grows up to it */
	unsigned int		 idle;		/* s a spare worker may idle */
	unsigned int		 timeout;	/* s, 0: none */
	unsigned long		 max_requests;	/* 0: never recycle */
	size_t			 memory;	/* RLIMIT_AS, 0: none */
	unsigned int		 drain;		/* s */
	const struct prog_peer	*peers;		/* npeers 0: any peer */
	size_t			 npeers;
	unsigned int		 ask_timeout;	/* --ask-timeout, s */
	struct front_relay	*relay;		/* NULL: nothing is asked */
	int			 relay_fd;	/* --relay-listen, or -1 */
	int			 local;		/* listening on a unix socket */
	struct front_listen	*listen;	/* NULL: no hub */
	int			 hub_fd;	/* the hub's socket, or -1 */
	const char		*bus_uri;	/* --bus, or NULL */
	const char		*keyfile;	/* --state-key-file, or NULL */
	const void		*bus;		/* its back end (pg.so) */
};

/*
 * The listen streams' page, shared by the whole pool (hub.c): slots
 * held or reserved now (held; the hub's own in hub_held) for
 * --max-listeners, and per principal (shares, by the principal or,
 * without one, the client's address: share.c) for
 * --max-listeners-per-principal; the hub's figures for the status page.
 * Every member is read and written with __atomic builtins.
 */
#define FRONT_SRC_BUS		0	/* a NOTIFY on the bus */
#define FRONT_SRC_SOCKET	1	/* a datagram on PATH.hub */
#define FRONT_SRC_WORKER	2	/* the instance's own workers */
#define FRONT_SRC_N		3
#define FRONT_REFUSALS		8	/* >= intake.h's FRONT_REF_N */
struct FCGX_Request;
struct front_board;
struct front_listen {
	int		 held;
	int		 hub_held;
	int		 max;		/* --max-listeners */
	int		 per;		/* --max-listeners-per-principal */
	unsigned int	 max_age;	/* --listen-max-age, s */
	int		 hub_up;	/* the hub is taking streams */
	int		 lists_streams;	/* held, asking for list changes */
	int		 resource_streams; /* ... for resource updates */
	unsigned long	 hub_starts;
	unsigned long	 opened;	/* streams taken by the hub */
	unsigned long	 refused;	/* listens past a cap */
	unsigned long	 ended;		/* ended by the hub (result sent) */
	unsigned long	 aged;		/* ... at --listen-max-age */
	unsigned long	 gone;		/* their client went away */
	unsigned long	 dropped;	/* their client did not read */
	unsigned long	 lost;		/* handed without a descriptor */
	int		 fd_room;	/* streams the hub's open-file limit
					   allows (hub.c), 0: not known */
	unsigned long	 no_fd;		/* listens refused for fd_room */
	unsigned long	 shed;		/* events shed: a worker's the hub
					   could not take, the hub's own
					   queue full (the bus's: bus_shed) */
	unsigned long	 shed_ended;	/* streams ended for them */
	unsigned long	 waits;		/* events a worker waited to send */
	unsigned long	 events;	/* events in */
	unsigned long	 frames;	/* notifications out */
	/* Events refused, by where from (FRONT_SRC_*) and why (intake.h). */
	unsigned long	 refused_events[FRONT_SRC_N][FRONT_REFUSALS];
	int		 own_fd;	/* the workers' channel: the hub's */
	int		 tell_fd;	/* ... and the workers' end */
	int		 bus;		/* --bus is set */
	int		 bus_up;
	unsigned long	 bus_connects;
	unsigned long	 bus_sent;	/* events NOTIFYed */
	unsigned long	 bus_received;	/* events taken */
	unsigned long	 bus_notifies;	/* NOTIFYs sent (events batched) */
	unsigned long	 bus_shed;	/* events not sent: dispatched here
					   only (bus down, queue full) */
	unsigned long	 gaps_sent;	/* gaps sealed and sent for them */
	unsigned long	 gaps_in;	/* other hubs' gaps taken */
	unsigned long	 gap_ended;	/* streams ended for a gap: another
					   hub's, or this one's outage */
	int		 bus_lock;	/* guards the two below */
	long long	 bus_error_at;	/* time(3), 0: none */
	char		 bus_error[160];
	struct front_shares *shares;	/* per principal, with the hub's */
	char		 dir[96];
	char		 path[108];	/* the hub's socket */
};

/*
 * hub.c, listen.c: the instance's listen streams.  front_listen_setup()
 * (main.c, before the fork) makes the page, binds the hub's socket and
 * makes the workers' channel;
 * front_hub() is the hub process; front_listen_hold(),
 * front_listen_hand() and front_listen_done() are a worker's side of a
 * listen, front_publish() anyone's side of an event
 * (wymcp_server_set_publish()).  front_hub() also keeps the instance's
 * private directories (the hub's and the relay's, in TMPDIR): when its
 * parent is no longer `supervisor' (killed: the hub's parent-death
 * signal is SIGTERM), it removes them before it exits.  Without listen
 * streams (lim->listen NULL) but with a relay directory, it does only
 * that.
 */
#define FRONT_HUB_MSG_MAX	(64 * 1024)	/* a handoff or an event */
int		 front_listen_setup(struct front_limits *, int max, int per,
		    unsigned int max_age, const char *sockpath);
void		 front_listen_unreserve(struct front_listen *,
		    const unsigned char *share, int hub);
int		 front_publish_cmd(const char *event, const void *be,
		    const char *bus, const char *hubpath, char *err,
		    size_t errlen);
void		 front_listen_cleanup(const struct front_limits *);
void		 front_listen_hub_died(const struct front_limits *);
int		 front_hub(const struct front_limits *, struct front_board *,
		    pid_t supervisor, struct wymcp_server *);

/*
 * bus.c: the hub's client of the bus, one connection LISTENing on
 * FRONT_BUS_CHANNEL, driven by the hub's epoll `ep' (an event whose
 * data.ptr is the bus: front_bus_ready()) and tick (front_bus_tick()).
 * What it hears goes to cb->take, and so do the hub's own events it
 * could not send; cb->holding says whether the hub holds streams (an
 * outage then may have made them miss events), cb->again that the bus
 * is back after such an outage.  front_bus_send() queues an event (0),
 * or -1 when the bus is not up (the caller dispatches it itself).  A
 * NOTIFY carries events one a line (front_bus_oneline() makes one).
 * An event of this instance that does not reach the bus (the bus down,
 * its queue full, a NOTIFY that failed; front_bus_shed() for one the
 * caller could not offer, `msg' NULL when it is not data) is shed there:
 * the other hosts' listeners miss it, so as soon as the bus can carry
 * it, a sealed gap (cb->gap, control.c) goes first in the next NOTIFY,
 * saying which streams may have missed what was shed (struct
 * front_gapset: the list kinds and URIs of its events, or all).
 */
#define FRONT_GAPSET_URIS	16	/* URIs named, past them all */
struct front_gapset {
	int	 all;			/* every stream */
	int	 lists;			/* WYMCP_LIST_* or'd */
	char	*uris[FRONT_GAPSET_URIS];	/* owned */
	size_t	 nuris;
};
#define FRONT_BUS_CHANNEL	"wymcp_events"
#define FRONT_BUS_PAYLOAD_MAX	7999	/* NOTIFY's limit, less one */
struct front_bus;
struct front_bus_cb {
	void	 (*take)(void *arg, const char *msg, size_t len);
	int	 (*holding)(void *arg);
	void	 (*again)(void *arg);
	char	*(*gap)(void *arg, const struct front_gapset *);
					/* a sealed gap (new), or NULL */
	void	 *arg;
};
struct front_bus *front_bus_new(const char *uri, const void *be,
		    struct front_listen *, int ep, const struct front_bus_cb *);
int		 front_bus_send(struct front_bus *, const char *, size_t);
void		 front_bus_shed(struct front_bus *, const char *msg,
		    size_t len);
void		 front_bus_oneline(char *);
int		 front_bus_up(const struct front_bus *);
void		 front_bus_ready(struct front_bus *);
void		 front_bus_tick(struct front_bus *);
void		 front_bus_free(struct front_bus *);

/*
 * control.c: stream control between hosts, sealed under the state keys
 * of `srv' (the hub's), read again from `keyfile' (NULL: none) when it
 * changes (front_control_tick(), once a tick, keeps the hub's keys
 * those of the last rotation).  front_control_seal() makes the frame of a
 * worker's command (a new string, or NULL); front_control_open() checks
 * a frame (intake.c's FRONT_EV_SEALED) and parses the command it
 * carries into `in': FRONT_REF_NONE, or why it is refused.
 */
struct front_control;
struct front_event;
struct front_control *front_control_new(struct wymcp_server *srv,
		    const char *keyfile);
void		 front_control_tick(struct front_control *);
void		 front_control_free(struct front_control *);
char		*front_control_seal(struct front_control *, const char *msg,
		    size_t len);
int		 front_control_open(struct front_control *,
		    const struct front_event *, struct front_event *in);
/*
 * front_control_gap(): the sealed frame of a gap (control.c: this hub
 * shed events bound for the bus; `g' says which streams, NULL all of
 * them), a new string, or NULL;
 * front_control_ours(): is the opened event `ev' a gap of this hub?
 */
char		*front_control_gap(struct front_control *,
		    const struct front_gapset *);
int		 front_control_ours(const struct front_control *,
		    const struct front_event *);

/*
 * config.c: --config FILE.  front_config_argv() makes the arguments
 * to parse: argv[0], the file's options ("--NAME" and its value, a
 * line each in the file, each a long option of `opts'), then
 * argv[1..argc-1].  0 with *nargv (to
 * free) and *text (the strings it points into, to free once the
 * options are no longer used), or -1 with why in `err' (the file and
 * line).
 */
struct option;
int		 front_config_argv(const char *path,
		    const struct option *opts, int argc, char *argv[],
		    int *nargc, char ***nargv, char **text, char *err,
		    size_t errlen);
int		 front_listen_hold(const struct front_limits *,
		    struct FCGX_Request *, const struct wymcp_listen *);
int		 front_listen_hand(const struct front_limits *,
		    struct FCGX_Request *, const struct wymcp_listen *);
int		 front_listen_done(const struct front_limits *);
void		 front_publish(void *, const char *, size_t);

/*
 * One worker's page of memory shared with the supervisor (mmap
 * MAP_SHARED, made before the fork): the worker writes what it is
 * doing, the supervisor reads it when the worker dies (to log what it
 * was serving and to back off only for workers that never served) and
 * while it runs (the deadline, for a worker its own timer did not
 * stop).  Without a supervisor it is private memory.  `busy` and
 * `deadline` are written and read with __atomic builtins.
 */
struct front_board {
	unsigned long	 accepted;	/* connections taken */
	unsigned long	 served;	/* requests finished */
	int		 busy;		/* a request is in flight */
	int		 why;		/* FRONT_WHY_*: why it left */
	long long	 deadline;	/* ms, CLOCK_MONOTONIC; 0: none */
	int		 asking;	/* holds a question (relay.c) */
	unsigned char	 asking_share[FRONT_SHARE_LEN]; /* ... its principal */
	char		 method[64];	/* of the request in flight */
	char		 name[128];	/* its tool, prompt or URI */
	char		 reqid[64];	/* its id */
	char		 detail[96];	/* FRONT_WHY_* in words */
};
#define FRONT_WHY_NONE		0
#define FRONT_WHY_TIMEOUT	1	/* its own timer stopped it */
#define FRONT_WHY_RETIRED	2	/* recycled after a request */

/*
 * metrics.c: request durations by method, tool and outcome for the
 * status page's Prometheus text; the page is made before the first
 * fork (front_metrics_setup(): -1 out of memory).
 */
int		 front_metrics_setup(void);
int		 front_metrics_on(void);
void		 front_metrics_record(const char *method, const char *name,
		    const char *outcome, long long us);
size_t		 front_metrics_prom(char *buf, size_t cap, size_t n);

/*
 * otlp.c: spans to --otlp-endpoint.  front_otlp_setup() before the
 * first fork, as the workers' user (forks the exporter; -1: logged);
 * front_otlp_send() hands a span's line over without waiting (or drops
 * it, counted); front_otlp_stop(), the supervisor's last call, lets the
 * exporter make its last posts.
 */
int		 front_otlp_setup(const char *url,
		    unsigned int metrics_interval_s);
int		 front_otlp_on(void);
void		 front_otlp_reaped(pid_t);
void		 front_otlp_stop(void);
void		 front_otlp_send(const char *line, size_t len);
void		 front_otlp_counts(unsigned long *queued,
		    unsigned long *dropped, unsigned long *exported,
		    unsigned long *failed);
/* The metrics' (mcp.server.operation.duration) posts, for the page. */
struct front_otlp_metrics {
	int		 on;		/* --otlp-metrics-interval > 0 */
	unsigned long	 posts, failed;	/* taken by the endpoint, and not */
	unsigned long	 overflow;	/* spans in the overflow set */
	unsigned long	 sets;		/* attribute sets last exported */
};
void		 front_otlp_metric_counts(struct front_otlp_metrics *);

/*
 * ratelimit.c: token buckets per principal per tool (--rate-limit),
 * in a table the supervisor makes before the first fork
 * (front_rates_new(); NULL: out of memory) that every worker takes
 * from.  front_rate_rule() adds a rule "NAME=RATE" (-1: malformed);
 * front_rate_take() takes a token of `who' for `tool' (declared rate
 * `decl', or NULL) at `now' (ms, CLOCK_MONOTONIC): 0, or the ms to wait.
 * front_rate_admit() is the library's admission hook, its argument
 * the table.
 */
#define FRONT_RATE_SLOTS	65536	/* a power of two */
struct front_rates;
struct front_rates *front_rates_new(void);
void		 front_rates_free(struct front_rates *);
const struct front_rates *front_rates_current(void);
int		 front_rate_rule(const char *);
void		 front_rate_rules_free(void);
size_t		 front_rate_nrules(void);
long		 front_rate_take(struct front_rates *, const char *who,
		    const char *tool, const char *decl, long long now);
void		 front_rate_counts(const struct front_rates *,
		    unsigned long *refused, unsigned long *full,
		    size_t *pairs);
long		 front_rate_admit(void *, const struct wymcp_admit *);

/*
 * audit.c: the audit line (--audit-log PATH|syslog|stderr).
 * front_audit_open() before the first fork (-1: logged); the
 * supervisor's SIGUSR1 calls front_audit_reopen(); a worker calls
 * front_audit_begin() as a request begins, front_audit_out() for what
 * it writes, and watch.c's hook front_audit_request() as it ends.
 */
int		 front_audit_open(const char *spec);
int		 front_audit_on(void);
void		 front_audit_reopen(void);
void		 front_audit_counts(unsigned long *lines,
		    unsigned long *failed);
void		 front_audit_begin(char *const *env);
void		 front_audit_out(size_t);
void		 front_audit_request(const struct wymcp_request_info *);

/*
 * main.c: logging.  Lines go to stderr as
 * log.c: logging.  Lines go to stderr as
 * "wymcp-fcgi[PID]: LEVEL: [id REQID] message", one write(2) each.
 */
extern int	 front_logmax;		/* highest WYMCP_LOG_* printed */
void		 front_log(int prio, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
void		 front_logfn(void *arg, int prio, const char *reqid,
		    const char *msg);
/*
 * The time-limit warning of the request in flight: 1 to the first that
 * claims it (the worker's timer, or the library's line through
 * front_logfn()), 0 after; reset as a request begins.  Async-signal-
 * safe.
 */
int		 front_log_claim_timelimit(void);
void		 front_log_reset_timelimit(void);

/*
 * watch.c: the worker's watch over its request.  front_watch_init()
 * installs the timer, its signal handler and the library's request
 * hook, and publishes into `board'.  When a request is FRONT_GRACE_MS
 * past its deadline the worker logs the method and tool with
 * async-signal-safe writes and _exit()s with FRONT_EXIT_TIMEOUT.
 * front_watch_begin() marks a request in flight, front_watch_end() its
 * end (and returns whether the library said memory ran out).  At the
 * deadline itself the timer logs the "still running at its time limit"
 * warning for a tool that has not returned; whichever says it first,
 * the timer or the library, claims it (front_log_claim_timelimit()),
 * and the other says nothing.
 */
int		 front_watch_init(struct wymcp_server *, struct front_board *,
		    unsigned int timeout);
void		 front_watch_begin(void);
int		 front_watch_end(void);
long long	 front_now_ms(void);

/*
 * fcgi.c: serving.  front_worker() runs the FastCGI accept loop on the
 * listening socket until told to stop (or recycled) and returns an exit
 * status; `board' may be NULL (no supervisor).  front_cgi() serves the
 * one CGI request of this process and returns an exit status.
 */
int		 front_worker(struct wymcp_server *, int listenfd,
		    const struct front_limits *, struct front_board *board);
int		 front_cgi(struct wymcp_server *, const struct front_limits *);
/*
 * watch.c: the stop signals, blocked and caught by `fn' (a worker's, a
 * runner's, the hub's).
 */
#define FRONT_NSTOPSIGS	4
extern const int front_stopsigs[FRONT_NSTOPSIGS];
int		 front_catch_stop(void (*fn)(int), sigset_t *waitmask);

/*
 * prefork.c: the supervisor.  Keeps `workers' (>= 1) processes running
 * front_worker() on the listening socket until SIGTERM or SIGINT, then
 * drains them; returns an exit status (in the supervisor only).  On
 * SIGHUP `reload' makes the server again (its modules anew) and the
 * supervisor swaps it into *srvp (the caller frees the last one).
 */
typedef struct wymcp_server *(*front_reload_fn)(char *err, size_t errlen);
int		 front_prefork(struct wymcp_server **srvp, int listenfd,
		    int owned, int workers, int runners,
		    const struct front_limits *, front_reload_fn reload);

/*
 * runner.c: a task runner (--task-runners): claims and runs tasks
 * until told to stop; returns an exit status.
 */
int		 front_runner(struct wymcp_server *,
		    const struct front_limits *, struct front_board *);

/*
 * relay.c: asking older clients.  front_relay_setup() (main.c, before
 * the fork) makes the shared page and the socket directory when there
 * are two workers or more and --max-asking is not 0 (-1: the default,
 * half the workers; per principal -1: half that, at least 1);
 * front_relay_cleanup() removes the directory (0, or -1: not empty,
 * logged).
 * front_relay_worker() tells a worker's relay its board;
 * front_relay_dead() (the supervisor) gives back a dead worker's place.
 * The rest are the wymcp_io ask_* members (fcgi.c): hold, release,
 * wait (with the FastCGI connection, for a hang-up) and forward.
 */
int		 front_relay_setup(struct front_limits *, int workers,
		    int max_asking, int per_principal,
		    unsigned int ask_timeout);
int		 front_relay_cleanup(const struct front_limits *);
void		 front_relay_worker(const struct front_limits *,
		    struct front_board *);
void		 front_relay_dead(const struct front_limits *,
		    struct front_board *);
const char	*front_relay_hold(const char *who);
void		 front_relay_release(void);
int		 front_relay_wait(int conn, int ms,
		    int (*take)(void *, const char *, size_t), void *arg);
int		 front_relay_forward(const char *addr, const char *msg,
		    size_t len);
/*
 * relay.c: the --relay-listen port, served by the hub without blocking.
 * front_relay_port_start() (NULL: no port) gives an epoll descriptor
 * (front_relay_port_fd()) for the hub's own set; front_relay_port_ready()
 * when it is readable, front_relay_port_tick() once a tick (deadlines),
 * front_relay_port_stop() when the hub stops.
 */
struct front_relay_port;
struct front_relay_port *front_relay_port_start(const struct front_limits *);
int		 front_relay_port_fd(const struct front_relay_port *);
void		 front_relay_port_ready(struct front_relay_port *);
void		 front_relay_port_tick(struct front_relay_port *);
void		 front_relay_port_stop(struct front_relay_port *);

/*
 * status.c: the status page.  front_stats_new() makes the shared page;
 * front_stats_count() counts a request by method and HTTP status;
 * front_store_watch() is the task store's watch (`arg': the page, or
 * NULL), which logs each outage once for the pool and keeps its
 * figures;
 * front_status_serve() answers a request for --status-path (1) or
 * leaves it to the library (0); with a task store it counts the tasks
 * through `srv'.
 */
struct FCGX_Request;
struct front_stats *front_stats_new(void);
void		 front_store_watch(void *arg, enum wymcp_store_event,
		    const char *why);
void		 front_stats_count(struct front_stats *, const char *method,
		    int status);
int		 front_status_serve(struct wymcp_server *,
		    const struct front_limits *, struct FCGX_Request *);

/*
 * backend.c: whether the library may load or read `path' for us, as a
 * module is trusted (prog_trusted()); 0, or -1 with why (ending in how
 * --allow-insecure-files `verbs' it anyway).  With
 * --allow-insecure-files an untrusted file is 0, logged as "WHAT PATH:
 * WHY: `verbed' anyway".  A missing file is 0: the loader says so.
 */
int		 front_file_check(const struct front_opts *o,
		    const char *what, const char *verbs, const char *verbed,
		    const char *path, char *why, size_t whylen);
/*
 * options.c: may --config `path' be read, at the start and at each
 * reload?  As a module is (prog_trusted(), no other user): whoever can
 * change the file names the modules root loads at the next start.
 * Refused unless the command line itself (argv, never the file) says
 * --allow-insecure-files, which warns.  0, or -1 with why in `err'
 * ("--config PATH: refused: WHY (...)").  A missing file is 0: the
 * reader says so.
 */
int		 front_config_trusted(const char *path, int argc,
		    char *argv[], char *err, size_t errlen);
/*
 * backend.c: the task store's back end that `uri' names (sqlite.so,
 * pg.so), loaded by the library (wymcp_backend_load()) once its file
 * passed front_file_check(); NULL with why in `err'.
 */
const void	*front_backend(const char *uri,
		    const struct front_opts *o, char *err, size_t errlen);

/* call.c: --call TOOL, the exit status. */
int	 front_call(struct wymcp_server *, const struct front_opts *);

#endif /* WYMCP_FRONT_H */
