# shellcheck shell=bash
# Sourced (bash) from the repository root by the tests that boot QEMU guests from the host:
# test-fabric.sh, test-fabric-coll.sh, test-slurm.sh, test-signal.sh. Sets B (the build
# directory, LP_BUILD or build) and t0 (the start); no core files.

# fabric_needs [ssh] [slurm]: skip the test (exit 77, with the reason) unless qemu, Open MPI,
# what is named (openssh; Slurm and munge) and a built lp-sweep are here.
fabric_needs() {
	local need d
	command -v qemu-system-x86_64 >/dev/null || { echo "qemu-system-x86_64 not installed"; exit 77; }
	command -v mpirun >/dev/null || { echo "Open MPI (mpirun) not installed"; exit 77; }
	for need in "$@"; do
		case $need in
		ssh) [ -x /usr/sbin/sshd ] && command -v ssh >/dev/null ||
			{ echo "openssh-server/client not installed"; exit 77; } ;;
		slurm) for d in /usr/sbin/slurmctld /usr/sbin/slurmd /usr/bin/sbatch /usr/sbin/munged; do
			[ -x "$d" ] || { echo "Slurm or munge not installed ($d; scripts/install-deps.sh)"; exit 77; }
		done ;;
		esac
	done
	[ -x "$B/lp-sweep" ] || { echo "$B/lp-sweep not built (rdma-core or mpicc missing?)"; exit 77; }
}

# fabric_out VAR NAME: out=$VAR and false when VAR (may be "") names a kept run to check
# (LP_KEEP=1 keeps one); else out is a new directory /tmp/NAME.XXXXXX, removed on exit unless
# LP_KEEP is set.
fabric_out() {
	if [ -n "$1" ] && [ -n "${!1:-}" ]; then
		out=${!1}
		return 1
	fi
	out=$(mktemp -d "${TMPDIR:-/tmp}/$2.XXXXXX")
	[ -n "${LP_KEEP:-}" ] || trap 'rm -rf "$out"' EXIT
}

# fabric_ran RC WHAT [LINES]: the run's line; with LINES, each scenario's output (out/*.out)
# without mpirun's banners, its first LINES lines; a run that failed ends the test (exit 1).
fabric_ran() {
	local f
	echo "fabric run: exit $1 in $(($(date +%s) - t0)) s (kept in $out: ${LP_KEEP:+yes}${LP_KEEP:-no})"
	[ -z "${3:-}" ] || for f in "$out"/*.out; do
		echo "==== $f"
		grep -v '^-\{10\}\|^Primary job\|^a non-zero\|^mpirun detected\|^the job to be\|^  Process name\|^  Exit code\|^$' "$f" | head -"$3"
	done
	[ "$1" = 0 ] || { echo "FAIL: $2 exit $1"; exit 1; }
}

B=${LP_BUILD:-build}
ulimit -c 0
t0=$(date +%s)
