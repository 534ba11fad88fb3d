#!/bin/bash
# tier: quick
# The function length habit (scripts/check-fnlen.sh, limit 120 lines) holds on the tree, and the
# check fails on a copy with one function of 121 lines, while a function of exactly 120 lines
# and a data table of any length pass.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=$(scripts/check-fnlen.sh) || { echo "FAIL: functions over 120 lines in the tree:"; echo "$out"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/common"
body() { # N: a function body of N lines
	for ((i = 0; i < $1; i++)); do printf '\tx += %d;\n' "$i"; done
}
{
	printf 'static const int table[] = {\n'
	for ((i = 0; i < 300; i++)); do printf '\t%d,\n' "$i"; done
	printf '};\n\nstatic int just_right(int x)\n{\n'
	body 119
	printf '\treturn x;\n}\n'
} >"$tmp/common/ok.c"
scripts/check-fnlen.sh "$tmp" >/dev/null || { echo "FAIL: a 120-line function or a 300-line table was refused"; exit 1; }

{
	printf 'int lp_too_long(const char *s,\n\t\tint x)\n{\n'
	body 120
	printf '\treturn x;\n}\n'
} >"$tmp/common/long.c"
out=$(scripts/check-fnlen.sh "$tmp" 2>&1) && { echo "FAIL: a 121-line function passed"; exit 1; }
grep -q "^common/long.c:1: lp_too_long: 121 lines (limit 120)" <<<"$out" || { echo "FAIL: unexpected: $out"; exit 1; }
grep -q "ok.c" <<<"$out" && { echo "FAIL: ok.c listed: $out"; exit 1; }
echo "PASS: no function over 120 lines; a 121-line one injected was caught, a 120-line one and a table were not"
