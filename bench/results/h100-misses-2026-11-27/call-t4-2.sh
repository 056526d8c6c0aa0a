#!/usr/bin/env bash
# Table 4 again (same machine, builds kept): base and new, then the registers each form ran with
set -u
export CMAKE_EXTRA="-DWGSYNC_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_ARCHITECTURES=90 -DWGSYNC_BUILD_VULKAN=OFF"
TESTS=0 BASE_TAR=.gl/head.tar.gz STAGES=t4 RUNS=5 T4_LIMIT=175 \
  timeout 400 scripts/gpu.sh perf 2>&1 | grep -E "^== |geometric|slower" | tail -20
mkdir -p $OUT/x && tar -xzf $OUT/results.tar.gz -C $OUT/x 2>/dev/null
for t in base new; do cp $OUT/x/results/cuda-$t/table4.csv $OUT/table4-$t-2.csv 2>/dev/null; done
python3 - $OUT/x/results/cuda-new > $OUT/registers-new.csv <<'PY'
import glob, json, os, sys
print("input,form,groups,registers")
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    for x in json.load(open(f))["forms"]:
        if "registers" in x:
            print(f'{os.path.basename(f)[:-5]},{x["form"]},{x["groups"]},{x["registers"]}')
PY
cat $OUT/registers-new.csv | head -100
echo "== $(date -u +%T) done"
