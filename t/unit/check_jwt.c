/*
 * check_jwt.c - wymcp-authz's token checks (src/authz/jwt.c), key sets
 * (jwks.c) and answers (answer.c)
 *
 * The keys are made here with OpenSSL (RSA 2048, EC P-256, Ed25519),
 * written as a JWKS the way an authorization server publishes them,
 * and tokens are signed here too, so that every refusal of the issue's
 * list is one token that differs from a valid one in one thing: no
 * token, expired, not yet valid, wrong issuer, wrong audience, bad
 * signature, alg none, HS256 keyed with the public key, unknown kid,
 * a missing scope (403), oversized, malformed base64 or JSON.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rsa.h>
#include <sodium.h>

#include "authz/authz.h"

#define ISS	"https://as.example.com"
#define OTHER	"https://other.example.com"
#define AUD	"https://mcp.example.com/mcp"
#define NOW	1900000000L

static EVP_PKEY		*rsa, *ec, *ed, *rsa2;
static char		 jwks[16384];	/* rsa (kid r1), ec (e1), ed (d1) */
static char		 jwks_path[64], other_path[64];	/* ISS's, OTHER's */
static const char	*issuers[] = { ISS, OTHER };
static const char	*scopes[] = { "mcp:tools" };
static struct authz_assign assigns[] = {
	{ "email", "email" }, { "groups", "groups" }, { "evil", "evil" }
};
static struct authz_conf conf = {		/* one issuer: ISS */
	issuers, 1, AUD, scopes, 1, "sub", assigns, 3, 30,
	"https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
	"/mcp"
};
static struct authz_conf conf2 = {		/* two: ISS and OTHER */
	issuers, 2, AUD, scopes, 1, "sub", assigns, 3, 30,
	"https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
	"/mcp"
};
/* ISS's keys (jwks_path: r1, e1, d1), OTHER's (other_path: r2). */
static struct authz_source srcs[2];
static struct authz_keyset keys;
static char		 logged[4096];

static char *
b64(const unsigned char *p, size_t n)
{
	size_t	 len = sodium_base64_ENCODED_LEN(n,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	char	*s = malloc(len);

	ck_assert_ptr_nonnull(s);
	sodium_bin2base64(s, len, p, n,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	return s;
}

static char *
b64s(const char *s)
{
	return b64((const unsigned char *)s, strlen(s));
}

static char *
bn64(EVP_PKEY *k, const char *name)
{
	BIGNUM		*bn = NULL;
	unsigned char	 buf[1024];
	int		 n;

	ck_assert_int_eq(EVP_PKEY_get_bn_param(k, name, &bn), 1);
	n = BN_bn2bin(bn, buf);
	BN_free(bn);
	return b64(buf, (size_t)n);
}

/* The public JWK of k, with "kid" and extra members (or ""). */
static void
jwk(char *out, size_t len, EVP_PKEY *k, const char *kid, const char *extra)
{
	unsigned char	 pub[200];
	size_t		 plen = sizeof(pub);
	char		*a, *b;

	if (EVP_PKEY_get_base_id(k) == EVP_PKEY_RSA) {
		a = bn64(k, OSSL_PKEY_PARAM_RSA_N);
		b = bn64(k, OSSL_PKEY_PARAM_RSA_E);
		snprintf(out, len, "{\"kty\":\"RSA\",\"kid\":\"%s\","
		    "\"n\":\"%s\",\"e\":\"%s\"%s}", kid, a, b, extra);
	} else if (EVP_PKEY_get_base_id(k) == EVP_PKEY_EC) {
		ck_assert_int_eq(EVP_PKEY_get_octet_string_param(k,
		    OSSL_PKEY_PARAM_PUB_KEY, pub, sizeof(pub), &plen), 1);
		ck_assert_uint_eq(plen, 65);
		a = b64(pub + 1, 32);
		b = b64(pub + 33, 32);
		snprintf(out, len, "{\"kty\":\"EC\",\"kid\":\"%s\",\"crv\":"
		    "\"P-256\",\"x\":\"%s\",\"y\":\"%s\"%s}", kid, a, b, extra);
	} else {
		ck_assert_int_eq(EVP_PKEY_get_raw_public_key(k, pub, &plen),
		    1);
		a = b64(pub, plen);
		b = NULL;
		snprintf(out, len, "{\"kty\":\"OKP\",\"kid\":\"%s\",\"crv\":"
		    "\"Ed25519\",\"x\":\"%s\"%s}", kid, a, extra);
	}
	free(a);
	free(b);
}

/* Sign header.payload with alg; the whole token (caller frees). */
static char *
sign(const char *alg, EVP_PKEY *k, const char *hdr, const char *payload)
{
	EVP_MD_CTX	*mc = EVP_MD_CTX_new();
	EVP_PKEY_CTX	*pc = NULL;
	const EVP_MD	*md = NULL;
	unsigned char	 sig[1024], raw[64];
	const unsigned char *p;
	size_t		 slen = sizeof(sig);
	char		*h = b64s(hdr), *b = b64s(payload), *s, *tok;
	size_t		 n = strlen(h) + strlen(b) + 2;
	char		*input = malloc(n);
	ECDSA_SIG	*es;

	snprintf(input, n, "%s.%s", h, b);
	if (strcmp(alg, "EdDSA") != 0)
		md = alg[2] == '2' ? EVP_sha256() : alg[2] == '3' ?
		    EVP_sha384() : EVP_sha512();
	ck_assert_int_eq(EVP_DigestSignInit(mc, &pc, md, NULL, k), 1);
	if (alg[0] == 'P') {
		EVP_PKEY_CTX_set_rsa_padding(pc, RSA_PKCS1_PSS_PADDING);
		EVP_PKEY_CTX_set_rsa_pss_saltlen(pc, RSA_PSS_SALTLEN_DIGEST);
	}
	ck_assert_int_eq(EVP_DigestSign(mc, sig, &slen,
	    (unsigned char *)input, strlen(input)), 1);
	EVP_MD_CTX_free(mc);
	if (alg[0] == 'E' && alg[1] == 'S') {
		/* DER to R || S (RFC 7518 3.4) */
		p = sig;
		es = d2i_ECDSA_SIG(NULL, &p, (long)slen);
		ck_assert_ptr_nonnull(es);
		BN_bn2binpad(ECDSA_SIG_get0_r(es), raw, 32);
		BN_bn2binpad(ECDSA_SIG_get0_s(es), raw + 32, 32);
		ECDSA_SIG_free(es);
		s = b64(raw, 64);
	} else
		s = b64(sig, slen);
	n = strlen(input) + strlen(s) + 2;
	tok = malloc(n);
	snprintf(tok, n, "%s.%s", input, s);
	free(input);
	free(h);
	free(b);
	free(s);
	return tok;
}

/* Standard claims with `extra` members (each ",\"k\":v"). */
static char *
claims(const char *extra)
{
	static char	 buf[8192];

	snprintf(buf, sizeof(buf), "{\"iss\":\"%s\",\"aud\":\"%s\","
	    "\"sub\":\"alice\",\"exp\":%ld,\"iat\":%ld,"
	    "\"scope\":\"mcp:tools openid\"%s}", ISS, AUD, NOW + 300, NOW - 10,
	    extra);
	return buf;
}

static char *
rs(const char *payload)
{
	return sign("RS256", rsa, "{\"alg\":\"RS256\",\"kid\":\"r1\","
	    "\"typ\":\"at+jwt\"}", payload);
}

static enum authz_verdict
check(const char *tok)
{
	struct authz_token	 t;
	enum authz_verdict	 v;

	v = authz_jwt_check(&conf, &keys, tok, strlen(tok), NOW, &t);
	if (v == AUTHZ_VALID) {
		ck_assert_str_eq(t.principal, "alice");
		authz_token_clear(&t);
	}
	return v;
}

static void
logf_(int prio, const char *fmt, ...)
{
	va_list	 ap;
	size_t	 n = strlen(logged);

	(void)prio;
	va_start(ap, fmt);
	vsnprintf(logged + n, sizeof(logged) - n, fmt, ap);
	va_end(ap);
	n = strlen(logged);
	if (n + 1 < sizeof(logged))
		strcat(logged, "\n");
}

static void
write_file(const char *path, const char *doc)
{
	FILE	*f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(doc, f);
	fclose(f);
}

static void
write_jwks(const char *doc)
{
	write_file(jwks_path, doc);
}

static void
setup(void)
{
	char	 a[4096], b[2048], c[1024], d[4096 + 16];
	char	 err[256];
	int	 fd;

	jwk(a, sizeof(a), rsa, "r1", ",\"use\":\"sig\"");
	jwk(b, sizeof(b), ec, "e1", ",\"alg\":\"ES256\"");
	jwk(c, sizeof(c), ed, "d1", "");
	snprintf(jwks, sizeof(jwks), "{\"keys\":[%s,%s,%s]}", a, b, c);
	strcpy(jwks_path, "/tmp/check_jwt.XXXXXX");
	fd = mkstemp(jwks_path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	write_jwks(jwks);
	strcpy(other_path, "/tmp/check_jwt.XXXXXX");
	fd = mkstemp(other_path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	jwk(a, sizeof(a), rsa2, "r2", "");
	snprintf(d, sizeof(d), "{\"keys\":[%s]}", a);
	write_file(other_path, d);
	memset(srcs, 0, sizeof(srcs));
	srcs[0].issuer = ISS;
	srcs[0].file = jwks_path;
	srcs[1].issuer = OTHER;
	srcs[1].file = other_path;
	memset(&keys, 0, sizeof(keys));
	keys.srcs = srcs;
	keys.nsrcs = 2;
	ck_assert_int_eq(authz_keyset_load(&keys, NOW - 3600, err,
	    sizeof(err)), 0);
	ck_assert_uint_eq(srcs[0].nkeys, 3);
	ck_assert_uint_eq(authz_keyset_count(&keys), 4);
	/* No scheduled load unless a test asks for one (withdrawn_key). */
	srcs[0].due = srcs[1].due = 0;
	logged[0] = '\0';
}

static void
teardown(void)
{
	authz_keyset_clear(&keys);
	unlink(jwks_path);
	unlink(other_path);
}

/* ------------------------------------------------------------ valid */

START_TEST(each_algorithm)
{
	char	*t;

	t = rs(claims(""));
	ck_assert_int_eq(check(t), AUTHZ_VALID);
	free(t);
	t = sign("PS256", rsa, "{\"alg\":\"PS256\",\"kid\":\"r1\"}",
	    claims(""));
	ck_assert_int_eq(check(t), AUTHZ_VALID);
	free(t);
	t = sign("RS512", rsa, "{\"alg\":\"RS512\"}", claims(""));
	ck_assert_int_eq(check(t), AUTHZ_VALID);	/* no kid: by type */
	free(t);
	t = sign("ES256", ec, "{\"alg\":\"ES256\",\"kid\":\"e1\"}",
	    claims(""));
	ck_assert_int_eq(check(t), AUTHZ_VALID);
	free(t);
	t = sign("EdDSA", ed, "{\"alg\":\"EdDSA\",\"kid\":\"d1\","
	    "\"typ\":\"JWT\"}", claims(""));
	ck_assert_int_eq(check(t), AUTHZ_VALID);
	free(t);
}
END_TEST

START_TEST(claims_pass)
{
	struct authz_token	 t;
	char			*tok;

	/* aud as an array; scp instead of scope; iat/nbf in leeway. */
	tok = rs("{\"iss\":\"" ISS "\",\"aud\":[\"x\","
	    "\"" AUD "\"],\"sub\":\"alice\",\"exp\":1900000010,"
	    "\"nbf\":1900000020,\"iat\":1900000020,"
	    "\"scp\":[\"mcp:tools\",\"files:read\"]}");
	ck_assert_int_eq(authz_jwt_check(&conf, &keys, tok, strlen(tok),
	    NOW, &t), AUTHZ_VALID);
	ck_assert_str_eq(t.scopes, "mcp:tools files:read");
	authz_token_clear(&t);
	free(tok);
	/* Expired 20 s ago, within the 30 s leeway. */
	tok = rs("{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"sub\":\"alice\","
	    "\"exp\":1899999980}");
	ck_assert_int_eq(check(tok), AUTHZ_VALID);
	free(tok);
}
END_TEST

/* --------------------------------------------------------- refusals */

START_TEST(refuse_time)
{
	char	*t;

	t = rs("{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"sub\":\"alice\","
	    "\"exp\":1899999960}");
	ck_assert_int_eq(check(t), AUTHZ_EXPIRED);
	free(t);
	t = rs("{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"sub\":\"alice\"}");
	ck_assert_int_eq(check(t), AUTHZ_EXPIRED);	/* no exp */
	free(t);
	t = rs("{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"sub\":\"alice\","
	    "\"exp\":\"1999999999\"}");
	ck_assert_int_eq(check(t), AUTHZ_EXPIRED);	/* not a number */
	free(t);
	t = rs(claims(",\"nbf\":1900000100"));
	ck_assert_int_eq(check(t), AUTHZ_NOT_YET);
	free(t);
	t = rs("{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"sub\":\"alice\","
	    "\"exp\":1900000300,\"iat\":1900000100}");
	ck_assert_int_eq(check(t), AUTHZ_BAD_IAT);
	free(t);
}
END_TEST

START_TEST(refuse_iss_aud)
{
	char	*t;

	t = rs("{\"iss\":\"https://evil.example.com\",\"aud\":\"" AUD "\","
	    "\"sub\":\"alice\",\"exp\":1900000300}");
	ck_assert_int_eq(check(t), AUTHZ_BAD_ISSUER);
	free(t);
	t = rs("{\"iss\":\"" ISS "/\",\"aud\":\"" AUD "\","
	    "\"sub\":\"alice\",\"exp\":1900000300}");
	ck_assert_int_eq(check(t), AUTHZ_BAD_ISSUER);	/* exact only */
	free(t);
	t = rs("{\"aud\":\"" AUD "\",\"sub\":\"alice\",\"exp\":1900000300}");
	ck_assert_int_eq(check(t), AUTHZ_BAD_ISSUER);
	free(t);
	t = rs("{\"iss\":\"" ISS "\",\"aud\":\"https://mcp.example.com/\","
	    "\"sub\":\"alice\",\"exp\":1900000300}");
	ck_assert_int_eq(check(t), AUTHZ_BAD_AUDIENCE);
	free(t);
	t = rs("{\"iss\":\"" ISS "\",\"aud\":[\"a\",1],"
	    "\"sub\":\"alice\",\"exp\":1900000300}");
	ck_assert_int_eq(check(t), AUTHZ_BAD_AUDIENCE);
	free(t);
	t = rs("{\"iss\":\"" ISS "\",\"sub\":\"alice\",\"exp\":1900000300}");
	ck_assert_int_eq(check(t), AUTHZ_BAD_AUDIENCE);
	free(t);
}
END_TEST

START_TEST(refuse_signature)
{
	char	*t, *p;

	t = rs(claims(""));
	p = strrchr(t, '.') + 5;
	*p = *p == 'A' ? 'B' : 'A';
	ck_assert_int_eq(check(t), AUTHZ_BAD_SIGNATURE);
	free(t);
	/* Signed by another RSA key under kid r1. */
	t = sign("RS256", rsa2, "{\"alg\":\"RS256\",\"kid\":\"r1\"}",
	    claims(""));
	ck_assert_int_eq(check(t), AUTHZ_BAD_SIGNATURE);
	free(t);
	/* A payload swapped under a valid signature. */
	{
		char	*good = rs(claims("")), *other, *hdr, *sig, buf[8192];

		other = b64s(claims(",\"admin\":true"));
		hdr = strndup(good, (size_t)(strchr(good, '.') - good));
		sig = strrchr(good, '.') + 1;
		snprintf(buf, sizeof(buf), "%s.%s.%s", hdr, other, sig);
		ck_assert_int_eq(check(buf), AUTHZ_BAD_SIGNATURE);
		free(good);
		free(other);
		free(hdr);
	}
	/* ES256 with a signature of the wrong length. */
	t = sign("ES256", ec, "{\"alg\":\"ES256\",\"kid\":\"e1\"}",
	    claims(""));
	t[strlen(t) - 3] = '\0';
	ck_assert_int_ne(check(t), AUTHZ_VALID);
	free(t);
}
END_TEST

START_TEST(refuse_alg)
{
	unsigned char	 mac[64];
	unsigned int	 maclen = 0;
	char		*h, *b, *s, buf[8192];
	char		 input[8192];

	/* alg none, with and without a signature part. */
	h = b64s("{\"alg\":\"none\"}");
	b = b64s(claims(""));
	snprintf(buf, sizeof(buf), "%s.%s.", h, b);
	ck_assert_int_eq(check(buf), AUTHZ_BAD_ALG);
	snprintf(buf, sizeof(buf), "%s.%s", h, b);
	ck_assert_int_eq(check(buf), AUTHZ_MALFORMED);
	free(h);
	h = b64s("{\"alg\":\"NONE\",\"kid\":\"r1\"}");
	snprintf(buf, sizeof(buf), "%s.%s.", h, b);
	ck_assert_int_eq(check(buf), AUTHZ_BAD_ALG);
	free(h);

	/* HS256 keyed with the RSA public key as the JWKS shows it. */
	h = b64s("{\"alg\":\"HS256\",\"kid\":\"r1\"}");
	snprintf(input, sizeof(input), "%s.%s", h, b);
	HMAC(EVP_sha256(), jwks, (int)strlen(jwks),
	    (unsigned char *)input, strlen(input), mac, &maclen);
	s = b64(mac, maclen);
	snprintf(buf, sizeof(buf), "%s.%s", input, s);
	ck_assert_int_eq(check(buf), AUTHZ_BAD_ALG);
	free(h);
	free(s);
	free(b);

	/* An RS256 token naming the EC key; ES256 naming the RSA key. */
	s = sign("RS256", rsa, "{\"alg\":\"RS256\",\"kid\":\"e1\"}",
	    claims(""));
	ck_assert_int_eq(check(s), AUTHZ_UNKNOWN_KEY);
	free(s);
	s = sign("ES256", ec, "{\"alg\":\"ES256\",\"kid\":\"r1\"}",
	    claims(""));
	ck_assert_int_eq(check(s), AUTHZ_UNKNOWN_KEY);
	free(s);
	/* jwk/jku in the header are never used. */
	s = sign("EdDSA", ed, "{\"alg\":\"EdDSA\",\"kid\":\"zz\","
	    "\"jku\":\"https://evil.example.com/jwks\"}", claims(""));
	ck_assert_int_eq(check(s), AUTHZ_UNKNOWN_KEY);
	free(s);
}
END_TEST

START_TEST(refuse_header)
{
	char	*t;

	t = sign("RS256", rsa, "{\"alg\":\"RS256\",\"kid\":\"r1\","
	    "\"crit\":[\"exp\"]}", claims(""));
	ck_assert_int_eq(check(t), AUTHZ_BAD_HEADER);
	free(t);
	t = sign("RS256", rsa, "{\"alg\":\"RS256\",\"typ\":\"JOSE+JSON\"}",
	    claims(""));
	ck_assert_int_eq(check(t), AUTHZ_BAD_HEADER);
	free(t);
	t = sign("RS256", rsa, "{\"kid\":\"r1\"}", claims(""));
	ck_assert_int_eq(check(t), AUTHZ_BAD_HEADER);
	free(t);
	t = sign("RS256", rsa, "{\"alg\":\"RS256\",\"kid\":7}", claims(""));
	ck_assert_int_eq(check(t), AUTHZ_BAD_HEADER);
	free(t);
	t = sign("RS256", rsa, "{\"alg\":\"RS256\",\"kid\":\"nope\"}",
	    claims(""));
	ck_assert_int_eq(check(t), AUTHZ_UNKNOWN_KEY);
	free(t);
}
END_TEST

START_TEST(refuse_malformed)
{
	static const char *bad[] = {
		"", "a", "a.b", "a.b.c.d", "...", "e30.e30.",
		"eyJhbGciOiJSUzI1NiJ9=.e30.AAAA",	/* padding */
		"eyJhbGciOiJSUzI1NiJ9.e3 0.AAAA",	/* space */
		"eyJhbGciOiJSUzI1NiJ9.e+30.AAAA",	/* not url-safe */
		"W10.e30.AAAA",				/* header [] */
		"eyJhbGciOiJSUzI1NiJ9.e30x.AAAA",	/* stray bits */
		"eyJhbGciOiJSUzI1NiJ9.eyJhIjoxfX0.AAAA", /* {"a":1}} */
		"eyJhbGciOiJSUzI1NiIsfQ.e30.AAAA",	/* trailing comma */
		"eyJhbGciOiJSUzI1NiJ9.AA.AAAA",		/* NUL byte */
	};
	size_t		 i;
	char		*big;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(check(bad[i]) == AUTHZ_MALFORMED ||
		    check(bad[i]) == AUTHZ_BAD_HEADER, "%s: %d", bad[i],
		    check(bad[i]));
	big = malloc(AUTHZ_TOKEN_MAX + 2);
	memset(big, 'A', AUTHZ_TOKEN_MAX + 1);
	big[AUTHZ_TOKEN_MAX + 1] = '\0';
	ck_assert_int_eq(check(big), AUTHZ_TOO_LARGE);
	free(big);
}
END_TEST

START_TEST(refuse_claims)
{
	char	*t;

	t = rs("{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\","
	    "\"exp\":1900000300}");
	ck_assert_int_eq(check(t), AUTHZ_BAD_CLAIMS);	/* no sub */
	free(t);
	t = rs("{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\","
	    "\"sub\":\"alice\\r\\nX-Wymcp-Principal: root\","
	    "\"exp\":1900000300}");
	ck_assert_int_eq(check(t), AUTHZ_BAD_CLAIMS);	/* header injection */
	free(t);
	t = rs("{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"sub\":\"alice\","
	    "\"exp\":1900000300,\"scope\":\"a \\\"b\"}");
	ck_assert_int_eq(check(t), AUTHZ_BAD_CLAIMS);
	free(t);
	t = rs("{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"sub\":\"alice\","
	    "\"exp\":1900000300,\"scope\":[\"a\"]}");
	ck_assert_int_eq(check(t), AUTHZ_BAD_CLAIMS);
	free(t);
}
END_TEST

/* ------------------------------------------------------------- keys */

START_TEST(jwks_refusals)
{
	struct authz_key	*k;
	size_t			 n;
	char			 err[256], doc[8192], one[4096];
	EVP_PKEY		*small;

	ck_assert_int_eq(authz_jwks_parse("nope", 4, &k, &n, err,
	    sizeof(err)), -1);
	ck_assert_int_eq(authz_jwks_parse("{\"keys\":{}}", 11, &k, &n, err,
	    sizeof(err)), -1);
	ck_assert_int_eq(authz_jwks_parse("{\"keys\":[]}", 11, &k, &n, err,
	    sizeof(err)), -1);
	/* A symmetric key is never a verification key. */
	snprintf(doc, sizeof(doc), "{\"keys\":[{\"kty\":\"oct\",\"k\":"
	    "\"c2VjcmV0\",\"alg\":\"HS256\"}]}");
	ck_assert_int_eq(authz_jwks_parse(doc, strlen(doc), &k, &n, err,
	    sizeof(err)), -1);
	/* RSA 1024 is too small; an encryption key is skipped. */
	small = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)1024);
	jwk(one, sizeof(one), small, "s", "");
	snprintf(doc, sizeof(doc), "{\"keys\":[%s]}", one);
	ck_assert_int_eq(authz_jwks_parse(doc, strlen(doc), &k, &n, err,
	    sizeof(err)), -1);
	EVP_PKEY_free(small);
	jwk(one, sizeof(one), ec, "e", ",\"use\":\"enc\"");
	snprintf(doc, sizeof(doc), "{\"keys\":[%s]}", one);
	ck_assert_int_eq(authz_jwks_parse(doc, strlen(doc), &k, &n, err,
	    sizeof(err)), -1);
	/* A JWK alg that does not fit its type. */
	jwk(one, sizeof(one), ed, "e", ",\"alg\":\"RS256\"");
	snprintf(doc, sizeof(doc), "{\"keys\":[%s]}", one);
	ck_assert_int_eq(authz_jwks_parse(doc, strlen(doc), &k, &n, err,
	    sizeof(err)), -1);
	/* A point that is not on P-256. */
	snprintf(doc, sizeof(doc), "{\"keys\":[{\"kty\":\"EC\",\"crv\":"
	    "\"P-256\",\"x\":\"AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\","
	    "\"y\":\"AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\"}]}");
	ck_assert_int_eq(authz_jwks_parse(doc, strlen(doc), &k, &n, err,
	    sizeof(err)), -1);
	/* One good key among bad ones is kept. */
	jwk(one, sizeof(one), ed, "d1", "");
	snprintf(doc, sizeof(doc), "{\"keys\":[{\"kty\":\"oct\"},7,%s]}",
	    one);
	ck_assert_int_eq(authz_jwks_parse(doc, strlen(doc), &k, &n, err,
	    sizeof(err)), 0);
	ck_assert_uint_eq(n, 1);
	authz_keys_free(k, n);
	free(k);
}
END_TEST

START_TEST(jwk_alg_pins)
{
	char	 one[4096], doc[8192], err[256], *t;

	/* A JWK that says PS256 verifies no RS256 token. */
	jwk(one, sizeof(one), rsa, "r1", ",\"alg\":\"PS256\"");
	snprintf(doc, sizeof(doc), "{\"keys\":[%s]}", one);
	write_jwks(doc);
	ck_assert_int_eq(authz_keyset_load(&keys, NOW, err, sizeof(err)), 0);
	t = rs(claims(""));
	ck_assert_int_eq(check(t), AUTHZ_UNKNOWN_KEY);
	free(t);
	t = sign("PS256", rsa, "{\"alg\":\"PS256\",\"kid\":\"r1\"}",
	    claims(""));
	ck_assert_int_eq(check(t), AUTHZ_VALID);
	free(t);
}
END_TEST

/*
 * A key verifies its own issuer's tokens only (issue 21): ISS's claims
 * signed with OTHER's key, and OTHER's with ISS's, are refused; with
 * two issuers the principal names the issuer, so that alice of one is
 * not alice of the other.
 */
#define OTHER_CLAIMS "{\"iss\":\"" OTHER "\",\"aud\":\"" AUD "\","	\
	"\"sub\":\"alice\",\"exp\":1900000300,\"scope\":\"mcp:tools\"}"

static enum authz_verdict
check2(const char *tok, const char *principal)
{
	struct authz_token	 t;
	enum authz_verdict	 v;

	v = authz_jwt_check(&conf2, &keys, tok, strlen(tok), NOW, &t);
	if (v == AUTHZ_VALID) {
		ck_assert_str_eq(t.principal, principal);
		authz_token_clear(&t);
	}
	return v;
}

START_TEST(issuer_binding)
{
	struct authz_token	 t;
	char			*tok, ans[512];

	/* ISS's claims, OTHER's key: by kid, and without a kid. */
	tok = sign("RS256", rsa2, "{\"alg\":\"RS256\",\"kid\":\"r2\"}",
	    claims(""));
	ck_assert_int_eq(check2(tok, ""), AUTHZ_UNKNOWN_KEY);
	ck_assert_int_eq(check(tok), AUTHZ_UNKNOWN_KEY);
	free(tok);
	tok = sign("RS256", rsa2, "{\"alg\":\"RS256\"}", claims(""));
	ck_assert_int_eq(check2(tok, ""), AUTHZ_BAD_SIGNATURE);
	free(tok);
	/* OTHER's claims, ISS's key. */
	tok = rs(OTHER_CLAIMS);
	ck_assert_int_eq(check2(tok, ""), AUTHZ_UNKNOWN_KEY);
	free(tok);
	/* No iss: no keys to choose. */
	tok = rs("{\"aud\":\"" AUD "\",\"sub\":\"alice\","
	    "\"exp\":1900000300}");
	ck_assert_int_eq(check2(tok, ""), AUTHZ_BAD_ISSUER);
	free(tok);

	/* Each with its own key: two principals. */
	tok = rs(claims(""));
	ck_assert_int_eq(check2(tok, ISS "#alice"), AUTHZ_VALID);
	ck_assert_int_eq(check(tok), AUTHZ_VALID);	/* one issuer: sub */
	free(tok);
	tok = sign("RS256", rsa2, "{\"alg\":\"RS256\",\"kid\":\"r2\"}",
	    OTHER_CLAIMS);
	ck_assert_int_eq(check2(tok, OTHER "#alice"), AUTHZ_VALID);
	/* OTHER is not accepted by conf: its key source does not count. */
	ck_assert_int_eq(check(tok), AUTHZ_BAD_ISSUER);
	free(tok);

	/* An introspection answer of another issuer than the endpoint's. */
	snprintf(ans, sizeof(ans), "{\"active\":true,%s", OTHER_CLAIMS + 1);
	ck_assert_int_eq(authz_introspect_answer(&conf2, ISS, ans,
	    strlen(ans), NOW, &t), AUTHZ_BAD_ISSUER);
	ck_assert_int_eq(authz_introspect_answer(&conf2, OTHER, ans,
	    strlen(ans), NOW, &t), AUTHZ_VALID);
	ck_assert_str_eq(t.principal, OTHER "#alice");
	authz_token_clear(&t);
}
END_TEST

/* Every source of an issuer is used, not the last one alone. */
START_TEST(every_source)
{
	struct authz_source	 two[2];
	struct authz_keyset	 ks;
	struct authz_token	 t;
	char			 err[256], *tok;

	memset(two, 0, sizeof(two));
	two[0].issuer = two[1].issuer = ISS;
	two[0].file = jwks_path;
	two[1].file = other_path;
	memset(&ks, 0, sizeof(ks));
	ks.srcs = two;
	ks.nsrcs = 2;
	ck_assert_int_eq(authz_keyset_load(&ks, NOW, err, sizeof(err)), 0);
	tok = rs(claims(""));
	ck_assert_int_eq(authz_jwt_check(&conf, &ks, tok, strlen(tok), NOW,
	    &t), AUTHZ_VALID);
	authz_token_clear(&t);
	free(tok);
	tok = sign("RS256", rsa2, "{\"alg\":\"RS256\",\"kid\":\"r2\"}",
	    claims(""));
	ck_assert_int_eq(authz_jwt_check(&conf, &ks, tok, strlen(tok), NOW,
	    &t), AUTHZ_VALID);
	authz_token_clear(&t);
	free(tok);
	/* One that fails to load keeps its keys; the other still loads. */
	write_file(other_path, "{\"keys\":[]}");
	ck_assert_int_eq(authz_keyset_load(&ks, NOW, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, other_path));
	ck_assert_uint_eq(authz_keyset_count(&ks), 4);
	authz_keyset_clear(&ks);
}
END_TEST

/* --jwks-url and --introspect: https, or http to loopback only. */
START_TEST(insecure_http)
{
	static const char *good[] = {
		"https://as.example.com/jwks", "HTTPS://as.example.com/jwks",
		"http://127.0.0.1:8080/jwks", "http://127.9.9.9/jwks",
		"http://localhost/jwks", "http://LocalHost:1/jwks",
		"http://[::1]:8080/jwks", "http://[::ffff:127.0.0.1]/jwks",
	};
	static const char *bad[] = {
		"http://as.example.com/jwks", "HTTP://as.example.com/jwks",
		"http://10.0.0.1/jwks", "http://0.0.0.0:1/jwks",
		"http://[::2]/jwks", "http://127.0.0.1.example.com/jwks",
		"http://localhost.example.com/jwks",
		"http://127.0.0.1@as.example.com/jwks",
		"ftp://127.0.0.1/jwks", "file:///etc/passwd", "/jwks", "",
	};
	char	 err[512];
	size_t	 i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(authz_url_ok(good[i], 0, err, sizeof(err)),
		    "%s: %s", good[i], err);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		ck_assert_msg(!authz_url_ok(bad[i], 0, err, sizeof(err)),
		    "%s passed", bad[i]);
		ck_assert(err[0] != '\0');
	}
	/* --allow-insecure-http: any http host, still not ftp. */
	ck_assert(authz_url_ok("http://as.example.com/jwks", 1, err,
	    sizeof(err)));
	ck_assert(!authz_url_ok("ftp://as.example.com/jwks", 1, err,
	    sizeof(err)));
}
END_TEST

/* --allow-peer: wymcp-fcgi's rule, in wymcp-authz's copy of it. */
START_TEST(peer_rule)
{
	struct prog_peer	 p[2];
	struct sockaddr_in	 s4;
	struct sockaddr_in6	 s6;
	struct sockaddr_un	 su;
	char			 err[256];

	ck_assert_int_eq(prog_peer_parse("10.1.0.0/16", &p[0], err,
	    sizeof(err)), 0);
	ck_assert_int_eq(prog_peer_parse("[2001:db8::]/32", &p[1], err,
	    sizeof(err)), 0);
	ck_assert_int_eq(prog_peer_parse("10.1.0.1/16", &p[0], err,
	    sizeof(err)), -1);		/* host bits set */
	ck_assert_int_eq(prog_peer_parse("10.1.0.0/33", &p[0], err,
	    sizeof(err)), -1);
	ck_assert_int_eq(prog_peer_parse("example.com", &p[0], err,
	    sizeof(err)), -1);
	ck_assert_int_eq(prog_peer_parse("10.1.0.0/16", &p[0], err,
	    sizeof(err)), 0);
	memset(&s4, 0, sizeof(s4));
	s4.sin_family = AF_INET;
	inet_pton(AF_INET, "10.1.2.3", &s4.sin_addr);
	ck_assert(prog_peer_allowed(p, 2, (struct sockaddr *)&s4,
	    sizeof(s4)));
	ck_assert(!prog_addr_loopback((struct sockaddr *)&s4, sizeof(s4)));
	inet_pton(AF_INET, "10.2.0.1", &s4.sin_addr);
	ck_assert(!prog_peer_allowed(p, 2, (struct sockaddr *)&s4,
	    sizeof(s4)));
	ck_assert(prog_peer_allowed(p, 0, (struct sockaddr *)&s4,
	    sizeof(s4)));		/* no list: any */
	inet_pton(AF_INET, "127.0.0.1", &s4.sin_addr);
	ck_assert(prog_addr_loopback((struct sockaddr *)&s4, sizeof(s4)));
	memset(&s6, 0, sizeof(s6));
	s6.sin6_family = AF_INET6;
	inet_pton(AF_INET6, "::ffff:10.1.9.9", &s6.sin6_addr);
	ck_assert(prog_peer_allowed(p, 2, (struct sockaddr *)&s6,
	    sizeof(s6)));		/* v4-mapped */
	inet_pton(AF_INET6, "2001:db8:1::5", &s6.sin6_addr);
	ck_assert(prog_peer_allowed(p, 2, (struct sockaddr *)&s6,
	    sizeof(s6)));
	inet_pton(AF_INET6, "::", &s6.sin6_addr);
	ck_assert(!prog_addr_loopback((struct sockaddr *)&s6, sizeof(s6)));
	memset(&su, 0, sizeof(su));
	su.sun_family = AF_UNIX;
	ck_assert(prog_peer_allowed(p, 2, (struct sockaddr *)&su,
	    sizeof(su)));
}
END_TEST

/* ---------------------------------------------------------- answers */

static struct authz	 az;
static int		 check_mode;	/* WYMCP_AUTHZ=check */

static char *
answer(const char *authorization, const char *role, const char *uri,
    const char *method, time_t now)
{
	static char		 h[AUTHZ_TOKEN_MAX + 64], r[64], u[256], m[64];
	char			*env[9];
	size_t			 n = 0;
	struct authz_buf	 out = { 0 };

	if (authorization != NULL) {
		snprintf(h, sizeof(h), "HTTP_AUTHORIZATION=%s", authorization);
		env[n++] = h;
	}
	if (role != NULL) {
		snprintf(r, sizeof(r), "FCGI_ROLE=%s", role);
		env[n++] = r;
	}
	snprintf(u, sizeof(u), "REQUEST_URI=%s", uri);
	env[n++] = u;
	snprintf(m, sizeof(m), "REQUEST_METHOD=%s", method);
	env[n++] = m;
	if (check_mode)
		env[n++] = "WYMCP_AUTHZ=check";
	env[n] = NULL;
	az.conf = conf;
	az.log = logf_;
	authz_answer(&az, env, now, &out);
	ck_assert(!out.failed);
	return out.data;
}

static char *
bearer(const char *tok)
{
	static char	 buf[AUTHZ_TOKEN_MAX + 64];

	snprintf(buf, sizeof(buf), "Bearer %s", tok);
	return buf;
}

/*
 * A principal or assign that is not strict UTF-8, or that a NUL would
 * cut short, never reaches a header (issue 21).
 */
START_TEST(refuse_not_utf8)
{
	static const char *bad[] = {
		"al\xff" "ice",			/* not UTF-8 at all */
		"\xc0\xaf" "x",			/* overlong '/' */
		"\xe0\x80\xaf",			/* overlong, 3 bytes */
		"\xed\xa0\x80",			/* a surrogate, encoded */
		"\xf4\x90\x80\x80",		/* past U+10FFFF */
		"caf\xc3",			/* cut short */
		"\\ud800x",			/* lone surrogate: U+FFFD */
		"alice\\u0000evil",		/* NUL: would read "alice" */
	};
	char	 buf[512], *t, *a;
	size_t	 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(buf, sizeof(buf), "{\"iss\":\"" ISS "\",\"aud\":\""
		    AUD "\",\"sub\":\"%s\",\"exp\":1900000300}", bad[i]);
		t = rs(buf);
		ck_assert_msg(check(t) == AUTHZ_BAD_CLAIMS, "sub %zu", i);
		free(t);
	}
	/* Good UTF-8 passes as it is. */
	{
		struct authz_token	 tk;

		t = rs("{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"sub\":"
		    "\"zo\xc3\xab-\xf0\x9f\x98\x80\",\"exp\":1900000300}");
		ck_assert_int_eq(authz_jwt_check(&conf, &keys, t, strlen(t),
		    NOW, &tk), AUTHZ_VALID);
		ck_assert_str_eq(tk.principal, "zo\xc3\xab-\xf0\x9f\x98\x80");
		authz_token_clear(&tk);
		free(t);
	}
	/* An assign is left out (and logged), the check still passes. */
	az.keys = keys;
	az.conf = conf;
	az.log = logf_;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct authz_buf	 out = { 0 };
		char			 h[AUTHZ_TOKEN_MAX + 64];
		char			*env[] = { h, "REQUEST_URI=/mcp",
					    "REQUEST_METHOD=POST", NULL };

		snprintf(buf, sizeof(buf), ",\"email\":\"%s\"", bad[i]);
		t = rs(claims(buf));
		snprintf(h, sizeof(h), "HTTP_AUTHORIZATION=Bearer %s", t);
		authz_answer(&az, env, NOW, &out);
		a = out.data;
		ck_assert_ptr_nonnull(strstr(a, "Status: 200 OK\r\n"));
		ck_assert_msg(strstr(a, "Assign-Email") == NULL, "%zu: %s",
		    i, a);
		free(a);
		free(t);
	}
	ck_assert_ptr_nonnull(strstr(logged, "claim email: not fit"));
}
END_TEST

/*
 * High-S ECDSA signatures pass (wymcp-authz(8) says why): (r, n - s)
 * is a second valid signature of the same claims, which gives nothing
 * a holder of the token did not have; refusing it would refuse about
 * half the ES256 tokens of servers that do not normalize s.
 */
START_TEST(ecdsa_high_s)
{
	EC_GROUP	*g;
	BIGNUM		*s, *hs;
	unsigned char	 raw[64];
	size_t		 rlen;
	char		*t, *dot, *sig, buf[8192];

	t = sign("ES256", ec, "{\"alg\":\"ES256\",\"kid\":\"e1\"}",
	    claims(""));
	dot = strrchr(t, '.');
	ck_assert_int_eq(sodium_base642bin(raw, sizeof(raw), dot + 1,
	    strlen(dot + 1), NULL, &rlen, NULL,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING), 0);
	ck_assert_uint_eq(rlen, 64);
	g = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
	s = BN_bin2bn(raw + 32, 32, NULL);
	hs = BN_new();
	ck_assert(BN_sub(hs, EC_GROUP_get0_order(g), s));
	BN_bn2binpad(hs, raw + 32, 32);
	sig = b64(raw, 64);
	snprintf(buf, sizeof(buf), "%.*s.%s", (int)(dot - t), t, sig);
	ck_assert_int_eq(check(t), AUTHZ_VALID);
	ck_assert_int_eq(check(buf), AUTHZ_VALID);
	free(sig);
	free(t);
	BN_free(s);
	BN_free(hs);
	EC_GROUP_free(g);
}
END_TEST

START_TEST(answer_challenges)
{
	char	*a, *t;

	az.keys = keys;
	a = answer(NULL, NULL, "/mcp", "POST", NOW);
	ck_assert_ptr_nonnull(strstr(a, "Status: 401 "));
	ck_assert_ptr_nonnull(strstr(a, "\r\nWWW-Authenticate: Bearer "
	    "scope=\"mcp:tools\", resource_metadata=\"https://mcp.example.com"
	    "/.well-known/oauth-protected-resource/mcp\"\r\n"));
	ck_assert_ptr_null(strstr(a, "error=\""));
	free(a);
	a = answer("Basic YWxpY2U6cHc=", NULL, "/mcp", "POST", NOW);
	ck_assert_ptr_nonnull(strstr(a, "Status: 401 "));
	ck_assert_ptr_null(strstr(a, "error=\""));
	free(a);
	a = answer("Bearer", NULL, "/mcp", "POST", NOW);
	ck_assert_ptr_nonnull(strstr(a, "Status: 401 "));
	ck_assert_ptr_nonnull(strstr(a, "error=\"invalid_token\""));
	free(a);
	a = answer("Bearer a.b.c junk", NULL, "/mcp", "POST", NOW);
	ck_assert_ptr_nonnull(strstr(a, "error=\"invalid_token\""));
	free(a);

	t = rs(claims(""));
	a = answer(bearer(t), NULL, "/mcp", "POST", NOW + 3600);
	ck_assert_ptr_nonnull(strstr(a, "Status: 401 "));
	ck_assert_ptr_nonnull(strstr(a, "WWW-Authenticate: Bearer "
	    "error=\"invalid_token\", scope=\"mcp:tools\", resource_metadata="
	    "\"https://mcp.example.com/.well-known/oauth-protected-resource"
	    "/mcp\", error_description=\"The token has expired\"\r\n"));
	/* Nothing of the token is logged. */
	ck_assert_ptr_null(strstr(logged, strchr(t, '.') + 1));
	ck_assert_ptr_nonnull(strstr(logged, "refused: The token has "
	    "expired"));
	free(a);
	free(t);

	t = rs("{\"iss\":\"" ISS "\",\"aud\":\"" AUD "\",\"sub\":\"alice\","
	    "\"exp\":1900000300,\"scope\":\"openid\"}");
	a = answer(bearer(t), NULL, "/mcp", "POST", NOW);
	ck_assert_ptr_nonnull(strstr(a, "Status: 403 "));
	ck_assert_ptr_nonnull(strstr(a, "WWW-Authenticate: Bearer "
	    "error=\"insufficient_scope\", scope=\"mcp:tools\", "
	    "resource_metadata=\""));
	free(a);
	free(t);
}
END_TEST

START_TEST(answer_identity)
{
	char	*a, *t;

	az.keys = keys;
	t = rs(claims(",\"email\":\"alice@example.com\","
	    "\"groups\":[\"staff\",\"ops\"],\"evil\":\"x\\r\\ny: z\""));
	/* nginx: X-Wymcp-* for auth_request_set. */
	a = answer(bearer(t), NULL, "/mcp", "POST", NOW);
	ck_assert_ptr_nonnull(strstr(a, "Status: 200 OK\r\n"));
	ck_assert_ptr_nonnull(strstr(a, "\r\nX-Wymcp-Principal: alice\r\n"));
	ck_assert_ptr_nonnull(strstr(a, "\r\nX-Wymcp-Scopes: mcp:tools "
	    "openid\r\n"));
	ck_assert_ptr_nonnull(strstr(a, "\r\nX-Wymcp-Assign-Email: "
	    "alice@example.com\r\n"));
	ck_assert_ptr_nonnull(strstr(a, "\r\nX-Wymcp-Assign-Groups: "
	    "[\"staff\",\"ops\"]\r\n"));
	ck_assert_ptr_null(strstr(a, "Evil"));
	ck_assert_ptr_null(strstr(a, "y: z"));
	free(a);
	/* Apache mod_authnz_fcgi: Variable-WYMCP_*. */
	a = answer(bearer(t), "AUTHORIZER", "/mcp", "POST", NOW);
	ck_assert_ptr_nonnull(strstr(a, "Status: 200\r\n"));
	ck_assert_ptr_nonnull(strstr(a, "\r\nVariable-WYMCP_PRINCIPAL: "
	    "alice\r\n"));
	ck_assert_ptr_nonnull(strstr(a, "\r\nVariable-WYMCP_SCOPES: "
	    "mcp:tools openid\r\n"));
	ck_assert_ptr_nonnull(strstr(a, "\r\nVariable-WYMCP_ASSIGN_EMAIL: "
	    "alice@example.com\r\n"));
	free(a);
	free(t);
}
END_TEST

START_TEST(answer_metadata)
{
	char	*a;

	az.keys = keys;
	a = answer(NULL, NULL, "/.well-known/oauth-protected-resource/mcp",
	    "GET", NOW);
	ck_assert_ptr_nonnull(strstr(a, "Status: 200 OK\r\n"));
	ck_assert_ptr_nonnull(strstr(a, "\r\n\r\n{\"resource\":\"" AUD "\","
	    "\"authorization_servers\":[\"" ISS "\"],\"scopes_supported\":"
	    "[\"mcp:tools\"],\"bearer_methods_supported\":[\"header\"]}"));
	free(a);
	a = answer(NULL, NULL, "/.well-known/oauth-protected-resource?x=1",
	    "GET", NOW);
	ck_assert_ptr_nonnull(strstr(a, "Status: 200 OK\r\n"));
	free(a);
	a = answer(NULL, NULL, "/.well-known/oauth-protected-resource/other",
	    "GET", NOW);
	ck_assert_ptr_nonnull(strstr(a, "Status: 404 "));
	free(a);
	a = answer(NULL, NULL, "/.well-known/oauth-protected-resource",
	    "POST", NOW);
	ck_assert_ptr_nonnull(strstr(a, "Status: 405 "));
	free(a);
	/* Apache's authorizer role, and nginx's check: always a check. */
	a = answer(NULL, "AUTHORIZER", "/.well-known/oauth-protected-resource",
	    "GET", NOW);
	ck_assert_ptr_nonnull(strstr(a, "Status: 401 "));
	free(a);
	check_mode = 1;
	a = answer(NULL, NULL, "/.well-known/oauth-protected-resource",
	    "GET", NOW);
	check_mode = 0;
	ck_assert_ptr_nonnull(strstr(a, "Status: 401 "));
	free(a);
}
END_TEST

START_TEST(metadata_url)
{
	const char	*ep;
	char		*u;

	u = authz_metadata_url("https://h.example:8443/a/mcp", &ep);
	ck_assert_str_eq(u, "https://h.example:8443/.well-known/"
	    "oauth-protected-resource/a/mcp");
	ck_assert_str_eq(ep, "/a/mcp");
	free(u);
	u = authz_metadata_url("http://127.0.0.1:8080", &ep);
	ck_assert_str_eq(u, "http://127.0.0.1:8080/.well-known/"
	    "oauth-protected-resource");
	ck_assert_str_eq(ep, "");
	free(u);
	ck_assert_ptr_null(authz_metadata_url("mcp.example.com", &ep));
	ck_assert_ptr_null(authz_metadata_url("https://h/mcp#f", &ep));
	ck_assert_ptr_null(authz_metadata_url("https://h/\"", &ep));
}
END_TEST

/* A key the set does not have: reloaded, at most once a minute. */
START_TEST(refresh_unknown_kid)
{
	char	 one[4096], two[4096], doc[16384], *t, *a;

	az.keys = keys;
	az.keys.srcs[0].loaded = NOW - 3600;
	jwk(one, sizeof(one), rsa2, "r2", "");
	snprintf(doc, sizeof(doc), "{\"keys\":[%s]}", one);
	write_jwks(doc);
	t = sign("RS256", rsa2, "{\"alg\":\"RS256\",\"kid\":\"r2\"}",
	    claims(""));
	a = answer(bearer(t), NULL, "/mcp", "POST", NOW);
	ck_assert_ptr_nonnull(strstr(a, "Status: 200 OK\r\n"));
	ck_assert_ptr_nonnull(strstr(logged, "the key set was reloaded"));
	free(a);
	free(t);

	/* Ten seconds later another new key: too soon, refused. */
	jwk(two, sizeof(two), ed, "d9", "");
	snprintf(doc, sizeof(doc), "{\"keys\":[%s,%s]}", one, two);
	write_jwks(doc);
	t = sign("EdDSA", ed, "{\"alg\":\"EdDSA\",\"kid\":\"d9\"}",
	    claims(""));
	a = answer(bearer(t), NULL, "/mcp", "POST", NOW + 10);
	ck_assert_ptr_nonnull(strstr(a, "Status: 401 "));
	ck_assert_ptr_nonnull(strstr(a, "signing key is unknown"));
	free(a);
	/* A minute on, it loads. */
	a = answer(bearer(t), NULL, "/mcp", "POST", NOW + 61);
	ck_assert_ptr_nonnull(strstr(a, "Status: 200 OK\r\n"));
	free(a);
	/* SIGHUP (stale): the next check reloads whatever the time. */
	write_jwks(jwks);
	az.keys.stale = 1;
	a = answer(bearer(t), NULL, "/mcp", "POST", NOW + 62);
	ck_assert_ptr_nonnull(strstr(a, "Status: 401 "));
	free(a);
	free(t);
	keys = az.keys;
}
END_TEST

/* Cache-Control (RFC 9111 5.2): the max-age a key set is kept for. */
START_TEST(cache_control)
{
	static const struct {
		const char	*v;
		long		 age;
	} cases[] = {
		{ "", -1 }, { "public", -1 }, { "max-age=600", 600 },
		{ " public, MAX-AGE=120 ", 120 }, { "max-age=\"90\"", 90 },
		{ "max-age=600, no-cache", 0 }, { "no-store", 0 },
		{ "max-age=abc", 0 }, { "max-age=6x", 0 }, { "max-age=", 0 },
		{ "private=\"max-age=5, x\", max-age=7", 7 },
		{ "s-maxage=50", -1 }, { "max-age=99999999999999999999",
		LONG_MAX }, { "x-max-age=5", -1 }, { ",,,=,\"", -1 },
		{ "max-age=300\r\n", 300 }, { "a=\"\\\"\", max-age=3", 3 },
	};
	size_t	 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(authz_max_age(cases[i].v, strlen(cases[i].v)) ==
		    cases[i].age, "%s: %ld", cases[i].v,
		    authz_max_age(cases[i].v, strlen(cases[i].v)));
}
END_TEST

/*
 * A key withdrawn from the set stops verifying on the next scheduled
 * load (issue 21): AUTHZ_JWKS_TTL_MIN seconds for a file.
 */
START_TEST(withdrawn_key)
{
	char	 one[1024], doc[2048], err[256], *t, *a;

	az.keys = keys;
	ck_assert_int_eq(authz_keyset_load(&az.keys, NOW, err, sizeof(err)),
	    0);
	ck_assert_int_eq(az.keys.srcs[0].due, NOW + AUTHZ_JWKS_TTL_MIN);
	jwk(one, sizeof(one), ed, "d1", "");
	snprintf(doc, sizeof(doc), "{\"keys\":[%s]}", one);
	write_jwks(doc);			/* r1 withdrawn */
	t = rs(claims(""));
	a = answer(bearer(t), NULL, "/mcp", "POST",
	    NOW + AUTHZ_JWKS_TTL_MIN - 1);
	ck_assert_ptr_nonnull(strstr(a, "Status: 200 OK\r\n"));
	free(a);
	a = answer(bearer(t), NULL, "/mcp", "POST", NOW + AUTHZ_JWKS_TTL_MIN);
	ck_assert_ptr_nonnull(strstr(a, "Status: 401 "));
	ck_assert_ptr_nonnull(strstr(logged, "reloaded on schedule"));
	free(a);
	free(t);
	/* A load that fails keeps the keys, and is tried a minute on. */
	write_jwks("{\"keys\":[]}");
	a = answer(NULL, NULL, "/mcp", "POST", NOW + 2 * AUTHZ_JWKS_TTL_MIN);
	free(a);
	ck_assert_uint_eq(az.keys.srcs[0].nkeys, 1);
	ck_assert_int_eq(az.keys.srcs[0].due, NOW + 2 * AUTHZ_JWKS_TTL_MIN +
	    AUTHZ_REFRESH_MIN);
	keys = az.keys;
}
END_TEST

/*
 * An HTTP server of one canned answer for `n` requests, on a loopback
 * port (*port); its pid, stopped by http_stop().
 */
static pid_t
http_serve(const char *answer, int n, int *port)
{
	struct sockaddr_in	 sin;
	socklen_t		 len = sizeof(sin);
	char			 buf[4096];
	pid_t			 pid;
	int			 fd, c, i;
	ssize_t			 r;

	fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(fd, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(listen(fd, 8), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	*port = ntohs(sin.sin_port);
	if ((pid = fork()) == 0) {
		alarm(20);		/* never outlives a failed test */
		for (i = 0; i < n; i++) {
			if ((c = accept(fd, NULL, NULL)) == -1)
				_exit(1);
			/* The request head (the body, if any, is small). */
			r = read(c, buf, sizeof(buf));
			(void)r;
			if (write(c, answer, strlen(answer)) < 0)
				_exit(1);
			close(c);
		}
		_exit(0);
	}
	ck_assert_int_gt(pid, 0);
	close(fd);
	return pid;
}

/*
 * Stop the server of http_serve(): reap it when it is done (it exits
 * after its requests), else end it.  Never a signal to a PID it no
 * longer holds: one reaped may belong to another process by now (six
 * runs of this suite at once had one of their tests killed so).
 */
static void
http_stop(pid_t pid)
{
	int	 st, i;

	for (i = 0; i < 50; i++) {
		if (waitpid(pid, &st, WNOHANG) != 0)
			return;		/* reaped, or not our child */
		usleep(20000);
	}
	kill(pid, SIGTERM);
	waitpid(pid, &st, 0);
}

/* A URL's set: kept for its max-age, within the bounds. */
START_TEST(jwks_url_schedule)
{
	static const struct {
		const char	*cc;
		time_t		 ttl;
	} cases[] = {
		{ "", AUTHZ_JWKS_TTL_MIN },
		{ "Cache-Control: max-age=600\r\n", 600 },
		{ "Cache-Control: public\r\ncache-control: max-age=5\r\n",
		    AUTHZ_JWKS_TTL_MIN },
		{ "Cache-Control: max-age=86400\r\n", AUTHZ_JWKS_TTL_MAX },
		{ "Cache-Control: no-store\r\n", AUTHZ_JWKS_TTL_MIN },
	};
	struct authz_source	 src;
	char			 one[1024], doc[2048], resp[4096];
	char			 url[64], err[256];
	size_t			 i;
	pid_t			 pid;
	int			 port;

	jwk(one, sizeof(one), ed, "d1", "");
	snprintf(doc, sizeof(doc), "{\"keys\":[%s]}", one);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(resp, sizeof(resp), "HTTP/1.1 200 OK\r\n"
		    "Content-Type: application/json\r\n%s"
		    "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
		    cases[i].cc, strlen(doc), doc);
		pid = http_serve(resp, 1, &port);
		snprintf(url, sizeof(url), "http://127.0.0.1:%d/jwks", port);
		memset(&src, 0, sizeof(src));
		src.issuer = ISS;
		src.url = url;
		ck_assert_msg(authz_source_load(&src, NOW, err,
		    sizeof(err)) == 0, "%s", err);
		ck_assert_uint_eq(src.nkeys, 1);
		ck_assert_msg(src.due == NOW + cases[i].ttl, "%zu: %ld", i,
		    (long)(src.due - NOW));
		authz_keys_free(src.keys, src.nkeys);
		free(src.keys);
		http_stop(pid);
	}
}
END_TEST

/* ---------------------------------------------------- introspection */

#define ACTIVE(extra) "{\"active\":true,\"iss\":\"" ISS "\",\"aud\":"	\
	"\"" AUD "\",\"sub\":\"svc\",\"exp\":1900000300," 		\
	"\"scope\":\"mcp:tools\"" extra "}"

static enum authz_verdict
answer_of(const char *json)
{
	struct authz_token	 t;
	enum authz_verdict	 v;

	v = authz_introspect_answer(&conf, NULL, json, strlen(json), NOW,
	    &t);
	if (v == AUTHZ_VALID) {
		ck_assert_str_eq(t.principal, "svc");
		ck_assert_str_eq(t.scopes, "mcp:tools");
		authz_token_clear(&t);
	}
	return v;
}

/* An answer (RFC 7662 2.2) is checked as a JWT's claims are. */
START_TEST(introspection_answers)
{
	ck_assert_int_eq(answer_of(ACTIVE("")), AUTHZ_VALID);
	ck_assert_int_eq(answer_of("{\"active\":false}"), AUTHZ_INACTIVE);
	ck_assert_int_eq(answer_of("{\"active\":\"true\"}"),
	    AUTHZ_INACTIVE);
	ck_assert_int_eq(answer_of("{\"sub\":\"svc\"}"), AUTHZ_INACTIVE);
	ck_assert_int_eq(answer_of("[true]"), AUTHZ_UNAVAILABLE);
	ck_assert_int_eq(answer_of("<html>"), AUTHZ_UNAVAILABLE);
	ck_assert_int_eq(answer_of("{\"active\":true,\"iss\":\"" ISS "\","
	    "\"aud\":\"https://other.example.com\",\"sub\":\"svc\","
	    "\"exp\":1900000300}"), AUTHZ_BAD_AUDIENCE);
	ck_assert_int_eq(answer_of("{\"active\":true,\"iss\":\"" ISS "\","
	    "\"aud\":\"" AUD "\",\"sub\":\"svc\"}"), AUTHZ_EXPIRED);
	ck_assert_int_eq(answer_of("{\"active\":true,\"iss\":\"x\","
	    "\"aud\":\"" AUD "\",\"sub\":\"svc\",\"exp\":1900000300}"),
	    AUTHZ_BAD_ISSUER);
}
END_TEST

/*
 * A kept answer serves without asking (the endpoint here answers
 * nothing), until AUTHZ_CACHE_TTL or the token's exp, whichever is
 * first; the cache holds the token's digest, never the token.
 */
START_TEST(introspection_cache)
{
	struct authz_introspect	 in;
	struct authz_token	 t;
	unsigned char		 key[32];
	const char		*tok = "opaque-token-0123456789";
	char			 err[256];
	int			 cached;
	size_t			 i;

	memset(&in, 0, sizeof(in));
	in.url = "http://127.0.0.1:1/introspect";	/* nothing there */
	in.client_id = "rs";
	in.secret = "s";
	ck_assert_int_eq(authz_introspect_check(&conf, &in, tok, strlen(tok),
	    NOW, &t, &cached, err, sizeof(err)), AUTHZ_UNAVAILABLE);
	ck_assert(!cached);
	ck_assert_ptr_null(strstr(err, tok));
	crypto_generichash(key, sizeof(key), (const unsigned char *)tok,
	    strlen(tok), NULL, 0);
	memcpy(in.cache[5].key, key, sizeof(key));
	in.cache[5].answer = strdup(ACTIVE(""));
	in.cache[5].until = NOW + 60;
	ck_assert_int_eq(authz_introspect_check(&conf, &in, tok, strlen(tok),
	    NOW + 59, &t, &cached, err, sizeof(err)), AUTHZ_VALID);
	ck_assert(cached);
	ck_assert_str_eq(t.principal, "svc");
	authz_token_clear(&t);
	/* Another token is not served by this answer. */
	ck_assert_int_eq(authz_introspect_check(&conf, &in, "other", 5,
	    NOW, &t, &cached, err, sizeof(err)), AUTHZ_UNAVAILABLE);
	/* Past the slot's time: asked again. */
	ck_assert_int_eq(authz_introspect_check(&conf, &in, tok, strlen(tok),
	    NOW + 60, &t, &cached, err, sizeof(err)), AUTHZ_UNAVAILABLE);
	ck_assert(!cached);
	for (i = 0; i < AUTHZ_CACHE_SLOTS; i++)
		ck_assert_ptr_null(in.cache[i].answer == NULL ? NULL :
		    strstr(in.cache[i].answer, tok));
	authz_introspect_clear(&in);
}
END_TEST

/*
 * An unknown token is asked about once, then its refusal is kept
 * (issue 21: 52 requests made 52 calls).  The endpoint here answers
 * one call, then is gone: a second call would be AUTHZ_UNAVAILABLE.
 */
START_TEST(introspection_refusal_kept)
{
	static const char inactive[] = "HTTP/1.1 200 OK\r\n"
	    "Content-Type: application/json\r\nContent-Length: 16\r\n"
	    "Connection: close\r\n\r\n{\"active\":false}";
	struct authz_introspect	 in;
	struct authz_token	 t;
	char			 url[64], err[256];
	const char		*tok = "unknown-token-0123456789";
	int			 cached, port, i;
	pid_t			 pid;

	pid = http_serve(inactive, 1, &port);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/introspect", port);
	memset(&in, 0, sizeof(in));
	in.url = url;
	in.client_id = "rs";
	in.secret = "s";
	for (i = 0; i < 52; i++) {
		ck_assert_int_eq(authz_introspect_check(&conf, &in, tok,
		    strlen(tok), NOW + i / 10, &t, &cached, err, sizeof(err)),
		    AUTHZ_INACTIVE);
		ck_assert_int_eq(cached, i > 0);
	}
	http_stop(pid);
	/* AUTHZ_NEG_TTL on, it is asked again (and nobody answers). */
	ck_assert_int_eq(authz_introspect_check(&conf, &in, tok, strlen(tok),
	    NOW + AUTHZ_NEG_TTL, &t, &cached, err, sizeof(err)),
	    AUTHZ_UNAVAILABLE);
	authz_introspect_clear(&in);
}
END_TEST

/*
 * Past AUTHZ_INTRO_BURST calls at once, and AUTHZ_INTRO_RATE a second,
 * no call is made: 503 with Retry-After, no challenge.
 */
START_TEST(introspection_rate_limit)
{
	static const char inactive[] = "HTTP/1.1 200 OK\r\n"
	    "Content-Type: application/json\r\nContent-Length: 16\r\n"
	    "Connection: close\r\n\r\n{\"active\":false}";
	char		 url[64], tok[64], *a;
	int		 port, i;
	pid_t		 pid;

	pid = http_serve(inactive, AUTHZ_INTRO_BURST + AUTHZ_INTRO_RATE,
	    &port);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/introspect", port);
	az.keys = keys;
	az.intro.url = url;
	az.intro.client_id = "rs";
	az.intro.secret = "s";
	for (i = 0; i < AUTHZ_INTRO_BURST; i++) {
		snprintf(tok, sizeof(tok), "Bearer made-up-%d", i);
		a = answer(tok, NULL, "/mcp", "POST", NOW);
		ck_assert_msg(strstr(a, "Status: 401 ") != NULL, "%d: %s", i,
		    a);
		free(a);
	}
	a = answer("Bearer made-up-x", NULL, "/mcp", "POST", NOW);
	ck_assert_ptr_nonnull(strstr(a, "Status: 503 "));
	ck_assert_ptr_nonnull(strstr(a, "\r\nRetry-After: 1\r\n"));
	ck_assert_ptr_null(strstr(a, "WWW-Authenticate"));
	ck_assert_ptr_nonnull(strstr(a, "temporarily_unavailable"));
	free(a);
	ck_assert_ptr_nonnull(strstr(logged, "calls a second"));
	/* A kept refusal costs no call, limit or not. */
	a = answer("Bearer made-up-0", NULL, "/mcp", "POST", NOW);
	ck_assert_ptr_nonnull(strstr(a, "Status: 401 "));
	free(a);
	/* A second on, AUTHZ_INTRO_RATE more. */
	for (i = 0; i < AUTHZ_INTRO_RATE; i++) {
		snprintf(tok, sizeof(tok), "Bearer later-%d", i);
		a = answer(tok, NULL, "/mcp", "POST", NOW + 1);
		ck_assert_msg(strstr(a, "Status: 401 ") != NULL, "%d: %s", i,
		    a);
		free(a);
	}
	a = answer("Bearer later-x", NULL, "/mcp", "POST", NOW + 1);
	ck_assert_ptr_nonnull(strstr(a, "Status: 503 "));
	free(a);
	http_stop(pid);
	authz_introspect_clear(&az.intro);
	memset(&az.intro, 0, sizeof(az.intro));
}
END_TEST

/* An opaque token goes to introspection; a JWT to the keys. */
START_TEST(opaque_tokens_are_introspected)
{
	char	*a, *t;

	az.keys = keys;
	az.intro.url = "http://127.0.0.1:1/introspect";
	az.intro.client_id = "rs";
	az.intro.secret = "s";
	a = answer("Bearer opaque-token-0123456789", NULL, "/mcp", "POST",
	    NOW);
	ck_assert_ptr_nonnull(strstr(a, "Status: 503 "));
	ck_assert_ptr_null(strstr(a, "WWW-Authenticate"));
	ck_assert_ptr_nonnull(strstr(logged, "introspection: "));
	free(a);
	t = rs(claims(""));
	a = answer(bearer(t), NULL, "/mcp", "POST", NOW);
	ck_assert_ptr_nonnull(strstr(a, "Status: 200 OK\r\n"));
	free(a);
	free(t);
	memset(&az.intro, 0, sizeof(az.intro));
}
END_TEST

static Suite *
jwt_suite(void)
{
	Suite	*s = suite_create("jwt");
	TCase	*tc;

	tc = tcase_create("valid");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, each_algorithm);
	tcase_add_test(tc, claims_pass);
	suite_add_tcase(s, tc);

	tc = tcase_create("refusals");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, refuse_time);
	tcase_add_test(tc, refuse_iss_aud);
	tcase_add_test(tc, refuse_signature);
	tcase_add_test(tc, refuse_alg);
	tcase_add_test(tc, refuse_header);
	tcase_add_test(tc, refuse_malformed);
	tcase_add_test(tc, refuse_claims);
	tcase_add_test(tc, refuse_not_utf8);
	tcase_add_test(tc, ecdsa_high_s);
	suite_add_tcase(s, tc);

	tc = tcase_create("keys");
	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, jwks_refusals);
	tcase_add_test(tc, jwk_alg_pins);
	tcase_add_test(tc, issuer_binding);
	tcase_add_test(tc, every_source);
	tcase_add_test(tc, insecure_http);
	tcase_add_test(tc, peer_rule);
	tcase_add_test(tc, refresh_unknown_kid);
	tcase_add_test(tc, cache_control);
	tcase_add_test(tc, withdrawn_key);
	tcase_add_test(tc, jwks_url_schedule);
	suite_add_tcase(s, tc);

	tc = tcase_create("answers");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, answer_challenges);
	tcase_add_test(tc, answer_identity);
	tcase_add_test(tc, answer_metadata);
	tcase_add_test(tc, metadata_url);
	suite_add_tcase(s, tc);

	tc = tcase_create("introspection");
	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, introspection_answers);
	tcase_add_test(tc, introspection_cache);
	tcase_add_test(tc, introspection_refusal_kept);
	tcase_add_test(tc, introspection_rate_limit);
	tcase_add_test(tc, opaque_tokens_are_introspected);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	/* Made once: the forked tests inherit them. */
	rsa = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
	rsa2 = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
	ec = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	ed = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	if (sodium_init() < 0 || !rsa || !rsa2 || !ec || !ed)
		return 1;
	sr = srunner_create(jwt_suite());
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
