#!/usr/bin/env bash
# one GPU call: the published shape as the default (build, litmus, tests, shapes, skew, Table 4)
set -u
export CMAKE_EXTRA="-DWGSYNC_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_ARCHITECTURES=90 -DWGSYNC_BUILD_VULKAN=OFF"
SKEW_LITMUS=wgsync-bench-litmus SKEW_BENCHES="" SKEW_SETS="" ROUNDS_LITMUS=1000 timeout 200 scripts/gpu.sh skew 2>&1 | grep -E "violat|FAIL|error|== " | tail -12
R=$OUT/r; mkdir -p $R
echo "== $(date -u +%T) ctest"
(cd build-gpu && timeout 150 ctest -j1 --timeout 60 -R '^cuda\.(mp|deadlock|split|or)(\.|$)|^cuda\.(props|epochs|reduce|portable|misuse)$|^(mp|or|props)\.t1$' > $R/ctest.log 2>&1; grep -E "tests passed|Failed|\*\*\*|Timeout" $R/ctest.log | tail -12)
echo "== $(date -u +%T) shards"
mkdir -p $R/shards; WGS_BENCH_SHAPES="default;p32;p16;32,16,1;0/a1;0/a0" timeout 110 build-gpu/bench/wgsync-bench-shards $R/shards > $R/shards/log 2>&1 || echo "SHARDS FAILED"
grep -E "^ *[0-9]+x[0-9]+|registers" $R/shards/log | head -70
echo "== $(date -u +%T) skew"
mkdir -p $R/skew; WGS_SKEW_SHAPES="1056x256 528x256" WGS_SKEW_DELAYS_NS="0 1000 4000" timeout 90 build-gpu/bench/wgsync-bench-skew $R/skew > $R/skew/log 2>&1 || echo "SKEW FAILED"
grep -E "x256" $R/skew/log | grep -v " or " | head -40
echo "== $(date -u +%T) OpenCL latency"
for gt in 264x256 1056x256 4224x32; do for tu in "" "publish=0"; do
  printf "NVIDIA %-9s %-10s %s\n" $gt "${tu:-default}" "$(WGSYNC_TUNING="$tu" timeout 30 build-gpu/bench/wgsync-tuned latency -n NVIDIA --barrier counter --groups ${gt%x*} --local-size ${gt#*x} --rounds 2000 --runs 7 2>&1 | grep -oE 'median [0-9.]+ us.*\]|WGS_E.*')"
done; done | tee $R/ocl-latency.txt
for s in ${T4_SETS:-new: old:publish=0}; do
  echo "== $(date -u +%T) table4 ${s%%:*}"
  WGSYNC_TUNING="${s#*:}" WGSYNC_DEVICE=cuda timeout 100 scripts/table4-run.sh build-gpu/bench/wgsync-tuned $R/t4-${s%%:*} gpu 5 -n cuda 2> $R/t4-${s%%:*}.log
  python3 scripts/table4.py $R/t4-${s%%:*} > /dev/null; grep -E "geometric|slower" $R/t4-${s%%:*}/table4.md
  tar -C $OUT -czf $OUT/r.tar.gz r
done
tar -C $OUT -czf $OUT/r.tar.gz r; rm -rf $R
echo "== $(date -u +%T) done"
