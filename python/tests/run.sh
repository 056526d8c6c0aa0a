#!/usr/bin/env bash
# The Python package's tests against an installed wgsync: OpenCL (and PyOpenCL interop) with every
# Python 3 found (the PATH's and Debian's, where python3-pyopencl lives), then CUDA (77 = no GPU).
#   python/tests/run.sh PREFIX
set -uo pipefail
prefix=$(cd "${1:?usage: python/tests/run.sh PREFIX}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
export WGSYNC_LIBRARY_DIR=$(dirname "$(find "$prefix" -name 'libwgsync.so' | head -1)")
fail=0; interop=0; seen=""
for py in python3 /usr/bin/python3; do
  p=$(command -v "$py") || continue
  real=$(readlink -f "$p"); case " $seen " in *" $real "*) continue ;; esac; seen="$seen $real"
  echo "== $p ($("$p" --version 2>&1))"
  out=$("$p" "$here/test_opencl.py" 2>&1); rc=$?
  echo "$out"
  [ $rc -eq 0 ] || { echo "FAILED: test_opencl.py with $p (exit $rc)"; fail=1; }
  echo "$out" | grep -q "^PyOpenCL context" && interop=1
done
if [ $interop -eq 0 ]; then
  if /usr/bin/python3 -c "import pyopencl" 2>/dev/null || python3 -c "import pyopencl" 2>/dev/null; then
    echo "FAILED: PyOpenCL is installed but the interop part did not run"; fail=1
  else
    echo "note: PyOpenCL is not installed; the interop part did not run"
  fi
fi
python3 "$here/test_cuda.py"; rc=$?
case $rc in 0) ;; 77) echo "CUDA part skipped (no GPU)" ;; *) echo "FAILED: test_cuda.py (exit $rc)"; fail=1 ;; esac
[ $fail -eq 0 ] && echo "python: all passed"
exit $fail
