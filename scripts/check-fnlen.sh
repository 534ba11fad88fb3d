#!/bin/bash
# Function length habit: no function body over LIMIT lines (default 120) in the C, header and
# CUDA sources (docs/ARCHITECTURE.md, "Habits the build enforces"). The body is counted from
# the line after its opening brace to the line before its closing one, as clang-format writes a
# function (.clang-format: the braces of a function alone on a line at column 0). Data tables
# (`... = {` initialisers) are not functions and are not counted.
#
#   scripts/check-fnlen.sh [--limit N] [--list] [DIR]
#
# Exit 0 when every function is within the limit, 1 with each longer one listed as
# "FILE:LINE: NAME: N lines (limit L)"; --list prints every function over the limit and exits 0.
set -uo pipefail
limit=120 list=0
while [ $# -gt 0 ]; do
	case $1 in
	--limit) limit=$2; shift 2 ;;
	--list) list=1; shift ;;
	-*) echo "check-fnlen: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	mapfile -t files < <(git ls-files -co --exclude-standard -- '*.c' '*.h' '*.cu')
else
	mapfile -t files < <(find . -path ./build -prune -o \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) -print | sed 's|^\./||')
fi
[ ${#files[@]} -gt 0 ] || { echo "check-fnlen: no sources under $root"; exit 2; }

long=$(awk -v limit="$limit" '
	FNR == 1 { head = ""; inbody = 0 }
	# the last lines before a body: its name is the word before the first "(" of the declarator
	!inbody && /^[A-Za-z_]/ && !/^(#|typedef|struct [a-z_]* *{|enum|union)/ { head = $0; headline = FNR; next }
	!inbody && /^[ \t]/ && head != "" { head = head " " $0; next }
	!inbody && /^\{[ \t]*$/ && head != "" {
		inbody = 1; start = FNR
		name = head; sub(/\(.*/, "", name); n = split(name, w, /[ \t*]+/); name = w[n]
		next
	}
	!inbody && !/^\{/ { head = "" }
	inbody && /^\}/ {
		inbody = 0; len = FNR - start - 1
		if (len > limit) printf "%s:%d: %s: %d lines (limit %d)\n", FILENAME, headline, name, len, limit
		head = ""
	}
' "${files[@]}")
[ -n "$long" ] || exit 0
echo "$long"
[ $list = 1 ] && exit 0
echo "check-fnlen: $(wc -l <<<"$long") function(s) over $limit lines: split them by what each part does" >&2
exit 1
