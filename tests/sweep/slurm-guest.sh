#!/bin/bash
# Guest side of tests/sweep/test-slurm.sh: runs in lpnode0 of scripts/lp-fabric --slurm --lead
# (4 guests, slurmctld here, slurmd on each). OUT (shared, read-write) gets per scenario
# NAME.rc (the exit code Slurm reports) and its results; the host checks them.
#   srun      srun --mpi=pmix lp-sweep on 4 nodes
#   healthy   sbatch scripts/lp-sweep.sbatch (results in lp-sweep-JOBID/, plots, report)
#   salloc    salloc -N 4 mpirun lp-sweep (Open MPI launches through the allocation)
#   throttle  sbatch with tbf 20mbit on lpnode2's egress (set and cleared through srun -w)
#   scancel   sbatch, scancel once the sweep runs: partial results, exit 130
#   nodedown  slurmd stopped on lpnode3, LP_EXPECT=partition sbatch -N 2-4: lpnode3 absent
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
say() { echo "slurm-guest: $*"; }

job_state() { # ID -> "STATE EXIT" (ExitCode=N:SIG, as scontrol keeps it for MinJobAge)
	scontrol show job "$1" -o 2>/dev/null |
		sed -n 's/.*JobState=\([A-Z_]*\) .* ExitCode=\([0-9]*\):.*/\1 \2/p'
}
job_wait() { # ID TIMEOUT: until the job left the queue; NAME.rc gets its exit code
	local t=0 st
	while [ $t -lt "$2" ]; do
		st=$(job_state "$1")
		case ${st%% *} in PENDING | RUNNING | CONFIGURING | COMPLETING | '') ;; *) break ;; esac
		sleep 2
		t=$((t + 2))
	done
	say "job $1: ${st:-no state} after ${t} s" >&2
	echo "$st"
}
submit() { # NAME [sbatch options] -- [lp-sweep options]: sbatch, wait, NAME.rc and NAME.job
	local name=$1 id st t0=$(date +%s)
	shift
	local so=()
	while [ "$1" != -- ]; do so+=("$1"); shift; done
	shift
	id=$(sbatch --parsable "${so[@]}" "$LP_ROOT/scripts/lp-sweep.sbatch" "$@") || { echo 125 >"$name.rc"; return; }
	echo "$id" >"$name.job"
	st=$(job_wait "$id" 400)
	echo "${st#* }" >"$name.rc"
	say "$name: job $id ${st% *}, exit ${st#* } in $(($(date +%s) - t0)) s"
	grep -E '^(lp-sweep|verdict)' "lp-sweep-$id.out" | sed 's/^/    /'
}
on() { # NODE CMD: a one-task step on that node
	timeout 60 srun -N1 -w "$1" sh -c "$2"
}

t0=$(date +%s)
timeout 300 srun -N4 --mpi=pmix "$bin" "${lat_args[@]}" --json srun.json >srun.out 2>&1
echo $? >srun.rc
say "srun: exit $(cat srun.rc) in $(($(date +%s) - t0)) s"

submit healthy -N4 -- "${args[@]}"

t0=$(date +%s)
timeout 300 salloc -N4 mpirun --allow-run-as-root --mca btl tcp,self --mca btl_tcp_if_include eth0 \
	--mca oob_tcp_if_include eth0 --mca pml ob1 "$bin" "${lat_args[@]}" --json salloc.json \
	>salloc.out 2>&1
echo $? >salloc.rc
say "salloc: exit $(cat salloc.rc) in $(($(date +%s) - t0)) s"

on lpnode2 'tc qdisc replace dev eth0 root tbf rate 20mbit burst 32kbit latency 50ms'
submit throttle -N4 -- "${args[@]}"
on lpnode2 'tc qdisc del dev eth0 root'

# scancel: once the job runs and its first round is done, cancel it
id=$(sbatch --parsable -N4 "$LP_ROOT/scripts/lp-sweep.sbatch" "${args[@]}")
echo "$id" >scancel.job
for _ in $(seq 1 60); do
	grep -q '^lp-sweep: 4 ranks' "lp-sweep-$id.out" 2>/dev/null && break
	sleep 2
done
sleep 8
scancel "$id"
st=$(job_wait "$id" 120)
echo "${st#* }" >scancel.rc
echo "${st% *}" >scancel.state
say "scancel: job $id ${st% *}"

# slurmd stopped on lpnode3: Slurm marks it down, the job runs on the other three
on lpnode3 'kill $(cat /run/slurmd.pid)'
for _ in $(seq 1 60); do
	case $(sinfo -h -N -n lpnode3 -o %T) in down*) break ;; esac
	sleep 2
done
say "lpnode3: $(sinfo -h -N -n lpnode3 -o '%T %E')"
export LP_EXPECT=partition
submit nodedown -N 2-4 -- "${args[@]}"
exit 0
