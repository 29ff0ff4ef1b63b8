/*
 * memio.h - an in-memory request and response for the fuzz targets
 *
 * fuzz_memio_io() points a struct wymcp_io at a request body held in
 * memory: reads take from it, writes append to a buffer the memio owns
 * (NUL-terminated; free(m->out) after).  fuzz_drop() is a log function
 * that formats nothing and keeps nothing, and aborts on a NULL line.
 * fuzz_response() checks the response written (a Status of the
 * 0-terminated `statuses', one JSON object as the body, a result with
 * resultType under 200 or an error with a code), frees m->out and
 * returns the object (the caller puts it); it aborts, saying why, on
 * anything else.
 */
#ifndef WYMCP_FUZZ_MEMIO_H
#define WYMCP_FUZZ_MEMIO_H

#include <stddef.h>

struct json_object;

#include "wymcp.h"

struct fuzz_memio {
	const char	*in;
	size_t		 inlen, inoff;
	char		*out;
	size_t		 outlen, outcap;
};

void	fuzz_memio_io(struct fuzz_memio *, struct wymcp_io *,
	    char *const *env, const void *in, size_t inlen);
void	fuzz_drop(void *arg, int prio, const char *reqid, const char *msg);
struct json_object *fuzz_response(struct fuzz_memio *, const int *statuses);

#endif /* WYMCP_FUZZ_MEMIO_H */
