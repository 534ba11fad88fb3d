#!/bin/bash
# Header habits (after rdma-core's check-build): every header compiles on its own, and no public
# header, tool or test-free program includes an internal one.
#
#   scripts/check-headers.sh [DIR]      check the tree at DIR (default: the repository)
#
# Env (the Makefile passes its own): CC, MPICC, LP_CPPFLAGS (include path and -D flags),
# LP_CFLAGS (warnings, -std), LP_HAVE_VERBS / LP_HAVE_CUDA / LP_HAVE_MPI (1 when present: headers of
# a missing stack are skipped, and said so). Exit 0 clean, 1 with one line per broken header.
set -uo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
CC=${CC:-cc}
MPICC=${MPICC:-mpicc}
CPPFLAGS=${LP_CPPFLAGS:--I. -D_GNU_SOURCE}
CFLAGS=${LP_CFLAGS:--std=gnu11 -Wall -Wextra -Werror}

# Internal headers: one module's private declarations (and the test-only prototypes). The tools in
# bench/ and the other modules' public headers never include them. Declared here, once.
internal_re='^(rdma/internal\.h|rdma/mem\.h|rdma/proto\.h|gpu/kern\.h|gpu/nvml\.h|gpu/cudautil\.h|qual/internal\.h)$'

bad=0
say_bad() { echo "check-headers: $*"; bad=1; }

headers=$(ls common/*.h qual/*.h 2>/dev/null)
[ "${LP_HAVE_VERBS:-}" = 1 ] && headers+=" $(ls rdma/*.h sweep/*.h 2>/dev/null)" ||
	echo "check-headers: SKIP rdma/ and sweep/ headers: no rdma-core headers"
[ "${LP_HAVE_CUDA:-}" = 1 ] && headers+=" $(ls gpu/*.h 2>/dev/null)" ||
	echo "check-headers: SKIP gpu/ headers: no CUDA"
mpi_headers=
[ "${LP_HAVE_MPI:-}${LP_HAVE_VERBS:-}" = 11 ] && mpi_headers=$(ls sweep/mpi/*.h 2>/dev/null) ||
	echo "check-headers: SKIP sweep/mpi/ headers: no MPI"

n=0
for h in $headers $mpi_headers; do
	cc=$CC
	case $h in sweep/mpi/*) cc=$MPICC ;; esac
	# shellcheck disable=SC2086 # flag lists
	if ! out=$(printf '#include "%s"\n' "$h" | $cc $CPPFLAGS $CFLAGS -fsyntax-only -x c - 2>&1); then
		say_bad "$h does not compile on its own: $(grep -m1 -E 'error' <<<"$out")"
	fi
	n=$((n + 1))
done

# Public headers and the tools must not reach into a module's internals.
for f in $headers $mpi_headers bench/*.c; do
	[ -f "$f" ] || continue
	[[ $f =~ $internal_re ]] && continue
	while read -r inc; do
		[[ $inc =~ $internal_re ]] && say_bad "$f includes the internal header $inc"
		# a module's own headers are included by their short name ("json.h" in common/)
		[[ "$(dirname "$f")/$inc" =~ $internal_re ]] && say_bad "$f includes the internal header $(dirname "$f")/$inc"
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done

[ $bad = 0 ] && echo "check-headers: $n headers compile on their own; no public header or tool includes an internal one"
exit $bad
