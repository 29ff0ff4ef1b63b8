/*
 * xparams.c - Mcp-Param-* headers against x-mcp-header arguments
 *
 * MCP 2026-07-28 basic/transports/streamable-http.mdx "Custom Headers
 * from Tool Parameters": a server that processes the body MUST check
 * that a mirrored argument and its header agree (400, -32020).  Header
 * names are case-insensitive ("Case Sensitivity"); under CGI and
 * FastCGI that comes free, because the web server passes every header
 * as HTTP_<NAME> upper-cased with '-' turned into '_' (RFC 3875
 * 4.1.18), whatever case the client used.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "serve/serve.h"

#define XH_PREFIX	"HTTP_MCP_PARAM_"
#define XH_SAFE_MAX	9007199254740991LL	/* 2^53 - 1 */
#define XH_MAXDEPTH	64		/* nested schema objects */
#define XH_FALLBACK	"Header mismatch: an Mcp-Param header does not " \
			"match the arguments"

/* A message in the request arena; a fixed one when memory runs out. */
static const char *
mismatch(struct wymcp_ctx *ctx, const char *fmt, ...) WYMCP_PRINTF(2, 3);

static const char *
mismatch(struct wymcp_ctx *ctx, const char *fmt, ...)
{
	va_list		 ap;
	const char	*m;

	va_start(ap, fmt);
	m = wymcp__arena_vprintf(&ctx->arena, fmt, ap);
	va_end(ap);
	return m != NULL ? m : XH_FALLBACK;
}

/* The argument path for messages: "region", "nested.zone". */
static const char *
argname(struct wymcp_ctx *ctx, const struct wymcp__xparam *x)
{
	char	 buf[128];
	size_t	 i, len = 0, k;

	buf[0] = '\0';
	for (i = 0; i < x->npath && len + 1 < sizeof(buf); i++) {
		if (i > 0)
			buf[len++] = '.';
		k = strlen(x->path[i]);
		if (k > sizeof(buf) - 1 - len)
			k = sizeof(buf) - 1 - len;
		memcpy(buf + len, x->path[i], k);
		len += k;
	}
	buf[len] = '\0';
	return wymcp__quote(&ctx->arena, buf, len);
}

/*
 * The value of a CGI param, or NULL; *dup is set when the param occurs
 * more than once (a client sending the header twice must not have the
 * server check one line while an intermediary routes on the other).
 */
static const char *
param_get(char *const *env, const char *name, int *dup)
{
	const char	*v = NULL;
	size_t		 n = strlen(name);

	*dup = 0;
	for (; env != NULL && *env != NULL; env++)
		if (strncmp(*env, name, n) == 0 && (*env)[n] == '=') {
			if (v != NULL) {
				*dup = 1;
				break;
			}
			v = *env + n + 1;
		}
	return v;
}

/*
 * The value at the property path: 0 when absent (a member missing, or
 * no object on the way), else 1 with *v, NULL for a JSON null (json-c
 * represents null as NULL).
 */
static int
arg_at(struct json_object *args, const struct wymcp__xparam *x,
    struct json_object **v)
{
	size_t	 i;

	*v = args;
	for (i = 0; i < x->npath; i++)
		if (!json_object_is_type(*v, json_type_object) ||
		    !json_object_object_get_ex(*v, x->path[i], v))
			return 0;
	return 1;
}

/*
 * A header integer: optional '-', decimal digits without leading zeros,
 * optionally ".0…" (streamable-http.mdx "Server Validation": compare
 * numerically, 42.0 == 42).  No '+', exponent or white space, which no
 * client produces and an intermediary might read differently ("042" is
 * octal to some).  Returns 0 with *out within ±(2^53-1), else -1.
 */
static int
parse_int(const char *s, size_t len, int64_t *out)
{
	size_t		 i = 0;
	int64_t		 v = 0;
	int		 neg = 0;

	if (i < len && s[i] == '-') {
		neg = 1;
		i++;
	}
	if (i >= len || s[i] < '0' || s[i] > '9')
		return -1;
	if (s[i] == '0' && i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '9')
		return -1;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		if ((v = v * 10 + (s[i] - '0')) > XH_SAFE_MAX)
			return -1;
	if (i < len && s[i] == '.') {
		if (++i >= len || s[i] != '0')
			return -1;
		while (i < len && s[i] == '0')
			i++;
	}
	if (i != len)
		return -1;
	*out = neg ? -v : v;
	return 0;
}

/*
 * The body value as an integer within ±(2^53-1): 1 when it is, 0 when
 * it is not of integer type (the schema check answers that), -1 when it
 * is an integer outside the range a header may carry (tools.mdx).
 */
static int
body_int(struct json_object *v, int64_t *out)
{
	double	 d;

	if (json_object_is_type(v, json_type_int)) {
		*out = json_object_get_int64(v);
		/* Above INT64_MAX json-c holds a uint64 and clamps. */
		return *out >= -XH_SAFE_MAX && *out <= XH_SAFE_MAX ? 1 : -1;
	}
	if (!json_object_is_type(v, json_type_double))
		return 0;
	/*
	 * Validation 6.1.1: 1.0 is an integer.  Every double of magnitude
	 * 2^53 or more is integral and out of range; below, the cast is
	 * exact for integral values.
	 */
	d = json_object_get_double(v);
	if (!isfinite(d))
		return 0;
	if (d >= 9007199254740992.0 || d <= -9007199254740992.0)
		return -1;
	if (d != (double)(int64_t)d)
		return 0;
	*out = (int64_t)d;
	return 1;
}

/*
 * Check one recorded argument against its header.  NULL when they agree
 * (or the value's type is the argument schema check's business).  With
 * `present_only` (a 2025-11-25 request, which need not send the
 * header), a missing header is no mismatch.
 */
static const char *
check_one(struct wymcp_ctx *ctx, const struct wymcp__xparam *x,
    struct json_object *args, int present_only)
{
	struct json_object	*v;
	const char		*h, *d, *body;
	size_t			 dlen, blen;
	int64_t			 hi, bi = 0;
	int			 dup, present, r = 0;

	present = arg_at(args, x, &v);
	h = param_get(ctx->req.env, x->param, &dup);
	if (dup)
		return mismatch(ctx, "Header mismatch: Mcp-Param-%.64s header "
		    "is repeated", x->header);
	/*
	 * null or absent: the client MUST omit the header and the server
	 * MUST NOT expect it.  The spec says nothing of a header that comes
	 * anyway; wymcp rejects it, since an intermediary may have acted on
	 * a value the tool never sees.
	 */
	if (!present || json_object_is_type(v, json_type_null)) {
		if (h == NULL)
			return NULL;
		return mismatch(ctx, "Header mismatch: Mcp-Param-%.64s header "
		    "is present but argument %s is %s", x->header,
		    argname(ctx, x), present ? "null" : "absent");
	}
	switch (x->type) {
	case json_type_string:
		if (!json_object_is_type(v, json_type_string))
			return NULL;
		body = json_object_get_string(v);
		blen = (size_t)json_object_get_string_len(v);
		break;
	case json_type_boolean:
		if (!json_object_is_type(v, json_type_boolean))
			return NULL;
		body = json_object_get_boolean(v) ? "true" : "false";
		blen = strlen(body);
		break;
	default:
		if ((r = body_int(v, &bi)) == 0)
			return NULL;
		if (r < 0)
			return mismatch(ctx, "Header mismatch: argument %s is "
			    "outside the integer range Mcp-Param-%.64s can "
			    "carry (-(2^53-1) to 2^53-1)", argname(ctx, x),
			    x->header);
		body = wymcp_printf(ctx, "%" PRId64, bi);
		if (body == NULL)
			return XH_FALLBACK;
		blen = strlen(body);
		break;
	}

	if (h == NULL && present_only)
		return NULL;
	if (h == NULL)
		return mismatch(ctx, "Header mismatch: Mcp-Param-%.64s header "
		    "is missing (argument %s is in the body)", x->header,
		    argname(ctx, x));
	if (!wymcp__header_chars_ok(h))
		return mismatch(ctx, "Header mismatch: Mcp-Param-%.64s header "
		    "has invalid characters", x->header);
	if ((h = wymcp__header_trim(&ctx->arena, h)) == NULL)
		return XH_FALLBACK;
	if (wymcp__sentinel_decode(&ctx->arena, h, &d, &dlen))
		return mismatch(ctx, "Header mismatch: Mcp-Param-%.64s header "
		    "has invalid base64", x->header);
	if (x->type == json_type_int) {
		if (parse_int(d, dlen, &hi) == 0 && hi == bi)
			return NULL;
	} else if (dlen == blen && memcmp(d, body, blen) == 0)
		return NULL;
	return mismatch(ctx, "Header mismatch: Mcp-Param-%.64s header value "
	    "'%s' does not match argument %s value '%s'", x->header,
	    wymcp__ctx_quote(ctx, h), argname(ctx, x),
	    wymcp__quote(&ctx->arena, body, blen));
}

/*
 * The Mcp-Param-* check of a tools/call (streamable-http.mdx "Server
 * Behavior for Custom Headers", "Server Validation").  `args` is the
 * arguments object or NULL.  Mcp-Param-* params that name no recorded
 * argument are ignored.  With `present_only`, only the headers the
 * request carries are checked (2025-11-25 requests).  Returns NULL when
 * every recorded argument agrees with its header, else the -32020
 * message (request arena).
 */
const char *
wymcp__xparams_check(struct wymcp_ctx *ctx, const struct wymcp__tool *t,
    struct json_object *args, int present_only)
{
	const char	*why;
	size_t		 i;

	for (i = 0; i < t->nxparams; i++)
		if ((why = check_one(ctx, &t->xparams[i], args,
		    present_only)) != NULL)
			return why;
	return NULL;
}
