#!/bin/bash
# tier: quick
# The fabric's learning switch (scripts/vm/lp-switch.c) on the host, no guests: real unix
# sockets speaking QEMU's -netdev stream framing (4-byte big-endian length, then the frame).
# Checks: a broadcast floods to the other connected ports; a learned unicast goes to its port
# only; a client that never reads is never a reason to stop reading the others (a sender's
# 8 MB flood towards it completes, the overflow is counted as drops: the switch never
# back-pressures a guest); SIGUSR1 reports each port's state (frames and bytes each way, drops,
# buffers, age of its last frame); a bad frame length (the fault: a corrupted stream) drops only
# that client, with the reason on stderr, and the others keep working; a client that closes is
# logged as gone. Exit 0 pass, 77 without python3 (the test's socket client), else fail.
set -u
cd "$(dirname "$0")/../.." || exit 1
command -v python3 >/dev/null || { echo "SKIP: python3 not installed (the test's socket client)"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/lp-switch-test.XXXXXX")
spid=''
trap '[ -z "$spid" ] || kill "$spid" 2>/dev/null; rm -rf "$dir"' EXIT
sw=$dir/lp-switch
if ! ${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -Wshadow -Wformat=2 -Werror -o "$sw" scripts/vm/lp-switch.c; then
	echo "FAIL: scripts/vm/lp-switch.c does not build"
	exit 1
fi

"$sw" "$dir" 3 2>"$dir/err" &
spid=$!
for _ in $(seq 1 100); do [ -S "$dir/p2.sock" ] && break; sleep 0.05; done

timeout 60 python3 - "$dir" "$spid" <<'PY'
import os, re, signal, socket, struct, sys, time
sys.path.insert(0, "tests/sweep")
from lpcheck import check, done

d, spid = sys.argv[1], int(sys.argv[2])


def conn(i):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(f"{d}/p{i}.sock")
    return s


def frame(dst, src, n=60):
    body = bytes.fromhex(dst.replace(":", "")) + bytes.fromhex(src.replace(":", ""))
    body += b"\x08\x00" + bytes(n - 14)
    return struct.pack(">I", len(body)) + body


def recv_frames(s, want, t=5.0):
    """Frames (without headers) read from s until want arrived or t seconds passed."""
    s.settimeout(0.2)
    buf, out, end = b"", [], time.time() + t
    while len(out) < want and time.time() < end:
        try:
            data = s.recv(65536)
        except socket.timeout:
            continue
        if not data:
            break
        buf += data
        while len(buf) >= 4 and len(buf) >= 4 + struct.unpack(">I", buf[:4])[0]:
            n = struct.unpack(">I", buf[:4])[0]
            out.append(buf[4:4 + n])
            buf = buf[4 + n:]
    return out


def err_lines(pattern, t=3.0):
    end = time.time() + t
    while time.time() < end:
        with open(f"{d}/err") as f:
            hits = [ln for ln in f if re.search(pattern, ln)]
        if hits:
            return hits
        time.sleep(0.05)
    return []


A, B, C = "52:54:00:fa:b0:01", "52:54:00:fa:b0:02", "52:54:00:fa:b0:03"
a, b = conn(0), conn(1)
time.sleep(0.2)
a.sendall(frame("ff:ff:ff:ff:ff:ff", A))
got = recv_frames(b, 1)
check(len(got) == 1 and got[0][6:12] == bytes.fromhex(A.replace(":", "")),
      "a broadcast from port 0 reaches port 1")
c = conn(2)
time.sleep(0.2)
b.sendall(frame(A, B))  # A was learned on port 0
check(len(recv_frames(a, 1)) == 1, "a unicast to a learned MAC reaches its port")
check(recv_frames(c, 1, 0.5) == [], "... and no other port")

# c never reads: a's 8 MB towards it must all be accepted (no back-pressure), b keeps working
c_mac_learn = frame("ff:ff:ff:ff:ff:ff", C)
c.sendall(c_mac_learn)
recv_frames(a, 1)
recv_frames(b, 1)
a.settimeout(20)
t0 = time.time()
big = frame(C, A, 1500) * 5500
try:
    a.sendall(big)
    flood_ok = True
except OSError:
    flood_ok = False
check(flood_ok, f"an 8 MB flood towards a port that never reads is accepted ({time.time() - t0:.2f} s)")
b.sendall(frame(A, B))
check(len(recv_frames(a, 1)) == 1, "the others keep working meanwhile")

os.kill(spid, signal.SIGUSR1)
rep = err_lines(r"port 2: connected, in 1 frames")
m = rep and re.search(r"out (\d+) frames .* (\d+) dropped, input buffer \d+ B, output queue (\d+) B, "
                      r"last frame in [0-9.]+ s ago", rep[-1])
check(bool(m) and int(m.group(2)) > 0 and int(m.group(3)) > 0,
      "SIGUSR1 reports port 2's state: " + (rep[-1].strip() if rep else "nothing"))
rep0 = err_lines(r"port 0: connected, in 5501 frames")
check(bool(rep0), "port 0's frames in are counted (1 + 5500)")

# the fault: a corrupted stream (frame length 0) drops that client only, with the reason
b.sendall(struct.pack(">I", 0) + b"junk")
check(bool(err_lines(r"port 1: bad frame length 0")) and
      bool(err_lines(r"port 1: client gone \(bad frame length\)")),
      "a bad frame length drops that client, with the reason")
a.sendall(frame("ff:ff:ff:ff:ff:ff", A))
c.close()
check(bool(err_lines(r"port 2: client gone \((end of stream|Connection reset by peer)\)")),
      "a client that closes is logged as gone")
a.sendall(frame("ff:ff:ff:ff:ff:ff", A))
os.kill(spid, 0)  # raises when the switch died
check(True, "the switch keeps running for the others")
done()
PY
rc=$?
[ $rc = 0 ] || { echo "switch stderr:"; sed 's/^/    /' "$dir/err"; }
exit $rc
