/*
 * The four properties of Sorensen et al. 2016 §3.2, observed from inside a kernel:
 *   rec[0] / rec[1]: min / max participating count any work-item saw   (consistent count)
 *   rec[2]: participating groups that recorded themselves                (at least one)
 *   rec[3]: participating groups that passed a grid barrier              (simultaneous occupancy)
 *   ids[p]: native group id of participating id p                        (contiguous, unique)
 *   marks[i]: how many work-items got participating global id i         (contiguous, unique)
 */
__kernel void props(__global uint *wgs, __global uint *rec, __global uint *ids,
                    __global uint *marks, uint do_barrier)
{
  wgs_env e;
  if (wgs_discover(wgs, &e)) {
    uint n = wgs_get_num_groups(&e);
    atomic_min(&rec[0], n);
    atomic_max(&rec[1], n);
    atomic_inc(&marks[wgs_get_global_id(&e)]);
    if (wgs_get_global_size(&e) != (size_t)n * get_local_size(0))
      atomic_inc(&rec[4]);
    if (e.local_id == 0u) {
      ids[wgs_get_group_id(&e)] = (uint)get_group_id(0);
      atomic_inc(&rec[2]);
    }
    if (do_barrier) {
      wgs_grid_barrier(&e);
      if (e.local_id == 0u)
        atomic_inc(&rec[3]);
    }
  }
}
