/*
 * fuzz_keyfile.c - libFuzzer target for the requestState key file
 * parser (setup/keys.c)
 *
 * The input is the contents of a key file.  setup.h declares
 * wymcp__keyfile_parse(), the parser the loader and --generate-key are
 * to share, but it is not defined yet; until it is, the target goes
 * through the loader's entry point, wymcp_server_load_state_keys(),
 * with the input written to a private file (mode 0600) first.  When
 * wymcp__keyfile_parse() lands, parse() below becomes one call.
 *
 * The verdict is held against the format the loader documents (a key
 * per line, 64 hexadecimal digits; blank lines, lines starting with
 * '#', and spaces, tabs and a CR around a line allowed; at least one
 * key; no NUL byte anywhere, as --generate-key's check says): an
 * accepted file must hold exactly the keys of a reference parse, in
 * order, and a refused one must not be valid by it.  A
 * refusal must say why; a failed load must leave the keys as they were.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>
#include <ctype.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sodium.h>

#include "setup/setup.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define INPUT_MAX	(64 * 1024)
#define KEYS_MAX	(INPUT_MAX / 64 + 1)

static char	 path[64];

/* The reference parse: 1 with the keys, 0 when the file is not valid. */
static int
reference(const uint8_t *d, size_t len, unsigned char (*keys)[32],
    size_t *n)
{
	size_t	 i, s, e, k;
	int	 hi, lo;

	*n = 0;
	if (memchr(d, '\0', len) != NULL)
		return 0;	/* binary data: not a key file */
	for (s = 0; s < len; s = e + 1) {
		for (e = s; e < len && d[e] != '\n'; e++)
			continue;
		i = s;
		k = e;
		while (i < k && (d[i] == ' ' || d[i] == '\t'))
			i++;
		while (k > i && (d[k - 1] == ' ' || d[k - 1] == '\t' ||
		    d[k - 1] == '\r'))
			k--;
		if (i == k || d[i] == '#')
			continue;
		if (k - i != 64)
			return 0;
		for (; i < k; i += 2) {
			if (!isxdigit(d[i]) || !isxdigit(d[i + 1]))
				return 0;
			hi = isdigit(d[i]) ? d[i] - '0' :
			    tolower(d[i]) - 'a' + 10;
			lo = isdigit(d[i + 1]) ? d[i + 1] - '0' :
			    tolower(d[i + 1]) - 'a' + 10;
			keys[*n][(i - (k - 64)) / 2] =
			    (unsigned char)(hi << 4 | lo);
		}
		(*n)++;
	}
	return *n > 0;
}

/* The parser under test: 0 with srv's keys replaced, or -1. */
static int
parse(struct wymcp_server *srv, const uint8_t *data, size_t size)
{
	int	 fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW,
	    0600)) == -1) {
		perror(path);
		abort();
	}
	if (fchmod(fd, 0600) == -1 ||
	    (size > 0 && write(fd, data, size) != (ssize_t)size)) {
		perror(path);
		abort();
	}
	close(fd);
	return wymcp_server_load_state_keys(srv, path) == WYMCP_OK ? 0 : -1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct wymcp_server	*srv;
	static unsigned char		 want[KEYS_MAX][32];
	unsigned char			 before[32];
	size_t				 n, i;
	int				 valid, rc;

	if (size > INPUT_MAX)
		return 0;
	if (srv == NULL) {
		snprintf(path, sizeof(path), "/tmp/fuzz_keyfile.%ld",
		    (long)getpid());
		if ((srv = wymcp_server_new()) == NULL || sodium_init() < 0)
			abort();
	}
	/* A key of its own, which a refused file must leave in place. */
	if (wymcp__keys_random(srv) != 0)
		abort();
	memcpy(before, srv->keys[0].key, sizeof(before));

	valid = reference(data, size, want, &n);
	rc = parse(srv, data, size);
	unlink(path);
	if (rc == 0) {
		if (!valid) {
			fprintf(stderr, "fuzz_keyfile: accepted a file the "
			    "format does not allow (%zu keys loaded)\n",
			    srv->nkeys);
			abort();
		}
		if (srv->nkeys != n) {
			fprintf(stderr, "fuzz_keyfile: %zu keys, want %zu\n",
			    srv->nkeys, n);
			abort();
		}
		for (i = 0; i < n; i++)
			if (memcmp(srv->keys[i].key, want[i], 32) != 0) {
				fprintf(stderr, "fuzz_keyfile: key %zu "
				    "differs\n", i);
				abort();
			}
		return 0;
	}
	if (valid) {
		fprintf(stderr, "fuzz_keyfile: refused a valid file: %s\n",
		    wymcp_server_errmsg(srv));
		abort();
	}
	if (wymcp_server_errmsg(srv)[0] == '\0') {
		fprintf(stderr, "fuzz_keyfile: refused without a reason\n");
		abort();
	}
	if (srv->nkeys != 1 || memcmp(srv->keys[0].key, before, 32) != 0) {
		fprintf(stderr, "fuzz_keyfile: a refused file changed the "
		    "keys\n");
		abort();
	}
	return 0;
}
