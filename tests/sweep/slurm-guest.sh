#!/bin/bash
# Guest side of tests/sweep/test-slurm.sh: runs in lpnode0 of scripts/lp-fabric --slurm --lead
# (4 guests, slurmctld here, slurmd on each). OUT (shared, read-write) gets per scenario
# NAME.rc (the exit code Slurm reports) and its results; the host checks them.
#   srun      srun --mpi=pmix lp-sweep on 4 nodes
#   healthy   sbatch scripts/lp-sweep.sbatch (results in lp-sweep-JOBID/, plots, report)
#   salloc    salloc -N 4 mpirun lp-sweep (Open MPI launches through the allocation)
#   qualify   docs/QUALIFY.md's recipe with a fault: tbf 20mbit on lpnode2's egress (set and
#             cleared through srun -w), LP_QUALIFY=1 sbatch (lp-qualify: pre-flight, GPUs (none
#             here), the sweep, the report) into OUT/qual
#   again     the same submission once more, the throttle gone: every step is skipped (resumable)
#   scancel   sbatch, scancel once the sweep runs: partial results, exit 130
#   nodedown  slurmd stopped on lpnode3, LP_EXPECT=partition sbatch -N 2-4: lpnode3 absent
# No wall limits: a job or step whose output stands still for IDLE s (300; 600 for lp-qualify,
# whose pre-flight writes at its end) is hung (cancelled, or ended by scripts/lp-watch); a slow
# one runs on.
# Env: OUT, LP_BUILD (absolute), LP_ROOT (the checkout); lp-sweep options one per line in
# OUT/sweep-args.
set -u
out=${OUT:?}
bin=$LP_BUILD/lp-sweep
mapfile -t args <"$out/sweep-args"
lat_args=(--schedule isolated --tests write_lat --lat-iters 200 --retest 0)
export OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=eth0 OMPI_MCA_oob_tcp_if_include=eth0
export OMPI_MCA_pml=ob1 LP_SWEEP=$bin ASAN_OPTIONS=detect_leaks=0
cd "$out" || exit 1
IDLE=300
watch() { "$LP_ROOT/scripts/lp-watch" --idle $IDLE --tick 60 "$@"; }
say() { echo "slurm-guest: $*"; }

job_state() { # ID -> "STATE EXIT" (ExitCode=N:SIG, as scontrol keeps it for MinJobAge)
	scontrol show job "$1" -o 2>/dev/null |
		sed -n 's/.*JobState=\([A-Z_]*\) .* ExitCode=\([0-9]*\):.*/\1 \2/p'
}
job_moved() { # ID SINCE [DIR]: the job's output or results dir (lp-sweep-ID) written since epoch
	# second SINCE
	[ -n "$(find "lp-sweep-$1.out" "${3:-lp-sweep-$1}" -newermt "@$2" -print -quit 2>/dev/null)" ]
}
job_wait() { # ID [DIR]: until the job left the queue (cancelled when its output stood still IDLE s)
	local t0=$SECONDS last=$SECONDS look st
	look=$(date +%s)
	while :; do
		st=$(job_state "$1")
		case ${st%% *} in PENDING | RUNNING | CONFIGURING | COMPLETING | '') ;; *) break ;; esac
		job_moved "$1" $((look - 1)) "${2:-}" && last=$SECONDS
		look=$(date +%s)
		if [ $((SECONDS - last)) -ge $IDLE ]; then
			say "job $1: no progress for $IDLE s (${st:-no state}): a hang, cancelled" >&2
			scancel "$1"
			last=$SECONDS
		fi
		sleep 2
	done
	say "job $1: ${st:-no state} after $((SECONDS - t0)) s" >&2
	echo "$st"
}
submit() { # NAME [sbatch options] -- [lp-sweep options]: sbatch, wait, NAME.rc and NAME.job (the
	# results in LP_OUT when set, as lp-sweep.sbatch puts them)
	local name=$1 id st t0=$(date +%s)
	shift
	local so=()
	while [ "$1" != -- ]; do so+=("$1"); shift; done
	shift
	id=$(sbatch --parsable "${so[@]}" "$LP_ROOT/scripts/lp-sweep.sbatch" "$@") || { echo 125 >"$name.rc"; return; }
	echo "$id" >"$name.job"
	st=$(job_wait "$id" "${LP_OUT:-}")
	echo "${st#* }" >"$name.rc"
	say "$name: job $id ${st% *}, exit ${st#* } in $(($(date +%s) - t0)) s"
	grep -E '^(lp-sweep|lp-qualify|verdict)' "lp-sweep-$id.out" | sed 's/^/    /'
}
on() { # NODE CMD: a one-task step on that node
	timeout 60 srun -N1 -w "$1" sh -c "$2"
}

t0=$(date +%s)
watch --label "slurm-guest: srun" --out srun.out --path srun.journal -- \
	srun -N4 --mpi=pmix "$bin" "${lat_args[@]}" --json srun.json
echo $? >srun.rc
say "srun: exit $(cat srun.rc) in $(($(date +%s) - t0)) s"

submit healthy -N4 -- "${args[@]}"

t0=$(date +%s)
watch --label "slurm-guest: salloc" --out salloc.out --path salloc.journal -- \
	salloc -N4 mpirun --allow-run-as-root --mca btl tcp,self --mca btl_tcp_if_include eth0 \
	--mca oob_tcp_if_include eth0 --mca pml ob1 "$bin" "${lat_args[@]}" --json salloc.json
echo $? >salloc.rc
say "salloc: exit $(cat salloc.rc) in $(($(date +%s) - t0)) s"

# docs/QUALIFY.md's recipe with a throttled node, then the same submission again (resumable)
on lpnode2 'tc qdisc replace dev eth0 root tbf rate 20mbit burst 32kbit latency 50ms'
LP_QUALIFY=1 LP_OUT=$out/qual IDLE=600 submit qualify -N4 -- "${args[@]}"
on lpnode2 'tc qdisc del dev eth0 root'
LP_QUALIFY=1 LP_OUT=$out/qual IDLE=600 submit again -N4 -- "${args[@]}"

# scancel: once the job runs and its first round is done, cancel it
id=$(sbatch --parsable -N4 "$LP_ROOT/scripts/lp-sweep.sbatch" "${args[@]}")
echo "$id" >scancel.job
last=$SECONDS look=$(date +%s)
until grep -q '^lp-sweep: 4 ranks' "lp-sweep-$id.out" 2>/dev/null; do
	case $(job_state "$id") in PENDING* | RUNNING* | CONFIGURING* | '') ;; *) break ;; esac
	job_moved "$id" $((look - 1)) && last=$SECONDS
	look=$(date +%s)
	[ $((SECONDS - last)) -lt $IDLE ] || { say "scancel: job $id did not start in $IDLE s" >&2; break; }
	sleep 2
done
sleep 8
scancel "$id"
st=$(job_wait "$id")
echo "${st#* }" >scancel.rc
echo "${st% *}" >scancel.state
say "scancel: job $id ${st% *}"

# slurmd stopped on lpnode3: Slurm marks it down, the job runs on the other three
on lpnode3 'kill $(cat /run/slurmd.pid)'
# (Slurm marks it down after SlurmdTimeout, 20 s, plus its ping interval: minutes at most)
for _ in $(seq 1 150); do
	case $(sinfo -h -N -n lpnode3 -o %T) in down*) break ;; esac
	sleep 2
done
say "lpnode3: $(sinfo -h -N -n lpnode3 -o '%T %E')"
export LP_EXPECT=partition
submit nodedown -N 2-4 -- "${args[@]}"
exit 0
