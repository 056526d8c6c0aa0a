#!/usr/bin/env bash
# the apps' barriers under each counter shape, traced: default (published asked), forced, none
set -u
export CMAKE_EXTRA="-DWGSYNC_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_ARCHITECTURES=90 -DWGSYNC_BUILD_VULKAN=OFF"
TRACE_ROUNDS=1 RUNS=11 TRACE_FORMS=fixed,gridsync TRACE_SETS="trace: forced:publish=32,1 ctr:publish=0 asked:publish_asked=880" \
TRACE_INPUTS="color:grid:1000 mis:grid:1000" \
  timeout 400 scripts/gpu.sh trace > /dev/null 2>&1
cd $OUT && tar -xzf results.tar.gz && grep -E "^\| " results/trace.md | cut -d'|' -f2-13 | sed 's/ (\([0-9.]*\)-\([0-9.]*\))//g'
grep -E "FAIL|error" gpu-trace.log | head
