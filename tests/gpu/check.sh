# shellcheck shell=bash
# Sourced first by every tests/gpu script: set -u, the repository root as the working directory,
# B = the build dir (LP_BUILD, default build), and
#   check_build NAME [LIBS...]  builds tests/gpu/NAME.c against the library into $B/tests/NAME;
#                               exits 77 when the library was built without CUDA, 1 when the
#                               build fails
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
	mkdir -p "$B/tests"
	${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -Werror -I. -D_GNU_SOURCE -isystem "$cuda/include" \
		-o "$B/tests/$name" "tests/gpu/$name.c" "$lib" "$@" \
		$(make -s --no-print-directory ldlibs) || { echo "$name: build failed"; exit 1; }
}
fail() { echo "FAIL: $*"; exit 1; }
