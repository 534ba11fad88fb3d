#!/bin/bash
# tier: quick
# plots/lp-report in a real headless browser (Debian's chromium): the page of a throttled fabric
# run against the healthy one shows FAIL, the flagged node and pictures that decode; two healthy
# lp-gpu runs on an H200 PASS, and the same with one cell cut by half (the fault injected) FAILs
# with a regression; no resource is fetched from the network; bad input is one line and exit 1.
set -u
cd "$(dirname "$0")/../.."
/usr/bin/python3 -c 'import matplotlib, jinja2' 2>/dev/null ||
	{ echo "python3-matplotlib or python3-jinja2 not installed"; exit 77; }
command -v chromium >/dev/null || { echo "chromium not installed (scripts/install-deps.sh)"; exit 77; }
out=$(mktemp -d "${TMPDIR:-/tmp}/lp-report-test.XXXXXX")
trap 'rm -rf "$out"' EXIT
sw=tests/sweep/data gpu=docs/data/2026-12-01-h200
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

browse() { # html -> $out/dom.html, $out/shot.png
	timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--virtual-time-budget=5000 --dump-dom "file://$1" >"$out/dom.html" 2>/dev/null
	timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--window-size=1280,1600 --screenshot="$out/shot.png" "file://$1" >/dev/null 2>&1
}

# page verdict flagged-text: what the rendered page must show
check_page() {
	local html=$1 want=$2 flag=$3 imgs
	browse "$html"
	grep -q "id=\"verdict\" class=\"verdict $want\">$want<" "$out/dom.html" &&
		ok "$(basename "$html"): verdict $want rendered" || bad "$(basename "$html"): no verdict $want in the DOM"
	[ -z "$flag" ] || { sed -n '/id="flagged"/,/<\/table>/p' "$out/dom.html" | grep -q "$flag" &&
		ok "$(basename "$html"): $flag flagged" || bad "$(basename "$html"): $flag not in the flagged table"; }
	imgs=$(grep -o 'data-images="[0-9]*/[0-9]*"' "$out/dom.html" | tr -dc '0-9/')
	[ -n "$imgs" ] && [ "${imgs%/*}" = "${imgs#*/}" ] && [ "${imgs#*/}" -gt 0 ] &&
		ok "$(basename "$html"): $imgs pictures decoded" || bad "$(basename "$html"): pictures decoded: '$imgs'"
	/usr/bin/python3 -c 'import sys, matplotlib.image as m; a = m.imread(sys.argv[1]); sys.exit(0 if a[..., :3].std() > 0.05 else 1)' \
		"$out/shot.png" && ok "$(basename "$html"): screenshot not blank" || bad "$(basename "$html"): blank screenshot"
	grep -Eq '(src|href)="(https?:)?//' "$html" && bad "$(basename "$html"): fetches from the network" ||
		ok "$(basename "$html"): self-contained"
}

timeout 300 plots/lp-report "$sw/fabric4-throttle.json" --baseline "$sw/fabric4-healthy.json" \
	-o "$out/throttle.html" >/dev/null || bad "lp-report throttle exited $?"
check_page "$out/throttle.html" FAIL lpnode2
[ "$(grep -o '<td>regression</td>' "$out/throttle.html" | wc -l)" = 3 ] &&
	ok "throttle: 3 regressions (lpnode2's client cells), as qual/baseline.c finds" ||
	bad "throttle: $(grep -o '<td>regression</td>' "$out/throttle.html" | wc -l) regressions, want 3"

timeout 300 plots/lp-report "$sw/fabric4-incast.json" -o "$out/incast.html" >/dev/null || bad "lp-report incast exited $?"
check_page "$out/incast.html" FAIL lpnode2
sed -n '/id="incast"/,/<\/table>/p' "$out/dom.html" | grep -q '<tr class="bad"><td>write_bw 64KiB</td><td>lpnode2</td>' &&
	ok "incast: lpnode2's row in the incast table, marked" || bad "incast: no marked lpnode2 row in the incast table"

timeout 300 plots/lp-report "$sw/fabric4-healthy.json" -o "$out/healthy.html" >/dev/null || bad "healthy exited $?"
check_page "$out/healthy.html" PASS ""

timeout 300 plots/lp-report "$gpu/lp-gpu-2.json" --baseline "$gpu/lp-gpu-1.json" -o "$out/gpu.html" >/dev/null ||
	bad "gpu exited $?"
check_page "$out/gpu.html" PASS ""
grep -q '<td>regression</td>' "$out/gpu.html" && bad "gpu: a regression between two healthy runs" ||
	ok "gpu: no regression between two healthy runs"

/usr/bin/python3 - "$gpu/lp-gpu-2.json" "$out/gpu-cut.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["results"][0]["series"][0]["cells"][0]
for k in ("median", "min", "max"):
    c[k] *= 0.5
json.dump(d, open(sys.argv[2], "w"))
PY
timeout 300 plots/lp-report "$out/gpu-cut.json" --baseline "$gpu/lp-gpu-1.json" -o "$out/gpu-cut.html" >/dev/null
grep -q 'class="verdict FAIL"' "$out/gpu-cut.html" && [ "$(grep -o '<td>regression</td>' "$out/gpu-cut.html" | wc -l)" = 1 ] &&
	ok "gpu with h2d_ce cut by half: FAIL, one regression" || bad "gpu with a cell cut by half not flagged"

echo '{"tool": "something-else"}' >"$out/bad.json"
for args in "$out/bad.json -o $out/x.html" "/nonexistent.json -o $out/x.html" "$sw/fabric4-healthy.json --baseline $out/bad.json -o $out/x.html"; do
	# shellcheck disable=SC2086
	plots/lp-report $args >/dev/null 2>"$out/err"
	rc=$?
	[ $rc = 1 ] && [ "$(wc -l <"$out/err")" = 1 ] && ! grep -q Traceback "$out/err" &&
		ok "bad input refused in one line: $(cat "$out/err")" || bad "bad input ($args): rc $rc, $(head -3 "$out/err")"
done
exit $((fails > 0))
