#!/bin/bash
# tier: quick
# The tree is as clang-format writes it, and the check fails on a copy with one misformatted line.
# A missing clang-format fails this test (never a silent skip): the format habit would go unchecked.
set -uo pipefail
cd "$(dirname "$0")/../.."
scripts/check-format.sh
rc=$?
[ $rc = 77 ] && { echo "FAIL: clang-format is needed for this check (scripts/install-deps.sh installs it)"; exit 1; }
[ $rc = 0 ] || { echo "FAIL: the tree is not formatted (make format rewrites it)"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/common"
cp .clang-format "$tmp"/
cp common/units.c "$tmp/common/"
scripts/check-format.sh "$tmp" >/dev/null || { echo "FAIL: an unchanged copy of common/units.c does not pass"; exit 1; }
# one statement re-indented with spaces and crammed onto the line of its condition
sed -i '0,/^\treturn /s//        return /' "$tmp/common/units.c"
out=$(scripts/check-format.sh "$tmp") && { echo "FAIL: a misformatted file passed"; exit 1; }
grep -q "1 of 1 files differ from clang-format" <<<"$out" || { echo "FAIL: unexpected: $out"; exit 1; }
echo "PASS: the tree is formatted; an injected misformatting was caught"
