/*
 * bfs on Vulkan (apps/vulkan/apps_vulkan.c): the level-synchronous top-down step of
 * apps/kernels/app_steps.h (bfs_step), in GLSL, which has no pointers for that file's C. One
 * source, three kernels by APP_FORM: 0 the init step, 1 one bfs step (the host loop launches it
 * once per level and reads flags[0]), 2 the persistent kernel (discovery, then every level with
 * the stop test inside the grid barrier, wgs_grid_barrier_or). The host-loop kernels take every
 * launched group with its native id (WGS_DISCOVERY_ALL: they have no grid barrier).
 * Arguments: 0 the state, 1 row, 2 col, 3 level, 4 flags; push constants n, src, depth.
 * Several nodes may write the same new level into a node: the same value, so the race is benign
 * (as in app_steps.h); level is queuefamilycoherent, so a write before a grid barrier is seen by
 * every group after it (device/vulkan/wgsync.glsl).
 */
#version 460
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#include "wgsync.glsl"

layout(set = 0, binding = 1) readonly buffer Row { uint row[]; };
layout(set = 0, binding = 2) readonly buffer Col { uint col[]; };
layout(set = 0, binding = 3) queuefamilycoherent buffer Level { uint level[]; };
layout(set = 0, binding = 4) buffer Flags { uint flags[]; };
layout(push_constant) uniform Args { uint n; uint src; uint depth; } args;

const uint NONE = 0xffffffffu;

void bfs_init(uint i0, uint st)
{
  for (uint v = i0; v < args.n; v += st)
    level[v] = v == args.src ? 0u : NONE;
}

uint bfs_step(uint i0, uint st, uint depth)
{
  uint changed = 0u;
  for (uint v = i0; v < args.n; v += st) {
    if (level[v] != depth)
      continue;
    for (uint k = row[v]; k < row[v + 1u]; ++k) {
      uint u = col[k];
      if (level[u] == NONE) {
        level[u] = depth + 1u;
        changed = 1u;
      }
    }
  }
  return changed;
}

void main()
{
  wgs_env env;
  if (wgs_discover(env)) {
    uint i0 = wgs_get_global_id(env), st = wgs_get_global_size(env);
#if APP_FORM == 0
    bfs_init(i0, st);
#elif APP_FORM == 1
    if (bfs_step(i0, st, args.depth) != 0u)
      flags[0] = 1u;
#else
    bfs_init(i0, st);
    wgs_grid_barrier(env);
    uint it = 0u;
    bool go = true;
    while (go) {
      go = wgs_grid_barrier_or(env, bfs_step(i0, st, it));
      ++it;
    }
    if (i0 == 0u)
      flags[3] = it;
#endif
  }
}
