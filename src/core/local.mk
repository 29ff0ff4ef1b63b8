# src/core: the context, run boundary, asking, seal, stream, builders.
src_libwymcp_core_la_SOURCES += \
	%reldir%/core.h \
	%reldir%/args.c \
	%reldir%/ask.c \
	%reldir%/caps.c \
	%reldir%/content.c \
	%reldir%/ctx.c \
	%reldir%/detail.c \
	%reldir%/events.c \
	%reldir%/exec.c \
	%reldir%/file.c \
	%reldir%/held.c \
	%reldir%/memory.c \
	%reldir%/refuse.c \
	%reldir%/result.c \
	%reldir%/run.c \
	%reldir%/seal.c \
	%reldir%/shapes.c \
	%reldir%/spawn.c \
	%reldir%/spawn.h \
	%reldir%/short.c \
	%reldir%/stream.c
