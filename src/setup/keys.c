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
	return 0;
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
read_keyfile(const char *path, char *err, size_t errlen)
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
	close(fd);
	return buf;
fail:
	if (buf != NULL)
		sodium_memzero(buf, KEYFILE_MAX + 1);
	free(buf);
	close(fd);
	return NULL;
}

enum wymcp_err
wymcp_server_load_state_keys(struct wymcp_server *srv, const char *path)
{
	struct wymcp__key	*keys = NULL, *nk;
	char			*buf, *p, *e;
	size_t			 n = 0, len, lineno = 0;

	if (srv == NULL || path == NULL)
		return WYMCP_ERR_INVAL;
	if (sodium_init() < 0) {
		wymcp__seterr(srv, "libsodium could not be initialized");
		return WYMCP_ERR_STATE;
	}
	if ((buf = read_keyfile(path, srv->errmsg, sizeof(srv->errmsg))) ==
	    NULL)
		return WYMCP_ERR_STATE;
	for (p = buf; *p != '\0'; p = *e == '\0' ? e : e + 1) {
		lineno++;
		e = p + strcspn(p, "\n");
		len = (size_t)(e - p);
		while (len > 0 && (p[len - 1] == '\r' || p[len - 1] == ' ' ||
		    p[len - 1] == '\t'))
			len--;
		while (len > 0 && (*p == ' ' || *p == '\t')) {
			p++;
			len--;
		}
		if (len == 0 || *p == '#')
			continue;
		if ((nk = reallocarray(keys, n + 1, sizeof(*nk))) == NULL) {
			wymcp__seterr(srv, "out of memory");
			goto fail;
		}
		keys = nk;
		if (parse_key(p, len, &keys[n])) {
			wymcp__seterr(srv, "%s:%zu: a key is 64 hexadecimal "
			    "digits (wymcp-fcgi --generate-key makes one)",
			    path, lineno);
			goto fail;
		}
		n++;
	}
	if (n == 0) {
		wymcp__seterr(srv, "%s: no key in the file", path);
		goto fail;
	}
	sodium_memzero(buf, strlen(buf));
	free(buf);
	if (srv->keys != NULL)
		sodium_memzero(srv->keys, srv->nkeys * sizeof(*srv->keys));
	free(srv->keys);
	srv->keys = keys;
	srv->nkeys = n;
	return WYMCP_OK;
fail:
	sodium_memzero(buf, strlen(buf));
	free(buf);
	if (keys != NULL)
		sodium_memzero(keys, n * sizeof(*keys));
	free(keys);
	return WYMCP_ERR_STATE;
}

void
wymcp_server_set_state_ttl(struct wymcp_server *srv, unsigned int seconds)
{
	if (srv != NULL)
		srv->state_ttl = seconds;
}

/* A registered tool's identity: BLAKE2b of its Tool object.  0 or -1. */
int
wymcp__tool_digest(struct wymcp__tool *t)
{
	const char	*s = wymcp__json(t->listing);

	if (sodium_init() < 0)
		return -1;
	return crypto_generichash(t->digest, sizeof(t->digest),
	    (const unsigned char *)s, strlen(s), NULL, 0);
}

/*
 * A listing object's identity: BLAKE2b-256 of its compact
 * serialization.  0, or -1 when libsodium cannot start.
 */
int
wymcp__listing_digest(struct json_object *listing, unsigned char *out)
{
	const char	*s = wymcp__json(listing);

	if (sodium_init() < 0)
		return -1;
	return crypto_generichash(out, 32, (const unsigned char *)s,
	    strlen(s), NULL, 0) == 0 ? 0 : -1;
}
