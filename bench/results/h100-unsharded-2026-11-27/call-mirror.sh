#!/usr/bin/env bash
# where the start and the gap between launches go: the mirror's system-scope store (phases bench)
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DWGSYNC_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DWGSYNC_BUILD_VULKAN=OFF > /dev/null && cmake --build build-gpu -j16 --target wgsync-bench-launch-phases wgsync-bench-launch 2>&1 | grep -E "error" 
mkdir -p $OUT/p1 $OUT/p2 $OUT/l1
for i in 1 2; do
  echo "== $(date -u +%T) phases $i"
  timeout 120 build-gpu/bench/wgsync-bench-launch-phases $OUT/p$i | grep -vE "^#"
done
echo "== $(date -u +%T) launch"
timeout 90 build-gpu/bench/wgsync-bench-launch $OUT/l1 | tail -14
echo "== $(date -u +%T) done"
