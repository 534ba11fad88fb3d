#!/bin/bash
# tier: quick
# The test runner itself (tests/run-all.sh over scripts/lp-watch), on a tree of fake tests:
# tiers select (a guest test is not run by LP_TIERS=quick), a test without a "# tier:" line
# fails, a test that prints nothing for LP_TEST_IDLE is ended as hung (FAIL, rc 124, in about
# that time, not at its end), a slow test that keeps printing passes well past LP_TEST_IDLE with
# progress lines in between, 77 is a SKIP with the reason; each test gets a START line; TERM to
# the runner ends the running test too and stops the run (130); build/test-logs/times.tsv holds
# every test's line (name, tier, seconds, result) and the run ends with each tier's total and the
# slowest tests, in order (the check shown to fail on a TSV whose seconds differ from the run's
# and on a summary that leaves the slowest test out; --times refuses a malformed row, exit 2). Then
# tests/gpu/check.sh: a GPU test program whose system header is not installed skips (77, named),
# one whose own header is missing fails.
set -u
cd "$(dirname "$0")/../.."
top=$PWD
T=$(mktemp -d /tmp/lp-run-all-XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
has() { grep -qE "$1" "$T/out" && ok "$2" || bad "$2: no line /$1/ in: $(tr '\n' '|' <"$T/out")"; }

mkdir -p "$T/tree/tests/sweep" "$T/tree/scripts"
cp tests/run-all.sh "$T/tree/tests/"
cp scripts/lp-watch "$T/tree/scripts/"
fake() { # name tier body
	printf '#!/bin/bash\n%s\n%s\n' "${2:+# tier: $2}" "$3" >"$T/tree/tests/sweep/test-$1.sh"
}
fake pass quick 'echo fine'
fake notier '' 'echo no tier line'
fake guest guest 'echo needs a guest'
fake hang quick 'echo started; sleep 60; echo never'
fake slow quick 'for i in 1 2 3 4 5 6 7 8; do echo "step $i"; sleep 1; done'
fake skip quick 'echo "no widget here"; exit 77'
t0=$(date +%s)
(cd "$T/tree" && LP_TIERS=quick LP_TESTS=sweep LP_TEST_IDLE=4 LP_TEST_TICK=2 LP_BUILD="$T/build" \
	tests/run-all.sh) >"$T/out" 2>&1
rc=$?
dt=$(($(date +%s) - t0))
[ $rc != 0 ] && ok "the run fails (exit $rc)" || bad "the run passed with a hung and an undeclared test"
has '^START sweep/test-pass +quick' "a START line as each test begins"
has '^PASS  sweep/test-pass ' "a quick test passes"
has '^FAIL  sweep/test-notier .*declares no tier' "a test without a tier fails, saying so"
grep -q 'test-guest' "$T/out" && bad "a guest-tier test ran under LP_TIERS=quick" || ok "LP_TIERS=quick leaves the guest test out"
has '^FAIL  sweep/test-hang +[0-9]+s  rc=124 \(hung' "a silent test is ended as hung"
h=$(sed -n 's/^FAIL  sweep\/test-hang *\([0-9]*\)s.*/\1/p' "$T/out")
[ -n "$h" ] && [ "$h" -lt 40 ] && ok "... after ${h} s of silence, not its 60 s sleep" || bad "the hang took ${h:-?} s"
has '^PASS  sweep/test-slow ' "a slow test that keeps printing runs past LP_TEST_IDLE (8 s > 4 s)"
has 'sweep/test-slow [0-9]+s: step [0-9]' "progress lines with the last log line while it runs"
has '^SKIP  sweep/test-skip .*no widget here' "77 is a SKIP with its reason"
has '^2 passed, 2 failed, 1 skipped' "the summary counts them"
echo "     (the fake suite took $dt s)"

# times.tsv and the summary at the end: TSV OUT [BAD]: the TSV has a row per result line of OUT
# (same name, seconds, result), OUT ends with each tier's total and the slowest, slowest first;
# BAD=1: the data holds an injected fault, which the check must find
times_check() {
	python3 - "$@" <<'PY'
import re, sys
tsv, out, bad = sys.argv[1], sys.argv[2], len(sys.argv) > 3
lines = open(tsv).read().splitlines()
text = open(out).read().splitlines()
ran = [(m[2], "quick", int(m[3]), m[1]) for m in
       (re.match(r"(PASS|FAIL|SKIP)  (\S+) +(\d+)s", ln) for ln in text) if m]
rows = [tuple(r.split("\t")) for r in lines[1:]]
rows = [(n, t, int(s), r) for n, t, s, r in rows]
top = sorted(rows, key=lambda r: -r[2])[:12]
want = [f"time per tier: quick {sum(r[2] for r in rows)} s in {len(rows)}; all {sum(r[2] for r in rows)} s ({tsv})",
        "slowest: " + ", ".join(f"{n} {s} s" + ("" if r == "PASS" else f" ({r})") for n, _, s, r in top)]
end = max(i for i, ln in enumerate(text) if ln.startswith("time per tier: "))
got = [text[end], " ".join(ln.strip() for ln in text[end + 1:])]
problems = [w for w, ok in (
    ("no header line", lines[:1] == ["name\ttier\tseconds\tresult"]),
    (f"rows {rows} are not the run's {ran}", rows == ran),
    (f"the end is {got}, not {want}", got == want)) if not ok]
print("; ".join(p[:160] + ("..." if len(p) > 160 else "") if bad else p for p in problems) if problems else "times.tsv and the summary agree with the run")
sys.exit(0 if bool(problems) == bad else 1)
PY
}
tsv=$T/build/test-logs/times.tsv
m=$(times_check "$tsv" "$T/out") && ok "times: $m" || bad "times: $m"
sed '2s/\t[0-9]*\t/\t99\t/' "$tsv" >"$T/bad.tsv"
m=$(times_check "$T/bad.tsv" "$T/out" 1) && ok "times: a row whose seconds differ from the run's fails: $m" || bad "times: $m"
sed 's/^slowest: [^,]*, /slowest: /' "$T/out" >"$T/bad-out"
m=$(times_check "$tsv" "$T/bad-out" 1) && ok "times: a summary without the slowest test fails: $m" || bad "times: $m"
printf 'name\ttier\tseconds\tresult\nsweep/x\tquick\t1.5\tPASS\n' >"$T/malformed.tsv"
(cd "$T/tree" && tests/run-all.sh --times "$T/malformed.tsv") >"$T/malformed" 2>&1
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$T/malformed")" = 1 ] && grep -q ':2: not a times row' "$T/malformed" &&
	ok "times: --times refuses a malformed row (exit 2): $(cat "$T/malformed")" || bad "times: malformed row: exit $rc: $(cat "$T/malformed")"

# TERM to the runner: the running test's process group is ended, the run stops with 130
fake hang quick 'echo started; sleep 77; echo never'
(cd "$T/tree" && LP_TIERS=quick LP_TESTS=sweep LP_TEST_FILTER=hang LP_BUILD="$T/build2" exec tests/run-all.sh) >"$T/int" 2>&1 &
r=$!
for _ in $(seq 1 300); do grep -q started "$T/build2/test-logs/sweep/test-hang.log" 2>/dev/null && break; sleep 0.2; done
kill -TERM $r
wait $r
rc=$?
sleep 1
left=$(pgrep -f 'sleep 77' || true)
[ $rc = 130 ] && [ -z "$left" ] && grep -q 'run-all: interrupted' "$T/int" &&
	ok "TERM stops the run (exit 130) and the running test with it" || bad "TERM: exit $rc, left running: ${left:-none}"

# tests/gpu/check.sh: build prerequisites
G=$T/gpu
mkdir -p "$G/tests/gpu" "$G/b"
cp tests/gpu/check.sh "$G/tests/gpu/"
printf 'ldlibs:\n\t@echo\n' >"$G/Makefile"
echo 'void lp_gpu_buf_alloc(void) {}' >"$G/l.c"
if cc -c -o "$G/l.o" "$G/l.c" && ar rc "$G/b/liblinkperf.a" "$G/l.o"; then
	printf '#include <nosuch/rdma_cma.h>\nint main(void) { return 0; }\n' >"$G/tests/gpu/sys_check.c"
	printf '#include "common/nosuch.h"\nint main(void) { return 0; }\n' >"$G/tests/gpu/own_check.c"
	printf '. "$(dirname "$0")/check.sh"\ncheck_build "$1"\necho built\n' >"$G/tests/gpu/probe.sh"
	out=$(LP_BUILD=b bash "$G/tests/gpu/probe.sh" sys_check 2>&1)
	rc=$?
	[ $rc = 77 ] && echo "$out" | tail -n 1 | grep -q 'needs <nosuch/rdma_cma.h>' &&
		ok "gpu: a system header not installed skips: $(echo "$out" | tail -n 1)" || bad "gpu: missing system header: exit $rc: $out"
	out=$(LP_BUILD=b bash "$G/tests/gpu/probe.sh" own_check 2>&1)
	rc=$?
	[ $rc = 1 ] && ok "gpu: a missing header of our own fails (exit 1)" || bad "gpu: missing own header: exit $rc: $out"
else
	bad "cannot build the fake library for the gpu check"
fi
exit $fails
