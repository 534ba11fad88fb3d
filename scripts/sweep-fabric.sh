#!/bin/bash
# sweep-fabric.sh - run lp-sweep on the built-in fabric: N QEMU/TCG guests on one virtual L2
# network, rxe0 in each, Open MPI over ssh between them (scripts/lp-fabric --ssh --lead).
#
# usage: scripts/sweep-fabric.sh [options] [-- lp-sweep options]
#   -n N               guests (default 4)
#   --out DIR          results on the host (default build/sweep-fabric/YYYYmmdd-HHMMSS)
#   --scenario 'NAME=F [ARGS]'  one lp-sweep run with faults F applied first (repeatable;
#                      default healthy=none), ARGS (words) added to the lp-sweep options of
#                      this run only. All scenarios run in one boot, in the order given.
#                      F is '+'-joined: none | throttle:I[:RATE] (tbf on guest I's egress)
#                      | link:I:J[:RATE] (tbf on I's egress towards J only) | delay:I:MS
#                      (netem on I) | loss:I:PCT (netem loss PCT % on I's egress) |
#                      ingress:I[:RATE] (guest I's ingress through an ifb device with tbf:
#                      what arrives is shaped) | nodev:I (rxe0 deleted in guest I: its rank
#                      cannot open a device). RATE default 20mbit. Faults are removed after
#                      each run.
#   --check            after the scenarios, one lp-sweep --check on every guest (DIR/check.json,
#                      check.out, check.rc)
#   --plots            render PNGs from each JSON on the host (plots/lp-plot)
#   --idle SECS        the fabric is hung when no guest prints and nothing is written for SECS
#                      seconds (default 600); no wall limit unless --timeout
#   --timeout SECS     an optional wall limit for the whole fabric run (default 0: none)
#   --run-idle SECS    an lp-sweep run is hung when its output and journal stay unchanged for
#                      SECS seconds (default 300): ended, exit 124 in NAME.rc (scripts/lp-watch)
#   --run-timeout SECS an optional wall limit per lp-sweep run (default 0: none)
# Writes DIR/NAME.json, DIR/NAME-*.csv, DIR/NAME.out (summary and logs), DIR/NAME.rc
# (lp-sweep's exit code) per scenario, DIR/NAME.env when a guest's NIC stalled (and was reset
# by its init) during that run: the environment disturbed it; and DIR/NAME-*.png with --plots.
# Exit: 0 when every scenario ran to an exit code (0, 1, 3 or 77) and left a result; else 1.
# Default lp-sweep options (CI-sized; give your own after --): --schedule isolated
# --tests write_lat,write_bw --bw-sizes 64K --bw-iters 200 --lat-iters 300 --pair-timeout 60
# (isolated: on a 2-core host concurrent pairs measure the CPU contention, not the network).
# Env: LP_BUILD (build dir with lp-sweep, default build).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
me=sweep-fabric
bdir=${LP_BUILD:-build}
case $bdir in /*) ;; *) bdir=$top/$bdir ;; esac
bin=$bdir/lp-sweep

# ---- inside guest 0 -----------------------------------------------------------------------
if [ "${1:-}" = --guest ]; then
	out=$2
	ulimit -c 0
	ips=${LP_FABRIC_IPS:?not inside lp-fabric}
	read -ra ipa <<<"$ips"
	n=${#ipa[@]}
	hosts=$(echo "$ips" | tr ' ' ',')
	ip_of() { # guest id -> address
		echo "${ipa[$1]}"
	}
	on() { # guest id, command
		local g=$1
		shift
		timeout 60 ssh -n -o ConnectTimeout=20 "root@$(ip_of "$g")" "$*"
	}
	apply() { # one fault
		local f=$1 a b rate
		IFS=: read -r kind a b rate <<<"$f"
		case $kind in
		none | '') ;;
		throttle)
			rate=${b:-20mbit}
			echo "$me: guest $a: tbf rate $rate on eth0"
			on "$a" "tc qdisc replace dev eth0 root tbf rate $rate burst 32kbit latency 50ms" ;;
		link)
			rate=${rate:-20mbit}
			echo "$me: guest $a: tbf rate $rate on eth0 towards guest $b ($(ip_of "$b")) only"
			on "$a" "tc qdisc replace dev eth0 root handle 1: prio bands 3 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 &&
				tc qdisc add dev eth0 parent 1:3 handle 30: tbf rate $rate burst 32kbit latency 50ms &&
				tc filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dst $(ip_of "$b")/32 flowid 1:3" ;;
		ingress)
			rate=${b:-20mbit}
			echo "$me: guest $a: ingress of eth0 through ifb0 with tbf rate $rate"
			on "$a" "ip link add ifb0 type ifb && ip link set ifb0 up &&
				tc qdisc add dev eth0 handle ffff: ingress &&
				tc filter add dev eth0 parent ffff: protocol all u32 match u32 0 0 action mirred egress redirect dev ifb0 &&
				tc qdisc add dev ifb0 root tbf rate $rate burst 32kbit latency 50ms" ;;
		delay)
			echo "$me: guest $a: netem delay ${b}ms on eth0"
			on "$a" "tc qdisc replace dev eth0 root netem delay ${b}ms" ;;
		loss)
			echo "$me: guest $a: netem loss ${b}% on eth0"
			on "$a" "tc qdisc replace dev eth0 root netem loss ${b}%" ;;
		nodev)
			echo "$me: guest $a: rdma link delete rxe0"
			on "$a" "rdma link delete rxe0" ;;
		*) echo "$me: unknown fault '$f'" >&2; return 1 ;;
		esac
	}
	clear() { # undo one fault
		local f=$1 a b rate
		IFS=: read -r kind a b rate <<<"$f"
		case $kind in
		throttle | link | delay | loss) on "$a" "tc qdisc del dev eth0 root 2>/dev/null; true" ;;
		ingress) on "$a" "tc qdisc del dev eth0 ingress 2>/dev/null; ip link del ifb0 2>/dev/null; true" ;;
		nodev) on "$a" "rdma link add rxe0 type rxe netdev eth0" ;;
		esac
	}
	mapfile -t args <"$out/sweep-args"
	mapfile -t scenarios <"$out/scenarios"
	status=0
	for line in "${scenarios[@]}"; do
		read -r name faults extra <<<"$line"
		[ -n "$name" ] || continue
		read -ra xa <<<"${extra:-}"
		echo "$me: ==== scenario $name: faults $faults${extra:+, options $extra}"
		IFS=+ read -ra fl <<<"$faults"
		# a guest NIC stall and its reset (scripts/vm/init) during this run: an environment
		# event, reported with the scenario (NAME.env), never mistaken for what it measured
		ev=${LP_FABRIC_JOB:-/nonexistent}/nic-events
		ev0=0
		[ -f "$ev" ] && ev0=$(wc -l <"$ev")
		ok=1
		for f in "${fl[@]}"; do apply "$f" || ok=0; done
		t0=$(date +%s)
		if [ $ok = 1 ]; then
			# no wall limit: a run that writes no cell and no line for --run-idle is hung
			rm -f "$out/$name.out"
			"$top/scripts/lp-watch" --idle "${LP_SWEEP_RUN_IDLE:-300}" --timeout "${LP_SWEEP_RUN_TIMEOUT:-0}" \
				--tick 60 --label "$me: scenario $name" --out "$out/$name.out" --path "$out/$name.journal" -- \
				mpirun --allow-run-as-root -np "$n" --host "$hosts" \
				--mca btl tcp,self --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 \
				--mca pml ob1 "$bin" "${args[@]}" "${xa[@]}" \
				--json "$out/$name.json" --csv "$out/$name"
			rc=$?
		else
			rc=125
		fi
		echo "$rc" >"$out/$name.rc"
		echo "$me: scenario $name: lp-sweep exit $rc in $(($(date +%s) - t0)) s$([ "$rc" = 124 ] && echo ": hung, ended by lp-watch")"
		grep -E '^(lp-sweep|verdict)' "$out/$name.out" | sed 's/^/    /'
		if [ -f "$ev" ] && [ "$(wc -l <"$ev")" -gt "$ev0" ]; then
			tail -n +"$((ev0 + 1))" "$ev" >"$out/$name.env"
			echo "$me: scenario $name: ENVIRONMENT: a guest NIC stalled during the run (its results are disturbed, $name.env):"
			sed 's/^/    /' "$out/$name.env"
		fi
		for f in "${fl[@]}"; do clear "$f"; done
		case $rc in 0 | 1 | 3 | 77) ;; *) status=1 ;; esac
	done
	if [ -f "$out/check-wanted" ]; then
		rm -f "$out/check.out"
		"$top/scripts/lp-watch" --idle "${LP_SWEEP_RUN_IDLE:-300}" --label "$me: --check" --out "$out/check.out" -- \
			mpirun --allow-run-as-root -np "$n" --host "$hosts" \
			--mca btl tcp,self --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 \
			--mca pml ob1 "$bin" --check --json "$out/check.json"
		rc=$?
		echo "$rc" >"$out/check.rc"
		echo "$me: lp-sweep --check: exit $rc"
		tail -n 1 "$out/check.out" | sed 's/^/    /'
		case $rc in 0 | 1) ;; *) status=1 ;; esac
	fi
	exit $status
fi

# ---- on the host --------------------------------------------------------------------------
n=4 out='' plots=0 check=0 timeout=0 idle=600 run_timeout=0 run_idle=300
scen=()
while [ $# -gt 0 ]; do
	case $1 in
	-n) n=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--scenario) scen+=("$2"); shift 2 ;;
	--plots) plots=1; shift ;;
	--check) check=1; shift ;;
	--timeout) timeout=$2; shift 2 ;;
	--run-timeout) run_timeout=$2; shift 2 ;;
	--idle) idle=$2; shift 2 ;;
	--run-idle) run_idle=$2; shift 2 ;;
	-h | --help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	*) echo "$me: unknown option $1 (see --help)" >&2; exit 2 ;;
	esac
done
[ ${#scen[@]} -gt 0 ] || scen=(healthy=none)
[ -x "$bin" ] || { echo "$me: $bin is missing: run make" >&2; exit 2; }
out=${out:-$top/build/sweep-fabric/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd -P)
: >"$out/scenarios"
for s in "${scen[@]}"; do
	case $s in *=*) ;; *) echo "$me: --scenario NAME=FAULTS, got '$s'" >&2; exit 2 ;; esac
	echo "${s%%=*} ${s#*=}" >>"$out/scenarios"
done
rm -f "$out/check-wanted"
[ $check = 0 ] || : >"$out/check-wanted"
if [ $# -gt 0 ]; then
	printf '%s\n' "$@" >"$out/sweep-args"
else
	printf '%s\n' --schedule isolated --tests write_lat,write_bw --bw-sizes 64K --bw-iters 200 \
		--lat-iters 300 --pair-timeout 60 >"$out/sweep-args"
fi
echo "$me: $n guests, scenarios: ${scen[*]}; results in $out"
"$top/scripts/lp-fabric" -n "$n" --ssh --lead --rw "$out" --timeout "$timeout" --idle "$idle" \
	"LP_BUILD='$bdir' LP_SWEEP_RUN_TIMEOUT=$run_timeout LP_SWEEP_RUN_IDLE=$run_idle ASAN_OPTIONS=detect_leaks=0 bash '$top/scripts/sweep-fabric.sh' --guest '$out'"
rc=$?
if [ $plots = 1 ]; then
	for j in "$out"/*.json; do
		[ -f "$j" ] && [ "$j" != "$out/check.json" ] || continue
		"$top/plots/lp-plot" all "$j" --out "${j%.json}" || rc=1
	done
fi
for s in "${scen[@]}"; do
	name=${s%%=*}
	[ -f "$out/$name.json" ] || { echo "$me: scenario $name left no JSON" >&2; rc=1; }
done
exit $rc
