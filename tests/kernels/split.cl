/*
 * Split grid barrier misuse (checked builds report it), and split grid reductions as a kernel's
 * first step. The counting litmus with full and split barriers mixed is portable_mixed in
 * portable.h (one kernel for both backends).
 */
__kernel void wait_first(__global uint *wgs)
{
  wgs_env e;
  if (wgs_discover(wgs, &e))
    wgs_grid_wait(&e);
}

__kernel void arrive_twice(__global uint *wgs)
{
  wgs_env e;
  if (wgs_discover(wgs, &e)) {
    wgs_grid_arrive(&e);
    wgs_grid_arrive(&e);
    wgs_grid_wait(&e);
  }
}

/* A split grid reduction whose wait names another type than its arrive (a u32 sum, then an f32
 * sum): split misuse at the wait's line, not an entry count. */
__kernel void wait_other_kind(__global uint *wgs, __global uint *out)
{
  wgs_env e;
  if (wgs_discover(wgs, &e)) {
    wgs_grid_arrive_reduce_u32(&e, WGS_SUM, 1u);
    out[0] = (uint)wgs_grid_wait_reduce_f32(&e, WGS_SUM);
  }
}

/* Split grid reductions right after wgs_discover, each kind once: out[0] counts wrong answers,
 * out[1] the work-items that finished. PoCL 3.1's loopvec method skipped the arrive's step here
 * (no group arrived: a timeout, or a hang unchecked) until it became a call (wgs_core.h). */
__kernel void first_split_reduce(__global uint *wgs, __global uint *out)
{
  wgs_env e;
  if (wgs_discover(wgs, &e)) {
    uint gsize = (uint)wgs_get_global_size(&e), gid = (uint)wgs_get_global_id(&e);
    wgs_grid_arrive_reduce_u32(&e, WGS_SUM, 1u);
    uint a = wgs_grid_wait_reduce_u32(&e, WGS_SUM);
    wgs_grid_arrive_reduce_u32(&e, WGS_MAX, gid);
    uint b = wgs_grid_wait_reduce_u32(&e, WGS_MAX);
    wgs_grid_arrive_reduce_f32(&e, WGS_SUM, 1.0f);
    float c = wgs_grid_wait_reduce_f32(&e, WGS_SUM);
    wgs_grid_arrive_reduce_f32(&e, WGS_MIN, -(float)gid);
    float d = wgs_grid_wait_reduce_f32(&e, WGS_MIN);
    if (a != gsize || b != gsize - 1u || c != (float)gsize || d != -(float)(gsize - 1u))
      atomic_inc(&out[0]);
    atomic_inc(&out[1]);
  }
}
