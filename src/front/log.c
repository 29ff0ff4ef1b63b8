/* log.c - the front end's log: one line to stderr per write(2) */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "front.h"

int	 front_logmax = WYMCP_LOG_WARNING;

/* The request's time-limit warning was written (watch.c). */
static int	 timelimit_said;

int
front_log_claim_timelimit(void)
{
	return __atomic_exchange_n(&timelimit_said, 1, __ATOMIC_ACQ_REL) == 0;
}

void
front_log_reset_timelimit(void)
{
	__atomic_store_n(&timelimit_said, 0, __ATOMIC_RELEASE);
}

/*
 * Log one line to stderr in the front end's format, with one write(2)
 * so that lines from several workers never interleave.  Control
 * characters (a client can put them in a request id or a method name)
 * are replaced, and long lines are cut.  Usable as the library's
 * wymcp_log_fn.
 */
void
front_logfn(void *arg, int prio, const char *reqid, const char *msg)
{
	char		 line[2048];
	const char	*level;
	size_t		 len, i;
	ssize_t		 w;
	int		 n;

	(void)arg;
	if (prio > front_logmax)
		return;
	/* The worker's timer may have said it already (watch.c). */
	if (prio == WYMCP_LOG_WARNING && strstr(msg, ": still running at "
	    "its time limit (") != NULL && !front_log_claim_timelimit())
		return;
	if (prio <= WYMCP_LOG_ERR)
		level = "error";
	else if (prio == WYMCP_LOG_WARNING)
		level = "warning";
	else if (prio <= WYMCP_LOG_INFO)
		level = "info";
	else
		level = "debug";

	if (reqid != NULL)
		n = snprintf(line, sizeof(line), "%s[%ld]: %s: [id %s] %s",
		    FRONT_NAME, (long)getpid(), level, reqid, msg);
	else
		n = snprintf(line, sizeof(line), "%s[%ld]: %s: %s",
		    FRONT_NAME, (long)getpid(), level, msg);
	if (n < 0)
		return;
	len = (size_t)n;
	if (len > sizeof(line) - 2)
		len = sizeof(line) - 2;
	for (i = 0; i < len; i++)
		if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
			line[i] = '?';
	line[len++] = '\n';
	/* Nowhere to report a failure to log. */
	w = write(STDERR_FILENO, line, len);
	(void)w;
}

/*
 * printf-like front end logging at priority `prio' (WYMCP_LOG_*).
 */
void
front_log(int prio, const char *fmt, ...)
{
	char	 msg[1024];
	va_list	 ap;

	if (prio > front_logmax)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	front_logfn(NULL, prio, NULL, msg);
}
