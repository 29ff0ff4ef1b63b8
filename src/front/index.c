/*
 * index.c - the hub's index of its streams: by the URIs they watch (a
 * hash table of chains, grown as it fills) and by the list kinds they
 * ask for (a list each), so that an event finds its streams without a
 * scan (events.c: deliver()).  A stream is indexed when it is adopted
 * (hub.c), its URIs follow a 2025-11-25 session's (un)subscribe
 * (events.c), and it leaves the index when it is freed (stream.c:
 * hub_bury()), not when it is dropped: an event of the same turn may
 * walk a chain that holds it.  It calls nothing of the hub's, so that
 * its Check suite (t/unit/check_index.c) builds it alone.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "front.h"
#include "hub.h"

/* FNV-1a of `uri'. */
unsigned int
hub_uri_hash(const char *uri)
{
	unsigned int	 x = 2166136261u;

	while (*uri != '\0')
		x = (x ^ (unsigned char)*uri++) * 16777619u;
	return x;
}

/* Twice the buckets, once the watches outnumber them twice. */
static void
index_grow(struct hub *h)
{
	struct watch	**nb, *w, *next;
	size_t		 n = h->nindex == 0 ? HUB_INDEX_MIN : h->nindex * 2, i;

	if ((nb = calloc(n, sizeof(*nb))) == NULL)
		return;		/* the chains grow longer instead */
	for (i = 0; i < h->nindex; i++)
		for (w = h->index[i]; w != NULL; w = next) {
			next = w->next;
			w->prev = NULL;
			if ((w->next = nb[w->hash & (n - 1)]) != NULL)
				w->next->prev = w;
			nb[w->hash & (n - 1)] = w;
		}
	free(h->index);
	h->index = nb;
	h->nindex = n;
}

/* Stream `s' watches `uri' (once): 0, or -1 (out of memory). */
int
hub_watch(struct hub *h, struct stream *s, const char *uri)
{
	struct watch	*w;
	size_t		 len = strlen(uri);

	for (w = s->watches; w != NULL; w = w->snext)
		if (strcmp(w->uri, uri) == 0)
			return 0;
	if (h->nwatch >= 2 * h->nindex)
		index_grow(h);
	if (h->nindex == 0 || (w = calloc(1, sizeof(*w) + len + 1)) == NULL)
		return -1;
	w->uri = (char *)(w + 1);
	memcpy((char *)(w + 1), uri, len + 1);
	w->hash = hub_uri_hash(uri);
	w->s = s;
	w->snext = s->watches;
	s->watches = w;
	if ((w->next = h->index[w->hash & (h->nindex - 1)]) != NULL)
		w->next->prev = w;
	h->index[w->hash & (h->nindex - 1)] = w;
	h->nwatch++;
	return 0;
}

/* Take watch `w' out of its bucket and free it. */
static void
watch_free(struct hub *h, struct watch *w)
{
	if (w->prev != NULL)
		w->prev->next = w->next;
	else
		h->index[w->hash & (h->nindex - 1)] = w->next;
	if (w->next != NULL)
		w->next->prev = w->prev;
	h->nwatch--;
	free(w);
}

/* Stream `s' no longer watches `uri'. */
void
hub_unwatch(struct hub *h, struct stream *s, const char *uri)
{
	struct watch	*w, **wp;

	for (wp = &s->watches; (w = *wp) != NULL; wp = &w->snext)
		if (strcmp(w->uri, uri) == 0) {
			*wp = w->snext;
			watch_free(h, w);
			return;
		}
}

/* Index a held stream: its URIs, its list kinds.  0, or -1. */
int
hub_index_add(struct hub *h, struct stream *s)
{
	size_t	 i;
	int	 j, rc = 0;

	for (j = 0; j < 3; j++)
		if (s->lists & (1 << j)) {
			s->kprev[j] = NULL;
			if ((s->knext[j] = h->kind[j]) != NULL)
				h->kind[j]->kprev[j] = s;
			h->kind[j] = s;
		}
	for (i = 0; i < s->nuris; i++)
		if (hub_watch(h, s, s->uris[i]) != 0)
			rc = -1;
	return rc;
}

/* Take a stream out of the index (dropped). */
void
hub_index_del(struct hub *h, struct stream *s)
{
	struct watch	*w;
	int		 j;

	for (j = 0; j < 3; j++)
		if (s->lists & (1 << j)) {
			if (s->kprev[j] != NULL)
				s->kprev[j]->knext[j] = s->knext[j];
			else
				h->kind[j] = s->knext[j];
			if (s->knext[j] != NULL)
				s->knext[j]->kprev[j] = s->kprev[j];
		}
	while ((w = s->watches) != NULL) {
		s->watches = w->snext;
		watch_free(h, w);
	}
}
