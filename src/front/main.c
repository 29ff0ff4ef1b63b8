/*
 * main.c - wymcp-fcgi's main(): its modes (--generate-key, --publish,
 * --print-server-json), then the start in order, the pool's limits,
 * the hub and the relay set up, and serving
 *
 * The options are options.c's, the identity and the sockets start.c's,
 * the server server.c's, a reload reload.c's, the pool prefork.c's.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/resource.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "front.h"

/* Free the startup options and the config file's text they point into. */
static void
free_start_options(struct front_opts *o, char **argv, char *text)
{
	front_options_free(o, 1);
	free(argv);
	free(text);
}

/* --generate-key PATH: the exit status. */
static int
generate_key(const struct front_opts *o)
{
	char	 ebuf[512];

	if (wymcp_state_key_generate(o->genkey, ebuf, sizeof(ebuf)) !=
	    WYMCP_OK) {
		warnx("--generate-key: %s", ebuf);
		return 1;
	}
	printf("%s: new key written first in %s\n", FRONT_NAME, o->genkey);
	return 0;
}

/*
 * --publish EVENT: through the bus (given, or the task store's
 * PostgreSQL), or the hub of --listen unix:PATH.  The exit status.
 */
static int
publish(const struct front_opts *o)
{
	const void	*be = NULL;
	const char	*bus = o->bus != NULL && strcmp(o->bus, "none") != 0 ?
			    o->bus : NULL;
	char		 hub[200], ebuf[512];

	if (bus == NULL && o->bus == NULL && o->task_store != NULL &&
	    strncmp(o->task_store, "postgres", 8) == 0)
		bus = o->task_store;
	hub[0] = '\0';
	if (o->listen != NULL && strncmp(o->listen, "unix:", 5) == 0)
		snprintf(hub, sizeof(hub), "%s.hub", o->listen + 5);
	if (bus != NULL && (be = front_backend(bus, o, ebuf,
	    sizeof(ebuf))) == NULL)
		errx(2, "--bus: %s", ebuf);
	if (front_publish_cmd(o->publish, be, bus, hub[0] != '\0' ? hub :
	    NULL, ebuf, sizeof(ebuf)) != 0) {
		warnx("--publish: %s", ebuf);
		return 1;
	}
	return 0;
}

/*
 * --print-server-json: the modules and options of a start, the
 * registry's server.json printed, and nothing bound.  The exit status.
 */
static int
print_json(const struct front_opts *o)
{
	struct wymcp_server	*srv;
	char			*js, ebuf[512];
	int			 rc;

	if ((srv = front_make_server(o, 0, ebuf, sizeof(ebuf))) == NULL)
		errx(1, "%s", ebuf);
	if ((js = wymcp_server_json(srv)) == NULL)
		errx(1, "--print-server-json: %s", wymcp_server_errmsg(srv));
	rc = printf("%s\n", js) < 0 || fflush(stdout) != 0;
	free(js);
	wymcp_server_free(srv);
	if (rc != 0)
		err(1, "stdout");
	return 0;
}

/* Without --state-key-file: what the random key means, said once. */
static void
key_warning(const struct front_opts *o, int cgi)
{
	if (o->keyfile != NULL)
		return;
	if (!cgi)
		front_log(WYMCP_LOG_WARNING, "no --state-key-file: "
		    "requestState is sealed with a random key made now, "
		    "shared by this process's workers only; several hosts, "
		    "or state that survives a restart, need a shared key "
		    "file (wymcp-fcgi --generate-key PATH)");
	else
		/*
		 * CGI: this process serves one request.  A state sealed
		 * with its random key would open in no other process.
		 */
		front_log(WYMCP_LOG_WARNING, "CGI mode without "
		    "--state-key-file: a tool that asks the client a question "
		    "gets an error, as no other process could open the "
		    "requestState this one would seal (wymcp-fcgi "
		    "--generate-key PATH makes a key file)");
}

/* Make `fd' non-blocking, or exit. */
static void
nonblock(int fd)
{
	int	 flags;

	if ((flags = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, flags | O_NONBLOCK) == -1)
		err(1, "fcntl");
}

/*
 * The pool's limits of options `o' (`local': the socket is a unix
 * one), before the hub, the relay and the figures are added.
 */
static void
pool_limits(struct front_limits *lim, const struct front_opts *o,
    int local)
{
	struct rlimit	 rl;

	memset(lim, 0, sizeof(*lim));
	lim->max_workers = o->workers_max;
	lim->idle = o->idle_timeout;
	lim->timeout = o->timeout;
	lim->local = local;
	/* Without a supervisor nothing replaces a retired process. */
	lim->max_requests = o->workers == 0 && !o->max_requests_set ? 0 :
	    o->max_requests;
	lim->memory = o->memory;
	/* A limit set from outside (systemd LimitAS=) counts as well. */
	if (lim->memory == 0 && getrlimit(RLIMIT_AS, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY)
		lim->memory = (size_t)rl.rlim_cur;
	lim->drain = o->drain;
	lim->peers = o->peers;
	lim->npeers = o->npeers;
	/* Made before the fork, as the user the workers run as. */
	lim->relay_fd = -1;
	lim->hub_fd = -1;
	lim->keyfile = o->keyfile;	/* the hub follows it (control.c) */
	lim->status_path = o->status_path;
	lim->status_peers = o->status_peers;
	lim->nstatus_peers = o->nstatus_peers;
	lim->slow_ms = o->slow_ms;
}

/*
 * The hub holds the listen streams: with a supervisor only (it is one
 * of its children), and not with --max-listeners 0.  Its bus: given,
 * or the task store's PostgreSQL.
 */
static void
hub_setup(struct front_limits *lim, const struct front_opts *o,
    const char *sockpath)
{
	const void		*be;
	char			 ebuf[512];

	if (o->workers == 0 || o->max_listeners == 0 ||
	    front_listen_setup(lim, o->max_listeners,
	    o->per_principal > 0 ? o->per_principal :
	    o->max_listeners / 4 > 0 ? o->max_listeners / 4 : 1,
	    o->listen_age, sockpath) != 0)
		return;
	if (o->bus != NULL && strcmp(o->bus, "none") != 0)
		lim->bus_uri = o->bus;
	else if (o->bus == NULL && o->task_store != NULL &&
	    (strncmp(o->task_store, "postgresql://", 13) == 0 ||
	    strncmp(o->task_store, "postgres://", 11) == 0))
		lim->bus_uri = o->task_store;
	if (lim->bus_uri != NULL) {
		if ((be = front_backend(lim->bus_uri, o, ebuf,
		    sizeof(ebuf))) == NULL)
			errx(2, "--bus: %s", ebuf);
		lim->bus = be;
	}
	lim->listen->bus = lim->bus_uri != NULL;
}

/*
 * The relay: the questions of 2025-11-25 clients, and the answers
 * other hosts hand over on `relayfd' (-1: none), which the hub serves.
 */
static void
relay_setup(struct front_limits *lim, const struct front_opts *o,
    int relayfd)
{
	if (front_relay_setup(lim, o->workers, o->max_asking,
	    o->max_asking_per, o->ask_timeout) == 0 && lim->relay != NULL &&
	    relayfd != -1 && lim->listen == NULL)
		front_log(WYMCP_LOG_ERR, "--relay-listen %s: no hub holding "
		    "streams to serve it: answers from other hosts are not "
		    "taken", o->relay_listen);
	else if (lim->relay != NULL && relayfd != -1) {
		lim->relay_fd = relayfd;
		snprintf(lim->relay->self, sizeof(lim->relay->self), "%s",
		    o->relay_listen);
		front_log(WYMCP_LOG_INFO, "answers from other hosts are "
		    "taken on %s", o->relay_listen);
	}
}

/* The pool's figures: shared by every process forked from here. */
static void
stats_setup(struct front_limits *lim, const struct front_opts *o)
{
	if ((lim->stats = front_stats_new()) == NULL)
		return;
	lim->stats->min = o->workers;
	lim->stats->max = o->workers_max;
	lim->stats->slow_ms = o->slow_ms;
	lim->stats->store = o->task_store != NULL;
}

/*
 * Serve the listening socket `fd': in this process (--workers 0) or
 * with a supervisor; then the hub and the relay ended, and the socket
 * file `sockpath' (NULL: none) removed.  The exit status.
 */
static int
serve(struct wymcp_server **srvp, int fd, struct front_limits *lim,
    const struct front_opts *o, const char *sockpath)
{
	int	 rc;

	/*
	 * Workers try accept(2) and wait in ppoll(2) when nothing was
	 * there: they must never block in accept(2) (fcgi.c).
	 */
	nonblock(fd);
	front_log(WYMCP_LOG_INFO, "serving %s with %d%s%.0d worker%s",
	    o->listen != NULL ? o->listen :
	    fd == 3 ? "the systemd socket" : "the socket on fd 0",
	    o->workers, o->workers_max > o->workers ? " to " : "",
	    o->workers_max > o->workers ? o->workers_max : 0,
	    o->workers_max == 1 ? "" : "s");
	if (o->workers == 0)
		rc = front_worker(*srvp, fd, lim, NULL);
	else
		rc = front_prefork(srvp, fd, o->listen != NULL, o->workers,
		    o->runners, lim, front_reload_server);
	(void)front_relay_cleanup(lim);
	front_listen_cleanup(lim);
	/* Only the process that created the socket gets here. */
	if (sockpath != NULL && unlink(sockpath) == -1 && errno != ENOENT)
		front_log(WYMCP_LOG_INFO, "unlink %s: %s", sockpath,
		    strerror(errno));
	return rc;
}

/*
 * The listening socket: --listen's, made after the modules, so that a
 * bad module leaves no socket file behind, and before the privilege
 * drop, as binding may need root (a low port, a root-owned directory);
 * else `fd', the one handed over (-1: CGI).  The socket file's path in
 * *sockpath (NULL: none).
 */
static int
listening(const struct front_opts *o, const struct front_ident *id,
    int fd, const char **sockpath)
{
	*sockpath = NULL;
	if (o->listen == NULL)
		return fd;
	if (strncmp(o->listen, "unix:", 5) == 0) {
		*sockpath = o->listen + 5;
		return front_sock_unix(*sockpath, id);
	}
	return front_sock_tcp(o->listen);
}

/*
 * The task store's back end: its file checked and loaded once, by the
 * library, here, as the user that started us (before the privilege
 * drop) and before anything is served; the library then finds it
 * loaded when it opens the store (front_store_server()).  Then the log
 * level.
 */
static void
preload(const struct front_opts *o)
{
	char	 ebuf[512];

	if (o->task_store != NULL && front_backend(o->task_store, o, ebuf,
	    sizeof(ebuf)) == NULL)
		errx(2, "--task-store: %s", ebuf);
	if (o->verbose == 1)
		front_logmax = WYMCP_LOG_INFO;
	else if (o->verbose > 1)
		front_logmax = WYMCP_LOG_DEBUG;
}

/*
 * The key file seals every state, the skills tell agents what to do:
 * trusted as the modules are, but they may be --user's, who rereads
 * them at a reload.
 */
static void
files_trusted(const struct front_opts *o, const struct front_ident *id)
{
	uid_t	 user = id->set ? id->uid : (uid_t)-1;

	if (o->keyfile != NULL)
		front_file_trusted(o, "--state-key-file", o->keyfile, user);
	if (o->skills_dir != NULL)
		front_file_trusted(o, "--skills-dir", o->skills_dir, user);
}

/*
 * Once the sockets are made: the privilege drop, then the memory
 * limit.
 */
static void
drop_and_limit(const struct front_opts *o, const struct front_ident *id)
{
	if (id->set)
		front_drop_privileges(id);
	if (o->task_store != NULL && o->runners == 0)
		front_log(WYMCP_LOG_WARNING, "--task-store without "
		    "--task-runners: tasks are stored here but run only by the "
		    "runners of another instance sharing the store");
	front_memory_limit(o->memory);
	/* As the user the workers run as, who reopen it (audit.c). */
	if (front_audit_open(o->audit_log) == -1)
		errx(1, "--audit-log %s: cannot be opened", o->audit_log);
}

/*
 * With a pool (fd, not CGI): the status page's histograms (metrics.c)
 * and the span exporter, a child of the supervisor (otlp.c).
 */
static void
operators(const struct front_opts *o, int fd)
{
	if (fd == -1)
		return;
	if (o->status_path != NULL && front_metrics_setup() == -1)
		errx(1, "the status page's histograms: out of memory");
	if (front_otlp_setup(o->otlp_endpoint, o->otlp_metrics_s) == -1)
		errx(1, "--otlp-endpoint %s: cannot export there",
		    o->otlp_endpoint);
}

/*
 * --call: one call's rounds from the shell, through the whole
 * pipeline, and nothing bound (call.c).  The exit status of wymcp-fcgi.
 */
static int
one_call(const struct front_opts *o)
{
	struct wymcp_server	*srv;
	char			 ebuf[512];
	int			 rc;

	if ((srv = front_make_server(o, 0, ebuf, sizeof(ebuf))) == NULL)
		errx(2, "%s", ebuf);
	rc = front_call(srv, o);
	wymcp_server_free(srv);
	return rc;
}

/*
 * Say at start whether the exec tools' runs are confined by Landlock.
 */
static void
exec_notice(struct wymcp_server *srv)
{
	size_t	 n;
	int	 abi;

	if ((n = wymcp_server_exec_count(srv)) == 0)
		return;
	if ((abi = wymcp_exec_landlock()) > 0)
		front_log(WYMCP_LOG_NOTICE, "exec tools: %zu, their runs "
		    "confined by Landlock (ABI %d)", n, abi);
	else
		front_log(WYMCP_LOG_WARNING, "exec tools: %zu, and this "
		    "kernel has no Landlock: a run can read and write what "
		    "its user can (wymcp-exec(5))", n);
}

/*
 * Startup, in order: options; the modes that do one thing and exit;
 * identity and key file checks; the inherited socket, or CGI; the
 * server and its modules; the --listen socket; the privilege drop; the
 * pool's limits, the hub, the relay.  Then serve: CGI, one process
 * (--workers 0) or the supervisor.
 */
int
main(int argc, char *argv[])
{
	struct front_opts	 opts;
	struct front_limits	 lim;
	struct wymcp_server	*srv;
	struct front_ident	 id;
	const char		*sockpath;
	char			 ebuf[512], **cfg_argv, *cfg_text;
	int			 fd = -1, rc, relayfd = -1, local = 0, cgi;

	front_sanitize_stdio();
	front_options_read(argc, argv, &opts, &cfg_argv, &cfg_text);
	if (opts.genkey != NULL)
		return generate_key(&opts);
	if (opts.publish != NULL)
		return publish(&opts);
	preload(&opts);
	if (opts.print_json || opts.call != NULL) {
		rc = opts.call != NULL ? one_call(&opts) : print_json(&opts);
		free_start_options(&opts, cfg_argv, cfg_text);
		return rc;
	}
	/*
	 * Writes to a vanished peer (web server, log pipe) must fail
	 * with EPIPE, not kill the process.
	 */
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		err(1, "signal");
	front_resolve_ident(&opts, &id);
	front_web_server_addrs(&opts);
	if (opts.listen == NULL && (fd = front_sock_inherited()) == -1 &&
	    getenv("REQUEST_METHOD") == NULL)
		errx(2, "no listening socket on descriptor 0, no --listen "
		    "and no CGI request (REQUEST_METHOD is unset); "
		    "try --help");
	files_trusted(&opts, &id);

	/* Per-process work, once: configuration and modules. */
	cgi = fd == -1 && opts.listen == NULL;
	if ((srv = front_make_server(&opts, cgi, ebuf, sizeof(ebuf))) == NULL)
		errx(1, "%s", ebuf);
	exec_notice(srv);
	key_warning(&opts, cgi);
	if ((fd = listening(&opts, &id, fd, &sockpath)) != -1)
		local = front_sock_check(fd, &opts);
	/*
	 * The relay socket: other hosts' workers hand answers to this
	 * instance's questions over it; the same peer rules as FastCGI.
	 */
	if (opts.relay_listen != NULL && fd != -1) {
		relayfd = front_sock_tcp(opts.relay_listen);
		front_relay_check(&opts);
		nonblock(relayfd);
	}
	drop_and_limit(&opts, &id);
	operators(&opts, fd);

	pool_limits(&lim, &opts, local);
	if (fd != -1) {
		hub_setup(&lim, &opts, sockpath);
		relay_setup(&lim, &opts, relayfd);
		stats_setup(&lim, &opts);
	}
	/*
	 * The task store, as the user that will write it (the store's file
	 * is created), and the pool's hooks.
	 */
	if (front_store_server(srv, &opts, &lim, ebuf, sizeof(ebuf)) != 0)
		errx(1, "%s", ebuf);
	front_reload_init(&opts, &lim, argc, argv);
	rc = fd == -1 ? front_cgi(srv, &lim) :
	    serve(&srv, fd, &lim, &opts, sockpath);
	front_otlp_stop();
	wymcp_server_free(srv);
	front_reload_done();
	free_start_options(&opts, cfg_argv, cfg_text);
	return rc;
}
