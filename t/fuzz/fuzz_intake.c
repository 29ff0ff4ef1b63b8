/*
 * fuzz_intake.c - libFuzzer target for the hub's event parser
 * (src/front/intake.c: front_intake(), front_sees())
 *
 * The input is one event as the hub takes it: a NOTIFY payload from
 * the bus or a datagram on PATH.hub (from outside), or what a worker
 * says on its channel.  Each input is parsed as each side would send
 * it.  Whatever it is, the parser refuses it with a reason or returns
 * an event whose members are there and of their types: from outside
 * data only ("updated", "list") or a sealed frame; from a sealed body
 * stream control only (a gap only there); from a worker never a sealed
 * frame.  A list event's tools are matched against a comma-and-blank
 * mount list.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "front/intake.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
fail(const char *what, int from)
{
	fprintf(stderr, "fuzz_intake: %s (from %d)\n", what, from);
	abort();
}

/* The members of an accepted event `ev', parsed from side `from'. */
static void
check(const struct front_event *ev, int from)
{
	size_t	 i;

	switch (ev->kind) {
	case FRONT_EV_UPDATED:
		if (ev->uri == NULL || strlen(ev->uri) == 0 ||
		    strlen(ev->uri) > FRONT_EVENT_URI_MAX)
			fail("updated without its URI", from);
		break;
	case FRONT_EV_LIST:
		if (ev->lists == 0 || (ev->lists & ~7) != 0)
			fail("a list event's lists", from);
		if (ev->tools != NULL)
			for (i = 0; i < json_object_array_length(ev->tools);
			    i++)
				if (!json_object_is_type(
				    json_object_array_get_idx(ev->tools, i),
				    json_type_string))
					fail("a tool name not a string", from);
		(void)front_sees("help, echo,,write_note\tx", ev->tools);
		(void)front_sees(NULL, ev->tools);
		break;
	case FRONT_EV_CANCEL:
		if (ev->who == NULL || ev->id == NULL)
			fail("cancel without who or id", from);
		break;
	case FRONT_EV_SUBSCRIBE:
	case FRONT_EV_UNSUBSCRIBE:
		if (ev->session == NULL || ev->uri == NULL)
			fail("subscribe without session or URI", from);
		break;
	case FRONT_EV_SEALED:
		if (ev->kid == NULL || strlen(ev->kid) != 8 ||
		    ev->mac == NULL || ev->body == NULL ||
		    strlen(ev->body) != ev->bodylen || ev->t <= 0)
			fail("a sealed frame's members", from);
		break;
	case FRONT_EV_GAP:
		if (ev->from == NULL || ev->nonce == NULL ||
		    strlen(ev->from) != FRONT_GAP_ID_LEN ||
		    strlen(ev->nonce) != FRONT_GAP_ID_LEN ||
		    strspn(ev->from, "0123456789abcdef") != FRONT_GAP_ID_LEN ||
		    strspn(ev->nonce, "0123456789abcdef") != FRONT_GAP_ID_LEN)
			fail("a gap's members", from);
		if (from != FRONT_FROM_SEALED)
			fail("a gap not sealed", from);
		if ((ev->lists & ~7) != 0 || (!ev->narrow &&
		    (ev->lists != 0 || ev->uris != NULL)))
			fail("a gap's streams", from);
		for (i = 0; ev->uris != NULL &&
		    i < json_object_array_length(ev->uris); i++)
			if (!json_object_is_type(json_object_array_get_idx(
			    ev->uris, i), json_type_string))
				fail("a gap's URI not a string", from);
		break;
	default:
		fail("no kind", from);
	}
	if (from == FRONT_FROM_OUTSIDE && ev->kind != FRONT_EV_UPDATED &&
	    ev->kind != FRONT_EV_LIST && ev->kind != FRONT_EV_SEALED)
		fail("a command from outside", from);
	if (from == FRONT_FROM_SEALED && (ev->kind == FRONT_EV_UPDATED ||
	    ev->kind == FRONT_EV_LIST || ev->kind == FRONT_EV_SEALED))
		fail("data in a sealed frame", from);
	if (from == FRONT_FROM_WORKER && ev->kind == FRONT_EV_SEALED)
		fail("a sealed frame from a worker", from);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int	 sides[] = { FRONT_FROM_OUTSIDE,
		FRONT_FROM_WORKER, FRONT_FROM_SEALED };
	struct front_event	 ev;
	enum front_refusal	 why;
	size_t			 i;

	for (i = 0; i < sizeof(sides) / sizeof(sides[0]); i++) {
		why = front_intake((const char *)data, size, sides[i], &ev);
		if (why >= FRONT_REF_N)
			fail("a refusal out of range", sides[i]);
		if (why != FRONT_REF_NONE) {
			if (ev.o != NULL || ev.kind != 0)
				fail("a refusal that holds something",
				    sides[i]);
			continue;
		}
		check(&ev, sides[i]);
		front_event_clear(&ev);
	}
	(void)front_mounted((const char *)"a,b c", "b");
	return 0;
}
