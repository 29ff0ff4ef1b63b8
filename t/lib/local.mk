# t/lib: what the C tests share: the in-process request harness, a
# module for the loader tests, the rogue tools of the hardening layer
# (make check-harden) and the ledger tool of the store faults layer
# (make check-store).
noinst_LTLIBRARIES += t/libharness.la
t_libharness_la_SOURCES = %reldir%/harness.c %reldir%/harness.h

check_LTLIBRARIES += %reldir%/testmod.la
%canon_reldir%_testmod_la_SOURCES = %reldir%/testmod.c
%canon_reldir%_testmod_la_LDFLAGS = $(BASE_LDFLAGS) $(MODULE_FLAGS) \
	-rpath /nowhere
%canon_reldir%_testmod_la_LIBADD = src/libwymcp.la $(JSONC_LIBS)

# A module whose tables have no terminator (t/unit/check_module).
check_LTLIBRARIES += %reldir%/noterm.la
%canon_reldir%_noterm_la_SOURCES = %reldir%/noterm.c
%canon_reldir%_noterm_la_LDFLAGS = $(BASE_LDFLAGS) $(MODULE_FLAGS) \
	-rpath /nowhere
%canon_reldir%_noterm_la_LIBADD = src/libwymcp.la $(JSONC_LIBS)

# A module the loader refuses (t/regress/refuse-module).
check_LTLIBRARIES += %reldir%/badmod.la
%canon_reldir%_badmod_la_SOURCES = %reldir%/badmod.c
%canon_reldir%_badmod_la_LDFLAGS = $(BASE_LDFLAGS) $(MODULE_FLAGS) \
	-rpath /nowhere
%canon_reldir%_badmod_la_LIBADD = src/libwymcp.la $(JSONC_LIBS)

# An MCP App whose HTML is a file beside it (t/regress/app-file-module).
check_LTLIBRARIES += %reldir%/appmod.la
%canon_reldir%_appmod_la_SOURCES = %reldir%/appmod.c
%canon_reldir%_appmod_la_LDFLAGS = $(BASE_LDFLAGS) $(MODULE_FLAGS) \
	-rpath /nowhere
%canon_reldir%_appmod_la_LIBADD = src/libwymcp.la $(JSONC_LIBS)

# Tools that misbehave, for the limits (t/e2e/e2e_harden.py).
check_LTLIBRARIES += %reldir%/rogue.la
%canon_reldir%_rogue_la_SOURCES = %reldir%/rogue.c
%canon_reldir%_rogue_la_LDFLAGS = $(BASE_LDFLAGS) $(MODULE_FLAGS) \
	-rpath /nowhere
%canon_reldir%_rogue_la_LIBADD = src/libwymcp.la $(JSONC_LIBS)

# A task tool that records each run, and once per idempotency key its
# one effect, in the file $WYMCP_TEST_LEDGER names, for the task store
# fault test (t/e2e/e2e_store.py): a finished tool is never run again,
# its effect happens once.
check_LTLIBRARIES += %reldir%/ledger.la
%canon_reldir%_ledger_la_SOURCES = %reldir%/ledger.c
%canon_reldir%_ledger_la_LDFLAGS = $(BASE_LDFLAGS) $(MODULE_FLAGS) \
	-rpath /nowhere
%canon_reldir%_ledger_la_LIBADD = src/libwymcp.la $(JSONC_LIBS)

# The OAuth end-to-end test's tools (t/oauth): a plain one and one that
# needs a scope.
check_LTLIBRARIES += %reldir%/oauthmod.la
%canon_reldir%_oauthmod_la_SOURCES = %reldir%/oauthmod.c
%canon_reldir%_oauthmod_la_LDFLAGS = $(BASE_LDFLAGS) $(MODULE_FLAGS) \
	-rpath /nowhere
%canon_reldir%_oauthmod_la_LIBADD = src/libwymcp.la $(JSONC_LIBS)
