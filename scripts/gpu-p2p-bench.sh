#!/bin/bash
# lp-gpu's peer-to-peer matrices on a multi-GPU machine beside PyTorch peer copies measured in the
# same run, with the topology report. Usage: scripts/gpu-p2p-bench.sh [OUTDIR]
# Env: LP_BUILD (default build), LP_P2P_SIZE (default 1G), LP_P2P_SAMPLES (default 5).
set -u
cd "$(dirname "$0")/.."
out=${1:-${OUT:-results/gpu-p2p}}
B=${LP_BUILD:-build}
size=${LP_P2P_SIZE:-1G}
samples=${LP_P2P_SAMPLES:-5}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p "$out"
nvidia-smi topo -m >"$out/nvidia-smi-topo.txt" 2>&1; cat "$out/nvidia-smi-topo.txt"
tests=p2p_write_ce,p2p_read_ce,p2p_write_sm,p2p_read_sm,p2p_bidir_ce,p2p_bidir_sm,one_to_all_ce,all_to_one_ce,lat_p2p_sm
"$B/lp-gpu" -t "$tests" -s "$size" --samples "$samples" >"$out/lp-gpu-p2p.txt" 2>&1; echo "lp-gpu rc=$?"
"$B/lp-gpu" -t "$tests" -s "$size" --samples "$samples" --json - >"$out/lp-gpu-p2p.json" 2>"$out/lp-gpu-p2p.err"
python3 - "$size" "$samples" "$out/torch-p2p.json" <<'PY'
# PyTorch peer copies, timed like lp-gpu: warm-up, events around 16 copies, median of samples.
import json, statistics, sys, time, torch
m = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
s = sys.argv[1]; n = int(s[:-1]) * m[s[-1]] if s[-1] in m else int(s)
samples, iters = int(sys.argv[2]), 16
ng = torch.cuda.device_count()
res = {"torch": torch.__version__, "gpus": ng, "size": n, "write": [], "bidir": []}
bufs = [torch.empty(n, dtype=torch.uint8, device=f"cuda:{g}").random_(0, 255) for g in range(ng)]
dsts = [torch.empty(n, dtype=torch.uint8, device=f"cuda:{g}") for g in range(ng)]
for src in range(ng):
    for dst in range(ng):
        if src == dst: continue
        with torch.cuda.device(src):
            for _ in range(4): dsts[dst].copy_(bufs[src], non_blocking=True)
            torch.cuda.synchronize(src); torch.cuda.synchronize(dst)
            v = []
            for _ in range(samples):
                a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                a.record()
                for _ in range(iters): dsts[dst].copy_(bufs[src], non_blocking=True)
                b.record(); b.synchronize(); torch.cuda.synchronize(dst)
                v.append(n * iters / (a.elapsed_time(b) * 1e-3) / 1e9)
        assert torch.equal(dsts[dst], bufs[src].to(f"cuda:{dst}"))
        res["write"].append({"src": src, "dst": dst, "median": statistics.median(v), "min": min(v), "max": max(v)})
for a in range(ng):
    for b in range(a + 1, ng):
        sa, sb = torch.cuda.Stream(a), torch.cuda.Stream(b)
        v = []
        for k in range(samples + 1):
            torch.cuda.synchronize(a); torch.cuda.synchronize(b)
            t0 = time.perf_counter()
            with torch.cuda.stream(sa):
                for _ in range(iters): dsts[b].copy_(bufs[a], non_blocking=True)
            with torch.cuda.stream(sb):
                for _ in range(iters): dsts[a].copy_(bufs[b], non_blocking=True)
            sa.synchronize(); sb.synchronize()
            if k: v.append(2 * n * iters / (time.perf_counter() - t0) / 1e9)
        res["bidir"].append({"a": a, "b": b, "sum_median": statistics.median(v), "min": min(v), "max": max(v)})
json.dump(res, open(sys.argv[3], "w"), indent=1)
PY
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import json, os, sys
o = sys.argv[1]
lp = json.load(open(os.path.join(o, "lp-gpu-p2p.json")))
tr = json.load(open(os.path.join(o, "torch-p2p.json")))
def cells(test, series=0):
    for r in lp["results"]:
        if r["test"] == test:
            return {(c["to"], c["from"]): c for c in r["series"][series]["cells"]}
    return {}
print("GPUs:", ", ".join("%s %s NVLink %s x%d up %d (%.0f GB/s/dir)" % (g["name"], g["bus_id"], g["nvlink"]["version"],
      g["nvlink"]["links"], g["nvlink"]["up"], g["nvlink"]["ceiling_gbytes_per_s"]) for g in lp["gpus"]))
print("warnings:", lp.get("warnings") or "none")
w = cells("p2p_write_ce")
print("%-10s %12s %12s %12s %9s %9s" % ("pair", "lp CE write", "lp spread", "torch", "lp/torch", "lp/ceil"))
for t in tr["write"]:
    c = w.get(("GPU%d" % t["dst"], "GPU%d" % t["src"]))
    if not c or c["status"] != "ok":
        print("GPU%d->GPU%d  %s" % (t["src"], t["dst"], c and c.get("reason"))); continue
    print("GPU%d->GPU%d %12.1f %5.1f-%5.1f %12.1f %8.1f%% %8.1f%%" % (t["src"], t["dst"], c["median"], c["min"], c["max"],
          t["median"], 100 * c["median"] / t["median"], c.get("pct_of_ceiling") or float("nan")))
for t in tr["bidir"]:
    print("bidir GPU%d<->GPU%d  torch sum %.1f GB/s (min %.1f max %.1f)" % (t["a"], t["b"], t["sum_median"], t["min"], t["max"]))
print("units: GB/s = 1e9 B/s; pairs are source -> destination; torch", tr["torch"])
PY
