/* check_http.c - header values, base64 sentinel, Host/Origin, media type */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <sodium.h>

#include "testing/testing.h"

static struct wymcp__arena	 arena;
static struct wymcp_server	*srv;

static void
setup(void)
{
	wymcp__arena_init(&arena);
	srv = wymcp_server_new();
	ck_assert_ptr_nonnull(srv);
}

static void
teardown(void)
{
	wymcp__arena_free(&arena);
	wymcp_server_free(srv);
	srv = NULL;
}

START_TEST(header_chars_vchar_sp_htab_ok)
{
	ck_assert_int_eq(wymcp__header_chars_ok(""), 1);
	ck_assert_int_eq(wymcp__header_chars_ok("tools/call"), 1);
	ck_assert_int_eq(wymcp__header_chars_ok(" a b "), 1);
	ck_assert_int_eq(wymcp__header_chars_ok("\ta\t"), 1);
	ck_assert_int_eq(wymcp__header_chars_ok("!~=?base64?+/=?="), 1);
}
END_TEST

START_TEST(header_chars_obs_text_rejected)
{
	ck_assert_int_eq(wymcp__header_chars_ok("\x80"), 0);
	ck_assert_int_eq(wymcp__header_chars_ok("caf\xc3\xa9"), 0);
	ck_assert_int_eq(wymcp__header_chars_ok("a\xff"), 0);
}
END_TEST

START_TEST(header_chars_ctl_rejected)
{
	ck_assert_int_eq(wymcp__header_chars_ok("a\x01"), 0);
	ck_assert_int_eq(wymcp__header_chars_ok("a\rb"), 0);
	ck_assert_int_eq(wymcp__header_chars_ok("a\nb"), 0);
	ck_assert_int_eq(wymcp__header_chars_ok("\x1f"), 0);
	ck_assert_int_eq(wymcp__header_chars_ok("del\x7f"), 0);
	ck_assert_int_eq(wymcp__header_chars_ok("\v"), 0);
}
END_TEST

START_TEST(header_trim_sp_htab)
{
	const char	*v;

	ck_assert_str_eq(wymcp__header_trim(&arena, "  x  "), "x");
	ck_assert_str_eq(wymcp__header_trim(&arena, "\t x\t "), "x");
	ck_assert_str_eq(wymcp__header_trim(&arena, " a b "), "a b");
	ck_assert_str_eq(wymcp__header_trim(&arena, "   "), "");
	ck_assert_str_eq(wymcp__header_trim(&arena, ""), "");
	/* Only SP and HTAB are OWS. */
	ck_assert_str_eq(wymcp__header_trim(&arena, "\nx\r"), "\nx\r");
	/* Nothing to trim at the end: no copy. */
	v = "plain";
	ck_assert_ptr_eq(wymcp__header_trim(&arena, v), v);
	v = "  lead";
	ck_assert_ptr_eq(wymcp__header_trim(&arena, v), v + 2);
}
END_TEST

/* Decode `in` and compare with `want` (wantlen bytes). */
static void
b64_ok(const char *in, const char *want, size_t wantlen)
{
	unsigned char	 out[64];
	size_t		 n = (size_t)-1;

	memset(out, 0xee, sizeof(out));
	ck_assert_msg(wymcp__base64_decode(in, strlen(in), out, &n) == 0,
	    "'%s' rejected", in);
	ck_assert_uint_eq(n, wantlen);
	ck_assert_int_eq(memcmp(out, want, wantlen), 0);
	/* Nothing is written past the decoded length. */
	ck_assert_uint_eq(out[wantlen], 0xee);
}

static void
b64_bad(const char *in)
{
	unsigned char	 out[64];
	size_t		 n;

	ck_assert_msg(wymcp__base64_decode(in, strlen(in), out, &n) == -1,
	    "'%s' accepted", in);
}

/* Lower-case hex of every byte, as sodium_bin2hex() writes it (text.c). */
START_TEST(hex_is_sodiums)
{
	unsigned char	 in[256];
	char		 got[513], want[513];
	size_t		 i;

	for (i = 0; i < sizeof(in); i++)
		in[i] = (unsigned char)(i * 37 + 250);
	ck_assert_ptr_eq(wymcp__hex(got, in, sizeof(in)), got);
	ck_assert_str_eq(got, sodium_bin2hex(want, sizeof(want), in,
	    sizeof(in)));
	ck_assert_str_eq(wymcp__hex(got, in, 0), "");
	ck_assert_str_eq(wymcp__hex(got, (const unsigned char *)"\x00\xff",
	    2), "00ff");
}
END_TEST

/* base64url without padding (RFC 4648 section 5), lib/text.c. */
START_TEST(b64url_round_trips_every_length)
{
	unsigned char	 in[64], out[64];
	char		 enc[100];
	size_t		 n, len, i;

	for (i = 0; i < sizeof(in); i++)
		in[i] = (unsigned char)(i * 37 + 250);
	for (n = 0; n <= sizeof(in); n++) {
		wymcp__b64url_encode(enc, in, n);
		ck_assert_uint_eq(strlen(enc), wymcp__b64url_len(n));
		ck_assert_ptr_null(strpbrk(enc, "+/="));
		ck_assert_int_eq(wymcp__b64url_decode(out, &len, enc,
		    strlen(enc)), 0);
		ck_assert_uint_eq(len, n);
		ck_assert_int_eq(memcmp(in, out, n), 0);
	}
	/* RFC 4648 section 10, with the URL alphabet and no padding. */
	wymcp__b64url_encode(enc, (const unsigned char *)"foobar", 6);
	ck_assert_str_eq(enc, "Zm9vYmFy");
	wymcp__b64url_encode(enc, (const unsigned char *)"fo", 2);
	ck_assert_str_eq(enc, "Zm8");
	wymcp__b64url_encode(enc, (const unsigned char *)"\xfb\xff", 2);
	ck_assert_str_eq(enc, "-_8");
}
END_TEST

START_TEST(b64url_refuses_what_no_encoder_writes)
{
	unsigned char	 out[16];
	size_t		 len;
	const char	*bad[] = { "Z", "Zm8=", "Zm+v", "Zm/v", "Zm9", "Zm9v!",
			    "Zm9 ", "Zh", "Zm9vY" };
	size_t		 i;

	/* "Zm9" decodes ("fo"); its last character's low bits must be 0. */
	ck_assert_int_eq(wymcp__b64url_decode(out, &len, "Zm8", 3), 0);
	ck_assert_int_eq(wymcp__b64url_decode(out, &len, "Zm9", 3), -1);
	ck_assert_int_eq(wymcp__b64url_decode(out, &len, "Zg", 2), 0);
	ck_assert_int_eq(wymcp__b64url_decode(out, &len, "", 0), 0);
	ck_assert_uint_eq(len, 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(wymcp__b64url_decode(out, &len, bad[i],
		    strlen(bad[i])) == -1, "%s decoded", bad[i]);
}
END_TEST

START_TEST(base64_rfc4648_section10_vectors)
{
	b64_ok("", "", 0);
	b64_ok("Zg==", "f", 1);
	b64_ok("Zm8=", "fo", 2);
	b64_ok("Zm9v", "foo", 3);
	b64_ok("Zm9vYg==", "foob", 4);
	b64_ok("Zm9vYmE=", "fooba", 5);
	b64_ok("Zm9vYmFy", "foobar", 6);
	/* The whole alphabet. */
	b64_ok("+/+/", "\xfb\xff\xbf", 3);
	b64_ok("AAEC", "\x00\x01\x02", 3);
}
END_TEST

START_TEST(base64_bad_padding_rejected)
{
	b64_bad("SGVsbG8");
	b64_bad("Zg=");
	b64_bad("Zg");
	b64_bad("Z===");
	b64_bad("====");
	b64_bad("Zm9v====");
	b64_bad("Zg==Zg==");
	b64_bad("Zm=v");
	b64_bad("Z=8=");
	b64_bad("=Zm9");
}
END_TEST

START_TEST(base64_bad_chars_rejected)
{
	b64_bad("Zm9-");
	b64_bad("Zm9_");
	b64_bad("Zm 9");
	b64_bad("Zm9v\n");
	b64_bad("Zm9.");
	b64_bad("Zm9\x80");
}
END_TEST

START_TEST(base64_non_canonical_bits_rejected)
{
	b64_bad("SGVsbG9=");
	b64_bad("Zh==");
	b64_bad("Zm9=");
	/* The canonical forms of the same prefixes pass. */
	b64_ok("SGVsbG8=", "Hello", 5);
	b64_ok("Zg==", "f", 1);
}
END_TEST

/* Decode a header value; returns the result and sets *out, *n. */
static int
sentinel(const char *v, const char **out, size_t *n)
{
	*out = NULL;
	*n = (size_t)-1;
	return wymcp__sentinel_decode(&arena, v, out, n);
}

START_TEST(sentinel_decodes_utf8)
{
	const char	*out;
	size_t		 n;

	ck_assert_int_eq(sentinel("=?base64?SGVsbG8sIOS4lueVjA==?=", &out,
	    &n), 0);
	ck_assert_str_eq(out, "Hello, \xe4\xb8\x96\xe7\x95\x8c");
	ck_assert_uint_eq(n, 13);
	ck_assert_int_eq(sentinel("=?base64?Y2Fmw6kudHh0?=", &out, &n), 0);
	ck_assert_str_eq(out, "caf\xc3\xa9.txt");
}
END_TEST

START_TEST(sentinel_keeps_padding_spaces)
{
	const char	*out;
	size_t		 n;

	ck_assert_int_eq(sentinel("=?base64?IHBhZGRlZCA=?=", &out, &n), 0);
	ck_assert_str_eq(out, " padded ");
	ck_assert_uint_eq(n, 8);
}
END_TEST

START_TEST(sentinel_empty_payload)
{
	const char	*out;
	size_t		 n;

	ck_assert_int_eq(sentinel("=?base64?" "?=", &out, &n), 0);
	ck_assert_str_eq(out, "");
	ck_assert_uint_eq(n, 0);
}
END_TEST

START_TEST(sentinel_without_prefix_or_suffix_is_literal)
{
	static const char *lit[] = {
		"SGVsbG8=",
		"=?base64?SGVsbG8=",
		"base64?SGVsbG8=?=",
		"=?BASE64?SGVsbG8=?=",
		"=?Base64?SGVsbG8=?=",
		"=?base64?=",
		"?=",
		"",
		"x=?base64?SGVsbG8=?=",
	};
	const char	*out;
	size_t		 i, n;

	for (i = 0; i < sizeof(lit) / sizeof(lit[0]); i++) {
		ck_assert_int_eq(sentinel(lit[i], &out, &n), 0);
		ck_assert_ptr_eq(out, lit[i]);
		ck_assert_uint_eq(n, strlen(lit[i]));
	}
}
END_TEST

START_TEST(sentinel_bad_base64_rejected)
{
	const char	*out;
	size_t		 n;

	ck_assert_int_eq(sentinel("=?base64?SGVsbG8?=", &out, &n), -1);
	ck_assert_int_eq(sentinel("=?base64?SGV$bG8=?=", &out, &n), -1);
	ck_assert_int_eq(sentinel("=?base64?SGVsbG9=?=", &out, &n), -1);
	ck_assert_int_eq(sentinel("=?base64? SGVsbG8=?=", &out, &n), -1);
	ck_assert_int_eq(sentinel("=?base64?SGVsbG8=?=?=", &out, &n), -1);
}
END_TEST

START_TEST(sentinel_invalid_utf8_rejected)
{
	const char	*out;
	size_t		 n;

	/* 0xff */
	ck_assert_int_eq(sentinel("=?base64?/w==?=", &out, &n), -1);
	/* overlong NUL 0xc0 0x80 */
	ck_assert_int_eq(sentinel("=?base64?wIA=?=", &out, &n), -1);
	/* surrogate U+D800: 0xed 0xa0 0x80 */
	ck_assert_int_eq(sentinel("=?base64?7aCA?=", &out, &n), -1);
	/* truncated: 0xe4 0xb8 */
	ck_assert_int_eq(sentinel("=?base64?5Lg=?=", &out, &n), -1);
}
END_TEST

#define U8(s)	wymcp__utf8_valid((s), sizeof(s) - 1)

START_TEST(utf8_valid_accepts_well_formed)
{
	ck_assert_int_eq(U8(""), 1);
	ck_assert_int_eq(U8("ascii"), 1);
	ck_assert_int_eq(U8("nul\0inside"), 1);
	ck_assert_int_eq(U8("\xc2\x80"), 1);		/* U+0080 */
	ck_assert_int_eq(U8("\xdf\xbf"), 1);		/* U+07FF */
	ck_assert_int_eq(U8("\xe0\xa0\x80"), 1);	/* U+0800 */
	ck_assert_int_eq(U8("\xed\x9f\xbf"), 1);	/* U+D7FF */
	ck_assert_int_eq(U8("\xee\x80\x80"), 1);	/* U+E000 */
	ck_assert_int_eq(U8("\xef\xbf\xbf"), 1);	/* U+FFFF */
	ck_assert_int_eq(U8("\xf0\x90\x80\x80"), 1);	/* U+10000 */
	ck_assert_int_eq(U8("\xf4\x8f\xbf\xbf"), 1);	/* U+10FFFF */
	ck_assert_int_eq(U8("Hello, \xe4\xb8\x96\xe7\x95\x8c"), 1);
}
END_TEST

START_TEST(utf8_valid_rejects_overlongs)
{
	ck_assert_int_eq(U8("\xc0\x80"), 0);
	ck_assert_int_eq(U8("\xc1\xbf"), 0);
	ck_assert_int_eq(U8("\xe0\x80\x80"), 0);
	ck_assert_int_eq(U8("\xe0\x9f\xbf"), 0);
	ck_assert_int_eq(U8("\xf0\x80\x80\x80"), 0);
	ck_assert_int_eq(U8("\xf0\x8f\xbf\xbf"), 0);
}
END_TEST

START_TEST(utf8_valid_rejects_surrogates)
{
	ck_assert_int_eq(U8("\xed\xa0\x80"), 0);	/* U+D800 */
	ck_assert_int_eq(U8("\xed\xaf\xbf"), 0);	/* U+DBFF */
	ck_assert_int_eq(U8("\xed\xb0\x80"), 0);	/* U+DC00 */
	ck_assert_int_eq(U8("\xed\xbf\xbf"), 0);	/* U+DFFF */
	ck_assert_int_eq(U8("\xed\xa0\xbd\xed\xb8\x80"), 0); /* CESU pair */
}
END_TEST

START_TEST(utf8_valid_rejects_beyond_u10ffff)
{
	ck_assert_int_eq(U8("\xf4\x90\x80\x80"), 0);	/* U+110000 */
	ck_assert_int_eq(U8("\xf7\xbf\xbf\xbf"), 0);
	ck_assert_int_eq(U8("\xf8\x88\x80\x80\x80"), 0);
	ck_assert_int_eq(U8("\xfc\x84\x80\x80\x80\x80"), 0);
	ck_assert_int_eq(U8("\xfe"), 0);
	ck_assert_int_eq(U8("\xff"), 0);
}
END_TEST

START_TEST(utf8_valid_rejects_truncated_and_stray)
{
	ck_assert_int_eq(U8("\xc3"), 0);
	ck_assert_int_eq(U8("a\xe4\xb8"), 0);
	ck_assert_int_eq(U8("\xf0\x90\x80"), 0);
	ck_assert_int_eq(U8("\x80"), 0);
	ck_assert_int_eq(U8("a\xbf"), 0);
	ck_assert_int_eq(U8("\xc3\x28"), 0);
	ck_assert_int_eq(U8("\xe4\x28\x96"), 0);
	/* The length bounds the check, not a NUL. */
	ck_assert_int_eq(wymcp__utf8_valid("\xc3\xa9", 1), 0);
	ck_assert_int_eq(wymcp__utf8_valid("\xc3\xa9", 2), 1);
	ck_assert_int_eq(wymcp__utf8_valid("ok\xff", 2), 1);
}
END_TEST

START_TEST(host_loopback_allowed)
{
	ck_assert_int_eq(wymcp__host_allowed(srv, "localhost", NULL), 1);
	ck_assert_int_eq(wymcp__host_allowed(srv, "LOCALHOST:8080", NULL), 1);
	ck_assert_int_eq(wymcp__host_allowed(srv, "127.0.0.1", NULL), 1);
	ck_assert_int_eq(wymcp__host_allowed(srv, "127.0.0.1:1", NULL), 1);
	ck_assert_int_eq(wymcp__host_allowed(srv, "[::1]", NULL), 1);
	ck_assert_int_eq(wymcp__host_allowed(srv, "[::1]:80", NULL), 1);
}
END_TEST

START_TEST(host_absent_allowed)
{
	ck_assert_int_eq(wymcp__host_allowed(srv, NULL, NULL), 1);
	ck_assert_int_eq(wymcp__host_allowed(srv, "", NULL), 1);
}
END_TEST

START_TEST(host_other_refused)
{
	ck_assert_int_eq(wymcp__host_allowed(srv, "evil.example.com", NULL),
	    0);
	ck_assert_int_eq(wymcp__host_allowed(srv, "evil.example.com:80",
	    NULL), 0);
	ck_assert_int_eq(wymcp__host_allowed(srv, "localhost.evil.com",
	    NULL), 0);
	ck_assert_int_eq(wymcp__host_allowed(srv, "127.0.0.2", NULL), 0);
	ck_assert_int_eq(wymcp__host_allowed(srv, "[::2]:80", NULL), 0);
	ck_assert_int_eq(wymcp__host_allowed(srv, "[::1", NULL), 0);
	ck_assert_int_eq(wymcp__host_allowed(srv, ":80", NULL), 0);
	ck_assert_int_eq(wymcp__host_allowed(srv, "mcp.example.com", NULL),
	    0);
}
END_TEST

START_TEST(host_allowed_by_configured_origin)
{
	ck_assert_int_eq(wymcp_server_allow_origin(srv,
	    "https://mcp.example.com"), WYMCP_OK);
	ck_assert_int_eq(wymcp__host_allowed(srv, "mcp.example.com:443",
	    NULL), 1);
	ck_assert_int_eq(wymcp__host_allowed(srv, "mcp.example.com", NULL),
	    1);
	ck_assert_int_eq(wymcp__host_allowed(srv, "MCP.Example.COM", NULL),
	    1);
	ck_assert_int_eq(wymcp__host_allowed(srv, "other.example.com", NULL),
	    0);
	ck_assert_int_eq(wymcp__host_allowed(srv, "mcp.example.com.evil",
	    NULL), 0);
	ck_assert_int_eq(wymcp__host_allowed(srv, "example.com", NULL), 0);
}
END_TEST

START_TEST(host_allowed_by_configured_bare_host)
{
	ck_assert_int_eq(wymcp_server_allow_origin(srv, "Internal.Host"),
	    WYMCP_OK);
	ck_assert_int_eq(wymcp__host_allowed(srv, "internal.host:8080", NULL),
	    1);
	ck_assert_int_eq(wymcp__host_allowed(srv, "internal.hostx", NULL), 0);
}
END_TEST

START_TEST(host_allowed_by_location_list)
{
	const char	*extra = "a.example b.example";

	ck_assert_int_eq(wymcp__host_allowed(srv, "a.example", extra), 1);
	ck_assert_int_eq(wymcp__host_allowed(srv, "b.example:8443", extra),
	    1);
	ck_assert_int_eq(wymcp__host_allowed(srv, "B.EXAMPLE", extra), 1);
	ck_assert_int_eq(wymcp__host_allowed(srv, "c.example", extra), 0);
	ck_assert_int_eq(wymcp__host_allowed(srv, "example", extra), 0);
	ck_assert_int_eq(wymcp__host_allowed(srv, "a.exampl", extra), 0);
	ck_assert_int_eq(wymcp__host_allowed(srv, "a.example",
	    "x.example,a.example"), 1);
	/* An origin in the list allows its host. */
	ck_assert_int_eq(wymcp__host_allowed(srv, "c.example:1",
	    "https://c.example:444"), 1);
	ck_assert_int_eq(wymcp__host_allowed(srv, "c.example", ""), 0);
}
END_TEST

START_TEST(origin_absent_allowed)
{
	ck_assert_int_eq(wymcp__origin_allowed(srv, NULL, NULL), 1);
}
END_TEST

START_TEST(origin_loopback_allowed)
{
	ck_assert_int_eq(wymcp__origin_allowed(srv, "http://localhost:3000",
	    NULL), 1);
	ck_assert_int_eq(wymcp__origin_allowed(srv, "http://localhost", NULL),
	    1);
	ck_assert_int_eq(wymcp__origin_allowed(srv, "https://127.0.0.1:8443",
	    NULL), 1);
	ck_assert_int_eq(wymcp__origin_allowed(srv, "http://[::1]:8080",
	    NULL), 1);
	ck_assert_int_eq(wymcp__origin_allowed(srv, "HTTP://LOCALHOST", NULL),
	    1);
}
END_TEST

START_TEST(origin_other_refused)
{
	ck_assert_int_eq(wymcp__origin_allowed(srv,
	    "http://evil.example.com", NULL), 0);
	ck_assert_int_eq(wymcp__origin_allowed(srv, "null", NULL), 0);
	ck_assert_int_eq(wymcp__origin_allowed(srv, "", NULL), 0);
	ck_assert_int_eq(wymcp__origin_allowed(srv, "localhost", NULL), 0);
	ck_assert_int_eq(wymcp__origin_allowed(srv, "file://localhost",
	    NULL), 0);
	ck_assert_int_eq(wymcp__origin_allowed(srv,
	    "http://localhost.evil.com", NULL), 0);
	ck_assert_int_eq(wymcp__origin_allowed(srv,
	    "http://localhost@evil.com", NULL), 0);
	ck_assert_int_eq(wymcp__origin_allowed(srv, "http://", NULL), 0);
	ck_assert_int_eq(wymcp__origin_allowed(srv, "http://[::1", NULL), 0);
}
END_TEST

START_TEST(origin_configured_exact)
{
	ck_assert_int_eq(wymcp_server_allow_origin(srv,
	    "https://mcp.example.com"), WYMCP_OK);
	ck_assert_int_eq(wymcp__origin_allowed(srv, "https://mcp.example.com",
	    NULL), 1);
	ck_assert_int_eq(wymcp__origin_allowed(srv, "HTTPS://MCP.EXAMPLE.COM",
	    NULL), 1);
	ck_assert_int_eq(wymcp__origin_allowed(srv,
	    "https://mcp.example.com:444", NULL), 0);
	ck_assert_int_eq(wymcp__origin_allowed(srv, "http://mcp.example.com",
	    NULL), 0);
	ck_assert_int_eq(wymcp__origin_allowed(srv,
	    "https://mcp.example.com.evil", NULL), 0);
}
END_TEST

START_TEST(origin_configured_bare_host_any_port)
{
	ck_assert_int_eq(wymcp_server_allow_origin(srv, "mcp.example.com"),
	    WYMCP_OK);
	ck_assert_int_eq(wymcp__origin_allowed(srv,
	    "https://mcp.example.com:444", NULL), 1);
	ck_assert_int_eq(wymcp__origin_allowed(srv, "http://mcp.example.com",
	    NULL), 1);
	ck_assert_int_eq(wymcp__origin_allowed(srv,
	    "https://xmcp.example.com", NULL), 0);
	ck_assert_int_eq(wymcp__origin_allowed(srv, "ftp://mcp.example.com",
	    NULL), 0);
}
END_TEST

START_TEST(origin_location_list)
{
	const char	*extra = "https://a.example b.example";

	ck_assert_int_eq(wymcp__origin_allowed(srv, "https://a.example",
	    extra), 1);
	ck_assert_int_eq(wymcp__origin_allowed(srv, "https://a.example:8443",
	    extra), 0);
	ck_assert_int_eq(wymcp__origin_allowed(srv, "http://a.example",
	    extra), 0);
	ck_assert_int_eq(wymcp__origin_allowed(srv, "https://b.example:9",
	    extra), 1);
	ck_assert_int_eq(wymcp__origin_allowed(srv, "http://b.example",
	    extra), 1);
	ck_assert_int_eq(wymcp__origin_allowed(srv, "https://c.example",
	    extra), 0);
	ck_assert_int_eq(wymcp__origin_allowed(srv, "null", extra), 0);
}
END_TEST

START_TEST(content_type_json_ok)
{
	ck_assert_int_eq(wymcp__content_type_ok(NULL), 1);
	ck_assert_int_eq(wymcp__content_type_ok(""), 1);
	ck_assert_int_eq(wymcp__content_type_ok("application/json"), 1);
	ck_assert_int_eq(wymcp__content_type_ok(
	    "application/json; charset=utf-8"), 1);
	ck_assert_int_eq(wymcp__content_type_ok(
	    "application/json;charset=utf-8"), 1);
	ck_assert_int_eq(wymcp__content_type_ok("Application/JSON"), 1);
	ck_assert_int_eq(wymcp__content_type_ok(" application/json "), 1);
}
END_TEST

START_TEST(content_type_other_rejected)
{
	ck_assert_int_eq(wymcp__content_type_ok("application/jsonx"), 0);
	ck_assert_int_eq(wymcp__content_type_ok(
	    "application/json-patch+json"), 0);
	ck_assert_int_eq(wymcp__content_type_ok("text/plain"), 0);
	ck_assert_int_eq(wymcp__content_type_ok(
	    "application/x-www-form-urlencoded"), 0);
	ck_assert_int_eq(wymcp__content_type_ok("text/event-stream"), 0);
	ck_assert_int_eq(wymcp__content_type_ok("application/"), 0);
}
END_TEST

/*
 * The reason phrase of every status wymcp sends (RFC 9110 section 15;
 * 429: RFC 6585 section 4), written out here again on purpose.
 */
static const struct {
	int		 status;
	const char	*text;
} sent[] = {
	{ 200, "OK" },
	{ 202, "Accepted" },
	{ 204, "No Content" },
	{ 304, "Not Modified" },
	{ 400, "Bad Request" },
	{ 401, "Unauthorized" },
	{ 403, "Forbidden" },
	{ 404, "Not Found" },
	{ 405, "Method Not Allowed" },
	{ 413, "Content Too Large" },
	{ 415, "Unsupported Media Type" },
	{ 429, "Too Many Requests" },
	{ 500, "Internal Server Error" },
	{ 503, "Service Unavailable" },
	{ 504, "Gateway Timeout" },
};

static const char *
sent_text(int status)
{
	size_t	 i;

	for (i = 0; i < sizeof(sent) / sizeof(sent[0]); i++)
		if (sent[i].status == status)
			return sent[i].text;
	return NULL;
}

START_TEST(status_text_reason_phrases)
{
	size_t	 i;

	for (i = 0; i < sizeof(sent) / sizeof(sent[0]); i++)
		ck_assert_str_eq(wymcp__status_text(sent[i].status),
		    sent[i].text);
	/* The one nginx showed as "429 Internal Server Error" (0.4). */
	ck_assert_str_eq(wymcp__status_text(429), "Too Many Requests");
	/* A status no RFC names gets no phrase, never a wrong one. */
	ck_assert_str_eq(wymcp__status_text(299), "");
	ck_assert_str_eq(wymcp__status_text(0), "");
	ck_assert_str_eq(wymcp__status_text(1000), "");
}
END_TEST

/*
 * Every status the sources can send: the literal ones of
 * wymcp__reply_error(), wymcp__reply_no_method(), fail(), the
 * assignments of a status, and the "Status: NNN Phrase" heads written
 * by hand (whose phrase must be right too).  Each is in sent[], and
 * wymcp__status_text() gives its phrase.
 */
#define STATUS_GREP	"grep -rhoE '" \
	"(reply_error|reply_no_method|fail)" \
	"\\([^,]*, *[^,]*, *[1-5][0-9]{2}\\b|" \
	"status *= *[1-5][0-9]{2}\\b|" \
	"\\? *[1-5][0-9]{2} *: *[1-5][0-9]{2}\\b|" \
	"Status: [1-5][0-9]{2}( [A-Za-z][A-Za-z -]*)?' "

START_TEST(every_status_sent_has_its_phrase)
{
	FILE		*p;
	const char	*top, *c, *want;
	char		 cmd[1024], line[512], *nl;
	int		 lines = 0, saw429 = 0, st;

	if ((top = getenv("top_srcdir")) == NULL || *top == '\0')
		top = ".";
	snprintf(cmd, sizeof(cmd), STATUS_GREP "'%s/src'", top);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	while (fgets(line, sizeof(line), p) != NULL) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl = '\0';
		lines++;
		/* Each three-digit number of the line is a status. */
		for (c = line; *c != '\0'; c++) {
			if (c[0] < '1' || c[0] > '5' || c[1] < '0' ||
			    c[1] > '9' || c[2] < '0' || c[2] > '9' ||
			    (c > line && c[-1] >= '0' && c[-1] <= '9'))
				continue;
			st = (c[0] - '0') * 100 + (c[1] - '0') * 10 +
			    (c[2] - '0');
			want = sent_text(st);
			ck_assert_msg(want != NULL, "status %d is sent (%s) "
			    "but has no phrase in sent[]", st, line);
			ck_assert_msg(strcmp(wymcp__status_text(st), want) ==
			    0, "status %d: '%s', wanted '%s'", st,
			    wymcp__status_text(st), want);
			if (st == 429)
				saw429 = 1;
			/* A head written by hand: its phrase too. */
			if (strncmp(line, "Status: ", 8) == 0 && c[3] == ' ')
				ck_assert_msg(strcmp(c + 4, want) == 0,
				    "'%s': the phrase of %d is '%s'", line,
				    st, want);
			c += 2;
		}
	}
	ck_assert_int_eq(pclose(p), 0);
	/* The grep found the sources, and the task quota's 429. */
	ck_assert_int_gt(lines, 40);
	ck_assert(saw429);
}
END_TEST

static Suite *
http_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("http");
	tc = tcase_create("header");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, header_chars_vchar_sp_htab_ok);
	tcase_add_test(tc, header_chars_obs_text_rejected);
	tcase_add_test(tc, header_chars_ctl_rejected);
	tcase_add_test(tc, header_trim_sp_htab);
	suite_add_tcase(s, tc);

	tc = tcase_create("base64");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, hex_is_sodiums);
	tcase_add_test(tc, b64url_round_trips_every_length);
	tcase_add_test(tc, b64url_refuses_what_no_encoder_writes);
	tcase_add_test(tc, base64_rfc4648_section10_vectors);
	tcase_add_test(tc, base64_bad_padding_rejected);
	tcase_add_test(tc, base64_bad_chars_rejected);
	tcase_add_test(tc, base64_non_canonical_bits_rejected);
	tcase_add_test(tc, sentinel_decodes_utf8);
	tcase_add_test(tc, sentinel_keeps_padding_spaces);
	tcase_add_test(tc, sentinel_empty_payload);
	tcase_add_test(tc, sentinel_without_prefix_or_suffix_is_literal);
	tcase_add_test(tc, sentinel_bad_base64_rejected);
	tcase_add_test(tc, sentinel_invalid_utf8_rejected);
	suite_add_tcase(s, tc);

	tc = tcase_create("utf8");
	tcase_add_test(tc, utf8_valid_accepts_well_formed);
	tcase_add_test(tc, utf8_valid_rejects_overlongs);
	tcase_add_test(tc, utf8_valid_rejects_surrogates);
	tcase_add_test(tc, utf8_valid_rejects_beyond_u10ffff);
	tcase_add_test(tc, utf8_valid_rejects_truncated_and_stray);
	suite_add_tcase(s, tc);

	tc = tcase_create("host_origin");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, host_loopback_allowed);
	tcase_add_test(tc, host_absent_allowed);
	tcase_add_test(tc, host_other_refused);
	tcase_add_test(tc, host_allowed_by_configured_origin);
	tcase_add_test(tc, host_allowed_by_configured_bare_host);
	tcase_add_test(tc, host_allowed_by_location_list);
	tcase_add_test(tc, origin_absent_allowed);
	tcase_add_test(tc, origin_loopback_allowed);
	tcase_add_test(tc, origin_other_refused);
	tcase_add_test(tc, origin_configured_exact);
	tcase_add_test(tc, origin_configured_bare_host_any_port);
	tcase_add_test(tc, origin_location_list);
	suite_add_tcase(s, tc);

	tc = tcase_create("misc");
	tcase_add_test(tc, content_type_json_ok);
	tcase_add_test(tc, content_type_other_rejected);
	tcase_add_test(tc, status_text_reason_phrases);
	tcase_add_test(tc, every_status_sent_has_its_phrase);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 nfailed;

	sr = srunner_create(http_suite());
	srunner_run_all(sr, CK_ENV);
	nfailed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfailed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
