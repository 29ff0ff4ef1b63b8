# src/serve: the request pipeline (HTTP rules, envelope, headers, era).
src_libwymcp_core_la_SOURCES += \
	%reldir%/serve.h \
	%reldir%/card.c \
	%reldir%/envelope.c \
	%reldir%/era.c \
	%reldir%/http.c \
	%reldir%/serve.c \
	%reldir%/xparams.c
