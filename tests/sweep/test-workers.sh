#!/bin/bash
# tier: quick
# Children start clean (issue 25 item 6): lp-sweep's test workers -- each side of each test runs in
# one, started by posix_spawn (a fresh exec of lp-sweep --test-worker, never a fork of the threaded
# rank) and reused -- hold only their own descriptors: /dev/null as stdin, the rank's stdout and
# stderr, their channel on fd 3; none of the rank's MPI sockets or another worker's channel. Runs a
# 4-rank model sweep (no RDMA needed) whose tests last long enough to look at the workers, with
# --load latency too (its sessions run on threads), and lists each worker's open descriptors,
# threads and command line from /proc. The same check applied to a rank itself must fail (it holds
# MPI's sockets): the check can see what it looks for.
set -u
cd "$(dirname "$0")/../.."
B=${LP_BUILD:-build}
command -v mpirun >/dev/null || { echo "Open MPI (mpirun) not installed"; exit 77; }
[ -x "$B/lp-sweep" ] || { echo "$B/lp-sweep not built (rdma-core or mpicc missing?)"; exit 77; }
T=$(mktemp -d)
M=
trap '[ -n "$M" ] && kill $M 2>/dev/null; rm -rf "$T"' EXIT
echo '{"schema": "linkperf.model/1", "time": {"test_ms": 700}}' >"$T/m.json"
if "$B/lp-sweep" --plan --nodes 2 --model "$T/m.json" 2>&1 | grep -q "without a JSON library"; then
	echo "lp-sweep built without jansson: --model cannot read a model"; exit 77
fi
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

# What a process may hold: 0 /dev/null, 1 and 2 (whatever the rank has), 3 a socket. Prints the
# rest, one per line; silent when clean.
extra_fds() { # pid
	local fd target
	for fd in /proc/"$1"/fd/*; do
		fd=${fd##*/}
		target=$(readlink "/proc/$1/fd/$fd") || continue
		case $fd:$target in
		0:/dev/null | 1:* | 2:* | 3:socket:*) ;;
		*) echo "fd $fd -> $target" ;;
		esac
	done
}

mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader,tcp --mca pml ob1 \
	--mca mpi_yield_when_idle 1 -np 4 "$B/lp-sweep" --model "$T/m.json" --tests write_lat,write_bw \
	--load latency --load-time 0.5 --retest 0 --quiet --json "$T/w.json" >"$T/out" 2>&1 </dev/null &
M=$!
seen=0 ranks=""
for _ in $(seq 1 60); do
	sleep 0.5
	ranks=$(pgrep -P "$M" -x lp-sweep)
	workers=$(for r in $ranks; do pgrep -P "$r"; done)
	[ -n "$workers" ] || continue
	for w in $workers; do
		args=$(tr '\0' ' ' <"/proc/$w/cmdline" 2>/dev/null) || continue
		threads=$(awk '/^Threads:/ {print $2}' "/proc/$w/status" 2>/dev/null)
		extra=$(extra_fds "$w")
		case $args in *--test-worker*) ;; *) continue ;; esac
		seen=$((seen + 1))
		[ -z "$extra" ] || bad "worker $w ($args) holds more than its own: $extra"
		[ "$threads" = 1 ] || bad "worker $w runs $threads threads"
		[ "$(readlink "/proc/$w/exe")" = "$(readlink -f "$B/lp-sweep")" ] || bad "worker $w is not lp-sweep"
	done
	[ $seen -ge 8 ] && break
done
[ $seen -ge 4 ] && ok "$seen looks at test workers: fds 0-3 only, one thread, a fresh lp-sweep --test-worker" ||
	bad "saw $seen test workers"
r=$(set -- $ranks; echo "${1:-}")
if [ -n "$r" ] && [ -n "$(extra_fds "$r")" ]; then
	ok "the check finds what a rank holds besides ($(extra_fds "$r" | wc -l) descriptors: MPI's)"
else
	bad "the check finds nothing extra in rank ${r:-?}: it cannot fail"
fi
wait $M
rc=$?
M=
[ $rc = 0 ] || [ $rc = 1 ] && [ -s "$T/w.json" ] && ok "the sweep and its load phase ended (exit $rc)" ||
	bad "the sweep: exit $rc: $(tail -n 5 "$T/out")"
python3 - "$T/w.json" <<'EOF' && ok "every cell measured, the load phase's too" || bad "cells missing or failed"
import json, os, sys
sys.path.insert(0, os.path.join(os.environ["LP_ROOT"], "tests/sweep"))
from sweepdoc import cells
cs = cells(json.load(open(sys.argv[1])))
ph = [c["phase"] for c in cs]
sys.exit(0 if ph.count("sweep") == 24 and "loaded" in ph and not any(c["status"] for c in cs) else 1)
EOF
exit $((fails > 0))
