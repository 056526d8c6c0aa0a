"""CUDA by ordinal: the device count, and a State named by the GPU's number."""
import ctypes

from ._abi import STATUS, WgsyncError, _SIZE_BITS, _int, _uint
from ._native import _lib
from .device import Device
from .state import State

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
