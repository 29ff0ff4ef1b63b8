/*
 * check_slots.c - what a wymcp-fcgi worker holds of the listen slots
 * (src/front/listen.c) on its board, and what the supervisor gives back
 * when it dies (front_listen_dead())
 *
 * A worker took a slot (--max-listeners) and its principal's share
 * (--max-listeners-per-principal, share.c) and only it gave them back:
 * killed before the hub had the stream, it leaked both until the
 * program restarted.  listen.c and share.c are included whole, so that
 * the tests read the worker's reservation; the page, the board and the
 * share table are shared mappings, and a forked child plays the worker
 * that dies.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#include "../../src/front/share.c"
#include "../../src/front/listen.c"

static char	 logged[512];

void
front_log(int prio, const char *fmt, ...)
{
	va_list	 ap;

	(void)prio;
	va_start(ap, fmt);
	vsnprintf(logged, sizeof(logged), fmt, ap);
	va_end(ap);
}

long long
front_now_ms(void)
{
	struct timespec	 ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* bus.c's, not used here. */
void
front_bus_oneline(char *s)
{
	(void)s;
}

static struct front_limits	 lim;
static struct front_listen	*page;
static struct front_board	*board;
static int			 chan[2] = { -1, -1 };	/* hub, workers */

static void *
shared(size_t len)
{
	void	*p = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	memset(p, 0, len);
	return p;
}

static void
setup(void)
{
	page = shared(sizeof(*page));
	board = shared(sizeof(*board));
	page->max = 3;
	page->per = 2;
	page->hub_up = 1;
	page->fd_room = 100;
	ck_assert_ptr_nonnull(page->shares = front_shares_new(page->max));
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0,
	    chan), 0);
	page->own_fd = chan[0];
	page->tell_fd = chan[1];
	memset(&lim, 0, sizeof(lim));
	lim.listen = page;
	front_listen_worker(board);
	reserved = handed = 0;
}

static void
teardown(void)
{
	front_shares_free(page->shares);
	(void)munmap(page, sizeof(*page));
	(void)munmap(board, sizeof(*board));
	(void)close(chan[0]);
	(void)close(chan[1]);
	front_listen_worker(NULL);
}

static int
hold(const char *who)
{
	struct wymcp_listen	 wl;

	memset(&wl, 0, sizeof(wl));
	wl.who = who;
	return front_listen_hold(&lim, NULL, &wl);
}

static int
share_of(const char *who)
{
	unsigned char	 d[FRONT_SHARE_LEN];

	front_share_digest(page->shares, who, d);
	return front_share_count(page->shares, d);
}

/* The figures the status page shows: slots taken, principals. */
static void
figures(int held, size_t principals, unsigned long reclaimed)
{
	size_t		 used, cap;
	unsigned long	 full;

	front_shares_figures(page->shares, &used, &cap, &full);
	ck_assert_int_eq(page->held, held);
	ck_assert_uint_eq(used, principals);
	ck_assert_uint_eq(page->reclaimed, reclaimed);
}

/* The board says what is held, and a request's end gives it back. */
START_TEST(board_follows_the_reservation)
{
	ck_assert_int_eq(hold("alice"), 0);
	ck_assert_int_eq(board->listen, FRONT_HOLD_SHARE);
	figures(1, 1, 0);
	ck_assert_int_eq(front_listen_done(&lim), 0);
	ck_assert_int_eq(board->listen, FRONT_HOLD_NONE);
	figures(0, 0, 0);
	/* Refused for the principal's share: nothing held, nothing on
	   the board. */
	ck_assert_int_eq(hold("alice"), 0);
	reserved = 0;
	ck_assert_int_eq(hold("alice"), 0);
	reserved = 0;
	ck_assert_int_eq(hold("alice"), -2);
	ck_assert_int_eq(board->listen, FRONT_HOLD_NONE);
	figures(2, 1, 0);
}
END_TEST

/*
 * A worker that dies holding a slot and a share, more times than
 * --max-listeners: each is given back, once.
 */
START_TEST(dead_holders_give_back_once)
{
	pid_t	 pid;
	int	 i, st;

	for (i = 0; i < 5; i++) {
		if ((pid = fork()) == 0) {
			front_listen_worker(board);
			_exit(hold("alice") == 0 ? 0 : 1);
		}
		ck_assert_int_ne(pid, -1);
		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		    "listen %d refused: a dead worker's slot leaked", i + 1);
		ck_assert_int_eq(board->listen, FRONT_HOLD_SHARE);
		figures(1, 1, (unsigned long)i);
		front_listen_dead(&lim, board);
		figures(0, 0, (unsigned long)i + 1);
		ck_assert_int_eq(share_of("alice"), 0);
		/* Reaped twice (it cannot be, but): nothing more. */
		front_listen_dead(&lim, board);
		figures(0, 0, (unsigned long)i + 1);
	}
	ck_assert_ptr_nonnull(strstr(logged, "given back"));
}
END_TEST

/* Only the slot taken (a death before the share): only the slot. */
START_TEST(dead_with_the_slot_only)
{
	unsigned char	 d[FRONT_SHARE_LEN];

	/* Another worker's alice holds one share. */
	front_share_digest(page->shares, "alice", d);
	ck_assert_int_eq(front_share_take(page->shares, d, 2), 1);
	page->held = 2;
	memcpy(board->listen_share, d, sizeof(d));
	board->listen = FRONT_HOLD_SLOT;
	front_listen_dead(&lim, board);
	figures(1, 1, 1);
	ck_assert_int_eq(share_of("alice"), 1);
}
END_TEST

/*
 * Handed over: the hub's from then on.  A worker that dies after the
 * handoff gives nothing back; one whose handoff failed does, by its
 * request's end or, dead, by the supervisor.
 */
START_TEST(handed_is_the_hubs)
{
	FCGX_Request		 req;
	struct wymcp_listen	 wl;
	int			 sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	memset(&req, 0, sizeof(req));
	memset(&wl, 0, sizeof(wl));
	req.ipcFd = sv[0];
	wl.who = "alice";
	ck_assert_int_eq(front_listen_hold(&lim, &req, &wl), 0);
	ck_assert_int_eq(front_listen_hand(&lim, &req, &wl), 0);
	ck_assert_int_eq(board->listen, FRONT_HOLD_NONE);
	ck_assert_int_eq(front_listen_done(&lim), 1);
	front_listen_dead(&lim, board);
	figures(1, 1, 0);		/* the hub gives it back, later */
	/* No hub to take it (the channel's other end closed). */
	(void)close(chan[0]);
	chan[0] = -1;
	ck_assert_int_eq(front_listen_hold(&lim, &req, &wl), 0);
	ck_assert_int_eq(front_listen_hand(&lim, &req, &wl), -1);
	ck_assert_int_eq(board->listen, FRONT_HOLD_SHARE);
	figures(2, 1, 0);
	front_listen_dead(&lim, board);
	figures(1, 1, 1);
	(void)close(sv[0]);
	(void)close(sv[1]);
}
END_TEST

/* share.c's marks move with the counts, under the lock: not when refused. */
START_TEST(marks_move_with_the_counts)
{
	unsigned char	 d[FRONT_SHARE_LEN];
	int		 mark = FRONT_HOLD_SLOT;

	front_share_digest(page->shares, "bob", d);
	ck_assert_int_eq(front_share_take_mark(page->shares, d, 1, &mark,
	    FRONT_HOLD_SHARE), 1);
	ck_assert_int_eq(mark, FRONT_HOLD_SHARE);
	mark = FRONT_HOLD_SLOT;
	ck_assert_int_eq(front_share_take_mark(page->shares, d, 1, &mark,
	    FRONT_HOLD_SHARE), 0);
	ck_assert_int_eq(mark, FRONT_HOLD_SLOT);
	ck_assert_int_eq(share_of("bob"), 1);
	front_share_give_mark(page->shares, d, &mark, FRONT_HOLD_NONE);
	ck_assert_int_eq(mark, FRONT_HOLD_NONE);
	ck_assert_int_eq(share_of("bob"), 0);
}
END_TEST

/*
 * Has `pid' gone to sleep (state S in /proc/PID/stat)?  The worker
 * below does nothing that sleeps but wait for the table's lock.
 */
static int
on_futex(pid_t pid)
{
	char	 p[64], w[256], *e;
	FILE	*f;
	int	 yes = 0;

	snprintf(p, sizeof(p), "/proc/%ld/stat", (long)pid);
	if ((f = fopen(p, "r")) != NULL) {
		yes = fgets(w, sizeof(w), f) != NULL &&
		    (e = strrchr(w, ')')) != NULL && e[1] == ' ' &&
		    e[2] == 'S';
		(void)fclose(f);
	}
	return yes;
}

/*
 * A worker killed while it waits for the share table's lock to give
 * its share back still holds the share on its board: the supervisor
 * gives it back (the lock's holder killed too: the table is rebuilt).
 */
START_TEST(killed_waiting_for_the_lock)
{
	pid_t	 a, b;
	int	 p[2], i, st;
	char	 c;

	ck_assert_int_eq(hold("alice"), 0);
	ck_assert_int_eq(pipe(p), 0);
	if ((a = fork()) == 0) {
		lock(page->shares);
		(void)write(p[1], "x", 1);
		for (;;)
			pause();
	}
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	if ((b = fork()) == 0) {
		(void)front_listen_done(&lim);
		_exit(0);
	}
	for (i = 0; i < 2000 && !on_futex(b); i++)
		usleep(10000);
	ck_assert_msg(on_futex(b), "the worker never waited for the lock");
	(void)kill(b, SIGKILL);
	ck_assert_int_eq(waitpid(b, &st, 0), b);
	ck_assert_int_eq(board->listen, FRONT_HOLD_SHARE);
	(void)kill(a, SIGKILL);
	ck_assert_int_eq(waitpid(a, &st, 0), a);
	front_listen_dead(&lim, board);
	figures(0, 0, 1);
	(void)close(p[0]);
	(void)close(p[1]);
}
END_TEST

int
main(void)
{
	Suite	*s;
	TCase	*tc;
	SRunner	*sr;
	int	 nfailed;

	signal(SIGPIPE, SIG_IGN);
	s = suite_create("slots");
	tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, board_follows_the_reservation);
	tcase_add_test(tc, dead_holders_give_back_once);
	tcase_add_test(tc, dead_with_the_slot_only);
	tcase_add_test(tc, handed_is_the_hubs);
	tcase_add_test(tc, killed_waiting_for_the_lock);
	tcase_add_test(tc, marks_move_with_the_counts);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
