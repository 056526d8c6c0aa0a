/*
 * The OpenCL layer's device glue (layer/): cl_intel_concurrent_dispatch's built-ins for kernels
 * the layer rewrote. It follows the device library, built with -D WGS_ND_RANGE=1 (the user's
 * own ND-range, ids linearised).
 *
 * A rewritten kernel takes a hidden last argument, `wgs__layer_state`, and starts with
 * WGS__LAYER_PROLOGUE. The state's config word WGS_CFG_DISPATCH says how the host dispatched it:
 *   default (0)     intel_is_device_barrier_valid() is false; the state is not touched;
 *   concurrent (1)  every launched group takes part (wgs_discover in WGS_MODE_FIXED: under
 *                   concurrent dispatch all groups of the range run at once by contract, a
 *                   count the layer checked against its probe); intel_device_barrier is the
 *                   grid barrier over all of them (Sorensen et al. 2016 §4);
 *   probe (2)       the occupancy discovery protocol of Sorensen et al. 2016 §3 over an
 *                   over-provisioned launch of this very kernel (its registers, its local
 *                   memory), and every group leaves before the user's code: the participants
 *                   are what clGetKernelMaxConcurrentWorkGroupCountINTEL answers.
 * The word is uniform across the launch, so the prologue's branch and its return are too.
 */
#define WGS__LAYER_PROLOGUE                                                                      \
  wgs_env wgs__layer_env;                                                                       \
  const uint wgs__layer_valid = wgs__layer_enter(wgs__layer_state, &wgs__layer_env);            \
  if (wgs__layer_valid == 2u)                                                                   \
    return;

/* 0: default dispatch, 1: concurrent (the group takes part), 2: leave now (a probe). */
WGS_FN uint wgs__layer_enter(WGS_GLOBAL uint *state, wgs_env *env)
{
  uint dispatch = state[WGS_G_CONFIG + WGS_CFG_DISPATCH];
  if (dispatch == WGS_DISPATCH_DEFAULT)
    return 0u;
  int participating = wgs_discover(state, env);
  return dispatch == WGS_DISPATCH_CONCURRENT && participating ? 1u : 2u;
}

/* intel_device_barrier(flags[, scope]): the grid barrier orders every memory access before it,
 * global and local, at device scope with every access after it in every group (its work-group
 * barriers cover local memory), which is at least what any flags and scope ask. Called when
 * intel_is_device_barrier_valid() is false (undefined behaviour by the extension), it is a
 * work-group barrier with the flags given: no group waits for another that may never run. */
WGS_FN void wgs__layer_barrier(wgs_env *env, uint valid, uint site, cl_mem_fence_flags flags)
{
  if (valid == 1u) {
    wgs__count_entry(env, site);
    wgs__grid_barrier(env, site);
  } else {
    barrier(flags);
  }
}
#if defined(__OPENCL_C_VERSION__) && __OPENCL_C_VERSION__ >= 200
/* Both forms, told apart by argument count (the scope is covered: see above). */
#define WGS__LAYER_BARRIER(flags, ...) \
  wgs__layer_barrier(&wgs__layer_env, wgs__layer_valid, (uint)__LINE__, (flags))
#define intel_device_barrier(...) WGS__LAYER_BARRIER(__VA_ARGS__, 0)
#else
/* OpenCL C 1.x has only the one-argument form, and no variadic macros (NVIDIA refuses them). */
#define intel_device_barrier(flags) \
  wgs__layer_barrier(&wgs__layer_env, wgs__layer_valid, (uint)__LINE__, (flags))
#endif
#define intel_is_device_barrier_valid() ((bool)(wgs__layer_valid == 1u))
#ifndef cl_intel_concurrent_dispatch
#define cl_intel_concurrent_dispatch 1
#endif
/* Kernels that test the extensions' macros take the path written for them. */
#ifndef cl_intel_split_work_group_barrier
#define cl_intel_split_work_group_barrier 1
#endif
