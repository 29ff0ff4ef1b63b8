# src/store: the task store (tasks extension): one interface, back ends.
src_libwymcp_core_la_SOURCES += \
	%reldir%/store.h \
	%reldir%/row.c \
	%reldir%/store.c \
	%reldir%/sqlite.c \
	%reldir%/pg.c
