/*
 * check_card.c - discovery outside MCP (experimental): the server card
 * at <endpoint>/server-card and the registry's server.json
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <check.h>

#include "testing/testing.h"
#include "setup/setup.h"
#include "harness.h"

#define CARD_SCHEMA	"https://static.modelcontextprotocol.io/schemas/" \
	"v1/server-card.schema.json"
#define PNG	"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB" \
	"CAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

static struct wymcp_server	*srv;
static struct h_resp		 resp;

static void
setup(void)
{
	h_setup(&srv, &resp);
}

static void
teardown(void)
{
	h_teardown(&srv, &resp);
}

/* GET (or `method') of the card at `path' with `host' and more params. */
static void
card(const char *method, const char *path, const char *host, ...)
{
	const char	*env[16];
	char		 m[64], p[256], h[256];
	va_list		 ap;
	size_t		 n = 0;

	h_free(&resp);
	memset(&resp, 0, sizeof(resp));
	snprintf(m, sizeof(m), "REQUEST_METHOD=%s", method);
	env[n++] = m;
	snprintf(p, sizeof(p), "DOCUMENT_URI=%s", path);
	env[n++] = p;
	if (host != NULL) {
		snprintf(h, sizeof(h), "HTTP_HOST=%s", host);
		env[n++] = h;
	}
	va_start(ap, host);
	while (n < 15 && (env[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	env[n] = NULL;
	ck_assert_int_eq(h_serve(srv, env, NULL, &resp), WYMCP_OK);
}

/* The value of header `name' in the response (a static copy), or NULL. */
static const char *
header(const char *name)
{
	static char	 v[512];
	const char	*p = resp.headers, *e;
	size_t		 n = strlen(name);

	for (; p != NULL && *p != '\0'; p = strstr(p, "\r\n") + 2) {
		if (strncasecmp(p, name, n) == 0 && p[n] == ':') {
			p += n + 1;
			while (*p == ' ')
				p++;
			e = strstr(p, "\r\n");
			snprintf(v, sizeof(v), "%.*s", (int)(e - p), p);
			return v;
		}
		if (strstr(p, "\r\n") == NULL)
			break;
	}
	return NULL;
}

static const char *
str(const char *k1, ...)
{
	struct json_object	*o = resp.json;
	const char		*k = k1;
	va_list			 ap;

	va_start(ap, k1);
	while (o != NULL && k != NULL) {
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, (size_t)atoi(k));
		else if (!json_object_object_get_ex(o, k, &o))
			o = NULL;
		k = va_arg(ap, const char *);
	}
	va_end(ap);
	return o != NULL ? json_object_get_string(o) : NULL;
}

START_TEST(names)
{
	ck_assert(wymcp__card_name_ok("com.example/weather"));
	ck_assert(wymcp__card_name_ok("io.github.u/w_x-1.2"));
	ck_assert(wymcp__card_name_ok("a/b"));
	ck_assert(!wymcp__card_name_ok("wymcp"));
	ck_assert(!wymcp__card_name_ok("a/b/c"));
	ck_assert(!wymcp__card_name_ok("/ab"));
	ck_assert(!wymcp__card_name_ok("ab/"));
	ck_assert(!wymcp__card_name_ok("a_b/c"));
	ck_assert(!wymcp__card_name_ok("a/b c"));
	ck_assert(!wymcp__card_name_ok(NULL));
}
END_TEST

START_TEST(urls)
{
	static const char *const good[] = {
		"https://mcp.example.com/mcp", "http://127.0.0.1:8080/mcp",
		"https://[::1]:8443/a/b", "https://x.example",
		"https://x.example/%7Eu/a;b=c:d@e",
	};
	static const char *const bad[] = {
		"ftp://x.example/", "https://", "https:///mcp",
		"https://x.example/mcp?a=b", "https://x.example/#f",
		"https://u@x.example/", "https://x.example:/",
		"https://x.example:123456/", "https://x.example/a b",
		"https://x.example/a\"b", "https://[::1/", "https://x_y/",
		"mcp.example.com/mcp",
	};
	const char	*h, *path;
	size_t		 i, hlen;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ck_assert_msg(wymcp__url_parts(good[i], &h, &hlen, &path) == 0,
		    "refused %s", good[i]);
	ck_assert_int_eq(wymcp__url_parts("https://Mcp.Example:9/x", &h,
	    &hlen, &path), 0);
	ck_assert_int_eq(hlen, 11);
	ck_assert_str_eq(path, "/x");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(wymcp__url_parts(bad[i], &h, &hlen, &path) != 0,
		    "took %s", bad[i]);
	ck_assert_int_eq(wymcp_server_set_public_url(srv,
	    "https://x.example/a?b"), WYMCP_ERR_INVAL);
	ck_assert_ptr_nonnull(strstr(wymcp_server_errmsg(srv), "no query"));
}
END_TEST

/* The card from the request: its URL, a name made of the Host, headers. */
START_TEST(card_from_request)
{
	struct json_object	*v;

	card("GET", "/mcp/server-card", "mcp.example.com", NULL);
	ck_assert_int_eq(resp.status, 403);	/* the Host allow-list */
	ck_assert_int_eq(wymcp_server_allow_origin(srv, "mcp.example.com"),
	    WYMCP_OK);
	card("GET", "/mcp/server-card", "mcp.example.com", "HTTPS=on",
	    "SERVER_PORT=443", NULL);
	ck_assert_int_eq(resp.status, 200);
	ck_assert_str_eq(str("$schema", NULL), CARD_SCHEMA);
	ck_assert_str_eq(str("name", NULL), "com.example.mcp/wymcp");
	ck_assert_str_eq(str("version", NULL), PACKAGE_VERSION);
	ck_assert_str_eq(str("description", NULL), "MCP server wymcp");
	ck_assert_ptr_null(str("title", NULL));
	ck_assert_ptr_null(str("tools", NULL));
	ck_assert_str_eq(str("remotes", "0", "type", NULL),
	    "streamable-http");
	ck_assert_str_eq(str("remotes", "0", "url", NULL),
	    "https://mcp.example.com/mcp");
	ck_assert_ptr_null(str("remotes", "0", "headers", NULL));
	ck_assert(json_object_object_get_ex(json_object_array_get_idx(
	    h_jp(resp.json, "remotes", NULL), 0),
	    "supportedProtocolVersions", &v));
	ck_assert_str_eq(h_compact(v), "[\"2026-07-28\",\"2025-11-25\","
	    "\"2025-06-18\",\"2025-03-26\",\"2024-11-05\"]");
	ck_assert_str_eq(header("Content-Type"), "application/json");
	ck_assert_str_eq(header("Cache-Control"), "public, max-age=3600");
	ck_assert_str_eq(header("Access-Control-Allow-Origin"), "*");
	ck_assert_str_eq(header("Access-Control-Expose-Headers"), "ETag");
	ck_assert_str_eq(header("Vary"), "Accept");
	ck_assert_int_eq(strlen(header("ETag")), 34);
	/* Compact JSON on the wire. */
	ck_assert_ptr_null(strchr(resp.body, '\n'));
	ck_assert_ptr_null(strstr(resp.body, "\\/"));

	/* A Host without its port: the web server's port. */
	card("GET", "/a/b/server-card", "mcp.example.com", "SERVER_PORT=8081",
	    NULL);
	ck_assert_str_eq(str("remotes", "0", "url", NULL),
	    "http://mcp.example.com:8081/a/b");
	ck_assert_int_eq(wymcp_server_allow_origin(srv, "mcp.example.com."),
	    WYMCP_OK);
	card("GET", "/mcp/server-card", "mcp.example.com.", NULL);
	ck_assert_str_eq(str("name", NULL), "com.example.mcp/wymcp");
	card("GET", "/server-card", "127.0.0.1:9", "REQUEST_SCHEME=https",
	    "SERVER_PORT=80", NULL);
	ck_assert_str_eq(str("name", NULL), "127.0.0.1/wymcp");
	ck_assert_str_eq(str("remotes", "0", "url", NULL),
	    "https://127.0.0.1:9/");
	/* CGI: SCRIPT_NAME and PATH_INFO. */
	h_free(&resp);
	memset(&resp, 0, sizeof(resp));
	{
		const char *env[] = { "REQUEST_METHOD=GET",
		    "SCRIPT_NAME=/cgi/mcp", "PATH_INFO=/server-card",
		    "HTTP_HOST=localhost:8080", NULL };

		ck_assert_int_eq(h_serve(srv, env, NULL, &resp), WYMCP_OK);
	}
	ck_assert_int_eq(resp.status, 200);
	ck_assert_str_eq(str("remotes", "0", "url", NULL),
	    "http://localhost:8080/cgi/mcp");
	ck_assert_str_eq(str("name", NULL), "localhost/wymcp");
	/* An IPv6 Host: no name can be made of it. */
	card("GET", "/mcp/server-card", "[::1]:8080", NULL);
	ck_assert_int_eq(resp.status, 404);
	ck_assert_int_eq(h_code(&resp), -32600);
}
END_TEST

/* The operator's URL, the location's, the serverInfo, the memo. */
START_TEST(card_settings)
{
	struct wymcp_server_info info;
	char			 etag[64], desc[400];
	size_t			 i;

	memset(&info, 0, sizeof(info));
	info.name = "com.example/weather";
	info.title = "Weather";
	info.icons = "[{\"src\":\"" PNG "\"}]";
	ck_assert_int_eq(wymcp_server_set_info(srv, &info, sizeof(info)),
	    WYMCP_OK);
	ck_assert_int_eq(wymcp_server_set_public_url(srv,
	    "https://w.example/mcp"), WYMCP_OK);
	ck_assert_int_eq(wymcp_server_add_public_header(srv, "Authorization"),
	    WYMCP_OK);
	card("GET", "/mcp/server-card", "localhost", "WYMCP_LEGACY=off",
	    NULL);
	ck_assert_int_eq(resp.status, 200);
	ck_assert_str_eq(str("name", NULL), "com.example/weather");
	ck_assert_str_eq(str("title", NULL), "Weather");
	ck_assert_str_eq(str("description", NULL), "MCP server Weather");
	ck_assert_str_eq(str("icons", "0", "src", NULL), PNG);
	ck_assert_str_eq(str("remotes", "0", "url", NULL),
	    "https://w.example/mcp");
	ck_assert_str_eq(str("remotes", "0", "headers", "0", "name", NULL),
	    "Authorization");
	ck_assert_str_eq(str("remotes", "0", "headers", "0", "isSecret",
	    NULL), "true");
	ck_assert_ptr_nonnull(strstr(resp.body,
	    "\"supportedProtocolVersions\":[\"2026-07-28\"]"));
	snprintf(etag, sizeof(etag), "%s", header("ETag"));

	/* The same card: the same ETag; If-None-Match: 304, no body. */
	card("GET", "/mcp/server-card", "localhost", "WYMCP_LEGACY=off",
	    NULL);
	ck_assert_str_eq(header("ETag"), etag);
	{
		char inm[96];

		snprintf(inm, sizeof(inm), "HTTP_IF_NONE_MATCH=\"a\", W/%s",
		    etag);
		card("GET", "/mcp/server-card", "localhost",
		    "WYMCP_LEGACY=off", inm, NULL);
	}
	ck_assert_int_eq(resp.status, 304);
	ck_assert_int_eq(resp.bodylen, 0);
	ck_assert_str_eq(header("ETag"), etag);

	/* The location's URL wins; a bad one is ignored. */
	card("GET", "/mcp/server-card", "localhost",
	    "WYMCP_PUBLIC_URL=https://alt.example/x", NULL);
	ck_assert_str_eq(str("remotes", "0", "url", NULL),
	    "https://alt.example/x");
	ck_assert_str_ne(header("ETag"), etag);
	card("GET", "/mcp/server-card", "localhost",
	    "WYMCP_PUBLIC_URL=javascript:alert(1)", NULL);
	ck_assert_str_eq(str("remotes", "0", "url", NULL),
	    "https://w.example/mcp");

	/* A new serverInfo: a new card.  Long texts are cut at 100. */
	for (i = 0; i < 150; i++)
		memcpy(desc + 2 * i, "\xc3\xa9", 2);
	desc[300] = '\0';
	memset(&info, 0, sizeof(info));
	info.description = desc;
	ck_assert_int_eq(wymcp_server_set_info(srv, &info, sizeof(info)),
	    WYMCP_OK);
	card("GET", "/mcp/server-card", "localhost", "WYMCP_LEGACY=off",
	    NULL);
	ck_assert_str_ne(header("ETag"), etag);
	ck_assert_int_eq(strlen(str("description", NULL)), 99 * 2 + 3);
	ck_assert_str_eq(str("description", NULL) + 99 * 2, "\xe2\x80\xa6");
}
END_TEST

/* HEAD, OPTIONS, Accept, other methods; MCP elsewhere unchanged. */
START_TEST(card_methods)
{
	size_t	 len;

	card("GET", "/mcp/server-card", "localhost",
	    "HTTP_ACCEPT=application/mcp-server-card+json", NULL);
	ck_assert_str_eq(header("Content-Type"),
	    "application/mcp-server-card+json");
	len = resp.bodylen;
	card("HEAD", "/mcp/server-card", "localhost", NULL);
	ck_assert_int_eq(resp.status, 200);
	ck_assert_int_eq(resp.bodylen, 0);
	ck_assert_int_eq(atoi(header("Content-Length")), (int)len);
	card("OPTIONS", "/mcp/server-card", "localhost",
	    "HTTP_ORIGIN=https://app.example", NULL);
	ck_assert_int_eq(resp.status, 204);
	ck_assert_str_eq(header("Access-Control-Allow-Methods"), "GET");
	ck_assert_str_eq(header("Access-Control-Allow-Headers"),
	    "Content-Type, If-None-Match");
	card("GET", "/mcp/server-card", "localhost",
	    "HTTP_ORIGIN=https://app.example", NULL);
	ck_assert_int_eq(resp.status, 200);
	card("POST", "/mcp/server-card", "localhost",
	    "CONTENT_TYPE=application/json", NULL);
	ck_assert_int_eq(resp.status, 405);
	ck_assert_str_eq(header("Allow"), "GET, HEAD, OPTIONS");
	ck_assert_int_eq(h_code(&resp), -32600);
	card("DELETE", "/mcp/server-card", "localhost", NULL);
	ck_assert_int_eq(resp.status, 405);
	card("GET", "/mcp/server-card", "evil.example", NULL);
	ck_assert_int_eq(resp.status, 403);
	/* Not the card: the endpoint's own answers. */
	card("GET", "/mcp", "localhost", NULL);
	ck_assert_int_eq(resp.status, 405);
	ck_assert_str_eq(header("Allow"), "POST");
	card("GET", "/mcp/server-card/x", "localhost", NULL);
	ck_assert_int_eq(resp.status, 405);
	ck_assert_str_eq(header("Allow"), "POST");
}
END_TEST

/* server.json: the public URL needed, icons the registry takes. */
START_TEST(server_json)
{
	struct wymcp_server_info info;
	struct json_object	*o, *v;
	char			*js;
	size_t			 i;

	ck_assert_ptr_null(wymcp_server_json(srv));
	ck_assert_ptr_nonnull(strstr(wymcp_server_errmsg(srv),
	    "--public-url"));
	memset(&info, 0, sizeof(info));
	info.description = "Weather forecasts";
	info.website_url = "https://w.example/";
	info.icons = "[{\"src\":\"" PNG "\"},{\"src\":"
	    "\"https://w.example/i.png\",\"mimeType\":\"image/png\"},"
	    "{\"src\":\"https://w.example/i.gif\",\"mimeType\":"
	    "\"image/gif\"}]";
	ck_assert_int_eq(wymcp_server_set_info(srv, &info, sizeof(info)),
	    WYMCP_OK);
	ck_assert_int_eq(wymcp_server_set_public_url(srv,
	    "https://mcp.w.example/mcp"), WYMCP_OK);
	ck_assert_ptr_nonnull(js = wymcp_server_json(srv));
	ck_assert_ptr_nonnull(strchr(js, '\n'));	/* indented */
	ck_assert_ptr_nonnull(o = json_tokener_parse(js));
	free(js);
	ck_assert_str_eq(h_compact(o), "{\"$schema\":\"https://static."
	    "modelcontextprotocol.io/schemas/2025-12-11/server.schema."
	    "json\",\"name\":\"example.w.mcp/wymcp\",\"description\":"
	    "\"Weather forecasts\",\"version\":\"" PACKAGE_VERSION "\","
	    "\"websiteUrl\":\"https://w.example/\",\"icons\":[{\"src\":"
	    "\"https://w.example/i.png\",\"mimeType\":\"image/png\"}],"
	    "\"remotes\":[{\"type\":\"streamable-http\",\"url\":\"https://"
	    "mcp.w.example/mcp\"}]}");
	json_object_put(o);

	/* Headers: names of token characters, 8 at most. */
	ck_assert_int_eq(wymcp_server_add_public_header(srv, "Bad Name"),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_server_add_public_header(srv, ""),
	    WYMCP_ERR_INVAL);
	for (i = 0; i < 8; i++)
		ck_assert_int_eq(wymcp_server_add_public_header(srv,
		    "X-Key"), WYMCP_OK);
	ck_assert_int_eq(wymcp_server_add_public_header(srv, "X-Key"),
	    WYMCP_ERR_INVAL);
	ck_assert_ptr_nonnull(js = wymcp_server_json(srv));
	ck_assert_ptr_nonnull(o = json_tokener_parse(js));
	free(js);
	ck_assert_ptr_nonnull(v = h_jp(o, "remotes", NULL));
	ck_assert_int_eq(json_object_array_length(h_jp(
	    json_object_array_get_idx(v, 0), "headers", NULL)), 8);
	json_object_put(o);

	/* No name: an IPv6 public URL and a name of no namespace. */
	ck_assert_int_eq(wymcp_server_set_public_url(srv,
	    "https://[2001:db8::1]/mcp"), WYMCP_OK);
	ck_assert_ptr_null(wymcp_server_json(srv));
	ck_assert_ptr_nonnull(strstr(wymcp_server_errmsg(srv),
	    "--server-name"));
}
END_TEST

static Suite *
card_suite(void)
{
	Suite	*s = suite_create("card");
	TCase	*tc = tcase_create("card");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, names);
	tcase_add_test(tc, urls);
	tcase_add_test(tc, card_from_request);
	tcase_add_test(tc, card_settings);
	tcase_add_test(tc, card_methods);
	tcase_add_test(tc, server_json);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return h_run(card_suite());
}
