# shellcheck shell=bash
# Sourced by tests/gpu/test-*.sh: lp_build_check NAME builds tests/gpu/NAME.c against the library
# into $B/tests/NAME (B = the build dir); exits 77 when the library has no GPU code, 1 when the
# build fails.
lp_build_check() {
	local lib=$B/liblinkperf.a cuda=${CUDA_HOME:-/usr/local/cuda}

	if [ ! -f "$lib" ] || ! nm "$lib" 2>/dev/null | grep -q ' T lp_gpu_buf_alloc'; then
		echo "library built without CUDA: no GPU memory provider here"; exit 77
	fi
	mkdir -p "$B/tests"
	${CC:-cc} -std=gnu11 -O2 -Wall -Wextra -Werror -I. -D_GNU_SOURCE -isystem "$cuda/include" \
		-o "$B/tests/$1" "tests/gpu/$1.c" "$lib" \
		-L"$cuda/lib64" -lcudart_static -ldl -lrt -lstdc++ -lm -lpthread || { echo "build failed"; exit 1; }
}
