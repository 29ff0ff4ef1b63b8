/*
 * check_list.c - pagination, cache hints and capability gating of the
 * list methods
 *
 * tools/list, resources/list, resources/templates/list and prompts/list
 * (server/utilities/pagination.mdx, server/utilities/caching.mdx), served
 * in-process through wymcp_server_serve() with static modules.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <sodium.h>

#include "testing/testing.h"
#include "harness.h"

static struct wymcp_server	*srv;
static struct h_resp		 resp;

/* Tool, resource, template and prompt bodies: never reached here. */
static enum wymcp_err
run_ok(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_result *res)
{
	return wymcp_result_add(res, wymcp_text(ctx, "ok"));
}

static enum wymcp_err
read_ok(struct wymcp_ctx *ctx, const char *uri, struct json_object *vars,
    struct wymcp_resource_result *res)
{
	return wymcp_contents_text(res, NULL, "text/plain", "ok");
}

static enum wymcp_err
get_ok(struct wymcp_ctx *ctx, struct json_object *args,
    struct wymcp_prompt_result *res)
{
	return wymcp_prompt_message(res, "user", wymcp_text(ctx, "ok"));
}

#define TOOL(n)	{ .name = (n), .description = "Tool " n ".", .run = run_ok }
#define RES(u)	{ .uri = (u), .name = (u), .read = read_ok }
#define PROMPT(n) { .name = (n), .description = "Prompt " n ".", \
	.get = get_ok }

static const struct wymcp_tool tools_a[] = {
	TOOL("t1"), TOOL("t2"), TOOL("t3"), { .name = NULL }
};
static const struct wymcp_tool tools_b[] = {
	TOOL("t4"), TOOL("t5"), { .name = NULL }
};
static const struct wymcp_resource res_a[] = {
	RES("test://r1"), RES("test://r2"), RES("test://r3"), { .uri = NULL }
};
static const struct wymcp_resource res_b[] = {
	RES("test://r4"), RES("test://r5"), { .uri = NULL }
};
static const struct wymcp_resource tpl_a[] = {
	RES("test://a/{x}"), RES("test://b/{x}"), RES("test://c/{x}"),
	{ .uri = NULL }
};
static const struct wymcp_resource tpl_b[] = {
	RES("test://d/{x}"), RES("test://e/{x}"), { .uri = NULL }
};
static const struct wymcp_prompt prompts_a[] = {
	PROMPT("p1"), PROMPT("p2"), PROMPT("p3"), { .name = NULL }
};
static const struct wymcp_prompt prompts_b[] = {
	PROMPT("p4"), PROMPT("p5"), { .name = NULL }
};

/* Module A: default hints (ttl_ms 0 means 300000, public). */
static const struct wymcp_module mod_a = {
	.resource_size = sizeof(struct wymcp_resource),
	.prompt_size = sizeof(struct wymcp_prompt),
	.prompt_arg_size = sizeof(struct wymcp_prompt_arg),
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "a", .tools = tools_a, .resources = res_a,
	.tool_size = sizeof(struct wymcp_tool),
	.templates = tpl_a, .prompts = prompts_a
};
/* Module B: a shorter ttl. */
static const struct wymcp_module mod_b = {
	.resource_size = sizeof(struct wymcp_resource),
	.prompt_size = sizeof(struct wymcp_prompt),
	.prompt_arg_size = sizeof(struct wymcp_prompt_arg),
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "b", .tools = tools_b, .resources = res_b,
	.tool_size = sizeof(struct wymcp_tool),
	.templates = tpl_b, .prompts = prompts_b, .ttl_ms = 60000
};
/* Module B again, but private and with a negative ttl (0). */
static const struct wymcp_module mod_b_private = {
	.resource_size = sizeof(struct wymcp_resource),
	.prompt_size = sizeof(struct wymcp_prompt),
	.prompt_arg_size = sizeof(struct wymcp_prompt_arg),
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "b", .tools = tools_b, .resources = res_b,
	.tool_size = sizeof(struct wymcp_tool),
	.templates = tpl_b, .prompts = prompts_b, .ttl_ms = -5,
	.private_cache = 1
};
/* Module B with a ttl above the default: the smallest still wins. */
static const struct wymcp_module mod_b_long = {
	.resource_size = sizeof(struct wymcp_resource),
	.prompt_size = sizeof(struct wymcp_prompt),
	.prompt_arg_size = sizeof(struct wymcp_prompt_arg),
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "b", .tools = tools_b, .resources = res_b,
	.tool_size = sizeof(struct wymcp_tool),
	.templates = tpl_b, .prompts = prompts_b, .ttl_ms = 3600000
};
/* Tools only. */
static const struct wymcp_module mod_tools = {
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "tools", .tools = tools_a,
	.tool_size = sizeof(struct wymcp_tool)
};
/*
 * A module built before ttl_ms existed: its size ends before the
 * member, so the value there is never read.
 */
static const struct wymcp_module mod_old = {
	.abi = WYMCP_ABI_VERSION,
	.size = offsetof(struct wymcp_module, ttl_ms),
	.name = "old", .tools = tools_b, .ttl_ms = 5, .private_cache = 1,
	.tool_size = sizeof(struct wymcp_tool)
};

static void
setup(void)
{
	memset(&resp, 0, sizeof(resp));
	srv = wymcp_server_new();
	ck_assert_ptr_nonnull(srv);
}

static void
teardown(void)
{
	h_free(&resp);
	wymcp_server_free(srv);
	srv = NULL;
}

static void
add(const struct wymcp_module *m)
{
	ck_assert_msg(wymcp_server_add_module(srv, m) == WYMCP_OK, "%s",
	    wymcp_server_errmsg(srv));
}

static void
call(const char *method, const char *params, const char *const *extra)
{
	h_free(&resp);
	ck_assert_int_eq(h_call(srv, method, NULL, params, extra, &resp),
	    WYMCP_OK);
	ck_assert_ptr_nonnull(resp.headers);
}

static struct json_object *
expect_result(void)
{
	ck_assert_msg(resp.status == 200, "status %d: %s", resp.status,
	    resp.body);
	ck_assert_msg(h_result(&resp) != NULL, "no result: %s", resp.body);
	return h_result(&resp);
}

static void
expect_error(int status, int code, const char *message)
{
	ck_assert_msg(resp.status == status, "status %d, want %d: %s",
	    resp.status, status, resp.body);
	ck_assert_msg(h_code(&resp) == code, "code %d, want %d: %s",
	    h_code(&resp), code, resp.body);
	ck_assert_ptr_null(h_result(&resp));
	if (message != NULL)
		ck_assert_str_eq(json_object_get_string(h_jp(resp.json, "error",
		    "message", NULL)), message);
}

/* Call a list method with a cursor (NULL: none). */
static void
list(const char *method, const char *cursor, const char *const *extra)
{
	char	 params[1024];

	if (cursor == NULL)
		call(method, NULL, extra);
	else {
		snprintf(params, sizeof(params), "{\"cursor\":\"%s\"}",
		    cursor);
		call(method, params, extra);
	}
}

/*
 * The key an entry of `member` is known by: tools and prompts have a
 * name, resources a uri, templates a uriTemplate.
 */
static const char *
entry_key(const char *member, struct json_object *e)
{
	const char	*k = "name";

	if (strcmp(member, "resources") == 0)
		k = "uri";
	else if (strcmp(member, "resourceTemplates") == 0)
		k = "uriTemplate";
	return json_object_get_string(h_jp(e, k, NULL));
}

/*
 * Page through a whole list and check the rules every page obeys:
 * nextCursor only when more remain (a string), at most `ps` entries a
 * page, the same cacheScope on every page.  Returns the keys joined by
 * ' ' and the number of pages in *npages; *scope and *ttl of the first
 * page.
 */
static const char *
walk(const char *method, const char *member, size_t ps,
    const char *const *extra, int *npages, char *scope, int64_t *ttl)
{
	static char		 buf[2048];
	char			 cursor[512];
	struct json_object	*r, *arr, *next;
	size_t			 off = 0, i;
	int			 more;

	buf[0] = '\0';
	*npages = 0;
	cursor[0] = '\0';
	do {
		list(method, *npages == 0 ? NULL : cursor, extra);
		r = expect_result();
		arr = h_jp(r, member, NULL);
		ck_assert_msg(json_object_is_type(arr, json_type_array), "%s",
		    resp.body);
		ck_assert_uint_le(json_object_array_length(arr), ps);
		ck_assert_str_eq(json_object_get_string(h_jp(r, "resultType",
		    NULL)), "complete");
		ck_assert(json_object_is_type(h_jp(r, "ttlMs", NULL),
		    json_type_int));
		ck_assert_int_ge(json_object_get_int64(h_jp(r, "ttlMs", NULL)),
		    0);
		if (*npages == 0) {
			snprintf(scope, 16, "%s", json_object_get_string(
			    h_jp(r, "cacheScope", NULL)));
			*ttl = json_object_get_int64(h_jp(r, "ttlMs", NULL));
		} else {
			ck_assert_str_eq(json_object_get_string(h_jp(r,
			    "cacheScope", NULL)), scope);
			ck_assert_int_eq(json_object_get_int64(h_jp(r, "ttlMs",
			    NULL)), *ttl);
		}
		for (i = 0; i < json_object_array_length(arr); i++)
			off += (size_t)snprintf(buf + off, sizeof(buf) - off,
			    "%s%s", off > 0 ? " " : "", entry_key(member,
			    json_object_array_get_idx(arr, i)));
		next = h_jp(r, "nextCursor", NULL);
		more = json_object_object_get_ex(r, "nextCursor", NULL);
		if (more) {
			ck_assert(json_object_is_type(next, json_type_string));
			ck_assert_uint_gt(strlen(json_object_get_string(next)),
			    0);
			/* A page that is not the last is a full one. */
			ck_assert_uint_eq(json_object_array_length(arr), ps);
			snprintf(cursor, sizeof(cursor), "%s",
			    json_object_get_string(next));
		}
		(*npages)++;
		ck_assert_int_lt(*npages, 50);
	} while (more);
	return buf;
}

/* The nextCursor of the response (copied), or NULL. */
static char *
next_cursor(void)
{
	struct json_object	*n;
	static char		 buf[512];

	if ((n = h_jp(expect_result(), "nextCursor", NULL)) == NULL)
		return NULL;
	snprintf(buf, sizeof(buf), "%s", json_object_get_string(n));
	return buf;
}

/* base64url (no padding) of a text, for hand-made cursors. */
static const char *
b64url(const char *text)
{
	static char	 buf[512];

	ck_assert_int_eq(sodium_init() < 0, 0);
	sodium_bin2base64(buf, sizeof(buf), (const unsigned char *)text,
	    strlen(text), sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	return buf;
}

/* The text inside a cursor. */
static const char *
unb64url(const char *tok)
{
	static char	 buf[512];
	size_t		 n;

	ck_assert_int_eq(sodium_base642bin((unsigned char *)buf,
	    sizeof(buf) - 1, tok, strlen(tok), NULL, &n, NULL,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING), 0);
	buf[n] = '\0';
	return buf;
}

/* Every list, page size 2: each entry once, in order, 3 pages. */
START_TEST(page_size_2_lists_every_entry_once_in_order)
{
	static const struct {
		const char	*method, *member, *want;
	} lists[] = {
		{ "tools/list", "tools", "t1 t2 t3 t4 t5" },
		{ "resources/list", "resources",
		    "test://r1 test://r2 test://r3 test://r4 test://r5" },
		{ "resources/templates/list", "resourceTemplates",
		    "test://a/{x} test://b/{x} test://c/{x} test://d/{x} "
		    "test://e/{x}" },
		{ "prompts/list", "prompts", "p1 p2 p3 p4 p5" },
	};
	char		 scope[16];
	int64_t		 ttl;
	int		 npages;
	size_t		 i;

	add(&mod_a);
	add(&mod_b);
	wymcp_server_set_page_size(srv, 2);
	for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		ck_assert_str_eq(walk(lists[i].method, lists[i].member, 2,
		    NULL, &npages, scope, &ttl), lists[i].want);
		ck_assert_int_eq(npages, 3);
		ck_assert_str_eq(scope, "public");
	}
}
END_TEST

/* A list that fits exactly in pages has no empty last page. */
START_TEST(exact_multiple_has_no_empty_last_page)
{
	char		 scope[16];
	int64_t		 ttl;
	int		 npages;

	add(&mod_b);
	wymcp_server_set_page_size(srv, 2);
	ck_assert_str_eq(walk("tools/list", "tools", 2, NULL, &npages, scope,
	    &ttl), "t4 t5");
	ck_assert_int_eq(npages, 1);
	wymcp_server_set_page_size(srv, 1);
	ck_assert_str_eq(walk("prompts/list", "prompts", 1, NULL, &npages,
	    scope, &ttl), "p4 p5");
	ck_assert_int_eq(npages, 2);
}
END_TEST

/* The default page size (0 set) is 100: five entries, one page. */
START_TEST(default_page_size_is_one_page)
{
	add(&mod_a);
	add(&mod_b);
	wymcp_server_set_page_size(srv, 0);
	list("resources/list", NULL, NULL);
	ck_assert_uint_eq(json_object_array_length(h_jp(expect_result(),
	    "resources", NULL)), 5);
	ck_assert_ptr_null(h_jp(h_result(&resp), "nextCursor", NULL));
	ck_assert(!json_object_object_get_ex(h_result(&resp), "nextCursor",
	    NULL));
}
END_TEST

/* An authenticated tools/list is private on every page. */
START_TEST(all_pages_share_the_cache_scope)
{
	const char *const	 user[] = { "REMOTE_USER=alice", NULL };
	char			 scope[16];
	int64_t			 ttl;
	int			 npages;

	add(&mod_a);
	add(&mod_b);
	wymcp_server_set_page_size(srv, 2);
	ck_assert_str_eq(walk("tools/list", "tools", 2, user, &npages, scope,
	    &ttl), "t1 t2 t3 t4 t5");
	ck_assert_str_eq(scope, "private");
	/* Resources do not follow the principal: public on every page. */
	walk("resources/list", "resources", 2, user, &npages, scope, &ttl);
	ck_assert_str_eq(scope, "public");
}
END_TEST

/* A cursor altered in any way, or from another list, is -32602. */
START_TEST(tampered_cursor_is_32602)
{
	char	 cur[512], bad[512], text[512], id[17];

	add(&mod_a);
	add(&mod_b);
	wymcp_server_set_page_size(srv, 2);
	list("tools/list", NULL, NULL);
	snprintf(cur, sizeof(cur), "%s", next_cursor());
	/* Opaque, but this is what wymcp puts in it (list.c). */
	snprintf(text, sizeof(text), "%s", unb64url(cur));
	ck_assert_msg(strncmp(text, "1:tools:2:", 10) == 0 &&
	    strlen(text) == 10 + 16, "%s", text);
	memcpy(id, text + 10, 16);
	id[16] = '\0';

	/* One character changed. */
	snprintf(bad, sizeof(bad), "%s", cur);
	bad[3] = bad[3] == 'A' ? 'B' : 'A';
	list("tools/list", bad, NULL);
	expect_error(200, WYMCP__INVALID_PARAMS, "Invalid cursor");
	/* Not base64url at all. */
	list("tools/list", "!!!", NULL);
	expect_error(200, WYMCP__INVALID_PARAMS, "Invalid cursor");
	/* Another list's cursor. */
	list("prompts/list", cur, NULL);
	expect_error(200, WYMCP__INVALID_PARAMS, "Invalid cursor");
	/* Offsets wymcp never issues: 0, past the end, other spellings. */
	snprintf(bad, sizeof(bad), "1:tools:0:%s", id);
	list("tools/list", b64url(bad), NULL);
	expect_error(200, WYMCP__INVALID_PARAMS, "Invalid cursor");
	snprintf(bad, sizeof(bad), "1:tools:5:%s", id);
	list("tools/list", b64url(bad), NULL);
	expect_error(200, WYMCP__INVALID_PARAMS, "Invalid cursor");
	snprintf(bad, sizeof(bad), "1:tools:02:%s", id);
	list("tools/list", b64url(bad), NULL);
	expect_error(200, WYMCP__INVALID_PARAMS, "Invalid cursor");
	snprintf(bad, sizeof(bad), "2:tools:2:%s", id);
	list("tools/list", b64url(bad), NULL);
	expect_error(200, WYMCP__INVALID_PARAMS, "Invalid cursor");
	snprintf(bad, sizeof(bad), "1:tools:2:%.15s0", id);
	if (strcmp(bad + 10, id) == 0)
		bad[strlen(bad) - 1] = '1';
	list("tools/list", b64url(bad), NULL);
	expect_error(200, WYMCP__INVALID_PARAMS, "Invalid cursor");
	/* The same text, well-formed, is taken: the cursor is a position. */
	snprintf(bad, sizeof(bad), "1:tools:4:%s", id);
	list("tools/list", b64url(bad), NULL);
	ck_assert_str_eq(entry_key("tools", json_object_array_get_idx(
	    h_jp(expect_result(), "tools", NULL), 0)), "t5");
	/* The real one still works. */
	list("tools/list", cur, NULL);
	ck_assert_str_eq(entry_key("tools", json_object_array_get_idx(
	    h_jp(expect_result(), "tools", NULL), 0)), "t3");
}
END_TEST

/*
 * "" is a cursor wymcp never issues, so it is refused; a non-string is
 * refused; null reads as no cursor.
 */
START_TEST(empty_and_non_string_cursors)
{
	add(&mod_a);
	list("resources/list", "", NULL);
	expect_error(200, WYMCP__INVALID_PARAMS, "Invalid cursor");
	call("resources/list", "{\"cursor\":2}", NULL);
	expect_error(200, WYMCP__INVALID_PARAMS, "Invalid cursor");
	call("tools/list", "{\"cursor\":{}}", NULL);
	expect_error(200, WYMCP__INVALID_PARAMS, "Invalid cursor");
	call("prompts/list", "{\"cursor\":null}", NULL);
	ck_assert_uint_eq(json_object_array_length(h_jp(expect_result(),
	    "prompts", NULL)), 3);
}
END_TEST

/*
 * A cursor names a position in one list: after the registered entries
 * change (another deployment), or for another mount list, it is
 * refused.
 */
START_TEST(foreign_cursor_is_32602)
{
	const char *const	 mount[] = { "WYMCP_TOOLS=t1 t2 t3 t4", NULL };
	struct wymcp_server	*other;
	char			 cur[512];

	add(&mod_a);
	add(&mod_b);
	wymcp_server_set_page_size(srv, 2);
	list("resources/list", NULL, NULL);
	snprintf(cur, sizeof(cur), "%s", next_cursor());

	/* Another server with the modules the other way round. */
	other = srv;
	srv = wymcp_server_new();
	add(&mod_b);
	add(&mod_a);
	wymcp_server_set_page_size(srv, 2);
	list("resources/list", cur, NULL);
	expect_error(200, WYMCP__INVALID_PARAMS, "Invalid cursor");
	/* One with the same modules takes it: no state is kept. */
	wymcp_server_free(srv);
	srv = wymcp_server_new();
	add(&mod_a);
	add(&mod_b);
	wymcp_server_set_page_size(srv, 2);
	list("resources/list", cur, NULL);
	ck_assert_str_eq(entry_key("resources", json_object_array_get_idx(
	    h_jp(expect_result(), "resources", NULL), 0)), "test://r3");
	wymcp_server_free(srv);
	srv = other;

	/* tools/list: the identity is the mount list. */
	list("tools/list", NULL, NULL);
	snprintf(cur, sizeof(cur), "%s", next_cursor());
	list("tools/list", cur, mount);
	expect_error(200, WYMCP__INVALID_PARAMS, "Invalid cursor");
	list("tools/list", cur, NULL);
	expect_result();
}
END_TEST

/*
 * ttlMs is the smallest ttl of the modules a list holds entries of
 * (ttl_ms 0: 300000; negative: 0); one private module makes the list
 * private.
 */
START_TEST(ttl_and_scope_follow_module_hints)
{
	static const char *const methods[] = { "tools/list",
	    "resources/list", "resources/templates/list", "prompts/list" };
	const char *const	 only_a[] = { "WYMCP_TOOLS=t1 t2", NULL };
	struct json_object	*r;
	size_t			 i;

	add(&mod_a);
	for (i = 0; i < 4; i++) {
		call(methods[i], NULL, NULL);
		r = expect_result();
		ck_assert_int_eq(json_object_get_int64(h_jp(r, "ttlMs", NULL)),
		    300000);
		ck_assert_str_eq(json_object_get_string(h_jp(r, "cacheScope",
		    NULL)), "public");
	}
	add(&mod_b);
	for (i = 0; i < 4; i++) {
		call(methods[i], NULL, NULL);
		r = expect_result();
		ck_assert_int_eq(json_object_get_int64(h_jp(r, "ttlMs", NULL)),
		    60000);
		ck_assert_str_eq(json_object_get_string(h_jp(r, "cacheScope",
		    NULL)), "public");
	}
	/* Only module a's tools mounted: module b is not involved. */
	call("tools/list", NULL, only_a);
	ck_assert_int_eq(json_object_get_int64(h_jp(expect_result(), "ttlMs",
	    NULL)), 300000);

	wymcp_server_free(srv);
	srv = wymcp_server_new();
	add(&mod_a);
	add(&mod_b_private);
	for (i = 0; i < 4; i++) {
		call(methods[i], NULL, NULL);
		r = expect_result();
		ck_assert_int_eq(json_object_get_int64(h_jp(r, "ttlMs", NULL)),
		    0);
		ck_assert_str_eq(json_object_get_string(h_jp(r, "cacheScope",
		    NULL)), "private");
	}
	call("tools/list", NULL, only_a);
	r = expect_result();
	ck_assert_int_eq(json_object_get_int64(h_jp(r, "ttlMs", NULL)), 300000);
	ck_assert_str_eq(json_object_get_string(h_jp(r, "cacheScope", NULL)),
	    "public");

	/* A ttl above the default is not cut to it. */
	wymcp_server_free(srv);
	srv = wymcp_server_new();
	add(&mod_b_long);
	for (i = 0; i < 4; i++) {
		call(methods[i], NULL, NULL);
		ck_assert_int_eq(json_object_get_int64(h_jp(expect_result(),
		    "ttlMs", NULL)), 3600000);
	}
}
END_TEST

/* A module built before ttl_ms existed gets the defaults. */
START_TEST(old_module_gets_default_hints)
{
	struct json_object	*r;

	add(&mod_old);
	call("tools/list", NULL, NULL);
	r = expect_result();
	ck_assert_int_eq(json_object_get_int64(h_jp(r, "ttlMs", NULL)), 300000);
	ck_assert_str_eq(json_object_get_string(h_jp(r, "cacheScope", NULL)),
	    "public");
}
END_TEST

/*
 * Capabilities and methods agree: a server with tools only offers no
 * resources, prompts or completions, and their methods are 404 -32601.
 */
START_TEST(nothing_registered_is_404_and_not_advertised)
{
	static const char *const methods[] = { "resources/list",
	    "resources/templates/list", "resources/read", "prompts/list",
	    "prompts/get", "completion/complete" };
	char		 want[128];
	size_t		 i;
	struct json_object *c;

	add(&mod_tools);
	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		h_free(&resp);
		ck_assert_int_eq(h_call(srv, methods[i],
		    strcmp(methods[i], "prompts/get") == 0 ? "x" :
		    strcmp(methods[i], "resources/read") == 0 ? "test://x" :
		    NULL, strcmp(methods[i], "prompts/get") == 0 ?
		    "{\"name\":\"x\"}" : strcmp(methods[i],
		    "resources/read") == 0 ? "{\"uri\":\"test://x\"}" : NULL,
		    NULL, &resp), WYMCP_OK);
		snprintf(want, sizeof(want), "Method not found: %s",
		    methods[i]);
		expect_error(404, WYMCP__METHOD_NOT_FOUND, want);
	}
	call("server/discover", NULL, NULL);
	c = h_jp(expect_result(), "capabilities", NULL);
	ck_assert_ptr_nonnull(h_jp(c, "tools", NULL));
	ck_assert_ptr_null(h_jp(c, "resources", NULL));
	ck_assert_ptr_null(h_jp(c, "prompts", NULL));
	ck_assert_ptr_null(h_jp(c, "completions", NULL));
	/* tools/list itself is always there. */
	call("tools/list", NULL, NULL);
	expect_result();
}
END_TEST

/* Templates alone offer resources (and completions), not prompts. */
static const struct wymcp_module mod_tpl_only = {
	.resource_size = sizeof(struct wymcp_resource),
	.prompt_size = sizeof(struct wymcp_prompt),
	.prompt_arg_size = sizeof(struct wymcp_prompt_arg),
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "tpl", .templates = tpl_b
};
static const struct wymcp_module mod_prompts_only = {
	.resource_size = sizeof(struct wymcp_resource),
	.prompt_size = sizeof(struct wymcp_prompt),
	.prompt_arg_size = sizeof(struct wymcp_prompt_arg),
	.abi = WYMCP_ABI_VERSION, .size = sizeof(struct wymcp_module),
	.name = "pr", .prompts = prompts_b
};

START_TEST(capabilities_follow_what_is_registered)
{
	struct json_object	*c;

	add(&mod_tpl_only);
	call("server/discover", NULL, NULL);
	c = h_jp(expect_result(), "capabilities", NULL);
	ck_assert_ptr_nonnull(h_jp(c, "resources", NULL));
	ck_assert_ptr_nonnull(h_jp(c, "completions", NULL));
	ck_assert_ptr_null(h_jp(c, "prompts", NULL));
	/* resources/list exists, and is empty. */
	call("resources/list", NULL, NULL);
	ck_assert_uint_eq(json_object_array_length(h_jp(expect_result(),
	    "resources", NULL)), 0);
	call("resources/templates/list", NULL, NULL);
	ck_assert_uint_eq(json_object_array_length(h_jp(expect_result(),
	    "resourceTemplates", NULL)), 2);
	call("prompts/list", NULL, NULL);
	expect_error(404, WYMCP__METHOD_NOT_FOUND,
	    "Method not found: prompts/list");
	/* tools/list of a server without tools: empty, with hints. */
	call("tools/list", NULL, NULL);
	ck_assert_uint_eq(json_object_array_length(h_jp(expect_result(),
	    "tools", NULL)), 0);
	ck_assert_int_eq(json_object_get_int64(h_jp(h_result(&resp), "ttlMs",
	    NULL)), 300000);

	wymcp_server_free(srv);
	srv = wymcp_server_new();
	add(&mod_prompts_only);
	call("server/discover", NULL, NULL);
	c = h_jp(expect_result(), "capabilities", NULL);
	ck_assert_ptr_null(h_jp(c, "resources", NULL));
	ck_assert_ptr_nonnull(h_jp(c, "prompts", NULL));
	ck_assert_ptr_nonnull(h_jp(c, "completions", NULL));
	call("resources/list", NULL, NULL);
	expect_error(404, WYMCP__METHOD_NOT_FOUND,
	    "Method not found: resources/list");
	call("prompts/list", NULL, NULL);
	expect_result();
}
END_TEST

static Suite *
list_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("list");
	tc = tcase_create("pagination");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, page_size_2_lists_every_entry_once_in_order);
	tcase_add_test(tc, exact_multiple_has_no_empty_last_page);
	tcase_add_test(tc, default_page_size_is_one_page);
	tcase_add_test(tc, all_pages_share_the_cache_scope);
	tcase_add_test(tc, tampered_cursor_is_32602);
	tcase_add_test(tc, empty_and_non_string_cursors);
	tcase_add_test(tc, foreign_cursor_is_32602);
	suite_add_tcase(s, tc);

	tc = tcase_create("hints");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, ttl_and_scope_follow_module_hints);
	tcase_add_test(tc, old_module_gets_default_hints);
	suite_add_tcase(s, tc);

	tc = tcase_create("gating");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, nothing_registered_is_404_and_not_advertised);
	tcase_add_test(tc, capabilities_follow_what_is_registered);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	sr = srunner_create(list_suite());
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
