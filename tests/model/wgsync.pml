/*
 * wgsync's discovery protocols and counter barrier in Promela, checked exhaustively by SPIN for
 * small sizes (tests/model/check.sh runs every setting; CTest runs it).
 *
 * What is modelled, and what is not:
 *  - N launched groups, of which at most K are resident at once: a group takes one of K slots
 *    before it runs and frees it when it ends (a GPU starts a waiting block only when a
 *    resident one exits; PoCL runs one group per worker thread).
 *  - Discovery (Sorensen et al. 2016 Fig. 3 with a ticket or a spin lock, and wgsync's lock-free protocol,
 *    device/common/wgs_core.h), then ROUNDS counter barriers among the participants
 *    (polling the one arrival count after release adds, or after acq_rel adds whose result
 *    lets the last arriver skip the poll, or sharded: two shards that participant 0 waits for,
 *    and two replicas of the instance it publishes; device/common/wgs_core.h), over LAUNCHES
 *    launches on one state: launch epochs
 *    (device/common/wgs_layout.h), where launch E uses half E mod 2, every group clears its
 *    share of the other half, and the last group to count itself in moves E on.
 *  - The quiescence wait and the §5.4 delay change only when the closer closes: SPIN tries every
 *    interleaving between a participant's poll and its close, so every timing is covered.
 *  - Memory is sequentially consistent here: the model checks the protocols' logic under every
 *    interleaving, not the memory ordering (the litmus tests and the message-passing checks on
 *    the GPUs do that).
 * Checked: no deadlock (SPIN's invalid end states: a participant waiting for a group that can
 * never run), at least one participant, every participant reads the same count n, ids are
 * 0..n-1 once each, and nobody leaves barrier k before all n arrived at it.
 */
#ifndef N
#define N 3
#endif
#ifndef K
#define K 2
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif
#ifndef PROTO
#define PROTO 2 /* 0: ticket lock, 1: spin lock, 2: lock-free */
#endif
#ifndef BARRIER
#define BARRIER 0 /* 0: poll the arrival count, 1: sharded (2 shards, 2 replicas), 2: the
                     count read back by the arrival, and the last arriver does not poll */
#endif
#ifndef LAUNCHES
#define LAUNCHES 2
#endif
#ifndef MUTANT
#define MUTANT 0 /* a seeded bug, to show the model catches it (tests/model/check.sh) */
#endif
#define CLOSED 128 /* the lock-free count's closed bit (counts stay below it here) */
#define NONE 255

/* The state's two halves (one launch each) and its control word. */
byte epoch = 0;
byte count[2], final_w[2], arrive[2], seen[2], next_ticket[2], serving[2];
byte shard[4], replica[4]; /* the sharded barrier's lines, 2 per half: index half * 2 + j */
bool closed[2], spin_lock[2];

/* Resident slots and what the checks record (ghost variables, one launch at a time). */
byte slots = K;
byte done = 0, participants = 0, ids = 0, n_read = NONE;
byte arrived[ROUNDS];

inline clear_share(half, grp)
{
  /* group grp's share of the half the next launch uses: variable j is cleared by group j mod N */
  if :: 0 % N == grp -> count[half] = 0 :: else -> skip fi;
  if :: 1 % N == grp -> final_w[half] = 0 :: else -> skip fi;
  if :: 2 % N == grp -> arrive[half] = 0 :: else -> skip fi;
  if :: 4 % N == grp -> seen[half] = 0 :: else -> skip fi;
  if :: 5 % N == grp -> next_ticket[half] = 0; serving[half] = 0 :: else -> skip fi;
  if :: 6 % N == grp -> closed[half] = false; spin_lock[half] = false :: else -> skip fi;
  if :: 7 % N == grp -> shard[(half) * 2] = 0; shard[(half) * 2 + 1] = 0 :: else -> skip fi;
  if :: 8 % N == grp -> replica[(half) * 2] = 0; replica[(half) * 2 + 1] = 0 :: else -> skip fi
}

inline lock(lh)
{
#if PROTO == 0
  atomic { t = next_ticket[lh]; next_ticket[lh]++ };
  (serving[lh] == t)
#else
  atomic { !spin_lock[lh] -> spin_lock[lh] = true }
#endif
}
inline unlock(lh)
{
#if PROTO == 0
  serving[lh]++
#else
  spin_lock[lh] = false
#endif
}

proctype group(byte g)
{
  byte e, h, id = NONE, n, old, t, k, made;
  atomic { slots > 0 -> slots-- }; /* resident from here */
  e = epoch;                      /* the launch epoch, read once */
  h = e % 2;
#if PROTO == 2
  /* the count-in is the poll: fetch_add; the last of the N launched moves the epoch on */
  atomic { old = count[h]; count[h]++ };
  if
  :: (old % CLOSED) == (MUTANT == 1 -> 0 : N - 1) -> epoch = e + 1 /* 1: the first moves it */
  :: else -> skip
  fi;
  clear_share(1 - h, g);
  if
  :: old >= CLOSED -> skip       /* closed: turned away */
  :: else ->
     id = old;
     if
     :: old == 0 ->              /* the closer: quiescence is timing only */
        atomic { n = count[h]; count[h] = count[h] | CLOSED };
        final_w[h] = n + 1
     :: else -> (MUTANT == 2 || final_w[h] != 0) /* 2: no wait for the close */
     fi;
     n = (MUTANT == 2 && final_w[h] == 0 -> count[h] % CLOSED : final_w[h] - 1)
  fi;
#else
  atomic { old = seen[h]; seen[h]++ };
  if
  :: old == N - 1 -> epoch = e + 1
  :: else -> skip
  fi;
  clear_share(1 - h, g);
  lock(h);
  if
  :: !closed[h] -> id = count[h]; count[h]++
  :: else -> skip
  fi;
  unlock(h);
  if
  :: id != NONE ->               /* the close: any time after the poll (delay, quiescence) */
     lock(h);
     if
     :: !closed[h] && MUTANT != 4 -> closed[h] = true /* 4: nobody closes */
     :: else -> skip
     fi;
     unlock(h);
     n = count[h]                /* final once closed */
  :: else -> skip
  fi;
#endif
  if
  :: id != NONE ->
     atomic {
       assert(id < n);                     /* ids 0..n-1 ... */
       assert((ids & (1 << id)) == 0);     /* ... once each */
       ids = ids | (1 << id);
       participants++;
       if
       :: n_read == NONE -> n_read = n
       :: else -> assert(n_read == n)       /* every participant reads the same n */
       fi
     };
     k = 0;
     do
     :: k < ROUNDS ->
#if BARRIER == 0
        atomic { arrive[h]++; arrived[k]++ };
        (arrive[h] >= n * (k + 1) - (MUTANT == 3 -> 1 : 0)); /* 3: one arrival short */
#elif BARRIER == 2
        /* device/cuda/wgsync.cuh, "Counter barrier", middle launches: the arrival is an acq_rel
         * add whose result the group reads; the group whose add made n x (k + 1) does not poll,
         * the others poll the count as above. */
        atomic { made = arrive[h] + 1; arrive[h] = made; arrived[k]++ };
        if
        :: made >= n * (k + 1) - (MUTANT == 6 -> 1 : 0) -> skip /* 6: the one before also skips */
        :: else -> (arrive[h] >= n * (k + 1))
        fi;
#else
        /* device/cuda/wgsync.cuh, "Counter barrier", sharded: group id adds to shard id mod 2;
         * participant 0 waits until shard j holds its groups x (k + 1), for both j, then
         * publishes k + 1 on both replicas; the others poll replica id mod 2. */
        atomic { shard[h * 2 + id % 2]++; arrived[k]++ };
        if
        :: id == 0 ->
           (shard[h * 2] >= (n / 2 + (n % 2)) * (k + 1));
           (MUTANT == 5 || shard[h * 2 + 1] >= (n / 2) * (k + 1)); /* 5: shard 1 not awaited */
           replica[h * 2] = k + 1;
           replica[h * 2 + 1] = k + 1
        :: else -> (replica[h * 2 + id % 2] >= k + 1)
        fi;
#endif
        assert(arrived[k] == n);           /* nobody leaves before all arrived */
        k++
     :: else -> break
     od
  :: else -> skip
  fi;
  atomic { slots++; done++ }
}

init
{
  byte i, l = 0;
  do
  :: l < LAUNCHES ->
     atomic {
       done = 0; participants = 0; ids = 0; n_read = NONE;
       i = 0;
       do :: i < ROUNDS -> arrived[i] = 0; i++ :: else -> break od;
       i = 0;
       do :: i < N -> run group(i); i++ :: else -> break od
     };
     (done == N);                /* the launch ended: the next is ordered after it */
     assert(participants >= 1 && participants == n_read && participants <= K);
     assert(epoch == l + 1);     /* every launch moved the epoch on once */
     l++
  :: else -> break
  od
}
