/*
 * fuzz_tasks.c - libFuzzer target for the tasks extension's requests
 * (methods/task.c, methods/taskmake.c, the store) on a SQLite store
 *
 * One task of principal "alice" waits for input: tool "book" asked its
 * first question (elicit-1, a room from an enum).  The first input byte
 * picks the request and who sends it; the rest is fuzzer text:
 *
 *   mode & 3 == 0: tasks/get,    taskId the text (mode & 8: the task's)
 *   mode & 3 == 1: tasks/update, the task's id, inputResponses the text
 *   mode & 3 == 2: tasks/cancel, taskId the text (mode & 8: the task's)
 *   mode & 3 == 3: tools/call of "book" (mode & 16: of "need", which
 *		    runs only as a task), arguments the text
 *   mode & 4: sent by "mallory", not "alice";
 *   mode & 32: without the extension declared.
 *
 * Every response must be one JSON-RPC response with a status the
 * pipeline documents; mallory never learns anything of alice's task
 * (every tasks/ request naming it is an error) and never changes it; an
 * update alice sends leaves the task input_required (refused, or an
 * answer to another key) or makes it working (a room of the enum),
 * never completed, since only a runner completes a task.  The store
 * lives in a fresh directory under TMPDIR, and is made again when the
 * fuzzer's calls have filled it with more than 64 tasks.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "serve/serve.h"
#include "memio.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define META(caps)							\
	"{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","	\
	"\"io.modelcontextprotocol/clientCapabilities\":" caps "}"
#define EXT	META("{\"elicitation\":{},\"extensions\":"		\
	"{\"io.modelcontextprotocol/tasks\":{}}}")
#define NOEXT	META("{\"elicitation\":{}}")
#define ROOM	"{\"type\":\"object\",\"properties\":{\"room\":{\"type\":" \
	"\"string\",\"enum\":[\"Aurora\",\"Borealis\"]}},\"required\":" \
	"[\"room\"]}"
#define PEOPLE	"{\"type\":\"object\",\"properties\":{\"people\":{\"type\":" \
	"\"integer\",\"minimum\":1}},\"required\":[\"people\"]}"
#define INPUT_MAX	(16 * 1024)
#define TASKS_MAX	64

static void
bad(const char *why, const char *what)
{
	fprintf(stderr, "fuzz_tasks: %s\n--- ---\n%.4096s\n", why,
	    what != NULL ? what : "(null)");
	abort();
}

static enum wymcp_err
book_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a, *b;
	enum wymcp_err		 rc;

	(void)args;
	if ((rc = wymcp_elicit(ctx, "Which room?", ROOM, &a)) != WYMCP_OK)
		return rc;
	if ((rc = wymcp_elicit(ctx, "How many?", PEOPLE, &b)) != WYMCP_OK)
		return rc;
	return wymcp_result_text(res, "booked");
}

static enum wymcp_err
need_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	(void)ctx;
	return wymcp_result_structured(res, args);
}

static const struct wymcp_tool tools[] = {
	{ .name = "book", .description = "Books a room.",
	    .input_schema = "{\"type\":\"object\",\"properties\":{\"day\":"
	    "{\"type\":\"string\",\"maxLength\":16}}}",
	    .run = book_run, .task_support = WYMCP_TASK_OPTIONAL },
	{ .name = "need", .description = "Runs only as a task.",
	    .input_schema = "{\"type\":\"object\"}",
	    .run = need_run, .task_support = WYMCP_TASK_REQUIRED },
	{ .name = NULL }
};

static const struct wymcp_module mod = {
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "fuzztasks", .tools = tools,
	.tool_size = sizeof(struct wymcp_tool)
};

static struct wymcp_server	*srv;
static char			 dir[256], task[64];
static int			 made;		/* tasks in the store */

/*
 * Serve `method' as `who' with params `{"_meta":META,' + `head' + `text'
 * + `}'; the parsed response (the caller puts it), checked to be one.
 */
static struct json_object *
serve(const char *who, const char *meta, const char *method,
    const char *name, const char *head, const char *text, size_t tlen)
{
	static const int	 statuses[] = { 200, 400, 404, 500, 0 };
	struct fuzz_memio	 m;
	struct wymcp_io		 io;
	char			*body, cl[64], mh[64], nh[128], ph[64];
	const char		*env[] = {
		"REQUEST_METHOD=POST", "CONTENT_TYPE=application/json", cl,
		"HTTP_HOST=localhost", "HTTP_MCP_PROTOCOL_VERSION=2026-07-28",
		mh, nh, ph, NULL
	};
	size_t			 cap, n;

	cap = 256 + strlen(meta) + strlen(head) + tlen;
	if ((body = malloc(cap)) == NULL)
		abort();
	n = (size_t)snprintf(body, cap, "{\"jsonrpc\":\"2.0\",\"id\":1,"
	    "\"method\":\"%s\",\"params\":{\"_meta\":%s,%s", method, meta,
	    head);
	memcpy(body + n, text, tlen);
	n += tlen;
	n += (size_t)snprintf(body + n, cap - n, "}}");

	fuzz_memio_io(&m, &io, (char *const *)env, body, n);
	snprintf(cl, sizeof(cl), "CONTENT_LENGTH=%zu", n);
	snprintf(mh, sizeof(mh), "HTTP_MCP_METHOD=%s", method);
	snprintf(nh, sizeof(nh), "HTTP_MCP_NAME=%s", name);
	snprintf(ph, sizeof(ph), "WYMCP_PRINCIPAL=%s", who);
	if (name == NULL)	/* no Mcp-Name: an empty variable is none */
		nh[0] = '\0', env[6] = ph, env[7] = NULL;
	if (wymcp_server_serve(srv, &io) != WYMCP_OK || m.out == NULL)
		abort();
	free(body);

	return fuzz_response(&m, statuses);
}

/* A string member of the response's result, or NULL. */
static const char *
result_str(struct json_object *resp, const char *k)
{
	struct json_object	*r, *v;

	if (!json_object_object_get_ex(resp, "result", &r) ||
	    !json_object_object_get_ex(r, k, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/*
 * The Mcp-Name a correct client sends for taskId text `t' (a JSON
 * string of printable ASCII) into buf; NULL for none.
 */
static const char *
name_of(const char *t, size_t len, char *buf, size_t cap)
{
	struct json_tokener	*tok;
	struct json_object	*o;
	const char		*s, *ret = NULL;
	size_t			 i, n;

	if (len > INT32_MAX || (tok = json_tokener_new()) == NULL)
		return NULL;
	o = json_tokener_parse_ex(tok, t, (int)len);
	json_tokener_free(tok);
	if (json_object_is_type(o, json_type_string) &&
	    (n = (size_t)json_object_get_string_len(o)) > 0 && n < cap) {
		s = json_object_get_string(o);
		for (i = 0; i < n; i++)
			if (s[i] < 0x21 || s[i] > 0x7e)
				break;
		if (i == n) {
			memcpy(buf, s, n + 1);
			ret = buf;
		}
	}
	json_object_put(o);
	return ret;
}

/* Alice's task's status now (tasks/get), into st. */
static void
status_of(char *st, size_t len)
{
	struct json_object	*r;
	char			 head[96];
	const char		*s;

	snprintf(head, sizeof(head), "\"taskId\":\"%s\"", task);
	r = serve("alice", EXT, "tasks/get", task, head, "", 0);
	if ((s = result_str(r, "status")) == NULL)
		bad("alice cannot get her task", json_object_get_string(r));
	snprintf(st, len, "%s", s);
	json_object_put(r);
}

/* A fresh store with alice's task waiting for its first answer. */
static void
fresh(void)
{
	struct json_object	*r;
	char			 uri[300], st[32];
	const char		*id;

	snprintf(uri, sizeof(uri), "%s/tasks.db", dir);
	(void)unlink(uri);
	snprintf(uri, sizeof(uri), "%s/tasks.db-wal", dir);
	(void)unlink(uri);
	snprintf(uri, sizeof(uri), "%s/tasks.db-shm", dir);
	(void)unlink(uri);
	snprintf(uri, sizeof(uri), "sqlite:%s/tasks.db", dir);
	if (wymcp_server_set_task_store(srv, uri) != WYMCP_OK)
		bad("no store", wymcp_server_errmsg(srv));
	r = serve("alice", EXT, "tools/call", "book",
	    "\"name\":\"book\",\"arguments\":{}", "", 0);
	if ((id = result_str(r, "taskId")) == NULL)
		bad("book made no task", json_object_get_string(r));
	snprintf(task, sizeof(task), "%s", id);
	json_object_put(r);
	if (wymcp_server_run_task(srv) != 1)
		bad("no runner ran the task", task);
	status_of(st, sizeof(st));
	if (strcmp(st, "input_required") != 0)
		bad("the task does not wait for input", st);
	made = 1;
}

static void
setup(void)
{
	const char	*tmp;

	if (srv != NULL)
		return;
	if ((tmp = getenv("TMPDIR")) == NULL)
		tmp = "/tmp";
	snprintf(dir, sizeof(dir), "%s/fuzz_tasks.XXXXXX", tmp);
	if (mkdtemp(dir) == NULL)
		bad("mkdtemp", dir);
	if ((srv = wymcp_server_new()) == NULL ||
	    wymcp_server_add_module(srv, &mod) != WYMCP_OK)
		bad("no server", wymcp_server_errmsg(srv));
	wymcp_server_set_log(srv, fuzz_drop, NULL, WYMCP_LOG_DEBUG);
	fresh();
}

/* Remove the store's directory at exit. */
static void
cleanup(void)
{
	char	 p[300];

	wymcp_server_free(srv);
	snprintf(p, sizeof(p), "%s/tasks.db", dir);
	(void)unlink(p);
	snprintf(p, sizeof(p), "%s/tasks.db-wal", dir);
	(void)unlink(p);
	snprintf(p, sizeof(p), "%s/tasks.db-shm", dir);
	(void)unlink(p);
	(void)rmdir(dir);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int		 registered;
	struct json_object	*r;
	const char		*who, *meta, *text, *tool;
	char			 head[160], before[32], after[32], nm[100];
	size_t			 tlen;
	unsigned		 mode;
	int			 real, err;

	if (size < 1 || size > INPUT_MAX)
		return 0;
	setup();
	if (!registered) {
		registered = 1;
		atexit(cleanup);
	}
	mode = data[0];
	who = mode & 4 ? "mallory" : "alice";
	meta = mode & 32 ? NOEXT : EXT;
	real = (mode & 3) == 1 || (mode & 8);
	text = (const char *)data + 1;
	tlen = size - 1;
	status_of(before, sizeof(before));

	switch (mode & 3) {
	case 0:
	case 2:
		if (real) {
			snprintf(head, sizeof(head), "\"taskId\":\"%s\"",
			    task);
			tlen = 0;
		} else
			snprintf(head, sizeof(head), "\"taskId\":");
		r = serve(who, meta, (mode & 3) == 0 ? "tasks/get" :
		    "tasks/cancel", real ? task : name_of(text, tlen, nm,
		    sizeof(nm)), head, text, tlen);
		break;
	case 1:
		snprintf(head, sizeof(head), "\"taskId\":\"%s\","
		    "\"inputResponses\":", task);
		r = serve(who, meta, "tasks/update", task, head, text, tlen);
		break;
	default:
		tool = mode & 16 ? "need" : "book";
		snprintf(head, sizeof(head), "\"name\":\"%s\",\"arguments\":",
		    tool);
		r = serve(who, meta, "tools/call", tool, head, text, tlen);
		if (result_str(r, "taskId") != NULL)
			made++;
		break;
	}
	err = json_object_object_get_ex(r, "error", NULL);
	if ((mode & 3) != 3 && real && strcmp(who, "mallory") == 0 && !err)
		bad("mallory got an answer about alice's task",
		    json_object_get_string(r));
	json_object_put(r);

	status_of(after, sizeof(after));
	if (strcmp(who, "mallory") == 0 && strcmp(before, after) != 0)
		bad("mallory changed alice's task", after);
	if ((mode & 3) == 1 && strcmp(after, "input_required") != 0 &&
	    strcmp(after, "working") != 0)
		bad("an update left the task neither input_required nor "
		    "working", after);
	if (strcmp(after, "input_required") != 0 || made > TASKS_MAX)
		fresh();
	return 0;
}
