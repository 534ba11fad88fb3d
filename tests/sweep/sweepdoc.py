# SPDX-License-Identifier: MIT
"""linkperf.sweep/2 documents and journals in the tests (docs/schema/README.md): columns turned
back into rows, every attempt of a document or a journal as one dict (with its nodes' names)."""
import json


def rows(cols):
    """[(row, {key: value})] of a columns object (a nested record: a dict of its values)."""
    k = cols["n"]
    index = cols.get("rows", list(range(k)))

    def at(col, i):
        if isinstance(col, list):
            return col[i]
        if isinstance(col, dict) and set(col) == {"at", "values"}:
            return col["values"][col["at"].index(i)] if i in col["at"] else None
        if isinstance(col, dict):
            return {sk: at(sc, i) for sk, sc in col.items()}
        return col

    return [(row, {key: at(c, i) for key, c in cols.items() if key not in ("n", "rows")})
            for i, row in enumerate(index)]


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


def matrix(d, m, key="value"):
    """The resolved matrix of metric m (rows clients), its first block's."""
    b = next(b for b in d["blocks"] if b["metric"] == m)
    k = len(b["nodes"])
    return [b["cells"][key][i * k:(i + 1) * k] for i in range(k)]


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
