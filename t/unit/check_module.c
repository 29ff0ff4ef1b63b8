/* check_module.c - the module loader, tool registration, server config */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <sodium.h>

#include "testing/testing.h"
#include "harness.h"

static struct wymcp_server	*srv;

static void
setup(void)
{
	srv = wymcp_server_new();
	ck_assert_ptr_nonnull(srv);
}

static void
teardown(void)
{
	wymcp_server_free(srv);
	srv = NULL;
}

static void
module_path(char *buf, size_t sz, const char *rel)
{
	const char	*top;

	if ((top = getenv("top_builddir")) == NULL || *top == '\0')
		top = ".";
	snprintf(buf, sz, "%s/%s", top, rel);
}

/* The registered tool names, joined by ' '. */
static const char *
names(void)
{
	static char	 buf[2048];
	size_t		 i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < srv->ntools && off < sizeof(buf); i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s",
		    i > 0 ? " " : "", srv->tools[i].def->name);
	return buf;
}

/* The names tools/list answers with, joined by ' '. */
static const char *
listed(void)
{
	static char		 buf[2048];
	struct h_resp		 r;
	struct json_object	*arr, *res, *n;
	size_t			 i, off = 0;

	ck_assert_int_eq(h_call(srv, "tools/list", NULL, NULL, NULL, &r),
	    WYMCP_OK);
	res = h_result(&r);
	ck_assert_ptr_nonnull(res);
	ck_assert(json_object_object_get_ex(res, "tools", &arr));
	buf[0] = '\0';
	for (i = 0; i < json_object_array_length(arr) && off < sizeof(buf);
	    i++) {
		json_object_object_get_ex(json_object_array_get_idx(arr, i),
		    "name", &n);
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s",
		    i > 0 ? " " : "", json_object_get_string(n));
	}
	h_free(&r);
	return buf;
}

static void
expect_errmsg(const char *part)
{
	ck_assert_msg(strstr(wymcp_server_errmsg(srv), part) != NULL,
	    "errmsg '%s' lacks '%s'", wymcp_server_errmsg(srv), part);
}

static enum wymcp_err
noop(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return WYMCP_OK;
}

#define MOD(var, nm, tab)						\
	static const struct wymcp_module var = {			\
		.abi = WYMCP_ABI_VERSION,				\
		.size = sizeof(struct wymcp_module), .name = nm, .tools = tab, \
		.tool_size = sizeof(struct wymcp_tool) }

/* A good module registered by most tests. */
static const struct wymcp_tool good_tools[] = {
	{ .name = "good", .description = "g", .run = noop },
	{ .name = "good.two-3_x", .description = "g2", .run = noop },
	{ .name = NULL }
};
MOD(good_mod, "good", good_tools);

/*
 * Register a module whose first tool is fine and whose second is `bad`;
 * expect `want` and nothing registered.
 */
static void
reject(const struct wymcp_tool *bad, enum wymcp_err want, const char *part)
{
	struct wymcp_tool	 tab[3];
	struct wymcp_module	 mod = { .abi = WYMCP_ABI_VERSION,
	    .size = sizeof(struct wymcp_module), .name = "badmod",
	    .tools = tab,
	    .tool_size = sizeof(struct wymcp_tool) };
	size_t			 before = srv->ntools, nmods = srv->nmods;

	memset(tab, 0, sizeof(tab));
	tab[0].name = "first_ok";
	tab[0].description = "fine";
	tab[0].run = noop;
	tab[1] = *bad;
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod), want);
	if (part != NULL)
		expect_errmsg(part);
	ck_assert_uint_eq(srv->ntools, before);
	ck_assert_uint_eq(srv->nmods, nmods);
	ck_assert_ptr_null(strstr(listed(), "first_ok"));
}

START_TEST(load_testmod)
{
	char	 path[1024];

	module_path(path, sizeof(path), "t/lib/.libs/testmod.so");
	ck_assert_msg(wymcp_server_load_module(srv, path) == WYMCP_OK, "%s",
	    wymcp_server_errmsg(srv));
	ck_assert_str_eq(names(), "ok_text fails returns_inval nomem "
	    "needs_sampling needs_elicit_url structured_ok structured_bad "
	    "all_content defer_probe args_echo");
	ck_assert_uint_eq(srv->nmods, 1);
	ck_assert_str_eq(srv->mods[0].path, path);
	ck_assert_ptr_nonnull(srv->mods[0].handle);
	ck_assert_str_eq(srv->mods[0].mod->name, "testmod");
	/* Parsed once at load time. */
	ck_assert_ptr_nonnull(srv->tools[0].listing);
	ck_assert_ptr_nonnull(srv->tools[0].input);
	ck_assert_ptr_null(srv->tools[0].reqcaps);
	ck_assert_ptr_nonnull(srv->tools[4].reqcaps);
	ck_assert_str_eq(srv->tools[4].mod->name, "testmod");
}
END_TEST

START_TEST(load_bundled_modules)
{
	char	 path[1024];

	module_path(path, sizeof(path), "tools/.libs/whoami.so");
	ck_assert_int_eq(wymcp_server_load_module(srv, path), WYMCP_OK);
	module_path(path, sizeof(path), "tools/.libs/help.so");
	ck_assert_int_eq(wymcp_server_load_module(srv, path), WYMCP_OK);
	module_path(path, sizeof(path), "tools/.libs/echo.so");
	ck_assert_int_eq(wymcp_server_load_module(srv, path), WYMCP_OK);
	ck_assert_str_eq(names(), "whoami help echo");
	ck_assert_str_eq(listed(), "whoami help echo");
}
END_TEST

/*
 * A reload's comparison: the catalogue of a server before and after
 * names the tools added, removed or changed, and the other lists that
 * changed; nothing when nothing did.  Catalogues outlive their servers.
 */
START_TEST(catalogue_changes)
{
	struct wymcp_server	*a, *b;
	struct wymcp_catalogue	*ca, *cb, *cc;
	char			 p1[1024], p2[1024], p3[1024], *ev;

	module_path(p1, sizeof(p1), "tools/.libs/help.so");
	module_path(p2, sizeof(p2), "tools/.libs/echo.so");
	module_path(p3, sizeof(p3), "tools/.libs/examples.so");
	a = wymcp_server_new();
	b = wymcp_server_new();
	ck_assert_int_eq(wymcp_server_load_module(a, p1), WYMCP_OK);
	ck_assert_int_eq(wymcp_server_load_module(a, p3), WYMCP_OK);
	ck_assert_int_eq(wymcp_server_load_module(b, p1), WYMCP_OK);
	ck_assert_int_eq(wymcp_server_load_module(b, p2), WYMCP_OK);
	ca = wymcp_server_catalogue(a);
	cb = wymcp_server_catalogue(b);
	cc = wymcp_server_catalogue(a);
	ck_assert_ptr_nonnull(ca);
	ck_assert_ptr_nonnull(cb);
	wymcp_server_free(a);
	wymcp_server_free(b);
	ck_assert_ptr_null(wymcp_catalogue_changes(ca, cc));
	ev = wymcp_catalogue_changes(ca, cb);
	ck_assert_ptr_nonnull(ev);
	/*
	 * echo came, the examples' tools, ui:// view and note://
	 * template went.
	 */
	ck_assert_str_eq(ev, "{\"v\":1,\"k\":\"list\",\"lists\":"
	    "[\"tools\",\"resources\"],\"tools\":[\"echo\",\"book_room\","
	    "\"reserve_room\",\"purge_cache\",\"count_slowly\","
	    "\"write_note\"]}");
	free(ev);
	ck_assert_ptr_null(wymcp_catalogue_changes(NULL, cb));
	wymcp_catalogue_free(ca);
	wymcp_catalogue_free(cb);
	wymcp_catalogue_free(cc);
	wymcp_catalogue_free(NULL);
}
END_TEST

/*
 * The tools' digests, frozen listings and the mount digest: made at the
 * load by default; by a lazy server (wymcp_server_set_lazy()) on first
 * use, a catalogue here, as a tools/list or a seal would, and a new
 * module makes them due again.  Made either way they are the same.
 */
START_TEST(digests_at_load_or_on_first_use)
{
	struct wymcp_server	*b;
	struct wymcp_catalogue	*c;
	unsigned char		 mount[32], want[32];
	const char		*text;
	char			 path[1024];

	module_path(path, sizeof(path), "tools/.libs/echo.so");
	ck_assert_int_eq(wymcp_server_load_module(srv, path), WYMCP_OK);
	ck_assert_int_eq(srv->digested, 1);
	ck_assert_int_eq(srv->tools[0].digested, 1);
	/* BLAKE2b-256 of the listing's compact text. */
	text = wymcp__json(srv->tools[0].listing);
	ck_assert_ptr_nonnull(strstr(text, "\"name\":\"echo\""));
	ck_assert_int_eq(crypto_generichash(want, 32,
	    (const unsigned char *)text, strlen(text), NULL, 0), 0);
	ck_assert_mem_eq(srv->tools[0].digest, want, 32);
	memcpy(mount, srv->mount_digest, sizeof(mount));

	b = wymcp_server_new();
	ck_assert_ptr_nonnull(b);
	wymcp_server_set_lazy(b, 1);
	ck_assert_int_eq(wymcp_server_load_module(b, path), WYMCP_OK);
	ck_assert_int_eq(b->digested, 0);
	ck_assert_int_eq(b->tools[0].digested, 0);
	c = wymcp_server_catalogue(b);
	ck_assert_ptr_nonnull(c);
	wymcp_catalogue_free(c);
	ck_assert_int_eq(b->digested, 1);
	ck_assert_mem_eq(b->tools[0].digest, want, 32);
	ck_assert_mem_eq(b->mount_digest, mount, 32);
	/* Once made, they are not made again. */
	ck_assert_int_eq(wymcp__tools_digest(b), WYMCP_OK);
	ck_assert_mem_eq(b->mount_digest, mount, 32);
	/* Another module: the mount digest is due again, and differs. */
	ck_assert_int_eq(wymcp_server_add_module(b, &good_mod), WYMCP_OK);
	ck_assert_int_eq(b->digested, 0);
	ck_assert_int_eq(b->tools[0].digested, 1);
	ck_assert_int_eq(b->tools[1].digested, 0);
	ck_assert_int_eq(wymcp__tools_digest(b), WYMCP_OK);
	ck_assert_int_eq(b->tools[2].digested, 1);
	ck_assert_mem_eq(b->tools[0].digest, want, 32);
	ck_assert_mem_ne(b->mount_digest, mount, 32);
	/* The same module on the eager server: the same identity. */
	ck_assert_int_eq(wymcp_server_add_module(srv, &good_mod), WYMCP_OK);
	ck_assert_int_eq(srv->digested, 1);
	ck_assert_mem_eq(srv->mount_digest, b->mount_digest, 32);
	wymcp_server_free(b);
	wymcp_server_set_lazy(NULL, 1);
}
END_TEST

START_TEST(load_same_module_twice_is_dup)
{
	char	 path[1024];

	module_path(path, sizeof(path), "tools/.libs/echo.so");
	ck_assert_int_eq(wymcp_server_load_module(srv, path), WYMCP_OK);
	ck_assert_int_eq(wymcp_server_load_module(srv, path), WYMCP_ERR_DUP);
	expect_errmsg("echo");
	expect_errmsg("already registered");
	ck_assert_uint_eq(srv->nmods, 1);
	ck_assert_str_eq(names(), "echo");
}
END_TEST

START_TEST(load_missing_file_is_module_error)
{
	ck_assert_int_eq(wymcp_server_load_module(srv,
	    "/nonexistent/dir/nosuch-module.so"), WYMCP_ERR_MODULE);
	expect_errmsg("nosuch-module.so");
	ck_assert_uint_eq(srv->ntools, 0);
	ck_assert_uint_eq(srv->nmods, 0);
}
END_TEST

START_TEST(load_without_symbol_is_module_error)
{
	static const char *const libs[] = { "libm.so.6",
	    "/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib64/libm.so.6",
	    "/lib64/libm.so.6" };
	const char	*lib = NULL;
	void		*h;
	size_t		 i;

	for (i = 0; i < sizeof(libs) / sizeof(libs[0]) && lib == NULL; i++)
		if ((h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL)) != NULL) {
			lib = libs[i];
			dlclose(h);
		}
	ck_assert_ptr_nonnull(lib);
	ck_assert_int_eq(wymcp_server_load_module(srv, lib),
	    WYMCP_ERR_MODULE);
	expect_errmsg("WYMCP_MODULE");
	expect_errmsg(lib);
	ck_assert_uint_eq(srv->ntools, 0);
	ck_assert_uint_eq(srv->nmods, 0);
}
END_TEST

START_TEST(load_not_a_shared_object_is_module_error)
{
	char	 path[] = "/tmp/wymcp-check-module-XXXXXX";
	int	 fd;

	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "not ELF\n", 8), 8);
	close(fd);
	ck_assert_int_eq(wymcp_server_load_module(srv, path),
	    WYMCP_ERR_MODULE);
	unlink(path);
	ck_assert_uint_eq(srv->nmods, 0);
}
END_TEST

START_TEST(load_null_arguments_are_inval)
{
	ck_assert_int_eq(wymcp_server_load_module(NULL, "x.so"),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_server_load_module(srv, NULL),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_server_add_module(NULL, &good_mod),
	    WYMCP_ERR_INVAL);
}
END_TEST

START_TEST(add_static_module)
{
	ck_assert_int_eq(wymcp_server_add_module(srv, &good_mod), WYMCP_OK);
	ck_assert_str_eq(names(), "good good.two-3_x");
	ck_assert_str_eq(listed(), "good good.two-3_x");
	ck_assert_ptr_null(srv->mods[0].handle);
	ck_assert_ptr_null(srv->mods[0].path);
}
END_TEST

START_TEST(add_empty_module)
{
	static const struct wymcp_tool none[] = { { .name = NULL } };
	MOD(empty, "empty", none);

	ck_assert_int_eq(wymcp_server_add_module(srv, &empty), WYMCP_OK);
	ck_assert_uint_eq(srv->ntools, 0);
	ck_assert_uint_eq(srv->nmods, 1);
}
END_TEST

START_TEST(tool_name_rules)
{
	char	 name[200];

	ck_assert_int_eq(wymcp__tool_name_ok("a"), 1);
	ck_assert_int_eq(wymcp__tool_name_ok("A-z_0.9"), 1);
	ck_assert_int_eq(wymcp__tool_name_ok(""), 0);
	ck_assert_int_eq(wymcp__tool_name_ok("has space"), 0);
	ck_assert_int_eq(wymcp__tool_name_ok("a/b"), 0);
	ck_assert_int_eq(wymcp__tool_name_ok("caf\xc3\xa9"), 0);
	memset(name, 'n', 128);
	name[128] = '\0';
	ck_assert_int_eq(wymcp__tool_name_ok(name), 1);
	name[128] = 'n';
	name[129] = '\0';
	ck_assert_int_eq(wymcp__tool_name_ok(name), 0);
}
END_TEST

START_TEST(bad_name_rejected_atomically)
{
	static char		 longname[130];
	struct wymcp_tool	 t = { .description = "d", .run = noop };
	struct wymcp_tool	 tab[2];
	struct wymcp_module	 mod = { .abi = WYMCP_ABI_VERSION,
	    .size = sizeof(struct wymcp_module), .name = "long", .tools = tab,
	    .tool_size = sizeof(struct wymcp_tool) };

	ck_assert_int_eq(wymcp_server_add_module(srv, &good_mod), WYMCP_OK);
	t.name = "has space";
	reject(&t, WYMCP_ERR_INVAL, "has space");
	memset(longname, 'x', 129);
	t.name = longname;
	reject(&t, WYMCP_ERR_INVAL, "1 to 128");
	t.name = "";
	reject(&t, WYMCP_ERR_INVAL, NULL);
	t.name = "tab\there";
	reject(&t, WYMCP_ERR_INVAL, NULL);
	/* 128 is fine. */
	longname[128] = '\0';
	t.name = longname;
	memset(tab, 0, sizeof(tab));
	tab[0] = t;
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod), WYMCP_OK);
	ck_assert_uint_eq(srv->ntools, 3);
}
END_TEST

START_TEST(missing_description_rejected_atomically)
{
	struct wymcp_tool	 t = { .name = "nodesc", .run = noop };

	reject(&t, WYMCP_ERR_INVAL, "description");
	t.description = "";
	reject(&t, WYMCP_ERR_INVAL, "description");
}
END_TEST

START_TEST(missing_run_rejected_atomically)
{
	struct wymcp_tool	 t = { .name = "norun", .description = "d" };

	reject(&t, WYMCP_ERR_INVAL, "run");
}
END_TEST

START_TEST(invalid_schema_json_rejected_atomically)
{
	struct wymcp_tool	 t = { .name = "badjson", .description = "d",
	    .run = noop };

	t.input_schema = "{\"type\":\"object\"";
	reject(&t, WYMCP_ERR_SCHEMA, "not valid JSON");
	t.input_schema = "";
	reject(&t, WYMCP_ERR_SCHEMA, "input_schema");
	t.input_schema = "{\"type\":\"object\"} x";
	reject(&t, WYMCP_ERR_SCHEMA, "input_schema");
}
END_TEST

START_TEST(schema_not_object_rejected_atomically)
{
	struct wymcp_tool	 t = { .name = "notobj", .description = "d",
	    .run = noop };

	t.input_schema = "[]";
	reject(&t, WYMCP_ERR_SCHEMA, "must be a JSON object");
	t.input_schema = "true";
	reject(&t, WYMCP_ERR_SCHEMA, "input_schema");
	t.input_schema = "\"object\"";
	reject(&t, WYMCP_ERR_SCHEMA, "input_schema");
}
END_TEST

START_TEST(schema_root_type_not_object_rejected_atomically)
{
	struct wymcp_tool	 t = { .name = "roottype", .description = "d",
	    .run = noop };

	t.input_schema = "{\"type\":\"string\"}";
	reject(&t, WYMCP_ERR_SCHEMA, "roottype");
	t.input_schema = "{}";
	reject(&t, WYMCP_ERR_SCHEMA, "input_schema");
	t.input_schema = "{\"type\":[\"object\",\"null\"]}";
	reject(&t, WYMCP_ERR_SCHEMA, "input_schema");
}
END_TEST

START_TEST(other_json_members_rejected_atomically)
{
	struct wymcp_tool	 t = { .name = "members", .description = "d",
	    .run = noop };

	t.annotations = "[]";
	reject(&t, WYMCP_ERR_SCHEMA, "annotations");
	t.annotations = "{";
	reject(&t, WYMCP_ERR_SCHEMA, "annotations");
	t.annotations = NULL;
	t.output_schema = "7";
	reject(&t, WYMCP_ERR_SCHEMA, "output_schema");
	t.output_schema = NULL;
	t.required_caps = "[\"sampling\"]";
	reject(&t, WYMCP_ERR_SCHEMA, "required_caps");
	t.required_caps = "{sampling:{}}";
	reject(&t, WYMCP_ERR_SCHEMA, "required_caps");
}
END_TEST

START_TEST(duplicate_within_module_is_dup)
{
	static const struct wymcp_tool tab[] = {
		{ .name = "a", .description = "d", .run = noop },
		{ .name = "b", .description = "d", .run = noop },
		{ .name = "a", .description = "again", .run = noop },
		{ .name = NULL }
	};
	MOD(mod, "twice", tab);

	ck_assert_int_eq(wymcp_server_add_module(srv, &mod), WYMCP_ERR_DUP);
	expect_errmsg("twice");
	ck_assert_uint_eq(srv->ntools, 0);
	ck_assert_uint_eq(srv->nmods, 0);
	ck_assert_str_eq(listed(), "");
}
END_TEST

START_TEST(duplicate_across_modules_is_dup)
{
	static const struct wymcp_tool tab[] = {
		{ .name = "other", .description = "d", .run = noop },
		{ .name = "good", .description = "again", .run = noop },
		{ .name = NULL }
	};
	MOD(mod, "second", tab);

	ck_assert_int_eq(wymcp_server_add_module(srv, &good_mod), WYMCP_OK);
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod), WYMCP_ERR_DUP);
	expect_errmsg("good");
	ck_assert_str_eq(names(), "good good.two-3_x");
	ck_assert_str_eq(listed(), "good good.two-3_x");
	ck_assert_uint_eq(srv->nmods, 1);
}
END_TEST

START_TEST(wrong_abi_rejected)
{
	static const struct wymcp_module abi = { .abi = WYMCP_ABI_VERSION + 1,
	    .size = sizeof(struct wymcp_module), .name = "abi",
	    .tools = good_tools,
	    .tool_size = sizeof(struct wymcp_tool) };
	static const struct wymcp_module size = { .abi = WYMCP_ABI_VERSION,
	    .size = offsetof(struct wymcp_module, tools), .name = "size",
	    .tools = good_tools,
	    .tool_size = sizeof(struct wymcp_tool) };
	static const struct wymcp_module noname = { .abi = WYMCP_ABI_VERSION,
	    .size = sizeof(struct wymcp_module), .name = NULL,
	    .tools = good_tools,
	    .tool_size = sizeof(struct wymcp_tool) };
	static const struct wymcp_module notools = { .abi = WYMCP_ABI_VERSION,
	    .size = sizeof(struct wymcp_module), .name = "notools",
	    .tools = NULL,
	    .tool_size = sizeof(struct wymcp_tool) };

	ck_assert_int_eq(wymcp_server_add_module(srv, &abi), WYMCP_ERR_MODULE);
	expect_errmsg("ABI");
	ck_assert_int_eq(wymcp_server_add_module(srv, &size),
	    WYMCP_ERR_MODULE);
	ck_assert_int_eq(wymcp_server_add_module(srv, &noname),
	    WYMCP_ERR_MODULE);
	ck_assert_int_eq(wymcp_server_add_module(srv, &notools),
	    WYMCP_ERR_MODULE);
	ck_assert_int_eq(wymcp_server_add_module(srv, NULL),
	    WYMCP_ERR_MODULE);
	ck_assert_uint_eq(srv->ntools, 0);
	ck_assert_uint_eq(srv->nmods, 0);
}
END_TEST

/*
 * ABI: a module built against the 0.2 header has no element sizes, and
 * its tables are walked with the 0.2 sizes.
 */
START_TEST(abi_module_of_0_2_walked_by_0_2_sizes)
{
	/* The 0.2 header's elements, packed at its size. */
	static const struct wymcp__tool_0_2 tools_0_2[] = {
		{ .name = "good", .description = "g", .run = noop },
		{ .name = "good.two-3_x", .description = "g2", .run = noop },
		{ .name = NULL }
	};
	static const struct wymcp_module old = { .abi = WYMCP_ABI_VERSION,
	    .size = offsetof(struct wymcp_module, tool_size), .name = "old",
	    .tools = (const struct wymcp_tool *)(const void *)tools_0_2 };

	ck_assert_int_eq(wymcp_server_add_module(srv, &old), WYMCP_OK);
	ck_assert_ptr_null(srv->tools[0].decl.scopes);
	ck_assert_str_eq(names(), "good good.two-3_x");
	ck_assert_str_eq(listed(), "good good.two-3_x");
	/* A member added later (0.4) reads as 0 from the copy. */
	ck_assert_int_eq(srv->tools[1].decl.task_support,
	    WYMCP_TASK_FORBIDDEN);
}
END_TEST

/*
 * ABI: a module whose elements end before task_support (an older
 * header) reads as forbidding tasks, its tables walked by its own
 * stride; one built against this header keeps what it declares.
 */
START_TEST(abi_task_support_read_from_decl)
{
	static const struct wymcp__tool_0_2 old[] = {
		{ .name = "t03", .description = "d", .run = noop },
		{ .name = "t03b", .description = "d", .run = noop },
		{ .name = NULL }
	};
	static const struct wymcp_module m03 = { .abi = WYMCP_ABI_VERSION,
	    .size = sizeof(struct wymcp_module), .name = "m03",
	    .tools = (const struct wymcp_tool *)(const void *)old,
	    .tool_size = sizeof(struct wymcp__tool_0_2) };
	static const struct wymcp_tool tools04[] = {
		{ .name = "t04", .description = "d", .run = noop,
		    .task_support = WYMCP_TASK_REQUIRED },
		{ .name = NULL }
	};
	MOD(m04, "m04", tools04);

	ck_assert_int_eq(wymcp_server_add_module(srv, &m03), WYMCP_OK);
	ck_assert_int_eq(wymcp_server_add_module(srv, &m04), WYMCP_OK);
	ck_assert_str_eq(names(), "t03 t03b t04");
	ck_assert_int_eq(srv->tools[1].decl.task_support, 0);
	ck_assert_int_eq(srv->tools[2].decl.task_support,
	    WYMCP_TASK_REQUIRED);
}
END_TEST

/*
 * A module whose tables have no terminator (t/lib/noterm.c, built with
 * WYMCP_TOOLS() and the others): it loads and lists exactly its
 * entries; ASan would see a read past one of its arrays.
 */
START_TEST(module_without_terminators)
{
	char		 path[1024];
	struct h_resp	 r;

	module_path(path, sizeof(path), "t/lib/.libs/noterm.so");
	ck_assert_msg(wymcp_server_load_module(srv, path) == WYMCP_OK, "%s",
	    wymcp_server_errmsg(srv));
	ck_assert_uint_eq(srv->mods[0].mod->ntools, 2);
	ck_assert_str_eq(names(), "nt_one nt_two");
	ck_assert_str_eq(listed(), "nt_one nt_two");
	ck_assert_uint_eq(srv->nresources, 1);
	ck_assert_uint_eq(srv->ntemplates, 1);
	ck_assert_uint_eq(srv->nprompts, 1);
	ck_assert_str_eq(srv->prompts[0].def->name, "nt_hi");
	ck_assert_int_eq(h_call(srv, "tools/call", "nt_two",
	    "{\"name\":\"nt_two\",\"arguments\":{}}", NULL, &r),
	    WYMCP_OK);
	ck_assert_ptr_nonnull(strstr(r.body, "\"one\""));
	h_free(&r);
}
END_TEST

/*
 * Recorded lengths by hand: the loader reads no more than a length
 * says, and a terminator inside the length still ends the table; a
 * module laid out as 0.3 (ending before the lengths) is read up to its
 * terminator.
 */
START_TEST(module_lengths_and_terminators)
{
	static const struct wymcp_tool two[] = {
		{ .name = "len_a", .description = "a", .run = noop },
		{ .name = "len_b", .description = "b", .run = noop }
	};
	static const struct wymcp_tool term[] = {
		{ .name = "term_a", .description = "a", .run = noop },
		{ .name = NULL },
		{ .name = "term_never", .description = "c", .run = noop }
	};
	static const struct wymcp_tool old[] = {
		{ .name = "old_a", .description = "a", .run = noop },
		{ .name = NULL }
	};
	static const struct wymcp_module m_two = {
	    .abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	    .name = "two", WYMCP_TOOLS(two),
	    .tool_size = sizeof(struct wymcp_tool) };
	static const struct wymcp_module m_term = {
	    .abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	    .name = "term", WYMCP_TOOLS(term),
	    .tool_size = sizeof(struct wymcp_tool) };
	/* 0.3's descriptor ended with the element sizes. */
	static const struct wymcp_module m_old = {
	    .abi = WYMCP_ABI_VERSION,
	    .size = offsetof(struct wymcp_module, server_info),
	    .name = "old", .tools = old, .ntools = 99,
	    .tool_size = sizeof(struct wymcp_tool) };

	ck_assert_uint_eq(m_two.ntools, 2);
	ck_assert_uint_eq(m_term.ntools, 3);
	ck_assert_int_eq(wymcp_server_add_module(srv, &m_two), WYMCP_OK);
	ck_assert_int_eq(wymcp_server_add_module(srv, &m_term), WYMCP_OK);
	/* Its ntools lies beyond its size: never read. */
	ck_assert_int_eq(wymcp_server_add_module(srv, &m_old), WYMCP_OK);
	ck_assert_str_eq(names(), "len_a len_b term_a old_a");
	ck_assert_str_eq(listed(), "len_a len_b term_a old_a");
}
END_TEST

/*
 * A module built against a later header, whose elements are larger: the
 * library walks every table by the module's own stride.
 */
struct big_tool {
	struct wymcp_tool	 t;
	const char		*later[3];	/* a later header's members */
};
struct big_arg {
	struct wymcp_prompt_arg	 a;
	double			 later;
};
struct big_prompt {
	struct wymcp_prompt	 p;
	long			 later[2];
};
struct big_resource {
	struct wymcp_resource	 r;
	void			*later;
};

static enum wymcp_err
big_get(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_prompt_result *res)
{
	return wymcp_prompt_message(res, "user", wymcp_text(ctx, "hi"));
}

static enum wymcp_err
big_read(struct wymcp_ctx *ctx, const char *uri, struct json_object *vars,
    struct wymcp_resource_result *res)
{
	return wymcp_contents_text(res, NULL, "text/plain", "x");
}

START_TEST(abi_larger_elements_walked_by_their_stride)
{
	static const struct big_tool tools[] = {
		{ .t = { .name = "one", .description = "d", .run = noop },
		  .later = { "x", "y", "z" } },
		{ .t = { .name = "two", .description = "d", .run = noop },
		  .later = { "x", "y", "z" } },
		{ .t = { .name = NULL } }
	};
	static const struct big_arg args[] = {
		{ .a = { .name = "a1", .required = 1 }, .later = 1.5 },
		{ .a = { .name = "a2" }, .later = 2.5 },
		{ .a = { .name = NULL } }
	};
	static const struct big_prompt prompts[] = {
		{ .p = { .name = "p1", .description = "d",
		    .args = &args[0].a, .get = big_get }, .later = { 1, 2 } },
		{ .p = { .name = "p2", .description = "d", .get = big_get } },
		{ .p = { .name = NULL } }
	};
	static const struct big_resource resources[] = {
		{ .r = { .uri = "test://one", .name = "one",
		    .read = big_read }, .later = (void *)1 },
		{ .r = { .uri = "test://two", .name = "two",
		    .read = big_read }, .later = (void *)1 },
		{ .r = { .uri = NULL } }
	};
	static const struct wymcp_module big = { .abi = WYMCP_ABI_VERSION,
	    .size = sizeof(struct wymcp_module), .name = "big",
	    .tools = &tools[0].t, .resources = &resources[0].r,
	    .prompts = &prompts[0].p,
	    .tool_size = sizeof(struct big_tool),
	    .resource_size = sizeof(struct big_resource),
	    .prompt_size = sizeof(struct big_prompt),
	    .prompt_arg_size = sizeof(struct big_arg) };
	struct json_object	*a;

	ck_assert_msg(wymcp_server_add_module(srv, &big) == WYMCP_OK, "%s",
	    wymcp_server_errmsg(srv));
	ck_assert_str_eq(names(), "one two");
	ck_assert_str_eq(listed(), "one two");
	/* The copy each registration keeps is this header's element. */
	ck_assert_str_eq(srv->tools[1].decl.name, "two");
	ck_assert_ptr_eq(srv->tools[1].decl.run, noop);
	ck_assert_ptr_eq(srv->tools[1].def, &tools[1].t);
	ck_assert_uint_eq(srv->nprompts, 2);
	ck_assert_str_eq(srv->prompts[1].def->name, "p2");
	ck_assert(json_object_object_get_ex(srv->prompts[0].listing,
	    "arguments", &a));
	ck_assert_uint_eq(json_object_array_length(a), 2);
	ck_assert_str_eq(json_object_get_string(json_object_object_get(
	    json_object_array_get_idx(a, 1), "name")), "a2");
	ck_assert_int_eq(WYMCP__PROMPT_ARG(&srv->prompts[0], 1)->required,
	    0);
	ck_assert_uint_eq(srv->nresources, 2);
	ck_assert_str_eq(srv->resources[1].def->uri, "test://two");
}
END_TEST

/*
 * ABI: a module built against a header without the 0.3 member scopes
 * (tool_size is the 0.2 element size).  Its elements are packed at
 * that stride, so the bytes where a later header has scopes are the
 * next element's name: the registration's copy must read scopes as
 * NULL, the tools must be listed and callable without WYMCP_SCOPES.
 */
START_TEST(abi_tool_without_scopes_needs_none)
{
	static const struct wymcp__tool_0_2 old[] = {
		{ .name = "one", .description = "d", .run = noop },
		{ .name = "two", .description = "d", .run = noop },
		{ .name = NULL }
	};
	static const struct wymcp_module mod = { .abi = WYMCP_ABI_VERSION,
	    .size = sizeof(struct wymcp_module), .name = "noscopes",
	    .tools = (const struct wymcp_tool *)(const void *)old,
	    .tool_size = sizeof(struct wymcp__tool_0_2) };
	struct h_resp	 r;
	const char	*wrong;

	ck_assert_msg(wymcp_server_add_module(srv, &mod) == WYMCP_OK, "%s",
	    wymcp_server_errmsg(srv));
	ck_assert_ptr_null(srv->tools[0].decl.scopes);
	ck_assert_ptr_null(srv->tools[1].decl.scopes);
	/* What the element's def would wrongly give at this header's size. */
	memcpy(&wrong, (const char *)old + offsetof(struct wymcp_tool,
	    scopes), sizeof(wrong));
	ck_assert_str_eq(wrong, "two");
	ck_assert_str_eq(listed(), "one two");
	memset(&r, 0, sizeof(r));
	ck_assert_int_eq(h_call(srv, "tools/call", "one", "{\"name\":"
	    "\"one\"}", NULL, &r), WYMCP_OK);
	ck_assert_int_eq(r.status, 200);
	ck_assert_int_eq(h_code(&r), 0);
	h_free(&r);
}
END_TEST

/* Elements smaller than any header ever had are refused. */
START_TEST(abi_smaller_elements_refused)
{
	static const struct wymcp_module small = { .abi = WYMCP_ABI_VERSION,
	    .size = sizeof(struct wymcp_module), .name = "small",
	    .tools = good_tools,
	    .tool_size = WYMCP__TOOL_SIZE_0_2 - sizeof(void *) };

	ck_assert_int_eq(wymcp_server_add_module(srv, &small),
	    WYMCP_ERR_MODULE);
	expect_errmsg("smaller");
	ck_assert_uint_eq(srv->ntools, 0);
}
END_TEST

/*
 * A tool with annotations and an output schema whose x-mcp-header is
 * refused: the module is refused with a message naming the tool (the
 * loader used to put the annotations twice and abort).
 */
START_TEST(annotated_tool_with_bad_x_mcp_header_refused)
{
	struct wymcp_tool	 t = { .name = "annotated",
	    .description = "d", .run = noop,
	    .input_schema = "{\"type\":\"object\",\"properties\":{\"q\":"
	    "{\"type\":\"string\",\"x-mcp-header\":\"bad name\"}}}",
	    .output_schema = "{\"type\":\"object\"}",
	    .annotations = "{\"readOnlyHint\":true}" };

	reject(&t, WYMCP_ERR_SCHEMA, "annotated");
}
END_TEST

/* The name index built at load finds every tool, and only by its name. */
START_TEST(tool_index_finds_every_tool)
{
	static struct wymcp_tool	 tab[301];
	static char			 nm[300][8];
	struct wymcp_module		 mod = { .abi = WYMCP_ABI_VERSION,
	    .size = sizeof(struct wymcp_module), .name = "many",
	    .tools = tab,
	    .tool_size = sizeof(struct wymcp_tool) };
	size_t				 i;

	memset(tab, 0, sizeof(tab));
	for (i = 0; i < 300; i++) {
		snprintf(nm[i], sizeof(nm[i]), "t%03zu", i);
		tab[i].name = nm[i];
		tab[i].description = "d";
		tab[i].run = noop;
	}
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod), WYMCP_OK);
	ck_assert_uint_ge(srv->nindex, 600);
	for (i = 0; i < 300; i++)
		ck_assert_ptr_eq(wymcp__tool_lookup(srv, nm[i],
		    strlen(nm[i])), &srv->tools[i]);
	ck_assert_ptr_null(wymcp__tool_lookup(srv, "t300", 4));
	ck_assert_ptr_null(wymcp__tool_lookup(srv, "t00", 3));
	ck_assert_ptr_null(wymcp__tool_lookup(srv, "t0001", 5));
	/* A prefix of a longer word names the tool of that length only. */
	ck_assert_ptr_eq(wymcp__tool_lookup(srv, "t001 t002", 4),
	    &srv->tools[1]);
	ck_assert_ptr_eq(srv->all[299], &srv->tools[299]);
	/* A second module extends the index and the array. */
	ck_assert_int_eq(wymcp_server_add_module(srv, &good_mod), WYMCP_OK);
	ck_assert_ptr_eq(wymcp__tool_lookup(srv, "good", 4),
	    &srv->tools[300]);
	ck_assert_ptr_eq(wymcp__tool_lookup(srv, "t150", 4),
	    &srv->tools[150]);
}
END_TEST

/*
 * Duplicates in a large table: found through the hash tables of the
 * load (the module's names so far, the index of the registered ones),
 * with the messages a scan gave, and nothing registered.
 */
START_TEST(duplicates_among_many_tools_are_dup)
{
	static struct wymcp_tool	 tab[3001], two[3];
	static char			 nm[3000][8];
	struct wymcp_module		 mod = { .abi = WYMCP_ABI_VERSION,
	    .size = sizeof(struct wymcp_module), .name = "many",
	    .tools = tab,
	    .tool_size = sizeof(struct wymcp_tool) };
	struct wymcp_module		 more = { .abi = WYMCP_ABI_VERSION,
	    .size = sizeof(struct wymcp_module), .name = "more",
	    .tools = two,
	    .tool_size = sizeof(struct wymcp_tool) };
	size_t				 i;

	memset(tab, 0, sizeof(tab));
	for (i = 0; i < 3000; i++) {
		snprintf(nm[i], sizeof(nm[i]), "t%04zu", i);
		tab[i].name = nm[i];
		tab[i].description = "d";
		tab[i].run = noop;
	}
	/* The last tool has the name of one in the middle. */
	tab[2999].name = nm[1234];
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod), WYMCP_ERR_DUP);
	expect_errmsg("module many: tool t1234 is declared twice");
	ck_assert_uint_eq(srv->ntools, 0);
	ck_assert_uint_eq(srv->nmods, 0);
	tab[2999].name = nm[2999];
	ck_assert_int_eq(wymcp_server_add_module(srv, &mod), WYMCP_OK);
	ck_assert_uint_eq(srv->ntools, 3000);
	/* A second module: its second tool is registered already. */
	memset(two, 0, sizeof(two));
	two[0].name = "fresh";
	two[1].name = "t2000";
	two[0].description = two[1].description = "d";
	two[0].run = two[1].run = noop;
	ck_assert_int_eq(wymcp_server_add_module(srv, &more), WYMCP_ERR_DUP);
	expect_errmsg("module more: tool t2000 is already registered");
	ck_assert_uint_eq(srv->ntools, 3000);
	ck_assert_uint_eq(srv->nmods, 1);
	ck_assert_ptr_null(wymcp__tool_lookup(srv, "fresh", 5));
	two[1].name = "t3000";
	ck_assert_int_eq(wymcp_server_add_module(srv, &more), WYMCP_OK);
	ck_assert_ptr_eq(wymcp__tool_lookup(srv, "t3000", 5),
	    &srv->tools[3001]);
}
END_TEST

START_TEST(good_module_after_failures)
{
	struct wymcp_tool	 t = { .name = "x y", .description = "d",
	    .run = noop };

	reject(&t, WYMCP_ERR_INVAL, NULL);
	t.name = "good";
	t.input_schema = "[]";
	reject(&t, WYMCP_ERR_SCHEMA, NULL);
	ck_assert_int_eq(wymcp_server_add_module(srv, &good_mod), WYMCP_OK);
	ck_assert_str_eq(listed(), "good good.two-3_x");
}
END_TEST

START_TEST(allow_origin_validation)
{
	ck_assert_int_eq(wymcp_server_allow_origin(srv,
	    "https://mcp.example.com/mcp"), WYMCP_ERR_INVAL);
	expect_errmsg("no path");
	ck_assert_int_eq(wymcp_server_allow_origin(srv,
	    "https://mcp.example.com/"), WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_server_allow_origin(srv, "https://"),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_server_allow_origin(srv, "https://[::1"),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_server_allow_origin(srv, ""),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_server_allow_origin(srv, NULL),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_server_allow_origin(srv, "a b"),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_server_allow_origin(srv, "caf\xc3\xa9"),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_server_allow_origin(srv, "a\tb"),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_server_allow_origin(NULL, "a"),
	    WYMCP_ERR_INVAL);
	ck_assert_uint_eq(srv->norigins, 0);
}
END_TEST

START_TEST(allow_origin_forms)
{
	ck_assert_int_eq(wymcp_server_allow_origin(srv,
	    "https://MCP.Example.com:8443"), WYMCP_OK);
	ck_assert_int_eq(wymcp_server_allow_origin(srv, "Bare.Example"),
	    WYMCP_OK);
	ck_assert_int_eq(wymcp_server_allow_origin(srv, "http://[::2]:80"),
	    WYMCP_OK);
	ck_assert_uint_eq(srv->norigins, 3);
	ck_assert_str_eq(srv->origins[0].origin,
	    "https://MCP.Example.com:8443");
	ck_assert_str_eq(srv->origins[0].host, "mcp.example.com");
	ck_assert_ptr_null(srv->origins[1].origin);
	ck_assert_str_eq(srv->origins[1].host, "bare.example");
	ck_assert_str_eq(srv->origins[2].host, "[::2]");
	ck_assert_int_eq(wymcp__host_allowed(srv, "[::2]:80", NULL), 1);
	ck_assert_int_eq(wymcp__origin_allowed(srv,
	    "https://mcp.example.com:8443", NULL), 1);
}
END_TEST

START_TEST(server_config_null_safe)
{
	ck_assert_str_eq(wymcp_server_errmsg(NULL), "no server");
	ck_assert_ptr_nonnull(wymcp_server_errmsg(srv));
	wymcp_server_set_max_body(NULL, 10);
	wymcp_server_set_log(NULL, NULL, NULL, 7);
	wymcp_server_free(NULL);
	wymcp_server_set_max_body(srv, 10);
	ck_assert_uint_eq(srv->max_body, 10);
}
END_TEST

static Suite *
module_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("module");
	tc = tcase_create("load");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, load_testmod);
	tcase_add_test(tc, load_bundled_modules);
	tcase_add_test(tc, load_same_module_twice_is_dup);
	tcase_add_test(tc, digests_at_load_or_on_first_use);
	tcase_add_test(tc, catalogue_changes);
	tcase_add_test(tc, load_missing_file_is_module_error);
	tcase_add_test(tc, load_without_symbol_is_module_error);
	tcase_add_test(tc, load_not_a_shared_object_is_module_error);
	tcase_add_test(tc, load_null_arguments_are_inval);
	suite_add_tcase(s, tc);

	tc = tcase_create("register");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, add_static_module);
	tcase_add_test(tc, add_empty_module);
	tcase_add_test(tc, tool_name_rules);
	tcase_add_test(tc, bad_name_rejected_atomically);
	tcase_add_test(tc, missing_description_rejected_atomically);
	tcase_add_test(tc, missing_run_rejected_atomically);
	tcase_add_test(tc, invalid_schema_json_rejected_atomically);
	tcase_add_test(tc, schema_not_object_rejected_atomically);
	tcase_add_test(tc, schema_root_type_not_object_rejected_atomically);
	tcase_add_test(tc, other_json_members_rejected_atomically);
	tcase_add_test(tc, duplicate_within_module_is_dup);
	tcase_add_test(tc, duplicate_across_modules_is_dup);
	tcase_add_test(tc, wrong_abi_rejected);
	tcase_add_test(tc, abi_module_of_0_2_walked_by_0_2_sizes);
	tcase_add_test(tc, abi_task_support_read_from_decl);
	tcase_add_test(tc, abi_larger_elements_walked_by_their_stride);
	tcase_add_test(tc, abi_tool_without_scopes_needs_none);
	tcase_add_test(tc, abi_smaller_elements_refused);
	tcase_add_test(tc, tool_index_finds_every_tool);
	tcase_add_test(tc, duplicates_among_many_tools_are_dup);
	tcase_add_test(tc, annotated_tool_with_bad_x_mcp_header_refused);
	tcase_add_test(tc, good_module_after_failures);
	tcase_add_test(tc, module_without_terminators);
	tcase_add_test(tc, module_lengths_and_terminators);
	suite_add_tcase(s, tc);

	tc = tcase_create("server");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, allow_origin_validation);
	tcase_add_test(tc, allow_origin_forms);
	tcase_add_test(tc, server_config_null_safe);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	sr = srunner_create(module_suite());
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
