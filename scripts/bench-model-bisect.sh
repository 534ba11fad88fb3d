#!/bin/bash
# The collective search through the real engine (issue 28's target: "the model transport covers
# the bisection at 64+ nodes: the guilty element found in >= 95 % of runs with a fault at 0.8x").
# Each run is `mpirun -np N lp-sweep --model M --collective allreduce --coll-bisect blind`: the
# sweep through the model transport, the collective phase drawn from the model, then the bisection
# alone (no targeted retests of the edges the matrix shows slow) -- its ring probes drawn from the
# model's links, its pair probes the engine's retests over MPI. Per seed the fault is placed at
# random: a node (both directions), a node's egress or ingress, or one ordered pair of the ring in
# rank order; healthy models name nothing. Prints one line per run and the table (found / wrong /
# inconclusive / error, probes, the search's wall time), with the date, the machine and the
# command; the raw lines go to OUT/runs.tsv (appended: a run in parts, -S, tables every line
# there) and the models to OUT/models/.
#
# usage: scripts/bench-model-bisect.sh [-n RANKS] [-s SEEDS] [-S FIRST] [--cv LIST] [-f LIST] [-F FACTOR] [-o OUT]
#   -n 64   ranks (oversubscribed here: one core per eight ranks or worse)
#   -s 40   seeds per setting (healthy: the same count), from seed -S 1 (a run in parts)
#   --cv 0.03       per-cell noise (the model's cv), comma list
#   -f none,node,egress,ingress,link   faults
#   -F 0.8  the fault's factor
set -eu
cd "$(dirname "$0")/.."
B=${LP_BUILD:-build}
n=64 seeds=40 first=1 cvs=0.03 faults=none,node,egress,ingress,link factor=0.8 out=
while [ $# -gt 0 ]; do
	case $1 in
	-n) n=$2; shift 2 ;;
	-s) seeds=$2; shift 2 ;;
	-S) first=$2; shift 2 ;;
	--cv) cvs=$2; shift 2 ;;
	-f) faults=$2; shift 2 ;;
	-F) factor=$2; shift 2 ;;
	-o) out=$2; shift 2 ;;
	*) echo "usage: $0 [-n RANKS] [-s SEEDS] [-S FIRST] [--cv LIST] [-f LIST] [-F FACTOR] [-o OUT]" >&2; exit 2 ;;
	esac
done
[ -x "$B/lp-sweep" ] || { echo "bench-model-bisect: $B/lp-sweep not built (make)" >&2; exit 77; }
command -v mpirun >/dev/null || { echo "bench-model-bisect: Open MPI (mpirun) not installed" >&2; exit 77; }
out=${out:-$(mktemp -d /tmp/lp-bench-model-bisect-XXXXXX)}
mkdir -p "$out/models"
export ASAN_OPTIONS=detect_leaks=0
echo "# bench-model-bisect $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -n): $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1 /proc/loadavg)"
echo "# \$ scripts/bench-model-bisect.sh -n $n -s $seeds -S $first --cv $cvs -f $faults -F $factor"
echo "# each run: mpirun -np $n lp-sweep --model M --isolation none --tests write_bw --retest 0 --collective allreduce --coll-sizes 1M --coll-bisect blind"
B=$B N=$n SEEDS=$seeds FIRST=$first CVS=$cvs FAULTS=$faults FACTOR=$factor OUT=$out exec python3 - <<'EOF'
import json, os, random, statistics, subprocess, sys, time

B, N, OUT = os.environ["B"], int(os.environ["N"]), os.environ["OUT"]
SEEDS, FIRST, FACTOR = int(os.environ["SEEDS"]), int(os.environ["FIRST"]), float(os.environ["FACTOR"])
CVS = [float(x) for x in os.environ["CVS"].split(",")]
FAULTS = os.environ["FAULTS"].split(",")
MPI = ["mpirun", "--oversubscribe", "--bind-to", "none", "--mca", "btl", "self,vader,tcp", "--mca", "pml", "ob1",
       "--mca", "mpi_yield_when_idle", "1"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
name = lambda i: f"gpu{i:03d}"


def plant(kind, rng):
    """The fault and what the search must name: (model fault, kind, a, b)."""
    i = rng.randrange(N)
    if kind == "node":
        return {"node": name(i), "factor": FACTOR}, "node", name(i), ""
    if kind in ("egress", "ingress"):
        role = "client" if kind == "egress" else "server"
        return {"node": name(i), "role": role, "factor": FACTOR}, "node", name(i), ""
    if kind == "link":  # an ordered pair of the ring in rank order
        j = (i + 1) % N
        return {"link": [name(i), name(j)], "factor": FACTOR}, "link", name(i), name(j)
    return None, "none", "", ""


HEAD = "kind\tcv\tseed\ttruth\tverdict\toutcome\tprobes\tsearch_s\trun_s\texit"
TSV = os.path.join(OUT, "runs.tsv")
t_all, nrun = time.time(), 0
print(HEAD, flush=True)
new = not os.path.exists(TSV)
with open(TSV, "a", buffering=1) as tsv:
    if new:
        tsv.write(HEAD + "\n")
    for cv in CVS:
        for kind in FAULTS:
            for seed in range(FIRST, FIRST + SEEDS):
                rng = random.Random(f"{kind}/{cv}/{seed}")
                fault, want, wa, wb = plant(kind, rng)
                model = {"schema": "linkperf.model/1", "seed": seed, "names": "gpu%03d",
                         "base": {"bw_gbps": 390}, "noise": {"cv": cv}, "time": {"test_ms": 0},
                         "faults": [fault] if fault else []}
                mpath = os.path.join(OUT, "models", f"{kind}-{cv}-{seed}.json")
                jpath = os.path.join(OUT, "run.json")
                json.dump(model, open(mpath, "w"))
                for old in (jpath, os.path.join(OUT, "run.journal")):  # a journal is never reused
                    if os.path.exists(old):
                        os.unlink(old)
                t0 = time.time()
                p = subprocess.run(["timeout", "-k", "5", "600"] + MPI + ["-np", str(N), B + "/lp-sweep", "--model", mpath,
                                   "--isolation", "none", "--tests", "write_bw", "--retest", "0", "--collective",
                                   "allreduce", "--coll-sizes", "1M", "--coll-bisect", "blind", "--quiet", "--json", jpath],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                run_s = time.time() - t0
                try:
                    if p.returncode not in (0, 1, 3):  # 0 healthy, 1 a fault, 3 inconclusive
                        raise ValueError(f"exit {p.returncode}")
                    v = json.load(open(jpath))["collectives"]["verdicts"][0]
                    got = (v["kind"], v["a_name"], v["b_name"])
                    probes, search = v["probes"], v["wall_s"]
                except (OSError, ValueError, KeyError, IndexError):
                    got, probes, search = ("error", " ".join(p.stderr.split())[-80:], ""), 0, 0
                if got[0] in ("inconclusive", "error"):
                    outcome = got[0]  # a run that did not finish is no outcome of the search
                elif got[0] == "none":
                    outcome = "missed" if want != "none" else "healthy"
                else:
                    outcome = "found" if got == (want, wa, wb) else "wrong"
                line = [kind, cv, seed, f"{want} {wa}{'->' + wb if wb else ''}".strip(),
                        f"{got[0]} {got[1]}{'->' + got[2] if got[2] else ''}".strip(), outcome, probes,
                        round(search, 2), round(run_s, 1), p.returncode]
                print("\t".join(map(str, line)), flush=True)
                tsv.write("\t".join(map(str, line)) + "\n")
                nrun += 1

rows = []
for ln in open(TSV).read().splitlines()[1:]:
    f = ln.split("\t")
    rows.append(dict(kind=f[0], cv=float(f[1]), outcome=f[5], probes=int(f[6]), search=float(f[7] or 0)))
CVS = sorted({r["cv"] for r in rows})
FAULTS = list(dict.fromkeys(r["kind"] for r in rows))
print(f"\n# {nrun} runs of {N} ranks in {time.time() - t_all:.0f} s; the table holds all {len(rows)} of {TSV}")
print("| fault | cv | runs | found | wrong | inconclusive | missed | error | probes (median, max) | search (median) |")
print("|---|---|---:|---:|---:|---:|---:|---:|---|---:|")
for cv in CVS:
    for kind in FAULTS:
        r = [x for x in rows if x["kind"] == kind and x["cv"] == cv]
        if not r:
            continue
        c = lambda o: sum(x["outcome"] == o for x in r)
        pr = [x["probes"] for x in r]
        found = c("healthy") if kind == "none" else c("found")
        print(f"| {'healthy' if kind == 'none' else kind + f' {FACTOR}x'} | {cv * 100:g} % | {len(r)} | "
              f"{100 * found / len(r):.1f} % | {c('wrong')} | {c('inconclusive')} | {c('missed')} | {c('error')} | "
              f"{statistics.median(pr):g}, {max(pr)} | {statistics.median(x['search'] for x in r):.2f} s |")
EOF
