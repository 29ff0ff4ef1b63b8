/*
 * authz.h - internal interfaces of wymcp-authz, the OAuth 2.1
 * resource-server authorizer that nginx (auth_request) and Apache
 * (mod_authnz_fcgi) call before a request reaches wymcp-fcgi
 *
 * wymcp-authz is a program beside the front end, not part of libwymcp:
 * it may print and exit.  Its files share this header only; of the
 * library it uses the public wymcp.h (the log levels) alone.
 *
 * The files, lowest first: codec.c (base64url, strict JSON, the
 * growing buffer), fetch.c (HTTP GET with libcurl), jwks.c (JSON Web
 * Keys into OpenSSL keys, the key set and its refresh), jwt.c (a JWS
 * compact token checked against the key set and the options),
 * introspect.c (an opaque token asked of the authorization server,
 * RFC 7662, and the answers kept), net/peer.c (which FastCGI peers may
 * connect), answer.c
 * (one FastCGI request: the decision, the challenge, the metadata
 * document), then main.c (options, socket, privileges, workers).
 */
#ifndef WYMCP_AUTHZ_H
#define WYMCP_AUTHZ_H

#include <sys/types.h>
#include <sys/socket.h>

#include <stddef.h>
#include <time.h>

#include <json-c/json.h>

#include "prog/prog.h"
#include <openssl/evp.h>

#include "wymcp.h"

#define AUTHZ_NAME		"wymcp-authz"
#define AUTHZ_TOKEN_MAX		8192	/* bytes of a bearer token */
#define AUTHZ_JSON_DEPTH	16	/* nesting of a JOSE header/claims */
#define AUTHZ_JWKS_MAX		(256 * 1024)	/* bytes of a JWKS */
#define AUTHZ_KEYS_MAX		64	/* keys kept of one JWKS */
#define AUTHZ_REFRESH_MIN	60	/* s between unknown-kid refreshes,
					   and before a failed load's retry */
#define AUTHZ_JWKS_TTL_MIN	300	/* s a key set is used, at least: */
#define AUTHZ_JWKS_TTL_MAX	900	/* Cache-Control max-age, bounded */
#define AUTHZ_RSA_MIN_BITS	2048	/* smaller RSA keys are refused */
#define AUTHZ_VALUE_MAX		4096	/* bytes of a principal or assign */
#define AUTHZ_MAX_WORKERS	256	/* --workers upper bound */
#define AUTHZ_READ_MS		2000	/* a connection's whole request
					   head, and its answer's write */
#define AUTHZ_INTROSPECT_MAX	(64 * 1024)	/* bytes of an answer */
#define AUTHZ_CACHE_SLOTS	64	/* introspected tokens kept */
#define AUTHZ_CACHE_TTL		60	/* s an active answer is kept, at
					   most; never past the token's exp */
#define AUTHZ_NEG_SLOTS		256	/* refused tokens kept */
#define AUTHZ_NEG_TTL		10	/* s a refusal is kept */
#define AUTHZ_INTRO_RATE	10	/* introspection calls a second, */
#define AUTHZ_INTRO_BURST	20	/* and at once, per worker */
#define AUTHZ_WELL_KNOWN	"/.well-known/oauth-protected-resource"

/* codec.c: a growing, NUL-terminated byte buffer. */
struct authz_buf {
	char	*data;			/* NUL-terminated, or NULL */
	size_t	 len;			/* bytes, not counting the NUL */
	size_t	 cap;
	int	 failed;		/* an append ran out of memory */
};
void	 authz_buf_add(struct authz_buf *, const char *, size_t);
void	 authz_buf_str(struct authz_buf *, const char *);
void	 authz_buf_printf(struct authz_buf *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
void	 authz_buf_free(struct authz_buf *);
unsigned char *authz_b64url(const char *, size_t, size_t *);
struct json_object *authz_json(const unsigned char *, size_t);
int	 authz_words_has(const char *list, const char *word);

/*
 * fetch.c: GET `url`, or POST a form, into `out`; 0 or -1.  The GET
 * gives the answer's Cache-Control max-age (authz_max_age()) in
 * *max_age when that is not NULL.
 */
int	 authz_fetch(const char *url, size_t max, struct authz_buf *out,
	    long *max_age, char *err, size_t errlen);
long	 authz_max_age(const char *, size_t);
int	 authz_post(const char *url, const char *form, const char *user,
	    const char *password, size_t max, struct authz_buf *out,
	    char *err, size_t errlen);
char	*authz_form_escape(const char *, size_t);
int	 authz_url_ok(const char *url, int insecure, char *err,
	    size_t errlen);

/* jwks.c: the verification keys (RFC 7517, RFC 7518 section 6). */
enum authz_kty {
	AUTHZ_KTY_RSA,
	AUTHZ_KTY_EC,
	AUTHZ_KTY_OKP
};
struct authz_key {
	char		*kid;		/* or NULL */
	char		*alg;		/* the JWK's "alg", or NULL */
	enum authz_kty	 kty;
	int		 bits;		/* curve or modulus size */
	EVP_PKEY	*pkey;		/* the public key */
};
/*
 * One key source: a --jwks-file or a --jwks-url, bound to the --issuer
 * it follows on the command line.  Its keys verify that issuer's
 * tokens and no other's.
 */
struct authz_source {
	const char	 *issuer;	/* its --issuer */
	const char	 *file;		/* --jwks-file, or NULL */
	const char	 *url;		/* --jwks-url, or NULL */
	struct authz_key *keys;		/* the last set that loaded */
	size_t		  nkeys;
	time_t		  loaded;	/* last load (or try), 0: never */
	time_t		  due;		/* next scheduled load, 0: none */
};
/* Every key source of the command line, in its order. */
struct authz_keyset {
	struct authz_source *srcs;
	size_t		 nsrcs;
	int		 stale;		/* reload before the next use */
};
int	 authz_jwks_parse(const char *, size_t, struct authz_key **,
	    size_t *, char *err, size_t errlen);
void	 authz_keys_free(struct authz_key *, size_t);
int	 authz_source_load(struct authz_source *, time_t now, char *err,
	    size_t errlen);
int	 authz_keyset_load(struct authz_keyset *, time_t now, char *err,
	    size_t errlen);
int	 authz_keyset_refresh(struct authz_keyset *, time_t now, char *err,
	    size_t errlen);
int	 authz_keyset_due(struct authz_keyset *, time_t now, char *err,
	    size_t errlen);
size_t	 authz_keyset_count(const struct authz_keyset *);
void	 authz_keyset_clear(struct authz_keyset *);

/* jwt.c: what a token is checked against (the command line). */
struct authz_assign {
	const char	*claim;		/* claim name in the token */
	char		*name;		/* assign name: [A-Za-z0-9_] */
};
struct authz_conf {
	const char		**issuers;	/* --issuer, exact */
	size_t			  nissuers;
	const char		 *audience;	/* --audience */
	const char		**scopes;	/* --scope: all required */
	size_t			  nscopes;
	const char		 *principal;	/* --principal-claim */
	struct authz_assign	 *assigns;	/* --assign-claim */
	size_t			  nassigns;
	long			  leeway;	/* --leeway, seconds */
	const char		 *metadata;	/* resource_metadata URL */
	const char		 *endpoint;	/* the audience's path */
};

/*
 * Why a token is refused.  Each has one fixed text (authz_why()) that
 * is the challenge's error_description and the log line's reason:
 * nothing of the token itself is ever logged or echoed.
 */
enum authz_verdict {
	AUTHZ_VALID = 0,
	AUTHZ_MALFORMED,	/* not three base64url parts of JSON */
	AUTHZ_TOO_LARGE,	/* longer than AUTHZ_TOKEN_MAX */
	AUTHZ_BAD_HEADER,	/* typ, crit, or no alg */
	AUTHZ_BAD_ALG,		/* alg not allowed (none, HS256, ...) */
	AUTHZ_UNKNOWN_KEY,	/* no key of that kid and type */
	AUTHZ_BAD_SIGNATURE,
	AUTHZ_BAD_ISSUER,
	AUTHZ_BAD_AUDIENCE,
	AUTHZ_EXPIRED,		/* exp, or no exp */
	AUTHZ_NOT_YET,		/* nbf in the future */
	AUTHZ_BAD_IAT,		/* iat in the future */
	AUTHZ_BAD_CLAIMS,	/* principal or scope claim unusable */
	AUTHZ_INACTIVE,		/* introspection: "active" is not true */
	AUTHZ_UNAVAILABLE,	/* introspection: no answer (503) */
	AUTHZ_RATE_LIMITED,	/* introspection: too many calls (503) */
	AUTHZ_NOMEM
};
const char *authz_why(enum authz_verdict);

/* A token that passed: its claims and what they say. */
struct authz_token {
	struct json_object	*claims;	/* the payload */
	char			*principal;	/* the claim, with one
						   --issuer; else ISS#SUB */
	char			*scopes;	/* space-separated, or "" */
};
enum authz_verdict authz_jwt_check(const struct authz_conf *,
	    const struct authz_keyset *, const char *, size_t, time_t now,
	    struct authz_token *);
void	 authz_token_clear(struct authz_token *);
char	*authz_claim_text(struct json_object *);
enum authz_verdict authz_claims_check(const struct authz_conf *,
	    const char *iss, struct json_object *claims, time_t now,
	    struct authz_token *);
int	 authz_jwt_shaped(const char *, size_t);

/*
 * introspect.c: opaque tokens through the authorization server's
 * introspection endpoint (RFC 7662, --introspect), each active answer
 * kept for at most AUTHZ_CACHE_TTL seconds and never past its exp, a
 * refusal for AUTHZ_NEG_TTL seconds; the endpoint is asked at most
 * AUTHZ_INTRO_RATE times a second (AUTHZ_INTRO_BURST at once) by each
 * worker.  The caches hold a digest of each token, never the token.
 */
struct authz_cached {
	unsigned char	 key[32];	/* BLAKE2b of the token */
	time_t		 until;		/* 0: free */
	char		*answer;	/* the introspection answer (JSON) */
};
/* A refused token, kept AUTHZ_NEG_TTL seconds, keyed the same way. */
struct authz_refused {
	unsigned char	 key[32];	/* BLAKE2b of the token */
	time_t		 until;		/* 0: free */
	enum authz_verdict verdict;	/* what the answer said */
};
struct authz_introspect {
	const char		*url;		/* --introspect */
	const char		*issuer;	/* the --issuer it follows */
	const char		*client_id;	/* --introspect-client-id */
	char			*secret;	/* --introspect-secret-file */
	struct authz_cached	 cache[AUTHZ_CACHE_SLOTS];
	struct authz_refused	 refused[AUTHZ_NEG_SLOTS];
	unsigned int		 budget;	/* calls left (rate limit) */
	time_t			 refilled;	/* 0: never: a full budget */
};
enum authz_verdict authz_introspect_check(const struct authz_conf *,
	    struct authz_introspect *, const char *, size_t, time_t now,
	    struct authz_token *, int *cached, char *err, size_t errlen);
enum authz_verdict authz_introspect_answer(const struct authz_conf *,
	    const char *iss, const char *, size_t, time_t now,
	    struct authz_token *);
void	 authz_introspect_clear(struct authz_introspect *);

/* answer.c: one request, from its params to the whole CGI response. */
struct authz {
	struct authz_conf	 conf;
	struct authz_keyset	 keys;
	struct authz_introspect	 intro;		/* url NULL: none */
	time_t			 warned;	/* last rate-limit line */
	void			(*log)(int prio, const char *fmt, ...)
				    __attribute__((format(printf, 2, 3)));
};
void	 authz_answer(struct authz *, char *const *env, time_t now,
	    struct authz_buf *out);
void	 authz_metadata_doc(const struct authz_conf *, struct authz_buf *);
char	*authz_metadata_url(const char *audience, const char **endpoint);

#endif /* WYMCP_AUTHZ_H */
