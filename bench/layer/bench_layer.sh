#!/bin/sh
# bench/layer/bench_layer.sh BUILD OUTDIR [LOCAL]: the OpenCL layer's cost on the device
# WGSYNC_DEVICE names. The calls benchmark 3 times without and 3 times with the layer,
# alternating (what the layer adds to calls that do not use the extensions), then
# intel_device_barrier through the layer next to wgsync's grid barrier at the layer's maximum
# concurrent group count and at half of it (NATIVE=1: also the driver's own device barrier, passed
# through), and what a launch costs through it. Writes OUTDIR/layer-{calls,barrier,launch}.csv.
set -eu
build=$1 out=$2 local=${3:-256}
bench=$build/bench/wgsync-bench-layer layer=$build/libwgsync-layer.so
mkdir -p "$out"
: > "$out/layer-calls.csv"
for i in 1 2 3; do
  env -u OPENCL_LAYERS "$bench" calls | sed 1d >> "$out/layer-calls.csv"
  OPENCL_LAYERS=$layer "$bench" calls | sed 1d >> "$out/layer-calls.csv"
done
OPENCL_LAYERS=$layer "$bench" barrier "$local" > "$out/layer-barrier.csv"
most=$(sed -n 's/.*= \([0-9]*\), first.*/\1/p' "$out/layer-barrier.csv")
if [ "${most:-0}" -ge 2 ]; then
  OPENCL_LAYERS=$layer "$bench" barrier "$local" $((most / 2)) | grep -v '^device,' >> "$out/layer-barrier.csv"
fi
# What a launch costs: plain, default dispatch, concurrent dispatch, at half the count
OPENCL_LAYERS=$layer "$bench" launch "$local" $(( ${most:-2} > 1 ? ${most:-2} / 2 : 1 )) > "$out/layer-launch.csv"
# A driver with its own concurrent dispatch (NATIVE=1; the layer replaced it above, with
# WGSYNC_LAYER_REPLACE_NATIVE=1 set by the caller): its barrier at the same group count, passed
# through, in a process of its own (its query is not used: Intel's CPU runtime's hangs)
if [ -n "${NATIVE:-}" ]; then
  env -u WGSYNC_LAYER_REPLACE_NATIVE OPENCL_LAYERS=$layer timeout 120 "$bench" barrier "$local" "$most" native |
    grep -v '^device,\|^#' >> "$out/layer-barrier.csv" || echo "native barrier: failed or timed out" >&2
fi
cat "$out/layer-calls.csv" "$out/layer-barrier.csv" "$out/layer-launch.csv"
