#!/bin/bash
# Prints the path of a cached clean Debian 12 root (a directory, made once, then reused read-only
# as the lower layer of an overlay per test run, so no run copies or deletes it): debootstrap
# minbase with man-db, then `scripts/install-deps.sh --runtime` run inside it (apt, whose
# resolver leaves Recommends out): the runtime the packages depend on, so that they install with
# dpkg alone -- an unmet dependency fails, which shows --runtime installs enough -- and no run
# downloads.
# Env: LP_PKG_CACHE (default build/pkg-cache), LP_DEBIAN_MIRROR (default http://deb.debian.org/debian).
# Exit: 0 (path on stdout) · 1 debootstrap or apt failed · 77 no debootstrap or not root.
set -eu
cd "$(dirname "$0")/../.."
cache=${LP_PKG_CACHE:-build/pkg-cache}
mirror=${LP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
include=man-db
key=$(sed -n '/^RUNTIME_PKGS="/,/"$/p' scripts/install-deps.sh | md5sum | cut -c1-8) # the --runtime list
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
cp scripts/install-deps.sh "$dir/tmp/install-deps.sh"
if ! chroot "$dir" sh -c "sh /tmp/install-deps.sh --runtime && apt-get clean" >>"$log" 2>&1; then
	tail -n 5 "$log" >&2
	echo "install-deps.sh --runtime in the new root failed (log: $log)" >&2
	exit 1
fi
rm -f "$dir/tmp/install-deps.sh"
[ ! -e "$dir/usr/sbin/policy-rc.d" ] || { echo "install-deps.sh left its policy-rc.d in the root" >&2; exit 1; }
umount -l "$dir/proc"
rm -rf "$dir"/var/lib/apt/lists/*
chmod 755 "$dir"
# the roots of other --runtime lists are not used again
for old in "$cache"/bookworm-*; do
	[ -d "$old" ] && rm -rf --one-file-system "$old"
done
mv "$dir" "$root"
echo "chroot-cache: made in $(($(date +%s) - t0)) s ($(du -sh "$root" | cut -f1))" >&2
rm -f "$log"
echo "$root"
