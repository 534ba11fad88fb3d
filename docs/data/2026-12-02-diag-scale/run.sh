#!/bin/bash
# issue 24 at scale on the 2-core host (the device's budget is spent): a reduced grid at N=256/1,024
cd /tmp/bdscale
run() { echo "\$ diag-sim $*"; /usr/bin/time -f "(%e s wall, %U s user, %M KiB)" ./diag-sim "$@" --csv /tmp/bdscale/scale.csv; echo; }
{
echo "# $(date -u) $(uname -n) $(nproc) cores; main $(git -C /work/main rev-parse --short HEAD)"
run -n 1024 --cv 0.05 --blip 0,0.02 -f none -t 2
run -n 1024 --cv 0.05 --blip 0.02 -f src,link -s 0.8 -t 1
run -n 256 --cv 0.02,0.05,0.1 --blip 0.02 -f none -t 4
run -n 256 --cv 0.05 --blip 0.02 -f src,both,link,two,leaf,uplink,path -s 0.8,0.5 -t 3
run -n 256 --cv 0.05 --blip 0.02 -f src,link,leaf -s 0 -t 3
echo "# done $(date -u)"
} > /tmp/bdscale/scale.txt 2>&1
