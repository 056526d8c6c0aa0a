/*
 * The work-group split barrier (cl_intel_split_work_group_barrier), written against the extension's built-ins. Each
 * kernel counts wrong reads in bad[0]. WG_SIZE is the work-group size (a build-time -D).
 * Built twice: as is (the polyfill) and with -D STORAGE, which adds wgsync's one storage line
 * (a real mbarrier split on NVIDIA; nothing elsewhere).
 */
#ifdef STORAGE
#define SPLIT_STORAGE WGS_WG_SPLIT_STORAGE
#else
#define SPLIT_STORAGE do { } while (0)
#endif

/* Visibility in a loop (phase reuse): write local[lid], arrive, independent work, wait, read a
 * neighbour; a regular barrier separates the read from the next round's write. */
__kernel void visibility(__global uint *bad, __global uint *sink, uint rounds)
{
  __local uint buf[WG_SIZE];
  SPLIT_STORAGE;
  uint lid = get_local_id(0), acc = 0;
  for (uint r = 0; r < rounds; ++r) {
    buf[lid] = r * 1000u + lid;
    intel_work_group_barrier_arrive(CLK_LOCAL_MEM_FENCE);
    for (uint i = 0; i < (lid % 7u) * 50u; ++i) /* skew: some work-items work longer */
      acc = acc * 1664525u + 1013904223u;
    intel_work_group_barrier_wait(CLK_LOCAL_MEM_FENCE);
    uint nb = (lid + 1u + r) % WG_SIZE;
    if (buf[nb] != r * 1000u + nb)
      atomic_inc(&bad[0]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  sink[get_global_id(0)] = acc;
}

/* Global memory flags, a regular barrier between arrive and wait, and mismatched flags (the
 * intersection, global, must be ordered). */
__kernel void global_flags(__global uint *bad, __global uint *data, uint rounds)
{
  SPLIT_STORAGE;
  uint lid = get_local_id(0), base = get_group_id(0) * WG_SIZE;
  for (uint r = 0; r < rounds; ++r) {
    data[base + lid] = r + lid;
    if (r % 2u == 0u) {
      intel_work_group_barrier_arrive(CLK_GLOBAL_MEM_FENCE);
      barrier(CLK_LOCAL_MEM_FENCE); /* a regular barrier in between is allowed */
      intel_work_group_barrier_wait(CLK_GLOBAL_MEM_FENCE);
    } else {
      intel_work_group_barrier_arrive(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
      intel_work_group_barrier_wait(CLK_GLOBAL_MEM_FENCE);
    }
    uint nb = (lid + 3u) % WG_SIZE;
    if (data[base + nb] != r + nb)
      atomic_inc(&bad[0]);
    barrier(CLK_GLOBAL_MEM_FENCE);
  }
}

#if defined(__OPENCL_C_VERSION__) && __OPENCL_C_VERSION__ >= 200
/* The OpenCL C 2.0 overloads with a memory_scope (different scopes: the narrower applies). */
__kernel void scoped(__global uint *bad, __global uint *data, uint rounds)
{
  __local uint buf[WG_SIZE];
  SPLIT_STORAGE;
  uint lid = get_local_id(0), base = get_group_id(0) * WG_SIZE;
  for (uint r = 0; r < rounds; ++r) {
    buf[lid] = r ^ lid;
    data[base + lid] = r + 7u * lid;
    intel_work_group_barrier_arrive(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE, memory_scope_device);
    intel_work_group_barrier_wait(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE, memory_scope_work_group);
    uint nb = (lid + 5u) % WG_SIZE;
    if (buf[nb] != (r ^ nb) || data[base + nb] != r + 7u * nb)
      atomic_inc(&bad[0]);
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  }
}
#endif

/* Non-uniform work-groups (OpenCL 2.0+): the last group is smaller. Everything uses the actual
 * get_local_size, so the split must count only the work-items that exist. */
__kernel void nonuniform(__global uint *bad, __global uint *data, uint rounds)
{
  __local uint buf[WG_SIZE];
  SPLIT_STORAGE;
  uint lid = get_local_id(0), n = get_local_size(0);
  for (uint r = 0; r < rounds; ++r) {
    buf[lid] = r * 3u + lid;
    intel_work_group_barrier_arrive(CLK_LOCAL_MEM_FENCE);
    intel_work_group_barrier_wait(CLK_LOCAL_MEM_FENCE);
    uint nb = (lid + 1u + r) % n;
    if (buf[nb] != r * 3u + nb)
      atomic_inc(&bad[0]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0u)
    atomic_add(&bad[1], n); /* the host checks the sizes it launched */
}
