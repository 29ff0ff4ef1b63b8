# t/lib: what the C tests share: the in-process request harness and a
# module for the loader tests.
noinst_LTLIBRARIES += t/libharness.la
t_libharness_la_SOURCES = %reldir%/harness.c %reldir%/harness.h

check_LTLIBRARIES += %reldir%/testmod.la
%canon_reldir%_testmod_la_SOURCES = %reldir%/testmod.c
%canon_reldir%_testmod_la_LDFLAGS = $(BASE_LDFLAGS) $(MODULE_FLAGS) \
	-rpath /nowhere
%canon_reldir%_testmod_la_LIBADD = src/libwymcp.la $(JSONC_LIBS)

# A module the loader refuses (t/regress/refuse-module).
check_LTLIBRARIES += %reldir%/badmod.la
%canon_reldir%_badmod_la_SOURCES = %reldir%/badmod.c
%canon_reldir%_badmod_la_LDFLAGS = $(BASE_LDFLAGS) $(MODULE_FLAGS) \
	-rpath /nowhere
%canon_reldir%_badmod_la_LIBADD = src/libwymcp.la $(JSONC_LIBS)
