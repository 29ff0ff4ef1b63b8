/*
 * backend.c - the files wymcp-fcgi lets the library load or read for
 * it, checked first: the task store's back ends (wymcp_backend_load())
 * and the files a module names (MCP Apps resources)
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

/* A back end's file (wymcp_file_check_fn): `arg' is the options. */
static int
backend_check(void *arg, const char *path, char *why, size_t whylen)
{
	return front_file_check(arg, "", "loads", "loaded", path, why,
	    whylen);
}

const void *
front_backend(const char *uri, const struct front_opts *o, char *err,
    size_t errlen)
{
	const void	*be;

	if (wymcp_backend_load(uri, backend_check, (void *)o, &be, err,
	    errlen) != WYMCP_OK)
		return NULL;
	return be;
}
