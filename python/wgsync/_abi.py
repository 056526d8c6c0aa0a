"""The C types, constants and statuses of include/wgsync.h, mirrored for ctypes (same order, same
types: tests/python_abi.py checks them against the header), and the checks that turn a Python
value into a C one without wrapping."""
import ctypes


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
