/*
 * wgsync across the GPUs of a team (device side, CUDA): one persistent kernel per GPU, launched
 * by wgs_cuda_team_launch (include/wgsync_team.h), and a team-wide grid barrier built on NCCL's
 * device API: the local grid barrier (wgsync.cuh), one group per GPU crossing NCCL's LSA barrier,
 * then the local grid barrier again.
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
 * it acquired; a peer's group 0 loads it with an acquire at system scope (wait), then releases its
 * own GPU's groups through the second local grid barrier (release and acquire at GPU scope). Each
 * link is a release/acquire pair whose scope contains both threads, so the chain is causality
 * order in the PTX memory model, whatever memory the write went to. tests/cuda/test_team.cu
 * checks it with writes into the peer's buffer before every barrier and reads after it.
 *
 * NCCL 2.28's LSA wait spins without bound. Checked builds (WGS_CHECKED) therefore wait on the
 * same inboxes with wgsync's bounded spin, and a GPU that never arrives is reported on the waiting
 * GPU as a grid-barrier timeout of group 0 (every other group then reports group 0 missing).
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
};

struct wgs_team_env {
  wgs_env env;                 /* this GPU's participating-group environment */
  const wgs_team_ctx *t;
  unsigned rank, nranks;       /* this GPU, the team's GPUs */
  unsigned group_base;         /* team-wide id of this GPU's participant 0 */
  unsigned team_groups;        /* participating groups on every GPU of the team */
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
      if (wgs__wait_gave_up(&e->env, &sp, site))
        break;
  }
  s.epoch += 1u;
  __syncthreads();
#else
  (void)site;
  s.wait(ncclCoopCta(), cuda::memory_order_acquire);
#endif
}

/* Team grid barrier: local barrier, group 0 of each GPU crosses, local barrier. */
WGS_DEV void wgs__team_barrier(wgs_team_env *e, unsigned site)
{
  wgs__grid_barrier(&e->env, site);
  if (e->env.participating && e->env.group_id == 0u)
    wgs__team_cross(e, site);
  wgs__grid_barrier(&e->env, site);
}
#define wgs_team_barrier(e) wgs__team_barrier((e), (unsigned)__LINE__)

/* Discovery on this GPU (wgs_discover), then the team's ids: each GPU's group 0 writes its
 * participant count into every GPU's counts window (slot [launch parity][rank]), a team barrier,
 * then every group adds up the counts. The slots alternate with the launch epoch's parity, so a
 * GPU already in the next team launch cannot overwrite a count a slower GPU has yet to read. */
WGS_DEV int wgs__team_discover(wgs_team_ctx *t, wgs_team_env *e, unsigned site)
{
  int part = wgs__discover(t->state, &e->env, site);
  e->t = t;
  e->rank = t->rank;
  e->nranks = t->nranks;
  e->group_base = 0u;
  e->team_groups = 0u;
  if (!part)
    return 0;
  unsigned parity = (unsigned)(e->env.s - wgs__glob(e->env.s)) != WGS_HALF(e->env.max_groups, 0u);
  size_t slot = ((size_t)parity * WGS_TEAM_MAX_GPUS + t->rank) * sizeof(unsigned);
  if (e->env.group_id == 0u && threadIdx.x < t->nranks)
    *(volatile unsigned *)ncclGetLsaPointer(t->counts, slot, (int)threadIdx.x) = e->env.num_groups;
  wgs__team_barrier(e, site);
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
