#!/usr/bin/env bash
# Installs what memfit needs on Debian 12, as root: to build it, or with
# --tests to build and run every test. Only installs packages that are
# missing, so it is fast when run again.
set -euo pipefail

# The main job (scripts/quickstart.sh): build memfit and memfit-serve.
packages=(
  build-essential cmake ninja-build pkg-config
  libsimdjson-dev nlohmann-json3-dev libcli11-dev libfmt-dev libboost-dev
  libcurl4-openssl-dev
)
# --tests (scripts/test.sh) adds what the tests, benchmarks and fuzzing
# take: GoogleTest, Google Benchmark, clang's libFuzzer, python3 for the
# schema, C API and module tests (pip, setuptools, wheel and venv for the
# offline `pip install ./python` test), and the calculator page's browser test
# (tests/e2e/run.sh): Debian's chromium, node and npm. A node installed some
# other way is kept (NodeSource's nodejs carries its own npm and conflicts
# with Debian's).
if [[ "${1:-}" == "--tests" ]]; then
  packages+=(
    libgtest-dev libgmock-dev libbenchmark-dev libcpp-httplib-dev
    clang libclang-rt-14-dev
    python3 python3-jsonschema python3-pip python3-setuptools python3-wheel python3-venv
    chromium
  )
  command -v node >/dev/null 2>&1 || packages+=(nodejs)
  command -v npm >/dev/null 2>&1 || packages+=(npm)
elif [[ -n "${1:-}" ]]; then
  echo "usage: install-deps.sh [--tests]" >&2
  exit 2
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if (( ${#missing[@]} > 0 )); then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
