#!/usr/bin/env bash
# Fresh Debian 12, as root: install what is missing, then build and run
# every test: the release suite, the calculator page in headless Chromium
# (screenshot: build/release/e2e/calculator.png), the same suite under
# AddressSanitizer and UndefinedBehaviorSanitizer, each libFuzzer target
# over the hostile corpus, and the Windows build of `memfit host` under
# wine. .ci/run calls this script.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

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

echo "== fuzz targets over the hostile corpus"
bash scripts/fuzz-smoke.sh

echo "== Windows cross-build (mingw-w64): memfit host --json under wine"
bash tests/host/windows_cross_test.sh
