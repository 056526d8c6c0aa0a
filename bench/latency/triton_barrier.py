"""The grid barrier inside a Triton kernel: wgsync.triton's (its default counter shapes, and the
published shape) beside PyTorch Inductor's x_grid_barrier (its cooperative reductions' barrier,
under a cooperative launch as Inductor launches it), at P programs of num_warps warps. One kernel
runs ROUNDS barriers; the cost of one is the difference of two round counts over their
difference (launch and discovery cancel), GPU time from CUDA events, median and spread over
repeats, interleaved in one process. Then the launch: discovery and one barrier (wgsync, the
programs it plans) beside a cooperative launch with one x_grid_barrier at the same count, back
to back, per launch.
  python3 bench/latency/triton_barrier.py [--programs 132,528,1056,2112] [--warps 4] [--repeats 15]
Prints one table; --json FILE writes the rows.
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import torch
import triton

import wgsync.triton as wt
from triton_rounds import inductor_rounds, wgsync_rounds


def gpu_us(fn):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    fn()
    b.record()
    b.synchronize()
    return a.elapsed_time(b) * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--programs", default="132,528,1056,2112")
    ap.add_argument("--warps", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--rounds", default="200,1200")
    ap.add_argument("--json")
    a = ap.parse_args()
    lo, hi = (int(x) for x in a.rounds.split(","))
    dev = torch.device("cuda")
    name = torch.cuda.get_device_name(dev)
    grid = wt.Grid()
    out = torch.zeros(4, dtype=torch.int32, device=dev)
    sem = torch.zeros(1, dtype=torch.uint32, device=dev)
    rows = []
    print("device: %s, Triton %s, PyTorch %s, num_warps %d, rounds %d vs %d, %d repeats"
          % (name, triton.__version__, torch.__version__, a.warps, lo, hi, a.repeats))
    print("us per barrier, median [min-max]; ratio: wgsync counter / x_grid_barrier")
    print("%8s %22s %22s %22s %6s" % ("programs", "wgsync counter", "wgsync published",
                                      "x_grid_barrier", "ratio"))
    cell = lambda v: "%7.3f [%.3f-%.3f]" % (statistics.median(v), min(v), max(v))
    for p in (int(x) for x in a.programs.split(",")):
        def wg(r, shape):
            grid.launch(wgsync_rounds, out, r, programs=p, num_warps=a.warps, barrier=shape)

        def ind(r):
            inductor_rounds[(p,)](sem, out, r, num_warps=a.warps, launch_cooperative_grid=True)

        fs = {"counter": lambda r: wg(r, "counter"), "published": lambda r: wg(r, "published"),
              "inductor": ind}
        for f in fs.values():  # compile, load, warm
            f(lo)
            f(hi)
        torch.cuda.synchronize()
        t, parts = {k: [] for k in fs}, set()
        for _ in range(a.repeats):
            for k, f in fs.items():
                t[k].append((gpu_us(lambda: f(hi)) - gpu_us(lambda: f(lo))) / (hi - lo))
                if k != "inductor":
                    parts.add(grid.result().participants)
        row = {"device": name, "programs": p, "num_warps": a.warps, "participants": sorted(parts)}
        for k, v in t.items():
            row[k] = {"median": statistics.median(v), "min": min(v), "max": max(v)}
        rows.append(row)
        if a.json:
            with open(a.json, "w") as f:
                json.dump(rows, f, indent=1)
        print("%8d %22s %22s %22s %6.2f%s"
              % (p, cell(t["counter"]), cell(t["published"]), cell(t["inductor"]),
                 statistics.median(t["counter"]) / statistics.median(t["inductor"]),
                 "" if parts == {p} else "  (participants %s)" % sorted(parts)))

    # the launch: back to back, GPU time per launch (the host's time per call beside it)
    import time
    n_launch = 200
    print("launch, back to back (%d launches), us per launch: GPU time [host time per call]" % n_launch)
    full = grid.launch(wgsync_rounds, out, 1, num_warps=a.warps)
    occ = grid.result().expected
    launches = {"wgsync discovery + 1 barrier (%d launched)" % full:
                lambda: grid.launch(wgsync_rounds, out, 1, num_warps=a.warps),
                "cooperative + 1 x_grid_barrier (%d)" % occ:
                lambda: inductor_rounds[(occ,)](sem, out, 1, num_warps=a.warps, launch_cooperative_grid=True)}
    lt = {k: [] for k in launches}
    for _ in range(a.repeats):
        for k, f in launches.items():
            torch.cuda.synchronize()
            h0 = time.perf_counter()
            g = gpu_us(lambda: [f() for _ in range(n_launch)])
            lt[k].append((g / n_launch, (time.perf_counter() - h0) * 1e6 / n_launch))
    for k, v in lt.items():
        gs, hs = [x[0] for x in v], [x[1] for x in v]
        rows.append({"device": name, "launch": k, "gpu_us": statistics.median(gs), "gpu_min": min(gs),
                     "gpu_max": max(gs), "host_us": statistics.median(hs)})
        print("  %-48s %s [%.1f]" % (k, cell(gs), statistics.median(hs)))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
