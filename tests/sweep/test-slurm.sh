#!/bin/bash
# tier: fabric
# lp-sweep under a real Slurm 22.05 (Debian's slurmctld, slurmd, munge) on the 4-guest fabric
# (scripts/lp-fabric --slurm: slurmctld on lpnode0, slurmd on every guest, Soft-RoCE rxe0 in
# each). One boot, six scenarios (tests/sweep/slurm-guest.sh), each checked here:
#   srun      srun --mpi=pmix: 4 ranks, every cell measured, nothing named
#   healthy   sbatch scripts/lp-sweep.sbatch: lp-sweep-JOBID.out and lp-sweep-JOBID/ (JSON,
#             CSV, report, plots), the job's exit code is lp-sweep's, nothing named
#   salloc    salloc + mpirun: as srun
#   throttle  tbf 20mbit on lpnode2: lpnode2 named as a write_bw client, or an honest
#             inconclusive/ambiguous with it among the candidates; never a wrong name
#   scancel   cancelled while running: the JSON holds the cells so far, interrupted, exit 130
#   nodedown  slurmd stopped on lpnode3 before the job: Slurm runs it on 3 nodes, lpnode3's cells
#             fail with Slurm's reason, the others are measured, lpnode3 failed, job exit 1
# Where no fault was injected (srun, healthy, salloc, nodedown's other nodes) a slow verdict that
# the loaded 2-core host can cause (latency only; any slow verdict among nodedown's three
# measured guests) is printed as a note, not failed; LP_SLURM_STRICT=1 fails it too.
# LP_SLURM_RESULTS=DIR: check a kept run (LP_KEEP=1 keeps one) instead of booting the fabric.
# Exit 0 pass, 77 skipped (no qemu, MPI or Slurm packages), else fail.
set -u
cd "$(dirname "$0")/../.."
. tests/host-lib.sh
case $B in /*) ;; *) B=$PWD/$B ;; esac
host_needs qemu mpi slurm lp-sweep
if host_out LP_SLURM_RESULTS lp-slurm-test; then
	printf '%s\n' --schedule isolated --tests write_lat,write_bw --bw-sizes 64K --bw-iters 200 \
		--lat-iters 300 --pair-timeout 120 --retest 8 >"$out/sweep-args"
	# no wall limit: the fabric is hung when nothing is printed or written for 600 s (the
	# guest side watches each job and step the same way, tests/sweep/slurm-guest.sh)
	scripts/lp-fabric -n 4 --slurm --lead --rw "$out" --timeout 0 --idle "${LP_FABRIC_IDLE:-600}" \
		"LP_BUILD='$B' LP_ROOT='$PWD' OUT='$out' bash tests/sweep/slurm-guest.sh"
	host_ran $? "lp-fabric --slurm"
fi

python3 - "$out" <<'PY'
import glob, json, os, subprocess, sys
sys.path.insert(0, "tests/sweep")
from sweepdoc import legacy_view
from lpcheck import check, done

out = sys.argv[1]
CONFIDENT = ("node_slow", "node_failed", "link_slow", "link_failed")


def text(name):
    p = os.path.join(out, name)
    return open(p).read().strip() if os.path.exists(p) else ""


def job_dir(name):
    """An sbatch scenario: its job id, results dir lp-sweep-ID/ and log lp-sweep-ID.out."""
    jid = text(name + ".job")
    check(jid.isdigit(), f"{name}: job id {jid!r}")
    d = os.path.join(out, "lp-sweep-" + jid)
    check(os.path.isfile(d + ".out"), f"{name}: job output lp-sweep-{jid}.out")
    return d


def load(path):
    try:
        with open(path) as f:
            return legacy_view(json.load(f))  # linkperf.sweep/2, with the /1 members read here
    except (OSError, ValueError) as e:
        check(False, f"{path}: {e}")
        return None


STRICT = os.environ.get("LP_SLURM_STRICT") == "1"


def healthy(name, d, rc):
    """every ordered pair of 4 nodes measured, nothing named, the exit code is lp-sweep's. On a
    loaded 2-core host one TCG guest's ping-pongs can be slow for a whole run (its vCPU starved:
    a real slowness of that guest, tests/sweep/test-fabric.sh notes it too); a latency-only
    verdict is then shown as a note. LP_SLURM_STRICT=1 fails it."""
    if d is None:
        return
    n = len(d["nodes"])
    check([x["name"] for x in d["nodes"]] == [f"lpnode{i}" for i in range(4)],
          f"{name}: nodes from the allocation: {[x['name'] for x in d['nodes']]}")
    sw = [c for c in d["cells"] if c["phase"] == "sweep"]
    check(len(sw) == n * (n - 1) * len(d["metrics"]) and all(c["status"] == 0 for c in sw),
          f"{name}: all {len(sw)} cells measured")
    named = [v for v in d["verdicts"] if v["kind"] in CONFIDENT]
    noted = [v for v in named if not STRICT and all(m.startswith(("write_lat", "send_lat", "read_lat"))
                                                    for m in v["metrics"].split(","))]
    for v in noted:
        print(f"note {name}: latency only, host noise: {v['kind']} {v.get('name')}: {v['reason']}")
    check([v for v in named if v not in noted] == [],
          f"{name}: nothing named ({[v['reason'] for v in named if v not in noted]})")
    check(rc == d["exit_code"] and rc in ((0, 3) if not noted else (1,)),
          f"{name}: exit {rc} = lp-sweep's {d['exit_code']}")


for name in ("srun", "salloc"):
    healthy(name, load(os.path.join(out, name + ".json")), int(text(name + ".rc") or -1))

jd = job_dir("healthy")
d = load(jd + "/sweep.json")
healthy("healthy", d, int(text("healthy.rc") or -1))
rep = text(jd[len(out) + 1:] + "/report.txt")
check("lp-sweep: 4 nodes" in rep, "healthy: report.txt holds the summary")
check(len(glob.glob(jd + "/sweep-*.csv")) >= 3, "healthy: CSV matrices")
# plots/lp-plot runs on /usr/bin/python3 (the guests' too)
if subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"], stderr=subprocess.DEVNULL).returncode == 0:
    pngs = glob.glob(jd + "/sweep-*.png")
    check(len(pngs) >= 4 and all(os.path.getsize(p) > 10000 for p in pngs), f"healthy: {len(pngs)} plots")
else:
    print("SKIP healthy: plots (python3-matplotlib not installed)")

# throttle: never a wrong name; lpnode2 named as a write_bw client, or an honest doubt about it
jd = job_dir("throttle")
d = load(jd + "/sweep.json")
if d:
    rc = int(text("throttle.rc") or -1)
    # exit 3 when the only verdicts are doubts (inconclusive, or a link that stood out unconfirmed)
    doubts = ("inconclusive", "unconfirmed")
    want = 1 if any(v["kind"] not in doubts for v in d["verdicts"]) else 3 if d["verdicts"] else 0
    check(rc == d["exit_code"] == want, f"throttle: job exit {rc} = lp-sweep's, from its verdicts ({want})")
    named = [v for v in d["verdicts"] if v["kind"] in CONFIDENT]
    right = [v for v in named if v["kind"] == "node_slow" and v["name"] == "lpnode2" and v.get("as_client")
             and "write_bw" in v["metrics"]]
    # a latency-only link verdict is the TCG scheduling noise tests/sweep/test-fabric.sh notes
    wrong = [v for v in named if v not in right and not (v["kind"].startswith("link") and "write_bw" not in v["metrics"])]
    doubt = [v for v in d["verdicts"] if "write_bw" in v["metrics"] and (v["kind"] == "inconclusive" or any(
        c.get("name") == "lpnode2" for c in v.get("candidates", [])))]
    check(wrong == [], f"throttle: no wrong name ({[v['reason'] for v in wrong]})")
    check(bool(right or doubt), "throttle: " + ("exact: lpnode2 named" if right else "honest: " +
          ", ".join(v["kind"] for v in doubt) if doubt else "missed: " +
          "; ".join(v["reason"] for v in d["verdicts"])))

# scancel: partial results written, interrupted, exit 130
jd = job_dir("scancel")
check(text("scancel.state") == "CANCELLED", f"scancel: job state {text('scancel.state')}")
d = load(jd + "/sweep.json")
if d:
    check(d["run"]["interrupted"] is True and d["exit_code"] == 130 and d["cells"],
          f"scancel: JSON written, interrupted, exit_code {d['exit_code']}, {len(d['cells'])} cells")
    check("lp-sweep exit 130" in open(jd + ".out").read(), "scancel: the batch script saw lp-sweep exit 130")

# nodedown: lpnode3's slurmd stopped; the sweep ran on the other three
jd = job_dir("nodedown")
d = load(jd + "/sweep.json")
if d:
    rc = int(text("nodedown.rc") or -1)
    check(rc == 1 and d["exit_code"] == 1, f"nodedown: job exit {rc}, lp-sweep's {d['exit_code']}")
    names = [x["name"] for x in d["nodes"]]
    check(sorted(names) == [f"lpnode{i}" for i in range(4)], f"nodedown: 4 nodes recorded ({names})")
    k = names.index("lpnode3") if "lpnode3" in names else -1
    nd = d["nodes"][k] if k >= 0 else {}
    check(nd.get("rank") == -1 and nd.get("status", 0) != 0 and "not in Slurm job" in nd.get("error", "")
          and "down" in nd.get("error", ""), f"nodedown: lpnode3 absent with Slurm's reason: {nd.get('error')!r}")
    sw = [c for c in d["cells"] if c["phase"] == "sweep"]
    bad = [c for c in sw if k in (c["client"], c["server"])]
    good = [c for c in sw if k not in (c["client"], c["server"])]
    m = len(d["metrics"])
    check(len(bad) == 6 * m and all(c["status"] != 0 and "lpnode3" in c["error"] for c in bad),
          f"nodedown: lpnode3's {len(bad)} cells failed with the reason")
    check(len(good) == 6 * m and all(c["status"] == 0 for c in good), f"nodedown: the other {len(good)} cells measured")
    named = [(v["kind"], v.get("name")) for v in d["verdicts"] if v["kind"] in CONFIDENT]
    check(("node_failed", "lpnode3") in named, f"nodedown: lpnode3 failed ({named})")
    # three measured TCG guests on a loaded host are a thin base for slow verdicts (the
    # diagnosis itself is checked by the throttle scenario and tests/sweep/test-fabric.sh);
    # a failure named elsewhere is always wrong
    others = [v for v in d["verdicts"] if v["kind"] in CONFIDENT and v.get("name") != "lpnode3"]
    for v in others if not STRICT else []:
        if v["kind"].endswith("_slow"):
            print(f"note nodedown: 3 measured nodes, host noise: {v['kind']} {v.get('name')}: {v['reason']}")
    wrong = [v["reason"] for v in others if STRICT or not v["kind"].endswith("_slow")]
    check(wrong == [], f"nodedown: nothing else failed ({wrong})")
done()
PY
[ $? = 0 ] || exit 1
echo "PASS in $(($(date +%s) - t0)) s"
