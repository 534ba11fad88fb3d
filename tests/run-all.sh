#!/bin/bash
# linkperf test driver: lint, unit tests, the demo's dispatch, real-RDMA guest tests, the guest
# fabric, packages, fuzzing, GPU tests.
# Each test is an executable: exit 0 = pass, 77 = skipped (not here: no GPU, no qemu; the reason
# is its last line), else fail. Only what ran counts as passed: a unit test that was not built is
# a SKIP with the reason, and "SKIP ..." lines a passing test prints (a part it could not run
# here) are shown under it.
#
# Tiers: every test script declares its own in a header line "# tier: NAME" (the unit tests,
# tests/unit/*.c, are all quick); one pass per tier, quick first:
#   quick   no guest, seconds each: lint (format, headers), unit, CLI, diagnose, plots, report,
#           man pages, install (make check-quick: a few minutes)
#   guest   one or two Soft-RoCE QEMU guests (make check-guest)
#   fabric  the 4-guest fabric: lp-sweep's scenarios and Slurm (make check-fabric)
#   slow    fuzzing, the Debian packages in a clean root, the soak (make check-slow)
#   gpu     needs a GPU; skipped (77) without one (make check-gpu)
# A line when each test starts; while it runs, one every LP_TEST_TICK seconds with its last log
# line and the time so far. No test is ended for being slow: one whose log has not grown for
# LP_TEST_IDLE seconds is hung and fails (scripts/lp-watch ends its process group).
# Each test's seconds go to LOGDIR/times.tsv as it ends (name, tier, seconds, result: PASS, FAIL,
# SKIP; a header line first); the run ends with the slowest LP_TEST_SLOWEST (12) and each tier's
# total, a few lines for a CI log's tail. tests/run-all.sh --times TSV... prints them for kept runs.
#
# Env: LP_BUILD (build dir, default build), LP_TIERS (space-separated tiers, default all),
# LP_TESTS (space-separated groups, i.e. folders: lint unit demo vm gpu sweep fuzz pkg; default
# all), LP_TEST_FILTER (regex on names, e.g. sweep/test-cli), LP_TEST_IDLE (seconds without output
# that make a hang, default 900), LP_TEST_TICK (seconds between progress lines, default 60),
# LP_TEST_TIMEOUT (an optional wall limit per test in seconds, default 0: none), LP_TEST_SLOWEST
# (how many of the slowest tests the end lists, default 12), CC (the compiler make used; to tell
# whether cmocka is installed).
set -u
all_tiers="quick guest fabric slow gpu"
slowest=${LP_TEST_SLOWEST:-12}

times_summary() { # TSV...: each tier's total and the slowest tests; a malformed row is an error (2)
	local rows
	rows=$(awk -F'\t' -v tiers=" $all_tiers " '
		FNR == 1 && $0 == "name\ttier\tseconds\tresult" { next }
		NF != 4 || $1 == "" || index(tiers, " " $2 " ") == 0 || $3 !~ /^[0-9]+$/ || $4 !~ /^(PASS|FAIL|SKIP)$/ {
			printf "run-all: %s:%d: not a times row (name, tier, seconds, result): %s\n", FILENAME, FNR, $0 > "/dev/stderr"
			bad = 1; exit
		}
		{ print }
		END { exit bad }' "$@") || return 2
	sort -t "$(printf '\t')" -k3,3nr -s <<<"$rows" | awk -F'\t' -v tiers="$all_tiers" -v n="$slowest" -v src="$*" '
		$0 == "" { next }
		{ sum[$2] += $3; cnt[$2]++; all += $3
		  if (NR <= n) top = top (NR > 1 ? (NR % 4 == 1 ? ",\n         " : ", ") : "") $1 " " $3 " s" ($4 == "PASS" ? "" : " (" $4 ")") }
		END {
			k = split(tiers, t, " "); line = ""
			for (i = 1; i <= k; i++)
				if (cnt[t[i]]) line = line (line == "" ? "" : ", ") t[i] " " sum[t[i]] " s in " cnt[t[i]]
			printf "time per tier: %s; all %d s (%s)\n", line == "" ? "no test" : line, all, src
			if (top != "") printf "slowest: %s\n", top
		}'
}
if [ "${1:-}" = --times ]; then
	shift
	[ $# -gt 0 ] || { echo "run-all: --times TSV... (LOGDIR/times.tsv of a run)" >&2; exit 2; }
	times_summary "$@"
	exit
fi

cd "$(dirname "$0")/.."
export LP_BUILD=${LP_BUILD:-build}
export LP_ROOT=$PWD
tiers=${LP_TIERS:-$all_tiers}
groups=${LP_TESTS:-lint unit demo vm gpu sweep fuzz pkg}
idle=${LP_TEST_IDLE:-900} tick=${LP_TEST_TICK:-60} wall=${LP_TEST_TIMEOUT:-0}
logdir=$LP_BUILD/test-logs
for t in $tiers; do
	case " $all_tiers " in *" $t "*) ;; *) echo "run-all: unknown tier '$t' (tiers: $all_tiers)" >&2; exit 2 ;; esac
done
mkdir -p "$logdir"
times=$logdir/times.tsv
printf 'name\ttier\tseconds\tresult\n' >"$times"
pass=0 fail=0 skip=0 parts=0 failed="" t_all=$(date +%s)
# Ctrl-C or TERM: the running test's watcher ends its process group, then the run stops here
watcher=''
trap '[ -z "$watcher" ] || { kill -TERM "$watcher"; wait "$watcher"; }; echo "run-all: interrupted"; exit 130' INT TERM

tier_of() { # test file: the NAME of its "# tier: NAME" header line
	sed -n '1,25s/^# tier: \([a-z]*\).*/\1/p' "$1" | head -n 1
}
wanted() { # name tier: selected by LP_TEST_FILTER, and of the tier this pass runs
	[[ $1 =~ ${LP_TEST_FILTER:-.} ]] && [ "$2" = "$cur" ]
}
timed() { # name tier seconds result: a row of times.tsv
	printf '%s\t%s\t%s\t%s\n' "$@" >>"$times"
}

skip_one() { # name tier reason: a test that cannot run here
	wanted "$1" "$2" || return 0
	skip=$((skip + 1))
	printf 'SKIP  %-40s %4ss  (%s)\n' "$1" 0 "$3"
	timed "$1" "$2" 0 SKIP
}

fail_one() { # name reason: a test that is broken before it runs (said in the first pass)
	[[ $1 =~ ${LP_TEST_FILTER:-.} ]] && [ "$cur" = "${tiers%% *}" ] || return 0
	fail=$((fail + 1)); failed="$failed $1"
	printf 'FAIL  %-40s %4ss  %s\n' "$1" 0 "$2"
	timed "$1" "$cur" 0 FAIL
}

run_one() { # name tier cmd...
	local name=$1 tier=$2 t0 rc dt log
	shift 2
	wanted "$name" "$tier" || return 0
	t0=$(date +%s)
	log=$logdir/$name.log
	mkdir -p "$(dirname "$log")"
	: >"$log"
	printf 'START %-40s %5s  %s\n' "$name" "$tier" "$(date +%H:%M:%S)"
	# in the background, so that a signal reaches the trap above at once
	scripts/lp-watch --idle "$idle" --tick "$tick" --timeout "$wall" --label "      $name" --out "$log" -- "$@" &
	watcher=$!
	wait "$watcher"
	rc=$?
	watcher=
	dt=$(($(date +%s) - t0))
	timed "$name" "$tier" "$dt" "$(case $rc in 0) echo PASS ;; 77) echo SKIP ;; *) echo FAIL ;; esac)"
	if [ $rc = 0 ]; then
		pass=$((pass + 1)); printf 'PASS  %-40s %4ss\n' "$name" "$dt"
		while IFS= read -r line; do
			parts=$((parts + 1)); printf '      part %s\n' "$line"
		done < <(grep '^SKIP ' "$log")
	elif [ $rc = 77 ]; then
		skip=$((skip + 1)); printf 'SKIP  %-40s %4ss  (%s)\n' "$name" "$dt" "$(tail -n 1 "$log")"
	else
		fail=$((fail + 1)); failed="$failed $name"
		printf 'FAIL  %-40s %4ss  rc=%s%s\n' "$name" "$dt" "$rc" "$([ $rc = 124 ] && echo " (hung: no output for $idle s)")"
		sed 's/^/    | /' "$log" | tail -n 40
	fi
}

run_script() { # group/test-*.sh: its tier from its header
	local t=$1 name tier
	name=$(basename "$(dirname "$t")")/$(basename "$t" .sh)
	tier=$(tier_of "$t")
	case " $all_tiers " in
	*" ${tier:-none} "*) run_one "$name" "$tier" bash "$t" ;;
	*) fail_one "$name" "declares no tier: add a header line '# tier: NAME' ($all_tiers)" ;;
	esac
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

echo "tiers: $tiers; groups: $groups${LP_TEST_FILTER:+; filter: $LP_TEST_FILTER}; a test silent for $idle s is hung"
# one pass per tier, in the order given (quick first by default: the fast answers come first)
for cur in $tiers; do
	for g in $groups; do
		case $g in
		unit) # all quick
			if ! have_cmocka && ! compgen -G "$LP_BUILD/tests/test_*" >/dev/null; then
				skip_one "unit/*" quick "cmocka not found (libcmocka-dev): no unit test was built"
				continue
			fi
			for src in tests/unit/test_*.c; do
				t=$LP_BUILD/tests/$(basename "$src" .c)
				if [ -x "$t" ]; then
					run_one "unit/$(basename "$t")" quick "$t"
				else
					skip_one "unit/$(basename "$t")" quick "not built in $LP_BUILD: $(unit_needs "$t")"
				fi
			done ;;
		fuzz)
			run_script tests/fuzz/run-fuzz.sh ;;
		lint | demo | vm | gpu | sweep | pkg)
			for t in tests/"$g"/test-*.sh; do
				[ -f "$t" ] && run_script "$t"
			done ;;
		*) echo "run-all: unknown group '$g'" >&2; exit 2 ;;
		esac
	done
done
echo "logs: $logdir"
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped$([ $parts = 0 ] || echo " (and $parts parts of passing tests skipped)") in $(($(date +%s) - t_all)) s"
# last, for the tail a CI log shows: where the time went
times_summary "$times"
[ $fail = 0 ] && [ $((pass + skip)) -gt 0 ]
