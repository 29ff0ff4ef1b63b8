/*
 * replay.c - run a libFuzzer target over files, without libFuzzer
 *
 * Usage: replay_<target> file|directory ...
 * Every regular file named, and every regular file directly inside a
 * directory named, is read whole and handed to LLVMFuzzerTestOneInput()
 * once.  `make check` uses this to replay the seed corpora under the
 * sanitizers.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static unsigned long	 nreplayed;

/* Read a whole file; *len is its size.  NULL on error (reported). */
static uint8_t *
slurp(const char *path, size_t *len)
{
	struct stat	 st;
	uint8_t		*buf;
	size_t		 got = 0;
	ssize_t		 n;
	int		 fd;

	if ((fd = open(path, O_RDONLY)) == -1) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) == -1) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		close(fd);
		return NULL;
	}
	/* One spare byte so an empty file is a valid, non-NULL buffer. */
	if ((buf = malloc((size_t)st.st_size + 1)) == NULL) {
		fprintf(stderr, "replay: %s: out of memory\n", path);
		close(fd);
		return NULL;
	}
	while (got < (size_t)st.st_size) {
		n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (got != (size_t)st.st_size) {
		fprintf(stderr, "replay: %s: short read\n", path);
		free(buf);
		return NULL;
	}
	*len = got;
	return buf;
}

/* Replay one file.  Returns 0, or -1 when it could not be read. */
static int
replay_file(const char *path)
{
	uint8_t	*buf;
	size_t	 len;

	if ((buf = slurp(path, &len)) == NULL)
		return -1;
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	nreplayed++;
	return 0;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replay every regular file in a directory, in name order. */
static int
replay_dir(const char *dir)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 st;
	char		**names = NULL, **nn, *path;
	size_t		 n = 0, i, len;
	int		 rc = 0;

	if ((d = opendir(dir)) == NULL) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		len = strlen(dir) + strlen(de->d_name) + 2;
		if ((path = malloc(len)) == NULL) {
			rc = -1;
			break;
		}
		snprintf(path, len, "%s/%s", dir, de->d_name);
		if (stat(path, &st) == -1 || !S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		if ((nn = reallocarray(names, n + 1, sizeof(*nn))) == NULL) {
			free(path);
			rc = -1;
			break;
		}
		names = nn;
		names[n++] = path;
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n; i++) {
		if (rc == 0 && replay_file(names[i]) != 0)
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc;
}

int
main(int argc, char *argv[])
{
	struct stat	 st;
	int		 i, rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s file|directory ...\n", argv[0]);
		return EXIT_FAILURE;
	}
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st) == -1) {
			fprintf(stderr, "replay: %s: %s\n", argv[i],
			    strerror(errno));
			rc = -1;
		} else if (S_ISDIR(st.st_mode)) {
			if (replay_dir(argv[i]) != 0)
				rc = -1;
		} else if (replay_file(argv[i]) != 0)
			rc = -1;
	}
	printf("replayed %lu inputs\n", nreplayed);
	return rc == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
