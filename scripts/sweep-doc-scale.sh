#!/bin/bash
# The cost of lp-sweep's documents at scale: for each NODESxRAILS, a synthetic run
# (build/sweep-synth: every ordered pair within a rail, write_lat and write_bw, diagnosed, then
# written) is made, then read, diagnosed and written again by `lp-sweep --diagnose`, each under
# /usr/bin/time -v: document size, wall and CPU time (user + sys: on a shared host the wall time
# is mostly the others' load), peak RSS. docs/SWEEP.md ("Documents at scale") has the figures.
#
#   scripts/sweep-doc-scale.sh [NODESxRAILS ...]     default: 32x2 64x2 128x2 256x2 128x8
#
# LP_SCALE_KEEP=DIR keeps each document there (NODESxRAILS.json) for lp-plot and lp-report.
# LP_SCALE_LPDOC=1 also reads each document with plots/lpdoc.py (the Python tools' reader:
# lp-plot, lp-report) under /usr/bin/time -v: the "lpdoc" columns.
set -eu
cd "$(dirname "$0")/.."
B=${LP_BUILD:-build}
[ -x "$B/sweep-synth" ] && [ -x "$B/lp-sweep" ] || { echo "build first (make)"; exit 77; }
T=$(mktemp -d /tmp/lp-scale-XXXXXX)
trap 'rm -rf "$T"' EXIT

# "wall_s cpu_s rss_MiB" of a /usr/bin/time -v report
times() {
	awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); w = 0;
			for (i = 1; i <= n; i++) w = w * 60 + t[i] }
		/User time/ { c += $2 } /System time/ { c += $2 }
		/Maximum resident set size/ { m = $2 / 1024 }
		END { printf "%.1f %.1f %d\n", w, c, m }' "$1"
}

PY=${LP_SCALE_LPDOC:+python3}
printf '%-8s %10s %12s %7s | %8s %8s %8s | %8s %8s %8s %6s%s\n' size cells "doc bytes" B/cell \
	"synth s" "cpu s" MiB "diag s" "cpu s" MiB rc "${PY:+ | lpdoc s    cpu s      MiB}"
[ $# -gt 0 ] || set -- 32x2 64x2 128x2 256x2 128x8
for s in "$@"; do
	n=${s%x*} r=${s#*x}
	/usr/bin/time -v -o "$T/synth" "$B/sweep-synth" "$n" "$r" "$T/in.json"
	rc=0
	/usr/bin/time -v -o "$T/time" "$B/lp-sweep" --diagnose "$T/in.json" --json "$T/out.json" \
		--quiet || rc=$?
	cells=$((2 * r * n * (n - 1))) # every ordered pair within a rail, two metrics, one attempt
	bytes=$(stat -c %s "$T/in.json")
	read -r sw sc sm < <(times "$T/synth")
	read -r dw dc dm < <(times "$T/time")
	py=
	if [ -n "$PY" ]; then
		/usr/bin/time -v -o "$T/py" "$PY" -c 'import sys; sys.path.insert(0, "plots")
import lpdoc; lpdoc.load(sys.argv[1])' "$T/in.json"
		py=$(printf ' | %8s %8s %8s' $(times "$T/py"))
	fi
	printf '%-8s %10d %12d %7d | %8s %8s %8s | %8s %8s %8s %6s%s\n' "$s" "$cells" "$bytes" \
		$((bytes / cells)) "$sw" "$sc" "$sm" "$dw" "$dc" "$dm" "$rc" "$py"
	[ -z "${LP_SCALE_KEEP:-}" ] || cp "$T/in.json" "$LP_SCALE_KEEP/$s.json"
	rm -f "$T/in.json" "$T/out.json"
done
