/*
 * share.c - exact shares per principal (hub.c: listen streams,
 * relay.c: held questions)
 *
 * A share is counted per principal, never per bucket of principals:
 * the table holds each principal that holds a share now, by a 16-byte
 * BLAKE2b of its name (`who': the principal, or "addr:" and the
 * client's address) keyed with 32 random bytes drawn when the table is
 * made, so that nobody can choose two names that meet (a chance
 * meeting is one in 2^64 per pair), and its counts.  It lives in
 * shared memory (shm.c: mmap MAP_SHARED, made before the fork) at the
 * same address in every process of the pool.
 *
 * Open addressing with linear probing: a principal whose count falls
 * to 0 leaves the table (backward-shift deletion: no tombstones), so
 * the table holds at most as many principals as hold something.  Its
 * caller takes an instance slot first (--max-listeners, --max-asking),
 * so at most `max' principals are in it (a few more for a moment, while
 * holders give back), and it has the first power of two at least
 * 2 * max slots (16 at least) of 24 bytes: at most half full, a probe
 * ends within a short cluster.  48 KiB for the default --max-listeners
 * 1024, 48 MiB for the largest (1,000,000), of which only the pages
 * principals land on are ever touched.  Should it be three quarters
 * full all the same, a new principal is refused (the caller answers
 * 503 with Retry-After), never merged with another.
 *
 * Every change holds a process-shared robust mutex for a few probes.
 * A process that dies holding it (a worker killed at its time limit)
 * leaves it to the next taker (EOWNERDEAD), which rebuilds the table
 * from the slots that hold something before it goes on, so a change
 * cut short can leave neither a hole in a cluster nor a principal
 * twice.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "front.h"
#include "shm.h"

_Static_assert(crypto_generichash_KEYBYTES <= FRONT_SHM_KEY,
    "the table's key is BLAKE2b's");

/* One principal's slot: n 0 is an empty slot. */
struct share_slot {
	unsigned char	 d[FRONT_SHARE_LEN];	/* keyed digest of `who' */
	int		 n;		/* shares held */
	int		 hub;		/* ... of them by the hub */
};

struct front_shares {
	struct front_shm shm;		/* lock, key, length */
	size_t		 cap;		/* slots, a power of two */
	size_t		 used;		/* principals in the table */
	unsigned long	 full;		/* new principals refused: no room */
	struct share_slot slot[];
};

size_t
front_shares_slots(int max)
{
	size_t	 cap = 16;

	while (cap < (size_t)(max > 0 ? max : 1) * 2)
		cap *= 2;
	return cap;
}

size_t
front_shares_bytes(int max)
{
	return sizeof(struct front_shares) +
	    front_shares_slots(max) * sizeof(struct share_slot);
}

struct front_shares *
front_shares_new(int max)
{
	struct front_shares	*t;

	if ((t = front_shm_new(front_shares_bytes(max))) == NULL)
		return NULL;
	t->cap = front_shares_slots(max);
	return t;
}

void
front_shares_free(struct front_shares *t)
{
	if (t != NULL)
		front_shm_free(&t->shm);
}

void
front_share_digest(const struct front_shares *t, const char *who,
    unsigned char d[FRONT_SHARE_LEN])
{
	if (who == NULL)
		who = "";
	crypto_generichash(d, FRONT_SHARE_LEN, (const unsigned char *)who,
	    strlen(who), t->shm.key, crypto_generichash_KEYBYTES);
}

/* The slot a digest starts its probe at. */
static size_t
home(const struct front_shares *t, const unsigned char *d)
{
	return front_shm_home(d, t->cap);
}

/* The slot holding `d', or the empty one that ends its probe; -1: full. */
static ssize_t
find(const struct front_shares *t, const unsigned char *d)
{
	size_t	 i, k;

	for (k = 0, i = home(t, d); k < t->cap; k++, i = (i + 1) &
	    (t->cap - 1))
		if (t->slot[i].n == 0 ||
		    memcmp(t->slot[i].d, d, FRONT_SHARE_LEN) == 0)
			return (ssize_t)i;
	return -1;
}

/*
 * Empty slot `i' and move back the slots after it that would no longer
 * be found (Knuth's algorithm R for linear probing).
 */
static void
remove_at(struct front_shares *t, size_t i)
{
	size_t	 j = i, h, m = t->cap - 1;

	for (;;) {
		t->slot[i].n = 0;
		t->slot[i].hub = 0;
		for (;;) {
			j = (j + 1) & m;
			if (t->slot[j].n == 0)
				return;
			h = home(t, t->slot[j].d);
			/* Stays when its home is cyclically in (i, j]. */
			if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
				continue;
			break;
		}
		t->slot[i] = t->slot[j];
		i = j;
	}
}

/*
 * After a holder died in the middle of a change: put every slot that
 * holds something back where a probe finds it, each principal once.
 */
static void
rebuild(struct front_shares *t)
{
	struct share_slot	*old;
	size_t			 i, n = t->cap * sizeof(*old);
	ssize_t			 j;

	if ((old = malloc(n)) == NULL) {
		/* No memory: forget the counts rather than misplace them. */
		memset(t->slot, 0, n);
		t->used = 0;
		return;
	}
	memcpy(old, t->slot, n);
	memset(t->slot, 0, n);
	t->used = 0;
	for (i = 0; i < t->cap; i++) {
		if (old[i].n <= 0 || (j = find(t, old[i].d)) == -1 ||
		    t->slot[j].n != 0)
			continue;
		t->slot[j] = old[i];
		t->used++;
	}
	free(old);
}

/* The lock's holder died: the table is rebuilt (front_shm_lock()). */
static void
repair(void *arg)
{
	rebuild(arg);
	front_log(WYMCP_LOG_WARNING, "a process died changing the "
	    "shares per principal: their table is rebuilt");
}

static void
lock(struct front_shares *t)
{
	(void)front_shm_lock(&t->shm, repair, t);
}

static void
unlock(struct front_shares *t)
{
	front_shm_unlock(&t->shm);
}

int
front_share_take(struct front_shares *t, const unsigned char *d, int per)
{
	return front_share_take_mark(t, d, per, NULL, 0);
}

/* One of `d''s count given back (and the hub's, when `hub'); locked. */
static void
give_locked(struct front_shares *t, const unsigned char *d, int hub)
{
	ssize_t		 i;

	if ((i = find(t, d)) != -1 && t->slot[i].n > 0) {
		if (hub && t->slot[i].hub > 0)
			t->slot[i].hub--;
		if (--t->slot[i].n == 0) {
			remove_at(t, (size_t)i);
			t->used--;
		}
	}
}

void
front_share_give(struct front_shares *t, const unsigned char *d, int hub)
{
	lock(t);
	give_locked(t, d, hub);
	unlock(t);
}

/*
 * front_share_take(), and `*mark' (a worker's board: FRONT_HOLD_*; may
 * be NULL) set to `v' under the lock as soon as the count is taken.
 */
int
front_share_take_mark(struct front_shares *t, const unsigned char *d,
    int per, int *mark, int v)
{
	ssize_t		 i;
	int		 rc = 1;

	lock(t);
	if ((i = find(t, d)) == -1 ||
	    (t->slot[i].n == 0 && t->used >= t->cap / 4 * 3)) {
		t->full++;
		rc = -1;
	} else if (t->slot[i].n >= per)
		rc = 0;
	else {
		if (t->slot[i].n == 0) {
			memcpy(t->slot[i].d, d, FRONT_SHARE_LEN);
			t->slot[i].hub = 0;
			t->used++;
		}
		t->slot[i].n++;
		if (mark != NULL)
			__atomic_store_n(mark, v, __ATOMIC_SEQ_CST);
	}
	unlock(t);
	return rc;
}

/*
 * front_share_give(), and `*mark' (a worker's board: FRONT_HOLD_*) set
 * to `v' under the lock just before the count falls: a worker killed
 * while it waits for the lock still holds its share on its board.
 */
void
front_share_give_mark(struct front_shares *t, const unsigned char *d,
    int *mark, int v)
{
	lock(t);
	__atomic_store_n(mark, v, __ATOMIC_SEQ_CST);
	give_locked(t, d, 0);
	unlock(t);
}

void
front_share_to_hub(struct front_shares *t, const unsigned char *d)
{
	ssize_t		 i;

	lock(t);
	if ((i = find(t, d)) != -1 && t->slot[i].n > t->slot[i].hub)
		t->slot[i].hub++;
	unlock(t);
}

void
front_shares_hub_died(struct front_shares *t)
{
	size_t		 i;

	lock(t);
	for (i = 0; i < t->cap; i++) {
		t->slot[i].n -= t->slot[i].hub;
		t->slot[i].hub = 0;
	}
	/* Put the principals that still hold something back in place. */
	rebuild(t);
	unlock(t);
}

int
front_share_count(struct front_shares *t, const unsigned char *d)
{
	ssize_t		 i;
	int		 n;

	lock(t);
	n = (i = find(t, d)) != -1 ? t->slot[i].n : 0;
	unlock(t);
	return n;
}

void
front_shares_figures(struct front_shares *t, size_t *used, size_t *cap,
    unsigned long *full)
{
	lock(t);
	*used = t->used;
	*cap = t->cap;
	*full = t->full;
	unlock(t);
}
