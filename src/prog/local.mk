# src/prog: what both programs share (wymcp-fcgi's src/front and
# wymcp-authz's src/authz): the peer rule of --allow-peer, the check of
# the files they trust.  A convenience library that both link, never
# part of libwymcp.
noinst_LTLIBRARIES += %reldir%/libprog.la
%canon_reldir%_libprog_la_SOURCES = %reldir%/prog.h %reldir%/peer.c \
	%reldir%/trust.c
