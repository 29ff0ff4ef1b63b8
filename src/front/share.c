/* share.c - the buckets of shares per principal (hub.c, relay.c) */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>

#include "front.h"

/* FNV-1a of `s', for the bucket of who holds a share. */
unsigned int
front_share_bucket(const char *s)
{
	uint32_t	 h = 2166136261u;

	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h % FRONT_SHARES;
}
