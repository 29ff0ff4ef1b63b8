/*
 * options.c - wymcp-fcgi's options, in one table
 *
 * Each option is one entry of front_optdefs[] (the model is redis's
 * standardConfig in config.c): its name, kind, bounds, default, the
 * member of struct front_opts it lands in, whether a SIGHUP reload may
 * change it, and its --help text.  The command line's parser, the
 * defaults, the bounds' errors, --help, the names a --config file may
 * use (config.c, through front_longopts()) and a reload (which keeps
 * the running value of a restart-only option) all read the table; an
 * option is added with one entry here and its paragraph in
 * wymcp-fcgi(8), and t/docs checks that each has the other.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>

#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front.h"

#define NOPTS_MAX	128		/* entries of front_optdefs[] */
#define HELP_COL	25		/* column of the help texts */
#define SYN_COLS	72		/* width of the synopsis */

static void	 opt_workers(const struct front_optdef *, const char *,
		    struct front_opts *);
static void	 opt_max_requests(const struct front_optdef *, const char *,
		    struct front_opts *);
static void	 opt_status_path(const struct front_optdef *, const char *,
		    struct front_opts *);
static void	 opt_relay_listen(const struct front_optdef *, const char *,
		    struct front_opts *);
static void	 opt_bus(const struct front_optdef *, const char *,
		    struct front_opts *);
static void	 opt_rate_limit(const struct front_optdef *, const char *,
		    struct front_opts *);
static void	 opt_help(const struct front_optdef *, const char *,
		    struct front_opts *);
static void	 opt_version(const struct front_optdef *, const char *,
		    struct front_opts *);

#define OFF(f)	offsetof(struct front_opts, f)
#define R	FRONT_OPT_RESTART

/* A number from `lo' to `hi' in member `f' of type `t'. */
#define NUM(n, f, t, lo, hi, d, fl, a, h)				\
	.name = (n), .kind = FRONT_OPT_NUM, .type = FRONT_T_##t,	\
	.off = OFF(f), .min = (lo), .max = (hi), .def = (d),		\
	.flags = (fl), .arg = (a), .help = (h)
/* A size in bytes: 0, or from `lo' to `hi'. */
#define SIZE(n, f, t, lo, hi, d, fl, a, h)				\
	.name = (n), .kind = FRONT_OPT_SIZE, .type = FRONT_T_##t,	\
	.off = OFF(f), .min = (long long)(lo), .max = (long long)(hi),	\
	.def = (d), .flags = (fl), .arg = (a), .help = (h)
/* A string; the last one given counts. */
#define STR(n, f, fl, a, h)						\
	.name = (n), .kind = FRONT_OPT_STR, .type = FRONT_T_STR,	\
	.off = OFF(f), .flags = (fl), .arg = (a), .help = (h)
/* Strings, repeatable, kept in order, their count in `c'. */
#define LIST(n, f, c, fl, a, h)						\
	.name = (n), .kind = FRONT_OPT_LIST, .type = FRONT_T_STRV,	\
	.off = OFF(f), .off2 = OFF(c), .flags = (fl), .arg = (a),	\
	.help = (h)
/* ADDR[/BITS] peers, repeatable. */
#define PEERS(n, f, c, fl, h)						\
	.name = (n), .kind = FRONT_OPT_PEERS, .type = FRONT_T_PEERS,	\
	.off = OFF(f), .off2 = OFF(c), .flags = (fl),			\
	.arg = "ADDR[/BITS]", .help = (h)
/* A flag: the int `f' becomes 1. */
#define FLAG(n, f, fl, h)						\
	.name = (n), .kind = FRONT_OPT_FLAG, .type = FRONT_T_INT,	\
	.off = OFF(f), .flags = (fl), .help = (h)

/*
 * The options, in the order of --help.  A restart-only option (R) keeps
 * its running value at a SIGHUP reload, which logs that it changed.
 */
const struct front_optdef front_optdefs[] = {
	{ STR("listen", listen, R, "ADDR",
	    "create the FastCGI socket (default: the\n"
	    "socket on fd 0 or from systemd;\n"
	    "plain CGI when there is none)"),
	    .syn = "[--listen unix:PATH | HOST:PORT | [IPV6]:PORT]" },
	{ NUM("workers", workers, INT, 0, FRONT_MAX_WORKERS, 1, R,
	    "N|MIN:MAX",
	    "worker processes, 0 to %X (default %D;\n"
	    "0 serves in this process; MIN:MAX\n"
	    "grows on demand, shrinks when idle)"),
	    .off2 = OFF(workers_max), .parse = opt_workers,
	    .syn = "[--workers N | MIN:MAX]" },
	{ NUM("idle-timeout", idle_timeout, UINT, 1, 86400,
	    FRONT_IDLE_DEFAULT, R, "S",
	    "with MIN:MAX, retire a worker idle S\n"
	    "seconds (default %D)") },
	{ LIST("module", modules, nmodules, 0, "PATH",
	    "load a tool module (repeatable;\n"
	    "default: help.so echo.so from\n"
	    WYMCP_MODULEDIR ")") },
	{ STR("config", config, 0, "FILE",
	    "long options from FILE, one a line\n"
	    "(before the command line's; reread\n"
	    "at SIGHUP)") },
	{ STR("state-key-file", keyfile, 0, "PATH",
	    "requestState key file (mode 0600)") },
	{ STR("skills-dir", skills_dir, 0, "DIR",
	    "serve the skills of DIR (DIR/NAME/\n"
	    "SKILL.md; the skills extension)") },
	{ LIST("exec-dir", exec_dirs, nexec_dirs, 0, "DIR",
	    "serve each DIR/NAME.json manifest's\n"
	    "program as the tool NAME (repeatable;\n"
	    "wymcp-exec(5))") },
	{ STR("exec-user", exec_user, 0, "USER",
	    "as root, run exec tools as USER\n"
	    "(default: nobody; never root)") },
	{ FLAG("allow-insecure-files", insecure_files, 0,
	    "use modules and a key file that\n"
	    "another user could change (unsafe)") },
	{ STR("generate-key", genkey, FRONT_OPT_MODE, "PATH",
	    "write a new key (first) into PATH, exit") },
	{ NUM("max-body", max_body, SIZE, 1, FRONT_MAX_BODY,
	    WYMCP_MAX_BODY_DEFAULT, 0, "BYTES",
	    "largest request body (default %D)") },
	{ LIST("allow-origin", origins, norigins, 0, "ORIGIN",
	    "allow an Origin or host (repeatable)") },
	{ STR("user", user, R, "USER",
	    "run as USER after startup (root only)") },
	{ STR("group", group, R, "GROUP",
	    "run with GROUP (default: USER's group)") },
	{ FLAG("modern-only", modern_only, 0,
	    "serve MCP 2026-07-28 clients only (no\n"
	    "2025-11-25 initialize handshake)") },
	{ NUM("request-timeout", timeout, UINT, 0, FRONT_TIMEOUT_MAX,
	    FRONT_TIMEOUT_DEFAULT, 0, "S",
	    "time limit of a request (default %D;\n"
	    "0: none; WYMCP_REQUEST_TIMEOUT lowers\n"
	    "it)") },
	{ NUM("max-requests", max_requests, ULONG, 0, LONG_MAX,
	    FRONT_MAX_REQUESTS_DEFAULT, R, "N",
	    "replace a worker after N requests\n"
	    "(default %D; 0: never)"),
	    .parse = opt_max_requests },
	{ SIZE("memory-limit", memory, SIZE, FRONT_MEMORY_MIN, SIZE_MAX / 2,
	    0, R, "BYTES",
	    "address space of each process\n"
	    "(RLIMIT_AS; K, M, G suffixes; default:\n"
	    "none)") },
	{ NUM("drain-timeout", drain, UINT, 0, 3600, FRONT_DRAIN_DEFAULT, R,
	    "S",
	    "on stop, kill a worker still busy after\n"
	    "S seconds (default %D)") },
	{ STR("status-path", status_path, R, "PATH",
	    "answer the status page at PATH (JSON;\n"
	    "?format=prometheus: Prometheus text)"),
	    .parse = opt_status_path },
	{ PEERS("status-allow", status_peers, nstatus_peers, R,
	    "clients that may read it (repeatable;\n"
	    "default: loopback only)") },
	{ NUM("slow-log-ms", slow_ms, UINT, 0, 3600000, 0, R, "MS",
	    "log requests slower than MS (0: off)") },
	{ STR("audit-log", audit_log, R, "PATH|syslog|stderr",
	    "one JSON line per request (SIGUSR1\n"
	    "reopens PATH)") },
	{ STR("otlp-endpoint", otlp_endpoint, R, "URL",
	    "a span per request to this OTLP/HTTP\n"
	    "collector (http://HOST:PORT[/PATH])") },
	{ NUM("otlp-metrics-interval", otlp_metrics_s, UINT, 0, 86400, 60, R,
	    "S", "post mcp.server.operation.duration there\n"
	    "every S seconds and at exit (0: never)") },
	{ FLAG("audit-headers", audit_headers, 0,
	    "the same facts as Wymcp-* response\n"
	    "headers, for the web server's log") },
	{ LIST("rate-limit", rate_limits, nrate_limits, R,
	    "TOOL=N/s|min|h[,burst=B]",
	    "calls of TOOL (* for any) a principal\n"
	    "may make (repeatable; per instance)"),
	    .parse = opt_rate_limit },
	{ PEERS("allow-peer", peers, npeers, R,
	    "accept FastCGI connections from these\n"
	    "addresses only (repeatable)") },
	{ FLAG("allow-any-peer", any_peer, R,
	    "let a TCP socket on a non-loopback\n"
	    "address accept anyone") },
	{ NUM("ask-timeout", ask_timeout, UINT, 1, FRONT_TIMEOUT_MAX,
	    WYMCP_ASK_TIMEOUT_DEFAULT, R, "S",
	    "how long a 2025-11-25 client's question\n"
	    "holds a worker (default %D)") },
	{ NUM("max-asking", max_asking, INT, 0, FRONT_MAX_WORKERS, -1, R,
	    "N",
	    "workers held by questions at once\n"
	    "(default: half the workers; 0: none)") },
	{ NUM("max-asking-per-principal", max_asking_per, INT, 1,
	    FRONT_MAX_WORKERS, -1, R, "N",
	    "of them one principal may hold\n"
	    "(default: half --max-asking, >= 1)") },
	{ STR("relay-listen", relay_listen, R, "ADDR",
	    "take answers for this instance's\n"
	    "questions from other hosts here\n"
	    "(with --allow-peer naming them)"),
	    .parse = opt_relay_listen, .syn = "[--relay-listen HOST:PORT]" },
	{ STR("task-store", task_store, R, "URI",
	    "keep tasks (the tasks extension) in\n"
	    "sqlite:PATH or postgresql://...\n"
	    "(back ends: " WYMCP_BACKENDDIR ")") },
	{ NUM("task-runners", runners, INT, 0, FRONT_MAX_WORKERS, 0, R, "N",
	    "task runner processes (default %D)") },
	{ NUM("task-ttl", task_ttl, UINT, 0, 365 * 86400,
	    FRONT_TASK_TTL_DEFAULT, 0, "S",
	    "ttlMs of new tasks (default %D; 0:\n"
	    "unlimited)") },
	{ NUM("task-lease", task_lease, UINT, 1, 86400,
	    FRONT_TASK_LEASE_DEFAULT, 0, "S",
	    "a runner's claim on a task lasts S\n"
	    "seconds, renewed (default %D)") },
	{ NUM("task-quota", task_quota, LLONG, 0, 1000000000,
	    WYMCP_TASK_QUOTA_DEFAULT, 0, "N",
	    "unfinished tasks of one principal\n"
	    "(default %D; 0: no limit)") },
	{ SIZE("task-quota-bytes", task_quota_bytes, LLONG, 1024,
	    LLONG_MAX / 2, WYMCP_TASK_QUOTA_BYTES_DEFAULT, 0, "BYTES",
	    "bytes one principal's tasks hold\n"
	    "(default %MM; 0: no limit)") },
	{ SIZE("task-store-max-bytes", task_store_max, LLONG, 1024,
	    LLONG_MAX / 2, WYMCP_TASK_STORE_MAX_BYTES_DEFAULT, 0, "BYTES",
	    "bytes every principal's tasks hold\n"
	    "(default %MM; 0: no limit)") },
	{ NUM("max-listeners", max_listeners, INT, 0, FRONT_LISTENERS_MAX,
	    FRONT_LISTENERS_DEFAULT, R, "N",
	    "listen streams the hub holds (default\n"
	    "%D; 0: none)") },
	{ NUM("max-listeners-per-principal", per_principal, INT, 1,
	    FRONT_LISTENERS_MAX, -1, R, "N",
	    "... for one principal (default: a\n"
	    "quarter of --max-listeners)") },
	{ NUM("listen-max-age", listen_age, UINT, 0, 30 * 86400,
	    FRONT_LISTEN_AGE_DEFAULT, R, "S",
	    "end a listen stream after S seconds,\n"
	    "less up to 10% (default %D; 0: never)") },
	{ STR("bus", bus, R, "URI",
	    "share events with every instance on\n"
	    "this PostgreSQL (default: the task\n"
	    "store's, when it is one; none: off)"),
	    .parse = opt_bus, .syn = "[--bus postgresql://... | none]" },
	{ STR("publish", publish, FRONT_OPT_MODE, "EVENT",
	    "tell listeners 'updated URI' or 'list\n"
	    "tools,prompts,resources' through the\n"
	    "bus, or the hub of --listen's instance"),
	    .syn = "--publish EVENT [--bus URI | --listen unix:PATH]" },
	{ STR("server-name", info.name, 0, "NAME",
	    "the serverInfo's name (default: wymcp,\n"
	    "or a module's)") },
	{ STR("server-title", info.title, 0, "TEXT",
	    "... title") },
	{ STR("server-description", info.description, 0, "TEXT",
	    "... description") },
	{ STR("server-version", info.version, 0, "V",
	    "... version (default: " WYMCP_VERSION ")") },
	{ STR("server-website", info.website_url, 0, "URL",
	    "... websiteUrl (http: or https:)") },
	{ STR("server-icons", info.icons, 0, "JSON",
	    "... icons: an array of Icon objects") },
	{ STR("instructions", info.instructions, 0, "TEXT",
	    "guidance for the model (discover,\n"
	    "initialize; default: the modules')"),
	    .syn = "[--instructions TEXT | --instructions-file PATH]" },
	{ STR("instructions-file", instructions_file, 0, "PATH",
	    "... read from PATH (at each reload)"),
	    .syn = "" },
	/* Discovery outside MCP (experimental). */
	{ STR("public-url", public_url, 0, "URL",
	    "the endpoint's URL as clients reach it\n"
	    "(experimental: the server card at\n"
	    "<endpoint>/server-card names it)") },
	{ LIST("public-header", public_headers, npublic_headers, 0, "NAME",
	    "a header clients must send there\n"
	    "(repeatable; e.g. Authorization)") },
	{ FLAG("print-server-json", print_json, FRONT_OPT_MODE,
	    "print the MCP Registry's server.json\n"
	    "for --public-url, exit (experimental)"),
	    .syn = "--print-server-json --public-url URL [...]" },
	{ STR("call", call, FRONT_OPT_MODE, "TOOL",
	    "call TOOL from the shell, print each\n"
	    "round, exit (0 done, 1 tool error,\n"
	    "3 needs an answer, 4 refused)"),
	    .syn = "--call TOOL [--args JSON] [--answer JSON]... [...]" },
	{ STR("args", call_args, 0, "JSON",
	    "--call's arguments (default {})"), .syn = "" },
	{ LIST("answer", answers, nanswers, 0, "JSON",
	    "--call's next answer, an elicitation\n"
	    "result (repeatable, in order)"), .syn = "" },
	{ .name = "verbose", .letter = 'v', .kind = FRONT_OPT_COUNT,
	    .type = FRONT_T_INT, .off = OFF(verbose), .flags = R,
	    .help = "log info; twice: debug" },
	{ .name = "help", .letter = 'h', .kind = FRONT_OPT_ACTION,
	    .parse = opt_help, .help = "print this help and exit" },
	{ .name = "version", .letter = 'V', .kind = FRONT_OPT_ACTION,
	    .parse = opt_version, .help = "print the version and exit" },
	{ .name = NULL }
};

#undef NUM
#undef SIZE
#undef STR
#undef LIST
#undef PEERS
#undef FLAG
#undef R

/* The number of entries, counted once. */
static size_t
nopts(void)
{
	static size_t	 n;

	if (n == 0)
		while (front_optdefs[n].name != NULL)
			n++;
	return n;
}

/* The entry getopt_long() returned `c' for, or NULL. */
static const struct front_optdef *
by_val(int c)
{
	const struct front_optdef	*d;

	if (c >= 256 && (size_t)(c - 256) < nopts())
		return &front_optdefs[c - 256];
	for (d = front_optdefs; d->name != NULL; d++)
		if (d->letter != 0 && d->letter == c)
			return d;
	return NULL;
}

/*
 * The table as getopt_long(3) reads it (an entry's value: its letter,
 * else 256 plus its index), and the short options in `shortp'.  Made
 * once.
 */
static const struct option *
longopts(const char **shortp)
{
	static struct option	 lo[NOPTS_MAX + 1];
	static char		 shorts[16] = ":";
	const struct front_optdef *d;
	size_t			 i, k = 1;

	if (lo[0].name == NULL) {
		if (nopts() > NOPTS_MAX)
			errx(1, "options.c: more than %d options", NOPTS_MAX);
		for (i = 0; i < nopts(); i++) {
			d = &front_optdefs[i];
			lo[i].name = d->name;
			lo[i].has_arg = d->kind == FRONT_OPT_FLAG ||
			    d->kind == FRONT_OPT_COUNT ||
			    d->kind == FRONT_OPT_ACTION ? no_argument :
			    required_argument;
			lo[i].val = d->letter != 0 ? d->letter : 256 + (int)i;
			if (d->letter != 0 && k < sizeof(shorts) - 1)
				shorts[k++] = (char)d->letter;
		}
	}
	if (shortp != NULL)
		*shortp = shorts;
	return lo;
}

const struct option *
front_longopts(void)
{
	return longopts(NULL);
}

/* The member at `off' of `o'. */
static void *
member(struct front_opts *o, size_t off)
{
	return (char *)o + off;
}

static const void *
cmember(const struct front_opts *o, size_t off)
{
	return (const char *)o + off;
}

/* Store the number `v' in the member at `off', of type `t'. */
static void
set_num(struct front_opts *o, enum front_opttype t, size_t off,
    long long v)
{
	int		 i = (int)v;
	unsigned int	 u = (unsigned int)v;
	unsigned long	 ul = (unsigned long)v;
	size_t		 z = (size_t)v;

	switch (t) {
	case FRONT_T_INT:
		memcpy(member(o, off), &i, sizeof(i));
		break;
	case FRONT_T_UINT:
		memcpy(member(o, off), &u, sizeof(u));
		break;
	case FRONT_T_ULONG:
		memcpy(member(o, off), &ul, sizeof(ul));
		break;
	case FRONT_T_LLONG:
		memcpy(member(o, off), &v, sizeof(v));
		break;
	case FRONT_T_SIZE:
		memcpy(member(o, off), &z, sizeof(z));
		break;
	default:
		abort();
	}
}

/* The number in the member at `off', of type `t'. */
static long long
get_num(const struct front_opts *o, enum front_opttype t, size_t off)
{
	int		 i;
	unsigned int	 u;
	unsigned long	 ul;
	long long	 v;
	size_t		 z;

	switch (t) {
	case FRONT_T_INT:
		memcpy(&i, cmember(o, off), sizeof(i));
		return i;
	case FRONT_T_UINT:
		memcpy(&u, cmember(o, off), sizeof(u));
		return u;
	case FRONT_T_ULONG:
		memcpy(&ul, cmember(o, off), sizeof(ul));
		return (long long)ul;
	case FRONT_T_LLONG:
		memcpy(&v, cmember(o, off), sizeof(v));
		return v;
	case FRONT_T_SIZE:
		memcpy(&z, cmember(o, off), sizeof(z));
		return (long long)z;
	default:
		abort();
	}
}

/*
 * Parse a decimal number in [min, max] given to option `opt', or exit
 * with a usage error.
 */
static long long
parse_num(const char *opt, const char *s, long long min, long long max)
{
	char		*end;
	long long	 v;

	if (!isdigit((unsigned char)s[0]))
		errx(2, "--%s: %s: not a number", opt, s);
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end != '\0')
		errx(2, "--%s: %s: not a number", opt, s);
	if (errno == ERANGE || v < min || v > max)
		errx(2, "--%s: %s: must be from %lld to %lld",
		    opt, s, min, max);
	return v;
}

/*
 * A size in bytes with an optional K, M or G suffix (powers of 1024)
 * for option `opt': 0, or from `min' to `max'.  Exits on bad usage.
 */
static size_t
parse_size(const char *opt, const char *s, unsigned long long min,
    unsigned long long max)
{
	unsigned long long	 v, mul = 1;
	char			*end;

	if (!isdigit((unsigned char)s[0]))
		errx(2, "--%s: %s: not a number of bytes", opt, s);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end == 'K' || *end == 'k')
		mul = 1024;
	else if (*end == 'M' || *end == 'm')
		mul = 1024 * 1024;
	else if (*end == 'G' || *end == 'g')
		mul = 1024 * 1024 * 1024;
	if (mul != 1)
		end++;
	if (*end != '\0')
		errx(2, "--%s: %s: not a number of bytes", opt, s);
	if (errno == ERANGE || v > max / mul || (v != 0 && v * mul < min))
		errx(2, "--%s: %s: must be 0 or from %llu to %llu bytes",
		    opt, s, min, max);
	return (size_t)(v * mul);
}

/* Append `s' to the list of entry `d' in `o', or exit. */
static void
push(const struct front_optdef *d, struct front_opts *o, const char *s)
{
	const char	**p, **v;
	size_t		 n;

	memcpy(&v, member(o, d->off), sizeof(v));
	memcpy(&n, member(o, d->off2), sizeof(n));
	if ((p = reallocarray(v, n + 1, sizeof(*p))) == NULL)
		err(1, NULL);
	p[n++] = s;
	memcpy(member(o, d->off), &p, sizeof(p));
	memcpy(member(o, d->off2), &n, sizeof(n));
}

/* Append the ADDR[/BITS] `s' to the peers of `d' in `o', or exit. */
static void
push_peer(const struct front_optdef *d, struct front_opts *o,
    const char *s)
{
	struct prog_peer	*v;
	size_t			 n;
	char			 ebuf[256];

	memcpy(&v, member(o, d->off), sizeof(v));
	memcpy(&n, member(o, d->off2), sizeof(n));
	if (prog_peers_add(&v, &n, s, ebuf, sizeof(ebuf)) == -1)
		errx(2, "--%s: %s", d->name, ebuf);
	memcpy(member(o, d->off), &v, sizeof(v));
	memcpy(member(o, d->off2), &n, sizeof(n));
}

/* Store the string `s' in the member of `d'. */
static void
set_str(const struct front_optdef *d, struct front_opts *o, const char *s)
{
	memcpy(member(o, d->off), &s, sizeof(s));
}

/* Option `d' given with `arg' (NULL: none) to `o'. */
static void
apply(const struct front_optdef *d, const char *arg, struct front_opts *o)
{
	if (d->parse != NULL) {
		d->parse(d, arg, o);
		return;
	}
	switch (d->kind) {
	case FRONT_OPT_FLAG:
		set_num(o, d->type, d->off, 1);
		break;
	case FRONT_OPT_COUNT:
		set_num(o, d->type, d->off, get_num(o, d->type, d->off) + 1);
		break;
	case FRONT_OPT_NUM:
		set_num(o, d->type, d->off, parse_num(d->name, arg, d->min,
		    d->max));
		break;
	case FRONT_OPT_SIZE:
		set_num(o, d->type, d->off, (long long)parse_size(d->name, arg,
		    (unsigned long long)d->min, (unsigned long long)d->max));
		break;
	case FRONT_OPT_STR:
		set_str(d, o, arg);
		break;
	case FRONT_OPT_LIST:
		push(d, o, arg);
		break;
	case FRONT_OPT_PEERS:
		push_peer(d, o, arg);
		break;
	case FRONT_OPT_ACTION:
		abort();
	}
}

/*
 * --workers N (a fixed pool; 0: no supervisor) or MIN:MAX (a pool that
 * grows on demand up to MAX and shrinks back to MIN when idle), or exit
 * with a usage error.
 */
static void
opt_workers(const struct front_optdef *d, const char *s,
    struct front_opts *o)
{
	const char	*colon = strchr(s, ':');
	char		 min[32];

	if (colon == NULL) {
		o->workers = o->workers_max = (int)parse_num(d->name, s, 0,
		    d->max);
		return;
	}
	if ((size_t)(colon - s) >= sizeof(min))
		errx(2, "--workers %s: MIN:MAX, %lld at most", s, d->max);
	memcpy(min, s, (size_t)(colon - s));
	min[colon - s] = '\0';
	o->workers = (int)parse_num(d->name, min, 1, d->max);
	o->workers_max = (int)parse_num(d->name, colon + 1, o->workers,
	    d->max);
}

/* --max-requests N, and that it was given (0 then counts, too). */
static void
opt_max_requests(const struct front_optdef *d, const char *s,
    struct front_opts *o)
{
	o->max_requests = (unsigned long)parse_num(d->name, s, d->min,
	    d->max);
	o->max_requests_set = 1;
}

static void
opt_status_path(const struct front_optdef *d, const char *s,
    struct front_opts *o)
{
	if (*s != '/')
		errx(2, "--status-path %s: a path, starting with /", s);
	o->status_path = s;
}

static void
opt_relay_listen(const struct front_optdef *d, const char *s,
    struct front_opts *o)
{
	if (strncmp(s, "unix:", 5) == 0 || strlen(s) > FRONT_RELAY_ADDR_MAX)
		errx(2, "--relay-listen %s: expected HOST:PORT or "
		    "[IPV6]:PORT", s);
	o->relay_listen = s;
}

static void
opt_bus(const struct front_optdef *d, const char *s, struct front_opts *o)
{
	if (strcmp(s, "none") != 0 && strncmp(s, "postgresql://", 13) != 0 &&
	    strncmp(s, "postgres://", 11) != 0)
		errx(2, "--bus: neither postgresql://... nor none");
	o->bus = s;
}

/* --rate-limit TOOL=RATE (wymcp_rate_parse()), or exit. */
static void
opt_rate_limit(const struct front_optdef *d, const char *s,
    struct front_opts *o)
{
	struct wymcp_rate	 r;
	const char		*eq = strchr(s, '=');

	if (eq == NULL || eq == s || wymcp_rate_parse(eq + 1, &r) != 0)
		errx(2, "--rate-limit %s: not TOOL=N/UNIT[,burst=B] (UNIT s, "
		    "min or h; TOOL * for any tool)", s);
	push(d, o, s);
}

/*
 * One item of the synopsis, `d' as "[--name ARG]" (and "..." when it
 * repeats), or its own `syn', in `buf'.
 */
static const char *
syn_item(const struct front_optdef *d, char *buf, size_t len)
{
	if (d->syn != NULL)
		return d->syn;
	snprintf(buf, len, "%s--%s%s%s%s%s", d->flags & FRONT_OPT_MODE ?
	    "" : "[", d->name, d->arg != NULL ? " " : "",
	    d->arg != NULL ? d->arg : "", d->flags & FRONT_OPT_MODE ? "" :
	    "]", d->kind == FRONT_OPT_LIST || d->kind == FRONT_OPT_PEERS ?
	    "..." : "");
	return buf;
}

/* Whether short option `a' sorts before `b' ("hVv"). */
static int
letter_before(int a, int b)
{
	if (tolower(a) != tolower(b))
		return tolower(a) < tolower(b);
	return isupper(a) && !isupper(b);
}

/*
 * The synopsis: the short options, every option but the modes, in the
 * table's order, wrapped; then a line for each mode.
 */
static void
synopsis(FILE *f)
{
	const struct front_optdef *d;
	char		 letters[16], buf[128];
	const char	*item;
	size_t		 n = 0, i, col;
	int		 c;

	for (d = front_optdefs; d->name != NULL; d++) {
		if (d->letter == 0 || n >= sizeof(letters) - 1)
			continue;
		for (i = n++; i > 0 && letter_before(d->letter,
		    letters[i - 1]); i--)
			letters[i] = letters[i - 1];
		letters[i] = (char)d->letter;
	}
	letters[n] = '\0';
	c = fprintf(f, "usage: %s [-%s]", FRONT_NAME, letters);
	col = c > 0 ? (size_t)c : 0;
	for (d = front_optdefs; d->name != NULL; d++) {
		if (d->letter != 0 || d->flags & FRONT_OPT_MODE)
			continue;
		if (*(item = syn_item(d, buf, sizeof(buf))) == '\0')
			continue;
		if (col + 1 + strlen(item) > SYN_COLS) {
			fputs("\n      ", f);
			col = 6;
		}
		fprintf(f, " %s", item);
		col += 1 + strlen(item);
	}
	fputc('\n', f);
	for (d = front_optdefs; d->name != NULL; d++)
		if (d->flags & FRONT_OPT_MODE)
			fprintf(f, "       %s %s\n", FRONT_NAME,
			    syn_item(d, buf, sizeof(buf)));
}

/*
 * The --help lines of `d': its name and value, then its text from
 * HELP_COL on, %D, %M and %X replaced by its default, its default in
 * MiB and its maximum.
 */
static void
help_entry(FILE *f, const struct front_optdef *d)
{
	const char	*p;
	int		 n;

	if (d->letter != 0)
		n = fprintf(f, "  -%c, --%s", d->letter, d->name);
	else
		n = fprintf(f, "  --%s", d->name);
	if (d->arg != NULL)
		n += fprintf(f, " %s", d->arg);
	if (n >= HELP_COL)
		fprintf(f, "\n%*s", HELP_COL, "");
	else
		fprintf(f, "%*s", HELP_COL - n, "");
	for (p = d->help; *p != '\0'; p++) {
		if (*p == '\n')
			fprintf(f, "\n%*s", HELP_COL, "");
		else if (p[0] != '%' || strchr("DMX", p[1]) == NULL ||
		    p[1] == '\0')
			fputc(*p, f);
		else {
			p++;
			fprintf(f, "%lld", *p == 'D' ? d->def : *p == 'M' ?
			    d->def / (1024 * 1024) : d->max);
		}
	}
	fputc('\n', f);
}

/* Print the usage summary and every option's help to `f'. */
static void
usage(FILE *f)
{
	const struct front_optdef *d;

	synopsis(f);
	fputc('\n', f);
	for (d = front_optdefs; d->name != NULL; d++)
		help_entry(f, d);
}

static void
opt_help(const struct front_optdef *d, const char *s, struct front_opts *o)
{
	usage(stdout);
	exit(0);
}

static void
opt_version(const struct front_optdef *d, const char *s,
    struct front_opts *o)
{
	printf("%s %s, MCP %s\n", FRONT_NAME, WYMCP_VERSION,
	    WYMCP_PROTOCOL_VERSION);
	exit(0);
}

/* The options that go together, or exit with a usage error. */
static void
check_together(const struct front_opts *o)
{
	if (o->group != NULL && o->user == NULL)
		errx(2, "--group needs --user");
	if (o->info.instructions != NULL && o->instructions_file != NULL)
		errx(2, "--instructions and --instructions-file are one or "
		    "the other");
	if (o->print_json && o->public_url == NULL)
		errx(2, "--print-server-json needs --public-url URL (the "
		    "endpoint's URL as clients reach it)");
	if (o->runners > 0 && o->task_store == NULL)
		errx(2, "--task-runners needs --task-store");
	if (o->runners > 0 && o->workers == 0)
		errx(2, "--task-runners needs a supervisor (--workers 1 or "
		    "more)");
}

/*
 * Parse the command line into `o', over the table's defaults.  --help
 * and --version print and exit 0; bad usage prints a message and exits
 * 2.
 */
void
front_options_parse(int argc, char *argv[], struct front_opts *o)
{
	const struct front_optdef *d;
	const struct option	*lo;
	const char		*shorts;
	int			 c;

	memset(o, 0, sizeof(*o));
	for (d = front_optdefs; d->name != NULL; d++)
		if ((d->kind == FRONT_OPT_NUM || d->kind == FRONT_OPT_SIZE) &&
		    d->def != 0)
			set_num(o, d->type, d->off, d->def);
	lo = longopts(&shorts);
	opterr = 0;
	optind = 0;	/* a full scan, each time: a reload parses again */
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		if ((d = by_val(c)) != NULL) {
			apply(d, optarg, o);
			continue;
		}
		if (c == ':')
			errx(2, "%s: missing argument (try --help)",
			    argv[optind - 1]);
		/* A long option given a value it takes none: optopt is its. */
		if (optopt > 0 && optopt < 256 &&
		    strncmp(argv[optind - 1], "--", 2) != 0)
			errx(2, "-%c: unknown option (try --help)", optopt);
		errx(2, "%s: unknown option (try --help)", argv[optind - 1]);
	}
	if (optind < argc)
		errx(2, "unexpected argument: %s (try --help)", argv[optind]);
	check_together(o);
}

/*
 * --config FILE (or --config=FILE) among the command line's arguments,
 * or NULL.
 */
static const char *
config_path(int argc, char *argv[])
{
	int	 i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
			return argv[i + 1];
		if (strncmp(argv[i], "--config=", 9) == 0)
			return argv[i] + 9;
	}
	return NULL;
}

int
front_config_trusted(const char *path, int argc, char *argv[], char *err,
    size_t errlen)
{
	char	 real[PATH_MAX], why[PATH_MAX + 128];
	int	 i, insecure = 0;

	if (prog_trusted(path, (uid_t)-1, NULL, real, sizeof(real), why,
	    sizeof(why)) != -1)
		return 0;
	/* The file cannot vouch for itself: the command line only. */
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--allow-insecure-files") == 0)
			insecure = 1;
	if (!insecure) {
		snprintf(err, errlen, "--config %s: refused: %s (its options "
		    "name the modules loaded as root; --allow-insecure-files "
		    "on the command line reads it anyway, for a development "
		    "tree)", path, why);
		return -1;
	}
	front_log(WYMCP_LOG_WARNING, "--config %s: %s: read anyway "
	    "(--allow-insecure-files)", path, why);
	return 0;
}

void
front_options_read(int argc, char *argv[], struct front_opts *o,
    char ***argvp, char **textp)
{
	const char	*path;
	char		 ebuf[512];
	int		 n;

	*argvp = NULL;
	*textp = NULL;
	if ((path = config_path(argc, argv)) == NULL) {
		front_options_parse(argc, argv, o);
		return;
	}
	if (front_config_trusted(path, argc, argv, ebuf, sizeof(ebuf)) != 0)
		errx(2, "%s", ebuf);
	if (front_config_argv(path, front_longopts(), argc, argv, &n, argvp,
	    textp, ebuf, sizeof(ebuf)) != 0)
		errx(2, "--config %s", ebuf);
	front_options_parse(n, *argvp, o);
}

static int
same_str(const char *a, const char *b)
{
	return (a == NULL && b == NULL) ||
	    (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* Whether `d' has the same value in `s' and `n'. */
static int
same(const struct front_optdef *d, const struct front_opts *s,
    const struct front_opts *n)
{
	const char	**sv, **nv;
	const void	*sp, *np;
	size_t		 sn, nn, i;

	switch (d->type) {
	case FRONT_T_NONE:
		return 1;
	case FRONT_T_STR:
		memcpy(&sp, cmember(s, d->off), sizeof(sp));
		memcpy(&np, cmember(n, d->off), sizeof(np));
		return same_str(sp, np);
	case FRONT_T_STRV:
	case FRONT_T_PEERS:
		memcpy(&sp, cmember(s, d->off), sizeof(sp));
		memcpy(&np, cmember(n, d->off), sizeof(np));
		memcpy(&sn, cmember(s, d->off2), sizeof(sn));
		memcpy(&nn, cmember(n, d->off2), sizeof(nn));
		if (sn != nn)
			return 0;
		if (d->type == FRONT_T_PEERS)
			return nn == 0 || memcmp(sp, np, nn *
			    sizeof(struct prog_peer)) == 0;
		sv = (const char **)sp;
		nv = (const char **)np;
		for (i = 0; i < nn; i++)
			if (!same_str(sv[i], nv[i]))
				return 0;
		return 1;
	default:
		return get_num(s, d->type, d->off) ==
		    get_num(n, d->type, d->off) && (d->off2 == 0 ||
		    get_num(s, d->type, d->off2) ==
		    get_num(n, d->type, d->off2));
	}
}

/* `n' takes the value of `d' from `s' (a list: its own is freed). */
static void
take(const struct front_optdef *d, const struct front_opts *s,
    struct front_opts *n)
{
	void	*p;

	switch (d->type) {
	case FRONT_T_NONE:
		return;
	case FRONT_T_STRV:
	case FRONT_T_PEERS:
		memcpy(&p, member(n, d->off), sizeof(p));
		free(p);
		memcpy(member(n, d->off2), cmember(s, d->off2),
		    sizeof(size_t));
		/* FALLTHROUGH */
	case FRONT_T_STR:
		memcpy(member(n, d->off), cmember(s, d->off), sizeof(p));
		return;
	default:
		set_num(n, d->type, d->off, get_num(s, d->type, d->off));
		if (d->off2 != 0)
			set_num(n, d->type, d->off2,
			    get_num(s, d->type, d->off2));
	}
}

/*
 * The options a reload cannot apply (the socket, the pool, the hub,
 * the relay, the identity...: FRONT_OPT_RESTART) keep their running
 * value from `s' in `n'; said (`say') when `path' changed one.
 */
void
front_options_keep(const struct front_opts *s, struct front_opts *n,
    const char *path, int say)
{
	const struct front_optdef *d;
	char			 name[80];

	for (d = front_optdefs; d->name != NULL; d++) {
		if (!(d->flags & FRONT_OPT_RESTART))
			continue;
		if (say && !same(d, s, n)) {
			if (d->letter != 0)
				snprintf(name, sizeof(name), "-%c", d->letter);
			else
				snprintf(name, sizeof(name), "--%s", d->name);
			front_log(WYMCP_LOG_WARNING, "SIGHUP: %s changed in "
			    "%s: it takes effect at the next start", name,
			    path);
		}
		take(d, s, n);
	}
}

/*
 * Free the lists of `o': all of them (`all': the startup options), or
 * those a reload may change (the others are the startup options').
 */
void
front_options_free(struct front_opts *o, int all)
{
	const struct front_optdef *d;
	void			*p;

	for (d = front_optdefs; d->name != NULL; d++) {
		if (d->type != FRONT_T_STRV && d->type != FRONT_T_PEERS)
			continue;
		if (!all && d->flags & FRONT_OPT_RESTART)
			continue;
		memcpy(&p, member(o, d->off), sizeof(p));
		free(p);
	}
}
