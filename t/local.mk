# t/: the C tests (unit suites, whole-request regressions, fuzz replay)
# and the layer check.  Every test program links the library's objects
# (src/libwymcp-core.la) and the testing API's, so internal symbols are
# reachable without a second compile; LDADD and the flags are the same
# for all of them.
LDADD = t/libharness.la src/testing/libtesting.la src/libwymcp-core.la \
	$(CHECK_LIBS) $(JSONC_LIBS) $(SODIUM_LIBS) $(SQLITE_LIBS) $(PQ_LIBS)
AM_CPPFLAGS += -I$(top_srcdir)/t/lib

# The task store's benchmark (make bench-tasks): built on demand.
EXTRA_PROGRAMS = t/bench/taskbench

include t/lib/local.mk
include t/unit/local.mk
include t/regress/local.mk
include t/fuzz/local.mk
include t/layers/local.mk
include t/docs/local.mk

# The example tools in C against their FastMCP twins (issue 38's goal:
# each no longer than its twin plus its schema lines, all at most 2x).
TESTS += t/example-lines t/example-lines-planted
EXTRA_DIST += t/example-lines t/example-lines-planted
