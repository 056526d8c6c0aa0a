#!/usr/bin/env bash
# Table 4 on CUDA: the tree as committed (BASE_TAR) and with the uncapped kernels on narrow
# inputs, one call; the CUDA app tests first
set -u
export CMAKE_EXTRA="-DWGSYNC_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_ARCHITECTURES=90 -DWGSYNC_BUILD_VULKAN=OFF"
CHECK_LIMIT=150 CHECK_RE='^cuda\.app\.' BASE_TAR=.gl/head.tar.gz STAGES=t4 RUNS=5 T4_LIMIT=175 \
  timeout 590 scripts/gpu.sh perf 2>&1 | grep -vE "Built target|ptxas|max work-group|bytes stack|Compil|registers, |build log" | tail -40
mkdir -p $OUT/x && tar -xzf $OUT/results.tar.gz -C $OUT/x 2>/dev/null
cp $OUT/x/results/ctest-perf.log $OUT/ 2>/dev/null
for t in base new; do cp $OUT/x/results/cuda-$t/table4.md $OUT/table4-$t.md 2>/dev/null; cp $OUT/x/results/cuda-$t/table4.csv $OUT/table4-$t.csv 2>/dev/null; done
ls $OUT/x/results/ $OUT/x/results/cuda-new | head -20
echo "== $(date -u +%T) done"
