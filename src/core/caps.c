/*
 * caps.c - required client capabilities
 *
 * A tool may require client capabilities (required_caps); a request
 * lacking them is refused before the tool runs (-32021).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <string.h>

#include "core/core.h"

/*
 * The elicitation modes `want` names (none: form) that `have` does not
 * declare (none: form).  Returns 1 with *missing, 0, or -1.
 */
static int
elicit_missing(struct json_object *want, struct json_object *have,
    struct json_object **missing)
{
	static const char *const modes[] = { "form", "url" };
	struct json_object	*m = NULL;
	size_t			 i;
	int			 w, h;

	*missing = NULL;
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		w = json_object_object_get_ex(want, modes[i], NULL) ||
		    (i == 0 && json_object_object_length(want) == 0);
		h = json_object_object_get_ex(have, modes[i], NULL) ||
		    (i == 0 && json_object_object_length(have) == 0);
		if (!w || h)
			continue;
		if (m == NULL && (m = json_object_new_object()) == NULL)
			return -1;
		json_object_object_add(m, modes[i], json_object_new_object());
	}
	*missing = m;
	return m != NULL;
}

/*
 * Which of the `required` client capabilities did the request not
 * declare?  Both are ClientCapabilities objects; a sub-capability is
 * needed when named (sampling.tools, elicitation.url).  An empty
 * "elicitation" object means form mode (client/elicitation.mdx).
 * Returns 1 with *missing (new object; caller puts it) listing only
 * what is missing, 0 when all is declared, -1 on allocation failure.
 */
int
wymcp__caps_missing(struct json_object *required,
    struct json_object *declared, struct json_object **missing)
{
	struct json_object	*d, *sub, *m = NULL, *ms;
	int			 rc;

	*missing = NULL;
	if (required == NULL || !json_object_is_type(required,
	    json_type_object))
		return 0;
	json_object_object_foreach(required, key, want) {
		d = NULL;
		if (declared != NULL)
			json_object_object_get_ex(declared, key, &d);
		if (d == NULL || !json_object_is_type(d, json_type_object)) {
			ms = json_object_get(want);
			goto add;
		}
		/*
		 * elicitation: an empty object, required or declared, means
		 * form mode (client/elicitation.mdx); {"url":{}} alone is not
		 * form mode.
		 */
		if (strcmp(key, "elicitation") == 0 &&
		    json_object_is_type(want, json_type_object)) {
			if ((rc = elicit_missing(want, d, &sub)) < 0)
				goto fail;
			if (rc == 0)
				continue;
			ms = sub;
			goto add;
		}
		if (!json_object_is_type(want, json_type_object) ||
		    json_object_object_length(want) == 0)
			continue;
		if ((rc = wymcp__caps_missing(want, d, &sub)) < 0)
			goto fail;
		if (rc == 0)
			continue;
		ms = sub;
add:
		if (m == NULL && (m = json_object_new_object()) == NULL) {
			json_object_put(ms);
			goto fail;
		}
		if (json_object_object_add(m, key, ms)) {
			json_object_put(ms);
			goto fail;
		}
	}
	*missing = m;
	return m != NULL;
fail:
	json_object_put(m);
	return -1;
}
