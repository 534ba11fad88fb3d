# Sourced by the model transport's tests (test-model*.sh, test-fast.sh): the checks every one of
# them starts with and the launcher they share. Needs B (the build directory); sets T (a temporary
# directory removed on exit), mpi (scripts/model-mpi.sh's mpirun of oversubscribed ranks, every
# wait bounded), ok/bad/expect and fails.
. scripts/model-mpi.sh
model_need_mpi ""
command -v python3 >/dev/null || { echo "python3 needed to check the JSON"; exit 77; }
T=$(mktemp -d /tmp/lp-model-XXXXXX)
trap 'rm -rf "$T"' EXIT
echo '{"schema": "linkperf.model/1"}' >"$T/empty.json"
model_need_json "" "$T/empty.json"
export ASAN_OPTIONS=detect_leaks=0
mpi() { timeout -k 5 300 "${model_mpirun[@]}" "$@" </dev/null; }
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
expect() { if [ "$1" = "$2" ]; then ok "$3"; else bad "$3: exit $1, want $2"; fi; }
