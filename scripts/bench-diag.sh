#!/bin/bash
# The accuracy benchmark of lp-sweep's diagnosis, one command: docs/BENCHMARKS.md's table, the raw
# CSV beside it (docs/data/bench-diag-DATE.csv) and the per-setting lines.
#
#   scripts/bench-diag.sh [--quick] [--no-model] [--np-max N] [--n-min N] [--n-max N] [--jobs J]
#                         [--planner ORDER] [--out DIR] [--no-docs]
#
# Scenarios and scoring are tests/sweep/diag-bench.c's, whoever produces the cells:
#   diag-sim     in process: the library's diagnosis and its retest planner (lp_sweep_retest_plan,
#                the engine's), fresh draws for the pairs it picks; N from 3 to 1,024 (--n-max:
#                no cluster larger than N, for a small host; --n-min: none smaller, to add the
#                largest to a grid run elsewhere)
#   model        the real engine under mpirun with `lp-sweep --model` (the model transport),
#                when this lp-sweep has it: the same scenarios written as model files
#                (diag-sim --emit-model), scored from the documents (diag-sim --score);
#                N up to --np-max (default 64 here; scripts/bench-diag-mpi.sh for 64-256 ranks)
# Grid: noise 2-20 %, blips 0-2 % at 0.3-0.8x, Student-t(3) tails, 10 % congested rounds, node
# (client, server, both), link, two at once, leaf, ECMP uplink (a quarter of a leaf's flows),
# path, rail, latency-only faults, faults at the limit each run states (sev 0), with and
# without the topology. Trials shrink with N (2 cores: the whole grid takes hours; --quick
# minutes; --jobs J splits every setting line per noise level, fault and severity and runs J of
# them at once, for a many-core machine: the same settings and trials, the lines in the same order).
# --planner share|random runs diag-sim with the retest planner before 2026-12-02 or a blind one
# (a before/after comparison; default ranked, lp-sweep's: the model part always runs lp-sweep's).
# LP_BUILD picks the build.
set -u
cd "$(dirname "$0")/.."
B=${LP_BUILD:-build}
args="$*" quick=0 model=1 docs=1 npmax=64 nmin=0 nmax=1000000 jobs=1 out=docs/data planner=
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--no-model) model=0 ;;
	--no-docs) docs=0 ;;
	--np-max) npmax=$2; shift ;;
	--n-min) nmin=$2; shift ;;
	--n-max) nmax=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	--planner) planner=$2; shift ;;
	-h | --help) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	--out) out=$2; shift ;;
	*) echo "usage: $0 [--quick] [--no-model] [--np-max N] [--n-min N] [--n-max N] [--jobs J] [--planner ORDER] [--out DIR] [--no-docs]" >&2; exit 2 ;;
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
jd=$(mktemp -d /tmp/bench-diag-XXXXXX) nj=0
trap 'rm -rf "$jd"' EXIT
sim() { # one setting line, run now (--jobs 1) or split per --cv, -f and -s value into queued jobs
	[ -n "$planner" ] && set -- "$@" --planner "$planner"
	if [ "$jobs" -le 1 ]; then echo "\$ diag-sim $*"; nice "$B/diag-sim" "$@" --csv "$csv"; echo; return; fi
	local a=("$@") i c f v cvs= fs= svs=-
	for ((i = 0; i < ${#a[@]}; i++)); do
		case ${a[i]} in --cv) cvs=${a[i + 1]} ;; -f) fs=${a[i + 1]} ;; -s) svs=${a[i + 1]} ;; esac
	done
	for c in ${cvs//,/ }; do
		for f in ${fs//,/ }; do
			for v in ${svs//,/ }; do
				[ "$f" = none ] && [ "$v" != "${svs%%,*}" ] && continue # healthy: once
				local b=()
				for ((i = 0; i < ${#a[@]}; i++)); do
					case ${a[i]} in
					--cv) b+=(--cv "$c"); i=$((i + 1)) ;;
					-f) b+=(-f "$f"); i=$((i + 1)) ;;
					-s) b+=(-s "$v"); i=$((i + 1)) ;;
					*) b+=("${a[i]}") ;;
					esac
				done
				nj=$((nj + 1))
				echo "${b[*]}" >"$jd/$(printf %05d $nj)" # (no argument holds a space)
			done
		done
	done
}
drain() { # the queued jobs, J at once, each one's rows into the CSV as it ends (a timeout keeps
	# what finished); then their lines in queue order
	[ "$nj" -gt 0 ] || return 0
	ls "$jd" | grep -v '\.' | B=$B CSV=$csv xargs -P "$jobs" -I{} bash -c 'j=$0/$1; set -- $(cat "$j")
		nice "$B/diag-sim" "$@" --csv "$j.csv" >"$j.out" 2>&1
		{ flock 9; if [ -s "$CSV" ]; then tail -n +2 "$j.csv"; else cat "$j.csv"; fi >>"$CSV"; } 9>"$0/.lock"' "$jd" {}
	for j in $(ls "$jd" | grep -v '\.'); do
		echo "\$ diag-sim $(cat "$jd/$j")"; cat "$jd/$j.out"; echo
	done
}
upto() { for n in "$@"; do [ "$n" -ge "$nmin" ] && [ "$n" -le "$nmax" ] && echo "$n"; done; } # the sizes --n-min/max allow
big=1024; [ $quick = 1 ] && big=256

# healthy runs: the confident-verdict rate (target <= 1 % at noise <= 5 %, blips <= 2 %)
for n in $(upto 3 4 8 16 64 256 $big); do
	sim -n $n --cv 0.02,0.05,0.1,0.2 --blip 0,0.005,0.02 -f none -t "$(t $n 200)"
done
# nodes and links: severities, noise, blips
for n in $(upto 3 4 6 8 16 64 256); do
	sim -n $n --cv 0.02,0.05,0.1,0.2 --blip 0.02 -f src,dst,both,link,two -s 0.9,0.8,0.7,0.5 -t "$(t $n 100)"
done
[ -n "$(upto $big)" ] && sim -n $big --cv 0.05 --blip 0.02 -f src,link -s 0.8 -t 1
# faults at the limit each run states (target: found >= 90 %)
for n in $(upto 8 16 64 256); do
	sim -n $n --cv 0.05 --blip 0.02 -f src,both,link,leaf -s 0 -t "$(t $n 100)"
done
# shared faults: leaf, ECMP uplink, path (with the topology), rails, blocks without it
for n in $(upto 16 32 64 256); do
	sim -n $n --cv 0.02,0.05,0.1 --blip 0.02 -f leaf,uplink,path -s 0.8,0.5 -t "$(t $n 100)"
	sim -n $n --cv 0.05 --blip 0.02 -f leaf,uplink -s 0.8,0.5 -t "$(t $n 100)" --no-topology
done
[ -n "$(upto 16)" ] && sim -n 16,64 --rails 4 --cv 0.05 --blip 0.02 -f none,rail,src -s 0.8 -t "$(t 64 100)"
# links at scale: the retest planner's reach (suspects outnumber the budget from N = 128 at 2 %
# blips), one metric and two (a link slows both); trials of their own (a 512-node trial ~20 s)
tl() { local k; case $1 in 128) k=20 ;; 256) k=8 ;; *) k=3 ;; esac; [ $quick = 1 ] && k=$((k / 4 > 1 ? k / 4 : 1)); echo $k; }
for n in $(upto 128 256 512); do
	sim -n $n --cv 0.05 --blip 0.02 -f none,link -s 0.5,0.6,0.7,0.8 -t "$(tl $n)"
	sim -n $n --cv 0.05 --blip 0.02 --metrics 2 -f none,link -s 0.6,0.8 -t "$(tl $n)"
done
# heavy tails, congested rounds, latency-only faults (two metrics)
for n in $(upto 8 64); do
	sim -n $n --cv 0.05 --blip 0.02 --tail 3 -f none,src,link -s 0.8 -t "$(t $n 100)"
	sim -n $n --cv 0.05 --blip 0.02 --congest 0.1 -f none,src,link,leaf -s 0.8 -t "$(t $n 100)"
	sim -n $n --cv 0.05 --blip 0.02 --metrics 2 --lat-only -f none,src,link -s 0.8 -t "$(t $n 100)"
done
drain

# the same scenarios through the real engine: lp-sweep --model under mpirun
if [ $model = 1 ] && [ -x "$B/lp-sweep" ] && "$B/lp-sweep" --help 2>/dev/null | grep -q -- '--model' &&
	command -v mpirun >/dev/null; then
	scripts/bench-diag-mpi.sh --np-max "$npmax" --csv "$csv" --trials "$([ $quick = 1 ] && echo 2 || echo 10)"
else
	echo "# model transport: skipped ($([ $model = 0 ] && echo "--no-model" || echo "$B/lp-sweep without --model, or no mpirun"))"
fi

[ $docs = 1 ] && scripts/bench-diag-table "$csv" docs/BENCHMARKS.md
echo "# raw: $csv; lines: $log"
