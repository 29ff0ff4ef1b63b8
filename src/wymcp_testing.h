/*
 * wymcp_testing.h - run tools without a web server, round by round
 *
 * For tool authors' own tests (Check or anything else): build a context
 * as the framework would from a request, run one round of a tool inside
 * the run boundary, and see either its complete result or the question
 * it stopped on.  Answer the question and run again to walk a tool
 * through all its rounds.  See wymcp_testing(3).
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
};

/* How a round ended. */
enum wymcp_testing_kind {
	WYMCP_TESTING_COMPLETE,		/* the tool returned */
	WYMCP_TESTING_INPUT_REQUIRED,	/* it stopped at a question */
	WYMCP_TESTING_INVALID		/* the call was refused (-32602):
					   bad arguments or an answer that
					   does not fit its question */
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
	const char		*error;		/* why, when INVALID */
};

/*
 * A context as the framework builds it.  NULL on failure (bad JSON in
 * the options, allocation).  Caller frees with
 * wymcp_testing_free_context().
 */
struct wymcp_ctx *wymcp_testing_build_context(
		    const struct wymcp_testing_opts *);
void		 wymcp_testing_free_context(struct wymcp_ctx *);
/*
 * Run one round of `tool` with `args_json` (NULL: {}) inside the run
 * boundary.  Returns WYMCP_OK when *round was filled, whatever the
 * round's outcome.
 */
enum wymcp_err	 wymcp_testing_run_tool(struct wymcp_ctx *,
		    const struct wymcp_tool *tool, const char *args_json,
		    struct wymcp_testing_round *round);
/* Add (or replace) the answer for `key`, as a client retry would. */
enum wymcp_err	 wymcp_testing_answer(struct wymcp_ctx *, const char *key,
		    const char *answer_json);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif /* WYMCP_TESTING_H */
