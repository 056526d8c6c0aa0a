#!/usr/bin/env bash
# Coverage-guided fuzzing of one target (graph: the graph readers; spirv: the SPIR-V validator,
# lowerer, structure check and argument reflection; cli: the wgsync command's option parsing) with libFuzzer under AddressSanitizer and UndefinedBehaviorSanitizer, for
# FUZZ_SECONDS (default 20) from the seeds in tests/fuzz/seeds, after replaying every input in
# tests/fuzz/crashes/TARGET (inputs that once failed: regression tests). A failure leaves the
# input in the work folder, named crash-* or timeout-*: copy it into crashes/TARGET with the fix.
# Exits 77 (skipped) where clang has no libFuzzer. Usage: run.sh TARGET [work dir]
set -uo pipefail
target=${1:?usage: run.sh graph|spirv|cli [work dir]}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=${2:-$(mktemp -d)}
secs=${FUZZ_SECONDS:-20}
mkdir -p "$work/corpus-$target" || exit 2
cc=""
for c in clang clang-16 clang-15 clang-14; do
  if command -v $c >/dev/null && echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
    $c -x c -fsanitize=fuzzer - -o "$work/probe" 2>/dev/null; then cc=$c; break; fi
done
[ -n "$cc" ] || { echo "SKIP: no clang with libFuzzer"; exit 77; }
flags=(-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
       -I"$root/include" -I"$root/src" -I"$root/device/common" -I"$root/apps/graph")
case $target in
  graph)
    srcs=("$root/tests/fuzz/fuzz_graph.c" "$root/apps/graph/graph_io.c" "$root/apps/graph/graph_gen.c" "$root/src/status.c")
    flags+=(-DAPP_GRAPH_MAX_NODES=16777216u) # 64 MiB of row offsets: under libFuzzer's memory limit
    for f in tiny.gr tiny.graph tiny.mtx; do
      case $f in *.gr) b='\x00';; *.graph) b='\x01';; *) b='\x02';; esac
      { printf "$b"; cat "$root/tests/fuzz/seeds/$f"; } > "$work/corpus-$target/seed-$f"
    done ;;
  spirv)
    srcs=("$root/tests/fuzz/fuzz_spirv.c" "$root/src/spirv/spirv.c" "$root/src/spirv/reflect.c" "$root/src/status.c")
    if command -v spirv-as >/dev/null; then
      spirv-as --target-env spv1.0 "$root/tests/fuzz/seeds/split.spvasm" -o "$work/corpus-$target/seed-split.spv"
    fi ;;
  cli)
    srcs=("$root/tests/fuzz/fuzz_cli.c" "$root/cli/options.c")
    flags+=(-I"$root/cli")
    printf 'barrier\0--rounds\0100\0--local-size\00064\0--split' > "$work/corpus-$target/seed-barrier"
    printf 'app\0bfs\0--graph\0rmat:9\0--forms\0multi,persistent\0--weights\0100' > "$work/corpus-$target/seed-app"
    printf 'discover\0--lock\0ticket\0--delay\0005\0--wait-us\0001.5\0-q' > "$work/corpus-$target/seed-discover" ;;
  *) echo "unknown target '$target' (graph, spirv or cli)"; exit 2 ;;
esac
$cc "${flags[@]}" "${srcs[@]}" -lm -o "$work/fuzz_$target" || { echo "FAIL: the fuzzer did not build"; exit 1; }
crashes=("$root/tests/fuzz/crashes/$target"/*)
if [ -e "${crashes[0]}" ]; then
  echo "replaying ${#crashes[@]} saved input(s)"
  "$work/fuzz_$target" "${crashes[@]}" 2>&1 | tail -3 || { echo "FAIL: a saved input fails again"; exit 1; }
fi
# Fork mode, so that an input that runs out of memory does not end the run: the graph readers
# allocate what a header declares (a 30-byte DIMACS file may declare 2^31 nodes, legally: nodes
# without arcs exist). Crashes, leaks and undefined behaviour still end it and fail.
"$work/fuzz_$target" -fork=1 -ignore_ooms=1 -ignore_timeouts=0 -ignore_crashes=0 \
  -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$work/" "$work/corpus-$target" > "$work/fuzz.log" 2>&1
rc=$?
grep -E "stat::number_of_executed_units|stat::new_units_added|cov:|oom" "$work/fuzz.log" | tail -3
if [ $rc -ne 0 ]; then
  grep -E "ERROR|SUMMARY|runtime error|Test unit written" "$work/fuzz.log" | head -10
  # what the run ended with, and the inputs it kept (a failure that printed no ERROR line above
  # is otherwise undiagnosable once the work folder is gone)
  echo "fuzzer exit code $rc; the log ends:"; tail -8 "$work/fuzz.log"
  ls "$work" | grep -E '^(crash|timeout|oom|leak|slow-unit)-' | head -5
  echo "FAIL: fuzzing $target found an input that fails (kept in $work)"
  exit 1
fi
echo "PASS: $target fuzzed for ${secs}s"
