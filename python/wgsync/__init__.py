"""wgsync: portable work-group barriers, occupancy discovery and grid barriers.

ctypes bindings over the installed shared libraries (libwgsync.so for OpenCL,
libwgsync_cuda.so for CUDA). Set WGSYNC_LIBRARY_DIR when they are not on the loader's path.

The package's modules: _abi (the C types and constants), _native (loading the libraries),
device (Device, Program, Kernel, Buffer, local), state (State and its launches), cuda
(cuda_device_count, CudaState). Everything public is here, at the package's top.
"""
__version__ = "0.1.0"

from ._abi import (BARRIER_COUNTER, BARRIER_DEFAULT, BARRIER_PUBLISHED, BARRIER_XF,
                   BUILD_CHECKED, DISCOVERY_ALL, DISCOVERY_FIXED, DISCOVERY_PROTOCOL, LOCK_FREE,
                   LOCK_SPIN, LOCK_TICKET, STATUS, DeviceInfo, LaunchConfig, LaunchResult,
                   WgsyncError, f32, f64, i32, i64, u32, u64)
from ._abi import _Select  # noqa: F401 (the C type tests/python_abi.py checks)
from ._native import device_library_source, include_dir, library_path
from .device import Buffer, Device, Kernel, Program, local
from .state import State
from .cuda import CudaState, cuda_device_count

__all__ = ["BARRIER_COUNTER", "BARRIER_DEFAULT", "BARRIER_PUBLISHED", "BARRIER_XF", "BUILD_CHECKED",
           "DISCOVERY_ALL", "DISCOVERY_FIXED", "DISCOVERY_PROTOCOL", "LOCK_FREE", "LOCK_SPIN",
           "LOCK_TICKET", "STATUS", "Buffer", "CudaState", "Device", "DeviceInfo", "Kernel",
           "LaunchConfig", "LaunchResult", "Program", "State", "WgsyncError", "cuda_device_count",
           "device_library_source", "f32", "f64", "i32", "i64", "include_dir", "library_path",
           "local", "u32", "u64"]
