"""Global reductions in a Triton kernel with wgsync's grid reduction, against what PyTorch Inductor
makes of the same line of PyTorch: its default (split) reduction and its cooperative reductions
(`torch._inductor.config.triton.cooperative_reductions`). Three expressions over N elements:
x.sum(), x.amax() and x / x.sum(), the last fused into one kernel by wgsync (the reduction's
result used by the same programs after the grid reduction, their chunks re-read while in L2).
Every form runs from a CUDA graph of 10 calls (GPU time per call, median of the replays
[min-max]); results are checked against eager PyTorch.
  python3 bench/apps/triton_reduce.py [--sizes 32768,131072,1048576,8388608] [--dtype float32]
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import torch
import triton
import triton.language as tl

import wgsync.triton as wt


@triton.jit
def _partial(x, n, pid, npid, BLOCK: tl.constexpr, OP: tl.constexpr):
    if OP == 0:
        acc = tl.zeros([BLOCK], tl.float32)
    else:
        acc = tl.full([BLOCK], float("-inf"), tl.float32)
    for b in range(pid * BLOCK, n, npid * BLOCK):
        i = b + tl.arange(0, BLOCK)
        if OP == 0:
            acc += tl.load(x + i, mask=i < n, other=0.0).to(tl.float32)
        else:
            acc = tl.maximum(acc, tl.load(x + i, mask=i < n, other=float("-inf")).to(tl.float32))
    if OP == 0:
        r = tl.sum(acc, axis=0)
    else:
        r = tl.max(acc, axis=0)
    return r


@triton.jit
def reduce_kernel(state, x, out, n, BLOCK: tl.constexpr, OP: tl.constexpr):
    """OP 0: out[0] = sum(x); 1: out[0] = max(x); 2: out = x / sum(x), in one launch."""
    env = wt.discover(state)
    if wt.participating(env) == 0:
        return
    pid = wt.group_id(env).to(tl.int32)
    npid = wt.num_groups(env).to(tl.int32)
    part = _partial(x, n, pid, npid, BLOCK, 1 if OP == 1 else 0)
    if OP == 1:
        env, r = wt.grid_reduce(env, part, wt.MAX)
    else:
        env, r = wt.grid_reduce(env, part, wt.SUM)
    if OP == 2:
        inv = 1.0 / r
        for b in range(pid * BLOCK, n, npid * BLOCK):
            i = b + tl.arange(0, BLOCK)
            v = tl.load(x + i, mask=i < n, other=0.0).to(tl.float32) * inv
            tl.store(out + i, v.to(out.dtype.element_ty), mask=i < n)
    elif pid == 0:
        tl.store(out, r.to(out.dtype.element_ty))


def graph_us(fn, calls=10, replays=20):
    """GPU time per call of fn, captured calls times in one CUDA graph, median of replays."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(calls):
            fn()
    ts = []
    for _ in range(replays):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b) * 1e3 / calls)
    return statistics.median(ts), min(ts), max(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="32768,131072,1048576,8388608")
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--json")
    a = ap.parse_args()
    import torch._inductor.config as icfg
    dt = getattr(torch, a.dtype)
    dev = torch.device("cuda")
    grid = wt.Grid()
    # Few programs, each streaming 16 KiB a step: at most 2 an SM (the barrier and discovery cost
    # least at few programs, and 2 x 8 warps an SM keep enough loads in flight)
    block, warps = 4096, 8
    sms = torch.cuda.get_device_properties(dev).multi_processor_count
    # (each form its own code object: dynamo keeps one compiled graph per code object and shape)
    exprs = {"x.sum()": (lambda x: x.sum(), lambda x: x.sum(), 0),
             "x.amax()": (lambda x: x.amax(), lambda x: x.amax(), 1),
             "x / x.sum()": (lambda x: x / x.sum(), lambda x: x / x.sum(), 2)}
    rows = []
    print("device: %s, Triton %s, PyTorch %s, %s; us per call (CUDA graph), median [min-max]"
          % (torch.cuda.get_device_name(dev), triton.__version__, torch.__version__, a.dtype))
    print("%-12s %9s %22s %22s %22s %7s" % ("expr", "N", "inductor default", "inductor cooperative",
                                            "wgsync.triton", "vs best"))
    for n in (int(v) for v in a.sizes.split(",")):
        x = torch.rand(n, device=dev).to(dt)  # positive: no cancellation in the sums
        for name, (f_default, f_coop, op) in exprs.items():
            ref = f_default(x.float())
            default = torch.compile(f_default, dynamic=False)
            default(x)
            with icfg.patch({"triton.cooperative_reductions": True}):
                coop = torch.compile(f_coop, dynamic=False)
                coop(x)
            out = torch.empty(n if op == 2 else 1, device=dev, dtype=dt)
            programs = min(2 * sms, triton.cdiv(n, block))

            def ours():
                grid.launch(reduce_kernel, x, out, n, BLOCK=block, OP=op, num_warps=warps,
                            programs=programs)

            ours()
            parts = grid.result().participants
            got = out if op == 2 else out[0]
            tol = 1e-4 if dt == torch.float32 else 1e-2
            ok = torch.allclose(got.float(), ref.float(), rtol=tol, atol=0)
            t = {"default": graph_us(lambda: default(x))}
            with icfg.patch({"triton.cooperative_reductions": True}):
                t["cooperative"] = graph_us(lambda: coop(x))
            t["wgsync"] = graph_us(ours)
            best = min(t["default"][0], t["cooperative"][0])
            cell = lambda v: "%7.2f [%.2f-%.2f]" % v
            print("%-12s %9d %22s %22s %22s %6.2fx%s" % (name, n, cell(t["default"]), cell(t["cooperative"]),
                                                        cell(t["wgsync"]), t["wgsync"][0] / best,
                                                        "" if ok else "  WRONG RESULT"), flush=True)
            rows.append({"expr": name, "n": n, "dtype": a.dtype, "programs": programs,
                         "participants": parts, "correct": bool(ok),
                         **{k: [round(v, 3) for v in vals] for k, vals in t.items()}})
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
