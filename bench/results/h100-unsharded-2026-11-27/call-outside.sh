#!/usr/bin/env bash
# the apps' time outside the kernel: trace with the host's and the events' times per launch
set -u
export CMAKE_EXTRA="-DWGSYNC_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_ARCHITECTURES=90 -DWGSYNC_BUILD_VULKAN=OFF"
TRACE_ROUNDS=2 RUNS=11 TRACE_INPUTS="color:grid:1000 mis:grid:1000 mis:road:1000 sssp:kron:16" \
  timeout 560 scripts/gpu.sh trace 2>&1 | grep -vE "Built target|ptxas|max work-group|bytes stack|Compil|registers|build log" | tail -45
