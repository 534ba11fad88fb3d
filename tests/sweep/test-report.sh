#!/bin/bash
# tier: quick
# plots/lp-report in a real headless browser (Debian's chromium), its pages parsed with lxml: a
# throttled fabric run against the healthy one shows FAIL, lpnode2 flagged and its regressions as
# the C judge (lp-sweep --diagnose --baseline) found them, pictures that decode; the same run
# against a baseline of other nodes (another partition) is ERROR with the reason, never PASS, and
# still compares the two distributions; an lp-gpu run is MEASURED, and FAIL with the one cell its
# recorded qualification section fails; no exponent, nan, bare size or second unit on any page;
# no resource is fetched from the network; bad input is one line and exit 2.
set -u
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
$PY -c 'import matplotlib, jinja2, lxml' 2>/dev/null ||
	{ echo "python3-matplotlib, python3-jinja2 or python3-lxml not installed"; exit 77; }
command -v chromium >/dev/null || { echo "chromium not installed (scripts/install-deps.sh)"; exit 77; }
[ -x "${LP_BUILD:-build}/lp-sweep" ] || { echo "${LP_BUILD:-build}/lp-sweep not built (the judge of --baseline; make)"; exit 77; }
out=$(mktemp -d "${TMPDIR:-/tmp}/lp-report-test.XXXXXX")
trap 'rm -rf "$out"' EXIT
sw=tests/sweep/data gpu=docs/data/2026-12-01-h200
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
# xpath HTML EXPR: what lxml finds there, one a line (text of elements, or attribute values)
xpath() {
	$PY -c 'import sys, lxml.html
for x in lxml.html.parse(sys.argv[1]).xpath(sys.argv[2]):
    print(x if isinstance(x, str) else x.text_content())' "$1" "$2"
}

browse() { # html -> $out/dom.html, $out/shot.png
	timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--virtual-time-budget=5000 --dump-dom "file://$1" >"$out/dom.html" 2>/dev/null
	timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--window-size=1280,1600 --screenshot="$out/shot.png" "file://$1" >/dev/null 2>&1
}

# page verdict flagged-text: what the rendered page must show
check_page() {
	local html=$1 want=$2 flag=$3 imgs name
	name=$(basename "$html")
	browse "$html"
	[ "$(xpath "$out/dom.html" '//*[@id="verdict"]')" = "$want" ] && ok "$name: verdict $want rendered" ||
		bad "$name: no verdict $want in the DOM"
	[ -z "$flag" ] || { xpath "$out/dom.html" '//*[@id="flagged"]/following-sibling::table[1]//td' | grep -qx "$flag" &&
		ok "$name: $flag flagged" || bad "$name: $flag not in the flagged table"; }
	imgs=$(xpath "$out/dom.html" '//body/@data-images')
	[ -n "$imgs" ] && [ "${imgs%/*}" = "${imgs#*/}" ] && [ "${imgs#*/}" -gt 0 ] &&
		ok "$name: $imgs pictures decoded" || bad "$name: pictures decoded: '$imgs'"
	$PY -c 'import sys, matplotlib.image as m; a = m.imread(sys.argv[1]); sys.exit(0 if a[..., :3].std() > 0.05 else 1)' \
		"$out/shot.png" && ok "$name: screenshot not blank" || bad "$name: blank screenshot"
	[ -n "$(xpath "$html" '//*[@src or @href][starts-with(@src, "http") or starts-with(@href, "http") or starts-with(@src, "//")]')" ] &&
		bad "$name: fetches from the network" || ok "$name: self-contained"
}

timeout 300 plots/lp-report "$sw/fabric4-throttle.json" --baseline "$sw/fabric4-healthy.json" \
	-o "$out/throttle.html" >/dev/null || bad "lp-report throttle exited $?"
check_page "$out/throttle.html" FAIL lpnode2
# the judge's regressions: lpnode2's client cells of write_bw (the throttled direction), no other
reg=$(xpath "$out/throttle.html" '//table[@id="failing-cells"]//tr[td[contains(., "regression")]]/@data-src' | sort -u)
n=$(xpath "$out/throttle.html" '//table[@id="failing-cells"]//tr[td[contains(., "regression")]]' | wc -l)
[ "$reg" = lpnode2 ] && [ "$n" -ge 2 ] && ok "throttle: $n regressions, all lpnode2 as source, as the judge found" ||
	bad "throttle: regressions from '$reg' ($n)"
[ "$(xpath "$out/throttle.html" '//table[@id="distributions"]//tr' | wc -l)" = 3 ] &&
	ok "throttle: both runs' distributions per metric" || bad "throttle: no distributions table"

# a baseline of other nodes (another partition, or the wrong file): ERROR with the reason, and
# the distributions still compared
$PY - "$sw/fabric4-healthy.json" "$out/roce.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = ["roce%d" % i for i in range(len(d["nodes"]))]
for n, new in zip(d["nodes"], names):
    n["name"] = n["host"] = new
for c in d["cells"]:
    c["client_name"], c["server_name"] = names[c["client"]], names[c["server"]]
json.dump(d, open(sys.argv[2], "w"))
PY
timeout 300 plots/lp-report "$sw/fabric4-throttle.json" --baseline "$out/roce.json" -o "$out/disjoint.html" \
	>/dev/null 2>"$out/err"
rc=$?
[ $rc = 2 ] && [ "$(xpath "$out/disjoint.html" '//*[@id="verdict"]')" = ERROR ] &&
	xpath "$out/disjoint.html" '//*[@id="why"]/li[1]' | grep -q "matches 0 of" &&
	[ "$(xpath "$out/disjoint.html" '//table[@id="distributions"]//tr' | wc -l)" = 3 ] &&
	ok "a baseline of other nodes: ERROR ($(head -1 "$out/err")), distributions compared, exit 2" ||
	bad "a baseline of other nodes: rc $rc, $(xpath "$out/disjoint.html" '//*[@id="why"]/li[1]')"

timeout 300 plots/lp-report "$sw/fabric4-incast.json" -o "$out/incast.html" >/dev/null || bad "lp-report incast exited $?"
check_page "$out/incast.html" FAIL lpnode2
xpath "$out/incast.html" '//table[@id="incast-table"]//tr[@class="bad"]/td[2]' | grep -qx lpnode2 &&
	ok "incast: lpnode2's row in the incast table, marked" || bad "incast: no marked lpnode2 row in the incast table"
xpath "$out/incast.html" '//table[@id="incast-table"]//tr[td[2]="lpnode2"]/td[7]' | grep -qx "— (every sender failed)" &&
	ok "incast: lpnode2's Jain index is '—' with the reason" || bad "incast: lpnode2's Jain: $(xpath "$out/incast.html" '//table[@id="incast-table"]//tr[td[2]="lpnode2"]/td[7]')"

timeout 300 plots/lp-report "$sw/fabric4-healthy.json" -o "$out/healthy.html" >/dev/null || bad "healthy exited $?"
check_page "$out/healthy.html" PASS ""

timeout 300 plots/lp-report "$gpu/lp-gpu-2.json" -o "$out/gpu.html" >/dev/null || bad "gpu exited $?"
check_page "$out/gpu.html" MEASURED ""
# the judge's section as lp-gpu --min-gbps writes it, one cell below its floor (the fault)
$PY - "$gpu/lp-gpu-2.json" "$out/gpu-judged.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = []
for r in d["results"]:
    for s in r["series"]:
        for c in s["cells"]:
            pair = f"{c['row']}<-{c['column']}" + ("" if s["label"] == "value" else " " + s["label"])
            limit = c["median"] * (1.5 if r["test"] == "h2d_ce" and r["size"] == d["params"]["sizes"][0] else 0.5)
            rows.append({"test": r["test"], "size": r["size"], "pair": pair, "unit": "GB/s", "value": c["median"],
                         "spread": 0, "verdict": "PASS" if c["median"] >= limit else "FAIL", "limit": limit,
                         "margin": (c["median"] - limit) / limit, "source": "--min-gbps"})
d["qualification"] = {"verdict": "FAIL", "cells": rows, "pass": len(rows) - 1, "fail": 1,
                      "command": ["lp-gpu", "--min-gbps", "h2d_ce=..."]}
json.dump(d, open(sys.argv[2], "w"))
PY
timeout 300 plots/lp-report "$out/gpu-judged.json" -o "$out/gpu-judged.html" >/dev/null
[ "$(xpath "$out/gpu-judged.html" '//*[@id="verdict"]')" = FAIL ] &&
	[ "$(xpath "$out/gpu-judged.html" '//table[@id="failing-cells"]//tr[@data-test]/@data-test')" = h2d_ce ] &&
	xpath "$out/gpu-judged.html" '//*[@id="run-command"]' | grep -q "^lp-gpu --min-gbps" &&
	ok "gpu with its recorded qualification: FAIL, the one h2d_ce cell, the run's command shown" ||
	bad "gpu's recorded qualification not rendered"

# formats and units of every page: no exponent, no nan, sizes as 64 KiB, Gb/s for the network
# and GB/s for GPU copies; the check catches a page with 2.808e+04, nan and 65536 injected
$PY tests/sweep/report_check.py formats "$out"/throttle.html "$out"/incast.html "$out"/healthy.html \
	"$out"/gpu.html "$out"/gpu-judged.html || fails=$((fails + 1))
sed 's|<td class="num">|<td class="num">2.808e+04 nan 65536 |' "$out/healthy.html" >"$out/injected.html"
[ "$($PY tests/sweep/report_check.py formats "$out/injected.html" | grep -c 'exponent\|nan\|size')" -ge 1 ] &&
	ok "fault: a page with 2.808e+04, nan and 65536 is caught" || bad "an injected exponent passed"

echo '{"tool": "something-else"}' >"$out/bad.json"
printf 'a,b,c\n1,2,3\n' >"$out/bad.csv"
for args in "$out/bad.json -o $out/x.html" "/nonexistent.json -o $out/x.html" "$out/bad.csv -o $out/x.html" \
	"$sw/fabric4-healthy.json --baseline $out/bad.json -o $out/x.html"; do
	# shellcheck disable=SC2086
	plots/lp-report $args >/dev/null 2>"$out/err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$out/err")" = 1 ] && ! grep -q Traceback "$out/err" &&
		ok "bad input refused in one line: $(cat "$out/err")" || bad "bad input ($args): rc $rc, $(head -3 "$out/err")"
done
exit $((fails > 0))
