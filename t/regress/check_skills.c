/*
 * check_skills.c - the skills extension: the loader's refusals, the
 * frontmatter parser, and skills/list, skills/get,
 * resources/directory/read and resources/read of skill files served
 * in-process (ext-skills/skills.mdx)
 *
 * Each test builds its skills directory in a private temporary
 * directory and removes it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <sodium.h>

#include "testing/testing.h"
#include "harness.h"

#define GOOD_MD	"---\nname: alpha\ndescription: The first skill\n" \
	"license: ISC\nmetadata:\n  version: \"1.0\"\n---\n\n# Alpha\n"

static struct wymcp_server	*srv;
static struct h_resp		 resp;
static char			 top[64];

/* A file under top: path relative to it, contents given. */
static void
put(const char *rel, const char *text)
{
	char	 path[512], *p;
	FILE	*f;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	for (p = path + strlen(top) + 1; (p = strchr(p, '/')) != NULL;
	    p++) {
		*p = '\0';
		(void)mkdir(path, 0700);
		*p = '/';
	}
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static void
setup(void)
{
	snprintf(top, sizeof(top), "%s/check_skills.XXXXXX",
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(top));
	ck_assert_ptr_nonnull(srv = wymcp_server_new());
	ck_assert_int_ge(sodium_init(), 0);
}

static void
teardown(void)
{
	char	 cmd[128];

	h_free(&resp);
	wymcp_server_free(srv);
	srv = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	ck_assert_int_eq(system(cmd), 0);
}

/* Loading top must fail, naming `file' (under top) and `rule'. */
static void
refused(const char *file, const char *rule)
{
	const char	*msg;
	char		 want[512];

	ck_assert_int_ne(wymcp_server_load_skills(srv, top), WYMCP_OK);
	msg = wymcp_server_errmsg(srv);
	snprintf(want, sizeof(want), "%s/%s", top, file);
	ck_assert_msg(strstr(msg, want) != NULL, "%s does not name %s", msg,
	    want);
	ck_assert_msg(strstr(msg, rule) != NULL, "%s does not say %s", msg,
	    rule);
	ck_assert_uint_eq(srv->skills.nskills, 0);
	ck_assert_uint_eq(srv->nresources, 0);
}

START_TEST(refuse_no_skill_md)
{
	put("alpha/README.md", "x\n");
	refused("alpha/SKILL.md", "must hold a SKILL.md");
}
END_TEST

START_TEST(refuse_bad_dir_name)
{
	put("Alpha/SKILL.md", GOOD_MD);
	refused("Alpha", "1 to 64 characters");
	teardown();
	setup();
	put("al--pha/SKILL.md", GOOD_MD);
	refused("al--pha", "twice in a row");
}
END_TEST

START_TEST(refuse_name_mismatch)
{
	put("beta/SKILL.md", GOOD_MD);
	refused("beta/SKILL.md", "name must be the name of the skill's "
	    "directory");
}
END_TEST

START_TEST(refuse_no_description)
{
	put("alpha/SKILL.md", "---\nname: alpha\n---\n");
	refused("alpha/SKILL.md", "no description");
	teardown();
	setup();
	put("alpha/SKILL.md", "---\nname: alpha\ndescription: d\n"
	    "metadata:\n  n: 1\n---\n");
	refused("alpha/SKILL.md", "metadata values must be strings");
}
END_TEST

START_TEST(refuse_bad_frontmatter)
{
	put("alpha/SKILL.md", "# no frontmatter\n");
	refused("alpha/SKILL.md", "must begin with a \"---\" line");
	teardown();
	setup();
	put("alpha/SKILL.md", "---\nname: alpha\ndescription: [a, b]\n"
	    "---\n");
	refused("alpha/SKILL.md", "frontmatter line 3");
	teardown();
	setup();
	put("alpha/SKILL.md", "---\nname: alpha\nname: alpha\n---\n");
	refused("alpha/SKILL.md", "given twice");
}
END_TEST

START_TEST(refuse_symlink_out)
{
	char	 path[512];

	put("alpha/SKILL.md", GOOD_MD);
	snprintf(path, sizeof(path), "%s/alpha/passwd", top);
	ck_assert_int_eq(symlink("/etc/passwd", path), 0);
	refused("alpha/passwd", "symbolic link leading out of its skill");
	teardown();
	setup();
	/* Out of the skill, still inside the directory: refused too. */
	put("alpha/SKILL.md", GOOD_MD);
	put("beta/x.md", "x\n");
	snprintf(path, sizeof(path), "%s/alpha/beta", top);
	ck_assert_int_eq(symlink("../beta", path), 0);
	refused("alpha/beta", "leading out of its skill");
	teardown();
	setup();
	/* A skill directory that is a link out of the skills directory. */
	snprintf(path, sizeof(path), "%s/alpha", top);
	ck_assert_int_eq(symlink("/etc", path), 0);
	refused("alpha", "leading out of the skills directory");
}
END_TEST

START_TEST(symlink_inside_is_served)
{
	char	 path[512];

	put("alpha/SKILL.md", GOOD_MD);
	put("alpha/real.md", "real\n");
	snprintf(path, sizeof(path), "%s/alpha/link.md", top);
	ck_assert_int_eq(symlink("real.md", path), 0);
	ck_assert_int_eq(wymcp_server_load_skills(srv, top), WYMCP_OK);
	ck_assert_uint_eq(srv->skills.nfiles, 3);
}
END_TEST

START_TEST(refuse_bad_file_name)
{
	put("alpha/SKILL.md", GOOD_MD);
	put("alpha/my notes.md", "x\n");
	refused("alpha/my notes.md", "letters, digits, '.', '_', '-' and "
	    "'~'");
}
END_TEST

START_TEST(refuse_fifo)
{
	char	 path[512];

	put("alpha/SKILL.md", GOOD_MD);
	snprintf(path, sizeof(path), "%s/alpha/pipe", top);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	refused("alpha/pipe", "not a regular file nor a directory");
}
END_TEST

START_TEST(refuse_limits)
{
	char	 rel[512];
	int	 fd, i;

	put("alpha/SKILL.md", GOOD_MD);
	for (i = 0; i < 512; i++) {
		snprintf(rel, sizeof(rel), "alpha/f/%03d.txt", i);
		put(rel, "x");
	}
	ck_assert_int_ne(wymcp_server_load_skills(srv, top), WYMCP_OK);
	ck_assert_ptr_nonnull(strstr(wymcp_server_errmsg(srv),
	    "at most 512 files"));
	ck_assert_ptr_nonnull(strstr(wymcp_server_errmsg(srv), top));
	teardown();
	setup();
	put("alpha/SKILL.md", GOOD_MD);
	snprintf(rel, sizeof(rel), "%s/alpha/big.bin", top);
	ck_assert_int_ge(fd = open(rel, O_WRONLY | O_CREAT, 0600), 0);
	ck_assert_int_eq(ftruncate(fd, 16 * 1024 * 1024 - 10), 0);
	close(fd);
	refused("alpha/big.bin", "at most 16 MiB");
}
END_TEST

START_TEST(refuse_missing_dir_and_twice)
{
	ck_assert_int_ne(wymcp_server_load_skills(srv,
	    "/nonexistent/skills"), WYMCP_OK);
	ck_assert_ptr_nonnull(strstr(wymcp_server_errmsg(srv),
	    "/nonexistent/skills"));
	put("alpha/SKILL.md", GOOD_MD);
	ck_assert_int_eq(wymcp_server_load_skills(srv, top), WYMCP_OK);
	ck_assert_int_eq(wymcp_server_load_skills(srv, top), WYMCP_ERR_DUP);
}
END_TEST

/* The frontmatter parser on its own: YAML's types, and its refusals. */
static const char *
fm(const char *text)
{
	static char		 buf[512];
	struct json_object	*o;
	char			 err[256];
	size_t			 body;

	if (wymcp__frontmatter(text, strlen(text), &o, &body, err,
	    sizeof(err)) != 0) {
		snprintf(buf, sizeof(buf), "error: %s", err);
		return buf;
	}
	snprintf(buf, sizeof(buf), "%s", json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return buf;
}

START_TEST(frontmatter_types)
{
	ck_assert_str_eq(fm("---\na: 1\nb: -2.5\nc: true\nd: ~\ne: x y\n"
	    "f: \"q\\\"\\u00e9\"\ng: 'it''s'\nh: 1.0.0\ni: a#b # c\n---\n"),
	    "{\"a\":1,\"b\":-2.5,\"c\":true,\"d\":null,\"e\":\"x y\","
	    "\"f\":\"q\\\"\xc3\xa9\",\"g\":\"it's\",\"h\":\"1.0.0\","
	    "\"i\":\"a#b\"}");
	ck_assert_str_eq(fm("---\r\nm:\r\n  k: v\r\n  n:\r\n    o: p\r\n"
	    "e:\r\n---\r\nbody"),
	    "{\"m\":{\"k\":\"v\",\"n\":{\"o\":\"p\"}},\"e\":null}");
	ck_assert_str_eq(fm("---\nk: [a]\n---\n"), "error: frontmatter line "
	    "2: a value starting with '[' (sequences, flow collections, "
	    "block scalars, anchors, aliases and tags are not read; quote a "
	    "string)");
	ck_assert_ptr_nonnull(strstr(fm("---\nk: >\n  x\n---\n"), "'>'"));
	ck_assert_ptr_nonnull(strstr(fm("---\nk: a: b\n---\n"), "\": \""));
	ck_assert_ptr_nonnull(strstr(fm("---\nk: 0x10\n---\n"), "octal"));
	ck_assert_ptr_nonnull(strstr(fm("---\nk: .NaN\n---\n"), ".nan"));
	ck_assert_ptr_nonnull(strstr(fm("---\nk: 9007199254740992\n---\n"),
	    "2^53"));
	ck_assert_ptr_nonnull(strstr(fm("---\nk: v\n"), "no closing"));
	ck_assert_ptr_nonnull(strstr(fm("---\n\tk: v\n---\n"), "tab"));
	ck_assert_ptr_nonnull(strstr(fm("---\na:\n    b: 1\n  c: 2\n---\n"),
	    "indentation"));
	ck_assert_ptr_nonnull(strstr(fm("---\nk: \"\\ud800\"\n---\n"),
	    "surrogates"));
	ck_assert_ptr_nonnull(strstr(fm("---\nk: \x01\n---\n"), "control"));
}
END_TEST

/* Served: a skill with a subdirectory and a binary file. */
static void
serve_alpha(void)
{
	put("alpha/SKILL.md", GOOD_MD);
	put("alpha/references/guide.md", "# Guide\n");
	put("alpha/data.bin", "\x01\x02\xff");
	put("beta/SKILL.md", "---\nname: beta\ndescription: The second\n"
	    "---\nB\n");
	put("README", "not a skill: ignored\n");
	put(".hidden/SKILL.md", "ignored\n");
	ck_assert_int_eq(wymcp_server_load_skills(srv, top), WYMCP_OK);
}

static void
call(const char *method, const char *name, const char *params)
{
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, method, name, params, NULL, &resp),
	    WYMCP_OK);
}

static struct json_object *
member(struct json_object *o, const char *k)
{
	struct json_object	*v = NULL;

	ck_assert_msg(o != NULL && json_object_object_get_ex(o, k, &v),
	    "no %s in %s", k, resp.body);
	return v;
}

static const char *
compact(struct json_object *o)
{
	return json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

START_TEST(discover_declares_skills)
{
	struct json_object	*caps;

	serve_alpha();
	call("server/discover", NULL, "{}");
	caps = member(h_result(&resp), "capabilities");
	ck_assert_str_eq(compact(member(member(caps, "extensions"),
	    "io.modelcontextprotocol/skills")), "{\"directoryRead\":true}");
	(void)member(caps, "resources");
}
END_TEST

START_TEST(list_and_get)
{
	struct json_object	*skills, *e, *res;
	unsigned char		 sha[32];
	char			 hex[65], want[80];

	serve_alpha();
	call("skills/list", NULL, "{}");
	skills = member(h_result(&resp), "skills");
	ck_assert_int_eq(json_object_array_length(skills), 2);
	e = json_object_array_get_idx(skills, 0);
	ck_assert_str_eq(json_object_get_string(member(e, "uri")),
	    "skill://alpha/SKILL.md");
	ck_assert_str_eq(compact(member(e, "frontmatter")),
	    "{\"name\":\"alpha\",\"description\":\"The first skill\","
	    "\"license\":\"ISC\",\"metadata\":{\"version\":\"1.0\"}}");
	res = member(e, "resources");
	ck_assert_int_eq(json_object_array_length(res), 3);
	crypto_hash_sha256(sha, (const unsigned char *)GOOD_MD,
	    strlen(GOOD_MD));
	sodium_bin2hex(hex, sizeof(hex), sha, sizeof(sha));
	snprintf(want, sizeof(want), "sha256:%s", hex);
	e = json_object_array_get_idx(res, 0);
	ck_assert_str_eq(json_object_get_string(member(e, "uri")),
	    "skill://alpha/SKILL.md");
	ck_assert_str_eq(json_object_get_string(member(e, "digest")), want);
	ck_assert_int_eq(json_object_get_int(member(e, "size")),
	    (int)strlen(GOOD_MD));
	ck_assert_str_eq(json_object_get_string(member(h_result(&resp),
	    "cacheScope")), "public");
	(void)member(h_result(&resp), "ttlMs");

	call("skills/get", NULL, "{\"uri\":\"skill://beta/SKILL.md\"}");
	e = member(member(h_result(&resp), "skill"), "frontmatter");
	ck_assert_str_eq(compact(e),
	    "{\"name\":\"beta\",\"description\":\"The second\"}");
	ck_assert(!json_object_object_get_ex(h_result(&resp), "nextCursor",
	    NULL));
	call("skills/get", NULL, "{\"uri\":\"skill://gamma/SKILL.md\"}");
	ck_assert_int_eq(h_code(&resp), -32602);
	call("skills/get", NULL, "{\"uri\":\"skill://alpha\"}");
	ck_assert_int_eq(h_code(&resp), -32602);
	call("skills/get", NULL, "{\"uri\":7}");
	ck_assert_int_eq(h_code(&resp), -32602);
}
END_TEST

START_TEST(list_pages)
{
	struct json_object	*next;
	char			 params[512];

	serve_alpha();
	wymcp_server_set_page_size(srv, 1);
	call("skills/list", NULL, "{}");
	ck_assert_int_eq(json_object_array_length(member(h_result(&resp),
	    "skills")), 1);
	next = member(h_result(&resp), "nextCursor");
	snprintf(params, sizeof(params), "{\"cursor\":\"%s\"}",
	    json_object_get_string(next));
	call("skills/list", NULL, params);
	ck_assert_str_eq(json_object_get_string(member(
	    json_object_array_get_idx(member(h_result(&resp), "skills"), 0),
	    "uri")), "skill://beta/SKILL.md");
	ck_assert(!json_object_object_get_ex(h_result(&resp), "nextCursor",
	    NULL));
	call("skills/list", NULL, "{\"cursor\":\"../../etc\"}");
	ck_assert_int_eq(h_code(&resp), -32602);
}
END_TEST

START_TEST(directory_read)
{
	serve_alpha();
	call("resources/directory/read", NULL, "{\"uri\":\"skill://alpha\"}");
	ck_assert_str_eq(compact(member(h_result(&resp), "resources")),
	    "[{\"uri\":\"skill://alpha/SKILL.md\",\"name\":\"SKILL.md\","
	    "\"mimeType\":\"text/markdown\"},"
	    "{\"uri\":\"skill://alpha/data.bin\",\"name\":\"data.bin\","
	    "\"mimeType\":\"application/octet-stream\"},"
	    "{\"uri\":\"skill://alpha/references\",\"name\":\"references\","
	    "\"mimeType\":\"inode/directory\"}]");
	call("resources/directory/read", NULL,
	    "{\"uri\":\"skill://alpha/references\"}");
	ck_assert_int_eq(json_object_array_length(member(h_result(&resp),
	    "resources")), 1);
	call("resources/directory/read", NULL,
	    "{\"uri\":\"skill://alpha/SKILL.md\"}");
	ck_assert_int_eq(h_code(&resp), -32602);
	call("resources/directory/read", NULL,
	    "{\"uri\":\"skill://alpha/../beta\"}");
	ck_assert_int_eq(h_code(&resp), -32602);
	call("resources/directory/read", NULL,
	    "{\"uri\":\"skill://alpha/\"}");
	ck_assert_int_eq(h_code(&resp), -32602);
}
END_TEST

START_TEST(read_files)
{
	struct json_object	*c;
	char			 path[512];
	FILE			*f;

	serve_alpha();
	call("resources/read", "skill://alpha/SKILL.md",
	    "{\"uri\":\"skill://alpha/SKILL.md\"}");
	c = json_object_array_get_idx(member(h_result(&resp), "contents"), 0);
	ck_assert_str_eq(json_object_get_string(member(c, "text")), GOOD_MD);
	ck_assert_str_eq(json_object_get_string(member(c, "mimeType")),
	    "text/markdown");
	call("resources/read", "skill://alpha/data.bin",
	    "{\"uri\":\"skill://alpha/data.bin\"}");
	c = json_object_array_get_idx(member(h_result(&resp), "contents"), 0);
	ck_assert_str_eq(json_object_get_string(member(c, "blob")), "AQL/");
	/* What the client names is looked up, never opened. */
	call("resources/read", "skill://alpha/../../../etc/passwd",
	    "{\"uri\":\"skill://alpha/../../../etc/passwd\"}");
	ck_assert_int_eq(h_code(&resp), -32602);
	call("resources/read", "skill://alpha/references/../SKILL.md",
	    "{\"uri\":\"skill://alpha/references/../SKILL.md\"}");
	ck_assert_int_eq(h_code(&resp), -32602);
	call("resources/list", NULL, "{}");
	ck_assert_int_eq(json_object_array_length(member(h_result(&resp),
	    "resources")), 4);
	/* Changed since the load: not served as if it were the same. */
	snprintf(path, sizeof(path), "%s/alpha/references/guide.md", top);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs("# Guide!\n", f);
	fclose(f);
	call("resources/read", "skill://alpha/references/guide.md",
	    "{\"uri\":\"skill://alpha/references/guide.md\"}");
	ck_assert_int_eq(h_code(&resp), -32603);
}
END_TEST

START_TEST(without_skills_no_methods)
{
	call("skills/list", NULL, "{}");
	ck_assert_int_eq(h_code(&resp), -32601);
	call("resources/directory/read", NULL, "{\"uri\":\"skill://a\"}");
	ck_assert_int_eq(h_code(&resp), -32601);
}
END_TEST

static Suite *
skills_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("skills");
	tc = tcase_create("loader");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, refuse_no_skill_md);
	tcase_add_test(tc, refuse_bad_dir_name);
	tcase_add_test(tc, refuse_name_mismatch);
	tcase_add_test(tc, refuse_no_description);
	tcase_add_test(tc, refuse_bad_frontmatter);
	tcase_add_test(tc, refuse_symlink_out);
	tcase_add_test(tc, symlink_inside_is_served);
	tcase_add_test(tc, refuse_bad_file_name);
	tcase_add_test(tc, refuse_fifo);
	tcase_add_test(tc, refuse_limits);
	tcase_add_test(tc, refuse_missing_dir_and_twice);
	tcase_add_test(tc, frontmatter_types);
	suite_add_tcase(s, tc);
	tc = tcase_create("methods");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, discover_declares_skills);
	tcase_add_test(tc, list_and_get);
	tcase_add_test(tc, list_pages);
	tcase_add_test(tc, directory_read);
	tcase_add_test(tc, read_files);
	tcase_add_test(tc, without_skills_no_methods);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	sr = srunner_create(skills_suite());
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
