/*
 * peer.c - which FastCGI peers may connect (--allow-peer), for both
 * programs: wymcp-fcgi and wymcp-authz
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prog/prog.h"

/* The first 12 bytes of a v4-mapped IPv6 address (RFC 4291 2.5.5.2). */
static const unsigned char v4mapped[12] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
};

/*
 * The address of `sa' as 16 bytes, an IPv4 one v4-mapped.  0, or -1
 * for another family or a short address.
 */
static int
addr16(const struct sockaddr *sa, socklen_t len, unsigned char *out)
{
	const struct sockaddr_in	*s4;
	const struct sockaddr_in6	*s6;

	if (sa == NULL)
		return -1;
	switch (sa->sa_family) {
	case AF_INET:
		if (len < (socklen_t)sizeof(*s4))
			return -1;
		s4 = (const struct sockaddr_in *)(const void *)sa;
		memcpy(out, v4mapped, 12);
		memcpy(out + 12, &s4->sin_addr, 4);
		return 0;
	case AF_INET6:
		if (len < (socklen_t)sizeof(*s6))
			return -1;
		s6 = (const struct sockaddr_in6 *)(const void *)sa;
		memcpy(out, &s6->sin6_addr, 16);
		return 0;
	default:
		return -1;
	}
}

/* Do the first `bits' bits of a and b agree? */
static int
prefix_eq(const unsigned char *a, const unsigned char *b, int bits)
{
	int	 full = bits / 8, rest = bits % 8;

	if (memcmp(a, b, (size_t)full) != 0)
		return 0;
	if (rest == 0)
		return 1;
	return ((a[full] ^ b[full]) & (0xff << (8 - rest)) & 0xff) == 0;
}

/* The prefix length after the '/' (NULL: none, `max'), or -1. */
static int
prefix_len(const char *s, int max)
{
	int	 bits = 0;

	if (s == NULL)
		return max;
	if (*s == '\0' || strlen(s) > 3)
		return -1;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		bits = bits * 10 + (*s - '0');
	}
	return bits > max ? -1 : bits;
}

/*
 * ADDR[/BITS]: an IPv4 address (BITS 0 to 32) or an IPv6 one, maybe in
 * brackets (BITS 0 to 128), without host bits beyond the prefix.
 */
int
prog_peer_parse(const char *spec, struct prog_peer *p, char *err,
    size_t errlen)
{
	struct in_addr	 a4;
	struct in6_addr	 a6;
	char		 buf[INET6_ADDRSTRLEN + 8], *addr, *slash;
	size_t		 len;
	int		 bits, max, i, have, mask;

	memset(p, 0, sizeof(*p));
	if (spec == NULL || (len = strlen(spec)) == 0 || len >= sizeof(buf)) {
		snprintf(err, errlen, "%s: not an address", spec != NULL ?
		    spec : "");
		return -1;
	}
	memcpy(buf, spec, len + 1);
	addr = buf;
	if ((slash = strchr(buf, '/')) != NULL)
		*slash++ = '\0';
	if (addr[0] == '[') {
		len = strlen(addr);
		if (len < 3 || addr[len - 1] != ']') {
			snprintf(err, errlen, "%s: unbalanced brackets", spec);
			return -1;
		}
		addr[len - 1] = '\0';
		addr++;
		if (inet_pton(AF_INET6, addr, &a6) != 1) {
			snprintf(err, errlen, "%s: not an IPv6 address", spec);
			return -1;
		}
		memcpy(p->addr, &a6, 16);
		max = 128;
	} else if (inet_pton(AF_INET, addr, &a4) == 1) {
		memcpy(p->addr, v4mapped, 12);
		memcpy(p->addr + 12, &a4, 4);
		max = 32;
	} else if (inet_pton(AF_INET6, addr, &a6) == 1) {
		memcpy(p->addr, &a6, 16);
		max = 128;
	} else {
		snprintf(err, errlen, "%s: not an IPv4 or IPv6 address", spec);
		return -1;
	}

	if ((bits = prefix_len(slash, max)) == -1) {
		snprintf(err, errlen, "%s: the prefix length is 0 to %d", spec,
		    max);
		return -1;
	}
	p->bits = max == 32 ? bits + 96 : bits;

	/* 10.0.0.1/8 is most likely a mistake for 10.0.0.0/8: refuse it. */
	for (i = 0; i < 16; i++) {
		have = p->bits - i * 8;		/* prefix bits in byte i */
		mask = have >= 8 ? 0xff : have <= 0 ? 0 :
		    (0xff << (8 - have)) & 0xff;
		if ((p->addr[i] & ~mask & 0xff) != 0) {
			snprintf(err, errlen, "%s: bits are set beyond the "
			    "/%d prefix", spec, bits);
			return -1;
		}
	}
	return 0;
}

int
prog_peer_allowed(const struct prog_peer *peers, size_t n,
    const struct sockaddr *sa, socklen_t len)
{
	unsigned char	 a[16];
	size_t		 i;

	if (sa != NULL && len >= (socklen_t)sizeof(sa_family_t) &&
	    sa->sa_family == AF_UNIX)
		return 1;
	if (addr16(sa, len, a) == -1)
		return 0;
	if (n == 0)
		return 1;
	for (i = 0; i < n; i++)
		if (prefix_eq(a, peers[i].addr, peers[i].bits))
			return 1;
	return 0;
}

int
prog_addr_loopback(const struct sockaddr *sa, socklen_t len)
{
	static const unsigned char	 one[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1
	};
	unsigned char			 a[16];

	if (sa != NULL && len >= (socklen_t)sizeof(sa_family_t) &&
	    sa->sa_family == AF_UNIX)
		return 1;
	if (addr16(sa, len, a) == -1)
		return 0;
	if (memcmp(a, one, 16) == 0)
		return 1;
	return memcmp(a, v4mapped, 12) == 0 && a[12] == 127;
}

const char *
prog_addr_str(const struct sockaddr *sa, socklen_t len, char *buf,
    size_t buflen)
{
	const struct sockaddr_in	*s4;
	const struct sockaddr_in6	*s6;
	const char			*r = NULL;

	if (sa != NULL && len >= (socklen_t)sizeof(sa_family_t)) {
		if (sa->sa_family == AF_INET &&
		    len >= (socklen_t)sizeof(*s4)) {
			s4 = (const struct sockaddr_in *)(const void *)sa;
			r = inet_ntop(AF_INET, &s4->sin_addr, buf,
			    (socklen_t)buflen);
		} else if (sa->sa_family == AF_INET6 &&
		    len >= (socklen_t)sizeof(*s6)) {
			s6 = (const struct sockaddr_in6 *)(const void *)sa;
			r = inet_ntop(AF_INET6, &s6->sin6_addr, buf,
			    (socklen_t)buflen);
		} else if (sa->sa_family == AF_UNIX)
			r = snprintf(buf, buflen, "unix") < 0 ? NULL : buf;
	}
	if (r == NULL)
		snprintf(buf, buflen, "?");
	return buf;
}


int
prog_peers_add(struct prog_peer **v, size_t *n, const char *spec, char *err,
    size_t errlen)
{
	struct prog_peer	*p;

	if ((p = reallocarray(*v, *n + 1, sizeof(*p))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*v = p;
	if (prog_peer_parse(spec, &p[*n], err, errlen) == -1)
		return -1;
	(*n)++;
	return 0;
}

int
prog_peers_env(struct prog_peer **v, size_t *n, char *err, size_t errlen)
{
	const char	*e;
	char		*copy, *tok, *save = NULL;
	int		 rc = 0;

	if ((e = getenv("FCGI_WEB_SERVER_ADDRS")) == NULL || *e == '\0')
		return 0;
	if ((copy = strdup(e)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (tok = strtok_r(copy, ", \t", &save); tok != NULL && rc == 0;
	    tok = strtok_r(NULL, ", \t", &save))
		rc = prog_peers_add(v, n, tok, err, errlen);
	free(copy);
	return rc;
}

const char *
prog_refused(struct prog_refusals *r, long long now_ms,
    const struct sockaddr *sa, socklen_t len, char *buf, size_t buflen)
{
	char	 a[64];

	if (r->said && now_ms - r->last_ms < PROG_REFUSED_LOG_MS) {
		r->unsaid++;
		return NULL;
	}
	snprintf(buf, buflen, "refused a FastCGI connection from %s: not in "
	    "--allow-peer%s", prog_addr_str(sa, len, a, sizeof(a)),
	    r->unsaid > 0 ? " (and others since the last such line)" : "");
	r->said = 1;
	r->last_ms = now_ms;
	r->unsaid = 0;
	return buf;
}
