#!/bin/sh
# Qualification of lp-rdma inside one Soft-RoCE guest (run by tests/vm/test-qual.sh): floors far
# above and below the measured values flip PASS/FAIL and the exit code, every verdict agrees with
# its value and limit, --expect auto says Soft-RoCE has no profile, a baseline with the values cut
# (the fault injected) is a regression, the Prometheus textfile parses. Prints "ok"/"FAIL" lines;
# exits with the number of failures. Env: LP_BUILD, LP_VM_IP, OUT.
. tests/guest-lib.sh
guest_one 19400 /tmp/lp-qual-test
PY=/usr/bin/python3

run() { # name args...: one client run, JSON in $OUT/name.json, rc in $RC
	name=$1
	shift
	"$B" "$IP" -p "$PORT" --wait 10 -t write_lat,write_bw -s 8,64K -n 200 --warmup 20 \
		--json "$OUT/$name.json" "$@" >"$OUT/$name.txt" 2>&1
	RC=$?
}

# qual NAME 'python condition on d (the document) and q (its qualification)'
qual() {
	"$PY" - "$OUT/$1.json" "$2" <<'PY'
import json, math, sys
sys.path.insert(0, "plots")
from lpdoc import columns  # the product's reader of columns objects
d = json.load(open(sys.argv[1]))
q = d.get("qualification", {})
if isinstance(q.get("cells"), dict):  # the columns form: one dict per cell
    q["cells"] = [c for _, c in columns(q["cells"])]
for c in q.get("cells", []):  # every verdict agrees with its value and limit
    if c["verdict"] == "none":
        continue
    lat = c["kind"] == "latency"  # the cell's kind (its unit follows: us, or Gb/s)
    good = c["value"] <= c["limit"] if lat else c["value"] >= c["limit"]
    assert (c["verdict"] == "PASS") == good, c
    m = (c["limit"] - c["value"]) / c["limit"] if lat else (c["value"] - c["limit"]) / c["limit"]
    assert abs(m - c["margin"]) < 1e-9, c
assert eval(sys.argv[2]), sys.argv[2]
PY
}

start_server
run base
[ $RC = 0 ] && ok "baseline run" || bad "baseline run" "rc $RC: $(tail -n 3 "$OUT/base.txt")"
# the measured figures over both sizes: write_lat p50 (us) and write_bw (GB/s), least and most
fig() { "$PY" -c "import json; d=json.load(open('$OUT/base.json')); print($1([r['latency_us']['p50'] if 'lat' in r['test'] else r['bandwidth']['gbytes_per_s'] for r in d['results'] if r['test']=='$2']))"; }
lat_lo=$(fig min write_lat) lat_hi=$(fig max write_lat) bw_lo=$(fig min write_bw) bw_hi=$(fig max write_bw)
echo "measured: write_lat p50 $lat_lo..$lat_hi us, write_bw $bw_lo..$bw_hi GB/s"

# floors ten times looser than every measured value: PASS, exit 0; ten times tighter: FAIL, exit 1
hi_lat=$("$PY" -c "print($lat_hi * 10)") lo_lat=$("$PY" -c "print($lat_lo / 10)")
lo_bw=$("$PY" -c "print($bw_lo / 10)") hi_bw=$("$PY" -c "print($bw_hi * 10)")
run pass --max-lat-us "write_lat=$hi_lat" --min-gbps "write_bw=${lo_bw}GB/s"
[ $RC = 0 ] && qual pass 'q["verdict"] == "PASS" and q["pass"] == 4 and q["fail"] == 0' &&
	grep -q "^verdict: PASS" "$OUT/pass.txt" && ok "floors below the measured values: PASS, exit 0" ||
	bad "floors below: PASS" "rc $RC: $(tail -n 4 "$OUT/pass.txt")"
run fail --max-lat-us "write_lat=$lo_lat" --min-gbps "write_bw=${hi_bw}GB/s"
[ $RC = 1 ] && qual fail 'q["verdict"] == "FAIL" and q["fail"] == 4 and q["pass"] == 0' &&
	grep -q "^verdict: FAIL" "$OUT/fail.txt" && ok "floors above the measured values: FAIL, exit 1" ||
	bad "floors above: FAIL" "rc $RC: $(tail -n 4 "$OUT/fail.txt")"
# one floor for every test, in Gb/s (the default unit), between the sizes' bandwidths (the
# geometric mean: 8 B and 64 KiB differ some 200x here): 8 B FAIL, 64 KiB PASS, latency unjudged
run mixed --min-gbps "$("$PY" -c "print(($bw_lo * $bw_hi) ** 0.5 * 8)")"
[ $RC = 1 ] &&
	qual mixed 'sorted((c["test"], c["size"], c["verdict"]) for c in q["cells"]) == [("write_bw", 8, "FAIL"), ("write_bw", 65536, "PASS"), ("write_lat", 8, "none"), ("write_lat", 65536, "none")]' &&
	ok "a global floor in Gb/s judges every bandwidth cell: 8 B FAIL, 64 KiB PASS, exit 1" ||
	bad "a global floor" "rc $RC: $(tail -n 6 "$OUT/mixed.txt")"

# --expect auto on Soft-RoCE: no profile, said so; nothing judged; exit 0
run auto --expect auto --prom "$OUT/auto.prom"
[ $RC = 0 ] && qual auto '"Soft-RoCE" in q["note"] and not q["profiles"] and q["verdict"] == "NONE"' &&
	ok "--expect auto: Soft-RoCE has no meaningful profile" || bad "--expect auto" "rc $RC: $(tail -n 3 "$OUT/auto.txt")"
"$PY" -c "
import sys
from prometheus_client.parser import text_string_to_metric_families as p
s = {x.name: x for f in p(open('$OUT/auto.prom').read()) for x in f.samples}
assert s['linkperf_run_ok'].value == 1 and s['linkperf_cells'].labels['tool'] == 'lp-rdma', s
assert any(n == 'linkperf_bandwidth_gbytes_per_second' for n in s)
" && ok "--prom: the textfile parses (prometheus_client), run_ok 1" || bad "--prom" "$(head -5 "$OUT/auto.prom")"

# baselines: the baseline run's values raised tenfold (the fault: this run looks 10x worse)
"$PY" - "$OUT/base.json" "$OUT/better.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    if "latency_us" in r:
        r["latency_us"]["p50"] /= 10
    else:
        r["bandwidth"]["gbytes_per_s"] *= 10
json.dump(d, open(sys.argv[2], "w"))
PY
run regress --baseline "$OUT/better.json"
# bandwidth records no spread: a regression; latency regresses unless its samples' spread under
# TCG covers a tenfold change (then it is noise, which the rule allows), or the baseline run itself
# was starved (a 1.4 ms p50 in one CI-host run, this run 13 us: an improvement even against a
# tenth of it)
[ $RC = 1 ] && qual regress 'all(c["change"] == ("regression" if c["kind"] == "bandwidth" else c["change"]) and c["change"] in ("regression", "noise", "better") for c in q["cells"]) and q["baseline"]["regressions"] >= 2' &&
	ok "a baseline ten times better: regressions, exit 1" || bad "regression found" "rc $RC: $(tail -n 6 "$OUT/regress.txt")"
# the report reads lp-rdma documents: FAIL at the top, the regressed cells in the comparison
if timeout 300 plots/lp-report "$OUT/regress.json" --baseline "$OUT/better.json" -o "$OUT/regress.html" >"$OUT/report.txt" 2>&1 &&
	grep -q 'class="verdict FAIL"' "$OUT/regress.html" && grep -q '<td>regression</td>' "$OUT/regress.html"; then
	ok "lp-report on lp-rdma documents: FAIL with the regressions"
else
	bad "lp-report on lp-rdma" "$(tail -n 3 "$OUT/report.txt")"
fi
# against itself: no regression (lp-rdma bandwidth records no spread, so Soft-RoCE's run-to-run
# noise under TCG is left to a generous threshold)
run same --baseline "$OUT/base.json" --regress-pct 80
[ $RC = 0 ] && qual same 'q["baseline"]["regressions"] == 0 and q["baseline"]["missing"] == []' &&
	ok "the same test again against the baseline: no regression, nothing missing" ||
	bad "no false regression" "rc $RC: $(tail -n 6 "$OUT/same.txt")"
# a baseline with a cell this run does not have: listed
"$B" "$IP" -p "$PORT" --wait 10 -t write_lat -s 8 -n 200 --warmup 20 --baseline "$OUT/base.json" --regress-pct 1000 \
	--json "$OUT/fewer.json" >"$OUT/fewer.txt" 2>&1
RC=$? # 0, or 1 when TCG's latency swings (20 us to 4 ms seen) beat the threshold: not checked here
[ $RC -le 1 ] && qual fewer 'sorted((m["test"], m["size"]) for m in q["baseline"]["missing"]) == [("write_bw", 8), ("write_bw", 65536), ("write_lat", 65536)]' &&
	grep -q "missing from this run (in the baseline): write_bw 64 KiB" "$OUT/fewer.txt" &&
	ok "cells of the baseline this run lacks are listed" || bad "missing cells" "rc $RC: $(tail -n 5 "$OUT/fewer.txt")"
stop_server

# bad input: one line, exit 2, before any connection
for a in "--expect /nonexistent.json" "--min-gbps fast" "--max-lat-us write_lat=" "--baseline /nonexistent.json"; do
	# shellcheck disable=SC2086
	"$B" "$IP" -p 1 --wait 1 $a >"$OUT/bad.txt" 2>&1
	RC=$?
	[ $RC = 2 ] && [ "$(wc -l <"$OUT/bad.txt")" -le 2 ] && ok "bad input '$a': exit $RC" ||
		bad "bad input '$a'" "rc $RC: $(cat "$OUT/bad.txt")"
done
exit $fails
