/*
 * params.c - schemas derived from parameters declared in C
 *
 * A tool's `params' and `output' (wymcp.h "Parameters declared once")
 * become its inputSchema and outputSchema here, once, when the module
 * is loaded: JSON Schema 2020-12 (server/tools.mdx "Tool"), the subset
 * lib/schema.c validates.  The defaults of the input are kept apart,
 * to be put in each call's arguments before the body runs.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "setup/setup.h"

static const char *const type_names[] = {
	NULL, "string", "integer", "number", "boolean", NULL
};

/* Set a number member: an integer when it is one (JSON Schema's). */
static int
put_num(struct json_object *o, const char *key, double v)
{
	struct json_object	*n;

	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		n = json_object_new_int64((int64_t)v);
	else
		n = json_object_new_double(v);
	return n == NULL || json_object_object_add(o, key, n) != 0;
}

/* The bounds of `p' in `prop': of the value, or of a string's length. */
static int
put_bounds(struct wymcp_server *srv, const char *where,
    const struct wymcp_param *p, struct json_object *prop)
{
	int	 str = p->type == WYMCP_TYPE_STRING;

	if (str && ((p->has_min && (p->min < 0 || p->min != floor(p->min))) ||
	    (p->has_max && (p->max < 0 || p->max != floor(p->max))))) {
		wymcp__seterr(srv, "%s: a string's bounds are lengths, whole "
		    "numbers of 0 or more", where);
		return -1;
	}
	if ((p->has_min && !isfinite(p->min)) ||
	    (p->has_max && !isfinite(p->max)) ||
	    (p->has_min && p->has_max && p->min > p->max)) {
		wymcp__seterr(srv, "%s: the bounds are not finite, or min is "
		    "above max", where);
		return -1;
	}
	if ((p->has_min && put_num(prop, str ? "minLength" : "minimum",
	    p->min)) || (p->has_max && put_num(prop, str ? "maxLength" :
	    "maximum", p->max))) {
		wymcp__seterr(srv, "out of memory");
		return -1;
	}
	return 0;
}

/* The enum of `p' in `prop': choices are strings, of a string. */
static int
put_choices(struct wymcp_server *srv, const char *where,
    const struct wymcp_param *p, struct json_object *prop)
{
	struct json_object	*e;
	size_t			 i;

	if (p->type != WYMCP_TYPE_STRING || p->choices[0] == NULL) {
		wymcp__seterr(srv, "%s: choices are for WYMCP_STR, one at "
		    "least", where);
		return -1;
	}
	if ((e = json_object_new_array()) == NULL ||
	    json_object_object_add(prop, "enum", e)) {
		json_object_put(e);
		goto nomem;
	}
	for (i = 0; p->choices[i] != NULL; i++)
		if (json_object_array_add(e,
		    json_object_new_string(p->choices[i])))
			goto nomem;
	return 0;
nomem:
	wymcp__seterr(srv, "out of memory");
	return -1;
}

/*
 * The default of `p', checked against its property `prop' (type,
 * choices, bounds) and put there as "default"; *value is a new
 * reference to it.
 */
static int
put_default(struct wymcp_server *srv, const char *where,
    const struct wymcp_param *p, struct json_object *prop,
    struct json_object **value)
{
	struct json_object	*v;
	char			 why[256];

	if (p->type == WYMCP_TYPE_STRING)
		v = json_object_new_string(p->def);
	else
		v = wymcp__parse(p->def, strlen(p->def));
	if (v == NULL) {
		wymcp__seterr(srv, "%s: default '%s' is not JSON (a string's "
		    "default is the string itself)", where, p->def);
		return -1;
	}
	if (wymcp__schema_validate(prop, v, why, sizeof(why)) != 1) {
		wymcp__seterr(srv, "%s: default '%s' does not fit: %s", where,
		    p->def, why);
		json_object_put(v);
		return -1;
	}
	if (json_object_object_add(prop, "default", json_object_get(v))) {
		json_object_put(v);
		json_object_put(v);
		wymcp__seterr(srv, "out of memory");
		return -1;
	}
	*value = v;
	return 0;
}

/* Merge `p''s schema text over `prop'. */
static int
merge_schema(struct wymcp_server *srv, const char *where,
    const struct wymcp_param *p, struct json_object *prop)
{
	struct json_object	*o;

	o = wymcp__parse(p->schema, strlen(p->schema));
	if (o == NULL || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		wymcp__seterr(srv, "%s: schema is not a JSON object", where);
		return -1;
	}
	json_object_object_foreach(o, k, v)
		if (json_object_object_add(prop, k, json_object_get(v))) {
			json_object_put(o);
			wymcp__seterr(srv, "out of memory");
			return -1;
		}
	json_object_put(o);
	return 0;
}

/*
 * One parameter's property (new object), its default (new reference,
 * or NULL) in *def; NULL with the reason in errmsg.
 */
static struct json_object *
property(struct wymcp_server *srv, const char *where,
    const struct wymcp_param *p, struct json_object **def)
{
	struct json_object	*prop;

	*def = NULL;
	if (p->type < WYMCP_TYPE_STRING || p->type > WYMCP_TYPE_ANY) {
		wymcp__seterr(srv, "%s: type %d is none of enum wymcp_type",
		    where, p->type);
		return NULL;
	}
	if ((prop = json_object_new_object()) == NULL ||
	    (type_names[p->type] != NULL &&
	    wymcp__put_str(prop, "type", type_names[p->type])) ||
	    (p->description != NULL &&
	    wymcp__put_str(prop, "description", p->description))) {
		wymcp__seterr(srv, "out of memory");
		goto fail;
	}
	if (p->choices != NULL && put_choices(srv, where, p, prop))
		goto fail;
	if (put_bounds(srv, where, p, prop))
		goto fail;
	if (p->schema != NULL && merge_schema(srv, where, p, prop))
		goto fail;
	if (p->def != NULL && put_default(srv, where, p, prop, def))
		goto fail;
	return prop;
fail:
	json_object_put(prop);
	return NULL;
}

/*
 * The schema of a table of parameters (new object) in *schema, and for
 * an input, the defaults (name -> value, new object; NULL when none)
 * in *defaults.  WYMCP_OK, or WYMCP_ERR_SCHEMA (WYMCP_ERR_NOMEM) with
 * the tool, the table and the parameter in errmsg.
 */
enum wymcp_err
wymcp__params_schema(struct wymcp_server *srv, const char *tool,
    const char *what, const struct wymcp_params *ps, int input,
    struct json_object **schema, struct json_object **defaults)
{
	struct json_object	*s = NULL, *props, *req = NULL, *prop, *def;
	enum wymcp_err		 rc = WYMCP_ERR_SCHEMA;
	struct wymcp_param	 p;
	char			 where[192];
	size_t			 i;

	*schema = NULL;
	if (defaults != NULL)
		*defaults = NULL;
	if (ps->list == NULL || ps->size < offsetof(struct wymcp_param,
	    description)) {
		wymcp__seterr(srv, "tool %s: %s: no table, or an element size "
		    "of %zu", tool, what, ps->size);
		return WYMCP_ERR_SCHEMA;
	}
	if ((s = json_object_new_object()) == NULL ||
	    wymcp__put_str(s, "type", "object") ||
	    (props = json_object_new_object()) == NULL ||
	    json_object_object_add(s, "properties", props) ||
	    (req = json_object_new_array()) == NULL)
		goto nomem;
	/* All errors from here on use goto fail (req is put there). */
	for (i = 0; i < ps->n; i++) {
		memset(&p, 0, sizeof(p));
		memcpy(&p, (const char *)ps->list + i * ps->size,
		    ps->size < sizeof(p) ? ps->size : sizeof(p));
		if (p.name == NULL || *p.name == '\0') {
			wymcp__seterr(srv, "tool %s: %s: parameter %zu has no "
			    "name", tool, what, i + 1);
			goto fail;
		}
		snprintf(where, sizeof(where), "tool %s: %s %s", tool, what,
		    p.name);
		if (json_object_object_get_ex(props, p.name, NULL)) {
			wymcp__seterr(srv, "%s: declared twice", where);
			goto fail;
		}
		if ((prop = property(srv, where, &p, &def)) == NULL)
			goto fail;
		json_object_object_add(props, p.name, prop);
		if (def != NULL && input && defaults != NULL &&
		    ((*defaults == NULL &&
		    (*defaults = json_object_new_object()) == NULL) ||
		    json_object_object_add(*defaults, p.name,
		    json_object_get(def)))) {
			json_object_put(def);
			goto nomem;
		}
		json_object_put(def);
		if (!p.optional && (p.def == NULL || !input) &&
		    json_object_array_add(req, json_object_new_string(p.name)))
			goto nomem;
	}
	if (json_object_array_length(req) > 0 &&
	    json_object_object_add(s, "required", json_object_get(req)))
		goto nomem;
	json_object_put(req);
	if (input && json_object_object_add(s, "additionalProperties",
	    json_object_new_boolean(0))) {
		req = NULL;
		goto nomem;
	}
	*schema = s;
	return WYMCP_OK;
nomem:
	wymcp__seterr(srv, "out of memory");
	rc = WYMCP_ERR_NOMEM;
fail:
	json_object_put(req);
	json_object_put(s);
	if (defaults != NULL) {
		json_object_put(*defaults);
		*defaults = NULL;
	}
	return rc;
}
