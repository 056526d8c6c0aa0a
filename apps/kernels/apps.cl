/*
 * The graph applications in OpenCL C, in the two forms of Sorensen et al. 2016 §5.2:
 *  - multi-kernel (*_k): one launch per step over the native ids; the host loop reads the stop
 *    flag back after each step (the Pannotia / Lonestar host loop);
 *  - persistent (*_persistent): one launch; discovery (§3), the participating-group environment
 *    (Table 2), grid-stride loops, the grid barrier (§4) between steps, the stop test on the
 *    device. Launched with WGS_DISCOVERY_FIXED it is §5.3's "specialised" variant.
 * The steps themselves are in app_steps.h, shared with CUDA.
 *
 * The stop test in the persistent form: wgs_grid_barrier_or passes each work-item's "changed"
 * and returns whether any work-item of any group changed something; every work-item gets the
 * same answer after the same barrier, so the loop exit is uniform and every work-item of every
 * participating group runs the same barriers (the OpenCL work_group_barrier reference). flags[3] returns the trip count.
 */

/* APP_LB=1 (a build option, app_balanced): every app takes the load-balanced steps. Chosen at
 * build time so that each kernel holds one step's code (registers). */
#ifndef APP_LB
#define APP_LB 0
#endif

#define APP_ID0 (get_global_id(0))
#define APP_STRIDE0 (get_global_size(0))

/* ---- multi-kernel form ------------------------------------------------------------------- */
__kernel void bfs_init_k(uint n, __global uint *level, uint src)
{
  bfs_init(APP_ID0, APP_STRIDE0, n, level, src);
}

__kernel void bfs_step_k(__global const uint *row, __global const uint *col, uint n,
                         __global uint *level, uint depth, __global uint *flag)
{
  app_flag(flag, APP_LB ? bfs_step_lb(APP_ID0, APP_STRIDE0, n, row, col, level, depth)
                    : bfs_step(APP_ID0, APP_STRIDE0, n, row, col, level, depth));
}

__kernel void sssp_init_k(uint n, __global uint *dist, __global uint *act0, __global uint *act1,
                          uint src)
{
  sssp_init(APP_ID0, APP_STRIDE0, n, dist, act0, act1, src);
}

__kernel void sssp_step_k(__global const uint *row, __global const uint *col,
                          __global const uint *w, uint n, __global uint *dist,
                          __global uint *cur, __global uint *next, __global uint *flag,
                          uint it)
{
  /* balanced: the stamps live in the first activity array whatever the step (cur on step 0) */
  app_flag(flag, APP_LB ? sssp_step_lb(APP_ID0, APP_STRIDE0, n, row, col, w, dist, (it & 1u) ? next : cur, it)
                    : sssp_step(APP_ID0, APP_STRIDE0, n, row, col, w, dist, cur, next));
}

__kernel void mis_init_k(uint n, __global uint *status)
{
  mis_init(APP_ID0, APP_STRIDE0, n, status);
}

/* With APP_LB the select is the balanced one's first phase (mis_mark_lb), mis_commit_k its second. */
__kernel void mis_select_k(__global const uint *row, __global const uint *col, uint n,
                           __global uint *status)
{
  if (APP_LB)
    mis_mark_lb(APP_ID0, APP_STRIDE0, n, row, col, status);
  else
    mis_select(APP_ID0, APP_STRIDE0, n, row, col, status);
}

/* With APP_LB the commit raises the flag that stops the loop (mis_exclude_lb cannot tell). */
__kernel void mis_commit_k(uint n, __global uint *status, __global uint *flag)
{
  app_flag(flag, mis_commit(APP_ID0, APP_STRIDE0, n, status));
}

/* With APP_LB the balanced exclude, its flag unused. */
__kernel void mis_exclude_k(__global const uint *row, __global const uint *col, uint n,
                            __global uint *status, __global uint *flag)
{
  if (APP_LB)
    mis_exclude_lb(APP_ID0, APP_STRIDE0, n, row, col, status);
  else
    app_flag(flag, mis_exclude(APP_ID0, APP_STRIDE0, n, row, col, status));
}

__kernel void color_init_k(uint n, __global uint *color)
{
  color_init(APP_ID0, APP_STRIDE0, n, color);
}

/* With APP_LB the step is the balanced one's first phase (color_mark_lb; step and flag unused),
 * and color_commit_k its second. */
__kernel void color_step_k(__global const uint *row, __global const uint *col, uint n,
                           __global uint *color, uint step, __global uint *flag)
{
  if (APP_LB)
    color_mark_lb(APP_ID0, APP_STRIDE0, n, row, col, color);
  else
    app_flag(flag, color_step(APP_ID0, APP_STRIDE0, n, row, col, color, step));
}

__kernel void color_commit_k(uint n, __global uint *color, uint step, __global uint *flag)
{
  app_flag(flag, color_commit(APP_ID0, APP_STRIDE0, n, color, step));
}

__kernel void bc_zero_k(uint n, __global float *bc)
{
  bc_zero(APP_ID0, APP_STRIDE0, n, bc);
}

__kernel void bc_init_k(uint n, __global uint *level, __global float *sigma,
                        __global float *delta, uint src)
{
  bc_init(APP_ID0, APP_STRIDE0, n, level, sigma, delta, src);
}

__kernel void bc_forward_k(__global const uint *row, __global const uint *col, uint n,
                           __global uint *level, __global float *sigma, uint d,
                           __global uint *flag)
{
  app_flag(flag, APP_LB ? bc_forward_lb(APP_ID0, APP_STRIDE0, n, row, col, level, sigma, d)
                    : bc_forward(APP_ID0, APP_STRIDE0, n, row, col, level, sigma, d));
}

__kernel void bc_backward_k(__global const uint *row, __global const uint *col, uint n,
                            __global const uint *level, __global const float *sigma,
                            __global float *delta, __global float *bc, uint d)
{
  if (APP_LB)
    bc_backward_lb(APP_ID0, APP_STRIDE0, n, row, col, level, sigma, delta, bc, d);
  else
    bc_backward(APP_ID0, APP_STRIDE0, n, row, col, level, sigma, delta, bc, d);
}

/* ---- persistent form --------------------------------------------------------------------- */

__kernel void bfs_persistent(__global uint *wgs, __global const uint *row,
                             __global const uint *col, uint n, __global uint *level, uint src,
                             __global uint *flags)
{
  wgs_env env;
  if (wgs_discover(wgs, &env)) {
    size_t i0 = wgs_get_global_id(&env), st = wgs_get_global_size(&env);
    bfs_init(i0, st, n, level, src);
    wgs_grid_barrier(&env);
    uint it = 0, go = 1;
    while (go) {
      go = wgs_grid_barrier_or(&env, APP_LB ? bfs_step_lb(i0, st, n, row, col, level, it)
                                           : bfs_step(i0, st, n, row, col, level, it));
      ++it;
    }
    if (i0 == 0)
      flags[3] = it;
  }
}

__kernel void sssp_persistent(__global uint *wgs, __global const uint *row,
                              __global const uint *col, __global const uint *w, uint n,
                              __global uint *dist, __global uint *act0, __global uint *act1,
                              uint src, __global uint *flags)
{
  wgs_env env;
  if (wgs_discover(wgs, &env)) {
    size_t i0 = wgs_get_global_id(&env), st = wgs_get_global_size(&env);
    sssp_init(i0, st, n, dist, act0, act1, src);
    wgs_grid_barrier(&env);
    uint it = 0, go = 1;
    while (go) {
      __global uint *cur = (it & 1u) ? act1 : act0, *next = (it & 1u) ? act0 : act1;
      go = wgs_grid_barrier_or(&env, APP_LB ? sssp_step_lb(i0, st, n, row, col, w, dist, act0, it)
                                           : sssp_step(i0, st, n, row, col, w, dist, cur, next));
      ++it;
    }
    if (i0 == 0)
      flags[3] = it;
  }
}

__kernel void mis_persistent(__global uint *wgs, __global const uint *row,
                             __global const uint *col, uint n, __global uint *status,
                             __global uint *flags)
{
  wgs_env env;
  if (wgs_discover(wgs, &env)) {
    size_t i0 = wgs_get_global_id(&env), st = wgs_get_global_size(&env);
    mis_init(i0, st, n, status);
    wgs_grid_barrier(&env);
    uint it = 0, go = 1;
    while (go) {
#if APP_LB /* balanced: mark, commit (its answer stops the loop), exclude (compile-time: barriers
            * stay unconditional) */
      mis_mark_lb(i0, st, n, row, col, status);
      wgs_grid_barrier(&env);
      uint changed = mis_commit(i0, st, n, status);
      wgs_grid_barrier(&env);
      mis_exclude_lb(i0, st, n, row, col, status);
      go = wgs_grid_barrier_or(&env, changed);
#else
      mis_select(i0, st, n, row, col, status);
      wgs_grid_barrier(&env);
      go = wgs_grid_barrier_or(&env, mis_exclude(i0, st, n, row, col, status));
#endif
      ++it;
    }
    if (i0 == 0)
      flags[3] = it;
  }
}

__kernel void color_persistent(__global uint *wgs, __global const uint *row,
                               __global const uint *col, uint n, __global uint *color,
                               __global uint *flags)
{
  wgs_env env;
  if (wgs_discover(wgs, &env)) {
    size_t i0 = wgs_get_global_id(&env), st = wgs_get_global_size(&env);
    color_init(i0, st, n, color);
    wgs_grid_barrier(&env);
    uint it = 0, go = 1;
    while (go) {
#if APP_LB /* balanced: mark, barrier, commit (a compile-time choice: barriers stay unconditional) */
      color_mark_lb(i0, st, n, row, col, color);
      wgs_grid_barrier(&env);
      uint changed = color_commit(i0, st, n, color, it);
#else
      uint changed = color_step(i0, st, n, row, col, color, it);
#endif
      go = wgs_grid_barrier_or(&env, changed);
      ++it;
    }
    if (i0 == 0)
      flags[3] = it;
  }
}

__kernel void bc_persistent(__global uint *wgs, __global const uint *row,
                            __global const uint *col, uint n, __global uint *level,
                            __global float *sigma, __global float *delta, __global float *bc,
                            __global const uint *sources, uint nsrc, __global uint *flags)
{
  wgs_env env;
  if (wgs_discover(wgs, &env)) {
    size_t i0 = wgs_get_global_id(&env), st = wgs_get_global_size(&env);
    bc_zero(i0, st, n, bc);
    uint it = 0;
    for (uint s = 0; s < nsrc; ++s) {
      bc_init(i0, st, n, level, sigma, delta, sources[s]);
      wgs_grid_barrier(&env);
      uint d = 0, go = 1;
      while (go) {
        go = wgs_grid_barrier_or(&env, APP_LB ? bc_forward_lb(i0, st, n, row, col, level, sigma, d)
                                              : bc_forward(i0, st, n, row, col, level, sigma, d));
        ++it;
        ++d;
      }
      /* d - 1 is the deepest level; its dependencies are 0. Levels d - 2 .. 1 pull theirs. */
      for (uint k = d - 1u; k > 1u; --k) {
        if (APP_LB)
          bc_backward_lb(i0, st, n, row, col, level, sigma, delta, bc, k - 1u);
        else
          bc_backward(i0, st, n, row, col, level, sigma, delta, bc, k - 1u);
        wgs_grid_barrier(&env);
      }
    }
    if (i0 == 0)
      flags[3] = it;
  }
}
