"""The Python package on CUDA: a kernel compiled at run time (CuPy's RawKernel when CuPy is
there, else NVRTC and the driver through ctypes) with wgsync.cuh from wgsync.include_dir(),
launched as a CUfunction through wgsync.CudaState. Exit 77 without a GPU."""
import ctypes
import ctypes.util
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import wgsync  # noqa: E402

SRC = r"""
#include "wgsync.cuh"
extern "C" __global__ void count(unsigned *wgs, unsigned *slot, unsigned *bad, unsigned rounds)
{
  wgs_env e;
  if (wgs_discover(wgs, &e)) {
    unsigned g = wgs_get_group_id(&e), n = wgs_get_num_groups(&e);
    for (unsigned r = 1; r <= rounds; r++) {
      if (e.local_id == 0u) slot[g] = r;
      wgs_grid_barrier(&e);
      if (e.local_id == 0u && *(volatile unsigned *)&slot[(g + 1u) % n] != r) atomicAdd(bad, 1u);
      wgs_grid_barrier(&e);
    }
  }
}
"""
OPTS = ("-I" + wgsync.include_dir(), "-DWGS_CHECKED=1")


def with_cupy(cp):
    k = cp.RawKernel(SRC, "count", options=OPTS)
    st = wgsync.CudaState(0)
    slot, bad = cp.zeros(st.max_groups, cp.uint32), cp.zeros(1, cp.uint32)
    res = st.launch_function(k.kernel.ptr, [None, slot, bad, wgsync.u32(1000)], local_size=256,
                             stream=cp.cuda.get_current_stream())
    return res, int(bad.get()[0]), "CuPy RawKernel"


def cuda_lib(stem):
    """libnvrtc / libcudart: the loader's, else the toolkit's lib folder."""
    found = ctypes.util.find_library(stem)
    if found:
        return ctypes.CDLL(found)
    import glob
    home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    for d in ("lib64", "lib", "targets/x86_64-linux/lib"):
        for f in sorted(glob.glob(os.path.join(home, d, "lib%s.so*" % stem))):
            return ctypes.CDLL(f)
    raise OSError("lib%s.so not found (set CUDA_HOME)" % stem)


def with_nvrtc():
    nvrtc = cuda_lib("nvrtc")
    cuda = ctypes.CDLL("libcuda.so.1")
    rt = cuda_lib("cudart")
    prog = ctypes.c_void_p()
    assert nvrtc.nvrtcCreateProgram(ctypes.byref(prog), SRC.encode(), b"count.cu", 0, None, None) == 0
    major, minor = ctypes.c_int(), ctypes.c_int()
    rt.cudaDeviceGetAttribute(ctypes.byref(major), 75, 0)
    rt.cudaDeviceGetAttribute(ctypes.byref(minor), 76, 0)
    opts = [("--gpu-architecture=sm_%d%d" % (major.value, minor.value)).encode()] + [o.encode() for o in OPTS]
    rc = nvrtc.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    if rc != 0:
        n = ctypes.c_size_t()
        nvrtc.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
        log = ctypes.create_string_buffer(n.value)
        nvrtc.nvrtcGetProgramLog(prog, log)
        raise AssertionError("NVRTC: " + log.value.decode())
    n = ctypes.c_size_t()
    nvrtc.nvrtcGetCUBINSize(prog, ctypes.byref(n))
    cubin = ctypes.create_string_buffer(n.value)
    nvrtc.nvrtcGetCUBIN(prog, cubin)
    rt.cudaSetDevice(0)
    rt.cudaFree(None)  # the primary context, where wgsync's state lives
    mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
    assert cuda.cuModuleLoadData(ctypes.byref(mod), cubin) == 0
    assert cuda.cuModuleGetFunction(ctypes.byref(fn), mod, b"count") == 0
    st = wgsync.CudaState(0)
    slot, bad = ctypes.c_void_p(), ctypes.c_void_p()
    rt.cudaMalloc(ctypes.byref(slot), ctypes.c_size_t(4 * st.max_groups))
    rt.cudaMalloc(ctypes.byref(bad), ctypes.c_size_t(4))
    rt.cudaMemset(bad, 0, ctypes.c_size_t(4))
    res = st.launch_function(fn.value, [None, slot, bad, wgsync.u32(1000)], local_size=256)
    host = ctypes.c_uint32()
    rt.cudaMemcpy(ctypes.byref(host), bad, ctypes.c_size_t(4), 2)
    return res, host.value, "NVRTC + driver API through ctypes"


def main():
    try:
        if wgsync.cuda_device_count() == 0:
            print("SKIP: no CUDA device")
            return 77
    except OSError as e:
        print("SKIP: %s" % e)
        return 77
    try:
        import cupy as cp
        res, stale, how = with_cupy(cp)
    except ImportError:
        res, stale, how = with_nvrtc()
    print("%s: %r, %d stale reads" % (how, res, stale))
    assert res.participants >= 2 and stale == 0
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
