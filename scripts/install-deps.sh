#!/bin/sh
# Installs the Debian 12 packages linkperf needs to build, test and run its guests, and to
# build and test its Debian packages and man pages. Slurm and munge are for the guest fabric's
# real Slurm cluster (scripts/lp-fabric --slurm); their daemons run in the guests, not here.
# Idempotent: packages already present are not fetched again. Run as root (or via sudo).
set -eu

PKGS="build-essential make pkg-config libibverbs-dev librdmacm-dev rdma-core ibverbs-utils
ibverbs-providers rdmacm-utils perftest libcmocka-dev libjansson-dev openmpi-bin libopenmpi-dev
openssh-server openssh-client python3 python3-matplotlib python3-numpy python3-jinja2
python3-prometheus-client python3-jsonschema python3-lxml chromium
slurmctld slurmd slurm-client munge
qemu-system-x86 busybox-static kmod cpio iproute2 procps
clang libclang-rt-14-dev clang-format
debhelper lintian debootstrap groff man-db bsdextrautils"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
	echo "install-deps: all packages present"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
		echo "install-deps: need root to install:$missing" >&2
		exit 1
	fi
else
	SUDO=
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "install-deps: done"
