#!/bin/bash
# NCCL collectives over the GPUs of one machine beside lp-gpu's peer matrix, and the ratio to
# what those links allow (issue 28; docs/BENCHMARKS.md, "Collectives").
#
# usage: scripts/bench-collective.sh [OUTDIR]        (default $OUT, else results/bench-collective)
# Env:   LP_BUILD    build dir (default build; built here when lp-sweep is missing)
#        LP_DEBS     a folder of .deb files (librdmacm-dev, libibverbs-dev, libjansson-dev and their
#                    runtime packages) unpacked into OUTDIR/sysroot and used for the build, where the
#                    machine has no such headers and no package registry
#        NCCL_TESTS  a nccl-tests source tree (NVIDIA/nccl-tests): built with MPI=1 and run with
#                    NCCL_DEBUG=INFO, its output imported beside the links (optional)
#        LP_COLL_SIZES  (default 1M:1G), LP_COLL_ITERS (default 20)
# Steps: build; nvidia-smi topology; lp-gpu's P2P matrix (p2p_write_ce, 1 GiB, JSON); lp-sweep
# --collective over one rank per GPU (NCCL on GPU memory, MPI on host memory; no RDMA device
# needed: the collective phase runs alone), with --links pointing at the P2P matrix; with
# NCCL_TESTS, all_reduce_perf and an --diagnose of the run with its output imported. Writes
# OUTDIR/{env.txt,topo.txt,lp-gpu-p2p.json,coll.json,coll.out,summary.txt,...}.
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0 ...): the machine's GPUs are shared.
# With one GPU there is no pair: busbw is 0 by definition (2(n-1)/n), the P2P matrix and the
# ceilings are empty, and the MPI path runs over host memory with more ranks; said in summary.txt.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=${1:-${OUT:-results/bench-collective}}
B=${LP_BUILD:-build}
sizes=${LP_COLL_SIZES:-1M:1G}
iters=${LP_COLL_ITERS:-20}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p "$out"
out=$(cd "$out" && pwd)

# ---- build (headers from carried .deb files where the machine lacks them) ----
if [ -n "${LP_DEBS:-}" ]; then
	root=$out/sysroot
	mkdir -p "$root"
	for d in "$LP_DEBS"/*.deb; do dpkg-deb -x "$d" "$root" || exit 1; done
	inc=$root/usr/include lib=$root/usr/lib/x86_64-linux-gnu
	export CPATH=$inc${CPATH:+:$CPATH} LIBRARY_PATH=$lib${LIBRARY_PATH:+:$LIBRARY_PATH}
	export LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	echo "bench-collective: headers and libraries from $LP_DEBS in $root"
fi
if [ ! -x "$B/lp-sweep" ] || [ ! -x "$B/lp-gpu" ]; then
	make -j"$(nproc)" BUILD="$B" >"$out/build.log" 2>&1 || { tail -20 "$out/build.log"; exit 1; }
	grep '^linkperf:' "$out/build.log"
fi
[ -x "$B/lp-sweep" ] || { echo "bench-collective: no lp-sweep (rdma-core or MPI headers missing: LP_DEBS)"; exit 77; }
[ -x "$B/lp-gpu" ] || { echo "bench-collective: no lp-gpu (CUDA not found)"; exit 77; }
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "$ngpu" -ge 1 ] || { echo "bench-collective: no GPU here"; exit 77; }
MPI=(mpirun --bind-to none)
[ "$(id -u)" = 0 ] && MPI+=(--allow-run-as-root)
MPI+=(-x NCCL_NVLS_ENABLE -x TORCH_SYMM_MEM_DISABLE_MULTICAST -x NVSHMEM_DISABLE_NVLS)
[ -n "${LD_LIBRARY_PATH:-}" ] && MPI+=(-x LD_LIBRARY_PATH)

{
	date -u
	uname -a
	nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id --format=csv
	mpirun --version 2>&1 | head -1
	ls /usr/lib/x86_64-linux-gnu/libnccl.so* /usr/local/cuda*/lib*/libnccl.so* 2>/dev/null
	"$B/lp-sweep" --version
} >"$out/env.txt" 2>&1
cat "$out/env.txt"
nvidia-smi topo -m >"$out/topo.txt" 2>&1

# ---- the links: lp-gpu's peer matrix ----
links=()
if [ "$ngpu" -ge 2 ]; then
	"$B/lp-gpu" -t p2p_write_ce -s 1G --samples 5 --json "$out/lp-gpu-p2p.json" >"$out/lp-gpu-p2p.txt" 2>&1
	echo "lp-gpu rc=$?"
	links=(--links "$out/lp-gpu-p2p.json")
fi

# ---- the collectives: one rank per GPU (NCCL), and the MPI path on host memory ----
np=$ngpu
doc=coll.json
if [ "$ngpu" -ge 2 ]; then
	"${MPI[@]}" -np "$np" "$B/lp-sweep" --collective allreduce,allgather,reducescatter,alltoall,broadcast \
		--coll-paths nccl,mpi,ring --mem cuda --coll-sizes "$sizes" --coll-iters "$iters" --coll-warmup 5 \
		"${links[@]}" --coll-bisect never --json "$out/coll.json" >"$out/coll.out" 2>&1
	echo "lp-sweep rc=$?" | tee -a "$out/coll.out"
else # one GPU: NCCL has no second rank (two ranks on one GPU it refuses), lp-sweep no pair
	echo "one GPU: the NCCL collectives need two (lp-sweep refuses one rank); the MPI path only" |
		tee "$out/coll.out"
	doc=coll-host.json
fi
if [ "$ngpu" -lt 2 ]; then # one GPU: the MPI path over host memory still has pairs
	mp=$(($(nproc) / 2 > 8 ? 8 : $(nproc) / 2))
	"${MPI[@]}" -np "$mp" "$B/lp-sweep" --collective allreduce --coll-paths mpi,ring \
		--coll-sizes 1M:64M --coll-iters "$iters" --coll-bisect never --json "$out/coll-host.json" \
		>"$out/coll-host.out" 2>&1
	echo "lp-sweep (host, $mp ranks) rc=$?" | tee -a "$out/coll-host.out"
fi

# ---- nccl-tests, when its source was carried: its table beside the same links ----
if [ -n "${NCCL_TESTS:-}" ] && [ -d "$NCCL_TESTS" ]; then
	nt=$out/nccl-tests-build
	rm -rf "$nt" && cp -r "$NCCL_TESTS" "$nt"
	mpi_home=$(dirname "$(dirname "$(readlink -f "$(command -v mpicc)")")")
	make -C "$nt" -j"$(nproc)" MPI=1 MPI_HOME="$mpi_home" CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}" \
		>"$out/nccl-tests-build.log" 2>&1 || tail -5 "$out/nccl-tests-build.log"
	if [ -x "$nt/build/all_reduce_perf" ]; then
		NCCL_DEBUG=INFO "${MPI[@]}" -x NCCL_DEBUG -np "$np" "$nt/build/all_reduce_perf" -b 1M -e 1G -f 4 \
			-g 1 -w 5 -n "$iters" -J "$out/all_reduce_perf.json" >"$out/all_reduce_perf.txt" 2>&1
		echo "all_reduce_perf rc=$?"
		"$B/lp-sweep" --diagnose "$out/coll.json" --import "$out/all_reduce_perf.txt" "${links[@]}" \
			--json "$out/diagnose.json" >"$out/diagnose.out" 2>&1
		echo "lp-sweep --diagnose (nccl-tests imported) rc=$?"
	fi
fi

# ---- the figures: NCCL busbw per size beside the ring the P2P matrix allows ----
python3 - "$out" "$ngpu" "$doc" <<'PY' | tee "$out/summary.txt"
import json, os, sys
out, ngpu = sys.argv[1], int(sys.argv[2])
d = json.load(open(os.path.join(out, sys.argv[3])))
c = d.get("collectives", {})
ceil = {(x["collective"], x["scheme"]): x for x in c.get("ceilings", []) if x["group"] == "all"}
print("# bench-collective: %d GPU(s); NCCL %s; %s" % (ngpu, c.get("run", {}).get("nccl_version") or "not run",
      c.get("run", {}).get("mpi_library", "")))
if c.get("run", {}).get("note"):
    print("# note: " + c["run"]["note"])
if ngpu < 2:
    print("# one GPU: no pair, so busbw = algbw x 2(n-1)/n = 0 and no ceiling; algbw is a device-local copy")
print("%-10s %-5s %10s %9s %9s %9s %10s %6s" % ("coll", "path", "size", "time_us", "algbw", "busbw", "allowed", "ratio"))
for r in c.get("results", []):
    if r["in_place"] or r["group"] != "all":
        continue
    sch = {"alltoall": "direct", "broadcast": "chain", "reduce": "chain"}.get(r["collective"], "ring")
    a = ceil.get((r["collective"], sch), {}).get("busbw")
    ratio = r["busbw"] / a if a and r.get("busbw") is not None else None
    print("%-10s %-5s %10d %9.1f %9.2f %9.2f %10s %6s" % (r["collective"], r["path"], r["size"], r["time_us"] or 0,
          r["algbw"] or 0, r["busbw"] or 0, "%.1f" % a if a else "-", "%.2f" % ratio if ratio else "-"))
for (coll, sch), x in sorted(ceil.items()):
    b = x["bottleneck"][0] if x["bottleneck"] else {}
    print("# ceiling %-9s %-9s %8.1f GB/s, held by %s -> %s (%.1f GB/s)" % (coll, sch, x["busbw"],
          b.get("a_name", "?"), b.get("b_name") or b.get("limit", "?"), b.get("gbs", 0)))
PY
echo "bench-collective: results in $out"
