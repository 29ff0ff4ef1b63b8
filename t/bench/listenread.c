/*
 * listenread.c - the reading side of t/bench/listenbench.py: reads many
 * listen streams with epoll, so that the benchmark's client is not what
 * it measures (a Python selectors loop over 10,000 sockets took longer
 * than the hub and nginx together).
 *
 * The streams are open already: the parent passes their descriptors
 * (subprocess pass_fds) and names them on stdin.  Commands, one a line
 * on stdin, answers one a line on stdout:
 *
 *	fds FD...		watch these descriptors	-> "ok N"
 *	wait PATTERN COUNT MS	forget what was read, say "armed", then
 *				read every stream until COUNT of them
 *				hold PATTERN (since "armed"), at most MS ms
 *				-> "done GOT NS": GOT streams, NS the
 *				CLOCK_MONOTONIC time of the last, in ns
 *
 * A pattern split across two reads is found (each stream keeps the
 * tail of its last read).  Built by listenbench.py with cc -O2.
 */
#define _GNU_SOURCE
#include <sys/epoll.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TAIL	64

struct st {
	int		fd;
	unsigned	gen;		/* the wait it matched in */
	size_t		tlen;
	char		tail[TAIL];
};

static struct st	*sts;
static size_t		 nst;
static int		 ep;

static long long
now_ns(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void
watch(char *list)
{
	struct epoll_event	 ev;
	char			*p, *end;
	size_t			 cap = 1024;

	if ((sts = calloc(cap, sizeof(*sts))) == NULL)
		exit(1);
	for (p = strtok(list, " \n"); p != NULL; p = strtok(NULL, " \n")) {
		if (nst == cap) {
			cap *= 2;
			if ((sts = realloc(sts, cap * sizeof(*sts))) == NULL)
				exit(1);
		}
		sts[nst].fd = (int)strtol(p, &end, 10);
		(void)fcntl(sts[nst].fd, F_SETFL, O_NONBLOCK);
		nst++;
	}
	/* the array moves no more: register pointers now */
	for (size_t i = 0; i < nst; i++) {
		memset(&ev, 0, sizeof(ev));
		ev.events = EPOLLIN;
		ev.data.ptr = &sts[i];
		if (epoll_ctl(ep, EPOLL_CTL_ADD, sts[i].fd, &ev) == -1)
			exit(1);
	}
	printf("ok %zu\n", nst);
}

/* Read what `s' holds; 1 when PATTERN is seen (the first time). */
static int
drain(struct st *s, unsigned gen, const char *pat, size_t plen)
{
	static char	 buf[TAIL + 65536];
	ssize_t		 n;
	size_t		 len;
	int		 hit = 0;

	for (;;) {
		memcpy(buf, s->tail, s->tlen);
		n = recv(s->fd, buf + s->tlen, sizeof(buf) - TAIL, 0);
		if (n <= 0) {
			if (n == 0)	/* closed: stop watching it */
				(void)epoll_ctl(ep, EPOLL_CTL_DEL, s->fd,
				    NULL);
			return hit;
		}
		len = s->tlen + (size_t)n;
		if (s->gen != gen && memmem(buf, len, pat, plen) != NULL) {
			s->gen = gen;
			hit = 1;
		}
		s->tlen = len < plen ? len : plen - 1;
		memcpy(s->tail, buf + len - s->tlen, s->tlen);
		if ((size_t)n < sizeof(buf) - TAIL)
			return hit;
	}
}

static void
await(unsigned gen, const char *pat, size_t want, long ms)
{
	struct epoll_event	 evs[1024];
	long long		 end, last = 0, t;
	size_t			 got = 0, plen = strlen(pat);
	int			 n, i;

	for (size_t k = 0; k < nst; k++)
		sts[k].tlen = 0;
	printf("armed\n");
	fflush(stdout);
	end = now_ns() + ms * 1000000LL;
	while (got < want && (t = now_ns()) < end) {
		n = epoll_wait(ep, evs, 1024, (int)((end - t) / 1000000) + 1);
		if (n == -1 && errno != EINTR)
			exit(1);
		for (i = 0; i < n; i++)
			if (drain(evs[i].data.ptr, gen, pat, plen)) {
				got++;
				last = now_ns();
			}
	}
	printf("done %zu %lld\n", got, last);
}

int
main(void)
{
	char		*line = NULL, pat[256];
	size_t		 cap = 0;
	unsigned	 gen = 0;
	long		 count, ms;

	if ((ep = epoll_create1(0)) == -1)
		return 1;
	while (getline(&line, &cap, stdin) != -1) {
		if (strncmp(line, "fds ", 4) == 0)
			watch(line + 4);
		else if (sscanf(line, "wait %255s %ld %ld", pat, &count,
		    &ms) == 3 && strlen(pat) < TAIL)
			await(++gen, pat, (size_t)count, ms);
		else
			printf("? %s", line);
		fflush(stdout);
	}
	return 0;
}
