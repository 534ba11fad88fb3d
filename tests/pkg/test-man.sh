#!/bin/bash
# tier: quick
# The man pages: each renders with `man --warnings` silent and a NAME lexgrog can read, lists
# every option its tool's --help prints (short and long name together), and its EXIT STATUS
# holds exactly the codes and meanings --help ends with ("exit status:"), so an option or an
# exit code added to a table without regenerating the page, or dropped by the generator, fails
# here. The checks are shown to catch a page with an option item removed, a page without an
# exit code, a page whose exit meaning differs, and a page with a bad macro.
# Env: LP_BUILD (default build). Exit 0 pass, 1 fail, 77 man/lexgrog missing.
set -u
cd "$(dirname "$0")/../.."
B=${LP_BUILD:-build}
for c in man lexgrog col; do
	command -v $c >/dev/null || { echo "$c not installed (man-db, bsdextrautils)"; exit 77; }
done
make -s BUILD="$B" man >/dev/null || { echo "FAIL: make man"; exit 1; }
fail=0 tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

tool_path() { case $1 in lp-plot | lp-report) echo "plots/$1" ;; lp-qualify) echo "scripts/$1" ;; *) echo "$B/$1" ;; esac; }

# The option heads --help prints: "-p, --port" or "--bind", one a line.
help_heads() {
	"$(tool_path "$1")" --help | sed -nE 's/^ +((-[[:alnum:]], )?--[[:alnum:]][[:alnum:]-]*).*/\1/p'
}

# Heads of tool $1 that the rendered page $2 does not list as an option item.
missing() {
	local text=$tmp/rendered
	MANWIDTH=200 man -l "$2" 2>/dev/null | col -b >"$text"
	help_heads "$1" | while IFS= read -r h; do
		grep -qE "^ +$h( |\$)" "$text" || echo "$h"
	done
}

# "CODE MEANING" lines of the "exit status:" block --help of tool $1 ends with.
help_exits() {
	"$(tool_path "$1")" --help | sed -n '/^exit status:$/,$p' | sed -nE 's/^  ([0-9]+) +(.*)/\1 \2/p'
}

# The same from page $1's EXIT STATUS section (roff: ".TP", ".B CODE", the meaning).
page_exits() {
	sed -n '/^\.SH EXIT STATUS/,/^\.SH /p' "$1" | sed -e 's/\\-/-/g' -e 's/\\e/\\/g' -e 's/\\&//g' |
		awk '/^\.B [0-9]+$/ { code = $2; next } code != "" && !/^\./ { print code " " $0; code = "" }'
}

# What differs between tool $1's --help exit statuses and page $2's (empty when they agree).
exit_diff() {
	local h p
	h=$(help_exits "$1")
	p=$(page_exits "$2")
	[ -n "$h" ] || { echo "--help prints no exit status"; return; }
	[ "$h" = "$p" ] || diff <(echo "$h") <(echo "$p") | grep '^[<>]' | tr '\n' ';'
}

# What man and lexgrog say about page $1 (empty when clean).
render_problems() {
	MANWIDTH=80 man --warnings -l "$1" 2>&1 >/dev/null
	lexgrog "$1" >/dev/null 2>&1 || echo "lexgrog: no NAME section it can parse"
}

n=0
for page in "$B"/man/*.1; do
	tool=$(basename "$page" .1)
	heads=$(help_heads "$tool" | wc -l)
	[ "$heads" -gt 2 ] || { echo "FAIL $tool: only $heads options in --help (parser broken?)"; fail=1; }
	miss=$(missing "$tool" "$page")
	probs=$(render_problems "$page")
	exits=$(exit_diff "$tool" "$page")
	if [ -n "$miss" ] || [ -n "$probs" ] || [ -n "$exits" ]; then
		echo "FAIL $tool: missing from the page: ${miss:-none}; render: ${probs:-clean}; exit status: ${exits:-same}"
		fail=1
	else
		echo "ok   $tool: $heads options and $(help_exits "$tool" | wc -l) exit statuses listed, renders clean"
	fi
	n=$((n + 1))
done
[ $n -ge 2 ] || { echo "FAIL: only $n man pages in $B/man"; fail=1; }

# The checks catch faults: an option item removed, a misspelt macro.
page=$B/man/lp-rdma.1
if [ -f "$page" ]; then
	sed '/^\\fB\\-p\\fR, \\fB\\-\\-port\\fR/,+1d' "$page" >"$tmp/no-port.1"
	if [ "$(missing lp-rdma "$tmp/no-port.1")" = "-p, --port" ]; then
		echo "ok   fault: a page without --port is caught"
	else
		echo "FAIL fault: a page without --port was not caught"; fail=1
	fi
	sed '/^\.B 130$/,+1d' "$page" >"$tmp/no-130.1"
	if [ -n "$(exit_diff lp-rdma "$tmp/no-130.1")" ]; then
		echo "ok   fault: a page without exit status 130 is caught"
	else
		echo "FAIL fault: a page without exit status 130 was not caught"; fail=1
	fi
	sed '/^\.B 2$/{n;s/.*/usage error/}' "$page" >"$tmp/other-meaning.1"
	if [ -n "$(exit_diff lp-rdma "$tmp/other-meaning.1")" ]; then
		echo "ok   fault: an exit status whose meaning differs from --help is caught"
	else
		echo "FAIL fault: an exit meaning other than --help's was not caught"; fail=1
	fi
	sed 's/^\.SH EXIT STATUS/.SX EXIT STATUS/' "$page" >"$tmp/bad-macro.1"
	if [ -n "$(render_problems "$tmp/bad-macro.1")" ]; then
		echo "ok   fault: a page with an unknown macro is caught"
	else
		echo "FAIL fault: an unknown macro was not caught"; fail=1
	fi
fi
exit $fail
