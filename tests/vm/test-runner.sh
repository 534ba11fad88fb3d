#!/bin/bash
# tier: guest
# shellcheck disable=SC2016  # the guest commands are single-quoted on purpose
# Self-test of the guest runners (scripts/lp-vm, scripts/lp-fabric). Real QEMU/TCG guests,
# real rdma_rxe; about 1-2 minutes on a 2-core host. Exit 77 when QEMU is missing.
# LP_TEST_SKIP_MPI=1 skips the optional 2-guest ssh/mpirun check.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
if ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
    echo "SKIP: qemu-system-x86_64 not found"
    exit 77
fi

pass=0 fail=0
log=$(mktemp "${TMPDIR:-/tmp}/lp-vm-test.XXXXXX")
# private job dirs, so that the clean-up check is not confused by concurrent runs
export LP_VM_JOBS="$top/build/vm/t$$"
trap 'rm -f "$log"; rm -rf "$LP_VM_JOBS"' EXIT

# check NAME EXPECTED_RC CMD...: run, compare the exit status, print one line
check() {
    local name=$1 want=$2 got=0 t0 t1
    shift 2
    t0=$(date +%s)
    "$@" >"$log" 2>&1 || got=$?
    t1=$(date +%s)
    if [ "$got" = "$want" ]; then
        pass=$((pass + 1))
        echo "PASS $name ($((t1 - t0)) s)"
    else
        fail=$((fail + 1))
        echo "FAIL $name: exit $got, want $want ($((t1 - t0)) s); last output:"
        tail -n 15 "$log" | sed 's/^/    /'
    fi
}

# the kernel step first, so that its cost does not land on the first check
if ! scripts/vm/fetch-kernel.sh >"$log" 2>&1; then
    echo "FAIL fetch-kernel: $(tail -n1 "$log")"
    echo "0 passed, 1 failed"
    exit 1
fi

# (a) the command's status comes back, and rxe0 exists
check "lp-vm exit status (ibv_devices sees rxe0, exit 7)" 7 \
    scripts/lp-vm --timeout 0 --idle 120 'ibv_devices | grep -q rxe0 && exit 7'

# (a2) no status from the guest: 125 on timeout
check "lp-vm timeout gives 125" 125 scripts/lp-vm --timeout 3 'sleep 60'

# (a3) --idle: a guest that prints and writes nothing is a hang (125, said so); one that keeps
# printing runs on well past --idle (the boot's stages count as progress too)
check "lp-vm --idle: a silent command is a hang, 125" 125 scripts/lp-vm --timeout 0 --idle 20 'sleep 600'
if grep -q "no progress for .*a hang" "$log"; then
    pass=$((pass + 1)); echo "PASS lp-vm --idle says why: $(grep -o 'no progress for [0-9]*s' "$log")"
else
    fail=$((fail + 1)); echo "FAIL lp-vm --idle: no reason given: $(tail -n 2 "$log")"
fi
check "lp-vm --idle: a slow command that prints runs on (50 s, --idle 30)" 0 \
    scripts/lp-vm --timeout 0 --idle 30 'i=0; while [ $i -lt 10 ]; do echo "tick $i"; sleep 5; i=$((i + 1)); done'

# (b) a perftest pair inside one guest
check "lp-vm ib_write_lat pair in one guest" 0 scripts/lp-vm --timeout 0 --idle 120 '
ulimit -l 64   # lowering the limit must work (as root, CAP_IPC_LOCK still lets verbs pin)
timeout 60 ib_write_lat -d rxe0 -x 1 -n 200 >/dev/null 2>&1 &
s=$!
sleep 1
timeout 60 ib_write_lat -d rxe0 -x 1 -n 200 "$LP_VM_IP" || { kill $s; exit 1; }
wait $s'

# (c) two guests: ib_write_bw across the switch; the client waits for the server's port
check "lp-fabric -n 2 ib_write_bw lpnode0 -> lpnode1" 0 scripts/lp-fabric -n 2 --timeout 0 --idle 120 -- '
. scripts/vm/fabric-lib.sh
if [ "$LP_FABRIC_ID" = 1 ]; then
    timeout 120 ib_write_bw -d rxe0 -x 1 -n 200 -p 18515 >/dev/null 2>&1 &
    s=$!
    lp_wait_port 18515 60 || exit 1
    : >"$LP_FABRIC_JOB/server.ready"
    wait $s
else
    lp_wait_file "$LP_FABRIC_JOB/server.ready" 90 || exit 1
    timeout 120 ib_write_bw -d rxe0 -x 1 -n 200 -p 18515 10.9.0.2
fi'

# (c1) --idle on the fabric: both guests silent is a hang
check "lp-fabric --idle: silent guests are a hang, 125" 125 scripts/lp-fabric -n 2 --timeout 0 --idle 20 -- 'sleep 600'

# (c2) the first non-zero guest status is the runner's status
check "lp-fabric status of the failing guest (exit 5)" 5 scripts/lp-fabric -n 2 --timeout 0 --idle 120 -- \
    '[ "$LP_FABRIC_ID" = 1 ] && exit 5; exit 0'

# (d) optional: ssh + mpirun from lpnode0 across 2 guests
if [ "${LP_TEST_SKIP_MPI:-0}" != 1 ] && command -v mpirun >/dev/null 2>&1 && [ -x /usr/sbin/sshd ]; then
    check "lp-fabric --ssh --lead mpirun hostname on 2 guests" 0 \
        scripts/lp-fabric -n 2 --ssh --lead --timeout 0 --idle 120 -- '
out=$(timeout 120 mpirun --allow-run-as-root -np 2 --host lpnode0,lpnode1 --mca btl tcp,self \
    --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 --mca pml ob1 hostname) || exit 1
echo "$out"
echo "$out" | grep -qx lpnode0 && echo "$out" | grep -qx lpnode1'
else
    echo "SKIP lp-fabric mpirun (no mpirun/sshd, or LP_TEST_SKIP_MPI=1)"
fi

leftover=$(find "$LP_VM_JOBS" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
if [ "${LP_VM_KEEP:-0}" != 1 ] && [ "$leftover" -gt 0 ]; then
    fail=$((fail + 1))
    echo "FAIL job dirs left behind in $LP_VM_JOBS: $leftover"
else
    pass=$((pass + 1))
    echo "PASS no job dirs left behind"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
