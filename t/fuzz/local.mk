# t/fuzz: libFuzzer entry points.  `make check` builds them with a small
# replay driver and runs every seed (t/fuzz/replay-all); t/fuzz/run
# builds them with clang -fsanitize=fuzzer for real fuzzing (`make fuzz`,
# and the "fuzz" layer of ./runtests).
FUZZ_REPLAY = %reldir%/replay_serve %reldir%/replay_schema \
	%reldir%/replay_sentinel %reldir%/replay_state %reldir%/replay_xheader \
	%reldir%/replay_uritpl %reldir%/replay_inputs %reldir%/replay_keyfile \
	%reldir%/replay_jwt %reldir%/replay_tasks %reldir%/replay_relay \
	%reldir%/replay_jwks %reldir%/replay_config %reldir%/replay_frontmatter \
	%reldir%/replay_card %reldir%/replay_jsonf %reldir%/replay_intake \
	%reldir%/replay_exec %reldir%/replay_rate %reldir%/replay_otlpm
# Exec tool manifests (wymcp-exec(5)).
%canon_reldir%_replay_exec_SOURCES = %reldir%/fuzz_exec.c \
	%reldir%/replay.c
%canon_reldir%_replay_serve_SOURCES = %reldir%/fuzz_serve.c \
	%reldir%/memio.c %reldir%/memio.h %reldir%/replay.c
# The server card (discovery outside MCP).
%canon_reldir%_replay_card_SOURCES = %reldir%/fuzz_card.c \
	%reldir%/memio.c %reldir%/memio.h %reldir%/replay.c
# JSON templates (wymcp_jsonf(3)).
%canon_reldir%_replay_jsonf_SOURCES = %reldir%/fuzz_jsonf.c \
	%reldir%/replay.c
# The span exporter's histogram (src/front/otlpm.c, included): span lines.
%canon_reldir%_replay_otlpm_SOURCES = %reldir%/fuzz_otlpm.c \
	%reldir%/replay.c
%canon_reldir%_replay_otlpm_LDADD = $(JSONC_LIBS) $(LDADD)
# A rate limit's text (wymcp_rate_parse(): --rate-limit, a tool's rate).
%canon_reldir%_replay_rate_SOURCES = %reldir%/fuzz_rate.c \
	%reldir%/replay.c
%canon_reldir%_replay_schema_SOURCES = %reldir%/fuzz_schema.c \
	%reldir%/replay.c
%canon_reldir%_replay_state_SOURCES = %reldir%/fuzz_state.c \
	%reldir%/memio.c %reldir%/memio.h %reldir%/replay.c
%canon_reldir%_replay_sentinel_SOURCES = %reldir%/fuzz_sentinel.c \
	%reldir%/replay.c
%canon_reldir%_replay_xheader_SOURCES = %reldir%/fuzz_xheader.c \
	%reldir%/replay.c
%canon_reldir%_replay_uritpl_SOURCES = %reldir%/fuzz_uritpl.c \
	%reldir%/replay.c
%canon_reldir%_replay_inputs_SOURCES = %reldir%/fuzz_inputs.c \
	%reldir%/memio.c %reldir%/memio.h %reldir%/replay.c
%canon_reldir%_replay_keyfile_SOURCES = %reldir%/fuzz_keyfile.c \
	%reldir%/replay.c
# wymcp-fcgi's --config FILE (src/front/config.c, a program's file).
%canon_reldir%_replay_config_SOURCES = %reldir%/fuzz_config.c \
	%reldir%/replay.c src/front/config.c
# wymcp-fcgi's hub: the events of the bus, PATH.hub and the workers
# (src/front/intake.c, a program's file).
%canon_reldir%_replay_intake_SOURCES = %reldir%/fuzz_intake.c \
	%reldir%/replay.c src/front/intake.c
%canon_reldir%_replay_frontmatter_SOURCES = %reldir%/fuzz_frontmatter.c \
	%reldir%/replay.c
%canon_reldir%_replay_relay_SOURCES = %reldir%/fuzz_relay.c \
	%reldir%/replay.c
%canon_reldir%_replay_tasks_SOURCES = %reldir%/fuzz_tasks.c \
	%reldir%/memio.c %reldir%/memio.h %reldir%/replay.c
# wymcp-authz's tokens and key sets (src/authz/libauthz.la).
%canon_reldir%_replay_jwt_SOURCES = %reldir%/fuzz_jwt.c %reldir%/replay.c
%canon_reldir%_replay_jwt_CFLAGS = $(AM_CFLAGS) $(OPENSSL_CFLAGS)
%canon_reldir%_replay_jwt_LDADD = $(AUTHZ_LIBS)
# wymcp-authz's Cache-Control, key set refresh, --allow-peer and URLs.
%canon_reldir%_replay_jwks_SOURCES = %reldir%/fuzz_jwks.c %reldir%/replay.c
%canon_reldir%_replay_jwks_CFLAGS = $(AM_CFLAGS) $(OPENSSL_CFLAGS)
%canon_reldir%_replay_jwks_LDADD = $(AUTHZ_LIBS)
check_PROGRAMS += $(FUZZ_REPLAY)
TESTS += %reldir%/replay-all
