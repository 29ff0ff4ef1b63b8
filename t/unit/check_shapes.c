/*
 * check_shapes.c - the result shapes core/shapes.c holds are the
 * specification's
 *
 * Every definition in shapes.c must equal the one of the same name in
 * the 2026-07-28 schema.json with its "description" and "title" text
 * left out.  The specification is read from WYMCP_SPEC_DIR, else from
 * ../shared/spec/2026-07-28 beside the source tree; without it only the
 * examples are checked.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "testing/testing.h"

static char	 spec[4096];

/* A copy without "description" and "title" strings, as shapes.c has. */
static struct json_object *
strip(struct json_object *o)
{
	struct json_object	*c;
	size_t			 i, n;

	switch (json_object_get_type(o)) {
	case json_type_object:
		c = json_object_new_object();
		json_object_object_foreach(o, k, v) {
			if ((strcmp(k, "description") == 0 ||
			    strcmp(k, "title") == 0) &&
			    json_object_is_type(v, json_type_string))
				continue;
			json_object_object_add(c, k, strip(v));
		}
		return c;
	case json_type_array:
		c = json_object_new_array();
		n = json_object_array_length(o);
		for (i = 0; i < n; i++)
			json_object_array_add(c,
			    strip(json_object_array_get_idx(o, i)));
		return c;
	default:
		return json_object_get(o);
	}
}

START_TEST(shapes_are_the_specs)
{
	struct json_object	*schema, *defs, *ours, *theirs, *want;
	char			*text;
	size_t			 len, n = 0;

	schema = json_object_from_file(spec);
	ck_assert_msg(schema != NULL, "%s: not JSON", spec);
	ck_assert(json_object_object_get_ex(schema, "$defs", &defs));
	len = strlen(wymcp__shape_defs()) + 3;
	text = malloc(len);
	ck_assert_ptr_nonnull(text);
	snprintf(text, len, "{%s}", wymcp__shape_defs());
	ours = wymcp__parse(text, strlen(text));
	free(text);
	ck_assert_ptr_nonnull(ours);
	json_object_object_foreach(ours, name, def) {
		ck_assert_msg(json_object_object_get_ex(defs, name, &theirs),
		    "%s is not in schema.json", name);
		want = strip(theirs);
		ck_assert_msg(json_object_equal(def, want), "%s differs:\n"
		    "ours   %s\nschema %s", name,
		    json_object_to_json_string(def),
		    json_object_to_json_string(want));
		json_object_put(want);
		n++;
	}
	ck_assert(json_object_object_get_ex(ours, "CreateMessageResult",
	    NULL));
	ck_assert(json_object_object_get_ex(ours, "ListRootsResult", NULL));
	ck_assert_uint_ge(n, 2);
	json_object_put(ours);
	json_object_put(schema);
}
END_TEST

START_TEST(shapes_check_examples)
{
	static const char *const good[] = {
		"{\"role\":\"assistant\",\"content\":{\"type\":\"text\","
		    "\"text\":\"x\"},\"model\":\"m\"}",
		"{\"role\":\"user\",\"content\":[],\"model\":\"m\","
		    "\"stopReason\":\"custom\",\"_meta\":{}}",
		"{\"role\":\"assistant\",\"content\":{\"type\":"
		    "\"tool_result\",\"toolUseId\":\"1\",\"content\":["
		    "{\"type\":\"resource_link\",\"uri\":\"file:///a\","
		    "\"name\":\"a\"}]},"
		    "\"model\":\"m\"}",
	};
	struct json_object	*o;
	char			 why[256];
	size_t			 i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		o = json_tokener_parse(good[i]);
		ck_assert_msg(wymcp__shape_check("CreateMessageResult", o, why,
		    sizeof(why)) == 1, "%s: %s", good[i], why);
		json_object_put(o);
	}
	o = json_tokener_parse("{\"roots\":[{\"uri\":\"file:///x\"}]}");
	ck_assert_int_eq(wymcp__shape_check("ListRootsResult", o, why,
	    sizeof(why)), 1);
	json_object_put(o);
	o = json_tokener_parse("{\"roots\":[{\"uri\":\"file:///x\"},"
	    "{\"uri\":\"s3://b\"}]}");
	ck_assert_int_eq(wymcp__shape_check("ListRootsResult", o, why,
	    sizeof(why)), 0);
	ck_assert_ptr_nonnull(strstr(why, "/roots/1/uri"));
	json_object_put(o);
}
END_TEST

int
main(void)
{
	SRunner		*sr;
	Suite		*s;
	TCase		*tc;
	const char	*dir, *top;
	int		 nfailed;

	if ((dir = getenv("WYMCP_SPEC_DIR")) != NULL && *dir != '\0')
		snprintf(spec, sizeof(spec), "%s/schema.json", dir);
	else {
		if ((top = getenv("top_srcdir")) == NULL || *top == '\0')
			top = ".";
		snprintf(spec, sizeof(spec),
		    "%s/../shared/spec/2026-07-28/schema.json", top);
	}
	s = suite_create("shapes");
	tc = tcase_create("shapes");
	tcase_add_test(tc, shapes_check_examples);
	if (access(spec, R_OK) == 0)
		tcase_add_test(tc, shapes_are_the_specs);
	else
		printf("%s: not found, comparison skipped\n", spec);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
