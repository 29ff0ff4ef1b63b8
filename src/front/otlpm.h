/*
 * otlpm.h - the mcp.server.operation.duration histogram of the span
 * exporter (otlpm.c; otlp.c's exporter process alone uses it)
 */
#ifndef FRONT_OTLPM_H
#define FRONT_OTLPM_H

#include <stddef.h>

struct front_otlpm;

/* The points, cumulative from start_ns (wall clock); NULL: no memory.
 * The caller frees it with front_otlpm_free(). */
struct front_otlpm *front_otlpm_new(long long start_ns);
void		 front_otlpm_free(struct front_otlpm *);
/*
 * Take one span line (OTLP/JSON, len bytes, no newline): 1 counted,
 * 0 not a request's (an INTERNAL span: a task's run), -1 not a span.
 */
int		 front_otlpm_take(struct front_otlpm *, const char *line,
		    size_t len);
/* Spans counted in the overflow set (past the bound of sets). */
unsigned long	 front_otlpm_overflowed(const struct front_otlpm *);
size_t		 front_otlpm_sets(const struct front_otlpm *);
/*
 * The ExportMetricsServiceRequest (OTLP/JSON) of the points at now_ns
 * into buf (cap bytes, front_otlpm_cap() is enough), with `resource'
 * (its attributes, JSON, trusted) and the scope's version: its length,
 * or 0 when there is no point yet (or it did not fit).  Not
 * NUL-terminated past the length.
 */
size_t		 front_otlpm_body(const struct front_otlpm *,
		    const char *resource, const char *version, long long now_ns,
		    char *buf, size_t cap);
size_t		 front_otlpm_cap(void);
/*
 * The metrics' path beside the spans' (OTLP/HTTP's signal paths): a
 * last /v1/traces replaced by /v1/metrics, else /v1/metrics appended
 * (no doubled slash); into out (cap bytes, 16 more than traces needs).
 */
void		 front_otlpm_path(const char *traces, char *out, size_t cap);

#endif
