/*
 * Misuse of the work-group split barrier (cl_intel_split_work_group_barrier: undefined behaviour), built checked with
 * the storage line: each kernel must end (no hang) and print wgsync's report of that misuse.
 * Work-item 5 misbehaves; the rest use the barrier correctly.
 */
__kernel void wait_before_arrive(__global uint *out)
{
  WGS_WG_SPLIT_STORAGE;
  uint lid = get_local_id(0);
  if (lid != 5u)
    intel_work_group_barrier_arrive(CLK_LOCAL_MEM_FENCE);
  intel_work_group_barrier_wait(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = lid;
}

__kernel void arrive_twice(__global uint *out)
{
  WGS_WG_SPLIT_STORAGE;
  uint lid = get_local_id(0);
  intel_work_group_barrier_arrive(CLK_LOCAL_MEM_FENCE);
  if (lid == 5u)
    intel_work_group_barrier_arrive(CLK_LOCAL_MEM_FENCE);
  intel_work_group_barrier_wait(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = lid;
}

__kernel void different_flags(__global uint *out)
{
  WGS_WG_SPLIT_STORAGE;
  uint lid = get_local_id(0);
  if (lid == 5u)
    intel_work_group_barrier_arrive(CLK_GLOBAL_MEM_FENCE);
  else
    intel_work_group_barrier_arrive(CLK_LOCAL_MEM_FENCE);
  intel_work_group_barrier_wait(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = lid;
}

/* Correct use, many rounds: a checked build must report nothing. */
__kernel void correct(__global uint *out)
{
  WGS_WG_SPLIT_STORAGE;
  uint lid = get_local_id(0);
  for (uint r = 0; r < 100u; ++r) {
    intel_work_group_barrier_arrive(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    intel_work_group_barrier_wait(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  }
  out[get_global_id(0)] = lid;
}
