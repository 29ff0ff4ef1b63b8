/*
 * memio.c - an in-memory request and response for the fuzz targets
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

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

struct json_object *
fuzz_response(struct fuzz_memio *m, const int *statuses)
{
	struct json_tokener	*tok;
	struct json_object	*resp, *v;
	const char		*sep, *why = NULL;
	size_t			 i;
	int			 status;

	if (m->out == NULL || strncmp(m->out, "Status: ", 8) != 0 ||
	    (sep = strstr(m->out, "\r\n\r\n")) == NULL) {
		why = "not a CGI response";
		goto bad;
	}
	status = atoi(m->out + 8);
	for (i = 0; statuses[i] != 0 && statuses[i] != status; i++)
		continue;
	if (statuses[i] == 0) {
		why = "an unexpected status";
		goto bad;
	}
	if ((tok = json_tokener_new()) == NULL)
		abort();
	resp = json_tokener_parse_ex(tok, sep + 4, (int)strlen(sep + 4));
	if (json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != strlen(sep + 4) ||
	    !json_object_is_type(resp, json_type_object)) {
		why = "the body is not one JSON object";
		goto bad;
	}
	json_tokener_free(tok);
	if (json_object_object_get_ex(resp, "result", &v)) {
		if (status != 200 || !json_object_object_get_ex(v,
		    "resultType", NULL)) {
			why = "a result without resultType or 200";
			goto bad;
		}
	} else if (!json_object_object_get_ex(resp, "error", &v) ||
	    !json_object_object_get_ex(v, "code", NULL)) {
		why = "neither result nor error";
		goto bad;
	}
	free(m->out);
	m->out = NULL;
	return resp;
bad:
	fprintf(stderr, "fuzz: %s\n--- response ---\n%.4096s\n", why,
	    m->out != NULL ? m->out : "(none)");
	abort();
}
