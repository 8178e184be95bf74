#!/usr/bin/env bash
# Installs what memfit needs to build and test on Debian 12, as root.
# Only installs packages that are missing, so it is fast when run again.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libsimdjson-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libcurl4-openssl-dev libboost-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev
  python3 python3-jsonschema
)
# The calculator page's browser test (tests/e2e/run.sh): Debian's chromium,
# node and npm. A node installed some other way is kept (NodeSource's nodejs
# carries its own npm and conflicts with Debian's).
packages+=(chromium)
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)
if [[ "${1:-}" == "--tests" ]]; then
  shift
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
