/*
 * row.c - a task row: its memory, its id, its status's name
 *
 * What the interface (store.c) and the request path use; it calls
 * neither.  The helpers the back ends share too are in task.c.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "store/store.h"

/* Wall-clock ms since the epoch (task times are shown as ISO 8601). */
long long
wymcp__now_ms(void)
{
	struct timespec	 ts;

	(void)clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds on the monotonic clock: deadlines' and back-offs'. */
long long
wymcp__clock_ms(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		return 0;
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A copy of `s' if it is at most `max' bytes long; NULL otherwise. */
char *
wymcp__strdup_max(const char *s, size_t max)
{
	if (s == NULL || strlen(s) > max)
		return NULL;
	return strdup(s);
}

/*
 * A new task id into `id' (WYMCP__TASK_ID_LEN + 1 bytes): 144 random
 * bits (randombytes_buf, the OS generator), base64url without padding.
 */
int
wymcp__task_new_id(char *id)
{
	unsigned char	 raw[WYMCP__TASK_ID_BYTES];

	randombytes_buf(raw, sizeof(raw));
	sodium_bin2base64(id, WYMCP__TASK_ID_LEN + 1, raw, sizeof(raw),
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	return 0;
}

/* Could `id' be one of ours?  (Anything else is "not found" at once.) */
int
wymcp__task_id_ok(const char *id)
{
	size_t	 i;

	if (id == NULL || strlen(id) != WYMCP__TASK_ID_LEN)
		return 0;
	for (i = 0; i < WYMCP__TASK_ID_LEN; i++)
		if (!isalnum((unsigned char)id[i]) && id[i] != '-' &&
		    id[i] != '_')
			return 0;
	return 1;
}

const char *
wymcp__task_status_name(int status)
{
	switch (status) {
	case WYMCP__TASK_WORKING:
		return "working";
	case WYMCP__TASK_INPUT:
		return "input_required";
	case WYMCP__TASK_COMPLETED:
		return "completed";
	case WYMCP__TASK_FAILED:
		return "failed";
	default:
		return "cancelled";
	}
}
