# src/testing: libwymcp-testing, the testing API for tool authors.  It
# carries its own copy of the library (the same objects, linked in), so
# the production libwymcp exports no wymcp_testing_* symbol.
lib_LTLIBRARIES += %reldir%/libwymcp-testing.la
include_HEADERS += %reldir%/wymcp_testing.h
noinst_LTLIBRARIES += %reldir%/libtesting.la
%canon_reldir%_libtesting_la_SOURCES = %reldir%/testing.h %reldir%/testing.c
%canon_reldir%_libwymcp_testing_la_SOURCES =
%canon_reldir%_libwymcp_testing_la_LIBADD = %reldir%/libtesting.la \
	src/libwymcp-core.la $(JSONC_LIBS) $(SODIUM_LIBS)
%canon_reldir%_libwymcp_testing_la_LDFLAGS = $(AM_LDFLAGS) \
	-version-info 0:0:0
pkgconfig_DATA += wymcp-testing.pc
