"""A CuPy kernel that includes wgsync.cuh, launched as one persistent kernel through the wgsync
Python package: every block that discovery finds running takes part in 1000 grid barriers, each
followed by a check that the neighbour's write from before the barrier is visible.
  pip install ./python; WGSYNC_LIBRARY_DIR=<prefix>/lib python3 examples/python-cupy/count.py
Exits 77 without CuPy or a GPU."""
import sys

import wgsync

try:
    import cupy as cp
except ImportError:
    print("SKIP: CuPy is not installed")
    sys.exit(77)
if wgsync.cuda_device_count() == 0:
    print("SKIP: no CUDA device")
    sys.exit(77)

SRC = r"""
#include "wgsync.cuh"
extern "C" __global__ void count(unsigned *wgs, unsigned *slot, unsigned *bad, unsigned rounds)
{
  wgs_env e;
  if (wgs_discover(wgs, &e)) {
    unsigned g = wgs_get_group_id(&e), n = wgs_get_num_groups(&e);
    for (unsigned r = 1; r <= rounds; r++) {
      if (e.local_id == 0u) slot[g] = r;
      wgs_grid_barrier(&e);   /* every block's write above is visible below */
      if (e.local_id == 0u && *(volatile unsigned *)&slot[(g + 1u) % n] != r) atomicAdd(bad, 1u);
      wgs_grid_barrier(&e);
    }
  }
}
"""
kernel = cp.RawKernel(SRC, "count", options=("-I" + wgsync.include_dir(), "-DWGS_CHECKED=1"))
state = wgsync.CudaState(0)
slot, bad = cp.zeros(state.max_groups, cp.uint32), cp.zeros(1, cp.uint32)
res = state.launch_function(kernel.kernel.ptr, [None, slot, bad, wgsync.u32(1000)],
                            local_size=256, stream=cp.cuda.get_current_stream())
stale = int(bad.get()[0])
print("%d of %d blocks took part in 1000 grid barriers; %d stale reads: %s"
      % (res.participants, res.launched, stale, "PASS" if stale == 0 else "FAIL"))
sys.exit(0 if stale == 0 else 1)
