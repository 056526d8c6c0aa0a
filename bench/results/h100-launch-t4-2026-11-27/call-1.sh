#!/usr/bin/env bash
# call 1: build this tree and the tree before the performance issue (242270c), the tests that
# touch the published shape on NVIDIA OpenCL and CUDA; nothing timed
set -u
export CMAKE_EXTRA="-DWGSYNC_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_ARCHITECTURES=90 -DWGSYNC_BUILD_VULKAN=OFF"
CHECK_LIMIT=300 BASE_TAR=.gl/base.tar.gz STAGES=none \
CHECK_RE='^cuda\.|^backend\.cuda|^(epochs|recall|props|mp|reduce|or|portable)\.t1|^published\.|^counter_published|^or\.published|^mp\.t1\.fence|^cli\.barrier_published|^app\.mis\.published' \
  timeout 470 scripts/gpu.sh perf 2>&1 | grep -vE "Built target" | tail -40
mkdir -p $OUT/x
tar -xzf $OUT/results.tar.gz -C $OUT/x 2>/dev/null; cp $OUT/x/results/ctest-perf.log $OUT/ctest-perf.log 2>/dev/null
export WGSYNC_DEVICE=NVIDIA
echo "== $(date -u +%T) NVIDIA OpenCL, the published shape with 32 replicas from 1 group"
for c in mp or split mp_unchecked props; do
  for tu in "publish=32,1" "publish=32,1 atomics=fence"; do
    WGSYNC_TUNING="$tu" timeout 120 build-gpu/tests/test_wgsync $c > $OUT/ocl-$c.log 2>&1; rc=$?
    echo "test_wgsync $c [$tu]: rc $rc $(tail -1 $OUT/ocl-$c.log | cut -c1-150)"
  done
done 2>&1 | tee $OUT/ocl-published.txt
for gt in 264x256 1056x256 4224x32; do for sp in "" "--split"; do
  printf "%s %s: %s\n" $gt "${sp:-full}" "$(WGSYNC_TUNING=publish_asked=1 timeout 60 build-gpu/bench/wgsync-tuned barrier -n NVIDIA --barrier published --groups ${gt%x*} --local-size ${gt#*x} --rounds 2000 $sp 2>&1 | tail -3 | tr "\n" " ")"
done; done 2>&1 | tee -a $OUT/ocl-published.txt
echo "== $(date -u +%T) done"
