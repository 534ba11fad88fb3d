#!/bin/bash
# The accuracy benchmark of lp-sweep's diagnosis, one command: docs/BENCHMARKS.md's table, the raw
# CSV beside it (docs/data/bench-diag-DATE.csv) and the per-setting lines.
#
#   scripts/bench-diag.sh [--quick] [--no-model] [--np-max N] [--n-max N] [--out DIR] [--no-docs]
#
# Scenarios and scoring are tests/sweep/diag-bench.c's, whoever produces the cells:
#   diag-sim     in process: the library's diagnosis and its retest planner (lp_sweep_retest_plan,
#                the engine's), fresh draws for the pairs it picks; N from 3 to 1,024 (--n-max:
#                no cluster larger than N, for a small host)
#   model        the real engine under mpirun with `lp-sweep --model` (the model transport),
#                when this lp-sweep has it: the same scenarios written as model files
#                (diag-sim --emit-model), scored from the documents (diag-sim --score);
#                N up to --np-max (default 64 here; scripts/bench-diag-mpi.sh for 64-256 ranks)
# Grid: noise 2-20 %, blips 0-2 % at 0.3-0.8x, Student-t(3) tails, 10 % congested rounds, node
# (client, server, both), link, two at once, leaf, ECMP uplink (a quarter of a leaf's flows),
# path, rail, latency-only faults, faults at the limit each run states (sev 0), with and
# without the topology. Trials shrink with N (2 cores: the whole grid takes hours; --quick
# minutes). LP_BUILD picks the build.
set -u
cd "$(dirname "$0")/.."
B=${LP_BUILD:-build}
args="$*" quick=0 model=1 docs=1 npmax=64 nmax=1000000 out=docs/data
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--no-model) model=0 ;;
	--no-docs) docs=0 ;;
	--np-max) npmax=$2; shift ;;
	--n-max) nmax=$2; shift ;;
	--out) out=$2; shift ;;
	*) echo "usage: $0 [--quick] [--no-model] [--np-max N] [--n-max N] [--out DIR] [--no-docs]" >&2; exit 2 ;;
	esac
	shift
done
[ -x "$B/diag-sim" ] || { echo "bench-diag: $B/diag-sim not built (make)" >&2; exit 77; }
stamp=$(date -u +%Y%m%dT%H%MZ)
mkdir -p "$out"
csv=$out/bench-diag-$stamp.csv
log=$out/bench-diag-$stamp.txt
: >"$csv"
exec > >(tee "$log") 2>&1
echo "# bench-diag $stamp on $(uname -n): $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(git describe --always --dirty 2>/dev/null); options: ${args:-none}"
t() { # trials for N: scaled so that every N costs about the same
	local n=$1 base=$2
	[ $quick = 1 ] && base=$((base / 5 > 4 ? base / 5 : 4))
	if [ "$n" -le 16 ]; then echo "$base"; elif [ "$n" -le 64 ]; then echo $((base / 4 > 4 ? base / 4 : 4));
	elif [ "$n" -le 256 ]; then echo $((base / 20 > 2 ? base / 20 : 2)); else echo 1; fi
}
sim() { echo "\$ diag-sim $*"; nice "$B/diag-sim" "$@" --csv "$csv"; echo; }
upto() { for n in "$@"; do [ "$n" -le "$nmax" ] && echo "$n"; done; } # the sizes --n-max allows
big=1024; [ $quick = 1 ] && big=256

# healthy runs: the confident-verdict rate (target <= 1 % at noise <= 5 %, blips <= 2 %)
for n in $(upto 3 4 8 16 64 256 $big); do
	sim -n $n --cv 0.02,0.05,0.1,0.2 --blip 0,0.005,0.02 -f none -t "$(t $n 200)"
done
# nodes and links: severities, noise, blips
for n in $(upto 3 4 6 8 16 64 256); do
	sim -n $n --cv 0.02,0.05,0.1,0.2 --blip 0.02 -f src,dst,both,link,two -s 0.9,0.8,0.7,0.5 -t "$(t $n 100)"
done
[ "$big" -le "$nmax" ] && sim -n $big --cv 0.05 --blip 0.02 -f src,link -s 0.8 -t 1
# faults at the limit each run states (target: found >= 90 %)
for n in $(upto 8 16 64 256); do
	sim -n $n --cv 0.05 --blip 0.02 -f src,both,link,leaf -s 0 -t "$(t $n 100)"
done
# shared faults: leaf, ECMP uplink, path (with the topology), rails, blocks without it
for n in $(upto 16 32 64 256); do
	sim -n $n --cv 0.02,0.05,0.1 --blip 0.02 -f leaf,uplink,path -s 0.8,0.5 -t "$(t $n 100)"
	sim -n $n --cv 0.05 --blip 0.02 -f leaf,uplink -s 0.8,0.5 -t "$(t $n 100)" --no-topology
done
sim -n 16,64 --rails 4 --cv 0.05 --blip 0.02 -f none,rail,src -s 0.8 -t "$(t 64 100)"
# heavy tails, congested rounds, latency-only faults (two metrics)
for n in 8 64; do
	sim -n $n --cv 0.05 --blip 0.02 --tail 3 -f none,src,link -s 0.8 -t "$(t $n 100)"
	sim -n $n --cv 0.05 --blip 0.02 --congest 0.1 -f none,src,link,leaf -s 0.8 -t "$(t $n 100)"
	sim -n $n --cv 0.05 --blip 0.02 --metrics 2 --lat-only -f none,src,link -s 0.8 -t "$(t $n 100)"
done

# the same scenarios through the real engine: lp-sweep --model under mpirun
if [ $model = 1 ] && [ -x "$B/lp-sweep" ] && "$B/lp-sweep" --help 2>/dev/null | grep -q -- '--model' &&
	command -v mpirun >/dev/null; then
	scripts/bench-diag-mpi.sh --np-max "$npmax" --csv "$csv" --trials "$([ $quick = 1 ] && echo 2 || echo 10)"
else
	echo "# model transport: skipped ($B/lp-sweep without --model, or no mpirun)"
fi

[ $docs = 1 ] && scripts/bench-diag-table "$csv" docs/BENCHMARKS.md
echo "# raw: $csv; lines: $log"
