/*
 * reload.c - SIGHUP in wymcp-fcgi's supervisor: the options read again
 * (a --config file, the command line), the restart-only ones kept, and
 * the server made anew from them (prefork.c calls front_reload_server()
 * in a trial child, then in the supervisor)
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "front.h"

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

void
front_reload_init(const struct front_opts *o, struct front_limits *lim,
    int argc, char *argv[])
{
	reload_opts = start_opts = o;
	reload_lim = lim;
	main_argc = argc;
	main_argv = argv;
	main_pid = getpid();
}

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

	if (front_config_trusted(path, main_argc, main_argv, err, errlen))
		return NULL;
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
struct wymcp_server *
front_reload_server(char *err, size_t errlen)
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
	if ((srv = front_make_server(o, 0, err, errlen)) == NULL)
		goto fail;
	if (front_store_server(srv, o, reload_lim, err, errlen) != 0) {
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

void
front_reload_done(void)
{
	drop_options(reread, reread_argv, reread_text);
	reread = NULL;
	reread_argv = NULL;
	reread_text = NULL;
}
