#!/bin/bash
# tier: quick
# lp-sweep on the host under mpirun, no guests: the coordination path without RDMA devices.
# --help exits 0, a bad option 2 on every rank, and a job where no rank has an RDMA device 77
# (unless this host has one: then the job must still end, with 0 or 1); --check gathers a
# report per rank, a host whose check cannot run is a FAIL. Quick (seconds).
set -u
cd "$(dirname "$0")/../.."
B=${LP_BUILD:-build}
command -v mpirun >/dev/null || { echo "Open MPI (mpirun) not installed"; exit 77; }
[ -x "$B/lp-sweep" ] || { echo "$B/lp-sweep not built (rdma-core or mpicc missing?)"; exit 77; }
export ASAN_OPTIONS=detect_leaks=0
mpi() { timeout -k 5 120 mpirun --allow-run-as-root --oversubscribe --mca btl tcp,self --mca pml ob1 "$@" </dev/null; }
fails=0
expect() { # rc want what
	if [ "$1" = "$2" ]; then echo "ok   $3"; else echo "FAIL $3: exit $1, want $2"; fails=$((fails + 1)); fi
}
out=$(mpi -np 2 "$B/lp-sweep" --help 2>&1); rc=$?
expect $rc 0 "--help"
echo "$out" | grep -q -- "--schedule" || { echo "FAIL --help lists no --schedule"; fails=$((fails + 1)); }
mpi -np 2 "$B/lp-sweep" --schedule nosuch >/dev/null 2>&1
expect $? 2 "bad --schedule value"
mpi -np 2 "$B/lp-sweep" --tests write_lat --lat-iters 10 --duration 1 >/dev/null 2>&1
expect $? 2 "iterations and --duration together"
# --check: every rank's host in one report (a table per host, JSON with all); a host whose
# check cannot run (no such device) is a FAIL: exit 1
j=$(mktemp); trap 'rm -f "$j"' EXIT
out=$(mpi -np 2 "$B/lp-sweep" --check --json "$j" 2>&1); rc=$?
[ $rc = 0 ] || [ $rc = 1 ]; expect $? 0 "--check on two ranks ends (exit $rc)"
[ "$(echo "$out" | grep -c '^== .* (rank [01]): [0-9]* checks, worst ')" = 2 ] ||
	{ echo "FAIL --check: no table per rank"; fails=$((fails + 1)); }
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"]=="linkperf.sweep-check/1" and len(d["hosts"])==2 and all("checks" in h for h in d["hosts"]), d' "$j" ||
	{ echo "FAIL --check JSON: not two hosts"; fails=$((fails + 1)); }
out=$(mpi -np 2 "$B/lp-sweep" --check -d nosuch0 2>&1)
expect $? 1 "--check with a device no host has"
echo "$out" | grep -q "FAIL  report .*the check did not run" ||
	{ echo "FAIL --check -d nosuch0 does not say why"; fails=$((fails + 1)); }
out=$(mpi -np 2 "$B/lp-sweep" --load latency 2>&1); rc=$?
expect $rc 2 "--load latency on 2 ranks (no pair to load a victim)"
echo "$out" | grep -q "needs 4 ranks" || { echo "FAIL --load latency on 2 ranks: $out"; fails=$((fails + 1)); }
mpi -np 3 "$B/lp-sweep" --load incast --tests write_lat >/dev/null 2>&1
expect $? 2 "--load incast without a bandwidth test"
# an existing journal is never truncated: the run refuses to start, saying so (exit 2)
jd=$(mktemp -d)
touch "$jd/run.journal"
out=$(mpi -np 2 "$B/lp-sweep" --quiet --json "$jd/run.json" 2>&1)
expect $? 2 "an existing RUN.journal: refused"
echo "$out" | grep -q "journal $jd/run.journal exists (a previous run's record): --resume" ||
	{ echo "FAIL existing journal: no line says so: $out"; fails=$((fails + 1)); }
[ ! -s "$jd/run.journal" ] || { echo "FAIL the existing journal was written"; fails=$((fails + 1)); }
rm -rf "$jd"
if ls /sys/class/infiniband/* >/dev/null 2>&1; then
	mpi -np 2 "$B/lp-sweep" --quiet --bw-iters 100 --lat-iters 100 --pair-timeout 30 >/dev/null 2>&1
	rc=$?
	[ $rc = 0 ] || [ $rc = 1 ]; expect $? 0 "two ranks on a host with RDMA devices end (exit $rc)"
else
	t0=$(date +%s)
	mpi -np 3 "$B/lp-sweep" --quiet >/dev/null 2>&1
	expect $? 77 "no RDMA device on any rank"
	[ $(($(date +%s) - t0)) -lt 60 ] || { echo "FAIL no-device job took too long"; fails=$((fails + 1)); }
fi
exit $((fails > 0))
