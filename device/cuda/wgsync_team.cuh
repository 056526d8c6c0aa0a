/*
 * wgsync across the GPUs of a team (device side, CUDA): one persistent kernel per GPU, launched
 * by wgs_cuda_team_launch (include/wgsync_team.h), and a team-wide grid barrier built on NCCL's
 * device API: every group arrives at the local counts (wgsync.cuh), one group per GPU waits for
 * them and crosses NCCL's LSA barrier, then releases its GPU's groups.
 *
 *   __global__ void k(wgs_team_ctx *t, ...) {
 *     wgs_team_env e;
 *     if (wgs_team_discover(t, &e)) {       // first, from every thread, as wgs_discover
 *       ... wgs_team_barrier(&e); ...       // every participating thread of every GPU
 *     }
 *   }
 *
 * Memory ordering (what is visible to whom after wgs_team_barrier): a write by any thread of a
 * participating group, on any GPU and to any GPU's memory (its own, or a peer's through
 * wgs_team_peer_ptr), before the barrier is visible to every thread of every participating group
 * of the team after it. The chain: the writer's group arrives at the local grid barrier with a
 * release at GPU scope, which group 0 of the same GPU acquires (wgsync.cuh, "Counter barrier");
 * group 0's thread then stores the next epoch in each peer's inbox with a release at system scope
 * (NCCL's ncclLsaBarrierSession::arrive, a cuda::atomic_ref store), which is cumulative over what
 * it acquired; a peer's group 0 loads it with an acquire at system scope (wait) and, after a
 * __syncthreads (CTA-scope order between its lanes), stores the crossing's number into its GPU's
 * release word copies with a release at GPU scope, which that GPU's groups acquire. Each
 * link is a release/acquire pair whose scope contains both threads, so the chain is causality
 * order in the PTX memory model, whatever memory the write went to. tests/cuda/test_team.cu
 * checks it with writes into the peer's buffer before every barrier and reads after it.
 *
 * NCCL 2.28's LSA wait spins without bound. Checked builds (WGS_CHECKED) therefore wait on the
 * same inboxes with wgsync's bounded spin: a GPU that never arrives is reported on the waiting
 * GPU as a grid-barrier timeout, and the host's error names the team ranks that did not cross.
 */
#ifndef WGSYNC_TEAM_CUH
#define WGSYNC_TEAM_CUH

#include <nccl.h>
#include <nccl_device.h>

#include "wgsync.cuh"

/* Largest team (the counts window holds two launches' counts for this many GPUs). */
#define WGS_TEAM_MAX_GPUS 64u

/* One per GPU, in that GPU's memory, written by wgs_cuda_team_create. */
struct wgs_team_ctx {
  unsigned *state;       /* this GPU's wgsync state (wgs_cuda_state_device_ptr) */
  ncclDevComm comm;      /* this GPU's NCCL device communicator (one LSA barrier) */
  ncclWindow_t counts;   /* the team's exchange window: participant counts, two launches' worth */
  unsigned rank, nranks; /* this GPU's rank in the team, and the team's size */
  unsigned *release;     /* this GPU's release word, WGS_TEAM_RELEASE_LINES copies a line apart,
                            then a line for checked builds' report (wgs__team_missing) */
};

/* Copies of the release word (the groups of this GPU poll copy group_id % this many). */
#define WGS_TEAM_RELEASE_LINES 16u

struct wgs_team_env {
  wgs_env env;                 /* this GPU's participating-group environment */
  const wgs_team_ctx *t;
  unsigned rank, nranks;       /* this GPU, the team's GPUs */
  unsigned group_base;         /* team-wide id of this GPU's participant 0 */
  unsigned team_groups;        /* participating groups on every GPU of the team */
  unsigned crossings;          /* team barriers (full or split) passed in this launch */
};

WGS_DEV unsigned wgs_team_rank(const wgs_team_env *e) { return e->rank; }
WGS_DEV unsigned wgs_team_size(const wgs_team_env *e) { return e->nranks; }
/* Group id across the team: GPU r's groups follow GPU r-1's. */
WGS_DEV unsigned wgs_team_group_id(const wgs_team_env *e) { return e->group_base + e->env.group_id; }
WGS_DEV unsigned wgs_team_num_groups(const wgs_team_env *e) { return e->team_groups; }
/* A peer's address of offset in a window registered on every GPU of the team
 * (wgs_cuda_team_alloc): stores through it go to the peer's memory over NVLink. */
WGS_DEV void *wgs_team_peer_ptr(const wgs_team_env *e, ncclWindow_t w, size_t offset, unsigned peer)
{
  return ncclGetLsaPointer(w, offset, (int)peer);
}

/* Checked builds: the team ranks this GPU's crossing gave up waiting for, a bit each (64 bits, the
 * line after the release word copies; read and cleared by the host after a failed launch). */
WGS_DEV unsigned *wgs__team_missing(const wgs_team_env *e)
{
  return e->t->release + WGS_TEAM_RELEASE_LINES * WGS_LINE_WORDS;
}

/* Group 0's crossing: NCCL's LSA barrier among the team's GPUs (every thread of group 0). */
WGS_DEV void wgs__team_cross(wgs_team_env *e, unsigned site)
{
  ncclLsaBarrierSession<ncclCoopCta> s(ncclCoopCta(), e->t->comm, ncclTeamTagLsa(), 0u);
  s.arrive(ncclCoopCta(), cuda::memory_order_release);
#if defined(WGS_CHECKED) && WGS_CHECKED
  /* NCCL's wait, bounded: the same inboxes and the same test */
  for (int i = threadIdx.x; i < s.team.nRanks - 1; i += blockDim.x) {
    int peer = i + (s.team.rank <= i ? 1 : 0);
    cuda::atomic_ref<uint32_t> inbox(*s.ucInbox(s.team.rank, peer));
    wgs__spin sp;
    wgs__spin_init(&sp);
    while (inbox.load(cuda::memory_order_acquire) - (s.epoch + 1u) > (uint32_t(-1) >> 1))
      if (wgs__wait_gave_up(&e->env, &sp, site)) {
        /* the host names the GPUs that had not crossed (wgs_cuda_team_launch) */
        atomicOr(wgs__team_missing(e) + peer / 32, 1u << (peer % 32));
        break;
      }
  }
  s.epoch += 1u;
  __syncthreads();
#else
  (void)site;
  s.wait(ncclCoopCta(), cuda::memory_order_acquire);
#endif
}

WGS_DEV unsigned *wgs__team_release_word(const wgs_team_env *e, unsigned copy)
{
  return e->t->release + copy * WGS_LINE_WORDS;
}

/*
 * Split team barrier. Arrive is the local split arrive (wgsync.cuh): the group's writes are
 * released at GPU scope to this GPU's counts. Wait: group 0 waits for every group of its GPU to
 * have arrived (the local counter wait, its acquire), crosses the LSA barrier with the other GPUs'
 * groups 0 (release and acquire at system scope), then stores the crossing's number into this
 * GPU's release word copies with a release at GPU scope; every other group polls one copy and
 * acquires. One local count and one broadcast per team barrier, not two local grid barriers.
 * Every block alternates arrive and wait, as with wgs_grid_arrive / wgs_grid_wait, and the two
 * may be mixed freely with local grid barriers (which count the same arrivals).
 */
WGS_DEV void wgs__team_arrive(wgs_team_env *e, unsigned site)
{
  wgs__count_entry(&e->env, site); /* as the grid macros do (wgs_core.h) */
  wgs__grid_arrive(&e->env, site);
}
WGS_DEV void wgs__team_wait(wgs_team_env *e, unsigned site)
{
  wgs_env *env = &e->env;
#if defined(WGS_CHECKED) && WGS_CHECKED
  if (env->s == nullptr || !env->participating) { /* as wgs__grid_wait (the arrive reported) */
    __syncthreads();
    return;
  }
#endif
  unsigned want = e->crossings + 1u; /* group 0 set the copies to 0 in wgs_team_discover */
  if (env->split_state != 1u) {
    wgs__split_misuse(env, site); /* waited without arriving */
  } else if (env->participating) {
    if (e->nranks == 1u) {
      wgs__counter_wait(env, site, 0u); /* a team of one: the local split barrier's wait */
    } else if (env->group_id == 0u) {
      wgs__counter_wait(env, site, 0u); /* every group of this GPU has arrived: acquired */
      __syncthreads();                  /* ... by the polling lanes, carried to the block */
      wgs__team_cross(e, site);         /* cumulative: releases what was acquired above */
      __syncthreads();                  /* the crossing's acquires, before the copies' release */
      if (threadIdx.x < WGS_TEAM_RELEASE_LINES)
        wgs__st_rel(wgs__team_release_word(e, threadIdx.x), want);
    } else if (threadIdx.x == 0u) {
      wgs__poll_until(env, wgs__team_release_word(e, env->group_id % WGS_TEAM_RELEASE_LINES), want,
                      site);
    }
  }
  __syncthreads(); /* the poller's acquire, carried to the block */
  env->split_state = 0u;
  env->counted++;
  env->instance++;
  e->crossings++;
}
#define wgs_team_arrive(e) wgs__team_arrive((e), (unsigned)__LINE__)
#define wgs_team_wait(e) wgs__team_wait((e), (unsigned)__LINE__)

/* Team grid barrier: the split barrier's arrive and wait back to back (a team of one GPU has
 * nothing to cross: its wait is the local one; 1 GPU, Jacobi 1024^2: 6.15 us an iteration with
 * the crossing, against 5.26 for the host loop). */
WGS_DEV void wgs__team_barrier(wgs_team_env *e, unsigned site)
{
  wgs__team_arrive(e, site);
  wgs__team_wait(e, site);
}
#define wgs_team_barrier(e) wgs__team_barrier((e), (unsigned)__LINE__)

/* The first design, kept for wgs_team_discover (which must order the release copies' reset
 * before any group's first wait) and measured beside the shipped one (tests/cuda/test_team.cu,
 * mp): a local grid barrier, group 0's crossing, a local grid barrier. Two local counts per team
 * barrier: 5.49 us at 1056 x 256 per GPU on 2 H200s. */
WGS_DEV void wgs__team_barrier_twice(wgs_team_env *e, unsigned site)
{
  wgs__count_entry(&e->env, site); /* as the grid macros do (wgs_core.h) */
  wgs__grid_barrier(&e->env, site);
  if (e->env.participating && e->env.group_id == 0u)
    wgs__team_cross(e, site);
  wgs__count_entry(&e->env, site);
  wgs__grid_barrier(&e->env, site);
}

/* Discovery on this GPU (wgs_discover), then the team's ids: each GPU's group 0 writes its
 * participant count into every GPU's counts window (slot [launch parity][rank]) and sets this
 * GPU's release copies to 0; a local grid barrier, group 0's crossing, a local grid barrier
 * (after which every group sees the copies at 0 and the counts of every GPU), then every group
 * adds up the counts. The slots alternate with the launch epoch's parity, so a GPU already in
 * the next team launch cannot overwrite a count a slower GPU has yet to read. */
WGS_DEV int wgs__team_discover(wgs_team_ctx *t, wgs_team_env *e, unsigned site)
{
  int part = wgs__discover(t->state, &e->env, site);
  e->t = t;
  e->rank = t->rank;
  e->nranks = t->nranks;
  e->group_base = 0u;
  e->team_groups = 0u;
  e->crossings = 0u;
  if (!part)
    return 0;
  unsigned parity = (unsigned)(e->env.s - wgs__glob(e->env.s)) != WGS_HALF(e->env.max_groups, 0u);
  size_t slot = ((size_t)parity * WGS_TEAM_MAX_GPUS + t->rank) * sizeof(unsigned);
  if (e->env.group_id == 0u) {
    if (threadIdx.x < t->nranks)
      *(volatile unsigned *)ncclGetLsaPointer(t->counts, slot, (int)threadIdx.x) = e->env.num_groups;
    if (threadIdx.x < WGS_TEAM_RELEASE_LINES)
      wgs__st_rlx(wgs__team_release_word(e, threadIdx.x), 0u);
  }
  wgs__team_barrier_twice(e, site);
  const unsigned *mine = (const unsigned *)ncclGetLocalPointer(t->counts, 0);
  for (unsigned r = 0; r < t->nranks; ++r) {
    unsigned c = ((const volatile unsigned *)mine)[parity * WGS_TEAM_MAX_GPUS + r];
    e->group_base += r < t->rank ? c : 0u;
    e->team_groups += c;
  }
  return 1;
}
#define wgs_team_discover(t, e) wgs__team_discover((t), (e), (unsigned)__LINE__)

#endif
