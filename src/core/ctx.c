/*
 * ctx.c - the per-request context, rebuilt from the web server's params
 *
 * The web server's auth modules speak to wymcp through FastCGI params:
 * WYMCP_ASSIGN_<NAME> becomes the assign <name>, REMOTE_USER the assign
 * remote_user (empty values are no assigns), WYMCP_PRINCIPAL (when
 * absent, REMOTE_USER) the principal, and WYMCP_TOOLS narrows the
 * mount list.  Client headers arrive as HTTP_* params and can never
 * become any of these.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/core.h"

#define ASSIGN_PREFIX	"WYMCP_ASSIGN_"

/*
 * The value of CGI param `name`, or NULL.  When the web server passes a
 * param twice (an include and a location both set it), the last one
 * wins, as for assigns: a location can override what an included
 * fastcgi_params set.
 */
const char *
wymcp__env(char *const *env, const char *name)
{
	const char	*v = NULL;
	size_t		 n = strlen(name);

	if (env == NULL)
		return NULL;
	for (; *env != NULL; env++)
		if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
			v = *env + n + 1;
	return v;
}

/*
 * Did the client send header param `name` (HTTP_*) more than once?  A
 * web server passes a repeated header either as two params of the same
 * name (nginx up to 1.22) or as one whose values are joined with ", "
 * (nginx 1.23 and later, Apache mod_proxy_fcgi and mod_fcgid; RFC 9110
 * section 5.3).  A value holding a comma followed by SP or HTAB reads as
 * a join; with `anycomma`, for a header whose values never hold a comma,
 * any comma does.  Returns 1 when repeated, else 0.
 */
int
wymcp__env_repeated(char *const *env, const char *name, int anycomma)
{
	const char	*v = NULL, *c;
	size_t		 n = strlen(name);

	for (; env != NULL && *env != NULL; env++) {
		if (strncmp(*env, name, n) != 0 || (*env)[n] != '=')
			continue;
		if (v != NULL)
			return 1;
		v = *env + n + 1;
	}
	for (c = v; c != NULL && (c = strchr(c, ',')) != NULL; c++)
		if (anycomma || c[1] == ' ' || c[1] == '\t')
			return 1;
	return 0;
}

/*
 * Did the client send header param k more than once?  As
 * wymcp__env_repeated(), from the table ctx_init() built.
 */
int
wymcp__param_repeated(const struct wymcp_ctx *ctx, enum wymcp__param k,
    int anycomma)
{
	const char	*c;

	if (ctx->req.p.n[k] > 1)
		return 1;
	for (c = ctx->req.p.v[k]; c != NULL && (c = strchr(c, ',')) != NULL;
	    c++)
		if (anycomma || c[1] == ' ' || c[1] == '\t')
			return 1;
	return 0;
}

/* The params the pipeline reads, by name. */
static const struct {
	const char	*name;
	size_t		 len;
} params[WYMCP__P_COUNT] = {
#define P(k, s)	[WYMCP__P_##k] = { s, sizeof(s) - 1 }
		P(REQUEST_METHOD, "REQUEST_METHOD"),
		P(CONTENT_TYPE, "CONTENT_TYPE"),
		P(CONTENT_LENGTH, "CONTENT_LENGTH"),
		P(HTTP_HOST, "HTTP_HOST"),
		P(HTTP_ORIGIN, "HTTP_ORIGIN"),
		P(HTTP_ACCEPT, "HTTP_ACCEPT"),
		P(HTTP_MCP_PROTOCOL_VERSION, "HTTP_MCP_PROTOCOL_VERSION"),
		P(HTTP_MCP_METHOD, "HTTP_MCP_METHOD"),
		P(HTTP_MCP_NAME, "HTTP_MCP_NAME"),
		P(HTTP_MCP_SESSION_ID, "HTTP_MCP_SESSION_ID"),
		P(HTTP_TRACEPARENT, "HTTP_TRACEPARENT"),
		P(REMOTE_USER, "REMOTE_USER"),
		P(REMOTE_ADDR, "REMOTE_ADDR"),
		P(WYMCP_REQUEST_TIMEOUT, "WYMCP_REQUEST_TIMEOUT"),
		P(WYMCP_ALLOW_ORIGIN, "WYMCP_ALLOW_ORIGIN"),
		P(WYMCP_RESOURCE_METADATA, "WYMCP_RESOURCE_METADATA"),
		P(WYMCP_LEGACY, "WYMCP_LEGACY"),
		P(WYMCP_TOOLS, "WYMCP_TOOLS"),
		P(WYMCP_PRINCIPAL, "WYMCP_PRINCIPAL"),
		P(WYMCP_SCOPES, "WYMCP_SCOPES"),
		P(DOCUMENT_URI, "DOCUMENT_URI"),
		P(SCRIPT_NAME, "SCRIPT_NAME"),
		P(PATH_INFO, "PATH_INFO"),
#undef P
};

/*
 * The params by the length of their names, filled once: bylen[n] holds
 * 1 + the index of each param of n bytes, then 0 (a longer name is
 * looked for one by one).  A request passes a
 * dozen variables or more; each is compared with the few of its length.
 */
#define PARAM_LEN_MAX	31
static unsigned char	 bylen[PARAM_LEN_MAX + 1][WYMCP__P_COUNT + 1];
static pthread_once_t	 bylen_once = PTHREAD_ONCE_INIT;

static void
bylen_init(void)
{
	size_t	 n, j;
	int	 k;

	for (k = 0; k < WYMCP__P_COUNT; k++) {
		if ((n = params[k].len) > PARAM_LEN_MAX)
			continue;	/* param_index() scans for it */
		for (j = 0; bylen[n][j] != 0; j++)
			continue;
		bylen[n][j] = (unsigned char)(k + 1);
	}
}

/* Which of the params the pipeline reads is `name` (n bytes)?  -1: none. */
static int
param_index(const char *name, size_t n)
{
	const unsigned char	*c;
	int			 k;

	if (n > PARAM_LEN_MAX) {
		for (k = 0; k < WYMCP__P_COUNT; k++)
			if (params[k].len == n &&
			    memcmp(params[k].name, name, n) == 0)
				return k;
		return -1;
	}
	for (c = bylen[n]; *c != 0; c++) {
		k = *c - 1;
		if (params[k].name[n - 1] == name[n - 1] &&
		    memcmp(params[k].name, name, n) == 0)
			return k;
	}
	return -1;
}

/*
 * Zero the context and bind it to the server and params: one pass over
 * the params finds those the pipeline reads (wymcp__param()).
 */
void
wymcp__ctx_init(struct wymcp_ctx *ctx, struct wymcp_server *srv,
    char *const *env)
{
	struct wymcp__params	*p = &ctx->req.p;
	const char		*eq;
	int			 k;

	pthread_once(&bylen_once, bylen_init);
	memset(ctx, 0, sizeof(*ctx));
	wymcp__arena_init(&ctx->arena);
	ctx->srv = srv;
	ctx->req.env = env;
	ctx->out.loglevel = -1;
	for (; env != NULL && *env != NULL; env++) {
		if ((eq = strchr(*env, '=')) == NULL || eq == *env)
			continue;
		if ((k = param_index(*env, (size_t)(eq - *env))) >= 0) {
			p->v[k] = eq + 1;
			if (p->n[k] < 2)
				p->n[k]++;
		} else if (strncmp(*env, ASSIGN_PREFIX,
		    sizeof(ASSIGN_PREFIX) - 1) == 0)
			p->assigns = 1;
	}
}

/* Release everything the request owns (cleanup hooks run first). */
void
wymcp__ctx_free(struct wymcp_ctx *ctx)
{
	wymcp__arena_free(&ctx->arena);
	json_object_put(ctx->req.msg);
	ctx->req.msg = NULL;
}

/*
 * Is `name` (already lower-cased) an internal name that must never be
 * visible as an assign?  "wymcp" and every "wymcp_*".
 */
static int
internal_name(const char *name)
{
	return strncmp(name, "wymcp", 5) == 0 &&
	    (name[5] == '\0' || name[5] == '_');
}

/*
 * Add one assign; a later one with the same name wins.  An empty value
 * is no assign (and removes an earlier one of that name): a web server
 * variable that is empty because nothing authenticated the request
 * must not read as a value.
 */
static enum wymcp_err
add_assign(struct wymcp_ctx *ctx, const char *name, size_t nlen,
    const char *val)
{
	char			*key;
	size_t			 i;
	struct json_object	*s;

	if (nlen == 0)
		return WYMCP_OK;
	if ((key = wymcp__arena_strndup(&ctx->arena, name, nlen)) == NULL)
		return WYMCP_ERR_NOMEM;
	for (i = 0; i < nlen; i++) {
		if (!isalnum((unsigned char)key[i]) && key[i] != '_')
			return WYMCP_OK;	/* not a name: ignored */
		key[i] = (char)tolower((unsigned char)key[i]);
	}
	if (internal_name(key))
		return WYMCP_OK;
	if (*val == '\0') {
		json_object_object_del(ctx->who.assigns, key);
		return WYMCP_OK;
	}
	if ((s = json_object_new_string(val)) == NULL)
		return WYMCP_ERR_NOMEM;
	if (json_object_object_add(ctx->who.assigns, key, s)) {
		json_object_put(s);
		return WYMCP_ERR_NOMEM;
	}
	return WYMCP_OK;
}

/*
 * Build the assigns and the principal from the params.  Only params the
 * web server sets by configuration are read; HTTP_* (client headers)
 * never are.
 */
const char *
wymcp__ctx_who(struct wymcp_ctx *ctx)
{
	const char	*a, *w;
	char		*buf;
	size_t		 n;

	/* The testing API presets assigns and principal: theirs. */
	if (ctx->who.assigns != NULL && ctx->who.principal != NULL)
		return ctx->who.principal;
	if (ctx->who.assigns == NULL &&
	    (w = wymcp__ctx_principal(ctx)) != NULL)
		return w;
	a = wymcp__param(ctx, WYMCP__P_REMOTE_ADDR);
	n = a != NULL ? strlen(a) : 0;
	if ((buf = wymcp__arena_alloc(&ctx->arena, n + 6)) == NULL)
		return "addr:";
	memcpy(buf, "addr:", 5);
	memcpy(buf + 5, a != NULL ? a : "", n + 1);
	return buf;
}

/*
 * The principal of the request's params, as wymcp__ctx_assigns() sets
 * it (WYMCP_PRINCIPAL when present, empty meaning anonymous; else
 * REMOTE_USER), without building the assigns; NULL: anonymous.
 */
const char *
wymcp__ctx_principal(const struct wymcp_ctx *ctx)
{
	const char	*p;

	if ((p = wymcp__param(ctx, WYMCP__P_WYMCP_PRINCIPAL)) == NULL)
		p = wymcp__param(ctx, WYMCP__P_REMOTE_USER);
	return p != NULL && *p != '\0' ? p : NULL;
}

enum wymcp_err
wymcp__ctx_assigns(struct wymcp_ctx *ctx)
{
	char *const	*e;
	const char	*eq, *p;
	enum wymcp_err	 rc;

	/* Built already, or preset by the testing API. */
	if (ctx->who.assigns != NULL)
		return WYMCP_OK;
	if ((ctx->who.assigns = wymcp_own(ctx,
	    json_object_new_object())) == NULL)
		return WYMCP_ERR_NOMEM;
	p = wymcp__param(ctx, WYMCP__P_REMOTE_USER);
	if (p != NULL && *p != '\0')
		if ((rc = add_assign(ctx, "remote_user", 11, p)) != WYMCP_OK)
			return rc;
	for (e = ctx->req.env; ctx->req.p.assigns && *e != NULL; e++) {
		if (strncmp(*e, ASSIGN_PREFIX, sizeof(ASSIGN_PREFIX) - 1) != 0)
			continue;
		p = *e + sizeof(ASSIGN_PREFIX) - 1;
		if ((eq = strchr(p, '=')) == NULL)
			continue;
		if ((rc = add_assign(ctx, p, (size_t)(eq - p), eq + 1)) !=
		    WYMCP_OK)
			return rc;
	}
	/*
	 * WYMCP_PRINCIPAL, when the web server passes it at all, is the
	 * principal, and empty means anonymous: a location that sets it
	 * from its auth module gets "" for a request nothing
	 * authenticated, and must not fall back to REMOTE_USER, which
	 * nginx fills from the client's own Authorization header.  Only
	 * an absent WYMCP_PRINCIPAL falls back.
	 */
	if ((p = wymcp__param(ctx, WYMCP__P_WYMCP_PRINCIPAL)) == NULL)
		p = wymcp__param(ctx, WYMCP__P_REMOTE_USER);
	ctx->who.principal = (p != NULL && *p != '\0') ? p : NULL;
	ctx->who.scopes = wymcp__param(ctx, WYMCP__P_WYMCP_SCOPES);
	return WYMCP_OK;
}

/* Registration order, for qsort. */
static int
by_order(const void *a, const void *b)
{
	const struct wymcp__tool *const *x = a, *const *y = b;

	return *x < *y ? -1 : *x > *y;
}

/*
 * Build the mount list: every registered tool (the server's own array,
 * built at load), or those WYMCP_TOOLS names, in registration order.
 * An empty WYMCP_TOOLS mounts nothing (fail closed).  Names that match
 * no tool are logged.
 */
enum wymcp_err
wymcp__ctx_mount(struct wymcp_ctx *ctx)
{
	const struct wymcp_server *srv = ctx->srv;
	const struct wymcp__tool **tools, *t;
	const char	*list, *w, *p;
	size_t		 i, n = 0, nwords = 0, len;

	if (ctx->who.tools != NULL)
		return WYMCP_OK;	/* built already */
	list = wymcp__param(ctx, WYMCP__P_WYMCP_TOOLS);
	if (list == NULL && srv->all != NULL) {
		ctx->who.tools = srv->all;
		ctx->who.ntools = srv->ntools;
		/* Their identity was computed at load. */
		ctx->who.mount_digest = srv->mount_digest;
		return WYMCP_OK;
	}
	if (list == NULL) {
		/* The index could not be built: the whole list, copied. */
		if ((tools = wymcp__arena_alloc(&ctx->arena,
		    (srv->ntools + 1) * sizeof(*tools))) == NULL)
			return WYMCP_ERR_NOMEM;
		for (i = 0; i < srv->ntools; i++)
			tools[i] = &srv->tools[i];
		ctx->who.tools = tools;
		ctx->who.ntools = srv->ntools;
		ctx->who.mount_digest = srv->mount_digest;
		return WYMCP_OK;
	}
	for (p = list; wymcp__word(&p, &len) != NULL; nwords++)
		continue;
	if ((tools = wymcp__arena_alloc(&ctx->arena,
	    (nwords + 1) * sizeof(*tools))) == NULL)
		return WYMCP_ERR_NOMEM;
	while ((w = wymcp__word(&list, &len)) != NULL) {
		if ((t = wymcp__tool_lookup(srv, w, len)) == NULL) {
			wymcp__ctx_log(ctx, WYMCP_LOG_WARNING,
			    "WYMCP_TOOLS names '%.*s', which no loaded module "
			    "provides", (int)len, w);
			continue;
		}
		for (i = 0; i < n && tools[i] != t; i++)
			continue;
		if (i == n)
			tools[n++] = t;
	}
	/* srv->tools is in registration order: so is the address order. */
	qsort(tools, n, sizeof(*tools), by_order);
	ctx->who.tools = tools;
	ctx->who.ntools = n;
	return WYMCP_OK;
}

/*
 * May this request call tool t: does its token hold every scope the
 * tool declares (struct wymcp_tool scopes, read from the registration's
 * copy)?  The token's scopes are WYMCP_SCOPES, which the web server
 * sets from its authorizer (wymcp-authz); without it the request holds
 * none, so a tool that declares scopes fails closed.
 */
int
wymcp__ctx_scoped(const struct wymcp_ctx *ctx, const struct wymcp__tool *t)
{
	const char	*need = t->decl.scopes, *have, *w;
	size_t		 n, k;

	/* Words separated by spaces only: a scope may hold a comma. */
	for (; need != NULL && *need != '\0'; need += n) {
		need += strspn(need, " ");
		if ((n = strcspn(need, " ")) == 0)
			break;
		for (have = ctx->who.scopes; have != NULL && *have != '\0';
		    have = w + k) {
			w = have + strspn(have, " ");
			k = strcspn(w, " ");
			if (k == n && strncmp(w, need, n) == 0)
				break;
		}
		if (have == NULL || *have == '\0')
			return 0;
	}
	return 1;
}

/* The mounted tool called `name`, or NULL. */
const struct wymcp__tool *
wymcp__ctx_find_tool(const struct wymcp_ctx *ctx, const char *name)
{
	const struct wymcp__tool *t;
	size_t			 i;

	if ((t = wymcp__tool_lookup(ctx->srv, name, strlen(name))) == NULL)
		return NULL;
	/* An app-only tool exists only for MCP Apps hosts. */
	if (t->app_only && !wymcp__ctx_apps(ctx))
		return NULL;
	if (ctx->who.tools == ctx->srv->all)
		return t;
	for (i = 0; i < ctx->who.ntools; i++)
		if (ctx->who.tools[i] == t)
			return t;
	return NULL;
}

/*
 * Did the request's client declare MCP Apps (ext-apps apps.mdx
 * "Client<>Server Capability Negotiation"):
 * capabilities.extensions["io.modelcontextprotocol/ui"], an object
 * whose mimeTypes, when given, names text/html;profile=mcp-app?
 */
int
wymcp__ctx_apps(const struct wymcp_ctx *ctx)
{
	struct json_object	*caps, *ext, *ui, *mt, *v;
	size_t			 i;

	/*
	 * A legacy client's session id carries it, even where req.caps is
	 * empty (the program cannot hold a stream to ask on).
	 */
	if ((caps = ctx->req.caps) == NULL ||
	    !json_object_object_get_ex(caps, "extensions", NULL))
		caps = ctx->req.session_caps;
	if (caps == NULL ||
	    !json_object_object_get_ex(caps, "extensions", &ext) ||
	    !json_object_object_get_ex(ext, WYMCP__UI_EXT, &ui) ||
	    !json_object_is_type(ui, json_type_object))
		return 0;
	if (!json_object_object_get_ex(ui, "mimeTypes", &mt) ||
	    !json_object_is_type(mt, json_type_array))
		return 1;
	for (i = 0; i < json_object_array_length(mt); i++) {
		v = json_object_array_get_idx(mt, i);
		if (json_object_is_type(v, json_type_string) &&
		    strcasecmp(json_object_get_string(v), WYMCP_APP_MIME) == 0)
			return 1;
	}
	return 0;
}

/* Public accessors. */

struct json_object *
wymcp_ctx_id(const struct wymcp_ctx *ctx)
{
	return ctx == NULL ? NULL : ctx->req.id;
}

struct json_object *
wymcp_ctx_meta(const struct wymcp_ctx *ctx)
{
	return ctx == NULL ? NULL : ctx->req.meta;
}

struct json_object *
wymcp_ctx_client_caps(const struct wymcp_ctx *ctx)
{
	return ctx == NULL ? NULL : ctx->req.caps;
}

const char *
wymcp_ctx_assign(const struct wymcp_ctx *ctx, const char *name)
{
	struct json_object	*v;

	if (ctx == NULL || ctx->who.assigns == NULL || name == NULL ||
	    !json_object_object_get_ex(ctx->who.assigns, name, &v))
		return NULL;
	return json_object_get_string(v);
}

struct json_object *
wymcp_ctx_assigns(const struct wymcp_ctx *ctx)
{
	return ctx == NULL ? NULL : ctx->who.assigns;
}

const char *
wymcp_ctx_principal(const struct wymcp_ctx *ctx)
{
	return ctx == NULL ? NULL : ctx->who.principal;
}

size_t
wymcp_ctx_ntools(const struct wymcp_ctx *ctx)
{
	return ctx == NULL ? 0 : ctx->who.ntools;
}

const struct wymcp_tool *
wymcp_ctx_tool(const struct wymcp_ctx *ctx, size_t i)
{
	if (ctx == NULL || i >= ctx->who.ntools)
		return NULL;
	return ctx->who.tools[i]->def;
}

int
wymcp_ctx_tool_for_model(const struct wymcp_ctx *ctx, size_t i)
{
	if (ctx == NULL || i >= ctx->who.ntools)
		return 0;
	return !ctx->who.tools[i]->app_only;
}

struct json_object *
wymcp_ctx_answers(const struct wymcp_ctx *ctx)
{
	return ctx == NULL ? NULL : ctx->call.answers;
}

/*
 * A NUL-terminated value of the request, quoted for a message
 * (wymcp__quote(): 64 bytes at most).  Never NULL.
 */
const char *
wymcp__ctx_quote(struct wymcp_ctx *ctx, const char *v)
{
	return wymcp__quote(&ctx->arena, v, v != NULL ? strlen(v) : 0);
}

/*
 * A misuse of the API by the request's tool that the wire lets pass: a
 * warning in the log, and an error to the testing library (its hook).
 */
void
wymcp__ctx_misuse(const struct wymcp_ctx *ctx, const char *fmt, ...)
{
	va_list	 ap;
	char	 buf[512];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	wymcp__ctx_log(ctx, WYMCP_LOG_WARNING, "%s", buf);
	if (ctx->srv != NULL && ctx->srv->misusefn != NULL)
		ctx->srv->misusefn(ctx->srv->misusearg, buf);
}

/* Log a line of this request's, tagged with its id. */
void
wymcp__ctx_log(const struct wymcp_ctx *ctx, int prio, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	wymcp__vlog(ctx->srv, ctx->req.idstr, prio, fmt, ap);
	va_end(ap);
}

/*
 * Tell the program serving the request what the request is doing (the
 * request hook, wymcp.h): its method, handler name, id and deadline,
 * and `done` once the response is written.
 */
void
wymcp__ctx_publish(const struct wymcp_ctx *ctx, int done)
{
	const struct wymcp_server	*srv = ctx->srv;
	struct wymcp_request_info	 info;

	if (srv == NULL || srv->reqfn == NULL)
		return;
	memset(&info, 0, sizeof(info));
	info.method = ctx->req.method;
	info.name = ctx->call.name;
	info.reqid = ctx->req.idstr;
	info.deadline_ms = ctx->out.deadline;
	info.done = done;
	info.nomem = ctx->out.nomem;
	srv->reqfn(srv->reqarg, &info);
}
