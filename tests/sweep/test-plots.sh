#!/bin/bash
# tier: quick
# plots/lp-plot renders every picture from lp-sweep JSON alone (no guests): recorded results of a
# 4-guest fabric run (tests/sweep/data: healthy, and lpnode2 throttled with tbf 20mbit; and
# fabric4-errors.json: the healthy run with lpnode2's error counters moving, as lp-sweep
# --diagnose writes it (tests/sweep/test-diagnose.sh makes the same run)).
set -u
cd "$(dirname "$0")/../.."
/usr/bin/python3 -c 'import matplotlib' 2>/dev/null || { echo "python3-matplotlib not installed"; exit 77; }
out=$(mktemp -d "${TMPDIR:-/tmp}/lp-plot-test.XXXXXX")
trap 'rm -rf "$out"' EXIT
data=tests/sweep/data
fails=0
timeout 120 plots/lp-plot all "$data/fabric4-throttle.json" --out "$out/t" >/dev/null || fails=$((fails + 1))
timeout 120 plots/lp-plot compare "$data/fabric4-healthy.json" "$data/fabric4-throttle.json" \
	--labels before,throttled --out "$out/c" >/dev/null || fails=$((fails + 1))
timeout 120 plots/lp-plot all "$data/fabric4-errors.json" --out "$out/e" >/dev/null || fails=$((fails + 1))
# lp-sweep --load: idle vs loaded latency side by side, incast shares (recorded on the fabric)
timeout 120 plots/lp-plot load "$data/fabric4-load.json" --out "$out/l" >/dev/null || fails=$((fails + 1))
timeout 120 plots/lp-plot load "$data/fabric4-healthy.json" --out "$out/h" >/dev/null || fails=$((fails + 1))
ls "$out"/h-* >/dev/null 2>&1 && { echo "FAIL lp-plot load drew a run without --load"; fails=$((fails + 1)); }
for f in e-counters t-heatmap-write_lat-8 t-heatmap-write_bw-65536 t-scores-write_lat-8 t-scores-write_bw-65536 \
	t-sizes-write_lat t-sizes-write_bw c-compare-write_lat-8 c-compare-write_bw-65536 \
	l-load-write_lat-8 l-incast-write_bw-65536; do
	p=$out/$f.png
	if [ -f "$p" ] && [ "$(head -c 8 "$p" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] &&
		[ "$(stat -c %s "$p")" -gt 10000 ]; then
		echo "ok   $f.png ($(stat -c %s "$p") bytes)"
	else
		echo "FAIL $f.png missing, not a PNG, or trivial"
		fails=$((fails + 1))
	fi
done
# no counter moved: no counters picture (all), a one-line note (counters)
[ -e "$out/t-counters.png" ] && { echo "FAIL a counters picture for a run where nothing moved"; fails=$((fails + 1)); }
msg=$(plots/lp-plot counters "$data/fabric4-healthy.json" --out "$out/h" 2>&1 >/dev/null)
if [ $? = 0 ] && [ ! -e "$out/h-counters.png" ] && [ "$(echo "$msg" | wc -l)" = 1 ]; then
	echo "ok   no counter moved: no counters picture, one line"
else
	echo "FAIL no counter moved: $msg"; fails=$((fails + 1))
fi
# errors are one line and a non-zero exit, not a traceback
echo '{"tool": "something-else"}' >"$out/bad.json"
if plots/lp-plot heatmap "$out/bad.json" >/dev/null 2>&1; then
	echo "FAIL a non-lp-sweep JSON was accepted"; fails=$((fails + 1))
else
	echo "ok   a non-lp-sweep JSON is refused"
fi
exit $((fails > 0))
