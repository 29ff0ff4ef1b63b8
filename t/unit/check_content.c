/* check_content.c - content builders, tool results and error sentences */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "testing/testing.h"

static struct wymcp_server	*srv;
static struct wymcp_ctx		 ctx;
static struct wymcp_result	 res;

static void
setup(void)
{
	srv = wymcp_server_new();
	ck_assert_ptr_nonnull(srv);
	wymcp__ctx_init(&ctx, srv, NULL);
	memset(&res, 0, sizeof(res));
	res.ctx = &ctx;
	res.content = json_object_new_array();
	ck_assert_ptr_nonnull(res.content);
}

static void
teardown(void)
{
	json_object_put(res.content);
	json_object_put(res.structured);
	memset(&res, 0, sizeof(res));
	wymcp__ctx_free(&ctx);
	wymcp_server_free(srv);
	srv = NULL;
}

/* The serialization the tests compare against. */
static const char *
plain(struct json_object *o)
{
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
}

#define ck_json(o, want) do {						\
	struct json_object *ck_o_ = (o);				\
	ck_assert_ptr_nonnull(ck_o_);					\
	ck_assert_str_eq(plain(ck_o_), (want));				\
} while (0)

/* Observes json-c freeing an object. */
static int	 freed;

static void
gone(struct json_object *o, void *arg)
{
	freed++;
}

START_TEST(text_exact_json)
{
	ck_json(wymcp_text(&ctx, "hi"), "{\"type\":\"text\",\"text\":\"hi\"}");
	ck_json(wymcp_text(&ctx, ""), "{\"type\":\"text\",\"text\":\"\"}");
	ck_json(wymcp_text(&ctx, "a\"b\n\xc3\xa9"),
	    "{\"type\":\"text\",\"text\":\"a\\\"b\\n\xc3\xa9\"}");
}
END_TEST

START_TEST(textf_exact_json)
{
	struct json_object	*o;
	const char		*t;
	struct json_object	*v;

	ck_json(wymcp_textf(&ctx, "%s=%d", "n", 42),
	    "{\"type\":\"text\",\"text\":\"n=42\"}");
	/* Longer than the arena's first chunk. */
	o = wymcp_textf(&ctx, "%6000d", 1);
	ck_assert_ptr_nonnull(o);
	ck_assert(json_object_object_get_ex(o, "text", &v));
	t = json_object_get_string(v);
	ck_assert_uint_eq(strlen(t), 6000);
	ck_assert_int_eq(t[5999], '1');
}
END_TEST

START_TEST(json_exact_json)
{
	struct json_object	*v;

	v = json_tokener_parse("{\"a\":[1,2.5,\"x/y\"],\"b\":null,"
	    "\"c\":true}");
	ck_assert_ptr_nonnull(v);
	/* The text holds the compact form with the slash unescaped. */
	ck_json(wymcp_json(&ctx, v), "{\"type\":\"text\",\"text\":"
	    "\"{\\\"a\\\":[1,2.5,\\\"x\\/y\\\"],\\\"b\\\":null,"
	    "\\\"c\\\":true}\"}");
	json_object_put(v);
	ck_json(wymcp_json(&ctx, NULL),
	    "{\"type\":\"text\",\"text\":\"null\"}");
}
END_TEST

START_TEST(json_text_is_compact_without_slash_escapes)
{
	struct json_object	*v, *b, *t;

	v = json_tokener_parse("{ \"u\" : \"a/b\" , \"n\" : [ 1 , 2 ] }");
	ck_assert_ptr_nonnull(v);
	b = wymcp_json(&ctx, v);
	ck_assert_ptr_nonnull(b);
	ck_assert(json_object_object_get_ex(b, "text", &t));
	ck_assert_str_eq(json_object_get_string(t),
	    "{\"u\":\"a/b\",\"n\":[1,2]}");
	json_object_put(v);
}
END_TEST

START_TEST(image_exact_json)
{
	ck_json(wymcp_image(&ctx, "aW1n", "image/png"),
	    "{\"type\":\"image\",\"data\":\"aW1n\","
	    "\"mimeType\":\"image\\/png\"}");
}
END_TEST

START_TEST(audio_exact_json)
{
	ck_json(wymcp_audio(&ctx, "YXVk", "audio/wav"),
	    "{\"type\":\"audio\",\"data\":\"YXVk\","
	    "\"mimeType\":\"audio\\/wav\"}");
}
END_TEST

START_TEST(resource_link_exact_json)
{
	ck_json(wymcp_resource_link(&ctx, "file:///x", "x", "text/plain"),
	    "{\"type\":\"resource_link\",\"uri\":\"file:\\/\\/\\/x\","
	    "\"name\":\"x\",\"mimeType\":\"text\\/plain\"}");
	ck_json(wymcp_resource_link(&ctx, "urn:y", "y", NULL),
	    "{\"type\":\"resource_link\",\"uri\":\"urn:y\",\"name\":\"y\"}");
}
END_TEST

START_TEST(resource_text_exact_json)
{
	ck_json(wymcp_resource_text(&ctx, "urn:t", "text/plain", "body"),
	    "{\"type\":\"resource\",\"resource\":{\"uri\":\"urn:t\","
	    "\"mimeType\":\"text\\/plain\",\"text\":\"body\"}}");
	ck_json(wymcp_resource_text(&ctx, "urn:t", NULL, ""),
	    "{\"type\":\"resource\",\"resource\":{\"uri\":\"urn:t\","
	    "\"text\":\"\"}}");
}
END_TEST

START_TEST(resource_blob_exact_json)
{
	ck_json(wymcp_resource_blob(&ctx, "urn:b", "application/octet-stream",
	    "YmxvYg=="),
	    "{\"type\":\"resource\",\"resource\":{\"uri\":\"urn:b\","
	    "\"mimeType\":\"application\\/octet-stream\","
	    "\"blob\":\"YmxvYg==\"}}");
	ck_json(wymcp_resource_blob(&ctx, "urn:b", NULL, "AA=="),
	    "{\"type\":\"resource\",\"resource\":{\"uri\":\"urn:b\","
	    "\"blob\":\"AA==\"}}");
}
END_TEST

START_TEST(builders_null_arguments_give_null)
{
	ck_assert_ptr_null(wymcp_text(NULL, "x"));
	ck_assert_ptr_null(wymcp_text(&ctx, NULL));
	ck_assert_ptr_null(wymcp_textf(NULL, "x"));
	ck_assert_ptr_null(wymcp_textf(&ctx, NULL));
	ck_assert_ptr_null(wymcp_json(NULL, NULL));
	ck_assert_ptr_null(wymcp_image(NULL, "aW1n", "image/png"));
	ck_assert_ptr_null(wymcp_image(&ctx, NULL, "image/png"));
	ck_assert_ptr_null(wymcp_image(&ctx, "aW1n", NULL));
	ck_assert_ptr_null(wymcp_audio(NULL, "YXVk", "audio/wav"));
	ck_assert_ptr_null(wymcp_audio(&ctx, NULL, "audio/wav"));
	ck_assert_ptr_null(wymcp_audio(&ctx, "YXVk", NULL));
	ck_assert_ptr_null(wymcp_resource_link(NULL, "urn:x", "x", NULL));
	ck_assert_ptr_null(wymcp_resource_link(&ctx, NULL, "x", NULL));
	ck_assert_ptr_null(wymcp_resource_link(&ctx, "urn:x", NULL, NULL));
	ck_assert_ptr_null(wymcp_resource_text(NULL, "urn:x", NULL, "t"));
	ck_assert_ptr_null(wymcp_resource_text(&ctx, NULL, NULL, "t"));
	ck_assert_ptr_null(wymcp_resource_text(&ctx, "urn:x", NULL, NULL));
	ck_assert_ptr_null(wymcp_resource_blob(NULL, "urn:x", NULL, "AA=="));
	ck_assert_ptr_null(wymcp_resource_blob(&ctx, NULL, NULL, "AA=="));
	ck_assert_ptr_null(wymcp_resource_blob(&ctx, "urn:x", NULL, NULL));
	/* A NULL argument registers nothing with the request. */
	ck_assert_ptr_null(ctx.arena.cleanups);
}
END_TEST

START_TEST(builders_blocks_owned_by_request)
{
	struct json_object	*b[3];
	size_t			 i;

	freed = 0;
	b[0] = wymcp_text(&ctx, "t");
	b[1] = wymcp_image(&ctx, "aW1n", "image/png");
	b[2] = wymcp_resource_text(&ctx, "urn:t", NULL, "x");
	for (i = 0; i < 3; i++) {
		ck_assert_ptr_nonnull(b[i]);
		json_object_set_userdata(b[i], NULL, gone);
	}
	ck_assert_int_eq(freed, 0);
	wymcp__ctx_free(&ctx);
	ck_assert_int_eq(freed, 3);
	wymcp__ctx_init(&ctx, srv, NULL);
}
END_TEST

START_TEST(result_add_appends_in_order)
{
	ck_assert_int_eq(wymcp_result_add(&res, wymcp_text(&ctx, "a")),
	    WYMCP_OK);
	ck_assert_int_eq(wymcp_result_add(&res, wymcp_image(&ctx, "aW1n",
	    "image/png")), WYMCP_OK);
	ck_json(res.content, "[{\"type\":\"text\",\"text\":\"a\"},"
	    "{\"type\":\"image\",\"data\":\"aW1n\","
	    "\"mimeType\":\"image\\/png\"}]");
	ck_assert_int_eq(res.is_error, 0);
	ck_assert_ptr_null(res.structured);
}
END_TEST

START_TEST(result_add_keeps_own_reference)
{
	struct json_object	*b;

	freed = 0;
	b = wymcp_text(&ctx, "kept");
	json_object_set_userdata(b, NULL, gone);
	ck_assert_int_eq(wymcp_result_add(&res, b), WYMCP_OK);
	/* The request's reference goes; the result's stays. */
	wymcp__ctx_free(&ctx);
	ck_assert_int_eq(freed, 0);
	ck_json(json_object_array_get_idx(res.content, 0),
	    "{\"type\":\"text\",\"text\":\"kept\"}");
	json_object_put(res.content);
	res.content = NULL;
	ck_assert_int_eq(freed, 1);
	wymcp__ctx_init(&ctx, srv, NULL);
}
END_TEST

START_TEST(result_add_rejects_null_and_non_objects)
{
	struct json_object	*s;

	ck_assert_int_eq(wymcp_result_add(NULL, wymcp_text(&ctx, "x")),
	    WYMCP_ERR_INVAL);
	s = wymcp_own(&ctx, json_object_new_string("not a block"));
	ck_assert_int_eq(wymcp_result_add(&res, s), WYMCP_ERR_INVAL);
	ck_assert_uint_eq(json_object_array_length(res.content), 0);
}
END_TEST

START_TEST(result_add_null_block_is_nomem)
{
	/*
	 * A NULL block is a builder that failed, so a tool can return
	 * wymcp_result_add(res, wymcp_text(...)) and get out of memory.
	 */
	ck_assert_int_eq(wymcp_result_add(&res, NULL), WYMCP_ERR_NOMEM);
	ck_assert_uint_eq(json_object_array_length(res.content), 0);
}
END_TEST

/*
 * A NULL given to a builder is the tool's bug: the builder says which
 * (logged, and kept), wymcp_result_add() and wymcp_prompt_message()
 * answer WYMCP_ERR_INVAL, not out of memory.
 */
START_TEST(result_add_of_a_builder_given_null_is_inval)
{
	ck_assert_ptr_null(ctx.call.builder_null);
	ck_assert_int_eq(wymcp_result_add(&res, wymcp_text(&ctx, NULL)),
	    WYMCP_ERR_INVAL);
	ck_assert_str_eq(ctx.call.builder_null,
	    "wymcp_text(): text is NULL");
	ck_assert_ptr_null(wymcp_resource_link(&ctx, "urn:x", NULL, NULL));
	ck_assert_str_eq(ctx.call.builder_null,
	    "wymcp_resource_link(): the name is NULL");
	ck_assert_ptr_null(wymcp_image(&ctx, "aW1n", NULL));
	ck_assert_str_eq(ctx.call.builder_null,
	    "wymcp_image(): the MIME type is NULL");
	ck_assert_ptr_null(wymcp_resource_blob(&ctx, "urn:x", NULL, NULL));
	ck_assert_str_eq(ctx.call.builder_null,
	    "wymcp_resource_blob(): blob is NULL");
	ck_assert_uint_eq(json_object_array_length(res.content), 0);
}
END_TEST

/* A tool that passes an absent argument to wymcp_text(). */
static enum wymcp_err
null_text_run(struct wymcp_ctx *c, struct json_object *args,
    struct wymcp_result *r)
{
	return wymcp_result_add(r, wymcp_text(c, wymcp_arg_str(args,
	    "city", NULL)));
}

/*
 * Through the call: a tool error saying which builder got the NULL,
 * not "Internal error: out of memory" (which recycles the worker).
 */
START_TEST(tool_giving_a_builder_null_fails_with_the_reason)
{
	static const struct wymcp_tool tool = { .name = "nulltext",
	    .description = "Passes NULL to wymcp_text().",
	    .run = null_text_run };
	struct wymcp_ctx		*c;
	struct wymcp_testing_round	 r;

	ck_assert_ptr_nonnull(c = wymcp_testing_build_context(NULL));
	ck_assert_int_eq(wymcp_testing_run_tool(c, &tool, "{}", &r),
	    WYMCP_OK);
	ck_assert_int_eq(r.kind, WYMCP_TESTING_COMPLETE);
	ck_assert_int_eq(r.rc, WYMCP_ERR_INVAL);
	ck_assert(r.is_error);
	ck_assert_str_eq(r.text, "wymcp_text(): text is NULL");
	ck_assert_int_eq(c->out.nomem, 0);
	wymcp_testing_free_context(c);
}
END_TEST

START_TEST(result_structured_sets_and_replaces)
{
	struct json_object	*a, *b;

	ck_assert_int_eq(wymcp_result_structured(NULL, NULL),
	    WYMCP_ERR_INVAL);
	ck_assert_int_eq(wymcp_result_structured(&res, NULL),
	    WYMCP_ERR_INVAL);
	ck_assert_ptr_null(res.structured);

	freed = 0;
	a = json_tokener_parse("{\"n\":1}");
	json_object_set_userdata(a, NULL, gone);
	b = json_tokener_parse("{\"n\":2}");
	ck_assert_int_eq(wymcp_result_structured(&res, a), WYMCP_OK);
	ck_assert_ptr_eq(res.structured, a);
	/* The result holds its own reference. */
	json_object_put(a);
	ck_assert_int_eq(freed, 0);
	ck_json(res.structured, "{\"n\":1}");
	/* Replacing drops the reference to the old value. */
	ck_assert_int_eq(wymcp_result_structured(&res, b), WYMCP_OK);
	ck_assert_int_eq(freed, 1);
	json_object_put(b);
	ck_json(res.structured, "{\"n\":2}");
	/* structured alone adds no content block here. */
	ck_assert_uint_eq(json_object_array_length(res.content), 0);
	ck_assert_int_eq(res.is_error, 0);
}
END_TEST

START_TEST(result_error_marks_and_appends_text)
{
	ck_assert_int_eq(wymcp_result_add(&res, wymcp_text(&ctx, "first")),
	    WYMCP_OK);
	ck_assert_int_eq(wymcp_result_error(&res, "boom %d", 42),
	    WYMCP_ERR_TOOL);
	ck_assert_int_eq(res.is_error, 1);
	ck_json(res.content, "[{\"type\":\"text\",\"text\":\"first\"},"
	    "{\"type\":\"text\",\"text\":\"boom 42\"}]");
}
END_TEST

START_TEST(result_error_null_arguments)
{
	ck_assert_int_eq(wymcp_result_error(NULL, "x"), WYMCP_ERR_TOOL);
	ck_assert_int_eq(wymcp_result_error(&res, NULL), WYMCP_ERR_TOOL);
	ck_assert_int_eq(res.is_error, 1);
	ck_assert_uint_eq(json_object_array_length(res.content), 0);
}
END_TEST

START_TEST(strerror_every_value_non_empty)
{
	int	 e, k;

	for (e = WYMCP_OK; e < WYMCP_ERR__MAX; e++) {
		ck_assert_ptr_nonnull(wymcp_strerror((enum wymcp_err)e));
		ck_assert_uint_gt(strlen(wymcp_strerror((enum wymcp_err)e)),
		    0);
		ck_assert_str_ne(wymcp_strerror((enum wymcp_err)e),
		    "unknown error");
		/* Each sentence says something different. */
		for (k = WYMCP_OK; k < e; k++)
			ck_assert_str_ne(wymcp_strerror((enum wymcp_err)e),
			    wymcp_strerror((enum wymcp_err)k));
	}
	ck_assert_str_eq(wymcp_strerror(WYMCP_OK), "success");
	ck_assert_str_eq(wymcp_strerror(WYMCP_ERR_NOMEM), "out of memory");
	ck_assert_str_eq(wymcp_strerror(WYMCP_ERR_INVAL), "invalid argument");
}
END_TEST

START_TEST(strerror_out_of_range_is_unknown)
{
	ck_assert_str_eq(wymcp_strerror(WYMCP_ERR__MAX), "unknown error");
	ck_assert_str_eq(wymcp_strerror((enum wymcp_err)(WYMCP_ERR__MAX + 1)),
	    "unknown error");
	ck_assert_str_eq(wymcp_strerror((enum wymcp_err)1000),
	    "unknown error");
	ck_assert_str_eq(wymcp_strerror((enum wymcp_err)-1), "unknown error");
}
END_TEST

static Suite *
content_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("content");
	tc = tcase_create("builders");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, text_exact_json);
	tcase_add_test(tc, textf_exact_json);
	tcase_add_test(tc, json_exact_json);
	tcase_add_test(tc, json_text_is_compact_without_slash_escapes);
	tcase_add_test(tc, image_exact_json);
	tcase_add_test(tc, audio_exact_json);
	tcase_add_test(tc, resource_link_exact_json);
	tcase_add_test(tc, resource_text_exact_json);
	tcase_add_test(tc, resource_blob_exact_json);
	tcase_add_test(tc, builders_null_arguments_give_null);
	tcase_add_test(tc, builders_blocks_owned_by_request);
	suite_add_tcase(s, tc);

	tc = tcase_create("result");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, result_add_appends_in_order);
	tcase_add_test(tc, result_add_keeps_own_reference);
	tcase_add_test(tc, result_add_rejects_null_and_non_objects);
	tcase_add_test(tc, result_add_null_block_is_nomem);
	tcase_add_test(tc, result_add_of_a_builder_given_null_is_inval);
	tcase_add_test(tc, tool_giving_a_builder_null_fails_with_the_reason);
	tcase_add_test(tc, result_structured_sets_and_replaces);
	tcase_add_test(tc, result_error_marks_and_appends_text);
	tcase_add_test(tc, result_error_null_arguments);
	suite_add_tcase(s, tc);

	tc = tcase_create("strerror");
	tcase_add_test(tc, strerror_every_value_non_empty);
	tcase_add_test(tc, strerror_out_of_range_is_unknown);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	sr = srunner_create(content_suite());
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
