/*
 * shm.c - a table in memory shared by the processes of an instance
 * (share.c's shares per principal, ratelimit.c's token buckets): the
 * mapping, its robust process-shared lock and its digests' key (shm.h)
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/mman.h>

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <sodium.h>

#include "shm.h"

void *
front_shm_new(size_t len)
{
	struct front_shm	*s;
	pthread_mutexattr_t	 a;

	if (len < sizeof(*s) || sodium_init() < 0)
		return NULL;
	s = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		return NULL;
	if (pthread_mutexattr_init(&a) != 0)
		goto fail;
	if (pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED) != 0 ||
	    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST) != 0 ||
	    pthread_mutex_init(&s->lock, &a) != 0) {
		(void)pthread_mutexattr_destroy(&a);
		goto fail;
	}
	(void)pthread_mutexattr_destroy(&a);
	randombytes_buf(s->key, sizeof(s->key));
	s->bytes = len;
	return s;
fail:
	(void)munmap(s, len);
	return NULL;
}

void
front_shm_free(struct front_shm *s)
{
	if (s != NULL)
		(void)munmap(s, s->bytes);
}

int
front_shm_lock(struct front_shm *s, void (*repair)(void *), void *arg)
{
	int	 rc;

	if ((rc = pthread_mutex_lock(&s->lock)) == EOWNERDEAD) {
		repair(arg);
		(void)pthread_mutex_consistent(&s->lock);
		return 0;
	}
	return rc == 0 ? 0 : -1;
}

void
front_shm_unlock(struct front_shm *s)
{
	(void)pthread_mutex_unlock(&s->lock);
}

size_t
front_shm_home(const unsigned char *d, size_t cap)
{
	uint64_t	 h;

	memcpy(&h, d, sizeof(h));
	return (size_t)h & (cap - 1);
}
