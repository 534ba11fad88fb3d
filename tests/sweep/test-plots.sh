#!/bin/bash
# tier: quick
# plots/lp-plot renders every picture from the JSON alone (no guests): recorded results of a
# 4-guest fabric run (tests/sweep/data: healthy, lpnode2 throttled with tbf 20mbit, lpnode2's error
# counters moving, a --load run) and two lp-gpu runs on an H200. Checked: the files; runs with
# different nodes compare (as distributions, and as cells where the pairs exist); no sizes picture
# for one size; value axes from 0; the counters' named node not dwarfed; no exponent, nan or bare
# size in any picture's text; bad input is one line and exit 2; the man page lists every command.
# Each check is shown to fail on the fault it exists to catch.
set -u
. "$(dirname "$0")/plots-lib.sh"
plots_setup plots matplotlib lxml
data=tests/sweep/data gpu=docs/data/2026-12-01-h200
plot() { timeout 120 plots/lp-plot "$@" >/dev/null || bad "lp-plot $* exited $?"; }

plot all "$data/fabric4-throttle.json" --out "$out/t"
plot compare "$data/fabric4-healthy.json" "$data/fabric4-throttle.json" --labels before,throttled --out "$out/c"
plot all "$data/fabric4-errors.json" --out "$out/e"
plot load "$data/fabric4-load.json" --out "$out/l"
plot sizes "$gpu/lp-gpu-1.json" --out "$out/g"
msg=$(plots/lp-plot load "$data/fabric4-healthy.json" --out "$out/h" 2>&1 >/dev/null)
[ $? = 0 ] && ! ls "$out"/h-* >/dev/null 2>&1 && [ "$(echo "$msg" | wc -l)" = 1 ] &&
	ok "a run without --load: no load picture, one line" || bad "lp-plot load on a run without --load: $msg"
for f in e-counters t-heatmap-write_lat-8 t-heatmap-write_bw-65536 t-scores-write_lat-8 t-scores-write_bw-65536 \
	c-compare-write_lat-8 c-compare-write_bw-65536 c-cdf-write_lat-8 c-cdf-write_bw-65536 \
	l-load-write_lat-8 l-incast-write_bw-65536 g-sizes-h2d_ce g-sizes-local_sm; do
	p=$out/$f.png
	if [ -f "$p" ] && [ "$(head -c 8 "$p" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] &&
		[ "$(stat -c %s "$p")" -gt 10000 ]; then
		echo "ok   $f.png ($(stat -c %s "$p") bytes)"
	else
		bad "$f.png missing, not a PNG, or trivial"
	fi
done
# one size per test (the recorded runs): no sizes picture; nothing moved: no counters picture
ls "$out"/t-sizes-* >/dev/null 2>&1 && bad "a sizes picture for tests run at one size" ||
	ok "no sizes picture for tests run at one size"
[ -e "$out/t-counters.png" ] && bad "a counters picture for a run where nothing moved"
msg=$(plots/lp-plot counters "$data/fabric4-healthy.json" --out "$out/h" 2>&1 >/dev/null)
[ $? = 0 ] && [ ! -e "$out/h-counters.png" ] && [ "$(echo "$msg" | wc -l)" = 1 ] &&
	ok "no counter moved: no counters picture, one line" || bad "no counter moved: $msg"

# runs with different nodes (an IB and a RoCE partition): disjoint, and two of four in common
$PY - "$data/fabric4-healthy.json" "$out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for tag, names in (("roce", ["roce%d" % i for i in range(4)]), ("half", ["lpnode0", "lpnode1", "nodeX", "nodeY"])):
    e = json.loads(json.dumps(d))
    old = [n["name"] for n in e["nodes"]]
    for n, new in zip(e["nodes"], names):
        n["name"] = n["host"] = new
    for c in e["cells"]:
        c["client_name"], c["server_name"] = names[c["client"]], names[c["server"]]
    for v in e["verdicts"]:
        for k in ("name",):
            if v.get(k) in old:
                v[k] = names[old.index(v[k])]
    json.dump(e, open(f"{sys.argv[2]}/{tag}.json", "w"))
PY
for other in roce half; do
	rm -f "$out"/x-*
	if err=$(timeout 120 plots/lp-plot compare "$data/fabric4-throttle.json" "$out/$other.json" --labels IB,RoCE --out "$out/x" 2>&1 >/dev/null) &&
		[ "$(ls "$out"/x-compare-*.png "$out"/x-cdf-*.png 2>/dev/null | wc -l)" = 4 ]; then
		ok "compare with $other nodes: both heatmaps and the distributions of both metrics"
	else
		bad "compare with $other nodes: $err"
	fi
done

# pictures: the named node of an errors verdict visible, value axes from 0, no one-size curve
check pictures "$data/fabric4-errors.json" || fails=$((fails + 1))
check pictures "$gpu/lp-gpu-1.json" || fails=$((fails + 1))
check pictures "$data/fabric4-errors.json" linear >"$out/inj" && bad "counters on a linear axis passed" ||
	ok "fault: counters on a linear axis caught ($(grep -c FAIL "$out/inj") finding)"
check pictures "$gpu/lp-gpu-1.json" zoom >"$out/inj" && bad "auto-zoomed value axes passed" ||
	ok "fault: auto-zoomed value axes caught ($(grep -c FAIL "$out/inj") pictures)"
# every text of every picture of every document: no exponent, no nan, sizes as 64 KiB, one unit
check formats "$data"/*.json "$gpu/lp-gpu-1.json" || fails=$((fails + 1))
LP_CHECK_INJECT=g check formats "$gpu/lp-gpu-1.json" >"$out/inj" && bad "pictures with %g numbers passed" ||
	ok "fault: numbers formatted with %g (4.24e+03) caught"

# the same runs as lp-sweep writes them today (linkperf.sweep/2: blocks, columns, counter sums)
if [ -x "$B/lp-sweep" ]; then
	for f in errors load incast throttle; do
		"$B/lp-sweep" --diagnose "$data/fabric4-$f.json" --json "$out/v2-$f.json" --quiet
	done
	plot all "$out/v2-load.json" --out "$out/v2l"
	plot all "$out/v2-errors.json" --out "$out/v2e"
	for f in v2l-load-write_lat-8 v2l-incast-write_bw-65536 v2e-counters v2e-heatmap-write_bw-65536; do
		[ -s "$out/$f.png" ] && ok "linkperf.sweep/2: $f.png" || bad "linkperf.sweep/2: no $f.png"
	done
	check pictures "$out/v2-errors.json" || fails=$((fails + 1))
	check formats "$out"/v2-*.json || fails=$((fails + 1))
else
	echo "SKIP linkperf.sweep/2 pictures: $B/lp-sweep not built (it converts the recorded runs)"
fi

# bad input: one line on stderr, exit 2, no traceback
printf 'test,size,client\nwrite_bw,65536,0\n' >"$out/cells.csv"
head -c 3000 "$data/fabric4-healthy.json" >"$out/truncated.json"
echo '{"tool": "something-else"}' >"$out/other.json"
echo '{"tool": "lp-sweep", "schema": "linkperf.sweep/9"}' >"$out/newer.json"
$PY -c "import json,sys; d=json.load(open(sys.argv[1])); d['metrics'][0]['matrix']='x'; json.dump(d,open(sys.argv[2],'w'))" \
	"$data/fabric4-healthy.json" "$out/wrongtype.json"
$PY -c "import json,sys; [print(json.dumps({'node': i})) for i in range(3)]" >"$out/journal.json"
: >"$out/empty.json"
for f in /nonexistent.json "$out/cells.csv" "$out/truncated.json" "$out/other.json" "$out/newer.json" \
	"$out/wrongtype.json" "$out/journal.json" "$out/empty.json" "$out"; do
	plots/lp-plot heatmap "$f" --out "$out/bad" >/dev/null 2>"$out/err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$out/err")" = 1 ] && ! grep -q Traceback "$out/err" &&
		ok "bad input, exit 2: $(cat "$out/err")" || bad "bad input $f: rc $rc, $(head -3 "$out/err")"
done
plots/lp-plot compare "$data/fabric4-healthy.json" "$out/truncated.json" >/dev/null 2>"$out/err"
[ $? = 2 ] && [ "$(wc -l <"$out/err")" = 1 ] && ok "compare with a bad second file: one line, exit 2" ||
	bad "compare with a bad file: $(head -3 "$out/err")"
# an output not written: one line, exit 4, nothing half-written, a symbolic link not followed
echo precious >"$out/victim"
ln -s "$out/victim" "$out/s-heatmap-write_lat-8.png"
plots/lp-plot heatmap "$data/fabric4-healthy.json" --out "$out/s" >/dev/null 2>"$out/err"
rc=$?
[ $rc = 4 ] && [ "$(cat "$out/victim")" = precious ] && [ "$(wc -l <"$out/err")" = 1 ] &&
	ok "a symbolic link where a picture goes: refused, exit 4" || bad "a symbolic link: rc $rc, $(cat "$out/err")"
plots/lp-plot heatmap "$data/fabric4-healthy.json" --out "$out/no/such/p" >/dev/null 2>"$out/err"
rc=$?
[ $rc = 4 ] && [ "$(wc -l <"$out/err")" = 1 ] && ok "a missing directory: one line, exit 4" || bad "a missing directory: rc $rc"
plots/lp-plot heatmap "$data/fabric4-healthy.json" --out "$out/full" >/dev/full 2>"$out/err"
rc=$?
[ $rc = 4 ] && ok "the list of pictures to a full stdout: exit 4" || bad "a full stdout: rc $rc"
[ -z "$(find "$out" -name '.*.??????*' -type f)" ] && ok "no temporary left" || bad "temporaries left"

# the man page names every command --help offers (and the check catches one left out)
cmds=$(plots/lp-plot --help | sed -n 's/.*{\(.*\)}.*/\1/p' | head -1 | tr ',' ' ')
missing() { for c in $cmds; do grep -q "^\.B $c\$\|^\.B lp\\\\-plot $c\$" "$1" || echo "$c"; done; }
m=$(missing man/lp-plot.1.in)
[ -n "$cmds" ] && [ -z "$m" ] && ok "man/lp-plot.1.in names every command: $cmds" || bad "the man page lacks: $m"
sed '/^\.B load$/d' man/lp-plot.1.in >"$out/page"
[ "$(missing "$out/page")" = load ] && ok "fault: a page without load is caught" || bad "a page without load passed"
finish
