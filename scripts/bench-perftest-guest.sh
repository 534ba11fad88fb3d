#!/bin/bash
# bench-perftest-guest.sh - guest half of scripts/bench-perftest.sh (runs inside scripts/lp-vm).
#
# usage: scripts/bench-perftest-guest.sh --out DIR [--repeats N] [--quick] [--cases LIST] [--lp-args ARGS]
# For each repeat and each case it runs perftest (ib_*_lat/bw -x 1) and lp-rdma one after the
# other, alternating which goes first, and writes the raw outputs to DIR/raw plus one line per
# run to DIR/runs.tsv (repeat, case, tool, position, rc, wall seconds, file stem). It does not
# judge the numbers: bench-perftest.sh parses them on the host.
# Needs rxe0 (LP_VM_IP) and build/lp-rdma. Exit 0 when every pair was attempted.
set -u

out='' repeats=5 quick=0 cases='' lp_args=''
while [ $# -gt 0 ]; do
    case $1 in
    --out) out=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --cases) cases=$2; shift 2 ;;
    --lp-args) lp_args=$2; shift 2 ;;
    *) echo "bench-perftest-guest: unknown argument: $1" >&2; exit 2 ;;
    esac
done
if [ -z "$out" ] || [ ! -d "$out" ]; then echo "bench-perftest-guest: --out DIR (existing) is required" >&2; exit 2; fi
top=$(cd "$(dirname "$0")/.." && pwd)
lp=$top/build/lp-rdma
ip=${LP_VM_IP:-10.0.2.15}
raw=$out/raw
mkdir -p "$raw"

# Iterations: the same -n for both tools. Latency 2000, bandwidth 2000 (64 KiB: ~130 MB a run).
if [ "$quick" = 1 ]; then lat_n=200 bw_n=200; else lat_n=2000 bw_n=2000; fi
# id perftest-binary lp-test size iters
all_cases="write_lat_2:ib_write_lat:write_lat:2:$lat_n
write_lat_4k:ib_write_lat:write_lat:4096:$lat_n
read_lat_2:ib_read_lat:read_lat:2:$lat_n
send_lat_2:ib_send_lat:send_lat:2:$lat_n
write_bw_64k:ib_write_bw:write_bw:65536:$bw_n
read_bw_64k:ib_read_bw:read_bw:65536:$bw_n
send_bw_64k:ib_send_bw:send_bw:65536:$bw_n
write_bw_4k:ib_write_bw:write_bw:4096:$bw_n"
if [ -n "$cases" ]; then
    all_cases=$(printf '%s\n' "$all_cases" | grep -E "^($(echo "$cases" | tr ',' '|')):")
fi

lp_port=18600    # persistent lp-rdma server
pf_port=19000    # perftest: a fresh port per run (no TIME_WAIT / late-server surprises)
pair_to=120      # bound on one run (client side), seconds

# ---- metadata ----
{
    echo "date_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "guest_kernel=$(uname -r)"
    echo "guest_nproc=$(nproc)"
    echo "guest_cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
    echo "guest_clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"
    echo "perftest_version=$(dpkg-query -W -f='${Version}' perftest 2>/dev/null)"
    echo "lp_rdma_version=$("$lp" --version 2>&1 | head -n1)"
    echo "repeats=$repeats"
    echo "quick=$quick"
    echo "lat_iters=$lat_n"
    echo "lp_args=$lp_args"
    echo "bw_iters=$bw_n"
    echo "ip=$ip"
} >"$out/meta.txt"
ibv_devinfo -v >"$out/ibv_devinfo.txt" 2>&1 || true

# ---- helpers ----
wait_port() { # PORT PID TENTHS: 0 when something listens on PORT, 1 when PID died or time ran out
    local port=$1 pid=$2 n=$3
    while [ "$n" -gt 0 ]; do
        ss -ltnH "sport = :$port" 2>/dev/null | grep -q . && return 0
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.1
        n=$((n - 1))
    done
    return 1
}

lp_srv_pid=''
start_lp_server() {
    "$lp" --server -p "$lp_port" >>"$raw/lp-server.txt" 2>&1 &
    lp_srv_pid=$!
    if ! wait_port "$lp_port" "$lp_srv_pid" 100; then
        echo "lp-rdma server did not come up (see raw/lp-server.txt)" >>"$out/errors.txt"
    fi
}

run_lp() { # STEM TEST SIZE ITERS -> rc
    local stem=$1 t=$2 s=$3 n=$4 rc
    if ! kill -0 "$lp_srv_pid" 2>/dev/null; then
        echo "$stem: lp-rdma server was gone, restarted" >>"$out/errors.txt"
        start_lp_server
    fi
    # shellcheck disable=SC2086  # lp_args: extra client options, split on purpose
    timeout -k 5 "$pair_to" "$lp" "$ip" -p "$lp_port" --wait 10 -t "$t" -s "$s" -n "$n" $lp_args \
        --json "$raw/$stem.json" >"$raw/$stem.txt" 2>&1
    rc=$?
    return $rc
}

run_pf() { # STEM BIN SIZE ITERS -> rc
    local stem=$1 bin=$2 s=$3 n=$4 rc spid extra=''
    case $bin in *_bw) extra=--report_gbits ;; esac
    pf_port=$((pf_port + 1))
    # shellcheck disable=SC2086
    timeout -k 5 "$pair_to" "$bin" -x 1 -F -p "$pf_port" -s "$s" -n "$n" $extra \
        >"$raw/$stem.srv.txt" 2>&1 &
    spid=$!
    if ! wait_port "$pf_port" "$spid" 150; then
        echo "$stem: perftest server not listening on $pf_port" >>"$raw/$stem.txt"
        kill "$spid" 2>/dev/null
        wait "$spid" 2>/dev/null
        return 124
    fi
    # shellcheck disable=SC2086
    timeout -k 5 "$pair_to" "$bin" -x 1 -F -p "$pf_port" -s "$s" -n "$n" $extra "$ip" \
        >"$raw/$stem.txt" 2>&1
    rc=$?
    # the server ends by itself after the test; bound it if the client failed
    for _ in $(seq 1 50); do kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
    kill "$spid" 2>/dev/null
    wait "$spid" 2>/dev/null
    return $rc
}

now_s() { date +%s.%N; }

# ---- run ----
start_lp_server
printf 'repeat\tcase\ttool\tposition\trc\twall_s\tstem\n' >"$out/runs.tsv"
t_start=$(now_s)
for r in $(seq 1 "$repeats"); do
    ci=0
    while IFS=: read -r id bin t s n; do
        [ -n "$id" ] || continue
        ci=$((ci + 1))
        if [ $(((r + ci) % 2)) -eq 0 ]; then order="lp pf"; else order="pf lp"; fi
        pos=0
        for tool in $order; do
            pos=$((pos + 1))
            stem=r${r}_${id}_${tool}
            t0=$(now_s)
            if [ "$tool" = lp ]; then run_lp "$stem" "$t" "$s" "$n"; else run_pf "$stem" "$bin" "$s" "$n"; fi
            rc=$?
            t1=$(now_s)
            printf '%s\t%s\t%s\t%s\t%s\t%.2f\t%s\n' "$r" "$id" "$tool" "$pos" "$rc" \
                "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')" "$stem" >>"$out/runs.tsv"
            echo "r$r $id $tool rc=$rc"
        done
    done <<EOF
$all_cases
EOF
done
t_end=$(now_s)
echo "guest_bench_wall_s=$(awk -v a="$t_start" -v b="$t_end" 'BEGIN{printf "%.1f", b-a}')" >>"$out/meta.txt"
# the persistent server's CPU time: it should idle between clients (not spin)
if [ -r "/proc/$lp_srv_pid/stat" ]; then
    echo "lp_server_cpu_ticks=$(awk '{print $14 + $15}' "/proc/$lp_srv_pid/stat") (clk_tck $(getconf CLK_TCK))" >>"$out/meta.txt"
fi
kill "$lp_srv_pid" 2>/dev/null
wait "$lp_srv_pid" 2>/dev/null
echo "guest done"
exit 0
