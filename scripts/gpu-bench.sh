#!/bin/bash
# lp-gpu beside a plain peer (PyTorch copies, CUDA events) on one GPU machine, and beside the card's ceilings.
# Usage: scripts/gpu-bench.sh [OUTDIR]   (default $OUT, else results/gpu-bench)
# Env: LP_BUILD (default build), LP_BENCH_SIZES (default 256M,1G), LP_BENCH_SAMPLES (default 7).
# Order: lp-gpu, PyTorch, lp-gpu again (the two lp-gpu runs show the run-to-run spread).
set -u
cd "$(dirname "$0")/.."
out=${1:-${OUT:-results/gpu-bench}}
B=${LP_BUILD:-build}
sizes=${LP_BENCH_SIZES:-256M,1G}
samples=${LP_BENCH_SAMPLES:-7}
tests=h2d_ce,h2d_sm,d2h_ce,d2h_sm,hd_bidir_ce,local_ce,local_sm
mkdir -p "$out"
[ -x "$B/lp-gpu" ] || { echo "build lp-gpu first (make)"; exit 2; }
nvidia-smi --query-gpu=name,driver_version,pci.bus_id,pcie.link.gen.max,pcie.link.width.max,clocks.max.memory,memory.total \
	--format=csv >"$out/nvidia-smi.csv" 2>&1
cat "$out/nvidia-smi.csv"
set -o pipefail
"$B/lp-gpu" -t "$tests" -s "$sizes" --samples "$samples" -n 16 --json - >"$out/lp-gpu-1.json" || exit $?

python3 - "$sizes" "$samples" "$out/torch.json" <<'PY' || exit 1
# The peer: PyTorch copies timed the same way (warm-up, CUDA events around 16 copies, median of samples).
import json, statistics, sys, torch
def parse(s):
    m = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(s[:-1]) * m[s[-1]] if s[-1] in m else int(s)
sizes = [parse(s) for s in sys.argv[1].split(",")]
samples, iters, warm = int(sys.argv[2]), 16, 4
res = {"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "results": []}
def bench(fn, nbytes, rw=1):
    for _ in range(warm): fn()
    torch.cuda.synchronize()
    v = []
    for _ in range(samples):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(iters): fn()
        b.record(); b.synchronize()
        v.append(nbytes * iters * rw / (a.elapsed_time(b) * 1e-3) / 1e9)
    return statistics.median(v), min(v), max(v)
for n in sizes:
    h = torch.empty(n, dtype=torch.uint8, pin_memory=True); h.random_(0, 255)
    h2 = torch.empty(n, dtype=torch.uint8, pin_memory=True)
    d = torch.empty(n, dtype=torch.uint8, device="cuda"); d.random_(0, 255)
    d2 = torch.empty(n, dtype=torch.uint8, device="cuda")
    for path, fn, rw in (("h2d", lambda: d2.copy_(h, non_blocking=True), 1),
                         ("d2h", lambda: h2.copy_(d, non_blocking=True), 1),
                         ("local", lambda: d2.copy_(d), 2)):
        med, lo, hi = bench(fn, n, rw)
        res["results"].append({"path": path, "size": n, "median": med, "min": lo, "max": hi})
    torch.cuda.synchronize()
    assert torch.equal(d2, d), "torch copy mismatch"
    del h, h2, d, d2
    torch.cuda.empty_cache()
json.dump(res, open(sys.argv[3], "w"), indent=1)
PY
"$B/lp-gpu" -t "$tests" -s "$sizes" --samples "$samples" -n 16 --json - >"$out/lp-gpu-2.json" || exit $?

python3 - "$out" <<'PY' | tee "$out/summary.txt"
import json, sys, os
o = sys.argv[1]
runs = [json.load(open(os.path.join(o, f))) for f in ("lp-gpu-1.json", "lp-gpu-2.json")]
tr = json.load(open(os.path.join(o, "torch.json")))
g = runs[0]["gpus"][0]
print("GPU %s (%s), driver %s, CUDA %s; PCIe max Gen%d x%d -> %.1f GB/s/dir; HBM %.0f GB/s (%.0f MHz x %d bit)" % (
    g["name"], g["bus_id"], runs[0]["driver"]["nvidia_driver"], runs[0]["driver"]["cuda_driver"],
    g["pcie"]["max_gen"], g["pcie"]["max_width"], g["pcie"]["ceiling_gbytes_per_s"], g["hbm_ceiling_gbytes_per_s"],
    g["memory_clock_mhz"], g["memory_bus_width_bits"]))
print("PCIe now (under load): Gen%d x%d; warnings: %s" % (g["pcie"]["current_gen"], g["pcie"]["current_width"],
      runs[0]["warnings"] or "none"))
def cell(run, test, size, series=0):
    for r in run["results"]:
        if r["test"] == test and r["size"] == size:
            return r["series"][series]["cells"][0]
def best(test, size, series=0):
    c = [cell(r, test, size, series) for r in runs]
    return max(x["median"] for x in c), c
print("%-7s %6s %11s %11s %11s %11s %9s %8s %8s" % ("path", "size", "lp CE", "lp SM", "lp spread", "torch",
      "ceiling", "lp/torch", "lp/ceil"))
for size in sorted({r["size"] for r in tr["results"]}):
    for path in ("h2d", "d2h", "local"):
        ce, cec = best(path + "_ce", size)
        sm, smc = best(path + "_sm", size)
        t = next(r for r in tr["results"] if r["path"] == path and r["size"] == size)
        lp = max(ce, sm)
        spread = max(abs(a["median"] - b["median"]) / max(a["median"], b["median"]) for a, b in [cec, smc]) * 100
        ceil = cec[0].get("ceiling") or 0
        print("%-7s %5dM %11.2f %11.2f %10.1f%% %11.2f %9.1f %7.1f%% %7.1f%%" % (path, size >> 20, ce, sm, spread,
              t["median"], ceil, 100 * lp / t["median"], 100 * lp / ceil if ceil else float("nan")))
    bi = [cell(runs[0], "hd_bidir_ce", size, s)["median"] for s in range(3)]
    print("bidir   %5dM  CPU->GPU %.2f  GPU->CPU %.2f  sum %.2f GB/s (CE)" % (size >> 20, *bi))
print("units: GB/s = 1e9 B/s; local counts bytes read + written; lp = best of the two lp-gpu runs; torch %s" % tr["torch"])
PY
