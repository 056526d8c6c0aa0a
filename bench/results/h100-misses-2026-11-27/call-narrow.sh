#!/usr/bin/env bash
# A design: every persistent kernel of apps/cuda/apps_cuda.cu uncapped (PERSISTENT_BOUNDS and
# PERSISTENT_BOUNDS_STEP made __launch_bounds__(1024, 1) in the working tree), on the inputs
# narrower than the uncapped kernels hold at once, beside the tree as committed (174c744, BASE_TAR
# = its git archive), the CLIs alternating, two rounds; the uncapped build traced beside
set -u
export CMAKE_EXTRA="-DWGSYNC_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_ARCHITECTURES=90 -DWGSYNC_BUILD_VULKAN=OFF"
BASE_TAR=.gl/head.tar.gz TRACE_FLAGS=-DAPP_TRACE_EVENTS=1024u TRACE_ROUNDS=2 RUNS=11 TRACE_FORMS=persistent,fixed,gridsync \
TRACE_INPUTS="color:rmat:16 mis:rmat:16 bc:grid:60 bc:rmat:14 bc:road:60 bc:kron:14 bc:random:16 bfs:rmat:16 sssp:rmat:16 sssp:kron:16" \
  timeout 520 scripts/gpu.sh trace 2>&1 | grep -E "^== |FAIL|rror" | head -60
cd $OUT && tar -xzf results.tar.gz && cp results/trace.md results/wall.csv $OUT/ 2>/dev/null
echo "== $(date -u +%T) done"
