# SPDX-License-Identifier: MIT
"""lpplot: the pictures of linkperf documents (lp-plot writes them as PNG files, lp-report inlines
them). Every function takes a Doc from lpdoc and returns matplotlib figures; nothing here reads
JSON or recomputes a verdict.

Rules every picture keeps (issue 26.4):
  - matrices put the source on rows and the destination on columns, and say so;
  - every node a verdict names and both ends of every flagged link keep their tick label however
    many nodes there are (the others are thinned);
  - value axes start at 0 (a 1 % difference stays 1 % of the bar), or, on a log axis where the
    values span more than 10x, the title states the range;
  - numbers print through lpdoc's formats: no exponent, no "nan".
"""
import math

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

import lpdoc  # noqa: E402
from lpdoc import fmt_sig, fmt_size, fmt_value  # noqa: E402

MAX_LABELS = 32  # tick labels per axis before thinning
MAX_NAMED = 8  # flagged nodes named in a title before "and N more"
SPARSE_NODES = 100  # above, a matrix less than 5 % measured draws each cell as a mark
MAX_PIXELS = 512  # cells per axis a heatmap draws; above, each pixel is the worst of its bin
RED = "#d62728"


def _nan(v):
    return float("nan") if v is None else float(v)


def fmt_tick(v, _pos=None):
    """An axis tick: the one number format, trailing zeros dropped (0.08, 1.5, 200)."""
    s = fmt_sig(v, 3) if v else "0"
    return s.rstrip("0").rstrip(".") if "." in s else s


def plain_axis(ax, which="y"):
    """Tick labels through the one number format (matplotlib would write 1e4 or an offset)."""
    f = FuncFormatter(fmt_tick)
    (ax.yaxis if which == "y" else ax.xaxis).set_major_formatter(f)


def size_axis(ax):
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: fmt_size(v) if v > 0 else ""))


def label_ticks(ax, names, forced, axes="xy", rotate=90):
    """Tick labels for n nodes: every forced one (red, starred), the others thinned to about
    MAX_LABELS and kept clear of the forced ones."""
    n = len(names)
    step = max(1, math.ceil(n / MAX_LABELS))
    keep = set(range(0, n, step))
    if step > 1:
        keep = {i for i in keep if all(abs(i - f) >= max(1, step // 2) for f in forced)}
    ticks = sorted(keep | set(forced))
    labels = [("* " if i in forced else "") + names[i] for i in ticks]
    size = 9 if n <= 16 else 7 if n <= 64 else 6
    for which in axes:
        set_t, set_l = (ax.set_xticks, ax.set_xticklabels) if which == "x" else (ax.set_yticks, ax.set_yticklabels)
        set_t(ticks)
        set_l(labels, fontsize=size, rotation=rotate if which == "x" else 0)
        for t, i in zip(ax.get_xticklabels() if which == "x" else ax.get_yticklabels(), ticks):
            if i in forced:
                t.set_color(RED)
                t.set_fontweight("bold")


def named(items):
    """"a: why; b: why" for the first MAX_NAMED, then how many more."""
    items = list(items)
    s = "; ".join(items[:MAX_NAMED])
    return s + (f"; and {len(items) - MAX_NAMED} more" if len(items) > MAX_NAMED else "")


def orientation(m):
    return m.orientation or "rows: source, columns: destination"


# ---- heatmaps ------------------------------------------------------------------------------
def worst_bins(vals, lat, most=MAX_PIXELS):
    """A k x k matrix of more than `most` nodes per axis as bins of f x f cells, each the worst
    of its measured cells (highest latency, lowest bandwidth; NaN only where none was measured):
    a slow node's row or a slow cell stays visible, where the renderer's own resampling of a
    1,024-node rail to a few hundred pixels drops rows. Returns (matrix, f)."""
    k = vals.shape[0]
    f = -(-k // most)
    if f <= 1:
        return vals, 1
    pad = np.full((f * -(-k // f), f * -(-k // f)), np.nan)
    pad[:k, :k] = vals
    bad = -np.inf if lat else np.inf  # NaN out of the reduction
    b = np.where(np.isnan(pad), bad, pad).reshape(pad.shape[0] // f, f, pad.shape[1] // f, f)
    w = b.max(axis=(1, 3)) if lat else b.min(axis=(1, 3))
    return np.where(np.isinf(w), np.nan, w), f


def draw_matrix(ax, doc, m, mat, vmin=0, vmax=None, title=None, lat=None, nodes=None):
    """One matrix of nodes (m.nodes, or the given node indices) on ax, source on rows; flagged
    nodes labelled, slow cells outlined, failed cells crossed."""
    nodes = m.nodes if nodes is None else list(nodes)
    pos = {g: i for i, g in enumerate(nodes)}
    lat = m.lat if lat is None else lat
    vals = np.array(mat, dtype=float).reshape(len(nodes), len(nodes))  # None -> NaN
    finite = vals[~np.isnan(vals)]
    if vmax is None:
        vmax = float(finite.max()) if finite.size else 1
        if lat and lpdoc.finite(m.reference):
            vmax = max(vmax, 3 * m.reference)  # healthy latency sits in the light third
    cmap = plt.get_cmap("viridis_r" if lat else "viridis").copy()
    cmap.set_bad("#dddddd")
    k = len(nodes)
    links = doc.flagged_links(m)
    marked = sorted(d for d in m.slow | links if d[0] in pos and d[1] in pos)
    failed = [(pos[a], pos[b]) for a, b in m.failed_pairs() if a in pos and b in pos]
    if k > SPARSE_NODES and finite.size < 0.05 * k * k:
        # a sparse schedule at scale (random partners): each measured cell a visible mark, not
        # a pixel lost in the unmeasured grey
        cmap.set_bad("#f2f2f2")
        im = ax.imshow(np.full_like(vals, np.nan), cmap=cmap, vmin=vmin, vmax=vmax or 1)
        ys, xs = np.nonzero(~np.isnan(vals))
        ax.scatter(xs, ys, c=vals[ys, xs], cmap=cmap, vmin=vmin, vmax=vmax or 1, s=5, marker="s",
                   linewidths=0)
        ax.scatter([pos[b] for a, b in marked], [pos[a] for a, b in marked], s=40, marker="s",
                   facecolors="none", edgecolors="red", linewidths=1.2)
        ax.scatter([b for a, b in failed], [a for a, b in failed], s=30, marker="x", color="red",
                   linewidths=1.2)
    else:
        shown, f = worst_bins(vals, lat)
        im = ax.imshow(shown, cmap=cmap, vmin=vmin, vmax=vmax or 1, interpolation="nearest",
                       extent=(-0.5, f * shown.shape[1] - 0.5, f * shown.shape[0] - 0.5, -0.5))
        if f > 1:  # axes stay in node indices; the title says how the cells were drawn
            title = (title or f"{m.label} [{m.unit}]") + f"\n(each pixel: the worst of {f} x {f} cells)"
        for a, b in marked:
            ax.add_patch(Rectangle((pos[b] - 0.5, pos[a] - 0.5), 1, 1, fill=False, edgecolor="red",
                                   linewidth=2.5 if (a, b) in links else 1.5))
        for a, b in failed:
            ax.plot([b - 0.4, b + 0.4], [a - 0.4, a + 0.4], color="red", linewidth=1.5)
            ax.plot([b - 0.4, b + 0.4], [a + 0.4, a - 0.4], color="red", linewidth=1.5)
    label_ticks(ax, [doc.names[g] for g in nodes], {pos[g] for g in doc.flagged_ends() if g in pos})
    ax.set_xlabel("destination (server)" if doc.tool == "lp-sweep" else "destination")
    ax.set_ylabel("source (client)" if doc.tool == "lp-sweep" else "source")
    if len(nodes) <= 12:
        mid = (vmin + vmax) / 2
        for a, row in enumerate(vals.tolist()):
            for b, v in enumerate(row):
                if not math.isnan(v):
                    dark = (v > mid) if lat else (v < mid)
                    ax.text(b, a, fmt_sig(v, 3), ha="center", va="center", fontsize=8,
                            color="white" if dark else "black")
    ax.set_title(title or f"{m.label} [{m.unit}]", fontsize=10)
    return im


def heatmap(doc, m):
    n = len(m.nodes)
    size = min(14, 4 + 0.35 * n)
    fig, ax = plt.subplots(figsize=(size + 1.5, size))
    flag = doc.flagged_nodes(m)
    sub = (f"{m.label} [{m.unit}], {orientation(m)}\n{doc.schedule}, {n} nodes, reference "
           f"{fmt_value(m.reference, m.unit)}, noise {fmt_sig(100 * m.noise, 2) if lpdoc.finite(m.noise) else '—'} % per cell")
    if flag:
        sub += "\nflagged: " + named(f"{doc.nodes[i].name}: {r}" for i, r in sorted(flag.items()))
    links = doc.flagged_links(m)
    if links:
        sub += "\nlinks outlined: " + named(f"{doc.names[a]} → {doc.names[b]}" for a, b in sorted(links))
    im = draw_matrix(ax, doc, m, m.matrix(), title=sub)
    cb = fig.colorbar(im, ax=ax, shrink=0.8)
    cb.set_label(f"{m.unit} ({'lower' if m.lat else 'higher'} is better)")
    plain_axis(cb.ax)
    return fig


def scores(doc, m):
    """Per-node scores as client and as server (1 = the reference), the metric's nodes."""
    pos = {g: i for i, g in enumerate(m.nodes)}
    sc = [s for s in m.scores if s.node in pos]
    if not sc:
        return None
    n = len(m.nodes)
    flag = doc.flagged_nodes(m)
    fig, ax = plt.subplots(figsize=(min(18, max(6, 0.45 * n + 2)), 4))
    xs = [pos[s.node] for s in sc]
    w = 0.4
    ax.bar([x - w / 2 for x in xs], [s.client or 0 for s in sc], w,
           color=[RED if s.flag_client else "#1f77b4" for s in sc], label="as client (row median)")
    ax.bar([x + w / 2 for x in xs], [s.server or 0 for s in sc], w,
           color=["#ff9896" if s.flag_server else "#aec7e8" for s in sc], label="as server (column median)")
    if lpdoc.finite(m.threshold):
        ax.axhline(m.threshold, color="red", linestyle="--", linewidth=1,
                   label=f"slow below {fmt_sig(m.threshold, 2)}")
    ax.axhline(1.0, color="gray", linewidth=0.8)
    for s, x in zip(sc, xs):  # flagged nodes marked above their bars: visible among 1,000 thin ones
        if s.node in flag:
            worst = min((v for v in (s.client, s.server) if v is not None), default=0)
            ax.plot([x], [worst], marker="v", markersize=9, color=RED, zorder=5)
            ax.annotate(fmt_sig(worst, 2) if s.client is not None or s.server is not None else "failed",
                        (x, worst), textcoords="offset points", xytext=(0, 8), ha="center",
                        fontsize=8, color=RED)
    ax.set_ylim(bottom=0)
    label_ticks(ax, [doc.names[g] for g in m.nodes], {pos[g] for g in doc.flagged_ends() if g in pos},
                axes="x", rotate=90 if n > 8 else 0)
    ax.set_ylabel("score (1 = reference, lower = worse)")
    title = f"{m.label}: per-node scores, reference {fmt_value(m.reference, m.unit)}"
    if flag:
        title += "\nflagged: " + named(f"{doc.nodes[i].name}: {r}" for i, r in sorted(flag.items()))
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig


def value_axis(ax, values, lat, what):
    """From 0 on a linear axis; a log axis only where the values span more than 10x, and then the
    title says the span (so that no small difference looks like a cliff)."""
    vals = [v for v in values if lpdoc.finite(v) and v > 0]
    if vals and max(vals) / min(vals) > 10:
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FuncFormatter(fmt_tick))
        ax.yaxis.set_minor_formatter(FuncFormatter(lambda v, _p: ""))
        return f"; log {what} axis, {fmt_sig(min(vals), 3)} to {fmt_sig(max(vals), 3)}"
    ax.set_ylim(bottom=0, top=(max(vals) * 1.1 if vals else 1))
    plain_axis(ax)
    return ""


def sizes(doc, ms):
    """Value against message size for one test (its metrics by size): the reference and each
    node's median as client, flagged nodes red. None for a single size."""
    ms = sorted(ms, key=lambda m: m.size)
    if len(ms) < 2:
        return None
    flag = doc.flagged_nodes()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    xs = [m.size for m in ms]
    everything = []
    medians = [m.client_medians() for m in ms]
    for i in ms[0].nodes:
        ys = [med.get(i, float("nan")) for med in medians]
        everything += ys
        ax.plot(xs, ys, marker=".", linewidth=1.5 if i in flag else 0.8,
                color=RED if i in flag else "gray", alpha=1 if i in flag else 0.5,
                label=f"* {doc.names[i]}: {flag[i]}" if i in flag else None)
    ref = [_nan(m.reference) for m in ms]
    ax.plot(xs, ref, marker="o", color="black", linewidth=2, label="reference (healthy median)")
    ax.set_xscale("log", base=2)
    size_axis(ax)
    note = value_axis(ax, everything + ref, ms[0].lat, ms[0].unit)
    ax.set_xlabel("message size")
    ax.set_ylabel(ms[0].unit)
    ax.set_title(f"{ms[0].test}: per-node median as client against size{note}", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    return fig


# ---- counters, load ------------------------------------------------------------------------
def counters(doc):
    """Error counters that moved: each node's own port (log axis, every bar labelled with its
    sum, so a named node's few errors stay visible beside its partners' many) and per pair."""
    nodes, pairs = doc.counter_nodes, doc.counter_pairs
    if not nodes and not pairs:
        return None
    n = len(doc.nodes)
    nm = doc.names
    bad_nodes = {v.node for v in doc.verdicts if v.kind == "errors" and v.node is not None}
    bad_links = {tuple(sorted(v.nodes)) for v in doc.verdicts if v.kind == "errors" and v.node is None}
    forced = bad_nodes | {i for p in bad_links for i in p}
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(min(18, 8 + 0.5 * n), min(8, 3.5 + 0.3 * n)))
    names = sorted({c for x in nodes.values() for c in x})
    bottom = [0] * n
    cmap = plt.get_cmap("tab10")
    for k, c in enumerate(names):
        vals = [nodes.get(i, {}).get(c, 0) for i in range(n)]
        ax1.bar(range(n), vals, bottom=bottom, color=cmap(k % 10), label=c,
                edgecolor=[RED if i in bad_nodes else "none" for i in range(n)], linewidth=2)
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax1.set_yscale("symlog", linthresh=1)
    ax1.set_ylim(bottom=0, top=max(bottom + [1]) * 4)
    ax1.yaxis.set_major_formatter(FuncFormatter(fmt_tick))
    ax1.yaxis.set_minor_formatter(FuncFormatter(lambda v, _p: ""))
    for i, total in enumerate(bottom):
        if total and (n <= 64 or i in forced):
            ax1.text(i, total, str(total), ha="center", va="bottom", fontsize=8,
                     color=RED if i in bad_nodes else "black", fontweight="bold" if i in bad_nodes else None)
    label_ticks(ax1, nm, forced, axes="x", rotate=90 if n > 8 else 0)
    ax1.set_ylabel("error counter delta on the node's own port\n(sum over its tests; log axis)")
    ax1.set_title("per node: error counters on its own port", fontsize=10)
    if names:
        ax1.legend(fontsize=8)
    mat = [[float("nan")] * n for _ in range(n)]
    for (a, b), v in pairs.items():
        mat[a][b] = mat[b][a] = v
    cm = plt.get_cmap("Reds").copy()
    cm.set_bad("#f4f4f4")
    im = ax2.imshow(mat, cmap=cm, vmin=0, interpolation="nearest")
    label_ticks(ax2, nm, forced)
    for (a, b), v in pairs.items():
        for x, y in ((a, b), (b, a)):
            if n <= 16:
                ax2.text(y, x, str(v), ha="center", va="center", fontsize=8)
            if (a, b) in bad_links:
                ax2.add_patch(Rectangle((y - 0.5, x - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=2.5))
    ax2.set_title("per pair: error counters on both ends during its tests (symmetric)", fontsize=10)
    cb = fig.colorbar(im, ax=ax2, shrink=0.8)
    cb.set_label("delta")
    plain_axis(cb.ax)
    flagged = [nm[i] for i in sorted(bad_nodes)] + [f"{nm[a]} ↔ {nm[b]}" for a, b in sorted(bad_links)]
    fig.suptitle("error counters that moved during the sweep" +
                 (f"; errors verdict: {named(flagged)}" if flagged else ""), fontsize=11)
    return fig


def load_latency(doc, e):
    """lp-sweep --load: idle and loaded p99 side by side on one scale, each node's impact factor."""
    n = len(doc.nodes)
    flag = {v.node for v in doc.verdicts if v.kind == "load_impact"}
    vals = [_nan(x) for k in (e.idle_p99, e.loaded_p99) for row in k for x in row]
    vals = [v for v in vals if not math.isnan(v)]
    vmax = max(vals) if vals else 1
    fig, axes = plt.subplots(1, 3, figsize=(19, 6))
    for ax, mat, what in ((axes[0], e.idle_p99, "idle"), (axes[1], e.loaded_p99, "loaded")):
        im = draw_matrix(ax, doc, e.metric, mat, 0, vmax,
                         f"{e.metric.label} p99, {what} [us]\n{orientation(e.metric)}", lat=True,
                         nodes=range(len(doc.nodes)))
    axes[1].set_ylabel("")
    cb = fig.colorbar(im, ax=axes[:2], shrink=0.7)
    cb.set_label("p99 us (lower is better)")
    plain_axis(cb.ax)
    w = 0.4
    xs = [x[0] for x in e.impact]
    axes[2].bar([x - w / 2 for x in xs], [x[2] or 0 for x in e.impact], w, color="#aec7e8",
                label="p50 loaded / idle")
    axes[2].bar([x + w / 2 for x in xs], [x[3] or 0 for x in e.impact], w,
                color=[RED if x[0] in flag else "#1f77b4" for x in e.impact], label="p99 loaded / idle")
    axes[2].axhline(1.0, color="gray", linewidth=0.8)
    th = doc.thresholds.get("impact_max")
    p99 = sorted(x[3] for x in e.impact if x[3] is not None)
    if th and p99:
        med = max(1.0, p99[(len(p99) - 1) // 2])
        axes[2].axhline(th * med, color="red", linestyle="--", linewidth=1,
                        label=f"{fmt_sig(th, 3)}x the median node (flagged above {fmt_sig(th, 3)}x the others)")
    axes[2].set_ylim(bottom=0)
    plain_axis(axes[2])
    label_ticks(axes[2], doc.names, flag | doc.flagged_ends(), axes="x", rotate=90 if n > 8 else 0)
    axes[2].set_ylabel("congestion impact factor (median of the node's pairs)")
    axes[2].set_title(f"loaded by {e.loaded_by} on the round's other pairs", fontsize=10)
    axes[2].legend(fontsize=8)
    return fig


def jain_text(r):
    return f"J={fmt_sig(r.jain, 2)}" if r.jain_why is None else f"J —: {r.jain_why}"


def incast(doc, label, rs):
    """Each receiver's senders stacked (Gb/s), Jain's index and a victim's latency impact above."""
    flag = {v.node for v in doc.verdicts if v.kind in ("incast_slow", "incast_unfair")}
    fig, ax = plt.subplots(figsize=(min(18, max(6, 0.8 * len(rs) + 3)), 4.5))
    for x, r in enumerate(rs):
        bottom = 0
        for k, (_name, v, _share) in enumerate(r.senders):
            ax.bar(x, v or 0, 0.6, bottom=bottom, color=plt.get_cmap("tab20")(k % 20),
                   edgecolor="white", linewidth=0.5)
            bottom += v or 0
        note = jain_text(r) + (f"\nlat {fmt_sig(r.victim_impact, 3)}x" if lpdoc.finite(r.victim_impact) else "")
        if len(rs) <= 64 or r.node in flag:
            ax.text(x, bottom, note, ha="center", va="bottom", fontsize=8,
                    color=RED if r.node in flag else "black")
    label_ticks(ax, [r.name for r in rs], {x for x, r in enumerate(rs) if r.node in flag},
                axes="x", rotate=90 if len(rs) > 8 else 0)
    ax.set_ylim(bottom=0, top=max([r.aggregate or 0 for r in rs] + [1e-9]) * 1.3)
    plain_axis(ax)
    ax.set_xlabel("receiver (its senders stacked, one colour each)")
    ax.set_ylabel("Gb/s into the receiver")
    ax.set_title(f"{label} incast: aggregate, shares, Jain's index J and a victim's p50 latency "
                 "into the receiver meanwhile / idle", fontsize=10)
    return fig


# ---- lp-rdma and lp-gpu: value against size, or per test at its one size ----------------------
def curves(doc, bad=lambda c: False):
    """(name, title, figure) per test measured at several sizes (each pair a line, the limit dashed),
    and one bar chart of the tests measured at one size, each against its ceiling."""
    tests = {}
    for m in doc.metrics:
        tests.setdefault(m.test, []).append(m)
    single = []
    for test, ms in tests.items():
        if len({m.size for m in ms}) < 2:
            single += [c for m in ms for c in m.cells]
            continue
        fig, ax = plt.subplots(figsize=(6.5, 3.8))
        lines = {}
        for m in sorted(ms, key=lambda m: m.size):
            for c in m.cells:
                lines.setdefault((m.series, c.pair), []).append(c)
        values = []
        for (series, pair), cs in lines.items():
            name = " ".join(x for x in (pair, series) if x) or test
            xs, ys = [c.metric.size for c in cs], [_nan(c.value) for c in cs]
            values += ys
            ax.plot(xs, ys, marker="o", label=name)
            worse = [c for c in cs if bad(c)]
            ax.plot([c.metric.size for c in worse], [_nan(c.value) for c in worse], "x", color="red",
                    markersize=12, mew=2)
            lim = [c for c in cs if c.qual and lpdoc.finite(c.qual.limit)]
            if lim:
                ax.plot([c.metric.size for c in lim], [c.qual.limit for c in lim], "--", color="gray",
                        label=f"{name} limit")
        ax.set_xscale("log", base=2)
        size_axis(ax)
        unit = ms[0].unit
        note = value_axis(ax, values, ms[0].lat, unit)
        ax.set_xlabel("size")
        ax.set_ylabel(unit)
        ax.set_title(f"{test} [{unit}] against size; red x = FAIL or regression{note}", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
        yield f"sizes-{test}", f"{test} against size", fig
    for unit in sorted({c.metric.unit for c in single}):
        cs = [c for c in single if c.metric.unit == unit]
        fig, ax = plt.subplots(figsize=(min(16, 3 + 0.5 * len(cs)), 4))
        xs = range(len(cs))
        ax.bar(xs, [c.value or 0 for c in cs], color=[RED if bad(c) or not c.ok else "#1f77b4" for c in cs])
        failed = [x for x, c in zip(xs, cs) if not c.ok]
        ax.plot(failed, [0] * len(failed), "x", color="red", markersize=12, mew=2, clip_on=False,
                label="failed" if failed else None)
        ceil = [(x, c.ceiling) for x, c in zip(xs, cs) if lpdoc.finite(c.ceiling) and c.ceiling > 0]
        ax.plot([x for x, _ in ceil], [v for _, v in ceil], "_", color="black", markersize=18, mew=2,
                label="ceiling")
        ax.set_xticks(list(xs))
        ax.set_xticklabels([f"{c.metric.label} {c.pair}".strip() for c in cs], rotation=90, fontsize=7)
        ax.set_ylim(bottom=0)
        plain_axis(ax)
        ax.set_ylabel(unit)
        ax.set_title(f"each test at its one size [{unit}], from 0; red = FAIL, regression or failed",
                     fontsize=9)
        if ceil or failed:
            ax.legend(fontsize=7)
        yield f"one-size-{unit.replace('/', 'p')}", f"tests at one size [{unit}]", fig


# ---- two runs ------------------------------------------------------------------------------
def compare(a, b, ma, mb, labels):
    """The same metric of two runs side by side on one colour scale, each with its own nodes;
    then B/A on the pairs both runs measured (by node names), or a note when they share none."""
    vals = ma.ok_values() + mb.ok_values()
    vmax = max(vals) if vals else 1
    fig, axes = plt.subplots(1, 3, figsize=(19, 6.5))
    draw_matrix(axes[0], a, ma, ma.matrix(), 0, vmax,
                f"{labels[0]}: {ma.label} [{ma.unit}], {len(ma.nodes)} nodes\n{orientation(ma)}")
    im = draw_matrix(axes[1], b, mb, mb.matrix(), 0, vmax,
                     f"{labels[1]}: {mb.label} [{mb.unit}], {len(mb.nodes)} nodes\n{orientation(mb)}")
    cb = fig.colorbar(im, ax=axes[:2], shrink=0.7)
    cb.set_label(ma.unit)
    plain_axis(cb.ax)
    ia, ib = ({s: i for i, s in enumerate(d.names)} for d in (a, b))
    common = [s for s in b.names if s in ia]
    ca, cb_ = ma.cell_map(), mb.cell_map()
    ratio = [[None] * len(common) for _ in common]
    shared = 0
    for i, s in enumerate(common):
        for j, t in enumerate(common):
            x, y = ca.get((ia[s], ia[t])), cb_.get((ib[s], ib[t]))
            if x and y and x.ok and y.ok:
                ratio[i][j] = y.value / x.value
                shared += 1
    ax = axes[2]
    if shared:
        cmap = plt.get_cmap("RdBu_r" if ma.lat else "RdBu").copy()
        cmap.set_bad("#dddddd")
        im3 = ax.imshow([[_nan(r) for r in row] for row in ratio], cmap=cmap,
                        norm=matplotlib.colors.LogNorm(vmin=0.25, vmax=4), interpolation="nearest")
        at = {s: k for k, s in enumerate(common)}
        flagged = {at[d.names[i]] for d in (a, b) for i in d.flagged_ends() if d.names[i] in at}
        label_ticks(ax, common, flagged)
        if len(common) <= 12:
            for i, row in enumerate(ratio):
                for j, r in enumerate(row):
                    if r is not None:
                        ax.text(j, i, fmt_sig(r, 3), ha="center", va="center", fontsize=8)
        ax.set_xlabel("destination")
        ax.set_ylabel("source")
        ax.set_title(f"{labels[1]} / {labels[0]} on the {shared} pairs both measured "
                     f"({'below 1 = faster' if ma.lat else 'below 1 = slower'})", fontsize=10)
        cb = fig.colorbar(im3, ax=ax, shrink=0.7, ticks=[0.25, 0.5, 1, 2, 4])
        cb.ax.set_yticklabels(["0.25", "0.5", "1", "2", "4"])
        cb.set_label("ratio")
    else:
        ax.axis("off")
        ax.text(0.5, 0.5, f"no pair measured in both runs\n({len(common)} node names in common):\n"
                "compared as distributions (the CDF picture)", ha="center", va="center", fontsize=11,
                transform=ax.transAxes)
    return fig


def cdf(ma, mb, labels):
    """Both runs' resolved values of one metric as cumulative distributions, median, p5 and p95
    marked and written in the legend."""
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    top = 0
    for m, label, color in ((ma, labels[0], "#1f77b4"), (mb, labels[1], "#ff7f0e")):
        d = lpdoc.distribution(m)
        vs = d["values"]
        if not vs:
            continue
        top = max(top, vs[-1])
        ax.step(vs, [(i + 1) / len(vs) for i in range(len(vs))], where="post", color=color,
                label=f"{label}: median {fmt_sig(d['median'], 3)}, p5 {fmt_sig(d['p5'], 3)}, "
                      f"p95 {fmt_sig(d['p95'], 3)} {m.unit} ({d['n']} cells)")
        for q, style in (("p5", ":"), ("median", "-"), ("p95", ":")):
            ax.axvline(d[q], color=color, linestyle=style, linewidth=0.8)
    ax.set_xlim(left=0, right=top * 1.05 or 1)
    plain_axis(ax, "x")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(f"{ma.label} [{ma.unit}] ({'lower' if ma.lat else 'higher'} is better), from 0")
    ax.set_ylabel("fraction of cells at or below")
    ax.set_title(f"{ma.label}: {labels[0]} vs {labels[1]}, all measured cells (p5, median, p95 marked)",
                 fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(True, alpha=0.3)
    return fig


# ---- what each command draws ---------------------------------------------------------------
def sweep_figures(doc, kinds):
    """(name, title, figure) for each picture of an lp-sweep document; kinds: heatmap, scores,
    sizes, counters, load. The name is the file's suffix (heatmap-write_bw-65536), the title a
    caption (heatmap: write_bw 64 KiB)."""
    if "heatmap" in kinds:
        for m in doc.metrics:
            yield f"heatmap-{m.slug}", f"heatmap: {m.label}", heatmap(doc, m)
    if "scores" in kinds:
        for m in doc.metrics:
            fig = scores(doc, m)
            if fig:
                yield f"scores-{m.slug}", f"per-node scores: {m.label}", fig
    if "sizes" in kinds:
        tests = {}
        for m in doc.metrics:
            tests.setdefault((m.test, m.series, m.rail), []).append(m)
        for (test, _s, _r), ms in tests.items():
            fig = sizes(doc, ms)
            if fig:
                yield f"sizes-{ms[0].slug.replace('-' + str(ms[0].size), '')}", f"{test} against size", fig
    if "counters" in kinds:
        fig = counters(doc)
        if fig:
            yield "counters", "error counters", fig
    if "load" in kinds:
        for e in doc.load_latency:
            yield f"load-{e.metric.slug}", f"latency under load: {e.metric.label}", load_latency(doc, e)
        groups = {}
        for r in doc.incast:
            groups.setdefault(r.metric, []).append(r)
        for label, rs in groups.items():
            m = next(m for m in doc.metrics if m.label == label)
            yield f"incast-{m.slug}", f"incast: {label}", incast(doc, label, rs)


def compare_figures(a, b, labels):
    """Per metric both runs measured: the matrices side by side (lp-sweep) and the distributions
    (where each run has a few cells to make one)."""
    for ma, mb in lpdoc.common_metrics(a, b):
        if a.tool == "lp-sweep" and b.tool == "lp-sweep":
            yield f"compare-{ma.slug}", f"{labels[0]} and {labels[1]}: {ma.label}", compare(a, b, ma, mb, labels)
        if min(len(m.ok_values()) for m in (ma, mb)) >= 3:
            yield f"cdf-{ma.slug}", f"{labels[0]} and {labels[1]}: {ma.label} distributions", cdf(ma, mb, labels)


def figure_texts(fig):
    """Every string a figure shows (titles, labels, tick labels, legends, annotations): what the
    tests check for formats and labels."""
    fig.canvas.draw()
    return [t.get_text() for t in fig.findobj(matplotlib.text.Text) if t.get_visible() and t.get_text()]


def close(fig):
    plt.close(fig)
