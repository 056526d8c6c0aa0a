/*
 * One kernel source for both backends (WGS_KERNEL, WGS_GLOBAL, wgs_uint: the device libraries):
 * tests/test_opencl.c builds it as OpenCL C, tests/cuda/test_cuda.cu includes it as CUDA.
 *
 * Message passing across grid barriers, no atomics: in round r every participating work-item
 * writes its word of the round's half of `slots`, a grid barrier, then it reads the word of the
 * same work-item of the next group and counts a value that is not round r's into its word of
 * `bad`. The halves alternate by round, so a group a round ahead never overwrites what a slower
 * one still reads. done[g]: the rounds group g finished.
 *
 * Three kernels, full, split and OR barrier, from one body: a run-time `if (split)` around the
 * barriers made PoCL 3.1 (loopvec) lose the group's arrival and crash under workitemrepl.
 */
#ifdef __CUDACC__
#define PORTABLE_ADD(p, v) atomicAdd((p), (v))
#else
#define PORTABLE_ADD(p, v) atomic_add((p), (v))
#endif
#define PORTABLE_MP_BODY(BARRIER)                                                               \
  wgs_env env;                                                                                  \
  if (wgs_discover(wgs, &env)) {                                                                \
    wgs_uint n = wgs_get_num_groups(&env), ls = env.local_size;                                 \
    wgs_uint gid = (wgs_uint)wgs_get_global_id(&env);                                           \
    wgs_uint gsize = (wgs_uint)wgs_get_global_size(&env), stale = 0u;                           \
    for (wgs_uint r = 0u; r < rounds; ++r) {                                                    \
      size_t base = (size_t)(r & 1u) * gsize;                                                   \
      slots[base + gid] = r * 2654435761u + gid;                                                \
      BARRIER;                                                                                  \
      wgs_uint src = ((env.group_id + 1u) % n) * ls + env.local_id;                             \
      if (slots[base + src] != r * 2654435761u + src)                                           \
        stale++;                                                                                \
    }                                                                                           \
    if (env.local_id == 0u)                                                                     \
      done[env.group_id] = rounds;                                                              \
    bad[gid] = stale;                                                                           \
  }

WGS_KERNEL void portable_mp(WGS_GLOBAL wgs_uint *wgs, WGS_GLOBAL wgs_uint *slots,
                            WGS_GLOBAL wgs_uint *bad, WGS_GLOBAL wgs_uint *done, wgs_uint rounds)
{
  PORTABLE_MP_BODY(wgs_grid_barrier(&env))
}

WGS_KERNEL void portable_mp_split(WGS_GLOBAL wgs_uint *wgs, WGS_GLOBAL wgs_uint *slots,
                                  WGS_GLOBAL wgs_uint *bad, WGS_GLOBAL wgs_uint *done,
                                  wgs_uint rounds)
{
  PORTABLE_MP_BODY(wgs_grid_arrive(&env); wgs_grid_wait(&env))
}

WGS_KERNEL void portable_mp_or(WGS_GLOBAL wgs_uint *wgs, WGS_GLOBAL wgs_uint *slots,
                               WGS_GLOBAL wgs_uint *bad, WGS_GLOBAL wgs_uint *done, wgs_uint rounds)
{
  PORTABLE_MP_BODY((void)wgs_grid_barrier_or(&env, gid == r % gsize))
}

/*
 * wgs_grid_barrier_or's answer, one kernel for both backends. Each round runs three OR barriers
 * back to back (the OR words' reuse two instances later), a full barrier and a split pair (5
 * instances, so the words' parity moves round by round). An OR barrier's values follow a rule,
 * (round + its position) % 4: none; one work-item (a different one each round, in any group, any
 * lane); every work-item; the last lane of the last group. Every work-item compares the answer
 * with the rule's; bad[0] counts wrong answers, bad[1..3] describe the first (5 x round +
 * position, answer, global id). The barriers sit outside run-time conditions (PoCL).
 */
#define PORTABLE_OR_VALUE(kind, r, gid, gsize)                                                  \
  ((kind) == 1u ? (wgs_uint)((gid) == ((r) * 2654435761u) % (gsize))                            \
   : (kind) == 2u ? 1u + (gid)                                                                  \
   : (kind) == 3u ? (wgs_uint)((gid) == (gsize) - 1u)                                           \
                  : 0u)
#define PORTABLE_OR_CHECK(got, kind, at)                                                        \
  do {                                                                                          \
    if ((got) != ((kind) != 0u) && PORTABLE_ADD(&bad[0], 1u) == 0u) {                           \
      bad[1] = (at);                                                                            \
      bad[2] = (got);                                                                           \
      bad[3] = gid;                                                                             \
    }                                                                                           \
  } while (0)
WGS_KERNEL void portable_or(WGS_GLOBAL wgs_uint *wgs, WGS_GLOBAL wgs_uint *bad, wgs_uint rounds)
{
  wgs_env e;
  if (wgs_discover(wgs, &e)) {
    wgs_uint gid = (wgs_uint)wgs_get_global_id(&e), gsize = (wgs_uint)wgs_get_global_size(&e);
    for (wgs_uint r = 0u; r < rounds; ++r) {
      wgs_uint k0 = r % 4u, k1 = (r + 1u) % 4u, k2 = (r + 2u) % 4u;
      wgs_uint g0 = wgs_grid_barrier_or(&e, PORTABLE_OR_VALUE(k0, r, gid, gsize));
      wgs_uint g1 = wgs_grid_barrier_or(&e, PORTABLE_OR_VALUE(k1, r, gid, gsize));
      wgs_uint g2 = wgs_grid_barrier_or(&e, PORTABLE_OR_VALUE(k2, r, gid, gsize));
      wgs_grid_barrier(&e);
      wgs_grid_arrive(&e);
      wgs_grid_wait(&e);
      PORTABLE_OR_CHECK(g0, k0, 5u * r);
      PORTABLE_OR_CHECK(g1, k1, 5u * r + 1u);
      PORTABLE_OR_CHECK(g2, k2, 5u * r + 2u);
    }
  }
}

/*
 * The mixing rule (device/common/wgs_core.h, "grid barriers"), one kernel for both backends: full
 * and split grid barriers interleaved (every third round a full one), under either barrier kind.
 * Before round r's barrier every group adds 1 to cnt; after it, a group must see at least
 * n*(r+1) (all of round r arrived) and at most n*(r+2)-1 (nobody is past round r+1's barrier, and
 * this group has not added for r+1 yet). bad[0] counts violations; bad[1..3] describe the first.
 */
WGS_KERNEL void portable_mixed(WGS_GLOBAL wgs_uint *wgs, WGS_GLOBAL wgs_uint *cnt,
                               WGS_GLOBAL wgs_uint *bad, wgs_uint rounds)
{
  wgs_env e;
  if (wgs_discover(wgs, &e)) {
    wgs_uint n = wgs_get_num_groups(&e);
    for (wgs_uint r = 0u; r < rounds; ++r) {
      if (e.local_id == 0u)
        PORTABLE_ADD(cnt, 1u);
      if (r % 3u == 0u) {
        wgs_grid_barrier(&e);
      } else {
        wgs_grid_arrive(&e);
        wgs_grid_wait(&e);
      }
      if (e.local_id == 0u) {
        wgs_uint seen = PORTABLE_ADD(cnt, 0u);
        if ((seen < n * (r + 1u) || seen > n * (r + 2u) - 1u) && PORTABLE_ADD(&bad[0], 1u) == 0u) {
          bad[1] = r;
          bad[2] = seen;
          bad[3] = wgs_get_group_id(&e);
        }
      }
    }
  }
}

/*
 * The grid reductions' answers (wgs_grid_reduce_u32/_f32 and the split forms), one kernel for
 * both backends. Each round runs eleven barrier instances, so every reduction meets its buffer's
 * reuse two instances later: unsigned sum, min and max; a split float sum; a plain barrier; a
 * float min and a split float max; the max and min of zeros of both signs (totalOrder: +0 and
 * -0) and the sum of -0.0 alone (-0.0); a float sum that rounds. The values move round by round (the minimum's holder is another
 * work-item each round). Every work-item checks the exact answers: bad[0] counts wrong ones,
 * bad[1..3] describe the first (16 x round + position, answer's bits, global id); the rounding
 * sum's bits go to sums[round * groups + group] for the host, which checks that every group got
 * the same bits and that they are close to the exact sum. The barriers sit outside run-time
 * conditions (PoCL).
 */
#ifdef __CUDACC__
#define PORTABLE_BITS(f) __float_as_uint(f)
#else
#define PORTABLE_BITS(f) as_uint(f)
#endif
/* The split float sum's exact answer: the sum over gid < gsize of ((gid + r) % 16) / 4 - 1, whose
 * partial sums are exact in a float (multiples of 0.25 far below 2^22), into float `want`. */
#define PORTABLE_QUARTERS_SUM(want, gsize, r)                                                   \
  do {                                                                                          \
    wgs_uint quarters_ = (gsize) / 16u * 120u;                                                  \
    for (wgs_uint j_ = 0u; j_ < (gsize) % 16u; ++j_)                                            \
      quarters_ += (j_ + (r)) % 16u;                                                            \
    (want) = (float)quarters_ * 0.25f - (float)(gsize);                                         \
  } while (0)
#define PORTABLE_RED_CHECK(got, want, at)                                                       \
  do {                                                                                          \
    if ((got) != (want) && PORTABLE_ADD(&bad[0], 1u) == 0u) {                                   \
      bad[1] = (at);                                                                            \
      bad[2] = (got);                                                                           \
      bad[3] = gid;                                                                             \
    }                                                                                           \
  } while (0)
WGS_KERNEL void portable_reduce(WGS_GLOBAL wgs_uint *wgs, WGS_GLOBAL wgs_uint *bad,
                                WGS_GLOBAL wgs_uint *sums, wgs_uint rounds)
{
  wgs_env e;
  if (wgs_discover(wgs, &e)) {
    wgs_uint gid = (wgs_uint)wgs_get_global_id(&e), gsize = (wgs_uint)wgs_get_global_size(&e);
    wgs_uint n = wgs_get_num_groups(&e);
    for (wgs_uint r = 0u; r < rounds; ++r) {
      wgs_uint spread = 1000u + ((gid + r) % gsize) * 3u;
      wgs_uint a = wgs_grid_reduce_u32(&e, WGS_SUM, gid + r);
      wgs_uint b = wgs_grid_reduce_u32(&e, WGS_MIN, spread);
      wgs_uint c = wgs_grid_reduce_u32(&e, WGS_MAX, spread);
      wgs_grid_arrive_reduce_f32(&e, WGS_SUM, (float)((gid + r) % 16u) * 0.25f - 1.0f);
      float want_d; /* the expected sum, computed while the barrier completes */
      PORTABLE_QUARTERS_SUM(want_d, gsize, r);
      float d = wgs_grid_wait_reduce_f32(&e, WGS_SUM);
      wgs_grid_barrier(&e);
      float below = -(float)((gid + r) % gsize) - 0.5f;
      float f = wgs_grid_reduce_f32(&e, WGS_MIN, below);
      wgs_grid_arrive_reduce_f32(&e, WGS_MAX, below);
      float g = wgs_grid_wait_reduce_f32(&e, WGS_MAX);
      float zero = gid == (r * 2654435761u) % gsize ? 0.0f : -0.0f;
      float h = wgs_grid_reduce_f32(&e, WGS_MAX, zero);
      float i = wgs_grid_reduce_f32(&e, WGS_MIN, zero);
      float nz = wgs_grid_reduce_f32(&e, WGS_SUM, -0.0f);
      float j = wgs_grid_reduce_f32(&e, WGS_SUM, 1.0f / (float)(gid + r + 1u));
      PORTABLE_RED_CHECK(a, (gsize % 2u ? gsize * ((gsize - 1u) / 2u) : gsize / 2u * (gsize - 1u)) + r * gsize,
                         16u * r);
      PORTABLE_RED_CHECK(b, 1000u, 16u * r + 1u);
      PORTABLE_RED_CHECK(c, 1000u + (gsize - 1u) * 3u, 16u * r + 2u);
      PORTABLE_RED_CHECK(PORTABLE_BITS(d), PORTABLE_BITS(want_d),
                         16u * r + 3u);
      PORTABLE_RED_CHECK(PORTABLE_BITS(f), PORTABLE_BITS(-(float)(gsize - 1u) - 0.5f), 16u * r + 5u);
      PORTABLE_RED_CHECK(PORTABLE_BITS(g), PORTABLE_BITS(-0.5f), 16u * r + 6u);
      PORTABLE_RED_CHECK(PORTABLE_BITS(h), 0u, 16u * r + 7u);
      PORTABLE_RED_CHECK(PORTABLE_BITS(i), 0x80000000u, 16u * r + 8u);
      PORTABLE_RED_CHECK(PORTABLE_BITS(nz), 0x80000000u, 16u * r + 9u); /* -0.0 alone */
      if (e.local_id == 0u)
        sums[r * n + e.group_id] = PORTABLE_BITS(j);
    }
  }
}
/* Four of portable_reduce's reductions (an unsigned min, the split float sum, the max of signed
 * zeros, the rounding sum; the same positions in bad[1]): PoCL's workitemrepl method compiles a
 * kernel in time proportional to its loops times the local size, minutes for the whole set. */
WGS_KERNEL void portable_reduce_few(WGS_GLOBAL wgs_uint *wgs, WGS_GLOBAL wgs_uint *bad,
                                    WGS_GLOBAL wgs_uint *sums, wgs_uint rounds)
{
  wgs_env e;
  if (wgs_discover(wgs, &e)) {
    wgs_uint gid = (wgs_uint)wgs_get_global_id(&e), gsize = (wgs_uint)wgs_get_global_size(&e);
    wgs_uint n = wgs_get_num_groups(&e);
    for (wgs_uint r = 0u; r < rounds; ++r) {
      wgs_uint b = wgs_grid_reduce_u32(&e, WGS_MIN, 1000u + ((gid + r) % gsize) * 3u);
      wgs_grid_arrive_reduce_f32(&e, WGS_SUM, (float)((gid + r) % 16u) * 0.25f - 1.0f);
      float want_d;
      PORTABLE_QUARTERS_SUM(want_d, gsize, r);
      float d = wgs_grid_wait_reduce_f32(&e, WGS_SUM);
      float h = wgs_grid_reduce_f32(&e, WGS_MAX, gid == (r * 2654435761u) % gsize ? 0.0f : -0.0f);
      float j = wgs_grid_reduce_f32(&e, WGS_SUM, 1.0f / (float)(gid + r + 1u));
      PORTABLE_RED_CHECK(b, 1000u, 16u * r + 1u);
      PORTABLE_RED_CHECK(PORTABLE_BITS(d), PORTABLE_BITS(want_d),
                         16u * r + 3u);
      PORTABLE_RED_CHECK(PORTABLE_BITS(h), 0u, 16u * r + 7u);
      if (e.local_id == 0u)
        sums[r * n + e.group_id] = PORTABLE_BITS(j);
    }
  }
}
