#!/bin/bash
# tier: gpu
# Verification that can fail, on a GPU: GPU buffers cleared at allocation (stale data fails),
# lp-rdma's GPU memory kind finds misplaced, corrupted and lost ring slots (tests/gpu/verify_check.c),
# the poller follows the ring; lp-gpu with the test-only fault switches (LP_FAULT_CORRUPT,
# LP_FAULT_MISPLACE) exits 1 naming the test, size, copy and byte, and passes without them.
# lp-rdma --mem cuda fault runs when this host also has an RDMA device (else that part says SKIP).
# Exit 77 without CUDA or without a GPU.
. "$(dirname "$0")/check.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. GPU memory: stale data, ring slots, poller ring.
check_build verify_check -libverbs
"$B/tests/verify_check"
rc=$?
[ $rc = 77 ] && { echo "no GPU here: skipped"; exit 77; }
[ $rc = 0 ] || fail "verify_check exited $rc"
echo "ok: GPU memory cleared at allocation; ring slots: misplaced, corrupted, lost detected; poller ring"

# 2. lp-gpu: clean run passes; one corrupted byte and one misplaced copy fail, named.
LPG=$B/lp-gpu
[ -x "$LPG" ] || fail "lp-gpu not built though the library has CUDA"
tests=h2d_ce,h2d_sm,d2h_ce,d2h_sm,hd_bidir_ce,hd_bidir_sm,local_ce,local_sm
"$LPG" -t $tests -s 1M --samples 2 -n 2 --json - >"$tmp/clean.json" 2>"$tmp/clean.err" || fail "clean run: $(tail -n 3 "$tmp/clean.err")"
# lp_check FILE EXPECTED_OFFSET_OR_-1 TESTS...: every cell of these tests failed verification, named.
lp_check() {
	python3 - "$@" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
off = int(sys.argv[2])
want = set(sys.argv[3].split(","))
seen = set()
for r in d["results"]:
    if r["test"] not in want:
        continue
    seen.add(r["test"])
    for s in r["series"]:
        for c in s["cells"]:
            if off == -2:
                assert c["status"] == "ok" and c["verified"] is True, (r["test"], c)
                continue
            m = re.match(r"verification failed: (\w+) size (\d+), copy (\d+) of (\d+) \(checked on GPU \d+\): "
                         r"destination byte offset (\d+)", c.get("reason", ""))
            assert c["status"] == "error" and m, (r["test"], c)
            assert m.group(1) == r["test"] and int(m.group(2)) == r["size"], (r["test"], c)
            assert off < 0 or int(m.group(5)) == off, (r["test"], c)
assert seen == want, seen ^ want
print("  %s: %s" % (sys.argv[1].split("/")[-1], ",".join(sorted(seen))))
PY
}
lp_check "$tmp/clean.json" -2 $tests || fail "clean run not verified"
LP_FAULT_CORRUPT=4097 "$LPG" -t $tests -s 1M --samples 2 -n 2 --json - >"$tmp/corrupt.json" 2>"$tmp/corrupt.err"
rc=$?
[ $rc = 1 ] || fail "LP_FAULT_CORRUPT: exit $rc, expected 1"
lp_check "$tmp/corrupt.json" 4097 $tests || fail "LP_FAULT_CORRUPT: not every test named the corrupted byte"
LP_FAULT_MISPLACE=0 "$LPG" -t hd_bidir_ce,hd_bidir_sm -s 1M --samples 2 -n 2 --json - >"$tmp/misplace.json" 2>"$tmp/misplace.err"
rc=$?
[ $rc = 1 ] || fail "LP_FAULT_MISPLACE: exit $rc, expected 1"
lp_check "$tmp/misplace.json" -1 hd_bidir_ce,hd_bidir_sm || fail "LP_FAULT_MISPLACE: a misplaced copy passed"
echo "ok: lp-gpu single-GPU tests fail on a corrupted byte (offset named) and on a misplaced copy"
ngpu=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["gpus"]))' "$tmp/clean.json")
if [ "$ngpu" -ge 2 ]; then
	LP_FAULT_CORRUPT=4097 "$LPG" -t p2p_write_ce,p2p_read_sm,all_to_one_ce -s 1M --samples 2 -n 2 --json - >"$tmp/p2p.json" 2>/dev/null
	[ $? = 1 ] || fail "LP_FAULT_CORRUPT peer tests: exit not 1"
	python3 - "$tmp/p2p.json" <<'PY' || fail "peer tests: a corrupted copy passed"
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    for s in r["series"]:
        for c in s["cells"]:
            assert c["status"] in ("error", "waived"), (r["test"], c)
            assert c["status"] == "waived" or "verification failed: %s size" % r["test"] in c["reason"], c
PY
	echo "ok: lp-gpu peer tests fail on a corrupted byte"
else
	echo "SKIP: lp-gpu peer-test faults (one GPU here)"
fi

# 3. lp-rdma with GPU memory: needs an RDMA device as well.
R=$B/lp-rdma
if [ -x "$R" ] && [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	ip=$(ip -o -4 addr show scope global | awk '{print $4}' | cut -d/ -f1 | head -n 1)
	ip=${ip:-127.0.0.1}
	port=19700
	"$R" --server -p $port --mem cuda:0 >"$tmp/srv.log" 2>&1 &
	srv=$!
	trap 'kill $srv 2>/dev/null; rm -rf "$tmp"' EXIT
	for t in write_lat read_lat send_lat write_bw read_bw send_bw; do
		LP_FAULT_CORRUPT=21:5 "$R" "$ip" -p $port --wait 10 --mem cuda:0 -t $t -s 4K -n 40 -w 4 --verify \
			>"$tmp/$t.txt" 2>&1
		rc=$?
		[ $rc = 1 ] || fail "lp-rdma $t --mem cuda, LP_FAULT_CORRUPT: exit $rc: $(tail -n 2 "$tmp/$t.txt")"
		grep -q "data verification failed: $t size 4096, QP 0, message 21 (ring slot 20), byte offset 5" "$tmp/$t.txt" ||
			fail "lp-rdma $t --mem cuda: $(tail -n 2 "$tmp/$t.txt")"
	done
	"$R" "$ip" -p $port --mem cuda:0 -t write_lat,read_lat,send_lat,write_bw,read_bw,send_bw -s 4K -n 40 --verify \
		>"$tmp/clean.txt" 2>&1 || fail "lp-rdma --mem cuda clean run: $(tail -n 3 "$tmp/clean.txt")"
	echo "ok: lp-rdma --mem cuda: every test fails on a corrupted byte, passes without"
else
	echo "SKIP: lp-rdma --mem cuda fault cases (no RDMA device on this host)"
fi
echo "PASS: verification fails on bad data for GPU memory and lp-gpu (SKIP lines above did not run)"
