/* check_arena.c - the per-request arena and its cleanup hooks */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "testing/testing.h"

/* The order hooks ran in, as tags, and how many ran. */
static int	 ran[16];
static size_t	 nran;

static void
record(void *arg)
{
	if (nran < sizeof(ran) / sizeof(ran[0]))
		ran[nran] = *(int *)arg;
	nran++;
}

static void
reset(void)
{
	memset(ran, 0, sizeof(ran));
	nran = 0;
}

static char *WYMCP_PRINTF(2, 3)
aprintf(struct wymcp__arena *a, const char *fmt, ...)
{
	va_list	 ap;
	char	*p;

	va_start(ap, fmt);
	p = wymcp__arena_vprintf(a, fmt, ap);
	va_end(ap);
	return p;
}

START_TEST(alloc_is_aligned_for_any_type)
{
	struct wymcp__arena	 a;
	size_t			 sz;
	void			*p;

	wymcp__arena_init(&a);
	for (sz = 0; sz < 300; sz++) {
		p = wymcp__arena_alloc(&a, sz);
		ck_assert_ptr_nonnull(p);
		ck_assert_uint_eq((uintptr_t)p % _Alignof(max_align_t), 0);
	}
	/* Past the first chunk too. */
	for (sz = 1; sz < 20000; sz += 997) {
		p = wymcp__arena_alloc(&a, sz);
		ck_assert_ptr_nonnull(p);
		ck_assert_uint_eq((uintptr_t)p % _Alignof(max_align_t), 0);
	}
	wymcp__arena_free(&a);
}
END_TEST

START_TEST(alloc_is_zeroed)
{
	struct wymcp__arena	 a;
	unsigned char		*p;
	size_t			 i, sz;

	/*
	 * Chunks come from malloc(3); under ASan fresh malloc memory is
	 * filled with 0xbe, so an allocation that skipped the memset shows.
	 */
	wymcp__arena_init(&a);
	for (sz = 1; sz < 9000; sz = sz * 3 + 1) {
		p = wymcp__arena_alloc(&a, sz);
		ck_assert_ptr_nonnull(p);
		for (i = 0; i < sz; i++)
			ck_assert_uint_eq(p[i], 0);
		memset(p, 0xa5, sz);
	}
	wymcp__arena_free(&a);
}
END_TEST

START_TEST(alloc_zero_bytes_gives_distinct_pointers)
{
	struct wymcp__arena	 a;
	void			*p, *q;

	wymcp__arena_init(&a);
	p = wymcp__arena_alloc(&a, 0);
	q = wymcp__arena_alloc(&a, 0);
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(q);
	ck_assert_ptr_ne(p, q);
	wymcp__arena_free(&a);
}
END_TEST

START_TEST(alloc_grows_beyond_first_chunk)
{
	struct wymcp__arena	 a;
	unsigned char		*p[1100];
	struct wymcp__chunk	*first;
	size_t			 i, k, bad, piece = 1000;

	wymcp__arena_init(&a);
	p[0] = wymcp__arena_alloc(&a, piece);
	ck_assert_ptr_nonnull(p[0]);
	first = a.head;
	memset(p[0], 0, piece);
	for (i = 1; i < sizeof(p) / sizeof(p[0]); i++) {
		p[i] = wymcp__arena_alloc(&a, piece);
		ck_assert_ptr_nonnull(p[i]);
		memset(p[i], (int)(i & 0xff), piece);
	}
	ck_assert_ptr_ne(a.head, first);
	ck_assert_uint_ge(a.total, 1024 * 1024);
	/* No allocation overlaps another (one assertion: fast under ASan). */
	for (bad = 0, i = 1; i < sizeof(p) / sizeof(p[0]); i++)
		for (k = 0; k < piece; k++)
			bad += p[i][k] != (i & 0xff);
	ck_assert_uint_eq(bad, 0);
	/* One piece larger than any chunk so far. */
	p[0] = wymcp__arena_alloc(&a, 4 * 1024 * 1024);
	ck_assert_ptr_nonnull(p[0]);
	p[0][4 * 1024 * 1024 - 1] = 1;
	wymcp__arena_free(&a);
}
END_TEST

START_TEST(alloc_huge_size_returns_null)
{
	struct wymcp__arena	 a;

	wymcp__arena_init(&a);
	ck_assert_ptr_null(wymcp__arena_alloc(&a, SIZE_MAX));
	ck_assert_ptr_null(wymcp__arena_alloc(&a, SIZE_MAX - 8));
	ck_assert_ptr_null(wymcp__arena_alloc(&a, SIZE_MAX / 2));
	ck_assert_ptr_null(wymcp__arena_strndup(&a, "x", SIZE_MAX));
	ck_assert_uint_eq(a.total, 0);
	/* Still usable. */
	ck_assert_ptr_nonnull(wymcp__arena_alloc(&a, 16));
	wymcp__arena_free(&a);
}
END_TEST

START_TEST(strndup_copies_at_most_len_and_terminates)
{
	struct wymcp__arena	 a;
	char			*s;

	wymcp__arena_init(&a);
	s = wymcp__arena_strndup(&a, "hello world", 5);
	ck_assert_str_eq(s, "hello");
	s = wymcp__arena_strndup(&a, "", 0);
	ck_assert_str_eq(s, "");
	/* Embedded bytes are copied as they are. */
	s = wymcp__arena_strndup(&a, "a\0b", 3);
	ck_assert_int_eq(memcmp(s, "a\0b", 4), 0);
	ck_assert_ptr_null(wymcp__arena_strndup(&a, NULL, 3));
	wymcp__arena_free(&a);
}
END_TEST

START_TEST(printf_formats_into_arena)
{
	struct wymcp__arena	 a;
	char			*s;

	wymcp__arena_init(&a);
	s = aprintf(&a, "%s=%d", "n", 42);
	ck_assert_str_eq(s, "n=42");
	s = aprintf(&a, "%s", "");
	ck_assert_str_eq(s, "");
	/* Longer than the first chunk. */
	s = aprintf(&a, "%9000d|", 7);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(strlen(s), 9001);
	ck_assert_int_eq(s[8999], '7');
	ck_assert_int_eq(s[9000], '|');
	wymcp__arena_free(&a);
}
END_TEST

/* "%s" alone and formats without a conversion are copied, not printed. */
START_TEST(printf_copies_plain_formats)
{
	struct wymcp__arena	 a;
	char			 big[20000], *s;
	const char		*none = NULL;

	wymcp__arena_init(&a);
	memset(big, 'b', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	s = aprintf(&a, "%s", big);
	ck_assert_ptr_ne(s, big);
	ck_assert_str_eq(s, big);
	s = aprintf(&a, "no conversion");
	ck_assert_str_eq(s, "no conversion");
	s = aprintf(&a, "%%s");
	ck_assert_str_eq(s, "%s");
	s = aprintf(&a, "%s!", "x");
	ck_assert_str_eq(s, "x!");
	/* What glibc prints for a NULL string, with or without the copy. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-overflow"
#pragma GCC diagnostic ignored "-Wformat"
	s = aprintf(&a, "%s", none);
#pragma GCC diagnostic pop
	ck_assert_str_eq(s, "(null)");
	wymcp__arena_free(&a);
}
END_TEST

START_TEST(cleanups_run_in_reverse_order_exactly_once)
{
	struct wymcp__arena	 a;
	int			 t1 = 1, t2 = 2, t3 = 3;

	reset();
	wymcp__arena_init(&a);
	ck_assert_int_eq(wymcp__arena_defer(&a, record, &t1), 0);
	ck_assert_int_eq(wymcp__arena_defer(&a, record, &t2), 0);
	ck_assert_int_eq(wymcp__arena_defer(&a, record, &t3), 0);
	ck_assert_uint_eq(nran, 0);
	wymcp__arena_free(&a);
	ck_assert_uint_eq(nran, 3);
	ck_assert_int_eq(ran[0], 3);
	ck_assert_int_eq(ran[1], 2);
	ck_assert_int_eq(ran[2], 1);
	/* Freeing again runs nothing. */
	wymcp__arena_free(&a);
	ck_assert_uint_eq(nran, 3);
}
END_TEST

START_TEST(cleanup_defer_null_fn_rejected)
{
	struct wymcp__arena	 a;

	wymcp__arena_init(&a);
	ck_assert_int_eq(wymcp__arena_defer(&a, NULL, NULL), -1);
	ck_assert_ptr_null(a.cleanups);
	wymcp__arena_free(&a);
}
END_TEST

static struct wymcp__arena	*chain_arena;
static int			 chain_tag = 9;

/* A hook that registers another hook while the arena is being freed. */
static void
chain(void *arg)
{
	record(arg);
	ck_assert_int_eq(wymcp__arena_defer(chain_arena, record, &chain_tag),
	    0);
}

START_TEST(cleanup_registering_cleanup_still_runs)
{
	struct wymcp__arena	 a;
	int			 t1 = 1, t2 = 2;

	reset();
	wymcp__arena_init(&a);
	chain_arena = &a;
	ck_assert_int_eq(wymcp__arena_defer(&a, record, &t1), 0);
	ck_assert_int_eq(wymcp__arena_defer(&a, chain, &t2), 0);
	wymcp__arena_free(&a);
	/* chain (2) ran first, its new hook (9) before the older 1. */
	ck_assert_uint_eq(nran, 3);
	ck_assert_int_eq(ran[0], 2);
	ck_assert_int_eq(ran[1], 9);
	ck_assert_int_eq(ran[2], 1);
	ck_assert_ptr_null(a.cleanups);
	ck_assert_ptr_null(a.head);
}
END_TEST

START_TEST(unwind_runs_hooks_after_mark_only)
{
	struct wymcp__arena	 a;
	struct wymcp__cleanup	*mark;
	int			 t1 = 1, t2 = 2, t3 = 3;
	char			*keep;

	reset();
	wymcp__arena_init(&a);
	ck_assert_int_eq(wymcp__arena_defer(&a, record, &t1), 0);
	mark = a.cleanups;
	keep = aprintf(&a, "%s", "still here");
	ck_assert_int_eq(wymcp__arena_defer(&a, record, &t2), 0);
	ck_assert_int_eq(wymcp__arena_defer(&a, record, &t3), 0);
	wymcp__arena_unwind(&a, mark);
	ck_assert_uint_eq(nran, 2);
	ck_assert_int_eq(ran[0], 3);
	ck_assert_int_eq(ran[1], 2);
	ck_assert_ptr_eq(a.cleanups, mark);
	/* The memory stays. */
	ck_assert_str_eq(keep, "still here");
	/* Unwinding to the same mark again runs nothing. */
	wymcp__arena_unwind(&a, mark);
	ck_assert_uint_eq(nran, 2);
	wymcp__arena_free(&a);
	ck_assert_uint_eq(nran, 3);
	ck_assert_int_eq(ran[2], 1);
}
END_TEST

START_TEST(arena_reusable_after_free)
{
	struct wymcp__arena	 a;
	char			*s;
	int			 t1 = 1;
	size_t			 i;

	reset();
	wymcp__arena_init(&a);
	for (i = 0; i < 100; i++)
		ck_assert_ptr_nonnull(wymcp__arena_alloc(&a, 1000));
	wymcp__arena_free(&a);
	ck_assert_ptr_null(a.head);
	ck_assert_ptr_null(a.cleanups);
	ck_assert_uint_eq(a.total, 0);
	s = aprintf(&a, "again %d", 2);
	ck_assert_str_eq(s, "again 2");
	ck_assert_int_eq(wymcp__arena_defer(&a, record, &t1), 0);
	wymcp__arena_free(&a);
	ck_assert_uint_eq(nran, 1);
}
END_TEST

/* Counts json-c userdata deletions: the object was really freed. */
static int	 json_freed;

static void
json_gone(struct json_object *o, void *userdata)
{
	json_freed++;
	ck_assert_ptr_eq(userdata, &json_freed);
}

static struct json_object *
observed(void)
{
	struct json_object	*o;

	o = json_object_new_object();
	ck_assert_ptr_nonnull(o);
	json_object_set_userdata(o, &json_freed, json_gone);
	return o;
}

START_TEST(own_puts_object_when_request_ends)
{
	struct wymcp_ctx	 ctx;
	struct json_object	*o;

	json_freed = 0;
	wymcp__ctx_init(&ctx, NULL, NULL);
	o = observed();
	ck_assert_ptr_eq(wymcp_own(&ctx, o), o);
	ck_assert_int_eq(json_freed, 0);
	/* Still usable while the request lives. */
	json_object_object_add(o, "k", json_object_new_int(1));
	wymcp__ctx_free(&ctx);
	ck_assert_int_eq(json_freed, 1);
}
END_TEST

START_TEST(own_keeps_other_references)
{
	struct wymcp_ctx	 ctx;
	struct json_object	*o;

	json_freed = 0;
	wymcp__ctx_init(&ctx, NULL, NULL);
	o = observed();
	json_object_get(o);
	wymcp_own(&ctx, o);
	wymcp__ctx_free(&ctx);
	ck_assert_int_eq(json_freed, 0);
	json_object_put(o);
	ck_assert_int_eq(json_freed, 1);
}
END_TEST

START_TEST(own_without_ctx_puts_and_returns_null)
{
	json_freed = 0;
	ck_assert_ptr_null(wymcp_own(NULL, observed()));
	ck_assert_int_eq(json_freed, 1);
	ck_assert_ptr_null(wymcp_own(NULL, NULL));
}
END_TEST

START_TEST(own_null_object_is_null)
{
	struct wymcp_ctx	 ctx;

	wymcp__ctx_init(&ctx, NULL, NULL);
	ck_assert_ptr_null(wymcp_own(&ctx, NULL));
	ck_assert_ptr_null(ctx.arena.cleanups);
	wymcp__ctx_free(&ctx);
}
END_TEST

START_TEST(defer_null_ctx_or_fn_is_inval)
{
	struct wymcp_ctx	 ctx;
	int			 t1 = 1;

	reset();
	ck_assert_int_eq(wymcp_defer(NULL, record, &t1), WYMCP_ERR_INVAL);
	wymcp__ctx_init(&ctx, NULL, NULL);
	ck_assert_int_eq(wymcp_defer(&ctx, NULL, &t1), WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_defer(&ctx, record, &t1), WYMCP_OK);
	ck_assert_uint_eq(nran, 0);
	wymcp__ctx_free(&ctx);
	ck_assert_uint_eq(nran, 1);
	ck_assert_int_eq(ran[0], 1);
}
END_TEST

START_TEST(public_wrappers_handle_null)
{
	struct wymcp_ctx	 ctx;
	char			*s;

	ck_assert_ptr_null(wymcp_alloc(NULL, 8));
	ck_assert_ptr_null(wymcp_strdup(NULL, "x"));
	ck_assert_ptr_null(wymcp_printf(NULL, "%d", 1));
	wymcp__ctx_init(&ctx, NULL, NULL);
	ck_assert_ptr_null(wymcp_strdup(&ctx, NULL));
	s = wymcp_strdup(&ctx, "dup");
	ck_assert_str_eq(s, "dup");
	s = wymcp_printf(&ctx, "%s-%u", "p", 5u);
	ck_assert_str_eq(s, "p-5");
	ck_assert_ptr_nonnull(wymcp_alloc(&ctx, 32));
	ck_assert_ptr_null(wymcp_alloc(&ctx, SIZE_MAX));
	wymcp__ctx_free(&ctx);
}
END_TEST

static Suite *
arena_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("arena");
	tc = tcase_create("alloc");
	tcase_add_test(tc, alloc_is_aligned_for_any_type);
	tcase_add_test(tc, alloc_is_zeroed);
	tcase_add_test(tc, alloc_zero_bytes_gives_distinct_pointers);
	tcase_add_test(tc, alloc_grows_beyond_first_chunk);
	tcase_add_test(tc, alloc_huge_size_returns_null);
	tcase_add_test(tc, strndup_copies_at_most_len_and_terminates);
	tcase_add_test(tc, printf_formats_into_arena);
	tcase_add_test(tc, printf_copies_plain_formats);
	suite_add_tcase(s, tc);

	tc = tcase_create("cleanup");
	tcase_add_test(tc, cleanups_run_in_reverse_order_exactly_once);
	tcase_add_test(tc, cleanup_defer_null_fn_rejected);
	tcase_add_test(tc, cleanup_registering_cleanup_still_runs);
	tcase_add_test(tc, unwind_runs_hooks_after_mark_only);
	tcase_add_test(tc, arena_reusable_after_free);
	suite_add_tcase(s, tc);

	tc = tcase_create("public");
	tcase_add_test(tc, own_puts_object_when_request_ends);
	tcase_add_test(tc, own_keeps_other_references);
	tcase_add_test(tc, own_without_ctx_puts_and_returns_null);
	tcase_add_test(tc, own_null_object_is_null);
	tcase_add_test(tc, defer_null_ctx_or_fn_is_inval);
	tcase_add_test(tc, public_wrappers_handle_null);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	sr = srunner_create(arena_suite());
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
