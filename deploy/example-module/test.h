/* test.h - the little the example tools' tests share */
#include <stdio.h>
#include <string.h>
#include <wymcp_testing.h>

extern const struct wymcp_module wymcp_module;	/* the tool's own */

static int	 passed, failed;

/* One assertion: "not ok" and where, when it fails. */
#define CHECK(c) do {							\
	if (c)								\
		passed++;						\
	else {								\
		failed++;						\
		printf("not ok - %s:%d: %s (%s)\n", __FILE__, __LINE__,	\
		    #c, wymcp_testing_errmsg());			\
	}								\
} while (0)

/* An answer callback for a tool that asks nothing: stop if it does. */
static inline const char *
never(void *arg, const char *key, struct json_object *request)
{
	(void)arg;
	(void)key;
	(void)request;
	return NULL;
}

/* The structuredContent of a complete round, as compact JSON. */
static inline const char *
structured(const struct wymcp_testing_round *r)
{
	struct json_object	*s;

	if (r->result == NULL ||
	    !json_object_object_get_ex(r->result, "structuredContent", &s))
		return "(none)";
	return json_object_to_json_string_ext(s, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* A context mounting the tool's module; NULL: said why. */
static inline struct wymcp_ctx *
context(struct wymcp_testing_opts *o)
{
	static const struct wymcp_module *mods[] = { &wymcp_module, NULL };
	struct wymcp_ctx	*ctx;

	o->mount = mods;
	if ((ctx = wymcp_testing_build_context(o)) == NULL)
		printf("not ok - context: %s\n", wymcp_testing_errmsg());
	return ctx;
}

/* The summary line and the exit status. */
static inline int
done(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, passed, failed);
	return failed != 0 || passed == 0;
}
