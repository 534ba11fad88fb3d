#!/bin/bash
# fetch-kernel.sh - fetch Debian's kernel (download only, nothing is installed on the host)
# and pack the soft-RoCE guest's initramfs.
#
# Outputs (all under build/vm/, git-ignored):
#   vmlinuz               the kernel
#   initramfs.cpio.gz     busybox-static + module closure + scripts/vm/init
#   kroot/                the unpacked kernel package (cache)
#   deb/                  the downloaded .deb (cache)
#
# Cached: returns at once when the outputs exist and are newer than init and this script.
# Options: --force (rebuild everything), --quiet.
# Env: LP_VM_KPKG=linux-image-6.1.0-NN-amd64 to pin the versioned image package.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${LP_VM_BUILD:-$top/build/vm}
force=0
quiet=0
for a in "$@"; do
    case $a in
    --force) force=1 ;;
    --quiet) quiet=1 ;;
    -h | --help)
        sed -n '2,13p' "$0"
        exit 0
        ;;
    *)
        echo "fetch-kernel: unknown option: $a" >&2
        exit 2
        ;;
    esac
done

die() {
    echo "fetch-kernel: $*" >&2
    exit 1
}
say() {
    [ "$quiet" = 1 ] || echo "fetch-kernel: $*" >&2
}

# Modules loaded by init, in this order (closure added by modprobe --show-depends).
# crc32_generic must precede rdma_rxe (rxe allocates the "crc32" shash; see the notes).
boot_modules="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci failover
net_failover virtio_net 9pnet 9pnet_virtio netfs fscache 9p overlay dummy crc32_generic ib_core
ib_uverbs ib_umad configfs ib_cm iw_cm rdma_cm rdma_ucm udp_tunnel ip6_udp_tunnel rdma_rxe"
# Shipped in the initramfs for autoload (tc, ifb) via busybox modprobe + modules.dep.
extra_modules="sch_tbf sch_netem sch_htb sch_prio sch_ingress sch_sfq sch_red sch_fq sch_multiq
ifb act_mirred act_gact act_police act_skbedit cls_u32 cls_flower cls_basic cls_matchall cls_fw"

img=$out/vmlinuz
rd=$out/initramfs.cpio.gz
fresh() {
    [ "$force" = 0 ] && [ -s "$img" ] && [ -s "$rd" ] &&
        [ "$rd" -nt "$here/init" ] && [ "$rd" -nt "$here/fetch-kernel.sh" ]
}
fresh && exit 0

for t in apt-get dpkg depmod modprobe cpio gzip; do
    command -v "$t" >/dev/null 2>&1 || die "missing tool: $t (apt-get install kmod cpio dpkg apt)"
done
bb=/bin/busybox
[ -x "$bb" ] || bb=$(command -v busybox 2>/dev/null || true)
# ldd succeeds only on a dynamic executable
if [ -z "$bb" ] || LC_ALL=C ldd "$bb" >/dev/null 2>&1; then
    die "need a static busybox: apt-get install busybox-static"
fi

mkdir -p "$out"
exec 9>"$out/.fetch.lock"
if command -v flock >/dev/null 2>&1; then
    flock -w 600 9 || die "timed out waiting for another fetch-kernel.sh ($out/.fetch.lock)"
fi
fresh && exit 0 # another run built it while we waited

# 1. the kernel package: linux-image-amd64 is a meta package; take its versioned dependency.
kroot=$out/kroot
if [ "$force" = 1 ] || ! ls "$kroot"/boot/vmlinuz-* >/dev/null 2>&1; then
    pkg=${LP_VM_KPKG:-}
    if [ -z "$pkg" ]; then
        pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
            sed -n 's/^ *Depends: *\(linux-image-[0-9][^ ]*\).*/\1/p' | head -n1)
        if [ -z "$pkg" ]; then
            say "apt-cache knows no linux-image-amd64; running apt-get update"
            apt-get update -qq >"$out/apt-update.log" 2>&1 ||
                die "apt-get update failed (see $out/apt-update.log)"
            pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
                sed -n 's/^ *Depends: *\(linux-image-[0-9][^ ]*\).*/\1/p' | head -n1)
        fi
        [ -n "$pkg" ] || die "cannot resolve linux-image-amd64 to a versioned image package"
    fi
    rm -rf "$out/deb"
    mkdir -p "$out/deb"
    say "downloading $pkg"
    if ! (cd "$out/deb" && apt-get download -q "$pkg") >"$out/apt-download.log" 2>&1; then
        say "apt-get download failed once; running apt-get update and retrying"
        apt-get update -qq >"$out/apt-update.log" 2>&1 ||
            die "apt-get update failed (see $out/apt-update.log)"
        (cd "$out/deb" && apt-get download -q "$pkg") >"$out/apt-download.log" 2>&1 ||
            die "apt-get download $pkg failed: $(tail -n1 "$out/apt-download.log")"
    fi
    deb=$(find "$out/deb" -name '*.deb' | head -n1)
    [ -n "$deb" ] || die "apt-get download $pkg produced no .deb"
    say "unpacking $(basename "$deb")"
    rm -rf "$kroot"
    mkdir -p "$kroot"
    dpkg -x "$deb" "$kroot" || die "dpkg -x $deb failed"
fi
vmlinuz=$(find "$kroot/boot" -name 'vmlinuz-*' 2>/dev/null | head -n1)
[ -n "$vmlinuz" ] || die "no vmlinuz in $kroot/boot"
kver=${vmlinuz##*/vmlinuz-}
[ -d "$kroot/lib/modules/$kver" ] || die "no modules for $kver in $kroot/lib/modules"
[ -s "$kroot/lib/modules/$kver/modules.dep" ] || depmod -b "$kroot" "$kver" ||
    die "depmod -b $kroot $kver failed"

# 2. module closure, in load order. --show-depends prints "insmod /path/x.ko [opts]"
# for each module and its dependencies (dependencies first) and "builtin x" for built-ins.
closure() { # $1 = module; prints paths relative to lib/modules/$kver
    modprobe -d "$kroot" -S "$kver" --show-depends "$1" 2>/dev/null |
        sed -n "s|^insmod $kroot/lib/modules/$kver/\([^ ]*\).*|\1|p"
}
stage=$out/initrd.stage
rm -rf "$stage"
mkdir -p "$stage"/bin "$stage"/sbin "$stage"/etc "$stage"/proc "$stage"/sys "$stage"/dev \
    "$stage"/lower "$stage"/upper "$stage"/newroot "$stage"/tmp "$stage/lib/modules/$kver"
mdir=$stage/lib/modules/$kver
: >"$stage/etc/lp-modules"
seen=" "
for m in $boot_modules; do
    list=$(closure "$m")
    if [ -z "$list" ]; then
        if modprobe -d "$kroot" -S "$kver" --show-depends "$m" 2>/dev/null | grep -q '^builtin'; then
            continue
        fi
        die "module $m not found for $kver"
    fi
    for p in $list; do
        case $seen in *" $p "*) continue ;; esac
        seen="$seen$p "
        opts=
        case $p in */dummy.ko*) opts="numdummies=0" ;; esac
        echo "$p $opts" >>"$stage/etc/lp-modules"
    done
done
for m in $extra_modules; do
    list=$(closure "$m")
    [ -n "$list" ] || { say "note: no module $m (built in or absent), skipped"; continue; }
    for p in $list; do seen="$seen$p "; done
done
for p in $(cd "$kroot/lib/modules/$kver" && ls kernel/net/sched/em_*.ko* 2>/dev/null); do
    for q in $(closure "$(basename "${p%%.ko*}")"); do seen="$seen$q "; done
done
n=0
for p in $seen; do
    mkdir -p "$mdir/$(dirname "$p")"
    cp "$kroot/lib/modules/$kver/$p" "$mdir/$p"
    case $p in
    *.ko.xz) xz -d "$mdir/$p" || die "xz -d $p failed" ;;
    *.ko.zst) zstd -q -d --rm "$mdir/$p" || die "zstd -d $p failed" ;;
    *.ko.gz) gzip -d "$mdir/$p" || die "gzip -d $p failed" ;;
    esac
    n=$((n + 1))
done
sed -i 's/\.ko\.\(xz\|zst\|gz\) /.ko /' "$stage/etc/lp-modules"
for f in modules.order modules.builtin modules.builtin.modinfo; do
    [ -f "$kroot/lib/modules/$kver/$f" ] && cp "$kroot/lib/modules/$kver/$f" "$mdir/"
done
depmod -b "$stage" "$kver" || die "depmod -b $stage $kver failed"
echo "$kver" >"$stage/etc/lp-kver"
# autoloaded by "ip link add X type dummy|ifb": create no default devices, so that the
# usual "ip link add ifb0 type ifb" does not fail with "File exists"
mkdir -p "$stage/etc/modprobe.d"
printf 'options dummy numdummies=0\noptions ifb numifbs=0\n' >"$stage/etc/modprobe.d/lp.conf"

# 3. busybox + init
cp "$bb" "$stage/bin/busybox"
for app in $("$bb" --list); do
    case $app in busybox) continue ;; esac
    ln -sf busybox "$stage/bin/$app"
done
ln -sf ../bin/busybox "$stage/sbin/modprobe"
ln -sf ../bin/busybox "$stage/sbin/insmod"
cp "$here/init" "$stage/init"
chmod 755 "$stage/init"

# 4. pack (write to a temporary file first so that an interrupted run leaves no half output)
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) | gzip -9 >"$rd.tmp" ||
    die "packing the initramfs failed"
cp "$vmlinuz" "$img.tmp"
mv "$img.tmp" "$img"
mv "$rd.tmp" "$rd"
rm -rf "$stage"
say "kernel $kver, $n modules, initramfs $(du -k "$rd" | cut -f1) KiB -> $rd"
