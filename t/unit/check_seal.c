/*
 * check_seal.c - the sealed requestState (seal.c) on the wire, and the
 * state key files
 *
 * requestState comes back through the client, so it is attacker-
 * controlled: whatever is wrong with it (tampered, truncated, not
 * base64, expired, another user's, another call's, another mount set's,
 * another server's) the call fails with one -32602 and the tool body
 * does not run.  The sealed answers only count when the state opens, so
 * the tool here asks two questions: the third round completes only if
 * the state of the second carried the first answer.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "wymcp.h"
#include "harness.h"

#define META	"{\"io.modelcontextprotocol/protocolVersion\":"	\
	"\"2026-07-28\","						\
	"\"io.modelcontextprotocol/clientInfo\":{\"name\":\"t\",\"version\":" \
	"\"1\"},\"io.modelcontextprotocol/clientCapabilities\":" \
	"{\"elicitation\":{}}}"
#define NAME_SCHEMA "{\"type\":\"object\",\"properties\":{\"name\":" \
	"{\"type\":\"string\"}},\"required\":[\"name\"]}"
#define COLOR_SCHEMA "{\"type\":\"object\",\"properties\":{\"color\":" \
	"{\"type\":\"string\"}},\"required\":[\"color\"]}"
#define ALICE	"{\"elicit-1\":{\"action\":\"accept\",\"content\":" \
	"{\"name\":\"Alice\"}}}"
#define BLUE	"{\"elicit-2\":{\"action\":\"accept\",\"content\":" \
	"{\"color\":\"blue\"}}}"

#define STATE_MAX	4096

static int	 runs;		/* tool bodies entered */
static int	 done;		/* tool bodies that completed */
static char	 why[512];	/* the last refusal logged */

/* Two questions; completes with both answers. */
static char	 key_seen[8][64];

static enum wymcp_err
ask_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a, *b, *v, *w;
	enum wymcp_err		 rc;

	runs++;
	/* Each run's idempotency key, for idempotency_key_per_call. */
	snprintf(key_seen[runs % 8], sizeof(key_seen[0]), "%s",
	    wymcp_idempotency_key(ctx));
	if ((rc = wymcp_elicit(ctx, "Name?", NAME_SCHEMA, &a)) != WYMCP_OK)
		return rc;
	if ((rc = wymcp_elicit(ctx, "Color?", COLOR_SCHEMA, &b)) != WYMCP_OK)
		return rc;
	done++;
	json_object_object_get_ex(wymcp_answer_content(a), "name", &v);
	json_object_object_get_ex(wymcp_answer_content(b), "color", &w);
	return wymcp_result_add(res, wymcp_textf(ctx, "%s likes %s",
	    json_object_get_string(v), json_object_get_string(w)));
}

static enum wymcp_err
plain_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	runs++;
	return wymcp_result_add(res, wymcp_text(ctx, "plain"));
}

#define ARGS_SCHEMA "{\"type\":\"object\",\"properties\":{" \
	"\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"string\"}," \
	"\"o\":{\"type\":\"object\"}}}"

static const struct wymcp_tool tools[] = {
	{ .name = "ask", .description = "Asks two questions.",
	    .input_schema = ARGS_SCHEMA, .run = ask_run },
	{ .name = "other", .description = "Asks the same two questions.",
	    .input_schema = ARGS_SCHEMA, .run = ask_run },
	{ .name = "third", .description = "Asks nothing.",
	    .input_schema = "{\"type\":\"object\"}", .run = plain_run },
	{ .name = NULL }
};
static const struct wymcp_module mod = {
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "sealmod", .tools = tools,
	.tool_size = sizeof(struct wymcp_tool)
};

static void
logfn(void *arg, int prio, const char *reqid, const char *msg)
{
	if (strstr(msg, "requestState refused") != NULL)
		snprintf(why, sizeof(why), "%s", msg);
}

static struct wymcp_server	*srv;
static struct h_resp		 resp;
static char			 dir[64];	/* scratch directory */

static struct wymcp_server *
server(void)
{
	struct wymcp_server	*s;

	s = wymcp_server_new();
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(wymcp_server_add_module(s, &mod), WYMCP_OK);
	wymcp_server_set_log(s, logfn, NULL, WYMCP_LOG_DEBUG);
	return s;
}

static void
setup(void)
{
	runs = done = 0;
	why[0] = '\0';
	memset(&resp, 0, sizeof(resp));
	srv = server();
	snprintf(dir, sizeof(dir), "/tmp/check_seal.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void
teardown(void)
{
	DIR		*d;
	struct dirent	*e;
	char		 p[PATH_MAX];

	h_free(&resp);
	wymcp_server_free(srv);
	srv = NULL;
	if ((d = opendir(dir)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 ||
			    strcmp(e->d_name, "..") == 0)
				continue;
			snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
			unlink(p);
		}
		closedir(d);
	}
	rmdir(dir);
}

/*
 * tools/call `tool` on `s` with `args` (NULL: absent), inputResponses
 * `responses` (NULL: absent), requestState `state` (NULL: absent) and
 * extra CGI params `env`.
 */
static void
call(struct wymcp_server *s, const char *tool, const char *args,
    const char *responses, const char *state, const char *const *env)
{
	struct json_object	*p;

	h_free(&resp);
	why[0] = '\0';
	p = json_object_new_object();
	json_object_object_add(p, "_meta", json_tokener_parse(META));
	json_object_object_add(p, "name", json_object_new_string(tool));
	if (args != NULL)
		json_object_object_add(p, "arguments",
		    json_tokener_parse(args));
	if (responses != NULL)
		json_object_object_add(p, "inputResponses",
		    json_tokener_parse(responses));
	if (state != NULL)
		json_object_object_add(p, "requestState",
		    json_object_new_string(state));
	ck_assert_int_eq(h_call(s, "tools/call", tool,
	    json_object_to_json_string_ext(p, JSON_C_TO_STRING_PLAIN), env,
	    &resp), WYMCP_OK);
	json_object_put(p);
	ck_assert_ptr_nonnull(resp.json);
}

static const char *
member(struct json_object *o, const char *k)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(o, k, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static const char *
error_message(void)
{
	struct json_object	*e;

	if (!json_object_object_get_ex(resp.json, "error", &e))
		return NULL;
	return member(e, "message");
}

/* Copy the input_required result's requestState for key `key`. */
static void
take_state(const char *key, char *out)
{
	struct json_object	*ir;
	const char		*st, *rt;

	ck_assert_int_eq(h_code(&resp), 0);
	rt = member(h_result(&resp), "resultType");
	ck_assert_ptr_nonnull(rt);
	ck_assert_str_eq(rt, "input_required");
	ck_assert(json_object_object_get_ex(h_result(&resp), "inputRequests",
	    &ir));
	ck_assert(json_object_object_get_ex(ir, key, NULL));
	st = member(h_result(&resp), "requestState");
	ck_assert_ptr_nonnull(st);
	ck_assert_uint_gt(strlen(st), 0);
	ck_assert_uint_lt(strlen(st), STATE_MAX);
	snprintf(out, STATE_MAX, "%s", st);
}

/*
 * Walk rounds 1 and 2 of `tool` on `s`: `out` is the state of round 2,
 * which seals the first answer.
 */
static void
mint(struct wymcp_server *s, const char *tool, const char *args,
    const char *const *env, char *out)
{
	char	 s1[STATE_MAX];

	call(s, tool, args, NULL, NULL, env);
	take_state("elicit-1", s1);
	call(s, tool, args, ALICE, s1, env);
	take_state("elicit-2", out);
}

/* Round 3: only the second answer, and the state. */
static void
retry(struct wymcp_server *s, const char *tool, const char *args,
    const char *state, const char *const *env)
{
	call(s, tool, args, BLUE, state, env);
}

/* Round 3 completed: the state opened and carried the first answer. */
static void
opened(void)
{
	const char	*rt;

	ck_assert_msg(h_code(&resp) == 0, "%s", error_message());
	rt = member(h_result(&resp), "resultType");
	ck_assert_ptr_nonnull(rt);
	ck_assert_str_eq(rt, "complete");
	ck_assert_ptr_nonnull(h_text(&resp));
	ck_assert_str_eq(h_text(&resp), "Alice likes blue");
}

/* The message every refusal carries: that of an empty state. */
static const char *
refusal(void)
{
	static char	 msg[512];
	int		 r = runs;

	call(srv, "ask", NULL, BLUE, "", NULL);
	ck_assert_int_eq(h_code(&resp), -32602);
	ck_assert_ptr_nonnull(error_message());
	snprintf(msg, sizeof(msg), "%s", error_message());
	ck_assert_int_eq(runs, r);
	return msg;
}

/*
 * The state was refused: one -32602 with `msg`, the body did not run
 * (runs was `r` before), and the server logged `reason`.
 */
static void
refused(const char *msg, int r, const char *reason)
{
	ck_assert_int_eq(resp.status, 200);
	ck_assert_int_eq(h_code(&resp), -32602);
	ck_assert_ptr_null(h_result(&resp));
	ck_assert_ptr_nonnull(error_message());
	ck_assert_str_eq(error_message(), msg);
	ck_assert_int_eq(runs, r);
	if (reason != NULL)
		ck_assert_msg(strstr(why, reason) != NULL, "logged '%s', "
		    "wanted '%s'", why, reason);
}

/* A copy of `st` with `fn` applied. */
static const char *
altered(const char *st, int how)
{
	static char	 buf[STATE_MAX + 16];
	size_t		 n = strlen(st), i;

	snprintf(buf, sizeof(buf), "%s", st);
	switch (how) {
	case 0:		/* one character in the middle */
		i = n / 2;
		buf[i] = buf[i] == 'A' ? 'B' : 'A';
		break;
	case 1:		/* the version byte */
		buf[0] = buf[0] == 'A' ? 'B' : 'A';
		break;
	case 2:		/* the key id */
		buf[3] = buf[3] == 'A' ? 'B' : 'A';
		break;
	case 3:		/* the nonce */
		buf[12] = buf[12] == 'A' ? 'B' : 'A';
		break;
	case 4:		/* the tag, at the end */
		buf[n - 3] = buf[n - 3] == 'A' ? 'B' : 'A';
		break;
	case 5:		/* the conformance suite's way */
		snprintf(buf, sizeof(buf), "%s-TAMPERED", st);
		break;
	case 6:		/* truncated by one */
		buf[n - 1] = '\0';
		break;
	case 7:		/* truncated to half */
		buf[n / 2] = '\0';
		break;
	case 8:		/* truncated to the header */
		buf[7] = '\0';
		break;
	case 9:		/* standard base64 alphabet */
		buf[n / 2] = '+';
		break;
	case 10:	/* padded */
		snprintf(buf, sizeof(buf), "%s==", st);
		break;
	case 11:	/* white space */
		snprintf(buf, sizeof(buf), "%s\n", st);
		break;
	case 12:	/* one character more */
		snprintf(buf, sizeof(buf), "%sA", st);
		break;
	}
	return buf;
}

START_TEST(round_trip_opens)
{
	char	 st[STATE_MAX];

	mint(srv, "ask", "{\"a\":1}", NULL, st);
	ck_assert_int_eq(runs, 2);
	retry(srv, "ask", "{\"a\":1}", st, NULL);
	opened();
	ck_assert_int_eq(runs, 3);
	ck_assert_int_eq(done, 1);
	/* Without the state the first answer is missing: asked again. */
	retry(srv, "ask", "{\"a\":1}", NULL, NULL);
	take_state("elicit-1", st);
}
END_TEST

START_TEST(state_without_answers_is_short)
{
	char	 st[STATE_MAX], st2[STATE_MAX];

	/*
	 * A first round has read no answer: the state is the bindings and
	 * the key of the question it asked, {"elicit-1":null}.
	 */
	call(srv, "ask", "{\"a\":1}", NULL, NULL, NULL);
	take_state("elicit-1", st);
	/* base64url of 85 + 17 bytes, no padding. */
	ck_assert_uint_eq(strlen(st), 136);
	ck_assert_uint_eq(strspn(st, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789-_"), strlen(st));
	/* One answer makes it grow by the answer's JSON, nothing more. */
	call(srv, "ask", "{\"a\":1}", ALICE, st, NULL);
	take_state("elicit-2", st2);
	ck_assert_uint_le(strlen(st2), 136 + (strlen(ALICE) + 1) * 4 / 3 + 2);
}
END_TEST

/*
 * A first round has no answers (issue 32 item 5): a tools/call with
 * inputResponses and no requestState runs as a first round, asking its
 * first question; a state takes answers only to the questions it
 * asked.  0.4 took them all.
 */
START_TEST(first_round_has_no_answers)
{
	char	 st[STATE_MAX];

	call(srv, "ask", "{\"a\":1}", "{\"elicit-1\":{\"action\":\"accept\","
	    "\"content\":{\"name\":\"Alice\"}},\"elicit-2\":{\"action\":"
	    "\"accept\",\"content\":{\"color\":\"blue\"}}}", NULL, NULL);
	take_state("elicit-1", st);
	ck_assert_int_eq(runs, 1);
	ck_assert_int_eq(done, 0);
	/* The state asked elicit-1: elicit-2, sent ahead, is not taken. */
	call(srv, "ask", "{\"a\":1}", "{\"elicit-1\":{\"action\":\"accept\","
	    "\"content\":{\"name\":\"Alice\"}},\"elicit-2\":{\"action\":"
	    "\"accept\",\"content\":{\"color\":\"red\"}}}", st, NULL);
	take_state("elicit-2", st);
	ck_assert_int_eq(done, 0);
	/* Its own question's answer is; a new name for elicit-1 is not. */
	call(srv, "ask", "{\"a\":1}", "{\"elicit-1\":{\"action\":\"accept\","
	    "\"content\":{\"name\":\"Mallory\"}},\"elicit-2\":{\"action\":"
	    "\"accept\",\"content\":{\"color\":\"blue\"}}}", st, NULL);
	opened();
	ck_assert_int_eq(done, 1);
}
END_TEST

/*
 * The idempotency key: the same in every round of a call and in a
 * replayed round (it travels in the state), another for a new call.
 */
START_TEST(idempotency_key_per_call)
{
	char	 st[STATE_MAX], st2[STATE_MAX], k1[64];

	runs = 0;
	call(srv, "ask", "{\"a\":1}", NULL, NULL, NULL);
	take_state("elicit-1", st);
	snprintf(k1, sizeof(k1), "%s", key_seen[1]);
	ck_assert_uint_eq(strlen(k1), 22);
	ck_assert_uint_eq(strspn(k1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789-_"), 22);
	call(srv, "ask", "{\"a\":1}", ALICE, st, NULL);
	take_state("elicit-2", st2);
	ck_assert_str_eq(key_seen[2], k1);
	/* The same round once more (a retry): the same key. */
	call(srv, "ask", "{\"a\":1}", ALICE, st, NULL);
	ck_assert_str_eq(key_seen[3], k1);
	/* A new call of the same tool and arguments: another key. */
	call(srv, "ask", "{\"a\":1}", NULL, NULL, NULL);
	ck_assert_str_ne(key_seen[4], k1);
	ck_assert_uint_eq(strlen(key_seen[4]), 22);
}
END_TEST

START_TEST(state_is_not_single_use)
{
	char	 st[STATE_MAX];

	/* Until it expires, the same retry runs the same call again. */
	mint(srv, "ask", NULL, NULL, st);
	retry(srv, "ask", NULL, st, NULL);
	opened();
	retry(srv, "ask", NULL, st, NULL);
	opened();
	ck_assert_int_eq(done, 2);
}
END_TEST

START_TEST(tampered_state_refused)
{
	char		 st[STATE_MAX];
	const char	*msg = refusal();
	int		 how, r;
	const char	*reasons[] = { "authentication failed",
			    "another version or kind of token",
			    "unknown key", "authentication failed",
			    "authentication failed", NULL };

	mint(srv, "ask", NULL, NULL, st);
	for (how = 0; how <= 5; how++) {
		r = runs;
		retry(srv, "ask", NULL, altered(st, how), NULL);
		refused(msg, r, reasons[how]);
	}
	ck_assert_int_eq(done, 0);
	retry(srv, "ask", NULL, st, NULL);
	opened();
}
END_TEST

START_TEST(truncated_state_refused)
{
	char		 st[STATE_MAX];
	const char	*msg = refusal();
	int		 how, r;

	mint(srv, "ask", NULL, NULL, st);
	for (how = 6; how <= 8; how++) {
		r = runs;
		retry(srv, "ask", NULL, altered(st, how), NULL);
		refused(msg, r, NULL);
	}
	ck_assert_int_eq(done, 0);
}
END_TEST

START_TEST(empty_state_refused)
{
	const char	*msg = refusal();
	int		 r = runs;

	call(srv, "ask", NULL, ALICE, "", NULL);
	refused(msg, r, "malformed");
	call(srv, "ask", NULL, NULL, "", NULL);
	refused(msg, r, "malformed");
}
END_TEST

START_TEST(state_not_base64_refused)
{
	char		 st[STATE_MAX];
	const char	*msg = refusal();
	const char	*junk[] = { "!!!not base64!!!", "a b c",
			    "AAAA====", "\xc3\xa9t\xc3\xa9", "%41%42" };
	size_t		 i;
	int		 how, r;

	mint(srv, "ask", NULL, NULL, st);
	for (how = 9; how <= 12; how++) {
		r = runs;
		retry(srv, "ask", NULL, altered(st, how), NULL);
		refused(msg, r, NULL);
	}
	for (i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		r = runs;
		retry(srv, "ask", NULL, junk[i], NULL);
		refused(msg, r, "malformed");
	}
	ck_assert_int_eq(done, 0);
}
END_TEST

START_TEST(expired_state_refused)
{
	char			 st[STATE_MAX], fresh[STATE_MAX];
	const char		*msg = refusal();
	struct timespec		 ts = { 1, 100 * 1000 * 1000 };
	int			 r;

	wymcp_server_set_state_ttl(srv, 0);
	mint(srv, "ask", NULL, NULL, st);
	wymcp_server_set_state_ttl(srv, 3600);
	mint(srv, "ask", NULL, NULL, fresh);
	while (nanosleep(&ts, &ts) == -1)
		continue;
	r = runs;
	retry(srv, "ask", NULL, st, NULL);
	refused(msg, r, "expired");
	/* The TTL is the sealing server's: a fresh one still opens. */
	retry(srv, "ask", NULL, fresh, NULL);
	opened();
}
END_TEST

START_TEST(other_principal_refused)
{
	const char *const alice[] = { "WYMCP_PRINCIPAL=alice", NULL };
	const char *const bob[] = { "WYMCP_PRINCIPAL=bob", NULL };
	const char *const remote[] = { "REMOTE_USER=alice", NULL };
	char		 st[STATE_MAX], anon[STATE_MAX];
	const char	*msg = refusal();
	int		 r;

	mint(srv, "ask", NULL, alice, st);
	mint(srv, "ask", NULL, NULL, anon);
	r = runs;
	retry(srv, "ask", NULL, st, bob);
	refused(msg, r, "other principal");
	retry(srv, "ask", NULL, st, NULL);
	refused(msg, r, "other principal");
	retry(srv, "ask", NULL, anon, alice);
	refused(msg, r, "other principal");
	ck_assert_int_eq(done, 0);
	/* The same principal, however the web server named it, opens. */
	retry(srv, "ask", NULL, st, remote);
	opened();
	retry(srv, "ask", NULL, st, alice);
	opened();
	retry(srv, "ask", NULL, anon, NULL);
	opened();
}
END_TEST

START_TEST(other_tool_refused)
{
	char		 st[STATE_MAX];
	const char	*msg = refusal();
	int		 r;

	mint(srv, "ask", NULL, NULL, st);
	r = runs;
	retry(srv, "other", NULL, st, NULL);
	refused(msg, r, "other method or tool");
	call(srv, "third", NULL, NULL, st, NULL);
	refused(msg, r, "other method or tool");
	ck_assert_int_eq(done, 0);
}
END_TEST

START_TEST(other_arguments_refused)
{
	char		 st[STATE_MAX], none[STATE_MAX];
	const char	*msg = refusal();
	const char	*others[] = { "{\"a\":2,\"b\":\"x\"}", "{\"a\":1}",
			    "{\"a\":1,\"b\":\"x\",\"o\":{}}",
			    "{\"a\":1,\"b\":\"X\"}", "{}" };
	size_t		 i;
	int		 r;

	mint(srv, "ask", "{\"a\":1,\"b\":\"x\"}", NULL, st);
	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		r = runs;
		retry(srv, "ask", others[i], st, NULL);
		refused(msg, r, "other arguments");
	}
	ck_assert_int_eq(done, 0);
	/* Absent arguments are {}. */
	mint(srv, "ask", NULL, NULL, none);
	retry(srv, "ask", "{}", none, NULL);
	opened();
}
END_TEST

START_TEST(reordered_arguments_still_open)
{
	char	 st[STATE_MAX];

	mint(srv, "ask", "{\"a\":1,\"b\":\"x\",\"o\":{\"p\":1,\"q\":[1,2]}}",
	    NULL, st);
	retry(srv, "ask", "{\"o\":{\"q\":[1,2],\"p\":1},\"b\":\"x\",\"a\":1}",
	    st, NULL);
	opened();
	/* Array order is not key order: it matters. */
	retry(srv, "ask", "{\"o\":{\"q\":[2,1],\"p\":1},\"b\":\"x\",\"a\":1}",
	    st, NULL);
	ck_assert_int_eq(h_code(&resp), -32602);
}
END_TEST

START_TEST(other_mount_set_refused)
{
	const char *const two[] = { "WYMCP_TOOLS=ask other", NULL };
	const char *const swapped[] = { "WYMCP_TOOLS=other,ask", NULL };
	const char *const one[] = { "WYMCP_TOOLS=ask", NULL };
	const char *const more[] = { "WYMCP_TOOLS=ask other third", NULL };
	char		 st[STATE_MAX];
	const char	*msg = refusal();
	int		 r;

	mint(srv, "ask", NULL, two, st);
	r = runs;
	retry(srv, "ask", NULL, st, one);
	refused(msg, r, "other mounted tool set");
	retry(srv, "ask", NULL, st, NULL);
	refused(msg, r, "other mounted tool set");
	retry(srv, "ask", NULL, st, more);
	refused(msg, r, "other mounted tool set");
	ck_assert_int_eq(done, 0);
	/* The same set, named in another order, is the same set. */
	retry(srv, "ask", NULL, st, swapped);
	opened();
}
END_TEST

START_TEST(unknown_key_refused)
{
	struct wymcp_server	*other;
	char			 st[STATE_MAX];
	const char		*msg = refusal();
	int			 r;

	mint(srv, "ask", NULL, NULL, st);
	other = server();
	r = runs;
	retry(other, "ask", NULL, st, NULL);
	refused(msg, r, "unknown key");
	wymcp_server_free(other);
}
END_TEST

/* Write `text` to dir/name with `mode`; returns the path (static). */
static const char *
write_file(const char *name, const char *text, mode_t mode)
{
	static char	 path[PATH_MAX];
	int		 fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ne(fd, -1);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	ck_assert_int_eq(fchmod(fd, mode), 0);
	close(fd);
	return path;
}

/* Read dir/name into buf. */
static const char *
read_file(const char *name)
{
	static char	 buf[4096];
	char		 path[PATH_MAX];
	FILE		*f;
	size_t		 n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static const char *
keypath(const char *name)
{
	static char	 path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

#define K1 "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
#define K2 "A0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBF"

START_TEST(rotated_key_opens_old_states)
{
	struct wymcp_server	*a, *b, *c;
	char			 err[256], k1[65], sta[STATE_MAX];
	char			 stb[STATE_MAX];
	const char		*msg = refusal(), *text;
	int			 r;

	ck_assert_int_eq(wymcp_state_key_generate(keypath("keys"), err,
	    sizeof(err)), WYMCP_OK);
	a = server();
	ck_assert_int_eq(wymcp_server_load_state_keys(a, keypath("keys")),
	    WYMCP_OK);
	mint(a, "ask", NULL, NULL, sta);
	snprintf(k1, sizeof(k1), "%s", read_file("keys"));

	/* Rotate: the new key first, the old one second. */
	ck_assert_int_eq(wymcp_state_key_generate(keypath("keys"), err,
	    sizeof(err)), WYMCP_OK);
	b = server();
	ck_assert_int_eq(wymcp_server_load_state_keys(b, keypath("keys")),
	    WYMCP_OK);
	retry(b, "ask", NULL, sta, NULL);
	opened();
	/* b seals with the new key, which a does not know. */
	mint(b, "ask", NULL, NULL, stb);
	r = runs;
	retry(a, "ask", NULL, stb, NULL);
	refused(msg, r, "unknown key");

	/* A server with only the new key opens b's, not a's. */
	text = read_file("keys");
	ck_assert_int_eq(strncmp(text + 65, k1, 64), 0);
	write_file("new", text, 0600);
	ck_assert_int_eq(truncate(keypath("new"), 65), 0);
	c = server();
	ck_assert_int_eq(wymcp_server_load_state_keys(c, keypath("new")),
	    WYMCP_OK);
	retry(c, "ask", NULL, stb, NULL);
	opened();
	r = runs;
	retry(c, "ask", NULL, sta, NULL);
	refused(msg, r, "unknown key");

	wymcp_server_free(a);
	wymcp_server_free(b);
	wymcp_server_free(c);
}
END_TEST

START_TEST(servers_sharing_a_key_file_share_states)
{
	struct wymcp_server	*b;
	char			 st[STATE_MAX];
	const char		*p;

	/* Comments, blank lines, CRLF and surrounding blanks are fine. */
	p = write_file("keys", "# wymcp state keys\n\n   \n" K1 "\r\n"
	    "  # the old one\n\t" K2 "  \n", 0600);
	ck_assert_msg(wymcp_server_load_state_keys(srv, p) == WYMCP_OK, "%s",
	    wymcp_server_errmsg(srv));
	b = server();
	p = write_file("k1", K1 "\n", 0400);
	ck_assert_msg(wymcp_server_load_state_keys(b, p) == WYMCP_OK, "%s",
	    wymcp_server_errmsg(b));
	/* The first key seals: b, holding only K1, opens srv's state. */
	mint(srv, "ask", NULL, NULL, st);
	retry(b, "ask", NULL, st, NULL);
	opened();
	/* Every key opens: a state sealed with K2 opens on srv. */
	p = write_file("k2", K2, 0600);
	ck_assert_int_eq(wymcp_server_load_state_keys(b, p), WYMCP_OK);
	mint(b, "ask", NULL, NULL, st);
	retry(srv, "ask", NULL, st, NULL);
	opened();
	wymcp_server_free(b);
}
END_TEST

/*
 * wymcp_server_mac(): a message MACed by one server checks on another
 * holding the same key (also as an older key), not once a byte of it
 * changed, nor under another key or another key id.
 */
START_TEST(control_mac_between_servers)
{
	struct wymcp_server	*b, *c;
	unsigned char		 kid[WYMCP_KEY_ID_LEN], mac[WYMCP_MAC_LEN];
	const char		*msg = "wymcp-control/1 1765000000\n{}";

	ck_assert_int_eq(wymcp_server_load_state_keys(srv,
	    write_file("k1", K1 "\n", 0600)), WYMCP_OK);
	b = server();
	ck_assert_int_eq(wymcp_server_load_state_keys(b,
	    write_file("k21", K2 "\n" K1 "\n", 0600)), WYMCP_OK);
	c = server();
	ck_assert_int_eq(wymcp_server_mac(srv, msg, strlen(msg), kid, mac),
	    WYMCP_OK);
	ck_assert_int_eq(wymcp_server_mac_check(srv, kid, msg, strlen(msg),
	    mac), 1);
	ck_assert_int_eq(wymcp_server_mac_check(b, kid, msg, strlen(msg),
	    mac), 1);
	/* c has its random key only. */
	ck_assert_int_eq(wymcp_server_mac_check(c, kid, msg, strlen(msg),
	    mac), 0);
	ck_assert_int_eq(wymcp_server_mac_check(b, kid, msg,
	    strlen(msg) - 1, mac), 0);
	mac[0] ^= 1;
	ck_assert_int_eq(wymcp_server_mac_check(b, kid, msg, strlen(msg),
	    mac), 0);
	mac[0] ^= 1;
	kid[0] ^= 1;
	ck_assert_int_eq(wymcp_server_mac_check(b, kid, msg, strlen(msg),
	    mac), 0);
	ck_assert_int_eq(wymcp_server_mac(NULL, msg, 1, kid, mac),
	    WYMCP_ERR_INVAL);
	wymcp_server_free(b);
	wymcp_server_free(c);
}
END_TEST

START_TEST(keyfile_loose_mode_refused)
{
	const mode_t	 modes[] = { 0644, 0640, 0604, 0660, 0602, 0610 };
	const char	*p;
	size_t		 i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		p = write_file("keys", K1 "\n", modes[i]);
		ck_assert_int_eq(wymcp_server_load_state_keys(srv, p),
		    WYMCP_ERR_STATE);
		ck_assert_msg(strstr(wymcp_server_errmsg(srv), "chmod 600") !=
		    NULL, "%s", wymcp_server_errmsg(srv));
		ck_assert(strstr(wymcp_server_errmsg(srv), p) != NULL);
	}
	p = write_file("keys", K1 "\n", 0600);
	ck_assert_int_eq(wymcp_server_load_state_keys(srv, p), WYMCP_OK);
	p = write_file("keys", K1 "\n", 0400);
	ck_assert_int_eq(wymcp_server_load_state_keys(srv, p), WYMCP_OK);
}
END_TEST

START_TEST(keyfile_malformed_line_refused_with_file_and_line)
{
	const char	*bad[] = {
		"not a key",
		K1 "0",				/* 65 digits */
		"000102030405060708090a0b0c0d0e0f"
		    "101112131415161718191a1b1c1d1e1",
		"zz0102030405060708090a0b0c0d0e0f"
		    "101112131415161718191a1b1c1d1e1f",
		"0001020304050607 8090a0b0c0d0e0f"
		    "101112131415161718191a1b1c1d1e1f",
		K1 " # trailing comment",
	};
	char		 text[512], want[PATH_MAX + 8];
	const char	*p;
	size_t		 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "# keys\n\n" K2 "\n%s\n" K1 "\n",
		    bad[i]);
		p = write_file("keys", text, 0600);
		ck_assert_int_eq(wymcp_server_load_state_keys(srv, p),
		    WYMCP_ERR_STATE);
		snprintf(want, sizeof(want), "%s:4:", p);
		ck_assert_msg(strstr(wymcp_server_errmsg(srv), want) != NULL,
		    "bad %zu: %s", i, wymcp_server_errmsg(srv));
	}
}
END_TEST

START_TEST(keyfile_without_keys_refused)
{
	const char	*texts[] = { "", "\n\n", "# only a comment\n",
			    "   \t\n# x\n" };
	const char	*p;
	size_t		 i;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		p = write_file("keys", texts[i], 0600);
		ck_assert_int_eq(wymcp_server_load_state_keys(srv, p),
		    WYMCP_ERR_STATE);
		ck_assert(strstr(wymcp_server_errmsg(srv), "no key") != NULL);
	}
	/* Missing, or not a file. */
	ck_assert_int_eq(wymcp_server_load_state_keys(srv, keypath("nope")),
	    WYMCP_ERR_STATE);
	ck_assert(strstr(wymcp_server_errmsg(srv), "nope") != NULL);
	ck_assert_int_eq(wymcp_server_load_state_keys(srv, dir),
	    WYMCP_ERR_STATE);
	ck_assert_int_eq(wymcp_server_load_state_keys(srv, NULL),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_server_load_state_keys(NULL, dir),
	    WYMCP_ERR_INVAL);
}
END_TEST

START_TEST(keyfile_with_nul_refused)
{
	/* The parser stopped at the NUL and loaded K2 alone. */
	static const char	 text[] = K2 "\n# old keys\0\nnot a key\n";
	const char		*p;
	int			 fd;

	p = write_file("keys", "", 0600);
	fd = open(p, O_WRONLY | O_TRUNC);
	ck_assert_int_ne(fd, -1);
	ck_assert_int_eq(write(fd, text, sizeof(text) - 1),
	    (ssize_t)sizeof(text) - 1);
	close(fd);
	ck_assert_int_eq(wymcp_server_load_state_keys(srv, p),
	    WYMCP_ERR_STATE);
	ck_assert_msg(strstr(wymcp_server_errmsg(srv), "NUL") != NULL, "%s",
	    wymcp_server_errmsg(srv));
}
END_TEST

START_TEST(failed_key_load_keeps_the_keys)
{
	char		 st[STATE_MAX];
	const char	*p;

	mint(srv, "ask", NULL, NULL, st);
	p = write_file("keys", K1 "\nbroken\n", 0600);
	ck_assert_int_eq(wymcp_server_load_state_keys(srv, p),
	    WYMCP_ERR_STATE);
	retry(srv, "ask", NULL, st, NULL);
	opened();
}
END_TEST

START_TEST(key_generate_creates_mode_0600)
{
	struct stat	 sb;
	char		 err[256];
	const char	*text;
	size_t		 i;

	ck_assert_int_eq(wymcp_state_key_generate(keypath("keys"), err,
	    sizeof(err)), WYMCP_OK);
	ck_assert_int_eq(stat(keypath("keys"), &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0600);
	ck_assert(S_ISREG(sb.st_mode));
	text = read_file("keys");
	ck_assert_uint_eq(strlen(text), 65);
	ck_assert_int_eq(text[64], '\n');
	for (i = 0; i < 64; i++)
		ck_assert(strchr("0123456789abcdefABCDEF", text[i]) != NULL);
	ck_assert_int_eq(wymcp_server_load_state_keys(srv, keypath("keys")),
	    WYMCP_OK);
	/* Without an error buffer. */
	ck_assert_int_eq(wymcp_state_key_generate(keypath("k2"), NULL, 0),
	    WYMCP_OK);
	ck_assert_int_eq(wymcp_state_key_generate(NULL, err, sizeof(err)),
	    WYMCP_ERR_INVAL);
}
END_TEST

START_TEST(key_generate_puts_a_new_key_first)
{
	struct stat	 sb;
	char		 err[256], first[66], two[200];
	const char	*text;

	ck_assert_int_eq(wymcp_state_key_generate(keypath("keys"), err,
	    sizeof(err)), WYMCP_OK);
	snprintf(first, sizeof(first), "%s", read_file("keys"));
	ck_assert_int_eq(wymcp_state_key_generate(keypath("keys"), err,
	    sizeof(err)), WYMCP_OK);
	text = read_file("keys");
	ck_assert_uint_eq(strlen(text), 130);
	ck_assert_str_eq(text + 65, first);
	ck_assert_int_ne(strncmp(text, first, 64), 0);
	snprintf(two, sizeof(two), "%s", text);
	ck_assert_int_eq(stat(keypath("keys"), &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0600);
	/* And again: three lines, the old ones kept in order. */
	ck_assert_int_eq(wymcp_state_key_generate(keypath("keys"), err,
	    sizeof(err)), WYMCP_OK);
	text = read_file("keys");
	ck_assert_uint_eq(strlen(text), 195);
	ck_assert_str_eq(text + 65, two);
	/* No temporary file is left behind. */
	ck_assert_int_eq(access(keypath("keys.tmp"), F_OK), -1);
	ck_assert_int_eq(wymcp_server_load_state_keys(srv, keypath("keys")),
	    WYMCP_OK);
}
END_TEST

START_TEST(key_generate_rotates_every_file_the_loader_reads)
{
	/* CRLF line ends, indentation, trailing blanks and comments. */
	const char	*text = "# keys\r\n  " K1 "\r\n\t" K2 " \r\n\r\n";
	char		 err[256];
	const char	*p, *now;

	p = write_file("keys", text, 0600);
	ck_assert_int_eq(wymcp_server_load_state_keys(srv, p), WYMCP_OK);
	err[0] = '\0';
	ck_assert_msg(wymcp_state_key_generate(p, err, sizeof(err)) ==
	    WYMCP_OK, "%s", err);
	now = read_file("keys");
	/* The new key first, the old text kept as it was after it. */
	ck_assert_uint_eq(strlen(now), 65 + strlen(text));
	ck_assert_str_eq(now + 65, text);
	ck_assert_int_eq(wymcp_server_load_state_keys(srv, p), WYMCP_OK);
}
END_TEST

START_TEST(key_generate_refuses_a_file_that_is_not_a_key_file)
{
	const char	*texts[] = { "hello\n", K1 "\nnot a key\n",
			    K1 "0\n" };
	char		 err[256];
	const char	*p;
	size_t		 i;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		p = write_file("keys", texts[i], 0600);
		err[0] = '\0';
		ck_assert_int_eq(wymcp_state_key_generate(p, err, sizeof(err)),
		    WYMCP_ERR_STATE);
		ck_assert_msg(strstr(err, p) != NULL, "%s", err);
		/* Nothing changed. */
		ck_assert_str_eq(read_file("keys"), texts[i]);
	}
	ck_assert_int_eq(wymcp_state_key_generate(keypath("no/such/dir"),
	    err, sizeof(err)), WYMCP_ERR_STATE);
	ck_assert_uint_gt(strlen(err), 0);
	ck_assert_int_eq(access(keypath("keys.tmp"), F_OK), -1);
}
END_TEST

START_TEST(key_generate_tightens_a_loose_file)
{
	struct stat	 sb;
	char		 err[256];
	const char	*p, *text;

	/* Without a final newline, and readable by all. */
	p = write_file("keys", K1, 0644);
	ck_assert_int_eq(wymcp_server_load_state_keys(srv, p),
	    WYMCP_ERR_STATE);
	ck_assert_msg(wymcp_state_key_generate(p, err, sizeof(err)) ==
	    WYMCP_OK, "%s", err);
	ck_assert_int_eq(stat(p, &sb), 0);
	ck_assert_int_eq(sb.st_mode & 0777, 0600);
	text = read_file("keys");
	ck_assert_uint_eq(strlen(text), 130);
	ck_assert_str_eq(text + 65, K1 "\n");
	ck_assert_int_eq(wymcp_server_load_state_keys(srv, p), WYMCP_OK);
}
END_TEST

static Suite *
seal_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("seal");
	tc = tcase_create("wire");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, round_trip_opens);
	tcase_add_test(tc, state_is_not_single_use);
	tcase_add_test(tc, state_without_answers_is_short);
	tcase_add_test(tc, first_round_has_no_answers);
	tcase_add_test(tc, idempotency_key_per_call);
	tcase_add_test(tc, tampered_state_refused);
	tcase_add_test(tc, truncated_state_refused);
	tcase_add_test(tc, empty_state_refused);
	tcase_add_test(tc, state_not_base64_refused);
	tcase_add_test(tc, expired_state_refused);
	tcase_add_test(tc, other_principal_refused);
	tcase_add_test(tc, other_tool_refused);
	tcase_add_test(tc, other_arguments_refused);
	tcase_add_test(tc, reordered_arguments_still_open);
	tcase_add_test(tc, other_mount_set_refused);
	tcase_add_test(tc, unknown_key_refused);
	tcase_add_test(tc, rotated_key_opens_old_states);
	tcase_add_test(tc, servers_sharing_a_key_file_share_states);
	tcase_add_test(tc, control_mac_between_servers);
	suite_add_tcase(s, tc);

	tc = tcase_create("keyfile");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, keyfile_loose_mode_refused);
	tcase_add_test(tc, keyfile_malformed_line_refused_with_file_and_line);
	tcase_add_test(tc, keyfile_without_keys_refused);
	tcase_add_test(tc, keyfile_with_nul_refused);
	tcase_add_test(tc, failed_key_load_keeps_the_keys);
	tcase_add_test(tc, key_generate_creates_mode_0600);
	tcase_add_test(tc, key_generate_puts_a_new_key_first);
	tcase_add_test(tc, key_generate_rotates_every_file_the_loader_reads);
	tcase_add_test(tc,
	    key_generate_refuses_a_file_that_is_not_a_key_file);
	tcase_add_test(tc, key_generate_tightens_a_loose_file);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	sr = srunner_create(seal_suite());
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
