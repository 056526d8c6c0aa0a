/*
 * The kernels behind wgsync's own tools on Vulkan (src/vulkan/vk_tools.c), one per WGS_TOOL:
 * 1 the §5.1 microbenchmark of Sorensen et al. 2016 (discovery, then one grid barrier), 2 the grid
 * barrier's message-passing self-test, 3 the latency loop: the same kernels as
 * device/common/wgs_tools.h and device/opencl/kernels/tools.cl, in GLSL. Bindings: 0 the state,
 * then the buffers; scalars in the push constants, in argument order.
 */
#version 460
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint WGS_LOCAL_WORDS = 1u; /* the microbenchmark's scratch */
#include "wgsync.glsl"

#define WGS_TOOLS_SCOPE gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed

#if WGS_TOOL == 1
layout(set = 0, binding = 1) queuefamilycoherent buffer Out { uint out_words[]; };
layout(push_constant) uniform Args { uint scratch_words; uint do_barrier; } args;
shared uint scratch[WGS_LOCAL_WORDS];
void main()
{
  wgs_env env;
  if (wgs_discover(env)) {
    uint words = min(args.scratch_words, WGS_LOCAL_WORDS);
    for (uint i = env.local_id; i < words; i += env.local_size)
      scratch[i] = i;
    barrier();
    if (env.local_id == 0u) {
      uint extra = words > 0u ? scratch[0] : 0u; /* 0: keeps the scratch live */
      out_words[2u * env.group_id] = gl_WorkGroupID.x;
      out_words[2u * env.group_id + 1u] = wgs_get_num_groups(env) + extra;
    }
    if (args.do_barrier != 0u)
      wgs_grid_barrier(env);
  }
}

#elif WGS_TOOL == 2
/* Round r: every work-item writes 4 values of (r, its global id) into buffer r % 2, passes a
 * grid barrier (or arrives, sums its own values, waits), and reads another group's work-item's
 * values of the same round. report[0] counts stale reads, report[1..6] the first, report[7]
 * the groups that finished every round. */
layout(set = 0, binding = 1) queuefamilycoherent buffer Data { uint data[]; };
layout(set = 0, binding = 2) queuefamilycoherent buffer Report { uint report[]; };
layout(push_constant) uniform Args { uint rounds; uint split; } args;
uint mp_value(uint round, uint gid, uint w)
{
  uint x = round * 0x9E3779B1u ^ gid * 0x85EBCA77u ^ (w + 1u) * 0xC2B2AE3Du;
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  return x;
}
void main()
{
  wgs_env env;
  if (wgs_discover(env)) {
    uint n = wgs_get_num_groups(env), lsize = env.local_size;
    uint gid = wgs_get_global_id(env), gsize = wgs_get_global_size(env), own = 0u;
    for (uint r = 0u; r < args.rounds; ++r) {
      uint buf = (r & 1u) * gsize * 4u;
      for (uint w = 0u; w < 4u; ++w)
        data[buf + gid * 4u + w] = mp_value(r, gid, w);
      if (args.split != 0u) {
        wgs_grid_arrive(env);
        for (uint w = 0u; w < 4u; ++w)
          own += data[buf + gid * 4u + w];
        wgs_grid_wait(env);
      } else {
        wgs_grid_barrier(env);
      }
      uint other = n > 1u ? (env.group_id + 1u + r % (n - 1u)) % n : 0u;
      uint src = other * lsize + (env.local_id + r) % lsize;
      for (uint w = 0u; w < 4u; ++w) {
        uint got = data[buf + src * 4u + w], want = mp_value(r, src, w);
        if (got != want && atomicAdd(report[0], 1u, WGS_TOOLS_SCOPE) == 0u) {
          report[1] = r;
          report[2] = gid;
          report[3] = src;
          report[4] = w;
          report[5] = want;
          report[6] = got;
        }
      }
    }
    if (env.local_id == 0u)
      atomicAdd(report[7], 1u, WGS_TOOLS_SCOPE);
    if (own == 0xFFFFFFFFu)
      report[8] = own; /* keeps the overlapped work live */
  }
}

#elif WGS_TOOL == 3
/* Bare grid barriers (or split arrive + wait at once), for latency. */
layout(set = 0, binding = 1) queuefamilycoherent buffer Sink { uint sink[]; };
layout(push_constant) uniform Args { uint rounds; uint split; } args;
void main()
{
  wgs_env env;
  if (wgs_discover(env)) {
    for (uint r = 0u; r < args.rounds; ++r) {
      if (args.split != 0u) {
        wgs_grid_arrive(env);
        wgs_grid_wait(env);
      } else {
        wgs_grid_barrier(env);
      }
    }
    if (env.local_id == 0u && env.group_id == 0u)
      sink[0] = env.instance;
  }
}

#elif WGS_TOOL == 4
/* The device clock's rate: one invocation stores it (the host reads it twice, a known time
 * apart). */
layout(set = 0, binding = 1) buffer Clock { uint64_t ticks; } clk;
void main()
{
  if (gl_LocalInvocationIndex == 0u && gl_WorkGroupID.x == 0u)
    clk.ticks = wgsi_timer();
}
#endif
