/*
 * trust.c - files the programs run as their own code, or trust
 *
 * wymcp-fcgi loads modules in the supervisor, as root when it starts as
 * root, before it drops privileges, and again at each reload; it reads
 * the state key; wymcp-authz reads the key sets it checks tokens with.
 * Whoever can write such a file, or rename one in a directory on its
 * path, runs code as that user or forges what it vouches for.  So the
 * file is used only when its real path and every directory above it
 * is owned by root or by this process's user and writable by nobody
 * else, as OpenSSH's safe_path() checks the files it trusts: group
 * write is allowed only for group root, and a directory that others
 * may write to only with the sticky bit and an owner as above (/tmp:
 * others cannot rename or remove what is in it).  A file the program
 * rereads after it switched to --user (a key file) may be that user's
 * too.  Both programs' --allow-insecure-files turns the check into a
 * warning, for development trees.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prog/prog.h"

/*
 * Is `st' (of `path', a directory when `dir') safe, `also' an owner
 * allowed besides root and us?  0, or -1 with why.
 */
static int
safe(const char *path, const struct stat *st, int dir, uid_t also,
    char *err, size_t errlen)
{
	uid_t	 me = geteuid();

	if (st->st_uid != 0 && st->st_uid != me && st->st_uid != also) {
		snprintf(err, errlen, "%s is owned by uid %lu (not root, nor "
		    "the user this program runs as): that user could change "
		    "what it trusts", path, (unsigned long)st->st_uid);
		return -1;
	}
	if ((st->st_mode & S_IWOTH) && !(dir && (st->st_mode & S_ISVTX))) {
		snprintf(err, errlen, "%s is writable by others (mode %04o)",
		    path, (unsigned int)(st->st_mode & 07777));
		return -1;
	}
	if ((st->st_mode & S_IWGRP) && st->st_gid != 0 &&
	    !(dir && (st->st_mode & S_ISVTX))) {
		snprintf(err, errlen, "%s is writable by group %lu (mode "
		    "%04o)", path, (unsigned long)st->st_gid,
		    (unsigned int)(st->st_mode & 07777));
		return -1;
	}
	return 0;
}

int
prog_trusted(const char *path, uid_t also, struct prog_trust_memo *memo,
    char *real, size_t reallen, char *err, size_t errlen)
{
	struct stat	 st;
	char		 buf[PATH_MAX], parent[PATH_MAX] = "", *slash;
	int		 dir = 0;

	if (realpath(path, buf) == NULL) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -2;
	}
	if (strlen(buf) >= reallen) {
		snprintf(err, errlen, "%s: path too long", path);
		return -1;
	}
	snprintf(real, reallen, "%s", buf);
	for (;;) {
		if (stat(buf, &st) == -1) {
			snprintf(err, errlen, "%s: %s", buf, strerror(errno));
			return -2;
		}
		/* The path itself: a file, or a directory (--skills-dir). */
		if (!dir && S_ISDIR(st.st_mode))
			dir = 1;
		else if (!dir && !S_ISREG(st.st_mode)) {
			snprintf(err, errlen, "%s: not a regular file", buf);
			return -1;
		}
		if (safe(buf, &st, dir, also, err, errlen) != 0)
			return -1;
		if (strcmp(buf, "/") == 0)
			break;
		if ((slash = strrchr(buf, '/')) == NULL)
			break;
		if (slash == buf)
			slash[1] = '\0';
		else
			*slash = '\0';
		if (!dir && memo != NULL) {
			/* Its directory passed before: so do those above. */
			if (strcmp(buf, memo->dir) == 0)
				return 0;
			snprintf(parent, sizeof(parent), "%s", buf);
		}
		dir = 1;
	}
	/* Every directory passed: remembered only now. */
	if (memo != NULL && parent[0] != '\0')
		snprintf(memo->dir, sizeof(memo->dir), "%s", parent);
	return 0;
}
