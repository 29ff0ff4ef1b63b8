/*
 * jwt.c - a bearer token checked as a JWT access token (RFC 9068): a
 * JWS in compact serialization (RFC 7515 section 7.1) whose signature
 * verifies with a key of the key set, then its claims (RFC 7519
 * section 4.1) against the options
 *
 * The order is fixed: shape and size, the JOSE header (alg from the
 * allow-list below: never "none", never an HMAC, so a public key can
 * never serve as an HMAC secret), the key (by kid, of the type the alg
 * needs, and of the JWK's own alg when it names one), the signature,
 * and only then the claims: iss exactly one of --issuer (and the one
 * whose key source held the key: the keys are chosen by the iss the
 * payload names, then that is checked again), aud holding
 * --audience (RFC 8707), exp required, nbf and iat with --leeway, the
 * principal claim, the scopes.  The required scopes are checked by the
 * caller (answer.c): a missing scope is a 403, not a 401.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/rsa.h>

#include "authz/authz.h"

/* The signature algorithms accepted (RFC 7518 section 3.1, RFC 8037). */
struct alg {
	const char	*name;
	enum authz_kty	 kty;
	int		 bits;		/* EC: the curve; else 0 */
	const char	*md;		/* digest, NULL for EdDSA */
	int		 pss;		/* RSASSA-PSS, salt = digest */
};
static const struct alg algs[] = {
	{ "RS256", AUTHZ_KTY_RSA, 0, "SHA256", 0 },
	{ "RS384", AUTHZ_KTY_RSA, 0, "SHA384", 0 },
	{ "RS512", AUTHZ_KTY_RSA, 0, "SHA512", 0 },
	{ "PS256", AUTHZ_KTY_RSA, 0, "SHA256", 1 },
	{ "PS384", AUTHZ_KTY_RSA, 0, "SHA384", 1 },
	{ "PS512", AUTHZ_KTY_RSA, 0, "SHA512", 1 },
	{ "ES256", AUTHZ_KTY_EC, 256, "SHA256", 0 },
	{ "ES384", AUTHZ_KTY_EC, 384, "SHA384", 0 },
	{ "EdDSA", AUTHZ_KTY_OKP, 0, NULL, 0 },
};

const char *
authz_why(enum authz_verdict v)
{
	switch (v) {
	case AUTHZ_VALID:
		return "valid";
	case AUTHZ_MALFORMED:
		return "The token is not a well-formed JWT";
	case AUTHZ_TOO_LARGE:
		return "The token is too large";
	case AUTHZ_BAD_HEADER:
		return "The token's JOSE header is not acceptable";
	case AUTHZ_BAD_ALG:
		return "The token's signature algorithm is not accepted";
	case AUTHZ_UNKNOWN_KEY:
		return "The token's signing key is unknown";
	case AUTHZ_BAD_SIGNATURE:
		return "The token's signature is invalid";
	case AUTHZ_BAD_ISSUER:
		return "The token's issuer is not accepted";
	case AUTHZ_BAD_AUDIENCE:
		return "The token was not issued for this resource";
	case AUTHZ_EXPIRED:
		return "The token has expired";
	case AUTHZ_NOT_YET:
		return "The token is not valid yet";
	case AUTHZ_BAD_IAT:
		return "The token was issued in the future";
	case AUTHZ_BAD_CLAIMS:
		return "The token's subject or scope claims are unusable";
	case AUTHZ_INACTIVE:
		return "The token is not active";
	case AUTHZ_UNAVAILABLE:
		return "The token could not be checked now";
	case AUTHZ_RATE_LIMITED:
		return "Too many tokens to check now";
	case AUTHZ_NOMEM:
		return "Out of memory";
	}
	return "invalid";
}

static const struct alg *
alg_find(const char *name)
{
	size_t	 i;

	for (i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
		if (strcmp(algs[i].name, name) == 0)
			return &algs[i];
	return NULL;
}

/* A string member, or NULL (absent or not a string). */
static const char *
str_member(struct json_object *o, const char *name)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(o, name, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/*
 * A NumericDate member (RFC 7519 section 2): 1 with *t, 0 when
 * absent, -1 when present but not a finite number.
 */
static int
date_member(struct json_object *o, const char *name, double *t)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(o, name, &v))
		return 0;
	if (json_object_is_type(v, json_type_int))
		*t = (double)json_object_get_int64(v);
	else if (json_object_is_type(v, json_type_double))
		*t = json_object_get_double(v);
	else
		return -1;
	return isfinite(*t) ? 1 : -1;
}

/*
 * The JOSE header: "alg" from the list, "typ" (when present) a JWT
 * one (RFC 9068 section 2.1: at+jwt), no "crit" (no extension is
 * understood).  jku, x5u and jwk are never followed: keys come only
 * from the configured key set.
 */
static enum authz_verdict
header_ok(struct json_object *h, const struct alg **a, const char **kid)
{
	const char		*alg, *typ;
	struct json_object	*v;

	if (!json_object_is_type(h, json_type_object))
		return AUTHZ_MALFORMED;
	if ((alg = str_member(h, "alg")) == NULL)
		return AUTHZ_BAD_HEADER;
	if ((*a = alg_find(alg)) == NULL)
		return AUTHZ_BAD_ALG;
	if (json_object_object_get_ex(h, "crit", &v))
		return AUTHZ_BAD_HEADER;
	if (json_object_object_get_ex(h, "typ", &v) &&
	    ((typ = str_member(h, "typ")) == NULL ||
	    (strcasecmp(typ, "JWT") != 0 && strcasecmp(typ, "at+jwt") != 0 &&
	    strcasecmp(typ, "application/at+jwt") != 0)))
		return AUTHZ_BAD_HEADER;
	if (json_object_object_get_ex(h, "kid", &v) &&
	    (*kid = str_member(h, "kid")) == NULL)
		return AUTHZ_BAD_HEADER;
	return AUTHZ_VALID;
}

/* May key k check a signature of algorithm a? */
static int
key_fits(const struct authz_key *k, const struct alg *a, const char *kid)
{
	if (k->kty != a->kty || (a->bits != 0 && k->bits != a->bits))
		return 0;
	if (k->alg != NULL && strcmp(k->alg, a->name) != 0)
		return 0;
	if (kid != NULL && (k->kid == NULL || strcmp(k->kid, kid) != 0))
		return 0;
	return 1;
}

/* JWS ECDSA signatures are R || S (RFC 7518 3.4); OpenSSL wants DER. */
static unsigned char *
ecdsa_der(const unsigned char *sig, size_t len, int *derlen)
{
	ECDSA_SIG	*es;
	BIGNUM		*r, *s;
	unsigned char	*der = NULL;

	if ((es = ECDSA_SIG_new()) == NULL)
		return NULL;
	r = BN_bin2bn(sig, (int)len / 2, NULL);
	s = BN_bin2bn(sig + len / 2, (int)len / 2, NULL);
	if (r == NULL || s == NULL || !ECDSA_SIG_set0(es, r, s)) {
		BN_free(r);
		BN_free(s);
		ECDSA_SIG_free(es);
		return NULL;
	}
	*derlen = i2d_ECDSA_SIG(es, &der);
	ECDSA_SIG_free(es);
	if (*derlen <= 0) {
		OPENSSL_free(der);
		return NULL;
	}
	return der;
}

/* 1 when sig verifies over msg with key k, 0 when not, -1 on error. */
static int
verify(const struct alg *a, const struct authz_key *k,
    const unsigned char *msg, size_t msglen, const unsigned char *sig,
    size_t siglen)
{
	EVP_MD_CTX	*mc;
	EVP_PKEY_CTX	*pc = NULL;
	const EVP_MD	*md = NULL;
	unsigned char	*der = NULL;
	int		 derlen = 0, rc = -1;

	if (a->kty == AUTHZ_KTY_EC) {
		if (siglen != (size_t)a->bits / 8 * 2)
			return 0;
		if ((der = ecdsa_der(sig, siglen, &derlen)) == NULL)
			return -1;
		sig = der;
		siglen = (size_t)derlen;
	} else if (a->kty == AUTHZ_KTY_OKP && siglen != 64)
		return 0;
	if (a->md != NULL && (md = EVP_get_digestbyname(a->md)) == NULL)
		goto out;
	if ((mc = EVP_MD_CTX_new()) == NULL)
		goto out;
	rc = 0;			/* a key OpenSSL refuses verifies nothing */
	if (EVP_DigestVerifyInit(mc, &pc, md, NULL, k->pkey) != 1)
		goto done;
	if (a->pss && (EVP_PKEY_CTX_set_rsa_padding(pc,
	    RSA_PKCS1_PSS_PADDING) <= 0 ||
	    EVP_PKEY_CTX_set_rsa_pss_saltlen(pc, RSA_PSS_SALTLEN_DIGEST) <= 0 ||
	    EVP_PKEY_CTX_set_rsa_mgf1_md(pc, md) <= 0))
		goto done;
	rc = EVP_DigestVerify(mc, sig, siglen, msg, msglen) == 1;
done:
	EVP_MD_CTX_free(mc);
out:
	ERR_clear_error();	/* a failed check leaves no queue behind */
	OPENSSL_free(der);
	return rc;
}

/* Does the aud claim (a string or an array of them) hold `want`? */
static int
audience_ok(struct json_object *claims, const char *want)
{
	struct json_object	*aud, *v;
	size_t			 i, n;

	if (!json_object_object_get_ex(claims, "aud", &aud))
		return 0;
	if (json_object_is_type(aud, json_type_string))
		return strcmp(json_object_get_string(aud), want) == 0;
	if (!json_object_is_type(aud, json_type_array))
		return 0;
	n = json_object_array_length(aud);
	for (i = 0; i < n; i++) {
		v = json_object_array_get_idx(aud, i);
		if (json_object_is_type(v, json_type_string) &&
		    strcmp(json_object_get_string(v), want) == 0)
			return 1;
	}
	return 0;
}

/* A scope-token (RFC 6749 section 3.3: 1*NQCHAR). */
static int
scope_token_ok(const char *s, size_t n)
{
	size_t	 i;

	if (n == 0 || n > 256)
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x21 || s[i] == '"' ||
		    s[i] == '\\' || (unsigned char)s[i] > 0x7e)
			return 0;
	return 1;
}

/* Append the words of one scope string, each checked; 0 or -1. */
static int
scope_words(struct authz_buf *b, const char *s)
{
	size_t	 k;

	while (*s != '\0') {
		if (*s == ' ') {
			s++;
			continue;
		}
		for (k = 0; s[k] != '\0' && s[k] != ' '; k++)
			continue;
		if (!scope_token_ok(s, k))
			return -1;
		if (b->len > 0)
			authz_buf_add(b, " ", 1);
		authz_buf_add(b, s, k);
		s += k;
	}
	return 0;
}

/*
 * The token's scopes as one space-separated string: the "scope" claim
 * (RFC 9068 section 2.2.3, RFC 8693 4.2) or, without one, "scp" (a
 * string or an array of strings, as some servers issue).  Returns a
 * malloc(3)ed string, "" for none, or NULL when a claim is malformed
 * (*nomem set when out of memory).
 */
static char *
scopes_of(struct json_object *claims, int *nomem)
{
	struct authz_buf	 b = { 0 };
	struct json_object	*v, *e;
	size_t			 i, n;
	int			 bad = 0;

	authz_buf_add(&b, "", 0);
	if (json_object_object_get_ex(claims, "scope", &v)) {
		if (!json_object_is_type(v, json_type_string) ||
		    scope_words(&b, json_object_get_string(v)))
			bad = 1;
	} else if (json_object_object_get_ex(claims, "scp", &v)) {
		if (json_object_is_type(v, json_type_string))
			bad = scope_words(&b, json_object_get_string(v));
		else if (!json_object_is_type(v, json_type_array))
			bad = 1;
		else {
			n = json_object_array_length(v);
			for (i = 0; i < n && !bad; i++) {
				e = json_object_array_get_idx(v, i);
				bad = !json_object_is_type(e, json_type_string)
				    || strchr(json_object_get_string(e), ' ')
				    != NULL || scope_words(&b,
				    json_object_get_string(e));
			}
		}
	}
	if (b.failed)
		*nomem = 1;
	if (bad || b.failed) {
		authz_buf_free(&b);
		return NULL;
	}
	return b.data;
}

/*
 * Strict UTF-8 (RFC 3629 section 4): no overlong form, no surrogate,
 * nothing past U+10FFFF.  U+FFFD is refused too: it is what json-c
 * makes of a lone surrogate escape ("\ud800"), so that two different
 * claims would read as one.
 */
static int
utf8_ok(const unsigned char *s, size_t n)
{
	size_t		 i = 0, k, len;
	unsigned int	 c, min;

	while (i < n) {
		c = s[i];
		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			len = 2;
			c &= 0x1f;
			min = 0x80;
		} else if (c >= 0xe0 && c <= 0xef) {
			len = 3;
			c &= 0x0f;
			min = 0x800;
		} else if (c >= 0xf0 && c <= 0xf4) {
			len = 4;
			c &= 0x07;
			min = 0x10000;
		} else
			return 0;
		if (n - i < len)
			return 0;
		for (k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			c = c << 6 | (s[i + k] & 0x3f);
		}
		if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff) ||
		    c == 0xfffd)
			return 0;
		i += len;
	}
	return 1;
}

/*
 * Is `s` (n bytes) fit for a response header and a FastCGI param: 1 to
 * AUTHZ_VALUE_MAX bytes, no NUL (a "\u0000" in a claim would cut it
 * short: "alice\u0000x" would read as "alice"), no other control
 * character, no space at either end, strict UTF-8?  (Header injection:
 * a CR or LF would start a header of the token's choosing.)
 */
static int
value_ok(const char *s, size_t n)
{
	size_t	 i;

	if (n == 0 || n > AUTHZ_VALUE_MAX || s[0] == ' ' || s[n - 1] == ' ')
		return 0;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return 0;
	return utf8_ok((const unsigned char *)s, n);
}

/*
 * A claim's value as text for an assign: a string as it is, any other
 * value as compact JSON.  malloc(3)ed; NULL when it is not fit for a
 * header (value_ok()) or out of memory.
 */
char *
authz_claim_text(struct json_object *v)
{
	const char	*s;
	size_t		 n;

	if (json_object_is_type(v, json_type_string)) {
		s = json_object_get_string(v);
		n = (size_t)json_object_get_string_len(v);
	} else {
		s = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
		    JSON_C_TO_STRING_NOSLASHESCAPE);
		n = s != NULL ? strlen(s) : 0;
	}
	if (s == NULL || !value_ok(s, n))
		return NULL;
	return strdup(s);
}

/*
 * The principal: the principal claim (value_ok()) as it is when one
 * --issuer is accepted; with several, "ISS#SUB", so that the same
 * subject of two issuers is two principals (an issuer has no fragment,
 * RFC 8414 section 2, so the first '#' ends it).  malloc(3)ed; NULL
 * with *nomem when out of memory, without it when unusable.
 */
static char *
principal_of(const struct authz_conf *c, const char *iss,
    struct json_object *cl, int *nomem)
{
	struct json_object	*v;
	const char		*sub;
	char			*p;
	size_t			 n;

	if ((sub = str_member(cl, c->principal)) == NULL)
		return NULL;
	if (!json_object_object_get_ex(cl, c->principal, &v) ||
	    !value_ok(sub, (size_t)json_object_get_string_len(v)))
		return NULL;
	n = c->nissuers > 1 ? strlen(iss) + 1 + strlen(sub) + 1 :
	    strlen(sub) + 1;
	if (n > AUTHZ_VALUE_MAX + 1)
		return NULL;
	if ((p = malloc(n)) == NULL) {
		*nomem = 1;
		return NULL;
	}
	if (c->nissuers > 1)
		snprintf(p, n, "%s#%s", iss, sub);
	else
		memcpy(p, sub, n);
	return p;
}

/*
 * The claims once the signature holds (or of an introspection answer,
 * RFC 7662 section 2.2, which uses the same names): iss must be one of
 * --issuer and, when `want` is not NULL, that one (the issuer of the
 * key that verified the token, or of the introspection endpoint).  On
 * AUTHZ_VALID, t->principal and t->scopes are allocated; cl stays the
 * caller's.
 */
enum authz_verdict
authz_claims_check(const struct authz_conf *c, const char *want,
    struct json_object *cl, time_t now, struct authz_token *t)
{
	const char	*iss;
	double		 exp, nbf, iat;
	size_t		 i;
	int		 r, nomem = 0;

	if (!json_object_is_type(cl, json_type_object))
		return AUTHZ_MALFORMED;
	if ((iss = str_member(cl, "iss")) == NULL ||
	    (want != NULL && strcmp(iss, want) != 0))
		return AUTHZ_BAD_ISSUER;
	for (i = 0; i < c->nissuers; i++)
		if (strcmp(c->issuers[i], iss) == 0)
			break;
	if (i == c->nissuers)
		return AUTHZ_BAD_ISSUER;
	if (!audience_ok(cl, c->audience))
		return AUTHZ_BAD_AUDIENCE;
	/* exp is required of an access token (RFC 9068 section 2.2). */
	if (date_member(cl, "exp", &exp) != 1 ||
	    (double)now >= exp + (double)c->leeway)
		return AUTHZ_EXPIRED;
	if ((r = date_member(cl, "nbf", &nbf)) < 0 ||
	    (r == 1 && (double)now + (double)c->leeway < nbf))
		return r < 0 ? AUTHZ_MALFORMED : AUTHZ_NOT_YET;
	if ((r = date_member(cl, "iat", &iat)) < 0 ||
	    (r == 1 && (double)now + (double)c->leeway < iat))
		return r < 0 ? AUTHZ_MALFORMED : AUTHZ_BAD_IAT;
	if ((t->principal = principal_of(c, iss, cl, &nomem)) == NULL)
		return nomem ? AUTHZ_NOMEM : AUTHZ_BAD_CLAIMS;
	if ((t->scopes = scopes_of(cl, &nomem)) == NULL) {
		free(t->principal);
		t->principal = NULL;
		return nomem ? AUTHZ_NOMEM : AUTHZ_BAD_CLAIMS;
	}
	return AUTHZ_VALID;
}

/* Three parts separated by dots: a JWS in compact form, maybe. */
int
authz_jwt_shaped(const char *tok, size_t len)
{
	size_t	 i, dots = 0;

	for (i = 0; i < len; i++)
		dots += tok[i] == '.';
	return dots == 2;
}

/*
 * Whether a key of issuer `iss' in `ks' that fits algorithm `a' and
 * `kid' signed msg[0..mlen) with signature sig[0..slen): AUTHZ_VALID,
 * AUTHZ_BAD_SIGNATURE (keys fit, none verified), AUTHZ_UNKNOWN_KEY (no
 * key fits) or AUTHZ_NOMEM.
 */
static enum authz_verdict
signed_by(const struct authz_keyset *ks, const char *iss,
    const struct alg *a, const char *kid, const unsigned char *msg,
    size_t mlen, const unsigned char *sig, size_t slen)
{
	const struct authz_source *src;
	size_t			 s, i;
	int			 tried = 0, ok;

	for (s = 0; s < ks->nsrcs; s++) {
		src = &ks->srcs[s];
		if (strcmp(src->issuer, iss) != 0)
			continue;
		for (i = 0; i < src->nkeys; i++) {
			if (!key_fits(&src->keys[i], a, kid))
				continue;
			tried = 1;
			if ((ok = verify(a, &src->keys[i], msg, mlen, sig,
			    slen)) < 0)
				return AUTHZ_NOMEM;
			if (ok)
				return AUTHZ_VALID;
		}
	}
	return tried ? AUTHZ_BAD_SIGNATURE : AUTHZ_UNKNOWN_KEY;
}

/*
 * Check `tok` (len bytes, the credentials of "Authorization: Bearer").
 * AUTHZ_VALID fills t (clear it with authz_token_clear()); any other
 * verdict leaves it empty.  AUTHZ_UNKNOWN_KEY tells the caller a
 * refreshed key set might know the key.
 */
enum authz_verdict
authz_jwt_check(const struct authz_conf *c, const struct authz_keyset *ks,
    const char *tok, size_t len, time_t now, struct authz_token *t)
{
	struct json_object	*hdr = NULL, *cl = NULL;
	unsigned char		*hb = NULL, *pb = NULL, *sb = NULL;
	const char		*d1, *d2, *kid = NULL, *iss;
	const struct alg	*a = NULL;
	size_t			 hlen, plen, slen, i;
	enum authz_verdict	 v;

	memset(t, 0, sizeof(*t));
	if (len > AUTHZ_TOKEN_MAX)
		return AUTHZ_TOO_LARGE;
	/* All failures from here on use goto out. */
	v = AUTHZ_MALFORMED;
	if ((d1 = memchr(tok, '.', len)) == NULL ||
	    (d2 = memchr(d1 + 1, '.', len - (size_t)(d1 + 1 - tok))) == NULL ||
	    memchr(d2 + 1, '.', len - (size_t)(d2 + 1 - tok)) != NULL)
		goto out;
	if ((hb = authz_b64url(tok, (size_t)(d1 - tok), &hlen)) == NULL ||
	    (pb = authz_b64url(d1 + 1, (size_t)(d2 - d1 - 1), &plen)) ==
	    NULL ||
	    (sb = authz_b64url(d2 + 1, len - (size_t)(d2 + 1 - tok), &slen))
	    == NULL)
		goto out;
	if ((hdr = authz_json(hb, hlen)) == NULL ||
	    (cl = authz_json(pb, plen)) == NULL)
		goto out;
	if ((v = header_ok(hdr, &a, &kid)) != AUTHZ_VALID)
		goto out;
	/*
	 * The keys of the token's issuer only: a key of one issuer never
	 * verifies another's token.  iss is read before the signature
	 * holds to choose them; claims_check() reads it again after.
	 */
	v = AUTHZ_MALFORMED;
	if (!json_object_is_type(cl, json_type_object))
		goto out;
	v = AUTHZ_BAD_ISSUER;
	if ((iss = str_member(cl, "iss")) == NULL)
		goto out;
	for (i = 0; i < c->nissuers; i++)
		if (strcmp(c->issuers[i], iss) == 0)
			break;
	if (i == c->nissuers)
		goto out;

	/* The signature is over the first two parts as sent. */
	if ((v = signed_by(ks, iss, a, kid, (const unsigned char *)tok,
	    (size_t)(d2 - tok), sb, slen)) != AUTHZ_VALID)
		goto out;
	if ((v = authz_claims_check(c, iss, cl, now, t)) != AUTHZ_VALID)
		goto out;
	t->claims = cl;
	cl = NULL;
out:
	if (v != AUTHZ_VALID) {
		free(t->principal);
		free(t->scopes);
		memset(t, 0, sizeof(*t));
	}
	json_object_put(hdr);
	json_object_put(cl);
	free(hb);
	free(pb);
	free(sb);
	return v;
}

void
authz_token_clear(struct authz_token *t)
{
	json_object_put(t->claims);
	free(t->principal);
	free(t->scopes);
	memset(t, 0, sizeof(*t));
}
