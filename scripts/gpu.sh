#!/usr/bin/env bash
# wgsync on the GPU machine, in one call: NVIDIA's OpenCL registered, the tree built (CUDA,
# NVIDIA OpenCL, Vulkan where .gl carries the loader, NCCL/NVSHMEM where PyTorch's environment has
# them), then one target; results packed into $OUT/results.tar.gz after every stage.
#   scripts/gpu.sh build    the build, the devices, the tools kernels' registers
#   scripts/gpu.sh verify   the test suite on this GPU (CHECK_RE: which tests, e.g.
#                           '^cuda\.|^backend\.(cuda|vulkan)|^cli\.|^install\.'; default every test but
#                           the model and fuzz ones; LITMUS=1: then litmus at scale, as shipped and
#                           with weakened barriers, CUDA and NVIDIA OpenCL)
#   scripts/gpu.sh bench    the performance guard: the barrier under spread arrivals, its shapes
#                           back to back, the launch and a ported stencil beside grid.sync() and a
#                           cooperative launch, judged by scripts/perf_guard.py (slower than
#                           grid.sync(), or 5% above bench/guard's baseline for this GPU, fails;
#                           GUARD_WRITE=1: write a baseline; BASE_TAR=x.tar.gz: an earlier tree's
#                           benchmarks first, same call, printed beside). `guard` is the same.
#   scripts/gpu.sh tables   Sorensen et al. 2016's tables through the CLI: Table 3 (bound and
#                           discovery), Table 4 (every app, CUDA and NVIDIA OpenCL) and the barrier's
#                           latency on every backend built (TABLES="3 4 latency": which; RUNS;
#                           T4_DEVS="cuda NVIDIA"; BASE_TAR: that tree's Table 4 first, same call)
#   scripts/gpu.sh team     GPU teams (2+ GPUs): the team tests, the team barrier's latency on 2, 4,
#                           8 GPUs, Jacobi against NVSHMEM (CASES, NO_JACOBI); NVLink multicast off
# CMAKE_EXTRA: more configure options (e.g. -DWGSYNC_CUDA_ARCHITECTURES=90). Campaign modes of
# earlier measurements (bench/results/README.md names them) are in git: `git show 6b58c4d:scripts/gpu.sh`.
set -uo pipefail
mode=${1:-build}
case $mode in build|verify|bench|guard|tables|team) ;;
  *) echo "scripts/gpu.sh: unknown target '$mode' (expected build, verify, bench, tables or team)" >&2; exit 2 ;;
esac
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
exec > >(tee "$OUT/gpu-$mode.log") 2>&1
stamp() { echo "== $(date -u +%T) $*"; }
stamp "$mode on $(hostname)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
mkdir -p /etc/OpenCL/vendors
[ -f /etc/OpenCL/vendors/nvidia.icd ] || echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd

# OpenCL headers: the system's, else the ones carried in .devdeps; loader: the system's.
inc=""
[ -f /usr/include/CL/cl.h ] || inc="-DOpenCL_INCLUDE_DIR=$PWD/.devdeps"
lib=$(ldconfig -p | awk '/libOpenCL.so.1 /{print $NF; exit}')
[ -n "$lib" ] || lib=$(ls /usr/local/cuda/lib64/libOpenCL.so* 2>/dev/null | head -1)
echo "OpenCL loader: ${lib:-none}"
# NCCL with its device API (GPU teams) and NVSHMEM beside it: the PyTorch environment's.
if [ -z "${NCCL_ROOT:-}" ]; then
  for py in /opt/torch/.venv/bin/python3 python3; do
    d=$($py -c 'import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))' 2>/dev/null) || continue
    [ -f "$d/nvidia/nccl/include/nccl_device.h" ] && { export NCCL_ROOT=$d/nvidia/nccl; break; }
  done
fi
if [ -z "${NVSHMEM_ROOT:-}" ] && [ -n "${NCCL_ROOT:-}" ] && [ -f "$(dirname "$NCCL_ROOT")/nvshmem/include/nvshmem.h" ]; then
  export NVSHMEM_ROOT=$(dirname "$NCCL_ROOT")/nvshmem
fi
for d in ${NVSHMEM_ROOT:-} ${NCCL_ROOT:-}; do export LD_LIBRARY_PATH=$d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}; done
# Vulkan: Debian's packages carried in .gl (docs/design.md, "Development"): the loader family
# unpacked into /, the headers and glslangValidator (build time only) into /opt/vk.
vk=""
if ls .gl/*.deb >/dev/null 2>&1; then
  for f in .gl/*.deb; do
    case $f in *libvulkan-dev*|*glslang-tools*|*spirv-tools*) dpkg -x "$f" /opt/vk ;; *) dpkg -x "$f" / ;; esac
  done
  ldconfig
  export PATH=$PATH:/opt/vk/usr/bin # spirv-as/-dis: the SPV_EXT_split_barrier test shader
  vk="-DWGS_VULKAN_INCLUDE_DIR=/opt/vk/usr/include -DWGS_GLSLANG=/opt/vk/usr/bin/glslangValidator"
  for j in /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json \
           /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json; do
    [ -f "$j" ] && { export VK_DRIVER_FILES=$j; break; }
  done
  echo "Vulkan: loader from .gl, driver ${VK_DRIVER_FILES:-none found}"
fi
stamp build
cmake -S . -B build-gpu $vk -UNCCL_LIBRARY -UNCCL_INCLUDE_DIR -U'NVSHMEM_*' -DCMAKE_BUILD_TYPE=Release $inc \
  ${lib:+-DOpenCL_LIBRARY=$lib} ${NCCL_ROOT:+-DNCCL_ROOT=$NCCL_ROOT} ${NVSHMEM_ROOT:+-DNVSHMEM_ROOT=$NVSHMEM_ROOT} \
  "-DCMAKE_CUDA_FLAGS=${CUDA_FLAGS:-}" ${CMAKE_EXTRA:-} > /tmp/wgs-build.log 2>&1 &&
  cmake --build build-gpu -j16 >> /tmp/wgs-build.log 2>&1 || { grep -E "rror" /tmp/wgs-build.log | head -30; echo "BUILD FAILED"; exit 1; }
grep -E "warning" /tmp/wgs-build.log | head -10
W=$PWD/build-gpu/cli/wgsync
$W devices
export WGSYNC_DEVICE=NVIDIA
$W kernels -q # the tools kernels' registers: whether the 1024-work-item settings can run

R=$(mktemp -d)/results; mkdir -p "$R"
# $OUT takes only a few files: the results folder goes back as one tarball, after every stage
pack() { tar -C "$(dirname "$R")" -czf "$OUT/results.tar.gz" results; }
# An earlier tree (BASE_TAR, a git archive) built beside this one: its build folder
base_build() { # targets...
  local B=/tmp/wgs-base
  [ -d "$B" ] || { mkdir -p "$B" && tar -xzf "$BASE_TAR" -C "$B"; }
  stamp "base build" >&2
  cmake -S "$B" -B "$B/build" -DCMAKE_BUILD_TYPE=Release -DWGSYNC_BUILD_VULKAN=OFF ${CMAKE_EXTRA:-} $inc \
    ${lib:+-DOpenCL_LIBRARY=$lib} >/dev/null && cmake --build "$B/build" -j16 --target "$@" 2>&1 |
    grep -E "error:" >&2 && echo "BASE BUILD FAILED" >&2
  echo "$B/build"
}
ctest_re() { # log name, regex, time limit
  (cd build-gpu && timeout "$3" ctest -j1 --timeout 120 --output-on-failure -R "$2" -E '^(model|fuzz)\.' > "$R/$1.log" 2>&1)
  grep -E "tests passed|Failed|\*\*\*|Not Run|Timeout|Skipped" "$R/$1.log" | tail -30; pack
}

case $mode in
build) ;;

verify)
  stamp "ctest ${CHECK_RE:-(all)}"
  ctest_re ctest-verify "${CHECK_RE:-.}" "${CHECK_LIMIT:-3000}"
  if [ -n "${LITMUS:-}" ]; then # crossings checked and violations, per design; the mutants must fail
    for b in wgsync-bench-litmus wgsync-bench-litmus-m1 wgsync-bench-litmus-m2; do
      stamp "$b"; timeout 200 build-gpu/bench/$b "$R" "${ROUNDS:-4000}" > "$R/$b.log" 2>&1 || echo "$b: rc $?"
      grep -iE "total|violat" "$R/$b.log" | tail -3; pack
    done
    stamp "litmus on NVIDIA OpenCL"
    timeout 200 build-gpu/bench/wgsync-bench-litmus-cl "$R" "${ROUNDS:-4000}" > "$R/litmus-cl.log" 2>&1; tail -2 "$R/litmus-cl.log"; pack
  fi ;;

bench|guard)
  # BASE_TAR: the same benchmarks from an earlier tree first (its guard printed, not judged), so
  # that a change to device code is seen against its parent on the GPU in hand
  sets="new:build-gpu:$R"
  if [ -n "${BASE_TAR:-}" ]; then
    bb=$(base_build wgsync-bench-skew wgsync-bench-shards wgsync-bench-launch wgsync-bench-stencil)
    mkdir -p "$R/base"; sets="base:$bb:$R/base $sets"
  fi
  for s in $sets; do
    name=${s%%:*}; rest=${s#*:}; bd=${rest%%:*}; out=${rest#*:}
    for b in skew:240 shards:150 launch:120 stencil:120; do
      stamp "$name ${b%:*}"
      timeout "${b#*:}" "$bd/bench/wgsync-bench-${b%:*}" "$out" > "$out/${b%:*}.log" 2>&1 || echo "${b%:*} BENCH FAILED OR TIMED OUT"
      pack
    done
  done
  [ -n "${BASE_TAR:-}" ] && { echo "-- the base tree:"; python3 scripts/perf_guard.py "$R/base" | tee "$R/base/guard.txt"; }
  python3 scripts/perf_guard.py "$R" ${GUARD_WRITE:+--write-baseline --baseline-dir "$R/guard"} | tee "$R/guard.txt"
  pack ;;

tables)
  for t in ${TABLES:-3 4 latency}; do case $t in
  3)
    stamp "table 3 (NVIDIA OpenCL)"
    timeout 600 scripts/table3-run.sh $W "$R/table3" "${RUNS:-20}" > "$R/table3.log" 2>&1; tail -12 "$R/table3/table3.md"; pack ;;
  4)
    clis="new:$W"
    [ -n "${BASE_TAR:-}" ] && clis="base:$(base_build wgsync-cli)/cli/wgsync $clis"
    for c in $clis; do for dev in ${T4_DEVS:-cuda NVIDIA}; do
      name=${c%%:*}-$dev; stamp "table 4 $name"
      WGSYNC_DEVICE=$dev timeout "${T4_LIMIT:-600}" scripts/table4-run.sh "${c#*:}" "$R/$name" gpu "${RUNS:-5}" 2> "$R/$name.log"
      python3 scripts/table4.py "$R/$name" > /dev/null; grep -E "geometric|slower" "$R/$name/table4.md"; pack
    done; done ;;
  latency) # every backend built, every barrier kind, the shapes of the performance guard
    stamp "latency"
    devs="NVIDIA cuda"; $W devices 2>/dev/null | grep -q '^vulkan' && devs="$devs vulkan"
    echo "backend,barrier,groups,threads,median_us,min_us,max_us" > "$R/latency-cli.csv"
    for dev in ${LAT_DEVS:-$devs}; do for b in xf counter; do
      for gt in ${LAT_SHAPES:-132x256 264x256 528x256 792x256 1056x256 2112x128 4224x32 264x1024}; do
        WGSYNC_DEVICE=$dev timeout 60 $W latency --json --barrier $b --groups ${gt%x*} --local-size ${gt#*x} \
          --rounds 2000 --runs 7 > "$R/lat.json" 2>/dev/null || { echo "latency $dev $b $gt failed"; continue; }
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%s,%s,%d,%d,%.4f,%.4f,%.4f" % (sys.argv[2],
          d["barrier"], d["groups"], d["local_size"], d["median_us"], d["min_us"], d["max_us"]))' "$R/lat.json" "$dev" >> "$R/latency-cli.csv"
      done
    done; done
    rm -f "$R/lat.json"; cat "$R/latency-cli.csv"; pack ;;
  *) echo "tables: unknown table '$t' (expected 3, 4 or latency)" ;;
  esac; done ;;

team)
  export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 # no NVLink multicast on these hosts
  nvidia-smi topo -m > "$R/topo.txt" 2>&1; cat "$R/topo.txt"
  for c in ${CASES:-bad props mp procs missing}; do
    stamp "team $c"
    t=build-gpu/tests/test_team; [ $c = mp ] && t=build-gpu/tests/test_team_plain
    timeout 120 $t $c > "$R/team-$c.log" 2>&1; echo "rc=$?" >> "$R/team-$c.log"; cat "$R/team-$c.log"; pack
  done
  ngpu=$(nvidia-smi -L | wc -l)
  for n in 2 4 8; do # the team barrier's latency on the first n GPUs, n up to all of them
    [ "$n" -le "$ngpu" ] || continue
    stamp "team mp on $n of $ngpu GPUs"
    CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((n - 1))) timeout 120 build-gpu/tests/test_team_plain mp \
      > "$R/team-mp-$n.log" 2>&1; grep -E "x256|stale" "$R/team-mp-$n.log"; pack
  done
  if [ -z "${NO_JACOBI:-}" ]; then # the Jacobi check, then its benchmark beside NVSHMEM's
    stamp "jacobi check"
    (cd build-gpu && timeout 150 ctest -R "team.jacobi" --output-on-failure) 2>&1 | tail -15 | tee "$R/jacobi-check.log"; pack
    stamp "jacobi bench"
    timeout ${JACOBI_LIMIT:-300} build-gpu/apps/wgsync-jacobi --bench "$R/jacobi" 2>&1 | tee "$R/jacobi-bench.log"; pack
    [ -n "${NVSHMEM_ROOT:-}" ] && cmake --build build-gpu -j16 --target wgsync-jacobi-nvshmem > "$R/nvshmem-build.log" 2>&1
    if [ -x build-gpu/apps/wgsync-jacobi-nvshmem ]; then
      stamp "jacobi nvshmem"
      timeout ${JACOBI_LIMIT:-300} build-gpu/apps/wgsync-jacobi-nvshmem --bench "$R/jacobi" 2>&1 | tee "$R/jacobi-nvshmem.log"; pack
    else
      echo "wgsync-jacobi-nvshmem not built (NVSHMEM not found)"
    fi
    python3 scripts/plot_scaling.py "$R/jacobi/scaling.png" "$R/jacobi" || echo "no scaling plot (matplotlib?)"; pack
  fi ;;
esac
stamp done
