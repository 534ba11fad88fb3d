#!/bin/bash
# tier: guest
# Qualification (--expect, floors, --baseline, --prom) of lp-rdma against the kernel's Soft-RoCE
# driver in a QEMU guest (tests/vm/qual-guest.sh).
exec bash "$(dirname "$0")/test-lp-rdma.sh" tests/vm/qual-guest.sh
