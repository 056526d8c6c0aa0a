"""wgsync.triton without a GPU: the device library's kernels compiled ahead of time for an NVIDIA
target (sm_90) with the Triton from PyPI, and the orderings the protocol needs checked in the
PTX they became: an acquire at GPU scope after every poll, release arrivals, the acq_rel count-in
of discovery, no system-scope or weaker forms where those belong. (The GPU test, test_triton.py,
runs them.) Exit 77 where Triton is not installed.
  python3 python/tests/test_triton_aot.py
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
try:
    import triton
    import triton.language as tl
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
except ImportError as e:
    print("skipped: %s" % e)
    sys.exit(77)

import wgsync.triton as wt

failures = []


def check(ok, what):
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    if not ok:
        failures.append(what)


@triton.jit
def only_discover(state, out):
    env = wt.discover(state)
    if wt.participating(env) != 0:
        tl.store(out + wt.group_id(env), wt.num_groups(env))


@triton.jit
def one_barrier(state, out):
    env = wt.discover(state)
    if wt.participating(env) == 0:
        return
    tl.store(out + wt.group_id(env), 1)
    env = wt.grid_barrier(env)
    tl.store(out + wt.group_id(env), tl.load(out + (wt.group_id(env) + 1) % wt.num_groups(env)))


@triton.jit
def everything(state, out, rounds, CHECKED: tl.constexpr):
    env = wt.discover(state, CHECKED)
    if wt.participating(env) == 0:
        return
    gid = wt.group_id(env)
    for r in range(rounds):
        env = wt.grid_barrier(env, CHECKED)
        env, any1 = wt.grid_barrier_or(env, gid == r, CHECKED)
        env = wt.grid_arrive(env, CHECKED)
        env = wt.grid_wait(env, CHECKED)
        env, fs = wt.grid_reduce(env, gid.to(tl.float32), wt.SUM, CHECKED)
        env, im = wt.grid_reduce(env, gid.to(tl.int32), wt.MIN, CHECKED)
        env = wt.grid_arrive_reduce(env, gid, wt.MAX, CHECKED)
        env, um = wt.grid_wait_reduce(env, wt.MAX, tl.uint32, CHECKED)
        tl.store(out + gid, fs + im.to(tl.float32) + um.to(tl.float32) + any1.to(tl.float32))


def compile_ptx(fn, signature, constexprs=None, num_warps=4):
    src = ASTSource(fn=fn, signature=signature, constexprs=constexprs or {})
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": num_warps}).asm["ptx"]


def ops(ptx):
    """The PTX's memory operations on global memory, as (op, order, scope) text."""
    return re.findall(r"\b((?:atom|red|ld|st)\.global[.\w]*)", ptx)


def main():
    print("Triton %s, target sm_90" % triton.__version__)
    ptx = compile_ptx(only_discover, {"state": "*u32", "out": "*u32"})
    o = ops(ptx)
    check(any(re.match(r"atom\.global\.gpu\.acq_rel\.add", x) for x in o),
          "discovery: the poll's add is acq_rel at GPU scope (it counts the program in for the launch epoch)")
    check(any(re.match(r"atom\.global\.gpu\.release\.exch", x) for x in o),
          "discovery: the final count is published with a release store")
    check(any(re.match(r"ld\.global\.gpu\.acquire", x) for x in o),
          "discovery: the participants acquire the final count")
    check(not any(".sys" in x for x in o), "discovery: no system-scope atomics (%s)" % sorted(set(o)))

    for warps in (1, 4, 8):
        ptx = compile_ptx(one_barrier, {"state": "*u32", "out": "*u32"}, num_warps=warps)
        o = ops(ptx)
        arrivals = [x for x in o if re.match(r"atom\.global\.gpu\.(release|acq_rel)\.add", x)]
        polls = [x for x in o if re.match(r"ld\.global\.gpu\.relaxed", x)]
        loads_acq = [x for x in o if re.match(r"ld\.global\.gpu\.acquire", x)]
        rmw_acq = [x for x in o if re.match(r"atom\.global\.gpu\.acquire", x)]
        relaxed_adds = [x for x in o if re.match(r"atom\.global\.gpu\.relaxed\.add", x)]
        # One acquire per place a program learns that the others arrived: discovery's final
        # count, the published shape's last arrival, a replica's poll and the one count's poll
        # (loads), the combiner's shards (an RMW per lane). Triton turns an acquire add of 0
        # into a load and drops a load whose value is unused: a barrier without its acquire
        # still passes a message-passing test whose reads bypass L1, while plain loads after it
        # read stale lines.
        check(len(arrivals) >= 3 and len(loads_acq) >= 4 and len(rmw_acq) >= 1 and polls
              and not relaxed_adds,
              "grid barrier (num_warps=%d): %d release/acq_rel arrivals, %d acquire loads (4 "
              "wanted), %d acquire RMWs, %d relaxed polls, no relaxed add arrives"
              % (warps, len(arrivals), len(loads_acq), len(rmw_acq), len(polls)))
        bars = ptx.count("bar.sync")
        check(bars >= 4, "grid barrier (num_warps=%d): %d program barriers (B1 and B3 at least)" % (warps, bars))

    for checked in (False, True):
        ptx = compile_ptx(everything, {"state": "*u32", "out": "*fp32", "rounds": "i32", "CHECKED": "constexpr"},
                          {"CHECKED": checked})
        check(len(ptx) > 0, "every device function compiles (checked=%s): %d KiB of PTX"
              % (checked, len(ptx) // 1024))
        if checked:
            check("globaltimer" in ptx, "checked: the spins read the clock (bounded by the host's timeout)")
    if failures:
        print("FAILED: %d: %s" % (len(failures), "; ".join(failures)))
        return 1
    print("triton aot: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
