/*
 * fuzz_config.c - libFuzzer target for wymcp-fcgi's --config FILE
 * (src/front/config.c: front_config_argv())
 *
 * The input is the file's contents, written to a private file.  With a
 * table of three options (two taking a value, one not), the file is
 * either refused with a reason naming the file,
 * or turned into arguments such that: the first is argv[0] and the
 * last the command line's one argument; every other one starting with
 * "--" names an option of the table, and one takes a value exactly
 * when the table says so; no argument is empty or holds a newline.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "front/front.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define INPUT_MAX	(64 * 1024)

static const struct option opts[] = {
	{ "module", required_argument, NULL, 1 },
	{ "modern-only", no_argument, NULL, 2 },
	{ "workers", required_argument, NULL, 3 },
	{ NULL, 0, NULL, 0 }
};

static const struct option *
find(const char *name)
{
	const struct option	*o;

	for (o = opts; o->name != NULL; o++)
		if (strcmp(o->name, name) == 0)
			return o;
	return NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char		 path[64];
	const struct option	*o;
	char			*argv[] = { "wymcp-fcgi", "--cli", NULL };
	char			**v, *text, err[512];
	int			 fd, n, i;

	if (size > INPUT_MAX)
		return 0;
	if (path[0] == '\0') {
		snprintf(path, sizeof(path), "/tmp/fuzz_config.XXXXXX");
		if ((fd = mkstemp(path)) == -1)
			abort();
		(void)close(fd);
	}
	if ((fd = open(path, O_WRONLY | O_TRUNC)) == -1 ||
	    write(fd, data, size) != (ssize_t)size)
		abort();
	(void)close(fd);
	err[0] = '\0';
	if (front_config_argv(path, opts, 2, argv, &n, &v, &text, err,
	    sizeof(err)) != 0) {
		if (strstr(err, path) == NULL)
			abort();
		(void)unlink(path);
		path[0] = '\0';
		return 0;
	}
	if (n < 2 || v[n] != NULL || strcmp(v[0], "wymcp-fcgi") != 0 ||
	    strcmp(v[n - 1], "--cli") != 0)
		abort();
	for (i = 1; i < n - 1; i++) {
		if (v[i][0] == '\0' || strchr(v[i], '\n') != NULL)
			abort();
		if (strncmp(v[i], "--", 2) != 0)
			abort();	/* a value is eaten below */
		if ((o = find(v[i] + 2)) == NULL)
			abort();
		if (o->has_arg == required_argument) {
			if (++i >= n - 1 || v[i][0] == '\0' ||
			    strchr(v[i], '\n') != NULL)
				abort();
		}
	}
	free(v);
	free(text);
	(void)unlink(path);
	path[0] = '\0';
	return 0;
}
