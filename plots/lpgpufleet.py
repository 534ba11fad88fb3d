#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""lp-qualify's GPU step across the fleet: every host's lp-gpu document (DIR/gpu/*.json)
gathered into one table per GPU path (test, size and series), each GPU's median against the
fleet's, the slow GPUs and nodes named. docs/QUALIFY.md (step 2) is the recipe.

A GPU is slow on a path when it moves less than RATIO (0.9) of the fleet's median there (a
latency: takes more than 1/RATIO of it); a node is slow when more than half of its GPUs are slow
on one path and it has two or more there (a cause on the host's side: its socket, memory, PCIe
root or BIOS), and then its GPUs are not named one by one there. A path is judged with at least MIN_GPUS (3) GPUs measured
on it, else it says so. Each host's profile is judged by lp-gpu itself (--expect auto: its exit
code, in gpu.txt); this compares the hosts with each other, which no profile can.

    python3 lpgpufleet.py DIR [--csv FILE]

Prints the tables (the paths' medians, then only the slow GPUs and nodes: bounded at any fleet
size) and one "verdict:" line each; --csv writes every GPU's row. Exit 0 nothing named, 1 a GPU
or node named or a document unreadable (listed, the others still compared), 2 bad input (one
line).
"""
import argparse
import csv
import glob
import json
import os
import statistics
import sys

RATIO = 0.9
MIN_GPUS = 3


def size_text(b):
    u = next(u for u in range(4) if b < 1024 ** (u + 1) or u == 3)
    return f"{b / 1024 ** u:g} {['B', 'KiB', 'MiB', 'GiB'][u]}"


def load(d):
    """[(host, doc)] of every lp-gpu document under d/gpu, and [why] for each unreadable one."""
    docs, bad = [], []
    for f in sorted(glob.glob(os.path.join(d, "gpu", "*.json"))):
        try:
            doc = json.load(open(f))
        except (OSError, ValueError) as e:
            bad.append(f"{f}: not an lp-gpu document ({e})")
            continue
        if not isinstance(doc, dict) or doc.get("tool") != "lp-gpu":
            bad.append(f"{f}: not an lp-gpu document")
            continue
        docs.append(((doc.get("host") or {}).get("host") or os.path.basename(f)[:-5], doc))
    return docs, bad


def gpu_of(cell):
    """The GPU a cell measures: its GPU ends (not CPU, local, peers), 'GPU0' or 'GPU0->GPU1'."""
    ends = [e for e in (cell.get("from"), cell.get("to")) if str(e).startswith("GPU")]
    return "->".join(dict.fromkeys(ends)) or "?"


def gather(docs):
    """{(test, size, series, unit, matrix): [(host, gpu, value)]} over every ok cell."""
    paths = {}
    for host, doc in docs:
        for r in doc.get("results") or []:
            for s in r.get("series") or []:
                key = (r.get("test"), r.get("size"), s.get("label"), r.get("unit"),
                       r.get("matrix"))
                for c in s.get("cells") or []:
                    if c.get("status") == "ok" and isinstance(c.get("median"), (int, float)):
                        paths.setdefault(key, []).append((host, gpu_of(c), c["median"]))
    return paths


def judge(key, rows):
    """(fleet median, [(host, gpu, value, goodness)], slow GPUs, slow nodes) of one path."""
    latency = key[3] == "ns"
    med = statistics.median(v for _, _, v in rows)
    scored = [(h, g, v, (med / v if latency else v / med) if v > 0 and med > 0 else 0.0)
              for h, g, v in rows]
    if len(rows) < MIN_GPUS:
        return med, scored, [], []
    slow = [x for x in scored if x[3] < RATIO]
    per_host = {}
    for h, g, _, _ in scored:
        per_host.setdefault(h, set()).add(g)
    nodes = sorted(h for h in per_host if len(per_host[h]) > 1 and
                   2 * len({x[1] for x in slow if x[0] == h}) > len(per_host[h]))
    return med, scored, [x for x in slow if x[0] not in nodes], nodes


def path_name(key):
    test, size, series, unit, _ = key
    return f"{test} {size_text(size)}" + ("" if series == "value" else f" {series}")


def report(docs, out, csv_path):
    paths = gather(docs)
    ngpus = len({(h, e) for rows in paths.values() for h, g, _ in rows for e in g.split("->")})
    print(f"lp-gpu on {len(docs)} hosts, {ngpus} GPUs; slow: below {RATIO}x the "
          f"fleet's median on a path (latency: above 1/{RATIO}x), judged from {MIN_GPUS} GPUs",
          file=out)
    verdicts, few, table = [], 0, []
    for key in sorted(paths, key=lambda k: (k[0] or "", k[1] or 0, k[2] or "")):
        rows = paths[key]
        med, scored, slow, nodes = judge(key, rows)
        vals = [v for _, _, v, _ in scored]
        print(f"{path_name(key)} [{key[3]}], {(key[4] or '').split(';')[0]}: fleet median {med:.4g} over {len(rows)}"
              f" GPUs of {len({h for h, _, _ in rows})} hosts, range {min(vals):.4g}-"
              f"{max(vals):.4g}" + ("" if len(rows) >= MIN_GPUS else
                                   f"; too few to compare (fewer than {MIN_GPUS})"), file=out)
        few += len(rows) < MIN_GPUS
        for h in nodes:
            bad = [x for x in scored if x[0] == h and x[3] < RATIO]
            worst = min(bad, key=lambda x: x[3])
            print(f"  slow node {h}: {len(bad)} of {len({x[1] for x in scored if x[0] == h})}"
                  f" GPUs below {RATIO}x (worst {worst[1]} {worst[2]:.4g}, {worst[3]:.2f}x)",
                  file=out)
            verdicts.append(f"verdict: gpu_node_slow {h}: {path_name(key)}: {len(bad)} of its"
                            f" GPUs below {RATIO}x the fleet's {med:.4g} {key[3]}")
        for h, g, v, q in sorted(slow, key=lambda x: x[3]):
            print(f"  slow {h} {g}: {v:.4g} {key[3]}, {q:.2f}x", file=out)
            verdicts.append(f"verdict: gpu_slow {h} {g}: {path_name(key)} {v:.4g} {key[3]}, "
                            f"{q:.2f}x the fleet's {med:.4g}")
        slow_set = {(h, g) for h, g, _, _ in slow}
        table += [(key, med, h, g, v, q, (h, g) in slow_set or h in nodes)
                  for h, g, v, q in scored]
    for v in verdicts:
        print(v, file=out)
    print(f"summary: {len(verdicts)} named on {len(paths)} paths"
          + (f"; {few} paths with too few GPUs to compare" if few else ""), file=out)
    if csv_path:
        with open(csv_path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["test", "size", "series", "unit", "host", "gpu", "value",
                        "fleet_median", "goodness", "slow"])
            for key, med, h, g, v, q, s in table:
                w.writerow([key[0], key[1], key[2], key[3], h, g, f"{v:.6g}", f"{med:.6g}",
                            f"{q:.4f}", int(s)])
    return 1 if verdicts else 0


def main():
    ap = argparse.ArgumentParser(description="lp-gpu's documents of a fleet, compared")
    ap.add_argument("dir", help="lp-qualify's directory (its gpu/*.json)")
    ap.add_argument("--csv", help="every GPU's row of every path")
    a = ap.parse_args()
    if not os.path.isdir(a.dir):
        raise SystemExit(f"lpgpufleet: {a.dir}: not a directory")
    docs, bad = load(a.dir)
    for why in bad:  # a host whose lp-gpu died: named, the others still compared
        print(f"unreadable: {why}")
    if not docs:
        print(f"lp-gpu on 0 hosts: no document in {a.dir}/gpu (no GPU on any node)")
        return 1 if bad else 0
    try:
        return max(report(docs, sys.stdout, a.csv), 1 if bad else 0)
    except OSError as e:
        raise SystemExit(f"lpgpufleet: {e}") from None


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SystemExit as e:
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
            sys.exit(2)
        raise
