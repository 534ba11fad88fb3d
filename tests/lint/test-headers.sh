#!/bin/bash
# tier: quick
# The header check passes on the tree, and fails on a copy with each fault it exists to catch:
# a header that needs an include it does not make, and a public header including an internal one.
set -uo pipefail
cd "$(dirname "$0")/../.."
make -s check-headers || { echo "FAIL: make check-headers on the tree"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r common rdma gpu sweep qual bench scripts "$tmp"/
check() { (cd "$tmp" && LP_HAVE_VERBS=1 scripts/check-headers.sh "$tmp"); }
check >/dev/null || { echo "FAIL: the unchanged copy does not pass"; exit 1; }

# not self-contained: a header using uint64_t without <stdint.h>
printf '#ifndef X_H\n#define X_H\nstruct lp_x { uint64_t v; };\n#endif\n' >"$tmp/common/broken.h"
out=$(check) && { echo "FAIL: a header missing <stdint.h> passed"; exit 1; }
grep -q "common/broken.h does not compile on its own" <<<"$out" || { echo "FAIL: unexpected: $out"; exit 1; }
rm "$tmp/common/broken.h"

# a public header reaching into a module's internals
sed -i '0,/#include "common\/json.h"/s//#include "common\/json.h"\n#include "rdma\/internal.h"/' "$tmp/rdma/check.h"
out=$(check) && { echo "FAIL: rdma/check.h including rdma/internal.h passed"; exit 1; }
grep -q "rdma/check.h includes the internal header rdma/internal.h" <<<"$out" || { echo "FAIL: unexpected: $out"; exit 1; }
echo "PASS: headers stand alone; both injected faults were caught"
