/* rate.c - a rate limit's text: "N/UNIT[,burst=B]" (wymcp.h) */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "lib/lib.h"

#define RATE_MAX	1000000UL	/* N and B at most */

/*
 * A whole number from 1 to RATE_MAX at *p, digits only, no leading
 * zero; 0 for none.
 */
static unsigned long
number(const char **p)
{
	unsigned long	 n = 0;
	const char	*s = *p;

	if (*s < '1' || *s > '9')
		return 0;
	for (; *s >= '0' && *s <= '9'; s++)
		if ((n = n * 10 + (unsigned long)(*s - '0')) > RATE_MAX)
			return 0;
	*p = s;
	return n;
}

int
wymcp_rate_parse(const char *text, struct wymcp_rate *r)
{
	static const struct {
		const char	*name;
		double		 s;
	} units[] = {
		{ "s", 1 }, { "sec", 1 }, { "second", 1 },
		{ "min", 60 }, { "minute", 60 },
		{ "h", 3600 }, { "hour", 3600 },
	};
	const char	*p = text, *end;
	unsigned long	 n, burst;
	size_t		 i, len;

	if (text == NULL || r == NULL || (n = number(&p)) == 0 || *p++ != '/')
		return -1;
	end = strchr(p, ',');
	len = end != NULL ? (size_t)(end - p) : strlen(p);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (strlen(units[i].name) == len &&
		    strncmp(units[i].name, p, len) == 0)
			break;
	if (i == sizeof(units) / sizeof(units[0]))
		return -1;
	burst = n;
	if (end != NULL) {
		p = end + 1;
		if (strncmp(p, "burst=", 6) != 0)
			return -1;
		p += 6;
		if ((burst = number(&p)) == 0 || *p != '\0')
			return -1;
	}
	r->per_s = (double)n / units[i].s;
	r->burst = (unsigned int)burst;
	return 0;
}
