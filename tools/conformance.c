/*
 * conformance.c - the fixture pack of the MCP conformance suite
 * (@modelcontextprotocol/conformance, --requirements 2026-07-28, plus the
 * not-scored json-schema-2020-12 and SEP-2243 header scenarios; and
 * --requirements 2025-11-25, whose extra tools come last in the list).
 *
 * Tools, resources, a template, prompts and completion with the exact
 * names, texts and payloads the suite asks for and checks.  It is built
 * and installed like the other modules but never loaded by default:
 * t/conformance/run.py loads it with --module.  Everything the suite
 * checks about the wire (headers, _meta, capabilities, requestState,
 * SSE, errors) is the library's job; this file only supplies data.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <wymcp.h>

/* A 1x1 red PNG and a minimal WAV, base64. */
static const char png[] = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAA"
    "DUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
static const char wav[] = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAA"
    "ZGF0YQIAAAA=";

#define EMPTY_SCHEMA	WYMCP_JSON({ "type": "object", "properties": {} })

/*
 * The inputSchema of json_schema_2020_12_tool, emitted with its members
 * in this order (json-c keeps the order it parsed).
 */
static const char schema_2020_12[] = WYMCP_JSON({
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
	"address": { "$anchor": "addressDef", "type": "object",
	    "properties": { "street": { "type": "string" },
	    "city": { "type": "string" } } } },
    "properties": {
	"name": { "type": "string" },
	"address": { "$ref": "#/$defs/address" },
	"contactMethod": { "type": "string", "enum": ["phone", "email"] },
	"phone": { "type": "string" },
	"email": { "type": "string" } },
    "allOf": [{ "anyOf": [{ "required": ["phone"] },
	{ "required": ["email"] }] }],
    "if": { "properties": { "contactMethod": { "const": "phone" } },
	"required": ["contactMethod"] },
    "then": { "required": ["phone"] },
    "else": { "required": ["email"] },
    "additionalProperties": false });

/* Elicitation forms: one required property each. */
static const char name_form[] = WYMCP_JSON({ "type": "object",
    "properties": { "name": { "type": "string" } }, "required": ["name"] });
static const char ok_form[] = WYMCP_JSON({ "type": "object",
    "properties": { "ok": { "type": "boolean" } }, "required": ["ok"] });
static const char color_form[] = WYMCP_JSON({ "type": "object",
    "properties": { "color": { "type": "string" } },
    "required": ["color"] });
static const char value_form[] = WYMCP_JSON({ "type": "object",
    "properties": { "value": { "type": "string" } },
    "required": ["value"] });
static const char context_form[] = WYMCP_JSON({ "type": "object",
    "properties": { "context": { "type": "string" } },
    "required": ["context"] });

/* sampling/createMessage params. */
static const char capital_sample[] = WYMCP_JSON({ "messages": [{
    "role": "user", "content": { "type": "text",
    "text": "What is the capital of France?" } }], "maxTokens": 100 });
static const char greeting_sample[] = WYMCP_JSON({ "messages": [{
    "role": "user", "content": { "type": "text",
    "text": "Generate a greeting" } }], "maxTokens": 50 });
static const char plain_sample[] = WYMCP_JSON({ "messages": [{
    "role": "user", "content": { "type": "text",
    "text": "Sample request" } }], "maxTokens": 50 });

#define JSON_FLAGS							\
	(JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* Parse constant JSON text into an object owned by the request. */
static struct json_object *
parse(struct wymcp_ctx *ctx, const char *text)
{
	return wymcp_own(ctx, json_tokener_parse(text));
}

/* Does this request's clientCapabilities declare `name` (an object)? */
static int
declared(struct wymcp_ctx *ctx, const char *name)
{
	struct json_object	*v;

	return json_object_object_get_ex(wymcp_ctx_client_caps(ctx), name,
	    &v) && json_object_is_type(v, json_type_object);
}

/* ------------------------------------------------------------ content */

static enum wymcp_err
simple_text_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_text(res,
	    "This is a simple text response for testing.");
}

static enum wymcp_err
image_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_add(res, wymcp_image(ctx, png, "image/png"));
}

static enum wymcp_err
audio_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_add(res, wymcp_audio(ctx, wav, "audio/wav"));
}

static enum wymcp_err
embedded_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_add(res, wymcp_resource_text(ctx,
	    "test://embedded-resource", "text/plain",
	    "This is an embedded resource content."));
}

static enum wymcp_err
multiple_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	enum wymcp_err	 rc;

	if ((rc = wymcp_result_text(res, "Multiple content types test:")) !=
	    WYMCP_OK ||
	    (rc = wymcp_result_add(res, wymcp_image(ctx, png,
	    "image/png"))) != WYMCP_OK)
		return rc;
	return wymcp_result_add(res, wymcp_resource_text(ctx,
	    "test://mixed-content-resource", "application/json",
	    "{\"test\":\"data\",\"value\":123}"));
}

/*
 * Three progress notifications, 0, 50 and 100 of 100, about 50 ms
 * apart; the result's text is the progressToken.  Without a token the
 * calls do nothing.
 */
static enum wymcp_err
progress_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	static const int	 steps[] = { 0, 50, 100 };
	struct json_object	*tok = NULL;
	struct timespec		 pause = { 0, 50 * 1000 * 1000 };
	size_t			 i;
	enum wymcp_err		 rc;

	json_object_object_get_ex(wymcp_ctx_meta(ctx), "progressToken", &tok);
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		if (i > 0)
			nanosleep(&pause, NULL);
		rc = wymcp_progress(ctx, steps[i], 100, wymcp_printf(ctx,
		    "Completed step %d of 100", steps[i]));
		/* WYMCP_ERR_IO: the client went away; nobody reads on. */
		if (rc != WYMCP_OK)
			return wymcp_result_error(res, "Progress failed: %s",
			    wymcp_strerror(rc));
	}
	if (tok == NULL || json_object_get_string(tok) == NULL)
		return wymcp_result_text(res, "no-token");
	return wymcp_result_text(res, "%s", json_object_get_string(tok));
}

static enum wymcp_err
error_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_error(res,
	    "This tool intentionally returns an error for testing");
}

/* Reached only when the request declared sampling (required_caps). */
static enum wymcp_err
missing_cap_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_text(res, "Success");
}

static enum wymcp_err
streaming_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_text(res, "Streaming complete");
}

/*
 * A log line: it reaches the client as notifications/message only when
 * the request asked for logs with _meta io.modelcontextprotocol/logLevel.
 */
static enum wymcp_err
logging_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	wymcp_log(ctx, WYMCP_LOG_INFO, "test_logging_tool evaluated");
	return wymcp_result_text(res, "Logging evaluated");
}

/*
 * The list-changed triggers (server-stateless's sep-2575 checks): a
 * tool says its list changed, and the hub tells the listen streams that
 * asked (wymcp_notify_list_changed()).
 */
static enum wymcp_err
trigger_tools_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	enum wymcp_err	 rc;

	(void)args;
	if ((rc = wymcp_notify_list_changed(ctx, WYMCP_LIST_TOOLS)) !=
	    WYMCP_OK)
		return rc;
	return wymcp_result_text(res, "Tool list change announced");
}

static enum wymcp_err
trigger_prompts_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	enum wymcp_err	 rc;

	(void)args;
	if ((rc = wymcp_notify_list_changed(ctx, WYMCP_LIST_PROMPTS)) !=
	    WYMCP_OK)
		return rc;
	return wymcp_result_text(res, "Prompt list change announced");
}

static enum wymcp_err
schema_2020_12_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_text(res,
	    "JSON Schema 2020-12 tool called with: %s",
	    json_object_to_json_string_ext(args, JSON_FLAGS));
}

/* The library checked Mcp-Param-Region against the argument. */
static enum wymcp_err
custom_header_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_text(res, "Region: %s",
	    wymcp_arg_str(args, "region", ""));
}

/* ------------------------------------------- multi round-trip requests */

/* An elicitation with a chosen key and a constant form. */
static enum wymcp_err
ask(struct wymcp_ctx *ctx, const char *key, const char *msg,
    const char *form, struct json_object **answer)
{
	struct json_object	*s;

	if ((s = parse(ctx, form)) == NULL)
		return WYMCP_ERR_NOMEM;
	return wymcp_elicit_key(ctx, key, msg, s, answer);
}

/* A sampling request with a chosen key and constant params. */
static enum wymcp_err
sample(struct wymcp_ctx *ctx, const char *key, const char *params,
    struct json_object **answer)
{
	struct json_object	*p;

	if ((p = parse(ctx, params)) == NULL)
		return WYMCP_ERR_NOMEM;
	return wymcp_sample(ctx, key, p, answer);
}

/*
 * A string member of an accepted elicitation answer, or `def` (the
 * answer was declined or cancelled: its forms require every field).
 */
static const char *
answered(struct json_object *answer, const char *field, const char *def)
{
	return wymcp_arg_str(wymcp_answer_content(answer), field, def);
}

/* The text of a CreateMessageResult (content a block or an array). */
static const char *
sampled(struct json_object *answer)
{
	struct json_object	*c;

	if (!json_object_object_get_ex(answer, "content", &c))
		return NULL;
	if (json_object_is_type(c, json_type_array))
		c = json_object_array_get_idx(c, 0);
	return wymcp_arg_str(c, "text", NULL);
}

/* How many roots a ListRootsResult lists. */
static size_t
nroots(struct json_object *answer)
{
	struct json_object	*r;

	if (!json_object_object_get_ex(answer, "roots", &r) ||
	    !json_object_is_type(r, json_type_array))
		return 0;
	return json_object_array_length(r);
}

static enum wymcp_err
notsup(struct wymcp_result *res, const char *what)
{
	return wymcp_result_error(res, "This tool needs a client that "
	    "declares %s.", what);
}

static enum wymcp_err
mrtr_elicitation_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;
	enum wymcp_err		 rc;

	rc = ask(ctx, "user_name", "What is your name?", name_form, &a);
	if (rc == WYMCP_ERR_NOTSUP)
		return notsup(res, "elicitation");
	if (rc != WYMCP_OK)
		return rc;
	return wymcp_result_text(res, "Hello, %s!",
	    answered(a, "name", "unknown"));
}

static enum wymcp_err
mrtr_sampling_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;
	const char		*t;
	enum wymcp_err		 rc;

	rc = sample(ctx, "sample_request", capital_sample, &a);
	if (rc == WYMCP_ERR_NOTSUP)
		return notsup(res, "sampling");
	if (rc != WYMCP_OK)
		return rc;
	t = sampled(a);
	return wymcp_result_text(res, "Sampling result: %s",
	    t != NULL ? t : "no response");
}

static enum wymcp_err
mrtr_roots_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;
	enum wymcp_err		 rc;

	rc = wymcp_roots(ctx, "roots_request", &a);
	if (rc == WYMCP_ERR_NOTSUP)
		return notsup(res, "roots");
	if (rc != WYMCP_OK)
		return rc;
	return wymcp_result_text(res, "Found %zu root(s)", nroots(a));
}

/*
 * One confirmation.  The requestState the library seals into the first
 * answer is checked by the library on the second round: a tampered one
 * never reaches the tool (-32602).
 */
static enum wymcp_err
confirm(struct wymcp_ctx *ctx, struct wymcp_result *res, const char *ok)
{
	struct json_object	*a;
	enum wymcp_err		 rc;

	rc = ask(ctx, "confirm", "Please confirm", ok_form, &a);
	if (rc == WYMCP_ERR_NOTSUP)
		return notsup(res, "elicitation");
	if (rc != WYMCP_OK)
		return rc;
	if (!wymcp_arg_bool(wymcp_answer_content(a), "ok", 0))
		return wymcp_result_text(res,
		    "Not confirmed; nothing was done.");
	return wymcp_result_text(res, "%s", ok);
}

static enum wymcp_err
mrtr_request_state_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return confirm(ctx, res, "state-ok: requestState validated");
}

static enum wymcp_err
mrtr_tampered_state_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return confirm(ctx, res, "integrity-ok: state verified");
}

/* Three questions of three kinds in one round. */
static enum wymcp_err
mrtr_multiple_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*name, *greeting, *roots;
	const char		*g;
	enum wymcp_err		 rc;

	if (!declared(ctx, "elicitation") || !declared(ctx, "sampling") ||
	    !declared(ctx, "roots"))
		return notsup(res, "elicitation, sampling and roots");
	if ((rc = wymcp_input_batch(ctx)) != WYMCP_OK)
		return rc;
	rc = ask(ctx, "user_name", "What is your name?", name_form, &name);
	if (rc != WYMCP_OK && rc != WYMCP_ERR_PENDING)
		return rc;
	rc = sample(ctx, "greeting", greeting_sample, &greeting);
	if (rc != WYMCP_OK && rc != WYMCP_ERR_PENDING)
		return rc;
	rc = wymcp_roots(ctx, "client_roots", &roots);
	if (rc != WYMCP_OK && rc != WYMCP_ERR_PENDING)
		return rc;
	if ((rc = wymcp_input_flush(ctx)) != WYMCP_OK)
		return rc;
	g = sampled(greeting);
	return wymcp_result_text(res, "Name: %s; Greeting: %s; Roots: %zu",
	    answered(name, "name", "unknown"), g != NULL ? g : "none",
	    nroots(roots));
}

/* Two rounds of questions; each round gets a new requestState. */
static enum wymcp_err
mrtr_multi_round_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a1, *a2;
	enum wymcp_err		 rc;

	rc = ask(ctx, "step1", "Step 1: What is your name?", name_form, &a1);
	if (rc == WYMCP_ERR_NOTSUP)
		return notsup(res, "elicitation");
	if (rc != WYMCP_OK)
		return rc;
	rc = ask(ctx, "step2", "Step 2: What is your favorite color?",
	    color_form, &a2);
	if (rc != WYMCP_OK)
		return rc;
	return wymcp_result_text(res,
	    "Multi-round complete for %s who likes %s",
	    answered(a1, "name", "unknown"), answered(a2, "color", "nothing"));
}

/*
 * Ask only what this request's clientCapabilities allow: elicit_input
 * with elicitation, sample_input with sampling, nothing without either.
 */
static enum wymcp_err
mrtr_capabilities_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*e, *s;
	const char		*keys[2];
	size_t			 n = 0;
	enum wymcp_err		 rc;

	if ((rc = wymcp_input_batch(ctx)) != WYMCP_OK)
		return rc;
	rc = ask(ctx, "elicit_input", "Elicitation input", value_form, &e);
	if (rc == WYMCP_OK || rc == WYMCP_ERR_PENDING)
		keys[n++] = "elicit_input";
	else if (rc != WYMCP_ERR_NOTSUP)
		return rc;
	rc = sample(ctx, "sample_input", plain_sample, &s);
	if (rc == WYMCP_OK || rc == WYMCP_ERR_PENDING)
		keys[n++] = "sample_input";
	else if (rc != WYMCP_ERR_NOTSUP)
		return rc;
	if ((rc = wymcp_input_flush(ctx)) != WYMCP_OK)
		return rc;
	if (n == 0)
		return wymcp_result_text(res,
		    "No supported capabilities declared");
	return wymcp_result_text(res, "capabilities-ok: received %s%s%s",
	    keys[0], n > 1 ? "," : "", n > 1 ? keys[1] : "");
}

/* ------------------------------------------------- the 2025-11-25 set */

/*
 * Three log lines at info, about 50 ms apart.  A 2025-11-25 client gets
 * them as notifications/message (legacy requests log from info up); a
 * 2026-07-28 one only when it asks with _meta logLevel.
 */
static enum wymcp_err
with_logging_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	static const char *const lines[] = { "Tool execution started",
	    "Tool processing data", "Tool execution completed" };
	struct timespec		 pause = { 0, 50 * 1000 * 1000 };
	size_t			 i;

	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		if (i > 0)
			nanosleep(&pause, NULL);
		wymcp_log(ctx, WYMCP_LOG_INFO, "%s", lines[i]);
		if (wymcp_cancelled(ctx))
			return wymcp_result_error(res, "cancelled");
	}
	return wymcp_result_text(res,
	    "Tool with logging executed successfully");
}

/*
 * The four below ask the client.  The 2025-11-25 suite expects a
 * server-to-client request on the tool call's held stream, which a
 * stateless worker cannot serve: on that wire the question is
 * WYMCP_ERR_NOTSUP and the tool says so (isError), the degradation every
 * tool owes a client without the capability.  A 2026-07-28 client gets
 * the question as an input request (MRTR) and the answer in the text.
 */
static enum wymcp_err
cannot_ask(struct wymcp_result *res, const char *what, enum wymcp_err rc)
{
	return wymcp_result_error(res, "This client cannot be asked for %s "
	    "here: %s", what, wymcp_strerror(rc));
}

/* "User response: action=accept, content={...}" */
static enum wymcp_err
elicited(struct wymcp_result *res, const char *prefix,
    struct json_object *a)
{
	struct json_object	*c = wymcp_answer_content(a);
	const char		*act = wymcp_answer_action(a);

	return wymcp_result_text(res, "%s: action=%s, content=%s", prefix,
	    act != NULL ? act : "", c != NULL ?
	    json_object_to_json_string_ext(c, JSON_FLAGS) : "{}");
}

static enum wymcp_err
sampling_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*p, *msgs, *m, *c, *a;
	const char		*t;
	enum wymcp_err		 rc;

	/* {"messages":[{"role":"user","content":TEXT}],"maxTokens":100} */
	if ((c = wymcp_text(ctx, wymcp_arg_str(args, "prompt", NULL))) ==
	    NULL ||
	    (p = wymcp_own(ctx, json_object_new_object())) == NULL ||
	    (msgs = json_object_new_array()) == NULL)
		return WYMCP_ERR_NOMEM;
	json_object_object_add(p, "messages", msgs);
	if ((m = json_object_new_object()) == NULL ||
	    json_object_array_add(msgs, m))
		return WYMCP_ERR_NOMEM;
	json_object_object_add(m, "role", json_object_new_string("user"));
	json_object_object_add(m, "content", json_object_get(c));
	json_object_object_add(p, "maxTokens", json_object_new_int(100));
	if ((rc = wymcp_sample(ctx, NULL, p, &a)) == WYMCP_ERR_NOTSUP)
		return cannot_ask(res, "sampling", rc);
	if (rc != WYMCP_OK)
		return rc;
	t = sampled(a);
	return wymcp_result_text(res, "LLM response: %s",
	    t != NULL ? t : "No response");
}

static const char user_form[] = WYMCP_JSON({ "type": "object",
    "properties": {
	"username": { "type": "string", "description": "Your username" },
	"email": { "type": "string", "description": "Your email" } },
    "required": ["username", "email"] });

static enum wymcp_err
elicitation_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;
	enum wymcp_err		 rc;

	if ((rc = wymcp_elicit(ctx, wymcp_arg_str(args, "message", NULL),
	    user_form, &a)) == WYMCP_ERR_NOTSUP)
		return cannot_ask(res, "elicitation", rc);
	if (rc != WYMCP_OK)
		return rc;
	return elicited(res, "User response", a);
}

/* SEP-1034: a default for every primitive type. */
static const char defaults_form[] = WYMCP_JSON({ "type": "object",
    "properties": {
	"name": { "type": "string", "description": "User name",
	    "default": "John Doe" },
	"age": { "type": "integer", "description": "User age",
	    "default": 30 },
	"score": { "type": "number", "description": "User score",
	    "default": 95.5 },
	"status": { "type": "string", "description": "User status",
	    "enum": ["active", "inactive", "pending"], "default": "active" },
	"verified": { "type": "boolean",
	    "description": "Verification status", "default": true } },
    "required": [] });

static enum wymcp_err
sep1034_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;
	enum wymcp_err		 rc;

	if ((rc = wymcp_elicit(ctx,
	    "Please review and update the form fields with defaults",
	    defaults_form, &a)) == WYMCP_ERR_NOTSUP)
		return cannot_ask(res, "elicitation", rc);
	if (rc != WYMCP_OK)
		return rc;
	return elicited(res, "Elicitation completed", a);
}

/* SEP-1330: the five enum forms. */
static const char enums_form[] = WYMCP_JSON({ "type": "object",
    "properties": {
	"untitledSingle": { "type": "string",
	    "description": "Select one option",
	    "enum": ["option1", "option2", "option3"] },
	"titledSingle": { "type": "string",
	    "description": "Select one option with titles",
	    "oneOf": [
		{ "const": "value1", "title": "First Option" },
		{ "const": "value2", "title": "Second Option" },
		{ "const": "value3", "title": "Third Option" }] },
	"legacyEnum": { "type": "string",
	    "description": "Select one option (legacy)",
	    "enum": ["opt1", "opt2", "opt3"],
	    "enumNames": ["Option One", "Option Two", "Option Three"] },
	"untitledMulti": { "type": "array",
	    "description": "Select multiple options",
	    "minItems": 1, "maxItems": 3,
	    "items": { "type": "string",
		"enum": ["option1", "option2", "option3"] } },
	"titledMulti": { "type": "array",
	    "description": "Select multiple options with titles",
	    "minItems": 1, "maxItems": 3,
	    "items": { "anyOf": [
		{ "const": "value1", "title": "First Choice" },
		{ "const": "value2", "title": "Second Choice" },
		{ "const": "value3", "title": "Third Choice" }] } } },
    "required": [] });

static enum wymcp_err
sep1330_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;
	enum wymcp_err		 rc;

	if ((rc = wymcp_elicit(ctx, "Please select options from the enum "
	    "fields", enums_form, &a)) == WYMCP_ERR_NOTSUP)
		return cannot_ask(res, "elicitation", rc);
	if (rc != WYMCP_OK)
		return rc;
	return elicited(res, "Elicitation completed", a);
}

/* ------------------------------------- the tasks extension (tasks-*) */

static const char confirm_form[] = WYMCP_JSON({ "type": "object",
    "properties": { "confirm": { "type": "boolean" } },
    "required": ["confirm"] });
/* multi_input: the suite answers {"name": ..., "confirm": true}. */
static const char multi_form[] = WYMCP_JSON({ "type": "object",
    "properties": { "name": { "type": "string" },
    "confirm": { "type": "boolean" } }, "required": ["name"] });
static const char slow_schema[] = WYMCP_JSON({ "type": "object",
    "properties": { "seconds": { "type": "number", "minimum": 0 },
    "label": { "type": "string" } } });
static const char name_schema[] = WYMCP_JSON({ "type": "object",
    "properties": { "name": { "type": "string" } } });
static const char file_schema[] = WYMCP_JSON({ "type": "object",
    "properties": { "filename": { "type": "string" } } });
/* protocol_error_job promises structuredContent and gives none. */
static const char never_schema[] = WYMCP_JSON({ "type": "object",
    "properties": { "never": { "type": "string" } },
    "required": ["never"] });

/* Sleep `ms' in steps of 50 ms; 1 when cancelled meanwhile. */
static int
nap(struct wymcp_ctx *ctx, long ms)
{
	struct timespec	 ts = { 0, 50 * 1000000L };

	for (; ms > 0; ms -= 50) {
		if (wymcp_cancelled(ctx))
			return 1;
		nanosleep(&ts, NULL);
	}
	return wymcp_cancelled(ctx);
}

static enum wymcp_err
greet_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_text(res, "Hello, %s!",
	    wymcp_arg_str(args, "name", "World"));
}

/* Task support optional: a task when the client takes one. */
static enum wymcp_err
slow_compute_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	double	 s = wymcp_arg_num(args, "seconds", 0);

	if (s > 3600)
		s = 3600;
	if (nap(ctx, (long)(s * 1000)))
		return wymcp_result_error(res, "Cancelled");
	return wymcp_result_text(res, "Computed %s after %g s",
	    wymcp_arg_str(args, "label", "result"), s);
}

/* Task support required: completes with a tool error. */
static enum wymcp_err
failing_job_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	(void)nap(ctx, 1000);
	return wymcp_result_error(res, "The job failed, as it always does");
}

/* A JSON-RPC error: the result does not match the outputSchema. */
static enum wymcp_err
protocol_error_job_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_text(res, "no structured content");
}

static enum wymcp_err
confirm_delete_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a, *c;
	const char		*f = wymcp_arg_str(args, "filename", "file");
	enum wymcp_err		 rc;

	if ((rc = ask(ctx, "confirm", "Delete this file?", confirm_form,
	    &a)) != WYMCP_OK)
		return rc == WYMCP_ERR_NOTSUP ?
		    cannot_ask(res, "elicitation", rc) : rc;
	c = wymcp_answer_content(a);
	if (wymcp_arg_bool(c, "confirm", 0))
		return wymcp_result_text(res, "Deleted %s", f);
	return wymcp_result_text(res, "Kept %s", f);
}

static enum wymcp_err
multi_input_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a = NULL, *b = NULL;
	enum wymcp_err		 rc;

	(void)wymcp_input_batch(ctx);
	rc = ask(ctx, "first", "First name?", multi_form, &a);
	if (rc != WYMCP_OK && rc != WYMCP_ERR_PENDING)
		return rc;
	rc = ask(ctx, "second", "Second name?", multi_form, &b);
	if (rc != WYMCP_OK && rc != WYMCP_ERR_PENDING)
		return rc;
	if ((rc = wymcp_input_flush(ctx)) != WYMCP_OK)
		return rc;
	return wymcp_result_text(res, "Both answered: %s, %s",
	    wymcp_arg_str(wymcp_answer_content(a), "name", ""),
	    wymcp_arg_str(wymcp_answer_content(b), "name", ""));
}

/*
 * Asks for a name as a multi round-trip request of the tools/call, then
 * becomes a task (tasks-mrtr-composition).
 */
static enum wymcp_err
tool_with_task_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;
	enum wymcp_err		 rc;

	if ((rc = ask(ctx, "user_name", "What is your name?", name_form,
	    &a)) != WYMCP_OK)
		return rc == WYMCP_ERR_NOTSUP ?
		    cannot_ask(res, "elicitation", rc) : rc;
	if ((rc = wymcp_task_start(ctx)) != WYMCP_OK)
		return rc;
	return wymcp_result_text(res, "Hello, %s! (from a task)",
	    wymcp_arg_str(wymcp_answer_content(a), "name", "stranger"));
}

static const struct wymcp_tool tools[] = {
	/* First: the header-validation scenario calls it with {}. */
	{
		.name = "test_simple_text",
		.description = "Tests simple text content response",
		.input_schema = EMPTY_SCHEMA,
		.run = simple_text_run,
	},
	{
		.name = "test_image_content",
		.description = "Tests image content response",
		.input_schema = EMPTY_SCHEMA,
		.run = image_run,
	},
	{
		.name = "test_audio_content",
		.description = "Tests audio content response",
		.input_schema = EMPTY_SCHEMA,
		.run = audio_run,
	},
	{
		.name = "test_embedded_resource",
		.description = "Tests embedded resource content response",
		.input_schema = EMPTY_SCHEMA,
		.run = embedded_run,
	},
	{
		.name = "test_multiple_content_types",
		.description = "Tests response with multiple content types",
		.input_schema = EMPTY_SCHEMA,
		.run = multiple_run,
	},
	{
		.name = "test_tool_with_progress",
		.description = "Tests tool that reports progress notifications",
		.input_schema = EMPTY_SCHEMA,
		.run = progress_run,
	},
	{
		.name = "test_error_handling",
		.description = "Tests error response handling",
		.input_schema = EMPTY_SCHEMA,
		.run = error_run,
	},
	{
		.name = "test_missing_capability",
		.description = "Test tool requiring sampling",
		.input_schema = EMPTY_SCHEMA,
		.required_caps = WYMCP_JSON({ "sampling": {} }),
		.run = missing_cap_run,
	},
	{
		.name = "test_streaming_elicitation",
		.description = "Diagnostic: response stream carries no "
		    "requests",
		.input_schema = EMPTY_SCHEMA,
		.run = streaming_run,
	},
	{
		.name = "test_logging_tool",
		.description = "Diagnostic: no logs without logLevel",
		.input_schema = EMPTY_SCHEMA,
		.run = logging_run,
	},
	{
		.name = "test_input_required_result_elicitation",
		.description = "MRTR elicitation",
		.input_schema = EMPTY_SCHEMA,
		.run = mrtr_elicitation_run,
	},
	{
		.name = "test_input_required_result_sampling",
		.description = "MRTR sampling",
		.input_schema = EMPTY_SCHEMA,
		.run = mrtr_sampling_run,
	},
	{
		.name = "test_input_required_result_list_roots",
		.description = "MRTR roots/list",
		.input_schema = EMPTY_SCHEMA,
		.run = mrtr_roots_run,
	},
	{
		.name = "test_input_required_result_request_state",
		.description = "MRTR requestState",
		.input_schema = EMPTY_SCHEMA,
		.run = mrtr_request_state_run,
	},
	{
		.name = "test_input_required_result_multiple_inputs",
		.description = "MRTR multiple inputs",
		.input_schema = EMPTY_SCHEMA,
		.run = mrtr_multiple_run,
	},
	{
		.name = "test_input_required_result_multi_round",
		.description = "MRTR multi-round",
		.input_schema = EMPTY_SCHEMA,
		.run = mrtr_multi_round_run,
	},
	{
		.name = "test_input_required_result_tampered_state",
		.description = "MRTR signed requestState",
		.input_schema = EMPTY_SCHEMA,
		.run = mrtr_tampered_state_run,
	},
	{
		.name = "test_input_required_result_capabilities",
		.description = "MRTR respects client capabilities",
		.input_schema = EMPTY_SCHEMA,
		.run = mrtr_capabilities_run,
	},
	{
		.name = "json_schema_2020_12_tool",
		.description = "Tool with JSON Schema 2020-12 features",
		.input_schema = schema_2020_12,
		.run = schema_2020_12_run,
	},
	{
		.name = "test_custom_header",
		.description = "SEP-2243 x-mcp-header fixture",
		.input_schema = WYMCP_JSON({ "type": "object",
		    "properties": { "region": { "type": "string",
		    "x-mcp-header": "Region" } }, "required": ["region"] }),
		.run = custom_header_run,
	},
	/* The 2025-11-25 set's own tools. */
	{
		.name = "test_tool_with_logging",
		.description = "Tests tool that emits log messages during "
		    "execution",
		.input_schema = EMPTY_SCHEMA,
		.run = with_logging_run,
	},
	{
		.name = "test_sampling",
		.description = "Tests server-initiated sampling",
		.input_schema = WYMCP_JSON({ "type": "object",
		    "properties": { "prompt": { "type": "string",
		    "description": "The prompt to send to the LLM" } },
		    "required": ["prompt"] }),
		.run = sampling_run,
	},
	{
		.name = "test_elicitation",
		.description = "Tests server-initiated elicitation",
		.input_schema = WYMCP_JSON({ "type": "object",
		    "properties": { "message": { "type": "string",
		    "description": "The message to show the user" } },
		    "required": ["message"] }),
		.run = elicitation_run,
	},
	{
		.name = "test_elicitation_sep1034_defaults",
		.description = "Tests elicitation with default values per "
		    "SEP-1034",
		.input_schema = EMPTY_SCHEMA,
		.run = sep1034_run,
	},
	{
		.name = "test_elicitation_sep1330_enums",
		.description = "Tests elicitation with enum schema "
		    "improvements per SEP-1330",
		.input_schema = EMPTY_SCHEMA,
		.run = sep1330_run,
	},
	{
		.name = "test_trigger_tool_change",
		.description = "Says that the tool list changed "
		    "(listen streams that asked hear of it)",
		.input_schema = EMPTY_SCHEMA,
		.run = trigger_tools_run,
	},
	{
		.name = "test_trigger_prompt_change",
		.description = "Says that the prompt list changed",
		.input_schema = EMPTY_SCHEMA,
		.run = trigger_prompts_run,
	},
	/* The tasks extension's scenarios (tasks-*): last. */
	{
		.name = "greet",
		.description = "Greets by name (never a task)",
		.input_schema = name_schema,
		.run = greet_run,
	},
	{
		.name = "slow_compute",
		.description = "Computes for a number of seconds",
		.input_schema = slow_schema,
		.run = slow_compute_run,
		.task_support = WYMCP_TASK_OPTIONAL,
	},
	{
		.name = "failing_job",
		.description = "A job that ends with a tool error",
		.input_schema = EMPTY_SCHEMA,
		.run = failing_job_run,
		.task_support = WYMCP_TASK_REQUIRED,
	},
	{
		.name = "protocol_error_job",
		.description = "A job that ends with a JSON-RPC error",
		.input_schema = EMPTY_SCHEMA,
		.output_schema = never_schema,
		.run = protocol_error_job_run,
		.task_support = WYMCP_TASK_OPTIONAL,
	},
	{
		.name = "confirm_delete",
		.description = "Deletes a file after asking",
		.input_schema = file_schema,
		.run = confirm_delete_run,
		.task_support = WYMCP_TASK_OPTIONAL,
	},
	{
		.name = "multi_input",
		.description = "Asks two questions at once",
		.input_schema = EMPTY_SCHEMA,
		.run = multi_input_run,
		.task_support = WYMCP_TASK_OPTIONAL,
	},
	{
		.name = "test_tool_with_task",
		.description = "Asks a name, then runs as a task",
		.input_schema = EMPTY_SCHEMA,
		.run = tool_with_task_run,
		.task_support = WYMCP_TASK_REQUIRED | WYMCP_TASK_LATER,
	},
	{ .name = NULL }
};

/* ---------------------------------------------------------- resources */

static enum wymcp_err
static_text_read(struct wymcp_ctx *ctx, const char *uri,
    struct json_object *vars, struct wymcp_resource_result *res)
{
	return wymcp_contents_text(res, uri, "text/plain",
	    "This is the content of the static text resource.");
}

static enum wymcp_err
static_binary_read(struct wymcp_ctx *ctx, const char *uri,
    struct json_object *vars, struct wymcp_resource_result *res)
{
	return wymcp_contents_blob(res, uri, "image/png", png);
}

/* {"id":"<id>","templateTest":true,"data":"Data for ID: <id>"} */
static enum wymcp_err
template_read(struct wymcp_ctx *ctx, const char *uri,
    struct json_object *vars, struct wymcp_resource_result *res)
{
	struct json_object	*o;
	const char		*id = wymcp_arg_str(vars, "id", NULL);
	char			*data;

	if (id == NULL)
		return WYMCP_ERR_NOTFOUND;
	if ((data = wymcp_printf(ctx, "Data for ID: %s", id)) == NULL ||
	    (o = wymcp_own(ctx, json_object_new_object())) == NULL)
		return WYMCP_ERR_NOMEM;
	json_object_object_add(o, "id", json_object_new_string(id));
	json_object_object_add(o, "templateTest",
	    json_object_new_boolean(1));
	json_object_object_add(o, "data", json_object_new_string(data));
	return wymcp_contents_text(res, uri, "application/json",
	    json_object_to_json_string_ext(o, JSON_FLAGS));
}

static const struct wymcp_resource resources[] = {
	/* First: the caching scenario reads the first listed resource. */
	{
		.uri = "test://static-text",
		.name = "static-text",
		.title = "Static Text Resource",
		.description = "A static text resource for testing",
		.mime = "text/plain",
		.read = static_text_read,
		/* Metadata (0.4): what a list shows of it. */
		.size = 48,
		.annotations = WYMCP_JSON({ "audience": ["user"],
		    "priority": 0.8 }),
	},
	{
		.uri = "test://static-binary",
		.name = "static-binary",
		.title = "Static Binary Resource",
		.description = "A static binary resource (image) for testing",
		.mime = "image/png",
		.read = static_binary_read,
	},
	{ .uri = NULL }
};

static const struct wymcp_resource templates[] = {
	{
		.uri = "test://template/{id}/data",
		.name = "template",
		.title = "Resource Template",
		.description = "A resource template with parameter "
		    "substitution",
		.mime = "application/json",
		.read = template_read,
	},
	{ .uri = NULL }
};

/* ------------------------------------------------------------ prompts */

static enum wymcp_err
user(struct wymcp_prompt_result *res, struct json_object *content)
{
	return wymcp_prompt_message(res, "user", content);
}

static enum wymcp_err
simple_prompt_get(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_prompt_result *res)
{
	return user(res, wymcp_text(ctx,
	    "This is a simple prompt for testing."));
}

static enum wymcp_err
args_prompt_get(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_prompt_result *res)
{
	/* Both are required strings: the library checked. */
	return user(res, wymcp_textf(ctx,
	    "Prompt with arguments: arg1='%s', arg2='%s'",
	    wymcp_arg_str(args, "arg1", ""), wymcp_arg_str(args, "arg2", "")));
}

static enum wymcp_err
embedded_prompt_get(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_prompt_result *res)
{
	enum wymcp_err	 rc;

	if ((rc = user(res, wymcp_resource_text(ctx,
	    wymcp_arg_str(args, "resourceUri", NULL), "text/plain",
	    "Embedded resource content for testing."))) != WYMCP_OK)
		return rc;
	return user(res, wymcp_text(ctx,
	    "Please process the embedded resource above."));
}

static enum wymcp_err
image_prompt_get(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_prompt_result *res)
{
	enum wymcp_err	 rc;

	if ((rc = user(res, wymcp_image(ctx, png, "image/png"))) != WYMCP_OK)
		return rc;
	return user(res, wymcp_text(ctx, "Please analyze the image above."));
}

/* A prompt that asks the client first (MRTR outside tools/call). */
static enum wymcp_err
mrtr_prompt_get(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_prompt_result *res)
{
	struct json_object	*a;
	enum wymcp_err		 rc;

	rc = ask(ctx, "user_context", "What context should the prompt use?",
	    context_form, &a);
	if (rc != WYMCP_OK)
		return rc;
	return user(res, wymcp_textf(ctx, "Prompt with context: %s",
	    answered(a, "context", "none")));
}

static const struct wymcp_prompt_arg args_args[] = {
	{ .name = "arg1", .description = "First test argument",
	    .required = 1 },
	{ .name = "arg2", .description = "Second test argument",
	    .required = 1 },
	{ .name = NULL }
};

static const struct wymcp_prompt_arg embedded_args[] = {
	{ .name = "resourceUri", .description = "URI of the resource to embed",
	    .required = 1 },
	{ .name = NULL }
};

static const struct wymcp_prompt prompts[] = {
	{
		.name = "test_simple_prompt",
		.title = "Simple Test Prompt",
		.description = "A simple prompt without arguments",
		.get = simple_prompt_get,
		.icons = "[{\"src\":\"data:image/svg+xml;base64,PHN2ZyB4bWxu"
		    "cz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=\","
		    "\"mimeType\":\"image/svg+xml\",\"sizes\":[\"any\"]}]",
		.meta = WYMCP_JSON({ "org.wymcp.conformance/fixture": true }),
	},
	{
		.name = "test_prompt_with_arguments",
		.description = "A prompt with required arguments",
		.args = args_args,
		.get = args_prompt_get,
	},
	{
		.name = "test_prompt_with_embedded_resource",
		.description = "A prompt that includes an embedded resource",
		.args = embedded_args,
		.get = embedded_prompt_get,
	},
	{
		.name = "test_prompt_with_image",
		.description = "A prompt that includes image content",
		.get = image_prompt_get,
	},
	{
		.name = "test_input_required_result_prompt",
		.description = "MRTR: prompt that requires elicitation input",
		.get = mrtr_prompt_get,
	},
	{ .name = NULL }
};

/* Completion: the suite only checks that values is an array. */
static enum wymcp_err
complete(struct wymcp_ctx *ctx, const char *ref_type, const char *ref,
    const char *arg, const char *value, struct json_object *context,
    struct wymcp_completion *out)
{
	wymcp_completion_total(out, 0, 0);
	return WYMCP_OK;
}

WYMCP_MODULE_DEFINE(
	.name = "conformance",
	.tools = tools,
	.resources = resources,
	.templates = templates,
	.prompts = prompts,
	.complete = complete,
);
