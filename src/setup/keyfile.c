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
	char		*old = NULL, *tmp = NULL, why[256];
	size_t		 oldlen = 0, nkeys;
	ssize_t		 n;
	struct stat	 st;
	int		 fd = -1, ofd = -1, created = 0;
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
			goto out;
		}
		sync_dir(path);
		rc = WYMCP_OK;
		goto out;
	}
	if (errno != EEXIST) {
		say(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}

	/*
	 * The file exists: read it whole, check it is a key file, and
	 * write the new one beside it.  After this point all errors use
	 * "goto out", which removes a temporary file we created.
	 */
	if ((ofd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1 ||
	    fstat(ofd, &st) == -1) {
		say(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > KEYFILE_MAX) {
		say(err, errlen, "%s: not a regular file of at most %d bytes",
		    path, KEYFILE_MAX);
		goto out;
	}
	if ((old = malloc((size_t)st.st_size + 1)) == NULL) {
		say(err, errlen, "out of memory");
		goto out;
	}
	while (oldlen < (size_t)st.st_size + 1) {
		n = read(ofd, old + oldlen, (size_t)st.st_size + 1 - oldlen);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			say(err, errlen, "%s: %s", path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		oldlen += (size_t)n;
	}
	if (oldlen > (size_t)st.st_size) {
		say(err, errlen, "%s: file grew while being read", path);
		goto out;
	}
	/*
	 * Only a file the loader would read (keys, blank lines and '#'
	 * comments) is rewritten: --generate-key pointed at the wrong
	 * file refuses.
	 */
	if (wymcp__keyfile_parse(old, oldlen, NULL, &nkeys, why,
	    sizeof(why)) == -1) {
		say(err, errlen, "%s:%s: not a key file; not rewriting it",
		    path, why);
		goto out;
	}
	if ((tmp = malloc(strlen(path) + 5)) == NULL) {
		say(err, errlen, "out of memory");
		goto out;
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
		goto out;
	}
	created = 1;
	if (geteuid() == 0 && fchown(fd, st.st_uid, st.st_gid) == -1) {
		say(err, errlen, "%s: chown: %s", tmp, strerror(errno));
		goto out;
	}
	if (write_all(fd, line, sizeof(line)) == -1 ||
	    write_all(fd, old, oldlen) == -1 ||
	    (oldlen > 0 && old[oldlen - 1] != '\n' &&
	     write_all(fd, "\n", 1) == -1) ||
	    fsync(fd) == -1) {
		say(err, errlen, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	if (close(fd) == -1) {
		fd = -1;
		say(err, errlen, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) == -1) {
		say(err, errlen, "rename %s to %s: %s", tmp, path,
		    strerror(errno));
		goto out;
	}
	created = 0;
	sync_dir(path);
	rc = WYMCP_OK;
out:
	sodium_memzero(key, sizeof(key));
	sodium_memzero(line, sizeof(line));
	sodium_memzero(hex, sizeof(hex));
	if (fd != -1)
		close(fd);
	if (ofd != -1)
		close(ofd);
	if (created)
		(void)unlink(tmp);
	free(tmp);
	if (old != NULL) {
		sodium_memzero(old, oldlen);
		free(old);
	}
	return rc;
}
