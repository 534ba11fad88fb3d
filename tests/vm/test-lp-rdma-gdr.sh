#!/bin/bash
# tier: guest
# GPUDirect first contact without a GPU: QP and registration choices, the server's reason, --gpu/--dev
# handling, against the kernel's Soft-RoCE driver in a QEMU guest (tests/vm/lp-rdma-gdr-guest.sh).
exec bash "$(dirname "$0")/test-lp-rdma.sh" tests/vm/lp-rdma-gdr-guest.sh
