/* harness.c - serve requests in-process for the unit tests */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testing/testing.h"
#include "harness.h"

int	(*h_gone)(void *);
const struct h_asker *h_ask;
size_t	 h_released_at;

/* In-memory request body and response buffer. */
struct h_io {
	const char	*in;
	size_t		 inlen, inoff;
	char		*out;
	size_t		 outlen, outcap;
};

static long
h_read(void *arg, char *buf, size_t len)
{
	struct h_io	*io = arg;
	size_t		 n = io->inlen - io->inoff;

	if (n > len)
		n = len;
	memcpy(buf, io->in + io->inoff, n);
	io->inoff += n;
	return (long)n;
}

static int
h_write(void *arg, const char *buf, size_t len)
{
	struct h_io	*io = arg;
	char		*p;

	if (io->outlen + len + 1 > io->outcap) {
		io->outcap = (io->outlen + len + 1) * 2;
		if ((p = realloc(io->out, io->outcap)) == NULL)
			return -1;
		io->out = p;
	}
	memcpy(io->out + io->outlen, buf, len);
	io->outlen += len;
	io->out[io->outlen] = '\0';
	return 0;
}

/* The io's ask_* members, handing over to h_ask. */
static const char *
h_hold(void *arg)
{
	(void)arg;
	return h_ask->hold();
}

static void
h_release(void *arg)
{
	struct h_io	*io = arg;

	h_released_at = io->outlen;
	h_ask->release();
}

static int
h_wait(void *arg, int ms, int (*take)(void *, const char *, size_t),
    void *takearg)
{
	struct h_io	*io = arg;

	return h_ask->wait(io->out != NULL ? io->out : "", ms, take, takearg);
}

static int
h_forward(void *arg, const char *addr, const char *msg, size_t len)
{
	(void)arg;
	return h_ask->forward(addr, msg, len);
}

enum wymcp_err
h_serve(struct wymcp_server *srv, const char *const *env, const char *body,
    struct h_resp *resp)
{
	struct h_io	 hio;
	struct wymcp_io	 io;
	enum wymcp_err	 rc;
	char		*sep;

	memset(&hio, 0, sizeof(hio));
	memset(resp, 0, sizeof(*resp));
	hio.in = body != NULL ? body : "";
	hio.inlen = strlen(hio.in);
	memset(&io, 0, sizeof(io));
	io.env = (char *const *)env;
	io.read = h_read;
	io.write = h_write;
	io.flush = NULL;
	io.arg = &hio;
	if (h_ask != NULL) {
		io.gone = h_gone;
		io.ask_hold = h_hold;
		io.ask_release = h_release;
		io.ask_wait = h_wait;
		io.ask_forward = h_forward;
		io.ask_timeout = h_ask->timeout;
		rc = wymcp_server_serve_io(srv, &io, sizeof(io));
	} else if (h_gone != NULL) {
		io.gone = h_gone;
		rc = wymcp_server_serve_io(srv, &io, sizeof(io));
	} else
		rc = wymcp_server_serve(srv, &io);
	if (hio.out == NULL)
		return rc;
	resp->headers = hio.out;
	if ((sep = strstr(hio.out, "\r\n\r\n")) != NULL) {
		*sep = '\0';
		resp->body = sep + 4;
		resp->bodylen = hio.outlen - (size_t)(resp->body - hio.out);
	} else {
		resp->body = hio.out + hio.outlen;
	}
	if (strncmp(hio.out, "Status: ", 8) == 0)
		resp->status = atoi(hio.out + 8);
	if (resp->bodylen > 0)
		resp->json = json_tokener_parse(resp->body);
	return rc;
}

enum wymcp_err
h_call(struct wymcp_server *srv, const char *method, const char *name,
    const char *params_json, const char *const *extra, struct h_resp *resp)
{
	const char	*env[64];
	char		 mh[512], nh[512], cl[64], *body;
	size_t		 n = 0, i, plen;
	enum wymcp_err	 rc;

	if (params_json == NULL)
		params_json = "{}";
	plen = strlen(params_json);
	body = malloc(plen + strlen(H_META) + 256);
	if (body == NULL)
		abort();
	if (strstr(params_json, "\"_meta\"") != NULL)
		sprintf(body, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\","
		    "\"params\":%s}", method, params_json);
	else
		sprintf(body, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\","
		    "\"params\":{\"_meta\":%s%s%.*s}}", method, H_META,
		    plen > 2 ? "," : "", plen > 2 ? (int)(plen - 2) : 0,
		    params_json + 1);
	snprintf(mh, sizeof(mh), "HTTP_MCP_METHOD=%s", method);
	snprintf(cl, sizeof(cl), "CONTENT_LENGTH=%zu", strlen(body));
	env[n++] = "REQUEST_METHOD=POST";
	env[n++] = "CONTENT_TYPE=application/json";
	env[n++] = cl;
	env[n++] = "HTTP_HOST=localhost";
	env[n++] = "HTTP_MCP_PROTOCOL_VERSION=2026-07-28";
	env[n++] = mh;
	if (name != NULL) {
		snprintf(nh, sizeof(nh), "HTTP_MCP_NAME=%s", name);
		env[n++] = nh;
	}
	for (i = 0; extra != NULL && extra[i] != NULL && n < 63; i++)
		env[n++] = extra[i];
	env[n] = NULL;
	rc = h_serve(srv, env, body, resp);
	free(body);
	return rc;
}

void
h_free(struct h_resp *resp)
{
	json_object_put(resp->json);
	free(resp->headers);
	memset(resp, 0, sizeof(*resp));
}

int
h_code(const struct h_resp *resp)
{
	struct json_object	*e, *c;

	if (resp->json == NULL ||
	    !json_object_object_get_ex(resp->json, "error", &e) ||
	    !json_object_object_get_ex(e, "code", &c))
		return 0;
	return json_object_get_int(c);
}

struct json_object *
h_result(const struct h_resp *resp)
{
	struct json_object	*r;

	if (resp->json == NULL ||
	    !json_object_object_get_ex(resp->json, "result", &r))
		return NULL;
	return r;
}

const char *
h_text(const struct h_resp *resp)
{
	struct json_object	*r = h_result(resp), *c, *b, *t;

	if (r == NULL || !json_object_object_get_ex(r, "content", &c) ||
	    json_object_array_length(c) == 0)
		return NULL;
	b = json_object_array_get_idx(c, 0);
	if (!json_object_object_get_ex(b, "text", &t))
		return NULL;
	return json_object_get_string(t);
}

struct json_object *
h_jp(struct json_object *o, ...)
{
	va_list		 ap;
	const char	*k;

	va_start(ap, o);
	while (o != NULL && (k = va_arg(ap, const char *)) != NULL)
		if (!json_object_object_get_ex(o, k, &o))
			o = NULL;
	va_end(ap);
	return o;
}

const char *
h_compact(struct json_object *o)
{
	return o == NULL ? "(null)" : json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

void
h_setup(struct wymcp_server **srv, struct h_resp *resp)
{
	*srv = wymcp_server_new();
	ck_assert_ptr_nonnull(*srv);
	memset(resp, 0, sizeof(*resp));
}

void
h_teardown(struct wymcp_server **srv, struct h_resp *resp)
{
	h_free(resp);
	wymcp_server_free(*srv);
	*srv = NULL;
}

void
h_expect_errmsg(struct wymcp_server *srv, const char *part)
{
	ck_assert_msg(strstr(wymcp_server_errmsg(srv), part) != NULL,
	    "errmsg '%s' lacks '%s'", wymcp_server_errmsg(srv), part);
}

static enum wymcp_err
h_noop(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return WYMCP_OK;
}

void
h_refuse_tool(struct wymcp_server *srv, const char *icons, const char *meta,
    const char *part)
{
	struct wymcp_tool	 tab[2];
	struct wymcp_module	 mod = { .abi = WYMCP_ABI_VERSION,
	    .size = sizeof(struct wymcp_module), .name = "bad",
	    .tools = tab, .tool_size = sizeof(struct wymcp_tool) };

	memset(tab, 0, sizeof(tab));
	tab[0].name = "badtool";
	tab[0].description = "d";
	tab[0].run = h_noop;
	tab[0].icons = icons;
	tab[0].meta = meta;
	ck_assert_msg(wymcp_server_add_module(srv, &mod) == WYMCP_ERR_INVAL,
	    "%s %s taken", icons, meta);
	h_expect_errmsg(srv, "tool badtool");
	h_expect_errmsg(srv, part);
	ck_assert_uint_eq(srv->ntools, 0);
}

int
h_run(Suite *s)
{
	SRunner	*sr;
	int	 nfailed;

	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
