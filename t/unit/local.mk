# t/unit: one Check suite per library module.
UNIT_TESTS = \
	%reldir%/check_apps \
	%reldir%/check_args \
	%reldir%/check_author \
	%reldir%/check_arena \
	%reldir%/check_card \
	%reldir%/check_content \
	%reldir%/check_ctx \
	%reldir%/check_http \
	%reldir%/check_index \
	%reldir%/check_intake \
	%reldir%/check_jsonf \
	%reldir%/check_jwt \
	%reldir%/check_meta \
	%reldir%/check_module \
	%reldir%/check_options \
	%reldir%/check_otlpm \
	%reldir%/check_peer \
	%reldir%/check_ratelimit \
	%reldir%/check_rpc \
	%reldir%/check_schema \
	%reldir%/check_seal \
	%reldir%/check_share \
	%reldir%/check_shapes \
	%reldir%/check_store \
	%reldir%/check_testing \
	%reldir%/check_uritpl \
	%reldir%/check_xheader
check_PROGRAMS += $(UNIT_TESTS)
TESTS += $(UNIT_TESTS)
# wymcp-fcgi's hub's event parser (src/front/intake.c, compiled in: it
# is a program's file, not the library's), and its sealed frames
# (src/front/control.c, with log.c for its log lines).
%canon_reldir%_check_intake_SOURCES = %reldir%/check_intake.c \
	src/front/intake.c src/front/control.c src/front/log.c
%canon_reldir%_check_intake_LDADD = src/prog/libprog.la $(LDADD)
# ... and its index of streams by URI and list kind (src/front/index.c).
%canon_reldir%_check_index_SOURCES = %reldir%/check_index.c \
	src/front/index.c
# The programs' --allow-peer matcher (src/prog/libprog.la: it is not in
# the library).
%canon_reldir%_check_peer_SOURCES = %reldir%/check_peer.c
%canon_reldir%_check_peer_LDADD = src/prog/libprog.la $(LDADD)

# wymcp-fcgi's rate limits (src/front/ratelimit.c, included; its
# shared table, src/front/shm.c, compiled in).
%canon_reldir%_check_ratelimit_SOURCES = %reldir%/check_ratelimit.c \
	src/front/shm.c
%canon_reldir%_check_ratelimit_LDADD = $(SODIUM_LIBS) $(LDADD)

# wymcp-fcgi's exporter's mcp.server.operation.duration histogram
# (src/front/otlpm.c, included).
%canon_reldir%_check_otlpm_SOURCES = %reldir%/check_otlpm.c
%canon_reldir%_check_otlpm_LDADD = $(JSONC_LIBS) $(CHECK_LIBS)

# wymcp-fcgi's shares per principal (src/front/share.c, included; its
# shared table, src/front/shm.c, compiled in).
%canon_reldir%_check_share_SOURCES = %reldir%/check_share.c \
	src/front/shm.c
%canon_reldir%_check_share_LDADD = $(SODIUM_LIBS) $(CHECK_LIBS)

# wymcp-fcgi's table of options (a program's files, with libprog).
%canon_reldir%_check_options_SOURCES = %reldir%/check_options.c \
	src/front/options.c src/front/config.c src/front/log.c
%canon_reldir%_check_options_LDADD = src/prog/libprog.la $(LDADD)

# wymcp-authz's tokens, keys and answers (src/authz/libauthz.la).
%canon_reldir%_check_jwt_CFLAGS = $(AM_CFLAGS) $(OPENSSL_CFLAGS)
%canon_reldir%_check_jwt_LDADD = $(AUTHZ_LIBS) $(CHECK_LIBS)
