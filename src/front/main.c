/* main.c - option parsing and startup of wymcp-fcgi */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <dirent.h>

#include <netdb.h>

#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "front.h"
#include "store/backend.h"

#define SOCKET_MODE	0660		/* mode of a --listen unix: socket */

/* The modules loaded when no --module is given. */
static const char *const bundled[] = { "help.so", "echo.so" };

/*
 * The identity to switch to after startup, resolved before anything
 * else so that a typo fails fast.
 */
struct ident {
	int	 set;		/* --user given */
	uid_t	 uid;
	gid_t	 gid;
};

/*
 * Make sure descriptors 0, 1 and 2 are open, so that no socket or file
 * opened later lands on them and receives log lines or responses.
 */
static void
sanitize_stdio(void)
{
	int	 fd;

	for (fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		if (open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY) == -1)
			err(1, "/dev/null");
	}
}

/*
 * Resolve --user and --group (names, or numeric ids) into `id'.  Only
 * root may switch identity.  Exits on failure.
 */
static void
resolve_ident(const struct front_opts *o, struct ident *id)
{
	struct passwd	*pw;
	struct group	*gr;
	char		*e;
	long long	 v;

	memset(id, 0, sizeof(*id));
	if (o->user == NULL)
		return;
	if (geteuid() != 0)
		errx(1, "--user %s: only root can switch users", o->user);
	if ((pw = getpwnam(o->user)) != NULL) {
		id->uid = pw->pw_uid;
		id->gid = pw->pw_gid;
	} else {
		v = strtoll(o->user, &e, 10);
		if (!isdigit((unsigned char)o->user[0]) || *e != '\0' ||
		    v < 0 || v >= UINT_MAX)
			errx(1, "--user %s: no such user", o->user);
		id->uid = (uid_t)v;
		id->gid = (gid_t)v;
	}
	if (o->group != NULL) {
		if ((gr = getgrnam(o->group)) != NULL)
			id->gid = gr->gr_gid;
		else {
			v = strtoll(o->group, &e, 10);
			if (!isdigit((unsigned char)o->group[0]) ||
			    *e != '\0' || v < 0 || v >= UINT_MAX)
				errx(1, "--group %s: no such group",
				    o->group);
			id->gid = (gid_t)v;
		}
	}
	id->set = 1;
}

/*
 * Give up root for good: supplementary groups, then group, then user,
 * then check that root cannot be regained.  Exits on failure.
 */
static void
drop_privileges(const struct ident *id)
{
	if (setgroups(1, &id->gid) == -1)
		err(1, "setgroups");
	if (setgid(id->gid) == -1)
		err(1, "setgid %lu", (unsigned long)id->gid);
	if (setuid(id->uid) == -1)
		err(1, "setuid %lu", (unsigned long)id->uid);
	if (id->uid != 0 && setuid(0) != -1)
		errx(1, "could regain root after dropping privileges");
	front_log(WYMCP_LOG_INFO, "running as uid %lu, gid %lu",
	    (unsigned long)id->uid, (unsigned long)id->gid);
}

/*
 * Whether `fd' is a listening socket.
 */
static int
is_listening(int fd)
{
	struct stat	 st;
	socklen_t	 len;
	int		 val = 0;

	if (fstat(fd, &st) == -1 || !S_ISSOCK(st.st_mode))
		return 0;
	len = sizeof(val);
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &val, &len) == -1)
		return 0;
	return val != 0;
}

/*
 * Whether something accepts connections on the unix socket `sa_un'.
 */
static int
unix_alive(const struct sockaddr_un *sa_un)
{
	int	 fd, alive;

	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return 0;
	alive = connect(fd, (const struct sockaddr *)sa_un,
	    sizeof(*sa_un)) == 0;
	close(fd);
	return alive;
}

/*
 * Create, bind and listen on the unix socket `path'.  A stale socket
 * file is removed first; a live one, or a file that is not a socket,
 * is an error.  The socket gets mode 0660, and the --user/--group
 * ownership when given.  Exits on failure.
 */
static int
listen_unix(const char *path, const struct ident *id)
{
	struct sockaddr_un	 sa_un;
	struct stat		 st;
	mode_t			 oldmask;
	int			 fd, rc, saved;

	memset(&sa_un, 0, sizeof(sa_un));
	sa_un.sun_family = AF_UNIX;
	if (path[0] == '\0' || strlen(path) >= sizeof(sa_un.sun_path))
		errx(2, "--listen unix:%s: empty or too long a path", path);
	memcpy(sa_un.sun_path, path, strlen(path));

	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			errx(1, "--listen unix:%s: exists and is not a socket",
			    path);
		if (unix_alive(&sa_un))
			errx(1, "--listen unix:%s: another process is "
			    "listening on it", path);
		if (unlink(path) == -1)
			err(1, "--listen unix:%s: removing the stale socket",
			    path);
	} else if (errno != ENOENT)
		err(1, "--listen unix:%s", path);

	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		err(1, "socket");
	oldmask = umask(0777 & ~SOCKET_MODE);
	rc = bind(fd, (struct sockaddr *)&sa_un, sizeof(sa_un));
	saved = errno;
	umask(oldmask);
	if (rc == -1) {
		errno = saved;
		err(1, "--listen unix:%s: bind", path);
	}
	if (chmod(path, SOCKET_MODE) == -1)
		err(1, "--listen unix:%s: chmod", path);
	if (id->set && chown(path, id->uid, id->gid) == -1)
		err(1, "--listen unix:%s: chown", path);
	if (listen(fd, SOMAXCONN) == -1)
		err(1, "--listen unix:%s: listen", path);
	return fd;
}

/*
 * Create, bind and listen on the TCP address HOST:PORT or [IPV6]:PORT;
 * an empty host or "*" means every address.  Exits on failure.
 */
static int
listen_tcp(const char *spec)
{
	struct addrinfo	 hints, *res, *ai;
	char		*copy, *host, *port, *p;
	int		 fd = -1, on = 1, gai, saved = 0;

	if ((copy = strdup(spec)) == NULL)
		err(1, NULL);
	if (copy[0] == '[') {
		host = copy + 1;
		if ((p = strchr(host, ']')) == NULL || p[1] != ':')
			errx(2, "--listen %s: expected [IPV6]:PORT", spec);
		*p = '\0';
		port = p + 2;
	} else {
		if ((p = strrchr(copy, ':')) == NULL)
			errx(2, "--listen %s: expected unix:PATH, HOST:PORT "
			    "or [IPV6]:PORT", spec);
		*p = '\0';
		host = copy;
		port = p + 1;
		if (strchr(host, ':') != NULL)
			errx(2, "--listen %s: put an IPv6 address in "
			    "brackets", spec);
	}
	if (*port == '\0')
		errx(2, "--listen %s: no port", spec);
	if (*host == '\0' || strcmp(host, "*") == 0)
		host = NULL;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	if ((gai = getaddrinfo(host, port, &hints, &res)) != 0)
		errx(1, "--listen %s: %s", spec, gai_strerror(gai));

	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
		    ai->ai_protocol);
		if (fd == -1) {
			saved = errno;
			continue;
		}
		if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on,
		    sizeof(on)) == -1 ||
		    bind(fd, ai->ai_addr, ai->ai_addrlen) == -1 ||
		    listen(fd, SOMAXCONN) == -1) {
			saved = errno;
			close(fd);
			fd = -1;
			continue;
		}
		break;
	}
	freeaddrinfo(res);
	free(copy);
	if (fd == -1) {
		errno = saved;
		err(1, "--listen %s", spec);
	}
	return fd;
}

/*
 * The listening socket handed over by whoever started us: systemd
 * socket activation (LISTEN_PID is us, LISTEN_FDS=1: descriptor 3), or
 * descriptor 0 (spawn-fcgi, mod_fcgid, nginx-style spawners).  Returns
 * the descriptor, or -1 when there is none (plain CGI).
 */
static int
inherited_socket(void)
{
	const char	*pid, *fds;

	pid = getenv("LISTEN_PID");
	fds = getenv("LISTEN_FDS");
	if (pid != NULL && fds != NULL &&
	    strtoll(pid, NULL, 10) == (long long)getpid()) {
		/* Our children must not take these for their own. */
		unsetenv("LISTEN_PID");
		unsetenv("LISTEN_FDS");
		unsetenv("LISTEN_FDNAMES");
		if (strcmp(fds, "1") != 0)
			errx(1, "systemd passed LISTEN_FDS=%s; exactly one "
			    "socket is supported", fds);
		if (!is_listening(3))
			errx(1, "descriptor 3 from systemd is not a "
			    "listening socket");
		return 3;
	}
	if (is_listening(STDIN_FILENO))
		return STDIN_FILENO;
	return -1;
}

/*
 * FCGI_WEB_SERVER_ADDRS, libfcgi's filter: comma-separated IPv4
 * addresses allowed to connect.  wymcp-fcgi accepts connections itself
 * (fcgi.c), so it reads the variable as more --allow-peer entries, and
 * an IPv6 peer of a dual-stack socket is no longer let through.
 */
static void
web_server_addrs(struct front_opts *o)
{
	char	 ebuf[256];

	if (prog_peers_env(&o->peers, &o->npeers, ebuf, sizeof(ebuf)) == -1)
		errx(2, "FCGI_WEB_SERVER_ADDRS: %s", ebuf);
}

/*
 * Who may connect to the listening socket `fd'?  Over TCP, anyone who
 * can reach it could send FastCGI params such as WYMCP_PRINCIPAL and
 * act for anyone.  So a TCP socket on an address other than loopback
 * needs --allow-peer (or FCGI_WEB_SERVER_ADDRS), or an explicit
 * --allow-any-peer.  A unix socket's file mode decides instead.  Exits
 * with a usage error when refused; returns whether it is a unix socket.
 */
static int
check_listener(int fd, const struct front_opts *o)
{
	struct sockaddr_storage	 ss;
	socklen_t		 len = sizeof(ss);
	char			 a[64];

	if (getsockname(fd, (struct sockaddr *)&ss, &len) == -1)
		err(1, "getsockname");
	if (ss.ss_family == AF_UNIX) {
		if (o->npeers > 0)
			front_log(WYMCP_LOG_INFO, "--allow-peer does not "
			    "apply to a unix socket: its file mode decides "
			    "who connects");
		return 1;
	}
	if ((ss.ss_family != AF_INET && ss.ss_family != AF_INET6) ||
	    o->npeers > 0 || prog_addr_loopback((struct sockaddr *)&ss, len))
		return 0;
	(void)prog_addr_str((struct sockaddr *)&ss, len, a, sizeof(a));
	if (o->any_peer) {
		front_log(WYMCP_LOG_WARNING, "the FastCGI socket on %s accepts "
		    "anyone who can reach it (--allow-any-peer)", a);
		return 0;
	}
	errx(2, "the FastCGI socket on %s would accept anyone who can reach "
	    "it, who could then set WYMCP_PRINCIPAL and the other params: "
	    "name the web servers with --allow-peer ADDR[/BITS], or give "
	    "--allow-any-peer", a);
}

/*
 * The relay socket takes answers for this instance's questions: the
 * hub serves it, so it needs one (a supervisor, --max-listeners above
 * 0).  On loopback too, every user of the host can reach it, so it
 * needs --allow-peer (or --allow-any-peer, warned) wherever it listens.
 * Each answer also carries a MAC under the state key (the library
 * checks it); the peer rule keeps strangers from even being read.
 */
static void
check_relay(const struct front_opts *o)
{
	if (o->max_listeners == 0 || o->workers == 0)
		errx(2, "--relay-listen %s: the hub serves the relay port, and "
		    "there is none with %s", o->relay_listen,
		    o->workers == 0 ? "--workers 0" : "--max-listeners 0");
	if (o->npeers > 0)
		return;
	if (o->any_peer) {
		front_log(WYMCP_LOG_WARNING, "the relay socket on %s accepts "
		    "anyone who can reach it (--allow-any-peer); only "
		    "answers with a valid MAC are taken", o->relay_listen);
		return;
	}
	errx(2, "--relay-listen %s: name the other hosts' addresses with "
	    "--allow-peer ADDR[/BITS] (on loopback too: every user of the "
	    "host can reach a TCP port), or give --allow-any-peer",
	    o->relay_listen);
}

/*
 * --memory-limit: RLIMIT_AS, soft and hard, for this process and so
 * for every worker it forks (each process has its own).  A limit below
 * what the process maps already (its modules loaded; a sanitizer build
 * maps terabytes) would fail every allocation: refused.
 */
static void
memory_limit(size_t limit)
{
	struct rlimit	 rl;
	unsigned long	 pages = 0;
	size_t		 vm;
	long		 psz;
	FILE		*f;

	if (limit == 0)
		return;
	if ((f = fopen("/proc/self/statm", "r")) != NULL) {
		if (fscanf(f, "%lu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	psz = sysconf(_SC_PAGESIZE);
	vm = (size_t)pages * (size_t)(psz > 0 ? psz : 4096);
	if (vm + FRONT_MEMORY_MIN > limit)
		errx(2, "--memory-limit %zu: this process maps %zu MiB "
		    "already; give at least %zu MiB", limit, vm >> 20,
		    (vm + FRONT_MEMORY_MIN) / (1024 * 1024) + 1);
	if (getrlimit(RLIMIT_AS, &rl) == -1)
		err(1, "getrlimit");
	if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > limit)
		rl.rlim_max = limit;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_AS, &rl) == -1)
		err(1, "--memory-limit: setrlimit RLIMIT_AS");
	front_log(WYMCP_LOG_INFO, "memory limit: %llu MiB of address space "
	    "per process", (unsigned long long)rl.rlim_cur >> 20);
}

/* Does `name' end in ".so"? */
static int
is_so(const char *name)
{
	size_t	 n = strlen(name);

	return n > 3 && name[0] != '.' && strcmp(name + n - 3, ".so") == 0;
}

/*
 * Load the module at `path' into `srv', by its real path once
 * prog_trusted() has checked who could have written it; 0, or -1
 * with why in `err'.
 */
static int
load_one(struct wymcp_server *srv, const struct front_opts *o,
    struct prog_trust_memo *memo, const char *what, const char *path,
    char *err, size_t errlen)
{
	char	 real[PATH_MAX], why[PATH_MAX + 128];
	int	 rc;

	if ((rc = prog_trusted(path, (uid_t)-1, memo, real, sizeof(real),
	    why, sizeof(why))) == -2) {
		if (snprintf(err, errlen, "%s %s: %s", what, path, why) < 0)
			err[0] = '\0';
		return -1;
	}
	if (rc != 0) {
		if (!o->insecure_files) {
			if (snprintf(err, errlen, "%s %s: refused: %s "
			    "(--allow-insecure-files loads it anyway, for a "
			    "development tree)", what, path, why) < 0)
				err[0] = '\0';
			return -1;
		}
		front_log(WYMCP_LOG_WARNING, "%s %s: %s: loaded anyway "
		    "(--allow-insecure-files)", what, path, why);
		snprintf(real, sizeof(real), "%s", path);
	}
	if (wymcp_server_load_module(srv, real) == WYMCP_OK)
		return 0;
	if (snprintf(err, errlen, "%s %s: %s", what, path,
	    wymcp_server_errmsg(srv)) < 0)
		err[0] = '\0';
	return -1;
}

/*
 * --state-key-file, --skills-dir (`what', `path'): refuse one that a
 * user other than root, this process's and `user' could change
 * (prog_trusted()), unless --allow-insecure-files.  A missing one is
 * the loader's to report.
 */
static void
file_trusted(const struct front_opts *o, const char *what, const char *path,
    uid_t user)
{
	char	 real[PATH_MAX], why[PATH_MAX + 128];

	if (prog_trusted(path, user, NULL, real, sizeof(real), why,
	    sizeof(why)) != -1)
		return;
	if (!o->insecure_files)
		errx(1, "%s %s: refused: %s (--allow-insecure-files uses it "
		    "anyway, for a development tree)", what, path, why);
	front_log(WYMCP_LOG_WARNING, "%s %s: %s: used anyway "
	    "(--allow-insecure-files)", what, path, why);
}

/*
 * A file a module names (an MCP Apps resource's HTML, wymcp_apps(3)):
 * trusted as the module itself is (prog_trusted()), else refused
 * unless --allow-insecure-files, which warns.
 */
static int
module_file_check(void *arg, const char *path, char *why, size_t whylen)
{
	return front_file_check(arg, "module file ", "reads", "read", path,
	    why, whylen);
}

/*
 * Load the --module files, or every *.so of a --module directory (in
 * name order, read again at each reload), or the bundled modules when
 * none was given.  0, or -1 with why in `err' (nothing is fatal here:
 * the caller decides).
 */
static int
load_modules(struct wymcp_server *srv, const struct front_opts *o,
    char *err, size_t errlen)
{
	struct prog_trust_memo	 memo = { "" };
	struct dirent	**names;
	struct stat	 st;
	char		 path[PATH_MAX];
	size_t		 i;
	int		 n, k, rc = 0;

	for (i = 0; i < o->nmodules; i++) {
		if (stat(o->modules[i], &st) == -1 || !S_ISDIR(st.st_mode)) {
			if (load_one(srv, o, &memo, "--module",
			    o->modules[i], err, errlen) != 0)
				return -1;
			continue;
		}
		if ((n = scandir(o->modules[i], &names, NULL,
		    alphasort)) == -1) {
			snprintf(err, errlen, "--module %s: %s",
			    o->modules[i], strerror(errno));
			return -1;
		}
		for (k = 0; k < n; k++) {
			if (rc == 0 && is_so(names[k]->d_name) &&
			    (size_t)snprintf(path, sizeof(path), "%s/%s",
			    o->modules[i], names[k]->d_name) < sizeof(path) &&
			    load_one(srv, o, &memo, "--module", path, err,
			    errlen) != 0)
				rc = -1;
			free(names[k]);
		}
		free(names);
		if (rc != 0)
			return -1;
	}
	if (o->nmodules > 0)
		return 0;
	for (i = 0; i < sizeof(bundled) / sizeof(bundled[0]); i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s",
		    WYMCP_MODULEDIR, bundled[i]) >= sizeof(path)) {
			snprintf(err, errlen, "%s: path too long",
			    WYMCP_MODULEDIR);
			return -1;
		}
		if (load_one(srv, o, &memo, "bundled module (use --module)",
		    path, err, errlen) != 0)
			return -1;
	}
	return 0;
}

/*
 * --exec-dir, --exec-user: the exec tools (wymcp-exec(5)), read again
 * at each reload.  As root without --exec-user, runs go to --user (the
 * workers' user: --call runs as root), else to nobody.  0, or -1 with
 * why.
 */
static int
load_exec(struct wymcp_server *srv, const struct front_opts *o,
    char *err, size_t errlen)
{
	const char	*user = o->exec_user;
	size_t		 i;

	/* As root: --user, whom the workers become, else nobody. */
	if (user == NULL && o->nexec_dirs > 0 && geteuid() == 0)
		user = o->user != NULL ? o->user : "nobody";
	if (user != NULL && wymcp_server_set_exec_user(srv, user) !=
	    WYMCP_OK) {
		snprintf(err, errlen, "--exec-user: %s",
		    wymcp_server_errmsg(srv));
		return -1;
	}
	for (i = 0; i < o->nexec_dirs; i++)
		if (wymcp_server_load_exec_dir(srv, o->exec_dirs[i]) !=
		    WYMCP_OK) {
			snprintf(err, errlen, "--exec-dir: %s",
			    wymcp_server_errmsg(srv));
			return -1;
		}
	return 0;
}

/*
 * The operator's Implementation and instructions (--server-*,
 * --instructions, --instructions-file, read again at a reload): 0, or
 * -1 with why in `err'.
 */
static int
set_info(struct wymcp_server *srv, const struct front_opts *o, char *err,
    size_t errlen)
{
	struct wymcp_server_info info = o->info;
	char			*text = NULL, *nt;
	size_t			 len = 0, cap = 0;
	ssize_t			 n;
	int			 fd = -1, rc = -1;

	if (o->instructions_file != NULL) {
		if ((fd = open(o->instructions_file, O_RDONLY | O_CLOEXEC)) ==
		    -1) {
			snprintf(err, errlen, "--instructions-file %s: %s",
			    o->instructions_file, strerror(errno));
			goto out;
		}
		/* All errors from here on use goto out. */
		for (;;) {
			if (len + 1 >= cap) {
				if (cap >= 1024 * 1024) {
					snprintf(err, errlen, "--instructions-"
					    "file %s: larger than 1 MiB",
					    o->instructions_file);
					goto out;
				}
				cap = cap == 0 ? 4096 : cap * 2;
				if ((nt = realloc(text, cap)) == NULL) {
					snprintf(err, errlen, "out of memory");
					goto out;
				}
				text = nt;
			}
			if ((n = read(fd, text + len, cap - len - 1)) == -1 &&
			    errno == EINTR)
				continue;
			if (n == -1) {
				snprintf(err, errlen, "--instructions-file "
				    "%s: %s", o->instructions_file,
				    strerror(errno));
				goto out;
			}
			if (n == 0)
				break;
			len += (size_t)n;
		}
		/* One trailing newline is the file's, not the text's. */
		if (len > 0 && text[len - 1] == '\n')
			len--;
		text[len] = '\0';
		info.instructions = text;
	}
	if ((info.name != NULL || info.title != NULL ||
	    info.version != NULL || info.description != NULL ||
	    info.website_url != NULL || info.icons != NULL ||
	    info.instructions != NULL) &&
	    wymcp_server_set_info(srv, &info, sizeof(info)) != WYMCP_OK) {
		snprintf(err, errlen, "--server-*/--instructions: %s",
		    wymcp_server_errmsg(srv));
		goto out;
	}
	rc = 0;
out:
	if (fd != -1)
		close(fd);
	free(text);
	return rc;
}

/*
 * The server of options `o': settings, modules and state keys (the
 * per-process work, done once before the fork, and again at a reload).
 * `cgi': this process serves one request.  NULL with why in `err'.
 */
static struct front_rates	*rates;		/* the pool's buckets */

static struct wymcp_server *
make_server(const struct front_opts *o, int cgi, char *err, size_t errlen)
{
	struct wymcp_server	*srv;
	size_t			 i;

	if ((srv = wymcp_server_new()) == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	wymcp_server_set_log(srv, front_logfn, NULL, front_logmax);
	/*
	 * CGI serves one request: what only a tools/list or a sealed state
	 * reads (the tools' digests, their listings' text) is made by that
	 * request if it needs it, not by every start.
	 */
	wymcp_server_set_lazy(srv, cgi);
	/*
	 * Rate limits (ratelimit.c): one table for the pool, made with the
	 * first server, before the fork, with the start's --rate-limit
	 * rules; none for CGI, whose every request is a process of its own.
	 */
	if (!cgi && rates == NULL) {
		for (i = 0; i < o->nrate_limits; i++)
			if (front_rate_rule(o->rate_limits[i]) != 0) {
				snprintf(err, errlen, "--rate-limit %s: out of "
				    "memory", o->rate_limits[i]);
				wymcp_server_free(srv);
				return NULL;
			}
		if ((rates = front_rates_new()) == NULL) {
			snprintf(err, errlen, "the rate limits' table: out "
			    "of memory");
			wymcp_server_free(srv);
			return NULL;
		}
	}
	if (rates != NULL)
		wymcp_server_set_admit_fn(srv, front_rate_admit, rates);
	/* The audit line's detail (audit.c): computed only for it. */
	wymcp_server_set_request_detail(srv,
	    (o->audit_log != NULL || o->otlp_endpoint != NULL ?
	    WYMCP_DETAIL_HOOK : 0) |
	    (!cgi && o->status_path != NULL ? WYMCP_DETAIL_OUTCOME : 0) |
	    (o->otlp_endpoint != NULL ? WYMCP_DETAIL_TRACE : 0) |
	    (o->audit_headers ? WYMCP_DETAIL_HEADERS : 0));
	wymcp_server_set_request_timeout(srv, (unsigned long)o->timeout *
	    1000);
	if (o->max_body > 0)
		wymcp_server_set_max_body(srv, o->max_body);
	if (o->modern_only)
		wymcp_server_set_legacy(srv, 0);
	for (i = 0; i < o->norigins; i++)
		if (wymcp_server_allow_origin(srv, o->origins[i]) !=
		    WYMCP_OK) {
			snprintf(err, errlen, "--allow-origin %s: %s",
			    o->origins[i], wymcp_server_errmsg(srv));
			goto fail;
		}
	wymcp_server_set_file_check(srv, module_file_check, (void *)o);
	if (load_modules(srv, o, err, errlen) != 0)
		goto fail;
	if (o->skills_dir != NULL && wymcp_server_load_skills(srv,
	    o->skills_dir) != WYMCP_OK) {
		snprintf(err, errlen, "--skills-dir: %s",
		    wymcp_server_errmsg(srv));
		goto fail;
	}
	if (load_exec(srv, o, err, errlen) != 0)
		goto fail;
	if (set_info(srv, o, err, errlen) != 0)
		goto fail;
	if (o->public_url != NULL && wymcp_server_set_public_url(srv,
	    o->public_url) != WYMCP_OK) {
		snprintf(err, errlen, "--public-url: %s",
		    wymcp_server_errmsg(srv));
		goto fail;
	}
	for (i = 0; i < o->npublic_headers; i++)
		if (wymcp_server_add_public_header(srv,
		    o->public_headers[i]) != WYMCP_OK) {
			snprintf(err, errlen, "--public-header %s: %s",
			    o->public_headers[i], wymcp_server_errmsg(srv));
			goto fail;
		}
	/*
	 * requestState keys: the file's (read again at a reload: rotated
	 * keys take effect), or the random key the server made for itself,
	 * which this process and the workers it forks share.
	 */
	if (o->keyfile != NULL) {
		if (wymcp_server_load_state_keys(srv, o->keyfile) !=
		    WYMCP_OK) {
			snprintf(err, errlen, "--state-key-file: %s",
			    wymcp_server_errmsg(srv));
			goto fail;
		}
	} else if (cgi)
		/*
		 * CGI: this process serves one request.  A state sealed
		 * with its random key would open in no other process.
		 */
		wymcp_server_forget_random_key(srv);
	return srv;
fail:
	wymcp_server_free(srv);
	return NULL;
}

/*
 * The task store of options `o' on `srv', after the privilege drop (as
 * the user that will write it: the store's file is created), with the
 * pool's hooks.  0, or -1 with why in `err'.
 */
static int
store_server(struct wymcp_server *srv, const struct front_opts *o,
    const struct front_limits *lim, char *err, size_t errlen)
{
	if (o->task_store != NULL) {
		if (wymcp_server_set_task_store(srv, o->task_store) !=
		    WYMCP_OK) {
			snprintf(err, errlen, "--task-store: %s",
			    wymcp_server_errmsg(srv));
			return -1;
		}
		(void)wymcp_server_set_task_limits(srv,
		    (long long)o->task_ttl * 1000,
		    (long long)o->task_lease * 1000);
		(void)wymcp_server_set_task_quota(srv, o->task_quota,
		    o->task_quota_bytes, o->task_store_max);
		/* An outage is logged once for the pool, not a process. */
		wymcp_server_set_task_store_watch(srv, front_store_watch,
		    lim->stats);
	}
	if (lim->listen != NULL)
		wymcp_server_set_publish(srv, front_publish, lim->listen);
	return 0;
}

/*
 * What a reload needs: the options and the limits (main.c's own); the
 * command line, for a --config file read again; the options the
 * program started with (restart-only ones are always theirs), and
 * those a reload read last, with what they point into.
 */
static const struct front_opts	*reload_opts;
static struct front_limits	*reload_lim;
static int			 main_argc;
static pid_t			 main_pid;
static char			**main_argv;
static const struct front_opts	*start_opts;
static struct front_opts	*reread;
static char			**reread_argv, *reread_text;

/* Forget options a reload read (not the startup ones). */
static void
drop_options(struct front_opts *o, char **argv, char *text)
{
	if (o == NULL)
		return;
	front_options_free(o, 0);
	free(o);
	free(argv);
	free(text);
}

/* Free the startup options and the config file's text they point into. */
static void
free_start_options(struct front_opts *o, char **argv, char *text)
{
	front_options_free(o, 1);
	free(argv);
	free(text);
}

/*
 * Read --config again: the file and the command line parsed first in a
 * child (the parser exits on a bad option, with its message in the
 * log: the supervisor must not), then here.  The new options (the
 * restart-only ones the running ones), or NULL with why in `err'.
 */
static struct front_opts *
reread_options(char ***argvp, char **textp, char *err, size_t errlen)
{
	const char		*path = start_opts->config;
	struct front_opts	*n = NULL, t;
	pid_t			 pid;
	int			 nargc, st;

	if (front_config_argv(path, front_longopts(), main_argc, main_argv,
	    &nargc, argvp, textp, err, errlen) != 0)
		return NULL;
	if ((pid = fork()) == -1) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		goto fail;
	}
	if (pid == 0) {
		front_options_parse(nargc, *argvp, &t);
		_exit(0);
	}
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		continue;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		snprintf(err, errlen, "%s: the options do not parse (the "
		    "line before says why)", path);
		goto fail;
	}
	if ((n = malloc(sizeof(*n))) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	front_options_parse(nargc, *argvp, n);
	/* Said once, by the supervisor, not by its trial child too. */
	front_options_keep(start_opts, n, path, getpid() == main_pid);
	return n;
fail:
	free(*argvp);
	free(*textp);
	*argvp = NULL;
	*textp = NULL;
	return NULL;
}

/*
 * SIGHUP in the supervisor (prefork.c, which calls this first in a
 * trial child, then here): the server again from the options, read
 * again from --config FILE when there is one, its modules loaded
 * anew.  NULL with why in `err'.
 */
static struct wymcp_server *
reload_server(char *err, size_t errlen)
{
	struct wymcp_server	*srv;
	struct front_opts	*n = NULL;
	const struct front_opts	*o = reload_opts;
	char			**argv = NULL, *text = NULL;

	if (start_opts->config != NULL) {
		if ((n = reread_options(&argv, &text, err, errlen)) == NULL)
			return NULL;
		o = n;
	}
	if ((srv = make_server(o, 0, err, errlen)) == NULL)
		goto fail;
	if (store_server(srv, o, reload_lim, err, errlen) != 0) {
		wymcp_server_free(srv);
		goto fail;
	}
	if (n != NULL) {
		/* The new workers watch the new request time limit. */
		reload_lim->timeout = n->timeout;
		drop_options(reread, reread_argv, reread_text);
		reread = n;
		reread_argv = argv;
		reread_text = text;
		reload_opts = n;
	}
	return srv;
fail:
	drop_options(n, argv, text);
	return NULL;
}

/*
 * Startup, in order: options; --generate-key (and exit); identity and
 * key file checks; the inherited socket, or CGI; the server and its
 * modules; the --listen socket; the privilege drop.  Then serve: CGI,
 * one process (--workers 0) or the supervisor.
 */
int
main(int argc, char *argv[])
{
	struct front_opts	 opts;
	struct front_limits	 lim;
	struct rlimit		 rl;
	struct wymcp_server	*srv;
	struct ident		 id;
	const struct wymcp__backend *bus_be;
	const char		*sockpath = NULL;
	char			 ebuf[512], **cfg_argv, *cfg_text;
	int			 fd, flags, rc, relayfd = -1, local = 0, cgi;

	sanitize_stdio();
	front_options_read(argc, argv, &opts, &cfg_argv, &cfg_text);

	if (opts.genkey != NULL) {
		if (wymcp_state_key_generate(opts.genkey, ebuf,
		    sizeof(ebuf)) != WYMCP_OK) {
			warnx("--generate-key: %s", ebuf);
			return 1;
		}
		printf("%s: new key written first in %s\n",
		    FRONT_NAME, opts.genkey);
		return 0;
	}

	if (opts.publish != NULL) {
		const char	*bus = opts.bus != NULL &&
				    strcmp(opts.bus, "none") != 0 ? opts.bus :
				    NULL;
		const struct wymcp__backend *be = NULL;
		char		 hub[200];

		if (bus == NULL && opts.bus == NULL && opts.task_store !=
		    NULL && strncmp(opts.task_store, "postgres", 8) == 0)
			bus = opts.task_store;
		hub[0] = '\0';
		if (opts.listen != NULL && strncmp(opts.listen, "unix:", 5) ==
		    0)
			snprintf(hub, sizeof(hub), "%s.hub", opts.listen + 5);
		if (bus != NULL && (be = front_backend(bus, &opts, ebuf,
		    sizeof(ebuf))) == NULL)
			errx(2, "--bus: %s", ebuf);
		if (front_publish_cmd(opts.publish, be != NULL ? be->bus :
		    NULL, bus, hub[0] != '\0' ?
		    hub : NULL, ebuf, sizeof(ebuf)) != 0) {
			warnx("--publish: %s", ebuf);
			return 1;
		}
		return 0;
	}

	/*
	 * The task store's back end: its file checked and loaded once, by
	 * the library, here, as the user that started us (before the
	 * privilege drop) and before anything is served; the library
	 * then finds it loaded when it opens the store (store_server()).
	 */
	if (opts.task_store != NULL && front_backend(opts.task_store, &opts,
	    ebuf, sizeof(ebuf)) == NULL)
		errx(2, "--task-store: %s", ebuf);

	if (opts.verbose == 1)
		front_logmax = WYMCP_LOG_INFO;
	else if (opts.verbose > 1)
		front_logmax = WYMCP_LOG_DEBUG;

	/*
	 * --print-server-json: the modules and options of a start, the
	 * registry's server.json printed, and nothing bound.
	 */
	if (opts.print_json) {
		char	*js;

		if ((srv = make_server(&opts, 0, ebuf, sizeof(ebuf))) == NULL)
			errx(1, "%s", ebuf);
		if ((js = wymcp_server_json(srv)) == NULL)
			errx(1, "--print-server-json: %s",
			    wymcp_server_errmsg(srv));
		rc = printf("%s\n", js) < 0 || fflush(stdout) != 0;
		free(js);
		wymcp_server_free(srv);
		free_start_options(&opts, cfg_argv, cfg_text);
		if (rc != 0)
			err(1, "stdout");
		return 0;
	}

	/*
	 * --call: one call's rounds from the shell, through the whole
	 * pipeline, and nothing bound (call.c).
	 */
	if (opts.call != NULL) {
		if ((srv = make_server(&opts, 0, ebuf, sizeof(ebuf))) == NULL)
			errx(2, "%s", ebuf);
		rc = front_call(srv, &opts);
		wymcp_server_free(srv);
		free_start_options(&opts, cfg_argv, cfg_text);
		return rc;
	}

	/*
	 * Writes to a vanished peer (web server, log pipe) must fail
	 * with EPIPE, not kill the process.
	 */
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		err(1, "signal");

	resolve_ident(&opts, &id);
	web_server_addrs(&opts);

	fd = -1;
	if (opts.listen == NULL && (fd = inherited_socket()) == -1 &&
	    getenv("REQUEST_METHOD") == NULL)
		errx(2, "no listening socket on descriptor 0, no --listen "
		    "and no CGI request (REQUEST_METHOD is unset); "
		    "try --help");

	/*
	 * The key file seals every state, the skills tell agents what to
	 * do: trusted as the modules are, but they may be --user's, who
	 * rereads them at a reload.
	 */
	if (opts.keyfile != NULL)
		file_trusted(&opts, "--state-key-file", opts.keyfile,
		    id.set ? id.uid : (uid_t)-1);
	if (opts.skills_dir != NULL)
		file_trusted(&opts, "--skills-dir", opts.skills_dir,
		    id.set ? id.uid : (uid_t)-1);

	/* Per-process work, once: configuration and modules. */
	cgi = fd == -1 && opts.listen == NULL;
	if ((srv = make_server(&opts, cgi, ebuf, sizeof(ebuf))) == NULL)
		errx(1, "%s", ebuf);
	if (wymcp_server_exec_count(srv) > 0) {
		if (wymcp_exec_landlock() > 0)
			front_log(WYMCP_LOG_NOTICE, "exec tools: %zu, their runs "
			    "confined by Landlock (ABI %d)",
			    wymcp_server_exec_count(srv),
			    wymcp_exec_landlock());
		else
			front_log(WYMCP_LOG_WARNING, "exec tools: %zu, and "
			    "this kernel has no Landlock: a run can read and "
			    "write what its user can (wymcp-exec(5))",
			    wymcp_server_exec_count(srv));
	}
	if (opts.keyfile != NULL)
		;
	else if (!cgi)
		front_log(WYMCP_LOG_WARNING, "no --state-key-file: "
		    "requestState is sealed with a random key made now, "
		    "shared by this process's workers only; several hosts, "
		    "or state that survives a restart, need a shared key "
		    "file (wymcp-fcgi --generate-key PATH)");
	else {
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

	/*
	 * The socket after the modules, so that a bad module leaves no
	 * socket file behind; before the privilege drop, as binding may
	 * need root (a low port, a root-owned directory).
	 */
	if (opts.listen != NULL) {
		if (strncmp(opts.listen, "unix:", 5) == 0) {
			sockpath = opts.listen + 5;
			fd = listen_unix(sockpath, &id);
		} else
			fd = listen_tcp(opts.listen);
	}

	if (fd != -1)
		local = check_listener(fd, &opts);
	/*
	 * The relay socket: other hosts' workers hand answers to this
	 * instance's questions over it; the same peer rules as FastCGI.
	 */
	if (opts.relay_listen != NULL && fd != -1) {
		relayfd = listen_tcp(opts.relay_listen);
		check_relay(&opts);
		if ((flags = fcntl(relayfd, F_GETFL)) == -1 ||
		    fcntl(relayfd, F_SETFL, flags | O_NONBLOCK) == -1)
			err(1, "fcntl");
	}

	if (id.set)
		drop_privileges(&id);
	if (opts.task_store != NULL && opts.runners == 0)
		front_log(WYMCP_LOG_WARNING, "--task-store without "
		    "--task-runners: tasks are stored here but run only by the "
		    "runners of another instance sharing the store");
	memory_limit(opts.memory);
	/* As the user the workers run as, who reopen it (audit.c). */
	if (front_audit_open(opts.audit_log) == -1)
		errx(1, "--audit-log %s: cannot be opened", opts.audit_log);
	/* The status page's histograms (metrics.c). */
	if (fd != -1 && opts.status_path != NULL &&
	    front_metrics_setup() == -1)
		errx(1, "the status page's histograms: out of memory");
	/* The span exporter, a child of the supervisor (otlp.c). */
	if (fd != -1 && front_otlp_setup(opts.otlp_endpoint) == -1)
		errx(1, "--otlp-endpoint %s: cannot export there",
		    opts.otlp_endpoint);

	memset(&lim, 0, sizeof(lim));
	lim.max_workers = opts.workers_max;
	lim.idle = opts.idle_timeout;
	lim.timeout = opts.timeout;
	lim.local = local;
	/* Without a supervisor nothing replaces a retired process. */
	lim.max_requests = opts.workers == 0 && !opts.max_requests_set ? 0 :
	    opts.max_requests;
	lim.memory = opts.memory;
	/* A limit set from outside (systemd LimitAS=) counts as well. */
	if (lim.memory == 0 && getrlimit(RLIMIT_AS, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY)
		lim.memory = (size_t)rl.rlim_cur;
	lim.drain = opts.drain;
	lim.peers = opts.peers;
	lim.npeers = opts.npeers;
	/* Made before the fork, as the user the workers run as. */
	lim.relay_fd = -1;
	lim.hub_fd = -1;
	lim.keyfile = opts.keyfile;	/* the hub follows it (control.c) */
	/*
	 * The hub holds the listen streams: with a supervisor only (it is
	 * one of its children), and not with --max-listeners 0.
	 */
	if (fd != -1 && opts.workers > 0 && opts.max_listeners > 0 &&
	    front_listen_setup(&lim, opts.max_listeners,
	    opts.per_principal > 0 ? opts.per_principal :
	    opts.max_listeners / 4 > 0 ? opts.max_listeners / 4 : 1,
	    opts.listen_age, sockpath) == 0) {
		/* The bus: given, or the task store's PostgreSQL. */
		if (opts.bus != NULL && strcmp(opts.bus, "none") != 0)
			lim.bus_uri = opts.bus;
		else if (opts.bus == NULL && opts.task_store != NULL &&
		    (strncmp(opts.task_store, "postgresql://", 13) == 0 ||
		    strncmp(opts.task_store, "postgres://", 11) == 0))
			lim.bus_uri = opts.task_store;
		if (lim.bus_uri != NULL) {
			if ((bus_be = front_backend(lim.bus_uri, &opts, ebuf,
			    sizeof(ebuf))) == NULL)
				errx(2, "--bus: %s", ebuf);
			lim.bus = bus_be->bus;
		}
		lim.listen->bus = lim.bus_uri != NULL;
	}
	if (fd != -1 && front_relay_setup(&lim, opts.workers,
	    opts.max_asking, opts.max_asking_per, opts.ask_timeout) == 0 &&
	    lim.relay != NULL &&
	    relayfd != -1 && lim.listen == NULL)
		front_log(WYMCP_LOG_ERR, "--relay-listen %s: no hub holding "
		    "streams to serve it: answers from other hosts are not "
		    "taken",
		    opts.relay_listen);
	else if (lim.relay != NULL && relayfd != -1) {
		lim.relay_fd = relayfd;
		snprintf(lim.relay->self, sizeof(lim.relay->self), "%s",
		    opts.relay_listen);
		front_log(WYMCP_LOG_INFO, "answers from other hosts are "
		    "taken on %s", opts.relay_listen);
	}
	lim.status_path = opts.status_path;
	lim.status_peers = opts.status_peers;
	lim.nstatus_peers = opts.nstatus_peers;
	lim.slow_ms = opts.slow_ms;
	/* The pool's figures: shared by every process forked from here. */
	if (fd != -1 && (lim.stats = front_stats_new()) != NULL) {
		lim.stats->min = opts.workers;
		lim.stats->max = opts.workers_max;
		lim.stats->slow_ms = opts.slow_ms;
		lim.stats->store = opts.task_store != NULL;
	}
	/*
	 * The task store, as the user that will write it (the store's file
	 * is created), and the pool's hooks.
	 */
	if (store_server(srv, &opts, &lim, ebuf, sizeof(ebuf)) != 0)
		errx(1, "%s", ebuf);
	reload_opts = start_opts = &opts;
	reload_lim = &lim;
	main_argc = argc;
	main_argv = argv;
	main_pid = getpid();

	if (fd == -1)
		rc = front_cgi(srv, &lim);
	else {
		/*
		 * Workers try accept(2) and wait in ppoll(2) when nothing
		 * was there: they must never block in accept(2) (fcgi.c).
		 */
		if ((flags = fcntl(fd, F_GETFL)) == -1 ||
		    fcntl(fd, F_SETFL, flags | O_NONBLOCK) == -1)
			err(1, "fcntl");
		front_log(WYMCP_LOG_INFO, "serving %s with %d%s%.0d worker%s",
		    opts.listen != NULL ? opts.listen :
		    fd == 3 ? "the systemd socket" : "the socket on fd 0",
		    opts.workers, opts.workers_max > opts.workers ? " to " :
		    "", opts.workers_max > opts.workers ? opts.workers_max : 0,
		    opts.workers_max == 1 ? "" : "s");
		if (opts.workers == 0)
			rc = front_worker(srv, fd, &lim, NULL);
		else
			rc = front_prefork(&srv, fd, opts.listen != NULL,
			    opts.workers, opts.runners, &lim, reload_server);
		(void)front_relay_cleanup(&lim);
		front_listen_cleanup(&lim);
		/* Only the process that created the socket gets here. */
		if (sockpath != NULL && unlink(sockpath) == -1 &&
		    errno != ENOENT)
			front_log(WYMCP_LOG_INFO, "unlink %s: %s", sockpath,
			    strerror(errno));
	}

	wymcp_server_free(srv);
	drop_options(reread, reread_argv, reread_text);
	free_start_options(&opts, cfg_argv, cfg_text);
	return rc;
}
