#!/bin/bash
# tier: quick
# lp-sweep --collective on this host: Open MPI ranks over shared memory/loopback, no RDMA device
# (the collective phase runs alone), every collective measured with nccl-tests' conventions and
# its data checked; a corrupted result fails the run; a slowed rank is named by the search;
# --diagnose sets a recorded fabric run beside a nccl-tests output and checks claims.
# Quick (a minute on 2 cores). Exit 0 pass, 77 skipped (no mpirun), else fail.
set -u
cd "$(dirname "$0")/../.."
B=${LP_BUILD:-build}
D=tests/sweep/data
F=tests/fixtures/nccl-tests
[ -x "$B/lp-sweep" ] || { echo "$B/lp-sweep not built (rdma-core or mpicc missing?)"; exit 77; }
command -v mpirun >/dev/null || { echo "Open MPI (mpirun) not installed"; exit 77; }
command -v python3 >/dev/null || { echo "python3 needed to check the JSON"; exit 77; }
ls /sys/class/infiniband/* >/dev/null 2>&1 && { echo "an RDMA device is here: this test wants the collectives-only path"; exit 77; }
export ASAN_OPTIONS=detect_leaks=0
T=$(mktemp -d /tmp/lp-coll-XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
check() { # what cond...
	local what=$1; shift
	if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fails=$((fails + 1)); fi
}
MPI=(mpirun --oversubscribe --bind-to none)
[ "$(id -u)" = 0 ] && MPI+=(--allow-run-as-root)
run() { # name np [env=val] -- lp-sweep args: output in $T/name.out, JSON $T/name.json, rc $T/name.rc
	local name=$1 np=$2 fault=
	shift 2
	[ "$1" != -- ] && { fault=$1; shift; }
	shift
	LP_COLL_FAULT=$fault timeout 300 "${MPI[@]}" -x LP_COLL_FAULT -np "$np" "$B/lp-sweep" \
		--json "$T/$name.json" "$@" >"$T/$name.out" 2>&1
	echo $? >"$T/$name.rc"
}
rc() { cat "$T/$1.rc"; }

# 1. every collective, both placements, MPI and linkperf's ring, checked
run all 3 -- --collective allreduce,allgather,reducescatter,alltoall,broadcast,reduce,sendrecv \
	--coll-paths mpi,ring,nccl --coll-sizes 64K:256K --coll-iters 3 --coll-warmup 1 --coll-bisect never
check "collectives only (no RDMA device): exit 0" [ "$(rc all)" = 0 ]
python3 - "$T/all.json" <<'PY' || fails=$((fails + 1))
import json, sys
d = json.load(open(sys.argv[1]))
c = d["collectives"]
res = c["results"]
F = {"allreduce": lambda n: 2 * (n - 1) / n, "allgather": lambda n: (n - 1) / n,
     "reducescatter": lambda n: (n - 1) / n, "alltoall": lambda n: (n - 1) / n,
     "broadcast": lambda n: 1, "reduce": lambda n: 1, "sendrecv": lambda n: 1}

def size_of(coll, size, n, elt=4):  # nccl-tests' GetCollByteCount and the table's size column
    count = size // elt
    if coll in ("allgather", "reducescatter", "alltoall"):
        base = (count // n) & ~(16 // elt - 1)
        return base * n * elt
    return count * elt

bad = []
seen = set()
for r in res:
    key = (r["path"], r["collective"], r["in_place"], r["size"])
    seen.add(key[:3])
    n = r["nranks"]
    if r["status"] != 0:
        bad.append(("failed", key, r["error"]))
        continue
    if r["wrong"] != 0:
        bad.append(("wrong elements", key, r["wrong"]))
    if abs(r["busbw"] - r["algbw"] * F[r["collective"]](n)) > 1e-9 * max(1, r["busbw"]):
        bad.append(("busbw is not algbw x factor", key))
    if abs(r["algbw"] - r["size"] / 1e9 / (r["time_us"] * 1e-6)) > 1e-6 * r["algbw"]:
        bad.append(("algbw is not size / time", key))
    if r["size"] not in [size_of(r["collective"], s, n) for s in (65536, 131072, 262144)]:
        bad.append(("size is not nccl-tests' column", key))
    if r["group"] != "all" or n != 3 or r["iters"] != 3 or r["warmup"] != 1:
        bad.append(("group, ranks or iterations", key))
want = {("mpi", k, ip) for k in F for ip in (False, True) if not (ip and k == "sendrecv")}
want |= {("ring", "allreduce", False), ("ring", "allreduce", True)}
if want - seen:
    bad.append(("missing", sorted(want - seen)))
if not any(x[0] == "nccl" for x in seen) and "NCCL did not run" not in c["run"]["note"]:
    bad.append(("no NCCL result and no note why",))
if len(d["nodes"]) != 3 or not all(nd["name"] for nd in d["nodes"]):
    bad.append(("node records", d["nodes"]))
if not c["run"]["mpi_library"]:
    bad.append(("the MPI library is not recorded",))
print("FAIL " + repr(bad) if bad else "ok   %d results: checked data, busbw and algbw conventions, sizes" % len(res))
sys.exit(1 if bad else 0)
PY
check "summary: the table" grep -q "mpi allreduce over all (3 ranks)" "$T/all.out"

# 2. a corrupted result: the check sees it, the run fails
run corrupt 3 corrupt:1 -- --collective allreduce --coll-paths mpi --coll-sizes 64K --coll-iters 2 --coll-bisect never
check "corrupted data: exit 1" [ "$(rc corrupt)" = 1 ]
check "corrupted data: wrong elements in the JSON" \
	python3 -c "import json,sys; d=json.load(open('$T/corrupt.json')); sys.exit(0 if any(r['wrong'] > 0 for r in d['collectives']['results']) else 1)"
check "corrupted data: said" grep -q "WRONG DATA" "$T/corrupt.out"

# 3. a slow rank (30 ms before each of its sends): the search names it, and nothing else. On a
# loaded host the probes' noise may hide it: then "inconclusive" naming it is the honest outcome.
run slow 4 slow:2:30000 -- --collective allreduce --coll-paths ring --coll-sizes 1M --coll-iters 8 \
	--coll-warmup 1 --coll-bisect always --coll-timeout 30
check "slow rank: exit 1" [ "$(rc slow)" = 1 ]
check "slow rank: node #2 named with its evidence, nothing else named" python3 -c "
import json, sys
v = json.load(open('$T/slow.json'))['collectives']['verdicts']
ok = len(v) == 1 and len(v[0]['evidence']) >= 4 and (
	(v[0]['kind'] == 'node' and v[0]['a'] == 2) or (v[0]['kind'] == 'inconclusive' and 2 in (v[0]['a'], v[0]['b'])))
print('   ', v[0]['kind'], v[0]['a_name'], v[0]['reason'][:100]) if v else None
sys.exit(0 if ok else 1)"

# 4. offline: a recorded fabric run beside an imported nccl-tests output, claims checked
diag() { # name args: --diagnose with a JSON out
	local name=$1; shift
	timeout 60 "$B/lp-sweep" --diagnose "$@" --json "$T/$name.json" >"$T/$name.out" 2>"$T/$name.err"
	echo $? >"$T/$name.rc"
}
if "$B/lp-sweep" --diagnose /dev/null >/dev/null 2>&1; [ $? != 77 ]; then
	diag claims $D/fabric4-healthy.json --import $F/all_reduce_perf-2x4.txt \
		--claim 'busbw=0.004GB/s@4n;busbw=380GB/s@8n;share=1%,step=1s,bytes=1GB'
	# exit 3: the recorded run's own write_lat and write_bw are inconclusive (20 % noise, 5 df)
	check "diagnose with claims: exit 3 (the recorded run's inconclusive)" [ "$(rc claims)" = 3 ]
	check "diagnose: ceilings over the recorded matrix, claims judged" python3 -c "
import json, sys
c = json.load(open('$T/claims.json'))['collectives']
ring = [x for x in c['ceilings'] if x['collective'] == 'allreduce' and x['scheme'] == 'ring' and x['group'] == 'all']
v = [x['verdict'] for x in c['claims']]
imp = c['imports'][0]
ok = ring and ring[0]['busbw'] > 0 and ring[0]['bottleneck'] and v == ['deliverable', 'not_deliverable', 'not_deliverable'] \
	and imp['program'] == 'all_reduce_perf' and imp['nranks'] == 8 and len(c['results']) == 12
sys.exit(0 if ok else 1)"
	check "diagnose: the claim's reason names the bottleneck" grep -q "claim busbw=380GB/s@8n: not_deliverable: needs 380 GB/s" "$T/claims.out"
	diag badclaim $D/fabric4-healthy.json --claim 'busbw=fast'
	check "a claim that does not parse: exit 2, one line" [ "$(rc badclaim):$(wc -l <"$T/badclaim.err")" = 2:1 ]
	diag badimport $D/fabric4-healthy.json --import $F/bad-busbw.txt
	check "an import whose busbw is not nccl-tests': exit 2, one line" [ "$(rc badimport):$(wc -l <"$T/badimport.err")" = 2:1 ]
	check "...naming the line" grep -q "line .*busbw .* does not follow from algbw" "$T/badimport.err"
else
	echo "skip --diagnose checks: lp-sweep built without jansson"
fi
[ $fails = 0 ] && echo "test-coll: all passed" || echo "test-coll: $fails failed"
[ $fails = 0 ]
