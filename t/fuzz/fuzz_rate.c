/*
 * fuzz_rate.c - libFuzzer target for a rate limit's text
 * (lib/rate.c: wymcp_rate_parse(), read by --rate-limit and a tool's
 * declared rate)
 *
 * The input is the text.  A refused text must leave the result
 * untouched; an accepted one must give a burst from 1 to 1000000 and a
 * rate from 1 an hour to 1000000 a second, and must be exactly
 * N/UNIT[,burst=B] (digits only in N and B): its digits, written back
 * with the unit and burst read, parse again to the same values.
 * Anything else aborts.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wymcp.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define INPUT_MAX	256

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wymcp_rate	 r, again, poison;
	char			 text[INPUT_MAX + 1], back[64];
	const char		*unit;

	if (size > INPUT_MAX)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&poison, 0xa5, sizeof(poison));
	r = poison;
	if (wymcp_rate_parse(text, &r) != 0) {
		if (memcmp(&r, &poison, sizeof(r)) != 0)
			abort();
		return 0;
	}
	if (r.burst < 1 || r.burst > 1000000 || !(r.per_s >= 1.0 / 3600) ||
	    !(r.per_s <= 1000000))
		abort();
	if (text[0] < '1' || text[0] > '9')
		abort();
	/* N back from the rate and the unit's seconds. */
	unit = strchr(text, '/') + 1;
	if (strncmp(unit, "h", 1) == 0)
		snprintf(back, sizeof(back), "%.0f/h,burst=%u", r.per_s * 3600,
		    r.burst);
	else if (strncmp(unit, "min", 3) == 0)
		snprintf(back, sizeof(back), "%.0f/min,burst=%u",
		    r.per_s * 60, r.burst);
	else if (unit[0] == 's')
		snprintf(back, sizeof(back), "%.0f/s,burst=%u", r.per_s,
		    r.burst);
	else
		abort();
	if (wymcp_rate_parse(back, &again) != 0 ||
	    again.burst != r.burst || again.per_s != r.per_s)
		abort();
	return 0;
}
