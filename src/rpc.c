/*
 * rpc.c - the JSON-RPC 2.0 envelope and the MCP per-request _meta
 *
 * MCP 2026-07-28 basic/index.mdx ("Messages", "_meta", "Error Codes"):
 * one request per POST, ids are strings or integers and come back with
 * their JSON type, every request carries params._meta with the
 * protocol version and the client's capabilities.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <string.h>

#include "extern.h"

/*
 * A strict RFC 8259 syntax check, one pass over the bytes, before json-c
 * builds anything: json-c 0.16 accepts single-quoted strings, raw
 * control characters in strings, NaN, Infinity and "1." even with
 * JSON_TOKENER_STRICT, keeps the text of doubles to write it back, and
 * saturates integers beyond 64 bits (an id would come back changed).
 * Returns 0, -1 for a syntax error, -2 for an integer out of range.
 * UTF-8 is checked separately.
 */
#define SCAN_DEPTH	64

/* Skip JSON white space. */
static size_t
ws(const char *p, size_t i, size_t len)
{
	while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' ||
	    p[i] == '\r'))
		i++;
	return i;
}

/* A string starting at p[i] == '"'; returns the index after it or 0. */
static size_t
scan_string(const char *p, size_t i, size_t len)
{
	size_t	 k;

	for (i++; i < len; i++) {
		if (p[i] == '"')
			return i + 1;
		if ((unsigned char)p[i] < 0x20)
			return 0;
		if (p[i] != '\\')
			continue;
		if (++i >= len)
			return 0;
		switch (p[i]) {
		case '"': case '\\': case '/': case 'b': case 'f':
		case 'n': case 'r': case 't':
			break;
		case 'u':
			for (k = 1; k <= 4; k++)
				if (i + k >= len ||
				    !isxdigit((unsigned char)p[i + k]))
					return 0;
			i += 4;
			break;
		default:
			return 0;
		}
	}
	return 0;
}

/* Does the integer literal [s, s+n) fit json-c's int64/uint64? */
static int
int_fits(const char *s, size_t n)
{
	static const char	 maxneg[] = "9223372036854775808";
	static const char	 maxpos[] = "18446744073709551615";
	const char		*lim = maxpos;

	if (*s == '-') {
		s++;
		n--;
		lim = maxneg;
	}
	if (n != strlen(lim))
		return n < strlen(lim);
	return memcmp(s, lim, n) <= 0;
}

/* A number at p[i]; returns the index after it, 0 on error, and sets
 * *range when an integer does not fit. */
static size_t
scan_number(const char *p, size_t i, size_t len, int *range)
{
	size_t	 start = i;
	int	 isint = 1;

	if (i < len && p[i] == '-')
		i++;
	if (i < len && p[i] == '0')
		i++;
	else if (i < len && p[i] >= '1' && p[i] <= '9')
		while (i < len && p[i] >= '0' && p[i] <= '9')
			i++;
	else
		return 0;
	if (i < len && p[i] == '.') {
		isint = 0;
		if (++i >= len || p[i] < '0' || p[i] > '9')
			return 0;
		while (i < len && p[i] >= '0' && p[i] <= '9')
			i++;
	}
	if (i < len && (p[i] == 'e' || p[i] == 'E')) {
		isint = 0;
		if (++i < len && (p[i] == '+' || p[i] == '-'))
			i++;
		if (i >= len || p[i] < '0' || p[i] > '9')
			return 0;
		while (i < len && p[i] >= '0' && p[i] <= '9')
			i++;
	}
	if (isint && !int_fits(p + start, i - start))
		*range = 1;
	return i;
}

static int
json_strict(const char *p, size_t len)
{
	char	 stack[SCAN_DEPTH];	/* '{' or '[' */
	size_t	 i = 0, n;
	int	 depth = 0, range = 0;

	/* Expect a value at p[i]. */
value:
	i = ws(p, i, len);
	if (i >= len)
		return -1;
	switch (p[i]) {
	case '{':
	case '[':
		if (depth == SCAN_DEPTH)
			return -1;
		stack[depth++] = p[i];
		i = ws(p, i + 1, len);
		if (i < len && p[i] == (stack[depth - 1] == '{' ? '}' : ']')) {
			depth--;
			i++;
			goto after;
		}
		if (stack[depth - 1] == '{')
			goto key;
		goto value;
	case '"':
		if ((n = scan_string(p, i, len)) == 0)
			return -1;
		i = n;
		goto after;
	case 't':
		n = 4;
		if (len - i < n || memcmp(p + i, "true", n) != 0)
			return -1;
		i += n;
		goto after;
	case 'f':
		n = 5;
		if (len - i < n || memcmp(p + i, "false", n) != 0)
			return -1;
		i += n;
		goto after;
	case 'n':
		n = 4;
		if (len - i < n || memcmp(p + i, "null", n) != 0)
			return -1;
		i += n;
		goto after;
	default:
		if ((n = scan_number(p, i, len, &range)) == 0)
			return -1;
		i = n;
		goto after;
	}
	/* Expect a member name and a colon, then a value. */
key:
	i = ws(p, i, len);
	if (i >= len || p[i] != '"' || (n = scan_string(p, i, len)) == 0)
		return -1;
	i = ws(p, n, len);
	if (i >= len || p[i] != ':')
		return -1;
	i++;
	goto value;
	/* After a value: a separator, a close, or the end. */
after:
	i = ws(p, i, len);
	if (depth == 0)
		return i == len ? (range ? -2 : 0) : -1;
	if (i >= len)
		return -1;
	if (p[i] == ',') {
		i++;
		if (stack[depth - 1] == '{')
			goto key;
		goto value;
	}
	if (p[i] == (stack[depth - 1] == '{' ? '}' : ']')) {
		depth--;
		i++;
		goto after;
	}
	return -1;
}

/*
 * Parse a request body.  Strict JSON, UTF-8 validated, nothing but
 * white space after the value.  Returns a new object (caller puts it) or
 * NULL when the body is not JSON, or is the JSON literal null (see
 * wymcp__is_null()).
 */
struct json_object *
wymcp__parse(const char *buf, size_t len)
{
	struct json_tokener	*tok;
	struct json_object	*obj = NULL;
	size_t			 off;

	if (len == 0 || len > INT32_MAX || memchr(buf, '\0', len) != NULL ||
	    !wymcp__utf8_valid(buf, len) || json_strict(buf, len) != 0)
		return NULL;
	if ((tok = json_tokener_new()) == NULL)
		return NULL;
	json_tokener_set_flags(tok,
	    JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	obj = json_tokener_parse_ex(tok, buf, (int)len);
	/*
	 * A bare number or literal at the very end of the input is not
	 * finished until the tokener sees its end: feed it the NUL.
	 */
	if (obj == NULL &&
	    json_tokener_get_error(tok) == json_tokener_continue) {
		obj = json_tokener_parse_ex(tok, "", 1);
		if (json_tokener_get_error(tok) != json_tokener_success) {
			json_object_put(obj);
			obj = NULL;
		}
		goto out;	/* all of buf was consumed */
	}
	if (json_tokener_get_error(tok) != json_tokener_success) {
		json_object_put(obj);
		obj = NULL;
		goto out;
	}
	for (off = json_tokener_get_parse_end(tok); off < len; off++)
		if (buf[off] != ' ' && buf[off] != '\t' && buf[off] != '\n' &&
		    buf[off] != '\r') {
			json_object_put(obj);
			obj = NULL;
			break;
		}
out:
	json_tokener_free(tok);
	return obj;
}

/*
 * Why wymcp__parse() refused valid-looking input: 1 when the text is
 * well-formed JSON that json-c cannot hold exactly (an integer beyond
 * 64 bits), else 0.
 */
int
wymcp__json_range(const char *buf, size_t len)
{
	return json_strict(buf, len) == -2;
}

/* 1 when the text is the JSON literal null, white space aside. */
int
wymcp__is_null(const char *buf, size_t len)
{
	while (len > 0 && (*buf == ' ' || *buf == '\t' || *buf == '\n' ||
	    *buf == '\r')) {
		buf++;
		len--;
	}
	while (len > 0 && (buf[len - 1] == ' ' || buf[len - 1] == '\t' ||
	    buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		len--;
	return len == 4 && memcmp(buf, "null", 4) == 0;
}

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
	if (required == NULL || !json_object_is_type(required, json_type_object))
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
