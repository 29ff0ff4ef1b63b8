# src/authz: wymcp-authz, the OAuth 2.1 resource-server authorizer for
# nginx auth_request and Apache mod_authnz_fcgi (a program beside the
# front end; of the library it uses wymcp.h alone).  Its code below
# main.c is a convenience library that the tests link too.
noinst_LTLIBRARIES += %reldir%/libauthz.la
%canon_reldir%_libauthz_la_SOURCES = %reldir%/authz.h %reldir%/codec.c \
	%reldir%/fetch.c %reldir%/jwks.c %reldir%/jwt.c \
	%reldir%/introspect.c %reldir%/answer.c
%canon_reldir%_libauthz_la_CFLAGS = $(AM_CFLAGS) $(OPENSSL_CFLAGS) \
	$(CURL_CFLAGS)
%canon_reldir%_libauthz_la_LIBADD = src/prog/libprog.la $(OPENSSL_LIBS) \
	$(CURL_LIBS) $(JSONC_LIBS) $(SODIUM_LIBS) -lm
AUTHZ_LIBS = %reldir%/libauthz.la $(OPENSSL_LIBS) $(CURL_LIBS) \
	$(JSONC_LIBS) $(SODIUM_LIBS) -lm

bin_PROGRAMS += %reldir%/wymcp-authz
%canon_reldir%_wymcp_authz_SOURCES = %reldir%/main.c
%canon_reldir%_wymcp_authz_CFLAGS = $(AM_CFLAGS) $(FCGI_CFLAGS) \
	$(OPENSSL_CFLAGS) $(CURL_CFLAGS)
%canon_reldir%_wymcp_authz_LDADD = $(AUTHZ_LIBS) $(FCGI_LIBS)
%canon_reldir%_wymcp_authz_LDFLAGS = $(BASE_LDFLAGS)
