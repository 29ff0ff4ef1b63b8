/*
 * prog.h - what both programs (wymcp-fcgi in src/front, wymcp-authz in
 * src/authz) share, below both: their FastCGI peers and the files they
 * trust.  No libwymcp code uses it, and it is not part of the library.
 */
#ifndef WYMCP_PROG_H
#define WYMCP_PROG_H

#include <sys/types.h>
#include <sys/socket.h>

#include <limits.h>
#include <stddef.h>

/*
 * An allowed FastCGI peer (--allow-peer ADDR[/BITS]), kept as an IPv6
 * prefix: an IPv4 address is its v4-mapped form (::ffff:a.b.c.d) with
 * 96 added to its prefix length, so that an IPv4 peer matches whether
 * it arrives on an IPv4 socket or, v4-mapped, on a dual-stack one.
 */
struct prog_peer {
	unsigned char	 addr[16];	/* network byte order */
	int		 bits;		/* prefix length, 0 to 128 */
};

/*
 * peer.c: prog_peer_parse() reads ADDR[/BITS] (IPv4, IPv6, v4-mapped
 * IPv6) into `p', or writes why not into `err' and returns -1.
 * prog_peer_allowed() says whether the socket address `sa' (of `len'
 * bytes) is in the list; a unix-domain peer always is.
 * prog_addr_loopback() says whether an address is a loopback one
 * (127/8, ::1, ::ffff:127/104); prog_addr_str() prints one into `buf'
 * and returns it.
 */
int		 prog_peer_parse(const char *spec, struct prog_peer *p,
		    char *err, size_t errlen);
int		 prog_peer_allowed(const struct prog_peer *, size_t n,
		    const struct sockaddr *sa, socklen_t len);
int		 prog_addr_loopback(const struct sockaddr *, socklen_t);
const char	*prog_addr_str(const struct sockaddr *, socklen_t,
		    char *buf, size_t len);

/*
 * prog_peers_add() appends ADDR[/BITS] to the list `*v' of `*n' peers
 * (realloc'd; the caller frees it); prog_peers_env() appends those of
 * FCGI_WEB_SERVER_ADDRS (comma- or space-separated), libfcgi's own
 * filter, which the programs' workers apply themselves since they
 * accept.  0, or -1 with why in `err'.
 */
int		 prog_peers_add(struct prog_peer **v, size_t *n,
		    const char *spec, char *err, size_t errlen);
int		 prog_peers_env(struct prog_peer **v, size_t *n, char *err,
		    size_t errlen);

/*
 * A connection refused by the peer rule, said at most once each
 * PROG_REFUSED_LOG_MS: prog_refused() returns the line to log (in `buf',
 * counting the ones left unsaid since), or NULL to say nothing now.
 */
#define PROG_REFUSED_LOG_MS	1000
struct prog_refusals {
	int		 said;		/* a line was said */
	long long	 last_ms;	/* ... at this time */
	unsigned long	 unsaid;	/* refused since, not said */
};
const char	*prog_refused(struct prog_refusals *, long long now_ms,
		    const struct sockaddr *, socklen_t, char *buf,
		    size_t buflen);

/*
 * trust.c: may a program that runs as root before it drops privileges
 * load or trust the file at `path' (a module it runs, a key file, a
 * directory of skills)?  Its
 * real path and every directory above it owned by root, this process's
 * user or `also' ((uid_t)-1: none; the --user it will switch to, for a
 * file it rereads then) and writable by no one else (group root aside;
 * a sticky directory may be).  0 with the real path in `real', -1 with
 * why in `err' when it is not safe, -2 when it cannot be found.
 * `memo' (or NULL), zeroed by the caller and kept for files checked
 * together with one `also' (the modules of one load), remembers the
 * last directory whose whole path passed, so that its other files
 * cost one stat(2) each, not one per directory above them.
 */
struct prog_trust_memo {
	char		 dir[PATH_MAX];	/* "": none yet */
};
int		 prog_trusted(const char *path, uid_t also,
		    struct prog_trust_memo *memo, char *real, size_t reallen,
		    char *err, size_t errlen);

#endif /* WYMCP_PROG_H */
