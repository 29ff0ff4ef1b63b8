/*
 * fuzz_otlpm.c - libFuzzer target for the span exporter's histogram
 * (src/front/otlpm.c: front_otlpm_take() reads span lines the workers
 * write, with strings a client chose in them)
 *
 * The input is lines.  Each is taken; then the request is written and
 * must be JSON (json-c reads it back whole), with at most 256 points,
 * and the overflow counted only once the sets are full.  Anything else
 * aborts.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/front/otlpm.c"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define INPUT_MAX	65536

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct front_otlpm	*m;
	struct json_object	*o;
	const char		*p = (const char *)data, *nl;
	char			*buf;
	size_t			 n, left = size;
	int			 rc;

	if (size > INPUT_MAX || (m = front_otlpm_new(1)) == NULL)
		return 0;
	while (left > 0) {
		nl = memchr(p, '\n', left);
		n = nl != NULL ? (size_t)(nl - p) : left;
		rc = front_otlpm_take(m, p, n);
		if (rc < -1 || rc > 1)
			abort();
		p += n + (nl != NULL);
		left -= n + (nl != NULL);
	}
	if (front_otlpm_sets(m) > OTLPM_SETS ||
	    (front_otlpm_overflowed(m) > 0 &&
	    front_otlpm_sets(m) != OTLPM_SETS))
		abort();
	if ((buf = malloc(front_otlpm_cap() + 1)) == NULL)
		abort();
	n = front_otlpm_body(m, "", "0", 2, buf, front_otlpm_cap());
	if (n == 0 && front_otlpm_sets(m) > 0)
		abort();
	if (n > 0) {
		buf[n] = '\0';
		if ((o = json_tokener_parse(buf)) == NULL)
			abort();
		json_object_put(o);
	}
	free(buf);
	front_otlpm_free(m);
	return 0;
}
