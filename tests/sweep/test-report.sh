#!/bin/bash
# tier: quick
# plots/lp-report in a real headless browser (Debian's chromium), its pages parsed with lxml: a
# throttled fabric run against the healthy one shows FAIL, lpnode2 flagged and its 3 regressions
# as the C judge (lp-judge --baseline) found them, pictures that decode; the same run against a
# baseline of other nodes (another partition) is ERROR with the judge's reason, never PASS, and
# still compares the two distributions; two lp-gpu runs on an H200 PASS, and with one cell cut by
# half (the fault injected) FAIL with one regression; an lp-gpu run and an lp-rdma one (the
# linkperf.rdma/2 fixture) judged by lp-judge against floors FAIL with exactly the cells below; no
# exponent, nan, bare size or second unit on any page; no resource is fetched from the network;
# bad input is one line and exit 2.
set -u
. "$(dirname "$0")/plots-lib.sh"
plots_setup report matplotlib jinja2 lxml chromium lp-judge
J=$B/lp-judge
sw=tests/sweep/data gpu=docs/data/2026-12-01-h200 fix=tests/fixtures/docs
# xpath HTML EXPR: what lxml finds there, one a line (text of elements, or attribute values)
xpath() {
	$PY -c 'import signal, sys, lxml.html
signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # a reader that stops early (grep -q)
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
reg=$(xpath "$out/throttle.html" '//table[@id="failing-cells"]//tr[td="regression"]/@data-src' | sort -u)
n=$(xpath "$out/throttle.html" '//table[@id="failing-cells"]//tr[td="regression"]' | wc -l)
[ "$reg" = lpnode2 ] && [ "$n" = 3 ] && ok "throttle: $n regressions, all lpnode2 as source, as the judge found" ||
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

# a document judged by linkperf 0.2 (its qualification on each cell's first attempt): those
# verdicts left out and said so with the command that judges again; never shown beside a
# resolved value they were not judged on
$PY - "$sw/fabric4-throttle.json" "$out/old-judge.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = []
for c in d["cells"]:
    if c["phase"] == "sweep" and c["unit"] == "Gb/s":
        v = c["value"] / 8  # GB/s, the first attempt, as qual/doc.c of 0.2 read it
        rows.append({"test": c["test"], "size": c["size"], "pair": f"{c['client_name']}>{c['server_name']}",
                     "unit": "GB/s", "value": v, "spread": 0, "verdict": "PASS" if v >= 0.00625 else "FAIL",
                     "limit": 0.00625, "margin": v / 0.00625 - 1, "source": "--min-gbps 0.05"})
d["qualification"] = {"verdict": "FAIL", "cells": rows, "command": ["lp-sweep", "--min-gbps", "0.05"]}
json.dump(d, open(sys.argv[2], "w"))
PY
timeout 300 plots/lp-report "$out/old-judge.json" -o "$out/old-judge.html" >/dev/null
note=$(xpath "$out/old-judge.html" '//p[@class="note"]')
shown=$(xpath "$out/old-judge.html" '//table[@id="failing-cells"]//tr[@data-src]/@data-src' | sort -u)
grep -q "judged on another value than their resolved one.*lp-judge" <<<"$note" && [ "$shown" = lpnode2 ] &&
	ok "a 0.2 judgement on first attempts: $(grep -o '^[0-9]* cell(s)' <<<"$note") left out and said so; lpnode2's failures kept" ||
	bad "a 0.2 judgement: note '$note', failing rows from '$shown'"

timeout 300 plots/lp-report "$sw/fabric4-incast.json" -o "$out/incast.html" >/dev/null || bad "lp-report incast exited $?"
check_page "$out/incast.html" FAIL lpnode2
xpath "$out/incast.html" '//table[@id="incast-table"]//tr[@class="bad"]/td[2]' | grep -qx lpnode2 &&
	ok "incast: lpnode2's row in the incast table, marked" || bad "incast: no marked lpnode2 row in the incast table"
xpath "$out/incast.html" '//table[@id="incast-table"]//tr[td[2]="lpnode2"]/td[7]' | grep -qx "— (every sender failed)" &&
	ok "incast: lpnode2's Jain index is '—' with the reason" || bad "incast: lpnode2's Jain: $(xpath "$out/incast.html" '//table[@id="incast-table"]//tr[td[2]="lpnode2"]/td[7]')"

timeout 300 plots/lp-report "$sw/fabric4-healthy.json" -o "$out/healthy.html" >/dev/null || bad "healthy exited $?"
check_page "$out/healthy.html" PASS ""

timeout 300 plots/lp-report "$gpu/lp-gpu-2.json" --baseline "$gpu/lp-gpu-1.json" -o "$out/gpu.html" >/dev/null ||
	bad "gpu exited $?"
check_page "$out/gpu.html" PASS ""
[ -z "$(xpath "$out/gpu.html" '//table[@id="failing-cells"]//tr[@data-test]')" ] &&
	ok "gpu: no regression between two healthy runs" || bad "gpu: a regression between two healthy runs"
# every lp-gpu cell in the measured table shows the document's median (read here on its own)
$PY - "$gpu/lp-gpu-2.json" "$out/gpu.html" <<'PY' && ok "gpu: all cells in the measured table, each the JSON's median" || bad "gpu: measured table disagrees"
import json, sys, lxml.html
sys.path.insert(0, "tests/sweep")
from report_check import agrees
d = json.load(open(sys.argv[1]))
want = {(r["test"], r["size"], s["label"], c.get("column", c.get("from")), c.get("row", c.get("to"))): c["median"]
        for r in d["results"] for s in r["series"] for c in s["cells"] if c["status"] == "ok"}
rows = lxml.html.parse(sys.argv[2]).xpath('//table[@id="measured-cells"]//tr[@data-test]')
got = {(t.get("data-test"), t.get("data-size"), t.get("data-series") or "value", t.get("data-src"), t.get("data-dst")):
       t.xpath("./td")[3].text_content() for t in rows}
sizes = {k[1] for k in want}
size_text = {f"{s // 2**20} MiB" if s < 2**30 else f"{s // 2**30} GiB": s for s in sizes}
got = {(k[0], size_text[k[1]], *k[2:]): v for k, v in got.items()}
bad = [k for k in want if k not in got or not agrees(got[k], want[k])]
print("   ", len(want), "cells,", len(bad), "disagree", bad[:3])
sys.exit(1 if bad or len(got) != len(want) else 0)
PY
$PY - "$gpu/lp-gpu-2.json" "$out/gpu-cut.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["results"][0]["series"][0]["cells"][0]
for k in ("median", "min", "max"):
    c[k] *= 0.5
json.dump(d, open(sys.argv[2], "w"))
PY
timeout 300 plots/lp-report "$out/gpu-cut.json" --baseline "$gpu/lp-gpu-1.json" -o "$out/gpu-cut.html" >/dev/null
[ "$(xpath "$out/gpu-cut.html" '//*[@id="verdict"]')" = FAIL ] &&
	[ "$(xpath "$out/gpu-cut.html" '//table[@id="failing-cells"]//tr[@data-test]/@data-test')" = h2d_ce ] &&
	ok "gpu with h2d_ce cut by half: FAIL, that one regression" || bad "gpu with a cell cut by half not flagged"

# lp-gpu and lp-rdma documents (linkperf.gpu/2, linkperf.rdma/2) judged by lp-judge against
# floors: FAIL with exactly the cells below them, values in GB/s (copies) and Gb/s (network)
"$J" "$gpu/lp-gpu-2.json" --min-gbps h2d_ce=56GB/s --json "$out/gpu-floor.json" >/dev/null
"$J" "$fix/lp-rdma-2.json" --min-gbps 200 --json "$out/rdma-floor.json" >/dev/null
for x in gpu-floor:h2d_ce:2 rdma-floor:write_bw:2; do
	IFS=: read -r name test n <<<"$x"
	timeout 300 plots/lp-report "$out/$name.json" -o "$out/$name.html" >/dev/null
	got=$(xpath "$out/$name.html" '//table[@id="failing-cells"]//tr[@data-test]/@data-test' | sort | uniq -c | awk '{print $2 ":" $1}')
	[ "$(xpath "$out/$name.html" '//*[@id="verdict"]')" = FAIL ] && [ "$got" = "$test:$n" ] &&
		xpath "$out/$name.html" '//*[@id="commands"]/following-sibling::p' | grep -q "^The judge: .*lp-judge" &&
		ok "$name: FAIL, the $n $test cell(s) below the floor, the judge's command shown" || bad "$name: failing cells '$got'"
done
browse "$out/rdma-floor.html"
[ "$(xpath "$out/dom.html" '//*[@id="verdict"]')" = FAIL ] && ok "rdma-floor.html renders in chromium" ||
	bad "rdma-floor.html: no verdict in the DOM"

# the GPUs of every node (lp-qualify's run directory: gpu/*.json beside sweep.json): a fleet of
# 16 hosts x 8 GPUs with a slow host and a slow GPU is FAIL with both named in the GPU table and
# the verdict's reasons, rendered in chromium; the same fleet healthy PASSes with the table and
# nothing named; a sweep with no gpu/ beside it says there is no GPU fleet data
for name in bad ok; do
	faults=()
	[ "$name" = bad ] && faults=(gpu003:h2d_ce:0.7 gpu009:d2h_sm:0.8:GPU5)
	$PY tests/sweep/gpufleet-docs.py "$out/fleet-$name" 16 8 "${faults[@]}"
	cp "$sw/fabric4-healthy.json" "$out/fleet-$name/sweep.json"
	timeout 300 plots/lp-report "$out/fleet-$name/sweep.json" -o "$out/fleet-$name.html" >/dev/null ||
		bad "lp-report of fleet-$name exited $?"
done
check_page "$out/fleet-bad.html" FAIL ""
rows=$(xpath "$out/dom.html" '//table[@id="gpu-fleet-named"]//tr/@data-host' | sort | uniq -c | awk '{print $2 ":" $1}' | tr '\n' ' ')
[ "$rows" = "gpu003:2 gpu009:2 " ] &&
	xpath "$out/dom.html" '//table[@id="gpu-fleet-named"]//tr[@data-host="gpu003"]/td[1]' | sort -u | grep -qx "slow node" &&
	[ "$(xpath "$out/dom.html" '//table[@id="gpu-fleet"]//tr[@data-path]' | wc -l)" = 19 ] &&
	[ "$(xpath "$out/dom.html" '//table[@id="gpu-fleet"]//tr[@class="bad"]/@data-path' | tr '\n' ,)" = "d2h_sm 256 MiB,d2h_sm 1 GiB,h2d_ce 256 MiB,h2d_ce 1 GiB," ] &&
	xpath "$out/dom.html" '//*[@id="why"]/li' | grep -q "^gpu node slow gpu003: h2d_ce 1 GiB" &&
	ok "GPU fleet in the report (chromium): gpu003 a slow node and gpu009 a slow GPU on their 2 paths each, 19 paths, the reasons under the verdict" ||
	bad "GPU fleet in the report: named rows '$rows', bad paths $(xpath "$out/dom.html" '//table[@id="gpu-fleet"]//tr[@class="bad"]/@data-path' | tr '\n' ,)"
browse "$out/fleet-ok.html"
[ "$(xpath "$out/dom.html" '//*[@id="verdict"]')" = PASS ] &&
	[ "$(xpath "$out/dom.html" '//table[@id="gpu-fleet"]//tr[@data-path]' | wc -l)" = 19 ] &&
	[ -z "$(xpath "$out/dom.html" '//table[@id="gpu-fleet-named"]')" ] &&
	ok "a healthy GPU fleet: PASS, its 19 paths shown, nothing named" || bad "a healthy GPU fleet: $(xpath "$out/dom.html" '//*[@id="why"]/li' | head -2)"
xpath "$out/healthy.html" '//*[@id="gpu-fleet-none"]' | grep -q "^no GPU fleet data: .*/gpu does not exist" &&
	ok "a sweep without gpu/ beside it: the report says there is no GPU fleet data" ||
	bad "a sweep without GPU data: '$(xpath "$out/healthy.html" '//*[@id="gpus"]/following-sibling::p[1]')'"

# formats and units of every page: no exponent, no nan, sizes as 64 KiB, Gb/s for the network
# and GB/s for GPU copies; the check catches a page with 2.808e+04, nan and 65536 injected
check formats "$out"/throttle.html "$out"/disjoint.html "$out"/incast.html \
	"$out"/healthy.html "$out"/gpu.html "$out"/gpu-floor.html "$out"/rdma-floor.html \
	"$out"/fleet-bad.html "$out"/fleet-ok.html || fails=$((fails + 1))
sed 's|<td class="num">|<td class="num">2.808e+04 nan 65536 |' "$out/healthy.html" >"$out/injected.html"
[ "$(check formats "$out/injected.html" | grep -c 'exponent\|nan\|size')" -ge 1 ] &&
	ok "fault: a page with 2.808e+04, nan and 65536 is caught" || bad "an injected exponent passed"
# GB/s is lp-gpu's unit inside the GPU section only: the same words outside it are caught
sed 's|<h2 id="gpus">|<p>write_bw 12 GB/s</p>&|' "$out/fleet-bad.html" >"$out/injected-gbs.html"
check formats "$out/injected-gbs.html" | grep -q "GB/s in an lp-sweep output: 'write_bw 12 GB/s'" &&
	ok "fault: GB/s outside the GPU section of a sweep's report is caught" || bad "GB/s outside the GPU section passed"

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
finish
