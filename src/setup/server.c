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
	struct json_object	*info = NULL;

	if ((srv = calloc(1, sizeof(*srv))) == NULL)
		return NULL;
	srv->max_body = WYMCP_MAX_BODY_DEFAULT;
	srv->logmax = -1;
	srv->state_ttl = WYMCP_STATE_TTL_DEFAULT;
	srv->legacy = 1;
	if (wymcp__keys_random(srv))
		goto fail;
	if ((srv->result_meta = json_object_new_object()) == NULL ||
	    (info = json_object_new_object()) == NULL)
		goto fail;
	json_object_object_add(info, "name", json_object_new_string("wymcp"));
	json_object_object_add(info, "version",
	    json_object_new_string(WYMCP_VERSION));
	if (json_object_object_add(srv->result_meta, WYMCP__META_SERVER, info))
		goto fail;
	info = NULL;
	/*
	 * Written into every result and never changed: serialized once
	 * here, copied from then on (the serverInfo alone goes into a
	 * result that has its own _meta).
	 */
	if (!json_object_object_get_ex(srv->result_meta, WYMCP__META_SERVER,
	    &info) || wymcp__json_freeze(info) ||
	    wymcp__json_freeze(srv->result_meta)) {
		info = NULL;
		goto fail;
	}
	return srv;
fail:
	json_object_put(info);
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
	if (srv->keys != NULL)
		explicit_bzero(srv->keys, srv->nkeys * sizeof(*srv->keys));
	free(srv->keys);
	free(srv->readbuf);
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
