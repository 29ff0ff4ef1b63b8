/*
 * answer.c - one FastCGI request to wymcp-authz, from its params to
 * the whole CGI response
 *
 * Three kinds of request:
 *
 *  - the protected-resource metadata (RFC 9728 section 3): a GET of
 *    /.well-known/oauth-protected-resource, bare or followed by the
 *    endpoint's path (/mcp), from the site's location for it;
 *  - a check from nginx's auth_request (a responder request whose
 *    REQUEST_URI is the protected one, and WYMCP_AUTHZ=check): 200
 *    with the identity in X-Wymcp-* headers, which the site maps with
 *    auth_request_set;
 *  - a check from Apache's mod_authnz_fcgi (FCGI_ROLE=AUTHORIZER): 200
 *    with Variable-WYMCP_* headers, which Apache sets as the request's
 *    environment and mod_proxy_fcgi passes on as params.
 *
 * A check refuses with MCP basic/authorization "Error Handling": 401
 * and "WWW-Authenticate: Bearer resource_metadata=…" for no token (RFC
 * 6750 section 3: no error code), with error="invalid_token" for a
 * token that does not pass; 403 error="insufficient_scope" with the
 * required scopes for one that lacks some (step-up).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "authz/authz.h"

/* A CGI param, or NULL. */
static const char *
param(char *const *env, const char *name)
{
	size_t	 n = strlen(name);

	for (; env != NULL && *env != NULL; env++)
		if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

/* The --scope list as one space-separated string (caller frees). */
static char *
required(const struct authz_conf *c)
{
	struct authz_buf	 b = { 0 };
	size_t			 i;

	authz_buf_add(&b, "", 0);
	for (i = 0; i < c->nscopes; i++) {
		if (i > 0)
			authz_buf_add(&b, " ", 1);
		authz_buf_str(&b, c->scopes[i]);
	}
	if (b.failed) {
		authz_buf_free(&b);
		return NULL;
	}
	return b.data;
}

/*
 * A refusal: the status, the Bearer challenge and a small JSON body
 * (Apache passes it to the client; nginx's auth_request drops it).
 * `error` and `desc` are NULL for a request without a token; `scope`
 * NULL for none.  Every value is a fixed text or an option checked at
 * start (no '"' or '\'), never the token's.
 */
static void
refuse(const struct authz_conf *c, struct authz_buf *out, int status,
    const char *error, const char *desc, const char *scope)
{
	authz_buf_printf(out, "Status: %d %s\r\n", status,
	    status == 401 ? "Unauthorized" : "Forbidden");
	authz_buf_str(out, "WWW-Authenticate: Bearer ");
	if (error != NULL)
		authz_buf_printf(out, "error=\"%s\", ", error);
	if (scope != NULL && *scope != '\0')
		authz_buf_printf(out, "scope=\"%s\", ", scope);
	authz_buf_printf(out, "resource_metadata=\"%s\"", c->metadata);
	if (desc != NULL)
		authz_buf_printf(out, ", error_description=\"%s\"", desc);
	authz_buf_str(out, "\r\nContent-Type: application/json\r\n"
	    "Cache-Control: no-store\r\n\r\n");
	if (error != NULL)
		authz_buf_printf(out, "{\"error\":\"%s\","
		    "\"error_description\":\"%s\"}\n", error, desc);
	else
		authz_buf_str(out, "{\"error\":\"unauthorized\","
		    "\"error_description\":\"A bearer token is required\"}\n");
}

/* "Name: value\r\n" of an identity header in the style of the caller. */
static void
identity(struct authz_buf *out, int apache, const char *what,
    const char *value)
{
	size_t	 i;

	if (apache) {
		authz_buf_str(out, "Variable-WYMCP_");
		for (i = 0; what[i] != '\0'; i++)
			authz_buf_printf(out, "%c",
			    toupper((unsigned char)what[i]));
	} else {
		authz_buf_str(out, "X-Wymcp-");
		for (i = 0; what[i] != '\0'; i++)
			authz_buf_printf(out, "%c", what[i] == '_' ? '-' :
			    (i == 0 || what[i - 1] == '_') ?
			    toupper((unsigned char)what[i]) :
			    tolower((unsigned char)what[i]));
	}
	authz_buf_printf(out, ": %s\r\n", value);
}

/* 200: who the token names, its scopes and the mapped claims. */
static void
allow(struct authz *a, struct authz_buf *out, int apache,
    const struct authz_token *t)
{
	const struct authz_conf	*c = &a->conf;
	struct json_object	*v;
	char			*text, name[160];
	size_t			 i;

	authz_buf_str(out, apache ? "Status: 200\r\n" : "Status: 200 OK\r\n");
	identity(out, apache, "principal", t->principal);
	if (t->scopes[0] != '\0')
		identity(out, apache, "scopes", t->scopes);
	for (i = 0; i < c->nassigns; i++) {
		if (!json_object_object_get_ex(t->claims, c->assigns[i].claim,
		    &v) || json_object_is_type(v, json_type_null))
			continue;
		if ((text = authz_claim_text(v)) == NULL) {
			a->log(WYMCP_LOG_WARNING, "claim %s: not fit for a "
			    "header (control characters, or too long): "
			    "left out", c->assigns[i].claim);
			continue;
		}
		snprintf(name, sizeof(name), "assign_%s", c->assigns[i].name);
		identity(out, apache, name, text);
		free(text);
	}
	if (!apache)
		authz_buf_str(out, "Content-Length: 0\r\n");
	authz_buf_str(out, "Cache-Control: no-store\r\n\r\n");
}

/*
 * The credentials of "Authorization: Bearer <b64token>" (RFC 6750
 * section 2.1; the scheme is case-insensitive).  Returns 1 with the
 * token, 0 when there is no bearer token (no header, another scheme),
 * -1 when the header is a malformed bearer one.
 */
static int
bearer(const char *h, const char **tok, size_t *len)
{
	size_t	 n;

	if (h == NULL)
		return 0;
	while (*h == ' ')
		h++;
	if (strncasecmp(h, "Bearer", 6) != 0 || (h[6] != ' ' && h[6] != '\0'))
		return 0;
	h += 6;
	while (*h == ' ')
		h++;
	n = strspn(h, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789-._~+/");
	n += strspn(h + n, "=");
	*tok = h;
	*len = n;
	h += n;
	while (*h == ' ')
		h++;
	return n > 0 && *h == '\0' ? 1 : -1;
}

/*
 * The key sets fresh: after SIGHUP, one reload (a failed one is not
 * retried here), and every kept introspection answer forgotten; then
 * the key sets whose time has come (a withdrawn key goes).
 */
static void
keys_fresh(struct authz *a, time_t now)
{
	char	 err[512];
	int	 r;

	if (a->keys.stale) {
		if (authz_keyset_load(&a->keys, now, err, sizeof(err)) != 0)
			a->log(WYMCP_LOG_ERR, "reloading the keys: %s (the "
			    "old ones stay)", err);
		authz_introspect_clear(&a->intro);
		a->keys.stale = 0;
	}
	if ((r = authz_keyset_due(&a->keys, now, err, sizeof(err))) < 0)
		a->log(WYMCP_LOG_ERR, "reloading the keys: %s (the old ones "
		    "stay; tried again in %d s)", err, AUTHZ_REFRESH_MIN);
	else if (r > 0)
		a->log(WYMCP_LOG_INFO, "the key set was reloaded on schedule "
		    "(%zu keys)", authz_keyset_count(&a->keys));
}

/*
 * The verdict on the bearer token `tok' (`len' bytes; `b' what bearer()
 * said of it), its claims in `t' when valid: introspected (an opaque
 * token, or no keys), else checked against the key sets (refreshed
 * once for a key they lack: rotation).  Why in `err' when the
 * introspection is unavailable or rate-limited.
 */
static enum authz_verdict
verdict(struct authz *a, const char *tok, size_t len, int b, time_t now,
    struct authz_token *t, char *err, size_t errlen)
{
	enum authz_verdict	 v;
	int			 r, cached = 0, jwks = a->keys.nsrcs > 0;

	if (b < 0)
		return len > AUTHZ_TOKEN_MAX ? AUTHZ_TOO_LARGE :
		    AUTHZ_MALFORMED;
	if (a->intro.url != NULL && (!jwks || !authz_jwt_shaped(tok, len))) {
		v = authz_introspect_check(&a->conf, &a->intro, tok, len, now,
		    t, &cached, err, errlen);
		if (v == AUTHZ_UNAVAILABLE)
			a->log(WYMCP_LOG_ERR, "introspection: %s", err);
		else if (v != AUTHZ_RATE_LIMITED)
			a->log(WYMCP_LOG_DEBUG, "introspection: %s%s",
			    v == AUTHZ_VALID ? "active" : "refused",
			    cached ? " (kept answer)" : "");
		return v;
	}
	if ((v = authz_jwt_check(&a->conf, &a->keys, tok, len, now, t)) !=
	    AUTHZ_UNKNOWN_KEY || !jwks)
		return v;
	if ((r = authz_keyset_refresh(&a->keys, now, err, errlen)) < 0)
		a->log(WYMCP_LOG_ERR, "refreshing the keys: %s", err);
	else if (r > 0) {
		a->log(WYMCP_LOG_INFO, "unknown key: the key set was reloaded "
		    "(%zu keys)", authz_keyset_count(&a->keys));
		v = authz_jwt_check(&a->conf, &a->keys, tok, len, now, t);
	}
	return v;
}

/*
 * Neither valid nor invalid (`v': the introspection unavailable, or
 * past its rate limit, `err' why): no challenge, retry later.  Past
 * the rate limit too: it spares the authorization server, whoever sent
 * the tokens, so not a 429.
 */
static void
unavailable(struct authz *a, struct authz_buf *out, enum authz_verdict v,
    time_t now, const char *err)
{
	if (v == AUTHZ_RATE_LIMITED && now != a->warned) {
		a->log(WYMCP_LOG_WARNING, "introspection: %s", err);
		a->warned = now;	/* one line a second */
	}
	authz_buf_printf(out, "Status: 503 Service Unavailable\r\n"
	    "Content-Type: application/json\r\n"
	    "Cache-Control: no-store\r\nRetry-After: %d\r\n\r\n"
	    "{\"error\":\"temporarily_unavailable\","
	    "\"error_description\":\"%s\"}\n",
	    v == AUTHZ_RATE_LIMITED ? 1 : 5, authz_why(v));
}

/* The check: decide, then write the answer. */
static void
check(struct authz *a, char *const *env, time_t now, struct authz_buf *out,
    int apache)
{
	const struct authz_conf	*c = &a->conf;
	struct authz_token	 t;
	enum authz_verdict	 v;
	const char		*tok = NULL;
	char			 err[512], *need = NULL;
	size_t			 len = 0, i;
	int			 b;

	keys_fresh(a, now);
	if ((need = required(c)) == NULL)
		goto nomem;
	if ((b = bearer(param(env, "HTTP_AUTHORIZATION"), &tok, &len)) == 0) {
		a->log(WYMCP_LOG_INFO, "refused: no bearer token");
		refuse(c, out, 401, NULL, NULL, need);
		free(need);
		return;
	}
	err[0] = '\0';
	if ((v = verdict(a, tok, len, b, now, &t, err, sizeof(err))) ==
	    AUTHZ_NOMEM)
		goto nomem;
	if (v == AUTHZ_UNAVAILABLE || v == AUTHZ_RATE_LIMITED)
		unavailable(a, out, v, now, err);
	else if (v != AUTHZ_VALID) {
		a->log(WYMCP_LOG_INFO, "refused: %s", authz_why(v));
		refuse(c, out, 401, "invalid_token", authz_why(v), need);
	}
	if (v != AUTHZ_VALID) {
		free(need);
		return;
	}
	for (i = 0; i < c->nscopes; i++)
		if (!authz_words_has(t.scopes, c->scopes[i]))
			break;
	if (i < c->nscopes) {
		a->log(WYMCP_LOG_INFO, "refused: the token lacks scope %s",
		    c->scopes[i]);
		refuse(c, out, 403, "insufficient_scope", "The token lacks a "
		    "scope this resource requires", need);
	} else {
		a->log(WYMCP_LOG_DEBUG, "allowed: principal %s", t.principal);
		allow(a, out, apache, &t);
	}
	authz_token_clear(&t);
	free(need);
	return;
nomem:
	free(need);
	a->log(WYMCP_LOG_ERR, "out of memory");
	authz_buf_free(out);
	authz_buf_str(out, "Status: 500 Internal Server Error\r\n\r\n");
}

/*
 * The protected-resource metadata document (RFC 9728 section 2),
 * generated from the options: resource (the audience),
 * authorization_servers (the issuers), scopes_supported (the required
 * scopes, when there are any), bearer_methods_supported (the header
 * only: MCP basic/authorization "Token Requirements").
 */
void
authz_metadata_doc(const struct authz_conf *c, struct authz_buf *out)
{
	struct json_object	*d, *a;
	size_t			 i;

	if ((d = json_object_new_object()) == NULL) {
		out->failed = 1;
		return;
	}
	json_object_object_add(d, "resource",
	    json_object_new_string(c->audience));
	a = json_object_new_array();
	for (i = 0; i < c->nissuers; i++)
		json_object_array_add(a, json_object_new_string(c->issuers[i]));
	json_object_object_add(d, "authorization_servers", a);
	if (c->nscopes > 0) {
		a = json_object_new_array();
		for (i = 0; i < c->nscopes; i++)
			json_object_array_add(a,
			    json_object_new_string(c->scopes[i]));
		json_object_object_add(d, "scopes_supported", a);
	}
	a = json_object_new_array();
	json_object_array_add(a, json_object_new_string("header"));
	json_object_object_add(d, "bearer_methods_supported", a);
	authz_buf_str(out, json_object_to_json_string_ext(d,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(d);
}

/* A GET of the well-known location: the document, 404 or 405. */
static void
metadata(struct authz *a, char *const *env, const char *path, size_t plen,
    struct authz_buf *out)
{
	const char		*m = param(env, "REQUEST_METHOD");
	const char		*ep = a->conf.endpoint;
	struct authz_buf	 doc = { 0 };
	size_t			 wk = strlen(AUTHZ_WELL_KNOWN);

	if (!(plen == wk || (plen == wk + strlen(ep) &&
	    memcmp(path + wk, ep, strlen(ep)) == 0))) {
		authz_buf_str(out, "Status: 404 Not Found\r\n"
		    "Content-Length: 0\r\n\r\n");
		return;
	}
	if (m == NULL || (strcmp(m, "GET") != 0 && strcmp(m, "HEAD") != 0)) {
		authz_buf_str(out, "Status: 405 Method Not Allowed\r\n"
		    "Allow: GET, HEAD\r\nContent-Length: 0\r\n\r\n");
		return;
	}
	authz_metadata_doc(&a->conf, &doc);
	/* Public and the same for everyone: any origin may read it. */
	authz_buf_printf(out, "Status: 200 OK\r\n"
	    "Content-Type: application/json\r\n"
	    "Access-Control-Allow-Origin: *\r\n"
	    "Cache-Control: max-age=300\r\n"
	    "Content-Length: %zu\r\n\r\n", doc.len);
	if (strcmp(m, "HEAD") != 0 && doc.data != NULL)
		authz_buf_add(out, doc.data, doc.len);
	if (doc.failed)
		out->failed = 1;
	authz_buf_free(&doc);
}

/*
 * Answer one request: the whole CGI response (Status, headers, body)
 * into `out`.  When out->failed is set afterwards the caller answers
 * 500 instead.
 */
void
authz_answer(struct authz *a, char *const *env, time_t now,
    struct authz_buf *out)
{
	const char	*role = param(env, "FCGI_ROLE");
	const char	*uri = param(env, "REQUEST_URI");
	const char	*mode = param(env, "WYMCP_AUTHZ");
	size_t		 plen, wk = strlen(AUTHZ_WELL_KNOWN);
	int		 apache;

	apache = role != NULL && strcmp(role, "AUTHORIZER") == 0;
	if (uri == NULL)
		uri = param(env, "DOCUMENT_URI");
	/*
	 * A check is never a metadata request: Apache's authorizer role,
	 * or the site's WYMCP_AUTHZ=check on the auth_request location
	 * (REQUEST_URI is the client's raw URI, which nginx routes only
	 * after normalizing it).
	 */
	if (uri != NULL && (mode == NULL || strcmp(mode, "check") != 0)) {
		plen = strcspn(uri, "?#");
		if (!apache && plen >= wk &&
		    memcmp(uri, AUTHZ_WELL_KNOWN, wk) == 0) {
			metadata(a, env, uri, plen, out);
			return;
		}
	}
	check(a, env, now, out, apache);
}

/*
 * The URL of the metadata document for an audience (RFC 9728 section
 * 3.1: the well-known path goes between the host and the resource's
 * path), and the path itself in *endpoint ("" for none).  Caller frees
 * the URL; NULL when the audience is not an absolute http(s) URL
 * without query or fragment.
 */
char *
authz_metadata_url(const char *aud, const char **endpoint)
{
	const char	*host, *path;
	char		*url;
	size_t		 n;

	if (strncmp(aud, "https://", 8) == 0)
		host = aud + 8;
	else if (strncmp(aud, "http://", 7) == 0)
		host = aud + 7;
	else
		return NULL;
	if (strpbrk(aud, "?#\"\\ ") != NULL || *host == '\0' || *host == '/')
		return NULL;
	path = host + strcspn(host, "/");
	if (strcmp(path, "/") == 0)
		path = "";
	n = (size_t)(path - aud) + strlen(AUTHZ_WELL_KNOWN) + strlen(path) + 1;
	if ((url = malloc(n)) == NULL)
		return NULL;
	snprintf(url, n, "%.*s%s%s", (int)(path - aud), aud, AUTHZ_WELL_KNOWN,
	    path);
	*endpoint = path;
	return url;
}
