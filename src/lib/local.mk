# src/lib: arena, JSON, text, URI templates, schema (no MCP state).
src_libwymcp_core_la_SOURCES += \
	%reldir%/lib.h %reldir%/word.h \
	%reldir%/arena.c \
	%reldir%/err.c \
	%reldir%/frontmatter.c \
	%reldir%/json.c \
	%reldir%/jsonf.c \
	%reldir%/jsonrpc.c \
	%reldir%/meta.c \
	%reldir%/rate.c \
	%reldir%/schema.c \
	%reldir%/text.c \
	%reldir%/uritpl.c
