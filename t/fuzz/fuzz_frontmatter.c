/*
 * fuzz_frontmatter.c - libFuzzer target for the SKILL.md frontmatter
 * parser (lib/frontmatter.c)
 *
 * The input is a whole SKILL.md.  An accepted frontmatter must be a
 * JSON object whose compact text parses back (strict RFC 8259, UTF-8)
 * to the same text, with the body offset inside the input, just after
 * a "---" line; a refused one must say why and return nothing.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/lib.h"

#include <json-c/json.h>

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_object	*out = (struct json_object *)1, *back;
	const char		*text;
	char			*copy;
	char			 err[256];
	size_t			 body = (size_t)-1;
	int			 rc;

	if (size > 256 * 1024)
		return 0;
	err[0] = '\0';
	rc = wymcp__frontmatter((const char *)data, size, &out, &body, err,
	    sizeof(err));
	if (rc != 0) {
		if (out != NULL || err[0] == '\0') {
			fprintf(stderr, "fuzz_frontmatter: refused without "
			    "a reason, or with a result\n");
			abort();
		}
		return 0;
	}
	if (out == NULL || !json_object_is_type(out, json_type_object) ||
	    body > size || body < 7 || (body != size &&
	    data[body - 1] != '\n')) {
		fprintf(stderr, "fuzz_frontmatter: bad result (body %zu of "
		    "%zu)\n", body, size);
		abort();
	}
	text = json_object_to_json_string_ext(out, JSON_C_TO_STRING_PLAIN);
	if ((copy = strdup(text)) == NULL)
		abort();
	if ((back = wymcp__parse(copy, strlen(copy))) == NULL ||
	    strcmp(json_object_to_json_string_ext(back,
	    JSON_C_TO_STRING_PLAIN), copy) != 0) {
		fprintf(stderr, "fuzz_frontmatter: %s does not parse back\n",
		    copy);
		abort();
	}
	json_object_put(back);
	free(copy);
	json_object_put(out);
	return 0;
}
