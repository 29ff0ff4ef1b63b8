/*
 * exec.c - exec tools: a directory of manifests loaded as tools, and
 * one run of the program per round (wymcp-exec(5))
 *
 * The re-execution contract of wymcp_elicit(3) is what a process does
 * by nature: the program runs from the top every round, is given the
 * answers so far on stdin, and either finishes (its stdout is the
 * result) or asks the next question ({"ask": ...}), which is numbered
 * by position, elicit-N with N the answers so far plus one, exactly as
 * wymcp_elicit() numbers a C tool's.  The round then ends as a C
 * tool's does (input_required with a sealed requestState, the held
 * stream for a 2025-11-25 client), and the answers it read go into the
 * requestState as a C tool's do.  The process itself is spawn.c's.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>
#include <sys/wait.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "core/core.h"
#include "store/store.h"
#include "core/spawn.h"

#define MANIFEST_MAX	(1024 * 1024)	/* bytes of a manifest */
#define EXEC_TOOLS_MAX	4096		/* manifests in a directory */
#define STDERR_TAIL	1024		/* bytes of stderr reported */
#define EVENT_LINE	4096		/* bytes of a line on fd 3 */
#define POLL_MS		250		/* cancelled? looked at */
#define EVENTS_MAX	10000		/* fd 3 lines acted on a run */

/* How a run ended, besides its exit status. */
enum stop { RAN, TIMEOUT, OUTPUT, CANCELLED, FAILED };

/* A run in progress: the process and what it wrote. */
struct run {
	struct wymcp__spawn	 sp;
	const char		*in;		/* stdin: the call */
	size_t			 inlen, inoff;
	struct wymcp__buf	 out;		/* stdout */
	char			 tail[STDERR_TAIL]; /* stderr */
	size_t			 ntail;		/* bytes in all */
	char			 line[EVENT_LINE]; /* fd 3 */
	size_t			 nline;
	int			 overlong;	/* that line is too long */
	unsigned int		 nevents;	/* lines acted on */
	enum stop		 stop;
};

static enum wymcp_err exec_run(struct wymcp_ctx *, struct json_object *,
    struct wymcp_result *);

/* The exec tool a call runs: from its registration's declaration. */
static const struct wymcp__exec *
exec_of(struct wymcp_ctx *ctx)
{
	const struct wymcp__tool *t;

	if (ctx->call.name == NULL || (t = wymcp__tool_lookup(ctx->srv,
	    ctx->call.name, strlen(ctx->call.name))) == NULL ||
	    t->def->run != exec_run)
		return NULL;
	return (const struct wymcp__exec *)(const void *)t->def;
}

/* The number of answers elicit-1, elicit-2, ... the call carries. */
static unsigned int
answers_so_far(struct wymcp_ctx *ctx)
{
	char		 key[32];
	unsigned int	 n = 0;

	if (!json_object_is_type(ctx->call.answers, json_type_object))
		return 0;
	for (;;) {
		snprintf(key, sizeof(key), "elicit-%u", n + 1);
		if (!json_object_object_get_ex(ctx->call.answers, key, NULL))
			return n;
		n++;
	}
}

/* The JSON object the program reads on stdin (wymcp-exec(5)). */
static const char *
input(struct wymcp_ctx *ctx, struct json_object *args,
    struct json_object *answers)
{
	struct json_object	*o, *c, *t, *info = NULL;
	const char		*key, *p;

	if ((o = wymcp_own(ctx, json_object_new_object())) == NULL)
		return NULL;
	key = wymcp_idempotency_key(ctx);
	p = wymcp_ctx_principal(ctx);
	wymcp__put_new(o, "arguments", json_object_get(args));
	wymcp__put_new(o, "answers", json_object_get(answers));
	wymcp__put_new(o, "principal", p != NULL ?
	    json_object_new_string(p) : NULL);
	wymcp__put_new(o, "assigns", json_object_get(wymcp_ctx_assigns(ctx)));
	c = json_object_new_object();
	wymcp__put_new(c, "protocolVersion", ctx->req.version != NULL ?
	    json_object_new_string(ctx->req.version) : NULL);
	wymcp__put_new(c, "capabilities",
	    json_object_get(wymcp_ctx_client_caps(ctx)));
	if (ctx->req.meta != NULL)
		json_object_object_get_ex(ctx->req.meta,
		    "io.modelcontextprotocol/clientInfo", &info);
	wymcp__put_new(c, "info", json_object_get(info));
	wymcp__put_new(o, "client", c);
	wymcp__put_new(o, "idempotencyKey", key != NULL ?
	    json_object_new_string(key) : NULL);
	t = NULL;
	if (ctx->call.task_id != NULL) {
		t = json_object_new_object();
		wymcp__put_new(t, "id", json_object_new_string(
		    ctx->call.task_id));
	}
	wymcp__put_new(o, "task", t);
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
	    JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* Add NAME=VALUE to the environment being built. */
static int
env_add(struct wymcp_ctx *ctx, char **env, size_t *n, const char *name,
    const char *value)
{
	if (value == NULL)
		return 0;
	if ((env[*n] = wymcp_printf(ctx, "%s=%s", name, value)) == NULL)
		return -1;
	(*n)++;
	return 0;
}

/*
 * The program's environment: CGI's way, WYMCP_* for the call, TMPDIR,
 * and only the variables the manifest names from ours.  NULL-ended,
 * owned by the request; NULL out of memory.
 */
static char **
environment(struct wymcp_ctx *ctx, const struct wymcp__exec *x,
    const char *tmp, unsigned int round)
{
	struct json_object	*as = wymcp_ctx_assigns(ctx);
	char			**env, name[128], num[16];
	size_t			 n = 0, i, cap;
	int			 ok = 1;

	cap = 10 + x->nenv + (as != NULL ? json_object_object_length(as) :
	    0);
	if ((env = wymcp_alloc(ctx, (cap + 1) * sizeof(*env))) == NULL)
		return NULL;
	snprintf(num, sizeof(num), "%u", round);
	ok &= env_add(ctx, env, &n, "PATH", "/usr/local/bin:/usr/bin:/bin")
	    == 0;
	ok &= env_add(ctx, env, &n, "TMPDIR", tmp) == 0;
	ok &= env_add(ctx, env, &n, "HOME", tmp) == 0;
	ok &= env_add(ctx, env, &n, "WYMCP_TOOL", x->def.name) == 0;
	ok &= env_add(ctx, env, &n, "WYMCP_ROUND", num) == 0;
	ok &= env_add(ctx, env, &n, "WYMCP_PRINCIPAL",
	    wymcp_ctx_principal(ctx)) == 0;
	ok &= env_add(ctx, env, &n, "WYMCP_IDEMPOTENCY_KEY",
	    wymcp_idempotency_key(ctx)) == 0;
	ok &= env_add(ctx, env, &n, "WYMCP_TASK_ID", ctx->call.task_id) == 0;
	for (i = 0; i < x->nenv; i++)
		ok &= env_add(ctx, env, &n, x->env[i], getenv(x->env[i])) ==
		    0;
	if (as != NULL) {
		json_object_object_foreach(as, k, v) {
			size_t j, len = strlen(k);

			/* A name the environment can carry, upper-cased. */
			if (len == 0 || len > 100 || strspn(k,
			    "abcdefghijklmnopqrstuvwxyz0123456789_") != len ||
			    !json_object_is_type(v, json_type_string))
				continue;
			memcpy(name, "WYMCP_ASSIGN_", 13);
			for (j = 0; j <= len; j++)
				name[13 + j] = (char)toupper(
				    (unsigned char)k[j]);
			ok &= env_add(ctx, env, &n, name,
			    json_object_get_string(v)) == 0;
		}
	}
	env[n] = NULL;
	return ok ? env : NULL;
}

/* Keep the last STDERR_TAIL bytes of stderr. */
static void
tail_add(struct run *r, const char *p, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		r->tail[(r->ntail + i) % STDERR_TAIL] = p[i];
	r->ntail += n;
}

/* One JSON line from fd 3: progress or a log line for the client. */
static void
event(struct wymcp_ctx *ctx, const char *line, size_t len)
{
	struct json_object	*o, *v, *m = NULL, *t = NULL;
	const char		*msg;
	int			 prio;

	if ((o = wymcp__parse(line, len)) == NULL)
		return;
	if (!json_object_is_type(o, json_type_object))
		goto out;
	json_object_object_get_ex(o, "message", &m);
	msg = json_object_is_type(m, json_type_string) ?
	    json_object_get_string(m) : NULL;
	if (json_object_object_get_ex(o, "progress", &v) &&
	    (json_object_is_type(v, json_type_int) ||
	    json_object_is_type(v, json_type_double))) {
		json_object_object_get_ex(o, "total", &t);
		(void)wymcp_progress(ctx, json_object_get_double(v),
		    json_object_is_type(t, json_type_int) ||
		    json_object_is_type(t, json_type_double) ?
		    json_object_get_double(t) : -1, msg);
	} else if (json_object_object_get_ex(o, "log", &v) &&
	    json_object_is_type(v, json_type_string) && msg != NULL &&
	    (prio = wymcp__log_level(json_object_get_string(v))) >= 0)
		(void)wymcp_log(ctx, prio, "%s", msg);
out:
	json_object_put(o);
}

/* Bytes from fd 3: complete lines become events. */
static void
events_add(struct wymcp_ctx *ctx, struct run *r, const char *p, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		if (p[i] != '\n') {
			if (r->nline < sizeof(r->line))
				r->line[r->nline++] = p[i];
			else
				r->overlong = 1;
			continue;
		}
		/* A bound on what a program makes us send and log. */
		if (!r->overlong && r->nline > 0 &&
		    r->nevents++ < EVENTS_MAX)
			event(ctx, r->line, r->nline);
		r->nline = 0;
		r->overlong = 0;
	}
}

/*
 * Read what is there on io[i]: 0, 1 at its end, -1 when stdout passed
 * its limit.
 */
static int
drain(struct wymcp_ctx *ctx, struct run *r, int i)
{
	char	 buf[16384];
	ssize_t	 n;

	for (;;) {
		if ((n = read(r->sp.io[i], buf, sizeof(buf))) == -1)
			return errno == EINTR ? 0 : errno == EAGAIN ? 0 : 1;
		if (n == 0)
			return 1;
		if (i == 1) {
			if (r->out.len + (size_t)n >
			    (size_t)r->sp.x->lim.output)
				return -1;
			if (wymcp__buf_put(&r->out, buf, (size_t)n) != 0)
				return -1;
		} else if (i == 2)
			tail_add(r, buf, (size_t)n);
		else
			events_add(ctx, r, buf, (size_t)n);
	}
}

/*
 * Feed stdin what is left of the call; close it when done, or when the
 * program closed it.  SIGPIPE is held meanwhile and a pending one taken
 * back: the library must not kill a program that does not ignore it.
 */
static void
feed(struct run *r)
{
	static const struct timespec zero = { 0, 0 };
	sigset_t	 pipe, old;
	ssize_t		 n;
	int		 done = 0;

	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe, &old);
	while (r->inoff < r->inlen) {
		n = write(r->sp.io[0], r->in + r->inoff, r->inlen - r->inoff);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			break;
		if (n == -1) {
			if (errno == EPIPE && !sigismember(&old, SIGPIPE))
				(void)sigtimedwait(&pipe, NULL, &zero);
			done = 1;
			break;
		}
		r->inoff += (size_t)n;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (done || r->inoff == r->inlen) {
		close(r->sp.io[0]);
		r->sp.io[0] = -1;
	}
}

/* The poll loop of one run, until the program ends or is stopped. */
static void
loop(struct wymcp_ctx *ctx, struct run *r, long long deadline)
{
	struct pollfd	 pfd[5];
	long long	 now;
	int		 i, n, rc, open[4] = { 1, 1, 1, 1 };

	feed(r);
	for (;;) {
		n = 0;
		if (r->sp.io[0] != -1) {
			pfd[n].fd = r->sp.io[0];
			pfd[n++].events = POLLOUT;
		}
		for (i = 1; i < 4; i++)
			if (open[i]) {
				pfd[n].fd = r->sp.io[i];
				pfd[n++].events = POLLIN;
			}
		if (r->sp.pidfd >= 0) {
			pfd[n].fd = r->sp.pidfd;
			pfd[n++].events = POLLIN;
		}
		now = wymcp__clock_ms();
		if (now >= deadline) {
			r->stop = TIMEOUT;
			return;
		}
		if (wymcp_cancelled(ctx)) {
			r->stop = CANCELLED;
			return;
		}
		rc = poll(pfd, (nfds_t)n, deadline - now > POLL_MS ||
		    r->sp.pidfd < 0 ? (r->sp.pidfd < 0 ? 20 : POLL_MS) :
		    (int)(deadline - now));
		if (rc == -1 && errno != EINTR) {
			r->stop = FAILED;
			return;
		}
		if (r->sp.io[0] != -1)
			feed(r);
		for (i = 1; i < 4; i++)
			if (open[i] && (rc = drain(ctx, r, i)) != 0) {
				if (rc < 0) {
					r->stop = OUTPUT;
					return;
				}
				open[i] = 0;
			}
		if (!r->sp.reaped && waitpid(r->sp.pid, &r->sp.status,
		    WNOHANG) == r->sp.pid)
			r->sp.reaped = 1;
		/*
		 * The program ended: what its pipes still hold is read,
		 * but a process it left holding them is not waited for.
		 */
		if (r->sp.reaped) {
			for (i = 1; i < 4; i++)
				if (open[i] && drain(ctx, r, i) < 0) {
					r->stop = OUTPUT;
					return;
				}
			return;
		}
	}
}

/* A tool error, with stderr's tail unless the manifest hides it. */
static enum wymcp_err
failed(struct wymcp_ctx *ctx, struct run *r, struct wymcp_result *res,
    const char *why)
{
	char	*t;
	size_t	 n, i, start;

	if (r->sp.x->hide_stderr || r->ntail == 0)
		return wymcp_result_error(res, "%s", why);
	n = r->ntail < STDERR_TAIL ? r->ntail : STDERR_TAIL;
	start = r->ntail < STDERR_TAIL ? 0 : r->ntail % STDERR_TAIL;
	if ((t = wymcp_alloc(ctx, n + 1)) == NULL)
		return WYMCP_ERR_NOMEM;
	for (i = 0; i < n; i++)
		t[i] = r->tail[(start + i) % STDERR_TAIL];
	t[n] = '\0';
	/* A tail cut in the middle of a character: the rest is text. */
	for (i = 0; i < n && !wymcp__text_ok(t + i); i++)
		;
	return wymcp_result_error(res, "%s; stderr:\n%s", why, t + i);
}

/* The sentence for how the run ended, when it did not end well. */
static const char *
ending(struct wymcp_ctx *ctx, struct run *r)
{
	const struct wymcp__exec *x = r->sp.x;
	int		 st = r->sp.status;

	switch (r->stop) {
	case TIMEOUT:
		return wymcp_printf(ctx, "%s: stopped: it ran longer than "
		    "its time limit (%ld ms)", x->def.name, x->timeout_ms);
	case OUTPUT:
		return wymcp_printf(ctx, "%s: stopped: its output passed "
		    "limits.output (%lld bytes)", x->def.name, x->lim.output);
	case CANCELLED:
		return wymcp_printf(ctx, "%s: stopped: the call was "
		    "cancelled", x->def.name);
	case FAILED:
		return wymcp_printf(ctx, "%s: the run failed", x->def.name);
	case RAN:
		break;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
		return wymcp_printf(ctx, "%s: exited with status %d",
		    x->def.name, WEXITSTATUS(st));
	if (WIFSIGNALED(st))
		return wymcp_printf(ctx, "%s: killed by signal %d (%s)%s",
		    x->def.name, WTERMSIG(st), strsignal(WTERMSIG(st)),
		    WTERMSIG(st) == SIGXCPU ? ": limits.cpu" :
		    WTERMSIG(st) == SIGXFSZ ? ": limits.fileSize" : "");
	return NULL;
}

/* {"ask": {"message": ..., "requestedSchema": {...}}}: the question. */
static enum wymcp_err
ask(struct wymcp_ctx *ctx, struct run *r, struct wymcp_result *res,
    struct json_object *o)
{
	struct json_object	*q, *m, *s;
	enum wymcp_err		 rc;
	char			 why[256];

	json_object_object_get_ex(o, "ask", &q);
	if (json_object_object_length(o) != 1 ||
	    !json_object_is_type(q, json_type_object) ||
	    json_object_object_length(q) != 2 ||
	    !json_object_object_get_ex(q, "message", &m) ||
	    !json_object_is_type(m, json_type_string) ||
	    !json_object_object_get_ex(q, "requestedSchema", &s) ||
	    !json_object_is_type(s, json_type_object))
		return failed(ctx, r, res, wymcp_printf(ctx, "%s: its "
		    "question is not {\"ask\": {\"message\": \"...\", "
		    "\"requestedSchema\": {...}}}", r->sp.x->def.name));
	rc = wymcp__elicit_next(ctx, json_object_get_string(m), s, why,
	    sizeof(why));
	if (rc == WYMCP_ERR_SCHEMA)
		return failed(ctx, r, res, wymcp_printf(ctx, "%s: its "
		    "question's requestedSchema: %s", r->sp.x->def.name,
		    why));
	return rc;
}

/* A result object: content, structuredContent, isError. */
static enum wymcp_err
result(struct wymcp_ctx *ctx, struct run *r, struct wymcp_result *res,
    struct json_object *o)
{
	struct json_object	*c = NULL, *s = NULL, *e = NULL, *b;
	size_t			 i;
	char			 why[256];

	json_object_object_foreach(o, k, v) {
		(void)v;
		if (strcmp(k, "content") != 0 &&
		    strcmp(k, "structuredContent") != 0 &&
		    strcmp(k, "isError") != 0)
			return failed(ctx, r, res, wymcp_printf(ctx, "%s: its "
			    "result has member '%s' (content, "
			    "structuredContent and isError are allowed)",
			    r->sp.x->def.name, wymcp__ctx_quote(ctx, k)));
	}
	json_object_object_get_ex(o, "content", &c);
	json_object_object_get_ex(o, "structuredContent", &s);
	json_object_object_get_ex(o, "isError", &e);
	if ((c != NULL && !json_object_is_type(c, json_type_array)) ||
	    (s != NULL && !json_object_is_type(s, json_type_object)) ||
	    (e != NULL && !json_object_is_type(e, json_type_boolean)))
		return failed(ctx, r, res, wymcp_printf(ctx, "%s: its result's "
		    "content must be an array, structuredContent an object "
		    "and isError true or false", r->sp.x->def.name));
	for (i = 0; c != NULL && i < json_object_array_length(c); i++) {
		b = json_object_array_get_idx(c, i);
		if (wymcp__shape_check("ContentBlock", b, why,
		    sizeof(why)) != 1)
			return failed(ctx, r, res, wymcp_printf(ctx, "%s: its "
			    "result's content[%zu] is not a ContentBlock: %s",
			    r->sp.x->def.name, i, why));
		if (wymcp_result_add(res, b) != WYMCP_OK)
			return WYMCP_ERR_NOMEM;
	}
	if (s != NULL && wymcp_result_structured(res, s) != WYMCP_OK)
		return WYMCP_ERR_NOMEM;
	if (e != NULL && json_object_get_boolean(e)) {
		res->is_error = 1;
		return WYMCP_ERR_TOOL;
	}
	return WYMCP_OK;
}

/* What the program wrote on stdout, the run having ended well. */
static enum wymcp_err
output(struct wymcp_ctx *ctx, struct run *r, struct wymcp_result *res)
{
	struct json_object	*o;
	const char		*p;
	size_t			 i;

	if (wymcp__buf_put(&r->out, "", 1) != 0)
		return WYMCP_ERR_NOMEM;
	p = r->out.p;
	if (strlen(p) != r->out.len - 1 || !wymcp__text_ok(p))
		return failed(ctx, r, res, wymcp_printf(ctx, "%s: its output "
		    "is not UTF-8 text", r->sp.x->def.name));
	for (i = 0; isspace((unsigned char)p[i]); i++)
		;
	if (p[i] != '{')
		return wymcp_result_add(res, wymcp_text(ctx, p));
	if ((o = wymcp_own(ctx, wymcp__parse(p, r->out.len - 1))) == NULL ||
	    !json_object_is_type(o, json_type_object))
		return failed(ctx, r, res, wymcp_printf(ctx, "%s: its output "
		    "starts as a JSON object but is not valid JSON (cut "
		    "short?)", r->sp.x->def.name));
	if (json_object_object_get_ex(o, "ask", NULL))
		return ask(ctx, r, res, o);
	return result(ctx, r, res, o);
}

/* The run's user: the manifest's, the server's, else nobody as root. */
static void
run_user(struct wymcp_ctx *ctx, const struct wymcp__exec *x, long long *uid,
    long long *gid)
{
	struct wymcp_server	*srv = ctx->srv;

	*uid = *gid = -1;
	if (x->uid >= 0) {
		*uid = x->uid;
		*gid = x->gid;
	} else if (srv->exec_uid >= 0) {
		*uid = srv->exec_uid;
		*gid = srv->exec_gid;
	}
}

/*
 * A private TMPDIR for the run, owned by its user: the path, owned by
 * the request, or NULL.
 */
static char *
tmpdir(struct wymcp_ctx *ctx, long long uid, long long gid)
{
	char	*t;

	if ((t = wymcp_strdup(ctx, "/tmp/wymcp-run.XXXXXX")) == NULL ||
	    mkdtemp(t) == NULL)
		return NULL;
	if (uid >= 0 && chown(t, (uid_t)uid, (gid_t)gid) != 0) {
		(void)rmdir(t);
		return NULL;
	}
	return t;
}

/* Free the run's stdout buffer, when the request ends. */
static void
buf_free(void *arg)
{
	wymcp__buf_free(arg);
}

/* Spawn, loop, end, and read the result. */
static enum wymcp_err
run_once(struct wymcp_ctx *ctx, struct run *r, struct wymcp_result *res)
{
	const struct wymcp__exec *x = r->sp.x;
	const char	*why;
	long long	 deadline;
	int		 e;

	deadline = wymcp__clock_ms() + x->timeout_ms;
	if (ctx->out.deadline > 0 && ctx->out.deadline < deadline)
		deadline = ctx->out.deadline;
	if (wymcp__spawn(&r->sp) != 0) {
		e = errno;
		wymcp__tmp_remove(r->sp.tmp);
		wymcp__ctx_log(ctx, WYMCP_LOG_ERR, "%s: cannot start: %s",
		    x->def.name, strerror(e));
		return wymcp_result_error(res, "%s: cannot start the program",
		    x->def.name);
	}
	loop(ctx, r, deadline);
	wymcp__spawn_end(&r->sp, r->stop == OUTPUT);
	wymcp__tmp_remove(r->sp.tmp);
	if ((why = ending(ctx, r)) != NULL)
		return failed(ctx, r, res, why);
	return output(ctx, r, res);
}

static enum wymcp_err
exec_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	const struct wymcp__exec *x;
	struct json_object	*answers;
	struct run		*r;
	unsigned int		 n;
	enum wymcp_err		 rc;

	if ((x = exec_of(ctx)) == NULL)
		return WYMCP_ERR_INVAL;
	if ((r = wymcp_alloc(ctx, sizeof(*r))) == NULL ||
	    (answers = wymcp_own(ctx, json_object_new_object())) == NULL)
		return WYMCP_ERR_NOMEM;
	memset(r, 0, sizeof(*r));
	r->sp.x = x;
	r->sp.pidfd = -1;
	r->sp.io[0] = r->sp.io[1] = r->sp.io[2] = r->sp.io[3] = -1;
	if (wymcp_defer(ctx, buf_free, &r->out) != WYMCP_OK)
		return WYMCP_ERR_NOMEM;
	n = answers_so_far(ctx);
	if ((rc = wymcp__elicit_replay(ctx, n, answers)) != WYMCP_OK)
		return rc;
	run_user(ctx, x, &r->sp.uid, &r->sp.gid);
	if (r->sp.uid < 0 && geteuid() == 0)
		return wymcp_result_error(res, "%s: refused: a run is never "
		    "root's; name its user (wymcp_server_set_exec_user(), "
		    "wymcp-fcgi --exec-user, or \"user\" in the manifest)",
		    x->def.name);
	if ((r->in = input(ctx, args, answers)) == NULL)
		return WYMCP_ERR_NOMEM;
	r->inlen = strlen(r->in);
	if ((r->sp.tmp = tmpdir(ctx, r->sp.uid, r->sp.gid)) == NULL)
		return wymcp_result_error(res, "%s: cannot make its TMPDIR",
		    x->def.name);
	if ((r->sp.envp = environment(ctx, x, r->sp.tmp, n + 1)) == NULL) {
		wymcp__tmp_remove(r->sp.tmp);
		return WYMCP_ERR_NOMEM;
	}
	return run_once(ctx, r, res);
}

/* Read a manifest whole: a new string, or NULL with why. */
static char *
slurp(const char *path, size_t *len, char *why, size_t whylen)
{
	struct stat	 st;
	char		*buf = NULL;
	ssize_t		 n;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1 ||
	    fstat(fd, &st) == -1) {
		snprintf(why, whylen, "%s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > MANIFEST_MAX) {
		snprintf(why, whylen, "not a regular file of at most 1 MiB");
		goto out;
	}
	if ((buf = malloc((size_t)st.st_size + 1)) == NULL) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	*len = 0;
	while (*len < (size_t)st.st_size && (n = read(fd, buf + *len,
	    (size_t)st.st_size - *len)) > 0)
		*len += (size_t)n;
	buf[*len] = '\0';
out:
	if (fd != -1)
		close(fd);
	return buf;
}

/* Is this a manifest's file name: <tool>.json, not hidden? */
static int
is_manifest(const char *name)
{
	size_t	 n = strlen(name);

	return name[0] != '.' && n > 5 && strcmp(name + n - 5, ".json") == 0;
}

/* Parse, resolve and check one manifest into x: 0, or -1 (errmsg). */
static int
load_one(struct wymcp_server *srv, const struct wymcp_module *mod,
    const char *dir, const char *file,
    struct wymcp__exec *x)
{
	char		 path[PATH_MAX], why[PATH_MAX + 256], *text;
	char		 name[PATH_MAX];
	struct wymcp__tool t;
	size_t		 len = 0;
	int		 rc;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	snprintf(name, sizeof(name), "%.*s", (int)(strlen(file) - 5), file);
	if (srv->filecheck != NULL && srv->filecheck(srv->filecheck_arg,
	    path, why, sizeof(why)) != 0) {
		wymcp__seterr(srv, "%s: %s", path, why);
		memset(x, 0, sizeof(*x));
		return -1;
	}
	if ((text = slurp(path, &len, why, sizeof(why))) == NULL) {
		wymcp__seterr(srv, "%s: %s", path, why);
		memset(x, 0, sizeof(*x));
		return -1;
	}
	rc = wymcp__exec_parse(name, text, len, x, why, sizeof(why));
	free(text);
	if (rc == 0)
		rc = wymcp__exec_resolve(srv, dir, x, why, sizeof(why));
	if (rc != 0) {
		wymcp__seterr(srv, "%s: %s", path, why);
		return -1;
	}
	if ((x->file = strdup(path)) == NULL) {
		wymcp__seterr(srv, "out of memory");
		return -1;
	}
	x->def.run = exec_run;
	/* The declaration as a C tool's is checked: say which file. */
	memset(&t, 0, sizeof(t));
	if (wymcp__tool_prepare(srv, mod, &x->def, &t) != WYMCP_OK) {
		snprintf(why, sizeof(why), "%s", wymcp_server_errmsg(srv));
		wymcp__seterr(srv, "%s: %s", path, why);
		return -1;
	}
	wymcp__tool_clear(&t);
	return 0;
}

enum wymcp_err
wymcp_server_load_exec_dir(struct wymcp_server *srv, const char *dir)
{
	struct wymcp__execset	*set;
	struct dirent		**names = NULL;
	size_t			 k;
	int			 n, i;
	enum wymcp_err		 rc = WYMCP_ERR_MODULE;

	if (srv == NULL || dir == NULL)
		return WYMCP_ERR_INVAL;
	if (srv->filecheck != NULL) {
		char	 why[PATH_MAX + 256];

		if (srv->filecheck(srv->filecheck_arg, dir, why,
		    sizeof(why)) != 0) {
			wymcp__seterr(srv, "%s: %s", dir, why);
			return WYMCP_ERR_MODULE;
		}
	}
	if ((n = scandir(dir, &names, NULL, alphasort)) == -1) {
		wymcp__seterr(srv, "%s: %s", dir, strerror(errno));
		return WYMCP_ERR_MODULE;
	}
	/* All errors from here on use goto out. */
	if ((set = calloc(1, sizeof(*set))) == NULL ||
	    (set->tools = calloc((size_t)n + 1, sizeof(*set->tools))) ==
	    NULL || (set->dir = strdup(dir)) == NULL) {
		if (set != NULL) {
			free(set->tools);
			free(set);
		}
		wymcp__seterr(srv, "out of memory");
		rc = WYMCP_ERR_NOMEM;
		goto out;
	}
	set->next = srv->execs;
	srv->execs = set;
	set->mod.abi = WYMCP_ABI_VERSION;
	set->mod.size = sizeof(set->mod);
	set->mod.name = set->dir;
	set->mod.tools = &set->tools[0].def;
	set->mod.tool_size = sizeof(struct wymcp__exec);
	set->mod.resource_size = sizeof(struct wymcp_resource);
	set->mod.prompt_size = sizeof(struct wymcp_prompt);
	set->mod.prompt_arg_size = sizeof(struct wymcp_prompt_arg);
	for (i = 0; i < n; i++) {
		if (!is_manifest(names[i]->d_name))
			continue;
		if (set->ntools == EXEC_TOOLS_MAX) {
			wymcp__seterr(srv, "%s: more than %d manifests", dir,
			    EXEC_TOOLS_MAX);
			goto out;
		}
		k = set->ntools++;
		if (load_one(srv, &set->mod, dir, names[i]->d_name,
		    &set->tools[k]) != 0)
			goto out;
	}
	set->mod.ntools = set->ntools;
	/* An empty directory serves nothing (and is no error). */
	rc = set->ntools == 0 ? WYMCP_OK : wymcp_server_add_module(srv,
	    &set->mod);
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

enum wymcp_err
wymcp_server_set_exec_user(struct wymcp_server *srv, const char *user)
{
	struct passwd	*pw;

	if (srv == NULL)
		return WYMCP_ERR_INVAL;
	if (user == NULL) {
		srv->exec_uid = srv->exec_gid = -1;
		return WYMCP_OK;
	}
	if ((pw = getpwnam(user)) == NULL) {
		wymcp__seterr(srv, "%s: no such user", user);
		return WYMCP_ERR_INVAL;
	}
	if (pw->pw_uid == 0) {
		wymcp__seterr(srv, "%s: runs are never root's", user);
		return WYMCP_ERR_INVAL;
	}
	srv->exec_uid = pw->pw_uid;
	srv->exec_gid = pw->pw_gid;
	return WYMCP_OK;
}

int
wymcp_exec_landlock(void)
{
	return wymcp__landlock_abi();
}

size_t
wymcp_server_exec_count(const struct wymcp_server *srv)
{
	const struct wymcp__execset *s;
	size_t			 n = 0;

	for (s = srv != NULL ? srv->execs : NULL; s != NULL; s = s->next)
		n += s->ntools;
	return n;
}
