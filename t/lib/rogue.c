/*
 * rogue.c - badly behaved tools, for the hardening tests only
 *
 * Never installed (check_LTLIBRARIES): t/e2e/e2e_harden.py loads it to
 * prove that no tool can pin a worker, take other workers down, or
 * write the response head.  Each tool misbehaves in one way:
 *
 *	loop_forever	spins, never calling the library
 *	sleep_quietly	sleeps args.seconds (default 3600) without looking,
 *			then answers
 *	wait_politely	sleeps in 50 ms steps until wymcp_cancelled(), or
 *			args.seconds (default 60)
 *	crash		abort()s, or (args.how "segv") writes through NULL
 *	allocate	mallocs and touches args.mib MiB (default 1024) in
 *			16 MiB pieces, keeping them; out of memory is
 *			WYMCP_ERR_NOMEM
 *	leak_fds	opens args.n (default 100) descriptors, never closed
 *	print_stdout	printf()s a response head to standard output
 *	flood_events	publishes args.n (default 64, the most a run may)
 *			resources/updated events for a URI args.size bytes
 *			long (default 2000), "flood://" and 'x's: a client
 *			that does not read must not slow the hub
 *			(t/e2e/e2e_listen.py)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <wymcp.h>

#define PIECE	(16UL * 1024 * 1024)

static const char obj[] = "{\"type\":\"object\"}";

static int
int_arg(struct json_object *args, const char *name, int dflt)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(args, name, &v))
		return dflt;
	return json_object_get_int(v);
}

static void
sleep_ms(long ms)
{
	struct timespec	 ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) == -1)
		continue;
}

static enum wymcp_err
loop_forever(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	volatile unsigned long	 n = 0;

	(void)ctx;
	(void)args;
	(void)res;
	while (n != ~0UL)
		n++;
	return WYMCP_OK;	/* after 2^64 steps */
}

static enum wymcp_err
sleep_quietly(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	int	 s = int_arg(args, "seconds", 3600);

	sleep_ms(int_arg(args, "ms", s * 1000));
	return wymcp_result_add(res, wymcp_text(ctx, "slept"));
}

static enum wymcp_err
wait_politely(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	int	 i, steps = int_arg(args, "seconds", 60) * 20;

	for (i = 0; i < steps; i++) {
		if (wymcp_cancelled(ctx))
			return wymcp_result_error(res, "stopped after %d ms: "
			    "cancelled", i * 50);
		sleep_ms(50);
	}
	return wymcp_result_add(res, wymcp_text(ctx, "waited"));
}

static enum wymcp_err
crash(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	struct json_object	*v;

	(void)ctx;
	(void)res;
	if (json_object_object_get_ex(args, "how", &v) &&
	    strcmp(json_object_get_string(v), "segv") == 0)
		*(volatile int *)(volatile void *)NULL = 1;
	abort();
}

static enum wymcp_err
allocate(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	unsigned long	 want, got = 0;
	char		*p;

	want = (unsigned long)int_arg(args, "mib", 1024) * 1024 * 1024;
	while (got < want) {
		/* Kept on purpose: a leaking tool. */
		if ((p = malloc(PIECE)) == NULL) {
			wymcp_log(ctx, WYMCP_LOG_WARNING, "allocate: out of "
			    "memory after %lu MiB", got >> 20);
			return WYMCP_ERR_NOMEM;
		}
		memset(p, 0xa5, PIECE);
		got += PIECE;
	}
	return wymcp_result_add(res, wymcp_textf(ctx, "allocated %lu MiB",
	    got >> 20));
}

static enum wymcp_err
leak_fds(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	int	 i, n = int_arg(args, "n", 100);

	for (i = 0; i < n; i++)
		if (open("/dev/null", O_RDONLY) == -1)
			break;
	return wymcp_result_add(res, wymcp_textf(ctx, "leaked %d", i));
}

static enum wymcp_err
print_stdout(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	(void)args;
	printf("Status: 302 Found\r\nLocation: https://evil.example/\r\n"
	    "X-Injected: yes\r\n\r\n");
	fflush(stdout);
	return wymcp_result_add(res, wymcp_text(ctx, "printed"));
}

static enum wymcp_err
flood_events(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	int	 i, n = int_arg(args, "n", 64), size = int_arg(args, "size",
		    2000);
	char	*uri;

	if (size < 9 || size > 2048 || (uri = wymcp_alloc(ctx,
	    (size_t)size + 1)) == NULL)
		return wymcp_result_error(res, "size: 9 to 2048");
	memcpy(uri, "flood://", 8);
	memset(uri + 8, 'x', (size_t)size - 8);
	uri[size] = '\0';
	for (i = 0; i < n; i++)
		if (wymcp_notify_resource_updated(ctx, uri) != WYMCP_OK)
			break;
	return wymcp_result_add(res, wymcp_textf(ctx, "published %d", i));
}

static const struct wymcp_tool tools[] = {
	{ .name = "loop_forever", .description = "Spins for ever.",
	  .input_schema = obj, .run = loop_forever },
	{ .name = "sleep_quietly", .description = "Sleeps, never looking.",
	  .input_schema = obj, .run = sleep_quietly },
	{ .name = "wait_politely", .description = "Waits until cancelled.",
	  .input_schema = obj, .run = wait_politely },
	{ .name = "crash", .description = "Crashes the worker.",
	  .input_schema = obj, .run = crash },
	{ .name = "allocate", .description = "Allocates and keeps memory.",
	  .input_schema = obj, .run = allocate },
	{ .name = "leak_fds", .description = "Leaks descriptors.",
	  .input_schema = obj, .run = leak_fds },
	{ .name = "print_stdout", .description = "Writes to stdout.",
	  .input_schema = obj, .run = print_stdout },
	{ .name = "flood_events", .description = "Publishes many events.",
	  .input_schema = obj, .run = flood_events },
	{ .name = NULL }
};

WYMCP_MODULE("rogue", tools);
