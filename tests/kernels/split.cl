/*
 * Split grid barrier tests.
 * mixed: full and split grid barriers interleaved (every third round a full one). Before round
 * r's barrier every group adds 1 to cnt; after it, a group must see at least n*(r+1) (all of
 * round r arrived) and at most n*(r+2)-1 (nobody is past round r+1's barrier, and this group
 * has not added for r+1 yet). bad[0] counts violations; bad[1..3] describe the first.
 */
__kernel void mixed(__global uint *wgs, __global volatile uint *cnt, __global volatile uint *bad,
                    uint rounds)
{
  wgs_env e;
  if (wgs_discover(wgs, &e)) {
    uint n = wgs_get_num_groups(&e);
    for (uint r = 0u; r < rounds; ++r) {
      if (e.local_id == 0u)
        atomic_inc(cnt);
      if (r % 3u == 0u) {
        wgs_grid_barrier(&e);
      } else {
        wgs_grid_arrive(&e);
        wgs_grid_wait(&e);
      }
      if (e.local_id == 0u) {
        uint seen = atomic_add(cnt, 0u);
        if ((seen < n * (r + 1u) || seen > n * (r + 2u) - 1u) && atomic_inc(&bad[0]) == 0u) {
          bad[1] = r;
          bad[2] = seen;
          bad[3] = wgs_get_group_id(&e);
        }
      }
    }
  }
}

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
