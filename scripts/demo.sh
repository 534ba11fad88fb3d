#!/bin/bash
# The main job on a built-in default: lp-rdma across sizes on real RDMA hardware when there is
# some (server and client on this host, through the first RDMA device), otherwise on a Soft-RoCE
# link inside a QEMU guest; and lp-gpu on the GPUs when there are any.
# Results (JSON) go to results/demo-*.json.
set -u
cd "$(dirname "$0")/.."
B=${LP_BUILD:-build}
mkdir -p results
stamp=$(date -u +%Y%m%dT%H%M%SZ)
TESTS=write_lat,read_lat,send_lat,write_bw,read_bw,send_bw
SIZES=${LP_DEMO_SIZES:-2,64,4K,64K}
rc=0

have_rdma() { ls /sys/class/infiniband 2>/dev/null | grep -q . ; }
have_gpu() { [ -x "$B/lp-gpu" ] && command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q GPU; }

if have_rdma; then
	dev=$(ls /sys/class/infiniband | head -n 1)
	ip=$(ip -o -4 addr show scope global 2>/dev/null | awk '{print $4}' | cut -d/ -f1 | head -n 1)
	echo "== lp-rdma on $dev (server and client on this host, ${ip:-127.0.0.1})"
	"$B/lp-rdma" --server --once -d "$dev" -p 18600 >/dev/null &
	srv=$!
	"$B/lp-rdma" "${ip:-127.0.0.1}" -p 18600 -d "$dev" --wait 10 -t $TESTS -s "$SIZES" -n 2000 --verify \
		--json "results/demo-rdma-$stamp.json" || rc=1
	wait $srv
else
	echo "== no RDMA device here: lp-rdma over Soft-RoCE (rdma_rxe) in a QEMU guest (about 1-2 minutes)"
	scripts/lp-vm --rw "$PWD/results" "$B/lp-rdma --server --once >/dev/null & \
		$B/lp-rdma \$LP_VM_IP --wait 10 -t $TESTS -s $SIZES -n 300 --verify --json $PWD/results/demo-rdma-$stamp.json" || rc=1
fi
echo "JSON: results/demo-rdma-$stamp.json"
if have_gpu; then
	echo
	echo "== lp-gpu on this host's GPUs"
	"$B/lp-gpu" --json "results/demo-gpu-$stamp.json" >/dev/null || rc=1
	"$B/lp-gpu" || rc=1
fi
exit $rc
