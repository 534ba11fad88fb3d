#!/bin/bash
# tier: gpu
# lp-gpu qualification on a real GPU: --expect auto picks the GPU's profiles (PCIe, HBM, NVLink
# when present) and judges the copies; floors far below and above the measured values flip
# PASS/FAIL and the exit code (--min-gbytes-s in GB/s, the unit lp-gpu prints; --min-gbps, in
# Gb/s, is refused); against a baseline whose h2d_ce is doubled (the fault injected) exactly
# h2d_ce regresses, against its own earlier run nothing does; the textfile parses.
# Exit 77 where lp-gpu exits 77 (no GPU/driver). Results under $OUT when set.
. "$(dirname "$0")/check.sh"
LPG=$B/lp-gpu
[ -x "$LPG" ] || { echo "lp-gpu not built (no CUDA toolkit): skipped"; exit 77; }
tmp=${OUT:-$(mktemp -d)}
PY=/usr/bin/python3
run() { # name args...: JSON in $tmp/name.json, rc in $rc
	local name=$1
	shift
	"$LPG" -t h2d_ce,d2h_ce,local_ce -s 256M --samples 3 --quiet --json "$tmp/$name.json" "$@" 2>"$tmp/$name.err"
	rc=$?
}

run auto --expect auto --prom "$tmp/auto.prom"
grep -q "built without a JSON library" "$tmp/auto.err" &&
	{ echo "lp-gpu built without jansson (libjansson-dev): profiles cannot be read: skipped"; exit 77; }
[ $rc = 77 ] && { echo "lp-gpu: no GPU or driver here (exit 77): skipped"; exit 77; }
cat "$tmp/auto.err"
"$PY" - "$tmp/auto.json" "$rc" <<'PY' || fail "--expect auto"
import json, sys
sys.path.insert(0, "plots")
from lpdoc import columns  # the qualification's cells are columns (the product's reader)
d = json.load(open(sys.argv[1]))
q = d["qualification"]
q["cells"] = [c for _, c in columns(q["cells"])]
rules = [r for _, r in columns(q["rules"])] if isinstance(q.get("rules"), dict) else q.get("rules") or []
print("profiles:", q["profiles"], "verdict:", q["verdict"])
for c in q["cells"]:  # a cell names the rule (and so the profile) that judged it
    src = rules[c["rule"]]["source"] if 0 <= c["rule"] < len(rules) else "-"
    print(f"  {c['test']:10} {c['pair']:12} {c['value']:9.2f} limit {c['limit']} {c['verdict']} {src}")
assert "hbm-device-local" in q["profiles"] and "pcie-gen" in q["profiles"], q["profiles"]
assert all(c["verdict"] in ("PASS", "FAIL") for c in q["cells"]), q["cells"]
assert int(sys.argv[2]) == (1 if q["verdict"] == "FAIL" else 0)
PY
if ! "$PY" -c 'import prometheus_client' 2>/dev/null; then
	echo "SKIP the textfile parse: python3-prometheus-client not installed here"
else "$PY" -c "
from prometheus_client.parser import text_string_to_metric_families as p
s = [x for f in p(open('$tmp/auto.prom').read()) for x in f.samples]
assert any(x.name == 'linkperf_cell_pass' for x in s)
" || fail "--prom textfile does not parse"
fi

run pass --min-gbytes-s h2d_ce=1,d2h_ce=1,local_ce=10
[ $rc = 0 ] && grep -q '"verdict": "PASS"' "$tmp/pass.json" || fail "floors far below: rc $rc"
run fail --min-gbytes-s h2d_ce=1000
[ $rc = 1 ] && grep -q '"verdict": "FAIL"' "$tmp/fail.json" || fail "a floor far above: rc $rc"
# the floor is GB/s, the unit lp-gpu prints: 20 GB/s, never 20 Gb/s = 2.5 GB/s
"$PY" -c 'import json,sys; sys.path.insert(0, "plots"); from lpdoc import columns; c=[c for _, c in columns(json.load(open(sys.argv[1]))["qualification"]["cells"]) if c["test"]=="h2d_ce"]; assert c and all(x["limit"]==1000 for x in c), c' "$tmp/fail.json" ||
	fail "--min-gbytes-s 1000 is not a 1000 GB/s floor"
run gbps --min-gbps 50
[ $rc = 2 ] && grep -q "give the floor as --min-gbytes-s" "$tmp/gbps.err" || fail "--min-gbps (Gb/s) is not refused by lp-gpu: rc $rc"

"$PY" - "$tmp/pass.json" "$tmp/double.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d.pop("qualification")
for r in d["results"]:
    if r["test"] == "h2d_ce":
        for s in r["series"]:
            for c in s["cells"]:
                for k in ("median", "min", "max"):
                    c[k] *= 2
json.dump(d, open(sys.argv[2], "w"))
PY
run regress --baseline "$tmp/double.json"
[ $rc = 1 ] && "$PY" -c "
import json, sys; sys.path.insert(0, 'plots'); from lpdoc import columns
q = json.load(open('$tmp/regress.json'))['qualification']
cells = [c for _, c in columns(q['cells'])]
assert [c['test'] for c in cells if c['change'] == 'regression'] == ['h2d_ce'], cells
" || fail "a baseline with h2d_ce doubled: rc $rc, want one regression"
run same --baseline "$tmp/pass.json"
[ $rc = 0 ] || fail "against its own earlier run: rc $rc (a false regression)"
echo "ok: lp-gpu qualification (auto profiles, floors both ways, baseline regression and none)"
