/*
 * wgsync device library, the core: occupancy discovery (Sorensen et al. 2016 §3, Fig. 3 and Table 2, with
 * the ticket and spin locks of §5.1 and the delay of §5.4), wgsync's lock-free discovery, the
 * grid barriers among participating groups (the XF barrier of §2.2 made correct as in §4.2,
 * and wgsync's counter barrier), the split grid barrier, and checked builds' bounded spins and
 * reports. Written once for OpenCL C and CUDA C.
 *
 * Where it comes from: the OpenCL library concatenates wgs_layout.h, its language layer
 * (device/opencl/wgs_atomics.cl), this file and wgs_split_wg.cl into wgsync.cl; the CUDA library
 * (device/cuda/wgsync.cuh) is its language layer, then #include "wgs_core.h". So this file
 * includes nothing and uses only what a layer defines:
 *
 *   WGS_FN                    how a library function is declared (inline, device)
 *   wgs_word_ptr, wgs__u64    a pointer to a 32-bit state word in global memory; 64-bit unsigned
 *   wgs__ld_acq  wgs__ld_rlx  wgs__st_rel  wgs__st_rlx  wgs__add_rlx  wgs__add_acqrel
 *   wgs__red_rel wgs__add_rel wgs__xchg_acq wgs__or_rlx wgs__cas_rlx (wgs__min_rlx wgs__max_rlx: where
 *                             the core's work-group reduction is used)
 *                             device-scope atomics with the named ordering (the layer's comments
 *                             say how each is made on its platform); wgs__fence_acq_rel(), a
 *                             device-scope acq_rel fence
 *   WGS_HAS_TIMER, wgs__timer_ns()   a nanosecond clock, or 0 (then spins count iterations)
 *   WGS_HAS_GRIDID, wgs__gridid()    a number that tells launches apart (CUDA's %gridid), or 0;
 *                             where 1, also wgs__ld_rlx64(p) and wgs__st_rlx64(p, v): relaxed
 *                             device-scope 64-bit accesses of an aligned pair of state words
 *   wgs__mirror_put(s, word, v)      the host-mapped copy of a result word, where there is one
 *   wgs__group_index() wgs__group_count() wgs__local_index() wgs__local_count()   1-D ids
 *   wgs__group_barrier()      a work-group barrier that orders global memory (OpenCL's barrier
 *                             with both fences; CUDA's __syncthreads, CTA-scope ordering)
 *   wgs__group_barrier_or(env, slot, v)   optional: the same barrier, returning in every
 *                             work-item whether any passed v != 0 (CUDA __syncthreads_or, PTX
 *                             bar.red.or); without it the core meets in global memory (below)
 *   WGS__JOIN(env, part, full)  the join between a grid barrier's two phases: a work-group
 *                             barrier when full (the XF barrier's B2); otherwise at least the
 *                             counter combiner's polling work-items (wgs__combiner) together
 *                             (OpenCL: always the barrier, PoCL 3.1 needs every barrier outside
 *                             conditions; CUDA: __syncwarp in the combiner's first warp)
 *   wgs__group_reduce(env, phase, kind, x)   optional: a work-group reduction (wgs__red_op's
 *                             kinds), its answer in every work-item, and WGS__GROUP_REDUCE_ORDERED
 *                             1 when its order is fixed (CUDA: shuffles); without it the core
 *                             meets in global memory ("grid reductions")
 *   WGS_GROUP_SHARE, wgs__group_share()   optional (1): four words of work-group shared
 *                             memory, where wgs_discover hands its representative's answer to
 *                             the group (CUDA: static __shared__); 0: the state's words
 *   wgs__f2u(f)  wgs__u2f(u)  a float's bits as unsigned and back
 *   wgs__log2(x)  wgs__pause_ns(ns)   floor(log2 x) of a power of two; a short sleep, or nothing
 *   WGS__INIT(v)              "= v" where a struct member can have a default (C++), else empty
 *   WGS__ENV_STARTS_EMPTY     1 where wgs_env starts with s == 0 (WGS__INIT): grid barriers can
 *                             then tell a group outside the launch and leave early (CUDA)
 *   WGS_BARRIER_FN            how wgs__grid_barrier is declared (inlined, or a call)
 *   WGS_PHASE_CALLS           1 where a grid barrier's steps between its work-group barriers
 *                             must be calls the compiler cannot see into (PoCL), else 0
 *   WGS__ONE_AT_A_TIME, WGS__FEW_AT_A_TIME   optional: statement-prefixes that keep the loop
 *                             after them rolled, or unrolled four times (CUDA), else empty
 *   WGS__OPAQUE_ENV(env)      optional: the environment's words a grid barrier derives its
 *                             addresses and shape from, made unknown to the compiler where the
 *                             barrier starts (CUDA: an empty asm), else nothing
 *
 * Memory ordering is that of the C11/PTX models at device scope, and every site says why its
 * ordering is enough. The state's layout is wgs_layout.h; the host side is src/.
 */
#ifndef WGS_CORE_H
#define WGS_CORE_H

/* The library's cold loops (reports, clears, the delay rounds, the XF barrier's per-slave
 * loops) stay rolled, and the published replicas' stores are unrolled four times, not sixteen:
 * unrolled, their copies of addresses were the kernel's peak of live registers, and a register
 * more anywhere in the library is one more in every kernel that calls it. The replicas' stores
 * are on the last arrival's path: unrolled four times they cost what fully unrolled ones do,
 * rolled once more (docs/results.md, "The device library's registers"). */
#ifndef WGS__ONE_AT_A_TIME
#define WGS__ONE_AT_A_TIME
#endif
#ifndef WGS__FEW_AT_A_TIME
#define WGS__FEW_AT_A_TIME
#endif
/* What a grid barrier computes from the environment (its shard's and replica's addresses, the
 * targets, the roles) is invariant in the caller's loop, and a compiler hoists it there: then
 * it is live across the user's own code, and the user's kernel holds fewer groups an SM than
 * with grid.sync(). The state's address and the barrier's shape, which every address and role
 * derives from, made opaque where the barrier starts, the environment's words are all that
 * stays live; the barrier recomputes the rest in its representative's path, which costs a few
 * percent back to back (docs/results.md, "The device library's registers", with the designs
 * that lost: every word opaque, the words computed before the first work-group barrier). */
#ifndef WGS__OPAQUE_ENV
#define WGS__OPAQUE_ENV(env) (void)(env)
#endif
#ifndef WGS_GROUP_SHARE
#define WGS_GROUP_SHARE 0
#endif

/* ---- state access --------------------------------------------------------------------------- */
/* s points at the half of the running launch (wgs_layout.h); its line 0 holds the distance back
 * to the state's base, where the config and the error report live. */
WGS_FN wgs_word_ptr wgs__glob(wgs_word_ptr s) { return s - s[WGS_W_BACK]; }
WGS_FN unsigned wgs__cfg(wgs_word_ptr s, unsigned word) { return wgs__glob(s)[WGS_G_CONFIG + word]; }
WGS_FN wgs__u64 wgs__cfg64(wgs_word_ptr s, unsigned lo)
{
  return ((wgs__u64)wgs__cfg(s, lo + 1u) << 32) | (wgs__u64)wgs__cfg(s, lo);
}

/* ---- bounded spins (checked builds: undefined behaviour made visible, never a hang) ---------
 * wgs__spin_gave_up returns 0 to go on spinning, WGS__TIMED_OUT when this spin ran past the
 * host's limit (nanoseconds where the device has a timer, iterations otherwise) and won the
 * right to report (the caller writes the report, then calls wgs__abort_done), WGS__ABORTED once
 * the report is written. A spin past its limit that lost the race keeps spinning until then.
 * Callers leave their loop with `break` and still reach every work-group barrier that follows,
 * never `return`: on PoCL an early return before a barrier can hang the work-group (Intel's "Common mistakes in OpenCL applications").
 * Unchecked builds compile the check away. */
#define WGS__TIMED_OUT 1
#define WGS__ABORTED 2
typedef struct wgs__spin {
  wgs__u64 start, iters;
} wgs__spin;
/* Unchecked builds never look at the start, and a clock read is a volatile asm the compiler
 * keeps: they read no clock (no change in latency measured on the H200: the read was off the
 * critical path). */
WGS_FN void wgs__spin_init(wgs__spin *sp)
{
  sp->iters = 0u;
#if defined(WGS_CHECKED) && WGS_CHECKED
  sp->start = WGS_HAS_TIMER ? wgs__timer_ns() : 0u;
#else
  sp->start = 0u;
#endif
}
/* The host clock (WGS_CFG_TICKS): microseconds, read as the host thread last wrote them. A
 * device without a clock of its own then bounds its spins in time, not in iterations whose
 * length depends on what else the CPU runs. */
WGS_FN unsigned wgs__ticks_on(wgs_word_ptr s) { return !WGS_HAS_TIMER && wgs__cfg(s, WGS_CFG_TICKS) != 0u; }
WGS_FN unsigned wgs__host_us(wgs_word_ptr s)
{
  return wgs__ld_rlx(&wgs__glob(s)[WGS_G_CONFIG + WGS_CFG_CLOCK]);
}
#if defined(WGS_CHECKED) && WGS_CHECKED
WGS_FN int wgs__spin_gave_up(wgs_word_ptr s, wgs__spin *sp)
{
  unsigned state = wgs__ld_rlx(&s[WGS_W_ABORT]);
  if (state == WGS_ABORT_DONE)
    return WGS__ABORTED;
  wgs__u64 used = ++sp->iters;
  if (WGS_HAS_TIMER) { /* the clock is read every 256 rounds */
    if ((sp->iters & 255u) != 0u)
      return 0;
    used = wgs__timer_ns() - sp->start;
  } else if (wgs__ticks_on(s)) { /* the host's clock, every 64 rounds; the first read starts it */
    if ((sp->iters & 63u) != 1u)
      return 0;
    unsigned now = wgs__host_us(s);
    if (sp->iters == 1u)
      sp->start = now;
    used = (unsigned)(now - (unsigned)sp->start); /* wraps after 71 minutes: a difference */
  }
  if (used <= wgs__cfg64(s, WGS_CFG_LIMIT_LO) || state != WGS_ABORT_RUNNING)
    return 0;
  if (wgs__cas_rlx(&s[WGS_W_ABORT], WGS_ABORT_RUNNING, WGS_ABORT_REPORTING) != WGS_ABORT_RUNNING)
    return 0; /* another spin reports; wait for it */
  return WGS__TIMED_OUT;
}
#else
#define wgs__spin_gave_up(s, sp) 0
#endif
/* Release: the report written before this is complete when the others leave. */
WGS_FN void wgs__abort_done(wgs_word_ptr s) { wgs__st_rel(&s[WGS_W_ABORT], WGS_ABORT_DONE); }

/* ---- the participating-group environment (Table 2) ----------------------------------------- */
typedef struct wgs_env {
  wgs_word_ptr s WGS__INIT(0); /* protocol state (the launch's half); where a struct member can
                                  have a default, 0 until wgs_discover (CUDA checked builds
                                  report a grid barrier before it) */
  unsigned early_site WGS__INIT(0u); /* that barrier's line (CUDA checked builds) */
  unsigned max_groups;    /* capacity of the per-group arrays */
  unsigned group_id;      /* participating group id (Table 2, p_get_group_id) */
  unsigned num_groups;    /* participating group count (Table 2, p_get_num_groups) */
  unsigned local_id;      /* local id (1-D) */
  unsigned local_size;    /* local size (1-D) */
  unsigned instance;      /* grid barriers this group has passed (checked builds name them) */
  unsigned barrier_kind;  /* WGS_BARRIER_KIND_*, from the host, in bits 0-7; the counter
                             barrier's shape in bits 8-24 (wgs__choose_shards), packed so that
                             the environment takes no more registers */
  unsigned counted;       /* counter-based instances passed (full or split): the arrival target.
                             XF barriers do not add to it (the mixing rule, below) */
  unsigned split_state;   /* 0 idle, else arrived: bit 0, and the pending grid reduction's kind + 1
                             in the bits above it (0: a plain arrive); checked builds report
                             misuse of the split barrier */
  unsigned participating; /* 1 when this group takes part */
} wgs_env;

WGS_FN unsigned wgs_get_group_id(const wgs_env *env) { return env->group_id; }
WGS_FN unsigned wgs_get_num_groups(const wgs_env *env) { return env->num_groups; }
WGS_FN size_t wgs_get_global_id(const wgs_env *env)
{
  return (size_t)env->group_id * env->local_size + env->local_id;
}
WGS_FN size_t wgs_get_global_size(const wgs_env *env)
{
  return (size_t)env->num_groups * env->local_size;
}

/* ---- reports (checked builds) ------------------------------------------------------------- */
/* The first report wins (a CAS on the error code); the host decodes it (src/status.c). */
WGS_FN void wgs__report_lock(wgs_word_ptr s, unsigned group)
{
  wgs_word_ptr err = wgs__glob(s) + WGS_G_ERROR;
  if (wgs__cas_rlx(&err[WGS_ERR_CODE], 0u, WGS_DEV_ERR_LOCK) == 0u) {
    wgs__st_rlx(&err[WGS_ERR_REPORTER], group);
    wgs__mirror_put(s, WGS_MIRROR_ERROR, WGS_DEV_ERR_LOCK);
  }
}
/* A broken rule of the API (WGS_DEV_ERR_MISUSE; what is one of WGS_MISUSE_*). */
WGS_FN void wgs__report_misuse(wgs_word_ptr s, unsigned what, unsigned site, unsigned arrived,
                               unsigned expected)
{
#if WGS_CHECK_MISUSE
  wgs_word_ptr err = wgs__glob(s) + WGS_G_ERROR;
  if (wgs__cas_rlx(&err[WGS_ERR_CODE], 0u, WGS_DEV_ERR_MISUSE) != 0u)
    return;
  wgs__st_rlx(&err[WGS_ERR_SITE], site);
  wgs__st_rlx(&err[WGS_ERR_INSTANCE], what);
  wgs__st_rlx(&err[WGS_ERR_ARRIVED], arrived);
  wgs__st_rlx(&err[WGS_ERR_EXPECTED], expected);
  wgs__st_rlx(&err[WGS_ERR_REPORTER], wgs__group_index());
  wgs__mirror_put(s, WGS_MIRROR_ERROR, WGS_DEV_ERR_MISUSE);
#else
  (void)s, (void)what, (void)site, (void)arrived, (void)expected;
#endif
}
/* A grid barrier (or split wait) that gave up: who had arrived at this instance and who not
 * (the entry records of wgs__check_entry), for the host to name. */
WGS_FN void wgs__report_grid(const wgs_env *env, unsigned site, unsigned code)
{
  wgs_word_ptr s = env->s;
  wgs_word_ptr err = wgs__glob(s) + WGS_G_ERROR;
  if (wgs__cas_rlx(&err[WGS_ERR_CODE], 0u, code) != 0u)
    return; /* somebody reported first */
  wgs_word_ptr entered = s + WGS_OFF_ENTERED(env->max_groups);
  unsigned want = env->instance + 1u, arrived = 0u, missing = 0u;
  WGS__ONE_AT_A_TIME
  for (unsigned g = 0u; g < env->num_groups; ++g) {
    if (wgs__ld_rlx(&entered[g]) >= want) {
      arrived++;
    } else {
      if (missing < WGS_ERR_MISSING_MAX)
        wgs__st_rlx(&err[WGS_ERR_MISSING + missing], g);
      missing++;
    }
  }
  wgs__st_rlx(&err[WGS_ERR_SITE], site);
  wgs__st_rlx(&err[WGS_ERR_INSTANCE], env->instance);
  wgs__st_rlx(&err[WGS_ERR_ARRIVED], arrived);
  wgs__st_rlx(&err[WGS_ERR_EXPECTED], env->num_groups);
  wgs__st_rlx(&err[WGS_ERR_REPORTER], env->group_id);
  wgs__st_rlx(&err[WGS_ERR_MISSING_N], missing);
  wgs__mirror_put(s, WGS_MIRROR_ERROR, code);
}
/* One step of a bounded spin in discovery: 1 when the spin must stop (timed out: reported). */
WGS_FN int wgs__lock_gave_up(wgs_word_ptr s, wgs__spin *sp, unsigned group)
{
  int why = wgs__spin_gave_up(s, sp);
  if (why == WGS__TIMED_OUT) {
    wgs__report_lock(s, group);
    wgs__abort_done(s);
  }
  return why != 0;
}
/* One step of a bounded spin in a grid barrier: 1 when the wait must end (timed out: reported). */
WGS_FN int wgs__wait_gave_up(const wgs_env *env, wgs__spin *sp, unsigned site)
{
  int why = wgs__spin_gave_up(env->s, sp);
  if (why == WGS__TIMED_OUT) {
    wgs__report_grid(env, site, WGS_DEV_ERR_GRID_BARRIER);
    wgs__abort_done(env->s);
  }
  return why != 0;
}

/* ---- discovery (Sorensen et al. 2016 §3) ----------------------------------------------------------------
 * One representative work-item per group (local id 0) runs the protocol; the result reaches the
 * rest of the group through the map M in global memory and a work-group barrier. No other
 * work-item of the group ever spins (PoCL runs them one after another).
 *
 * The four properties of §3.2 hold because the locked protocol is Fig. 3 unchanged:
 *  - at least one participant: the poll starts open, so the first group to take the mutex polls;
 *  - consistent count: count changes only under the mutex while the poll is open, the poll never
 *    reopens, and a group returns PARTICIPATING only after the poll is closed;
 *  - contiguous unique ids: each participant records the value of count it incremented;
 *  - simultaneous occupancy: a participant polled before any group finished the protocol.
 */

/* Mutex of Fig. 3. Returns 1 when held, 0 when a checked spin gave up (reported). The caller's
 * spin sp bounds the wait: one per phase, one for the whole §5.4 delay. */
WGS_FN int wgs__lock(wgs_word_ptr s, unsigned kind, unsigned *ticket, unsigned group, wgs__spin *sp)
{
  if (kind == WGS_LOCK_KIND_SPIN) {
    /* Test-and-set; acquire so that the critical section sees the last holder's writes. */
    while (wgs__xchg_acq(&s[WGS_W_SPIN], 1u) != 0u)
      if (wgs__lock_gave_up(s, sp, group))
        return 0;
  } else {
    /* Ticket lock: taking a ticket needs no ordering; the acquire load of the served ticket,
     * which reads the previous holder's release store, is what orders the critical section. */
    *ticket = wgs__add_rlx(&s[WGS_W_TICKET_NEXT], 1u);
    while (wgs__ld_acq(&s[WGS_W_TICKET_SERVE]) != *ticket)
      if (wgs__lock_gave_up(s, sp, group))
        return 0;
  }
  return 1;
}
WGS_FN void wgs__unlock(wgs_word_ptr s, unsigned kind, unsigned ticket)
{
  /* Release: the next holder's acquire sees everything done under the mutex. */
  if (kind == WGS_LOCK_KIND_SPIN)
    wgs__st_rel(&s[WGS_W_SPIN], 0u);
  else
    wgs__st_rel(&s[WGS_W_TICKET_SERVE], ticket + 1u);
}

/* Protocol start (end 0) or end (end 1) of a participant, where the device has a clock (timed
 * launches). The start is stored when it is read, not carried through the poll: two registers
 * held across the poll were the kernel's peak (ptxas, sm_90). */
WGS_FN void wgs__stamp(wgs_word_ptr s, unsigned mg, unsigned group, unsigned end)
{
  if (wgs__cfg(s, WGS_CFG_TIMED) == 0u)
    return;
  wgs_word_ptr t = s + WGS_OFF_TIME(mg) + 4u * group + 2u * end;
  wgs__u64 now = wgs__timer_ns();
  t[0] = (unsigned)now;
  t[1] = (unsigned)(now >> 32);
}

/* The epoch moved on for the next launch, which its stream or queue orders after this one
 * (wgs_layout.h, "Launch epochs"). Where the device names its launches, group 0 stores it with
 * this launch's name (grid), the pair in one store, so that a group of this launch reading it
 * later still knows its own epoch; elsewhere the last group to count itself in stores it (all
 * have read the epoch: each read precedes its acq_rel count-in, and that group's RMW read the
 * last of them). */
WGS_FN void wgs__advance_epoch(wgs_word_ptr s, unsigned epoch, unsigned grid)
{
  wgs_word_ptr ctrl = wgs__glob(s) + WGS_G_CTRL;
#if WGS_HAS_GRIDID
  wgs__st_rlx64(&ctrl[WGS_CTRL_EPOCH], (wgs__u64)grid << 32 | (epoch + 1u));
#else
  (void)grid;
  wgs__st_rlx(&ctrl[WGS_CTRL_EPOCH], epoch + 1u);
#endif
  wgs__mirror_put(s, WGS_MIRROR_EPOCH, epoch + 1u);
}
/* The launch's result for the host: its epoch and participant count (control line). */
WGS_FN void wgs__publish_result(wgs_word_ptr s, unsigned epoch, unsigned participants)
{
  wgs_word_ptr ctrl = wgs__glob(s) + WGS_G_CTRL;
  wgs__st_rlx(&ctrl[WGS_CTRL_PARTICIPANTS], participants);
  wgs__st_rlx(&ctrl[WGS_CTRL_RESULT_EPOCH], epoch);
  wgs__mirror_put(s, WGS_MIRROR_PARTICIPANTS, participants);
  wgs__mirror_put(s, WGS_MIRROR_RESULT_EPOCH, epoch);
}

/* wgsync's close wait (quiescence): before closing, wait until count (seen when the wait
 * began) stays unchanged for a host-given time W (nanoseconds on devices with a clock,
 * calibrated iterations elsewhere). While groups keep arriving (a GPU still launching blocks, a
 * CPU worker thread waking late) the wait extends; once resident groups have all polled, the
 * stream stops, because non-resident groups start only when a resident one exits. It also
 * stops at the host's "enough", a count no launch can exceed (the kernel's occupancy from the
 * occupancy API, or a CPU device's worker threads): then every group that can be resident has
 * polled. Too high only falls back to the quiet period, too low closes early (fewer
 * participants): only the closer's timing changes, so the four properties of §3.2 hold.
 * W = 0 is Fig. 3 as published. watch_poll (the locked protocol): also stop once somebody
 * closed the poll or a checked spin aborted, since waiting longer cannot add participants. */
/* The close wait's clock: the device's (ns), the host's (us), or none (0: iterations count). */
WGS_FN wgs__u64 wgs__wait_now(wgs_word_ptr s, unsigned ticks)
{
  return WGS_HAS_TIMER ? wgs__timer_ns() : ticks ? (wgs__u64)wgs__host_us(s) : 0u;
}
WGS_FN unsigned wgs__quiesce(wgs_word_ptr g, wgs_word_ptr s, unsigned seen, int watch_poll,
                             unsigned launched)
{
  /* With a clock (the device's nanoseconds, or the host's microseconds) the quiet period is
   * counted in 32 bits, a difference that wraps: the host accepts close waits below 4 s
   * (src/status.c), and 64-bit times held across the wait were the kernel's peak of live
   * registers. Without one, in iterations. The settings are read from the state's start (g),
   * whose address the caller has, not through the half's back offset (a load, and an address
   * computed from it, held across the wait). */
  wgs_word_ptr cfg = g + WGS_G_CONFIG;
  unsigned ticks = !WGS_HAS_TIMER && cfg[WGS_CFG_TICKS] != 0u;
  wgs__u64 wait = (wgs__u64)cfg[WGS_CFG_WAIT_HI] << 32 | cfg[WGS_CFG_WAIT_LO], i = 0u;
  unsigned w0 = (unsigned)wgs__wait_now(s, ticks);
  unsigned wait32 = wait > 0xffffffffu ? 0xffffffffu : (unsigned)wait;
  /* Once every launched group has polled no more can come: the count is at most the launch's
   * group count, so that ends the wait whatever the host's "enough" (a right-sized launch of
   * fewer groups than fit would otherwise wait all of W). */
  unsigned enough = cfg[WGS_CFG_ENOUGH];
  enough = enough == 0u || enough > launched ? launched : enough;
  if (seen >= enough)
    return seen;
  while (WGS_HAS_TIMER ? ((unsigned)wgs__timer_ns() - w0 < wait32)
         : ticks       ? (wgs__host_us(s) - w0 < wait32)
                       : (i < wait)) {
    ++i;
    if (watch_poll && (wgs__ld_acq(&s[WGS_W_CLOSED]) != 0u || wgs__ld_rlx(&s[WGS_W_ABORT]) != 0u))
      break;
    unsigned now = wgs__ld_rlx(&s[WGS_W_COUNT]);
    if ((now & ~WGS_COUNT_CLOSED) >= enough)
      return now;
    if (now != seen) { /* a new participant: restart the quiet period */
      seen = now;
      w0 = (unsigned)wgs__wait_now(s, ticks);
      i = 0u;
    }
  }
  return seen;
}

/* Fig. 3 for the representative work-item, under a mutex (WGS_LOCK_KIND_TICKET / _SPIN).
 * Returns the participating id or WGS_NOT_PARTICIPATING. Every path ends at the bottom. */
WGS_FN unsigned wgs__poll_locked(wgs_word_ptr g, wgs_word_ptr s, unsigned group, unsigned mg,
                                 unsigned epoch, unsigned launched)
{
  unsigned kind = wgs__cfg(s, WGS_CFG_LOCK), delay = wgs__cfg(s, WGS_CFG_DELAY);
  unsigned ticket = 0u, id = WGS_NOT_PARTICIPATING;
  wgs__stamp(s, mg, group, 0u);
  /* Polling phase (lines 1-9). Accesses under the mutex may be relaxed: the mutex orders them. */
  wgs__spin sp;
  wgs__spin_init(&sp);
  if (wgs__lock(s, kind, &ticket, group, &sp)) {
    if (wgs__ld_rlx(&s[WGS_W_CLOSED]) == 0u) {
      id = wgs__ld_rlx(&s[WGS_W_COUNT]);
      wgs__st_rlx(&s[WGS_W_COUNT], id + 1u);
    }
    wgs__unlock(s, kind, ticket);
  }
  if (id != WGS_NOT_PARTICIPATING) {
    /* §5.4 delay: lock/unlock rounds that let queued groups poll before this one closes.
     * Checked builds bound the whole delay as one spin (every lock wait and every round counts
     * against it), not each round: 2^32 bounded rounds are not bounded. */
    wgs__spin_init(&sp);
    WGS__ONE_AT_A_TIME
    for (unsigned d = 0u; d < delay; ++d) {
      if (!wgs__lock(s, kind, &ticket, group, &sp))
        break;
      wgs__unlock(s, kind, ticket);
      if (wgs__lock_gave_up(s, &sp, group))
        break;
    }
    /* The close wait, outside the mutex: unlike the rounds above it needs no lock hand-off,
     * which on a CPU with more worker threads than cores costs a context switch each. */
    wgs__quiesce(g, s, id + 1u, 1, launched);
    /* Closing phase (lines 11-15). */
    wgs__spin_init(&sp);
    if (wgs__lock(s, kind, &ticket, group, &sp)) {
      if (wgs__ld_rlx(&s[WGS_W_CLOSED]) == 0u) { /* this group closes: the count is final */
        wgs__st_rlx(&s[WGS_W_CLOSED], 1u);
        wgs__publish_result(s, epoch, wgs__ld_rlx(&s[WGS_W_COUNT]));
      }
      wgs__unlock(s, kind, ticket);
    }
    wgs__stamp(s, mg, group, 1u);
  }
  return id;
}

/*
 * wgsync's lock-free protocol (WGS_LOCK_KIND_FREE): one atomic add per group instead of two
 * mutex hand-offs, so that a launch of thousands of groups is not serialised through a lock.
 *   poll:  old = fetch_add(count, 1). If old has the CLOSED bit, the group does not take part
 *          (its increment lands above the bit and is never read as an id); else id = old.
 *   close: participant 0 waits for quiescence (count unchanged for W), then
 *          old = fetch_or(count, CLOSED): n = old is the number of adds that came before the bit,
 *          and it publishes final = n + 1 with a release store. Every participant waits for it.
 * The four properties of Sorensen et al. 2016 §3.2:
 *  - at least one: the first add in count's modification order sees no CLOSED bit;
 *  - consistent count: exactly the adds before the fetch_or see no bit, they got 0..n-1, and
 *    every participant reads the same published n;
 *  - contiguous unique ids: the adds before the fetch_or return 0..n-1, once each;
 *  - simultaneous occupancy: at the moment of the fetch_or every participant has started (its
 *    add is before it) and none has finished (each waits for final, written after it).
 * Waiting for final is safe: the writer is participant 0, which is occupant by the same argument.
 *
 * The whole launch polled: the group whose add returns launched - 1 with no CLOSED bit knows
 * that every launched group has polled before any close, so the count is final at `launched`
 * (no group is left to add, and participant 0's fetch_or, if it comes, returns launched). It
 * publishes final at once, and participant 0, seeing the count at launched, publishes the same
 * final and the result without closing (nobody is left to turn away): the participants wait one
 * round trip after the last poll instead of three (participant 0 seeing it, its fetch_or, its
 * store). Two stores of one value: a reader sees 0 or that value. The
 * four properties hold as above, with "the last add" in place of "the fetch_or": every
 * participant's add is before it, and none finishes before final, written after it.
 */
WGS_FN unsigned wgs__poll_free(wgs_word_ptr g, wgs_word_ptr s, unsigned group, unsigned mg,
                               unsigned epoch, unsigned launched, unsigned epochs,
                               unsigned *participants)
{
  wgs_word_ptr final_word = s + WGS_OFF_FINAL(mg);
  wgs__stamp(s, mg, group, 0u);
  /* Without launch names the add also counts this group in for the launch epoch
   * (wgs__discover), which needs acq_rel; with them it is relaxed: the participants learn the
   * count from final, acquired below, and nothing else is read through the count. */
  unsigned old = WGS_HAS_GRIDID ? wgs__add_rlx(&s[WGS_W_COUNT], 1u) : wgs__add_acqrel(&s[WGS_W_COUNT], 1u);
  if (!WGS_HAS_GRIDID && epochs && (old & ~WGS_COUNT_CLOSED) == launched - 1u)
    wgs__advance_epoch(s, epoch, 0u);
  if (old & WGS_COUNT_CLOSED)
    return WGS_NOT_PARTICIPATING;
  unsigned n = launched;
  if (old == launched - 1u) /* the whole launch polled: release publishes the final count */
    wgs__st_rel(final_word, launched + 1u);
  if (old == 0u) {
    n = wgs__quiesce(g, s, 1u, 0, launched);
    /* Not all polled: close. The RMW reads the latest count, so n is exact. Release publishes
     * it to the participants; when all polled, the last group stores the same value, and this
     * store still matters: this group's other work-items read final after its barrier. */
    if (n != launched)
      n = wgs__or_rlx(&s[WGS_W_COUNT], WGS_COUNT_CLOSED);
    wgs__st_rel(final_word, n + 1u);
    wgs__publish_result(s, epoch, n);
  } else if (old != launched - 1u) {
    wgs__spin sp;
    wgs__spin_init(&sp);
    while ((n = wgs__ld_acq(final_word)) == 0u)
      if (wgs__lock_gave_up(s, &sp, group))
        break;
    n -= 1u; /* (a checked spin that gave up: the kernel is ending, and the host reports it) */
  }
  *participants = n;
  wgs__stamp(s, mg, group, 1u);
  return old;
}

/* The counter barrier's shape for this launch (see "Counter barrier" below), packed into
 * env->barrier_kind: bit 25 set when published (then log2 R in bits 12-15: the host's
 * WGS_CFG_PUBLISH word, looked at first); else bit 16 set when sharded, then log2 S in bits
 * 8-11 and log2 R in bits 12-15; bit 24 set when not sharded and the arrival waits for its
 * acq_rel add. The host's
 * WGS_CFG_SHARDS word gives S, R (powers of two, at most WGS_SHARDS_MAX) and the fewest groups
 * that use shards, WGS_CFG_ATOM_MIN the fewest that wait for the add (src/launch.c). S and R
 * are lowered to the group's size: the combiner's work-item i polls shard i, publishes replica i. */
/* WGS_SHARDED 0 (defined before the library is included): the kernel's counter barrier has no
 * sharded shape, and a launch whose config names it takes one count instead (every group of the
 * launch decides alike, so the barrier stays correct). The combiner's code is left out of every
 * inlined barrier: a kernel that launches with WGS_BARRIER_PUBLISHED, which takes the published
 * shape wherever the sharded one would serve, keeps fewer values live across its own code
 * (the CUDA apps: 4-20 bytes of spills instead of 44-60 in colour and mis, ptxas, sm_90). */
#ifndef WGS_SHARDED
#define WGS_SHARDED 1
#endif
WGS_FN void wgs__choose_shards(wgs_env *env, wgs_word_ptr g)
{
  unsigned p = g[WGS_G_CONFIG + WGS_CFG_PUBLISH], pmin = p & 0xffffu, P = (p >> 16) & 255u;
  if (pmin != 0u && P != 0u && env->num_groups >= pmin) { /* published: bit 25, log2 R */
    env->barrier_kind |= 1u << 25 | wgs__log2(P) << 12;
    return;
  }
  unsigned c = g[WGS_G_CONFIG + WGS_CFG_SHARDS], S = c & 255u, R = (c >> 8) & 255u;
  while (S > env->local_size)
    S >>= 1;
  while (R > env->local_size)
    R >>= 1;
  unsigned atom_min = g[WGS_G_CONFIG + WGS_CFG_ATOM_MIN];
  if (WGS_SHARDED && S != 0u && R != 0u && env->num_groups >= (c >> 16))
    env->barrier_kind |= 1u << 16 | wgs__log2(S) << 8 | wgs__log2(R) << 12;
  else if (atom_min != 0u && env->num_groups >= atom_min)
    env->barrier_kind |= 1u << 24;
}

/* A second wgs_discover in a group would poll a closed poll and turn the group away, so that
 * the body ran nowhere while the launch reported participants: it answers as the first call did
 * (the map holds that answer), counts nothing in, and checked builds report it. Where the device
 * names its launches (WGS_HAS_GRIDID) a second call is told from the next launch's first by that
 * name; elsewhere by a per-group call count in the launch's half, which holds only while the
 * epoch has not moved on (once every group has counted itself in, a second call is undefined).
 * Returns 1 for a first call, with the launch epoch in *epoch and its name in *grid_out
 * (wgs__record_call records them); 0 for a second, with the first call's epoch there. */
WGS_FN int wgs__first_call(wgs_word_ptr g, unsigned mg, unsigned group, unsigned site, unsigned epochs,
                           unsigned *epoch, unsigned *grid_out)
{
#if WGS_HAS_GRIDID
  unsigned grid = wgs__gridid() + 1u;
  *grid_out = grid;
  /* the group's grid word and the epoch's pair read together, neither address depending on a
   * load: one round trip to L2 at the kernel's start (the pair is not used by a second call) */
  unsigned seen = wgs__ld_rlx(g + WGS_G_GRID(group));
  wgs__u64 pair = wgs__ld_rlx64(&g[WGS_G_CTRL + WGS_CTRL_EPOCH]);
  if (seen == grid) {
    *epoch = wgs__ld_rlx(g + WGS_G_FIRST(group));
    wgs__report_misuse(g + WGS_HALF(mg, *epoch & 1u), WGS_MISUSE_DISCOVER_TWICE, site, 0u, 0u);
    return 0;
  }
  /* The pair names the launch that stored it (wgs_layout.h, "Launch epochs"). Another launch's
   * name: that launch has finished (launches on one state are ordered), this one is number e,
   * and group 0 has not stored yet. This launch's name: group 0 stored e = this launch's number
   * + 1. Both readings give one number, whichever a group makes. */
  unsigned e = (unsigned)pair;
  *epoch = epochs && (unsigned)(pair >> 32) == grid ? e - 1u : e;
  return 1;
#else
  (void)epochs;
  *grid_out = 0u;
  *epoch = wgs__ld_rlx(&g[WGS_G_CTRL + WGS_CTRL_EPOCH]);
  wgs_word_ptr s = g + WGS_HALF(mg, *epoch & 1u);
  if (wgs__add_rlx(&s[WGS_OFF_CALLS(mg) + group], 1u) != 0u) {
    wgs__report_misuse(s, WGS_MISUSE_DISCOVER_TWICE, site, 0u, 0u);
    return 0;
  }
  return 1;
#endif
}
/* A first call recorded: its epoch, and where the device names launches, the launch. Stored
 * after the poll's add (where the add counts in, its release would otherwise wait for these
 * stores to complete). */
WGS_FN void wgs__record_call(wgs_word_ptr g, unsigned group, unsigned epoch, unsigned grid)
{
  wgs__st_rlx(g + WGS_G_FIRST(group), epoch);
  if (WGS_HAS_GRIDID)
    wgs__st_rlx(g + WGS_G_GRID(group), grid);
}

/* Zeroes words [from, from + n) of a half, the work shared as w = first, first + stride, ... */
WGS_FN void wgs__zero(wgs_word_ptr h, unsigned from, unsigned n, unsigned first, unsigned stride)
{
  WGS__ONE_AT_A_TIME
  for (unsigned w = first; w < n; w += stride)
    h[from + w] = 0u;
}
/* A used half made clean again: its lines after line 0, and of each per-group array the words
 * of the `used` groups its launch had (its WGS_CTRL_USED word; wgs_layout.h lists the arrays and
 * their widths). */
WGS_FN void wgs__clear_used(wgs_word_ptr h, unsigned mg, unsigned used, unsigned first, unsigned stride)
{
  used = used < mg ? used : mg;
  wgs__zero(h, WGS_LINE_WORDS, WGS_W_ARRAYS - WGS_LINE_WORDS, first, stride);
  wgs__zero(h, WGS_OFF_MAP(mg), used, first, stride);
  wgs__zero(h, WGS_OFF_FLAG(mg), used, first, stride);
  wgs__zero(h, WGS_OFF_ENTERED(mg), used, first, stride);
  wgs__zero(h, WGS_OFF_TIME(mg), 4u * used, first, stride);
  wgs__zero(h, WGS_OFF_FINAL(mg), WGS_LINE_WORDS, first, stride);
  wgs__zero(h, WGS_OFF_CALLS(mg), used, first, stride);
  wgs__zero(h, WGS_OFF_WITEMS(mg), used, first, stride);
  wgs__zero(h, WGS_OFF_GROUP_OR(mg), 2u * used, first, stride);
  /* (the entry lines after the halves, WGS_SITE, are never cleared: a group's is read only
   * when its entries of this launch differ, and each entry writes it first) */
}

/* A group's discovery answer as the launch's half holds it once the representative's poll is
 * done: its id (the map entry) and, for a participant, the participant count in *n. The
 * representative acquired final, published it, closed the poll, or saw it closed under the
 * mutex after every increment, so these loads, after it or after a work-group barrier that
 * follows it, see the final count. */
WGS_FN unsigned wgs__recorded_answer(wgs_word_ptr s, unsigned mg, unsigned group, unsigned free_protocol,
                                     unsigned *n)
{
  unsigned id = wgs__ld_rlx(&s[WGS_OFF_MAP(mg) + group]);
  *n = id == WGS_NOT_PARTICIPATING ? 0u
       : free_protocol             ? wgs__ld_rlx(&s[WGS_OFF_FINAL(mg)]) - 1u
                                   : wgs__ld_rlx(&s[WGS_W_COUNT]);
  return id;
}

/*
 * wgs_discover: first thing in the kernel, from every work-item of every group, outside any
 * condition; 1-D launches. Fills *env and returns 1 when this group participates, 0 when it
 * must leave (the same answer for the whole group). With the host's WGS_MODE_ALL / _FIXED every
 * launched group participates with its native ids (the unsafe search of §5.1, and the
 * hard-coded occupancy of §5.3).
 *
 * The representative reads the launch epoch (wgs_layout.h, "Launch epochs"), and the rest of
 * its group has it from the representative after the work-group barrier. Where the device names
 * launches, the epoch's pair says which number this launch is whenever it is read, and group 0
 * moves it on: nothing is counted. Elsewhere each representative's read precedes its acq_rel
 * count-in, and hence the next epoch's store. The answer (the epoch, the id, the participant
 * count, how many groups the other half's launch used) reaches the group through the device's
 * group-shared words where the layer has them (WGS_GROUP_SHARE: no load after the barrier; the
 * representative's loads at the start, none at an address read before it, are one round trip),
 * else through the state's words for the group, which every work-item reads after it.
 */
WGS_FN int wgs__discover(WGS_GLOBAL unsigned *state, wgs_env *env, unsigned site)
{
  wgs_word_ptr g = (wgs_word_ptr)state;
  unsigned group = wgs__group_index(), launched = wgs__group_count();
  unsigned lid = wgs__local_index(), lsize = wgs__local_count();
  unsigned mg = g[WGS_G_CONFIG + WGS_CFG_MAX_GROUPS], mode = g[WGS_G_CONFIG + WGS_CFG_MODE];
  unsigned epochs = g[WGS_G_CONFIG + WGS_CFG_EPOCHS];
  unsigned free_protocol = g[WGS_G_CONFIG + WGS_CFG_LOCK] == WGS_LOCK_KIND_FREE;
  unsigned free_poll = mode == WGS_MODE_DISCOVER && free_protocol;
  unsigned seen_before = 0u; /* the count-in's add: launched - 1 makes this group the last */
  /* the representative's answer: epoch, id, participants, the other half's used groups */
  unsigned epoch = 0u, id = WGS_NOT_PARTICIPATING, n = 0u, used = 0u, grid = 0u;
  if (lid == 0u && group < mg) {
    /* Both halves' used counts, read beside the epoch: the other half's is what this launch
     * clears (its launch has finished; the current half's, read too, is dropped). */
    wgs_word_ptr used_words = g + WGS_G_CTRL + WGS_CTRL_USED;
    unsigned used0 = WGS_GROUP_SHARE && epochs ? wgs__ld_rlx(&used_words[0]) : 0u;
    unsigned used1 = WGS_GROUP_SHARE && epochs ? wgs__ld_rlx(&used_words[1]) : 0u;
    if (wgs__first_call(g, mg, group, site, epochs, &epoch, &grid)) {
      wgs_word_ptr s = g + WGS_HALF(mg, epoch & 1u);
      if (WGS_HAS_GRIDID && epochs && group == 0u) /* no count-in: group 0 names the launch */
        wgs__advance_epoch(s, epoch, grid);
      if (!WGS_GROUP_SHARE) /* the group reads the epoch there after the barrier */
        wgs__record_call(g, group, epoch, grid);
      used = epochs ? (epoch & 1u ? used0 : used1) : 0u;
      /* Counting in, where the device does not name launches (the lock-free poll's add counts
       * in itself). Its result is looked at only after the work-group barrier below, so the
       * add's round trip overlaps the barrier. */
      if (!WGS_HAS_GRIDID && epochs && !free_poll)
        seen_before = wgs__add_acqrel(&s[WGS_W_SEEN], 1u) + 1u;
      if (mode != WGS_MODE_DISCOVER) {
        id = group;
        n = launched;
      } else if (free_poll) {
        id = wgs__poll_free(g, s, group, mg, epoch, launched, epochs, &n);
      } else {
        id = wgs__poll_locked(g, s, group, mg, epoch, launched);
        /* the poll is closed (this group closed it, or saw it closed under the mutex after
         * every increment): the count is final */
        n = wgs__ld_rlx(&s[WGS_W_COUNT]);
      }
      if (WGS_GROUP_SHARE)
        wgs__record_call(g, group, epoch, grid);
      if (mode == WGS_MODE_DISCOVER)
        wgs__st_rlx(&s[WGS_OFF_MAP(mg) + group], id);
    } else if (WGS_GROUP_SHARE) { /* a second call answers as the first did (nothing to clear;
                                     * without group-shared words the group reads it below) */
      id = group;
      n = launched;
      if (mode == WGS_MODE_DISCOVER)
        id = wgs__recorded_answer(g + WGS_HALF(mg, epoch & 1u), mg, group, free_protocol, &n);
    }
  }
#if WGS_GROUP_SHARE
  wgs_word_ptr share = wgs__group_share();
  if (lid == 0u) {
    share[0] = epoch;
    share[1] = id;
    share[2] = n;
    share[3] = used;
  }
  wgs__group_barrier(); /* carries the representative's answer (and what it acquired) */
  if (lid != 0u) {
    epoch = share[0];
    id = share[1];
    n = share[2];
    used = share[3];
  }
#else
  wgs__group_barrier(); /* carries the representative's stores (and what it acquired) */
  if (group < mg)
    epoch = wgs__ld_rlx(&g[WGS_G_FIRST(group)]);
#endif
  wgs_word_ptr s = g + WGS_HALF(mg, epoch & 1u);
  if (seen_before == launched) /* (seen_before is 0 but in a counting-in representative) */
    wgs__advance_epoch(s, epoch, 0u);
  if (epochs) {
    /* (a plain load: the word is from an earlier launch, and the group's work-items share one
     * line, which relaxed atomic loads would each fetch from L2) */
    if (!WGS_GROUP_SHARE && group < mg)
      used = g[WGS_G_CTRL + WGS_CTRL_USED + ((epoch & 1u) ^ 1u)];
    /* Clear the other half for the next launch; every launched work-item takes a share. The
     * launch that used it has finished, and nothing in this launch reads it. Only what that
     * launch can have written: the lines, and its groups' words of each per-group array (a
     * launch costs what it launches, not what the state could hold). A second call clears it
     * again, or (used = 0) its lines only: harmless, nothing in this launch uses them. Groups
     * past the state's capacity read no epoch, and take no share. */
    if (group < mg)
      wgs__clear_used(g + WGS_HALF(mg, (epoch & 1u) ^ 1u), mg, used, group * lsize + lid,
                      (launched < mg ? launched : mg) * lsize);
    if (group == 0u && lid == 0u) /* read by the launch after next, ordered after this one */
      wgs__st_rlx(&g[WGS_G_CTRL + WGS_CTRL_USED + (epoch & 1u)], launched < mg ? launched : mg);
  }
  env->s = s;
  env->max_groups = mg;
  env->local_id = lid;
  env->local_size = lsize;
  env->instance = 0u;
  env->barrier_kind = g[WGS_G_CONFIG + WGS_CFG_BARRIER];
  env->counted = 0u;
  env->split_state = 0u;
#if WGS__ENV_STARTS_EMPTY && defined(WGS_CHECKED) && WGS_CHECKED
  if (env->early_site != 0u && lid == 0u) /* a grid barrier ran with this env unfilled */
    wgs__report_misuse(s, WGS_MISUSE_BEFORE_DISCOVER, env->early_site, 0u, 0u);
#endif
  if (mode != WGS_MODE_DISCOVER) {
    env->group_id = group;
    env->num_groups = launched;
    env->participating = launched <= mg;
  } else {
    /* (the representative's map entry and count, which the barrier carried here) */
    if (!WGS_GROUP_SHARE && group < mg)
      id = wgs__recorded_answer(s, mg, group, free_protocol, &n);
    env->participating = group < mg && id != WGS_NOT_PARTICIPATING;
    env->group_id = env->participating ? id : 0u;
    env->num_groups = env->participating ? n : 0u;
  }
  wgs__choose_shards(env, g);
  return (int)env->participating;
}

/* ---- grid barriers (Sorensen et al. 2016 §4) -------------------------------------------------------------
 * Every work-item of every participating group calls a grid barrier the same number of times
 * (§4.3). The mixing rule, the same in every library: counter barriers and split barriers count
 * the same arrivals (env->counted), so they mix freely; XF barriers neither read nor change the
 * counts, so they mix with both. A group turned away by wgs_discover takes no part (its arrival
 * would let the participants through early); checked builds report the call.
 */

/*
 * Checked builds, on entering a grid barrier (or a split arrive): every work-item counts itself
 * in the group's entry count at the call site (the API's macros below), before the call: a
 * compiler may stop a work-item at a call that holds work-group barriers when only part of the
 * group makes it (Intel's CPU runtime does, where the function is not inlined), so a count in
 * the callee would never be taken. After the first work-group barrier, the representative
 * records the group's arrival (named in deadlock reports) and checks the rules a kernel can
 * break here: the call comes from a group wgs_discover turned away, or from only some of the
 * group's work-items.
 */
WGS_FN void wgs__count_entry(const wgs_env *env, unsigned site)
{
#if WGS_CHECK_MISUSE
  if (env->s != 0 && env->participating) { /* (s: 0 in an environment wgs_discover never filled) */
    (void)wgs__add_rlx(env->s + WGS_OFF_WITEMS(env->max_groups) + env->group_id, 1u);
    /* for the host's check after the launch (src/launch.c, wgs__check_entries): where the
     * code after the first work-group barrier never ran, no check below did either */
    unsigned mg = env->max_groups, second = env->s[WGS_W_BACK] != WGS_HALF(mg, 0u);
    wgs__st_rlx(wgs__glob(env->s) + WGS_SITE(mg, second) + env->group_id, site);
  }
#else
  (void)env, (void)site;
#endif
}
WGS_FN void wgs__check_entry(const wgs_env *env, unsigned site)
{
#if defined(WGS_CHECKED) && WGS_CHECKED
  if (env->participating) /* arrival record, read only by a reporter to name who is missing */
    wgs__st_rlx(env->s + WGS_OFF_ENTERED(env->max_groups) + env->group_id, env->instance + 1u);
#endif
#if WGS_CHECK_MISUSE
  if (!env->participating) {
    wgs__report_misuse(env->s, WGS_MISUSE_NOT_PARTICIPATING, site, 0u, 0u);
    return;
  }
  unsigned entered = wgs__ld_rlx(env->s + WGS_OFF_WITEMS(env->max_groups) + env->group_id) -
                     (env->instance + (env->split_state & 1u)) * env->local_size;
  /* (split_state: an arrive pending counts as an entry; a second one is reported as a split
   * misuse, not as a partial group.) Fewer than all: after a split arrive's one work-group
   * barrier, work-items may already count themselves into the next call before this read
   * (seen on the H100: 96 of 64), so more is not an error. */
  if (entered < env->local_size)
    wgs__report_misuse(env->s, WGS_MISUSE_PARTIAL_GROUP, site, entered, env->local_size);
#else
  (void)site;
#endif
}

/* XF barrier: spin while *p == v; acquire on the read that ends it. */
WGS_FN void wgs__wait_while(const wgs_env *env, wgs_word_ptr p, unsigned v, unsigned site)
{
  wgs__spin sp;
  wgs__spin_init(&sp);
  while (wgs__ld_acq(p) == v)
    if (wgs__wait_gave_up(env, &sp, site))
      break;
}

/*
 * Counter barrier (the default kind). Instance k of a launch (each launch starts on a cleared
 * half, and every group passes the same instances) is complete when every participating group
 * has arrived k+1 times. Nothing is read before arriving (the target comes from the private
 * count) and nothing is reset: counts are monotonic and compared by signed difference, so
 * instance k+1 is never taken for k. Four shapes, chosen per launch from the group count alone
 * (wgs__choose_shards), so every barrier of a launch takes the same one:
 *
 *  - Published (from the host's WGS_CFG_PUBLISH count, looked at first; only where the launch
 *    asks for it, WGS_BARRIER_PUBLISHED): every group's
 *    representative does a release add on one arrival count and waits for its result. The add
 *    that makes n*(k+1) is the instance's last: its representative makes a fence.acq_rel, then
 *    stores k+1 (relaxed) on replica lines r < R. Its RMW read the end of the count's RMW chain,
 *    which continues the release sequence every arrival's release add heads, and a read
 *    followed by an acquire fence synchronises with those releases (C11 7.17.4, the PTX
 *    model's fence-based acquire pattern); the same fence before the stores makes each of them
 *    a release (the fence-based release pattern). A waiter polls replica g mod R (relaxed),
 *    then makes one acquire load: reading k+1 it synchronises with the last arrival's fence,
 *    so with every arrival. The last arrival polls nothing; a split arrive publishes too,
 *    when it is the last (its representative waits for the add there). Against the shapes
 *    below: no acquire at the arrivals (an acquire at device scope drops the SM's L1, which
 *    the SM's groups still in their step then miss), no combiner hop after the last arrival,
 *    no line with more than n/R pollers.
 *  - Small launches (fewer groups than the host's WGS_CFG_ATOM_MIN): every group's
 *    representative does a release add on one arrival count, whose result nobody waits for,
 *    and polls that count (relaxed loads) until it reaches n*(k+1), then makes one acquire load.
 *    That load reads the satisfying value or a later one, written by an RMW in the release
 *    sequence of every arrival (the RMWs on the count form one chain), so it synchronises with
 *    all of them. One hop after the last arrival.
 *  - Middle launches (from WGS_CFG_ATOM_MIN groups, below the sharding threshold): the arrival
 *    is an acq_rel add and the representative waits for its result before polling, as CUDA's
 *    grid.sync() does, so that the polls do not queue on the line among the arrivals still
 *    coming. The representative whose add made n*(k+1) polls nothing: its acq_rel RMW read the
 *    chain of every other arrival's RMW, so it synchronises with all of them.
 *  - Large launches, sharded: group g's release add goes to shard g mod S, its own line, so no
 *    line takes more than n/S arrivals. In participant 0 (the combiner), work-item i < S polls
 *    shard i (relaxed, then one acquire load: the same argument per shard); the join
 *    (WGS__JOIN: a work-group barrier, or __syncwarp in the combiner's first warp on CUDA, with
 *    S, R <= 32) carries what those work-items acquired to work-items r < R, which store k+1 on
 *    replica line r with a release store. That release is cumulative over what the join
 *    ordered before it, so a waiter whose acquire load reads replica g mod R synchronises with
 *    every arrival; no line has more than n/R pollers.
 *
 * Then a work-group barrier carries the representative's (or the combiner's) acquire to the
 * group, as the one before the arrival carried every work-item's writes to the release.
 * The measurements that chose these shapes are in docs/results.md; the designs that lost are
 * kept in bench/common/bench_variants.h with their figures. The sharded shape wins where arrivals
 * bunch (barriers back to back, even steps); where they spread over microseconds it takes the
 * combiner's hop more than one count after the last arrival (0.7-0.8 us at 1056 x 256 on the
 * H100, wgsync-bench-skew), which then costs what grid.sync() costs. The published shape wins
 * there (and in the apps, whose steps spread the arrivals) and loses back to back at every
 * count (the adds on one line; the last arrival's fence and stores), so only a launch that asks
 * for it takes it (WGS_BARRIER_PUBLISHED, from 880 groups: src/tuning.h).
 */
/* Measurement hooks. bench/common/bench_variants.h defines them before including the device
 * library, to build the seeded weakenings its litmus must catch and the designs of the wait that
 * were measured and lost; the installed headers define only these defaults, which are the
 * library as shipped: each helper below is the operation it names. */
#ifndef WGS__HOOK_WAIT_LD_ACQ
#define WGS__HOOK_WAIT_LD_ACQ(p) wgs__ld_acq(p)
#endif
#ifndef WGS__HOOK_ARRIVE_ST_REL
#define WGS__HOOK_ARRIVE_ST_REL(p, v) wgs__st_rel((p), (v))
#endif
#ifndef WGS__HOOK_ARRIVE_ADD_REL
#define WGS__HOOK_ARRIVE_ADD_REL(p, v) wgs__red_rel((p), (v))
#endif
#ifndef WGS__HOOK_POLL_MISSED /* after the k-th poll that found the count short: nothing */
#define WGS__HOOK_POLL_MISSED(k) ((void)(k))
#endif
#ifndef WGS__HOOK_ARRIVED_SHORT /* an arrival that waited for its add, `missing` short: nothing */
#define WGS__HOOK_ARRIVED_SHORT(missing) ((void)(missing))
#endif
WGS_FN unsigned wgs__wait_ld_acq(wgs_word_ptr p) { return WGS__HOOK_WAIT_LD_ACQ(p); }
WGS_FN void wgs__arrive_st_rel(wgs_word_ptr p, unsigned v) { WGS__HOOK_ARRIVE_ST_REL(p, v); }
WGS_FN void wgs__arrive_add_rel(wgs_word_ptr p, unsigned v) { WGS__HOOK_ARRIVE_ADD_REL(p, v); }

WGS_FN unsigned wgs__kind_xf(const wgs_env *env) { return (env->barrier_kind & 255u) == WGS_BARRIER_KIND_XF; }
WGS_FN unsigned wgs__sharded(const wgs_env *env) { return WGS_SHARDED ? (env->barrier_kind >> 16) & 1u : 0u; }
WGS_FN unsigned wgs__published(const wgs_env *env) { return (env->barrier_kind >> 25) & 1u; }
WGS_FN unsigned wgs__log2_shards(const wgs_env *env) { return WGS_SHARDED ? (env->barrier_kind >> 8) & 15u : 0u; }
WGS_FN unsigned wgs__log2_replicas(const wgs_env *env) { return (env->barrier_kind >> 12) & 15u; }
WGS_FN unsigned wgs__arrival_waits(const wgs_env *env) { return (env->barrier_kind >> 24) & 1u; }
/* This group combines a sharded launch's arrivals (participant 0). */
WGS_FN unsigned wgs__combiner(const wgs_env *env) { return wgs__sharded(env) && env->group_id == 0u; }
/* Shard i (i = 0 is the unsharded launches' one count); replica r. */
WGS_FN wgs_word_ptr wgs__shard(const wgs_env *env, unsigned i)
{
  return env->s + WGS_W_SHARDS + i * WGS_LINE_WORDS;
}
WGS_FN wgs_word_ptr wgs__replica(const wgs_env *env, unsigned r)
{
  return env->s + WGS_W_SHARDS + (WGS_SHARDS_MAX + r) * WGS_LINE_WORDS;
}
/* The representative's arrival: shard 0 when not sharded (log2 S is then 0). Returns the count
 * it made when the arrival waits for its add (published, or wgs__arrival_waits; and may_wait),
 * else 0. Published: the last arrival publishes the instance (see "Counter barrier"). */
WGS_FN unsigned wgs__counter_arrive(const wgs_env *env, unsigned may_wait)
{
  if (wgs__published(env)) {
    unsigned want = env->counted + 1u, made = wgs__add_rel(wgs__shard(env, 0u), 1u) + 1u;
    if ((int)(made - env->num_groups * want) >= 0) {
      wgs__fence_acq_rel(); /* acquires every arrival, releases the stores below */
      WGS__FEW_AT_A_TIME
      for (unsigned r = 0u; r < (1u << wgs__log2_replicas(env)); ++r)
        wgs__st_rlx(wgs__replica(env, r), want);
    }
    return may_wait ? made : 0u;
  }
  wgs_word_ptr shard = wgs__shard(env, env->group_id & ((1u << wgs__log2_shards(env)) - 1u));
  if (may_wait && wgs__arrival_waits(env))
    return wgs__add_acqrel(shard, 1u) + 1u;
  wgs__arrive_add_rel(shard, 1u);
  return 0u;
}
/* Relaxed polls of *word until it reaches target (signed difference), then one acquire load. */
WGS_FN void wgs__poll_until(const wgs_env *env, wgs_word_ptr word, unsigned target, unsigned site)
{
  wgs__spin sp;
  wgs__spin_init(&sp);
  unsigned missed = 0u; /* (read only by a measurement hook) */
  while ((int)(wgs__ld_rlx(word) - target) < 0) {
    if (wgs__wait_gave_up(env, &sp, site))
      break;
    WGS__HOOK_POLL_MISSED(missed++);
  }
  (void)wgs__wait_ld_acq(word);
}
/* The wait's first phase, for every work-item of a group (part: the group takes part): the
 * pollers poll. One poll loop serves the three (the combiner's work-items, a sharded launch's
 * representatives, an unsharded launch's): three inlined loops took the apps' CUDA kernels up
 * to 15 registers more. made: the count the arrival made when it waited for its add, else 0. */
WGS_FN void wgs__counter_poll(const wgs_env *env, unsigned part, unsigned made, unsigned site)
{
  unsigned want = env->counted + 1u, lid = env->local_id, n = env->num_groups;
  unsigned ls = wgs__log2_shards(env), lr = wgs__log2_replicas(env), sharded = wgs__sharded(env);
  wgs_word_ptr word = 0;
  unsigned target = want;
  if (!part) {
  } else if (wgs__combiner(env)) {
    if (lid < (1u << ls)) {
      word = wgs__shard(env, lid);
      target = (n >> ls) * want + (lid < (n & ((1u << ls) - 1u)) ? want : 0u);
    }
  } else if (lid == 0u) {
    unsigned replicas = sharded || wgs__published(env);
    word = replicas ? wgs__replica(env, env->group_id & ((1u << lr) - 1u)) : wgs__shard(env, 0u);
    target = replicas ? want : n * want;
    if (made != 0u) { /* the arrival waited for its add (0: it did not, or a split arrive) */
      if ((int)(made - n * want) >= 0)
        word = 0; /* the last arrival: its acq_rel RMW (published: its fence) acquired the rest */
      else
        WGS__HOOK_ARRIVED_SHORT(n * want - made);
    }
  }
  if (word != 0)
    wgs__poll_until(env, word, target, site);
}
/* The second phase, after the join: the combiner publishes instance counted+1 on the replicas. */
WGS_FN void wgs__counter_publish(const wgs_env *env, unsigned part)
{
  if (part && wgs__combiner(env) && env->local_id < (1u << wgs__log2_replicas(env)))
    wgs__arrive_st_rel(wgs__replica(env, env->local_id), env->counted + 1u);
}
/* The whole wait, for every work-item of a group that takes part (the team barrier's group 0). */
WGS_FN void wgs__counter_wait(const wgs_env *env, unsigned site, unsigned made)
{
  wgs__counter_poll(env, 1u, made, site);
  WGS__JOIN(env, 1u, 0u);
  wgs__counter_publish(env, 1u);
}

/*
 * The full grid barrier, either kind. Every group runs the same work-group barriers (B1, the
 * join, B3) whatever its role and kind; only work-item steps sit in conditionals. Fig. 2 puts
 * the barriers themselves under "master or slave", a condition the compiler cannot prove
 * uniform: PoCL 3.1 (loopvec) corrupted memory in about one run in four with that shape, and
 * asserted on a barrier under a condition in the counter barrier. The extra work-group barrier
 * (B1 on the XF master, B2 on an XF slave) changes no ordering argument.
 *
 * XF barrier (§4.2; group 0 is the master; its work-items share the slaves between them, so any
 * number of groups works with any work-group size). Ordering, the four cases of §4.4:
 *  - slave -> master: the slave's B1 orders all its work-items' writes before the
 *    representative's release store flag=1; the master work-item's acquire load that reads 1
 *    synchronises with it; the master's B2 extends that to every master work-item.
 *  - master -> slave: every master work-item's writes precede B2, which precedes the release
 *    store flag=0; the slave representative's acquire load reading 0 synchronises with it; the
 *    slave's B3 extends it to the group.
 *  - slave -> slave: the two chains above compose through the master.
 *  - same group: the work-group barriers.
 * Dropping any one of these breaks one chain; wgs_mp in device/opencl/kernels/tools.cl and
 * bench/litmus/bench_litmus.cu are the message-passing tests that check them.
 * Reuse without reset races: the master resets a flag to 0 only after reading 1, and the slave
 * writes 1 again only after reading that 0, so instance k+1 never sees instance k's value.
 */
/*
 * Where the environment starts empty (WGS__ENV_STARTS_EMPTY: C++ default member initialisers),
 * a group that must not take part does nothing but a work-group barrier and leaves: one whose
 * environment wgs_discover never filled (checked builds record the line, which wgs_discover
 * then reports), or one wgs_discover turned away (checked builds report it; report = 0 for a
 * split wait, whose arrive reported). Whether a group takes part is the same for all its
 * work-items, so the early return is group-uniform. Unchecked builds keep the barrier's measured
 * shape: a turned-away group skips the steps of the barrier (its part is 0); before
 * wgs_discover is undefined. (Taking the checked path there cost 1-2.5% at 264 x 1024 and
 * 1056 x 256 on the H100.) Elsewhere (OpenCL) there is no early return: PoCL can hang on one.
 */
#if WGS__ENV_STARTS_EMPTY
WGS_FN int wgs__outsider(wgs_env *env, unsigned site, int report)
{
#if defined(WGS_CHECKED) && WGS_CHECKED
  if (env->s != 0 && env->participating)
    return 0;
  wgs__group_barrier();
  if (!report) {
  } else if (env->s == 0) {
    env->early_site = site;
  } else if (env->local_id == 0u) {
    wgs__report_misuse(env->s, WGS_MISUSE_NOT_PARTICIPATING, site, 0u, 0u);
  }
  return 1;
#else
  (void)env, (void)site, (void)report;
  return 0;
#endif
}
#define WGS__LEAVE_IF_OUTSIDER(env, site, report) \
  if (wgs__outsider((env), (site), (report)))    \
  return
#else
#define WGS__LEAVE_IF_OUTSIDER(env, site, report) (void)0
#endif

/* Two choices measured on the H200 (docs/results.md):
 * WGS_REPS_POLL_AFTER_JOIN: the representatives other than the combiner's poll after the join
 * instead of before it. The OpenCL layer sets it (NVIDIA OpenCL, 1056 x 256: 1.61-1.67 us per
 * counter barrier, against 1.83-1.89 before the join); on CUDA, whose join is no block barrier,
 * it only delays the poll (2.05 us against 1.98, the CLI's latency kernel).
 * WGS_BARRIER_SPLIT_KINDS=1: the two kinds as two branches of a group-uniform condition, each
 * with xf constant, as the CUDA library had them (CUDA only: PoCL needs one body). It lost in a
 * barrier-only kernel (0.96 against 0.88 us at 132 x 256, 1.94 against 1.76 at 1056 x 256),
 * though it won back the XF barrier's 5-7% in the CLI's latency kernel. */
#ifndef WGS_REPS_POLL_AFTER_JOIN
#define WGS_REPS_POLL_AFTER_JOIN 0
#endif
#ifndef WGS_BARRIER_SPLIT_KINDS
#define WGS_BARRIER_SPLIT_KINDS 0
#endif
/*
 * Grid barrier with an OR (wgs_grid_barrier_or): the same barrier, and every work-item learns
 * whether any work-item of any participating group passed a nonzero value, the test an
 * iterative kernel makes after each step ("did anything change?"). Without it that test is a
 * flag raised before the barrier and read after it by every work-item; here B1 ORs over the
 * group, the representative of a group that saw a nonzero value stores the tag instance + 1 on
 * the instance's OR word before its arrival, and after the barrier the representative alone
 * reads the word and B3 ORs its answer over the group. Ordering: the tag store precedes the
 * group's arrival (its release add or store, or, in the XF master, B2 and the release stores
 * after it), and the representative's load follows its own acquire (or the join that carried
 * the combiner's or the master's acquires to it), so the load reads this instance's tag if any
 * group stored it. Nothing is cleared: the word of instance k (k & 1) is next written at instance
 * k + 2, only after every group arrived at k + 1, so after every representative read it for k;
 * a stale tag (k - 1 or older) never equals k + 1. The tags count barrier instances of every
 * kind, which every participating group passes alike, so they agree across groups.
 */
#ifndef wgs__group_barrier_or
/* The layer has no work-group OR: the group meets in global memory. The work-items with a
 * nonzero value store the tag on the group's word for this call (slot 0: B1, 1: B3), the
 * work-group barrier (global fence) orders the stores before every work-item's load after it,
 * and a work-item that reads the tag knows someone passed a nonzero value. The word's next
 * writers are a later barrier's, after this call's readers passed another work-group barrier;
 * a group that does not take part reads and writes nothing. */
WGS_FN unsigned wgs__group_or_global(const wgs_env *env, unsigned slot, unsigned v)
{
  unsigned tag = env->instance + 1u, part = env->participating;
  wgs_word_ptr word = env->s + WGS_OFF_GROUP_OR(env->max_groups) + 2u * (part ? env->group_id : 0u) + slot;
  if (part && v != 0u && wgs__ld_rlx(word) != tag)
    wgs__st_rlx(word, tag);
  wgs__group_barrier();
  return part && wgs__ld_rlx(word) == tag;
}
#define wgs__group_barrier_or(env, slot, v) wgs__group_or_global((env), (slot), (v))
#endif

#if WGS_PHASE_CALLS
/* Where the layer asks for it (WGS_PHASE_CALLS: PoCL), the steps between a grid barrier's
 * work-group barriers are two functions that are never inlined, so that every region PoCL forms
 * between barriers is one call. With the steps inlined, clang merged their local-id tests into a
 * branch right after B1 and PoCL 3.1 formed the next region without its local-id-0 side, so no
 * group arrived and the README's kernel hung (tests/test_shapes.c); finer calls crashed its
 * compiler or took it minutes. They are the inlined steps of wgs__grid_barrier_body in the same
 * order, arranged per phase; elsewhere the inlined arrangement stays (this one measured slower
 * on CUDA, 1056 x 256 and 2112 x 128 on an H100).
 *
 * Phase 1, between B1 and the join: the representative records its entry (checked builds),
 * stores the OR's tag when its group saw a nonzero value (tag; before the arrival, which
 * releases it) and arrives: a counter barrier's add, an XF slave's flag (Fig. 2(b) line 3).
 * Then the counter barrier's early pollers poll, and the XF master's work-items wait for the
 * slaves (Fig. 2(a) line 2). Returns the count the arrival made when it waited for its add. */
__attribute__((noinline)) static unsigned wgs__barrier_phase1(const wgs_env *env, unsigned site,
                                                             unsigned xf, unsigned tag, unsigned early)
{
  unsigned made = 0u, part = env->participating, id = env->group_id, lid = env->local_id;
  if (lid == 0u) {
    wgs__check_entry(env, site);
    if (part && tag)
      wgs__st_rlx(env->s + WGS_W_OR + (env->instance & 1u), env->instance + 1u);
    if (part && !xf)
      made = wgs__counter_arrive(env, 1u);
    else if (part && id != 0u)
      wgs__st_rel(env->s + WGS_OFF_FLAG(env->max_groups) + id, 1u);
  }
  if (!part) {
  } else if (!xf) {
    wgs__counter_poll(env, early, made, site);
  } else if (id == 0u) {
    wgs_word_ptr flag = env->s + WGS_OFF_FLAG(env->max_groups);
    for (unsigned g = lid + 1u; g < env->num_groups; g += env->local_size)
      wgs__wait_while(env, &flag[g], 0u, site);
  }
  return made;
}
/* Phase 2, between the join and B3: the counter barrier's combiner publishes and the late
 * pollers poll; the XF master releases the slaves (Fig. 2(a) line 8), each slave's
 * representative waits for its release (Fig. 2(b) line 4). */
__attribute__((noinline)) static void wgs__barrier_phase2(const wgs_env *env, unsigned site,
                                                         unsigned xf, unsigned early, unsigned made)
{
  unsigned part = env->participating, id = env->group_id, lid = env->local_id;
  wgs_word_ptr flag = env->s + WGS_OFF_FLAG(env->max_groups);
  if (!part) {
  } else if (!xf) {
    wgs__counter_publish(env, part);
    wgs__counter_poll(env, !early, made, site);
  } else if (id == 0u) {
    for (unsigned g = lid + 1u; g < env->num_groups; g += env->local_size)
      wgs__st_rel(&flag[g], 0u);
  } else if (lid == 0u) {
    wgs__wait_while(env, &flag[id], 1u, site);
  }
}
#endif
/* with_or: wgs_grid_barrier_or (a constant where inlined, so the plain barrier holds none of
 * its code); v: the work-item's value. Returns the OR over the grid, 0 without with_or. */
WGS_FN unsigned wgs__grid_barrier_body(wgs_env *env, unsigned site, unsigned xf, unsigned with_or, unsigned v)
{
  WGS__OPAQUE_ENV(env);
  wgs_word_ptr flag = env->s + WGS_OFF_FLAG(env->max_groups);
  wgs_word_ptr orw = env->s + WGS_W_OR + (env->instance & 1u);
  unsigned n = env->num_groups, id = env->group_id, lid = env->local_id, lsize = env->local_size;
  unsigned part = env->participating, made = 0u, any = 0u;
  unsigned early = !WGS_REPS_POLL_AFTER_JOIN || wgs__combiner(env);
  /* B1 = Fig. 2(b) line 1; before the counter's release add */
  if (with_or)
    any = wgs__group_barrier_or(env, 0u, v);
  else
    wgs__group_barrier();
#if WGS_PHASE_CALLS
  made = wgs__barrier_phase1(env, site, xf, with_or && any, early);
  WGS__JOIN(env, part, xf); /* B2 = Fig. 2(a) line 5 */
  wgs__barrier_phase2(env, site, xf, early, made);
#else
  if (lid == 0u)
    wgs__check_entry(env, site);
  if (with_or && any && part && lid == 0u) /* before the arrival below, which releases it */
    wgs__st_rlx(orw, env->instance + 1u);
  if (!part) {
  } else if (!xf) {
    if (lid == 0u)
      made = wgs__counter_arrive(env, 1u);
    wgs__counter_poll(env, part && early, made, site);
  } else if (id == 0u) {
    WGS__ONE_AT_A_TIME
    for (unsigned g = lid + 1u; g < n; g += lsize) /* Fig. 2(a) line 2: wait for slave g */
      wgs__wait_while(env, &flag[g], 0u, site);
  } else if (lid == 0u) {
    wgs__st_rel(&flag[id], 1u); /* Fig. 2(b) line 3: arrive */
  }
  WGS__JOIN(env, part, xf); /* B2 = Fig. 2(a) line 5 */
  if (!part) {
  } else if (!xf) {
    wgs__counter_publish(env, part);
    wgs__counter_poll(env, !early, made, site);
  } else if (id == 0u) {
    WGS__ONE_AT_A_TIME
    for (unsigned g = lid + 1u; g < n; g += lsize) /* Fig. 2(a) line 8: release slave g */
      wgs__st_rel(&flag[g], 0u);
  } else if (lid == 0u) {
    wgs__wait_while(env, &flag[id], 1u, site); /* Fig. 2(b) line 4: wait for release */
  }
#endif
  /* B3 = Fig. 2(b) line 6; carries the acquire to the group */
  if (with_or) {
    /* lid 0 has acquired every arrival: its own poll's acquire (a representative), the join
     * (the combiner's lanes, the XF master's work-items), or its wait (an XF slave) */
    unsigned seen = part && lid == 0u && wgs__ld_rlx(orw) == env->instance + 1u;
    any = wgs__group_barrier_or(env, 1u, seen);
  } else {
    wgs__group_barrier();
  }
  env->counted += xf ? 0u : 1u;
  env->instance++;
  return any;
}
WGS_BARRIER_FN void wgs__grid_barrier(wgs_env *env, unsigned site)
{
  WGS__LEAVE_IF_OUTSIDER(env, site, 1);
  unsigned xf = wgs__kind_xf(env);
  if (WGS_BARRIER_SPLIT_KINDS && xf)
    (void)wgs__grid_barrier_body(env, site, 1u, 0u, 0u);
  else if (WGS_BARRIER_SPLIT_KINDS)
    (void)wgs__grid_barrier_body(env, site, 0u, 0u, 0u);
  else
    (void)wgs__grid_barrier_body(env, site, xf, 0u, 0u);
}
WGS_BARRIER_FN unsigned wgs__grid_barrier_or(wgs_env *env, unsigned v, unsigned site)
{
/* WGS__LEAVE_IF_OUTSIDER with a result. (A variadic form of that macro, to serve both, made
 * every OpenCL program fail on NVIDIA's OpenCL, while PoCL and CUDA took it.) */
#if WGS__ENV_STARTS_EMPTY
  if (wgs__outsider(env, site, 1))
    return 0u;
#endif
  return wgs__grid_barrier_body(env, site, wgs__kind_xf(env), 1u, v);
}

/*
 * Split grid barrier (device scope; the idea of cl_intel_split_work_group_barrier applied to the grid): arrive releases
 * everything this group wrote before it (a work-group barrier, then the representative's
 * release add); wait returns once every participating group has arrived at the same instance,
 * and acquires (the poll's acquire load, then a work-group barrier). Work between them overlaps
 * the barrier. It is the counter barrier cut in two (also when the launch's kind is XF), so
 * reuse has no reset race. Every group alternates arrive, wait, arrive, ...; checked builds
 * report a wait without an arrive and a second arrive. Each half holds its work-group barriers
 * outside any condition.
 */
WGS_FN void wgs__split_misuse(wgs_env *env, unsigned site)
{
#if defined(WGS_CHECKED) && WGS_CHECKED
  if (env->local_id == 0u) {
    wgs__report_grid(env, site, WGS_DEV_ERR_SPLIT);
    wgs__abort_done(env->s);
  }
#else
  (void)env, (void)site;
#endif
}
/* The split arrive's step after its work-group barrier: the representative records its entry
 * and arrives. Where the layer asks for it (WGS_PHASE_CALLS: PoCL) a call never inlined, as the
 * full barrier's phases are, that tests the built-in local id: inlined after a grid reduction's
 * work-group steps, or testing env->local_id, PoCL 3.1's loopvec method ran it in no work-item
 * and a correct split reduction timed out (tests/kernels/split.cl first_split_reduce); the
 * built-in in every local-id test broke its full barriers instead (the litmus at scale). */
#if WGS_PHASE_CALLS
__attribute__((noinline)) static void wgs__split_arrive_step(const wgs_env *env, unsigned site)
{
  unsigned rep = wgs__local_index() == 0u;
#else
WGS_FN void wgs__split_arrive_step(const wgs_env *env, unsigned site)
{
  unsigned rep = env->local_id == 0u;
#endif
  if (rep) {
    wgs__check_entry(env, site);
    if (env->participating)
      (void)wgs__counter_arrive(env, 0u); /* waits only when published, to publish if last */
  }
}
WGS_FN void wgs__grid_arrive_as(wgs_env *env, unsigned site, unsigned state)
{
  if (env->split_state != 0u)
    wgs__split_misuse(env, site); /* arrived twice without a wait */
  wgs__group_barrier(); /* every work-item's writes before the representative's release */
  wgs__split_arrive_step(env, site);
  env->split_state = state;
}
WGS_FN void wgs__grid_arrive(wgs_env *env, unsigned site)
{
  WGS__LEAVE_IF_OUTSIDER(env, site, 1);
  wgs__grid_arrive_as(env, site, 1u);
}
/* state: what the arrive this wait completes must have set (1: a plain arrive) */
WGS_FN void wgs__grid_wait_as(wgs_env *env, unsigned site, unsigned state)
{
  unsigned part = env->participating && env->split_state == state;
  if (env->split_state != state)
    wgs__split_misuse(env, site); /* waited without arriving, or for another kind of arrive */
  wgs__counter_poll(env, part, 0u, site);
  WGS__JOIN(env, part, 0u);
  wgs__counter_publish(env, part);
  wgs__group_barrier(); /* the poller's acquire, carried to the group */
  env->split_state = 0u;
  env->counted++;
  env->instance++;
}
WGS_FN void wgs__grid_wait(wgs_env *env, unsigned site)
{
  WGS__LEAVE_IF_OUTSIDER(env, site, 0);
  wgs__grid_wait_as(env, site, 1u);
}

/*
 * Grid reductions (wgs_grid_reduce_u32/_f32 and their split forms): a grid barrier that also
 * returns, in every work-item of every participating group, the sum, minimum or maximum of the
 * values all of them passed; cooperative groups' cg::reduce over a tile, then an atomic and
 * grid.sync(), in one call. Built on the barrier, not inside it:
 *  1. the group reduces its work-items' values (wgs__group_reduce) and its representative stores
 *     the result, a plain relaxed store, at its participating id in the buffer of the instance's
 *     parity (WGS_RED_PART);
 *  2. the grid barrier (or the split arrive ... wait): the store precedes the group's arrival,
 *     as any data the group wrote before a barrier, so after the barrier every work-item of
 *     every group reads every group's value;
 *  3. every group reduces the num_groups values itself, in the same order (work-item i folds
 *     values i, i + local_size, ... in index order, then wgs__group_reduce): every group
 *     computes the same answer from the same values, bit for bit also for a float sum, so a
 *     loop that ends on it ends in every group alike.
 * Reuse: the buffer of instance k (k & 1) is next written at instance k + 2, after its writer
 * passed instance k + 1, which every group arrived at only after reading instance k's values in
 * step 3. Nothing is cleared. Split forms: the value is stored before the arrive and read after
 * the wait, so work between them overlaps the barrier as with wgs_grid_arrive.
 * Floats: the sum rounds at every step (where the layer's work-group step has a fixed order,
 * WGS__GROUP_REDUCE_ORDERED, the same inputs give the same bits launch after launch); minimum and maximum are exact and follow IEEE 754's
 * totalOrder (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN), so they never depend on the
 * order of the values either: the float's bits are mapped onto an unsigned key with that order.
 */
#define WGS_SUM 0u
#define WGS_MIN 1u
#define WGS_MAX 2u
#define WGS__RED_FSUM 3u /* the kinds below: WGS_SUM/MIN/MAX over unsigned words, or a float sum */
WGS_FN unsigned wgs__red_identity(unsigned kind)
{
  return kind == WGS_MIN ? 0xffffffffu : kind == WGS__RED_FSUM ? 0x80000000u /* -0.0f */ : 0u;
}
WGS_FN unsigned wgs__red_op(unsigned kind, unsigned a, unsigned b)
{
  if (kind == WGS__RED_FSUM)
    return wgs__f2u(wgs__u2f(a) + wgs__u2f(b));
  if (kind == WGS_SUM)
    return a + b;
  if (kind == WGS_MIN)
    return a < b ? a : b;
  return a > b ? a : b;
}
/* totalOrder as unsigned order: a positive float's bits with the sign bit set; a negative one's
 * bits all flipped. */
WGS_FN unsigned wgs__fkey(unsigned u) { return u ^ ((u >> 31) != 0u ? 0xffffffffu : 0x80000000u); }
WGS_FN unsigned wgs__funkey(unsigned k) { return k ^ ((k >> 31) != 0u ? 0x80000000u : 0xffffffffu); }
/* The kind for op over unsigned (f32 = 0) or float values, and a value's word for it and back. */
WGS_FN unsigned wgs__red_kind(unsigned op, unsigned f32)
{
  return f32 && op == WGS_SUM ? WGS__RED_FSUM : op;
}
WGS_FN unsigned wgs__red_in(unsigned op, unsigned f32, unsigned bits)
{
  return f32 && op != WGS_SUM ? wgs__fkey(bits) : bits;
}
WGS_FN unsigned wgs__red_out(unsigned op, unsigned f32, unsigned word)
{
  return f32 && op != WGS_SUM ? wgs__funkey(word) : word;
}
/* A split reduction's split_state: arrived (bit 0), and which op and type (bits 1 up). */
WGS_FN unsigned wgs__red_state(unsigned op, unsigned f32) { return 1u | (op + 3u * f32 + 1u) << 1; }
/* The values' buffer of an instance (WGS_RED_PART), indexed by participating id. */
WGS_FN wgs_word_ptr wgs__red_part(const wgs_env *env, unsigned instance)
{
  return wgs__glob(env->s) + WGS_RED_PART(env->max_groups) + (instance & 1u) * env->max_groups;
}

/* The group's words for a layer's work-group reduction (WGS_RED_GROUP): words 0-3 for the core's
 * fallback below, 4 on for a layer's own (NVIDIA OpenCL's, device/opencl/wgs_atomics.cl). */
WGS_FN wgs_word_ptr wgs__red_scratch(const wgs_env *env)
{
  return wgs__glob(env->s) + WGS_RED_GROUP(env->max_groups) + WGS_RED_WORDS * wgs__group_index();
}
#ifndef wgs__group_reduce
/* The layer has no work-group reduction (OpenCL C 1.2): the group meets in global memory, on its
 * native group's words (WGS_RED_GROUP), with no loop around a work-group barrier (PoCL 3.1 took
 * seconds to minutes to compile a kernel with a few such loops). Work-item 0 stores the
 * identity, a work-group barrier, every work-item combines its value with a read-modify-write
 * (unsigned add, min, max: exact in any order; a float sum: a compare-and-swap loop, so its
 * rounding follows the order the work-items came in), a barrier, every work-item reads the
 * answer. Four words: phase (0: before the grid barrier, 1: after it) and the instance's parity
 * pick one, so a call never writes a word another work-item may still read: the word of
 * instance k is next stored at instance k + 2, after a work-group barrier that every work-item
 * of the group passed after reading it. */
WGS_FN wgs_word_ptr wgs__red_word(const wgs_env *env, unsigned phase)
{
  return wgs__red_scratch(env) + 2u * (env->instance & 1u) + phase;
}
WGS_FN unsigned wgs__group_reduce_global(const wgs_env *env, unsigned phase, unsigned kind, unsigned x)
{
  wgs_word_ptr w = wgs__red_word(env, phase);
  if (env->local_id == 0u)
    wgs__st_rlx(w, wgs__red_identity(kind));
  wgs__group_barrier();
  if (kind == WGS_SUM) {
    (void)wgs__add_rlx(w, x);
  } else if (kind == WGS_MIN) {
    (void)wgs__min_rlx(w, x);
  } else if (kind == WGS_MAX) {
    (void)wgs__max_rlx(w, x);
  } else {
    unsigned seen = wgs__ld_rlx(w), was;
    while ((was = wgs__cas_rlx(w, seen, wgs__red_op(kind, seen, x))) != seen)
      seen = was;
  }
  wgs__group_barrier();
  return wgs__ld_rlx(w);
}
#define wgs__group_reduce(env, phase, kind, x) wgs__group_reduce_global((env), (phase), (kind), (x))
#define WGS__GROUP_REDUCE_ORDERED 0
#endif

/* Step 1: the group's value, stored for instance env->instance. */
WGS_FN void wgs__red_put(const wgs_env *env, unsigned kind, unsigned x)
{
  unsigned mine = wgs__group_reduce(env, 0u, kind, x);
  if (env->participating && env->local_id == 0u)
    wgs__st_rlx(wgs__red_part(env, env->instance) + env->group_id, mine);
}
/* Step 3, after the barrier of instance `instance`. */
WGS_FN unsigned wgs__red_get(const wgs_env *env, unsigned kind, unsigned instance)
{
  wgs_word_ptr part = wgs__red_part(env, instance);
  unsigned acc = wgs__red_identity(kind);
#if !WGS__GROUP_REDUCE_ORDERED
  /* a float sum without an ordered work-group step: work-item 0 folds every value in order */
  if (kind == WGS__RED_FSUM) {
    wgs_word_ptr w = wgs__red_word(env, 1u);
    if (env->participating && env->local_id == 0u) {
      for (unsigned i = 0u; i < env->num_groups; i++)
        acc = wgs__red_op(kind, acc, wgs__ld_rlx(&part[i]));
      wgs__st_rlx(w, acc);
    }
    wgs__group_barrier();
    return wgs__ld_rlx(w);
  }
#endif
  if (env->participating)
    for (unsigned i = env->local_id; i < env->num_groups; i += env->local_size)
      acc = wgs__red_op(kind, acc, wgs__ld_rlx(&part[i]));
  return wgs__group_reduce(env, 1u, kind, acc);
}
WGS_FN unsigned wgs__grid_reduce(wgs_env *env, unsigned op, unsigned f32, unsigned bits, unsigned site)
{
#if WGS__ENV_STARTS_EMPTY
  if (wgs__outsider(env, site, 1))
    return 0u;
#endif
  unsigned kind = wgs__red_kind(op, f32), instance = env->instance;
  wgs__red_put(env, kind, wgs__red_in(op, f32, bits));
  wgs__grid_barrier(env, site);
  return wgs__red_out(op, f32, wgs__red_get(env, kind, instance));
}
/* The split forms: the arrive records the kind (bits 1 up of split_state), which the wait must
 * name alike (checked builds report a mismatch as split misuse). */
WGS_FN void wgs__grid_arrive_reduce(wgs_env *env, unsigned op, unsigned f32, unsigned bits, unsigned site)
{
  WGS__LEAVE_IF_OUTSIDER(env, site, 1);
  unsigned kind = wgs__red_kind(op, f32);
  wgs__red_put(env, kind, wgs__red_in(op, f32, bits));
  wgs__grid_arrive_as(env, site, wgs__red_state(op, f32));
}
WGS_FN unsigned wgs__grid_wait_reduce(wgs_env *env, unsigned op, unsigned f32, unsigned site)
{
#if WGS__ENV_STARTS_EMPTY
  if (wgs__outsider(env, site, 0))
    return 0u;
#endif
  unsigned instance = env->instance;
  wgs__grid_wait_as(env, site, wgs__red_state(op, f32));
  return wgs__red_out(op, f32, wgs__red_get(env, wgs__red_kind(op, f32), instance));
}

/* ---- the API ---------------------------------------------------------------------------------
 * The call's line is what a checked build names in its reports. */
#define wgs_discover(state, env) wgs__discover((state), (env), (unsigned)__LINE__)
/* Grid barrier among the participating groups of env; every work-item of every participating
 * group calls it the same number of times (Sorensen et al. 2016 §4.3). */
#define wgs_grid_barrier(env) \
  (wgs__count_entry((env), (unsigned)__LINE__), wgs__grid_barrier((env), (unsigned)__LINE__))
/* The same barrier, returning (in every work-item) whether any work-item of any participating
 * group passed v != 0: the "did anything change?" of an iterative kernel, with no flag to clear
 * and no read after the barrier. v is tested as it is (a 64-bit value, a fraction), never
 * narrowed first. */
#define wgs_grid_barrier_or(env, v)                \
  (wgs__count_entry((env), (unsigned)__LINE__), \
   wgs__grid_barrier_or((env), (unsigned)((v) != 0), (unsigned)__LINE__))
#define wgs_grid_arrive(env) \
  (wgs__count_entry((env), (unsigned)__LINE__), wgs__grid_arrive((env), (unsigned)__LINE__))
#define wgs_grid_wait(env) wgs__grid_wait((env), (unsigned)__LINE__)
/* Grid reductions: a grid barrier that returns, in every work-item of every participating group,
 * op (WGS_SUM, WGS_MIN or WGS_MAX) over the values every one of them passed: unsigned 32-bit
 * (the sum wraps modulo 2^32) or float (min and max in IEEE totalOrder; the sum in a fixed
 * order, so every group gets the same bits). op is a constant. The split forms: arrive with the
 * value, then wait for the answer (the same op and type), with work between them as
 * wgs_grid_arrive / wgs_grid_wait. Each counts as one grid barrier. */
#define wgs_grid_reduce_u32(env, op, v)         \
  (wgs__count_entry((env), (unsigned)__LINE__), \
   wgs__grid_reduce((env), (op), 0u, (unsigned)(v), (unsigned)__LINE__))
#define wgs_grid_reduce_f32(env, op, v)                                                        \
  (wgs__count_entry((env), (unsigned)__LINE__),                                             \
   wgs__u2f(wgs__grid_reduce((env), (op), 1u, wgs__f2u((float)(v)), (unsigned)__LINE__)))
#define wgs_grid_arrive_reduce_u32(env, op, v)  \
  (wgs__count_entry((env), (unsigned)__LINE__), \
   wgs__grid_arrive_reduce((env), (op), 0u, (unsigned)(v), (unsigned)__LINE__))
#define wgs_grid_arrive_reduce_f32(env, op, v)  \
  (wgs__count_entry((env), (unsigned)__LINE__), \
   wgs__grid_arrive_reduce((env), (op), 1u, wgs__f2u((float)(v)), (unsigned)__LINE__))
#define wgs_grid_wait_reduce_u32(env, op) wgs__grid_wait_reduce((env), (op), 0u, (unsigned)__LINE__)
#define wgs_grid_wait_reduce_f32(env, op) \
  wgs__u2f(wgs__grid_wait_reduce((env), (op), 1u, (unsigned)__LINE__))

#endif
