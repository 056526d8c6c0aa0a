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

for ex in opencl-jacobi split-barrier cuda-jacobi; do
  case $ex in cuda-*) [ $have_cuda = 1 ] || { echo "skipped $ex (no nvcc or no CUDA package)"; continue; } ;; esac
  b="$work/$ex-cmake"
  if cmake -S "$here/$ex" -B "$b" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
       > "$b.log" 2>&1 && cmake --build "$b" >> "$b.log" 2>&1; then
    exe=$(find "$b" -maxdepth 1 -type f -executable | head -1)
    run "$ex (find_package)" "$exe"
  else
    echo "FAILED  $ex (find_package build; log follows)"; cat "$b.log"; fail=1
  fi
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
  # the static libraries (wgsync-static.pc, wgsync-cuda-static.pc and the _static CMake targets):
  # a program that loads no libwgsync*.so, and for CUDA one runtime, the static one in the program
  case $ex in
    cuda-*) nvcc -arch=sm_90 -o "$exe-static" "$here/$ex"/*.cu $(pkg-config --cflags --libs wgsync-cuda-static)
            shared_libs='libwgsync|libcudart' ;;
    *) cc -std=c11 -O2 -o "$exe-static" "$here/$ex"/*.c $(pkg-config --cflags --libs wgsync-static)
       shared_libs='libwgsync' ;;
  esac
  if [ $? -ne 0 ]; then echo "FAILED  $ex (pkg-config static build)"; fail=1
  elif ldd "$exe-static" | grep -E "$shared_libs"; then
    echo "FAILED  $ex (pkg-config static build: loads the shared libraries above)"; fail=1
  else run "$ex (pkg-config, static)" "$exe-static"; fi
  b="$work/$ex-cmake-static"
  if cmake -S "$here/$ex" -B "$b" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
       -DWGSYNC_EXAMPLE_STATIC=ON > "$b.log" 2>&1 && cmake --build "$b" >> "$b.log" 2>&1; then
    exe=$(find "$b" -maxdepth 1 -type f -executable | head -1)
    if ldd "$exe" | grep -E "$shared_libs"; then
      echo "FAILED  $ex (find_package, static: loads the shared libraries above)"; fail=1
    else run "$ex (find_package, static)" "$exe"; fi
  else
    echo "FAILED  $ex (find_package static build; log follows)"; cat "$b.log"; fail=1
  fi
done
# the CuPy example: through the Python package (python/) over the installed libraries
WGSYNC_LIBRARY_DIR="$libdir" PYTHONPATH="$here/../python${PYTHONPATH:+:$PYTHONPATH}" \
  run "python-cupy" python3 "$here/python-cupy/count.py"
echo "examples: $ran ran, $skipped skipped (their reasons above)"
exit $fail
