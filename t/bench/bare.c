/*
 * bare.c - the baseline for the benchmark: a bare libfcgi + json-c
 * responder that does the least a tools/call "echo" must do (read the
 * body, parse it, build the JSON-RPC answer) and nothing else.
 * Built with -DCLOSE_AT_ONCE it closes each connection as wymcp-fcgi
 * closes a unix-socket one whose stdin it read to the end: at once
 * (FCGX_Detach()), not with libfcgi's lingering close (shutdown, then
 * poll and read until the web server closes), so that the benchmark
 * also shows wymcp against a floor that saves what wymcp saves there.
 * Usage: bare SOCKETPATH WORKERS [REQUESTS]
 * With WORKERS 0 it serves in this process, REQUESTS of them (0: no
 * end), then exits: the instruction count (t/bench/icount.py) runs it
 * that way under callgrind.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fcgiapp.h>
#include <json-c/json.h>

/* Not inlined: t/bench/icount.py counts instructions inside it only. */
static void __attribute__((noinline))
serve(int sock, long max)
{
	FCGX_Request		 req;
	char			 buf[65536], head[128];
	const char		*out;
	int			 n, len;
	struct json_object	*msg, *id, *p, *a, *t, *res, *r, *c, *b;

	FCGX_InitRequest(&req, sock, 0);
	/* max < 0: no end. */
	while ((max < 0 || max-- > 0) && FCGX_Accept_r(&req) >= 0) {
		len = 0;
		while ((n = FCGX_GetStr(buf + len, sizeof(buf) - 1 - len,
		    req.in)) > 0)
			len += n;
		buf[len] = '\0';
		msg = json_tokener_parse(buf);
		json_object_object_get_ex(msg, "id", &id);
		json_object_object_get_ex(msg, "params", &p);
		json_object_object_get_ex(p, "arguments", &a);
		json_object_object_get_ex(a, "text", &t);
		res = json_object_new_object();
		json_object_object_add(res, "jsonrpc",
		    json_object_new_string("2.0"));
		json_object_object_add(res, "id", json_object_get(id));
		r = json_object_new_object();
		json_object_object_add(r, "resultType",
		    json_object_new_string("complete"));
		c = json_object_new_array();
		b = json_object_new_object();
		json_object_object_add(b, "type",
		    json_object_new_string("text"));
		json_object_object_add(b, "text", json_object_get(t));
		json_object_array_add(c, b);
		json_object_object_add(r, "content", c);
		json_object_object_add(res, "result", r);
		out = json_object_to_json_string_ext(res,
		    JSON_C_TO_STRING_PLAIN);
		n = snprintf(head, sizeof(head), "Status: 200 OK\r\n"
		    "Content-Type: application/json\r\nContent-Length: %zu"
		    "\r\n\r\n", strlen(out));
		FCGX_PutStr(head, n, req.out);
		FCGX_PutStr(out, (int)strlen(out), req.out);
		json_object_put(res);
		json_object_put(msg);
#ifdef CLOSE_AT_ONCE
		FCGX_Detach(&req);	/* stdin was read to its end */
#endif
		FCGX_Finish_r(&req);
	}
}

int
main(int argc, char *argv[])
{
	int	 sock, i, n;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: bare SOCKETPATH WORKERS [REQUESTS]\n");
		return 2;
	}
	FCGX_Init();
	unlink(argv[1]);
	if ((sock = FCGX_OpenSocket(argv[1], 128)) < 0)
		return 1;
	chmod(argv[1], 0666);
	n = atoi(argv[2]);
	if (n == 0) {
		serve(sock, argc == 4 ? atol(argv[3]) : -1);
		return 0;
	}
	for (i = 0; i < n; i++)
		if (fork() == 0) {
			serve(sock, -1);
			_exit(0);
		}
	signal(SIGTERM, SIG_DFL);
	while (wait(NULL) > 0)
		continue;
	return 0;
}
