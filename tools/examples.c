/*
 * examples.c - tools that ask the user questions (elicitation over Multi
 * Round-Trip Requests), written the way the re-execution rule wants.
 *
 * book_room asks two questions, then acts: its body runs three times
 * (once per round) and only the third run, which has both answers,
 * writes anything.  purge_cache asks for confirmation and takes decline
 * and cancel as answers.
 *
 * count_slowly shows progress and cancellation: it reports progress at
 * every step (the response becomes an SSE stream when the client sent a
 * progressToken), logs each step (sent to clients that asked with
 * _meta logLevel debug), and stops as soon as wymcp_progress() says the
 * client went away.
 *
 * write_note keeps notes as files in a directory ($WYMCP_NOTES_DIR, else
 * systemd's $STATE_DIRECTORY/notes, else the first of
 * /var/lib/wymcp/notes, ~/.local/state/wymcp/notes and
 * /tmp/wymcp-notes-UID that it can make and write: see notes_dir()),
 * and note://{name} reads them back;
 * writing one says so to the listen streams subscribed to its URI
 * (notifications/resources/updated) and, for a new name, to those that
 * follow the resource list (resources/list_changed).
 *
 * The booking form is an MCP App too (io.modelcontextprotocol/ui):
 * ui://examples/book-room is tools/apps/book_room.html, compiled in
 * (tools/book_room_html.h, made from it at build time), so nothing has
 * to be installed beside the module; book_room names it in its
 * _meta.ui, so that a host that renders apps shows the form with the
 * tool, and the form books through reserve_room, a tool only the app
 * may call (visibility ["app"]: clients without the extension never
 * see it).
 *
 * The metadata of 0.4 shows here too: icons (a data: PNG, so that
 * nothing needs the network, and an https: one with sizes and a
 * theme), a _meta of the module's own prefix, the template's
 * annotations, and the module's instructions for the model.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <wymcp.h>

/* BOOK_ROOM_HTML: tools/apps/book_room.html as a string literal. */
#include "book_room_html.h"

static const char room_schema[] = WYMCP_JSON({ "type": "object",
    "properties": { "room": { "type": "string", "title": "Room",
    "enum": ["Aurora", "Borealis", "Cirrus"] } }, "required": ["room"] });
static const char size_schema[] = WYMCP_JSON({ "type": "object",
    "properties": { "people": { "type": "integer", "title": "People",
    "minimum": 1, "maximum": 20 } }, "required": ["people"] });
static const char confirm_schema[] = WYMCP_JSON({ "type": "object",
    "properties": { "confirm": { "type": "boolean", "title": "Purge now",
    "default": false } }, "required": ["confirm"] });

/*
 * Ask first, then write.  Everything before the last answer is free of
 * side effects; the booking is recorded (here: logged) exactly once.
 */
static enum wymcp_err
book_room_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a, *c;
	const char		*day, *room;
	int			 people;
	enum wymcp_err		 rc;

	/* The schemas require every value read: no default is used. */
	day = wymcp_arg_str(args, "day", "");

	rc = wymcp_elicit(ctx, "Which room would you like?", room_schema, &a);
	if (rc == WYMCP_ERR_NOTSUP)
		return wymcp_result_error(res, "This tool needs a client that "
		    "can ask the user questions (form elicitation).");
	if (rc != WYMCP_OK)
		return rc;
	if ((c = wymcp_answer_content(a)) == NULL)
		return wymcp_result_text(res,
		    "No room chosen; nothing was booked.");
	room = wymcp_arg_str(c, "room", "");

	if ((rc = wymcp_elicit(ctx, "How many people?", size_schema, &a)) !=
	    WYMCP_OK)
		return rc;
	if ((c = wymcp_answer_content(a)) == NULL)
		return wymcp_result_text(res,
		    "No size given; nothing was booked.");
	/* Its schema bounds it to 1..20: an int holds it. */
	people = wymcp_arg_int(c, "people", 1);

	/* Both answers are in: the write happens once, in the last round. */
	/*
	 * The principal is the caller's own name: a client that asks for
	 * log lines (logLevel) sees only its own (wymcp_log(3)).
	 */
	wymcp_log(ctx, WYMCP_LOG_INFO, "booked %s for %d on %s (by %s)",
	    room, people, day, wymcp_ctx_principal(ctx) != NULL ?
	    wymcp_ctx_principal(ctx) : "anonymous");
	return wymcp_result_text(res, "Booked %s for %d on %s.", room, people,
	    day);
}

/*
 * The app's way to book: everything comes in the arguments (the form
 * asked the user), so nothing is asked here.  Its text is what the app
 * shows.
 */
static enum wymcp_err
reserve_room_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	const char	*day, *room;
	int64_t		 people;

	day = wymcp_arg_str(args, "day", "");
	room = wymcp_arg_str(args, "room", "");
	/* Its schema bounds it to 1..20. */
	people = wymcp_arg_int(args, "people", 1);
	wymcp_log(ctx, WYMCP_LOG_INFO, "booked %s for %d on %s from the app "
	    "(by %s)", room, (int)people, day, wymcp_ctx_principal(ctx) !=
	    NULL ? wymcp_ctx_principal(ctx) : "anonymous");
	return wymcp_result_text(res, "Booked %s for %d on %s.", room,
	    (int)people, day);
}

/* Decline and cancel are answers: the tool returns, nothing is done. */
static enum wymcp_err
purge_cache_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*a;
	const char		*act;
	enum wymcp_err		 rc;

	rc = wymcp_elicit(ctx, "Purge the whole cache? This cannot be "
	    "undone.", confirm_schema, &a);
	if (rc == WYMCP_ERR_NOTSUP)
		return wymcp_result_error(res, "Refusing to purge without "
		    "asking: this client cannot ask the user.");
	if (rc != WYMCP_OK)
		return rc;
	act = wymcp_answer_action(a);
	if (strcmp(act, "decline") == 0)
		return wymcp_result_text(res,
		    "You declined; the cache was left alone.");
	if (strcmp(act, "cancel") == 0)
		return wymcp_result_text(res,
		    "Cancelled; the cache was left alone.");
	if (!wymcp_arg_bool(wymcp_answer_content(a), "confirm", 0))
		return wymcp_result_text(res,
		    "Not confirmed; the cache was left alone.");
	wymcp_log(ctx, WYMCP_LOG_INFO, "cache purged");
	return wymcp_result_text(res, "Cache purged.");
}

/* Sleep `ms` milliseconds, resuming after a signal. */
static void
sleep_ms(int ms)
{
	struct timespec	 ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		continue;
}

/*
 * Count from 1 to `to`, one step every `delay_ms`.  Each step reports
 * progress i of to; a client that closes the connection cancels the
 * call (basic/patterns/cancellation.mdx), which the next
 * wymcp_progress() reports as WYMCP_ERR_IO: stop there, nothing more
 * reaches the client.  Log lines go to the server's log and, when the
 * request asked for them, to the client: keep secrets out of them.
 */
static enum wymcp_err
count_slowly_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	enum wymcp_err		 rc;
	int			 i, to, delay;

	/* The schema caps them at 100 and 1000: an int holds them. */
	to = wymcp_arg_int(args, "to", 10);
	delay = wymcp_arg_int(args, "delay_ms", 100);

	for (i = 1; i <= to; i++) {
		if (i > 1 && delay > 0)
			sleep_ms(delay);
		wymcp_log(ctx, WYMCP_LOG_DEBUG, "count_slowly: step %d of %d",
		    i, to);
		rc = wymcp_progress(ctx, i, to, wymcp_printf(ctx,
		    "Counted %d of %d", i, to));
		if (rc == WYMCP_ERR_IO) {
			wymcp_log(ctx, WYMCP_LOG_INFO, "count_slowly: the "
			    "client went away after %d of %d steps; "
			    "stopping", i, to);
			return wymcp_result_error(res, "Cancelled after %d "
			    "of %d steps.", i, to);
		}
		if (rc != WYMCP_OK)
			return wymcp_result_error(res, "Progress failed: %s",
			    wymcp_strerror(rc));
	}
	return wymcp_result_text(res, "Counted to %d.", to);
}

#define NOTE_MAX	(4 * 65536)	/* bytes of a note: 65536 characters */

/*
 * 0 when `dir' is a directory this process may write in; with `make',
 * create it and the directories missing above it (mode 0700) first.
 */
static int
make_dir(const char *dir, int make)
{
	char	 p[400], *s;

	if (make && access(dir, F_OK) != 0) {
		if (strlen(dir) >= sizeof(p)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		strcpy(p, dir);
		for (s = p + 1; (s = strchr(s, '/')) != NULL; s++) {
			*s = '\0';
			if (mkdir(p, 0700) != 0 && errno != EEXIST)
				return -1;
			*s = '/';
		}
		if (mkdir(p, 0700) != 0 && errno != EEXIST)
			return -1;
	}
	errno = 0;
	return access(dir, W_OK | X_OK);
}

/*
 * The notes' directory, created (mode 0700) when `make' is set and it
 * is missing: $WYMCP_NOTES_DIR, or $STATE_DIRECTORY/notes (systemd's
 * StateDirectory=), as given; else the first of /var/lib/wymcp/notes,
 * $XDG_STATE_HOME/wymcp/notes (default ~/.local/state) and
 * $TMPDIR/wymcp-notes-UID (default /tmp; taken only when it is ours
 * and no one else's) that this process can write, into dir.  0, or
 * -1 with errno when none can be had.
 */
static int
notes_dir(char *dir, size_t len, int make)
{
	const char	*d = getenv("WYMCP_NOTES_DIR"), *h;
	struct stat	 st;

	/* Given: that one or nothing. */
	if (d != NULL && *d != '\0')
		return snprintf(dir, len, "%s", d) < (int)len ?
		    make_dir(dir, make) : -1;
	/* systemd's StateDirectory= (several: separated by ':'). */
	if ((d = getenv("STATE_DIRECTORY")) != NULL && *d != '\0')
		return snprintf(dir, len, "%.*s/notes", (int)strcspn(d, ":"),
		    d) < (int)len ? make_dir(dir, make) : -1;
	snprintf(dir, len, "/var/lib/wymcp/notes");
	if (make_dir(dir, make) == 0)
		return 0;
	if ((h = getenv("XDG_STATE_HOME")) != NULL && *h == '/')
		d = "wymcp/notes";
	else {
		h = getenv("HOME");
		d = ".local/state/wymcp/notes";
	}
	if (h != NULL && *h == '/' && snprintf(dir, len, "%s/%s", h, d) <
	    (int)len && make_dir(dir, make) == 0)
		return 0;
	/* In a shared directory: only one of our own, 0700, no link. */
	d = getenv("TMPDIR");
	snprintf(dir, len, "%s/wymcp-notes-%lu", d != NULL && *d == '/' ?
	    d : "/tmp", (unsigned long)geteuid());
	if (make_dir(dir, make) != 0)
		return -1;
	if (lstat(dir, &st) != 0)
		return -1;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 077) != 0) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

/*
 * The file of note `name' into buf (its directory made first when
 * `make' is set): 0, -1 for a name not allowed, -2 (errno set) when
 * there is no directory for notes.
 */
static int
note_path(const char *name, char *buf, size_t len, int make)
{
	size_t	 n = strlen(name);
	char	 dir[400];

	/* The schema's pattern, again: no path can be named. */
	if (n == 0 || n > 64 || strspn(name, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != n)
		return -1;
	if (notes_dir(dir, sizeof(dir), make) != 0) {
		if (errno == 0)
			errno = ENAMETOOLONG;
		return -2;
	}
	if ((size_t)snprintf(buf, len, "%s/%s.txt", dir, name) >= len) {
		errno = ENAMETOOLONG;
		return -2;
	}
	return 0;
}

/*
 * Write a note (a new file replaces the old one whole: written beside
 * it, then renamed), and say that it changed.
 */
static enum wymcp_err
write_note_run(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	const char	*name = wymcp_arg_str(args, "name", "");
	const char	*text = wymcp_arg_str(args, "text", "");
	char		 path[512], tmp[600];
	size_t		 len = strlen(text);
	int		 fd, fresh, rc;

	if ((rc = note_path(name, path, sizeof(path), 1)) == -1)
		return wymcp_result_error(res, "A note's name is 1 to 64 "
		    "letters, digits, '_' or '-'.");
	if (rc != 0)
		return wymcp_result_error(res, "The note could not be "
		    "written: no directory for notes (WYMCP_NOTES_DIR): %s",
		    strerror(errno));
	fresh = access(path, F_OK) != 0;
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0640)) == -1)
		return wymcp_result_error(res, "The note could not be "
		    "written: %s", strerror(errno));
	if (write(fd, text, len) != (ssize_t)len || fsync(fd) != 0 ||
	    close(fd) != 0 || rename(tmp, path) != 0) {
		(void)unlink(tmp);
		return wymcp_result_error(res, "The note could not be "
		    "written: %s", strerror(errno));
	}
	(void)wymcp_notify_resource_updated(ctx, wymcp_printf(ctx,
	    "note://%s", name));
	if (fresh)
		(void)wymcp_notify_list_changed(ctx, WYMCP_LIST_RESOURCES);
	return wymcp_result_text(res, "Note %s %s (%zu bytes).", name,
	    fresh ? "written" : "replaced", len);
}

/* note://{name}: the note's text. */
static enum wymcp_err
note_read(struct wymcp_ctx *ctx, const char *uri, struct json_object *vars,
    struct wymcp_resource_result *res)
{
	char		 path[512], *buf;
	ssize_t		 n;
	int		 fd;

	if (note_path(wymcp_arg_str(vars, "name", ""), path,
	    sizeof(path), 0) != 0 || (fd = open(path, O_RDONLY | O_CLOEXEC)) ==
	    -1)
		return WYMCP_ERR_NOTFOUND;
	if ((buf = wymcp_alloc(ctx, NOTE_MAX + 1)) == NULL) {
		close(fd);
		return WYMCP_ERR_NOMEM;
	}
	n = read(fd, buf, NOTE_MAX);
	close(fd);
	if (n < 0)
		return WYMCP_ERR_NOTFOUND;
	buf[n] = '\0';
	return wymcp_contents_text(res, uri, "text/plain", buf);
}

/* A 1x1 PNG, as a data: URI: an icon that needs no network. */
#define DOT_PNG	"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB" \
	"CAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="

static const struct wymcp_resource templates[] = {
	{
		.uri = "note://{name}",
		.name = "note",
		.title = "A note",
		.description = "A note written with write_note.",
		.mime = "text/plain",
		.read = note_read,
		.icons = "[{\"src\":\"" DOT_PNG "\",\"mimeType\":"
		    "\"image/png\",\"sizes\":[\"1x1\"]}]",
		.meta = WYMCP_JSON({ "org.wymcp.examples/kind": "note" }),
		.annotations = WYMCP_JSON({ "audience": ["user",
		    "assistant"], "priority": 0.5 }),
	},
	{ .uri = NULL }
};

/* MCP Apps: the booking form (apps.mdx "UI Resource Format"). */
static const struct wymcp_resource resources[] = {
	{
		.uri = "ui://examples/book-room",
		.name = "book_room_form",
		.title = "Book a room",
		.description = "A form that books a meeting room (an MCP "
		    "App: book_room's view, booking through reserve_room).",
		.mime = WYMCP_APP_MIME,
		.text = BOOK_ROOM_HTML,
		.meta = WYMCP_JSON({ "ui": { "csp": {},
		    "prefersBorder": true } }),
	},
	{ .uri = NULL }
};

static const struct wymcp_tool tools[] = {
	{
		.name = "book_room",
		.title = "Book a room",
		.description = "Books a meeting room for a day. Asks the "
		    "user which room and for how many people.",
		.input_schema = WYMCP_JSON({ "type": "object",
		    "properties": { "day": { "type": "string",
		    "description": "The day, e.g. 2026-12-01." } },
		    "required": ["day"], "additionalProperties": false }),
		.run = book_room_run,
		/* With a task store, a client may take it as a task. */
		.task_support = WYMCP_TASK_OPTIONAL,
		.icons = "[{\"src\":\"" DOT_PNG "\",\"mimeType\":"
		    "\"image/png\",\"sizes\":[\"1x1\"]}]",
		.meta = WYMCP_JSON({ "ui": { "resourceUri":
		    "ui://examples/book-room" } }),
	},
	{
		.name = "reserve_room",
		.title = "Reserve a room",
		.description = "Books a meeting room with no questions: the "
		    "day, the room and the number of people. Called by the "
		    "book_room form (an MCP App), not by the model.",
		.input_schema = WYMCP_JSON({ "type": "object",
		    "properties": {
			"day": { "type": "string",
			    "description": "The day, e.g. 2026-12-01." },
			"room": { "type": "string",
			    "enum": ["Aurora", "Borealis", "Cirrus"] },
			"people": { "type": "integer", "minimum": 1,
			    "maximum": 20 } },
		    "required": ["day", "room", "people"],
		    "additionalProperties": false }),
		.run = reserve_room_run,
		.meta = WYMCP_JSON({ "ui": { "resourceUri":
		    "ui://examples/book-room", "visibility": ["app"] } }),
	},
	{
		.name = "purge_cache",
		.title = "Purge the cache",
		.description = "Empties the cache after asking the user to "
		    "confirm.",
		.input_schema = WYMCP_JSON({ "type": "object",
		    "additionalProperties": false }),
		.annotations = WYMCP_JSON({ "destructiveHint": true }),
		.run = purge_cache_run,
	},
	{
		.name = "count_slowly",
		.title = "Count slowly",
		.description = "Counts from 1 to `to`, waiting `delay_ms` "
		    "between steps, and reports progress at every step. "
		    "Closing the connection stops it.",
		.input_schema = WYMCP_JSON({ "type": "object",
		    "properties": {
			"to": { "type": "integer", "minimum": 1,
			    "maximum": 100, "default": 10,
			    "description": "The number to count to." },
			"delay_ms": { "type": "integer", "minimum": 0,
			    "maximum": 1000, "default": 100,
			    "description": "Milliseconds between steps." } },
		    "additionalProperties": false }),
		.annotations = WYMCP_JSON({ "readOnlyHint": true }),
		.run = count_slowly_run,
		.icons = WYMCP_JSON([{ "src":
		    "https://wymcp.example/icons/count.svg",
		    "mimeType": "image/svg+xml", "sizes": ["any"],
		    "theme": "light" }]),
	},
	{
		.name = "write_note",
		.title = "Write a note",
		.description = "Writes a note (note://NAME), replacing one of "
		    "the same name. Listeners subscribed to it hear of it.",
		.input_schema = WYMCP_JSON({ "type": "object",
		    "properties": {
			"name": { "type": "string",
			    "pattern": "^[A-Za-z0-9_-]{1,64}$",
			    "description": "The note's name." },
			"text": { "type": "string", "maxLength": 65536,
			    "description": "What it says." } },
		    "required": ["name", "text"],
		    "additionalProperties": false }),
		.run = write_note_run,
		.meta = WYMCP_JSON({ "org.wymcp.examples/writes":
		    "note://{name}" }),
	},
	{ .name = NULL }
};

WYMCP_MODULE_DEFINE(.name = "examples", .tools = tools,
    .resources = resources, .templates = templates,
    .instructions = "book_room and purge_cache ask the user before they "
    "act; write_note keeps notes that note://NAME reads back.");
