"""The two kernels the Triton benchmarks time: ROUNDS grid barriers of wgsync.triton (after
discovery) and of PyTorch Inductor's x_grid_barrier (under a cooperative launch); program 0
stores how many programs took part."""
import triton
import triton.language as tl
from torch._inductor.runtime.triton_helpers import x_grid_barrier

import wgsync.triton as wt


@triton.jit
def wgsync_rounds(state, out, rounds):
    env = wt.discover(state)
    if wt.participating(env) == 0:
        return
    for r in range(rounds):
        env = wt.grid_barrier(env)
    if wt.group_id(env) == 0:
        tl.store(out, wt.num_groups(env))


@triton.jit
def inductor_rounds(sem, out, rounds):
    for r in range(rounds):
        x_grid_barrier(sem)
    if tl.program_id(0) == 0:
        tl.store(out, tl.num_programs(0))
