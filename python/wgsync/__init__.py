"""wgsync: portable work-group barriers, occupancy discovery and grid barriers.

ctypes bindings over the installed shared libraries (libwgsync.so for OpenCL,
libwgsync_cuda.so for CUDA). Set WGSYNC_LIBRARY_DIR when they are not on the loader's path.
"""
import ctypes
import ctypes.util
import os

__version__ = "0.1.0"

# ---- the C types (include/wgsync.h; same order, same types: tests/python_abi.py checks) ----

LOCK_TICKET, LOCK_SPIN, LOCK_FREE = 0, 1, 2
DISCOVERY_PROTOCOL, DISCOVERY_ALL, DISCOVERY_FIXED = 0, 1, 2
BARRIER_DEFAULT, BARRIER_XF, BARRIER_COUNTER, BARRIER_PUBLISHED = 0, 1, 2, 3
BUILD_CHECKED = 1

u32, i32, u64, i64, f32, f64 = (ctypes.c_uint32, ctypes.c_int32, ctypes.c_uint64,
                                ctypes.c_int64, ctypes.c_float, ctypes.c_double)


class DeviceInfo(ctypes.Structure):
    _fields_ = [("backend", ctypes.c_int), ("platform_index", ctypes.c_int),
                ("device_index", ctypes.c_int), ("platform_name", ctypes.c_char * 128),
                ("name", ctypes.c_char * 256), ("vendor", ctypes.c_char * 128),
                ("driver_version", ctypes.c_char * 128), ("device_version", ctypes.c_char * 128),
                ("c_version", ctypes.c_char * 64), ("is_gpu", ctypes.c_int),
                ("is_cpu", ctypes.c_int), ("compute_units", ctypes.c_uint),
                ("max_work_group_size", ctypes.c_size_t), ("local_mem_bytes", ctypes.c_uint64),
                ("global_mem_bytes", ctypes.c_uint64), ("atomics", ctypes.c_int),
                ("has_acq_rel", ctypes.c_int), ("has_scope_device", ctypes.c_int),
                ("has_split_barrier", ctypes.c_int), ("has_timer", ctypes.c_int)]

    def as_dict(self):
        return {f: (getattr(self, f).decode() if isinstance(getattr(self, f), bytes) else getattr(self, f))
                for f, _ in self._fields_}


class _Select(ctypes.Structure):
    _fields_ = [("platform", ctypes.c_int), ("device", ctypes.c_int), ("name", ctypes.c_char_p)]


class LaunchConfig(ctypes.Structure):
    _fields_ = [("local_size", ctypes.c_size_t), ("groups", ctypes.c_uint32),
                ("state_arg", ctypes.c_uint), ("lock", ctypes.c_int), ("delay", ctypes.c_uint32),
                ("close_wait_us", ctypes.c_double), ("discovery", ctypes.c_int),
                ("timeout_ms", ctypes.c_double), ("barrier", ctypes.c_int),
                ("close_at", ctypes.c_uint32), ("time_protocol", ctypes.c_int),
                ("time_kernel", ctypes.c_int)]


class LaunchResult(ctypes.Structure):
    _fields_ = [("launched", ctypes.c_uint32), ("participants", ctypes.c_uint32),
                ("protocol_us", ctypes.c_double), ("kernel_us", ctypes.c_double),
                ("err_site", ctypes.c_uint32), ("err_instance", ctypes.c_uint32),
                ("err_arrived", ctypes.c_uint32), ("err_expected", ctypes.c_uint32),
                ("err_missing_count", ctypes.c_uint32), ("err_missing", ctypes.c_uint32 * 24),
                ("expected", ctypes.c_uint32)]

    def __repr__(self):
        return ("LaunchResult(launched=%d, participants=%d, kernel_us=%.1f)"
                % (self.launched, self.participants, self.kernel_us))


class WgsyncError(RuntimeError):
    """A wgsync call failed: .status (negative), .name ("WGS_EDEADLOCK"), .detail
    (wgs_last_error), and .result (the LaunchResult of a failed launch, else None)."""

    def __init__(self, status, name, detail, result=None):
        super().__init__("%s: %s" % (name, detail))
        self.status, self.name, self.detail, self.result = status, name, detail, result


# The statuses (include/wgsync.h, WGS_STATUS_MAP); checked against the library when it loads.
STATUS = {"WGS_OK": 0, "WGS_EINVAL": -1, "WGS_ENOMEM": -2, "WGS_ENODEV": -3, "WGS_EBACKEND": -4,
          "WGS_EBUILD": -5, "WGS_ENOKERNEL": -6, "WGS_ELIMIT": -7, "WGS_EDEADLOCK": -8,
          "WGS_ELOCK": -9, "WGS_EUNSUPPORTED": -10, "WGS_EIO": -11, "WGS_EMISMATCH": -12,
          "WGS_ESPIRV": -13, "WGS_EVALIDATION": -14, "WGS_EMISUSE": -15}


def _invalid(detail):
    """Bad input from Python, reported as the C library reports its own: WGS_EINVAL."""
    return WgsyncError(STATUS["WGS_EINVAL"], "WGS_EINVAL", detail)


def _uint(value, what, bits):
    """value as an unsigned C integer of `bits` bits, never wrapped: else WGS_EINVAL."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise _invalid("%s is %r: expected an integer" % (what, value))
    if not 0 <= value < 1 << bits:
        raise _invalid("%s is %d: expected an integer from 0 to %d" % (what, value, (1 << bits) - 1))
    return value


def _int(value, what, lo=-(1 << 31), hi=(1 << 31) - 1):
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise _invalid("%s is %r: expected an integer from %d to %d" % (what, value, lo, hi))
    return value


def _real(value, what):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _invalid("%s is %r: expected a number" % (what, value))
    return float(value)


_SIZE_BITS = 8 * ctypes.sizeof(ctypes.c_size_t)


# ---- loading the libraries -------------------------------------------------------------

_libs = {}


def _find(stem):
    names = ["lib%s.so" % stem, "lib%s.so.0" % stem, "lib%s.dylib" % stem]
    d = os.environ.get("WGSYNC_LIBRARY_DIR")
    if d:
        for n in names:
            if os.path.exists(os.path.join(d, n)):
                return os.path.join(d, n)
        raise OSError("WGSYNC_LIBRARY_DIR=%s has no lib%s.so (expected the installed "
                      "wgsync's lib folder)" % (d, stem))
    try:  # installed by `cmake --install --component python`: the prefix's libraries
        from . import _installed
        d = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), _installed.LIBDIR))
        for n in names:
            if os.path.exists(os.path.join(d, n)):
                return os.path.join(d, n)
    except ImportError:
        pass
    found = ctypes.util.find_library(stem)
    if found:
        return found
    for prefix in ("/usr/local/lib", "/usr/lib"):
        if os.path.exists(os.path.join(prefix, names[0])):
            return os.path.join(prefix, names[0])
    raise OSError("lib%s.so not found: install wgsync (cmake --install) and set "
                  "WGSYNC_LIBRARY_DIR to its lib folder" % stem)


_P = ctypes.c_void_p
_SIGS = {  # name: (restype, argtypes); both libraries share the first block
    "wgs_strerror": (ctypes.c_char_p, [ctypes.c_int]),
    "wgs_status_name": (ctypes.c_char_p, [ctypes.c_int]),
    "wgs_last_error": (ctypes.c_char_p, []),
    "wgs_launch_config_init": (None, [ctypes.POINTER(LaunchConfig)]),
    # the one API of wgsync.h, in both libraries
    "wgs_device_open": (ctypes.c_int, [ctypes.POINTER(_Select), ctypes.POINTER(_P)]),
    "wgs_device_close": (None, [_P]),
    "wgs_device_get_info": (ctypes.c_int, [_P, ctypes.POINTER(DeviceInfo)]),
    "wgs_kernel_release": (None, [_P]),
    "wgs_kernel_set_arg": (ctypes.c_int, [_P, ctypes.c_uint, ctypes.c_size_t, _P]),
    "wgs_kernel_set_arg_buffer": (ctypes.c_int, [_P, ctypes.c_uint, _P]),
    "wgs_buffer_create": (ctypes.c_int, [_P, ctypes.c_size_t, ctypes.POINTER(_P)]),
    "wgs_buffer_release": (None, [_P]),
    "wgs_buffer_write": (ctypes.c_int, [_P, ctypes.c_size_t, ctypes.c_size_t, _P]),
    "wgs_buffer_read": (ctypes.c_int, [_P, ctypes.c_size_t, ctypes.c_size_t, _P]),
    "wgs_state_create": (ctypes.c_int, [_P, ctypes.c_uint32, ctypes.POINTER(_P)]),
    "wgs_state_release": (None, [_P]),
    "wgs_default_groups": (ctypes.c_uint32, [_P, ctypes.c_size_t]),
    "wgs_default_local_size": (ctypes.c_size_t, [_P]),
    "wgs_launch": (ctypes.c_int, [_P, _P, ctypes.POINTER(LaunchConfig), ctypes.POINTER(LaunchResult)]),
    "wgs_launch_async": (ctypes.c_int, [_P, _P, ctypes.POINTER(LaunchConfig)]),
    "wgs_state_result": (ctypes.c_int, [_P, ctypes.POINTER(LaunchResult)]),
}
_SIGS_CL = {
    "wgs_device_wrap_opencl": (ctypes.c_int, [_P, _P, _P, ctypes.POINTER(_P)]),
    "wgs_device_opencl_build_options": (ctypes.c_char_p, [_P, ctypes.c_uint]),
    "wgs_device_library_source": (ctypes.c_char_p, []),
    "wgs_program_build": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint,
                                         ctypes.POINTER(_P)]),
    "wgs_program_release": (None, [_P]),
    "wgs_kernel_create": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.POINTER(_P)]),
    "wgs_kernel_run": (ctypes.c_int, [_P, ctypes.c_uint, ctypes.POINTER(ctypes.c_size_t),
                                      ctypes.POINTER(ctypes.c_size_t)]),
    "wgs_launch_opencl": (ctypes.c_int, [_P, _P, ctypes.POINTER(LaunchConfig),
                                         ctypes.POINTER(LaunchResult)]),
}
_SIGS_CUDA = {
    "wgs_kernel_cuda_function": (ctypes.c_int, [_P, _P, ctypes.POINTER(_P)]),
    "wgs_cuda_device_count": (ctypes.c_int, [ctypes.POINTER(ctypes.c_int)]),
    "wgs_cuda_device_info": (ctypes.c_int, [ctypes.c_int, ctypes.POINTER(DeviceInfo)]),
    "wgs_cuda_state_create": (ctypes.c_int, [ctypes.c_int, ctypes.c_uint32, ctypes.POINTER(_P)]),
    "wgs_cuda_state_release": (None, [_P]),
    "wgs_cuda_default_groups": (ctypes.c_uint32, [ctypes.c_int, ctypes.c_size_t]),
    "wgs_cuda_launch_function": (ctypes.c_int, [_P, _P, ctypes.POINTER(_P), ctypes.c_uint,
                                                ctypes.c_size_t, _P, ctypes.POINTER(LaunchConfig),
                                                ctypes.POINTER(LaunchResult)]),
}


def _lib(which):
    """The OpenCL ('cl') or CUDA ('cuda') library, loaded once."""
    if which not in _libs:
        lib = ctypes.CDLL(_find("wgsync" if which == "cl" else "wgsync_cuda"))
        sigs = dict(_SIGS)
        sigs.update(_SIGS_CL if which == "cl" else _SIGS_CUDA)
        for name, (res, args) in sigs.items():
            f = getattr(lib, name)
            f.restype, f.argtypes = res, args
        _check_abi(lib)
        _libs[which] = lib
    return _libs[which]


def _check_abi(lib):
    """What this module mirrors by hand, checked against the library it loaded: every status's
    name, and that wgs_launch_config_init writes no byte past this module's LaunchConfig."""
    for name, code in STATUS.items():
        got = lib.wgs_status_name(code).decode()
        if got != name:
            raise OSError("wgsync: status %d is %s in the library but %s here (the Python package "
                          "and the library differ in version)" % (code, got, name))
    size = ctypes.sizeof(LaunchConfig)
    raw = (ctypes.c_ubyte * (size + 64))(*([0xA5] * (size + 64)))
    lib.wgs_launch_config_init(ctypes.cast(raw, ctypes.POINTER(LaunchConfig)))
    if any(b != 0xA5 for b in raw[size:]):
        raise OSError("wgsync: the library's wgs_launch_config is larger than this package's "
                      "LaunchConfig (%d bytes): the package and the library differ in version" % size)


def _check(lib, rc, result=None):
    if rc != 0:
        raise WgsyncError(rc, lib.wgs_status_name(rc).decode(),
                          lib.wgs_last_error().decode(errors="replace"), result)


def library_path(which="cl"):
    """The path of the shared library in use ('cl' or 'cuda')."""
    return _find("wgsync" if which == "cl" else "wgsync_cuda")


def include_dir():
    """The folder holding wgsync.cuh, wgs_core.h, wgs_layout.h and wgsync.cl (for NVRTC / CuPy -I, and for
    building OpenCL programs yourself): WGSYNC_INCLUDE_DIR, else <prefix>/include/wgsync next
    to the library's <prefix>/lib."""
    d = os.environ.get("WGSYNC_INCLUDE_DIR")
    if d:
        return d
    for which in ("cuda", "cl"):
        try:
            lib = os.path.realpath(library_path(which))
        except OSError:
            continue
        for up in (1, 2):  # <prefix>/lib or <prefix>/lib/<multiarch>
            base = os.path.dirname(lib)
            for _ in range(up):
                base = os.path.dirname(base)
            cand = os.path.join(base, "include", "wgsync")
            if os.path.isdir(cand):
                return cand
    raise OSError("the wgsync headers were not found next to the library: set WGSYNC_INCLUDE_DIR")


def device_library_source():
    """The OpenCL C device library (what wgs_program_build puts in front of a source)."""
    return _lib("cl").wgs_device_library_source().decode()


class local:
    """A kernel's __local (shared-memory) argument of nbytes bytes: k.set_arg(i, wgsync.local(n)).
    On CUDA, a kernel's dynamic shared memory."""

    def __init__(self, nbytes):
        self.nbytes = _uint(nbytes, "local memory size in bytes", _SIZE_BITS)
        if self.nbytes == 0:
            raise _invalid("local memory of 0 bytes: expected at least 1")

    def __repr__(self):
        return "wgsync.local(%d)" % self.nbytes


def _scalar(value, index, also=""):
    """A kernel argument passed by value, as ctypes data: ctypes scalars as they are, numpy
    scalars by their bytes; anything else is a TypeError naming what was expected."""
    if hasattr(value, "dtype") and hasattr(value, "tobytes"):  # numpy scalar
        raw = value.tobytes()
        return (ctypes.c_char * len(raw)).from_buffer_copy(raw)
    if isinstance(value, (ctypes._SimpleCData, ctypes.Array)):
        return value
    raise TypeError("kernel argument %d: expected %sa ctypes scalar (wgsync.u32, f32, ...) or a "
                    "numpy scalar, got %r" % (index, also, type(value)))


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


def _handle(obj, cls, what):
    """The C handle of a wgsync object, or WGS_EINVAL naming what was passed instead."""
    if not isinstance(obj, cls):
        raise _invalid("%s is a %s: expected a wgsync.%s" % (what, type(obj).__name__, cls.__name__))
    if not getattr(obj, "_h", None):
        raise _invalid("%s: this wgsync.%s was closed" % (what, cls.__name__))
    return obj._h


# ---- OpenCL ------------------------------------------------------------------------------

class Device:
    """A device of any backend (wgs_device_open): an OpenCL device with its context and queue,
    or a CUDA device when name is "cuda" or "cuda:N" (through libwgsync_cuda); or wrapping your
    PyOpenCL queue (from_pyopencl)."""

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
        h = _handle(self, Device, "build_options")
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
        _check(self._lib, self._lib.wgs_program_build(_handle(dev, Device, "device"), source.encode(),
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
        _check(self._lib, self._lib.wgs_buffer_create(_handle(dev, Device, "device"),
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


class State:
    """The protocol state of persistent launches (wgs_state_create)."""

    def __init__(self, dev, max_groups):
        self._dev, self._lib, h = dev, dev._lib, _P()
        _check(self._lib, self._lib.wgs_state_create(_handle(dev, Device, "device"),
                                                     _uint(max_groups, "max_groups", 32),
                                                     ctypes.byref(h)))
        self._h, self.max_groups = h, max_groups

    def launch(self, kernel, **cfg):
        """Persistent launch of a wgsync Kernel; waits. Keywords: local_size, groups, state_arg,
        lock, discovery, barrier, timeout_ms, close_wait_us, time_kernel, time_protocol."""
        c, r = _config(self._lib, **cfg), LaunchResult()
        kh = _handle(kernel, Kernel, "launch: kernel")
        _check(self._lib, self._lib.wgs_launch(self._h, kh, ctypes.byref(c), ctypes.byref(r)), r)
        return r

    def launch_async(self, kernel, **cfg):
        """Enqueues the launch and returns at once; State.result() waits and reports the latest."""
        c = _config(self._lib, **cfg)
        kh = _handle(kernel, Kernel, "launch_async: kernel")
        _check(self._lib, self._lib.wgs_launch_async(self._h, kh, ctypes.byref(c)))

    def result(self):
        """Waits for the state's launches and returns the latest's LaunchResult (its error,
        if any, as WgsyncError)."""
        r = LaunchResult()
        _check(self._lib, self._lib.wgs_state_result(self._h, ctypes.byref(r)), r)
        return r

    def launch_function(self, function, args, shared_bytes=0, stream=0, **cfg):
        """CUDA: persistent launch of a CUfunction (an int address: CuPy RawKernel(...).kernel.ptr,
        cuda-python's CUfunction) with `args`: one entry per kernel parameter, None at
        state_arg; ctypes scalars, numpy scalars, or device pointers (objects with .data.ptr,
        e.g. CuPy arrays, or a ctypes.c_void_p). stream: an int handle or an object with .ptr.
        Waits; returns the LaunchResult."""
        if getattr(self._dev, "backend", "cl") != "cuda":
            raise _invalid("launch_function: the state is not on a CUDA device")
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


# ---- CUDA --------------------------------------------------------------------------------

def cuda_device_count():
    lib, n = _lib("cuda"), ctypes.c_int(0)
    lib.wgs_cuda_device_count(ctypes.byref(n))
    return n.value


class CudaState(State):
    """A State on CUDA device `device` (Device("cuda:N").state(...)); kept for the programs
    that name their GPU by ordinal. Everything is State's."""

    def __init__(self, device=0, max_groups=None, local_size=None):
        n = cuda_device_count()
        if not 0 <= _int(device, "device") < n:
            raise WgsyncError(STATUS["WGS_ENODEV"], "WGS_ENODEV", "CUDA device %d: this machine has %d "
                              "CUDA device(s)" % (device, n))
        dev = Device("cuda:%d" % device)
        if max_groups is None:
            if local_size is None:
                local_size = dev._lib.wgs_default_local_size(dev._h)
            max_groups = dev._lib.wgs_default_groups(dev._h, _uint(local_size, "local_size",
                                                                   _SIZE_BITS))
        State.__init__(self, dev, max_groups)
        self.device = device
