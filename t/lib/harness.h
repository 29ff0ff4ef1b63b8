/*
 * harness.h - serve requests in-process, without a web server
 *
 * The kcgiregress pattern: a test builds the CGI params and the body,
 * wymcp_server_serve() runs the whole pipeline, and the test reads the
 * status, headers and parsed JSON body of the response.
 */
#ifndef WYMCP_HARNESS_H
#define WYMCP_HARNESS_H

#include <check.h>

#include "wymcp.h"

/* A response as the web server would receive it. */
struct h_resp {
	int			 status;	/* from the Status line */
	char			*headers;	/* the raw header block */
	char			*body;		/* raw body, NUL-terminated */
	size_t			 bodylen;
	struct json_object	*json;		/* parsed body, or NULL */
};

/* The standard 2026-07-28 request: headers and _meta filled in. */
#define H_META "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
	"\"io.modelcontextprotocol/clientInfo\":" \
	"{\"name\":\"t\",\"version\":\"1\"}," \
	"\"io.modelcontextprotocol/clientCapabilities\":{}}"

/*
 * Serve one request.  `env` is a NULL-terminated list of "NAME=VALUE"
 * strings (REQUEST_METHOD etc. are NOT added for you); `body` may be
 * NULL.  Returns the serve() result; fills *resp (free with h_free).
 */
enum wymcp_err	 h_serve(struct wymcp_server *, const char *const *env,
		    const char *body, struct h_resp *resp);
/*
 * A well-formed POST of `method` with params `params_json` (an object
 * text without _meta: H_META is added as _meta unless the text already
 * holds "_meta").  `name` is sent as Mcp-Name when non-NULL.  Extra
 * params may be appended with `extra` (NULL-terminated, may be NULL).
 */
enum wymcp_err	 h_call(struct wymcp_server *, const char *method,
		    const char *name, const char *params_json,
		    const char *const *extra, struct h_resp *resp);
void		 h_free(struct h_resp *);
/*
 * When set, h_serve() serves through wymcp_server_serve_io() with this
 * as the io's gone() (its argument is the harness's own).
 */
extern int	(*h_gone)(void *);
/*
 * When h_ask is set, h_serve() serves through wymcp_server_serve_io()
 * with the io's ask_* members (a held stream and its relay, as
 * wymcp-fcgi provides them): hold, release and forward as given, and
 * wait called with the response written so far.
 */
struct h_asker {
	const char	*(*hold)(void);
	void		 (*release)(void);
	int		 (*wait)(const char *out, int ms,
			    int (*take)(void *, const char *, size_t),
			    void *takearg);
	int		 (*forward)(const char *addr, const char *msg,
			    size_t len);
	unsigned int	  timeout;
};
extern const struct h_asker *h_ask;
/* The bytes h_serve() had written when release() was last called. */
extern size_t	 h_released_at;
/* resp->json.error.code, or 0 when the response is not an error. */
int		 h_code(const struct h_resp *);
/* resp->json.result, or NULL. */
struct json_object *h_result(const struct h_resp *);
/* The first content block's text of a tools/call result, or NULL. */
const char	*h_text(const struct h_resp *);
/* The member at a NULL-terminated path of keys under `o', or NULL. */
struct json_object *h_jp(struct json_object *o, ...);
/* `o' as compact JSON text (json-c's, owned by `o'); "(null)" for NULL. */
const char	*h_compact(struct json_object *o);

/*
 * The fixture of the unit suites that serve through one server: *srv a
 * new server, *resp empty.  h_teardown() frees both (*srv becomes NULL).
 */
void		 h_setup(struct wymcp_server **srv, struct h_resp *resp);
void		 h_teardown(struct wymcp_server **srv, struct h_resp *resp);
/* Fails the running test unless the server's errmsg holds `part'. */
void		 h_expect_errmsg(struct wymcp_server *, const char *part);
/*
 * Adds a module "bad" of one tool "badtool" with `icons' and `meta'
 * (either may be NULL) and fails the running test unless the server
 * refuses it (WYMCP_ERR_INVAL, no tool kept) with "tool badtool" and
 * `part' in its errmsg.
 */
void		 h_refuse_tool(struct wymcp_server *, const char *icons,
		    const char *meta, const char *part);
/* Runs a suite's tests (CK_ENV): EXIT_SUCCESS when none failed. */
int		 h_run(Suite *);

#endif
