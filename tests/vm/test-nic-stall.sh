#!/bin/bash
# tier: guest
# A guest NIC stall and its recovery, forced: scripts/lp-fabric -n 2, lpnode0 floods lpnode1
# with UDP; the host stops the switch (SIGSTOP) for 40 s, so QEMU's socket fills, lpnode0's
# virtio tx ring fills and its kernel's NETDEV WATCHDOG fires.
# Expected: init's NIC watch asks the host (scripts/vm/nic-diag: one "tx stall seen from the
# host" line naming the switch as not draining, since it is stopped), does not reset (a queue
# reset would drop QEMU's half-sent frame and corrupt the stream) but waits, and records that
# eth0 transmits again once the switch runs; lp-fabric lists the events at the end; lpnode0
# reaches lpnode1 afterwards (ping, ib_write_bw), and a tx virtqueue reset (ethtool -G, the
# watch's first step when the socket is not full) keeps the link working. The stall is the
# fault injected; without the watch the "asking the host", "seen from the host" and "waiting"
# lines are missing (each is asserted). ~3-5 min on a 2-core host. Exit 0 pass, 77 without QEMU or ib_write_bw (perftest), else fail.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/host-lib.sh
host_needs qemu
command -v ib_write_bw >/dev/null || { echo "SKIP: ib_write_bw (perftest) not installed"; exit 77; }
export LP_VM_JOBS=${TMPDIR:-/tmp}/lp-nic-$$
mkdir -p "$LP_VM_JOBS"
log=$LP_VM_JOBS/run.log
trap 'rm -rf "$LP_VM_JOBS"' EXIT

LP_VM_KEEP=1 scripts/lp-fabric -n 2 --timeout 900 'bash tests/vm/nic-stall-guest.sh' >"$log" 2>&1 &
fpid=$!
job=''
stopped=0
while kill -0 "$fpid" 2>/dev/null; do
	[ -n "$job" ] || job=$(find "$LP_VM_JOBS" -maxdepth 1 -name 'f*' -type d | head -n1)
	if [ -n "$job" ] && [ -e "$job/stop-switch" ] && [ $stopped = 0 ]; then
		spid=$(cat "$job/switch.pid")
		kill -STOP "$spid" && echo "host: switch (pid $spid) stopped for 40 s at $(date -u +%T)"
		sleep 40
		kill -CONT "$spid" && echo "host: switch resumed at $(date -u +%T)"
		: >"$job/switch-resumed"
		stopped=1
	fi
	sleep 1
done
wait "$fpid"
rc=$?
echo "lp-fabric: exit $rc"
grep -E 'lp-init:|lp-fabric:|PASS|FAIL|note:|NETDEV|^    ' "$log" | grep -v 'lp-fabric: kept' | cut -c1-400
for f in "$job"/nic.*.diag; do
	[ -f "$f" ] && { echo "host diagnosis ${f##*/}:"; sed 's/^/    /' "$f" | cut -c1-300; }
done
fail=0
[ "$rc" = 0 ] || fail=1
grep -q 'lp-init: eth0 tx stalled.*asking the host for its view' "$log" ||
	{ echo "FAIL: no 'tx stalled ... asking the host' line on lpnode0's console"; fail=1; }
grep -q 'lp-init: eth0 tx stalled.*waiting, no reset' "$log" ||
	{ echo "FAIL: no 'waiting, no reset' line on lpnode0's console"; fail=1; }
grep -q 'lp-init: eth0 transmits again' "$log" ||
	{ echo "FAIL: no 'transmits again' line on lpnode0's console"; fail=1; }
grep -q "eth0 tx stall seen from the host:.*the switch is not draining" "$log" ||
	{ echo "FAIL: no host diagnosis naming the stopped switch"; fail=1; }
grep -q 'lp-fabric: guest NIC stalls in this run' "$log" ||
	{ echo "FAIL: lp-fabric did not list the NIC events at the end"; fail=1; }
[ $fail = 0 ] && echo "PASS: the forced stall was seen, diagnosed, waited out (no reset into a full socket) and recovered from"
exit $fail
