/*
 * Variants of the CUDA apps for measurement, never in a product build: scripts/gpu.sh builds
 * them with VARIANT_FLAGS="-include <this file> -DNAME=..." and the apps' hooks
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
#if defined(APP_STEP_CALL) && APP_STEP_CALL && defined(__CUDACC__)
#define APP__HOOK_STEP_FN static __device__ __noinline__
#endif

#endif
