/*
 * wymcp_testing.h - run tools, prompts and resources without a web
 * server, round by round or whole calls
 *
 * For tool authors' own tests (Check or anything else), in the library
 * libwymcp-testing (pkg-config wymcp-testing), which carries the whole
 * framework.  Build a context as the framework would from a request;
 * run one round of a tool (or prompt, or resource read) through the
 * same checks the wire makes, and see either its complete result or
 * the question it stopped on; or drive a whole call, round after
 * round, through the real request pipeline, answering each question
 * from a callback.  See wymcp_testing(3).
 */
#ifndef WYMCP_TESTING_H
#define WYMCP_TESTING_H

#include <wymcp.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/* A _meta whose client declares form elicitation. */
#define WYMCP_TESTING_META_ELICIT					\
	"{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","	\
	"\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}"
/* A _meta whose client declares nothing. */
#define WYMCP_TESTING_META_NONE						\
	"{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","	\
	"\"io.modelcontextprotocol/clientCapabilities\":{}}"

/* What the context is built from.  Every member may be NULL. */
struct wymcp_testing_opts {
	const char	*assigns;	/* JSON object: name -> string */
	const char	*principal;	/* the authenticated principal */
	const char	*meta;		/* the request's _meta (JSON); NULL:
					   a context that never reached the
					   wire, so no capabilities */
	const char	*answers;	/* JSON object preset as the answers,
					   e.g. {"elicit-1":{"action":…}} */
	const struct wymcp_module *const *mount; /* NULL-terminated
					   modules forming the mount list */
	const char	*scopes;	/* the token's OAuth scopes, space-
					   separated, as WYMCP_SCOPES */
};

/* How a round ended. */
enum wymcp_testing_kind {
	WYMCP_TESTING_COMPLETE,		/* the tool returned */
	WYMCP_TESTING_INPUT_REQUIRED,	/* it stopped at a question */
	WYMCP_TESTING_INVALID,		/* the call was refused (-32602):
					   bad arguments or an answer that
					   does not fit its question */
	WYMCP_TESTING_ERROR		/* any other JSON-RPC error: a
					   capability the meta lacks
					   (-32021), a structured result
					   that breaks the output schema
					   (-32603), ...; see code */
};

/* One round's outcome.  Everything is owned by the context. */
struct wymcp_testing_round {
	enum wymcp_testing_kind	 kind;
	enum wymcp_err		 rc;		/* the tool's return value;
					   WYMCP_ERR_PENDING when it
					   stopped at a question,
					   WYMCP_ERR_INVAL when refused */
	struct json_object	*result;	/* CallToolResult, complete */
	int			 is_error;	/* result has isError */
	const char		*text;		/* first text block or NULL */
	struct json_object	*input_requests; /* key -> request */
	const char		*key;		/* first question's key */
	const char		*method;	/* its method */
	const char		*message;	/* its message (elicitation) */
	struct json_object	*schema;	/* its requestedSchema */
	const char		*error;		/* why, when INVALID or ERROR */
	int			 code;		/* JSON-RPC code, or 0 */
	const char		*request_state;	/* sealed state, or NULL */
	int			 rounds;	/* requests a whole call took */
	struct json_object	*response;	/* the JSON-RPC response */
};

/*
 * A context as the framework builds it.  NULL on failure (a module of
 * the mount list refused, bad JSON in the options, allocation):
 * wymcp_testing_errmsg() says which.  Caller frees with
 * wymcp_testing_free_context().
 */
struct wymcp_ctx *wymcp_testing_build_context(
		    const struct wymcp_testing_opts *);
void		 wymcp_testing_free_context(struct wymcp_ctx *);
/*
 * Run one round of `tool` with `args_json` (NULL: {}) inside the run
 * boundary.  Returns WYMCP_OK when *round was filled, whatever the
 * round's outcome, except WYMCP_ERR_INVAL, with *round filled too,
 * when the tool misused a question key (asked one twice, or for
 * another question: the wire lets it pass with a warning); a tool
 * declared alone that the loader would refuse gives the loader's code
 * (WYMCP_ERR_SCHEMA, WYMCP_ERR_INVAL).  See wymcp_testing_errmsg().
 */
enum wymcp_err	 wymcp_testing_run_tool(struct wymcp_ctx *,
		    const struct wymcp_tool *tool, const char *args_json,
		    struct wymcp_testing_round *round);
/* Add (or replace) the answer for `key`, as a client retry would. */
enum wymcp_err	 wymcp_testing_answer(struct wymcp_ctx *, const char *key,
		    const char *answer_json);
/*
 * One round of prompts/get of a mounted module's prompt `name` with
 * `args_json` (NULL: {}), and of resources/read of `uri`; as
 * wymcp_testing_run_tool().  `text` is the first message's text, or the
 * first contents entry's.
 */
enum wymcp_err	 wymcp_testing_get_prompt(struct wymcp_ctx *,
		    const char *name, const char *args_json,
		    struct wymcp_testing_round *round);
enum wymcp_err	 wymcp_testing_read_resource(struct wymcp_ctx *,
		    const char *uri, struct wymcp_testing_round *round);

/*
 * The in-memory client.  wymcp_testing_call_tool() sends tools/call for
 * the mounted tool `name` through the whole request pipeline (the HTTP
 * rules, the headers a 2026-07-28 client sends, the context's meta,
 * principal and assigns as the web server would pass them, sealing and
 * opening requestState), and answers every input request with
 * answer(arg, key, request) until the call completes or is refused.
 * `request` is the InputRequest ({"method":…,"params":…}, owned by the
 * context); answer returns the answer's JSON text (copied at once), or
 * NULL to stop there: the round then reads INPUT_REQUIRED.  At most
 * WYMCP_TESTING_MAX_ROUNDS requests.  Returns WYMCP_OK when *round was
 * filled (round->rounds says how many requests were made),
 * WYMCP_ERR_INVAL for a bad argument or an answer that is not a JSON
 * object, WYMCP_ERR_IO when the response could not be read.
 */
typedef const char *(*wymcp_testing_answer_fn)(void *arg, const char *key,
    struct json_object *request);
#define WYMCP_TESTING_MAX_ROUNDS	32
enum wymcp_err	 wymcp_testing_call_tool(struct wymcp_ctx *,
		    const char *name, const char *args_json,
		    wymcp_testing_answer_fn answer, void *arg,
		    struct wymcp_testing_round *round);

/*
 * Why the last wymcp_testing_* call of this thread went wrong (0.4):
 * the first line the server logged at warning level or worse during
 * it (a module refused, a result that breaks its outputSchema and how,
 * a builder given NULL, a question key misused, ...), the loader's
 * message for a refused module or tool, or else a sentence of the
 * testing library's (a bad argument, JSON that does not parse); "" when
 * nothing went wrong.  Never NULL.  Thread-local storage, valid until
 * the thread's next wymcp_testing_* call.
 */
const char	*wymcp_testing_errmsg(void);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif /* WYMCP_TESTING_H */
