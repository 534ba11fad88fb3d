#!/bin/bash
# tier: slow
# Soak: one persistent `lp-rdma --server` in a Soft-RoCE guest takes LP_SOAK_SESSIONS client
# sessions in a row (default 120 in CI, about 3 min; docs/BENCHMARKS.md records a 1,000-session run): good
# tests of every kind, garbage, truncated frames, frames with valid headers and absurd fields,
# clients killed mid-test and clients that connect and send nothing. Passes when the server never
# dies, answers every good client, logs one line per session, and its open descriptors and RSS
# (from /proc) after the last session equal those after the warm-up (LP_SOAK_WARMUP sessions,
# default 50): descriptors exactly, RSS within LP_SOAK_RSS_KIB (default 1024 KiB).
# Crafted frames come from the committed fuzz seeds (tests/fuzz/*/seed-*: the real encoders).
# Env: LP_BUILD, LP_SOAK_SESSIONS, LP_SOAK_WARMUP, LP_SOAK_RSS_KIB, LP_SOAK_SEED (default 1),
# LP_SOAK_FAULT (to show the checks fail): fd = count one more server descriptor per session,
# kill = kill the server halfway.
set -u
cd "$(dirname "$0")/../.."
B=${LP_BUILD:-build}
if [ "${1:-}" != --guest ]; then
	. tests/host-lib.sh
	host_needs qemu lp-rdma
	host_out "" lp-soak
	n=${LP_SOAK_SESSIONS:-120}
	scripts/lp-vm --timeout 0 --idle "${LP_GUEST_IDLE:-300}" --rw "$out" \
		"LP_BUILD=$B OUT=$out LP_SOAK_SESSIONS=$n LP_SOAK_WARMUP=${LP_SOAK_WARMUP:-50}" \
		"LP_SOAK_RSS_KIB=${LP_SOAK_RSS_KIB:-1024} LP_SOAK_SEED=${LP_SOAK_SEED:-1} LP_SOAK_FAULT=${LP_SOAK_FAULT:-}" \
		"bash tests/vm/test-soak.sh --guest"
	exit
fi

exec python3 - <<'PY'
import errno, os, random, re, signal, socket, struct, subprocess, sys, time

B = os.environ["LP_BUILD"] + "/lp-rdma"
IP = os.environ["LP_VM_IP"]
OUT = os.environ["OUT"]
N = int(os.environ["LP_SOAK_SESSIONS"])
WARM = int(os.environ["LP_SOAK_WARMUP"])
RSS_TOL = int(os.environ["LP_SOAK_RSS_KIB"])
FAULT = os.environ.get("LP_SOAK_FAULT", "")
PORT = 19500
# Server --timeout: a silent client costs this much. 1 s once cut off a good client's QP set-up
# on a host with load 13 (2 cores): 3 s leaves room.
SRV_TIMEOUT = 3.0
rng = random.Random(int(os.environ["LP_SOAK_SEED"]))

def seed(harness, name):
    with open("tests/fuzz/%s/seed-%s" % (harness, name), "rb") as f:
        return f.read()

# Frame layout (common/wire.h): magic u32, version u16, type u16, body length u32, big-endian.
HELLO_WL = seed("hello", "write_lat")
SESSION = seed("frame", "session")  # OPEN .. GRANT, HELLO, ACCEPT, QPINFO, DONE, RESULT, ERROR
MAGIC, VERSION = struct.unpack(">IH", SESSION[:6])  # as the encoder wrote them
HELLO, ACCEPT, ERROR, QPINFO, OPEN, CHALLENGE, AUTH, GRANT = 1, 2, 3, 4, 9, 10, 11, 12
def frame(mtype, body, version=VERSION, length=None):
    return struct.pack(">IHHI", MAGIC, version, mtype, len(body) if length is None else length) + body
def patch(body, off, fmt, v):  # a HELLO field at its offset
    return body[:off] + struct.pack(fmt, v) + body[off + struct.calcsize(fmt):]
# HELLO's body, field by field as rdma/proto.c's lp_rdma_params_record declares it (wire versions 4 to 6)
HELLO_FIELDS = [("test", ">I"), ("size", ">Q"), ("iters", ">Q"), ("warmup", ">Q"),
                ("duration_s", ">d"), ("tx_depth", ">I"), ("rx_depth", ">I"), ("cq_mod", ">I"),
                ("post_list", ">I"), ("num_qps", ">I"), ("inline_size", ">I"), ("mtu", ">I"),
                ("bidir", ">B"), ("verify", ">B"), ("use_cm", ">B")]
OFF, _o = {}, 0
for _n, _f in HELLO_FIELDS:
    OFF[_n], _o = (_o, _f), _o + struct.calcsize(_f)
def hello_with(name, v):
    off, fmt = OFF[name]
    return frame(HELLO, patch(HELLO_WL, off, fmt, v))
QPI = seed("qpinfo", "two-qps")
ABSURD = [  # (name, bytes, the server answers ERROR first?)
    ("size 2^62", hello_with("size", 1 << 62), True),
    ("iterations 2^64-1", hello_with("iters", (1 << 64) - 1), True),
    ("NaN duration", hello_with("duration_s", float("nan")), True),
    ("tx depth 0", hello_with("tx_depth", 0), True),
    ("1e6 QPs", hello_with("num_qps", 10 ** 6), True),
    ("a bool of 0xff", hello_with("bidir", 0xff), True),
    ("unknown test 200", hello_with("test", 200), True),
    ("body length 4 GiB", frame(HELLO, HELLO_WL, length=0xFFFFFFFF), False),
    ("version 9", frame(HELLO, HELLO_WL, version=9), False),
    ("message type 999", frame(999, HELLO_WL), True),
    ("QPINFO before HELLO", frame(QPINFO, QPI), True),
    ("HELLO then QPINFO with 2^32-1 QPs", None, True),
]

def server_fds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))
def server_rss_kib(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
def log_lines(path):  # one per finished session: "session done" or "session ended"
    with open(path, errors="replace") as f:
        return sum(("session done" in l) or ("session ended" in l) for l in f)

def connect():
    return socket.create_connection((IP, PORT), timeout=10)

def drain(s, limit=15.0):
    """Read until the server closes; returns the bytes. Fails when it stays open."""
    s.settimeout(limit)
    data = b""
    t0 = time.time()
    while time.time() - t0 < limit:
        try:
            b = s.recv(65536)
        except ConnectionResetError:
            break
        if not b:
            break
        data += b
    else:
        raise AssertionError("server kept the connection open for %.0f s" % limit)
    s.close()
    return data

def send_end(s, data):
    """Send and end the stream; a server that already dropped us (garbage) is fine."""
    try:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
    except OSError as e:
        if e.errno not in (errno.ENOTCONN, errno.EPIPE, errno.ECONNRESET):
            raise

def first_type(data):
    return struct.unpack(">IHHI", data[:12])[2] if len(data) >= 12 else None

def recv_frame(s):
    hdr = s.recv(12, socket.MSG_WAITALL)
    assert len(hdr) == 12, "the server closed during the opening"
    n = struct.unpack(">IHHI", hdr)[3]
    return first_type(hdr), s.recv(n, socket.MSG_WAITALL) if n else b""

def opened():
    """A connection past the opening (OPEN, CHALLENGE, AUTH without a key, GRANT)."""
    s = connect()
    s.settimeout(10)
    s.sendall(frame(OPEN, os.urandom(32)))
    t, _ = recv_frame(s)
    assert t == CHALLENGE, "opening: %r, not CHALLENGE" % t
    s.sendall(frame(AUTH, bytes(32)))
    t, _ = recv_frame(s)
    assert t == GRANT, "opening: %r, not GRANT" % t
    return s

def s_good(i):
    t = ["write_lat", "read_lat", "send_lat", "write_bw", "read_bw", "send_bw"][i % 6]
    args = [B, IP, "-p", str(PORT), "--wait", "10", "-t", t, "-s", "64", "-n", "5", "--warmup", "1",
            "--quiet", "--timeout", "5"]
    variant = (i // 6) % 4
    if variant == 1:
        args.append("--verify")
    elif variant == 2 and t.endswith("_bw"):
        args += ["--qps", "2", "-b"]
    elif variant == 3:
        args.append("-R")
    r = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, "good client %s exit %d: %s" % (" ".join(args[5:]), r.returncode,
                                                          (r.stdout + r.stderr).strip()[-300:])

def s_garbage(i):
    s = connect()
    send_end(s, bytes(rng.randrange(256) for _ in range(rng.randrange(1, 5000))))
    drain(s)

def s_truncated(i):
    s = connect()
    send_end(s, SESSION[:rng.randrange(1, len(SESSION))])
    drain(s)

def s_absurd(i):
    name, data, answers = ABSURD[i % len(ABSURD)]
    s = opened()
    if data is None:  # a good HELLO, then a QPINFO claiming 2^32-1 QPs after ACCEPT
        s.sendall(frame(HELLO, HELLO_WL))
        hdr = s.recv(12, socket.MSG_WAITALL)
        assert first_type(hdr) == ACCEPT, "%s: no ACCEPT" % name
        send_end(s, frame(QPINFO, b"\xff\xff\xff\xff" + QPI[4:]))
        drain(s)
        return
    send_end(s, data)
    got = drain(s)
    assert not answers or first_type(got) == ERROR, "%s: server answered %r" % (name, got[:16])

def s_killed(i):
    # Two tests of 2 s: the second starts as the first's row is printed; the kill lands 1 s in.
    # The server then logs the test failing in its loop, or the DONE it waits for after its
    # part of the loop never coming (counted below: both only happen after READY).
    t = ["write_bw", "read_bw", "send_bw", "write_lat"][i % 4]
    p = subprocess.Popen([B, IP, "-p", str(PORT), "--wait", "10", "-t", t, "-s", "64,128",
                          "--warmup", "1", "-D", "2", "--timeout", "5"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    rows = 0
    while rows < 1:
        line = p.stdout.readline()
        assert line, "killed-client %s ended before its first result" % t
        rows += line.split()[:2] == [t, "64"]
    time.sleep(1.0)
    p.kill()
    assert p.wait() == -signal.SIGKILL, "killed-client %s finished before the kill" % t

def s_silent(i):
    s = connect()
    drain(s, limit=SRV_TIMEOUT + 10)  # the server drops it after its --timeout

# 20 sessions per cycle: 10 good, 2 garbage, 2 truncated, 3 absurd, 2 killed, 1 silent.
CYCLE = [s_good, s_garbage, s_good, s_absurd, s_good, s_truncated, s_good, s_killed, s_good,
         s_absurd, s_good, s_garbage, s_good, s_silent, s_good, s_truncated, s_good, s_killed,
         s_good, s_absurd]

srv_log = OUT + "/soak-server.log"
srv = subprocess.Popen([B, "--server", "-p", str(PORT), "--timeout", str(SRV_TIMEOUT)],
                       stdout=open(srv_log, "w"), stderr=subprocess.STDOUT)
for _ in range(100):
    if "listening" in open(srv_log).read():
        break
    time.sleep(0.2)
kinds, fails, leaked = {}, [], 0
warm = None
t0 = time.time()
for n in range(N):
    kind = CYCLE[n % len(CYCLE)]
    k = kind.__name__[2:]
    try:
        kind(kinds.get(k, 0))  # the kind's own count picks its test and variant
    except Exception as e:
        fails.append("session %d (%s): %s" % (n + 1, k, e))
    kinds[k] = kinds.get(k, 0) + 1
    leaked += FAULT == "fd"
    if FAULT == "kill" and n + 1 == N // 2:
        srv.kill()
    # The session is over on the server's side when it has logged it (a failed one may not have).
    for _ in range(200):
        if log_lines(srv_log) >= n + 1 - len(fails) or srv.poll() is not None:
            break
        time.sleep(0.05)
    if srv.poll() is not None:
        fails.append("server died after session %d: exit %s" % (n + 1, srv.returncode))
        break
    if n + 1 == WARM:
        warm = (server_fds(srv.pid) + leaked, server_rss_kib(srv.pid))
    if (n + 1) % 25 == 0:  # progress for the runners' --idle watch (a slow host is not a hang)
        print("soak: %d of %d sessions, %.0f s" % (n + 1, N, time.time() - t0), flush=True)
wall = time.time() - t0
alive = srv.poll() is None
end = (server_fds(srv.pid) + leaked, server_rss_kib(srv.pid)) if alive else (None, None)
logged = log_lines(srv_log)
srv.send_signal(signal.SIGINT)
try:
    srv.wait(timeout=10)
except subprocess.TimeoutExpired:
    srv.kill()
    fails.append("server did not stop within 10 s of SIGINT")
print("soak: %d sessions in %.0f s (%.2f s each): %s" % (
    sum(kinds.values()), wall, wall / max(1, sum(kinds.values())),
    ", ".join("%s %d" % kv for kv in sorted(kinds.items()))))
print("soak: server fds after session %d: %s, at the end: %s; VmRSS %s KiB -> %s KiB (tolerance %d KiB)"
      % (WARM, warm and warm[0], end[0], warm and warm[1], end[1], RSS_TOL))
with open(srv_log, errors="replace") as f:
    text = f.read()
# one line per cut-off test: "test T size N failed: ..." (a set-up cut short by a garbage or
# truncated session says "connection set-up failed: exchange with ...": not a test)
midtest = sum(1 for line in text.splitlines() if re.search(r"test \w+ size \d+ failed", line))
print("soak: server log: %d sessions logged, %d tests cut off after READY (killed mid-test)"
      % (logged, midtest))
if not alive:
    fails.append("server is not running at the end")
if midtest != kinds.get("killed", 0):
    fails.append("%d clients killed, %d tests cut off mid-test" % (kinds.get("killed", 0), midtest))
if logged != N:
    fails.append("server logged %d sessions, expected %d" % (logged, N))
if warm and alive:
    if end[0] != warm[0]:
        fails.append("open descriptors %d -> %d" % (warm[0], end[0]))
    if end[1] > warm[1] + RSS_TOL:
        fails.append("VmRSS grew %d KiB (over %d)" % (end[1] - warm[1], RSS_TOL))
elif N > WARM:
    fails.append("no warm-up figures")
msgs = {}
for line in text.splitlines()[2:]:  # after the header and "listening"
    m = re.sub(r"\d+", "N", line.replace("client " + IP + ": ", ""))
    msgs[m] = msgs.get(m, 0) + 1
for m, c in sorted(msgs.items(), key=lambda kv: -kv[1]):
    print("soak: server said %4d x %s" % (c, m))
for f in fails[:20]:
    print("FAIL " + f)
print("soak: %s" % ("PASS" if not fails else "%d failures" % len(fails)))
sys.exit(1 if fails else 0)
PY
