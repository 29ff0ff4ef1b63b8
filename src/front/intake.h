/*
 * intake.h - the hub's one parser of events (intake.c)
 *
 * Every event the hub takes, from whichever side, goes through
 * front_intake() before anything reads it.  What a side may say:
 *
 *   FRONT_FROM_OUTSIDE  the bus (a NOTIFY: any role that can log in may
 *                       send one), the PATH.hub socket and --publish:
 *                       data only, "updated" and "list"; and on the bus
 *                       a "sealed" frame, stream control that another
 *                       host's hub authenticated under the state key
 *                       (hub.c checks it, then reads its body below);
 *   FRONT_FROM_WORKER   the instance's own workers, on a channel no one
 *                       else can write (a socket pair the supervisor
 *                       made before it forked): data and stream control
 *                       ("cancel", "subscribe", "unsubscribe");
 *   FRONT_FROM_SEALED   the body of a sealed frame that verified: stream
 *                       control only, and "gap" (a hub could not send
 *                       events on the bus: control.c, bus.c), which
 *                       only a hub says, and only sealed.
 *
 * Each member is type-checked (a JSON null or a wrong type anywhere is a
 * refusal, never read), unknown members are ignored, a payload over
 * FRONT_EVENT_MAX is refused unread.  intake.c depends on json-c,
 * wymcp.h's constants and lib/word.h's inline splitter only, so that its
 * fuzz target (t/fuzz) and its Check suite (t/unit) build it alone.
 */
#ifndef WYMCP_FRONT_INTAKE_H
#define WYMCP_FRONT_INTAKE_H

#include <stddef.h>

struct json_object;

#define FRONT_EVENT_MAX		(64 * 1024 - 1)	/* bytes, at most */
#define FRONT_EVENT_URI_MAX	2048		/* an updated URI */
#define FRONT_EVENT_NAME_MAX	256		/* a tool's name, a who */
#define FRONT_EVENT_TOOLS_MAX	10000		/* names in a list event */

#define FRONT_FROM_OUTSIDE	0
#define FRONT_FROM_WORKER	1
#define FRONT_FROM_SEALED	2

enum front_ev_kind {
	FRONT_EV_UPDATED = 1,	/* a resource changed: "uri" */
	FRONT_EV_LIST,		/* lists changed: "lists", "tools" */
	FRONT_EV_CANCEL,	/* a listen ends: "who", "id" */
	FRONT_EV_SUBSCRIBE,	/* a session's subscription: "session", */
	FRONT_EV_UNSUBSCRIBE,	/* ... "uri" */
	FRONT_EV_SEALED,	/* control from another host: "kid", "t", */
				/* "mac", "e" */
	FRONT_EV_GAP		/* a host shed events bound for the bus: */
};				/* "from" (its id), "n" (a nonce), and */
				/* "lists", "uris" when it says which */

#define FRONT_GAP_ID_LEN	16	/* hex digits of a gap's "from", "n" */
#define FRONT_GAP_URIS_MAX	16	/* URIs a gap names, at most */

/* Why an event was refused (counted on the status page, hub.c). */
enum front_refusal {
	FRONT_REF_NONE = 0,
	FRONT_REF_MALFORMED,	/* not JSON, not an object, a bad member */
	FRONT_REF_OVERSIZED,	/* over FRONT_EVENT_MAX (or truncated) */
	FRONT_REF_COMMAND,	/* stream control from outside */
	FRONT_REF_KIND,		/* no such kind */
	FRONT_REF_FORGED,	/* a sealed frame that does not verify */
	FRONT_REF_HANDOFF,	/* a descriptor on PATH.hub */
	FRONT_REF_REPLAYED,	/* a sealed frame taken before */
	FRONT_REF_N
};
extern const char *const front_refusal_names[FRONT_REF_N];

/*
 * One event, parsed.  The strings point into `o' (owned: released by
 * front_event_clear()); those a kind does not have are NULL.
 */
struct front_event {
	enum front_ev_kind	 kind;
	const char		*uri;		/* updated, (un)subscribe */
	int			 lists;		/* list: WYMCP_LIST_* or'd */
	struct json_object	*tools;		/* list: the tools' names (an
						   array of strings), or NULL:
						   every tool */
	const char		*who;		/* cancel: the principal */
	const char		*id;		/* ... the listen's id, JSON */
	const char		*session;	/* (un)subscribe: its key */
	const char		*from;		/* gap: the hub's id, hex */
	const char		*nonce;		/* ... its nonce, hex */
	int			 narrow;	/* ... says which streams: those
						   of `lists', or watching one
						   of `uris'; 0: every one */
	struct json_object	*uris;		/* ... an array of strings */
	const char		*kid;		/* sealed: the key's id, hex */
	long long		 t;		/* ... its time(3) */
	const char		*mac;		/* ... base64url */
	const char		*body;		/* ... the event it carries */
	size_t			 bodylen;
	struct json_object	*o;
};

/*
 * Parse `len' bytes of `msg', from the side `from' (FRONT_FROM_*), into
 * `ev'.  FRONT_REF_NONE (0) with `ev' to clear, or why it is refused
 * (`ev' then holds nothing).
 */
enum front_refusal front_intake(const char *msg, size_t len, int from,
		    struct front_event *ev);
void		 front_event_clear(struct front_event *);

/* Is `name' one of the words of the mount list `mount' (WYMCP_TOOLS)? */
int		 front_mounted(const char *mount, const char *name);

/*
 * Does a list event naming the tools `tools' (front_event's, or NULL:
 * all) reach a stream whose mount list is `mount' (NULL: every tool)?
 */
int		 front_sees(const char *mount, struct json_object *tools);

#endif /* WYMCP_FRONT_INTAKE_H */
