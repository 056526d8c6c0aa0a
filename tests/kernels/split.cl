/*
 * Split grid barrier misuse (checked builds report both). The counting litmus with full and
 * split barriers mixed is portable_mixed in portable.h (one kernel for both backends).
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
