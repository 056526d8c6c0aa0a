/* 1-D Jacobi for -u'' = f (bench/apps/jacobi.c): u holds two copies of the grid, step k reads
 * copy k mod 2 and writes the other. JACOBI_PERSISTENT: every step in one dispatch, the
 * participating groups striding over the grid with wgsync's grid barrier between steps (the
 * README's shape); else one step per dispatch (the loop forms). Both compute a point the same
 * way, so their results are equal to the host's bit for bit. */
#version 460
#extension GL_GOOGLE_include_directive : require
#if JACOBI_PERSISTENT
layout(local_size_x_id = 0) in;
#include "wgsync.glsl"
layout(set = 0, binding = 1) queuefamilycoherent buffer U { float u[]; };
layout(set = 0, binding = 2) readonly buffer F { float f[]; };
layout(push_constant) uniform P { uint n; uint steps; } p;
#else
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) buffer U { float u[]; };
layout(set = 0, binding = 1) readonly buffer F { float f[]; };
layout(push_constant) uniform P { uint n; uint parity; } p;
#endif

void point(uint i, uint parity)
{
  uint s = parity * p.n, d = (1u - parity) * p.n;
  float l = i > 0u ? u[s + i - 1u] : 0.0;
  float r = i + 1u < p.n ? u[s + i + 1u] : 0.0;
  u[d + i] = (l + r + f[i]) * 0.5;
}

void main()
{
#if JACOBI_PERSISTENT
  wgs_env env;
  if (wgs_discover(env)) {
    for (uint k = 0u; k < p.steps; ++k) {
      for (uint i = wgs_get_global_id(env); i < p.n; i += wgs_get_global_size(env))
        point(i, k & 1u);
      wgs_grid_barrier(env); /* step k's writes are visible to every group in step k + 1 */
    }
  }
#else
  if (gl_GlobalInvocationID.x < p.n)
    point(gl_GlobalInvocationID.x, p.parity);
#endif
}
