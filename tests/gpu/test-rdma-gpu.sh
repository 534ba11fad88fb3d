#!/bin/bash
# GPUDirect RDMA in lp-rdma. Needs a GPU (else exit 77). With an RDMA device too, runs every test
# with GPU memory on either and both sides (verified; write_lat by GPU polling and by write with
# immediate). Without an RDMA device, checks the clear "no RDMA device" exit 77 and the topology.
set -u
cd "$(dirname "$0")/../.."
B=${LP_BUILD:-build}/lp-rdma
[ -x "$B" ] || { echo "lp-rdma not built"; exit 77; }
if ! nvidia-smi -L 2>/dev/null | grep -q GPU; then echo "no GPU here"; exit 77; fi
fails=0
ok() { echo "ok $1"; }
bad() { echo "FAIL $1: $2"; fails=$((fails + 1)); }
out=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$out"' EXIT

topo=$("$B" --topo 2>&1)
bus=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader | head -n 1 | tr 'A-F' 'a-f' | sed 's/^0000//; s/^00000000/0000/')
if [ $? = 0 ] && printf '%s' "$topo" | grep -qi "${bus#0000}"; then
	ok "--topo lists the GPU (${bus})"
else
	bad "--topo" "$topo"
fi
o=$("$B" --server --mem cuda:99 2>&1); rc=$?
[ $rc = 2 ] && printf '%s' "$o" | grep -q "does not exist" && ok "--mem cuda:99 -> exit 2: $o" || bad "cuda:99" "rc=$rc $o"

if ! ls /sys/class/infiniband 2>/dev/null | grep -q .; then
	o=$(timeout 30 "$B" 127.0.0.1 --mem cuda --gpu auto 2>&1); rc=$?
	lines=$(printf '%s\n' "$o" | grep -c .)
	if [ $rc = 77 ] && [ "$lines" = 1 ] && printf '%s' "$o" | grep -q "no RDMA device"; then
		ok "GPU but no RDMA device -> exit 77: $o"
	else
		bad "no RDMA device" "rc=$rc: $o"
	fi
	echo "no RDMA device here: the GPU+NIC path runs where both exist"
	echo "rdma-gpu checks: $fails failed"
	exit $((fails ? 1 : 0))
fi

# A GPU and an RDMA device: the full path, GPU memory on the server, the client, or both.
ip=$(ip -o -4 addr show scope global | awk '{print $4}' | cut -d/ -f1 | head -n 1)
port=19500
for sides in "cuda host" "host cuda" "cuda cuda"; do
	set -- $sides
	port=$((port + 2))
	"$B" --server --once -p $port --mem "$1" --gpu auto >"$out/srv.log" 2>&1 &
	sleep 1
	if "$B" "${ip:-127.0.0.1}" -p $port --wait 10 --mem "$2" --gpu auto -t write_lat,read_lat,send_lat,write_bw,read_bw,send_bw \
		-s 2,4K,1M -n 200 --verify --json "$out/r.json" >"$out/c.log" 2>&1 &&
		python3 - "$out/r.json" "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
srv, cli = sys.argv[2], sys.argv[3]
for r in d["results"]:
    assert r["status"] == "ok" and r["verified"], r
    assert r["local_mem"].startswith(cli) and r["remote_mem"].startswith(srv), r
    if r["test"] == "write_lat":
        want = "client %s, server %s" % ("gpu_poll" if cli == "cuda" else "cpu_poll", "gpu_poll" if srv == "cuda" else "cpu_poll")
        assert r["latency_method"] == want, r["latency_method"]
PY
	then ok "server $1, client $2: all tests verified"; else bad "server $1 client $2" "$(tail -n 5 "$out/c.log")"; fi
	wait
done
port=$((port + 2))
"$B" --server --once -p $port --mem cuda >/dev/null 2>&1 &
sleep 1
"$B" "${ip:-127.0.0.1}" -p $port --wait 10 --mem cuda --lat-method imm -t write_lat -n 500 --json "$out/imm.json" >/dev/null 2>&1 &&
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; assert r["latency_method"]=="write_imm" and r["status"]=="ok"' "$out/imm.json" &&
	ok "write_lat with immediate" || bad "write_imm" "see $out"
wait
echo "rdma-gpu checks: $fails failed"
exit $((fails ? 1 : 0))
