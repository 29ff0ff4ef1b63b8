/*
 * ask.c - asking the client: elicitation, sampling, roots
 *
 * MCP 2026-07-28 client/elicitation.mdx, client/sampling.mdx,
 * client/roots.mdx, asked through MRTR input requests
 * (basic/patterns/mrtr.mdx).  A question the request already carries
 * an answer for returns that answer; an unanswered one ends the round
 * (run.c).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>

#include <sodium.h>

#include "core/core.h"

/*
 * inputResponses must be an object whose members are objects
 * (mrtr.mdx "Error handling"; ElicitResult, CreateMessageResult and
 * ListRootsResult are all objects).
 */
int
wymcp__responses_ok(struct json_object *r)
{
	if (!json_object_is_type(r, json_type_object))
		return 0;
	json_object_object_foreach(r, k, v) {
		(void)k;
		if (!json_object_is_type(v, json_type_object))
			return 0;
	}
	return 1;
}

/* A primitive property of a form (client/elicitation.mdx "Schema"). */
static int
prim_ok(const char *name, struct json_object *p, char *err, size_t errlen)
{
	struct json_object	*t, *items, *it;
	const char		*type;

	if (!json_object_is_type(p, json_type_object) ||
	    !json_object_object_get_ex(p, "type", &t) ||
	    !json_object_is_type(t, json_type_string)) {
		snprintf(err, errlen, "property '%s' needs a \"type\"", name);
		return 0;
	}
	type = json_object_get_string(t);
	if (strcmp(type, "string") == 0 || strcmp(type, "number") == 0 ||
	    strcmp(type, "integer") == 0 || strcmp(type, "boolean") == 0)
		return 1;
	if (strcmp(type, "array") == 0) {
		/* Multi-select: an array of string enum values. */
		if (json_object_object_get_ex(p, "items", &items) &&
		    json_object_is_type(items, json_type_object) &&
		    ((json_object_object_get_ex(items, "enum", &it) &&
		    json_object_is_type(it, json_type_array)) ||
		    (json_object_object_get_ex(items, "anyOf", &it) &&
		    json_object_is_type(it, json_type_array))))
			return 1;
		snprintf(err, errlen, "property '%s': an array must be a "
		    "multi-select of string enum values", name);
		return 0;
	}
	snprintf(err, errlen, "property '%s' has type '%s': only string, "
	    "number, integer, boolean and enum arrays are allowed", name,
	    type);
	return 0;
}

/*
 * A form's requestedSchema must be a flat object of primitive
 * properties (client/elicitation.mdx "Requested Schema").  1 or 0 with
 * the reason.
 */
int
wymcp__elicit_schema_ok(struct json_object *s, char *err, size_t errlen)
{
	struct json_object	*t, *props, *req, *r;
	size_t			 i;

	if (!json_object_is_type(s, json_type_object) ||
	    !json_object_object_get_ex(s, "type", &t) ||
	    !json_object_is_type(t, json_type_string) ||
	    strcmp(json_object_get_string(t), "object") != 0) {
		snprintf(err, errlen, "requestedSchema must be an object "
		    "schema with \"type\":\"object\"");
		return 0;
	}
	if (!json_object_object_get_ex(s, "properties", &props) ||
	    !json_object_is_type(props, json_type_object)) {
		snprintf(err, errlen, "requestedSchema needs \"properties\"");
		return 0;
	}
	json_object_object_foreach(props, name, p)
		if (!prim_ok(name, p, err, errlen))
			return 0;
	if (json_object_object_get_ex(s, "required", &req)) {
		if (!json_object_is_type(req, json_type_array)) {
			snprintf(err, errlen, "\"required\" must be an array");
			return 0;
		}
		for (i = 0; i < json_object_array_length(req); i++) {
			r = json_object_array_get_idx(req, i);
			if (!json_object_is_type(r, json_type_string) ||
			    !json_object_object_get_ex(props,
			    json_object_get_string(r), NULL)) {
				snprintf(err, errlen, "\"required\" names a "
				    "property the schema does not have");
				return 0;
			}
		}
	}
	return 1;
}

/*
 * Does `answer' fit the input request `req' ({method, params}) it
 * answers?  An elicitation's: an ElicitResult (accept, decline, cancel;
 * an accepted form's content matches params.requestedSchema); a
 * sampling request's: a CreateMessageResult (role and content);
 * roots/list's: a ListRootsResult (roots, an array).  1, or 0 with the
 * reason: a task's tasks/update refuses what a request's run would.
 */
int
wymcp__answer_ok(struct json_object *req, struct json_object *answer,
    char *why, size_t len)
{
	struct json_object	*m, *p, *s, *c, *v;
	const char		*method, *act;

	why[0] = '\0';
	if (!json_object_is_type(answer, json_type_object)) {
		snprintf(why, len, "an answer must be an object");
		return 0;
	}
	method = json_object_object_get_ex(req, "method", &m) ?
	    json_object_get_string(m) : "";
	if (strcmp(method, "elicitation/create") == 0) {
		act = wymcp_answer_action(answer);
		if (act == NULL || (strcmp(act, "accept") != 0 &&
		    strcmp(act, "decline") != 0 &&
		    strcmp(act, "cancel") != 0)) {
			snprintf(why, len,
			    "action must be accept, decline or cancel");
			return 0;
		}
		if (strcmp(act, "accept") != 0 ||
		    !json_object_object_get_ex(req, "params", &p) ||
		    !json_object_object_get_ex(p, "requestedSchema", &s))
			return 1;
		if (!json_object_object_get_ex(answer, "content", &c) ||
		    !json_object_is_type(c, json_type_object)) {
			snprintf(why, len,
			    "an accepted form answer needs a content object");
			return 0;
		}
		if (wymcp__schema_validate(s, c, why, len) != 1)
			return 0;
		/* As check_elicit_answer(): declared properties only. */
		json_object_object_get_ex(s, "properties", &v);
		json_object_object_foreach(c, k, cv) {
			(void)cv;
			if (!json_object_object_get_ex(v, k, NULL)) {
				snprintf(why, len, "content has property "
				    "'%.64s', which the requested schema does "
				    "not declare", k);
				return 0;
			}
		}
		return 1;
	}
	/* As check_shape(): schema.json's result shapes. */
	if (strcmp(method, "sampling/createMessage") == 0)
		return wymcp__shape_check("CreateMessageResult", answer, why,
		    len) == 1;
	if (strcmp(method, "roots/list") == 0)
		return wymcp__shape_check("ListRootsResult", answer, why,
		    len) == 1;
	return 1;
}

/* Fail the call with -32602: an answer the tool must never see. */
static void
fault(struct wymcp_ctx *ctx, struct wymcp__run *run, const char *key,
    const char *why)
{
	run->fault = wymcp_printf(ctx, "Invalid input response %s: %s",
	    wymcp__ctx_quote(ctx, key), why != NULL ? why : "invalid");
	if (run->fault == NULL)
		run->fault = "Invalid input response";
	wymcp__run_stop(run);
}

/*
 * Check an elicitation answer: an ElicitResult whose action is accept,
 * decline or cancel; an accepted form answer carries content matching
 * the requested schema.  Does not return when it is invalid.
 */
static void
check_elicit_answer(struct wymcp_ctx *ctx, struct wymcp__run *run,
    const char *key, struct json_object *a, struct json_object *schema)
{
	const char		*act = wymcp_answer_action(a);
	struct json_object	*c, *props = NULL;
	char			 why[256];

	if (act == NULL || (strcmp(act, "accept") != 0 &&
	    strcmp(act, "decline") != 0 && strcmp(act, "cancel") != 0))
		fault(ctx, run, key,
		    "action must be accept, decline or cancel");
	if (strcmp(act, "accept") != 0)
		return;
	if (!json_object_object_get_ex(a, "content", &c) ||
	    !json_object_is_type(c, json_type_object))
		fault(ctx, run, key,
		    "an accepted form answer needs a content object");
	if (wymcp__schema_validate(schema, c, why, sizeof(why)) != 1)
		fault(ctx, run, key, wymcp_printf(ctx, "content does not "
		    "match the requested schema: %s", why));
	/*
	 * The form has the properties it declares and no others
	 * (client/elicitation.mdx: content holds the values of the
	 * requested schema's properties), whether or not the schema says
	 * additionalProperties: a tool reads only what it asked for, and
	 * must not find a value it never offered the user a field for.
	 */
	json_object_object_get_ex(schema, "properties", &props);
	json_object_object_foreach(c, k, v) {
		(void)v;
		if (!json_object_object_get_ex(props, k, NULL))
			fault(ctx, run, key, wymcp_printf(ctx, "content has "
			    "property '%s', which the requested schema does "
			    "not declare", wymcp__ctx_quote(ctx, k)));
	}
}

/*
 * Check a sampling or roots answer against its result shape in
 * schema.json (CreateMessageResult, ListRootsResult: shapes.c).  Does
 * not return when it is invalid.
 */
static void
check_shape(struct wymcp_ctx *ctx, struct wymcp__run *run, const char *key,
    struct json_object *a, const char *shape)
{
	char	 why[256];
	int	 rc;

	if ((rc = wymcp__shape_check(shape, a, why, sizeof(why))) == 1)
		return;
	fault(ctx, run, key, rc < 0 ? "out of memory" : wymcp_printf(ctx,
	    "not a %s: %s", shape, why));
}

/*
 * Does a chosen key look like a positional one ("elicit-2")?  Those are
 * the framework's, so that a chosen key never takes another question's
 * answer.
 */
static int
positional(const char *key)
{
	static const char *const kinds[] = { "elicit-", "sample-", "roots-" };
	size_t		 i, n;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		n = strlen(kinds[i]);
		if (strncmp(key, kinds[i], n) == 0 && key[n] != '\0' &&
		    strspn(key + n, "0123456789") == strlen(key + n))
			return 1;
	}
	return 0;
}

/*
 * The key of a question: `key` when the tool chose one (checked), else
 * the next positional one, "kind-N" (written here: printf costs more
 * than the rest of an answered question).  NULL with *rc.
 */
static const char *
ask_key(struct wymcp_ctx *ctx, struct wymcp__run *run, const char *kind,
    const char *key, enum wymcp_err *rc)
{
	char		 num[16], *p;
	size_t		 klen, k = sizeof(num);
	unsigned int	 n;

	const char	*bad = NULL;

	if (key != NULL) {
		*rc = WYMCP_ERR_INVAL;
		if (*key == '\0' || strlen(key) > 128)
			bad = "is empty or longer than 128 bytes";
		else if (!wymcp__header_chars_ok(key))
			bad = "holds a control character or a byte beyond "
			    "ASCII";
		else if (positional(key))
			bad = "looks positional (elicit-N, sample-N, roots-N: "
			    "the framework's own keys); pass NULL for the next "
			    "positional key, or choose another";
		if (bad == NULL)
			return key;
		/* A warning: the testing library's errmsg says it too. */
		wymcp__ctx_log(ctx, WYMCP_LOG_WARNING, "a %s question's chosen "
		    "key '%s' %s", kind, wymcp__ctx_quote(ctx, key), bad);
		wymcp__why(ctx, WYMCP_ERR_INVAL, 0, "The %s question's key "
		    "'%s' %s", kind, wymcp__ctx_quote(ctx, key), bad);
		return NULL;
	}
	n = ++run->counter;
	do {
		num[--k] = (char)('0' + n % 10);
	} while ((n /= 10) != 0);
	num[--k] = '-';
	klen = strlen(kind);
	*rc = WYMCP_ERR_NOMEM;
	if ((p = wymcp__arena_alloc(&ctx->arena, klen + sizeof(num) - k +
	    1)) == NULL)
		return NULL;
	memcpy(p, kind, klen);
	memcpy(p + klen, num + k, sizeof(num) - k);
	p[klen + sizeof(num) - k] = '\0';
	return p;
}

/*
 * A key the tool chose, asked again in this run: the second question
 * gets the first one's answer and is never shown, which is never what
 * the tool meant (wymcp_elicit(3) "Question keys").  A warning, and an
 * error to the testing library; the run goes on as before.  `what` is
 * the question's message, or its params as JSON.
 */
static void
repeated(struct wymcp_ctx *ctx, struct wymcp__run *run, const char *key,
    const char *method, const char *what)
{
	struct wymcp__asked	*a;

	if (what == NULL)
		what = "";
	for (a = run->asked; a != NULL; a = a->next) {
		if (strcmp(a->key, key) != 0)
			continue;
		if (strcmp(a->method, method) == 0 &&
		    strcmp(a->what, what) == 0)
			wymcp__ctx_misuse(ctx, "%s: question key '%s' asked "
			    "twice in one run: the second gets the first's "
			    "answer; give each question its own key",
			    ctx->call.name != NULL ? ctx->call.name : "-",
			    wymcp__ctx_quote(ctx, key));
		else
			wymcp__ctx_misuse(ctx, "%s: question key '%s' reused "
			    "for another question ('%s' after '%s'): the "
			    "second is never shown; give each question its "
			    "own key",
			    ctx->call.name != NULL ? ctx->call.name : "-",
			    wymcp__ctx_quote(ctx, key),
			    wymcp__ctx_quote(ctx, what),
			    wymcp__ctx_quote(ctx, a->what));
		return;
	}
	if ((a = wymcp__arena_alloc(&ctx->arena, sizeof(*a))) == NULL ||
	    (a->key = wymcp_strdup(ctx, key)) == NULL ||
	    (a->what = wymcp_strdup(ctx, what)) == NULL)
		return;
	a->method = method;
	a->next = run->asked;
	run->asked = a;
}

/*
 * Does the request carry an answer for `key`?  1 with *answer, checked
 * (an invalid one does not return) and remembered as read (it goes
 * into the next requestState), or 0: unanswered.
 */
static int
answered(struct wymcp_ctx *ctx, struct wymcp__run *run, const char *kind,
    const char *key, struct json_object *schema, struct json_object **answer)
{
	struct lh_entry		*e;
	struct json_object	*a;
	struct wymcp__used	*u;

	/* The entry, not only the value: its key outlives the tool's. */
	if (!json_object_is_type(ctx->call.answers, json_type_object) ||
	    (e = lh_table_lookup_entry(json_object_get_object(
	    ctx->call.answers), key)) == NULL)
		return 0;
	*answer = a = (struct json_object *)lh_entry_v(e);
	if (schema != NULL)
		check_elicit_answer(ctx, run, key, a, schema);
	else if (strcmp(kind, "sample") == 0)
		check_shape(ctx, run, key, a, "CreateMessageResult");
	else if (strcmp(kind, "roots") == 0)
		check_shape(ctx, run, key, a, "ListRootsResult");
	/* Once each: a key asked twice is sealed once. */
	for (u = run->used; u != NULL; u = u->next)
		if (u->key == lh_entry_k(e))
			return 1;
	if ((u = wymcp__arena_alloc(&ctx->arena, sizeof(*u))) != NULL) {
		u->next = NULL;
		u->key = lh_entry_k(e);
		u->answer = a;
		*run->used_end = u;
		run->used_end = &u->next;
	}
	return 1;
}

/* A question, {method, params}: a new reference, or NULL. */
static struct json_object *
question(const char *method, struct json_object *params)
{
	struct json_object	*req;

	if ((req = json_object_new_object()) == NULL)
		return NULL;
	/* Literal names, new to the objects made here (so too below). */
	wymcp__put_new(req, "method", json_object_new_string(method));
	wymcp__put_new(req, "params", json_object_get(params));
	return req;
}

/*
 * An unanswered question (`req`, a reference this takes, NULL out of
 * memory): record it and end the round (or, in a batch, return
 * WYMCP_ERR_PENDING).
 */
static enum wymcp_err
pending(struct wymcp__run *run, const char *key, struct json_object *req)
{
	struct json_object	*m;

	if (req == NULL)
		return WYMCP_ERR_NOMEM;
	if ((m = wymcp__run_pending(run)) == NULL) {
		json_object_put(req);
		return WYMCP_ERR_NOMEM;
	}
	/* A key asked again in a batch: the first question stays. */
	if (json_object_object_get_ex(m, key, NULL))
		json_object_put(req);
	else if (json_object_object_add(m, key, req)) {
		json_object_put(req);
		return WYMCP_ERR_NOMEM;
	}
	if (run->batch)
		return WYMCP_ERR_PENDING;
	wymcp__run_stop(run);
	return WYMCP_ERR_PENDING;	/* not reached */
}

/*
 * The common part of every question: find the answer for `key`, or
 * record the question and end the round (or, in a batch, return
 * WYMCP_ERR_PENDING).  The capability was checked by the caller.
 */
static enum wymcp_err
ask(struct wymcp_ctx *ctx, struct wymcp__run *run, const char *kind,
    const char *key, const char *method, struct json_object *params,
    struct json_object **answer)
{
	enum wymcp_err		 rc;
	int			 chosen = key != NULL;

	if ((key = ask_key(ctx, run, kind, key, &rc)) == NULL)
		return rc;
	if (chosen)
		repeated(ctx, run, key, method, wymcp__json(params));
	if (answered(ctx, run, kind, key, NULL, answer))
		return WYMCP_OK;
	return pending(run, key, question(method, params));
}

/* The declared capability object `name`, or NULL. */
static struct json_object *
cap(struct wymcp_ctx *ctx, const char *name)
{
	struct json_object	*c;

	/* A legacy client is asked on a held stream, when one is free. */
	if (ctx->req.legacy && !wymcp__held_take(ctx))
		return NULL;
	if (ctx->req.caps == NULL ||
	    !json_object_object_get_ex(ctx->req.caps, name, &c) ||
	    !json_object_is_type(c, json_type_object))
		return NULL;
	return c;
}

/*
 * WYMCP_ERR_NOTSUP, naming the capability `what' the request lacks
 * (ctx->call.why: what a tool that passes the value on says).
 */
static enum wymcp_err
notsup(struct wymcp_ctx *ctx, const char *what)
{
	if (ctx->req.legacy)
		return wymcp__why(ctx, WYMCP_ERR_NOTSUP, 0, "The client cannot "
		    "be asked: this 2025-11-25 connection declared no %s "
		    "capability at initialize, or no stream is free to ask "
		    "on", what);
	return wymcp__why(ctx, WYMCP_ERR_NOTSUP, 0, "The client cannot be "
	    "asked: the request's io.modelcontextprotocol/clientCapabilities "
	    "does not declare %s", what);
}

/*
 * Did the client declare form-mode elicitation?  {} and {"form":…} do;
 * no "elicitation", or one naming "url" alone, does not
 * (client/elicitation.mdx "Capabilities").
 */
static int
form_cap(struct wymcp_ctx *ctx)
{
	struct json_object	*e;

	if ((e = cap(ctx, "elicitation")) == NULL)
		return 0;
	return json_object_object_length(e) == 0 ||
	    json_object_object_get_ex(e, "form", NULL);
}

/*
 * A form question: {method, params: {mode, message, requestedSchema}}.
 * With the memo of its schema (`m`, or NULL), the question asked last
 * with that schema and message, frozen, is asked again as it is (the
 * same tool asks the same question every round); a new one is
 * remembered there.  A new reference, or NULL.
 */
static struct json_object *
form_question(const char *msg, struct json_object *schema,
    struct wymcp__schema_memo *m)
{
	struct json_object	*params, *req;
	char			*copy;

	if (m != NULL && m->question != NULL && m->msgptr == msg &&
	    strcmp(m->msg, msg) == 0)
		return json_object_get(m->question);
	if ((params = json_object_new_object()) == NULL)
		return NULL;
	wymcp__put_new(params, "mode", json_object_new_string("form"));
	wymcp__put_new(params, "message", json_object_new_string(msg));
	wymcp__put_new(params, "requestedSchema", json_object_get(schema));
	req = question("elicitation/create", params);
	json_object_put(params);
	/* Remembered only when all of it is (else asked as it is). */
	if (req == NULL || m == NULL || (copy = strdup(msg)) == NULL)
		return req;
	if (wymcp__json_freeze(req) != 0) {
		free(copy);
		return req;
	}
	free(m->msg);
	json_object_put(m->question);
	m->msgptr = msg;
	m->msg = copy;
	m->question = json_object_get(req);
	return req;
}

/*
 * Ask a form question whose schema was checked (`m`: the schema's memo,
 * or NULL).  The question is built only when it goes to the client: an
 * answered one is only looked up.
 */
static enum wymcp_err
elicit_form(struct wymcp_ctx *ctx, struct wymcp__run *run, const char *key,
    const char *msg, struct json_object *schema,
    struct wymcp__schema_memo *m, struct json_object **answer)
{
	enum wymcp_err		 rc;
	int			 chosen = key != NULL;

	if ((key = ask_key(ctx, run, "elicit", key, &rc)) == NULL)
		return rc;
	if (chosen)
		repeated(ctx, run, key, "elicitation/create", msg);
	if (answered(ctx, run, "elicit", key, schema, answer))
		return WYMCP_OK;
	return pending(run, key, form_question(msg, schema, m));
}

enum wymcp_err
wymcp_elicit_key(struct wymcp_ctx *ctx, const char *key, const char *msg,
    struct json_object *schema, struct json_object **answer)
{
	struct wymcp__run	*run;
	char			 why[256];

	if (answer != NULL)
		*answer = NULL;
	if (ctx == NULL || answer == NULL)
		return WYMCP_ERR_INVAL;
	/* The capability check comes first. */
	if (!form_cap(ctx))
		return notsup(ctx, "elicitation (form mode)");
	if ((run = wymcp__run_open(ctx)) == NULL)
		return WYMCP_ERR_NORUN;
	if (msg == NULL)
		return WYMCP_ERR_INVAL;
	if (!wymcp__elicit_schema_ok(schema, why, sizeof(why))) {
		wymcp__ctx_log(ctx, WYMCP_LOG_ERR, "elicit: %s", why);
		return WYMCP_ERR_SCHEMA;
	}
	return elicit_form(ctx, run, key, msg, schema, NULL, answer);
}

/*
 * The parsed, checked schema of `text`, owned by the request: from the
 * server's memo when this text was seen before (same address, same
 * bytes), else parsed and checked now and remembered while there is
 * room (*mp: its memo, or NULL).  NULL (logged) when it is not valid
 * JSON or not a form schema; *rc says which failure.
 */
static struct json_object *
form_schema(struct wymcp_ctx *ctx, const char *text,
    struct wymcp__schema_memo **mp, enum wymcp_err *rc)
{
	struct wymcp_server		*srv = ctx->srv;
	struct wymcp__schema_memo	*m;
	struct json_object		*s;
	char				 why[256];
	size_t				 i;

	*rc = WYMCP_ERR_SCHEMA;
	*mp = NULL;
	for (i = 0; i < srv->nmemo; i++)
		if (srv->memo[i].ptr == text &&
		    strcmp(srv->memo[i].text, text) == 0) {
			*rc = WYMCP_ERR_NOMEM;
			*mp = &srv->memo[i];
			return wymcp_own(ctx,
			    json_object_get(srv->memo[i].schema));
		}
	if ((s = wymcp__parse(text, strlen(text))) == NULL) {
		wymcp__ctx_log(ctx, WYMCP_LOG_ERR,
		    "elicit: the schema is not valid JSON");
		return NULL;
	}
	if (!wymcp__elicit_schema_ok(s, why, sizeof(why))) {
		wymcp__ctx_log(ctx, WYMCP_LOG_ERR, "elicit: %s", why);
		json_object_put(s);
		return NULL;
	}
	if (srv->nmemo < WYMCP__SCHEMA_MEMO) {
		m = &srv->memo[srv->nmemo];
		/*
		 * A remembered schema goes into every question asked with
		 * it, unchanged: serialized once (nothing is lost when
		 * there is no memory for that).
		 */
		(void)wymcp__json_freeze(s);
		if ((m->text = strdup(text)) != NULL) {
			m->ptr = text;
			m->schema = json_object_get(s);
			m->msgptr = NULL;
			m->msg = NULL;
			m->question = NULL;
			srv->nmemo++;
			*mp = m;
		}
	}
	*rc = WYMCP_ERR_NOMEM;
	return wymcp_own(ctx, s);
}

/* Did the client declare URL-mode elicitation (elicitation.url)? */
static int
url_cap(struct wymcp_ctx *ctx)
{
	struct json_object	*e;

	return (e = cap(ctx, "elicitation")) != NULL &&
	    json_object_object_get_ex(e, "url", NULL);
}

enum wymcp_err
wymcp_elicit_url(struct wymcp_ctx *ctx, const char *msg, const char *url,
    struct json_object **answer)
{
	struct wymcp__run	*run;
	struct json_object	*params;
	unsigned char		 raw[16];
	char			 id[sizeof(raw) * 2 + 1];
	const char		*act;
	enum wymcp_err		 rc;

	if (answer != NULL)
		*answer = NULL;
	if (ctx == NULL || answer == NULL)
		return WYMCP_ERR_INVAL;
	if (!url_cap(ctx))
		return notsup(ctx, "elicitation.url (URL mode)");
	if ((run = wymcp__run_open(ctx)) == NULL)
		return WYMCP_ERR_NORUN;
	if (msg == NULL || url == NULL || !wymcp__text_ok(url) ||
	    (strncmp(url, "https://", 8) != 0 &&
	    strncmp(url, "http://", 7) != 0))
		return WYMCP_ERR_INVAL;
	/* Unique per question; an answered one is never sent again. */
	randombytes_buf(raw, sizeof(raw));
	sodium_bin2hex(id, sizeof(id), raw, sizeof(raw));
	if ((params = wymcp_own(ctx, json_object_new_object())) == NULL)
		return WYMCP_ERR_NOMEM;
	wymcp__put_new(params, "mode", json_object_new_string("url"));
	wymcp__put_new(params, "message", json_object_new_string(msg));
	wymcp__put_new(params, "url", json_object_new_string(url));
	/*
	 * 2025-11-25's ElicitRequestURLParams has an elicitationId;
	 * 2026-07-28 removed it (its schema.ts), so a modern question
	 * goes without.
	 */
	if (ctx->req.legacy)
		wymcp__put_new(params, "elicitationId",
		    json_object_new_string(id));
	if ((rc = ask(ctx, run, "elicit", NULL, "elicitation/create", params,
	    answer)) != WYMCP_OK)
		return rc;
	act = wymcp_answer_action(*answer);
	if (act == NULL || (strcmp(act, "accept") != 0 &&
	    strcmp(act, "decline") != 0 && strcmp(act, "cancel") != 0))
		fault(ctx, run, "elicit", "action must be accept, decline or "
		    "cancel");
	return WYMCP_OK;
}

enum wymcp_err
wymcp_elicit(struct wymcp_ctx *ctx, const char *msg, const char *schema,
    struct json_object **answer)
{
	struct wymcp__run	*run;
	struct wymcp__schema_memo *m;
	struct json_object	*s;
	enum wymcp_err		 rc;

	if (answer != NULL)
		*answer = NULL;
	if (ctx == NULL || answer == NULL)
		return WYMCP_ERR_INVAL;
	/*
	 * The capability, then the run, before anything else: another
	 * thread must not touch the request's memory.
	 */
	if (!form_cap(ctx))
		return notsup(ctx, "elicitation (form mode)");
	if ((run = wymcp__run_open(ctx)) == NULL)
		return WYMCP_ERR_NORUN;
	if (msg == NULL)
		return WYMCP_ERR_INVAL;
	if (schema == NULL) {
		wymcp__ctx_log(ctx, WYMCP_LOG_ERR,
		    "elicit: the schema is not valid JSON");
		return WYMCP_ERR_SCHEMA;
	}
	if ((s = form_schema(ctx, schema, &m, &rc)) == NULL)
		return rc;
	return elicit_form(ctx, run, NULL, msg, s, m, answer);
}

enum wymcp_err
wymcp_sample(struct wymcp_ctx *ctx, const char *key,
    struct json_object *params, struct json_object **answer)
{
	struct wymcp__run	*run;
	struct json_object	*s, *ic;

	if (answer != NULL)
		*answer = NULL;
	if (ctx == NULL || answer == NULL)
		return WYMCP_ERR_INVAL;
	/* Tool use in sampling needs sampling.tools (client/sampling.mdx). */
	if ((s = cap(ctx, "sampling")) == NULL ||
	    ((json_object_object_get_ex(params, "tools", NULL) ||
	    json_object_object_get_ex(params, "toolChoice", NULL)) &&
	    !json_object_object_get_ex(s, "tools", NULL)))
		return notsup(ctx, "sampling (with tools, when the request "
		    "has tools)");
	/* Context from other servers needs sampling.context. */
	if (json_object_object_get_ex(params, "includeContext", &ic) &&
	    json_object_is_type(ic, json_type_string) &&
	    strcmp(json_object_get_string(ic), "none") != 0 &&
	    !json_object_object_get_ex(s, "context", NULL))
		return notsup(ctx, "sampling.context");
	if ((run = wymcp__run_open(ctx)) == NULL)
		return WYMCP_ERR_NORUN;
	if (!json_object_is_type(params, json_type_object))
		return WYMCP_ERR_INVAL;
	return ask(ctx, run, "sample", key, "sampling/createMessage", params,
	    answer);
}

enum wymcp_err
wymcp_roots(struct wymcp_ctx *ctx, const char *key,
    struct json_object **answer)
{
	struct wymcp__run	*run;
	struct json_object	*params;

	if (answer != NULL)
		*answer = NULL;
	if (ctx == NULL || answer == NULL)
		return WYMCP_ERR_INVAL;
	if (cap(ctx, "roots") == NULL)
		return notsup(ctx, "roots");
	if ((run = wymcp__run_open(ctx)) == NULL)
		return WYMCP_ERR_NORUN;
	if ((params = wymcp_own(ctx, json_object_new_object())) == NULL)
		return WYMCP_ERR_NOMEM;
	return ask(ctx, run, "roots", key, "roots/list", params, answer);
}

const char *
wymcp_answer_action(struct json_object *a)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(a, "action", &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

struct json_object *
wymcp_answer_content(struct json_object *a)
{
	struct json_object	*v;
	const char		*act = wymcp_answer_action(a);

	if (act == NULL || strcmp(act, "accept") != 0 ||
	    !json_object_object_get_ex(a, "content", &v) ||
	    !json_object_is_type(v, json_type_object))
		return NULL;
	return v;
}

/*
 * The key under which an exec tool's question N keeps its requested
 * schema among the call's answers (wymcp__elicit_next()), so that the
 * answer that comes back is checked against it, as a C tool's is.
 */
static const char *
schema_key(struct wymcp_ctx *ctx, unsigned int n)
{
	return wymcp_printf(ctx, "wymcp-exec-schema-%u", n);
}

/*
 * The answers a program run (core/exec.c) is given: elicit-1 to
 * elicit-n, each read as this run's (sealed into the next
 * requestState) and added to `out'.  Each is checked against the
 * schema its question was asked with, which the round that asked it
 * kept among the answers (and which is read again, to be kept on):
 * an accepted answer's content must match it, as a C tool's must.
 * Without one (a state sealed before), as an elicitation result:
 * accept, decline or cancel, an accepted one with a content object.
 * Does not return when one is invalid (-32602).
 */
enum wymcp_err
wymcp__elicit_replay(struct wymcp_ctx *ctx, unsigned int n,
    struct json_object *out)
{
	struct wymcp__run	*run;
	struct json_object	*a, *c, *schema;
	const char		*key, *act, *sk;
	enum wymcp_err		 rc;
	unsigned int		 i;

	if ((run = wymcp__run_open(ctx)) == NULL)
		return WYMCP_ERR_NORUN;
	for (i = 0; i < n; i++) {
		schema = NULL;
		if ((sk = schema_key(ctx, i + 1)) == NULL)
			return WYMCP_ERR_NOMEM;
		if (answered(ctx, run, "exec", sk, NULL, &schema) &&
		    (!json_object_is_type(schema, json_type_object) ||
		    !wymcp__elicit_schema_ok(schema, NULL, 0)))
			schema = NULL;
		if ((key = ask_key(ctx, run, "elicit", NULL, &rc)) == NULL)
			return rc;
		if (!answered(ctx, run, "elicit", key, schema, &a))
			return WYMCP_ERR_INVAL;
		act = wymcp_answer_action(a);
		if (act == NULL || (strcmp(act, "accept") != 0 &&
		    strcmp(act, "decline") != 0 &&
		    strcmp(act, "cancel") != 0))
			fault(ctx, run, key,
			    "action must be accept, decline or cancel");
		if (strcmp(act, "accept") == 0 &&
		    (!json_object_object_get_ex(a, "content", &c) ||
		    !json_object_is_type(c, json_type_object)))
			fault(ctx, run, key,
			    "an accepted form answer needs a content object");
		if (json_object_object_add(out, key, json_object_get(a)))
			return WYMCP_ERR_NOMEM;
	}
	return WYMCP_OK;
}

/*
 * A program's question (core/exec.c): the next positional one after
 * wymcp__elicit_replay()'s, `schema' a parsed requestedSchema, which
 * is kept among the answers the next requestState seals (and the
 * answers a held stream's next run reads).  Ends the round;
 * WYMCP_ERR_NOTSUP without form elicitation, WYMCP_ERR_SCHEMA (why in
 * `why') for a schema of the wrong form.
 */
enum wymcp_err
wymcp__elicit_next(struct wymcp_ctx *ctx, const char *msg,
    struct json_object *schema, char *why, size_t whylen)
{
	struct wymcp__run	*run;
	struct json_object	*answer, *kept;
	const char		*sk;

	if (!form_cap(ctx))
		return WYMCP_ERR_NOTSUP;
	if ((run = wymcp__run_open(ctx)) == NULL)
		return WYMCP_ERR_NORUN;
	if (!wymcp__elicit_schema_ok(schema, why, whylen))
		return WYMCP_ERR_SCHEMA;
	if ((sk = schema_key(ctx, run->counter + 1)) == NULL)
		return WYMCP_ERR_NOMEM;
	if (ctx->call.answers == NULL &&
	    (ctx->call.answers = wymcp_own(ctx, json_object_new_object())) ==
	    NULL)
		return WYMCP_ERR_NOMEM;
	if (json_object_object_add(ctx->call.answers, sk,
	    json_object_get(schema)))
		return WYMCP_ERR_NOMEM;
	if (!answered(ctx, run, "exec", sk, NULL, &kept))
		return WYMCP_ERR_NOMEM;
	return elicit_form(ctx, run, NULL, msg, schema, NULL, &answer);
}
