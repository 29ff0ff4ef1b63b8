/*
 * extern.h - internal interfaces of libwymcp (never installed).
 *
 * Internal non-static functions are named wymcp__*; they are hidden from
 * the shared library by -fvisibility=hidden.
 */
#ifndef WYMCP_EXTERN_H
#define WYMCP_EXTERN_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>

#include "wymcp.h"

struct wymcp__reply;

/* JSON-RPC and MCP wire error codes (basic/index.mdx "Error Codes"). */
enum wymcp__code {
	WYMCP__PARSE_ERROR = -32700,
	WYMCP__INVALID_REQUEST = -32600,
	WYMCP__METHOD_NOT_FOUND = -32601,
	WYMCP__INVALID_PARAMS = -32602,
	WYMCP__INTERNAL_ERROR = -32603,
	WYMCP__RESOURCE_NOT_FOUND = -32002,	/* 2025-11-25 only */
	WYMCP__HEADER_MISMATCH = -32020,
	WYMCP__MISSING_CAPABILITY = -32021,
	WYMCP__UNSUPPORTED_VERSION = -32022
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

/* module.c: a registered tool, with everything parsed at load time. */
struct wymcp__tool {
	const struct wymcp_tool	*def;		/* the module's declaration */
	const char		*module;	/* module name, for logs */
	struct json_object	*listing;	/* Tool object for tools/list */
	struct json_object	*input;		/* parsed inputSchema */
	struct json_object	*reqcaps;	/* parsed required caps or NULL */
	unsigned char		 digest[32];	/* of the listing: mount set id */
	struct wymcp__xparam	*xparams;	/* x-mcp-header arguments */
	size_t			 nxparams;
};

/*
 * xheader.c: an argument mirrored in an Mcp-Param-<Name> header
 * (x-mcp-header, basic/transports/streamable-http.mdx "Custom Headers").
 */
struct wymcp__xparam {
	char		**path;		/* property names from the root */
	size_t		 npath;
	char		*header;	/* the x-mcp-header value */
	char		*param;		/* HTTP_MCP_PARAM_<NAME>, as CGI */
	int		 type;		/* json_type_string/int/boolean */
};

/* resource.c, prompt.c: registered resources, templates and prompts. */
struct wymcp__resource {
	const struct wymcp_resource *def;
	const struct wymcp_module *mod;
	struct json_object	*listing;	/* Resource/ResourceTemplate */
	unsigned char		 digest[32];	/* of the listing: list id */
};
struct wymcp__prompt {
	const struct wymcp_prompt *def;
	const struct wymcp_module *mod;
	struct json_object	*listing;	/* Prompt object */
	unsigned char		 digest[32];	/* of the listing: list id */
};

/* A loaded module. */
struct wymcp__module {
	void			*handle;	/* dlopen handle, or NULL */
	const struct wymcp_module *mod;
	char			*path;		/* file, or NULL when linked in */
};

/* An allowed origin (scheme://host[:port]) or a bare host. */
struct wymcp__origin {
	char	*origin;	/* exact Origin to accept, or NULL */
	char	*host;		/* host name (lower case), no port */
};

struct wymcp_server {
	struct wymcp__tool	*tools;		/* registration order */
	size_t			 ntools;
	struct wymcp__module	*mods;
	size_t			 nmods;
	struct wymcp__resource	*resources;	/* fixed URIs */
	size_t			 nresources;
	struct wymcp__resource	*templates;	/* URI templates */
	size_t			 ntemplates;
	struct wymcp__prompt	*prompts;
	size_t			 nprompts;
	size_t			 ncompleters;	/* modules with complete() */
	size_t			 page_size;	/* list page size */
	struct wymcp__origin	*origins;
	size_t			 norigins;
	size_t			 max_body;
	wymcp_log_fn		 logfn;
	void			*logarg;
	int			 logmax;	/* highest priority logged */
	struct json_object	*result_meta;	/* {"…/serverInfo":{…}} */
	struct wymcp__key	*keys;		/* first seals, all open */
	size_t			 nkeys;
	unsigned int		 state_ttl;	/* seconds */
	int			 legacy;	/* serve 2025-11-25 clients */
	char			*readbuf;	/* body buffer, reused */
	size_t			 readbufsz;
	char			 errmsg[512];	/* last failure */
};

/* The one per-request structure: the tool's context and the request. */
struct wymcp_ctx {
	struct wymcp__arena	 arena;
	struct wymcp_server	*srv;
	char *const		*env;		/* CGI params */
	struct json_object	*msg;		/* the parsed body */
	struct json_object	*id;		/* JSON-RPC id or NULL */
	const char		*idstr;		/* id serialized, for logs */
	const char		*method;	/* JSON-RPC method */
	struct json_object	*params;	/* params object or NULL */
	struct json_object	*meta;		/* params._meta */
	struct json_object	*caps;		/* clientCapabilities */
	const char		*version;	/* protocolVersion */
	int			 legacy;	/* a 2025-11-25 era request */
	struct json_object	*assigns;	/* name -> string */
	const char		*principal;	/* or NULL */
	const struct wymcp__tool **tools;	/* mount list */
	size_t			 ntools;
	struct json_object	*answers;	/* merged input responses */
	struct wymcp__run	*run;		/* the open run, or NULL */
	const char		*call_name;	/* tools/call name (sealing) */
	struct json_object	*call_args;	/* its arguments (sealing) */
	/* stream.c: the response as it goes out. */
	const struct wymcp_io	*io;		/* where the response goes */
	int			 streaming;	/* SSE headers are out */
	int			 cancelled;	/* the client went away */
	struct json_object	*progress_token; /* _meta.progressToken */
	double			 last_progress;	/* must increase */
	int			 have_progress;	/* one was sent */
	int			 loglevel;	/* _meta logLevel, -1 none */
};

/*
 * elicit.c: one run of a tool (or prompt or resource handler) inside the
 * boundary.  The unwind that ends a round is a longjmp to `jb`; it
 * belongs to the thread that opened the run.
 */
struct wymcp__run {
	jmp_buf			 jb;
	pthread_t		 thread;	/* the thread running it */
	unsigned int		 counter;	/* positional key counter */
	int			 batch;		/* collecting questions */
	struct json_object	*pending;	/* key -> input request */
	struct json_object	*used;		/* key -> answer read */
	const char		*fault;		/* invalid answer: -32602 */
};

/* How a run ended. */
enum wymcp__outcome {
	WYMCP__RUN_DONE,	/* the body returned; see rc */
	WYMCP__RUN_INPUT,	/* stopped at unanswered questions */
	WYMCP__RUN_FAULT	/* an answer was invalid (-32602) */
};
typedef enum wymcp_err (*wymcp__body)(struct wymcp_ctx *, void *);
enum wymcp__outcome wymcp__run(struct wymcp_ctx *, struct wymcp__run *,
	    wymcp__body, void *, enum wymcp_err *rc);
int	 wymcp__round(struct wymcp_ctx *, struct wymcp__reply *,
	    const char *, struct json_object *, wymcp__body, void *,
	    enum wymcp_err *);
int	 wymcp__round_tool(struct wymcp_ctx *, struct wymcp__reply *,
	    const struct wymcp_tool *, struct json_object *,
	    struct wymcp_result *, enum wymcp_err *);
enum wymcp__outcome wymcp__run_tool(struct wymcp_ctx *,
	    const struct wymcp_tool *, struct json_object *,
	    struct wymcp_result *, struct wymcp__run *, enum wymcp_err *);
int	 wymcp__responses_ok(struct json_object *);
int	 wymcp__elicit_schema_ok(struct json_object *, char *, size_t);

/* seal.c: sealed requestState (libsodium XChaCha20-Poly1305). */
struct wymcp__key {
	unsigned char	 key[32];
	unsigned char	 id[4];		/* BLAKE2b of the key, truncated */
};
int	 wymcp__keys_random(struct wymcp_server *);
int	 wymcp__tool_digest(struct wymcp__tool *);
const char *wymcp__seal(struct wymcp_ctx *, struct json_object *answers);
int	 wymcp__unseal(struct wymcp_ctx *, const char *token,
	    struct json_object **answers);

/* The result a tool builds. */
struct wymcp_result {
	struct wymcp_ctx	*ctx;
	struct json_object	*content;	/* array */
	struct json_object	*structured;	/* or NULL */
	int			 is_error;
};

/* content.c: results. */
struct wymcp_result *wymcp__result_new(struct wymcp_ctx *);
void	 wymcp__result_finish(struct wymcp_result *, enum wymcp_err);
struct json_object *wymcp__call_result(struct wymcp_result *);

/* ctx.c: context construction from the CGI params. */
const char *wymcp__env(char *const *env, const char *name);
enum wymcp_err wymcp__ctx_assigns(struct wymcp_ctx *);
enum wymcp_err wymcp__ctx_mount(struct wymcp_ctx *);
void	 wymcp__ctx_init(struct wymcp_ctx *, struct wymcp_server *,
	    char *const *env);
void	 wymcp__ctx_free(struct wymcp_ctx *);
const struct wymcp__tool *wymcp__ctx_find_tool(const struct wymcp_ctx *,
	    const char *name);

/* http.c: HTTP-level rules (basic/transports/streamable-http.mdx). */
int	 wymcp__header_chars_ok(const char *);
const char *wymcp__header_trim(struct wymcp__arena *, const char *);
int	 wymcp__sentinel_decode(struct wymcp__arena *, const char *value,
	    const char **out, size_t *outlen);
int	 wymcp__base64_decode(const char *in, size_t inlen,
	    unsigned char *out, size_t *outlen);
int	 wymcp__utf8_valid(const char *, size_t);
int	 wymcp__host_allowed(const struct wymcp_server *, const char *host,
	    const char *extra);
int	 wymcp__origin_allowed(const struct wymcp_server *, const char *origin,
	    const char *extra);
int	 wymcp__content_type_ok(const char *);
const char *wymcp__status_text(int status);

/* rpc.c: JSON-RPC 2.0 envelope and MCP _meta rules. */
struct json_object *wymcp__parse(const char *buf, size_t len);
int	 wymcp__is_null(const char *buf, size_t len);
int	 wymcp__json_range(const char *buf, size_t len);
int	 wymcp__envelope(struct json_object *msg, struct json_object **id,
	    const char **method, const char **why);
int	 wymcp__meta(struct json_object *params, struct json_object **meta,
	    const char **version, struct json_object **caps,
	    const char **why);
int	 wymcp__caps_missing(struct json_object *required,
	    struct json_object *declared, struct json_object **missing);
struct json_object *wymcp__error(struct json_object *id, int code,
	    const char *message, struct json_object *data);
struct json_object *wymcp__response(struct json_object *id,
	    struct json_object *result);

/* methods.c: the method table. */
struct wymcp__reply {
	int			 status;	/* HTTP status */
	struct json_object	*body;		/* full JSON-RPC response */
};
struct wymcp__method {
	const char	*name;
	const char	*name_param;	/* params member Mcp-Name mirrors */
	void		(*fn)(struct wymcp_ctx *, struct wymcp__reply *);
};
const struct wymcp__method *wymcp__method_find(const char *);
int	 wymcp__answers(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__input_required(struct wymcp_ctx *, struct wymcp__reply *,
	    struct wymcp__run *);
void	 wymcp__cache_hints(struct json_object *, int private);
struct json_object *wymcp__server_caps(const struct wymcp_server *);
void	 wymcp__reply_error(struct wymcp_ctx *, struct wymcp__reply *,
	    int status, int code, const char *message,
	    struct json_object *data);
void	 wymcp__reply_nomem(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__reply_result(struct wymcp_ctx *, struct wymcp__reply *,
	    struct json_object *result);

/* resource.c, prompt.c: the methods. */
void	 wymcp__resources_list(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__templates_list(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__resources_read(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__prompts_list(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__prompts_get(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__complete(struct wymcp_ctx *, struct wymcp__reply *);
/* Registration of a module's resources, templates and prompts. */
enum wymcp_err wymcp__module_extras(struct wymcp_server *,
	    const struct wymcp_module *);
void	 wymcp__extras_free(struct wymcp_server *);
enum wymcp_err wymcp__prompts_prepare(struct wymcp_server *,
	    const struct wymcp_module *, size_t *);
void	 wymcp__prompts_free(struct wymcp_server *);
const struct wymcp__resource *wymcp__resource_ref(
	    const struct wymcp_server *, const char *uri, int *is_template);
int	 wymcp__template_var(const char *tpl, const char *name);
int	 wymcp__text_ok(const char *);

/*
 * list.c: pagination of the list methods (server/utilities/
 * pagination.mdx) and their cache hints (server/utilities/caching.mdx).
 * `at` gives entry i's listing object and its 32-byte digest; the
 * digests in order are the list's identity, which cursors carry.
 */
struct wymcp__list {
	const char	*kind;		/* result member: "tools", ... */
	size_t		 n;		/* entries */
	void		(*at)(const void *arg, size_t i,
			    struct json_object **listing,
			    const unsigned char **digest);
	const void	*arg;
	int64_t		 ttl;		/* ttlMs, the same on every page */
	int		 private;	/* cacheScope, likewise */
};
void	 wymcp__list_reply(struct wymcp_ctx *, struct wymcp__reply *,
	    const struct wymcp__list *);
int	 wymcp__listing_digest(struct json_object *, unsigned char *);
int64_t	 wymcp__module_ttl(const struct wymcp_module *);
int	 wymcp__module_private(const struct wymcp_module *);
void	 wymcp__cache_hints_ttl(struct json_object *, int64_t ttl,
	    int private);

/* stream.c: SSE responses (basic/transports/streamable-http.mdx). */
int	 wymcp__stream_init(struct wymcp_ctx *);
int	 wymcp__log_level(const char *);
enum wymcp_err wymcp__notify(struct wymcp_ctx *, const char *method,
	    struct json_object *params);
enum wymcp_err wymcp__notify_log(struct wymcp_ctx *, int prio, char *msg);
enum wymcp_err wymcp__stream_final(struct wymcp_ctx *,
	    struct json_object *body);

/*
 * legacy.c: the 2025-11-25 era (initialize handshake, no _meta) served
 * from the same stateless pipeline (spec-digest section 12).
 */
enum wymcp__era {
	WYMCP__ERA_MODERN,	/* 2026-07-28: the _meta pipeline */
	WYMCP__ERA_LEGACY,	/* 2025-11-25 and older */
	WYMCP__ERA_REFUSE	/* no era serves it: 400, -32022 */
};
int	 wymcp__legacy_on(const struct wymcp_ctx *);
int	 wymcp__legacy_version(const char *);
enum wymcp__era wymcp__era(struct wymcp_ctx *);
void	 wymcp__era_refuse(struct wymcp_ctx *, struct wymcp__reply *);
struct json_object *wymcp__supported_versions(const struct wymcp_ctx *);
void	 wymcp__legacy_dispatch(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__legacy_result(struct wymcp_ctx *, struct json_object *);
void	 wymcp__legacy_missing_caps(struct wymcp_ctx *,
	    struct wymcp__reply *, const char *tool,
	    struct json_object *missing);

/* xheader.c: x-mcp-header at load time and Mcp-Param-* per request. */
enum wymcp_err wymcp__xparams_compile(struct wymcp_server *,
	    struct wymcp__tool *);
void	 wymcp__xparams_free(struct wymcp__tool *);
const char *wymcp__xparams_check(struct wymcp_ctx *,
	    const struct wymcp__tool *, struct json_object *args);

/* schema.c: the JSON Schema subset used to check tool arguments. */
int	 wymcp__schema_validate(struct json_object *schema,
	    struct json_object *instance, char *err, size_t errlen);
int	 wymcp__schema_check(struct json_object *schema, char *err,
	    size_t errlen);

/* Does a module (built against an older header) have `field`? */
#define WYMCP__HAS(mod, field)						\
	((mod)->size >= offsetof(struct wymcp_module, field) +		\
	    sizeof((mod)->field))

/* module.c: registration. */
int	 wymcp__tool_name_ok(const char *);

/* util.c */
void	 wymcp__log(const struct wymcp_server *, const struct wymcp_ctx *,
	    int prio, const char *fmt, ...) WYMCP_PRINTF(4, 5);
void	 wymcp__seterr(struct wymcp_server *, const char *fmt, ...)
	    WYMCP_PRINTF(2, 3);
const char *wymcp__json(struct json_object *);
int	 wymcp__put_str(struct json_object *, const char *, const char *);
const char *wymcp__word(const char **, size_t *);

#endif /* WYMCP_EXTERN_H */
