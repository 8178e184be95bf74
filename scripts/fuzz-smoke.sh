#!/usr/bin/env bash
# Builds each libFuzzer target with clang and runs it over the committed
# hostile inputs plus a short time-boxed exploration. Any crash fails.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-20}"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz
for target in build/fuzz/fuzz/*_fuzz; do
  name="$(basename "$target" _fuzz)"
  seeds="tests/data/hostile/${name}"
  work="$(mktemp -d)"
  if [[ -d "$seeds" ]]; then cp -r "$seeds"/. "$work"/; fi
  echo "-- $name: ${seconds}s"
  "$target" -max_total_time="$seconds" -max_len=65536 "$work" 2>&1 | tail -n 2
  rm -rf "$work"
done
