#!/usr/bin/env bash
# Build and run wgsync's tests (each with its own timeout) on the default device.
set -euo pipefail
cd "$(dirname "$0")/.."
WGS_DEPS_TESTS=1 . scripts/deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWGSYNC_BUILD_TESTS=ON >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
cd build && ctest --output-on-failure --no-tests=error "$@"
