/*
 * serve.h - the request pipeline: HTTP rules, envelope, headers, era
 *
 * wymcp_server_serve() (serve.c) takes a request from the web server to
 * a method of methods/ and writes the reply.
 */
#ifndef WYMCP_SERVE_H
#define WYMCP_SERVE_H

#include "methods/methods.h"

/* http.c: HTTP-level rules (basic/transports/streamable-http.mdx). */
int	 wymcp__host_allowed(const struct wymcp_server *, const char *host,
	    const char *extra);
int	 wymcp__origin_allowed(const struct wymcp_server *, const char *origin,
	    const char *extra);
int	 wymcp__content_type_ok(const char *);
const char *wymcp__status_text(int status);

/*
 * card.c: the server card at <endpoint>/server-card (experimental).
 * wymcp__card() answers it: 1 when it wrote the response, -1 when the
 * write failed, 0 with an error in the reply (and *allow, for a 405).
 */
int	 wymcp__card_wanted(struct wymcp_ctx *);
int	 wymcp__card(struct wymcp_ctx *, struct wymcp__reply *,
	    const char **allow);

/* envelope.c: JSON-RPC 2.0 envelope and MCP _meta rules. */
int	 wymcp__envelope(struct json_object *msg, struct json_object **id,
	    const char **method, const char **why);
int	 wymcp__meta(struct json_object *params, struct json_object **meta,
	    const char **version, struct json_object **caps,
	    const char **why);

/* era.c: 2026-07-28 or 2025-11-25 (2026-07-28 versioning.mdx). */
enum wymcp__era {
	WYMCP__ERA_MODERN,	/* 2026-07-28: the _meta pipeline */
	WYMCP__ERA_LEGACY,	/* 2025-11-25 and older */
	WYMCP__ERA_REFUSE	/* no era serves it: 400, -32022 */
};
enum wymcp__era wymcp__era(struct wymcp_ctx *);
void	 wymcp__era_refuse(struct wymcp_ctx *, struct wymcp__reply *);
void	 wymcp__legacy_dispatch(struct wymcp_ctx *, struct wymcp__reply *);
int	 wymcp__legacy_session(struct wymcp_ctx *, struct wymcp__reply *);

/* xparams.c: Mcp-Param-* per request. */
const char *wymcp__xparams_check(struct wymcp_ctx *,
	    const struct wymcp__tool *, struct json_object *args,
	    int present_only);

#endif /* WYMCP_SERVE_H */
