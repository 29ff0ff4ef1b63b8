/*
 * wymcp.h - the public interface of libwymcp.
 *
 * wymcp is a stateless MCP (revision 2026-07-28, and 2025-11-25 clients:
 * wymcp_server_set_legacy()) server framework that
 * runs as a CGI/FastCGI handler behind nginx or Apache.  Tool authors
 * write a module (a shared object exporting `wymcp_module`) whose tools
 * receive a per-request context, build content with the pure builders
 * below and never free anything: every allocation belongs to the request
 * and is released when the response has been written.
 *
 * Ownership sentences used throughout:
 *   "Owned by the request" - released after the response is written;
 *                            never free it yourself.
 *   "Caller frees with X"  - a long-lived object you own.
 *
 * See wymcp(3), wymcp_tool(3), wymcp_content(3), wymcp-fcgi(8).
 */
#ifndef WYMCP_H
#define WYMCP_H

#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <json-c/json.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

#define WYMCP_VERSION		"0.4.0"	/* configure's PACKAGE_VERSION */
#define WYMCP_PROTOCOL_VERSION	"2026-07-28"
#define WYMCP_ABI_VERSION	1

#if defined(__GNUC__)
#define WYMCP_PRINTF(f, a)	__attribute__((format(printf, f, a)))
#else
#define WYMCP_PRINTF(f, a)
#endif

/*
 * The one error enum.  Every library function that can fail returns one
 * of these; wymcp_strerror() gives the sentence.
 */
enum wymcp_err {
	WYMCP_OK = 0,		/* success */
	WYMCP_ERR_NOMEM,	/* allocation failed (-32603 on the wire) */
	WYMCP_ERR_INVAL,	/* a caller passed a bad argument */
	WYMCP_ERR_TOOL,		/* the tool failed: result has isError */
	WYMCP_ERR_NOTSUP,	/* client did not declare the capability */
	WYMCP_ERR_NORUN,	/* elicit with no run open in this thread */
	WYMCP_ERR_SCHEMA,	/* a schema is not of the required form */
	WYMCP_ERR_MODULE,	/* a module could not be loaded */
	WYMCP_ERR_DUP,		/* a tool name is already registered */
	WYMCP_ERR_STATE,	/* requestState failed to open */
	WYMCP_ERR_IO,		/* reading the request or writing failed */
	WYMCP_ERR_PENDING,	/* question collected by a batch, unanswered */
	WYMCP_ERR_NOTFOUND,	/* no such resource (-32602 with data.uri) */
	WYMCP_ERR_DECLINED,	/* the user declined: wymcp_ask() (0.4) */
	WYMCP_ERR_CANCELLED,	/* the user cancelled: wymcp_ask() (0.4) */
	WYMCP_ERR_REFUSED,	/* the handler refused: wymcp_refuse() (0.5) */
	WYMCP_ERR__MAX
};

/* A static sentence for the error; never NULL. */
const char	*wymcp_strerror(enum wymcp_err);

struct wymcp_ctx;	/* one request: identity, meta, assigns, mounts */
struct wymcp_result;	/* the result a tool is building */
struct wymcp_server;	/* long-lived: loaded modules, configuration */
struct wymcp_listen;	/* a listen stream the program holds */

/*
 * A tool's body.  It runs once per round of a call (see wymcp_elicit(3)
 * for the re-execution rule).  `args` is the validated arguments object
 * (never NULL; owned by the request).  Return WYMCP_OK when the result
 * is complete, or the value of wymcp_result_error() for a tool failure
 * (the client sees isError: true).  WYMCP_ERR_NOMEM becomes a JSON-RPC
 * internal error; any other value is reported as a tool failure.
 */
typedef enum wymcp_err (*wymcp_tool_fn)(struct wymcp_ctx *ctx,
    struct json_object *args, struct wymcp_result *res);

/*
 * A tool, declared as data.  The JSON strings are parsed and checked
 * once, when the module is loaded, never per request.  WYMCP_JSON()
 * writes them as plain JSON.
 */
struct wymcp_tool {
	const char	*name;		/* [A-Za-z0-9_.-], 1 to 128 */
	const char	*title;		/* display name, or NULL */
	const char	*description;	/* for the model; required */
	const char	*input_schema;	/* JSON object text, type object */
	const char	*output_schema;	/* JSON text, or NULL */
	const char	*annotations;	/* JSON object text, or NULL */
	const char	*required_caps;	/* ClientCapabilities JSON, or NULL */
	wymcp_tool_fn	 run;		/* the body */
	/* Added in 0.3: read only by a library that knows it (tool_size). */
	const char	*scopes;	/* OAuth scopes a call needs, space-
					   separated (WYMCP_SCOPES), or NULL */
	/* Added in 0.4 (read through the module's element size): */
	int		 task_support;	/* enum wymcp_task_support */
	const char	*icons;		/* JSON array text of Icon, or NULL */
	const char	*meta;		/* JSON object text: _meta, or NULL */
	/*
	 * Added in 0.5 (read through the module's element size): the
	 * parameters and the structured output declared in C
	 * (WYMCP_PARAMS(), below "Parameters declared once"), from which
	 * the library derives inputSchema and outputSchema at load.  Give
	 * params or input_schema, output or output_schema, not both.
	 */
	const struct wymcp_params *params;
	const struct wymcp_params *output;
	/* Added in 0.5, operators' (read through the element size): */
	int		 audit_args;	/* 1: the audit detail holds the
					   arguments (not writeOnly ones) */
	const char	*rate;		/* "N/s|min|h[,burst=B]" a principal
					   may call it, or NULL (below) */
};

/*
 * Metadata, added in 0.4 to tools, resources, templates and prompts
 * (and the server's Implementation): each is JSON text, parsed and
 * checked when the module is loaded, a bad one refusing the module
 * with a message naming the entry and the rule.
 *
 * `icons' is an array of Icon objects (basic/index.mdx "icons"):
 * {"src": URI, "mimeType": "image/png", "sizes": ["48x48" | "any"],
 * "theme": "light" | "dark"}, src required and an https: URI or a
 * data: URI with base64 data (data:image/png;base64,...), the other
 * members optional; no other member.  `meta' is the entry's _meta
 * object, sent as it is: its keys follow the _meta key rules (an
 * optional prefix of dot-separated labels ending in '/', then a name
 * that begins and ends with a letter or digit) and none may use a
 * prefix reserved for MCP (second label modelcontextprotocol or mcp).
 * MCP Apps' {"ui": {"resourceUri": "ui://..."}} is such a _meta.
 */

/*
 * May a call of the tool run as a task (the tasks extension,
 * io.modelcontextprotocol/tasks; wymcp_task(3))?  Forbidden (0, what an
 * older module's tools read as): never.  Optional: as a task when the
 * server has a task store and the request declares the extension, else
 * at once.  Required: only as a task; a request that does not declare
 * the extension gets -32021.
 */
enum wymcp_task_support {
	WYMCP_TASK_FORBIDDEN = 0,
	WYMCP_TASK_OPTIONAL,
	WYMCP_TASK_REQUIRED,
	WYMCP_TASK_LATER = 0x100	/* or'ed in: at wymcp_task_start() */
};
/*
 * With WYMCP_TASK_LATER or'ed into task_support, a call that becomes a
 * task runs synchronously until its body calls wymcp_task_start(): the
 * questions it asks before are multi round-trip requests of the
 * tools/call itself, and the task is created there, with their
 * answers (tasks.md "Task Creation": resolve MRTR exchanges
 * synchronously first).  wymcp_task_start() does not return then; in a
 * task runner, or in a call that is not becoming a task, it returns
 * WYMCP_OK and the body goes on.  WYMCP_ERR_NORUN outside a run.
 */
enum wymcp_err	 wymcp_task_start(struct wymcp_ctx *);

/*
 * JSON text written as JSON in C source: WYMCP_JSON({ "type": "object" })
 * is the string literal "{ \"type\": \"object\" }" (the # operator).
 * The text is parsed and checked where it is used, as any other JSON
 * string (a tool's schemas at module load).  Caveats of the
 * preprocessor: outside strings, every run of white space (newlines
 * too) becomes one space and comments are removed; inside strings,
 * characters and escapes stay as written.  Parentheses outside strings
 * must balance, and a '#' or an unbalanced quote (' or ") cannot appear
 * outside strings: none of them occurs in JSON.  Names such as true are
 * not macro-expanded, even where <stdbool.h> defines them.
 */
#define WYMCP_JSON(...)		#__VA_ARGS__

/*
 * Read one member of a tool's arguments, or of an elicitation answer's
 * content (wymcp_answer_content()).  Each returns `def` when obj is
 * NULL or not an object, when the member is absent (or null), or when
 * it is not of the type read: a string for wymcp_arg_str(); an integer
 * for wymcp_arg_int(), including one written with a fraction or an
 * exponent (3.0, 1e2: JSON Schema's "integer" admits them) but not one
 * beyond int64; any number for wymcp_arg_num(); true or false for
 * wymcp_arg_bool(), which returns 1 or 0.  A string returned is obj's
 * own: for args and answers, owned by the request.
 */
const char	*wymcp_arg_str(struct json_object *obj, const char *name,
		    const char *def);
int64_t		 wymcp_arg_int(struct json_object *obj, const char *name,
		    int64_t def);
int		 wymcp_arg_bool(struct json_object *obj, const char *name,
		    int def);
double		 wymcp_arg_num(struct json_object *obj, const char *name,
		    double def);

/*
 * Parameters declared once (0.5, wymcp_tool(3) "PARAMETERS").  A tool
 * names its parameters in C and the library derives its inputSchema
 * when the module is loaded (never per request): each parameter is a
 * property of that type, with its description, "enum" (choices),
 * bounds ("minimum"/"maximum", or "minLength"/"maxLength" for a
 * string) and "default"; required unless optional or defaulted; no
 * other property ("additionalProperties": false).  Before the body
 * runs, the default of each absent parameter is put in its `args', so
 * that wymcp_arg_str(args, "path", NULL) reads "/" for
 * WYMCP_STR("path", "A directory.", .def = "/").  `output' derives the
 * outputSchema the same way (an object whose declared members are
 * required unless optional; no default is applied to a result).
 *
 *	.params = WYMCP_PARAMS(
 *	    WYMCP_STR("service", "The service.", WYMCP_MAX(64)),
 *	    WYMCP_STR("env", NULL, WYMCP_CHOICES("staging", "production")),
 *	    WYMCP_INT("lines", "How many.", WYMCP_RANGE(1, 500),
 *		.def = "20")),
 *
 * `def' is the default's text: the string itself for WYMCP_STR, JSON
 * for the others ("20", "true", "0.5").  `schema' is JSON object text
 * merged over the derived property (a "format", or the "items" of a
 * WYMCP_ANY array).  Everything is checked at load: a bad default, a
 * default outside the choices or bounds, a name twice, or schema text
 * that is not an object refuses the module, naming the tool and the
 * parameter.  A hand-written input_schema stays possible.  The tables
 * are compound literals: static at file scope, where tool tables live
 * (not inside a function).  A module built before 0.5 has neither
 * member; a table is read through its `size', so members may be added
 * to struct wymcp_param at its end.
 */
enum wymcp_type {
	WYMCP_TYPE_STRING = 1,	/* "string": wymcp_arg_str() */
	WYMCP_TYPE_INTEGER,	/* "integer": wymcp_arg_int() */
	WYMCP_TYPE_NUMBER,	/* "number": wymcp_arg_num() */
	WYMCP_TYPE_BOOLEAN,	/* "boolean": wymcp_arg_bool() */
	WYMCP_TYPE_ANY		/* no "type": `schema' says what it is */
};
struct wymcp_param {
	const char		*name;		/* the property's name */
	int			 type;		/* enum wymcp_type */
	const char		*description;	/* or NULL */
	int			 optional;	/* 1: not required */
	const char		*def;		/* default: optional; or NULL */
	const char *const	*choices;	/* enum (NULL-ended), or NULL */
	double			 min;		/* bounds: of the value, or */
	double			 max;		/* of a string's length */
	int			 has_min;	/* 1: min is one */
	int			 has_max;	/* 1: max is one */
	const char		*schema;	/* JSON object text, or NULL */
	/* Members may be added here: tables are read by `size'. */
};
/* A table of parameters: WYMCP_PARAMS() fills it. */
struct wymcp_params {
	size_t			 size;	/* sizeof(struct wymcp_param) */
	size_t			 n;	/* entries in list */
	const struct wymcp_param *list;
};
#define WYMCP_PARAMS(...) (&(const struct wymcp_params){		\
	sizeof(struct wymcp_param),					\
	WYMCP_NELEM(((const struct wymcp_param[]){ __VA_ARGS__ })),	\
	(const struct wymcp_param[]){ __VA_ARGS__ } })
#define WYMCP_PARAM_(t, n, d, ...)					\
	{ .name = (n), .type = (t), .description = (d), __VA_ARGS__ }
#define WYMCP_STR(n, d, ...)						\
	WYMCP_PARAM_(WYMCP_TYPE_STRING, n, d, __VA_ARGS__)
#define WYMCP_INT(n, d, ...)						\
	WYMCP_PARAM_(WYMCP_TYPE_INTEGER, n, d, __VA_ARGS__)
#define WYMCP_NUM(n, d, ...)						\
	WYMCP_PARAM_(WYMCP_TYPE_NUMBER, n, d, __VA_ARGS__)
#define WYMCP_BOOL(n, d, ...)						\
	WYMCP_PARAM_(WYMCP_TYPE_BOOLEAN, n, d, __VA_ARGS__)
#define WYMCP_ANY(n, d, ...)						\
	WYMCP_PARAM_(WYMCP_TYPE_ANY, n, d, __VA_ARGS__)
#define WYMCP_CHOICES(...)						\
	.choices = (const char *const[]){ __VA_ARGS__, NULL }
#define WYMCP_MIN(lo)		.min = (lo), .has_min = 1
#define WYMCP_MAX(hi)		.max = (hi), .has_max = 1
#define WYMCP_RANGE(lo, hi)	WYMCP_MIN(lo), WYMCP_MAX(hi)
#define WYMCP_OPTIONAL		.optional = 1

/*
 * Refusing with a reason (0.5).  wymcp_refuse() records why a handler
 * refuses and returns WYMCP_ERR_REFUSED, for the handler to return: a
 * tool's result is then isError with the message as its text; a
 * resource's read() or a prompt's get() is answered with JSON-RPC
 * error `code' and the message.  `code' is one of the spec's:
 * WYMCP_RPC_INVALID_PARAMS (0 means it), WYMCP_RPC_INVALID_REQUEST,
 * WYMCP_RPC_INTERNAL_ERROR, or one of -32000 to -32019 (the
 * implementation-defined range, basic/index.mdx); any other is logged
 * and sent as WYMCP_RPC_INTERNAL_ERROR.  The message goes to the
 * client as it is: no secrets in it.  It is formatted into memory owned
 * by the request (the arguments stay the caller's); out of memory, the
 * sentence of WYMCP_ERR_REFUSED stands in for it.
 *
 * wymcp_require_assign() is a role check: WYMCP_OK when the assign
 * `name' (the web server's WYMCP_ASSIGN_<NAME>) is `value', or one of
 * the values of a space-separated `value' ("deployer admin"); else it
 * refuses (WYMCP_RPC_INVALID_REQUEST), saying which assign the call
 * needs and which it has, and returns WYMCP_ERR_REFUSED.
 */
#define WYMCP_RPC_INVALID_REQUEST	(-32600)
#define WYMCP_RPC_INVALID_PARAMS	(-32602)
#define WYMCP_RPC_INTERNAL_ERROR	(-32603)
enum wymcp_err	 wymcp_refuse(struct wymcp_ctx *, int code, const char *fmt,
		    ...) WYMCP_PRINTF(3, 4);
enum wymcp_err	 wymcp_require_assign(struct wymcp_ctx *, const char *name,
		    const char *value);

/*
 * The final step, once per call (0.5): record `fmt' (printf(3)) as a
 * file named by the call's idempotency key (wymcp_idempotency_key())
 * in directory `dir', made whole at once (written aside, then linked
 * into place), so that every replay of the call's last round, and
 * every run of its task on any runner, finds it made and writes
 * nothing.  The record IS the write: the step happens exactly once
 * when whatever acts on it reads `dir' (a queue, a ledger).  WYMCP_OK
 * when the record is there (made now or by an earlier run);
 * WYMCP_ERR_IO when it cannot be made (a tool returning it fails with
 * the reason: the directory and the system's error), WYMCP_ERR_INVAL
 * for a NULL `dir' ("wymcp_write_once(): dir is NULL"), WYMCP_ERR_NOMEM.
 * Call it after the last question: a round that stops at a question
 * never reaches it.  The arguments stay the caller's; the file is the
 * directory owner's to consume and remove (wymcp never removes it).
 */
enum wymcp_err	 wymcp_write_once(struct wymcp_ctx *, const char *dir,
		    const char *fmt, ...) WYMCP_PRINTF(3, 4);

/*
 * Progress in steps (0.5): step k of `total' (k counts the calls in
 * this run, from 1), with a message formatted as printf(3) does (fmt
 * may be NULL): wymcp_progress(ctx, k, total, message).  WYMCP_OK, or
 * WYMCP_ERR_IO once the request is cancelled: return it, the client is
 * gone or the time is up.
 */
enum wymcp_err	 wymcp_progress_step(struct wymcp_ctx *, int total,
		    const char *fmt, ...) WYMCP_PRINTF(3, 4);

/*
 * Resources (server/resources.mdx).  A resource has a fixed URI; a
 * template's `uri` is an RFC 6570 URI template whose {var} (no '/') and
 * {+var} (any characters) expressions match a requested URI; the
 * matched, percent-decoded values are in `vars` (an object of name ->
 * string; empty for a fixed resource).  read() adds the contents with
 * wymcp_contents_text()/wymcp_contents_blob(); it returns
 * WYMCP_ERR_NOTFOUND when the URI names nothing (the client gets
 * -32602 with data.uri).  read() may ask the client (wymcp_elicit(3)).
 */
struct wymcp_resource_result;
typedef enum wymcp_err (*wymcp_read_fn)(struct wymcp_ctx *ctx,
    const char *uri, struct json_object *vars,
    struct wymcp_resource_result *res);
struct wymcp_resource {
	const char	*uri;		/* URI, or URI template */
	const char	*name;		/* required */
	const char	*title;		/* or NULL */
	const char	*description;	/* or NULL */
	const char	*mime;		/* mimeType, or NULL */
	wymcp_read_fn	 read;
	/* Added in 0.4 (read through the module's element size): */
	const char	*icons;		/* JSON array text of Icon, or NULL */
	const char	*meta;		/* JSON object text: _meta, or NULL */
	const char	*annotations;	/* Annotations JSON object text
					   (audience, priority,
					   lastModified), or NULL */
	long long	 size;		/* bytes, before any encoding: a
					   fixed resource only; 0 unknown */
	/*
	 * Added in 0.4 too: a fixed resource whose read is NULL is
	 * served by the library, its one contents entry the text below
	 * (wymcp_apps(3)).
	 */
	const char	*text;		/* the contents' text, or NULL */
	const char	*file;		/* or a file holding it, read once
					   at load: relative to the module's
					   directory, or absolute; or NULL */
};

/*
 * MCP Apps (io.modelcontextprotocol/ui, wymcp_apps(3)): an app is a
 * fixed resource at a ui:// URI whose text is an HTML document (mime
 * WYMCP_APP_MIME, the default for a ui:// resource), and a tool whose
 * meta names it: {"ui": {"resourceUri": "ui://...", "visibility":
 * ["model", "app"]}}.  A tool whose visibility leaves out "model" is
 * listed and callable only for clients that declare the extension.
 * A file a resource names is at most WYMCP_APP_FILE_MAX bytes.
 */
#define WYMCP_APP_MIME		"text/html;profile=mcp-app"
#define WYMCP_APP_FILE_MAX	(4 * 1024 * 1024)

/*
 * Prompts (server/prompts.mdx).  get() receives the arguments (an
 * object of name -> string; required ones are checked before) and adds
 * messages with wymcp_prompt_message().  It may ask the client.
 */
struct wymcp_prompt_result;
typedef enum wymcp_err (*wymcp_prompt_fn)(struct wymcp_ctx *ctx,
    struct json_object *args, struct wymcp_prompt_result *res);
struct wymcp_prompt_arg {
	const char	*name;		/* NULL ends the list */
	const char	*title;
	const char	*description;
	int		 required;
};
struct wymcp_prompt {
	const char			*name;	/* NULL ends the list */
	const char			*title;
	const char			*description;	/* required */
	const struct wymcp_prompt_arg	*args;	/* or NULL */
	wymcp_prompt_fn			 get;
	/* Added in 0.4 (read through the module's element size): */
	const char			*icons;	/* JSON array text, or NULL */
	const char			*meta;	/* JSON object text, or NULL */
};

/*
 * Completion (server/utilities/completion.mdx): suggest values for an
 * argument of one of this module's prompts (ref_type "ref/prompt", ref
 * its name) or resource templates ("ref/resource", ref the template or
 * URI).  `context` is the object of arguments already chosen, or NULL.
 * Add at most 100 values with wymcp_completion_add().
 */
struct wymcp_completion;
typedef enum wymcp_err (*wymcp_complete_fn)(struct wymcp_ctx *ctx,
    const char *ref_type, const char *ref, const char *arg,
    const char *value, struct json_object *context,
    struct wymcp_completion *out);

/*
 * What a module exports under the symbol `wymcp_module`.  Use
 * WYMCP_MODULE(name, tools) for a module of tools only, or
 * WYMCP_MODULE_DEFINE(.name = …, WYMCP_TOOLS(tools),
 * WYMCP_PROMPTS(prompts), …) with designated initializers; both fill
 * abi and size.  A table given as an array to WYMCP_MODULE(),
 * WYMCP_TOOLS(), WYMCP_RESOURCES(), WYMCP_TEMPLATES() or
 * WYMCP_PROMPTS() needs no terminator: its length is recorded (0.4).
 * Any other table (.tools = tools, a pointer) ends with an entry whose
 * name (uri for resources) is NULL, as before 0.4, and a recorded one
 * may too; a NULL table is an empty one.  Members after `tools` were
 * added in 0.2, the element
 * sizes in 0.3; a module built against an older header (a smaller size)
 * reads as having none of them.  A module that fills the structure
 * itself, without the macros, sets the four element sizes too: since
 * 0.4 the elements are larger than 0.2's, which a size of 0 means.
 */
struct wymcp_module {
	unsigned int		 abi;	/* WYMCP_ABI_VERSION */
	size_t			 size;	/* sizeof(struct wymcp_module) */
	const char		*name;	/* module name, for logs */
	const struct wymcp_tool	*tools;	/* NULL-name terminated */
	const struct wymcp_resource *resources;	/* fixed URIs */
	const struct wymcp_resource *templates;	/* URI templates */
	const struct wymcp_prompt *prompts;
	wymcp_complete_fn	 complete;	/* or NULL */
	/*
	 * Cache hints for this module's lists and reads
	 * (server/utilities/caching.mdx): ttl_ms 0 means the default
	 * (300000 ms), a negative value 0 ms; `private_cache` marks results
	 * that depend on the user.  A list spanning modules takes the
	 * smallest ttl and is private if any of its modules is.
	 */
	long			 ttl_ms;
	int			 private_cache;
	/*
	 * The size of one element of each table, as the module was built
	 * (0.3): tables are walked by these strides, so the library can
	 * add members to struct wymcp_tool and the others without
	 * misreading a module built before (a member it lacks reads as
	 * 0).  A module without them (0.2) has the 0.2 sizes.
	 */
	size_t			 tool_size;
	size_t			 resource_size;
	size_t			 prompt_size;
	size_t			 prompt_arg_size;
	/*
	 * Added in 0.4: the server's Implementation (serverInfo) as a
	 * JSON object text of name, title, version, description,
	 * websiteUrl and icons (each optional; the first module loaded
	 * that has one gives it, the operator's wymcp_server_set_info()
	 * overrides it member by member), and guidance for the model
	 * (server/discover's and initialize's instructions: every
	 * module's, in load order, separated by a blank line, unless the
	 * operator sets them).  Either may be NULL.
	 */
	const char		*server_info;
	const char		*instructions;
	/*
	 * Added in 0.4: the number of entries of each table, filled by
	 * the macros from the array's size (WYMCP_NELEM()).  The loader
	 * reads at most that many, and stops before at an entry whose
	 * name (uri) is NULL.  0, what a module built before 0.4 reads
	 * as: up to that terminator.
	 */
	size_t			 ntools;
	size_t			 nresources;
	size_t			 ntemplates;
	size_t			 nprompts;
};

/*
 * The number of elements of an array; 0 for a pointer to a table
 * (whose elements are all larger than a pointer), which then reads up
 * to its terminator.
 */
#define WYMCP_NELEM(arr)	(sizeof(arr) / sizeof((arr)[0]))
#define WYMCP_TOOLS(arr)	.tools = (arr), .ntools = WYMCP_NELEM(arr)
#define WYMCP_RESOURCES(arr)						\
	.resources = (arr), .nresources = WYMCP_NELEM(arr)
#define WYMCP_TEMPLATES(arr)						\
	.templates = (arr), .ntemplates = WYMCP_NELEM(arr)
#define WYMCP_PROMPTS(arr)	.prompts = (arr), .nprompts = WYMCP_NELEM(arr)

#define WYMCP_MODULE(modname, tooltab)					\
	WYMCP_MODULE_DEFINE(.name = (modname), WYMCP_TOOLS(tooltab))
#define WYMCP_MODULE_DEFINE(...)					\
	__attribute__((visibility("default")))				\
	const struct wymcp_module wymcp_module = {			\
		.abi = WYMCP_ABI_VERSION,				\
		.size = sizeof(struct wymcp_module),			\
		.tool_size = sizeof(struct wymcp_tool),			\
		.resource_size = sizeof(struct wymcp_resource),		\
		.prompt_size = sizeof(struct wymcp_prompt),		\
		.prompt_arg_size = sizeof(struct wymcp_prompt_arg),	\
		__VA_ARGS__ }

/*
 * The request context: read-only to tools except through these calls.
 * Strings and objects returned are owned by the request.
 */

/* The JSON-RPC id of the request (string or integer). */
struct json_object	*wymcp_ctx_id(const struct wymcp_ctx *);
/* The request's params._meta object. */
struct json_object	*wymcp_ctx_meta(const struct wymcp_ctx *);
/*
 * This request's io.modelcontextprotocol/clientCapabilities object; an
 * empty object for a 2025-11-25 request (nothing can be asked of it).
 */
struct json_object	*wymcp_ctx_client_caps(const struct wymcp_ctx *);
/* One assign by lower-case name, or NULL. */
const char		*wymcp_ctx_assign(const struct wymcp_ctx *,
			    const char *name);
/* All assigns as an object of name -> string. */
struct json_object	*wymcp_ctx_assigns(const struct wymcp_ctx *);
/* The authenticated principal, or NULL when anonymous. */
const char		*wymcp_ctx_principal(const struct wymcp_ctx *);
/* The mount list: the tools serving this request, in list order. */
size_t			 wymcp_ctx_ntools(const struct wymcp_ctx *);
const struct wymcp_tool	*wymcp_ctx_tool(const struct wymcp_ctx *, size_t);
/*
 * Is tool i of the mount list one for the model (0.4)?  0 for an MCP
 * Apps tool whose visibility leaves the model out (wymcp_apps(3)):
 * what a tool tells the model about the others (help) leaves it out.
 */
int			 wymcp_ctx_tool_for_model(const struct wymcp_ctx *,
			    size_t);
/*
 * The answers this round of the call carries, keyed by input-request
 * key ("elicit-1", ...): earlier rounds' answers with this round's
 * merged over them.  An empty object on a first round.  Tools should
 * not branch on it: wymcp_elicit() is its reader.
 */
struct json_object	*wymcp_ctx_answers(const struct wymcp_ctx *);
/*
 * The call's idempotency key: 22 base64url characters (128 random bits)
 * that are the same for every round of one tools/call and every replay
 * of a round (they travel sealed in requestState), and for every run
 * of one task, on whichever runner or host, and differ for a new call.
 * A tool keys its final write with it to make that write happen once,
 * even when a runner dies after writing and the task is run again, or
 * a client sends its last round twice.  Owned by the request; NULL out
 * of memory.
 */
const char		*wymcp_idempotency_key(struct wymcp_ctx *);

/*
 * Request memory.  Everything is owned by the request; NULL on
 * allocation failure.
 */
void		*wymcp_alloc(struct wymcp_ctx *, size_t);
char		*wymcp_strdup(struct wymcp_ctx *, const char *);
char		*wymcp_printf(struct wymcp_ctx *, const char *, ...)
		    WYMCP_PRINTF(2, 3);
/*
 * Hand a json-c object to the request: its reference is dropped when
 * the request ends.  Takes ownership of `obj`; returns it (NULL in,
 * NULL out).
 */
struct json_object *wymcp_own(struct wymcp_ctx *, struct json_object *obj);
/*
 * Run fn(arg) later, newest first: a hook registered during a tool's run
 * runs when that run ends, however it ends (returned, or stopped at an
 * unanswered question), so a file or lock held across a question is
 * released; one registered outside a run runs when the request ends.
 * The same holds for the references wymcp_own() takes.
 */
enum wymcp_err	 wymcp_defer(struct wymcp_ctx *, void (*fn)(void *),
		    void *arg);

/*
 * Log a line to the server's log (wymcp-fcgi: stderr), tagged with the
 * request id.  prio is a WYMCP_LOG_* value (the MCP log levels).  When
 * the request carries io.modelcontextprotocol/logLevel at or below
 * prio, the line also goes to the client as notifications/message: so
 * never put secrets or personal data in it.  Returns WYMCP_OK, or
 * WYMCP_ERR_IO once the request is cancelled (wymcp_progress(3)): the
 * line then went to the server's log only.  (Before 0.3 it returned
 * nothing; callers that ignore the value are unaffected.)
 */
enum wymcp_err	 wymcp_log(struct wymcp_ctx *, int prio, const char *, ...)
		    WYMCP_PRINTF(3, 4);

/*
 * Content builders.  Pure: they build an MCP content block and touch
 * nothing else.  Each returns an object owned by the request, or NULL
 * on allocation failure or a NULL required argument.  The second is
 * the tool's bug: logged ("wymcp_text(): text is NULL") and kept, so
 * that wymcp_result_add() and wymcp_prompt_message() given that NULL
 * return WYMCP_ERR_INVAL, and a tool returning it fails with that line
 * as its isError text, not as out of memory.
 */
struct json_object *wymcp_text(struct wymcp_ctx *, const char *text);
struct json_object *wymcp_textf(struct wymcp_ctx *, const char *, ...)
		    WYMCP_PRINTF(2, 3);
/* A text block holding the compact serialization of `value`. */
struct json_object *wymcp_json(struct wymcp_ctx *,
		    struct json_object *value);
struct json_object *wymcp_image(struct wymcp_ctx *, const char *base64,
		    const char *mime);
struct json_object *wymcp_audio(struct wymcp_ctx *, const char *base64,
		    const char *mime);
/* mime may be NULL. */
struct json_object *wymcp_resource_link(struct wymcp_ctx *,
		    const char *uri, const char *name, const char *mime);
/* Embedded resources; mime may be NULL. */
struct json_object *wymcp_resource_text(struct wymcp_ctx *,
		    const char *uri, const char *mime, const char *text);
struct json_object *wymcp_resource_blob(struct wymcp_ctx *,
		    const char *uri, const char *mime, const char *base64);

/*
 * JSON from a template (0.4, wymcp_jsonf(3)): `fmt' is JSON text with
 * printf(3) conversions where values go, so that the compiler checks
 * every argument against it:
 *
 *	%s			a string (const char *), written as a JSON
 *				string; NULL writes null
 *	%d %i %u, with hh h l ll z j t
 *				an integer of that C type
 *	%f %e %g		a double; NaN and infinities are refused
 *	%p			a json-c value (struct json_object *),
 *				serialized; NULL is refused (a builder that
 *				failed): write null in the template
 *	%%			a '%'
 *
 * Inside a string of the template ("Hi, %s!"), a conversion writes its
 * value's characters, escaped, into that string (%s NULL is refused
 * there).  Every string is escaped as JSON needs ('"', '\', control
 * characters) and must be UTF-8.  Flags, width and precision are
 * printf's for numbers; %s takes a precision (at most that many bytes,
 * ending on a whole character); '*' and other conversions are refused.
 * The text made is parsed strictly (RFC 8259, no member twice).
 *
 * wymcp_jsonf() returns the value, owned by the request (never put
 * it); NULL out of memory, or when the template is at fault: the
 * tool's bug, logged ("wymcp_jsonf(): ... in \"{...}\"") and kept as
 * a NULL-argument builder's is (wymcp_text()), so that a tool
 * returning the failure of what it passed the value to fails with
 * that line.  A %p given that NULL fails too.
 * wymcp_json_append() appends the value of its template to `array'
 * (made by wymcp_jsonf(ctx, "[]")): WYMCP_OK, WYMCP_ERR_NOMEM, or
 * WYMCP_ERR_INVAL (not an array, or the template at fault).
 * wymcp_result_jsonf() sets the result's structuredContent to the
 * value (checked against the tool's outputSchema as it returns) and,
 * when the result has no content block by then, its serialization is
 * the text block: WYMCP_OK, WYMCP_ERR_NOMEM or WYMCP_ERR_INVAL, for a
 * tool to return.
 */
struct json_object *wymcp_jsonf(struct wymcp_ctx *, const char *fmt, ...)
		    WYMCP_PRINTF(2, 3);
struct json_object *wymcp_vjsonf(struct wymcp_ctx *, const char *fmt,
		    va_list) WYMCP_PRINTF(2, 0);
enum wymcp_err	 wymcp_json_append(struct wymcp_ctx *,
		    struct json_object *array, const char *fmt, ...)
		    WYMCP_PRINTF(3, 4);
enum wymcp_err	 wymcp_result_jsonf(struct wymcp_result *, const char *fmt,
		    ...) WYMCP_PRINTF(2, 3);

/*
 * Results.  wymcp_result_add() appends a content block (it keeps its own
 * reference; the block stays owned by the request).
 * wymcp_result_text() appends a text block formatted as printf(3) does:
 * WYMCP_OK, WYMCP_ERR_NOMEM, or WYMCP_ERR_INVAL for a NULL res or fmt.
 * wymcp_result_structured() sets structuredContent; when the result has
 * no content block at the end, a text block with its serialization is
 * added.  wymcp_result_error() marks the result isError and appends a
 * text block; it returns WYMCP_ERR_TOOL so a tool can return it.
 */
enum wymcp_err	 wymcp_result_add(struct wymcp_result *,
		    struct json_object *content);
enum wymcp_err	 wymcp_result_text(struct wymcp_result *, const char *fmt,
		    ...) WYMCP_PRINTF(2, 3);
enum wymcp_err	 wymcp_result_structured(struct wymcp_result *,
		    struct json_object *value);
enum wymcp_err	 wymcp_result_error(struct wymcp_result *, const char *, ...)
		    WYMCP_PRINTF(2, 3);

/*
 * What read(), get() and complete() return through.  Contents and
 * messages keep their own references; everything stays owned by the
 * request.  wymcp_prompt_message()'s role is "user" or "assistant" and
 * its content a content block (wymcp_content(3)).  A contents entry's
 * uri may be NULL, meaning the URI that was read; text must be UTF-8
 * and a blob base64 (WYMCP_ERR_INVAL otherwise).
 */
enum wymcp_err	 wymcp_contents_text(struct wymcp_resource_result *,
		    const char *uri, const char *mime, const char *text);
enum wymcp_err	 wymcp_contents_blob(struct wymcp_resource_result *,
		    const char *uri, const char *mime, const char *base64);
/*
 * Set the _meta of the contents entry added last (MCP Apps put
 * {"ui": {...}} there, resources/read taking precedence over the
 * listing's): `meta' is an object whose keys follow the rules of a
 * module's `meta' (above).  The entry keeps its own reference; `meta'
 * stays the caller's.  WYMCP_ERR_INVAL when no entry was added or
 * `meta' is not such an object, WYMCP_ERR_NOMEM when NULL (a builder
 * that failed).
 */
enum wymcp_err	 wymcp_contents_meta(struct wymcp_resource_result *,
		    struct json_object *meta);
/*
 * A file's text as the contents (0.5): the file whose path `fmt'
 * formats (printf(3)), read now, as UTF-8 text of type `mime' (or
 * NULL) at the URI read; with `tail' > 0, only its last `tail' lines
 * (a final newline ends the last).  At most WYMCP_CONTENTS_FILE_MAX
 * bytes are read: from the end, with a tail, else a larger file fails.
 * WYMCP_OK; WYMCP_ERR_NOTFOUND when there is no such file (the client
 * gets "Resource not found"); WYMCP_ERR_IO (it cannot be read, or is
 * too large) or WYMCP_ERR_INVAL (not UTF-8), with why in the log.
 * Check what a client's values put in the path first: a {var} is
 * percent-decoded, so "..%2F.." arrives as "../.." (wymcp_refuse()).
 * The text is copied into the contents, owned by the request.
 */
#define WYMCP_CONTENTS_FILE_MAX	(1024 * 1024)
enum wymcp_err	 wymcp_contents_file(struct wymcp_resource_result *,
		    const char *mime, int tail, const char *fmt, ...)
		    WYMCP_PRINTF(4, 5);
enum wymcp_err	 wymcp_prompt_message(struct wymcp_prompt_result *,
		    const char *role, struct json_object *content);
enum wymcp_err	 wymcp_prompt_describe(struct wymcp_prompt_result *,
		    const char *description);
enum wymcp_err	 wymcp_completion_add(struct wymcp_completion *,
		    const char *value);
/* The total number of matches, when known, and whether more exist. */
void		 wymcp_completion_total(struct wymcp_completion *,
		    long total, int has_more);

/*
 * Events for listen streams (basic/patterns/subscriptions.mdx): say
 * that the resource `uri' changed (notifications/resources/updated, to
 * the listeners subscribed to that URI), or that the lists named by
 * `lists' (WYMCP_LIST_* or'd) changed (notifications/.../list_changed,
 * to the listeners that asked for them).  An event is published when
 * the handler's run completes, whatever it returns; a round that ends
 * at an unanswered question publishes nothing, its next run says it
 * again.  The server's program delivers it (wymcp-fcgi: to every
 * listener of the instance, and of every host on a --bus); without one
 * it goes nowhere.  WYMCP_ERR_INVAL for a NULL, empty, non-UTF-8 or
 * over-long (2048 bytes) URI, no list, or past 64 events in one run.
 */
#define WYMCP_LIST_TOOLS	0x1
#define WYMCP_LIST_PROMPTS	0x2
#define WYMCP_LIST_RESOURCES	0x4
enum wymcp_err	 wymcp_notify_resource_updated(struct wymcp_ctx *,
		    const char *uri);
enum wymcp_err	 wymcp_notify_list_changed(struct wymcp_ctx *, int lists);

/*
 * Progress (basic/patterns/progress.mdx).  When the request carries a
 * progressToken, each call sends notifications/progress on the
 * response, which becomes an SSE stream; otherwise it does nothing.
 * `progress` must increase from call to call (WYMCP_ERR_INVAL
 * otherwise); `total` < 0 means unknown; `message` may be NULL.
 * wymcp_log() likewise sends notifications/message when the request
 * carries io.modelcontextprotocol/logLevel at or below the line's
 * priority.  Returns WYMCP_ERR_IO once the request is cancelled: the
 * client has gone away (a failed write, or the program's io->gone), or
 * the request's time limit has passed (wymcp_server_set_request_timeout).
 * wymcp_cancelled() then says 1, and the tool should stop; both look
 * again at every call, token or not.
 */
enum wymcp_err	 wymcp_progress(struct wymcp_ctx *, double progress,
		    double total, const char *message);
int		 wymcp_cancelled(const struct wymcp_ctx *);

/*
 * Asking the client: Multi Round-Trip Requests (basic/patterns/mrtr.mdx).
 *
 * Each call either returns the client's answer for its key, or ends the
 * round: the run stops right there (it never returns), the client is told
 * what to ask, and it sends the whole call again with the answer; the
 * tool then runs again from the top.  Hence the re-execution rule: work
 * before an unanswered question runs once per round, so it must be free
 * of side effects or idempotent; ask first, then write.
 *
 * Keys: wymcp_elicit(), wymcp_sample() and wymcp_roots() with a NULL key
 * number their questions by position in run order ("elicit-1",
 * "sample-2", "roots-3": one counter for the run); a tool may choose a
 * key instead.  Returns:
 *   WYMCP_OK          *answer is the client's result for that key
 *                     (owned by the request): an ElicitResult
 *                     {"action":"accept"|"decline"|"cancel","content"?},
 *                     a CreateMessageResult or a ListRootsResult.
 *                     Decline and cancel are answers: never re-asked.
 *   WYMCP_ERR_NOTSUP  this request's clientCapabilities lacks the
 *                     capability (form elicitation: no "elicitation", or
 *                     one naming "url" alone); answers are not read.
 *                     Always, for a 2025-11-25 (legacy) request.
 *   WYMCP_ERR_NORUN   no run is open in this thread: the tool was called
 *                     directly, or the call comes from another thread.
 *   WYMCP_ERR_SCHEMA  the elicitation schema is not a flat object of
 *                     primitive properties (nothing was sent).
 *   WYMCP_ERR_INVAL   a bad argument (NULL message, invalid key).
 * An accepted elicitation whose content does not match the requested
 * schema never reaches the tool: the call fails with -32602.
 */
enum wymcp_err	 wymcp_elicit(struct wymcp_ctx *, const char *message,
		    const char *schema_json, struct json_object **answer);
/* As wymcp_elicit(), with a chosen key (NULL: positional). */
enum wymcp_err	 wymcp_elicit_key(struct wymcp_ctx *, const char *key,
		    const char *message, struct json_object *schema,
		    struct json_object **answer);
/*
 * URL-mode elicitation (client/elicitation.mdx "URL Mode"): ask the
 * user to visit `url` (http or https) for what must not pass through
 * the client, such as credentials or payment: mode "url" (and, to a
 * 2025-11-25 client, an elicitationId, which 2026-07-28 removed from
 * ElicitRequestURLParams).  Needs the client's elicitation.url
 * capability, else WYMCP_ERR_NOTSUP.  The answer's action says whether the user agreed
 * to go (accept), declined or cancelled; it carries no content.  A
 * 2026-07-28 client is asked in an input request, a 2025-11-25 one on
 * the held stream.  Positional key elicit-N, like wymcp_elicit().
 */
enum wymcp_err	 wymcp_elicit_url(struct wymcp_ctx *, const char *message,
		    const char *url, struct json_object **answer);
/* sampling/createMessage with `params` (messages, maxTokens, ...). */
enum wymcp_err	 wymcp_sample(struct wymcp_ctx *, const char *key,
		    struct json_object *params, struct json_object **answer);
/* roots/list. */
enum wymcp_err	 wymcp_roots(struct wymcp_ctx *, const char *key,
		    struct json_object **answer);
/*
 * Ask several questions in one round: after wymcp_input_batch(), an
 * unanswered question is collected instead of ending the round (the call
 * returns WYMCP_ERR_PENDING and leaves *answer NULL); wymcp_input_flush()
 * then ends the round if any question is unanswered, else returns
 * WYMCP_OK and the batch is over.
 */
enum wymcp_err	 wymcp_input_batch(struct wymcp_ctx *);
enum wymcp_err	 wymcp_input_flush(struct wymcp_ctx *);
/*
 * One question, in one call (0.4): wymcp_elicit() whose answer is
 * sorted out.  `schema_json' NULL asks for nothing but a yes (accept)
 * or a no (decline): a confirmation.  WYMCP_OK when the user accepted,
 * with *content (when content is not NULL) the accepted content,
 * owned by the request; WYMCP_ERR_DECLINED or WYMCP_ERR_CANCELLED when
 * they declined or cancelled (never asked again); anything else as
 * wymcp_elicit().  wymcp_ask_choice() asks for one of `choices' (a
 * NULL-terminated array of strings, at least one; the property is
 * "choice", a string enum) and sets *choice to the one chosen, owned
 * by the request.
 */
enum wymcp_err	 wymcp_ask(struct wymcp_ctx *, const char *message,
		    const char *schema_json, struct json_object **content);
enum wymcp_err	 wymcp_ask_choice(struct wymcp_ctx *, const char *message,
		    const char *const *choices, const char **choice);
/* An answer's "action" ("accept", "decline", "cancel"), or NULL. */
const char	*wymcp_answer_action(struct json_object *answer);
/* An accepted answer's "content" object, or NULL. */
struct json_object *wymcp_answer_content(struct json_object *answer);

/*
 * The server: long-lived, one per process.  The front end (wymcp-fcgi)
 * creates it, loads modules before accepting requests, and hands each
 * request to wymcp_server_serve().
 */

/* NULL on allocation failure.  Caller frees with wymcp_server_free(). */
struct wymcp_server	*wymcp_server_new(void);
void			 wymcp_server_free(struct wymcp_server *);
/*
 * Register a module linked into the program.  `mod` must outlive the
 * server.  Schemas are parsed and checked here; on failure the reason
 * is in wymcp_server_errmsg() and nothing was registered.
 */
enum wymcp_err	 wymcp_server_add_module(struct wymcp_server *,
		    const struct wymcp_module *mod);
/* dlopen(3) a module file and register its `wymcp_module`. */
enum wymcp_err	 wymcp_server_load_module(struct wymcp_server *,
		    const char *path);
/*
 * `on' 1: the modules loaded from now on leave to first use what no
 * check needs, the digest of every tool's listing and its serialized
 * text (made by a tools/list or a sealed requestState, not by a
 * tools/call); for a process that serves one request (CGI).  0, the
 * default: made at the load, once for the workers forked after it.
 * Nothing is allocated for the caller.
 */
void		 wymcp_server_set_lazy(struct wymcp_server *, int on);
/*
 * Serve the skills of directory `dir' (io.modelcontextprotocol/skills,
 * wymcp_server_load_skills(3)): each dir/<name>/SKILL.md and the files
 * beside it.  Read once, here; a skill breaking a rule is refused with
 * the file and the rule in wymcp_server_errmsg(), and nothing is
 * served.
 */
enum wymcp_err	 wymcp_server_load_skills(struct wymcp_server *,
		    const char *dir);
/*
 * Exec tools (0.5, wymcp-exec(5)): every DIR/<name>.json manifest is a
 * tool named <name> whose body is a program, run once per round
 * without a shell, isolated (its own session and process group, no new
 * privileges, rlimits, Landlock where the kernel has it) and never
 * outliving its call.  wymcp_server_load_exec_dir() reads the
 * directory now, checking each manifest, its program and the
 * directory with the file check below when one is set: WYMCP_OK, or
 * WYMCP_ERR_MODULE (WYMCP_ERR_NOMEM) with the file, the member and why
 * in wymcp_server_errmsg(); the server should then be discarded.
 * wymcp_server_set_exec_user() names the user runs switch to when the
 * program runs as root (a manifest's "user" wins); never root:
 * WYMCP_ERR_INVAL.  Without one, runs of a root program are refused.
 * wymcp_exec_landlock() is the Landlock ABI runs are confined with, 0
 * when the kernel has none; wymcp_server_exec_count() the number of
 * exec tools loaded.
 */
enum wymcp_err	 wymcp_server_load_exec_dir(struct wymcp_server *,
		    const char *dir);
enum wymcp_err	 wymcp_server_set_exec_user(struct wymcp_server *,
		    const char *user);
int		 wymcp_exec_landlock(void);
size_t		 wymcp_server_exec_count(const struct wymcp_server *);
/*
 * Vet a file a module names (a resource's `file', wymcp_apps(3))
 * before the library reads it: `check' returns 0 to allow `path', or
 * -1 with the reason in `why' (the module is refused, naming the file
 * and the reason).  wymcp-fcgi applies the rules it loads modules by.
 * Without one, every readable file is taken.  `arg' is passed back.
 */
typedef int (*wymcp_file_check_fn)(void *arg, const char *path,
    char *why, size_t whylen);
void		 wymcp_server_set_file_check(struct wymcp_server *,
		    wymcp_file_check_fn check, void *arg);
/* The reason for the last failure of a server call.  Never NULL. */
const char	*wymcp_server_errmsg(const struct wymcp_server *);
/*
 * Allow an Origin (scheme://host[:port]) or a bare host name beyond the
 * loopback names.  A "scheme://host" origin also allows "host" in the
 * Host header.
 */
enum wymcp_err	 wymcp_server_allow_origin(struct wymcp_server *,
		    const char *origin);
/*
 * requestState sealing keys.  A key file holds one key per line, 64
 * hexadecimal digits (32 bytes); blank lines and lines starting with '#'
 * are ignored.  The first key seals, every key opens, so a new key is
 * put first and an old one removed only after the state TTL has passed.
 * A file readable or writable by group or others is refused.  A new
 * server has one random key of its own, good for one process (and the
 * workers it forks) only.
 */
enum wymcp_err	 wymcp_server_load_state_keys(struct wymcp_server *,
		    const char *path);
/* How long a sealed requestState stays valid (default 300 seconds). */
void		 wymcp_server_set_state_ttl(struct wymcp_server *,
		    unsigned int seconds);
#define WYMCP_STATE_TTL_DEFAULT	300
/* Write a new key file (mode 0600), or put a new key first in one. */
enum wymcp_err	 wymcp_state_key_generate(const char *path, char *errbuf,
		    size_t errlen);
/*
 * A message between the processes of one deployment, authenticated
 * under the state keys (wymcp-fcgi's hub seals the stream control it
 * sends other hosts on the bus).  wymcp_server_mac() writes the MAC of
 * the `len' bytes of `msg' under the first key into `mac'
 * (WYMCP_MAC_LEN bytes) and that key's id into `kid'
 * (WYMCP_KEY_ID_LEN bytes): WYMCP_OK, or WYMCP_ERR_INVAL without a key.
 * wymcp_server_mac_check() says whether `mac' is that MAC under the key
 * whose id is `kid': 1, or 0 (no such key, or another MAC).  The MAC is
 * keyed by a key derived from the state key for this use alone.
 */
#define WYMCP_MAC_LEN		32
#define WYMCP_KEY_ID_LEN	4
enum wymcp_err	 wymcp_server_mac(const struct wymcp_server *,
		    const char *msg, size_t len, unsigned char *kid,
		    unsigned char *mac);
int		 wymcp_server_mac_check(const struct wymcp_server *,
		    const unsigned char *kid, const char *msg, size_t len,
		    const unsigned char *mac);

/*
 * How many entries a page of tools/list, resources/list,
 * resources/templates/list and prompts/list holds (0: the default,
 * WYMCP_PAGE_SIZE_DEFAULT).  Longer lists carry a nextCursor.
 */
void		 wymcp_server_set_page_size(struct wymcp_server *, size_t);
#define WYMCP_PAGE_SIZE_DEFAULT	100

/*
 * Serve 2025-11-25 clients (the initialize handshake; also 2025-06-18,
 * 2025-03-26, 2024-11-05) beside 2026-07-28 ones on the same endpoint:
 * on by default.  Off, the server is modern-only: initialize is
 * answered 400 with -32022 naming 2026-07-28.  The FastCGI param
 * WYMCP_LEGACY=on|off overrides it per location.  A legacy client is
 * never asked anything (wymcp_elicit() and the others answer
 * WYMCP_ERR_NOTSUP): see wymcp-fcgi(8) "LEGACY CLIENTS".
 */
void		 wymcp_server_set_legacy(struct wymcp_server *, int on);

/*
 * The server's Implementation, sent as serverInfo (every 2026-07-28
 * result's _meta io.modelcontextprotocol/serverInfo, a 2025-11-25
 * initialize's serverInfo), and the instructions server/discover and
 * initialize carry.  By default the name is "wymcp" and the version
 * the package's (configure's), with no instructions; a module's
 * server_info and instructions come next (struct wymcp_module), and
 * what is set here overrides both, member by member: a NULL member
 * leaves what was there, "" removes an optional one (name and version
 * cannot be removed).  `icons' is a JSON array text of Icon objects,
 * checked as a module's; website_url must be an http: or https: URL.
 * `size' is sizeof(struct wymcp_server_info) as the caller was built:
 * members it does not cover are NULL.  Strings are copied.
 * WYMCP_ERR_INVAL (wymcp_server_errmsg() says which rule) leaves the
 * settings as they were.
 */
struct wymcp_server_info {
	const char	*name;
	const char	*title;
	const char	*version;
	const char	*description;
	const char	*website_url;	/* websiteUrl */
	const char	*icons;		/* JSON array text of Icon */
	const char	*instructions;
};
enum wymcp_err	 wymcp_server_set_info(struct wymcp_server *,
		    const struct wymcp_server_info *, size_t size);

/*
 * Discovery outside MCP (experimental; wymcp-fcgi(8) "DISCOVERY"): the
 * server card a GET of <endpoint>/server-card answers, and the MCP
 * Registry's server.json.  Both are made of the serverInfo above and
 * name one remote: the endpoint's streamable-http URL.
 *
 * wymcp_server_set_public_url() gives that URL (http: or https:, a
 * host, an optional port and a path; no query): the card names it
 * instead of the URL of the request (scheme, Host, path), and a server
 * name that is not of the form namespace/name (com.example/weather) is
 * made one from its host.  NULL or "" forgets it.  Copied.
 * wymcp_server_add_public_header() names a header a client must send
 * there (Authorization), listed as a required secret; 8 at most.
 * WYMCP_ERR_INVAL (wymcp_server_errmsg() says why) changes nothing.
 *
 * wymcp_server_json() returns the registry's server.json (schema
 * 2025-12-11) for the public URL, indented; icons the registry does
 * not take (not https:) are left out, and logged.  Caller frees with
 * free(3).  NULL, with why in wymcp_server_errmsg(), without a public
 * URL, when no name of the form namespace/name can be made, or out of
 * memory.
 */
enum wymcp_err	 wymcp_server_set_public_url(struct wymcp_server *,
		    const char *url);
enum wymcp_err	 wymcp_server_add_public_header(struct wymcp_server *,
		    const char *name);
char		*wymcp_server_json(struct wymcp_server *);

/* Largest accepted request body (default WYMCP_MAX_BODY_DEFAULT). */
void		 wymcp_server_set_max_body(struct wymcp_server *, size_t);
#define WYMCP_MAX_BODY_DEFAULT	(1024 * 1024)

/* Log priorities, as syslog(3). */
#define WYMCP_LOG_EMERG		0	/* MCP "emergency" */
#define WYMCP_LOG_ALERT		1	/* "alert" */
#define WYMCP_LOG_CRIT		2	/* "critical" */
#define WYMCP_LOG_ERR		3	/* "error" */
#define WYMCP_LOG_WARNING	4	/* "warning" */
#define WYMCP_LOG_NOTICE	5	/* "notice" */
#define WYMCP_LOG_INFO		6	/* "info" */
#define WYMCP_LOG_DEBUG		7	/* "debug" */
/*
 * The library never prints: it hands each log line (without newline) to
 * this function.  `reqid` is the request's JSON-RPC id serialized, or
 * NULL outside a request.  Default: no logging.
 */
typedef void (*wymcp_log_fn)(void *arg, int prio, const char *reqid,
    const char *msg);
void		 wymcp_server_set_log(struct wymcp_server *, wymcp_log_fn,
		    void *arg, int maxprio);

/*
 * One request as the web server hands it over.  `env` is the CGI
 * parameter list (NAME=VALUE, NULL-terminated).  read() returns bytes
 * read, 0 at end of body, -1 on error.  write() returns 0, or -1 when
 * the peer is gone.  flush() may be NULL.
 *
 * Members after `arg` were added in 0.3 and are read only through
 * wymcp_server_serve_io(), which is told the size of the structure as
 * the caller was built; wymcp_server_serve() reads the 0.2 members
 * alone.  Zero the whole structure (memset, or an initializer) before
 * filling it in, so that members added later read as absent.
 * gone() may be NULL; else it returns 1 when the peer has closed the
 * connection (it must not block, read or write), 0 otherwise.
 *
 * The ask_* members (0.3, all or none) let the library ask a
 * 2025-11-25 client on the tool call's held stream and relay the
 * answer, which the client POSTs as another request, possibly to
 * another worker (wymcp-fcgi(8) "Asking older clients").
 * ask_hold() takes one of the program's places for a held question
 * and returns this holder's address (visible ASCII, up to 255
 * characters; the sealed request id carries it), or NULL when no place
 * is free: the tool's question then answers WYMCP_ERR_NOTSUP.
 * ask_release() gives the place back; it is called once the tool is
 * done, before the response is written (a client's next call, sent
 * as soon as it reads this one's result, finds the place free).
 * ask_wait() waits up to `ms` milliseconds for an answer relayed to
 * this holder, and hands each that arrives to take(), which
 * returns 1 when it was one this request waits for, 0 when not; it
 * returns 1 once take() said 1, 0 when the time is up, 2 when the peer
 * went away, -1 on error.  ask_forward() delivers `msg` (a client's
 * JSON-RPC response) to the holder at `addr`: 0 when the holder took
 * it, -1 when it did not or is gone.  ask_timeout is the seconds a
 * question waits for its answer (0: WYMCP_ASK_TIMEOUT_DEFAULT).
 * ask_hold_as() (0.4), when set, is called instead of ask_hold() with
 * who asks (the principal, or "addr:" and the client's address, as
 * wymcp_listen's `who`), so that the program can keep one principal
 * from taking every place: NULL then, as for no place free.
 */
struct wymcp_io {
	char *const	 *env;
	long		(*read)(void *arg, char *buf, size_t len);
	int		(*write)(void *arg, const char *buf, size_t len);
	int		(*flush)(void *arg);
	void		 *arg;
	int		(*gone)(void *arg);		/* 0.3 */
	const char	*(*ask_hold)(void *arg);	/* 0.3 */
	void		(*ask_release)(void *arg);
	int		(*ask_wait)(void *arg, int ms,
			    int (*take)(void *, const char *, size_t),
			    void *takearg);
	int		(*ask_forward)(void *arg, const char *addr,
			    const char *msg, size_t len);
	unsigned int	  ask_timeout;
	/* 0.4: listen streams held by the program (below). */
	int		(*listen_hold)(void *arg, const struct wymcp_listen *);
	int		(*listen_hand)(void *arg, const struct wymcp_listen *);
	/* 0.4: ask_hold() told who asks (above). */
	const char	*(*ask_hold_as)(void *arg, const char *who);
};
#define WYMCP_ASK_TIMEOUT_DEFAULT	300	/* seconds */

/*
 * A listen stream the program holds (wymcp-fcgi's hub): what it must
 * deliver, for the io's listen_* members.  listen_hold() is asked
 * before anything is written: 0 when the program takes one more
 * stream, -1 when it holds as many as it may (the client gets HTTP 503
 * with Retry-After), -2 when this principal holds its share (429).
 * listen_hand() is called once the head and the acknowledgement are
 * written and flushed: 0 when the program took the connection (the
 * library writes nothing more, and the request is over), -1 when it
 * could not (the library ends the stream with its result).  Without
 * them, the library honours no list or resource type (the listen is
 * acknowledged without them and ends at once).  The strings are the
 * request's: copy what you keep.
 */
struct wymcp_listen {
	const char	*id;		/* the listen's id, as JSON text */
	int		 lists;		/* WYMCP_LIST_* asked for */
	const char *const *uris;	/* resources/updated asked for */
	size_t		 nuris;
	const char	*principal;	/* or NULL: anonymous */
	const char	*mount;		/* WYMCP_TOOLS, or NULL: every tool */
	const char	*end;		/* the last frame: the result, JSON */
	const char	*session;	/* a 2025-11-25 GET stream: its
					   session's key; NULL: a listen */
	const char	*who;		/* the principal, or "addr:" and the
					   client's address without one */
};
#define WYMCP_LISTEN_URIS_MAX	64	/* resourceSubscriptions kept */

/*
 * The program delivers events (it holds listen streams: wymcp-fcgi
 * with its hub): server/discover (and a 2025-11-25 initialize) declares
 * listChanged for tools, prompts and resources and resources.subscribe,
 * a 2025-11-25 client's GET opens a stream for its session (the io's
 * listen_* members, wymcp_listen's session set), and `fn' is given
 * every event a run published (wymcp_notify_*()), as compact JSON:
 *
 *	{"v":1,"k":"updated","uri":"note://a"}
 *	{"v":1,"k":"list","lists":["tools","resources"]}
 *
 * (a list event may name "tools":[...], the tools that changed, so
 * that only listeners whose mount list has one of them hear it), and a
 * 2025-11-25 client's resources/subscribe and resources/unsubscribe:
 *
 *	{"v":1,"k":"subscribe","session":"KEY","uri":"note://a"}
 *	{"v":1,"k":"unsubscribe","session":"KEY","uri":"note://a"}
 *
 * for the program to add the URI to (or take it from) the stream of
 * that session, wherever it is held, and a notifications/cancelled
 * naming a listen's id, which ends that listen of the same caller:
 *
 *	{"v":1,"k":"cancel","who":"WHO","id":"listen:1"}
 *
 * (`who' as in struct wymcp_listen).  The last three are commands: a
 * program takes them only from its own processes, and between hosts
 * only authenticated (wymcp_server_mac(); wymcp-fcgi(8), "Events and
 * commands").  NULL turns it off.
 */
typedef void	(*wymcp_publish_fn)(void *arg, const char *event,
		    size_t len);
/*
 * A server's catalogue, to compare across a reload: each tool's name
 * and the digest of its listing, and one digest of the prompts and one
 * of the resources and templates.  It outlives the server (the modules
 * may be unloaded).  NULL out of memory; free it with
 * wymcp_catalogue_free().  wymcp_catalogue_changes() returns the list
 * event above for the lists that differ from `before' to `after',
 * naming in "tools" every tool added, removed or changed; NULL when
 * nothing did (or out of memory); the caller frees it.
 */
struct wymcp_catalogue;
struct wymcp_catalogue *wymcp_server_catalogue(const struct wymcp_server *);
char		*wymcp_catalogue_changes(const struct wymcp_catalogue *before,
		    const struct wymcp_catalogue *after);
void		 wymcp_catalogue_free(struct wymcp_catalogue *);
void		 wymcp_server_set_publish(struct wymcp_server *,
		    wymcp_publish_fn, void *arg);

/*
 * Serve one request: read the body, apply the HTTP and JSON-RPC rules,
 * run the method, write the CGI response (Status and headers, then the
 * body).  Returns WYMCP_OK when a response was written, whatever its
 * status; WYMCP_ERR_IO when the peer went away.
 * wymcp_server_serve_io() is the same with `size`, which must be
 * sizeof(struct wymcp_io) as the caller sees it: a member the size does
 * not cover is absent.
 */
enum wymcp_err	 wymcp_server_serve(struct wymcp_server *,
		    const struct wymcp_io *);
enum wymcp_err	 wymcp_server_serve_io(struct wymcp_server *,
		    const struct wymcp_io *, size_t size);

/*
 * A time limit for every request, in milliseconds (0, the default:
 * none).  The FastCGI param WYMCP_REQUEST_TIMEOUT (whole seconds) may
 * lower it for a location, never raise it.  Once it has passed, the
 * request is cancelled (wymcp_cancelled() says 1, wymcp_progress() and
 * wymcp_log() return WYMCP_ERR_IO), and whatever the method answers is
 * replaced by JSON-RPC error -32603 "Request timed out" (HTTP status 504
 * when it is not streamed).  Nothing stops a handler that never looks:
 * the program serving the request does (wymcp-fcgi(8)), with the
 * deadline the request hook below reports.
 */
void		 wymcp_server_set_request_timeout(struct wymcp_server *,
		    unsigned long ms);

/*
 * What the program serving a request learns about it, for its logs, its
 * timers and its process manager.  The strings are owned by the request
 * and valid until the hook returns: copy what you keep.  Members may be
 * added at the end.
 */
struct wymcp_request_detail;
struct wymcp_request_info {
	const char	*method;	/* JSON-RPC method, or NULL */
	const char	*name;		/* tool or prompt name, resource URI */
	const char	*reqid;		/* JSON-RPC id serialized, or NULL */
	long long	 deadline_ms;	/* CLOCK_MONOTONIC, ms; 0: no limit */
	int		 done;		/* the response has been written */
	int		 nomem;		/* memory ran out in this request */
	/* Added in 0.5: with done, when asked for (below); else NULL. */
	const struct wymcp_request_detail *detail;
};
/*
 * Called whenever something above changes for the request in flight: as
 * it starts (deadline), once its method is read, as a tool, prompt or
 * resource handler starts (name), when the deadline moves, and once as
 * it ends (done).  From the thread serving the request; the hook must
 * not call back into the server.  NULL (the default) calls nothing.
 */
typedef void (*wymcp_request_fn)(void *arg,
    const struct wymcp_request_info *info);
void		 wymcp_server_set_request_fn(struct wymcp_server *,
		    wymcp_request_fn, void *arg);

/*
 * Operators' accounting (added in 0.5): what a request was, for an
 * audit line (wymcp-fcgi(8) --audit-log).  Filled only when the
 * program asked for it (wymcp_server_set_request_detail() with
 * WYMCP_DETAIL_HOOK), and handed to the request hook once, with done
 * (info->detail, and info->name is the target even where the method
 * refused it); otherwise the detail is NULL and nothing of it is
 * computed.  The strings are owned by the request and valid until the
 * hook returns.
 *
 * `outcome' is "complete" (a result), "input_required" (`questions' is
 * then the JSON array text of the question keys), "task" (a task was
 * made: `task_id'), "tool_error" (a tool result with isError),
 * "error" (a JSON-RPC error: `code'), "accepted" (a notification, 202)
 * or "stream" (a stream handed to the program); NULL when no response
 * was written (the client went away).  `args_digest' tells two calls'
 * arguments apart without holding them: 32 hex digits of a SipHash-2-4
 * keyed with a key derived from the state key (never the key, never the
 * arguments), over the arguments' canonical JSON (members sorted), the
 * same for the same arguments under the same first key.  `args' is the
 * arguments themselves, as JSON, only for a tool that declares
 * audit_args, with every property its inputSchema marks writeOnly
 * (at the top level) left out.
 */
struct wymcp_request_detail {
	const char	*principal;	/* NULL: anonymous */
	const char	*client_name;	/* clientInfo's, or NULL */
	const char	*client_version; /* clientInfo's, or NULL */
	const char	*version;	/* protocol revision, or NULL */
	const char	*outcome;	/* see above, or NULL */
	const char	*questions;	/* JSON array text, or NULL */
	const char	*task_id;	/* made or asked about, or NULL */
	const char	*args_digest;	/* 32 hex digits, or NULL */
	const char	*args;		/* JSON text (audit_args), or NULL */
	const char	*traceparent;	/* params._meta's, or NULL */
	const char	*target;	/* tool, prompt or URI, or NULL */
	/* With WYMCP_DETAIL_TRACE: the request's span, hex (else NULL). */
	const char	*trace_id;	/* 32 digits */
	const char	*span_id;	/* 16 digits */
	const char	*parent_span_id; /* 16 digits, or NULL: a root */
	int		 task_run;	/* 1: a task runner's run of task_id,
					   not a request (status 0) */
	long		 code;		/* JSON-RPC error code, or 0 */
	int		 round;		/* answers the call carried */
	int		 status;	/* HTTP status, 0: none written */
	size_t		 bytes_in;	/* of the body read */
};
/*
 * What to compute (0: nothing, the default): WYMCP_DETAIL_HOOK, the
 * detail handed to the request hook; WYMCP_DETAIL_HEADERS, the same
 * facts as response headers a web server can log and hide (Wymcp-
 * Principal, Wymcp-Client, Wymcp-Target, Wymcp-Round, Wymcp-Outcome,
 * Wymcp-Code, Wymcp-Task, Wymcp-Args-Digest; values of printable ASCII,
 * any other byte %-encoded; not on a streamed response, whose head goes
 * out before its outcome is known).
 */
/*
 * Rate limits (added in 0.5; wymcp-fcgi(8) --rate-limit).  A rate is
 * "N/UNIT" with UNIT s, min or h (also sec, second, minute, hour), N a
 * whole number from 1 to 1000000 (no leading zero), and optionally
 * ",burst=B", B from 1
 * to 1000000 (default N): a token bucket of B tokens refilled at N a
 * UNIT.  wymcp_rate_parse() reads one into *r: 0, or -1 (*r untouched)
 * for anything else.  A tool's `rate' is checked so when its module is
 * loaded (a bad one refuses the module).
 */
struct wymcp_rate {
	double		 per_s;		/* tokens a second */
	unsigned int	 burst;		/* the bucket's size */
};
int		 wymcp_rate_parse(const char *, struct wymcp_rate *r);
/*
 * The admission of a tools/call, asked once per call, at its first
 * round (a request without requestState), after its arguments are
 * checked and before it runs or becomes a task: a round of a call
 * already under way is never refused.  `who' is the principal, or
 * "addr:" and the client's address without one; `rate' the tool's
 * declared rate, or NULL.  The hook returns 0 to let the call run, or
 * the milliseconds to wait before a call may be admitted: the call is
 * then answered HTTP 429 with Retry-After (whole seconds, at least 1)
 * and JSON-RPC error WYMCP_CODE_RATE_LIMITED with data.retryAfterMs
 * and data.tool.  NULL (the default) admits every call.
 */
#define WYMCP_CODE_RATE_LIMITED	(-32029)
struct wymcp_admit {
	const char	*who;		/* principal, or "addr:ADDRESS" */
	const char	*tool;		/* the tool's name */
	const char	*rate;		/* its declared rate, or NULL */
};
typedef long	(*wymcp_admit_fn)(void *arg, const struct wymcp_admit *);
void		 wymcp_server_set_admit_fn(struct wymcp_server *,
		    wymcp_admit_fn, void *arg);

#define WYMCP_DETAIL_HOOK	0x1
#define WYMCP_DETAIL_HEADERS	0x2
#define WYMCP_DETAIL_TRACE	0x4	/* the detail's span ids */
#define WYMCP_DETAIL_OUTCOME	0x8	/* to the hook, only: outcome, code,
					   round, target, task, status and
					   bytes (the rest NULL: cheaper) */
/*
 * The W3C traceparent (https://www.w3.org/TR/trace-context/) of the
 * request's own span, for a tool to pass on to what it calls:
 * "00-TRACEID-SPANID-FLAGS", a child of the context the request came
 * with (params._meta.traceparent, MCP SEP-414; else the HTTP
 * traceparent header; a new trace without either or when it is
 * malformed), the same all through the request.  Owned by the request;
 * NULL outside a request or out of memory.
 */
const char	*wymcp_ctx_traceparent(struct wymcp_ctx *);
void		 wymcp_server_set_request_detail(struct wymcp_server *,
		    int flags);

/*
 * The task store (wymcp_task(3)): where tasks live, so that a tools/call
 * of a tool with task_support can be answered with a task handle at
 * once and run by a task runner.  `uri' is sqlite:PATH (a file every
 * process of the host shares) or postgresql://... (a libpq connection
 * URI, for several hosts); NULL forgets the store.  The store is
 * opened (and its schema created or upgraded) here, then closed: each
 * process opens its own connection at first use, so call this before
 * forking.  The back end is an object of its own, loaded here at its
 * first use: sqlite.so or pg.so in the package's library directory's
 * backend/ (or in $WYMCP_BACKEND_DIR), so that libwymcp links neither
 * SQLite nor libpq.  WYMCP_ERR_INVAL for a URI of no known kind,
 * WYMCP_ERR_MODULE when its back end cannot be loaded or this wymcp
 * was built without it, WYMCP_ERR_IO when the store cannot be opened
 * (wymcp_server_errmsg() says why).  With a store, server/discover
 * advertises the extension.
 */
enum wymcp_err	 wymcp_server_set_task_store(struct wymcp_server *,
		    const char *uri);
/*
 * Load the task store's back end that `uri' names (sqlite:PATH,
 * postgresql://...) now: the object wymcp_server_set_task_store()
 * would load, its file's real path vetted first by `check' (the type
 * of wymcp_server_set_file_check(); NULL: not vetted).  A back end is
 * loaded once a process and stays: a later call, or the store's,
 * takes it as it is, unvetted.  For a program that loads it before it
 * gives up privileges (wymcp-fcgi).  `*obj', when obj is not NULL, is
 * set to the object (the library's, loaded for the process's life: it
 * is never freed), whose bus the wymcp_bus_*() calls below reach.
 * WYMCP_OK; WYMCP_ERR_INVAL for a URI of no known kind,
 * WYMCP_ERR_MODULE when the back end was refused, cannot be loaded, or
 * this wymcp was built without it: why (naming the file or the
 * configure switch, never the URI) in `err'.
 */
enum wymcp_err	 wymcp_backend_load(const char *uri,
		    wymcp_file_check_fn check, void *arg, const void **obj,
		    char *err, size_t errlen);
/*
 * The bus (wymcp_task(3) "THE BUS"): events shared by every process of
 * every host through PostgreSQL's LISTEN/NOTIFY, over the back end `be'
 * that wymcp_backend_load() gave for a postgresql:// URI.  For a
 * program's event loop (wymcp-fcgi's hub): nothing here blocks but
 * wymcp_bus_publish().  wymcp_backend_has_bus() says whether `be'
 * carries a bus (pg.so does, sqlite.so not).
 *
 * wymcp_bus_publish() connects to `uri', says `msg' (text) on
 * `channel', waits for it and disconnects: WYMCP_OK; WYMCP_ERR_INVAL
 * without a bus; WYMCP_ERR_IO, why in `err'.  wymcp_bus_start() makes
 * *bus, the caller's until wymcp_bus_close(), and begins connecting:
 * WYMCP_OK; WYMCP_ERR_INVAL without a bus (*bus NULL); WYMCP_ERR_NOMEM
 * (*bus NULL); WYMCP_ERR_IO, when *bus is made but cannot connect
 * (wymcp_bus_error() says why; close it).  While connecting,
 * wymcp_bus_poll() advances it and says what to wait for on
 * wymcp_bus_fd(): WYMCP_BUS_READ or WYMCP_BUS_WRITE, 0 connected, -1
 * failed.  wymcp_bus_listen() and wymcp_bus_notify() send a query (0,
 * or -1); wymcp_bus_flush() sends what is buffered (0 done, 1 more to
 * send, -1); wymcp_bus_input() reads what came (0, -1);
 * wymcp_bus_done() says whether the query in flight finished: -1 not
 * yet, 1 it succeeded, 0 it failed.  wymcp_bus_notified() hands each
 * notification that came to `fn' (its text and length, the bus's,
 * valid during the call only).  wymcp_bus_bad() says whether the
 * connection broke; wymcp_bus_error() the last failure in words ("" for
 * none, and for a NULL bus; the bus's, valid until its next call).
 * wymcp_bus_fd() is -1 without a connection; wymcp_bus_close(NULL)
 * does nothing.  A bus is used by one thread at a time and
 * never across fork(2).
 */
struct wymcp_bus;
#define WYMCP_BUS_READ	1
#define WYMCP_BUS_WRITE	2
typedef void (*wymcp_bus_fn)(void *arg, const char *msg, size_t len);
int		 wymcp_backend_has_bus(const void *be);
enum wymcp_err	 wymcp_bus_publish(const void *be, const char *uri,
		    const char *channel, const char *msg, char *err,
		    size_t errlen);
enum wymcp_err	 wymcp_bus_start(const void *be, const char *uri,
		    struct wymcp_bus **bus);
int		 wymcp_bus_poll(struct wymcp_bus *);
int		 wymcp_bus_fd(struct wymcp_bus *);
int		 wymcp_bus_listen(struct wymcp_bus *, const char *channel);
int		 wymcp_bus_notify(struct wymcp_bus *, const char *channel,
		    const char *msg);
int		 wymcp_bus_flush(struct wymcp_bus *);
int		 wymcp_bus_input(struct wymcp_bus *);
int		 wymcp_bus_done(struct wymcp_bus *);
void		 wymcp_bus_notified(struct wymcp_bus *, wymcp_bus_fn fn,
		    void *arg);
int		 wymcp_bus_bad(struct wymcp_bus *);
const char	*wymcp_bus_error(struct wymcp_bus *);
void		 wymcp_bus_close(struct wymcp_bus *);
/*
 * The ttlMs of new tasks (0: unlimited; default one hour) and how long
 * a runner's claim on a task lasts before another runner may take it
 * (default 30 s, renewed while the tool runs and looks at
 * wymcp_cancelled()), but never less than the request time limit plus
 * 10 s.  WYMCP_ERR_INVAL without a store.
 */
enum wymcp_err	 wymcp_server_set_task_limits(struct wymcp_server *,
		    long long ttl_ms, long long lease_ms);
/*
 * What new tasks may take, each 0 for no limit: `tasks' unfinished
 * (working or input_required) tasks per principal, `bytes' stored by a
 * principal's tasks until they expire (arguments, assigns and the
 * rest of the request's context, answers, questions, results, errors
 * and status messages, as they are now), and `store_bytes' by every
 * principal's together.  Checked in the transaction that stores the
 * task.  A tools/call past a principal's limit is answered HTTP 429
 * with Retry-After and JSON-RPC error -32603; past the store's, HTTP
 * 503 with Retry-After; a task larger than either limit by itself,
 * -32602.  The anonymous principal is one principal.  Defaults: the
 * WYMCP_TASK_*_DEFAULT below.  WYMCP_ERR_INVAL without a store.
 */
#define WYMCP_TASK_QUOTA_DEFAULT		100
#define WYMCP_TASK_QUOTA_BYTES_DEFAULT		(64LL * 1024 * 1024)
#define WYMCP_TASK_STORE_MAX_BYTES_DEFAULT	(1024LL * 1024 * 1024)
enum wymcp_err	 wymcp_server_set_task_quota(struct wymcp_server *,
		    long long tasks, long long bytes, long long store_bytes);
/*
 * Be a task runner for one task: claim a task that is ready to run,
 * run its tool through the same run boundary as a request (with the
 * request time limit and the request hook), and store what it ended
 * with: completed, failed, input_required (its questions), or
 * cancelled.  Returns 1 when a task was run, 0 when none was ready, -1
 * when the store failed (logged).  An outcome the store could not take
 * (it was unreachable) is kept, not lost: each later call first tries
 * to store it again, returning 1 once it is stored and -1 while it is
 * not, until the task's TTL ends or another runner took the task over;
 * wymcp_server_task_unstored() says whether one is kept.
 */
int		 wymcp_server_run_task(struct wymcp_server *);
int		 wymcp_server_task_unstored(const struct wymcp_server *);
/*
 * A descriptor that becomes readable when a task may be ready to run
 * (PostgreSQL: LISTEN wymcp_tasks), for a runner to wait on between
 * wymcp_server_run_task() calls; -1 when the store has none (SQLite:
 * poll).  It stays this process's.
 */
int		 wymcp_server_task_fd(struct wymcp_server *);
/*
 * How many live tasks the store holds, by state, for an operator's
 * status page: waiting for a runner, held by a runner now, and waiting
 * for the client's input.  Fills the caller's struct, whose size the
 * caller passes (sizeof as it was compiled: a later wymcp with more
 * members writes no more than that), zeroed first; one query of the
 * store.  WYMCP_ERR_INVAL without a store, WYMCP_ERR_IO when the store
 * fails (logged).
 */
struct wymcp_task_depth {
	long long	 waiting;	/* ready to run, no runner has it */
	long long	 running;	/* claimed by a runner */
	long long	 input_required; /* waiting for tasks/update */
};
enum wymcp_err	 wymcp_server_task_depth(struct wymcp_server *,
		    struct wymcp_task_depth *, size_t size);
/*
 * The task store's ups and downs, told to `fn' (in the process that
 * saw them; NULL: logged as warnings, the default):
 * WYMCP_STORE_DOWN when a connection could not be made (`why': the
 * store's words, never a password), WYMCP_STORE_BACK when one is made
 * again after that, WYMCP_STORE_RECONNECT when a connection that broke
 * (`why') was made again at once, WYMCP_STORE_SLOW when a task
 * runner's lease renewal took longer than the lease (`why' says which
 * task and how long): another runner may have taken the task over
 * meanwhile.  The time a renewal takes is not the tool's: its time
 * limit stops while the store commits.  While the store is down,
 * requests that need it are answered HTTP 503 with Retry-After, and
 * the process tries again after a back-off (100 ms, doubling, at most
 * 2 s).
 */
enum wymcp_store_event {
	WYMCP_STORE_DOWN = 1,
	WYMCP_STORE_BACK,
	WYMCP_STORE_RECONNECT,
	WYMCP_STORE_SLOW
};
typedef void	(*wymcp_store_watch_fn)(void *arg, enum wymcp_store_event,
		    const char *why);
void		 wymcp_server_set_task_store_watch(struct wymcp_server *,
		    wymcp_store_watch_fn, void *arg);

/*
 * Forget the random key wymcp_server_new() made, for a process that
 * serves one request and exits (CGI): a requestState sealed with it
 * could never be opened.  Until a key file is loaded, a round that ends
 * at a question is then answered with JSON-RPC error -32603 saying that
 * the server has no state key, instead of input_required.
 */
void		 wymcp_server_forget_random_key(struct wymcp_server *);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif /* WYMCP_H */
