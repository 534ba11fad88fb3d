#!/bin/bash
# bench-harness.sh - lp-sweep's harness overhead per round, measured through the model transport
# (lp-sweep --model: no RDMA, each test's time 0), at given rank counts on one host (Open MPI,
# shared memory). Per rank count, two sweeps -- 1 test and 4 tests per pair -- give the cost of one
# test session (its side-channel messages: (r4 - r1) / 6 with 2 directions a round) and the fixed
# cost of a round (barrier, gather to rank 0, journal: r1 - 2 x session). docs/SWEEP.md ("Time
# model") records the figures and the command; lp-sweep's time model uses them.
#
#   scripts/bench-harness.sh [-n "16 64 256"] [-i none|process|both] [-u on|off|both] [-o DIR]
#                            [-r REPEATS]
#
# -n  rank counts (default "16 64")   -i  test isolation (default none: the harness alone;
# process: through the test workers) -u  set-up reuse (lp-sweep --reuse; default: lp-sweep's own,
# the option not given, so that builds before it run too) -o  raw outputs (default
# build/bench-harness/<time>)   -r  runs per point, the median kept (default 1)
# Env: LP_BUILD (build dir), LP_MPIRUN_ARGS (extra mpirun arguments).
# Prints one table (ranks, isolation, rounds, per round with 1 and 4 tests, per session, fixed per
# round), then rank 0's cost per gathered cell (decode, journal line) and the journal's fsync per
# round, measured alone by scripts/bench-journal.c (built here against the build's library), and
# the figures lp-sweep's time model takes for this machine (harness-time.json: a model's "time"
# keys round_ms, round_rank_us, worker_ms); under -o: runs.tsv (every run: ranks, isolation,
# tests, rounds, sweep and wall seconds), fit.tsv,
# the table, and each run's output (its JSON and journal too with LP_KEEP=1: megabytes at 64 ranks).
# Exit 0, 2 usage, 77 without mpirun.
set -u
cd "$(dirname "$0")/.."
B=${LP_BUILD:-build}
. scripts/model-mpi.sh
reps=1 reuses=default
while getopts n:i:u:o:r:h opt; do
	bench_opt "$opt" "${OPTARG:-}" || case $opt in
	u) reuses=$OPTARG ;;
	r) reps=$OPTARG ;;
	*) bench_usage "$opt" ;;
	esac
done
case $reuses in on | off | default) ;; both) reuses="off on" ;; *) echo "-u on|off|both" >&2; exit 2 ;; esac
bench_begin bench-harness
cat >"$out/model.json" <<'EOF'
{"schema": "linkperf.model/1", "note": "bench-harness: no noise, no time per test",
 "noise": {"cv": 0.01}, "time": {"setup_ms": 0, "test_ms": 0}}
EOF
# shellcheck disable=SC2206  # LP_MPIRUN_ARGS: words
mpi=("${model_mpirun[@]}" ${LP_MPIRUN_ARGS:-})

# a run's line in runs.tsv; prints its seconds per round (the sweep's time over its rounds)
record='
import json, sys
d = json.load(open(sys.argv[1]))
sys.path.insert(0, "tests/sweep")
from sweepdoc import cells  # linkperf.sweep/2: the rounds are those of its sweep attempts
sweep, wall = d["run"]["sweep_s"], d["run"]["wall_s"]
n = 1 + max(c["round"] for c in cells(d) if c["phase"] == "sweep")
with open(sys.argv[5], "a") as f:
    print(*sys.argv[2:5], n, "%.6f" % sweep, "%.6f" % wall, sep="\t", file=f)
print(sweep / n)'
# one sweep: seconds per round, the median of the repeats
per_round() { # ranks isolation tests tag reuse
	local j="$out/$4.json" best=() i opt=()
	[ "$5" = default ] || opt=(--reuse "$5")
	for ((i = 0; i < reps; i++)); do
		timeout -k 10 1800 "${mpi[@]}" -np "$1" "$B/lp-sweep" --model "$out/model.json" \
			--isolation "$2" --tests "$3" --retest 0 --quiet --json "$j" "${opt[@]}" \
			>"$out/$4.out" 2>&1 </dev/null
		best+=("$(python3 -c "$record" "$j" "$1" "$2/$5" "$3" "$out/runs.tsv" 2>/dev/null || echo nan)")
		[ "${LP_KEEP:-0}" = 1 ] || rm -f "$j" "${j%.json}.journal"
	done
	printf '%s\n' "${best[@]}" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'
}

printf 'ranks\tisolation\ttests\trounds\tsweep_s\twall_s\n' >"$out/runs.tsv"
exec > >(tee "$out/table.txt")
echo "# bench-harness $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -n): $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# $(mpirun --version 2>/dev/null | head -n1); ${mpi[*]} -np N $B/lp-sweep --model model.json --retest 0"
printf '%6s %9s %7s %7s %14s %14s %12s %16s\n' ranks isolation reuse rounds "round 1 test" "round 4 tests" "per session" "fixed per round"
for n in $ranks; do
	for i in $isos; do
		for u in $reuses; do
			r1=$(per_round "$n" "$i" write_bw "n$n-$i-$u-1" "$u")
			r4=$(per_round "$n" "$i" write_lat,write_bw,read_lat,read_bw "n$n-$i-$u-4" "$u")
			python3 - "$n" "$i" "$u" "$r1" "$r4" "$out/fit.tsv" <<'EOF'
import sys
n, iso, u, r1, r4 = int(sys.argv[1]), sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
rounds = n - 1 + n % 2
s = (r4 - r1) / 6  # 2 directions x 3 more sessions
print(f"{n:6d} {iso:>9s} {u:>7s} {rounds:7d} {r1*1e3:11.2f} ms {r4*1e3:11.2f} ms {s*1e3:9.3f} ms {(r1-2*s)*1e3:13.2f} ms")
with open(sys.argv[6], "a") as f:
    print(n, iso, u, s, r1 - 2 * s, sep="\t", file=f)
EOF
		done
	done
done
# rank 0's work per gathered cell and the journal's fsync per round, alone (scripts/bench-journal.c)
if ${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -Werror -I. -D_GNU_SOURCE -o "$out/bench-journal" \
	scripts/bench-journal.c "$B/liblinkperf.a" $(make -s --no-print-directory ldlibs) 2>"$out/bench-journal.err"; then
	for c in 256 4096; do rm -f "$out/bench.journal"; "$out/bench-journal" "$out/bench.journal" $c 30; done
	rm -f "$out/bench.journal" "$out/bench-journal"
else
	echo "# bench-journal did not build: $(head -n 1 "$out/bench-journal.err")"
fi
# the figures lp-sweep's time model takes for this machine (a model's "time": --plan --model and
# the engine's prediction under --model): the fixed part of a round fitted over the rank counts
# (a + b x ranks, without workers), a worker's round trip per session (a round of two tests a
# pair, lp-sweep's default, with workers less without, over its four sessions)
python3 - "$out/fit.tsv" "$out/harness-time.json" <<'EOF'
import json, sys
pts = {}
for line in open(sys.argv[1]):
    n, iso, u, s, fixed = line.split()
    pts.setdefault(u, {}).setdefault(iso, {})[int(n)] = (float(s), float(fixed))
for u, by in sorted(pts.items()):
    base = by.get("none") or by.get("process")
    xs = sorted(base)
    ys = [base[n][1] for n in xs]
    a, b = ys[0], 0.0
    if len(xs) > 1:
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        b = max(0.0, sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs))
        a = max(0.0, my - b * mx)
    t = {"round_ms": round(a * 1e3, 3), "round_rank_us": round(b * 1e6, 3)}
    both = [n for n in by.get("none", {}) if n in by.get("process", {})]
    if both:
        # a round of the default two tests a pair, fixed + 4 sessions, with workers less without
        r2 = lambda sf: sf[1] + 4 * sf[0]
        w = sum(r2(by["process"][n]) - r2(by["none"][n]) for n in both) / len(both) / 4
        t["worker_ms"] = round(max(0.0, w) * 1e3, 3)
    print(f'# time model figures (reuse {u}): "time": {json.dumps(t)}')
    if u in ("default", "on") or len(pts) == 1:
        json.dump(t, open(sys.argv[2], "w"))
EOF
echo "# raw: $out"
