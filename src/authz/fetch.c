/* fetch.c - HTTP(S) with libcurl: the JWKS, and token introspection */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <arpa/inet.h>
#include <netinet/in.h>

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <curl/curl.h>

#include "authz/authz.h"

#define FETCH_TIMEOUT_S		10	/* the whole transfer */
#define FETCH_CONNECT_S		5
#define FETCH_CC_MAX		1024	/* bytes of Cache-Control kept */

struct sink {
	struct authz_buf	*out;
	size_t			 max;
	int			 toobig;
	struct authz_buf	 cc;		/* Cache-Control values */
};

/* libcurl write callback: keep at most sink->max bytes. */
static size_t
collect(char *ptr, size_t size, size_t n, void *arg)
{
	struct sink	*s = arg;
	size_t		 len = size * n;

	if (s->out->len + len > s->max) {
		s->toobig = 1;
		return 0;		/* ends the transfer */
	}
	authz_buf_add(s->out, ptr, len);
	return s->out->failed ? 0 : len;
}

/* Is c a tchar of a token (RFC 9110 5.6.2)? */
static int
tchar(int c)
{
	return isalnum(c) || (c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

/*
 * The freshness lifetime a Cache-Control header value (`n` bytes, the
 * values of several fields joined with commas) gives (RFC 9111 5.2):
 * max-age in seconds (a quoted one too; capped at LONG_MAX), 0 when
 * it says no-store or no-cache or its max-age is not a number, -1
 * when it says nothing of these.  Other directives, and their
 * arguments, are skipped.
 */
long
authz_max_age(const char *v, size_t n)
{
	const char	*name;
	size_t		 i = 0, nlen;
	long		 age = -1, x;
	int		 none = 0, quoted, digits;

	while (i < n) {
		while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ',' ||
		    v[i] == '\r' || v[i] == '\n'))
			i++;
		name = v + i;
		while (i < n && tchar((unsigned char)v[i]))
			i++;
		nlen = (size_t)(v + i - name);
		if (nlen == 0) {
			i++;		/* not a directive: skip a byte */
			continue;
		}
		if ((nlen == 8 && strncasecmp(name, "no-store", 8) == 0) ||
		    (nlen == 8 && strncasecmp(name, "no-cache", 8) == 0))
			none = 1;
		if (i >= n || v[i] != '=')
			continue;
		i++;
		quoted = i < n && v[i] == '"';
		i += quoted;
		if (nlen == 7 && strncasecmp(name, "max-age", 7) == 0) {
			for (x = 0, digits = 0; i < n && v[i] >= '0' &&
			    v[i] <= '9'; i++, digits++)
				x = x > (LONG_MAX - 9) / 10 ? LONG_MAX :
				    x * 10 + (v[i] - '0');
			age = digits > 0 && (i >= n || v[i] == ',' ||
			    v[i] == ' ' || v[i] == '\t' || v[i] == '\r' ||
			    (quoted && v[i] == '"')) ? x : 0;
		}
		/* The rest of the argument: a quoted-string, or a token. */
		if (quoted) {
			while (i < n && v[i] != '"')
				i += v[i] == '\\' ? 2 : 1;
			i++;
		} else
			while (i < n && v[i] != ',')
				i++;
	}
	return none ? 0 : age;
}

/*
 * libcurl header callback: keep the values of Cache-Control (RFC 9111
 * 5.2), several joined with commas, at most FETCH_CC_MAX bytes.
 */
static size_t
header(char *buf, size_t size, size_t n, void *arg)
{
	struct sink	*s = arg;
	size_t		 len = size * n, name = sizeof("Cache-Control:") - 1;

	if (len > name && strncasecmp(buf, "Cache-Control:", name) == 0 &&
	    s->cc.len + len - name + 1 <= FETCH_CC_MAX) {
		if (s->cc.len > 0)
			authz_buf_add(&s->cc, ",", 1);
		authz_buf_add(&s->cc, buf + name, len - name);
	}
	return len;
}

/*
 * One request with libcurl: GET `url`, or POST `form` (an
 * application/x-www-form-urlencoded body) with HTTP Basic credentials
 * `user`/`password` when form is not NULL.  http or https only, no
 * redirects, certificates checked.  Returns 0 on a 2xx answer of at
 * most `max` bytes, else -1 with the reason in err (never the body,
 * the credentials or the form).
 */
static int
request(const char *url, const char *form, const char *user,
    const char *password, size_t max, struct authz_buf *out,
    long *max_age, char *err, size_t errlen)
{
	CURL		*c;
	CURLcode	 cc;
	struct curl_slist *hdrs = NULL;
	struct sink	 s = { out, max, 0, { NULL, 0, 0, 0 } };
	char		 cerr[CURL_ERROR_SIZE] = "";
	long		 code = 0;
	int		 rc = -1;

	if ((c = curl_easy_init()) == NULL) {
		snprintf(err, errlen, "curl_easy_init failed");
		return -1;
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)FETCH_TIMEOUT_S);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, (long)FETCH_CONNECT_S);
	curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max);
	curl_easy_setopt(c, CURLOPT_USERAGENT, AUTHZ_NAME);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
	if (max_age != NULL) {
		*max_age = -1;
		curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, header);
		curl_easy_setopt(c, CURLOPT_HEADERDATA, &s);
	}
	if (form != NULL) {
		hdrs = curl_slist_append(hdrs, "Accept: application/json");
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, form);
		curl_easy_setopt(c, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(c, CURLOPT_USERNAME, user);
		curl_easy_setopt(c, CURLOPT_PASSWORD, password);
	}
	cc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	if (s.toobig)
		snprintf(err, errlen, "%s: larger than %zu bytes", url, max);
	else if (out->failed)
		snprintf(err, errlen, "%s: out of memory", url);
	else if (cc != CURLE_OK)
		snprintf(err, errlen, "%s: %s", url, cerr[0] != '\0' ? cerr :
		    curl_easy_strerror(cc));
	else if (code < 200 || code > 299)
		snprintf(err, errlen, "%s: HTTP status %ld", url, code);
	else
		rc = 0;
	if (rc == 0 && max_age != NULL && s.cc.data != NULL)
		*max_age = authz_max_age(s.cc.data, s.cc.len);
	authz_buf_free(&s.cc);
	curl_easy_cleanup(c);
	curl_slist_free_all(hdrs);
	return rc;
}

/* GET `url` into `out` (the JWKS); as request(). */
int
authz_fetch(const char *url, size_t max, struct authz_buf *out,
    long *max_age, char *err, size_t errlen)
{
	return request(url, NULL, NULL, NULL, max, out, max_age, err,
	    errlen);
}

/* POST the form with Basic credentials (RFC 7662); as request(). */
int
authz_post(const char *url, const char *form, const char *user,
    const char *password, size_t max, struct authz_buf *out, char *err,
    size_t errlen)
{
	return request(url, form, user, password, max, out, NULL, err,
	    errlen);
}

/*
 * `s` (len bytes) percent-encoded for a form body; caller frees with
 * curl_free().  NULL when out of memory.
 */
char *
authz_form_escape(const char *s, size_t len)
{
	return curl_easy_escape(NULL, s, (int)len);
}

/* Is the host part of a URL (as libcurl parsed it) a loopback one? */
static int
loopback(const char *host)
{
	struct in6_addr	 a6;
	struct in_addr	 a4;
	char		 buf[64];
	size_t		 n = strlen(host);

	if (strcasecmp(host, "localhost") == 0 ||
	    strcasecmp(host, "localhost.") == 0)
		return 1;
	if (inet_pton(AF_INET, host, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (n < 3 || n - 2 >= sizeof(buf) || host[0] != '[' ||
	    host[n - 1] != ']')
		return 0;
	memcpy(buf, host + 1, n - 2);
	buf[n - 2] = '\0';
	if (inet_pton(AF_INET6, buf, &a6) != 1)
		return 0;
	if (IN6_IS_ADDR_LOOPBACK(&a6))
		return 1;
	return IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127;
}

/*
 * May `url` be fetched (--jwks-url, --introspect)?  https always; http
 * only when its host is a loopback one (localhost, 127.0.0.0/8, ::1),
 * or with `insecure` (--allow-insecure-http): over plain http anyone
 * on the path could hand over keys of their own, or read the client
 * secret and the tokens sent for introspection.  The URL is parsed by
 * libcurl, as the fetch will parse it.  1, or 0 with why in err.
 */
int
authz_url_ok(const char *url, int insecure, char *err, size_t errlen)
{
	CURLU	*u;
	char	*scheme = NULL, *host = NULL;
	int	 ok = 0;

	if ((u = curl_url()) == NULL) {
		snprintf(err, errlen, "%s: out of memory", url);
		return 0;
	}
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK)
		snprintf(err, errlen, "%s: not an absolute URL", url);
	else if (strcmp(scheme, "https") == 0)
		ok = 1;
	else if (strcmp(scheme, "http") != 0)
		snprintf(err, errlen, "%s: http or https only", url);
	else if (insecure || loopback(host))
		ok = 1;
	else
		snprintf(err, errlen, "%s: plain http to a host that is not "
		    "loopback: anyone on the way could change the answer "
		    "(use https, or give --allow-insecure-http)", url);
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return ok;
}
