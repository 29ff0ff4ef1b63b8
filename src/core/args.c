/* args.c - argument readers and one-call text results for tools */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdint.h>

#include "core/core.h"

/* The member `name` of the object `obj`; NULL when absent or null. */
static struct json_object *
member(struct json_object *obj, const char *name)
{
	struct json_object	*v;

	if (name == NULL || !json_object_is_type(obj, json_type_object) ||
	    !json_object_object_get_ex(obj, name, &v))
		return NULL;
	return v;
}

const char *
wymcp_arg_str(struct json_object *obj, const char *name, const char *def)
{
	struct json_object	*v = member(obj, name);

	if (!json_object_is_type(v, json_type_string))
		return def;
	return json_object_get_string(v);
}

int64_t
wymcp_arg_int(struct json_object *obj, const char *name, int64_t def)
{
	struct json_object	*v = member(obj, name);
	int64_t			 i;
	double			 d;

	switch (json_object_get_type(v)) {
	case json_type_int:
		/* Above INT64_MAX json-c holds a uint64, which int64 cannot. */
		i = json_object_get_int64(v);
		if (i == INT64_MAX &&
		    json_object_get_uint64(v) > (uint64_t)INT64_MAX)
			return def;
		return i;
	case json_type_double:
		/*
		 * json-c parses 3.0 and 1e2 as doubles, yet the schema's
		 * "integer" admits them: a tool must read what was accepted.
		 * The range test comes first (it is false for NaN): the
		 * cast is undefined outside it.
		 */
		d = json_object_get_double(v);
		if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 &&
		    d == (double)(int64_t)d)
			return (int64_t)d;
		return def;
	default:
		return def;
	}
}

int
wymcp_arg_bool(struct json_object *obj, const char *name, int def)
{
	struct json_object	*v = member(obj, name);

	if (!json_object_is_type(v, json_type_boolean))
		return def;
	return json_object_get_boolean(v) ? 1 : 0;
}

double
wymcp_arg_num(struct json_object *obj, const char *name, double def)
{
	struct json_object	*v = member(obj, name);

	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double))
		return def;
	return json_object_get_double(v);
}

enum wymcp_err
wymcp_result_text(struct wymcp_result *res, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	if (res == NULL || fmt == NULL)
		return WYMCP_ERR_INVAL;
	va_start(ap, fmt);
	s = wymcp__arena_vprintf(&res->ctx->arena, fmt, ap);
	va_end(ap);
	/* A NULL block is out of memory: wymcp_result_add() says so. */
	return s == NULL ? WYMCP_ERR_NOMEM :
	    wymcp_result_add(res, wymcp_text(res->ctx, s));
}
