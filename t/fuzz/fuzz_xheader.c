/*
 * fuzz_xheader.c - libFuzzer target for x-mcp-header and Mcp-Param-*
 *
 * The first byte picks the half under test.
 *
 * Even: the rest is a tool's inputSchema.  It is registered on a fresh
 * server; when it loads, every recorded argument must be a non-empty
 * token whose CGI param is HTTP_MCP_PARAM_ + its upper-cased form,
 * unique, of a primitive type, and reachable from the root through
 * "properties" alone, and no annotation on that chain may be missed.
 * Calls with no arguments and no headers must pass; a header for a
 * recorded argument that is absent must not.  When the schema is
 * refused, the message must name the tool.
 *
 * Odd: the rest is "arguments JSON\nK:value\nK:value..." for tool
 * "custom" (region string, count integer, flag boolean, nested.zone
 * string; K is R, C, F or Z, each line one Mcp-Param header).  The
 * verdict of wymcp__xparams_check() is held against an independent
 * reference, and a message must be short, UTF-8 and free of control
 * characters.  A disagreement aborts.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "serve/serve.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define SAFE_MAX	9007199254740991LL

static enum wymcp_err
nop(struct wymcp_ctx *ctx, struct json_object *args, struct wymcp_result *r)
{
	return WYMCP_OK;
}

static const struct wymcp_tool custom_tools[] = {
	{
		.name = "custom",
		.description = "Mirrors four arguments.",
		.input_schema = "{\"type\":\"object\",\"properties\":{"
		    "\"region\":{\"type\":\"string\",\"x-mcp-header\":"
		    "\"Region\"},"
		    "\"count\":{\"type\":\"integer\",\"x-mcp-header\":"
		    "\"Count\"},"
		    "\"flag\":{\"type\":\"boolean\",\"x-mcp-header\":\"Flag\"},"
		    "\"nested\":{\"type\":\"object\",\"properties\":{"
		    "\"zone\":{\"type\":\"string\",\"x-mcp-header\":"
		    "\"Zone\"}}}}}",
		.run = nop,
	},
	{ .name = NULL }
};

static const struct wymcp_module custom_mod = {
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "fuzz", .tools = custom_tools,
	.tool_size = sizeof(struct wymcp_tool)
};

static void
fail(const char *why, const char *detail)
{
	fprintf(stderr, "fuzz_xheader: %s: %s\n", why,
	    detail != NULL ? detail : "");
	abort();
}

/* RFC 9110 tchar, spelled out differently from xheader.c. */
static int
ref_tchar(int ch)
{
	static const char	 ok[] = "!#$%&'*+-.^_`|~0123456789"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

	return ch != 0 && memchr(ok, ch, sizeof(ok) - 1) != NULL;
}

/* The CGI param name of an x-mcp-header value, as nginx builds it. */
static void
ref_param(const char *h, char *out, size_t sz)
{
	size_t	 i, n;

	n = (size_t)snprintf(out, sz, "HTTP_MCP_PARAM_");
	for (i = 0; h[i] != '\0' && n + 1 < sz; i++)
		out[n++] = h[i] == '-' ? '_' :
		    (char)(h[i] >= 'a' && h[i] <= 'z' ? h[i] - 32 : h[i]);
	out[n] = '\0';
}

/* Annotations on the properties chain under s; -1 past 64 levels. */
static int
ref_count(struct json_object *s, int depth)
{
	struct json_object	*p;
	int			 n = 0, k;

	if (depth > 64 || !json_object_is_type(s, json_type_object))
		return 0;
	if (depth > 0 && json_object_object_get_ex(s, "x-mcp-header", NULL))
		n++;
	if (!json_object_object_get_ex(s, "properties", &p) ||
	    !json_object_is_type(p, json_type_object))
		return n;
	json_object_object_foreach(p, k1, sub) {
		(void)k1;
		if ((k = ref_count(sub, depth + 1)) < 0)
			return -1;
		n += k;
	}
	return n;
}

/* Check a loaded tool's records against its schema. */
static void
check_records(const struct wymcp__tool *t, struct json_object *in)
{
	const struct wymcp__xparam *x;
	struct json_object	*s, *p, *v;
	char			*param;
	size_t			 i, k, sz;
	const char		*ty;

	if (t->nxparams == 0 && t->xparams != NULL)
		fail("no records but an allocation", NULL);
	if (ref_count(in, 0) != (int)t->nxparams)
		fail("recorded count differs from the properties chain",
		    wymcp__json(in));
	for (i = 0; i < t->nxparams; i++) {
		x = &t->xparams[i];
		if (x->npath == 0 || x->header == NULL || x->param == NULL ||
		    *x->header == '\0')
			fail("empty record", NULL);
		for (k = 0; x->header[k] != '\0'; k++)
			if (!ref_tchar((unsigned char)x->header[k]))
				fail("non-token header recorded", x->header);
		/* As long as the header: the spec sets no limit. */
		sz = sizeof("HTTP_MCP_PARAM_") + strlen(x->header);
		if ((param = malloc(sz)) == NULL)
			fail("malloc", NULL);
		ref_param(x->header, param, sz);
		if (strcmp(param, x->param) != 0)
			fail("param name", x->param);
		free(param);
		for (k = 0; k < i; k++)
			if (strcasecmp(t->xparams[k].header, x->header) == 0 ||
			    strcmp(t->xparams[k].param, x->param) == 0)
				fail("duplicate recorded", x->header);
		s = in;
		for (k = 0; k < x->npath; k++)
			if (!json_object_object_get_ex(s, "properties", &p) ||
			    !json_object_object_get_ex(p, x->path[k], &s))
				fail("path not on the properties chain",
				    x->path[k]);
		if (!json_object_object_get_ex(s, "x-mcp-header", &v) ||
		    strcmp(json_object_get_string(v), x->header) != 0)
			fail("path does not lead to the annotation", x->header);
		if (!json_object_object_get_ex(s, "type", &v) ||
		    !json_object_is_type(v, json_type_string))
			fail("recorded without a type", x->header);
		ty = json_object_get_string(v);
		if (!((x->type == json_type_string &&
		    strcmp(ty, "string") == 0) ||
		    (x->type == json_type_int && strcmp(ty, "integer") == 0) ||
		    (x->type == json_type_boolean &&
		    strcmp(ty, "boolean") == 0)))
			fail("recorded type", ty);
	}
}

/* "NAME=value", malloc'd. */
static char *
param_env(const char *name, const char *value)
{
	size_t	 n = strlen(name) + strlen(value) + 2;
	char	*s;

	if ((s = malloc(n)) == NULL)
		abort();
	snprintf(s, n, "%s=%s", name, value);
	return s;
}

/* A message must be short, UTF-8, printable. */
static void
check_message(const char *m)
{
	size_t	 i, len = strlen(m);

	if (len > 600 || strncmp(m, "Header mismatch", 15) != 0)
		fail("message", m);
	if (!wymcp__utf8_valid(m, len))
		fail("message is not UTF-8", m);
	for (i = 0; i < len; i++)
		if ((unsigned char)m[i] < 0x20 || m[i] == 0x7f)
			fail("control byte in message", m);
}

/* Even: a schema. */
static void
fuzz_schema(const uint8_t *data, size_t size)
{
	struct wymcp_tool	 tools[2];
	struct wymcp_module	 mod;
	struct wymcp_server	*srv;
	struct wymcp_ctx	 ctx;
	const struct wymcp__tool *t;
	char			*schema, *env[2], *e = NULL;
	const char		*why;
	enum wymcp_err		 rc;

	if ((schema = malloc(size + 1)) == NULL)
		return;
	memcpy(schema, data, size);
	schema[size] = '\0';
	memset(tools, 0, sizeof(tools));
	tools[0].name = "f";
	tools[0].description = "fuzzed";
	tools[0].input_schema = schema;
	tools[0].run = nop;
	memset(&mod, 0, sizeof(mod));
	mod.abi = WYMCP_ABI_VERSION;
	mod.size = sizeof(mod);
	mod.name = "fuzz";
	mod.tools = tools;
	if ((srv = wymcp_server_new()) == NULL)
		abort();
	rc = wymcp_server_add_module(srv, &mod);
	if (rc != WYMCP_OK) {
		if (srv->ntools != 0)
			fail("refused but registered", schema);
		if (strncmp(wymcp_server_errmsg(srv), "tool f: ", 8) != 0 &&
		    rc != WYMCP_ERR_NOMEM)
			fail("refusal does not name the tool",
			    wymcp_server_errmsg(srv));
		goto out;
	}
	t = &srv->tools[0];
	check_records(t, t->input);

	/* Nothing in the body, nothing in the headers: fine. */
	env[0] = NULL;
	wymcp__ctx_init(&ctx, srv, env);
	if ((why = wymcp__xparams_check(&ctx, t, NULL, 0)) != NULL)
		fail("no arguments, no headers refused", why);
	wymcp__ctx_free(&ctx);
	/* A header for an argument the body lacks: refused. */
	if (t->nxparams > 0) {
		e = param_env(t->xparams[t->nxparams - 1].param, "v");
		env[0] = e;
		env[1] = NULL;
		wymcp__ctx_init(&ctx, srv, env);
		if ((why = wymcp__xparams_check(&ctx, t, NULL, 0)) == NULL)
			fail("header without argument accepted", e);
		check_message(why);
		wymcp__ctx_free(&ctx);
		free(e);
	}
out:
	wymcp_server_free(srv);
	free(schema);
}

/* Reference sentinel decoding, differently built: 0 or -1. */
static int
ref_b64val(int c)
{
	static const char	 a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789+/";
	const char		*p;

	if (c == 0 || (p = strchr(a, c)) == NULL)
		return -1;
	return (int)(p - a);
}

static int
ref_decode(const char *v, char *out, size_t *outlen)
{
	size_t		 len = strlen(v), i, n = 0, pad = 0, m;
	unsigned long	 acc;
	int		 k, d;

	if (len < 11 || strncmp(v, "=?base64?", 9) != 0 ||
	    strcmp(v + len - 2, "?=") != 0) {
		memcpy(out, v, len);
		*outlen = len;
		return 0;
	}
	v += 9;
	m = len - 11;
	if (m % 4 != 0)
		return -1;
	while (pad < 2 && pad < m && v[m - 1 - pad] == '=')
		pad++;
	for (i = 0; i < m; i += 4) {
		acc = 0;
		for (k = 0; k < 4; k++) {
			if (i + (size_t)k >= m - pad)
				d = 0;
			else if ((d = ref_b64val((unsigned char)v[i + k])) < 0)
				return -1;
			acc = acc << 6 | (unsigned long)d;
		}
		out[n++] = (char)(acc >> 16);
		if (i + 4 < m || pad < 2)
			out[n++] = (char)(acc >> 8 & 0xff);
		if (i + 4 < m || pad < 1)
			out[n++] = (char)(acc & 0xff);
		/* Canonical: the bits padding drops must be zero. */
		if (i + 4 == m && ((pad == 1 && (acc & 0xff) != 0) ||
		    (pad == 2 && (acc & 0xffff) != 0)))
			return -1;
	}
	if (!wymcp__utf8_valid(out, n))
		return -1;
	*outlen = n;
	return 0;
}

/* A header integer by the rule xheader.c documents, built apart. */
static int
ref_int(const char *s, size_t len, long long *out)
{
	char		 digits[32];
	size_t		 i = 0, d = 0;
	int		 neg = 0;

	if (len > 0 && s[0] == '-') {
		neg = 1;
		i = 1;
	}
	while (i < len && s[i] >= '0' && s[i] <= '9') {
		if (d + 1 >= sizeof(digits))
			return -1;
		digits[d++] = s[i++];
	}
	digits[d] = '\0';
	if (d == 0 || (d > 1 && digits[0] == '0') || d > 16)
		return -1;
	if (i < len) {
		if (s[i] != '.' || i + 1 >= len)
			return -1;
		for (i++; i < len; i++)
			if (s[i] != '0')
				return -1;
	}
	*out = strtoll(digits, NULL, 10);
	if (*out > SAFE_MAX)
		return -1;
	if (neg)
		*out = -*out;
	return 0;
}

/* The reference verdict for one argument: 1 accept, 0 reject. */
static int
ref_one(struct json_object *args, const char *const *path, size_t npath,
    int type, const char *h, int dup)
{
	struct json_object	*v = args;
	char			*dec, *t;
	const char		*b;
	size_t			 i, dlen, tlen;
	long long		 bi = 0, hi;
	double			 dd;
	int			 ok;

	if (dup)
		return 0;
	for (i = 0; i < npath && v != NULL; i++)
		if (!json_object_is_type(v, json_type_object) ||
		    !json_object_object_get_ex(v, path[i], &v))
			v = NULL;
	if (v == NULL || json_object_is_type(v, json_type_null))
		return h == NULL;
	if (type == json_type_string &&
	    !json_object_is_type(v, json_type_string))
		return 1;
	if (type == json_type_boolean &&
	    !json_object_is_type(v, json_type_boolean))
		return 1;
	if (type == json_type_int) {
		if (json_object_is_type(v, json_type_int)) {
			b = json_object_to_json_string(v);
			if (ref_int(b, strlen(b), &bi) != 0)
				return 0;	/* outside the range */
		} else if (json_object_is_type(v, json_type_double)) {
			dd = json_object_get_double(v);
			/* 1e999 is infinite: not an integer at all. */
			if (dd != dd || dd - dd != 0)
				return 1;
			if (dd >= 9007199254740992.0 ||
			    dd <= -9007199254740992.0)
				return 0;
			if (dd != (double)(long long)dd)
				return 1;
			bi = (long long)dd;
		} else
			return 1;
	}
	if (h == NULL)
		return 0;
	for (i = 0; h[i] != '\0'; i++)
		if (!(h[i] == ' ' || h[i] == '\t' ||
		    ((unsigned char)h[i] > 0x20 && (unsigned char)h[i] < 0x7f)))
			return 0;
	while (*h == ' ' || *h == '\t')
		h++;
	tlen = strlen(h);
	while (tlen > 0 && (h[tlen - 1] == ' ' || h[tlen - 1] == '\t'))
		tlen--;
	if ((t = strndup(h, tlen)) == NULL || (dec = malloc(tlen + 1)) == NULL)
		abort();
	if (ref_decode(t, dec, &dlen) != 0)
		ok = 0;
	else if (type == json_type_int)
		ok = ref_int(dec, dlen, &hi) == 0 && hi == bi;
	else if (type == json_type_boolean) {
		b = json_object_get_boolean(v) ? "true" : "false";
		ok = dlen == strlen(b) && memcmp(dec, b, dlen) == 0;
	} else
		ok = dlen == (size_t)json_object_get_string_len(v) &&
		    memcmp(dec, json_object_get_string(v), dlen) == 0;
	free(t);
	free(dec);
	return ok;
}

/* Odd: arguments and headers for tool "custom". */
static void
fuzz_call(const uint8_t *data, size_t size)
{
	static struct wymcp_server	*srv;
	static const char *const keys = "RCFZ";
	static const char *const names[] = { "HTTP_MCP_PARAM_REGION",
	    "HTTP_MCP_PARAM_COUNT", "HTTP_MCP_PARAM_FLAG",
	    "HTTP_MCP_PARAM_ZONE" };
	static const char *const p_region[] = { "region" };
	static const char *const p_count[] = { "count" };
	static const char *const p_flag[] = { "flag" };
	static const char *const p_zone[] = { "nested", "zone" };
	static const char *const *const paths[] = { p_region, p_count,
	    p_flag, p_zone };
	static const size_t npaths[] = { 1, 1, 1, 2 };
	static const int types[] = { json_type_string, json_type_int,
	    json_type_boolean, json_type_string };
	struct wymcp_ctx	 ctx;
	struct json_object	*args = NULL;
	char			*buf, *line, *next, *env[17], *own[16], *k;
	const char		*hv[4], *why;
	size_t			 nenv = 0, i, j, alen;
	int			 dup[4], want = 1;

	if (srv == NULL && ((srv = wymcp_server_new()) == NULL ||
	    wymcp_server_add_module(srv, &custom_mod) != WYMCP_OK))
		abort();
	if ((buf = malloc(size + 1)) == NULL)
		return;
	memcpy(buf, data, size);
	buf[size] = '\0';
	next = memchr(buf, '\n', size);
	alen = next != NULL ? (size_t)(next - buf) : size;
	if (next != NULL)
		*next++ = '\0';
	args = wymcp__parse(buf, alen);
	if (args != NULL && !json_object_is_type(args, json_type_object)) {
		/* server.c never passes a non-object. */
		json_object_put(args);
		args = NULL;
	}
	memset(hv, 0, sizeof(hv));
	memset(dup, 0, sizeof(dup));
	for (line = next; line != NULL && nenv < 16; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		if (line[0] == '\0' || line[1] != ':' ||
		    (k = strchr(keys, line[0])) == NULL)
			continue;
		j = (size_t)(k - keys);
		own[nenv] = param_env(names[j], line + 2);
		env[nenv] = own[nenv];
		nenv++;
		if (hv[j] != NULL)
			dup[j] = 1;
		else
			hv[j] = line + 2;
	}
	env[nenv] = NULL;

	for (j = 0; j < 4 && want; j++)
		want = ref_one(args, paths[j], npaths[j], types[j], hv[j],
		    dup[j]);
	wymcp__ctx_init(&ctx, srv, env);
	why = wymcp__xparams_check(&ctx, &srv->tools[0], args, 0);
	if (why != NULL)
		check_message(why);
	if ((why == NULL) != want)
		fail(want ? "refused what the reference accepts" :
		    "accepted what the reference refuses",
		    why != NULL ? why : "(no message)");
	wymcp__ctx_free(&ctx);
	json_object_put(args);
	for (i = 0; i < nenv; i++)
		free(own[i]);
	free(buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] & 1)
		fuzz_call(data + 1, size - 1);
	else
		fuzz_schema(data + 1, size - 1);
	return 0;
}
