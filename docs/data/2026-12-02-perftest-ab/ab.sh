#!/bin/bash
# A/B send_bw 64 KiB: eff0898 (old) vs main (new), alternating, under the guest lock
set -u
out=/work/ab-out; mkdir -p $out
for i in 1 2; do
  for t in old new; do
    d=/work/ab-old; [ $t = new ] && d=/work/ci2
    (cd $d && nice -n 5 scripts/bench-perftest.sh --repeats 4 --cases send_bw_64k,write_bw_64k --out $out/$t-$i > $out/$t-$i.log 2>&1; echo "$t-$i rc $? $(date +%T)" >> $out/progress)
  done
done
