# Shell helpers shared by the in-guest test scripts (sourced; POSIX sh).

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
