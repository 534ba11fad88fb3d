# shellcheck shell=sh
# Shell helpers shared by the in-guest test scripts (sourced; POSIX sh). The lp-rdma checks
# also need B (lp-rdma), OUT (a writable dir), PORT (advanced by 2 per server) and fails.

# Milliseconds since the epoch.
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# wait_for FILE PATTERN TRIES: poll every 0.3 s (each poll forks: slow under TCG) until FILE
# holds a line matching PATTERN, at most TRIES times; prints how many lines match.
wait_for() {
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null && [ "$i" -lt "$3" ]; do
		sleep 0.3
		i=$((i + 1))
	done
	grep -c "$2" "$1" 2>/dev/null
}

ok() { echo "ok $1"; }
bad() { echo "FAIL $1: $2"; fails=$((fails + 1)); }

# wait_line PATTERN FILE: waits (18 s at most) until FILE has a line matching PATTERN. Each poll
# forks under TCG (up to ~0.5 s on a loaded host): poll slowly.
wait_line() {
	wait_for "$2" "$1" 60 >/dev/null
}

# start_server [WRAPPER...]: `WRAPPER... $B --server -p PORT` on the next port; pid in $SRV, log in
# $OUT/srv-$PORT.log. Returns once it listens, so no check races the server's start.
start_server() {
	PORT=$((PORT + 2))
	"$@" "$B" --server -p "$PORT" >"$OUT/srv-$PORT.log" 2>&1 &
	SRV=$!
	wait_line "^listening" "$OUT/srv-$PORT.log"
}
stop_server() {
	kill "$SRV" 2>/dev/null
	wait "$SRV" 2>/dev/null
	echo "server on $PORT exit $?" >>"$OUT/srv-$PORT.log"
}
