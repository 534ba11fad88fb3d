#!/bin/bash
# Guest side of tests/sweep/test-qualify-slurm.sh, in lpnode0 of scripts/lp-fabric --slurm --lead:
# docs/QUALIFY.md's recipe under Slurm with a fault: tbf on lpnode2's egress, then
# LP_QUALIFY=1 sbatch scripts/lp-sweep.sbatch (lp-qualify: pre-flight, GPUs (none here), the
# sweep, the report) into OUT/qual; OUT/qual.rc gets the job's exit code. Then the same
# submission again: every step is skipped (resumable), OUT/again.rc.
# Env: OUT, LP_BUILD (absolute), LP_ROOT; lp-sweep options one per line in OUT/sweep-args.
set -u
out=${OUT:?}
mapfile -t args <"$out/sweep-args"
export OMPI_MCA_btl=tcp,self OMPI_MCA_btl_tcp_if_include=eth0 OMPI_MCA_oob_tcp_if_include=eth0
export OMPI_MCA_pml=ob1 LP_SWEEP=$LP_BUILD/lp-sweep ASAN_OPTIONS=detect_leaks=0
cd "$out" || exit 1
progress() { # what the job has written so far: its files' names and sizes
	find "$out/qual" "$out"/lp-sweep-*.out -type f -printf '%p %s\n' 2>/dev/null | sort | md5sum
}
run() { # NAME: submit the pipeline into OUT/qual, wait while it makes progress, NAME.rc
	local id st t=0 idle=0 seen now
	id=$(LP_QUALIFY=1 LP_OUT=$out/qual sbatch --parsable -N4 "$LP_ROOT/scripts/lp-sweep.sbatch" "${args[@]}") ||
		{ echo 125 >"$1.rc"; return; }
	# no fixed limit (a loaded host slows the guests many times over): the job is hung when
	# nothing it writes (the log, the journal, the step outputs) has grown for 600 s
	seen=$(progress)
	while [ $idle -lt 600 ]; do
		st=$(scontrol show job "$id" -o 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\) .* ExitCode=\([0-9]*\):.*/\1 \2/p')
		case ${st%% *} in PENDING | RUNNING | CONFIGURING | COMPLETING | '') ;; *) break ;; esac
		sleep 2
		t=$((t + 2)) idle=$((idle + 2))
		now=$(progress)
		[ "$now" = "$seen" ] || { seen=$now; idle=0; }
	done
	[ $idle -lt 600 ] || { scancel "$id"; st="HUNG 124"; } # nothing written for 600 s: cancelled
	echo "${st#* }" >"$1.rc"
	cp "lp-sweep-$id.out" "$1.out" 2>/dev/null
	echo "qualify-guest: $1: job $id ${st% *}, exit ${st#* } in $t s"
}
timeout 60 srun -N1 -w lpnode2 sh -c 'tc qdisc replace dev eth0 root tbf rate 20mbit burst 32kbit latency 50ms'
run qual
timeout 60 srun -N1 -w lpnode2 sh -c 'tc qdisc del dev eth0 root'
run again
