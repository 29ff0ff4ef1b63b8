/*
 * short.c - short tools: JSON from templates, questions in one call
 *
 * wymcp_jsonf(3): the template expansion itself is lib/jsonf.c's; here
 * the value becomes the request's, and a template at fault becomes the
 * tool's failure message, as a builder given NULL does (content.c).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <string.h>

#include "core/core.h"

/* The schema of a confirmation: no field, accept or decline. */
#define CONFIRM_SCHEMA	"{\"type\":\"object\",\"properties\":{}}"

/* The tool's bug, said once: logged and kept for its failure. */
static void
fault(struct wymcp_ctx *ctx, const char *fn, const char *why,
    const char *fmt)
{
	const char	*m;

	if (fmt != NULL)
		m = wymcp_printf(ctx, "%s(): %s in \"%s\"", fn, why,
		    wymcp__quote(&ctx->arena, fmt, strlen(fmt)));
	else
		m = wymcp_printf(ctx, "%s(): %s", fn, why);
	if (m == NULL)
		return;
	ctx->call.builder_null = m;
	wymcp__ctx_log(ctx, WYMCP_LOG_ERR, "%s", m);
}

/* A NULL value in: a builder that failed, given NULL or out of memory. */
static enum wymcp_err
failed(struct wymcp_ctx *ctx)
{
	return ctx->call.builder_null != NULL ? WYMCP_ERR_INVAL :
	    WYMCP_ERR_NOMEM;
}

/* wymcp_vjsonf() for `fn', which names itself in the message. */
static struct json_object *
jsonf(struct wymcp_ctx *ctx, const char *fn, const char *fmt, va_list ap)
{
	struct json_object	*o;
	char			 why[160];
	int			 nomem;

	if (ctx == NULL)
		return NULL;
	if (fmt == NULL) {
		fault(ctx, fn, "the template is NULL", NULL);
		return NULL;
	}
	if ((o = wymcp__vjsonf(fmt, ap, why, sizeof(why), &nomem)) == NULL) {
		if (!nomem)
			fault(ctx, fn, why, fmt);
		return NULL;
	}
	return wymcp_own(ctx, o);
}

struct json_object *
wymcp_vjsonf(struct wymcp_ctx *ctx, const char *fmt, va_list ap)
{
	return jsonf(ctx, "wymcp_jsonf", fmt, ap);
}

struct json_object *
wymcp_jsonf(struct wymcp_ctx *ctx, const char *fmt, ...)
{
	struct json_object	*o;
	va_list			 ap;

	va_start(ap, fmt);
	o = jsonf(ctx, "wymcp_jsonf", fmt, ap);
	va_end(ap);
	return o;
}

enum wymcp_err
wymcp_json_append(struct wymcp_ctx *ctx, struct json_object *arr,
    const char *fmt, ...)
{
	struct json_object	*o;
	va_list			 ap;

	if (ctx == NULL)
		return WYMCP_ERR_INVAL;
	if (arr == NULL)
		return failed(ctx);
	if (!json_object_is_type(arr, json_type_array)) {
		fault(ctx, "wymcp_json_append", "the array is not an array",
		    NULL);
		return WYMCP_ERR_INVAL;
	}
	va_start(ap, fmt);
	o = jsonf(ctx, "wymcp_json_append", fmt, ap);
	va_end(ap);
	if (o == NULL)
		return failed(ctx);
	if (json_object_array_add(arr, json_object_get(o))) {
		json_object_put(o);
		return WYMCP_ERR_NOMEM;
	}
	return WYMCP_OK;
}

enum wymcp_err
wymcp_result_jsonf(struct wymcp_result *res, const char *fmt, ...)
{
	struct json_object	*o;
	va_list			 ap;

	if (res == NULL)
		return WYMCP_ERR_INVAL;
	va_start(ap, fmt);
	o = jsonf(res->ctx, "wymcp_result_jsonf", fmt, ap);
	va_end(ap);
	if (o == NULL)
		return failed(res->ctx);
	return wymcp_result_structured(res, o);
}

/* Sort an elicitation's answer out: accepted, declined, cancelled. */
static enum wymcp_err
sorted(struct json_object *answer, struct json_object **content)
{
	const char	*act = wymcp_answer_action(answer);

	if (act != NULL && strcmp(act, "accept") == 0) {
		if (content != NULL)
			*content = wymcp_answer_content(answer);
		return WYMCP_OK;
	}
	if (act != NULL && strcmp(act, "decline") == 0)
		return WYMCP_ERR_DECLINED;
	if (act != NULL && strcmp(act, "cancel") == 0)
		return WYMCP_ERR_CANCELLED;
	return WYMCP_ERR_INVAL;
}

enum wymcp_err
wymcp_ask(struct wymcp_ctx *ctx, const char *msg, const char *schema,
    struct json_object **content)
{
	struct json_object	*a;
	enum wymcp_err		 rc;

	if (content != NULL)
		*content = NULL;
	rc = wymcp_elicit(ctx, msg, schema != NULL ? schema : CONFIRM_SCHEMA,
	    &a);
	return rc != WYMCP_OK ? rc : sorted(a, content);
}

enum wymcp_err
wymcp_ask_choice(struct wymcp_ctx *ctx, const char *msg,
    const char *const *choices, const char **choice)
{
	struct json_object	*e, *s, *a, *c;
	enum wymcp_err		 rc;
	size_t			 i;

	if (choice != NULL)
		*choice = NULL;
	if (ctx == NULL || choices == NULL || choices[0] == NULL ||
	    choice == NULL)
		return WYMCP_ERR_INVAL;
	if ((e = wymcp_jsonf(ctx, "[]")) == NULL)
		return failed(ctx);
	for (i = 0; choices[i] != NULL; i++)
		if ((rc = wymcp_json_append(ctx, e, "%s", choices[i])) !=
		    WYMCP_OK)
			return rc;
	if ((s = wymcp_jsonf(ctx, "{\"type\":\"object\",\"properties\":"
	    "{\"choice\":{\"type\":\"string\",\"enum\":%p}},"
	    "\"required\":[\"choice\"]}", e)) == NULL)
		return failed(ctx);
	if ((rc = wymcp_elicit_key(ctx, NULL, msg, s, &a)) != WYMCP_OK ||
	    (rc = sorted(a, &c)) != WYMCP_OK)
		return rc;
	if ((*choice = wymcp_arg_str(c, "choice", NULL)) == NULL)
		return WYMCP_ERR_INVAL;
	return WYMCP_OK;
}
