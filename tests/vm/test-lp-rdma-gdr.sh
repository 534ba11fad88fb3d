#!/bin/bash
# GPUDirect first contact without a GPU: QP and registration choices, the server's reason, --gpu/--dev
# handling, against the kernel's Soft-RoCE driver in a QEMU guest (tests/vm/lp-rdma-gdr-guest.sh).
set -u
cd "$(dirname "$0")/../.."
B=${LP_BUILD:-build}
command -v qemu-system-x86_64 >/dev/null || { echo "qemu-system-x86_64 not installed"; exit 77; }
[ -x "$B/lp-rdma" ] || { echo "$B/lp-rdma not built (rdma-core headers missing?)"; exit 77; }
out=$(mktemp -d "${TMPDIR:-/tmp}/lp-rdma-gdr-test.XXXXXX")
trap 'rm -rf "$out"' EXIT
scripts/lp-vm --timeout 600 --rw "$out" "LP_BUILD=$B OUT=$out ASAN_OPTIONS=detect_leaks=1 sh tests/vm/lp-rdma-gdr-guest.sh"
