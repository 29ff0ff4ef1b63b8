/*
 * envelope.c - the JSON-RPC 2.0 envelope and the MCP _meta rules
 *
 * MCP 2026-07-28 basic/index.mdx ("Requests", "_meta") on top of
 * JSON-RPC 2.0 section 4.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <string.h>

#include "serve/serve.h"

/*
 * Check the JSON-RPC envelope of a single request or notification.
 * Returns 0 with *method set and *id set (NULL for a notification), or
 * WYMCP__INVALID_REQUEST with *why; *id is then the id if it could be
 * read and is valid, else NULL.
 */
int
wymcp__envelope(struct json_object *msg, struct json_object **id,
    const char **method, const char **why)
{
	struct json_object	*v;

	*id = NULL;
	*method = NULL;
	if (json_object_is_type(msg, json_type_array)) {
		*why = "Invalid Request: batches are not supported";
		return WYMCP__INVALID_REQUEST;
	}
	if (!json_object_is_type(msg, json_type_object)) {
		*why = "Invalid Request: not a JSON-RPC request object";
		return WYMCP__INVALID_REQUEST;
	}
	if (json_object_object_get_ex(msg, "id", &v)) {
		if (json_object_is_type(v, json_type_string) ||
		    json_object_is_type(v, json_type_int))
			*id = v;
		else {
			*why = "Invalid Request: id must be a string or an "
			    "integer";
			return WYMCP__INVALID_REQUEST;
		}
	}
	if (!json_object_object_get_ex(msg, "jsonrpc", &v) ||
	    !json_object_is_type(v, json_type_string) ||
	    strcmp(json_object_get_string(v), "2.0") != 0) {
		*why = "Invalid Request: jsonrpc must be \"2.0\"";
		return WYMCP__INVALID_REQUEST;
	}
	if (!json_object_object_get_ex(msg, "method", &v)) {
		if (json_object_object_get_ex(msg, "result", NULL) ||
		    json_object_object_get_ex(msg, "error", NULL))
			*why = "Invalid Request: a response is not accepted "
			    "here";
		else
			*why = "Invalid Request: method is missing";
		return WYMCP__INVALID_REQUEST;
	}
	if (!json_object_is_type(v, json_type_string)) {
		*why = "Invalid Request: method must be a string";
		return WYMCP__INVALID_REQUEST;
	}
	*method = json_object_get_string(v);
	if (json_object_object_get_ex(msg, "params", &v) &&
	    !json_object_is_type(v, json_type_object) &&
	    !json_object_is_type(v, json_type_array)) {
		*why = "Invalid Request: params must be an object";
		return WYMCP__INVALID_REQUEST;
	}
	return 0;
}

/*
 * Check params._meta of a 2026-07-28 request (basic/index.mdx "_meta":
 * protocolVersion and clientCapabilities are required; clientInfo is
 * not).  Returns 0 with the fields set, or WYMCP__INVALID_PARAMS with
 * *why (HTTP 400).
 */
int
wymcp__meta(struct json_object *params, struct json_object **meta,
    const char **version, struct json_object **caps, const char **why)
{
	struct json_object	*v;

	*meta = *caps = NULL;
	*version = NULL;
	if (params == NULL || !json_object_is_type(params, json_type_object) ||
	    !json_object_object_get_ex(params, "_meta", meta) ||
	    !json_object_is_type(*meta, json_type_object)) {
		*meta = NULL;
		*why = "Missing required params._meta";
		return WYMCP__INVALID_PARAMS;
	}
	if (!json_object_object_get_ex(*meta, WYMCP__META_VERSION, &v) ||
	    !json_object_is_type(v, json_type_string)) {
		*why = "Missing required _meta field " WYMCP__META_VERSION;
		return WYMCP__INVALID_PARAMS;
	}
	*version = json_object_get_string(v);
	if (!json_object_object_get_ex(*meta, WYMCP__META_CAPS, caps) ||
	    !json_object_is_type(*caps, json_type_object)) {
		*caps = NULL;
		*why = "Missing required _meta field " WYMCP__META_CAPS;
		return WYMCP__INVALID_PARAMS;
	}
	return 0;
}
