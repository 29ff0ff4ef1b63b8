/*
 * intake.c - the hub's one parser of events: the bus's notifications,
 * the PATH.hub socket's datagrams, --publish's argument and the
 * workers' events (intake.h says who may say what)
 *
 * The wire format (version 1), one JSON object a message:
 *
 *   {"v":1,"k":"updated","uri":URI}
 *   {"v":1,"k":"list","lists":["tools"|"prompts"|"resources",...],
 *    "tools":[NAME,...]}			("tools" optional)
 *   {"v":1,"k":"cancel","who":WHO,"id":ID}	(workers, sealed)
 *   {"v":1,"k":"subscribe"|"unsubscribe","session":KEY,"uri":URI}
 *   {"v":1,"k":"sealed","kid":HEX8,"t":SECONDS,"mac":B64URL,"e":EVENT}
 *   {"v":1,"k":"gap","from":HEX16,"n":HEX16,
 *    "lists":[KIND,...],"uris":[URI,...]}	(sealed only; "lists" and
 *						"uris" optional: without
 *						both, every stream)
 *
 * Nothing here trusts what it reads: a member of the wrong type (JSON
 * null included) refuses the whole event, members it does not know are
 * ignored, and a refusal says why (enum front_refusal).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <json-c/json.h>

#include "wymcp.h"
#include "lib/word.h"
#include "intake.h"

const char *const front_refusal_names[FRONT_REF_N] = {
	"none", "malformed", "oversized", "command", "kind", "forged",
	"handoff", "replayed"
};

/* The string member `name' of `o' of 1 to `max' bytes, no NUL; or NULL. */
static const char *
str(struct json_object *o, const char *name, size_t max, size_t *lenp)
{
	struct json_object	*v;
	const char		*s;
	size_t			 len;

	if (!json_object_object_get_ex(o, name, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	s = json_object_get_string(v);
	len = (size_t)json_object_get_string_len(v);
	if (s == NULL || len == 0 || len > max || strlen(s) != len)
		return NULL;
	if (lenp != NULL)
		*lenp = len;
	return s;
}

/* The kinds of the array `a' (1 to 3 names) or'd into `*lists'. */
static enum front_refusal
kinds_of(struct json_object *a, int *lists, size_t min)
{
	static const char *const names[] = { "tools", "prompts",
		"resources" };
	struct json_object	*v;
	const char		*s;
	size_t			 i, j, n;

	if (!json_object_is_type(a, json_type_array) ||
	    (n = json_object_array_length(a)) < min || n > 3)
		return FRONT_REF_MALFORMED;
	for (i = 0; i < n; i++) {
		v = json_object_array_get_idx(a, i);
		if (!json_object_is_type(v, json_type_string))
			return FRONT_REF_MALFORMED;
		s = json_object_get_string(v);
		for (j = 0; j < 3; j++)
			if (strcmp(s, names[j]) == 0)
				break;
		if (j == 3)
			return FRONT_REF_MALFORMED;
		*lists |= 1 << j;
	}
	return FRONT_REF_NONE;
}

/* "list": the lists it names, and the tools' names if it has them. */
static enum front_refusal
list_of(struct json_object *o, struct front_event *ev)
{
	struct json_object	*a, *v;
	size_t			 i, n;

	if (!json_object_object_get_ex(o, "lists", &a) ||
	    kinds_of(a, &ev->lists, 1) != FRONT_REF_NONE)
		return FRONT_REF_MALFORMED;
	if (!json_object_object_get_ex(o, "tools", &a))
		return FRONT_REF_NONE;
	if (!json_object_is_type(a, json_type_array) ||
	    (n = json_object_array_length(a)) > FRONT_EVENT_TOOLS_MAX)
		return FRONT_REF_MALFORMED;
	for (i = 0; i < n; i++) {
		v = json_object_array_get_idx(a, i);
		if (!json_object_is_type(v, json_type_string) ||
		    json_object_get_string_len(v) > FRONT_EVENT_NAME_MAX)
			return FRONT_REF_MALFORMED;
	}
	ev->tools = a;
	return FRONT_REF_NONE;
}

/* "cancel": who and which listen (its JSON-RPC id: a string or a number). */
static enum front_refusal
cancel_of(struct json_object *o, struct front_event *ev)
{
	struct json_object	*v;

	if ((ev->who = str(o, "who", FRONT_EVENT_NAME_MAX, NULL)) == NULL ||
	    !json_object_object_get_ex(o, "id", &v) ||
	    (!json_object_is_type(v, json_type_string) &&
	    !json_object_is_type(v, json_type_int)) ||
	    (ev->id = json_object_to_json_string_ext(v,
	    JSON_C_TO_STRING_PLAIN)) == NULL ||
	    strlen(ev->id) > FRONT_EVENT_NAME_MAX)
		return FRONT_REF_MALFORMED;
	return FRONT_REF_NONE;
}

/* A member of exactly FRONT_GAP_ID_LEN lower-case hex digits; or NULL. */
static const char *
hexid(struct json_object *o, const char *name)
{
	const char	*s;

	if ((s = str(o, name, FRONT_GAP_ID_LEN, NULL)) == NULL ||
	    strlen(s) != FRONT_GAP_ID_LEN ||
	    strspn(s, "0123456789abcdef") != FRONT_GAP_ID_LEN)
		return NULL;
	return s;
}

/*
 * "gap": who, its nonce, and which streams when it says ("lists" of
 * kinds, 0 to 3; "uris", 0 to FRONT_GAP_URIS_MAX, each 1 to
 * FRONT_EVENT_URI_MAX bytes).
 */
static enum front_refusal
gap_of(struct json_object *o, struct front_event *ev)
{
	struct json_object	*a, *v;
	size_t			 i, n;

	if ((ev->from = hexid(o, "from")) == NULL ||
	    (ev->nonce = hexid(o, "n")) == NULL)
		return FRONT_REF_MALFORMED;
	if (json_object_object_get_ex(o, "lists", &a)) {
		ev->narrow = 1;
		if (kinds_of(a, &ev->lists, 0) != FRONT_REF_NONE)
			return FRONT_REF_MALFORMED;
	}
	if (!json_object_object_get_ex(o, "uris", &a))
		return FRONT_REF_NONE;
	ev->narrow = 1;
	if (!json_object_is_type(a, json_type_array) ||
	    (n = json_object_array_length(a)) > FRONT_GAP_URIS_MAX)
		return FRONT_REF_MALFORMED;
	for (i = 0; i < n; i++) {
		v = json_object_array_get_idx(a, i);
		if (!json_object_is_type(v, json_type_string) ||
		    json_object_get_string_len(v) == 0 ||
		    json_object_get_string_len(v) > FRONT_EVENT_URI_MAX ||
		    strlen(json_object_get_string(v)) !=
		    (size_t)json_object_get_string_len(v))
			return FRONT_REF_MALFORMED;
	}
	ev->uris = a;
	return FRONT_REF_NONE;
}

/* "sealed": the frame's members, checked by hub.c against the key. */
static enum front_refusal
sealed_of(struct json_object *o, struct front_event *ev)
{
	struct json_object	*v;

	if ((ev->kid = str(o, "kid", 8, NULL)) == NULL ||
	    strlen(ev->kid) != 8 ||
	    strspn(ev->kid, "0123456789abcdef") != 8 ||
	    (ev->mac = str(o, "mac", 64, NULL)) == NULL ||
	    (ev->body = str(o, "e", FRONT_EVENT_MAX, &ev->bodylen)) == NULL ||
	    !json_object_object_get_ex(o, "t", &v) ||
	    !json_object_is_type(v, json_type_int) ||
	    (ev->t = json_object_get_int64(v)) <= 0)
		return FRONT_REF_MALFORMED;
	return FRONT_REF_NONE;
}

/* The members of the kind `k', as `from' may say it. */
static enum front_refusal
members(struct json_object *o, const char *k, int from,
    struct front_event *ev)
{
	int	 control = 1;

	if (strcmp(k, "updated") == 0) {
		ev->kind = FRONT_EV_UPDATED;
		control = 0;
	} else if (strcmp(k, "list") == 0) {
		ev->kind = FRONT_EV_LIST;
		control = 0;
	} else if (strcmp(k, "cancel") == 0)
		ev->kind = FRONT_EV_CANCEL;
	else if (strcmp(k, "subscribe") == 0)
		ev->kind = FRONT_EV_SUBSCRIBE;
	else if (strcmp(k, "unsubscribe") == 0)
		ev->kind = FRONT_EV_UNSUBSCRIBE;
	else if (strcmp(k, "sealed") == 0) {
		/* Only from outside: a frame of another host's hub. */
		if (from != FRONT_FROM_OUTSIDE)
			return FRONT_REF_COMMAND;
		ev->kind = FRONT_EV_SEALED;
		control = 0;
	} else if (strcmp(k, "gap") == 0) {
		/* Only a hub says it, and only sealed. */
		if (from != FRONT_FROM_SEALED)
			return FRONT_REF_COMMAND;
		ev->kind = FRONT_EV_GAP;
	} else
		return FRONT_REF_KIND;
	/* Outside says data; a sealed body carries control only. */
	if ((from == FRONT_FROM_OUTSIDE && control) ||
	    (from == FRONT_FROM_SEALED && !control))
		return FRONT_REF_COMMAND;
	switch (ev->kind) {
	case FRONT_EV_UPDATED:
		ev->uri = str(o, "uri", FRONT_EVENT_URI_MAX, NULL);
		return ev->uri != NULL ? FRONT_REF_NONE : FRONT_REF_MALFORMED;
	case FRONT_EV_LIST:
		return list_of(o, ev);
	case FRONT_EV_CANCEL:
		return cancel_of(o, ev);
	case FRONT_EV_SUBSCRIBE:
	case FRONT_EV_UNSUBSCRIBE:
		ev->session = str(o, "session", FRONT_EVENT_NAME_MAX, NULL);
		ev->uri = str(o, "uri", FRONT_EVENT_URI_MAX, NULL);
		return ev->session != NULL && ev->uri != NULL ?
		    FRONT_REF_NONE : FRONT_REF_MALFORMED;
	case FRONT_EV_SEALED:
		return sealed_of(o, ev);
	case FRONT_EV_GAP:
		return gap_of(o, ev);
	}
	return FRONT_REF_KIND;
}

/* Are the `len' bytes at `p' (not a string) all blanks? */
static int
blanks(const char *p, size_t len)
{
	size_t	 i;

	for (i = 0; i < len; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' &&
		    p[i] != '\n')
			return 0;
	return 1;
}

enum front_refusal
front_intake(const char *msg, size_t len, int from, struct front_event *ev)
{
	struct json_tokener	*tok;
	struct json_object	*o = NULL, *v;
	const char		*k;
	enum front_refusal	 why;
	size_t			 end;

	memset(ev, 0, sizeof(*ev));
	if (len > FRONT_EVENT_MAX)
		return FRONT_REF_OVERSIZED;
	if (len == 0 || memchr(msg, '\0', len) != NULL)
		return FRONT_REF_MALFORMED;
	if ((tok = json_tokener_new()) == NULL)
		return FRONT_REF_MALFORMED;
	o = json_tokener_parse_ex(tok, msg, (int)len);
	/* One value, and all of the message (but blanks after it). */
	if (o != NULL && (json_tokener_get_error(tok) != json_tokener_success ||
	    (end = json_tokener_get_parse_end(tok)) > len ||
	    !blanks(msg + end, len - end))) {
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	why = FRONT_REF_MALFORMED;
	if (o == NULL || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "v", &v) ||
	    !json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) != 1 ||
	    (k = str(o, "k", 32, NULL)) == NULL ||
	    (why = members(o, k, from, ev)) != FRONT_REF_NONE) {
		json_object_put(o);
		memset(ev, 0, sizeof(*ev));
		return why;
	}
	ev->o = o;
	return FRONT_REF_NONE;
}

void
front_event_clear(struct front_event *ev)
{
	json_object_put(ev->o);
	memset(ev, 0, sizeof(*ev));
}

int
front_mounted(const char *mount, const char *name)
{
	const char	*w;
	size_t		 n = strlen(name), k;

	while ((w = wymcp__word(&mount, &k)) != NULL)
		if (k == n && strncmp(w, name, n) == 0)
			return 1;
	return 0;
}

int
front_sees(const char *mount, struct json_object *tools)
{
	struct json_object	*v;
	size_t			 i;

	if (tools == NULL || mount == NULL)
		return 1;
	for (i = 0; i < json_object_array_length(tools); i++) {
		v = json_object_array_get_idx(tools, i);
		if (json_object_is_type(v, json_type_string) &&
		    front_mounted(mount, json_object_get_string(v)))
			return 1;
	}
	return 0;
}
