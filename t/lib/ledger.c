/*
 * ledger.c - a tool that leaves a trace of every run, for the task
 * store fault test only
 *
 * Never installed (check_LTLIBRARIES): t/e2e/e2e_store.py loads it to
 * prove that a task survives its store going away and its runners
 * dying, and that a tool which finished is not run again.  One tool:
 *
 *	ledger	asks args.questions (0 to 3) form questions ("Confirm
 *		step K?", a boolean), then works args.ms milliseconds in
 *		50 ms steps, looking at wymcp_cancelled() at each (which
 *		renews a task's lease), then, in its final step, appends
 *		to the file named by $WYMCP_TEST_LEDGER, under flock(2):
 *
 *			run KEY PID ID		every time it gets there
 *			write KEY PID ID	the first time for KEY only
 *
 *		and answers "ledger ID written", or "ledger ID already
 *		written" when KEY had its write line already.  KEY is
 *		wymcp_idempotency_key(): the same for every round and
 *		every replay of one call and for every run of one task.
 *		A declined, cancelled or unconfirmed question, or a run
 *		cancelled during the work, ends with a text saying so
 *		and writes nothing.  args.pad, a string of any
 *		length, is not read: it makes a task as large as a test
 *		needs (t/e2e/e2e_quota.py).
 *
 * The test reads the file: one write line per KEY (the effect happened
 * once), and a run line followed by another of the same KEY only from a
 * runner it killed (a tool that finished is not run again).
 */
#include <sys/types.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <wymcp.h>

#define STEP_MS		50		/* work between two looks */
#define LEDGER_MAX	(16L * 1024 * 1024)	/* a test's file, at most */
#define ID_MAX		64

static const char confirm_schema[] = WYMCP_JSON({ "type": "object",
    "properties": { "confirm": { "type": "boolean", "title": "Confirm" } },
    "required": ["confirm"] });

static void
sleep_ms(long ms)
{
	struct timespec	 ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		continue;
}

/* An id fit for a ledger line: [A-Za-z0-9_.-], 1 to ID_MAX. */
static int
id_ok(const char *id)
{
	size_t	 n = strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_.-");

	return n > 0 && n <= ID_MAX && id[n] == '\0';
}

/* Write all of buf at the end of fd (O_APPEND); 0 or -1. */
static int
put(int fd, const char *buf, size_t len)
{
	ssize_t	 n;

	while (len > 0) {
		if ((n = write(fd, buf, len)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Append the line "WORD KEY PID ID"; 0 or -1. */
static int
putline(int fd, const char *word, const char *key, const char *id)
{
	char	 line[512];
	int	 n;

	n = snprintf(line, sizeof(line), "%s %s %ld %s\n", word, key,
	    (long)getpid(), id);
	if (n < 0 || (size_t)n >= sizeof(line)) {
		errno = EOVERFLOW;
		return -1;
	}
	return put(fd, line, (size_t)n);
}

/*
 * Whether fd (locked) holds a line "write KEY ...": 1, 0, or -1 when it
 * cannot be read.
 */
static int
written(int fd, const char *key)
{
	struct stat	 st;
	char		*buf = NULL, *p, *nl;
	size_t		 klen = strlen(key);
	off_t		 off = 0;
	ssize_t		 n;
	int		 rc = -1;

	if (fstat(fd, &st) == -1)
		goto out;
	if (st.st_size > LEDGER_MAX) {
		errno = EFBIG;
		goto out;
	}
	if ((buf = malloc((size_t)st.st_size + 1)) == NULL)
		goto out;
	while (off < st.st_size) {
		n = pread(fd, buf + off, (size_t)(st.st_size - off), off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == 0)
			errno = EIO;	/* shorter than fstat(2) said */
		if (n <= 0)
			goto out;
		off += n;
	}
	buf[off] = '\0';
	rc = 0;
	for (p = buf; *p != '\0'; p = nl + 1) {
		if (strncmp(p, "write ", 6) == 0 &&
		    strncmp(p + 6, key, klen) == 0 && p[6 + klen] == ' ') {
			rc = 1;
			break;
		}
		if ((nl = strchr(p, '\n')) == NULL)
			break;
	}
out:
	free(buf);
	return rc;
}

/*
 * The final step: the run line, then the write line unless KEY has
 * one; *already says which.  0, or -1 with *why naming the step that
 * failed and errno set.
 */
static int
record(const char *path, const char *key, const char *id, int *already,
    const char **why)
{
	int	 fd, saved, rc = -1;

	*why = NULL;
	if ((fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC,
	    0644)) == -1) {
		*why = "open";
		return -1;
	}
	if (flock(fd, LOCK_EX) == -1) {
		*why = "flock";
		goto out;
	}
	if (putline(fd, "run", key, id) == -1) {
		*why = "write";
		goto out;
	}
	if ((*already = written(fd, key)) == -1) {
		*why = "read";
		goto out;
	}
	if (!*already && putline(fd, "write", key, id) == -1) {
		*why = "write";
		goto out;
	}
	rc = 0;
out:
	/* Closing lets go of the lock. */
	saved = errno;
	(void)close(fd);
	errno = saved;
	return rc;
}

static enum wymcp_err
ledger_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;
	const char		*id, *key, *path, *act, *why;
	enum wymcp_err		 rc;
	int			 k, questions, ms, left, already = 0;

	id = wymcp_arg_str(args, "id", "");
	/* The schema bounds them: an int holds them. */
	questions = (int)wymcp_arg_int(args, "questions", 0);
	ms = (int)wymcp_arg_int(args, "ms", 0);
	if (!id_ok(id))
		return wymcp_result_error(res, "ledger: the id must be 1 to "
		    "%d of [A-Za-z0-9_.-]", ID_MAX);

	/* Ask first: nothing before the last answer has an effect. */
	for (k = 1; k <= questions; k++) {
		rc = wymcp_elicit(ctx, wymcp_printf(ctx, "Confirm step %d?",
		    k), confirm_schema, &a);
		if (rc == WYMCP_ERR_NOTSUP)
			return wymcp_result_error(res, "ledger %s: this "
			    "client cannot be asked (form elicitation)", id);
		if (rc != WYMCP_OK)
			return rc;
		act = wymcp_answer_action(a);
		if (act == NULL || strcmp(act, "accept") != 0)
			return wymcp_result_text(res, "ledger %s: step %d "
			    "%s; nothing written", id, k,
			    act != NULL && strcmp(act, "decline") == 0 ?
			    "declined" : "cancelled");
		if (!wymcp_arg_bool(wymcp_answer_content(a), "confirm", 0))
			return wymcp_result_text(res, "ledger %s: step %d "
			    "not confirmed; nothing written", id, k);
	}

	for (left = ms; left > 0; left -= STEP_MS) {
		if (wymcp_cancelled(ctx))
			return wymcp_result_error(res, "ledger %s: cancelled "
			    "after %d ms; nothing written", id, ms - left);
		sleep_ms(left < STEP_MS ? left : STEP_MS);
	}
	if (wymcp_cancelled(ctx))
		return wymcp_result_error(res, "ledger %s: cancelled; "
		    "nothing written", id);

	if ((path = getenv("WYMCP_TEST_LEDGER")) == NULL || *path == '\0')
		return wymcp_result_error(res, "ledger %s: WYMCP_TEST_LEDGER "
		    "is not set", id);
	if ((key = wymcp_idempotency_key(ctx)) == NULL || *key == '\0')
		return wymcp_result_error(res, "ledger %s: no idempotency "
		    "key", id);
	if (record(path, key, id, &already, &why) == -1)
		return wymcp_result_error(res, "ledger %s: %s %s: %s", id,
		    why, path, strerror(errno));
	return wymcp_result_text(res, "ledger %s %s", id,
	    already ? "already written" : "written");
}

static const struct wymcp_tool tools[] = {
	{
		.name = "ledger",
		.description = "Asks `questions' confirmations, works `ms' "
		    "milliseconds, then records its run (and, once per "
		    "idempotency key, a write) in $WYMCP_TEST_LEDGER.",
		.input_schema = WYMCP_JSON({ "type": "object",
		    "properties": {
		    "id": { "type": "string", "minLength": 1,
		    "maxLength": 64 },
		    "questions": { "type": "integer", "minimum": 0,
		    "maximum": 3, "default": 0 },
		    "ms": { "type": "integer", "minimum": 0,
		    "maximum": 10000, "default": 0 },
		    "pad": { "type": "string" } },
		    "required": ["id"], "additionalProperties": false }),
		.run = ledger_run,
		/* A client that declares the extension gets a task. */
		.task_support = WYMCP_TASK_OPTIONAL,
	},
	{ .name = NULL }
};

WYMCP_MODULE("ledger", tools);
