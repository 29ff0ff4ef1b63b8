/*
 * keyfile.c - writing requestState key files (wymcp-fcgi --generate-key)
 *
 * A key file holds one key per line, 64 hexadecimal digits; blank lines
 * and '#' comments are allowed.  A new key goes first: it seals, and the
 * older keys below it still open what they sealed, so keys rotate
 * without downtime.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "setup/setup.h"

#define KEY_BYTES	32
#define KEYFILE_MAX	(1024 * 1024)	/* largest key file we rewrite */

/* Write all of `buf' to `fd'.  Returns 0, or -1 with errno set. */
static int
write_all(int fd, const char *buf, size_t len)
{
	ssize_t	 n;

	while (len > 0) {
		if ((n = write(fd, buf, len)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Flush the directory holding `path' so that a created or renamed
 * entry survives a crash.  Failure is harmless and ignored.
 */
static void
sync_dir(const char *path)
{
	char	*dir, *slash;
	int	 fd;

	if ((dir = strdup(path)) == NULL)
		return;
	if ((slash = strrchr(dir, '/')) == NULL)
		strcpy(dir, ".");
	else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		(void)fsync(fd);
		close(fd);
	}
	free(dir);
}

/* Format the reason into err (when there is room). */
static void WYMCP_PRINTF(3, 4)
say(char *err, size_t errlen, const char *fmt, ...)
{
	va_list	 ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/*
 * The whole of the existing key file `path', its status in `st', its
 * length in *lenp; NULL with why in `err'.  The caller wipes and
 * frees it.
 */
static char *
read_old(const char *path, struct stat *st, size_t *lenp, char *err,
    size_t errlen)
{
	char	*old = NULL;
	size_t	 oldlen = 0;
	ssize_t	 n;
	int	 ofd;

	if ((ofd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		say(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	/* All errors from here on use goto fail. */
	if (fstat(ofd, st) == -1) {
		say(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st->st_mode) || st->st_size > KEYFILE_MAX) {
		say(err, errlen, "%s: not a regular file of at most %d bytes",
		    path, KEYFILE_MAX);
		goto fail;
	}
	if ((old = malloc((size_t)st->st_size + 1)) == NULL) {
		say(err, errlen, "out of memory");
		goto fail;
	}
	while (oldlen < (size_t)st->st_size + 1) {
		n = read(ofd, old + oldlen, (size_t)st->st_size + 1 - oldlen);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			say(err, errlen, "%s: %s", path, strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		oldlen += (size_t)n;
	}
	if (oldlen > (size_t)st->st_size) {
		say(err, errlen, "%s: file grew while being read", path);
		goto fail;
	}
	close(ofd);
	*lenp = oldlen;
	return old;
fail:
	if (old != NULL) {
		sodium_memzero(old, oldlen);
		free(old);
	}
	close(ofd);
	return NULL;
}

/*
 * Write `line' (the new key) then `old' into PATH.tmp (O_EXCL, 0600,
 * the owner of `st' when run as root), fsync(2), rename(2) it over
 * `path'.  Nothing changes on failure.
 */
static enum wymcp_err
rewrite(const char *path, const struct stat *st, const char *line,
    size_t linelen, const char *old, size_t oldlen, char *err,
    size_t errlen)
{
	char	*tmp;
	int	 fd, created = 0;

	if ((tmp = malloc(strlen(path) + 5)) == NULL) {
		say(err, errlen, "out of memory");
		return WYMCP_ERR_STATE;
	}
	snprintf(tmp, strlen(path) + 5, "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd == -1) {
		if (errno == EEXIST)
			say(err, errlen, "%s exists: another --generate-key "
			    "is running, or one was interrupted (remove the "
			    "file)", tmp);
		else
			say(err, errlen, "%s: %s", tmp, strerror(errno));
		goto fail;
	}
	/* All errors from here on use goto fail, which removes tmp. */
	created = 1;
	if (geteuid() == 0 && fchown(fd, st->st_uid, st->st_gid) == -1) {
		say(err, errlen, "%s: chown: %s", tmp, strerror(errno));
		goto fail;
	}
	if (write_all(fd, line, linelen) == -1 ||
	    write_all(fd, old, oldlen) == -1 ||
	    (oldlen > 0 && old[oldlen - 1] != '\n' &&
	     write_all(fd, "\n", 1) == -1) ||
	    fsync(fd) == -1) {
		say(err, errlen, "%s: %s", tmp, strerror(errno));
		goto fail;
	}
	if (close(fd) == -1) {
		fd = -1;
		say(err, errlen, "%s: %s", tmp, strerror(errno));
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) == -1) {
		say(err, errlen, "rename %s to %s: %s", tmp, path,
		    strerror(errno));
		goto fail;
	}
	free(tmp);
	sync_dir(path);
	return WYMCP_OK;
fail:
	if (fd != -1)
		close(fd);
	if (created)
		(void)unlink(tmp);
	free(tmp);
	return WYMCP_ERR_STATE;
}

/*
 * Put a fresh random key first in the key file `path'.  A new file is
 * created with mode 0600 (O_EXCL).  An existing one is rewritten through
 * PATH.tmp (also O_EXCL, 0600, same owner when run as root): new key,
 * then the old lines, fsync(2), rename(2).  Nothing changes on failure.
 */
enum wymcp_err
wymcp_state_key_generate(const char *path, char *err, size_t errlen)
{
	unsigned char	 key[KEY_BYTES];
	char		 line[2 * KEY_BYTES + 1], hex[2 * KEY_BYTES + 1];
	char		*old = NULL, why[256];
	size_t		 oldlen = 0, nkeys;
	struct stat	 st;
	int		 fd;
	enum wymcp_err	 rc = WYMCP_ERR_STATE;

	if (path == NULL)
		return WYMCP_ERR_INVAL;
	if (sodium_init() < 0) {
		say(err, errlen, "libsodium could not be initialized");
		return WYMCP_ERR_STATE;
	}
	randombytes_buf(key, sizeof(key));
	sodium_bin2hex(hex, sizeof(hex), key, sizeof(key));
	memcpy(line, hex, 2 * KEY_BYTES);
	line[2 * KEY_BYTES] = '\n';

	/* The easy case: no file yet. */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd != -1) {
		if (write_all(fd, line, sizeof(line)) == -1 ||
		    fsync(fd) == -1) {
			say(err, errlen, "%s: %s", path, strerror(errno));
			(void)unlink(path);
		} else {
			sync_dir(path);
			rc = WYMCP_OK;
		}
		close(fd);
	} else if (errno != EEXIST)
		say(err, errlen, "%s: %s", path, strerror(errno));
	/*
	 * The file exists: read it whole, check it is a key file (only a
	 * file the loader would read, keys, blank lines and '#' comments,
	 * is rewritten: --generate-key pointed at the wrong file
	 * refuses), and write the new one beside it.
	 */
	else if ((old = read_old(path, &st, &oldlen, err, errlen)) == NULL)
		;
	else if (wymcp__keyfile_parse(old, oldlen, NULL, &nkeys, why,
	    sizeof(why)) == -1)
		say(err, errlen, "%s:%s: not a key file; not rewriting it",
		    path, why);
	else
		rc = rewrite(path, &st, line, sizeof(line), old, oldlen, err,
		    errlen);
	sodium_memzero(key, sizeof(key));
	sodium_memzero(line, sizeof(line));
	sodium_memzero(hex, sizeof(hex));
	if (old != NULL) {
		sodium_memzero(old, oldlen);
		free(old);
	}
	return rc;
}
