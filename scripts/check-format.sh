#!/bin/bash
# Formatting habit: every C, header and CUDA source is as clang-format (the repository's
# .clang-format) writes it.
#
#   scripts/check-format.sh [--fix] [DIR]   check (or rewrite) the sources under DIR (default: the repository)
#
# Exit 0 when formatted, 1 with the unformatted files listed (the first lines of the difference
# shown), 77 when clang-format is missing (install: scripts/install-deps.sh).
set -uo pipefail
fix=0
[ "${1:-}" = --fix ] && { fix=1; shift; }
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
command -v "$CLANG_FORMAT" >/dev/null || { echo "check-format: $CLANG_FORMAT not found: the format cannot be checked (apt-get install clang-format)"; exit 77; }

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	mapfile -t files < <(git ls-files -co --exclude-standard -- '*.c' '*.h' '*.cu')
else
	mapfile -t files < <(find . -path ./build -prune -o \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) -print | sed 's|^\./||')
fi
[ ${#files[@]} -gt 0 ] || { echo "check-format: no sources under $root"; exit 2; }

if [ $fix = 1 ]; then
	"$CLANG_FORMAT" -i "${files[@]}"
	exit
fi
bad=()
for f in "${files[@]}"; do
	[ -f "$f" ] || continue
	if ! diff -q "$f" <("$CLANG_FORMAT" "$f") >/dev/null; then
		bad+=("$f")
		diff -u "$f" <("$CLANG_FORMAT" "$f") | sed -n '3,12p' | sed "s|^|  $f: |"
	fi
done
if [ ${#bad[@]} -gt 0 ]; then
	echo "check-format: ${#bad[@]} of ${#files[@]} files differ from clang-format ($("$CLANG_FORMAT" --version | grep -o 'version [0-9.]*')): ${bad[*]}"
	echo "check-format: fix with scripts/check-format.sh --fix"
	exit 1
fi
echo "check-format: ${#files[@]} files formatted as .clang-format says"
