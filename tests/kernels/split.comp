/* A work-group split barrier in a Vulkan shader (tests/test_backends.c, case split_wg): each
 * invocation publishes a value in shared memory, arrives, does work of its own, waits, and reads
 * its neighbour's value; round r uses half r mod 2 of the ring, so that no barrier is needed
 * between a round's reads and the next round's writes (round r + 2 writes that half only after
 * every invocation arrived in round r + 1, after its reads of round r). Compiled three ways:
 * SPLIT=0 with plain barrier(), SPLIT=1 with release / acquire control barriers that
 * tests/kernels/split_ext.py turns into OpControlBarrierArriveEXT / WaitEXT
 * (SPV_EXT_split_barrier): wgsync lowers those, and both must give the host's results. */
#version 460
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "wgsync.glsl"

layout(set = 0, binding = 1) queuefamilycoherent buffer Out { uint out_words[]; };
layout(push_constant) uniform Args { uint rounds; } args;
shared uint ring[2 * 256];

#if SPLIT
#define ARRIVE() controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsRelease)
#define WAIT() controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsShared, gl_SemanticsAcquire)
#else
#define ARRIVE()
#define WAIT() barrier()
#endif

void main()
{
  wgs_env env;
  if (wgs_discover(env)) {
    uint lid = env.local_id, n = env.local_size, acc = 0u;
    for (uint r = 0u; r < args.rounds; ++r) {
      uint half_ = (r & 1u) * n;
      ring[half_ + lid] = r * 7u + lid * 3u + env.group_id;
      ARRIVE();
      uint own = (lid * 13u + r) & 255u; /* work between arrive and wait */
      WAIT();
      acc += ring[half_ + (lid + 1u) % n] * 5u + own;
    }
    out_words[wgs_get_global_id(env)] = acc;
  }
}
