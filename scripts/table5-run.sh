#!/usr/bin/env bash
# Seed 003 Table 5 on PoCL: discovery recall against the delay between polling and closing
# (§5.4: lock/unlock rounds), ticket lock, with and without wgsync's quiescence wait, for 1, 2, 4
# and 8 worker threads. The bound is searched once per thread count (`wgsync bound`). Spins are
# bounded at 20 s: with more threads than cores, long delays keep participants in the lock for
# longer than the default 500 ms, which the checked build would report as a deadlock.
#   scripts/table5-run.sh WGSYNC OUTDIR [RUNS]
set -uo pipefail
W=$1 OUTDIR=$2 RUNS=${3:-10}
mkdir -p "$OUTDIR"
csv="$OUTDIR/table5.csv"
echo "threads,bound,lock,delay_rounds,close_wait_us,runs,mean,min,max,recall_pct" > "$csv"
for t in 1 2 4 8; do
  export POCL_MAX_PTHREAD_COUNT=$t POCL_CPU_MAX_CU_COUNT=$t
  bound=$("$W" bound -q --local-size 64 --timeout-ms 300 | sed -n 's/.*occupancy bound: \([0-9]*\) groups.*/\1/p')
  echo "== $t threads: bound ${bound:-?}" >&2
  for d in 0 10 100 1000 10000 100000; do
    for wait in 0 -1; do
      [ "$wait" = -1 ] && [ "$d" != 0 ] && continue   # the quiescence wait is measured once, delay 0
      wopt=$([ "$wait" = 0 ] && echo "--wait-us 0" || echo "")
      "$W" discover -q --json --runs "$RUNS" --local-size 64 --lock ticket --delay $d $wopt --timeout-ms 20000 \
        > "$OUTDIR/t$t-d$d-w$wait.json" || { echo "  delay $d failed" >&2; continue; }
      python3 - "$OUTDIR/t$t-d$d-w$wait.json" "$t" "${bound:-0}" "$d" "$wait" "$RUNS" >> "$csv" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); t, b, dl, w, r = sys.argv[2:]
p = d["participants"]
rec = 100.0 * p["mean"] / float(b) if float(b) > 0 else float("nan")
print(f"{t},{b},ticket,{dl},{'default' if w == '-1' else w},{r},{p['mean']},{p['min']},{p['max']},{rec:.1f}")
PY
      tail -1 "$csv" >&2
    done
  done
done
