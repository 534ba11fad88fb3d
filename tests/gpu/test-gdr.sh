#!/bin/bash
# tier: gpu
# GPUDirect first contact on a real GPU (issue 19): the poller's detection of a host write into GPU
# memory with the stop flag read every spin (old) and every 1,024 spins (now), the GPU->CPU
# notification, the RDMA write ordering attribute, SYNC_MEMOPS, and the first kernel launch while the
# poller spins under lazy and eager module loading. Builds tests/gpu/gdr_check.c. Exit 77 without a GPU.
# Figures: $OUT/gdr-*.json when OUT is set.
. "$(dirname "$0")/check.sh"
check_build gdr_check
o=${OUT:-$(mktemp -d)}
fails=0
poll=$("$B/tests/gdr_check" poll "${LP_GDR_ITERS:-2000}"); rc=$?
echo "$poll"
[ $rc = 77 ] && { echo "no GPU here: skipped"; exit 77; }
[ $rc = 0 ] || { echo "FAIL gdr_check poll (rc=$rc)"; exit 1; }
echo "$poll" | tail -n 1 >"$o/gdr-poll.json"
lazy=$(CUDA_MODULE_LOADING=LAZY timeout 60 "$B/tests/gdr_check" launch) || { echo "FAIL launch (lazy)"; fails=$((fails + 1)); }
eager=$(timeout 60 "$B/tests/gdr_check" launch) || { echo "FAIL launch (eager)"; fails=$((fails + 1)); }
echo "$lazy"; echo "$eager"
echo "$lazy" | tail -n 1 >"$o/gdr-launch-lazy.json"
echo "$eager" | tail -n 1 >"$o/gdr-launch-eager.json"
python3 - "$o" <<'PY' || fails=$((fails + 1))
import json, sys
o = sys.argv[1]
p = json.load(open(o + "/gdr-poll.json"))
eager = json.load(open(o + "/gdr-launch-eager.json"))
lazy = json.load(open(o + "/gdr-launch-lazy.json"))
for k in ("write_only_ns", "detect_every_spin_ns", "detect_ns"):
    assert p[k]["n"] > 0 and 0 < p[k]["min"] <= p[k]["p50"] <= p[k]["p99"], (k, p[k])
assert p["rdma_writes_ordering"] in (0, 100, 200), p
assert p["sync_memops"] is True, p
assert p["notify_ns"] > 0, p
# correctness, not speed: with eager loading the first launch must not wait for the poller
assert eager["module_loading"] == "EAGER" and eager["first_launch_s"] < 1.0, eager
print("ok: ordering %d, detection p50 %d ns (every spin: %d ns; write alone %d ns), notification %d ns; "
      "first launch under the poller: eager %.4f s, lazy %.4f s" % (p["rdma_writes_ordering"], p["detect_ns"]["p50"],
      p["detect_every_spin_ns"]["p50"], p["write_only_ns"]["p50"], p["notify_ns"], eager["first_launch_s"],
      lazy["first_launch_s"]))
PY
echo "gdr checks: $fails failed"
exit $((fails ? 1 : 0))
