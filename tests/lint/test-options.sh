#!/bin/bash
# tier: quick
# The three tools' command lines, as their option tables give them (issue 26.7, 23.6):
#  - one spelling per option: a long name means one short letter (or none) in every tool that
#    has it, and a letter one long name;
#  - no perftest letter silently means something else: every letter of perftest's getopt string
#    (linux-rdma/perftest src/perftest_parameters.c) is, in lp-rdma and lp-sweep, either the
#    option perftest means by it or refused with one line naming linkperf's spelling (exit 2);
#    -t NUM (perftest's tx depth) names --tx-depth;
#  - options lp-rdma and lp-sweep share have one range (--duration: 86,400 s in both); --seed is
#    refused in both for --data-seed / --schedule-seed;
#  - every threshold flag says its unit; lp-gpu's floor is GB/s (--min-gbytes-s), its
#    --min-gbps is refused; lp-rdma's default port is its own (not perftest's 18515);
#  - matrices put the source on rows, and the help says so.
# The spelling check is shown to catch a tool that drifts (a doctored --help). Quick.
set -u
cd "$(dirname "$0")/../.."
B=${LP_BUILD:-build}
for t in lp-rdma lp-sweep lp-gpu; do
	[ -x "$B/$t" ] || { echo "$B/$t not built: the cross-tool checks need all three"; exit 77; }
done
T=$(mktemp -d /tmp/lp-options-XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

"$B/lp-rdma" --help >"$T/lp-rdma"
"$B/lp-sweep" --diagnose x --help >"$T/lp-sweep"
"$B/lp-gpu" --help >"$T/lp-gpu"

# "LETTER LONG" for each option a --help lists ("-" for no letter).
pairs() {
	sed -nE 's/^  (-([[:alnum:]]), )?--([[:alnum:]][[:alnum:]-]*).*/\2 \3/p' "$1" |
		awk '{ print ($2 == "" ? "-" : $1), ($2 == "" ? $1 : $2) }'
}

# Spelling drift between the --help files given: one line per conflict.
drift() {
	for f in "$@"; do pairs "$f" | sed "s|^|$(basename "$f") |"; done | awk '
		{ tool = $1; l = $2; name = $3
		  if (name in letter && letter[name] != l)
			print "--" name ": -" letter[name] " in " owner[name] ", -" l " in " tool
		  if (l != "-" && (l in long) && long[l] != name)
			print "-" l ": --" long[l] " in " lowner[l] ", --" name " in " tool
		  if (!(name in letter)) { letter[name] = l; owner[name] = tool }
		  if (l != "-" && !(l in long)) { long[l] = name; lowner[l] = tool } }'
}

d=$(drift "$T/lp-rdma" "$T/lp-sweep" "$T/lp-gpu")
[ -z "$d" ] && ok "one spelling per option in lp-rdma, lp-sweep and lp-gpu ($(cat "$T"/lp-* | pairs /dev/stdin | sort -u | wc -l) options)" ||
	bad "spellings differ: $d"
# the check catches drift: lp-gpu's sizes as -s/--size, its samples as -r
sed -e 's/^  -s, --sizes/  -s, --size /' -e 's/^      --samples/  -r, --samples/' "$T/lp-gpu" >"$T/drifted"
[ "$(drift "$T/lp-rdma" "$T/lp-sweep" "$T/drifted" | wc -l)" -ge 2 ] &&
	ok "fault: a tool that spells -s --size and -r --samples is caught" || bad "fault: drift not caught"
for t in lp-rdma lp-sweep lp-gpu; do
	grep -qE '^      --gpu ' "$T/$t" || bad "$t: GPUs are not chosen with --gpu"
done
ok "the GPU is --gpu in all three"

# perftest's letters and what they mean there, as linkperf spells the same option (none: refused).
same="p=port d=dev i=ib-port m=mtu s=sizes n=iters S=sl x=gid-index c=connection q=qps
I=inline r=rx-depth Q=cq-mod l=post-list D=duration T=tclass a=all-sizes F=cpu-freq R=cm
b=bidir V=version Z=server t=tests u=qp-timeout"
letters="w y p d i m s n t u S x c q I o M r Q A l D f B T L E J j K k X W a F e g z R v b N V C H U O Z P G Y"
for tool in lp-rdma lp-sweep; do
	run() { if [ $tool = lp-rdma ]; then "$B/lp-rdma" "$@" 127.0.0.1; else "$B/lp-sweep" --diagnose x "$@"; fi; }
	n_same=0 n_refused=0
	for c in $letters; do
		want=$(echo $same | tr ' ' '\n' | sed -n "s/^$c=//p")
		have=$(pairs "$T/$tool" | awk -v c="$c" '$1 == c { print $2 }')
		if [ -n "$have" ]; then
			[ "$have" = "$want" ] && n_same=$((n_same + 1)) ||
				bad "$tool -$c is --$have; perftest's -$c is ${want:-refused here}"
			continue
		fi
		out=$(run -"$c" 1 2>&1 >/dev/null)
		rc=$?
		if [ $rc = 2 ] && [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q -- "-$c: .*perftest's -$c"; then
			n_refused=$((n_refused + 1))
		else
			bad "$tool -$c: rc $rc, not a one-line refusal naming perftest's meaning: $out"
		fi
	done
	ok "$tool: $n_same perftest letters mean what they mean in perftest, $n_refused are refused with one line"
	out=$(run -t 128 2>&1 >/dev/null)
	[ $? = 2 ] && echo "$out" | grep -q "perftest's -t (tx depth) is --tx-depth here" &&
		ok "$tool -t 128 names --tx-depth" || bad "$tool -t 128: $out"
	out=$(run --seed 4 2>&1 >/dev/null)
	[ $? = 2 ] && echo "$out" | grep -q -- "--data-seed .* --schedule-seed" &&
		ok "$tool --seed is refused for --data-seed / --schedule-seed" || bad "$tool --seed: $out"
	out=$(run -D 86401 2>&1 >/dev/null)
	[ $? = 2 ] && echo "$out" | grep -q "out of range \[0.01, 86400\]" &&
		ok "$tool --duration: at most 86,400 s" || bad "$tool -D 86401: $out"
	run -D 86400 --help >/dev/null 2>&1 || bad "$tool -D 86400 refused"
done

# Units: every threshold names its unit; lp-gpu's floor is in GB/s, the unit it prints.
# (a help too wide for its column continues on the next line: joined first)
joined() { awk '/^                               [^ ]/ { sub(/^ +/, ""); line = line " " $0; next } { if (line != "") print line; line = $0 } END { print line }' "$1"; }
for t in lp-rdma lp-sweep lp-gpu; do
	while IFS= read -r l; do
		bad "$t: a threshold without its unit: $l"
	done < <(joined "$T/$t" | grep -E '^ +--(min-[a-z-]+|max-(lat|impact)[a-z-]*|regress-pct|rel|rel-max) ' |
		grep -vE 'Gb/s|GB/s|microseconds|percent|times|index|events|fraction')
done
n=$(cat "$T"/lp-* | joined /dev/stdin | grep -cE '^ +--(min-|max-lat|max-impact|regress-pct|rel )')
ok "the $n threshold flags say their unit"
grep -q -- '--min-gbytes-s .*$' "$T/lp-gpu" && ! grep -q -- '--min-gbps' "$T/lp-gpu" &&
	out=$("$B/lp-gpu" --min-gbps 50 2>&1) || [ $? = 2 ] && echo "$out" | grep -q "give the floor as --min-gbytes-s" &&
	ok "lp-gpu: floors in GB/s (--min-gbytes-s); --min-gbps 50 refused (it would be 6.25 GB/s)" ||
	bad "lp-gpu --min-gbps: $out"
grep -A1 -- '--min-gbps' "$T/lp-rdma" | grep -q "Gb/s" && ok "lp-rdma --min-gbps says Gb/s" || bad "lp-rdma --min-gbps unit"

# lp-rdma's server limits (h-rdma, issue 25) are rows of its "server" group with their bounds: an
# out-of-range value is one line and exit 2 before any device or socket is touched.
for a in "--max-mem 100:out of range \[4096," "--max-duration 0:out of range \[1, 86400\]" \
	"--max-timeout 7200:out of range \[0.1, 3600\]"; do
	out=$("$B/lp-rdma" --server ${a%%:*} 2>&1)
	rc=$?
	[ $rc = 2 ] && [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q "${a#*:}" &&
		ok "lp-rdma --server ${a%%:*}: exit 2, one line" || bad "lp-rdma --server ${a%%:*}: exit $rc: $out"
done
sed -n '/^server options:/,/^$/p' "$T/lp-rdma" | grep -c -- '^      --' | grep -qx 6 &&
	ok "lp-rdma --help: the server group lists --once --bind --allow --max-mem --max-duration --max-timeout" ||
	bad "lp-rdma --help: the server group: $(sed -n '/^server options:/,/^$/p' "$T/lp-rdma")"
# lp-rdma's own port; the matrices' orientation said in the help.
grep -qE -- '--port PORT .*\(default 18555\)' "$T/lp-rdma" && ! grep -q 18515 "$T/lp-rdma" &&
	ok "lp-rdma's default port is 18555, not perftest's 18515" || bad "lp-rdma default port"
grep -q "Matrices put the client on rows: the source of written and sent data" "$T/lp-sweep" &&
	grep -q "rows are the source, columns the destination" "$T/lp-gpu" &&
	ok "lp-sweep and lp-gpu say how their matrices are read (the source on rows)" || bad "orientation not said"
exit $((fails > 0))
