# src/store: the task store (tasks extension): one interface in the
# library, and each back end an object of its own (backend.h), loaded
# when a task store or the bus names it, so that libwymcp links neither
# SQLite nor libpq.  task.c is linked into each of them too.
src_libwymcp_core_la_SOURCES += \
	%reldir%/store.h \
	%reldir%/backend.h \
	%reldir%/row.c \
	%reldir%/task.c \
	%reldir%/store.c \
	%reldir%/bus.c

# The back ends: $(pkglibdir)/backend/sqlite.so and pg.so (private: not
# an ABI of their own; WYMCP_BACKEND_DIR names another directory, the
# build tree's src/store/.libs for the tests).
backenddir = $(pkglibdir)/backend
backend_LTLIBRARIES =
if WITH_SQLITE
backend_LTLIBRARIES += %reldir%/sqlite.la
endif
if WITH_POSTGRESQL
backend_LTLIBRARIES += %reldir%/pg.la
endif
%canon_reldir%_sqlite_la_SOURCES = %reldir%/backend.h %reldir%/sqlite.c \
	%reldir%/task.c
%canon_reldir%_sqlite_la_CFLAGS = $(AM_CFLAGS) $(SQLITE_CFLAGS)
%canon_reldir%_sqlite_la_LDFLAGS = $(BASE_LDFLAGS) $(MODULE_FLAGS)
%canon_reldir%_sqlite_la_LIBADD = $(SQLITE_LIBS)
%canon_reldir%_pg_la_SOURCES = %reldir%/backend.h %reldir%/pg.c \
	%reldir%/task.c
%canon_reldir%_pg_la_CFLAGS = $(AM_CFLAGS) $(PQ_CFLAGS)
%canon_reldir%_pg_la_LDFLAGS = $(BASE_LDFLAGS) $(MODULE_FLAGS)
%canon_reldir%_pg_la_LIBADD = $(PQ_LIBS)
