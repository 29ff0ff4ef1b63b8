/*
 * lib.h - the lowest layer of libwymcp: arena, JSON, text, schema
 *
 * Layers, lowest first: lib, setup, core, methods, serve, then the
 * front end and the testing library.  A file includes its own layer's
 * header and so, through it, the lower ones; never a higher one
 * (t/layers checks it).  Nothing in lib knows what a request, a server
 * or MCP is beyond the wire constants below.
 *
 * Internal non-static functions are named wymcp__*; they are hidden from
 * the shared library by -fvisibility=hidden.
 */
#ifndef WYMCP_LIB_H
#define WYMCP_LIB_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "wymcp.h"
#include "word.h"

/* JSON-RPC and MCP wire error codes (basic/index.mdx "Error Codes"). */
enum wymcp__code {
	WYMCP__PARSE_ERROR = -32700,
	WYMCP__INVALID_REQUEST = -32600,
	WYMCP__METHOD_NOT_FOUND = -32601,
	WYMCP__INVALID_PARAMS = -32602,
	WYMCP__INTERNAL_ERROR = -32603,
	WYMCP__SESSION_NOT_FOUND = -32001,	/* 2025-11-25, as the SDK */
	WYMCP__RESOURCE_NOT_FOUND = -32002,	/* 2025-11-25 only */
	WYMCP__HEADER_MISMATCH = -32020,
	WYMCP__MISSING_CAPABILITY = -32021,
	WYMCP__UNSUPPORTED_VERSION = -32022,
	WYMCP__RATE_LIMITED = WYMCP_CODE_RATE_LIMITED	/* -32029 */
};

/* Reserved _meta keys (basic/index.mdx "_meta"). */
#define WYMCP__META_VERSION	"io.modelcontextprotocol/protocolVersion"
#define WYMCP__META_CAPS	"io.modelcontextprotocol/clientCapabilities"
#define WYMCP__META_CLIENT	"io.modelcontextprotocol/clientInfo"
#define WYMCP__META_LOGLEVEL	"io.modelcontextprotocol/logLevel"
#define WYMCP__META_SERVER	"io.modelcontextprotocol/serverInfo"

/* Cache hints for cacheable results (server/utilities/caching.mdx). */
#define WYMCP__TTL_MS		300000

/*
 * arena.c: the per-request arena.  Chunks are freed together; cleanup
 * hooks run in reverse order of registration before the chunks go.
 */
struct wymcp__chunk;
struct wymcp__cleanup;
struct wymcp__arena {
	struct wymcp__chunk	*head;		/* newest chunk first */
	struct wymcp__cleanup	*cleanups;	/* newest first */
	size_t			 total;		/* bytes handed out */
};
void	 wymcp__arena_init(struct wymcp__arena *);
void	*wymcp__arena_alloc(struct wymcp__arena *, size_t);
char	*wymcp__arena_strndup(struct wymcp__arena *, const char *, size_t);
char	*wymcp__arena_vprintf(struct wymcp__arena *, const char *, va_list)
	    WYMCP_PRINTF(2, 0);
int	 wymcp__arena_defer(struct wymcp__arena *, void (*)(void *), void *);
void	 wymcp__arena_free(struct wymcp__arena *);
void	 wymcp__arena_unwind(struct wymcp__arena *, struct wymcp__cleanup *);

/* json.c: strict RFC 8259 in, compact out. */
enum wymcp__json_fault {
	WYMCP__JSON_OK,		/* parsed */
	WYMCP__JSON_SYNTAX,	/* not RFC 8259 JSON in UTF-8 */
	WYMCP__JSON_RANGE,	/* an integer beyond 64 bits */
	WYMCP__JSON_NULL,	/* the literal null */
	WYMCP__JSON_DUPLICATE,	/* an object names a member twice */
	WYMCP__JSON_NUL,	/* a string holds U+0000 (object returned) */
	WYMCP__JSON_NOMEM	/* out of memory */
};
struct json_object *wymcp__parse_ex(const char *buf, size_t len,
	    enum wymcp__json_fault *);
/* A syntax error's sentence (static) and byte offset (from 0). */
struct wymcp__json_err {
	const char	*why;
	size_t		 at;
};
struct json_object *wymcp__parse_why(const char *buf, size_t len,
	    enum wymcp__json_fault *, struct wymcp__json_err *);
/*
 * The last "_meta" object a parse built, and its text: a client sends
 * the same _meta request after request, and the next parse that meets
 * those bytes takes a reference to the object instead of building it
 * again, and the syntax check skips those bytes.  The object is
 * shared: readers only (the request context is read-only to tools).
 * One per server; wymcp__json_memo_free() at the end.
 */
struct wymcp__json_memo {
	char			*text;	/* the _meta value's bytes */
	size_t			 len;
	int			 depth;	/* its nesting, as the scan counts */
	int			 nul;	/* it holds \u0000 */
	struct json_object	*obj;	/* a reference held */
};
struct json_object *wymcp__parse_memo(const char *buf, size_t len,
	    enum wymcp__json_fault *, struct wymcp__json_err *,
	    struct wymcp__json_memo *);
void	 wymcp__json_memo_free(struct wymcp__json_memo *);
struct json_object *wymcp__parse(const char *buf, size_t len);
int	 wymcp__is_null(const char *buf, size_t len);
int	 wymcp__json_range(const char *buf, size_t len);
const char *wymcp__json(struct json_object *);
const char *wymcp__json_id(struct wymcp__arena *, struct json_object *);
/* A growing byte buffer, kept between requests (wymcp__json_write()). */
struct wymcp__buf {
	char			*p;
	size_t			 len;
	size_t			 cap;
};
int	 wymcp__json_write(struct wymcp__buf *, struct json_object *);
int	 wymcp__json_write_member(struct wymcp__buf *, char sep,
	    const char *key, struct json_object *);
int	 wymcp__json_write_end(struct wymcp__buf *);
int	 wymcp__buf_put(struct wymcp__buf *, const void *, size_t);
void	 wymcp__buf_free(struct wymcp__buf *);
int	 wymcp__put_str(struct json_object *, const char *, const char *);
int	 wymcp__put_new(struct json_object *, const char *,
	    struct json_object *);
int	 wymcp__json_freeze(struct json_object *);

/*
 * jsonf.c: JSON from a printf-like template (wymcp_jsonf(3)).  Values
 * come from a source, a va_list or a fuzz target's bytes, asked for
 * one at a time by the kind the template's conversion names.
 */
enum wymcp__jsonf_kind {
	WYMCP__JF_INT, WYMCP__JF_UINT, WYMCP__JF_LONG, WYMCP__JF_ULONG,
	WYMCP__JF_LLONG, WYMCP__JF_ULLONG, WYMCP__JF_SSIZE, WYMCP__JF_SIZE,
	WYMCP__JF_INTMAX, WYMCP__JF_UINTMAX, WYMCP__JF_PTRDIFF,
	WYMCP__JF_DOUBLE, WYMCP__JF_STR, WYMCP__JF_PTR
};
union wymcp__jsonf_val {
	long long		 i;
	unsigned long long	 u;
	double			 d;
	const char		*s;
	struct json_object	*p;
};
struct wymcp__jsonf_src {
	void	(*get)(void *, enum wymcp__jsonf_kind,
		    union wymcp__jsonf_val *);
	void	 *arg;
};
int	 wymcp__jsonf_expand(struct wymcp__buf *, const char *fmt,
	    const struct wymcp__jsonf_src *, char *why, size_t whylen);
struct json_object *wymcp__jsonf(const char *fmt,
	    const struct wymcp__jsonf_src *, char *why, size_t whylen,
	    int *nomem);
struct json_object *wymcp__vjsonf(const char *fmt, va_list, char *why,
	    size_t whylen, int *nomem);

/* jsonrpc.c: response and error objects (JSON-RPC 2.0 section 5). */
struct json_object *wymcp__error(struct json_object *id, int code,
	    const char *message, struct json_object *data);
struct json_object *wymcp__response(struct json_object *id,
	    struct json_object *result);

/* text.c: bytes, UTF-8, base64, header values, word lists. */
#define WYMCP__QUOTE_MAX	64	/* bytes of a value in a message */
const char *wymcp__quote(struct wymcp__arena *, const char *, size_t);
int	 wymcp__header_chars_ok(const char *);
const char *wymcp__header_trim(struct wymcp__arena *, const char *);
int	 wymcp__sentinel_decode(struct wymcp__arena *, const char *value,
	    const char **out, size_t *outlen);
int	 wymcp__base64_decode(const char *in, size_t inlen,
	    unsigned char *out, size_t *outlen);
int	 wymcp__base64_ok(const char *);
size_t	 wymcp__b64url_len(size_t);
void	 wymcp__b64url_encode(char *, const unsigned char *, size_t);
/* n bytes as lower-case hex into out (2n + 1 bytes, NUL too); out. */
char	*wymcp__hex(char *out, const unsigned char *, size_t n);
int	 wymcp__b64url_decode(unsigned char *, size_t *, const char *,
	    size_t);
int	 wymcp__utf8_valid(const char *, size_t);
size_t	 wymcp__utf8_seq(const char *, size_t i, size_t len);
int	 wymcp__text_ok(const char *);
int	 wymcp__tool_name_ok(const char *);
int	 wymcp__log_level(const char *);
const char *wymcp__log_level_name(int prio);

/* frontmatter.c: a SKILL.md's YAML frontmatter (a subset) as JSON. */
int	 wymcp__frontmatter(const char *buf, size_t len,
	    struct json_object **out, size_t *body, char *err,
	    size_t errlen);
/* meta.c: _meta keys, icons, annotations (basic/index.mdx). */
int	 wymcp__meta_key_ok(const char *, char *why, size_t len);
int	 wymcp__meta_ok(struct json_object *, char *why, size_t len);
int	 wymcp__icons_ok(struct json_object *, char *why, size_t len);
int	 wymcp__annotations_ok(struct json_object *, char *why, size_t len);
/* meta.c: MCP Apps' _meta.ui of a tool, or of a resource or contents. */
#define WYMCP__UI_TOOL		1
#define WYMCP__UI_RESOURCE	2
#define WYMCP__UI_EXT		"io.modelcontextprotocol/ui"
#define WYMCP__UI_MIME		"text/html;profile=mcp-app"
int	 wymcp__ui_meta_ok(struct json_object *, int where, char *why,
	    size_t len);

/* uritpl.c: URI templates, {var} and {+var} (RFC 6570). */
int	 wymcp__uri_scheme_ok(const char *);
int	 wymcp__uri_literal_ok(const char *, size_t, char *err,
	    size_t errlen);
int	 wymcp__tpl_check(const char *tpl, char *err, size_t errlen);
int	 wymcp__tpl_match(struct wymcp__arena *, const char *tpl,
	    const char *uri, struct json_object **vars);
int	 wymcp__template_var(const char *tpl, const char *name);

/* schema.c: the JSON Schema subset used to check tool arguments. */
int	 wymcp__schema_validate(struct json_object *schema,
	    struct json_object *instance, char *err, size_t errlen);
int	 wymcp__schema_check(struct json_object *schema, char *err,
	    size_t errlen);

#endif /* WYMCP_LIB_H */
