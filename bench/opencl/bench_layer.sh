#!/bin/sh
# bench/opencl/bench_layer.sh BUILD OUTDIR [LOCAL]: the OpenCL layer's cost on the device
# WGSYNC_DEVICE names. The calls benchmark 3 times without and 3 times with the layer,
# alternating (what the layer adds to calls that do not use the extensions), then
# intel_device_barrier through the layer next to wgsync's grid barrier at the layer's maximum
# concurrent group count and at half of it. Writes OUTDIR/layer-calls.csv, OUTDIR/layer-barrier.csv.
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
cat "$out/layer-calls.csv" "$out/layer-barrier.csv"
