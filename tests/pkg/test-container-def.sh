#!/bin/bash
# tier: quick
# containers/linkperf.def, checked as far as this machine allows: Debian 12 ships neither
# apptainer nor singularity (apt-cache search), so apptainer build cannot run here. When one is
# installed, its build runs instead. Otherwise tests/pkg/defcheck.py checks the header, the
# sections, their shell syntax and that %post installs the .debs %files brings in; it is shown
# to fail on four broken copies. (test-deb.sh runs the %post itself in a clean Debian root.)
# Also: the README shows the srun + apptainer exec line. Exit 0 pass, 1 fail.
set -u
cd "$(dirname "$0")/../.."
def=containers/linkperf.def
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { python3 tests/pkg/defcheck.py "$1"; }

if check "$def"; then echo "ok   $def: header, sections, shell syntax, .debs installed by %post"; else fail=1; fi
for a in apptainer singularity; do
	command -v $a >/dev/null && echo "note: $a is installed; build: mkdir -p debs && cp ../linkperf*_*.deb debs/ && rm -f debs/*dbgsym* && $a build linkperf.sif $def"
done
# (lines continued with a backslash joined first)
sed -e ':a' -e '/\\$/{N;s/\\\n//;ba' -e '}' README.md | grep -qE 'srun .*apptainer exec .*--nv .*lp-sweep' &&
	echo "ok   README shows srun ... apptainer exec ... lp-sweep" || { echo "FAIL README: no srun ... apptainer exec ... lp-sweep line"; fail=1; }

# faults the check must catch
fault() { # name sed-expression
	sed -e "$2" "$def" >"$tmp/bad.def"
	if out=$(check "$tmp/bad.def"); then
		echo "FAIL fault not caught: $1"; fail=1
	else
		echo "ok   fault caught: $1: $(echo "$out" | head -n 1 | sed "s/^[^:]*: //")"
	fi
}
fault "no Bootstrap line" '/^Bootstrap:/d'
fault "misspelt section" 's/^%post/%pots/'
fault "%files copies the .debs elsewhere" 's|^\(    debs\) /opt/linkperf-debs|\1 /opt/other|'
fault "shell syntax error in %post" 's/^\(    export DEBIAN_FRONTEND=noninteractive\)$/\1 "/'
exit $fail
