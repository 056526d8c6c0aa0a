/*
 * wgsync device library, part 2: occupancy discovery and the participating-group environment
 * (seed 003 §3, Fig. 3 and Table 2), with the ticket lock and spin lock of §5.1 and the delay
 * heuristic of §5.4.
 *
 * One representative work-item per group (local id 0) runs the protocol; the result reaches the
 * rest of the group through the map M in global memory and a work-group barrier with a global
 * fence. No other work-item of the group ever spins (PoCL runs them one after another).
 *
 * The four properties of §3.2 hold because this is Fig. 3 unchanged:
 *  - at least one participant: the poll starts open, so the first group to take the mutex polls;
 *  - consistent count: count changes only under the mutex while the poll is open, the poll never
 *    reopens, and a group returns PARTICIPATING only after the poll is closed;
 *  - contiguous unique ids: each participant records the value of count it incremented;
 *  - simultaneous occupancy: a participant polled before any group finished the protocol.
 */

typedef struct {
  wgs_word_ptr s;     /* protocol state */
  uint max_groups;    /* capacity of the per-group arrays */
  uint group_id;      /* participating group id (Table 2, p_get_group_id) */
  uint num_groups;    /* participating group count (Table 2, p_get_num_groups) */
  uint local_id;      /* get_local_id(0) */
  uint local_size;    /* get_local_size(0) */
  uint instance;      /* grid barriers this group has passed (checked builds name them) */
  uint barrier_kind;  /* WGS_BARRIER_KIND_*, from the host, in bits 0-7; the counter barrier's
                         shape in bits 8-16 (wgs__choose_shards) */
  uint counted;       /* counter-based instances passed (full or split): the arrival target */
  uint split_state;   /* 0 idle, 1 arrived: checked builds report misuse of the split barrier */
  uint participating; /* 1 when this group takes part */
} wgs_env;

WGS_FN void wgs__report_lock(wgs_word_ptr s, uint group)
{
  wgs_word_ptr err = wgs__glob(s) + WGS_G_ERROR;
  if (wgs__cas_rlx(&err[WGS_ERR_CODE], 0u, WGS_DEV_ERR_LOCK) == 0u)
    wgs__st_rlx(&err[WGS_ERR_REPORTER], group);
}

/* Checked builds: the first report of a broken rule (WGS_DEV_ERR_MISUSE; the host names it). */
WGS_FN void wgs__report_misuse(wgs_word_ptr s, uint what, uint site, uint arrived, uint expected)
{
#if WGS_CHECK_MISUSE
  wgs_word_ptr err = wgs__glob(s) + WGS_G_ERROR;
  if (wgs__cas_rlx(&err[WGS_ERR_CODE], 0u, WGS_DEV_ERR_MISUSE) != 0u)
    return;
  wgs__st_rlx(&err[WGS_ERR_SITE], site);
  wgs__st_rlx(&err[WGS_ERR_INSTANCE], what);
  wgs__st_rlx(&err[WGS_ERR_ARRIVED], arrived);
  wgs__st_rlx(&err[WGS_ERR_EXPECTED], expected);
  wgs__st_rlx(&err[WGS_ERR_REPORTER], (uint)get_group_id(0));
#endif
}

/* A lock spin's bound (checked builds): 1 when the spin must stop; reports when it timed out. */
WGS_FN int wgs__lock_gave_up(wgs_word_ptr s, wgs__spin *sp, uint group)
{
  int why = wgs__spin_gave_up(s, sp);
  if (why == WGS__TIMED_OUT) {
    wgs__report_lock(s, group);
    wgs__abort_done(s);
  }
  return why != 0;
}

/* Mutex of Fig. 3. Returns 1 when held, 0 when a checked spin gave up (reported here). The
 * caller's spin sp bounds the wait: one per phase, one for the whole §5.4 delay. */
WGS_FN int wgs__lock(wgs_word_ptr s, uint kind, uint *ticket, uint group, wgs__spin *sp)
{
  int held = 1;
  if (kind == WGS_LOCK_KIND_SPIN) {
    /* Test-and-set; acquire so that the critical section sees the last holder's writes. */
    while (wgs__xchg_acq(&s[WGS_W_SPIN], 1u) != 0u) {
      if (wgs__lock_gave_up(s, sp, group)) {
        held = 0;
        break;
      }
    }
  } else {
    /* Ticket lock: taking a ticket needs no ordering; the acquire load of the served ticket,
     * which reads the previous holder's release store, is what orders the critical section. */
    *ticket = wgs__add_rlx(&s[WGS_W_TICKET_NEXT], 1u);
    while (wgs__ld_acq(&s[WGS_W_TICKET_SERVE]) != *ticket) {
      if (wgs__lock_gave_up(s, sp, group)) {
        held = 0;
        break;
      }
    }
  }
  return held;
}

WGS_FN void wgs__unlock(wgs_word_ptr s, uint kind, uint ticket)
{
  /* Release: the next holder's acquire sees everything done under the mutex. */
  if (kind == WGS_LOCK_KIND_SPIN)
    wgs__st_rel(&s[WGS_W_SPIN], 0u);
  else
    wgs__st_rel(&s[WGS_W_TICKET_SERVE], ticket + 1u);
}

/* Protocol start and end of a participant, where the device has a clock (timed launches). */
WGS_FN void wgs__stamp(wgs_word_ptr s, uint group, ulong t0)
{
  if (wgs__cfg(s, WGS_CFG_TIMED) == 0u)
    return;
  wgs_word_ptr t = s + WGS_OFF_TIME(wgs__cfg(s, WGS_CFG_MAX_GROUPS)) + 4u * group;
  ulong t1 = wgs__timer_ns();
  t[0] = (uint)t0;
  t[1] = (uint)(t0 >> 32);
  t[2] = (uint)t1;
  t[3] = (uint)(t1 >> 32);
}

/* Fig. 3 for the representative work-item. Returns the participating id or
 * WGS_NOT_PARTICIPATING. Never returns early: every path ends at the bottom. */
/* The last group of a launch to count itself in (all have read the epoch: each read precedes
 * its acq_rel count-in, and this group's RMW read the last of them) moves the epoch on. The
 * next launch, ordered after this one by its stream or queue, reads it. */
WGS_FN void wgs__advance_epoch(wgs_word_ptr s, uint epoch)
{
  wgs__st_rlx(&wgs__glob(s)[WGS_G_CTRL + WGS_CTRL_EPOCH], epoch + 1u);
}

/* The launch's result for the host: its epoch and participant count (control line). */
WGS_FN void wgs__publish_result(wgs_word_ptr s, uint epoch, uint participants)
{
  wgs_word_ptr ctrl = wgs__glob(s) + WGS_G_CTRL;
  wgs__st_rlx(&ctrl[WGS_CTRL_PARTICIPANTS], participants);
  wgs__st_rlx(&ctrl[WGS_CTRL_RESULT_EPOCH], epoch);
}

WGS_FN uint wgs__poll(wgs_word_ptr s, uint group, uint epoch)
{
  uint kind = wgs__cfg(s, WGS_CFG_LOCK);
  uint delay = wgs__cfg(s, WGS_CFG_DELAY);
  uint ticket = 0u;
  uint id = WGS_NOT_PARTICIPATING;
  ulong t0 = wgs__timer_ns();

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
     * against it), not each round: 2^32 bounded rounds are not bounded. Past the limit it is
     * reported as a discovery wait past the limit. */
    wgs__spin_init(&sp);
    for (uint d = 0u; d < delay; ++d) {
      if (!wgs__lock(s, kind, &ticket, group, &sp))
        break;
      wgs__unlock(s, kind, ticket);
      if (wgs__lock_gave_up(s, &sp, group))
        break;
    }
    /* wgsync's close wait (quiescence): before closing, wait outside the mutex until no group
     * has polled for a host-given time W (nanoseconds on devices with a clock, calibrated
     * iterations elsewhere). While groups keep arriving (a GPU still launching blocks, a CPU
     * worker thread waking late) the wait extends; once resident groups have all polled, the
     * stream stops, because non-resident groups start only when a resident one exits.
     * Unlike the lock rounds above it needs no lock hand-off, which on a CPU with more worker
     * threads than cores costs a context switch each. Only the closer's timing changes, so the
     * four properties of §3.2 are untouched. W = 0 is Fig. 3 as published. */
    ulong wait = ((ulong)wgs__cfg(s, WGS_CFG_WAIT_HI) << 32) | wgs__cfg(s, WGS_CFG_WAIT_LO);
    uint enough = wgs__cfg(s, WGS_CFG_ENOUGH);
    if (wait != 0u) {
      ulong w0 = wgs__timer_ns(), i = 0u;
      uint seen = wgs__ld_rlx(&s[WGS_W_COUNT]);
      for (;;) {
        if (WGS_HAS_TIMER ? (wgs__timer_ns() - w0 >= wait) : (i >= wait))
          break;
        ++i;
        if (wgs__ld_acq(&s[WGS_W_CLOSED]) != 0u || wgs__ld_rlx(&s[WGS_W_ABORT]) != 0u)
          break; /* somebody closed already: waiting longer cannot add participants */
        uint now = wgs__ld_rlx(&s[WGS_W_COUNT]);
        /* The host's "enough": a count no launch can exceed (a CPU device's worker threads).
         * Once reached, every group that can be resident has polled: stop waiting. Too high
         * only falls back to the quiet period, too low closes early; only timing changes. */
        if (enough != 0u && now >= enough)
          break;
        if (now != seen) { /* a new participant: restart the quiet period */
          seen = now;
          w0 = wgs__timer_ns();
          i = 0u;
        }
      }
    }
    /* Closing phase (lines 11-15). */
    wgs__spin_init(&sp);
    if (wgs__lock(s, kind, &ticket, group, &sp)) {
      if (wgs__ld_rlx(&s[WGS_W_CLOSED]) == 0u) { /* this group closes: the count is final */
        wgs__st_rlx(&s[WGS_W_CLOSED], 1u);
        wgs__publish_result(s, epoch, wgs__ld_rlx(&s[WGS_W_COUNT]));
      }
      wgs__unlock(s, kind, ticket);
    }
    wgs__stamp(s, group, t0);
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
 * The four properties of seed 003 §3.2:
 *  - at least one: the first add in count's modification order sees no CLOSED bit;
 *  - consistent count: exactly the adds before the fetch_or see no bit, they got 0..n-1, and
 *    every participant reads the same published n;
 *  - contiguous unique ids: the adds before the fetch_or return 0..n-1, once each;
 *  - simultaneous occupancy: at the moment of the fetch_or every participant has started (its
 *    add is before it) and none has finished (each waits for final, written after it).
 * Waiting for final is safe: the writer is participant 0, which is occupant by the same argument.
 */
WGS_FN uint wgs__poll_free(wgs_word_ptr s, uint group, uint epoch, uint launched, uint epochs)
{
  uint mg = wgs__cfg(s, WGS_CFG_MAX_GROUPS);
  wgs_word_ptr final_word = s + WGS_OFF_FINAL(mg);
  ulong t0 = wgs__timer_ns();
  /* acq_rel: the add also counts this group in for the launch epoch (wgs__discover). */
  uint old = wgs__add_acqrel(&s[WGS_W_COUNT], 1u);
  if (epochs && (old & ~WGS_COUNT_CLOSED) == launched - 1u)
    wgs__advance_epoch(s, epoch);
  if (old & WGS_COUNT_CLOSED)
    return WGS_NOT_PARTICIPATING;
  if (old == 0u) {
    ulong wait = ((ulong)wgs__cfg(s, WGS_CFG_WAIT_HI) << 32) | wgs__cfg(s, WGS_CFG_WAIT_LO);
    ulong w0 = wgs__timer_ns(), i = 0u;
    uint seen = 1u;
    uint enough = wgs__cfg(s, WGS_CFG_ENOUGH);
    while (WGS_HAS_TIMER ? (wgs__timer_ns() - w0 < wait) : (i < wait)) {
      ++i;
      uint now = wgs__ld_rlx(&s[WGS_W_COUNT]);
      if (enough != 0u && (now & ~WGS_COUNT_CLOSED) >= enough)
        break; /* as in wgs__poll above */
      if (now != seen) { /* a new participant: restart the quiet period */
        seen = now;
        w0 = wgs__timer_ns();
        i = 0u;
      }
    }
    /* The RMW reads the latest count: n is exact. Release publishes it to the participants. */
    uint n = wgs__or_rlx(&s[WGS_W_COUNT], WGS_COUNT_CLOSED);
    wgs__st_rel(final_word, n + 1u);
    wgs__publish_result(s, epoch, n);
  } else {
    wgs__spin sp;
    wgs__spin_init(&sp);
    while (wgs__ld_acq(final_word) == 0u) {
      if (wgs__lock_gave_up(s, &sp, group))
        break;
    }
  }
  wgs__stamp(s, group, t0);
  return old;
}

/*
 * wgs_discover: must be called by every work-item of every group, first thing in the kernel
 * and outside any condition. Fills *env and returns 1 when this group participates, 0 when it
 * must leave (the same answer for the whole group). Launch 1-D NDRanges.
 *
 * With the host's WGS_MODE_ALL / WGS_MODE_FIXED every launched group participates with its
 * native ids (the unsafe search of §5.1, and the hard-coded occupancy of §5.3).
 */
/* The counter barrier's shape for this launch (wgs_barrier.cl), packed into env->barrier_kind:
 * bit 16 set when sharded, then log2 S in bits 8-11 and log2 R in bits 12-15; bit 24 set when
 * not sharded and the arrival waits for its acq_rel add. The host's WGS_CFG_SHARDS word gives
 * S, R (powers of two) and the fewest groups that use shards, WGS_CFG_ATOM_MIN the fewest that
 * wait for the add. */
WGS_FN void wgs__choose_shards(wgs_env *env, wgs_word_ptr g)
{
  uint c = g[WGS_G_CONFIG + WGS_CFG_SHARDS], S = c & 255u, R = (c >> 8) & 255u;
  while (S > env->local_size) /* the combiner's work-item i polls shard i, publishes replica i */
    S >>= 1;
  while (R > env->local_size)
    R >>= 1;
  uint atom_min = g[WGS_G_CONFIG + WGS_CFG_ATOM_MIN];
  if (S != 0u && R != 0u && env->num_groups >= (c >> 16))
    env->barrier_kind |= 1u << 16 | (31u - clz(S)) << 8 | (31u - clz(R)) << 12;
  else if (atom_min != 0u && env->num_groups >= atom_min)
    env->barrier_kind |= 1u << 24;
}

WGS_FN int wgs__discover(__global uint *state, wgs_env *env, uint site)
{
  wgs_word_ptr g = (wgs_word_ptr)state;
  uint group = (uint)get_group_id(0);
  uint launched = (uint)get_num_groups(0);
  uint lid = (uint)get_local_id(0);
  uint mg = g[WGS_G_CONFIG + WGS_CFG_MAX_GROUPS];
  uint mode = g[WGS_G_CONFIG + WGS_CFG_MODE];
  uint epochs = g[WGS_G_CONFIG + WGS_CFG_EPOCHS];
  uint free_protocol = g[WGS_G_CONFIG + WGS_CFG_LOCK] == WGS_LOCK_KIND_FREE;

  /* The representative reads the launch epoch (device/common/wgs_layout.h) and leaves it for
   * its group in the group's G_FIRST word; the group's other work-items read it only after the
   * work-group barrier below, so every read of the epoch precedes the representative's acq_rel
   * count-in, and hence the store of the next epoch. */
  if (lid == 0u && group < mg) {
    uint epoch = wgs__ld_rlx(&g[WGS_G_CTRL + WGS_CTRL_EPOCH]);
    wgs_word_ptr s = g + WGS_HALF(mg, epoch & 1u);
    wgs__st_rlx(&g[WGS_G_FIRST(mg) + group], epoch);
    /* A second call would poll a closed poll and turn the group away, so that the body ran
     * nowhere while the launch reported participants: it answers as the first call did (the
     * map holds that answer), counts nothing in, and a checked build reports it. (Only while
     * the epoch has not moved on: once every group has counted itself in, a second call cannot
     * be told from the next launch's first, and is undefined; CUDA tells them apart.) */
    if (wgs__add_rlx(&s[WGS_OFF_CALLS(mg) + group], 1u) != 0u) {
      wgs__report_misuse(s, WGS_MISUSE_DISCOVER_TWICE, site, 0u, 0u);
    } else {
      if (epochs && !(mode == WGS_MODE_DISCOVER && free_protocol) &&
          wgs__add_acqrel(&s[WGS_W_SEEN], 1u) == launched - 1u)
        wgs__advance_epoch(s, epoch);
      if (mode == WGS_MODE_DISCOVER)
        wgs__st_rlx(&s[WGS_OFF_MAP(mg) + group],
                    free_protocol ? wgs__poll_free(s, group, epoch, launched, epochs)
                                  : wgs__poll(s, group, epoch));
    }
  }
  /* The global fence makes the representative's M entry and epoch visible to its group. */
  barrier(CLK_GLOBAL_MEM_FENCE);
  uint epoch = group < mg ? wgs__ld_rlx(&g[WGS_G_FIRST(mg) + group]) : 0u;
  wgs_word_ptr s = g + WGS_HALF(mg, epoch & 1u);
  if (epochs) {
    /* Clear the other half for the next launch; every launched work-item takes a share. The
     * launch that used it has finished, and nothing in this launch reads it. */
    wgs_word_ptr next = g + WGS_HALF(mg, (epoch & 1u) ^ 1u);
    uint stride = launched * (uint)get_local_size(0);
    for (uint w = WGS_LINE_WORDS + group * (uint)get_local_size(0) + lid; w < WGS_HALF_WORDS(mg);
         w += stride)
      next[w] = 0u;
  }

  env->s = s;
  env->max_groups = mg;
  env->local_id = lid;
  env->local_size = (uint)get_local_size(0);
  env->instance = 0u;
  env->barrier_kind = g[WGS_G_CONFIG + WGS_CFG_BARRIER];
  env->counted = 0u;
  env->split_state = 0u;

  if (mode != WGS_MODE_DISCOVER) {
    env->group_id = group;
    env->num_groups = launched;
    env->participating = launched <= mg;
    wgs__choose_shards(env, g);
    return (int)env->participating;
  }
  wgs_word_ptr map = s + WGS_OFF_MAP(mg);
  uint id = group < mg ? wgs__ld_rlx(&map[group]) : WGS_NOT_PARTICIPATING;

  env->participating = id != WGS_NOT_PARTICIPATING;
  env->group_id = env->participating ? id : 0u;
  /* A participant's representative closed the poll, or saw it closed, under the mutex after
   * every increment; the barrier carries that to its group, so this load sees the final count. */
  if (free_protocol) /* the representative acquired final before the barrier */
    env->num_groups = env->participating ? wgs__ld_rlx(s + WGS_OFF_FINAL(mg)) - 1u : 0u;
  else
    env->num_groups = env->participating ? wgs__ld_rlx(&s[WGS_W_COUNT]) : 0u;
  wgs__choose_shards(env, g);
  return (int)env->participating;
}

/* The call's line is what a checked build names when wgs_discover is called twice. */
#define wgs_discover(state, env) wgs__discover((state), (env), (uint)__LINE__)

/* Table 2: the participating-group environment. */
WGS_FN uint wgs_get_group_id(const wgs_env *env) { return env->group_id; }
WGS_FN uint wgs_get_num_groups(const wgs_env *env) { return env->num_groups; }
WGS_FN size_t wgs_get_global_id(const wgs_env *env)
{
  return (size_t)env->group_id * env->local_size + env->local_id;
}
WGS_FN size_t wgs_get_global_size(const wgs_env *env)
{
  return (size_t)env->num_groups * env->local_size;
}
