#!/usr/bin/env bash
# Installs what wgsync needs on Debian/Ubuntu when it is missing: a C compiler, CMake, the Khronos
# ICD loader and headers, PoCL (OpenCL on the CPU), spirv-tools (the SPIR-V tests), the Vulkan
# headers, glslangValidator and lavapipe (the Vulkan backend and its tests), and for the
# tests (WGS_DEPS_TESTS=1) SPIN (the model checks), clang (libFuzzer, tests/fuzz),
# pkg-config (the examples against the installed package), PyOpenCL (the Python package's
# interop test), Oclgrind (the OpenCL layer on a simulator with a race detector) and Triton
# from PyPI (the Triton device library's compile test). Sourced by setup.sh and test.sh.
need=()
command -v cc >/dev/null 2>&1 || need+=(gcc)
command -v cmake >/dev/null 2>&1 || need+=(cmake)
[ -f /usr/include/CL/cl.h ] || need+=(opencl-c-headers)
ls /usr/lib/*/libOpenCL.so >/dev/null 2>&1 || need+=(ocl-icd-opencl-dev)
ls /etc/OpenCL/vendors/*pocl* >/dev/null 2>&1 || need+=(pocl-opencl-icd)
command -v spirv-as >/dev/null 2>&1 || need+=(spirv-tools) # the SPIR-V tests assemble modules
# the Vulkan backend: headers and glslangValidator to build it, lavapipe (Vulkan on the CPU) and
# the loader to run it
[ -f /usr/include/vulkan/vulkan.h ] || need+=(libvulkan-dev)
command -v glslangValidator >/dev/null 2>&1 || need+=(glslang-tools)
ls /usr/share/vulkan/icd.d/lvp_icd* >/dev/null 2>&1 || need+=(mesa-vulkan-drivers)
if [ -n "${WGS_DEPS_TESTS:-}" ]; then # only what the tests need (scripts/test.sh sets it)
  command -v spin >/dev/null 2>&1 || need+=(spin)   # the model checks (tests/model)
  command -v clang >/dev/null 2>&1 || need+=(clang) # libFuzzer (tests/fuzz)
  command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config) # examples/ through pkg-config
  [ -f /usr/lib/oclgrind/liboclgrind-rt-icd.so ] || need+=(oclgrind) # the OpenCL layer's tests on
                                                                     # a third OpenCL, races checked
  /usr/bin/python3 -c "import pyopencl, numpy" 2>/dev/null ||
    need+=(python3-pyopencl python3-numpy) # the Python package's PyOpenCL interop test
  /usr/bin/python3 -c "import ensurepip, setuptools" 2>/dev/null ||
    need+=(python3-venv python3-setuptools) # the package in a virtual environment, offline
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "wgsync: installing ${need[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null ||
    { echo "wgsync: could not install ${need[*]}" >&2; exit 1; }
fi
# Triton from PyPI, for the Triton device library's compile test (python.triton_aot compiles it
# for an NVIDIA target, which needs no GPU), in a virtual environment of its own
if [ -n "${WGS_DEPS_TESTS:-}" ]; then
  export WGS_TRITON_VENV=${WGS_TRITON_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/wgsync/triton-venv}
  if ! "$WGS_TRITON_VENV/bin/python" -c "import triton" 2>/dev/null; then
    echo "wgsync: installing Triton 3.6.0 into $WGS_TRITON_VENV"
    { /usr/bin/python3 -m venv "$WGS_TRITON_VENV" && "$WGS_TRITON_VENV/bin/pip" install -q triton==3.6.0; } >/dev/null 2>&1 ||
      echo "wgsync: could not install Triton (python.triton_aot will be skipped)" >&2
  fi
fi
