/*
 * One kernel source for both backends (WGS_KERNEL, WGS_GLOBAL, wgs_uint: the device libraries):
 * tests/test_wgsync.c builds it as OpenCL C, tests/cuda/test_cuda.cu includes it as CUDA.
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
