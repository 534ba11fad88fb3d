#!/bin/bash
# Prints the path of a cached clean Debian 12 root (a directory, made once, then reused read-only
# as the lower layer of an overlay per test run, so no run copies or deletes it): debootstrap
# minbase with man-db and rdma-core's libraries, then apt (whose resolver, unlike debootstrap's,
# leaves Recommends out) adds Open MPI, python3-matplotlib and python3-jinja2: the runtime the packages
# depend on, so that they install with dpkg alone (an unmet dependency fails) and no run downloads.
# Env: LP_PKG_CACHE (default build/pkg-cache), LP_DEBIAN_MIRROR (default http://deb.debian.org/debian).
# Exit: 0 (path on stdout) · 1 debootstrap or apt failed · 77 no debootstrap or not root.
set -eu
cd "$(dirname "$0")/../.."
cache=${LP_PKG_CACHE:-build/pkg-cache}
mirror=${LP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
include=man-db,libibverbs1,librdmacm1,ibverbs-providers
apt_pkgs="libopenmpi3 openmpi-bin python3 python3-matplotlib python3-jinja2"
key=$(echo "bookworm $include $apt_pkgs" | md5sum | cut -c1-8)
root=$cache/bookworm-$key
[ -d "$root" ] && { echo "$root"; exit 0; }

command -v debootstrap >/dev/null || { echo "debootstrap not installed (apt-get install debootstrap)"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "debootstrap needs root"; exit 77; }
mkdir -p "$cache"
dir=$(mktemp -d "$cache/root.XXXXXX")
log=$dir.log
trap 'mountpoint -q "$dir/proc" && umount -l "$dir/proc"; rm -rf --one-file-system "$dir"' EXIT
echo "chroot-cache: debootstrap bookworm into $dir (once; cached as $root)" >&2
t0=$(date +%s)
if ! debootstrap --variant=minbase --include="$include" bookworm "$dir" "$mirror" >"$log" 2>&1; then
	tail -n 5 "$log" >&2
	echo "debootstrap failed (log: $log)" >&2
	exit 1
fi
cp /etc/resolv.conf "$dir/etc/resolv.conf"
mount -t proc proc "$dir/proc"
if ! chroot "$dir" sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	apt-get install -y -qq --no-install-recommends $apt_pkgs && apt-get clean" >>"$log" 2>&1; then
	tail -n 5 "$log" >&2
	echo "apt-get in the new root failed (log: $log)" >&2
	exit 1
fi
umount -l "$dir/proc"
rm -rf "$dir"/var/lib/apt/lists/*
chmod 755 "$dir"
mv "$dir" "$root"
echo "chroot-cache: made in $(($(date +%s) - t0)) s ($(du -sh "$root" | cut -f1))" >&2
rm -f "$log"
echo "$root"
