#!/bin/bash
# The accuracy benchmark through the real engine: lp-sweep --model (the model transport) under
# mpirun, one rank per node, the engine's own retest rounds and planner, the scenarios of
# tests/sweep/diag-bench.c written as model files by diag-sim and the documents scored by it.
#
#   scripts/bench-diag-mpi.sh [--sizes 8,16,32,64] [--np-max N] [--trials T] [--csv FILE]
#                             [--faults none,src,link,leaf,path] [--sev 0.8]
#
# On a 16-core machine, 64-256 ranks (the coordinator's run):
#   scripts/bench-diag-mpi.sh --sizes 64,128,256 --trials 10 --csv docs/data/bench-diag-mpi.csv
# (ECMP uplink faults are left out: linkperf.model/1 has no "share" of a leaf's flows yet.)
set -u
cd "$(dirname "$0")/.."
B=${LP_BUILD:-build}
sizes=8,16,32,64 npmax=256 trials=10 csv=/dev/null faults=none,src,link,leaf,path sevs=0.8
while [ $# -gt 0 ]; do
	case $1 in
	--sizes) sizes=$2; shift ;;
	--np-max) npmax=$2; shift ;;
	--trials) trials=$2; shift ;;
	--csv) csv=$2; shift ;;
	--faults) faults=$2; shift ;;
	--sev) sevs=$2; shift ;;
	*) echo "usage: $0 [--sizes LIST] [--np-max N] [--trials T] [--csv FILE] [--faults LIST] [--sev LIST]" >&2; exit 2 ;;
	esac
	shift
done
[ -x "$B/lp-sweep" ] && "$B/lp-sweep" --help 2>/dev/null | grep -q -- '--model' ||
	{ echo "bench-diag-mpi: $B/lp-sweep has no --model (the model transport)"; exit 77; }
command -v mpirun >/dev/null || { echo "bench-diag-mpi: no mpirun"; exit 77; }
T=$(mktemp -d /tmp/bench-diag-mpi-XXXXXX)
trap 'rm -rf "$T"' EXIT
mpi() { timeout -k 5 1800 mpirun --allow-run-as-root --oversubscribe --bind-to none \
	--mca btl self,vader,tcp --mca pml ob1 --mca mpi_yield_when_idle 1 "$@" </dev/null; }
IFS=, read -r -a NS <<<"$sizes"
IFS=, read -r -a FS <<<"$faults"
IFS=, read -r -a SS <<<"$sevs"
for n in "${NS[@]}"; do
	[ "$n" -le "$npmax" ] || continue
	for f in "${FS[@]}"; do for s in "${SS[@]}"; do
		[ "$f" = none ] && [ "$s" != "${SS[0]}" ] && continue # healthy: once
		args=(-n "$n" --cv 0.05 --blip 0.02 -f "$f" -s "$s" -t "$trials")
		rm -rf "$T/m" && mkdir -p "$T/m"
		"$B/diag-sim" "${args[@]}" --emit-model "$T/m" >/dev/null || exit 1
		docs=() t0=$(date +%s)
		for i in $(seq 0 $((trials - 1))); do
			m=$T/m/n$n-$f-$s-$i
			mpi -np "$n" "$B/lp-sweep" --model "$m.model.json" --topology "$m.topo" \
				--tests write_bw --sizes 1M --isolation none --quiet --json "$m.json" 2>"$m.err"
			rc=$?
			[ -s "$m.json" ] || { echo "# n=$n $f trial $i: no document (exit $rc): $(tail -1 "$m.err")"; continue 2; }
			docs+=("$m.json")
		done
		echo "\$ diag-sim ${args[*]} --score (${#docs[@]} documents of lp-sweep --model, $(($(date +%s) - t0)) s)"
		"$B/diag-sim" "${args[@]}" --score "$(IFS=,; echo "${docs[*]}")" --csv "$csv"
	done; done
done
