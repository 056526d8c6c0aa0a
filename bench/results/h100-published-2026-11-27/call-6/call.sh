#!/usr/bin/env bash
# one GPU call: WGS_BARRIER_PUBLISHED (the CUDA apps' default): CUDA tests, Table 4 against --barrier counter
set -u
export CMAKE_EXTRA="-DWGSYNC_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_ARCHITECTURES=90 -DWGSYNC_BUILD_VULKAN=OFF"
SKEW_LITMUS="" SKEW_BENCHES="" SKEW_SETS="" timeout 150 scripts/gpu.sh skew 2>&1 | grep -E "FAIL|error|== |NVIDIA" | tail -6
R=$OUT/r; mkdir -p $R
echo "== $(date -u +%T) ctest"
(cd build-gpu && timeout 130 ctest -j1 --timeout 60 -R '^cuda\.|^backend\.cuda|^(mp|or|props)\.t1$' -E 'cuda\.(busy_process|nvrtc)' > $R/ctest.log 2>&1; grep -E "tests passed|Failed|\*\*\*|Timeout" $R/ctest.log | tail -12)
for s in pub:default ctr:counter pub2:default; do
  n=${s%%:*}; [ $n = pub2 ] && export ONLY="mis color sssp"
  echo "== $(date -u +%T) table4 $n"
  WGSYNC_DEVICE=cuda timeout 90 scripts/table4-run.sh build-gpu/cli/wgsync $R/t4-$n gpu 5 -n cuda --barrier ${s#*:} 2> $R/t4-$n.log
  python3 scripts/table4.py $R/t4-$n > /dev/null; grep -E "geometric|slower" $R/t4-$n/table4.md
  tar -C $OUT -czf $OUT/r.tar.gz r
done
echo "== $(date -u +%T) done"
