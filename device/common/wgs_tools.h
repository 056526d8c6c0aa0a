/*
 * The bodies of the kernels behind wgsync's own tools, once for OpenCL C and CUDA (the device
 * libraries define wgs_uint, WGS_GLOBAL, WGS_FN): the §5.1 microbenchmark of Sorensen et al. 2016
 * and the grid barrier's message-passing self-test. device/opencl/kernels/tools.cl and
 * src/cuda/cuda_tools_impl.cuh wrap them in each language's kernel signature (OpenCL takes the
 * scratch as a __local argument, CUDA as dynamic shared memory) and add what is one language's
 * only; WGS_TOOLS_ATOMIC_INC, WGS_TOOLS_NATIVE_GROUP and WGS_TOOLS_LOCAL_BARRIER are theirs.
 */
#ifndef WGS_TOOLS_H
#define WGS_TOOLS_H

/* Microbenchmark: discovery, then (optionally) one grid barrier among the participants. The
 * scratch (the resource knob, scratch_words per group) is written so that it stays allocated;
 * per participating id, out[2p] the native group id and out[2p + 1] the count it saw. */
#define WGS_TOOLS_MICRO_BODY(wgs, scratch, scratch_words, do_barrier, out)                      \
  wgs_env env;                                                                                  \
  if (wgs_discover((wgs), &env)) {                                                              \
    for (wgs_uint i = env.local_id; i < (scratch_words); i += env.local_size)                   \
      (scratch)[i] = i;                                                                         \
    WGS_TOOLS_LOCAL_BARRIER();                                                                  \
    if (env.local_id == 0u) {                                                                   \
      wgs_uint extra = (scratch_words) > 0u ? (scratch)[0] : 0u; /* 0: keeps the scratch live */ \
      (out)[2u * env.group_id] = (wgs_uint)(WGS_TOOLS_NATIVE_GROUP);                            \
      (out)[2u * env.group_id + 1u] = wgs_get_num_groups(&env) + extra;                         \
    }                                                                                           \
    if (do_barrier)                                                                             \
      wgs_grid_barrier(&env);                                                                   \
  }

/* Message passing across grid barriers. Round r: every participating work-item writes
 * WGS_MP_WORDS values derived from (r, its global id) into buffer r%2, passes a grid barrier
 * (or, with split, arrives, sums its own values as work that needs no other group's data, and
 * waits), then reads the values another group's work-item wrote in the same round. A stale read
 * means a barrier let a reader through before the writer's data was visible. The two buffers
 * alternate so that round r+2's writes are separated from round r's reads by barrier r+1.
 * report[0] counts mismatches, report[1..6] describe the first, report[7] counts the groups
 * that finished every round. */
#define WGS_MP_WORDS 4u
WGS_FN wgs_uint wgs__mp_value(wgs_uint round, wgs_uint gid, wgs_uint w)
{
  wgs_uint x = round * 0x9E3779B1u ^ gid * 0x85EBCA77u ^ (w + 1u) * 0xC2B2AE3Du;
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  return x;
}
#define WGS_TOOLS_MP_BODY(wgs, data, rounds, split, report)                                    \
  wgs_env env;                                                                                  \
  if (wgs_discover((wgs), &env)) {                                                              \
    wgs_uint n = wgs_get_num_groups(&env), lsize = env.local_size;                              \
    wgs_uint gid = (wgs_uint)wgs_get_global_id(&env), gsize = (wgs_uint)wgs_get_global_size(&env); \
    wgs_uint own = 0u;                                                                          \
    for (wgs_uint r = 0u; r < (rounds); ++r) {                                                  \
      WGS_GLOBAL wgs_uint *buf = (data) + (size_t)(r & 1u) * gsize * WGS_MP_WORDS;              \
      for (wgs_uint w = 0u; w < WGS_MP_WORDS; ++w)                                              \
        buf[(size_t)gid * WGS_MP_WORDS + w] = wgs__mp_value(r, gid, w);                         \
      if (split) {                                                                              \
        wgs_grid_arrive(&env);                                                                  \
        for (wgs_uint w = 0u; w < WGS_MP_WORDS; ++w)                                            \
          own += buf[(size_t)gid * WGS_MP_WORDS + w];                                           \
        wgs_grid_wait(&env);                                                                    \
      } else {                                                                                  \
        wgs_grid_barrier(&env);                                                                 \
      }                                                                                         \
      wgs_uint other = n > 1u ? (env.group_id + 1u + r % (n - 1u)) % n : 0u;                    \
      wgs_uint src = other * lsize + (env.local_id + r) % lsize;                                \
      for (wgs_uint w = 0u; w < WGS_MP_WORDS; ++w) {                                            \
        wgs_uint got = buf[(size_t)src * WGS_MP_WORDS + w], want = wgs__mp_value(r, src, w);     \
        if (got != want && WGS_TOOLS_ATOMIC_INC(&(report)[0]) == 0u) {                          \
          (report)[1] = r;                                                                      \
          (report)[2] = gid;                                                                    \
          (report)[3] = src;                                                                    \
          (report)[4] = w;                                                                      \
          (report)[5] = want;                                                                   \
          (report)[6] = got;                                                                    \
        }                                                                                       \
      }                                                                                         \
    }                                                                                           \
    if (env.local_id == 0u)                                                                     \
      (void)WGS_TOOLS_ATOMIC_INC(&(report)[7]);                                                 \
    if (own == 0xFFFFFFFFu)                                                                     \
      (report)[8] = own; /* keeps the overlapped work live */                                  \
  }

#endif
