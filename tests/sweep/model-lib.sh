# Sourced by the model transport's tests (test-model*.sh, test-fast.sh): the checks every one of
# them starts with and the launcher they share. Needs B (the build directory); sets T (a temporary
# directory removed on exit), mpi (mpirun of oversubscribed ranks that yield, shared memory between
# them, every wait bounded), ok/bad/expect and fails.
command -v mpirun >/dev/null || { echo "Open MPI (mpirun) not installed"; exit 77; }
command -v python3 >/dev/null || { echo "python3 needed to check the JSON"; exit 77; }
[ -x "$B/lp-sweep" ] || { echo "$B/lp-sweep not built (rdma-core or mpicc missing?)"; exit 77; }
T=$(mktemp -d /tmp/lp-model-XXXXXX)
trap 'rm -rf "$T"' EXIT
echo '{"schema": "linkperf.model/1"}' >"$T/empty.json"
if "$B/lp-sweep" --plan --nodes 2 --model "$T/empty.json" 2>&1 | grep -q "without a JSON library"; then
	echo "lp-sweep built without jansson: --model cannot read a model"; exit 77
fi
export ASAN_OPTIONS=detect_leaks=0
mpi() { timeout -k 5 300 mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader,tcp \
	--mca pml ob1 --mca mpi_yield_when_idle 1 "$@" </dev/null; }
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
expect() { if [ "$1" = "$2" ]; then ok "$3"; else bad "$3: exit $1, want $2"; fi; }
