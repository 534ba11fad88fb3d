# SPDX-License-Identifier: MIT
"""The tests' views of raw linkperf.sweep/2 documents and journals (docs/schema/README.md): every
attempt of a document or a journal as one dict (with its nodes' names), and the members of
linkperf.sweep/1 that older checks read. Columns are turned back into rows by the product's
reader, plots/lpdoc.py (columns); resolved values come from lpdoc.load, never from here."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "plots"))
from lpdoc import columns as rows  # noqa: E402  (the one columns reader)


def named(d, c):
    c["client_name"] = d["nodes"][c["client"]]["name"]
    c["server_name"] = d["nodes"][c["server"]]["name"]
    c["error"] = c.get("error") or ""
    return c


def cells(d):
    """Every attempt of a document: the blocks' sweep attempts, then the others."""
    out = []
    for b in d["blocks"]:
        k = len(b["nodes"])
        for row, c in rows(b["sweep"]):
            c.update(metric=b["metric"], client=b["nodes"][row // k],
                     server=b["nodes"][row % k], phase="sweep")
            out.append(named(d, c))
    return out + [named(d, c) for _, c in rows(d["attempts"])]


def journal(path):
    """The journal's whole lines as dicts (a line cut short at the end is left out)."""
    out = []
    for line in open(path).read().split("\n"):
        try:
            out.append(json.loads(line))
        except ValueError:
            pass
    return out


def journal_cells(path):
    """Every attempt the journal's round lines hold, with names from its header."""
    recs = journal(path)
    head = recs[0]
    return [named(head, c) for r in recs if r["type"] == "round" for _, c in rows(r["attempts"])]


def legacy_view(d):
    """d with the members of linkperf.sweep/1 that older checks read, added from the /2 ones:
    cells (with test, names and a counters object), verdicts' names, directions and roles,
    metrics' noise and per-node effects, nodes' port members, load matrices and names."""
    nm = [x["name"] for x in d["nodes"]]
    for x in d["nodes"]:
        x.update({k: x["dev"][k] for k in ("device", "link_layer", "gid_type") if k in x["dev"]})
    d["cells"] = cells(d)
    for c in d["cells"]:
        mt = d["metrics"][c["metric"]]
        c.update(test=mt["test"], size=mt["size"], unit=mt["unit"])
        c["counters"] = {"client": c.get("counters_client"), "server": c.get("counters_server")}
    for m, mt in enumerate(d["metrics"]):
        mt["kind"] = "latency" if mt["latency"] else "bandwidth"
        if mt.get("diagnosis"):
            mt["noise"] = mt["diagnosis"]
            eff = mt["effects"]
            mt["nodes"] = [{"node": i, "score_client": eff["score_client"][i],
                            "score_server": eff["score_server"][i]} for i in range(len(nm))]
    for v in d["verdicts"]:
        if v["a"] >= 0 and v["a"] == v["b"]:
            v.update(name=nm[v["a"]], node=v["a"], as_client=bool(v["dirs"] & 1),
                     as_server=bool(v["dirs"] & 2))
        elif v["a"] >= 0 and v["b"] >= 0:
            v.update(nodes=[v["a"], v["b"]], names=[nm[v["a"]], nm[v["b"]]],
                     directions=[[a, b] for bit, a, b in ((1, v["a"], v["b"]), (2, v["b"], v["a"]))
                                 if v["dirs"] & bit])
        for c in v["candidates"]:
            c["name"] = nm[c["node"]]
            c["kind"] = {"client": "node_slow_as_client", "server": "node_slow_as_server",
                         "link": "link_slow"}[c["kind"]]
    for e in d["load"]["latency"]:
        k = len(nm)
        e["label"] = d["metrics"][e["metric"]]["label"]
        flat = dict(rows(e["cells"]))
        for key in ("idle_p50_us", "loaded_p50_us", "idle_p99_us", "loaded_p99_us",
                    "impact_p50", "impact_p99"):
            e[key] = [[flat[a * k + b][key] if a * k + b in flat else None for b in range(k)]
                      for a in range(k)]
        e["nodes"] = [dict(x, node=i, name=nm[i]) for i, x in rows(e["nodes"])]
    for e in d["load"]["incast"]:
        for r in e["receivers"]:
            r["name"] = nm[r["node"]]
            r["victim"] = r["victim_latency"] if r["victim"] >= 0 else None
    return d
