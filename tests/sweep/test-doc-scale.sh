#!/bin/bash
# tier: quick
# Documents that scale, at a scale CI affords (docs/SWEEP.md "Documents at scale" measures 128-1,024
# nodes x 8 rails): a synthetic 64-node, 8-rail run (build/sweep-synth, 64,512 cells, node0005
# at half bandwidth as a client on every rail) written round by round to a journal and as a
# document, through the compact path (cells kept as struct lp_sweep_att, the document read block
# by block: sweep/readspan.c). Checked: each journal round is one line of columns (not an object
# per cell) holding exactly that round's cells; the document and the journal both diagnose to
# exactly the injected fault (node0005 slow as client on its 8 rails, nothing else); read and
# written again, the document is the same (but the method block); it validates against
# docs/schema/linkperf.sweep-2.json (python3-jsonschema); a journal whose last round line is cut
# mid-way and has no end loses that round's cells only, and says it is incomplete. Each check is
# shown to fail on its fault (another slow node, a round written as one object per cell, a
# column of the wrong type, a journal that lost two rounds). A heatmap of more than 512 nodes per
# axis keeps each bin's worst cell (plots/lpplot.py); plots/lpdoc.py labels each verdict's metric
# with its own rail's block, and reads the document apart into arrays (the same cells and attempts
# as the document parsed whole; a broken value is one line, exit 2; a cut one is json's word on
# it). The diagnosis keeps the rails' cells apart (sweep/diag.h): the same
# document as the n x n matrix over every rank (LP_SWEEP_DIAG_WHOLE=1); a fault on rail 3 only is
# named on rail 3 and nowhere else. Correctness only: no time bound.
set -u
cd "$(dirname "$0")/../.."
B=${LP_BUILD:-build}
S=$B/sweep-synth
[ -x "$B/lp-sweep" ] && [ -x "$S" ] || { echo "$B/lp-sweep or $S not built"; exit 77; }
"$B/lp-sweep" --diagnose /dev/null >/dev/null 2>&1
[ $? = 77 ] && { echo "lp-sweep built without jansson (libjansson-dev): --diagnose unsupported"; exit 77; }
python3 -c 'import jsonschema' 2>/dev/null || { echo "python3-jsonschema needed"; exit 77; }
T=$(mktemp -d /tmp/lp-docscale-XXXXXX)
[ -n "${LP_KEEP_TMP:-}" ] || trap 'rm -rf "$T"' EXIT
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }
check() { # what cond...
	local what=$1; shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}
diag() { # name file: the document in $T/name.json, rc in $T/name.rc, stderr in $T/name.err
	timeout 300 "$B/lp-sweep" --diagnose "$2" --json "$T/$1.json" --quiet 2>"$T/$1.err"
	echo $? >"$T/$1.rc"
}
rc() { cat "$T/$1.rc"; }
# "rc:blocks:cells:verdicts:incomplete" of a written document
facts() {
	python3 - "$T/$1.json" "$(rc "$1")" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
nm = lambda i: d["nodes"][i]["name"]
cells = sum(b["sweep"]["n"] for b in d["blocks"]) + d["attempts"]["n"]
v = sorted((x["kind"], nm(x["a"]), x["dirs"]) for x in d["verdicts"])
print(f"{sys.argv[2]}:{len(d['blocks'])}x{len(d['blocks'][0]['nodes'])}:{cells}:{v}:{d['run']['incomplete']}")
PY
}
# the 8 rails' node_slow of node0005 as client, and nothing else
want() { # rc cells incomplete
	python3 -c "print(f'$1:16x64:$2:{sorted((\"node_slow\", f\"node0005/{r}\", 1) for r in range(8))}:$3')"
}
# the journal's round lines: "rounds:cells:all columns", each round's cells those of round k
journal_facts() {
	python3 - "$1" <<'PY'
import json, sys
rounds, cells, cols = 0, 0, True
for k, line in enumerate(open(sys.argv[1])):
    try:
        o = json.loads(line)
    except ValueError:
        continue
    if o.get("type") != "round":
        continue
    a = o["attempts"]
    # columns: one object, n entries, each field a list of n or one value; every cell of one round
    cols = cols and isinstance(a, dict) and all(
        not isinstance(v, list) or len(v) == a["n"] for k2, v in a.items() if k2 not in ("n", "rows"))
    r = a["round"]
    cols = cols and (r == rounds or (isinstance(r, list) and set(r) == {rounds}))
    rounds += 1
    cells += a["n"]
print(f"{rounds}:{cells}:{cols}")
PY
}
validate() { # doc: against the published schema
	python3 - "$1" <<'PY'
import json, sys, jsonschema
s = json.load(open("docs/schema/linkperf.sweep-2.json"))
jsonschema.Draft202012Validator(s).validate(json.load(open(sys.argv[1])))
PY
}

N=64 R=8 CELLS=$((2 * 8 * 64 * 63)) # every ordered pair within a rail, two metrics
"$S" $N $R "$T/in.json" 5 "$T/in.journal" || { bad "sweep-synth $N $R"; exit 1; }

check "journal: $((N - 1)) round lines of columns, each exactly its round's cells, $CELLS in all" \
	[ "$(journal_facts "$T/in.journal")" = "$((N - 1)):$CELLS:True" ]
python3 - "$T/in.journal" "$T/percell.journal" <<'PY'
import json, sys
L = open(sys.argv[1]).read().split("\n")
o = json.loads(L[1]); a = o["attempts"]
get = lambda v, i: v[i] if isinstance(v, list) else v
o["attempts"] = [{k: get(v, i) for k, v in a.items() if k != "n"} for i in range(a["n"])]
L[1] = json.dumps(o, separators=(",", ":"))
open(sys.argv[2], "w").write("\n".join(L))
PY
[ "$(journal_facts "$T/percell.journal" 2>/dev/null)" = "$((N - 1)):$CELLS:True" ] &&
	bad "a round written as one object per cell passed the columns check" ||
	ok "fault: a round written as one object per cell is caught"

diag doc "$T/in.json"
check "document ($(stat -c %s "$T/in.json") bytes): 16 blocks of 64, $CELLS cells, node0005 slow as client on its 8 rails and nothing else, exit 1" \
	[ "$(facts doc)" = "$(want 1 $CELLS False)" ]
"$S" $N $R "$T/other.json" 6 || bad "sweep-synth (slow node 6)"
diag other "$T/other.json"
[ "$(facts other)" = "$(want 1 $CELLS False)" ] && bad "another slow node passed as node0005" ||
	ok "fault: another slow node (node0006) is told apart"

# the diagnosis keeps each rail's cells apart (sweep/diag.h struct lp_diag_lay), not the n x n
# matrix over every rank: the same document as the n x n path (LP_SWEEP_DIAG_WHOLE=1)
nomethod() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d.pop('method'); print(json.dumps(d))" "$1" | md5sum; }
LP_SWEEP_DIAG_WHOLE=1 diag whole "$T/in.json"
check "per rail and n x n over all $((N * R)) ranks: the same document (but the method block)" \
	[ "$(nomethod "$T/doc.json")" = "$(nomethod "$T/whole.json")" ]
[ "$(nomethod "$T/other.json")" = "$(nomethod "$T/whole.json")" ] &&
	bad "another run's document passed as the same" || ok "fault: another run's document differs"
# a fault on one rail only: named on that rail, nothing else
"$S" $N $R "$T/rail3.json" 5/3 || bad "sweep-synth (node 5, rail 3)"
diag rail3 "$T/rail3.json"
on_rail() { # name rail: node0005/rail slow as client, the only verdict, exit 1
	[ "$(facts "$1")" = "1:16x64:$CELLS:[('node_slow', 'node0005/$2', 1)]:False" ]
}
check "a fault on rail 3 only (node0005's write_bw): named on rail 3, nothing else" on_rail rail3 3
on_rail rail3 4 && bad "rail 3's fault passed as rail 4's" || ok "fault: rail 3's fault is not rail 4's"

diag again "$T/doc.json"
check "read and written again, the same (but the method block)" \
	[ "$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d.pop('method'); print(json.dumps(d))" "$T/doc.json" | md5sum)" = \
		"$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d.pop('method'); print(json.dumps(d))" "$T/again.json" | md5sum)" ]
check "the written document validates against docs/schema/linkperf.sweep-2.json" validate "$T/doc.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["blocks"][3]["sweep"]["round"][0] = "7"; json.dump(d, open(sys.argv[2], "w"))' \
	"$T/doc.json" "$T/badcol.json"
validate "$T/badcol.json" 2>/dev/null && bad "a string in an integer column validated" ||
	ok "fault: a string in an integer column fails the schema"

diag journal "$T/in.journal"
check "the journal diagnoses the same: $CELLS cells, node0005 on its 8 rails, complete" \
	[ "$(facts journal)" = "$(want 1 $CELLS False)" ]

# the last round's line cut in its middle, no end line: that round's cells lost, nothing else
last=$(grep -c '"type":"round"' "$T/in.journal")
lost=$(python3 -c "import json,sys; L=[json.loads(l) for l in open(sys.argv[1]) if '\"type\":\"round\"' in l]; print(L[-1]['attempts']['n'])" "$T/in.journal")
cut_journal() { # out lines: the last round line cut mid-way, and the lines-1 round lines before it dropped
	python3 - "$T/in.journal" "$1" "$2" <<'PY'
import sys
L = open(sys.argv[1]).read().split("\n")
r = [k for k, l in enumerate(L) if '"type":"round"' in l]
i, drop = r[-1], set(r[-int(sys.argv[3]):-1])
open(sys.argv[2], "w").write("\n".join([l for k, l in enumerate(L[:i]) if k not in drop] + [L[i][: len(L[i]) // 2]]))
PY
}
lost_one() { # name: read, only the last round's cells missing, incomplete
	local got
	diag "$1" "$T/$1.journal"
	got=$(facts "$1")
	[ "$(echo "$got" | cut -d: -f3,5)" = "$((CELLS - lost)):True" ]
}
cut_journal "$T/cut.journal" 1
check "the last round's line ($last of $last) cut mid-way, no end: its $lost cells lost, $((CELLS - lost)) read, incomplete" \
	lost_one cut
cut_journal "$T/cut2.journal" 2
lost_one cut2 && bad "a journal that lost two rounds passed as one" ||
	ok "fault: a journal that lost two rounds is caught ($(facts cut2 | cut -d: -f3) cells)"

# the Python reader (plots/lpdoc.py, lp-plot's and lp-report's) names each verdict's metric by
# the block that holds its node; the fault: the nodes' rail fields moved off their blocks
rail_labels() { # doc: "True" when every verdict's label names its node's rail
	/usr/bin/python3 - "$1" <<'PY'
import sys; sys.path.insert(0, "plots")
import lpdoc
d = lpdoc.load(sys.argv[1])
want = lambda v: [m.label for m in d.metrics if m.test == "write_bw" and v.node in m.nodes]
print(len(d.verdicts) == 8 and all(v.metrics == want(v) for v in d.verdicts))
PY
}
check "lpdoc: each verdict's metric is its own rail's block (8 rails, 8 labels)" [ "$(rail_labels "$T/doc.json")" = True ]
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); [n.__setitem__("rail", (n["rail"] + 1) % 8) for n in d["nodes"]]; json.dump(d, open(sys.argv[2], "w"))' \
	"$T/doc.json" "$T/moved.json"
[ "$(rail_labels "$T/moved.json")" = True ] && bad "verdict labels of another rail passed" ||
	ok "fault: a verdict labelled with another rail's block is caught"

# lpdoc reads an lp-sweep document apart (the file mapped, of each block only the columns a cell
# needs, as arrays): the same model as the document parsed whole, cell by cell and attempt by
# attempt, here and on a run with retests and a failed node (fabric4-errors, diagnosed again);
# the fault: a document with one value changed differs. A broken value is one line, exit 2; a
# document cut short is json's word on it (truncated), not a partial read.
apart() { # A B: "same N" when A read apart is B read whole
	/usr/bin/python3 - "$1" "$2" <<'PY'
import math, sys; sys.path.insert(0, "plots")
import lpdoc
def model(d):
    return [(m.label, m.nodes, sorted(m.slow), [(c.src, c.dst, c.a, c.b, c.value, c.error, c.ceiling, c.noise,
             [(t.phase, t.value, t.error) for t in c.attempts]) for c in m.cells]) for m in d.metrics]
assert lpdoc._load_apart(sys.argv[1]) is not None, "not read apart"
a = model(lpdoc.load(sys.argv[1]))
lpdoc._load_apart = lambda path: None  # the whole text through json
b = model(lpdoc.load(sys.argv[2]))
print(f"same {sum(len(m[3]) for m in a)}" if a == b else "differs")
PY
}
"$B/lp-sweep" --diagnose tests/sweep/data/fabric4-errors.json --json "$T/errors.json" --quiet
check "lpdoc: the 64 x 8 document read apart is the document read whole (64,512 cells)" \
	[ "$(apart "$T/doc.json" "$T/doc.json")" = "same 64512" ]
check "lpdoc: a run with retests and failed cells read apart is the one read whole" \
	[ "$(apart "$T/errors.json" "$T/errors.json")" = "same 24" ]
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["blocks"][0]["cells"]; c["value"][1] *= 2; json.dump(d, open(sys.argv[2], "w"))' \
	"$T/errors.json" "$T/changed.json"
[ "$(apart "$T/errors.json" "$T/changed.json")" = "same 24" ] && bad "a changed value passed as the same" ||
	ok "fault: a document with one value changed differs"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["blocks"][0]["cells"]["value"][1] = "x"; json.dump(d, open(sys.argv[2], "w"))' \
	"$T/errors.json" "$T/broken.json"
head -n 200 "$T/errors.json" >"$T/cut.json" # whole lines: it ends between members
for f in broken cut; do
	plots/lp-plot heatmap "$T/$f.json" --out "$T/$f" >"$T/$f.out" 2>&1
	echo $? >"$T/$f.prc"
done
check "lpdoc: a value that is not a number: one line, exit 2" \
	[ "$(cat "$T/broken.prc")" = 2 -a "$(wc -l <"$T/broken.out")" = 1 ]
check "lpdoc: a document cut short: json's word, truncated, exit 2" \
	grep -q "truncated JSON" "$T/cut.out"

# a heatmap of a 1,030-node rail (plots/lpplot.py worst_bins): each pixel the worst cell of its
# bin, so node 5's slow row and one slow cell survive the downsampling; the fault: the every-f-th
# row a renderer's resampling keeps loses them
if /usr/bin/python3 -c 'import numpy, matplotlib' 2>/dev/null; then
	bins() { # how: "worst" (lpplot) or "nearest" (every f-th cell)
		/usr/bin/python3 - "$1" <<'PY'
import sys; sys.path.insert(0, "plots")
import numpy as np, lpplot
v = np.full((1030, 1030), 100.0); np.fill_diagonal(v, np.nan); v[5, :] = 50; v[700, 400] = 20
if sys.argv[1] == "worst":
    w, f = lpplot.worst_bins(v, False)
else:
    f = 3; w = v[::f, ::f]
print(f, w.shape[0], bool((w[5 // f] <= 50).all()), float(np.nanmin(w)), int(np.isnan(w).sum()))
PY
	}
	check "heatmap of 1,030 nodes: bins of 3, node 5's row and the 20 Gb/s cell kept, grey only where nothing was measured" \
		[ "$(bins worst)" = "3 344 True 20.0 1" ]
	[ "$(bins nearest)" = "3 344 True 20.0 1" ] && bad "every-third-cell sampling passed as worst-of-bin" ||
		ok "fault: sampling every third cell loses them ($(bins nearest))"
else
	echo "skip heatmap downsampling: Debian's python3-numpy and python3-matplotlib not installed"
fi
exit $((fails > 0))
