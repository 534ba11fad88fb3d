#!/bin/sh
# Installs the Debian 12 packages linkperf needs, and starts nothing.
#
#   scripts/install-deps.sh             development (the default): build, test, the QEMU guests
#                                       and their Slurm, the Debian packages, man pages, fuzzing
#   scripts/install-deps.sh --runtime   a cluster node: only what the tools need to run (rdma-core's
#                                       libraries and providers, jansson, libcrypto, Open MPI,
#                                       python3 with matplotlib and jinja2 for lp-plot and lp-report)
#
# No daemon is left enabled or running: while apt installs, a policy-rc.d refuses every service
# start (a host's own policy-rc.d is kept instead), and afterwards the services of the packages
# this run installed (ssh, munge, slurmctld, slurmd, iwpmd, ...: Debian's maintainer scripts
# enable them) are disabled at boot (update-rc.d, systemctl) and stopped if running. The guest
# fabric runs its own sshd, munged and Slurm daemons inside the guests, never the host's.
# Packages present before are left as they were; the services this script disabled are listed
# in /var/lib/linkperf/install-deps.services (tests/pkg/test-install-deps.sh checks them).
# Idempotent: when everything is present it says so and returns at once. Root or sudo.
set -eu

DEV_PKGS="build-essential make pkg-config libibverbs-dev librdmacm-dev rdma-core ibverbs-utils
ibverbs-providers rdmacm-utils perftest libcmocka-dev libjansson-dev libssl-dev openmpi-bin libopenmpi-dev
openssh-server openssh-client python3 python3-matplotlib python3-numpy python3-jinja2
python3-prometheus-client python3-jsonschema python3-lxml chromium
slurmctld slurmd slurm-client munge
qemu-system-x86 busybox-static kmod cpio iproute2 procps ethtool
clang libclang-rt-14-dev clang-format
debhelper lintian debootstrap groff man-db bsdextrautils"
RUNTIME_PKGS="libibverbs1 librdmacm1 ibverbs-providers libjansson4 libssl3 libopenmpi3 openmpi-bin
python3 python3-matplotlib python3-jinja2"
STATE=/var/lib/linkperf/install-deps.services
POLICY=/usr/sbin/policy-rc.d
SUDO=

say() { echo "install-deps: $*"; }

# The named packages not installed here, one line.
missing_of() {
	# shellcheck disable=SC2086
	have=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' $* 2>/dev/null | awk '$2 == "ii" { print $1 }')
	for p in $*; do
		echo "$have" | grep -qx "$p" || printf ' %s' "$p"
	done
}

installed() { dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' | awk '$1 == "ii" { print $2 }' | sort; }

# The services the named packages ship: init scripts and systemd units that can be enabled.
services_of() {
	# shellcheck disable=SC2068
	dpkg -L $@ 2>/dev/null | sed -n -e 's|^/etc/init\.d/\([^/]*\)$|\1|p' \
		-e 's|^/lib/systemd/system/\([^/@]*\)\.\(service\|socket\|timer\)$|\1|p' | sort -u
}

# running NAME: the service runs here: systemd says so, or a program in /usr/sbin of the package
# that ships its init script runs (sshd, munged, slurmd...; a one-shot script's "status" is no
# evidence either way)
running() {
	if [ -d /run/systemd/system ]; then
		systemctl --quiet is-active "$1" 2>/dev/null
		return
	fi
	pkg=$(dpkg -S "/etc/init.d/$1" 2>/dev/null | cut -d: -f1)
	[ -n "$pkg" ] || return 1
	for b in $(dpkg -L "$pkg" | grep '^/usr/sbin/.'); do
		pidof "$b" >/dev/null 2>&1 && return 0
	done
	return 1
}

# services_off ROOT NAME...: each service disabled at boot under ROOT (its rc2-5.d start links
# become stop links, its systemd units are disabled); under / also stopped when running.
services_off() {
	root=${1%/}
	shift
	for s in "$@"; do
		# what update-rc.d NAME disable does (a start link becomes a stop link, which a package
		# upgrade's "update-rc.d NAME defaults" keeps), here under any root
		for l in "$root"/etc/rc[2345].d/S[0-9][0-9]"$s"; do
			[ -L "$l" ] || continue
			k=$(basename "$l")
			$SUDO mv "$l" "$(dirname "$l")/K${k#S}"
		done
		# systemd units: systemctl disable (offline too), and where there is no systemctl the
		# links themselves (wants, aliases); a package upgrade re-enables only what it finds enabled
		for u in "$s.service" "$s.socket" "$s.timer"; do
			[ -e "$root/lib/systemd/system/$u" ] || continue
			if command -v systemctl >/dev/null 2>&1; then
				$SUDO env SYSTEMCTL_SKIP_SYSV=1 systemctl --root="$root/" --quiet disable "$u" 2>/dev/null || true
			fi
			$SUDO find "$root/etc/systemd/system" -type l -lname "*/$u" -delete 2>/dev/null || true
		done
		[ -z "$root" ] || continue
		if running "$s"; then
			$SUDO service "$s" stop >/dev/null 2>&1 || say "could not stop $s"
		fi
	done
}

# services_on ROOT NAME...: those still enabled at boot under ROOT (a start link in rc2-5.d or a
# systemd wants link) or, under /, running; one "NAME: why" line each; exit 1 when any.
services_on() {
	root=${1%/} bad=0
	shift
	for s in "$@"; do
		for l in "$root"/etc/rc[2345].d/S??"$s" "$root"/etc/systemd/system/*.wants/"$s".service \
			"$root"/etc/systemd/system/*.wants/"$s".socket; do
			[ -L "$l" ] || [ -e "$l" ] || continue
			echo "$s: enabled at boot (${l#"$root"})"
			bad=1
		done
		[ -z "$root" ] || continue
		if running "$s"; then
			echo "$s: running"
			bad=1
		fi
	done
	return $bad
}

# While apt installs, nothing starts: a policy-rc.d that refuses every action (invoke-rc.d and
# deb-systemd-invoke ask it), unless the host has its own.
policy_on() {
	[ ! -e "$POLICY" ] || return 0
	printf '#!/bin/sh\n# scripts/install-deps.sh: no service starts while it installs (removed after)\nexit 101\n' |
		$SUDO tee "$POLICY" >/dev/null
	$SUDO chmod 755 "$POLICY"
	POLICY_OURS=1
}
policy_off() {
	[ "${POLICY_OURS:-0}" = 1 ] && $SUDO rm -f "$POLICY"
	POLICY_OURS=0
}

main() {
	pkgs=$DEV_PKGS
	case ${1:-} in
	'') ;;
	--runtime) pkgs=$RUNTIME_PKGS ;;
	-h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "install-deps: unknown option '$1' (--runtime, --help)" >&2; exit 2 ;;
	esac
	missing=$(missing_of $pkgs)
	if [ -z "$missing" ]; then
		say "all packages present"
		exit 0
	fi
	if [ "$(id -u)" != 0 ]; then
		command -v sudo >/dev/null 2>&1 || { echo "install-deps: need root to install:$missing" >&2; exit 1; }
		SUDO=sudo
	fi
	say "installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	before=$(mktemp)
	trap 'policy_off; rm -f "$before"' EXIT
	trap 'exit 130' INT TERM
	installed >"$before"
	policy_on
	rc=0
	$SUDO apt-get update -qq || rc=$?
	# shellcheck disable=SC2086
	[ $rc != 0 ] || $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null || rc=$?
	policy_off
	# every package this run added (dependencies too; also when apt failed half-way): their
	# services go off again
	new=$(installed | comm -13 "$before" -)
	services=$(services_of $new)
	if [ -n "$services" ]; then
		# shellcheck disable=SC2086
		services_off / $services
		$SUDO mkdir -p "$(dirname "$STATE")"
		{ cat "$STATE" 2>/dev/null; echo "$services"; } | sort -u | $SUDO tee "$STATE.new" >/dev/null
		$SUDO mv "$STATE.new" "$STATE"
		say "services of the new packages left disabled and stopped: $(echo $services)"
	fi
	[ $rc = 0 ] || { echo "install-deps: apt-get failed (exit $rc)" >&2; exit 1; }
	say "done"
}

[ "${LP_INSTALL_DEPS_LIB:-0}" = 1 ] || main "$@"
