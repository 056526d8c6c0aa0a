"""A grid-synchronised Triton kernel launched while another kernel holds part of the GPU: wgsync's
discovery runs with the programs that fit beside it, while a cooperative launch (Inductor's
x_grid_barrier kernel, sized for the whole GPU) waits until the other kernel ends. The other
kernel spins until the host releases it (a copy to its flag, which needs no SM) after HOLD ms.
  python3 bench/launch/triton_beside.py [--hold-ms 200] [--barriers 1000]
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import torch
import triton
import triton.language as tl

import wgsync.triton as wt
from triton_rounds import inductor_rounds, wgsync_rounds


@triton.jit
def hog(flag):
    while tl.load(flag, volatile=True) == 0:
        pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hold-ms", type=float, default=200)
    ap.add_argument("--barriers", type=int, default=1000)
    a = ap.parse_args()
    dev = torch.device("cuda")
    sms = torch.cuda.get_device_properties(dev).multi_processor_count
    flag = torch.zeros(1, dtype=torch.int32, device=dev)
    one = torch.ones(1, dtype=torch.int32).pin_memory()
    out = torch.zeros(1, dtype=torch.int32, device=dev)
    sem = torch.zeros(1, dtype=torch.uint32, device=dev)
    grid = wt.Grid()
    s_hog, s_run, s_copy = torch.cuda.Stream(), torch.cuda.Stream(), torch.cuda.Stream()
    with torch.cuda.stream(s_run):  # compile, load and size both alone first
        full = grid.launch(wgsync_rounds, out, a.barriers, num_warps=4)
        alone = grid.result().participants
        inductor_rounds[(alone,)](sem, out, a.barriers, num_warps=4, launch_cooperative_grid=True)
    torch.cuda.synchronize()
    flag.zero_()
    torch.cuda.synchronize()
    with torch.cuda.stream(s_hog):  # compile and load it too, then release it (a copy: no SM)
        hog[(sms,)](flag, num_warps=16)
    with torch.cuda.stream(s_copy):
        flag.copy_(one, non_blocking=True)
    torch.cuda.synchronize()
    print("device: %s; alone, discovery finds %d programs (%d launched)"
          % (torch.cuda.get_device_name(dev), alone, full))

    for who in ("wgsync.triton", "cooperative x_grid_barrier"):
        flag.zero_()
        torch.cuda.synchronize()
        with torch.cuda.stream(s_hog):  # 512 threads a program, 2 per SM: half the GPU's threads
            hog[(2 * sms,)](flag, num_warps=16)
        time.sleep(0.02)
        t0 = time.perf_counter()
        with torch.cuda.stream(s_run):
            if who == "wgsync.triton":
                grid.launch(wgsync_rounds, out, a.barriers, num_warps=4)
            else:
                inductor_rounds[(alone,)](sem, out, a.barriers, num_warps=4, launch_cooperative_grid=True)
            done = torch.cuda.Event()
            done.record()
        while not done.query() and (time.perf_counter() - t0) * 1e3 < a.hold_ms:
            time.sleep(0.0002)
        finished = done.query()
        t_done = (time.perf_counter() - t0) * 1e3
        with torch.cuda.stream(s_copy):
            flag.copy_(one, non_blocking=True)  # the other kernel ends
        done.synchronize()
        t_all = (time.perf_counter() - t0) * 1e3
        torch.cuda.synchronize()
        n = out.item()
        print("%-28s %s; %d programs took part; %d barriers"
              % (who, ("done in %.2f ms while the other kernel held the GPU" % t_done) if finished else
                 ("still waiting after %.0f ms; done %.2f ms after the start, once the other kernel "
                  "was released" % (a.hold_ms, t_all)), n, a.barriers))


if __name__ == "__main__":
    main()
