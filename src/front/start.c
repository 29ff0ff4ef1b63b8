/*
 * start.c - wymcp-fcgi's start: descriptors 0 to 2, the identity and
 * the privilege drop, the listening sockets (made, handed over, and
 * who may connect), the memory limit
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <netdb.h>

#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "front.h"

#define SOCKET_MODE	0660	/* mode of a --listen unix: socket */

/*
 * Make sure descriptors 0, 1 and 2 are open, so that no socket or file
 * opened later lands on them and receives log lines or responses.
 */
void
front_sanitize_stdio(void)
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
void
front_resolve_ident(const struct front_opts *o, struct front_ident *id)
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
void
front_drop_privileges(const struct front_ident *id)
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
int
front_sock_unix(const char *path, const struct front_ident *id)
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
int
front_sock_tcp(const char *spec)
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
int
front_sock_inherited(void)
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
void
front_web_server_addrs(struct front_opts *o)
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
int
front_sock_check(int fd, const struct front_opts *o)
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
void
front_relay_check(const struct front_opts *o)
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
void
front_memory_limit(size_t limit)
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

