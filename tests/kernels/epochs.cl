/* Launch epochs: many launches on one state with no reset between them. Each participant's
 * representative counts the barriers it passed into out[1]; participant 0 adds what they all
 * should have (num_groups x rounds) into out[2] and counts the launch in out[0]. A launch on a
 * half that was not cleared would hang or miscount (count, arrival and flag words left over). */
__kernel void epochs(__global uint *wgs, __global uint *out, uint rounds)
{
  wgs_env env;
  if (wgs_discover(wgs, &env)) {
    for (uint r = 0u; r < rounds; ++r) {
      wgs_grid_barrier(&env);
      if (env.local_id == 0u)
        atomic_add(&out[1], 1u);
    }
    if (env.local_id == 0u && env.group_id == 0u) {
      atomic_add(&out[0], 1u);
      atomic_add(&out[2], env.num_groups * rounds);
    }
  }
}

/* Takes the state and never calls wgs_discover: the launch epoch does not move. */
__kernel void no_discover(__global uint *wgs, __global uint *out, uint rounds)
{
  if (get_global_id(0) == 0u && rounds == 12345u)
    out[0] = wgs[0];
}
