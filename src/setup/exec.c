/*
 * exec.c - exec tool manifests: a program declared as a tool
 * (wymcp-exec(5))
 *
 * A manifest is one JSON object, DIR/<name>.json, the file name being
 * the tool's name.  It declares what a C tool declares (title,
 * description, schemas, annotations, icons, _meta, scopes, required
 * client capabilities, task support) and how to run the program: its
 * argv, time limit, environment, resource limits and the paths it may
 * read and write.  It is parsed strictly, once at load: an unknown
 * member, a value of the wrong type or out of range refuses it, naming
 * the member and why (the caller adds the file).  Parsing is pure
 * (wymcp__exec_parse(), the fuzz target's); what touches the file
 * system (the program's path, the paths, the user) is resolved after
 * (wymcp__exec_resolve()).  The run is core/exec.c's.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "setup/setup.h"

#define EXEC_ARGS	256		/* command's elements, at most */
#define EXEC_NAMES	64		/* env names, paths of each kind */
#define EXEC_TIMEOUT_MAX 86400		/* seconds */

/* The defaults of "limits" (wymcp-exec(5)). */
static const struct wymcp__exec_limits defaults = {
	512LL << 20,	/* memory */
	0,		/* cpu: the timeout, rounded up, plus 1 */
	32,		/* processes */
	1LL << 20,	/* output */
	64,		/* files */
	64LL << 20	/* file_size */
};

enum { T_NAME, T_TITLE, T_DESC, T_IN, T_OUT, T_ANN, T_CAPS, T_SCOPES,
	T_ICONS, T_META, T_RATE };

/* A failure: "member: why". */
static int
fail(char *err, size_t errlen, const char *member, const char *why)
{
	snprintf(err, errlen, "%.64s: %s", member, why);
	return -1;
}

/*
 * A size: a whole number of bytes, or a string of digits with an
 * optional K, M or G (powers of 1024).  -1 when it is not one, or is
 * not between 1 and max.
 */
long long
wymcp__exec_size(const char *s, long long max)
{
	long long	 v = 0, mul = 1;
	const char	*p;

	if (s == NULL || !isdigit((unsigned char)*s))
		return -1;
	for (p = s; isdigit((unsigned char)*p); p++) {
		if (v > (LLONG_MAX - 9) / 10)
			return -1;
		v = v * 10 + (*p - '0');
	}
	switch (*p) {
	case 'K': mul = 1LL << 10; p++; break;
	case 'M': mul = 1LL << 20; p++; break;
	case 'G': mul = 1LL << 30; p++; break;
	default: break;
	}
	if (*p != '\0' || v == 0 || v > max / mul)
		return -1;
	return v * mul;
}

/* A limit member: an integer 1..max, or a size string when `size'. */
static int
limit(struct json_object *v, int size, long long max, long long *out)
{
	int64_t	 n;

	if (json_object_is_type(v, json_type_int)) {
		n = json_object_get_int64(v);
		if (n < 1 || n > max)
			return -1;
		*out = n;
		return 0;
	}
	if (!size || !json_object_is_type(v, json_type_string))
		return -1;
	return (*out = wymcp__exec_size(json_object_get_string(v), max)) < 0 ?
	    -1 : 0;
}

static int
parse_limits(struct json_object *o, struct wymcp__exec_limits *l,
    char *err, size_t errlen)
{
	static const struct {
		const char	*name;
		int		 size;
		long long	 max;
		size_t		 off;
	} f[] = {
		{ "memory", 1, 1LL << 40,
		    offsetof(struct wymcp__exec_limits, memory) },
		{ "cpu", 0, EXEC_TIMEOUT_MAX,
		    offsetof(struct wymcp__exec_limits, cpu) },
		{ "processes", 0, 4096,
		    offsetof(struct wymcp__exec_limits, processes) },
		{ "output", 1, 1LL << 30,
		    offsetof(struct wymcp__exec_limits, output) },
		{ "files", 0, 65536,
		    offsetof(struct wymcp__exec_limits, files) },
		{ "fileSize", 1, 1LL << 40,
		    offsetof(struct wymcp__exec_limits, file_size) },
	};
	char	 m[64];
	size_t	 i;

	if (!json_object_is_type(o, json_type_object))
		return fail(err, errlen, "limits", "must be an object");
	json_object_object_foreach(o, k, v) {
		for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
			if (strcmp(k, f[i].name) == 0)
				break;
		if (i == sizeof(f) / sizeof(f[0])) {
			snprintf(m, sizeof(m), "limits.%.40s", k);
			return fail(err, errlen, m, "unknown member (memory, "
			    "cpu, processes, output, files, fileSize)");
		}
		snprintf(m, sizeof(m), "limits.%s", k);
		if (limit(v, f[i].size, f[i].max, (long long *)(void *)
		    ((char *)l + f[i].off)) != 0)
			return fail(err, errlen, m, f[i].size ? "must be a "
			    "size: bytes, or a string such as \"256M\" (K, M, "
			    "G), at least 1 and within range" : "must be a "
			    "whole number, at least 1 and within range");
	}
	return 0;
}

/* A JSON array of 1..max non-empty strings: a NULL-ended copy. */
static char **
strings(struct json_object *a, size_t max, size_t *n, const char **why)
{
	char	**v;
	size_t	 i, len;

	*why = "must be an array of non-empty strings";
	if (!json_object_is_type(a, json_type_array))
		return NULL;
	len = json_object_array_length(a);
	if (len > max) {
		*why = "too many elements";
		return NULL;
	}
	if ((v = calloc(len + 1, sizeof(*v))) == NULL) {
		*why = "out of memory";
		return NULL;
	}
	for (i = 0; i < len; i++) {
		struct json_object *e = json_object_array_get_idx(a, i);

		if (!json_object_is_type(e, json_type_string) ||
		    json_object_get_string_len(e) == 0 ||
		    (v[i] = strdup(json_object_get_string(e))) == NULL)
			goto fail;
	}
	*n = len;
	return v;
fail:
	for (i = 0; i < len; i++)
		free(v[i]);
	free(v);
	return NULL;
}

/* A JSON text member (object, or array for icons): compact text. */
static int
text_of(struct wymcp__exec *x, int slot, struct json_object *v,
    enum json_type type)
{
	if (!json_object_is_type(v, type))
		return -1;
	return (x->text[slot] = strdup(json_object_to_json_string_ext(v,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE))) ==
	    NULL ? -1 : 0;
}

/* A string member. */
static int
str_of(struct wymcp__exec *x, int slot, struct json_object *v)
{
	if (!json_object_is_type(v, json_type_string))
		return -1;
	return (x->text[slot] = strdup(json_object_get_string(v))) == NULL ?
	    -1 : 0;
}

/* "scopes": an array of scope-tokens, kept space-separated. */
static int
scopes(struct wymcp__exec *x, struct json_object *v, const char **why)
{
	char	**s, *j;
	size_t	 n = 0, i, len = 1;

	if ((s = strings(v, EXEC_NAMES, &n, why)) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		len += strlen(s[i]) + 1;
	if ((j = calloc(1, len)) != NULL)
		for (i = 0; i < n; i++) {
			if (i > 0)
				strcat(j, " ");
			strcat(j, s[i]);
		}
	for (i = 0; i < n; i++)
		free(s[i]);
	free(s);
	x->text[T_SCOPES] = j;
	return j == NULL ? -1 : 0;
}

/* An environment variable name: [A-Za-z_][A-Za-z0-9_]*, not WYMCP_. */
static int
env_name_ok(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return 0;
	if (strncmp(s, "WYMCP_", 6) == 0 || strcmp(s, "TMPDIR") == 0)
		return 0;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789_") == strlen(s);
}

/* "paths": {"read": [...], "write": [...]}, absolute paths. */
static int
paths(struct wymcp__exec *x, struct json_object *o, char *err,
    size_t errlen)
{
	const char	*why;
	char		***v;
	size_t		*n, i;

	if (!json_object_is_type(o, json_type_object))
		return fail(err, errlen, "paths", "must be an object");
	json_object_object_foreach(o, k, a) {
		if (strcmp(k, "read") == 0) {
			v = &x->rd;
			n = &x->nrd;
		} else if (strcmp(k, "write") == 0) {
			v = &x->wr;
			n = &x->nwr;
		} else
			return fail(err, errlen, "paths", "unknown member "
			    "(read, write)");
		if ((*v = strings(a, EXEC_NAMES, n, &why)) == NULL)
			return fail(err, errlen, strcmp(k, "read") == 0 ?
			    "paths.read" : "paths.write", why);
		for (i = 0; i < *n; i++)
			if ((*v)[i][0] != '/')
				return fail(err, errlen, strcmp(k, "read") ==
				    0 ? "paths.read" : "paths.write",
				    "each path must be absolute");
	}
	return 0;
}

/* "timeout" and "grace": seconds, a number in (0, max]. */
static int
seconds(struct json_object *v, long *ms)
{
	double	 d;

	if (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double))
		return -1;
	d = json_object_get_double(v);
	if (!(d > 0 && d <= EXEC_TIMEOUT_MAX))
		return -1;
	*ms = (long)(d * 1000 + 0.5);
	return *ms > 0 ? 0 : -1;
}

static int	 member_run(struct wymcp__exec *, const char *,
		    struct json_object *, char *, size_t);

/* One member of the manifest: what a C tool declares, else the run's. */
static int
member(struct wymcp__exec *x, const char *k, struct json_object *v,
    char *err, size_t errlen)
{
	const char	*why = "must be a string";
	const char	*s;

	if (strcmp(k, "name") == 0) {
		if (!json_object_is_type(v, json_type_string) ||
		    strcmp(json_object_get_string(v), x->text[T_NAME]) != 0)
			return fail(err, errlen, k, "must be the file's name "
			    "without .json (or be left out)");
	} else if (strcmp(k, "title") == 0) {
		if (str_of(x, T_TITLE, v) != 0)
			return fail(err, errlen, k, why);
	} else if (strcmp(k, "description") == 0) {
		if (str_of(x, T_DESC, v) != 0 || *x->text[T_DESC] == '\0')
			return fail(err, errlen, k, "must be a non-empty "
			    "string");
	} else if (strcmp(k, "inputSchema") == 0) {
		if (text_of(x, T_IN, v, json_type_object) != 0)
			return fail(err, errlen, k, "must be an object");
	} else if (strcmp(k, "outputSchema") == 0) {
		if (text_of(x, T_OUT, v, json_type_object) != 0)
			return fail(err, errlen, k, "must be an object");
	} else if (strcmp(k, "annotations") == 0) {
		if (text_of(x, T_ANN, v, json_type_object) != 0)
			return fail(err, errlen, k, "must be an object");
	} else if (strcmp(k, "requiredCapabilities") == 0) {
		if (text_of(x, T_CAPS, v, json_type_object) != 0)
			return fail(err, errlen, k, "must be an object "
			    "(ClientCapabilities)");
	} else if (strcmp(k, "icons") == 0) {
		if (text_of(x, T_ICONS, v, json_type_array) != 0)
			return fail(err, errlen, k, "must be an array");
	} else if (strcmp(k, "_meta") == 0) {
		if (text_of(x, T_META, v, json_type_object) != 0)
			return fail(err, errlen, k, "must be an object");
	} else if (strcmp(k, "rate") == 0) {
		struct wymcp_rate	 r;

		if (str_of(x, T_RATE, v) != 0 ||
		    wymcp_rate_parse(x->text[T_RATE], &r) != 0)
			return fail(err, errlen, k, "must be a rate, "
			    "\"N/s|min|h[,burst=B]\" (wymcp-fcgi(8), RATE "
			    "LIMITS)");
	} else if (strcmp(k, "scopes") == 0) {
		if (scopes(x, v, &why) != 0)
			return fail(err, errlen, k, why);
	} else if (strcmp(k, "task") == 0) {
		s = json_object_is_type(v, json_type_string) ?
		    json_object_get_string(v) : "";
		if (strcmp(s, "forbidden") == 0)
			x->def.task_support = WYMCP_TASK_FORBIDDEN;
		else if (strcmp(s, "optional") == 0)
			x->def.task_support = WYMCP_TASK_OPTIONAL;
		else if (strcmp(s, "required") == 0)
			x->def.task_support = WYMCP_TASK_REQUIRED;
		else
			return fail(err, errlen, k, "must be \"forbidden\", "
			    "\"optional\" or \"required\"");
	} else
		return member_run(x, k, v, err, errlen);
	return 0;
}

/* One member of the manifest that says how the program runs. */
static int
member_run(struct wymcp__exec *x, const char *k, struct json_object *v,
    char *err, size_t errlen)
{
	const char	*why = "must be a string";
	const char	*s;

	if (strcmp(k, "command") == 0) {
		if ((x->argv = strings(v, EXEC_ARGS, &x->argc, &why)) ==
		    NULL || x->argc == 0)
			return fail(err, errlen, k, x->argv == NULL ? why :
			    "must name the program");
	} else if (strcmp(k, "timeout") == 0) {
		if (seconds(v, &x->timeout_ms) != 0)
			return fail(err, errlen, k, "must be seconds, more "
			    "than 0 and at most 86400");
	} else if (strcmp(k, "grace") == 0) {
		if (seconds(v, &x->grace_ms) != 0 || x->grace_ms > 60000)
			return fail(err, errlen, k, "must be seconds, more "
			    "than 0 and at most 60");
	} else if (strcmp(k, "env") == 0) {
		size_t i;

		if ((x->env = strings(v, EXEC_NAMES, &x->nenv, &why)) ==
		    NULL)
			return fail(err, errlen, k, why);
		for (i = 0; i < x->nenv; i++)
			if (!env_name_ok(x->env[i]))
				return fail(err, errlen, k, "each name must "
				    "be [A-Za-z_][A-Za-z0-9_]*, and not "
				    "TMPDIR or WYMCP_* (wymcp sets those)");
	} else if (strcmp(k, "limits") == 0) {
		return parse_limits(v, &x->lim, err, errlen);
	} else if (strcmp(k, "paths") == 0) {
		return paths(x, v, err, errlen);
	} else if (strcmp(k, "stderr") == 0) {
		s = json_object_is_type(v, json_type_string) ?
		    json_object_get_string(v) : "";
		if (strcmp(s, "hide") != 0 && strcmp(s, "show") != 0)
			return fail(err, errlen, k, "must be \"show\" or "
			    "\"hide\"");
		x->hide_stderr = strcmp(s, "hide") == 0;
	} else if (strcmp(k, "namespaces") == 0) {
		if (!json_object_is_type(v, json_type_boolean))
			return fail(err, errlen, k, "must be true or false");
		x->no_ns = !json_object_get_boolean(v);
	} else if (strcmp(k, "user") == 0) {
		if (!json_object_is_type(v, json_type_string) ||
		    json_object_get_string_len(v) == 0 ||
		    (x->user = strdup(json_object_get_string(v))) == NULL)
			return fail(err, errlen, k, "must be a user name");
	} else
		return fail(err, errlen, k, "unknown member");
	return 0;
}

/*
 * Parse the manifest `buf' of the tool `name' into `x' (zeroed here):
 * 0, or -1 with "member: why" in err, `x' then to be cleared.  Pure:
 * nothing outside the text is read.
 */
int
wymcp__exec_parse(const char *name, const char *buf, size_t len,
    struct wymcp__exec *x, char *err, size_t errlen)
{
	struct json_object	*o;
	enum wymcp__json_fault	 fault;
	int			 rc = -1;

	memset(x, 0, sizeof(*x));
	x->uid = x->gid = -1;
	x->lim = defaults;
	x->timeout_ms = WYMCP__EXEC_TIMEOUT;
	x->grace_ms = WYMCP__EXEC_GRACE;
	x->no_ns = 1;
	if ((x->text[T_NAME] = strdup(name)) == NULL)
		return fail(err, errlen, "name", "out of memory");
	if (!wymcp__tool_name_ok(name))
		return fail(err, errlen, "name", "the file's name must be 1 "
		    "to 128 of [A-Za-z0-9_.-] before .json");
	o = wymcp__parse_ex(buf, len, &fault);
	if (o == NULL || fault != WYMCP__JSON_OK) {
		json_object_put(o);
		return fail(err, errlen, "(file)", fault ==
		    WYMCP__JSON_DUPLICATE ? "an object names a member twice" :
		    "not valid JSON (RFC 8259, UTF-8)");
	}
	if (!json_object_is_type(o, json_type_object)) {
		fail(err, errlen, "(file)", "must be a JSON object");
		goto out;
	}
	json_object_object_foreach(o, k, v)
		if (member(x, k, v, err, errlen) != 0)
			goto out;
	if (x->text[T_DESC] == NULL) {
		fail(err, errlen, "description", "is required");
		goto out;
	}
	if (x->argv == NULL) {
		fail(err, errlen, "command", "is required");
		goto out;
	}
	/* A second above the timeout, which then stops a run first. */
	if (x->lim.cpu == 0)
		x->lim.cpu = (x->timeout_ms + 999) / 1000 + 1;
	x->def.name = x->text[T_NAME];
	x->def.title = x->text[T_TITLE];
	x->def.description = x->text[T_DESC];
	x->def.input_schema = x->text[T_IN];
	x->def.output_schema = x->text[T_OUT];
	x->def.annotations = x->text[T_ANN];
	x->def.required_caps = x->text[T_CAPS];
	x->def.scopes = x->text[T_SCOPES];
	x->def.icons = x->text[T_ICONS];
	x->def.meta = x->text[T_META];
	x->def.rate = x->text[T_RATE];
	rc = 0;
out:
	json_object_put(o);
	return rc;
}

/* The real path of `p' (relative to `dir'), a new string, or NULL. */
static char *
real(const char *dir, const char *p)
{
	char	 buf[PATH_MAX], out[PATH_MAX];

	if (p[0] == '/')
		snprintf(buf, sizeof(buf), "%s", p);
	else if ((size_t)snprintf(buf, sizeof(buf), "%s/%s", dir, p) >=
	    sizeof(buf))
		return NULL;
	if (realpath(buf, out) == NULL)
		return NULL;
	return strdup(out);
}

/* A program named without '/': found in PATH, as execvp() would. */
static char *
search(const char *name)
{
	const char	*path = getenv("PATH"), *p, *e;
	char		 buf[PATH_MAX];

	if (path == NULL || *path == '\0')
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p != '\0'; p = *e == ':' ? e + 1 : e) {
		e = strchrnul(p, ':');
		if (e == p || (size_t)snprintf(buf, sizeof(buf), "%.*s/%s",
		    (int)(e - p), p, name) >= sizeof(buf))
			continue;
		if (access(buf, X_OK) == 0)
			return real("/", buf);
	}
	return NULL;
}

/* Replace each path of v by its real path: -1 with why. */
static int
real_paths(char **v, size_t n, const char *member, char *err,
    size_t errlen)
{
	char	*r, m[PATH_MAX + 64];
	size_t	 i;

	for (i = 0; i < n; i++) {
		if ((r = real("/", v[i])) == NULL) {
			snprintf(m, sizeof(m), "%s %s", member, v[i]);
			return fail(err, errlen, m, strerror(errno));
		}
		free(v[i]);
		v[i] = r;
	}
	return 0;
}

/*
 * Resolve what a parsed manifest names on this machine: the program
 * (relative to the manifest's directory `dir', or found in PATH),
 * vetted with the server's file check as each argument naming a file
 * in `dir' is (a script an interpreter runs), the paths, and the user.
 * 0, or -1 with "member: why" in err.
 */
int
wymcp__exec_resolve(struct wymcp_server *srv, const char *dir,
    struct wymcp__exec *x, char *err, size_t errlen)
{
	struct passwd	*pw;
	struct stat	 st;
	char		*r, why[PATH_MAX + 128];
	size_t		 i;

	if ((x->dir = realpath(dir, NULL)) == NULL)
		return fail(err, errlen, "(directory)", strerror(errno));
	r = strchr(x->argv[0], '/') == NULL ? search(x->argv[0]) :
	    real(x->dir, x->argv[0]);
	if (r == NULL || stat(r, &st) == -1 || !S_ISREG(st.st_mode) ||
	    access(r, X_OK) != 0) {
		free(r);
		return fail(err, errlen, "command", "its program is not an "
		    "executable file (a relative path is from the "
		    "manifest's directory, a bare name is looked up in "
		    "PATH)");
	}
	free(x->argv[0]);
	x->argv[0] = r;
	for (i = 0; i < x->argc && srv->filecheck != NULL; i++) {
		if (i > 0 && (strchr(x->argv[i], '/') != NULL ||
		    x->argv[i][0] == '-'))
			continue;
		if (i > 0) {
			if ((r = real(x->dir, x->argv[i])) == NULL)
				continue;
			if (stat(r, &st) == -1 || !S_ISREG(st.st_mode) ||
			    strncmp(r, x->dir, strlen(x->dir)) != 0) {
				free(r);
				continue;
			}
		} else
			r = x->argv[0];
		if (srv->filecheck(srv->filecheck_arg, r, why,
		    sizeof(why)) != 0) {
			snprintf(err, errlen, "command: %s: %s", r, why);
			if (r != x->argv[0])
				free(r);
			return -1;
		}
		if (r != x->argv[0])
			free(r);
	}
	if (real_paths(x->rd, x->nrd, "paths.read", err, errlen) != 0 ||
	    real_paths(x->wr, x->nwr, "paths.write", err, errlen) != 0)
		return -1;
	if (x->user != NULL) {
		if ((pw = getpwnam(x->user)) == NULL)
			return fail(err, errlen, "user", "no such user");
		if (pw->pw_uid == 0)
			return fail(err, errlen, "user", "runs are never "
			    "root's");
		x->uid = pw->pw_uid;
		x->gid = pw->pw_gid;
	}
	return 0;
}

static void
strv_free(char **v, size_t n)
{
	size_t	 i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Free what a (parsed, or partly parsed) exec tool holds. */
void
wymcp__exec_clear(struct wymcp__exec *x)
{
	size_t	 i;

	free(x->file);
	free(x->dir);
	strv_free(x->argv, x->argc);
	strv_free(x->env, x->nenv);
	strv_free(x->rd, x->nrd);
	strv_free(x->wr, x->nwr);
	free(x->user);
	for (i = 0; i < sizeof(x->text) / sizeof(x->text[0]); i++)
		free(x->text[i]);
	memset(x, 0, sizeof(*x));
}

void
wymcp__execs_free(struct wymcp_server *srv)
{
	struct wymcp__execset	*s;
	size_t			 i;

	while ((s = srv->execs) != NULL) {
		srv->execs = s->next;
		for (i = 0; i < s->ntools; i++)
			wymcp__exec_clear(&s->tools[i]);
		free(s->tools);
		free(s->dir);
		free(s);
	}
}
