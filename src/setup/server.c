/*
 * server.c - the server object and its settings
 *
 * One per process, built before the accept loop and read-only once
 * requests are served.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "setup/setup.h"


struct wymcp_server *
wymcp_server_new(void)
{
	struct wymcp_server	*srv;

	if ((srv = calloc(1, sizeof(*srv))) == NULL)
		return NULL;
	srv->max_body = WYMCP_MAX_BODY_DEFAULT;
	srv->logmax = -1;
	srv->state_ttl = WYMCP_STATE_TTL_DEFAULT;
	srv->legacy = 1;
	srv->exec_uid = srv->exec_gid = -1;
	if (wymcp__keys_random(srv))
		goto fail;
	/* serverInfo, written into every result: frozen (meta.c). */
	if (wymcp__server_info_build(srv) != WYMCP_OK)
		goto fail;
	return srv;
fail:
	wymcp_server_free(srv);
	return NULL;
}

void
wymcp_server_free(struct wymcp_server *srv)
{
	size_t	 i;

	if (srv == NULL)
		return;
	wymcp__modules_free(srv);
	wymcp__skills_free(srv);
	wymcp__execs_free(srv);
	/* The store layer is above this one: it left its destructor. */
	if (srv->tasks_free != NULL)
		srv->tasks_free(srv->tasks);
	for (i = 0; i < srv->nmemo; i++) {
		free(srv->memo[i].text);
		json_object_put(srv->memo[i].schema);
		free(srv->memo[i].msg);
		json_object_put(srv->memo[i].question);
	}
	for (i = 0; i < srv->norigins; i++) {
		free(srv->origins[i].origin);
		free(srv->origins[i].host);
	}
	free(srv->origins);
	json_object_put(srv->result_meta);
	json_object_put(srv->info_set);
	wymcp__card_free(srv);
	free(srv->instructions_set);
	free(srv->instructions);
	if (srv->keys != NULL)
		explicit_bzero(srv->keys, srv->nkeys * sizeof(*srv->keys));
	free(srv->keys);
	free(srv->readbuf);
	wymcp__json_memo_free(&srv->metamemo);
	wymcp__buf_free(&srv->writebuf);
	free(srv);
}

const char *
wymcp_server_errmsg(const struct wymcp_server *srv)
{
	return srv == NULL ? "no server" : srv->errmsg;
}

enum wymcp_err
wymcp_server_allow_origin(struct wymcp_server *srv, const char *origin)
{
	struct wymcp__origin	*no, o;
	const char		*h, *e;
	size_t			 i;

	if (srv == NULL || origin == NULL || *origin == '\0' ||
	    !wymcp__header_chars_ok(origin) || strpbrk(origin, " \t") != NULL) {
		if (srv != NULL)
			wymcp__seterr(srv, "invalid origin");
		return WYMCP_ERR_INVAL;
	}
	memset(&o, 0, sizeof(o));
	if ((h = strstr(origin, "://")) != NULL) {
		h += 3;
		if (*h == '[')
			e = strchr(h, ']') == NULL ? h : strchr(h, ']') + 1;
		else
			for (e = h; *e != '\0' && *e != ':' && *e != '/'; e++)
				continue;
		if (e == h || (*e != '\0' && *e != ':')) {
			wymcp__seterr(srv, "%s: an origin is scheme://host"
			    "[:port] with no path", origin);
			return WYMCP_ERR_INVAL;
		}
		o.origin = strdup(origin);
		o.host = strndup(h, (size_t)(e - h));
		if (o.origin == NULL)
			goto nomem;
	} else
		o.host = strdup(origin);
	if (o.host == NULL)
		goto nomem;
	for (i = 0; o.host[i] != '\0'; i++)
		o.host[i] = (char)tolower((unsigned char)o.host[i]);
	no = reallocarray(srv->origins, srv->norigins + 1, sizeof(*no));
	if (no == NULL)
		goto nomem;
	srv->origins = no;
	no[srv->norigins++] = o;
	return WYMCP_OK;
nomem:
	free(o.origin);
	free(o.host);
	wymcp__seterr(srv, "out of memory");
	return WYMCP_ERR_NOMEM;
}

void
wymcp_server_set_file_check(struct wymcp_server *srv,
    wymcp_file_check_fn check, void *arg)
{
	if (srv == NULL)
		return;
	srv->filecheck = check;
	srv->filecheck_arg = arg;
}

void
wymcp_server_set_max_body(struct wymcp_server *srv, size_t max)
{
	if (srv != NULL)
		srv->max_body = max;
}

void
wymcp_server_set_log(struct wymcp_server *srv, wymcp_log_fn fn, void *arg,
    int maxprio)
{
	if (srv == NULL)
		return;
	srv->logfn = fn;
	srv->logarg = arg;
	srv->logmax = fn == NULL ? -1 : maxprio;
}

void
wymcp_server_set_request_timeout(struct wymcp_server *srv, unsigned long ms)
{
	if (srv != NULL)
		srv->timeout_ms = ms;
}

void
wymcp_server_set_request_fn(struct wymcp_server *srv, wymcp_request_fn fn,
    void *arg)
{
	if (srv == NULL)
		return;
	srv->reqfn = fn;
	srv->reqarg = fn != NULL ? arg : NULL;
}

void
wymcp_server_set_request_detail(struct wymcp_server *srv, int flags)
{
	if (srv != NULL)
		srv->reqdetail = flags & (WYMCP_DETAIL_HOOK |
		    WYMCP_DETAIL_HEADERS | WYMCP_DETAIL_TRACE |
		    WYMCP_DETAIL_OUTCOME);
}

void
wymcp_server_set_admit_fn(struct wymcp_server *srv, wymcp_admit_fn fn,
    void *arg)
{
	if (srv == NULL)
		return;
	srv->admitfn = fn;
	srv->admitarg = fn != NULL ? arg : NULL;
}

/* The list page size; 0 means WYMCP_PAGE_SIZE_DEFAULT. */
void
wymcp_server_set_page_size(struct wymcp_server *srv, size_t n)
{
	if (srv != NULL)
		srv->page_size = n;
}

void
wymcp_server_set_legacy(struct wymcp_server *srv, int on)
{
	if (srv != NULL)
		srv->legacy = on != 0;
}

/*
 * A catalogue: what a reload compares (wymcp_server_catalogue()): each
 * tool's name and the digest of its listing, and one digest of each
 * other list.
 */
struct wymcp_catalogue {
	size_t		  ntools;
	char		**names;
	unsigned char	(*digests)[32];
	unsigned char	  prompts[32];
	unsigned char	  resources[32];
};

/* One digest of the listings of `n' entries `stride' bytes apart. */
static void
list_digest(unsigned char *out, const void *first, size_t n, size_t stride,
    size_t off)
{
	crypto_generichash_state	 st;
	size_t				 i;

	(void)crypto_generichash_init(&st, NULL, 0, 32);
	for (i = 0; i < n; i++)
		(void)crypto_generichash_update(&st, (const unsigned char *)
		    first + i * stride + off, 32);
	(void)crypto_generichash_final(&st, out, 32);
}

void
wymcp_catalogue_free(struct wymcp_catalogue *c)
{
	size_t	 i;

	if (c == NULL)
		return;
	for (i = 0; i < c->ntools; i++)
		free(c->names[i]);
	free(c->names);
	free(c->digests);
	free(c);
}

struct wymcp_catalogue *
wymcp_server_catalogue(const struct wymcp_server *srv)
{
	struct wymcp_catalogue	*c;
	crypto_generichash_state st;
	unsigned char		 a[32], b[32];
	size_t			 i;

	if (srv == NULL || wymcp__tools_digest(srv) != WYMCP_OK ||
	    (c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	if (srv->ntools > 0 && ((c->names = calloc(srv->ntools,
	    sizeof(*c->names))) == NULL || (c->digests = calloc(srv->ntools,
	    sizeof(*c->digests))) == NULL))
		goto fail;
	for (i = 0; i < srv->ntools; i++) {
		if ((c->names[i] = strdup(srv->tools[i].def->name)) == NULL)
			goto fail;
		c->ntools++;
		memcpy(c->digests[i], srv->tools[i].digest, 32);
	}
	list_digest(c->prompts, srv->prompts, srv->nprompts,
	    sizeof(*srv->prompts), offsetof(struct wymcp__prompt, digest));
	list_digest(a, srv->resources, srv->nresources,
	    sizeof(*srv->resources), offsetof(struct wymcp__resource, digest));
	list_digest(b, srv->templates, srv->ntemplates,
	    sizeof(*srv->templates), offsetof(struct wymcp__resource, digest));
	(void)crypto_generichash_init(&st, NULL, 0, 32);
	(void)crypto_generichash_update(&st, a, 32);
	(void)crypto_generichash_update(&st, b, 32);
	(void)crypto_generichash_final(&st, c->resources, 32);
	return c;
fail:
	wymcp_catalogue_free(c);
	return NULL;
}

/* The index of tool `name' in `c', or c->ntools. */
static size_t
find_tool(const struct wymcp_catalogue *c, const char *name)
{
	size_t	 i;

	for (i = 0; i < c->ntools; i++)
		if (strcmp(c->names[i], name) == 0)
			break;
	return i;
}

/* Name `name' in the array `names' unless it is there already. */
static void
name_tool(struct json_object *names, const char *name)
{
	size_t	 i;

	for (i = 0; i < json_object_array_length(names); i++)
		if (strcmp(json_object_get_string(
		    json_object_array_get_idx(names, i)), name) == 0)
			return;
	json_object_array_add(names, json_object_new_string(name));
}

char *
wymcp_catalogue_changes(const struct wymcp_catalogue *before,
    const struct wymcp_catalogue *after)
{
	struct json_object	*o, *lists, *names;
	const char		*s;
	char			*out = NULL;
	size_t			 i, k;

	if (before == NULL || after == NULL ||
	    (o = json_object_new_object()) == NULL)
		return NULL;
	lists = json_object_new_array();
	names = json_object_new_array();
	/* Tools: each added, removed or changed, by name. */
	for (i = 0; i < after->ntools; i++)
		if ((k = find_tool(before, after->names[i])) ==
		    before->ntools || memcmp(before->digests[k],
		    after->digests[i], 32) != 0)
			name_tool(names, after->names[i]);
	for (i = 0; i < before->ntools; i++)
		if (find_tool(after, before->names[i]) == after->ntools)
			name_tool(names, before->names[i]);
	if (json_object_array_length(names) > 0)
		json_object_array_add(lists, json_object_new_string("tools"));
	if (memcmp(before->prompts, after->prompts, 32) != 0)
		json_object_array_add(lists, json_object_new_string("prompts"));
	if (memcmp(before->resources, after->resources, 32) != 0)
		json_object_array_add(lists,
		    json_object_new_string("resources"));
	if (json_object_array_length(lists) > 0) {
		json_object_object_add(o, "v", json_object_new_int(1));
		json_object_object_add(o, "k", json_object_new_string("list"));
		json_object_object_add(o, "lists", json_object_get(lists));
		if (json_object_array_length(names) > 0)
			json_object_object_add(o, "tools",
			    json_object_get(names));
		if ((s = json_object_to_json_string_ext(o,
		    JSON_C_TO_STRING_PLAIN)) != NULL)
			out = strdup(s);
	}
	json_object_put(lists);
	json_object_put(names);
	json_object_put(o);
	return out;
}
