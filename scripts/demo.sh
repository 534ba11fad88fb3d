#!/bin/bash
# The main job on a built-in default: lp-rdma across sizes on real RDMA hardware when there is
# some (server and client on this host, through its first RDMA device), otherwise on a Soft-RoCE
# link inside a QEMU guest; and lp-gpu on the GPUs when there are any. A part that cannot run
# here says why in one line, and how to get it.
# Results (JSON) go to $LP_DEMO_OUT (default results/) as demo-rdma-*.json, demo-gpu-*.json.
#
# What is here is asked of commands on PATH, so tests can fake them (tests/demo/):
#   RDMA device: `ibv_devices` lists one · GPU: `nvidia-smi -L` lists one · guest: qemu-system-x86_64.
# Env: LP_BUILD (dir of lp-rdma, lp-gpu; default build), LP_VM (the guest runner, default
# scripts/lp-vm), LP_DEMO_SIZES (default 2,64,4K,64K), LP_DEMO_OUT, LP_DEMO_PORT (default 18600).
# Exit: 0 every part that could run passed · 1 a part failed · 77 nothing could run here.
set -u
cd "$(dirname "$0")/.."
B=${LP_BUILD:-build}
VM=${LP_VM:-scripts/lp-vm}
OUT=${LP_DEMO_OUT:-results}
PORT=${LP_DEMO_PORT:-18600}
TESTS=write_lat,read_lat,send_lat,write_bw,read_bw,send_bw
SIZES=${LP_DEMO_SIZES:-2,64,4K,64K}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
ran=0 failed=0 parts_ok="" parts_failed="" parts_skipped=""

# A part that cannot run here: its line says why (and how to get it).
skip() { # name why
	echo "== $1 skipped: $2"
	parts_skipped="$parts_skipped $1"
}

# A part's exit status: 0 ran, 77 the tool found nothing to run on (its reason is on stderr).
account() { # name rc
	case $2 in
	0) ran=$((ran + 1)) parts_ok="$parts_ok $1" ;;
	77) skip "$1" "the tool found nothing to run on here (exit 77; its reason is above)" ;;
	*) ran=$((ran + 1)) failed=$((failed + 1)) parts_failed="$parts_failed $1"
		echo "== $1 FAILED (exit $2)" ;;
	esac
}

# The first RDMA device `ibv_devices` lists (two header lines, then one device a line), or nothing.
rdma_device() { ibv_devices 2>/dev/null | awk 'NR > 2 && NF { print $1; exit }'; }

# Empty when lp-gpu can run here, else the reason it cannot.
gpu_missing() {
	if [ ! -x "$B/lp-gpu" ]; then
		echo "$B/lp-gpu is not built (CUDA not found when building: see make's first lines)"
	elif ! command -v nvidia-smi >/dev/null 2>&1; then
		echo "no NVIDIA GPU here (nvidia-smi not found)"
	elif ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
		echo "no NVIDIA GPU here (nvidia-smi -L lists none)"
	fi
}

# lp-rdma on the local device: server and client on this host, the exchange over loopback.
rdma_local() { # device json
	local dev=$1 json=$2 srv rc i
	echo "== lp-rdma on $dev (server and client on this host; exchange over 127.0.0.1)"
	"$B/lp-rdma" --server --once -d "$dev" -p "$PORT" >/dev/null &
	srv=$!
	"$B/lp-rdma" 127.0.0.1 -p "$PORT" -d "$dev" --wait 10 -t $TESTS -s "$SIZES" -n 2000 --verify \
		--json "$json"
	rc=$?
	# The server ends with its one client; if the client never reached it, stop it (bounded).
	for ((i = 0; i < 50; i++)); do
		kill -0 $srv 2>/dev/null || break
		sleep 0.2
	done
	kill $srv 2>/dev/null
	wait $srv 2>/dev/null
	return $rc
}

# lp-rdma over Soft-RoCE in a QEMU guest whose root is this host's (the binaries run there).
rdma_guest() { # json
	echo "== no RDMA device here: lp-rdma over Soft-RoCE (rdma_rxe) in a QEMU guest (about 1-2 minutes;" \
		"the guest's CPU is emulated: its figures show the method, not a network's speed)"
	"$VM" --rw "$OUT" "$B/lp-rdma --server --once -p $PORT >/dev/null & \
		$B/lp-rdma \$LP_VM_IP -p $PORT --wait 10 -t $TESTS -s $SIZES -n 300 --verify --json $1"
}

rdma_part() {
	local dev json=$OUT/demo-rdma-$stamp.json
	if [ ! -x "$B/lp-rdma" ]; then
		skip lp-rdma "$B/lp-rdma is not built (rdma-core headers missing: run scripts/install-deps.sh)"
		return
	fi
	dev=$(rdma_device)
	if [ -n "$dev" ]; then
		rdma_local "$dev" "$json"
	elif command -v qemu-system-x86_64 >/dev/null 2>&1; then
		rdma_guest "$json"
	else
		skip lp-rdma "no RDMA device here (ibv_devices lists none) and no qemu-system-x86_64 for a Soft-RoCE guest; to run it, install qemu (scripts/install-deps.sh) or use a host with an RDMA device"
		return
	fi
	account lp-rdma $?
	[ -s "$json" ] && echo "JSON: $json"
}

gpu_part() {
	local why json=$OUT/demo-gpu-$stamp.json rc
	why=$(gpu_missing)
	if [ -n "$why" ]; then
		skip lp-gpu "$why; it runs on a host with an NVIDIA GPU and its driver"
		return
	fi
	echo "== lp-gpu on this host's GPUs"
	# one run: the tables for the reader, the JSON document into its file
	"$B/lp-gpu" --json "$json"
	rc=$?
	[ $rc = 0 ] && echo "JSON: $json"
	account lp-gpu $rc
}

mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 1
rdma_part
echo
gpu_part
if [ $ran = 0 ]; then
	echo "demo: nothing could run here (no RDMA device, no qemu for the guest, no GPU): see the lines above"
	exit 77
fi
echo "demo: ran:${parts_ok:- none}; failed:${parts_failed:- none}; skipped:${parts_skipped:- none}; JSON in $OUT/"
[ $failed = 0 ]
