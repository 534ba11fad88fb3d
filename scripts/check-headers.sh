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

# Internal headers: one module's private declarations (and the test-only prototypes): every
# MODULE/internal.h, and the few listed here. The tools in bench/ and the public headers of any
# module never include them. Declared here, once.
internal_re='(^|/)internal\.h$|^(rdma/mem\.h|rdma/proto\.h|gpu/kern\.h|gpu/nvml\.h|gpu/cudautil\.h)$'

bad=0
say_bad() { echo "check-headers: $*"; bad=1; }

# Every header of the library's modules (not tests/ or scripts/), by what it needs to compile.
headers= mpi_headers= skipped=
for h in $(find . -path ./build -prune -o -path ./tests -prune -o -path ./scripts -prune -o \
	-path ./debian -prune -o -name '*.h' -print | sed 's|^\./||' | sort); do
	case $h in
	sweep/mpi/*) need=${LP_HAVE_MPI:-}${LP_HAVE_VERBS:-}; want=11 ;;
	rdma/* | sweep/*) need=${LP_HAVE_VERBS:-}; want=1 ;;
	gpu/*) need=${LP_HAVE_CUDA:-}; want=1 ;;
	*) need=1; want=1 ;;
	esac
	if [ "$need" != "$want" ]; then
		skipped+=" $h"
	elif [[ $h == sweep/mpi/* ]]; then
		mpi_headers+=" $h"
	else
		headers+=" $h"
	fi
done
[ -z "$skipped" ] || echo "check-headers: SKIP (rdma-core, CUDA or MPI missing here):$skipped"

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
