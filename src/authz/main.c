/*
 * main.c - wymcp-authz: options, the FastCGI socket, privileges, and
 * the workers
 *
 * The supervisor loads the key set, opens (or inherits) the socket
 * (a TCP one on an address that is not loopback only with
 * --allow-peer or --allow-any-peer), switches to --user, then keeps
 * --workers processes that each accept one FastCGI connection at a
 * time, from an allowed peer, with AUTHZ_READ_MS for its request;
 * --workers 0 serves in this process.  SIGHUP reloads the key set
 * (forwarded to every worker); SIGTERM and SIGINT stop: each worker
 * finishes the request in hand.
 * Logs go to stderr, one line each; no token, key or secret is ever
 * logged (answer.c logs the fixed reasons of authz_why() only).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <curl/curl.h>
#include <fcgiapp.h>
#include <sodium.h>

#include "authz/authz.h"

#define SOCKET_MODE	0660
#define STOP_WAIT_S	10	/* then SIGKILL the workers left */
#define ALARM_AGAIN_MS	100	/* SIGALRM again until disarmed */

static int			 logmax = WYMCP_LOG_WARNING;
static volatile sig_atomic_t	 got_stop, got_hup, got_chld;

/* One line to stderr, one write(2), control characters replaced. */
static void
logline(int prio, const char *fmt, ...)
{
	char	 msg[1024], line[1200];
	va_list	 ap;
	size_t	 len, i;
	int	 n;
	ssize_t	 w;

	if (prio > logmax)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	n = snprintf(line, sizeof(line), "%s[%ld]: %s: %s", AUTHZ_NAME,
	    (long)getpid(), prio <= WYMCP_LOG_ERR ? "error" :
	    prio == WYMCP_LOG_WARNING ? "warning" : prio <= WYMCP_LOG_INFO ?
	    "info" : "debug", msg);
	if (n < 0)
		return;
	len = (size_t)n < sizeof(line) - 1 ? (size_t)n : sizeof(line) - 2;
	for (i = 0; i < len; i++)
		if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
			line[i] = '?';
	line[len++] = '\n';
	w = write(STDERR_FILENO, line, len);
	(void)w;
}

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: %s [-hVv] --audience URI\n"
	    "       (--issuer URL (--jwks-file PATH | --jwks-url URL)...)...\n"
	    "       [--scope SCOPE]...\n"
	    "       [--principal-claim CLAIM] [--assign-claim CLAIM[=NAME]]..."
	    "\n"
	    "       [--leeway SECONDS] [--resource-metadata URL]\n"
	    "       [--introspect URL --introspect-client-id ID\n"
	    "        --introspect-secret-file PATH] [--allow-insecure-http]\n"
	    "       [--allow-insecure-files]\n"
	    "       [--listen unix:PATH | HOST:PORT | [IPV6]:PORT]\n"
	    "       [--allow-peer ADDR[/BITS]]... [--allow-any-peer]\n"
	    "       [--workers N] [--user USER] [--group GROUP]\n"
	    "\n"
	    "  --issuer URL           accept tokens of this issuer\n"
	    "                         (repeatable)\n"
	    "  --audience URI         this resource's canonical URI (aud)\n"
	    "  --jwks-file PATH       verification keys (JWKS) from a file,\n"
	    "                         for the --issuer before it (repeatable)\n"
	    "  --jwks-url URL         the same fetched over HTTP(S)\n"
	    "  --scope SCOPE          a scope every token needs (repeatable)\n"
	    "  --principal-claim C    the claim naming the principal (sub)\n"
	    "  --assign-claim C[=N]   pass claim C on as assign N\n"
	    "                         (repeatable)\n"
	    "  --leeway SECONDS       clock skew allowed (default 30)\n"
	    "  --resource-metadata U  the metadata URL of the challenges\n"
	    "                         (default: from --audience, RFC 9728)\n"
	    "  --introspect URL       check opaque tokens there (RFC 7662),\n"
	    "                         for the --issuer before it\n"
	    "  --introspect-client-id ID, --introspect-secret-file PATH\n"
	    "                         its client credentials (mode 0600)\n"
	    "  --allow-insecure-http  let --jwks-url and --introspect use\n"
	    "                         http to a host that is not loopback\n"
	    "  --allow-insecure-files use a --jwks-file that another user\n"
	    "                         could change (development only)\n"
	    "  --listen ADDR          create the FastCGI socket (default:\n"
	    "                         the socket on fd 0 or from systemd)\n"
	    "  --allow-peer A[/BITS]  FastCGI peers allowed (repeatable); a\n"
	    "                         TCP socket on an address that is not\n"
	    "                         loopback needs it, or --allow-any-peer\n"
	    "  --workers N            worker processes, 0 to %d (default 2;\n"
	    "                         0 serves in this process)\n"
	    "  --user USER            run as USER after startup (root only)\n"
	    "  --group GROUP          run with GROUP (default: USER's group)\n"
	    "  -v, --verbose          log info; twice: debug\n"
	    "  -h, --help             print this help and exit\n"
	    "  -V, --version          print the version and exit\n",
	    AUTHZ_NAME, AUTHZ_MAX_WORKERS);
}

struct opts {
	struct authz		 a;
	char			*metadata;	/* derived, or NULL */
	const char		*secret_file;	/* --introspect-secret-file */
	const char		*listen;
	long			 workers;
	const char		*user, *group;
	int			 insecure;	/* --allow-insecure-http */
	struct prog_peer	*peers;		/* --allow-peer */
	size_t			 npeers;
	int			 any_peer;	/* --allow-any-peer */
	int			 insecure_files; /* --allow-insecure-files */
};

/* Append to a growing array of strings; exits when out of memory. */
static void
push(const char ***arr, size_t *n, const char *s)
{
	const char	**na;

	if ((na = reallocarray(*arr, *n + 1, sizeof(**arr))) == NULL)
		err(1, NULL);
	na[(*n)++] = s;
	*arr = na;
}

/* Is s fit for a quoted-string of a challenge (no '"', '\', controls)? */
static int
quotable(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x21 || *s == '"' || *s == '\\' ||
		    *s == 0x7f)
			return 0;
	return 1;
}

/*
 * --jwks-file or --jwks-url: a key source of the --issuer given last
 * (parse() binds one given before any to the only issuer).
 */
static void
add_source(struct opts *o, const char *file, const char *url)
{
	struct authz_keyset	*ks = &o->a.keys;
	struct authz_source	*ns;
	struct authz_conf	*c = &o->a.conf;

	if ((ns = reallocarray(ks->srcs, ks->nsrcs + 1,
	    sizeof(*ns))) == NULL)
		err(1, NULL);
	memset(&ns[ks->nsrcs], 0, sizeof(*ns));
	ns[ks->nsrcs].issuer = c->nissuers > 0 ?
	    c->issuers[c->nissuers - 1] : NULL;
	ns[ks->nsrcs].file = file;
	ns[ks->nsrcs].url = url;
	ks->srcs = ns;
	ks->nsrcs++;
}

/* --allow-peer ADDR[/BITS] (or one of FCGI_WEB_SERVER_ADDRS). */
static void
add_peer(struct opts *o, const char *spec, const char *what)
{
	char	 why[256];

	if (prog_peers_add(&o->peers, &o->npeers, spec, why,
	    sizeof(why)) == -1)
		errx(2, "%s %s", what, why);
}

/*
 * FCGI_WEB_SERVER_ADDRS, which libfcgi checked itself when it
 * accepted: the workers accept now, so it is read into the
 * --allow-peer list as wymcp-fcgi does.
 */
static void
env_peers(struct opts *o)
{
	char	 why[256];

	if (prog_peers_env(&o->peers, &o->npeers, why, sizeof(why)) == -1)
		errx(2, "FCGI_WEB_SERVER_ADDRS: %s", why);
}

/* --assign-claim CLAIM[=NAME]; NAME defaults to CLAIM. */
static void
add_assign(struct authz_conf *c, const char *arg)
{
	struct authz_assign	*na;
	char			*claim, *name, *eq;
	size_t			 i;

	if ((claim = strdup(arg)) == NULL)
		err(1, NULL);
	if ((eq = strchr(claim, '=')) != NULL)
		*eq = '\0';
	name = eq != NULL ? eq + 1 : claim;
	if (*claim == '\0' || *name == '\0' || strlen(name) > 64)
		errx(2, "--assign-claim %s: expected CLAIM or CLAIM=NAME", arg);
	for (i = 0; name[i] != '\0'; i++) {
		if (!isalnum((unsigned char)name[i]) && name[i] != '_')
			errx(2, "--assign-claim %s: NAME may hold letters, "
			    "digits and '_' only", arg);
		name[i] = (char)tolower((unsigned char)name[i]);
	}
	if (strncmp(name, "wymcp", 5) == 0)
		errx(2, "--assign-claim %s: names starting with wymcp are "
		    "reserved", arg);
	if ((na = reallocarray(c->assigns, c->nassigns + 1,
	    sizeof(*na))) == NULL)
		err(1, NULL);
	na[c->nassigns].claim = claim;
	na[c->nassigns].name = name;
	c->assigns = na;
	c->nassigns++;
}

static long
number(const char *opt, const char *s, long min, long max)
{
	char	*e;
	long	 v;

	errno = 0;
	v = strtol(s, &e, 10);
	if (*s == '\0' || *e != '\0' || errno != 0 || v < min || v > max)
		errx(2, "%s %s: expected a number from %ld to %ld", opt, s,
		    min, max);
	return v;
}

/* Long-only options get values outside the range of characters. */
enum { O_ISSUER = 256, O_AUDIENCE, O_JWKS_FILE, O_JWKS_URL, O_SCOPE,
    O_PRINCIPAL, O_ASSIGN, O_LEEWAY, O_METADATA, O_LISTEN,
    O_WORKERS, O_USER, O_GROUP, O_INTROSPECT, O_INTRO_ID,
    O_INTRO_SECRET, O_INSECURE, O_PEER, O_ANYPEER, O_INSECURE_FILES };

static const struct option longopts[] = {
	{ "issuer", required_argument, NULL, O_ISSUER },
	{ "audience", required_argument, NULL, O_AUDIENCE },
	{ "jwks-file", required_argument, NULL, O_JWKS_FILE },
	{ "jwks-url", required_argument, NULL, O_JWKS_URL },
	{ "scope", required_argument, NULL, O_SCOPE },
	{ "principal-claim", required_argument, NULL, O_PRINCIPAL },
	{ "assign-claim", required_argument, NULL, O_ASSIGN },
	{ "leeway", required_argument, NULL, O_LEEWAY },
	{ "resource-metadata", required_argument, NULL, O_METADATA },
	{ "listen", required_argument, NULL, O_LISTEN },
	{ "workers", required_argument, NULL, O_WORKERS },
	{ "user", required_argument, NULL, O_USER },
	{ "group", required_argument, NULL, O_GROUP },
	{ "introspect", required_argument, NULL, O_INTROSPECT },
	{ "introspect-client-id", required_argument, NULL, O_INTRO_ID },
	{ "introspect-secret-file", required_argument, NULL,
	    O_INTRO_SECRET },
	{ "allow-insecure-http", no_argument, NULL, O_INSECURE },
	{ "allow-peer", required_argument, NULL, O_PEER },
	{ "allow-any-peer", no_argument, NULL, O_ANYPEER },
	{ "allow-insecure-files", no_argument, NULL, O_INSECURE_FILES },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

/*
 * An option of the tokens' checks (`ch', with `arg') into `o': 1, or 0
 * when `ch' is not one of them.
 */
static int
opt_check(struct opts *o, int ch, char *arg)
{
	struct authz_conf	*c = &o->a.conf;

	switch (ch) {
	case O_ISSUER:
		push(&c->issuers, &c->nissuers, arg);
		break;
	case O_AUDIENCE:
		c->audience = arg;
		break;
	case O_JWKS_FILE:
		add_source(o, arg, NULL);
		break;
	case O_JWKS_URL:
		add_source(o, NULL, arg);
		break;
	case O_SCOPE:
		push(&c->scopes, &c->nscopes, arg);
		break;
	case O_PRINCIPAL:
		c->principal = arg;
		break;
	case O_ASSIGN:
		add_assign(c, arg);
		break;
	case O_LEEWAY:
		c->leeway = number("--leeway", arg, 0, 3600);
		break;
	case O_METADATA:
		c->metadata = arg;
		break;
	case O_INTROSPECT:
		if (o->a.intro.url != NULL)
			errx(2, "--introspect: given twice (one endpoint, for "
			    "the --issuer it follows)");
		o->a.intro.url = arg;
		o->a.intro.issuer = c->nissuers > 0 ?
		    c->issuers[c->nissuers - 1] : NULL;
		break;
	case O_INTRO_ID:
		o->a.intro.client_id = arg;
		break;
	case O_INTRO_SECRET:
		o->secret_file = arg;
		break;
	default:
		return 0;
	}
	return 1;
}

/*
 * An option of the process (its socket, workers, identity, peers, log,
 * --help and --version) into `o'; bad usage exits 2.
 */
static void
opt_process(struct opts *o, int ch, char *arg)
{
	switch (ch) {
	case O_LISTEN:
		o->listen = arg;
		break;
	case O_WORKERS:
		o->workers = number("--workers", arg, 0, AUTHZ_MAX_WORKERS);
		break;
	case O_USER:
		o->user = arg;
		break;
	case O_GROUP:
		o->group = arg;
		break;
	case O_INSECURE:
		o->insecure = 1;
		break;
	case O_PEER:
		add_peer(o, arg, "--allow-peer");
		break;
	case O_ANYPEER:
		o->any_peer = 1;
		break;
	case O_INSECURE_FILES:
		o->insecure_files = 1;
		break;
	case 'v':
		if (logmax < WYMCP_LOG_DEBUG)
			logmax = logmax < WYMCP_LOG_INFO ? WYMCP_LOG_INFO :
			    WYMCP_LOG_DEBUG;
		break;
	case 'h':
		usage(stdout);
		exit(0);
	case 'V':
		printf("%s %s\n", AUTHZ_NAME, WYMCP_VERSION);
		exit(0);
	default:
		usage(stderr);
		exit(2);
	}
}

/* The options that must be given, and those that go together.  Exits 2. */
static void
check_together(struct opts *o)
{
	struct authz_conf	*c = &o->a.conf;

	if (c->nissuers == 0 || c->audience == NULL)
		errx(2, "--issuer and --audience are required (see --help)");
	if (o->a.keys.nsrcs == 0 && o->a.intro.url == NULL)
		errx(2, "--jwks-file, --jwks-url or --introspect is required "
		    "(see --help)");
	if ((o->a.intro.url != NULL) != (o->a.intro.client_id != NULL) ||
	    (o->a.intro.url != NULL) != (o->secret_file != NULL))
		errx(2, "--introspect, --introspect-client-id and "
		    "--introspect-secret-file go together");
	if (o->group != NULL && o->user == NULL)
		errx(2, "--group needs --user");
}

/*
 * The URLs and tokens given: issuers, key sets (one given before any
 * --issuer belongs to the only one; with several, each must follow its
 * own), the introspection endpoint (the same), scopes, the audience
 * and its metadata URL (made of it when not given).  Exits 2.
 */
static void
check_urls(struct opts *o)
{
	struct authz_conf	*c = &o->a.conf;
	size_t			 i;
	char			*url, why[512];

	for (i = 0; i < c->nissuers; i++)
		if (!quotable(c->issuers[i]) ||
		    strpbrk(c->issuers[i], "?#") != NULL)
			errx(2, "--issuer %s: not a URL without query or "
			    "fragment (RFC 8414 2)", c->issuers[i]);
	for (i = 0; i < o->a.keys.nsrcs; i++)
		if (o->a.keys.srcs[i].issuer == NULL) {
			if (c->nissuers != 1)
				errx(2, "%s %s: give it after the --issuer "
				    "whose keys it holds",
				    o->a.keys.srcs[i].file != NULL ?
				    "--jwks-file" : "--jwks-url",
				    o->a.keys.srcs[i].file != NULL ?
				    o->a.keys.srcs[i].file :
				    o->a.keys.srcs[i].url);
			o->a.keys.srcs[i].issuer = c->issuers[0];
		}
	for (i = 0; i < o->a.keys.nsrcs; i++)
		if (o->a.keys.srcs[i].url != NULL &&
		    !authz_url_ok(o->a.keys.srcs[i].url, o->insecure, why,
		    sizeof(why)))
			errx(2, "--jwks-url %s", why);
	if (o->a.intro.url != NULL &&
	    !authz_url_ok(o->a.intro.url, o->insecure, why, sizeof(why)))
		errx(2, "--introspect %s", why);
	if (o->a.intro.url != NULL && o->a.intro.issuer == NULL) {
		if (c->nissuers != 1)
			errx(2, "--introspect %s: give it after the --issuer "
			    "whose tokens it checks", o->a.intro.url);
		o->a.intro.issuer = c->issuers[0];
	}
	for (i = 0; i < c->nscopes; i++)
		if (!quotable(c->scopes[i]) || strlen(c->scopes[i]) > 256)
			errx(2, "--scope %s: not a scope-token (RFC 6749 3.3)",
			    c->scopes[i]);
	if ((url = authz_metadata_url(c->audience, &c->endpoint)) == NULL)
		errx(2, "--audience %s: expected an absolute http(s) URI "
		    "without query or fragment", c->audience);
	if (c->metadata == NULL)
		c->metadata = o->metadata = url;
	else
		free(url);
	if (!quotable(c->metadata))
		errx(2, "--resource-metadata %s: not a URL", c->metadata);
}

static void
parse(int argc, char *argv[], struct opts *o)
{
	int	 ch;

	o->a.conf.principal = "sub";
	o->a.conf.leeway = 30;
	o->workers = 2;
	while ((ch = getopt_long(argc, argv, "hVv", longopts, NULL)) != -1)
		if (!opt_check(o, ch, optarg))
			opt_process(o, ch, optarg);
	if (optind != argc)
		errx(2, "unexpected argument %s (see --help)", argv[optind]);
	check_together(o);
	env_peers(o);
	check_urls(o);
}

/*
 * The introspection client secret: the file's first line, from a file
 * nobody but its owner may read (like wymcp-fcgi's key file).  Exits
 * on failure; the secret is never printed.
 */
static char *
read_secret(const char *path)
{
	struct stat	 st;
	char		 buf[4096], *s;
	ssize_t		 n;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1)
		err(1, "--introspect-secret-file %s", path);
	if (st.st_mode & 077)
		errx(1, "--introspect-secret-file %s: readable by others "
		    "(chmod 600)", path);
	if ((n = read(fd, buf, sizeof(buf) - 1)) < 0)
		err(1, "--introspect-secret-file %s", path);
	close(fd);
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	if (buf[0] == '\0')
		errx(1, "--introspect-secret-file %s: empty", path);
	if ((s = strdup(buf)) == NULL)
		err(1, NULL);
	sodium_memzero(buf, sizeof(buf));
	return s;
}

/* A listening socket? */
static int
listening(int fd)
{
	struct stat	 st;
	socklen_t	 len = sizeof(int);
	int		 val = 0;

	if (fstat(fd, &st) == -1 || !S_ISSOCK(st.st_mode))
		return 0;
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &val, &len) == -1)
		return 0;
	return val != 0;
}

/* unix:PATH, a stale socket file replaced; mode 0660, owned by id. */
static int
listen_unix(const char *path, uid_t uid, gid_t gid, int chown_it)
{
	struct sockaddr_un	 sun;
	struct stat		 st;
	mode_t			 old;
	int			 fd, c, rc;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (*path == '\0' || strlen(path) >= sizeof(sun.sun_path))
		errx(2, "--listen unix:%s: empty or too long a path", path);
	memcpy(sun.sun_path, path, strlen(path));
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			errx(1, "--listen unix:%s: not a socket", path);
		if ((c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) != -1
		    && connect(c, (struct sockaddr *)&sun, sizeof(sun)) == 0)
			errx(1, "--listen unix:%s: in use", path);
		if (c != -1)
			close(c);
		if (unlink(path) == -1)
			err(1, "--listen unix:%s", path);
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		err(1, "socket");
	old = umask(0777 & ~SOCKET_MODE);
	rc = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
	umask(old);
	if (rc == -1)
		err(1, "--listen unix:%s: bind", path);
	if (chmod(path, SOCKET_MODE) == -1 ||
	    (chown_it && chown(path, uid, gid) == -1) ||
	    listen(fd, SOMAXCONN) == -1)
		err(1, "--listen unix:%s", path);
	return fd;
}

/*
 * May a socket on address `sa' serve?  Over TCP anyone who can reach
 * it could ask for checks, and learn which tokens pass; worse, nginx
 * and Apache trust its answer.  So, as wymcp-fcgi's rule says, a TCP
 * socket on an address other than loopback needs --allow-peer (or
 * FCGI_WEB_SERVER_ADDRS) or an explicit --allow-any-peer; a unix
 * socket's file mode decides instead.  Exits with a usage error when
 * refused.
 */
static void
check_listener(const struct opts *o, const struct sockaddr *sa,
    socklen_t len)
{
	char	 a[64];

	if (sa->sa_family == AF_UNIX) {
		if (o->npeers > 0)
			logline(WYMCP_LOG_INFO, "--allow-peer does not apply "
			    "to a unix socket: its file mode decides who "
			    "connects");
		return;
	}
	if ((sa->sa_family != AF_INET && sa->sa_family != AF_INET6) ||
	    o->npeers > 0 || prog_addr_loopback(sa, len))
		return;
	(void)prog_addr_str(sa, len, a, sizeof(a));
	if (o->any_peer) {
		logline(WYMCP_LOG_WARNING, "the FastCGI socket on %s accepts "
		    "anyone who can reach it (--allow-any-peer)", a);
		return;
	}
	errx(2, "the FastCGI socket on %s would accept anyone who can reach "
	    "it, whose checks nginx or Apache would trust: name the web "
	    "servers with --allow-peer ADDR[/BITS], or give "
	    "--allow-any-peer", a);
}

/* HOST:PORT or [IPV6]:PORT, checked before it is bound. */
static int
listen_tcp(const struct opts *o, const char *spec)
{
	struct addrinfo	 hints, *res, *ai;
	char		*copy, *host, *port, *p;
	int		 fd = -1, on = 1, gai;

	if ((host = copy = strdup(spec)) == NULL)
		err(1, NULL);
	if (*host == '[') {
		host++;
		if ((p = strchr(host, ']')) == NULL || p[1] != ':')
			errx(2, "--listen %s: expected [IPV6]:PORT", spec);
		*p = '\0';
		port = p + 2;
	} else if ((p = strrchr(host, ':')) == NULL ||
	    strchr(host, ':') != p)
		errx(2, "--listen %s: expected unix:PATH, HOST:PORT or "
		    "[IPV6]:PORT", spec);
	else {
		*p = '\0';
		port = p + 1;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	if ((gai = getaddrinfo(*host != '\0' ? host : NULL, port, &hints,
	    &res)) != 0)
		errx(1, "--listen %s: %s", spec, gai_strerror(gai));
	for (ai = res; ai != NULL; ai = ai->ai_next)
		check_listener(o, ai->ai_addr, ai->ai_addrlen);
	for (ai = res; ai != NULL && fd == -1; ai = ai->ai_next) {
		if ((fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
		    ai->ai_protocol)) == -1)
			continue;
		if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on,
		    sizeof(on)) == -1 || bind(fd, ai->ai_addr,
		    ai->ai_addrlen) == -1 || listen(fd, SOMAXCONN) == -1) {
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	free(copy);
	if (fd == -1)
		err(1, "--listen %s", spec);
	return fd;
}

/* The socket systemd (fd 3) or a spawner (fd 0) handed over. */
static int
inherited(void)
{
	const char	*pid = getenv("LISTEN_PID");
	const char	*fds = getenv("LISTEN_FDS");

	if (pid != NULL && fds != NULL &&
	    strtoll(pid, NULL, 10) == (long long)getpid()) {
		unsetenv("LISTEN_PID");
		unsetenv("LISTEN_FDS");
		unsetenv("LISTEN_FDNAMES");
		if (strcmp(fds, "1") != 0 || !listening(3))
			errx(1, "systemd passed LISTEN_FDS=%s: one listening "
			    "socket expected", fds);
		return 3;
	}
	if (listening(STDIN_FILENO))
		return STDIN_FILENO;
	errx(2, "no FastCGI socket: give --listen, or start under "
	    "systemd or spawn-fcgi");
}

/* --user/--group: resolve (as root only), then switch for good. */
static void
switch_user(const struct opts *o)
{
	struct passwd	*pw;
	struct group	*gr;
	gid_t		 gid;

	if (o->user == NULL)
		return;
	if ((pw = getpwnam(o->user)) == NULL)
		errx(1, "--user %s: no such user", o->user);
	gid = pw->pw_gid;
	if (o->group != NULL) {
		if ((gr = getgrnam(o->group)) == NULL)
			errx(1, "--group %s: no such group", o->group);
		gid = gr->gr_gid;
	}
	if (setgroups(1, &gid) == -1 || setgid(gid) == -1 ||
	    setuid(pw->pw_uid) == -1)
		err(1, "switching to %s", o->user);
	if (pw->pw_uid != 0 && setuid(0) != -1)
		errx(1, "could regain root after switching users");
	logline(WYMCP_LOG_INFO, "running as uid %lu, gid %lu",
	    (unsigned long)pw->pw_uid, (unsigned long)gid);
}

static void
onsig(int sig)
{
	if (sig == SIGHUP)
		got_hup = 1;
	else if (sig == SIGCHLD)
		got_chld = 1;
	else
		got_stop = sig;
}

/* Install onsig for each of the signals in set, no SA_RESTART. */
static void
handle(const sigset_t *set, const int *sigs)
{
	struct sigaction	 sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = onsig;
	sa.sa_mask = *set;
	for (; *sigs != 0; sigs++)
		if (sigaction(*sigs, &sa, NULL) == -1)
			err(1, "sigaction");
}

/* Write a whole response to the request's stdout. */
static void
reply(FCGX_Request *req, const struct authz_buf *b)
{
	static const char nomem[] = "Status: 500 Internal Server Error\r\n"
	    "Content-Length: 0\r\n\r\n";

	if (b->failed || b->data == NULL)
		FCGX_PutStr(nomem, (int)sizeof(nomem) - 1, req->out);
	else
		FCGX_PutStr(b->data, (int)b->len, req->out);
}

static volatile sig_atomic_t	 got_alarm;

static void
onalarm(int sig)
{
	(void)sig;
	got_alarm = 1;
}

/*
 * Arm the read deadline (ms > 0) or disarm it (0): SIGALRM in `ms',
 * then every ALARM_AGAIN_MS until disarmed, so that a read(2) or
 * write(2) of libfcgi that began just after one signal still ends.
 * SIGALRM is never blocked and its handler does not restart system
 * calls: libfcgi sees EINTR, gives the request up and closes it.
 */
static void
deadline(long ms)
{
	struct itimerval	 it;

	memset(&it, 0, sizeof(it));
	if (ms > 0) {
		it.it_value.tv_sec = ms / 1000;
		it.it_value.tv_usec = (ms % 1000) * 1000;
		it.it_interval.tv_usec = ALARM_AGAIN_MS * 1000;
	}
	got_alarm = 0;
	(void)setitimer(ITIMER_REAL, &it, NULL);
}

/*
 * Take a connection from `listenfd' (non-blocking) and check its peer
 * against --allow-peer before anything is read from it.  The new
 * descriptor (blocking, close-on-exec), or -1: none was ready, or the
 * peer is refused (closed; logged at most once a second).
 */
static int
take(const struct opts *o, int listenfd)
{
	static struct prog_refusals refusals;
	struct sockaddr_storage	 ss;
	struct timespec		 ts;
	socklen_t		 len = sizeof(ss);
	char			 line[160];
	int			 fd;

	if ((fd = accept4(listenfd, (struct sockaddr *)&ss, &len,
	    SOCK_CLOEXEC)) == -1) {
		if (errno != EAGAIN && errno != EWOULDBLOCK &&
		    errno != EINTR && errno != ECONNABORTED &&
		    errno != EPROTO) {
			logline(WYMCP_LOG_WARNING, "accept: %s",
			    strerror(errno));
			(void)poll(NULL, 0, 100);
		}
		return -1;
	}
	if (!prog_peer_allowed(o->peers, o->npeers,
	    (struct sockaddr *)&ss, len)) {
		(void)clock_gettime(CLOCK_MONOTONIC, &ts);
		if (prog_refused(&refusals, (long long)ts.tv_sec * 1000 +
		    ts.tv_nsec / 1000000, (struct sockaddr *)&ss, len, line,
		    sizeof(line)) != NULL)
			logline(WYMCP_LOG_WARNING, "%s", line);
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * A worker's signals: the stop signals and SIGHUP blocked but in
 * ppoll(2) (the mask to wait in, in `waitmask') and their handlers,
 * SIGPIPE ignored, SIGALRM the deadline's.
 */
static void
worker_signals(sigset_t *waitmask)
{
	static const int	 sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGUSR1,
				    0 };
	struct sigaction	 sa;
	sigset_t		 set;
	size_t			 i;

	sigemptyset(&set);
	for (i = 0; sigs[i] != 0; i++)
		sigaddset(&set, sigs[i]);
	sigprocmask(SIG_BLOCK, &set, waitmask);
	for (i = 0; sigs[i] != 0; i++)
		sigdelset(waitmask, sigs[i]);
	handle(&set, sigs);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sa.sa_handler = onalarm;	/* no SA_RESTART: see deadline() */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
}

/*
 * The request on the connection of `req': read within AUTHZ_READ_MS,
 * answered, written within as long; or the connection closed.
 */
static void
serve_one(struct authz *a, FCGX_Request *req)
{
	struct authz_buf	 out;
	int			 rc, late;

	deadline(AUTHZ_READ_MS);
	rc = FCGX_Accept_r(req);
	late = got_alarm;
	deadline(0);
	if (rc >= 0 && late) {
		/*
		 * libfcgi takes a read that the deadline cut short for the
		 * end of the params: never answered.
		 */
		FCGX_Free(req, 1);
		rc = -1;
	}
	if (rc < 0) {
		/* libfcgi closed it (and found no other). */
		logline(WYMCP_LOG_DEBUG, "a connection ended, or sent no "
		    "whole request within %d ms: closed", AUTHZ_READ_MS);
		return;
	}
	memset(&out, 0, sizeof(out));
	authz_answer(a, req->envp, time(NULL), &out);
	deadline(AUTHZ_READ_MS);
	reply(req, &out);
	FCGX_Finish_r(req);
	deadline(0);
	authz_buf_free(&out);
}

/*
 * A worker: accept and answer until a stop signal.  The stop signals
 * and SIGHUP are blocked except inside ppoll(2) (the listening socket
 * is non-blocking), so none interrupts a request; SIGHUP only marks
 * the key set stale, reloaded before the next check.
 *
 * The worker accepts each connection itself (take()) and hands it to
 * libfcgi as a kept one (libfcgi 2.4 reads the next request of a kept
 * connection instead of accepting; its own listening socket is -1), so
 * that a peer --allow-peer refuses is closed before a byte is read.
 * Reading the request's head, and writing the answer, each have
 * AUTHZ_READ_MS (deadline()): a connection that says nothing, or
 * dribbles, or does not read, is closed then, and --workers idle
 * connections no longer stop every check.  A connection the web
 * server keeps open (FCGI_KEEP_CONN) gets as long for its next request.
 */
static int
worker(struct opts *o, int listenfd)
{
	struct authz		*a = &o->a;
	FCGX_Request		 req;
	struct pollfd		 pfd;
	struct timespec		 idle;
	sigset_t		 waitmask;
	int			 rc, fd;

	if (FCGX_Init() != 0 || FCGX_InitRequest(&req, -1, 0) != 0) {
		logline(WYMCP_LOG_ERR, "libfcgi initialization failed");
		return 1;
	}
	worker_signals(&waitmask);
	idle.tv_sec = AUTHZ_READ_MS / 1000;
	idle.tv_nsec = (AUTHZ_READ_MS % 1000) * 1000000L;

	while (!got_stop) {
		if (got_hup) {
			got_hup = 0;
			a->keys.stale = 1;
			logline(WYMCP_LOG_INFO, "SIGHUP: the keys will be "
			    "reloaded");
		}
		pfd.fd = req.ipcFd >= 0 ? req.ipcFd : listenfd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		rc = ppoll(&pfd, 1, req.ipcFd >= 0 ? &idle : NULL, &waitmask);
		if (rc == -1 && errno != EINTR) {
			logline(WYMCP_LOG_ERR, "ppoll: %s", strerror(errno));
			return 1;
		}
		if (rc == 0) {
			/* A kept connection said nothing more: closed. */
			FCGX_Free(&req, 1);
			continue;
		}
		if (rc == -1)
			continue;
		if (req.ipcFd < 0) {
			if ((fd = take(o, listenfd)) == -1)
				continue;
			req.ipcFd = fd;
			req.keepConnection = 1;
		}
		serve_one(a, &req);
	}
	if (req.ipcFd >= 0)
		FCGX_Free(&req, 1);
	return 0;
}

/* Start one worker; its pid, or -1. */
static pid_t
spawn(struct opts *o, int listenfd, const sigset_t *oldmask)
{
	pid_t	 pid;

	if ((pid = fork()) == -1) {
		logline(WYMCP_LOG_ERR, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, oldmask, NULL);
		signal(SIGCHLD, SIG_DFL);
		_exit(worker(o, listenfd));
	}
	return pid;
}

/*
 * The supervisor: keep `n' workers, replace one that dies (at most
 * one a second), forward SIGHUP, and on SIGTERM/SIGINT stop them all
 * (SIGKILL after STOP_WAIT_S).  Returns the exit status.
 */
static int
supervise(struct opts *o, int listenfd, size_t n)
{
	static const int	 sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGCHLD,
				    0 };
	struct timespec		 second = { 1, 0 };
	sigset_t		 set, old;
	pid_t			*pids, pid;
	size_t			 i, live;
	time_t			 deadline;
	int			 st;

	if ((pids = calloc(n, sizeof(*pids))) == NULL)
		err(1, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &old);
	handle(&set, sigs);
	for (i = 0; i < n; i++)
		pids[i] = spawn(o, listenfd, &old);
	logline(WYMCP_LOG_INFO, "%zu workers started", n);
	while (!got_stop) {
		sigsuspend(&old);
		if (got_hup) {
			got_hup = 0;
			logline(WYMCP_LOG_INFO, "SIGHUP: workers reload the "
			    "keys");
			for (i = 0; i < n; i++)
				if (pids[i] > 0)
					kill(pids[i], SIGHUP);
		}
		if (!got_chld)
			continue;
		got_chld = 0;
		while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
			for (i = 0; i < n; i++)
				if (pids[i] == pid) {
					logline(WYMCP_LOG_WARNING, "worker %ld "
					    "ended (status %d)", (long)pid,
					    st);
					pids[i] = -1;
				}
		if (got_stop)
			break;
		for (i = 0; i < n; i++)
			if (pids[i] <= 0) {
				/* A crash loop must not spin. */
				(void)ppoll(NULL, 0, &second, &old);
				if (!got_stop)
					pids[i] = spawn(o, listenfd, &old);
			}
	}
	for (i = 0; i < n; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGTERM);
	deadline = time(NULL) + STOP_WAIT_S;
	for (;;) {
		while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
			for (i = 0; i < n; i++)
				if (pids[i] == pid)
					pids[i] = -1;
		for (live = 0, i = 0; i < n; i++)
			live += pids[i] > 0;
		if (live == 0)
			break;
		if (time(NULL) >= deadline) {
			for (i = 0; i < n; i++)
				if (pids[i] > 0)
					kill(pids[i], SIGKILL);
		}
		(void)poll(NULL, 0, 50);
	}
	free(pids);
	logline(WYMCP_LOG_INFO, "stopped");
	return 0;
}

/* What parse() and the key set allocated, released before exit. */
static void
release(struct opts *o)
{
	size_t	 i;

	authz_keyset_clear(&o->a.keys);
	free(o->a.keys.srcs);
	free(o->peers);
	authz_introspect_clear(&o->a.intro);
	if (o->a.intro.secret != NULL) {
		sodium_memzero(o->a.intro.secret, strlen(o->a.intro.secret));
		free(o->a.intro.secret);
	}
	for (i = 0; i < o->a.conf.nassigns; i++)
		free((char *)o->a.conf.assigns[i].claim);
	free(o->a.conf.assigns);
	free(o->a.conf.issuers);
	free(o->a.conf.scopes);
	free(o->metadata);
	curl_global_cleanup();
}

/*
 * A --jwks-file vouches for every token it verifies: refuse one that a
 * user other than root, this process's and --user could change, or
 * rename (prog_trusted()), unless --allow-insecure-files.  A missing
 * file is the loader's to report.
 */
static void
file_trusted(const struct opts *o, const char *path)
{
	struct passwd	*pw;
	char		 real[PATH_MAX], why[PATH_MAX + 128];
	uid_t		 user = (uid_t)-1;

	if (o->user != NULL && (pw = getpwnam(o->user)) != NULL)
		user = pw->pw_uid;
	if (prog_trusted(path, user, NULL, real, sizeof(real), why,
	    sizeof(why)) != -1)
		return;
	if (!o->insecure_files)
		errx(1, "--jwks-file %s: refused: %s (--allow-insecure-files "
		    "uses it anyway, for a development tree)", path, why);
	logline(WYMCP_LOG_WARNING, "--jwks-file %s: %s: used anyway "
	    "(--allow-insecure-files)", path, why);
}

int
main(int argc, char *argv[])
{
	struct opts		 o;
	struct authz_source	*src;
	struct sockaddr_storage	 ss;
	socklen_t		 len;
	char			 why[512];
	size_t			 i;
	int			 fd, flags, rc;

	memset(&o, 0, sizeof(o));
	o.a.log = logline;
	parse(argc, argv, &o);
	if (sodium_init() < 0)
		errx(1, "libsodium initialization failed");
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0)
		errx(1, "libcurl initialization failed");
	if (o.user != NULL && geteuid() != 0)
		errx(1, "--user %s: only root can switch users", o.user);

	if (o.secret_file != NULL)
		o.a.intro.secret = read_secret(o.secret_file);

	/* The keys: a bad file is fatal, an unreachable URL is not. */
	for (i = 0; i < o.a.keys.nsrcs; i++) {
		src = &o.a.keys.srcs[i];
		if (src->file != NULL)
			file_trusted(&o, src->file);
		if (authz_source_load(src, time(NULL), why, sizeof(why)) == 0)
			logline(WYMCP_LOG_INFO, "%s: %zu verification keys "
			    "for %s", src->file != NULL ? src->file : src->url,
			    src->nkeys, src->issuer);
		else if (src->file != NULL)
			errx(1, "%s", why);
		else {
			logline(WYMCP_LOG_WARNING, "%s: %s's tokens are "
			    "refused until its keys load (retried at most "
			    "once a minute)", why, src->issuer);
			src->loaded = 0;
		}
	}

	if (o.listen == NULL)
		fd = inherited();
	else if (strncmp(o.listen, "unix:", 5) == 0) {
		struct passwd	*pw = NULL;
		struct group	*gr = NULL;

		if (o.user != NULL && (pw = getpwnam(o.user)) == NULL)
			errx(1, "--user %s: no such user", o.user);
		if (o.group != NULL && (gr = getgrnam(o.group)) == NULL)
			errx(1, "--group %s: no such group", o.group);
		fd = listen_unix(o.listen + 5, pw != NULL ? pw->pw_uid : 0,
		    gr != NULL ? gr->gr_gid : pw != NULL ? pw->pw_gid : 0,
		    pw != NULL);
	} else
		fd = listen_tcp(&o, o.listen);
	/* Whatever it is (systemd's, a spawner's): by the same rule. */
	len = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &len) == -1)
		err(1, "getsockname");
	check_listener(&o, (struct sockaddr *)&ss, len);
	/* Workers race for connections: accept(2) must never block. */
	if ((flags = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, flags | O_NONBLOCK) == -1)
		err(1, "fcntl");
	switch_user(&o);
	logline(WYMCP_LOG_INFO, "serving %s for %zu issuer(s)",
	    o.a.conf.audience, o.a.conf.nissuers);
	rc = o.workers == 0 ? worker(&o, fd) :
	    supervise(&o, fd, (size_t)o.workers);
	release(&o);
	return rc;
}
