#!/bin/bash
# tier: quick
# scripts/install-deps.sh starts nothing (issue 25): Debian's maintainer scripts enable the
# services they ship (ssh, munge, slurmctld, slurmd, iwpmd); install-deps turns those of the
# packages it installed off again. Checked three ways, none of them changing this host:
#   fixture  a root under /tmp whose services are enabled the way a postinst does it (update-rc.d
#            defaults: rc2-5.d start links; systemctl enable: a multi-user.target.wants link),
#            from this host's own init scripts and units where present: the check names every
#            one of them (it fails when a link exists), install-deps' services_off turns them
#            off, and the check passes
#   host     install-deps run here (only when every package is present: then it installs
#            nothing and must return at once) enables and starts nothing: the services enabled
#            or running are the same before and after; the services install-deps itself
#            installed (its record, /var/lib/linkperf/install-deps.services) are off and stopped
#   usage    --help, an unknown option (2), the --runtime list is a subset of what the packages
#            need (tests/pkg/test-deb.sh makes its clean root with --runtime and installs the
#            packages there with dpkg alone, which fails on an unmet dependency)
# Exit 0 pass, 1 fail, 77 not Debian (no dpkg).
set -u
cd "$(dirname "$0")/../.."
command -v dpkg-query >/dev/null || { echo "not a Debian system (no dpkg-query)"; exit 77; }
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
lib() { LP_INSTALL_DEPS_LIB=1 sh -c ". scripts/install-deps.sh; set +e; $1" - "${@:2}"; }
T=$(mktemp -d /tmp/lp-deps-XXXXXX)
trap 'rm -rf "$T"' EXIT
daemons="ssh munge slurmctld slurmd"

# --- usage
sh -n scripts/install-deps.sh && ok "sh -n" || bad "syntax"
scripts/install-deps.sh --help | grep -q -- --runtime && ok "--help names --runtime" || bad "--help"
scripts/install-deps.sh --bogus >/dev/null 2>&1
[ $? = 2 ] && ok "an unknown option: exit 2" || bad "an unknown option did not exit 2"

# --- fixture: services enabled as a package's postinst enables them, then turned off
F=$T/root
mkdir -p "$F/etc/init.d" "$F/lib/systemd/system" "$F/etc/systemd/system"
for d in $daemons; do
	if [ -f "/etc/init.d/$d" ]; then
		cp "/etc/init.d/$d" "$F/etc/init.d/$d"
	else
		printf '#!/bin/sh\n### BEGIN INIT INFO\n# Provides: %s\n# Required-Start: $remote_fs\n# Required-Stop: $remote_fs\n# Default-Start: 2 3 4 5\n# Default-Stop: 0 1 6\n# Short-Description: %s\n### END INIT INFO\n' "$d" "$d" >"$F/etc/init.d/$d"
	fi
	if [ -f "/lib/systemd/system/$d.service" ]; then
		cp "/lib/systemd/system/$d.service" "$F/lib/systemd/system/"
	else
		printf '[Unit]\nDescription=%s\n[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n' "$d" >"$F/lib/systemd/system/$d.service"
	fi
	DPKG_ROOT=$F update-rc.d "$d" defaults >/dev/null 2>&1
	if command -v systemctl >/dev/null; then
		SYSTEMCTL_SKIP_SYSV=1 systemctl --root="$F" --quiet enable "$d.service" 2>/dev/null
	else
		mkdir -p "$F/etc/systemd/system/multi-user.target.wants"
		ln -s "/lib/systemd/system/$d.service" "$F/etc/systemd/system/multi-user.target.wants/"
	fi
done
out=$(lib 'services_on "$1" $2' "$F" "$daemons")
rc=$?
named=$(echo "$out" | cut -d: -f1 | sort -u | tr '\n' ' ')
if [ $rc = 1 ] && [ "$named" = "$(echo $daemons | tr ' ' '\n' | sort | tr '\n' ' ')" ] &&
	echo "$out" | grep -q 'rc2.d/S' && echo "$out" | grep -q 'wants/'; then
	ok "fixture: the check fails on enabled services, naming each ($(echo "$out" | wc -l) links)"
else
	bad "fixture: the check did not name every enabled service (exit $rc): $out"
fi
lib 'services_off "$1" $2' "$F" "$daemons"
out=$(lib 'services_on "$1" $2' "$F" "$daemons")
rc=$?
[ $rc = 0 ] && [ -z "$out" ] && ok "fixture: services_off leaves none enabled" || bad "fixture: still enabled: $out"
k=$(ls "$F"/etc/rc2.d/ | tr '\n' ' ')
[ "$(ls "$F"/etc/rc2.d/K??ssh 2>/dev/null)" ] && ok "fixture: start links became stop links (rc2.d: $k)" ||
	bad "fixture: rc2.d holds $k"

# --- host: install-deps enables and starts nothing here
all=$(sed -n '/^DEV_PKGS="/,/"$/p; /^RUNTIME_PKGS="/,/"$/p' scripts/install-deps.sh | tr -d '"' | sed 's/^[A-Z_]*=//')
# shellcheck disable=SC2086
services=$(dpkg -L $all 2>/dev/null | sed -n -e 's|^/etc/init\.d/\([^/]*\)$|\1|p' | sort -u)
if [ "$(id -u)" != 0 ]; then
	echo "SKIP host: not root (install-deps needs root)"
elif [ -n "$(lib 'missing_of $1' "$all")" ]; then
	echo "SKIP host: packages missing ($(lib 'missing_of $1' "$all")): run scripts/install-deps.sh first (this test never installs)"
else
	before=$(lib 'services_on / $1' "$services")
	t0=$(date +%s%N)
	scripts/install-deps.sh >"$T/deps.log" 2>&1
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	after=$(lib 'services_on / $1' "$services")
	[ $rc = 0 ] && grep -q "all packages present" "$T/deps.log" && ok "install-deps with everything present: nothing to do ($ms ms)" ||
		bad "install-deps: exit $rc: $(tail -n 2 "$T/deps.log")"
	[ "$before" = "$after" ] && ok "install-deps enabled and started nothing here (of its packages' services, enabled or running before and after: $(echo "$after" | cut -d: -f1 | sort -u | tr '\n' ' '))" ||
		bad "install-deps changed the services: before: $before; after: $after"
	state=/var/lib/linkperf/install-deps.services
	if [ -s "$state" ]; then
		out=$(lib 'services_on / $1' "$(cat "$state")")
		[ -z "$out" ] && ok "the services install-deps installed are off and stopped: $(echo $(cat "$state"))" ||
			bad "services install-deps installed are on: $out"
	else
		echo "SKIP host: install-deps installed no service here (the packages came before it; the fixture checked the mechanism)"
	fi
fi
if [ -e /usr/sbin/policy-rc.d ] && grep -q 'scripts/install-deps.sh' /usr/sbin/policy-rc.d; then
	bad "install-deps' policy-rc.d was left in place"
else
	ok "no policy-rc.d of install-deps left behind"
fi
exit $fails
