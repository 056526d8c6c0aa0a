"""The Python package on OpenCL (PoCL in CI, NVIDIA on the GPU machine): a persistent launch,
errors as exceptions, a caught deadlock, an ordinary launch, and PyOpenCL interop.
Run: python3 python/tests/test_opencl.py (WGSYNC_LIBRARY_DIR = the installed lib folder).
Exit 0 = passed, 77 = PyOpenCL part skipped is reported but not fatal, 1 = failed."""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import wgsync  # noqa: E402

COUNT = r"""
__kernel void count(__global uint *wgs, __global uint *slot, __global uint *bad, uint rounds)
{
  wgs_env env;
  if (wgs_discover(wgs, &env)) {
    uint g = wgs_get_group_id(&env), n = wgs_get_num_groups(&env);
    for (uint r = 1; r <= rounds; ++r) {
      if (get_local_id(0) == 0) slot[g] = r;
      wgs_grid_barrier(&env);
      if (get_local_id(0) == 0 && slot[(g + 1) % n] != r) atomic_inc(bad);
      wgs_grid_barrier(&env);
    }
  }
}
"""


def test_persistent(dev):
    prog = dev.build(COUNT, checked=True)
    k = prog.kernel("count")
    st = dev.state(local_size=32)
    slot, bad = dev.buffer(4 * st.max_groups), dev.buffer(4)
    bad.write(b"\0" * 4)
    k.set_args(None, slot, bad, wgsync.u32(200))
    res = st.launch(k, local_size=32, time_kernel=True)
    stale = struct.unpack("I", bad.read())[0]
    print("persistent: %r, %d stale reads" % (res, stale))
    assert 1 <= res.participants <= st.max_groups
    assert stale == 0
    # asynchronous: two launches back to back, then the latest's result
    st.launch_async(k, local_size=32)
    st.launch_async(k, local_size=32)
    res2 = st.result()
    assert 1 <= res2.participants <= st.max_groups and struct.unpack("I", bad.read())[0] == 0
    try:
        st.result()  # nothing launched since
        raise AssertionError("a result without a launch was given")
    except wgsync.WgsyncError as e:
        assert e.name == "WGS_EINVAL" and "no launch" in e.detail
    return k, st


LOCAL_SUM = r"""
__kernel void lsum(__global uint *wgs, __local uint *scratch, __global uint *out)
{
  wgs_env env;
  if (wgs_discover(wgs, &env)) {
    uint lid = get_local_id(0), n = get_local_size(0);
    scratch[lid] = lid + 1u;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0u) {
      uint s = 0u;
      for (uint i = 0u; i < n; ++i) s += scratch[i];
      out[wgs_get_group_id(&env)] = s;
    }
  }
}
"""


def test_local_arg(dev):
    """A __local argument from Python (wgsync.local): every group sums 1..local_size in it."""
    k = dev.build(LOCAL_SUM).kernel("lsum")
    st = dev.state(local_size=32)
    out = dev.buffer(4 * st.max_groups)
    k.set_args(None, wgsync.local(4 * 32), out)
    res = st.launch(k, local_size=32)
    sums = struct.unpack("%dI" % res.participants, out.read(4 * res.participants))
    print("__local argument: %d groups summed %s" % (res.participants, sorted(set(sums))))
    assert all(s == 32 * 33 // 2 for s in sums)
    try:
        wgsync.local(0)
        raise AssertionError("local(0) was accepted")
    except wgsync.WgsyncError as e:
        assert e.name == "WGS_EINVAL" and "at least 1" in e.detail


def test_errors(dev, k, st):
    assert "-cl-std" in dev.build_options() or "-D" in dev.build_options()
    closed = wgsync.Device()
    closed.close()
    try:
        closed.build_options()
        raise AssertionError("build_options on a closed device answered")
    except wgsync.WgsyncError as e:
        assert e.name == "WGS_EINVAL" and "closed" in e.detail, e.detail
    try:
        vk = wgsync.Device("vulkan")
    except wgsync.WgsyncError:
        vk = None  # (no Vulkan device here)
    if vk is not None:
        try:
            vk.build_options()
            raise AssertionError("build_options on a Vulkan device answered")
        except wgsync.WgsyncError as e:
            assert e.name == "WGS_EUNSUPPORTED" and "not an OpenCL device" in e.detail, e.detail
        vk.close()
    try:
        dev.build("__kernel void k(__global uint *wgs) { this_is_not_c; }")
        raise AssertionError("a broken program built")
    except wgsync.WgsyncError as e:
        print("build error as an exception: %s" % e.name)
        assert e.name == "WGS_EBUILD" and "this_is_not_c" in e.detail
    try:
        dev.build(COUNT).kernel("no_such_kernel")
        raise AssertionError("a missing kernel was created")
    except wgsync.WgsyncError as e:
        assert e.name == "WGS_ENOKERNEL" and "count" in e.detail
    # every launched group forced to take part, 4x what can run at once: caught, not hung
    groups = 4 * st.max_groups
    big = dev.state(max_groups=groups)
    # every launched group writes its slot: the slots must cover all of them
    big_slot, bad = dev.buffer(4 * groups), dev.buffer(4)
    bad.write(b"\0" * 4)
    k.set_args(None, big_slot, bad, wgsync.u32(200))
    try:
        big.launch(k, local_size=32, groups=groups, discovery=wgsync.DISCOVERY_ALL, timeout_ms=200)
        raise AssertionError("an over-full barrier returned")
    except wgsync.WgsyncError as e:
        print("deadlock as an exception: %s, %d of %d arrived" %
              (e.name, e.result.err_arrived, e.result.err_expected))
        assert e.name == "WGS_EDEADLOCK" and e.result.err_missing_count > 0
    # and the state still works
    assert st.launch(k, local_size=32).participants >= 1
    try:
        k.set_arg(3, 5)
        raise AssertionError("an untyped int was accepted")
    except TypeError as e:
        assert "ctypes scalar" in str(e)
    # bad arguments are WgsyncError (WGS_EINVAL) naming them; nothing wraps to another value
    for call, what in ((lambda: st.launch(k, groups=2 ** 40), "groups is 1099511627776"),
                       (lambda: st.launch(k, local_size=-1), "local_size is -1"),
                       (lambda: st.launch(k, grups=4), "launch keyword 'grups'"),
                       (lambda: st.launch("count", groups=2), "kernel is a str"),
                       (lambda: dev.state(max_groups=2 ** 32), "max_groups is 4294967296"),
                       (lambda: dev.buffer(-4), "nbytes is -4"),
                       (lambda: bad.read(8, offset=2), "8 bytes at offset 2"),
                       (lambda: k.run((64, 1), 32), "global_size has 2 dimensions")):
        try:
            call()
            raise AssertionError("accepted: " + what)
        except wgsync.WgsyncError as e:
            assert e.name == "WGS_EINVAL" and what in e.detail, (what, e.detail)


SPLIT = r"""
__kernel void shift(__global const uint *in, __global uint *out)
{
  __local uint s[32];
  uint l = get_local_id(0);
  s[l] = in[get_global_id(0)];
  intel_work_group_barrier_arrive(CLK_LOCAL_MEM_FENCE);
  intel_work_group_barrier_wait(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = s[(l + 1) % 32];
}
"""


def test_ordinary(dev):
    k = dev.build(SPLIT).kernel("shift")
    n = 32 * 8
    src, dst = dev.buffer(4 * n), dev.buffer(4 * n)
    src.write(struct.pack("%dI" % n, *range(n)))
    k.set_args(src, dst)
    k.run(n, 32)
    got = struct.unpack("%dI" % n, dst.read())
    want = [i - i % 32 + (i % 32 + 1) % 32 for i in range(n)]
    assert list(got) == want
    print("ordinary launch with the split work-group barrier: %d values right" % n)


def test_pyopencl():
    try:
        import numpy as np
        import pyopencl as cl
    except ImportError as e:
        print("SKIP pyopencl part: %s" % e)
        return False
    name = os.environ.get("WGSYNC_DEVICE", "")
    devs = [d for p in cl.get_platforms() for d in p.get_devices()
            if not name or name.lower() in (p.name + " " + d.name + " " + d.vendor).lower()]
    ctx = cl.Context([devs[0]])
    q = cl.CommandQueue(ctx)
    dev = wgsync.Device.from_pyopencl(q)
    prog = cl.Program(ctx, wgsync.device_library_source() + COUNT).build(options=dev.build_options())
    k = prog.count
    st = dev.state(local_size=32)
    mf = cl.mem_flags
    slot = cl.Buffer(ctx, mf.READ_WRITE, 4 * st.max_groups)
    bad_host = np.zeros(1, np.uint32)
    bad = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=bad_host)
    k.set_arg(1, slot)
    k.set_arg(2, bad)
    k.set_arg(3, np.uint32(100))
    res = st.launch_opencl(k, local_size=32)
    cl.enqueue_copy(q, bad_host, bad)
    print("PyOpenCL context, queue, program and kernel: %r, %d stale reads" % (res, bad_host[0]))
    assert res.participants >= 1 and bad_host[0] == 0
    return True


def main():
    inc = wgsync.include_dir()
    assert os.path.exists(os.path.join(inc, "wgsync.cl")), inc
    dev = wgsync.Device()
    print("device: %s (%s)" % (dev.name, dev.info["driver_version"]))
    k, st = test_persistent(dev)
    test_local_arg(dev)
    test_errors(dev, k, st)
    test_ordinary(dev)
    test_pyopencl()
    print("PASS")


if __name__ == "__main__":
    main()
