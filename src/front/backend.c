/*
 * backend.c - the task store's back-end objects (src/store/backend.h)
 * as wymcp-fcgi takes them: checked before anything loads them
 *
 * The library loads a task store's back end itself (sqlite.so, pg.so,
 * at wymcp_server_set_task_store()); the hub needs pg.so for the bus
 * (--bus postgresql://).  Both are code loaded into a process that may
 * run as root, so the file passes the check of modules first
 * (prog_trusted(), unless --allow-insecure-files), and is loaded here,
 * once, before the library asks for the same file (dlopen(3) then
 * hands it the object already loaded).  A back end this wymcp was
 * built without, or a file that cannot be loaded, is an error of the
 * option that named it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front.h"
#include "store/backend.h"

/*
 * The back end of `uri' (sqlite:PATH, postgresql://...): loaded once
 * its file passed the check; NULL with why in `err'.
 */
const struct wymcp__backend *
front_backend(const char *uri, const struct front_opts *o, char *err,
    size_t errlen)
{
	const struct wymcp__backend *be;
	const char	*name, *what, *dir;
	char		 path[PATH_MAX], real[PATH_MAX], why[PATH_MAX + 128];
	void		*dl;
	int		 built, rc;

	if (strncmp(uri, "sqlite:", 7) == 0) {
		name = "sqlite";
		what = "SQLite";
#ifdef WITH_SQLITE
		built = 1;
#else
		built = 0;
#endif
	} else if (strncmp(uri, "postgresql://", 13) == 0 ||
	    strncmp(uri, "postgres://", 11) == 0) {
		name = "pg";
		what = "PostgreSQL";
#ifdef WITH_POSTGRESQL
		built = 1;
#else
		built = 0;
#endif
	} else {
		snprintf(err, errlen, "neither sqlite:PATH nor "
		    "postgresql://...");
		return NULL;
	}
	if (!built) {
		snprintf(err, errlen, "%.*s...: this wymcp was built without "
		    "%s (configure --without-%s)", (int)strcspn(uri, ":/@"),
		    uri, what, name[0] == 'p' ? "postgresql" : "sqlite");
		return NULL;
	}
	if ((dir = getenv(WYMCP__BACKEND_ENV)) == NULL || *dir == '\0')
		dir = WYMCP_BACKENDDIR;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s.so", dir, name) >=
	    sizeof(path)) {
		snprintf(err, errlen, "%s/%s.so: path too long", dir, name);
		return NULL;
	}
	/* A missing file is dlopen(3)'s to say. */
	if ((rc = prog_trusted(path, (uid_t)-1, NULL, real, sizeof(real),
	    why, sizeof(why))) == -1) {
		if (!o->insecure_files) {
			snprintf(err, errlen, "%s: refused: %s "
			    "(--allow-insecure-files loads it anyway, for a "
			    "development tree)", path, why);
			return NULL;
		}
		front_log(WYMCP_LOG_WARNING, "%s: %s: loaded anyway "
		    "(--allow-insecure-files)", path, why);
	}
	if ((dl = dlopen(rc == 0 ? real : path, RTLD_NOW | RTLD_LOCAL |
	    RTLD_NODELETE)) == NULL) {
		snprintf(err, errlen, "cannot load %s: %s", path, dlerror());
		return NULL;
	}
	be = dlsym(dl, WYMCP__BACKEND_SYM);
	if (!wymcp__backend_fits(be, name)) {
		snprintf(err, errlen, "%s: not the %s back end of this "
		    "wymcp-fcgi", path, name);
		(void)dlclose(dl);
		return NULL;
	}
	return be;
}
