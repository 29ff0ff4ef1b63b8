/*
 * config.c - wymcp-fcgi's options from a file (--config FILE)
 *
 * The file holds the command line's long options, one a line: the
 * name (with or without the leading "--"), then, for an option that
 * takes one, its value, after spaces or an '=': the rest of the line,
 * spaces around it removed, so that a path may hold spaces.  Blank
 * lines and lines starting with '#' are skipped.  For example:
 *
 *	# /etc/wymcp/wymcp.conf
 *	workers 4:64
 *	module /usr/lib/x86_64-linux-gnu/wymcp/help.so
 *	state-key-file /etc/wymcp/state.key
 *	request-timeout 30
 *
 * The options are checked by the same parser as the command line's:
 * front_config_argv() turns the file into arguments put before the
 * command line's, so that the command line adds to the file's lists
 * and overrides its single values.  A line that names no option, or
 * names --config itself, is refused with the file and line number.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "front.h"

#define CONFIG_MAX	(1024 * 1024)	/* bytes of a config file */
#define NAME_MAX_LEN	64		/* of an option's name */

/* The whole of regular file `path' (NUL-terminated), or NULL with why. */
static char *
slurp(const char *path, char *err, size_t errlen)
{
	struct stat	 st;
	char		*buf = NULL;
	ssize_t		 n;
	size_t		 len = 0;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size > CONFIG_MAX) {
		snprintf(err, errlen, "%s: %s", path, !S_ISREG(st.st_mode) ?
		    "not a regular file" : "larger than 1 MiB");
		goto fail;
	}
	if ((buf = malloc((size_t)st.st_size + 1)) == NULL) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	while (len < (size_t)st.st_size &&
	    (n = read(fd, buf + len, (size_t)st.st_size - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	if (memchr(buf, '\0', len) != NULL) {
		snprintf(err, errlen, "%s: holds a NUL byte", path);
		goto fail;
	}
	(void)close(fd);
	return buf;
fail:
	free(buf);
	(void)close(fd);
	return NULL;
}

/* Append `s' to the growing argument array; -1 when out of memory. */
static int
add(char ***v, int *n, char *s)
{
	char	**nv;

	if ((nv = reallocarray(*v, (size_t)*n + 2, sizeof(**v))) == NULL)
		return -1;
	nv[(*n)++] = s;
	nv[*n] = NULL;
	*v = nv;
	return 0;
}

/* The long option `name' of `opts', or NULL. */
static const struct option *
find(const struct option *opts, const char *name)
{
	for (; opts->name != NULL; opts++)
		if (strcmp(opts->name, name) == 0)
			return opts;
	return NULL;
}

/*
 * One line of file `path' (number `lineno'): nothing, or "--NAME" and
 * its value appended to the arguments (`v', `n'), their text written
 * at *o.  0, -1 with why in `err', or -2 when out of memory.
 */
static int
one_line(const char *path, int lineno, char *line,
    const struct option *opts, char ***v, int *n, char **o, char *err,
    size_t errlen)
{
	const struct option	*opt;
	char			*p, *e, *name;
	size_t			 k;

	for (p = line; isspace((unsigned char)*p); p++)
		continue;
	e = p + strlen(p);
	while (e > p && isspace((unsigned char)e[-1]))
		*--e = '\0';
	if (*p == '\0' || *p == '#')
		return 0;
	if (p[0] == '-' && p[1] == '-')
		p += 2;
	name = p;
	for (k = 0; (name[k] >= 'a' && name[k] <= 'z') ||
	    (name[k] >= '0' && name[k] <= '9') || name[k] == '-'; k++)
		continue;
	if (k == 0 || k > NAME_MAX_LEN || (name[k] != '\0' &&
	    name[k] != '=' && !isspace((unsigned char)name[k]))) {
		snprintf(err, errlen, "%s:%d: not an option name (the "
		    "command line's long options, one a line)", path, lineno);
		return -1;
	}
	p = name + k;
	if (*p != '\0') {
		*p++ = '\0';
		while (isspace((unsigned char)*p) || *p == '=')
			p++;
	}
	if (strcmp(name, "config") == 0) {
		snprintf(err, errlen, "%s:%d: --config in a config file", path,
		    lineno);
		return -1;
	}
	if ((opt = find(opts, name)) == NULL) {
		snprintf(err, errlen, "%s:%d: --%s: no such option", path,
		    lineno, name);
		return -1;
	}
	if ((opt->has_arg == no_argument) != (*p == '\0')) {
		snprintf(err, errlen, "%s:%d: --%s %s", path, lineno, name,
		    *p == '\0' ? "needs a value" : "takes no value");
		return -1;
	}
	if (add(v, n, *o) != 0)
		return -2;
	*o += sprintf(*o, "--%s", name) + 1;
	if (*p != '\0') {
		if (add(v, n, *o) != 0)
			return -2;
		*o += sprintf(*o, "%s", p) + 1;
	}
	return 0;
}

int
front_config_argv(const char *path, const struct option *opts, int argc,
    char *argv[], int *nargc, char ***nargv, char **text, char *err,
    size_t errlen)
{
	char	**v = NULL, *buf, *out = NULL, *o, *line, *next, *p;
	int	  n = 0, i, lineno = 0, rc;
	size_t	  lines = 1;

	*nargv = NULL;
	*text = NULL;
	if ((buf = slurp(path, err, errlen)) == NULL)
		return -1;
	for (p = buf; (p = strchr(p, '\n')) != NULL; p++)
		lines++;
	/* Each line gives at most "--" and two NULs more than it has. */
	if ((out = malloc(strlen(buf) + 4 * lines + 1)) == NULL ||
	    add(&v, &n, argv[0]) != 0)
		goto nomem;
	o = out;
	for (line = buf; line != NULL; line = next) {
		lineno++;
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if ((rc = one_line(path, lineno, line, opts, &v, &n, &o, err,
		    errlen)) == -2)
			goto nomem;
		if (rc != 0)
			goto fail;
	}
	for (i = 1; i < argc; i++)
		if (add(&v, &n, argv[i]) != 0)
			goto nomem;
	free(buf);
	*nargc = n;
	*nargv = v;
	*text = out;
	return 0;
nomem:
	snprintf(err, errlen, "%s: out of memory", path);
fail:
	free(v);
	free(out);
	free(buf);
	return -1;
}
