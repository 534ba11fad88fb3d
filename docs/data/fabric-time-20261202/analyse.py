#!/usr/bin/env python3
"""The time model's components from a fabric run's documents (docs/SWEEP.md, "Time model"):
per scenario, each test's own time (iterations and warm-up at the cell's measured rate), the
session's set-up (the cell's wall time less that), and the harness per round (the sweep's time
less its slowest slot's cells, over the rounds). Usage: analyse.py DIR [SCENARIO...]"""
import json, statistics as st, sys

WARMUP = {"latency": 100, "bandwidth": 64}  # lp-rdma's defaults (rdma/params.c), as --plan prints them


def components(path):
    d = json.load(open(path))
    mets, rounds = d["metrics"], d["schedule"]["rounds"]
    sweep = [c for c in d["cells"] if c["phase"] == "sweep"]
    tests, setups, slots = {"latency": [], "bandwidth": []}, [], {}
    for c in sweep:
        if c["status"]:
            continue
        m = mets[c["metric"]]
        n = c["iters"] + WARMUP[m["kind"]]
        t = n * 2 * c["latency_us"]["mean"] * 1e-6 if m["kind"] == "latency" else n * m["size"] * 8 / (c["value"] * 1e9)
        tests[m["kind"]].append(t)
        setups.append(c["wall_s"] - t)
    for c in sweep:  # a slot's cells run one after the other; the round waits for its slowest slot
        key = (c["round"], min(c["client"], c["server"]), max(c["client"], c["server"]))
        slots[key] = slots.get(key, 0) + c["wall_s"]
    slowest = {}
    for (r, _, _), w in slots.items():
        slowest[r] = max(slowest.get(r, 0), w)
    s = d["run"]["sweep_s"]
    return rounds, s, st.median(tests["latency"]), st.median(tests["bandwidth"]), st.median(setups), \
        min(setups), (s - sum(slowest.values())) / rounds


top = sys.argv[1]
names = sys.argv[2:] or ["old-isolated", "isolated", "none", "old-rr", "rr"]
print("%-13s %6s %8s %10s %10s %12s %12s %14s" % ("scenario", "rounds", "sweep", "write_lat", "write_bw",
      "set-up (med)", "set-up (min)", "harness/round"))
for n in names:
    r, s, lat, bw, su, sumin, h = components(f"{top}/{n}.json")
    print("%-13s %6d %7.1fs %9.3fs %9.3fs %11.3fs %11.3fs %13.3fs" % (n, r, s, lat, bw, su, sumin, h))
