# shellcheck shell=sh
# Shell helpers shared by the in-guest test scripts (sourced; POSIX sh); the host's side is
# tests/host-lib.sh. The lp-rdma checks also need B (lp-rdma), OUT (a writable dir), PORT
# (advanced by 2 per server) and fails, which guest_one or guest_pair set.

# guest_one PORT DIR: a one-guest lp-rdma test's start (scripts/lp-vm): B, IP (this guest's
# address), OUT (DIR unless given) made, PORT and fails.
guest_one() {
	B=${LP_BUILD:-build}/lp-rdma
	IP=$LP_VM_IP
	OUT=${OUT:-$2}
	mkdir -p "$OUT"
	fails=0
	PORT=$1
}

# guest_pair PORT: a two-guest lp-rdma test's start (scripts/lp-fabric -n 2, after
# scripts/vm/fabric-lib.sh): lpnode1 serves lp-rdma on PORT and the script ends there; lpnode0
# goes on with B, J (the fabric's job directory), PORT, SERVER (lpnode1's address) and fails.
guest_pair() {
	B=${LP_BUILD:-build}/lp-rdma
	J=$LP_FABRIC_JOB
	PORT=$1
	if [ "$LP_FABRIC_ID" = 1 ]; then
		lp_pair_serve "$B" "$PORT" "$OUT/srv.log"
		exit 0
	fi
	fails=0
	SERVER=$(echo "$LP_FABRIC_IPS" | cut -d' ' -f2)
}

# Milliseconds since the epoch.
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# wait_for FILE PATTERN TRIES: poll every 0.3 s (each poll forks: slow under TCG) until FILE
# holds a line matching PATTERN, at most TRIES times; prints how many lines match. The bounds
# below are hang guards, ten times what a loaded host needs: they cost nothing when the line
# comes, and a slow host must not fail a test (tests assert correctness, never speed).
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

# start_server [WRAPPER...]: `WRAPPER... $B --server -p PORT` on the next port; pid in $SRV, log in
# $OUT/srv-$PORT.log. Returns once it listens, so no check races the server's start.
start_server() {
	PORT=$((PORT + 2))
	"$@" "$B" --server -p "$PORT" >"$OUT/srv-$PORT.log" 2>&1 &
	SRV=$!
	wait_for "$OUT/srv-$PORT.log" "^listening" 600 >/dev/null
}
stop_server() {
	kill "$SRV" 2>/dev/null
	wait "$SRV" 2>/dev/null
	echo "server on $PORT exit $?" >>"$OUT/srv-$PORT.log"
}

# journal_cells FILE: the cells (attempts) a sweep journal's round lines hold so far (0 while
# there is none): each round line says its count, {"type":"round",...,"attempts":{"n":N,...
journal_cells() { sed -n 's/^{"type":"round",.*"attempts":{"n":\([0-9]*\),.*/\1/p' "$1" 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }

# rank_pid_after_cells MPIRUN_PID RANK FILE N: once the journal FILE holds N cells (at most
# 10 min), the pid of that rank among mpirun's children ("" when none).
rank_pid_after_cells() { # MPIRUN_PID RANK FILE N
	i=0
	while [ "$(journal_cells "$3")" -lt "$4" ] && [ $i -lt 2000 ]; do
		sleep 0.3
		i=$((i + 1))
	done
	for p in $(pgrep -P "$1"); do
		tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2" && echo "$p"
	done
}
