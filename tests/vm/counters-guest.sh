#!/bin/sh
# Guest side of tests/vm/test-counters.sh (run in both guests by scripts/lp-fabric -n 2).
# lpnode1 serves lp-rdma; lpnode0 runs the checks, printing "ok NAME" or "FAIL NAME: why",
# and exits with the number of failures.
. scripts/vm/fabric-lib.sh
. tests/guest-lib.sh
guest_pair 19300

# 1. --check on rxe0: no FAIL (exit 0); the port, the netdev and a RoCE v2 GID for 10.9.0.1 are OK;
#    MTU 1500 caps RoCE at 1024 (WARN); no PCIe lines (rxe is not a PCI device).
"$B" --check --json "$OUT/check.json" >"$OUT/check.txt" 2>&1
rc=$?
cat "$OUT/check.txt"
if [ $rc = 0 ] && grep -q '^OK    port_state    rxe0 port 1  *4: ACTIVE' "$OUT/check.txt" &&
	grep -q '^OK    phys_state    rxe0 port 1  *5: LinkUp' "$OUT/check.txt" &&
	grep -q '^OK    netdev_link   rxe0 port 1  *eth0 is up' "$OUT/check.txt" &&
	grep -q '^OK    roce_gid      rxe0 port 1  *GID index [0-9]* 0000:0000:0000:0000:0000:ffff:0a09:0001 (RoCE v2 on eth0)' "$OUT/check.txt" &&
	grep -q '^WARN  roce_mtu      rxe0 port 1  *eth0 MTU 1500 caps the RoCE (active) MTU at 1024' "$OUT/check.txt" &&
	! grep -q '^FAIL\|pcie_link' "$OUT/check.txt" &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["check"]["worst"] == "WARN", d' "$OUT/check.json"; then
	ok "--check on rxe0: exit 0, port/netdev/GID OK, MTU 1500 WARN"
else
	bad "--check on rxe0" "exit $rc"
fi
# the fix it names works: MTU 4200 allows RoCE MTU 4096
ip link set eth0 mtu 4200
if "$B" --check -d rxe0 | grep -q '^OK    roce_mtu      rxe0 port 1  *eth0 MTU 4200 allows RoCE MTU 4096'; then
	ok "--check: MTU 4200 -> roce_mtu OK"
else
	bad "--check after MTU 4200" "$("$B" --check -d rxe0 | grep roce_mtu)"
fi
ip link set eth0 mtu 1500

# 2. the cost of one snapshot (rxe: counters/ and hw_counters/, eth0's statistics, ethtool)
for i in 1 2 3 4 5; do
	"$B" --counters -d rxe0 --json "$OUT/cost$i.json" >/dev/null || bad "--counters" "exit $?"
done
python3 - "$OUT" <<'PY' || fails=$((fails + 1))
import json, sys
c = [json.load(open("%s/cost%d.json" % (sys.argv[1], i)))["snapshot"] for i in range(1, 6)]
ns = sorted(d["read_ns"] for d in c)
n = {k: len(v) for k, v in c[0]["counters"].items()}
assert n["hw"] >= 10 and n["netdev"] >= 20, n
print("ok snapshot cost: %s us (min %.0f, median %.0f; 5 runs), counters per source %s" % (
    " ".join("%.0f" % (x / 1e3) for x in ns), ns[0] / 1e3, ns[2] / 1e3, n))
PY

# 3. hw_counters across two lp-rdma runs, without and with 20% netem loss on eth0's egress: the
#    lossy run's retries exceed the clean run's by far. (The clean run is not always at 0: a
#    starved TCG guest answers later than rxe's 67 ms ACK timeout now and then, and rxe retries.)
snap() { "$B" --counters -d rxe0 --json "$OUT/$1.json" >/dev/null; }
# One-packet messages: a lost packet costs one retry (67 ms), never the 7 retries of a long burst.
run() { "$B" "$SERVER" -p $PORT -t write_lat,write_bw -s 2 -n 200 --timeout 20 --json "$OUT/$1.json" >"$OUT/$1.txt" 2>&1; }
lp_wait_file "$J/ready" 90 || bad "server" "not ready"
snap s0 && run clean && snap s1 || bad "clean run" "$(tail -n 8 "$OUT/clean.txt")"
tc qdisc add dev eth0 root netem loss 20%
snap s2 && run lossy && snap s3 || bad "lossy run" "$(tail -n 8 "$OUT/lossy.txt")"
tc qdisc del dev eth0 root
python3 - "$OUT" <<'PY' || fails=$((fails + 1))
import json, sys
o = sys.argv[1]
def delta(a, b):
    a, b = (json.load(open("%s/%s.json" % (o, x)))["snapshot"]["counters"]["hw"] for x in (a, b))
    return {k: b[k] - a[k] for k in b if k in a}
clean, lossy = delta("s0", "s1"), delta("s2", "s3")
print("clean run hw deltas:", {k: v for k, v in clean.items() if v})
print("lossy run hw deltas:", {k: v for k, v in lossy.items() if v})
assert clean["sent_pkts"] > 400 and lossy["sent_pkts"] > 400, (clean, lossy)
retries = lambda d: d["completer_retry_err"] + d["rcvd_seq_err"]
assert retries(lossy) >= retries(clean) + 20, (clean, lossy)
assert lossy["sent_pkts"] > lossy["rcvd_pkts"], lossy  # retransmissions
print("ok hw_counters: retries %d with 20%% loss vs %d without" % (retries(lossy), retries(clean)))
PY
# 3b. lp-rdma's own deltas around each test, both sides (the server's through RESULT): every
#     result carries counters.client and counters.server; the lossy run's error-class deltas
#     exceed the clean run's, and its table prints a "counters:" line under a test.
cat "$OUT/lossy.txt"
python3 - "$OUT" <<'PY' || fails=$((fails + 1))
import json, sys
o = sys.argv[1]
def errors(name):
    res = json.load(open("%s/%s.json" % (o, name)))["results"]
    assert len(res) == 2 and all(r["status"] == "ok" for r in res), res
    n, per_side = 0, {"client": 0, "server": 0}
    for r in res:
        for side in ("client", "server"):
            s = r["counters"][side]
            assert s and s["device"] == "rxe0" and s["port"] == 1, (side, s)
            assert any(m["class"] == "traffic" and m["delta"] > 0 for m in s["moved"]), s
            assert all(m["delta"] or m["reset"] for m in s["moved"]), s  # only what moved
            e = sum(m["delta"] for m in s["moved"] if m["class"] == "error")
            per_side[side] += e
            n += e
    return n, per_side
clean, lossy = errors("clean"), errors("lossy")
print("lp-rdma error-class deltas: clean %s, lossy %s" % (clean, lossy))
assert lossy[0] >= clean[0] + 20, (clean, lossy)
print("ok lp-rdma JSON: counters on both sides per test; error deltas %d with loss vs %d without" % (lossy[0], clean[0]))
PY
if grep -Eq '^  counters: .*(client|server) rxe0 [a-z_]+ \+[0-9]+ \(error\)' "$OUT/lossy.txt"; then
	ok "lp-rdma table: counters line under a lossy test"
else
	bad "lp-rdma table" "no counters line in the lossy run"
fi

# 4. a FAIL on real data: the netdev down takes the port down; --check exits 1
ip link set eth0 down
"$B" --check -d rxe0 >"$OUT/down.txt" 2>&1
rc=$?
ip link set eth0 up
cat "$OUT/down.txt"
if [ $rc = 1 ] && grep -q '^FAIL  netdev_link   rxe0 port 1  *eth0 is down' "$OUT/down.txt" &&
	grep -q '^FAIL  port_state    rxe0 port 1  *1: DOWN' "$OUT/down.txt"; then
	ok "--check with eth0 down: FAIL lines, exit 1"
else
	bad "--check with eth0 down" "exit $rc"
fi
: >"$J/done"
exit $fails
