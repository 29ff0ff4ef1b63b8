/* jsonrpc.c - JSON-RPC 2.0 response and error objects */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <string.h>

#include "lib/lib.h"

/*
 * {"jsonrpc":"2.0","id":…,"error":{"code":…,"message":…,"data":…}}.
 * The id is omitted when NULL (basic/index.mdx: unreadable id).  Takes
 * ownership of `data`; `id` gets a new reference.  NULL on failure.
 */
struct json_object *
wymcp__error(struct json_object *id, int code, const char *message,
    struct json_object *data)
{
	struct json_object	*r = NULL, *e = NULL;

	if ((r = json_object_new_object()) == NULL ||
	    (e = json_object_new_object()) == NULL)
		goto fail;
	json_object_object_add(r, "jsonrpc", json_object_new_string("2.0"));
	if (id != NULL)
		json_object_object_add(r, "id", json_object_get(id));
	json_object_object_add(e, "code", json_object_new_int(code));
	json_object_object_add(e, "message", json_object_new_string(message));
	if (data != NULL)
		json_object_object_add(e, "data", data);
	data = NULL;
	json_object_object_add(r, "error", e);
	return r;
fail:
	json_object_put(data);
	json_object_put(e);
	json_object_put(r);
	return NULL;
}

/*
 * {"jsonrpc":"2.0","id":…,"result":…}.  Takes ownership of `result`;
 * `id` gets a new reference.  NULL on failure.
 */
struct json_object *
wymcp__response(struct json_object *id, struct json_object *result)
{
	struct json_object	*r;

	if ((r = json_object_new_object()) == NULL) {
		json_object_put(result);
		return NULL;
	}
	json_object_object_add(r, "jsonrpc", json_object_new_string("2.0"));
	json_object_object_add(r, "id", json_object_get(id));
	json_object_object_add(r, "result", result);
	return r;
}
