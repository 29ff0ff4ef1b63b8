/*
 * file.c - a file's text as a resource's contents
 *
 * wymcp_contents_file(): what a read() of a log or a document needs,
 * the whole text or its last lines (server/resources.mdx
 * "TextResourceContents"), read at the request (never cached: the file
 * changes).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core.h"

/* Read up to `max' bytes of fd from `off' into a new arena buffer. */
static char *
read_at(struct wymcp_ctx *ctx, int fd, off_t off, size_t max, size_t *len)
{
	char	*buf;
	ssize_t	 n;

	*len = 0;
	if ((buf = wymcp_alloc(ctx, max + 1)) == NULL)
		return NULL;
	while (*len < max) {
		n = pread(fd, buf + *len, max - *len, off + (off_t)*len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*len += (size_t)n;
	}
	buf[*len] = '\0';
	return buf;
}

/*
 * The start of the last `tail' lines of buf (len bytes); a final
 * newline ends the last line.  `whole': buf starts the file, else its
 * first line, cut, is never one of them.
 */
static const char *
last_lines(const char *buf, size_t len, int tail, int whole)
{
	size_t	 i = len;
	int	 n = 0;

	if (i > 0 && buf[i - 1] == '\n')
		i--;
	while (i > 0) {
		if (buf[i - 1] == '\n' && ++n == tail)
			return buf + i;
		i--;
	}
	if (whole)
		return buf;
	/* Cut: from the first whole line. */
	return (buf = memchr(buf, '\n', len)) != NULL ? buf + 1 : "";
}

enum wymcp_err
wymcp_contents_file(struct wymcp_resource_result *res, const char *mime,
    int tail, const char *fmt, ...)
{
	struct wymcp_ctx	*ctx;
	struct stat		 st;
	const char		*path, *text;
	char			*buf = NULL;
	size_t			 len, max = WYMCP_CONTENTS_FILE_MAX;
	off_t			 off = 0;
	va_list			 ap;
	int			 fd, e;

	if (res == NULL)
		return WYMCP_ERR_INVAL;
	ctx = res->ctx;
	if (fmt == NULL)
		return wymcp__why(ctx, WYMCP_ERR_INVAL, 0,
		    "wymcp_contents_file(): fmt is NULL");
	va_start(ap, fmt);
	path = wymcp__arena_vprintf(&ctx->arena, fmt, ap);
	va_end(ap);
	if (path == NULL)
		return WYMCP_ERR_NOMEM;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1) {
		e = errno;
		if (fd != -1)
			close(fd);
		wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "wymcp_contents_file(): "
		    "%s: %s", path, strerror(e));
		return e == ENOENT || e == ENOTDIR ? WYMCP_ERR_NOTFOUND :
		    wymcp__why(ctx, WYMCP_ERR_IO, 0, "%s: %s", path,
		    strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return wymcp__why(ctx, WYMCP_ERR_IO, 0, "%s: not a regular "
		    "file", path);
	}
	if (st.st_size > (off_t)max) {
		if (tail <= 0) {
			close(fd);
			return wymcp__why(ctx, WYMCP_ERR_IO, 0, "%s: larger "
			    "than %zu bytes", path, max);
		}
		off = st.st_size - (off_t)max;
	}
	buf = read_at(ctx, fd, off, max, &len);
	close(fd);
	if (buf == NULL)
		return WYMCP_ERR_NOMEM;
	text = tail > 0 ? last_lines(buf, len, tail, off == 0) : buf;
	if (!wymcp__utf8_valid(text, strlen(text)) ||
	    strlen(text) != len - (size_t)(text - buf))
		return wymcp__why(ctx, WYMCP_ERR_INVAL, 0, "%s: not UTF-8 text",
		    path);
	return wymcp_contents_text(res, NULL, mime, text);
}
