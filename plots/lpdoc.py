# SPDX-License-Identifier: MIT
"""lpdoc: the one reader of linkperf result documents for the Python tools (lp-plot, lp-report).

load(path) reads an lp-sweep, lp-rdma or lp-gpu JSON document into one model (Doc), whatever the
schema version it was written with, and raises DocError (one line, exit code 2) for anything that
is not such a document: a missing file, a CSV or journal given instead, truncated JSON, another
tool's JSON, a schema newer than this reader. Consumers never index the JSON themselves.

The model (dataclasses below):
  Doc      the run: tool, nodes, metrics, verdicts, qualification, command line, inventory
  Metric   one test at one size (and rail): its unit, reference, noise and cells
  Cell     one ordered pair of one metric: the resolved value (the one the diagnosis and the
           judge used, after retests), every attempt, its noise, its qualification row
  Cells    an lp-sweep metric's cells, kept as arrays and each Cell made when it is read (a
           1,024-node, 8-rail document has 17 million); Metric.columns() gives the arrays
  Verdict  a named node, link or receiver with its evidence
  Qual     the qualification section the C judge (qual/) wrote: per-cell PASS/FAIL, regressions

Units, one per quantity (docs/METHOD.md): network rates Gb/s, GPU copy rates GB/s, latency us;
sizes print as "64 KiB". The fmt_* functions below are the only number formats the tools show:
no exponent, and "—" (never "nan") for a value that does not exist.
"""
import json
import math
import mmap
import os
import re
from array import array
from dataclasses import dataclass, field
from typing import Optional

EXIT_BAD_INPUT = 2  # usage and bad input, as the C tools (DESIGN.md "Exit codes")

LAT, NET, COPY = "us", "Gb/s", "GB/s"  # latency, network rate, GPU copy rate
DASH = "—"


class DocError(Exception):
    """A document that cannot be read: str(e) is the one line to print, e.code the exit code."""

    def __init__(self, msg, code=EXIT_BAD_INPUT):
        super().__init__(msg)
        self.code = code


# ---- number formats: the one rule ----------------------------------------------------------
def finite(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def fmt_sig(v, sig=3):
    """v with sig significant digits in fixed notation (common/table.c lp_fmt_sig): 0.0607,
    486.8, 28080; never an exponent; "—" when v is missing."""
    if not finite(v):
        return DASH
    if v == 0:
        return "0"
    e = math.floor(math.log10(abs(v)))
    if abs(v) >= 10 ** (e + 1) - 0.5 * 10 ** (e + 1 - sig):
        e += 1  # rounding carries into the next decade
    return f"{v:.{min(max(sig - 1 - e, 0), 30)}f}"


def fmt_value(v, unit=None):
    """A measured value: 4 significant digits below 10,000 (0.06069, 486.8), whole numbers above."""
    s = fmt_sig(v, 4)
    return s if unit is None or s == DASH else f"{s} {unit}"


def fmt_size(n):
    """Bytes as "8 B", "64 KiB", "1.5 MiB" (common/units.c lp_fmt_size)."""
    if not finite(n):
        return DASH
    v, units = float(n), ("B", "KiB", "MiB", "GiB", "TiB")
    u = 0
    while v >= 1024 and u + 1 < len(units):
        v /= 1024
        u += 1
    return f"{v:.0f} {units[u]}" if v == int(v) else f"{v:.1f} {units[u]}"


def fmt_pct(v):
    """A relative change or margin (0.123 -> "+12.3 %")."""
    return f"{100 * v:+.1f} %" if finite(v) else DASH


def fmt_ratio(v):
    return f"{fmt_sig(v, 3)}x" if finite(v) else DASH


def fmt_any(v):
    """A field of an inventory or a table of facts: numbers without exponent, the rest as text."""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return fmt_value(v)
    return DASH if v is None or v == "" else str(v)


# ---- the model -----------------------------------------------------------------------------
@dataclass
class Node:
    index: int
    name: str
    rail: int = 0
    error: Optional[str] = None  # why the node did not take part (failed, absent)
    inventory: dict = field(default_factory=dict)  # scalar facts: host, device, firmware, ...


@dataclass
class Attempt:
    phase: str  # "sweep", "retest" (lp-sweep); "run" (lp-rdma, lp-gpu)
    value: Optional[float]  # in the metric's unit; None when it failed
    error: Optional[str] = None


@dataclass
class QualRow:
    """One cell as the C judge (qual/) recorded it; value, limit and baseline in the cell's unit."""
    verdict: str = "none"  # "PASS", "FAIL", "none"
    value: Optional[float] = None
    limit: Optional[float] = None
    margin: Optional[float] = None
    source: Optional[str] = None
    change: str = ""  # "", "new", "same", "better", "noise", "regression"
    base_value: Optional[float] = None
    base_spread: Optional[float] = None
    delta: Optional[float] = None
    stale: bool = False  # judged on another value than the cell's resolved one (an older judge)


@dataclass
class Cell:
    metric: "Metric"
    src: str  # the data's source end: client (sweep), column (lp-gpu), "" (lp-rdma)
    dst: str
    key: str  # the pair as the C judge names it: "lpnode0>lpnode1", "GPU0<-CPU", "client->server"
    value: Optional[float]  # the resolved value (after retests); None: failed
    attempts: list = field(default_factory=list)
    noise: Optional[float] = None  # relative standard deviation of one measurement of this cell
    ceiling: Optional[float] = None  # the link's theoretical rate, same unit
    error: Optional[str] = None
    qual: Optional[QualRow] = None
    a: Optional[int] = None  # node indices (lp-sweep)
    b: Optional[int] = None

    @property
    def ok(self):
        return finite(self.value)

    @property
    def spread(self):
        """One standard deviation of the value, from the noise field (same unit)."""
        return self.noise * self.value if finite(self.noise) and self.ok else None

    @property
    def pair(self):
        """The pair as people read it: source → destination."""
        return f"{self.src} → {self.dst}" if self.src or self.dst else self.key


@dataclass
class NodeScore:
    node: int
    client: Optional[float]
    server: Optional[float]
    flag_client: bool = False
    flag_server: bool = False
    failed: bool = False


@dataclass
class Metric:
    index: int
    test: str
    size: int
    kind: str  # "latency" or "bandwidth"
    unit: str
    rail: int = 0
    reference: Optional[float] = None
    noise: Optional[float] = None  # relative standard deviation of one cell (the diagnosis's)
    detect_node: Optional[float] = None  # smallest detectable node fault (ratio)
    threshold: Optional[float] = None
    series: str = ""  # lp-gpu: "CPU->GPU", "sum", ... ("" for the one value)
    orientation: str = ""  # what rows and columns are, as the picture should state it
    doc_label: str = ""  # the label the document's verdicts use for this metric
    nodes: list = field(default_factory=list)  # lp-sweep: node indices of its rows and columns (a rail's)
    cells: list = field(default_factory=list)
    scores: list = field(default_factory=list)  # NodeScore per node (lp-sweep)
    slow: set = field(default_factory=set)  # (a, b) cells the diagnosis marked slow

    @property
    def lat(self):
        return self.kind == "latency"

    @property
    def label(self):
        s = f"{self.test} {fmt_size(self.size)}" + (f" {self.series}" if self.series else "")
        return s + (f" rail {self.rail}" if self.rail else "")

    @property
    def slug(self):
        s = f"{self.test}-{self.size}" + (f"-{self.series}" if self.series else "")
        return (s + (f"-rail{self.rail}" if self.rail else "")).replace(">", "").replace("<", "")

    def named_in(self, labels):
        """Whether a verdict's metric labels ("write_bw 64KiB") name this metric."""
        mine = (self.doc_label or self.label).replace(" ", "")
        return any(x.replace(" ", "") == mine for x in labels)

    def columns(self):
        """Its cells as arrays: client, server (node indices) and resolved value (NaN: failed)."""
        if isinstance(self.cells, Cells):
            return self.cells.a, self.cells.b, self.cells.value
        return (array("q", (-1 if c.a is None else c.a for c in self.cells)),
                array("q", (-1 if c.b is None else c.b for c in self.cells)),
                array("d", (c.value if c.ok else math.nan for c in self.cells)))

    def matrix(self):
        """The resolved values over self.nodes (None where not measured or failed), source on rows."""
        pos = {g: i for i, g in enumerate(self.nodes)}
        m = [[None] * len(pos) for _ in pos]
        for a, b, v in zip(*self.columns()):
            m[pos[a]][pos[b]] = v if math.isfinite(v) else None
        return m

    def ok_values(self):
        """The resolved values of the cells that have one, ascending."""
        return sorted(v for v in self.columns()[2] if math.isfinite(v))

    def failed_pairs(self):
        """(a, b) of the cells measured without a value (attempts that failed)."""
        if isinstance(self.cells, Cells):
            return [(a, b) for i, (a, b, v) in enumerate(zip(*self.columns()))
                    if not math.isfinite(v) and self.cells.tried(i)]
        return [(c.a, c.b) for c in self.cells if not c.ok and c.attempts]

    def client_medians(self):
        """node -> the median of its resolved values as client (the upper middle one)."""
        rows = {}
        for a, _b, v in zip(*self.columns()):
            if math.isfinite(v):
                rows.setdefault(a, []).append(v)
        return {a: sorted(r)[len(r) // 2] for a, r in rows.items()}

    def cell_map(self):
        return {(c.a, c.b): c for c in self.cells}


class Cells:
    """An lp-sweep metric's cells as arrays (the standard library's: 8 bytes an entry), one entry
    per measured ordered pair: client and server (node indices), the resolved value (NaN:
    failed) and its sweep attempt; each Cell is made when it is asked for, so a 1,024-node,
    8-rail document holds arrays, not 17 million objects."""

    def __init__(self, metric, doc, a, b, value, sweep, extra):
        self.metric, self.doc = metric, doc
        self.a, self.b, self.value = a, b, value
        self.sweep = sweep  # (per cell: its entry in the sweep columns or -1, value, status, errors)
        self.extra = extra  # (metric, a, b) -> [Attempt]: the attempts section's
        self.kept = {}  # index -> the Cell the qualification section judged (its qual kept)

    def __len__(self):
        return len(self.a)

    def __iter__(self):
        return (self[i] for i in range(len(self.a)))

    def __getitem__(self, i):
        if i in self.kept:
            return self.kept[i]
        m, names = self.metric, self.doc.names
        a, b, v = self.a[i], self.b[i], _num(self.value[i])
        at, sv, ss, serr = self.sweep
        att = []
        if at[i] >= 0:
            ok = ss[at[i]] == 0 and math.isfinite(sv[at[i]])
            att.append(Attempt("sweep", sv[at[i]] if ok else None, serr.get(at[i]) or None))
        att += self.extra.get((m.index, a, b), [])
        errs = [t.error for t in att if t.error]
        return Cell(metric=m, src=names[a], dst=names[b], a=a, b=b, key=f"{names[a]}>{names[b]}",
                    value=v, attempts=att, noise=m.noise, ceiling=_ceiling(self.doc.nodes, a, b),
                    error=None if v is not None else (errs[-1] if errs else "failed"))

    def keep(self, i, cell):
        self.kept[i] = cell

    def tried(self, i):
        """Whether cell i has an attempt (its sweep attempt, or one of the attempts section)."""
        return self.sweep[0][i] >= 0 or (self.metric.index, self.a[i], self.b[i]) in self.extra


class AllCells:
    """The cells of several metrics as one sequence (len and iteration; made as they are read)."""

    def __init__(self, metrics):
        self.metrics = metrics

    def __len__(self):
        return sum(len(m.cells) for m in self.metrics)

    def __iter__(self):
        return (c for m in self.metrics for c in m.cells)


@dataclass
class Verdict:
    kind: str  # node_slow, node_failed, link_slow, link_failed, errors, incast_slow, ...
    who: str  # "lpnode2", "lpnode0 → lpnode2"
    reason: str
    metrics: list = field(default_factory=list)  # metric labels as the document names them
    node: Optional[int] = None  # the node a node verdict names
    nodes: list = field(default_factory=list)  # node indices it names (a link's two ends)
    directions: list = field(default_factory=list)  # (a, b) links it names
    as_client: bool = False
    as_server: bool = False


@dataclass
class Qual:
    verdict: str = "NONE"
    expect: Optional[str] = None
    profiles: Optional[str] = None
    note: Optional[str] = None
    baseline: Optional[dict] = None  # file, regressions, missing, rule, matched, error
    stale: int = 0  # cells judged on another value than their resolved one (an older judge)
    command: Optional[str] = None  # the command line the judge recorded
    bw_unit: str = "GB/s"  # the section's bandwidth unit (its "units")
    npass: int = 0
    nfail: int = 0


@dataclass
class Incast:
    metric: str
    node: int
    name: str
    senders: list  # (name, Gb/s or None, share or None)
    failed: int
    aggregate: Optional[float]
    others: Optional[float]
    jain: Optional[float]
    victim_impact: Optional[float]

    @property
    def jain_why(self):
        """Why there is no Jain index (None when there is one)."""
        if finite(self.jain):
            return None
        live = len(self.senders) - self.failed
        return "every sender failed" if live <= 0 else "one sender measured" if live == 1 else "not recorded"


@dataclass
class LoadLatency:
    metric: Metric
    loaded_by: str
    idle_p99: list  # n x n
    loaded_p99: list
    impact: list  # (node, name, p50, p99, pairs)


@dataclass
class Doc:
    path: str
    tool: str  # lp-sweep, lp-rdma, lp-gpu
    schema: str
    version: str = "?"
    started: Optional[str] = None
    command: Optional[str] = None  # the run's exact command line
    schedule: str = ""
    exit_code: Optional[int] = None
    nodes: list = field(default_factory=list)
    metrics: list = field(default_factory=list)
    verdicts: list = field(default_factory=list)
    qual: Qual = field(default_factory=Qual)
    inventory: list = field(default_factory=list)  # dicts, one per node, port or GPU
    method: dict = field(default_factory=dict)  # text fields of the document's method section
    load_latency: list = field(default_factory=list)
    incast: list = field(default_factory=list)
    counter_nodes: dict = field(default_factory=dict)  # node -> {counter: delta} (error class)
    counter_pairs: dict = field(default_factory=dict)  # (lo, hi) -> error delta of the pair
    notes: list = field(default_factory=list)  # what the reader had to say about the document
    judged_by: Optional[str] = None  # the C judge's command, when lp-report ran it
    thresholds: dict = field(default_factory=dict)  # the diagnosis's (run.diagnosis): impact_max, ...

    @property
    def cells(self):
        """Every metric's cells, one after the other (made as they are read: lp-sweep's are
        arrays, Cells)."""
        return AllCells(self.metrics)

    def judged_cells(self):
        """The cells the qualification section judged (a row each)."""
        return [c for m in self.metrics for c in (
            [m.cells.kept[i] for i in sorted(m.cells.kept)] if isinstance(m.cells, Cells) else m.cells)
            if c.qual]

    def nfailed(self):
        """Cells measured without a value."""
        return sum(1 for m in self.metrics for v in m.columns()[2] if not math.isfinite(v))

    def stale_note(self):
        """Why some recorded verdicts are not shown, and how to judge the document again."""
        if not self.qual.stale:
            return None
        return (f"{self.qual.stale} cell(s) of {self.path} were judged on another value than their "
                "resolved one (the first attempt, before retests: linkperf 0.2 and older); those "
                f"verdicts are not shown. Judge it again: lp-judge {self.path} --json NEW.json, with "
                "the same --expect, floors or --baseline")

    @property
    def names(self):
        return [n.name for n in self.nodes]

    def flagged_nodes(self, metric=None):
        """node index -> short reason for every node a verdict names ("failed", "slow as
        client", "errors"); with a metric, its own flags first and other metrics' verdicts
        say which metric."""
        out = {}
        for s in (metric.scores if metric else []):
            sides = [w for w, f in (("client", s.flag_client), ("server", s.flag_server)) if f]
            if s.failed or sides:
                out[s.node] = "failed" if s.failed else "slow as " + "+".join(sides)
        mine = set(metric.nodes) if metric is not None and metric.nodes else None
        for v in self.verdicts:
            if v.node is None or v.node in out or (mine is not None and v.node not in mine):
                continue
            if v.kind == "node_slow":
                why = "slow as " + "+".join(w for w, f in (("client", v.as_client),
                                                             ("server", v.as_server)) if f)
            else:
                why = "failed" if v.kind == "node_failed" else v.kind.replace("_", " ")
            if metric is not None and v.metrics and not metric.named_in(v.metrics):
                why += " (" + ", ".join(v.metrics) + ")"
            out[v.node] = why
        return out

    def flagged_links(self, metric=None):
        """(a, b) directions a link verdict names (for one metric when given)."""
        return {d for v in self.verdicts if v.kind in ("link_slow", "link_failed")
                and (metric is None or metric.named_in(v.metrics)) for d in v.directions}

    def flagged_ends(self):
        """Every node a verdict names, and both ends of every flagged link: what every picture
        must label."""
        return set(self.flagged_nodes()) | {i for d in self.flagged_links() for i in d}


# ---- reading -------------------------------------------------------------------------------
def _num(v):
    return float(v) if finite(v) else None


def _at(o, path):
    for k in path.split("."):
        o = o.get(k) if isinstance(o, dict) else None
    return _num(o)


def _scalars(o, keys=None):
    return {k: v for k, v in o.items() if (keys is None or k in keys)
            and not isinstance(v, (dict, list))}


def _flat(o, prefix=""):
    """An inventory record's facts as one level: nested records as "vpd.serial", lists of
    scalars joined; empty strings and zero ids left out."""
    out = {}
    for k, v in o.items():
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}."))
        elif isinstance(v, list):
            if v and all(not isinstance(x, (dict, list)) for x in v):
                out[prefix + k] = ", ".join(map(str, v))
        elif v not in ("", None):
            out[prefix + k] = v
    return out


def _text(path):
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        raise DocError(f"{path}: no such file")
    except IsADirectoryError:
        raise DocError(f"{path}: a directory, not a JSON document")
    except OSError as e:
        raise DocError(f"{path}: {e.strerror}")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise DocError(f"{path}: not a JSON document (not UTF-8 text at byte {e.start})")


def _parse(path, text):
    """The JSON value, or a DocError that says what the file looks like instead."""
    try:
        return json.loads(text)
    except ValueError as e:
        pos = getattr(e, "pos", 0)
        first = text.lstrip().split("\n", 1)[0]
        if not text.strip():
            raise DocError(f"{path}: empty file, not a JSON document")
        if "Extra data" in str(e) and first.startswith("{"):
            raise DocError(f"{path}: one JSON object per line (an lp-sweep journal?): "
                           f"lp-sweep --diagnose {path} --json RUN.json writes its document")
        lines = text.lstrip().split("\n", 2)
        if len(lines) > 1 and first.count(",") >= 2 and first.count(",") == lines[1].count(","):
            raise DocError(f"{path}: CSV, not a JSON document (lp-sweep --json writes the document; "
                           "--csv only the tables)")
        if pos >= len(text.rstrip()):
            raise DocError(f"{path}: truncated JSON (it ends inside the document: {e.msg})")
        raise DocError(f"{path}: not valid JSON: {e.msg} at line {e.lineno} column {e.colno}")


# ---- an lp-sweep document read apart --------------------------------------------------------
# A 1,024-node, 8-rail document is 2.7 GB of JSON, nearly all of it the blocks' columns: parsed
# whole, it takes some 30 bytes of Python objects per number. It is read as the C reader does
# (sweep/readspan.c): the file mapped, the top level walked as spans of text, every member but
# "blocks" parsed as it is, and of each block's cells and sweep attempts only the columns a Cell
# needs, straight into arrays; the pages of each block handed back once it is read. Where the
# text does not come apart, the whole of it goes to json, whose word on a broken file is the error.
_WS = re.compile(rb"[ \t\r\n]*")
_STR = re.compile(rb'"(?:[^"\\]|\\.)*"')
_BRACKET = re.compile(rb'[\[\]{}"]')
_SCALAR_END = re.compile(rb"[,}\]\s]")
APART_COLUMNS = {"cells": ("n", "rows", "value", "class"), "sweep": ("n", "rows", "value", "status", "error")}


class _Apart(Exception):
    """The text does not come apart here."""


def _ws(buf, i):
    return _WS.match(buf, i).end()


def _skip(buf, i):
    """The end of the JSON value at buf[i] (what is read of it, json checks)."""
    c = buf[i:i + 1]
    if c == b'"':
        m = _STR.match(buf, i)
        if not m:
            raise _Apart(i)
        return m.end()
    if c not in (b"[", b"{"):
        m = _SCALAR_END.search(buf, i)
        if not m or m.start() == i:
            raise _Apart(i)
        return m.start()
    depth = 0
    while True:
        m = _BRACKET.search(buf, i)
        if not m:
            raise _Apart(i)
        ch = buf[m.start():m.end()]
        if ch == b'"':
            i = _skip(buf, m.start())
            continue
        depth += 1 if ch in (b"[", b"{") else -1
        i = m.end()
        if depth == 0:
            return i


def _spans(buf, i, obj, inline=None):
    """[(key, start, end)] of the members of the object at buf[i] (obj), or [(None, start, end)]
    of the items of the array there; and where it ends. inline: {key: read(buf, start) -> end},
    members read as the walk meets them (not walked first)."""
    close = b"}" if obj else b"]"
    if buf[i:i + 1] != (b"{" if obj else b"["):
        raise _Apart(i)
    out, i = [], _ws(buf, i + 1)
    if buf[i:i + 1] == close:
        return out, i + 1
    while True:
        key = None
        if obj:
            e = _skip(buf, i)
            key = json.loads(buf[i:e])
            i = _ws(buf, e)
            if buf[i:i + 1] != b":":
                raise _Apart(i)
            i = _ws(buf, i + 1)
        e = inline[key](buf, i) if inline and key in inline else _skip(buf, i)
        out.append((key, i, e))
        i = _ws(buf, e)
        if buf[i:i + 1] == b",":
            i = _ws(buf, i + 1)
        elif buf[i:i + 1] == close:
            return out, i + 1
        else:
            raise _Apart(i)


def _columns_apart(buf, i, keep):
    """A columns object, only the keep columns, numbers as arrays."""
    out = {}
    for k, s, e in _spans(buf, i, True)[0]:
        if k in keep:
            out[k] = json.loads(buf[s:e])
    for k in ("value", "status"):
        if isinstance(out.get(k), list):
            out[k] = _floats(out, k)
    if isinstance(out.get("class"), list):
        out["class"] = _classes(out)
    return out


def _block_apart(buf, s, mm, blocks):
    """The block at buf[s] onto blocks, its pages handed back; where it ends."""
    blk = {}
    members, e = _spans(buf, s, True)
    for k, a, b in members:
        blk[k] = _columns_apart(buf, a, APART_COLUMNS[k]) if k in APART_COLUMNS else json.loads(buf[a:b])
    blocks.append(blk)
    _drop(mm, s, e)
    return e


def _sweep_apart(buf, mm):
    """The document's members, its blocks' columns those a Cell needs; None: not an lp-sweep/2
    document (read whole)."""
    blocks = []

    def read_blocks(buf, i):  # each block as the walk meets it, its pages then handed back
        return _spans(buf, i, False, {None: lambda buf, s: _block_apart(buf, s, mm, blocks)})[1]

    members, end = _spans(buf, _ws(buf, 0), True, {"blocks": read_blocks})
    top = {k: (s, e) for k, s, e in members}
    if _ws(buf, end) != len(buf) or len(top) != len(members) or "blocks" not in top:
        raise _Apart(end)  # something after the document, a duplicate key: json says
    head = {k: json.loads(buf[s:e]) for k, (s, e) in top.items() if k in ("tool", "schema")}
    if (head.get("tool"), head.get("schema")) != ("lp-sweep", "linkperf.sweep/2"):
        return None
    d = {k: json.loads(buf[s:e]) for k, (s, e) in top.items() if k != "blocks"}
    d["blocks"] = blocks
    return d


def _drop(mm, s, e):
    """The pages of the mapping behind [s, e) handed back (read again from the file if touched)."""
    page = s - s % mmap.PAGESIZE
    mm.madvise(mmap.MADV_DONTNEED, page, e - page)


def _load_apart(path):
    """An lp-sweep/2 document read apart; None when it is not one or does not come apart."""
    try:
        with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            return _sweep_apart(mm, mm)
    except (OSError, ValueError, _Apart, UnicodeDecodeError, KeyError, TypeError):
        return None


def load(path):
    """The document at path as a Doc; DocError for anything else."""
    d = _load_apart(path)
    if d is None:
        d = _parse(path, _text(path))
    if not isinstance(d, dict):
        raise DocError(f"{path}: not a linkperf result (a JSON {type(d).__name__}, not an object)")
    tool, schema = d.get("tool"), d.get("schema")
    reader = READERS.get((tool, schema))
    if reader is None:
        known = sorted({t for t, _ in READERS})
        if tool not in known:
            raise DocError(f"{path}: not a linkperf result (\"tool\" is {json.dumps(tool)}; "
                           f"want {', '.join(known)})")
        want = ", ".join(s or "unversioned" for t, s in READERS if t == tool)
        raise DocError(f"{path}: {tool} schema {json.dumps(schema)} is not one this reader knows "
                       f"({want}); a newer linkperf wrote it?")
    doc = Doc(path=path, tool=tool, schema=schema or "")
    try:
        reader(d, doc)
        _common(d, doc)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
        raise DocError(f"{path}: not a valid {schema or tool} document ({type(e).__name__}: {e})")
    return doc


def _common(d, doc):
    meth = d.get("method") or {}
    doc.version = str(meth.get("linkperf_version") or "?")
    doc.method = {k: v for k, v in meth.items() if isinstance(v, str)}
    doc.started = (d.get("run") or {}).get("started") or (d.get("host") or {}).get("time")
    doc.thresholds = {k: v for k, v in ((d.get("run") or {}).get("diagnosis") or {}).items() if finite(v)}
    q = d.get("qualification") or {}
    cmd = d.get("command") or (d.get("run") or {}).get("command")
    if not cmd and q.get("tool", doc.tool) == doc.tool:
        cmd = q.get("command")  # the tool judged its own run: its command line (linkperf 0.2)
    doc.command = _command(cmd)
    rc = d.get("exit_code")
    doc.exit_code = rc if isinstance(rc, int) else None
    if q:
        _qual(q, doc)


def _command(cmd):
    """A recorded command line (a string, or argv as a list) as one string; None when absent."""
    return " ".join(map(str, cmd)) if isinstance(cmd, list) and cmd else cmd if isinstance(cmd, str) and cmd else None


def columns(cols):
    """The rows of a columns object (docs/schema/README.md): [(row index, {key: value})]. A column
    is a list, one value for every row, a sparse {"at", "values"}, or a nested record's columns."""
    if isinstance(cols, list):  # rows already (linkperf.sweep/1, older sections)
        return list(enumerate(cols))
    n = cols["n"]
    index = cols.get("rows") or range(n)

    def at(col, i):
        if isinstance(col, list):
            return col[i]
        if isinstance(col, dict) and set(col) == {"at", "values"}:
            return col["values"][col["at"].index(i)] if i in col["at"] else None
        if isinstance(col, dict):
            return {k: at(c, i) for k, c in col.items()}
        return col
    return [(r, {k: at(c, i) for k, c in cols.items() if k not in ("n", "rows")})
            for i, r in enumerate(index)]


def _qual(q, doc):
    """The qualification section the C judge wrote: its verdicts onto the cells (matched by test,
    size and pair), values in the cells' units."""
    cmd = q.get("command")
    doc.qual = Qual(verdict=q.get("verdict") or "NONE", expect=q.get("expect") or None,
                    profiles=q.get("profiles") or None, note=q.get("note") or None,
                    npass=q.get("pass") or 0, nfail=q.get("fail") or 0, command=_command(cmd))
    if isinstance(q.get("baseline"), dict):
        doc.qual.baseline = dict(q["baseline"])
    rules = q.get("rules") or []
    doc.qual.bw_unit = bw_unit = "Gb/s" if re.search(r"bandwidth Gb/s", q.get("units") or "") else "GB/s"
    by = {}
    for m in doc.metrics:  # a test run twice at one size is two cells of one key, matched in order
        for i, c in enumerate(m.cells):
            by.setdefault((m.test, m.size, c.key), []).append((m, i, c))
    for _i, x in columns(q.get("cells") or []):
        same = by.get((x.get("test"), x.get("size"), x.get("pair")))
        if not same:
            continue
        m, i, c = same.pop(0)
        if isinstance(m.cells, Cells):
            m.cells.keep(i, c)
        unit = x.get("unit") or (LAT if x.get("kind") == "latency" else bw_unit)
        scale = _scale(unit, c.metric.unit)
        sv = (lambda v: v * scale if finite(v) else None)
        rule = x.get("rule")
        source = x.get("source") or (rules[rule].get("source") if isinstance(rule, int) and
                                     0 <= rule < len(rules) else None)
        c.qual = QualRow(verdict=x.get("verdict") or "none", value=sv(x.get("value")),
                         limit=sv(x.get("limit")), margin=_num(x.get("margin")), source=source,
                         change=(x.get("change") or "").replace("none", ""),
                         base_value=sv(x.get("baseline_value")),
                         base_spread=sv(x.get("baseline_spread")), delta=_num(x.get("delta")))
        c.qual.stale = not same_value(c.qual.value, c.value)
    doc.qual.stale = sum(1 for c in doc.judged_cells() if c.qual.stale)


def same_value(x, y):
    """Whether two readings of one value agree (up to the digits a document keeps)."""
    if not finite(x) or not finite(y):
        return finite(x) == finite(y)
    return abs(x - y) <= 1e-9 * max(abs(x), abs(y))


def qual_scale(doc, kind, unit):
    """Factor from the qualification section's unit of a kind ("bandwidth", "latency") to unit."""
    if kind == "latency":
        return 1.0
    return _scale(doc.qual.bw_unit, unit)


def _scale(unit_from, unit_to):
    if unit_from == unit_to or unit_from is None:
        return 1.0
    table = {("GB/s", "Gb/s"): 8.0, ("Gb/s", "GB/s"): 1 / 8, ("ns", "us"): 1e-3, ("us", "ns"): 1e3}
    return table[(unit_from, unit_to)]


# lp-sweep, linkperf.sweep/1 ------------------------------------------------------------------
INVENTORY_SWEEP = ("name", "host", "device", "port", "link_layer", "rate_gbps", "speed", "width",
                   "firmware", "gid_type", "gid", "mtu", "netdev", "numa_node", "mem", "gpu",
                   "kernel", "node_guid", "port_guid", "lid", "part_number", "psid", "serial",
                   "pcie", "switch", "switch_port")


def _sweep1(d, doc):
    doc.schedule = (d.get("schedule") or {}).get("kind", "")
    for x in d["nodes"]:
        doc.nodes.append(Node(index=x["index"], name=x["name"], rail=x.get("rail") or 0,
                              error=x.get("error"), inventory=_scalars(x, INVENTORY_SWEEP)))
    doc.inventory = [n.inventory for n in doc.nodes]
    names = doc.names
    attempts = {}
    for c in d.get("cells", []):
        if c.get("phase") in ("sweep", "retest"):
            ok = c.get("status") == 0 and finite(c.get("value"))
            attempts.setdefault((c["metric"], c["client"], c["server"]), []).append(
                Attempt(c["phase"], _num(c["value"]) if ok else None, c.get("error")))
    for x in d["metrics"]:
        m = Metric(index=x["index"], test=x["test"], size=x["size"], kind=x["kind"],
                   unit=LAT if x["kind"] == "latency" else NET,
                   reference=_num(x.get("reference")), threshold=_num(x.get("threshold_ratio")),
                   orientation=_orientation(x["test"]))
        m.doc_label = x.get("label") or m.label
        noise = x.get("noise") or {}
        # noise.cv since 0.2; sigma_log and sigma (0.1) are the same relative spread
        m.noise = _num(noise.get("cv"))
        m.noise = m.noise if m.noise is not None else _num(x.get("sigma_log", x.get("sigma")))
        m.detect_node = _num(noise.get("min_detectable_node"))
        cls, mat, n = x.get("cell_class") or [], x["matrix"], len(names)
        if len(mat) != n or any(len(row) != n for row in mat):
            raise ValueError(f"metric {m.index}: the matrix is not {n} x {n}")
        m.nodes = list(range(n))
        where = {(a, b) for (k, a, b) in attempts if k == m.index}
        where |= {(a, b) for a, row in enumerate(mat) for b, v in enumerate(row) if v is not None}
        for a, b in sorted(where):
            v, att = mat[a][b], attempts.get((m.index, a, b), [])
            if a == b:
                continue
            errs = [t.error for t in att if t.error]
            m.cells.append(Cell(metric=m, src=names[a], dst=names[b], a=a, b=b,
                                key=f"{names[a]}>{names[b]}", value=_num(v), attempts=att,
                                noise=m.noise, ceiling=_ceiling(doc.nodes, a, b),
                                error=None if finite(v) else (errs[-1] if errs else "failed")))
            if a < len(cls) and b < len(cls[a]) and cls[a][b] == "slow":
                m.slow.add((a, b))
        m.scores = [NodeScore(node=s["node"], client=_num(s.get("score_client")),
                              server=_num(s.get("score_server")), flag_client=bool(s.get("flag_client")),
                              flag_server=bool(s.get("flag_server")), failed=bool(s.get("flag_failed")))
                    for s in x.get("nodes", [])]
        doc.metrics.append(m)
    doc.verdicts = [_verdict(v, names) for v in d.get("verdicts", [])]
    _load1(d.get("load") or {}, doc)
    _counters1(d.get("counter_sums") or {}, doc)


# lp-sweep, linkperf.sweep/2: records, large lists as columns (docs/schema/README.md) --------------
def _sweep2(d, doc):
    run = d["run"]
    doc.schedule = run.get("schedule") or ""
    for i, x in enumerate(d["nodes"]):
        inv = {"name": x["name"], "host": x.get("host")}
        inv.update(_flat(x.get("dev") or {}))
        inv.update(_flat({k: v for k, v in x.items() if k not in ("name", "host", "dev", "status", "error")}))
        doc.nodes.append(Node(index=i, name=x["name"], rail=x.get("rail") or 0,
                              error=x.get("error") or None, inventory=inv))
    doc.inventory = [n.inventory for n in doc.nodes]
    names, n = doc.names, len(doc.nodes)
    attempts = {}
    for _r, a in _attempt_rows(d.get("attempts") or {"n": 0}, ("metric", "client", "server", "phase")):
        if a["phase"] in ("sweep", "retest"):
            attempts.setdefault((a["metric"], a["client"], a["server"]), []).append(_attempt(a))
    mets = d["metrics"]
    for blk in d["blocks"]:
        x = mets[blk["metric"]]
        dg = x.get("diagnosis") or {}
        m = Metric(index=blk["metric"], test=x["test"], size=x["size"],
                   kind="latency" if x["latency"] else "bandwidth", unit=LAT if x["latency"] else NET,
                   rail=blk.get("rail") or 0, reference=_num(dg.get("reference")),
                   threshold=_num(dg.get("threshold_ratio")), detect_node=_num(dg.get("min_detectable_node")),
                   doc_label=x.get("label") or "", orientation=_orientation(x["test"]))
        m.noise = _num(dg.get("cv"))
        if m.noise is None and finite(dg.get("sigma_log")):
            m.noise = math.expm1(dg["sigma_log"])
        m.nodes = list(blk["nodes"])
        m.cells, slow = _block_cells(blk, m, doc, attempts)
        m.slow = set(slow)
        eff = x.get("effects")
        if eff:
            for i, e in columns(dict(eff, n=n)):
                f = e.get("flags") or 0
                if e.get("measured_as_client") or e.get("measured_as_server") or f:
                    m.scores.append(NodeScore(node=i, client=_num(e.get("score_client")),
                                              server=_num(e.get("score_server")), flag_client=bool(f & 1),
                                              flag_server=bool(f & 2), failed=bool(f & 4)))
        doc.metrics.append(m)
    doc.verdicts = [_verdict2(v, names) for v in d.get("verdicts", [])]
    _label_verdicts(doc)
    _load2(d.get("load") or {}, doc)
    for x in d.get("counter_sums") or []:
        if x["class"] == "error":
            per = doc.counter_nodes.setdefault(x["on"], {})
            per[x["name"]] = per.get(x["name"], 0) + x["delta"]
            key = (x["lo"], x["hi"])
            doc.counter_pairs[key] = doc.counter_pairs.get(key, 0) + x["delta"]


CLASSES = ("none", "ok", "slow", "fail")  # a resolved cell's class (lp_sweep_class_names)


def _floats(cols, key):
    """A column of numbers as an array of doubles (null: NaN; one value: repeated)."""
    c = cols.get(key)
    if isinstance(c, array):
        return c
    if isinstance(c, list):
        return array("d", (math.nan if v is None else v for v in c))
    return array("d", [math.nan if c is None else float(c)]) * cols["n"]


def _rows(cols):
    """The row index of each entry of a columns object."""
    r = cols.get("rows")
    return range(cols["n"]) if r is None else r


def _classes(cols):
    """The "class" column as codes into CLASSES."""
    c = cols.get("class")
    if isinstance(c, (bytes, bytearray)):
        return c
    code = {k: i for i, k in enumerate(CLASSES)}
    return bytes(code[x] for x in c) if isinstance(c, list) else bytes([code[c]]) * cols["n"]


def _sparse(cols, key):
    """A sparse column ({"at", "values"}), or a full one, as {entry: value} of the set entries."""
    c = cols.get(key)
    if isinstance(c, dict):
        return dict(zip(c["at"], c["values"]))
    if isinstance(c, list):
        return {i: v for i, v in enumerate(c) if v}
    return {i: c for i in range(cols["n"])} if c else {}


def _block_cells(blk, m, doc, attempts):
    """A block's measured cells (class not none, not a self pair) as Cells, and the slow ones'
    (a, b)."""
    bn, cc = blk["nodes"], blk["cells"]
    k = len(bn)
    cls, val = _classes(cc), _floats(cc, "value")
    sw = blk.get("sweep") or {"n": 0}
    entry = {r: i for i, r in enumerate(_rows(sw))}  # each cell's sweep attempt, by its row
    a, b, v, at, slow = array("q"), array("q"), array("d"), array("q"), []
    for i, r in enumerate(_rows(cc)):
        x, y = bn[r // k], bn[r % k]
        if cls[i] == 0 or x == y:
            continue
        a.append(x)
        b.append(y)
        v.append(val[i])
        at.append(entry.get(r, -1))
        if cls[i] == 2:
            slow.append((x, y))
    sweep = (at, _floats(sw, "value"), _floats(sw, "status"), _sparse(sw, "error"))
    return Cells(m, doc, a, b, v, sweep, attempts), slow


def column(cols, key):
    """One column of a columns object as a list of its n entries (a single value repeated, a
    sparse column filled with None)."""
    n, c = cols["n"], cols.get(key)
    if isinstance(c, list):
        return c
    if isinstance(c, dict) and set(c) == {"at", "values"}:
        out = [None] * n
        for i, v in zip(c["at"], c["values"]):
            out[i] = v
        return out
    return [c] * n


def _attempt_rows(cols, keys=()):
    """(row, {metric, client, server, phase, value, status, error}) of an attempts columns object,
    the few fields a cell needs (an attempt has some twenty)."""
    keys = tuple(keys) + ("value", "status", "error")
    cs = [column(cols, k) if k in cols else [None] * cols["n"] for k in keys]
    rows = cols.get("rows") or range(cols["n"])
    return [(rows[i], dict(zip(keys, vals))) for i, vals in enumerate(zip(*cs))]


def _attempt(a, phase=None):
    ok = a.get("status") == 0 and finite(a.get("value"))
    return Attempt(phase or a["phase"], _num(a["value"]) if ok else None, a.get("error") or None)


def _orientation(test):
    if test.startswith("read"):
        return "rows: client, columns: server (a read's data flows server → client)"
    return "rows: source (client), columns: destination (server)"


def _verdict2(v, names):
    """A verdict record: a == b names a node (dirs: 1 as client, 2 as server, 4 failed); a link a
    < b (dirs: 1 a -> b, 2 b -> a); a pair; or nothing (a = -1)."""
    a, b, dirs = v.get("a", -1), v.get("b", -1), v.get("dirs") or 0
    link = v["kind"].startswith("link")
    node = a if a >= 0 and a == b else None
    directions = ([(a, b)] if dirs & 1 else []) + ([(b, a)] if dirs & 2 else []) if link else []
    who = names[node] if node is not None else \
        ", ".join(f"{names[x]} → {names[y]}" for x, y in directions) if directions else \
        f"{names[a]} ↔ {names[b]}" if a >= 0 and b >= 0 else ""
    return Verdict(kind=v["kind"], who=who, reason=v.get("reason", ""),
                   metrics=[x for x in (v.get("metrics") or "").split(",") if x], node=node,
                   nodes=[x for x in (a, b) if x >= 0] if node is None else [node],
                   directions=directions, as_client=bool(node is not None and dirs & 1),
                   as_server=bool(node is not None and dirs & 2))


def _label_verdicts(doc):
    """Verdicts name metrics as this reader labels them ("write_bw 64 KiB"; with rails, the block
    of the rail the verdict's nodes are on: "write_bw 64 KiB rail 1", not the last rail's)."""
    ours = {m.doc_label.replace(" ", ""): m.label for m in doc.metrics}
    by_rail = {(m.doc_label.replace(" ", ""), m.rail): m.label for m in doc.metrics}
    for v in doc.verdicts:
        rails = {doc.nodes[x].rail for x in v.nodes if 0 <= x < len(doc.nodes)}
        rail = rails.pop() if len(rails) == 1 else None
        v.metrics = [by_rail.get((x.replace(" ", ""), rail), ours.get(x.replace(" ", ""), x))
                     for x in v.metrics]
    return ours


def _load2(ld, doc):
    names, n = doc.names, len(doc.nodes)
    by = {m.index: m for m in doc.metrics}
    for e in ld.get("latency", []):
        idle, loaded = ([[None] * n for _ in range(n)] for _k in range(2))
        for r, c in columns(e["cells"]):
            a, b = divmod(r, n)
            idle[a][b], loaded[a][b] = _num(c.get("idle_p99_us")), _num(c.get("loaded_p99_us"))
        lb = by.get(e.get("loaded_by"))
        doc.load_latency.append(LoadLatency(
            metric=by[e["metric"]], loaded_by=lb.label if lb else str(e.get("loaded_by")),
            idle_p99=idle, loaded_p99=loaded,
            impact=[(i, names[i], _num(x.get("impact_p50")), _num(x.get("impact_p99")), x.get("pairs"))
                    for i, x in columns(e["nodes"]) if x.get("pairs")]))
    for e in ld.get("incast", []):
        label = by[e["metric"]].label
        for r in e["receivers"]:
            doc.incast.append(Incast(
                metric=label, node=r["node"], name=names[r["node"]], failed=r.get("failed") or 0,
                senders=[(names[s["node"]], _num(s.get("gbits_s")) if s.get("status") == 0 else None,
                          _num(s.get("share"))) for s in r["senders"]],
                aggregate=_num(r.get("aggregate_gbits_s")), others=_num(r.get("others_median_gbits_s")),
                jain=_num(r.get("jain")), victim_impact=_at(r, "victim_latency.impact_p50")))


def _ceiling(nodes, a, b):
    r = [n.inventory.get("rate_gbps") for n in (nodes[a], nodes[b])]
    return min(r) if all(finite(x) and x > 0 for x in r) else None


def _verdict(v, names):
    node = v.get("node") if isinstance(v.get("node"), int) else None
    nodes = [node] if node is not None else list(v.get("nodes") or [])
    dirs = [tuple(x) for x in v.get("directions") or []]
    who = v.get("name") or ", ".join(f"{names[a]} → {names[b]}" for a, b in dirs) \
        or " ↔ ".join(names[i] for i in nodes)
    mets = v.get("metrics") or ""
    return Verdict(kind=v["kind"], who=who or "", reason=v.get("reason", ""),
                   metrics=[s for s in mets.split(",") if s] if isinstance(mets, str) else list(mets),
                   node=node, nodes=nodes, directions=dirs, as_client=bool(v.get("as_client")),
                   as_server=bool(v.get("as_server")))


def _load1(ld, doc):
    ours = _label_verdicts(doc)
    for e in ld.get("latency", []):
        m = doc.metrics[e["metric"]]
        by = e.get("loaded_by") or ""
        doc.load_latency.append(LoadLatency(
            metric=m, loaded_by=ours.get(by.replace(" ", ""), by), idle_p99=e["idle_p99_us"],
            loaded_p99=e["loaded_p99_us"],
            impact=[(x["node"], x["name"], _num(x.get("impact_p50")), _num(x.get("impact_p99")),
                     x.get("pairs")) for x in e["nodes"]]))
    for e in ld.get("incast", []):
        label = doc.metrics[e["metric"]].label
        for r in e["receivers"]:
            doc.incast.append(Incast(
                metric=label, node=r["node"], name=r["name"], failed=r.get("failed") or 0,
                senders=[(s["name"], _num(s.get("gbits_s")), _num(s.get("share"))) for s in r["senders"]],
                aggregate=_num(r.get("aggregate_gbits_s")), others=_num(r.get("others_median_gbits_s")),
                jain=_num(r.get("jain")), victim_impact=_at(r, "victim.impact_p50")))


def _counters1(sums, doc):
    for x in sums.get("nodes", []):
        for c in x["moved"]:
            if c["class"] == "error":
                doc.counter_nodes.setdefault(x["node"], {})[c["name"]] = c["delta"]
    for x in sums.get("links", []):
        total = sum(c["delta"] for c in x["moved"] if c["class"] == "error")
        if total:
            doc.counter_pairs[tuple(sorted(x["nodes"]))] = total


# lp-rdma (one client-server pair; results per test and size) --------------------------------
def _rdma(d, doc):
    """linkperf.rdma/1 and /2: one result per test and size; bandwidth per direction with
    --bidirectional (the C judge's pairs: "", client->server, server->client, sum)."""
    client, server = (d.get("host") or {}).get("host") or "client", d.get("server") or "server"
    ends = {"": (client, server), "client->server": (client, server),
            "server->client": (server, client), "sum": (client, server)}
    dirs = (("bandwidth", ""), ("client_to_server", "client->server"),
            ("server_to_client", "server->client"), ("sum", "sum"))
    metrics = {}
    for r in d.get("results", []):
        test, size, ok = r.get("test", ""), r.get("size"), r.get("status") == "ok"
        lat = "_lat" in test
        ceil = _at(r, "link_rate_gbps")
        keys = [("latency_us", "")] if lat else \
            [x for i, x in enumerate(dirs) if (isinstance(r.get(x[0]), dict) if ok else i == 0)]
        for key, pair in keys:
            m = metrics.get((test, size, pair))
            if m is None:
                m = metrics[(test, size, pair)] = Metric(
                    index=len(metrics), test=test, size=int(size), kind="latency" if lat else "bandwidth",
                    unit=LAT if lat else NET, series=pair.replace("->", "→"),
                    orientation="client → server")
            v, sd = (_at(r, "latency_us.p50"), _at(r, "latency_us.stdev")) if lat else \
                (_at(r, key + ".gbytes_per_s"), None)
            v = (v if lat else v * 8) if ok and v is not None else None
            src, dst = ends[pair]
            m.cells.append(Cell(metric=m, src=src, dst=dst, key=pair, value=v,
                                attempts=[Attempt("run", v, r.get("error") or None)],
                                noise=sd / v if finite(sd) and finite(v) and v else None,
                                ceiling=(2 * ceil if pair == "sum" else ceil) if finite(ceil) and not lat else None,
                                error=None if ok else (r.get("error") or r.get("status"))))
    doc.metrics = list(metrics.values())
    for side, who in (("local_device", client), ("remote_device", server)):
        if isinstance(d.get(side), dict):
            row = {"side": side.split("_")[0], "host": who}
            row.update(_flat(d[side]))
            doc.inventory.append(row)


# lp-gpu (one node; a GPU x GPU matrix per test, size and series) -----------------------------
def _gpu(d, doc):
    for r in d.get("results", []):
        unit = r.get("unit", "")
        lat = unit in ("ns", "us")
        scale = _scale(unit, LAT) if lat else 1.0
        for s in r.get("series", []):
            label = s.get("label", "")
            m = Metric(index=len(doc.metrics), test=r.get("test", ""), size=int(r.get("size") or 0),
                       kind="latency" if lat else "bandwidth", unit=LAT if lat else COPY,
                       series="" if label == "value" else label,
                       orientation="rows: source, columns: destination (data flows row → column)")
            for c in s.get("cells", []):
                ok = c.get("status") == "ok"
                v = _at(c, "median")
                v = v * scale if ok and v is not None else None
                lo, hi = _at(c, "min"), _at(c, "max")
                frm, to = c.get("from", c.get("column", "")), c.get("to", c.get("row", ""))
                m.cells.append(Cell(
                    metric=m, src=frm, dst=to, value=v,
                    key=f"{to}<-{frm}" + ("" if label == "value" else " " + label),
                    attempts=[Attempt("run", v, c.get("error"))],
                    noise=(hi - lo) / 2 * scale / v if v and lo is not None and hi is not None else None,
                    ceiling=_at(c, "ceiling"), error=None if ok else (c.get("reason") or c.get("status"))))
            doc.metrics.append(m)
    host, drv = d.get("host") or {}, d.get("driver") or {}
    for g in d.get("gpus", []):
        row = {"host": host.get("host"), "kernel": host.get("kernel")}
        row.update(_scalars(g))
        pcie = g.get("pcie") or {}
        row["pcie"] = f"Gen{pcie['current_gen']} x{pcie['current_width']}" if "current_gen" in pcie else None
        row["nvlinks"] = (g.get("nvlink") or {}).get("links")
        row.update(_scalars(drv))
        doc.inventory.append(row)
    rc = d.get("exit_code")
    doc.exit_code = rc if isinstance(rc, int) else None


READERS = {
    ("lp-sweep", "linkperf.sweep/1"): _sweep1,
    ("lp-sweep", "linkperf.sweep/2"): _sweep2,
    ("lp-rdma", None): _rdma,
    ("lp-rdma", "linkperf.rdma/2"): _rdma,
    ("lp-gpu", None): _gpu,
    ("lp-gpu", "linkperf.gpu/2"): _gpu,
}


# ---- comparing two runs as distributions ----------------------------------------------------
def quantile(vals, q):
    """The nearest-rank quantile of a sorted list, as the C judge computes it
    (common/stats.c lp_percentile_sorted); None when empty."""
    if not vals:
        return None
    return vals[min(max(math.ceil(q * len(vals)), 1), len(vals)) - 1]


def distribution(metric):
    """median, p5, p95 and the count of a metric's resolved values."""
    vals = metric.ok_values()
    return {"n": len(vals), "p5": quantile(vals, 0.05), "median": quantile(vals, 0.5),
            "p95": quantile(vals, 0.95), "values": vals}


def metric_key(m):
    return (m.test, m.size, m.series, m.rail)


def common_metrics(a, b):
    """(metric of a, metric of b) for every test, size and series both runs measured."""
    mb = {metric_key(m): m for m in b.metrics}
    return [(m, mb[metric_key(m)]) for m in a.metrics if metric_key(m) in mb]


def here():
    return os.path.dirname(os.path.realpath(__file__))
