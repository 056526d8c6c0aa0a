"""wgsync.triton on a CUDA GPU (exit 77 where there is none, or no Triton or PyTorch): discovery's
recall for num_warps 1, 4, 8 and a kernel with large shared memory, 10^6+ barrier crossings with
a message-passing check, the reductions against the host's answer, a checked kernel launched
4x over occupancy reporting instead of hanging, CUDA graph capture and replay, two streams.
  python3 python/tests/test_triton.py        (WGSYNC_LIBRARY_DIR: where libwgsync_cuda.so is)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
try:
    import torch
    import triton
    import triton.language as tl
except ImportError as e:
    print("skipped: %s" % e)
    sys.exit(77)
if not torch.cuda.is_available():
    print("skipped: no CUDA device")
    sys.exit(77)

import wgsync
import wgsync.triton as wt

failures = []


def check(ok, what):
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    if not ok:
        failures.append(what)


@triton.jit
def discover_only(state, out, a, K: tl.constexpr):
    """Discovery, then (K > 0) a pipelined matrix product, whose tiles in shared memory limit
    how many programs fit at once."""
    env = wt.discover(state)
    if wt.participating(env) != 0:
        total = 0.0
        if K > 0:
            rows = tl.arange(0, 128)
            cols = tl.arange(0, 128)
            acc = tl.zeros([128, 128], tl.float32)
            for k in range(0, K, 128):
                x = tl.load(a + rows[:, None] * K + k + cols[None, :])
                y = tl.load(a + (k + cols)[:, None] * 128 + rows[None, :])
                acc += tl.dot(x, y)
            total = tl.sum(tl.sum(acc, axis=1), axis=0)
        if wt.group_id(env) == 0:
            tl.store(out, wt.num_groups(env) + (total != total).to(tl.int32))


@triton.jit
def message_passing(state, data, stale, rounds, CHECKED: tl.constexpr):
    """Each round every program writes its word, passes a barrier, and reads its neighbour's,
    which must be this round's (a stale read is a barrier that let a program through early or
    did not carry the write: a missing release or acquire)."""
    env = wt.discover(state, CHECKED)
    if wt.participating(env) == 0:
        return
    gid = wt.group_id(env)
    n = wt.num_groups(env)
    bad = tl.full((), 0, tl.int32)
    for r in range(rounds):
        tl.store(data + gid, (r * n + gid).to(tl.uint32))
        env = wt.grid_barrier(env, CHECKED)
        nb = (gid + 1) % n
        v = tl.load(data + nb)  # a plain load, cached in L1: stale there without the acquire
        bad += (v != (r * n + nb).to(tl.uint32)).to(tl.int32)
        env = wt.grid_barrier(env, CHECKED)  # nobody overwrites before every read is done
    tl.atomic_add(stale, bad)


@triton.jit
def reductions(state, out, ITERS: tl.constexpr):
    """Every reduction kind and type, also split, and the OR; every program stores its answers
    in its own row, so the host checks each program got the same bits."""
    env = wt.discover(state)
    if wt.participating(env) == 0:
        return
    gid = wt.group_id(env)
    row = out + gid * 8
    for it in range(ITERS):
        f = (gid.to(tl.float32) - 7.25) * (1.0 + it)
        env, fs = wt.grid_reduce(env, f, wt.SUM)
        env, fmn = wt.grid_reduce(env, f, wt.MIN)
        env, fmx = wt.grid_reduce(env, f, wt.MAX)
        i = gid.to(tl.int32) - 5 - it
        env, imn = wt.grid_reduce(env, i, wt.MIN)
        env = wt.grid_arrive_reduce(env, i, wt.MAX)
        env, imx = wt.grid_wait_reduce(env, wt.MAX, tl.int32)
        env, us = wt.grid_reduce(env, gid * 3 + it, wt.SUM)
        env, any1 = wt.grid_barrier_or(env, gid == 3 + it)
        env, any0 = wt.grid_barrier_or(env, tl.zeros([16], tl.int32) + (gid > 1 << 30))
        tl.store(row + 0, fs.to(tl.uint32, bitcast=True))
        tl.store(row + 1, fmn.to(tl.uint32, bitcast=True))
        tl.store(row + 2, fmx.to(tl.uint32, bitcast=True))
        tl.store(row + 3, imn.to(tl.uint32, bitcast=True))
        tl.store(row + 4, imx.to(tl.uint32, bitcast=True))
        tl.store(row + 5, us)
        tl.store(row + 6, any1.to(tl.uint32) * 2 + any0.to(tl.uint32))


@triton.jit
def bump(state, counter, ROUNDS: tl.constexpr):
    """ROUNDS barriers, program 0 adds 1 between them; after each barrier every program checks
    the count it sees (a graph replay runs this again on the state the last run left)."""
    env = wt.discover(state)
    if wt.participating(env) == 0:
        return
    for r in range(ROUNDS):
        if wt.group_id(env) == 0:
            tl.store(counter, tl.load(counter) + 1)
        env = wt.grid_barrier(env)
        v = tl.load(counter)
        env = wt.grid_barrier(env)
        tl.atomic_add(counter + 1, (v != tl.load(counter + 2) + r + 1).to(tl.int32))
    env = wt.grid_barrier(env)
    if wt.group_id(env) == 0:
        tl.store(counter + 2, tl.load(counter + 2) + ROUNDS)


# The README's example, verbatim (its "Triton" section), with a store of its total added below.
@triton.jit
def jacobi(state, x, y, n, out, STEPS: tl.constexpr, BLOCK: tl.constexpr):
    env = wt.discover(state)                 # first, in every program
    if wt.participating(env) == 0:
        return                               # not running at once with the others: leave
    pid, npid = wt.group_id(env), wt.num_groups(env)
    for step in range(STEPS):
        for b in range(pid * BLOCK, n, npid * BLOCK):
            i = b + tl.arange(0, BLOCK)
            ok = (i > 0) & (i < n - 1)
            v = (tl.load(x + i - 1, mask=ok) + tl.load(x + i + 1, mask=ok)) * 0.5
            tl.store(y + i, v, mask=ok)
        env = wt.grid_barrier(env)           # every program's stores visible to every program
        x, y = y, x
    part = 0.0
    for b in range(pid * BLOCK, n, npid * BLOCK):
        i = b + tl.arange(0, BLOCK)
        part += tl.sum(tl.load(x + i, mask=i < n, other=0.0), axis=0)
    env, total = wt.grid_reduce(env, part, wt.SUM)   # the same bits in every program
    if pid == 0:
        tl.store(out, total)


def main():
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(dev)
    print("device: %s (%d SMs), Triton %s, PyTorch %s" % (props.name, props.multi_processor_count,
                                                         triton.__version__, torch.__version__))
    grid = wt.Grid()
    out = torch.zeros(1 + 8192, dtype=torch.int32, device=dev)

    # recall: participants against what the occupancy API says runs at once, for each shape
    a = torch.ones(128 * 512, dtype=torch.float16, device=dev)
    for warps, k, stages in ((1, 0, 1), (4, 0, 1), (8, 0, 1), (4, 512, 3)):
        got = []
        for _ in range(5):
            launched = grid.launch(discover_only, out, a, K=k, num_warps=warps, num_stages=stages)
            r = grid.result()
            got.append(r.participants)
        shared = discover_only.warmup(grid, out, a, K=k, num_warps=warps, num_stages=stages,
                                      grid=(1,)).metadata.shared
        check(all(p == r.expected for p in got) and r.expected > 0 and out[0].item() == got[-1]
              and (k == 0 or shared > 48 * 1024),
              "recall num_warps=%d shared %d B: %s of %d expected (%d launched)"
              % (warps, shared, got, r.expected, launched))

    # message passing: 10^6+ crossings, none stale (checked and unchecked kernels)
    data = torch.zeros(grid.max_programs, dtype=torch.int32, device=dev)
    stale = torch.zeros(1, dtype=torch.int32, device=dev)
    for checked, warps in ((False, 4), (True, 4), (False, 1)):
        stale.zero_()
        rounds = 1000
        grid.launch(message_passing, data, stale, rounds, CHECKED=checked, num_warps=warps)
        n = grid.result().participants
        crossings = 2 * rounds * n
        check(stale.item() == 0 and crossings >= 10**6,
              "message passing (checked=%s, num_warps=%d): %d programs, %d crossings, %d stale"
              % (checked, warps, n, crossings, stale.item()))

    # reductions: every program's answer equals the host's, bit for bit the same in every program
    res = torch.zeros(grid.max_programs * 8, dtype=torch.int32, device=dev)
    for warps in (4, 8):
        res.zero_()
        iters = 3
        grid.launch(reductions, res, ITERS=iters, num_warps=warps)
        n = grid.result().participants
        rows = res.view(-1, 8)[:n].cpu()
        same = bool((rows == rows[0]).all())
        it = iters - 1
        g = torch.arange(n, dtype=torch.float32)
        f = (g - 7.25) * (1.0 + it)
        ints = torch.arange(n, dtype=torch.int64) - 5 - it
        want_us = int(sum(3 * k + it for k in range(n)) & 0xffffffff)
        r0 = [int(x) & 0xffffffff for x in rows[0].tolist()]
        as_f = lambda u: torch.tensor([u], dtype=torch.int64).to(torch.int32).view(torch.float32).item()
        as_i = lambda u: u - (1 << 32) if u >= 1 << 31 else u
        ok = (same and abs(as_f(r0[0]) - float(f.double().sum())) <= 1e-3 * max(1.0, abs(float(f.sum())))
              and as_f(r0[1]) == float(f.min()) and as_f(r0[2]) == float(f.max())
              and as_i(r0[3]) == int(ints.min()) and as_i(r0[4]) == int(ints.max())
              and r0[5] == want_us and r0[6] == (2 if n > 3 + it else 0))
        check(ok, "reductions (num_warps=%d, %d programs): same bits in every program: %s; "
                  "fsum %.3f min %.2f max %.2f imin %d imax %d usum %d or %d"
              % (warps, n, same, as_f(r0[0]), as_f(r0[1]), as_f(r0[2]), as_i(r0[3]), as_i(r0[4]),
                 r0[5], r0[6]))

    # a checked kernel launched 4x over what runs at once, every program taking part: a report
    # naming the programs that never arrived, not a hang
    grid.launch(message_passing, data, stale, 2, CHECKED=True, num_warps=4)
    occ = grid.result().expected
    over = wt.Grid(max_programs=4 * occ)
    big = torch.zeros(4 * occ, dtype=torch.int32, device=dev)
    try:
        over.launch(message_passing, big, stale, 2, CHECKED=True, num_warps=4, programs=4 * occ,
                    discovery="all", timeout_ms=200)
        over.result()
        check(False, "checked kernel 4x over occupancy: no error reported")
    except wgsync.WgsyncError as e:
        check(e.name == "WGS_EDEADLOCK" and e.result.err_missing_count > 0,
              "checked kernel 4x over occupancy (%d programs): %s: %s"
              % (4 * occ, e.name, str(e)[:300]))
    # and the Grid works after it
    stale.zero_()
    over.launch(message_passing, big, stale, 50, CHECKED=False, num_warps=4)
    check(over.result().participants > 0 and stale.item() == 0, "a launch after the deadlock report")

    # CUDA graph: capture two launches, replay; the state needs nothing between replays
    counter = torch.zeros(3, dtype=torch.int32, device=dev)
    g2 = wt.Grid()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        g2.launch(bump, counter, ROUNDS=5)  # compile and load outside the capture
        g2.result()
        counter.zero_()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=s):
            g2.launch(bump, counter, ROUNDS=5)
            g2.launch(bump, counter, ROUNDS=5)
    counter.zero_()
    for _ in range(20):
        graph.replay()
    torch.cuda.synchronize()
    c = counter.tolist()
    check(c == [200, 0, 200], "graph replay x20 (2 launches, 5 rounds each): counter %s (want "
                              "[200, 0, 200])" % c)

    # two streams, a Grid each, at once: each finds the programs that run beside the other
    ga, gb = wt.Grid(), wt.Grid()
    sa, sb = torch.cuda.Stream(), torch.cuda.Stream()
    da = torch.zeros(grid.max_programs, dtype=torch.int32, device=dev)
    db = torch.zeros(grid.max_programs, dtype=torch.int32, device=dev)
    st = torch.zeros(2, dtype=torch.int32, device=dev)
    with torch.cuda.stream(sa):
        ga.launch(message_passing, da, st[0:1], 2000, CHECKED=False)
    with torch.cuda.stream(sb):
        gb.launch(message_passing, db, st[1:2], 2000, CHECKED=False)
    with torch.cuda.stream(sa):
        na = ga.result().participants
    with torch.cuda.stream(sb):
        nb = gb.result().participants
    check(st.tolist() == [0, 0] and na > 0 and nb > 0,
          "two streams: %d and %d programs, stale %s" % (na, nb, st.tolist()))

    # the README's example against the same steps in PyTorch
    n = 1 << 20
    x0 = torch.rand(n, device=dev)
    x, y = x0.clone(), x0.clone()
    tot = torch.zeros(1, device=dev)
    grid.launch(jacobi, x, y, n, tot, STEPS=100, BLOCK=1024, num_warps=4)
    parts = grid.result().participants
    ref, tmp = x0.clone(), x0.clone()
    for _ in range(100):
        tmp[1:-1] = (ref[:-2] + ref[2:]) * 0.5
        ref, tmp = tmp, ref
    check(torch.allclose(x, ref) and abs(tot.item() - ref.sum().item()) < 1e-3 * n,
          "the README's Jacobi (%d programs): max error %.2e, total %.3f against %.3f"
          % (parts, (x - ref).abs().max().item(), tot.item(), ref.sum().item()))

    if failures:
        print("FAILED: %d: %s" % (len(failures), "; ".join(failures)))
        return 1
    print("triton: all passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
