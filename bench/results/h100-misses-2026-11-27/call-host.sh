#!/usr/bin/env bash
# The synchronous launch without the capture query and the second device check: the CUDA
# tests, then the launch table (with the cold rows) and Table 4, before (BASE_TAR: the tree
# before it, with this bench_launch.cu) and after, one call
set -u
export CMAKE_EXTRA="-DWGSYNC_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_ARCHITECTURES=90 -DWGSYNC_BUILD_VULKAN=OFF"
CHECK_LIMIT=200 CHECK_RE='^cuda\.|^backend\.cuda' BASE_TAR=.gl/head3.tar.gz STAGES="launch t4" RUNS=5 T4_LIMIT=120 \
  timeout 585 scripts/gpu.sh perf 2>&1 | grep -E "^== |tests passed|Failed|\*\*\*|geometric|slower|cold|synchronous|\+ wait" | grep -v "^new wgsync kernel\|^base wgsync kernel" | head -80
mkdir -p $OUT/x && tar -xzf $OUT/results.tar.gz -C $OUT/x 2>/dev/null
cp $OUT/x/results/ctest-perf.log $OUT/ 2>/dev/null
for t in base new; do for r in 1 2; do cp $OUT/x/results/launch-$t-$r/launch.csv $OUT/launch-$t-$r.csv 2>/dev/null; done
  cp $OUT/x/results/cuda-$t/table4.csv $OUT/table4-$t.csv 2>/dev/null; done
timeout 60 build-gpu/tests/test_wgsync_cuda epochs > $OUT/epochs.txt 2>&1; tail -4 $OUT/epochs.txt
echo "== $(date -u +%T) done"
