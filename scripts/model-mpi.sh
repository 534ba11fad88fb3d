# shellcheck shell=bash
# Sourced by what runs lp-sweep's model transport on one host under Open MPI: the benches
# (scripts/bench-plan.sh, scripts/bench-harness.sh) and the model tests (tests/sweep/model-lib.sh).
# Needs B (the build directory). Declares once:
#   model_mpirun             the mpirun words: oversubscribed ranks that yield instead of spinning,
#                            shared memory between the ranks of one host (-np and the program follow)
#   model_need_mpi PREFIX    exits 77 with PREFIX and the reason without mpirun or $B/lp-sweep
#   model_need_json PREFIX MODEL
#                            exits 77 when lp-sweep was built without jansson (MODEL: a model file)
# and, for the benches, their shared options and start:
#   bench_opt OPT ARG        from getopts: -n ranks (rank counts), -i iso (isolation), -o out
#                            (the raw outputs' directory); 0 when OPT is one of them, else 1
#   bench_usage OPT          the script's header comment (lines 2-16); exit 0 for -h, else 2
#   bench_begin NAME         the defaults (ranks "16 64", iso none, out $B/NAME/<time>, made),
#                            -i checked into isos (none, process or both: exit 2 otherwise), the
#                            checks above (prefix "NAME: ")
# shellcheck disable=SC2034,SC2054  # used by the scripts that source this; --mca values hold commas
model_mpirun=(mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader,tcp
	--mca pml ob1 --mca mpi_yield_when_idle 1)

model_need_mpi() {
	command -v mpirun >/dev/null || { echo "${1}Open MPI (mpirun) not installed"; exit 77; }
	[ -x "$B/lp-sweep" ] || { echo "${1}$B/lp-sweep not built (rdma-core or mpicc missing?)"; exit 77; }
}

model_need_json() {
	if "$B/lp-sweep" --plan --nodes 2 --model "$2" 2>&1 | grep -q "without a JSON library"; then
		echo "${1}lp-sweep built without jansson: --model cannot read a model"; exit 77
	fi
}

bench_opt() {
	case $1 in
	n) ranks=$2 ;;
	i) iso=$2 ;;
	o) out=$2 ;;
	*) return 1 ;;
	esac
}

bench_usage() {
	sed -n '2,16p' "$0"
	[ "$1" = h ]
	exit $(($? ? 2 : 0))
}

# shellcheck disable=SC2034  # ranks and isos: read by the benches
bench_begin() {
	ranks=${ranks:-16 64} iso=${iso:-none}
	case $iso in
	none | process) isos=$iso ;;
	both) isos="none process" ;;
	*) echo "-i none|process|both" >&2; exit 2 ;;
	esac
	model_need_mpi "$1: "
	out=${out:-$B/$1/$(date -u +%Y%m%dT%H%M%SZ)}
	mkdir -p "$out" || exit 2
}
