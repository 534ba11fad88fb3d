#!/bin/bash
# bench-plan.sh - the time model's prediction against the measured duration of a sweep through the
# model transport (lp-sweep --model: no RDMA, each test sleeps the model's test_ms), at given rank
# counts on one host: `lp-sweep --plan --nodes N --model M` first, then the same sweep under
# mpirun; prints the plan's and the run's sweep seconds and their ratio (issue 27's target: within
# 20 % at 64+ ranks).
#
#   scripts/bench-plan.sh [-n "16 64 256"] [-t TEST_MS] [-i none|process|both] [-c TIME.json]
#                         [-o DIR]
#
# -n  rank counts (default "16 64")   -t  each test's time in ms (default 25)
# -i  test isolation (default none; process: through the test workers)   -o  raw outputs
# (default build/bench-plan/<time>): table.txt, every plan and run document.
# -c  this machine's harness figures, a model's "time" keys (round_ms, round_rank_us, worker_ms:
# scripts/bench-harness.sh writes them as harness-time.json); without it the "model" preset's.
# Env: LP_BUILD (build dir), LP_MPIRUN_ARGS (extra mpirun arguments).
# Exit 0, 1 a run failed, 2 usage, 77 without mpirun or jansson.
set -u
cd "$(dirname "$0")/.."
B=${LP_BUILD:-build}
. scripts/model-mpi.sh
test_ms=25 figs=""
while getopts n:t:i:c:o:h opt; do
	bench_opt "$opt" "${OPTARG:-}" || case $opt in
	t) test_ms=$OPTARG ;;
	c) figs=$OPTARG ;;
	*) bench_usage "$opt" ;;
	esac
done
case $test_ms in '' | *[!0-9]*) echo "-t: a whole number of ms" >&2; exit 2 ;; esac
bench_begin bench-plan
m=$out/model.json
python3 - "$test_ms" "$figs" >"$m" 2>/dev/null <<'EOF' || { echo "bench-plan: -c $figs: not a JSON object of numbers" >&2; exit 2; }
import json, sys
t = json.load(open(sys.argv[2])) if sys.argv[2] else {}
assert isinstance(t, dict) and all(isinstance(v, (int, float)) for v in t.values())
t["test_ms"] = int(sys.argv[1])
print(json.dumps({"schema": "linkperf.model/1", "noise": {"cv": 0.02}, "time": t}))
EOF
model_need_json "bench-plan: " "$m"
export LP_ROOT=$PWD
fails=0
echo "# $(date -u +%FT%TZ) $(uname -n) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); model $(cat "$m")" | tee "$out/table.txt"
printf '%6s %-8s %6s %12s %12s %12s %7s\n' ranks isolation rounds "plan sweep" "run sweep" "run wall" ratio |
	tee -a "$out/table.txt"
for n in $ranks; do
	for i in $isos; do
		tag=$out/n$n-$i
		"$B/lp-sweep" --plan --nodes "$n" --model "$m" --isolation "$i" --quiet --json "$tag.plan.json" \
			>"$tag.plan.txt" 2>&1 || { echo "plan N=$n failed: $(tail -1 "$tag.plan.txt")"; fails=$((fails + 1)); continue; }
		t0=$(date +%s.%N)
		# shellcheck disable=SC2086  # LP_MPIRUN_ARGS: words
		timeout -k 5 1800 "${model_mpirun[@]}" ${LP_MPIRUN_ARGS:-} -np "$n" "$B/lp-sweep" \
			--model "$m" --isolation "$i" --retest 0 --quiet --json "$tag.run.json" </dev/null >"$tag.run.err" 2>&1
		rc=$?
		t1=$(date +%s.%N)
		[ $rc = 0 ] || { echo "run N=$n ($i) exit $rc: $(tail -1 "$tag.run.err")"; fails=$((fails + 1)); continue; }
		python3 - "$tag.plan.json" "$tag.run.json" "$n" "$i" "$t0" "$t1" <<'EOF' | tee -a "$out/table.txt"
import json, sys
p, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
plan, run = p["predicted"]["sweep_s"], r["run"]["sweep_s"]
print(f"{sys.argv[3]:>6} {sys.argv[4]:<8} {p['rounds']:>6} {plan:>11.2f}s {run:>11.2f}s "
      f"{float(sys.argv[6]) - float(sys.argv[5]):>11.2f}s {run / plan:>7.3f}")
EOF
	done
done
echo "raw: $out"
exit $((fails > 0))
