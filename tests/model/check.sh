#!/usr/bin/env bash
# Exhaustive checks of tests/model/wgsync.pml with SPIN: every discovery protocol with both
# counter-barrier variants, two launches on one state, for groups N and resident slots K up to
# 4 (3 barrier rounds up to 3 groups, 2 at 4); then each seeded bug (MUTANT) must be caught:
#   1 the first group to count in moves the epoch on, 2 participants do not wait for the close,
#   3 a barrier waits for one arrival fewer, 4 nobody closes the poll (Fig. 3 with no close),
#   5 the sharded barrier's combiner does not wait for one shard, 6 the middle shape's arrival
#   before the last also skips its poll. Exits 77 (skipped) without spin and a C
# compiler. Usage: check.sh [work dir]
set -uo pipefail
model=$(cd "$(dirname "$0")" && pwd)/wgsync.pml
command -v spin >/dev/null && command -v cc >/dev/null || { echo "SKIP: spin or cc not found"; exit 77; }
work=${1:-$(mktemp -d)}
mkdir -p "$work" && cd "$work" || exit 2
fail=0
# run NAME DEFINES...: prints the verdict; sets $errors
run() {
  local name=$1; shift
  if ! spin -a "$@" "$model" >spin.log 2>&1 || ! cc -O2 -DSAFETY -DNOCLAIM -DMEMLIM=2048 -o pan pan.c 2>>spin.log; then
    echo "$name: the model did not build"; cat spin.log; errors=-1; return
  fi
  local out
  out=$(./pan -m10000000 2>&1)
  errors=$(echo "$out" | sed -n 's/.*errors: \([0-9]*\).*/\1/p')
  local states
  states=$(echo "$out" | sed -n 's/^ *\([0-9e.+]*\) states, stored.*/\1/p')
  if echo "$out" | grep -q "max search depth too small"; then errors=-1; fi
  echo "$name: ${states:-?} states, ${errors:-?} errors$(echo "$out" | grep -m1 -o 'assertion violated.*\|invalid end state (at depth [0-9]*)' | sed 's/^/: /')"
}
protos=(ticket spin lock-free)
shapes=(poll sharded acq_rel)
for NKR in "2 1 3" "3 2 3" "3 3 3" "4 2 2" "4 4 2"; do
  set -- $NKR
  for p in 0 1 2; do
    for b in 0 1 2; do
      run "N=$1 K=$2 rounds=$3 ${protos[$p]} barrier=${shapes[$b]}" \
        -DN=$1 -DK=$2 -DROUNDS=$3 -DPROTO=$p -DBARRIER=$b
      [ "$errors" = 0 ] || fail=1
    done
  done
done
# seeded bugs: each must be caught
# (2 needs three resident groups: with two, the count cannot move between a poll and the close)
for m in "1 2" "2 2" "3 2" "4 0"; do
  set -- $m
  run "MUTANT=$1 (expected to be caught)" -DN=3 -DK=3 -DPROTO=$2 -DMUTANT=$1
  if [ "${errors:-0}" = 0 ] || [ "$errors" = -1 ]; then echo "  NOT CAUGHT"; fail=1; fi
done
for mb in "5 1" "6 2"; do
  set -- $mb
  run "MUTANT=$1 (expected to be caught)" -DN=3 -DK=3 -DPROTO=2 -DBARRIER=$2 -DMUTANT=$1
  if [ "${errors:-0}" = 0 ] || [ "$errors" = -1 ]; then echo "  NOT CAUGHT"; fail=1; fi
done
[ $fail = 0 ] && echo "PASS" || echo "FAIL"
exit $fail
