#!/bin/sh
# lddcount.sh - the shared libraries a process loads with wymcp, by
# ldd(1): libwymcp.so.0, wymcp-fcgi, and an out-of-tree module (the
# deploy/example-module greet.c, built here as its Makefile builds it:
# the flags of pkg-config --libs wymcp, -lwymcp -ljson-c, against the
# build tree), beside the figures of 0.3 (adc9ff7, which linked SQLite
# and libpq into libwymcp; measured again at 1c0ab2b).  A CGI request
# loads every one of them, each with its relocations and symbol
# lookups.  Printed, never asserted (t/e2e/e2e_install.sh asserts what
# the installed files must not list).
#
#	t/bench/lddcount.sh BUILDDIR [OUT]
#
# The count leaves out linux-vdso and ld.so, and libasan/libubsan in a
# sanitizer build (said so).  The task store's back ends
# (src/store/.libs/sqlite.so, pg.so) are shown apart: they are loaded
# only when --task-store or --bus names them.
set -u
b=$(cd "${1:-.}" && pwd) || exit 1
out=${2:-}
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

export LD_LIBRARY_PATH="$b/src/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# shellcheck disable=SC2046 # the flags are words
if ! cc -O2 -fPIC -shared -I"$src/src" $(pkg-config --cflags json-c) \
    -o "$tmp/greet.so" "$src/deploy/example-module/greet.c" \
    -L"$b/src/.libs" -lwymcp $(pkg-config --libs json-c) \
    >"$tmp/cc.log" 2>&1; then
	echo "lddcount: cannot build greet.so:"; cat "$tmp/cc.log"
	exit 1
fi

san=
if ldd "$b/src/.libs/libwymcp.so.0" 2>/dev/null | grep -q libasan; then
	san=" (a sanitizer build: libasan, libubsan left out)"
fi
count() {
	l=$(ldd "$1" 2>/dev/null) || { echo "?"; return; }
	printf '%s\n' "$l" | grep -v -e 'linux-vdso' -e 'ld-linux' \
	    -e 'libasan' -e 'libubsan' | grep -c .
}
heavy() {
	ldd "$1" 2>/dev/null | grep -oE \
	    'lib(pq|sqlite3|ssl|crypto|krb5|gssapi_krb5|ldap[^ ]*)\.so' |
	    sed 's/\.so$//' | sort -u | tr '\n' ' '
}
fcgi=$b/src/front/.libs/wymcp-fcgi
[ -x "$fcgi" ] || fcgi=$b/src/front/wymcp-fcgi

{
	echo "Shared libraries loaded (ldd; lddcount.sh, $(date -u +%F))"
	printf '  %-34s %5s %5s  %s\n' "" now 0.3 "of libpq, SQLite, OpenSSL..."
	for row in "libwymcp.so.0|$b/src/.libs/libwymcp.so.0|27" \
	    "wymcp-fcgi|$fcgi|29" \
	    "out-of-tree module (greet.so)|$tmp/greet.so|28"; do
		name=${row%%|*} rest=${row#*|}
		file=${rest%%|*} was=${rest#*|}
		h=$(heavy "$file")
		printf '  %-34s %5s %5s  %s\n' "$name" "$(count "$file")" \
		    "$was" "${h:-none}"
	done
	for be in sqlite pg; do
		f=$b/src/store/.libs/$be.so
		[ -f "$f" ] || continue
		printf '  %-34s %5s %5s  %s\n' "back end $be.so (on demand)" \
		    "$(count "$f")" "-" "$(heavy "$f")"
	done
	echo "  target: libwymcp, wymcp-fcgi and modules load json-c," \
	    "libsodium and libc (wymcp-fcgi libfcgi too), nothing of"
	echo "  the back ends$san"
} | tee "${out:-/dev/null}"
