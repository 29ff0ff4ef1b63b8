# src/methods: replies, the call core, the MCP methods.
src_libwymcp_core_la_SOURCES += \
	%reldir%/methods.h \
	%reldir%/call.c \
	%reldir%/complete.c \
	%reldir%/discover.c \
	%reldir%/legacy.c \
	%reldir%/list.c \
	%reldir%/listen.c \
	%reldir%/prompts.c \
	%reldir%/reply.c \
	%reldir%/resources.c \
	%reldir%/skills.c \
	%reldir%/table.c \
	%reldir%/task.c \
	%reldir%/taskmake.c \
	%reldir%/tools.c
