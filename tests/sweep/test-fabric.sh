#!/bin/bash
# tier: fabric
# lp-sweep on the built-in fabric: 4 QEMU/TCG guests, Soft-RoCE rxe0 in each, one virtual L2
# network, Open MPI over ssh between the guests (scripts/sweep-fabric.sh). One boot, eight runs
# (nine with LP_FABRIC_FULL=1) and one --check, all at lp-sweep's default thresholds.
# Expected (exact):
#   healthy   nothing flagged, every cell measured, exit 0
#   both      netem 2 ms on lpnode1's egress: every ping-pong with it is slower, it as client and
#             as server: exactly lpnode1, slow both ways in write_lat, no link, exit 1
#   egress    (LP_FABRIC_FULL=1 only: CI runs the eight others) tbf 100mbit on lpnode2's
#             egress (its client cells ~0.5-0.7x; 0.38x at 80mbit and 0.71x at 120mbit,
#             docs/SWEEP.md): exactly lpnode2, as a write_bw client (as a server too only
#             when milder: its ACKs pace through the small bucket), no link, exit 1
#   throttle  tbf 20mbit on lpnode2's egress: lp-sweep names exactly lpnode2, no link, exit 1
#   link      tbf on lpnode0's egress towards lpnode3 only: the link 0->3 is named, no node
#   nodev     rxe0 deleted in lpnode1: its cells carry the error, the others are measured, exit 1
#   loss      netem loss 1 % on lpnode3's egress (a 64 KiB write is 64 packets: a third of them
#             lose one, and rxe retries after its 67 ms ACK timeout): rxe's hw_counters move on
#             lpnode3 and its partners; a verdict names lpnode3 (slow, or "errors" when its
#             numbers hold) and cites them; no other node or link is named, exit 1
#   --check   lp-sweep --check on the 4 guests: one report naming every host, exit 0 or 1
#   load      no fault, --load both: every ordered pair has its latency under load (loaded and
#             idle p50/p99, impact factor; the loaders' bandwidth spans the victim's test), every
#             receiver an incast of 2 senders with Jain's index and a victim's latency into it;
#             no load or incast verdict
#   incast    lpnode2's ingress shaped (ifb + tbf 10mbit, a 50 ms queue), --load incast: exactly
#             lpnode2 is incast_slow; the latency into it during its incast (one cell per
#             receiver) is named load_impact only when 2x above every other receiver's; no
#             other receiver is named
#   (load and incast run with --qp-timeout 18: their drops are the point, and rxe's retries at
#   the default 67 ms ran out in a starved guest, failing cells instead of slowing them; healthy
#   too: at host load 40 a healthy pair's write_bw failed so, "remote invalid request")
# and the plots render from the JSON. On a loaded 2-core host the TCG guests' cells can be too
# noisy for a verdict at N = 4; then the honest outcome also passes: the fault's metric says
# "inconclusive" or "unconfirmed" (exit 3: stood out, not yet confirmed by retests), or
# "ambiguous"/"pair_slow" with the truth among its candidates, and no
# wrong node or link is named anywhere. A wrong name or a missed fault always fails. The last line
# lists each scenario's outcome (exact / honest). LP_FABRIC_STRICT=1: only exact outcomes pass.
# LP_FABRIC_RESULTS=DIR: check a kept run (LP_KEEP=1 keeps one) instead of booting the fabric.
# Exit 0 pass, 77 skipped (no qemu/MPI/ssh), else fail.
set -u
cd "$(dirname "$0")/../.."
. tests/host-lib.sh
host_needs qemu mpi ssh lp-sweep
if host_out LP_FABRIC_RESULTS lp-sweep-test; then
	# No wall limit (a loaded 2-core host takes 90-170 s a scenario, twice that at worst): the
	# fabric is hung when nothing is printed or written for 600 s, a scenario when its output and
	# journal stand still for 300 s; a pair test gets 120 s (lp-sweep --pair-timeout) before its
	# cell fails, ten times what one takes on that host.
	# The milder egress fault (100mbit) is the benchmark-sized sibling of throttle (20mbit):
	# LP_FABRIC_FULL=1 runs it too (about 2 minutes more).
	egress=
	[ -n "${LP_FABRIC_FULL:-}" ] && egress='--scenario egress=throttle:2:100mbit'
	LP_BUILD=$B scripts/sweep-fabric.sh -n 4 --out "$out" --idle "${LP_FABRIC_IDLE:-600}" --run-idle 300 --plots \
		--scenario 'healthy=none --qp-timeout 18' --scenario both=delay:1:2 $egress \
		--scenario throttle=throttle:2 --scenario link=link:0:3 \
		--scenario nodev=nodev:1 --scenario loss=loss:3:1 \
		--scenario 'load=none --bw-iters 50 --load both --load-time 0.5 --retest 0 --qp-timeout 18' \
		--scenario 'incast=ingress:2:10mbit --bw-iters 50 --load incast --load-time 1 --retest 0 --qp-timeout 18' \
		--check -- --schedule isolated --tests write_lat,write_bw --bw-sizes 64K \
		--bw-iters 200 --lat-iters 300 --pair-timeout 120 --retest 8
	host_ran $? sweep-fabric.sh 40
fi

python3 - "$out" <<'PY'
import json, os, sys
sys.path.insert(0, "tests/sweep")
from sweepdoc import legacy_view  # linkperf.sweep/2 documents, with the members these checks read
import lpdoc  # the product's reader (plots/lpdoc.py, on the path sweepdoc sets): resolved values
import lpcheck
from lpcheck import check, fmt

out = sys.argv[1]


def load(name):
    d, rc = lpcheck.load(out, name)
    return legacy_view(d), rc


def cells(d, phase="sweep"):
    return [c for c in d["cells"] if c["phase"] == phase]


def kinds(d):
    return sorted(v["kind"] for v in d["verdicts"])


STRICT = os.environ.get("LP_FABRIC_STRICT") == "1"
outcomes = {}


def confident(d):
    return [v for v in d["verdicts"] if v["kind"] in ("node_slow", "node_failed", "link_slow", "link_failed")]


def lat_only_link(v):
    # On a 2-core TCG host a ping-pong between two spinning guests sometimes lands in a slow
    # scheduling regime (p50 ~8x) that persists through retests; in a bandwidth fault scenario
    # a latency-only link verdict is reported, not failed. A guest's ping-pongs as a whole can
    # run 10-15 % slower for minutes likewise (lpnode3 as a write_lat client 0.87x with all 3
    # partners and a retest, in the link scenario of one CI run): a mild latency-only node
    # verdict (0.8x or milder) in a bandwidth scenario is reported too, not failed. Both are
    # measured, not invented; the injected fault is what the scenario checks.
    lat_only = "write_bw" not in v["metrics"]
    mild_node = v["kind"] == "node_slow" and v.get("ratio") is not None and v["ratio"] >= 0.8
    return lat_only and (v["kind"].startswith("link") or mild_node)


def below_limit(d, metric):
    # N = 4 sees a one-way node fault only beyond the noise's Student-t margin; the JSON states
    # that limit (min_detectable_node). A fault whose fitted effect stays milder than the limit
    # the run itself published, with nothing else named, is missed as stated, not silently
    # (egress at 0.68x against a stated 0.66x limit, 10 % noise, in one run). Node faults only.
    for m in d["metrics"]:
        if m["test"] == metric and "nodes" in m and not m["noise"]["inconclusive"]:
            lim = m["noise"]["min_detectable_node"]
            worst = min(min(x["score_client"], x["score_server"]) for x in m["nodes"])
            print(f"note: {metric}: worst fitted node effect {worst:.2f}x, stated limit {lim:.2f}x")
            return worst >= lim
    return False


def fault(name, metric, right, cand_right, lat_links_ok=True, node_fault=False):
    """A fault scenario at default thresholds. Exact: exit 1 and exactly the right verdict
    (right(v)) in metric. Honest (on a noisy host): no wrong name, and metric's verdict is
    'inconclusive' or an ambiguous/pair_slow one whose candidates hold the truth
    (cand_right(c)). Anything else -- a wrong node or link, or the fault missed -- fails.
    LP_FABRIC_STRICT=1 accepts only the exact outcome."""
    d, rc = load(name)
    # unconfirmed (a cell or node that stood out once, not yet confirmed) exits 3 like inconclusive
    want_rc = 1 if any(v["kind"] not in ("inconclusive", "unconfirmed") for v in d["verdicts"]) else 3 if d["verdicts"] else 0
    check(rc == d["exit_code"] == want_rc, f"{name}: exit {rc} matches its verdicts ({want_rc})")
    # tbf on a node's egress queues its pongs too: a latency-only verdict on that node is physics;
    # and a pair test of that node that failed (its RDMA retries spent behind the 20mbit bucket:
    # 'no answer from lpnode2', completer_retry_err, one run under load) is the fault's own
    # failure reported, not another name
    shaped = {"egress": "lpnode2", "throttle": "lpnode2"}.get(name)
    noted = [v for v in confident(d) if lat_links_ok and (lat_only_link(v) or (
        "write_bw" not in v["metrics"] and v["kind"] == "node_slow" and v.get("name") == shaped) or (
        v["kind"] == "link_failed" and shaped in v.get("names", [])))]
    for v in noted:
        print("note " + v["kind"] + ": " + v["reason"])
    named = [v for v in confident(d) if v not in noted]
    wrong = [v for v in named if not right(v)]
    check(wrong == [], f"{name}: no wrong node or link named (got {[v['reason'] for v in wrong]})")
    hit = [v for v in named if right(v) and metric in v["metrics"]]
    doubt = [v for v in d["verdicts"] if metric in v["metrics"] and
             (v["kind"] in ("inconclusive", "unconfirmed") or
              (v["kind"] in ("ambiguous", "pair_slow") and any(cand_right(c) for c in v.get("candidates", []))))]
    if hit and not wrong:
        outcomes[name] = "exact"
    elif node_fault and not wrong and below_limit(d, metric):
        outcomes[name] = "honest (milder than its stated detection limit)"
    elif doubt and not wrong:
        outcomes[name] = "honest (" + ", ".join(sorted({v["kind"] for v in doubt})) + ")"
    else:
        outcomes[name] = "wrong or missed"
    ok = outcomes[name] == "exact" or (not STRICT and outcomes[name].startswith("honest"))
    check(ok, f"{name}: {outcomes[name]}: " + "; ".join(v["kind"] + ": " + v["reason"] for v in d["verdicts"]))
    return d


# healthy: nothing named; every ordered pair of every metric measured
d, rc = load("healthy")
n = len(d["nodes"])
check(n == 4, "healthy: 4 nodes")
check(rc == d["exit_code"] and confident(d) == [] and
      all(v["kind"] in ("inconclusive", "unconfirmed") for v in d["verdicts"]),
      f"healthy: nothing named ({[v['reason'] for v in d['verdicts']]})")
outcomes["healthy"] = ("exact" if rc == 0 and d["verdicts"] == [] else "wrong" if confident(d)
                       else "honest (" + ", ".join(sorted({v["kind"] for v in d["verdicts"]})) + ")")
check(rc == 0 or (not STRICT and rc == 3), f"healthy: exit {rc}: {outcomes['healthy']}")
sw = cells(d)
check(len(sw) == n * (n - 1) * len(d["metrics"]), f"healthy: {len(sw)} cells = 12 pairs x 2 tests")
check(all(c["status"] == 0 and c["value"] is not None for c in sw), "healthy: every cell has a value")
for m in lpdoc.load(os.path.join(out, "healthy.json")).metrics:
    full = all(v is not None for a, row in enumerate(m.matrix()) for b, v in enumerate(row) if a != b)
    check(full and len(m.nodes) == n, f"healthy: {m.label} matrix full")
check(all(x["status"] == 0 and x["device"] == "rxe0" and x["link_layer"] == "Ethernet"
          and x["gid_type"] == "RoCEv2" for x in d["nodes"]), "healthy: node metadata (rxe0, RoCEv2)")

# both: netem on lpnode1's egress delays every ping-pong it is in: slow as client and server
d = fault("both", "write_lat",
          lambda v: v["kind"] == "node_slow" and v["name"] == "lpnode1",
          lambda c: c["name"] == "lpnode1" and c["kind"].startswith("node"), lat_links_ok=False)
if outcomes["both"] == "exact":
    check(any(v.get("as_client") and v.get("as_server") and "write_lat" in v["metrics"] for v in d["verdicts"]),
          "both: lpnode1 slow both ways in write_lat")

# egress / throttle: tbf on lpnode2's egress: lpnode2 as a write_bw client. As a server it sends
# only ACKs, but a 64 KiB write's ACK burst overruns the 4 KB bucket (burst 32kbit), so they pace
# at the rate on the guest's coarse timers: a milder server effect (0.82x with 5 retests, 3 of 3
# partners, in one run) is real and may be named beside the client one, never alone or stronger.
def client_first(d, v):
    if not (v["kind"] == "node_slow" and v["name"] == "lpnode2" and v["as_client"]):
        return False
    if not (v["as_server"] and "write_bw" in v["metrics"]):
        return True
    bw = [m for m in d["metrics"] if m["test"] == "write_bw"][0]["nodes"][2]
    print(f"note: lpnode2 also slow as a write_bw server ({bw['score_server']:.2f}x, "
          f"as client {bw['score_client']:.2f}x)")
    return bw["score_client"] < bw["score_server"]


RAN = [n for n in ("healthy", "both", "egress", "throttle", "link", "nodev", "loss", "load", "incast")
       if os.path.exists(os.path.join(out, n + ".json")) or n != "egress"]  # egress: LP_FABRIC_FULL
for name in [n for n in ("egress", "throttle") if n in RAN]:
    dd = load(name)[0]
    d = fault(name, "write_bw", lambda v: client_first(dd, v),
              lambda c: c["kind"] == "node_slow_as_client" and c["name"] == "lpnode2", node_fault=True)
    ref = [c["value"] for c in cells(d) if c["test"] == "write_bw" and c["client"] != 2 and c["value"]]
    own = [c["value"] for c in cells(d) if c["test"] == "write_bw" and c["client"] == 2 and c["value"]]
    if ref and own:
        med = lambda x: sorted(x)[len(x) // 2]
        print(f"note {name}: lpnode2's client cells {', '.join(f'{x:.3g}' for x in own)} Gb/s, "
              f"the others' median {med(ref):.3g} ({med(own) / med(ref):.2f}x)")
check(all(c["status"] == 0 for c in cells(load("throttle")[0]) if c["test"] == "write_lat"),
      "throttle: every latency cell measured")

# link: 0->3 (slow, or failed: rxe under tbf may fail the test), no node
fault("link", "write_bw",
      lambda v: v["kind"].startswith("link") and v["nodes"] == [0, 3] and v["directions"] == [[0, 3]],
      lambda c: c["kind"] == "link_slow" and c["node"] == 0 and c["server"] == 3)

# nodev: lpnode1 cannot open a device; its cells carry the error, the rest is measured
d, rc = load("nodev")
check(rc == 1 and d["exit_code"] == 1, f"nodev: exit 1 (got {rc})")
check(d["nodes"][1]["status"] != 0 and d["nodes"][1]["error"], "nodev: lpnode1's device error recorded")
bad = [c for c in cells(d) if 1 in (c["client"], c["server"])]
good = [c for c in cells(d) if 1 not in (c["client"], c["server"])]
check(len(bad) == 6 * len(d["metrics"]) and all(c["status"] != 0 and c["error"] for c in bad),
      f"nodev: all {len(bad)} cells with lpnode1 carry an error")
check(len(good) == 6 * len(d["metrics"]) and all(c["status"] == 0 for c in good),
      f"nodev: the other {len(good)} cells are measured")
named = [(v["kind"], v.get("name")) for v in d["verdicts"] if v["kind"] != "inconclusive"]
check(named == [("node_failed", "lpnode1")], f"nodev: one name, lpnode1 failed (got {kinds(d)})")
# the six cells left may be too few or too noisy for a verdict of their own: inconclusive is honest
outcomes["nodev"] = ("wrong" if named != [("node_failed", "lpnode1")] else
                     "exact" if len(d["verdicts"]) == 1 else "honest (node_failed + inconclusive)")

# loss: lpnode3 named with the counters that moved (its own or its partners' in its tests)
d, rc = load("loss")
check(rc == d["exit_code"] == 1, f"loss: exit {rc}")
def names_of(v):
    return {v["name"]} if "name" in v else set(v.get("names", []))
named = [v for v in d["verdicts"] if v["kind"] in ("node_slow", "node_failed", "link_slow", "link_failed", "errors")]
wrong = [v for v in named if "lpnode3" not in names_of(v) or (v["kind"].startswith("node") and v["name"] != "lpnode3")]
check(wrong == [], f"loss: nothing but lpnode3 named (got {[v['reason'] for v in wrong]})")
hit = [v for v in named if v.get("name") == "lpnode3" and
       any(c["class"] == "error" for c in v["counters"]) and "counters during its tests" in v["reason"]]
check(hit != [], "loss: a verdict names lpnode3 and cites error counters: " +
      "; ".join(v["kind"] + ": " + v["reason"] for v in d["verdicts"]))
moved = [c for c in cells(d) if 3 in (c["client"], c["server"]) and
         any(e and e["moved"] for e in c["counters"].values())]
check(len(moved) >= 3, f"loss: {len(moved)} cells with lpnode3 carry moved counters")
outcomes["loss"] = ("exact" if hit and not wrong else "wrong or missed")

# --check on every guest: one report naming all four hosts
with open(os.path.join(out, "check.rc")) as f:
    crc = int(f.read())
with open(os.path.join(out, "check.json")) as f:
    cj = json.load(f)
hosts = sorted(h["name"] for h in cj["hosts"])
check(crc in (0, 1) and crc == (1 if cj["worst"] == "FAIL" else 0), f"check: exit {crc}, worst {cj['worst']}")
check(hosts == ["lpnode0", "lpnode1", "lpnode2", "lpnode3"], f"check: the report names all 4 hosts ({hosts})")
check(all(any(c["subject"].startswith("rxe0") for c in h["checks"]) for h in cj["hosts"]),
      "check: every host's report has its rxe0 port lines")

# load: latency under load for every ordered pair, an incast per receiver, nothing flagged by them
d, rc = load("load")
check(rc == d["exit_code"], f"load: exit {rc} is the run's")
lat = d.get("load", {}).get("latency", [])
check(len(lat) == 1, f"load: one latency metric under load ({len(lat)})")
for e in lat:
    every = all(e[k][a][b] is not None for k in ("idle_p99_us", "loaded_p99_us", "impact_p50", "impact_p99")
                for a in range(n) for b in range(n) if a != b)
    check(every, f"load: {e['label']}: idle, loaded and impact for all {n * (n - 1)} ordered pairs")
    check(all(x["impact_p99"] is not None and x["pairs"] == 2 * (n - 1) for x in e["nodes"]),
          f"load: each node's impact factor over its {2 * (n - 1)} pairs: "
          + ", ".join(f"{x['name']} p50 {x['impact_p50']:.2f}x p99 {x['impact_p99']:.2f}x" for x in e["nodes"]))
victims = [c for c in d["cells"] if c["phase"] == "loaded"]
loaders = [c for c in d["cells"] if c["phase"] == "loader"]
check(len(victims) == n * (n - 1) and all(c["status"] == 0 for c in victims),
      f"load: {len(victims)} victim cells, all measured")
# the loaders ran for the victim's whole test: started at one barrier, each loader's test
# (set-up included) outlasts its round's victim's
spans = {}
for c in victims:
    spans.setdefault(c["round"], [0, 0])[0] = c["wall_s"]
for c in loaders:
    if c["status"] == 0:
        spans.setdefault(c["round"], [0, 0])[1] = c["wall_s"]
short = {r: s for r, s in sorted(spans.items()) if not s[1] > s[0] > 0}
check(len(spans) == n * (n - 1) and not short,
      f"load: every round's loader outlasts its victim ({len(spans)} rounds; victim/loader s: "
      + ", ".join(f"{v:.1f}/{l:.1f}" for v, l in sorted(spans.values())[:4]) + ", ...; short: "
      + (", ".join(f"round {r} {v:.1f}/{l:.1f}" for r, (v, l) in short.items()) or "none")
      + "; failed loaders: " + (", ".join(f"round {c['round']} {c['client']}->{c['server']}: "
                                          f"{c.get('error') or c['status']}"
                                          for c in loaders if c["status"] != 0) or "none") + ")")
inc = d["load"]["incast"]
check(len(inc) == 1 and len(inc[0]["receivers"]) == n and
      all(r["senders_n"] == n - 2 and r["jain"] is not None and r["victim"]["impact_p50"] is not None
          for r in inc[0]["receivers"]),
      "load: every receiver's incast of 2 senders and a victim: " +
      ", ".join(f"{r['name']} {fmt(r['aggregate_gbits_s'], '.3g')} Gb/s J={fmt(r['jain'], '.2f')} "
                f"lat p50 {fmt(r['victim']['impact_p50'], '.2f')}x" for r in inc[0]["receivers"]))
check([v for v in d["verdicts"] if v["kind"] in ("load_impact", "incast_slow", "incast_unfair")] == [],
      "load: no load or incast verdict on the healthy fabric (" +
      "; ".join(v["reason"] for v in d["verdicts"] if v["kind"] != "inconclusive") + ")")

# incast: lpnode2's ingress shaped: it, and only it, is the slow incast receiver
d, rc = load("incast")
check(rc == d["exit_code"] == 1, f"incast: exit 1 (got {rc})")
slow = [v for v in d["verdicts"] if v["kind"] == "incast_slow"]
check([v["name"] for v in slow] == ["lpnode2"],
      f"incast: exactly lpnode2 named incast_slow (got {[v['reason'] for v in slow]})")
# the victim's latency into it rests on one cell per receiver: named only when it stands
# impact_max above every other receiver's (92x against up to 34x in one run, 77x against up to
# 40x in another, not named); never another receiver
imp = [v for v in d["verdicts"] if v["kind"] == "load_impact"]
check([v["name"] for v in imp] in (["lpnode2"], []),
      f"incast: no latency impact named but lpnode2's (got {[v['reason'] for v in imp]})")
g = lambda v: "-" if v is None else f"{v:.3g}"  # noqa: E731
for r in d["load"]["incast"][0]["receivers"]:
    v = r["victim"] or {}
    print(f"note incast: {r['name']} {g(r['aggregate_gbits_s'])} Gb/s from {r['senders_n']} senders "
          f"({r['failed']} failed), the others' median {g(r['others_median_gbits_s'])}, J={g(r['jain'])}, "
          f"latency into it p50 {g(v.get('loaded_p50_us'))} us vs idle {g(v.get('idle_p50_us'))} "
          f"({g(v.get('impact_p50'))}x)")
outcomes["load"] = "exact" if not lpcheck.fails else "see above"
outcomes["incast"] = ("exact" if [v["name"] for v in slow] == ["lpnode2"] and
                      [v["name"] for v in imp] in (["lpnode2"], []) else "wrong or missed")

# plots: rendered from each JSON, real PNGs of some size
for name in RAN:
    pngs = [f for f in os.listdir(out) if f.startswith(name + "-") and f.endswith(".png")]
    okpng = all(open(os.path.join(out, f), "rb").read(8) == b"\x89PNG\r\n\x1a\n" and
                os.path.getsize(os.path.join(out, f)) > 10000 for f in pngs)
    # a heatmap and a scores picture per metric (2), the counters (rxe's move in every scenario
    # here), the load pictures; no sizes picture: each test runs at one size (lp-plot says so)
    want = {"load": 7, "incast": 6}.get(name, 5)
    kinds = all(any(f.startswith(f"{name}-{k}-") for f in pngs) for k in ("heatmap", "scores"))
    check(len(pngs) >= want and okpng and kinds,
          f"plots: {name}: {len(pngs)} PNGs (a heatmap and scores per metric), each a PNG over 10 kB")
# a guest NIC stall during a scenario (sweep-fabric's NAME.env): the environment, said with it
for name in RAN:
    env = os.path.join(out, name + ".env")
    if os.path.exists(env):
        events = "; ".join(ln for ln in open(env).read().split("\n") if ln)
        print(f"ENVIRONMENT {name}: a guest NIC stalled during the run: {events}")
        outcomes[name] = outcomes.get(name, "?") + " (a guest NIC stalled during it)"
print("outcomes: " + ", ".join(f"{k} {v}" for k, v in outcomes.items()))
lpcheck.done()
PY
[ $? = 0 ] || exit 1
plots/lp-plot compare "$out/healthy.json" "$out/throttle.json" --labels before,throttled --out "$out/cmp" || exit 1
for f in "$out"/cmp-compare-*.png; do
	[ -s "$f" ] && [ "$(stat -c %s "$f")" -gt 10000 ] || { echo "FAIL: compare plot $f"; exit 1; }
done
echo "ok   plots: compare renders"
echo "PASS in $(($(date +%s) - t0)) s"
