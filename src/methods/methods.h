/*
 * methods.h - the MCP methods, the one call core and the replies
 *
 * A method fills a struct wymcp__reply; the pipeline (serve/) writes
 * it.  Every error a method answers goes through wymcp__reply_err() or
 * wymcp__reply_error(), every result through wymcp__reply_result().
 */
#ifndef WYMCP_METHODS_H
#define WYMCP_METHODS_H

#include "core/core.h"

/* reply.c */
struct wymcp__reply {
	int			 status;	/* HTTP status */
	struct json_object	*body;		/* full JSON-RPC response */
	const char		*session;	/* Mcp-Session-Id, or NULL */
	const char		*challenge;	/* WWW-Authenticate, or NULL */
	int			 retry_after;	/* Retry-After seconds, 0 */
};
void	 wymcp__reply_error(struct wymcp_ctx *, struct wymcp__reply *,
	    int status, int code, const char *message,
	    struct json_object *data);
void	 wymcp__reply_err(struct wymcp_ctx *, struct wymcp__reply *,
	    enum wymcp_err, const char *subject, const char *message);
void	 wymcp__reply_nomem(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__reply_store_down(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__reply_invalid(struct wymcp_ctx *, struct wymcp__reply *,
	    const char *message);
void	 wymcp__reply_no_method(struct wymcp_ctx *, struct wymcp__reply *,
	    int status);
void	 wymcp__reply_scope(struct wymcp_ctx *, struct wymcp__reply *,
	    const struct wymcp__tool *);
struct json_object *wymcp__result_object(void);
void	 wymcp__reply_result(struct wymcp_ctx *, struct wymcp__reply *,
	    struct json_object *result);
void	 wymcp__cache_hints(struct json_object *, int private);
void	 wymcp__cache_hints_ttl(struct json_object *, int64_t ttl,
	    int private);

/* table.c: the methods of each era. */
struct wymcp__method {
	const char	*name;
	const char	*name_param;	/* params member Mcp-Name mirrors */
	void		(*fn)(struct wymcp_ctx *, struct wymcp__reply *);
};
const struct wymcp__method *wymcp__method_find(const char *);
const struct wymcp__method *wymcp__legacy_method_find(const char *);

/* discover.c: versions and capabilities. */
int	 wymcp__legacy_on(const struct wymcp_ctx *);
int	 wymcp__legacy_version(const char *);
const char *wymcp__legacy_latest(void);
struct json_object *wymcp__supported_versions(const struct wymcp_ctx *);
struct json_object *wymcp__server_caps(const struct wymcp_server *,
	    int modern);
void	 wymcp__discover(struct wymcp_ctx *, struct wymcp__reply *);

/*
 * call.c: the one call core.  wymcp__round() runs one round of a
 * handler and replies unless the handler returned (1: the caller
 * replies with *rc).  wymcp__tool_call() is tools/call after the tool
 * was found: every check the wire makes, the run, and the reply.
 */
int	 wymcp__round(struct wymcp_ctx *, struct wymcp__reply *,
	    const char *, struct json_object *, wymcp__body, void *,
	    enum wymcp_err *);
void	 wymcp__tool_call(struct wymcp_ctx *, struct wymcp__reply *,
	    const struct wymcp__tool *, struct json_object *args);
struct json_object *wymcp__call_result(struct wymcp_result *);

/*
 * taskmake.c: the tasks extension (io.modelcontextprotocol/tasks):
 * does the request declare it, the -32021 for one that does not, a new
 * task for a tools/call, and a task as the wire shows it.
 */
#define WYMCP__TASKS_EXT	"io.modelcontextprotocol/tasks"
int	 wymcp__tasks_declared(const struct wymcp_ctx *);
void	 wymcp__reply_tasks_missing(struct wymcp_ctx *, struct wymcp__reply *,
	    const char *message);
void	 wymcp__task_create(struct wymcp_ctx *, struct wymcp__reply *,
	    const char *tool, struct json_object *args);
struct json_object *wymcp__task_object(const struct wymcp__task *,
	    const char *result_type, int detailed);

/* task.c: tasks/get, update, cancel; subscriptions/listen (taskIds). */
void	 wymcp__tasks_get(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__tasks_update(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__tasks_cancel(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__legacy_get(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__listen_cancelled(struct wymcp_ctx *);
void	 wymcp__subscriptions_listen(struct wymcp_ctx *,
	    struct wymcp__reply *);

/* list.c: pagination (server/utilities/pagination.mdx). */
struct wymcp__list {
	const char	*kind;		/* result member: "tools", ... */
	size_t		 n;		/* entries */
	void		(*at)(const void *arg, size_t i,
			    struct json_object **listing,
			    const unsigned char **digest);
	const void	*arg;
	int64_t		 ttl;		/* ttlMs, the same on every page */
	int		 private;	/* cacheScope, likewise */
	const unsigned char *id;	/* 32 bytes naming the entries in
					   order (a mount digest), or NULL:
					   hash their digests */
};
void	 wymcp__list_reply(struct wymcp_ctx *, struct wymcp__reply *,
	    const struct wymcp__list *);

/* tools.c, resources.c, prompts.c, complete.c, legacy.c: methods. */
void	 wymcp__tools_list(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__tools_call(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__resources_list(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__templates_list(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__resources_read(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__prompts_list(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__prompts_get(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__complete(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__initialize(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__ping(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__set_level(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__subscribe(struct wymcp_ctx *, struct wymcp__reply *);

/* skills.c: the skills extension (io.modelcontextprotocol/skills). */
#define WYMCP__SKILLS_EXT	"io.modelcontextprotocol/skills"
void	 wymcp__skills_list(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__skills_get(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__directory_read(struct wymcp_ctx *, struct wymcp__reply *);
const struct wymcp__skill_file *wymcp__skill_file_find(
	    const struct wymcp_server *, const char *uri);
void	 wymcp__skill_read(struct wymcp_ctx *, struct wymcp__reply *,
	    const struct wymcp__skill_file *);

#endif /* WYMCP_METHODS_H */
