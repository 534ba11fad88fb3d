#!/bin/bash
# tier: quick
# One document, one truth: for every recorded run (tests/sweep/data), lp-sweep --diagnose writes
# the JSON, the summary and the CSV; lp-report renders the JSON; every cell shows the same
# resolved value (the one the diagnosis used, after retests) in all four, each within the digits
# it prints (tests/sweep/report_check.py agree: the JSON read on its own, the HTML with lxml).
# Shown to fail when a cell's first attempt replaces its resolved value in the document the
# report reads (the bug the report had: 0.00408 GB/s in a table, 0.0607 Gb/s in the heatmap).
set -u
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
B=${LP_BUILD:-build}
$PY -c 'import matplotlib, jinja2, lxml' 2>/dev/null ||
	{ echo "python3-matplotlib, python3-jinja2 or python3-lxml not installed"; exit 77; }
[ -x "$B/lp-sweep" ] || { echo "$B/lp-sweep not built (make; needs rdma-core headers)"; exit 77; }
out=$(mktemp -d "${TMPDIR:-/tmp}/lp-agree-test.XXXXXX")
trap 'rm -rf "$out"' EXIT
fails=0
for f in tests/sweep/data/*.json; do
	b=$out/$(basename "$f" .json)
	"$B/lp-sweep" --diagnose "$f" --json "$b.json" --csv "$b" >"$b.txt"
	[ $? -le 3 ] || { echo "FAIL lp-sweep --diagnose $f"; fails=$((fails + 1)); continue; }
	timeout 300 plots/lp-report "$b.json" -o "$b.html" >/dev/null || { echo "FAIL lp-report $b.json"; fails=$((fails + 1)); }
	$PY tests/sweep/report_check.py agree "$b.json" "$b.txt" "$b" "$b.html" || fails=$((fails + 1))
done

# the fault: the report reads a document whose cell lpnode0 -> lpnode1 (write_bw) shows its
# first attempt, not the retested value the summary and the CSV show
b=$out/fabric4-throttle
$PY - "$b.json" "$out/first.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
first = next(c["value"] for c in d["cells"] if c["metric"] == 1 and c["client"] == 0 and c["server"] == 1)
m = d["metrics"][1]
assert m["matrix"][0][1] != first, "the cell was not retested"
m["matrix"][0][1] = first
json.dump(d, open(sys.argv[2], "w"))
PY
timeout 300 plots/lp-report "$out/first.json" -o "$out/first.html" >/dev/null
if $PY tests/sweep/report_check.py agree "$b.json" "$b.txt" "$b" "$out/first.html" >"$out/inj"; then
	echo "FAIL a report showing a first attempt passed the agreement check"; fails=$((fails + 1))
else
	echo "ok   fault: a report showing lpnode0 -> lpnode1's first attempt is caught: $(grep -m1 FAIL "$out/inj" | cut -c1-150)"
fi
exit $((fails > 0))
