/* fuzz_schema.c - libFuzzer target for the JSON Schema subset (schema.c) */
/*
 * Input: schema text, then a NUL byte or newline, then instance text.
 * Both are parsed with json-c (the instance with a deep tokener, to
 * reach the nesting limits); inputs that are not JSON are skipped.
 * The reason buffer's length varies with the input so truncation is
 * exercised too.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "serve/serve.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/*
 * Parse len bytes of text as one JSON value.  Returns 1 with *out set
 * (NULL is JSON null), 0 when the text is not JSON.
 */
static int
parse(const char *text, size_t len, int depth, struct json_object **out)
{
	struct json_tokener	*tok;
	char			*buf;
	int			 ok;

	*out = NULL;
	if (len > INT32_MAX - 1)
		return 0;
	/* A copy with its NUL, which ends a bare top-level number. */
	if ((buf = malloc(len + 1)) == NULL)
		return 0;
	memcpy(buf, text, len);
	buf[len] = '\0';
	if ((tok = json_tokener_new_ex(depth)) == NULL) {
		free(buf);
		return 0;
	}
	*out = json_tokener_parse_ex(tok, buf, (int)len + 1);
	ok = json_tokener_get_error(tok) == json_tokener_success;
	json_tokener_free(tok);
	free(buf);
	if (!ok) {
		json_object_put(*out);
		*out = NULL;
	}
	return ok;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_object	*schema = NULL, *instance = NULL;
	const char		*text = (const char *)data;
	char			 err[128];
	size_t			 split, errlen;
	int			 rc;

	for (split = 0; split < size; split++)
		if (data[split] == '\0' || data[split] == '\n')
			break;
	if (split == size)
		return 0;
	if (!parse(text, split, JSON_TOKENER_DEFAULT_DEPTH, &schema))
		goto out;
	if (!parse(text + split + 1, size - split - 1, 256, &instance))
		goto out;

	errlen = 1 + size % sizeof(err);
	memset(err, 'X', sizeof(err));
	rc = wymcp__schema_check(schema, err, errlen);
	if ((rc != 0 && rc != 1) || memchr(err, '\0', errlen) == NULL)
		abort();
	if (rc == 1 && err[0] != '\0')
		abort();

	memset(err, 'X', sizeof(err));
	rc = wymcp__schema_validate(schema, instance, err, errlen);
	if (rc < -1 || rc > 1 || memchr(err, '\0', errlen) == NULL)
		abort();
	if (errlen < sizeof(err) && err[errlen] != 'X')
		abort();
	/* A valid instance has no reason; an invalid one has one. */
	if ((rc == 1) != (err[0] == '\0') && errlen > 1)
		abort();
	(void)wymcp__schema_validate(schema, instance, NULL, 0);
out:
	json_object_put(schema);
	json_object_put(instance);
	return 0;
}
