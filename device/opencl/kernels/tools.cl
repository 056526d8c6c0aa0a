/*
 * Kernels behind wgsync's own tools (library occupancy tools, CLI, tests): the §5.1
 * microbenchmark of Sorensen et al. 2016, the grid-barrier message-passing self-test, and the calibration
 * of checked spins on devices without a clock. Built with the device library in front.
 */

/* Seed 003 §5.1 microbenchmark: discovery, then (optionally) one grid barrier among the
 * participants. Allocates scratch_bytes of local memory per group (the resource knob), and
 * records, per participating id, the native group id and the count that group saw. */
__kernel void wgs_micro(__global uint *wgs, __local uint *scratch, uint scratch_words,
                        uint do_barrier, __global uint *out)
{
  wgs_env env;
  if (wgs_discover(wgs, &env)) {
    for (uint i = env.local_id; i < scratch_words; i += env.local_size)
      scratch[i] = i;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (env.local_id == 0u) {
      uint extra = scratch_words > 0u ? scratch[0] : 0u; /* 0: keeps the scratch live */
      out[2u * env.group_id] = (uint)get_group_id(0);
      out[2u * env.group_id + 1u] = wgs_get_num_groups(&env) + extra;
    }
    if (do_barrier)
      wgs_grid_barrier(&env);
  }
}

/* Message passing across grid barriers. Round r: every participating work-item writes WORDS
 * values derived from (r, its global id) into buffer r%2, passes a grid barrier, then reads the
 * values another group's work-item wrote in the same round. A stale read means a barrier let a
 * reader through before the writer's data was visible. The two buffers alternate so that round
 * r+2's writes are separated from round r's reads by barrier r+1. report[0] counts mismatches;
 * report[1..6] describe the first. */
#define WGS_MP_WORDS 4u
static inline uint wgs__mp_value(uint round, uint gid, uint w)
{
  uint x = round * 0x9E3779B1u ^ gid * 0x85EBCA77u ^ (w + 1u) * 0xC2B2AE3Du;
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  return x;
}

__kernel void wgs_mp(__global uint *wgs, __global uint *data, uint rounds,
                     __global volatile uint *report, uint split)
{
  wgs_env env;
  if (wgs_discover(wgs, &env)) {
    uint n = wgs_get_num_groups(&env), lsize = env.local_size;
    uint gid = (uint)wgs_get_global_id(&env), gsize = (uint)wgs_get_global_size(&env);
    uint own = 0u;
    for (uint r = 0u; r < rounds; ++r) {
      __global uint *buf = data + (size_t)(r & 1u) * gsize * WGS_MP_WORDS;
      for (uint w = 0u; w < WGS_MP_WORDS; ++w)
        buf[(size_t)gid * WGS_MP_WORDS + w] = wgs__mp_value(r, gid, w);
      if (split) {
        wgs_grid_arrive(&env);
        for (uint w = 0u; w < WGS_MP_WORDS; ++w) /* work that needs no other group's data */
          own += buf[(size_t)gid * WGS_MP_WORDS + w];
        wgs_grid_wait(&env);
      } else {
        wgs_grid_barrier(&env);
      }
      uint other = n > 1u ? (env.group_id + 1u + r % (n - 1u)) % n : 0u;
      uint src = other * lsize + (env.local_id + r) % lsize;
      for (uint w = 0u; w < WGS_MP_WORDS; ++w) {
        uint got = buf[(size_t)src * WGS_MP_WORDS + w], want = wgs__mp_value(r, src, w);
        if (got != want && atomic_inc(&report[0]) == 0u) {
          report[1] = r;
          report[2] = gid;
          report[3] = src;
          report[4] = w;
          report[5] = want;
          report[6] = got;
        }
      }
    }
    if (env.local_id == 0u)
      atomic_inc(&report[7]); /* groups that finished every round */
    if (own == 0xFFFFFFFFu)
      report[8] = own; /* keeps the overlapped work live */
  }
}

/* Bare grid barriers (or split arrive+wait), for latency: group 0 records the instances passed. */
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
