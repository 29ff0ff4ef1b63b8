/*
 * fuzz_card.c - libFuzzer target for the server card (discovery outside
 * MCP: setup/card.c, serve/card.c)
 *
 * The input is lines: the request's path (DOCUMENT_URI), its Host,
 * If-None-Match, the location's WYMCP_PUBLIC_URL, its method, the
 * server's name, and a --public-url.  The server takes the name and
 * the public URL (either may be refused), then serves a request of
 * those params: the response must be a CGI response of a status the
 * card answers; a 200 to a GET carries a card whose name has the form
 * namespace/name, the $schema of the card, and a remote whose URL
 * wymcp__url_parts() takes.  wymcp_server_json() must give NULL or a
 * server.json of such a name.  Anything else aborts.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "serve/serve.h"
#include "memio.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define NFIELDS	7

static void
fail(const char *why, const char *out)
{
	fprintf(stderr, "fuzz_card: %s\n%s\n", why, out != NULL ? out : "");
	abort();
}

static struct wymcp_server *
server(void)
{
	static struct wymcp_server	*srv;

	if (srv != NULL)
		return srv;
	if ((srv = wymcp_server_new()) == NULL)
		abort();
	wymcp_server_set_log(srv, fuzz_drop, NULL, WYMCP_LOG_DEBUG);
	if (wymcp_server_add_public_header(srv, "Authorization") != WYMCP_OK)
		abort();
	return srv;
}

/* "NAME=value", or abort. */
static char *
kv(const char *name, const char *v)
{
	char	*s;

	if (asprintf(&s, "%s=%s", name, v) == -1)
		abort();
	return s;
}

/* A card or server.json: its name and remote, checked. */
static void
check_doc(const char *text, const char *schema)
{
	struct json_object	*o, *v, *r;
	const char		*h, *path;
	size_t			 hlen;

	if ((o = json_tokener_parse(text)) == NULL ||
	    !json_object_is_type(o, json_type_object))
		fail("not a JSON object", text);
	if (!json_object_object_get_ex(o, "$schema", &v) ||
	    strcmp(json_object_get_string(v), schema) != 0)
		fail("wrong $schema", text);
	if (!json_object_object_get_ex(o, "name", &v) ||
	    !wymcp__card_name_ok(json_object_get_string(v)))
		fail("a name not of the form namespace/name", text);
	if (!json_object_object_get_ex(o, "description", &v) ||
	    *json_object_get_string(v) == '\0')
		fail("no description", text);
	if (json_object_object_get_ex(o, "remotes", &v) &&
	    (json_object_array_length(v) != 1 ||
	    (r = json_object_array_get_idx(v, 0)) == NULL ||
	    !json_object_object_get_ex(r, "url", &v) ||
	    wymcp__url_parts(json_object_get_string(v), &h, &hlen,
	    &path) != 0))
		fail("a remote without a URL", text);
	json_object_put(o);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wymcp_server	*srv = server();
	struct wymcp_server_info info;
	struct fuzz_memio	 m;
	struct wymcp_io		 io;
	char			*buf, *f[NFIELDS], *p, *e[8], *js, *body;
	const char		*h, *path;
	size_t			 i, hlen;
	int			 status, n = 0;

	if ((buf = malloc(size + 1)) == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (i = 0, p = buf; i < NFIELDS; i++) {
		f[i] = p;
		if (p != NULL && (p = strchr(p, '\n')) != NULL)
			*p++ = '\0';
		if (f[i] == NULL)
			f[i] = (char *)"";
	}
	/* The URL parser alone: a host, and a path inside the text. */
	if (wymcp__url_parts(f[6], &h, &hlen, &path) == 0 &&
	    (hlen == 0 || path < h + hlen ||
	    (*path != '\0' && *path != '/')))
		fail("wymcp__url_parts() took a URL without a host", f[6]);
	memset(&info, 0, sizeof(info));
	info.name = *f[5] != '\0' ? f[5] : "wymcp";
	(void)wymcp_server_set_info(srv, &info, sizeof(info));
	(void)wymcp_server_set_public_url(srv, f[6]);
	if ((js = wymcp_server_json(srv)) != NULL) {
		check_doc(js, "https://static.modelcontextprotocol.io/"
		    "schemas/2025-12-11/server.schema.json");
		free(js);
	}

	e[n++] = kv("DOCUMENT_URI", f[0]);
	e[n++] = kv("HTTP_HOST", f[1]);
	e[n++] = kv("HTTP_IF_NONE_MATCH", f[2]);
	e[n++] = kv("WYMCP_PUBLIC_URL", f[3]);
	e[n++] = kv("REQUEST_METHOD", f[4]);
	e[n++] = kv("SERVER_PORT", "8080");
	e[n] = NULL;
	fuzz_memio_io(&m, &io, e, "", 0);
	(void)wymcp_server_serve(srv, &io);
	if (m.out == NULL || strncmp(m.out, "Status: ", 8) != 0)
		fail("no Status line", m.out);
	status = atoi(m.out + 8);
	if ((status != 200 && status != 204 && status != 304 &&
	    status != 400 && status != 403 && status != 404 &&
	    status != 405 && status != 413 && status != 415))
		fail("an unexpected status", m.out);
	if (status == 200 && strcmp(f[4], "GET") == 0 &&
	    strstr(f[0], "/server-card") != NULL) {
		if ((body = strstr(m.out, "\r\n\r\n")) == NULL)
			fail("no end of the head", m.out);
		check_doc(body + 4, "https://static.modelcontextprotocol.io/"
		    "schemas/v1/server-card.schema.json");
	}
	free(m.out);
	for (i = 0; i < (size_t)n; i++)
		free(e[i]);
	free(buf);
	return 0;
}
