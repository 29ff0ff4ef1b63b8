/*
 * discover.c - server/discover, the versions and the capabilities
 *
 * MCP 2026-07-28 server/discover.mdx; the same capabilities answer a
 * 2025-11-25 initialize (methods/legacy.c).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "methods/methods.h"

/* The legacy versions, newest first: the first is the default answer. */
static const char *const legacy_versions[] = {
	"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"
};
#define NLEGACY	(sizeof(legacy_versions) / sizeof(legacy_versions[0]))

/*
 * Is the legacy era served for this request?  The server's setting,
 * unless the web server says otherwise for this location with the
 * FastCGI param WYMCP_LEGACY ("on" or "off"; clients cannot set it:
 * their headers arrive as HTTP_*).
 */
int
wymcp__legacy_on(const struct wymcp_ctx *ctx)
{
	const char	*v = wymcp__param(ctx, WYMCP__P_WYMCP_LEGACY);

	if (v != NULL && strcmp(v, "off") == 0)
		return 0;
	if (v != NULL && strcmp(v, "on") == 0)
		return 1;
	return ctx->srv->legacy;
}

/* Is `v` one of the legacy versions wymcp serves? */
int
wymcp__legacy_version(const char *v)
{
	size_t	 i;

	for (i = 0; v != NULL && i < NLEGACY; i++)
		if (strcmp(v, legacy_versions[i]) == 0)
			return 1;
	return 0;
}

/*
 * Every version this request's server supports: 2026-07-28, then the
 * legacy ones when their era is on.  server/discover's supportedVersions
 * and every -32022's data.supported, so that the two always agree.
 */
struct json_object *
wymcp__supported_versions(const struct wymcp_ctx *ctx)
{
	struct json_object	*a;
	size_t			 i;

	if ((a = json_object_new_array()) == NULL)
		return NULL;
	json_object_array_add(a,
	    json_object_new_string(WYMCP_PROTOCOL_VERSION));
	if (wymcp__legacy_on(ctx))
		for (i = 0; i < NLEGACY; i++)
			json_object_array_add(a,
			    json_object_new_string(legacy_versions[i]));
	return a;
}

/*
 * What this server offers (server/discover.mdx; the same object is the
 * legacy initialize's capabilities): listChanged for each list and
 * resources.subscribe when the program delivers events to listen
 * streams (wymcp_server_set_publish(): wymcp-fcgi's hub), a 2025-11-25
 * client's on its GET stream.  logging: tools' wymcp_log() lines reach
 * clients that ask with _meta logLevel (and legacy clients, from info
 * up).  `modern` (server/discover) adds the tasks extension when there
 * is a store; MCP Apps is declared in both when a ui:// resource is.
 * A new object, NULL when out of memory.
 */
/* {} or {"listChanged":true} (and `also': true), for a capability. */
static struct json_object *
flags(int push, const char *also)
{
	struct json_object	*o;

	if ((o = json_object_new_object()) == NULL || !push)
		return o;
	json_object_object_add(o, "listChanged", json_object_new_boolean(1));
	if (also != NULL)
		json_object_object_add(o, also, json_object_new_boolean(1));
	return o;
}

struct json_object *
wymcp__server_caps(const struct wymcp_server *srv, int modern)
{
	struct json_object	*caps, *ext, *sk;
	int			 push;

	if ((caps = json_object_new_object()) == NULL)
		return NULL;
	push = srv->publish != NULL;
	json_object_object_add(caps, "tools", flags(push, NULL));
	if (srv->nresources > 0 || srv->ntemplates > 0)
		json_object_object_add(caps, "resources", flags(push,
		    "subscribe"));
	if (srv->nprompts > 0)
		json_object_object_add(caps, "prompts", flags(push, NULL));
	if (srv->nprompts > 0 || srv->ntemplates > 0 || srv->ncompleters > 0)
		json_object_object_add(caps, "completions",
		    json_object_new_object());
	json_object_object_add(caps, "logging", json_object_new_object());
	/*
	 * The tasks extension, with a store to keep tasks in; the skills
	 * extension, with skills (and so the resources capability).  MCP
	 * Apps, with a ui:// resource, in both eras: apps.mdx negotiates
	 * it with the extensions of an initialize too (SEP-1724).
	 */
	if ((modern && (srv->tasks != NULL || srv->skills.nskills > 0)) ||
	    srv->napps > 0) {
		ext = json_object_new_object();
		if (modern && srv->tasks != NULL)
			json_object_object_add(ext, WYMCP__TASKS_EXT,
			    json_object_new_object());
		if (modern && srv->skills.nskills > 0 && (sk =
		    json_object_new_object()) != NULL) {
			json_object_object_add(sk, "directoryRead",
			    json_object_new_boolean(1));
			json_object_object_add(ext, WYMCP__SKILLS_EXT, sk);
		}
		if (srv->napps > 0)
			json_object_object_add(ext, WYMCP__UI_EXT,
			    json_object_new_object());
		json_object_object_add(caps, "extensions", ext);
	}
	return caps;
}

/*
 * server/discover: the versions and capabilities of this server.  The
 * answer is the same for every client, so it is publicly cacheable.
 * supportedVersions names the legacy versions too when their era is
 * on (legacy.c): a client reaches those with initialize.  The
 * instructions are the modules' or the operator's (setup/meta.c).
 */
void
wymcp__discover(struct wymcp_ctx *ctx, struct wymcp__reply *r)
{
	struct json_object	*res;

	if ((res = wymcp__result_object()) == NULL)
		goto nomem;
	json_object_object_add(res, "supportedVersions",
	    wymcp__supported_versions(ctx));
	json_object_object_add(res, "capabilities",
	    wymcp__server_caps(ctx->srv, 1));
	if (ctx->srv->instructions != NULL && wymcp__put_str(res,
	    "instructions", ctx->srv->instructions)) {
		json_object_put(res);
		goto nomem;
	}
	wymcp__cache_hints(res, 0);
	wymcp__reply_result(ctx, r, res);
	return;
nomem:
	wymcp__reply_result(ctx, r, NULL);
}

/* The newest legacy version: initialize's answer to an unknown one. */
const char *
wymcp__legacy_latest(void)
{
	return legacy_versions[0];
}
