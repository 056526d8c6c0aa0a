"""Loading libwgsync (OpenCL, Vulkan, null) and libwgsync_cuda: where they are, their functions'
signatures, the check that they match this package, and where the headers are."""
import ctypes
import ctypes.util
import os

from ._abi import STATUS, DeviceInfo, LaunchConfig, LaunchResult, WgsyncError, _Select, _invalid


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
    "wgs_cuda_prepare_launch": (ctypes.c_int, [_P, _P, ctypes.c_size_t, _P, ctypes.POINTER(LaunchConfig),
                                               ctypes.POINTER(ctypes.c_uint32)]),
    "wgs_cuda_state_result": (ctypes.c_int, [_P, _P, ctypes.POINTER(LaunchResult)]),
    "wgs_cuda_state_device_ptr": (_P, [_P]),
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


def _handle(obj, kind, what):
    """The C handle of a wgsync object of the class named kind ("Device", "Kernel", ...: the
    class's _wgs_kind), or WGS_EINVAL naming what was passed instead."""
    if getattr(type(obj), "_wgs_kind", None) != kind:
        raise _invalid("%s is a %s: expected a wgsync.%s" % (what, type(obj).__name__, kind))
    if not getattr(obj, "_h", None):
        raise _invalid("%s: this wgsync.%s was closed" % (what, kind))
    return obj._h
