#!/bin/bash
# tier: fabric
# lp-sweep --collective on the built-in fabric: 4 QEMU/TCG guests, Soft-RoCE rxe0 in each, Open MPI
# over ssh between them (scripts/sweep-fabric.sh), the same boot for two runs. Expected:
#   coll-healthy  the sweep, then the all-reduce over MPI (host memory, TCP between the guests) and
#                 linkperf's ring: every result's data checked, a ring ceiling from the matrix with
#                 its bottleneck named, measured/allowed in the document; the search names
#                 nothing (no collective verdict other than none), exit 0 (3 where the sweep's
#                 own noise says inconclusive)
#   coll-link     tbf 20mbit on lpnode1's egress towards lpnode2 only: the ring's edge 1 -> 2. The
#                 all-reduce slows against coll-healthy's; the ring ceiling is held at
#                 lpnode1 -> lpnode2; the search names the link 1 -> 2 (targeted retests of the
#                 edge the ceiling names; node told from link by their other edges) within 60 s
#                 of its retests and probes, the sweep's diagnosis names the same link (both
#                 views), and no other node or link is named; exit 1
# On a loaded 2-core host the honest outcome passes too: the collective verdict "inconclusive"
# holding lpnode1 or lpnode2, never a wrong name. LP_FABRIC_STRICT=1: only the exact outcome.
# LP_FABRIC_RESULTS=DIR: check a kept run (LP_KEEP=1 keeps one) instead of booting the fabric.
# Run under the guest lock: flock /tmp/lp-guest.lock bash tests/sweep/test-fabric-coll.sh
# Exit 0 pass, 77 skipped (no qemu/MPI/ssh), else fail.
set -u
cd "$(dirname "$0")/../.."
. tests/host-lib.sh
host_needs qemu mpi ssh lp-sweep
COLL='--collective allreduce --coll-paths mpi,ring --coll-sizes 256K --coll-iters 5 --coll-warmup 1 --coll-timeout 60'
if host_out LP_FABRIC_RESULTS lp-sweep-coll; then
	LP_BUILD=$B timeout -k 30 1500 scripts/sweep-fabric.sh -n 4 --out "$out" --timeout 1440 --run-timeout 600 \
		--scenario "coll-healthy=none $COLL" --scenario "coll-link=link:1:2:20mbit $COLL" \
		-- --schedule isolated --tests write_bw --bw-sizes 64K --bw-iters 200 --pair-timeout 40 --retest 4
	host_ran $? sweep-fabric.sh 60
fi

python3 - "$out" <<'PY'
import os, sys
sys.path.insert(0, "tests/sweep")
import lpcheck
from lpcheck import check

out = sys.argv[1]
STRICT = os.environ.get("LP_FABRIC_STRICT") == "1"


def load(name):
    return lpcheck.load(out, name)


def busbw(d, path):
    r = [x for x in d["collectives"]["results"] if x["path"] == path and not x["in_place"]
         and x["collective"] == "allreduce" and x["group"] == "all" and x["status"] == 0]
    return r[0]["busbw"] if r else None


def named(d):
    return [v for v in d["collectives"]["verdicts"] if v["kind"] in ("node", "link", "shared", "concurrency")]


# coll-healthy: measured, checked, held against its links, nothing named
h, rc = load("coll-healthy")
c = h["collectives"]
check(len(h["nodes"]) == 4, "coll-healthy: 4 nodes")
check(c["results"] and all(r["status"] == 0 and r["wrong"] == 0 for r in c["results"]),
      f"coll-healthy: {len(c['results'])} results, data checked, none wrong")
check({r["path"] for r in c["results"]} == {"mpi", "ring"}, "coll-healthy: the MPI library's and linkperf's ring")
ring = [x for x in c["ceilings"] if x["collective"] == "allreduce" and x["scheme"] == "ring" and x["group"] == "all"]
check(bool(ring) and ring[0]["busbw"] > 0 and ring[0]["bottleneck"], "coll-healthy: a ring ceiling from the matrix, its bottleneck named")
check(any(j["path"] == "ring" and j["ratio"] is not None for j in c["judgements"]), "coll-healthy: measured/allowed")
check(named(h) == [], f"coll-healthy: the search names nothing ({[v['reason'] for v in named(h)]})")
check(rc in (0, 3) and rc == h["exit_code"], f"coll-healthy: exit {rc}")

# coll-link: slower, held at 1 -> 2, the link named by both views within 60 s
d, rc = load("coll-link")
c = d["collectives"]
hb, lb = busbw(h, "ring"), busbw(d, "ring")
check(hb and lb and lb < 0.8 * hb, f"coll-link: the ring all-reduce slows ({lb} vs {hb} GB/s busbw)")
ring = [x for x in c["ceilings"] if x["collective"] == "allreduce" and x["scheme"] == "ring" and x["group"] == "all"]
held = ring and ring[0]["bottleneck"] and (ring[0]["bottleneck"][0]["a"], ring[0]["bottleneck"][0]["b"]) == (1, 2)
v = c["verdicts"]
exact = [x for x in v if x["kind"] == "link" and (x["a"], x["b"]) == (1, 2)]
wrong = [x for x in named(d) if x not in exact]
honest = [x for x in v if x["kind"] == "inconclusive" and {x["a"], x["b"]} & {1, 2}]
# the shaped link's own bandwidth test may fail outright (rxe's retries spent behind the 20mbit
# bucket on a loaded host: "remote invalid request", completer_retry_err): the sweep then names
# that link failed, and the matrix has no value on the edge the ceiling and the search would hold
# it at -- the fault reported as a failure, not missed; those two checks are noted, not run
# (LP_FABRIC_STRICT=1 fails them)
own = [x for x in d["verdicts"] if x["kind"] == "link_failed" and (x["a"], x["b"]) == (1, 2)]
if own and not held and not exact and not STRICT:
    print("SKIP coll-link: the ring ceiling and the collective search: the shaped link's own test "
          "failed (" + own[0]["reason"][:160] + "), no measured edge to hold them at")
else:
    check(held, "coll-link: the ring ceiling is held at lpnode1 -> lpnode2")
    check(bool(exact) or (not STRICT and bool(honest)),
          "coll-link: " + ("exact: link 1 -> 2" if exact else "honest: inconclusive" if honest else "missed")
          + "; " + "; ".join(x["kind"] + ": " + x["reason"] for x in v))
check(wrong == [], f"coll-link: no wrong part named ({[x['reason'] for x in wrong]})")
if exact:
    check(exact[0]["wall_s"] <= 60, f"coll-link: named within 60 s ({exact[0]['wall_s']:.1f} s, {exact[0]['probes']} probes)")
    check(len(exact[0]["evidence"]) >= 2, "coll-link: the verdict carries its retests")
sweep_links = [x for x in d["verdicts"] if x["kind"].startswith("link") and {x["a"], x["b"]} == {1, 2}]
# the sweep's own view: the same link, or (a loaded host: 89 % noise per cell seen) an honest
# inconclusive, or the link unconfirmed (stood out, retests did not settle it), never another name
sweep_unconf = [x for x in d["verdicts"] if x["kind"] == "unconfirmed" and {x["a"], x["b"]} == {1, 2}]
sweep_honest = any(x["kind"] == "inconclusive" for x in d["verdicts"]) or bool(sweep_unconf)
sweep_wrong = [x for x in d["verdicts"] if x["kind"] != "inconclusive" and x not in sweep_links + sweep_unconf]
check(not exact or bool(sweep_links) or (not STRICT and sweep_honest and not sweep_wrong),
      "coll-link: the sweep's diagnosis names link 1-2 too (both views)"
      + ("" if sweep_links or not sweep_honest else ": honest, the sweep alone is inconclusive"))
check(rc == d["exit_code"] and rc in (1, 3), f"coll-link: exit {rc}")
print("test-fabric-coll: " + ("all passed" if not lpcheck.fails else f"{lpcheck.fails} failed"))
lpcheck.done()
PY
