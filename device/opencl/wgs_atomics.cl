/*
 * wgsync device library, part 1: the atomics layer.
 *
 * Every cross-group access in wgsync goes through the few functions below, so that the memory
 * ordering the paper prescribes (Sorensen et al. 2016 §4.2: device-scope release stores, device-scope acquire
 * loads) is written once per platform:
 *
 *   WGS_LAYER_C11   OpenCL C 2.0 / 3.0 atomics (atomic_*_explicit with memory_scope_device).
 *                   Chosen where the device reports __opencl_c_atomic_order_acq_rel and
 *                   __opencl_c_atomic_scope_device (PoCL; build with -cl-std=CL3.0).
 *   WGS_LAYER_PTX   NVIDIA OpenCL (OpenCL C 1.2, no C11 atomics): PTX ld.acquire.gpu /
 *                   st.release.gpu and fence.acq_rel.gpu around the (relaxed, gpu-scope)
 *                   OpenCL 1.2 read-modify-writes, through asm volatile. The PTX memory model
 *                   makes "fence.acq_rel; strong relaxed write" a release pattern and "strong
 *                   relaxed read; fence.acq_rel" an acquire pattern, so these give the same
 *                   synchronises-with edges as the C11 layer.
 *   WGS_LAYER_FENCE Any other OpenCL 1.x device: OpenCL 1.2 atomics with mem_fence on each side.
 *                   OpenCL 1.2 gives no inter-work-group ordering guarantee, so this layer is
 *                   best effort (what Sorensen et al. 2016 §5 did for ARM); the host reports it as such.
 *
 * The host picks the layer from what the device reports and passes -D WGS_LAYER_*; a program
 * built without one picks by the feature macros below.
 */
#if !defined(WGS_LAYER_C11) && !defined(WGS_LAYER_PTX) && !defined(WGS_LAYER_FENCE)
#if defined(__OPENCL_C_VERSION__) && __OPENCL_C_VERSION__ >= 200 && \
    (__OPENCL_C_VERSION__ < 300 ||                                   \
     (defined(__opencl_c_atomic_order_acq_rel) && defined(__opencl_c_atomic_scope_device)))
#define WGS_LAYER_C11 1
#else
#define WGS_LAYER_FENCE 1
#endif
#endif

#define WGS_FN static inline

/* One kernel source for OpenCL C and CUDA (wgsync.cuh defines the same three): a kernel
 * written with them, wgsync's calls and the wgs_get_* ids compiles in both
 * (tests/kernels/portable.h). */
#define WGS_KERNEL __kernel
#define WGS_GLOBAL __global
typedef uint wgs_uint;

typedef __global volatile uint *wgs_word_ptr;

#if defined(WGS_LAYER_C11)
#define WGS__A(p) ((__global volatile atomic_uint *)(p))

WGS_FN uint wgs__ld_acq(wgs_word_ptr p)
{
  return atomic_load_explicit(WGS__A(p), memory_order_acquire, memory_scope_device);
}
WGS_FN uint wgs__ld_rlx(wgs_word_ptr p)
{
  return atomic_load_explicit(WGS__A(p), memory_order_relaxed, memory_scope_device);
}
WGS_FN void wgs__st_rel(wgs_word_ptr p, uint v)
{
  atomic_store_explicit(WGS__A(p), v, memory_order_release, memory_scope_device);
}
WGS_FN void wgs__st_rlx(wgs_word_ptr p, uint v)
{
  atomic_store_explicit(WGS__A(p), v, memory_order_relaxed, memory_scope_device);
}
WGS_FN uint wgs__add_rlx(wgs_word_ptr p, uint v)
{
  return atomic_fetch_add_explicit(WGS__A(p), v, memory_order_relaxed, memory_scope_device);
}
WGS_FN uint wgs__add_acqrel(wgs_word_ptr p, uint v)
{
  return atomic_fetch_add_explicit(WGS__A(p), v, memory_order_acq_rel, memory_scope_device);
}
WGS_FN void wgs__red_rel(wgs_word_ptr p, uint v) /* release add, result unused */
{
  (void)atomic_fetch_add_explicit(WGS__A(p), v, memory_order_release, memory_scope_device);
}
WGS_FN uint wgs__add_rel(wgs_word_ptr p, uint v)
{
  return atomic_fetch_add_explicit(WGS__A(p), v, memory_order_release, memory_scope_device);
}
WGS_FN void wgs__fence_acq_rel(void)
{
  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acq_rel, memory_scope_device);
}
WGS_FN uint wgs__xchg_acq(wgs_word_ptr p, uint v)
{
  return atomic_exchange_explicit(WGS__A(p), v, memory_order_acquire, memory_scope_device);
}
WGS_FN uint wgs__or_rlx(wgs_word_ptr p, uint v)
{
  return atomic_fetch_or_explicit(WGS__A(p), v, memory_order_relaxed, memory_scope_device);
}
WGS_FN uint wgs__min_rlx(wgs_word_ptr p, uint v)
{
  return atomic_fetch_min_explicit(WGS__A(p), v, memory_order_relaxed, memory_scope_device);
}
WGS_FN uint wgs__max_rlx(wgs_word_ptr p, uint v)
{
  return atomic_fetch_max_explicit(WGS__A(p), v, memory_order_relaxed, memory_scope_device);
}
WGS_FN uint wgs__cas_rlx(wgs_word_ptr p, uint expected, uint desired)
{
  atomic_compare_exchange_strong_explicit(WGS__A(p), &expected, desired, memory_order_relaxed,
                                          memory_order_relaxed, memory_scope_device);
  return expected; /* the value found: equals the argument iff the exchange happened */
}

#elif defined(WGS_LAYER_PTX)
/* Inline PTX (sm_70+). "memory" clobbers keep the compiler from moving ordinary accesses across. */
WGS_FN uint wgs__ld_acq(wgs_word_ptr p)
{
  uint v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
WGS_FN uint wgs__ld_rlx(wgs_word_ptr p)
{
  uint v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
WGS_FN void wgs__st_rel(wgs_word_ptr p, uint v)
{
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
WGS_FN void wgs__st_rlx(wgs_word_ptr p, uint v)
{
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
WGS_FN uint wgs__add_rlx(wgs_word_ptr p, uint v)
{
  return atomic_add(p, v); /* atom.global.add: relaxed at gpu scope by PTX default */
}
WGS_FN uint wgs__add_acqrel(wgs_word_ptr p, uint v)
{
  uint old;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
WGS_FN void wgs__red_rel(wgs_word_ptr p, uint v) /* release add, nothing returned to wait for */
{
  asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
WGS_FN uint wgs__add_rel(wgs_word_ptr p, uint v)
{
  uint old;
  asm volatile("atom.release.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
WGS_FN void wgs__fence_acq_rel(void) { asm volatile("fence.acq_rel.gpu;" ::: "memory"); }
WGS_FN uint wgs__xchg_acq(wgs_word_ptr p, uint v)
{
  uint old = atomic_xchg(p, v);
  asm volatile("fence.acq_rel.gpu;" ::: "memory"); /* relaxed RMW then fence: acquire pattern */
  return old;
}
WGS_FN uint wgs__cas_rlx(wgs_word_ptr p, uint expected, uint desired)
{
  return atomic_cmpxchg(p, expected, desired);
}
WGS_FN uint wgs__or_rlx(wgs_word_ptr p, uint v) { return atomic_or(p, v); }
WGS_FN uint wgs__min_rlx(wgs_word_ptr p, uint v) { return atomic_min(p, v); }
WGS_FN uint wgs__max_rlx(wgs_word_ptr p, uint v) { return atomic_max(p, v); }
#define WGS_HAS_TIMER 1
WGS_FN ulong wgs__timer_ns(void)
{
  ulong t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

#else /* WGS_LAYER_FENCE */
WGS_FN uint wgs__ld_acq(wgs_word_ptr p)
{
  uint v = atomic_or(p, 0u);
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  return v;
}
WGS_FN uint wgs__ld_rlx(wgs_word_ptr p) { return atomic_or(p, 0u); }
WGS_FN void wgs__st_rel(wgs_word_ptr p, uint v)
{
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  atomic_xchg(p, v);
}
WGS_FN void wgs__st_rlx(wgs_word_ptr p, uint v) { atomic_xchg(p, v); }
WGS_FN uint wgs__add_rlx(wgs_word_ptr p, uint v) { return atomic_add(p, v); }
WGS_FN uint wgs__add_acqrel(wgs_word_ptr p, uint v)
{
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  uint old = atomic_add(p, v);
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  return old;
}
WGS_FN void wgs__red_rel(wgs_word_ptr p, uint v)
{
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  (void)atomic_add(p, v);
}
WGS_FN uint wgs__add_rel(wgs_word_ptr p, uint v)
{
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  return atomic_add(p, v);
}
WGS_FN void wgs__fence_acq_rel(void) { mem_fence(CLK_GLOBAL_MEM_FENCE); }
WGS_FN uint wgs__xchg_acq(wgs_word_ptr p, uint v)
{
  uint old = atomic_xchg(p, v);
  mem_fence(CLK_GLOBAL_MEM_FENCE);
  return old;
}
WGS_FN uint wgs__cas_rlx(wgs_word_ptr p, uint expected, uint desired)
{
  return atomic_cmpxchg(p, expected, desired);
}
WGS_FN uint wgs__or_rlx(wgs_word_ptr p, uint v) { return atomic_or(p, v); }
WGS_FN uint wgs__min_rlx(wgs_word_ptr p, uint v) { return atomic_min(p, v); }
WGS_FN uint wgs__max_rlx(wgs_word_ptr p, uint v) { return atomic_max(p, v); }
#endif

#ifndef WGS_HAS_TIMER
#define WGS_HAS_TIMER 0
WGS_FN ulong wgs__timer_ns(void) { return 0; }
#endif

/* The rest of the layer device/common/wgs_core.h asks for (its head lists it). */
typedef ulong wgs__u64;
#define WGS_HAS_GRIDID 0 /* a second wgs_discover is told apart by a per-group call count */
#define WGS__ENV_STARTS_EMPTY 0 /* no struct defaults in C: wgs_discover fills the whole env */
#define WGS__INIT(v)
#define WGS_BARRIER_FN WGS_FN
/* A grid barrier's steps between its work-group barriers as calls (device/common/wgs_core.h,
 * WGS_PHASE_CALLS) on PoCL, whose predefined macro POCL_DEVICE_ADDRESS_BITS names it. */
#if defined(POCL_DEVICE_ADDRESS_BITS)
#define WGS_PHASE_CALLS 1
#else
#define WGS_PHASE_CALLS 0
#endif
#define wgs__mirror_put(s, word, v) ((void)0) /* OpenCL states have no host-mapped mirror */
#if defined(WGS_ND_RANGE) && WGS_ND_RANGE
/* The OpenCL layer (layer/) runs a user's own ND-range of 1 to 3 dimensions: the ids linearised,
 * x fastest, as OpenCL numbers work-items within a group and groups within the range. */
#define wgs__group_index() \
  ((unsigned)(get_group_id(0) + get_num_groups(0) * (get_group_id(1) + get_num_groups(1) * get_group_id(2))))
#define wgs__group_count() ((unsigned)(get_num_groups(0) * get_num_groups(1) * get_num_groups(2)))
#define wgs__local_index() \
  ((unsigned)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2))))
#define wgs__local_count() ((unsigned)(get_local_size(0) * get_local_size(1) * get_local_size(2)))
#else
#define wgs__group_index() ((unsigned)get_group_id(0))
#define wgs__group_count() ((unsigned)get_num_groups(0))
#define wgs__local_index() ((unsigned)get_local_id(0))
#define wgs__local_count() ((unsigned)get_local_size(0))
#endif
#define wgs__group_barrier() barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE)
/* A work-group barrier that also ORs a value over the group (wgs_grid_barrier_or's B1 and B3).
 * NVIDIA: bar.red.or.pred on barrier 0, the instruction CUDA's __syncthreads_or is, with the
 * same CTA-scope ordering as the bar.sync that OpenCL's barrier() is. Other devices: OpenCL 1.2
 * has no work-group reduction, so the core's fallback meets in global memory. */
#if defined(WGS_LAYER_PTX)
#define wgs__group_barrier_or(env, slot, v) wgs__bar_red_or(v)
WGS_FN uint wgs__bar_red_or(uint v)
{
  uint r;
  asm volatile("{\n\t.reg .pred p, q;\n\tsetp.ne.u32 p, %1, 0;\n\t"
               "bar.red.or.pred q, 0, p;\n\tselp.u32 %0, 1, 0, q;\n\t}"
               : "=r"(r)
               : "r"(v)
               : "memory");
  return r;
}
#endif
/* The grid reductions' work-group step (device/common/wgs_core.h, "grid reductions"), NVIDIA:
 * the CUDA library's (device/cuda/wgsync.cuh) in PTX: a tree of shfl.sync.down in each warp
 * (lanes past a partial warp's end left out), the warps' values in the group's words of the state
 * (an OpenCL C 1.2 function has no __local variables), warp 0's tree over them, its answer in
 * the state for the group: two work-group barriers, one order, so the same values give the same
 * bits launch after launch. Reuse as in CUDA: the next call writes the warps' words before its
 * first barrier, after warp 0 read them here before the second; the answer after its first. */
#if defined(WGS_LAYER_PTX)
WGS_FN uint wgs__red_op(uint kind, uint a, uint b);
WGS_FN uint wgs__ptx_shfl_down(uint x, uint d, uint mask)
{
  uint r;
  asm volatile("shfl.sync.down.b32 %0, %1, %2, 31, %3;" : "=r"(r) : "r"(x), "r"(d), "r"(mask));
  return r;
}
/* lanes: the warp's work-items (all run the shuffles); valid: those whose x counts */
WGS_FN uint wgs__ptx_warp_reduce(uint kind, uint x, uint lane, uint lanes, uint valid)
{
  uint mask = lanes >= 32u ? 0xffffffffu : (1u << lanes) - 1u;
  for (uint d = 16u; d > 0u; d >>= 1) {
    uint y = wgs__ptx_shfl_down(x, d, mask);
    if (lane + d < valid)
      x = wgs__red_op(kind, x, y);
  }
  return x;
}
WGS_FN uint wgs__ptx_group_reduce(wgs_word_ptr w, uint kind, uint x, uint lid, uint n)
{
  uint lane = lid & 31u, warp = lid >> 5, warps = (n + 31u) >> 5;
  uint here = n - (warp << 5) < 32u ? n - (warp << 5) : 32u;
  x = wgs__ptx_warp_reduce(kind, x, lane, here, here);
  if (lane == 0u)
    w[warp] = x;
  barrier(CLK_GLOBAL_MEM_FENCE);
  if (warp == 0u) {
    x = wgs__ptx_warp_reduce(kind, lane < warps ? w[lane] : 0u, lane, here, warps);
    if (lane == 0u)
      w[32] = x;
  }
  barrier(CLK_GLOBAL_MEM_FENCE);
  return w[32];
}
#define wgs__group_reduce(env, phase, kind, x) \
  wgs__ptx_group_reduce(wgs__red_scratch(env) + 4u, (kind), (x), (env)->local_id, (env)->local_size)
#define WGS__GROUP_REDUCE_ORDERED 1
#endif
/* Always the work-group barrier, in every group: PoCL 3.1 cannot form parallel regions around a
 * barrier under a condition it cannot prove uniform (its compiler asserted). */
#define WGS__JOIN(env, part, full) wgs__group_barrier()
/* Representatives other than the combiner's poll after the join (NVIDIA H200, OpenCL, 1056 x 256:
 * 1.67 us per counter barrier, against 1.89 polling before it). */
#ifndef WGS_REPS_POLL_AFTER_JOIN
#define WGS_REPS_POLL_AFTER_JOIN 1
#endif
#define wgs__log2(x) (31u - clz(x))
#define wgs__f2u(f) as_uint(f)
#define wgs__u2f(u) as_float(u)
#define wgs__pause_ns(ns) ((void)0)
