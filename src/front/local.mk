# src/front: wymcp-fcgi, the FastCGI/CGI front end (a program: it may
# print and exit; it reaches the library through wymcp.h alone, the
# task store's back ends and their bus too (wymcp_backend_load(),
# wymcp_bus_*()): it links neither SQLite nor libpq).
bin_PROGRAMS += %reldir%/wymcp-fcgi
%canon_reldir%_wymcp_fcgi_SOURCES = %reldir%/front.h %reldir%/main.c \
	%reldir%/log.c %reldir%/share.c %reldir%/watch.c %reldir%/fcgi.c \
	%reldir%/prefork.c %reldir%/relay.c %reldir%/runner.c \
	%reldir%/status.c %reldir%/hub.c %reldir%/intake.h \
	%reldir%/intake.c %reldir%/bus.c %reldir%/control.c \
	%reldir%/listen.c %reldir%/hub.h %reldir%/stream.c \
	%reldir%/events.c %reldir%/index.c %reldir%/config.c \
	%reldir%/options.c %reldir%/start.c %reldir%/server.c \
	%reldir%/reload.c %reldir%/backend.c %reldir%/call.c \
	%reldir%/audit.c %reldir%/ratelimit.c %reldir%/otlp.c \
	%reldir%/otlpm.h %reldir%/otlpm.c %reldir%/metrics.c \
	%reldir%/shm.h %reldir%/shm.c
%canon_reldir%_wymcp_fcgi_CFLAGS = $(AM_CFLAGS) $(FCGI_CFLAGS) \
	$(SODIUM_CFLAGS)
%canon_reldir%_wymcp_fcgi_LDADD = src/libwymcp.la src/prog/libprog.la \
	$(FCGI_LIBS) $(JSONC_LIBS) $(SODIUM_LIBS)
%canon_reldir%_wymcp_fcgi_LDFLAGS = $(AM_LDFLAGS)
