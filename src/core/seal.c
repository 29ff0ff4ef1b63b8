/*
 * seal.c - sealed requestState
 *
 * requestState travels through the client, so it is attacker-controlled
 * (basic/patterns/mrtr.mdx "Security").  wymcp seals it with libsodium's
 * XChaCha20-Poly1305 AEAD and binds inside the seal the principal, an
 * expiry, the method, the tool name, the arguments (canonical JSON) and
 * the identity of the mounted tool set.  The token is base64url (no padding)
 * of: version (1 byte) | key id (4) | nonce (24) | ciphertext+tag; the
 * first five bytes are the additional data.  The plaintext is binary:
 *
 *	expiry		4 bytes, seconds since the epoch, big-endian
 *	binding		16 bytes, one BLAKE2b of every binding (bind())
 *	tags		4 bytes, a byte of each binding's own digest
 *			(the arguments': of an FNV-1a), so that a
 *			refusal's log line can say which differed
 *	key		16 bytes, the call's idempotency key
 *			(wymcp_idempotency_key()), random at round 1
 *	answers		the answers the run read and the questions it
 *			asked, one compact JSON object: an answer's key
 *			with the answer (an object), a question's key
 *			with null; or nothing for neither
 *
 * so a state that asks one question (elicit-1) and holds no answer is
 * 102 bytes, 136 characters.  Only the keys a state asked take this
 * round's inputResponses (call.c): a first round has no answers (the
 * seed: answers is %{} on a first round), and an answer to a question
 * never asked is ignored (basic/patterns/mrtr.mdx: a server SHOULD
 * ignore input responses it does not recognise).  Any failure to open
 * is one error, never a partial run.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "core/core.h"

/*
 * The first byte of a token says what it is and in which layout: 6 was
 * a requestState until it named the questions asked (an older host
 * would take their nulls for answers), 5 until it carried the
 * idempotency key, 2 until its
 * bindings became one BLAKE2b (and 1 before that), so a state an older
 * wymcp sealed is refused as of another version, not as one bound to
 * other arguments.
 */
#define SEAL_VERSION	7
#define HEAD_LEN	5
#define EXPIRY_LEN	4
#define BIND_LEN	16
#define TAGS_LEN	4
#define KEY_LEN		WYMCP__IDEM_LEN
#define KEY_AT		(EXPIRY_LEN + BIND_LEN + TAGS_LEN)
#define FIXED_LEN	(KEY_AT + KEY_LEN)
#define NONCE_LEN	crypto_aead_xchacha20poly1305_ietf_NPUBBYTES
#define TAG_LEN		crypto_aead_xchacha20poly1305_ietf_ABYTES
#define KEYFILE_MAX	(1024 * 1024)	/* as keyfile.c writes */
#define TOKEN_MAX	(8 * 1024 * 1024)

/* An object's member, as canon() sorts them. */
struct canon_member {
	const char		*k;
	struct json_object	*v;
};

/* Compare two members by name for qsort. */
static int
cmpmember(const void *a, const void *b)
{
	return strcmp(((const struct canon_member *)a)->k,
	    ((const struct canon_member *)b)->k);
}

/* wymcp__buf_put(), inline while b has room. */
static inline int
put(struct wymcp__buf *b, const void *s, size_t n)
{
	if (b->cap - b->len <= n)
		return wymcp__buf_put(b, s, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
	return 0;
}

/*
 * Write the canonical JSON of `v` into b: object keys sorted, each
 * followed by a NUL, no white space, scalars as wymcp__json() writes
 * them (wymcp__json_write(), which gives a value no printbuf).  0 or -1.
 */
#define CANON_KEYS	16	/* members of an object, on the stack */

static int
canon(struct wymcp__buf *b, struct json_object *v, int depth)
{
	struct canon_member	*m, small[CANON_KEYS];
	size_t			 n, i;
	int			 rc = 0;

	if (depth > 64)
		return -1;
	switch (json_object_get_type(v)) {
	case json_type_object:
		n = (size_t)json_object_object_length(v);
		m = small;
		if (n > CANON_KEYS && (m = calloc(n, sizeof(*m))) == NULL)
			return -1;
		i = 0;
		json_object_object_foreach(v, k, mv) {
			m[i].k = k;
			m[i++].v = mv;
		}
		if (n > 1)
			qsort(m, n, sizeof(*m), cmpmember);
		rc = put(b, "{", 1);
		for (i = 0; i < n && rc == 0; i++)
			rc = (i > 0 && put(b, ",", 1)) ||
			    put(b, m[i].k, strlen(m[i].k) + 1) ||
			    canon(b, m[i].v, depth + 1);
		if (m != small)
			free(m);
		return rc || put(b, "}", 1) ? -1 : 0;
	case json_type_array:
		n = json_object_array_length(v);
		if (put(b, "[", 1))
			return -1;
		for (i = 0; i < n; i++)
			if ((i > 0 && put(b, ",", 1)) ||
			    canon(b, json_object_array_get_idx(v, i),
			    depth + 1))
				return -1;
		return put(b, "]", 1);
	default:
		return wymcp__json_write(b, v);
	}
}

/* Feed a string, or its absence, to the hash, unambiguously. */
static void
hash_str(crypto_generichash_state *st, const char *s)
{
	unsigned char	 present = s != NULL;

	crypto_generichash_update(st, &present, 1);
	if (s != NULL)
		crypto_generichash_update(st, (const unsigned char *)s,
		    strlen(s) + 1);
}

/*
 * A binding's tag: the first byte of BLAKE2b-256 of the bytes
 * hash_str() feeds for one or two strings (present flag, bytes, NUL),
 * remembered per thread for the last such bytes: the same principal and
 * the same tool come request after request.
 */
#define TAG_KEY_MAX	256

struct tag_memo {
	size_t		 len;		/* 0: none yet */
	unsigned char	 key[TAG_KEY_MAX];
	unsigned char	 tag;
};

static unsigned char
tag_of(struct tag_memo *m, const char *a, const char *b, int two)
{
	unsigned char	 key[TAG_KEY_MAX], d[32];
	const char	*s[2] = { a, b };
	size_t		 len = 0, n;
	int		 i;
	crypto_generichash_state st;

	for (i = 0; i < 1 + two; i++) {
		n = s[i] != NULL ? strlen(s[i]) + 1 : 0;
		if (n > TAG_KEY_MAX - 1 - len) {
			/* Too long to remember: digested as it comes. */
			crypto_generichash_init(&st, NULL, 0, sizeof(d));
			hash_str(&st, a);
			if (two)
				hash_str(&st, b);
			crypto_generichash_final(&st, d, sizeof(d));
			return d[0];
		}
		key[len++] = s[i] != NULL;
		memcpy(key + len, s[i] != NULL ? s[i] : "", n);
		len += n;
	}
	if (m->len == len && memcmp(m->key, key, len) == 0)
		return m->tag;
	crypto_generichash(d, sizeof(d), key, len, NULL, 0);
	memcpy(m->key, key, len);
	m->len = len;
	m->tag = d[0];
	return d[0];
}

static __thread struct tag_memo	 principal_memo, call_memo;

/*
 * The bindings of a state (mrtr.mdx: bound to the principal, the
 * request and the server's tools): one BLAKE2b of them all into
 * bind[BIND_LEN], the canonical arguments last (every binding before
 * them is self-delimiting), and a one-byte tag of each (principal,
 * method and name, arguments, mounted tools) into tags[TAGS_LEN]: the
 * arguments' is the low byte of an FNV-1a of their canonical JSON, a
 * guess for a log line sealed with the rest, which need not be a
 * digest.  0 or -1.
 */
static int
bind(struct wymcp_ctx *ctx, unsigned char *bindout, unsigned char *tags)
{
	crypto_generichash_state st;
	unsigned char		 mount[32];
	struct wymcp__buf	 args = { NULL, 0, 0 };
	struct wymcp__bound	*b = &ctx->call.bound;
	uint32_t		 fnv = 2166136261u;
	size_t			 i;
	int			 rc = -1;

	/* Digested already in this request, from the same bindings. */
	if (b->ok && b->principal == ctx->who.principal &&
	    b->method == ctx->req.method && b->name == ctx->call.name &&
	    b->args == ctx->call.args && b->tools == ctx->who.tools) {
		memcpy(bindout, b->digest, BIND_LEN);
		memcpy(tags, b->tags, TAGS_LEN);
		return 0;
	}
	/* The tools' digests are made on first use (setup/keys.c). */
	if (canon(&args, ctx->call.args, 0) ||
	    wymcp__tools_digest(ctx->srv) != WYMCP_OK)
		goto done;
	for (i = 0; i < args.len; i++)
		fnv = (fnv ^ (unsigned char)args.p[i]) * 16777619u;
	if (ctx->who.mount_digest != NULL)
		memcpy(mount, ctx->who.mount_digest, sizeof(mount));
	else
		wymcp__mount_digest(ctx->who.tools, ctx->who.ntools, mount);
	crypto_generichash_init(&st, NULL, 0, BIND_LEN);
	crypto_generichash_update(&st, (const unsigned char *)"wymcp-state",
	    11);
	hash_str(&st, ctx->who.principal);
	hash_str(&st, ctx->req.method);
	hash_str(&st, ctx->call.name);
	crypto_generichash_update(&st, mount, sizeof(mount));
	crypto_generichash_update(&st, (const unsigned char *)args.p,
	    args.len);
	crypto_generichash_final(&st, bindout, BIND_LEN);

	tags[0] = tag_of(&principal_memo, ctx->who.principal, NULL, 0);
	tags[1] = tag_of(&call_memo, ctx->req.method, ctx->call.name, 1);
	tags[2] = (unsigned char)fnv;
	tags[3] = mount[0];
	b->principal = ctx->who.principal;
	b->method = ctx->req.method;
	b->name = ctx->call.name;
	b->args = ctx->call.args;
	b->tools = ctx->who.tools;
	memcpy(b->digest, bindout, BIND_LEN);
	memcpy(b->tags, tags, TAGS_LEN);
	b->ok = 1;
	rc = 0;
done:
	wymcp__buf_free(&args);
	return rc;
}

/* The expiry, seconds since the epoch, big-endian, into pt[0..4). */
static void
put_expiry(unsigned char *pt, int64_t at)
{
	uint32_t	 e = (uint32_t)at;

	pt[0] = (unsigned char)(e >> 24);
	pt[1] = (unsigned char)(e >> 16);
	pt[2] = (unsigned char)(e >> 8);
	pt[3] = (unsigned char)e;
}

/*
 * Seal a plaintext as a token of `version` (every token wymcp mints:
 * requestState, Mcp-Session-Id, held request ids): base64url of
 * version | key id | nonce | ciphertext+tag under the first key, the
 * first five bytes as additional data.  The plaintext is wiped.  The
 * token (arena-owned), or NULL.
 */
static const char *
seal_token(struct wymcp_ctx *ctx, unsigned char version, unsigned char *pt,
    size_t ptlen)
{
	const struct wymcp_server *srv = ctx->srv;
	unsigned char		*bin;
	unsigned long long	 clen;
	size_t			 binlen;
	char			*tok;

	binlen = HEAD_LEN + NONCE_LEN + ptlen + TAG_LEN;
	if ((bin = wymcp__arena_alloc(&ctx->arena, binlen)) == NULL)
		return NULL;
	bin[0] = version;
	memcpy(bin + 1, srv->keys[0].id, 4);
	randombytes_buf(bin + HEAD_LEN, NONCE_LEN);
	crypto_aead_xchacha20poly1305_ietf_encrypt(bin + HEAD_LEN + NONCE_LEN,
	    &clen, pt, ptlen, bin, HEAD_LEN, NULL, bin + HEAD_LEN,
	    srv->keys[0].key);
	sodium_memzero(pt, ptlen);
	if ((tok = wymcp__arena_alloc(&ctx->arena,
	    wymcp__b64url_len(binlen) + 1)) == NULL)
		return NULL;
	wymcp__b64url_encode(tok, bin, binlen);
	return tok;
}

/*
 * Open a token of `version` of at most `maxtok` characters whose
 * plaintext holds at least `minpt` bytes and has not expired: the
 * plaintext (arena-owned, a NUL after its end) and *ptlen, or NULL
 * with *why ("malformed", "another version or kind of token ...",
 * "unknown key", "authentication failed", "expired").
 */
static unsigned char *
open_token(struct wymcp_ctx *ctx, const char *tok, unsigned char version,
    size_t maxtok, size_t minpt, size_t *ptlen, const char **why)
{
	const struct wymcp_server *srv = ctx->srv;
	const struct wymcp__key	*k = NULL;
	unsigned char		*bin, *pt;
	size_t			 toklen = strlen(tok), binlen, i;
	unsigned long long	 n;
	uint32_t		 exp;

	*why = "malformed";
	if (toklen == 0 || toklen > maxtok ||
	    (bin = wymcp__arena_alloc(&ctx->arena, toklen / 4 * 3 + 3)) ==
	    NULL)
		return NULL;
	if (wymcp__b64url_decode(bin, &binlen, tok, toklen) != 0 ||
	    binlen < HEAD_LEN + NONCE_LEN + minpt + TAG_LEN)
		return NULL;
	*why = "another version or kind of token (an older wymcp's?)";
	if (bin[0] != version)
		return NULL;
	for (i = 0; i < srv->nkeys && k == NULL; i++)
		if (memcmp(srv->keys[i].id, bin + 1, 4) == 0)
			k = &srv->keys[i];
	*why = "unknown key";
	if (k == NULL ||
	    (pt = wymcp__arena_alloc(&ctx->arena, binlen + 1)) == NULL)
		return NULL;
	*why = "authentication failed";
	if (crypto_aead_xchacha20poly1305_ietf_decrypt(pt, &n, NULL,
	    bin + HEAD_LEN + NONCE_LEN, binlen - HEAD_LEN - NONCE_LEN, bin,
	    HEAD_LEN, bin + HEAD_LEN, k->key) != 0 || n < minpt)
		return NULL;
	pt[n] = '\0';
	*why = "expired";
	exp = (uint32_t)pt[0] << 24 | (uint32_t)pt[1] << 16 |
	    (uint32_t)pt[2] << 8 | pt[3];
	if ((int64_t)exp < (int64_t)time(NULL))
		return NULL;
	*ptlen = (size_t)n;
	return pt;
}

/*
 * Seal the answers an interrupted run read (in the order read) and the
 * keys of the questions it asked (`asked', an object: its keys, or
 * NULL) with the request's bindings.  Returns the token (arena-owned)
 * or NULL on failure.
 */
const char *
wymcp__seal(struct wymcp_ctx *ctx, const struct wymcp__used *used,
    struct json_object *asked)
{
	const struct wymcp_server *srv = ctx->srv;
	const struct wymcp__used *u;
	struct wymcp__buf	 js = { NULL, 0, 0 };
	unsigned char		*pt;
	const char		*tok = NULL;
	size_t			 ptlen;

	if (srv->nkeys == 0)
		return NULL;
	/* As one object: {"key":answer,...,"asked":null,...}. */
	for (u = used; u != NULL; u = u->next)
		if (wymcp__json_write_member(&js, u == used ? '{' : ',',
		    u->key, u->answer) != 0)
			goto done;
	if (json_object_is_type(asked, json_type_object)) {
		json_object_object_foreach(asked, k, v) {
			(void)v;
			if (wymcp__json_write_member(&js, js.len == 0 ? '{' :
			    ',', k, NULL) != 0)
				goto done;
		}
	}
	if (js.len > 0 && wymcp__json_write_end(&js) != 0)
		goto done;
	ptlen = FIXED_LEN + js.len;
	if ((pt = wymcp__arena_alloc(&ctx->arena, ptlen)) == NULL)
		goto done;
	put_expiry(pt, (int64_t)time(NULL) + (int64_t)srv->state_ttl);
	if (bind(ctx, pt + EXPIRY_LEN, pt + EXPIRY_LEN + BIND_LEN))
		goto done;
	wymcp__idem_key(ctx);
	memcpy(pt + KEY_AT, ctx->call.key, KEY_LEN);
	if (js.len > 0)
		memcpy(pt + FIXED_LEN, js.p, js.len);
	tok = seal_token(ctx, SEAL_VERSION, pt, ptlen);
done:
	if (js.p != NULL)
		sodium_memzero(js.p, js.len);
	wymcp__buf_free(&js);
	return tok;
}

/*
 * The key of the request's Mcp-Session-Id (a 2025-11-25 session): hex
 * of a BLAKE2b of the token, the same for every request of the session,
 * into out[WYMCP__SESSION_KEY_LEN + 1].  0, or -1 without a session id.
 * What keys a session's GET stream and its resources/subscribe calls
 * across workers and hosts (listen.c, legacy.c); not a secret.
 */
int
wymcp__session_key(struct wymcp_ctx *ctx, char *out)
{
	const char	*h = wymcp__param(ctx, WYMCP__P_HTTP_MCP_SESSION_ID);
	unsigned char	 d[WYMCP__SESSION_KEY_LEN / 2];

	if (h == NULL || *h == '\0')
		return -1;
	crypto_generichash(d, sizeof(d), (const unsigned char *)h, strlen(h),
	    (const unsigned char *)"wymcp-session-key", 17);
	sodium_bin2hex(out, WYMCP__SESSION_KEY_LEN + 1, d, sizeof(d));
	return 0;
}

/* Make the call's idempotency key, unless it has one. */
void
wymcp__idem_key(struct wymcp_ctx *ctx)
{
	if (!ctx->call.have_key) {
		randombytes_buf(ctx->call.key, KEY_LEN);
		ctx->call.have_key = 1;
	}
}

const char *
wymcp_idempotency_key(struct wymcp_ctx *ctx)
{
	char	*s;

	if (ctx == NULL)
		return NULL;
	wymcp__idem_key(ctx);
	if ((s = wymcp__arena_alloc(&ctx->arena,
	    wymcp__b64url_len(KEY_LEN) + 1)) == NULL)
		return NULL;
	wymcp__b64url_encode(s, ctx->call.key, KEY_LEN);
	return s;
}

/*
 * Split the state's object: the questions it asked (null members) go
 * to *asked, the answers stay.  0, or -1 for a member that is neither.
 */
static int
split_asked(struct wymcp_ctx *ctx, struct json_object *a,
    struct json_object **asked)
{
	struct json_object	*q = NULL;
	struct lh_entry		*e, *next;

	for (e = json_object_get_object(a)->head; e != NULL; e = next) {
		next = e->next;
		if (lh_entry_v(e) != NULL) {
			if (!json_object_is_type(lh_entry_v(e),
			    json_type_object))
				return -1;
			continue;
		}
		if (q == NULL &&
		    (q = wymcp_own(ctx, json_object_new_object())) == NULL)
			return -1;
		if (json_object_object_add(q, lh_entry_k(e), NULL) != 0)
			return -1;
		json_object_object_del(a, lh_entry_k(e));
	}
	*asked = q;
	return 0;
}

/*
 * Open a requestState and check every binding.  Returns 0 with
 * *answers (request-owned; NULL when the state holds none) and *asked
 * (the keys of the questions it asked, an object of nulls,
 * request-owned; NULL for none) or -1; the reason is logged at info
 * level only, since the client gets one message whatever failed.
 */
int
wymcp__unseal(struct wymcp_ctx *ctx, const char *tok,
    struct json_object **answers, struct json_object **asked)
{
	struct json_object	*a = NULL;
	unsigned char		*pt, want[BIND_LEN], tags[TAGS_LEN];
	const char		*why, *js;
	size_t			 ptlen;

	*answers = NULL;
	*asked = NULL;
	if ((pt = open_token(ctx, tok, SEAL_VERSION, TOKEN_MAX, FIXED_LEN,
	    &ptlen, &why)) == NULL)
		goto fail;
	why = "malformed payload";
	if (bind(ctx, want, tags))
		goto fail;
	if (sodium_memcmp(want, pt + EXPIRY_LEN, BIND_LEN) != 0) {
		/* Which binding differs (by its tag: a likely guess). */
		if (tags[0] != pt[EXPIRY_LEN + BIND_LEN])
			why = "other principal";
		else if (tags[1] != pt[EXPIRY_LEN + BIND_LEN + 1])
			why = "other method or tool";
		else if (tags[2] != pt[EXPIRY_LEN + BIND_LEN + 2])
			why = "other arguments";
		else if (tags[3] != pt[EXPIRY_LEN + BIND_LEN + 3])
			why = "other mounted tool set";
		else
			why = "other bindings";
		goto fail;
	}
	/* The same call goes on: the same idempotency key. */
	memcpy(ctx->call.key, pt + KEY_AT, KEY_LEN);
	ctx->call.have_key = 1;
	/* A state that holds no answer opens as none: nothing is made. */
	if (ptlen == FIXED_LEN)
		return 0;
	why = "malformed answers";
	js = (const char *)pt + FIXED_LEN;
	if ((a = wymcp__parse(js, (size_t)ptlen - FIXED_LEN)) == NULL ||
	    !json_object_is_type(a, json_type_object) ||
	    split_asked(ctx, a, asked) != 0)
		goto fail;
	if ((*answers = wymcp_own(ctx, a)) == NULL)
		return -1;
	return 0;
fail:
	json_object_put(a);
	/* Keys that differ between hosts are a deployment error: say so. */
	wymcp__ctx_log(ctx, strcmp(why, "unknown key") == 0 ?
	    WYMCP_LOG_WARNING : WYMCP_LOG_INFO, "requestState refused: %s%s",
	    why, strcmp(why, "unknown key") == 0 ? " (do all "
	    "hosts share one --state-key-file?)" : "");
	return -1;
}

/*
 * The sealed Mcp-Session-Id (2025-11-25 basic/transports.mdx "Session
 * Management").  It is not server state but a token the client
 * carries: the same keys and AEAD as requestState, another version
 * byte (so neither opens as the other), and the plaintext
 *
 *	expiry		4 bytes, seconds since the epoch, big-endian
 *	binding		16 bytes, BLAKE2b of "wymcp-session" and the
 *			principal it was minted for
 *	session		compact JSON {"v":version,"c":capabilities}
 *
 * The capabilities kept are the ones a tool asks through: elicitation,
 * sampling and roots, as the client declared them, and the MCP Apps
 * extension (extensions["io.modelcontextprotocol/ui"]), which decides
 * whether app-only tools exist for it.  Base64url is
 * visible ASCII, as the header must be.
 */
#define SESSION_VERSION	3
#define SESSION_FIXED	(EXPIRY_LEN + BIND_LEN)
#define SESSION_MAX	4096	/* JSON kept, at most */

/*
 * The principal binding of a session id into out[BIND_LEN] (the
 * principal is known: wymcp__ctx_assigns() ran).
 */
static void
session_bind(const struct wymcp_ctx *ctx, unsigned char *out)
{
	crypto_generichash_state st;

	crypto_generichash_init(&st, NULL, 0, BIND_LEN);
	crypto_generichash_update(&st, (const unsigned char *)"wymcp-session",
	    13);
	hash_str(&st, ctx->who.principal);
	crypto_generichash_final(&st, out, BIND_LEN);
}

const char *
wymcp__session_seal(struct wymcp_ctx *ctx, const char *version,
    struct json_object *caps)
{
	static const char *const keep[] = { "elicitation", "sampling",
	    "roots" };
	const struct wymcp_server *srv = ctx->srv;
	struct json_object	*s, *c, *v, *e;
	unsigned char		*pt;
	const char		*js;
	size_t			 jslen, ptlen, i;

	if (srv->nkeys == 0 || wymcp__ctx_assigns(ctx) != WYMCP_OK ||
	    (s = wymcp_own(ctx,
	    json_object_new_object())) == NULL ||
	    (c = json_object_new_object()) == NULL ||
	    json_object_object_add(s, "c", c) ||
	    json_object_object_add(s, "v", json_object_new_string(version)))
		return NULL;
	for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		if (json_object_is_type(caps, json_type_object) &&
		    json_object_object_get_ex(caps, keep[i], &v) &&
		    json_object_is_type(v, json_type_object))
			json_object_object_add(c, keep[i], json_object_get(v));
	/* MCP Apps: what tools/list shows depends on it (wymcp_apps(3)). */
	if (json_object_is_type(caps, json_type_object) &&
	    json_object_object_get_ex(caps, "extensions", &e) &&
	    json_object_is_type(e, json_type_object) &&
	    json_object_object_get_ex(e, WYMCP__UI_EXT, &v) &&
	    json_object_is_type(v, json_type_object)) {
		if ((e = json_object_new_object()) == NULL ||
		    json_object_object_add(c, "extensions", e))
			return NULL;
		json_object_object_add(e, WYMCP__UI_EXT, json_object_get(v));
	}
	js = wymcp__json(s);
	if ((jslen = strlen(js)) > SESSION_MAX)
		return NULL;
	ptlen = SESSION_FIXED + jslen;
	if ((pt = wymcp__arena_alloc(&ctx->arena, ptlen)) == NULL)
		return NULL;
	put_expiry(pt, (int64_t)time(NULL) + WYMCP__SESSION_TTL);
	session_bind(ctx, pt + EXPIRY_LEN);
	memcpy(pt + SESSION_FIXED, js, jslen);
	return seal_token(ctx, SESSION_VERSION, pt, ptlen);
}

int
wymcp__session_open(struct wymcp_ctx *ctx, const char *tok,
    const char **version, struct json_object **caps)
{
	struct json_object	*s = NULL, *v, *c;
	unsigned char		*pt, want[BIND_LEN];
	const char		*why;
	size_t			 ptlen;

	*version = NULL;
	*caps = NULL;
	if ((pt = open_token(ctx, tok, SESSION_VERSION,
	    wymcp__b64url_len(HEAD_LEN + NONCE_LEN + SESSION_FIXED +
	    SESSION_MAX + TAG_LEN), SESSION_FIXED, &ptlen, &why)) == NULL)
		goto fail;
	why = "other principal";
	if (wymcp__ctx_assigns(ctx) != WYMCP_OK)
		goto fail;
	session_bind(ctx, want);
	if (sodium_memcmp(want, pt + EXPIRY_LEN, BIND_LEN) != 0)
		goto fail;
	why = "malformed payload";
	if ((s = wymcp__parse((const char *)pt + SESSION_FIXED,
	    (size_t)ptlen - SESSION_FIXED)) == NULL ||
	    !json_object_object_get_ex(s, "v", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    !json_object_object_get_ex(s, "c", &c) ||
	    !json_object_is_type(c, json_type_object))
		goto fail;
	if (wymcp_own(ctx, s) == NULL)
		return -1;
	*version = json_object_get_string(v);
	*caps = c;
	return 0;
fail:
	json_object_put(s);
	wymcp__ctx_log(ctx, strcmp(why, "unknown key") == 0 ?
	    WYMCP_LOG_WARNING : WYMCP_LOG_INFO, "Mcp-Session-Id refused: "
	    "%s%s", why, strcmp(why, "unknown key") == 0 ?
	    " (do all hosts share one --state-key-file?)" : "");
	return -1;
}

/*
 * The sealed id of a request wymcp sends a 2025-11-25 client on a held
 * stream (held.c): the client's answer comes back with it, at any
 * worker, which must learn from it where the question is held.
 * Version byte 4, and the plaintext
 *
 *	expiry		4 bytes: the question's --ask-timeout, and a bit
 *	binding		16 bytes, BLAKE2b of "wymcp-ask" and the principal
 *	holder		the holder's address, NUL-terminated
 *	key		the question's key (elicit-1, ...)
 *
 * so an answer posted by another principal, after the time, or with a
 * forged id does not open.  A replayed one opens, and the holder, which
 * takes each id once, refuses it.
 */
#define ASKID_VERSION	4
#define ASKID_FIXED	(EXPIRY_LEN + BIND_LEN)
#define ASKID_MAX	1024	/* holder and key, at most */

static void
askid_bind(const struct wymcp_ctx *ctx, unsigned char *out)
{
	crypto_generichash_state st;

	crypto_generichash_init(&st, NULL, 0, BIND_LEN);
	crypto_generichash_update(&st, (const unsigned char *)"wymcp-ask", 9);
	hash_str(&st, ctx->who.principal);
	crypto_generichash_final(&st, out, BIND_LEN);
}

const char *
wymcp__askid_seal(struct wymcp_ctx *ctx, const char *holder,
    const char *key, unsigned int ttl)
{
	const struct wymcp_server *srv = ctx->srv;
	unsigned char		*pt;
	size_t			 hlen = strlen(holder) + 1, klen = strlen(key);
	size_t			 ptlen;

	if (srv->nkeys == 0 || hlen + klen > ASKID_MAX ||
	    wymcp__ctx_assigns(ctx) != WYMCP_OK)
		return NULL;
	ptlen = ASKID_FIXED + hlen + klen;
	if ((pt = wymcp__arena_alloc(&ctx->arena, ptlen)) == NULL)
		return NULL;
	put_expiry(pt, (int64_t)time(NULL) + (int64_t)ttl + 5);
	askid_bind(ctx, pt + EXPIRY_LEN);
	memcpy(pt + ASKID_FIXED, holder, hlen);
	memcpy(pt + ASKID_FIXED + hlen, key, klen);
	return seal_token(ctx, ASKID_VERSION, pt, ptlen);
}

int
wymcp__askid_open(struct wymcp_ctx *ctx, const char *tok,
    const char **holder)
{
	unsigned char		*pt, want[BIND_LEN];
	const char		*why;
	size_t			 ptlen;

	*holder = NULL;
	if ((pt = open_token(ctx, tok, ASKID_VERSION,
	    wymcp__b64url_len(HEAD_LEN + NONCE_LEN + ASKID_FIXED + ASKID_MAX +
	    TAG_LEN), ASKID_FIXED + 1, &ptlen, &why)) == NULL)
		goto fail;
	why = "other principal";
	if (wymcp__ctx_assigns(ctx) != WYMCP_OK)
		goto fail;
	askid_bind(ctx, want);
	if (sodium_memcmp(want, pt + EXPIRY_LEN, BIND_LEN) != 0)
		goto fail;
	why = "malformed payload";
	if (memchr(pt + ASKID_FIXED, '\0', ptlen - ASKID_FIXED) == NULL)
		goto fail;
	*holder = (const char *)pt + ASKID_FIXED;
	return 0;
fail:
	wymcp__ctx_log(ctx, WYMCP_LOG_INFO, "answer refused: its request id "
	    "does not open: %s", why);
	return -1;
}

/*
 * A 2025-11-25 client's answer relayed to the worker that holds its
 * question (held.c) crosses sockets that an allowed peer, or anyone on
 * the path between hosts, can write to.  The worker the answer reached
 * frames it as
 *
 *	"wymcp-relay/1 " KEYID " " SECONDS " " MAC "\n" BODY
 *
 * KEYID the state key's id (8 hexadecimal digits), SECONDS the time of
 * the framing (decimal), MAC the base64url of BLAKE2b-256 keyed with a
 * subkey of that state key over the holder's address, SECONDS and
 * BODY.  The holder takes an answer only when the MAC verifies under
 * one of its keys and SECONDS is within RELAY_SKEW of its clock; the
 * question id inside BODY is one the holder waits for, and taken once.
 */
#define RELAY_MAGIC	"wymcp-relay/1 "
#define RELAY_MAC_LEN	32
#define RELAY_SKEW	60	/* seconds, either way */
#define RELAY_HEAD_MAX	(sizeof(RELAY_MAGIC) + 8 + 1 + 20 + 1 + 43 + 1)

/* A hexadecimal digit's value, or 16. */
static size_t
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return (size_t)(c - '0');
	if (c >= 'a' && c <= 'f')
		return (size_t)(c - 'a' + 10);
	return 16;
}

static void
relay_mac(const struct wymcp__key *k, const char *holder, const char *secs,
    const char *body, size_t len, unsigned char *mac)
{
	crypto_generichash_state st;
	unsigned char		 sub[32];

	crypto_generichash(sub, sizeof(sub),
	    (const unsigned char *)"wymcp-relay-key", 15, k->key,
	    sizeof(k->key));
	crypto_generichash_init(&st, sub, sizeof(sub), RELAY_MAC_LEN);
	hash_str(&st, holder);
	hash_str(&st, secs);
	crypto_generichash_update(&st, (const unsigned char *)body, len);
	crypto_generichash_final(&st, mac, RELAY_MAC_LEN);
	sodium_memzero(sub, sizeof(sub));
}

const char *
wymcp__relay_frame(struct wymcp_ctx *ctx, const char *holder,
    const char *body, size_t len, size_t *outlen)
{
	const struct wymcp_server *srv = ctx->srv;
	unsigned char		 mac[RELAY_MAC_LEN];
	char			 secs[24], *out;
	size_t			 n;
	int			 hl;

	if (srv->nkeys == 0 || len > SIZE_MAX - RELAY_HEAD_MAX)
		return NULL;
	snprintf(secs, sizeof(secs), "%lld", (long long)time(NULL));
	relay_mac(&srv->keys[0], holder, secs, body, len, mac);
	if ((out = wymcp__arena_alloc(&ctx->arena, RELAY_HEAD_MAX + len +
	    1)) == NULL)
		return NULL;
	hl = snprintf(out, RELAY_HEAD_MAX, "%s%02x%02x%02x%02x %s ",
	    RELAY_MAGIC, srv->keys[0].id[0], srv->keys[0].id[1],
	    srv->keys[0].id[2], srv->keys[0].id[3], secs);
	n = (size_t)hl;
	wymcp__b64url_encode(out + n, mac, sizeof(mac));
	n += wymcp__b64url_len(sizeof(mac));
	out[n++] = '\n';
	memcpy(out + n, body, len);
	n += len;
	out[n] = '\0';
	*outlen = n;
	return out;
}

int
wymcp__relay_open(struct wymcp_ctx *ctx, const char *holder,
    const char *msg, size_t len, const char **body, size_t *blen,
    const char **why)
{
	const struct wymcp_server *srv = ctx->srv;
	const struct wymcp__key	*k = NULL;
	unsigned char		 id[4], mac[RELAY_MAC_LEN], want[RELAY_MAC_LEN];
	const char		*p, *nl, *sp;
	char			 secs[24];
	size_t			 i, n, maclen, ml = strlen(RELAY_MAGIC);
	long long		 t, now;

	*why = "not a framed answer (another wymcp's?)";
	if (len < ml || memcmp(msg, RELAY_MAGIC, ml) != 0 ||
	    (nl = memchr(msg, '\n', len < RELAY_HEAD_MAX ? len :
	    RELAY_HEAD_MAX)) == NULL)
		return -1;
	p = msg + ml;
	*why = "malformed frame";
	for (i = 0; i < 8; i++)
		if (p + i >= nl || (n = hexval(p[i])) > 15)
			return -1;
		else if (i % 2 == 0)
			id[i / 2] = (unsigned char)(n << 4);
		else
			id[i / 2] |= (unsigned char)n;
	p += 8;
	if (p >= nl || *p++ != ' ' || (sp = memchr(p, ' ', (size_t)(nl -
	    p))) == NULL || sp == p || (size_t)(sp - p) >= sizeof(secs))
		return -1;
	for (t = 0, n = 0; p + n < sp; n++) {
		if (p[n] < '0' || p[n] > '9' || t > 1000000000000LL)
			return -1;
		t = t * 10 + (p[n] - '0');
	}
	memcpy(secs, p, n);
	secs[n] = '\0';
	p = sp + 1;
	if ((size_t)(nl - p) != wymcp__b64url_len(sizeof(mac)) ||
	    wymcp__b64url_decode(mac, &maclen, p, (size_t)(nl - p)) != 0 ||
	    maclen != sizeof(mac))
		return -1;
	*why = "unknown key (do all hosts share one --state-key-file?)";
	for (i = 0; i < srv->nkeys && k == NULL; i++)
		if (memcmp(srv->keys[i].id, id, 4) == 0)
			k = &srv->keys[i];
	if (k == NULL)
		return -1;
	*why = "the MAC does not verify (forged or altered)";
	relay_mac(k, holder, secs, nl + 1, len - (size_t)(nl + 1 - msg),
	    want);
	if (sodium_memcmp(want, mac, sizeof(mac)) != 0)
		return -1;
	*why = "framed too long ago or ahead (clocks apart?)";
	now = (long long)time(NULL);
	if (t < now - RELAY_SKEW || t > now + RELAY_SKEW)
		return -1;
	*body = nl + 1;
	*blen = len - (size_t)(nl + 1 - msg);
	return 0;
}

/*
 * The audit digest of `args' (wymcp.h, struct wymcp_request_detail):
 * SipHash-2-4 with a 128-bit output (libsodium's
 * crypto_shorthash_siphashx24, a keyed function made for short input)
 * of their canonical JSON, keyed with a key derived from the first
 * state key (a BLAKE2b of a label keyed by it: the state key is never
 * used as it is, and never shown), made once per process and key.  32
 * hex digits and a NUL into out.  The canonical text is built in a
 * buffer kept between requests (freed when an argument made it larger
 * than 64 KiB).  0, or -1 without a key or out of memory.
 */
int
wymcp__args_digest(struct wymcp_ctx *ctx, struct json_object *args,
    char *out)
{
	static __thread unsigned char	 dk[crypto_shorthash_siphashx24_KEYBYTES];
	static __thread unsigned char	 dkid[4];
	static __thread int		 have;
	static __thread struct wymcp__buf b;
	const struct wymcp_server	*srv = ctx->srv;
	unsigned char			 d[crypto_shorthash_siphashx24_BYTES];
	int				 rc = -1;

	if (srv == NULL || srv->nkeys == 0)
		return -1;
	if (!have || memcmp(dkid, srv->keys[0].id, sizeof(dkid)) != 0) {
		crypto_generichash(dk, sizeof(dk),
		    (const unsigned char *)"wymcp-audit-args", 16,
		    srv->keys[0].key, sizeof(srv->keys[0].key));
		memcpy(dkid, srv->keys[0].id, sizeof(dkid));
		have = 1;
	}
	b.len = 0;
	if (canon(&b, args, 0) == 0) {
		crypto_shorthash_siphashx24(d, (const unsigned char *)b.p,
		    b.len, dk);
		wymcp__hex(out, d, sizeof(d));
		rc = 0;
	}
	if (b.cap > 65536)
		wymcp__buf_free(&b);
	return rc;
}
