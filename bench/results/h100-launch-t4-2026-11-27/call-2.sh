#!/usr/bin/env bash
# call 2 (same machine): the launch table and Table 4 on CUDA, before (242270c) and after, one call
set -u
export CMAKE_EXTRA="-DWGSYNC_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_ARCHITECTURES=90 -DWGSYNC_BUILD_VULKAN=OFF"
TESTS=0 BASE_TAR=.gl/base.tar.gz STAGES="launch t4" RUNS=5 T4_LIMIT=170 \
  timeout 585 scripts/gpu.sh perf 2>&1 | grep -vE "Built target|ptxas|max work-group|bytes stack|Compil" | tail -60
