/*
 * check_peer.c - the --allow-peer address matcher (src/prog/peer.c)
 *
 * peer.c is linked in from src/prog/libprog.la: it is part of both
 * programs, wymcp-fcgi and wymcp-authz, not of the library.  Parsing
 * ADDR[/BITS] for IPv4, IPv6 and v4-mapped IPv6;
 * matching peers of every family against a list (an IPv4 peer arriving
 * v4-mapped on a dual-stack socket matches an IPv4 entry, and the
 * other way round); what counts as loopback for the startup rule.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/socket.h>
#include <sys/un.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "prog/prog.h"

static struct sockaddr_storage	 ss;
static socklen_t		 sslen;

/* `ss' holds the address `a' (IPv4, or IPv6 when it has a colon). */
static const struct sockaddr *
sa(const char *a)
{
	struct sockaddr_in	*s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6	*s6 = (struct sockaddr_in6 *)&ss;

	memset(&ss, 0, sizeof(ss));
	if (strchr(a, ':') != NULL) {
		s6->sin6_family = AF_INET6;
		ck_assert_int_eq(inet_pton(AF_INET6, a, &s6->sin6_addr), 1);
		sslen = sizeof(*s6);
	} else {
		s4->sin_family = AF_INET;
		ck_assert_int_eq(inet_pton(AF_INET, a, &s4->sin_addr), 1);
		sslen = sizeof(*s4);
	}
	return (const struct sockaddr *)&ss;
}

/* Is peer `a' allowed by the list? */
static int
in_list(const struct prog_peer *p, size_t n, const char *a)
{
	const struct sockaddr	*s = sa(a);

	return prog_peer_allowed(p, n, s, sslen);
}

/* Is peer `a' allowed by the one entry `spec'? */
static int
allowed(const char *spec, const char *a)
{
	struct prog_peer	 p;
	char			 err[128];

	ck_assert_msg(prog_peer_parse(spec, &p, err, sizeof(err)) == 0,
	    "%s: %s", spec, err);
	return in_list(&p, 1, a);
}

/* Is `a' loopback? */
static int
is_loopback(const char *a)
{
	const struct sockaddr	*s = sa(a);

	return prog_addr_loopback(s, sslen);
}

/* `a' as prog_addr_str() prints it. */
static const char *
str(const char *a, char *buf, size_t len)
{
	const struct sockaddr	*s = sa(a);

	return prog_addr_str(s, sslen, buf, len);
}

/* prog_peer_parse() of `spec' fails, with a message naming it. */
static void
refused(const char *spec)
{
	struct prog_peer	 p;
	char			 err[128] = "";

	ck_assert_msg(prog_peer_parse(spec, &p, err, sizeof(err)) == -1,
	    "%s was accepted", spec);
	ck_assert_ptr_nonnull(strstr(err, spec));
}

START_TEST(parse_forms)
{
	struct prog_peer	 p;
	char			 err[128];

	ck_assert_int_eq(prog_peer_parse("127.0.0.1", &p, err,
	    sizeof(err)), 0);
	ck_assert_int_eq(p.bits, 128);
	ck_assert_int_eq(p.addr[10], 0xff);
	ck_assert_int_eq(p.addr[11], 0xff);
	ck_assert_int_eq(p.addr[12], 127);
	ck_assert_int_eq(prog_peer_parse("10.0.0.0/8", &p, err,
	    sizeof(err)), 0);
	ck_assert_int_eq(p.bits, 104);
	ck_assert_int_eq(prog_peer_parse("0.0.0.0/0", &p, err,
	    sizeof(err)), 0);
	ck_assert_int_eq(p.bits, 96);
	ck_assert_int_eq(prog_peer_parse("::1", &p, err, sizeof(err)), 0);
	ck_assert_int_eq(p.bits, 128);
	ck_assert_int_eq(p.addr[15], 1);
	ck_assert_int_eq(prog_peer_parse("[::1]", &p, err, sizeof(err)), 0);
	ck_assert_int_eq(p.bits, 128);
	ck_assert_int_eq(prog_peer_parse("[2001:db8::]/32", &p, err,
	    sizeof(err)), 0);
	ck_assert_int_eq(p.bits, 32);
	ck_assert_int_eq(prog_peer_parse("2001:db8::/32", &p, err,
	    sizeof(err)), 0);
	ck_assert_int_eq(prog_peer_parse("::ffff:10.0.0.0/104", &p, err,
	    sizeof(err)), 0);
	ck_assert_int_eq(p.bits, 104);
	ck_assert_int_eq(prog_peer_parse("::/0", &p, err, sizeof(err)), 0);
	ck_assert_int_eq(p.bits, 0);
	ck_assert_int_eq(prog_peer_parse("10.128.0.0/9", &p, err,
	    sizeof(err)), 0);
}
END_TEST

START_TEST(parse_refusals)
{
	struct prog_peer	 p;
	char			 err[128];

	ck_assert_int_eq(prog_peer_parse("", &p, err, sizeof(err)), -1);
	ck_assert_int_eq(prog_peer_parse(NULL, &p, err, sizeof(err)), -1);
	refused("localhost");
	refused("1.2.3");
	refused("1.2.3.4.5");
	refused("256.0.0.1");
	refused("1.2.3.4/33");
	refused("1.2.3.4/");
	refused("1.2.3.4/-1");
	refused("1.2.3.4/8x");
	refused("1.2.3.4/ 8");
	refused("1.2.3.4/0008");
	refused("::1/129");
	refused("[::1");
	refused("[1.2.3.4]");
	refused("fe80::1%eth0");
	refused("::1]");
	/* Host bits beyond the prefix: a likely typo. */
	refused("10.0.0.1/8");
	refused("10.192.0.0/9");
	refused("2001:db8::1/64");
	refused("fd00::/7");
	refused("::ffff:10.0.0.1/104");
	refused("1.2.3.4/0");
}
END_TEST

START_TEST(match_ipv4)
{
	ck_assert(allowed("127.0.0.1", "127.0.0.1"));
	ck_assert(!allowed("127.0.0.1", "127.0.0.2"));
	ck_assert(allowed("127.0.0.0/8", "127.255.255.254"));
	ck_assert(!allowed("127.0.0.0/8", "128.0.0.1"));
	ck_assert(allowed("10.0.0.0/8", "10.1.2.3"));
	ck_assert(!allowed("10.0.0.0/8", "11.0.0.1"));
	/* A prefix that is not a whole number of bytes. */
	ck_assert(allowed("10.0.0.0/9", "10.127.255.255"));
	ck_assert(!allowed("10.0.0.0/9", "10.128.0.0"));
	ck_assert(allowed("10.128.0.0/9", "10.200.0.1"));
	ck_assert(allowed("192.168.1.0/31", "192.168.1.1"));
	ck_assert(!allowed("192.168.1.0/31", "192.168.1.2"));
	ck_assert(allowed("0.0.0.0/0", "203.0.113.9"));
	/* An IPv4 entry allows no real IPv6 peer. */
	ck_assert(!allowed("0.0.0.0/0", "::1"));
	ck_assert(!allowed("0.0.0.0/0", "2001:db8::1"));
}
END_TEST

START_TEST(match_ipv6)
{
	ck_assert(allowed("::1", "::1"));
	ck_assert(!allowed("::1", "::2"));
	ck_assert(allowed("2001:db8::/32", "2001:db8:ffff::5"));
	ck_assert(!allowed("2001:db8::/32", "2001:db9::"));
	ck_assert(allowed("fc00::/7", "fd00::1"));
	ck_assert(allowed("fc00::/7", "fdff::1"));
	ck_assert(!allowed("fc00::/7", "fe00::1"));
	ck_assert(allowed("::/0", "2001:db8::1"));
	/* ::1 is not 127.0.0.1. */
	ck_assert(!allowed("::1", "127.0.0.1"));
	ck_assert(!allowed("127.0.0.1", "::1"));
}
END_TEST

START_TEST(match_v4_mapped)
{
	/* An IPv4 peer on a dual-stack socket arrives v4-mapped. */
	ck_assert(allowed("127.0.0.1", "::ffff:127.0.0.1"));
	ck_assert(allowed("127.0.0.0/8", "::ffff:127.9.9.9"));
	ck_assert(!allowed("127.0.0.0/8", "::ffff:10.0.0.1"));
	ck_assert(!allowed("::1", "::ffff:127.0.0.1"));
	/* And a v4-mapped entry matches a plain IPv4 peer. */
	ck_assert(allowed("::ffff:10.0.0.0/104", "10.2.3.4"));
	ck_assert(!allowed("::ffff:10.0.0.0/104", "11.2.3.4"));
	ck_assert(allowed("::/0", "10.2.3.4"));
}
END_TEST

START_TEST(match_lists_and_families)
{
	struct prog_peer	 p[3];
	struct sockaddr_un	 un;
	char			 err[128];

	ck_assert_int_eq(prog_peer_parse("10.0.0.5", &p[0], err,
	    sizeof(err)), 0);
	ck_assert_int_eq(prog_peer_parse("::1", &p[1], err, sizeof(err)),
	    0);
	ck_assert_int_eq(prog_peer_parse("192.0.2.0/24", &p[2], err,
	    sizeof(err)), 0);
	ck_assert(in_list(p, 3, "10.0.0.5"));
	ck_assert(in_list(p, 3, "::1"));
	ck_assert(in_list(p, 3, "192.0.2.77"));
	ck_assert(!in_list(p, 3, "10.0.0.6"));
	ck_assert(!in_list(p, 3, "127.0.0.1"));
	/* No list: anyone. */
	ck_assert(in_list(p, 0, "203.0.113.1"));
	/* A short address, or one of another family, never. */
	ck_assert(!prog_peer_allowed(p, 3, sa("10.0.0.5"), 4));
	ck_assert(!prog_peer_allowed(p, 0, sa("::1"), 8));
	ck_assert(!prog_peer_allowed(p, 3, NULL, 0));
	/* Unix-domain peers are never filtered. */
	memset(&un, 0, sizeof(un));
	un.sun_family = AF_UNIX;
	ck_assert(prog_peer_allowed(p, 3, (struct sockaddr *)&un,
	    sizeof(sa_family_t)));
}
END_TEST

/* A growing list, and FCGI_WEB_SERVER_ADDRS read into it. */
START_TEST(lists)
{
	struct prog_peer	*v = NULL;
	size_t		 n = 0;
	char		 err[256];

	ck_assert_int_eq(prog_peers_add(&v, &n, "10.0.0.0/8", err,
	    sizeof(err)), 0);
	ck_assert_int_eq(prog_peers_add(&v, &n, "10.0.0.0/33", err,
	    sizeof(err)), -1);
	ck_assert_msg(err[0] != '\0', "no reason given");
	ck_assert_uint_eq(n, 1);
	ck_assert(setenv("FCGI_WEB_SERVER_ADDRS", "192.0.2.7, 2001:db8::1",
	    1) == 0);
	ck_assert_int_eq(prog_peers_env(&v, &n, err, sizeof(err)), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert(in_list(v, n, "10.1.2.3"));
	ck_assert(in_list(v, n, "192.0.2.7"));
	ck_assert(in_list(v, n, "2001:db8::1"));
	ck_assert(!in_list(v, n, "192.0.2.8"));
	ck_assert(setenv("FCGI_WEB_SERVER_ADDRS", "192.0.2.7,nope", 1) == 0);
	ck_assert_int_eq(prog_peers_env(&v, &n, err, sizeof(err)), -1);
	ck_assert(unsetenv("FCGI_WEB_SERVER_ADDRS") == 0);
	ck_assert_int_eq(prog_peers_env(&v, &n, err, sizeof(err)), 0);
	free(v);
}
END_TEST

/* A refusal is said at most once a second, counting those unsaid. */
START_TEST(refusals_said)
{
	struct prog_refusals	 r;
	const struct sockaddr	*p;
	char			 buf[160];
	const char		*m;

	memset(&r, 0, sizeof(r));
	p = sa("192.0.2.9");
	m = prog_refused(&r, 5000, p, sslen, buf, sizeof(buf));
	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(m, "refused a FastCGI connection from 192.0.2.9: "
	    "not in --allow-peer");
	ck_assert_ptr_null(prog_refused(&r, 5500, p, sslen, buf,
	    sizeof(buf)));
	ck_assert_ptr_null(prog_refused(&r, 5999, p, sslen, buf,
	    sizeof(buf)));
	p = sa("192.0.2.10");
	m = prog_refused(&r, 6000, p, sslen, buf, sizeof(buf));
	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(m, "refused a FastCGI connection from 192.0.2.10: "
	    "not in --allow-peer (and others since the last such line)");
}
END_TEST

START_TEST(loopback)
{
	struct sockaddr_un	 un;

	ck_assert(is_loopback("127.0.0.1"));
	ck_assert(is_loopback("127.255.0.1"));
	ck_assert(!is_loopback("10.0.0.1"));
	ck_assert(!is_loopback("0.0.0.0"));
	ck_assert(is_loopback("::1"));
	ck_assert(!is_loopback("::"));
	ck_assert(is_loopback("::ffff:127.0.0.1"));
	ck_assert(!is_loopback("::ffff:10.0.0.1"));
	ck_assert(!is_loopback("2001:db8::1"));
	memset(&un, 0, sizeof(un));
	un.sun_family = AF_UNIX;
	ck_assert(prog_addr_loopback((struct sockaddr *)&un, sizeof(un)));
	ck_assert(!prog_addr_loopback(NULL, 0));
}
END_TEST

START_TEST(addr_str)
{
	char	 buf[64];

	ck_assert_str_eq(str("192.0.2.1", buf, sizeof(buf)), "192.0.2.1");
	ck_assert_str_eq(str("::ffff:127.0.0.1", buf, sizeof(buf)),
	    "::ffff:127.0.0.1");
	ck_assert_str_eq(str("2001:db8::1", buf, sizeof(buf)), "2001:db8::1");
	ck_assert_str_eq(prog_addr_str(NULL, 0, buf, sizeof(buf)), "?");
}
END_TEST

static Suite *
peer_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("peer");
	tc = tcase_create("parse");
	tcase_add_test(tc, parse_forms);
	tcase_add_test(tc, parse_refusals);
	suite_add_tcase(s, tc);
	tc = tcase_create("match");
	tcase_add_test(tc, match_ipv4);
	tcase_add_test(tc, match_ipv6);
	tcase_add_test(tc, match_v4_mapped);
	tcase_add_test(tc, match_lists_and_families);
	tcase_add_test(tc, lists);
	tcase_add_test(tc, refusals_said);
	tcase_add_test(tc, loopback);
	tcase_add_test(tc, addr_str);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 failed;

	sr = srunner_create(peer_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
