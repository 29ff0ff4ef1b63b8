/*
 * keys.c - requestState sealing keys and the digests fixed at load
 *
 * A key file holds one key per line (64 hex digits); the first seals,
 * every key opens.  The same parser serves the loader and
 * --generate-key's writer (keyfile.c).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "setup/setup.h"

#define KEYFILE_MAX	(1024 * 1024)	/* largest key file read */

/* Derive the key id: the first bytes of BLAKE2b(key). */
static void
key_id(struct wymcp__key *k)
{
	unsigned char	 h[16];

	crypto_generichash(h, sizeof(h), k->key, sizeof(k->key), NULL, 0);
	memcpy(k->id, h, sizeof(k->id));
}

/*
 * Give the server one random key of its own.  Returns 0 or -1.  Workers
 * forked after this share it; other hosts do not.
 */
int
wymcp__keys_random(struct wymcp_server *srv)
{
	struct wymcp__key	*k;

	if (sodium_init() < 0)
		return -1;
	if ((k = calloc(1, sizeof(*k))) == NULL)
		return -1;
	randombytes_buf(k->key, sizeof(k->key));
	key_id(k);
	if (srv->keys != NULL)
		sodium_memzero(srv->keys, srv->nkeys * sizeof(*srv->keys));
	free(srv->keys);
	srv->keys = k;
	srv->nkeys = 1;
	srv->keys_random = 1;
	return 0;
}

/*
 * Drop the random key (a key file's keys stay): nothing is sealed until
 * a key file is loaded.  See wymcp.h.
 */
void
wymcp_server_forget_random_key(struct wymcp_server *srv)
{
	if (srv == NULL || !srv->keys_random)
		return;
	if (srv->keys != NULL)
		sodium_memzero(srv->keys, srv->nkeys * sizeof(*srv->keys));
	free(srv->keys);
	srv->keys = NULL;
	srv->nkeys = 0;
	srv->keys_random = 0;
}

/* Parse 64 hex digits into a key; 0 or -1. */
static int
parse_key(const char *line, size_t len, struct wymcp__key *k)
{
	size_t	 bin;

	if (len != 64)
		return -1;
	if (sodium_hex2bin(k->key, sizeof(k->key), line, len, NULL, &bin,
	    NULL) != 0 || bin != sizeof(k->key))
		return -1;
	key_id(k);
	return 0;
}

/* Read a whole small file, refusing loose permissions.  NULL on error. */
static char *
read_keyfile(const char *path, size_t *len, char *err, size_t errlen)
{
	struct stat	 st;
	char		*buf = NULL;
	ssize_t		 n;
	size_t		 got = 0;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		goto fail;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		snprintf(err, errlen, "%s: key file is accessible by group or "
		    "others (mode %03o); chmod 600 it", path,
		    (unsigned int)(st.st_mode & 0777));
		goto fail;
	}
	if ((buf = malloc(KEYFILE_MAX + 1)) == NULL) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	while (got < KEYFILE_MAX &&
	    (n = read(fd, buf + got, KEYFILE_MAX - got)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto fail;
		}
		got += (size_t)n;
	}
	/* The parser reads to the first NUL: refuse what it would skip. */
	if (memchr(buf, '\0', got) != NULL) {
		snprintf(err, errlen, "%s: binary data (a NUL byte): not a "
		    "key file", path);
		goto fail;
	}
	buf[got] = '\0';
	*len = got;
	close(fd);
	return buf;
fail:
	if (buf != NULL)
		sodium_memzero(buf, KEYFILE_MAX + 1);
	free(buf);
	close(fd);
	return NULL;
}

/*
 * Parse the text of a key file: one key per line, 64 hexadecimal
 * digits; blank lines and lines starting with '#' are skipped; spaces,
 * tabs and a CR around a line are ignored.  With `keys` non-NULL, the
 * keys are returned in a new array (the caller wipes and frees it).
 * *nkeys is the number of keys.  0, or -1 with the reason in err:
 * "N: ..." for line N, so that a caller puts "PATH:" before it.  The
 * loader and --generate-key's writer both read key files through this
 * function, so a file one accepts the other accepts too.
 */
int
wymcp__keyfile_parse(const char *buf, size_t len, struct wymcp__key **keys,
    size_t *nkeys, char *err, size_t errlen)
{
	struct wymcp__key	*out = NULL, *nk, k;
	const char		*p, *e, *end = buf + len;
	size_t			 n = 0, l, lineno = 0;

	*nkeys = 0;
	if (keys != NULL)
		*keys = NULL;
	if (memchr(buf, '\0', len) != NULL) {
		snprintf(err, errlen, " binary data, not a key file");
		return -1;
	}
	for (p = buf; p < end; p = e + 1) {
		lineno++;
		if ((e = memchr(p, '\n', (size_t)(end - p))) == NULL)
			e = end;
		l = (size_t)(e - p);
		while (l > 0 && (p[l - 1] == '\r' || p[l - 1] == ' ' ||
		    p[l - 1] == '\t'))
			l--;
		while (l > 0 && (*p == ' ' || *p == '\t')) {
			p++;
			l--;
		}
		if (l == 0 || *p == '#')
			continue;
		if (parse_key(p, l, &k)) {
			snprintf(err, errlen, "%zu: a key is 64 hexadecimal "
			    "digits (wymcp-fcgi --generate-key makes one)",
			    lineno);
			goto fail;
		}
		if (keys != NULL) {
			if ((nk = reallocarray(out, n + 1, sizeof(*nk))) ==
			    NULL) {
				snprintf(err, errlen, "out of memory");
				goto fail;
			}
			out = nk;
			out[n] = k;
		}
		n++;
	}
	sodium_memzero(&k, sizeof(k));
	*nkeys = n;
	if (keys != NULL)
		*keys = out;
	return 0;
fail:
	sodium_memzero(&k, sizeof(k));
	if (out != NULL)
		sodium_memzero(out, n * sizeof(*out));
	free(out);
	return -1;
}

enum wymcp_err
wymcp_server_load_state_keys(struct wymcp_server *srv, const char *path)
{
	struct wymcp__key	*keys = NULL;
	char			*buf, why[256];
	size_t			 n = 0, len;
	int			 rc;

	if (srv == NULL || path == NULL)
		return WYMCP_ERR_INVAL;
	if (sodium_init() < 0) {
		wymcp__seterr(srv, "libsodium could not be initialized");
		return WYMCP_ERR_STATE;
	}
	if ((buf = read_keyfile(path, &len, srv->errmsg,
	    sizeof(srv->errmsg))) == NULL)
		return WYMCP_ERR_STATE;
	rc = wymcp__keyfile_parse(buf, len, &keys, &n, why, sizeof(why));
	sodium_memzero(buf, len);
	free(buf);
	if (rc != 0) {
		wymcp__seterr(srv, "%s:%s", path, why);
		return WYMCP_ERR_STATE;
	}
	if (n == 0) {
		wymcp__seterr(srv, "%s: no key in the file", path);
		free(keys);
		return WYMCP_ERR_STATE;
	}
	if (srv->keys != NULL)
		sodium_memzero(srv->keys, srv->nkeys * sizeof(*srv->keys));
	free(srv->keys);
	srv->keys = keys;
	srv->nkeys = n;
	srv->keys_random = 0;
	return WYMCP_OK;
}

void
wymcp_server_set_state_ttl(struct wymcp_server *srv, unsigned int seconds)
{
	if (srv != NULL)
		srv->state_ttl = seconds;
}

/*
 * A registered tool's identity: BLAKE2b of its Tool object, which is
 * frozen then (once: a tool digested already is left as it is).  0 or
 * -1.
 */
int
wymcp__tool_digest(struct wymcp__tool *t)
{
	if (t->digested)
		return 0;
	if (wymcp__listing_digest(t->listing, t->digest))
		return -1;
	t->digested = 1;
	return 0;
}

/*
 * A listing object's identity: BLAKE2b-256 of its compact
 * serialization, which is frozen then: the listing is final, and every
 * list response copies that text instead of walking the object.  0, or
 * -1 when libsodium cannot start or memory runs out.
 */
int
wymcp__listing_digest(struct json_object *listing, unsigned char *out)
{
	const char	*s = wymcp__json(listing);

	if (sodium_init() < 0)
		return -1;
	if (crypto_generichash(out, 32, (const unsigned char *)s, strlen(s),
	    NULL, 0) != 0)
		return -1;
	return wymcp__json_freeze(listing);
}

/*
 * The identity of a mount list: BLAKE2b of its tools' digests in order.
 * A requestState is bound to it, so a redeploy that changes the tools
 * invalidates state instead of misreading it.
 */
void
wymcp__mount_digest(const struct wymcp__tool *const *tools, size_t n,
    unsigned char *out)
{
	crypto_generichash_state st;
	size_t			 i;

	crypto_generichash_init(&st, NULL, 0, 32);
	for (i = 0; i < n; i++)
		crypto_generichash_update(&st, tools[i]->digest,
		    sizeof(tools[i]->digest));
	crypto_generichash_final(&st, out, 32);
}

/*
 * Every registered tool's digest and frozen listing, and the identity of
 * them all (the mount list without WYMCP_TOOLS): made at each load, or,
 * for a lazy server (wymcp_server_set_lazy()), on first use: by a
 * tools/list, a sealed or opened requestState, a catalogue.  A CGI
 * tools/call then serializes no listing.  The server is not used by
 * two threads at once (wymcp(3)), so that filling them in here, from a
 * request, is safe.  WYMCP_OK, or WYMCP_ERR_NOMEM (they are made again
 * on the next use).
 */
enum wymcp_err
wymcp__tools_digest(const struct wymcp_server *csrv)
{
	/* What is made here is derived, never changed: it is a cache. */
	struct wymcp_server	*srv = (struct wymcp_server *)csrv;
	crypto_generichash_state st;
	size_t			 i;

	if (srv->digested)
		return WYMCP_OK;
	for (i = 0; i < srv->ntools; i++)
		if (wymcp__tool_digest(&srv->tools[i]))
			return WYMCP_ERR_NOMEM;
	crypto_generichash_init(&st, NULL, 0, sizeof(srv->mount_digest));
	for (i = 0; i < srv->ntools; i++)
		crypto_generichash_update(&st, srv->tools[i].digest,
		    sizeof(srv->tools[i].digest));
	crypto_generichash_final(&st, srv->mount_digest,
	    sizeof(srv->mount_digest));
	srv->digested = 1;
	return WYMCP_OK;
}
