/*
 * The applications on CUDA, in five forms with the same steps (apps/kernels/app_steps.h):
 *  - multi:      host loop: memset the stop flag, launch the step, copy the flag back, repeat;
 *  - persistent: one kernel with wgsync discovery and grid barrier (device/cuda/wgsync.cuh);
 *  - fixed:      the same kernel, WGS_DISCOVERY_FIXED, as many blocks as the occupancy API says
 *                (Sorensen et al. 2016 §5.3: the non-portable "specialised" variant);
 *  - gridsync:   the same kernel body with cooperative groups' grid.sync(), cooperative launch;
 *  - graph:      one CUDA graph launch; the loop is a conditional WHILE node whose body runs
 *                the step kernels and a one-thread kernel that sets the condition from the flag
 *                (the best multi-kernel form CUDA offers today).
 * The persistent kernels are templates over a policy (ids + barrier), so grid.sync() and
 * wgsync's barrier run literally the same loop.
 */
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "../apps.h"
#include "../kernels/app_steps.h"
/* The persistent kernels launch with WGS_BARRIER_PUBLISHED, which takes the published shape
 * wherever the counter barrier's sharded one would serve (from 880 groups): they leave the
 * sharded shape's code out (device/common/wgs_core.h, WGS_SHARDED), and keep fewer values live
 * across their steps. --barrier counter then takes one count at every group count (a
 * measurement build puts the shape back with -DWGS_SHARDED=1). */
#ifndef WGS_SHARDED
#define WGS_SHARDED 0
#endif
#include "wgsync.cuh"
#include "wgsync_cuda.h"

namespace cg = cooperative_groups;

/* ---- multi-kernel form -------------------------------------------------------------------- */
#define ID0 ((size_t)blockIdx.x * blockDim.x + threadIdx.x)
#define STRIDE0 ((size_t)gridDim.x * blockDim.x)

__global__ void k_bfs_init(unsigned n, unsigned *level, unsigned src) { bfs_init(ID0, STRIDE0, n, level, src); }
__global__ void k_bfs_step(const unsigned *row, const unsigned *col, unsigned n, unsigned *level, unsigned d,
                           unsigned *flag, unsigned lb)
{
  app_flag(flag, lb ? bfs_step_lb(ID0, STRIDE0, n, row, col, level, d) : bfs_step(ID0, STRIDE0, n, row, col, level, d));
}
__global__ void k_sssp_init(unsigned n, unsigned *dist, unsigned *a0, unsigned *a1, unsigned src)
{
  sssp_init(ID0, STRIDE0, n, dist, a0, a1, src);
}
__global__ void k_sssp_step(const unsigned *row, const unsigned *col, const unsigned *w, unsigned n,
                            unsigned *dist, unsigned *cur, unsigned *next, unsigned *flag, unsigned it,
                            unsigned lb)
{
  /* balanced: the stamps live in the first activity array whatever the step (cur on step 0) */
  app_flag(flag, lb ? sssp_step_lb(ID0, STRIDE0, n, row, col, w, dist, (it & 1u) ? next : cur, it)
                    : sssp_step(ID0, STRIDE0, n, row, col, w, dist, cur, next));
}
__global__ void k_mis_init(unsigned n, unsigned *s) { mis_init(ID0, STRIDE0, n, s); }
__global__ void k_mis_select(const unsigned *row, const unsigned *col, unsigned n, unsigned *s)
{
  mis_select(ID0, STRIDE0, n, row, col, s);
}
__global__ void k_mis_exclude(const unsigned *row, const unsigned *col, unsigned n, unsigned *s, unsigned *flag)
{
  app_flag(flag, mis_exclude(ID0, STRIDE0, n, row, col, s));
}
/* mis, balanced select: the two phases (app_steps.h, mis_mark_lb) */
__global__ void k_mis_mark(const unsigned *row, const unsigned *col, unsigned n, unsigned *s)
{
  mis_mark_lb(ID0, STRIDE0, n, row, col, s);
}
__global__ void k_mis_commit(unsigned n, unsigned *s, unsigned *flag) { app_flag(flag, mis_commit(ID0, STRIDE0, n, s)); }
__global__ void k_mis_exclude_lb(const unsigned *row, const unsigned *col, unsigned n, unsigned *s)
{
  mis_exclude_lb(ID0, STRIDE0, n, row, col, s);
}
__global__ void k_color_init(unsigned n, unsigned *c) { color_init(ID0, STRIDE0, n, c); }
__global__ void k_color_step(const unsigned *row, const unsigned *col, unsigned n, unsigned *c, unsigned it,
                             unsigned *flag)
{
  app_flag(flag, color_step(ID0, STRIDE0, n, row, col, c, it));
}
/* color, balanced: the two phases (app_steps.h, color_mark_lb) */
__global__ void k_color_mark(const unsigned *row, const unsigned *col, unsigned n, unsigned *c)
{
  color_mark_lb(ID0, STRIDE0, n, row, col, c);
}
__global__ void k_color_commit(unsigned n, unsigned *c, unsigned it, unsigned *flag)
{
  app_flag(flag, color_commit(ID0, STRIDE0, n, c, it));
}
__global__ void k_bc_zero(unsigned n, float *bc) { bc_zero(ID0, STRIDE0, n, bc); }
__global__ void k_bc_init(unsigned n, unsigned *level, float *sigma, float *delta, unsigned src)
{
  bc_init(ID0, STRIDE0, n, level, sigma, delta, src);
}
__global__ void k_bc_forward(const unsigned *row, const unsigned *col, unsigned n, unsigned *level, float *sigma,
                             unsigned d, unsigned *flag, unsigned lb)
{
  app_flag(flag, lb ? bc_forward_lb(ID0, STRIDE0, n, row, col, level, sigma, d)
                    : bc_forward(ID0, STRIDE0, n, row, col, level, sigma, d));
}
__global__ void k_bc_backward(const unsigned *row, const unsigned *col, unsigned n, const unsigned *level,
                              const float *sigma, float *delta, float *bc, unsigned d, unsigned lb)
{
  if (lb)
    bc_backward_lb(ID0, STRIDE0, n, row, col, level, sigma, delta, bc, d);
  else
    bc_backward(ID0, STRIDE0, n, row, col, level, sigma, delta, bc, d);
}

/* ---- persistent form: one loop, two policies ------------------------------------------------ */
/* Measurement hooks: bench/apps/app_variants.h defines them in a measurement build (it is
 * force-included there, scripts/gpu.sh VARIANT_FLAGS); these defaults are the apps as shipped. */
#ifndef APP__HOOK_SPILL_ENV /* before each barrier: nothing */
#define APP__HOOK_SPILL_ENV(env) ((void)0)
#endif
#ifndef APP__HOOK_TRIP_END /* after each trip of mis and colour's persistent loops: nothing */
#define APP__HOOK_TRIP_END(p) ((void)0)
#endif
#ifndef APP__HOOK_NATIVE_IDS /* the work's ids: the participating groups' (1: the launch's own) */
#define APP__HOOK_NATIVE_IDS 0
#endif
#ifndef APP__HOOK_TRACE /* a timestamp per group at kernel entry, after discovery, on each
                          * barrier's arrival and departure, at exit: nothing */
#define APP__HOOK_TRACE_ENTRY() ((void)0)
#define APP__HOOK_TRACE_BEGUN() ((void)0)
#define APP__HOOK_TRACE_ARRIVE() ((void)0)
#define APP__HOOK_TRACE_DEPART() ((void)0)
#define APP__HOOK_TRACE_EXIT() ((void)0)
#define APP__HOOK_TRACE_RESET(stream) ((void)0)
static inline void app_trace_none(double, double, double, double) {}
#define APP__HOOK_TRACE_DUMP(app, form, wall_ms, kernel_us, call_ms, wait_ms) \
  app_trace_none((wall_ms), (kernel_us), (call_ms), (wait_ms))
/* ... and the launch's time on the GPU (events around the cooperative launch; time_kernel for
 * wgsync's) and on the host: the launch call, the wait, the result (wgsync's launch as its
 * three calls, wgs_cuda_launch_async, the stream's wait, wgs_state_result) */
#define APP__HOOK_TRACE_TIMED 0
#define APP__HOOK_TRACE_COOP_BEGIN(stream) ((void)0)
#define APP__HOOK_TRACE_COOP_END(stream) ((void)0)
#endif
struct WgsPolicy { /* wgsync: discovery, participating-group ids, wgsync's grid barrier */
  wgs_env env;
  __device__ ~WgsPolicy() { APP__HOOK_TRACE_EXIT(); }
  __device__ void spill() { APP__HOOK_SPILL_ENV(env); }
  __device__ bool begin(unsigned *state)
  {
    APP__HOOK_TRACE_ENTRY();
    bool in = wgs_discover(state, &env);
    APP__HOOK_TRACE_BEGUN();
    return in;
  }
  __device__ size_t id() const { return APP__HOOK_NATIVE_IDS ? ID0 : wgs_get_global_id(&env); }
  __device__ size_t size() const { return APP__HOOK_NATIVE_IDS ? STRIDE0 : wgs_get_global_size(&env); }
  __device__ void sync()
  {
    spill();
    APP__HOOK_TRACE_ARRIVE();
    wgs_grid_barrier(&env);
    APP__HOOK_TRACE_DEPART();
  }
  /* the barrier that ORs the step's "changed" over the grid: no flag to raise or read */
  __device__ unsigned sync_or(unsigned v, unsigned *, unsigned)
  {
    spill();
    APP__HOOK_TRACE_ARRIVE();
    unsigned any = wgs_grid_barrier_or(&env, v);
    APP__HOOK_TRACE_DEPART();
    return any;
  }
};
struct CgPolicy { /* cooperative groups: native ids, grid.sync() */
  __device__ ~CgPolicy() { APP__HOOK_TRACE_EXIT(); }
  __device__ bool begin(unsigned *)
  {
    APP__HOOK_TRACE_ENTRY();
    APP__HOOK_TRACE_BEGUN();
    return true;
  }
  __device__ size_t id() const { return ID0; }
  __device__ size_t size() const { return STRIDE0; }
  __device__ void sync()
  {
    APP__HOOK_TRACE_ARRIVE();
    cg::this_grid().sync();
    APP__HOOK_TRACE_DEPART();
  }
  /* The same test as well as grid.sync() code can make it: one flag store per block (the
   * block's OR, __syncthreads_or), one read per block after grid.sync(), its answer shared by a
   * second __syncthreads_or. The flag of trip `it` is flags[it & 1], tagged it + 1, as
   * wgs_grid_barrier_or's words are (device/common/wgs_core.h): never cleared in the loop. Both
   * forms pay the same loads; grid.sync() pays two block barriers more. */
  __device__ unsigned sync_or(unsigned v, unsigned *flags, unsigned it)
  {
    volatile unsigned *f = &flags[it & 1u];
    APP__HOOK_TRACE_ARRIVE();
    if (__syncthreads_or((int)(v != 0u)) && threadIdx.x == 0) *f = it + 1u;
    cg::this_grid().sync();
    unsigned any = (unsigned)__syncthreads_or(threadIdx.x == 0 && *f == it + 1u);
    APP__HOOK_TRACE_DEPART();
    return any;
  }
};

/* Launches wider than the uncapped kernels hold (NARROW = 0, below): both policies' persistent
 * kernels at most 32 registers, for 8 groups of 256 per SM (2048 threads): inlined, wgsync's
 * barrier took them to 36-52 and an SM then held 4-6 groups of 256; capped, what spills is the
 * barrier's cold state (ptxas -v). The same cap for grid.sync(), so both forms run at the same
 * occupancy. */
/* (Two blocks of 1024 need 2048 threads per SM: sm_80, 87, 90, 100, 103. The others the installed
 * library is built for (every major architecture) hold fewer, one block.) */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 900 || \
    __CUDA_ARCH__ == 1000 || __CUDA_ARCH__ == 1030
#define APP__SM_BLOCKS 2
#else
#define APP__SM_BLOCKS 1
#endif
/* NARROW = 1: the same kernel without the cap (__launch_bounds__(1024, 1): up to 64 registers),
 * for launches narrower than it holds at once (app_cu_create picks). Uncapped, wgsync's kernels
 * take 48-64 registers and spill next to nothing; capped, bc spills up to 396 bytes, colour and
 * mis 8-52, and the compiler recomputes what it cannot keep (a node's priority, per edge): their
 * steps ran 3.5-8% slower per group than grid.sync()'s. On Table 4's inputs of 15-541 groups the
 * uncapped kernels ran the persistent form 1.056x and 1.069x faster (geometric means of two
 * rounds, H100; docs/results.md, "Narrow launches"). Wider launches keep the cap: uncapped, an SM
 * holds 4-5 groups of 256, not 8. */
#define PERSISTENT_BOUNDS(NARROW) __launch_bounds__(1024, (NARROW) ? 1 : APP__SM_BLOCKS)
/* The balanced bfs / sssp kernels: capped at 32 registers as well (2 blocks of 1024 per SM; they
 * spill 84-100 bytes there). Capped at 64 they held 4 groups of 256 per SM, 528 on the H200;
 * since the balanced steps' chunk is 8 slots, the skewed inputs fill more than that: bfs on
 * kron:18 0.237 -> 0.174 ms, sssp 0.881 -> 0.690, sssp on rmat:18 0.632 -> 0.516 at 32 (1056
 * groups); rmat:16 (288 groups either way) 0.118 -> 0.128 (H200). */
#ifndef APP__LB_MIN_BLOCKS
#define APP__LB_MIN_BLOCKS APP__SM_BLOCKS
#endif
#define PERSISTENT_BOUNDS_STEP(LB, NARROW) \
  __launch_bounds__(1024, (NARROW) ? 1 : (LB) ? APP__LB_MIN_BLOCKS : APP__SM_BLOCKS)

/* The stop test is the policy's sync_or (wgsync: wgs_grid_barrier_or); flags[0..1] serve
 * grid.sync()'s, and flags[3] receives the loop-trip count. */

/* bfs and sssp: LB = 1 takes the balanced steps. A template argument, not a kernel argument, so
 * that each kernel holds one step's code: both inlined took p_sssp to 144 bytes of spill loads
 * under the 32-register cap. */
template <class P, unsigned LB, unsigned NARROW>
__global__ void PERSISTENT_BOUNDS_STEP(LB, NARROW) p_bfs(unsigned *wgs, const unsigned *row, const unsigned *col, unsigned n, unsigned *level,
                      unsigned src, unsigned *flags)
{
  P p;
  if (p.begin(wgs)) {
    size_t i0 = p.id(), st = p.size();
    bfs_init(i0, st, n, level, src);
    if (i0 == 0) flags[0] = flags[1] = 0u;
    p.sync();
    unsigned it = 0, go = 1;
    while (go) {
      go = p.sync_or(LB ? bfs_step_lb(i0, st, n, row, col, level, it) : bfs_step(i0, st, n, row, col, level, it),
                     flags, it);
      ++it;
    }
    if (i0 == 0) flags[3] = it;
  }
}

template <class P, unsigned LB, unsigned NARROW>
__global__ void PERSISTENT_BOUNDS_STEP(LB, NARROW) p_sssp(unsigned *wgs, const unsigned *row, const unsigned *col, const unsigned *w, unsigned n,
                       unsigned *dist, unsigned *a0, unsigned *a1, unsigned src, unsigned *flags)
{
  P p;
  if (p.begin(wgs)) {
    size_t i0 = p.id(), st = p.size();
    sssp_init(i0, st, n, dist, a0, a1, src);
    if (i0 == 0) flags[0] = flags[1] = 0u;
    p.sync();
    unsigned it = 0, go = 1;
    while (go) {
      unsigned *cur = (it & 1u) ? a1 : a0, *next = (it & 1u) ? a0 : a1;
      go = p.sync_or(LB ? sssp_step_lb(i0, st, n, row, col, w, dist, a0, it)
                        : sssp_step(i0, st, n, row, col, w, dist, cur, next),
                     flags, it);
      ++it;
    }
    if (i0 == 0) flags[3] = it;
  }
}

template <class P, unsigned LB, unsigned NARROW>
__global__ void PERSISTENT_BOUNDS(NARROW) p_mis(unsigned *wgs, const unsigned *row, const unsigned *col, unsigned n, unsigned *status,
                      unsigned *flags)
{
  P p;
  if (p.begin(wgs)) {
    size_t i0 = p.id(), st = p.size();
    mis_init(i0, st, n, status);
    if (i0 == 0) flags[0] = flags[1] = 0u;
    p.sync();
    unsigned it = 0, go = 1;
    while (go) {
      if (LB) { /* balanced: mark, commit (its answer stops the loop), exclude */
        mis_mark_lb(i0, st, n, row, col, status);
        p.sync();
        unsigned changed = mis_commit(i0, st, n, status);
        p.sync();
        mis_exclude_lb(i0, st, n, row, col, status);
        go = p.sync_or(changed, flags, it);
      } else {
        mis_select(i0, st, n, row, col, status);
        p.sync();
        go = p.sync_or(mis_exclude(i0, st, n, row, col, status), flags, it);
      }
      APP__HOOK_TRIP_END(p);
      ++it;
    }
    if (i0 == 0) flags[3] = it;
  }
}

/* The balanced colour step keeps the 32-register cap (24 bytes spilled): capped at 64 it took 46
 * registers, 5 groups of 256 per SM, and kron:18 ran at 660 groups in 46.5 ms; capped, 961
 * groups in 40.1 ms (H200). */
template <class P, unsigned LB, unsigned NARROW>
__global__ void PERSISTENT_BOUNDS(NARROW) p_color(unsigned *wgs, const unsigned *row, const unsigned *col, unsigned n,
                                                   unsigned *color, unsigned *flags)
{
  P p;
  if (p.begin(wgs)) {
    size_t i0 = p.id(), st = p.size();
    color_init(i0, st, n, color);
    if (i0 == 0) flags[0] = flags[1] = 0u;
    p.sync();
    unsigned it = 0, go = 1;
    while (go) {
      unsigned changed;
      if (LB) { /* balanced: mark, barrier, commit */
        color_mark_lb(i0, st, n, row, col, color);
        p.sync();
        changed = color_commit(i0, st, n, color, it);
      } else {
        changed = color_step(i0, st, n, row, col, color, it);
      }
      go = p.sync_or(changed, flags, it);
      APP__HOOK_TRIP_END(p);
      ++it;
    }
    if (i0 == 0) flags[3] = it;
  }
}

/* bc: the balanced steps under the balanced bfs / sssp kernels' cap (APP__LB_MIN_BLOCKS). */
template <class P, unsigned LB, unsigned NARROW>
__global__ void PERSISTENT_BOUNDS_STEP(LB, NARROW) p_bc(unsigned *wgs, const unsigned *row, const unsigned *col, unsigned n, unsigned *level,
                     float *sigma, float *delta, float *bc, const unsigned *sources, unsigned nsrc,
                     unsigned *flags)
{
  P p;
  if (p.begin(wgs)) {
    size_t i0 = p.id(), st = p.size();
    bc_zero(i0, st, n, bc);
    if (i0 == 0) flags[0] = flags[1] = 0u;
    unsigned it = 0;
    for (unsigned s = 0; s < nsrc; ++s) {
      bc_init(i0, st, n, level, sigma, delta, sources[s]);
      p.sync();
      unsigned d = 0, go = 1;
      while (go) {
        go = p.sync_or(LB ? bc_forward_lb(i0, st, n, row, col, level, sigma, d)
                          : bc_forward(i0, st, n, row, col, level, sigma, d),
                       flags, it);
        ++it;
        ++d;
      }
      for (unsigned k = d - 1u; k > 1u; --k) {
        if (LB)
          bc_backward_lb(i0, st, n, row, col, level, sigma, delta, bc, k - 1u);
        else
          bc_backward(i0, st, n, row, col, level, sigma, delta, bc, k - 1u);
        p.sync();
      }
    }
    if (i0 == 0) flags[3] = it;
  }
}

/* ---- CUDA-graph form: steps read their number from device memory ----------------------------- */
struct ctl_t {
  unsigned flag;  /* raised by a step */
  unsigned iter;  /* step number of the current loop */
  unsigned bk;    /* bc: backward level + 1 */
  unsigned si;    /* bc: source index */
  unsigned trips; /* loop trips, for the report */
};

/* One thread: decide the loop from the flag, clear it, count the trip. */
__global__ void g_cond(cudaGraphConditionalHandle h, ctl_t *c)
{
  unsigned v = c->flag;
  c->flag = 0u;
  c->iter++;
  c->trips++;
  cudaGraphSetConditional(h, v != 0u);
}
__device__ void g_reset(ctl_t *c)
{
  if (ID0 == 0) {
    c->flag = 0u;
    c->iter = 0u;
  }
}
__global__ void g_bfs_init(unsigned n, unsigned *level, unsigned src, ctl_t *c)
{
  bfs_init(ID0, STRIDE0, n, level, src);
  g_reset(c);
  if (ID0 == 0) c->trips = 0u;
}
__global__ void g_bfs_step(const unsigned *row, const unsigned *col, unsigned n, unsigned *level, ctl_t *c,
                           unsigned lb)
{
  unsigned d = c->iter;
  app_flag(&c->flag, lb ? bfs_step_lb(ID0, STRIDE0, n, row, col, level, d) : bfs_step(ID0, STRIDE0, n, row, col, level, d));
}
__global__ void g_sssp_init(unsigned n, unsigned *dist, unsigned *a0, unsigned *a1, unsigned src, ctl_t *c)
{
  sssp_init(ID0, STRIDE0, n, dist, a0, a1, src);
  g_reset(c);
  if (ID0 == 0) c->trips = 0u;
}
__global__ void g_sssp_step(const unsigned *row, const unsigned *col, const unsigned *w, unsigned n,
                            unsigned *dist, unsigned *a0, unsigned *a1, ctl_t *c, unsigned lb)
{
  unsigned it = c->iter;
  app_flag(&c->flag, lb ? sssp_step_lb(ID0, STRIDE0, n, row, col, w, dist, a0, it)
                        : sssp_step(ID0, STRIDE0, n, row, col, w, dist, it & 1u ? a1 : a0, it & 1u ? a0 : a1));
}
__global__ void g_mis_init(unsigned n, unsigned *s, ctl_t *c)
{
  mis_init(ID0, STRIDE0, n, s);
  g_reset(c);
  if (ID0 == 0) c->trips = 0u;
}
__global__ void g_mis_exclude(const unsigned *row, const unsigned *col, unsigned n, unsigned *s, ctl_t *c)
{
  app_flag(&c->flag, mis_exclude(ID0, STRIDE0, n, row, col, s));
}
__global__ void g_mis_commit(unsigned n, unsigned *s, ctl_t *c)
{
  app_flag(&c->flag, mis_commit(ID0, STRIDE0, n, s));
}
__global__ void g_color_init(unsigned n, unsigned *color, ctl_t *c)
{
  color_init(ID0, STRIDE0, n, color);
  g_reset(c);
  if (ID0 == 0) c->trips = 0u;
}
__global__ void g_color_step(const unsigned *row, const unsigned *col, unsigned n, unsigned *color, ctl_t *c)
{
  app_flag(&c->flag, color_step(ID0, STRIDE0, n, row, col, color, c->iter));
}
__global__ void g_color_commit(unsigned n, unsigned *color, ctl_t *c)
{
  app_flag(&c->flag, color_commit(ID0, STRIDE0, n, color, c->iter));
}
/* bc: zero; WHILE(sources) { init; WHILE(forward) {step; cond}; mid; WHILE(backward) {...}; next } */
__global__ void g_bc_zero(unsigned n, float *bc, ctl_t *c, cudaGraphConditionalHandle hs, unsigned nsrc)
{
  bc_zero(ID0, STRIDE0, n, bc);
  if (ID0 == 0) {
    c->si = 0u;
    c->trips = 0u;
    cudaGraphSetConditional(hs, nsrc > 0u);
  }
}
__global__ void g_bc_init(unsigned n, unsigned *level, float *sigma, float *delta, const unsigned *sources,
                          ctl_t *c, cudaGraphConditionalHandle hf)
{
  bc_init(ID0, STRIDE0, n, level, sigma, delta, sources[c->si]);
  if (ID0 == 0) cudaGraphSetConditional(hf, 1u);
  g_reset(c); /* after reading c->si; iter is not read by this kernel */
}
__global__ void g_bc_forward(const unsigned *row, const unsigned *col, unsigned n, unsigned *level,
                             float *sigma, ctl_t *c, unsigned lb)
{
  app_flag(&c->flag, lb ? bc_forward_lb(ID0, STRIDE0, n, row, col, level, sigma, c->iter)
                        : bc_forward(ID0, STRIDE0, n, row, col, level, sigma, c->iter));
}
__global__ void g_bc_mid(ctl_t *c, cudaGraphConditionalHandle hb)
{
  c->bk = c->iter; /* deepest level + 1, as d after the persistent form's forward loop */
  cudaGraphSetConditional(hb, c->bk > 2u);
}
__global__ void g_bc_backward(const unsigned *row, const unsigned *col, unsigned n, const unsigned *level,
                              const float *sigma, float *delta, float *bc, ctl_t *c, unsigned lb)
{
  if (lb)
    bc_backward_lb(ID0, STRIDE0, n, row, col, level, sigma, delta, bc, c->bk - 2u);
  else
    bc_backward(ID0, STRIDE0, n, row, col, level, sigma, delta, bc, c->bk - 2u);
}
__global__ void g_bc_bcond(ctl_t *c, cudaGraphConditionalHandle hb)
{
  c->bk--;
  cudaGraphSetConditional(hb, c->bk > 2u);
}
__global__ void g_bc_next(ctl_t *c, cudaGraphConditionalHandle hs, unsigned nsrc)
{
  c->si++;
  cudaGraphSetConditional(hs, c->si < nsrc);
}

/* ---- host side ------------------------------------------------------------------------------ */
struct app_cu {
  int device;
  const app_graph *g;
  app_id app;
  app_options o;
  unsigned local, blocks; /* blocks: the multi-kernel grid (ceil(n / local)) */
  cudaStream_t s;
  unsigned *row, *col, *w, *flags, *u[3], *sources;
  float *f[3];
  ctl_t *ctl;
  unsigned *hflag; /* pinned: the host loop's read-back */
  wgs_cuda_state_t *st, *st_fixed; /* the persistent and the fixed form's: see app_cu_create */
  uint32_t nsrc, *src_host;
  unsigned fixed_groups, coop_groups; /* the fixed and grid.sync() forms' grids */
  unsigned groups;                     /* the persistent form's launch (app_groups) */
  unsigned lb;                         /* the balanced steps (app_balanced) */
  unsigned narrow;                     /* the uncapped kernels (PERSISTENT_BOUNDS) */
  unsigned regs_w, regs_c;             /* their registers: wgsync's kernel, grid.sync()'s */
  cudaGraph_t graph;
  cudaGraphExec_t gexec;
  uint32_t *out_u32;
  float *out_f32;
  char msg[384];
};

#define CK(call)                                                                                 \
  do {                                                                                           \
    cudaError_t e_ = (call);                                                                     \
    if (e_ != cudaSuccess) {                                                                     \
      snprintf(c->msg, sizeof c->msg, "%s: %s (%s)", #call, cudaGetErrorString(e_),              \
               cudaGetErrorName(e_));                                                            \
      return WGS_EBACKEND;                                                                       \
    }                                                                                            \
  } while (0)

static double now_ms()
{
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

extern "C" void app_cu_destroy(app_cu *c)
{
  if (!c)
    return;
  cudaSetDevice(c->device);
  if (c->gexec) cudaGraphExecDestroy(c->gexec);
  if (c->graph) cudaGraphDestroy(c->graph);
  void *dev_ptrs[] = {c->row, c->col, c->w, c->flags, c->u[0], c->u[1], c->u[2], c->sources,
                      c->f[0], c->f[1], c->f[2], c->ctl};
  for (void *p : dev_ptrs)
    if (p) cudaFree(p);
  if (c->hflag) cudaFreeHost(c->hflag);
  if (c->s) cudaStreamDestroy(c->s);
  wgs_cuda_state_release(c->st);
  wgs_cuda_state_release(c->st_fixed);
  free(c->src_host);
  free(c->out_u32);
  free(c->out_f32);
  delete c;
}

template <class T> static int dalloc(app_cu *c, T **p, size_t count, const void *init)
{
  CK(cudaMalloc((void **)p, (count ? count : 1) * sizeof(T)));
  if (init && count)
    CK(cudaMemcpy(*p, init, count * sizeof(T), cudaMemcpyHostToDevice));
  return 0;
}

/* The persistent kernels' arguments live here while a launch reads them. */
struct pargs_t {
  unsigned *state, *row, *col, *w, *u0, *u1, *u2, *flags, *sources;
  float *f0, *f1, *f2;
  unsigned n, src, nsrc;
};

/* The persistent kernels for the app's steps (c->lb) and width (c->narrow), under each policy. */
#define PICK(kern, P)                                                                              \
  (c->lb ? (c->narrow ? (const void *)kern<P, 1, 1> : (const void *)kern<P, 1, 0>)                 \
         : (c->narrow ? (const void *)kern<P, 0, 1> : (const void *)kern<P, 0, 0>))
static unsigned persistent_args(app_cu *c, pargs_t *a, void **args, const void **kw, const void **kc)
{
  *a = pargs_t{nullptr, c->row, c->col, c->w, c->u[0], c->u[1], c->u[2], c->flags, c->sources,
               c->f[0], c->f[1], c->f[2], c->g->n, c->o.src, c->nsrc};
  switch (c->app) {
  case APP_BFS: {
    void *v[] = {&a->state, &a->row, &a->col, &a->n, &a->u0, &a->src, &a->flags};
    memcpy(args, v, sizeof v);
    *kw = PICK(p_bfs, WgsPolicy);
    *kc = PICK(p_bfs, CgPolicy);
    return 7;
  }
  case APP_SSSP: {
    void *v[] = {&a->state, &a->row, &a->col, &a->w, &a->n, &a->u0, &a->u1, &a->u2, &a->src, &a->flags};
    memcpy(args, v, sizeof v);
    *kw = PICK(p_sssp, WgsPolicy);
    *kc = PICK(p_sssp, CgPolicy);
    return 10;
  }
  case APP_MIS:
  case APP_COLOR: {
    void *v[] = {&a->state, &a->row, &a->col, &a->n, &a->u0, &a->flags};
    memcpy(args, v, sizeof v);
    if (c->app == APP_MIS) {
      *kw = PICK(p_mis, WgsPolicy);
      *kc = PICK(p_mis, CgPolicy);
    } else {
      *kw = PICK(p_color, WgsPolicy);
      *kc = PICK(p_color, CgPolicy);
    }
    return 6;
  }
  default: {
    void *v[] = {&a->state, &a->row, &a->col, &a->n, &a->u0, &a->f0, &a->f1, &a->f2, &a->sources,
                 &a->nsrc, &a->flags};
    memcpy(args, v, sizeof v);
    *kw = PICK(p_bc, WgsPolicy);
    *kc = PICK(p_bc, CgPolicy);
    return 11;
  }
  }
}

#undef PICK

extern "C" int app_cu_create(int device, const app_graph *g, app_id a, const app_options *o, app_cu **out,
                             char *err, size_t errlen)
{
  *out = nullptr;
  if (a >= APP_COUNT) {
    snprintf(err, errlen, "unknown application %d", (int)a);
    return WGS_EINVAL;
  }
  app_cu *c = new (std::nothrow) app_cu();
  if (!c) {
    snprintf(err, errlen, "out of memory");
    return WGS_ENOMEM;
  }
  c->device = device;
  c->g = g;
  c->app = a;
  c->o = *o;
  c->lb = (unsigned)app_balanced(g, a, o);
  c->local = (unsigned)(o->local_size ? o->local_size : 256);
  if (c->local > 1024)
    c->local = 1024;
  c->blocks = (g->n + c->local - 1) / c->local;
  int rc = 0;
  auto setup = [&]() -> int {
    CK(cudaSetDevice(device));
    CK(cudaStreamCreateWithFlags(&c->s, cudaStreamNonBlocking));
    CK(cudaMallocHost((void **)&c->hflag, sizeof(unsigned)));
    if (!(c->out_u32 = (uint32_t *)malloc((size_t)g->n * 4)) || !(c->out_f32 = (float *)malloc((size_t)g->n * 4))) {
      snprintf(c->msg, sizeof c->msg, "out of host memory");
      return WGS_ENOMEM;
    }
    int r;
    if ((r = dalloc(c, &c->row, (size_t)g->n + 1, g->row)) || (r = dalloc(c, &c->col, g->m, g->col)) ||
        (r = dalloc(c, &c->w, g->m, g->w)) || (r = dalloc(c, &c->flags, 4, nullptr)) ||
        (r = dalloc(c, &c->ctl, 1, nullptr)))
      return r;
    CK(cudaMemset(c->flags, 0, 16));
    CK(cudaMemset(c->ctl, 0, sizeof(ctl_t)));
    int nu = a == APP_SSSP ? 3 : 1, nf = a == APP_BC ? 3 : 0;
    for (int i = 0; i < nu; ++i)
      if ((r = dalloc(c, &c->u[i], g->n, nullptr)))
        return r;
    for (int i = 0; i < nf; ++i)
      if ((r = dalloc(c, &c->f[i], g->n, nullptr)))
        return r;
    if (a == APP_BC) {
      uint32_t k = o->bc_sources ? o->bc_sources : 4;
      if (!(c->src_host = (uint32_t *)malloc((size_t)k * 4))) {
        snprintf(c->msg, sizeof c->msg, "out of host memory");
        return WGS_ENOMEM;
      }
      c->nsrc = app_bc_sources(g, k, c->src_host);
      if ((r = dalloc(c, &c->sources, c->nsrc, c->src_host)))
        return r;
    }
    /* The occupancy API: the specialised variant's hard-coded count, and the cooperative
     * launch's grid (grid.sync() requires every block resident). */
    pargs_t pa;
    void *args[16];
    const void *kw, *kc;
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, device));
    int bw = 0, bc = 0;
    /* The uncapped kernels when both policies' hold the launch at once (PERSISTENT_BOUNDS): the
     * work no wider than they hold, and no wider count asked (--all-groups, --fixed-groups) */
    c->narrow = 1;
    persistent_args(c, &pa, args, &kw, &kc);
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bw, kw, (int)c->local, 0));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bc, kc, (int)c->local, 0));
    uint32_t held = (uint32_t)((bw < bc ? bw : bc) * prop.multiProcessorCount);
    if (o->all_groups || app_groups(g, a, o, c->local, held + 1u) > held || o->fixed_groups > held) {
      c->narrow = 0;
      persistent_args(c, &pa, args, &kw, &kc);
      CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bw, kw, (int)c->local, 0));
      CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bc, kc, (int)c->local, 0));
    }
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, kw));
    c->regs_w = (unsigned)fa.numRegs;
    CK(cudaFuncGetAttributes(&fa, kc));
    c->regs_c = (unsigned)fa.numRegs;
    unsigned resident = (unsigned)(bw * prop.multiProcessorCount);
    /* The kernels are unchecked by default: a fixed count above what runs at once would make
     * the grid barrier spin forever. On CUDA the occupancy API gives that count for an idle
     * GPU, so a larger one is refused here rather than probed. */
    if (o->fixed_groups > resident) {
      snprintf(c->msg, sizeof c->msg,
               "--fixed-groups %u: more blocks than run at once for this kernel (%d per SM x %d "
               "SMs = %u by the occupancy API at %u threads); a grid barrier over them would "
               "never complete", o->fixed_groups, bw, prop.multiProcessorCount, resident, (unsigned)c->local);
      return (int)WGS_ELIMIT;
    }
    /* every form no wider than the step's work items fill (app_groups), unless asked */
    c->fixed_groups = o->fixed_groups ? o->fixed_groups : app_groups(g, a, o, c->local, resident);
    c->coop_groups = app_groups(g, a, o, c->local, (uint32_t)(bc * prop.multiProcessorCount));
    uint32_t cap = wgs_cuda_default_groups(device, c->local);
    c->groups = app_groups(g, a, o, c->local, cap);
    if (c->fixed_groups > cap)
      cap = c->fixed_groups;
    /* A state per form: a launch whose configuration differs from its state's last one first
     * writes the config words (a kernel before the app's, include/wgsync_cuda.h), and the forms
     * alternate run by run; each form measured as a program repeating its launch would run it. */
    if ((r = wgs_cuda_state_create(device, cap, &c->st)) || (r = wgs_cuda_state_create(device, cap, &c->st_fixed))) {
      snprintf(c->msg, sizeof c->msg, "wgsync state: %s", wgs_last_error());
      return r;
    }
    return 0;
  };
  if ((rc = setup())) {
    snprintf(err, errlen, "CUDA setup for %s: %s", app_name(a), c->msg);
    app_cu_destroy(c);
    return rc;
  }
  *out = c;
  return 0;
}

/* multi-kernel: the host loop */
#define LAUNCH(kern, ...)                                                                        \
  do {                                                                                           \
    kern<<<c->blocks, c->local, 0, c->s>>>(__VA_ARGS__);                                         \
    r->launches++;                                                                               \
    CK(cudaGetLastError());                                                                      \
  } while (0)
#define FLAGGED(kern, ...)                                                                       \
  do {                                                                                           \
    CK(cudaMemsetAsync(c->flags, 0, sizeof(unsigned), c->s));                                    \
    LAUNCH(kern, __VA_ARGS__);                                                                   \
    CK(cudaMemcpyAsync(c->hflag, c->flags, sizeof(unsigned), cudaMemcpyDeviceToHost, c->s));     \
    CK(cudaStreamSynchronize(c->s));                                                             \
    go = *c->hflag;                                                                              \
    r->steps++;                                                                                  \
  } while (0)

static int run_multi(app_cu *c, app_run *r)
{
  unsigned n = c->g->n, src = c->o.src, go = 1, *u0 = c->u[0], *u1 = c->u[1], *u2 = c->u[2];
  const unsigned *row = c->row, *col = c->col;
  r->groups = c->blocks;
  switch (c->app) {
  case APP_BFS:
    LAUNCH(k_bfs_init, n, u0, src);
    for (unsigned d = 0; go; ++d)
      FLAGGED(k_bfs_step, row, col, n, u0, d, c->flags, c->lb);
    break;
  case APP_SSSP:
    LAUNCH(k_sssp_init, n, u0, u1, u2, src);
    for (unsigned it = 0; go; ++it)
      FLAGGED(k_sssp_step, row, col, c->w, n, u0, it & 1 ? u2 : u1, it & 1 ? u1 : u2, c->flags, it, c->lb);
    break;
  case APP_MIS:
    LAUNCH(k_mis_init, n, u0);
    while (go) {
      if (c->lb) { /* balanced: mark, commit (its flag stops the loop), exclude */
        LAUNCH(k_mis_mark, row, col, n, u0);
        FLAGGED(k_mis_commit, n, u0, c->flags);
        LAUNCH(k_mis_exclude_lb, row, col, n, u0);
      } else {
        LAUNCH(k_mis_select, row, col, n, u0);
        FLAGGED(k_mis_exclude, row, col, n, u0, c->flags);
      }
    }
    break;
  case APP_COLOR:
    LAUNCH(k_color_init, n, u0);
    for (unsigned it = 0; go; ++it) {
      if (c->lb) {
        LAUNCH(k_color_mark, row, col, n, u0);
        FLAGGED(k_color_commit, n, u0, it, c->flags);
      } else {
        FLAGGED(k_color_step, row, col, n, u0, it, c->flags);
      }
    }
    break;
  case APP_BC:
    LAUNCH(k_bc_zero, n, c->f[2]);
    for (uint32_t s = 0; s < c->nsrc; ++s) {
      LAUNCH(k_bc_init, n, u0, c->f[0], c->f[1], c->src_host[s]);
      unsigned d = 0;
      for (go = 1; go; ++d)
        FLAGGED(k_bc_forward, row, col, n, u0, c->f[0], d, c->flags, c->lb);
      for (unsigned k = d - 1; k > 1; --k)
        LAUNCH(k_bc_backward, row, col, n, u0, c->f[0], c->f[1], c->f[2], k - 1, c->lb);
    }
    break;
  default:
    return WGS_EINVAL;
  }
  CK(cudaStreamSynchronize(c->s));
  return 0;
}

static int run_persistent(app_cu *c, app_form f, app_run *r)
{
  pargs_t pa;
  void *args[16];
  const void *kw, *kc;
  unsigned nargs = persistent_args(c, &pa, args, &kw, &kc);
  APP__HOOK_TRACE_RESET(c->s);
  /* (t_call, t_wait: a trace build's host times after the launch call and after the wait) */
  double t0 = now_ms(), t_call = t0, t_wait = t0, kernel_us = -1.0;
  if (f == APP_FORM_GRIDSYNC) {
    APP__HOOK_TRACE_COOP_BEGIN(c->s);
    CK(cudaLaunchCooperativeKernel(kc, dim3(c->coop_groups), dim3(c->local), args, 0, c->s));
    APP__HOOK_TRACE_COOP_END(c->s);
    t_call = APP__HOOK_TRACE_TIMED ? now_ms() : t0;
    CK(cudaStreamSynchronize(c->s));
    t_wait = APP__HOOK_TRACE_TIMED ? now_ms() : t0;
    r->groups = c->coop_groups;
  } else {
    wgs_launch_config cfg;
    wgs_launch_config_init(&cfg);
    cfg.local_size = c->local;
    cfg.lock = c->o.lock;
    cfg.close_wait_us = c->o.close_wait_us;
    cfg.timeout_ms = c->o.timeout_ms;
    cfg.barrier = c->o.barrier != WGS_BARRIER_DEFAULT ? c->o.barrier : WGS_BARRIER_PUBLISHED;
    cfg.groups = c->groups;
    cfg.time_kernel = APP__HOOK_TRACE_TIMED;
    if (f == APP_FORM_FIXED) {
      cfg.discovery = WGS_DISCOVERY_FIXED;
      cfg.groups = c->fixed_groups;
    }
    wgs_launch_result res;
    wgs_state_t *st = f == APP_FORM_FIXED ? c->st_fixed : c->st;
#if APP__HOOK_TRACE_TIMED /* wgs_cuda_launch's three host steps, timed apart */
    int rc = wgs_cuda_launch_async(st, kw, args, nargs, 0, c->s, &cfg);
    t_call = now_ms();
    if (rc == 0 && cudaStreamSynchronize(c->s) == cudaSuccess) {
      t_wait = now_ms();
      rc = wgs_state_result(st, &res);
      kernel_us = res.kernel_us;
    }
#else
    int rc = wgs_cuda_launch(st, kw, args, nargs, 0, c->s, &cfg, &res);
#endif
    if (rc) {
      snprintf(c->msg, sizeof c->msg, "%s", wgs_last_error());
      return rc;
    }
    r->groups = res.participants;
  }
  r->ms = now_ms() - t0;
  r->launches = 1;
  r->registers = f == APP_FORM_GRIDSYNC ? c->regs_c : c->regs_w;
  CK(cudaMemcpy(&r->steps, c->flags + 3, 4, cudaMemcpyDeviceToHost));
  APP__HOOK_TRACE_DUMP(c->app, f, r->ms, kernel_us, t_call - t0, t_wait - t_call);
  return 0;
}

/* ---- CUDA graph with conditional WHILE nodes ---------------------------------------------- */
static int add_kernel(app_cu *c, cudaGraph_t g, cudaGraphNode_t *out, const cudaGraphNode_t *dep,
                      const void *fn, unsigned grid, unsigned block, void **args)
{
  cudaKernelNodeParams p = {};
  p.func = (void *)fn;
  p.gridDim = dim3(grid);
  p.blockDim = dim3(block);
  p.kernelParams = args;
  CK(cudaGraphAddKernelNode(out, g, dep, dep ? 1 : 0, &p));
  return 0;
}

static int add_while(app_cu *c, cudaGraph_t g, cudaGraphNode_t *out, const cudaGraphNode_t *dep,
                     cudaGraphConditionalHandle h, cudaGraph_t *body)
{
  cudaGraphNodeParams p = {};
  p.type = cudaGraphNodeTypeConditional;
  p.conditional.handle = h;
  p.conditional.type = cudaGraphCondTypeWhile;
  p.conditional.size = 1;
  CK(cudaGraphAddNode(out, g, dep, nullptr, dep ? 1 : 0, &p));
  *body = p.conditional.phGraph_out[0];
  return 0;
}

static int build_graph(app_cu *c)
{
  cudaGraph_t G, body;
  CK(cudaGraphCreate(&G, 0));
  c->graph = G;
  unsigned n = c->g->n, src = c->o.src, nsrc = c->nsrc, B = c->blocks, L = c->local, lb = c->lb;
  unsigned *row = c->row, *col = c->col, *w = c->w, *u0 = c->u[0], *u1 = c->u[1], *u2 = c->u[2];
  float *f0 = c->f[0], *f1 = c->f[1], *f2 = c->f[2];
  unsigned *sources = c->sources;
  ctl_t *ctl = c->ctl;
  cudaGraphConditionalHandle h;
  cudaGraphNode_t init, loop, a, b;
  int rc = 0;
  if (c->app != APP_BC) {
    CK(cudaGraphConditionalHandleCreate(&h, G, 1, cudaGraphCondAssignDefault));
    void *cond_args[] = {&h, &ctl};
    switch (c->app) {
    case APP_BFS: {
      void *ia[] = {&n, &u0, &src, &ctl}, *sa[] = {&row, &col, &n, &u0, &ctl, &lb};
      if ((rc = add_kernel(c, G, &init, nullptr, (const void *)g_bfs_init, B, L, ia)) ||
          (rc = add_while(c, G, &loop, &init, h, &body)) ||
          (rc = add_kernel(c, body, &a, nullptr, (const void *)g_bfs_step, B, L, sa)))
        return rc;
      break;
    }
    case APP_SSSP: {
      void *ia[] = {&n, &u0, &u1, &u2, &src, &ctl}, *sa[] = {&row, &col, &w, &n, &u0, &u1, &u2, &ctl, &lb};
      if ((rc = add_kernel(c, G, &init, nullptr, (const void *)g_sssp_init, B, L, ia)) ||
          (rc = add_while(c, G, &loop, &init, h, &body)) ||
          (rc = add_kernel(c, body, &a, nullptr, (const void *)g_sssp_step, B, L, sa)))
        return rc;
      break;
    }
    case APP_MIS: {
      void *ia[] = {&n, &u0, &ctl}, *sa[] = {&row, &col, &n, &u0}, *ea[] = {&row, &col, &n, &u0, &ctl};
      void *ca[] = {&n, &u0, &ctl};
      cudaGraphNode_t m;
      if ((rc = add_kernel(c, G, &init, nullptr, (const void *)g_mis_init, B, L, ia)) ||
          (rc = add_while(c, G, &loop, &init, h, &body)))
        return rc;
      if (lb) { /* balanced: mark, commit (raises the flag), exclude */
        if ((rc = add_kernel(c, body, &m, nullptr, (const void *)k_mis_mark, B, L, sa)) ||
            (rc = add_kernel(c, body, &b, &m, (const void *)g_mis_commit, B, L, ca)) ||
            (rc = add_kernel(c, body, &a, &b, (const void *)k_mis_exclude_lb, B, L, sa)))
          return rc;
      } else if ((rc = add_kernel(c, body, &b, nullptr, (const void *)k_mis_select, B, L, sa)) ||
                 (rc = add_kernel(c, body, &a, &b, (const void *)g_mis_exclude, B, L, ea))) {
        return rc;
      }
      break;
    }
    default: { /* color */
      void *ia[] = {&n, &u0, &ctl}, *sa[] = {&row, &col, &n, &u0, &ctl};
      void *ma[] = {&row, &col, &n, &u0}, *ca[] = {&n, &u0, &ctl};
      if ((rc = add_kernel(c, G, &init, nullptr, (const void *)g_color_init, B, L, ia)) ||
          (rc = add_while(c, G, &loop, &init, h, &body)))
        return rc;
      if (lb) { /* balanced: mark, then commit */
        if ((rc = add_kernel(c, body, &b, nullptr, (const void *)k_color_mark, B, L, ma)) ||
            (rc = add_kernel(c, body, &a, &b, (const void *)g_color_commit, B, L, ca)))
          return rc;
      } else if ((rc = add_kernel(c, body, &a, nullptr, (const void *)g_color_step, B, L, sa))) {
        return rc;
      }
      break;
    }
    }
    if ((rc = add_kernel(c, body, &b, &a, (const void *)g_cond, 1, 1, cond_args)))
      return rc;
  } else {
    cudaGraphConditionalHandle hs, hf, hb;
    cudaGraph_t bs, bf, bb;
    cudaGraphNode_t zero, ws, bi, wf, mid, wb, x, y;
    CK(cudaGraphConditionalHandleCreate(&hs, G, 0, 0));
    void *za[] = {&n, &f2, &ctl, &hs, &nsrc};
    if ((rc = add_kernel(c, G, &zero, nullptr, (const void *)g_bc_zero, B, L, za)) ||
        (rc = add_while(c, G, &ws, &zero, hs, &bs)))
      return rc;
    CK(cudaGraphConditionalHandleCreate(&hf, bs, 0, 0));
    CK(cudaGraphConditionalHandleCreate(&hb, bs, 0, 0));
    void *ia[] = {&n, &u0, &f0, &f1, &sources, &ctl, &hf};
    void *fa[] = {&row, &col, &n, &u0, &f0, &ctl, &lb}, *fc[] = {&hf, &ctl};
    void *ma[] = {&ctl, &hb};
    void *ba[] = {&row, &col, &n, &u0, &f0, &f1, &f2, &ctl, &lb}, *bcd[] = {&ctl, &hb};
    void *na[] = {&ctl, &hs, &nsrc};
    if ((rc = add_kernel(c, bs, &bi, nullptr, (const void *)g_bc_init, B, L, ia)) ||
        (rc = add_while(c, bs, &wf, &bi, hf, &bf)) ||
        (rc = add_kernel(c, bf, &x, nullptr, (const void *)g_bc_forward, B, L, fa)) ||
        (rc = add_kernel(c, bf, &y, &x, (const void *)g_cond, 1, 1, fc)) ||
        (rc = add_kernel(c, bs, &mid, &wf, (const void *)g_bc_mid, 1, 1, ma)) ||
        (rc = add_while(c, bs, &wb, &mid, hb, &bb)) ||
        (rc = add_kernel(c, bb, &x, nullptr, (const void *)g_bc_backward, B, L, ba)) ||
        (rc = add_kernel(c, bb, &y, &x, (const void *)g_bc_bcond, 1, 1, bcd)) ||
        (rc = add_kernel(c, bs, &x, &wb, (const void *)g_bc_next, 1, 1, na)))
      return rc;
  }
  CK(cudaGraphInstantiate(&c->gexec, G, 0));
  return 0;
}

static int run_graph(app_cu *c, app_run *r)
{
  int rc;
  if (!c->gexec && (rc = build_graph(c)))
    return rc;
  double t0 = now_ms();
  CK(cudaGraphLaunch(c->gexec, c->s));
  CK(cudaStreamSynchronize(c->s));
  r->ms = now_ms() - t0;
  r->launches = 1;
  r->groups = c->blocks;
  ctl_t h;
  CK(cudaMemcpy(&h, c->ctl, sizeof h, cudaMemcpyDeviceToHost));
  r->steps = h.trips;
  return 0;
}

extern "C" int app_cu_run(app_cu *c, app_form f, const app_reference *ref, app_run *r, char *err,
                          size_t errlen)
{
  memset(r, 0, sizeof *r);
  c->msg[0] = 0;
  int rc;
  if (cudaSetDevice(c->device) != cudaSuccess) {
    snprintf(err, errlen, "cudaSetDevice(%d) failed", c->device);
    return WGS_EBACKEND;
  }
  if (f == APP_FORM_MULTI) {
    double t0 = now_ms();
    rc = run_multi(c, r);
    r->ms = now_ms() - t0;
  } else if (f == APP_FORM_GRAPH) {
    rc = run_graph(c, r);
  } else {
    rc = run_persistent(c, f, r);
  }
  if (rc) {
    snprintf(err, errlen, "%s (%s form, CUDA): %s", app_name(c->app), app_form_name(f),
             c->msg[0] ? c->msg : wgs_strerror(rc));
    return rc;
  }
  bool is_bc = c->app == APP_BC;
  cudaError_t e = cudaMemcpy(is_bc ? (void *)c->out_f32 : (void *)c->out_u32, is_bc ? (void *)c->f[2] : (void *)c->u[0],
                             (size_t)c->g->n * 4, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    snprintf(err, errlen, "reading the result: %s", cudaGetErrorString(e));
    return WGS_EBACKEND;
  }
  char why[512];
  if ((rc = app_verify(c->g, ref, c->out_u32, c->out_f32, r->summary, sizeof r->summary, why, sizeof why))) {
    snprintf(err, errlen, "%s (%s form, CUDA): wrong result: %s", app_name(c->app), app_form_name(f), why);
    return rc;
  }
  return 0;
}
