#!/usr/bin/env bash
# e2e_next_step.sh - quickstart's next step works from a build tree.
#
#	t/e2e/e2e_next_step.sh BUILDDIR
#
# Runs `./quickstart --next-step` and does what it prints, with
# BUILDDIR standing for _build/quick and a temporary directory for
# ~/my-tools: copies deploy/example-module, exports PKG_CONFIG_PATH
# (the build's wymcp-uninstalled.pc, which pkg-config takes for
# wymcp.pc) and PATH (the build's wymcp-try and wymcp-fcgi), runs make
# check (every example tool's tests, and greet through CGI), then make
# try: waits for the endpoint wymcp-try prints, lists the tools with
# curl, stops it with SIGINT and checks it exits 130.  Nothing is
# installed, and nothing outside the temporary directory is written.
# With a BUILDDIR built with sanitizers, the example is compiled with
# the same -fsanitize flags (its tests link the build's
# libwymcp-testing).  Prints "ok - NAME" / "not ok - NAME: DETAIL" and
# "N passed, M failed"; exit 0, 1, or 77 without cc, make, pkg-config
# or nginx.

set -u
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
build=$(cd "${1:?usage: e2e_next_step.sh BUILDDIR}" && pwd) || exit 2
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok - $*"; }
notok() {
	failed=$((failed + 1))
	echo "not ok - $1: $(printf '%s' "${*:2}" | tr '\n' ' ' | cut -c1-600)"
}
finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}
for p in cc make pkg-config curl; do
	command -v "$p" >/dev/null 2>&1 || { echo "SKIP: no $p"; exit 77; }
done
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
	echo "SKIP: nginx is not installed"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/wymcp-next.XXXXXX") || exit 1
try_pid=
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
	if [ -n "$try_pid" ] && kill -0 "$try_pid" 2>/dev/null; then
		kill -INT "$try_pid" 2>/dev/null
		wait "$try_pid" 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# The lines quickstart prints, as they would be typed.  (A quickstart
# without --next-step would build and serve instead: not run then.)
grep -q -- '--next-step' "$srcdir/quickstart" || {
	notok "quickstart --next-step" "quickstart has no --next-step"
	finish; }
steps=$("$srcdir/quickstart" --next-step) || {
	notok "quickstart --next-step" "exit $?"; finish; }
ok "quickstart --next-step prints the next step"
steps=$(sed -n 's/^\t//p' <<<"$steps")
steps=${steps//"$srcdir/_build/quick"/"$build"}
steps=${steps//"~/my-tools"/"$tmp/my-tools"}
grep -q "PKG_CONFIG_PATH=$build\$" <<<"$steps" ||
    notok "the step names the build's pkg-config directory" "$steps"
[ -f "$build/wymcp-uninstalled.pc" ] &&
    ok "the build has wymcp-uninstalled.pc" ||
    notok "the build has wymcp-uninstalled.pc" "$(ls "$build")"

# The example's own flags when the build is sanitized.
san=$(sed -n 's/^SAN_CFLAGS = //p' "$build/Makefile")
flags=(CFLAGS="-O1 -g -Wall -Wextra -Wno-unused-parameter $san")
: >"$tmp/steps.log"
while IFS= read -r line; do
	case $line in
	"make try"*) break ;;
	"make check"*)
		if (cd "$tmp/my-tools" && eval "$line" '"${flags[@]}"') \
		    >>"$tmp/steps.log" 2>&1; then
			ok "$line: $(grep -c ' passed, 0 failed$' \
			    "$tmp/steps.log") tests pass, greet through CGI"
		else
			notok "$line" "$(tail -15 "$tmp/steps.log")"
			finish
		fi ;;
	export*)
		eval "$line"
		ok "$line" ;;
	*)
		if (eval "$line") >>"$tmp/steps.log" 2>&1; then
			ok "$line"
		else
			notok "$line" "$(tail -5 "$tmp/steps.log")"
			finish
		fi ;;
	esac
done <<<"$steps"
pcflags=$(pkg-config --cflags wymcp)
grep -q -- "-I$srcdir/src\|-I$build/../../src\|/src\$" <<<"$pcflags" &&
    ok "pkg-config --cflags wymcp: the source tree's src ($pcflags)" ||
    notok "pkg-config --cflags wymcp is the build's" "$pcflags"

# make try: wymcp-try of the build (found in PATH), until SIGINT.
grep -q '^make try$' <<<"$steps" || notok "the step ends with make try"
# NGINX set, as wymcp-try's setting was before 0.5: nginx must not see
# it (it reads NGINX itself, as inherited sockets).
(cd "$tmp/my-tools" && NGINX=$(command -v nginx || echo /usr/sbin/nginx) \
    exec setsid make try) >"$tmp/try.log" 2>&1 &
try_pid=$!
url=
for ((i = 0; i < 300; i++)); do
	url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$tmp/try.log" \
	    2>/dev/null | head -1)
	[ -n "$url" ] && break
	kill -0 "$try_pid" 2>/dev/null || break
	sleep 0.1
done
if [ -z "$url" ]; then
	notok "make try serves the example" "$(tail -10 "$tmp/try.log")"
	finish
fi
meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"curl","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}'
resp=$(curl -sS "$url" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' \
    -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/list' \
    -d '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{'"$meta"'}}' 2>&1)
for t in greet disk_usage deploy reindex; do
	grep -q "\"name\":\"$t\"" <<<"$resp" && ok "make try: tools/list has $t" ||
	    notok "make try: tools/list has $t" "$resp"
done
if grep -q 'invalid socket number' "$tmp/try.log"; then
	notok "nginx never sees NGINX" "$(grep NGINX "$tmp/try.log")"
else
	ok "nginx never sees NGINX (wymcp-try's is WYMCP_NGINX)"
fi
kill -INT -- "-$try_pid" 2>/dev/null
wait "$try_pid"
rc=$?
try_pid=
# make reports the recipe's 130 as its own failure (2).
[ "$rc" -ne 0 ] && grep -q 'stopping' "$tmp/try.log" &&
    ok "SIGINT stops make try (wymcp-try said it stops)" ||
    notok "SIGINT stops make try" "exit $rc: $(tail -5 "$tmp/try.log")"
finish
