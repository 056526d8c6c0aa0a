/* A shader with a uniform buffer at set 0, binding 2 (tests/test_backends.c, args): wgsync binds
 * storage buffers only, so setting that argument and launching are refused, naming the binding. */
#version 460
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "wgsync.glsl"

layout(set = 0, binding = 1) queuefamilycoherent buffer Out { uint out_words[]; };
layout(set = 0, binding = 2) uniform Params { uint scale; } params;

void main()
{
  wgs_env env;
  if (wgs_discover(env) && env.local_id == 0u)
    atomicAdd(out_words[0], params.scale, gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
}
