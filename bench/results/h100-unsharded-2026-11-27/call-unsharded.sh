#!/usr/bin/env bash
# the CUDA apps without the sharded shape's code (WGS_SHARDED=0): Table 4 before (dc7a861) and
# after in one call, the CUDA tests, then the traced kernels
set -u
export CMAKE_EXTRA="-DWGSYNC_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_ARCHITECTURES=90 -DWGSYNC_BUILD_VULKAN=OFF"
CHECK_LIMIT=150 BASE_TAR=.gl/base.tar.gz STAGES="t4" RUNS=5 T4_LIMIT=100 CHECK_RE='^cuda\.' \
  timeout 420 scripts/gpu.sh perf 2>&1 | grep -E "^== |tests passed|Failed|\*\*\*|geometric|slower|FAIL" | tail -30
mkdir -p $OUT/perf; tar -xzf $OUT/results.tar.gz -C $OUT/perf; rm $OUT/results.tar.gz
TRACE_ROUNDS=1 RUNS=11 TRACE_FORMS=fixed,gridsync TRACE_INPUTS="color:grid:1000 mis:grid:1000 sssp:kron:16" \
  timeout 150 scripts/gpu.sh trace > /dev/null 2>&1
mkdir -p $OUT/trace; tar -xzf $OUT/results.tar.gz -C $OUT/trace; rm $OUT/results.tar.gz
grep -E "^\| " $OUT/trace/results/trace.md | cut -d'|' -f2-13 | sed 's/ (\([0-9.]*\)-\([0-9.]*\))//g'
echo "== $(date -u +%T) done"
