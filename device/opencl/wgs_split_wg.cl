/*
 * wgsync device library, part 4: the work-group split barrier of cl_intel_split_work_group_barrier
 * (cl_intel_split_work_group_barrier) on every device. Where the compiler defines the extension, its built-ins are used
 * as they are; everywhere else these macros stand in, so kernels written against the extension
 * build and run unchanged.
 *
 * The polyfill is the conservative floor the seed allows:
 *   arrive(flags[, scope]) = a release fence over flags at scope (OpenCL 1.2: mem_fence, a full
 *                            fence: stronger, which is allowed);
 *   wait(flags[, scope])   = work_group_barrier(flags[, scope]): every work-item has executed
 *                            it, and it orders all accesses before it (so before the arrive)
 *                            with all after it, across the group.
 * Why this is never weaker than cl_intel_split_work_group_barrier: arrive must be a release and wait an acquire such
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
 * Semantics (cl_intel_split_work_group_barrier): arrive = mbarrier.arrive (release at CTA scope, PTX's default), wait =
 * spin on mbarrier.test_wait.parity (acquire at CTA scope) for the phase this work-item arrived
 * in. Release/acquire at CTA scope orders every memory access of the work-item (local and
 * global) for the other work-items of the group: at least the intersection of the flags at
 * work-group scope, which is all a 1.x kernel can ask. Every work-item arrives once per phase
 * (the seed's rule), so its k-th arrive is in phase k; the phase bit it keeps in local memory is
 * k's parity. A regular barrier between arrive and wait is fine: the mbarrier is independent
 * of bar.sync. Work-items really run ahead: a wait returns as soon as the last work-item of the
 * group has arrived, whatever they do in between.
 */
/*
 * Checked builds (WGS_BUILD_CHECKED) with the storage line, on every device: undefined
 * behaviour of cl_intel_split_work_group_barrier is reported with printf instead of hanging or passing silently. Each
 * work-item keeps a state word in the block (arrived, the parity of its arrives, the flags and
 * scope it passed); work-item 0 also publishes its flags per phase parity. Reported, once per
 * group, naming the line, the work-item and the group:
 *   - a wait without an arrive, and two arrives without a wait (cl_intel_split_work_group_barrier: UB);
 *   - work-items that passed different flags or scope to the same arrive (cl_intel_split_work_group_barrier: UB),
 *     compared after the wait with work-item 0's, double-buffered by phase so that a work-item
 *     running ahead cannot overwrite what a slower one still compares with;
 *   - NVIDIA: a wait that spins more than 2 s (some work-items never arrived), then gives up.
 * Where the polyfill's wait is a barrier, a barrier that some work-items never reach is the
 * device's own undefined behaviour and cannot be seen from here.
 */
#if !defined(cl_intel_split_work_group_barrier) && !defined(WGS_NO_MBARRIER) && \
    (defined(WGS_LAYER_PTX) || (defined(WGS_CHECKED) && WGS_CHECKED))
#if defined(WGS_LAYER_PTX)
#define WGS__WG_MBAR 1 /* a real split */
#endif
#if defined(WGS_CHECKED) && WGS_CHECKED
#define WGS__WG_CHECK 1
#define WGS__WG_SPLIT_LONGS 516u /* mbarrier, flags of work-item 0 per parity, reported, 1024 states */
#else
#define WGS__WG_SPLIT_LONGS 17u  /* mbarrier (8 bytes, 8-byte aligned) + 1024 phase bits */
#endif
/* Word offsets in the block (after the 8-byte mbarrier). */
#define WGS__WGB_BITS 2u     /* unchecked: phase bits, one per work-item */
#define WGS__WGB_FLAGS0 2u   /* checked: work-item 0's flags|scope << 8 for parity 0 and 1 */
#define WGS__WGB_REPORTED 4u /* checked: 1 once this group has reported */
#define WGS__WGB_STATE 8u    /* checked: one state word per work-item */
#define WGS__WGS_ARRIVED 0x80000000u
#define WGS__WGS_PARITY 0x40000000u
#define WGS__WGS_FLAGS 0x0000ffffu
/* How a __local address reaches the asm, found on the H100 (driver 580.159.04, which emits
 * PTX .version 9.0 for .target sm_90): a __local pointer cast to an integer is the 32-bit
 * shared-window offset, so the .shared instruction forms take it with an "r" operand. The
 * generic forms with the same value crash the kernel (CL_INVALID_COMMAND_QUEUE). mbarrier
 * needs 8-byte alignment, hence the ulong block (a uint block also crashed). Elsewhere the
 * integer is cast back to a __local pointer. */
typedef size_t wgs__addr;
#define WGS__ADDR(p) ((wgs__addr)(p))
#define WGS__LW(a, i) (((__local uint *)(a))[(i)])
__constant ulong wgs__wg_split_mem[1] = {0u};
__constant int wgs__wg_split_real = 0;
#define WGS_WG_SPLIT_STORAGE                                                                  \
  __local ulong wgs__wg_split_mem[WGS__WG_SPLIT_LONGS];                                       \
  const int wgs__wg_split_real = 1;                                                           \
  wgs__wg_split_init(WGS__ADDR(wgs__wg_split_mem))
#define WGS__WG_LID                                                                           \
  ((uint)(get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2))))
#define WGS__WG_GROUP                                                                         \
  ((uint)(get_group_id(0) + get_num_groups(0) * (get_group_id(1) + get_num_groups(1) * get_group_id(2))))

void wgs__wg_split_init(wgs__addr bar)
{
  uint lid = WGS__WG_LID;
  uint n = (uint)(get_local_size(0) * get_local_size(1) * get_local_size(2));
#if defined(WGS__WG_MBAR)
  if (lid == 0u)
    asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"((uint)bar), "r"(n) : "memory");
#endif
#if defined(WGS__WG_CHECK)
  WGS__LW(bar, WGS__WGB_STATE + lid) = 0u;
  if (lid < 6u)
    WGS__LW(bar, WGS__WGB_FLAGS0 + lid) = 0u;
#else
  if (lid < 32u) /* phase bits start at 0: every work-item's first arrive is in phase 0 */
    WGS__LW(bar, WGS__WGB_BITS + lid) = 0u;
#endif
  barrier(CLK_LOCAL_MEM_FENCE);
}

#if defined(WGS__WG_CHECK)
/* One report per group: the first work-item to find misuse prints it. Each kind has its own
 * literal format (OpenCL's printf takes %s only for literals). */
#define WGS__WGE_TWICE 0u
#define WGS__WGE_NO_ARRIVE 1u
#define WGS__WGE_FLAGS 2u
#define WGS__WGE_STUCK 3u
void wgs__wg_report(wgs__addr bar, uint line, uint kind, uint lid, uint a, uint b)
{
  if (atomic_xchg(&WGS__LW(bar, WGS__WGB_REPORTED), 1u) != 0u)
    return;
  uint g = WGS__WG_GROUP;
  if (kind == WGS__WGE_TWICE)
    printf("wgsync: work-group split barrier at line %u: work-item %u of group %u arrived twice "
           "without a wait (flags 0x%x, then 0x%x)\n", line, lid, g, a, b);
  else if (kind == WGS__WGE_NO_ARRIVE)
    printf("wgsync: work-group split barrier at line %u: work-item %u of group %u waited without "
           "arriving\n", line, lid, g);
  else if (kind == WGS__WGE_FLAGS)
    printf("wgsync: work-group split barrier before line %u: work-item %u of group %u passed "
           "flags/scope 0x%x to arrive, work-item 0 passed 0x%x (all must pass the same)\n",
           line, lid, g, a, b);
  else
    printf("wgsync: work-group split barrier at line %u: work-item %u of group %u waited 2 s for "
           "phase parity %u: some work-items of the group never arrived\n", line, lid, g, a);
}
#endif

/* Checked builds skip a second arrive (it would complete a phase early). */
void wgs__wg_split_arrive(wgs__addr bar, uint flags, uint line)
{
  uint lid = WGS__WG_LID, parity;
#if defined(WGS__WG_CHECK)
  uint st = WGS__LW(bar, WGS__WGB_STATE + lid);
  if (st & WGS__WGS_ARRIVED) {
    wgs__wg_report(bar, line, WGS__WGE_TWICE, lid, st & WGS__WGS_FLAGS, flags);
    return;
  }
  parity = (st & WGS__WGS_PARITY) ? 1u : 0u;
  if (lid == 0u)
    WGS__LW(bar, WGS__WGB_FLAGS0 + parity) = flags;
  WGS__LW(bar, WGS__WGB_STATE + lid) = WGS__WGS_ARRIVED | (parity ? 0u : WGS__WGS_PARITY) | (flags & WGS__WGS_FLAGS);
#else
  uint word = WGS__WGB_BITS + (lid >> 5), old;
  parity = 0u;
  old = atomic_xor(&WGS__LW(bar, word), 1u << (lid & 31u));
#endif
#if defined(WGS__WG_MBAR)
  ulong token; /* unused: the phase parity stands in for it (it would need private state) */
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(token) : "r"((uint)bar) : "memory");
#endif
}

/* NVIDIA: waits on the mbarrier. Elsewhere the caller's barrier that follows is the wait. */
void wgs__wg_split_wait_begin(wgs__addr bar, uint line, uint *parity_out)
{
  uint lid = WGS__WG_LID;
#if defined(WGS__WG_CHECK)
  uint st = WGS__LW(bar, WGS__WGB_STATE + lid);
  if (!(st & WGS__WGS_ARRIVED)) {
    wgs__wg_report(bar, line, WGS__WGE_NO_ARRIVE, lid, st, 0u);
    *parity_out = 2u; /* nothing to wait for or to compare */
    return;
  }
  /* the parity bit already names the next phase; this wait is for the previous one */
  uint parity = (st & WGS__WGS_PARITY) ? 0u : 1u;
#else
  uint bits = WGS__LW(bar, WGS__WGB_BITS + (lid >> 5));
  /* after k + 1 arrives the bit is (k + 1) & 1; the phase to wait for is k, parity k & 1 */
  uint parity = ((bits >> (lid & 31u)) & 1u) ^ 1u;
#endif
  *parity_out = parity;
#if defined(WGS__WG_MBAR)
  uint done = 0u;
#if defined(WGS__WG_CHECK)
  ulong t0 = wgs__timer_ns();
#endif
  while (!done) {
    asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done) : "r"((uint)bar), "r"(parity) : "memory");
#if defined(WGS__WG_CHECK)
    if (!done && wgs__timer_ns() - t0 > 2000000000ul) {
      wgs__wg_report(bar, line, WGS__WGE_STUCK, lid, parity, 0u);
      break;
    }
#endif
  }
#endif
}

void wgs__wg_split_wait_end(wgs__addr bar, uint line, uint parity)
{
#if defined(WGS__WG_CHECK)
  uint lid = WGS__WG_LID;
  if (parity < 2u) {
    uint st = WGS__LW(bar, WGS__WGB_STATE + lid), mine = st & WGS__WGS_FLAGS;
    uint first = WGS__LW(bar, WGS__WGB_FLAGS0 + parity);
    if (mine != first)
      wgs__wg_report(bar, line, WGS__WGE_FLAGS, lid, mine, first);
    WGS__LW(bar, WGS__WGB_STATE + lid) = st & ~WGS__WGS_ARRIVED;
  }
#endif
}

/* The built-ins: the storage line's block when the kernel has one, the polyfill otherwise.
 * Without an mbarrier the wait's barrier runs unconditionally (PoCL must see every barrier
 * outside any condition it cannot prove uniform); the checks sit around it. */
#if defined(WGS__WG_MBAR)
#define WGS__WG_ARRIVE(key, fence)                                                            \
  do {                                                                                        \
    if (!wgs__wg_split_real)                                                                  \
      fence;                                                                                  \
    else                                                                                      \
      wgs__wg_split_arrive(WGS__ADDR(wgs__wg_split_mem), (key), (uint)__LINE__);             \
  } while (0)
#define WGS__WG_WAIT(bar)                                                                     \
  do {                                                                                        \
    if (!wgs__wg_split_real) {                                                                \
      bar;                                                                                    \
    } else {                                                                                  \
      uint wgs__par;                                                                          \
      wgs__wg_split_wait_begin(WGS__ADDR(wgs__wg_split_mem), (uint)__LINE__, &wgs__par);      \
      wgs__wg_split_wait_end(WGS__ADDR(wgs__wg_split_mem), (uint)__LINE__, wgs__par);         \
    }                                                                                         \
  } while (0)
#else
#define WGS__WG_ARRIVE(key, fence)                                                            \
  do {                                                                                        \
    if (wgs__wg_split_real)                                                                   \
      wgs__wg_split_arrive(WGS__ADDR(wgs__wg_split_mem), (key), (uint)__LINE__);             \
    fence;                                                                                    \
  } while (0)
#define WGS__WG_WAIT(bar)                                                                     \
  do {                                                                                        \
    uint wgs__par = 2u;                                                                       \
    if (wgs__wg_split_real)                                                                   \
      wgs__wg_split_wait_begin(WGS__ADDR(wgs__wg_split_mem), (uint)__LINE__, &wgs__par);      \
    bar;                                                                                      \
    if (wgs__wg_split_real)                                                                   \
      wgs__wg_split_wait_end(WGS__ADDR(wgs__wg_split_mem), (uint)__LINE__, wgs__par);         \
  } while (0)
#endif
#if defined(__OPENCL_C_VERSION__) && __OPENCL_C_VERSION__ >= 200
#define WGS__WG_ARRIVE_1(f) WGS__WG_ARRIVE((uint)(f) | ((uint)memory_scope_work_group << 8), \
  atomic_work_item_fence((f), memory_order_release, memory_scope_work_group))
#define WGS__WG_ARRIVE_2(f, sc) WGS__WG_ARRIVE((uint)(f) | ((uint)(sc) << 8),                  \
  atomic_work_item_fence((f), memory_order_release, (sc)))
#define WGS__WG_WAIT_1(f) WGS__WG_WAIT(work_group_barrier((f)))
#define WGS__WG_WAIT_2(f, sc) WGS__WG_WAIT(work_group_barrier((f), (sc)))
#define WGS__PICK2(_1, _2, NAME, ...) NAME
#define intel_work_group_barrier_arrive(...) \
  WGS__PICK2(__VA_ARGS__, WGS__WG_ARRIVE_2, WGS__WG_ARRIVE_1, _)(__VA_ARGS__)
#define intel_work_group_barrier_wait(...) \
  WGS__PICK2(__VA_ARGS__, WGS__WG_WAIT_2, WGS__WG_WAIT_1, _)(__VA_ARGS__)
#else
/* OpenCL C 1.x (NVIDIA): one-argument forms only, plain macros (see the polyfill below). */
#define intel_work_group_barrier_arrive(f) WGS__WG_ARRIVE((uint)(f), mem_fence((f)))
#define intel_work_group_barrier_wait(f) WGS__WG_WAIT(barrier((f)))
#endif
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
