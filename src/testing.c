/*
 * testing.c - the testing API: a context and one run, without a server
 * in front (wymcp_testing.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "extern.h"
#include "wymcp_testing.h"

/* Parse JSON text into a request-owned object of the wanted type. */
static struct json_object *
json_in(struct wymcp_ctx *ctx, const char *text, enum json_type want)
{
	struct json_object	*o;

	if ((o = wymcp__parse(text, strlen(text))) == NULL)
		return NULL;
	if (!json_object_is_type(o, want)) {
		json_object_put(o);
		return NULL;
	}
	return wymcp_own(ctx, o);
}

void
wymcp_testing_free_context(struct wymcp_ctx *ctx)
{
	struct wymcp_server	*srv;

	if (ctx == NULL)
		return;
	srv = ctx->srv;
	wymcp__ctx_free(ctx);
	wymcp_server_free(srv);
	free(ctx);
}

struct wymcp_ctx *
wymcp_testing_build_context(const struct wymcp_testing_opts *o)
{
	static const struct wymcp_testing_opts none;
	struct wymcp_server	*srv;
	struct wymcp_ctx	*ctx;
	struct json_object	*a;
	size_t			 i;

	if (o == NULL)
		o = &none;
	if ((srv = wymcp_server_new()) == NULL)
		return NULL;
	if ((ctx = malloc(sizeof(*ctx))) == NULL) {
		wymcp_server_free(srv);
		return NULL;
	}
	wymcp__ctx_init(ctx, srv, NULL);
	/* All errors from here on use goto fail. */
	for (i = 0; o->mount != NULL && o->mount[i] != NULL; i++)
		if (wymcp_server_add_module(srv, o->mount[i]) != WYMCP_OK)
			goto fail;
	if (wymcp__ctx_mount(ctx) != WYMCP_OK)
		goto fail;
	ctx->assigns = o->assigns != NULL ?
	    json_in(ctx, o->assigns, json_type_object) :
	    wymcp_own(ctx, json_object_new_object());
	if (ctx->assigns == NULL)
		goto fail;
	json_object_object_foreach(ctx->assigns, k, v) {
		if (!json_object_is_type(v, json_type_string))
			goto fail;
		/* Internal names are never visible, as on the wire. */
		if (strncmp(k, "wymcp", 5) == 0 &&
		    (k[5] == '\0' || k[5] == '_'))
			json_object_object_del(ctx->assigns, k);
	}
	if (o->principal != NULL &&
	    (ctx->principal = wymcp_strdup(ctx, o->principal)) == NULL)
		goto fail;
	if (o->meta != NULL) {
		if ((ctx->meta = json_in(ctx, o->meta, json_type_object)) ==
		    NULL)
			goto fail;
		if (json_object_object_get_ex(ctx->meta, WYMCP__META_CAPS,
		    &a) && json_object_is_type(a, json_type_object))
			ctx->caps = a;
	}
	ctx->answers = o->answers != NULL ?
	    json_in(ctx, o->answers, json_type_object) :
	    wymcp_own(ctx, json_object_new_object());
	if (ctx->answers == NULL || !wymcp__responses_ok(ctx->answers))
		goto fail;
	ctx->method = "tools/call";
	return ctx;
fail:
	wymcp_testing_free_context(ctx);
	return NULL;
}

enum wymcp_err
wymcp_testing_answer(struct wymcp_ctx *ctx, const char *key,
    const char *answer)
{
	struct json_object	*a;

	if (ctx == NULL || key == NULL || answer == NULL)
		return WYMCP_ERR_INVAL;
	if ((a = json_in(ctx, answer, json_type_object)) == NULL)
		return WYMCP_ERR_INVAL;
	if (ctx->answers == NULL &&
	    (ctx->answers = wymcp_own(ctx, json_object_new_object())) == NULL)
		return WYMCP_ERR_NOMEM;
	if (json_object_object_add(ctx->answers, key, json_object_get(a)))
		return WYMCP_ERR_NOMEM;
	return WYMCP_OK;
}

/* Fill the question fields from the first pending input request. */
static void
question(struct wymcp_testing_round *r, struct json_object *pending)
{
	struct json_object	*p, *v;

	r->input_requests = pending;
	json_object_object_foreach(pending, k, req) {
		r->key = k;
		if (json_object_object_get_ex(req, "method", &v))
			r->method = json_object_get_string(v);
		if (json_object_object_get_ex(req, "params", &p)) {
			if (json_object_object_get_ex(p, "message", &v))
				r->message = json_object_get_string(v);
			if (json_object_object_get_ex(p, "requestedSchema", &v))
				r->schema = v;
		}
		break;
	}
}

enum wymcp_err
wymcp_testing_run_tool(struct wymcp_ctx *ctx, const struct wymcp_tool *tool,
    const char *args_json, struct wymcp_testing_round *r)
{
	struct json_object	*schema, *o, *t;
	struct wymcp_result	*res;
	struct json_object	*args;
	struct wymcp__run	 run;
	char			 why[256];

	if (r != NULL)
		memset(r, 0, sizeof(*r));
	if (ctx == NULL || tool == NULL || tool->run == NULL || r == NULL)
		return WYMCP_ERR_INVAL;
	if ((args = json_in(ctx, args_json != NULL ? args_json : "{}",
	    json_type_object)) == NULL)
		return WYMCP_ERR_INVAL;
	/* The arguments are checked as on the wire. */
	schema = tool->input_schema == NULL ? NULL :
	    json_in(ctx, tool->input_schema, json_type_object);
	if (schema != NULL && wymcp__schema_validate(schema, args, why,
	    sizeof(why)) != 1) {
		r->kind = WYMCP_TESTING_INVALID;
		r->rc = WYMCP_ERR_INVAL;
		r->error = wymcp_printf(ctx, "Invalid arguments for tool %s: "
		    "%s", tool->name, why);
		return WYMCP_OK;
	}
	ctx->call_name = tool->name;
	ctx->call_args = args;
	if ((res = wymcp__result_new(ctx)) == NULL)
		return WYMCP_ERR_NOMEM;
	switch (wymcp__run_tool(ctx, tool, args, res, &run, &r->rc)) {
	case WYMCP__RUN_INPUT:
		r->kind = WYMCP_TESTING_INPUT_REQUIRED;
		question(r, run.pending);
		return WYMCP_OK;
	case WYMCP__RUN_FAULT:
		r->kind = WYMCP_TESTING_INVALID;
		r->error = run.fault;
		return WYMCP_OK;
	case WYMCP__RUN_DONE:
		break;
	}
	r->kind = WYMCP_TESTING_COMPLETE;
	/* The result reads as on the wire (methods.c). */
	wymcp__result_finish(res, r->rc);
	if ((o = wymcp_own(ctx, wymcp__call_result(res))) == NULL)
		return WYMCP_ERR_NOMEM;
	r->result = o;
	r->is_error = res->is_error;
	if (json_object_array_length(res->content) > 0 &&
	    json_object_object_get_ex(json_object_array_get_idx(res->content,
	    0), "text", &t))
		r->text = json_object_get_string(t);
	return WYMCP_OK;
}
