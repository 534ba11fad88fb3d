#!/bin/bash
# tier: quick
# The guest init's NIC watch (scripts/vm/init: nic_watch and its steps) on the host, no guest:
# its functions under busybox sh with a fake tx_timeout counter, a fake host answering each
# "asking the host" with JOB/nic.0.diag, and ip/ethtool stubs that record what they were told.
# Checks, one stall each: a socket that is not full and nothing held -> the tx virtqueue reset
# (ethtool -G half, then back), then "transmits again" once the counter stands still; QEMU's
# socket full (the switch not draining) -> no reset at all, "waiting" (the fault this gate is
# for: a queue reset into a full socket corrupts the stream); QEMU holding a tx buffer -> no
# queue reset, the link only; no ethtool -> the link only, said so; timeouts that keep coming ->
# queue reset, link reset, "stays off the network", then silence. Every step is in nic-events.
# Exit 0 pass, 77 without busybox, else fail.
set -u
cd "$(dirname "$0")/../.." || exit 1
bb=$(command -v busybox) || { echo "SKIP: busybox not installed"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/lp-nic-watch.XXXXXX")
hpid=''
trap '[ -z "$hpid" ] || kill "$hpid" 2>/dev/null; rm -rf "$dir"' EXIT
mkdir -p "$dir/root/job" "$dir/root/usr/sbin"
# the watch's functions, with the counter's path, the poll and the console made local
sed -n '/^nic_note() {/,/^nic_watch() {/p' scripts/vm/init | sed '$d' >"$dir/funcs.sh"
sed -n '/^nic_watch() {/,/^}/p' scripts/vm/init >>"$dir/funcs.sh"
sed -i "s|q=/sys/class/net/\$ifc/queues/tx-0/tx_timeout|q=$dir/tx_timeout|; s|>/dev/console|>\&2|" "$dir/funcs.sh"
grep -q "q=$dir/tx_timeout" "$dir/funcs.sh" || { echo "FAIL: nic_watch's counter path not found in scripts/vm/init"; exit 1; }
cat >"$dir/sim.sh" <<EOF
R=$dir/root job=/job fid=0 ifc=eth0 hname=lpnode0
msg() { echo "lp-init: \$*"; }
ip() { echo "[ip \$*]"; }
chroot() { shift; case "\$*" in "ethtool -g eth0") printf 'Current hardware settings:\nTX:\t256\n' ;; *) echo "[\$*]" ;; esac; }
sleep() { command sleep 0.05; }
. $dir/funcs.sh
nic_watch
EOF
# the fake host: a missing nic.0.diag is answered with sendq and inuse from $dir/answer
(while :; do
	if [ ! -s "$dir/root/job/nic.0.diag" ] && [ -s "$dir/answer" ]; then
		read -r sq iu <"$dir/answer"
		printf 'sendq=%s\ninuse=%s\n' "$sq" "$iu" >"$dir/root/job/nic.0.diag"
	fi
	sleep 0.05
done) &
hpid=$!

fails=0
# scenario NAME "SENDQ INUSE" ETHTOOL(0/1) BUMPS GAP: BUMPS timeouts GAP s apart, then quiet
scenario() {
	echo "$2" >"$dir/answer"
	rm -f "$dir/root/job/nic-events" "$dir/root/job/nic.0.diag"
	if [ "$3" = 1 ]; then
		: >"$dir/root/usr/sbin/ethtool" && chmod +x "$dir/root/usr/sbin/ethtool"
	else
		rm -f "$dir/root/usr/sbin/ethtool"
	fi
	echo 0 >"$dir/tx_timeout"
	timeout 30 "$bb" sh "$dir/sim.sh" >"$dir/$1.out" 2>&1 &
	local w=$! k
	for k in $(seq 1 "$4"); do
		sleep "$5"
		echo "$k" >"$dir/tx_timeout"
	done
	sleep 3
	kill "$w" 2>/dev/null
	wait "$w" 2>/dev/null
}
# expect NAME WHAT REGEX...: the run's output has a line matching each REGEX
expect() {
	local name=$1 what=$2 re
	shift 2
	for re in "$@"; do
		if ! grep -v 'asking the host' "$dir/$name.out" | grep -qE -- "$re"; then
			echo "FAIL $name: $what: no line matching '$re' in:"
			sed 's/^/    /' "$dir/$name.out"
			fails=$((fails + 1))
			return
		fi
	done
	echo "PASS $name: $what"
}
refuse() { # NAME WHAT REGEX: no output line matches
	if grep -qE -- "$3" "$dir/$1.out"; then
		echo "FAIL $1: $2 (found '$3')"
		fails=$((fails + 1))
	else
		echo "PASS $1: $2"
	fi
}

scenario reset "0 0" 1 1 0.5
expect reset "an empty socket, nothing held: the tx virtqueue reset, then transmits again" \
	'\[ethtool -G eth0 tx 128\]' '\[ethtool -G eth0 tx 256\]' \
	'tx stalled .*1 so far\), NIC reset \(tx virtqueue reset by ethtool -G\)' 'eth0 transmits again'
scenario full "200000 1" 1 2 0.5
expect full "QEMU's socket full: waiting, no reset, then transmits again" \
	"not draining QEMU's socket \(200000 B\): waiting, no reset" 'eth0 transmits again'
refuse full "... and neither ethtool nor ip was run" '^\[(ethtool|ip) '
scenario held "0 1" 1 1 0.5
expect held "QEMU holding a tx buffer: no queue reset, the link only" \
	'QEMU holds 1 tx buffer\(s\): no queue reset' '\[ip link set eth0 down\]' '\[ip link set eth0 up\]' \
	'NIC reset \(link down/up\)'
refuse held "... and no ethtool -G" '^\[ethtool -G'
scenario noet "0 0" 0 1 0.5
expect noet "no ethtool: the link reset, said so" \
	'no tx virtqueue reset here \(ethtool missing' 'NIC reset \(link down/up\)'
scenario dead "0 0" 1 5 0.2
# the counts depend on when the watch polls the fake counter (a loaded host skips some): the
# steps are what is checked
expect dead "timeouts that keep coming: queue reset, link reset, then stays off the network" \
	'[0-9]+ so far\), NIC reset \(tx virtqueue reset' '[0-9]+ so far\), NIC reset \(link down/up\)' \
	'[0-9]+ so far\) still, after the resets: lpnode0 stays off the network'
n=$(grep -c 'lpnode0 .* s: eth0' "$dir/root/job/nic-events" 2>/dev/null)
if [ "${n:-0}" -ge 3 ] && [ "$(grep -c 'stays off' "$dir/dead.out")" = 1 ]; then
	echo "PASS dead: each step is one line in nic-events ($n), 'stays off' said once"
else
	echo "FAIL dead: nic-events has ${n:-0} lines, 'stays off' said $(grep -c 'stays off' "$dir/dead.out") times"
	fails=$((fails + 1))
fi
exit $((fails > 0))
