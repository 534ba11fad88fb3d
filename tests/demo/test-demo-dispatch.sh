#!/bin/bash
# tier: quick
# scripts/demo.sh's dispatch, with the tools it asks faked on PATH: for each setting (what this
# host has), which commands the demo runs with which arguments, what it says, and its exit code.
# The fakes record each call ("name args...") in $rec; lp-vm runs its command as the guest would.
set -u
cd "$(dirname "$0")/../.."
top=$PWD
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lp-demo-test.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
utils=$tmp/utils rec=$tmp/calls out=$tmp/out
mkdir -p "$utils"
# Only these real tools are on PATH: a real ibv_devices, nvidia-smi or qemu must not leak in.
for t in bash sh date awk grep mkdir sleep dirname cat sed; do
	ln -s "$(command -v $t)" "$utils/$t" || exit 1
done
fails=0

# fake NAME BODY: an executable shell script that records its call, then runs BODY.
fake() { # dir name body
	printf '#!/bin/sh\necho "%s $*" >>"%s"\n%s\n' "$2" "$rec" "$3" >"$1/$2"
	chmod +x "$1/$2"
}

# setup TOOLS...: a fresh fake bin dir holding the named probes (rdma = ibv_devices listing
# mlx5_0, nordma = ibv_devices listing none, gpu = nvidia-smi listing a GPU, qemu), plus a fake
# build dir with lp-rdma and lp-gpu (exit $FAKE_GPU_RC, default 0) and a fake guest runner.
setup() {
	rm -rf "$tmp/bin" "$tmp/build"
	mkdir -p "$tmp/bin" "$tmp/build"
	local hdr='echo "    device          	   node GUID"; echo "    ------          	----------------"'
	for t in "$@"; do
		case $t in
		rdma) fake "$tmp/bin" ibv_devices "$hdr; echo '    mlx5_0          	b8cef60300a1b2c3'" ;;
		nordma) fake "$tmp/bin" ibv_devices "$hdr" ;;
		gpu) fake "$tmp/bin" nvidia-smi 'echo "GPU 0: NVIDIA H200 (UUID: GPU-0)"' ;;
		qemu) fake "$tmp/bin" qemu-system-x86_64 'exit 1' ;;
		esac
	done
	# lp-rdma: the client writes its --json file.
	fake "$tmp/build" lp-rdma 'while [ $# -gt 1 ]; do [ "$1" = --json ] && echo "{}" >"$2"; shift; done; exit 0'
	fake "$tmp/build" lp-gpu "exit \${FAKE_GPU_RC:-0}"
	# lp-vm --rw DIR CMD: runs CMD with the guest's environment.
	# (and waits for what CMD started in the background, as the guest's end does: the server's
	# call is recorded before the calls are read, on a loaded host too)
	fake "$tmp/bin" lp-vm '[ "$1" = --rw ] && [ -d "$2" ] || exit 2; LP_VM_IP=10.0.2.15 exec sh -c "$3
rc=\$?; wait; exit \$rc"'
}

# check NAME WANT_RC WANT_OUTPUT_REGEX EXPECTED_CALLS: run the demo, compare (calls sorted, the
# JSON paths' time stamps replaced by STAMP, the temp dir by TMP).
check() {
	local name=$1 want_rc=$2 want_out=$3 want_calls=$4 rc got
	rm -rf "$out"
	: >"$rec"
	PATH="$tmp/bin:$utils" LP_BUILD="$tmp/build" LP_VM="$tmp/bin/lp-vm" LP_DEMO_OUT="$out" \
		bash scripts/demo.sh >"$tmp/demo.out" 2>&1
	rc=$?
	got=$(sed -e "s#$tmp#TMP#g" -e 's#-[0-9]\{8\}T[0-9]\{6\}Z\.json#-STAMP.json#g' "$rec" | sort)
	want_calls=$(printf '%s' "$want_calls" | sort)
	if [ $rc != "$want_rc" ]; then
		echo "FAIL $name: exit $rc, want $want_rc"
	elif [ "$got" != "$want_calls" ]; then
		printf 'FAIL %s: calls\n%s\nwant\n%s\n' "$name" "$got" "$want_calls"
	elif ! grep -Eq "$want_out" "$tmp/demo.out"; then
		echo "FAIL $name: output lacks /$want_out/"
	else
		echo "ok $name: exit $rc, $(grep -c . "$rec") calls"
		return 0
	fi
	sed 's/^/    | /' "$tmp/demo.out"
	fails=$((fails + 1))
}

T=write_lat,read_lat,send_lat,write_bw,read_bw,send_bw
S=2,64,4K,64K

# (a) no GPU, no RDMA device, qemu: lp-rdma server and client in the Soft-RoCE guest.
setup nordma qemu
check "no GPU, no RDMA, qemu: guest" 0 "lp-gpu skipped: no NVIDIA GPU here \(nvidia-smi not found\)" \
"ibv_devices 
lp-vm --rw TMP/out TMP/build/lp-rdma --server --once -p 18600 >/dev/null & 		TMP/build/lp-rdma \$LP_VM_IP -p 18600 --wait 10 -t $T -s $S -n 300 --verify --json TMP/out/demo-rdma-STAMP.json
lp-rdma --server --once -p 18600
lp-rdma 10.0.2.15 -p 18600 --wait 10 -t $T -s $S -n 300 --verify --json TMP/out/demo-rdma-STAMP.json"
summary() { # WANT: the demo's last line names what ran, failed and was skipped
	if [ "$(tail -n 1 "$tmp/demo.out" | sed "s#$tmp#TMP#g")" = "$1" ]; then
		echo "ok summary: $1"
	else
		echo "FAIL summary: $(tail -n 1 "$tmp/demo.out"), want $1"
		fails=$((fails + 1))
	fi
}
summary "demo: ran: lp-rdma; failed: none; skipped: lp-gpu; JSON in TMP/out/"

# (b) GPU, no RDMA device, no qemu: lp-gpu (tables and --json FILE); the RDMA part says how to get it.
setup nordma gpu
check "GPU, no RDMA, no qemu: lp-gpu" 0 \
	"lp-rdma skipped: no RDMA device .* install qemu \(scripts/install-deps.sh\) or use a host with an RDMA device" \
"ibv_devices 
nvidia-smi -L
lp-gpu --json TMP/out/demo-gpu-STAMP.json"

# (c) an RDMA device: server and client on this host through it; no GPU.
setup rdma
check "RDMA device: local server and client" 0 "lp-gpu skipped: no NVIDIA GPU" \
"ibv_devices 
lp-rdma --server --once -d mlx5_0 -p 18600
lp-rdma 127.0.0.1 -p 18600 -d mlx5_0 --wait 10 -t $T -s $S -n 2000 --verify --json TMP/out/demo-rdma-STAMP.json"

# (c') RDMA device and GPU (and qemu, unused): both run, the device rather than the guest.
setup rdma gpu qemu
check "RDMA device and GPU: both" 0 "JSON: .*demo-gpu-" \
"ibv_devices 
nvidia-smi -L
lp-gpu --json TMP/out/demo-gpu-STAMP.json
lp-rdma --server --once -d mlx5_0 -p 18600
lp-rdma 127.0.0.1 -p 18600 -d mlx5_0 --wait 10 -t $T -s $S -n 2000 --verify --json TMP/out/demo-rdma-STAMP.json"

# (d) nothing at all: no probe tool answers; exit 77 with the reason, nothing run.
setup
check "nothing at all: skip" 77 "demo: nothing could run here" ""

# (e) a part that fails fails the demo; (f) a GPU the tool cannot use (exit 77) is a skip.
setup nordma gpu
FAKE_GPU_RC=1 check "lp-gpu fails: demo fails" 1 "lp-gpu FAILED \(exit 1\)" \
"ibv_devices 
nvidia-smi -L
lp-gpu --json TMP/out/demo-gpu-STAMP.json"
summary "demo: ran: none; failed: lp-gpu; skipped: lp-rdma; JSON in TMP/out/"
FAKE_GPU_RC=77 check "lp-gpu exits 77, nothing else: skip" 77 "lp-gpu skipped: the tool found nothing" \
"ibv_devices 
nvidia-smi -L
lp-gpu --json TMP/out/demo-gpu-STAMP.json"

echo "demo dispatch: $fails failed"
[ $fails = 0 ]
