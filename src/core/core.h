/*
 * core.h - the request context, the run boundary, asking, sealing,
 * streaming and the builders tools call
 *
 * struct wymcp_ctx is the one per-request structure.  Its parts belong
 * to different owners: `req` is the parsed request, written once by the
 * pipeline (serve/) and read-only below it; `who` is the identity and
 * mount list core/ctx.c builds from the params; `call` is the round a
 * method binds and the run boundary uses (methods/call.c, core/run.c);
 * `out` is the response stream (core/stream.c).
 */
#ifndef WYMCP_CORE_H
#define WYMCP_CORE_H

#include <setjmp.h>
#include <pthread.h>

#include "store/store.h"

/*
 * The CGI params the pipeline reads, found in one pass over them when
 * the context is bound (ctx.c): each one's value (the last, when the
 * web server passed it twice) and how often it came (2: twice or more).
 */
enum wymcp__param {
	WYMCP__P_REQUEST_METHOD,
	WYMCP__P_CONTENT_TYPE,
	WYMCP__P_CONTENT_LENGTH,
	WYMCP__P_HTTP_HOST,
	WYMCP__P_HTTP_ORIGIN,
	WYMCP__P_HTTP_ACCEPT,
	WYMCP__P_HTTP_MCP_PROTOCOL_VERSION,
	WYMCP__P_HTTP_MCP_METHOD,
	WYMCP__P_HTTP_MCP_NAME,
	WYMCP__P_HTTP_MCP_SESSION_ID,
	WYMCP__P_HTTP_TRACEPARENT,	/* the span's parent: detail.c */
	WYMCP__P_REMOTE_USER,
	WYMCP__P_REMOTE_ADDR,
	WYMCP__P_WYMCP_REQUEST_TIMEOUT,
	WYMCP__P_WYMCP_ALLOW_ORIGIN,
	WYMCP__P_WYMCP_RESOURCE_METADATA,
	WYMCP__P_WYMCP_LEGACY,
	WYMCP__P_WYMCP_TOOLS,
	WYMCP__P_WYMCP_PRINCIPAL,
	WYMCP__P_WYMCP_SCOPES,
	WYMCP__P_DOCUMENT_URI,		/* the path: serve/card.c */
	WYMCP__P_SCRIPT_NAME,
	WYMCP__P_PATH_INFO,
	WYMCP__P_COUNT
};
struct wymcp__params {
	const char		*v[WYMCP__P_COUNT];
	unsigned char		 n[WYMCP__P_COUNT];
	int			 assigns;	/* a WYMCP_ASSIGN_* came */
};

/* The parsed request (serve/ fills it in; everyone reads it). */
struct wymcp__request {
	char *const		*env;		/* CGI params */
	struct wymcp__params	 p;		/* the ones read, by name */
	struct json_object	*msg;		/* the parsed body */
	struct json_object	*id;		/* JSON-RPC id or NULL */
	const char		*idstr;		/* id serialized, for logs */
	const char		*method;	/* JSON-RPC method */
	struct json_object	*params;	/* params object or NULL */
	struct json_object	*meta;		/* params._meta */
	struct json_object	*caps;		/* clientCapabilities */
	struct json_object	*session_caps;	/* legacy: Mcp-Session-Id's */
	const char		*version;	/* protocolVersion */
	int			 legacy;	/* a 2025-11-25 era request */
	/* Its span (W3C trace context; detail.c), made on first use: */
	int			 traced;	/* 1: the ids below are made */
	int			 has_parent;	/* a traceparent came */
	unsigned char		 trace[16], span[8], parent[8];
	unsigned char		 trace_flags;
	const char		*traceparent;	/* ours, for tools */
};

/* Who asks, and which tools serve them (ctx.c). */
struct wymcp__who {
	struct json_object	*assigns;	/* name -> string */
	const char		*principal;	/* or NULL */
	const char		*scopes;	/* WYMCP_SCOPES, or NULL */
	const struct wymcp__tool *const *tools; /* mount list */
	size_t			 ntools;
	const unsigned char	*mount_digest;	/* its identity, or NULL */
};

/*
 * The bindings of a state as seal.c last digested them in this request,
 * and what they were digested from: round 2 opens one state and seals
 * the next with the same bindings.
 */
struct wymcp__bound {
	const char		*principal;
	const char		*method;
	const char		*name;
	const struct json_object *args;
	const void		*tools;
	unsigned char		 digest[16];
	unsigned char		 tags[4];
	int			 ok;
};

/* The round in progress (methods/call.c binds it, run.c runs it). */
struct wymcp__run;
#define WYMCP__IDEM_LEN	16	/* bytes of an idempotency key */
struct wymcp__call {
	struct json_object	*answers;	/* merged input responses */
	struct wymcp__run	*run;		/* the open run, or NULL */
	const char		*name;		/* what the state binds: */
	struct json_object	*args;		/* name and arguments */
	enum wymcp_err		 rc;		/* the handler's last return */
	int			 in_task;	/* a task runner runs it */
	const char		*task_id;	/* and its id, or NULL */
	int			 task_ok;	/* wymcp_task_start() unwinds */
	const char		*task_msg;	/* a task's last progress or
						   log line: statusMessage */
	struct wymcp__bound	 bound;		/* seal.c's bind() */
	/*
	 * The call's idempotency key: random at its first round, then
	 * carried in the requestState (or the task) it goes on with.
	 */
	unsigned char		 key[WYMCP__IDEM_LEN];
	int			 have_key;
	struct wymcp__event	*events;	/* wymcp_notify_*(): to publish */
	int			 nevents;
	const char		*builder_null;	/* "wymcp_text(): text is
						   NULL": a builder given a
						   NULL (content.c), or NULL */
	/*
	 * Why the run's last failing call failed, in a sentence the
	 * client may read (refuse.c: wymcp_refuse(), a capability not
	 * declared, wymcp_write_once()), for a handler that returns
	 * `why_rc' without saying more; reset at each run.
	 */
	const char		*why;
	enum wymcp_err		 why_rc;
	int			 why_code;	/* JSON-RPC code: refusals */
	int			 steps;		/* wymcp_progress_step()s */
};

/* An event a run published (events.c): compact JSON, in the arena. */
struct wymcp__event {
	struct wymcp__event	*next;
	const char		*json;
	size_t			 len;
};
#define WYMCP__EVENTS_MAX	64	/* events one run may publish */
#define WYMCP__URI_MAX		2048	/* bytes of a URI in an event */

/*
 * The response as it goes out (stream.c).  A request is stopped when
 * the client went away (`cancelled`: nothing more is written) or when
 * its deadline passed (`expired`: no more notifications, and the final
 * response is the time-limit error).
 */
struct wymcp__out {
	const struct wymcp_io	*io;		/* where the response goes */
	int			(*gone)(void *); /* io's, when it has one */
	int			 streaming;	/* SSE headers are out */
	int			 cancelled;	/* the client went away */
	int			 expired;	/* the deadline passed */
	long long		 deadline;	/* wymcp__clock_ms(); 0: none */
	long			 limit_ms;	/* the limit it was set from */
	int			 nomem;		/* memory ran out */
	struct json_object	*progress_token; /* _meta.progressToken */
	double			 last_progress;	/* must increase */
	int			 have_progress;	/* one was sent */
	int			 loglevel;	/* _meta logLevel, -1 none */
	/* Asking a legacy client on the held stream (held.c): */
	const struct wymcp_io	*ask_io;	/* io with ask_*, or NULL */
	const char	*(*ask_hold_as)(void *, const char *); /* or NULL */
	const char		*holder;	/* ask_hold()'s address */
	int			 holding;	/* 1 held, -1 refused, 0 */
	int			 sse_ok;	/* the client accepts SSE */
	unsigned int		 ask_timeout;	/* seconds */
	struct json_object	*asked;		/* id -> key, awaited */
	struct json_object	*got;		/* where answers go */
	const char		*refusal;	/* the client's error */
	/* A listen stream the program holds (listen.c): */
	const struct wymcp_io	*listen_io;	/* io with listen_*, or NULL */
	int			 handed;	/* the program took it */
	/* What the request was (detail.c), once made: */
	struct wymcp_request_detail *detail;
};

struct wymcp_ctx {
	struct wymcp__arena	 arena;
	struct wymcp_server	*srv;
	struct wymcp__request	 req;
	struct wymcp__who	 who;
	struct wymcp__call	 call;
	struct wymcp__out	 out;
};

/*
 * run.c: one run of a tool (or prompt or resource handler) inside the
 * boundary.  The unwind that ends a round is a longjmp to `jb`; it
 * belongs to the thread that opened the run.
 */
/*
 * An answer the run read, in the order read: what the next
 * requestState seals.  In the request's arena; key and answer are
 * ctx->call.answers' own.
 */
struct wymcp__used {
	struct wymcp__used	*next;
	const char		*key;
	struct json_object	*answer;
};

/* A question asked under a key the tool chose, in this run (ask.c). */
struct wymcp__asked {
	struct wymcp__asked	*next;
	const char		*key;
	const char		*method;	/* static */
	const char		*what;		/* message, or params JSON */
};

struct wymcp__run {
	jmp_buf			 jb;
	pthread_t		 thread;	/* the thread running it */
	unsigned int		 counter;	/* positional key counter */
	int			 batch;		/* collecting questions */
	struct json_object	*pending;	/* key -> input request */
						/* (NULL until a question
						   needs it: run.c) */
	struct wymcp__used	*used;		/* the answers read */
	struct wymcp__used	**used_end;	/* where the next goes */
	struct wymcp__asked	*asked;		/* chosen keys asked */
	const char		*fault;		/* invalid answer: -32602 */
	int			 to_task;	/* wymcp_task_start() unwound */
};

/* How a run ended. */
enum wymcp__outcome {
	WYMCP__RUN_DONE,	/* the body returned; see rc */
	WYMCP__RUN_INPUT,	/* stopped at unanswered questions */
	WYMCP__RUN_FAULT,	/* an answer was invalid (-32602) */
	WYMCP__RUN_TASK		/* wymcp_task_start(): make it a task */
};
typedef enum wymcp_err (*wymcp__body)(struct wymcp_ctx *, void *);
struct json_object *wymcp__run_pending(struct wymcp__run *);
enum wymcp__outcome wymcp__run(struct wymcp_ctx *, struct wymcp__run *,
	    wymcp__body, void *, enum wymcp_err *rc);
struct wymcp__run *wymcp__run_open(const struct wymcp_ctx *);
void	 wymcp__run_stop(struct wymcp__run *) __attribute__((noreturn));

/* ask.c: what the client answered. */
int	 wymcp__responses_ok(struct json_object *);
int	 wymcp__answer_ok(struct json_object *req, struct json_object *answer,
	    char *why, size_t len);
int	 wymcp__elicit_schema_ok(struct json_object *, char *, size_t);
enum wymcp_err wymcp__elicit_replay(struct wymcp_ctx *, unsigned int,
	    struct json_object *);
enum wymcp_err wymcp__elicit_next(struct wymcp_ctx *, const char *msg,
	    struct json_object *schema, char *why, size_t whylen);

/* shapes.c: schema.json's CreateMessageResult and ListRootsResult. */
int	 wymcp__shape_check(const char *name, struct json_object *,
	    char *err, size_t errlen);
const char *wymcp__shape_defs(void);

/* refuse.c: why a call failed (ctx->call.why); returns rc. */
enum wymcp_err wymcp__why(struct wymcp_ctx *, enum wymcp_err rc, int code,
	    const char *fmt, ...) WYMCP_PRINTF(4, 5);
const char *wymcp__why_for(const struct wymcp_ctx *, enum wymcp_err rc);

/* caps.c */
int	 wymcp__caps_missing(struct json_object *required,
	    struct json_object *declared, struct json_object **missing);

/* seal.c: sealed requestState (libsodium XChaCha20-Poly1305). */
/*
 * events.c: what wymcp_notify_*() recorded, handed to the server's
 * publish hook when the run completes (methods/call.c), or forgotten
 * when it ends at a question.
 */
void	 wymcp__events_publish(struct wymcp_ctx *);
void	 wymcp__events_forget(struct wymcp_ctx *);
const char *wymcp__seal(struct wymcp_ctx *, const struct wymcp__used *,
	    struct json_object *asked);
void	 wymcp__idem_key(struct wymcp_ctx *);
#define WYMCP__SESSION_KEY_LEN	32	/* hex characters */
int	 wymcp__session_key(struct wymcp_ctx *, char *out);
int	 wymcp__unseal(struct wymcp_ctx *, const char *token,
	    struct json_object **answers, struct json_object **asked);
/* seal.c: the sealed Mcp-Session-Id of a 2025-11-25 client. */
#define WYMCP__SESSION_TTL	86400	/* seconds a session id opens */
const char *wymcp__session_seal(struct wymcp_ctx *, const char *version,
	    struct json_object *caps);
int	 wymcp__session_open(struct wymcp_ctx *, const char *token,
	    const char **version, struct json_object **caps);
/* seal.c: the sealed id of a request asked on a held stream. */
const char *wymcp__askid_seal(struct wymcp_ctx *, const char *holder,
	    const char *key, unsigned int ttl);
int	 wymcp__askid_open(struct wymcp_ctx *, const char *token,
	    const char **holder);
/*
 * seal.c: a relayed answer, framed with a MAC under the state key for
 * its holder (wymcp__relay_frame(), arena-owned, its length in
 * *outlen), and the holder's check (wymcp__relay_open(): 0 with the
 * body, or -1 with why).
 */
const char *wymcp__relay_frame(struct wymcp_ctx *, const char *holder,
	    const char *body, size_t len, size_t *outlen);
int	 wymcp__relay_open(struct wymcp_ctx *, const char *holder,
	    const char *msg, size_t len, const char **body, size_t *blen,
	    const char **why);

/*
 * held.c: asking a 2025-11-25 client on the held stream.
 * wymcp__held_take() takes a place to hold (once a request): 1 when
 * the request may ask.  wymcp__held_ask() sends the round's pending
 * questions and waits for every answer, merged into `answers'.
 * wymcp__held_release() gives the place back.  wymcp__held_forward()
 * relays a client's POSTed response to its holder.
 */
enum wymcp__held_end {
	WYMCP__HELD_ANSWERED,	/* every question answered */
	WYMCP__HELD_TIMEOUT,	/* --ask-timeout passed */
	WYMCP__HELD_GONE,	/* the client hung up */
	WYMCP__HELD_REFUSED,	/* the client answered with an error */
	WYMCP__HELD_FAILED	/* could not ask (memory, sealing, I/O) */
};
int	 wymcp__held_take(struct wymcp_ctx *);
enum wymcp__held_end wymcp__held_ask(struct wymcp_ctx *,
	    struct json_object *pending, struct json_object *answers);
void	 wymcp__held_release(struct wymcp_ctx *);
int	 wymcp__held_forward(struct wymcp_ctx *, const char *body,
	    size_t len, const char **why);

/* result.c: what handlers build (wymcp.h); owned by the request. */
struct wymcp_result {
	struct wymcp_ctx	*ctx;
	struct json_object	*content;	/* array */
	struct json_object	*structured;	/* or NULL */
	int			 is_error;
};
struct wymcp_resource_result {
	struct wymcp_ctx	*ctx;
	const char		*uri;		/* the URI read */
	struct json_object	*contents;	/* array */
};
struct wymcp_prompt_result {
	struct wymcp_ctx	*ctx;
	struct json_object	*messages;	/* array */
	struct json_object	*description;	/* string, or NULL */
};
struct wymcp_completion {
	struct json_object	*values;	/* array of strings */
	long			 total;		/* < 0: unknown */
	int			 has_more;
	int			 told;		/* total/hasMore were given */
};
#define WYMCP__COMPLETION_MAX	100	/* values per response */
struct wymcp_result *wymcp__result_new(struct wymcp_ctx *);
void	 wymcp__result_finish(struct wymcp_result *, enum wymcp_err);

/* ctx.c: the context, rebuilt from the CGI params. */
const char *wymcp__env(char *const *env, const char *name);
int	 wymcp__env_repeated(char *const *env, const char *name,
	    int anycomma);
#define wymcp__param(ctx, k)	((ctx)->req.p.v[(k)])
int	 wymcp__param_repeated(const struct wymcp_ctx *, enum wymcp__param,
	    int anycomma);
void	 wymcp__ctx_init(struct wymcp_ctx *, struct wymcp_server *,
	    char *const *env);
void	 wymcp__ctx_free(struct wymcp_ctx *);
enum wymcp_err wymcp__ctx_assigns(struct wymcp_ctx *);
/*
 * Who makes the request, for a share of what the program holds (listen
 * streams, held questions) and for a cancel: the principal, or "addr:"
 * and the client's address (REMOTE_ADDR) without one.  Owned by the
 * request; "addr:" when out of memory.
 */
const char *wymcp__ctx_who(struct wymcp_ctx *);
enum wymcp_err wymcp__ctx_mount(struct wymcp_ctx *);
int	 wymcp__ctx_apps(const struct wymcp_ctx *);
const struct wymcp__tool *wymcp__ctx_find_tool(const struct wymcp_ctx *,
	    const char *name);
const char *wymcp__ctx_quote(struct wymcp_ctx *, const char *);
int	 wymcp__ctx_scoped(const struct wymcp_ctx *,
	    const struct wymcp__tool *);
void	 wymcp__ctx_misuse(const struct wymcp_ctx *, const char *fmt, ...)
	    WYMCP_PRINTF(2, 3);
void	 wymcp__ctx_log(const struct wymcp_ctx *, int prio,
	    const char *fmt, ...) WYMCP_PRINTF(3, 4);
void	 wymcp__ctx_publish(const struct wymcp_ctx *, int done);
/*
 * detail.c: the request's end, told to the request hook with its
 * detail when the program asked for it (wymcp_server_set_request_detail):
 * the HTTP status written (0: none), the response's body (or NULL), the
 * bytes of the body read.
 */
void	 wymcp__ctx_done(struct wymcp_ctx *, int status,
	    struct json_object *body, size_t in);
/* The detail itself, made once, owned by the request (or NULL). */
const struct wymcp_request_detail *wymcp__detail(struct wymcp_ctx *,
	    int status, struct json_object *body, size_t in);
/* detail.c: the request's span ids, made once (see wymcp.h). */
void	 wymcp__trace(struct wymcp_ctx *);
/* ctx.c: the principal as the params give it, or NULL (anonymous). */
const char *wymcp__ctx_principal(const struct wymcp_ctx *);
/* seal.c: the keyed digest of the arguments, 32 hex digits. */
int	 wymcp__args_digest(struct wymcp_ctx *, struct json_object *,
	    char *out);

/* stream.c: SSE responses (basic/transports/streamable-http.mdx). */
int	 wymcp__stream_init(struct wymcp_ctx *);
enum wymcp_err wymcp__notify(struct wymcp_ctx *, const char *method,
	    struct json_object *params);
enum wymcp_err wymcp__notify_log(struct wymcp_ctx *, int prio, char *msg);
enum wymcp_err wymcp__stream_final(struct wymcp_ctx *,
	    struct json_object *body);
enum wymcp_err wymcp__stream_message(struct wymcp_ctx *,
	    struct json_object *msg);
enum wymcp_err wymcp__stream_comment(struct wymcp_ctx *, const char *);

/*
 * stream.c: the deadline (on wymcp__clock_ms(), store/row.c) and the
 * client going away.  wymcp__stopped()
 * looks now (the clock, then io->gone) and records what it finds;
 * wymcp__expired() looks at the clock only.
 * wymcp__deadline_set() moves the deadline (0: none) and tells the
 * program (wymcp__ctx_publish()); time spent waiting for someone can be
 * left out of a request's limit by moving its deadline on.
 */
int	 wymcp__expired(struct wymcp_ctx *);
int	 wymcp__stopped(struct wymcp_ctx *);
void	 wymcp__deadline_set(struct wymcp_ctx *, long long at, long limit_ms);

#endif /* WYMCP_CORE_H */
