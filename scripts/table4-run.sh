#!/usr/bin/env bash
# Seed 003 Table 4 on one device: every application on every input, all forms side by side
# (`wgsync app --json`; each run checked against the CPU reference), one JSON per pair.
#   scripts/table4-run.sh WGSYNC OUTDIR gpu|pocl RUNS [wgsync device options...]
# Progress on stderr. Then: scripts/table4.py OUTDIR
set -uo pipefail
W=$1 OUTDIR=$2 SET=$3 RUNS=$4
shift 4
mkdir -p "$OUTDIR"
if [ "$SET" = gpu ]; then
  # small (launch overhead dominates) to large (work dominates); grid:1000 is ecology1's shape,
  # random:20 Lonestar's r4-2e20, rmat GTgraph's parameters; then inputs like users' graphs:
  # larger R-MAT, a social-like Kronecker graph (Graph500's parameters: a few nodes with tens
  # of thousands of edges) and a road-like one (a grid missing a quarter of its streets)
  inputs="bfs:rmat:16 bfs:random:20 bfs:grid:1000
          sssp:rmat:16 sssp:random:20 sssp:grid:1000
          mis:rmat:16 mis:random:20 mis:grid:1000
          color:rmat:16 color:random:20 color:grid:1000
          bc:rmat:14 bc:random:16 bc:grid:60
          bfs:rmat:18 sssp:rmat:18 mis:rmat:18 color:rmat:18
          bfs:kron:18 sssp:kron:18 mis:kron:18 color:kron:18 bc:kron:14
          bfs:road:1000 sssp:road:1000 mis:road:1000 color:road:1000 bc:road:60
          sssp:kron:16"
else
  inputs="bfs:rmat:12 bfs:grid:64 sssp:rmat:12 sssp:grid:64 mis:rmat:12 mis:grid:100
          color:rmat:12 color:grid:100 bc:rmat:10 bc:grid:32
          bfs:kron:12 sssp:kron:12 mis:kron:12 color:kron:12 bc:kron:10
          bfs:road:64 sssp:road:64 mis:road:100 color:road:100 bc:road:32"
fi
fail=0
for ag in $inputs; do
  app=${ag%%:*} graph=${ag#*:}
  # ONLY="bfs sssp": those applications alone
  [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $app "* ]] || continue
  name="$app-${graph//:/-}"
  echo "== $(date -u +%T) $app on $graph" >&2
  if "$W" app "$app" --graph "$graph" --runs "$RUNS" --json -q "$@" > "$OUTDIR/$name.json.tmp" \
       2> "$OUTDIR/$name.err"; then
    mv "$OUTDIR/$name.json.tmp" "$OUTDIR/$name.json"
    rm -f "$OUTDIR/$name.err"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("  " + "  ".join("%s %.3f ms" % (f["form"], f["median_ms"]) for f in d["forms"]), file=sys.stderr)' "$OUTDIR/$name.json"
  else
    echo "  FAILED: $(tail -3 "$OUTDIR/$name.err")" >&2
    rm -f "$OUTDIR/$name.json.tmp"
    fail=1
  fi
done
exit $fail
