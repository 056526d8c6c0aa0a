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
#if !defined(cl_intel_split_work_group_barrier)
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
