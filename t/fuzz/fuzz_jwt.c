/*
 * fuzz_jwt.c - libFuzzer target for wymcp-authz's token, key set and
 * answer code (src/authz/jwt.c, jwks.c, answer.c)
 *
 * The first byte of the input says what the rest is:
 *
 *  0x00  a JOSE header and a claims set, separated by a newline: this
 *        target signs them with its own Ed25519 key (kid "k"), so the
 *        fuzzer reaches the header and claims checks behind the
 *        signature;
 *  0x01  a JWKS document, parsed as a key set;
 *  0x02  an introspection answer (RFC 7662), checked as one;
 *  else  the value of the Authorization header, as sent.  No such
 *        input can carry a valid signature: the answer must refuse.
 *
 * Every answer must be one well-formed CGI response: a Status line of
 * 200, 401 or 403 (or the metadata's), header lines of "Name: value"
 * with no control character in them (a CR or LF taken from a claim
 * would let a token write headers), and an empty line.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <sodium.h>

#include "authz/authz.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define NOW	1900000000L

static const char *issuers[] = { "https://as.example" };
static const char *scopes[] = { "mcp" };
static struct authz_assign assigns[] = {
	{ "email", "email" }, { "groups", "groups" }
};
static struct authz	 az;
static struct authz_source src;		/* the target's key, kid "k" */
static EVP_PKEY		*key;

static void
quiet(int prio, const char *fmt, ...)
{
	(void)prio;
	(void)fmt;
}

static char *
b64(const unsigned char *p, size_t n)
{
	size_t	 len = sodium_base64_ENCODED_LEN(n,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	char	*s;

	if ((s = malloc(len)) == NULL)
		abort();
	sodium_bin2base64(s, len, p, n,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	return s;
}

static void
init(void)
{
	unsigned char	 pub[32];
	size_t		 plen = sizeof(pub);
	char		 doc[256], err[256], *x;
	struct authz_key *k;
	size_t		 n;

	if (sodium_init() < 0 ||
	    (key = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519")) == NULL ||
	    EVP_PKEY_get_raw_public_key(key, pub, &plen) != 1)
		abort();
	x = b64(pub, plen);
	snprintf(doc, sizeof(doc), "{\"keys\":[{\"kty\":\"OKP\",\"crv\":"
	    "\"Ed25519\",\"kid\":\"k\",\"x\":\"%s\"}]}", x);
	free(x);
	if (authz_jwks_parse(doc, strlen(doc), &k, &n, err, sizeof(err)))
		abort();
	src.issuer = issuers[0];
	src.keys = k;
	src.nkeys = n;
	src.loaded = NOW;
	az.keys.srcs = &src;
	az.keys.nsrcs = 1;
	az.conf.issuers = issuers;
	az.conf.nissuers = 1;
	az.conf.audience = "https://mcp.example/mcp";
	az.conf.scopes = scopes;
	az.conf.nscopes = 1;
	az.conf.principal = "sub";
	az.conf.assigns = assigns;
	az.conf.nassigns = 2;
	az.conf.leeway = 30;
	az.conf.metadata = "https://mcp.example/.well-known/"
	    "oauth-protected-resource/mcp";
	az.conf.endpoint = "/mcp";
	az.log = quiet;
}

/* "Bearer " + header.payload signed with the target's key. */
static char *
signed_token(const uint8_t *p, size_t n)
{
	const uint8_t	*nl = memchr(p, '\n', n);
	unsigned char	 sig[64];
	size_t		 slen = sizeof(sig), len;
	char		*h, *b, *s, *out;
	EVP_MD_CTX	*mc;

	if (nl == NULL)
		return NULL;
	h = b64(p, (size_t)(nl - p));
	b = b64(nl + 1, n - (size_t)(nl + 1 - p));
	len = strlen(h) + strlen(b) + 200;
	if ((out = malloc(len)) == NULL || (mc = EVP_MD_CTX_new()) == NULL)
		abort();
	snprintf(out, len, "%s.%s", h, b);
	if (EVP_DigestSignInit(mc, NULL, NULL, NULL, key) != 1 ||
	    EVP_DigestSign(mc, sig, &slen, (unsigned char *)out,
	    strlen(out)) != 1)
		abort();
	EVP_MD_CTX_free(mc);
	s = b64(sig, slen);
	snprintf(out, len, "Bearer %s.%s.%s", h, b, s);
	free(h);
	free(b);
	free(s);
	return out;
}

/* The response must be well formed; abort() otherwise. */
static void
well_formed(const char *r, int may_allow)
{
	const char	*line, *end, *colon;

	if (strncmp(r, "Status: ", 8) != 0)
		abort();
	if (strncmp(r + 8, "200", 3) == 0 && !may_allow)
		abort();
	if (strncmp(r + 8, "200", 3) != 0 && strncmp(r + 8, "401", 3) != 0 &&
	    strncmp(r + 8, "403", 3) != 0)
		abort();
	for (line = r; (end = strstr(line, "\r\n")) != NULL && end != line;
	    line = end + 2) {
		if ((colon = memchr(line, ':', (size_t)(end - line))) == NULL ||
		    colon[1] != ' ')
			abort();
		for (; line < end; line++)
			if ((unsigned char)*line < 0x20 || *line == 0x7f)
				abort();
	}
	if (end == NULL)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct authz_buf	 out = { 0 };
	struct authz_key	*k;
	char			*hdr, *env[5], err[256];
	size_t			 n;
	int			 signed_in = 0;

	if (key == NULL)
		init();
	if (size > 0 && data[0] == 0x01) {
		if (authz_jwks_parse((const char *)data + 1, size - 1, &k,
		    &n, err, sizeof(err)) == 0) {
			if (n == 0 || n > AUTHZ_KEYS_MAX)
				abort();
			authz_keys_free(k, n);
			free(k);
		}
		return 0;
	}
	if (size > 0 && data[0] == 0x02) {
		struct authz_token	 t;

		if (authz_introspect_answer(&az.conf, NULL,
		    (const char *)data + 1, size - 1, NOW, &t) ==
		    AUTHZ_VALID) {
			if (t.principal == NULL || t.scopes == NULL ||
			    t.claims == NULL)
				abort();
			authz_token_clear(&t);
		}
		return 0;
	}
	if (size > 0 && data[0] == 0x00) {
		if ((hdr = signed_token(data + 1, size - 1)) == NULL)
			return 0;
		signed_in = 1;
	} else {
		if ((hdr = malloc(size + 1)) == NULL)
			abort();
		memcpy(hdr, data, size);
		hdr[size] = '\0';
	}
	n = strlen(hdr) + sizeof("HTTP_AUTHORIZATION=");
	if ((env[0] = malloc(n)) == NULL)
		abort();
	snprintf(env[0], n, "HTTP_AUTHORIZATION=%s", hdr);
	env[1] = "REQUEST_URI=/mcp";
	env[2] = "REQUEST_METHOD=POST";
	env[3] = (size & 1) ? "FCGI_ROLE=AUTHORIZER" : "FCGI_ROLE=RESPONDER";
	env[4] = NULL;
	authz_answer(&az, env, NOW, &out);
	if (out.failed || out.data == NULL)
		abort();
	well_formed(out.data, signed_in);
	authz_buf_free(&out);
	free(env[0]);
	free(hdr);
	return 0;
}
