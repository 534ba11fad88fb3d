#!/bin/bash
# tier: quick
# The model transport (lp-sweep --model FILE): the whole harness -- MPI, schedule, the retest
# planner, journal, diagnosis, outputs -- at 64 ranks on this host, each test's value drawn from a
# model instead of RDMA (no device is opened; this host has none). Checks: a healthy model names
# nothing (exit 0); a slow node in the model is named, and only it (exit 1); the JSON and the
# journal are written, the journal with its progress records; --diagnose of the journal gives the
# JSON's verdicts and exit code; diag-sim --replay draws the same run again in one process and gets
# the same cells and verdicts (the draws do not depend on the rank count; a replay of another seed
# differs, so the comparison can fail); the isolation path (test workers) with a crashing test costs one
# cell; bad models and one rank exit 2 with one line. LP_MODEL_RANKS (default 64) sets the size.
set -u
cd "$(dirname "$0")/../.."
B=${LP_BUILD:-build}
N=${LP_MODEL_RANKS:-64}
[ -x "$B/diag-sim" ] || { echo "$B/diag-sim not built"; exit 77; }
. tests/sweep/model-lib.sh

cat >"$T/healthy.json" <<'EOF'
{"schema": "linkperf.model/1", "seed": 11, "names": "gpu%03d",
 "base": {"lat_us": 1.9, "bw_gbps": 390}, "noise": {"cv": 0.03}, "time": {"test_ms": 1}}
EOF
sed 's/"time"/"faults": [{"node": "gpu005", "factor": 0.7}], "time"/' "$T/healthy.json" >"$T/slow.json"

# 1. healthy, 2. a slow node: the sweep, its retests, the diagnosis, the documents
t0=$(date +%s)
mpi -np "$N" "$B/lp-sweep" --model "$T/healthy.json" --isolation none --quiet --json "$T/h.json" 2>"$T/h.err"
expect $? 0 "healthy model, $N ranks: nothing named"
mpi -np "$N" "$B/lp-sweep" --model "$T/slow.json" --isolation none --json "$T/s.json" >"$T/s.out" 2>"$T/s.err"
expect $? 1 "a slow node in the model, $N ranks"
echo "     (two $N-rank sweeps in $(($(date +%s) - t0)) s)"
python3 - "$T" "$N" <<'EOF' || fails=$((fails + 1))
import json, os, sys
sys.path.insert(0, os.path.join(os.environ["LP_ROOT"], "tests/sweep"))
from sweepdoc import legacy_view
t, n = sys.argv[1], int(sys.argv[2])
h, s = (legacy_view(json.load(open(f"{t}/{x}.json"))) for x in ("h", "s"))
bad = []
for d, name in ((h, "healthy"), (s, "slow")):
    if not d["run"]["model"].endswith(f"{name}.json"):
        bad.append(f"{name}: the document does not say it is a model run: {d['run'].get('model')}")
    if len(d["nodes"]) != n or sum(c["phase"] == "sweep" for c in d["cells"]) != n * (n - 1) * 2:
        bad.append(f"{name}: {len(d['nodes'])} nodes, {len(d['cells'])} cells")
    if any(c["status"] for c in d["cells"]):
        bad.append(f"{name}: a failed cell")
if h["verdicts"] or h["exit_code"] != 0:
    bad.append(f"healthy: verdicts {[v['kind'] for v in h['verdicts']]}")
named = [(v["kind"], v.get("name")) for v in s["verdicts"]]
if named != [("node_slow", "gpu005")]:
    bad.append(f"slow: verdicts {named}, want node_slow gpu005 alone")
for line in bad:
    print("FAIL", line)
if not bad:
    print("ok   the documents: model runs, every cell, gpu005 named alone")
sys.exit(1 if bad else 0)
EOF
# the journal: written beside the JSON, with its progress records; --diagnose reads it back
for r in h s; do
	grep -q '"type":"progress"' "$T/$r.journal" && grep -q '"type":"end"' "$T/$r.journal" ||
		bad "$r.journal has no progress or end record"
	want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["exit_code"])' "$T/$r.json")
	"$B/lp-sweep" --diagnose "$T/$r.journal" --quiet --json "$T/$r-diag.json"
	expect $? "$want" "--diagnose $r.journal: the run's exit code"
	python3 - "$T/$r.json" "$T/$r-diag.json" <<'EOF' && ok "--diagnose $r.journal: the run's verdicts" || bad "--diagnose $r.journal: other verdicts"
import json, sys
v = [[(x["kind"], x.get("name"), x.get("metrics")) for x in json.load(open(p))["verdicts"]] for p in sys.argv[1:]]
sys.exit(v[0] != v[1])
EOF
done
grep -q "^lp-sweep: sweep round .* cells of .* left (end" "$T/s.err" && grep -q "^lp-sweep: predicted " "$T/s.err" &&
	grep -q "^verdict: node_slow gpu005" "$T/s.out" && ok "the prediction and progress lines on stderr, the summary on stdout" ||
	bad "no prediction, progress or summary: $(head -3 "$T/s.err")"

# 3. the same run drawn again in one process: the same cells and verdicts
same() { # a.json b.json
	python3 - "$1" "$2" <<'EOF'
import json, os, sys
sys.path.insert(0, os.path.join(os.environ["LP_ROOT"], "tests/sweep"))
from sweepdoc import legacy_view
a, b = (legacy_view(json.load(open(p))) for p in sys.argv[1:])
cells = lambda d: sorted((c["phase"], c["metric"], c["client"], c["server"], c["round"], c["status"], c["value"]) for c in d["cells"])
verdicts = lambda d: [(v["kind"], v.get("name"), v.get("metrics")) for v in d["verdicts"]]
sys.exit(0 if cells(a) == cells(b) and verdicts(a) == verdicts(b) else 1)
EOF
}
"$B/diag-sim" --model "$T/slow.json" --replay "$T/s.json" --json "$T/replay.json" >/dev/null
if same "$T/s.json" "$T/replay.json"; then ok "diag-sim --replay: the $N-rank run's cells and verdicts, in one process"; else bad "diag-sim --replay differs"; fi
sed 's/"seed": 11/"seed": 12/' "$T/slow.json" >"$T/seed12.json"
"$B/diag-sim" --model "$T/seed12.json" --replay "$T/s.json" --json "$T/replay12.json" >/dev/null
if same "$T/s.json" "$T/replay12.json"; then bad "the comparison cannot fail: another seed gave the same cells"; else ok "the comparison fails on another seed's draws"; fi

# 4. the isolation path: each side of each test in a test worker; one that crashes costs one cell
LP_SWEEP_FAULT=crash:gpu001:gpu002 mpi -x LP_SWEEP_FAULT -np 4 "$B/lp-sweep" --model "$T/healthy.json" \
	--tests write_lat --quiet --json "$T/f.json" 2>/dev/null
rc=$?
python3 - "$T/f.json" <<'EOF' && ok "--isolation process: a crashing test fails its cell, the sweep goes on (exit $rc)" || bad "--isolation process with a crash (exit $rc)"
import json, os, sys
sys.path.insert(0, os.path.join(os.environ["LP_ROOT"], "tests/sweep"))
from sweepdoc import legacy_view
d = legacy_view(json.load(open(sys.argv[1])))
failed = [(c["client_name"], c["server_name"], c["error"]) for c in d["cells"] if c["status"]]
ok = len([c for c in d["cells"] if c["phase"] == "sweep"]) == 12 and failed and \
    all(f[:2] == ("gpu001", "gpu002") and "signal 11" in f[2] for f in failed)
print("     failed:", failed[:1])
sys.exit(0 if ok else 1)
EOF

# 5. bad input: one line and exit 2
echo '{"schema": "linkperf.model/1", "nosie": {"cv": 0.1}}' >"$T/typo.json"
echo '{"schema": "linkperf.model/1", "nodes": 8}' >"$T/eight.json"
for c in "typo.json:unknown key" "nosuch.json:No such file" "eight.json:the model has 8 nodes, the job 4"; do
	out=$(mpi -np 4 "$B/lp-sweep" --model "$T/${c%%:*}" --quiet 2>&1)
	rc=$?
	if [ $rc = 2 ] && grep -q "${c#*:}" <<<"$out"; then ok "--model ${c%%:*}: exit 2, says why"; else bad "--model ${c%%:*}: exit $rc: $out"; fi
done
out=$(mpi -np 1 "$B/lp-sweep" --model "$T/healthy.json" --quiet 2>&1)
rc=$?
if [ $rc = 2 ] && grep -q "one rank: nothing to pair.*--mpi=pmix" <<<"$out"; then ok "one rank: exit 2, the likely cause"; else bad "one rank: exit $rc: $out"; fi
exit $((fails > 0))
