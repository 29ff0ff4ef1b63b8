/*
 * arena.c - the per-request arena
 *
 * Chunks are freed together; cleanup hooks run in reverse order of
 * registration before the chunks go.  Nothing here knows about
 * requests: core/memory.c puts the public calls on top.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/lib.h"

/*
 * A chunk of request memory.  Allocations are carved from the newest
 * chunk; a request that outgrows it gets a new one at least twice as
 * large.  Nothing is freed before the request ends.
 */
struct wymcp__chunk {
	struct wymcp__chunk	*next;	/* older chunk */
	size_t			 size;	/* usable bytes in data */
	size_t			 used;	/* bytes handed out */
	max_align_t		 data[];
};

/* A cleanup hook registered with wymcp__arena_defer(). */
struct wymcp__cleanup {
	struct wymcp__cleanup	*next;	/* registered earlier */
	void			(*fn)(void *);
	void			*arg;
};

#define CHUNK_FIRST	4096
#define ALIGN		(sizeof(max_align_t))

/*
 * One first-size chunk kept from a freed arena for the next one: a
 * request's first allocation then costs no malloc, and no 4 KiB malloc
 * makes glibc consolidate the small chunks json-c just freed, every
 * request.  Taken and given back atomically (task threads have arenas
 * too); a second spare is freed.  Not under the sanitizers: a reused
 * chunk would hide a use after free.
 */
#if defined(__SANITIZE_ADDRESS__)
#define KEEP_SPARE	0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KEEP_SPARE	0
#endif
#endif
#ifndef KEEP_SPARE
#define KEEP_SPARE	1
#endif
static struct wymcp__chunk	*spare;

/* Zero the arena; no memory is taken until the first allocation. */
void
wymcp__arena_init(struct wymcp__arena *a)
{
	memset(a, 0, sizeof(*a));
}

/*
 * Hand out `sz` zeroed bytes aligned for any type.  Returns NULL on
 * allocation failure or size overflow.  Owned by the arena.
 */
void *
wymcp__arena_alloc(struct wymcp__arena *a, size_t sz)
{
	struct wymcp__chunk	*c;
	size_t			 need, csz;
	void			*p;

	if (sz == 0)
		sz = 1;
	if (sz > SIZE_MAX / 2 - ALIGN)
		return NULL;
	need = (sz + ALIGN - 1) & ~(ALIGN - 1);
	c = a->head;
	if (c == NULL || c->size - c->used < need) {
		csz = c == NULL ? CHUNK_FIRST : c->size * 2;
		if (csz < need)
			csz = need;
		if (csz != CHUNK_FIRST || !KEEP_SPARE ||
		    (c = __atomic_exchange_n(&spare, NULL,
		    __ATOMIC_ACQUIRE)) == NULL)
			c = malloc(sizeof(*c) + csz);
		if (c == NULL)
			return NULL;
		c->size = csz;
		c->used = 0;
		c->next = a->head;
		a->head = c;
	}
	p = (char *)c->data + c->used;
	c->used += need;
	a->total += need;
	memset(p, 0, sz);
	return p;
}

/* Copy at most `len` bytes of `s` and terminate.  Owned by the arena. */
char *
wymcp__arena_strndup(struct wymcp__arena *a, const char *s, size_t len)
{
	char	*p;

	if (s == NULL || len == SIZE_MAX)
		return NULL;
	if ((p = wymcp__arena_alloc(a, len + 1)) == NULL)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

/*
 * vsnprintf into the arena.  Owned by the arena; NULL on failure.  A
 * format that is only "%s", or has no conversion at all, is copied
 * without vsnprintf(3), which measures and then writes (tools answer
 * wymcp_result_text(res, "%s", s) all the time).
 */
char *
wymcp__arena_vprintf(struct wymcp__arena *a, const char *fmt, va_list ap)
{
	va_list		 ap2;
	const char	*s;
	int		 n;
	char		*p;

	if (fmt[0] == '%' && fmt[1] == 's' && fmt[2] == '\0') {
		/* As glibc prints a NULL string. */
		if ((s = va_arg(ap, const char *)) == NULL)
			s = "(null)";
		return wymcp__arena_strndup(a, s, strlen(s));
	}
	if (strchr(fmt, '%') == NULL)
		return wymcp__arena_strndup(a, fmt, strlen(fmt));
	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return NULL;
	if ((p = wymcp__arena_alloc(a, (size_t)n + 1)) == NULL)
		return NULL;
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

/*
 * Register fn(arg) to run when the arena is freed.  Returns 0, or -1 on
 * allocation failure (fn has not been registered).
 */
int
wymcp__arena_defer(struct wymcp__arena *a, void (*fn)(void *), void *arg)
{
	struct wymcp__cleanup	*c;

	if (fn == NULL)
		return -1;
	if ((c = wymcp__arena_alloc(a, sizeof(*c))) == NULL)
		return -1;
	c->fn = fn;
	c->arg = arg;
	c->next = a->cleanups;
	a->cleanups = c;
	return 0;
}

/*
 * Run the cleanup hooks, newest first, then release every chunk.  A hook
 * may register further hooks; they run too.  The arena is empty and
 * reusable afterwards.
 */
void
wymcp__arena_free(struct wymcp__arena *a)
{
	struct wymcp__cleanup	*c;
	struct wymcp__chunk	*ch, *next, *none;

	while ((c = a->cleanups) != NULL) {
		a->cleanups = c->next;
		c->fn(c->arg);
	}
	for (ch = a->head; ch != NULL; ch = next) {
		next = ch->next;
		none = NULL;
		if (!KEEP_SPARE || ch->size != CHUNK_FIRST ||
		    !__atomic_compare_exchange_n(&spare, &none, ch, 0,
		    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
			free(ch);
	}
	wymcp__arena_init(a);
}

/*
 * Run the hooks registered after `mark` (a value of a->cleanups taken
 * earlier), newest first, and forget them.  The memory stays.
 */
void
wymcp__arena_unwind(struct wymcp__arena *a, struct wymcp__cleanup *mark)
{
	struct wymcp__cleanup	*c;

	while ((c = a->cleanups) != NULL && c != mark) {
		a->cleanups = c->next;
		c->fn(c->arg);
	}
}
