#!/bin/bash
# tier: fabric
# docs/QUALIFY.md's recipe end to end under a real Slurm on the 4-guest fabric
# (scripts/lp-fabric --slurm; tests/sweep/qualify-guest.sh): with tbf on lpnode2, one
# LP_QUALIFY=1 sbatch of scripts/lp-sweep.sbatch runs lp-qualify. Checked here:
#   pre-flight   check.json: every host's report, each with its inventory lines (rxe0 port 1)
#   sweep        sweep.json: lpnode2 named (or unconfirmed, or an honest inconclusive /
#                ambiguous set holding it), never another node; node records with the inventory
#                (device, node GUID, GID); node gates recorded; the job's exit code the gate (1
#                named, 3 doubt only)
#   report       report.html (rendered here when the guest had no jinja2/matplotlib) in headless
#                chromium names lpnode2
#   resumable    the same submission again skips every completed step
# Long (a fabric boot and two jobs: ~10 min idle, more on a loaded host): run under the guest lock,
#   flock /tmp/lp-guest.lock bash tests/sweep/test-qualify-slurm.sh
# LP_QUALIFY_RESULTS=DIR: check a kept run (LP_KEEP=1 keeps one). Exit 0 pass, 77 skipped, else fail.
set -u
cd "$(dirname "$0")/../.."
B=${LP_BUILD:-build}
case $B in /*) ;; *) B=$PWD/$B ;; esac
command -v qemu-system-x86_64 >/dev/null || { echo "qemu-system-x86_64 not installed"; exit 77; }
for d in /usr/sbin/slurmctld /usr/sbin/slurmd /usr/bin/sbatch /usr/sbin/munged; do
	[ -x "$d" ] || { echo "Slurm or munge not installed ($d; scripts/install-deps.sh)"; exit 77; }
done
[ -x "$B/lp-sweep" ] || { echo "$B/lp-sweep not built"; exit 77; }
t0=$(date +%s)
if [ -n "${LP_QUALIFY_RESULTS:-}" ]; then
	out=$LP_QUALIFY_RESULTS
else
	out=$(mktemp -d "${TMPDIR:-/tmp}/lp-qualify-test.XXXXXX")
	[ -n "${LP_KEEP:-}" ] || trap 'rm -rf "$out"' EXIT
	printf '%s\n' --schedule isolated --tests write_lat,write_bw --sizes 64K --bw-iters 200 \
		--lat-iters 300 --pair-timeout 40 --retest 8 >"$out/sweep-args"
	# bounded by progress, not by the clock (a loaded host slows TCG guests many times over):
	# a run with no console line and nothing written for LP_FABRIC_IDLE seconds is a hang
	scripts/lp-fabric -n 4 --slurm --lead --rw "$out" --timeout 0 --idle "${LP_FABRIC_IDLE:-600}" \
		"LP_BUILD='$B' LP_ROOT='$PWD' OUT='$out' bash tests/sweep/qualify-guest.sh"
	rc=$?
	echo "fabric run: exit $rc in $(($(date +%s) - t0)) s"
	[ $rc = 0 ] || { echo "FAIL: lp-fabric --slurm exit $rc"; exit 1; }
fi
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
import json, os, sys

out = sys.argv[1]
q = os.path.join(out, "qual")
fails = 0


def check(cond, what):
    global fails
    print(("ok   " if cond else "FAIL ") + what)
    fails += not cond


def load(p):
    try:
        return json.load(open(p))
    except (OSError, ValueError):
        return None


for s in ("check", "sweep"):
    check(os.path.exists(os.path.join(q, ".done", s)), f"step {s} completed (marker)")
chk = load(os.path.join(q, "check.json"))
check(chk is not None and len(chk.get("hosts", [])) == 4, "pre-flight: a report from every host")
inv = [c for h in (chk or {}).get("hosts", []) for c in h.get("checks", []) if c.get("item") == "inventory"]
check(len(inv) >= 4 and all("rxe0 port 1" == c["subject"] for c in inv),
      f"pre-flight: an inventory line per host's port ({len(inv)})")
doc = load(os.path.join(q, "sweep.json"))
check(doc is not None, "sweep: a document")
doc = doc or {}
nodes = doc.get("nodes", [])
names = [n.get("name") for n in nodes]
invs = [(n.get("dev") or {}).get("inventory") or {} for n in nodes]  # lp-rdma's port record's
check(len(nodes) == 4 and all(i.get("device") == "rxe0" and i.get("node_guid") and i.get("gid") for i in invs),
      "sweep: every node record holds its port's inventory (device, node GUID, GID)")
check(all(i.get("pci", {}).get("vpd", {}).get("note") for i in invs),
      "sweep: what the inventory cannot know says why (Soft-RoCE: no PCI function, no VPD)")
check(all(n.get("dscp") == 0 and n.get("dscp_source") == "derived: tclass 0 >> 2" for n in nodes),
      "sweep: every RoCE node records its DSCP and its source (Soft-RoCE reports none: derived from class 0)")
gates = doc.get("run", {}).get("node_gates")
check(isinstance(gates, list) and len(gates) == 4 and all(g.get("reason") for g in gates),
      "sweep: a node gate per node recorded, each with its reason (run.node_gates)")
verd = doc.get("verdicts", [])
def who(v):  # the nodes a verdict names: its a (and b for a link), indices into nodes
    return {names[i] for i in (v.get("a", -1), v.get("b", -1)) if 0 <= i < len(names)}


named = set().union(*(who(v) for v in verd if v.get("kind") in ("node_slow", "node_failed", "link_slow", "link_failed")))
doubt = set().union(*(who(v) for v in verd if v.get("kind") == "unconfirmed"))
honest = any(v.get("kind") in ("inconclusive", "ambiguous", "pair_slow") for v in verd)
check(named <= {"lpnode2"} and doubt <= {"lpnode2"} and ("lpnode2" in named | doubt or honest),
      f"sweep: lpnode2 named or unconfirmed (or an honest inconclusive), nobody else: "
      f"{sorted(named)}, unconfirmed {sorted(doubt)}")
# the job's exit code is the gate (lp_sweep_exit_code's table): 1 with lpnode2 named, 3 when the
# throttle leaves only doubt (unconfirmed or inconclusive, nothing named), never 0
rc = open(os.path.join(out, "qual.rc")).read().strip() if os.path.exists(os.path.join(out, "qual.rc")) else "?"
check(rc == ("1" if named else "3"),
      f"the job's exit code is the gate: {'1 (named)' if named else '3 (doubt only)'} with a node throttled (got {rc})")
dom = os.path.join(out, "dom.html")
if os.path.exists(dom):
    check("lpnode2" in open(dom, errors="replace").read(), "report: headless chromium's page names lpnode2")
else:
    print("SKIP report: no page rendered (lp-report needs python3-jinja2 and python3-matplotlib; chromium)")
again = open(os.path.join(out, "again.out"), errors="replace").read() if os.path.exists(os.path.join(out, "again.out")) else ""
check(again.count("done before") >= 2, "re-run: the completed steps are skipped")
print("PASS" if not fails else f"{fails} check(s) failed")
sys.exit(1 if fails else 0)
PY
