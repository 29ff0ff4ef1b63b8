/*
 * sendfloor.c - what the kernel alone asks for one frame to one stream:
 * the floor under the hub's CPU per frame in t/bench/listenbench.py.
 *
 * Usage: sendfloor N SIZE ROUNDS [uring]
 *
 * Opens N unix stream socket pairs (the hub writes each listen stream to
 * nginx over one), forks a reader that watches the N far ends with
 * epoll and reads whatever comes (as an nginx worker does), then
 * ROUNDS times sends SIZE bytes to each of the N near ends, one send()
 * each with MSG_DONTWAIT as the hub's hub_flush() does, and pauses
 * 20 ms between rounds so that the reader drains them.  Prints
 *
 *	us_per_send X
 *
 * X being this process's CPU time (user and system, getrusage) over the
 * sends divided by N * ROUNDS: a send and the reader's wake-up it
 * causes, with no formatting, lookup or epoll of the sender's own.
 * With "uring", each round's N sends are one io_uring submission
 * instead (IORING_OP_SEND, one io_uring_enter(2) for all N and their
 * completions): what batching the system calls would save.
 * Needs 2N + 8 descriptors.  Built by listenbench.py with cc -O2.
 */
#define _GNU_SOURCE
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/io_uring.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double
cpu_us(void)
{
	struct rusage	ru;

	(void)getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
	    ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}

struct ring {
	int			 fd;
	unsigned		*sqtail, *sqmask, *sqarray;
	unsigned		*cqhead, *cqtail, *cqmask;
	struct io_uring_sqe	*sqes;
	struct io_uring_cqe	*cqes;
};

/* An io_uring of at least n entries in `r'; 0, or -1. */
static int
ring_open(struct ring *r, int n)
{
	struct io_uring_params	 p;
	char			*sq, *cq;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_CQSIZE;
	p.cq_entries = (unsigned)n;
	if ((r->fd = (int)syscall(__NR_io_uring_setup, (unsigned)n, &p)) ==
	    -1)
		return -1;
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned),
	    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
	    IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries *
	    sizeof(struct io_uring_cqe), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
	    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
	    IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		return -1;
	r->sqtail = (unsigned *)(sq + p.sq_off.tail);
	r->sqmask = (unsigned *)(sq + p.sq_off.ring_mask);
	r->sqarray = (unsigned *)(sq + p.sq_off.array);
	r->cqhead = (unsigned *)(cq + p.cq_off.head);
	r->cqtail = (unsigned *)(cq + p.cq_off.tail);
	r->cqmask = (unsigned *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return 0;
}

/* One round by io_uring: `size' bytes to each of n; how many went. */
static long
ring_round(struct ring *r, int (*fds)[2], int n, const char *frame,
    size_t size)
{
	struct io_uring_sqe	*e;
	unsigned		 tail, head, end, idx;
	long			 sent = 0;
	int			 i;

	tail = *r->sqtail;
	for (i = 0; i < n; i++, tail++) {
		idx = tail & *r->sqmask;
		e = &r->sqes[idx];
		memset(e, 0, sizeof(*e));
		e->opcode = IORING_OP_SEND;
		e->fd = fds[i][0];
		e->addr = (unsigned long)frame;
		e->len = (unsigned)size;
		e->msg_flags = MSG_NOSIGNAL | MSG_DONTWAIT;
		r->sqarray[idx] = idx;
	}
	__atomic_store_n(r->sqtail, tail, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r->fd, (unsigned)n, (unsigned)n,
	    IORING_ENTER_GETEVENTS, NULL, 0) == -1)
		return -1;
	head = *r->cqhead;
	end = __atomic_load_n(r->cqtail, __ATOMIC_ACQUIRE);
	for (; head != end; head++)
		if (r->cqes[head & *r->cqmask].res == (int)size)
			sent++;
	__atomic_store_n(r->cqhead, head, __ATOMIC_RELEASE);
	return sent;
}

/* The far ends fds[i][1], read until every one is closed. */
static void
reader(int (*fds)[2], int n)
{
	struct epoll_event	 ev, evs[256];
	char			 buf[65536];
	int			 ep, i, k, open = n;
	ssize_t			 r;

	if ((ep = epoll_create1(0)) == -1)
		_exit(1);
	for (i = 0; i < n; i++) {
		(void)close(fds[i][0]);
		memset(&ev, 0, sizeof(ev));
		ev.events = EPOLLIN | EPOLLRDHUP;
		ev.data.fd = fds[i][1];
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fds[i][1], &ev) == -1)
			_exit(1);
	}
	while (open > 0) {
		if ((k = epoll_wait(ep, evs, 256, 30000)) <= 0)
			_exit(k == 0 ? 2 : 1);
		for (i = 0; i < k; i++) {
			r = read(evs[i].data.fd, buf, sizeof(buf));
			if (r <= 0) {
				(void)close(evs[i].data.fd);
				open--;
			}
		}
	}
	_exit(0);
}

int
main(int argc, char *argv[])
{
	struct ring	 r;
	int		(*fds)[2];
	char		*frame;
	int		 i, k, n, rounds, status, uring;
	size_t		 size;
	double		 t0, t1;
	long		 sent = 0;
	pid_t		 pid;

	if (argc < 4 || argc > 5 || (n = atoi(argv[1])) <= 0 ||
	    (size = (size_t)atol(argv[2])) == 0 ||
	    (rounds = atoi(argv[3])) <= 0 ||
	    (uring = argc == 5) != (argc == 5 &&
	    strcmp(argv[4], "uring") == 0)) {
		fprintf(stderr, "usage: sendfloor N SIZE ROUNDS [uring]\n");
		return 2;
	}
	if ((fds = calloc((size_t)n, sizeof(*fds))) == NULL ||
	    (frame = malloc(size)) == NULL)
		return 1;
	memset(frame, 'x', size);
	for (i = 0; i < n; i++)
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds[i]) == -1) {
			perror("sendfloor: socketpair");
			return 1;
		}
	if ((pid = fork()) == -1)
		return 1;
	if (pid == 0)
		reader(fds, n);
	for (i = 0; i < n; i++)
		(void)close(fds[i][1]);
	memset(&r, 0, sizeof(r));
	if (uring && ring_open(&r, n) == -1) {
		perror("sendfloor: io_uring");
		return 1;
	}
	(void)usleep(100000);
	t0 = cpu_us();
	for (k = 0; k < rounds; k++) {
		if (uring)
			sent += ring_round(&r, fds, n, frame, size);
		else for (i = 0; i < n; i++)
			if (send(fds[i][0], frame, size,
			    MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)size)
				sent++;
		t1 = cpu_us();
		(void)usleep(20000);
		t0 += cpu_us() - t1;	/* the pause is not a send */
	}
	t1 = cpu_us();
	for (i = 0; i < n; i++)
		(void)close(fds[i][0]);
	if (waitpid(pid, &status, 0) == -1 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0 || sent != (long)n * rounds) {
		fprintf(stderr, "sendfloor: %ld of %ld sent, reader %d\n",
		    sent, (long)n * rounds, status);
		return 1;
	}
	printf("us_per_send %.3f\n", (t1 - t0) / (double)sent);
	return 0;
}
