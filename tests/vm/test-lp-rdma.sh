#!/bin/bash
# tier: guest
# Real RDMA: lp-rdma against the kernel's Soft-RoCE driver in a QEMU guest.
# Usage: test-lp-rdma.sh [GUEST_SCRIPT]: runs GUEST_SCRIPT in the guest (default
# tests/vm/lp-rdma-guest.sh; tests/vm/test-lp-rdma-gdr.sh and test-qual.sh pass their own).
# No wall limit: a guest that prints nothing and writes nothing for LP_GUEST_IDLE seconds
# (default 300) is hung (scripts/lp-vm --idle).
set -u
cd "$(dirname "$0")/../.."
guest=${1:-tests/vm/lp-rdma-guest.sh}
. tests/host-lib.sh
host_needs qemu lp-rdma
host_out "" "$(basename "$guest" .sh)"
# ASan builds need their runtime to tolerate the verbs provider's mappings.
scripts/lp-vm --timeout 0 --idle "${LP_GUEST_IDLE:-300}" --rw "$out" "LP_BUILD=$B OUT=$out ASAN_OPTIONS=detect_leaks=1 sh $guest"
