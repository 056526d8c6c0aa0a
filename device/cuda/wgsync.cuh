/*
 * wgsync device library for CUDA C: occupancy discovery (seed 003 §3), the participating-group
 * environment (Table 2), grid barriers among participating groups (§4), a split grid barrier,
 * and checked builds (-DWGS_CHECKED=1: every spin bounded, misuse reported, never a hang).
 * Same API and semantics as the OpenCL device library (device/opencl); the state layout is device/common/wgs_layout.h.
 *
 *   __global__ void k(unsigned *wgs, ...) {
 *     wgs_env env;
 *     if (wgs_discover(wgs, &env)) { ... wgs_grid_barrier(&env); ... }
 *   }
 *
 * Memory ordering uses PTX (sm_70+) at gpu scope, each site saying why it is enough:
 * ld.acquire.gpu / st.release.gpu for flags and generations, atom.acq_rel.gpu for arrival
 * counters (an acq_rel RMW chain is a release sequence: the last arriver's RMW synchronises
 * with every earlier arriver's), __syncthreads() (bar.sync, CTA-scope ordering) around them.
 */
#ifndef WGSYNC_CUH
#define WGSYNC_CUH

#include "wgs_layout.h"

#define WGS_DEV static __device__ __forceinline__

/* One kernel source for CUDA and OpenCL C (the OpenCL library defines the same three): a kernel
 * written with them, wgsync's calls and the wgs_get_* ids compiles in both
 * (tests/kernels/portable.h). */
#define WGS_KERNEL extern "C" __global__
#define WGS_GLOBAL
typedef unsigned wgs_uint;

/* ---- atomics layer (PTX) ---------------------------------------------------------------- */
WGS_DEV unsigned wgs__ld_acq(const unsigned *p)
{
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
WGS_DEV unsigned wgs__ld_rlx(const unsigned *p)
{
  unsigned v;
  asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
WGS_DEV void wgs__st_rel(unsigned *p, unsigned v)
{
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
WGS_DEV void wgs__st_rlx(unsigned *p, unsigned v)
{
  asm volatile("st.relaxed.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
WGS_DEV unsigned wgs__add_rlx(unsigned *p, unsigned v)
{
  unsigned old;
  asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
WGS_DEV unsigned wgs__add_acqrel(unsigned *p, unsigned v)
{
  unsigned old;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
WGS_DEV unsigned wgs__xchg_acq(unsigned *p, unsigned v)
{
  unsigned old;
  asm volatile("atom.acquire.gpu.global.exch.b32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
WGS_DEV unsigned wgs__or_rlx(unsigned *p, unsigned v)
{
  unsigned old;
  asm volatile("atom.relaxed.gpu.global.or.b32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
WGS_DEV unsigned wgs__cas_rlx(unsigned *p, unsigned expected, unsigned desired)
{
  unsigned old;
  asm volatile("atom.relaxed.gpu.global.cas.b32 %0, [%1], %2, %3;"
               : "=r"(old) : "l"(p), "r"(expected), "r"(desired) : "memory");
  return old;
}
WGS_DEV unsigned long long wgs__timer_ns()
{
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
WGS_DEV unsigned wgs__gridid()
{
  unsigned long long id;
  asm volatile("mov.u64 %0, %%gridid;" : "=l"(id));
  return (unsigned)id;
}
/* s points at the half of the running launch (device/common/wgs_layout.h); its line 0 holds
 * the distance back to the state's base, where the config and the error report live. */
WGS_DEV unsigned *wgs__glob(unsigned *s) { return s - s[WGS_W_BACK]; }
WGS_DEV const unsigned *wgs__glob(const unsigned *s) { return s - s[WGS_W_BACK]; }
WGS_DEV unsigned wgs__cfg(const unsigned *s, unsigned word) { return wgs__glob(s)[WGS_G_CONFIG + word]; }
WGS_DEV unsigned long long wgs__cfg64(const unsigned *s, unsigned lo)
{
  return ((unsigned long long)wgs__cfg(s, lo + 1) << 32) | wgs__cfg(s, lo);
}
/* The host-mapped mirror of the result words (CUDA launches give one; NULL otherwise). System
 * scope: the host reads it after the stream's work is complete. */
WGS_DEV unsigned *wgs__mirror(const unsigned *s)
{
  unsigned long long p = ((unsigned long long)wgs__cfg(s, WGS_CFG_HOST_HI) << 32) | wgs__cfg(s, WGS_CFG_HOST_LO);
  return (unsigned *)p;
}
WGS_DEV void wgs__mirror_put(const unsigned *s, unsigned word, unsigned v)
{
  unsigned *m = wgs__mirror(s);
  if (m)
    asm volatile("st.relaxed.sys.global.u32 [%0], %1;" ::"l"(m + word), "r"(v) : "memory");
}

/* ---- bounded spins (checked builds), as in device/opencl/wgs_atomics.cl ------------------ */
#define WGS__TIMED_OUT 1
#define WGS__ABORTED 2
struct wgs__spin {
  unsigned long long start, iters;
};
WGS_DEV void wgs__spin_init(wgs__spin *sp)
{
  sp->iters = 0;
  sp->start = wgs__timer_ns();
}
#if defined(WGS_CHECKED) && WGS_CHECKED
WGS_DEV int wgs__spin_gave_up(unsigned *s, wgs__spin *sp)
{
  unsigned state = wgs__ld_rlx(&s[WGS_W_ABORT]);
  if (state == WGS_ABORT_DONE)
    return WGS__ABORTED;
  if ((++sp->iters & 255u) != 0u)
    return 0;
  if (wgs__timer_ns() - sp->start <= wgs__cfg64(s, WGS_CFG_LIMIT_LO) || state != WGS_ABORT_RUNNING)
    return 0;
  if (wgs__cas_rlx(&s[WGS_W_ABORT], WGS_ABORT_RUNNING, WGS_ABORT_REPORTING) != WGS_ABORT_RUNNING)
    return 0; /* another spin reports; wait for it */
  return WGS__TIMED_OUT;
}
#else
#define wgs__spin_gave_up(s, sp) 0
#endif
WGS_DEV void wgs__abort_done(unsigned *s) { wgs__st_rel(&s[WGS_W_ABORT], WGS_ABORT_DONE); }

/* ---- environment ------------------------------------------------------------------------ */
struct wgs_env {
  unsigned *s = nullptr;   /* set by wgs_discover: a grid barrier can tell it came first */
  unsigned early_site = 0u; /* checked builds: line of a grid barrier that ran before wgs_discover */
  unsigned max_groups, group_id, num_groups, local_id, local_size, instance, participating;
  unsigned barrier_kind; /* WGS_BARRIER_KIND_* in bits 0-7; the counter barrier's shape in
                           bits 8-16 (wgs__choose_shards), packed so that the environment
                           takes no more registers */
  unsigned split_state; /* 0 idle, 1 arrived (checked builds use it to report misuse) */
  unsigned counted;     /* counter-based instances passed (full or split): the arrival target.
                           XF barriers do not add to the count, so mixing them is safe */
};

WGS_DEV unsigned wgs_get_group_id(const wgs_env *e) { return e->group_id; }
WGS_DEV unsigned wgs_get_num_groups(const wgs_env *e) { return e->num_groups; }
WGS_DEV size_t wgs_get_global_id(const wgs_env *e)
{
  return (size_t)e->group_id * e->local_size + e->local_id;
}
WGS_DEV size_t wgs_get_global_size(const wgs_env *e) { return (size_t)e->num_groups * e->local_size; }

/* ---- discovery (seed 003 Fig. 3; ticket / spin lock; and wgsync's lock-free protocol) ----- */
WGS_DEV void wgs__report(unsigned *s, unsigned code, unsigned group)
{
  unsigned *err = wgs__glob(s) + WGS_G_ERROR;
  if (wgs__cas_rlx(&err[WGS_ERR_CODE], 0u, code) == 0u) {
    wgs__st_rlx(&err[WGS_ERR_REPORTER], group);
    wgs__mirror_put(s, WGS_MIRROR_ERROR, code);
  }
}
/* Checked builds: the first report of a broken rule (WGS_DEV_ERR_MISUSE; the host names it). */
WGS_DEV void wgs__report_misuse(unsigned *s, unsigned what, unsigned site, unsigned arrived,
                                unsigned expected)
{
#if WGS_CHECK_MISUSE
  unsigned *err = wgs__glob(s) + WGS_G_ERROR;
  if (wgs__cas_rlx(&err[WGS_ERR_CODE], 0u, WGS_DEV_ERR_MISUSE) != 0u)
    return;
  wgs__st_rlx(&err[WGS_ERR_SITE], site);
  wgs__st_rlx(&err[WGS_ERR_INSTANCE], what);
  wgs__st_rlx(&err[WGS_ERR_ARRIVED], arrived);
  wgs__st_rlx(&err[WGS_ERR_EXPECTED], expected);
  wgs__st_rlx(&err[WGS_ERR_REPORTER], blockIdx.x);
  wgs__mirror_put(s, WGS_MIRROR_ERROR, WGS_DEV_ERR_MISUSE);
#endif
}
WGS_DEV int wgs__lock_gave_up(unsigned *s, wgs__spin *sp, unsigned group)
{
  int why = wgs__spin_gave_up(s, sp);
  if (why == WGS__TIMED_OUT) {
    wgs__report(s, WGS_DEV_ERR_LOCK, group);
    wgs__abort_done(s);
  }
  return why != 0;
}
/* The caller's spin sp bounds the wait: one per phase, one for the whole §5.4 delay. */
WGS_DEV int wgs__lock(unsigned *s, unsigned kind, unsigned *ticket, unsigned group, wgs__spin *sp)
{
  if (kind == WGS_LOCK_KIND_SPIN) {
    while (wgs__xchg_acq(&s[WGS_W_SPIN], 1u) != 0u) /* acquire: see the last holder's writes */
      if (wgs__lock_gave_up(s, sp, group))
        return 0;
  } else {
    *ticket = wgs__add_rlx(&s[WGS_W_TICKET_NEXT], 1u); /* ordering comes from the serve load */
    while (wgs__ld_acq(&s[WGS_W_TICKET_SERVE]) != *ticket)
      if (wgs__lock_gave_up(s, sp, group))
        return 0;
  }
  return 1;
}
WGS_DEV void wgs__unlock(unsigned *s, unsigned kind, unsigned ticket)
{
  if (kind == WGS_LOCK_KIND_SPIN) /* release: the next holder sees the critical section */
    wgs__st_rel(&s[WGS_W_SPIN], 0u);
  else
    wgs__st_rel(&s[WGS_W_TICKET_SERVE], ticket + 1u);
}
/* Quiescence wait (wgsync): until *word stays unchanged for wait_ns, or until stop() says so,
 * or until *word reaches the host's "enough" (the kernel's occupancy from the occupancy API):
 * then every group that can be resident has polled, and waiting longer adds nobody. An "enough"
 * that is too high only falls back to the quiet period; one too low closes early (fewer
 * participants). Either way only the closer's timing changes: §3.2's properties hold. */
WGS_DEV void wgs__quiesce(unsigned *s, const unsigned *word, unsigned seen, bool watch_poll)
{
  unsigned long long wait = wgs__cfg64(s, WGS_CFG_WAIT_LO), w0 = wgs__timer_ns();
  unsigned enough = wgs__cfg(s, WGS_CFG_ENOUGH);
  while (wgs__timer_ns() - w0 < wait) {
    if (watch_poll && (wgs__ld_acq(&s[WGS_W_CLOSED]) != 0u || wgs__ld_rlx(&s[WGS_W_ABORT]) != 0u))
      break; /* closed already: waiting longer adds nobody */
    unsigned now = wgs__ld_rlx(word);
    if (enough != 0u && (now & ~WGS_COUNT_CLOSED) >= enough)
      break;
    if (now != seen) {
      seen = now;
      w0 = wgs__timer_ns();
    }
  }
}
WGS_DEV void wgs__stamp(unsigned *s, unsigned mg, unsigned group, unsigned long long t0)
{
  if (wgs__cfg(s, WGS_CFG_TIMED) == 0u)
    return;
  unsigned *t = s + WGS_OFF_TIME(mg) + 4u * group;
  unsigned long long t1 = wgs__timer_ns();
  t[0] = (unsigned)t0;
  t[1] = (unsigned)(t0 >> 32);
  t[2] = (unsigned)t1;
  t[3] = (unsigned)(t1 >> 32);
}
/* Fig. 3 under a mutex; the comments of device/opencl/wgs_discovery.cl apply line for line. */
/* The last group of a launch to count itself in (all have read the epoch: each read precedes
 * its acq_rel count-in, and this group's RMW read the last of them) moves the epoch on. The
 * next launch, ordered after this one by its stream, reads it. */
WGS_DEV void wgs__advance_epoch(unsigned *s, unsigned epoch)
{
  wgs__st_rlx(&wgs__glob(s)[WGS_G_CTRL + WGS_CTRL_EPOCH], epoch + 1u);
  wgs__mirror_put(s, WGS_MIRROR_EPOCH, epoch + 1u);
}
/* The launch's result for the host: its epoch and participant count (control line). */
WGS_DEV void wgs__publish_result(unsigned *s, unsigned epoch, unsigned participants)
{
  unsigned *ctrl = wgs__glob(s) + WGS_G_CTRL;
  wgs__st_rlx(&ctrl[WGS_CTRL_PARTICIPANTS], participants);
  wgs__st_rlx(&ctrl[WGS_CTRL_RESULT_EPOCH], epoch);
  wgs__mirror_put(s, WGS_MIRROR_PARTICIPANTS, participants);
  wgs__mirror_put(s, WGS_MIRROR_RESULT_EPOCH, epoch);
}
WGS_DEV unsigned wgs__poll_locked(unsigned *s, unsigned group, unsigned mg, unsigned epoch)
{
  unsigned kind = wgs__cfg(s, WGS_CFG_LOCK), delay = wgs__cfg(s, WGS_CFG_DELAY);
  unsigned ticket = 0u, id = WGS_NOT_PARTICIPATING;
  unsigned long long t0 = wgs__timer_ns();
  wgs__spin sp;
  wgs__spin_init(&sp);
  if (wgs__lock(s, kind, &ticket, group, &sp)) {
    if (wgs__ld_rlx(&s[WGS_W_CLOSED]) == 0u) {
      id = wgs__ld_rlx(&s[WGS_W_COUNT]);
      wgs__st_rlx(&s[WGS_W_COUNT], id + 1u);
    }
    wgs__unlock(s, kind, ticket);
  }
  if (id == WGS_NOT_PARTICIPATING)
    return id;
  wgs__spin_init(&sp); /* §5.4 delay: bounded as a whole, as in the OpenCL library */
  for (unsigned d = 0u; d < delay; ++d) {
    if (!wgs__lock(s, kind, &ticket, group, &sp))
      break;
    wgs__unlock(s, kind, ticket);
    if (wgs__lock_gave_up(s, &sp, group))
      break;
  }
  wgs__quiesce(s, &s[WGS_W_COUNT], id + 1u, true);
  wgs__spin_init(&sp);
  if (wgs__lock(s, kind, &ticket, group, &sp)) {
    if (wgs__ld_rlx(&s[WGS_W_CLOSED]) == 0u) { /* this group closes: the count is final */
      wgs__st_rlx(&s[WGS_W_CLOSED], 1u);
      wgs__publish_result(s, epoch, wgs__ld_rlx(&s[WGS_W_COUNT]));
    }
    wgs__unlock(s, kind, ticket);
  }
  wgs__stamp(s, mg, group, t0);
  return id;
}
/* wgsync's lock-free protocol; the §3.2 argument is in device/opencl/wgs_discovery.cl. */
WGS_DEV unsigned wgs__poll_free(unsigned *s, unsigned group, unsigned mg, unsigned epoch,
                                unsigned launched)
{
  unsigned *final_word = s + WGS_OFF_FINAL(mg);
  unsigned long long t0 = wgs__timer_ns();
  /* acq_rel: the add also counts this group in for the launch epoch (wgs__discover). */
  unsigned old = wgs__add_acqrel(&s[WGS_W_COUNT], 1u);
  if ((old & ~WGS_COUNT_CLOSED) == launched - 1u)
    wgs__advance_epoch(s, epoch);
  if (old & WGS_COUNT_CLOSED)
    return WGS_NOT_PARTICIPATING;
  if (old == 0u) {
    wgs__quiesce(s, &s[WGS_W_COUNT], 1u, false);
    unsigned n = wgs__or_rlx(&s[WGS_W_COUNT], WGS_COUNT_CLOSED); /* RMW: n is exact */
    wgs__st_rel(final_word, n + 1u);                              /* publish to participants */
    wgs__publish_result(s, epoch, n);
  } else {
    wgs__spin sp;
    wgs__spin_init(&sp);
    while (wgs__ld_acq(final_word) == 0u)
      if (wgs__lock_gave_up(s, &sp, group))
        break;
  }
  wgs__stamp(s, mg, group, t0);
  return old;
}

/* The counter barrier's shape for this launch (see "Counter barrier" below), packed into
 * env->barrier_kind so that the environment takes no more registers: bit 16 set when sharded,
 * then log2 S in bits 8-11 and log2 R in bits 12-15; bit 24 set when not sharded and the
 * arrival waits for its acq_rel add. The host's WGS_CFG_SHARDS word gives S, R (powers of two,
 * at most WGS_SHARDS_MAX) and the fewest groups that use shards, WGS_CFG_ATOM_MIN the fewest
 * that wait for the add; S and R are lowered to the block size, since the combiner's thread i
 * polls shard i and publishes replica i. */
WGS_DEV void wgs__choose_shards(wgs_env *env, const unsigned *g)
{
  unsigned c = g[WGS_G_CONFIG + WGS_CFG_SHARDS], S = c & 255u, R = (c >> 8) & 255u;
  while (S > blockDim.x) /* the combiner's thread i polls shard i and publishes replica i */
    S >>= 1;
  while (R > blockDim.x)
    R >>= 1;
  unsigned atom_min = g[WGS_G_CONFIG + WGS_CFG_ATOM_MIN];
  if (S != 0u && R != 0u && env->num_groups >= (c >> 16))
    env->barrier_kind |= 1u << 16 | (31u - __clz(S)) << 8 | (31u - __clz(R)) << 12;
  else if (atom_min != 0u && env->num_groups >= atom_min)
    env->barrier_kind |= 1u << 24;
}

/* First thing in the kernel, from every thread, outside any condition; 1-D grids and blocks.
 * Returns 1 when this block takes part (the same answer for the whole block).
 * The representative reads the launch epoch (device/common/wgs_layout.h) and leaves it for its
 * block in the block's G_FIRST word; the others read it after __syncthreads, so every read of
 * the epoch precedes the representative's acq_rel count-in, and hence the next epoch's store.
 * A second call in a block (same launch: same %gridid) answers as the first, from the half of
 * the epoch the first call recorded, counts nothing in, and checked builds report it. */
WGS_DEV int wgs__discover(unsigned *state, wgs_env *env, unsigned site)
{
  unsigned *g = state;
  unsigned group = blockIdx.x, launched = gridDim.x, mg = g[WGS_G_CONFIG + WGS_CFG_MAX_GROUPS];
  unsigned mode = g[WGS_G_CONFIG + WGS_CFG_MODE], lock = g[WGS_G_CONFIG + WGS_CFG_LOCK];
  unsigned epochs = g[WGS_G_CONFIG + WGS_CFG_EPOCHS];
#if defined(WGS_CHECKED) && WGS_CHECKED
  unsigned early_site = env->early_site;
#endif
  if (threadIdx.x == 0u && group < mg) {
    unsigned grid = wgs__gridid() + 1u, *first = g + WGS_G_FIRST(mg) + group;
    unsigned *grid_word = g + WGS_G_GRID(mg) + group;
    if (wgs__ld_rlx(grid_word) == grid) {
      wgs__report_misuse(g + WGS_HALF(mg, wgs__ld_rlx(first) & 1u), WGS_MISUSE_DISCOVER_TWICE,
                         site, 0u, 0u);
    } else {
      unsigned epoch = wgs__ld_rlx(&g[WGS_G_CTRL + WGS_CTRL_EPOCH]);
      unsigned *s = g + WGS_HALF(mg, epoch & 1u);
      wgs__st_rlx(first, epoch);
      wgs__st_rlx(grid_word, grid);
      bool free_poll = mode == WGS_MODE_DISCOVER && lock == WGS_LOCK_KIND_FREE;
      if (epochs && !free_poll && wgs__add_acqrel(&s[WGS_W_SEEN], 1u) == launched - 1u)
        wgs__advance_epoch(s, epoch);
      if (mode == WGS_MODE_DISCOVER)
        wgs__st_rlx(&s[WGS_OFF_MAP(mg) + group], free_poll ? wgs__poll_free(s, group, mg, epoch, launched)
                                                           : wgs__poll_locked(s, group, mg, epoch));
    }
  }
  __syncthreads(); /* CTA ordering carries the representative's epoch and M entry */
  unsigned epoch = group < mg ? wgs__ld_rlx(g + WGS_G_FIRST(mg) + group) : 0u;
  unsigned *s = g + WGS_HALF(mg, epoch & 1u);
  if (epochs) {
    /* Clear the other half for the next launch; every launched thread takes a share. The
     * launch that used it has finished, and nothing in this launch reads it. */
    unsigned *next = g + WGS_HALF(mg, (epoch & 1u) ^ 1u);
    for (unsigned w = WGS_LINE_WORDS + group * blockDim.x + threadIdx.x; w < WGS_HALF_WORDS(mg);
         w += launched * blockDim.x)
      next[w] = 0u;
  }
  env->s = s;
  env->max_groups = mg;
  env->local_id = threadIdx.x;
  env->local_size = blockDim.x;
  env->instance = 0u;
  env->barrier_kind = g[WGS_G_CONFIG + WGS_CFG_BARRIER];
  env->split_state = 0u;
  env->counted = 0u;
#if defined(WGS_CHECKED) && WGS_CHECKED
  if (early_site != 0u && threadIdx.x == 0u) /* a grid barrier ran with this env unfilled */
    wgs__report_misuse(s, WGS_MISUSE_BEFORE_DISCOVER, early_site, 0u, 0u);
#endif
  if (mode != WGS_MODE_DISCOVER) {
    env->group_id = group;
    env->num_groups = launched;
    env->participating = launched <= mg;
    wgs__choose_shards(env, g);
    return (int)env->participating;
  }
  unsigned id = group < mg ? wgs__ld_rlx(s + WGS_OFF_MAP(mg) + group) : WGS_NOT_PARTICIPATING;
  env->participating = id != WGS_NOT_PARTICIPATING;
  env->group_id = env->participating ? id : 0u;
  if (!env->participating)
    env->num_groups = 0u;
  else if (lock == WGS_LOCK_KIND_FREE)
    env->num_groups = wgs__ld_rlx(s + WGS_OFF_FINAL(mg)) - 1u;
  else
    env->num_groups = wgs__ld_rlx(&s[WGS_W_COUNT]);
  wgs__choose_shards(env, g);
  return (int)env->participating;
}

/* The call's line is what a checked build names when wgs_discover is called twice. */
#define wgs_discover(state, env) wgs__discover((state), (env), (unsigned)__LINE__)

/* ---- grid barriers ---------------------------------------------------------------------- */
WGS_DEV void wgs__report_grid(const wgs_env *env, unsigned site, unsigned code)
{
  unsigned *s = env->s, *err = wgs__glob(s) + WGS_G_ERROR;
  if (wgs__cas_rlx(&err[WGS_ERR_CODE], 0u, code) != 0u)
    return;
  const unsigned *epoch = s + WGS_OFF_ENTERED(env->max_groups);
  unsigned want = env->instance + 1u, arrived = 0u, missing = 0u;
  for (unsigned g = 0u; g < env->num_groups; ++g) {
    if (wgs__ld_rlx(&epoch[g]) >= want) {
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
/* Spin while *p == v; acquire on the read that ends it. */
WGS_DEV void wgs__wait_while(const wgs_env *env, const unsigned *p, unsigned v, unsigned site)
{
  wgs__spin sp;
  wgs__spin_init(&sp);
  while (wgs__ld_acq(p) == v) {
    int why = wgs__spin_gave_up(env->s, &sp);
    if (why) {
      if (why == WGS__TIMED_OUT) {
        wgs__report_grid(env, site, WGS_DEV_ERR_GRID_BARRIER);
        wgs__abort_done(env->s);
      }
      break;
    }
  }
}
WGS_DEV void wgs__mark_arrival(const wgs_env *env)
{
#if defined(WGS_CHECKED) && WGS_CHECKED
  wgs__st_rlx(env->s + WGS_OFF_ENTERED(env->max_groups) + env->group_id, env->instance + 1u);
#endif
}

/*
 * Entering a grid barrier (or a split arrive). A block that must not take part does nothing but
 * its __syncthreads: one whose environment wgs_discover never filled (checked builds record the
 * line, which wgs_discover then reports), or one wgs_discover turned away (its arrival would let
 * the participants through early; checked builds report it). Checked builds also count every
 * thread in, and the representative checks after the first __syncthreads that all came.
 * Whether a block takes part is the same for all its threads, so the return is block-uniform.
 */
WGS_DEV bool wgs__outsider(wgs_env *env, unsigned site)
{
#if defined(WGS_CHECKED) && WGS_CHECKED
  if (env->s != nullptr && env->participating)
    return false;
  __syncthreads();
  if (env->s == nullptr)
    env->early_site = site;
  else if (threadIdx.x == 0u)
    wgs__report_misuse(env->s, WGS_MISUSE_NOT_PARTICIPATING, site, 0u, 0u);
  return true;
#else
  /* Unchecked builds keep the barrier's measured shape: a turned-away block (group id 0, no
   * groups) does nothing as an XF master, and its representative skips the counter's arrive
   * and wait (the participating test below); before wgs_discover is undefined. Taking the
   * checked path here cost 1-2.5% at 264 x 1024 and 1056 x 256 (H100). */
  (void)env;
  (void)site;
  return false;
#endif
}
WGS_DEV void wgs__count_entry(const wgs_env *env)
{
#if WGS_CHECK_MISUSE
  (void)wgs__add_rlx(env->s + WGS_OFF_WITEMS(env->max_groups) + env->group_id, 1u);
#endif
}
WGS_DEV void wgs__check_entry(const wgs_env *env, unsigned site)
{
#if WGS_CHECK_MISUSE
  unsigned entered = wgs__ld_rlx(env->s + WGS_OFF_WITEMS(env->max_groups) + env->group_id) -
                     (env->instance + env->split_state) * env->local_size;
  /* (split_state: an arrive pending counts as an entry; a second one is reported as a split
   * misuse, not as a partial group.) Fewer than all: after a split arrive's one work-group
   * barrier, work-items may already count themselves into the next call before this read
   * (seen on the H100: 96 of 64), so more is not an error. */
  if (entered < env->local_size)
    wgs__report_misuse(env->s, WGS_MISUSE_PARTIAL_GROUP, site, entered, env->local_size);
#endif
}

/* XF barrier (§4.2), three __syncthreads in every block (uniform), as the OpenCL version. */
WGS_DEV void wgs__barrier_xf(wgs_env *env, unsigned site)
{
  unsigned *flag = env->s + WGS_OFF_FLAG(env->max_groups);
  unsigned n = env->num_groups, id = env->group_id, lid = env->local_id, L = env->local_size;
  wgs__count_entry(env);
  __syncthreads();
  if (lid == 0u)
    wgs__check_entry(env, site);
  if (id == 0u) {
    if (lid == 0u)
      wgs__mark_arrival(env);
    for (unsigned g = lid + 1u; g < n; g += L) /* slave g's release store -> this acquire */
      wgs__wait_while(env, &flag[g], 0u, site);
  } else if (lid == 0u) {
    wgs__mark_arrival(env);
    wgs__st_rel(&flag[id], 1u); /* the block's writes, ordered by __syncthreads, then release */
  }
  __syncthreads();
  if (id == 0u) {
    for (unsigned g = lid + 1u; g < n; g += L)
      wgs__st_rel(&flag[g], 0u); /* master's writes (before the barrier above) -> slave g */
  } else if (lid == 0u) {
    wgs__wait_while(env, &flag[id], 1u, site);
  }
  __syncthreads();
}

/*
 * Counter barrier (the default kind). Instance k of a launch (each launch starts on a cleared
 * half, and every group passes the same instances) is complete when every participating group
 * has arrived k+1 times. Nothing is read before arriving (the target comes from the private
 * instance count) and nothing is reset: counts are monotonic and compared by signed
 * difference, so instance k+1 is never taken for k. Three shapes, chosen per launch from the
 * group count alone (wgs__choose_shards), so every barrier of a launch takes the same one:
 *
 *  - Small launches (fewer groups than the host's WGS_CFG_ATOM_MIN): every group's
 *    representative does a fire-and-forget red.release.gpu.add on one arrival count and polls
 *    that count (relaxed loads) until it reaches n*(k+1), then makes one acquire load. That
 *    load reads the satisfying value or a later one, written by an RMW in the release sequence
 *    of every arrival (the RMWs on the count form one chain), so it synchronises with all of
 *    them. One hop after the last arrival: 0.85 us at 132 x 256 on the H200 (grid.sync 0.97).
 *  - Middle launches (from WGS_CFG_ATOM_MIN groups, below the sharding threshold): the arrival
 *    is an atom.acq_rel.gpu.add and the representative waits for its result before polling, as
 *    grid.sync() does, so that the polls do not queue on the line among the arrivals still
 *    coming (H200, 528 x 256: 1.13 us against 1.56 with the release add; grid.sync 1.24). The
 *    representative whose add made n*(k+1) polls nothing: its acq_rel RMW read the chain of
 *    every other arrival's RMW, so it synchronises with all of them. The others poll as above.
 *  - Large launches, sharded: group g's red.release.gpu.add goes to shard g mod S, its own
 *    128-byte line, so no line takes more than n/S arrivals. In participant 0 (the combiner),
 *    lane i < S of warp 0 polls shard i (relaxed, then one acquire load of the value that
 *    satisfied it: the same argument per shard), __syncwarp joins the lanes, and lane r < R
 *    stores k+1 on replica line r with st.release. That release is cumulative over what lanes
 *    i acquired before the __syncwarp (CTA-scope ordering), so a waiter whose acquire load reads
 *    replica g mod R synchronises with every arrival; no line has more than n/R pollers.
 *
 * Then __syncthreads carries the representative's (or the combiner's) acquire to the block,
 * as the __syncthreads before the arrival carried every thread's writes to the release.
 *
 * Measured and kept out (bench/results/, each with the run that lost): backed-off polls and a
 * sleep per missing arrival (designs 2 and 3 below), a published instance
 * written by the last arriver of one acq_rel count (2.15 us at 1056 x 256 on the H200, against
 * 1.70 sharded; it was the default until 2026-11-23), polling the one count at >= 1056 groups
 * (1.4-1.9x slower), a two-level tree (one more dependent round trip), fence.acq_rel instead
 * of acquire/release operations (0.3-0.6 us slower, v4), Hopper clusters as the first level.
 */
/*
 * Seeded weakenings, for the litmus benchmark only (bench/cuda/bench_litmus.cu shows that its
 * checks catch them): WGS_MUTATE=1 makes the waiters' acquire loads relaxed; WGS_MUTATE=2 makes
 * the arrivals' and the combiner's release operations relaxed. The default (0) is the library
 * as shipped: every helper below is then the operation named.
 */
#ifndef WGS_MUTATE
#define WGS_MUTATE 0
#endif
WGS_DEV unsigned wgs__wait_ld_acq(const unsigned *p) { return WGS_MUTATE == 1 ? wgs__ld_rlx(p) : wgs__ld_acq(p); }
WGS_DEV void wgs__arrive_st_rel(unsigned *p, unsigned v)
{
  if (WGS_MUTATE == 2)
    wgs__st_rlx(p, v);
  else
    wgs__st_rel(p, v);
}
WGS_DEV void wgs__red_rel(unsigned *p, unsigned v)
{
#if WGS_MUTATE == 2 /* seeded weakening (bench_litmus): the arrival without release */
  asm volatile("red.relaxed.gpu.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
#else
  asm volatile("red.release.gpu.global.add.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
#endif
}
WGS_DEV bool wgs__sharded(const wgs_env *env) { return (env->barrier_kind >> 16) & 1u; }
WGS_DEV unsigned wgs__log2_shards(const wgs_env *env) { return (env->barrier_kind >> 8) & 15u; }
WGS_DEV unsigned wgs__log2_replicas(const wgs_env *env) { return (env->barrier_kind >> 12) & 15u; }
/* Shard i (i = 0 is the small launches' one count); replica r. */
WGS_DEV unsigned *wgs__shard(const wgs_env *env, unsigned i) { return env->s + WGS_W_SHARDS + i * WGS_LINE_WORDS; }
WGS_DEV unsigned *wgs__replica(const wgs_env *env, unsigned r)
{
  return env->s + WGS_W_SHARDS + (WGS_SHARDS_MAX + r) * WGS_LINE_WORDS;
}
/*
 * Designs kept for measurement (bench/cuda/bench_shards.cu builds each as
 * wgsync-bench-shards-vN; 0 is the library as shipped; bench/results/h200-counter-2026-11-23):
 *   2  every poll backed off (__nanosleep, 32 ns doubling to 256 ns): slower at every count
 *      measured (0.03-0.45 us at 264-1056 groups, unsharded and sharded);
 *   3  the waiting arrival first sleeps 1 ns per arrival still missing (the rate one line
 *      absorbs them): 0.05-0.09 us faster at 792 groups, 0.07 slower at 66-132, otherwise even;
 *      it depends on a rate that is the device's, so it is not shipped.
 * (Design 1, the acq_rel arrival, is what ships from WGS_CFG_ATOM_MIN groups.)
 */
#ifndef WGS_COUNTER_VARIANT
#define WGS_COUNTER_VARIANT 0
#endif
WGS_DEV bool wgs__arrival_waits(const wgs_env *env) { return (env->barrier_kind >> 24) & 1u; }
/* The representative's arrival: shard 0 when not sharded (log2 S is then 0). Returns the count
 * it made when the arrival waits for its add (wgs__arrival_waits), else 0. */
WGS_DEV unsigned wgs__counter_arrive(const wgs_env *env, bool may_wait)
{
  wgs__mark_arrival(env);
  unsigned *shard = wgs__shard(env, env->group_id & ((1u << wgs__log2_shards(env)) - 1u));
  if (may_wait && wgs__arrival_waits(env))
    return wgs__add_acqrel(shard, 1u) + 1u;
  wgs__red_rel(shard, 1u);
  return 0u;
}
/* One step of a bounded spin: true when the wait must end (timed out: reported; aborted). */
WGS_DEV bool wgs__wait_gave_up(const wgs_env *env, wgs__spin *sp, unsigned site)
{
  int why = wgs__spin_gave_up(env->s, sp);
  if (why == WGS__TIMED_OUT) {
    wgs__report_grid(env, site, WGS_DEV_ERR_GRID_BARRIER);
    wgs__abort_done(env->s);
  }
  return why != 0;
}
/* Relaxed polls of *word until it reaches target (signed difference), then one acquire load. */
WGS_DEV void wgs__poll_until(const wgs_env *env, const unsigned *word, unsigned target, unsigned site)
{
  wgs__spin sp;
  wgs__spin_init(&sp);
#if WGS_COUNTER_VARIANT == 2
  unsigned ns = 32u;
#endif
  while ((int)(wgs__ld_rlx(word) - target) < 0) {
    if (wgs__wait_gave_up(env, &sp, site))
      break;
#if WGS_COUNTER_VARIANT == 2
    __nanosleep(ns);
    ns = ns < 256u ? 2u * ns : ns;
#endif
  }
  (void)wgs__wait_ld_acq(word);
}
/* The wait for instance counted+1, called by every thread of a participating block. One poll
 * loop serves the three pollers (the combiner's lanes, a sharded launch's representatives, and
 * an unsharded launch's): three inlined loops took the apps' kernels up to 15 registers more. */
WGS_DEV void wgs__counter_wait(const wgs_env *env, unsigned site, unsigned made)
{
  unsigned want = env->counted + 1u, lane = threadIdx.x, n = env->num_groups;
  unsigned ls = wgs__log2_shards(env), lr = wgs__log2_replicas(env);
  bool sharded = wgs__sharded(env), combiner = sharded && env->group_id == 0u;
  const unsigned *word = nullptr;
  unsigned target = want;
  if (combiner) {
    if (lane < (1u << ls)) {
      word = wgs__shard(env, lane);
      target = (n >> ls) * want + (lane < (n & ((1u << ls) - 1u)) ? want : 0u);
    }
  } else if (lane == 0u) {
    word = sharded ? wgs__replica(env, env->group_id & ((1u << lr) - 1u)) : wgs__shard(env, 0u);
    target = sharded ? want : n * want;
    if (made != 0u) { /* the arrival waited for its add (0: it did not, or a split arrive) */
      if ((int)(made - target) >= 0)
        word = nullptr; /* the last arrival: its acq_rel RMW has acquired every other one */
      else if (WGS_COUNTER_VARIANT == 3)
        __nanosleep(target - made);
    }
  }
  if (word != nullptr)
    wgs__poll_until(env, word, target, site);
  if (combiner && lane < 32u) {
    __syncwarp();
    if (lane < (1u << lr))
      wgs__arrive_st_rel(wgs__replica(env, lane), want);
  }
}

/* The grid barrier is inlined. WGS_BARRIER_CALL=1 makes it a call instead: then the barrier's
 * values need not stay live across the caller's loop (the apps' persistent kernels took 32-36
 * registers instead of 36-54; ptxas, sm_90), but the call cost 0.04-0.65 us per barrier on the
 * H200 (bench/results/h200-barrier-2026-11-23: bench_shards.cu built both ways). A kernel near
 * a register boundary does better with __launch_bounds__ (as apps/cuda/apps_cuda.cu). */
#ifndef WGS_BARRIER_CALL
#define WGS_BARRIER_CALL 0
#endif
#if WGS_BARRIER_CALL
static __device__ __noinline__
#else
WGS_DEV
#endif
void wgs__grid_barrier(wgs_env *env, unsigned site)
{
  if (wgs__outsider(env, site))
    return;
  if ((env->barrier_kind & 255u) == WGS_BARRIER_KIND_XF) {
    wgs__barrier_xf(env, site);
  } else {
    wgs__count_entry(env);
    __syncthreads(); /* every thread's writes before the representative's release add */
    if (env->participating) {
      unsigned made = 0u;
      if (threadIdx.x == 0u) {
        wgs__check_entry(env, site);
        made = wgs__counter_arrive(env, true);
      }
      wgs__counter_wait(env, site, made);
    }
    __syncthreads(); /* the representative's acquire, carried to the block */
    env->counted++;
  }
  env->instance++;
}
#define wgs_grid_barrier(env) wgs__grid_barrier((env), (unsigned)__LINE__)

/*
 * Split grid barrier (device scope): arrive releases everything this block wrote before it;
 * wait returns once every participating group has arrived at the same instance, and acquires.
 * Work between them overlaps the barrier. It is the counter barrier cut in two (also when
 * env->barrier_kind is XF), so reuse in a loop has no reset race.
 * Split barriers share the counts with counter barriers; XF barriers neither read nor change
 * them, so a kernel may mix all three freely (as in the OpenCL library).
 * Every block must alternate arrive, wait, arrive, ...; checked builds report otherwise.
 */
WGS_DEV void wgs__misuse(wgs_env *env, unsigned site)
{
#if defined(WGS_CHECKED) && WGS_CHECKED
  if (env->local_id == 0u) {
    wgs__report_grid(env, site, WGS_DEV_ERR_SPLIT);
    wgs__st_rel(&env->s[WGS_W_ABORT], WGS_ABORT_DONE);
  }
#endif
}
WGS_DEV void wgs__grid_arrive(wgs_env *env, unsigned site)
{
  if (wgs__outsider(env, site))
    return;
  if (env->split_state != 0u)
    wgs__misuse(env, site); /* arrived twice without a wait */
  wgs__count_entry(env);
  __syncthreads(); /* every thread's writes before the representative's release */
  if (env->local_id == 0u && env->participating) {
    wgs__check_entry(env, site);
    (void)wgs__counter_arrive(env, false); /* a split arrive never waits */
  }
  env->split_state = 1u;
}
WGS_DEV void wgs__grid_wait(wgs_env *env, unsigned site)
{
#if defined(WGS_CHECKED) && WGS_CHECKED
  if (env->s == nullptr || !env->participating) { /* as in wgs__outsider (the arrive reported) */
    __syncthreads();
    return;
  }
#endif
  if (env->split_state != 1u)
    wgs__misuse(env, site); /* waited without arriving */
  else if (env->participating)
    wgs__counter_wait(env, site, 0u);
  __syncthreads();
  env->split_state = 0u;
  env->counted++;
  env->instance++;
}
#define wgs_grid_arrive(env) wgs__grid_arrive((env), (unsigned)__LINE__)
#define wgs_grid_wait(env) wgs__grid_wait((env), (unsigned)__LINE__)

#endif
