#!/bin/bash
# tier: quick
# lp-sweep --plan: the time model without MPI or a device. Checks the plan's structure (ranks,
# rounds, ordered pairs of the schedule, per-test and per-round terms that add up, a Slurm time
# that covers the bound), that the engine states the same prediction at start-up (its journal's
# progress records carry it: one model for both), and the prediction against a real run through
# the model transport at 16 ranks: the run cannot be faster than its tests' own time (the model
# sleeps it), and on a loaded host it stays within ten times the prediction -- an order of
# magnitude, not a speed. Usage errors exit 2.
set -u
cd "$(dirname "$0")/../.."
B=${LP_BUILD:-build}
[ -x "$B/lp-sweep" ] || { echo "$B/lp-sweep not built (rdma-core or mpicc missing?)"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

# the plan alone: no mpirun, no device
out=$("$B/lp-sweep" --plan --nodes 64 2>&1)
rc=$?
if [ $rc = 0 ] && grep -q "64 nodes x 1 rail = 64 ranks, round-robin schedule: 63 rounds, 4032 ordered pairs x 2 tests" <<<"$out" &&
	grep -q "^Slurm: ask -t [0-9]* (minutes" <<<"$out"; then
	ok "--plan --nodes 64: the schedule and a Slurm time, without MPI"
else
	bad "--plan --nodes 64 (exit $rc): $out"
fi
for reuse in on auto; do
"$B/lp-sweep" --plan --nodes 1024 --rails 8 --reuse $reuse --json "$T/p1024.json" >"$T/p1024.txt"
rc=$?
python3 - "$T/p1024.json" "$rc" "$reuse" <<'EOF' && ok "--plan --nodes 1024 --rails 8 --reuse $reuse: its terms add up" || bad "--plan --nodes 1024 --rails 8 --reuse $reuse"
import json, math, sys
p, rc, reuse = json.load(open(sys.argv[1])), int(sys.argv[2]), sys.argv[3] == "on"
pr, c = p["predicted"], p["costs"]
close = lambda a, b: math.isclose(a, b, rel_tol=1e-9)
checks = {
    "exit 0": rc == 0,
    "shape": (p["ranks"], p["rounds"], p["ordered_pairs"], len(p["tests"])) == (8192, 1023, 8 * 1024 * 1023, 2),
    "pair = its tests": close(pr["pair_s"], sum(t["seconds"] for t in p["tests"])),
    "harness at 8,192 ranks": close(pr["harness_s"], c["round_s"] + c["round_rank_s"] * 8192
                                    + c["cell_s"] * 8192 * 2),
    "round": close(pr["round_s"], 2 * pr["pair_s"] + pr["harness_s"]),
    # set-up reuse: the first two rounds' sessions pay the fresh set-up; without it (auto: off
    # on RDMA) every round costs the same
    "sweep": close(pr["sweep_s"], 1023 * pr["round_s"] + 2 * 2 * 2 * c["first_s"]) and
             (c["first_s"] > 0) == reuse,
    "total": close(pr["total_s"], pr["start_s"] + pr["sweep_s"] + pr["load_s"]),
    "bound": close(pr["bound_s"], pr["total_s"] + pr["retest_s"]),
    "slurm": p["slurm_minutes"] * 60 >= 1.2 * pr["bound_s"],
}
for k, v in checks.items():
    if not v:
        print("FAIL", k, json.dumps(p)[:600])
sys.exit(0 if all(checks.values()) else 1)
EOF
done
for args in "--plan" "--plan --nodes 1" "--plan --nodes 8 --costs nosuch" "--plan --nodes 8 --schedule nosuch"; do
	# shellcheck disable=SC2086 # word lists
	out=$("$B/lp-sweep" $args 2>&1)
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && ok "lp-sweep $args: exit 2, one line" || bad "lp-sweep $args: exit $rc: $out"
done

# the prediction against a run through the model transport
if ! command -v mpirun >/dev/null; then
	echo "SKIP the prediction against a model run: Open MPI (mpirun) not installed"
	exit $((fails > 0))
fi
echo '{"schema": "linkperf.model/1", "noise": {"cv": 0.02}, "time": {"test_ms": 25}}' >"$T/m.json"
if "$B/lp-sweep" --plan --nodes 2 --model "$T/m.json" 2>&1 | grep -q "without a JSON library"; then
	echo "SKIP the prediction against a model run: lp-sweep built without jansson"
	exit $((fails > 0))
fi

# a model's "time" carries its machine's harness figures (bench-harness.sh writes them): the plan
# takes them, a test worker's round trip only where tests run in the workers; bad figures refused
echo '{"schema": "linkperf.model/1", "time": {"setup_ms": 2, "test_ms": 25, "round_ms": 100,
 "round_rank_us": 1000, "worker_ms": 40, "start_s": 7}}' >"$T/mh.json"
for iso in none process; do
	"$B/lp-sweep" --plan --nodes 10 --model "$T/mh.json" --isolation $iso --quiet \
		--json "$T/ph-$iso.json" || bad "--plan --model mh.json --isolation $iso"
done
python3 - "$T/ph-none.json" "$T/ph-process.json" <<'EOF' || fails=$((fails + 1))
import json, math, sys
none, proc = (json.load(open(f)) for f in sys.argv[1:3])
c, pn, pp = none["costs"], none["predicted"], proc["predicted"]
near = lambda a, b: math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
checks = {
    "the model's round_ms, round_rank_us and start_s are the plan's":
        near(c["round_s"], 0.1) and near(c["round_rank_s"], 0.001) and near(c["start_s"], 7),
    "the harness of a round is round + ranks x per rank (0.1 + 10 x 0.001 s)":
        near(pn["harness_s"], 0.11),
    "without workers a test is the model's set-up and time (27 ms)":
        near(none["tests"][0]["seconds"], 0.027),
    "with workers each test pays the worker's 40 ms too":
        near(proc["tests"][0]["seconds"], 0.067) and near(proc["costs"]["worker_s"], 0.04),
}
for k, v in checks.items():
    print("ok  " if v else "FAIL", k)
sys.exit(0 if all(checks.values()) else 1)
EOF
for t in '"round_ms": -1' '"round_us": 3' '"worker_ms": "x"'; do
	echo "{\"schema\": \"linkperf.model/1\", \"time\": {$t}}" >"$T/mbad.json"
	out=$("$B/lp-sweep" --plan --nodes 4 --model "$T/mbad.json" 2>&1)
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q 'time' <<<"$out" &&
		ok "a model's time {$t}: exit 2, one line" || bad "a model's time {$t}: exit $rc: $out"
done
"$B/lp-sweep" --plan --nodes 16 --model "$T/m.json" --isolation none --quiet --json "$T/p16.json" || bad "--plan --model"
timeout -k 5 300 mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader,tcp \
	--mca pml ob1 --mca mpi_yield_when_idle 1 -np 16 "$B/lp-sweep" --model "$T/m.json" \
	--isolation none --retest 0 --quiet --json "$T/r16.json" </dev/null 2>"$T/r16.err"
rc=$?
python3 - "$T/p16.json" "$T/r16.json" "$T/r16.journal" "$rc" <<'EOF' || fails=$((fails + 1))
import json, math, os, sys
sys.path.insert(0, os.path.join(os.environ["LP_ROOT"], "tests/sweep"))
from sweepdoc import cells
p, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
sweep_rounds = lambda d: 1 + max(c["round"] for c in cells(d) if c["phase"] == "sweep")
prog = [json.loads(l) for l in open(sys.argv[3]) if '"type":"progress"' in l]
pr, rc = p["predicted"], int(sys.argv[4])
tests_only = p["rounds"] * p["directions_per_slot"] * sum(t["seconds"] for t in p["tests"])
sweep = r["run"]["sweep_s"]
checks = {
    f"the run ended (exit {rc})": rc == 0,
    "the run's rounds are the plan's": sweep_rounds(r) == p["rounds"],
    f"the engine's prediction is the plan's ({prog[0]['predicted_s'] if prog else None} s)":
        bool(prog) and math.isclose(prog[0]["predicted_s"], pr["total_s"], rel_tol=1e-9),
    f"the sweep ({sweep:.2f} s) is no faster than its tests ({tests_only:.2f} s)": sweep >= 0.98 * tests_only,
    f"and within 10x the predicted sweep ({pr['sweep_s']:.2f} s)": sweep <= 10 * pr["sweep_s"],
}
for k, v in checks.items():
    print("ok  " if v else "FAIL", k)
sys.exit(0 if all(checks.values()) else 1)
EOF
exit $((fails > 0))
