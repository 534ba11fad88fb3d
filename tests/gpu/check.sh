# shellcheck shell=bash
# Sourced first by every tests/gpu script: set -u, the repository root as the working directory,
# B = the build dir (LP_BUILD, default build), and
#   check_build NAME [LIBS...]  builds tests/gpu/NAME.c against the library into $B/tests/NAME;
#                               exits 77 with the reason when a build prerequisite is missing
#                               (the library built without CUDA, or without rdma-core when NAME
#                               needs it, or a header not installed), 1 when the build fails
#   fail TEXT...                prints FAIL: TEXT and exits 1
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${LP_BUILD:-build}
check_build() {
	local name=$1 lib=$B/liblinkperf.a cuda=${CUDA_HOME:-/usr/local/cuda}
	shift
	if [ ! -f "$lib" ] || ! nm "$lib" 2>/dev/null | grep -q ' T lp_gpu_buf_alloc'; then
		echo "library built without CUDA: no GPU memory here"; exit 77
	fi
	if grep -q '#include "rdma/' "tests/gpu/$name.c" && ! nm "$lib" 2>/dev/null | grep -q ' T lp_rdma_dev_open'; then
		echo "library built without rdma-core (libibverbs-dev, librdmacm-dev): $name needs it"; exit 77
	fi
	mkdir -p "$B/tests"
	local err
	err=$(${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -Werror -I. -D_GNU_SOURCE -isystem "$cuda/include" \
		-o "$B/tests/$name" "tests/gpu/$name.c" "$lib" "$@" \
		$(make -s --no-print-directory ldlibs) 2>&1) && return 0
	echo "$err"
	# a system header (#include <...>) that is not installed is a missing prerequisite, not a
	# broken test; gcc quotes the include line under the error
	local hdr
	hdr=$(echo "$err" | grep -A 2 'fatal error: .*: No such file or directory' | sed -n 's/.*#include <\(.*\)>.*/\1/p' | head -n 1)
	[ -n "$hdr" ] && { echo "$name needs <$hdr>, not installed here (scripts/install-deps.sh)"; exit 77; }
	echo "$name: build failed"; exit 1
}
fail() { echo "FAIL: $*"; exit 1; }
