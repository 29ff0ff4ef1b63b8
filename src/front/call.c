/*
 * call.c - wymcp-fcgi --call TOOL: one call's rounds from the shell
 *
 * For a tool's author, without a web server: each round is a real
 * 2026-07-28 tools/call request served in this process by the whole
 * pipeline (wymcp_server_serve_io()), declaring form elicitation; a
 * round that ends at a question is answered with the next --answer,
 * carrying the round's requestState back, until the call completes,
 * fails, or has no answer left.  Each round prints one line of JSON on
 * stdout: {"round": N, "messages": [...]}, the messages being what the
 * client would have read (notifications, then the response).
 *
 * Exit status: 0 the call completed, 1 it completed with isError, 3 it
 * asked a question no --answer was left for, 4 it was refused (a
 * JSON-RPC error), 2 a bad --args or --answer.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "front.h"

/* The request body as read, and the response as written. */
struct callio {
	const char	*in;
	size_t		 inlen, off;
	char		*out;
	size_t		 outlen, cap;
};

static long
c_read(void *arg, char *buf, size_t len)
{
	struct callio	*c = arg;
	size_t		 n = c->inlen - c->off;

	if (n > len)
		n = len;
	memcpy(buf, c->in + c->off, n);
	c->off += n;
	return (long)n;
}

static int
c_write(void *arg, const char *buf, size_t len)
{
	struct callio	*c = arg;
	char		*p;

	if (c->outlen + len + 1 > c->cap) {
		c->cap = (c->outlen + len + 1) * 2;
		if ((p = realloc(c->out, c->cap)) == NULL)
			return -1;
		c->out = p;
	}
	memcpy(c->out + c->outlen, buf, len);
	c->outlen += len;
	c->out[c->outlen] = '\0';
	return 0;
}

/*
 * The messages of a CGI response: a JSON body, or each SSE event's
 * data.  A new array (caller puts it), or NULL.
 */
static struct json_object *
messages(const char *resp)
{
	struct json_object	*a, *m;
	const char		*body, *p, *e;
	char			*line;

	if ((a = json_object_new_array()) == NULL ||
	    (body = strstr(resp, "\r\n\r\n")) == NULL)
		return a;
	body += 4;
	if (strstr(resp, "text/event-stream") == NULL || strstr(resp,
	    "text/event-stream") > body) {
		if ((m = json_tokener_parse(body)) != NULL)
			json_object_array_add(a, m);
		return a;
	}
	for (p = body; *p != '\0'; p = *e == '\0' ? e : e + 1) {
		e = strchrnul(p, '\n');
		if (strncmp(p, "data:", 5) != 0)
			continue;
		if ((line = strndup(p + 5, (size_t)(e - p - 5))) == NULL)
			break;
		if ((m = json_tokener_parse(line)) != NULL)
			json_object_array_add(a, m);
		free(line);
	}
	return a;
}

/* The request of round `n': a new string, or NULL. */
static char *
request(const struct front_opts *o, int n, struct json_object *args,
    const char *state, struct json_object *responses)
{
	struct json_object	*req, *params, *meta, *caps, *info;
	char			*s;

	req = json_object_new_object();
	params = json_object_new_object();
	meta = json_object_new_object();
	caps = json_object_new_object();
	info = json_object_new_object();
	json_object_object_add(caps, "elicitation", json_object_new_object());
	json_object_object_add(info, "name",
	    json_object_new_string("wymcp-fcgi --call"));
	json_object_object_add(info, "version",
	    json_object_new_string(WYMCP_VERSION));
	json_object_object_add(meta, "io.modelcontextprotocol/protocolVersion",
	    json_object_new_string(WYMCP_PROTOCOL_VERSION));
	json_object_object_add(meta, "io.modelcontextprotocol/clientInfo",
	    info);
	json_object_object_add(meta,
	    "io.modelcontextprotocol/clientCapabilities", caps);
	/* Progress and log lines are shown: notifications of the round. */
	json_object_object_add(meta, "progressToken", json_object_new_int(n));
	json_object_object_add(meta, "io.modelcontextprotocol/logLevel",
	    json_object_new_string("info"));
	json_object_object_add(params, "name", json_object_new_string(o->call));
	json_object_object_add(params, "arguments", json_object_get(args));
	json_object_object_add(params, "_meta", meta);
	if (state != NULL)
		json_object_object_add(params, "requestState",
		    json_object_new_string(state));
	if (responses != NULL)
		json_object_object_add(params, "inputResponses",
		    json_object_get(responses));
	json_object_object_add(req, "jsonrpc", json_object_new_string("2.0"));
	json_object_object_add(req, "id", json_object_new_int(n));
	json_object_object_add(req, "method",
	    json_object_new_string("tools/call"));
	json_object_object_add(req, "params", params);
	s = strdup(json_object_to_json_string_ext(req,
	    JSON_C_TO_STRING_PLAIN));
	json_object_put(req);
	return s;
}

/* Serve one round: its messages (a new array), or NULL. */
static struct json_object *
round_trip(struct wymcp_server *srv, const struct front_opts *o,
    const char *body)
{
	struct wymcp_io		 io;
	struct callio		 c;
	struct json_object	*m;
	char			 cl[64], nm[300];
	char			*env[] = { "REQUEST_METHOD=POST",
		"CONTENT_TYPE=application/json", cl, "HTTP_HOST=localhost",
		"HTTP_ACCEPT=application/json, text/event-stream",
		"HTTP_MCP_PROTOCOL_VERSION=" WYMCP_PROTOCOL_VERSION,
		"HTTP_MCP_METHOD=tools/call", nm, NULL };

	snprintf(cl, sizeof(cl), "CONTENT_LENGTH=%zu", strlen(body));
	snprintf(nm, sizeof(nm), "HTTP_MCP_NAME=%s", o->call);
	memset(&c, 0, sizeof(c));
	c.in = body;
	c.inlen = strlen(body);
	memset(&io, 0, sizeof(io));
	io.env = env;
	io.read = c_read;
	io.write = c_write;
	io.arg = &c;
	if (wymcp_server_serve_io(srv, &io, sizeof(io)) != WYMCP_OK ||
	    c.out == NULL) {
		free(c.out);
		return NULL;
	}
	m = messages(c.out);
	free(c.out);
	return m;
}

/*
 * The exit status a round's last message gives, or -1 when it asks a
 * question: then *key is its first question's key and *state its
 * requestState (the message's own).
 */
static int
verdict(struct json_object *last, const char **key, const char **state)
{
	struct json_object	*r, *v, *q;

	if (last == NULL || json_object_object_get_ex(last, "error", NULL) ||
	    !json_object_object_get_ex(last, "result", &r))
		return 4;
	if (json_object_object_get_ex(r, "inputRequests", &q) &&
	    json_object_is_type(q, json_type_object)) {
		json_object_object_foreach(q, k, val) {
			(void)val;
			*key = k;
			break;
		}
		*state = json_object_object_get_ex(r, "requestState", &v) ?
		    json_object_get_string(v) : NULL;
		return -1;
	}
	return json_object_object_get_ex(r, "isError", &v) &&
	    json_object_get_boolean(v) ? 1 : 0;
}

int
front_call(struct wymcp_server *srv, const struct front_opts *o)
{
	struct json_object	*args, *msgs = NULL, *resp = NULL, *ans;
	const char		*key = NULL, *state = NULL;
	char			*body, *st = NULL;
	size_t			 next = 0;
	int			 n, rc = 4;

	if ((args = json_tokener_parse(o->call_args != NULL ? o->call_args :
	    "{}")) == NULL || !json_object_is_type(args, json_type_object)) {
		warnx("--args: not a JSON object");
		json_object_put(args);
		return 2;
	}
	for (n = 1; n <= 64; n++) {
		body = request(o, n, args, st, resp);
		json_object_put(resp);
		resp = NULL;
		json_object_put(msgs);
		msgs = body != NULL ? round_trip(srv, o, body) : NULL;
		free(body);
		if (msgs == NULL) {
			warnx("--call: the request failed");
			break;
		}
		printf("{\"round\":%d,\"messages\":%s}\n", n,
		    json_object_to_json_string_ext(msgs,
		    JSON_C_TO_STRING_PLAIN));
		fflush(stdout);
		rc = verdict(json_object_array_get_idx(msgs,
		    json_object_array_length(msgs) - 1), &key, &state);
		if (rc >= 0)
			break;
		if (next == o->nanswers) {
			rc = 3;
			break;
		}
		if ((ans = json_tokener_parse(o->answers[next])) == NULL ||
		    !json_object_is_type(ans, json_type_object)) {
			warnx("--answer %s: not a JSON object",
			    o->answers[next]);
			json_object_put(ans);
			rc = 2;
			break;
		}
		next++;
		resp = json_object_new_object();
		json_object_object_add(resp, key, ans);
		free(st);
		st = state != NULL ? strdup(state) : NULL;
	}
	json_object_put(resp);
	json_object_put(msgs);
	json_object_put(args);
	free(st);
	return rc;
}
