#!/bin/bash
# tier: gpu
# GPU memory provider (gpu/gpumem.h): builds tests/gpu/gpumem_check.c against the library and runs it.
# Exit 77 without CUDA or without a GPU.
. "$(dirname "$0")/check.sh"
check_build gpumem_check
out=$("$B/tests/gpumem_check" "${LP_GPUMEM_ITERS:-2000}")
rc=$?
echo "$out"
[ $rc = 77 ] && { echo "no GPU here: skipped"; exit 77; }
[ $rc = 0 ] || { echo "gpumem_check failed (rc=$rc)"; exit 1; }
echo "$out" | tail -n 1 | python3 -c '
import json, sys
d = json.load(sys.stdin)
v = d["visibility_ns"]
assert d["failures"] == 0 and d["corruption_detected"], d
assert v["n"] > 0 and 0 < v["min"] <= v["p50"] <= v["p99"] < 1e8, v
print("ok: dmabuf %s; visibility min %d p50 %d p99 %d ns" % (d["dmabuf"], v["min"], v["p50"], v["p99"]))
if d["dmabuf"] != "ok":
    print("SKIP dma-buf export: not supported by this driver/GPU (only the refusal was checked)")
'
