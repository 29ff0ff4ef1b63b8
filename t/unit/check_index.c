/*
 * check_index.c - the hub's index of its streams (src/front/index.c)
 *
 * index.c is compiled in: it is part of wymcp-fcgi, not of the library.
 * A URI finds exactly the streams that watch it (through the table's
 * growth from HUB_INDEX_MIN buckets), a watch is made once, unwatched
 * or deleted it is gone, and the list kinds find their streams.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "front/front.h"
#include "front/hub.h"

#define NSTREAMS	3000

/* The streams of `h' watching `uri', by walking its chain. */
static size_t
watchers(struct hub *h, const char *uri, struct stream *only)
{
	struct watch	*w;
	unsigned int	 x = hub_uri_hash(uri);
	size_t		 n = 0;

	if (h->nindex == 0)
		return 0;
	for (w = h->index[x & (h->nindex - 1)]; w != NULL; w = w->next)
		if (w->hash == x && strcmp(w->uri, uri) == 0 &&
		    (only == NULL || w->s == only))
			n++;
	return n;
}

START_TEST(by_uri)
{
	static struct stream	 s[NSTREAMS];
	static char		 own[NSTREAMS][32];
	struct hub		 h;
	char			*uris[2];
	size_t			 i;

	memset(&h, 0, sizeof(h));
	memset(s, 0, sizeof(s));
	for (i = 0; i < NSTREAMS; i++) {
		snprintf(own[i], sizeof(own[i]), "note://%zu", i);
		uris[0] = "note://fan";
		uris[1] = own[i];
		s[i].uris = uris;
		s[i].nuris = 2;
		ck_assert_int_eq(hub_index_add(&h, &s[i]), 0);
		s[i].uris = NULL;
		s[i].nuris = 0;
	}
	ck_assert_uint_ge(h.nindex, NSTREAMS);	/* it grew */
	ck_assert_uint_eq(h.nwatch, 2 * NSTREAMS);
	ck_assert_uint_eq(watchers(&h, "note://fan", NULL), NSTREAMS);
	ck_assert_uint_eq(watchers(&h, "note://17", &s[17]), 1);
	ck_assert_uint_eq(watchers(&h, "note://17", NULL), 1);
	ck_assert_uint_eq(watchers(&h, "note://nobody", NULL), 0);
	/* Once only. */
	ck_assert_int_eq(hub_watch(&h, &s[5], "note://fan"), 0);
	ck_assert_uint_eq(watchers(&h, "note://fan", NULL), NSTREAMS);
	hub_unwatch(&h, &s[5], "note://fan");
	ck_assert_uint_eq(watchers(&h, "note://fan", NULL), NSTREAMS - 1);
	ck_assert_uint_eq(watchers(&h, "note://fan", &s[5]), 0);
	ck_assert_uint_eq(watchers(&h, "note://5", &s[5]), 1);
	for (i = 0; i < NSTREAMS; i += 2)
		hub_index_del(&h, &s[i]);
	ck_assert_uint_eq(watchers(&h, "note://fan", NULL), NSTREAMS / 2 -
	    (5 % 2 == 1));
	ck_assert_uint_eq(watchers(&h, "note://4", NULL), 0);
	ck_assert_uint_eq(watchers(&h, "note://7", NULL), 1);
	for (i = 1; i < NSTREAMS; i += 2)
		hub_index_del(&h, &s[i]);
	ck_assert_uint_eq(h.nwatch, 0);
	free(h.index);
}
END_TEST

START_TEST(by_kind)
{
	struct stream	 s[4], *p;
	struct hub	 h;
	int		 n;

	memset(&h, 0, sizeof(h));
	memset(s, 0, sizeof(s));
	s[0].lists = 0x1;
	s[1].lists = 0x1 | 0x4;
	s[2].lists = 0x2;
	s[3].lists = 0;
	for (n = 0; n < 4; n++)
		ck_assert_int_eq(hub_index_add(&h, &s[n]), 0);
	for (n = 0, p = h.kind[0]; p != NULL; p = p->knext[0])
		n++;
	ck_assert_int_eq(n, 2);
	ck_assert_ptr_eq(h.kind[1], &s[2]);
	ck_assert_ptr_null(s[2].knext[1]);
	ck_assert_ptr_eq(h.kind[2], &s[1]);
	hub_index_del(&h, &s[1]);
	ck_assert_ptr_eq(h.kind[0], &s[0]);
	ck_assert_ptr_null(s[0].knext[0]);
	ck_assert_ptr_null(h.kind[2]);
	hub_index_del(&h, &s[0]);
	hub_index_del(&h, &s[2]);
	hub_index_del(&h, &s[3]);
	ck_assert_ptr_null(h.kind[0]);
	ck_assert_ptr_null(h.kind[1]);
	free(h.index);
}
END_TEST

static Suite *
index_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("index");
	tc = tcase_create("index");
	tcase_add_test(tc, by_uri);
	tcase_add_test(tc, by_kind);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 failed;

	sr = srunner_create(index_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
