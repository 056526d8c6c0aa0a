#!/usr/bin/env bash
# 2 GPUs: the team tests, default and with the published shape forced (WGSYNC_TUNING=publish=32,1)
set -u
export CMAKE_EXTRA="-DWGSYNC_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_ARCHITECTURES=90 -DWGSYNC_BUILD_VULKAN=OFF"
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1
CASES="bad mp missing" NO_JACOBI=1 timeout 400 scripts/gpu.sh team 2>&1 | grep -vE "Built target|ptxas|max work-group|bytes stack|Compil" | tail -40
echo "== $(date -u +%T) ctest team"
(cd build-gpu && timeout 180 ctest -j1 --timeout 120 -R '^team\.(mp|missing|props)' --output-on-failure > $OUT/ctest-team.log 2>&1)
grep -E "tests passed|Failed|\*\*\*|Test +#|stale|PASS|x256" $OUT/ctest-team.log | tail -40
echo "== $(date -u +%T) done"
