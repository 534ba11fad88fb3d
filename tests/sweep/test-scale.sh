#!/bin/bash
# tier: quick
# A report that reads at 1,000 nodes: a synthetic run (tests/sweep/gen-sweep.py: 1,000 nodes, a
# random schedule of 6 partners each, a slow node, a slow link, a failed node, an odd firmware)
# diagnosed by the real engine (lp-sweep --diagnose) and rendered by lp-report, then checked
# (tests/sweep/report_check.py scale): the verdict and the flagged table come before any per-cell
# table or picture, no table is longer than 100 rows, every flagged node and both ends of the
# flagged link are tick labels on every matrix and per-node picture; the page renders in headless
# chromium with the verdict in the first screen. With a floor that hundreds of cells miss, the
# failing cells and the verdicts stay bounded too; a 2-rail run's pictures hold one rail each.
# Each check is shown to fail on its fault.
set -u
. "$(dirname "$0")/plots-lib.sh"
plots_setup scale matplotlib jinja2 lxml chromium lp-sweep

$PY tests/sweep/gen-sweep.py --nodes 1000 --slow-node r07n03=0.5 --slow-link 'r20n05>r33n12=0.4' \
	--failed-node r50n16 --odd-firmware r12n07 -o "$out/in.json" || exit 1
"$B/lp-sweep" --diagnose "$out/in.json" --json "$out/run.json" --quiet
[ $? = 1 ] && ok "1,000 nodes diagnosed: exit 1 (faults named)" || bad "lp-sweep --diagnose of 1,000 nodes"
timeout 300 plots/lp-report "$out/run.json" -o "$out/run.html" >/dev/null || bad "lp-report exited $?"
check scale "$out/run.json" "$out/run.html" 100 || fails=$((fails + 1))
$PY -c 'import sys, lxml.html
t = lxml.html.parse(sys.argv[1]).getroot().get_element_by_id("inventory-summary")
sys.exit(0 if any("28.39.9999 (1: r12n07)" in r.text_content() for r in t) else 1)' "$out/run.html" &&
	ok "inventory at 1,000 nodes: each field's values counted, the odd firmware named" ||
	bad "inventory: r12n07's firmware not named"

# the faults: the verdict moved last; flagged labels thinned away; a bound smaller than a table
check scale "$out/run.json" "$out/run.html" 100 verdict-last >"$out/inj" && bad "a verdict below the tables passed" ||
	ok "fault: the verdict after the tables is caught"
check scale "$out/run.json" "$out/run.html" 100 unforced >"$out/inj" && bad "unlabelled flagged nodes passed" ||
	ok "fault: flagged nodes thinned away from the labels caught on $(grep -c 'lacks the flagged' "$out/inj") axes"
check scale "$out/run.json" "$out/run.html" 100 short >"$out/inj" && bad "a 26-row table passed a bound of 10" ||
	ok "fault: a table over its bound is caught"

# the first screen: the verdict, then the flagged nodes, not a table of cells
timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,900 \
	--screenshot="$out/shot.png" "file://$out/run.html" >/dev/null 2>&1
$PY - "$out/shot.png" <<'PY' && ok "screenshot: the red verdict box in the first screen" || bad "screenshot: no verdict box on top"
import sys
import matplotlib.image as mi
a = mi.imread(sys.argv[1])[:250, :, :3]  # the top of the page
red = (a[..., 0] > 0.7) & (a[..., 1] < 0.3) & (a[..., 2] < 0.3)  # the FAIL box, #c62828
sys.exit(0 if red.sum() > 2000 else 1)
PY

# a floor that hundreds of cells miss: the tables stay bounded, the count is said
"$B/lp-sweep" --diagnose "$out/in.json" --min-gbps 350 --json "$out/floor.json" --quiet
timeout 300 plots/lp-report "$out/floor.json" -o "$out/floor.html" >/dev/null || bad "lp-report (floor) exited $?"
$PY - "$out/floor.html" <<'PY' && ok "a floor at 1,000 nodes: every table at most 100 rows, the count of failing cells said" || bad "floor: unbounded"
import re, sys, lxml.html
root = lxml.html.parse(sys.argv[1]).getroot()
rows = {t.get("id"): len(t.xpath(".//tr")) for t in root.xpath("//table")}
said = re.search(r"(\d+) cell\(s\) fail", root.get_element_by_id("failing").getnext().text_content())
print("   tables:", rows, "| failing:", said and said.group(1))
sys.exit(0 if max(rows.values()) <= 101 and said and int(said.group(1)) > 100 else 1)
PY
# a 2-rail run (build/sweep-synth, the real writer): each rail's pictures hold and label its own
# nodes, the slow node of each rail labelled on its rail's pictures
if [ -x "$B/sweep-synth" ]; then
	"$B/sweep-synth" 24 2 "$out/rails-in.json" 5 >/dev/null &&
		"$B/lp-sweep" --diagnose "$out/rails-in.json" --json "$out/rails.json" --quiet
	timeout 300 plots/lp-report "$out/rails.json" -o "$out/rails.html" >/dev/null || bad "lp-report (rails) exited $?"
	check scale "$out/rails.json" "$out/rails.html" 100 || fails=$((fails + 1))
else
	echo "SKIP a 2-rail run: $B/sweep-synth not built (make $B/sweep-synth)"
fi
finish
