# shellcheck shell=sh
# Shared by the in-guest lp-rdma checks (sourced): results and a persistent server.
# Needs B (lp-rdma), OUT (a writable dir), PORT (advanced by 2 per server) and fails.

ok() { echo "ok $1"; }
bad() { echo "FAIL $1: $2"; fails=$((fails + 1)); }

# wait_line PATTERN FILE: waits (18 s at most) until FILE has a line matching PATTERN. Each poll
# forks under TCG (up to ~0.5 s on a loaded host): poll slowly.
wait_line() {
	i=0
	while ! grep -q "$1" "$2" 2>/dev/null && [ $i -lt 60 ]; do
		sleep 0.3
		i=$((i + 1))
	done
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
