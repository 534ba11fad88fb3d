#!/bin/bash
# tier: quick
# lp-sweep --model FILE --collective allreduce at 64 ranks on this host (oversubscribed): the sweep
# through the model transport, then the collective phase drawn from the same model -- each
# collective's busbw the slowest of its ring's links, each link a fresh draw with the model's 3 %
# noise -- and the search for the guilty part: its ring probes drawn, its pair probes the engine's
# retests. Checks:
#   healthy        nothing named by the search (the bisection runs: --coll-bisect blind), exit 0;
#                  the figures say they are drawn (no data check, the model named in the note)
#   link 0.8x      a ring edge gpu040 -> gpu041: the bisection alone names exactly that link, exit 1;
#                  its repeated pair probes are fresh draws (they differ: the engine's attempts)
#   node 0.8x      gpu037 both ways, --coll-bisect auto: the targeted retests of the edge the
#                  matrix shows slow name the node; the sweep's diagnosis names it too
#   off the ring   a 0.8x link gpu041 -> gpu040 that the ring in rank order never uses: the
#                  sweep names it, the collective's search names nothing (a wrong name would fail)
#   bad options    --model --collective without a bandwidth test: exit 2, one line
# About a minute and a half on this 2-core host. LP_MODEL_RANKS (default 64) sets the size.
set -u
cd "$(dirname "$0")/../.."
B=${LP_BUILD:-build}
N=${LP_MODEL_RANKS:-64}
. tests/sweep/model-lib.sh
model() { # name faults-json
	echo "{\"schema\": \"linkperf.model/1\", \"seed\": 5, \"names\": \"gpu%03d\", \"base\": {\"bw_gbps\": 390},
 \"noise\": {\"cv\": 0.03}, \"time\": {\"test_ms\": 0}, \"faults\": [$2]}" >"$T/$1.model"
}
run() { # name bisect-mode
	mpi -np "$N" "$B/lp-sweep" --model "$T/$1.model" --isolation none --tests write_bw --retest 0 \
		--collective allreduce --coll-sizes 1M --coll-bisect "$2" --json "$T/$1.json" \
		>"$T/$1.out" 2>"$T/$1.err"
	echo $? >"$T/$1.rc"
}
model healthy ''
model link '{"link": ["gpu040", "gpu041"], "factor": 0.8}'
model node '{"node": "gpu037", "factor": 0.8}'
model offring '{"link": ["gpu041", "gpu040"], "factor": 0.8}'
t0=$(date +%s)
run healthy blind
run link blind
run node auto
run offring blind
echo "     (four $N-rank runs in $(($(date +%s) - t0)) s)"

python3 - "$T" "$N" <<'EOF' || fails=$((fails + 1))
import json, sys
t, n = sys.argv[1], int(sys.argv[2])
sys.path.insert(0, "tests/sweep")
from lpcheck import check, done, load
from sweepdoc import cells
def sweep_verdicts(d):
    nm = [x["name"] for x in d["nodes"]]
    return [(v["kind"], nm[v["a"]] if v["a"] == v["b"] else "-".join(sorted((nm[v["a"]], nm[v["b"]])))
             if v["a"] >= 0 and v["b"] >= 0 else None) for v in d["verdicts"]]
def named(d):
    return [(v["kind"], v["a_name"], v["b_name"]) for v in d["collectives"]["verdicts"]
            if v["kind"] not in ("none", "inconclusive")]

h, rc = load(t, "healthy")
c = h["collectives"]
res = [r for r in c["results"] if r["collective"] == "allreduce"]
check(len(res) == 4 and all(r["status"] == 0 and r["wrong"] == -1 and 0.8 * 48.75 < r["busbw"] < 48.75 for r in res),
      f"healthy: mpi and ring drawn, in place and out: {[round(r['busbw'], 1) for r in res]} GB/s busbw, not checked")
check("model transport" in c["run"]["note"] and "healthy.model" in c["run"]["note"] and c["run"]["check"] is False,
      "healthy: the document says the figures are drawn from the model")
v = c["verdicts"]
check(len(v) == 1 and v[0]["kind"] == "none" and v[0]["probes"] >= 3 and rc == 0,
      f"healthy: the bisection ran and names nothing, exit {rc}: {[x['reason'] for x in v]}")

d, rc = load(t, "link")
check(named(d) == [("link", "gpu040", "gpu041")] and rc == 1,
      f"link 0.8x on the ring: the bisection names exactly gpu040 -> gpu041, exit {rc}: {named(d)}")
ev = d["collectives"]["verdicts"][0]["evidence"]
check(any(e["kind"] == "ring" for e in ev) and any(e["kind"] == "edge" for e in ev),
      f"link: its evidence holds ring and pair probes ({len(ev)})")
# the search's pair probes are the engine's retests: one cell per probe, each a fresh draw
probes = {}
for cell in cells(d):
    if cell["phase"] == "retest":
        probes.setdefault((cell["client"], cell["server"]), []).append(cell["value"])
rep = [v for v in probes.values() if len(v) >= 2]
check(rep and all(len(set(v)) == len(v) for v in rep),
      f"link: repeated pair probes are fresh draws ({len(rep)} pairs probed twice or more, all values distinct)")

d, rc = load(t, "node")
sweep_named = sweep_verdicts(d)
check(named(d) == [("node", "gpu037", "")] and ("node_slow", "gpu037") in sweep_named and rc == 1,
      f"node 0.8x, auto: the targeted retests name gpu037, the sweep too, exit {rc}: {named(d)}, {sweep_named}")

d, rc = load(t, "offring")
sweep_named = sweep_verdicts(d)
# --retest 0: the sweep's one look names the link, slow or (main's diagnosis) unconfirmed
check(named(d) == [] and any((k.startswith("link") or k == "unconfirmed") and p == "gpu040-gpu041"
                             for k, p in sweep_named),
      f"a link the ring does not use: the sweep names it ({sweep_named}), the search nothing "
      f"({[x['kind'] for x in d['collectives']['verdicts']]})")
done()
EOF

# bad options: the collectives' links need a bandwidth test
out=$(mpi -np 4 "$B/lp-sweep" --model "$T/healthy.model" --tests write_lat --collective allreduce --quiet 2>&1)
rc=$?
if [ $rc = 2 ] && grep -q "needs\|bandwidth test" <<<"$out"; then ok "--model --collective without a bandwidth test: exit 2, says why"; else bad "--model --collective --tests write_lat: exit $rc: $out"; fi
exit $((fails > 0))
