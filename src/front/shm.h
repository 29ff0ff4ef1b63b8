/* shm.h - a table in memory shared by the processes of an instance */
#ifndef WYMCP_FRONT_SHM_H
#define WYMCP_FRONT_SHM_H

/*
 * What share.c (shares per principal) and ratelimit.c (token buckets)
 * have in common (shm.c): a table in shared memory (mmap MAP_SHARED
 * and anonymous, made by the supervisor before the fork, at the same
 * address in every process of the pool) that begins with a struct
 * front_shm: a process-shared robust mutex, FRONT_SHM_KEY random bytes
 * drawn when it is made (the key of the digests that name its slots:
 * nobody who does not know it can choose two names that meet) and the
 * mapping's length.  Its slots are found by open addressing with linear
 * probing from front_shm_home() of a digest.
 *
 * front_shm_new(len): the zeroed mapping of `len' bytes, its header
 * filled (NULL: out of memory); front_shm_free() unmaps it (NULL: no-op).
 * front_shm_lock(): 0 once the lock is held, -1 when it cannot be
 * taken; a process that died holding it (a worker killed at its time
 * limit) leaves the table to the next taker, which calls repair(arg)
 * before it goes on.  front_shm_home(): the slot a digest's probe
 * starts at, in a table of `cap' slots (a power of two).
 */

#include <pthread.h>
#include <stddef.h>

#define FRONT_SHM_KEY	32	/* bytes of the digests' key */

struct front_shm {
	pthread_mutex_t	 lock;		/* robust, process-shared */
	unsigned char	 key[FRONT_SHM_KEY];
	size_t		 bytes;		/* the mapping's length */
};

void		*front_shm_new(size_t len);
void		 front_shm_free(struct front_shm *);
int		 front_shm_lock(struct front_shm *,
		    void (*repair)(void *), void *arg);
void		 front_shm_unlock(struct front_shm *);
size_t		 front_shm_home(const unsigned char *d, size_t cap);

#endif
