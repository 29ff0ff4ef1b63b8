/*
 * memio.c - an in-memory request and response for the fuzz targets
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "memio.h"

static long
mem_read(void *arg, char *buf, size_t len)
{
	struct fuzz_memio	*m = arg;
	size_t			 n = m->inlen - m->inoff;

	if (n > len)
		n = len;
	memcpy(buf, m->in + m->inoff, n);
	m->inoff += n;
	return (long)n;
}

static int
mem_write(void *arg, const char *buf, size_t len)
{
	struct fuzz_memio	*m = arg;
	char			*p;
	size_t			 cap;

	if (m->outlen + len + 1 > m->outcap) {
		cap = (m->outlen + len + 1) * 2;
		if ((p = realloc(m->out, cap)) == NULL)
			abort();
		m->out = p;
		m->outcap = cap;
	}
	memcpy(m->out + m->outlen, buf, len);
	m->outlen += len;
	m->out[m->outlen] = '\0';
	return 0;
}

void
fuzz_memio_io(struct fuzz_memio *m, struct wymcp_io *io, char *const *env,
    const void *in, size_t inlen)
{
	memset(m, 0, sizeof(*m));
	m->in = in;
	m->inlen = inlen;
	memset(io, 0, sizeof(*io));
	io->env = env;
	io->read = mem_read;
	io->write = mem_write;
	io->arg = m;
}

void
fuzz_drop(void *arg, int prio, const char *reqid, const char *msg)
{
	(void)arg;
	(void)prio;
	(void)reqid;
	if (msg == NULL)
		abort();
}
