#!/usr/bin/env bash
# Seed 003 Table 3 measurements with the CLI: the occupancy bound and discovery (ticket and spin
# lock; wgsync's default and Fig. 3 as published; wgsync's lock-free protocol) for work-group sizes 256 and 1024 with 1 byte
# and the maximum of local memory; JSON into OUTDIR, then table3.{csv,md} from them.
#   scripts/table3-run.sh path/to/wgsync OUTDIR [runs]
set -uo pipefail
W=$1; R=$2; runs=${3:-20}
mkdir -p "$R"
for ls in 256 1024; do for lm in 1 max; do
  tag=ls${ls}-lm${lm}
  $W bound -q --json --local-size $ls --local-mem $lm --timeout-ms 200 > "$R/bound-$tag.json" ||
    { echo "bound $tag failed"; continue; }
  for lock in ticket spin free; do
    $W discover -q --json --runs $runs --local-size $ls --local-mem $lm --lock $lock > "$R/discover-$tag-$lock.json"
    [ $lock = free ] && continue # wgsync's own protocol: there is no published form
    $W discover -q --json --runs $runs --local-size $ls --local-mem $lm --lock $lock --wait-us 0 > "$R/discover-$tag-$lock-paper.json"
  done
done; done
python3 "$(dirname "$0")/table3.py" "$R"
