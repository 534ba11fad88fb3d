#!/bin/bash
# bench-perftest.sh - lp-rdma against perftest, side by side, in one Soft-RoCE guest.
#
# usage: scripts/bench-perftest.sh [--repeats N] [--quick] [--out DIR] [--cases LIST] [--timeout S]
#                                  [--lp-args 'ARGS']
#   --repeats N   pairs per case (default 5); perftest and lp-rdma alternate which goes first
#   --quick       200 iterations instead of 2000 (a smoke run)
#   --out DIR     raw outputs, results.tsv and table.md (default build/bench-perftest/<UTC time>)
#   --cases LIST  a subset, comma-separated: write_lat_2 write_lat_4k read_lat_2 send_lat_2
#                 write_bw_64k read_bw_64k send_bw_64k write_bw_4k (default all)
#   --timeout S   wall limit for the guest (default 300 + 300 per repeat)
#   --lp-args A   extra lp-rdma client options, e.g. '-Q 1 -I 0' to match perftest 4.5 on rxe
#                 (which signals every WR and inlines nothing); default none (lp-rdma's defaults)
#   --analyze DIR only re-read the raw outputs of an earlier run in DIR and print the table
# Boots one guest (scripts/lp-vm) that runs scripts/bench-perftest-guest.sh, then prints per case
# the median and min-max of each tool over the repeats and the ratio lp-rdma/perftest
# (latency: lower is better, < 1 means lp-rdma is faster; bandwidth: higher is better).
# Units: latency us (perftest t_typical = median of RTT/2 for write/send, of full RTT for read;
# lp-rdma p50 with the same definitions); bandwidth MB/s = 1e6 B/s (perftest --report_gbits
# Gb/s x 125; lp-rdma GB/s x 1000). A failed run is shown as failed, never dropped.
# Exit: 0 when the guest finished the whole plan (the ratios are data, not a verdict);
# 1 when it did not (partial table still printed); 2 on usage errors.
set -u

me=bench-perftest
top=$(cd "$(dirname "$0")/.." && pwd)
cmdline="$0 $*"
repeats=5 quick=0 out='' cases='' timeout='' analyze=0 lp_args=''
usage() { sed -n '4,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
    --repeats) [ $# -ge 2 ] || usage; repeats=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    --cases) [ $# -ge 2 ] || usage; cases=$2; shift 2 ;;
    --timeout) [ $# -ge 2 ] || usage; timeout=$2; shift 2 ;;
    --analyze) [ $# -ge 2 ] || usage; out=$2; analyze=1; shift 2 ;;
    --lp-args) [ $# -ge 2 ] || usage; lp_args=$2; shift 2 ;;
    -h | --help) usage ;;
    *) echo "$me: unknown argument: $1" >&2; usage ;;
    esac
done
case $lp_args in *[\'\"\\\$\`]*) echo "$me: --lp-args: no quotes, backslashes, \$ or backquotes" >&2; exit 2 ;; esac
case $repeats in '' | *[!0-9]* | 0) echo "$me: bad --repeats: $repeats" >&2; exit 2 ;; esac
[ -n "$timeout" ] || timeout=$((300 + 300 * repeats))
case $timeout in '' | *[!0-9]* | 0) echo "$me: bad --timeout: $timeout" >&2; exit 2 ;; esac
[ -x "$top/build/lp-rdma" ] || { echo "$me: build/lp-rdma missing: run make -j2" >&2; exit 2; }
command -v ib_write_lat >/dev/null 2>&1 || { echo "$me: perftest not installed (apt-get install perftest)" >&2; exit 2; }
command -v python3 >/dev/null 2>&1 || { echo "$me: python3 needed" >&2; exit 2; }
[ -n "$out" ] || out=$top/build/bench-perftest/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd -P)
vm_rc=0
if [ "$analyze" = 0 ]; then

# host facts (the guest sees "QEMU TCG CPU"; the host's own model and load matter for the noise)
{
    echo "host_date_utc=$(date -u)"
    echo "host_nproc=$(nproc)"
    echo "host_cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
    echo "host_qemu=$(qemu-system-x86_64 --version 2>/dev/null | head -n1)"
    echo "host_load_before=$(cut -d' ' -f1-3 /proc/loadavg)"
    echo "host_qemu_procs_before=$(pgrep -c qemu-system 2>/dev/null || echo 0)"
    echo "command=$cmdline"
} >"$out/host.txt"
gargs="--out $out --repeats $repeats"
[ "$quick" = 1 ] && gargs="$gargs --quick"
[ -z "$cases" ] || gargs="$gargs --cases $cases"
[ -z "$lp_args" ] || gargs="$gargs --lp-args '$lp_args'"

echo "$me: guest run, raw outputs in $out (timeout ${timeout}s)" >&2
t0=$(date +%s)
cd "$top" || exit 2
scripts/lp-vm --rw "$out" --timeout "$timeout" "scripts/bench-perftest-guest.sh $gargs" >"$out/console.txt" 2>&1
vm_rc=$?
t1=$(date +%s)
{
    echo "host_load_after=$(cut -d' ' -f1-3 /proc/loadavg)"
    echo "vm_rc=$vm_rc"
    echo "wall_s=$((t1 - t0))"
} >>"$out/host.txt"
[ "$vm_rc" = 0 ] || echo "$me: the guest run ended with status $vm_rc (see $out/console.txt)" >&2
fi

python3 - "$out" <<'PY'
import json, math, os, re, statistics, sys

out = sys.argv[1]
raw = os.path.join(out, "raw")

def kv(path):
    d = {}
    try:
        for line in open(path):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                d[k] = v
    except OSError:
        pass
    return d

meta, host = kv(os.path.join(out, "meta.txt")), kv(os.path.join(out, "host.txt"))
CASES = [  # id, label, kind, size, perftest binary
    ("write_lat_2", "write_lat", "lat", 2, "ib_write_lat"),
    ("write_lat_4k", "write_lat", "lat", 4096, "ib_write_lat"),
    ("read_lat_2", "read_lat", "lat", 2, "ib_read_lat"),
    ("send_lat_2", "send_lat", "lat", 2, "ib_send_lat"),
    ("write_bw_64k", "write_bw", "bw", 65536, "ib_write_bw"),
    ("read_bw_64k", "read_bw", "bw", 65536, "ib_read_bw"),
    ("send_bw_64k", "send_bw", "bw", 65536, "ib_send_bw"),
    ("write_bw_4k", "write_bw", "bw", 4096, "ib_write_bw"),
]
kind_of = {c[0]: c[2] for c in CASES}

def parse_pf(stem, kind, size):
    """perftest text: the result row starts with the size. lat: t_typical (col 5); bw: BW average Gb/s (col 4)."""
    try:
        text = open(os.path.join(raw, stem + ".txt")).read()
    except OSError:
        return None, "no output", {}
    gid = re.search(r"GID index\s*:\s*(\d+)", text)
    info = {"gid": gid.group(1) if gid else "?"}
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 5 and f[0] == str(size) and re.fullmatch(r"\d+", f[1]):
            try:
                v = float(f[4]) if kind == "lat" else float(f[3]) * 125.0  # Gb/s -> MB/s (1e6 B/s)
            except ValueError:
                break
            if not math.isfinite(v) or v <= 0:
                # perftest 4.5 converts cycles with its own CPU MHz estimate; when that estimate
                # fails (a loaded TCG guest) it prints inf/nan: a failed run, not a number
                return None, "perftest printed %s, not a measurement (perftest 4.5 scales cycles by its own CPU-MHz estimate, which can fail in a loaded guest)" % f[4 if kind == "lat" else 3], info
            return v, None, info
    last = [l for l in text.splitlines() if l.strip()][-1:] or ["empty"]
    return None, "no result row: " + last[0].strip()[:80], info

def parse_lp(stem, kind):
    """lp-rdma --json: latency_us.p50 (one-way for write/send, full for read) or bandwidth GB/s."""
    try:
        d = json.load(open(os.path.join(raw, stem + ".json")))
    except (OSError, ValueError) as e:
        try:
            last = [l for l in open(os.path.join(raw, stem + ".txt")) if l.strip()][-1].strip()
        except (OSError, IndexError):
            last = str(e)
        return None, "no JSON: " + last[:80], {}
    info = {"gid": str(d.get("local_device", {}).get("gid_index", "?")),
            "clock": d.get("method", {}).get("clock", "?"),
            "clock_detail": d.get("method", {}).get("clock_detail", "?")}
    res = (d.get("results") or [{}])[0]
    if res.get("status") != "ok":
        return None, "status " + str(res.get("status")), info
    try:
        if kind == "lat":
            return float(res["latency_us"]["p50"]), None, info
        return float(res["bandwidth"]["gbytes_per_s"]) * 1000.0, None, info
    except (KeyError, TypeError, ValueError):
        return None, "unexpected JSON", info

runs = []  # parsed rows
try:
    lines = open(os.path.join(out, "runs.tsv")).read().splitlines()[1:]
except OSError:
    lines = []
for line in lines:
    f = line.split("\t")
    if len(f) < 7:
        continue
    rep, cid, tool, pos, rc, wall, stem = f[:7]
    kind = kind_of.get(cid)
    size = next((c[3] for c in CASES if c[0] == cid), 0)
    if tool == "pf":
        val, err, info = parse_pf(stem, kind, size)
    else:
        val, err, info = parse_lp(stem, kind)
    if rc != "0":
        err = "rc %s%s" % (rc, " (timeout)" if rc in ("124", "137") else "") + ("; " + err if err else "")
        val = None if rc in ("124", "137") or val is None else val
    runs.append(dict(rep=int(rep), case=cid, tool=tool, pos=int(pos), rc=rc, wall=wall,
                     stem=stem, val=val, err=err, **info))

with open(os.path.join(out, "results.tsv"), "w") as fo:
    fo.write("repeat\tcase\ttool\tposition\trc\twall_s\tvalue\tunit\tgid\tclock\terror\n")
    for r in runs:
        fo.write("%d\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n" % (
            r["rep"], r["case"], r["tool"], r["pos"], r["rc"], r["wall"],
            "" if r["val"] is None else "%.4f" % r["val"],
            "us" if kind_of[r["case"]] == "lat" else "MB/s", r.get("gid", "?"),
            r.get("clock", "-"), r["err"] or ""))

repeats = int(meta.get("repeats", "0") or 0)

def fmt(x):
    return "-" if x is None else ("%.2f" % x if x < 100 else "%.1f" % x if x < 1000 else "%.0f" % x)

def summary(vals, planned):
    ok = [v for v in vals if v is not None]
    if not ok:
        return None, "all failed/missing (%d/%d)" % (len(vals) - len(ok), planned)
    med = statistics.median(ok)
    s = "%s [%s–%s]" % (fmt(med), fmt(min(ok)), fmt(max(ok)))
    fails = planned - len(ok)
    if fails:
        s += " (%d of %d failed/missing)" % (fails, planned)
    return med, s

rows = []
rows.append("| case | size | iters | perftest median [min–max] | lp-rdma median [min–max] | ratio lp/pf (of medians) | paired ratio median [min–max] | target met |")
rows.append("|---|---|---|---|---|---|---|---|")
iters = {"lat": meta.get("lat_iters", "?"), "bw": meta.get("bw_iters", "?")}
for cid, label, kind, size, pfbin in CASES:
    rs = [r for r in runs if r["case"] == cid]
    if not rs:
        continue
    pf = {r["rep"]: r["val"] for r in rs if r["tool"] == "pf"}
    lp = {r["rep"]: r["val"] for r in rs if r["tool"] == "lp"}
    planned = max(repeats, len(pf), len(lp))
    pfm, pfs = summary(list(pf.values()) + [None] * (planned - len(pf)), planned)
    lpm, lps = summary(list(lp.values()) + [None] * (planned - len(lp)), planned)
    ratio = lpm / pfm if pfm and lpm else None
    paired = [lp[k] / pf[k] for k in pf if k in lp and pf[k] and lp[k]]
    pr = "%.2f [%.2f–%.2f]" % (statistics.median(paired), min(paired), max(paired)) if paired else "-"
    def good(x):
        return x <= 1.0 if kind == "lat" else x >= 1.0
    if ratio is None:
        met = "n/a"
    else:
        votes = {good(ratio)} | ({good(statistics.median(paired))} if paired else set())
        met = "mixed" if len(votes) > 1 else "yes" if votes.pop() else "no"
    unit = "us" if kind == "lat" else "MB/s"
    szs = "%d B" % size if size < 1024 else "%d KiB" % (size // 1024)
    rows.append("| %s (%s) | %s | %s | %s | %s | %s | %s | %s |" % (
        label, unit, szs, iters[kind], pfs, lps, "-" if ratio is None else "%.2f" % ratio, pr, met))

clocks = {}
for r in runs:
    if r["tool"] == "lp" and r.get("clock"):
        clocks[r["clock"]] = clocks.get(r["clock"], 0) + 1
details = []
for r in runs:  # one example of each clock kind
    if r["tool"] == "lp" and r.get("clock_detail") and not any(
            d.split(" ")[0] == r["clock_detail"].split(" ")[0] for d in details):
        details.append(r["clock_detail"])
gids = sorted({"%s:%s" % (r["tool"], r.get("gid", "?")) for r in runs})
failed = [r for r in runs if r["val"] is None or r["err"]]
notes = []
notes.append("- latency: us, median of the run's samples (perftest t_typical; lp-rdma p50); one-way = RTT/2 for write/send, full round trip for read. Lower is better: ratio < 1 means lp-rdma is faster.")
notes.append("- bandwidth: MB/s = 1e6 B/s, perftest `--report_gbits` BW average x 125, lp-rdma GB/s x 1000. Higher is better: ratio > 1 means lp-rdma is faster.")
notes.append("- spread: min–max over the repeats; paired ratio: lp/pf of the two runs of the same repeat (adjacent in time). target met: yes/no when the ratio of medians and the median paired ratio agree, mixed when they do not.")
notes.append("- lp-rdma clock (client, per run): " + ", ".join("%s x%d" % kv_ for kv_ in sorted(clocks.items())))
for dtl in details[:6]:
    notes.append("  - `%s`" % dtl)
try:
    srv = open(os.path.join(raw, "lp-server.txt")).read()
except OSError:
    srv = ""
m = re.search(r"clock: (.*)", srv)
if m:
    notes.append("- lp-rdma server clock: `%s`" % m.group(1).strip())
elif "TSC rate unstable" in srv:
    notes.append("- lp-rdma server clock: CLOCK_MONOTONIC_RAW (its TSC calibration was rejected: `%s`)" %
                 re.search(r"TSC rate unstable[^\n]*", srv).group(0))
else:
    notes.append("- lp-rdma server clock: tsc (no fallback warning in raw/lp-server.txt)")
notes.append("- lp-rdma client options beyond -t/-s/-n: " + ("`%s`" % meta["lp_args"] if meta.get("lp_args") else "none (its defaults)"))
notes.append("- GID index seen (tool:index): " + ", ".join(gids))
notes.append("- guest: %s, %s vCPUs, kernel %s, clocksource %s; perftest %s; %s" % (
    meta.get("guest_cpu", "?"), meta.get("guest_nproc", "?"), meta.get("guest_kernel", "?"),
    meta.get("guest_clocksource", "?"), meta.get("perftest_version", "?"), meta.get("lp_rdma_version", "?")))
notes.append("- host: %s x %s, load %s before / %s after, %s other QEMU processes at start; guest benchmark %s s, total %s s" % (
    host.get("host_nproc", "?"), host.get("host_cpu", "?"), host.get("host_load_before", "?"),
    host.get("host_load_after", "?"), host.get("host_qemu_procs_before", "?"),
    meta.get("guest_bench_wall_s", "?"), host.get("wall_s", "?")))
if failed:
    notes.append("- failed or suspect runs (%d):" % len(failed))
    for r in failed:
        notes.append("  - r%d %s %s: %s" % (r["rep"], r["case"], r["tool"], r["err"] or "no value"))
else:
    notes.append("- failed runs: none (%d runs)" % len(runs))
if host.get("vm_rc", "0") != "0":
    notes.append("- the guest run did not finish (lp-vm status %s): the table is partial" % host.get("vm_rc"))

text = "\n".join(rows) + "\n\n" + "\n".join(notes) + "\n"
open(os.path.join(out, "table.md"), "w").write(text)
print(text, end="")
PY
py_rc=$?
echo "$me: table in $out/table.md, per-run values in $out/results.tsv" >&2
[ "$py_rc" = 0 ] || exit 1
[ "$vm_rc" = 0 ] || exit 1
exit 0
