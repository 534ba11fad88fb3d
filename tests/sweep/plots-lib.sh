# shellcheck shell=bash
# What the tests of plots/ share (sourced by test-plots, test-report, test-agree, test-scale):
#   plots_setup NAME [needs...]   cd to the tree, PY (Debian's python3), B (the build), out (a
#                                 temporary directory removed on exit), fails = 0; exit 77 with
#                                 the reason when a need is missing: a Python module (matplotlib,
#                                 jinja2, lxml), chromium, or a program of the build (lp-sweep,
#                                 lp-judge)
#   ok TEXT / bad TEXT            one result line; bad counts a failure
#   check ARGS                    tests/sweep/report_check.py ARGS
#   finish                        exit 0, or 1 after any bad
plots_setup() {
	local name=$1 need mods=()
	shift
	cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
	PY=/usr/bin/python3
	B=${LP_BUILD:-build}
	for need in "$@"; do
		case $need in
		chromium) command -v chromium >/dev/null || { echo "chromium not installed (scripts/install-deps.sh)"; exit 77; } ;;
		lp-*) [ -x "$B/$need" ] || { echo "$B/$need not built (make; lp-sweep needs rdma-core headers)"; exit 77; } ;;
		*) mods+=("$need") ;;
		esac
	done
	if [ ${#mods[@]} -gt 0 ]; then
		(IFS=,; $PY -c "import ${mods[*]}") 2>/dev/null ||
			{ echo "python3 modules missing: ${mods[*]} (python3-matplotlib, python3-jinja2, python3-lxml)"; exit 77; }
	fi
	out=$(mktemp -d "${TMPDIR:-/tmp}/lp-$name-test.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$out'" EXIT
	fails=0
}
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
check() { $PY tests/sweep/report_check.py "$@"; }
finish() { exit $((fails > 0)); }
