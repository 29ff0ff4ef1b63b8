/*
 * exececho.c - the echo tool as an exec tool's program, in C
 * (t/bench/execbench.py): reads the call on stdin, writes its "text"
 * argument on stdout.  The same program runs under the bare
 * fork+exec+wait loop (forkloop.c), so that what wymcp adds is the
 * difference.  A naive scan, not a JSON parser: the bench sends no
 * escapes.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int
main(void)
{
	static char	 buf[65536];
	size_t		 n = 0;
	ssize_t		 r;
	char		*p, *e;

	while (n < sizeof(buf) - 1 &&
	    (r = read(0, buf + n, sizeof(buf) - 1 - n)) > 0)
		n += (size_t)r;
	buf[n] = '\0';
	if ((p = strstr(buf, "\"text\":\"")) == NULL)
		return 1;
	p += 8;
	if ((e = strchr(p, '"')) == NULL)
		return 1;
	return write(1, p, (size_t)(e - p)) == e - p ? 0 : 1;
}
