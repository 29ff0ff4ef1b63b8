/*
 * check_options.c - wymcp-fcgi's table of options (src/front/options.c)
 *
 * options.c is a program's file, linked in with config.c and log.c.
 * The table itself (names, kinds, bounds, defaults); the parser over
 * it: the defaults, each number's bounds (the value landing in its
 * member, the error one past them), lists in order, --workers MIN:MAX;
 * a reload keeping the restart-only options' running values and taking
 * the others.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/wait.h>

#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "front/front.h"

/* The number in the member of `d' in `o'. */
static long long
num(const struct front_optdef *d, const struct front_opts *o)
{
	const char	*p = (const char *)o + d->off;

	switch (d->type) {
	case FRONT_T_INT:
		return *(const int *)(const void *)p;
	case FRONT_T_UINT:
		return *(const unsigned int *)(const void *)p;
	case FRONT_T_ULONG:
		return (long long)*(const unsigned long *)(const void *)p;
	case FRONT_T_LLONG:
		return *(const long long *)(const void *)p;
	case FRONT_T_SIZE:
		return (long long)*(const size_t *)(const void *)p;
	default:
		ck_abort_msg("--%s: not a number", d->name);
	}
	return 0;
}

/* Parse `args' (NULL-terminated, argv[0] added) into `o'. */
static void
parse(struct front_opts *o, const char *arg, ...)
{
	char		*argv[32];
	const char	*a;
	va_list		 ap;
	int		 argc = 0;

	argv[argc++] = (char *)"wymcp-fcgi";
	va_start(ap, arg);
	for (a = arg; a != NULL && argc < 31; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	front_options_parse(argc, argv, o);
}

/*
 * Parse "--name value" in a child (with --task-store, which
 * --task-runners needs): its exit status (0: parsed), what it wrote to
 * standard error in `msg'.
 */
static int
parse_fails(const char *name, const char *value, char *msg, size_t len)
{
	struct front_opts	 o;
	char			 opt[80];
	size_t			 got;
	ssize_t			 n;
	pid_t			 pid;
	int			 fds[2], st;

	snprintf(opt, sizeof(opt), "--%s", name);
	ck_assert_int_eq(pipe(fds), 0);
	if ((pid = fork()) == 0) {
		dup2(fds[1], STDERR_FILENO);
		parse(&o, opt, value, "--task-store", "sqlite:/x", NULL);
		front_options_free(&o, 1);
		_exit(0);
	}
	ck_assert_int_ne(pid, -1);
	close(fds[1]);
	for (got = 0; got < len - 1 && (n = read(fds[0], msg + got,
	    len - 1 - got)) > 0; got += (size_t)n)
		continue;
	msg[got] = '\0';
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

START_TEST(table_shape)
{
	const struct front_optdef	*d, *e;

	for (d = front_optdefs; d->name != NULL; d++) {
		for (e = d + 1; e->name != NULL; e++)
			ck_assert_msg(strcmp(d->name, e->name) != 0,
			    "--%s twice", d->name);
		ck_assert_msg(strspn(d->name, "abcdefghijklmnopqrstuvwxyz-") ==
		    strlen(d->name), "--%s: not a long option's name",
		    d->name);
		ck_assert_msg(d->help != NULL && d->help[0] != '\0',
		    "--%s: no help", d->name);
		ck_assert_msg((d->arg == NULL) == (d->kind ==
		    FRONT_OPT_FLAG || d->kind == FRONT_OPT_COUNT ||
		    d->kind == FRONT_OPT_ACTION), "--%s: a value in --help "
		    "exactly when it takes one", d->name);
		ck_assert_msg((d->kind == FRONT_OPT_ACTION) ==
		    (d->type == FRONT_T_NONE), "--%s: a member exactly when "
		    "it is not an action", d->name);
		ck_assert_msg(d->kind != FRONT_OPT_ACTION || d->parse != NULL,
		    "--%s: an action without its function", d->name);
		ck_assert_msg(((d->kind == FRONT_OPT_LIST) == (d->type ==
		    FRONT_T_STRV)) && ((d->kind == FRONT_OPT_PEERS) ==
		    (d->type == FRONT_T_PEERS)), "--%s: a list's type",
		    d->name);
		if (d->kind != FRONT_OPT_NUM && d->kind != FRONT_OPT_SIZE)
			continue;
		ck_assert_msg(d->min <= d->max, "--%s: bounds", d->name);
		/* -1: a default worked out from other options. */
		ck_assert_msg(d->def == -1 || (d->kind == FRONT_OPT_SIZE &&
		    d->def == 0) || (d->def >= d->min && d->def <= d->max),
		    "--%s: default %lld out of its bounds", d->name, d->def);
	}
	ck_assert_ptr_nonnull(front_longopts());
	ck_assert_str_eq(front_longopts()[0].name, front_optdefs[0].name);
}
END_TEST

START_TEST(defaults)
{
	const struct front_optdef	*d;
	struct front_opts		 o;

	parse(&o, NULL);
	for (d = front_optdefs; d->name != NULL; d++)
		if (d->kind == FRONT_OPT_NUM || d->kind == FRONT_OPT_SIZE)
			ck_assert_msg(num(d, &o) == d->def, "--%s: %lld, not "
			    "its default %lld", d->name, num(d, &o), d->def);
	ck_assert_int_eq(o.workers, 1);
	ck_assert_uint_eq(o.timeout, FRONT_TIMEOUT_DEFAULT);
	ck_assert_int_eq(o.max_asking, -1);
	ck_assert(o.task_quota_bytes == WYMCP_TASK_QUOTA_BYTES_DEFAULT);
	ck_assert_ptr_null(o.listen);
	ck_assert_uint_eq(o.nmodules, 0);
	ck_assert_int_eq(o.max_requests_set, 0);
	front_options_free(&o, 1);
}
END_TEST

/* Each number takes its bounds and lands in its member; not one past. */
START_TEST(bounds)
{
	const struct front_optdef	*d;
	struct front_opts		 o;
	char				 v[32], msg[512], want[256];

	for (d = front_optdefs; d->name != NULL; d++) {
		if (d->kind != FRONT_OPT_NUM || d->max == LONG_MAX)
			continue;
		snprintf(v, sizeof(v), "%lld", d->max);
		ck_assert_int_eq(parse_fails(d->name, v, msg, sizeof(msg)), 0);
		snprintf(v, sizeof(v), "--%s", d->name);
		parse(&o, v, d->min > 0 ? "1" : "0", NULL);
		ck_assert_msg(num(d, &o) == (d->min > 0 ? 1 : 0), "--%s",
		    d->name);
		front_options_free(&o, 1);
		snprintf(v, sizeof(v), "%lld", d->max + 1);
		ck_assert_int_eq(parse_fails(d->name, v, msg, sizeof(msg)), 2);
		snprintf(want, sizeof(want), "--%s: %s: must be from %lld to "
		    "%lld\n", d->name, v, d->min, d->max);
		ck_assert_msg(strstr(msg, want) != NULL, "%s", msg);
	}
	ck_assert_int_eq(parse_fails("memory-limit", "1M", msg, sizeof(msg)),
	    2);
	ck_assert_ptr_nonnull(strstr(msg, "--memory-limit: 1M: must be 0 or "
	    "from 16777216 to "));
	ck_assert_int_eq(parse_fails("task-ttl", "soon", msg, sizeof(msg)),
	    2);
	ck_assert_ptr_nonnull(strstr(msg, "--task-ttl: soon: not a number\n"));
	ck_assert_int_eq(parse_fails("bus", "mysql://x", msg, sizeof(msg)),
	    2);
	ck_assert_int_eq(parse_fails("status-path", "x", msg, sizeof(msg)),
	    2);
	ck_assert_int_eq(parse_fails("allow-peer", "10.0.0.0/33", msg,
	    sizeof(msg)), 2);
	ck_assert_ptr_nonnull(strstr(msg, "--allow-peer: "));
}
END_TEST

START_TEST(values)
{
	struct front_opts	 o;

	parse(&o, "--module", "a.so", "--module=b.so", "--workers", "2:9",
	    "--memory-limit", "32M", "-vv", "--modern-only", "--max-requests",
	    "0", "--allow-peer", "10.0.0.0/8", "--server-title", "T", NULL);
	ck_assert_uint_eq(o.nmodules, 2);
	ck_assert_str_eq(o.modules[0], "a.so");
	ck_assert_str_eq(o.modules[1], "b.so");
	ck_assert_int_eq(o.workers, 2);
	ck_assert_int_eq(o.workers_max, 9);
	ck_assert_uint_eq(o.memory, 32 * 1024 * 1024);
	ck_assert_int_eq(o.verbose, 2);
	ck_assert_int_eq(o.modern_only, 1);
	ck_assert_uint_eq(o.max_requests, 0);
	ck_assert_int_eq(o.max_requests_set, 1);
	ck_assert_uint_eq(o.npeers, 1);
	ck_assert_str_eq(o.info.title, "T");
	front_options_free(&o, 1);
}
END_TEST

/*
 * A reload: the restart-only options keep the running values (the
 * startup's lists shared, the reload's own freed), the others change.
 */
START_TEST(reload_keeps)
{
	struct front_opts	 s, n;

	parse(&s, "--workers", "2", "--max-body", "10", "--listen",
	    "unix:/a", "--allow-peer", "10.0.0.1", "--module", "a.so", NULL);
	parse(&n, "--workers", "3:5", "--max-body", "20", "--listen",
	    "unix:/b", "--allow-peer", "10.0.0.2", "--module", "b.so",
	    "-v", NULL);
	front_options_keep(&s, &n, "test.conf", 0);
	ck_assert_int_eq(n.workers, 2);
	ck_assert_int_eq(n.workers_max, 2);
	ck_assert_str_eq(n.listen, "unix:/a");
	ck_assert_int_eq(n.verbose, 0);
	ck_assert_ptr_eq(n.peers, s.peers);
	ck_assert_uint_eq(n.max_body, 20);
	ck_assert_str_eq(n.modules[0], "b.so");
	front_options_free(&n, 0);
	front_options_free(&s, 1);
}
END_TEST

static Suite *
options_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("options");
	tc = tcase_create("table");
	tcase_add_test(tc, table_shape);
	tcase_add_test(tc, defaults);
	suite_add_tcase(s, tc);
	tc = tcase_create("parse");
	tcase_add_test(tc, bounds);
	tcase_add_test(tc, values);
	suite_add_tcase(s, tc);
	tc = tcase_create("reload");
	tcase_add_test(tc, reload_keeps);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 failed;

	sr = srunner_create(options_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
