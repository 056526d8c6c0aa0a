"""wgsync for Triton kernels: discovery, grid barriers and grid reductions without a cooperative
launch (NVIDIA GPUs; Triton 3.x).

    import triton, triton.language as tl
    import wgsync.triton as wt

    @triton.jit
    def step(state, x, n, ITERS: tl.constexpr):
        env = wt.discover(state)              # first, in every program
        if wt.participating(env) == 0:
            return                            # a program that does not run at once with the rest
        pid, npid = wt.group_id(env), wt.num_groups(env)
        for it in range(ITERS):
            ...                               # work on x, programs pid, pid + npid, ...
            env = wt.grid_barrier(env)        # every program's writes visible to every program

    grid = wt.Grid()                          # one per CUDA device and stream
    grid.launch(step, x, n, ITERS=10, num_warps=4)
    print(grid.result().participants)         # waits; a checked kernel's deadlock raises

Grid.launch compiles the kernel with Triton, asks wgsync how many programs to launch for it (the
most the device could run at once, from its occupancy API for this compiled kernel), writes the
launch's config on the current stream and launches it through Triton, the Grid as the kernel's
first argument. Discovery then finds the programs that really run at once, whatever else holds
the GPU; the rest leave at once. No cooperative launch and no host reset between launches:
launches on one Grid, back to back or replayed from a CUDA graph, need nothing in between.
"""

from .._abi import _invalid
from ..device import Device
from ._device import (MAX, MIN, SUM, discover, grid_arrive, grid_arrive_reduce, grid_barrier,
                      grid_barrier_or, grid_reduce, grid_wait, grid_wait_reduce, group_id,
                      num_groups, participating)

__all__ = ["Grid", "discover", "grid_barrier", "grid_barrier_or", "grid_arrive", "grid_wait",
           "grid_reduce", "grid_arrive_reduce", "grid_wait_reduce", "group_id", "num_groups",
           "participating", "SUM", "MIN", "MAX"]

_DISCOVERY = {"protocol": 0, "all": 1, "fixed": 2}
_BARRIER = {"counter": 2, "published": 3}  # wgs_barrier: the counter barrier's shapes


def _spec(arg):
    """What Triton specialises a kernel argument on (its compiled code, so its occupancy, can
    differ with it)."""
    if hasattr(arg, "data_ptr"):
        return (str(getattr(arg, "dtype", None)), arg.data_ptr() % 16 == 0)
    if isinstance(arg, bool) or not isinstance(arg, int):
        return (type(arg).__name__, arg if isinstance(arg, (bool, float, str)) else None)
    return ("int", arg == 1, arg % 16 == 0, -2**31 <= arg < 2**31)


def _ordinal(device):
    if device is None:
        try:
            import torch
            return torch.cuda.current_device()
        except ImportError:
            return 0
    if isinstance(device, int):
        return device
    index = getattr(device, "index", None)  # torch.device
    if index is not None:
        return index
    text = str(device)
    if text.startswith("cuda:") and text[5:].isdigit():
        return int(text[5:])
    if text == "cuda":
        return _ordinal(None)
    raise _invalid("Grid: device %r: expected a CUDA ordinal, 'cuda:N' or a torch.device" % (device,))


class Grid:
    """A wgsync protocol state on one CUDA device, for the launches of Triton kernels that call
    wgsync.triton's device functions. Pass it to the kernel as its state (a `*u32` pointer: it
    has data_ptr() and dtype, as a tensor does). Launches on one Grid must be ordered: one
    stream, or a Grid per stream."""

    def __init__(self, device=None, max_programs=None):
        import triton.language as tl
        self.device = _ordinal(device)
        self._dev = Device("cuda:%d" % self.device)
        lib = self._dev._lib
        if max_programs is None:  # the most programs of one warp the device can hold
            max_programs = lib.wgs_cuda_default_groups(self.device, 32)
        self.state = self._dev.state(max_programs)
        self.max_programs = max_programs
        self.dtype = tl.uint32
        self.programs = 0
        self._stream = None
        self._ptr = self.state.device_ptr
        self._kernels = {}  # what a launch needs of a compiled kernel, by what Triton specialises on
        self._configs = {}  # wgsync launch configs, by their keywords

    def data_ptr(self):
        return self._ptr

    def _compiled(self, kernel, args, num_warps, kwargs, fresh):
        """(CUfunction, dynamic shared bytes, threads) of kernel as Triton compiles it for these
        arguments: asked of Triton once per kernel, num_warps, keywords and what Triton
        specialises arguments on (a tensor's dtype and 16-byte alignment, an int being 1 or a
        multiple of 16), then kept; fresh: ask again (a fixed launch, whose size must fit the
        kernel exactly)."""
        try:
            key = (kernel, num_warps, tuple(sorted(kwargs.items())), tuple(_spec(a) for a in args))
            hash(key)
        except TypeError:  # an unhashable keyword: no caching
            key, fresh = None, True
        hit = None if fresh else self._kernels.get(key)
        if hit is None:
            compiled = kernel.warmup(self, *args, grid=(1,), num_warps=num_warps, **kwargs)
            compiled._init_handles()
            hit = (compiled.function, compiled.metadata.shared, compiled.metadata.num_warps * 32)
            if key is not None:
                self._kernels[key] = hit
        return hit

    def launch(self, kernel, *args, num_warps=4, programs=None, discovery="protocol",
               barrier="counter", close_wait_us=None, timeout_ms=None, **kwargs):
        """Launches kernel (a @triton.jit function whose first argument is the state) with this
        Grid and *args, **kwargs (its other arguments and constexprs, num_stages and the like).
        programs: how many to launch (default: the most that could run at once, from the
        occupancy API for the compiled kernel; discovery finds those that do). discovery:
        "protocol" (default), "fixed" for a count you know runs at once (every launched program
        takes part; refused above what the occupancy API allows), or "all" (every launched
        program takes part, unchecked: a count too high deadlocks, which a CHECKED kernel
        reports). barrier: "counter" (default: the shapes wgsync picks by program count) or
        "published" (from 880 programs, one count whose last arrival publishes: for kernels
        whose programs reach each barrier at different times; docs/guide.md).
        close_wait_us, timeout_ms: as wgsync's launch config (the close wait; a checked
        kernel's spin bound). Returns the programs launched; result() reports the launch."""
        from triton.runtime import driver
        if discovery not in _DISCOVERY:
            raise _invalid("Grid.launch: discovery %r: expected 'protocol', 'fixed' or 'all'"
                           % (discovery,))
        if barrier not in _BARRIER:
            raise _invalid("Grid.launch: barrier %r: expected 'counter' or 'published'" % (barrier,))
        if not isinstance(num_warps, int) or num_warps < 1:
            raise _invalid("Grid.launch: num_warps is %r (expected a positive int)" % (num_warps,))
        fn, shared, threads = self._compiled(kernel, args, num_warps, kwargs, discovery == "fixed")
        stream = driver.active.get_current_stream(self.device)
        ckey = (programs, discovery, barrier, close_wait_us, timeout_ms, threads)
        cfg = self._configs.get(ckey)
        if cfg is None:
            kw = {"groups": programs or 0, "discovery": _DISCOVERY[discovery],
                  "barrier": _BARRIER[barrier]}
            if close_wait_us is not None:
                kw["close_wait_us"] = close_wait_us
            if timeout_ms is not None:
                kw["timeout_ms"] = timeout_ms
            cfg = self._configs[ckey] = self.state.config(local_size=threads, **kw)
        n = self.state.prepare_function(fn, threads, shared, stream, config=cfg)
        kernel[(n,)](self, *args, num_warps=num_warps, **kwargs)
        self.programs, self._stream = n, stream
        return n

    def result(self):
        """Waits for the latest launch and returns its wgsync LaunchResult: participants (the
        programs that took part), launched, expected (what the occupancy API said runs at once).
        A checked kernel's barrier that timed out raises WgsyncError (WGS_EDEADLOCK) naming the
        programs that never arrived."""
        if self._stream is None:
            raise _invalid("Grid.result: nothing was launched on this Grid")
        return self.state.result(stream=self._stream)
