/*
 * server.c - the server of wymcp-fcgi's options: its settings, its
 * modules (checked as trusted files), skills, the operator's
 * Implementation and instructions, its state keys and task store; made
 * at the start and again at each reload
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/stat.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "front.h"

/* The modules loaded when no --module is given. */
static const char *const bundled[] = { "help.so", "echo.so" };

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
void
front_file_trusted(const struct front_opts *o, const char *what,
    const char *path, uid_t user)
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
 * The server of options `o': settings, modules and state keys (the
 * per-process work, done once before the fork, and again at a reload).
 * `cgi': this process serves one request.  NULL with why in `err'.
 */
static struct front_rates	*rates;		/* the pool's buckets */

/*
 * Rate limits (ratelimit.c): one table for the pool, made with the
 * first server, before the fork, with the start's --rate-limit rules.
 * 0, or -1 with why in `err'.
 */
static int
rates_setup(const struct front_opts *o, char *err, size_t errlen)
{
	size_t	 i;

	for (i = 0; i < o->nrate_limits; i++)
		if (front_rate_rule(o->rate_limits[i]) != 0) {
			snprintf(err, errlen, "--rate-limit %s: out of memory",
			    o->rate_limits[i]);
			return -1;
		}
	if ((rates = front_rates_new()) == NULL) {
		snprintf(err, errlen, "the rate limits' table: out of memory");
		return -1;
	}
	return 0;
}

/* --allow-origin: 0, or -1 with why in `err'. */
static int
allow_origins(struct wymcp_server *srv, const struct front_opts *o,
    char *err, size_t errlen)
{
	size_t	 i;

	for (i = 0; i < o->norigins; i++)
		if (wymcp_server_allow_origin(srv, o->origins[i]) !=
		    WYMCP_OK) {
			snprintf(err, errlen, "--allow-origin %s: %s",
			    o->origins[i], wymcp_server_errmsg(srv));
			return -1;
		}
	return 0;
}

/* --public-url and --public-header: 0, or -1 with why in `err'. */
static int
set_public(struct wymcp_server *srv, const struct front_opts *o, char *err,
    size_t errlen)
{
	size_t	 i;

	if (o->public_url != NULL && wymcp_server_set_public_url(srv,
	    o->public_url) != WYMCP_OK) {
		snprintf(err, errlen, "--public-url: %s",
		    wymcp_server_errmsg(srv));
		return -1;
	}
	for (i = 0; i < o->npublic_headers; i++)
		if (wymcp_server_add_public_header(srv,
		    o->public_headers[i]) != WYMCP_OK) {
			snprintf(err, errlen, "--public-header %s: %s",
			    o->public_headers[i], wymcp_server_errmsg(srv));
			return -1;
		}
	return 0;
}

struct wymcp_server *
front_make_server(const struct front_opts *o, int cgi, char *err, size_t errlen)
{
	struct wymcp_server	*srv;

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
	/* Rate limits: none for CGI, each request a process of its own. */
	if (!cgi && rates == NULL && rates_setup(o, err, errlen) != 0) {
		wymcp_server_free(srv);
		return NULL;
	}
	if (rates != NULL)
		wymcp_server_set_admit_fn(srv, front_rate_admit, rates);
	/* What the operators' features read of each request (audit.c). */
	wymcp_server_set_request_detail(srv,
	    (o->audit_log != NULL || o->otlp_endpoint != NULL ?
	    WYMCP_DETAIL_HOOK : 0) |
	    (o->otlp_endpoint != NULL ? WYMCP_DETAIL_TRACE : 0) |
	    (!cgi && o->status_path != NULL ? WYMCP_DETAIL_OUTCOME : 0) |
	    (o->audit_headers ? WYMCP_DETAIL_HEADERS : 0));
	wymcp_server_set_request_timeout(srv, (unsigned long)o->timeout *
	    1000);
	if (o->max_body > 0)
		wymcp_server_set_max_body(srv, o->max_body);
	if (o->modern_only)
		wymcp_server_set_legacy(srv, 0);
	if (allow_origins(srv, o, err, errlen) != 0)
		goto fail;
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
	if (set_info(srv, o, err, errlen) != 0 ||
	    set_public(srv, o, err, errlen) != 0)
		goto fail;
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
int
front_store_server(struct wymcp_server *srv, const struct front_opts *o,
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

