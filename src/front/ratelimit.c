/*
 * ratelimit.c - token buckets per principal per tool, shared by the
 * workers of an instance (--rate-limit, a tool's declared rate)
 *
 * The library asks, at a tools/call's first round, whether the call may
 * run (wymcp_server_set_admit_fn()).  The rule is the --rate-limit of
 * the tool's name, else the tool's own declared rate, else the
 * --rate-limit '*', else none (admitted at once).  Each (principal,
 * tool) pair has a token bucket of `burst' tokens refilled at the
 * rule's rate; a call takes one token, and without one it is refused
 * for the time until the next token (its Retry-After).  Anonymous
 * callers are told apart by their address ("addr:ADDRESS").
 *
 * The buckets live in a table in shared memory (shm.c: mmap MAP_SHARED,
 * made by the supervisor before the first fork), so every worker of the
 * instance takes from the same bucket: a limit holds however many
 * workers there are.  Pairs are exact: each is found by a 16-byte
 * SipHash-2-4 (128-bit output) of its principal and tool keyed with 16
 * random bytes drawn when the table is made (nobody who does not know
 * the key can choose two names that meet; a chance meeting is one in
 * 2^64 per pair).  Open addressing with linear probing in
 * FRONT_RATE_SLOTS (65536) slots of 40 bytes (2.5 MiB, of which only
 * the pages pairs land on are touched).  A bucket that has refilled
 * is the same as no bucket: when the table is three quarters full, the
 * worker that would add a pair rebuilds it without those; when it is
 * still three quarters full (more than 49152 pairs called within their
 * refill time), a new pair is refused for a second and counted, never
 * merged with another.
 *
 * Every look holds a process-shared robust mutex for a few probes.  A
 * process that dies holding it (a worker killed at its time limit)
 * leaves it to the next taker (EOWNERDEAD), which clears the table:
 * every bucket starts full again, a moment of leniency, never a wrong
 * refusal.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#include "front.h"
#include "shm.h"

#define RATE_DIGEST	crypto_shorthash_siphashx24_BYTES	/* 16 */
#define RATE_MEMO	256	/* bytes of the last pair remembered */

_Static_assert(crypto_shorthash_siphashx24_KEYBYTES <= FRONT_SHM_KEY,
    "the table's key is SipHash's");

/* One pair's bucket: `at' 0 is an empty slot. */
struct rate_slot {
	unsigned char	 d[RATE_DIGEST];	/* keyed digest of the pair */
	double		 tokens;		/* at `at' */
	long long	 at;			/* ms, CLOCK_MONOTONIC */
	long long	 full_at;		/* refilled by then */
};

struct front_rates {
	struct front_shm shm;		/* lock, key, length */
	size_t		 used;		/* pairs in the table */
	unsigned long	 refused;	/* calls refused past a limit */
	unsigned long	 full;		/* ... because the table was full */
	unsigned long	 rebuilds;
	struct rate_slot slot[FRONT_RATE_SLOTS];
};

/* The rules (--rate-limit), per process: read before the fork. */
struct rate_rule {
	char			 name[129];	/* a tool, or "*" */
	struct wymcp_rate	 r;
};
static struct rate_rule		*rules;
static size_t			 nrules;
static struct front_rates	*current;	/* the last made */

struct front_rates *
front_rates_new(void)
{
	struct front_rates	*t;

	if ((t = front_shm_new(sizeof(*t))) != NULL)
		current = t;
	return t;
}

void
front_rates_free(struct front_rates *t)
{
	if (t == current)
		current = NULL;
	if (t != NULL)
		front_shm_free(&t->shm);
}

const struct front_rates *
front_rates_current(void)
{
	return current;
}

int
front_rate_rule(const char *text)
{
	struct rate_rule	*n;
	const char		*eq;
	size_t			 len, i;

	if ((eq = strchr(text, '=')) == NULL || eq == text ||
	    (len = (size_t)(eq - text)) >= sizeof(n->name))
		return -1;
	if ((n = reallocarray(rules, nrules + 1, sizeof(*rules))) == NULL)
		return -1;
	rules = n;
	memset(&rules[nrules], 0, sizeof(rules[nrules]));
	memcpy(rules[nrules].name, text, len);
	if (wymcp_rate_parse(eq + 1, &rules[nrules].r) != 0)
		return -1;
	/* A later rule for the same name replaces the earlier one. */
	for (i = 0; i < nrules; i++)
		if (strcmp(rules[i].name, rules[nrules].name) == 0) {
			rules[i] = rules[nrules];
			return 0;
		}
	nrules++;
	return 0;
}

void
front_rate_rules_free(void)
{
	free(rules);
	rules = NULL;
	nrules = 0;
}

size_t
front_rate_nrules(void)
{
	return nrules;
}

/* The rule of `tool' (declared rate `decl', or NULL) into *r: 0, or -1. */
static int
rule_of(const char *tool, const char *decl, struct wymcp_rate *r)
{
	const struct rate_rule	*any = NULL;
	size_t			 i;

	for (i = 0; i < nrules; i++) {
		if (strcmp(rules[i].name, tool) == 0) {
			*r = rules[i].r;
			return 0;
		}
		if (strcmp(rules[i].name, "*") == 0)
			any = &rules[i];
	}
	if (decl != NULL && wymcp_rate_parse(decl, r) == 0)
		return 0;
	if (any == NULL)
		return -1;
	*r = any->r;
	return 0;
}

/* The slot of digest d, or the empty slot where it would go. */
static struct rate_slot *
probe(struct front_rates *t, const unsigned char *d)
{
	size_t	 i = front_shm_home(d, FRONT_RATE_SLOTS);

	while (t->slot[i].at != 0 && memcmp(t->slot[i].d, d, RATE_DIGEST) != 0)
		i = (i + 1) & (FRONT_RATE_SLOTS - 1);
	return &t->slot[i];
}

/* Keep only the buckets that have not refilled by `now'. */
static void
rebuild(struct front_rates *t, long long now)
{
	struct rate_slot	*keep, *s;
	size_t			 i, n = 0;

	t->rebuilds++;
	if ((keep = calloc(t->used, sizeof(*keep))) == NULL)
		return;
	for (i = 0; i < FRONT_RATE_SLOTS; i++)
		if (t->slot[i].at != 0 && n < t->used &&
		    t->slot[i].full_at > now)
			keep[n++] = t->slot[i];
	memset(t->slot, 0, sizeof(t->slot));
	for (i = 0; i < n; i++) {
		s = probe(t, keep[i].d);
		*s = keep[i];
	}
	t->used = n;
	free(keep);
}

/*
 * The pair's digest: SipHash-2-4, 128-bit output, keyed with the
 * table's key, of who, a NUL and tool; the last pair's is remembered
 * (the same principal calls the same tool request after request).
 */
static void
digest(const struct front_rates *t, const char *who, const char *tool,
    unsigned char *d)
{
	static char		 memo[RATE_MEMO];	/* who NUL tool */
	static unsigned char	 md[RATE_DIGEST];
	static size_t		 ma;			/* who NUL's length */
	static const struct front_rates *mt;
	unsigned char		 buf[RATE_MEMO], *big;
	size_t			 a, b;

	/* The last pair's, compared where it stands. */
	if (mt == t && strcmp(memo, who) == 0 &&
	    strcmp(memo + ma, tool) == 0) {
		memcpy(d, md, RATE_DIGEST);
		return;
	}
	a = strlen(who) + 1;
	b = strlen(tool);
	if (a + b >= sizeof(buf)) {
		/* Too long to remember: digested in a buffer of its own. */
		if ((big = malloc(a + b)) == NULL) {
			memset(d, 0, RATE_DIGEST);
			return;
		}
		memcpy(big, who, a);
		memcpy(big + a, tool, b);
		crypto_shorthash_siphashx24(d, big, a + b, t->shm.key);
		free(big);
		return;
	}
	memcpy(buf, who, a);
	memcpy(buf + a, tool, b + 1);
	crypto_shorthash_siphashx24(d, buf, a + b, t->shm.key);
	memcpy(memo, buf, a + b + 1);
	ma = a;
	memcpy(md, d, RATE_DIGEST);
	mt = t;
}

/* The lock's holder died: every bucket starts full again. */
static void
clear(void *arg)
{
	struct front_rates	*t = arg;

	memset(t->slot, 0, sizeof(t->slot));
	t->used = 0;
}

/*
 * x rounded up to a whole number, at least 1 (no libm); a millionth
 * over a whole number is rounding's, not a wait.
 */
static long
up(double x)
{
	long	 n = (long)x;

	if (x - (double)n > 1e-6)
		n++;
	return n < 1 ? 1 : n;
}

long
front_rate_take(struct front_rates *t, const char *who, const char *tool,
    const char *decl, long long now)
{
	struct wymcp_rate	 r;
	struct rate_slot	*s;
	unsigned char		 d[RATE_DIGEST];
	double			 tokens;
	long			 wait = 0;

	if (t == NULL || rule_of(tool, decl, &r) != 0)
		return 0;
	digest(t, who, tool, d);
	if (now <= 0)
		now = 1;

	if (front_shm_lock(&t->shm, clear, t) != 0)
		return 0;
	s = probe(t, d);
	if (s->at == 0) {
		if (t->used >= FRONT_RATE_SLOTS / 4 * 3) {
			rebuild(t, now);
			s = probe(t, d);
		}
		if (t->used >= FRONT_RATE_SLOTS / 4 * 3) {
			t->full++;
			t->refused++;
			wait = 1000;
			goto out;
		}
		memcpy(s->d, d, sizeof(d));
		s->tokens = r.burst;
		s->at = now;
		t->used++;
	}
	tokens = s->tokens + (double)(now - s->at) * r.per_s / 1000;
	if (tokens > r.burst)
		tokens = r.burst;
	s->at = now;
	if (tokens >= 1)
		s->tokens = tokens - 1;
	else {
		s->tokens = tokens;
		wait = up((1 - tokens) * 1000 / r.per_s);
		t->refused++;
	}
	s->full_at = now + up((r.burst - s->tokens) * 1000 / r.per_s);
out:
	front_shm_unlock(&t->shm);
	return wait;
}

void
front_rate_counts(const struct front_rates *t, unsigned long *refused,
    unsigned long *full, size_t *pairs)
{
	*refused = t != NULL ? __atomic_load_n(&t->refused,
	    __ATOMIC_RELAXED) : 0;
	*full = t != NULL ? __atomic_load_n(&t->full, __ATOMIC_RELAXED) : 0;
	*pairs = t != NULL ? __atomic_load_n(&t->used, __ATOMIC_RELAXED) : 0;
}

/* The monotonic clock in milliseconds. */
static long long
mono_ms(void)
{
	struct timespec	 ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The library's admission hook (wymcp_server_set_admit_fn()). */
long
front_rate_admit(void *arg, const struct wymcp_admit *a)
{
	return front_rate_take(arg, a->who, a->tool, a->rate, mono_ms());
}
