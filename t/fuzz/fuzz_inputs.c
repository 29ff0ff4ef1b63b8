/*
 * fuzz_inputs.c - libFuzzer target for inputResponses and requestState
 * through the whole pipeline (serve.c, methods/call.c, core/ask.c,
 * core/seal.c, core/shapes.c)
 *
 * Two tools ask the client.  "two" elicits a form ("elicit-1": name,
 * age), then samples ("sample-2"), then asks for roots ("roots-3"), one
 * question a round; "batch" asks all three in one round.  The first
 * input byte picks the tool, the client capabilities and what the
 * rest of the input is:
 *
 *   mode & 3 == 0: the inputResponses value, as JSON text, with the
 *		    genuine requestState of the tool's first round (a
 *		    first round has no answers: the round after it is
 *		    the one that reads them);
 *   mode & 3 == 1: the same with a genuine requestState that sealed a
 *		    valid answer to elicit-1 (third round of "two");
 *   mode & 3 == 2: the requestState string (any bytes), with a valid
 *		    answer to elicit-1;
 *   mode & 3 == 3: that genuine requestState with one byte changed (the
 *		    next two input bytes: where, and the xor), then the
 *		    inputResponses text.
 *   mode & 4: tool "batch" instead of "two";
 *   mode & 8: only the elicitation capability (sampling and roots are
 *	       then not asked).
 *
 * Every response must be one well-formed JSON-RPC response with a
 * status the pipeline documents, and a tool must never see an answer
 * that is not the shape the specification gives it (an ElicitResult
 * holding only the form's properties, valid against them; a
 * CreateMessageResult; a ListRootsResult of file:// roots): wymcp
 * refuses those with -32602 before the tool runs on.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "serve/serve.h"
#include "memio.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define META_ALL	"{\"io.modelcontextprotocol/protocolVersion\":"	\
	"\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":" \
	"{\"elicitation\":{},\"sampling\":{},\"roots\":{}}}"
#define META_ELICIT	"{\"io.modelcontextprotocol/protocolVersion\":" \
	"\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":" \
	"{\"elicitation\":{}}}"
#define FORM	"{\"type\":\"object\",\"properties\":{\"name\":{\"type\":" \
	"\"string\",\"maxLength\":20},\"age\":{\"type\":\"integer\"," \
	"\"minimum\":0}},\"required\":[\"name\"]}"
#define ALICE	"{\"elicit-1\":{\"action\":\"accept\",\"content\":" \
	"{\"name\":\"Alice\",\"age\":30}}}"
#define INPUT_MAX	(64 * 1024)

/* Whether `d' is a finite integral number, 0 or more. */
static int
double_natural(double d)
{
	if (!(d >= 0) || d > DBL_MAX)
		return 0;
	return d >= 9007199254740992.0 || d == (double)(int64_t)d;
}

static void
bad(const char *why, const char *what)
{
	fprintf(stderr, "fuzz_inputs: %s: %s\n", why, what);
	abort();
}

/* What a tool may see of an elicitation answer. */
static void
seen_elicit(struct json_object *a)
{
	struct json_object	*c, *v;
	const char		*act = wymcp_answer_action(a);

	if (act == NULL || (strcmp(act, "accept") != 0 &&
	    strcmp(act, "decline") != 0 && strcmp(act, "cancel") != 0))
		bad("an elicitation answer without a valid action",
		    json_object_to_json_string(a));
	if (strcmp(act, "accept") != 0)
		return;
	if ((c = wymcp_answer_content(a)) == NULL ||
	    !json_object_object_get_ex(c, "name", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    json_object_get_string_len(v) > 20 * 4)
		bad("accepted content without a valid name",
		    json_object_to_json_string(a));
	json_object_object_foreach(c, k, val) {
		if (strcmp(k, "name") == 0)
			continue;
		/*
		 * JSON Schema: 308e7 and 1e19 are integers too (json-c:
		 * doubles); every double from 2^53 up is integral.
		 */
		if (strcmp(k, "age") != 0 ||
		    !(json_object_is_type(val, json_type_int) ?
		    json_object_get_int64(val) >= 0 :
		    json_object_is_type(val, json_type_double) &&
		    double_natural(json_object_get_double(val))))
			bad("accepted content with another property",
			    json_object_to_json_string(a));
	}
}

/* What a tool may see of a sampling answer. */
static void
seen_sample(struct json_object *a)
{
	struct json_object	*v;
	const char		*s;

	if (!json_object_object_get_ex(a, "role", &v) ||
	    (s = json_object_get_string(v)) == NULL ||
	    !json_object_is_type(v, json_type_string) ||
	    (strcmp(s, "user") != 0 && strcmp(s, "assistant") != 0))
		bad("a sampling answer without a role",
		    json_object_to_json_string(a));
	if (!json_object_object_get_ex(a, "model", &v) ||
	    !json_object_is_type(v, json_type_string))
		bad("a sampling answer without a model",
		    json_object_to_json_string(a));
	if (!json_object_object_get_ex(a, "content", &v) ||
	    (!json_object_is_type(v, json_type_object) &&
	    !json_object_is_type(v, json_type_array)))
		bad("a sampling answer without content",
		    json_object_to_json_string(a));
}

/* What a tool may see of a roots answer. */
static void
seen_roots(struct json_object *a)
{
	struct json_object	*r, *e, *u;
	size_t			 i, n;

	if (!json_object_object_get_ex(a, "roots", &r) ||
	    !json_object_is_type(r, json_type_array))
		bad("a roots answer without roots",
		    json_object_to_json_string(a));
	n = json_object_array_length(r);
	for (i = 0; i < n; i++) {
		e = json_object_array_get_idx(r, i);
		if (!json_object_is_type(e, json_type_object) ||
		    !json_object_object_get_ex(e, "uri", &u) ||
		    !json_object_is_type(u, json_type_string) ||
		    strncmp(json_object_get_string(u), "file://", 7) != 0)
			bad("a root without a file:// uri",
			    json_object_to_json_string(a));
	}
}

static struct json_object *
sample_params(struct wymcp_ctx *ctx)
{
	return wymcp_own(ctx, json_tokener_parse("{\"messages\":[{\"role\":"
	    "\"user\",\"content\":{\"type\":\"text\",\"text\":\"Hi\"}}],"
	    "\"maxTokens\":10}"));
}

/* One question a round: a form, a sample, roots. */
static enum wymcp_err
two_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;
	enum wymcp_err		 rc;

	(void)args;
	if ((rc = wymcp_elicit(ctx, "Who?", FORM, &a)) != WYMCP_OK)
		return rc;
	seen_elicit(a);
	if ((rc = wymcp_sample(ctx, NULL, sample_params(ctx), &a)) ==
	    WYMCP_OK)
		seen_sample(a);
	else if (rc != WYMCP_ERR_NOTSUP)
		return rc;
	if ((rc = wymcp_roots(ctx, NULL, &a)) == WYMCP_OK)
		seen_roots(a);
	else if (rc != WYMCP_ERR_NOTSUP)
		return rc;
	return wymcp_result_add(res, wymcp_text(ctx, "done"));
}

/* All three in one round. */
static enum wymcp_err
batch_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*e = NULL, *s = NULL, *r = NULL;
	enum wymcp_err		 rc, re, rs, rr;

	(void)args;
	if ((rc = wymcp_input_batch(ctx)) != WYMCP_OK)
		return rc;
	re = wymcp_elicit(ctx, "Who?", FORM, &e);
	rs = wymcp_sample(ctx, NULL, sample_params(ctx), &s);
	rr = wymcp_roots(ctx, NULL, &r);
	if ((rc = wymcp_input_flush(ctx)) != WYMCP_OK)
		return rc;
	if (re == WYMCP_OK)
		seen_elicit(e);
	if (rs == WYMCP_OK)
		seen_sample(s);
	if (rr == WYMCP_OK)
		seen_roots(r);
	return wymcp_result_add(res, wymcp_text(ctx, "done"));
}

static const struct wymcp_tool tools[] = {
	{ .name = "two", .description = "Asks three times.",
	    .input_schema = "{\"type\":\"object\"}", .run = two_run },
	{ .name = "batch", .description = "Asks three things at once.",
	    .input_schema = "{\"type\":\"object\"}", .run = batch_run },
	{ .name = NULL }
};

static const struct wymcp_module mod = {
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "fuzzinputs", .tools = tools,
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
		fprintf(stderr, "fuzz_inputs: %s\n", wymcp_server_errmsg(srv));
		abort();
	}
	wymcp_server_set_log(srv, fuzz_drop, NULL, WYMCP_LOG_DEBUG);
	wymcp_server_set_max_body(srv, 256 * 1024);
	return srv;
}

/*
 * Serve tools/call `tool`: `responses` is the inputResponses JSON text
 * (NULL: none), `state` the requestState (NULL: none).  Returns the
 * parsed response (caller puts it) after checking it is one.
 */
static struct json_object *
serve(const char *tool, const char *meta, const char *responses,
    size_t rlen, const char *state, size_t slen)
{
	static const int	 statuses[] = { 200, 400, 500, 0 };
	struct json_object	*st;
	struct fuzz_memio	 m;
	struct wymcp_io		 io;
	const char		*sj = NULL;
	char			*body, cl[64], nh[64];
	const char		*env[] = {
		"REQUEST_METHOD=POST", "CONTENT_TYPE=application/json", cl,
		"HTTP_HOST=localhost", "HTTP_MCP_PROTOCOL_VERSION=2026-07-28",
		"HTTP_MCP_METHOD=tools/call", nh, NULL
	};
	size_t			 cap, n;

	st = state != NULL ? json_object_new_string_len(state, (int)slen) :
	    NULL;
	if (st != NULL)
		sj = json_object_to_json_string_ext(st, JSON_C_TO_STRING_PLAIN);
	cap = 256 + strlen(meta) + rlen + (sj != NULL ? strlen(sj) : 0);
	if ((body = malloc(cap)) == NULL)
		abort();
	n = (size_t)snprintf(body, cap, "{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"method\":\"tools/call\",\"params\":{\"_meta\":%s,"
	    "\"name\":\"%s\",\"arguments\":{}", meta, tool);
	if (responses != NULL) {
		n += (size_t)snprintf(body + n, cap - n,
		    ",\"inputResponses\":");
		memcpy(body + n, responses, rlen);
		n += rlen;
	}
	if (sj != NULL)
		n += (size_t)snprintf(body + n, cap - n, ",\"requestState\":%s",
		    sj);
	n += (size_t)snprintf(body + n, cap - n, "}}");
	json_object_put(st);

	fuzz_memio_io(&m, &io, (char *const *)env, body, n);
	snprintf(cl, sizeof(cl), "CONTENT_LENGTH=%zu", n);
	snprintf(nh, sizeof(nh), "HTTP_MCP_NAME=%s", tool);
	if (wymcp_server_serve(server(), &io) != WYMCP_OK || m.out == NULL)
		abort();
	free(body);

	return fuzz_response(&m, statuses);
}

/* The requestState of a response (malloc'ed), or NULL. */
static char *
state_of(struct json_object *resp, size_t *len)
{
	struct json_object	*v;
	char			*s;

	if (!json_object_object_get_ex(resp, "result", &v) ||
	    !json_object_object_get_ex(v, "requestState", &v))
		return NULL;
	*len = (size_t)json_object_get_string_len(v);
	if ((s = malloc(*len + 1)) == NULL)
		abort();
	memcpy(s, json_object_get_string(v), *len + 1);
	return s;
}

/*
 * A genuine requestState of "two" sealing a valid answer to elicit-1
 * (round 2 asked sample-2), made once per process: the server's key is
 * its own.
 */
static const char *
genuine(size_t *len)
{
	static char		*s2;
	static size_t		 s2len;
	struct json_object	*r;
	char			*s1;
	size_t			 s1len;

	if (s2 != NULL) {
		*len = s2len;
		return s2;
	}
	r = serve("two", META_ALL, NULL, 0, NULL, 0);
	if ((s1 = state_of(r, &s1len)) == NULL)
		bad("round 1 gave no requestState", json_object_get_string(r));
	json_object_put(r);
	r = serve("two", META_ALL, ALICE, strlen(ALICE), s1, s1len);
	if ((s2 = state_of(r, &s2len)) == NULL)
		bad("round 2 gave no requestState", json_object_get_string(r));
	json_object_put(r);
	free(s1);
	*len = s2len;
	return s2;
}

/*
 * The genuine requestState of `tool''s first round under `meta' (the
 * questions it asks first), made once per `slot'.
 */
static const char *
first_round(int slot, const char *tool, const char *meta, size_t *len)
{
	static char		*st[4];
	static size_t		 stlen[4];
	struct json_object	*r;

	if (st[slot] == NULL) {
		r = serve(tool, meta, NULL, 0, NULL, 0);
		if ((st[slot] = state_of(r, &stlen[slot])) == NULL)
			bad("round 1 gave no requestState",
			    json_object_get_string(r));
		json_object_put(r);
	}
	*len = stlen[slot];
	return st[slot];
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*tool, *meta, *st, *rest;
	char		*mut;
	size_t		 slen, rlen;
	unsigned	 mode;

	if (size < 1 || size > INPUT_MAX)
		return 0;
	mode = data[0];
	tool = mode & 4 ? "batch" : "two";
	meta = mode & 8 ? META_ELICIT : META_ALL;
	rest = (const char *)data + 1;
	rlen = size - 1;
	switch (mode & 3) {
	case 0:
		st = first_round((int)(mode >> 2 & 3), tool, meta, &slen);
		json_object_put(serve(tool, meta, rest, rlen, st, slen));
		break;
	case 1:
		st = genuine(&slen);
		json_object_put(serve(tool, meta, rest, rlen, st, slen));
		break;
	case 2:
		json_object_put(serve(tool, meta, ALICE, strlen(ALICE), rest,
		    rlen));
		break;
	default:
		st = genuine(&slen);
		if (rlen < 2)
			return 0;
		if ((mut = malloc(slen + 1)) == NULL)
			abort();
		memcpy(mut, st, slen + 1);
		mut[(unsigned char)rest[0] % slen] ^= rest[1] != 0 ? rest[1] :
		    1;
		json_object_put(serve(tool, meta, rest + 2, rlen - 2, mut,
		    slen));
		free(mut);
		break;
	}
	return 0;
}
