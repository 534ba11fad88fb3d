#!/bin/bash
# tier: quick
# The fast qualification schedule (lp-sweep --fast): the plan and, through the model transport at
# 64 ranks on this host, the diagnosis with it. Checks:
#   --plan --fast  the screen (write_lat at its smallest size, write_bw at its largest) is what a
#                  round runs, each bandwidth test moving --test-bytes (256 MiB: 256 iterations of
#                  1 MiB; --test-bytes 64M: 64), the other sizes predicted as the size sweep after
#                  the retests, the bound the sum of its terms; --test-bytes with --bw-iters: exit 2
#   healthy        nothing named, exit 0; every ordered pair measured at the screen's sizes only
#   node 0.8x      gpu017 both ways: named alone, exit 1; the size sweep measured every other size
#                  on its pairs and on healthy reference pairs, none elsewhere; the summary's table
#   link 0.8x      gpu030 -> gpu031 one way: named alone, exit 1, its pair in the size sweep
#   documents      --diagnose of the JSON and of the journal: the same verdicts and exit code; the
#                  engine's start-up prediction is --plan --fast --model's
# About a minute on this 2-core host. LP_MODEL_RANKS (default 64) sets the size.
set -u
cd "$(dirname "$0")/../.."
B=${LP_BUILD:-build}
N=${LP_MODEL_RANKS:-64}
. tests/sweep/model-lib.sh
FAST=(--fast --bw-sizes 4K,64K,1M --lat-sizes 8,4K)

# 1. the plan
"$B/lp-sweep" --plan --nodes 64 "${FAST[@]}" --quiet --json "$T/plan.json"
expect $? 0 "--plan --fast"
"$B/lp-sweep" --plan --nodes 64 "${FAST[@]}" >"$T/plan.txt"
"$B/lp-sweep" --plan --nodes 64 "${FAST[@]}" --test-bytes 64M >"$T/plan64.txt"
grep -q "write_bw 1 MiB: 256 + " "$T/plan.txt" && grep -q "write_bw 1 MiB: 64 + " "$T/plan64.txt" &&
	grep -q "write_bw 4 KiB: the size sweep's only" "$T/plan.txt" &&
	ok "--test-bytes: 256 MiB by default (256 x 1 MiB), 64M gives 64; the other sizes are the size sweep's" ||
	bad "--plan --fast's iterations: $(grep write_bw "$T/plan.txt" "$T/plan64.txt")"
python3 - "$T/plan.json" <<'EOF' || fails=$((fails + 1))
import json, math, sys
p = json.load(open(sys.argv[1]))
pr, t = p["predicted"], p["tests"]
every = [(x["test"], x["size"]) for x in t if x["every_pair"]]
checks = {
    f"the screen: {every}": every == [("write_lat", 8), ("write_bw", 1 << 20)],
    "a round runs the screen's tests only": math.isclose(pr["pair_s"], sum(x["seconds"] for x in t if x["every_pair"])),
    f"the size sweep is predicted ({pr['sizes_s']:.3g} s)": pr["sizes_s"] > 0,
    "the bound is the sum of its terms":
        math.isclose(pr["bound_s"], pr["start_s"] + pr["sweep_s"] + pr["load_s"] + pr["retest_s"] + pr["sizes_s"]),
}
for k, v in checks.items():
    print("ok  " if v else "FAIL", k)
sys.exit(0 if all(checks.values()) else 1)
EOF
out=$("$B/lp-sweep" --plan --nodes 8 --fast --test-bytes 1G --bw-iters 10 2>&1)
rc=$?
[ $rc = 2 ] && grep -q "not with --bw-iters" <<<"$out" && ok "--test-bytes with --bw-iters: exit 2, says why" || bad "--test-bytes --bw-iters: exit $rc: $out"

# 2. through the model transport
model() { # name faults-json
	echo "{\"schema\": \"linkperf.model/1\", \"seed\": 9, \"names\": \"gpu%03d\", \"base\": {\"lat_us\": 1.9, \"bw_gbps\": 390},
 \"noise\": {\"cv\": 0.03}, \"time\": {\"test_ms\": 0}, \"faults\": [$2]}" >"$T/$1.model"
}
model healthy ''
model node '{"node": "gpu017", "factor": 0.8}'
model link '{"link": ["gpu030", "gpu031"], "factor": 0.8}'
t0=$(date +%s)
for r in healthy node link; do
	mpi -np "$N" "$B/lp-sweep" --model "$T/$r.model" --isolation none "${FAST[@]}" --json "$T/$r.json" \
		>"$T/$r.out" 2>"$T/$r.err"
	echo $? >"$T/$r.rc"
done
echo "     (three $N-rank runs in $(($(date +%s) - t0)) s)"
"$B/lp-sweep" --plan --nodes "$N" --model "$T/node.model" --isolation none "${FAST[@]}" --quiet --json "$T/pm.json"
python3 - "$T" "$N" <<'EOF' || fails=$((fails + 1))
import json, math, sys
t, n = sys.argv[1], int(sys.argv[2])
sys.path.insert(0, "tests/sweep")
from lpcheck import check, done, load
from sweepdoc import cells
def verdicts(d):
    nm = [x["name"] for x in d["nodes"]]
    return [(v["kind"], "-".join(nm[i] for i in sorted({v["a"], v["b"]}))) for v in d["verdicts"]]
for name in ("healthy", "node", "link"):
    d, rc = load(t, name)
    mask = d["run"]["screen_mask"]
    screen = [m for m in range(len(d["metrics"])) if mask >> m & 1]
    labels = {m: x["label"] for m, x in enumerate(d["metrics"])}
    every = cells(d)
    sweep = [c for c in every if c["phase"] in ("sweep", "retest")]
    sizes = [c for c in every if c["phase"] == "sizes"]
    check(sorted(labels[m] for m in screen) == ["write_bw 1 MiB", "write_lat 8 B"] and
          all(c["metric"] in screen for c in sweep) and all(c["metric"] not in screen for c in sizes) and
          sum(c["phase"] == "sweep" for c in every) == 2 * n * (n - 1) and d["run"]["test_bytes"] == 256 << 20,
          f"{name}: every ordered pair at the screen's sizes only ({len(sweep)} cells), the other sizes "
          f"in the size sweep only ({len(sizes)} cells)")
    pairs = {(c["client_name"], c["server_name"]) for c in sizes}
    if name == "healthy":
        check(d["verdicts"] == [] and rc == 0, f"healthy: nothing named, exit {rc}: {verdicts(d)}")
        continue
    want = {"node": [("node_slow", "gpu017")], "link": [("link_slow", "gpu030-gpu031")]}[name]
    check(verdicts(d) == want and rc == 1, f"{name} 0.8x: {want} named alone, exit {rc}: {verdicts(d)}")
    faulty = {p for p in pairs if "gpu017" in p} if name == "node" else {("gpu030", "gpu031")} & pairs
    refs = {p for p in pairs if not ({"gpu017", "gpu030", "gpu031"} & set(p))}
    others = len(labels) - len(screen)
    full = all(sorted(c["metric"] for c in sizes if (c["client_name"], c["server_name"]) == p) ==
               sorted(set(labels) - set(screen)) for p in pairs)
    check(faulty and len(refs) == 2 and full and pairs == faulty | refs,
          f"{name}: the size sweep: the {others} other sizes on {len(faulty)} pair(s) of the fault and 2 references, nowhere else")
    out = open(f"{t}/{name}.out").read()
    check("size sweep (--fast)" in out and " ref " in out, f"{name}: the size sweep's table in the summary")
p, prog = json.load(open(f"{t}/pm.json")), [json.loads(l) for l in open(f"{t}/node.journal") if '"type":"progress"' in l]
check(bool(prog) and math.isclose(prog[0]["predicted_s"], p["predicted"]["total_s"], rel_tol=1e-9),
      "the engine's prediction is --plan --fast --model's")
done()
EOF

# 3. the documents read back: the same verdicts and exit code from the JSON and the journal
for r in node link; do
	for f in json journal; do
		"$B/lp-sweep" --diagnose "$T/$r.$f" --quiet --json "$T/$r-$f.diag"
		rc=$?
		python3 - "$T/$r.json" "$T/$r-$f.diag" "$rc" <<'EOF' && ok "--diagnose $r.$f: the run's verdicts, exit $rc" || bad "--diagnose $r.$f differs (exit $rc)"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
v = lambda d: [(x["kind"], x["a"], x["b"], x["dirs"], x["metrics"]) for x in d["verdicts"]]
sys.exit(0 if v(a) == v(b) and a["exit_code"] == int(sys.argv[3]) and b["run"]["screen_mask"] == a["run"]["screen_mask"] else 1)
EOF
	done
done
exit $((fails > 0))
