/*
 * control.c - stream control between hosts: sealed frames on the bus
 *
 * A hub that gets stream control from its own workers (a cancel of a
 * listen, a 2025-11-25 session's subscription) sends it to every host
 * on the bus as
 *
 *   {"v":1,"k":"sealed","kid":HEX8,"t":SECONDS,"mac":HEX64,"e":EVENT}
 *
 * where MAC is wymcp_server_mac() (a MAC under the state key) of
 * CONTROL_MAGIC, the time and EVENT.  A hub takes such a frame (its
 * own too, when it comes back) only when the MAC verifies under one of
 * its keys, the time is within CONTROL_SKEW of its clock, and it has
 * not taken the same frame before (the last CONTROL_SEEN are kept):
 * anyone may NOTIFY on the bus, but only a host holding the state key
 * can say a command there (wymcp-fcgi(8), "Events and commands").
 *
 * A hub that shed events bound for the bus (bus.c) seals a "gap",
 *
 *   {"v":1,"k":"gap","from":HEX16,"n":HEX16}
 *
 * FROM its own id (random, made at its start), N a fresh nonce, so that
 * two gaps of one second are two frames: every other hub that opens it
 * ends its streams (events.c); its own, coming back, is ignored.  With
 * "lists":[KIND...] and "uris":[URI...] (up to FRONT_GAPSET_URIS) it
 * names what was shed, and only the streams that watch those end.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/random.h>
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "front.h"
#include "intake.h"

#define CONTROL_MAGIC	"wymcp-control/1 "	/* what the MAC covers */
#define CONTROL_SKEW	60		/* s, either way */
#define CONTROL_SEEN	1024		/* frames remembered */

struct front_control {
	struct wymcp_server	*srv;		/* its state keys */
	const char		*keyfile;	/* ... read from, or NULL */
	struct stat		 st;		/* ... as it was read */
	struct {
		unsigned char	 mac[16];
		long long	 t;
	}			 seen[CONTROL_SEEN];
	size_t			 nseen;
	char			 id[FRONT_GAP_ID_LEN + 1]; /* this hub's */
};

static void	tohex(const unsigned char *, size_t, char *);

/* FRONT_GAP_ID_LEN random hex digits into `out'; 0, or -1. */
static int
random_hex(char *out)
{
	unsigned char	 r[FRONT_GAP_ID_LEN / 2];

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return -1;
	tohex(r, sizeof(r), out);
	return 0;
}

struct front_control *
front_control_new(struct wymcp_server *srv, const char *keyfile)
{
	struct front_control	*c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	if (random_hex(c->id) != 0) {
		free(c);
		return NULL;
	}
	c->srv = srv;
	if ((c->keyfile = keyfile) != NULL && stat(keyfile, &c->st) == -1)
		memset(&c->st, 0, sizeof(c->st));
	return c;
}

/*
 * The key file changed (a rotation, then SIGHUP for the workers): the
 * hub, which a reload does not restart, reads it again, so that it
 * seals with the newest key and opens with every key the file holds.
 */
void
front_control_tick(struct front_control *c)
{
	struct stat	 st;

	if (c == NULL || c->keyfile == NULL || stat(c->keyfile, &st) == -1 ||
	    (st.st_ino == c->st.st_ino && st.st_dev == c->st.st_dev &&
	    st.st_size == c->st.st_size &&
	    st.st_mtim.tv_sec == c->st.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == c->st.st_mtim.tv_nsec))
		return;
	c->st = st;
	if (wymcp_server_load_state_keys(c->srv, c->keyfile) == WYMCP_OK)
		front_log(WYMCP_LOG_INFO, "hub: state keys read again from %s",
		    c->keyfile);
	else
		front_log(WYMCP_LOG_WARNING, "hub: %s: %s: keeping the keys it "
		    "had", c->keyfile, wymcp_server_errmsg(c->srv));
}

void
front_control_free(struct front_control *c)
{
	free(c);
}

/* `n' bytes of hexadecimal `hex' (lower case) into `out'; 0, or -1. */
static int
unhex(const char *hex, unsigned char *out, size_t n)
{
	size_t	 i;
	int	 hi, lo;

	if (strlen(hex) != 2 * n)
		return -1;
	for (i = 0; i < n; i++) {
		hi = hex[2 * i];
		lo = hex[2 * i + 1];
		hi = hi >= '0' && hi <= '9' ? hi - '0' : hi >= 'a' &&
		    hi <= 'f' ? hi - 'a' + 10 : -1;
		lo = lo >= '0' && lo <= '9' ? lo - '0' : lo >= 'a' &&
		    lo <= 'f' ? lo - 'a' + 10 : -1;
		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

static void
tohex(const unsigned char *p, size_t n, char *out)
{
	static const char	 digits[] = "0123456789abcdef";
	size_t			 i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

/* What a frame's MAC covers: CONTROL_MAGIC, its time, its event. */
static char *
covered(long long t, const char *body, size_t len, size_t *n)
{
	char	*buf;
	int	 k;

	if ((buf = malloc(len + sizeof(CONTROL_MAGIC) + 24)) == NULL)
		return NULL;
	k = snprintf(buf, sizeof(CONTROL_MAGIC) + 24, "%s%lld\n",
	    CONTROL_MAGIC, t);
	memcpy(buf + k, body, len);
	*n = (size_t)k + len;
	return buf;
}

char *
front_control_seal(struct front_control *c, const char *msg, size_t len)
{
	unsigned char		 kid[WYMCP_KEY_ID_LEN], mac[WYMCP_MAC_LEN];
	char			 hkid[2 * WYMCP_KEY_ID_LEN + 1];
	char			 hmac[2 * WYMCP_MAC_LEN + 1], *buf, *out = NULL;
	struct json_object	*o;
	const char		*s;
	long long		 t = (long long)time(NULL);
	size_t			 n;
	int			 rc;

	if (c == NULL || (buf = covered(t, msg, len, &n)) == NULL)
		return NULL;
	rc = wymcp_server_mac(c->srv, buf, n, kid, mac);
	free(buf);
	if (rc != WYMCP_OK || (o = json_object_new_object()) == NULL)
		return NULL;
	tohex(kid, sizeof(kid), hkid);
	tohex(mac, sizeof(mac), hmac);
	json_object_object_add(o, "v", json_object_new_int(1));
	json_object_object_add(o, "k", json_object_new_string("sealed"));
	json_object_object_add(o, "kid", json_object_new_string(hkid));
	json_object_object_add(o, "t", json_object_new_int64(t));
	json_object_object_add(o, "mac", json_object_new_string(hmac));
	json_object_object_add(o, "e", json_object_new_string_len(msg,
	    (int)len));
	if ((s = json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN)) != NULL)
		out = strdup(s);
	json_object_put(o);
	return out;
}

_Static_assert(FRONT_GAPSET_URIS <= FRONT_GAP_URIS_MAX,
    "a gap names no more URIs than intake.c takes");

/* The gap's body: every stream (`g' NULL or all), or those of `g'. */
static char *
gap_body(const struct front_control *c, const struct front_gapset *g)
{
	static const char *const kinds[] = { "tools", "prompts",
		"resources" };
	struct json_object	*o, *a;
	char			 nonce[FRONT_GAP_ID_LEN + 1], *out = NULL;
	const char		*s;
	size_t			 i;

	if (random_hex(nonce) != 0 || (o = json_object_new_object()) == NULL)
		return NULL;
	json_object_object_add(o, "v", json_object_new_int(1));
	json_object_object_add(o, "k", json_object_new_string("gap"));
	json_object_object_add(o, "from", json_object_new_string(c->id));
	json_object_object_add(o, "n", json_object_new_string(nonce));
	if (g != NULL && !g->all) {
		a = json_object_new_array();
		for (i = 0; i < 3; i++)
			if (g->lists & (1 << i))
				json_object_array_add(a,
				    json_object_new_string(kinds[i]));
		json_object_object_add(o, "lists", a);
		a = json_object_new_array();
		for (i = 0; i < g->nuris; i++)
			json_object_array_add(a,
			    json_object_new_string(g->uris[i]));
		json_object_object_add(o, "uris", a);
	}
	if ((s = json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN)) != NULL)
		out = strdup(s);
	json_object_put(o);
	return out;
}

char *
front_control_gap(struct front_control *c, const struct front_gapset *g)
{
	char	*body, *frame;

	if (c == NULL || (body = gap_body(c, g)) == NULL)
		return NULL;
	frame = front_control_seal(c, body, strlen(body));
	free(body);
	/* Its URIs too long for one NOTIFY: then every stream. */
	if (frame != NULL && strlen(frame) > FRONT_BUS_PAYLOAD_MAX &&
	    g != NULL && !g->all) {
		free(frame);
		return front_control_gap(c, NULL);
	}
	return frame;
}

int
front_control_ours(const struct front_control *c,
    const struct front_event *ev)
{
	return c != NULL && ev->kind == FRONT_EV_GAP && ev->from != NULL &&
	    strcmp(ev->from, c->id) == 0;
}

int
front_control_open(struct front_control *c, const struct front_event *ev,
    struct front_event *in)
{
	unsigned char	 kid[WYMCP_KEY_ID_LEN], mac[WYMCP_MAC_LEN];
	long long	 now = (long long)time(NULL);
	size_t		 i, n;
	char		*buf;
	int		 ok;

	memset(in, 0, sizeof(*in));
	if (unhex(ev->kid, kid, sizeof(kid)) != 0 ||
	    unhex(ev->mac, mac, sizeof(mac)) != 0)
		return FRONT_REF_MALFORMED;
	if (c == NULL || ev->t < now - CONTROL_SKEW ||
	    ev->t > now + CONTROL_SKEW ||
	    (buf = covered(ev->t, ev->body, ev->bodylen, &n)) == NULL)
		return FRONT_REF_FORGED;
	ok = wymcp_server_mac_check(c->srv, kid, buf, n, mac);
	free(buf);
	if (!ok)
		return FRONT_REF_FORGED;
	for (i = 0; i < CONTROL_SEEN && i < c->nseen; i++)
		if (memcmp(c->seen[i].mac, mac, sizeof(c->seen[i].mac)) == 0 &&
		    c->seen[i].t >= now - 2 * CONTROL_SKEW)
			return FRONT_REF_REPLAYED;
	i = c->nseen++ % CONTROL_SEEN;
	memcpy(c->seen[i].mac, mac, sizeof(c->seen[i].mac));
	c->seen[i].t = ev->t;
	return front_intake(ev->body, ev->bodylen, FRONT_FROM_SEALED, in);
}
