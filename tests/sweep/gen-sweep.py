#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A synthetic lp-sweep run of many nodes, for the report's scale checks (tests/sweep/test-scale.sh).

Writes the measurements as an lp-sweep document of schema linkperf.sweep/1 (the nodes, the
metrics and every cell, nothing derived); `lp-sweep --diagnose FILE --json RUN.json` then
diagnoses it with the real engine and writes the document of today's schema, so that what the
report reads comes from the real writer and the real diagnosis.

The cluster: NODES nodes named like racks (r01n01 ...), a random schedule of PARTNERS partners per
node (as a 1,000-node sweep runs), write_lat 8 B around 2.6 us and write_bw 64 KiB around
370 Gb/s with NOISE relative noise; faults injected on request:
  --slow-node NAME=RATIO   every cell of NAME as client (the data's source) at RATIO of normal
  --slow-link A>B=RATIO    the cells A -> B at RATIO (retests too: a real slow link)
  --failed-node NAME       every cell with NAME fails ("no progress for 10000 ms")
  --odd-firmware NAME      NAME reports another firmware (the inventory's odd one out)
"""
import argparse
import json
import math
import random

LAT_US, BW_GBPS = 2.6, 370.0


def names(n):
    per = 16
    return [f"r{i // per + 1:02d}n{i % per + 1:02d}" for i in range(n)]


def node(i, name, fw):
    return {"index": i, "name": name, "host": name, "rank": i, "rail": 0, "status": 0, "error": None,
            "device": "mlx5_0", "port": 1, "link_layer": "InfiniBand", "rate_gbps": 400, "speed": "NDR",
            "width": 4, "gid_type": "IB", "gid": f"fe80::{i:x}", "gid_index": 0, "mtu": 4096,
            "firmware": fw, "netdev": None, "numa_node": 0, "mem": "host", "gpu": None,
            "kernel": "6.1.0-27-amd64"}


def cell(metric, a, b, nm, rnd, value, error=None):
    lat = metric == 0
    c = {"metric": metric, "test": "write_lat" if lat else "write_bw", "size": 8 if lat else 65536,
         "client": a, "server": b, "client_name": nm[a], "server_name": nm[b], "phase": "sweep",
         "round": rnd, "attempt": 1, "status": 0 if error is None else -110, "error": error,
         "value": None if error else value, "unit": "us" if lat else "Gb/s", "wall_s": 0.5,
         "iters": 1000 if lat else 5000}
    if error is None and lat:
        c["latency_us"] = {"n": 1000, "one_way_is_rtt_half": True, "min": value * 0.95, "p50": value,
                           "p90": value * 1.05, "p99": value * 1.2, "p999": value * 1.4,
                           "max": value * 1.6, "mean": value * 1.01, "stdev": value * 0.03}
    elif error is None:
        c["bandwidth"] = {"gbytes_s": value / 8, "gbits_s": value, "mmsg_s": value / 8e-3 / 65536,
                          "pct_link": value / 4}
    return c


def parse_faults(items, sep):
    out = {}
    for x in items or []:
        k, v = x.rsplit("=", 1)
        out[tuple(k.split(sep)) if sep else k] = float(v)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=1000)
    ap.add_argument("--partners", type=int, default=6)
    ap.add_argument("--noise", type=float, default=0.03)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--slow-node", action="append")
    ap.add_argument("--slow-link", action="append")
    ap.add_argument("--failed-node", action="append", default=[])
    ap.add_argument("--odd-firmware", action="append", default=[])
    ap.add_argument("-o", "--out", required=True)
    o = ap.parse_args()
    rng = random.Random(o.seed)
    nm = names(o.nodes)
    slow_node, slow_link = parse_faults(o.slow_node, None), parse_faults(o.slow_link, ">")
    failed = set(o.failed_node)
    pairs = set()
    for a in range(o.nodes):
        for b in rng.sample([x for x in range(o.nodes) if x != a], o.partners):
            pairs.add((a, b))
    at = {n: i for i, n in enumerate(nm)}
    pairs |= {(at[a], at[b]) for a, b in slow_link}
    cells = []
    for rnd, (a, b) in enumerate(sorted(pairs)):
        f = slow_node.get(nm[a], 1.0) * slow_link.get((nm[a], nm[b]), 1.0)
        err = ("no progress for 10000 ms: the peer stopped responding"
               if nm[a] in failed or nm[b] in failed else None)
        for metric, ref in ((0, LAT_US), (1, BW_GBPS)):
            noise = math.exp(rng.gauss(0, o.noise))
            v = ref / f * noise if metric == 0 else ref * f * noise
            cells.append(cell(metric, a, b, nm, rnd % 64, v, err))
            for k in range(2 if (nm[a], nm[b]) in slow_link else 0):  # isolated retests
                c = cell(metric, a, b, nm, k, v * math.exp(rng.gauss(0, o.noise)), err)
                c.update(phase="retest", attempt=k + 2)
                cells.append(c)
    doc = {
        "tool": "lp-sweep", "schema": "linkperf.sweep/1",
        "method": {"linkperf_version": "synthetic (tests/sweep/gen-sweep.py)"},
        "run": {"started": "2026-12-01T00:00:00Z", "wall_s": 3600, "sweep_s": 3600, "retest_s": 0,
                "nodes": o.nodes, "rails": 0, "pair_timeout_s": 60, "bw_iters": 5000, "lat_iters": 1000,
                "retests": 0,
                "diagnosis": {"k_mad": 4, "rel": 0.1, "rel_max": 0.5, "vote": 0.5, "min_gbps": None,
                              "max_lat_us": None, "min_errors": 10, "impact_max": 2, "fair_min": 0.6,
                              "retest_max": 32, "retest_rounds": 3}},
        "schedule": {"kind": "random", "rounds": 64, "ordered_pairs": len(pairs), "random_k": o.partners,
                     "seed": o.seed},
        "nodes": [node(i, n, "28.39.9999" if n in o.odd_firmware else "28.39.1002") for i, n in enumerate(nm)],
        "metrics": [{"index": 0, "label": "write_lat 8B", "test": "write_lat", "size": 8, "kind": "latency",
                     "unit": "us"},
                    {"index": 1, "label": "write_bw 64KiB", "test": "write_bw", "size": 65536,
                     "kind": "bandwidth", "unit": "Gb/s"}],
        "cells": cells, "verdicts": [], "exit_code": 0,
    }
    with open(o.out, "w") as f:
        json.dump(doc, f)


if __name__ == "__main__":
    main()
