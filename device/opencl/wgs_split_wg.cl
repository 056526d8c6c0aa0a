/*
 * wgsync device library, part 4: the work-group split barrier of cl_intel_split_work_group_barrier
 * (seed 000) on every device. Where the compiler defines the extension, its built-ins are used
 * as they are; everywhere else these macros stand in, so kernels written against the extension
 * build and run unchanged.
 *
 * The polyfill is the conservative floor the seed allows:
 *   arrive(flags[, scope]) = a release fence over flags at scope (OpenCL 1.2: mem_fence, a full
 *                            fence: stronger, which is allowed);
 *   wait(flags[, scope])   = work_group_barrier(flags[, scope]): every work-item has executed
 *                            it, and it orders all accesses before it (so before the arrive)
 *                            with all after it, across the group.
 * Why this is never weaker than seed 000: arrive must be a release and wait an acquire such
 * that what a work-item did before arriving is visible to every work-item after waiting, for
 * the intersection of the two flags and the narrower scope. A full barrier at wait with the
 * wait's flags and scope covers the intersection (a subset of the wait's flags) at a scope at
 * least as wide as the narrower one. A regular barrier between arrive and wait stays valid.
 * It does not let work-items run ahead between arrive and wait beyond what a barrier allows: on
 * devices without a real split, that is the price; the semantics are the same.
 */
/*
 * A real split on NVIDIA (the ptx layer, sm_80+): a shared-memory mbarrier through inline PTX.
 * It needs per-work-group storage, so a kernel opts in with one line at its top:
 *
 *     __kernel void k(...) { WGS_WG_SPLIT_STORAGE; ... intel_work_group_barrier_arrive(...) ... }
 *
 * The line declares a __local block (the 8-byte mbarrier and one phase bit per work-item) and
 * initialises it (one work-item inits the mbarrier with the group's size, then a work-group
 * barrier). Kernels without the line get the polyfill below, unchanged, on every device; on
 * devices other than NVIDIA the line expands to nothing. How the two coexist: the macros test
 * wgs__wg_split_real, a program-scope constant 0 that the line shadows with a local 1, and pass
 * the storage to the asm as an integer shared-window address (the same cast works on the
 * program-scope fallback array), so the dead branch always compiles and is removed.
 *
 * Semantics (seed 000): arrive = mbarrier.arrive (release at CTA scope, PTX's default), wait =
 * spin on mbarrier.test_wait.parity (acquire at CTA scope) for the phase this work-item arrived
 * in. Release/acquire at CTA scope orders every memory access of the work-item (local and
 * global) for the other work-items of the group: at least the intersection of the flags at
 * work-group scope, which is all a 1.x kernel can ask. Every work-item arrives once per phase
 * (the seed's rule), so its k-th arrive is in phase k; the phase bit it keeps in local memory is
 * k's parity. A regular barrier between arrive and wait is fine: the mbarrier is independent
 * of bar.sync. Work-items really run ahead: a wait returns as soon as the last work-item of the
 * group has arrived, whatever they do in between.
 */
#if defined(WGS_LAYER_PTX) && !defined(cl_intel_split_work_group_barrier) && \
    !defined(WGS_NO_MBARRIER)
#define WGS__WG_SPLIT_LONGS 17u /* mbarrier (8 bytes, 8-byte aligned) + 1024 phase bits */
/* How a __local address reaches the asm, found on the H100 (driver 580.159.04, which emits
 * PTX .version 9.0 for .target sm_90): a __local pointer cast to an integer is the 32-bit
 * shared-window offset, so the .shared instruction forms take it with an "r" operand. The
 * generic forms with the same value crash the kernel (CL_INVALID_COMMAND_QUEUE). mbarrier
 * needs 8-byte alignment, hence the ulong block (a uint block also crashed). */
#define WGS__SS ".shared"
#define WGS__AC "r"
typedef uint wgs__addr;
#define WGS__ADDR(p) ((wgs__addr)(size_t)(p))
__constant ulong wgs__wg_split_mem[1] = {0u};
__constant int wgs__wg_split_real = 0;
#define WGS_WG_SPLIT_STORAGE                                                                  \
  __local ulong wgs__wg_split_mem[WGS__WG_SPLIT_LONGS];                                       \
  const int wgs__wg_split_real = 1;                                                           \
  wgs__wg_split_init(WGS__ADDR(wgs__wg_split_mem))
#define WGS__WG_LID                                                                           \
  ((uint)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2))))
void wgs__wg_split_init(wgs__addr bar)
{
  uint lid = WGS__WG_LID;
  uint n = (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));
  if (lid == 0u)
    asm volatile("mbarrier.init" WGS__SS ".b64 [%0], %1;" ::WGS__AC(bar), "r"(n) : "memory");
  if (lid < 32u) /* phase bits start at 0: every work-item's first arrive is in phase 0 */
    asm volatile("st" WGS__SS ".u32 [%0], 0;" ::WGS__AC(bar + 8u + 4u * lid) : "memory");
  barrier(CLK_LOCAL_MEM_FENCE);
}
void wgs__wg_split_arrive(wgs__addr bar)
{
  uint lid = WGS__WG_LID, bit = 1u << (lid & 31u), old;
  wgs__addr word = bar + 8u + 4u * (lid >> 5);
  ulong token; /* unused: the phase bit stands in for it (it would need private state) */
  asm volatile("atom" WGS__SS ".xor.b32 %0, [%1], %2;" : "=r"(old) : WGS__AC(word), "r"(bit) : "memory");
  asm volatile("mbarrier.arrive" WGS__SS ".b64 %0, [%1];" : "=l"(token) : WGS__AC(bar) : "memory");
}
void wgs__wg_split_wait(wgs__addr bar)
{
  uint lid = WGS__WG_LID, bits, done = 0u;
  wgs__addr word = bar + 8u + 4u * (lid >> 5);
  asm volatile("ld" WGS__SS ".u32 %0, [%1];" : "=r"(bits) : WGS__AC(word) : "memory");
  /* after k + 1 arrives the bit is (k + 1) & 1; the phase to wait for is k, parity k & 1 */
  uint parity = ((bits >> (lid & 31u)) & 1u) ^ 1u;
  while (!done)
    asm volatile("{ .reg .pred p; mbarrier.test_wait.parity" WGS__SS ".b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : WGS__AC(bar), "r"(parity) : "memory");
}
#define intel_work_group_barrier_arrive(flags)                                                \
  do {                                                                                        \
    if (wgs__wg_split_real)                                                                   \
      wgs__wg_split_arrive(WGS__ADDR(wgs__wg_split_mem));                                  \
    else                                                                                      \
      mem_fence((flags));                                                                     \
  } while (0)
#define intel_work_group_barrier_wait(flags)                                                  \
  do {                                                                                        \
    if (wgs__wg_split_real)                                                                   \
      wgs__wg_split_wait(WGS__ADDR(wgs__wg_split_mem));                                    \
    else                                                                                      \
      barrier((flags));                                                                       \
  } while (0)
#define WGS_SPLIT_WG_MBARRIER 1
#endif

#if !defined(WGS_WG_SPLIT_STORAGE)
#define WGS_WG_SPLIT_STORAGE do { } while (0) /* the polyfill needs no storage */
#endif

#if !defined(cl_intel_split_work_group_barrier) && !defined(WGS_SPLIT_WG_MBARRIER)
#if defined(__OPENCL_C_VERSION__) && __OPENCL_C_VERSION__ >= 200
/* Both overloads, told apart by argument count. */
#define WGS__WG_ARRIVE_1(flags) atomic_work_item_fence((flags), memory_order_release, memory_scope_work_group)
#define WGS__WG_ARRIVE_2(flags, scope) atomic_work_item_fence((flags), memory_order_release, (scope))
#define WGS__WG_WAIT_1(flags) work_group_barrier((flags))
#define WGS__WG_WAIT_2(flags, scope) work_group_barrier((flags), (scope))
#define WGS__PICK2(_1, _2, NAME, ...) NAME
#define intel_work_group_barrier_arrive(...) \
  WGS__PICK2(__VA_ARGS__, WGS__WG_ARRIVE_2, WGS__WG_ARRIVE_1, _)(__VA_ARGS__)
#define intel_work_group_barrier_wait(...) \
  WGS__PICK2(__VA_ARGS__, WGS__WG_WAIT_2, WGS__WG_WAIT_1, _)(__VA_ARGS__)
#else
/* OpenCL C 1.x has only the one-argument forms. Plain macros: NVIDIA's OpenCL compiler refused
 * every program (with an empty log) when the variadic dispatch above was used there. */
#define intel_work_group_barrier_arrive(flags) mem_fence((flags))
#define intel_work_group_barrier_wait(flags) barrier((flags))
#endif
#define WGS_SPLIT_WG_POLYFILL 1
#endif
