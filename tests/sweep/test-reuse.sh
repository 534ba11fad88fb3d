#!/bin/bash
# tier: quick
# Set-up reuse (issue 27 item 2) through the model transport, at LP_REUSE_RANKS (default 12) ranks
# and both isolations: the model's stand-in connections are pooled and prepared as lp-rdma's QP sets
# are, each round's connection records prepared while the round before measures and exchanged in one
# collective. Checks: a sweep with --reuse on gives the same cells and verdicts as --reuse off (the
# slow node named, retest rounds included); its counters line adds up (every session a connection,
# reused or created); a forced failed reset (LP_FAULT_QP_RESET) is replaced by a fresh connection,
# counted and warned about, with the same results; records sent wrong (LP_FAULT_CONN_RECORD) are
# refused by the sessions (every cell fails: the check can fail); a crashing test with reuse costs
# its one cell (its worker's prepared connections of the next round are gone with it, and those
# sessions set up their own).
set -u
cd "$(dirname "$0")/../.."
B=${LP_BUILD:-build}
N=${LP_REUSE_RANKS:-12}
. tests/sweep/model-lib.sh

cat >"$T/slow.json" <<'EOF'
{"schema": "linkperf.model/1", "seed": 5, "names": "n%02d",
 "base": {"lat_us": 1.9, "bw_gbps": 390}, "noise": {"cv": 0.03}, "time": {"test_ms": 0},
 "faults": [{"node": "n03", "factor": 0.6}]}
EOF
run() { # name isolation reuse [VAR=VALUE]: one sweep (VAR exported to every rank); its exit code
	local name=$1 iso=$2 reuse=$3 x=()
	[ $# -gt 3 ] && x=(-x "$4")
	mpi "${x[@]}" -np "$N" "$B/lp-sweep" --model "$T/slow.json" --tests write_lat,write_bw \
		--isolation "$iso" --reuse "$reuse" --json "$T/$name.json" >"$T/$name.out" 2>"$T/$name.err"
}
view='import json, sys
sys.path.insert(0, "tests/sweep")
from sweepdoc import cells, legacy_view
docs = [legacy_view(json.load(open(p))) for p in sys.argv[1:]]
'
same() { # a b what: the same cells (status, value) and verdicts, retests among them
	python3 - "$T/$1.json" "$T/$2.json" <<EOF && ok "$3" || bad "$3"
$view
key = lambda c: (c["phase"], c.get("round"), c.get("attempt"), c["client"], c["server"], c["metric"])
ca, cb = ({key(c): (c["status"], c.get("value")) for c in d["cells"]} for d in docs)
va, vb = ([(v["kind"], v.get("name")) for v in d["verdicts"]] for d in docs)
if ca != cb or va != vb or not any(k[0] == "retest" for k in ca):
    print(f"     {len(ca)} / {len(cb)} cells, {sum(ca[k] != cb.get(k) for k in ca)} differ; verdicts {va} / {vb}")
    sys.exit(1)
EOF
}
counters() { # name: "created reused replaced" from its counters line
	sed -n 's/^lp-sweep: set-up reuse: \([0-9]*\) connection set(s) created, \([0-9]*\) reused, \([0-9]*\) replaced.*/\1 \2 \3/p' "$T/$1.err"
}

for iso in process none; do
	run off-$iso $iso off
	expect $? 1 "--reuse off, isolation $iso: the slow node"
	run on-$iso $iso on
	expect $? 1 "--reuse on, isolation $iso: the slow node"
	same off-$iso on-$iso "isolation $iso: reuse gives the cells and verdicts of fresh set-up (retests included)"
	grep -q "set-up reuse" "$T/off-$iso.err" && bad "--reuse off printed reuse counters"
	read -r c r f <<<"$(counters on-$iso)"
	want=$(python3 -c "$view"'print(2 * len(docs[0]["cells"]))' "$T/on-$iso.json")
	[ -n "${c:-}" ] && [ $((c + r)) -eq "$want" ] && [ "$r" -gt "$c" ] && [ "$f" -eq 0 ] &&
		ok "isolation $iso: $c connections created, $r reused: one per side of each of the $((want / 2)) sessions" ||
		bad "isolation $iso: counters '${c:-} ${r:-} ${f:-}', want created + reused = $want, mostly reused"
done

run reset process on LP_FAULT_QP_RESET=3
expect $? 1 "a failed reset (the 3rd of each process)"
read -r c r f <<<"$(counters reset)"
[ "${f:-0}" -eq "$N" ] && grep -q "warning: $N pooled connection set(s) failed their reset" "$T/reset.err" &&
	ok "each worker's failed reset replaced by a fresh connection: $f counted and warned about" ||
	bad "failed resets: counters '${c:-} ${r:-} ${f:-}', want $N replaced; $(grep warning "$T/reset.err" | head -2)"
same off-process reset "after the failed resets: the same cells and verdicts"

run crossed none on LP_FAULT_CONN_RECORD=1
expect $? 1 "connection records sent wrong"
python3 - "$T/crossed.json" <<EOF && ok "records sent wrong: every session refuses them" || bad "records sent wrong: not refused"
$view
c = [x for x in docs[0]["cells"] if x["phase"] == "sweep"]
sys.exit(not c or not all(x["status"] and "connection records crossed" in x.get("error", "") for x in c))
EOF

run crash process on LP_SWEEP_FAULT=crash:n01:n02
expect $? 1 "a crashing test with reuse"
python3 - "$T/crash.json" <<EOF && ok "the crash cost its one cell; that worker's next sessions set up their own" || bad "a crash with reuse cost more than its cell"
$view
failed = [(c["client_name"], c["server_name"], c["metric"]) for c in docs[0]["cells"]
          if c["phase"] == "sweep" and c["status"]]
if failed != [("n01", "n02", 0)]:
    print("     failed:", failed[:6])
    sys.exit(1)
EOF
[ $fails -eq 0 ] && echo "PASS test-reuse" || echo "FAIL test-reuse ($fails)"
exit $((fails > 0))
