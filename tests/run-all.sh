#!/bin/bash
# linkperf test driver: unit tests, real-RDMA guest tests, GPU tests.
# Each test is an executable: exit 0 = pass, 77 = skipped (not here: no GPU, no qemu), else fail.
# Env: LP_BUILD (build dir, default build), LP_TESTS (space-separated groups: unit vm gpu sweep;
# default all), LP_TEST_TIMEOUT (seconds per test, default 1500), LP_TEST_FILTER (regex on names).
set -u
cd "$(dirname "$0")/.."
export LP_BUILD=${LP_BUILD:-build}
export LP_ROOT=$PWD
groups=${LP_TESTS:-unit vm gpu sweep}
tmo=${LP_TEST_TIMEOUT:-1500}
logdir=$LP_BUILD/test-logs
mkdir -p "$logdir"
pass=0 fail=0 skip=0 failed=""

run_one() { # name cmd...
	local name=$1 t0 rc dt
	shift
	[[ $name =~ ${LP_TEST_FILTER:-.} ]] || return 0
	t0=$(date +%s)
	mkdir -p "$logdir/$(dirname "$name")"
	timeout -k 10 "$tmo" "$@" >"$logdir/$name.log" 2>&1
	rc=$?
	dt=$(($(date +%s) - t0))
	if [ $rc = 0 ]; then
		pass=$((pass + 1)); printf 'PASS  %-40s %4ss\n' "$name" "$dt"
	elif [ $rc = 77 ]; then
		skip=$((skip + 1)); printf 'SKIP  %-40s %4ss  (%s)\n' "$name" "$dt" "$(tail -n 1 "$logdir/$name.log")"
	else
		fail=$((fail + 1)); failed="$failed $name"
		printf 'FAIL  %-40s %4ss  rc=%s\n' "$name" "$dt" "$rc"
		sed 's/^/    | /' "$logdir/$name.log" | tail -n 40
	fi
}

for g in $groups; do
	case $g in
	unit)
		for t in "$LP_BUILD"/tests/test_*; do
			[ -x "$t" ] && run_one "unit/$(basename "$t")" "$t"
		done ;;
	vm|gpu|sweep)
		for t in tests/"$g"/test-*.sh; do
			[ -f "$t" ] && run_one "$g/$(basename "$t" .sh)" bash "$t"
		done ;;
	esac
done
echo "logs: $logdir"
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ] && [ $((pass + skip)) -gt 0 ]
