/*
 * metrics.c - request durations by method, tool and outcome, for the
 * status page's Prometheus text (--status-path)
 *
 * OpenTelemetry's MCP conventions name the metric
 * mcp.server.operation.duration (a histogram, seconds, bucket bounds
 * 0.01 ... 300); Prometheus spells it
 * mcp_server_operation_duration_seconds, one series per method, tool
 * (or prompt) and outcome.  The series live in a page the pool shares
 * (made before the first fork): FRONT_SERIES of them, found by an
 * FNV-1a of their labels, claimed with a compare-and-swap, counted with
 * atomic adds, so that no worker waits for another.  The labels are
 * bounded: a tool or prompt is named only when the call was not refused
 * as an error (an unknown name a client sends makes no series); past
 * FRONT_SERIES series a request is counted as overflow.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/mman.h>

#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "front.h"

#define FRONT_SERIES	128
#define NBUCKETS	14

static const double	 bounds[NBUCKETS] = {
	0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300
};

struct series {
	int			 state;		/* 0 free, 1 claimed, 2 ready */
	char			 method[40];
	char			 name[64];
	char			 outcome[16];
	unsigned long long	 count, sum_us;
	unsigned long long	 b[NBUCKETS];	/* not cumulative */
};

struct front_metrics {
	unsigned long	 overflow;
	struct series	 s[FRONT_SERIES];
};

static struct front_metrics	*m;

int
front_metrics_setup(void)
{
	m = mmap(NULL, sizeof(*m), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		m = NULL;
		return -1;
	}
	memset(m, 0, sizeof(*m));
	return 0;
}

int
front_metrics_on(void)
{
	return m != NULL;
}

static uint32_t
fnv(uint32_t h, const char *s)
{
	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return (h ^ 0xff) * 16777619u;
}

/* Is series `s' (ready) the one of these labels? */
static int
same(const struct series *s, const char *method, const char *name,
    const char *outcome)
{
	return strcmp(s->method, method) == 0 && strcmp(s->name, name) == 0 &&
	    strcmp(s->outcome, outcome) == 0;
}

/* The methods named in a label; any other is "other". */
static const char *const known[] = {
	"initialize", "ping", "server/discover", "tools/list", "tools/call",
	"prompts/list", "prompts/get", "resources/list",
	"resources/templates/list", "resources/read", "resources/subscribe",
	"resources/unsubscribe", "subscriptions/listen",
	"completion/complete", "logging/setLevel", "tasks/get",
	"tasks/result", "tasks/cancel", "tasks/list", "skills/list",
	"skills/get", NULL
};

void
front_metrics_record(const char *method, const char *name,
    const char *outcome, long long us)
{
	const char *const *kp;
	struct series	*s;
	size_t		 i, k, home;
	int		 st, zero;

	if (m == NULL)
		return;
	for (kp = known; method != NULL && *kp != NULL; kp++)
		if (strcmp(*kp, method) == 0)
			break;
	method = method != NULL && *kp != NULL ? *kp : "other";
	/* A name the server knows: a tool's or prompt's that ran. */
	if (name == NULL || strlen(name) >= sizeof(s->name) ||
	    strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789_.-") != strlen(name) || outcome == NULL ||
	    strcmp(outcome, "error") == 0 || (strcmp(method, "tools/call") != 0 &&
	    strcmp(method, "prompts/get") != 0))
		name = "";
	if (outcome == NULL || strlen(outcome) >= sizeof(s->outcome))
		outcome = "none";
	home = fnv(fnv(fnv(2166136261u, method), name), outcome) %
	    FRONT_SERIES;
	for (k = 0; k < FRONT_SERIES; k++) {
		s = &m->s[(home + k) % FRONT_SERIES];
		st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
		if (st == 0) {
			zero = 0;
			if (!__atomic_compare_exchange_n(&s->state, &zero, 1,
			    0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				k--;		/* taken meanwhile: look again */
				continue;
			}
			snprintf(s->method, sizeof(s->method), "%s", method);
			snprintf(s->name, sizeof(s->name), "%s", name);
			snprintf(s->outcome, sizeof(s->outcome), "%s", outcome);
			__atomic_store_n(&s->state, 2, __ATOMIC_RELEASE);
			st = 2;
		}
		/* Being named by another worker: a moment. */
		while (st == 1) {
			(void)sched_yield();
			st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
		}
		if (!same(s, method, name, outcome))
			continue;
		for (i = 0; i < NBUCKETS && (double)us / 1e6 > bounds[i]; i++)
			continue;
		if (i < NBUCKETS)
			__atomic_add_fetch(&s->b[i], 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&s->sum_us, (unsigned long long)us,
		    __ATOMIC_RELAXED);
		__atomic_add_fetch(&s->count, 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_add_fetch(&m->overflow, 1, __ATOMIC_RELAXED);
}

/* The histograms as Prometheus text at buf + n (cap in all); the end. */
size_t
front_metrics_prom(char *buf, size_t cap, size_t n)
{
	const struct series	*s;
	unsigned long long	 cum;
	size_t			 k, i;
	int			 w;

#define OUT(...) do {							\
	if (n < cap && (w = snprintf(buf + n, cap - n, __VA_ARGS__)) > 0) \
		n += (size_t)w;						\
} while (0)
	if (m == NULL)
		return n;
	OUT("# HELP mcp_server_operation_duration_seconds MCP requests "
	    "by method, tool or prompt, and outcome (OpenTelemetry "
	    "mcp.server.operation.duration).\n"
	    "# TYPE mcp_server_operation_duration_seconds histogram\n");
	for (k = 0; k < FRONT_SERIES; k++) {
		s = &m->s[k];
		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != 2)
			continue;
		for (cum = 0, i = 0; i < NBUCKETS; i++) {
			cum += __atomic_load_n(&s->b[i], __ATOMIC_RELAXED);
			OUT("mcp_server_operation_duration_seconds_bucket{"
			    "mcp_method_name=\"%s\",gen_ai_tool_name=\"%s\","
			    "outcome=\"%s\",le=\"%g\"} %llu\n", s->method,
			    s->name, s->outcome, bounds[i], cum);
		}
		OUT("mcp_server_operation_duration_seconds_bucket{"
		    "mcp_method_name=\"%s\",gen_ai_tool_name=\"%s\","
		    "outcome=\"%s\",le=\"+Inf\"} %llu\n"
		    "mcp_server_operation_duration_seconds_sum{"
		    "mcp_method_name=\"%s\",gen_ai_tool_name=\"%s\","
		    "outcome=\"%s\"} %.6f\n"
		    "mcp_server_operation_duration_seconds_count{"
		    "mcp_method_name=\"%s\",gen_ai_tool_name=\"%s\","
		    "outcome=\"%s\"} %llu\n", s->method, s->name, s->outcome,
		    __atomic_load_n(&s->count, __ATOMIC_RELAXED), s->method,
		    s->name, s->outcome, (double)__atomic_load_n(&s->sum_us,
		    __ATOMIC_RELAXED) / 1e6, s->method, s->name, s->outcome,
		    __atomic_load_n(&s->count, __ATOMIC_RELAXED));
	}
	OUT("# HELP wymcp_operation_series_overflow_total Requests not "
	    "counted: every series was taken.\n"
	    "# TYPE wymcp_operation_series_overflow_total counter\n"
	    "wymcp_operation_series_overflow_total %lu\n",
	    __atomic_load_n(&m->overflow, __ATOMIC_RELAXED));
#undef OUT
	return n;
}
