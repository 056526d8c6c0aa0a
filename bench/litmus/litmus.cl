/*
 * Litmus at scale on OpenCL (the CUDA original and the definitions are in
 * bench/litmus/bench_litmus.cu): message passing (MP), store buffering (SB) and last-writer (LW)
 * checks across the grid barrier, with memory stress from the half of each group that does not
 * check. out holds three words per participating group: crossings checked, violations, and the
 * first violated round (0: none). split: 0 full barrier, 1 arrive/wait, 2 no barrier (a
 * control: its violations show that the checks can fail), 3 the barrier with an OR (a wrong
 * answer is a violation too; one work-item, a different one each round, raises it in 4 of 5).
 */
#define SHAPE_MP 0u
#define SHAPE_SB 1u
#define SHAPE_LW 2u

__kernel void litmus(__global uint *wgs, __global uint *data, __global uint *lw,
                     __global uint *scratch, uint scratch_mask, uint rounds, uint shape,
                     uint split, uint stress_iters, __global uint *out)
{
  wgs_env env;
  if (wgs_discover(wgs, &env)) {
    uint g = env.group_id, n = wgs_get_num_groups(&env), lid = env.local_id;
    uint nck = env.local_size / 2u;
    uint checker = lid < nck;
    uint slots = n * nck, me = g * nck + lid;
    uint checks = 0u, viol = 0u, first = 0xFFFFFFFFu, x = (me + 1u) * 2654435761u;
    /* Straight-line where it can be (counts of 0 instead of conditions): PoCL 3.1's
     * workitemrepl method crashed at run time on the nested-condition form of this kernel. */
    uint stress = checker ? 0u : stress_iters;
    for (uint r = 1u; r <= rounds; ++r) {
      __global uint *buf = data + (r & 1u) * slots; /* round r+2 rewrites it after barrier r+1 */
      if (checker && shape != SHAPE_LW)
        buf[me] = r;
      if (checker && shape == SHAPE_LW && lid == 0u)
        atomic_xchg(&lw[r & 1u], r * n + g); /* every group's store: one is the last */
      if (split == 1u)
        wgs_grid_arrive(&env);
      for (uint i = 0u; i < stress; ++i) { /* the non-checking half: memory stress */
        x = x * 1664525u + 1013904223u;
        atomic_add(&scratch[(x >> 7) & scratch_mask], 1u);
      }
      uint orbad = 0u;
      if (split == 1u) {
        wgs_grid_wait(&env);
      } else if (split == 0u) {
        wgs_grid_barrier(&env);
      } else if (split == 3u) { /* the barrier with an OR: its answer is checked too */
        uint raise = r % 5u != 0u, who = r * 2654435761u;
        uint any = wgs_grid_barrier_or(&env, raise && g == who % n && lid == (who >> 16) % env.local_size);
        orbad = any != raise;
      }
      /* split == 2: no barrier at all, the control that shows the checks can fail */
      uint p = shape == SHAPE_SB ? (g ^ 1u) : (n > 1u ? (g + 1u + r % (n - 1u)) % n : g);
      p = p < n ? p : (n > 1u ? (g + 1u) % n : g); /* SB, odd count: the last reads its successor */
      uint v = shape == SHAPE_LW ? ((volatile __global uint *)lw)[r & 1u] / n
                                 : buf[p * nck + (lid % nck)];
      uint bad = checker && (v != r || orbad);
      checks += checker;
      viol += bad;
      first = bad ? min(first, r) : first;
    }
    atomic_add(&out[3u * g], checks);
    atomic_add(&out[3u * g + 1u], viol);
    atomic_min(&out[3u * g + 2u], first);
  }
}
