#!/bin/bash
# tier: gpu
# GPUDirect RDMA in lp-rdma. Needs a GPU and an RDMA device: without either it exits 77 and says
# why (after checking the clear exit-77 message of lp-rdma itself). With both, runs every test with
# GPU memory on the server, the client and both (verified; write_lat by GPU polling and by write
# with immediate; send_lat at 2 B, the size mlx5 would scatter into the CQE), the two processes on
# different GPUs where there are two, and asserts what the JSON records: the registration used
# (dma-buf or peer memory; LP_EXPECT_REG=dmabuf|peermem to require one), scatter-to-CQE disabled
# for GPU memory, the RDMA write ordering, the GPU-polling notification.
. "$(dirname "$0")/check.sh"
LPR=$B/lp-rdma
[ -x "$LPR" ] || { echo "lp-rdma not built"; exit 77; }
if ! nvidia-smi -L 2>/dev/null | grep -q GPU; then echo "no GPU here: GPUDirect RDMA cannot run"; exit 77; fi
fails=0
ok() { echo "ok $1"; }
bad() { echo "FAIL $1: $2"; fails=$((fails + 1)); }
out=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$out"' EXIT

topo=$("$LPR" --topo 2>&1); topo_rc=$?
bus=$(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader | head -n 1 | tr 'A-F' 'a-f' | sed 's/^0000//; s/^00000000/0000/')
if [ $topo_rc = 0 ] && printf '%s' "$topo" | grep -qi "${bus#0000}"; then
	ok "--topo lists the GPU (${bus})"
else
	bad "--topo" "rc=$topo_rc: $topo"
fi
o=$("$LPR" --server --mem cuda:99 2>&1); rc=$?
[ $rc = 2 ] && printf '%s' "$o" | grep -q "does not exist" && ok "--mem cuda:99 -> exit 2: $o" || bad "cuda:99" "rc=$rc $o"

if ! ls /sys/class/infiniband 2>/dev/null | grep -q .; then
	o=$(timeout 30 "$LPR" 127.0.0.1 --mem cuda --gpu auto 2>&1); rc=$?
	lines=$(printf '%s\n' "$o" | grep -c .)
	if [ $rc = 77 ] && [ "$lines" = 1 ] && printf '%s' "$o" | grep -q "no RDMA device"; then
		ok "GPU but no RDMA device -> exit 77: $o"
	else
		bad "no RDMA device" "rc=$rc: $o"
	fi
	[ $fails = 0 ] || exit 1
	echo "no RDMA device here: the GPUDirect RDMA path did not run (it runs where a GPU and a NIC exist)"
	exit 77
fi

# Two GPUs: the server and the client each get their own (two spinning pollers must not share one).
ngpu=$(nvidia-smi -L | grep -c "^GPU")
if [ "$ngpu" -ge 2 ]; then
	sgpu=0 cgpu=1
	echo "server on GPU 0, client on GPU 1"
else
	sgpu=0 cgpu=0
	echo "one GPU: server and client share GPU 0 (GPU-polling latencies then include two pollers on one GPU)"
fi
[ -n "${LP_EXPECT_REG:-}" ] && echo "expecting registration: $LP_EXPECT_REG"
ip=$(ip -o -4 addr show scope global | awk '{print $4}' | cut -d/ -f1 | head -n 1)
port=19500
for sides in "cuda host" "host cuda" "cuda cuda"; do
	set -- $sides
	port=$((port + 2))
	sargs=(--mem "$1"); [ "$1" = cuda ] && sargs=(--gpu $sgpu)
	cargs=(--mem "$2"); [ "$2" = cuda ] && cargs=(--gpu $cgpu)
	"$LPR" --server --once -p $port "${sargs[@]}" >"$out/srv.log" 2>&1 &
	sleep 1
	if "$LPR" "${ip:-127.0.0.1}" -p $port --wait 10 "${cargs[@]}" -t write_lat,read_lat,send_lat,write_bw,read_bw,send_bw \
		-s 2,4K,1M -n 200 --verify --json "$out/r.json" >"$out/c.log" 2>&1 &&
		python3 - "$out/r.json" "$1" "$2" "${LP_EXPECT_REG:-}" <<'PY'
import json, subprocess, sys
d = json.load(open(sys.argv[1]))
srv, cli, want_reg = sys.argv[2], sys.argv[3], sys.argv[4]
peermem = subprocess.run(["grep", "-q", "^nvidia_peermem ", "/proc/modules"]).returncode == 0
for r in d["results"]:
    assert r["status"] == "ok" and r["verified"]["ok"] is True, r
    assert r["local_mem"].startswith(cli) and r["remote_mem"].startswith(srv), r
    setup = r["local_setup"]
    for side, mem in (("client", r["local_mem"]), ("server", r["remote_mem"])):
        if mem.startswith("cuda"):
            reg = mem.split()[-1]
            assert reg in ("dmabuf", "peermem"), (side, mem)
            assert not want_reg or reg == want_reg, (side, mem, "expected", want_reg)
            assert reg != "peermem" or side != "client" or peermem, "peermem used but nvidia_peermem not loaded"
    if cli == "cuda":
        assert setup["scatter_to_cqe"].startswith("disabled"), setup
        assert setup["gpu_rdma_writes_ordering"] in ("owner", "all_devices"), setup
    else:
        assert setup["scatter_to_cqe"] == "provider default", setup
    assert setup["relaxed_ordering"] == r["test"].endswith("_bw"), (r["test"], setup)
    if r["test"] == "write_lat":
        want = "client %s, server %s" % ("gpu_poll" if cli == "cuda" else "cpu_poll", "gpu_poll" if srv == "cuda" else "cpu_poll")
        assert r["latency_method"] == want, r["latency_method"]
        g = r.get("gpu_poll")
        assert g and g["sides"] == (cli == "cuda") + (srv == "cuda"), g
        assert (g["notification_us"] is not None) == (cli == "cuda"), g
print("registration: client %s, server %s" % (d["results"][0]["local_mem"], d["results"][0]["remote_mem"]))
PY
	then ok "server $1, client $2: all tests verified, registration and QP set-up recorded"; else bad "server $1 client $2" "$(tail -n 5 "$out/c.log")"; fi
	wait
done
port=$((port + 2))
"$LPR" --server --once -p $port --gpu $sgpu >/dev/null 2>&1 &
sleep 1
"$LPR" "${ip:-127.0.0.1}" -p $port --wait 10 --gpu $cgpu --lat-method imm -t write_lat -n 500 --json "$out/imm.json" >/dev/null 2>&1 &&
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; assert r["latency_method"]=="write_imm" and r["status"]=="ok" and "gpu_poll" not in r' "$out/imm.json" &&
	ok "write_lat with immediate" || bad "write_imm" "see $out"
wait
echo "rdma-gpu checks: $fails failed"
exit $((fails ? 1 : 0))
