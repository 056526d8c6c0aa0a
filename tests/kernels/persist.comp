/* The README's Vulkan shader, as a user writes it (tests/test_backends.c, case persistent): a
 * persistent loop of `iters` rounds, each a grid-stride pass over x (x[i] += 1) and a grid
 * barrier; the host checks x[i] == iters, or an error. On lavapipe the loop and the barriers'
 * waits share the driver's loop budget (device/vulkan/wgsync.glsl, WGS_CPU_PAUSE). */
#version 460
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "wgsync.glsl"

layout(set = 0, binding = 1) queuefamilycoherent buffer X { uint x[]; };
layout(push_constant) uniform Args { uint n; uint iters; } args;

void main()
{
  wgs_env env;
  if (wgs_discover(env)) {
    for (uint it = 0u; it < args.iters; ++it) {
      for (uint i = wgs_get_global_id(env); i < args.n; i += wgs_get_global_size(env))
        x[i] = x[i] + 1u;
      wgs_grid_barrier(env);
    }
  }
}
