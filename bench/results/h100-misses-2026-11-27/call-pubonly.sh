#!/usr/bin/env bash
# A design: the apps' kernels with the published counter shape alone (WGS_PUBLISHED_ONLY=1: the
# one-count and acq_rel arrivals left out), beside the tree as committed (BASE_TAR), alternating,
# on the 1056-group inputs still slower than grid.sync(); traced beside
set -u
export CMAKE_EXTRA="-DWGSYNC_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_ARCHITECTURES=90 -DWGSYNC_BUILD_VULKAN=OFF"
CUDA_FLAGS=-DWGS_PUBLISHED_ONLY=1 BASE_TAR=.gl/head2.tar.gz TRACE_FLAGS="-DAPP_TRACE_EVENTS=1024u -DWGS_PUBLISHED_ONLY=1" \
TRACE_ROUNDS=2 RUNS=11 TRACE_FORMS=persistent,fixed,gridsync \
TRACE_INPUTS="color:grid:1000 color:road:1000 color:random:20 mis:grid:1000 mis:road:1000 mis:random:20" \
  timeout 520 scripts/gpu.sh trace 2>&1 | grep -E "FAIL|rror|analysis|done" | head -20
cd $OUT && tar -xzf results.tar.gz && cp results/trace.md results/wall.csv $OUT/ 2>/dev/null
echo "== $(date -u +%T) done"
