/*
 * net.h - what both programs (wymcp-fcgi in src/front, wymcp-authz in
 * src/authz) need of their FastCGI sockets, below both: no libwymcp
 * code uses it, and it is not part of the library.
 */
#ifndef WYMCP_NET_H
#define WYMCP_NET_H

#include <sys/types.h>
#include <sys/socket.h>

#include <stddef.h>

/*
 * An allowed FastCGI peer (--allow-peer ADDR[/BITS]), kept as an IPv6
 * prefix: an IPv4 address is its v4-mapped form (::ffff:a.b.c.d) with
 * 96 added to its prefix length, so that an IPv4 peer matches whether
 * it arrives on an IPv4 socket or, v4-mapped, on a dual-stack one.
 */
struct net_peer {
	unsigned char	 addr[16];	/* network byte order */
	int		 bits;		/* prefix length, 0 to 128 */
};

/*
 * peer.c: net_peer_parse() reads ADDR[/BITS] (IPv4, IPv6, v4-mapped
 * IPv6) into `p', or writes why not into `err' and returns -1.
 * net_peer_allowed() says whether the socket address `sa' (of `len'
 * bytes) is in the list; a unix-domain peer always is.
 * net_addr_loopback() says whether an address is a loopback one
 * (127/8, ::1, ::ffff:127/104); net_addr_str() prints one into `buf'
 * and returns it.
 */
int		 net_peer_parse(const char *spec, struct net_peer *p,
		    char *err, size_t errlen);
int		 net_peer_allowed(const struct net_peer *, size_t n,
		    const struct sockaddr *sa, socklen_t len);
int		 net_addr_loopback(const struct sockaddr *, socklen_t);
const char	*net_addr_str(const struct sockaddr *, socklen_t,
		    char *buf, size_t len);

/*
 * net_peers_add() appends ADDR[/BITS] to the list `*v' of `*n' peers
 * (realloc'd; the caller frees it); net_peers_env() appends those of
 * FCGI_WEB_SERVER_ADDRS (comma- or space-separated), libfcgi's own
 * filter, which the programs' workers apply themselves since they
 * accept.  0, or -1 with why in `err'.
 */
int		 net_peers_add(struct net_peer **v, size_t *n,
		    const char *spec, char *err, size_t errlen);
int		 net_peers_env(struct net_peer **v, size_t *n, char *err,
		    size_t errlen);

/*
 * A connection refused by the peer rule, said at most once each
 * NET_REFUSED_LOG_MS: net_refused() returns the line to log (in `buf',
 * counting the ones left unsaid since), or NULL to say nothing now.
 */
#define NET_REFUSED_LOG_MS	1000
struct net_refusals {
	int		 said;		/* a line was said */
	long long	 last_ms;	/* ... at this time */
	unsigned long	 unsaid;	/* refused since, not said */
};
const char	*net_refused(struct net_refusals *, long long now_ms,
		    const struct sockaddr *, socklen_t, char *buf,
		    size_t buflen);

#endif /* WYMCP_NET_H */
