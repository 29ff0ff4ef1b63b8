/* check_schema.c - unit tests for the JSON Schema subset (src/schema.c) */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <json-c/json.h>

#include "testing/testing.h"

/* The reason of the last vt() or ct() call. */
static char	 errbuf[256];

/* The MCP conformance schema (elicitation and tool input example). */
static const char *const mcp_schema =
    "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\","
    "\"type\":\"object\",\"$defs\":{\"address\":{\"$anchor\":"
    "\"addressDef\",\"type\":\"object\",\"properties\":{\"street\":"
    "{\"type\":\"string\"},\"city\":{\"type\":\"string\"}}}},"
    "\"properties\":{\"name\":{\"type\":\"string\"},\"address\":"
    "{\"$ref\":\"#/$defs/address\"},\"contactMethod\":{\"type\":"
    "\"string\",\"enum\":[\"phone\",\"email\"]},\"phone\":{\"type\":"
    "\"string\"},\"email\":{\"type\":\"string\"}},\"allOf\":[{\"anyOf\":"
    "[{\"required\":[\"phone\"]},{\"required\":[\"email\"]}]}],\"if\":"
    "{\"properties\":{\"contactMethod\":{\"const\":\"phone\"}},"
    "\"required\":[\"contactMethod\"]},\"then\":{\"required\":"
    "[\"phone\"]},\"else\":{\"required\":[\"email\"]},"
    "\"additionalProperties\":false}";

/*
 * Parse JSON text, failing the test if it is not JSON.  "null" gives
 * NULL, which is json-c's JSON null.
 */
static struct json_object *
parse(const char *text)
{
	struct json_tokener	*tok;
	struct json_object	*o;
	enum json_tokener_error	 e;

	tok = json_tokener_new_ex(1000);
	ck_assert_ptr_nonnull(tok);
	/* The NUL ends a bare number, which could otherwise go on. */
	o = json_tokener_parse_ex(tok, text, (int)strlen(text) + 1);
	e = json_tokener_get_error(tok);
	json_tokener_free(tok);
	ck_assert_msg(e == json_tokener_success, "bad test JSON: %s", text);
	return o;
}

/*
 * Validate instance text against schema text; the reason is in errbuf.
 */
static int
vt(const char *schema, const char *instance)
{
	struct json_object	*s, *i;
	int			 rc;

	s = parse(schema);
	i = parse(instance);
	memset(errbuf, 'X', sizeof(errbuf));
	rc = wymcp__schema_validate(s, i, errbuf, sizeof(errbuf));
	ck_assert_int_ge(rc, -1);
	ck_assert_int_le(rc, 1);
	ck_assert_uint_lt(strlen(errbuf), sizeof(errbuf));
	if (rc == 1)
		ck_assert_str_eq(errbuf, "");
	else
		ck_assert_str_ne(errbuf, "");
	json_object_put(s);
	json_object_put(i);
	return rc;
}

/*
 * Load-check schema text; the reason is in errbuf.
 */
static int
ct(const char *schema)
{
	struct json_object	*s;
	int			 rc;

	s = parse(schema);
	memset(errbuf, 'X', sizeof(errbuf));
	rc = wymcp__schema_check(s, errbuf, sizeof(errbuf));
	ck_assert_uint_lt(strlen(errbuf), sizeof(errbuf));
	json_object_put(s);
	return rc;
}

/*
 * Build n nested arrays around a core: "[[[...core...]]]".
 */
static char *
nest(const char *open, const char *core, const char *close, int n)
{
	size_t	 lo, lc, lk, i;
	char	*s, *p;

	lo = strlen(open);
	lc = strlen(close);
	lk = strlen(core);
	s = malloc((lo + lc) * (size_t)n + lk + 1);
	ck_assert_ptr_nonnull(s);
	p = s;
	for (i = 0; i < (size_t)n; i++, p += lo)
		memcpy(p, open, lo);
	memcpy(p, core, lk);
	p += lk;
	for (i = 0; i < (size_t)n; i++, p += lc)
		memcpy(p, close, lc);
	*p = '\0';
	return s;
}

/*
 * Whether s is valid UTF-8 (for the truncation test).
 */
static int
utf8_ok(const char *s)
{
	const unsigned char	*p = (const unsigned char *)s;
	int			 n;

	while (*p != '\0') {
		n = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 :
		    (*p & 0xf0) == 0xe0 ? 2 : (*p & 0xf8) == 0xf0 ? 3 : -1;
		if (n < 0)
			return 0;
		for (p++; n > 0; n--, p++)
			if ((*p & 0xc0) != 0x80)
				return 0;
	}
	return 1;
}

/* types */

START_TEST(test_type_string_accepts_string)
{
	ck_assert_int_eq(vt("{\"type\":\"string\"}", "\"x\""), 1);
}
END_TEST

START_TEST(test_type_string_rejects_integer)
{
	ck_assert_int_eq(vt("{\"type\":\"string\"}", "5"), 0);
	ck_assert_str_eq(errbuf, "expected string, got integer");
}
END_TEST

START_TEST(test_type_integer_accepts_integral_double)
{
	ck_assert_int_eq(vt("{\"type\":\"integer\"}", "1.0"), 1);
	ck_assert_int_eq(vt("{\"type\":\"integer\"}", "-7"), 1);
	ck_assert_int_eq(vt("{\"type\":\"integer\"}", "1e300"), 1);
}
END_TEST

START_TEST(test_type_integer_rejects_fraction)
{
	ck_assert_int_eq(vt("{\"type\":\"integer\"}", "1.5"), 0);
	ck_assert_str_eq(errbuf, "expected integer, got number");
	ck_assert_int_eq(vt("{\"type\":\"integer\"}", "\"1\""), 0);
}
END_TEST

START_TEST(test_type_integer_accepts_uint64)
{
	ck_assert_int_eq(vt("{\"type\":\"integer\"}",
	    "18446744073709551615"), 1);
}
END_TEST

START_TEST(test_type_number_accepts_int_and_double)
{
	ck_assert_int_eq(vt("{\"type\":\"number\"}", "3"), 1);
	ck_assert_int_eq(vt("{\"type\":\"number\"}", "3.25"), 1);
	ck_assert_int_eq(vt("{\"type\":\"number\"}", "true"), 0);
	ck_assert_str_eq(errbuf, "expected number, got boolean");
}
END_TEST

START_TEST(test_type_null_and_boolean)
{
	ck_assert_int_eq(vt("{\"type\":\"null\"}", "null"), 1);
	ck_assert_int_eq(vt("{\"type\":\"null\"}", "0"), 0);
	ck_assert_int_eq(vt("{\"type\":\"boolean\"}", "false"), 1);
	ck_assert_int_eq(vt("{\"type\":\"boolean\"}", "null"), 0);
	ck_assert_str_eq(errbuf, "expected boolean, got null");
}
END_TEST

START_TEST(test_type_object_rejects_array)
{
	ck_assert_int_eq(vt("{\"type\":\"object\"}", "{}"), 1);
	ck_assert_int_eq(vt("{\"type\":\"object\"}", "[]"), 0);
	ck_assert_str_eq(errbuf, "expected object, got array");
}
END_TEST

START_TEST(test_type_list_accepts_any_listed)
{
	ck_assert_int_eq(vt("{\"type\":[\"string\",\"null\"]}", "null"), 1);
	ck_assert_int_eq(vt("{\"type\":[\"string\",\"null\"]}", "\"a\""), 1);
	ck_assert_int_eq(vt("{\"type\":[\"string\",\"null\"]}", "1"), 0);
	ck_assert_str_eq(errbuf, "expected string or null, got integer");
}
END_TEST

START_TEST(test_type_unknown_name_matches_nothing)
{
	ck_assert_int_eq(vt("{\"type\":\"float\"}", "1.5"), 0);
	ck_assert_int_eq(vt("{\"type\":[]}", "1"), 0);
	ck_assert_str_eq(errbuf, "expected no type at all, got integer");
}
END_TEST

START_TEST(test_type_non_string_value_is_ignored)
{
	ck_assert_int_eq(vt("{\"type\":5}", "\"x\""), 1);
	ck_assert_int_eq(vt("{\"type\":[5,\"integer\"]}", "1"), 1);
}
END_TEST

START_TEST(test_true_schema_accepts_everything)
{
	ck_assert_int_eq(vt("true", "{\"a\":[1,null]}"), 1);
	ck_assert_int_eq(vt("{}", "null"), 1);
}
END_TEST

START_TEST(test_false_schema_rejects_everything)
{
	ck_assert_int_eq(vt("false", "null"), 0);
	ck_assert_str_eq(errbuf, "no value is allowed here");
	ck_assert_int_eq(vt("{\"properties\":{\"a\":false}}",
	    "{\"a\":1}"), 0);
	ck_assert_str_eq(errbuf, "property 'a': no value is allowed here");
}
END_TEST

START_TEST(test_non_object_schema_is_invalid)
{
	ck_assert_int_eq(vt("42", "42"), 0);
	ck_assert_str_eq(errbuf, "the schema is not an object or boolean");
	ck_assert_int_eq(vt("\"string\"", "\"string\""), 0);
	ck_assert_int_eq(vt("[]", "[]"), 0);
	ck_assert_int_eq(vt("null", "null"), 0);
	ck_assert_int_eq(vt("{\"items\":3}", "[1]"), 0);
	ck_assert_str_eq(errbuf,
	    "value at '/0': the schema is not an object or boolean");
}
END_TEST

START_TEST(test_unknown_keywords_are_ignored)
{
	ck_assert_int_eq(vt("{\"type\":\"string\",\"format\":\"email\","
	    "\"pattern\":\"^z\",\"title\":\"t\",\"x-mcp-header\":\"h\","
	    "\"default\":1,\"$id\":\"urn:x\"}", "\"abc\""), 1);
}
END_TEST

/* objects */

START_TEST(test_required_missing_is_invalid)
{
	ck_assert_int_eq(vt("{\"required\":[\"city\"]}", "{}"), 0);
	ck_assert_str_eq(errbuf, "missing required property 'city'");
}
END_TEST

START_TEST(test_required_present_is_valid)
{
	ck_assert_int_eq(vt("{\"required\":[\"city\",\"zip\"]}",
	    "{\"zip\":null,\"city\":\"x\"}"), 1);
}
END_TEST

START_TEST(test_required_ignored_for_non_object)
{
	ck_assert_int_eq(vt("{\"required\":[\"a\"]}", "[1]"), 1);
	ck_assert_int_eq(vt("{\"required\":[5,\"a\"]}", "{\"a\":0}"), 1);
}
END_TEST

START_TEST(test_property_wrong_type_names_property)
{
	ck_assert_int_eq(vt("{\"properties\":{\"city\":{\"type\":"
	    "\"string\"}}}", "{\"city\":3}"), 0);
	ck_assert_str_eq(errbuf, "property 'city': expected string, "
	    "got integer");
}
END_TEST

START_TEST(test_properties_absent_member_is_not_checked)
{
	ck_assert_int_eq(vt("{\"properties\":{\"city\":false}}",
	    "{\"town\":3}"), 1);
}
END_TEST

START_TEST(test_property_null_value_is_checked)
{
	ck_assert_int_eq(vt("{\"properties\":{\"a\":{\"type\":"
	    "\"string\"}}}", "{\"a\":null}"), 0);
	ck_assert_str_eq(errbuf, "property 'a': expected string, got null");
}
END_TEST

START_TEST(test_nested_property_reports_json_path)
{
	ck_assert_int_eq(vt("{\"properties\":{\"address\":{\"properties\":"
	    "{\"street\":{\"type\":\"string\"}}}}}",
	    "{\"address\":{\"street\":false}}"), 0);
	ck_assert_str_eq(errbuf, "value at '/address/street': expected "
	    "string, got boolean");
	ck_assert_int_eq(vt("{\"properties\":{\"address\":{\"required\":"
	    "[\"city\"]}}}", "{\"address\":{}}"), 0);
	ck_assert_str_eq(errbuf, "property 'address': missing required "
	    "property 'city'");
}
END_TEST

START_TEST(test_path_escapes_tilde_and_slash)
{
	ck_assert_int_eq(vt("{\"properties\":{\"a/b\":{\"properties\":"
	    "{\"c~d\":{\"type\":\"null\"}}}}}", "{\"a/b\":{\"c~d\":1}}"), 0);
	ck_assert_str_eq(errbuf, "value at '/a~1b/c~0d': expected null, "
	    "got integer");
}
END_TEST

START_TEST(test_array_index_in_path)
{
	ck_assert_int_eq(vt("{\"properties\":{\"tags\":{\"items\":{\"type\":"
	    "\"string\"}}}}", "{\"tags\":[\"a\",2]}"), 0);
	ck_assert_str_eq(errbuf, "value at '/tags/1': expected string, "
	    "got integer");
}
END_TEST

START_TEST(test_additional_properties_false_rejects_unknown)
{
	ck_assert_int_eq(vt("{\"properties\":{\"a\":{}},"
	    "\"additionalProperties\":false}", "{\"a\":1,\"foo\":2}"), 0);
	ck_assert_str_eq(errbuf, "unexpected property 'foo'");
	ck_assert_int_eq(vt("{\"properties\":{\"a\":{}},"
	    "\"additionalProperties\":false}", "{\"a\":1}"), 1);
}
END_TEST

START_TEST(test_additional_properties_schema_applies_to_extra)
{
	const char *s = "{\"properties\":{\"a\":{\"type\":\"string\"}},"
	    "\"additionalProperties\":{\"type\":\"integer\"}}";

	ck_assert_int_eq(vt(s, "{\"a\":\"x\",\"b\":1,\"c\":2}"), 1);
	ck_assert_int_eq(vt(s, "{\"a\":\"x\",\"b\":\"y\"}"), 0);
	ck_assert_str_eq(errbuf, "property 'b': expected integer, "
	    "got string");
}
END_TEST

START_TEST(test_additional_properties_without_properties)
{
	ck_assert_int_eq(vt("{\"additionalProperties\":false}", "{}"), 1);
	ck_assert_int_eq(vt("{\"additionalProperties\":false}",
	    "{\"x\":1}"), 0);
	ck_assert_int_eq(vt("{\"additionalProperties\":false}", "[1]"), 1);
}
END_TEST

START_TEST(test_additional_properties_ignored_with_pattern_properties)
{
	ck_assert_int_eq(vt("{\"patternProperties\":{\"^x\":{}},"
	    "\"additionalProperties\":false}", "{\"xy\":1}"), 1);
}
END_TEST

START_TEST(test_min_max_properties)
{
	ck_assert_int_eq(vt("{\"minProperties\":2}", "{\"a\":1}"), 0);
	ck_assert_str_eq(errbuf, "has 1 properties, fewer than the "
	    "minimum 2");
	ck_assert_int_eq(vt("{\"maxProperties\":1}", "{\"a\":1}"), 1);
	ck_assert_int_eq(vt("{\"maxProperties\":1}", "{\"a\":1,\"b\":2}"), 0);
}
END_TEST

/* arrays */

START_TEST(test_items_applies_to_every_element)
{
	ck_assert_int_eq(vt("{\"items\":{\"type\":\"integer\"}}",
	    "[1,2,3]"), 1);
	ck_assert_int_eq(vt("{\"items\":{\"type\":\"integer\"}}",
	    "[1,2,\"3\"]"), 0);
	ck_assert_str_eq(errbuf, "value at '/2': expected integer, "
	    "got string");
	ck_assert_int_eq(vt("{\"items\":{\"type\":\"integer\"}}", "[]"), 1);
}
END_TEST

START_TEST(test_items_ignored_for_non_array)
{
	ck_assert_int_eq(vt("{\"items\":false}", "{\"0\":1}"), 1);
	ck_assert_int_eq(vt("{\"items\":false}", "[]"), 1);
	ck_assert_int_eq(vt("{\"items\":false}", "[0]"), 0);
}
END_TEST

START_TEST(test_prefix_items_then_items)
{
	const char *s = "{\"prefixItems\":[{\"type\":\"string\"},"
	    "{\"type\":\"boolean\"}],\"items\":{\"type\":\"integer\"}}";

	ck_assert_int_eq(vt(s, "[\"a\",true,1,2]"), 1);
	ck_assert_int_eq(vt(s, "[\"a\"]"), 1);
	ck_assert_int_eq(vt(s, "[\"a\",1]"), 0);
	ck_assert_str_eq(errbuf, "value at '/1': expected boolean, "
	    "got integer");
	ck_assert_int_eq(vt(s, "[\"a\",true,\"b\"]"), 0);
	ck_assert_int_eq(vt("{\"prefixItems\":[{\"type\":\"string\"}]}",
	    "[\"a\",1,null]"), 1);
	ck_assert_int_eq(vt("{\"prefixItems\":[{\"type\":\"string\"}]}",
	    "[1]"), 0);
}
END_TEST

START_TEST(test_items_array_form_is_ignored)
{
	ck_assert_int_eq(vt("{\"items\":[{\"type\":\"string\"}]}", "[1]"), 1);
}
END_TEST

START_TEST(test_min_items_max_items)
{
	ck_assert_int_eq(vt("{\"minItems\":2}", "[1]"), 0);
	ck_assert_str_eq(errbuf, "has 1 items, fewer than the minimum 2");
	ck_assert_int_eq(vt("{\"minItems\":2}", "[1,2]"), 1);
	ck_assert_int_eq(vt("{\"maxItems\":2}", "[1,2]"), 1);
	ck_assert_int_eq(vt("{\"maxItems\":2}", "[1,2,3]"), 0);
	ck_assert_str_eq(errbuf, "has 3 items, more than the maximum 2");
	ck_assert_int_eq(vt("{\"maxItems\":2}", "\"abc\""), 1);
}
END_TEST

START_TEST(test_unique_items_rejects_duplicates)
{
	ck_assert_int_eq(vt("{\"uniqueItems\":true}", "[1,2,1.0]"), 0);
	ck_assert_str_eq(errbuf, "items 0 and 2 are equal but must be "
	    "unique");
	ck_assert_int_eq(vt("{\"uniqueItems\":true}",
	    "[{\"a\":1,\"b\":[2]},{\"b\":[2],\"a\":1}]"), 0);
}
END_TEST

START_TEST(test_unique_items_accepts_distinct)
{
	ck_assert_int_eq(vt("{\"uniqueItems\":true}",
	    "[1,\"1\",true,null,[1],{\"a\":1},{\"a\":2},[1,2],0]"), 1);
	ck_assert_int_eq(vt("{\"uniqueItems\":true}", "[false,0]"), 1);
	ck_assert_int_eq(vt("{\"uniqueItems\":true}",
	    "[{\"a\":1},{\"a\":1,\"b\":1}]"), 1);
}
END_TEST

START_TEST(test_unique_items_false_allows_duplicates)
{
	ck_assert_int_eq(vt("{\"uniqueItems\":false}", "[1,1]"), 1);
	ck_assert_int_eq(vt("{\"uniqueItems\":\"yes\"}", "[1,1]"), 1);
}
END_TEST

/* numbers */

START_TEST(test_minimum_is_inclusive)
{
	ck_assert_int_eq(vt("{\"minimum\":10}", "10"), 1);
	ck_assert_int_eq(vt("{\"minimum\":10}", "5"), 0);
	ck_assert_str_eq(errbuf, "5 is less than the minimum 10");
}
END_TEST

START_TEST(test_maximum_is_inclusive)
{
	ck_assert_int_eq(vt("{\"maximum\":1.5}", "1.5"), 1);
	ck_assert_int_eq(vt("{\"maximum\":1.5}", "2"), 0);
	ck_assert_str_eq(errbuf, "2 is greater than the maximum 1.5");
}
END_TEST

START_TEST(test_exclusive_minimum_excludes_bound)
{
	ck_assert_int_eq(vt("{\"exclusiveMinimum\":0}", "0"), 0);
	ck_assert_str_eq(errbuf, "0 is not greater than the exclusive "
	    "minimum 0");
	ck_assert_int_eq(vt("{\"exclusiveMinimum\":0}", "0.0001"), 1);
	ck_assert_int_eq(vt("{\"exclusiveMinimum\":0}", "-0.0"), 0);
}
END_TEST

START_TEST(test_exclusive_maximum_excludes_bound)
{
	ck_assert_int_eq(vt("{\"exclusiveMaximum\":3}", "3.0"), 0);
	ck_assert_int_eq(vt("{\"exclusiveMaximum\":3}", "2.999"), 1);
	ck_assert_int_eq(vt("{\"exclusiveMaximum\":3}", "2"), 1);
}
END_TEST

START_TEST(test_minimum_compares_int_with_double)
{
	ck_assert_int_eq(vt("{\"minimum\":1.5}", "1"), 0);
	ck_assert_int_eq(vt("{\"minimum\":1.5}", "2"), 1);
	ck_assert_int_eq(vt("{\"minimum\":-1.5}", "-1"), 1);
	ck_assert_int_eq(vt("{\"minimum\":-1.5}", "-2"), 0);
	ck_assert_int_eq(vt("{\"maximum\":2}", "2.0000001"), 0);
}
END_TEST

START_TEST(test_large_integers_compare_exactly)
{
	/* 2^53 + 1 is not a double; a lossy comparison gets these wrong. */
	ck_assert_int_eq(vt("{\"maximum\":9007199254740993}",
	    "9007199254740992"), 1);
	ck_assert_int_eq(vt("{\"maximum\":9007199254740992}",
	    "9007199254740993"), 0);
	ck_assert_int_eq(vt("{\"maximum\":9007199254740992.0}",
	    "9007199254740993"), 0);
	ck_assert_int_eq(vt("{\"minimum\":9223372036854775808}",
	    "9223372036854775807"), 0);
	ck_assert_int_eq(vt("{\"minimum\":9223372036854775807}",
	    "9223372036854775808"), 1);
	ck_assert_int_eq(vt("{\"maximum\":1e19}",
	    "18446744073709551615"), 0);
	ck_assert_int_eq(vt("{\"minimum\":-1e19}",
	    "-9223372036854775808"), 1);
	ck_assert_int_eq(vt("{\"maximum\":1e19}", "5"), 1);
	ck_assert_int_eq(vt("{\"minimum\":1e19}", "5"), 0);
	ck_assert_int_eq(vt("{\"maximum\":-1e19}", "-5"), 0);
}
END_TEST

START_TEST(test_nan_fails_every_bound)
{
	/* json-c's default tokener accepts NaN. */
	ck_assert_int_eq(vt("{\"minimum\":0}", "NaN"), 0);
	ck_assert_int_eq(vt("{\"maximum\":0}", "NaN"), 0);
	ck_assert_int_eq(vt("{\"exclusiveMaximum\":0}", "NaN"), 0);
	ck_assert_int_eq(vt("{\"type\":\"integer\"}", "NaN"), 0);
}
END_TEST

START_TEST(test_number_keywords_ignore_non_numbers)
{
	ck_assert_int_eq(vt("{\"minimum\":10}", "\"5\""), 1);
	ck_assert_int_eq(vt("{\"maximum\":10}", "true"), 1);
	ck_assert_int_eq(vt("{\"minimum\":\"10\"}", "5"), 1);
	ck_assert_int_eq(vt("{\"exclusiveMinimum\":true}", "5"), 1);
}
END_TEST

/* strings */

START_TEST(test_min_length)
{
	ck_assert_int_eq(vt("{\"minLength\":2}", "\"ab\""), 1);
	ck_assert_int_eq(vt("{\"minLength\":2}", "\"a\""), 0);
	ck_assert_str_eq(errbuf, "has 1 characters, fewer than the "
	    "minimum 2");
}
END_TEST

START_TEST(test_max_length)
{
	ck_assert_int_eq(vt("{\"maxLength\":2}", "\"ab\""), 1);
	ck_assert_int_eq(vt("{\"maxLength\":2}", "\"abc\""), 0);
	ck_assert_int_eq(vt("{\"maxLength\":0}", "\"\""), 1);
}
END_TEST

START_TEST(test_max_length_counts_code_points)
{
	/* "é" is 2 bytes, "日本語" 9 bytes, U+1F600 4 bytes. */
	ck_assert_int_eq(vt("{\"maxLength\":5}", "\"h\xc3\xa9llo\""), 1);
	ck_assert_int_eq(vt("{\"maxLength\":3}",
	    "\"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\""), 1);
	ck_assert_int_eq(vt("{\"maxLength\":2}",
	    "\"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\""), 0);
	ck_assert_str_eq(errbuf, "has 3 characters, more than the "
	    "maximum 2");
	ck_assert_int_eq(vt("{\"maxLength\":1,\"minLength\":1}",
	    "\"\\ud83d\\ude00\""), 1);
	ck_assert_int_eq(vt("{\"minLength\":2}", "\"\xf0\x9f\x98\x80\""), 0);
}
END_TEST

START_TEST(test_length_counts_embedded_nul)
{
	ck_assert_int_eq(vt("{\"maxLength\":2}", "\"a\\u0000b\""), 0);
	ck_assert_int_eq(vt("{\"minLength\":3}", "\"a\\u0000b\""), 1);
}
END_TEST

START_TEST(test_length_keywords_ignore_non_strings)
{
	ck_assert_int_eq(vt("{\"maxLength\":1}", "12345"), 1);
	ck_assert_int_eq(vt("{\"maxLength\":1}", "[1,2,3]"), 1);
	ck_assert_int_eq(vt("{\"maxLength\":\"1\"}", "\"abc\""), 1);
}
END_TEST

START_TEST(test_enum_accepts_member_only)
{
	const char *s = "{\"enum\":[\"phone\",\"email\",null,[1]]}";

	ck_assert_int_eq(vt(s, "\"email\""), 1);
	ck_assert_int_eq(vt(s, "null"), 1);
	ck_assert_int_eq(vt(s, "[1.0]"), 1);
	ck_assert_int_eq(vt(s, "\"fax\""), 0);
	ck_assert_str_eq(errbuf, "value is not one of the allowed values");
	ck_assert_int_eq(vt(s, "\"Phone\""), 0);
	ck_assert_int_eq(vt(s, "[1,1]"), 0);
}
END_TEST

START_TEST(test_enum_integer_equals_double)
{
	ck_assert_int_eq(vt("{\"enum\":[1]}", "1.0"), 1);
	ck_assert_int_eq(vt("{\"enum\":[1.0]}", "1"), 1);
	ck_assert_int_eq(vt("{\"enum\":[1]}", "true"), 0);
}
END_TEST

START_TEST(test_const_deep_equality)
{
	const char *s = "{\"const\":{\"a\":[1,{\"b\":null}],\"c\":\"d\"}}";

	ck_assert_int_eq(vt(s, "{\"c\":\"d\",\"a\":[1.0,{\"b\":null}]}"), 1);
	ck_assert_int_eq(vt(s, "{\"c\":\"d\",\"a\":[1,{\"b\":0}]}"), 0);
	ck_assert_str_eq(errbuf, "value is not the required constant");
	ck_assert_int_eq(vt(s, "{\"c\":\"d\",\"a\":[1,{\"b\":null}],"
	    "\"e\":1}"), 0);
	ck_assert_int_eq(vt(s, "{\"c\":\"d\",\"a\":[1]}"), 0);
}
END_TEST

START_TEST(test_const_message_names_scalar)
{
	ck_assert_int_eq(vt("{\"const\":\"phone\"}", "\"email\""), 0);
	ck_assert_str_eq(errbuf, "value must be \"phone\"");
	ck_assert_int_eq(vt("{\"const\":3}", "4"), 0);
	ck_assert_str_eq(errbuf, "value must be 3");
	ck_assert_int_eq(vt("{\"const\":null}", "null"), 1);
	ck_assert_int_eq(vt("{\"const\":\"a\\u0000b\"}", "\"a\""), 0);
}
END_TEST

/* composition */

START_TEST(test_all_of_reports_failing_branch)
{
	const char *s = "{\"allOf\":[{\"type\":\"string\"},"
	    "{\"maxLength\":2}]}";

	ck_assert_int_eq(vt(s, "\"ab\""), 1);
	ck_assert_int_eq(vt(s, "\"abc\""), 0);
	ck_assert_str_eq(errbuf, "has 3 characters, more than the "
	    "maximum 2");
}
END_TEST

START_TEST(test_any_of_needs_one_branch)
{
	const char *s = "{\"anyOf\":[{\"type\":\"string\"},"
	    "{\"minimum\":5}]}";

	ck_assert_int_eq(vt(s, "\"x\""), 1);
	ck_assert_int_eq(vt(s, "7"), 1);
	ck_assert_int_eq(vt(s, "3"), 0);
	ck_assert_str_eq(errbuf, "matches none of the anyOf schemas");
	ck_assert_int_eq(vt("{\"anyOf\":[]}", "3"), 0);
}
END_TEST

START_TEST(test_one_of_rejects_two_matches)
{
	const char *s = "{\"oneOf\":[{\"type\":\"integer\"},"
	    "{\"minimum\":2}]}";

	ck_assert_int_eq(vt(s, "1"), 1);
	ck_assert_int_eq(vt(s, "2.5"), 1);
	ck_assert_int_eq(vt(s, "3"), 0);
	ck_assert_str_eq(errbuf, "matches both oneOf schemas 0 and 1 but "
	    "must match exactly one");
}
END_TEST

START_TEST(test_one_of_rejects_no_match)
{
	ck_assert_int_eq(vt("{\"oneOf\":[{\"type\":\"integer\"},"
	    "{\"type\":\"string\"}]}", "null"), 0);
	ck_assert_str_eq(errbuf, "matches none of the oneOf schemas");
}
END_TEST

START_TEST(test_not_inverts)
{
	ck_assert_int_eq(vt("{\"not\":{\"type\":\"string\"}}", "1"), 1);
	ck_assert_int_eq(vt("{\"not\":{\"type\":\"string\"}}", "\"a\""), 0);
	ck_assert_str_eq(errbuf, "matches a schema it must not match");
	ck_assert_int_eq(vt("{\"not\":{\"not\":{\"type\":\"string\"}}}",
	    "\"a\""), 1);
}
END_TEST

START_TEST(test_if_then_applies_when_if_holds)
{
	const char *s = "{\"if\":{\"type\":\"integer\"},"
	    "\"then\":{\"minimum\":0},\"else\":{\"type\":\"string\"}}";

	ck_assert_int_eq(vt(s, "4"), 1);
	ck_assert_int_eq(vt(s, "-4"), 0);
	ck_assert_str_eq(errbuf, "-4 is less than the minimum 0");
}
END_TEST

START_TEST(test_if_else_applies_when_if_fails)
{
	const char *s = "{\"if\":{\"type\":\"integer\"},"
	    "\"then\":{\"minimum\":0},\"else\":{\"type\":\"string\"}}";

	ck_assert_int_eq(vt(s, "\"x\""), 1);
	ck_assert_int_eq(vt(s, "1.5"), 0);
	ck_assert_str_eq(errbuf, "expected string, got number");
}
END_TEST

START_TEST(test_then_else_without_if_are_ignored)
{
	ck_assert_int_eq(vt("{\"then\":false,\"else\":false}", "1"), 1);
	ck_assert_int_eq(vt("{\"if\":true}", "1"), 1);
	ck_assert_int_eq(vt("{\"if\":false,\"then\":false}", "1"), 1);
}
END_TEST

START_TEST(test_mcp_schema_accepts_email_contact)
{
	ck_assert_int_eq(vt(mcp_schema, "{\"name\":\"x\",\"email\":\"a@b\"}"),
	    1);
	ck_assert_int_eq(vt(mcp_schema, "{\"contactMethod\":\"phone\","
	    "\"phone\":\"1\",\"address\":{\"city\":\"c\"}}"), 1);
}
END_TEST

START_TEST(test_mcp_schema_needs_phone_or_email)
{
	ck_assert_int_eq(vt(mcp_schema, "{}"), 0);
	ck_assert_str_eq(errbuf, "matches none of the anyOf schemas");
	ck_assert_int_eq(vt(mcp_schema, "{\"foo\":1}"), 0);
}
END_TEST

START_TEST(test_mcp_schema_then_requires_phone)
{
	ck_assert_int_eq(vt(mcp_schema, "{\"contactMethod\":\"phone\","
	    "\"email\":\"e\"}"), 0);
	ck_assert_str_eq(errbuf, "missing required property 'phone'");
}
END_TEST

START_TEST(test_mcp_schema_rejects_additional_property)
{
	ck_assert_int_eq(vt(mcp_schema, "{\"email\":\"e\",\"foo\":1}"), 0);
	ck_assert_str_eq(errbuf, "unexpected property 'foo'");
}
END_TEST

START_TEST(test_mcp_schema_checks_ref_and_enum)
{
	ck_assert_int_eq(vt(mcp_schema, "{\"email\":\"e\","
	    "\"address\":{\"street\":1}}"), 0);
	ck_assert_str_eq(errbuf, "value at '/address/street': expected "
	    "string, got integer");
	ck_assert_int_eq(vt(mcp_schema, "{\"email\":\"e\","
	    "\"contactMethod\":\"fax\"}"), 0);
	ck_assert_str_eq(errbuf, "property 'contactMethod': value is not "
	    "one of the allowed values");
	ck_assert_int_eq(vt(mcp_schema, "[]"), 0);
	ck_assert_str_eq(errbuf, "expected object, got array");
}
END_TEST

/* refs */

START_TEST(test_ref_to_defs_resolves)
{
	const char *s = "{\"$defs\":{\"pos\":{\"minimum\":0}},"
	    "\"properties\":{\"n\":{\"$ref\":\"#/$defs/pos\"}}}";

	ck_assert_int_eq(vt(s, "{\"n\":1}"), 1);
	ck_assert_int_eq(vt(s, "{\"n\":-1}"), 0);
	ck_assert_str_eq(errbuf, "property 'n': -1 is less than the "
	    "minimum 0");
}
END_TEST

START_TEST(test_ref_to_definitions_resolves)
{
	ck_assert_int_eq(vt("{\"definitions\":{\"s\":{\"type\":\"string\"}},"
	    "\"$ref\":\"#/definitions/s\"}", "1"), 0);
	ck_assert_int_eq(vt("{\"definitions\":{\"s\":{\"type\":\"string\"}},"
	    "\"$ref\":\"#/definitions/s\"}", "\"1\""), 1);
}
END_TEST

START_TEST(test_ref_root_recursion_validates_tree)
{
	const char *s = "{\"type\":\"object\",\"properties\":{\"v\":"
	    "{\"type\":\"integer\"},\"kids\":{\"type\":\"array\",\"items\":"
	    "{\"$ref\":\"#\"}}}}";

	ck_assert_int_eq(vt(s, "{\"v\":1,\"kids\":[{\"v\":2,\"kids\":"
	    "[{\"v\":3}]},{\"kids\":[]}]}"), 1);
	ck_assert_int_eq(vt(s, "{\"v\":1,\"kids\":[{\"v\":2,\"kids\":"
	    "[{\"v\":\"3\"}]}]}"), 0);
	ck_assert_str_eq(errbuf, "value at '/kids/0/kids/0/v': expected "
	    "integer, got string");
}
END_TEST

START_TEST(test_ref_pointer_unescapes_tilde)
{
	const char *s = "{\"$defs\":{\"a/b\":{\"type\":\"string\"},"
	    "\"c~d\":{\"type\":\"null\"}},\"properties\":{\"x\":{\"$ref\":"
	    "\"#/$defs/a~1b\"},\"y\":{\"$ref\":\"#/$defs/c~0d\"}}}";

	ck_assert_int_eq(vt(s, "{\"x\":\"s\",\"y\":null}"), 1);
	ck_assert_int_eq(vt(s, "{\"x\":1}"), 0);
	ck_assert_int_eq(vt(s, "{\"y\":1}"), 0);
	ck_assert_int_eq(vt("{\"$defs\":{\"a\":{}},\"$ref\":"
	    "\"#/$defs/a~2\"}", "1"), 0);
	ck_assert_str_eq(errbuf, "schema reference '#/$defs/a~2' does not "
	    "resolve");
}
END_TEST

START_TEST(test_ref_pointer_percent_decodes)
{
	const char *s = "{\"$defs\":{\"a%b\":{\"type\":\"string\"},"
	    "\"c d\":false},\"properties\":{\"x\":{\"$ref\":"
	    "\"#/$defs/a%25b\"},\"y\":{\"$ref\":\"#/$defs/c%20d\"}}}";

	ck_assert_int_eq(vt(s, "{\"x\":\"s\"}"), 1);
	ck_assert_int_eq(vt(s, "{\"x\":1}"), 0);
	ck_assert_int_eq(vt(s, "{\"y\":1}"), 0);
	ck_assert_str_eq(errbuf, "property 'y': no value is allowed here");
	ck_assert_int_eq(vt("{\"$ref\":\"#/a%2\"}", "1"), 0);
	ck_assert_int_eq(vt("{\"$defs\":{\"a\":{}},\"$ref\":"
	    "\"#/$defs/a%00\"}", "1"), 0);
}
END_TEST

START_TEST(test_ref_into_array_index)
{
	const char *s = "{\"$defs\":{\"l\":[{\"type\":\"string\"},"
	    "{\"type\":\"null\"}]},\"properties\":{\"x\":{\"$ref\":"
	    "\"#/$defs/l/1\"}}}";

	ck_assert_int_eq(vt(s, "{\"x\":null}"), 1);
	ck_assert_int_eq(vt(s, "{\"x\":\"s\"}"), 0);
	ck_assert_int_eq(vt("{\"allOf\":[{}],\"$ref\":\"#/allOf/01\"}", "1"),
	    0);
	ck_assert_int_eq(vt("{\"allOf\":[{}],\"$ref\":\"#/allOf/1\"}", "1"),
	    0);
	ck_assert_int_eq(vt("{\"allOf\":[{}],\"$ref\":"
	    "\"#/allOf/99999999999999999999\"}", "1"), 0);
}
END_TEST

START_TEST(test_ref_anchor_resolves)
{
	const char *s = "{\"$defs\":{\"a\":{\"$anchor\":\"num\","
	    "\"type\":\"number\"}},\"properties\":{\"x\":{\"$ref\":"
	    "\"#num\"}}}";

	ck_assert_int_eq(vt(s, "{\"x\":1}"), 1);
	ck_assert_int_eq(vt(s, "{\"x\":\"1\"}"), 0);
	ck_assert_int_eq(vt("{\"$ref\":\"#nope\"}", "1"), 0);
	ck_assert_str_eq(errbuf, "schema reference '#nope' does not "
	    "resolve");
}
END_TEST

START_TEST(test_ref_nonlocal_is_valid)
{
	ck_assert_int_eq(vt("{\"$ref\":\"https://example.com/s.json\"}",
	    "1"), 1);
	ck_assert_int_eq(vt("{\"$ref\":\"other.json#/$defs/x\"}", "1"), 1);
	ck_assert_int_eq(vt("{\"$ref\":\"https://example.com/s.json\","
	    "\"type\":\"string\"}", "1"), 0);
}
END_TEST

START_TEST(test_ref_unresolvable_local_is_invalid)
{
	ck_assert_int_eq(vt("{\"properties\":{\"a\":{\"$ref\":"
	    "\"#/$defs/missing\"}}}", "{\"a\":1}"), 0);
	ck_assert_str_eq(errbuf, "property 'a': schema reference "
	    "'#/$defs/missing' does not resolve");
	ck_assert_int_eq(vt("{\"type\":\"object\",\"$ref\":\"#/type\"}",
	    "{}"), 0);
	ck_assert_int_eq(vt("{\"$ref\":5}", "1"), 1);
}
END_TEST

START_TEST(test_ref_applies_beside_siblings)
{
	const char *s = "{\"$defs\":{\"s\":{\"type\":\"string\"}},"
	    "\"$ref\":\"#/$defs/s\",\"maxLength\":2}";

	ck_assert_int_eq(vt(s, "\"ab\""), 1);
	ck_assert_int_eq(vt(s, "\"abc\""), 0);
	ck_assert_int_eq(vt(s, "1"), 0);
}
END_TEST

START_TEST(test_ref_root_and_empty_refer_to_root)
{
	ck_assert_int_eq(vt("{\"properties\":{\"a\":{\"$ref\":\"#\"}},"
	    "\"required\":[\"a\"],\"type\":\"object\"}",
	    "{\"a\":{\"a\":{\"a\":5}}}"), 0);
	ck_assert_str_eq(errbuf, "value at '/a/a/a': expected object, "
	    "got integer");
	ck_assert_int_eq(vt("{\"type\":\"array\",\"items\":{\"$ref\":\"\"}}",
	    "[[],[[]]]"), 1);
	ck_assert_int_eq(vt("{\"type\":\"array\",\"items\":{\"$ref\":\"\"}}",
	    "[[],[1]]"), 0);
}
END_TEST

/* limits */

START_TEST(test_ref_cycle_is_too_deep)
{
	ck_assert_int_eq(vt("{\"$ref\":\"#\"}", "1"), 0);
	ck_assert_str_eq(errbuf, "schema nesting too deep");
	ck_assert_int_eq(vt("{\"$defs\":{\"a\":{\"$ref\":\"#/$defs/b\"},"
	    "\"b\":{\"$ref\":\"#/$defs/a\"}},\"$ref\":\"#/$defs/a\"}", "{}"),
	    0);
	ck_assert_str_eq(errbuf, "schema nesting too deep");
}
END_TEST

START_TEST(test_ref_cycle_under_not_stays_invalid)
{
	ck_assert_int_eq(vt("{\"not\":{\"$ref\":\"#\"}}", "1"), 0);
	ck_assert_str_eq(errbuf, "schema nesting too deep");
	ck_assert_int_eq(vt("{\"not\":{\"not\":{\"$ref\":\"#\"}}}", "1"),
	    0);
	ck_assert_int_eq(vt("{\"$defs\":{\"n\":{\"not\":{\"$ref\":"
	    "\"#/$defs/n\"}}},\"$ref\":\"#/$defs/n\"}", "1"), 0);
	ck_assert_int_eq(vt("{\"anyOf\":[{\"$ref\":\"#\"},true]}", "1"), 0);
	ck_assert_int_eq(vt("{\"if\":{\"$ref\":\"#\"},\"else\":true}", "1"),
	    0);
}
END_TEST

START_TEST(test_anchor_cycle_is_too_deep)
{
	ck_assert_int_eq(vt("{\"$anchor\":\"me\",\"$ref\":\"#me\"}", "1"), 0);
	ck_assert_str_eq(errbuf, "schema nesting too deep");
}
END_TEST

START_TEST(test_exponential_schema_is_bounded)
{
	char	 buf[8192];
	size_t	 off;
	int	 i;

	/* d0 .. d29, each trying d(i+1) twice; d30 is false: 2^30 paths. */
	off = (size_t)snprintf(buf, sizeof(buf), "{\"$ref\":\"#/$defs/d0\","
	    "\"$defs\":{");
	for (i = 0; i < 30; i++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off,
		    "\"d%d\":{\"anyOf\":[{\"$ref\":\"#/$defs/d%d\"},"
		    "{\"$ref\":\"#/$defs/d%d\"}]},", i, i + 1, i + 1);
	snprintf(buf + off, sizeof(buf) - off, "\"d30\":false}}");
	ck_assert_int_eq(vt(buf, "1"), 0);
	ck_assert_str_eq(errbuf, "schema too complex to evaluate");
}
END_TEST

START_TEST(test_deep_instance_with_recursive_schema_is_too_deep)
{
	const char	*s = "{\"type\":\"array\",\"items\":{\"$ref\":\"#\"}}";
	char		*inst;

	inst = nest("[", "", "]", 10);
	ck_assert_int_eq(vt(s, inst), 1);
	free(inst);
	inst = nest("[", "", "]", 200);
	ck_assert_int_eq(vt(s, inst), 0);
	ck_assert_str_eq(errbuf, "schema nesting too deep");
	free(inst);
}
END_TEST

START_TEST(test_deep_instance_without_recursion_is_valid)
{
	char	*inst;

	inst = nest("{\"a\":[", "1", "]}", 400);
	ck_assert_int_eq(vt("{\"type\":\"object\",\"properties\":{\"a\":"
	    "{\"type\":\"array\"}}}", inst), 1);
	free(inst);
}
END_TEST

START_TEST(test_deep_values_in_const_are_bounded)
{
	char	*s, *inst;

	inst = nest("[", "1", "]", 300);
	s = nest("{\"const\":", inst, "}", 1);
	ck_assert_int_eq(vt(s, inst), 0);
	ck_assert_str_eq(errbuf, "value nesting too deep");
	free(s);
	free(inst);
	inst = nest("[", "1", "]", 20);
	s = nest("{\"enum\":[", inst, "]}", 1);
	ck_assert_int_eq(vt(s, inst), 1);
	free(s);
	free(inst);
}
END_TEST

START_TEST(test_unique_items_work_is_bounded)
{
	struct json_object	*s, *a;
	int			 i;

	s = parse("{\"uniqueItems\":true}");
	a = json_object_new_array();
	for (i = 0; i < 20000; i++)
		json_object_array_add(a, json_object_new_int(i));
	ck_assert_int_eq(wymcp__schema_validate(s, a, errbuf,
	    sizeof(errbuf)), 0);
	ck_assert_str_eq(errbuf, "schema too complex to evaluate");
	json_object_put(a);
	json_object_put(s);
}
END_TEST

START_TEST(test_null_err_buffer_is_safe)
{
	struct json_object	*s, *i;
	char			 one = 'Z';

	s = parse("{\"required\":[\"a\"]}");
	i = parse("{}");
	ck_assert_int_eq(wymcp__schema_validate(s, i, NULL, 0), 0);
	ck_assert_int_eq(wymcp__schema_validate(s, i, NULL, 100), 0);
	ck_assert_int_eq(wymcp__schema_validate(s, i, &one, 0), 0);
	ck_assert_int_eq(one, 'Z');
	ck_assert_int_eq(wymcp__schema_check(i, NULL, 0), 0);
	ck_assert_int_eq(wymcp__schema_check(NULL, &one, 0), 0);
	ck_assert_int_eq(one, 'Z');
	json_object_put(s);
	json_object_put(i);
}
END_TEST

START_TEST(test_errlen_one_gives_empty_string)
{
	struct json_object	*s, *i;
	char			 buf[2] = { 'A', 'B' };

	s = parse("{\"required\":[\"a\"]}");
	i = parse("{}");
	ck_assert_int_eq(wymcp__schema_validate(s, i, buf, 1), 0);
	ck_assert_int_eq(buf[0], '\0');
	ck_assert_int_eq(buf[1], 'B');
	buf[0] = 'A';
	ck_assert_int_eq(wymcp__schema_check(s, buf, 1), 0);
	ck_assert_int_eq(buf[0], '\0');
	ck_assert_int_eq(buf[1], 'B');
	json_object_put(s);
	json_object_put(i);
}
END_TEST

START_TEST(test_error_is_truncated_to_errlen)
{
	struct json_object	*s, *i;
	char			 buf[16];

	s = parse("{\"required\":[\"a\"]}");
	i = parse("{}");
	memset(buf, 'X', sizeof(buf));
	ck_assert_int_eq(wymcp__schema_validate(s, i, buf, 10), 0);
	ck_assert_str_eq(buf, "missing r");
	ck_assert_int_eq(buf[10], 'X');
	json_object_put(s);
	json_object_put(i);
}
END_TEST

START_TEST(test_truncation_keeps_utf8_whole)
{
	struct json_object	*s, *i;
	char			 buf[64];
	size_t			 n;

	/* The key is 20 three-byte characters; every cut must be clean. */
	s = parse("{\"properties\":{\"\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
	    "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
	    "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
	    "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
	    "\xe2\x82\xac\xe2\x82\xac\":false}}");
	i = parse("{\"\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
	    "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
	    "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
	    "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac"
	    "\xe2\x82\xac\":1}");
	for (n = 1; n <= sizeof(buf); n++) {
		ck_assert_int_eq(wymcp__schema_validate(s, i, buf, n), 0);
		ck_assert_uint_lt(strlen(buf), n);
		ck_assert_msg(utf8_ok(buf), "cut UTF-8 at errlen %zu", n);
	}
	ck_assert_uint_eq(strlen(buf), 61);	/* "property '" + 17 x 3 */
	json_object_put(s);
	json_object_put(i);
}
END_TEST

START_TEST(test_control_bytes_in_reason_are_replaced)
{
	ck_assert_int_eq(vt("{\"required\":[\"a\\nb\\u0001\"]}", "{}"), 0);
	ck_assert_str_eq(errbuf, "missing required property 'a?b?'");
}
END_TEST

START_TEST(test_err_is_cleared_on_success)
{
	struct json_object	*s, *i;
	char			 buf[8] = "junk";

	s = parse("{\"type\":\"integer\"}");
	i = parse("3");
	ck_assert_int_eq(wymcp__schema_validate(s, i, buf, sizeof(buf)), 1);
	ck_assert_str_eq(buf, "");
	json_object_put(s);
	json_object_put(i);
}
END_TEST

/* check */

START_TEST(test_check_accepts_object_schema)
{
	ck_assert_int_eq(ct("{\"type\":\"object\"}"), 1);
	ck_assert_str_eq(errbuf, "");
	ck_assert_int_eq(ct("{\"type\":\"object\",\"properties\":{\"a\":"
	    "{\"type\":\"string\",\"x-mcp-header\":\"A\"}}}"), 1);
}
END_TEST

START_TEST(test_check_accepts_mcp_conformance_schema)
{
	ck_assert_int_eq(ct(mcp_schema), 1);
}
END_TEST

START_TEST(test_check_rejects_non_object_schema)
{
	ck_assert_int_eq(ct("[]"), 0);
	ck_assert_str_eq(errbuf, "the schema is not a JSON object");
	ck_assert_int_eq(ct("true"), 0);
	ck_assert_int_eq(ct("\"object\""), 0);
	ck_assert_int_eq(ct("null"), 0);
}
END_TEST

START_TEST(test_check_requires_root_type_object)
{
	ck_assert_int_eq(ct("{}"), 0);
	ck_assert_str_eq(errbuf, "the schema's root type must be "
	    "\"object\"");
	ck_assert_int_eq(ct("{\"type\":\"string\"}"), 0);
	ck_assert_int_eq(ct("{\"type\":[\"object\"]}"), 0);
	ck_assert_int_eq(ct("{\"type\":null}"), 0);
}
END_TEST

START_TEST(test_check_rejects_unresolved_local_ref)
{
	ck_assert_int_eq(ct("{\"type\":\"object\",\"properties\":{\"a\":"
	    "{\"items\":{\"anyOf\":[{\"$ref\":\"#/$defs/gone\"}]}}}}"), 0);
	ck_assert_str_eq(errbuf, "schema reference '#/$defs/gone' does not "
	    "resolve");
	ck_assert_int_eq(ct("{\"type\":\"object\",\"$defs\":{\"a\":"
	    "{\"$ref\":\"#/$defs/b\"}}}"), 0);
	ck_assert_int_eq(ct("{\"type\":\"object\",\"not\":"
	    "{\"$ref\":\"#nowhere\"}}"), 0);
}
END_TEST

START_TEST(test_check_rejects_ref_to_non_schema)
{
	ck_assert_int_eq(ct("{\"type\":\"object\",\"properties\":{\"a\":"
	    "{\"$ref\":\"#/type\"}}}"), 0);
	ck_assert_int_eq(ct("{\"type\":\"object\",\"required\":[],"
	    "\"properties\":{\"a\":{\"$ref\":\"#/required\"}}}"), 0);
}
END_TEST

START_TEST(test_check_accepts_resolving_refs)
{
	ck_assert_int_eq(ct("{\"type\":\"object\",\"$defs\":{\"a\":{}},"
	    "\"properties\":{\"a\":{\"$ref\":\"#/$defs/a\"},\"b\":{\"$ref\":"
	    "\"#\"},\"c\":{\"$ref\":\"#/properties/a\"},\"d\":{\"$ref\":"
	    "\"https://example.com/x#/y\"}}}"), 1);
	ck_assert_int_eq(ct("{\"type\":\"object\",\"$defs\":{\"a\":"
	    "{\"$anchor\":\"A\"}},\"items\":{\"$ref\":\"#A\"}}"), 1);
}
END_TEST

START_TEST(test_check_ignores_refs_in_data_keywords)
{
	ck_assert_int_eq(ct("{\"type\":\"object\",\"enum\":[{\"$ref\":"
	    "\"#/nope\"}],\"const\":{\"$ref\":\"#/nope\"},\"default\":"
	    "{\"$ref\":\"#/nope\"}}"), 1);
	/* A property named "$ref" is not a reference. */
	ck_assert_int_eq(ct("{\"type\":\"object\",\"properties\":{\"$ref\":"
	    "{\"type\":\"string\"}}}"), 1);
}
END_TEST

START_TEST(test_check_rejects_too_deep_schema)
{
	char	*s;

	s = nest("{\"type\":\"object\",\"properties\":{\"a\":", "{}", "}}",
	    100);
	ck_assert_int_eq(ct(s), 0);
	ck_assert_str_eq(errbuf, "schema nesting too deep or schema too "
	    "large");
	free(s);
	s = nest("{\"type\":\"object\",\"properties\":{\"a\":", "{}", "}}",
	    20);
	ck_assert_int_eq(ct(s), 1);
	free(s);
}
END_TEST

/*
 * One suite, one case per topic.
 */
static Suite *
schema_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("schema");

	tc = tcase_create("types");
	tcase_add_test(tc, test_type_string_accepts_string);
	tcase_add_test(tc, test_type_string_rejects_integer);
	tcase_add_test(tc, test_type_integer_accepts_integral_double);
	tcase_add_test(tc, test_type_integer_rejects_fraction);
	tcase_add_test(tc, test_type_integer_accepts_uint64);
	tcase_add_test(tc, test_type_number_accepts_int_and_double);
	tcase_add_test(tc, test_type_null_and_boolean);
	tcase_add_test(tc, test_type_object_rejects_array);
	tcase_add_test(tc, test_type_list_accepts_any_listed);
	tcase_add_test(tc, test_type_unknown_name_matches_nothing);
	tcase_add_test(tc, test_type_non_string_value_is_ignored);
	tcase_add_test(tc, test_true_schema_accepts_everything);
	tcase_add_test(tc, test_false_schema_rejects_everything);
	tcase_add_test(tc, test_non_object_schema_is_invalid);
	tcase_add_test(tc, test_unknown_keywords_are_ignored);
	suite_add_tcase(s, tc);

	tc = tcase_create("objects");
	tcase_add_test(tc, test_required_missing_is_invalid);
	tcase_add_test(tc, test_required_present_is_valid);
	tcase_add_test(tc, test_required_ignored_for_non_object);
	tcase_add_test(tc, test_property_wrong_type_names_property);
	tcase_add_test(tc, test_properties_absent_member_is_not_checked);
	tcase_add_test(tc, test_property_null_value_is_checked);
	tcase_add_test(tc, test_nested_property_reports_json_path);
	tcase_add_test(tc, test_path_escapes_tilde_and_slash);
	tcase_add_test(tc, test_array_index_in_path);
	tcase_add_test(tc, test_additional_properties_false_rejects_unknown);
	tcase_add_test(tc, test_additional_properties_schema_applies_to_extra);
	tcase_add_test(tc, test_additional_properties_without_properties);
	tcase_add_test(tc,
	    test_additional_properties_ignored_with_pattern_properties);
	tcase_add_test(tc, test_min_max_properties);
	suite_add_tcase(s, tc);

	tc = tcase_create("arrays");
	tcase_add_test(tc, test_items_applies_to_every_element);
	tcase_add_test(tc, test_items_ignored_for_non_array);
	tcase_add_test(tc, test_prefix_items_then_items);
	tcase_add_test(tc, test_items_array_form_is_ignored);
	tcase_add_test(tc, test_min_items_max_items);
	tcase_add_test(tc, test_unique_items_rejects_duplicates);
	tcase_add_test(tc, test_unique_items_accepts_distinct);
	tcase_add_test(tc, test_unique_items_false_allows_duplicates);
	suite_add_tcase(s, tc);

	tc = tcase_create("numbers");
	tcase_add_test(tc, test_minimum_is_inclusive);
	tcase_add_test(tc, test_maximum_is_inclusive);
	tcase_add_test(tc, test_exclusive_minimum_excludes_bound);
	tcase_add_test(tc, test_exclusive_maximum_excludes_bound);
	tcase_add_test(tc, test_minimum_compares_int_with_double);
	tcase_add_test(tc, test_large_integers_compare_exactly);
	tcase_add_test(tc, test_nan_fails_every_bound);
	tcase_add_test(tc, test_number_keywords_ignore_non_numbers);
	suite_add_tcase(s, tc);

	tc = tcase_create("strings");
	tcase_add_test(tc, test_min_length);
	tcase_add_test(tc, test_max_length);
	tcase_add_test(tc, test_max_length_counts_code_points);
	tcase_add_test(tc, test_length_counts_embedded_nul);
	tcase_add_test(tc, test_length_keywords_ignore_non_strings);
	tcase_add_test(tc, test_enum_accepts_member_only);
	tcase_add_test(tc, test_enum_integer_equals_double);
	tcase_add_test(tc, test_const_deep_equality);
	tcase_add_test(tc, test_const_message_names_scalar);
	suite_add_tcase(s, tc);

	tc = tcase_create("composition");
	tcase_add_test(tc, test_all_of_reports_failing_branch);
	tcase_add_test(tc, test_any_of_needs_one_branch);
	tcase_add_test(tc, test_one_of_rejects_two_matches);
	tcase_add_test(tc, test_one_of_rejects_no_match);
	tcase_add_test(tc, test_not_inverts);
	tcase_add_test(tc, test_if_then_applies_when_if_holds);
	tcase_add_test(tc, test_if_else_applies_when_if_fails);
	tcase_add_test(tc, test_then_else_without_if_are_ignored);
	tcase_add_test(tc, test_mcp_schema_accepts_email_contact);
	tcase_add_test(tc, test_mcp_schema_needs_phone_or_email);
	tcase_add_test(tc, test_mcp_schema_then_requires_phone);
	tcase_add_test(tc, test_mcp_schema_rejects_additional_property);
	tcase_add_test(tc, test_mcp_schema_checks_ref_and_enum);
	suite_add_tcase(s, tc);

	tc = tcase_create("refs");
	tcase_add_test(tc, test_ref_to_defs_resolves);
	tcase_add_test(tc, test_ref_to_definitions_resolves);
	tcase_add_test(tc, test_ref_root_recursion_validates_tree);
	tcase_add_test(tc, test_ref_pointer_unescapes_tilde);
	tcase_add_test(tc, test_ref_pointer_percent_decodes);
	tcase_add_test(tc, test_ref_into_array_index);
	tcase_add_test(tc, test_ref_anchor_resolves);
	tcase_add_test(tc, test_ref_nonlocal_is_valid);
	tcase_add_test(tc, test_ref_unresolvable_local_is_invalid);
	tcase_add_test(tc, test_ref_applies_beside_siblings);
	tcase_add_test(tc, test_ref_root_and_empty_refer_to_root);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_ref_cycle_is_too_deep);
	tcase_add_test(tc, test_ref_cycle_under_not_stays_invalid);
	tcase_add_test(tc, test_anchor_cycle_is_too_deep);
	tcase_add_test(tc, test_exponential_schema_is_bounded);
	tcase_add_test(tc,
	    test_deep_instance_with_recursive_schema_is_too_deep);
	tcase_add_test(tc, test_deep_instance_without_recursion_is_valid);
	tcase_add_test(tc, test_deep_values_in_const_are_bounded);
	tcase_add_test(tc, test_unique_items_work_is_bounded);
	tcase_add_test(tc, test_null_err_buffer_is_safe);
	tcase_add_test(tc, test_errlen_one_gives_empty_string);
	tcase_add_test(tc, test_error_is_truncated_to_errlen);
	tcase_add_test(tc, test_truncation_keeps_utf8_whole);
	tcase_add_test(tc, test_control_bytes_in_reason_are_replaced);
	tcase_add_test(tc, test_err_is_cleared_on_success);
	suite_add_tcase(s, tc);

	tc = tcase_create("check");
	tcase_add_test(tc, test_check_accepts_object_schema);
	tcase_add_test(tc, test_check_accepts_mcp_conformance_schema);
	tcase_add_test(tc, test_check_rejects_non_object_schema);
	tcase_add_test(tc, test_check_requires_root_type_object);
	tcase_add_test(tc, test_check_rejects_unresolved_local_ref);
	tcase_add_test(tc, test_check_rejects_ref_to_non_schema);
	tcase_add_test(tc, test_check_accepts_resolving_refs);
	tcase_add_test(tc, test_check_ignores_refs_in_data_keywords);
	tcase_add_test(tc, test_check_rejects_too_deep_schema);
	suite_add_tcase(s, tc);

	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 failed;

	sr = srunner_create(schema_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
