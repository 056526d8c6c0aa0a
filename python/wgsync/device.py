"""Devices of every backend and what lives on them: programs, kernels, buffers, local memory."""
import ctypes

from ._abi import (BUILD_CHECKED, STATUS, DeviceInfo, WgsyncError, _Select, _SIZE_BITS, _int,
                   _invalid, _uint)
from ._native import _P, _check, _handle, _lib, _scalar
from .state import State

class local:
    """A kernel's __local (shared-memory) argument of nbytes bytes: k.set_arg(i, wgsync.local(n)).
    On CUDA, a kernel's dynamic shared memory."""

    def __init__(self, nbytes):
        self.nbytes = _uint(nbytes, "local memory size in bytes", _SIZE_BITS)
        if self.nbytes == 0:
            raise _invalid("local memory of 0 bytes: expected at least 1")

    def __repr__(self):
        return "wgsync.local(%d)" % self.nbytes


class Device:
    """A device of any backend (wgs_device_open): an OpenCL device with its context and queue,
    or a CUDA device when name is "cuda" or "cuda:N" (through libwgsync_cuda); or wrapping your
    PyOpenCL queue (from_pyopencl)."""

    _wgs_kind = "Device"  # (what _handle checks)

    def __init__(self, name=None, platform=-1, device=-1, _handle=None, _which=None):
        if name is not None and not isinstance(name, str):
            raise _invalid("device name is a %s: expected a string" % type(name).__name__)
        which = _which or ("cuda" if name and name.startswith("cuda") else "cl")
        self._lib = _lib(which)
        self.backend = which
        if _handle is None:
            h = _P()
            sel = _Select(_int(platform, "platform", -1), _int(device, "device", -1),
                          name.encode() if name else None)
            _check(self._lib, self._lib.wgs_device_open(ctypes.byref(sel), ctypes.byref(h)))
            _handle = h
        self._h = _handle
        info = DeviceInfo()
        _check(self._lib, self._lib.wgs_device_get_info(self._h, ctypes.byref(info)))
        self.info = info.as_dict()
        self.name = self.info["name"]

    @classmethod
    def from_pyopencl(cls, queue):
        """Wraps a pyopencl.CommandQueue (its context and device); wgsync retains them."""
        lib, h = _lib("cl"), _P()
        _check(lib, lib.wgs_device_wrap_opencl(_P(queue.device.int_ptr), _P(queue.context.int_ptr),
                                               _P(queue.int_ptr), ctypes.byref(h)))
        return cls(_handle=h)

    def close(self):
        if getattr(self, "_h", None):
            self._lib.wgs_device_close(self._h)
            self._h = None

    __del__ = close

    def build(self, source, options=None, checked=True):
        """An OpenCL program (the device library in front of `source`); OpenCL devices only."""
        if self.backend != "cl":
            raise WgsyncError(STATUS["WGS_EUNSUPPORTED"], "WGS_EUNSUPPORTED", "build: CUDA devices take kernels from "
                              "NVRTC, CuPy or nvcc: wrap one with Device.cuda_function")
        return Program(self, source, options, checked)

    def cuda_function(self, function):
        """A wgsync Kernel for a CUfunction (an int address: CuPy RawKernel(...).kernel.ptr,
        cuda-python's CUfunction), on this CUDA device: set its arguments by index, then
        State.launch it like any Kernel."""
        if self.backend != "cuda":
            raise _invalid("cuda_function: this is not a CUDA device (open Device(\"cuda:N\"))")
        h = _P()
        fn = int(getattr(function, "ptr", function))
        _check(self._lib, self._lib.wgs_kernel_cuda_function(self._h, _P(fn), ctypes.byref(h)))
        return Kernel(None, None, _handle=h, _dev=self)

    def build_options(self, checked=True):
        """Options for building wgsync.device_library_source() + your source yourself (OpenCL
        devices only: a closed device or another backend's raises)."""
        h = _handle(self, "Device", "build_options")
        opts = self._lib.wgs_device_opencl_build_options(h, BUILD_CHECKED if checked else 0).decode()
        if not opts:
            raise WgsyncError(STATUS["WGS_EUNSUPPORTED"], "WGS_EUNSUPPORTED",
                              "build_options: '%s' is not an OpenCL device (OpenCL C programs "
                              "only; CUDA and Vulkan programs take the device library as a "
                              "header)" % self.name)
        return opts

    def buffer(self, nbytes):
        return Buffer(self, nbytes)

    def state(self, max_groups=None, local_size=None):
        """Protocol state for up to max_groups launched groups (default: the over-provisioned
        count for local_size, itself by default the library's, wgs_default_local_size)."""
        if max_groups is None:
            if local_size is None:
                local_size = self._lib.wgs_default_local_size(self._h)
            max_groups = self._lib.wgs_default_groups(self._h, _uint(local_size, "local_size",
                                                                     _SIZE_BITS))
        return State(self, max_groups)


class Program:
    def __init__(self, dev, source, options, checked):
        self._dev, self._lib, h = dev, dev._lib, _P()
        if not isinstance(source, str) or (options is not None and not isinstance(options, str)):
            raise _invalid("build: source and options are strings (got %s, %s)"
                           % (type(source).__name__, type(options).__name__))
        _check(self._lib, self._lib.wgs_program_build(_handle(dev, "Device", "device"), source.encode(),
                                                      options.encode() if options else None,
                                                      BUILD_CHECKED if checked else 0,
                                                      ctypes.byref(h)))
        self._h = h

    def kernel(self, name):
        return Kernel(self, name)

    def __del__(self):
        if getattr(self, "_h", None):
            self._lib.wgs_program_release(self._h)


class Kernel:
    _wgs_kind = "Kernel"  # (what _handle checks)

    def __init__(self, prog, name, _handle=None, _dev=None):
        if _handle is not None:  # a CUDA kernel wrapped (Device.cuda_function)
            self._prog, self._dev, self._lib = None, _dev, _dev._lib
            self._h, self.name, self._args = _handle, "(CUfunction)", {}
            return
        self._prog, self._lib, h = prog, prog._lib, _P()
        if not isinstance(name, str):
            raise _invalid("kernel name is a %s: expected a string" % type(name).__name__)
        _check(self._lib, self._lib.wgs_kernel_create(prog._h, name.encode(), ctypes.byref(h)))
        self._h, self.name, self._args = h, name, {}

    def set_arg(self, index, value):
        """A Buffer, wgsync.local(nbytes) (a __local argument), a ctypes scalar (wgsync.u32(5),
        f32(1.0), ...), or a numpy scalar."""
        index = _uint(index, "argument index", 32)
        self._args[index] = value  # kept alive while the kernel may use it
        if isinstance(value, Buffer):
            _check(self._lib, self._lib.wgs_kernel_set_arg_buffer(self._h, index, value._h))
            return
        if isinstance(value, local):
            _check(self._lib, self._lib.wgs_kernel_set_arg(self._h, index, value.nbytes, None))
            return
        value = _scalar(value, index, "a wgsync.Buffer, wgsync.local(n), ")
        _check(self._lib, self._lib.wgs_kernel_set_arg(self._h, index, ctypes.sizeof(value),
                                                       _P(ctypes.addressof(value))))

    def set_args(self, *values):
        """Sets arguments in order; None skips one (argument 0, the state, for persistent kernels)."""
        for i, v in enumerate(values):
            if v is not None:
                self.set_arg(i, v)

    def run(self, global_size, local_size=None):
        """An ordinary launch (no discovery): sizes are ints or tuples of 1-3 ints; waits."""
        g = tuple(global_size) if isinstance(global_size, (tuple, list)) else (global_size,)
        l = None
        if local_size is not None:
            l = tuple(local_size) if isinstance(local_size, (tuple, list)) else (local_size,)
            if len(l) != len(g):
                raise _invalid("global_size has %d dimensions, local_size %d" % (len(g), len(l)))
        g = tuple(_uint(x, "global_size", _SIZE_BITS) for x in g)
        l = tuple(_uint(x, "local_size", _SIZE_BITS) for x in l) if l else None
        garr = (ctypes.c_size_t * len(g))(*g)
        larr = (ctypes.c_size_t * len(g))(*l) if l else None
        _check(self._lib, self._lib.wgs_kernel_run(self._h, len(g), garr, larr))

    def __del__(self):
        if getattr(self, "_h", None):
            self._lib.wgs_kernel_release(self._h)


class Buffer:
    def __init__(self, dev, nbytes):
        self._dev, self._lib, h = dev, dev._lib, _P()
        _check(self._lib, self._lib.wgs_buffer_create(_handle(dev, "Device", "device"),
                                                      _uint(nbytes, "nbytes", _SIZE_BITS),
                                                      ctypes.byref(h)))
        self._h, self.nbytes = h, nbytes

    def write(self, data, offset=0):
        """Writes bytes, a bytearray, a ctypes array or anything with the buffer protocol."""
        offset = _uint(offset, "offset", _SIZE_BITS)
        mv = memoryview(data).cast("B")
        src = (ctypes.c_char * len(mv)).from_buffer_copy(mv)
        _check(self._lib, self._lib.wgs_buffer_write(self._h, offset, len(mv), ctypes.cast(src, _P)))

    def read(self, nbytes=None, offset=0, out=None):
        """Returns bytes, or fills `out` (a writable buffer, e.g. a numpy array) and returns it."""
        offset = _uint(offset, "offset", _SIZE_BITS)
        if nbytes is not None:
            nbytes = _uint(nbytes, "nbytes", _SIZE_BITS)
        if offset > self.nbytes or (nbytes or 0) > self.nbytes - offset:
            raise _invalid("read: %d bytes at offset %d reach past the buffer of %d bytes"
                           % (nbytes or 0, offset, self.nbytes))
        if out is not None:
            mv = memoryview(out).cast("B")
            dst = (ctypes.c_char * len(mv)).from_buffer(mv)
            _check(self._lib, self._lib.wgs_buffer_read(self._h, offset, len(mv), ctypes.cast(dst, _P)))
            return out
        n = self.nbytes - offset if nbytes is None else nbytes
        dst = ctypes.create_string_buffer(n)
        _check(self._lib, self._lib.wgs_buffer_read(self._h, offset, n, ctypes.cast(dst, _P)))
        return dst.raw

    def __del__(self):
        if getattr(self, "_h", None):
            self._lib.wgs_buffer_release(self._h)
