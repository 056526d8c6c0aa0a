/*
 * Grid-level misuse a checked build must report (WGS_EMISUSE) and an unchecked build must
 * survive without wrong results. out[0] counts work-items that ran the body, out[1] stale reads.
 */

/* wgs_discover twice: a checked build reports the second call's line, and the second call
 * answers as the first (the body runs in every participating group). */
__kernel void twice(__global uint *wgs, __global uint *out)
{
  wgs_env e;
  wgs_discover(wgs, &e);
  if (wgs_discover(wgs, &e)) /* line 12 */
    atomic_inc(&out[0]);
}

/* The grid barrier outside `if (wgs_discover(...))`: groups turned away call it too. Their
 * calls must not count as arrivals (that would let participants through early: stale reads). */
__kernel void outside(__global uint *wgs, __global uint *data, uint rounds, __global uint *out)
{
  wgs_env e;
  uint p = (uint)wgs_discover(wgs, &e);
  uint n = wgs_get_num_groups(&e), gid = (uint)wgs_get_global_id(&e);
  uint gsize = (uint)wgs_get_global_size(&e);
  for (uint r = 0u; r < rounds; ++r) {
    __global uint *buf = data + (r & 1u) * gsize;
    if (p)
      buf[gid] = r * 7919u + gid;
    wgs_grid_barrier(&e); /* line 28 */
    if (p && n > 1u) {
      uint src = (gid + (r % (n - 1u) + 1u) * e.local_size) % gsize;
      if (buf[src] != r * 7919u + src)
        atomic_inc(&out[1]);
    }
  }
  if (p && e.local_id == 0u)
    atomic_inc(&out[0]);
}

/* The grid barrier reached by half of each group's work-items. */
__kernel void partial(__global uint *wgs, __global uint *out)
{
  wgs_env e;
  if (wgs_discover(wgs, &e)) {
    if (e.local_id < e.local_size / 2u)
      wgs_grid_barrier(&e); /* line 45 */
    atomic_inc(&out[0]);
  }
}
