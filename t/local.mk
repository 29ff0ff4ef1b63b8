# t/: Check suites, fuzz replay, and the layer check.  Every test
# program links the library's objects (src/libwymcp-core.la) and the
# testing API's, so internal symbols are reachable without a second
# compile; LDADD and the flags are the same for all of them.
LDADD = t/libharness.la src/testing/libtesting.la src/libwymcp-core.la \
	$(CHECK_LIBS) $(JSONC_LIBS) $(SODIUM_LIBS)

noinst_LTLIBRARIES += t/libharness.la
t_libharness_la_SOURCES = t/unit/harness.c t/unit/harness.h

# A module used by the loader and dispatch tests.
check_LTLIBRARIES += t/unit/testmod.la
t_unit_testmod_la_SOURCES = t/unit/testmod.c
t_unit_testmod_la_LDFLAGS = $(BASE_LDFLAGS) $(MODULE_FLAGS) -rpath /nowhere
t_unit_testmod_la_LIBADD = src/libwymcp.la $(JSONC_LIBS)

UNIT_TESTS = \
	t/unit/check_arena \
	t/unit/check_content \
	t/unit/check_ctx \
	t/unit/check_http \
	t/unit/check_rpc \
	t/unit/check_dispatch \
	t/unit/check_module \
	t/unit/check_schema \
	t/unit/check_elicit \
	t/unit/check_seal \
	t/unit/check_testing \
	t/unit/check_resource \
	t/unit/check_prompt \
	t/unit/check_list \
	t/unit/check_stream \
	t/unit/check_xheader \
	t/unit/check_legacy

# Fuzz targets: each is a libFuzzer entry point.  `make check` builds them
# with a small replay driver and runs every seed; `t/fuzz/run` builds them
# with clang -fsanitize=fuzzer for real fuzzing.
FUZZ_REPLAY = t/fuzz/replay_serve t/fuzz/replay_schema t/fuzz/replay_sentinel \
	t/fuzz/replay_state t/fuzz/replay_xheader
t_fuzz_replay_serve_SOURCES = t/fuzz/fuzz_serve.c t/fuzz/replay.c
t_fuzz_replay_schema_SOURCES = t/fuzz/fuzz_schema.c t/fuzz/replay.c
t_fuzz_replay_state_SOURCES = t/fuzz/fuzz_state.c t/fuzz/replay.c
t_fuzz_replay_sentinel_SOURCES = t/fuzz/fuzz_sentinel.c t/fuzz/replay.c
t_fuzz_replay_xheader_SOURCES = t/fuzz/fuzz_xheader.c t/fuzz/replay.c

check_PROGRAMS += $(UNIT_TESTS) $(FUZZ_REPLAY)
TESTS += $(UNIT_TESTS) t/fuzz/replay-all
