/*
 * Variants of the CUDA apps for measurement, never in a product build: a measurement build
 * takes them with CMAKE_CUDA_FLAGS="-include <this file> -DNAME=..." and the apps' hooks
 * (apps/cuda/apps_cuda.cu, apps/kernels/app_steps.h) take them.
 *
 *   APP_ENV_IN_MEMORY=1  the barrier's environment handed to an empty asm before each barrier,
 *                        so that the compiler keeps it in memory instead of registers across
 *                        the steps (bench/results/h200-apps-2026-11-24, run-20: no gain).
 *   APP_EXTRA_SYNC=k     mis and colour's persistent loops pass k more grid barriers a trip, so
 *                        that a barrier's cost inside the app's kernel is the time added over
 *                        k x trips (run-19).
 *   APP_LB_MIN_BLOCKS=n  the balanced bfs / sssp / bc kernels' __launch_bounds__ minimum blocks
 *                        (shipped: 2, 32 registers; 1 measured in run-13).
 *   APP_STEP_CALL=1      every step compiled as a call, so that it gets the kernel's registers
 *                        for itself: colour on the grid unchanged (0.170 against 0.172 ms), lost
 *                        overall (1.74x the host loop against 1.81x; sssp on rmat:16 0.73 to
 *                        0.87 ms), run-9.
 *   APP_NATIVE_IDS=1     the persistent kernels' work split by the launch's own ids (blockIdx,
 *                        gridDim) instead of the environment's: whether keeping the
 *                        environment's ids across the steps costs the step code (the compiler
 *                        rematerialises the native ones from special registers). Correct only
 *                        where every launched group takes part (fixed groups; discovery that
 *                        found them all), which the apps' CPU check would catch. Measured on the
 *                        H100: no change outside the run-to-run noise.
 *   APP_KEEP_PRIORITY=1  the pull steps' node priority held in a register across the edge
 *                        loop (an opaque asm): under the 32-register cap the compiler
 *                        recomputes it for every edge in wgsync's kernels (SASS: 9
 *                        instructions an edge in colour's step), not in grid.sync()'s.
 *                        Measured on the H100: 0.996x geomean on mis and colour, either way
 *                        by up to 8% per input.
 *   APP_TRACE=1          a %globaltimer timestamp per group (thread 0, kept in shared memory
 *                        until the group exits) at kernel entry, after discovery, before and
 *                        after each grid barrier (the arrival after a block barrier, so it is
 *                        the whole group's) and at exit, in both persistent forms; each launch's
 *                        timestamps appended to the file APP_TRACE_FILE names, for
 *                        bench/apps/app_trace.py, which splits the kernel's time along its
 *                        critical path into start, steps and barriers; with each launch, the
 *                        GPU's time between two events around the kernel (the launch's own
 *                        time_kernel for wgsync's, the same two events around the cooperative
 *                        launch) and the host's in the launch call, in the wait and in the
 *                        result read (wgsync's launch made as its three calls): where the time
 *                        outside the kernel goes.
 */
#ifndef APP_VARIANTS_H
#define APP_VARIANTS_H

#if defined(APP_ENV_IN_MEMORY) && APP_ENV_IN_MEMORY
#define APP__HOOK_SPILL_ENV(env) asm volatile("" : : "l"(&(env)) : "memory")
#endif
#if defined(APP_EXTRA_SYNC) && APP_EXTRA_SYNC
#define APP__HOOK_TRIP_END(p)                            \
  for (unsigned app_e_ = 0; app_e_ < APP_EXTRA_SYNC; ++app_e_) \
  (p).sync()
#endif
#ifdef APP_LB_MIN_BLOCKS
#define APP__LB_MIN_BLOCKS APP_LB_MIN_BLOCKS
#endif
#if defined(APP_NATIVE_IDS) && APP_NATIVE_IDS
#define APP__HOOK_NATIVE_IDS 1
#endif
#if defined(APP_KEEP_PRIORITY) && APP_KEEP_PRIORITY
#define APP__HOOK_KEEP 1
#endif
#if defined(APP_TRACE) && APP_TRACE && defined(__CUDACC__)
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#define APP__HOOK_TRACE 1
#define APP_TRACE_GROUPS 2048u
#ifndef APP_TRACE_EVENTS /* per group; the last slot is the exit's (bc passes ~420 barriers:
                          * TRACE_FLAGS=-DAPP_TRACE_EVENTS=1024u, 8 KB of shared memory a group) */
#define APP_TRACE_EVENTS 256u
#endif
__device__ unsigned long long app_trace_t[APP_TRACE_GROUPS * APP_TRACE_EVENTS];
__device__ unsigned app_trace_count[APP_TRACE_GROUPS]; /* events recorded, exit included */
struct app_trace_s {
  unsigned n;
  unsigned long long t[APP_TRACE_EVENTS];
};
static __device__ __forceinline__ app_trace_s &app_trace_buf()
{
  __shared__ app_trace_s b;
  return b;
}
static __device__ __forceinline__ unsigned long long app_trace_now()
{
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) : : "memory");
  return t;
}
static __device__ __forceinline__ void app_trace_mark()
{
  if (threadIdx.x == 0) {
    app_trace_s &b = app_trace_buf();
    unsigned long long t = app_trace_now();
    if (b.n < APP_TRACE_EVENTS - 1u)
      b.t[b.n] = t;
    ++b.n;
  }
}
static __device__ __forceinline__ void app_trace_exit()
{
  if (threadIdx.x == 0 && blockIdx.x < APP_TRACE_GROUPS) {
    app_trace_s &b = app_trace_buf();
    unsigned n = b.n < APP_TRACE_EVENTS - 1u ? b.n : APP_TRACE_EVENTS - 1u;
    b.t[n] = app_trace_now();
    for (unsigned i = 0; i <= n; ++i)
      app_trace_t[blockIdx.x * APP_TRACE_EVENTS + i] = b.t[i];
    app_trace_count[blockIdx.x] = b.n + 1u;
  }
}
#define APP__HOOK_TRACE_ENTRY()                                                                   \
  do {                                                                                            \
    if (threadIdx.x == 0)                                                                         \
      app_trace_buf().n = 0u;                                                                     \
    app_trace_mark();                                                                             \
  } while (0)
#define APP__HOOK_TRACE_BEGUN() app_trace_mark()
#define APP__HOOK_TRACE_ARRIVE()                                                                  \
  do {                                                                                            \
    __syncthreads();                                                                              \
    app_trace_mark();                                                                             \
  } while (0)
#define APP__HOOK_TRACE_DEPART() app_trace_mark()
#define APP__HOOK_TRACE_EXIT() app_trace_exit()
static inline void app_trace_reset(cudaStream_t s)
{
  void *p = nullptr;
  if (cudaGetSymbolAddress(&p, app_trace_count) == cudaSuccess)
    cudaMemsetAsync(p, 0, sizeof(unsigned) * APP_TRACE_GROUPS, s);
}
/* The launch's time on the GPU: events around the cooperative launch (wgsync's launch times its
 * kernel with the same two events, time_kernel) */
static cudaEvent_t app_trace_ev[2];
static inline void app_trace_event(cudaStream_t s, int which)
{
  if (!app_trace_ev[which])
    cudaEventCreate(&app_trace_ev[which]);
  cudaEventRecord(app_trace_ev[which], s);
}
/* One record per launch: "WGSTRC2\0", the app's and the form's names (16 bytes each), groups and
 * events per group (u32 each), the host's time for the launch, the events' time around the
 * kernel, the host's time in the launch call and from its return to the stream's end (f64 each,
 * µs; the result read is the rest of the first), the groups' event counts (u32; above the events per group: the
 * group's middle events were dropped), then each group's timestamps (u64, ns), as many as its
 * count up to the events per group. */
static inline void app_trace_dump(const char *app, const char *form, double wall_ms, double kernel_us,
                                  double call_ms, double wait_ms)
{
  if (kernel_us < 0.0) { /* the cooperative launch: its events */
    float ms = 0.0f;
    kernel_us = cudaEventElapsedTime(&ms, app_trace_ev[0], app_trace_ev[1]) == cudaSuccess ? ms * 1e3 : 0.0;
  }
  double times[4] = {wall_ms * 1e3, kernel_us, call_ms * 1e3, wait_ms * 1e3};
  static unsigned cnt[APP_TRACE_GROUPS];
  static unsigned long long t[APP_TRACE_GROUPS * APP_TRACE_EVENTS];
  const char *path = getenv("APP_TRACE_FILE");
  if (!path || cudaMemcpyFromSymbol(cnt, app_trace_count, sizeof cnt) != cudaSuccess)
    return;
  unsigned groups = 0, events = APP_TRACE_EVENTS;
  for (unsigned g = 0; g < APP_TRACE_GROUPS; ++g)
    if (cnt[g])
      groups = g + 1u;
  if (cudaMemcpyFromSymbol(t, app_trace_t, (size_t)groups * events * sizeof t[0]) != cudaSuccess)
    return;
  FILE *f = fopen(path, "ab");
  if (!f)
    return;
  char head[40] = "WGSTRC2";
  snprintf(head + 8, 16, "%s", app);
  snprintf(head + 24, 16, "%s", form);
  fwrite(head, 1, 40, f);
  fwrite(&groups, 4, 1, f);
  fwrite(&events, 4, 1, f);
  fwrite(times, 8, 4, f);
  fwrite(cnt, 4, groups, f);
  for (unsigned g = 0; g < groups; ++g)
    fwrite(t + (size_t)g * events, 8, cnt[g] < events ? cnt[g] : events, f);
  fclose(f);
}
#define APP__HOOK_TRACE_RESET(stream) app_trace_reset(stream)
#define APP__HOOK_TRACE_DUMP(app, form, wall_ms, kernel_us, call_ms, wait_ms) \
  app_trace_dump(app_name(app), app_form_name(form), (wall_ms), (kernel_us), (call_ms), (wait_ms))
#define APP__HOOK_TRACE_TIMED 1
#define APP__HOOK_TRACE_COOP_BEGIN(stream) app_trace_event((stream), 0)
#define APP__HOOK_TRACE_COOP_END(stream) app_trace_event((stream), 1)
#endif
#if defined(APP_STEP_CALL) && APP_STEP_CALL && defined(__CUDACC__)
#define APP__HOOK_STEP_FN static __device__ __noinline__
#endif

#endif
