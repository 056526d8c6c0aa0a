#!/usr/bin/env bash
# Builds and runs every example against an *installed* wgsync, twice: as a CMake project
# (find_package) and with one compiler line (pkg-config). CUDA examples are built when nvcc is
# found and run when a GPU answers (exit 77 = skipped without one).
#   examples/run.sh PREFIX [WORKDIR]
set -uo pipefail
prefix=$(cd "${1:?usage: examples/run.sh PREFIX [WORKDIR]}" && pwd)
work=${2:-$(mktemp -d)}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
fail=0; ran=0; skipped=0
pc_dir=$(dirname "$(find "$prefix" -name wgsync.pc | head -1)")
export PKG_CONFIG_PATH="$pc_dir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
have_pc=1
command -v pkg-config >/dev/null || { have_pc=0; echo "note: no pkg-config here (scripts/deps.sh installs it): those builds are skipped"; }
libdir=$(cd "$pc_dir/.." && pwd)
have_cuda=0
[ -f "$pc_dir/wgsync-cuda.pc" ] && command -v nvcc >/dev/null && have_cuda=1

run() { # name, command...: runs it, 77 counts as skipped
  local name=$1; shift
  "$@"; local rc=$?
  case $rc in
    0) echo "ok      $name"; ran=$((ran + 1)) ;;
    77) echo "skipped $name (no GPU, or no CuPy)"; skipped=$((skipped + 1)) ;;
    *) echo "FAILED  $name (exit $rc)"; fail=1 ;;
  esac
}

# Builds example $1 as a CMake project into $2 (further arguments go to CMake) and prints its
# program; on failure says so with the log and returns 1.
cmake_example() {
  local ex=$1 b=$2; shift 2
  if cmake -S "$here/$ex" -B "$b" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release "$@" \
       > "$b.log" 2>&1 && cmake --build "$b" >> "$b.log" 2>&1; then
    find "$b" -maxdepth 1 -type f -executable | head -1
  else
    echo "FAILED  $ex (${b##*/} build; log follows)" >&2; cat "$b.log" >&2; return 1
  fi
}
# Runs a statically linked program ($2, named $1) unless it loads a shared library matching $3.
run_static() {
  if ldd "$2" | grep -E "$3"; then echo "FAILED  $1: loads the shared libraries above"; fail=1
  else run "$1" "$2"; fi
}

for ex in opencl-jacobi split-barrier cuda-jacobi; do
  case $ex in cuda-*) [ $have_cuda = 1 ] || { echo "skipped $ex (no nvcc or no CUDA package)"; continue; } ;; esac
  # what a static program must not load: libwgsync*.so, and for CUDA the shared runtime (one
  # runtime, the static one in the program)
  case $ex in cuda-*) shared_libs='libwgsync|libcudart' ;; *) shared_libs='libwgsync' ;; esac
  if exe=$(cmake_example $ex "$work/$ex-cmake"); then run "$ex (find_package)" "$exe"; else fail=1; fi
  # the _static CMake targets
  if exe=$(cmake_example $ex "$work/$ex-cmake-static" -DWGSYNC_EXAMPLE_STATIC=ON); then
    run_static "$ex (find_package, static)" "$exe" "$shared_libs"
  else fail=1; fi
  # the same source with the README's compiler line (pkg-config, and the rpath from its libdir);
  # the program runs without LD_LIBRARY_PATH
  [ $have_pc = 1 ] || continue
  exe="$work/$ex-pc"
  case $ex in
    cuda-*) nvcc -arch=sm_90 -cudart shared -o "$exe" "$here/$ex"/*.cu \
              $(pkg-config --cflags --libs wgsync-cuda) \
              -Xlinker -rpath=$(pkg-config --variable=libdir wgsync-cuda) ;;
    *) cc -std=c11 -O2 -o "$exe" "$here/$ex"/*.c $(pkg-config --cflags --libs wgsync) \
         -Wl,-rpath,$(pkg-config --variable=libdir wgsync) ;;
  esac
  if [ $? -eq 0 ]; then run "$ex (pkg-config)" "$exe"; else echo "FAILED  $ex (pkg-config build)"; fail=1; fi
  # a CUDA user's first line: nvcc's default, the static CUDA runtime in the program beside the
  # shared one in libwgsync_cuda (the kernel is resolved in the program's runtime: wgsync_cuda.h)
  case $ex in cuda-*)
    if nvcc -arch=sm_90 -o "$exe-static-rt" "$here/$ex"/*.cu $(pkg-config --cflags --libs wgsync-cuda) \
         -Xlinker -rpath=$(pkg-config --variable=libdir wgsync-cuda); then
      run "$ex (pkg-config, nvcc's default runtime)" "$exe-static-rt"
    else echo "FAILED  $ex (nvcc default build)"; fail=1; fi ;;
  esac
  # the static libraries through wgsync-static.pc / wgsync-cuda-static.pc
  case $ex in
    cuda-*) nvcc -arch=sm_90 -o "$exe-static" "$here/$ex"/*.cu $(pkg-config --cflags --libs wgsync-cuda-static) ;;
    *) cc -std=c11 -O2 -o "$exe-static" "$here/$ex"/*.c $(pkg-config --cflags --libs wgsync-static) ;;
  esac
  if [ $? -eq 0 ]; then run_static "$ex (pkg-config, static)" "$exe-static" "$shared_libs"
  else echo "FAILED  $ex (pkg-config static build)"; fail=1; fi
done
# the CuPy example: through the Python package (python/) over the installed libraries
WGSYNC_LIBRARY_DIR="$libdir" PYTHONPATH="$here/../python${PYTHONPATH:+:$PYTHONPATH}" \
  run "python-cupy" python3 "$here/python-cupy/count.py"
echo "examples: $ran ran, $skipped skipped (their reasons above)"
exit $fail
