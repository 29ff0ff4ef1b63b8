/* util.c - error sentences, logging and small helpers */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "extern.h"

static const char *const errs[WYMCP_ERR__MAX] = {
	"success",					/* WYMCP_OK */
	"out of memory",				/* NOMEM */
	"invalid argument",				/* INVAL */
	"the tool failed",				/* TOOL */
	"the client did not declare this capability",	/* NOTSUP */
	"no tool run is open in this thread",		/* NORUN */
	"the schema is not of the required form",	/* SCHEMA */
	"the module could not be loaded",		/* MODULE */
	"the name is already registered",		/* DUP */
	"the request state could not be opened",	/* STATE */
	"input/output error",				/* IO */
	"the question waits for wymcp_input_flush()",	/* PENDING */
	"no such resource",				/* NOTFOUND */
};

const char *
wymcp_strerror(enum wymcp_err e)
{
	if ((int)e < 0 || e >= WYMCP_ERR__MAX)
		return "unknown error";
	return errs[e];
}

/*
 * Format a log line and hand it to the server's log function when its
 * priority is wanted.  The request id (if any) goes separately.
 */
void
wymcp__log(const struct wymcp_server *srv, const struct wymcp_ctx *ctx,
    int prio, const char *fmt, ...)
{
	char	 buf[1024];
	va_list	 ap;

	if (srv == NULL || srv->logfn == NULL || prio > srv->logmax)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	srv->logfn(srv->logarg, prio, ctx == NULL ? NULL : ctx->idstr, buf);
}

/* Record the reason for the last failed server call. */
void
wymcp__seterr(struct wymcp_server *srv, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(srv->errmsg, sizeof(srv->errmsg), fmt, ap);
	va_end(ap);
}

/*
 * Compact serialization as it goes on the wire: no spaces, no escaped
 * slashes.  Owned by `obj` (valid until it is modified or freed).
 */
const char *
wymcp__json(struct json_object *obj)
{
	return json_object_to_json_string_ext(obj,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

/*
 * A tool's log line: to the server's log when its priority is wanted
 * there, and to the client as notifications/message when the request
 * asked for it with _meta logLevel at this priority or below
 * (server/utilities/logging.mdx; stream.c).  The two filters are
 * independent.  What a line says is the tool author's responsibility:
 * a client that asks for logLevel receives it, so it must not carry
 * credentials, secrets or personal data (logging.mdx "Security").
 */
void
wymcp_log(struct wymcp_ctx *ctx, int prio, const char *fmt, ...)
{
	char	 buf[1024];
	va_list	 ap;
	int	 server, client;

	if (ctx == NULL || fmt == NULL)
		return;
	server = ctx->srv != NULL && ctx->srv->logfn != NULL &&
	    prio <= ctx->srv->logmax;
	client = ctx->loglevel >= 0 && prio <= ctx->loglevel &&
	    !ctx->cancelled;
	if (!server && !client)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (server)
		ctx->srv->logfn(ctx->srv->logarg, prio, ctx->idstr, buf);
	if (client)
		(void)wymcp__notify_log(ctx, prio, buf);
}

/*
 * Add the string member `k' to `o' when `v' is not NULL (nothing when
 * it is).  Returns 0, or -1 on allocation failure.
 */
int
wymcp__put_str(struct json_object *o, const char *k, const char *v)
{
	struct json_object	*s;

	if (v == NULL)
		return 0;
	if ((s = json_object_new_string(v)) == NULL)
		return -1;
	if (json_object_object_add(o, k, s)) {
		json_object_put(s);
		return -1;
	}
	return 0;
}

/*
 * The next word of a list the web server passes (WYMCP_TOOLS,
 * WYMCP_ALLOW_ORIGIN): words are separated by spaces, tabs or commas.
 * Returns the word and its length in *len, advancing *pp past it, or
 * NULL at the end of the list.
 */
const char *
wymcp__word(const char **pp, size_t *len)
{
	const char	*p = *pp, *e;

	while (*p == ' ' || *p == '\t' || *p == ',')
		p++;
	for (e = p; *e != '\0' && *e != ' ' && *e != '\t' && *e != ','; e++)
		continue;
	*pp = e;
	*len = (size_t)(e - p);
	return e == p ? NULL : p;
}
