/* log.c - the server log and the last-failure message */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "setup/setup.h"

/*
 * Format a log line and hand it to the server's log function when its
 * priority is wanted.  The request id (if any) goes separately.
 */
void
wymcp__vlog(const struct wymcp_server *srv, const char *reqid, int prio,
    const char *fmt, va_list ap)
{
	char	 buf[1024];

	if (srv == NULL || srv->logfn == NULL || prio > srv->logmax)
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	srv->logfn(srv->logarg, prio, reqid, buf);
}

void
wymcp__log(const struct wymcp_server *srv, const char *reqid, int prio,
    const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	wymcp__vlog(srv, reqid, prio, fmt, ap);
	va_end(ap);
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
