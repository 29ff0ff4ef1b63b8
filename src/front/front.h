/* front.h - internal interfaces of the wymcp-fcgi front end */
#ifndef WYMCP_FRONT_H
#define WYMCP_FRONT_H

/*
 * The front end is a program, not part of libwymcp: it may print, call
 * err(3) and exit.  Its files share this header only; it reaches the
 * library through the public wymcp.h alone.
 */

#include <sys/types.h>

#include <stddef.h>

#include "wymcp.h"

#ifndef WYMCP_MODULEDIR
#define WYMCP_MODULEDIR		"/usr/local/lib/wymcp"
#endif

#define FRONT_NAME		"wymcp-fcgi"
#define FRONT_MAX_WORKERS	256		/* --workers upper bound */
#define FRONT_MAX_BODY		(1024UL * 1024 * 1024) /* --max-body bound */
#define FRONT_KEY_BYTES		32		/* --generate-key key size */

/*
 * Everything the command line says, parsed once at startup.  String
 * members point into argv; the arrays are allocated by main.c and live
 * as long as the process.
 */
struct front_opts {
	const char	 *listen;	/* --listen, or NULL: inherit */
	int		  workers;	/* --workers, 0 = no supervisor */
	const char	**modules;	/* --module, in order */
	size_t		  nmodules;
	const char	**origins;	/* --allow-origin, in order */
	size_t		  norigins;
	const char	 *keyfile;	/* --state-key-file, or NULL */
	const char	 *genkey;	/* --generate-key, or NULL */
	size_t		  max_body;	/* --max-body, or 0: default */
	const char	 *user;		/* --user, or NULL */
	const char	 *group;	/* --group, or NULL */
	int		  verbose;	/* number of -v */
	int		  modern_only;	/* --modern-only */
};

/*
 * main.c: logging.  Lines go to stderr as
 * "wymcp-fcgi[PID]: LEVEL: [id REQID] message", one write(2) each.
 */
extern int	 front_logmax;		/* highest WYMCP_LOG_* printed */
void		 front_log(int prio, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
void		 front_logfn(void *arg, int prio, const char *reqid,
		    const char *msg);

/*
 * fcgi.c: serving.  front_worker() runs the FastCGI accept loop on the
 * listening socket until told to stop and returns an exit status.
 * front_cgi() serves the one CGI request of this process and returns
 * an exit status.
 */
int		 front_worker(struct wymcp_server *, int listenfd);
int		 front_cgi(struct wymcp_server *);

/*
 * prefork.c: the supervisor.  Keeps `workers' (>= 1) processes running
 * front_worker() on the listening socket until SIGTERM or SIGINT, then
 * drains them; returns an exit status (in the supervisor only).
 */
int		 front_prefork(struct wymcp_server *, int listenfd, int owned,
		    int workers);

#endif /* WYMCP_FRONT_H */
