/*
 * Kernels behind wgsync's own tools (library occupancy tools, CLI, tests): the §5.1
 * microbenchmark of Sorensen et al. 2016 and the grid-barrier message-passing self-test (their
 * bodies shared with CUDA, device/common/wgs_tools.h), the latency loop, and the calibration of
 * checked spins and the host clock's check on devices without a clock. Built with the device
 * library in front.
 */

/* The §5.1 microbenchmark and the message-passing self-test: their bodies are
 * device/common/wgs_tools.h's (embedded in front of this file), shared with CUDA. */
#define WGS_TOOLS_ATOMIC_INC(p) atomic_inc(p)
#define WGS_TOOLS_NATIVE_GROUP get_group_id(0)
#define WGS_TOOLS_LOCAL_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)

__kernel void wgs_micro(__global uint *wgs, __local uint *scratch, uint scratch_words,
                        uint do_barrier, __global uint *out)
{
  WGS_TOOLS_MICRO_BODY(wgs, scratch, scratch_words, do_barrier, out)
}

__kernel void wgs_mp(__global uint *wgs, __global uint *data, uint rounds,
                     __global volatile uint *report, uint split)
{
  WGS_TOOLS_MP_BODY(wgs, data, rounds, split, report)
}

/* Bare grid barriers (or split arrive+wait), for latency: group 0 records the instances passed.
 * One loop with the choice inside: the two-loop form CUDA's takes (a barrier in each branch of
 * a run-time condition) made PoCL 3.1 lose the group's arrival (tests/kernels/portable.h). */
__kernel void wgs_latency(__global uint *wgs, uint rounds, uint split, __global uint *sink)
{
  wgs_env env;
  if (wgs_discover(wgs, &env)) {
    for (uint r = 0u; r < rounds; ++r) {
      if (split) { /* arrive then wait at once: the split barrier's own cost */
        wgs_grid_arrive(&env);
        wgs_grid_wait(&env);
      } else {
        wgs_grid_barrier(&env);
      }
    }
    if (env.local_id == 0u && env.group_id == 0u)
      sink[0] = env.instance;
  }
}

/* Spins on a word that never changes until the checked spin bound gives up: the host times it
 * to learn how many spin iterations a millisecond holds on this device. */
__kernel void wgs_calibrate(__global uint *wgs)
{
  wgs_word_ptr s = (wgs_word_ptr)wgs + WGS_HALF(wgs[WGS_G_CONFIG + WGS_CFG_MAX_GROUPS], 0u);
  wgs__spin sp;
  wgs__spin_init(&sp);
  while (wgs__ld_acq(&s[WGS_W_CLOSED]) == 0u) {
    int why = wgs__spin_gave_up(s, &sp);
    if (why == WGS__TIMED_OUT)
      wgs__abort_done(s);
    if (why)
      break;
  }
}

/* Whether this device sees the host clock (WGS_CFG_CLOCK) move while a kernel runs: one
 * work-item reads it until it has advanced 2 ms, or gives up after `bound` reads. out[0]: 1 when
 * it moved (the state's host memory is the device's: the spins can be timed by it), else 0. */
__kernel void wgs_clock_check(__global uint *wgs, __global uint *out, uint bound)
{
  wgs_word_ptr g = (wgs_word_ptr)wgs;
  uint t0 = wgs__ld_rlx(&g[WGS_G_CONFIG + WGS_CFG_CLOCK]), moved = 0;
  for (uint i = 0; i < bound && !moved; ++i)
    moved = wgs__ld_rlx(&g[WGS_G_CONFIG + WGS_CFG_CLOCK]) - t0 >= 2000u;
  out[0] = moved;
}
