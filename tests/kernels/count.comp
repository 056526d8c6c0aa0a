/* The one launch API's case on a Vulkan device (tests/test_backends.c): every participating
 * group counts itself once per round, with a grid barrier between rounds; group 0 records the
 * participants, and four OR barriers their answers. With skip (push constant 2) set,
 * participant 1 leaves before the barrier of round `skip - 1`: a checked build must report the
 * barrier, naming group 1 as missing. Written as a user writes one (README, "Vulkan"). */
#version 460
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "wgsync.glsl"

layout(set = 0, binding = 1) queuefamilycoherent buffer Out { uint out_words[]; };
layout(push_constant) uniform Args { uint rounds; uint skip; } args;

void main()
{
  wgs_env env;
  if (wgs_discover(env)) {
    for (uint r = 0u; r < args.rounds; ++r) {
      if (env.local_id == 0u)
        atomicAdd(out_words[0], 1u, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
      if (args.skip != 0u && r == args.skip - 1u && env.group_id == 1u)
        return; /* the missed barrier */
      wgs_grid_barrier(env);
    }
    if (env.local_id == 0u && env.group_id == 0u)
      out_words[1] = env.num_groups;
    /* wgs_grid_barrier_or tests v != 0 for a uint, an int or a float as for a bool: one
     * work-item of group 0 passes 2u, -3, 0.5; then 0 everywhere; the last group records */
    bool first = env.group_id == 0u;
    bool a = wgs_grid_barrier_or(env, first && env.local_id == 0u ? 2u : 0u);
    bool b = wgs_grid_barrier_or(env, first && env.local_id == 1u ? -3 : 0);
    bool c = wgs_grid_barrier_or(env, first && env.local_id == 2u ? 0.5 : 0.0);
    bool d = wgs_grid_barrier_or(env, 0u);
    if (env.local_id == 0u && env.group_id == env.num_groups - 1u)
      out_words[2] = (a ? 1u : 0u) | (b ? 2u : 0u) | (c ? 4u : 0u) | (d ? 8u : 0u);
  }
}
