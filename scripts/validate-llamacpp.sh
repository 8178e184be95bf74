#!/usr/bin/env bash
# The proof against the real llama.cpp (docs/validation-llamacpp.md).
#
#   scripts/validate-llamacpp.sh [OUT_DIR]        default build/validation-llamacpp
#   scripts/validate-llamacpp.sh --gpu [OUT_DIR]  the CUDA binaries, per device
#
# --gpu (a Linux x86-64 machine with an NVIDIA GPU and its driver): installs
# node-llama-cpp's CUDA package as well, loads each validation model at
# -ngl 0, 1, half the blocks and all, and writes OUT_DIR/results-gpu.md
# and OUT_DIR/results-gpu.json: each device's model, context and compute
# bytes from llama.cpp's log lines next to memfit's "devices"
# (run-gpu.mjs). No test runs it.
#
# Installs node-llama-cpp 3.21.1 (pinned; its prebuilt CPU binaries of
# llama.cpp come inside the npm package) into a scratch folder outside the
# repository, builds memfit and make_validation_models (release preset)
# unless MEMFIT_BUILD_DIR names an existing build, writes the validation
# models, loads each with llama.cpp on the CPU at every setting of
# scripts/validate-llamacpp/settings.mjs, and writes OUT_DIR/results.md and
# OUT_DIR/results.json. Needs node >= 20 and npm; downloads from npm, so no
# test command runs it. Never builds llama.cpp from source.
#
# Environment:
#   MEMFIT_BUILD_DIR        an existing build folder (memfit and
#                           tests/validation/make_validation_models in it)
#   MEMFIT_VALIDATION_CACHE where node-llama-cpp is installed
#                           (default: ${XDG_CACHE_HOME:-~/.cache}/memfit-validate-llamacpp)
#   MEMFIT_VALIDATION_ONLY  comma-separated model names to run (default all)
set -euo pipefail

gpu=0
if [ "${1:-}" = "--gpu" ]; then
  gpu=1
  shift
fi
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$(realpath -m "${1:-$root/build/validation-llamacpp}")"
cache="${MEMFIT_VALIDATION_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/memfit-validate-llamacpp}"
here="$root/scripts/validate-llamacpp"

command -v node >/dev/null || { echo "validate-llamacpp: node (>= 20) is required" >&2; exit 2; }
command -v npm >/dev/null || { echo "validate-llamacpp: npm is required" >&2; exit 2; }

# 1. node-llama-cpp, pinned, prebuilt binaries only: the CPU package of
# this platform alone (its GPU packages, ~600 MiB, are optional
# dependencies and are left out), else every optional package.
mkdir -p "$cache"
cp "$here/package.json" "$cache/package.json"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) binaries=(--omit=optional @node-llama-cpp/linux-x64@3.21.1)
    [ "$gpu" = 1 ] && binaries+=(@node-llama-cpp/linux-x64-cuda@3.21.1) ;;
  Linux-aarch64) binaries=(--omit=optional @node-llama-cpp/linux-arm64@3.21.1) ;;
  *) binaries=() ;;
esac
installed="$(node -p "try{require('$cache/node_modules/node-llama-cpp/package.json').version}catch{''}")"
if [ "$gpu" = 1 ] && [ ! -d "$cache/node_modules/@node-llama-cpp/linux-x64-cuda" ]; then installed=""; fi
if [ "$installed" != "3.21.1" ]; then
  echo "validate-llamacpp: installing node-llama-cpp 3.21.1 into $cache" >&2
  (cd "$cache" && NODE_LLAMA_CPP_SKIP_DOWNLOAD=true npm install --no-audit --no-fund --save-exact \
    node-llama-cpp@3.21.1 "${binaries[@]}" >&2)
fi

# 2. memfit and the model writer.
if [ -n "${MEMFIT_BUILD_DIR:-}" ]; then
  build="$(realpath "$MEMFIT_BUILD_DIR")"
else
  build="$root/build/release"
  (cd "$root" && cmake --preset release >/dev/null &&
    cmake --build --preset release --target memfit_cli make_validation_models >&2)
fi
memfit="$build/memfit"
writer="$build/tests/validation/make_validation_models"
[ -x "$memfit" ] || { echo "validate-llamacpp: no memfit at $memfit" >&2; exit 2; }
[ -x "$writer" ] || { echo "validate-llamacpp: no make_validation_models at $writer" >&2; exit 2; }

# 3. The models, then the runs.
mkdir -p "$out/models"
"$writer" "$out/models" >&2
if [ "$gpu" = 1 ]; then
  node "$here/run-gpu.mjs" --nlc "$cache" --memfit "$memfit" --models "$out/models" --out "$out"
  echo "validate-llamacpp: $out/results-gpu.md" >&2
  exit 0
fi
only_args=()
[ -n "${MEMFIT_VALIDATION_ONLY:-}" ] && only_args=(--only "$MEMFIT_VALIDATION_ONLY")
node "$here/run.mjs" --nlc "$cache" --memfit "$memfit" --models "$out/models" --out "$out" "${only_args[@]}"
echo "validate-llamacpp: $out/results.md" >&2
