#!/bin/sh
# disk_usage - an exec tool in POSIX shell (wymcp-exec(5)): the call is
# one JSON object on stdin; the result, structured, on stdout.
set -eu
in=$(cat)
# The one argument, without a JSON parser: "path":"..." (no escapes).
path=$(printf '%s' "$in" |
    sed -n 's/.*"arguments":{[^}]*"path":"\([^"\\]*\)".*/\1/p')
[ -n "$path" ] || path=/
if ! out=$(df -P -B1 -- "$path" 2>&1 | tail -n 1); then
	echo "df: $out" >&2
	exit 1
fi
set -- $out
total=$2 used=$3 free=$4
percent=$(( total > 0 ? (used * 100 + total - 1) / total : 0 ))
printf '{"structuredContent":{"path":"%s","total":%s,"used":%s,' "$path" \
    "$total" "$used"
printf '"free":%s,"percent":%s}}\n' "$free" "$percent"
