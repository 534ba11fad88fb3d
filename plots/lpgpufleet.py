#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""lp-qualify's GPU step across the fleet: every host's lp-gpu document (DIR/gpu/*.json)
gathered into one table per GPU path (test, size and series), each GPU's median against the
fleet's and against its profile, the slow GPUs and nodes named. docs/QUALIFY.md (step 2) is the
recipe; lp-report shows the same tables (fleet(), one reading for both).

A GPU is slow on a path when it moves less than RATIO (0.9) of the fleet's median there (a
latency: takes more than 1/RATIO of it); a node is slow when more than half of its GPUs are slow
on one path and it has two or more there (a cause on the host's side: its socket, memory, PCIe
root or BIOS), and then its GPUs are not named one by one there. A path is compared with at
least MIN_GPUS (3) GPUs measured on it, else it says so. The profile is the one lp-gpu judged
each host against (--expect auto: the document's qualification section, written by the C judge);
a GPU below its profile's limit is named too, whatever the fleet does (a fleet all slow alike
is slow against the profile only).

    python3 lpgpufleet.py DIR [--csv FILE]

Prints the tables (the paths' medians and profile limits, then only the slow GPUs and nodes:
bounded at any fleet size) and one "verdict:" line each; --csv writes every GPU's row. Exit 0
nothing named, 1 a GPU or node named or a document unreadable (listed, the others still
compared), 2 bad input (one line).
"""
import argparse
import csv
import glob
import os
import re
import statistics
import sys
from dataclasses import dataclass, field

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import lpdoc  # noqa: E402

RATIO = 0.9
MIN_GPUS = 3


@dataclass
class Gpu:
    host: str
    gpu: str  # "GPU3", "GPU0->GPU1"
    value: float  # in the path's unit
    good: float  # value against the fleet's median, 1 = the median, below 1 worse
    limit: float = None  # the profile's limit for this cell, None when not judged
    source: str = ""  # where the limit came from (the profile's file, an option)
    profile_fail: bool = False
    slow: bool = False  # named, alone or through its node


@dataclass
class Path:
    test: str
    size: int
    series: str  # "" for a single series
    unit: str
    gpus: list  # [Gpu]
    median: float = 0.0
    hosts: int = 0
    few: bool = False
    slow: list = field(default_factory=list)  # [Gpu] named one by one
    nodes: list = field(default_factory=list)  # [(host, [its slow Gpu], GPUs it has there)]
    limits: str = ""  # the profile's limits on this path, "" when none judged it
    below: list = field(default_factory=list)  # [Gpu] below their profile's limit

    @property
    def name(self):
        return f"{self.test} {lpdoc.fmt_size(self.size)}" + (f" {self.series}" if self.series else "")


@dataclass
class Fleet:
    hosts: list  # host names with a document
    bad: list  # "PATH: why" of every unreadable document
    paths: list  # [Path], in test, size, series order
    ran: dict  # host -> lp-gpu's exit code (DIR/gpu.txt), {} when not recorded
    ngpus: int = 0
    verdicts: list = field(default_factory=list)  # the "verdict:" lines' text


def _load(d):
    docs, bad = [], []
    for f in sorted(glob.glob(os.path.join(d, "gpu", "*.json"))):
        try:
            doc = lpdoc.load(f)
        except lpdoc.DocError as e:
            bad.append(f"{f}: not an lp-gpu document ({str(e).removeprefix(f + ': ')})")
            continue
        if doc.tool != "lp-gpu":
            bad.append(f"{f}: not an lp-gpu document (an {doc.tool} one)")
            continue
        host = next((r.get("host") for r in doc.inventory if r.get("host")), None)
        docs.append((host or os.path.basename(f)[:-5], doc))
    return docs, bad


def _ran(d):
    """lp-qualify's gpu.txt: "HOST lp-gpu exit RC" per host."""
    try:
        text = open(os.path.join(d, "gpu.txt"), encoding="utf-8", errors="replace").read()
    except OSError:
        return {}
    return {m[1]: int(m[2]) for m in re.finditer(r"^(\S+) lp-gpu exit (\d+)$", text, re.M)}


def _gpu_of(c):
    """The GPU a cell measures: its GPU ends (not CPU, local, peers), "GPU0" or "GPU0->GPU1"."""
    return "->".join(dict.fromkeys(e for e in (c.src, c.dst) if str(e).startswith("GPU"))) or "?"


def _gather(docs):
    paths = {}
    for host, doc in docs:
        for m in doc.metrics:
            key = (m.test, m.size, m.series, m.unit)
            p = paths.setdefault(key, Path(m.test, m.size, m.series, m.unit, []))
            for c in m.cells:
                if c.ok:
                    q = c.qual if c.qual and not c.qual.stale else None
                    p.gpus.append(Gpu(host, _gpu_of(c), c.value, 0.0,
                                      q.limit if q and lpdoc.finite(q.limit) else None,
                                      q.source or "" if q else "", bool(q and q.verdict == "FAIL")))
    return [paths[k] for k in sorted(paths, key=lambda k: (k[0], k[1], k[2]))]


def _judge(p):
    lat = p.unit == lpdoc.LAT
    p.median = statistics.median(g.value for g in p.gpus)
    for g in p.gpus:
        g.good = ((p.median / g.value if lat else g.value / p.median)
                  if g.value > 0 and p.median > 0 else 0.0)
    p.hosts = len({g.host for g in p.gpus})
    p.few = len(p.gpus) < MIN_GPUS
    lims = sorted({(g.limit, g.source) for g in p.gpus if g.limit is not None})
    p.limits = ", ".join(("at most " if lat else "at least ") + lpdoc.fmt_value(x) + (f" ({src})" if src else "")
                         for x, src in lims)
    p.below = [g for g in p.gpus if g.profile_fail]
    if p.few:
        return
    per_host = {}
    for g in p.gpus:
        per_host.setdefault(g.host, []).append(g)
    for h, gs in per_host.items():
        slow = [g for g in gs if g.good < RATIO]
        if len({g.gpu for g in gs}) > 1 and 2 * len({g.gpu for g in slow}) > len({g.gpu for g in gs}):
            p.nodes.append((h, sorted(slow, key=lambda g: g.good), len({g.gpu for g in gs})))
    named = {h for h, _, _ in p.nodes}
    p.slow = sorted((g for g in p.gpus if g.good < RATIO and g.host not in named), key=lambda g: g.good)
    for g in p.gpus:
        g.slow = g.good < RATIO
    p.nodes.sort()


def _verdicts(p):
    u = p.unit
    for h, bad, _n in p.nodes:
        yield (f"gpu_node_slow {h}: {p.name}: {len(bad)} of its GPUs below {RATIO}x the fleet's "
               f"{lpdoc.fmt_value(p.median)} {u}")
    for g in p.slow:
        yield (f"gpu_slow {g.host} {g.gpu}: {p.name} {lpdoc.fmt_value(g.value)} {u}, "
               f"{g.good:.2f}x the fleet's {lpdoc.fmt_value(p.median)}")
    for g in p.below:
        yield (f"gpu_profile {g.host} {g.gpu}: {p.name} {lpdoc.fmt_value(g.value)} {u}, beyond the "
               f"profile's limit {lpdoc.fmt_value(g.limit)}")


def fleet(d):
    """The fleet of directory d (lp-qualify's: d/gpu/*.json, d/gpu.txt), judged."""
    docs, bad = _load(d)
    fl = Fleet(hosts=[h for h, _ in docs], bad=bad, paths=_gather(docs), ran=_ran(d))
    # a host whose lp-gpu ran but whose document is not here: DIR not shared by every node?
    fl.bad += [f"{h}: lp-gpu's exit {rc} but no {os.path.join(d, 'gpu', h + '.json')} (is the run "
               "directory on a filesystem every node shares?)"
               for h, rc in sorted(fl.ran.items()) if rc != 77 and h not in fl.hosts]
    fl.paths = [p for p in fl.paths if p.gpus]
    fl.ngpus = len({(g.host, e) for p in fl.paths for g in p.gpus for e in g.gpu.split("->")})
    for p in fl.paths:
        _judge(p)
        fl.verdicts += list(_verdicts(p))
    return fl


def ran_text(fl):
    """The hosts where lp-gpu found no GPU (exit 77), in words; "" when none."""
    none = sorted(h for h, rc in fl.ran.items() if rc == 77 and h not in fl.hosts)
    return f"{len(none)} host{'s' * (len(none) != 1)} without a GPU (lp-gpu's exit 77)" if none else ""


def report(fl, out):
    print(f"lp-gpu on {len(fl.hosts)} hosts, {fl.ngpus} GPUs; slow: below {RATIO}x the "
          f"fleet's median on a path (latency: above 1/{RATIO}x), judged from {MIN_GPUS} GPUs",
          file=out)
    if ran_text(fl):
        print(f"also: {ran_text(fl)}", file=out)
    for p in fl.paths:
        vals = [g.value for g in p.gpus]
        print(f"{p.name} [{p.unit}]: fleet median {lpdoc.fmt_value(p.median)} over "
              f"{len(p.gpus)} GPUs of {p.hosts} hosts, range {lpdoc.fmt_value(min(vals))}-"
              f"{lpdoc.fmt_value(max(vals))}" + (f"; profile {p.limits}" if p.limits else "")
              + (f"; too few to compare (fewer than {MIN_GPUS})" if p.few else ""), file=out)
        for h, bad, n in p.nodes:
            print(f"  slow node {h}: {len(bad)} of {n} GPUs below {RATIO}x (worst {bad[0].gpu} "
                  f"{lpdoc.fmt_value(bad[0].value)}, {bad[0].good:.2f}x)", file=out)
        for g in p.slow:
            print(f"  slow {g.host} {g.gpu}: {lpdoc.fmt_value(g.value)} {p.unit}, {g.good:.2f}x", file=out)
        for g in p.below:
            print(f"  below the profile {g.host} {g.gpu}: {lpdoc.fmt_value(g.value)} {p.unit} "
                  f"(limit {lpdoc.fmt_value(g.limit)})", file=out)
    for v in fl.verdicts:
        print("verdict: " + v, file=out)
    few = sum(p.few for p in fl.paths)
    print(f"summary: {len(fl.verdicts)} named on {len(fl.paths)} paths"
          + (f"; {few} paths with too few GPUs to compare" if few else ""), file=out)


def write_csv(fl, path):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["test", "size", "series", "unit", "host", "gpu", "value", "fleet_median",
                    "goodness", "slow", "profile_limit", "profile_fail"])
        for p in fl.paths:
            for g in p.gpus:
                w.writerow([p.test, p.size, p.series or "value", p.unit, g.host, g.gpu, f"{g.value:.6g}",
                            f"{p.median:.6g}", f"{g.good:.4f}", int(g.slow),
                            "" if g.limit is None else f"{g.limit:.6g}", int(g.profile_fail)])


def main():
    ap = argparse.ArgumentParser(description="lp-gpu's documents of a fleet, compared")
    ap.add_argument("dir", help="lp-qualify's directory (its gpu/*.json)")
    ap.add_argument("--csv", help="every GPU's row of every path")
    a = ap.parse_args()
    if not os.path.isdir(a.dir):
        raise SystemExit(f"lpgpufleet: {a.dir}: not a directory")
    fl = fleet(a.dir)
    for why in fl.bad:  # a host whose lp-gpu died: named, the others still compared
        print(f"unreadable: {why}")
    if not fl.hosts:
        print(f"lp-gpu on 0 hosts: no document in {a.dir}/gpu" +
              (f" ({ran_text(fl)})" if ran_text(fl) else "" if fl.ran else " (no GPU on any node)"))
        return 1 if fl.bad else 0
    try:
        report(fl, sys.stdout)
        if a.csv:
            write_csv(fl, a.csv)
    except OSError as e:
        raise SystemExit(f"lpgpufleet: {e}") from None
    return 1 if fl.verdicts or fl.bad else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SystemExit as e:
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
            sys.exit(2)
        raise
