/*
 * refuse.c - what a handler says when it will not, or cannot, go on
 *
 * wymcp_refuse() and wymcp_require_assign() record why a handler
 * refuses (a tool's isError text, a resource's or a prompt's JSON-RPC
 * error: methods/reply.c); wymcp_write_once() makes a call's final
 * step once, keyed by its idempotency key; wymcp_progress_step()
 * counts progress in steps.  Every failure leaves its sentence in
 * ctx->call.why, which a handler that returns the failure as it is
 * passes on to the client.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/core.h"

/*
 * Record why `rc' happened (a request-owned sentence); returns rc.
 * Not from another thread than the run's: it must not touch the
 * request's memory.
 */
enum wymcp_err
wymcp__why(struct wymcp_ctx *ctx, enum wymcp_err rc, int code,
    const char *fmt, ...)
{
	va_list	 ap;

	if (ctx->call.run != NULL && wymcp__run_open(ctx) == NULL)
		return rc;
	va_start(ap, fmt);
	ctx->call.why = wymcp__arena_vprintf(&ctx->arena, fmt, ap);
	va_end(ap);
	ctx->call.why_rc = rc;
	ctx->call.why_code = code;
	return rc;
}

/* The sentence recorded for `rc' in this run, or NULL. */
const char *
wymcp__why_for(const struct wymcp_ctx *ctx, enum wymcp_err rc)
{
	if (ctx == NULL || ctx->call.why == NULL || ctx->call.why_rc != rc)
		return NULL;
	return ctx->call.why;
}

/*
 * Is `code' one a handler may refuse with?  The spec's (basic/index.mdx
 * "Error Codes", schema.ts): invalid request, invalid params, internal
 * error, and the implementation-defined -32000 to -32019.
 */
static int
code_ok(int code)
{
	return code == WYMCP_RPC_INVALID_REQUEST ||
	    code == WYMCP_RPC_INVALID_PARAMS ||
	    code == WYMCP_RPC_INTERNAL_ERROR ||
	    (code <= -32000 && code >= -32019);
}

enum wymcp_err
wymcp_refuse(struct wymcp_ctx *ctx, int code, const char *fmt, ...)
{
	va_list	 ap;

	if (ctx == NULL || (ctx->call.run != NULL &&
	    wymcp__run_open(ctx) == NULL))
		return WYMCP_ERR_REFUSED;
	if (code == 0)
		code = WYMCP_RPC_INVALID_PARAMS;
	if (!code_ok(code)) {
		wymcp__ctx_log(ctx, WYMCP_LOG_ERR, "wymcp_refuse(): code %d "
		    "is not one of the spec's: sent as %d", code,
		    WYMCP_RPC_INTERNAL_ERROR);
		code = WYMCP_RPC_INTERNAL_ERROR;
	}
	ctx->call.why = NULL;
	if (fmt != NULL) {
		va_start(ap, fmt);
		ctx->call.why = wymcp__arena_vprintf(&ctx->arena, fmt, ap);
		va_end(ap);
	}
	/* Text the client reads must be UTF-8: else the sentence. */
	if (ctx->call.why != NULL &&
	    !wymcp__utf8_valid(ctx->call.why, strlen(ctx->call.why)))
		ctx->call.why = NULL;
	ctx->call.why_rc = WYMCP_ERR_REFUSED;
	ctx->call.why_code = code;
	return WYMCP_ERR_REFUSED;
}

/* Is `have' one of the space-separated words of `want'? */
static int
one_of(const char *have, const char *want)
{
	size_t	 n = strlen(have), w;

	while (*want != '\0') {
		while (*want == ' ')
			want++;
		w = strcspn(want, " ");
		if (w == n && w > 0 && strncmp(want, have, n) == 0)
			return 1;
		want += w;
	}
	return 0;
}

enum wymcp_err
wymcp_require_assign(struct wymcp_ctx *ctx, const char *name,
    const char *value)
{
	const char	*have;

	if (ctx == NULL)
		return WYMCP_ERR_INVAL;
	if (name == NULL || value == NULL)
		return wymcp__why(ctx, WYMCP_ERR_INVAL, 0,
		    "wymcp_require_assign(): %s is NULL",
		    name == NULL ? "name" : "value");
	if ((have = wymcp_ctx_assign(ctx, name)) != NULL &&
	    one_of(have, value))
		return WYMCP_OK;
	if (have == NULL)
		return wymcp_refuse(ctx, WYMCP_RPC_INVALID_REQUEST, "Refused: "
		    "this needs %s %s%s, and the caller has no %s",
		    name, strchr(value, ' ') != NULL ? "one of " : "", value,
		    name);
	return wymcp_refuse(ctx, WYMCP_RPC_INVALID_REQUEST, "Refused: this "
	    "needs %s %s%s, and the caller's %s is %s", name,
	    strchr(value, ' ') != NULL ? "one of " : "", value, name, have);
}

/*
 * Write `rec' to a new file in `dir' and link it to `path': the record
 * is whole before its name exists.  0, EEXIST when `path' was there,
 * or another errno.
 */
static int
link_record(struct wymcp_ctx *ctx, const char *dir, const char *path,
    const char *rec)
{
	const char	*tmp;
	size_t		 len = strlen(rec), off = 0;
	ssize_t		 w;
	int		 fd, e = 0;

	if ((tmp = wymcp_printf(ctx, "%s/.once.%ld.%p", dir, (long)getpid(),
	    (void *)ctx)) == NULL)
		return ENOMEM;
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0644)) == -1)
		return errno;
	while (off < len && e == 0) {
		if ((w = write(fd, rec + off, len - off)) == -1 &&
		    errno != EINTR)
			e = errno;
		else if (w > 0)
			off += (size_t)w;
	}
	if (e == 0 && fsync(fd) == -1)
		e = errno;
	if (close(fd) == -1 && e == 0)
		e = errno;
	if (e == 0 && link(tmp, path) == -1)
		e = errno;
	(void)unlink(tmp);
	return e;
}

enum wymcp_err
wymcp_write_once(struct wymcp_ctx *ctx, const char *dir, const char *fmt,
    ...)
{
	const char	*key, *path;
	char		*rec;
	va_list		 ap;
	int		 e;

	if (ctx == NULL)
		return WYMCP_ERR_INVAL;
	if (dir == NULL || fmt == NULL)
		return wymcp__why(ctx, WYMCP_ERR_INVAL, 0,
		    "wymcp_write_once(): %s is NULL",
		    dir == NULL ? "dir" : "fmt");
	va_start(ap, fmt);
	rec = wymcp__arena_vprintf(&ctx->arena, fmt, ap);
	va_end(ap);
	if (rec == NULL || (key = wymcp_idempotency_key(ctx)) == NULL ||
	    (path = wymcp_printf(ctx, "%s/%s", dir, key)) == NULL)
		return WYMCP_ERR_NOMEM;
	if ((e = link_record(ctx, dir, path, rec)) == 0 || e == EEXIST)
		return WYMCP_OK;
	if (e == ENOMEM)
		return WYMCP_ERR_NOMEM;
	wymcp__ctx_log(ctx, WYMCP_LOG_ERR, "wymcp_write_once(): %s: %s", dir,
	    strerror(e));
	return wymcp__why(ctx, WYMCP_ERR_IO, 0, "The record could not be "
	    "written in %s: %s", dir, strerror(e));
}

enum wymcp_err
wymcp_progress_step(struct wymcp_ctx *ctx, int total, const char *fmt, ...)
{
	va_list		 ap;
	const char	*msg = NULL;
	int		 k;

	if (ctx == NULL)
		return WYMCP_ERR_INVAL;
	k = ++ctx->call.steps;
	if (fmt != NULL) {
		va_start(ap, fmt);
		msg = wymcp__arena_vprintf(&ctx->arena, fmt, ap);
		va_end(ap);
		if (msg == NULL)
			return WYMCP_ERR_NOMEM;
	}
	/*
	 * A round run again in one request (a 2025-11-25 client asked on
	 * the held stream) counts from 1 again: steps already reported
	 * are not sent twice.
	 */
	if (ctx->out.have_progress && !((double)k > ctx->out.last_progress))
		return wymcp_cancelled(ctx) ? WYMCP_ERR_IO : WYMCP_OK;
	return wymcp_progress(ctx, k, total > 0 ? total : -1, msg);
}
