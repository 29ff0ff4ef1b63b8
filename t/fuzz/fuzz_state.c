/*
 * fuzz_state.c - libFuzzer target for the sealed requestState (seal.c)
 *
 * The input is the requestState of the third round of a tools/call of
 * tool "ask", which asks two questions: the call carries the answer to
 * the second (inputResponses "elicit-2") and relies on the state for
 * the first.  The server has a random key of its own, so no input can
 * be an authentic state: the call must fail with -32602 (or -32700 when
 * the input is not even a JSON string) and the tool must never run.
 *
 * An input starting with a NUL byte is different: the rest is the
 * plaintext of a state (seal.c: expiry, binding digest, tags, key,
 * answers),
 * which this target seals with the server's own key, so the fuzzer
 * reaches the checks behind the seal.  After the NUL, one byte of
 * choices: bit 0 takes this call's genuine binding and tags (learnt
 * from a genuine state), else the next 20 bytes are them; bit 1 takes
 * an expiry five minutes ahead, else the next 4 bytes are it
 * (big-endian); the next 16 bytes are the idempotency key (any key
 * opens); the rest are the answers (objects) and the questions asked
 * (null).  The tool may then get past its first question only if the
 * plaintext binds this call, is unexpired and carries an answer
 * "elicit-1" (an object); whenever the binding is wrong, or a member
 * is neither an answer nor a question, the call must fail with -32602
 * before the tool runs.
 *
 * Every response must be one well-formed JSON-RPC response; anything
 * else aborts.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>
#include <sodium.h>

#include "serve/serve.h"
#include "memio.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define META	"{\"io.modelcontextprotocol/protocolVersion\":"	\
	"\"2026-07-28\","						\
	"\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}"
#define ARGS	"{\"x\":1}"
#define SECOND	"{\"elicit-2\":{\"action\":\"accept\",\"content\":" \
	"{\"color\":\"blue\"}}}"
#define FIRST	"{\"elicit-1\":{\"action\":\"accept\",\"content\":" \
	"{\"name\":\"Alice\"}}}"
#define INPUT_MAX	(64 * 1024)
#define FIXED		40	/* expiry, binding, tags, key (seal.c) */

static int	 entered;	/* tool bodies entered */
static int	 past_first;	/* ... that got past the first question */

static enum wymcp_err
ask_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;
	enum wymcp_err		 rc;

	entered++;
	if ((rc = wymcp_elicit(ctx, "Name?", "{\"type\":\"object\","
	    "\"properties\":{\"name\":{\"type\":\"string\"}},"
	    "\"required\":[\"name\"]}", &a)) != WYMCP_OK)
		return rc;
	past_first++;
	if ((rc = wymcp_elicit(ctx, "Color?", "{\"type\":\"object\","
	    "\"properties\":{\"color\":{\"type\":\"string\"}},"
	    "\"required\":[\"color\"]}", &a)) != WYMCP_OK)
		return rc;
	return wymcp_result_add(res, wymcp_text(ctx, "done"));
}

static const struct wymcp_tool tools[] = {
	{
		.name = "ask",
		.description = "Asks two questions.",
		.input_schema = "{\"type\":\"object\",\"properties\":"
		    "{\"x\":{\"type\":\"integer\"}}}",
		.run = ask_run,
	},
	{ .name = NULL }
};

static const struct wymcp_module mod = {
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "fuzzstate", .tools = tools,
	.tool_size = sizeof(struct wymcp_tool)
};

/*
 * Serve tools/call ask with `responses` and requestState `state` (NULL:
 * none; statelen bytes).  Returns the parsed JSON-RPC response (caller
 * puts it), after checking it is one.
 */
static struct json_object *
serve(struct wymcp_server *srv, const char *responses, const char *state,
    size_t statelen)
{
	struct json_object	*req, *p, *resp, *v, *e, *id;
	struct json_tokener	*tok;
	struct fuzz_memio	 m;
	struct wymcp_io		 io;
	const char		*body, *sep;
	char			 cl[64];
	const char		*env[] = {
		"REQUEST_METHOD=POST", "CONTENT_TYPE=application/json", cl,
		"HTTP_HOST=localhost", "HTTP_MCP_PROTOCOL_VERSION=2026-07-28",
		"HTTP_MCP_METHOD=tools/call", "HTTP_MCP_NAME=ask", NULL
	};
	int			 status, nres;

	req = json_object_new_object();
	json_object_object_add(req, "jsonrpc", json_object_new_string("2.0"));
	json_object_object_add(req, "id", json_object_new_int(1));
	json_object_object_add(req, "method",
	    json_object_new_string("tools/call"));
	p = json_object_new_object();
	json_object_object_add(p, "_meta", json_tokener_parse(META));
	json_object_object_add(p, "name", json_object_new_string("ask"));
	json_object_object_add(p, "arguments", json_tokener_parse(ARGS));
	if (responses != NULL)
		json_object_object_add(p, "inputResponses",
		    json_tokener_parse(responses));
	if (state != NULL)
		json_object_object_add(p, "requestState",
		    json_object_new_string_len(state, (int)statelen));
	json_object_object_add(req, "params", p);
	body = json_object_to_json_string_ext(req, JSON_C_TO_STRING_PLAIN);

	fuzz_memio_io(&m, &io, (char *const *)env, body, strlen(body));
	snprintf(cl, sizeof(cl), "CONTENT_LENGTH=%zu", m.inlen);
	if (wymcp_server_serve(srv, &io) != WYMCP_OK || m.out == NULL)
		abort();
	json_object_put(req);

	/* A CGI response: Status, headers, a blank line, one JSON body. */
	if (strncmp(m.out, "Status: ", 8) != 0 ||
	    (sep = strstr(m.out, "\r\n\r\n")) == NULL)
		abort();
	status = atoi(m.out + 8);
	if (status != 200 && status != 400)
		abort();
	if ((tok = json_tokener_new()) == NULL)
		abort();
	resp = json_tokener_parse_ex(tok, sep + 4, (int)strlen(sep + 4));
	if (json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != strlen(sep + 4) ||
	    !json_object_is_type(resp, json_type_object))
		abort();
	json_tokener_free(tok);

	/*
	 * JSON-RPC 2.0: version, a result or an error, and our id; only
	 * an error about a body whose id could not be read may lack it.
	 */
	if (!json_object_object_get_ex(resp, "jsonrpc", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    strcmp(json_object_get_string(v), "2.0") != 0)
		abort();
	nres = json_object_object_get_ex(resp, "result", &v) +
	    json_object_object_get_ex(resp, "error", &e);
	if (nres != 1)
		abort();
	if (json_object_object_get_ex(resp, "id", &id) && id != NULL) {
		if (!json_object_is_type(id, json_type_int) ||
		    json_object_get_int(id) != 1)
			abort();
	} else if (!json_object_object_get_ex(resp, "error", NULL) ||
	    status != 400)
		abort();
	if (json_object_object_get_ex(resp, "error", &e)) {
		if (!json_object_object_get_ex(e, "code", &v) ||
		    !json_object_is_type(v, json_type_int) ||
		    !json_object_object_get_ex(e, "message", &v) ||
		    !json_object_is_type(v, json_type_string))
			abort();
	} else if (status != 200 || !json_object_is_type(v, json_type_object) ||
	    !json_object_object_get_ex(v, "resultType", &e) ||
	    !json_object_is_type(e, json_type_string))
		abort();
	free(m.out);
	return resp;
}

/* The error code of a response, or 0 for a result. */
static int
code(struct json_object *resp)
{
	struct json_object	*e, *c;

	if (!json_object_object_get_ex(resp, "error", &e) ||
	    !json_object_object_get_ex(e, "code", &c))
		return 0;
	return json_object_get_int(c);
}

/* The string member k of o, or NULL. */
static const char *
str(struct json_object *o, const char *k)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(o, k, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* What a genuine state of this call binds: its binding and tags. */
static unsigned char	 want_bind[20];

/*
 * Open a token with the server's first key: the plaintext's length, or
 * -1.
 */
static long
open_token(struct wymcp_server *srv, const char *tok, unsigned char *pt,
    size_t ptsz)
{
	unsigned char		 bin[4096];
	unsigned long long	 ptlen;
	size_t			 binlen;

	if (sodium_base642bin(bin, sizeof(bin), tok, strlen(tok), NULL,
	    &binlen, NULL, sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
	    binlen < 5 + 24 + 16 || binlen - 29 - 16 > ptsz ||
	    crypto_aead_xchacha20poly1305_ietf_decrypt(pt, &ptlen, NULL,
	    bin + 29, binlen - 29, bin, 5, bin + 5, srv->keys[0].key) != 0)
		return -1;
	return (long)ptlen;
}

static struct wymcp_server *
server(void)
{
	static struct wymcp_server	*srv;
	struct json_object		*r, *r2;
	unsigned char			 pt[4096];
	const char			*st;

	if (srv != NULL)
		return srv;
	if ((srv = wymcp_server_new()) == NULL ||
	    wymcp_server_add_module(srv, &mod) != WYMCP_OK) {
		fprintf(stderr, "fuzz_state: %s\n", wymcp_server_errmsg(srv));
		abort();
	}
	wymcp_server_set_log(srv, fuzz_drop, NULL, WYMCP_LOG_DEBUG);
	/*
	 * Learn the bindings from a genuine state, and check it opens: the
	 * second round's (a first round has no answers).
	 */
	r = serve(srv, NULL, NULL, 0);
	if ((st = str(json_object_object_get(r, "result"), "requestState")) ==
	    NULL)
		abort();
	r2 = serve(srv, FIRST, st, strlen(st));
	json_object_put(r);
	r = r2;
	if ((st = str(json_object_object_get(r, "result"), "requestState")) ==
	    NULL || open_token(srv, st, pt, sizeof(pt)) < FIXED)
		abort();
	memcpy(want_bind, pt + 4, sizeof(want_bind));
	r2 = serve(srv, SECOND, st, strlen(st));
	if (code(r2) != 0 || strcmp(str(json_object_object_get(r2, "result"),
	    "resultType"), "complete") != 0)
		abort();
	json_object_put(r2);
	json_object_put(r);
	entered = past_first = 0;
	return srv;
}

/* Seal `pt` with the server's first key; a token to free, or NULL. */
static char *
seal(struct wymcp_server *srv, const uint8_t *pt, size_t ptlen)
{
	unsigned char		*bin;
	unsigned long long	 clen;
	size_t			 binlen = 5 + 24 + ptlen + 16, toklen;
	char			*tok;

	if ((bin = malloc(binlen)) == NULL)
		return NULL;
	bin[0] = 7;	/* seal.c's SEAL_VERSION */
	memcpy(bin + 1, srv->keys[0].id, 4);
	memset(bin + 5, 0x5a, 24);
	crypto_aead_xchacha20poly1305_ietf_encrypt(bin + 29, &clen, pt, ptlen,
	    bin, 5, NULL, bin + 5, srv->keys[0].key);
	toklen = sodium_base64_encoded_len(binlen,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	if ((tok = malloc(toklen)) != NULL)
		sodium_bin2base64(tok, toklen, bin, binlen,
		    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	free(bin);
	return tok;
}

/*
 * The plaintext an input asks for (see the top of the file), into pt:
 * its length.
 */
static size_t
plaintext(const uint8_t *in, size_t len, time_t now, uint8_t *pt)
{
	uint8_t		 op = len > 0 ? in[0] : 0;
	size_t		 n = 0, i = 1;
	uint32_t	 e = (uint32_t)(now + 300);

	if (op & 2) {
		pt[n++] = (uint8_t)(e >> 24);
		pt[n++] = (uint8_t)(e >> 16);
		pt[n++] = (uint8_t)(e >> 8);
		pt[n++] = (uint8_t)e;
	} else
		for (; i < len && n < 4; i++)
			pt[n++] = in[i];
	if (op & 1) {
		memcpy(pt + n, want_bind, sizeof(want_bind));
		n += sizeof(want_bind);
	} else
		for (; i < len && n < 4 + sizeof(want_bind); i++)
			pt[n++] = in[i];
	/* The key, then the answers: the rest as it comes. */
	for (; i < len; i++)
		pt[n++] = in[i];
	return n;
}

/*
 * Does the plaintext bind this very call, unexpired at `now`?  As
 * seal.c's checks, written out independently.  *expiry is its expiry,
 * *first whether it carries an answer "elicit-1".
 */
static int
binds(const uint8_t *pt, size_t len, time_t now, int64_t *expiry,
    int *first)
{
	struct json_object	*r = NULL, *r2;
	int			 ok;

	*first = 0;
	*expiry = 0;
	if (len < FIXED)
		return 0;
	*expiry = (int64_t)((uint32_t)pt[0] << 24 | (uint32_t)pt[1] << 16 |
	    (uint32_t)pt[2] << 8 | pt[3]);
	if (*expiry < (int64_t)now || memcmp(pt + 4, want_bind, 16) != 0)
		return 0;
	if (len == FIXED)
		return 1;
	if ((r = wymcp__parse((const char *)pt + FIXED, len - FIXED)) == NULL)
		return 0;
	ok = json_object_is_type(r, json_type_object);
	if (ok) {
		json_object_object_foreach(r, k, v) {
			(void)k;
			if (v != NULL && !json_object_is_type(v,
			    json_type_object))
				ok = 0;
		}
	}
	if (ok)
		*first = json_object_object_get_ex(r, "elicit-1", &r2) &&
		    r2 != NULL;
	json_object_put(r);
	return ok;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wymcp_server	*srv = server();
	struct json_object	*resp;
	uint8_t			*pt;
	size_t			 ptlen;
	char			*tok;
	time_t			 now;
	int64_t			 expiry;
	int			 c, ok, first;

	if (size > INPUT_MAX)
		return 0;
	entered = past_first = 0;
	if (size == 0 || data[0] != '\0') {
		/* Forged: it can never open, and the tool never runs. */
		resp = serve(srv, SECOND, (const char *)data, size);
		c = code(resp);
		if ((c != -32602 && c != -32700) || entered != 0 ||
		    past_first != 0)
			abort();
		json_object_put(resp);
		return 0;
	}

	/* Authentic: sealed here, from the plaintext the fuzzer wrote. */
	now = time(NULL);
	if ((pt = malloc(size + 32)) == NULL)
		return 0;
	ptlen = plaintext(data + 1, size - 1, now, pt);
	tok = seal(srv, pt, ptlen);
	ok = binds(pt, ptlen, now, &expiry, &first);
	free(pt);
	if (tok == NULL)
		return 0;
	resp = serve(srv, SECOND, tok, strlen(tok));
	c = code(resp);
	/* Any wrong binding: one -32602, and the tool never ran. */
	if (!ok && (c != -32602 || entered != 0))
		abort();
	/* Past the first question only with every binding and the answer. */
	if (past_first != 0 && (!ok || !first))
		abort();
	/* A state binding this call, well within its time, opens. */
	if (ok && expiry > (int64_t)now + 1 && entered == 0)
		abort();
	json_object_put(resp);
	free(tok);
	return 0;
}
