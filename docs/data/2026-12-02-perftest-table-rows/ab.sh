#!/bin/sh
# back-to-back A/B: the tree before part A (d89eb78) and after (this branch), same cases
C=write_lat_2,send_lat_2,read_lat_2,write_bw_4k,write_bw_64k
cd /tmp/lp-base && nice scripts/bench-perftest.sh --repeats 4 --cases $C --out /tmp/lp-ab-before
cd /tmp/lp-snap2 && nice scripts/bench-perftest.sh --repeats 4 --cases $C --out /tmp/lp-ab-after
