# src/net: what both programs need of their FastCGI sockets (the peer
# rule of --allow-peer), below src/front and src/authz; a convenience
# library that both link, never part of libwymcp.
noinst_LTLIBRARIES += %reldir%/libnet.la
%canon_reldir%_libnet_la_SOURCES = %reldir%/net.h %reldir%/peer.c
