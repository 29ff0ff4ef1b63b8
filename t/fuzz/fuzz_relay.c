/*
 * fuzz_relay.c - libFuzzer target for the frame of a relayed answer
 * (core/seal.c: wymcp__relay_frame(), wymcp__relay_open())
 *
 * A 2025-11-25 client's answer travels from the worker it reached to
 * the worker holding the question over sockets that others may write
 * to; the holder opens the frame before it looks at the answer.  The
 * server has a random key of its own, so no input is an authentic
 * frame: wymcp__relay_open() must refuse it, saying why, and never
 * read past its end.
 *
 * An input starting with a NUL byte is different: the next byte is
 * the length of a holder address, then the address, then the body.
 * The target frames the body for that holder with the server's key;
 * the frame must open for that holder to exactly the body, and must
 * not open for another holder or once any one byte of it is changed
 * (the byte chosen by the body's length, the change by its first
 * byte).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define INPUT_MAX	(64 * 1024)

static struct wymcp_server	*srv;

static void
refused(struct wymcp_ctx *ctx, const char *holder, const char *msg,
    size_t len)
{
	const char	*body = NULL, *why = NULL;
	size_t		 blen = 0;

	if (wymcp__relay_open(ctx, holder, msg, len, &body, &blen,
	    &why) == 0 || why == NULL || *why == '\0')
		abort();
}

static void
roundtrip(struct wymcp_ctx *ctx, const uint8_t *data, size_t size)
{
	const char	*frame, *body, *why;
	char		 holder[258], *copy;
	size_t		 hl, blen, flen, at;

	if (size < 1 || (hl = data[0]) > size - 1)
		return;
	memcpy(holder, data + 1, hl);
	holder[hl] = '\0';
	if (strlen(holder) != hl)
		return;
	data += 1 + hl;
	size -= 1 + hl;
	if ((frame = wymcp__relay_frame(ctx, holder, (const char *)data,
	    size, &flen)) == NULL)
		abort();
	if (wymcp__relay_open(ctx, holder, frame, flen, &body, &blen,
	    &why) != 0 || blen != size || memcmp(body, data, size) != 0)
		abort();
	holder[hl] = 'x';
	holder[hl + 1] = '\0';
	refused(ctx, holder, frame, flen);
	holder[hl] = '\0';
	if ((copy = malloc(flen)) == NULL)
		abort();
	memcpy(copy, frame, flen);
	at = size % flen;
	copy[at] ^= (char)(size > 0 && data[0] != 0 ? data[0] : 1);
	refused(ctx, holder, copy, flen);
	/* One byte short, or one more. */
	refused(ctx, holder, frame, flen - 1);
	free(copy);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wymcp_ctx	 ctx;
	char			*msg;
	const char		*env[] = { NULL };

	if (size > INPUT_MAX)
		return 0;
	if (srv == NULL && (srv = wymcp_server_new()) == NULL)
		abort();
	wymcp__ctx_init(&ctx, srv, (char *const *)env);
	if (size > 0 && data[0] == '\0')
		roundtrip(&ctx, data + 1, size - 1);
	else {
		/* An exact-length copy: ASan sees a read past its end. */
		if ((msg = malloc(size > 0 ? size : 1)) == NULL)
			abort();
		memcpy(msg, data, size);
		refused(&ctx, "127.0.0.1:9100/1234.1", msg, size);
		free(msg);
	}
	wymcp__ctx_free(&ctx);
	return 0;
}
