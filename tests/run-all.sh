#!/bin/bash
# linkperf test driver: unit tests, the demo's dispatch, real-RDMA guest tests, GPU tests.
# Each test is an executable: exit 0 = pass, 77 = skipped (not here: no GPU, no qemu), else fail.
# Only what ran counts as passed: a unit test that was not built is a SKIP with the reason, and
# "SKIP ..." lines a passing test prints (a part it could not run here) are shown under it.
# Env: LP_BUILD (build dir, default build), LP_TESTS (space-separated groups: lint unit demo vm gpu
# sweep fuzz pkg; default all), LP_TEST_TIMEOUT (seconds per test, default 1500), LP_TEST_FILTER (regex on
# names), CC (the compiler make used; to tell whether cmocka is installed).
set -u
cd "$(dirname "$0")/.."
export LP_BUILD=${LP_BUILD:-build}
export LP_ROOT=$PWD
groups=${LP_TESTS:-lint unit demo vm gpu sweep fuzz pkg}
tmo=${LP_TEST_TIMEOUT:-1500}
logdir=$LP_BUILD/test-logs
mkdir -p "$logdir"
pass=0 fail=0 skip=0 parts=0 failed=""

skip_one() { # name reason: a test that cannot run here
	[[ $1 =~ ${LP_TEST_FILTER:-.} ]] || return 0
	skip=$((skip + 1))
	printf 'SKIP  %-40s %4ss  (%s)\n' "$1" 0 "$2"
}

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
		while IFS= read -r line; do
			parts=$((parts + 1)); printf '      part %s\n' "$line"
		done < <(grep '^SKIP ' "$logdir/$name.log")
	elif [ $rc = 77 ]; then
		skip=$((skip + 1)); printf 'SKIP  %-40s %4ss  (%s)\n' "$name" "$dt" "$(tail -n 1 "$logdir/$name.log")"
	else
		fail=$((fail + 1)); failed="$failed $name"
		printf 'FAIL  %-40s %4ss  rc=%s\n' "$name" "$dt" "$rc"
		sed 's/^/    | /' "$logdir/$name.log" | tail -n 40
	fi
}

have_cmocka() {
	printf '#include <stdarg.h>\n#include <stddef.h>\n#include <setjmp.h>\n#include <stdint.h>\n#include <cmocka.h>\n' |
		"${CC:-cc}" -E -x c - >/dev/null 2>&1
}
unit_needs() { # what make needed to build this unit test (the Makefile's rule)
	case $(basename "$1") in
	test_rdma_* | test_sweep_*) echo "needs rdma-core headers (libibverbs-dev, librdmacm-dev)" ;;
	test_gpu_*) echo "needs CUDA (not found, or NO_CUDA=1 as in the ASan build)" ;;
	*) have_cmocka && echo "run make first" || echo "cmocka not found (libcmocka-dev)" ;;
	esac
}

for g in $groups; do
	case $g in
	unit)
		if ! have_cmocka && ! compgen -G "$LP_BUILD/tests/test_*" >/dev/null; then
			skip_one "unit/*" "cmocka not found (libcmocka-dev): no unit test was built"
			continue
		fi
		for src in tests/unit/test_*.c; do
			t=$LP_BUILD/tests/$(basename "$src" .c)
			if [ -x "$t" ]; then
				run_one "unit/$(basename "$t")" "$t"
			else
				skip_one "unit/$(basename "$t")" "not built in $LP_BUILD: $(unit_needs "$t")"
			fi
		done ;;
	fuzz) # each harness 12 s under ASan+UBSan, the committed corpus replayed first
		run_one "fuzz/run-fuzz" bash tests/fuzz/run-fuzz.sh ;;
	lint|demo|vm|gpu|sweep|pkg)
		for t in tests/"$g"/test-*.sh; do
			[ -f "$t" ] && run_one "$g/$(basename "$t" .sh)" bash "$t"
		done ;;
	esac
done
echo "logs: $logdir"
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped$([ $parts = 0 ] || echo " (and $parts parts of passing tests skipped)")"
[ $fail = 0 ] && [ $((pass + skip)) -gt 0 ]
