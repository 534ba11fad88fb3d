#!/bin/bash
# Guest side of tests/vm/test-nic-stall.sh (run by scripts/lp-fabric -n 2 in both guests).
# lpnode0 floods lpnode1 with UDP and asks the host to stop the switch (JOB/stop-switch): its
# transmit ring fills and the queue stalls. Afterwards lpnode0's NIC must carry traffic again
# (ping lpnode1, ib_write_bw over rxe0), and a virtio tx queue reset (ethtool -G, the NIC watch's
# first step) must leave the link working.
set -u
. scripts/vm/fabric-lib.sh
job=$LP_FABRIC_JOB
peer=10.9.0.2
if [ "$LP_FABRIC_ID" = 1 ]; then
	lp_wait_file "$job/serve" 600 || exit 0
	timeout 120 ib_write_bw -d rxe0 -x 1 -s 65536 -D 10 -p 18516 >"$job/srv.log" 2>&1 &
	lp_wait_port 18516 60 && : >"$job/serving"
	wait
	lp_wait_file "$job/done.test" 600
	exit 0
fi

# a UDP flood towards lpnode1 fills eth0's tx ring once the switch stops (rxe alone would not:
# it keeps at most 128 packets unacknowledged; nor would one socket's default send buffer, about
# 100 such packets in flight); lpnode1's MAC fixed, or the flood would wait on
# ARP instead of reaching the ring
ip neigh replace "$peer" lladdr 52:54:00:fa:b0:02 dev eth0 nud permanent
timeout 120 python3 -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 32, 16 << 20)  # SO_SNDBUFFORCE: more in flight than the ring
s.setblocking(False)
end, b = time.time() + 110, bytes(1400)
while time.time() < end:
    try:
        s.sendto(b, ("10.9.0.2", 9))
    except OSError:
        time.sleep(0.001)
' &
flood=$!
sleep 3
: >"$job/stop-switch" # the host stops the switch for 40 s
lp_wait_file "$job/switch-resumed" 120 || echo "FAIL: the host never resumed the switch"
kill $flood 2>/dev/null
wait $flood 2>/dev/null
# the stall, its diagnosis and the watch's steps are on the console; wait until it says that
# eth0 transmits again, or give up after 180 s
for _ in $(seq 1 60); do
	grep -q 'transmits again' "$job/nic-events" 2>/dev/null && break
	sleep 3
done
rc=0
grep -q 'lpnode0 .*tx stalled.*the switch not draining.*waiting, no reset' "$job/nic-events" ||
	{ echo "FAIL: the stall (switch stopped) was not recorded as a wait without reset in nic-events"; rc=1; }
grep -q 'lpnode0 .*transmits again' "$job/nic-events" ||
	{ echo "FAIL: eth0 never recorded as transmitting again"; rc=1; }
if busybox ping -c 3 -W 5 "$peer" >/dev/null 2>&1; then
	echo "PASS: lpnode0 reaches lpnode1 after the stall"
else
	echo "FAIL: lpnode0 does not reach lpnode1 after the stall"
	rc=1
fi
# the watch's first step on a healthy queue: a tx virtqueue reset keeps the link working
if command -v ethtool >/dev/null; then
	tx=$(ethtool -g eth0 | awk '/^TX:/ { n = $2 } END { print n }')
	if ethtool -G eth0 tx $((tx / 2)) && ethtool -G eth0 tx "$tx" && busybox ping -c 3 -W 5 "$peer" >/dev/null 2>&1; then
		echo "PASS: a tx virtqueue reset (ethtool -G eth0 tx $((tx / 2)), then $tx) keeps the link working"
	else
		echo "FAIL: after a tx virtqueue reset lpnode0 does not reach lpnode1"
		rc=1
	fi
else
	echo "note: ethtool not installed: the watch's queue reset step is not exercised"
fi
: >"$job/serve"
lp_wait_file "$job/serving" 120 || { echo "FAIL: lpnode1 never served"; rc=1; }
if timeout 120 ib_write_bw -d rxe0 -x 1 -s 65536 -D 10 -p 18516 "$peer" >"$job/cli.log" 2>&1; then
	echo "PASS: ib_write_bw over rxe0 works after the stall: $(awk '$1 == 65536 { print $4 " MB/s" }' "$job/cli.log")"
else
	echo "FAIL: ib_write_bw after the stall: $(tail -n 2 "$job/cli.log" | tr '\n' ' ')"
	rc=1
fi
: >"$job/done.test"
exit $rc
