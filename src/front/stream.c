/*
 * stream.c - what the hub writes to a listen stream: FastCGI STDOUT
 * records of SSE frames, queued while the client does not read (up to
 * HUB_BUF_MAX, then the stream is dropped), and the stream's end (its
 * result, the end of stdout, FCGI_END_REQUEST) or its drop
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "front.h"
#include "hub.h"

/*
 * Forget stream `s': close it, give its slot back.  Its memory is freed
 * after the turn (hub_bury()): events of this turn may still name it.
 */
void
hub_drop(struct hub *h, struct stream *s, const char *why)
{
	if (s->dead)
		return;
	front_log(WYMCP_LOG_DEBUG, "hub: listen %s ends: %s",
	    s->id != NULL ? s->id : s->session, why);
	(void)epoll_ctl(h->ep, EPOLL_CTL_DEL, s->fd, NULL);
	close(s->fd);
	if (s->prev != NULL)
		s->prev->next = s->next;
	else
		h->first = s->next;
	if (s->next != NULL)
		s->next->prev = s->prev;
	else
		h->last = s->prev;
	h->n--;
	front_listen_unreserve(h->l, s->share, 1);
	if (s->lists != 0)
		__atomic_sub_fetch(&h->l->lists_streams, 1, __ATOMIC_RELAXED);
	if (s->nuris > 0)
		__atomic_sub_fetch(&h->l->resource_streams, 1,
		    __ATOMIC_RELAXED);
	s->dead = 1;
	s->next = h->graves;
	h->graves = s;
}

/* Free the streams dropped this turn. */
void
hub_bury(struct hub *h)
{
	struct stream	*s;
	size_t		 i;

	while ((s = h->graves) != NULL) {
		h->graves = s->next;
		hub_index_del(h, s);
		for (i = 0; i < s->nuris; i++)
			free(s->uris[i]);
		free(s->uris);
		free(s->id);
		free(s->session);
		free(s->who);
		free(s->end);
		free(s->mount);
		free(s->out);
		free(s);
	}
}

/*
 * Write what waits for `s' (without blocking).  0, or -1 when the
 * stream is gone (dropped).
 */
int
hub_flush(struct hub *h, struct stream *s)
{
	struct epoll_event	 ev;
	ssize_t			 n;
	size_t			 off = 0;

	if (s->dead)
		return -1;
	while (off < s->outlen) {
		n = send(s->fd, s->out + off, s->outlen - off,
		    MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		hub_drop(h, s, "the web server closed the connection");
		return -1;
	}
	if (off > 0 && off < s->outlen)
		memmove(s->out, s->out + off, s->outlen - off);
	s->outlen -= off;
	if ((s->outlen > 0) != s->pollout) {
		s->pollout = s->outlen > 0;
		memset(&ev, 0, sizeof(ev));
		ev.events = EPOLLIN | EPOLLRDHUP | (s->pollout ? EPOLLOUT : 0);
		ev.data.ptr = s;
		(void)epoll_ctl(h->ep, EPOLL_CTL_MOD, s->fd, &ev);
	}
	if (s->outlen == 0 && s->ending) {
		__atomic_add_fetch(&h->l->ended, 1, __ATOMIC_RELAXED);
		hub_drop(h, s, "ended");
		return -1;
	}
	return 0;
}

/*
 * Room for `len' more bytes in `s''s buffer.  0; or -1 when there is
 * none: past HUB_BUF_MAX its client does not read, and the event is
 * shed: the stream ends with its result (over the cap: the end is
 * always queued), so that the client listens again and reads afresh.
 */
static int
room(struct hub *h, struct stream *s, size_t len)
{
	char	*nb;
	size_t	 cap;

	if (!s->ending && s->outlen + len > HUB_BUF_MAX) {
		__atomic_add_fetch(&h->l->dropped, 1, __ATOMIC_RELAXED);
		front_log(WYMCP_LOG_INFO, "hub: listen %s ends: its client "
		    "does not read (%d bytes waiting)", s->id != NULL ? s->id :
		    s->session, HUB_BUF_MAX);
		(void)hub_end(h, s);
		return -1;
	}
	if (s->outlen + len > s->outcap) {
		cap = s->outcap == 0 ? 1024 : s->outcap;
		while (cap < s->outlen + len)
			cap *= 2;
		if ((nb = realloc(s->out, cap)) == NULL) {
			hub_drop(h, s, "out of memory");
			return -1;
		}
		s->out = nb;
		s->outcap = cap;
	}
	return 0;
}

/* Written at the end of the turn (hub_flush_dirty()): batched. */
static void
mark(struct hub *h, struct stream *s)
{
	if (s->dirty)
		return;
	s->dirty = 1;
	s->dnext = h->dirty;
	h->dirty = s;
}

/* Queue `len' bytes for `s' (room() made first). */
static void
queue(struct stream *s, const void *p, size_t len)
{
	memcpy(s->out + s->outlen, p, len);
	s->outlen += len;
}

/* A FastCGI record header of `type' for `k' bytes, queued. */
static void
header(struct stream *s, int type, size_t k)
{
	unsigned char	 hd[FCGI_HEADER_LEN];

	hd[0] = FCGI_VERSION_1;
	hd[1] = (unsigned char)type;
	hd[2] = (unsigned char)(s->rid >> 8);
	hd[3] = (unsigned char)s->rid;
	hd[4] = (unsigned char)(k >> 8);
	hd[5] = (unsigned char)k;
	hd[6] = 0;
	hd[7] = 0;
	queue(s, hd, sizeof(hd));
}

/*
 * A frame made once for many streams (events.c), in three parts (the
 * middle one the stream's id): one STDOUT record, copied, no format,
 * no clock read (the turn's h->now) and no count (the caller's).
 */
int
hub_frame3(struct hub *h, struct stream *s, const char *a, size_t alen,
    const char *b, size_t blen, const char *c, size_t clen)
{
	size_t	 k = alen + blen + clen;

	if (s->dead || k > FCGI_CONTENT_MAX ||
	    room(h, s, FCGI_HEADER_LEN + k) != 0)
		return -1;
	header(s, FCGI_STDOUT, k);
	queue(s, a, alen);
	if (blen > 0)
		queue(s, b, blen);
	if (clen > 0)
		queue(s, c, clen);
	s->wrote = h->now;
	mark(h, s);
	return 0;
}

/* Write every stream written to this turn (one send each). */
void
hub_flush_dirty(struct hub *h)
{
	struct stream	*s;

	while ((s = h->dirty) != NULL) {
		h->dirty = s->dnext;
		s->dirty = 0;
		if (!s->dead)
			(void)hub_flush(h, s);
	}
}

/* End every stream held (they may have missed an event). */
void
hub_end_all(struct hub *h, const char *why)
{
	struct stream	*s, *next;
	unsigned long	 n = 0;

	for (s = h->first; s != NULL; s = next) {
		next = s->next;
		if (!s->ending && !s->dead) {
			n++;
			(void)hub_end(h, s);
		}
	}
	__atomic_add_fetch(&h->l->shed_ended, n, __ATOMIC_RELAXED);
	if (n > 0)
		front_log(WYMCP_LOG_WARNING, "hub: %lu listen streams end: %s "
		    "(their clients listen again)", n, why);
}

/* Queue FastCGI records of `type' carrying `len' bytes of `p'. */
static int
records(struct hub *h, struct stream *s, int type, const char *p,
    size_t len)
{
	size_t	 k, need;

	need = len + FCGI_HEADER_LEN * (len / FCGI_CONTENT_MAX + 1);
	if (s->dead || room(h, s, need) != 0)
		return -1;
	do {
		k = len > FCGI_CONTENT_MAX ? FCGI_CONTENT_MAX : len;
		header(s, type, k);
		if (k > 0)
			queue(s, p, k);
		p += k;
		len -= k;
	} while (len > 0);
	mark(h, s);
	return 0;
}

/* One SSE frame (`data' a JSON text, or a comment) to `s', queued. */
int
hub_frame(struct hub *h, struct stream *s, const char *data, int comment)
{
	char	 small[1024], *buf = small;
	size_t	 n, len = strlen(data) + 32;
	int	 rc;

	if (len > sizeof(small) && (buf = malloc(len)) == NULL)
		return -1;
	n = (size_t)snprintf(buf, len, comment ? ": %s\n\n" :
	    "event: message\ndata: %s\n\n", data);
	rc = records(h, s, FCGI_STDOUT, buf, n);
	if (buf != small)
		free(buf);
	if (rc != 0)
		return -1;
	s->wrote = front_now_ms();
	if (!comment)
		__atomic_add_fetch(&h->l->frames, 1, __ATOMIC_RELAXED);
	return 0;
}

/*
 * End `s' gracefully: the listen's result (tagged), the end of stdout,
 * FCGI_END_REQUEST; closed once written, or dropped HUB_END_MS later
 * (its client does not read).
 */
int
hub_end(struct hub *h, struct stream *s)
{
	unsigned char	 body[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };

	if (s->ending || s->dead)
		return 0;
	s->ending = 1;		/* from here on over HUB_BUF_MAX too */
	s->deadline = front_now_ms() + HUB_END_MS;
	if ((s->end != NULL && hub_frame(h, s, s->end, 0) != 0) ||
	    records(h, s, FCGI_STDOUT, "", 0) != 0 ||
	    records(h, s, FCGI_END_REQUEST, (const char *)body,
	    sizeof(body)) != 0)
		return -1;
	return 0;
}

