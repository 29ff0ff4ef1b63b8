/*
 * bare-cgi.c - the floor of the CGI start benchmark (t/bench/cgistart.py
 * builds it with -O2): a C CGI program that reads its request body
 * (CONTENT_LENGTH bytes of standard input), as any CGI program must,
 * and prints a fixed JSON body, the answer wymcp-fcgi gives to a
 * tools/call "echo" of "hi".  It links libc alone: what the start of a
 * process costs, with nothing of wymcp's, json-c's or libsodium's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char body[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":"
    "{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\","
    "\"text\":\"hi\"}]}}";

int
main(void)
{
	char		 buf[65536];
	const char	*cl;
	long		 want;
	ssize_t		 n;

	cl = getenv("CONTENT_LENGTH");
	want = cl != NULL ? strtol(cl, NULL, 10) : 0;
	while (want > 0 && (n = read(0, buf, sizeof(buf))) > 0)
		want -= n;
	printf("Status: 200 OK\r\nContent-Type: application/json\r\n"
	    "Cache-Control: no-store\r\nContent-Length: %zu\r\n\r\n%s",
	    strlen(body), body);
	return fflush(stdout) == 0 ? 0 : 1;
}
