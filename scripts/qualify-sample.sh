#!/bin/bash
# docs/QUALIFY.md's sample output of steps 5 (report) and 6 (re-check of the flagged), produced by
# running them: lp-qualify on the model transport (lp-sweep --model: no RDMA device, the harness as
# on a cluster) with MPI ranks on this host, a slow node and one slow link direction in the model;
# then lp-report on its sweep.json, the page's first screen as headless chromium renders it (text
# and a PNG); then the re-check of the flagged (the link reseated, so the model drops its fault;
# the node left as it was) on the flagged and their partners in isolation.
# Usage: scripts/qualify-sample.sh OUTDIR   (raw outputs, small, for docs/data/)
# Needs: a build (build/lp-sweep), Open MPI, Debian's python3 with jinja2, matplotlib and lxml
# (lp-report), chromium for the screenshot (skipped, and said, without it). About a minute.
set -eu
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/qualify-sample.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
PY=/usr/bin/python3
T=$(mktemp -d /tmp/lp-qualify-sample-XXXXXX)
trap 'rm -rf "$T"' EXIT
export PATH=$PWD/build:$PWD/plots:$PATH
mpi="mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader,tcp --mca pml ob1 --mca mpi_yield_when_idle 1"

cat >"$out/model.json" <<'EOF'
{"schema": "linkperf.model/1", "seed": 11, "names": "gpu%03d",
 "base": {"lat_us": 1.9, "bw_gbps": 390, "rate_gbps": 400}, "noise": {"cv": 0.03}, "time": {"test_ms": 1},
 "faults": [{"node": "gpu005", "factor": 0.7, "note": "a slow node"},
            {"link": ["gpu001", "gpu006"], "factor": 0.5, "note": "one slow direction"}]}
EOF
# the re-check: the link's fault gone (reseated), the node's kept (still slow)
$PY - "$out/model.json" "$out/recheck-model.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
m["faults"] = [f for f in m["faults"] if "node" in f]
json.dump(m, open(sys.argv[2], "w"))
EOF
# every node's pre-flight reads the ConnectX-7 fixture tree (this host has no RDMA device)
$PY - tests/fixtures/check/cx7-ib.txt "$T/sys" <<'EOF'
import os, sys
for line in open(sys.argv[1]).read().splitlines():
    if not line.strip() or line.startswith('#'):
        continue
    kind, rel, *rest = line.split(' ', 2)
    arg, path = rest[0] if rest else '', os.path.join(sys.argv[2], rel)
    if kind in ('file', 'link', 'dir'):
        os.makedirs(path if kind == 'dir' else os.path.dirname(path), exist_ok=True)
    if kind == 'file':
        open(path, 'w').write(arg + '\n')
    elif kind == 'link' and not os.path.lexists(path):
        os.symlink(arg, path)
EOF

# steps 1-5 in one command (the report is step 5); its exit code is the gate (1: something named)
rc=0
LP_SYSFS_ROOT=$T/sys SLURM_NNODES=8 scripts/lp-qualify --out "$T/run" --no-gpu \
	--launcher "$mpi -np 8" -- --model "$out/model.json" --isolation none </dev/null >/dev/null 2>&1 || rc=$?
echo "lp-qualify exit $rc" >"$out/qualify-exit.txt"
sed "s|$T|DIR|g; s|$out|docs/data/...|g; s|$PWD/||g" "$T/run/qualify.log" >"$out/qualify.log"
sed "s|$T|DIR|g; s|$out|docs/data/...|g" "$T/run/sweep.txt" >"$out/sweep.txt"

# step 5 by hand, as QUALIFY.md shows it: what lp-report prints, then the page's first screen
(cd "$T/run" && lp-report sweep.json -o report.html) >"$out/report-stdout.txt" 2>&1 || true
if command -v chromium >/dev/null; then
	timeout 120 chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=5000 \
		--dump-dom "file://$T/run/report.html" >"$T/dom.html" 2>/dev/null
	timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--window-size=1100,900 --screenshot="$out/report-first-screen.png" \
		"file://$T/run/report.html" >/dev/null 2>&1 || echo "chromium: no screenshot" >&2
else
	cp "$T/run/report.html" "$T/dom.html"
	echo "chromium not installed: the text is lxml's reading of the file, no screenshot" >&2
fi
# the first screen as text: the title line, the verdict, why, the flagged table's rows (evidence cut)
$PY - "$T/dom.html" <<'EOF' | sed "s|$T|DIR|g; s|$PWD/build/\.\./||g" >"$out/report-first-screen.txt"
import lxml.html, sys
t = lxml.html.parse(sys.argv[1])
text = lambda el: " ".join(el.text_content().split())
body = t.xpath("//body")[0]
for el in body:
    if el.tag == "h2" and el.get("id") != "flagged":
        break
    if el.tag == "ul":
        for li in el.xpath("./li"):
            print("  - " + text(li))
    elif el.tag == "table":
        for tr in el.xpath(".//tr"):
            cells = [text(c) for c in tr.xpath("./th|./td")]
            print("  | " + " | ".join(c if len(c) < 90 else c[:87] + "..." for c in cells))
    else:
        print(text(el))
EOF

# step 6: the flagged and partners again, one pair at a time
rc=0
$mpi -np 8 lp-sweep --model "$out/recheck-model.json" --isolation none --schedule isolated \
	--json "$T/recheck.json" </dev/null >"$T/recheck.txt" 2>&1 || rc=$?
# mpirun's own notice of a rank's non-zero exit (the gate) is left out: the exit code says it
{
	sed "s|$T|DIR|g; s|$out|docs/data/...|g" "$T/recheck.txt" | sed '/^-----/,$d'
	echo "exit $rc"
} >"$out/recheck.txt"
ls -l "$out"
