#!/bin/bash
# tier: slow
# The Debian packages: dpkg-buildpackage -us -uc -b builds linkperf, linkperf-common,
# linkperf-plots and (with CUDA) linkperf-gpu from a copy of the tree; lintian reports no error;
# lp-gpu needs no CUDA library (static cudart, dlopen'ed driver). They install with dpkg alone
# into a clean Debian 12 root made by scripts/install-deps.sh --runtime (debootstrap, cached under
# build/pkg-cache; each run writes to an overlay on it) where lp-rdma --version/--help and man
# lp-rdma run, and lp-sweep's --diagnose, --expect auto (the profiles of linkperf-common) and
# --baseline work on recorded runs (a root without the profiles fails);
# then the Soft-RoCE demo runs the installed lp-rdma inside that root, in a guest (scripts/lp-vm);
# then containers/linkperf.def's %post and %test run in another clean root; last, install-deps
# installs openssh-server and munge in a third and leaves neither enabled nor running.
# Without CUDA the build uses the profile nocuda (no linkperf-gpu).
# Env: LP_PKG_KEEP=1 keeps the work dir (build/pkg). Exit 0 pass, 1 fail, 77 tools missing.
set -u
cd "$(dirname "$0")/../.."
top=$PWD
t0=$(date +%s)
for c in dpkg-buildpackage dh lintian; do
	command -v $c >/dev/null || { echo "$c not installed (scripts/install-deps.sh installs the packaging tools)"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "needs root (chroot and dpkg into a clean root)"; exit 77; }
clean=$(tests/pkg/chroot-cache.sh) || exit $?

work=$top/build/pkg
unmount_all() {
	for m in root/proc root/dev croot/proc croot/sys droot/proc root croot droot; do
		mountpoint -q "$work/$m" && umount -l "$work/$m"
	done
}
unmount_all
rm -rf --one-file-system "$work"
mkdir -p "$work/src"
root=$work/root fail=0
cleanup() {
	unmount_all
	[ -n "${LP_PKG_KEEP:-}" ] || rm -rf --one-file-system "$work"
}
trap cleanup EXIT
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
lap() { echo "     ($1: $(($(date +%s) - t0)) s so far)"; }
fresh_root() { # DIR: a clean root at DIR, an overlay on the cached one (writes go to DIR.upper)
	mkdir -p "$1" "$1.upper" "$1.work"
	mount -t overlay overlay -o "lowerdir=$clean,upperdir=$1.upper,workdir=$1.work" "$1"
}

# --- build, from a copy of the tracked and new files (not a checkout: the version is VERSION's)
git ls-files -co --exclude-standard | grep -v '^build/' | tar -cf - -T - | tar -C "$work/src" -xf -
profile=
[ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] || profile=nocuda
echo "dpkg-buildpackage -us -uc -b${profile:+ with DEB_BUILD_PROFILES=$profile}"
(cd "$work/src" && DEB_BUILD_PROFILES=$profile DEB_BUILD_OPTIONS="nocheck parallel=2" \
	dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1 ||
	{ tail -n 30 "$work/build.log"; echo "FAIL: dpkg-buildpackage (log above)"; exit 1; }
debs=$(cd "$work" && ls *.deb)
echo "built: $(echo $debs)"
lap build
want="linkperf linkperf-common linkperf-plots"
[ -z "$profile" ] && want="$want linkperf-gpu"
for p in $want; do
	ls "$work/${p}_"*.deb >/dev/null 2>&1 && ok "package $p built" || bad "package $p not built"
done

# --- lintian: no error; warnings are shown. Shown to catch a package without its copyright file.
lint_errors() { lintian --tag-display-limit 0 "$@" 2>&1 | grep -E '^[EW]: ' | tee "$work/lintian.log" | grep '^E: '; }
errs=$(lint_errors "$work"/*.deb)
sed 's/^/     lintian /' "$work/lintian.log"
[ -n "$errs" ] && bad "lintian reports errors" || ok "lintian: no errors ($(grep -c '^W: ' "$work/lintian.log") warnings)"
mkdir -p "$work/fault"
dpkg-deb -R "$work"/linkperf_*_amd64.deb "$work/fault/tree"
rm "$work/fault/tree/usr/share/doc/linkperf/copyright"
sed -i '/copyright/d' "$work/fault/tree/DEBIAN/md5sums"
dpkg-deb -b "$work/fault/tree" "$work/fault/linkperf.deb" >/dev/null
errs=$(lint_errors "$work/fault/linkperf.deb")
[ -n "$errs" ] && ok "fault: lintian reports an error for a package without copyright: ${errs%%$'\n'*}" ||
	bad "fault: lintian took a package without copyright"

# --- lp-gpu links no CUDA library and its package depends on none (shown to catch libcudart)
cuda_free() { ! echo "$*" | grep -qiE 'cuda|nvidia'; }
if [ -z "$profile" ]; then
	dpkg-deb -x "$work"/linkperf-gpu_*.deb "$work/gpu"
	needed=$(readelf -d "$work/gpu/usr/bin/lp-gpu" | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | tr '\n' ' ')
	deps=$(dpkg-deb -f "$work"/linkperf-gpu_*.deb Depends)
	cuda_free "$needed $deps" && ok "lp-gpu NEEDED: $needed; Depends: $deps" ||
		bad "linkperf-gpu needs CUDA: NEEDED $needed; Depends $deps"
	cuda_free "$needed libcudart.so.13" && bad "fault: libcudart not caught" || ok "fault: a NEEDED libcudart is caught"
fi

# --- a clean Debian 12 root: install with dpkg alone (an unmet Depends fails), run the tools
fresh_root "$root" || { echo "FAIL: overlay mount on $clean"; exit 1; }
mkdir -p "$root/tmp/debs"
debs=$(cd "$work" && ls *.deb | grep -v dbgsym)
(cd "$work" && cp $debs "$root/tmp/debs/")
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
if in_root sh -c 'dpkg -i /tmp/debs/*.deb' >"$work/dpkg.log" 2>&1; then
	ok "dpkg -i $(echo $debs) into a clean root"
else
	tail -n 15 "$work/dpkg.log"; bad "dpkg -i into the clean root"
fi
version=$(cat VERSION)
got=$(in_root lp-rdma --version 2>&1)
[ "$got" = "lp-rdma $version" ] && ok "in the root: $got" || bad "lp-rdma --version: '$got'"
n=$(in_root lp-rdma --help 2>&1 | grep -c -- '--')
[ "$n" -gt 20 ] && ok "in the root: lp-rdma --help lists $n options" || bad "lp-rdma --help: $n option lines"
in_root sh -c 'MANWIDTH=80 man --warnings lp-rdma' >"$work/man.txt" 2>"$work/man.err"
if grep -q '^NAME' "$work/man.txt" && grep -q -- '--port' "$work/man.txt" && ! [ -s "$work/man.err" ]; then
	ok "in the root: man lp-rdma ($(wc -l <"$work/man.txt") lines, no warnings)"
else
	bad "man lp-rdma in the root: $(head -c 300 "$work/man.err")"
fi
got=$(in_root lp-plot --version 2>&1)
[ "$got" = "lp-plot $version" ] && ok "in the root: $got" || bad "lp-plot --version: '$got'"
if [ -z "$profile" ]; then
	in_root ldd /usr/bin/lp-gpu | grep -q 'not found' && bad "lp-gpu: a library not found in the root"
	in_root lp-gpu >/dev/null 2>"$work/gpu.err"
	rc=$?
	[ $rc = 77 ] && ok "in the root (no CUDA packages): lp-gpu exits 77: $(head -n 1 "$work/gpu.err")" ||
		bad "lp-gpu in the root without a driver: exit $rc"
fi
lap "install and run in the root"

# --- every feature in the installed packages (jansson: --diagnose, --expect, --baseline), and
# the profiles where every tool that reads them finds them (linkperf-common, which linkperf and
# linkperf-gpu both depend on); shown to catch a root without the profiles
data=$root/tmp/data
mkdir -p "$data"
cp tests/sweep/data/fabric4-healthy.json tests/sweep/data/fabric4-throttle.json "$data/"
python3 - "$data/fabric4-healthy.json" "$data/roce100.json" <<'PY'
import json, sys  # the healthy fabric run as if its ports were 100 GbE RoCE (mlx5): roce-100g applies
d = json.load(open(sys.argv[1]))
for n in d["nodes"]:
    n["device"], n["rate_gbps"] = "mlx5_0", 100
json.dump(d, open(sys.argv[2], "w"))
PY
feature() { # name want_rc check -- lp-sweep args: runs lp-sweep in the root, checks its JSON
	local name=$1 want=$2 check=$3 rc
	shift 4
	in_root lp-sweep "$@" --json "/tmp/data/$name.json" --quiet 2>"$work/$name.err"
	rc=$?
	if [ $rc = "$want" ] && python3 -c "import json, sys; sys.path.insert(0, 'plots'); from lpdoc import columns; d = json.load(open(sys.argv[1])); $check" "$data/$name.json" 2>>"$work/$name.err"; then
		ok "in the root: lp-sweep $* (exit $rc)"
	else
		bad "in the root: lp-sweep $*: exit $rc, want $want: $(tail -n 2 "$work/$name.err")"
	fi
}
# (linkperf.sweep/2: a verdict names its nodes by index; the qualification's cells are columns)
feature diagnose 1 'assert [d["nodes"][v["a"]]["name"] for v in d["verdicts"] if v["kind"] == "node_slow"] == ["lpnode2"], d["verdicts"]' \
	-- --diagnose /tmp/data/fabric4-throttle.json
feature expect 1 'q = d["qualification"]; assert q["profiles"] == "roce-100g" and q["fail"] == len(columns(q["cells"])) > 0, q' \
	-- --diagnose /tmp/data/roce100.json --expect auto
feature baseline 1 'r = [c for _, c in columns(d["qualification"]["cells"]) if c.get("change") == "regression"]; assert r and all(c["pair"].startswith("lpnode2>") for c in r), r' \
	-- --diagnose /tmp/data/fabric4-throttle.json --baseline /tmp/data/fabric4-healthy.json
owner=$(in_root dpkg -S /usr/share/linkperf/profiles/roce-100g.json 2>&1)
[ "${owner%%:*}" = linkperf-common ] && ok "the profiles ship in linkperf-common" || bad "profiles owned by: $owner"
for p in linkperf linkperf-gpu; do
	if ls "$work/${p}_"*.deb >/dev/null 2>&1; then
		dep=$(dpkg-deb -f "$work/${p}_"*.deb Depends)
	else # not built here (no CUDA): its declaration
		dep=$(sed -n "/^Package: $p\$/,/^\$/p" debian/control | grep '^Depends:')
	fi
	echo "$dep" | grep -q 'linkperf-common (= ' && ok "$p depends on linkperf-common" || bad "$p does not depend on linkperf-common: $dep"
done
mv "$root/usr/share/linkperf/profiles" "$root/tmp/profiles.aside"
rm -f "$data/noprof.json"
in_root lp-sweep --diagnose /tmp/data/roce100.json --expect auto --json /tmp/data/noprof.json --quiet >/dev/null 2>"$work/noprof.err"
rc=$?
mv "$root/tmp/profiles.aside" "$root/usr/share/linkperf/profiles"
if [ $rc != 0 ] && grep -q 'no profile directory' "$work/noprof.err" && ! grep -q roce-100g "$data/noprof.json" 2>/dev/null; then
	ok "fault: without the profiles --expect auto fails (exit $rc: $(head -n 1 "$work/noprof.err"))"
else
	bad "fault: --expect auto without the profiles: exit $rc: $(head -n 1 "$work/noprof.err")"
fi
# install-deps --runtime (which made this root) left no service of its own enabled
state=$root/var/lib/linkperf/install-deps.services
if [ -s "$state" ]; then
	on=$(LP_INSTALL_DEPS_LIB=1 sh -c '. scripts/install-deps.sh; services_on "$1" $(cat "$2")' - "$root" "$state")
	[ -z "$on" ] && ok "install-deps --runtime left its services disabled: $(echo $(cat "$state"))" || bad "enabled in the root: $on"
else
	ok "install-deps --runtime installed no service in the root"
fi
lap "features in the root"

# --- the Soft-RoCE demo with the installed lp-rdma, in its root, inside a guest
demo_ok() { # JSON VERSION: that version, rxe0, every test at 2 and 4096 B, verified
	python3 - "$@" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["method"]["linkperf_version"] == sys.argv[2], d["method"]
assert d["local_device"]["device"] == "rxe0", d["local_device"]
got = sorted((r["test"], r["size"]) for r in d["results"] if r["status"] == "ok" and r["verified"]["ok"])
want = sorted((t, s) for t in ("write_lat", "send_lat", "write_bw", "read_bw") for s in (2, 4096))
assert got == want, got
PY
}
if ! command -v qemu-system-x86_64 >/dev/null; then
	echo "SKIP demo in the guest: qemu-system-x86_64 not installed"
else
	umount -l "$root/proc" "$root/dev"
	mkdir -p "$work/out"
	json=$work/out/demo.json
	r="chroot $root /usr/bin/lp-rdma"
	scripts/lp-vm --rw "$work/out" --timeout 300 "mount -t proc proc $root/proc && \
		mount -t sysfs sysfs $root/sys && mount --bind /dev $root/dev && mount --bind $work/out $root/mnt && \
		{ $r --server --once -p 18620 >/dev/null & } && \
		$r \$LP_VM_IP -p 18620 --wait 10 -t write_lat,send_lat,write_bw,read_bw -s 2,4K -n 200 --verify \
		--json /mnt/demo.json" >"$work/demo.log" 2>&1
	rc=$?
	if [ $rc = 0 ] && demo_ok "$json" "$version"; then
		ok "demo in the guest: the installed lp-rdma ran write_lat,send_lat,write_bw,read_bw verified over rxe0"
		python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["results"].pop()
json.dump(d, open(sys.argv[2], "w"))' "$json" "$work/out/fault.json"
		demo_ok "$work/out/fault.json" "$version" 2>/dev/null && bad "fault: a lost result not caught" ||
			ok "fault: the check catches a lost result"
		demo_ok "$json" "0.0.0" 2>/dev/null && bad "fault: another version not caught" ||
			ok "fault: the check catches another version"
	else
		tail -n 20 "$work/demo.log"; bad "demo in the guest (exit $rc)"
	fi
fi
lap "demo in the guest"

# --- containers/linkperf.def: its %post and %test, in a second clean root (apptainer is not in
# Debian 12; this runs what apptainer build would, against Debian's mirror)
croot=$work/croot
fresh_root "$croot" || { echo "FAIL: overlay mount on $clean"; exit 1; }
mkdir -p "$croot/opt/linkperf-debs"
(cd "$work" && cp $debs "$croot/opt/linkperf-debs/")
cp /etc/resolv.conf "$croot/etc/resolv.conf"
mount -t proc proc "$croot/proc"
mount -t sysfs sysfs "$croot/sys"
def=containers/linkperf.def
if ! chroot "$croot" sh -c 'apt-get update -qq' >"$work/post.log" 2>&1; then
	echo "SKIP the container's %post: the Debian mirror is not reachable ($(tail -n 1 "$work/post.log"))"
elif chroot "$croot" sh -c "$(tests/pkg/defcheck.py "$def" post)" >>"$work/post.log" 2>&1 &&
	chroot "$croot" sh -c "$(tests/pkg/defcheck.py "$def" test)" >"$work/ctest.log" 2>&1; then
	ok "the container's %post installs the packages with rdma-core; %test: $(grep '^lp-' "$work/ctest.log" | tr '\n' ' ')"
else
	tail -n 15 "$work/post.log" "$work/ctest.log" 2>/dev/null; bad "the container's %post or %test"
fi
umount -l "$croot/proc" "$croot/sys"
lap "the container's %post"

# --- install-deps' daemon path for real, in a third clean root: apt installs openssh-server and
# munge (whose postinst scripts enable ssh and munge) under install-deps' policy-rc.d, then
# install-deps turns them off: no start link, no wants link, no process, its record names them
droot=$work/droot
fresh_root "$droot" || { echo "FAIL: overlay mount on $clean"; exit 1; }
cp /etc/resolv.conf "$droot/etc/resolv.conf"
cp scripts/install-deps.sh "$droot/tmp/"
mount -t proc proc "$droot/proc"
if ! chroot "$droot" sh -c 'apt-get update -qq' >"$work/deps.log" 2>&1; then
	echo "SKIP install-deps' daemon path: the Debian mirror is not reachable ($(tail -n 1 "$work/deps.log"))"
elif chroot "$droot" sh -c 'LP_INSTALL_DEPS_LIB=1 . /tmp/install-deps.sh; DEV_PKGS="openssh-server munge"; main' \
	>>"$work/deps.log" 2>&1; then
	state=$droot/var/lib/linkperf/install-deps.services
	on=$(LP_INSTALL_DEPS_LIB=1 sh -c '. scripts/install-deps.sh; set +e; services_on "$1" ssh munge' - "$droot")
	procs=$(for p in /proc/[0-9]*; do readlink "$p/exe" 2>/dev/null; done | grep "^$droot/" || true)
	if grep -qx ssh "$state" && grep -qx munge "$state" && [ -z "$on" ] && [ -z "$procs" ] &&
		ls "$droot"/etc/rc2.d/K??ssh >/dev/null 2>&1 && [ ! -e "$droot/usr/sbin/policy-rc.d" ]; then
		ok "install-deps in a clean root: ssh and munge installed, left disabled (rc2.d: $(ls "$droot/etc/rc2.d" | tr '\n' ' ')), none running; $(grep '^install-deps: services' "$work/deps.log")"
	else
		tail -n 5 "$work/deps.log"; bad "install-deps' daemon path: enabled: $on; running: $procs; record: $(cat "$state" 2>/dev/null)"
	fi
else
	tail -n 15 "$work/deps.log"; bad "install-deps in a clean root"
fi
umount -l "$droot/proc"
lap total
exit $fail
