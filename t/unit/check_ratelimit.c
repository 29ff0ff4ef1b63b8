/*
 * check_ratelimit.c - wymcp-fcgi's token buckets per principal per tool
 * (src/front/ratelimit.c) and the rate text (wymcp_rate_parse())
 *
 * The file is included whole, so that a test can fill the table and
 * hold its lock as a process that dies would.  Time is passed in: no
 * test sleeps.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "../../src/front/ratelimit.c"

static struct front_rates	*t;

static void
setup(void)
{
	t = front_rates_new();
	ck_assert_ptr_nonnull(t);
}

static void
teardown(void)
{
	front_rates_free(t);
	front_rate_rules_free();
}

START_TEST(rate_text)
{
	struct wymcp_rate	 r;

	ck_assert_int_eq(wymcp_rate_parse("5/min,burst=2", &r), 0);
	ck_assert_uint_eq(r.burst, 2);
	ck_assert(r.per_s > 0.0833 && r.per_s < 0.0834);
	ck_assert_int_eq(wymcp_rate_parse("100/s", &r), 0);
	ck_assert_uint_eq(r.burst, 100);
	ck_assert(r.per_s == 100);
	ck_assert_int_eq(wymcp_rate_parse("3/hour", &r), 0);
	ck_assert_int_eq(wymcp_rate_parse("1000000/sec,burst=1000000", &r),
	    0);
	ck_assert_int_eq(wymcp_rate_parse("0/s", &r), -1);
	ck_assert_int_eq(wymcp_rate_parse("1000001/s", &r), -1);
	ck_assert_int_eq(wymcp_rate_parse("5/day", &r), -1);
	ck_assert_int_eq(wymcp_rate_parse("5/min,burst=0", &r), -1);
	ck_assert_int_eq(wymcp_rate_parse("5/min,burst=2x", &r), -1);
	ck_assert_int_eq(wymcp_rate_parse("5/min,bursts=2", &r), -1);
	ck_assert_int_eq(wymcp_rate_parse("-5/s", &r), -1);
	ck_assert_int_eq(wymcp_rate_parse(" 5/s", &r), -1);
	ck_assert_int_eq(wymcp_rate_parse("5/", &r), -1);
	ck_assert_int_eq(wymcp_rate_parse("", &r), -1);
	ck_assert_int_eq(front_rate_rule("deploy=5/min,burst=2"), 0);
	ck_assert_int_eq(front_rate_rule("=5/min"), -1);
	ck_assert_int_eq(front_rate_rule("deploy"), -1);
}
END_TEST

START_TEST(burst_then_refill)
{
	long long	 now = 1000000;

	ck_assert_int_eq(front_rate_rule("deploy=5/min,burst=2"), 0);
	ck_assert_int_eq(front_rate_take(t, "alice", "deploy", NULL, now), 0);
	ck_assert_int_eq(front_rate_take(t, "alice", "deploy", NULL, now), 0);
	/* The third waits for a token: 12 s at 5 a minute. */
	ck_assert_int_eq(front_rate_take(t, "alice", "deploy", NULL, now),
	    12000);
	ck_assert_int_eq(front_rate_take(t, "alice", "deploy", NULL,
	    now + 6000), 6000);
	ck_assert_int_eq(front_rate_take(t, "alice", "deploy", NULL,
	    now + 12000), 0);
	ck_assert_int_eq(front_rate_take(t, "alice", "deploy", NULL,
	    now + 12000), 12000);
	/* A long pause refills no more than the burst. */
	now += 3600 * 1000;
	ck_assert_int_eq(front_rate_take(t, "alice", "deploy", NULL, now), 0);
	ck_assert_int_eq(front_rate_take(t, "alice", "deploy", NULL, now), 0);
	ck_assert_int_gt(front_rate_take(t, "alice", "deploy", NULL, now), 0);
	ck_assert_uint_eq(t->refused, 4);
}
END_TEST

START_TEST(others_unaffected)
{
	long long	 now = 5000;
	int		 i;

	ck_assert_int_eq(front_rate_rule("deploy=1/min"), 0);
	ck_assert_int_eq(front_rate_rule("*=2/s,burst=2"), 0);
	ck_assert_int_eq(front_rate_take(t, "alice", "deploy", NULL, now), 0);
	ck_assert_int_gt(front_rate_take(t, "alice", "deploy", NULL, now), 0);
	/* Another principal, an address, another tool: their own. */
	ck_assert_int_eq(front_rate_take(t, "bob", "deploy", NULL, now), 0);
	ck_assert_int_eq(front_rate_take(t, "addr:10.0.0.1", "deploy", NULL,
	    now), 0);
	ck_assert_int_eq(front_rate_take(t, "alice", "echo", NULL, now), 0);
	ck_assert_int_eq(front_rate_take(t, "alice", "echo", NULL, now), 0);
	ck_assert_int_eq(front_rate_take(t, "alice", "echo", NULL, now), 500);
	/* No name can stand for another: "alic" + "edeploy" is not it. */
	ck_assert_int_eq(front_rate_take(t, "alic", "edeploy", NULL, now), 0);
	/* The operator's rule wins over the tool's declared one. */
	for (i = 0; i < 3; i++)
		(void)front_rate_take(t, "carol", "deploy", "100/s", now);
	ck_assert_int_gt(front_rate_take(t, "carol", "deploy", "100/s", now),
	    0);
	/* Declared, without a rule of its name: the declaration, not *. */
	ck_assert_int_eq(front_rate_take(t, "carol", "slow", "1/h", now), 0);
	ck_assert_int_eq(front_rate_take(t, "carol", "slow", "1/h", now),
	    3600000);
}
END_TEST

START_TEST(no_rule_no_limit)
{
	int	 i;

	for (i = 0; i < 1000; i++)
		ck_assert_int_eq(front_rate_take(t, "alice", "echo", NULL, 1),
		    0);
	ck_assert_uint_eq(t->used, 0);
}
END_TEST

/*
 * Past three quarters of the table, full buckets are dropped; when none
 * is, a new pair is refused for a second and counted, and the pairs
 * already there keep their buckets.
 */
START_TEST(bounded_table)
{
	char		 who[32];
	long long	 now = 100000;
	size_t		 i, max = FRONT_RATE_SLOTS / 4 * 3;

	ck_assert_int_eq(front_rate_rule("*=1/min"), 0);
	for (i = 0; i < max; i++) {
		snprintf(who, sizeof(who), "addr:%zu", i);
		ck_assert_int_eq(front_rate_take(t, who, "echo", NULL, now),
		    0);
	}
	ck_assert_uint_eq(t->used, max);
	ck_assert_int_eq(front_rate_take(t, "newcomer", "echo", NULL, now),
	    1000);
	ck_assert_uint_eq(t->full, 1);
	ck_assert_int_eq(front_rate_take(t, "addr:7", "echo", NULL, now),
	    60000);
	/* A minute later every bucket is full again: room for all. */
	now += 60000;
	ck_assert_int_eq(front_rate_take(t, "newcomer", "echo", NULL, now),
	    0);
	ck_assert_uint_eq(t->used, 1);
	ck_assert_uint_eq(t->rebuilds, 2);
}
END_TEST

/* A process that dies holding the lock: the next taker goes on. */
START_TEST(owner_dies)
{
	pid_t	 pid;
	int	 st;

	ck_assert_int_eq(front_rate_rule("*=1/min"), 0);
	ck_assert_int_eq(front_rate_take(t, "alice", "echo", NULL, 10), 0);
	ck_assert_int_gt(front_rate_take(t, "alice", "echo", NULL, 10), 0);
	if ((pid = fork()) == 0) {
		(void)pthread_mutex_lock(&t->shm.lock);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	/* Cleared: alice's bucket is full again, never a wrong refusal. */
	ck_assert_int_eq(front_rate_take(t, "alice", "echo", NULL, 10), 0);
	ck_assert_int_gt(front_rate_take(t, "alice", "echo", NULL, 10), 0);
}
END_TEST

/* Two processes take from one bucket: the table is shared. */
START_TEST(shared_across_processes)
{
	pid_t	 pid;
	int	 st, i, got = 0;

	ck_assert_int_eq(front_rate_rule("*=10/min"), 0);
	if ((pid = fork()) == 0) {
		for (i = 0; i < 5; i++)
			if (front_rate_take(t, "alice", "echo", NULL, 10) != 0)
				_exit(1);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	for (i = 0; i < 10; i++)
		got += front_rate_take(t, "alice", "echo", NULL, 10) == 0;
	ck_assert_int_eq(got, 5);
}
END_TEST

static Suite *
ratelimit_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("ratelimit");
	tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, rate_text);
	tcase_add_test(tc, burst_then_refill);
	tcase_add_test(tc, others_unaffected);
	tcase_add_test(tc, no_rule_no_limit);
	tcase_add_test(tc, bounded_table);
	tcase_add_test(tc, owner_dies);
	tcase_add_test(tc, shared_across_processes);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 failed;

	sr = srunner_create(ratelimit_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
