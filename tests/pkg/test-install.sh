#!/bin/bash
# tier: quick
# make install DESTDIR=... PREFIX=... lays out a working tree: the tools run from it and print
# the build's version (lp-plot finds it in PREFIX/share/linkperf, not in the source tree), man
# finds the pages through the tree, bash completion loads; make uninstall removes every file.
# Shown to fail when the data file lp-plot reads is missing.
# Env: LP_BUILD (default build). Exit 0 pass, 1 fail.
set -u
cd "$(dirname "$0")/../.."
B=${LP_BUILD:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root prefix=/opt/linkperf fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }

version=$(make -s BUILD="$B" version)
make -s BUILD="$B" install DESTDIR="$root" PREFIX="$prefix" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; echo "FAIL: make install"; exit 1; }
top=$root$prefix
progs=$(cd "$top/bin" && ls)
echo "installed: $(echo $progs) ($(find "$root" -type f | wc -l) files)"
for p in lp-rdma lp-plot; do
	[ -x "$top/bin/$p" ] || bad "$p not installed"
done
# the source tree must not be needed: run the installed copies from elsewhere
for p in $progs; do
	got=$(cd / && "$top/bin/$p" --version 2>&1)
	[ "$got" = "$p $version" ] && ok "$p --version: $got" || bad "$p --version: '$got', want '$p $version'"
	MANWIDTH=80 man --warnings -M "$top/share/man" "$p" 2>&1 >/dev/null | grep -q . &&
		bad "man $p: warnings or not found" || ok "man -M ... $p renders"
	bash -c "source '$top/share/bash-completion/completions/$p' && complete -p $p" >/dev/null 2>&1 &&
		ok "completion for $p loads" || bad "completion for $p does not load"
done
[ -f "$top/share/doc/linkperf/docs/METHOD.md" ] && ok "docs installed" || bad "docs/METHOD.md not installed"

# fault: without its data file lp-plot cannot know the build's version
mv "$top/share/linkperf/version" "$tmp/version"
got=$(cd / && "$top/bin/lp-plot" --version)
[ "$got" != "lp-plot $version" ] && ok "fault: without share/linkperf/version lp-plot says '$got'" ||
	bad "fault: lp-plot printed the version without its data file"
mv "$tmp/version" "$top/share/linkperf/version"

make -s BUILD="$B" uninstall DESTDIR="$root" PREFIX="$prefix" >/dev/null 2>&1
left=$(find "$root" -type f)
[ -z "$left" ] && ok "make uninstall removed every file" || bad "left after uninstall: $left"
exit $fail
