#!/bin/bash
# tier: quick
# One document, one truth: for every recorded run (tests/sweep/data), lp-sweep --diagnose with a
# floor (--min-gbps 0.05, which some cells of every run miss) writes the JSON, the summary and the
# CSV; lp-report renders the JSON; every cell shows the same resolved value (the one the diagnosis
# used, after retests) in all four, the failing-cells table included, each within the digits it
# prints, and the judge's qualification rows judged that value (tests/sweep/report_check.py
# agree: the JSON read on its own, the HTML with lxml). Shown to fail when a cell's first attempt
# replaces its resolved value in the document the report reads (the bug the report had: 0.00408
# GB/s in a table, 0.0607 Gb/s in the heatmap), and when the judge's row holds a first attempt.
set -u
. "$(dirname "$0")/plots-lib.sh"
plots_setup agree matplotlib jinja2 lxml lp-sweep
for f in tests/sweep/data/*.json; do
	b=$out/$(basename "$f" .json)
	"$B/lp-sweep" --diagnose "$f" --min-gbps 0.05 --json "$b.json" --csv "$b" >"$b.txt"
	[ $? -le 3 ] || { bad "lp-sweep --diagnose $f"; continue; }
	timeout 300 plots/lp-report "$b.json" -o "$b.html" >/dev/null || bad "lp-report $b.json"
	check agree "$b.json" "$b.txt" "$b" "$b.html" || fails=$((fails + 1))
done

# the fault: the report reads a document whose cell lpnode0 -> lpnode1 (write_bw) shows its
# first attempt, not the retested value the summary and the CSV show
b=$out/fabric4-throttle
$PY - "$b.json" "$out/first.json" "$out/judged-first.json" <<'PY'
import json, sys
sys.path.insert(0, "tests/sweep")
from report_check import rows_of
d = json.load(open(sys.argv[1]))
blk = d["blocks"][1]  # write_bw 64KiB; the cell lpnode0 -> lpnode1 was retested
k = len(blk["nodes"])
first = dict(rows_of(blk["sweep"]))[0 * k + 1]["value"]
assert blk["cells"]["value"][0 * k + 1] != first, "the cell was not retested"
blk["cells"]["value"][0 * k + 1] = first
json.dump(d, open(sys.argv[2], "w"))
d = json.load(open(sys.argv[1]))
q = d["qualification"]["cells"]
i = [j for j, (_r, x) in enumerate(rows_of(q)) if x["test"] == "write_bw" and x["pair"] == "lpnode0>lpnode1"][0]
q["value"][i] = first / 8  # the judge's row: the first attempt, GB/s
json.dump(d, open(sys.argv[3], "w"))
PY
timeout 300 plots/lp-report "$out/first.json" -o "$out/first.html" >/dev/null
if check agree "$b.json" "$b.txt" "$b" "$out/first.html" >"$out/inj"; then
	bad "a report showing a first attempt passed the agreement check"
else
	ok "fault: a report showing lpnode0 -> lpnode1's first attempt is caught: $(grep -m1 FAIL "$out/inj" | cut -c1-150)"
fi
if check agree "$out/judged-first.json" "$b.txt" "$b" "$b.html" >"$out/inj"; then
	bad "a judge's row holding a first attempt passed"
else
	ok "fault: a judge's row on the first attempt is caught: $(grep -m1 'judge used' "$out/inj" | cut -c1-150)"
fi
finish
