#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A fleet of lp-gpu documents for the tests (test-qualify, test-report): the H200 run's
(docs/data/2026-12-02-h200/lp-gpu-1.json) copied to HOSTS hosts of GPUS GPUs each with +-1 % of
spread, plus a latency path (lat_ld 8 B, 800 ns); faults as host:test:factor (every GPU of the
host) or host:test:factor:gpu. Writes OUT/gpu/HOST.json.

    gpufleet-docs.py OUT HOSTS GPUS [FAULT...]
"""
import copy, json, os, sys
out, hosts, gpus, faults = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
base = json.load(open("docs/data/2026-12-02-h200/lp-gpu-1.json"))
cell0 = base["results"][0]["series"][0]["cells"][0]
lat = dict(base["results"][0], test="lat_ld", unit="ns", size=8, matrix="GPU -> CPU",
           description="one dependent uncached load", series=[{"label": "value", "cells": [
               dict(cell0, **{"from": "GPU0", "to": "CPU", "median": 800.0, "min": 790.0,
                              "max": 810.0, "ceiling": 0, "pct_of_ceiling": 0})]}])
os.makedirs(os.path.join(out, "gpu"), exist_ok=True)
for h in range(hosts):
    d = copy.deepcopy(base)
    d["host"]["host"] = name = f"gpu{h:03d}"
    for r in d["results"] + [copy.deepcopy(lat)]:
        if r["test"] == "lat_ld":
            d["results"].append(r)
        for s in r["series"]:
            c0 = s["cells"][0]
            s["cells"] = []
            for g in range(gpus):
                c = dict(c0, median=c0["median"] * (1 + 0.01 * ((h * 7 + g * 3) % 5 - 2) / 2))
                c.update({e: f"GPU{g}" for e in ("from", "to") if c0[e] == "GPU0"})
                for f in faults:
                    fh, ft, fx, *fg = f.split(":")
                    if fh == name and ft == r["test"] and (not fg or fg[0] == f"GPU{g}"):
                        c["median"] *= float(fx)
                s["cells"].append(c)
    json.dump(d, open(os.path.join(out, "gpu", name + ".json"), "w"))
