#!/bin/bash
# tier: quick
# The number rules of docs/METHOD.md ("Units") on what the tools print for people: no exponent,
# no nan or inf, sizes as "64 KiB" (tests/text-rules.ere, the rules the unit tests apply to
# lp-rdma's and lp-gpu's tables too). Every recorded run (tests/sweep/data) is re-diagnosed
# with the summary, the load and incast tables and the qualification table against floors and
# against itself as a baseline; and lp-rdma's --help and lp-gpu's --help. The rules are shown
# to catch each fault they are for. Quick (seconds); exit 77 without lp-sweep --diagnose.
set -u
cd "$(dirname "$0")/../.."
. tests/host-lib.sh
R=tests/text-rules.ere
host_needs lp-sweep diagnose
export ASAN_OPTIONS=detect_leaks=0
T=$(mktemp -d /tmp/lp-text-rules-XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0

# rules FILE WHAT: FILE breaks no rule (the first offending lines shown when it does)
rules() {
	local bad
	bad=$(grep -nE -f "$R" "$1" | head -n 3)
	if [ -z "$bad" ]; then
		echo "ok   $2 ($(wc -l <"$1") lines)"
	else
		echo "FAIL $2: $bad"
		fails=$((fails + 1))
	fi
}

for f in tests/sweep/data/*.json; do
	n=$(basename "$f" .json)
	timeout 60 "$B/lp-sweep" --diagnose "$f" --min-gbps 10 --max-lat-us 50 --baseline "$f" \
		>"$T/$n.out" 2>&1
	grep -q "^qualification" "$T/$n.out" || { echo "FAIL $n: no qualification table"; fails=$((fails + 1)); }
	rules "$T/$n.out" "lp-sweep --diagnose $n: summary, verdicts, qualification table"
done
grep -q " incast: senders writing" "$T/fabric4-incast.out" ||
	{ echo "FAIL the incast table is not in the summary"; fails=$((fails + 1)); }
# the receiver whose senders all failed has no Jain index: a dash, not nan
grep -qE "^  lpnode2 +2 +0 +[0-9.]+ +— " "$T/fabric4-incast.out" &&
	echo "ok   incast: no Jain index where no sender got through, and it says so with a dash" ||
	{ echo "FAIL incast row of lpnode2: $(grep '^  lpnode2 ' "$T/fabric4-incast.out")"; fails=$((fails + 1)); }
for t in lp-rdma lp-gpu; do
	[ -x "$B/$t" ] || continue
	"$B/$t" --help >"$T/$t.help"
	rules "$T/$t.help" "$t --help"
done

# The rules catch what they are for (faults injected into a copy of a summary).
f=$T/fabric4-incast.out
for fault in "s/0\.101/2.808e+04/" "s/ — / nan /" "s/64 KiB/64KiB/" "s/+0\.0%/+inf%/"; do
	sed "$fault" "$f" >"$T/fault.out"
	if grep -qE -f "$R" "$T/fault.out"; then
		echo "ok   fault caught: $fault"
	else
		echo "FAIL fault not caught: $fault"
		fails=$((fails + 1))
	fi
done
exit $((fails > 0))
