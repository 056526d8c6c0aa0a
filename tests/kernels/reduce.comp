/* The grid reductions' answers on a Vulkan device (tests/test_backends.c, case reduce): the
 * kernel of tests/kernels/portable.h's portable_reduce in GLSL, the same eleven instances a round and
 * the same checks. bad[0] counts wrong answers, bad[1..3] describe the first (16 x round +
 * position, the answer's bits, global id); the rounding float sum's bits go to
 * sums[round * groups + group]. */
#version 460
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "wgsync.glsl"

layout(set = 0, binding = 1) queuefamilycoherent buffer Bad { uint bad[]; };
layout(set = 0, binding = 2) queuefamilycoherent buffer Sums { uint sums[]; };
layout(push_constant) uniform Args { uint rounds; } args;

uint gid;
void check(uint got, uint want, uint at)
{
  if (got != want && atomicAdd(bad[0], 1u) == 0u) {
    bad[1] = at;
    bad[2] = got;
    bad[3] = gid;
  }
}

void main()
{
  wgs_env e;
  if (wgs_discover(e)) {
    gid = wgs_get_global_id(e);
    uint gsize = wgs_get_global_size(e), n = wgs_get_num_groups(e);
    for (uint r = 0u; r < args.rounds; ++r) {
      uint spread = 1000u + ((gid + r) % gsize) * 3u;
      uint a = wgs_grid_reduce_u32(e, WGS_SUM, gid + r);
      uint b = wgs_grid_reduce_u32(e, WGS_MIN, spread);
      uint c = wgs_grid_reduce_u32(e, WGS_MAX, spread);
      wgs_grid_arrive_reduce_f32(e, WGS_SUM, float((gid + r) % 16u) * 0.25f - 1.0f);
      uint quarters = gsize / 16u * 120u;
      for (uint j = 0u; j < gsize % 16u; ++j)
        quarters += (j + r) % 16u;
      float d = wgs_grid_wait_reduce_f32(e, WGS_SUM);
      wgs_grid_barrier(e);
      float below = -float((gid + r) % gsize) - 0.5f;
      float f = wgs_grid_reduce_f32(e, WGS_MIN, below);
      wgs_grid_arrive_reduce_f32(e, WGS_MAX, below);
      float g = wgs_grid_wait_reduce_f32(e, WGS_MAX);
      float zero = gid == (r * 2654435761u) % gsize ? 0.0f : -0.0f;
      float h = wgs_grid_reduce_f32(e, WGS_MAX, zero);
      float i = wgs_grid_reduce_f32(e, WGS_MIN, zero);
      float nz = wgs_grid_reduce_f32(e, WGS_SUM, -0.0f);
      float j = wgs_grid_reduce_f32(e, WGS_SUM, 1.0f / float(gid + r + 1u));
      check(a, (gsize % 2u != 0u ? gsize * ((gsize - 1u) / 2u) : gsize / 2u * (gsize - 1u)) + r * gsize,
            16u * r);
      check(b, 1000u, 16u * r + 1u);
      check(c, 1000u + (gsize - 1u) * 3u, 16u * r + 2u);
      check(floatBitsToUint(d), floatBitsToUint(float(quarters) * 0.25f - float(gsize)), 16u * r + 3u);
      check(floatBitsToUint(f), floatBitsToUint(-float(gsize - 1u) - 0.5f), 16u * r + 5u);
      check(floatBitsToUint(g), floatBitsToUint(-0.5f), 16u * r + 6u);
      check(floatBitsToUint(h), 0u, 16u * r + 7u);
      check(floatBitsToUint(i), 0x80000000u, 16u * r + 8u);
      check(floatBitsToUint(nz), 0x80000000u, 16u * r + 9u); /* a sum of -0.0 alone */
      if (e.local_id == 0u)
        sums[r * n + e.group_id] = floatBitsToUint(j);
    }
  }
}
