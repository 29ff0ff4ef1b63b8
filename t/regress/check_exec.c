/*
 * check_exec.c - exec tools (core/exec.c, core/spawn.c, setup/exec.c):
 * manifests loaded from a directory, a program run once per round
 * through the whole pipeline, its questions numbered as wymcp_elicit()
 * numbers them, and hostile programs contained
 *
 * Each test writes its manifests and shell scripts into a directory of
 * its own, serves calls with the harness, and checks what the client
 * gets and that nothing the run started is left.  As root, runs go to
 * the user nobody (a run is never root's).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "harness.h"

#define META_ELICIT							\
	"{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","	\
	"\"io.modelcontextprotocol/clientInfo\":{\"name\":\"t\","	\
	"\"version\":\"1\"},"						\
	"\"io.modelcontextprotocol/clientCapabilities\":"		\
	"{\"elicitation\":{}}}"

static char	 dir[64];	/* the test's manifests and scripts */
static char	 out[96];	/* a directory runs may write */

/* Write a file; mode as given. */
static void
put(const char *name, const char *text, mode_t mode)
{
	char	 path[256];
	int	 fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	ck_assert_int_eq(chmod(path, mode), 0);
}

/*
 * A tool: NAME.json with `extra' members after description and
 * command, and NAME.sh holding `script' after #!/bin/sh.
 */
static void
tool(const char *name, const char *extra, const char *script)
{
	char	 m[4096], s[8192], f[128];

	snprintf(m, sizeof(m), "{\"description\":\"test tool %s\","
	    "\"command\":[\"./%s.sh\"]%s%s}", name, name,
	    extra != NULL ? "," : "", extra != NULL ? extra : "");
	snprintf(f, sizeof(f), "%s.json", name);
	put(f, m, 0644);
	snprintf(s, sizeof(s), "#!/bin/sh\n%s\n", script);
	snprintf(f, sizeof(f), "%s.sh", name);
	put(f, s, 0755);
}

static void
setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/check_exec.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(chmod(dir, 0755), 0);
	snprintf(out, sizeof(out), "%s/out", dir);
	ck_assert_int_eq(mkdir(out, 0777), 0);
	ck_assert_int_eq(chmod(out, 01777), 0);
}

static void
teardown(void)
{
	char	 cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	(void)!system(cmd);
}

/* A server of the test's directory; NULL with the error in `err'. */
static struct wymcp_server *
server(char *err, size_t errlen)
{
	struct wymcp_server	*srv;

	srv = wymcp_server_new();
	ck_assert_ptr_nonnull(srv);
	if (geteuid() == 0)
		ck_assert_int_eq(wymcp_server_set_exec_user(srv, "nobody"),
		    WYMCP_OK);
	if (wymcp_server_load_exec_dir(srv, dir) != WYMCP_OK) {
		snprintf(err, errlen, "%s", wymcp_server_errmsg(srv));
		wymcp_server_free(srv);
		return NULL;
	}
	return srv;
}

static struct wymcp_server *
must_server(void)
{
	struct wymcp_server	*srv;
	char			 err[1024];

	srv = server(err, sizeof(err));
	ck_assert_msg(srv != NULL, "load: %s", err);
	return srv;
}

/*
 * Call `name' with `args' (JSON), answering its questions with
 * answers[] in order, declaring elicitation when `elicit'.  The last
 * response in *r (free it); the rounds it took in *rounds.
 */
static void
call(struct wymcp_server *srv, const char *name, const char *args,
    const char *const *answers, int elicit, struct h_resp *r, int *rounds)
{
	struct json_object	*res, *reqs, *st;
	char			*p, *resp = NULL;
	const char		*state = NULL, *key = NULL;
	size_t			 len;
	int			 i;

	for (i = 0; i < 16; i++) {
		len = 512 + strlen(args) + (state != NULL ? strlen(state) :
		    0) + (resp != NULL ? strlen(resp) : 0);
		p = malloc(len);
		ck_assert_ptr_nonnull(p);
		snprintf(p, len, "{\"name\":\"%s\",\"arguments\":%s,"
		    "\"_meta\":%s%s%s%s%s%s%s}", name, args, elicit ?
		    META_ELICIT : H_META, state != NULL ?
		    ",\"requestState\":\"" : "", state != NULL ? state : "",
		    state != NULL ? "\"" : "", resp != NULL ?
		    ",\"inputResponses\":" : "", resp != NULL ? resp : "",
		    "");
		free(resp);
		resp = NULL;
		if (i > 0)
			h_free(r);
		ck_assert_int_eq(h_call(srv, "tools/call", name, p, NULL, r),
		    WYMCP_OK);
		free(p);
		*rounds = i + 1;
		res = h_result(r);
		if (res == NULL || !json_object_object_get_ex(res,
		    "inputRequests", &reqs))
			return;
		json_object_object_foreach(reqs, k, v) {
			(void)v;
			key = k;
			break;
		}
		if (answers == NULL || answers[0] == NULL)
			return;
		json_object_object_get_ex(res, "requestState", &st);
		state = st != NULL ? json_object_get_string(st) : NULL;
		len = strlen(key) + strlen(answers[0]) + 16;
		resp = malloc(len);
		snprintf(resp, len, "{\"%s\":%s}", key, answers[0]);
		answers++;
	}
	free(resp);
}

/* The result's first text, or "". */
static const char *
text(const struct h_resp *r)
{
	const char	*t = h_text(r);

	return t != NULL ? t : "";
}

static int
is_error(const struct h_resp *r)
{
	struct json_object	*e = h_jp(h_result(r), "isError", NULL);

	return e != NULL && json_object_get_boolean(e);
}

/*
 * Is any process of the test's left (its command line names the
 * test's directory, as every script's does)?  Zombies have none.
 */
static int
alive_from(const char *unused)
{
	char		 path[300], buf[4096];
	DIR		*d;
	struct dirent	*de;
	ssize_t		 n, i;
	int		 fd, alive = 0;

	(void)unused;
	ck_assert_ptr_nonnull(d = opendir("/proc"));
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9' ||
		    atoi(de->d_name) == (int)getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", de->d_name);
		if ((fd = open(path, O_RDONLY)) == -1)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		for (i = 0; i < n; i++)
			if (buf[i] == '\0')
				buf[i] = ' ';
		buf[n > 0 ? n : 0] = '\0';
		if (strstr(buf, dir) != NULL)
			alive = 1;
	}
	closedir(d);
	return alive;
}

START_TEST(text_output)
{
	struct wymcp_server	*srv;
	struct h_resp		 r;
	int			 n;

	tool("hello", NULL, "cat >/dev/null; printf 'hello, %s' "
	    "\"$WYMCP_TOOL\"");
	srv = must_server();
	call(srv, "hello", "{}", NULL, 0, &r, &n);
	ck_assert_str_eq(text(&r), "hello, hello");
	ck_assert(!is_error(&r));
	h_free(&r);
	wymcp_server_free(srv);
}
END_TEST

/* One mount list (WYMCP_TOOLS) for exec tools and modules alike. */
START_TEST(mount_list)
{
	struct wymcp_server	*srv;
	struct h_resp		 r;
	const char		*extra[] = { "WYMCP_TOOLS=hello", NULL };
	struct json_object	*tools;

	tool("hello", NULL, "cat >/dev/null; echo hi");
	tool("other", NULL, "cat >/dev/null; echo other");
	srv = must_server();
	ck_assert_int_eq(h_call(srv, "tools/list", NULL, "{}", extra, &r),
	    WYMCP_OK);
	tools = h_jp(h_result(&r), "tools", NULL);
	ck_assert_ptr_nonnull(tools);
	ck_assert_int_eq(json_object_array_length(tools), 1);
	ck_assert_str_eq(json_object_get_string(h_jp(
	    json_object_array_get_idx(tools, 0), "name", NULL)), "hello");
	h_free(&r);
	ck_assert_int_eq(h_call(srv, "tools/call", "other",
	    "{\"name\":\"other\",\"arguments\":{}}", extra, &r), WYMCP_OK);
	ck_assert(h_code(&r) != 0);
	h_free(&r);
	wymcp_server_free(srv);
}
END_TEST

START_TEST(stdin_and_env)
{
	struct wymcp_server	*srv;
	struct h_resp		 r;
	struct json_object	*o, *v;
	int			 n;

	/* The call on stdin, the environment after it: one JSON text. */
	tool("show", NULL, "in=$(cat); printf '{\"content\":[{\"type\":"
	    "\"text\",\"text\":\"%s|%s|%s|%s\"}],\"structuredContent\":%s}' "
	    "\"$WYMCP_ROUND\" \"${#WYMCP_IDEMPOTENCY_KEY}\" "
	    "\"$(test -d \"$TMPDIR\" && echo tmp)\" \"$HOME\" \"$in\"");
	srv = must_server();
	call(srv, "show", "{\"x\":1}", NULL, 0, &r, &n);
	ck_assert_msg(!is_error(&r), "%s", text(&r));
	ck_assert_ptr_nonnull(strstr(text(&r), "1|22|tmp|/tmp/wymcp-run."));
	o = h_jp(h_result(&r), "structuredContent", NULL);
	ck_assert_ptr_nonnull(o);
	v = h_jp(o, "arguments", "x", NULL);
	ck_assert_int_eq(json_object_get_int(v), 1);
	ck_assert_ptr_nonnull(h_jp(o, "answers", NULL));
	ck_assert(json_object_object_get_ex(o, "principal", NULL));
	ck_assert(json_object_object_get_ex(o, "task", NULL));
	ck_assert_str_eq(json_object_get_string(h_jp(o, "client",
	    "protocolVersion", NULL)), "2026-07-28");
	h_free(&r);
	wymcp_server_free(srv);
}
END_TEST

START_TEST(structured_checked)
{
	struct wymcp_server	*srv;
	struct h_resp		 r;
	int			 n;

	tool("du", "\"outputSchema\":{\"type\":\"object\",\"properties\":"
	    "{\"bytes\":{\"type\":\"integer\"}},\"required\":[\"bytes\"]}",
	    "cat >/dev/null; case \"$WYMCP_ROUND\" in *) echo "
	    "'{\"structuredContent\":{\"bytes\":42}}';; esac");
	tool("bad", "\"outputSchema\":{\"type\":\"object\",\"properties\":"
	    "{\"bytes\":{\"type\":\"integer\"}},\"required\":[\"bytes\"]}",
	    "cat >/dev/null; echo '{\"structuredContent\":{\"bytes\":\"x\"}}'");
	srv = must_server();
	call(srv, "du", "{}", NULL, 0, &r, &n);
	ck_assert_msg(!is_error(&r), "%s", text(&r));
	ck_assert_int_eq(json_object_get_int(h_jp(h_result(&r),
	    "structuredContent", "bytes", NULL)), 42);
	h_free(&r);
	/* Against the outputSchema, as a C tool's. */
	call(srv, "bad", "{}", NULL, 0, &r, &n);
	ck_assert(h_code(&r) != 0 || is_error(&r));
	h_free(&r);
	wymcp_server_free(srv);
}
END_TEST

/* A program that asks two questions, then answers with both. */
#define ASKER								\
	"in=$(cat)\n"							\
	"case $WYMCP_ROUND in\n"					\
	"1) echo '{\"ask\":{\"message\":\"Name?\",\"requestedSchema\":"	\
	"{\"type\":\"object\",\"properties\":{\"name\":{\"type\":"	\
	"\"string\"}}}}}';;\n"						\
	"2) echo '{\"ask\":{\"message\":\"Color?\",\"requestedSchema\":" \
	"{\"type\":\"object\",\"properties\":{\"color\":{\"type\":"	\
	"\"string\"}}}}}';;\n"						\
	"*) echo \"done: $in\";;\n"					\
	"esac"

START_TEST(asks_by_position)
{
	static const char *const answers[] = {
		"{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}",
		"{\"action\":\"accept\",\"content\":{\"color\":\"red\"}}",
		NULL
	};
	struct wymcp_server	*srv;
	struct h_resp		 r;
	int			 n;

	tool("ask2", NULL, ASKER);
	srv = must_server();
	/* Round 1: the first question, elicit-1, and a requestState. */
	call(srv, "ask2", "{}", answers + 2, 1, &r, &n);
	ck_assert_ptr_nonnull(h_jp(h_result(&r), "inputRequests", "elicit-1",
	    NULL));
	ck_assert_str_eq(json_object_get_string(h_jp(h_result(&r),
	    "resultType", NULL)), "input_required");
	ck_assert_ptr_nonnull(h_jp(h_result(&r), "requestState", NULL));
	h_free(&r);
	/* Both answered: three runs, the last given both answers. */
	call(srv, "ask2", "{}", answers, 1, &r, &n);
	ck_assert_int_eq(n, 3);
	ck_assert_msg(strstr(text(&r), "\"elicit-1\":{\"action\":\"accept\","
	    "\"content\":{\"name\":\"Ada\"}}") != NULL, "%s", text(&r));
	ck_assert_ptr_nonnull(strstr(text(&r), "\"elicit-2\""));
	ck_assert_ptr_nonnull(strstr(text(&r), "\"color\":\"red\""));
	h_free(&r);
	wymcp_server_free(srv);
}
END_TEST

/* An answer is checked against its question's schema, as a C tool's. */
START_TEST(answer_checked)
{
	static const char *const wrong[] = {
		"{\"action\":\"accept\",\"content\":{\"name\":42}}", NULL
	};
	static const char *const extra[] = {
		"{\"action\":\"accept\",\"content\":{\"name\":\"Ada\","
		"\"admin\":true}}", NULL
	};
	struct wymcp_server	*srv;
	struct h_resp		 r;
	int			 n;

	tool("ask2", NULL, ASKER);
	srv = must_server();
	call(srv, "ask2", "{}", wrong, 1, &r, &n);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(h_code(&r), -32602);
	h_free(&r);
	call(srv, "ask2", "{}", extra, 1, &r, &n);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(h_code(&r), -32602);
	h_free(&r);
	wymcp_server_free(srv);
}
END_TEST

START_TEST(ask_without_elicitation)
{
	struct wymcp_server	*srv;
	struct h_resp		 r;
	int			 n;

	tool("ask2", NULL, ASKER);
	srv = must_server();
	call(srv, "ask2", "{}", NULL, 0, &r, &n);
	/* What a C tool returning WYMCP_ERR_NOTSUP gets: not a question. */
	ck_assert_ptr_null(h_jp(h_result(&r), "inputRequests", NULL));
	ck_assert(h_code(&r) != 0 || is_error(&r));
	h_free(&r);
	wymcp_server_free(srv);
}
END_TEST

START_TEST(exit_status_and_stderr)
{
	struct wymcp_server	*srv;
	struct h_resp		 r;
	int			 n;

	tool("fails", NULL, "cat >/dev/null; echo 'disk on fire' >&2; "
	    "exit 3");
	tool("quiet", "\"stderr\":\"hide\"", "cat >/dev/null; "
	    "echo 'secret' >&2; exit 4");
	srv = must_server();
	call(srv, "fails", "{}", NULL, 0, &r, &n);
	ck_assert(is_error(&r));
	ck_assert_ptr_nonnull(strstr(text(&r), "exited with status 3"));
	ck_assert_ptr_nonnull(strstr(text(&r), "disk on fire"));
	h_free(&r);
	call(srv, "quiet", "{}", NULL, 0, &r, &n);
	ck_assert(is_error(&r));
	ck_assert_ptr_nonnull(strstr(text(&r), "exited with status 4"));
	ck_assert_ptr_null(strstr(text(&r), "secret"));
	h_free(&r);
	wymcp_server_free(srv);
}
END_TEST

START_TEST(hostile_loop)
{
	struct wymcp_server	*srv;
	struct h_resp		 r;
	char			 s[512];
	int			 n;

	/* An endless loop, and a child that ignores SIGTERM. */
	snprintf(s, sizeof(s), "cat >/dev/null; "
	    "(trap '' TERM; echo $$ >/dev/null; while :; do :; done) & "
	    "echo $! >>%s/pids; echo $$ >>%s/pids; while :; do :; done",
	    out, out);
	tool("spin", "\"timeout\":0.5,\"grace\":0.2,"
	    "\"paths\":{\"write\":[\"/tmp\"]}", s);
	srv = must_server();
	call(srv, "spin", "{}", NULL, 0, &r, &n);
	ck_assert(is_error(&r));
	ck_assert_msg(strstr(text(&r), "time limit") != NULL, "%s", text(&r));
	ck_assert_int_eq(alive_from("pids"), 0);
	h_free(&r);
	wymcp_server_free(srv);
}
END_TEST

/* The client goes away: the run is stopped, its processes with it. */
static int
gone_now(void *arg)
{
	(void)arg;
	return 1;
}

START_TEST(client_gone)
{
	struct wymcp_server	*srv;
	struct h_resp		 r;
	int			 n;
	char			 s[256];

	snprintf(s, sizeof(s), "cat >/dev/null; "
	    "sh -c 'while :; do sleep 1; done' %s & wait", dir);
	tool("stays", "\"timeout\":600,\"grace\":0.2", s);
	srv = must_server();
	h_gone = gone_now;
	call(srv, "stays", "{}", NULL, 0, &r, &n);
	h_gone = NULL;
	ck_assert_int_eq(alive_from(NULL), 0);
	h_free(&r);
	wymcp_server_free(srv);
}
END_TEST

START_TEST(hostile_fork_bomb)
{
	struct wymcp_server	*srv;
	struct h_resp		 r;
	char			 s[512];
	int			 n;

	snprintf(s, sizeof(s), "cat >/dev/null; echo $$ >>%s/pids; "
	    "b() { b | b & }; b; sleep 2", out);
	(void)out;
	tool("bomb", "\"timeout\":3,\"grace\":0.2,\"limits\":{\"processes\":"
	    "8},\"namespaces\":true,\"paths\":{\"write\":[\"/tmp\"]}", s);
	srv = must_server();
	call(srv, "bomb", "{}", NULL, 0, &r, &n);
	ck_assert_msg(alive_from("pids") == 0, "%s", text(&r));
	h_free(&r);
	/* The worker is free: the next call runs. */
	tool("hello", NULL, "cat >/dev/null; echo hi");
	wymcp_server_free(srv);
	srv = must_server();
	call(srv, "hello", "{}", NULL, 0, &r, &n);
	ck_assert_str_eq(text(&r), "hi\n");
	h_free(&r);
	wymcp_server_free(srv);
}
END_TEST

START_TEST(hostile_output)
{
	struct wymcp_server	*srv;
	struct h_resp		 r;
	int			 n;

	/* 1 GiB on stdout, against an output limit of 1 MiB. */
	tool("flood", "\"limits\":{\"output\":\"1M\"}", "cat >/dev/null; "
	    "head -c 1073741824 /dev/zero | tr '\\0' x");
	srv = must_server();
	call(srv, "flood", "{}", NULL, 0, &r, &n);
	ck_assert(is_error(&r));
	ck_assert_msg(strstr(text(&r), "limits.output") != NULL, "%s",
	    text(&r));
	h_free(&r);
	wymcp_server_free(srv);
}
END_TEST

START_TEST(hostile_files)
{
	struct wymcp_server	*srv;
	struct h_resp		 r;
	char			 s[1024], key[128], path[128], wdir[128];
	struct stat		 st;
	int			 n, fd;

	if (wymcp_exec_landlock() < 1)
		return;	/* what only Landlock refuses */
	/* A state key the run's user could read but for Landlock. */
	snprintf(key, sizeof(key), "/tmp/check_exec_key.%d", (int)getpid());
	(void)unlink(key);
	fd = open(key, O_WRONLY | O_CREAT, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "SECRET\n", 7), 7);
	close(fd);
	snprintf(path, sizeof(path), "/tmp/check_exec_outside.%d",
	    (int)getpid());
	(void)unlink(path);
	snprintf(s, sizeof(s), "cat >/dev/null; cat %s; "
	    "echo x >%s; echo x >%s/w/ok; echo done", key, path, out);
	tool("snoop", "\"paths\":{\"write\":[\"OUT\"]}", s);
	/* paths.write names the test's out directory. */
	snprintf(s, sizeof(s), "{\"description\":\"snoop\",\"command\":"
	    "[\"./snoop.sh\"],\"paths\":{\"write\":[\"%s/w\"]}}", out);
	snprintf(wdir, sizeof(wdir), "%s/w", out);
	ck_assert_int_eq(mkdir(wdir, 0777), 0);
	ck_assert_int_eq(chmod(wdir, 0777), 0);
	put("snoop.json", s, 0644);
	srv = must_server();
	call(srv, "snoop", "{}", NULL, 0, &r, &n);
	ck_assert_msg(strstr(text(&r), "SECRET") == NULL, "%s", text(&r));
	ck_assert_msg(stat(path, &st) == -1, "%s", text(&r));
	(void)unlink(key);
	/* What paths.write names is writable. */
	snprintf(path, sizeof(path), "%s/w/ok", out);
	ck_assert_int_eq(stat(path, &st), 0);
	h_free(&r);
	wymcp_server_free(srv);
}
END_TEST

START_TEST(hostile_daemon)
{
	struct wymcp_server	*srv;
	struct h_resp		 r;
	char			 s[512];
	int			 n;

	/* A double fork into a new session, holding stdout open. */
	snprintf(s, sizeof(s), "cat >/dev/null; "
	    "setsid sh -c 'while :; do sleep 1; done' %s & "
	    "sleep 0.2; echo started", dir);
	tool("daemon", "\"namespaces\":true,\"paths\":{\"write\":"
	    "[\"/tmp\"]}", s);
	srv = must_server();
	call(srv, "daemon", "{}", NULL, 0, &r, &n);
	ck_assert_msg(!is_error(&r), "%s", text(&r));
	ck_assert_str_eq(text(&r), "started\n");
	ck_assert_int_eq(alive_from("pids"), 0);
	h_free(&r);
	wymcp_server_free(srv);
}
END_TEST

/* Without namespaces, the worker (a child subreaper) finds it. */
START_TEST(hostile_daemon_no_ns)
{
	struct wymcp_server	*srv;
	struct h_resp		 r;
	char			 s[512];
	int			 n;

	snprintf(s, sizeof(s), "cat >/dev/null; "
	    "setsid sh -c 'while :; do sleep 1; done' %s & "
	    "sleep 0.2; echo started", dir);
	tool("daemon", "\"namespaces\":false", s);
	srv = must_server();
	call(srv, "daemon", "{}", NULL, 0, &r, &n);
	ck_assert_msg(!is_error(&r), "%s", text(&r));
	ck_assert_int_eq(alive_from(NULL), 0);
	h_free(&r);
	wymcp_server_free(srv);
}
END_TEST

START_TEST(hostile_kill_parent)
{
	struct wymcp_server	*srv;
	struct h_resp		 r;
	int			 n;

	/* Its parent, its parent's group: refused, the test lives on. */
	tool("regicide", NULL, "cat >/dev/null; kill -KILL $PPID; "
	    "kill -KILL -$(ps -o pgid= -p $PPID | tr -d ' ') 2>/dev/null; "
	    "kill -KILL -1; echo tried");
	srv = must_server();
	call(srv, "regicide", "{}", NULL, 0, &r, &n);
	ck_assert(kill(getpid(), 0) == 0);
	h_free(&r);
	wymcp_server_free(srv);
}
END_TEST

/* A program that reads nothing of a large call: no SIGPIPE for us. */
START_TEST(stdin_unread)
{
	struct wymcp_server	*srv;
	struct h_resp		 r;
	char			*args;
	size_t			 len = 300 * 1024;
	int			 n;

	tool("deaf", NULL, "exec 0<&-; echo ok");
	srv = must_server();
	args = malloc(len + 32);
	ck_assert_ptr_nonnull(args);
	memcpy(args, "{\"x\":\"", 6);
	memset(args + 6, 'a', len);
	memcpy(args + 6 + len, "\"}", 3);
	wymcp_server_set_max_body(srv, 4 * 1024 * 1024);
	call(srv, "deaf", args, NULL, 0, &r, &n);
	ck_assert_msg(strcmp(text(&r), "ok\n") == 0, "%s", text(&r));
	free(args);
	h_free(&r);
	wymcp_server_free(srv);
}
END_TEST

START_TEST(hostile_json)
{
	struct wymcp_server	*srv;
	struct h_resp		 r;
	int			 n;

	tool("broken", NULL, "cat >/dev/null; echo '{\"content\": [{'");
	tool("cut", NULL, "cat >/dev/null; printf '{\"ask\": {\"message\": "
	    "\"Sure?\", \"requestedSch'");
	tool("badask", NULL, "cat >/dev/null; echo '{\"ask\": "
	    "{\"message\": 1}}'");
	srv = must_server();
	call(srv, "broken", "{}", NULL, 1, &r, &n);
	ck_assert(is_error(&r));
	ck_assert_ptr_nonnull(strstr(text(&r), "not valid JSON"));
	h_free(&r);
	call(srv, "cut", "{}", NULL, 1, &r, &n);
	ck_assert(is_error(&r));
	ck_assert_ptr_nonnull(strstr(text(&r), "not valid JSON"));
	h_free(&r);
	call(srv, "badask", "{}", NULL, 1, &r, &n);
	ck_assert(is_error(&r));
	ck_assert_ptr_nonnull(strstr(text(&r), "question"));
	h_free(&r);
	wymcp_server_free(srv);
}
END_TEST

#define EXT_META							\
	"{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","	\
	"\"io.modelcontextprotocol/clientInfo\":{\"name\":\"t\","	\
	"\"version\":\"1\"},"						\
	"\"io.modelcontextprotocol/clientCapabilities\":"		\
	"{\"elicitation\":{},\"extensions\":"				\
	"{\"io.modelcontextprotocol/tasks\":{}}}}"

/* A server with a task store in the test's directory. */
static struct wymcp_server *
task_server(char *uri, size_t len)
{
	struct wymcp_server	*srv = must_server();

	snprintf(uri, len, "sqlite:%s/tasks.db", dir);
	ck_assert_msg(wymcp_server_set_task_store(srv, uri) == WYMCP_OK,
	    "%s", wymcp_server_errmsg(srv));
	return srv;
}

/* A task method; its result member `k' (a string), or NULL. */
static const char *
task_req(struct wymcp_server *srv, const char *method, const char *name,
    const char *params, struct h_resp *r, const char *k)
{
	char			 body[1024];
	struct json_object	*v;

	snprintf(body, sizeof(body), "{\"_meta\":%s,%s}", EXT_META, params);
	ck_assert_int_eq(h_call(srv, method, name, body, NULL, r), WYMCP_OK);
	if (h_result(r) == NULL ||
	    !json_object_object_get_ex(h_result(r), k, &v))
		return NULL;
	return json_object_get_string(v);
}

START_TEST(task_runs)
{
	struct wymcp_server	*srv;
	struct h_resp		 r;
	char			 uri[128], id[64], p[128];
	const char		*v;

	tool("job", "\"task\":\"optional\"", "in=$(cat); "
	    "printf 'task %s: %s' \"$WYMCP_TASK_ID\" \"$in\"");
	srv = task_server(uri, sizeof(uri));
	v = task_req(srv, "tools/call", "job", "\"name\":\"job\","
	    "\"arguments\":{}", &r, "taskId");
	ck_assert_msg(v != NULL, "%s", r.body);
	snprintf(id, sizeof(id), "%s", v);
	h_free(&r);
	ck_assert_int_eq(wymcp_server_run_task(srv), 1);
	snprintf(p, sizeof(p), "\"taskId\":\"%s\"", id);
	v = task_req(srv, "tasks/get", id, p, &r, "status");
	ck_assert_str_eq(v, "completed");
	/* The id in the environment and on stdin. */
	ck_assert_msg(strstr(r.body, "task ") != NULL &&
	    strstr(r.body, id) != NULL, "%s", r.body);
	ck_assert_ptr_nonnull(strstr(r.body, "\\\"task\\\":{\\\"id\\\":"));
	h_free(&r);
	wymcp_server_free(srv);
}
END_TEST

START_TEST(task_cancelled)
{
	struct wymcp_server	*srv;
	struct h_resp		 r;
	struct timespec		 ts = { 0, 300 * 1000000L };
	char			 uri[128], id[64], p[128], s[256];
	const char		*v;
	pid_t			 pid;
	int			 st, i;

	snprintf(s, sizeof(s), "cat >/dev/null; echo $$ >%s/started; "
	    "sh -c 'while :; do sleep 1; done' %s & wait", out, dir);
	tool("long", "\"task\":\"optional\",\"timeout\":600,"
	    "\"grace\":0.2,\"paths\":{\"write\":[\"/tmp\"]}", s);
	srv = task_server(uri, sizeof(uri));
	v = task_req(srv, "tools/call", "long", "\"name\":\"long\","
	    "\"arguments\":{}", &r, "taskId");
	ck_assert_msg(v != NULL, "%s", r.body);
	snprintf(id, sizeof(id), "%s", v);
	h_free(&r);
	/* The runner in a process of its own, with its own connection. */
	ck_assert_int_eq(wymcp_server_set_task_store(srv, uri), WYMCP_OK);
	if ((pid = fork()) == 0)
		_exit(wymcp_server_run_task(srv) == 1 ? 0 : 1);
	snprintf(s, sizeof(s), "%s/started", out);
	for (i = 0; i < 200 && access(s, F_OK) != 0; i++)
		nanosleep(&ts, NULL);
	ck_assert_int_eq(access(s, F_OK), 0);
	snprintf(p, sizeof(p), "\"taskId\":\"%s\"", id);
	(void)task_req(srv, "tasks/cancel", id, p, &r, "resultType");
	h_free(&r);
	/* The runner ends the run: not after its 600 s. */
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	v = task_req(srv, "tasks/get", id, p, &r, "status");
	ck_assert_str_eq(v, "cancelled");
	h_free(&r);
	ck_assert_int_eq(alive_from(NULL), 0);
	wymcp_server_free(srv);
}
END_TEST

/* A manifest refused: the error names the file and the member. */
static void
refused(const char *manifest, const char *member)
{
	char	 err[1024];

	tool("t", NULL, "echo");
	put("t.json", manifest, 0644);
	ck_assert_ptr_null(server(err, sizeof(err)));
	ck_assert_msg(strstr(err, "/t.json: ") != NULL, "%s", err);
	ck_assert_msg(strstr(err, member) != NULL, "want %s: %s", member,
	    err);
}

START_TEST(manifest_errors)
{
	refused("{\"description\":\"d\"}", "command");
	refused("{\"command\":[\"./t.sh\"]}", "description");
	refused("{\"description\":\"d\",\"command\":[\"./t.sh\"],"
	    "\"colour\":1}", "colour: unknown member");
	refused("{\"description\":\"d\",\"command\":[\"./t.sh\"],"
	    "\"timeout\":-1}", "timeout");
	refused("{\"description\":\"d\",\"command\":[\"./nope\"]}",
	    "command");
	refused("{\"description\":\"d\",\"command\":[\"./t.sh\"],"
	    "\"limits\":{\"memory\":\"12Q\"}}", "limits.memory");
	refused("{\"description\":\"d\",\"command\":[\"./t.sh\"],"
	    "\"name\":\"other\"}", "name");
	refused("{\"description\":\"d\",\"command\":[\"./t.sh\"],"
	    "\"inputSchema\":{\"type\":\"string\"}}", "input");
	refused("{\"description\":\"d\",\"command\":[\"./t.sh\"],"
	    "\"user\":\"root\"}", "user");
	refused("{\"description\":\"d\",\"description\":\"e\","
	    "\"command\":[\"./t.sh\"]}", "twice");
	refused("{\"description\":\"d\",\"command\":[\"./t.sh\"],"
	    "\"paths\":{\"read\":[\"relative\"]}}", "paths.read");
	refused("{\"description\":\"d\",\"command\":[\"./t.sh\"],"
	    "\"rate\":\"5/day\"}", "rate: must be a rate");
	refused("{\"description\":\"d\",\"command\":[\"./t.sh\"],"
	    "\"rate\":5}", "rate");
}
END_TEST

static Suite *
exec_suite(void)
{
	Suite	*s = suite_create("exec");
	TCase	*tc = tcase_create("exec");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, text_output);
	tcase_add_test(tc, stdin_and_env);
	tcase_add_test(tc, mount_list);
	tcase_add_test(tc, structured_checked);
	tcase_add_test(tc, asks_by_position);
	tcase_add_test(tc, answer_checked);
	tcase_add_test(tc, ask_without_elicitation);
	tcase_add_test(tc, exit_status_and_stderr);
	tcase_add_test(tc, hostile_loop);
	tcase_add_test(tc, client_gone);
	tcase_add_test(tc, hostile_fork_bomb);
	tcase_add_test(tc, hostile_output);
	tcase_add_test(tc, hostile_files);
	tcase_add_test(tc, hostile_daemon);
	tcase_add_test(tc, hostile_daemon_no_ns);
	tcase_add_test(tc, hostile_kill_parent);
	tcase_add_test(tc, hostile_json);
	tcase_add_test(tc, stdin_unread);
	tcase_add_test(tc, manifest_errors);
	tcase_add_test(tc, task_runs);
	tcase_add_test(tc, task_cancelled);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	sr = srunner_create(exec_suite());
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
