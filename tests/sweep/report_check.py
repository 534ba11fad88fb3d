#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Checks of what linkperf shows people (tests/sweep/test-agree.sh, test-plots.sh, test-report.sh,
test-scale.sh). Each subcommand prints "ok ..." or "FAIL ..." lines and exits 1 on a failure.

  agree DOC.json SUMMARY.txt CSV_PREFIX REPORT.html
      every cell of every metric shows one value in the JSON document (read here on its own,
      not through lpdoc), lp-sweep's summary, its CSV matrices and the report's matrices and
      failing-cells table (parsed with lxml), each within the digits it prints; every
      qualification row of the document judged that same value.
  formats FILE.html|DOC.json ...
      the visible text of each report, and every text of every picture lpplot draws for each
      document, have no exponent (2.808e+04), no nan or inf, sizes written as "64 KiB", and one
      unit per quantity (network Gb/s in lp-sweep and lp-rdma documents, copies GB/s in lp-gpu's).
      LP_CHECK_INJECT=g draws the pictures with "%.3g" numbers (the fault).
  scale DOC.json REPORT.html MAX_ROWS [verdict-last|unforced|short]
      the verdict and the flagged table come before any per-cell table and picture; no table
      has more than MAX_ROWS rows; every flagged node and both ends of every flagged link are
      tick labels of every matrix picture (both axes) and of every per-node bar chart.
  pictures DOC.json [linear|zoom]
      the named node of an errors verdict is not dwarfed in the counters picture (its bar at
      least a quarter of the tallest), value axes start at 0 or state their log range, no sizes
      picture for a test run at one size.
The optional last word injects the fault a check exists to catch, to show that it fails.
"""
import csv
import json
import math
import os
import re
import sys

import lxml.html

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "plots"))
sys.dont_write_bytecode = True
import lpdoc  # noqa: E402
import lpplot  # noqa: E402

fails = 0


def ok(msg):
    print(f"ok   {msg}")


def bad(msg):
    global fails
    fails += 1
    print(f"FAIL {msg}")


def agrees(text, value):
    """Whether printed text shows value to the digits it prints (0.0607 for 0.06069...)."""
    if value is None:
        return text.strip() in ("", "-", "—", "x", "ERR", "failed")
    t = text.strip().rstrip("!x*").strip()
    try:
        shown = float(t)
    except ValueError:
        return False
    dec = len(t.split(".")[1]) if "." in t else 0
    return abs(shown - value) <= 0.5 * 10 ** -dec * (1 + 1e-9) + 1e-12 * abs(value)


# ---- the four outputs of one run, each read on its own -------------------------------------
def json_cells(path):
    """{(test, size, source, destination): resolved value or None} from the raw document, the
    metrics' (test, size), and the qualification rows {(test, size, pair): (value, unit)}."""
    d = json.load(open(path))
    names = [n["name"] for n in d["nodes"]]
    out, slugs = {}, [(m["test"], m["size"]) for m in d["metrics"]]
    if d["schema"] == "linkperf.sweep/1":
        for (test, size), m in zip(slugs, d["metrics"]):
            for a, row in enumerate(m["matrix"]):
                for b, v in enumerate(row):
                    if a != b:
                        out[(test, size, names[a], names[b])] = v
    elif d["schema"] == "linkperf.sweep/2":
        for blk in d["blocks"]:
            test, size = slugs[blk["metric"]]
            k = len(blk["nodes"])
            for r, c in lpdoc.columns(blk["cells"]):
                a, b = blk["nodes"][r // k], blk["nodes"][r % k]
                if a != b and c["class"] != "none":
                    out[(test, size, names[a], names[b])] = c["value"]
    else:
        raise SystemExit(f"report_check: schema {d['schema']} not known here")
    q = d.get("qualification") or {}
    bw = "Gb/s" if "bandwidth Gb/s" in (q.get("units") or "") else "GB/s"
    qual = {(x["test"], x["size"], x["pair"]): (x["value"], x.get("unit") or ("us" if x.get("kind") == "latency" else bw))
            for _r, x in lpdoc.columns(q.get("cells") or [])}
    return names, slugs, out, qual


def summary_cells(path, names, slugs):
    """The matrices lp-sweep's summary prints, by position (names may be cut to a column)."""
    out, lines = {}, open(path).read().splitlines()
    k = 0
    for i, line in enumerate(lines):
        if not re.match(r"^\S+ \d+ \S+ \[", line) or k >= len(slugs):  # "write_bw 64 KiB ["
            continue
        test, size = slugs[k]
        k += 1
        j = i + 1
        while j < len(lines) and len(lines[j].split()) != len(names):
            j += 1
        for a, row in enumerate(lines[j + 1:j + 1 + len(names)]):
            toks = row.split()[1:]
            for b, t in enumerate(toks):
                if a != b:
                    out[(test, size, names[a], names[b])] = t
    return out


def csv_cells(prefix, slugs):
    out = {}
    for test, size in slugs:
        rows = list(csv.reader(open(f"{prefix}-{test}-{size}.csv")))
        head = rows[0][1:]
        for r in rows[1:]:
            for b, t in enumerate(r[1:]):
                if r[0] != head[b]:
                    out[(test, size, r[0], head[b])] = t
    return out


def report_cells(path):
    """The report's matrices and failing-cells rows: {(test, size, src, dst): (text, data-value)}."""
    root = lxml.html.parse(path).getroot()
    mats, failing = {}, {}
    for t in root.xpath('//table[@class="matrix"]'):
        test, size = t.get("data-test"), t.get("data-size")
        for td in t.xpath(".//td[@data-src]"):
            mats[(test, int(size), td.get("data-src"), td.get("data-dst"))] = (td.text_content(), td.get("data-value"))
    for tr in root.xpath('//table[@id="failing-cells"]//tr[@data-src]'):
        cells = tr.xpath("./td")
        failing[(tr.get("data-test"), tr.get("data-size"), tr.get("data-src"), tr.get("data-dst"))] = \
            (cells[3].text_content(), tr.get("data-value"))
    return mats, failing


def cmd_agree(doc_path, summary, prefix, report):
    names, slugs, js, qual = json_cells(doc_path)
    sm, cv = summary_cells(summary, names, slugs), csv_cells(prefix, slugs)
    mats, failing = report_cells(report)
    for what, got in (("summary", sm), ("CSV", cv), ("report matrices", mats)):
        missing = set(js) - set(got)
        wrong = [(k, got[k], js[k]) for k in js if k in got and
                 not agrees(got[k][0] if isinstance(got[k], tuple) else got[k], js[k])]
        if isinstance(next(iter(got.values()), None), tuple):
            wrong += [(k, got[k][1], js[k]) for k in js if k in got and js[k] is not None and
                      not lpdoc.same_value(float(got[k][1] or "nan"), js[k])]
        if missing or wrong:
            bad(f"{doc_path}: {what} disagrees with the JSON on {len(wrong)} cell(s), lacks {len(missing)}: "
                f"{(wrong or sorted(missing))[:3]}")
        else:
            ok(f"{os.path.basename(doc_path)}: {what} shows the JSON's value on all {len(js)} cells")
    sizes = {lpdoc.fmt_size(s): s for _t, s in slugs}
    wrong = [(k, v) for k, v in failing.items()
             if not agrees(v[0], js.get((k[0], sizes.get(k[1]), k[2], k[3]), math.nan))]
    if wrong:
        bad(f"{doc_path}: failing-cells rows show another value than the JSON's: {wrong[:3]}")
    else:
        ok(f"{os.path.basename(doc_path)}: {len(failing)} failing-cells row(s) show the JSON's value")
    stale = []
    for (test, size, pair), (value, unit) in qual.items():
        a, b = pair.split(">")
        v = js.get((test, size, a, b))
        scale = 1 / 8 if unit == "GB/s" else 1
        if not lpdoc.same_value(value, v * scale if v is not None else None):
            stale.append((pair, test, value, v))
    if stale:
        bad(f"{doc_path}: the judge used another value than the resolved one on {len(stale)} cell(s): {stale[:3]}")
    elif qual:
        ok(f"{os.path.basename(doc_path)}: the judge judged the resolved value of all {len(qual)} cells")


# ---- formats ---------------------------------------------------------------------------------
EXPONENT = re.compile(r"\b\d+(\.\d+)?[eE][+-]?\d+\b")
NAN = re.compile(r"\b(nan|NaN|inf|Infinity)\b")
BARE_SIZE = re.compile(r"\b\d+(KiB|MiB|GiB|B)\b|\b(65536|1048576|268435456|1073741824)\b")


def text_problems(texts, tool, where):
    probs = []
    for t in texts:
        for rx, what in ((EXPONENT, "an exponent"), (NAN, "nan/inf"), (BARE_SIZE, "a size not written as 64 KiB")):
            m = rx.search(t)
            if m:
                probs.append(f"{where}: {what} in {t[:80]!r}")
        other = "GB/s" if tool in ("lp-sweep", "lp-rdma") else "Gb/s"
        if other in t:
            probs.append(f"{where}: {other} in an {tool} output: {t[:80]!r}")
    return probs


def html_texts(path, tool):
    """The visible text of the page's own words: tables' cells, headings, paragraphs; the
    tools' own evidence lines (verdict reasons) and the method section are quoted as recorded.
    [(text, its tool)]: the page's tool, or another's for a part marked data-tool (lp-report's
    GPUs of every node in a sweep's report: lp-gpu's copies, in GB/s)."""
    root = lxml.html.parse(path).getroot()
    for el in root.xpath("//script|//style|//*[@id='method']/following-sibling::table|//td[@class='evidence']"):
        el.drop_tree()
    other = []
    for el in root.xpath("//*[@data-tool]"):
        other += [(t, el.get("data-tool")) for t in el.xpath(".//text()") if t.strip()]
        el.drop_tree()
    return [(t, tool) for t in root.xpath("//body//text()") if t.strip()] + other


def cmd_formats(paths):
    if os.environ.get("LP_CHECK_INJECT") == "g":  # the fault: numbers as "%.3g" writes them
        lpplot.fmt_sig = lambda v, sig=3: f"{v:.{sig}g}"
    for p in paths:
        if p.endswith(".html"):
            tool = re.search(r"linkperf (lp-\w+) report", open(p).read()).group(1)
            probs = [x for t, tl in html_texts(p, tool) for x in text_problems([t], tl, os.path.basename(p))]
            what = "the page"
        else:
            doc = lpdoc.load(p)
            texts = []
            figs = list(lpplot.sweep_figures(doc, {"heatmap", "scores", "sizes", "counters", "load"})) \
                if doc.tool == "lp-sweep" else list(lpplot.curves(doc))
            for _name, _title, fig in figs:
                texts += lpplot.figure_texts(fig)
                lpplot.close(fig)
            probs = text_problems(texts, doc.tool, os.path.basename(p))
            what = f"{len(figs)} pictures ({len(texts)} texts)"
        if probs:
            bad(f"{p}: {len(probs)} format problem(s): " + "; ".join(probs[:4]))
        else:
            ok(f"{os.path.basename(p)}: {what}: no exponent, no nan, sizes as 64 KiB, one unit per quantity")


# ---- a report at scale -----------------------------------------------------------------------
def tick_labels(ax, which):
    labels = ax.get_xticklabels() if which == "x" else ax.get_yticklabels()
    return {t.get_text().lstrip("* ") for t in labels}


def cmd_scale(doc_path, report, max_rows, inject=""):
    doc = lpdoc.load(doc_path)
    root = lxml.html.parse(report).getroot()
    if inject == "verdict-last":  # the fault: the verdict moved below everything
        v = root.get_element_by_id("verdict")
        v.getparent().remove(v)
        root.body.append(v)
    if inject == "short":  # the fault: a table longer than the bound (a bound of 10 rows)
        max_rows = 10
    if inject == "unforced":  # the fault: tick labels thinned without keeping the flagged ones
        thin = lpplot.label_ticks
        lpplot.label_ticks = lambda ax, names, forced, **kw: thin(ax, names, set(), **kw)
    order = [el.get("id") or el.tag for el in root.iter() if el.get("id") or el.tag in ("figure",)
             or (el.tag == "table" and "matrix" in (el.get("class") or ""))]
    first_cells = min([order.index(x) for x in ("failing-cells", "figure", "table", "inventory") if x in order] or [0])
    if "verdict" in order and order.index("verdict") < first_cells and \
            ("flagged" not in order or order.index("flagged") < first_cells):
        ok(f"verdict and flagged table first (before {order[first_cells]})")
    else:
        bad(f"the verdict is not first: {order[:8]}")
    rows = {(t.get("id") or t.get("class") or "table"): len(t.xpath(".//tr")) for t in root.xpath("//table")}
    big = {k: v for k, v in rows.items() if v > max_rows + 1}
    if big:
        bad(f"tables longer than {max_rows} rows: {big}")
    else:
        ok(f"{len(rows)} tables, the longest {max(rows.values())} rows (at most {max_rows} + header)")
    if inject not in ("", "unforced"):
        return  # the fault is in the page: the pictures are not drawn again
    ends = doc.flagged_ends()
    if not ends:
        bad("the document flags nothing: the check would prove nothing")
    figs = [(f"{kind}-{m.slug}", set(m.nodes), draw(doc, m)) for m in doc.metrics
            for kind, draw in (("heatmap", lpplot.heatmap), ("scores", lpplot.scores))]
    figs += [(name, set(range(len(doc.nodes))), fig)
             for name, _t, fig in lpplot.sweep_figures(doc, {"counters", "load"})]
    n = 0
    for name, nodes, fig in figs:
        want = {doc.names[i] for i in ends & nodes}
        for ax in fig.axes if fig else []:
            for which in "xy":
                got = tick_labels(ax, which)
                if len(got) < 4 or not (got & set(doc.names)):
                    continue  # a colour bar or a value axis
                n += 1
                if want - got:
                    bad(f"{name}: {which} axis lacks the flagged {sorted(want - got)}")
                strangers = got - {doc.names[i] for i in nodes}
                if strangers:
                    bad(f"{name}: {which} axis labels nodes it does not hold: {sorted(strangers)[:4]}")
        if fig:
            lpplot.close(fig)
    if n:
        ok(f"every flagged node and link end ({', '.join(sorted(doc.names[i] for i in ends))}) "
           f"labelled on {n} picture axes")
    else:
        bad("no picture axis with node labels")


def bar_tops(ax):
    """Each bar stack's height in pixels, by x position."""
    tops = {}
    zero = ax.transData.transform((0, 0))[1]
    for p in ax.patches:
        x = round(p.get_x() + p.get_width() / 2)
        tops[x] = max(tops.get(x, 0), ax.transData.transform((0, p.get_y() + p.get_height()))[1] - zero)
    return tops


def cmd_pictures(doc_path, inject=""):
    doc = lpdoc.load(doc_path)
    fig = lpplot.counters(doc)
    named = {v.node for v in doc.verdicts if v.kind == "errors" and v.node is not None}
    if fig is not None and named:
        ax = fig.axes[0]
        if inject == "linear":  # the fault: the counters on a linear axis, as before
            ax.set_yscale("linear")
            ax.relim()
            ax.autoscale()
        tops = bar_tops(ax)
        tallest = max(tops.values())
        small = {doc.names[i]: round(tops.get(i, 0) / tallest, 2) for i in named if tops.get(i, 0) < tallest / 4}
        if small:
            bad(f"counters: the named node is dwarfed (its bar {small} of the tallest)")
        else:
            ok(f"counters: the named node's bar is {min(tops[i] for i in named) / tallest:.0%} of the tallest")
        lpplot.close(fig)
    figs = list(lpplot.sweep_figures(doc, {"sizes", "scores", "load"})) if doc.tool == "lp-sweep" \
        else list(lpplot.curves(doc))
    nbad = fails
    for name, _title, fig in figs:
        for ax in fig.axes:
            if inject == "zoom" and ax.get_yscale() == "linear" and ax.get_ylabel():
                lo, hi = ax.get_ylim()  # the fault: matplotlib's auto-zoom on the values
                ax.set_ylim(hi * 0.95, hi)
            if ax.get_yscale() == "linear" and ax.get_ylabel() and ax.get_ylim()[0] != 0 and not ax.images:
                bad(f"{name}: the value axis starts at {fmt(ax.get_ylim()[0])}, not 0")
            if ax.get_yscale() == "log" and "log" not in ax.get_title():
                bad(f"{name}: a log axis whose title does not say its range")
        lpplot.close(fig)
    sizes = {}
    for m in doc.metrics:
        sizes.setdefault((m.test, m.series), set()).add(m.size)
    one = [t for t, s in sizes.items() if len(s) == 1]
    drawn = [n for n, _t, _f in figs if n.startswith("sizes-")]
    if doc.tool == "lp-sweep" and one and any(n == f"sizes-{t}" for (t, _s) in one for n in drawn):
        bad(f"a sizes picture for a test run at one size: {drawn}")
    if fails == nbad:
        ok(f"{os.path.basename(doc_path)}: {len(figs)} pictures: value axes from 0 or a stated log range; "
           f"{len(one)} one-size test(s), {len(drawn)} sizes picture(s)")


def fmt(v):
    return lpdoc.fmt_sig(v, 4)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "agree":
        cmd_agree(*args)
    elif cmd == "formats":
        cmd_formats(args)
    elif cmd == "scale":
        cmd_scale(args[0], args[1], int(args[2]), *args[3:])
    elif cmd == "pictures":
        cmd_pictures(*args)
    else:
        raise SystemExit(f"report_check: unknown command {cmd}")
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
