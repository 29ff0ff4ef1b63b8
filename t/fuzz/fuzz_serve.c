/*
 * fuzz_serve.c - libFuzzer target for the whole request pipeline
 *
 * The input is a request body.  It is served three times through
 * wymcp_server_serve() with an in-memory io: with headers mirrored from
 * the body itself and its CONTENT_LENGTH (so every method, tool name and
 * version the fuzzer writes gets past the header checks), then with the
 * mirrored headers of a tools/call of tool "t" and of a tools/list,
 * without CONTENT_LENGTH (read to end of input); and a body that
 * carries inputResponses without a requestState once more as the round
 * after its first (serve_answered()).  Every response must
 * be a well-formed CGI response whose body, when there is one, is one
 * JSON-RPC object in valid UTF-8; anything else aborts.
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

/*
 * Tool "t" asks the client according to its arguments, so the fuzzer
 * reaches the MRTR paths: b true elicits a form, i == 1 samples, i == 2
 * asks for roots, i == 3 batches all three.
 */
static enum wymcp_err
t_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*v, *a = NULL, *p;
	enum wymcp_err		 rc = WYMCP_OK;
	int			 i = 0, b = 0;

	if (json_object_object_get_ex(args, "i", &v))
		i = json_object_get_int(v);
	if (json_object_object_get_ex(args, "b", &v))
		b = json_object_get_boolean(v);
	if (i == 3 && (rc = wymcp_input_batch(ctx)) != WYMCP_OK)
		return rc;
	if (b || i == 3) {
		rc = wymcp_elicit(ctx, "Your name?", "{\"type\":\"object\","
		    "\"properties\":{\"name\":{\"type\":\"string\","
		    "\"maxLength\":16},\"age\":{\"type\":\"integer\","
		    "\"minimum\":0}},\"required\":[\"name\"]}", &a);
		if (rc == WYMCP_OK)
			wymcp_result_add(res, wymcp_textf(ctx, "action %s",
			    wymcp_answer_action(a)));
		if (rc == WYMCP_OK && wymcp_answer_content(a) != NULL)
			wymcp_result_add(res, wymcp_json(ctx,
			    wymcp_answer_content(a)));
	}
	if (i == 1 || i == 3) {
		p = wymcp_own(ctx, json_tokener_parse("{\"messages\":[],"
		    "\"maxTokens\":10}"));
		if ((rc = wymcp_sample(ctx, NULL, p, &a)) == WYMCP_OK)
			wymcp_result_add(res, wymcp_json(ctx, a));
	}
	if (i == 2 || i == 3)
		if ((rc = wymcp_roots(ctx, "roots", &a)) == WYMCP_OK)
			wymcp_result_add(res, wymcp_json(ctx, a));
	if (i == 3 && (rc = wymcp_input_flush(ctx)) != WYMCP_OK)
		return rc;
	if (rc != WYMCP_OK && rc != WYMCP_ERR_PENDING)
		return wymcp_result_error(res, "asking failed: %s",
		    wymcp_strerror(rc));
	return wymcp_result_add(res, wymcp_json(ctx, args));
}

/* Tool "s" returns its arguments as structured content. */
static enum wymcp_err
s_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_structured(res, args);
}

static const struct wymcp_tool tools[] = {
	{
		.name = "t",
		.description = "A tool with typed arguments.",
		.input_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"s\":{\"type\":\"string\",\"maxLength\":32},"
		    "\"i\":{\"type\":\"integer\",\"minimum\":0,"
		    "\"maximum\":100},"
		    "\"b\":{\"type\":\"boolean\"},"
		    "\"n\":{\"type\":[\"number\",\"null\"]},"
		    "\"a\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
		    "\"maxItems\":4},"
		    "\"o\":{\"type\":\"object\",\"properties\":{\"e\":"
		    "{\"enum\":[\"x\",\"y\",1]}},\"additionalProperties\":"
		    "false}},\"required\":[\"s\"]}",
		.annotations = "{\"readOnlyHint\":true}",
		.run = t_run,
	},
	{
		.name = "s",
		.description = "Returns its arguments as structured content.",
		.input_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"k\":{\"type\":\"string\"}}}",
		.output_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"k\":{\"type\":\"string\",\"minLength\":1}},"
		    "\"required\":[\"k\"]}",
		.run = s_run,
	},
	{
		.name = "needs",
		.description = "Needs sampling with tools.",
		.required_caps = "{\"sampling\":{\"tools\":{}}}",
		.run = s_run,
	},
	{ .name = NULL }
};

static const struct wymcp_module mod = {
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "fuzz", .tools = tools,
	.tool_size = sizeof(struct wymcp_tool)
};

static struct wymcp_server *
server(void)
{
	static struct wymcp_server	*srv;

	if (srv != NULL)
		return srv;
	if ((srv = wymcp_server_new()) == NULL ||
	    wymcp_server_add_module(srv, &mod) != WYMCP_OK) {
		fprintf(stderr, "fuzz_serve: %s\n", wymcp_server_errmsg(srv));
		abort();
	}
	wymcp_server_set_log(srv, fuzz_drop, NULL, WYMCP_LOG_DEBUG);
	wymcp_server_set_max_body(srv, 256 * 1024);
	return srv;
}

/*
 * An independent RFC 8259 grammar check of the response body (json-c
 * itself lets NaN, Infinity and "1." through).  Returns the end of the
 * value at s, or NULL.
 */
static const char *
j_value(const char *s, const char *e, int depth);

static const char *
j_ws(const char *s, const char *e)
{
	while (s < e && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
		s++;
	return s;
}

static const char *
j_string(const char *s, const char *e)
{
	int	 i;

	if (s >= e || *s++ != '"')
		return NULL;
	while (s < e && *s != '"') {
		if ((unsigned char)*s < 0x20)
			return NULL;
		if (*s++ != '\\')
			continue;
		if (s >= e)
			return NULL;
		if (*s == 'u') {
			for (i = 1; i <= 4; i++)
				if (s + i >= e || strchr("0123456789abcdef"
				    "ABCDEF", s[i]) == NULL || s[i] == '\0')
					return NULL;
			s += 5;
		} else if (strchr("\"\\/bfnrt", *s) != NULL && *s != '\0')
			s++;
		else
			return NULL;
	}
	return s < e ? s + 1 : NULL;
}

static const char *
j_digits(const char *s, const char *e)
{
	const char	*b = s;

	while (s < e && *s >= '0' && *s <= '9')
		s++;
	return s == b ? NULL : s;
}

static const char *
j_number(const char *s, const char *e)
{
	if (s < e && *s == '-')
		s++;
	if (s < e && *s == '0')
		s++;
	else if ((s = j_digits(s, e)) == NULL)
		return NULL;
	if (s < e && *s == '.' && (s = j_digits(s + 1, e)) == NULL)
		return NULL;
	if (s < e && (*s == 'e' || *s == 'E')) {
		s++;
		if (s < e && (*s == '+' || *s == '-'))
			s++;
		if ((s = j_digits(s, e)) == NULL)
			return NULL;
	}
	return s;
}

static const char *
j_value(const char *s, const char *e, int depth)
{
	char	 close;

	if (depth > 512 || (s = j_ws(s, e)) >= e)
		return NULL;
	if (*s == '{' || *s == '[') {
		close = *s == '{' ? '}' : ']';
		if ((s = j_ws(s + 1, e)) < e && *s == close)
			return s + 1;
		for (;;) {
			if (close == '}') {
				if ((s = j_string(j_ws(s, e), e)) == NULL ||
				    (s = j_ws(s, e)) >= e || *s++ != ':')
					return NULL;
			}
			if ((s = j_value(s, e, depth + 1)) == NULL ||
			    (s = j_ws(s, e)) >= e)
				return NULL;
			if (*s == close)
				return s + 1;
			if (*s++ != ',')
				return NULL;
		}
	}
	if (*s == '"')
		return j_string(s, e);
	if ((size_t)(e - s) >= 4 && (strncmp(s, "true", 4) == 0 ||
	    strncmp(s, "null", 4) == 0))
		return s + 4;
	if ((size_t)(e - s) >= 5 && strncmp(s, "false", 5) == 0)
		return s + 5;
	return j_number(s, e);
}

/* 1 when buf is exactly one JSON value, white space aside. */
static int
json_strict(const char *buf, size_t len)
{
	const char	*e = buf + len, *s;

	return (s = j_value(buf, e, 0)) != NULL && j_ws(s, e) == e;
}

static void
fail(const char *why, const struct fuzz_memio *m)
{
	fprintf(stderr, "fuzz_serve: %s\n--- response ---\n%.*s\n", why,
	    (int)(m->outlen > 4096 ? 4096 : m->outlen),
	    m->out != NULL ? m->out : "");
	abort();
}

/*
 * Does the request carry the 2026-07-28 _meta protocolVersion?  Only
 * then do its results carry resultType: without it the request is a
 * 2025-11-25 client's (legacy.c), whose results never do.
 */
static int
modern_request(const uint8_t *data, size_t size)
{
	struct json_tokener	*tok;
	struct json_object	*o, *p, *meta;
	int			 modern;

	if (size > INT32_MAX || (tok = json_tokener_new()) == NULL)
		return 0;
	o = json_tokener_parse_ex(tok, (const char *)data, (int)size);
	json_tokener_free(tok);
	modern = json_object_is_type(o, json_type_object) &&
	    json_object_object_get_ex(o, "params", &p) &&
	    json_object_is_type(p, json_type_object) &&
	    json_object_object_get_ex(p, "_meta", &meta) &&
	    json_object_is_type(meta, json_type_object) &&
	    json_object_object_get_ex(meta,
	    "io.modelcontextprotocol/protocolVersion", NULL);
	json_object_put(o);
	return modern;
}

/*
 * Check the CGI response in m->out; `modern`: the request was a
 * 2026-07-28 one (modern_request()).
 */
static void
check(const struct fuzz_memio *m, int modern)
{
	struct json_tokener	*tok;
	struct json_object	*o, *v;
	const char		*sep, *cl, *body;
	size_t			 blen;
	int			 status;

	if (m->out == NULL || m->outlen < 8 ||
	    strncmp(m->out, "Status: ", 8) != 0)
		fail("no Status line", m);
	status = atoi(m->out + 8);
	if (status < 200 || status > 599)
		fail("bad status", m);
	if ((sep = strstr(m->out, "\r\n\r\n")) == NULL)
		fail("no end of headers", m);
	body = sep + 4;
	blen = m->outlen - (size_t)(body - m->out);
	if ((cl = strstr(m->out, "\r\nContent-Length: ")) == NULL ||
	    cl > sep || strtoull(cl + 18, NULL, 10) != blen)
		fail("Content-Length does not match the body", m);
	if (status == 202 && blen != 0)
		fail("202 with a body", m);
	if (blen == 0) {
		if (status != 202)
			fail("empty body without 202", m);
		return;
	}
	if (!wymcp__utf8_valid(body, blen))
		fail("body is not valid UTF-8", m);
	if (memchr(body, '\0', blen) != NULL)
		fail("NUL byte in the body", m);
	if (!json_strict(body, blen))
		fail("body is not RFC 8259 JSON", m);
	if ((tok = json_tokener_new()) == NULL)
		abort();
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, body, (int)blen);
	if (json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != blen)
		fail("body is not one JSON value", m);
	json_tokener_free(tok);
	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "jsonrpc", &v) ||
	    strcmp(json_object_get_string(v), "2.0") != 0)
		fail("body is not a JSON-RPC 2.0 object", m);
	if (json_object_object_get_ex(o, "result", &v)) {
		if (status != 200 ||
		    (modern && !json_object_object_get_ex(v, "resultType",
		    NULL)))
			fail("result without resultType or 200", m);
		if (!modern && json_object_object_get_ex(v, "resultType",
		    NULL))
			fail("resultType in a 2025-11-25 result", m);
	} else if (!json_object_object_get_ex(o, "error", &v) ||
	    !json_object_object_get_ex(v, "code", NULL) ||
	    !json_object_object_get_ex(v, "message", NULL))
		fail("neither result nor error", m);
	/* Compact on the wire. */
	if (strcmp(wymcp__json(o), body) != 0)
		fail("body is not in compact form", m);
	json_object_put(o);
}

static void
serve(const uint8_t *data, size_t size, char *const *env)
{
	struct fuzz_memio	 m;
	struct wymcp_io	 io;
	enum wymcp_err	 rc;

	fuzz_memio_io(&m, &io, env, data, size);
	if ((rc = wymcp_server_serve(server(), &io)) != WYMCP_OK)
		fail(wymcp_strerror(rc), &m);
	check(&m, modern_request(data, size));
	free(m.out);
}

/*
 * Serve `body' (NUL-terminated) with `env' as serve() does; the
 * requestState of its input_required result (malloc(3)ed), or NULL.
 */
static char *
serve_state(const char *body, char *const *env)
{
	struct fuzz_memio	 m;
	struct wymcp_io		 io;
	struct json_object	*o, *r, *st;
	const char		*b;
	char			*state = NULL;
	enum wymcp_err		 rc;

	fuzz_memio_io(&m, &io, env, body, strlen(body));
	if ((rc = wymcp_server_serve(server(), &io)) != WYMCP_OK)
		fail(wymcp_strerror(rc), &m);
	check(&m, modern_request((const uint8_t *)body, strlen(body)));
	if (m.out != NULL && (b = strstr(m.out, "\r\n\r\n")) != NULL &&
	    (o = json_tokener_parse(b + 4)) != NULL) {
		if (json_object_object_get_ex(o, "result", &r) &&
		    json_object_object_get_ex(r, "requestState", &st) &&
		    json_object_is_type(st, json_type_string) &&
		    (state = strdup(json_object_get_string(st))) == NULL)
			abort();
		json_object_put(o);
	}
	free(m.out);
	return state;
}

/*
 * A first round has no answers (methods/call.c): the answer checks are
 * reached only by the round after the one that asked.  A body that
 * carries inputResponses and no requestState is served again as that
 * round: first without its inputResponses (round 1 seals the questions
 * its arguments ask), then whole with that requestState, both with
 * `env'.
 */
static void
serve_answered(const uint8_t *data, size_t size, char *const *env)
{
	struct json_tokener	*tok;
	struct json_object	*o, *p, *v, *r = NULL;	/* r: ours */
	const char		*body;
	char			*state = NULL;

	if (size > INT32_MAX || (tok = json_tokener_new()) == NULL)
		return;
	o = json_tokener_parse_ex(tok, (const char *)data, (int)size);
	json_tokener_free(tok);
	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "params", &p) ||
	    !json_object_is_type(p, json_type_object) ||
	    !json_object_object_get_ex(p, "inputResponses", &v) ||
	    json_object_object_get_ex(p, "requestState", NULL))
		goto done;
	r = json_object_get(v);
	json_object_object_del(p, "inputResponses");
	body = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	if ((state = serve_state(body, env)) == NULL)
		goto done;
	json_object_object_add(p, "inputResponses", r);
	r = NULL;
	json_object_object_add(p, "requestState",
	    json_object_new_string(state));
	body = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	serve((const uint8_t *)body, strlen(body), env);
done:
	free(state);
	json_object_put(r);
	json_object_put(o);
}

/* "NAME=value", or "NAME==?base64?…?=" when value is not header-safe. */
static char *
header(const char *name, const char *v, size_t vlen)
{
	static const char	 b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789+/";
	char			*s, *p;
	size_t			 i, n, safe = 1;

	for (i = 0; i < vlen; i++)
		if (v[i] == '\0' || (unsigned char)v[i] >= 0x7f ||
		    ((unsigned char)v[i] < 0x20 && v[i] != '\t'))
			safe = 0;
	n = strlen(name) + 1 + 12 + (vlen + 2) / 3 * 4 + 1;
	if ((s = malloc(n)) == NULL)
		abort();
	if (safe) {
		snprintf(s, n, "%s=%.*s", name, (int)vlen, v);
		return s;
	}
	p = s + snprintf(s, n, "%s==?base64?", name);
	for (i = 0; i + 2 < vlen; i += 3) {
		*p++ = b64[(unsigned char)v[i] >> 2];
		*p++ = b64[((v[i] & 3) << 4) | ((unsigned char)v[i + 1] >> 4)];
		*p++ = b64[((v[i + 1] & 0xf) << 2) |
		    ((unsigned char)v[i + 2] >> 6)];
		*p++ = b64[v[i + 2] & 0x3f];
	}
	if (vlen - i == 1) {
		*p++ = b64[(unsigned char)v[i] >> 2];
		*p++ = b64[(v[i] & 3) << 4];
		*p++ = '=';
		*p++ = '=';
	} else if (vlen - i == 2) {
		*p++ = b64[(unsigned char)v[i] >> 2];
		*p++ = b64[((v[i] & 3) << 4) | ((unsigned char)v[i + 1] >> 4)];
		*p++ = b64[(v[i + 1] & 0xf) << 2];
		*p++ = '=';
	}
	*p++ = '?';
	*p++ = '=';
	*p = '\0';
	return s;
}

/* A string member of o, with its length; NULL when absent. */
static const char *
member(struct json_object *o, const char *k, size_t *len)
{
	struct json_object	*v;

	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, k, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	*len = (size_t)json_object_get_string_len(v);
	return json_object_get_string(v);
}

/* Serve with the headers a correct client would send for this body. */
static void
serve_mirrored(const uint8_t *data, size_t size)
{
	struct json_tokener	*tok;
	struct json_object	*o, *params = NULL, *meta = NULL;
	char			*env[16], *own[4];
	const char		*s;
	size_t			 n = 0, k = 0, len, i;

	if (size > INT32_MAX || (tok = json_tokener_new()) == NULL)
		return;
	o = json_tokener_parse_ex(tok, (const char *)data, (int)size);
	json_tokener_free(tok);
	env[n++] = "REQUEST_METHOD=POST";
	env[n++] = "HTTP_HOST=localhost";
	env[n++] = "CONTENT_TYPE=application/json";
	/* As a web server passes it; "0" on the empty input. */
	if ((own[k] = malloc(64)) == NULL)
		abort();
	snprintf(own[k], 64, "CONTENT_LENGTH=%zu", size);
	env[n++] = own[k++];
	if ((s = member(o, "method", &len)) != NULL)
		env[n++] = own[k++] = header("HTTP_MCP_METHOD", s, len);
	if (json_object_is_type(o, json_type_object))
		json_object_object_get_ex(o, "params", &params);
	if ((s = member(params, "name", &len)) != NULL)
		env[n++] = own[k++] = header("HTTP_MCP_NAME", s, len);
	if (json_object_is_type(params, json_type_object))
		json_object_object_get_ex(params, "_meta", &meta);
	if ((s = member(meta, "io.modelcontextprotocol/protocolVersion",
	    &len)) != NULL)
		env[n++] = own[k++] = header("HTTP_MCP_PROTOCOL_VERSION", s,
		    len);
	env[n] = NULL;
	json_object_put(o);
	serve(data, size, env);
	for (i = 0; i < k; i++)
		free(own[i]);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *const call_env[] = {
		"REQUEST_METHOD=POST",
		"HTTP_HOST=localhost",
		"CONTENT_TYPE=application/json",
		"HTTP_MCP_PROTOCOL_VERSION=2026-07-28",
		"HTTP_MCP_METHOD=tools/call",
		"HTTP_MCP_NAME=t",
		"REMOTE_USER=fuzz",
		"WYMCP_ASSIGN_ROLE=tester",
		NULL
	};
	static char *const list_env[] = {
		"REQUEST_METHOD=POST",
		"HTTP_HOST=localhost:8080",
		"HTTP_ORIGIN=http://localhost",
		"CONTENT_TYPE=application/json; charset=utf-8",
		"HTTP_MCP_PROTOCOL_VERSION=2026-07-28",
		"HTTP_MCP_METHOD=tools/list",
		"WYMCP_TOOLS=t s",
		NULL
	};

	/* First, so a fresh server meets CONTENT_LENGTH=0 too. */
	serve_mirrored(data, size);
	serve(data, size, call_env);
	serve(data, size, list_env);
	serve_answered(data, size, call_env);
	return 0;
}
