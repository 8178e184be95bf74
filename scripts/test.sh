#!/usr/bin/env bash
# Fresh Debian 12, as root: install what is missing, then build and run
# every test. The GoogleTest suite is compiled once, in the sanitizer build
# (clang, ASan + UBSan), which runs it and every committed fuzz input and
# crash reproducer (ctest -R FuzzReplay), and whose libFuzzer targets then
# run the deterministic fuzz smoke (fixed seed and run counts:
# scripts/fuzz-smoke.sh, also runnable alone); the library is compiled once
# for both. The release build makes the programs and runs what tests them
# as shipped: the golden outputs, the C API, the Python module, the
# installed package, the corpus's generated files (every log replayed by
# the command) and the calculator page in headless Chromium
# (screenshots: build/release/e2e/calculator-{1280,390}.png). Then the
# Windows build of
# `memfit host` under wine and the macOS one linked. Each step prints its
# time (docs/reliability.md, "CI time"). Nothing random decides whether it
# passes. .ci/run calls this script.
set -euo pipefail
cd "$(dirname "$0")/.."

started=$SECONDS
step_name=""
step_at=$SECONDS
# Ends the step under way (its time) and starts the one named, if any.
step() {
  if [[ -n $step_name ]]; then echo "== $step_name: $((SECONDS - step_at)) s"; fi
  step_name=${1:-}
  step_at=$SECONDS
  if [[ -n $step_name ]]; then echo "== $step_name"; fi
}

step "install what is missing"
bash scripts/install-deps.sh --tests

step "release build and the shipped programs' tests (golden outputs, C API, Python, package, the corpus's generated files)"
cmake --preset release -DMEMFIT_BUILD_UNIT_TESTS=OFF >/dev/null
cmake --build --preset release
ctest --preset release -j2

step "calculator page in headless Chromium (tests/e2e)"
bash tests/e2e/run.sh build/release

step "AddressSanitizer + UndefinedBehaviorSanitizer build (clang; the suite and the libFuzzer targets) and the whole suite"
cmake --preset asan >/dev/null
cmake --build --preset asan
# The golden outputs, the package and the corpus's generated files ran
# against the release build.
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --preset asan -j2 --label-exclude 'golden|package|corpus'

step "fuzz smoke: each libFuzzer target of the sanitizer build over its committed inputs, fixed seed and run count"
bash scripts/fuzz-smoke.sh --preset asan --no-build

step "Windows cross-build (mingw-w64): memfit host --json under wine"
bash tests/host/windows_cross_test.sh

step "macOS cross-build (zig, aarch64-macos): memfit host links"
bash tests/host/macos_cross_test.sh

step
echo "== total: $((SECONDS - started)) s"
