/*
 * wgsync device library, part 3: the grid barrier among participating groups — the XF barrier
 * of seed 003 §2.2 (Fig. 2) made correct as in §4.2.
 *
 * Group 0 is the master; its work-items share the slaves between them (work-item l manages
 * slaves l+1, l+1+lsize, ...), so any number of groups works with any work-group size.
 *
 * Ordering (the four cases of §4.4):
 *  - slave -> master: the slave's work-group barrier (global fence) orders all its work-items'
 *    writes before the representative's device-scope RELEASE store flag=1; the master work-item's
 *    device-scope ACQUIRE load that reads 1 synchronises with it; the master's work-group barrier
 *    extends that to every master work-item.
 *  - master -> slave: every master work-item's writes precede the master work-group barrier,
 *    which precedes the RELEASE store flag=0; the slave representative's ACQUIRE load reading 0
 *    synchronises with it; the slave's closing work-group barrier extends it to the group.
 *  - slave -> slave: the two chains above compose through the master.
 *  - same group: the work-group barriers.
 * Dropping any one of these (a relaxed store, a relaxed load, a barrier without the global
 * fence) breaks one chain; wgs_mp in device/opencl/kernels/tools.cl is the message-passing test
 * that checks them (`wgsync barrier`, the mp* tests).
 *
 * Reuse without reset races: the master resets a flag to 0 only after reading 1, and the slave
 * writes 1 again only after reading that 0, so instance k+1 can never see instance k's value.
 */

WGS_FN void wgs__report_code(const wgs_env *env, uint site, uint code)
{
  wgs_word_ptr s = env->s;
  wgs_word_ptr err = wgs__glob(s) + WGS_G_ERROR;
  if (wgs__cas_rlx(&err[WGS_ERR_CODE], 0u, code) != 0u)
    return; /* somebody reported first */
  wgs_word_ptr epoch = s + WGS_OFF_ENTERED(env->max_groups);
  uint want = env->instance + 1u, arrived = 0u, missing = 0u;
  for (uint g = 0u; g < env->num_groups; ++g) {
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
}
#define wgs__report_grid(env, site) wgs__report_code((env), (site), WGS_DEV_ERR_GRID_BARRIER)

/* Spin until *p != v (want_change) or *p == v; acquire on the exit read. */
/* One step of a bounded spin: 1 when the wait must end (timed out: reported; aborted). */
WGS_FN int wgs__wait_gave_up(const wgs_env *env, wgs__spin *sp, uint site)
{
  int why = wgs__spin_gave_up(env->s, sp);
  if (why == WGS__TIMED_OUT) {
    wgs__report_grid(env, site);
    wgs__abort_done(env->s);
  }
  return why != 0;
}
WGS_FN void wgs__wait_flag(const wgs_env *env, wgs_word_ptr p, uint v, uint site)
{
  wgs__spin sp;
  wgs__spin_init(&sp);
  while (wgs__ld_acq(p) == v)
    if (wgs__wait_gave_up(env, &sp, site))
      break;
}

/*
 * Counter barrier (the default kind; device/cuda/wgsync.cuh has the same design, the
 * measurements that chose it and those that lost). Instance k is complete when every
 * participating group has arrived k+1 times; counts are monotonic and compared by signed
 * difference, so nothing is reset and reuse has no race. Three shapes, chosen per launch from
 * the group count alone (wgs__choose_shards), so every barrier of a launch takes the same one:
 *  - small launches: the representative's arrival is a release add on one count (shard 0),
 *    whose result nobody waits for; representatives poll the count (relaxed) until it reaches
 *    n*(k+1), then make one acquire load. It reads from an RMW in the release sequence of every
 *    arrival (the RMWs on the count form one chain), so it synchronises with all of them.
 *  - middle launches (from WGS_CFG_ATOM_MIN groups): the arrival is an acq_rel add whose result
 *    the representative waits for before polling, so that polls do not queue among the
 *    arrivals; the one whose add made n*(k+1) polls nothing (its RMW read the chain of every
 *    other arrival, and acquired them); the others poll as above.
 *  - large launches, sharded: group g's release add goes to shard g mod S (its own line). In
 *    participant 0 (the combiner), work-item i < S polls shard i the same way; the work-group
 *    barrier B2 carries what those work-items acquired to every work-item (as in the XF
 *    barrier's master, seed 003 §4.4); work-item r < R then stores k+1 on replica r with a
 *    release store, and group g's representative polls replica g mod R (relaxed, then one
 *    acquire load), which synchronises with that release and so with every arrival.
 * B3 then carries the representative's acquire to its group.
 */
WGS_FN uint wgs__sharded(const wgs_env *env) { return (env->barrier_kind >> 16) & 1u; }
WGS_FN wgs_word_ptr wgs__shard(const wgs_env *env, uint i)
{
  return env->s + WGS_W_SHARDS + i * WGS_LINE_WORDS;
}
WGS_FN wgs_word_ptr wgs__replica(const wgs_env *env, uint r)
{
  return env->s + WGS_W_SHARDS + (WGS_SHARDS_MAX + r) * WGS_LINE_WORDS;
}
/* The representative's arrival: shard 0 when not sharded (log2 S is then 0). Returns the count
 * it made when the arrival waits for its add (bit 24, and may_wait), else 0. */
WGS_FN uint wgs__counter_arrive(const wgs_env *env, uint may_wait)
{
  wgs_word_ptr shard = wgs__shard(env, env->group_id & ((1u << ((env->barrier_kind >> 8) & 15u)) - 1u));
  if (may_wait && ((env->barrier_kind >> 24) & 1u))
    return wgs__add_acqrel(shard, 1u) + 1u;
  wgs__red_rel(shard, 1u);
  return 0u;
}
/* Relaxed polls of *word until it reaches target (signed difference), then one acquire load. */
WGS_FN void wgs__poll_until(const wgs_env *env, wgs_word_ptr word, uint target, uint site)
{
  wgs__spin sp;
  wgs__spin_init(&sp);
  while ((int)(wgs__ld_rlx(word) - target) < 0)
    if (wgs__wait_gave_up(env, &sp, site))
      break;
  (void)wgs__ld_acq(word);
}
/* The wait, in two phases around the work-group barrier B2, which every group runs
 * unconditionally (PoCL 3.1 cannot form parallel regions around a barrier under a condition it
 * cannot prove uniform: its compiler asserted). part: the group takes part. Phase 1: the
 * combiner's work-items poll their shards. Phase 2: they publish the replicas; the other
 * groups' representatives poll theirs, or, not sharded, the one count. */
WGS_FN void wgs__counter_phase1(const wgs_env *env, uint part, uint site)
{
  uint want = env->counted + 1u, lid = env->local_id, ls = (env->barrier_kind >> 8) & 15u;
  uint n = env->num_groups;
  if (part && wgs__sharded(env) && env->group_id == 0u && lid < (1u << ls))
    wgs__poll_until(env, wgs__shard(env, lid), (n >> ls) * want + (lid < (n & ((1u << ls) - 1u)) ? want : 0u),
                    site);
}
WGS_FN void wgs__counter_phase2(const wgs_env *env, uint part, uint made, uint site)
{
  uint want = env->counted + 1u, lid = env->local_id, lr = (env->barrier_kind >> 12) & 15u;
  uint sh = part && wgs__sharded(env);
  if (sh && env->group_id == 0u && lid < (1u << lr))
    wgs__st_rel(wgs__replica(env, lid), want);
  else if (sh && env->group_id != 0u && lid == 0u)
    wgs__poll_until(env, wgs__replica(env, env->group_id & ((1u << lr) - 1u)), want, site);
  else if (part && !sh && lid == 0u && (made == 0u || (int)(made - env->num_groups * want) < 0))
    wgs__poll_until(env, wgs__shard(env, 0u), env->num_groups * want, site);
  /* made reached the target: that arrival was the last, and its acq_rel add acquired them all */
}

/*
 * Checked builds, on entering a grid barrier (or a split arrive): every work-item counts itself
 * in the group's entry count before the first work-group barrier; after it, the representative
 * records the group's arrival (named in deadlock reports) and checks the rules a kernel can
 * break here: the call comes from a group wgs_discover turned away (its arrival would let the
 * participants through early), or from only some of the group's work-items.
 */
WGS_FN void wgs__count_entry(const wgs_env *env)
{
#if WGS_CHECK_MISUSE
  if (env->participating)
    (void)wgs__add_rlx(env->s + WGS_OFF_WITEMS(env->max_groups) + env->group_id, 1u);
#endif
}
WGS_FN void wgs__check_entry(const wgs_env *env, uint site)
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
  uint entered = wgs__ld_rlx(env->s + WGS_OFF_WITEMS(env->max_groups) + env->group_id) -
                 (env->instance + env->split_state) * env->local_size;
  /* (split_state: an arrive pending counts as an entry; a second one is reported as a split
   * misuse, not as a partial group.) Fewer than all: after a split arrive's one work-group
   * barrier, work-items may already count themselves into the next call before this read
   * (seen on the H100: 96 of 64), so more is not an error. */
  if (entered < env->local_size)
    wgs__report_misuse(env->s, WGS_MISUSE_PARTIAL_GROUP, site, entered, env->local_size);
#endif
}

/*
 * Both barriers run the same three work-group barriers in every group; only work-item steps
 * sit in conditionals. Fig. 2 puts the barriers themselves under "master or slave", a
 * condition the compiler cannot prove uniform: PoCL 3.1 (loopvec) corrupted memory in about one
 * run in four with that shape. The barrier kind is chosen the same way, for the same reason.
 * The extra work-group barrier (B1 on the XF master, B2 on an XF slave and in the counter
 * barrier) changes no ordering argument.
 */
WGS_FN void wgs__grid_barrier(wgs_env *env, uint site)
{
  wgs_word_ptr flag = env->s + WGS_OFF_FLAG(env->max_groups);
  uint n = env->num_groups, id = env->group_id, lid = env->local_id, lsize = env->local_size;
  uint xf = (env->barrier_kind & 255u) == WGS_BARRIER_KIND_XF;
  /* A group wgs_discover turned away takes no part: its arrival would count towards the
   * participants' target (checked builds report the call). */
  uint part = env->participating, made = 0u;
  wgs__count_entry(env);
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE); /* B1 = Fig. 2(b) line 1 */
  if (lid == 0u)
    wgs__check_entry(env, site);
  if (!part) {
  } else if (!xf) {
    if (lid == 0u)
      made = wgs__counter_arrive(env, 1u);
    wgs__counter_phase1(env, part, site);
  } else if (id == 0u) {
    for (uint g = lid + 1u; g < n; g += lsize) /* Fig. 2(a) line 2: wait for slave g */
      wgs__wait_flag(env, &flag[g], 0u, site);
  } else if (lid == 0u) {
    wgs__st_rel(&flag[id], 1u); /* Fig. 2(b) line 3: arrive */
  }
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE); /* B2 = Fig. 2(a) line 5 */
  if (!part) {
  } else if (!xf) {
    wgs__counter_phase2(env, part, made, site);
  } else if (id == 0u) {
    for (uint g = lid + 1u; g < n; g += lsize) /* Fig. 2(a) line 8: release slave g */
      wgs__st_rel(&flag[g], 0u);
  } else if (lid == 0u) {
    wgs__wait_flag(env, &flag[id], 1u, site); /* Fig. 2(b) line 4: wait for release */
  }
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE); /* B3 = Fig. 2(b) line 6 */
  env->counted += xf ? 0u : 1u;
  env->instance++;
}

/*
 * Split grid barrier (device scope; the idea of seed 000 applied to the grid): arrive releases
 * everything this group wrote before it (work-group barrier, then the representative's acq_rel
 * add); wait returns once every participating group has arrived at the same instance, and
 * acquires (the poll's acquire load, then a work-group barrier). Work between them overlaps the
 * barrier. It is the counter barrier cut in two, so reuse has no reset race, and it may be mixed
 * with full barriers of either kind (XF barriers do not count). Every group must alternate
 * arrive, wait, arrive, ...; checked builds report a wait without an arrive and a second arrive.
 * Each half holds one work-group barrier outside any condition.
 */
WGS_FN void wgs__split_misuse(wgs_env *env, uint site)
{
#if defined(WGS_CHECKED) && WGS_CHECKED
  if (env->local_id == 0u) {
    wgs__report_code(env, site, WGS_DEV_ERR_SPLIT);
    wgs__abort_done(env->s);
  }
#endif
}
WGS_FN void wgs__grid_arrive(wgs_env *env, uint site)
{
  if (env->split_state != 0u)
    wgs__split_misuse(env, site); /* arrived twice without a wait */
  wgs__count_entry(env);
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  if (env->local_id == 0u) {
    wgs__check_entry(env, site);
    if (env->participating)
      (void)wgs__counter_arrive(env, 0u); /* a split arrive never waits */
  }
  env->split_state = 1u;
}
WGS_FN void wgs__grid_wait(wgs_env *env, uint site)
{
  uint part = env->participating && env->split_state == 1u;
  wgs__counter_phase1(env, part, site);
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE); /* joins the combiner's work-items */
  if (env->split_state != 1u)
    wgs__split_misuse(env, site); /* waited without arriving */
  else
    wgs__counter_phase2(env, part, 0u, site);
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  env->split_state = 0u;
  env->counted++;
  env->instance++;
}
#define wgs_grid_arrive(env) wgs__grid_arrive((env), (uint)__LINE__)
#define wgs_grid_wait(env) wgs__grid_wait((env), (uint)__LINE__)

/* Grid barrier among the participating groups of env; every work-item of every participating
 * group must call it the same number of times (seed 003 §4.3). */
#define wgs_grid_barrier(env) wgs__grid_barrier((env), (uint)__LINE__)
