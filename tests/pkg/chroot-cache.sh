#!/bin/bash
# Prints the path of a cached Debian 12 root (a tarball made by debootstrap once, then reused):
# minbase plus man-db and the runtime libraries the linkperf packages depend on, so that the
# packages install with dpkg alone (an unmet dependency fails) and no test run downloads again.
# Env: LP_PKG_CACHE (default build/pkg-cache), LP_DEBIAN_MIRROR (default http://deb.debian.org/debian).
# Exit: 0 (path on stdout) · 1 debootstrap failed · 77 no debootstrap or not root.
set -eu
cd "$(dirname "$0")/../.."
cache=${LP_PKG_CACHE:-build/pkg-cache}
mirror=${LP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# What the packages' Depends/Recommends name at runtime, and man for `man lp-rdma`.
include=man-db,libibverbs1,librdmacm1,ibverbs-providers,libopenmpi3,openmpi-bin,python3,python3-matplotlib
key=$(echo "bookworm $include" | md5sum | cut -c1-8)
tarball=$cache/bookworm-$key.tar.gz
if [ ! -s "$tarball" ]; then
	command -v debootstrap >/dev/null || { echo "debootstrap not installed (apt-get install debootstrap)"; exit 77; }
	[ "$(id -u)" = 0 ] || { echo "debootstrap needs root"; exit 77; }
	mkdir -p "$cache"
	dir=$(mktemp -d "$cache/root.XXXXXX")
	echo "chroot-cache: debootstrap bookworm into $dir (once; cached as $tarball)" >&2
	if ! debootstrap --variant=minbase --include="$include" bookworm "$dir" "$mirror" >"$dir.log" 2>&1; then
		tail -n 5 "$dir.log" >&2
		rm -rf "$dir"
		echo "debootstrap failed (log: $dir.log)" >&2
		exit 1
	fi
	tar -C "$dir" -czf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
	rm -rf "$dir" "$dir.log"
fi
echo "$tarball"
