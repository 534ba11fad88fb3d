# fabric-lib.sh - helpers for commands run by scripts/lp-fabric inside the guests.
# Source it (POSIX sh: dash, bash or busybox ash):  . scripts/vm/fabric-lib.sh
#
#   lp_wait_file PATH TIMEOUT   wait until PATH exists
#   lp_barrier NAME TIMEOUT     all LP_FABRIC_N guests meet (files barrier.NAME.<id> in the job dir)
#   lp_wait_port PORT TIMEOUT   wait until a local TCP port listens (/proc/net/tcp, tcp6)
#   lp_pair_serve LP_RDMA PORT LOG   the serving guest of a two-guest lp-rdma test: serve on
#                               PORT, write "ready" in the job dir once it listens, stop at "done"
#
# Each returns 0 on success, 1 on timeout (TIMEOUT in whole seconds), 2 when the runner wrote
# "abort" into the job dir (a guest died). Polling backs off from 0.05 s to 1 s, so idle guests
# do not steal CPU from the ones measuring (each sleep in a TCG guest is a fork + exec).
# Functions end in "return 0" on purpose: a loop's status is its body's last command.

# uptime in centiseconds, without a fork
lp__now_cs() {
	read -r lp__up lp__rest </proc/uptime
	lp__up=${lp__up%.*}${lp__up#*.}
	# strip leading zeros (a guest that booted < 1 s ago prints 0.xx)
	while [ "${lp__up#0}" != "$lp__up" ] && [ "${#lp__up}" -gt 1 ]; do lp__up=${lp__up#0}; done
	echo "$lp__up"
	return 0
}

# lp__poll CHECK_FN TIMEOUT [args]: call CHECK_FN args until it succeeds, with back-off
lp__poll() {
	lp__fn=$1
	lp__end=$(($(lp__now_cs) + ${2:-60} * 100))
	shift 2
	lp__d=5
	while :; do
		"$lp__fn" "$@" && return 0
		if [ -n "${LP_FABRIC_JOB:-}" ] && [ -e "$LP_FABRIC_JOB/abort" ]; then
			echo "fabric-lib: abort ($(cat "$LP_FABRIC_JOB/abort" 2>/dev/null))" >&2
			return 2
		fi
		if [ "$(lp__now_cs)" -ge "$lp__end" ]; then
			return 1
		fi
		case $lp__d in
		5) sleep 0.05 ;;
		10) sleep 0.1 ;;
		20) sleep 0.2 ;;
		40) sleep 0.4 ;;
		80) sleep 0.8 ;;
		*) sleep 1 ;;
		esac
		lp__d=$((lp__d * 2))
		if [ "$lp__d" -gt 100 ]; then
			lp__d=100
		fi
	done
	return 0
}

lp__exists() {
	[ -e "$1" ]
}

lp_wait_file() {
	lp__poll lp__exists "${2:-60}" "$1" || return $?
	return 0
}

lp__count_ge() { # DIR PREFIX COUNT
	lp__c=0
	for lp__f in "$1/$2"*; do
		[ -e "$lp__f" ] && lp__c=$((lp__c + 1))
	done
	[ "$lp__c" -ge "$3" ]
}

lp_barrier() {
	if [ -z "${LP_FABRIC_JOB:-}" ] || [ -z "${LP_FABRIC_ID:-}" ] || [ -z "${LP_FABRIC_N:-}" ]; then
		echo "fabric-lib: lp_barrier needs LP_FABRIC_JOB, LP_FABRIC_ID and LP_FABRIC_N" >&2
		return 1
	fi
	: >"$LP_FABRIC_JOB/barrier.$1.$LP_FABRIC_ID" || return 1
	lp__poll lp__count_ge "${2:-60}" "$LP_FABRIC_JOB" "barrier.$1." "$LP_FABRIC_N" || return $?
	return 0
}

lp__listening() { # PORT (hex, 4 digits)
	for lp__t in /proc/net/tcp /proc/net/tcp6; do
		[ -r "$lp__t" ] || continue
		# shellcheck disable=SC2034
		while read -r lp__sl lp__local lp__rem lp__st lp__rest; do
			# LISTEN is state 0A; local is ADDR:PORT in hex
			if [ "$lp__st" = 0A ] && [ "${lp__local##*:}" = "$1" ]; then
				return 0
			fi
		done <"$lp__t"
	done
	return 1
}

lp_wait_port() {
	lp__hex=$(printf '%04X' "$1") || return 1
	lp__poll lp__listening "${2:-60}" "$lp__hex" || return $?
	return 0
}

lp_pair_serve() {
	"$1" --server -p "$2" >"$3" 2>&1 &
	lp__srv=$!
	lp_wait_port "$2" 60 && : >"$LP_FABRIC_JOB/ready"
	lp_wait_file "$LP_FABRIC_JOB/done" 300
	kill $lp__srv 2>/dev/null
	return 0
}
