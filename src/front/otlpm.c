/*
 * otlpm.c - the mcp.server.operation.duration histogram the span
 * exporter (otlp.c) aggregates from the spans the workers hand it
 *
 * OpenTelemetry's MCP semantic conventions (docs/gen-ai/mcp.md, status
 * Development) name the metric mcp.server.operation.duration: a
 * histogram, unit s, with explicit bucket boundaries 0.01 ... 300,
 * attributes mcp.method.name (required), error.type (iff the operation
 * failed: the JSON-RPC code, or tool_error), rpc.response.status_code
 * (with a code), gen_ai.tool.name and gen_ai.operation.name
 * (execute_tool) for a tool, gen_ai.prompt.name for a prompt,
 * mcp.protocol.version, network.protocol.name (http) and
 * network.transport (tcp: Streamable HTTP); mcp.resource.uri is opt-in
 * and left out (one series per URI is unbounded).
 *
 * A span line (audit.c's build_span(), OTLP/JSON) is read with json-c:
 * a SERVER span (an INTERNAL one is a task's run, not a request) adds
 * its end less its start to the point of its attribute set.  The sets
 * are bounded: a method the conventions do not name is "_OTHER", a tool
 * or prompt is named only when the call did not fail as a JSON-RPC
 * error (a name a client made up makes no set), a protocol version is
 * kept only when wymcp serves it (a header a client made up makes no
 * set either); past OTLPM_SETS - 1
 * sets, a span is counted in the overflow set (otel.metric.overflow =
 * true, as the metrics SDK specification has it for a cardinality
 * limit) and in front_otlpm_overflowed().  The points are cumulative
 * from the exporter's start (front_otlpm_new()).
 *
 * Not a worker's file: only the exporter process uses it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "wymcp.h"
#include "otlpm.h"

#define OTLPM_SETS	256	/* attribute sets, the overflow's included */
#define NBOUNDS		14

static const double	 bounds[NBOUNDS] = {
	0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300
};

/* The methods the conventions name; any other is "_OTHER". */
static const char *const known[] = {
	"completion/complete", "elicitation/create", "initialize",
	"logging/setLevel", "notifications/cancelled",
	"notifications/initialized", "notifications/message",
	"notifications/progress", "notifications/prompts/list_changed",
	"notifications/resources/list_changed",
	"notifications/resources/updated", "notifications/roots/list_changed",
	"notifications/tools/list_changed", "ping", "prompts/get",
	"prompts/list", "resources/list", "resources/read",
	"resources/subscribe", "resources/templates/list",
	"resources/unsubscribe", "roots/list", "sampling/createMessage",
	"tools/call", "tools/list",
	/* MCP's own since the conventions' table was written: */
	"server/discover", "subscriptions/listen", "tasks/get",
	"tasks/result", "tasks/cancel", "tasks/list", NULL
};

struct point {
	const char		*method;	/* one of known[], or _OTHER */
	char			 name[64];	/* tool's or prompt's, or "" */
	char			 error[24];	/* error.type, or "" */
	char			 version[16];	/* mcp.protocol.version */
	int			 overflow;
	unsigned long long	 count;
	double			 sum, min, max;
	unsigned long long	 b[NBOUNDS + 1];	/* not cumulative */
};

struct front_otlpm {
	long long		 start_ns;	/* of the cumulative points */
	size_t			 n;
	unsigned long		 overflowed;
	struct point		 p[OTLPM_SETS];
};

struct front_otlpm *
front_otlpm_new(long long start_ns)
{
	struct front_otlpm	*m;

	if ((m = calloc(1, sizeof(*m))) != NULL)
		m->start_ns = start_ns;
	return m;
}

void
front_otlpm_free(struct front_otlpm *m)
{
	free(m);
}

unsigned long
front_otlpm_overflowed(const struct front_otlpm *m)
{
	return m->overflowed;
}

size_t
front_otlpm_sets(const struct front_otlpm *m)
{
	return m->n;
}

/* A string member of o, or NULL. */
static const char *
str(struct json_object *o, const char *key)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* The span's attributes this metric keeps. */
struct attrs {
	const char	*method, *tool, *prompt, *error, *version;
};

static void
read_attrs(struct json_object *span, struct attrs *a)
{
	struct json_object	*arr, *e, *v;
	const char		*k, *s;
	size_t			 i, n;

	memset(a, 0, sizeof(*a));
	if (!json_object_object_get_ex(span, "attributes", &arr) ||
	    !json_object_is_type(arr, json_type_array))
		return;
	n = json_object_array_length(arr);
	for (i = 0; i < n; i++) {
		e = json_object_array_get_idx(arr, i);
		if ((k = str(e, "key")) == NULL ||
		    !json_object_object_get_ex(e, "value", &v) ||
		    (s = str(v, "stringValue")) == NULL)
			continue;
		if (strcmp(k, "mcp.method.name") == 0)
			a->method = s;
		else if (strcmp(k, "gen_ai.tool.name") == 0)
			a->tool = s;
		else if (strcmp(k, "gen_ai.prompt.name") == 0)
			a->prompt = s;
		else if (strcmp(k, "error.type") == 0)
			a->error = s;
		else if (strcmp(k, "mcp.protocol.version") == 0)
			a->version = s;
	}
}

/* A name fit for a set's label: short, [A-Za-z0-9_.-]+. */
static int
fit_name(const char *s, size_t cap)
{
	size_t	 n = strlen(s);

	return n > 0 && n < cap && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

/* error.type as the conventions have it: tool_error or a code. */
static int
fit_error(const char *s)
{
	size_t	 n = strlen(s);

	if (strcmp(s, "tool_error") == 0)
		return 1;
	if (*s == '-')
		s++, n--;
	return n > 0 && n <= 11 && strspn(s, "0123456789") == n;
}

/* The revisions wymcp serves (methods/discover.c's, and its own). */
static const char *const versions[] = {
	WYMCP_PROTOCOL_VERSION, "2025-11-25", "2025-06-18", "2025-03-26",
	"2024-11-05", NULL
};

static int
fit_version(const char *s)
{
	const char *const *vp;

	for (vp = versions; *vp != NULL; vp++)
		if (strcmp(*vp, s) == 0)
			return 1;
	return 0;
}

/* Fill *key from a's values, bounded as the header says. */
static void
make_key(const struct attrs *a, struct point *key)
{
	const char *const *kp;

	memset(key, 0, sizeof(*key));
	for (kp = known; a->method != NULL && *kp != NULL; kp++)
		if (strcmp(*kp, a->method) == 0)
			break;
	key->method = a->method != NULL && *kp != NULL ? *kp : "_OTHER";
	if (a->error != NULL)
		snprintf(key->error, sizeof(key->error), "%s",
		    fit_error(a->error) ? a->error : "_OTHER");
	if (a->error == NULL || strcmp(key->error, "tool_error") == 0) {
		if (strcmp(key->method, "tools/call") == 0 && a->tool != NULL &&
		    fit_name(a->tool, sizeof(key->name)))
			snprintf(key->name, sizeof(key->name), "%s", a->tool);
		else if (strcmp(key->method, "prompts/get") == 0 &&
		    a->prompt != NULL && fit_name(a->prompt, sizeof(key->name)))
			snprintf(key->name, sizeof(key->name), "%s", a->prompt);
	}
	if (a->version != NULL && fit_version(a->version))
		snprintf(key->version, sizeof(key->version), "%s", a->version);
}

/* The point of key's set: found, made, or the overflow's. */
static struct point *
find(struct front_otlpm *m, const struct point *key)
{
	struct point	*p;
	size_t		 i;

	for (i = 0; i < m->n; i++) {
		p = &m->p[i];
		if (!p->overflow && p->method == key->method &&
		    strcmp(p->name, key->name) == 0 &&
		    strcmp(p->error, key->error) == 0 &&
		    strcmp(p->version, key->version) == 0)
			return p;
	}
	if (m->n < OTLPM_SETS - 1) {
		p = &m->p[m->n++];
		*p = *key;
		return p;
	}
	m->overflowed++;
	p = &m->p[OTLPM_SETS - 1];
	if (!p->overflow) {
		memset(p, 0, sizeof(*p));
		p->overflow = 1;
		p->method = "_OTHER";
		m->n = OTLPM_SETS;
	}
	return p;
}

/* A decimal string of nanoseconds since the epoch: 0, or -1. */
static int
nanos(struct json_object *span, const char *key, long long *out)
{
	const char	*s = str(span, key);
	char		*end;

	if (s == NULL || *s < '0' || *s > '9' || strlen(s) > 19)
		return -1;
	*out = strtoll(s, &end, 10);
	return *end == '\0' ? 0 : -1;
}

static void
add(struct point *p, double secs)
{
	size_t	 i;

	for (i = 0; i < NBOUNDS && secs > bounds[i]; i++)
		continue;
	p->b[i]++;
	if (p->count == 0 || secs < p->min)
		p->min = secs;
	if (p->count == 0 || secs > p->max)
		p->max = secs;
	p->count++;
	p->sum += secs;
}

int
front_otlpm_take(struct front_otlpm *m, const char *line, size_t len)
{
	struct json_tokener	*tok;
	struct json_object	*span, *kind;
	struct attrs		 a;
	struct point		 key;
	long long		 t0, t1;
	int			 rc = -1;

	if ((tok = json_tokener_new()) == NULL)
		return -1;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	span = json_tokener_parse_ex(tok, line, (int)len);
	if (span == NULL ||
	    json_tokener_get_error(tok) != json_tokener_success ||
	    (size_t)json_tokener_get_parse_end(tok) != len ||
	    !json_object_is_type(span, json_type_object))
		goto done;
	if (nanos(span, "startTimeUnixNano", &t0) != 0 ||
	    nanos(span, "endTimeUnixNano", &t1) != 0 || t1 < t0)
		goto done;
	rc = 0;
	/* SERVER (2): a request; INTERNAL (1): a task's run. */
	if (!json_object_object_get_ex(span, "kind", &kind) ||
	    !json_object_is_type(kind, json_type_int) ||
	    json_object_get_int(kind) != 2)
		goto done;
	read_attrs(span, &a);
	if (a.method == NULL)
		goto done;
	make_key(&a, &key);
	add(find(m, &key), (double)(t1 - t0) / 1e9);
	rc = 1;
done:
	json_object_put(span);
	json_tokener_free(tok);
	return rc;
}

/* The output buffer: past its capacity, `over'. */
struct out {
	char	*b;
	size_t	 len, cap;
	int	 over;
};

static void
put(struct out *o, const char *fmt, ...)
{
	va_list	 ap;
	int	 n;

	if (o->over)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->b + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->cap - o->len)
		o->over = 1;
	else
		o->len += (size_t)n;
}

static void
attr(struct out *o, const char *key, const char *v)
{
	if (*v != '\0')
		put(o, ",{\"key\":\"%s\",\"value\":{\"stringValue\":\"%s\"}}",
		    key, v);
}

/* One HistogramDataPoint. */
static void
point(struct out *o, const struct point *p, long long start, long long now)
{
	size_t	 i;

	put(o, "{\"attributes\":[{\"key\":\"mcp.method.name\",\"value\":"
	    "{\"stringValue\":\"%s\"}}", p->method);
	if (p->overflow)
		put(o, ",{\"key\":\"otel.metric.overflow\",\"value\":"
		    "{\"boolValue\":true}}");
	if (strcmp(p->method, "tools/call") == 0) {
		attr(o, "gen_ai.tool.name", p->name);
		attr(o, "gen_ai.operation.name", "execute_tool");
	} else if (strcmp(p->method, "prompts/get") == 0)
		attr(o, "gen_ai.prompt.name", p->name);
	attr(o, "error.type", p->error);
	if (*p->error != '\0' && strcmp(p->error, "tool_error") != 0 &&
	    strcmp(p->error, "_OTHER") != 0)
		attr(o, "rpc.response.status_code", p->error);
	attr(o, "mcp.protocol.version", p->version);
	if (!p->overflow) {
		attr(o, "network.protocol.name", "http");
		attr(o, "network.transport", "tcp");
	}
	put(o, "],\"startTimeUnixNano\":\"%lld\",\"timeUnixNano\":\"%lld\","
	    "\"count\":\"%llu\",\"sum\":%.15g,\"bucketCounts\":[", start, now,
	    p->count, p->sum);
	for (i = 0; i <= NBOUNDS; i++)
		put(o, "%s\"%llu\"", i > 0 ? "," : "", p->b[i]);
	put(o, "],\"explicitBounds\":[");
	for (i = 0; i < NBOUNDS; i++)
		put(o, "%s%g", i > 0 ? "," : "", bounds[i]);
	put(o, "],\"min\":%.15g,\"max\":%.15g}", p->min, p->max);
}

size_t
front_otlpm_body(const struct front_otlpm *m, const char *resource,
    const char *version, long long now_ns, char *buf, size_t cap)
{
	struct out	 o = { buf, 0, cap, 0 };
	size_t		 i;

	if (m->n == 0 || cap == 0)
		return 0;
	put(&o, "{\"resourceMetrics\":[{\"resource\":{\"attributes\":[%s]},"
	    "\"scopeMetrics\":[{\"scope\":{\"name\":\"wymcp\",\"version\":"
	    "\"%s\"},\"metrics\":[{\"name\":\"mcp.server.operation.duration\","
	    "\"description\":\"MCP request or notification duration as "
	    "observed on the receiver from the time it was received until "
	    "the result or ack is sent.\",\"unit\":\"s\",\"histogram\":"
	    "{\"aggregationTemporality\":2,\"dataPoints\":[", resource,
	    version);
	for (i = 0; i < m->n; i++) {
		if (i > 0)
			put(&o, ",");
		point(&o, &m->p[i], m->start_ns, now_ns);
	}
	put(&o, "]}}]}]}]}");
	return o.over ? 0 : o.len;
}

/* Worst case of one point: its strings full, its numbers long. */
size_t
front_otlpm_cap(void)
{
	return (size_t)OTLPM_SETS * 2048 + 2048;
}

void
front_otlpm_path(const char *traces, char *out, size_t cap)
{
	size_t	 n = strlen(traces);

	if (n >= 10 && strcmp(traces + n - 10, "/v1/traces") == 0)
		n -= 10;
	else if (n > 0 && traces[n - 1] == '/')
		n--;
	snprintf(out, cap, "%.*s/v1/metrics", (int)n, traces);
}
