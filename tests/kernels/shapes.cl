/*
 * The kernel shapes users write from the README and the guide, exactly as written there: a
 * persistent loop whose body is a grid-stride loop followed by a grid barrier (plain, with an
 * OR, split), and a loop whose body is a local-id-0 step and a barrier. tests/test_shapes.c
 * builds each shape alone (-D SHAPE_<name>): the compiler's inlining, and so PoCL's parallel
 * regions, depend on what else the program holds, and a user's program holds one kernel.
 * The steps that read another group's word (i + SHIFT) make a barrier that fails to order them
 * show as a value below the trip count.
 */
#define SHIFT 37u
/* One step of the shapes that read another group's word: dst[i] <- src[i + SHIFT] + 1, over
 * the participating groups, a and b swapping roles each step. */
#define SHIFT_STEP(it)                                                                        \
  do {                                                                                        \
    __global uint *src = ((it) & 1u) ? b : a, *dst = ((it) & 1u) ? a : b;                   \
    for (size_t i = wgs_get_global_id(&env); i < n; i += wgs_get_global_size(&env))          \
      dst[i] = src[(i + SHIFT) % n] + 1u;                                                     \
  } while (0)

#if defined(SHAPE_readme)
/* The README's kernel as printed there: every word goes up by one per step. */
__kernel void readme(__global uint *wgs, __global float *x, uint n, uint iters)
{
  wgs_env env;
  if (wgs_discover(wgs, &env)) {
    for (uint it = 0; it < iters; ++it) {
      for (size_t i = wgs_get_global_id(&env); i < n; i += wgs_get_global_size(&env))
        x[i] = x[i] + 1.0f;
      wgs_grid_barrier(&env);
    }
  }
}
#endif

#if defined(SHAPE_stride)
/* The same loop with a step that reads another group's word: a[i] <- b[i + SHIFT] + 1,
 * ping-pong. */
__kernel void stride(__global uint *wgs, __global uint *a, __global uint *b, uint n, uint iters)
{
  wgs_env env;
  if (wgs_discover(wgs, &env)) {
    for (uint it = 0; it < iters; ++it) {
      SHIFT_STEP(it);
      wgs_grid_barrier(&env);
    }
  }
}
#endif

#if defined(SHAPE_counter)
/* Only local id 0 works: out[g] counts the group's steps, a constant trip count. */
__kernel void counter(__global uint *wgs, __global uint *out)
{
  wgs_env env;
  if (wgs_discover(wgs, &env)) {
    for (uint it = 0; it < 8u; ++it) {
      if (get_local_id(0) == 0)
        out[wgs_get_group_id(&env)] += 1u;
      wgs_grid_barrier(&env);
    }
  }
}
#endif

#if defined(SHAPE_counter_env)
/* The same with the trip count from an argument and the ids from the environment. */
__kernel void counter_env(__global uint *wgs, __global uint *out, uint iters)
{
  wgs_env env;
  if (wgs_discover(wgs, &env)) {
    for (uint it = 0; it < iters; ++it) {
      if (env.local_id == 0)
        out[env.group_id] += 1u;
      wgs_grid_barrier(&env);
    }
  }
}
#endif

#if defined(SHAPE_or_loop)
/* An iterative kernel that stops when nothing changed: only the last participating work-item
 * says "changed", for iters steps, so the OR must carry one work-item's value to every group. */
__kernel void or_loop(__global uint *wgs, __global uint *a, __global uint *b, uint n, uint iters)
{
  wgs_env env;
  if (wgs_discover(wgs, &env)) {
    uint it = 0, go = 1;
    size_t last = wgs_get_global_size(&env) - 1;
    while (go) {
      SHIFT_STEP(it);
      ++it;
      go = wgs_grid_barrier_or(&env, wgs_get_global_id(&env) == last && it < iters);
    }
  }
}
#endif

#if defined(SHAPE_split)
/* The split barrier: arrive, work that touches nothing shared, wait. */
__kernel void split(__global uint *wgs, __global uint *a, __global uint *b, uint n, uint iters,
                    __global uint *scratch)
{
  wgs_env env;
  if (wgs_discover(wgs, &env)) {
    uint mine = 0;
    for (uint it = 0; it < iters; ++it) {
      SHIFT_STEP(it);
      wgs_grid_arrive(&env);
      mine += it * (uint)get_local_id(0);
      wgs_grid_wait(&env);
    }
    scratch[get_global_id(0)] = mine;
  }
}
#endif

#if defined(SHAPE_or_wide)
/* The OR of values that are nonzero but not as 32-bit integers: 1 << 32 and 0.5. */
__kernel void or_wide(__global uint *wgs, __global uint *a, __global uint *b, uint n, uint iters)
{
  wgs_env env;
  if (wgs_discover(wgs, &env)) {
    uint it = 0, go = 1;
    size_t last = wgs_get_global_size(&env) - 1;
    while (go) {
      SHIFT_STEP(it);
      ++it;
      int mine = wgs_get_global_id(&env) == last && it < iters;
      if (it & 1u)
        go = wgs_grid_barrier_or(&env, mine ? (ulong)1 << 32 : (ulong)0);
      else
        go = wgs_grid_barrier_or(&env, mine ? 0.5f : 0.0f);
    }
  }
}
#endif
