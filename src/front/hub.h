/*
 * hub.h - the hub's own header: its streams and its state, shared by
 * hub.c (the process: epoll, handoffs, ticks, supervision), stream.c
 * (what is written to a stream, and its end) and events.c (what the
 * hub takes from its inputs, intake.c having parsed it, and whom it
 * tells).  Nothing else includes it.
 */
#ifndef WYMCP_FRONT_HUB_H
#define WYMCP_FRONT_HUB_H

#include <stddef.h>

#include "intake.h"

#define HUB_BUF_MAX	(256 * 1024)	/* bytes waiting for one client */
#define HUB_QUIET_MS	15000		/* a comment after this silence */
#define HUB_END_MS	30000		/* an end unread this long: dropped */
#define HUB_IDLE_MS	2000		/* a buffer idle this long: freed */

#define FCGI_VERSION_1		1
#define FCGI_ABORT_REQUEST	2
#define FCGI_END_REQUEST	3
#define FCGI_STDOUT		6
#define FCGI_HEADER_LEN		8
#define FCGI_CONTENT_MAX	65535

#define SUB_ID		"io.modelcontextprotocol/subscriptionId"

#define REFUSAL_LOG_MS	60000		/* a refusal logged at most so often */

struct stream {
	struct stream	*prev, *next;	/* in the order they came */
	struct stream	*dnext;		/* on the hub's dirty list */
	int		 dirty;		/* ... is on it */
	long long	 deadline;	/* ms: its end at --listen-max-age,
					   less up to 10% (jitter); 0: none */
	struct watch	*watches;	/* its URIs in the hub's index */
	struct stream	*knext[3], *kprev[3]; /* by list kind */
	int		 fd;
	int		 rid;		/* its FastCGI request id */
	char		*id;		/* the subscription id, JSON; NULL:
					   a 2025-11-25 GET stream */
	char		*session;	/* ... its session's key */
	char		*who;		/* principal, or "addr:..." */
	char		*end;		/* the listen's result, JSON */
	char		*mount;		/* WYMCP_TOOLS, or NULL */
	char		**uris;
	size_t		 nuris;
	int		 lists;
	unsigned char	 share[FRONT_SHARE_LEN]; /* its principal's */
	long long	 started, wrote;	/* ms */
	char		*out;		/* waiting to be written */
	size_t		 outlen, outcap;
	int		 ending;	/* the end is written: then close */
	int		 dead;		/* dropped: freed after this turn */
	int		 pollout;	/* EPOLLOUT is on */
	unsigned char	 hdr[FCGI_HEADER_LEN];
	size_t		 hdrlen;	/* header bytes read */
	size_t		 skip;		/* content and padding to skip */
};

/*
 * The hub's index: a URI's watchers (one per stream watching it), in a
 * hash table of chains; a stream's watches chained through snext.
 */
#define HUB_INDEX_MIN	1024		/* buckets, a power of two */
struct watch {
	struct watch	*next, *prev;	/* the URI's bucket chain */
	struct watch	*snext;		/* the stream's */
	struct stream	*s;
	unsigned int	 hash;
	const char	*uri;		/* the stream's copy */
};

/*
 * Events of the workers, taken off their channel at once (the channel
 * then stays empty: no worker waits) and applied in slices of
 * HUB_SLICE, up to HUB_QUEUE_MAX bytes waiting (past them shed, and
 * every stream ended: its client listens again).
 */
#define HUB_SLICE	512
#define HUB_QUEUE_MAX	(64 * 1024 * 1024)
struct qev {
	struct qev	*next;
	size_t		 len;
	char		 text[];
};

/*
 * A 2025-11-25 session's resources/subscribe while no stream of it is
 * held here: kept for its next GET, PEND_MS at most, PEND_MAX sessions
 * (the oldest forgotten first).
 */
#define PEND_MS		3600000
#define PEND_MAX	1024
struct pend {
	struct pend	*next;
	char		*session;
	char		**uris;
	size_t		 nuris;
	long long	 at;		/* ms */
};

struct hub {
	const struct front_limits *lim;
	struct front_listen	*l;
	int			 ep;
	int			 timer;
	struct stream		*first, *last;
	struct stream		*graves;	/* dropped this turn */
	size_t			 n;
	struct front_bus	*bus;		/* --bus, or NULL */
	struct front_control	*ctl;		/* sealed stream control */
	struct pend		*pend;		/* newest first */
	size_t			 npend;
	struct front_relay_port	*relay;		/* --relay-listen, or NULL */
	long long		 refusal_logged; /* ms, 0: never */
	unsigned long		 refusals_quiet; /* not logged since */
	long long		 now;		/* ms, at the turn's start */
	struct stream		*dirty;		/* written to this turn */
	struct qev		*qhead, *qtail;	/* the workers' events */
	size_t			 qbytes;
	unsigned long		 shed_seen;	/* l->shed acted on */
	long long		 shed_logged;	/* ms */
	int			 fd_base;	/* descriptors not streams */
	struct watch		**index;	/* by URI: nindex buckets */
	size_t			 nindex, nwatch;
	struct stream		*kind[3];	/* by list kind */
};

/* stream.c */
void		 hub_drop(struct hub *, struct stream *, const char *why);
void		 hub_bury(struct hub *);
int		 hub_flush(struct hub *, struct stream *);
int		 hub_frame(struct hub *, struct stream *, const char *data,
		    int comment);
int		 hub_end(struct hub *, struct stream *);
int		 hub_frame3(struct hub *, struct stream *, const char *,
		    size_t, const char *, size_t, const char *, size_t);
void		 hub_flush_dirty(struct hub *);
void		 hub_end_all(struct hub *, const char *why);

/* index.c */
unsigned int	 hub_uri_hash(const char *);
int		 hub_index_add(struct hub *, struct stream *);
void		 hub_index_del(struct hub *, struct stream *);
int		 hub_watch(struct hub *, struct stream *, const char *uri);
void		 hub_unwatch(struct hub *, struct stream *, const char *uri);

/* events.c */
void		 hub_pend_free(struct pend *);
int		 hub_pending_take(struct hub *, struct stream *);
void		 hub_pending_expire(struct hub *);
void		 hub_refuse(struct hub *, int src, enum front_refusal,
		    const char *msg, size_t len);
void		 hub_from_outside(struct hub *, int src, const char *msg,
		    size_t len);
void		 hub_from_worker(struct hub *, const char *msg, size_t len);
void		 hub_bus_take(void *, const char *, size_t);
int		 hub_bus_holding(void *);
void		 hub_bus_again(void *);
char		*hub_bus_gap(void *, const struct front_gapset *);

#endif /* WYMCP_FRONT_HUB_H */
