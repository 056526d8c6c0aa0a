"""wgsync's device library for Triton programs: discovery, grid barriers (full, split, with an OR)
and grid reductions, the protocol of device/common/wgs_core.h written in `tl` over the same
state layout (_layout.py, generated from device/common/wgs_layout.h) and the same config words
the host library plans (src/launch.c), so one state serves C, CUDA and Triton launches alike.

Why a Triton copy and not the C core linked in: Triton links external code only as elementwise
functions (`tl.extern_elementwise`, one call per element, no work-group barrier inside), and
discovery and the barrier are per-program protocols with a program-wide barrier in the middle;
inline PTX would tie it to NVIDIA. Every memory operation here is a `tl` atomic with `sem=` and
`scope=`, which Triton lowers on each of its backends; the one NVIDIA-only call is the clock
(`globaltimer`) of the close wait and of the checked builds' spin bound.

How Triton runs these (NVIDIA, Triton 3.6): a scalar atomic runs in one thread, and a
`bar.sync` broadcasts its result to the program; a vector atomic runs in each lane's thread.
`tl.debug_barrier()` is the program-wide barrier (`bar.sync`): B1 before an arrival, which
orders every thread's writes before the release that one thread then makes, and B3 after the
wait, which carries what that thread acquired to the whole program (Sorensen et al. 2016 Fig. 2;
the ordering arguments are wgs_core.h's, quoted at each step).

The environment is a tuple (g, s, mg, group_id, num_groups, participating, shape, k): the state's
base and the launch's half (uint32 pointers), the capacity, this program's participating id and
the count, 1 or 0, the counter barrier's shape for this launch (bits 0-7: _ONE, _WAITS, _SHARDED
or _PUBLISHED; S in bits 8-15, R in 16-23), and the barriers passed. Barriers return the
environment with k moved on: `env = grid_barrier(env)`.

Launches: the host plans them (wgsync.triton.Grid.launch: wgs_cuda_prepare_launch writes the
config words); the kernel takes the state as a pointer argument and calls `discover` first. The
launch runs in the state's half chosen by its epoch and clears the other one (launch epochs,
wgs_layout.h): no host reset between launches, also under CUDA graph replay.
"""
import triton
import triton.language as tl
from triton.language.extra.cuda import globaltimer as _clock_ns

from ._layout import (
    WGS_ABORT_DONE, WGS_ABORT_REPORTING, WGS_ABORT_RUNNING, WGS_CFG_ATOM_MIN, WGS_CFG_ENOUGH,
    WGS_CFG_EPOCHS, WGS_CFG_HOST_HI, WGS_CFG_HOST_LO, WGS_CFG_LIMIT_HI, WGS_CFG_LIMIT_LO,
    WGS_CFG_MAX_GROUPS, WGS_CFG_MODE, WGS_CFG_PUBLISH, WGS_CFG_SHARDS, WGS_CFG_WAIT_HI,
    WGS_CFG_WAIT_LO, WGS_COUNT_CLOSED, WGS_CTRL_EPOCH, WGS_CTRL_PARTICIPANTS,
    WGS_CTRL_RESULT_EPOCH, WGS_CTRL_USED, WGS_DEV_ERR_GRID_BARRIER, WGS_DEV_ERR_LOCK,
    WGS_ERR_ARRIVED, WGS_ERR_CODE, WGS_ERR_EXPECTED, WGS_ERR_INSTANCE, WGS_ERR_MISSING,
    WGS_ERR_MISSING_MAX, WGS_ERR_MISSING_N, WGS_ERR_REPORTER, WGS_ERR_SITE, WGS_G_CONFIG,
    WGS_G_CTRL, WGS_G_ERROR, WGS_HALF, WGS_HALF_WORDS, WGS_LINE_WORDS, WGS_MIRROR_EPOCH,
    WGS_MIRROR_ERROR, WGS_MIRROR_PARTICIPANTS, WGS_MIRROR_RESULT_EPOCH, WGS_MODE_DISCOVER,
    WGS_OFF_ENTERED, WGS_OFF_FINAL, WGS_RED_PART, WGS_SHARDS_MAX, WGS_W_ABORT, WGS_W_COUNT,
    WGS_W_OR, WGS_W_SEEN, WGS_W_SHARDS)

SUM = tl.constexpr(0)
MIN = tl.constexpr(1)
MAX = tl.constexpr(2)

# The counter barrier's shapes (wgs_core.h, "Counter barrier"), as wgs__choose_shards picks them.
_ONE = tl.constexpr(0)        # release adds on one count, polled
_WAITS = tl.constexpr(1)      # acq_rel adds on one count, whose result the arrival waits for
_SHARDED = tl.constexpr(2)    # S arrival counts, combined by participant 0 onto R replicas
_PUBLISHED = tl.constexpr(3)  # one count; its last arrival publishes on R replicas
_LANES = tl.constexpr(32)     # WGS_SHARDS_MAX: one lane per shard or replica
_RED_BLOCK = tl.constexpr(1024)  # values a reduction folds per step


# ---- memory operations: every one a tl atomic with its order and scope ---------------------
@triton.jit
def _ld_rlx(p):
    return tl.atomic_add(p, 0, sem="relaxed", scope="gpu")


@triton.jit
def _ld_acq(p):
    return tl.atomic_add(p, 0, sem="acquire", scope="gpu")


@triton.jit
def _st_rlx(p, v):
    tl.atomic_xchg(p, v, sem="relaxed", scope="gpu")


@triton.jit
def _st_rel(p, v):
    tl.atomic_xchg(p, v, sem="release", scope="gpu")


@triton.jit
def _acquire_at(p, target):
    """An acquire load of *p that reads target or later (the caller saw it already). Its value
    decides the loop, so the load stays: Triton turns an acquire add of 0 into an acquire load,
    and drops a load whose value nobody uses."""
    while _short(_ld_acq(p), target):
        pass


@triton.jit
def _short(v, target):
    """v has not reached target, the counts compared as a wrapping difference."""
    return (v - target).to(tl.int32, bitcast=True) < 0


@triton.jit
def _u32(x):
    return x.to(tl.uint32, bitcast=True)


@triton.jit
def _mirror_put(g, word, v):
    """The result words the host reads without a copy (WGS_CFG_HOST_LO/HI: a host-mapped mirror,
    wgs_layout.h). A plain store: the host reads it after the kernel has ended."""
    lo = tl.load(g + WGS_G_CONFIG + WGS_CFG_HOST_LO).to(tl.uint64)
    hi = tl.load(g + WGS_G_CONFIG + WGS_CFG_HOST_HI).to(tl.uint64)
    addr = hi << 32 | lo
    if addr != 0:
        m = addr.to(tl.pointer_type(tl.uint32))
        tl.store(m + word, v)


# ---- bounded spins (checked builds) ----------------------------------------------------------
@triton.jit
def _limit_ns(g):
    lo = tl.load(g + WGS_G_CONFIG + WGS_CFG_LIMIT_LO).to(tl.uint64)
    hi = tl.load(g + WGS_G_CONFIG + WGS_CFG_LIMIT_HI).to(tl.uint64)
    return hi << 32 | lo


@triton.jit
def _gave_up(s, t0, limit):
    """A checked spin's step (wgs__spin_gave_up): 0 spin on, 1 timed out and this spin reports
    (it claimed the abort word), 2 the report is written: leave."""
    state = _ld_rlx(s + WGS_W_ABORT)
    why = tl.full((), 0, tl.int32)
    if state == WGS_ABORT_DONE:
        why = 2
    elif state == WGS_ABORT_RUNNING:
        if (_clock_ns() - t0).to(tl.uint64) > limit:
            if tl.atomic_cas(s + WGS_W_ABORT, WGS_ABORT_RUNNING, WGS_ABORT_REPORTING, sem="relaxed",
                             scope="gpu") == WGS_ABORT_RUNNING:
                why = 1
    return why


@triton.jit
def _report_grid(g, s, mg, gid, n, k, site):
    """A grid barrier that gave up (wgs__report_grid): who had arrived at instance k (the entry
    records each representative writes in checked builds) and who not, for the host to name."""
    err = g + WGS_G_ERROR
    if tl.atomic_cas(err + WGS_ERR_CODE, 0, WGS_DEV_ERR_GRID_BARRIER, sem="relaxed", scope="gpu") == 0:
        entered = s + WGS_OFF_ENTERED(mg)
        want = k + 1
        arrived = tl.full((), 0, tl.uint32)
        missing = tl.full((), 0, tl.uint32)
        for base in range(0, n, _RED_BLOCK):
            idx = base + tl.arange(0, _RED_BLOCK)
            inside = idx < n
            e = tl.load(entered + idx, mask=inside, other=0, volatile=True)
            here = inside & (e >= want)
            gone = inside & (e < want)
            slot = missing + tl.cumsum(gone.to(tl.uint32), axis=0) - 1
            tl.store(err + WGS_ERR_MISSING + slot, idx.to(tl.uint32), mask=gone & (slot < WGS_ERR_MISSING_MAX))
            arrived += tl.sum(here.to(tl.uint32), axis=0)
            missing += tl.sum(gone.to(tl.uint32), axis=0)
        _st_rlx(err + WGS_ERR_SITE, site)
        _st_rlx(err + WGS_ERR_INSTANCE, k)
        _st_rlx(err + WGS_ERR_ARRIVED, arrived)
        _st_rlx(err + WGS_ERR_EXPECTED, n)
        _st_rlx(err + WGS_ERR_REPORTER, gid)
        _st_rlx(err + WGS_ERR_MISSING_N, missing)
        _mirror_put(g, WGS_MIRROR_ERROR, WGS_DEV_ERR_GRID_BARRIER)


@triton.jit
def _poll_until(g, s, mg, gid, n, k, word, target, CHECKED: tl.constexpr):
    """Acquire loads of *word until it reaches target: the load that reads the satisfying value
    (or a later one, written by an RMW in the release sequence of every arrival, since the adds
    on a count form one chain, or by the release store of the program that acquired them all: a
    replica) synchronises with every arrival. (wgs_core.h polls relaxed, then makes one acquire
    load; here the acquire is the poll: Triton runs each scalar poll in one thread behind a
    program barrier, so a separate acquire after it costs a whole round more, 0.15-0.3 us a
    barrier on the H200, and a value read for its ordering alone would be dropped.)"""
    go = _short(_ld_acq(word), target)
    if CHECKED:
        t0 = _clock_ns()
        limit = _limit_ns(g)
        while go:
            go = _short(_ld_acq(word), target)
            if go:
                why = _gave_up(s, t0, limit)
                if why == 1:
                    _report_grid(g, s, mg, gid, n, k, 0)
                    _st_rel(s + WGS_W_ABORT, WGS_ABORT_DONE)
                if why != 0:  # (leaves: the kernel is ending, and the host reports it)
                    go = False
    else:
        while go:
            go = _short(_ld_acq(word), target)


# ---- discovery (Sorensen et al. 2016 §3; wgsync's lock-free poll, wgs_core.h wgs__poll_free) -
@triton.jit
def _quiesce(g, s, launched):
    """The close wait (wgs__quiesce): until the count stays unchanged for the host's W
    nanoseconds, or reaches the host's "enough" (the occupancy API's count for this kernel), or
    every launched program has polled."""
    wait_hi = tl.load(g + WGS_G_CONFIG + WGS_CFG_WAIT_HI)
    wait = tl.load(g + WGS_G_CONFIG + WGS_CFG_WAIT_LO)
    if wait_hi != 0:
        wait = 0xffffffff
    enough = tl.load(g + WGS_G_CONFIG + WGS_CFG_ENOUGH)
    if (enough == 0) | (enough > launched):
        enough = launched
    seen = tl.full((), 1, tl.uint32)
    done = seen >= enough
    w0 = _clock_ns()
    while not done:
        now = _ld_rlx(s + WGS_W_COUNT) & (WGS_COUNT_CLOSED - 1)
        if now >= enough:
            seen = now
            done = True
        elif now != seen:  # a new participant: the quiet period starts again
            seen = now
            w0 = _clock_ns()
        elif (_clock_ns() - w0).to(tl.uint32) >= wait:
            done = True
    return seen


@triton.jit
def _shape(g, n):
    """The counter barrier's shape for a launch of n participants (wgs__choose_shards): the
    host's publish threshold first, then the sharding threshold, then the acq_rel one."""
    cfg = g + WGS_G_CONFIG
    p = tl.load(cfg + WGS_CFG_PUBLISH)
    c = tl.load(cfg + WGS_CFG_SHARDS)
    atom_min = tl.load(cfg + WGS_CFG_ATOM_MIN)
    shape = tl.full((), 0, tl.uint32)  # _ONE
    pmin = p & 0xffff
    pr = (p >> 16) & 255
    S = c & 255
    R = (c >> 8) & 255
    if (pmin != 0) & (pr != 0) & (n >= pmin):
        shape = (pr << 16 | _PUBLISHED).to(tl.uint32)
    elif (S != 0) & (R != 0) & (n >= (c >> 16)):
        shape = (R << 16 | S << 8 | _SHARDED).to(tl.uint32)
    elif (atom_min != 0) & (n >= atom_min):
        shape = tl.full((), _WAITS, tl.uint32)
    return shape


@triton.jit
def discover(state, CHECKED: tl.constexpr = False):
    """First thing in the kernel, in every program: the participating-program environment.
    Programs that do not participate (participating(env) == 0) must leave without a barrier.
    1-D grids; launch with the programs Grid.launch plans."""
    g = state.to(tl.pointer_type(tl.uint32), bitcast=True)
    group = _u32(tl.program_id(0))
    launched = _u32(tl.num_programs(0))
    cfg = g + WGS_G_CONFIG
    ctrl = g + WGS_G_CTRL
    mg = tl.load(cfg + WGS_CFG_MAX_GROUPS)
    mode = tl.load(cfg + WGS_CFG_MODE)
    epochs = tl.load(cfg + WGS_CFG_EPOCHS)
    # The launch epoch (wgs_layout.h): read before this program's acq_rel count-in below, so the
    # last program to count in has seen every read and moves it on. Triton has no launch id, so
    # this is the counting form (as OpenCL C's).
    epoch = _ld_rlx(ctrl + WGS_CTRL_EPOCH)
    h = epoch & 1
    s = g + WGS_HALF(mg, h)
    gid = group
    n = launched
    part = tl.full((), 1, tl.uint32)
    if mode == WGS_MODE_DISCOVER:
        # The poll's add counts this program in as well (acq_rel: the epoch's read precedes it).
        old = tl.atomic_add(s + WGS_W_COUNT, 1, sem="acq_rel", scope="gpu")
        if (epochs != 0) & ((old & (WGS_COUNT_CLOSED - 1)) == launched - 1):
            _st_rlx(ctrl + WGS_CTRL_EPOCH, epoch + 1)
            _mirror_put(g, WGS_MIRROR_EPOCH, epoch + 1)
        final = s + WGS_OFF_FINAL(mg)
        if (old & WGS_COUNT_CLOSED) != 0:
            part = tl.full((), 0, tl.uint32)
            n = tl.full((), 0, tl.uint32)
        else:
            gid = old
            if old == launched - 1:  # the whole launch polled: release publishes the final count
                _st_rel(final, launched + 1)
            if old == 0:
                n = _quiesce(g, s, launched)
                # Not all polled: close. The RMW reads the latest count, so n is exact; the
                # release store publishes it to the participants.
                if n != launched:
                    n = tl.atomic_or(s + WGS_W_COUNT, WGS_COUNT_CLOSED, sem="relaxed", scope="gpu")
                _st_rel(final, n + 1)
                _st_rlx(ctrl + WGS_CTRL_PARTICIPANTS, n)
                _st_rlx(ctrl + WGS_CTRL_RESULT_EPOCH, epoch)
                _mirror_put(g, WGS_MIRROR_PARTICIPANTS, n)
                _mirror_put(g, WGS_MIRROR_RESULT_EPOCH, epoch)
            elif old != launched - 1:
                v = _ld_acq(final)
                if CHECKED:
                    t0 = _clock_ns()
                    limit = _limit_ns(g)
                    while v == 0:
                        v = _ld_acq(final)
                        if v == 0:
                            why = _gave_up(s, t0, limit)
                            if why == 1:
                                err = g + WGS_G_ERROR
                                if tl.atomic_cas(err + WGS_ERR_CODE, 0, WGS_DEV_ERR_LOCK, sem="relaxed",
                                                 scope="gpu") == 0:
                                    _st_rlx(err + WGS_ERR_REPORTER, group)
                                    _mirror_put(g, WGS_MIRROR_ERROR, WGS_DEV_ERR_LOCK)
                                _st_rel(s + WGS_W_ABORT, WGS_ABORT_DONE)
                            if why != 0:
                                v = tl.full((), 1, tl.uint32)
                else:
                    while v == 0:
                        v = _ld_acq(final)
                n = v - 1
    else:  # every launched program takes part (WGS_MODE_ALL / _FIXED); counting in as above
        seen = tl.atomic_add(s + WGS_W_SEEN, 1, sem="acq_rel", scope="gpu")
        if (epochs != 0) & (seen == launched - 1):
            _st_rlx(ctrl + WGS_CTRL_EPOCH, epoch + 1)
            _mirror_put(g, WGS_MIRROR_EPOCH, epoch + 1)
    if epochs != 0:
        # Clear the other half for the next launch: the launch that used it has finished, and
        # nothing in this launch reads it. All of it after line 0 (every per-group array, so a C
        # launch that follows on this state finds it as its own launches leave it); every
        # launched program takes a share. The halves are sized by the state's capacity, which
        # Grid makes the most programs it will launch.
        other = g + WGS_HALF(mg, h ^ 1) + WGS_LINE_WORDS
        words = (WGS_HALF_WORDS(mg) - WGS_LINE_WORDS).to(tl.int32)
        step = (launched * 256).to(tl.int32)
        for base in range((group * 256).to(tl.int32), words, step):
            idx = base + tl.arange(0, 256)
            tl.store(other + idx, tl.zeros([256], tl.uint32), mask=idx < words)
        if group == 0:  # read by the launch after next (ordered after this one)
            _st_rlx(ctrl + WGS_CTRL_USED + h, tl.minimum(launched, mg))
    tl.debug_barrier()  # carries what the acquiring thread acquired to the whole program
    return (g, s, mg, gid, n, part, _shape(g, n), tl.full((), 0, tl.uint32))


@triton.jit
def group_id(env):
    """This program's participating id, 0 .. num_groups(env) - 1."""
    return env[3]


@triton.jit
def num_groups(env):
    """The participating programs."""
    return env[4]


@triton.jit
def participating(env):
    """1 if this program takes part (its barriers and reductions count), else 0: leave."""
    return env[5]


# ---- grid barriers (Sorensen et al. 2016 §4; wgs_core.h, "Counter barrier") -----------------
@triton.jit
def _arrive(env, MAY_WAIT: tl.constexpr, CHECKED: tl.constexpr):
    """B1, then the arrival. Returns the count the arrival made where it waited for its add
    (published; _WAITS with MAY_WAIT), else 0."""
    g, s, mg, gid, n, part, shape, k = env
    tl.debug_barrier()  # B1: every thread's writes before the release below
    made = tl.full((), 0, tl.uint32)
    if part != 0:
        if CHECKED:  # the entry record a deadlock report names
            _st_rlx(s + WGS_OFF_ENTERED(mg) + gid, k + 1)
        kind = shape & 255
        want = k + 1
        shard0 = s + WGS_W_SHARDS
        if kind == _PUBLISHED:
            made = tl.atomic_add(shard0, 1, sem="release", scope="gpu") + 1
            if not _short(made, n * want):
                # The last arrival: an acquire load of the count reads the last RMW of the chain
                # of every arrival's release add, so it synchronises with all of them; then
                # the replicas' release stores pass that on (cumulative through the barrier).
                _acquire_at(shard0, n * want)
                tl.debug_barrier()
                lanes = tl.arange(0, _LANES)
                replicas = s + WGS_W_SHARDS + (WGS_SHARDS_MAX + lanes) * WGS_LINE_WORDS
                R = (shape >> 16) & 255
                tl.atomic_xchg(replicas, tl.full([_LANES], 0, tl.uint32) + want, mask=lanes < R,
                               sem="release", scope="gpu")
            if not MAY_WAIT:
                made = tl.full((), 0, tl.uint32)
        elif kind == _SHARDED:
            S = (shape >> 8) & 255
            tl.atomic_add(s + WGS_W_SHARDS + (gid & (S - 1)) * WGS_LINE_WORDS, 1, sem="release", scope="gpu")
        elif (kind == _WAITS) & MAY_WAIT:
            made = tl.atomic_add(shard0, 1, sem="acq_rel", scope="gpu") + 1
        else:
            tl.atomic_add(shard0, 1, sem="release", scope="gpu")
    return made


@triton.jit
def _wait(env, made, CHECKED: tl.constexpr):
    """The wait, then B3. Returns the environment past this barrier."""
    g, s, mg, gid, n, part, shape, k = env
    want = k + 1
    if part != 0:
        kind = shape & 255
        if (kind == _SHARDED) & (gid == 0):
            # The combiner: lane i polls shard i (relaxed, then an acquire RMW per lane); the
            # program barrier carries what the lanes acquired to the lanes r < R, whose release
            # stores on replica r are cumulative over it (wgs_core.h: the join).
            S = (shape >> 8) & 255
            R = (shape >> 16) & 255
            lanes = tl.arange(0, _LANES)
            shards = s + WGS_W_SHARDS + lanes * WGS_LINE_WORDS
            live = lanes < S
            target = (n // S) * want + tl.where(lanes < n % S, want, 0)
            short = tl.max((live & _short(tl.load(shards, mask=live, other=0, volatile=True),
                                          target)).to(tl.int32), axis=0)
            left = tl.full((), 0, tl.int32)
            if CHECKED:
                t0 = _clock_ns()
                limit = _limit_ns(g)
            while short != 0:
                short = tl.max((live & _short(tl.load(shards, mask=live, other=0, volatile=True),
                                              target)).to(tl.int32), axis=0)
                if CHECKED:
                    if short != 0:
                        why = _gave_up(s, t0, limit)
                        if why == 1:
                            _report_grid(g, s, mg, gid, n, k, 0)
                            _st_rel(s + WGS_W_ABORT, WGS_ABORT_DONE)
                        if why != 0:
                            short = 0
                            left = 1
            # (the acquire RMWs' values decide a loop that ends at once, so that none is dropped;
            # a spin that gave up skips it)
            again = 1 - left
            while again != 0:
                acq = tl.atomic_add(shards, tl.zeros([_LANES], tl.uint32), mask=live, sem="acquire",
                                    scope="gpu")
                again = tl.max((live & _short(acq, target)).to(tl.int32), axis=0)
            tl.debug_barrier()
            replicas = s + WGS_W_SHARDS + (WGS_SHARDS_MAX + lanes) * WGS_LINE_WORDS
            tl.atomic_xchg(replicas, tl.full([_LANES], 0, tl.uint32) + want, mask=lanes < R,
                           sem="release", scope="gpu")
        elif (kind == _SHARDED) | (kind == _PUBLISHED):
            R = (shape >> 16) & 255
            replica = s + WGS_W_SHARDS + (WGS_SHARDS_MAX + (gid & (R - 1))) * WGS_LINE_WORDS
            _poll_until(g, s, mg, gid, n, k, replica, want, CHECKED)
        elif (made == 0) | _short(made, n * want):
            # (an arrival whose acq_rel add made the last count acquired the rest already)
            _poll_until(g, s, mg, gid, n, k, s + WGS_W_SHARDS, n * want, CHECKED)
    tl.debug_barrier()  # B3: carries the acquire to the whole program
    return (g, s, mg, gid, n, part, shape, k + 1)


@triton.jit
def grid_barrier(env, CHECKED: tl.constexpr = False):
    """Grid barrier among the participating programs: every program's writes before it are
    visible to every program after it. Every participating program calls it the same number of
    times (Sorensen et al. 2016 §4.3). Returns the environment to use from here on."""
    made = _arrive(env, True, CHECKED)
    return _wait(env, made, CHECKED)


@triton.jit
def grid_arrive(env, CHECKED: tl.constexpr = False):
    """The split barrier's first half: releases what this program wrote before it. Work until
    grid_wait overlaps the barrier. Returns the environment to pass to grid_wait."""
    _arrive(env, False, CHECKED)
    return env


@triton.jit
def grid_wait(env, CHECKED: tl.constexpr = False):
    """The second half: returns once every participating program has arrived at this instance,
    with what they wrote before their arrive visible. Returns the environment past it."""
    return _wait(env, tl.full((), 0, tl.uint32), CHECKED)


@triton.jit
def grid_barrier_or(env, v, CHECKED: tl.constexpr = False):
    """grid_barrier, and whether any participating program passed a nonzero v (a scalar, or a
    block: any element): the "did anything change?" of an iterative kernel. Returns
    (environment, 1 or 0), the same answer in every program. The tag instance + 1 is stored on
    the instance's OR word before the arrival (its release carries it) and read after the
    wait's acquire; the word of instance k is next written at k + 2, after every program read it
    (wgs_core.h, "Grid barrier with an OR")."""
    g, s, mg, gid, n, part, shape, k = env
    if len(v.shape) > 0:
        mine = tl.max(tl.reshape((v != 0).to(tl.int32), [v.numel]), axis=0) != 0
    else:
        mine = v != 0
    tl.debug_barrier()
    if (part != 0) & mine:
        _st_rlx(s + WGS_W_OR + (k & 1), k + 1)
    made = _arrive(env, True, CHECKED)
    out = _wait(env, made, CHECKED)
    seen = (_ld_rlx(s + WGS_W_OR + (k & 1)) == k + 1) & (part != 0)
    return out, seen.to(tl.int32)


# ---- grid reductions (wgs_core.h, "Grid reductions") --------------------------------------
@triton.jit
def _red_identity(OP: tl.constexpr, F32: tl.constexpr):
    if OP == MIN:
        r = tl.full((), 0xffffffff, tl.uint32)
    elif F32 and OP == SUM:
        r = tl.full((), 0x80000000, tl.uint32)  # -0.0f
    else:
        r = tl.full((), 0, tl.uint32)
    return r


@triton.jit
def _red_key(x, OP: tl.constexpr):
    """A program's value as the word the reduction stores: a float's bits (its sum) or its
    totalOrder key (min and max: -NaN < -inf < ... < -0 < +0 < ... < +NaN, as unsigned order); an
    int32's bits with the sign flipped (min and max in unsigned order); a uint32 as it is."""
    if x.dtype == tl.float32:
        u = x.to(tl.uint32, bitcast=True)
        if OP != SUM:
            u = u ^ tl.where((u >> 31) != 0, 0xffffffff, 0x80000000).to(tl.uint32)
    elif x.dtype == tl.int32:
        u = x.to(tl.uint32, bitcast=True)
        if OP != SUM:
            u = u ^ 0x80000000
    else:
        tl.static_assert(x.dtype == tl.uint32, "grid_reduce takes int32, uint32 or float32 values")
        u = x
    return u


@triton.jit
def _red_value(u, OP: tl.constexpr, DTYPE: tl.constexpr):
    if DTYPE == tl.float32:
        if OP != SUM:
            u = u ^ tl.where((u >> 31) != 0, 0x80000000, 0xffffffff).to(tl.uint32)
        r = u.to(tl.float32, bitcast=True)
    elif DTYPE == tl.int32:
        if OP != SUM:
            u = u ^ 0x80000000
        r = u.to(tl.int32, bitcast=True)
    else:
        r = u
    return r


@triton.jit
def _red_put(env, x, OP: tl.constexpr):
    """Step 1: this program's value, stored at its id in the buffer of the instance's parity,
    before the arrival that releases it."""
    g, s, mg, gid, n, part, shape, k = env
    tl.static_assert(len(x.shape) == 0, "grid_reduce takes one value per program (reduce a block "
                     "with tl.sum, tl.min or tl.max first)")
    if part != 0:
        _st_rlx(g + WGS_RED_PART(mg) + (k & 1) * mg + gid, _red_key(x, OP))


@triton.jit
def _red_get(env, k, OP: tl.constexpr, DTYPE: tl.constexpr):
    """Step 3, after the barrier of instance k: every program folds the n values itself, in the
    same order (lane i takes values i, i + 1024, ..., then one tree over the lanes), so every
    program computes the same bits, a float sum included."""
    g, s, mg, gid, n, part, shape, _k = env
    F32: tl.constexpr = DTYPE == tl.float32
    part_buf = g + WGS_RED_PART(mg) + (k & 1) * mg
    ident = _red_identity(OP, F32)
    if F32 and OP == SUM:
        acc = tl.zeros([_RED_BLOCK], tl.float32) - 0.0
        for base in range(0, n, _RED_BLOCK):
            idx = base + tl.arange(0, _RED_BLOCK)
            w = tl.load(part_buf + idx, mask=idx < n, other=ident, volatile=True)
            acc = acc + w.to(tl.float32, bitcast=True)
        r = tl.sum(acc, axis=0).to(tl.uint32, bitcast=True)
    else:
        acc = tl.zeros([_RED_BLOCK], tl.uint32) + ident
        for base in range(0, n, _RED_BLOCK):
            idx = base + tl.arange(0, _RED_BLOCK)
            w = tl.load(part_buf + idx, mask=idx < n, other=ident, volatile=True)
            if OP == SUM:
                acc = acc + w
            elif OP == MIN:
                acc = tl.minimum(acc, w)
            else:
                acc = tl.maximum(acc, w)
        if OP == SUM:
            r = tl.sum(acc, axis=0)
        elif OP == MIN:
            r = tl.min(acc, axis=0)
        else:
            r = tl.max(acc, axis=0)
    return _red_value(r, OP, DTYPE)


@triton.jit
def grid_reduce(env, x, OP: tl.constexpr, CHECKED: tl.constexpr = False):
    """A grid barrier that returns, in every participating program, OP (SUM, MIN or MAX) over the
    value x (int32, uint32 or float32; one per program) every one of them passed: the same bits
    in every program (a float sum in a fixed order; int sums wrap). Returns (environment, value).
    Reuse: instance k's buffer is next written at k + 2, after every program read it."""
    k = env[7]
    _red_put(env, x, OP)
    env = grid_barrier(env, CHECKED)
    return env, _red_get(env, k, OP, x.dtype)


@triton.jit
def grid_arrive_reduce(env, x, OP: tl.constexpr, CHECKED: tl.constexpr = False):
    """grid_reduce's first half: x is stored and released; grid_wait_reduce returns the answer."""
    _red_put(env, x, OP)
    return grid_arrive(env, CHECKED)


@triton.jit
def grid_wait_reduce(env, OP: tl.constexpr, DTYPE: tl.constexpr, CHECKED: tl.constexpr = False):
    """The second half (the same OP, and the arrive's dtype): (environment, value)."""
    k = env[7]
    env = grid_wait(env, CHECKED)
    return env, _red_get(env, k, OP, DTYPE)
