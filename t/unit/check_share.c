/*
 * check_share.c - the shares per principal of wymcp-fcgi (src/front/
 * share.c): counted per principal, exactly, whatever the names, in a
 * bounded table shared by the pool
 *
 * 0.4 counted them per FNV-1a bucket of the name, mod 1024, so that
 * an address (or a principal name) chosen to land in alice's bucket
 * took alice's --max-listeners-per-principal.  The file is included
 * whole, so that a test can hold the table's lock as a process that
 * dies would.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/wait.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "../../src/front/share.c"

static char	 logged[512];

/* share.c's one call into the rest of the front end. */
void
front_log(int prio, const char *fmt, ...)
{
	va_list	 ap;

	(void)prio;
	va_start(ap, fmt);
	vsnprintf(logged, sizeof(logged), fmt, ap);
	va_end(ap);
}

/* 0.4's bucket: FNV-1a of the name, mod 1024. */
static unsigned int
bucket(const char *s)
{
	uint32_t	 h = 2166136261u;

	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h % 1024;
}

/* An anonymous client's name in alice's 0.4 bucket. */
static void
collider(const char *of, char *out, size_t len)
{
	unsigned int	 i;

	for (i = 0; i < 1u << 20; i++) {
		snprintf(out, len, "addr:10.%u.%u.%u", i >> 16 & 255,
		    i >> 8 & 255, i & 255);
		if (bucket(out) == bucket(of))
			return;
	}
	ck_abort_msg("no collider found");
}

static int
take(struct front_shares *t, const char *who, int per)
{
	unsigned char	 d[FRONT_SHARE_LEN];

	front_share_digest(t, who, d);
	return front_share_take(t, d, per);
}

static void
give(struct front_shares *t, const char *who, int hub)
{
	unsigned char	 d[FRONT_SHARE_LEN];

	front_share_digest(t, who, d);
	front_share_give(t, d, hub);
}

static int
count(struct front_shares *t, const char *who)
{
	unsigned char	 d[FRONT_SHARE_LEN];

	front_share_digest(t, who, d);
	return front_share_count(t, d);
}

static size_t
used(struct front_shares *t)
{
	size_t		 u, cap;
	unsigned long	 full;

	front_shares_figures(t, &u, &cap, &full);
	return u;
}

START_TEST(bucket_mates_do_not_share_a_share)
{
	struct front_shares	*t;
	char			 mate[64];
	int			 i;

	collider("alice", mate, sizeof(mate));
	ck_assert_uint_eq(bucket(mate), bucket("alice"));
	ck_assert_str_ne(mate, "alice");
	t = front_shares_new(1024);
	ck_assert_ptr_nonnull(t);
	/* alice holds her share of 3; her bucket mate still gets its own. */
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(take(t, "alice", 3), 1);
	ck_assert_int_eq(take(t, "alice", 3), 0);
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(take(t, mate, 3), 1);
	ck_assert_int_eq(take(t, mate, 3), 0);
	ck_assert_int_eq(count(t, "alice"), 3);
	ck_assert_int_eq(count(t, mate), 3);
	/* And the other way: the mate's leaving frees nothing of alice's. */
	give(t, mate, 0);
	ck_assert_int_eq(take(t, "alice", 3), 0);
	ck_assert_int_eq(take(t, mate, 3), 1);
	front_shares_free(t);
}
END_TEST

/* The bound: 2 * max slots (a power of two, 16 at least), 24 bytes each. */
START_TEST(memory_is_bounded_and_stated)
{
	ck_assert_uint_eq(sizeof(struct share_slot), 24);
	ck_assert_uint_eq(front_shares_slots(0), 16);
	ck_assert_uint_eq(front_shares_slots(8), 16);
	ck_assert_uint_eq(front_shares_slots(9), 32);
	ck_assert_uint_eq(front_shares_slots(1024), 2048);
	ck_assert_uint_eq(front_shares_slots(1000000), 2097152);
	ck_assert_uint_le(front_shares_bytes(1024), 48 * 1024 + 256);
	ck_assert_uint_le(front_shares_bytes(1000000),
	    48UL * 1024 * 1024 + 256);
}
END_TEST

/*
 * Takes and gives of many principals in a small table (long clusters,
 * every removal shifts), against a plain count per principal.
 */
START_TEST(counts_are_exact_against_a_model)
{
	struct front_shares	*t;
	enum { MAX = 40, NAMES = 60, PER = 4, STEPS = 20000 };
	int			 model[NAMES], live = 0, i, k, r;
	unsigned int		 seed = 12345;
	char			 name[32];

	t = front_shares_new(MAX);
	ck_assert_ptr_nonnull(t);
	memset(model, 0, sizeof(model));
	for (i = 0; i < STEPS; i++) {
		seed = seed * 1103515245u + 12345u;
		k = (int)(seed >> 8) % NAMES;
		snprintf(name, sizeof(name), "p%d", k);
		if ((seed >> 4 & 1) && model[k] > 0) {
			give(t, name, 0);
			if (--model[k] == 0)
				live--;
		} else if (model[k] > 0 || live < MAX) {
			r = take(t, name, PER);
			ck_assert_int_eq(r, model[k] < PER ? 1 : 0);
			if (r == 1 && model[k]++ == 0)
				live++;
		}
		if (i % 97 == 0)
			for (k = 0; k < NAMES; k++) {
				snprintf(name, sizeof(name), "p%d", k);
				ck_assert_int_eq(count(t, name), model[k]);
			}
		ck_assert_uint_eq(used(t), (size_t)live);
	}
	/* Everything given back: the table is empty. */
	for (k = 0; k < NAMES; k++) {
		snprintf(name, sizeof(name), "p%d", k);
		while (model[k]-- > 0)
			give(t, name, 0);
		ck_assert_int_eq(count(t, name), 0);
	}
	ck_assert_uint_eq(used(t), 0);
	for (i = 0; i < (int)t->cap; i++)
		ck_assert_int_eq(t->slot[i].n, 0);
	front_shares_free(t);
}
END_TEST

/* Full: a new principal is refused, never merged; the others go on. */
START_TEST(full_table_refuses_new_principals_only)
{
	struct front_shares	*t;
	size_t			 u, cap;
	unsigned long		 full;
	char			 name[32];
	int			 i;

	t = front_shares_new(4);	/* 16 slots: 12 principals */
	ck_assert_ptr_nonnull(t);
	for (i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		ck_assert_int_eq(take(t, name, 2), 1);
	}
	ck_assert_int_eq(take(t, "newcomer", 2), -1);
	ck_assert_int_eq(count(t, "newcomer"), 0);
	ck_assert_int_eq(take(t, "p3", 2), 1);
	ck_assert_int_eq(count(t, "p3"), 2);
	front_shares_figures(t, &u, &cap, &full);
	ck_assert_uint_eq(u, 12);
	ck_assert_uint_eq(cap, 16);
	ck_assert_uint_eq(full, 1);
	give(t, "p5", 0);
	ck_assert_int_eq(take(t, "newcomer", 2), 1);
	ck_assert_int_eq(count(t, "newcomer"), 1);
	front_shares_free(t);
}
END_TEST

/* The hub died: its streams' shares go, the workers' reservations stay. */
START_TEST(hub_death_gives_back_the_hubs_shares)
{
	struct front_shares	*t;
	unsigned char		 d[FRONT_SHARE_LEN];

	t = front_shares_new(16);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(take(t, "alice", 5), 1);
	ck_assert_int_eq(take(t, "alice", 5), 1);
	ck_assert_int_eq(take(t, "bob", 5), 1);
	front_share_digest(t, "alice", d);
	front_share_to_hub(t, d);
	front_share_digest(t, "bob", d);
	front_share_to_hub(t, d);
	/* A stream the hub holds ends: its share and the hub's go. */
	ck_assert_int_eq(take(t, "carol", 5), 1);
	front_share_digest(t, "carol", d);
	front_share_to_hub(t, d);
	give(t, "carol", 1);
	ck_assert_int_eq(count(t, "carol"), 0);
	front_shares_hub_died(t);
	ck_assert_int_eq(count(t, "alice"), 1);
	ck_assert_int_eq(count(t, "bob"), 0);
	ck_assert_uint_eq(used(t), 1);
	give(t, "alice", 0);
	ck_assert_uint_eq(used(t), 0);
	front_shares_free(t);
}
END_TEST

/* The table is the pool's: what a child takes, the parent counts. */
START_TEST(shared_by_the_processes_of_the_pool)
{
	struct front_shares	*t;
	pid_t			 pid;
	int			 st, i;

	t = front_shares_new(64);
	ck_assert_ptr_nonnull(t);
	if ((pid = fork()) == 0) {
		for (i = 0; i < 3; i++)
			if (take(t, "alice", 3) != 1)
				_exit(1);
		_exit(take(t, "alice", 3) == 0 ? 0 : 2);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_int_eq(count(t, "alice"), 3);
	ck_assert_int_eq(take(t, "alice", 3), 0);
	front_shares_free(t);
}
END_TEST

/*
 * A process that dies holding the lock (a worker killed at its time
 * limit) neither blocks the pool nor leaves the table wrong, even cut
 * in the middle of a removal (a principal twice, a hole in a cluster).
 */
START_TEST(a_holder_that_dies_with_the_lock)
{
	struct front_shares	*t;
	unsigned char		 d[FRONT_SHARE_LEN];
	ssize_t			 i, j;
	pid_t			 pid;
	int			 st;

	t = front_shares_new(8);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(take(t, "alice", 3), 1);
	ck_assert_int_eq(take(t, "alice", 3), 1);
	ck_assert_int_eq(take(t, "bob", 3), 1);
	front_share_digest(t, "alice", d);
	i = find(t, d);
	ck_assert_int_ge(i, 0);
	if ((pid = fork()) == 0) {
		(void)pthread_mutex_lock(&t->shm.lock);
		/* A shift cut short: alice copied, not yet removed. */
		j = (i + 3) & (ssize_t)(t->cap - 1);
		if (t->slot[j].n == 0)
			t->slot[j] = t->slot[i];
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	logged[0] = '\0';
	ck_assert_int_eq(count(t, "alice"), 2);
	ck_assert_msg(strstr(logged, "rebuilt") != NULL, "%s", logged);
	ck_assert_int_eq(count(t, "bob"), 1);
	ck_assert_uint_eq(used(t), 2);
	give(t, "alice", 0);
	give(t, "alice", 0);
	ck_assert_int_eq(count(t, "alice"), 0);
	ck_assert_int_eq(take(t, "alice", 3), 1);
	ck_assert_int_eq(count(t, "alice"), 1);
	front_shares_free(t);
}
END_TEST

/* Each table has its own key: nobody can aim at a slot. */
START_TEST(each_table_keys_its_digests)
{
	struct front_shares	*a, *b;
	unsigned char		 da[FRONT_SHARE_LEN], db[FRONT_SHARE_LEN];

	a = front_shares_new(8);
	b = front_shares_new(8);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	front_share_digest(a, "alice", da);
	front_share_digest(b, "alice", db);
	ck_assert(memcmp(da, db, sizeof(da)) != 0);
	front_share_digest(a, "alice", db);
	ck_assert(memcmp(da, db, sizeof(da)) == 0);
	/* No principal is "" (an older library's): its own share. */
	front_share_digest(a, NULL, da);
	front_share_digest(a, "", db);
	ck_assert(memcmp(da, db, sizeof(da)) == 0);
	front_shares_free(a);
	front_shares_free(b);
}
END_TEST

int
main(void)
{
	SRunner		*sr;
	Suite		*s;
	TCase		*tc;
	int		 nfailed;

	s = suite_create("share");
	tc = tcase_create("share");
	tcase_add_test(tc, bucket_mates_do_not_share_a_share);
	tcase_add_test(tc, memory_is_bounded_and_stated);
	tcase_add_test(tc, counts_are_exact_against_a_model);
	tcase_add_test(tc, full_table_refuses_new_principals_only);
	tcase_add_test(tc, hub_death_gives_back_the_hubs_shares);
	tcase_add_test(tc, shared_by_the_processes_of_the_pool);
	tcase_add_test(tc, a_holder_that_dies_with_the_lock);
	tcase_add_test(tc, each_table_keys_its_digests);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
