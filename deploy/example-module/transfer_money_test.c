/* transfer_money_test.c - transfer_money's tests, through libwymcp-testing */
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"

static char	 ledger[] = "/tmp/transfer_money_test.XXXXXX";

/* The entries in the ledger; the first one's record in rec. */
static int
entries(char *rec, size_t len)
{
	DIR		*d;
	struct dirent	*e;
	char		 path[PATH_MAX];
	ssize_t		 n;
	int		 k = 0;

	rec[0] = '\0';
	if ((d = opendir(ledger)) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", ledger, e->d_name);
		if (k++ == 0 && (n = readlink(path, rec, len - 1)) >= 0)
			rec[n] = '\0';
	}
	closedir(d);
	return k;
}

/* Empty the ledger. */
static void
wipe(void)
{
	DIR		*d;
	struct dirent	*e;
	char		 path[PATH_MAX];

	if ((d = opendir(ledger)) == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", ledger,
			    e->d_name);
			unlink(path);
		}
	closedir(d);
}

/* Answers: the account (or decline/cancel), then the confirmation. */
static const char *
answer(void *arg, const char *key, struct json_object *request)
{
	const char *const	*a = arg;

	(void)request;
	return strcmp(key, "elicit-1") == 0 ? a[0] : a[1];
}

#define PICK(acc)	"{\"action\":\"accept\",\"content\":{\"choice\":\"" \
			    acc "\"}}"
#define YES		"{\"action\":\"accept\",\"content\":{}}"
#define NO		"{\"action\":\"decline\"}"
#define CANCEL		"{\"action\":\"cancel\"}"
#define ARGS		"{\"to\":\"bob\",\"cents\":1234}"

int
main(void)
{
	struct wymcp_testing_opts	 o = {
	    .meta = WYMCP_TESTING_META_ELICIT };
	struct wymcp_testing_round	 r;
	struct wymcp_ctx		*ctx;
	const char			*yes[] = { PICK("savings"), YES };
	const char			*no[] = { PICK("checking"), NO };
	const char			*cancel[] = { CANCEL, YES };
	char				 rec[128];

	if (mkdtemp(ledger) == NULL || setenv("TRANSFER_LEDGER", ledger, 1))
		return 1;
	if ((ctx = context(&o)) == NULL)
		return 1;
	/* Round by round: the first asks which account, and writes nothing. */
	CHECK(wymcp_testing_run_tool(ctx, wymcp_ctx_tool(ctx, 0), ARGS, &r) ==
	    WYMCP_OK && r.kind == WYMCP_TESTING_INPUT_REQUIRED);
	CHECK(r.message != NULL && strcmp(r.message, "From which account?") ==
	    0 && r.schema != NULL && strcmp(json_object_to_json_string_ext(
	    r.schema, JSON_C_TO_STRING_PLAIN), "{\"type\":\"object\","
	    "\"properties\":{\"choice\":{\"type\":\"string\",\"enum\":"
	    "[\"checking\",\"savings\"]}},\"required\":[\"choice\"]}") == 0);
	wymcp_testing_answer(ctx, "elicit-1", PICK("savings"));
	CHECK(wymcp_testing_run_tool(ctx, wymcp_ctx_tool(ctx, 0), ARGS, &r) ==
	    WYMCP_OK && r.kind == WYMCP_TESTING_INPUT_REQUIRED &&
	    strcmp(r.message, "Send 12.34 to bob from savings?") == 0);
	CHECK(entries(rec, sizeof(rec)) == 0);
	/* The last round writes once; the same round again writes nothing. */
	wymcp_testing_answer(ctx, "elicit-2", YES);
	CHECK(wymcp_testing_run_tool(ctx, wymcp_ctx_tool(ctx, 0), ARGS, &r) ==
	    WYMCP_OK && r.kind == WYMCP_TESTING_COMPLETE && !r.is_error &&
	    strcmp(r.text, "Sent 12.34 to bob from savings.") == 0);
	CHECK(wymcp_testing_run_tool(ctx, wymcp_ctx_tool(ctx, 0), ARGS, &r) ==
	    WYMCP_OK && r.kind == WYMCP_TESTING_COMPLETE);
	CHECK(entries(rec, sizeof(rec)) == 1 &&
	    strcmp(rec, "savings bob 1234") == 0);
	wipe();
	/* A whole call through the request pipeline: three requests. */
	CHECK(wymcp_testing_call_tool(ctx, "transfer_money", ARGS, answer,
	    yes, &r) == WYMCP_OK && r.kind == WYMCP_TESTING_COMPLETE &&
	    r.rounds == 3 && strcmp(r.text, "Sent 12.34 to bob from savings.")
	    == 0);
	CHECK(entries(rec, sizeof(rec)) == 1);
	wipe();
	/* Declined at the second question, cancelled at the first. */
	CHECK(wymcp_testing_call_tool(ctx, "transfer_money", ARGS, answer,
	    no, &r) == WYMCP_OK && r.kind == WYMCP_TESTING_COMPLETE &&
	    !r.is_error && strcmp(r.text, "Nothing was sent.") == 0);
	CHECK(wymcp_testing_call_tool(ctx, "transfer_money", ARGS, answer,
	    cancel, &r) == WYMCP_OK && r.rounds == 2 &&
	    strcmp(r.text, "Nothing was sent.") == 0);
	CHECK(entries(rec, sizeof(rec)) == 0);
	/* An account not offered is refused before the tool sees it. */
	no[0] = PICK("offshore");
	CHECK(wymcp_testing_call_tool(ctx, "transfer_money", ARGS, answer,
	    no, &r) == WYMCP_OK && r.kind == WYMCP_TESTING_INVALID);
	wymcp_testing_free_context(ctx);
	/* A client that cannot be asked: a tool error, nothing written. */
	o.meta = WYMCP_TESTING_META_NONE;
	if ((ctx = context(&o)) == NULL)
		return 1;
	CHECK(wymcp_testing_call_tool(ctx, "transfer_money", ARGS, answer,
	    yes, &r) == WYMCP_OK && r.kind == WYMCP_TESTING_COMPLETE &&
	    r.is_error && entries(rec, sizeof(rec)) == 0);
	wymcp_testing_free_context(ctx);
	wipe();
	rmdir(ledger);
	return done("transfer_money_test");
}
