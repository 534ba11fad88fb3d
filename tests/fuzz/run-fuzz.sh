#!/bin/bash
# tier: slow
# Runs every libFuzzer harness (tests/fuzz/fuzz_*.c, ASan+UBSan) for a bounded time, starting
# from its committed corpus tests/fuzz/<harness>/ (seeds and kept regression inputs, all replayed).
# Exit 0: no finding; 1: a harness crashed or failed to build (the input is saved in the log
# directory: fix it and keep the input in the corpus); 77: clang/libFuzzer is missing here.
# CI's run is short: it replays every committed input and explores for a few seconds; long runs
# (make fuzz: FUZZ_SECONDS, 300 per harness) are the benchmark (docs/BENCHMARKS.md, Fuzzing).
# Env: LP_FUZZ_SECONDS (per harness, default 5), LP_FUZZ_DIR (default build/fuzz),
# LP_FUZZ_ONLY (regex on harness names), LP_FUZZ_BUILT=1 (skip the build step).
set -u
cd "$(dirname "$0")/../.."
secs=${LP_FUZZ_SECONDS:-5}
dir=${LP_FUZZ_DIR:-build/fuzz}
cc=${FUZZ_CC:-clang}

probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return d && n > 1 && d[0] == 1; }' >"$probe/p.c"
if ! command -v "$cc" >/dev/null; then
	echo "skip: $cc not found (Debian: apt install clang) - the fuzz harnesses need clang's libFuzzer"
	exit 77
fi
if ! "$cc" -fsanitize=fuzzer,address,undefined -o "$probe/p" "$probe/p.c" 2>"$probe/err"; then
	echo "skip: $cc cannot link -fsanitize=fuzzer,address,undefined (libFuzzer runtime missing: $(head -n 1 "$probe/err"))"
	exit 77
fi
if [ "${LP_FUZZ_BUILT:-0}" != 1 ]; then
	nice make -s -j2 fuzz-build FUZZ_DIR="$dir" FUZZ_CC="$cc" >"$probe/build.log" 2>&1 || {
		cat "$probe/build.log"
		echo "FAIL: building the fuzz harnesses"
		exit 1
	}
fi

logs=$dir/logs
mkdir -p "$logs"
fail=0 total_exec=0
printf '%-12s %10s %8s %6s %6s %7s  %s\n' harness execs exec/s cov ft corpus result
for src in tests/fuzz/fuzz_*.c; do
	h=$(basename "$src" .c)
	h=${h#fuzz_}
	[[ $h =~ ${LP_FUZZ_ONLY:-.} ]] || continue
	corpus=tests/fuzz/$h
	work=$dir/corpus/$h	# new inputs land here, not in the committed corpus
	mkdir -p "$work" "$logs/$h"
	# -max_len: a frame body is at most 4096 bytes; the frame harness reads a few frames; a
	# document or a journal of a few nodes (their seeds, from the real writers) is larger.
	maxlen=9000
	case $h in sweep_doc | sweep_journal) maxlen=65536 ;; esac
	nice "$dir/fuzz_$h" -max_total_time="$secs" -print_final_stats=1 -max_len=$maxlen -timeout=10 \
		-rss_limit_mb=2048 -artifact_prefix="$logs/$h/" "$work" "$corpus" >"$logs/$h.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs/$h.log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$logs/$h.log")
	last=$(grep -E '^#[0-9]+.*cov: ' "$logs/$h.log" | tail -n 1)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
	ncorp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
	if [ $rc = 0 ] && [ -n "$execs" ]; then
		res=ok
	else
		res="FAIL rc=$rc (log $logs/$h.log, inputs $logs/$h/)"
		fail=1
	fi
	printf '%-12s %10s %8s %6s %6s %7s  %s\n' "$h" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${ncorp:-?}" "$res"
	[ $rc = 0 ] || grep -E 'ERROR|SUMMARY|runtime error|fuzz:' "$logs/$h.log" | head -n 8
	total_exec=$((total_exec + ${execs:-0}))
done
echo "fuzz: ${secs}s per harness, $total_exec executions in all; logs in $logs"
exit $fail
