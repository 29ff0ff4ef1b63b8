# src/setup: the server object, module loader, registrations, keys.
src_libwymcp_core_la_SOURCES += \
	%reldir%/setup.h \
	%reldir%/card.c \
	%reldir%/exec.c \
	%reldir%/keyfile.c \
	%reldir%/keys.c \
	%reldir%/mac.c \
	%reldir%/log.c \
	%reldir%/meta.c \
	%reldir%/module.c \
	%reldir%/params.c \
	%reldir%/prompt.c \
	%reldir%/resource.c \
	%reldir%/server.c \
	%reldir%/skills.c \
	%reldir%/xheader.c
