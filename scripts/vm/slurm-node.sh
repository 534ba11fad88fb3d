# slurm-node.sh - a real Slurm cluster on the lp-fabric guests (scripts/lp-fabric --slurm).
# Sourced (POSIX sh, after fabric-lib.sh) by the command lp-fabric writes for every guest:
#
#   lp_slurm_up TIMEOUT    munged here, slurmctld on lpnode0, slurmd on every guest; lpnode0
#                          then waits until every node is idle in sinfo. 0, or 1 with one line.
#   lp_slurm_follow FLAG TIMEOUT   --lead: the other guests keep their slurmd until FLAG exists
#
# The Debian packages (slurmctld, slurmd, slurm-client, munge) are the host's: the guests share
# its root. Per run, lp-fabric writes LP_FABRIC_JOB/slurm/: slurm.conf (guests as nodes of one
# partition "fabric") and munge.key; slurmctld and slurmd log there too (slurmctld.log,
# slurmd.NAME.log), so a failed run can be read from the host.

lp__slurm_die() {
	echo "lp-slurm: lpnode$LP_FABRIC_ID: $*" >&2
	return 1
}

# every node idle (or mixed/allocated: a job may already run); sinfo answers only once
# slurmctld is up
lp__slurm_all_up() {
	[ "$(sinfo -h -N -o '%N %t' 2>/dev/null | grep -c ' \(idle\|mix\|alloc\)$')" -ge "$LP_FABRIC_N" ]
}

lp_slurm_up() {
	s=$LP_FABRIC_JOB/slurm
	me=lpnode$LP_FABRIC_ID
	mkdir -p /etc/slurm /run/munge /var/lib/munge /var/log/munge /var/spool/slurmd \
		/var/spool/slurmctld || return 1
	cp "$s/slurm.conf" "$s/cgroup.conf" /etc/slurm/ || return 1
	# slurmd 22.05 opens its cgroup plugin even with proctrack/linuxproc and task/none, and
	# its cgroup/v2 wants systemd over dbus: a cgroup v1 freezer hierarchy is all it needs
	if ! mountpoint -q /sys/fs/cgroup; then
		mount -t tmpfs -o mode=755 cgroup /sys/fs/cgroup && mkdir /sys/fs/cgroup/freezer &&
			mount -t cgroup -o freezer freezer /sys/fs/cgroup/freezer ||
			lp__slurm_die "cannot mount a cgroup v1 hierarchy for slurmd" || return 1
	fi
	install -m 0400 -o munge -g munge "$s/munge.key" /run/munge/munge.key || return 1
	chown munge:munge /run/munge /var/lib/munge /var/log/munge
	# munged insists on a log file in a directory of its own (not the 9p job dir)
	runuser -u munge -- /usr/sbin/munged --key-file=/run/munge/munge.key --num-threads=1 ||
		lp__slurm_die "munged did not start: $(tail -n1 /var/log/munge/munged.log)" || return 1
	if [ "$LP_FABRIC_ID" = 0 ]; then
		/usr/sbin/slurmctld || lp__slurm_die "slurmctld did not start ($s/slurmctld.log)" ||
			return 1
	fi
	/usr/sbin/slurmd -N "$me" || lp__slurm_die "slurmd did not start ($s/slurmd.$me.log)" ||
		return 1
	[ "$LP_FABRIC_ID" = 0 ] || return 0
	lp__poll lp__slurm_all_up "${1:-120}"
	case $? in
	0) return 0 ;;
	2) return 1 ;;
	esac
	lp__slurm_die "not every node came up in ${1:-120} s: $(sinfo -h -N -o '%N %t %E' 2>&1 | tr '\n' ';')"
}

lp_slurm_follow() {
	lp_wait_file "$1" "${2:-600}"
	return 0
}
