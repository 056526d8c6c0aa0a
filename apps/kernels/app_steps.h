/*
 * The graph applications' per-iteration steps (Sorensen et al. 2016 §5.2-5.3: bfs, sssp, mis, color, bc),
 * written once for OpenCL C and CUDA. Each step visits nodes i0, i0 + stride, ...: the
 * multi-kernel form passes the native global id and size (one kernel launch per step), the
 * persistent form passes wgs_get_global_id / wgs_get_global_size of the participating groups and
 * puts a grid barrier between steps. The logic is therefore the same in every form.
 *
 * Races within one step, and why each is benign (a grid barrier or a kernel boundary separates
 * steps, so everything written in a step is visible to every node in the next):
 *  - bfs / bc forward: several nodes may write the same new level into a node (the same value);
 *    a reader that sees either the old NONE or the new level writes the same value again.
 *  - sssp: distances only decrease, through atomic_min; a node whose distance drops while it is
 *    being relaxed is marked active again and relaxed in the next step with the smaller value.
 *  - mis / color: a node's decision compares it with neighbours that are still in the contest;
 *    a neighbour decided in the same step is still counted as in the contest (IN for mis, this
 *    step's colour for color), so both readings give the same answer.
 * Flags use atomics; everything else in these steps is a plain access.
 */
#ifndef APP_STEPS_H
#define APP_STEPS_H

/* guarded so that the embedded copy (all headers in one string) needs no include path */
#ifndef APP_PRIORITY_H
#include "app_priority.h"
#endif
#ifndef APP_STATUS_H
#include "app_status.h"
#endif

#ifdef __OPENCL_VERSION__
#define APP_G __global
#define APP_FN
#define APP_ATOMIC_MIN(p, v) atomic_min((p), (v))
#define APP_ATOMIC_OR(p, v) atomic_or((p), (v))
typedef uint app_u32;
typedef size_t app_size;
#else
#define APP_G
#define APP_FN static __device__ __forceinline__
#define APP_ATOMIC_MIN(p, v) atomicMin((p), (v))
#define APP_ATOMIC_OR(p, v) atomicOr((p), (v))
typedef unsigned app_u32;
typedef size_t app_size;
#endif
/* The steps (the code between two barriers): inlined. bench/apps/app_variants.h (APP_STEP_CALL)
 * makes each a call in a measurement build, the design that lost. */
#ifdef APP__HOOK_STEP_FN
#define APP_STEP_FN APP__HOOK_STEP_FN
#else
#define APP_STEP_FN APP_FN
#endif

/* Raise a stop flag (the step kernels of the host loop and the CUDA graph; the persistent forms
 * pass "changed" to wgs_grid_barrier_or). A read first keeps most work-items off the atomic
 * once the flag is up. */
APP_FN void app_flag(APP_G app_u32 *flag, app_u32 changed)
{
  if (changed && *(volatile APP_G app_u32 *)flag == 0u)
    APP_ATOMIC_OR(flag, 1u);
}

/* *p += v where several work items may add to *p (the balanced bc steps). OpenCL C 1.2 has no
 * float atomics: a compare-and-swap loop on the bits, retried with the value it found. */
#ifdef __OPENCL_VERSION__
APP_FN void app_atomic_add_f(APP_G float *p, float v)
{
  volatile APP_G uint *q = (volatile APP_G uint *)p;
  uint old = *q;
  for (;;) {
    uint got = atomic_cmpxchg(q, old, as_uint(as_float(old) + v));
    if (got == old)
      break;
    old = got;
  }
}
#else
APP_FN void app_atomic_add_f(float *p, float v) { atomicAdd(p, v); }
#endif

/* APP_KEEP(x): x held in a register from here on (an empty asm the compiler cannot see
 * through, so it cannot recompute x later instead). A measurement hook (bench/apps/app_variants.h,
 * APP_KEEP_PRIORITY): off, nothing. */
#if defined(__CUDACC__) && defined(APP__HOOK_KEEP) && APP__HOOK_KEEP
#define APP_KEEP(x) asm volatile("" : "+r"(x))
#else
#define APP_KEEP(x) ((void)0)
#endif

/* (priority, id) order, a total order, so two neighbours never both win. The priorities are
 * given: the pull steps compute their node's once, outside the edge loop (ncu, colour on
 * grid:1000, H200: in the persistent kernel, capped at 32 registers with the barrier's state
 * live across the loop, the compiler recomputed it for every edge, twice the instructions on
 * that line). */
APP_FN int app_before_p(app_u32 u, app_u32 pu, app_u32 v, app_u32 pv)
{
  return pu < pv || (pu == pv && u < v);
}

/* ---- bfs: level-synchronous, top-down (Lonestar bfs) ---------------------------------------- */
APP_FN void bfs_init(app_size i0, app_size st, app_u32 n, APP_G app_u32 *level, app_u32 src)
{
  for (app_size v = i0; v < n; v += st)
    level[v] = v == src ? 0u : APP_NONE;
}

APP_STEP_FN app_u32 bfs_step(app_size i0, app_size st, app_u32 n, const APP_G app_u32 *row,
                        const APP_G app_u32 *col, APP_G app_u32 *level, app_u32 depth)
{
  app_u32 changed = 0;
  for (app_size v = i0; v < n; v += st) {
    if (level[v] != depth)
      continue;
    for (app_u32 k = row[v]; k < row[v + 1]; ++k) {
      app_u32 u = col[k];
      if (level[u] == APP_NONE) {
        level[u] = depth + 1u;
        changed = 1;
      }
    }
  }
  return changed;
}

/* ---- load-balanced steps: the merge-path split ---------------------------------------------
 * A node-per-work-item step leaves one work-item to walk a high-degree node alone, and in a
 * grid-stride loop the nodes queued behind it wait too. The balanced steps split the work
 * instead (the merge-based decomposition of Merrill and Garland, as in Gunrock's load-balanced
 * advance): a step is n + E slots, node v's header at slot row[v] + v followed by its edges, and
 * work item c takes slots [c*C, (c+1)*C), finding its first node by a binary search over row[].
 * C is the slots over the work-items running the step, but at least APP_LB_CHUNK: every
 * work-item then takes one chunk (with a fixed C, a grid a little narrower than the chunks
 * left a few work-items two, which doubled the step: sssp on kron:18 with 528 groups of 256,
 * H200), and no work item holds more than C edges or nodes, whatever the degrees. The header
 * slot makes a node without edges cost a slot too, so a chunk visits at most C nodes. It needs
 * nothing but row and col: the same graph arrays, the same forms. The push steps (bfs, sssp)
 * and mis's exclude are split this way in one phase; the pull steps that decide a node (colour,
 * mis's select) in two (color_mark_lb), since a decision needs every chunk of the node's edges;
 * bc's sums in one, a node's chunks adding their partial sums (bc_forward_lb). */
/* The chunk size C for a step run by st work-items. */
APP_FN app_u32 app_lb_chunk(app_u32 total, app_size st)
{
  app_u32 c = (app_u32)((total + st - 1u) / st);
  return c > APP_LB_CHUNK ? c : APP_LB_CHUNK;
}
/* The node whose slots hold slot s: the last v < n with row[v] + v <= s. */
APP_FN app_u32 app_lb_node(app_u32 n, const APP_G app_u32 *row, app_u32 s)
{
  app_u32 lo = 0u, hi = n;
  while (hi - lo > 1u) {
    app_u32 mid = lo + (hi - lo) / 2u;
    if (row[mid] + mid <= s)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* The walk every balanced step shares. APP_LB_WALK(i0, st, n, row, v, kb, ke) opens it: for
 * each chunk of this work item (slots [lb_c0, end)), each node v with slots in it, v's edges in
 * the chunk being col[kb .. ke); APP_LB_WALK_END closes it. The body may `continue` (the next
 * node) and `break` out of its own loops, not out of the walk. APP_LB_WHOLE says whether all of
 * v's slots lie in this chunk: then this work item is the only one that sees v in the step. */
#define APP_LB_WALK(i0, st, n, row, v, kb, ke)                                                   \
  {                                                                                              \
    app_u32 lb_total = (n) + (row)[n], lb_chunk = app_lb_chunk(lb_total, (st));                  \
    for (app_size lb_c = (i0); lb_c * lb_chunk < lb_total; lb_c += (st)) {                       \
      app_u32 lb_c0 = (app_u32)lb_c * lb_chunk, s = lb_c0, to = lb_c0;                           \
      app_u32 end = lb_c0 + lb_chunk < lb_total ? lb_c0 + lb_chunk : lb_total;                   \
      for (app_u32 v = app_lb_node((n), (row), s); s < end; s = to, ++v) {                       \
        app_u32 first = (row)[v] + v + 1u, stop = (row)[v + 1u] + v + 1u; /* v's edge slots */  \
        to = stop < end ? stop : end;                                                            \
        app_u32 kb = (s > first ? s : first) - v - 1u, ke = to - v - 1u;
#define APP_LB_WALK_END                                                                          \
  }                                                                                              \
  }                                                                                              \
  }
#define APP_LB_WHOLE (first - 1u >= lb_c0 && stop <= end)

/* bfs, balanced: the edges of level-depth nodes, split as above (the same benign races as
 * bfs_step: every writer of level[u] writes depth + 1). */
APP_STEP_FN app_u32 bfs_step_lb(app_size i0, app_size st, app_u32 n, const APP_G app_u32 *row,
                           const APP_G app_u32 *col, APP_G app_u32 *level, app_u32 depth)
{
  app_u32 changed = 0;
  APP_LB_WALK(i0, st, n, row, v, kb, ke)
    if (level[v] == depth)
      for (app_u32 k = kb; k < ke; ++k) {
        app_u32 u = col[k];
        if (level[u] == APP_NONE) {
          level[u] = depth + 1u;
          changed = 1;
        }
      }
  APP_LB_WALK_END
  return changed;
}

/* sssp, balanced. Several work items may walk one node's edges, so none may clear its flag as
 * sssp_step does; the activity is a step stamp instead, in act alone: v is relaxed in step it
 * when act[v] == it + 1 (sssp_init's act0[src] = 1 is step 0), and a node improved in step it
 * gets it + 2. A work item that reads the newer stamp skips v in this step, which loses
 * nothing: v is relaxed again in the next step with the smaller distance. */
APP_STEP_FN app_u32 sssp_step_lb(app_size i0, app_size st, app_u32 n, const APP_G app_u32 *row,
                            const APP_G app_u32 *col, const APP_G app_u32 *w, APP_G app_u32 *dist,
                            APP_G app_u32 *act, app_u32 it)
{
  app_u32 changed = 0;
  APP_LB_WALK(i0, st, n, row, v, kb, ke)
    if (act[v] == it + 1u) {
      app_u32 dv = dist[v];
      for (app_u32 k = kb; k < ke; ++k) {
        app_u32 u = col[k], nd = dv + w[k];
        if (nd < dv)
          continue;
        if (nd < dist[u] && nd < APP_ATOMIC_MIN(&dist[u], nd)) {
          act[u] = it + 2u;
          changed = 1;
        }
      }
    }
  APP_LB_WALK_END
  return changed;
}

/* ---- sssp: Bellman-Ford over active nodes (cur/next flags swap every step) ------------------- */
APP_FN void sssp_init(app_size i0, app_size st, app_u32 n, APP_G app_u32 *dist,
                      APP_G app_u32 *act0, APP_G app_u32 *act1, app_u32 src)
{
  for (app_size v = i0; v < n; v += st) {
    dist[v] = v == src ? 0u : APP_NONE;
    act0[v] = v == src;
    act1[v] = 0u;
  }
}

APP_STEP_FN app_u32 sssp_step(app_size i0, app_size st, app_u32 n, const APP_G app_u32 *row,
                         const APP_G app_u32 *col, const APP_G app_u32 *w, APP_G app_u32 *dist,
                         APP_G app_u32 *cur, APP_G app_u32 *next)
{
  app_u32 changed = 0;
  for (app_size v = i0; v < n; v += st) {
    if (!cur[v])
      continue;
    cur[v] = 0u;
    app_u32 dv = dist[v];
    for (app_u32 k = row[v]; k < row[v + 1]; ++k) {
      app_u32 u = col[k], nd = dv + w[k];
      if (nd < dv) /* 32-bit overflow: no shorter path this way */
        continue;
      if (nd < dist[u] && nd < APP_ATOMIC_MIN(&dist[u], nd)) {
        next[u] = 1u;
        changed = 1;
      }
    }
  }
  return changed;
}

/* ---- mis: Luby-style with fixed priorities (Pannotia mis), two steps per round --------------- */
APP_FN void mis_init(app_size i0, app_size st, app_u32 n, APP_G app_u32 *status)
{
  for (app_size v = i0; v < n; v += st)
    status[v] = APP_MIS_UNDECIDED;
}

/* An undecided node joins the set when it precedes every neighbour not yet OUT. */
APP_STEP_FN void mis_select(app_size i0, app_size st, app_u32 n, const APP_G app_u32 *row,
                       const APP_G app_u32 *col, APP_G app_u32 *status)
{
  for (app_size v = i0; v < n; v += st) {
    if (status[v] != APP_MIS_UNDECIDED)
      continue;
    int best = 1;
    app_u32 pv = APP_PRIORITY((app_u32)v);
    APP_KEEP(pv);
    for (app_u32 k = row[v]; k < row[v + 1] && best; ++k) {
      app_u32 u = col[k];
      if (u != (app_u32)v && status[u] != APP_MIS_OUT && app_before_p(u, APP_PRIORITY(u), (app_u32)v, pv))
        best = 0;
    }
    if (best)
      status[v] = APP_MIS_IN;
  }
}

/* An undecided node next to a member leaves; any node still undecided asks for another round. */
APP_STEP_FN app_u32 mis_exclude(app_size i0, app_size st, app_u32 n, const APP_G app_u32 *row,
                           const APP_G app_u32 *col, APP_G app_u32 *status)
{
  app_u32 changed = 0;
  for (app_size v = i0; v < n; v += st) {
    if (status[v] != APP_MIS_UNDECIDED)
      continue;
    int out = 0;
    for (app_u32 k = row[v]; k < row[v + 1] && !out; ++k)
      out = status[col[k]] == APP_MIS_IN;
    if (out)
      status[v] = APP_MIS_OUT;
    else
      changed = 1;
  }
  return changed;
}

/* mis select, balanced: the colour step's two phases (color_mark_lb) for the select. Phase 1
 * (merge-path): a work item that finds, among the edges of an undecided v in its chunk, a
 * neighbour u not OUT that precedes v, marks v lost (APP_MIS_LOSE, still undecided: it is not
 * OUT for its neighbours' tests). Nothing joins the set in this phase; in mis_select a node
 * joining counts the same (IN is not OUT), so the answer is mis_select's. Phase 2 (a work item
 * per node): an undecided node not marked joins, a marked one is undecided again. Then
 * mis_exclude as before: one barrier more per round. */
APP_STEP_FN void mis_mark_lb(app_size i0, app_size st, app_u32 n, const APP_G app_u32 *row,
                        const APP_G app_u32 *col, APP_G app_u32 *status)
{
  APP_LB_WALK(i0, st, n, row, v, kb, ke)
    if (status[v] == APP_MIS_UNDECIDED) { /* APP_MIS_LOSE: another chunk found one */
      app_u32 pv = APP_PRIORITY(v);
      APP_KEEP(pv);
      for (app_u32 k = kb; k < ke; ++k) {
        app_u32 u = col[k];
        if (u != v && status[u] != APP_MIS_OUT && app_before_p(u, APP_PRIORITY(u), v, pv)) {
          status[v] = APP_MIS_LOSE;
          break;
        }
      }
    }
  APP_LB_WALK_END
}
APP_STEP_FN app_u32 mis_commit(app_size i0, app_size st, app_u32 n, APP_G app_u32 *status)
{
  app_u32 changed = 0;
  for (app_size v = i0; v < n; v += st) {
    app_u32 sv = status[v];
    if (sv == APP_MIS_UNDECIDED) {
      status[v] = APP_MIS_IN;
    } else if (sv == APP_MIS_LOSE) {
      status[v] = APP_MIS_UNDECIDED;
      changed = 1;
    }
  }
  return changed;
}

/* mis exclude, balanced: an undecided node with an IN neighbour in any chunk of its edges
 * leaves (several work items may write OUT into one node: the same value; IN does not change
 * in this step). It cannot tell whether a node stays undecided (another chunk may exclude it),
 * so the balanced round stops on mis_commit's answer instead: a node was reset there, so a round
 * may follow. That round finds nothing to do when every reset node was then excluded: the
 * balanced loop may run one round more than mis_exclude's, with the same set. */
APP_STEP_FN void mis_exclude_lb(app_size i0, app_size st, app_u32 n, const APP_G app_u32 *row,
                                const APP_G app_u32 *col, APP_G app_u32 *status)
{
  APP_LB_WALK(i0, st, n, row, v, kb, ke)
    if (status[v] == APP_MIS_UNDECIDED)
      for (app_u32 k = kb; k < ke; ++k)
        if (status[col[k]] == APP_MIS_IN) {
          status[v] = APP_MIS_OUT;
          break;
        }
  APP_LB_WALK_END
}

/* ---- color: Jones-Plassmann (Pannotia color_max); the colour is the step number ------------- */
APP_FN void color_init(app_size i0, app_size st, app_u32 n, APP_G app_u32 *color)
{
  for (app_size v = i0; v < n; v += st)
    color[v] = APP_NONE;
}

APP_STEP_FN app_u32 color_step(app_size i0, app_size st, app_u32 n, const APP_G app_u32 *row,
                          const APP_G app_u32 *col, APP_G app_u32 *color, app_u32 step)
{
  app_u32 changed = 0;
  for (app_size v = i0; v < n; v += st) {
    if (color[v] != APP_NONE)
      continue;
    int best = 1;
    app_u32 pv = APP_PRIORITY((app_u32)v);
    APP_KEEP(pv);
    for (app_u32 k = row[v]; k < row[v + 1] && best; ++k) {
      app_u32 u = col[k], cu = color[u];
      if (u != (app_u32)v && (cu == APP_NONE || cu == step) && app_before_p((app_u32)v, pv, u, APP_PRIORITY(u)))
        best = 0;
    }
    if (best)
      color[v] = step;
    else
      changed = 1;
  }
  return changed;
}

/* color, balanced: the step in two phases with a barrier between, so that a hub's edges are
 * split over work items as in the balanced push steps. Phase 1 (color_mark_lb, merge-path):
 * a work item that finds, among the edges of an uncoloured v in its chunk, a neighbour u that
 * precedes v and is uncoloured, marks v lost (APP_LOSE); nothing is coloured in this phase, so
 * "uncoloured" is APP_NONE or APP_LOSE, and the answer is what color_step computes (there, a
 * neighbour coloured in the same step counts as uncoloured too). Phase 2 (color_commit, a work
 * item per node): an uncoloured node not marked takes the step's colour; a marked one is reset.
 * Same colours as color_step, step for step (the CPU reference checks it); one barrier more
 * per step. */
APP_STEP_FN void color_mark_lb(app_size i0, app_size st, app_u32 n, const APP_G app_u32 *row,
                          const APP_G app_u32 *col, APP_G app_u32 *color)
{
  APP_LB_WALK(i0, st, n, row, v, kb, ke)
    if (color[v] == APP_NONE) { /* APP_LOSE: another chunk of v's edges found a blocker */
      app_u32 pv = APP_PRIORITY(v);
      APP_KEEP(pv);
      for (app_u32 k = kb; k < ke; ++k) {
        app_u32 u = col[k];
        if (u != v && color[u] >= APP_LOSE && app_before_p(v, pv, u, APP_PRIORITY(u))) {
          color[v] = APP_LOSE;
          break;
        }
      }
    }
  APP_LB_WALK_END
}
APP_STEP_FN app_u32 color_commit(app_size i0, app_size st, app_u32 n, APP_G app_u32 *color, app_u32 step)
{
  app_u32 changed = 0;
  for (app_size v = i0; v < n; v += st) {
    app_u32 cv = color[v];
    if (cv == APP_NONE) {
      color[v] = step;
    } else if (cv == APP_LOSE) {
      color[v] = APP_NONE;
      changed = 1;
    }
  }
  return changed;
}

/* ---- bc: Brandes from each source; forward levels + path counts, backward dependencies ------ */
APP_FN void bc_zero(app_size i0, app_size st, app_u32 n, APP_G float *bc)
{
  for (app_size v = i0; v < n; v += st)
    bc[v] = 0.0f;
}

APP_FN void bc_init(app_size i0, app_size st, app_u32 n, APP_G app_u32 *level,
                    APP_G float *sigma, APP_G float *delta, app_u32 src)
{
  for (app_size v = i0; v < n; v += st) {
    level[v] = v == src ? 0u : APP_NONE;
    sigma[v] = v == src ? 1.0f : 0.0f;
    delta[v] = 0.0f;
  }
}

/* A level-d node's edges col[kb .. ke) in the forward step: the path counts of its level d - 1
 * neighbours summed, unreached neighbours given level d + 1 (*changed raised). */
APP_FN float bc_forward_edges(const APP_G app_u32 *col, APP_G app_u32 *level, const APP_G float *sigma,
                              app_u32 d, app_u32 kb, app_u32 ke, app_u32 *changed)
{
  float s = 0.0f;
  for (app_u32 k = kb; k < ke; ++k) {
    app_u32 u = col[k], lu = level[u];
    if (d > 0u && lu == d - 1u)
      s += sigma[u];
    if (lu == APP_NONE) {
      level[u] = d + 1u;
      *changed = 1;
    }
  }
  return s;
}
/* A level-d node's edges col[kb .. ke) in the backward step: its dependency on its level d + 1
 * neighbours (sv: its own path count). */
APP_FN float bc_backward_edges(const APP_G app_u32 *col, const APP_G app_u32 *level,
                               const APP_G float *sigma, const APP_G float *delta, app_u32 d,
                               float sv, app_u32 kb, app_u32 ke)
{
  float sum = 0.0f;
  for (app_u32 k = kb; k < ke; ++k) {
    app_u32 u = col[k];
    if (level[u] == d + 1u)
      sum += sv / sigma[u] * (1.0f + delta[u]);
  }
  return sum;
}

/* Nodes at level d: pull the path count from level d - 1 (final since the last step), then give
 * unreached neighbours level d + 1. */
APP_STEP_FN app_u32 bc_forward(app_size i0, app_size st, app_u32 n, const APP_G app_u32 *row,
                          const APP_G app_u32 *col, APP_G app_u32 *level, APP_G float *sigma,
                          app_u32 d)
{
  app_u32 changed = 0;
  for (app_size v = i0; v < n; v += st) {
    if (level[v] != d)
      continue;
    float s = bc_forward_edges(col, level, sigma, d, row[v], row[v + 1], &changed);
    if (d > 0u)
      sigma[v] = s;
  }
  return changed;
}

/* Nodes at level d: pull dependencies from level d + 1 (final since the last step). */
APP_STEP_FN void bc_backward(app_size i0, app_size st, app_u32 n, const APP_G app_u32 *row,
                        const APP_G app_u32 *col, const APP_G app_u32 *level,
                        const APP_G float *sigma, APP_G float *delta, APP_G float *bc,
                        app_u32 d)
{
  for (app_size v = i0; v < n; v += st) {
    if (level[v] != d)
      continue;
    float sum = bc_backward_edges(col, level, sigma, delta, d, sigma[v], row[v], row[v + 1]);
    delta[v] = sum;
    bc[v] += sum;
  }
}

/* bc, balanced (kron: a hub's thread walked its 30,000 edges alone in both directions). The
 * same sums split over the chunks of a node's edges: a node wholly in one chunk is written as
 * bc_forward / bc_backward write it; a node whose edges span chunks gets each chunk's partial
 * sum added atomically (sigma and delta of a level-d node are 0 until its step: bc_init). The
 * additions' order then varies from run to run, within float rounding of the per-node sums
 * (the check allows 1e-3 relative). */
APP_STEP_FN app_u32 bc_forward_lb(app_size i0, app_size st, app_u32 n, const APP_G app_u32 *row,
                                  const APP_G app_u32 *col, APP_G app_u32 *level,
                                  APP_G float *sigma, app_u32 d)
{
  app_u32 changed = 0;
  APP_LB_WALK(i0, st, n, row, v, kb, ke)
    if (level[v] == d) {
      float sum = bc_forward_edges(col, level, sigma, d, kb, ke, &changed);
      if (d > 0u) {
        if (APP_LB_WHOLE)
          sigma[v] = sum;
        else if (sum != 0.0f)
          app_atomic_add_f(&sigma[v], sum);
      }
    }
  APP_LB_WALK_END
  return changed;
}

APP_STEP_FN void bc_backward_lb(app_size i0, app_size st, app_u32 n, const APP_G app_u32 *row,
                                const APP_G app_u32 *col, const APP_G app_u32 *level,
                                const APP_G float *sigma, APP_G float *delta, APP_G float *bc,
                                app_u32 d)
{
  APP_LB_WALK(i0, st, n, row, v, kb, ke)
    if (level[v] == d) {
      float sum = bc_backward_edges(col, level, sigma, delta, d, sigma[v], kb, ke);
      if (APP_LB_WHOLE) {
        delta[v] = sum;
        bc[v] += sum;
      } else if (sum != 0.0f) {
        app_atomic_add_f(&delta[v], sum);
        app_atomic_add_f(&bc[v], sum);
      }
    }
  APP_LB_WALK_END
}

#endif
