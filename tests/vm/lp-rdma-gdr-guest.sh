#!/bin/sh
# GPUDirect-first-contact checks that need no GPU, inside one Soft-RoCE guest (run by
# tests/vm/test-lp-rdma-gdr.sh through scripts/lp-vm): the QP path a memory kind asks for
# (scatter-to-CQE off), relaxed ordering for bandwidth only, a server's registration failure
# reaching the client as its cause, --gpu without --mem, --dev auto naming the NIC it opened.
# Each check prints "ok NAME" or "FAIL NAME: why"; the script exits with the number of failures.
# Env: LP_BUILD, LP_VM_IP, OUT.
. tests/guest-lib.sh
guest_one 19300 /tmp/lp-rdma-gdr-test

# jq_py FILE CONDITION: the condition (python, on d = the JSON document, res = its results) holds
jq_py() {
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
res = d["results"]
assert eval(sys.argv[2]), json.dumps([r.get("local_setup") for r in res])
PY
}

start_server
# 1. a memory kind that declares "no scatter to CQE" gets QPs created with MLX5_SCATTER_TO_CQE=0
# (the host kind declares it here through the test-only switch; CUDA memory always does)
if LP_TEST_MEM_CAPS=no_scatter_to_cqe "$B" "$IP" -p $PORT -t send_lat,write_lat -s 2 -n 20 --verbose \
	--json "$OUT/s2c.json" >"$OUT/s2c.txt" 2>&1 &&
	jq_py "$OUT/s2c.json" 'all(r["local_setup"]["scatter_to_cqe"].startswith("disabled (MLX5_SCATTER_TO_CQE=0") for r in res)' &&
	grep -q "created with MLX5_SCATTER_TO_CQE=0" "$OUT/s2c.txt"; then
	ok "memory kind asks for no scatter-to-CQE: QPs created with MLX5_SCATTER_TO_CQE=0, recorded"
else
	bad "scatter-to-CQE switch" "$(tail -n 5 "$OUT/s2c.txt")"
fi
# ... and the same check fails on a kind that does not ask (the provider default is kept)
if "$B" "$IP" -p $PORT -t send_lat -s 2 -n 20 --verbose --json "$OUT/s2c-off.json" >"$OUT/s2c-off.txt" 2>&1 &&
	! jq_py "$OUT/s2c-off.json" 'all(r["local_setup"]["scatter_to_cqe"].startswith("disabled") for r in res)' 2>/dev/null &&
	grep -q "created with MLX5_SCATTER_TO_CQE=(unset)" "$OUT/s2c-off.txt"; then
	ok "host memory keeps the provider default (the check above fails on it)"
else
	bad "scatter-to-CQE default" "$(tail -n 5 "$OUT/s2c-off.txt")"
fi
# 2. relaxed ordering on bandwidth buffers only (accepted by the device: an optional access flag)
if "$B" "$IP" -p $PORT -t write_lat,write_bw,read_bw -s 64K -n 50 --verify --json "$OUT/ro.json" >"$OUT/ro.txt" 2>&1 &&
	jq_py "$OUT/ro.json" '[r["local_setup"]["relaxed_ordering"] for r in res] == [False, True, True] and all(r["verified"]["ok"] is True for r in res)'; then
	ok "relaxed ordering requested for bandwidth buffers only, data verified"
else
	bad "relaxed ordering" "$(tail -n 5 "$OUT/ro.txt")"
fi
stop_server

# 3. the server cannot register its buffer (locked-memory limit, no CAP_IPC_LOCK): the client
# must report the server's own reason, not "Software caused connection abort"
start_server setpriv --bounding-set -ipc_lock --inh-caps -ipc_lock sh -c 'ulimit -l 64; exec "$0" "$@"'
out=$("$B" "$IP" -p $PORT -t write_bw -s 1M -n 10 2>&1)
rc=$?
case "$out" in
*"Software caused connection abort"*) bad "server's reason" "rc=$rc: $out" ;;
*"peer $IP: memory registration of"*"locked-memory limit"*)
	[ $rc = 1 ] && ok "server's registration failure reaches the client as its cause (exit 1)" ||
		bad "server's reason exit code" "rc=$rc" ;;
*) bad "server's reason" "rc=$rc: $out" ;;
esac
"$B" "$IP" -p $PORT -t write_lat -s 2 -n 20 >/dev/null 2>&1 && ok "that server still serves a small test" ||
	bad "server after its registration failure" "$(tail -n 3 "$OUT/srv-$PORT.log")"
stop_server

# 4. --gpu N without --mem means GPU memory (no GPU here: 77), never host memory in silence
out=$(timeout 30 "$B" "$IP" --gpu 0 2>&1 >/dev/null); rc=$?
[ $rc = 77 ] && printf '%s' "$out" | grep -q "cuda" && ok "--gpu 0 alone implies --mem cuda -> exit 77: $out" ||
	bad "--gpu implies cuda" "rc=$rc: $out"
out=$(timeout 30 "$B" "$IP" --gpu 0 --mem host 2>&1 >/dev/null); rc=$?
[ $rc = 2 ] && printf '%s' "$out" | grep -q "use --mem cuda or drop --gpu" && ok "--gpu 0 --mem host -> exit 2" ||
	bad "--gpu with --mem host" "rc=$rc: $out"
out=$(timeout 30 "$B" "$IP" --gpu 1 --mem cuda:0 2>&1 >/dev/null); rc=$?
[ $rc = 2 ] && ok "--gpu 1 --mem cuda:0 -> exit 2" || bad "--gpu vs cuda:N" "rc=$rc: $out"

# 5. --dev auto: a usable port (rxe0, active); the affinity block names the NIC that was opened
start_server
if "$B" "$IP" -p $PORT --dev auto -t write_lat -n 20 --json "$OUT/auto.json" >"$OUT/auto.txt" 2>&1 &&
	jq_py "$OUT/auto.json" 'd["local_device"]["device"] == "rxe0" and d["affinity"].get("nic") == "rxe0"'; then
	ok "--dev auto opens rxe0 and the affinity block names it"
else
	bad "--dev auto" "$(tail -n 5 "$OUT/auto.txt")"
fi
if "$B" "$IP" -p $PORT -t write_lat -n 20 --json "$OUT/noauto.json" >/dev/null 2>&1 &&
	jq_py "$OUT/noauto.json" 'd["affinity"].get("nic") == d["local_device"]["device"]'; then
	ok "without -d the affinity block names the device actually opened"
else
	bad "affinity without -d" "see $OUT/noauto.json"
fi
stop_server
out=$("$B" --topo 2>&1)
printf '%s' "$out" | grep -q "NIC0: rxe0" && ok "--topo lists rxe0" || bad "--topo" "$out"

echo "lp-rdma GPUDirect guest checks: $fails failed"
exit $fails
