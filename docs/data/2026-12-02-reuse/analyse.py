#!/usr/bin/env python3
"""Set-up per session from fabric runs (docs/SWEEP.md, "Set-up reuse"): per scenario, each
cell's set-up is its wall time less its own iterations and warm-up at its measured rate (as
docs/data/fabric-time-20261202/analyse.py, reading linkperf.sweep/2 through tests/sweep/sweepdoc),
and the harness per round the sweep's time less its slots' cells over the rounds.
Usage: analyse.py DIR SCENARIO...   (run from the repository's top)"""
import json, statistics as st, sys

sys.path.insert(0, "tests/sweep")
from sweepdoc import legacy_view  # noqa: E402

WARMUP = {"latency": 100, "bandwidth": 64}  # lp-rdma's defaults (rdma/params.c)


def components(path):
    d = legacy_view(json.load(open(path)))
    mets = d["metrics"]
    sweep = [c for c in d["cells"] if c["phase"] == "sweep"]
    setups = {"latency": [], "bandwidth": []}
    slots, failed = {}, 0
    for c in sweep:
        key = (c.get("round"), min(c["client"], c["server"]), max(c["client"], c["server"]))
        slots[key] = slots.get(key, 0) + c["wall_s"]
        if c["status"]:
            failed += 1
            continue
        m = mets[c["metric"]]
        n = c["iters"] + WARMUP[m["kind"]]
        t = n * 2 * c["latency"]["mean"] * 1e-6 if m["kind"] == "latency" else n * m["size"] * 8 / (c["value"] * 1e9)
        setups[m["kind"]].append(c["wall_s"] - t)
    rounds = len({k[0] for k in slots})
    s = d["run"]["sweep_s"]
    slowest = {}
    for (r, _, _), w in slots.items():
        slowest[r] = max(slowest.get(r, 0), w)
    allsu = setups["latency"] + setups["bandwidth"]
    return (rounds, s, len(sweep), failed, st.median(setups["latency"]), st.median(setups["bandwidth"]),
            st.median(allsu), (s - sum(slowest.values())) / rounds)


print("%-10s %6s %8s %6s %6s %14s %14s %12s %14s" % ("scenario", "rounds", "sweep", "cells", "failed",
      "set-up lat", "set-up bw", "set-up (med)", "harness/round"))
for n in sys.argv[2:]:
    r, s, nc, f, sl, sb, su, h = components(f"{sys.argv[1]}/{n}.json")
    print("%-10s %6d %7.1fs %6d %6d %13.3fs %13.3fs %11.3fs %13.3fs" % (n, r, s, nc, f, sl, sb, su, h))
