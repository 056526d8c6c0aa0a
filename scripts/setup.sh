#!/usr/bin/env bash
# Set up and run wgsync's main job on the default device (PoCL when there is no GPU): list the
# devices, find the occupancy bound and discover occupancy (recall against it), and run the
# grid-barrier self-test.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
exec build/cli/wgsync demo "$@"
