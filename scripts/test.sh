#!/usr/bin/env bash
# Fresh Debian 12, as root: install what is missing, then build and run
# every test: the release suite (which replays every committed fuzz input
# and crash reproducer, ctest -R FuzzReplay), the calculator page in
# headless Chromium (screenshot: build/release/e2e/calculator.png), the
# same suite under AddressSanitizer and UndefinedBehaviorSanitizer, the
# deterministic fuzz smoke run (fixed seed and run count:
# scripts/fuzz-smoke.sh, also runnable alone), and the Windows build of
# `memfit host` under wine. Nothing random decides whether it passes.
# .ci/run calls this script.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --tests

echo "== release build and tests"
cmake --preset release >/dev/null
cmake --build --preset release
ctest --preset release -j2

echo "== calculator page in headless Chromium (tests/e2e)"
bash tests/e2e/run.sh build/release

echo "== AddressSanitizer + UndefinedBehaviorSanitizer build and tests"
cmake --preset asan >/dev/null
cmake --build --preset asan
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --preset asan -j2

echo "== fuzz smoke: each libFuzzer target over its committed inputs, fixed seed and run count"
bash scripts/fuzz-smoke.sh

echo "== Windows cross-build (mingw-w64): memfit host --json under wine"
bash tests/host/windows_cross_test.sh
echo "== macOS cross-build (zig, aarch64-macos): memfit host links"
bash tests/host/macos_cross_test.sh
