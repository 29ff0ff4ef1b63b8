#!/bin/sh
# deploy/cgi/wymcp.cgi - wymcp-fcgi as a plain CGI program: the web
# server starts this script for every request, wymcp-fcgi serves that
# one request (no socket on descriptor 0, REQUEST_METHOD set: CGI mode,
# wymcp-fcgi(8)) and exits.
#
# Install it executable where the web server runs CGI programs (e.g.
# install -m 0755 wymcp.cgi /usr/lib/cgi-bin/wymcp.cgi) and point the
# web server at it: apache-cgi.conf, lighttpd-cgi.conf,
# busybox-httpd.conf beside this file.
#
# What CGI cannot do: there is no hub (no process outlives a request),
# so subscriptions/listen is acknowledged and then ends at once, and a
# client must poll instead; write_note still writes.  Every request
# pays the start (load the modules, read the key: about a millisecond
# or two, make bench's start cost) and there is no --workers,
# --request-timeout stop of a stuck tool or --max-requests: use
# FastCGI (deploy/README) for anything but a light endpoint.
#
# The key: every request reads it, as the user the web server runs CGI
# programs as (www-data on Debian): make it that user's, mode 0600
# (wymcp-fcgi --generate-key /etc/wymcp/cgi.key; chown www-data
# /etc/wymcp/cgi.key).  Without a key, tools that ask questions fail.
#
# Assigns a web server cannot set (busybox httpd sets no variables):
# constants here, exported before the exec.  Never from a client
# header: those arrive as HTTP_* and wymcp never reads them as assigns.
#
#	WYMCP_ASSIGN_TENANT=acme; export WYMCP_ASSIGN_TENANT

# (Debian's package: /usr/bin/wymcp-fcgi, modules in
# /usr/lib/<triplet>/wymcp.)
exec /usr/local/bin/wymcp-fcgi \
    --state-key-file /etc/wymcp/cgi.key \
    --module /usr/local/lib/wymcp/help.so \
    --module /usr/local/lib/wymcp/echo.so \
    --module /usr/local/lib/wymcp/whoami.so
