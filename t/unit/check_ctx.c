/* check_ctx.c - assigns, principal and mount list from the CGI params */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "testing/testing.h"

static enum wymcp_err
noop(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return WYMCP_OK;
}

/* Registration order: whoami, echo, alpha, help, x.y-z. */
static const struct wymcp_tool tools[] = {
	{ .name = "whoami", .description = "w", .run = noop },
	{ .name = "echo", .description = "e", .run = noop },
	{ .name = "alpha", .description = "a", .run = noop },
	{ .name = "help", .description = "h", .run = noop },
	{ .name = "x.y-z", .description = "x", .run = noop },
	{ .name = NULL }
};
static const struct wymcp_module mod = {
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "ctxmod", .tools = tools,
	.tool_size = sizeof(struct wymcp_tool)
};

/* Log lines the server handed out. */
static char	 logged[8][1024];
static int	 logprio[8];
static int	 nlogged;
static char	 lastidbuf[64];
static const char *lastid;

static void
logfn(void *arg, int prio, const char *reqid, const char *msg)
{
	ck_assert_ptr_eq(arg, logged);
	lastid = NULL;
	if (reqid != NULL) {
		snprintf(lastidbuf, sizeof(lastidbuf), "%s", reqid);
		lastid = lastidbuf;
	}
	if (nlogged < 8) {
		snprintf(logged[nlogged], sizeof(logged[0]), "%s", msg);
		logprio[nlogged] = prio;
	}
	nlogged++;
}

static struct wymcp_server	*srv;
static struct wymcp_ctx		 ctx;

static void
setup(void)
{
	srv = wymcp_server_new();
	ck_assert_ptr_nonnull(srv);
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod), WYMCP_OK);
	nlogged = 0;
	memset(logged, 0, sizeof(logged));
	wymcp_server_set_log(srv, logfn, logged, WYMCP_LOG_DEBUG);
}

static void
teardown(void)
{
	wymcp__ctx_free(&ctx);
	wymcp_server_free(srv);
	srv = NULL;
}

/* Build assigns and principal from `env`. */
static void
assigns(const char *const *env)
{
	wymcp__ctx_init(&ctx, srv, (char *const *)env);
	ck_assert_int_eq(wymcp__ctx_assigns(&ctx), WYMCP_OK);
}

/* Build the mount list from `env`; return the names joined by ' '. */
static const char *
mount(const char *const *env)
{
	static char	 buf[512];
	size_t		 i, off = 0;

	wymcp__ctx_init(&ctx, srv, (char *const *)env);
	ck_assert_int_eq(wymcp__ctx_mount(&ctx), WYMCP_OK);
	buf[0] = '\0';
	for (i = 0; i < wymcp_ctx_ntools(&ctx) && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s",
		    i > 0 ? " " : "", wymcp_ctx_tool(&ctx, i)->name);
	return buf;
}

static const char *
assigns_json(void)
{
	return json_object_to_json_string_ext(wymcp_ctx_assigns(&ctx),
	    JSON_C_TO_STRING_PLAIN);
}

START_TEST(env_exact_name_match)
{
	const char *const e1[] = { "FOOBAR=1", "FOO=2", NULL };
	const char *const e2[] = { "FOOBAR=1", "FO=3", NULL };
	const char *const e3[] = { "FOO=", "FOO=second", NULL };
	const char *const e6[] = { "FOO=first", "FOO=", NULL };
	const char *const e4[] = { "FOO=a=b", NULL };
	const char *const e5[] = { "FOO", NULL };

	ck_assert_str_eq(wymcp__env((char *const *)e1, "FOO"), "2");
	ck_assert_str_eq(wymcp__env((char *const *)e1, "FOOBAR"), "1");
	ck_assert_ptr_null(wymcp__env((char *const *)e2, "FOO"));
	ck_assert_ptr_null(wymcp__env((char *const *)e1, "FOOB"));
	/*
	 * The last occurrence wins, even when empty: a location's
	 * fastcgi_param overrides an included one.
	 */
	ck_assert_str_eq(wymcp__env((char *const *)e3, "FOO"), "second");
	ck_assert_str_eq(wymcp__env((char *const *)e6, "FOO"), "");
	ck_assert_str_eq(wymcp__env((char *const *)e4, "FOO"), "a=b");
	ck_assert_ptr_null(wymcp__env((char *const *)e5, "FOO"));
	ck_assert_ptr_null(wymcp__env(NULL, "FOO"));
}
END_TEST

START_TEST(assign_role_from_param)
{
	const char *const env[] = { "WYMCP_ASSIGN_ROLE=admin", NULL };

	assigns(env);
	ck_assert_str_eq(wymcp_ctx_assign(&ctx, "role"), "admin");
	ck_assert_str_eq(assigns_json(), "{\"role\":\"admin\"}");
	ck_assert_ptr_null(wymcp_ctx_principal(&ctx));
}
END_TEST

START_TEST(assign_names_lower_cased)
{
	const char *const env[] = { "WYMCP_ASSIGN_Team_NAME=Blue",
	    "WYMCP_ASSIGN_X9=v", NULL };

	assigns(env);
	ck_assert_str_eq(wymcp_ctx_assign(&ctx, "team_name"), "Blue");
	ck_assert_ptr_null(wymcp_ctx_assign(&ctx, "Team_NAME"));
	ck_assert_ptr_null(wymcp_ctx_assign(&ctx, "TEAM_NAME"));
	ck_assert_str_eq(wymcp_ctx_assign(&ctx, "x9"), "v");
}
END_TEST

START_TEST(assign_later_wins)
{
	const char *const env[] = { "WYMCP_ASSIGN_ROLE=a",
	    "WYMCP_ASSIGN_role=b", NULL };

	assigns(env);
	ck_assert_str_eq(assigns_json(), "{\"role\":\"b\"}");
}
END_TEST

START_TEST(remote_user_assign_and_principal)
{
	const char *const env[] = { "REMOTE_USER=alice", NULL };

	assigns(env);
	ck_assert_str_eq(wymcp_ctx_assign(&ctx, "remote_user"), "alice");
	ck_assert_str_eq(wymcp_ctx_principal(&ctx), "alice");
	ck_assert_str_eq(assigns_json(), "{\"remote_user\":\"alice\"}");
}
END_TEST

START_TEST(principal_param_wins_over_remote_user)
{
	const char *const env[] = { "REMOTE_USER=alice",
	    "WYMCP_PRINCIPAL=bob", NULL };
	const char *const rev[] = { "WYMCP_PRINCIPAL=bob",
	    "REMOTE_USER=alice", NULL };

	assigns(env);
	ck_assert_str_eq(wymcp_ctx_principal(&ctx), "bob");
	ck_assert_str_eq(wymcp_ctx_assign(&ctx, "remote_user"), "alice");
	/* The principal is not an assign of its own. */
	ck_assert_ptr_null(wymcp_ctx_assign(&ctx, "principal"));
	wymcp__ctx_free(&ctx);
	assigns(rev);
	ck_assert_str_eq(wymcp_ctx_principal(&ctx), "bob");
}
END_TEST

START_TEST(principal_only_from_param)
{
	const char *const env[] = { "WYMCP_PRINCIPAL=svc", NULL };

	assigns(env);
	ck_assert_str_eq(wymcp_ctx_principal(&ctx), "svc");
	ck_assert_str_eq(assigns_json(), "{}");
}
END_TEST

START_TEST(empty_values_give_no_principal)
{
	const char *const e1[] = { "REMOTE_USER=", NULL };
	const char *const e2[] = { "WYMCP_PRINCIPAL=", "REMOTE_USER=", NULL };
	const char *const e3[] = { "WYMCP_PRINCIPAL=", "REMOTE_USER=carol",
	    NULL };
	const char *const e4[] = { NULL };
	const char *const e5[] = { "REMOTE_USER=carol", NULL };

	assigns(e1);
	ck_assert_ptr_null(wymcp_ctx_principal(&ctx));
	ck_assert_ptr_null(wymcp_ctx_assign(&ctx, "remote_user"));
	ck_assert_str_eq(assigns_json(), "{}");
	wymcp__ctx_free(&ctx);
	assigns(e2);
	ck_assert_ptr_null(wymcp_ctx_principal(&ctx));
	wymcp__ctx_free(&ctx);
	/*
	 * A WYMCP_PRINCIPAL that is present but empty is anonymous: it
	 * does not fall back to REMOTE_USER (nginx fills that from the
	 * client's own Authorization header where nothing checked it).
	 */
	assigns(e3);
	ck_assert_ptr_null(wymcp_ctx_principal(&ctx));
	ck_assert_str_eq(wymcp_ctx_assign(&ctx, "remote_user"), "carol");
	wymcp__ctx_free(&ctx);
	/* Only an absent one does. */
	assigns(e5);
	ck_assert_str_eq(wymcp_ctx_principal(&ctx), "carol");
	wymcp__ctx_free(&ctx);
	assigns(e4);
	ck_assert_ptr_null(wymcp_ctx_principal(&ctx));
	ck_assert_str_eq(assigns_json(), "{}");
}
END_TEST

START_TEST(empty_assigns_dropped)
{
	const char *const e1[] = { "WYMCP_ASSIGN_ROLE=",
	    "WYMCP_ASSIGN_TENANT=acme", NULL };
	/*
	 * A later empty one removes the earlier value (a location's
	 * fastcgi_param over an included one).
	 */
	const char *const e2[] = { "WYMCP_ASSIGN_ROLE=admin",
	    "WYMCP_ASSIGN_ROLE=", NULL };

	assigns(e1);
	ck_assert_ptr_null(wymcp_ctx_assign(&ctx, "role"));
	ck_assert_str_eq(assigns_json(), "{\"tenant\":\"acme\"}");
	wymcp__ctx_free(&ctx);
	assigns(e2);
	ck_assert_ptr_null(wymcp_ctx_assign(&ctx, "role"));
	ck_assert_str_eq(assigns_json(), "{}");
}
END_TEST

START_TEST(internal_names_filtered)
{
	const char *const env[] = {
		"WYMCP_ASSIGN_WYMCP=1",
		"WYMCP_ASSIGN_WYMCP_X=2",
		"WYMCP_ASSIGN_wymcp_tools=3",
		"WYMCP_ASSIGN_Wymcp_=4",
		"WYMCP_ASSIGN_WYMCPX=5",
		"WYMCP_ASSIGN_XWYMCP=6",
		NULL
	};

	assigns(env);
	ck_assert_ptr_null(wymcp_ctx_assign(&ctx, "wymcp"));
	ck_assert_ptr_null(wymcp_ctx_assign(&ctx, "wymcp_x"));
	ck_assert_ptr_null(wymcp_ctx_assign(&ctx, "wymcp_tools"));
	ck_assert_ptr_null(wymcp_ctx_assign(&ctx, "wymcp_"));
	/* "wymcp" followed by anything but '_' or the end is a name. */
	ck_assert_str_eq(wymcp_ctx_assign(&ctx, "wymcpx"), "5");
	ck_assert_str_eq(assigns_json(), "{\"wymcpx\":\"5\",\"xwymcp\":\"6\"}");
}
END_TEST

START_TEST(client_headers_never_assigns_or_principal)
{
	const char *const env[] = {
		"HTTP_WYMCP_ASSIGN_ROLE=admin",
		"HTTP_WYMCP_PRINCIPAL=eve",
		"HTTP_REMOTE_USER=eve",
		"HTTP_WYMCP_TOOLS=alpha",
		"XWYMCP_ASSIGN_ROLE=admin",
		NULL
	};

	assigns(env);
	ck_assert_ptr_null(wymcp_ctx_principal(&ctx));
	ck_assert_ptr_null(wymcp_ctx_assign(&ctx, "role"));
	ck_assert_ptr_null(wymcp_ctx_assign(&ctx, "remote_user"));
	ck_assert_str_eq(assigns_json(), "{}");
	wymcp__ctx_free(&ctx);
	/* Nor do they narrow the mount list. */
	ck_assert_str_eq(mount(env), "whoami echo alpha help x.y-z");
}
END_TEST

START_TEST(assign_invalid_names_ignored)
{
	const char *const env[] = {
		"WYMCP_ASSIGN_RO-LE=1",
		"WYMCP_ASSIGN_A.B=2",
		"WYMCP_ASSIGN_=3",
		"WYMCP_ASSIGN_A B=4",
		"WYMCP_ASSIGN_\xc3\xa9=5",
		"WYMCP_ASSIGN_NOVALUE",
		"WYMCP_ASSIGN_OK=6",
		NULL
	};

	assigns(env);
	ck_assert_str_eq(assigns_json(), "{\"ok\":\"6\"}");
}
END_TEST

START_TEST(mount_all_without_list)
{
	const char *const env[] = { "REMOTE_USER=a", NULL };

	ck_assert_str_eq(mount(env), "whoami echo alpha help x.y-z");
	ck_assert_int_eq(nlogged, 0);
	wymcp__ctx_free(&ctx);
	ck_assert_str_eq(mount(NULL), "whoami echo alpha help x.y-z");
}
END_TEST

START_TEST(mount_list_in_registration_order)
{
	const char *const env[] = { "WYMCP_TOOLS=help echo", NULL };

	ck_assert_str_eq(mount(env), "echo help");
	ck_assert_ptr_nonnull(wymcp__ctx_find_tool(&ctx, "help"));
	ck_assert_ptr_nonnull(wymcp__ctx_find_tool(&ctx, "echo"));
	ck_assert_ptr_null(wymcp__ctx_find_tool(&ctx, "alpha"));
	ck_assert_ptr_null(wymcp__ctx_find_tool(&ctx, "whoami"));
	ck_assert_int_eq(nlogged, 0);
}
END_TEST

START_TEST(mount_list_commas_and_tabs)
{
	const char *const e1[] = { "WYMCP_TOOLS=x.y-z,whoami", NULL };
	const char *const e2[] = { "WYMCP_TOOLS=,, alpha ,\thelp,", NULL };

	ck_assert_str_eq(mount(e1), "whoami x.y-z");
	wymcp__ctx_free(&ctx);
	ck_assert_str_eq(mount(e2), "alpha help");
	ck_assert_int_eq(nlogged, 0);
}
END_TEST

START_TEST(mount_list_whole_words_only)
{
	const char *const env[] = { "WYMCP_TOOLS=hel echoo x.y ALPHA", NULL };

	ck_assert_str_eq(mount(env), "");
	ck_assert_uint_eq(wymcp_ctx_ntools(&ctx), 0);
	ck_assert_int_eq(nlogged, 4);
}
END_TEST

START_TEST(mount_empty_list_mounts_nothing)
{
	const char *const e1[] = { "WYMCP_TOOLS=", NULL };
	const char *const e2[] = { "WYMCP_TOOLS= , ", NULL };

	ck_assert_str_eq(mount(e1), "");
	ck_assert_uint_eq(wymcp_ctx_ntools(&ctx), 0);
	ck_assert_ptr_null(wymcp_ctx_tool(&ctx, 0));
	ck_assert_ptr_null(wymcp__ctx_find_tool(&ctx, "help"));
	wymcp__ctx_free(&ctx);
	ck_assert_str_eq(mount(e2), "");
	ck_assert_int_eq(nlogged, 0);
}
END_TEST

START_TEST(mount_unknown_name_logged_as_warning)
{
	const char *const env[] = { "WYMCP_TOOLS=help nosuch,echo", NULL };

	ck_assert_str_eq(mount(env), "echo help");
	ck_assert_int_eq(nlogged, 1);
	ck_assert_int_eq(logprio[0], WYMCP_LOG_WARNING);
	ck_assert_ptr_nonnull(strstr(logged[0], "'nosuch'"));
}
END_TEST

START_TEST(mount_unknown_name_not_logged_below_warning)
{
	const char *const env[] = { "WYMCP_TOOLS=nosuch", NULL };

	wymcp_server_set_log(srv, logfn, logged, WYMCP_LOG_ERR);
	ck_assert_str_eq(mount(env), "");
	ck_assert_int_eq(nlogged, 0);
}
END_TEST

START_TEST(mount_on_server_without_tools)
{
	struct wymcp_server	*empty;
	const char *const	 env[] = { "WYMCP_TOOLS=help", NULL };

	empty = wymcp_server_new();
	ck_assert_ptr_nonnull(empty);
	wymcp__ctx_init(&ctx, empty, NULL);
	ck_assert_int_eq(wymcp__ctx_mount(&ctx), WYMCP_OK);
	ck_assert_uint_eq(wymcp_ctx_ntools(&ctx), 0);
	wymcp__ctx_free(&ctx);
	wymcp__ctx_init(&ctx, empty, (char *const *)env);
	ck_assert_int_eq(wymcp__ctx_mount(&ctx), WYMCP_OK);
	ck_assert_uint_eq(wymcp_ctx_ntools(&ctx), 0);
	wymcp__ctx_free(&ctx);
	wymcp_server_free(empty);
	wymcp__ctx_init(&ctx, srv, NULL);
}
END_TEST

START_TEST(accessors_null_ctx)
{
	ck_assert_ptr_null(wymcp_ctx_id(NULL));
	ck_assert_ptr_null(wymcp_ctx_meta(NULL));
	ck_assert_ptr_null(wymcp_ctx_client_caps(NULL));
	ck_assert_ptr_null(wymcp_ctx_assign(NULL, "role"));
	ck_assert_ptr_null(wymcp_ctx_assigns(NULL));
	ck_assert_ptr_null(wymcp_ctx_principal(NULL));
	ck_assert_uint_eq(wymcp_ctx_ntools(NULL), 0);
	ck_assert_ptr_null(wymcp_ctx_tool(NULL, 0));
	ck_assert_ptr_null(wymcp_ctx_answers(NULL));
	wymcp__ctx_init(&ctx, srv, NULL);
}
END_TEST

START_TEST(accessors_before_build_and_out_of_range)
{
	const char *const env[] = { "WYMCP_ASSIGN_ROLE=admin", NULL };

	wymcp__ctx_init(&ctx, srv, (char *const *)env);
	/* Nothing is read from the params until the method asks. */
	ck_assert_ptr_null(wymcp_ctx_assign(&ctx, "role"));
	ck_assert_ptr_null(wymcp_ctx_assigns(&ctx));
	ck_assert_uint_eq(wymcp_ctx_ntools(&ctx), 0);
	ck_assert_ptr_null(wymcp_ctx_tool(&ctx, 0));
	ck_assert_int_eq(wymcp__ctx_assigns(&ctx), WYMCP_OK);
	ck_assert_ptr_null(wymcp_ctx_assign(&ctx, NULL));
	ck_assert_ptr_null(wymcp_ctx_assign(&ctx, "nosuch"));
	ck_assert_int_eq(wymcp__ctx_mount(&ctx), WYMCP_OK);
	ck_assert_uint_eq(wymcp_ctx_ntools(&ctx), 5);
	ck_assert_str_eq(wymcp_ctx_tool(&ctx, 4)->name, "x.y-z");
	ck_assert_ptr_null(wymcp_ctx_tool(&ctx, 5));
	ck_assert_ptr_null(wymcp_ctx_tool(&ctx, (size_t)-1));
}
END_TEST

START_TEST(tool_log_tagged_with_request_id)
{
	struct json_object	*id;

	wymcp__ctx_init(&ctx, srv, NULL);
	wymcp_log(&ctx, WYMCP_LOG_INFO, "n=%d", 5);
	ck_assert_int_eq(nlogged, 1);
	ck_assert_str_eq(logged[0], "n=5");
	ck_assert_int_eq(logprio[0], WYMCP_LOG_INFO);
	ck_assert_ptr_null(lastid);
	id = wymcp_own(&ctx, json_object_new_string("r-7"));
	ctx.req.id = id;
	ctx.req.idstr = wymcp__json(id);
	wymcp_log(&ctx, WYMCP_LOG_ERR, "%s", "with id");
	ck_assert_int_eq(nlogged, 2);
	ck_assert_str_eq(lastid, "\"r-7\"");
	/* Above the server's level, without a context or format: nothing. */
	wymcp_server_set_log(srv, logfn, logged, WYMCP_LOG_WARNING);
	wymcp_log(&ctx, WYMCP_LOG_DEBUG, "dropped");
	wymcp_log(NULL, WYMCP_LOG_ERR, "dropped");
	ck_assert_int_eq(nlogged, 2);
	wymcp_server_set_log(srv, NULL, NULL, WYMCP_LOG_DEBUG);
	wymcp_log(&ctx, WYMCP_LOG_ERR, "no log function");
	ck_assert_int_eq(nlogged, 2);
}
END_TEST

static Suite *
ctx_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("ctx");
	tc = tcase_create("assigns");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, env_exact_name_match);
	tcase_add_test(tc, assign_role_from_param);
	tcase_add_test(tc, assign_names_lower_cased);
	tcase_add_test(tc, assign_later_wins);
	tcase_add_test(tc, remote_user_assign_and_principal);
	tcase_add_test(tc, principal_param_wins_over_remote_user);
	tcase_add_test(tc, principal_only_from_param);
	tcase_add_test(tc, empty_values_give_no_principal);
	tcase_add_test(tc, empty_assigns_dropped);
	tcase_add_test(tc, internal_names_filtered);
	tcase_add_test(tc, client_headers_never_assigns_or_principal);
	tcase_add_test(tc, assign_invalid_names_ignored);
	suite_add_tcase(s, tc);

	tc = tcase_create("mount");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, mount_all_without_list);
	tcase_add_test(tc, mount_list_in_registration_order);
	tcase_add_test(tc, mount_list_commas_and_tabs);
	tcase_add_test(tc, mount_list_whole_words_only);
	tcase_add_test(tc, mount_empty_list_mounts_nothing);
	tcase_add_test(tc, mount_unknown_name_logged_as_warning);
	tcase_add_test(tc, mount_unknown_name_not_logged_below_warning);
	tcase_add_test(tc, mount_on_server_without_tools);
	suite_add_tcase(s, tc);

	tc = tcase_create("accessors");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, accessors_null_ctx);
	tcase_add_test(tc, accessors_before_build_and_out_of_range);
	tcase_add_test(tc, tool_log_tagged_with_request_id);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	sr = srunner_create(ctx_suite());
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
