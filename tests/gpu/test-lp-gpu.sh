#!/bin/bash
# tier: gpu
# lp-gpu on a real GPU: every single-GPU test verified and sane, peer tests WAIVED on one GPU,
# JSON/CSV/text outputs well formed, usage errors exit 2. Exit 77 where lp-gpu exits 77 (no GPU/driver).
. "$(dirname "$0")/check.sh"
LPG=$B/lp-gpu
[ -x "$LPG" ] || { echo "lp-gpu not built (no CUDA toolkit): skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. Every single-GPU test, JSON.
"$LPG" -t host,local,lat_host_sm,lat_local_sm -s 64M --samples 3 -n 8 --json - >"$tmp/single.json" 2>"$tmp/single.err"
rc=$?
cat "$tmp/single.err"
[ $rc = 77 ] && { echo "lp-gpu: no GPU or driver here (exit 77): skipped"; exit 77; }
[ $rc = 0 ] || fail "lp-gpu single-GPU tests exited $rc"
python3 - "$tmp/single.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
ngpu = len(d["gpus"])
assert ngpu >= 1 and d["gpus"][0]["name"] and d["gpus"][0]["bus_id"], d["gpus"]
assert d["method"]["units"]["bandwidth"].startswith("GB/s"), d["method"]
keys = {r["test"] for r in d["results"]}
want = {"h2d_ce", "h2d_sm", "d2h_ce", "d2h_sm", "hd_bidir_ce", "hd_bidir_sm", "local_ce", "local_sm",
        "lat_host_sm", "lat_local_sm"}
assert keys == want, keys ^ want
lo = {"h2d": 2, "d2h": 2, "hd_bidir": 2, "local": 200}   # GB/s: far below any real GPU, far above broken
for r in d["results"]:
    assert r["status"] == "ok", (r["test"], r)
    assert "->" in r["matrix"] or "<->" in r["matrix"] or "reads" in r["matrix"], r["matrix"]
    labels = [s["label"] for s in r["series"]]
    if "bidir" in r["test"]:
        assert labels == ["CPU->GPU", "GPU->CPU", "sum"], labels
    for s in r["series"]:
        assert len(s["cells"]) == ngpu, s
        for c in s["cells"]:
            assert c["status"] == "ok", (r["test"], c)
            # one end a GPU, the other the CPU, the GPU itself (local) or another GPU (d2h: GPU0 -> CPU)
            ends = (c["from"], c["to"])
            assert any(e.startswith("GPU") for e in ends) and all(e in ("CPU", "local") or e.startswith("GPU") for e in ends), c
            assert c["samples"] == 3 and c["min"] <= c["median"] <= c["max"], c
            if r["unit"] == "ns":
                assert 100 < c["median"] < 100000, (r["test"], c)
                continue
            assert c["verified"] is True, (r["test"], c)
            floor = lo[r["test"].rsplit("_", 1)[0]]
            assert c["median"] > floor, (r["test"], c)
            if c["ceiling"] is not None:
                assert 0 < c["pct_of_ceiling"] < 115, (r["test"], c)
    if "bidir" in r["test"]:
        a, b, s = (r["series"][i]["cells"][0]["median"] for i in range(3))
        assert abs(a + b - s) / s < 0.05, (a, b, s)
for r in d["results"]:
    c = r["series"][-1]["cells"][0]
    print("  %-12s %-10s %10.2f %s  (%s%% of ceiling)" % (r["test"], r["series"][-1]["label"], c["median"], r["unit"],
          "%.0f" % c["pct_of_ceiling"] if c.get("pct_of_ceiling") is not None else "-"))
PY

# 2. Peer tests: WAIVED on one GPU (whole test), cells ok/waived on several.
"$LPG" -t p2p,lat_p2p_sm -s 32M --samples 3 -n 4 --json - >"$tmp/peer.json" || fail "lp-gpu peer tests exited $?"
python3 - "$tmp/peer.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
ngpu = len(d["gpus"])
assert len(d["results"]) == 9, [r["test"] for r in d["results"]]
for r in d["results"]:
    if ngpu == 1:
        assert r["status"] == "waived" and "2 or more GPUs" in r["reason"], r
        for s in r["series"]:
            for c in s["cells"]:
                assert c["status"] == "waived" and c["reason"], c
    else:
        assert r["status"] in ("ok", "waived"), r
print("peer tests on %d GPU(s): %s" % (ngpu, ", ".join("%s=%s" % (r["test"], r["status"]) for r in d["results"])))
PY
"$LPG" -t p2p_write_ce -s 1M --samples 2 >"$tmp/peer.txt" || fail "text peer run exited $?"
if [ "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["gpus"]))' "$tmp/peer.json")" = 1 ]; then
	grep -q "WAIVED: needs 2 or more GPUs" "$tmp/peer.txt" || fail "no WAIVED line in text output"
	echo "SKIP peer copies: one GPU here, so only their WAIVED report was checked"
fi

# 3. Size sweep and CSV: one line per cell, all verified.
"$LPG" -t h2d_ce,local_sm -s 4K:1M --samples 3 -n 4 --csv - >"$tmp/sweep.csv" || fail "sweep exited $?"
python3 - "$tmp/sweep.csv" <<'PY' || exit 1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
sizes = sorted({int(r["size_bytes"]) for r in rows})
assert sizes == [4096 << i for i in range(9)], sizes
for r in rows:
    assert r["status"] == "ok" and r["verified"] == "true" and float(r["median"]) > 0, r
print("sweep: %d CSV rows over %d sizes, all verified" % (len(rows), len(sizes)))
PY

# 4. Text output: orientation stated, percent of ceiling shown, topology printed.
"$LPG" -t h2d_ce,local_ce -s 16M --samples 2 >"$tmp/out.txt" || fail "text run exited $?"
cat "$tmp/out.txt"
grep -q "rows: from (source), columns: to (destination); CPU -> GPU" "$tmp/out.txt" || fail "orientation missing"
grep -qE -f tests/text-rules.ere "$tmp/out.txt" && fail "the tables break the number rules (tests/text-rules.ere)"
grep -Eq "[0-9]+\.[0-9]+ \([0-9]+%\)" "$tmp/out.txt" || fail "percent of ceiling missing"
grep -q "PCIe" "$tmp/out.txt" || fail "topology missing"

# 4b. --json FILE: the tables on stdout and the document in the file, from one run.
"$LPG" -t h2d_ce -s 1M --samples 2 --json "$tmp/both.json" >"$tmp/both.txt" || fail "--json FILE run exited $?"
grep -q "CPU -> GPU" "$tmp/both.txt" || fail "--json FILE: no table on stdout"
python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); assert d["results"][0]["test"] == "h2d_ce"' \
	"$tmp/both.json" || fail "--json FILE: the file is not the JSON document"

# 4c. Every document satisfies the published schema (docs/schema/linkperf.gpu-2.json).
/usr/bin/python3 scripts/json-validate docs/schema/linkperf.gpu-2.json "$tmp/single.json" "$tmp/peer.json" "$tmp/both.json"
case $? in 0) echo "the documents satisfy linkperf.gpu/2" ;; 77) echo "SKIP schema: python3-jsonschema missing" ;; *) fail "schema" ;; esac

# 5. Usage errors.
"$LPG" -t h2d_ce --json - --csv - >/dev/null 2>&1; [ $? = 2 ] || fail "--json - --csv - should exit 2"
"$LPG" -t h2d_ce -j >/dev/null 2>&1; [ $? = 2 ] || fail "the old flag -j should exit 2 (now --json FILE)"
"$LPG" -t h2d_ce --min-gbps 50 >/dev/null 2>&1; [ $? = 2 ] || fail "--min-gbps (Gb/s) should exit 2: lp-gpu's floor is --min-gbytes-s"
"$LPG" --gpu 99 -t h2d_ce >/dev/null 2>&1; [ $? = 2 ] || fail "--gpu 99 should exit 2"
"$LPG" -t nope >/dev/null 2>&1; [ $? = 2 ] || fail "-t nope should exit 2"
"$LPG" -s 0 >/dev/null 2>&1; [ $? = 2 ] || fail "-s 0 should exit 2"
echo "lp-gpu GPU tests passed"
