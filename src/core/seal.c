/*
 * seal.c - sealed requestState
 *
 * requestState travels through the client, so it is attacker-controlled
 * (basic/patterns/mrtr.mdx "Security").  wymcp seals it with libsodium's
 * XChaCha20-Poly1305 AEAD and binds inside the seal the principal, an
 * expiry, the method, the tool name, a digest of the arguments and the
 * identity of the mounted tool set.  The token is base64url (no padding)
 * of: version (1 byte) | key id (4) | nonce (24) | ciphertext+tag; the
 * first five bytes are the additional data.  Any failure to open is one
 * error, never a partial run.
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
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "core/core.h"

#define SEAL_VERSION	1
#define HEAD_LEN	5
#define NONCE_LEN	crypto_aead_xchacha20poly1305_ietf_NPUBBYTES
#define TAG_LEN		crypto_aead_xchacha20poly1305_ietf_ABYTES
#define KEYFILE_MAX	(1024 * 1024)	/* as keyfile.c writes */
#define TOKEN_MAX	(8 * 1024 * 1024)

/* Compare two C strings for qsort. */
static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * Feed the canonical JSON of `v` to the hash: object keys sorted, no
 * white space, scalars as json-c writes them.  0 or -1.
 */
static int
hash_canon(crypto_generichash_state *st, struct json_object *v, int depth)
{
	const char	**keys, *s;
	struct json_object *m;
	size_t		 n, i;

	if (depth > 64)
		return -1;
	switch (json_object_get_type(v)) {
	case json_type_object:
		n = (size_t)json_object_object_length(v);
		if ((keys = calloc(n + 1, sizeof(*keys))) == NULL)
			return -1;
		i = 0;
		json_object_object_foreach(v, k, unused) {
			(void)unused;
			keys[i++] = k;
		}
		qsort(keys, n, sizeof(*keys), cmpstr);
		crypto_generichash_update(st, (const unsigned char *)"{", 1);
		for (i = 0; i < n; i++) {
			if (i > 0)
				crypto_generichash_update(st,
				    (const unsigned char *)",", 1);
			crypto_generichash_update(st,
			    (const unsigned char *)keys[i],
			    strlen(keys[i]) + 1);
			json_object_object_get_ex(v, keys[i], &m);
			if (hash_canon(st, m, depth + 1)) {
				free(keys);
				return -1;
			}
		}
		crypto_generichash_update(st, (const unsigned char *)"}", 1);
		free(keys);
		return 0;
	case json_type_array:
		n = json_object_array_length(v);
		crypto_generichash_update(st, (const unsigned char *)"[", 1);
		for (i = 0; i < n; i++) {
			if (i > 0)
				crypto_generichash_update(st,
				    (const unsigned char *)",", 1);
			if (hash_canon(st, json_object_array_get_idx(v, i),
			    depth + 1))
				return -1;
		}
		crypto_generichash_update(st, (const unsigned char *)"]", 1);
		return 0;
	default:
		s = wymcp__json(v);
		crypto_generichash_update(st, (const unsigned char *)s,
		    strlen(s));
		return 0;
	}
}

/* The hex digest of the arguments, canonical; arena-owned or NULL. */
static const char *
args_digest(struct wymcp_ctx *ctx)
{
	crypto_generichash_state st;
	unsigned char		 h[32];
	char			*hex;

	crypto_generichash_init(&st, NULL, 0, sizeof(h));
	if (hash_canon(&st, ctx->call.args, 0))
		return NULL;
	crypto_generichash_final(&st, h, sizeof(h));
	if ((hex = wymcp__arena_alloc(&ctx->arena, 65)) == NULL)
		return NULL;
	return sodium_bin2hex(hex, 65, h, sizeof(h));
}

/* The hex identity of the mounted tool set; arena-owned or NULL. */
static const char *
mount_digest(struct wymcp_ctx *ctx)
{
	crypto_generichash_state st;
	unsigned char		 h[32];
	char			*hex;
	size_t			 i;

	crypto_generichash_init(&st, NULL, 0, sizeof(h));
	for (i = 0; i < ctx->who.ntools; i++)
		crypto_generichash_update(&st, ctx->who.tools[i]->digest,
		    sizeof(ctx->who.tools[i]->digest));
	crypto_generichash_final(&st, h, sizeof(h));
	if ((hex = wymcp__arena_alloc(&ctx->arena, 65)) == NULL)
		return NULL;
	return sodium_bin2hex(hex, 65, h, sizeof(h));
}

/* Add a string member or null. */
static void
put(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, v != NULL ? json_object_new_string(v) :
	    NULL);
}

/*
 * Seal the answers of an interrupted run with the request's bindings.
 * Returns the token (arena-owned) or NULL on failure.
 */
const char *
wymcp__seal(struct wymcp_ctx *ctx, struct json_object *answers)
{
	const struct wymcp_server *srv = ctx->srv;
	struct json_object	*p = NULL;
	const char		*pt, *ad, *md;
	unsigned char		*bin = NULL;
	char			*tok = NULL;
	size_t			 ptlen, binlen, toklen;
	unsigned long long	 clen;

	if (srv->nkeys == 0 || (ad = args_digest(ctx)) == NULL ||
	    (md = mount_digest(ctx)) == NULL)
		return NULL;
	if ((p = json_object_new_object()) == NULL)
		return NULL;
	put(p, "p", ctx->who.principal);
	json_object_object_add(p, "e", json_object_new_int64(
	    (int64_t)time(NULL) + (int64_t)srv->state_ttl));
	put(p, "m", ctx->req.method);
	put(p, "n", ctx->call.name);
	put(p, "a", ad);
	put(p, "s", md);
	json_object_object_add(p, "r", json_object_get(answers));
	pt = wymcp__json(p);
	ptlen = strlen(pt);
	binlen = HEAD_LEN + NONCE_LEN + ptlen + TAG_LEN;
	if ((bin = wymcp__arena_alloc(&ctx->arena, binlen)) == NULL)
		goto out;
	bin[0] = SEAL_VERSION;
	memcpy(bin + 1, srv->keys[0].id, 4);
	randombytes_buf(bin + HEAD_LEN, NONCE_LEN);
	crypto_aead_xchacha20poly1305_ietf_encrypt(bin + HEAD_LEN + NONCE_LEN,
	    &clen, (const unsigned char *)pt, ptlen, bin, HEAD_LEN, NULL,
	    bin + HEAD_LEN, srv->keys[0].key);
	toklen = sodium_base64_encoded_len(binlen,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	if ((tok = wymcp__arena_alloc(&ctx->arena, toklen)) == NULL)
		goto out;
	sodium_bin2base64(tok, toklen, bin, binlen,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
out:
	json_object_put(p);
	return tok;
}

/* Is member `k` of `o` the string `want` (or null when want is NULL)? */
static int
is(struct json_object *o, const char *k, const char *want)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(o, k, &v))
		return 0;
	if (want == NULL)
		return v == NULL;
	return json_object_is_type(v, json_type_string) &&
	    strcmp(json_object_get_string(v), want) == 0;
}

/*
 * Open a requestState and check every binding.  Returns 0 with
 * *answers (request-owned) or -1; the reason is logged at debug level
 * only, since the client gets one message whatever failed.
 */
int
wymcp__unseal(struct wymcp_ctx *ctx, const char *tok,
    struct json_object **answers)
{
	const struct wymcp_server *srv = ctx->srv;
	const struct wymcp__key	*k = NULL;
	struct json_object	*p = NULL, *v;
	unsigned char		*bin, *pt;
	const char		*why = "malformed", *d;
	size_t			 toklen = strlen(tok), binlen, i;
	unsigned long long	 ptlen;

	*answers = NULL;
	if (toklen == 0 || toklen > TOKEN_MAX)
		goto fail;
	if ((bin = wymcp__arena_alloc(&ctx->arena, toklen)) == NULL)
		goto fail;
	if (sodium_base642bin(bin, toklen, tok, toklen, NULL, &binlen, NULL,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
	    binlen < HEAD_LEN + NONCE_LEN + TAG_LEN || bin[0] != SEAL_VERSION)
		goto fail;
	for (i = 0; i < srv->nkeys && k == NULL; i++)
		if (memcmp(srv->keys[i].id, bin + 1, 4) == 0)
			k = &srv->keys[i];
	why = "unknown key";
	if (k == NULL)
		goto fail;
	if ((pt = wymcp__arena_alloc(&ctx->arena, binlen + 1)) == NULL)
		goto fail;
	why = "authentication failed";
	if (crypto_aead_xchacha20poly1305_ietf_decrypt(pt, &ptlen, NULL,
	    bin + HEAD_LEN + NONCE_LEN, binlen - HEAD_LEN - NONCE_LEN, bin,
	    HEAD_LEN, bin + HEAD_LEN, k->key) != 0)
		goto fail;
	why = "malformed payload";
	if ((p = wymcp__parse((const char *)pt, (size_t)ptlen)) == NULL ||
	    !json_object_is_type(p, json_type_object))
		goto fail;
	why = "expired";
	if (!json_object_object_get_ex(p, "e", &v) ||
	    !json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) < (int64_t)time(NULL))
		goto fail;
	why = "other principal";
	if (!is(p, "p", ctx->who.principal))
		goto fail;
	why = "other method or tool";
	if (!is(p, "m", ctx->req.method) || !is(p, "n", ctx->call.name))
		goto fail;
	why = "other arguments";
	if ((d = args_digest(ctx)) == NULL || !is(p, "a", d))
		goto fail;
	why = "other mounted tool set";
	if ((d = mount_digest(ctx)) == NULL || !is(p, "s", d))
		goto fail;
	why = "malformed answers";
	if (!json_object_object_get_ex(p, "r", &v) ||
	    !json_object_is_type(v, json_type_object))
		goto fail;
	*answers = wymcp_own(ctx, json_object_get(v));
	json_object_put(p);
	return *answers == NULL ? -1 : 0;
fail:
	/* Keys that differ between hosts are a deployment error: say so. */
	wymcp__ctx_log(ctx, k == NULL && strcmp(why, "unknown key") == 0 ?
	    WYMCP_LOG_WARNING : WYMCP_LOG_INFO, "requestState refused: %s%s",
	    why, k == NULL && strcmp(why, "unknown key") == 0 ? " (do all "
	    "hosts share one --state-key-file?)" : "");
	json_object_put(p);
	return -1;
}
