# shellcheck shell=bash
# Sourced from the repository root by test scripts on the host: those that boot QEMU guests
# (tests/vm/test-*.sh; tests/sweep/test-fabric*.sh, test-slurm.sh, test-signal.sh; the guests'
# side is tests/guest-lib.sh) and those that re-diagnose recorded runs. Sets B (the build
# directory, LP_BUILD or build) and t0 (the start); no core files.

# host_needs WHAT...: skip the test (exit 77, with the reason) unless each is here, in order:
# qemu, mpi (Open MPI's mpirun), ssh (openssh), slurm (Slurm and munge), a tool built in $B
# (lp-rdma, lp-sweep), diagnose (lp-sweep --diagnose: built with jansson).
host_needs() {
	local need d
	for need in "$@"; do
		case $need in
		qemu) command -v qemu-system-x86_64 >/dev/null ||
			{ echo "qemu-system-x86_64 not installed"; exit 77; } ;;
		mpi) command -v mpirun >/dev/null || { echo "Open MPI (mpirun) not installed"; exit 77; } ;;
		ssh) [ -x /usr/sbin/sshd ] && command -v ssh >/dev/null ||
			{ echo "openssh-server/client not installed"; exit 77; } ;;
		slurm) for d in /usr/sbin/slurmctld /usr/sbin/slurmd /usr/bin/sbatch /usr/sbin/munged; do
			[ -x "$d" ] || { echo "Slurm or munge not installed ($d; scripts/install-deps.sh)"; exit 77; }
		done ;;
		lp-rdma) [ -x "$B/lp-rdma" ] || { echo "$B/lp-rdma not built (rdma-core headers missing?)"; exit 77; } ;;
		lp-sweep) [ -x "$B/lp-sweep" ] ||
			{ echo "$B/lp-sweep not built (rdma-core or mpicc missing?)"; exit 77; } ;;
		diagnose) "$B/lp-sweep" --diagnose /dev/null >/dev/null 2>&1
			[ $? != 77 ] ||
			{ echo "lp-sweep built without jansson (libjansson-dev): --diagnose unsupported"; exit 77; } ;;
		*) echo "host_needs: unknown need '$need'"; exit 1 ;;
		esac
	done
}

# host_out VAR NAME: out=$VAR and false when VAR (may be "") names a kept run to check
# (LP_KEEP=1 keeps one); else out is a new directory /tmp/NAME.XXXXXX, removed on exit unless
# LP_KEEP is set.
host_out() {
	if [ -n "$1" ] && [ -n "${!1:-}" ]; then
		out=${!1}
		return 1
	fi
	out=$(mktemp -d "${TMPDIR:-/tmp}/$2.XXXXXX")
	[ -n "${LP_KEEP:-}" ] || trap 'rm -rf "$out"' EXIT
}

# host_ran RC WHAT [LINES]: the run's line; with LINES, each scenario's output (out/*.out)
# without mpirun's banners, its first LINES lines; a run that failed ends the test (exit 1).
host_ran() {
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
