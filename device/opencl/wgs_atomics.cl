/*
 * wgsync device library, part 1: the atomics layer.
 *
 * Every cross-group access in wgsync goes through the few functions below, so that the memory
 * ordering the paper prescribes (seed 003 §4.2: device-scope release stores, device-scope acquire
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
 *                   best effort (what seed 003 §5 did for ARM); the host reports it as such.
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
WGS_FN uint wgs__xchg_acq(wgs_word_ptr p, uint v)
{
  return atomic_exchange_explicit(WGS__A(p), v, memory_order_acquire, memory_scope_device);
}
WGS_FN uint wgs__or_rlx(wgs_word_ptr p, uint v)
{
  return atomic_fetch_or_explicit(WGS__A(p), v, memory_order_relaxed, memory_scope_device);
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
#endif

#ifndef WGS_HAS_TIMER
#define WGS_HAS_TIMER 0
WGS_FN ulong wgs__timer_ns(void) { return 0; }
#endif

/* The state: s points at the half of the running launch (device/common/wgs_layout.h); its
 * line 0 holds the distance back to the state's base, where the config and the error report
 * live. */
WGS_FN wgs_word_ptr wgs__glob(wgs_word_ptr s) { return s - s[WGS_W_BACK]; }
WGS_FN uint wgs__cfg(wgs_word_ptr s, uint word) { return wgs__glob(s)[WGS_G_CONFIG + word]; }

/*
 * Bounded spinning (checked builds: undefined behaviour made visible, never a hang).
 * wgs__spin_gave_up returns 0 to go on spinning, WGS__TIMED_OUT when this spin ran past the
 * host's limit (nanoseconds where the device has a timer, iterations otherwise) and won the
 * right to report (the caller writes the report, then calls wgs__abort_done), WGS__ABORTED once
 * the report is written. A spin past its limit that lost the race keeps spinning until then. Callers leave
 * their loop with `break` and still reach every work-group barrier that follows, never `return`:
 * on PoCL an early return before a barrier can hang the work-group (seed 004).
 * Unchecked builds compile the check away.
 */
typedef struct {
  ulong start;
  ulong iters;
} wgs__spin;

WGS_FN void wgs__spin_init(wgs__spin *sp)
{
  sp->iters = 0;
  sp->start = WGS_HAS_TIMER ? wgs__timer_ns() : 0;
}

#define WGS__TIMED_OUT 1
#define WGS__ABORTED 2

#if defined(WGS_CHECKED) && WGS_CHECKED
WGS_FN int wgs__spin_gave_up(wgs_word_ptr s, wgs__spin *sp)
{
  uint state = wgs__ld_rlx(&s[WGS_W_ABORT]);
  if (state == WGS_ABORT_DONE)
    return WGS__ABORTED;
  ulong limit = ((ulong)wgs__cfg(s, WGS_CFG_LIMIT_HI) << 32) | (ulong)wgs__cfg(s, WGS_CFG_LIMIT_LO);
  sp->iters++;
  ulong used = sp->iters;
  if (WGS_HAS_TIMER) {
    if ((sp->iters & 255u) != 0u)
      return 0;
    used = wgs__timer_ns() - sp->start;
  }
  if (used <= limit || state != WGS_ABORT_RUNNING)
    return 0;
  if (wgs__cas_rlx(&s[WGS_W_ABORT], WGS_ABORT_RUNNING, WGS_ABORT_REPORTING) != WGS_ABORT_RUNNING)
    return 0; /* another spin reports; wait for it */
  return WGS__TIMED_OUT;
}
#else
#define wgs__spin_gave_up(s, sp) 0
#endif

/* Release: the report written before this is complete when the others leave. */
WGS_FN void wgs__abort_done(wgs_word_ptr s) { wgs__st_rel(&s[WGS_W_ABORT], WGS_ABORT_DONE); }
