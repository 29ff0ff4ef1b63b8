/*
 * fuzz_jwks.c - libFuzzer target for what wymcp-authz parses around
 * its key sets and sockets (src/authz/fetch.c, jwks.c, jwt.c;
 * src/prog/peer.c)
 *
 * The first byte of the input says what the rest is:
 *
 *  0x00  a Cache-Control header value, as a JWKS answer carries it
 *        (authz_max_age(): -1 or more, and never past its own digits);
 *  0x01  a refreshed JWKS document: parsed into the source of issuer
 *        "https://a.example", replacing its keys as a scheduled load
 *        does, then a token of issuer "https://b.example" whose kid
 *        and alg are the first key's is checked against the set: a
 *        key of one issuer never verifies another's token;
 *  0x02  an --allow-peer ADDR[/BITS], then matched against a few
 *        addresses (a refused spec must say why);
 *  0x03  a --jwks-url or --introspect URL (authz_url_ok(): allowed,
 *        or refused with a reason, never both).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/socket.h>
#include <sys/un.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "authz/authz.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define NOW	1900000000L

static const char *issuers[] = { "https://a.example", "https://b.example" };
static struct authz_conf conf = {
	issuers, 2, "https://mcp.example/mcp", NULL, 0, "sub", NULL, 0, 30,
	"https://mcp.example/.well-known/oauth-protected-resource/mcp", "/mcp"
};

/* A copy of p with a NUL after it; caller frees. */
static char *
text(const uint8_t *p, size_t n)
{
	char	*s;

	if ((s = malloc(n + 1)) == NULL)
		abort();
	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

static void
cache_control(const uint8_t *p, size_t n)
{
	long	 age = authz_max_age((const char *)p, n);

	if (age < -1)
		abort();
}

/* base64url of a short string, no padding (RFC 7515 2). */
static void
b64(const char *in, char *out)
{
	static const char	 a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijkl"
	    "mnopqrstuvwxyz0123456789-_";
	size_t			 i, n = strlen(in), o = 0;
	unsigned int		 v;

	for (i = 0; i + 2 < n; i += 3) {
		v = (unsigned char)in[i] << 16 | (unsigned char)in[i + 1] << 8 |
		    (unsigned char)in[i + 2];
		out[o++] = a[v >> 18 & 63];
		out[o++] = a[v >> 12 & 63];
		out[o++] = a[v >> 6 & 63];
		out[o++] = a[v & 63];
	}
	if (n - i == 1) {
		v = (unsigned char)in[i] << 16;
		out[o++] = a[v >> 18 & 63];
		out[o++] = a[v >> 12 & 63];
	} else if (n - i == 2) {
		v = (unsigned char)in[i] << 16 | (unsigned char)in[i + 1] << 8;
		out[o++] = a[v >> 18 & 63];
		out[o++] = a[v >> 12 & 63];
		out[o++] = a[v >> 6 & 63];
	}
	out[o] = '\0';
}

static void
jwks(const uint8_t *p, size_t n)
{
	static const char	*alg[] = { "RS256", "ES256", "EdDSA" };
	struct authz_source	 src;
	struct authz_keyset	 ks;
	struct authz_token	 t;
	struct authz_key	*k;
	char			 err[256], hdr[512], h64[700], tok[1400];
	char			 c64[400];
	size_t			 nk;
	enum authz_verdict	 v;

	if (authz_jwks_parse((const char *)p, n, &k, &nk, err,
	    sizeof(err)) != 0) {
		if (err[0] == '\0')
			abort();
		return;
	}
	if (nk == 0 || nk > AUTHZ_KEYS_MAX)
		abort();
	/* The scheduled load's replacement, then a token of issuer B. */
	memset(&src, 0, sizeof(src));
	src.issuer = issuers[0];
	src.keys = k;
	src.nkeys = nk;
	memset(&ks, 0, sizeof(ks));
	ks.srcs = &src;
	ks.nsrcs = 1;
	snprintf(hdr, sizeof(hdr), "{\"alg\":\"%s\"%s%.200s%s}",
	    alg[k[0].kty], k[0].kid != NULL ? ",\"kid\":\"" : "",
	    k[0].kid != NULL && strchr(k[0].kid, '"') == NULL &&
	    strchr(k[0].kid, '\\') == NULL ? k[0].kid : "",
	    k[0].kid != NULL ? "\"" : "");
	b64(hdr, h64);
	b64("{\"iss\":\"https://b.example\","
	    "\"aud\":\"https://mcp.example/mcp\","
	    "\"sub\":\"x\",\"exp\":1900000300}", c64);
	snprintf(tok, sizeof(tok), "%s.%s.AAAA", h64, c64);
	v = authz_jwt_check(&conf, &ks, tok, strlen(tok), NOW, &t);
	if (v == AUTHZ_VALID || v == AUTHZ_BAD_SIGNATURE)
		abort();		/* B's token tried with A's key */
	authz_keyset_clear(&ks);
}

static void
peer(const uint8_t *p, size_t n)
{
	struct prog_peer	 pr;
	struct sockaddr_in	 s4;
	struct sockaddr_in6	 s6;
	char			*spec = text(p, n), err[256] = "";

	if (prog_peer_parse(spec, &pr, err, sizeof(err)) != 0) {
		if (err[0] == '\0')
			abort();
		free(spec);
		return;
	}
	if (pr.bits < 0 || pr.bits > 128)
		abort();
	memset(&s4, 0, sizeof(s4));
	s4.sin_family = AF_INET;
	s4.sin_addr.s_addr = htonl(0x0a000001);
	(void)prog_peer_allowed(&pr, 1, (struct sockaddr *)&s4,
	    sizeof(s4));
	memset(&s6, 0, sizeof(s6));
	s6.sin6_family = AF_INET6;
	memcpy(&s6.sin6_addr, pr.addr, 16);
	/* Its own address is always in its own prefix. */
	if (!prog_peer_allowed(&pr, 1, (struct sockaddr *)&s6, sizeof(s6)))
		abort();
	free(spec);
}

static void
url(const uint8_t *p, size_t n)
{
	char	*u = text(p, n), err[512] = "";

	if (!authz_url_ok(u, 0, err, sizeof(err)) && err[0] == '\0')
		abort();
	free(u);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	switch (data[0]) {
	case 0x00:
		cache_control(data + 1, size - 1);
		break;
	case 0x01:
		jwks(data + 1, size - 1);
		break;
	case 0x02:
		peer(data + 1, size - 1);
		break;
	case 0x03:
		url(data + 1, size - 1);
		break;
	}
	return 0;
}
