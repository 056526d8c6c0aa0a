#!/usr/bin/env bash
# Everything wgsync does on the GPU machine, in one call: register NVIDIA's OpenCL, build, run the
# test suite on NVIDIA OpenCL, and the CLI's measurements (Sorensen et al. 2016 Table 3 settings) as JSON
# under $OUT.
#   scripts/gpu.sh smoke   build + devices + a short barrier/discover/bound on NVIDIA
#   scripts/gpu.sh full    build + ctest on NVIDIA + bound/discover for the four settings
#   scripts/gpu.sh cuda    build + the CUDA tests + the CUDA benchmark
#   scripts/gpu.sh apps    build + the app tests on NVIDIA OpenCL and CUDA + Table 4 on both
#   scripts/gpu.sh split   build + the work-group split tests and benchmark on NVIDIA OpenCL
#   scripts/gpu.sh verify  build + the whole test suite (NVIDIA OpenCL and CUDA), no benchmarks
#   scripts/gpu.sh defects build + the suite within SUITE_LIMIT s, then wgsync-bench-cuda end to end
#   scripts/gpu.sh barrier build + the grid barrier's benchmarks: the counter barrier's shapes
#                          (inlined, and as a call), grid.sync(), launch overhead, the CLI latency on
#                          both backends (FULLTEST=1: the whole suite first, as verify; APPS=1:
#                          the CUDA and app tests and Table 4 on CUDA instead of the CLI latency)
#   scripts/gpu.sh designs build + the counter barrier's shapes and the designs kept for measurement (WGS_COUNTER_VARIANT)
#                          beside the shipped shapes, launch overhead (APPS=1: then the suite, bounded,
#                          and Table 4 on NVIDIA OpenCL)
#   scripts/gpu.sh apps10  build + the CUDA and app tests + Table 4 on CUDA and NVIDIA OpenCL, as
#                          shipped and as before (--balance nodes --all-groups), and bfs/sssp with
#                          the balanced steps everywhere (SETS picks tables; BASE_TAR: cuda-base
#                          and nvidia-opencl-base with that tree's CLI, same call; VARIANT_FLAGS:
#                          cuda-var, this tree built with those CUDA flags, after -include
#                          bench/cuda/app_variants.h (VARIANT_CFLAGS: C flags);
#                          ENV_SETS: cuda-NAME with run-time variables set, OCL_ENV_SETS the
#                          same for nvidia-opencl-NAME; TESTS=0: no tests)
#   scripts/gpu.sh second  build + on a second GPU kind: the barrier's shapes, launch, the CLI
#                          latency, Table 4 on both backends, mis and color with the barrier a call
#   scripts/gpu.sh team    build + GPU teams (2+ GPUs, NCCL from the PyTorch environment): the team
#                          tests and the team barrier's latency, NVLink multicast off
#   scripts/gpu.sh devcore build + the device core's check: STAGE=1 the suite on both backends and
#                          the litmus (as shipped, and the acquires weakened); STAGE=2 the CLI latency
#                          and bench-shards' default shape, before (BASE_TAR) and after; STAGE="1 2" both
#   scripts/gpu.sh ncu     build + ncu over the app forms' kernels (NCU_APP, NCU_GRAPH, NCU_KERNELS, NCU_FORMS)
#   scripts/gpu.sh vulkan  build + the Vulkan backend on NVIDIA's driver (the loader from .gl):
#                          its tests, discovery against the bound, 10^6 barrier crossings, the
#                          CLI latency beside CUDA's, grid.sync from wgsync-bench-shards
#   scripts/gpu.sh guard   build + the performance guard: the barrier under spread arrivals, its
#                          shapes back to back, the launch and a ported stencil beside grid.sync() and a cooperative
#                          launch, then scripts/perf_guard.py (fails where wgsync is slower, or 5%
#                          above bench/guard's baseline for this GPU; GUARD_WRITE=1: a baseline;
#                          BASE_TAR: an earlier tree's benchmarks first, printed beside it)
#   scripts/gpu.sh check   build + the CUDA, Vulkan, CLI and install tests (CHECK_RE: others)
#   scripts/gpu.sh layer   build + the OpenCL layer's tests and cost on NVIDIA OpenCL (CHECK_RE:
#                          library tests after them)
#   scripts/gpu.sh perf    build + the discovery/launch tests (CHECK_RE), then the launch's costs
#                          (back to back, and the GPU alone from a CUDA graph) and Table 4 on
#                          CUDA, this tree and BASE_TAR's alternately, same call (STAGES="launch
#                          t4": which; CMAKE_EXTRA: more configure options, e.g. the
#                          architectures; VARIANT_FLAGS: "var", this tree with those CUDA flags;
#                          T4_TREES: whose Table 4, default "base new")
#   scripts/gpu.sh skew    build + grid barriers under skewed arrivals (wgsync-bench-skew; SKEW_BENCHES:
#                          which programs, SKEW_LITMUS: litmus builds first), then Table 4's mis and
#                          colour on CUDA under the barrier's shapes (SKEW_SETS, "" for none;
#                          SKEW_APPS, SKEW_ROUNDS), the sets alternating
#   scripts/gpu.sh trace   build + a build of the CLI whose apps time each group's barriers
#                          (APP_TRACE, bench/cuda/app_variants.h), then TRACE_INPUTS with the
#                          CLIs alternating (TRACE_ROUNDS), and bench/cuda/app_trace.py over the
#                          timestamps: each persistent form's kernel split into start, steps and
#                          barriers along its critical path, beside the wall times (untraced:
#                          this tree's CLI, and BASE_TAR's when given; traced: TRACE_SETS,
#                          "name:tuning" with the tuning's spaces as +, through the measurement CLI;
#                          names without '-', which separates the result files' fields)
#   scripts/gpu.sh vkshapes build + the Vulkan tests, then the Vulkan barrier's latency under
#                          tuning values (shards, atom_min) beside CUDA's (VK_SHAPES: the shapes)
#   scripts/gpu.sh litmus  build + litmus at scale: CUDA (as shipped and two weakened barriers),
#                          NVIDIA OpenCL grid barriers and the work-group split barrier
# BASE_TAR=x.tar.gz (cuda mode): also build that source tree (git archive of an earlier commit)
# and run its CUDA bench and CLI latency in the same call, into $OUT/base: before and after
# side by side on one machine.
set -uo pipefail
mode=${1:-full}
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
exec > >(tee "$OUT/gpu-$mode.log") 2>&1
echo "== $(date -u +%FT%TZ) $mode on $(hostname)"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
mkdir -p /etc/OpenCL/vendors
[ -f /etc/OpenCL/vendors/nvidia.icd ] || echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
ls /etc/OpenCL/vendors

# OpenCL headers: the system's, else the ones carried in .devdeps; loader: the system's.
inc=""
[ -f /usr/include/CL/cl.h ] || inc="-DOpenCL_INCLUDE_DIR=$PWD/.devdeps"
lib=$(ldconfig -p | awk '/libOpenCL.so.1 /{print $NF; exit}')
[ -n "$lib" ] || lib=$(ls /usr/local/cuda/lib64/libOpenCL.so* 2>/dev/null | head -1)
echo "OpenCL loader: ${lib:-none}"
# NCCL with its device API (GPU teams): the PyTorch environment's, when there is one.
if [ -z "${NCCL_ROOT:-}" ]; then
  for py in /opt/torch/.venv/bin/python3 python3; do
    d=$($py -c 'import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))' 2>/dev/null) || continue
    [ -f "$d/nvidia/nccl/include/nccl_device.h" ] && { export NCCL_ROOT=$d/nvidia/nccl; break; }
  done
fi
# NVSHMEM (the Jacobi anchor): beside that NCCL, when there
if [ -z "${NVSHMEM_ROOT:-}" ] && [ -n "${NCCL_ROOT:-}" ] && [ -f "$(dirname "$NCCL_ROOT")/nvshmem/include/nvshmem.h" ]; then
  export NVSHMEM_ROOT=$(dirname "$NCCL_ROOT")/nvshmem
fi
[ -n "${NVSHMEM_ROOT:-}" ] && export LD_LIBRARY_PATH=$NVSHMEM_ROOT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if [ -n "${NCCL_ROOT:-}" ]; then
  echo "NCCL: $NCCL_ROOT ($(grep -E 'define NCCL_(MAJOR|MINOR|PATCH) ' $NCCL_ROOT/include/nccl.h | awk '{printf "%s.", $3}'))"
  export LD_LIBRARY_PATH=$NCCL_ROOT/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
# Vulkan: the loader is not installed on the GPU machine. Debian's packages carried in .gl
# (scripts: see docs/design.md, "Development"): the loader family unpacked into /, the headers
# and glslangValidator (build time only) into /opt/vk, named to CMake.
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
cmake -S . -B build-gpu $vk -UNCCL_LIBRARY -UNCCL_INCLUDE_DIR -U'NVSHMEM_*' -DCMAKE_BUILD_TYPE=Release $inc ${lib:+-DOpenCL_LIBRARY=$lib} ${NCCL_ROOT:+-DNCCL_ROOT=$NCCL_ROOT} ${NVSHMEM_ROOT:+-DNVSHMEM_ROOT=$NVSHMEM_ROOT} "-DCMAKE_CUDA_FLAGS=${CUDA_FLAGS:-}" ${CMAKE_EXTRA:-} >/dev/null &&
  cmake --build build-gpu -j16 2>&1 | grep -E "error|warning|Built target" || { echo "BUILD FAILED"; exit 1; }
W=build-gpu/cli/wgsync
$W devices
export WGSYNC_DEVICE=NVIDIA

# register use of the tools kernels (decides whether the 1024-work-item settings can run)
$W kernels -q
# (the measurement build of the CLI takes the library's tuning values from WGSYNC_TUNING)
WT=build-gpu/bench/wgsync-tuned
WGSYNC_TUNING="tools_options=-cl-nv-verbose" $WT kernels | grep -E "max work-group|ptxas|registers|build" | head -30
WGSYNC_TUNING="tools_options=-cl-nv-maxrregcount=64" $WT kernels -q | grep -E "max work-group"

# Packs the mode's results folder $R into $OUT (which takes only a few files); called after
# every stage, so that a later stage that runs out of time loses nothing before it.
pack() { tar -C "$(dirname "$R")" -czf "$OUT/results.tar.gz" results; }

stamp() { echo "== $(date -u +%T) $*"; }
# Table 4 into $R/NAME with the CLI $W (T4_LIMIT seconds at most), then its tables.
t4() { # name, then wgsync app options
  local name=$1; shift
  stamp "table4 $name"
  timeout "${T4_LIMIT:-150}" scripts/table4-run.sh $W "$R/$name" gpu "${RUNS:-3}" "$@" 2> "$R/$name.log"
  python3 scripts/table4.py "$R/$name" > /dev/null; pack
  grep -E "geometric|slower" "$R/$name/table4.md"
}

# Barrier latency through the CLI, OpenCL and CUDA side by side on this GPU, into $R/latency-cli.csv
# (LAT_CSV=name: another file; LAT_SHAPES: fewer shapes).
cli_latency() {
  for dev in ${LAT_DEVS:-NVIDIA cuda}; do for b in ${LAT_KINDS:-xf counter}; do
    for gt in ${LAT_SHAPES:-132x256 264x256 528x256 792x256 1056x256 2112x128 4224x32 264x1024}; do
      WGSYNC_DEVICE=$dev $W latency --json --barrier $b --groups ${gt%x*} --local-size ${gt#*x} \
        --rounds 2000 --runs 7 > "$R/lat.json" || { echo "latency $dev $b $gt failed"; continue; }
      python3 - "$R/lat.json" "$dev" >> "$R/${LAT_CSV:-latency-cli.csv}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(f'{d["device"]["backend"]},{d["device"]["name"]},{d["barrier"]},{d["groups"]},{d["local_size"]},'
      f'{d["median_us"]:.4f},{d["min_us"]:.4f},{d["max_us"]:.4f},{d["repeats"]},{d["rounds"]}')
PY
    done
  done; done
  sed -i '1i backend,device,barrier,groups,threads,median_us,min_us,max_us,repeats,barriers_per_repeat' "$R/${LAT_CSV:-latency-cli.csv}"
  rm -f "$R/lat.json"; cat "$R/${LAT_CSV:-latency-cli.csv}"
}

if [ "$mode" = vulkan ]; then   # the Vulkan backend on NVIDIA's driver, beside CUDA
  R=$(mktemp -d)/results; mkdir -p "$R"
  stamp "devices"
  $W devices | tee "$R/devices.txt"
  stamp "ctest vulkan"
  (cd build-gpu && timeout 240 ctest -j1 --timeout 60 -R 'backend\.vulkan\.(t2|t1\.jacobi|t1\.launch|cli)' --output-on-failure > "$R/ctest-vulkan.log" 2>&1)
  grep -E "tests passed|Failed|\*\*\*|Not Run" "$R/ctest-vulkan.log" | tail -20
  for c in crossings split_wg launch missed; do
    timeout 60 build-gpu/tests/test_backends vulkan $c 2>&1 | tail -3 | tee -a "$R/vulkan-cases.txt"
  done; pack
  if [ -n "${CUDA_CLI:-}" ]; then # the CLI's commands and the registry's cases on cuda:0
    stamp "ctest cuda cli"
    (cd build-gpu && timeout 200 ctest -j1 --timeout 60 -R '^cuda\.cli|^backend\.cuda' --output-on-failure > "$R/ctest-cuda-cli.log" 2>&1)
    grep -E "tests passed|Failed|\*\*\*|Not Run" "$R/ctest-cuda-cli.log" | tail -12; pack
  fi
  stamp "jacobi: persistent, one command buffer, a submit per step"
  for n in 4096 65536 1048576; do
    timeout 100 build-gpu/bench/wgsync-bench-jacobi-vk -n vulkan --size $n --steps 1000 --runs 7 --csv "$R/jacobi-$n.csv" || echo "jacobi $n failed"
  done
  pack
  stamp "discovery against the bound"
  for lt in 256 32 1024; do
    timeout 60 $W discover -n vulkan --bound --runs 10 --local-size $lt --json > "$R/discover-vulkan-$lt.json" || echo "discover vulkan $lt failed"
    timeout 60 $W discover -n cuda --bound --runs 10 --local-size $lt --json > "$R/discover-cuda-$lt.json" || echo "discover cuda $lt failed"
    # over-provisioned 4x the bound: recall and the protocol's time when most groups are turned away
    b=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["bound"])' "$R/discover-vulkan-$lt.json" 2>/dev/null || echo 0)
    if [ "$b" -gt 0 ] 2>/dev/null; then
      for dv in vulkan cuda; do
        timeout 60 $W discover -n $dv --bound --runs 10 --local-size $lt --groups $((4 * b)) --json \
          > "$R/discover4x-$dv-$lt.json" 2>/dev/null || echo "discover 4x $dv $lt failed"
      done
    fi
  done
  python3 - "$R" <<'PY'
import json, sys, glob, os
for f in sorted(glob.glob(sys.argv[1] + "/discover*.json")):
    d = json.load(open(f))
    print(os.path.basename(f), "launched", d.get("launched"), "bound", d.get("bound"), "recall", d.get("recall"), "participants", d["participants"], "protocol_us", d["protocol_us"]["median"], "kernel_us", d["kernel_us"]["median"])
PY
  pack
  stamp "barrier: 10^6 crossings"
  timeout 120 $W barrier -n vulkan --rounds 1000 --local-size 256 | tail -3
  timeout 120 $W barrier -n vulkan --rounds 1000 --local-size 256 --split | tail -2
  stamp "latency, Vulkan and CUDA"
  LAT_DEVS="vulkan cuda" LAT_KINDS=counter LAT_SHAPES="${LAT_SHAPES:-132x256 1056x256 4224x32 264x1024}" cli_latency; pack
  stamp "grid.sync and the counter barrier's shapes (CUDA)"
  timeout 150 build-gpu/bench/wgsync-bench-shards "$R" > "$R/bench-shards.log" 2>&1 || echo "SHARDS BENCH FAILED OR TIMED OUT"
  grep -iE "grid.sync|shape|us" "$R/bench-shards.log" | head -30; pack
  stamp done
  exit 0
fi

if [ "$mode" = layer ]; then   # the OpenCL layer on NVIDIA OpenCL: its tests, then its cost
  R=$(mktemp -d)/results; mkdir -p "$R"
  L=$PWD/build-gpu/libwgsync-layer.so T=build-gpu/tests/test_layer
  # The layer needs a loader with layers: the CUDA toolkit's may have none; Debian's ocl-icd
  # (carried in .gl, unpacked above) has them
  for f in ${lib:-} /usr/local/cuda/lib64/libOpenCL.so.1; do
    [ -f "$f" ] && echo "loader $(readlink -f "$f"): OPENCL_LAYERS $(grep -c OPENCL_LAYERS "$f") mentions"
  done
  [ -f /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 ] && export LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  echo "test_layer runs with: $(ldd $T | grep -i opencl)"
  stamp "layer tests"
  for c in ext split unset default concurrent helper deadlock split_misuse spirv; do
    extra=""; [ $c = spirv ] && extra=build-gpu/tests/layer_split.spv
    case $c in deadlock|split_misuse) export WGSYNC_LAYER_CHECKED=1 ;; esac
    OPENCL_LAYERS=$L WGSYNC_LAYER_VERBOSE=1 timeout 120 $T $c $extra > "$R/layer-$c.log" 2>&1
    echo "layer.$c: rc $?"; grep -vE "^device:" "$R/layer-$c.log" | tail -4
    unset WGSYNC_LAYER_CHECKED
  done
  pack
  stamp "layer cost"
  timeout 300 bench/opencl/bench_layer.sh build-gpu "$R/bench" 256 > "$R/bench.log" 2>&1
  cat "$R/bench.log" | cut -c1-220; pack
  if [ -n "${CHECK_RE:-}" ]; then # tests of the library the layer's change touched
    stamp "ctest $CHECK_RE"
    (cd build-gpu && timeout ${CHECK_LIMIT:-240} ctest -j1 --timeout 120 -R "$CHECK_RE" \
       --output-on-failure > "$R/ctest-check.log" 2>&1)
    grep -E "tests passed|Failed|\*\*\*|Not Run|Timeout" "$R/ctest-check.log" | tail -15; pack
  fi
  stamp done
  exit 0
fi

if [ "$mode" = guard ]; then   # the performance guard (scripts/perf_guard.py): skew, shapes, launch, stencil
  R=$(mktemp -d)/results; mkdir -p "$R"
  # BASE_TAR: the same benchmarks from an earlier tree first (its guard printed, not judged), so
  # that a change to device code is seen against its parent on the GPU in hand
  sets="new:build-gpu:$R"
  if [ -n "${BASE_TAR:-}" ]; then
    B=/tmp/wgs-base
    [ -d "$B" ] || { mkdir -p "$B" && tar -xzf "$BASE_TAR" -C "$B"; }
    stamp "base build"
    cmake -S "$B" -B "$B/build" -DCMAKE_BUILD_TYPE=Release -DWGSYNC_BUILD_VULKAN=OFF ${CMAKE_EXTRA:-} $inc \
      ${lib:+-DOpenCL_LIBRARY=$lib} >/dev/null && cmake --build "$B/build" -j16 --target wgsync-bench-skew \
      wgsync-bench-shards wgsync-bench-launch wgsync-bench-stencil 2>&1 | grep -E "error:" && echo "BASE BUILD FAILED"
    mkdir -p "$R/base"; sets="base:$B/build:$R/base $sets"
  fi
  for s in $sets; do
    name=${s%%:*}; rest=${s#*:}; bd=${rest%%:*}; out=${rest#*:}
    stamp "$name skew";   timeout 240 $bd/bench/wgsync-bench-skew "$out" > "$out/skew.log" 2>&1 || echo "SKEW BENCH FAILED OR TIMED OUT"; pack
    stamp "$name shards"; timeout 150 $bd/bench/wgsync-bench-shards "$out" > "$out/shards.log" 2>&1 || echo "SHARDS BENCH FAILED OR TIMED OUT"; pack
    stamp "$name launch"; timeout 120 $bd/bench/wgsync-bench-launch "$out" > "$out/launch.log" 2>&1 || echo "LAUNCH BENCH FAILED OR TIMED OUT"; pack
    stamp "$name stencil"; timeout 120 $bd/bench/wgsync-bench-stencil "$out" > "$out/stencil.log" 2>&1 || echo "STENCIL BENCH FAILED OR TIMED OUT"; pack
  done
  [ -n "${BASE_TAR:-}" ] && { echo "-- the base tree:"; python3 scripts/perf_guard.py "$R/base" | tee "$R/base/guard.txt"; }
  python3 scripts/perf_guard.py "$R" ${GUARD_WRITE:+--write-baseline --baseline-dir "$R/guard"} | tee "$R/guard.txt"
  pack; stamp done
  exit 0
fi

if [ "$mode" = check ]; then   # the CUDA, Vulkan, CLI and install tests on this GPU (no benchmarks)
  R=$(mktemp -d)/results; mkdir -p "$R"
  stamp "ctest ${CHECK_TESTS:-cuda vulkan cli install}"
  (cd build-gpu && timeout ${CHECK_LIMIT:-420} ctest -j1 --timeout 120 \
     -R "${CHECK_RE:-^cuda\.|^backend\.(cuda|vulkan)|^cli\.|^install\.}" --output-on-failure > "$R/ctest-check.log" 2>&1)
  grep -E "tests passed|Failed|\*\*\*|Not Run|Timeout" "$R/ctest-check.log" | tail -25
  grep -E "nvcc's default runtime|cuda-jacobi" "$R/ctest-check.log" | head -4; pack
  if [ -n "${LAUNCH_BENCH:-}" ]; then # launch costs (wgsync-bench-launch), after the tests
    stamp "launch costs"
    timeout 90 build-gpu/bench/wgsync-bench-launch "$R" 2>&1 | tail -20; pack
  fi
  stamp done
  exit 0
fi

if [ "$mode" = perf ]; then   # issue "performance": before (BASE_TAR) and after, one call
  R=$(mktemp -d)/results; mkdir -p "$R"
  if [ "${TESTS:-1}" != 0 ]; then
    stamp tests
    (cd build-gpu && timeout ${CHECK_LIMIT:-240} ctest -j1 --timeout 60 --output-on-failure \
       -R "${CHECK_RE:-^cuda\.|^backend\.(cuda|vulkan\.t1)|^(epochs|recall|props|mp|reduce)\.t1}" > "$R/ctest-perf.log" 2>&1)
    grep -E "tests passed|Failed|\*\*\*|Not Run|Timeout" "$R/ctest-perf.log" | tail -20; pack
  fi
  trees="new:build-gpu"
  if [ -n "${BASE_TAR:-}" ]; then
    B=/tmp/wgs-base # (kept: a later call on the same machine rebuilds nothing)
    [ -d "$B" ] || { mkdir -p "$B" && tar -xzf "$BASE_TAR" -C "$B"; }
    stamp "base build"
    cmake -S "$B" -B "$B/build" -DCMAKE_BUILD_TYPE=Release -DWGSYNC_BUILD_VULKAN=OFF ${CMAKE_EXTRA:-} $inc \
      ${lib:+-DOpenCL_LIBRARY=$lib} >/dev/null && cmake --build "$B/build" -j16 --target wgsync-cli \
      wgsync-bench-launch wgsync-bench-launch-phases 2>&1 | grep -E "error:" && echo "BASE BUILD FAILED"
    trees="base:$B/build new:build-gpu"
  fi
  if [ -n "${VARIANT_FLAGS:-}" ]; then   # this tree with other CUDA flags: "var", same call
    stamp "variant build ($VARIANT_FLAGS)"
    cmake -S . -B build-var -DCMAKE_BUILD_TYPE=Release -DWGSYNC_BUILD_VULKAN=OFF ${CMAKE_EXTRA:-} $inc \
      ${lib:+-DOpenCL_LIBRARY=$lib} "-DCMAKE_CUDA_FLAGS=$VARIANT_FLAGS" >/dev/null && cmake --build build-var -j16 \
      --target wgsync-cli wgsync-bench-launch wgsync-bench-launch-phases 2>&1 | grep -E "error:" && echo "VARIANT BUILD FAILED"
    trees="$trees var:build-var"
  fi
  if [[ " ${STAGES:-launch t4} " == *" launch "* ]]; then
    for rep in 1 2; do for t in $trees; do
      n=${t%%:*} d=${t#*:}
      stamp "launch $n $rep"
      mkdir -p "$R/launch-$n-$rep" "$R/phases-$n-$rep"
      timeout 90 "$d/bench/wgsync-bench-launch" "$R/launch-$n-$rep" > "$R/launch-$n-$rep/log" 2>&1 || echo "LAUNCH BENCH FAILED"
      grep -E "^(plain|cooperative|wgsync)" "$R/launch-$n-$rep/log" | sed "s/^/$n /"
      timeout 90 "$d/bench/wgsync-bench-launch-phases" "$R/phases-$n-$rep" > "$R/phases-$n-$rep/log" 2>&1 || echo "PHASES BENCH FAILED"
      grep -E "wgsync kernel|cooperative" "$R/phases-$n-$rep/log" | sed "s/^/$n /"
    done; done; pack
  fi
  if [[ " ${STAGES:-launch t4} " == *" t4 "* ]]; then
    for t in $trees; do # (T4_TREES: which trees; the variant's launch costs alone by default)
      [[ " ${T4_TREES:-base new} " == *" ${t%%:*} "* ]] || continue
      W=${t#*:}/cli/wgsync RUNS=${RUNS:-5} t4 "cuda-${t%%:*}" -n cuda
    done
  fi
  stamp done
  exit 0
fi

if [ "$mode" = skew ]; then   # grid barriers under skewed arrivals; mis and colour under shapes
  R=$(mktemp -d)/results; mkdir -p "$R"
  # SKEW_BENCHES: the programs, each into its own folder (e.g. a design's build beside the
  # shipped one, and wgsync-bench-shards[-vN] for the same shapes back to back); SKEW_LITMUS: the
  # litmus builds to run first (a design that changes an ordering must pass them)
  for b in ${SKEW_LITMUS:-}; do
    stamp "$b"
    timeout 200 build-gpu/bench/$b "$R/$b" "${ROUNDS_LITMUS:-4000}" > "$R/$b.log" 2>&1 || echo "$b FAILED"
    grep -iE "violat|design|crossings" "$R/$b.log" | tail -12; pack
  done
  for b in ${SKEW_BENCHES:-wgsync-bench-skew}; do
    stamp "$b"
    timeout ${SKEW_LIMIT:-240} build-gpu/bench/$b "$R/$b" > "$R/$b.log" 2>&1 || echo "$b FAILED"
    grep -E "1056x256|design" "$R/$b.log"; pack
  done
  # SKEW_SETS="name:tuning ..." (the tuning's spaces as +): Table 4's SKEW_APPS on CUDA with the
  # measurement CLI under each, the sets alternating, SKEW_ROUNDS times
  for round in $(seq 1 ${SKEW_ROUNDS:-2}); do
    for spec in ${SKEW_SETS-default: one-a1:shards=0+atom_min=1}; do
      (export WGSYNC_TUNING="${spec#*:}"; WGSYNC_TUNING=${WGSYNC_TUNING//+/ }; export ONLY="${SKEW_APPS:-mis color}"
       W=$WT t4 "cuda-${spec%%:*}-$round" -n cuda)
    done
  done
  stamp done
  exit 0
fi

if [ "$mode" = trace ]; then   # where the persistent apps' time goes, group by group
  R=$(mktemp -d)/results; mkdir -p "$R"; T=/tmp/wgs-trace; rm -rf "$T"; mkdir -p "$T"
  stamp "trace build"
  cmake -S . -B build-trace -DCMAKE_BUILD_TYPE=Release -DWGSYNC_BUILD_VULKAN=OFF ${CMAKE_EXTRA:-} $inc \
    ${lib:+-DOpenCL_LIBRARY=$lib} "-DCMAKE_CUDA_FLAGS=-include $PWD/bench/cuda/app_variants.h -DAPP_TRACE=1 ${TRACE_FLAGS:-}" \
    >/dev/null && cmake --build build-trace -j16 --target wgsync-cli wgsync-tuned 2>&1 | grep -E "error:" && echo "TRACE BUILD FAILED"
  clis="plain:build-gpu/cli/wgsync:-"
  if [ -n "${BASE_TAR:-}" ]; then
    B=/tmp/wgs-base; [ -d "$B" ] || { mkdir -p "$B" && tar -xzf "$BASE_TAR" -C "$B"; }
    stamp "base build"
    cmake -S "$B" -B "$B/build" -DCMAKE_BUILD_TYPE=Release -DWGSYNC_BUILD_VULKAN=OFF ${CMAKE_EXTRA:-} $inc \
      ${lib:+-DOpenCL_LIBRARY=$lib} >/dev/null && cmake --build "$B/build" -j16 --target wgsync-cli 2>&1 | grep -E "error:" && echo "BASE BUILD FAILED"
    clis="base:$B/build/cli/wgsync:- $clis"
  fi
  # DESIGNS="name:flags ...": this tree with DESIGN_PATCH applied (a design of the device library
  # kept as a patch in bench/results), traced, built with those CUDA flags (spaces as +) into
  # /tmp/wgs-design-NAME; its litmus runs first (ROUNDS_LITMUS), and a TRACE_SETS entry
  # "set@NAME:tuning" runs its CLI
  for d in ${DESIGNS:-}; do
    dn=${d%%:*} df=${d#*:}; D=/tmp/wgs-design-$dn
    rm -rf "$D"; mkdir -p "$D"
    tar --exclude='./build*' --exclude=./.gl --exclude=./out -cf - . | tar -xf - -C "$D"
    [ -z "${DESIGN_PATCH:-}" ] || (cd "$D" && patch -s -p1 < "$DESIGN_PATCH") || echo "DESIGN PATCH FAILED"
    stamp "design $dn build (${df//+/ })"
    cmake -S "$D" -B "$D/build" -DCMAKE_BUILD_TYPE=Release -DWGSYNC_BUILD_VULKAN=OFF ${CMAKE_EXTRA:-} $inc \
      ${lib:+-DOpenCL_LIBRARY=$lib} "-DCMAKE_CUDA_FLAGS=-include $PWD/bench/cuda/app_variants.h -DAPP_TRACE=1 ${df//+/ }" \
      >/dev/null && cmake --build "$D/build" -j16 --target wgsync-cli wgsync-tuned wgsync-bench-litmus wgsync-bench-skew 2>&1 |
      grep -E "error:" && echo "DESIGN BUILD FAILED"
    stamp "design $dn litmus"
    mkdir -p "$R/litmus-$dn"
    timeout 150 "$D/build/bench/wgsync-bench-litmus" "$R/litmus-$dn" "${ROUNDS_LITMUS:-1000}" > "$R/litmus-$dn/log" 2>&1 || echo "LITMUS $dn FAILED"
    grep -iE "violat|total" "$R/litmus-$dn/log" | tail -4; pack
  done
  for spec in ${TRACE_SETS:-trace:}; do   # traced: the CLI as built, or the measurement CLI under a tuning
    sn=${spec%%:*} tree=build-trace
    [[ "$sn" == *@* ]] && { tree=/tmp/wgs-design-${sn#*@}/build; sn=${sn%@*}; }
    if [ -z "${spec#*:}" ]; then clis="$clis $sn:$tree/cli/wgsync:-"
    else clis="$clis $sn:$tree/bench/wgsync-tuned:${spec#*:}"; fi
  done
  for round in $(seq 1 ${TRACE_ROUNDS:-2}); do
    for ag in ${TRACE_INPUTS:-color:grid:1000 mis:grid:1000 color:road:1000 mis:road:1000 sssp:kron:16 color:random:20 mis:random:20 color:kron:18}; do
      app=${ag%%:*} graph=${ag#*:} name="${ag//:/-}"
      for t in $clis; do
        n=${t%%:*} rest=${t#*:}; cli=${rest%%:*} tune=${rest#*:}; [ "$tune" = - ] && tune=""
        stamp "$name $n $round"
        tf=$T/$name-$n-$round.bin; [ "$n" = plain ] || [ "$n" = base ] && tf=/dev/null
        WGSYNC_TUNING="${tune//+/ }" APP_TRACE_FILE=$tf WGSYNC_DEVICE=cuda timeout 120 "$cli" app $app -n cuda \
          --graph $graph --runs ${RUNS:-9} --forms ${TRACE_FORMS:-persistent,fixed,gridsync} --json -q \
          > "$R/$name-$n-$round.json" 2> "$R/err.txt" || { echo "FAILED: $(tail -3 "$R/err.txt")"; rm -f "$R/$name-$n-$round.json"; }
      done
    done
  done
  rm -f "$R/err.txt"
  stamp analysis
  python3 bench/cuda/app_trace.py "$T"/*.bin --csv "$R/trace.csv" > "$R/trace.md" || echo "ANALYSIS FAILED"
  cat "$R/trace.md"
  python3 - "$R" > "$R/wall.csv" <<'PY'
import glob, json, os, sys
print("input,build,round,form,median_ms,min_ms,max_ms,steps,groups")
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    name, build, rnd = os.path.basename(f)[:-5].rsplit("-", 2)
    for x in json.load(open(f))["forms"]:
        print(f'{name},{build},{rnd},{x["form"]},{x["median_ms"]:.4f},{x["min_ms"]:.4f},{x["max_ms"]:.4f},{x["steps"]},{x["groups"]}')
PY
  python3 - "$R/wall.csv" <<'PY'
import csv, statistics, sys
by = {}
for r in csv.DictReader(open(sys.argv[1])):
    by.setdefault((r["input"], r["form"], r["build"]), []).append(float(r["median_ms"]) * 1e3)
for k in sorted(by):
    print("%-18s %-11s %-8s wall us %s" % (k + (" ".join("%.1f" % v for v in by[k]),)))
PY
  pack
  for d in ${SKEW_DESIGNS:-}; do   # barriers alone under spread arrivals: shipped, then the design
    for t in shipped:build-gpu "$d:/tmp/wgs-design-$d/build"; do
      stamp "skew ${t%%:*}"; mkdir -p "$R/skew-${t%%:*}"
      WGS_SKEW_SHAPES=${SKEW_SHAPES:-1056x256} WGS_SKEW_DELAYS_NS="${SKEW_DELAYS:-0 1000 4000}" timeout 120 \
        "${t#*:}/bench/wgsync-bench-skew" "$R/skew-${t%%:*}" > "$R/skew-${t%%:*}/log" 2>&1 || echo "SKEW FAILED"
      grep -E "1056x256|x256" "$R/skew-${t%%:*}/log" | head -20; pack
    done
  done
  stamp done
  exit 0
fi

if [ "$mode" = vkshapes ]; then   # the Vulkan barrier's shapes through the tuning hook
  R=$(mktemp -d)/results; mkdir -p "$R"
  stamp "ctest vulkan"
  (cd build-gpu && timeout 200 ctest -j1 --timeout 60 -R 'backend\.vulkan\.(t2|cli)' --output-on-failure > "$R/ctest-vulkan.log" 2>&1)
  grep -E "tests passed|Failed|\*\*\*|Not Run" "$R/ctest-vulkan.log" | tail -20
  for i in 1 2 3; do timeout 60 $W barrier -n vulkan --rounds 1000 --local-size 256 | grep -E "passed|WGS_E"; done
  timeout 60 $W barrier -n vulkan --rounds 1000 --local-size 256 --split | grep -E "passed|WGS_E"; pack
  stamp "Vulkan latency under tuning values (bench/wgsync-tuned)"
  echo "tuning,groups,threads,median_us,min_us,max_us" > "$R/vk-shapes.csv"
  for tun in default "shards=0" "atom_min=0" "shards=0 atom_min=0" "shards=32,16,2000 atom_min=0"; do
    for gt in ${VK_SHAPES:-132x256 264x256 528x256 1056x256 2112x128 4224x32 264x1024}; do
      spec=$tun; [ "$tun" = default ] && spec=""
      WGSYNC_TUNING="$spec" timeout 60 build-gpu/bench/wgsync-tuned latency -n vulkan --json --groups ${gt%x*} --local-size ${gt#*x} \
        --rounds 2000 --runs 7 > "$R/lat.json" || { echo "latency $tun $gt failed"; continue; }
      python3 - "$R/lat.json" "$tun" >> "$R/vk-shapes.csv" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(f'{sys.argv[2]},{d["groups"]},{d["local_size"]},{d["median_us"]:.4f},{d["min_us"]:.4f},{d["max_us"]:.4f}')
PY
    done
  done
  cat "$R/vk-shapes.csv"; pack
  stamp "latency, CUDA (same machine)"
  LAT_DEVS="cuda" LAT_KINDS=counter LAT_SHAPES="${VK_SHAPES:-132x256 264x256 528x256 1056x256 2112x128 4224x32 264x1024}" cli_latency; pack
  stamp done
  exit 0
fi

if [ "$mode" = cuda ]; then   # CUDA tests and benchmark only
  R=$(mktemp -d)/results; mkdir -p "$R/cuda"
  if [ -n "${FULLTEST:-}" ]; then   # the whole suite on NVIDIA OpenCL as well
    (cd build-gpu && ctest -j1 --output-on-failure 2>&1 | tee "$R/ctest-nvidia.log" | grep -E "tests passed|Failed|Not Run" | tail -20)
  fi
  (cd build-gpu && ctest -j1 -R '^cuda' --output-on-failure 2>&1 | tail -15)
  timeout 300 build-gpu/bench/wgsync-bench-cuda "$R/cuda" || echo "BENCH FAILED OR TIMED OUT"
  timeout 120 build-gpu/bench/wgsync-bench-launch "$R/cuda" || echo "LAUNCH BENCH FAILED OR TIMED OUT"
  timeout 120 build-gpu/bench/wgsync-bench-shards "$R/cuda" || echo "SHARDS BENCH FAILED OR TIMED OUT"
    cli_latency
tar -C "$(dirname "$R")" -czf "$OUT/results.tar.gz" results
  if [ -n "${BASE_TAR:-}" ]; then
    B=$(mktemp -d); mkdir -p "$OUT/base"
    tar -xzf "$BASE_TAR" -C "$B"
    cmake -S "$B" -B "$B/build" -DCMAKE_BUILD_TYPE=Release $inc ${lib:+-DOpenCL_LIBRARY=$lib} >/dev/null &&
      cmake --build "$B/build" -j16 --target wgsync-bench-cuda wgsync-cli >/dev/null || echo "BASE BUILD FAILED"
    timeout 300 "$B/build/bench/wgsync-bench-cuda" "$OUT/base" > "$OUT/base/bench.log" 2>&1
    # launch overhead of the earlier tree: this tree's launch bench on its synchronous API
    nvcc -O2 -std=c++17 -arch=sm_90 -DWGS_BENCH_SYNC_ONLY -I"$B/include" -I"$B/device/cuda" \
      -I"$B/device/common" bench/cuda/bench_launch.cu "$B/build/libwgsync_cuda.a" \
      "$B/build/libwgsync.a" -lOpenCL -o "$B/bench-launch" && timeout 120 "$B/bench-launch" "$OUT/base" \
      >> "$OUT/base/bench.log" 2>&1 || echo "BASE LAUNCH BENCH FAILED"
    for W2 in "$B/build/cli/wgsync" "$W"; do for dev in NVIDIA cuda; do
      for gt in 132x256 1056x256 4224x32 264x1024; do
        echo "$W2 $dev counter $gt: $(WGSYNC_DEVICE=$dev $W2 latency --barrier counter --groups ${gt%x*} \
          --local-size ${gt#*x} --rounds 2000 --runs 7 2>&1 | grep -E 'median|WGS_E')"
      done; done; done | tee -a "$OUT/base/bench.log"
  fi
  exit 0
fi

if [ "$mode" = apps ]; then   # Sorensen et al. 2016 Table 4 on NVIDIA OpenCL and CUDA
  R=$(mktemp -d)/results; mkdir -p "$R"
  if [ -n "${FULLTEST:-}" ]; then   # the whole suite on NVIDIA OpenCL (and the CUDA tests)
    (cd build-gpu && ctest -j1 --output-on-failure 2>&1 | tee "$R/ctest-nvidia.log" | grep -E "tests passed|Failed|\*\*\*|Not Run" | tail -20)
  else
    (cd build-gpu && ctest -j1 -R '^apps?\.' --output-on-failure 2>&1 | tee "$R/ctest-apps-nvidia.log" | tail -12)
  fi
  (cd build-gpu && ctest -j1 -R '^cuda' 2>&1 | tail -3)
  pack
  scripts/table4-run.sh $W "$R/nvidia-opencl" gpu "${RUNS:-5}"; pack
  WGSYNC_DEVICE=cuda scripts/table4-run.sh $W "$R/cuda" gpu "${RUNS:-5}" -n cuda; pack
  python3 scripts/table4.py "$R/nvidia-opencl" "$R/cuda" > /dev/null; pack
  cat "$R"/*/table4.md
  exit 0
fi

if [ "$mode" = split ]; then   # the work-group split barrier on NVIDIA OpenCL
  R=$(mktemp -d)/results; mkdir -p "$R"
  (cd build-gpu && ctest -j1 -R 'wg_split|wg_misuse|^split' --output-on-failure 2>&1 | tee "$R/ctest-split-nvidia.log" | grep -E "Test +#|tests passed|wgsync: work-group" | tail -40)
  build-gpu/tests/test_wgsync wg_split 2>&1 | tee "$R/wg_split-nvidia.log"
  build-gpu/bench/wgsync-bench-split-cl "$R" 2>&1 | tee "$R/bench-split-cl.log"
  tar -C "$(dirname "$R")" -czf "$OUT/results.tar.gz" results
  exit 0
fi

if [ "$mode" = designs ]; then   # the counter barrier's unsharded designs side by side, and launch
  R=$(mktemp -d)/results; mkdir -p "$R/cuda"
  stamp() { echo "== $(date -u +%T) $*"; }
  stamp shards; timeout 150 build-gpu/bench/wgsync-bench-shards "$R/cuda" 2>&1 | tee "$R/cuda/bench-shards.log" || echo "SHARDS BENCH FAILED OR TIMED OUT"
  pack
  for v in 2 3; do
    stamp "design $v"; mkdir -p "$R/cuda-v$v"
    WGS_BENCH_SHAPES="default;0/a0;0/a1" timeout 100 build-gpu/bench/wgsync-bench-shards-v$v "$R/cuda-v$v" 2>&1 |
      tee "$R/cuda-v$v/bench-shards.log" || echo "DESIGN $v FAILED OR TIMED OUT"
    pack
  done
  stamp launch; timeout 120 build-gpu/bench/wgsync-bench-launch "$R/cuda" 2>&1 | tee "$R/cuda/bench-launch.log" || echo "LAUNCH BENCH FAILED OR TIMED OUT"
  pack
  stamp latency; cli_latency; pack
  if [ -n "${APPS:-}" ]; then   # the suite (bounded), then Table 4 on NVIDIA OpenCL
    stamp suite
    (cd build-gpu && timeout 200 ctest -j1 --timeout 60 --output-on-failure -E '^(model|fuzz|install)\.' \
       > "$R/ctest-verify.log" 2>&1; grep -E "tests passed|Failed|\*\*\*|Not Run" "$R/ctest-verify.log" | tail -30)
    pack
    stamp table4; timeout 200 scripts/table4-run.sh $W "$R/nvidia-opencl" gpu "${RUNS:-3}"; pack
    python3 scripts/table4.py "$R/nvidia-opencl" > /dev/null; pack
    cat "$R"/nvidia-opencl/table4.md
  fi
  stamp done
  exit 0
fi

if [ "$mode" = team ]; then   # GPU teams (2 or more GPUs): the team tests and the team barrier's latency
  R=$(mktemp -d)/results; mkdir -p "$R"
  export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1   # no NVLink multicast on this host
  nvidia-smi topo -m > "$R/topo.txt" 2>&1; cat "$R/topo.txt"
  if [ -n "${SANITIZE:-}" ]; then   # where a failing team kernel faults (build with CUDA_FLAGS=-lineinfo)
    timeout 200 compute-sanitizer --tool memcheck --show-backtrace device build-gpu/tests/test_team props 2>&1 |
      head -60 | tee "$R/sanitizer-props.log"; pack
  fi
  for c in ${CASES:-bad props mp procs missing}; do
    stamp "team $c"
    t=build-gpu/tests/test_team; [ $c = mp ] && t=build-gpu/tests/test_team_plain
    timeout 120 $t $c > "$R/team-$c.log" 2>&1; echo "rc=$?" >> "$R/team-$c.log"; cat "$R/team-$c.log"; pack
  done
  # with more than 2 GPUs: the team barrier's latency on the first 2, 4, 8 of them (issue 12)
  ngpu=$(nvidia-smi -L | wc -l)
  for n in 2 4 8; do
    [ "$n" -le "$ngpu" ] || continue
    stamp "team mp on $n of $ngpu GPUs"
    CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((n - 1))) timeout 120 build-gpu/tests/test_team_plain mp \
      > "$R/team-mp-$n.log" 2>&1; grep -E "x256|stale" "$R/team-mp-$n.log"; pack
  done
  if [ -z "${NO_JACOBI:-}" ]; then   # the Jacobi check (ctest team.jacobi), then its benchmark
    stamp "jacobi check"
    (cd build-gpu && timeout 150 ctest -R "team.jacobi" --output-on-failure) 2>&1 | tail -15 | tee "$R/jacobi-check.log"; pack
    stamp "jacobi bench"
    [ -n "${NVSHMEM_ONLY:-}" ] || { timeout ${JACOBI_LIMIT:-300} build-gpu/apps/wgsync-jacobi --bench "$R/jacobi" 2>&1 | tee "$R/jacobi-bench.log"; pack; }
    [ -n "${NVSHMEM_ROOT:-}" ] && { cmake --build build-gpu -j16 --target wgsync-jacobi-nvshmem > "$R/nvshmem-build.log" 2>&1 || tail -30 "$R/nvshmem-build.log"; }
    if [ -x build-gpu/apps/wgsync-jacobi-nvshmem ]; then   # the NVSHMEM anchor, same sets
      stamp "jacobi nvshmem"
      timeout ${JACOBI_LIMIT:-300} build-gpu/apps/wgsync-jacobi-nvshmem --bench "$R/jacobi" 2>&1 | tee "$R/jacobi-nvshmem.log"; pack
    else
      echo "wgsync-jacobi-nvshmem not built (NVSHMEM not found)"
    fi
    python3 scripts/plot_scaling.py "$R/jacobi/scaling.png" "$R/jacobi" || echo "no scaling plot (matplotlib?)"
    pack
  fi
  nv=$(dirname "${NCCL_ROOT:-/nonexistent}")/nvshmem   # what NVSHMEM this environment has
  ls "$nv" "$nv/include" "$nv/lib" 2>&1 | head -40 > "$R/nvshmem-ls.txt"; pack
  stamp done
  exit 0
fi

if [ "$mode" = second ]; then   # a second GPU kind: the barrier's shapes, launch, latency, Table 4
  R=$(mktemp -d)/results; mkdir -p "$R/cuda"
  stamp shards; timeout 150 build-gpu/bench/wgsync-bench-shards "$R/cuda" > "$R/cuda/bench-shards.log" 2>&1 || echo "SHARDS BENCH FAILED OR TIMED OUT"
  grep -E "grid.sync|default" "$R/cuda/bench-shards.log"; pack
  stamp launch; timeout 120 build-gpu/bench/wgsync-bench-launch "$R/cuda" 2>&1 | tee "$R/cuda/bench-launch.log" || echo "LAUNCH BENCH FAILED OR TIMED OUT"
  pack
  stamp latency; cli_latency > /dev/null; pack
  t4 cuda -n cuda
  t4 nvidia-opencl
  # mis and color with the grid barrier a call (WGS_BARRIER_CALL=1): is their per-step cost
  # against grid.sync() the inlined barrier's registers?
  stamp "build with the barrier a call"
  cmake -S . -B build-call -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_FLAGS=-DWGS_BARRIER_CALL=1 $inc \
    ${lib:+-DOpenCL_LIBRARY=$lib} > /dev/null && cmake --build build-call -j16 --target wgsync-cli > /dev/null 2>&1 &&
    W=build-call/cli/wgsync ONLY="mis color" t4 cuda-call -n cuda
  stamp done
  exit 0
fi

if [ "$mode" = apps10 ]; then   # issue 10's Table 4: every form, as shipped and as before, both backends
  R=$(mktemp -d)/results; mkdir -p "$R"
  [ "${TESTS:-1}" = 0 ] || { stamp tests
  (cd build-gpu && timeout 200 ctest -j1 --timeout 60 --output-on-failure -R '^(cuda|apps?|or|portable)\.' > "$R/ctest-cuda-apps.log" 2>&1
   grep -E "tests passed|Failed|\*\*\*|Not Run" "$R/ctest-cuda-apps.log" | tail -12); pack; }
  # SETS="cuda nvidia-opencl ...": those tables only
  want() { [ -z "${SETS:-}" ] || [[ " $SETS " == *" $1 "* ]]; }
  want cuda && t4 cuda -n cuda
  want cuda-before && t4 cuda-before -n cuda --balance nodes --all-groups
  want nvidia-opencl && t4 nvidia-opencl
  want cuda-edges && ONLY="bfs sssp" t4 cuda-edges -n cuda --balance edges
  want nvidia-opencl-before && t4 nvidia-opencl-before --balance nodes --all-groups
  want cuda-nodes && t4 cuda-nodes -n cuda --balance nodes
  want nvidia-opencl-nodes && t4 nvidia-opencl-nodes --balance nodes
  # ENV_SETS="name:VAR=value+VAR=value ...": Table 4 on CUDA again with those variables set
  # (e.g. WGSYNC_TUNING=shards=0, which the measurement build of the CLI, bench/wgsync-tuned,
  # applies; trees before src/tuning.h read WGSYNC_BARRIER_SHARDS), into cuda-NAME; OCL_ENV_SETS the
  # same on NVIDIA OpenCL, into nvidia-opencl-NAME
  env_t4() { # prefix, specs, then wgsync app options
    local prefix=$1 specs=$2 spec; shift 2
    for spec in $specs; do
      (IFS=+; for a in ${spec#*:}; do export "$a"; done; unset IFS
       W=$WT t4 "$prefix-${spec%%:*}" "$@")
    done
  }
  env_t4 cuda "${ENV_SETS:-}" -n cuda
  env_t4 nvidia-opencl "${OCL_ENV_SETS:-}"
  if [ -n "${VARIANT_FLAGS:-}" ]; then   # this tree built with other CUDA flags: cuda-var, same call
    stamp "variant build ($VARIANT_FLAGS)"
    cmake -S . -B build-var -DCMAKE_BUILD_TYPE=Release $inc ${lib:+-DOpenCL_LIBRARY=$lib} "-DCMAKE_CUDA_FLAGS=-include $PWD/bench/cuda/app_variants.h $VARIANT_FLAGS" "-DCMAKE_C_FLAGS=${VARIANT_CFLAGS:-}" >/dev/null &&
      cmake --build build-var -j16 --target wgsync-cli >/dev/null 2>&1 || echo "VARIANT BUILD FAILED"
    W0=$W; W=build-var/cli/wgsync
    want cuda-var && t4 cuda-var -n cuda
    W=$W0
  fi
  if [ -n "${BASE_TAR:-}" ]; then   # the tree before the change (git archive), same machine, same call
    B=$(mktemp -d); tar -xzf "$BASE_TAR" -C "$B"
    stamp "base build"
    cmake -S "$B" -B "$B/build" -DCMAKE_BUILD_TYPE=Release $inc ${lib:+-DOpenCL_LIBRARY=$lib} >/dev/null &&
      cmake --build "$B/build" -j16 --target wgsync-cli >/dev/null 2>&1 || echo "BASE BUILD FAILED"
    W0=$W; W=$B/build/cli/wgsync
    want cuda-base && t4 cuda-base -n cuda
    want nvidia-opencl-base && t4 nvidia-opencl-base
    W=$W0
  fi
  stamp done
  exit 0
fi

if [ "$mode" = barrier ]; then   # issue 14's figures: every shape, one process per binary
  R=$(mktemp -d)/results; mkdir -p "$R/cuda"
  if [ -n "${FULLTEST:-}" ]; then
    # bounded twice (per test, and the whole suite), so that the benchmarks still run
    (cd build-gpu && timeout 330 ctest -j1 --timeout 90 --output-on-failure -E '^(model|fuzz)\.' \
       > "$R/ctest-verify.log" 2>&1; grep -E "tests passed|Failed|\*\*\*|Not Run" "$R/ctest-verify.log" | tail -30)
    pack
  fi
  timeout 150 build-gpu/bench/wgsync-bench-shards "$R/cuda" 2>&1 | tee "$R/cuda/bench-shards.log" || echo "SHARDS BENCH FAILED OR TIMED OUT"
  mkdir -p "$R/cuda-call"
  timeout 150 build-gpu/bench/wgsync-bench-shards-call "$R/cuda-call" 2>&1 | tee "$R/cuda-call/bench-shards.log" || echo "CALL SHARDS BENCH FAILED OR TIMED OUT"
  pack
  timeout 120 build-gpu/bench/wgsync-bench-launch "$R/cuda" 2>&1 | tee "$R/cuda/bench-launch.log" || echo "LAUNCH BENCH FAILED OR TIMED OUT"
  pack
  if [ -n "${APPS:-}" ]; then   # Table 4 on CUDA: persistent against grid.sync() and the rest
    (cd build-gpu && timeout 120 ctest -j1 --timeout 60 -R '^(cuda|apps?)\.' 2>&1 | tee "$R/ctest-cuda-apps.log" | tail -4)
    WGSYNC_DEVICE=cuda timeout 300 scripts/table4-run.sh $W "$R/cuda-apps" gpu "${RUNS:-3}" -n cuda; pack
    python3 scripts/table4.py "$R/cuda-apps" > /dev/null; pack
    cat "$R"/cuda-apps/table4.md
  else
    cli_latency; pack
  fi
  exit 0
fi

if [ "$mode" = core ]; then   # the host core's check: device-API cases, CUDA and CLI tests, latency before/after
  R=$(mktemp -d)/results; mkdir -p "$R"
  stamp "ctest backend cuda cli"
  (cd build-gpu && timeout 240 ctest -j1 -R '^(backend|cuda|cli)\.' --output-on-failure > "$R/ctest-core.log" 2>&1)
  grep -E "tests passed|Failed|\*\*\*|Not Run" "$R/ctest-core.log" | tail -30; pack
  stamp "latency (this tree)"
  LAT_SHAPES="132x256 528x256 1056x256 4224x32" cli_latency; pack
  if [ -n "${BASE_TAR:-}" ]; then   # the same latency with the tree before the change, same machine
    B=$(mktemp -d); tar -xzf "$BASE_TAR" -C "$B"
    stamp "base build"
    cmake -S "$B" -B "$B/build" -DCMAKE_BUILD_TYPE=Release $inc ${lib:+-DOpenCL_LIBRARY=$lib} >/dev/null &&
      cmake --build "$B/build" -j16 --target wgsync-cli >/dev/null 2>&1 || echo "BASE BUILD FAILED"
    stamp "latency (base)"
    W0=$W; W=$B/build/cli/wgsync LAT_CSV=latency-cli-base.csv LAT_SHAPES="132x256 528x256 1056x256 4224x32" cli_latency; W=$W0
    pack
  fi
  stamp done
  exit 0
fi

if [ "$mode" = devcore ]; then   # one device-library core (device/common/wgs_core.h): STAGE=1 the
  # whole suite on NVIDIA OpenCL and CUDA and the litmus (as shipped, and the acquires weakened,
  # which it must catch); STAGE=2 the CLI latency and bench-shards' default shape, this tree and
  # BASE_TAR's, same machine, side by side
  R=$(mktemp -d)/results; mkdir -p "$R"
  if [[ " ${STAGE:-1} " == *" 1 "* ]]; then
    stamp suite
    (cd build-gpu && timeout "${SUITE_LIMIT:-300}" ctest -j1 -E '^(model|fuzz)\.' --output-on-failure > "$R/ctest-verify.log" 2>&1)
    grep -E "tests passed|Failed|\*\*\*|Not Run|Total Test" "$R/ctest-verify.log" | tail -30; pack
    for b in ${LITMUS:-wgsync-bench-litmus wgsync-bench-litmus-m1}; do
      stamp "$b"; timeout 100 build-gpu/bench/$b "$R" "${ROUNDS:-1000}" > "$R/$b.log" 2>&1 || echo "$b FAILED"
      tail -8 "$R/$b.log"; pack
    done
  fi
  if [[ " ${STAGE:-1} " == *" 2 "* ]]; then
    stamp "latency (this tree)"
    LAT_SHAPES="132x256 528x256 1056x256 4224x32" cli_latency > /dev/null; pack
    if [ -n "${BASE_TAR:-}" ]; then
      B=$(mktemp -d); tar -xzf "$BASE_TAR" -C "$B"; mkdir -p "$R/base"
      stamp "base build"
      cmake -S "$B" -B "$B/build" -DCMAKE_BUILD_TYPE=Release $inc ${lib:+-DOpenCL_LIBRARY=$lib} >/dev/null &&
        cmake --build "$B/build" -j16 --target wgsync-bench-shards wgsync-cli >/dev/null 2>&1 || echo "BASE BUILD FAILED"
      stamp "latency (base)"
      W0=$W; W=$B/build/cli/wgsync LAT_CSV=latency-cli-base.csv LAT_SHAPES="132x256 528x256 1056x256 4224x32" cli_latency > /dev/null; W=$W0
      pack
      paste -d, "$R/latency-cli.csv" "$R/latency-cli-base.csv" | awk -F, 'NR>1 {printf "%s %s %s x %s: %.3f (base %.3f) %+.1f%%\n", $1, $3, $4, $5, $6, $16, 100*($6/$16-1)}'
      stamp "bench-shards, the default shape (this tree, base)"   # a kernel with the barrier alone
      cmake --build build-gpu -j16 --target wgsync-bench-shards >/dev/null 2>&1
      for t in "new:build-gpu" "base:$B/build"; do mkdir -p "$R/shards-${t%%:*}"
        WGS_BENCH_SHAPES=default timeout 100 "${t#*:}/bench/wgsync-bench-shards" "$R/shards-${t%%:*}" 2>&1 |
          grep -E "default|registers" | sed "s/^/${t%%:*} /"
      done | tee "$R/bench-shards.txt"; pack
    fi
  fi
  stamp done
  exit 0
fi

if [ "$mode" = devexp ]; then   # the device core's knobs (wgs_core.h, "Experiment knobs") against
  # BASE_TAR, CLI latency, one process per variant and shape, same machine
  R=$(mktemp -d)/results; mkdir -p "$R"
  B=$(mktemp -d); tar -xzf "$BASE_TAR" -C "$B"
  stamp "builds"
  cmake -S "$B" -B "$B/build" -DCMAKE_BUILD_TYPE=Release $inc ${lib:+-DOpenCL_LIBRARY=$lib} >/dev/null &&
    cmake --build "$B/build" -j16 --target wgsync-cli >/dev/null 2>&1 || echo "BASE BUILD FAILED"
  # VARIANTS: "name:-DKNOB=1 -DKNOB2=1 ..." separated by commas
  IFS=, read -ra vs <<< "${VARIANTS:-split-kinds:-DWGS_BARRIER_SPLIT_KINDS=1}"
  for v in "${vs[@]}"; do
    cmake -S . -B "build-${v%%:*}" -DCMAKE_BUILD_TYPE=Release $inc ${lib:+-DOpenCL_LIBRARY=$lib} "-DCMAKE_CUDA_FLAGS=${v#*:}" >/dev/null &&
      cmake --build "build-${v%%:*}" -j16 --target wgsync-cli >/dev/null 2>&1 || echo "BUILD $v FAILED"
  done
  if command -v cuobjdump > /dev/null; then   # the latency kernel's SASS, for each tree
    cuobjdump -sass -fun wgs_cuda_latency_plain "$B/build/libwgsync_cuda.a" > "$R/sass-base.txt" 2>&1
    cuobjdump -sass -fun wgs_cuda_latency_plain build-gpu/libwgsync_cuda.a > "$R/sass-new.txt" 2>&1
    for v in "${vs[@]}"; do cuobjdump -sass -fun wgs_cuda_latency_plain "build-${v%%:*}/libwgsync_cuda.a" > "$R/sass-${v%%:*}.txt" 2>&1; done
    wc -l "$R"/sass-*.txt
  fi
  stamp "latency"
  one() { # label cli device barrier shape [tools options]
    printf "%-22s %-6s %-7s %-9s %s\n" "$1" "$3" "$4" "$5" "$(WGSYNC_TOOLS_OPTIONS="${6:-}" WGSYNC_TUNING="${6:+tools_options=$6}" WGSYNC_DEVICE=$3 $2 latency --barrier $4 \
      --groups ${5%x*} --local-size ${5#*x} --rounds 2000 --runs 7 2>&1 | grep -oE 'median [0-9.]+ us.*\]|WGS_E.*')"
  }
  for rep in 1 2; do for gt in ${SHAPES:-1056x256 528x256 4224x32}; do for b in counter xf; do
    one base "$B/build/cli/wgsync" cuda $b $gt; one new "$W" cuda $b $gt
    for v in "${vs[@]}"; do one "${v%%:*}" "build-${v%%:*}/cli/wgsync" cuda $b $gt; done
    one base "$B/build/cli/wgsync" NVIDIA $b $gt; one new "$W" NVIDIA $b $gt
    IFS=, read -ra cvs <<< "${CL_VARIANTS:-}"
    for v in "${cvs[@]}"; do one "${v%%:*}" "$W" NVIDIA $b $gt "${v#*:}"; done
  done; done; done | tee "$R/latency-variants.txt"
  if [ -n "${BENCH_SHARDS:-}" ]; then   # another kernel (bench_shards' lat_k), the default shape
    stamp "bench-shards"
    cmake --build "$B/build" -j16 --target wgsync-bench-shards >/dev/null 2>&1
    cmake --build build-gpu -j16 --target wgsync-bench-shards >/dev/null 2>&1
    for v in "${vs[@]}"; do cmake --build "build-${v%%:*}" -j16 --target wgsync-bench-shards >/dev/null 2>&1; done
    for rep in 1 2; do
      for t in "base:$B/build" "new:build-gpu" $(for v in "${vs[@]}"; do echo "${v%%:*}:build-${v%%:*}"; done); do
        mkdir -p "$R/shards-${t%%:*}-$rep"
        WGS_BENCH_SHAPES=default timeout 100 "${t#*:}/bench/wgsync-bench-shards" "$R/shards-${t%%:*}-$rep" 2>&1 |
          grep -E "default|registers" | sed "s/^/${t%%:*} /"
      done
    done | tee "$R/bench-shards-variants.txt"
  fi
  pack; stamp done
  exit 0
fi

if [ "$mode" = ncu ]; then   # a per-kernel profile of the app forms: NCU_APP on NCU_GRAPH, kernels NCU_KERNELS
  R=$(mktemp -d)/results; mkdir -p "$R"
  NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  [ -n "$NCU" ] || { echo "no ncu on this machine"; exit 1; }
  f="$R/ncu-${NCU_APP:-color}-${NCU_GRAPH:-grid:1000}.txt"; f=${f//:/-}
  args="app ${NCU_APP:-color} -n cuda --graph ${NCU_GRAPH:-grid:1000} --runs 1 --forms ${NCU_FORMS:-persistent,gridsync}"
  echo "# $NCU --kernel-name regex:'${NCU_KERNELS:-p_color}' --launch-count ${NCU_COUNT:-4} --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis $W $args ($(nvidia-smi --query-gpu=name --format=csv,noheader), $(date -u +%F))" > "$f"
  timeout 400 "$NCU" --kernel-name regex:"${NCU_KERNELS:-p_color}" --launch-count "${NCU_COUNT:-4}" --section SpeedOfLight \
    --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats \
    --section MemoryWorkloadAnalysis $W $args >> "$f" 2>&1 || echo "NCU FAILED"
  if [ -n "${NCU_SOURCE:-}" ]; then   # per-instruction counts (build with CUDA_FLAGS=-lineinfo)
    timeout 300 "$NCU" --kernel-name regex:"${NCU_KERNELS:-p_color}" --launch-count "${NCU_COUNT:-4}" \
      --section SourceCounters --section WarpStateStats --page source --print-source sass,cuda --csv \
      $W $args > "$R/ncu-source.csv" 2>&1 || echo "NCU SOURCE FAILED"
    wc -l "$R/ncu-source.csv"; head -5 "$R/ncu-source.csv" | cut -c1-400
  fi
  grep -E "^  [a-z_]+<|p_color|Duration|Registers Per|Achieved Occupancy|Stall|Warp Cycles Per Issued|Issued Warp|Memory Throughput|Block Limit|Waves Per SM|Grid Size|Threads  " "$f" | head -120
  tar -C "$(dirname "$R")" -czf "$OUT/results.tar.gz" results
  exit 0
fi

if [ "$mode" = defects ]; then   # the suite (bounded) and wgsync-bench-cuda end to end
  (cd build-gpu && timeout "${SUITE_LIMIT:-260}" ctest -j1 --output-on-failure -E '^(model|fuzz)\.' > "$OUT/ctest-defects.log" 2>&1;
   grep -E "tests passed|Failed|\*\*\*|Not Run|Total Test" "$OUT/ctest-defects.log" | tail -30)
  mkdir -p "$OUT/bench-cuda"
  timeout "${BENCH_LIMIT:-170}" build-gpu/bench/wgsync-bench-cuda "$OUT/bench-cuda" > "$OUT/bench-cuda.log" 2>&1
  echo "wgsync-bench-cuda exit $?"; cat "$OUT/bench-cuda.log"
  if [ -n "${LITMUS:-}" ]; then # the shipped barrier and a weakened one, short: the check must tell them apart
    mkdir -p "$OUT/litmus"
    for b in wgsync-bench-litmus wgsync-bench-litmus-m1; do
      timeout 120 build-gpu/bench/$b "$OUT/litmus" "$LITMUS" > "$OUT/litmus/$b.log" 2>&1; echo "$b exit $?"
      grep -iE "violation|stale|total|mutant|shipped" "$OUT/litmus/$b.log" | tail -8
    done
  fi
  if [ -n "${SHAPES_QUICK:-}" ]; then # the counter barrier's shapes through the tuning hook
    mkdir -p "$OUT/shards"
    WGS_BENCH_SHAPES="$SHAPES_QUICK" timeout 150 build-gpu/bench/wgsync-bench-shards "$OUT/shards" > "$OUT/shards/shards.log" 2>&1
    echo "wgsync-bench-shards exit $?"; grep -E "grid.sync|wgsync counter|shape" "$OUT/shards/shards.log" | head -40
  fi
  exit 0
fi

if [ "$mode" = compare ]; then   # this tree beside BASE_TAR's, one machine, one call per STAGE
  # STAGE=tests: build the base tree's benchmarks (kept in build-base/ for the next stage), then
  #   this tree's CUDA, backend and install tests; STAGE=launch: wgsync-bench-launch of both,
  #   alternating, REPS times; STAGE=barrier: wgsync-bench-cuda of both, alternating
  BB=$PWD/build-base
  if [ ! -x "$BB/build/bench/wgsync-bench-launch" ]; then
    rm -rf "$BB"; mkdir -p "$BB"; tar -xzf "${BASE_TAR:?BASE_TAR=tree.tar.gz}" -C "$BB"
    cmake -S "$BB" -B "$BB/build" -DCMAKE_BUILD_TYPE=Release $inc ${lib:+-DOpenCL_LIBRARY=$lib} >/dev/null &&
      cmake --build "$BB/build" -j16 --target wgsync-bench-cuda wgsync-bench-launch >/dev/null ||
      echo "BASE BUILD FAILED"
  fi
  case "${STAGE:-tests}" in
  tests)
    (cd build-gpu && timeout "${SUITE_LIMIT:-300}" ctest -j1 --output-on-failure \
       -R '^(cuda|backend|install|python|team\.props)' > "$OUT/ctest-compare.log" 2>&1
     grep -E "tests passed|Failed|\*\*\*|Not Run|Total Test" "$OUT/ctest-compare.log" | tail -40) ;;
  launch)
    for r in $(seq "${REPS:-2}"); do for t in base new; do
      mkdir -p "$OUT/$t-$r"; b=build-gpu; [ $t = base ] && b=$BB/build
      timeout 120 $b/bench/wgsync-bench-launch "$OUT/$t-$r" > "$OUT/$t-$r/launch.log" 2>&1
      echo "== $t run $r (exit $?)"; cat "$OUT/$t-$r/launch.log"
    done; done ;;
  barrier)
    for t in base new; do
      mkdir -p "$OUT/$t"; b=build-gpu; [ $t = base ] && b=$BB/build
      timeout 200 $b/bench/wgsync-bench-cuda "$OUT/$t" > "$OUT/$t/bench.log" 2>&1
      echo "== $t (exit $?)"; grep -E "^(cooperative|wgsync|relaunch|host loop|floor)" "$OUT/$t/bench.log"
    done ;;
  esac
  exit 0
fi

if [ "$mode" = verify ]; then   # the whole suite, NVIDIA OpenCL and CUDA, nothing else
  (cd build-gpu && ctest -j1 --output-on-failure -E '^(model|fuzz)\.' > "$OUT/ctest-verify.log" 2>&1;
   grep -E "tests passed|Failed|\*\*\*|Not Run|Skipped" "$OUT/ctest-verify.log" | tail -30)
  exit 0
fi

if [ "$mode" = litmus ]; then   # crossings checked and violations, per design
  R=$(mktemp -d)/results; mkdir -p "$R"
  for b in wgsync-bench-litmus wgsync-bench-litmus-m1 wgsync-bench-litmus-m2; do
    timeout 200 build-gpu/bench/$b "$R" "${ROUNDS:-4000}" 2>&1 | tee "$R/$b.log" || echo "$b FAILED"
  done
  # NVIDIA OpenCL: the same three shapes with memory stress, and the no-barrier control
  WGSYNC_DEVICE=NVIDIA timeout 200 build-gpu/bench/wgsync-bench-litmus-cl "$R" "${ROUNDS:-4000}" 2>&1 |
    tee "$R/wgsync-bench-litmus-cl.log"
  # NVIDIA OpenCL: the self-test's message-passing check, every work-item reading another
  # group's words after each barrier (crossings = rounds x participants x local size)
  for args in "--barrier counter" "--barrier counter --split" "--barrier xf"; do
    for gl in 264x256 1056x256; do
      echo "== NVIDIA OpenCL $args, ${gl%x*} groups x ${gl#*x}"
      timeout 120 $W barrier --json -q $args --groups ${gl%x*} --local-size ${gl#*x} \
        --rounds "${CL_ROUNDS:-20000}" > "$R/cl.json" 2>&1
      python3 - "$R/cl.json" "$args" "$gl" >> "$R/litmus-opencl-selftest.csv" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("#", sys.argv[2], sys.argv[3], "failed:", open(sys.argv[1]).read()[:300].replace("\n", " "))
    sys.exit(0)
p, ls, r = d["participants"], d["settings"]["local_size"], d["settings"]["rounds"]
print(f'{d["device"]["name"]},{sys.argv[2]},{sys.argv[3]},{p},{ls},{r},{p*ls*r},{d["stale_reads"]},{d["status"]}')
PY
      tail -1 "$R/litmus-opencl-selftest.csv"
    done
  done
  sed -i '1i device,design,launch,participants,local_size,rounds,crossings,violations,status' "$R/litmus-opencl-selftest.csv"
  WGS_WG_SPLIT_GROUPS=1056 WGS_WG_SPLIT_ROUNDS=${WG_ROUNDS:-20000} timeout 200 \
    build-gpu/tests/test_wgsync wg_split 2>&1 | tee "$R/wg_split-litmus.log"
  tar -C "$(dirname "$R")" -czf "$OUT/results.tar.gz" results
  exit 0
fi

if [ "$mode" = smoke ]; then
  $W barrier --rounds 2000 --local-size 256
  $W barrier --rounds 2000 --local-size 1024 --unchecked
  $W discover --runs 5 --local-size 256
  $W discover --runs 5 --local-size 256 --lock spin
  $W bound --local-size 256 --timeout-ms 200
  exit 0
fi

R=$(mktemp -d)/results   # many files: packed into one tarball ($OUT takes at most 8)
mkdir -p "$R"
(cd build-gpu && ctest -j1 --output-on-failure --no-tests=error -j1 2>&1 | tee "$R/ctest-nvidia.log" | tail -40)
scripts/table3-run.sh $W "$R" 20
for w in 1 3 10 30 100; do
  $W discover -q --json --runs 20 --local-size 256 --wait-us $w > "$R/wait-sweep-ls256-w$w.json"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("wait", sys.argv[2], "us: mean", d["participants"]["mean"], "min", d["participants"]["min"], "proto_us", d["protocol_us"]["median"])' "$R/wait-sweep-ls256-w$w.json" $w
done
$W barrier --json --rounds 5000 --local-size 256 > "$R/barrier-ls256.json"
$W barrier --json --rounds 5000 --local-size 1024 > "$R/barrier-ls1024.json"
$W barrier --json --rounds 5000 --local-size 256 --unchecked > "$R/barrier-ls256-unchecked.json"
grep -h -E '"status"|us_per_barrier|"participants"' "$R"/barrier-*.json
if [ -x build-gpu/bench/wgsync-bench-cuda ]; then
  mkdir -p "$R/cuda"
  timeout 300 build-gpu/bench/wgsync-bench-cuda "$R/cuda" || echo "BENCH FAILED OR TIMED OUT"
  timeout 120 build-gpu/bench/wgsync-bench-launch "$R/cuda" || echo "LAUNCH BENCH FAILED OR TIMED OUT"
  timeout 120 build-gpu/bench/wgsync-bench-shards "$R/cuda" || echo "SHARDS BENCH FAILED OR TIMED OUT"
  # the CLI on the CUDA device
  { $W devices | grep -A1 cuda:
    $W bound -n cuda --local-size 256 --timeout-ms 200 -q
    $W discover -n cuda --runs 10 --lock free --bound -q --timeout-ms 200
    $W barrier -n cuda --rounds 5000 --barrier counter
    $W barrier -n cuda --rounds 5000 --barrier counter --split --unchecked
    $W barrier -n cuda --rounds 2000 --barrier xf; } 2>&1 | tee "$R/cuda/cli-cuda.log"
fi
  cli_latency
tar -C "$(dirname "$R")" -czf "$OUT/results.tar.gz" results
