#!/bin/bash
# tier: quick
# lp-qualify end to end on this host, through its real steps and tools: MPI ranks on this host
# (Open MPI, --launcher), each rank a node; the pre-flight (lp-sweep --check) on a sysfs fixture
# tree (LP_SYSFS_ROOT: the ConnectX-7 host of tests/fixtures/check/cx7-ib.txt); lp-gpu on every
# rank (77 without a GPU: passed); the sweep on the model transport (lp-sweep --model: no RDMA
# device, the harness as on a cluster); lp-report where Debian's python3 has jinja2 and
# matplotlib. Checks:
#  - a healthy model on a healthy tree: every step in the log, exit 0, the directory complete
#    (command.txt, qualify.log, check.json, gpu/, sweep.json, journal, CSVs);
#  - a slow node in the model: exit 1, the verdict names it in sweep.txt, sweep.json and the
#    report's flagged table;
#  - a port DOWN in the tree (the check's fault): exit 1 with a healthy sweep, check.txt FAILs it;
#  - a re-run skips every completed step and keeps the gate;
#  - a run stopped by TERM mid-sweep exits 130 without a marker, and the re-run resumes the
#    sweep from its journal (--resume) to the whole matrix and the same verdict;
#  - a sweep cut short (its journal's first rounds only) resumes;
#  - the fleet's GPU table (plots/lpgpufleet.py) on lp-gpu documents of the H200 run copied to
#    16 hosts x 8 GPUs: healthy names nothing; a slow host, a slow GPU, a slow latency named,
#    5 % not; too few GPUs said; a torn document named, the rest compared; through lp-qualify
#    (a stand-in lp-gpu writing each rank's document) a slow GPU host fails the gate;
#  - usage errors exit 2 with one line.
# LP_QUALIFY_RANKS (default 8) sets the ranks. Quick (about a minute; the report half of it).
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${LP_BUILD:-build}
N=${LP_QUALIFY_RANKS:-8}
PY=/usr/bin/python3
command -v mpirun >/dev/null || { echo "Open MPI (mpirun) not installed"; exit 77; }
[ -x "$B/lp-sweep" ] || { echo "$B/lp-sweep not built (rdma-core or mpicc missing?)"; exit 77; }
[ -x "$PY" ] || { echo "Debian's python3 not installed"; exit 77; }
T=$(mktemp -d /tmp/lp-qualify-test-XXXXXX)
trap 'rm -rf "$T"' EXIT
echo '{"schema": "linkperf.model/1"}' >"$T/empty.json"
if "$B/lp-sweep" --plan --nodes 2 --model "$T/empty.json" 2>&1 | grep -q "without a JSON library"; then
	echo "lp-sweep built without jansson: --model cannot read a model"; exit 77
fi
export ASAN_OPTIONS=detect_leaks=0 PATH="$PWD/$B:$PATH"
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
expect() { if [ "$1" = "$2" ]; then ok "$3"; else bad "$3: exit $1, want $2"; fi; }
has_report=0
$PY -c 'import jinja2, matplotlib, lxml' 2>/dev/null && [ -x plots/lp-report ] && has_report=1

cat >"$T/healthy.json" <<'EOF'
{"schema": "linkperf.model/1", "seed": 11, "names": "gpu%03d",
 "base": {"lat_us": 1.9, "bw_gbps": 390}, "noise": {"cv": 0.03}, "time": {"test_ms": 1}}
EOF
sed 's/"time"/"faults": [{"node": "gpu005", "factor": 0.7}], "time"/' "$T/healthy.json" >"$T/slow.json"
# the same, each test 150 ms: a sweep long enough to be stopped in the middle
sed 's/"test_ms": 1/"test_ms": 150/' "$T/slow.json" >"$T/slow-long.json"

# sysfs trees: the manifest's file, dir, link and rm lines (its ACS config spaces are left out:
# gpu_nic_path then WARNs that ACS is unreadable, which does not gate)
expand() { # MANIFEST DIR [OVERLAY-LINE]
	$PY - "$@" <<'EOF'
import os, shutil, sys
man, top = sys.argv[1], sys.argv[2]
lines = open(man).read().splitlines() + sys.argv[3:]
for line in lines:
    if not line.strip() or line.startswith('#'):
        continue
    kind, rel, *rest = line.split(' ', 2)
    arg, path = rest[0] if rest else '', os.path.join(top, rel)
    if kind in ('file', 'link'):
        os.makedirs(os.path.dirname(path), exist_ok=True)
    if kind == 'dir':
        os.makedirs(path, exist_ok=True)
    elif kind == 'file':
        open(path, 'w').write(arg + '\n')
    elif kind == 'link':
        if os.path.lexists(path):
            os.unlink(path)
        os.symlink(arg, path)
    elif kind == 'rm' and os.path.lexists(path):
        shutil.rmtree(path) if os.path.isdir(path) and not os.path.islink(path) else os.unlink(path)
EOF
}
expand tests/fixtures/check/cx7-ib.txt "$T/sys-ok"
expand tests/fixtures/check/cx7-ib.txt "$T/sys-down" \
	"file sys/class/infiniband/mlx5_0/ports/1/state 1: DOWN" \
	"file sys/class/infiniband/mlx5_0/ports/1/phys_state 3: Disabled"

launcher="timeout -k 5 300 mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader,tcp --mca pml ob1 --mca mpi_yield_when_idle 1 -np $N"
# lp-sweep --check judges the RoCE class the sweep is given (--tclass), else the verbs default 0;
# mlx5's Global tclass (the fixture's 106) is applied to every QP by the driver, so there a
# --tclass that differs is said to be overridden and 106 is judged (the option reaching the
# check is what these show: it was once dropped on its way)
expand tests/fixtures/check/roce-cx6dx.txt "$T/sys-roce"
expand tests/fixtures/check/roce-cx6dx.txt "$T/sys-notc" "rm sys/class/infiniband/mlx5_0/tc"
for tc in "" 98 0; do
	LP_SYSFS_ROOT=$T/sys-notc $launcher "$B/lp-sweep" --check ${tc:+--tclass $tc} </dev/null >"$T/roce$tc.out" 2>&1
done
LP_SYSFS_ROOT=$T/sys-roce $launcher "$B/lp-sweep" --check --tclass 98 </dev/null >"$T/roce-global.out" 2>&1
grep -q '^WARN  roce_pfc .* tclass 98 (--tclass), DSCP 24 (derived: tclass 98 >> 2)' "$T/roce98.out" &&
	grep -q '^WARN  roce_pfc .* tclass 0 (the verbs default), DSCP 0 (derived' "$T/roce.out" &&
	ok "lp-sweep --check --tclass 98 judges class 98 (its DSCP derived, said); without it the verbs default 0" ||
	bad "lp-sweep --check does not judge the class it is given: $(grep roce_pfc "$T/roce98.out" "$T/roce.out")"
# an explicit --tclass 0 is class 0 (the verbs default), not "not given"
grep -q '^WARN  roce_pfc .* tclass 0 (--tclass), DSCP 0' "$T/roce0.out" &&
	ok "lp-sweep --check --tclass 0 judges class 0" ||
	bad "lp-sweep --check --tclass 0: $(grep roce_pfc "$T/roce0.out")"
grep -q "^WARN  roce_pfc .* tclass 106 (the device's, tc/PORT/traffic_class: --tclass 98 is overridden), DSCP 26 (tc/PORT/traffic_class: every QP)" "$T/roce-global.out" &&
	ok "a Global tclass on the device: --tclass 98 said overridden, 106 and its DSCP 26 judged" ||
	bad "Global tclass and --tclass 98: $(grep roce_pfc "$T/roce-global.out")"
# lp-qualify's pre-flight judges the class its sweep is given (lp-sweep's -T/--tclass, --sl
# after --), and the sweep's document records it (0 given: 0, not -1 the device's)
LP_SYSFS_ROOT=$T/sys-roce scripts/lp-qualify --out "$T/tclass" --no-gpu \
	--launcher "${launcher% -np *} -np 2" -- --model "$T/healthy.json" --isolation none \
	--tclass=0 --sl 2 </dev/null >"$T/tclass.out" 2>&1
grep -q "roce_pfc .* tclass 106 (the device's, tc/PORT/traffic_class: --tclass 0 is overridden)" "$T/tclass/check.txt" &&
	grep -q 'lp-sweep --check --tclass=0 --sl 2 --json' "$T/tclass/qualify.log" &&
	[ "$($PY -c 'import json, sys; r = json.load(open(sys.argv[1]))["run"]; print(r["tclass"], r["sl"])' \
		"$T/tclass/sweep.json" 2>&1)" = "0 2" ] &&
	ok "lp-qualify -- --tclass=0 --sl 2: the pre-flight sees class 0 (overridden by the device's Global 106), the sweep records 0 and 2" ||
	bad "lp-qualify's pre-flight and --tclass: $(grep -E 'check:|roce_pfc' "$T/tclass/qualify.log" "$T/tclass/check.txt" | head -3)"
qualify() { # DIR TREE MODEL [lp-qualify options]: lp-qualify's exit code, its output in DIR.out
	local dir=$1 tree=$2 model=$3
	shift 3
	LP_SYSFS_ROOT=$tree SLURM_NNODES=$N scripts/lp-qualify --out "$T/$dir" --launcher "$launcher" "$@" \
		-- --model "$model" --isolation none </dev/null >"$T/$dir.out" 2>&1
}
xpath() { # HTML EXPR: what lxml finds there, one a line
	$PY -c 'import signal, sys, lxml.html
signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # a reader that stops early (grep -q)
for x in lxml.html.parse(sys.argv[1]).xpath(sys.argv[2]):
    print(x if isinstance(x, str) else x.text_content())' "$1" "$2"
}
# sweep.json: node COUNT, resolved cells of every metric, the verdicts' nodes (name:kind)
doc() { # DIR
	$PY - "$T/$1/sweep.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
nm = [x["name"] for x in d["nodes"]]
cells = sum(sum(v is not None for v in b["cells"]["value"]) for b in d["blocks"])
print(len(nm), cells, " ".join(sorted(f"{nm[v['a']]}:{v['kind']}" for v in d["verdicts"])))
EOF
}
full="$N $((N * (N - 1) * 2))" # nodes, resolved cells of the two default tests

# 1. healthy: every step passes, the directory holds everything
qualify healthy "$T/sys-ok" "$T/healthy.json"
expect $? 0 "healthy model, healthy tree, $N ranks: the gate passes"
d=$T/healthy
for f in command.txt qualify.log check.json check.txt sweep.json sweep.journal sweep.txt \
	sweep-cells.csv sweep-write_bw-1048576.csv sweep-write_lat-8.csv; do
	[ -s "$d/$f" ] || bad "healthy: $f missing or empty"
done
grep -q "^lp-qualify: predicted for $N nodes: pre-flight at most .*, GPU step .*, sweep at most .*, report .*: at most .* in all; Slurm -t [0-9]* (minutes)$" "$d/qualify.log" &&
	ok "the log predicts the run's time for its $N nodes, every step in it, and the Slurm -t" ||
	bad "no prediction in the log: $(grep -m1 'predicted\|no time prediction' "$d/qualify.log")"
grep -q -- "--out $d " "$d/command.txt" && ok "command.txt holds the command line" ||
	bad "command.txt: $(cat "$d/command.txt")"
for s in check sweep; do
	grep -q "^lp-qualify: $s: exit 0 after" "$d/qualify.log" && [ "$(cat "$d/.done/$s" 2>/dev/null)" = 0 ] &&
		ok "healthy: step $s ran, exit 0, marked done" || bad "healthy: step $s: $(grep ": $s:" "$d/qualify.log")"
done
if [ -x "$B/lp-gpu" ]; then
	[ "$(cat "$d/.done/gpu" 2>/dev/null)" = 0 ] && [ "$(grep -c '^[^ ]* lp-gpu exit [0-9]*$' "$d/gpu.txt")" = "$N" ] &&
		grep -q "^lp-gpu on 0 hosts: no document in .* hosts\{0,1\} without a GPU (lp-gpu's exit 77)" "$d/gpu.txt" &&
		ok "healthy: lp-gpu on every rank, the fleet's table says why it has none ($(sort -u "$d/gpu.txt" | tr '\n' ' '))" || bad "healthy: gpu step: $(cat "$d/gpu.txt")"
fi
[ "$($PY -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["hosts"]))' "$d/check.json")" = "$N" ] &&
	[ "$(grep -c '^OK    port_state    mlx5_0 port 1 .*4: ACTIVE' "$d/check.txt")" = "$N" ] &&
	grep -q '^OK    port_state    mlx5_0 port 1 .*4: ACTIVE' "$d/check.txt" &&
	ok "healthy: the pre-flight of every rank judged the fixture's port ACTIVE" ||
	bad "healthy: check.txt: $(grep port_state "$d/check.txt" | head -1)"
[ "$(doc healthy)" = "$full " ] && ok "healthy: sweep.json $full (nodes, cells), no verdict" ||
	bad "healthy: sweep.json: $(doc healthy)"
if [ $has_report = 1 ]; then
	[ -s "$d/report.html" ] && [ "$(xpath "$d/report.html" '//*[@id="verdict"]')" != FAIL ] &&
		ok "healthy: report.html, verdict $(xpath "$d/report.html" '//*[@id="verdict"]')" || bad "healthy: report"
else
	grep -q '^lp-qualify: report: skipped (lp-report needs' "$d/qualify.log" &&
		ok "no jinja2/matplotlib/lxml for Debian's python3: the log says the report is skipped" ||
		bad "report skipped without a word"
fi

# 2. a slow node: named in every output, the gate fails
qualify slow "$T/sys-ok" "$T/slow.json"
expect $? 1 "a slow node in the model: the gate fails"
d=$T/slow
grep -q '^verdict: node_slow gpu005: ' "$d/sweep.txt" && ok "slow: sweep.txt names gpu005" ||
	bad "slow: sweep.txt: $(grep '^verdict' "$d/sweep.txt")"
[ "$(doc slow)" = "$full gpu005:node_slow" ] && ok "slow: sweep.json names gpu005 (node_slow) and only it" ||
	bad "slow: sweep.json: $(doc slow)"
tail -n 1 "$d/qualify.log" | grep -q '^lp-qualify: gate: exit 1 ' && ok "slow: the log's last word is the gate" || bad "slow: no gate line"
if [ $has_report = 1 ]; then
	[ "$(xpath "$d/report.html" '//*[@id="verdict"]')" = FAIL ] &&
		xpath "$d/report.html" '//*[@id="flagged"]/following-sibling::table[1]//td' | grep -qx gpu005 &&
		ok "slow: report.html FAIL, gpu005 in its flagged table" || bad "slow: report.html does not flag gpu005"
fi

# 3. a re-run skips what was done and keeps the gate
j0=$(md5sum <"$d/sweep.journal")
qualify slow "$T/sys-ok" "$T/slow.json"
expect $? 1 "re-run of a finished run: the same gate"
grep -q '^lp-qualify: check: done before (exit 0), skipped' "$T/slow.out" &&
	grep -q '^lp-qualify: sweep: done before (exit 1), skipped' "$T/slow.out" &&
	[ "$(md5sum <"$d/sweep.journal")" = "$j0" ] && ok "re-run: the completed steps skipped, the journal untouched" ||
	bad "re-run: $(grep 'done before' "$T/slow.out" | tr '\n' ' ')"

# 4. the pre-flight's fault: a port DOWN fails the gate though the sweep is healthy
qualify down "$T/sys-down" "$T/healthy.json"
expect $? 1 "a port DOWN in the pre-flight: the gate fails"
grep -q '^FAIL  port_state    mlx5_0 port 1 .*1: DOWN' "$T/down/check.txt" &&
	grep -q '^lp-qualify: check: exit 1 after' "$T/down/qualify.log" &&
	grep -q '^lp-qualify: sweep: exit 0 after' "$T/down/qualify.log" &&
	ok "down: check.txt FAILs port_state, check exit 1, the sweep still measured (exit 0)" ||
	bad "down: $(grep -E ': (check|sweep): exit' "$T/down/qualify.log")"

# 5. TERM in the middle of the sweep: exit 130, no marker; the re-run resumes the sweep
LP_SYSFS_ROOT=$T/sys-ok setsid scripts/lp-qualify --out "$T/stop" --launcher "$launcher" --no-gpu \
	-- --model "$T/slow-long.json" --isolation none </dev/null >"$T/stop.out" 2>&1 &
pid=$!
for _ in $(seq 600); do # the sweep's first round on disk (at most 120 s)
	grep -q '"type":"round"' "$T/stop/sweep.journal" 2>/dev/null && break
	sleep 0.2
done
kill -TERM -- -"$pid"
wait "$pid"
rc=$?
expect $rc 130 "TERM mid-sweep: lp-qualify stops with 130"
[ ! -f "$T/stop/.done/sweep" ] && [ -s "$T/stop/sweep.journal" ] &&
	grep -q '^lp-qualify: sweep interrupted: re-run the same command to continue' "$T/stop/qualify.log" &&
	ok "TERM: the sweep has no marker, its journal holds the rounds measured" ||
	bad "TERM: marker $(cat "$T/stop/.done/sweep" 2>/dev/null), log: $(tail -2 "$T/stop/qualify.log")"
LP_SYSFS_ROOT=$T/sys-ok scripts/lp-qualify --out "$T/stop" --launcher "$launcher" --no-gpu \
	-- --model "$T/slow.json" --isolation none </dev/null >"$T/stop2.out" 2>&1
expect $? 1 "the re-run after TERM: finished, the slow node named"
grep -q "sweep: .* --resume $T/stop/sweep.journal" "$T/stop/qualify.log" &&
	grep -q '^lp-qualify: check: done before (exit 0), skipped' "$T/stop2.out" &&
	[ "$(doc stop)" = "$full gpu005:node_slow" ] &&
	ok "re-run after TERM: the check skipped, the sweep resumed from its journal to $full, gpu005 named" ||
	bad "re-run after TERM: $(doc stop); $(grep 'sweep: ' "$T/stop2.out" | head -1)"

# 6. a sweep whose journal ends early (a node lost, the job's time up): resumed
cp -r "$T/slow" "$T/cut"
rm -f "$T/cut/.done/sweep" "$T/cut/.done/report" "$T/cut/sweep.json"
head -n 3 "$T/slow/sweep.journal" >"$T/cut/sweep.journal" # the header and the first round
qualify cut "$T/sys-ok" "$T/slow.json"
expect $? 1 "a journal cut after its first round: resumed"
[ "$(doc cut)" = "$full gpu005:node_slow" ] && grep -q -- '--resume' "$T/cut.out" &&
	ok "cut: resumed to the whole matrix, gpu005 named" || bad "cut: $(doc cut)"

# 7. the fleet's GPU table (plots/lpgpufleet.py) on lp-gpu documents of the H200 run copied to
# a fleet (tests/sweep/gpufleet-docs.py)
gpudocs() { $PY tests/sweep/gpufleet-docs.py "$@"; } # DIR HOSTS GPUS [FAULT...]
fleet() { # DIR: the table's verdicts, sorted, one a line; its exit code in $T/frc
	$PY plots/lpgpufleet.py "$1" --csv "$1/f.csv" >"$1/f.txt" 2>&1
	echo $? >"$T/frc"
	grep '^verdict:' "$1/f.txt" | sort
}
gpudocs "$T/g-ok" 16 8
[ -z "$(fleet "$T/g-ok")" ] && [ "$(cat "$T/frc")" = 0 ] &&
	[ "$(grep -c '^lat_ld 8 B \[us\]: fleet median .* over 128 GPUs of 16 hosts' "$T/g-ok/f.txt")" = 1 ] &&
	[ "$(wc -l <"$T/g-ok/f.csv")" = $((1 + 128 * 19)) ] &&
	ok "GPU fleet: 16 hosts x 8 GPUs within 1 %: nothing named, exit 0, 19 paths, every GPU in the CSV" ||
	bad "GPU fleet, healthy: exit $(cat "$T/frc"), $(grep -m3 'verdict\|lat_ld' "$T/g-ok/f.txt")"
gpudocs "$T/g-bad" 16 8 gpu003:h2d_ce:0.7 gpu009:d2h_sm:0.8:GPU5 gpu012:lat_ld:1.3:GPU2 \
	gpu014:local_ce:0.95:GPU1
want="verdict: gpu_node_slow gpu003: h2d_ce 1 GiB: 8 of its GPUs below 0.9x the fleet's 55.04 GB/s
verdict: gpu_node_slow gpu003: h2d_ce 256 MiB: 8 of its GPUs below 0.9x the fleet's 55.24 GB/s
verdict: gpu_slow gpu009 GPU5: d2h_sm 1 GiB 42.17 GB/s, 0.80x the fleet's 52.45
verdict: gpu_slow gpu009 GPU5: d2h_sm 256 MiB 42.10 GB/s, 0.80x the fleet's 52.36
verdict: gpu_slow gpu012 GPU2: lat_ld 8 B 1.030 us, 0.78x the fleet's 0.8000"
got=$(fleet "$T/g-bad")
[ "$got" = "$want" ] && [ "$(cat "$T/frc")" = 1 ] &&
	ok "GPU fleet: a host with every GPU slow on a path is one node verdict, a slow GPU (and a slow latency) its own, 5 % is not named; exit 1" ||
	bad "GPU fleet, faults: exit $(cat "$T/frc"), got:
$got"
# against the profile: gpu001 at 0.93x is not slow against the fleet but below the limit each
# host's document was judged with (lp-judge, as lp-gpu --expect writes it): named with the limit
gpudocs "$T/g-prof" 4 2 gpu001:h2d_ce:0.93
for f in "$T"/g-prof/gpu/*.json; do
	"$B/lp-judge" "$f" --min-gbps h2d_ce=52GB/s --json "$f.j" >/dev/null; mv "$f.j" "$f"
done
want="verdict: gpu_profile gpu001 GPU0: h2d_ce 1 GiB 51.19 GB/s, beyond the profile's limit 52.00
verdict: gpu_profile gpu001 GPU0: h2d_ce 256 MiB 51.37 GB/s, beyond the profile's limit 52.00
verdict: gpu_profile gpu001 GPU1: h2d_ce 1 GiB 50.68 GB/s, beyond the profile's limit 52.00
verdict: gpu_profile gpu001 GPU1: h2d_ce 256 MiB 50.86 GB/s, beyond the profile's limit 52.00"
got=$(fleet "$T/g-prof")
[ "$got" = "$want" ] && [ "$(cat "$T/frc")" = 1 ] &&
	grep -q '^h2d_ce 1 GiB \[GB/s\]: .*; profile at least 52.00 (--min-gbps h2d_ce=52GB/s)' "$T/g-prof/f.txt" &&
	[ "$(grep -c ',1$' "$T/g-prof/f.csv")" = 4 ] &&
	ok "GPU fleet: 0.93x is not slow against the fleet but below the profile's 52 GB/s: each GPU named with the limit and its source (exit 1)" ||
	bad "GPU fleet against the profile: exit $(cat "$T/frc"), got:
$got"
gpudocs "$T/g-few" 2 1 gpu001:h2d_ce:0.5
[ -z "$(fleet "$T/g-few")" ] && grep -q 'too few to compare (fewer than 3)' "$T/g-few/f.txt" &&
	ok "GPU fleet: 2 GPUs on a path are too few to compare, said, nothing named" ||
	bad "GPU fleet of 2: $(grep -m2 'verdict\|few' "$T/g-few/f.txt")"
cp -r "$T/g-ok" "$T/g-torn"
head -c 300 "$T/g-ok/gpu/gpu004.json" >"$T/g-torn/gpu/gpu004.json"
[ -z "$(fleet "$T/g-torn")" ] && [ "$(cat "$T/frc")" = 1 ] && grep -q '^unreadable: .*gpu004.json: not an lp-gpu document' "$T/g-torn/f.txt" &&
	grep -q 'over 120 GPUs of 15 hosts' "$T/g-torn/f.txt" &&
	ok "GPU fleet: a torn document is named (exit 1), the other 15 hosts still compared" ||
	bad "GPU fleet, torn: exit $(cat "$T/frc"), $(head -2 "$T/g-torn/f.txt")"
# a host whose lp-gpu ran (gpu.txt) but whose document is not in gpu/ (the run directory not on
# a filesystem every node shares): named, exit 1
cp -r "$T/g-ok" "$T/g-lost"
printf 'gpu000 lp-gpu exit 0\ngpu016 lp-gpu exit 0\ngpu017 lp-gpu exit 77\n' >"$T/g-lost/gpu.txt"
[ -z "$(fleet "$T/g-lost")" ] && [ "$(cat "$T/frc")" = 1 ] &&
	grep -q "^unreadable: gpu016: lp-gpu's exit 0 but no .*gpu016.json (is the run directory on a filesystem every node shares?)" "$T/g-lost/f.txt" &&
	grep -q "^also: 1 host without a GPU (lp-gpu's exit 77)" "$T/g-lost/f.txt" && ! grep -q 'gpu000:' "$T/g-lost/f.txt" &&
	ok "GPU fleet: a host that ran lp-gpu but left no document is named (exit 1), one without a GPU said" ||
	bad "GPU fleet, a lost document: exit $(cat "$T/frc"), $(head -3 "$T/g-lost/f.txt")"
$PY plots/lpgpufleet.py "$T/nowhere" >"$T/f-usage" 2>&1
[ $? = 2 ] && [ "$(wc -l <"$T/f-usage")" = 1 ] && ok "GPU fleet: no such directory: one line, exit 2" ||
	bad "GPU fleet, no directory: $(cat "$T/f-usage")"
# through lp-qualify: lp-gpu stands in on this GPU-less host as a script writing rank r's document
# (gpu00r) from the set above with gpu003's h2d_ce slow; the gate is 1 through the GPU step alone
mkdir -p "$T/fake"
gpudocs "$T/g-q" 4 2 gpu003:h2d_ce:0.7
cat >"$T/fake/lp-gpu" <<EOF2
#!/bin/bash
# lp-gpu --expect auto --json DIR/gpu/HOST.json: rank r's recorded document instead
r=\$OMPI_COMM_WORLD_RANK
cp "$T/g-q/gpu/gpu00\$r.json" "\$(dirname "\$4")/gpu00\$r.json"
EOF2
chmod +x "$T/fake/lp-gpu"
PATH=$T/fake:$PATH LP_SYSFS_ROOT=$T/sys-ok scripts/lp-qualify --out "$T/gq" \
	--launcher "${launcher% -np *} -np 4" -- --model "$T/healthy.json" --isolation none \
	</dev/null >"$T/gq.out" 2>&1
rc=$?
[ $rc = 1 ] && grep -q '^lp-qualify: gpu: exit 1 after' "$T/gq/qualify.log" &&
	grep -q '^lp-qualify: sweep: exit 0 after' "$T/gq/qualify.log" &&
	grep -q '^verdict: gpu_node_slow gpu003: h2d_ce 1 GiB' "$T/gq/gpu-fleet.txt" &&
	grep -q '^verdict: gpu_node_slow gpu003: h2d_ce 1 GiB' "$T/gq/gpu.txt" && [ -s "$T/gq/gpu-fleet.csv" ] &&
	ok "lp-qualify: a slow GPU host in the fleet's table fails the GPU step and the gate (exit 1), the sweep healthy" ||
	bad "lp-qualify with a slow GPU host: exit $rc; $(grep ': gpu:' "$T/gq/qualify.log")"
if [ $has_report = 1 ]; then
	[ "$(xpath "$T/gq/report.html" '//*[@id="verdict"]')" = FAIL ] &&
		[ "$(xpath "$T/gq/report.html" '//table[@id="gpu-fleet-named"]//tr/@data-host' | sort -u)" = gpu003 ] &&
		ok "lp-qualify's report: FAIL, gpu003 named in its GPU table (the run directory's gpu/)" ||
		bad "lp-qualify's report of a slow GPU host: $(xpath "$T/gq/report.html" '//*[@id="why"]/li' | head -2)"
	xpath "$T/healthy/report.html" '//*[@id="gpu-fleet-none"]' | grep -q "^no GPU fleet data" &&
		ok "healthy run without GPUs: the report says there is no GPU fleet data" ||
		bad "healthy run's report: no word on GPU data"
fi

# 8. usage: one line, exit 2
scripts/lp-qualify --launcher "$launcher" >"$T/u1" 2>&1
expect $? 2 "no --out: exit 2 ($(head -1 "$T/u1"))"
env -u SLURM_JOB_ID scripts/lp-qualify --out "$T/u" >"$T/u2" 2>&1
expect $? 2 "no launcher, hostfile or Slurm: exit 2 ($(head -1 "$T/u2"))"
scripts/lp-qualify --out "$T/u" --bogus >"$T/u3" 2>&1
expect $? 2 "an unknown option: exit 2 ($(head -1 "$T/u3"))"
[ "$(cat "$T/u1" "$T/u2" "$T/u3" | wc -l)" = 3 ] && ok "each usage error is one line" || bad "usage errors: $(cat "$T/u1" "$T/u2" "$T/u3")"

[ $fails = 0 ] && echo "PASS: lp-qualify end to end on the model transport, $N ranks" && exit 0
echo "$fails check(s) failed"
exit 1
