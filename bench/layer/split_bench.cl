/*
 * What the work-group split barrier buys on OpenCL (cl_intel_split_work_group_barrier's use case), the same load as the
 * CUDA benchmark: per round, 32-work-item slices alternate heavy (3W) and light (W) work before
 * the barrier and the opposite after it. With a barrier: time ~ 3W + 3W. With a real split
 * (arrive, the second half, wait): ~ W + 3W, an ideal 1.5x. Reads after the barrier check data.
 * -D PLAIN: barrier(); otherwise intel_work_group_barrier_arrive/wait; -D WITH_STORAGE adds the
 * one line that gives NVIDIA a real split (mbarrier).
 */
float busy(float x, uint n)
{
  for (uint i = 0; i < n; ++i)
    x = mad(x, 1.0001f, 0.5f);
  return x;
}

__kernel void imbalance(uint rounds, uint work, __global float *sink, __global uint *bad)
{
  __local float buf[1024];
#ifdef WITH_STORAGE
  WGS_WG_SPLIT_STORAGE;
#endif
  uint lid = get_local_id(0), n = get_local_size(0), heavy = (lid / 32u) & 1u;
  float x = (float)lid;
  for (uint r = 0; r < rounds; ++r) {
    x = busy(x, heavy ? 3u * work : work);
    buf[lid] = (float)(r + lid);
#ifdef PLAIN
    barrier(CLK_LOCAL_MEM_FENCE);
    x = busy(x, heavy ? work : 3u * work);
#else
    intel_work_group_barrier_arrive(CLK_LOCAL_MEM_FENCE);
    x = busy(x, heavy ? work : 3u * work); /* independent of the other work-items' data */
    intel_work_group_barrier_wait(CLK_LOCAL_MEM_FENCE);
#endif
    uint nb = (lid + 33u) % n;
    if (buf[nb] != (float)(r + nb))
      atomic_inc(bad);
    barrier(CLK_LOCAL_MEM_FENCE); /* the next round rewrites buf */
  }
  if (x == 12345.0f)
    sink[0] = x;
}
