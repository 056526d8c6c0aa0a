/*
 * wgsync device library for Vulkan compute shaders (GLSL 4.50+, the Vulkan memory model):
 * occupancy discovery (Sorensen et al. 2016 §3, wgsync's lock-free poll), the participating-group
 * environment (Table 2), the counter grid barrier among participating groups (§4), its split
 * form (arrive / wait), the grid barrier with an OR, grid reductions, and checked builds (-DWGS_CHECKED=1: every
 * spin bounded by the device clock, a missed barrier reported with the groups that never came).
 *
 *   #version 460
 *   #extension GL_GOOGLE_include_directive : require
 *   layout(local_size_x_id = 0) in;           // wgsync sets the local size (specialisation 0)
 *   #include "wgsync.glsl"                      // the state is set 0, binding 0 (WGS_STATE_BINDING)
 *   layout(set = 0, binding = 1) queuefamilycoherent buffer Data { uint data[]; };
 *   void main() {
 *     wgs_env env;
 *     if (wgs_discover(env)) { ... wgs_grid_barrier(env); ... }
 *   }
 *
 * compiled with `glslangValidator -V --target-env vulkan1.2 -I<prefix>/include/wgsync`. Data one
 * group writes and another reads after a grid barrier must be in `queuefamilycoherent` buffers: under the
 * Vulkan memory model only non-private accesses take part in the barrier's availability and
 * visibility operations.
 *
 * Why a second text of the protocol: device/common/wgs_core.h is written once for OpenCL C and
 * CUDA C through pointers (`wgs_word_ptr`, `wgs_env *`), which GLSL has not; here the state is
 * one buffer indexed from its base, and the environment an inout struct. The protocol, the state
 * layout (wgs_layout.h, included as it is), the config words and the reports are the same, so the
 * host decodes a Vulkan launch with the same code; what this library leaves out (the XF barrier,
 * launch epochs) the host refuses or does without on a Vulkan device. Launches on Vulkan have no epochs: the host clears the state in the
 * launch's command buffer (vkCmdFillBuffer) before the dispatch, as OpenCL's checked launches do.
 *
 * Memory ordering: every cross-group access is an atomic at QueueFamily scope (every invocation
 * of a dispatch is in one queue family: the Vulkan memory model's device-wide scope, needing no
 * vulkanMemoryModelDeviceScope), acquire with MakeVisible, release with MakeAvailable; the
 * work-group barrier is plain barrier() between two QueueFamily-scope memory barriers (acquire
 * and release, both storage classes), so that what one invocation wrote before it is available
 * to, and visible in, every invocation of the group after it, in the buffer as well as in shared
 * memory. (On lavapipe a controlBarrier whose memory scope is QueueFamily does not wait, and
 * Device-scope memory barriers under a condition act as waits for a subgroup only: this form is
 * the one that holds on both drivers tested.) Each site below says why its ordering is enough.
 */
#ifndef WGSYNC_GLSL
#define WGSYNC_GLSL

#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_realtime_clock : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_arithmetic : require

#include "wgs_layout.h"

#ifndef WGS_STATE_SET
#define WGS_STATE_SET 0
#endif
#ifndef WGS_STATE_BINDING
#define WGS_STATE_BINDING 0
#endif
#if !defined(WGS_CHECKED)
#define WGS_CHECKED 0
#endif

layout(set = WGS_STATE_SET, binding = WGS_STATE_BINDING, std430) queuefamilycoherent buffer WgsState
{
  uint wgs_w[]; /* the state (wgs_layout.h), word 0 at its base */
};
shared uint wgsi_sh[3]; /* the representative's answer to its group: the id, the ORs */
shared uint wgsi_wait_sh[2]; /* the group wait's answer, by round parity (wgsi_group_poll) */

#define WGSI_SCOPE gl_ScopeQueueFamily
#define WGSI_BUF gl_StorageSemanticsBuffer
#define WGSI_ACQ (gl_SemanticsAcquire | gl_SemanticsMakeVisible)
#define WGSI_REL (gl_SemanticsRelease | gl_SemanticsMakeAvailable)
#define WGSI_ACQREL (gl_SemanticsAcquireRelease | gl_SemanticsMakeAvailable | gl_SemanticsMakeVisible)

/* ---- the atomics layer (word indices into the state) ----------------------------------------- */
uint wgsi_ld_acq(uint i) { return atomicLoad(wgs_w[i], WGSI_SCOPE, WGSI_BUF, WGSI_ACQ); }
uint wgsi_ld_rlx(uint i) { return atomicLoad(wgs_w[i], WGSI_SCOPE, WGSI_BUF, gl_SemanticsRelaxed); }
void wgsi_st_rel(uint i, uint v) { atomicStore(wgs_w[i], v, WGSI_SCOPE, WGSI_BUF, WGSI_REL); }
void wgsi_st_rlx(uint i, uint v) { atomicStore(wgs_w[i], v, WGSI_SCOPE, WGSI_BUF, gl_SemanticsRelaxed); }
uint wgsi_add_rlx(uint i, uint v) { return atomicAdd(wgs_w[i], v, WGSI_SCOPE, WGSI_BUF, gl_SemanticsRelaxed); }
uint wgsi_add_rel(uint i, uint v) { return atomicAdd(wgs_w[i], v, WGSI_SCOPE, WGSI_BUF, WGSI_REL); }
uint wgsi_add_acqrel(uint i, uint v) { return atomicAdd(wgs_w[i], v, WGSI_SCOPE, WGSI_BUF, WGSI_ACQREL); }
uint wgsi_or_rlx(uint i, uint v) { return atomicOr(wgs_w[i], v, WGSI_SCOPE, WGSI_BUF, gl_SemanticsRelaxed); }
uint wgsi_cas_rlx(uint i, uint expected, uint desired)
{
  return atomicCompSwap(wgs_w[i], expected, desired, WGSI_SCOPE, WGSI_BUF, gl_SemanticsRelaxed,
                        WGSI_BUF, gl_SemanticsRelaxed);
}
/* The device's clock (VK_KHR_shader_clock, shaderDeviceClock): ticks, whose rate the host
 * measures once per device (src/vulkan) and converts its bounds into. */
uint64_t wgsi_timer() { return clockRealtimeEXT(); }
uint64_t wgsi_since(uint64_t start)
{
  uint64_t now = wgsi_timer();
  return now >= start ? now - start : now + (uint64_t(1) << 32) - start;
}

/* A work-group barrier that orders buffer and shared memory across the group (see the head).
 * Where the device has availability and visibility chains (vulkanMemoryModelAvailabilityVisibility
 * Chains) and is a GPU, the host sets this specialisation constant and the barrier's memory scope
 * is the work-group: a write made available to the group by it is made available to the queue
 * family by the representative's release (MakeAvailable at QueueFamily scope) after it, a chain
 * of two, and symmetrically for visibility after the representative's acquire: the pattern of
 * CUDA's __syncthreads around a gpu-scope release and acquire, at the same cost. Elsewhere both
 * fences are at QueueFamily scope, which needs no chain (and is the form that holds on
 * lavapipe). */
layout(constant_id = 2001) const bool WGS_GROUP_SCOPE = false;
void wgsi_group_barrier()
{
  if (WGS_GROUP_SCOPE) {
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup,
                   gl_StorageSemanticsBuffer | gl_StorageSemanticsShared, WGSI_ACQREL);
  } else {
    memoryBarrier(WGSI_SCOPE, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared, WGSI_ACQREL);
    barrier();
    memoryBarrier(WGSI_SCOPE, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared, WGSI_ACQREL);
  }
}

uint wgsi_cfg(uint word) { return wgs_w[WGS_G_CONFIG + word]; }

/* Some drivers cap the iterations of a shader invocation's loops: lavapipe ends them after
 * 65,535 in all, silently, and merges the relaxed loads of one round into one, so that a spin
 * of one poll a round lasts about 0.4 ms in all (measured, 2 worker threads). On a CPU device
 * the host sets this specialisation constant, and each round of a wait also runs a chain of 512
 * dependent square roots (about 2 us) in every 8-lane slice that runs the loop: lavapipe runs a
 * loop's body once in every slice of the group, masked, even where no lane waits. The barrier's
 * wait is the whole group's (wgsi_group_poll): a round lasts slices x 2 us and the budget holds
 * 65,535 of them, about 1 s of waiting at 64 work-items and 4 s at 256, where one waiting
 * invocation's rounds held 135 ms at any size. Measured on 2 cores with one busy process beside
 * lavapipe: a persistent loop of 1000 barriers at 64 work-items completes with 2 workers; with 4
 * the waits need about 5 s, and the driver cuts it near barrier 430 (950 at 256 work-items). A
 * longer chain buys waiting at its cost in every barrier: at 64 work-items, 1024 roots a slice
 * reached barrier 760 at 1.9x the barrier's cost, 2048 roots 770 at 3.8x; the chain's code
 * grows every module by its length. Also measured and dropped: atomic adds or clock reads as
 * the pause (lavapipe's compiler took minutes over 256 atomics a round; it merges straight-line
 * clock reads), and the loads unrolled (merged). Every build reports a loop that ended with its
 * condition unmet and no timeout (WGS_DEV_ERR_CUT, wgsi_cut) instead of passing through. GPUs
 * compile the pause away. */
layout(constant_id = 2000) const bool WGS_CPU_PAUSE = false;
/* A spin loop is entered only where some lane of the subgroup waits (a vote, uniform over the
 * subgroup: a compiler may branch past the loop in the subgroups that do not wait). */
#define WGSI_SOME_WAIT(c) subgroupAny(c)
#define WGSI_R4(x) x x x x
#define WGSI_PAUSE_STEP x = sqrt(x + 1.0);
#define WGSI_PAUSE_512 WGSI_R4(WGSI_R4(WGSI_R4(WGSI_R4(WGSI_PAUSE_STEP WGSI_PAUSE_STEP))))
void wgsi_pause(uint s)
{
  if (WGS_CPU_PAUSE) {
    /* a chain of dependent square roots: slow to run, quick to compile. Seeded by the clock:
     * from a loop-invariant seed (the state's base) the compiler hoisted the whole chain out
     * of discovery's wait loop, whose rounds then took 50 ns, not 1 us, and lavapipe cut a
     * participant's wait after 3.3 ms (65,534 rounds) on a loaded machine */
    float x = float(uint(wgsi_timer()) & 1023u) + float(s);
    WGSI_PAUSE_512
    atomicStore(wgs_w[s + WGS_W_PAUSE], floatBitsToUint(x), WGSI_SCOPE, WGSI_BUF,
                gl_SemanticsRelaxed); /* (nobody reads it: keeps the chain) */
  }
}
uint64_t wgsi_cfg64(uint lo) { return uint64_t(wgsi_cfg(lo + 1u)) << 32 | uint64_t(wgsi_cfg(lo)); }

/* ---- the environment (Table 2) ------------------------------------------------------------- */
struct wgs_env {
  uint s;            /* the launch's half: word index of its base */
  uint max_groups;   /* capacity of the per-group arrays */
  uint group_id;     /* participating group id (p_get_group_id) */
  uint num_groups;   /* participating groups (p_get_num_groups) */
  uint local_id;
  uint local_size;
  uint instance;     /* grid barriers passed (checked builds name them) */
  uint counted;      /* counter instances passed, full or split: the arrival target */
  uint split_state;  /* 0 idle, else arrived: bit 0, and a pending reduction's kind + 1 above it */
  uint waits;        /* 1: the arrival is an acq_rel add whose result is waited for */
  uint shards;       /* sharded launches: log2 S | log2 R << 4 (0: one count) */
  bool participating;
};
uint wgs_get_group_id(wgs_env env) { return env.group_id; }
uint wgs_get_num_groups(wgs_env env) { return env.num_groups; }
uint wgs_get_global_id(wgs_env env) { return env.group_id * env.local_size + env.local_id; }
uint wgs_get_global_size(wgs_env env) { return env.num_groups * env.local_size; }

/* ---- bounded spins and reports (checked builds; device/common/wgs_core.h has the same) -------
 * wgsi_gave_up returns 0 to go on, 1 when this spin ran past the host's bound and won the right to
 * report (the caller writes its report, then wgsi_abort_done), 2 once a report is written: the
 * others leave only then, so the report is a true snapshot of who had arrived. */
struct wgsi_spin {
  uint64_t start;
  uint iters;
};
wgsi_spin wgsi_spin_init()
{
  wgsi_spin sp;
  sp.iters = 0u;
  sp.start = WGS_CHECKED != 0 ? wgsi_timer() : uint64_t(0);
  return sp;
}
int wgsi_gave_up(uint s, inout wgsi_spin sp)
{
#if WGS_CHECKED
  uint state = wgsi_ld_rlx(s + WGS_W_ABORT);
  if (state == WGS_ABORT_DONE)
    return 2;
  if ((++sp.iters & 7u) != 0u) /* (the clock every 8 rounds) */
    return 0;
  if (wgsi_since(sp.start) <= wgsi_cfg64(WGS_CFG_LIMIT_LO) || state != WGS_ABORT_RUNNING)
    return 0;
  if (wgsi_cas_rlx(s + WGS_W_ABORT, WGS_ABORT_RUNNING, WGS_ABORT_REPORTING) != WGS_ABORT_RUNNING)
    return 0; /* another spin reports; wait for it */
  return 1;
#else
  return 0;
#endif
}
/* Release: the report written before it is complete when the others read DONE. */
void wgsi_abort_done(uint s) { wgsi_st_rel(s + WGS_W_ABORT, WGS_ABORT_DONE); }

void wgsi_report_lock(uint group)
{
  if (wgsi_cas_rlx(WGS_G_ERROR + WGS_ERR_CODE, 0u, WGS_DEV_ERR_LOCK) == 0u)
    wgsi_st_rlx(WGS_G_ERROR + WGS_ERR_REPORTER, group);
}
void wgsi_report_misuse(uint what, uint site, uint arrived, uint expected)
{
  if (wgsi_cas_rlx(WGS_G_ERROR + WGS_ERR_CODE, 0u, WGS_DEV_ERR_MISUSE) != 0u)
    return;
  wgsi_st_rlx(WGS_G_ERROR + WGS_ERR_SITE, site);
  wgsi_st_rlx(WGS_G_ERROR + WGS_ERR_INSTANCE, what);
  wgsi_st_rlx(WGS_G_ERROR + WGS_ERR_ARRIVED, arrived);
  wgsi_st_rlx(WGS_G_ERROR + WGS_ERR_EXPECTED, expected);
  wgsi_st_rlx(WGS_G_ERROR + WGS_ERR_REPORTER, gl_WorkGroupID.x);
}
/* A grid barrier (or split wait) that gave up: who had entered this instance and who not. */
void wgsi_report_grid(wgs_env env, uint site, uint code)
{
  if (wgsi_cas_rlx(WGS_G_ERROR + WGS_ERR_CODE, 0u, code) != 0u)
    return; /* somebody reported first */
  uint entered = env.s + WGS_OFF_ENTERED(env.max_groups), want = env.instance + 1u;
  uint arrived = 0u, missing = 0u;
  for (uint g = 0u; g < env.num_groups; ++g) {
    if (wgsi_ld_rlx(entered + g) >= want) {
      arrived++;
    } else {
      if (missing < WGS_ERR_MISSING_MAX)
        wgsi_st_rlx(WGS_G_ERROR + WGS_ERR_MISSING + missing, g);
      missing++;
    }
  }
  wgsi_st_rlx(WGS_G_ERROR + WGS_ERR_SITE, site);
  wgsi_st_rlx(WGS_G_ERROR + WGS_ERR_INSTANCE, env.instance);
  wgsi_st_rlx(WGS_G_ERROR + WGS_ERR_ARRIVED, arrived);
  wgsi_st_rlx(WGS_G_ERROR + WGS_ERR_EXPECTED, env.num_groups);
  wgsi_st_rlx(WGS_G_ERROR + WGS_ERR_REPORTER, env.group_id);
  wgsi_st_rlx(WGS_G_ERROR + WGS_ERR_MISSING_N, missing);
}

/* A loop the driver ended with its condition unmet (see WGS_CPU_PAUSE), in any build: the first
 * such loop of the launch is recorded (WGS_DEV_ERR_CUT: the site, the barrier instance, the
 * group), the host reports it, and the other groups' waits leave once they see it, so that no
 * launch whose loops were cut returns as if it ran. what: WGS_CUT_* below. */
#define WGS_CUT_BARRIER 0u
#define WGS_CUT_DISCOVERY 1u
#define WGS_CUT_REDUCTION 2u
void wgsi_cut(uint s, uint site, uint instance, uint expected, uint group, uint what)
{
  if (wgsi_cas_rlx(WGS_G_ERROR + WGS_ERR_CODE, 0u, WGS_DEV_ERR_CUT) == 0u) {
    wgsi_st_rlx(WGS_G_ERROR + WGS_ERR_SITE, site);
    wgsi_st_rlx(WGS_G_ERROR + WGS_ERR_INSTANCE, instance);
    wgsi_st_rlx(WGS_G_ERROR + WGS_ERR_EXPECTED, expected);
    wgsi_st_rlx(WGS_G_ERROR + WGS_ERR_REPORTER, group);
    wgsi_st_rlx(WGS_G_ERROR + WGS_ERR_ARRIVED, what);
#if WGS_CHECKED
    /* and the others leave, as after a spin that gave up: a group whose loop was not cut
     * would otherwise wait out its own limit, one group after another on a CPU's workers
     * (40,000 groups of a launch too large: tens of minutes) */
    wgsi_abort_done(s);
#endif
  }
}
/* Unchecked builds on a loop-capping driver: a wait leaves once a cut was recorded (checked
 * builds leave through the abort word). Folded away on GPUs. */
bool wgsi_cut_seen()
{
  return WGS_CPU_PAUSE && WGS_CHECKED == 0 &&
         wgsi_ld_rlx(WGS_G_ERROR + WGS_ERR_CODE) == WGS_DEV_ERR_CUT;
}

/* ---- discovery: wgsync's lock-free poll (WGS_LOCK_KIND_FREE) ------------------------------------------------------
 * As wgsi_poll_free in device/common/wgs_core.h, whose comment proves the four properties of
 * Sorensen et al. 2016 §3.2: old = add(count, 1) polls (the CLOSED bit set: not taking part);
 * participant 0 waits until the count has been quiet for the host's close wait (or reached the
 * host's "enough"), closes with or(count, CLOSED), whose result n is exact, and publishes n + 1
 * with a release store; every participant waits for it with an acquire load. */
/* The close wait's "enough": the host's count, or the launch's group count if that is fewer (or
 * the host gave none): once every launched group has polled, no more can come. */
uint wgsi_enough(uint launched)
{
  uint enough = wgsi_cfg(WGS_CFG_ENOUGH);
  return enough == 0u || enough > launched ? launched : enough;
}
uint wgsi_poll(uint s, uint group, uint mg, uint launched)
{
  uint final_word = s + WGS_OFF_FINAL(mg);
  uint old = wgsi_add_rlx(s + WGS_W_COUNT, 1u);
  if ((old & WGS_COUNT_CLOSED) != 0u)
    return WGS_NOT_PARTICIPATING;
  /* The whole launch polled before any close: the count is final (wgs__poll_free argues it). */
  if (old == launched - 1u)
    wgsi_st_rel(final_word, launched + 1u);
  if (old == 0u) {
    /* the close wait (wgsi_quiesce): restarts whenever the count moves */
    uint64_t wait = wgsi_cfg64(WGS_CFG_WAIT_LO), w0 = wgsi_timer();
    uint enough = wgsi_enough(launched), seen = 1u;
    while (seen < enough && wgsi_since(w0) < wait) {
      if (wgsi_ld_rlx(s + WGS_W_ABORT) != 0u)
        break; /* a checked spin gave up: waiting longer adds nobody */
      uint now = wgsi_ld_rlx(s + WGS_W_COUNT);
      if (now != seen) {
        seen = now;
        w0 = wgsi_timer();
      }
      wgsi_pause(s);
    }
    /* Not all polled: close. The RMW reads the latest count, so n is exact; release publishes
     * it. (All polled: the last group stores the same value; this group's invocations read
     * final after the barrier.) */
    uint n = seen != launched ? wgsi_or_rlx(s + WGS_W_COUNT, WGS_COUNT_CLOSED) : seen;
    wgsi_st_rel(final_word, n + 1u);
    wgsi_st_rlx(WGS_G_CTRL + WGS_CTRL_PARTICIPANTS, n);
    wgsi_st_rlx(WGS_G_CTRL + WGS_CTRL_RESULT_EPOCH, 0u);
  } else if (old != launched - 1u) {
    wgsi_spin sp = wgsi_spin_init();
    int why = 0;
    if (WGSI_SOME_WAIT(wgsi_ld_rlx(final_word) == 0u)) {
      while (wgsi_ld_rlx(final_word) == 0u) {
        wgsi_pause(s);
        why = wgsi_gave_up(s, sp);
        if (why == 1) {
          wgsi_report_lock(group);
          wgsi_abort_done(s);
        }
        if (why != 0 || wgsi_cut_seen())
          break;
      }
    }
    if (WGS_CPU_PAUSE && why == 0 && wgsi_ld_rlx(final_word) == 0u)
      wgsi_cut(s, 0u, 0u, launched, group, WGS_CUT_DISCOVERY); /* the final count never came */
    wgsi_ld_acq(final_word); /* synchronises with the release store of final */
  }
  return old;
}

/* ---- discovery under a mutex: Fig. 3 as published (device/common/wgs_core.h, wgs__poll_locked,
 * argues the four properties), with the ticket or spin lock of §5.1 and the delay of §5.4.
 * Returns false when a checked spin gave up (reported). */
bool wgsi_lock(uint s, uint kind, inout uint ticket, uint group, inout wgsi_spin sp)
{
  for (;;) {
    /* Test-and-set, or the ticket now served: acquire, so the critical section sees the last
     * holder's writes (taking a ticket needs no ordering). */
    bool held = kind == WGS_LOCK_KIND_SPIN
                    ? atomicExchange(wgs_w[s + WGS_W_SPIN], 1u, WGSI_SCOPE, WGSI_BUF, WGSI_ACQ) == 0u
                    : wgsi_ld_acq(s + WGS_W_TICKET_SERVE) == ticket;
    if (held)
      return true;
    wgsi_pause(s);
    int why = wgsi_gave_up(s, sp);
    if (why == 1) {
      wgsi_report_lock(group);
      wgsi_abort_done(s);
    }
    if (why != 0)
      return false;
  }
  if (WGS_CPU_PAUSE) /* only the driver ends this loop */
    wgsi_cut(s, 0u, 0u, 0u, group, WGS_CUT_DISCOVERY);
  return false;
}
bool wgsi_take(uint s, uint kind, inout uint ticket, uint group, inout wgsi_spin sp)
{
  if (kind != WGS_LOCK_KIND_SPIN)
    ticket = wgsi_add_rlx(s + WGS_W_TICKET_NEXT, 1u);
  return wgsi_lock(s, kind, ticket, group, sp);
}
void wgsi_unlock(uint s, uint kind, uint ticket)
{
  /* Release: the next holder's acquire sees everything done under the mutex. */
  if (kind == WGS_LOCK_KIND_SPIN)
    wgsi_st_rel(s + WGS_W_SPIN, 0u);
  else
    wgsi_st_rel(s + WGS_W_TICKET_SERVE, ticket + 1u);
}
uint wgsi_poll_locked(uint s, uint group)
{
  uint kind = wgsi_cfg(WGS_CFG_LOCK), delay = wgsi_cfg(WGS_CFG_DELAY);
  uint ticket = 0u, id = WGS_NOT_PARTICIPATING;
  wgsi_spin sp = wgsi_spin_init();
  /* polling phase (accesses under the mutex may be relaxed: the mutex orders them) */
  if (wgsi_take(s, kind, ticket, group, sp)) {
    if (wgsi_ld_rlx(s + WGS_W_CLOSED) == 0u) {
      id = wgsi_ld_rlx(s + WGS_W_COUNT);
      wgsi_st_rlx(s + WGS_W_COUNT, id + 1u);
    }
    wgsi_unlock(s, kind, ticket);
  }
  if (id != WGS_NOT_PARTICIPATING) {
    sp = wgsi_spin_init(); /* the whole delay is one bounded spin */
    for (uint d = 0u; d < delay; ++d) {
      if (!wgsi_take(s, kind, ticket, group, sp))
        break;
      wgsi_unlock(s, kind, ticket);
    }
    /* the close wait, outside the mutex; it also ends once the poll closed or a spin aborted */
    uint64_t wait = wgsi_cfg64(WGS_CFG_WAIT_LO), w0 = wgsi_timer();
    uint enough = wgsi_enough(gl_NumWorkGroups.x), seen = id + 1u;
    while (seen < enough && wgsi_since(w0) < wait) {
      if (wgsi_ld_acq(s + WGS_W_CLOSED) != 0u || wgsi_ld_rlx(s + WGS_W_ABORT) != 0u)
        break;
      uint now = wgsi_ld_rlx(s + WGS_W_COUNT);
      if (now != seen) {
        seen = now;
        w0 = wgsi_timer();
      }
      wgsi_pause(s);
    }
    /* closing phase: the first to close makes the count final */
    sp = wgsi_spin_init();
    if (wgsi_take(s, kind, ticket, group, sp)) {
      if (wgsi_ld_rlx(s + WGS_W_CLOSED) == 0u) {
        wgsi_st_rlx(s + WGS_W_CLOSED, 1u);
        uint n = wgsi_ld_rlx(s + WGS_W_COUNT);
        wgsi_st_rlx(s + WGS_OFF_FINAL(wgsi_cfg(WGS_CFG_MAX_GROUPS)), n + 1u);
        wgsi_st_rlx(WGS_G_CTRL + WGS_CTRL_PARTICIPANTS, n);
        wgsi_st_rlx(WGS_G_CTRL + WGS_CTRL_RESULT_EPOCH, 0u);
      }
      wgsi_unlock(s, kind, ticket);
    }
  }
  return id;
}

/* A participant's protocol start and end in clock ticks (timed launches: the host scales them by
 * the clock's measured rate), as wgs__stamp in device/common/wgs_core.h. */
void wgsi_stamp(uint s, uint mg, uint group, uint64_t t0)
{
  uint t = s + WGS_OFF_TIME(mg) + 4u * group;
  uint64_t t1 = wgsi_timer();
  wgsi_st_rlx(t, uint(t0));
  wgsi_st_rlx(t + 1u, uint(t0 >> 32));
  wgsi_st_rlx(t + 2u, uint(t1));
  wgsi_st_rlx(t + 3u, uint(t1 >> 32));
}

/* wgs_discover: first in the shader, from every invocation, outside any condition; 1-D
 * dispatches. Returns true when this group takes part (the same answer for the whole group). */
bool wgsi_discover(out wgs_env env, uint site)
{
  uint group = gl_WorkGroupID.x, launched = gl_NumWorkGroups.x;
  uint lid = gl_LocalInvocationIndex;
  uint lsize = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;
  uint mg = wgsi_cfg(WGS_CFG_MAX_GROUPS), mode = wgsi_cfg(WGS_CFG_MODE);
  uint s = WGS_HALF(mg, 0u);
  if (lid == 0u) {
    uint id = WGS_NOT_PARTICIPATING;
    uint64_t t0 = wgsi_cfg(WGS_CFG_TIMED) != 0u ? wgsi_timer() : uint64_t(0);
    if (group < mg) {
      /* a second call in a group answers as the first did, and checked builds report it */
      if (wgsi_add_rlx(s + WGS_OFF_CALLS(mg) + group, 1u) != 0u) {
        if (WGS_CHECK_MISUSE != 0)
          wgsi_report_misuse(WGS_MISUSE_DISCOVER_TWICE, site, 0u, 0u);
        id = wgsi_ld_rlx(s + WGS_OFF_MAP(mg) + group);
      } else {
        id = mode != WGS_MODE_DISCOVER                    ? group
             : wgsi_cfg(WGS_CFG_LOCK) == WGS_LOCK_KIND_FREE ? wgsi_poll(s, group, mg, launched)
                                                            : wgsi_poll_locked(s, group);
        wgsi_st_rlx(s + WGS_OFF_MAP(mg) + group, id);
        if (id != WGS_NOT_PARTICIPATING && wgsi_cfg(WGS_CFG_TIMED) != 0u)
          wgsi_stamp(s, mg, group, t0);
      }
    }
    wgsi_sh[0] = id;
  }
  wgsi_group_barrier(); /* carries the representative's answer (and its acquire) to the group */
  uint id = wgsi_sh[0];
  env.s = s;
  env.max_groups = mg;
  env.local_id = lid;
  env.local_size = lsize;
  env.instance = 0u;
  env.counted = 0u;
  env.split_state = 0u;
  if (mode != WGS_MODE_DISCOVER) {
    env.participating = launched <= mg;
    env.group_id = group;
    env.num_groups = launched;
  } else {
    env.participating = id != WGS_NOT_PARTICIPATING;
    env.group_id = env.participating ? id : 0u;
    /* the representative acquired final (or published it), or closed the poll or saw it closed
     * under the mutex after every increment; the barrier carried that here */
    env.num_groups = !env.participating ? 0u
                     : wgsi_cfg(WGS_CFG_LOCK) == WGS_LOCK_KIND_FREE
                         ? wgsi_ld_rlx(s + WGS_OFF_FINAL(mg)) - 1u
                         : wgsi_ld_rlx(s + WGS_W_COUNT);
  }
  /* the counter's shape for this launch, from the group count alone (wgs__choose_shards in
   * device/common/wgs_core.h): S arrival shards and R published replicas, at most the group's
   * size, from the host's WGS_CFG_SHARDS count of groups on; else one count, whose arrival
   * waits for its add from WGS_CFG_ATOM_MIN groups on */
  uint c = wgsi_cfg(WGS_CFG_SHARDS), S = c & 255u, R = (c >> 8) & 255u;
  while (S > lsize)
    S >>= 1;
  while (R > lsize)
    R >>= 1;
  uint atom_min = wgsi_cfg(WGS_CFG_ATOM_MIN);
  env.shards = S != 0u && R != 0u && env.num_groups >= (c >> 16)
                   ? uint(findMSB(S)) | uint(findMSB(R)) << 4 | 256u
                   : 0u;
  env.waits = env.shards == 0u && atom_min != 0u && env.num_groups >= atom_min ? 1u : 0u;
  wgsi_group_barrier(); /* every invocation has read wgsi_sh before a barrier writes it again */
  return env.participating;
}

/* ---- the counter grid barrier (device/common/wgs_core.h, "Counter barrier") --------------------
 * Instance k is complete when every participating group has arrived k + 1 times. The
 * representative's arrival is a release add on the one count (after B1, which made the group's
 * writes available to it), or an acq_rel add whose result it waits for (env.waits: from the
 * host's WGS_CFG_ATOM_MIN groups, as grid.sync() does). It polls with relaxed loads until the
 * count reaches n (k + 1), then makes one acquire load: that load reads a value written by an RMW
 * in the release sequence of every arrival (the adds form one chain), so it synchronises with all
 * of them; the representative whose acq_rel add made the target polls nothing. B3 carries the
 * acquire to the group. Counts are monotonic, compared by signed difference: nothing is reset. */

/* Checked builds: every invocation counts its entry (the host compares the counts after the
 * launch), and the representative records the group's arrival (named in deadlock reports). */
void wgsi_count_entry(wgs_env env, uint site)
{
#if WGS_CHECK_MISUSE
  if (env.participating) {
    wgsi_add_rlx(env.s + WGS_OFF_WITEMS(env.max_groups) + env.group_id, 1u);
    wgsi_st_rlx(WGS_SITE(env.max_groups, 0u) + env.group_id, site);
  }
#endif
}
void wgsi_check_entry(wgs_env env, uint site)
{
#if WGS_CHECKED
  if (env.participating)
    wgsi_st_rlx(env.s + WGS_OFF_ENTERED(env.max_groups) + env.group_id, env.instance + 1u);
#endif
#if WGS_CHECK_MISUSE
  if (!env.participating) {
    wgsi_report_misuse(WGS_MISUSE_NOT_PARTICIPATING, site, 0u, 0u);
    return;
  }
  uint entered = wgsi_ld_rlx(env.s + WGS_OFF_WITEMS(env.max_groups) + env.group_id) -
                 (env.instance + (env.split_state & 1u)) * env.local_size;
  if (entered < env.local_size)
    wgsi_report_misuse(WGS_MISUSE_PARTIAL_GROUP, site, entered, env.local_size);
#endif
}
/* Relaxed polls of the count until it reaches target, then the acquire load (see above). */
bool wgsi_reached(uint word, uint target) { return int(wgsi_ld_rlx(word) - target) >= 0; }
void wgsi_poll_until(wgs_env env, uint word, uint target, uint site)
{
  wgsi_spin sp = wgsi_spin_init();
  int why = 0;
  if (WGSI_SOME_WAIT(!wgsi_reached(word, target))) {
    while (!wgsi_reached(word, target)) {
      wgsi_pause(env.s);
      why = wgsi_gave_up(env.s, sp);
      if (why == 1) {
        wgsi_report_grid(env, site, WGS_DEV_ERR_GRID_BARRIER);
        wgsi_abort_done(env.s);
      }
      if (why != 0 || wgsi_cut_seen())
        break;
    }
  }
  /* the driver ended the loop (see WGS_CPU_PAUSE): its budget is spent, so no loop names who
   * is missing; a wait that left on another's cut records nothing */
  if ((WGS_CPU_PAUSE || WGS_CHECKED != 0) && why == 0 && !wgsi_reached(word, target))
    wgsi_cut(env.s, site, env.instance, env.num_groups, env.group_id, WGS_CUT_BARRIER);
  wgsi_ld_acq(word);
}
/* The one-count wait on a loop-capping CPU device (WGS_CPU_PAUSE): the whole group waits
 * together. lavapipe runs a loop's body once in every 8-lane slice of the group, masked, even
 * where no lane waits, so a wait of the representative alone costs every other slice one pause
 * per barrier while only its own rounds spend the budget; here every slice pauses in every
 * round, so a round lasts slices x pause and the budget holds that many times more waiting for
 * the same cost when nobody waits (one round, no pause). Round r: the representative polls (need:
 * it waits), writes its answer to slot r mod 2 (0: go on, 1: reached, 2: leave: a checked spin
 * gave up, or another group's loop was cut) and the group reads it after a work-group barrier,
 * so the exit is uniform; the slot is next written in round r + 2, after every invocation passed
 * round r + 1's barrier, hence after it read round r's. A loop the driver ended still reads 0:
 * that is the cut, reported. The acquire load after it is the representative's, as in
 * wgsi_poll_until, and B3 carries it to the group. */
void wgsi_group_poll(wgs_env env, bool need, uint word, uint target, uint site)
{
  wgsi_spin sp = wgsi_spin_init();
  uint r = 0u, answer = 0u;
  for (;;) {
    if (env.local_id == 0u) {
      uint a = 1u;
      if (need && !wgsi_reached(word, target)) {
        int why = wgsi_gave_up(env.s, sp);
        if (why == 1) {
          wgsi_report_grid(env, site, WGS_DEV_ERR_GRID_BARRIER);
          wgsi_abort_done(env.s);
        }
        a = why != 0 || wgsi_cut_seen() ? 2u : 0u;
      }
      wgsi_wait_sh[r & 1u] = a;
    }
    wgsi_group_barrier();
    answer = wgsi_wait_sh[r & 1u];
    r++;
    if (answer != 0u)
      break;
    wgsi_pause(env.s);
  }
  if (answer == 0u && env.local_id == 0u) /* the driver ended the loop */
    wgsi_cut(env.s, site, env.instance, env.num_groups, env.group_id, WGS_CUT_BARRIER);
  if (need)
    wgsi_ld_acq(word);
}

/* Sharded launches (env.shards): group g's representative adds on shard g mod S, its own line,
 * so no line takes more than n / S arrivals; in participant 0, the combiner, invocation i < S
 * polls shard i (relaxed, then one acquire load: the argument above, per shard), the join (a
 * work-group barrier in every group, so that it stays uniform) carries what they acquired to
 * invocations r < R, which store the instance on replica line r with a release store;
 * happens-before is transitive, so a representative whose acquire reads replica g mod R
 * synchronises with every arrival. No line has more than n / R pollers. */
uint wgsi_shard(wgs_env env, uint i) { return env.s + WGS_W_SHARDS + i * WGS_LINE_WORDS; }
uint wgsi_replica(wgs_env env, uint r)
{
  return env.s + WGS_W_SHARDS + (WGS_SHARDS_MAX + r) * WGS_LINE_WORDS;
}
/* The representative's arrival (its invocation only). Returns the count its add made when it
 * waits for the add (one count, env.waits, may_wait), else 0. */
uint wgsi_arrive(wgs_env env, bool may_wait)
{
  uint ls = env.shards & 15u;
  uint shard = wgsi_shard(env, env.group_id & ((1u << ls) - 1u));
  if (may_wait && env.waits != 0u)
    return wgsi_add_acqrel(shard, 1u) + 1u;
  wgsi_add_rel(shard, 1u);
  return 0u;
}
/* The wait, for every invocation of the group (part: the group takes part and arrived): the
 * polls and, in sharded launches, the join and the replicas. made: wgsi_arrive's answer. */
void wgsi_counter_wait(wgs_env env, bool part, uint made, uint site)
{
  uint want = env.counted + 1u, lid = env.local_id, n = env.num_groups;
  uint ls = env.shards & 15u, lr = (env.shards >> 4) & 15u;
  bool sharded = env.shards != 0u, combiner = part && sharded && env.group_id == 0u;
  if (!sharded) {
    uint target = n * want;
    bool need = part && lid == 0u && (made == 0u || int(made - target) < 0); /* (the last: done) */
    if (WGS_CPU_PAUSE)
      wgsi_group_poll(env, need, wgsi_shard(env, 0u), target, site);
    else if (need)
      wgsi_poll_until(env, wgsi_shard(env, 0u), target, site);
  } else {
    /* The shape is the same in every invocation of the group (it follows from the group count
     * alone), so the join below is in uniform control flow. No early return before it: a
     * return on the shape ahead of this work-group barrier broke the lock-free discovery of
     * NVIDIA's checked self-test kernel (its participants waited past the limit for the
     * count). The one-count shape has no join: an extra work-group barrier there cost 0.08 us
     * at 132 x 256 and 0.4 us at 264 x 1024 (H100). */
    if (combiner && lid < (1u << ls))
      wgsi_poll_until(env, wgsi_shard(env, lid),
                      (n >> ls) * want + (lid < (n & ((1u << ls) - 1u)) ? want : 0u), site);
    wgsi_group_barrier(); /* the join */
    if (combiner && lid < (1u << lr))
      wgsi_st_rel(wgsi_replica(env, lid), want);
    if (part && !combiner && lid == 0u)
      wgsi_poll_until(env, wgsi_replica(env, env.group_id & ((1u << lr) - 1u)), want, site);
  }
}
/* with_or: the barrier with an OR of v over the grid (wgs_core.h's wgs__grid_barrier_body has
 * the argument for the tag on WGS_W_OR: stored before the arrival that releases it, read after
 * the acquire, never cleared, instance k's word next written at k + 2). */
bool wgsi_grid_barrier(inout wgs_env env, uint site, bool with_or, bool v)
{
  uint orw = env.s + WGS_W_OR + (env.instance & 1u), lid = env.local_id;
  /* The group's OR in shared memory: slot 1 or 2 by the instance's parity, so that the reset
   * for this call never races with a read of the last call's answer (a read of the slot two
   * calls back precedes this call's first barrier in every invocation). */
  uint slot = 1u + (env.instance & 1u);
  if (with_or) {
    if (lid == 0u)
      wgsi_sh[slot] = 0u;
    wgsi_group_barrier();
    if (v)
      wgsi_sh[slot] = 1u; /* (any invocation may raise it; B1 orders it before the read) */
  }
  wgsi_group_barrier(); /* B1: the group's writes before the representative's release */
  uint made = 0u;
  if (lid == 0u) {
    wgsi_check_entry(env, site);
    if (env.participating) {
      if (with_or && wgsi_sh[slot] != 0u)
        wgsi_st_rlx(orw, env.instance + 1u); /* released by the arrival below */
      made = wgsi_arrive(env, true);
    }
  }
  wgsi_counter_wait(env, env.participating, made, site);
  /* (lid 0 has acquired every arrival: its poll, its acq_rel add, or the join) */
  if (with_or && lid == 0u && env.participating)
    wgsi_sh[slot] = wgsi_ld_rlx(orw) == env.instance + 1u ? 1u : 0u;
  wgsi_group_barrier(); /* B3: the representative's acquire, carried to the group */
  bool any = with_or && wgsi_sh[slot] != 0u;
  env.counted++;
  env.instance++;
  return any;
}

/* Split grid barrier: arrive releases what the group wrote (B1, the release add); wait polls for
 * the instance and acquires (the acquire load, B3). Work between them overlaps the barrier.
 * Checked builds report a wait without an arrive and a second arrive. */
void wgsi_split_misuse(wgs_env env, uint site)
{
#if WGS_CHECKED
  if (env.local_id == 0u) {
    wgsi_report_grid(env, site, WGS_DEV_ERR_SPLIT);
    wgsi_abort_done(env.s);
  }
#endif
}
void wgsi_grid_arrive(inout wgs_env env, uint site, uint state)
{
  if (env.split_state != 0u)
    wgsi_split_misuse(env, site);
  wgsi_group_barrier();
  if (env.local_id == 0u) {
    wgsi_check_entry(env, site);
    if (env.participating)
      wgsi_arrive(env, false); /* a split arrive never waits */
  }
  env.split_state = state;
}
/* state: what the arrive this wait completes set (1: a plain arrive) */
void wgsi_grid_wait(inout wgs_env env, uint site, uint state)
{
  if (env.split_state != state)
    wgsi_split_misuse(env, site);
  wgsi_counter_wait(env, env.participating && env.split_state == state, 0u, site);
  wgsi_group_barrier();
  env.split_state = 0u;
  env.counted++;
  env.instance++;
}

/* Grid reductions (device/common/wgs_core.h, "grid reductions", has the argument): the group's
 * value stored at its id in the buffer of the instance's parity before the barrier (released by
 * the arrival), every group folding every value in the same order after it. The work-group step:
 * the subgroup's reduction (GL_KHR_shader_subgroup_arithmetic), each subgroup's value in shared
 * memory, invocation 0 folding them in subgroup order, its answer in shared memory for the
 * group: a fixed order on a given device, so every group computes the same bits. Reuse: a call
 * writes the subgroups' words before its first barrier, after the last call's invocation 0 read
 * them before its last; the answer after its first, which every invocation passes only after
 * reading the last answer. */
#define WGS_SUM 0u
#define WGS_MIN 1u
#define WGS_MAX 2u
#define WGSI_RED_FSUM 3u
#define WGSI_RED_SLOTS 64u
shared uint wgsi_red[WGSI_RED_SLOTS + 1u];
uint wgsi_red_identity(uint kind)
{
  return kind == WGS_MIN ? 0xffffffffu : kind == WGSI_RED_FSUM ? 0x80000000u : 0u;
}
uint wgsi_red_op(uint kind, uint a, uint b)
{
  if (kind == WGSI_RED_FSUM)
    return floatBitsToUint(uintBitsToFloat(a) + uintBitsToFloat(b));
  return kind == WGS_SUM ? a + b : kind == WGS_MIN ? min(a, b) : max(a, b);
}
/* floats' min and max in totalOrder, as unsigned keys (wgs_core.h's wgs__fkey) */
uint wgsi_fkey(uint u) { return u ^ ((u >> 31) != 0u ? 0xffffffffu : 0x80000000u); }
uint wgsi_funkey(uint k) { return k ^ ((k >> 31) != 0u ? 0x80000000u : 0xffffffffu); }
uint wgsi_subgroup_reduce(uint kind, uint x)
{
  /* subgroupAdd may start from +0.0 (lavapipe's does): a sum of -0.0 alone is -0.0 in IEEE
   * round-to-nearest, and -0.0 is the float sum's identity here, so that case is taken apart */
  if (kind == WGSI_RED_FSUM)
    return subgroupAll(x == 0x80000000u) ? 0x80000000u
                                         : floatBitsToUint(subgroupAdd(uintBitsToFloat(x)));
  return kind == WGS_SUM ? subgroupAdd(x) : kind == WGS_MIN ? subgroupMin(x) : subgroupMax(x);
}
/* Returns the group's value; *cut is set when the driver ended one of its loops early. */
uint wgsi_group_reduce(uint kind, uint x, inout bool cut)
{
  uint v = wgsi_subgroup_reduce(kind, x), acc = wgsi_red_identity(kind), base = 0u;
  for (; base < gl_NumSubgroups; base += WGSI_RED_SLOTS) {
    if (subgroupElect() && gl_SubgroupID >= base && gl_SubgroupID - base < WGSI_RED_SLOTS)
      wgsi_red[gl_SubgroupID - base] = v;
    wgsi_group_barrier();
    if (gl_LocalInvocationIndex == 0u) {
      uint i = 0u, end = min(WGSI_RED_SLOTS, gl_NumSubgroups - base);
      for (; i < end; ++i)
        acc = wgsi_red_op(kind, acc, wgsi_red[i]);
      cut = cut || (WGS_CPU_PAUSE && i < end);
    }
    wgsi_group_barrier();
  }
  cut = cut || (WGS_CPU_PAUSE && base < gl_NumSubgroups);
  if (gl_LocalInvocationIndex == 0u)
    wgsi_red[WGSI_RED_SLOTS] = acc;
  wgsi_group_barrier();
  return wgsi_red[WGSI_RED_SLOTS];
}
uint wgsi_red_kind(uint op, bool f32) { return f32 && op == WGS_SUM ? WGSI_RED_FSUM : op; }
uint wgsi_red_in(uint op, bool f32, uint bits) { return f32 && op != WGS_SUM ? wgsi_fkey(bits) : bits; }
uint wgsi_red_out(uint op, bool f32, uint w) { return f32 && op != WGS_SUM ? wgsi_funkey(w) : w; }
void wgsi_red_put(wgs_env env, uint kind, uint x, uint site)
{
  bool cut = false;
  uint mine = wgsi_group_reduce(kind, x, cut);
  if (cut && env.local_id == 0u)
    wgsi_cut(env.s, site, env.instance, env.num_groups, env.group_id, WGS_CUT_REDUCTION);
  if (env.participating && env.local_id == 0u)
    wgsi_st_rlx(WGS_RED_PART(env.max_groups) + (env.instance & 1u) * env.max_groups + env.group_id,
                mine);
}
uint wgsi_red_get(wgs_env env, uint kind, uint instance, uint site)
{
  uint part = WGS_RED_PART(env.max_groups) + (instance & 1u) * env.max_groups;
  uint acc = wgsi_red_identity(kind);
  bool cut = false;
  if (env.participating) {
    uint i = env.local_id;
    for (; i < env.num_groups; i += env.local_size)
      acc = wgsi_red_op(kind, acc, wgsi_ld_rlx(part + i));
    cut = WGS_CPU_PAUSE && i < env.num_groups;
  }
  uint all = wgsi_group_reduce(kind, acc, cut);
  if (cut) /* (any invocation: the first report stands) */
    wgsi_cut(env.s, site, instance, env.num_groups, env.group_id, WGS_CUT_REDUCTION);
  return all;
}
uint wgsi_red_state(uint op, bool f32) { return 1u | (op + (f32 ? 3u : 0u) + 1u) << 1; }

/* ---- the API: the call's line is what a checked build names ----------------------------------- */
void wgsi_barrier_at(inout wgs_env env, uint site)
{
  wgsi_count_entry(env, site);
  wgsi_grid_barrier(env, site, false, false);
}
bool wgsi_barrier_or_at(inout wgs_env env, bool v, uint site)
{
  wgsi_count_entry(env, site);
  return wgsi_grid_barrier(env, site, true, v);
}
/* wgs_grid_barrier_or tests v != 0 as given, as in OpenCL C and CUDA: a uint, an int or a float
 * (a fraction is not narrowed to 0) as well as a bool */
bool wgsi_barrier_or_at(inout wgs_env env, uint v, uint site) { return wgsi_barrier_or_at(env, v != 0u, site); }
bool wgsi_barrier_or_at(inout wgs_env env, int v, uint site) { return wgsi_barrier_or_at(env, v != 0, site); }
bool wgsi_barrier_or_at(inout wgs_env env, float v, uint site) { return wgsi_barrier_or_at(env, v != 0.0, site); }
void wgsi_arrive_at(inout wgs_env env, uint site)
{
  wgsi_count_entry(env, site);
  wgsi_grid_arrive(env, site, 1u);
}
uint wgsi_reduce_at(inout wgs_env env, uint op, bool f32, uint bits, uint site)
{
  wgsi_count_entry(env, site);
  uint kind = wgsi_red_kind(op, f32), instance = env.instance;
  wgsi_red_put(env, kind, wgsi_red_in(op, f32, bits), site);
  wgsi_grid_barrier(env, site, false, false);
  return wgsi_red_out(op, f32, wgsi_red_get(env, kind, instance, site));
}
void wgsi_arrive_reduce_at(inout wgs_env env, uint op, bool f32, uint bits, uint site)
{
  wgsi_count_entry(env, site);
  wgsi_red_put(env, wgsi_red_kind(op, f32), wgsi_red_in(op, f32, bits), site);
  wgsi_grid_arrive(env, site, wgsi_red_state(op, f32));
}
uint wgsi_wait_reduce_at(inout wgs_env env, uint op, bool f32, uint site)
{
  uint instance = env.instance;
  wgsi_grid_wait(env, site, wgsi_red_state(op, f32));
  return wgsi_red_out(op, f32, wgsi_red_get(env, wgsi_red_kind(op, f32), instance, site));
}
#define wgs_discover(env) wgsi_discover(env, uint(__LINE__))
/* Every invocation of every participating group calls it the same number of times (§4.3). */
#define wgs_grid_barrier(env) wgsi_barrier_at(env, uint(__LINE__))
/* The same barrier; true in every invocation when any invocation of any group passed true. */
#define wgs_grid_barrier_or(env, v) wgsi_barrier_or_at(env, (v), uint(__LINE__))
#define wgs_grid_arrive(env) wgsi_arrive_at(env, uint(__LINE__))
#define wgs_grid_wait(env) wgsi_grid_wait(env, uint(__LINE__), 1u)
/* Grid reductions: op (WGS_SUM, WGS_MIN, WGS_MAX) over every participating invocation's value,
 * in every one of them (wgs_core.h's API says the rest); split forms arrive with the value and
 * wait for the answer. */
#define wgs_grid_reduce_u32(env, op, v) wgsi_reduce_at(env, (op), false, uint(v), uint(__LINE__))
#define wgs_grid_reduce_f32(env, op, v) \
  uintBitsToFloat(wgsi_reduce_at(env, (op), true, floatBitsToUint(float(v)), uint(__LINE__)))
#define wgs_grid_arrive_reduce_u32(env, op, v) \
  wgsi_arrive_reduce_at(env, (op), false, uint(v), uint(__LINE__))
#define wgs_grid_arrive_reduce_f32(env, op, v) \
  wgsi_arrive_reduce_at(env, (op), true, floatBitsToUint(float(v)), uint(__LINE__))
#define wgs_grid_wait_reduce_u32(env, op) wgsi_wait_reduce_at(env, (op), false, uint(__LINE__))
#define wgs_grid_wait_reduce_f32(env, op) \
  uintBitsToFloat(wgsi_wait_reduce_at(env, (op), true, uint(__LINE__)))

#endif
