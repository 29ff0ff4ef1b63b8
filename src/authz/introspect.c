/*
 * introspect.c - opaque bearer tokens, checked by asking the
 * authorization server (OAuth 2.0 Token Introspection, RFC 7662)
 *
 * The request is a POST of token=...&token_type_hint=access_token to
 * --introspect, with HTTP Basic credentials (--introspect-client-id
 * and the secret of --introspect-secret-file).  The answer must say
 * "active": true, and its members are then checked exactly as a JWT's
 * claims are (jwt.c: iss, which must be the --issuer that --introspect
 * follows, aud holding the audience, exp, nbf, iat, the
 * principal claim, the scopes).  An active answer is kept for at most
 * AUTHZ_CACHE_TTL seconds and never past the token's exp, so that a
 * revoked token stops passing within that bound; a refused token (not
 * active, or an answer that fails the checks) is kept for
 * AUTHZ_NEG_TTL seconds, apart, so that refusals never push an active
 * answer out.  Both are keyed by a BLAKE2b digest of the token, which
 * is never stored.  Calls past the rate limit (a token bucket of
 * AUTHZ_INTRO_BURST calls, AUTHZ_INTRO_RATE more a second, per
 * worker) are not made: the check answers 503 with Retry-After, so
 * that a flood of made-up tokens cannot turn into a flood of calls to
 * the authorization server.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <sodium.h>

#include "authz/authz.h"

/*
 * Check an introspection answer (len bytes of JSON) as of `now`: its
 * iss must be `iss` (the --issuer --introspect follows), when not
 * NULL.  On
 * AUTHZ_VALID t holds the answer as its claims (clear it with
 * authz_token_clear()).
 */
enum authz_verdict
authz_introspect_answer(const struct authz_conf *c, const char *iss,
    const char *ans, size_t len, time_t now, struct authz_token *t)
{
	struct json_object	*o, *v;
	enum authz_verdict	 verdict;

	memset(t, 0, sizeof(*t));
	if ((o = authz_json((const unsigned char *)ans, len)) == NULL ||
	    !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return AUTHZ_UNAVAILABLE;	/* not an answer at all */
	}
	if (!json_object_object_get_ex(o, "active", &v) ||
	    !json_object_is_type(v, json_type_boolean) ||
	    !json_object_get_boolean(v)) {
		json_object_put(o);
		return AUTHZ_INACTIVE;
	}
	if ((verdict = authz_claims_check(c, iss, o, now, t)) != AUTHZ_VALID) {
		json_object_put(o);
		return verdict;
	}
	t->claims = o;
	return AUTHZ_VALID;
}

/* The slot for key: its own, a free or expired one, or the oldest. */
static struct authz_cached *
slot(struct authz_introspect *in, const unsigned char *key, time_t now,
    int *hit)
{
	struct authz_cached	*e, *best = &in->cache[0];
	size_t			 i;

	*hit = 0;
	for (i = 0; i < AUTHZ_CACHE_SLOTS; i++) {
		e = &in->cache[i];
		if (e->until != 0 && sodium_memcmp(e->key, key, 32) == 0) {
			*hit = e->until > now;
			return e;
		}
		if (e->until <= now || e->until < best->until)
			best = e;
	}
	return best;
}

/* The refusal kept for key, or NULL; *free_slot the slot to use. */
static struct authz_refused *
refused(struct authz_introspect *in, const unsigned char *key, time_t now,
    struct authz_refused **free_slot)
{
	struct authz_refused	*e, *best = &in->refused[0];
	size_t			 i;

	for (i = 0; i < AUTHZ_NEG_SLOTS; i++) {
		e = &in->refused[i];
		if (e->until > now && sodium_memcmp(e->key, key, 32) == 0)
			return e;
		if (e->until <= now || e->until < best->until)
			best = e;
	}
	*free_slot = best;
	return NULL;
}

/*
 * May a call be made now?  A token bucket: AUTHZ_INTRO_BURST calls,
 * refilled by AUTHZ_INTRO_RATE a second.  1 (and one call taken), or
 * 0 with the seconds until the next call in *wait.
 */
static int
may_call(struct authz_introspect *in, time_t now, int *wait)
{
	time_t		 dt;

	if (in->refilled == 0 || now < in->refilled) {
		in->budget = AUTHZ_INTRO_BURST;
		in->refilled = now;
	} else if ((dt = now - in->refilled) > 0) {
		in->budget = dt >= AUTHZ_INTRO_BURST / AUTHZ_INTRO_RATE + 1 ?
		    AUTHZ_INTRO_BURST : in->budget + (unsigned int)dt *
		    AUTHZ_INTRO_RATE;
		if (in->budget > AUTHZ_INTRO_BURST)
			in->budget = AUTHZ_INTRO_BURST;
		in->refilled = now;
	}
	if (in->budget == 0) {
		*wait = 1;
		return 0;
	}
	in->budget--;
	return 1;
}

/* The exp member as a time, or 0. */
static time_t
exp_of(const struct authz_token *t)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(t->claims, "exp", &v))
		return 0;
	if (json_object_is_type(v, json_type_int))
		return (time_t)json_object_get_int64(v);
	if (json_object_is_type(v, json_type_double))
		return (time_t)json_object_get_double(v);
	return 0;
}

/*
 * Check the opaque token `tok` (len bytes).  *cached says whether the
 * answer came from the cache.  AUTHZ_UNAVAILABLE (with the reason in
 * err, never the token or the secret) when the server gave no usable
 * answer.
 */
enum authz_verdict
authz_introspect_check(const struct authz_conf *c,
    struct authz_introspect *in, const char *tok, size_t len, time_t now,
    struct authz_token *t, int *cached, char *err, size_t errlen)
{
	struct authz_buf	 form = { 0 }, ans = { 0 };
	struct authz_cached	*e;
	struct authz_refused	*no, *nslot = NULL;
	unsigned char		 key[32];
	enum authz_verdict	 v;
	char			*esc;
	time_t			 until, exp;
	int			 hit, wait;

	*cached = 0;
	memset(t, 0, sizeof(*t));
	if (len > AUTHZ_TOKEN_MAX)
		return AUTHZ_TOO_LARGE;
	crypto_generichash(key, sizeof(key), (const unsigned char *)tok, len,
	    NULL, 0);
	e = slot(in, key, now, &hit);
	if (hit) {
		*cached = 1;
		return authz_introspect_answer(c, in->issuer, e->answer,
		    strlen(e->answer), now, t);
	}
	if ((no = refused(in, key, now, &nslot)) != NULL) {
		*cached = 1;
		return no->verdict;
	}
	if (!may_call(in, now, &wait)) {
		snprintf(err, errlen, "%s: more than %d calls a second: "
		    "refused for %d s", in->url, AUTHZ_INTRO_RATE, wait);
		return AUTHZ_RATE_LIMITED;
	}
	if ((esc = authz_form_escape(tok, len)) == NULL)
		return AUTHZ_NOMEM;
	authz_buf_printf(&form, "token=%s&token_type_hint=access_token", esc);
	curl_free(esc);
	if (form.failed) {
		authz_buf_free(&form);
		return AUTHZ_NOMEM;
	}
	if (authz_post(in->url, form.data, in->client_id, in->secret,
	    AUTHZ_INTROSPECT_MAX, &ans, err, errlen) != 0) {
		sodium_memzero(form.data, form.len);
		authz_buf_free(&form);
		authz_buf_free(&ans);
		return AUTHZ_UNAVAILABLE;
	}
	sodium_memzero(form.data, form.len);
	authz_buf_free(&form);
	v = authz_introspect_answer(c, in->issuer, ans.data != NULL ?
	    ans.data : "", ans.len, now, t);
	if (v == AUTHZ_UNAVAILABLE)
		snprintf(err, errlen, "%s: the answer is not a JSON object",
		    in->url);
	if (v == AUTHZ_VALID) {
		/* Kept at most AUTHZ_CACHE_TTL, never past exp. */
		until = now + AUTHZ_CACHE_TTL;
		if ((exp = exp_of(t)) != 0 && exp < until)
			until = exp;
		free(e->answer);
		memcpy(e->key, key, sizeof(key));
		e->answer = ans.data;
		e->until = until;
		ans.data = NULL;
	} else if (v != AUTHZ_UNAVAILABLE && v != AUTHZ_NOMEM &&
	    nslot != NULL) {
		/* A refusal: kept AUTHZ_NEG_TTL seconds. */
		memcpy(nslot->key, key, sizeof(key));
		nslot->until = now + AUTHZ_NEG_TTL;
		nslot->verdict = v;
	}
	authz_buf_free(&ans);
	return v;
}

/* Forget every answer, and every refusal (not the rate limit). */
void
authz_introspect_clear(struct authz_introspect *in)
{
	size_t	 i;

	for (i = 0; i < AUTHZ_CACHE_SLOTS; i++) {
		free(in->cache[i].answer);
		memset(&in->cache[i], 0, sizeof(in->cache[i]));
	}
	memset(in->refused, 0, sizeof(in->refused));
}
