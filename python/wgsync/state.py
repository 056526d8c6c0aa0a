"""The protocol state of persistent launches, and the launches themselves."""
import ctypes

from ._abi import LaunchConfig, LaunchResult, _SIZE_BITS, _int, _invalid, _real, _uint
from ._native import _P, _check, _handle, _scalar

_CONFIG_KEYS = ("local_size", "groups", "state_arg", "lock", "discovery", "barrier", "timeout_ms",
                "close_wait_us", "time_kernel", "time_protocol")


def _config(lib, **kw):
    """A LaunchConfig from keywords, each checked against its C type (nothing wraps)."""
    for k in kw:
        if k not in _CONFIG_KEYS:
            raise _invalid("launch keyword %r: expected one of %s" % (k, ", ".join(_CONFIG_KEYS)))
    c = LaunchConfig()
    lib.wgs_launch_config_init(ctypes.byref(c))
    c.local_size = _uint(kw.get("local_size", 0), "local_size", _SIZE_BITS)
    c.groups = _uint(kw.get("groups", 0), "groups", 32)
    c.state_arg = _uint(kw.get("state_arg", 0), "state_arg", 32)
    for k in ("lock", "discovery", "barrier"):
        if kw.get(k) is not None:
            setattr(c, k, _int(kw[k], k))
    for k in ("timeout_ms", "close_wait_us"):
        if kw.get(k) is not None:
            setattr(c, k, _real(kw[k], k))
    c.time_kernel, c.time_protocol = int(bool(kw.get("time_kernel"))), int(bool(kw.get("time_protocol")))
    return c


class State:
    """The protocol state of persistent launches (wgs_state_create)."""

    def __init__(self, dev, max_groups):
        self._dev, self._lib, h = dev, dev._lib, _P()
        _check(self._lib, self._lib.wgs_state_create(_handle(dev, "Device", "device"),
                                                     _uint(max_groups, "max_groups", 32),
                                                     ctypes.byref(h)))
        self._h, self.max_groups = h, max_groups

    def launch(self, kernel, **cfg):
        """Persistent launch of a wgsync Kernel; waits. Keywords: local_size, groups, state_arg,
        lock, discovery, barrier, timeout_ms, close_wait_us, time_kernel, time_protocol."""
        c, r = _config(self._lib, **cfg), LaunchResult()
        kh = _handle(kernel, "Kernel", "launch: kernel")
        _check(self._lib, self._lib.wgs_launch(self._h, kh, ctypes.byref(c), ctypes.byref(r)), r)
        return r

    def launch_async(self, kernel, **cfg):
        """Enqueues the launch and returns at once; State.result() waits and reports the latest."""
        c = _config(self._lib, **cfg)
        kh = _handle(kernel, "Kernel", "launch_async: kernel")
        _check(self._lib, self._lib.wgs_launch_async(self._h, kh, ctypes.byref(c)))

    def result(self, stream=None):
        """Waits for the state's launches and returns the latest's LaunchResult (its error,
        if any, as WgsyncError). CUDA: stream (an int handle or an object with .ptr) is where
        the latest launch ran when you launched it yourself (prepare_function)."""
        r = LaunchResult()
        if stream is None:
            _check(self._lib, self._lib.wgs_state_result(self._h, ctypes.byref(r)), r)
        else:
            self._cuda_only("result(stream=...)")
            st = int(getattr(stream, "ptr", stream))
            _check(self._lib, self._lib.wgs_cuda_state_result(self._h, _P(st), ctypes.byref(r)), r)
        return r

    def _cuda_only(self, what):
        if getattr(self._dev, "backend", "cl") != "cuda":
            raise _invalid("%s: the state is not on a CUDA device" % what)

    @property
    def device_ptr(self):
        """CUDA: the state's device address (the kernel's state argument)."""
        self._cuda_only("device_ptr")
        return self._lib.wgs_cuda_state_device_ptr(self._h) or 0

    def config(self, **cfg):
        """A launch config made once (the keywords of launch), for prepare_function(config=)."""
        return _config(self._lib, **cfg)

    def prepare_function(self, function, local_size, shared_bytes=0, stream=0, config=None, **cfg):
        """CUDA: a launch you make yourself (wgs_cuda_prepare_launch): plans a launch of the
        CUfunction `function` with local_size threads per group, writes the state's config on
        `stream`, and returns how many groups to launch there next, with the state's
        device_ptr as the kernel's state. result(stream) then reports it. Keywords as launch
        (state_arg and time_kernel do not apply), or config: one made by config() with this
        local_size."""
        self._cuda_only("prepare_function")
        fn = int(getattr(function, "ptr", function))
        st = int(getattr(stream, "ptr", stream))
        c = config if config is not None else _config(self._lib, local_size=local_size, **cfg)
        if c.local_size != local_size:
            raise _invalid("prepare_function: local_size is %r but the config's is %d"
                           % (local_size, c.local_size))
        groups = ctypes.c_uint32(0)
        _check(self._lib, self._lib.wgs_cuda_prepare_launch(self._h, _P(fn),
                                                            _uint(shared_bytes, "shared_bytes",
                                                                  _SIZE_BITS),
                                                            _P(st), ctypes.byref(c),
                                                            ctypes.byref(groups)))
        return groups.value

    def launch_function(self, function, args, shared_bytes=0, stream=0, **cfg):
        """CUDA: persistent launch of a CUfunction (an int address: CuPy RawKernel(...).kernel.ptr,
        cuda-python's CUfunction) with `args`: one entry per kernel parameter, None at
        state_arg; ctypes scalars, numpy scalars, or device pointers (objects with .data.ptr,
        e.g. CuPy arrays, or a ctypes.c_void_p). stream: an int handle or an object with .ptr.
        Waits; returns the LaunchResult."""
        self._cuda_only("launch_function")
        keep, argv = [], (_P * len(args))()
        for i, a in enumerate(args):
            if a is None:
                continue
            if hasattr(a, "data") and hasattr(a.data, "ptr"):  # CuPy array
                a = ctypes.c_void_p(a.data.ptr)
            else:
                a = _scalar(a, i, "a device array, ")
            keep.append(a)
            argv[i] = ctypes.addressof(a)
        fn = int(getattr(function, "ptr", function))
        st = int(getattr(stream, "ptr", stream))
        c, r = _config(self._lib, **cfg), LaunchResult()
        _check(self._lib, self._lib.wgs_cuda_launch_function(self._h, _P(fn), argv, len(args),
                                                             _uint(shared_bytes, "shared_bytes",
                                                                   _SIZE_BITS),
                                                             _P(st), ctypes.byref(c),
                                                             ctypes.byref(r)), r)
        return r

    def launch_opencl(self, kernel, **cfg):
        """The same for a pyopencl.Kernel (or a raw cl_kernel address)."""
        ptr = getattr(kernel, "int_ptr", kernel)
        c, r = _config(self._lib, **cfg), LaunchResult()
        _check(self._lib, self._lib.wgs_launch_opencl(self._h, _P(ptr), ctypes.byref(c), ctypes.byref(r)), r)
        return r

    def __del__(self):
        if getattr(self, "_h", None):
            self._lib.wgs_state_release(self._h)
