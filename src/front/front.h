/* front.h - internal interfaces of the wymcp-fcgi front end */
#ifndef WYMCP_FRONT_H
#define WYMCP_FRONT_H

/*
 * The front end is a program, not part of libwymcp: it may print, call
 * err(3) and exit.  Its files share this header only; it reaches the
 * library through the public wymcp.h alone.
 */

#include <sys/types.h>
#include <sys/socket.h>

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
 * An allowed FastCGI peer (--allow-peer ADDR[/BITS]), kept as an IPv6
 * prefix: an IPv4 address is its v4-mapped form (::ffff:a.b.c.d) with
 * 96 added to its prefix length, so that an IPv4 peer matches whether
 * it arrives on an IPv4 socket or, v4-mapped, on a dual-stack one.
 */
struct front_peer {
	unsigned char	 addr[16];	/* network byte order */
	int		 bits;		/* prefix length, 0 to 128 */
};

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
 * peer.c: FastCGI peers.  front_peer_parse() reads ADDR[/BITS] (IPv4,
 * IPv6, v4-mapped IPv6) into `p', or writes why not into `err' and
 * returns -1.  front_peer_allowed() says whether the socket address
 * `sa' (of `len' bytes) is in the list; a unix-domain peer always is.
 * front_addr_loopback() says whether an address is a loopback one
 * (127/8, ::1, ::ffff:127/104); front_addr_str() prints one.
 */
int		 front_peer_parse(const char *spec, struct front_peer *p,
		    char *err, size_t errlen);
int		 front_peer_allowed(const struct front_peer *, size_t n,
		    const struct sockaddr *sa, socklen_t len);
int		 front_addr_loopback(const struct sockaddr *, socklen_t);
const char	*front_addr_str(const struct sockaddr *, socklen_t,
		    char *buf, size_t len);

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
