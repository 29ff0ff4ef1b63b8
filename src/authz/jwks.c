/*
 * jwks.c - JSON Web Key Sets (RFC 7517) into OpenSSL public keys, and
 * the key sources wymcp-authz verifies with, each bound to its issuer:
 * loaded at start, reloaded on a schedule (Cache-Control max-age,
 * bounded), on SIGHUP and, at most once every AUTHZ_REFRESH_MIN
 * seconds a source, when a token names a key it does not have
 *
 * Only public signature keys are kept: RSA (RFC 7518 6.3, at least
 * AUTHZ_RSA_MIN_BITS), EC P-256 and P-384 (6.2) and OKP Ed25519 (RFC
 * 8037).  Symmetric ("oct") keys, keys whose "use" is not "sig", whose
 * "key_ops" lack "verify" or whose "alg" is not one wymcp-authz
 * accepts are skipped, so that no token can be checked with them.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>

#include "authz/authz.h"

/* A string member of a JWK, or NULL. */
static const char *
member(struct json_object *o, const char *name)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(o, name, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* A base64url member decoded; caller frees.  NULL when bad. */
static unsigned char *
member_bin(struct json_object *o, const char *name, size_t *len)
{
	const char	*s;

	if ((s = member(o, name)) == NULL)
		return NULL;
	return authz_b64url(s, strlen(s), len);
}

/* A key from OSSL_PARAMs (OpenSSL 3 "fromdata"). */
static EVP_PKEY *
fromdata(const char *type, OSSL_PARAM_BLD *bld)
{
	EVP_PKEY_CTX	*pc = NULL;
	OSSL_PARAM	*params = NULL;
	EVP_PKEY	*pkey = NULL;

	if ((params = OSSL_PARAM_BLD_to_param(bld)) == NULL ||
	    (pc = EVP_PKEY_CTX_new_from_name(NULL, type, NULL)) == NULL ||
	    EVP_PKEY_fromdata_init(pc) <= 0 ||
	    EVP_PKEY_fromdata(pc, &pkey, EVP_PKEY_PUBLIC_KEY, params) <= 0)
		pkey = NULL;
	OSSL_PARAM_free(params);
	EVP_PKEY_CTX_free(pc);
	return pkey;
}

/* RSA (RFC 7518 6.3.1): n and e. */
static EVP_PKEY *
rsa_key(struct json_object *jwk, int *bits)
{
	OSSL_PARAM_BLD	*bld = NULL;
	BIGNUM		*n = NULL, *e = NULL;
	unsigned char	*nb = NULL, *eb = NULL;
	size_t		 nlen, elen;
	EVP_PKEY	*pkey = NULL;

	if ((nb = member_bin(jwk, "n", &nlen)) == NULL ||
	    (eb = member_bin(jwk, "e", &elen)) == NULL ||
	    nlen == 0 || elen == 0 || elen > 8)
		goto out;
	if ((n = BN_bin2bn(nb, (int)nlen, NULL)) == NULL ||
	    (e = BN_bin2bn(eb, (int)elen, NULL)) == NULL ||
	    (bld = OSSL_PARAM_BLD_new()) == NULL ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e))
		goto out;
	pkey = fromdata("RSA", bld);
	if (pkey != NULL && (*bits = EVP_PKEY_get_bits(pkey)) <
	    AUTHZ_RSA_MIN_BITS) {
		EVP_PKEY_free(pkey);
		pkey = NULL;
	}
out:
	OSSL_PARAM_BLD_free(bld);
	BN_free(n);
	BN_free(e);
	free(nb);
	free(eb);
	return pkey;
}

/* EC (RFC 7518 6.2.1): crv, x and y, the point checked on the curve. */
static EVP_PKEY *
ec_key(struct json_object *jwk, int *bits)
{
	OSSL_PARAM_BLD	*bld = NULL;
	EVP_PKEY_CTX	*pc = NULL;
	EVP_PKEY	*pkey = NULL;
	unsigned char	*x = NULL, *y = NULL, pub[1 + 2 * 66];
	const char	*crv, *group;
	size_t		 xlen, ylen, clen;

	if ((crv = member(jwk, "crv")) == NULL)
		return NULL;
	if (strcmp(crv, "P-256") == 0) {
		group = "prime256v1";
		clen = 32;
	} else if (strcmp(crv, "P-384") == 0) {
		group = "secp384r1";
		clen = 48;
	} else
		return NULL;
	if ((x = member_bin(jwk, "x", &xlen)) == NULL ||
	    (y = member_bin(jwk, "y", &ylen)) == NULL ||
	    xlen != clen || ylen != clen)
		goto out;
	pub[0] = 0x04;			/* uncompressed point */
	memcpy(pub + 1, x, clen);
	memcpy(pub + 1 + clen, y, clen);
	if ((bld = OSSL_PARAM_BLD_new()) == NULL ||
	    !OSSL_PARAM_BLD_push_utf8_string(bld,
	    OSSL_PKEY_PARAM_GROUP_NAME, group, 0) ||
	    !OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY,
	    pub, 1 + 2 * clen))
		goto out;
	if ((pkey = fromdata("EC", bld)) == NULL)
		goto out;
	if ((pc = EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL)) == NULL ||
	    EVP_PKEY_public_check(pc) != 1) {
		EVP_PKEY_free(pkey);
		pkey = NULL;
	}
	*bits = (int)clen * 8;
out:
	EVP_PKEY_CTX_free(pc);
	OSSL_PARAM_BLD_free(bld);
	free(x);
	free(y);
	return pkey;
}

/* OKP (RFC 8037 2): Ed25519 and its 32-byte x. */
static EVP_PKEY *
okp_key(struct json_object *jwk, int *bits)
{
	unsigned char	*x;
	const char	*crv;
	size_t		 xlen;
	EVP_PKEY	*pkey = NULL;

	if ((crv = member(jwk, "crv")) == NULL ||
	    strcmp(crv, "Ed25519") != 0)
		return NULL;
	if ((x = member_bin(jwk, "x", &xlen)) == NULL)
		return NULL;
	if (xlen == 32)
		pkey = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, x,
		    xlen);
	*bits = 256;
	free(x);
	return pkey;
}

/* May this JWK verify signatures ("use", "key_ops")? */
static int
for_signing(struct json_object *jwk)
{
	struct json_object	*ops, *op;
	const char		*use;
	size_t			 i, n;

	if ((use = member(jwk, "use")) != NULL && strcmp(use, "sig") != 0)
		return 0;
	if (!json_object_object_get_ex(jwk, "key_ops", &ops))
		return 1;
	if (!json_object_is_type(ops, json_type_array))
		return 0;
	n = json_object_array_length(ops);
	for (i = 0; i < n; i++) {
		op = json_object_array_get_idx(ops, i);
		if (json_object_is_type(op, json_type_string) &&
		    strcmp(json_object_get_string(op), "verify") == 0)
			return 1;
	}
	return 0;
}

/* The "alg" a JWK of this type may carry (RFC 7518 3.1). */
static int
alg_fits(enum authz_kty kty, int bits, const char *alg)
{
	switch (kty) {
	case AUTHZ_KTY_RSA:
		return strcmp(alg, "RS256") == 0 || strcmp(alg, "RS384") == 0 ||
		    strcmp(alg, "RS512") == 0 || strcmp(alg, "PS256") == 0 ||
		    strcmp(alg, "PS384") == 0 || strcmp(alg, "PS512") == 0;
	case AUTHZ_KTY_EC:
		return strcmp(alg, bits == 256 ? "ES256" : "ES384") == 0;
	case AUTHZ_KTY_OKP:
		return strcmp(alg, "EdDSA") == 0;
	}
	return 0;
}

/* One JWK into `k`; 0, or -1 when it is not a key to keep. */
static int
one_key(struct json_object *jwk, struct authz_key *k)
{
	const char	*kty, *kid, *alg;

	memset(k, 0, sizeof(*k));
	if (!json_object_is_type(jwk, json_type_object) ||
	    (kty = member(jwk, "kty")) == NULL || !for_signing(jwk))
		return -1;
	if (strcmp(kty, "RSA") == 0) {
		k->kty = AUTHZ_KTY_RSA;
		k->pkey = rsa_key(jwk, &k->bits);
	} else if (strcmp(kty, "EC") == 0) {
		k->kty = AUTHZ_KTY_EC;
		k->pkey = ec_key(jwk, &k->bits);
	} else if (strcmp(kty, "OKP") == 0) {
		k->kty = AUTHZ_KTY_OKP;
		k->pkey = okp_key(jwk, &k->bits);
	}
	if (k->pkey == NULL)
		return -1;
	kid = member(jwk, "kid");
	alg = member(jwk, "alg");
	if ((alg != NULL && !alg_fits(k->kty, k->bits, alg)) ||
	    (kid != NULL && strlen(kid) > 256) ||
	    (kid != NULL && (k->kid = strdup(kid)) == NULL) ||
	    (alg != NULL && (k->alg = strdup(alg)) == NULL)) {
		authz_keys_free(k, 1);
		memset(k, 0, sizeof(*k));
		return -1;
	}
	return 0;
}

void
authz_keys_free(struct authz_key *keys, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		EVP_PKEY_free(keys[i].pkey);
		free(keys[i].kid);
		free(keys[i].alg);
	}
}

/*
 * Parse a JWKS document ({"keys":[…]}, RFC 7517 section 5).  Keys that
 * are not usable are skipped; a document that is not a key set, or
 * has no usable key, is an error.  On success *keys (caller frees
 * with authz_keys_free() and free(3)) holds *n keys.
 */
int
authz_jwks_parse(const char *buf, size_t len, struct authz_key **keys,
    size_t *n, char *err, size_t errlen)
{
	struct json_object	*doc, *arr;
	struct authz_key	*out;
	size_t			 i, total, got = 0;

	*keys = NULL;
	*n = 0;
	if ((doc = authz_json((const unsigned char *)buf, len)) == NULL) {
		snprintf(err, errlen, "not JSON");
		return -1;
	}
	if (!json_object_object_get_ex(doc, "keys", &arr) ||
	    !json_object_is_type(arr, json_type_array)) {
		json_object_put(doc);
		snprintf(err, errlen, "no \"keys\" array");
		return -1;
	}
	total = json_object_array_length(arr);
	if ((out = calloc(total > AUTHZ_KEYS_MAX ? AUTHZ_KEYS_MAX :
	    total + 1, sizeof(*out))) == NULL) {
		json_object_put(doc);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; i < total && got < AUTHZ_KEYS_MAX; i++)
		if (one_key(json_object_array_get_idx(arr, i), &out[got]) == 0)
			got++;
	json_object_put(doc);
	if (got == 0) {
		free(out);
		snprintf(err, errlen, "no usable signature key among %zu",
		    total);
		return -1;
	}
	*keys = out;
	*n = got;
	return 0;
}

/* Read a whole file of at most AUTHZ_JWKS_MAX bytes. */
static int
read_file(const char *path, struct authz_buf *b, char *err, size_t errlen)
{
	char	 chunk[8192];
	ssize_t	 r;
	int	 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while ((r = read(fd, chunk, sizeof(chunk))) > 0) {
		if (b->len + (size_t)r > AUTHZ_JWKS_MAX) {
			snprintf(err, errlen, "%s: larger than %d bytes", path,
			    AUTHZ_JWKS_MAX);
			close(fd);
			return -1;
		}
		authz_buf_add(b, chunk, (size_t)r);
	}
	close(fd);
	if (r < 0 || b->failed) {
		snprintf(err, errlen, "%s: %s", path, r < 0 ?
		    strerror(errno) : "out of memory");
		return -1;
	}
	return 0;
}

/*
 * (Re)load one source.  Its old keys stay in use when the load fails.
 * Returns 0, or -1 with the reason in err.  `now` is remembered as
 * the time of the last try, and the next load is scheduled: a URL's
 * set is used for its Cache-Control max-age, at least
 * AUTHZ_JWKS_TTL_MIN and at most AUTHZ_JWKS_TTL_MAX seconds (a file's
 * for AUTHZ_JWKS_TTL_MIN), then loaded again, so that a key withdrawn
 * from the set stops verifying within that bound; after a failed load,
 * AUTHZ_REFRESH_MIN seconds.
 */
int
authz_source_load(struct authz_source *src, time_t now, char *err,
    size_t errlen)
{
	struct authz_buf	 b = { 0 };
	struct authz_key	*got;
	size_t			 ngot;
	char			 why[256];
	const char		*what;
	long			 age = -1;

	what = src->file != NULL ? src->file : src->url;
	src->loaded = now;
	src->due = now + AUTHZ_REFRESH_MIN;	/* unless it loads */
	if (src->file != NULL ? read_file(src->file, &b, err, errlen) :
	    authz_fetch(src->url, AUTHZ_JWKS_MAX, &b, &age, err, errlen)) {
		authz_buf_free(&b);
		return -1;
	}
	if (authz_jwks_parse(b.data != NULL ? b.data : "", b.len, &got,
	    &ngot, why, sizeof(why))) {
		snprintf(err, errlen, "%s: %s", what, why);
		authz_buf_free(&b);
		return -1;
	}
	authz_buf_free(&b);
	src->due = now + (age < AUTHZ_JWKS_TTL_MIN ? AUTHZ_JWKS_TTL_MIN :
	    age > AUTHZ_JWKS_TTL_MAX ? AUTHZ_JWKS_TTL_MAX : age);
	authz_keys_free(src->keys, src->nkeys);
	free(src->keys);
	src->keys = got;
	src->nkeys = ngot;
	return 0;
}

/*
 * (Re)load every source.  Each one that fails keeps its old keys.
 * Returns 0, or -1 with the reason of the first failure in err.
 */
int
authz_keyset_load(struct authz_keyset *ks, time_t now, char *err,
    size_t errlen)
{
	char	 why[512];
	size_t	 i;
	int	 rc = 0;

	for (i = 0; i < ks->nsrcs; i++)
		if (authz_source_load(&ks->srcs[i], now, why,
		    sizeof(why)) != 0 && rc++ == 0)
			snprintf(err, errlen, "%s", why);
	ks->stale = 0;
	return rc == 0 ? 0 : -1;
}

/*
 * Load each source of `ks' that want() picks at `now'.  Returns 1 when
 * one loaded, 0 when none was picked, -1 when one failed (its old keys
 * stay; the reason in err).
 */
static int
load_picked(struct authz_keyset *ks, time_t now,
    int (*want)(const struct authz_keyset *, const struct authz_source *,
    time_t), char *err, size_t errlen)
{
	size_t	 i;
	int	 rc = 0;

	for (i = 0; i < ks->nsrcs; i++) {
		if (!want(ks, &ks->srcs[i], now))
			continue;
		if (authz_source_load(&ks->srcs[i], now, err, errlen) != 0)
			rc = -1;
		else if (rc == 0)
			rc = 1;
	}
	return rc;
}

/* Not loaded for AUTHZ_REFRESH_MIN seconds, or the set is stale. */
static int
refresh_wanted(const struct authz_keyset *ks, const struct authz_source *src,
    time_t now)
{
	return ks->stale || src->loaded == 0 || now < src->loaded ||
	    now - src->loaded >= AUTHZ_REFRESH_MIN;
}

/*
 * A token named a key the set does not have: reload each source whose
 * last load was at least AUTHZ_REFRESH_MIN seconds ago (every one when
 * a SIGHUP marked the set stale).  Returns 1 when a source was
 * reloaded, 0 when it was too soon for all, -1 when a reload failed
 * (its old keys stay; the reason in err).
 */
int
authz_keyset_refresh(struct authz_keyset *ks, time_t now, char *err,
    size_t errlen)
{
	int	 rc;

	rc = load_picked(ks, now, refresh_wanted, err, errlen);
	ks->stale = 0;
	return rc;
}

/* Its time has come (after the clock went back, too). */
static int
due(const struct authz_keyset *ks, const struct authz_source *src,
    time_t now)
{
	(void)ks;
	return src->due != 0 && (now >= src->due || now < src->loaded);
}

/*
 * Load each source whose time has come (authz_source_load()).  Returns
 * 1 when one loaded, 0 when none was due, -1 when one failed (its old
 * keys stay; the reason in err).
 */
int
authz_keyset_due(struct authz_keyset *ks, time_t now, char *err,
    size_t errlen)
{
	return load_picked(ks, now, due, err, errlen);
}

/* How many keys the sources hold together. */
size_t
authz_keyset_count(const struct authz_keyset *ks)
{
	size_t	 i, n = 0;

	for (i = 0; i < ks->nsrcs; i++)
		n += ks->srcs[i].nkeys;
	return n;
}

/* Forget the keys (not the sources). */
void
authz_keyset_clear(struct authz_keyset *ks)
{
	size_t	 i;

	for (i = 0; i < ks->nsrcs; i++) {
		authz_keys_free(ks->srcs[i].keys, ks->srcs[i].nkeys);
		free(ks->srcs[i].keys);
		ks->srcs[i].keys = NULL;
		ks->srcs[i].nkeys = 0;
	}
}
