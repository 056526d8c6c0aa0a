/*
 * wgsync protocol state layout, shared verbatim by the host library (C11) and the device
 * libraries (OpenCL C, CUDA C). The state is one device buffer of 32-bit words that the host
 * allocates once and the kernel receives as an argument (NVIDIA's OpenCL has no program-scope
 * globals). Its base holds what outlives a launch (control, config, the sticky error report);
 * then come two halves with everything one launch uses.
 *
 * Launch epochs: a launch needs no host-side reset. Launch number E (the control word
 * WGS_CTRL_EPOCH as the launch finds it: the launches before it) runs in half E & 1, which the launch before it
 * cleared; its groups clear the other half, used by launch E - 1, which has finished (launches
 * on one state are ordered: one stream or queue). The epoch moves on once per launch, after
 * every group has read it, in one of two ways:
 *  - where the device names its launches (CUDA's %gridid, WGS_HAS_GRIDID), the control word
 *    beside the epoch (WGS_CTRL_OWNER) names the launch that moved it there: a group that reads
 *    another launch's name in the pair knows that launch has finished, so its own launch is
 *    number E, and group 0 stores (E + 1, its launch) in one 64-bit store; a group that reads its
 *    own launch's name is in launch E - 1. Either reading gives the same number, so no group
 *    counts itself in and the launch's start has no read-modify-write on one word.
 *  - elsewhere (OpenCL C has no launch id) every launched group counts itself in with an acq_rel
 *    RMW after reading E, and the last one stores E + 1.
 * So a launch is one kernel launch, also when it is captured in a CUDA graph and replayed. Where
 * the host resets the state instead (WGS_CFG_EPOCHS = 0: OpenCL checked programs, which keep
 * the checks that need a launch-wide reset), E stays 0 and the kernel clears nothing.
 *
 * Every word that several work-groups hammer (lock words, poll, count, abort) sits on its own
 * 128-byte line so that contention on one does not slow the others.
 */
#ifndef WGS_LAYOUT_H
#define WGS_LAYOUT_H

#define WGS_LAYOUT_VERSION 10u

/* Device libraries: checked builds also check the kernel's use of the library (wgs_discover
 * once, every work-item of a participating group at each grid barrier): WGS_CHECK_MISUSE, on
 * with WGS_CHECKED. wgsync's own probes build without it: on NVIDIA it took the checked tools
 * kernels past 32 registers, so a checked probe ran fewer groups at once than the unchecked
 * kernel it guards. */
#if !defined(WGS_CHECK_MISUSE)
#if defined(WGS_CHECKED) && WGS_CHECKED
#define WGS_CHECK_MISUSE 1
#else
#define WGS_CHECK_MISUSE 0
#endif
#endif
#define WGS_LINE_WORDS 32u /* 128 bytes */

/* Global lines (word offsets from the state's base). */
#define WGS_G_CTRL (0u * WGS_LINE_WORDS)   /* launch control and the latest result */
#define WGS_G_CONFIG (1u * WGS_LINE_WORDS) /* host-written settings, read-only on device */
#define WGS_G_ERROR (2u * WGS_LINE_WORDS)  /* checked builds: first error report since the host
                                              last read it (sticky across launches) */
#define WGS_G_LINES 3u
/* Control words (offsets from WGS_G_CTRL). A launch's first loads (the config line, these
 * words, the group's own word below) depend on nothing read before them: one round trip. */
#define WGS_CTRL_EPOCH 0u        /* launches so far (see above); with the next word, one
                                    aligned 64-bit pair (epoch in the low half) */
#define WGS_CTRL_OWNER 1u        /* %gridid + 1 of the launch that stored the epoch (CUDA) */
#define WGS_CTRL_RESULT_EPOCH 2u /* epoch of the launch the next word describes */
#define WGS_CTRL_PARTICIPANTS 3u /* participants of that launch (written when known) */
#define WGS_CTRL_USED 4u         /* words 4 and 5: the groups whose per-group words half 0's
                                    (half 1's) last launch may have written (launch epochs: the
                                    launch after it clears only those) */
/* Per-group words that outlive a launch (offsets from the base), two per group, at offsets that
 * need no capacity: CUDA tells a second wgs_discover call in a group from a first call of the
 * next launch by the launch's %gridid, and finds the first call's answer through its epoch. */
#define WGS_G_FIRST(group) (WGS_G_LINES * WGS_LINE_WORDS + 2u * (group))      /* epoch of the
                                                                               group's last call */
#define WGS_G_GRID(group) (WGS_G_LINES * WGS_LINE_WORDS + 2u * (group) + 1u) /* its launch's
                                                                               %gridid + 1 */
#define WGS_ROUND_LINE(w) (((w) + WGS_LINE_WORDS - 1u) / WGS_LINE_WORDS * WGS_LINE_WORDS)
#define WGS_G_WORDS(g) WGS_ROUND_LINE(WGS_G_LINES * WGS_LINE_WORDS + 2u * (g))

/* Half lines (word offsets from the start of a half). Line 0 is never cleared. */
#define WGS_W_BACK 0u                            /* words from the state's base to this half */
#define WGS_W_TICKET_NEXT (1u * WGS_LINE_WORDS)  /* ticket lock: next ticket to hand out */
#define WGS_W_TICKET_SERVE (2u * WGS_LINE_WORDS) /* ticket lock: ticket now served */
#define WGS_W_SPIN (3u * WGS_LINE_WORDS)         /* spin lock: 0 unlocked, 1 locked */
#define WGS_W_CLOSED (4u * WGS_LINE_WORDS)       /* Sorensen et al. 2016 Fig. 3 poll_open, negated: 0 open
                                                    (a cleared half), 1 closed */
#define WGS_W_COUNT (5u * WGS_LINE_WORDS)        /* Sorensen et al. 2016 Fig. 3 count */
#define WGS_W_ABORT (6u * WGS_LINE_WORDS)        /* checked builds: WGS_ABORT_* */
#define WGS_W_OR (7u * WGS_LINE_WORDS)          /* wgs_grid_barrier_or: words 0 and 1, the
                                                    instance's tag where some group passed a
                                                    nonzero value (device/common/wgs_core.h) */
#define WGS_W_PAUSE (8u * WGS_LINE_WORDS)      /* the Vulkan library's pause on CPU devices
                                                    stores here what nobody reads
                                                    (device/vulkan/wgsync.glsl) */
#define WGS_W_SEEN (9u * WGS_LINE_WORDS)         /* groups that read the epoch (protocols other
                                                    than the lock-free one, whose count it is) */
#define WGS_W_SHARDS (10u * WGS_LINE_WORDS)      /* counter barrier: arrival shard i on line
                                                    10 + i (shard 0: the one count when not
                                                    sharded), published-instance replica r on
                                                    line 10 + WGS_SHARDS_MAX + r */
#define WGS_SHARDS_MAX 32u
#define WGS_W_ARRAYS ((10u + 2u * WGS_SHARDS_MAX) * WGS_LINE_WORDS) /* per-group arrays */

/* Config words (offsets from WGS_W_CONFIG). */
#define WGS_CFG_VERSION 0u
#define WGS_CFG_LOCK 1u       /* enum wgs_lock value */
#define WGS_CFG_DELAY 2u      /* lock/unlock rounds between polling and closing (Sorensen et al. 2016 §5.4) */
#define WGS_CFG_MODE 3u       /* WGS_MODE_* */
#define WGS_CFG_MAX_GROUPS 4u /* capacity of the per-group arrays */
#define WGS_CFG_LIMIT_LO 5u   /* checked builds: spin bound, low word */
#define WGS_CFG_LIMIT_HI 6u   /*   (iterations, or nanoseconds where the device has a timer) */
#define WGS_CFG_TIMED 7u      /* 1: device records protocol timestamps */
#define WGS_CFG_WAIT_LO 8u    /* closer's wait outside the mutex before closing (wgsync), low */
#define WGS_CFG_WAIT_HI 9u    /*   (iterations, or nanoseconds where the device has a timer) */
#define WGS_CFG_BARRIER 10u   /* WGS_BARRIER_KIND_* */
#define WGS_CFG_ENOUGH 11u    /* the close wait ends once this many groups have polled (0: never):
                                 a count no launch can exceed, e.g. a CPU's worker threads */
#define WGS_CFG_EPOCHS 12u    /* 1: launch epochs (the kernel clears the next half); 0: the host
                                 resets the state before each launch */
#define WGS_CFG_HOST_LO 13u   /* CUDA: device address of a host-mapped mirror of the result words */
#define WGS_CFG_HOST_HI 14u   /*   (WGS_MIRROR_*), or 0: the host reads the state instead */
#define WGS_CFG_SHARDS 15u    /* counter barrier: arrival shards S (bits 0-7) and published
                                 replicas R (bits 8-15), used by launches of at least the count
                                 in bits 16-31 groups; 0: never sharded (one arrival count) */
#define WGS_CFG_ATOM_MIN 16u  /* counter barrier, not sharded: from this many groups on, the
                                 arrival is an acq_rel add whose result the group waits for
                                 before polling; below, a release add nobody waits for (0: never) */
#define WGS_CFG_TICKS 17u     /* 1: no device clock, but the host's: WGS_CFG_CLOCK counts
                                 microseconds, and the spin bound and close wait are in them */
#define WGS_CFG_PUBLISH 18u   /* counter barrier: launches of at least the count in bits 0-15
                                 groups (0: none) take one arrival count whose last arrival
                                 publishes on R replicas (bits 16-23), before the shards' and
                                 the acq_rel thresholds above are looked at */
#define WGS_CFG_WORDS 19u
#define WGS_CFG_DISPATCH 20u  /* the OpenCL layer (layer/): how its kernels were dispatched
                                 (WGS_DISPATCH_*); written by its launches when it changes, on the
                                 launch's queue, never by the config write */
#define WGS_CFG_CLOCK 31u     /* the host clock (microseconds, wrapping), written by a host thread
                                 into the state's host memory while launches run (CPU devices
                                 without a clock: src/opencl/cl_clock.c); after the config words,
                                 so that the host's config writes never touch it */

/* The host-mapped mirror (CUDA): written by the device beside the control words, so that a
 * synchronous launch needs no copy back unless an error was reported. */
#define WGS_MIRROR_EPOCH 0u        /* as WGS_CTRL_EPOCH */
#define WGS_MIRROR_RESULT_EPOCH 1u /* as WGS_CTRL_RESULT_EPOCH */
#define WGS_MIRROR_PARTICIPANTS 2u /* as WGS_CTRL_PARTICIPANTS */
#define WGS_MIRROR_ERROR 3u        /* the error code, once one was reported */
#define WGS_MIRROR_WORDS 4u

#define WGS_LOCK_KIND_TICKET 0u
#define WGS_LOCK_KIND_SPIN 1u
#define WGS_LOCK_KIND_FREE 2u /* wgsync's lock-free counter protocol (no mutex) */

#define WGS_BARRIER_KIND_XF 0u      /* Sorensen et al. 2016 §4.2: master polls per-group flags */
#define WGS_BARRIER_KIND_COUNTER 1u /* arrival count; the last arriver publishes the instance */

/* Lock-free protocol: the count word's top bit is the closed poll. */
#define WGS_COUNT_CLOSED 0x80000000u

#define WGS_DISPATCH_DEFAULT 0u    /* cl_intel_concurrent_dispatch's default dispatch: no state */
#define WGS_DISPATCH_CONCURRENT 1u /* concurrent: every group takes part in intel_device_barrier */
#define WGS_DISPATCH_PROBE 2u      /* the layer's occupancy probe: discovery, then every group leaves */

#define WGS_MODE_DISCOVER 0u /* run the discovery protocol */
#define WGS_MODE_ALL 1u      /* every launched group participates, ids native (unsafe; bound search) */
#define WGS_MODE_FIXED 2u    /* like ALL, for a group count the host knows to be occupant */

/* Error report words (offsets from WGS_G_ERROR). Written once, by the first reporter. */
#define WGS_ERR_CODE 0u     /* WGS_DEV_ERR_* ; 0 = none */
#define WGS_ERR_SITE 1u     /* source line of the barrier call */
#define WGS_ERR_INSTANCE 2u /* how many grid barriers the reporter had passed before this one */
#define WGS_ERR_ARRIVED 3u  /* groups that had arrived at that instance */
#define WGS_ERR_EXPECTED 4u /* groups expected */
#define WGS_ERR_REPORTER 5u /* participating id of the reporting group */
#define WGS_ERR_MISSING_N 6u
#define WGS_ERR_MISSING 8u /* up to WGS_ERR_MISSING_MAX participating ids */
#define WGS_ERR_MISSING_MAX 24u

#define WGS_DEV_ERR_NONE 0u
#define WGS_DEV_ERR_GRID_BARRIER 1u /* a grid barrier timed out: some groups never arrived */
#define WGS_DEV_ERR_LOCK 2u         /* the discovery mutex was never granted */
#define WGS_DEV_ERR_SPLIT 4u        /* split grid barrier misuse: wait before arrive, arrive twice */
#define WGS_DEV_ERR_CUT 16u         /* a spin-wait loop ended with its condition unmet and no
                                       timeout: the driver cut the loop (lavapipe ends every shader
                                       loop after 65,535 iterations), in any build; site,
                                       instance, reporter, and in WGS_ERR_ARRIVED the loop's
                                       kind (0 a barrier wait, 1 discovery, 2 a reduction) */
#define WGS_DEV_ERR_MISUSE 8u       /* a rule of the device library broken (checked builds): which
                                       one in WGS_ERR_INSTANCE, the call's line in WGS_ERR_SITE,
                                       the native group id in WGS_ERR_REPORTER */
#define WGS_MISUSE_DISCOVER_TWICE 1u  /* wgs_discover called again in the same group */
#define WGS_MISUSE_BEFORE_DISCOVER 2u /* CUDA: a grid barrier with an environment wgs_discover
                                         never filled (OpenCL C cannot tell: no initialisers) */
#define WGS_MISUSE_PARTIAL_GROUP 3u   /* a grid barrier reached by only some work-items of a
                                         group: WGS_ERR_ARRIVED of WGS_ERR_EXPECTED */
#define WGS_MISUSE_NOT_PARTICIPATING 4u /* a grid barrier in a group wgs_discover turned away */


#define WGS_NOT_PARTICIPATING 0xffffffffu

/* The abort word. A spin past its bound claims REPORTING, writes the error report, then sets
 * DONE; only DONE lets the other spins go. Their groups leave the barrier only after the report
 * is a true snapshot: otherwise groups that were never resident start as the others leave, and
 * the report would count them as arrived. */
#define WGS_ABORT_RUNNING 0u
#define WGS_ABORT_REPORTING 1u
#define WGS_ABORT_DONE 2u

/* Per-group arrays of a half, for a state of capacity g groups (word offsets from the half). */
#define WGS_OFF_MAP(g) (WGS_W_ARRAYS)            /* Sorensen et al. 2016 Fig. 3 M: participating id, or
                                                    WGS_NOT_PARTICIPATING; g words */
#define WGS_OFF_FLAG(g) (WGS_W_ARRAYS + (g))     /* Sorensen et al. 2016 Fig. 2 XF barrier flags; g words */
#define WGS_OFF_ENTERED(g) (WGS_W_ARRAYS + 2u * (g)) /* checked builds: grid barrier instances each
                                                      group has entered; g words */
#define WGS_OFF_TIME(g) (WGS_W_ARRAYS + 3u * (g)) /* 4 words per group: protocol start lo/hi,
                                                     end lo/hi (ns) */
#define WGS_OFF_FINAL(g) (WGS_W_ARRAYS + 7u * (g)) /* lock-free protocol: participant count + 1
                                                      once closed; one line */
#define WGS_OFF_CALLS(g) (WGS_W_ARRAYS + 7u * (g) + WGS_LINE_WORDS) /* wgs_discover calls per
                                       native group: a second call answers as the first did */
#define WGS_OFF_WITEMS(g) (WGS_W_ARRAYS + 8u * (g) + WGS_LINE_WORDS) /* checked builds: work-items
                                       that entered grid barriers, per participating id; g words */
#define WGS_OFF_GROUP_OR(g) (WGS_W_ARRAYS + 9u * (g) + WGS_LINE_WORDS) /* wgs_grid_barrier_or
                                       where the layer has no work-group OR: 2 words per group */
#define WGS_A_WORDS(g) (11u * (g) + WGS_LINE_WORDS) /* all of the above */
#define WGS_HALF_WORDS(g) WGS_ROUND_LINE(WGS_W_ARRAYS + WGS_A_WORDS(g))
#define WGS_HALF(g, h) (WGS_G_WORDS(g) + (h) * WGS_HALF_WORDS(g)) /* half h (0 or 1) */
/* After both halves, for checked builds: the line of the grid barrier each participant of half
 * h last entered (g words per half). Kept out of the halves so that the per-group arrays of
 * checked builds never move the halves, whose lines an unchecked barrier polls: adding it
 * inside them moved half 1 by 4 bytes per group and the counter barrier's latency by up to 10%
 * at some shapes (H100, the same call as the layout before it). */
#define WGS_SITE(g, h) (WGS_G_WORDS(g) + 2u * WGS_HALF_WORDS(g) + (h) * (g))
/* After those, the grid reductions' words (device/common/wgs_core.h, "grid reductions"): never
 * cleared, since every word is written before it is read. WGS_RED_PART: two buffers of g words,
 * each participating group's value for the reduction of an instance of parity b at b * g + id.
 * WGS_RED_GROUP: where the layer has no work-group reduction, WGS_RED_WORDS per native group. */
#define WGS_RED_PART(g) (WGS_G_WORDS(g) + 2u * WGS_HALF_WORDS(g) + WGS_ROUND_LINE(2u * (g)))
#define WGS_RED_WORDS 40u /* 4 for the core's reduction, 33 for NVIDIA OpenCL's, padding */
#define WGS_RED_GROUP(g) (WGS_RED_PART(g) + WGS_ROUND_LINE(2u * (g)))
#define WGS_STATE_WORDS(g) (WGS_RED_GROUP(g) + WGS_ROUND_LINE(WGS_RED_WORDS * (g)))

#endif
