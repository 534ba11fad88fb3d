#!/bin/bash
# tier: quick
# Issue 26's documentation findings, each checked here and each check shown to fail on the
# fault it exists for (a copy with the fault put back):
#  - README's first lines are the two set-up commands, its first screen has a sample of what a
#    sweep prints, and every srun line in the docs and man pages says --mpi=pmix;
#  - SWEEP.md is reference: no dated measurement sections (they live in BENCHMARKS.md);
#  - the lp-sweep man page's method is the diagnosis' (no "1.4826 MAD"), its EXIT STATUS has 3
#    and 130;
#  - every profile source cites a public URL or a file that is in the repository;
#  - lp-sweep --diagnose of a recorded document says its rounds (it printed "0 rounds");
#  - QUALIFY.md's time table is what `lp-qualify --plan 8,64,512` prints (the time model's), not
#    placeholders or figures typed in by hand.
# Quick (seconds).
set -u
cd "$(dirname "$0")/../.."
B=${LP_BUILD:-build}
command -v python3 >/dev/null || { echo "python3 needed"; exit 77; }
T=$(mktemp -d /tmp/lp-qdocs-XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
check() { # what cond...
	local what=$1
	shift
	if "$@"; then echo "ok   $what"; else echo "FAIL $what"; fails=$((fails + 1)); fi
}
not() { ! "$@"; }
refuses() { # what cond...: the check must fail on the faulty copy
	local what=$1
	shift
	if "$@" 2>/dev/null; then echo "FAIL $what (the fault passed)"; fails=$((fails + 1)); else echo "ok   $what"; fi
}

# --- README -------------------------------------------------------------------------------
readme_head() { # FILE: the two set-up commands open it, a sample of the sweep's summary on the first screen
	[ "$(sed -n 2p "$1")" = "./scripts/install-deps.sh && make demo" ] &&
		[ "$(sed -n 3p "$1")" = "./scripts/install-deps.sh && make check" ] &&
		head -n 40 "$1" | grep -q '^lp-sweep: [0-9]* nodes, schedule ' &&
		head -n 40 "$1" | grep -q '^verdict: '
}
check "README: the two commands, then a sample of the sweep's output on the first screen" readme_head README.md
sed '2d' README.md >"$T/readme-1"
refuses "README check: a README without the first command fails" readme_head "$T/readme-1"
sed '/^lp-sweep: 4 nodes/d' README.md >"$T/readme-2"
refuses "README check: a README without the sample fails" readme_head "$T/readme-2"

srun_pmix() { # FILES...: every srun command line (not prose) carries --mpi=pmix
	! cat "$@" | sed -e ':a' -e '/\\$/{N;s/\\\n//;ba' -e '}' -e 's/\\-/-/g' |
		grep -E '^[[:space:]]*(\$ )?(LP_[A-Z_]+=[^ ]+ )*srun ' |
		grep -vE -- '--mpi=(pmix|"\$\{LP_MPI:-pmix\}")' | grep -q .
}
docs=(README.md docs/*.md man/*.in scripts/lp-sweep.sbatch)
check "every srun example says --mpi=pmix (${docs[*]})" srun_pmix "${docs[@]}"
printf 'srun -N 4 --ntasks-per-node=1 lp-sweep --json x.json\n' >"$T/srun.md"
refuses "srun check: an srun line without --mpi=pmix fails" srun_pmix README.md "$T/srun.md"

# --- SWEEP.md: reference, not a log -------------------------------------------------------------
no_dated() { # FILE: no section heading carries a date, no paragraph opens with "Measured <date>"
	! grep -nE '^#+ .*20[0-9][0-9]-[01][0-9]-[0-3][0-9]|^Measured (on .*)?\(?20[0-9][0-9]-' "$1"
}
check "SWEEP.md has no dated measurement sections (BENCHMARKS.md has them)" no_dated docs/SWEEP.md
{ cat docs/SWEEP.md; printf '\n## Measured on the fabric (2026-12-01)\n'; } >"$T/sweep.md"
refuses "dated-section check: a dated heading fails" no_dated "$T/sweep.md"
check "BENCHMARKS.md holds the fabric and simulation results" \
	grep -q "^## lp-sweep on the built-in fabric" docs/BENCHMARKS.md

# --- the lp-sweep man page ---------------------------------------------------------------------
man_ok() { # FILE
	! grep -q '1.4826' "$1" &&
		python3 - "$1" <<'EOF'
import re, sys
t = open(sys.argv[1]).read()
ex = t.split('.SH EXIT STATUS', 1)
codes = set(re.findall(r'^\.B (\d+)$', ex[1].split('.SH', 1)[0], re.M)) if len(ex) == 2 else set()
sys.exit(0 if {'0', '1', '2', '3', '77', '130'} <= codes else 1)
EOF
}
# the page as installed: man/lp-sweep.1.in with the options and exit statuses of lp-sweep's tables
man=$B/man/lp-sweep.1
# (make man builds it, not make: in a fresh tree, as CI's, this test runs before tests/pkg/test-man)
[ -r "$man" ] || make -s BUILD="$B" "$man" >/dev/null 2>&1
[ -r "$man" ] || { echo "$man not built (make man)"; exit 77; }
check "man lp-sweep: the diagnosis' method, exit statuses 0 1 2 3 77 130" man_ok "$man"
sed '/^\.B 130$/,+1d' "$man" >"$T/man-1"
refuses "man check: EXIT STATUS without 130 fails" man_ok "$T/man-1"
{ cat "$man"; echo 'beyond several robust sigmas (1.4826 MAD)'; } >"$T/man-2"
refuses "man check: the stale method fails" man_ok "$T/man-2"

# --- profile sources ---------------------------------------------------------------------------
cite_ok() { # DIR: every source names a public URL or a repository file that exists
	python3 - "$1" <<'EOF'
import glob, json, os, re, sys
bad = []
for f in sorted(glob.glob(os.path.join(sys.argv[1], '*.json'))):
    for key, text in json.load(open(f))['sources'].items():
        urls = re.findall(r'https?://[^\s,;)]+', text)
        rest = re.sub(r'https?://[^\s,;)]+', ' ', text)
        paths = re.findall(r'(?<![\w/.-])((?:docs|profiles|tests|scripts|research)/[\w./-]+)', rest)
        missing = [p for p in paths if not os.path.exists(p.rstrip('.'))]
        if missing or not (urls or paths):
            bad.append(f'{f} {key}: ' + (f'cites {missing}, not in the repository' if missing else 'no URL and no file'))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
EOF
}
check "every profile source cites a public URL or a file in the repository" cite_ok profiles
mkdir -p "$T/prof"
python3 - "$T/prof/x.json" <<'EOF'
import json, sys
d = json.load(open('profiles/ib-ndr.json'))
d['sources']['ngc'] = 'NVIDIA/ngc_multinode_perf: 90 % (research/anchors.md, addendum 2026-12)'
json.dump(d, open(sys.argv[1], 'w'))
EOF
refuses "profile check: a source citing research/anchors.md (not in the repository) fails" cite_ok "$T/prof"

# --- --diagnose says the rounds it recorded ----------------------------------------------------
if [ -x "$B/lp-sweep" ] && "$B/lp-sweep" --diagnose tests/sweep/data/fabric4-throttle.json >"$T/d.out" 2>&1 ||
	[ $? = 1 ]; then
	check "--diagnose of a document: '6 rounds' (as its schedule records), not 0" \
		grep -q '^lp-sweep: 4 nodes, schedule isolated, 6 rounds, 32 cells' "$T/d.out"
	"$B/lp-sweep" --diagnose tests/sweep/data/fabric4-throttle.json --json "$T/re.json" >/dev/null 2>&1
	"$B/lp-sweep" --diagnose "$T/re.json" >"$T/d2.out" 2>&1
	check "--diagnose of a re-diagnosed document keeps the rounds" grep -q ', 6 rounds, ' "$T/d2.out"
	check "no summary ever says '0 rounds'" not grep -q ' 0 rounds' "$T/d.out" "$T/d2.out"
else
	echo "SKIP --diagnose rounds: $B/lp-sweep not built or without jansson"
fi

# --- QUALIFY.md's time table: lp-qualify --plan's -------------------------------------------------
plan_table_ok() { # FILE: the table between the markers is lp-qualify --plan 8,64,512's output
	PATH="$PWD/$B:$PATH" scripts/lp-qualify --plan 8,64,512 >"$T/plan.md" 2>&1 &&
		sed -n '/^<!-- lp-qualify --plan 8,64,512 -->$/,/^<!-- end of lp-qualify --plan -->$/p' "$1" |
		sed '1d;$d' | cmp -s - "$T/plan.md"
}
if [ -x "$B/lp-sweep" ]; then
	check "QUALIFY.md's time table is lp-qualify --plan 8,64,512's output" plan_table_ok docs/QUALIFY.md
	sed 's/^| idle sweep (round-robin.*/| idle sweep | _plan_ | _plan_ | _plan_ |/' docs/QUALIFY.md >"$T/q-1.md"
	refuses "time-table check: placeholders fail" plan_table_ok "$T/q-1.md"
	sed '/^| Slurm `-t` for `lp-qualify --load`/s/[0-9][0-9]* min/1 min/' docs/QUALIFY.md >"$T/q-2.md"
	refuses "time-table check: a figure typed in by hand fails" plan_table_ok "$T/q-2.md"
	check "lp-qualify --plan refuses a bad node list (exit 2)" \
		bash -c 'PATH="$1:$PATH" scripts/lp-qualify --plan 8,x >/dev/null 2>&1; [ $? = 2 ]' _ "$PWD/$B"
	check "lp-qualify --plan refuses --gpus x (exit 2)" \
		bash -c 'PATH="$1:$PATH" scripts/lp-qualify --plan 8 --gpus x >/dev/null 2>&1; [ $? = 2 ]' _ "$PWD/$B"
	# the GPU step is in the total: one node's lp-gpu run, longer with more GPUs (its peer pairs
	# grow as G(G-1)), none with --gpus 0; the Slurm time grows with it
	gpu_row() { PATH="$PWD/$B:$PATH" scripts/lp-qualify --plan 64 --gpus "$1" | grep "$2"; }
	slurm_of() { gpu_row "$1" '^| Slurm `-t` for `lp-qualify` (' | grep -o '\*\*[0-9]* min' | tr -dc '0-9'; }
	secs() { gpu_row "$1" '^| GPUs on every node' | awk -F'|' '{print $3}' | tr -d ' s'; }
	s2=$(secs 2) s4=$(secs 4) none=$(gpu_row 0 '^| GPUs on every node' | grep -c 'no GPU step (--gpus 0)')
	if [ -x "$B/lp-gpu" ]; then
		check "lp-qualify --plan: the GPU step grows with the GPUs per node ($s2 s at 2, $s4 s at 4) and the Slurm time with it" \
			bash -c '[ "$1" -gt 0 ] && [ "$2" -gt "$1" ] && [ "$3" -gt "$4" ]' _ "${s2:-0}" "${s4:-0}" "$(slurm_of 8)" "$(slurm_of 0)"
		check "lp-qualify --plan --gpus 0: no GPU step, said" [ "$none" = 1 ]
	fi
else
	echo "SKIP QUALIFY.md time table: $B/lp-sweep not built"
fi

[ $fails = 0 ] && echo "PASS: docs, man page, profile sources, --diagnose rounds, QUALIFY.md times" && exit 0
echo "$fails check(s) failed"
exit 1
