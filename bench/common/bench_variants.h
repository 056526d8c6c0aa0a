/*
 * Variants of the counter barrier for measurement, never in the library: a bench program
 * includes this before wgsync.cuh, with the variant's macro set by its build (bench/CMakeLists.txt),
 * and the device library's hooks (device/common/wgs_core.h, "Measurement hooks") take them.
 *
 * Seeded weakenings, which bench_litmus.cu must catch (bench/results/h100-litmus-2026-11-23):
 *   WGS_MUTATE=1  the waiters' acquire loads relaxed;
 *   WGS_MUTATE=2  the arrivals' and the combiner's release operations relaxed.
 *
 * Designs of the wait that were measured and lost (bench_shards.cu as wgsync-bench-shards-vN;
 * bench/results/h200-counter-2026-11-23; the acq_rel arrival, design 1, is what ships from the
 * tuning's atom_min groups on):
 *   WGS_COUNTER_VARIANT=2  every poll backed off (a sleep, 32 ns doubling to 256 ns): slower at
 *                          every count measured (0.03-0.45 us at 264-1056 groups, unsharded and
 *                          sharded);
 *   WGS_COUNTER_VARIANT=3  the waiting arrival first sleeps 1 ns per arrival still missing (the
 *                          rate one line absorbs them): 0.05-0.09 us faster at 792 groups, 0.07
 *                          slower at 66-132, otherwise even; it depends on a rate that is the
 *                          device's, so it is not shipped.
 *   WGS_COUNTER_VARIANT=4  the wait's acquire as a fence (PTX fence.acq_rel.gpu) after the
 *                          relaxed poll that saw the count, instead of one more load with
 *                          acquire: the PTX model's acquire pattern (a strong read, then a
 *                          fence), one round trip fewer per waiting level.
 */
#ifndef WGS_BENCH_VARIANTS_H
#define WGS_BENCH_VARIANTS_H

#ifndef WGS_MUTATE
#define WGS_MUTATE 0
#endif
#ifndef WGS_COUNTER_VARIANT
#define WGS_COUNTER_VARIANT 0
#endif

#if WGS_MUTATE == 1
#define WGS__HOOK_WAIT_LD_ACQ(p) wgs__ld_rlx(p)
#elif WGS_MUTATE == 2
#define WGS__HOOK_ARRIVE_ST_REL(p, v) wgs__st_rlx((p), (v))
#define WGS__HOOK_ARRIVE_ADD_REL(p, v) ((void)wgs__add_rlx((p), (v)))
#endif

#if WGS_COUNTER_VARIANT == 4
static __device__ __forceinline__ unsigned wgs_bench_fence_acquire(const unsigned *)
{
  asm volatile("fence.acq_rel.gpu;" ::: "memory");
  return 0u;
}
#define WGS__HOOK_WAIT_LD_ACQ(p) wgs_bench_fence_acquire(p)
#endif
#if WGS_COUNTER_VARIANT == 2
#define WGS__HOOK_POLL_MISSED(k) wgs__pause_ns(32u << ((k) < 3u ? (k) : 3u))
#elif WGS_COUNTER_VARIANT == 3
#define WGS__HOOK_ARRIVED_SHORT(missing) wgs__pause_ns(missing)
#endif

#endif
