/*
 * backend.c - the files wymcp-fcgi lets the library load or read for
 * it, checked first: the task store's back ends (src/store/backend.h)
 * and the files a module names (MCP Apps resources); and --config's
 * file, checked as a module is (front_config_trusted())
 *
 * The library is the one loader of a task store's back end (sqlite.so,
 * pg.so; wymcp_backend_load(3)); the hub needs pg.so for the bus (--bus
 * postgresql://).  Both are code loaded into a process that may run as
 * root, so the library hands the file to the check here first
 * (prog_trusted(), unless --allow-insecure-files), and wymcp-fcgi asks
 * for the --task-store's back end at startup, before it drops
 * privileges, so that wymcp_server_set_task_store() finds it loaded.  A
 * back end this wymcp was built without, or a file that cannot be
 * loaded, is an error of the option that named it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "front.h"
#include "store/backend.h"

int
front_file_check(const struct front_opts *o, const char *what,
    const char *verbs, const char *verbed, const char *path, char *why,
    size_t whylen)
{
	char	 real[PATH_MAX];
	size_t	 n;
	int	 rc;

	if ((rc = prog_trusted(path, (uid_t)-1, NULL, real, sizeof(real),
	    why, whylen)) == 0 || rc == -2)
		return 0;	/* a missing file: the loader says so */
	if (!o->insecure_files) {
		n = strlen(why);
		snprintf(why + n, whylen - n, " (--allow-insecure-files %s "
		    "it anyway, for a development tree)", verbs);
		return -1;
	}
	front_log(WYMCP_LOG_WARNING, "%s%s: %s: %s anyway "
	    "(--allow-insecure-files)", what, path, why, verbed);
	return 0;
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

/* A back end's file (wymcp_file_check_fn): `arg' is the options. */
static int
backend_check(void *arg, const char *path, char *why, size_t whylen)
{
	return front_file_check(arg, "", "loads", "loaded", path, why,
	    whylen);
}

const struct wymcp__backend *
front_backend(const char *uri, const struct front_opts *o, char *err,
    size_t errlen)
{
	const void	*be;

	if (wymcp_backend_load(uri, backend_check, (void *)o, &be, err,
	    errlen) != WYMCP_OK)
		return NULL;
	return be;
}
