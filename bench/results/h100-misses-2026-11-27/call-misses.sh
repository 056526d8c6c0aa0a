#!/usr/bin/env bash
# The Table 4 inputs where the persistent form still lost, traced (start, steps, barriers along
# the critical path; outside the kernel), their walls untraced beside the CUDA graph; then the
# NVIDIA OpenCL tests on the tree with WGS_SHARDED
set -u
export CMAKE_EXTRA="-DWGSYNC_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_ARCHITECTURES=90 -DWGSYNC_BUILD_VULKAN=OFF"
TRACE_ROUNDS=1 RUNS=11 TRACE_FORMS=persistent,fixed,gridsync,graph TRACE_FLAGS=-DAPP_TRACE_EVENTS=1024u \
TRACE_INPUTS="color:rmat:16 mis:rmat:16 mis:kron:18 bc:grid:60 bc:rmat:14 bc:road:60 bfs:rmat:16" \
  timeout 380 scripts/gpu.sh trace 2>&1 | grep -E "^== |FAIL|rror" | head -40
cd $OUT && tar -xzf results.tar.gz && cp results/trace.md results/wall.csv $OUT/ 2>/dev/null
grep -E "^\| " results/trace.md | cut -d'|' -f2-13 | sed 's/ (\([0-9.]*\)-\([0-9.]*\))//g'
cat results/wall.csv | head -80
cd - > /dev/null
echo "== $(date -u +%T) NVIDIA OpenCL tests"
(cd build-gpu && WGSYNC_DEVICE=NVIDIA timeout 170 ctest -j1 --timeout 100 \
  -R '^(epochs|recall|props|mp|reduce|or|portable)\.t1|^published\.|^counter_published|^app\.(mis|color|bfs|sssp|bc)\.t1$|^app\.mis\.published' \
  --output-on-failure > $OUT/ctest-ocl.log 2>&1)
grep -E "tests passed|Failed|\*\*\*|Test +#" $OUT/ctest-ocl.log | tail -40
echo "== $(date -u +%T) done"
