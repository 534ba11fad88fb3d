#!/bin/bash
# tier: fabric
# lp-sweep under a real Slurm 22.05 (Debian's slurmctld, slurmd, munge) on the 4-guest fabric
# (scripts/lp-fabric --slurm: slurmctld on lpnode0, slurmd on every guest, Soft-RoCE rxe0 in
# each). One boot, seven jobs (tests/sweep/slurm-guest.sh), each checked here:
#   srun      srun --mpi=pmix: 4 ranks, every cell measured, nothing named
#   healthy   sbatch scripts/lp-sweep.sbatch: lp-sweep-JOBID.out and lp-sweep-JOBID/ (JSON,
#             CSV, report, plots), the job's exit code is lp-sweep's, nothing named
#   salloc    salloc + mpirun: as srun
#   qualify   docs/QUALIFY.md's recipe (LP_QUALIFY=1 sbatch: lp-qualify) with tbf 20mbit on
#             lpnode2, into qual/:
#     pre-flight  check.json: every host's report, each with its inventory lines (rxe0 port 1)
#     sweep       sweep.json: node records with the inventory (device, node GUID, GID, why no
#                 VPD), DSCP and its source, node gates recorded; lpnode2 named as a write_bw
#                 client, or an honest inconclusive/ambiguous/unconfirmed with it among the
#                 candidates, never a wrong name (a failed pair test of lpnode2, its retries
#                 spent behind the bucket, is the fault's own failure: noted, as test-fabric
#                 does); the sweep step's exit is lp-sweep's, from its verdicts; the job's exit
#                 code is the gate (1 named, 3 doubt only)
#     report      report.html (rendered here when the guest had no jinja2/matplotlib) in
#                 headless chromium names lpnode2
#   again     the same submission once more: every completed step is skipped (resumable)
#   scancel   cancelled while running: the JSON holds the cells so far, interrupted, exit 130
#   nodedown  slurmd stopped on lpnode3 before the job: Slurm runs it on 3 nodes, lpnode3's cells
#             fail with Slurm's reason, the others are measured, lpnode3 failed, job exit 1
# Where no fault was injected (srun, healthy, salloc, nodedown's other nodes) a slow verdict that
# the loaded 2-core host can cause (latency only; any slow verdict among nodedown's three
# measured guests) is printed as a note, not failed; LP_SLURM_STRICT=1 fails it too.
# Long (a fabric boot and seven jobs: 15-30 min on a loaded host): run it under the guest lock,
#   flock -w 1800 /tmp/lp-guest.lock nice -n 19 bash tests/sweep/test-slurm.sh
# LP_SLURM_RESULTS=DIR: check a kept run (LP_KEEP=1 keeps one) instead of booting the fabric.
# Exit 0 pass, 77 skipped (no qemu, MPI or Slurm packages), else fail.
set -u
cd "$(dirname "$0")/../.."
. tests/host-lib.sh
case $B in /*) ;; *) B=$PWD/$B ;; esac
host_needs qemu mpi slurm lp-sweep
if host_out LP_SLURM_RESULTS lp-slurm-test; then
	printf '%s\n' --schedule isolated --tests write_lat,write_bw --bw-sizes 64K --bw-iters 200 \
		--lat-iters 300 --pair-timeout 120 --retest 8 --qp-timeout 18 >"$out/sweep-args"
	# (--qp-timeout 18, 1.07 s a try: at host load 40 a starved guest ran out of rxe's 7 retries at
	# the default 67 ms on the healthy job, "remote invalid request", a failed cell, not a slow one)
	# no wall limit: the fabric is hung when nothing is printed or written for 600 s (the
	# guest side watches each job and step the same way, tests/sweep/slurm-guest.sh)
	scripts/lp-fabric -n 4 --slurm --lead --rw "$out" --timeout 0 --idle "${LP_FABRIC_IDLE:-600}" \
		"LP_BUILD='$B' LP_ROOT='$PWD' OUT='$out' bash tests/sweep/slurm-guest.sh"
	host_ran $? "lp-fabric --slurm"
fi
# the qualification's report: rendered here when the guest could not, then in headless chromium
q=$out/qual
if [ ! -s "$q/report.html" ] && [ -s "$q/sweep.json" ] && python3 -c 'import jinja2, matplotlib' 2>/dev/null; then
	plots/lp-report "$q/sweep.json" -o "$out/report-host.html" >/dev/null 2>&1
fi
html=$q/report.html
[ -s "$html" ] || html=$out/report-host.html
if [ -s "$html" ] && command -v chromium >/dev/null; then
	timeout 120 chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=5000 \
		--dump-dom "file://$html" >"$out/dom.html" 2>/dev/null
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


def load_raw(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        check(False, f"{path}: {e}")
        return None


def load(path):
    d = load_raw(path)
    return d and legacy_view(d)  # linkperf.sweep/2, with the /1 members read here


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


def names_of(d, verdicts):
    """The names of the nodes these verdicts name (a, and b for a link)."""
    nm = [x["name"] for x in d["nodes"]]
    return {nm[i] for v in verdicts for i in (v["a"], v["b"]) if 0 <= i < len(nm)}


def shaped_failure(v):
    """A pair test of the throttled lpnode2 that failed (its RDMA retries spent behind the 20mbit
    bucket: 'remote invalid request', completer_retry_err; seen under load): the fault's own
    failure reported, not another name, as tests/sweep/test-fabric.sh notes it."""
    return v["kind"] == "link_failed" and "lpnode2" in v.get("names", [])


def qualify_sweep(d):
    """lp-qualify's sweep document: the records the recipe promises, lpnode2 and nobody else."""
    nodes = d["nodes"]
    invs = [(x.get("dev") or {}).get("inventory") or {} for x in nodes]  # lp-rdma's port record's
    check(len(nodes) == 4 and all(i.get("device") == "rxe0" and i.get("node_guid") and i.get("gid") for i in invs),
          "qualify: sweep: every node record holds its port's inventory (device, node GUID, GID)")
    check(all(i.get("pci", {}).get("vpd", {}).get("note") for i in invs),
          "qualify: sweep: what the inventory cannot know says why (Soft-RoCE: no PCI function, no VPD)")
    check(all(x.get("dscp") == 0 and x.get("dscp_source") == "derived: tclass 0 >> 2" for x in nodes),
          "qualify: sweep: every RoCE node records its DSCP and its source (Soft-RoCE reports none: derived from class 0)")
    gates = d["run"].get("node_gates")
    check(isinstance(gates, list) and len(gates) == 4 and all(g.get("reason") for g in gates),
          "qualify: sweep: a node gate per node recorded, each with its reason (run.node_gates)")
    for v in filter(shaped_failure, d["verdicts"]):
        print(f"note qualify: the throttle's own failure: {v['reason'][:160]}")
    named = names_of(d, [v for v in d["verdicts"] if v["kind"] in CONFIDENT and not shaped_failure(v)])
    doubt = names_of(d, [v for v in d["verdicts"] if v["kind"] == "unconfirmed"])
    honest = any(v["kind"] in ("inconclusive", "ambiguous", "pair_slow") for v in d["verdicts"])
    check(named <= {"lpnode2"} and doubt <= {"lpnode2"} and ("lpnode2" in named | doubt or honest),
          f"qualify: sweep: lpnode2 named or unconfirmed (or an honest inconclusive), nobody else: "
          f"{sorted(named)}, unconfirmed {sorted(doubt)}")


def throttle(d, rc):
    """tbf on lpnode2: never a wrong name; lpnode2 named as a write_bw client, or an honest doubt
    about it; rc (the sweep's exit) is lp-sweep's, from its verdicts."""
    # exit 3 when the only verdicts are doubts (inconclusive, or a link that stood out unconfirmed)
    doubts = ("inconclusive", "unconfirmed")
    want = 1 if any(v["kind"] not in doubts for v in d["verdicts"]) else 3 if d["verdicts"] else 0
    check(rc == str(d["exit_code"]) == str(want), f"throttle: sweep exit {rc} = lp-sweep's, from its verdicts ({want})")
    named = [v for v in d["verdicts"] if v["kind"] in CONFIDENT]
    right = [v for v in named if v["kind"] == "node_slow" and v["name"] == "lpnode2" and v.get("as_client")
             and "write_bw" in v["metrics"]]
    # a latency-only link verdict is the TCG scheduling noise tests/sweep/test-fabric.sh notes
    wrong = [v for v in named if v not in right and not shaped_failure(v) and
             not (v["kind"].startswith("link") and "write_bw" not in v["metrics"])]
    doubt = [v for v in d["verdicts"] if "write_bw" in v["metrics"] and (v["kind"] == "inconclusive" or any(
        c.get("name") == "lpnode2" for c in v.get("candidates", [])))]
    check(wrong == [], f"throttle: no wrong name ({[v['reason'] for v in wrong]})")
    check(bool(right or doubt), "throttle: " + ("exact: lpnode2 named" if right else "honest: " +
          ", ".join(v["kind"] for v in doubt) if doubt else "missed: " +
          "; ".join(v["reason"] for v in d["verdicts"])))


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

# qualify: lp-qualify's steps in qual/ with lpnode2 throttled
q = os.path.join(out, "qual")
job_dir("qualify")
for step in ("check", "sweep"):
    check(os.path.exists(os.path.join(q, ".done", step)), f"qualify: step {step} completed (marker)")
chk = load_raw(os.path.join(q, "check.json")) or {}
check(len(chk.get("hosts", [])) == 4, "qualify: pre-flight: a report from every host")
inv = [c for h in chk.get("hosts", []) for c in h.get("checks", []) if c.get("item") == "inventory"]
check(len(inv) >= 4 and all("rxe0 port 1" == c["subject"] for c in inv),
      f"qualify: pre-flight: an inventory line per host's port ({len(inv)})")
d = load(os.path.join(q, "sweep.json"))
check(d is not None, "qualify: sweep: a document")
if d:
    qualify_sweep(d)
    throttle(d, text("qual/.done/sweep"))
    # the job's exit code is the gate (lp_sweep_exit_code's table): 1 with lpnode2 named, 3 when
    # the throttle leaves only doubt (unconfirmed or inconclusive, nothing named), never 0
    named = names_of(d, [v for v in d["verdicts"] if v["kind"] in CONFIDENT])
    rc = text("qualify.rc")
    check(rc == ("1" if named else "3"), "qualify: the job's exit code is the gate: " +
          f"{'1 (named)' if named else '3 (doubt only)'} with a node throttled (got {rc or '?'})")
dom = text("dom.html")
if dom:
    check("lpnode2" in dom, "qualify: report: headless chromium's page names lpnode2")
else:
    print("SKIP qualify: report: no page rendered (lp-report needs python3-jinja2 and python3-matplotlib; chromium)")
jd = job_dir("again")
check(text(jd[len(out) + 1:] + ".out").count("done before") >= 2, "again: the completed steps are skipped")

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
